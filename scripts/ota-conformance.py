#!/usr/bin/env python3
"""Validates the answers of a running gateway against the official OpenTravel schemas.

    scripts/ota-conformance.py XSD_DIR [--url http://127.0.0.1:8080] [--out DIR] [-v]

XSD_DIR is a directory holding the official OpenTravel schemas (searched recursively for
`OTA_<answer root>.xsd`): `conformance/opentravel-2016b` holds the 2016B ones our roots need.
`--credentials OTA-DEMO,OTA-DEMO-DIST,ota-demo-pass` runs the requests as the demo partner on
the `ota2016b` dialect (reading and modifying its own demo bookings). The gateway should run on a fresh demo database
(`ota-gateway serve --demo --db /tmp/fresh.db`): the requests use the demo credentials and content.

It sends a fixed set of 50 requests covering every operation (successes, warnings and errors;
the modify is built from a read, as clients do), saves each answer (`--out`, default a temporary
directory), validates it with `xmllint --noout --schema OTA_<root>.xsd` and prints one line per
answer, then:

- valid: the answer is valid under the official schema;
- dialect only: invalid, but every xmllint error is one of the forms `spec/README.md` lists as
  deliberate (the vendor's documented forms and the forms the service description requires;
  the patterns are in DELIBERATE below);
- other: an xmllint error outside those lists (a form to change, or a new deliberate one to
  list);
- no schema: XSD_DIR has no schema for the root (e.g. OTA_ProductDescriptiveInfoRS is not in
  2016B).

Exit status 0 when no answer is "other", 1 otherwise, 2 on a usage or transport problem.
Needs python3 (stdlib only) and xmllint.
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

NS = "http://www.opentravel.org/OTA/2003/05"
ET.register_namespace("", NS)

# xmllint error texts of the deliberate forms (spec/README.md, "The answers and OpenTravel
# 2016B"), each with its source. An answer whose every error matches one of these is
# counted as "dialect only".
DELIBERATE = [
    # (a) the vendor's documented forms
    (r"attribute 'Version': '2016\.b' is not a valid value of the atomic type 'xs:decimal'", "a: Version 2016.b"),
    (r"attribute 'Version': \[facet 'minInclusive'\]", "a: Version 2016.b"),
    (r"BasicInfo', attribute 'SupplierServiceCode': The attribute 'SupplierServiceCode' is not allowed", "a: BasicInfo@SupplierServiceCode"),
    (r"Region', attribute 'RegionCode'", "a: Region with the place name as text"),
    (r"Region': Character content (other than whitespace )?is not allowed", "a: Region with the place name as text"),
    (r"Region': Element content is not allowed, because the content type is empty", "a: Region with the place name as text"),
    (r"Location', attribute 'Context': The attribute 'Context' is not allowed", "a: Location@Context"),
    (r"PickupDropoff', attribute 'Code': The attribute 'Code' is not allowed", "a: PickupDropoff@Code"),
    (r"Category', attribute 'QualifierInfo': The attribute 'QualifierInfo' is not allowed", "a: Category@QualifierInfo"),
    (r"Group', attribute 'KnownGroupsize': The attribute 'KnownGroupsize' is not allowed", "a: Group@KnownGroupsize"),
    (r"HotelDescriptiveContent', attribute 'LastModifiedDate': The attribute 'LastModifiedDate' is not allowed", "a: HotelDescriptiveContent@LastModifiedDate"),
    (r"HotelResModify', attribute 'LastUpdateDateTime': The attribute 'LastUpdateDateTime' is not allowed", "a: HotelResModify@LastUpdateDateTime"),
    (r"attribute 'RoomTypeCode': \[facet 'maxLength'\] The value '[^']*;[^']*' has a length of '\d+'; this exceeds the allowed maximum length of '16'", "a: RoomTypeCode with a contract suffix"),
    (r"attribute 'RoomTypeCode': '[^']*;[^']*' is not a valid value of the atomic type 'StringLength1to16'", "a: RoomTypeCode with a contract suffix"),
    # OTA's Category and Type carry a value of its own list as text; the vendor's codes are in
    # @Code and the text is empty.
    (r"(Category|Type)': \[facet 'enumeration'\] The value '' is not an element of the set", "a: Category/Type codes outside OTA's lists"),
    (r"(Category|Type)': '' is not a valid value of the atomic type 'TourActivity(Category|Type)Enum'", "a: Category/Type codes outside OTA's lists"),
    # (b) forms the service description requires (the booking in the shape of the modify request)
    (r"HotelReservationID', attribute 'Item_RPH': The attribute 'Item_RPH' is not allowed", "b: HotelReservationID@Item_RPH"),
    (r"ResGuestRPHs': Element '\{[^}]*\}ResGuestRPH': This element is not expected", "b: ResGuestRPHs/ResGuestRPH elements"),
    (r"ResGuestRPHs': Element content is not allowed, because the content type is a simple type", "b: ResGuestRPHs/ResGuestRPH elements"),
    (r"Service': The attribute '(ID|Type)' is required but missing", "b: Service without @ID/@Type"),
    # ours: a Quote stores nothing, so without a client reference there is no Confirmation (in
    # either dialect: 2016B requires one, but its activity booking has no quote, and the answer
    # does not make a reference up; spec/README.md, Dialects)
    (r"ParticipantInfo': This element is not expected\. Expected is \( \{[^}]*\}Confirmation \)", "q: Quote without Confirmation"),
]


def today_plus(days):
    return (datetime.date.today() + datetime.timedelta(days=days)).isoformat()


def pos(cred, instance=None):
    rid, ctx, pw = cred
    inst = f' Instance="{instance}"' if instance else ""
    return (
        f'<POS><Source><RequestorID Type="22" ID="{rid}" ID_Context="{ctx}"{inst}/></Source>'
        f'<Source><RequestorID Type="88" ID="{rid}" MessagePassword="{pw}"/></Source></POS>'
    )


def requests(cred, run):
    """The fixed set: (name, path, body or a function of the answers so far)."""
    d = today_plus
    wrong = (cred[0], cred[1], "not-the-password")
    # The demo bookings of the requestor: DEMO's DEMO-2030-000N (internal 4471200 + N - 1),
    # OTA-DEMO's OTA-2030-000N (4471400 + N - 1).
    client, internal = ("OTA", 4471400) if cred[0] == "OTA-DEMO" else ("DEMO", 4471200)

    def nbc(body, lang="en", c=cred, version="2009.1"):
        return (f'<OTA_HotelDescriptiveInfoRQ xmlns="{NS}" Version="{version}" PrimaryLangID="{lang}">{pos(c)}'
                f"<HotelDescriptiveInfos>{body}</HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>")

    def pnbc(activity):
        return (f'<OTA_ProductDescriptiveInfoRQ xmlns="{NS}" Version="2016.2" PrimaryLangID="en">{pos(cred)}'
                f'<ProductDescriptiveInfos><TourActivityDescriptiveInfo TourActivityID="{activity}"/></ProductDescriptiveInfos>'
                "</OTA_ProductDescriptiveInfoRQ>")

    def avail(source="HTL00042", product=None, start=3, end=9, instance=None, price=None):
        loc = f'<Location Context="Source"><Region RegionCode="HotelCode">{source}</Region></Location>' if source else ""
        if product:
            loc += f'<Location Context="Service"><Region RegionCode="Product">{product}</Region></Location>'
        offer = ""
        if price:
            amount, currency = price
            offer = (f"<MultimodalOffer><RequestedOffer><GuidelinePricing><Method>PerPerson</Method>"
                     f'<MaximumPrice Amount="{amount}" CurrencyCode="{currency}" CurrencyDecimal="2"/>'
                     "</GuidelinePricing></RequestedOffer></MultimodalOffer>")
        return (f'<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en">{pos(cred, instance)}'
                f'<TourActivity><BasicInfo/>{loc}<Schedule StartPeriod="{d(start)}" EndPeriod="{d(end)}"/>'
                '<ParticipantCount Quantity="2"><QualifierInfo>10</QualifierInfo></ParticipantCount>'
                '<ParticipantCount Quantity="1"><QualifierInfo>8</QualifierInfo></ParticipantCount>'
                f"{offer}</TourActivity></OTA_TourActivityAvailRQ>")

    def search(source="HTL00042", product=None, start=2, end=16, lang="en"):
        loc = f'<LocationPref Context="Source"><Region RegionCode="HotelCode">{source}</Region></LocationPref>' if source else ""
        if product:
            loc += f'<LocationPref Context="Service"><Region RegionCode="Product">{product}</Region></LocationPref>'
        return (f'<OTA_TourActivitySearchRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="{lang}">{pos(cred)}'
                f'<SearchCriteria><DateTimePref Start="{d(start)}" End="{d(end)}"/>{loc}</SearchCriteria></OTA_TourActivitySearchRQ>')

    def book(status="Quote", activity="LESPMIBKUI", product="TE0CC00A", service="TIC", day=20, client=None, instance=None, pickup=None):
        people = "".join(
            f'<ParticipantInfo><Category QualifierInfo="{q}"/><Individual Age="{age}" ParticipantID="{i}">'
            f"<GivenName>{given}</GivenName><NamePrefix>{prefix}</NamePrefix><Surname>Müller</Surname></Individual></ParticipantInfo>"
            for i, (q, age, given, prefix) in enumerate([("10", 44, "José", "Mr"), ("10", 42, "Zoë", "Mrs"), ("8", 9, "Łucja", "Miss")], 1)
        )
        pick = f'<PickupDropoff DateTime="{d(day)}T{pickup}" LocationName="HTL00042" PickupInd="true"/>' if pickup else ""
        ext = f'<TPA_Extensions><UniqueID Type="36" ID="{client}" ID_Context="Client"/></TPA_Extensions>' if client else ""
        return (f'<OTA_TourActivityBookRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en" ResStatus="{status}">{pos(cred, instance)}'
                f'<BookingInfo><BasicInfo TourActivityID="{activity}" SupplierProductCode="{product}" SupplierServiceCode="{service}"/>'
                f'{people}<Schedule Start="{d(day)}T00:00:00" End="{d(day)}T23:59:59"/>{pick}</BookingInfo>{ext}</OTA_TourActivityBookRQ>')

    def read(ref, context="Client", c=cred):
        return (f'<OTA_ReadRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en">{pos(c)}'
                f'<UniqueID Type="36" ID="{ref}" ID_Context="{context}"/></OTA_ReadRQ>')

    def read_list(date_type, status=None):
        st = f' ResStatus="{status}"' if status else ""
        return (f'<OTA_ReadRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en" ReturnListIndicator="true">{pos(cred)}'
                f'<ReadRequests><HotelReadRequest><SelectionCriteria Start="2020-01-01" End="2039-12-31" DateType="{date_type}"{st}/>'
                "</HotelReadRequest></ReadRequests></OTA_ReadRQ>")

    def modify(read_name, status="Quote", change=None, stale=False):
        """A modify built from the answer of an earlier read: the booking sent back."""

        def build(answers):
            root = ET.fromstring(answers[read_name])
            res = root.find(f".//{{{NS}}}HotelReservation")
            if res is None:
                # e.g. a requestor that does not own the demo bookings: nothing to send back.
                return None
            hrm = ET.Element(f"{{{NS}}}HotelResModify")
            for k in ("CreateDateTime", "LastUpdateDateTime", "LastModifyDateTime"):
                if k in res.attrib:
                    hrm.set(k, "2020-01-01T00:00:00" if stale else res.attrib[k])
            for child in res:
                if child.tag != f"{{{NS}}}UniqueID":
                    hrm.append(child)
            if change:
                change(hrm)
            body = ET.tostring(hrm, encoding="unicode")
            return (f'<OTA_HotelResModifyRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en" ResStatus="{status}">{pos(cred)}'
                    f"<HotelResModifies>{body}</HotelResModifies></OTA_HotelResModifyRQ>")

        return build

    def comment(text):
        def change(hrm):
            info = hrm.find(f"{{{NS}}}ResGlobalInfo")
            comments = info.find(f"{{{NS}}}Comments")
            if comments is None:
                comments = ET.Element(f"{{{NS}}}Comments")
                info.insert(0, comments)
            c = ET.SubElement(comments, f"{{{NS}}}Comment", {"Name": "Remarks", "CommentOriginatorCode": "Client"})
            ET.SubElement(c, f"{{{NS}}}Text").text = text
        return change

    def board(code):
        def change(hrm):
            for t in hrm.iterfind(f".//{{{NS}}}RoomRate/{{{NS}}}Features/{{{NS}}}Feature/{{{NS}}}Description/{{{NS}}}Text"):
                t.text = code
        return change

    def unknown_booking(hrm):
        for r in hrm.iterfind(f".//{{{NS}}}HotelReservationID"):
            r.set("ResID_Value", r.get("ResID_Value") + "-X")

    return [
        # /hotelnbc → OTA_HotelDescriptiveInfoRS
        ("nbc-one", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL00042"/>')),
        ("nbc-es", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL00077"/>', "es")),
        ("nbc-all-languages", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL00042"/>', "*")),
        ("nbc-brand", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="" BrandCode="SOLMAR"/>')),
        ("nbc-fallback", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL00105"/>', "de")),
        ("nbc-unknown-hotel", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL99999"/>')),
        ("nbc-wrong-password", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL00042"/>', c=wrong)),
        ("nbc-wrong-version", "/hotelnbc", nbc('<HotelDescriptiveInfo HotelCode="HTL00042"/>', version="1.000")),
        # /activitynbc → OTA_ProductDescriptiveInfoRS
        ("pnbc-one", "/activitynbc", pnbc("LESPMIBKUI")),
        ("pnbc-unknown", "/activitynbc", pnbc("LESXXXXXXX")),
        # /activityavailability → OTA_TourActivityAvailRS
        ("avail-default", "/activityavailability", avail()),
        ("avail-mf001", "/activityavailability", avail(instance="MF001")),
        ("avail-mf002", "/activityavailability", avail(instance="MF002")),
        ("avail-product", "/activityavailability", avail(source=None, product="LESPMISE01", instance="MF001")),
        ("avail-tenerife", "/activityavailability", avail(source="HTL00110", instance="MF001")),
        ("avail-max-price", "/activityavailability", avail(price=("1.00", "EUR"))),
        ("avail-wrong-currency", "/activityavailability", avail(price=("100.00", "USD"))),
        ("avail-too-long", "/activityavailability", avail(end=60)),
        # /activitysearch → OTA_TourActivitySearchRS
        ("search-hotel", "/activitysearch", search()),
        ("search-es", "/activitysearch", search(lang="es")),
        ("search-product", "/activitysearch", search(source=None, product="LESPMISE01")),
        ("search-tenerife", "/activitysearch", search(source="HTL00110")),
        ("search-nothing", "/activitysearch", search(source="HTL02001")),
        ("search-unknown-product", "/activitysearch", search(source=None, product="LESXXXXXXX")),
        ("search-too-long", "/activitysearch", search(end=60)),
        # /activitybook → OTA_TourActivityBookRS
        ("book-quote", "/activitybook", book()),
        ("book-quote-breakdown", "/activitybook", book(instance="PriceBreakdown")),
        ("book-quote-transfer", "/activitybook", book(service="TRF", pickup="08:30:00")),
        ("book-commit", "/activitybook", book("Commit", client=f"CONF-{run}-1")),
        ("book-commit-transfer", "/activitybook", book("Commit", service="TRF", pickup="08:30:00", client=f"CONF-{run}-2")),
        ("book-commit-repeat", "/activitybook", book("Commit", client=f"CONF-{run}-1")),
        ("book-unknown-activity", "/activitybook", book(activity="LESXXXXXXX")),
        ("book-commit-no-reference", "/activitybook", book("Commit")),
        ("book-bad-status", "/activitybook", book("Hold")),
        # /bookread → OTA_ResRetrieveRS
        ("read-client", "/bookread", read(f"{client}-2030-0001")),
        ("read-internal", "/bookread", read(str(internal + 1), "Internal")),
        ("read-cancelled", "/bookread", read(f"{client}-2030-0003")),
        ("read-urban", "/bookread", read(f"{client}-2030-0004")),
        ("read-list-arrival", "/bookread", read_list("ArrivalDate")),
        ("read-list-created", "/bookread", read_list("CreateDate")),
        ("read-list-cancelled", "/bookread", read_list("ArrivalDate", "Cancelled")),
        ("read-not-found", "/bookread", read(f"{client}-2030-9999")),
        ("read-other-partner", "/bookread", read("P2-2030-0001")),
        # /bookmodify → OTA_HotelResModifyRS (built from the reads above)
        ("modify-quote-unchanged", "/bookmodify", modify("read-internal")),
        ("modify-quote-comment", "/bookmodify", modify("read-internal", change=comment("Conformance check."))),
        ("modify-quote-board", "/bookmodify", modify("read-internal", change=board("HB"))),
        ("modify-commit-comment", "/bookmodify", modify("read-urban", "Commit", change=comment(f"Conformance run {run}."))),
        ("modify-stale", "/bookmodify", modify("read-internal", "Commit", stale=True)),
        ("modify-not-found", "/bookmodify", modify("read-internal", change=unknown_booking)),
        ("modify-full", "/bookmodify", modify("read-client")),
    ]


def post(url, body):
    rq = urllib.request.Request(url, data=body.encode("utf-8"), headers={"Content-Type": "application/xml"}, method="POST")
    try:
        with urllib.request.urlopen(rq, timeout=30) as rs:
            return rs.status, rs.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def find_schemas(xsd_dir):
    found = {}
    for dirpath, _, files in os.walk(xsd_dir):
        for f in files:
            if f.startswith("OTA_") and f.endswith(".xsd"):
                found.setdefault(f[:-4], os.path.join(dirpath, f))
    return found


def validate(schema, files):
    """{file: [error lines]} with xmllint, one run per schema."""
    out = subprocess.run(["xmllint", "--noout", "--schema", schema, *files], capture_output=True, text=True)
    errors = {f: [] for f in files}
    for line in out.stderr.splitlines():
        for f in files:
            # "FILE:LINE: element X: Schemas validity error : ..." (the answers are one line)
            if line.startswith(f + ":"):
                text = re.sub(r"^\d+: ", "", line[len(f) + 1:])
                if text not in errors[f]:
                    errors[f].append(text)
                break
    failed = {f for f in files if f"{f} fails to validate" in out.stderr}
    for f in files:
        if f in failed and not errors[f]:
            errors[f].append("fails to validate")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xsd_dir", help="directory of the official OpenTravel schemas (searched recursively)")
    ap.add_argument("--url", default="http://127.0.0.1:8080", help="the gateway (default %(default)s)")
    ap.add_argument("--out", help="where to keep the answers (default: a temporary directory)")
    ap.add_argument("--credentials", default="DEMO,DEMO-DIST,demo-password", help="ID,ID_Context,MessagePassword (default: the demo requestor)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every xmllint error")
    args = ap.parse_args()

    schemas = find_schemas(args.xsd_dir)
    if not schemas:
        print(f"no OTA_*.xsd under {args.xsd_dir}", file=sys.stderr)
        return 2
    cred = tuple(args.credentials.split(","))
    out = args.out or tempfile.mkdtemp(prefix="ota-conformance-")
    os.makedirs(out, exist_ok=True)
    run = datetime.datetime.now().strftime("%Y%m%d%H%M%S")

    answers, files, roots = {}, {}, {}
    for name, path, body in requests(cred, run):
        if callable(body):
            body = body(answers)
            if body is None:
                print(f"{'skipped':12} {'':32} {'':8} {name}: the read it is built from found no booking")
                continue
        try:
            status, answer = post(args.url.rstrip("/") + path, body)
        except OSError as e:
            print(f"{name}: {args.url}{path}: {e}", file=sys.stderr)
            return 2
        answers[name] = answer
        f = os.path.join(out, f"{name}.xml")
        with open(f, "w", encoding="utf-8") as fh:
            fh.write(answer)
        with open(os.path.join(out, f"{name}.rq.xml"), "w", encoding="utf-8") as fh:
            fh.write(body)
        files[name] = f
        m = re.search(r"<(?:\w+:)?(OTA_\w+)", answer)
        roots[name] = m.group(1) if m else "?"
        if status != 200:
            print(f"{name}: HTTP {status}", file=sys.stderr)

    by_root = {}
    for name, root in roots.items():
        by_root.setdefault(root, []).append(name)
    results = {}
    for root, names in by_root.items():
        schema = schemas.get(root)
        if schema is None:
            for n in names:
                results[n] = ("no schema", [])
            continue
        errs = validate(schema, [files[n] for n in names])
        for n in names:
            e = errs[files[n]]
            if not e:
                results[n] = ("valid", [])
            else:
                other = [x for x in e if not any(re.search(p, x) for p, _ in DELIBERATE)]
                results[n] = ("dialect only" if not other else "other", e)

    counts = {}
    for name in roots:
        kind, errs = results[name]
        counts[kind] = counts.get(kind, 0) + 1
        ok = "Errors" if "<Errors>" in answers[name] else ("Warnings" if "<Warnings>" in answers[name] else "Success")
        print(f"{kind:12} {roots[name]:32} {ok:8} {name}")
        if kind == "dialect only":
            forms = sorted({label for x in errs for p, label in DELIBERATE if re.search(p, x)})
            print(f"{'':12} deliberate: {'; '.join(forms)}")
        if kind == "other" or (args.verbose and errs):
            for x in errs if args.verbose else [x for x in errs if not any(re.search(p, x) for p, _ in DELIBERATE)]:
                print(f"{'':12} {x}")
    checked = len(roots) - counts.get("no schema", 0)
    print()
    print(f"{counts.get('valid', 0)} of {checked} answers valid under {args.xsd_dir}; "
          f"{counts.get('dialect only', 0)} more differ only by the deliberate forms; "
          f"{counts.get('other', 0)} other; {counts.get('no schema', 0)} without a schema there. Answers in {out}")
    return 1 if counts.get("other") else 0


if __name__ == "__main__":
    sys.exit(main())
