#!/usr/bin/env python3
"""Copies OpenTravel's own sample requests of our roots into conformance/opentravel-samples/.

    scripts/official-samples.py OPENTRAVEL_CHECKOUT

OPENTRAVEL_CHECKOUT is a checkout of OpenTravel/OpenTravel-Specifications (commit 28dcc88). The
newest publication with sample instances of our request roots is 2011B
(`OTA1.0/OTA2011B/OpenTravel2011B_XML/`); each sample of a root the gateway serves that is valid
under the 2016B schema of its root (conformance/opentravel-2016b/) is copied with two changes
only, so that it reaches the operation instead of stopping at authentication or the version
check: its POS replaced by the OTA-DEMO demo partner's, and its root `Version` set to the one
the service answers for (a client generated from the 2016B schemas sends whatever version its
partner tells it). The copy is checked again against 2016B. The samples' own comments stay.

The supply side's notifications (OTA_HotelAvailNotifRQ, OTA_HotelInvCountNotifRQ,
OTA_HotelRateAmountNotifRQ; issue 21) are copied the same way with the supplier's POS (SUP-DEMO)
instead, and with the hotel, room type and rate plan codes of the samples replaced by the demo
content's (HTL00042, its rooms, the boards), so that they name what the supplier owns.

Needs python3 (stdlib only) and xmllint.
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
XSD = os.path.join(HERE, "..", "conformance", "opentravel-2016b")
OUT = os.path.join(HERE, "..", "conformance", "opentravel-samples")
PUBLICATION = "OTA1.0/OTA2011B/OpenTravel2011B_XML"
# The roots the gateway serves and the Version it takes for each (spec/*.xsd, gen:message).
VERSIONS = {
    "OTA_ReadRQ": "2008.1",
    "OTA_CancelRQ": "2008.1",
    "OTA_HotelAvailRQ": "2008.1",
    "OTA_HotelDescriptiveInfoRQ": "2009.1",
    "OTA_HotelResRQ": "2008.1",
    "OTA_HotelResModifyRQ": "2008.1",
    "OTA_TourActivityAvailRQ": "2011.2",
    "OTA_TourActivityBookRQ": "2011.2",
    "OTA_TourActivitySearchRQ": "2011.2",
    "OTA_HotelAvailNotifRQ": "2016.1",
    "OTA_HotelInvCountNotifRQ": "2016.1",
    "OTA_HotelRateAmountNotifRQ": "2016.1",
}
POS = ('<POS><Source><RequestorID Type="22" ID="OTA-DEMO" ID_Context="OTA-DEMO-DIST"/></Source>'
       '<Source><RequestorID Type="88" ID="OTA-DEMO" MessagePassword="ota-demo-pass"/></Source></POS>')

# The supply side: the supplier's POS, and the samples' codes as the demo content's.
SUPPLY = {"OTA_HotelAvailNotifRQ", "OTA_HotelInvCountNotifRQ", "OTA_HotelRateAmountNotifRQ"}
SUPPLY_POS = ('<POS><Source><RequestorID Type="22" ID="SUP-DEMO" ID_Context="SUP-DEMO-DIST"/></Source>'
              '<Source><RequestorID Type="88" ID="SUP-DEMO" MessagePassword="sup-demo-pass"/></Source></POS>')
HOTEL = "HTL00042"
# The samples' room types and rate plans, as HTL00042's rooms and the demo boards.
ROOMS = {"STD": "RMSD000000", "DLX": "RMJS000000", "SDD": "RMTW000000", "ROH": "RMSD000000",
         "KNS": "RMTW000000", "DDS": "RMJS000000", "CLBS": "RMSD000000"}
BOARDS = {"WHLS1": "BB", "Expedia1": "SC", "Expedia2": "BB", "Expedia3": "HB", "RACK": "BB", "BARA00": "BB",
          "ROOMONLY": "SC", "ROOMCAR": "BB", "ROOMAIR": "HB", "RMCARAIR": "FB"}


def supply_codes(text):
    """The hotel, room type and rate plan codes of a supply sample as the demo content's."""
    text = re.sub(r'\bHotelCode="[^"]*"', f'HotelCode="{HOTEL}"', text)
    text = re.sub(r'\b(InvCode|InvTypeCode)\s*="([^"]*)"', lambda m: f'{m.group(1)}="{ROOMS.get(m.group(2), m.group(2))}"', text)
    return re.sub(r'\bRatePlanCode\s*="([^"]*)"', lambda m: f'RatePlanCode="{BOARDS.get(m.group(1), m.group(1))}"', text)


def valid(root, text):
    xsd = os.path.join(XSD, root + ".xsd")
    return subprocess.run(["xmllint", "--noout", "--schema", xsd, "-"], input=text.encode("utf-8"), capture_output=True).returncode == 0


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder = os.path.join(sys.argv[1], PUBLICATION)
    os.makedirs(OUT, exist_ok=True)
    copied = skipped = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".xml"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = f.read()
        found = re.search(r"<(OTA_\w+)[\s>]", re.sub(r"<!--.*?-->", "", text, flags=re.S))
        root = found.group(1) if found else None
        if root not in VERSIONS:
            continue
        if not valid(root, text):
            print(f"not valid under 2016B, left out: {name}")
            skipped += 1
            continue
        text = re.sub(r"<POS\b.*?</POS>", "", text, count=1, flags=re.S)
        if root in SUPPLY:
            text = supply_codes(text)
        start = re.search(rf"<{root}\b[^>]*>", text)
        tag = re.sub(r'\bVersion="[^"]*"', f'Version="{VERSIONS[root]}"', start.group(0), count=1)
        text = text[:start.start()] + tag + (SUPPLY_POS if root in SUPPLY else POS) + text[start.end():]
        if not valid(root, text):
            print(f"not valid under 2016B once changed, left out: {name}")
            skipped += 1
            continue
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.write(text)
        copied += 1
    print(f"{copied} samples copied to {os.path.relpath(OUT)}; {skipped} left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
