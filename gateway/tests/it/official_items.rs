//! Any official request: requests valid under the official OpenTravel 2016B schema of a root the
//! gateway serves are never answered "malformed", nor with an authentication failure for POS
//! content it does not use.
//!
//! For each served root, a base request that gets a business answer on the demo (OpenTravel's
//! own samples of `conformance/opentravel-samples/`, a hotel quote) is varied with
//! `ota_codegen::official::instances`, drawn from the official schemas: one extra optional item
//! at a time (every absent attribute and every element that may occur once more, of every
//! element of the base), then random fills. Each variant is kept if xmllint finds it valid
//! under the official schema, sent by the demo partner (the demand roots) or the demo supplier
//! (the supply roots), each on one dialect and then on the other, its answer checked valid
//! under the schema of that dialect (2016B's of the response root, or the spec's file of the
//! operation), and classified: a shape error
//! (the request did not decode), an authentication failure (Type 4), or a business answer
//! (processed, with Warnings naming what was not used, or refused Type 2 naming it, or any other
//! business error).
//!
//! `OFFICIAL_RANDOM=N` sets the random fills per base (default 40, every other batch adding
//! only items the decision table ignores), `OFFICIAL_SEED` the seed (default 29),
//! `OFFICIAL_SECONDS=S` keeps drawing random fills for S seconds per base (the long run of the
//! issue's note; the next batch is drawn and checked while one is sent), `OFFICIAL_ROOTS=A,B`
//! runs those roots only, `OFFICIAL_DUMP=DIR` writes each request answered with an
//! authentication failure, a 5xx or an answer not valid in its sender's dialect there, with its
//! answer:
//!
//! ```text
//! OFFICIAL_SECONDS=3600 cargo test --release -p ota-gateway --test it official_items -- --nocapture
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ota_codegen::official::OfficialSchema;
use ota_codegen::official::instances::{Variant, one_extra, random_fill_where};
use ota_gateway::requestors::admin;
use ota_messages::runtime::Message;
use ota_messages::runtime::{Operation, Side};
use ota_messages::{AnyRequest, Dialect};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::support::{Backend, OTA_DEMO, TestServer, day};

const XML: &str = "application/xml";
const NS: &str = "http://www.opentravel.org/OTA/2003/05";

fn official_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-2016b")
}

/// The bases, each a request that succeeds on the demo: the official-form requests of
/// `ota_partner` (hotel availability, content, a quote, the read of a booking made here, a
/// modify quote built from that read, a cancel quote of it), an activity search, availability
/// and booking, and for the supply side the first OpenTravel sample of each notification and an
/// acknowledgement (`conformance/official-requests/OTA_NotifReportRQ.xml`).
/// `{{REF}}` in a base is replaced by a fresh client reference in each variant, `{{DAY}}` by
/// one of 700 days from day 20 in turn (the activity booked has 20 places a day: its variants
/// are booked, and processed, until 14,000 are).
async fn bases(server: &TestServer) -> Vec<(String, String)> {
    use crate::ota_partner::{as_modify, avail, book, cancel, descriptive_info, internal_ref, pos, read};
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for f in files {
        let xml = std::fs::read_to_string(&f).unwrap();
        let root = roxmltree::Document::parse(&xml).unwrap().root_element().tag_name().name().to_string();
        if root.ends_with("NotifRQ") {
            // The demo hotel sells in euros (OpenTravel's rate sample is in dollars).
            out.entry(root).or_insert(xml.replace(r#""USD""#, r#""EUR""#));
        }
    }
    out.insert("OTA_HotelAvailRQ".into(), avail(day(40), day(42)));
    out.insert("OTA_HotelDescriptiveInfoRQ".into(), descriptive_info());
    out.insert("OTA_HotelResRQ".into(), book(Some("Quote"), "{{REF}}", day(40), day(42)));
    // A booking to modify: its read, sent back as a modify Quote.
    let (_, _, booked) = server
        .client()
        .send_raw("/hotelbook", book(Some("Commit"), "OFFICIAL-MOD", day(44), day(46)), XML)
        .await
        .unwrap();
    let internal = internal_ref(&ota_messages::hotel_res::OtaHotelResRs::from_xml(&booked).unwrap())
        .unwrap_or_else(|| panic!("a booking to modify: {booked}"));
    let (_, _, current) = server.client().send_raw("/bookread", read(&internal, "Internal"), XML).await.unwrap();
    out.insert("OTA_ReadRQ".into(), read(&internal, "Internal"));
    // An acknowledgement (conformance/official-requests: the supplier's; this booking is not of its
    // hotels, which the answer says in a warning).
    let report = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/official-requests/OTA_NotifReportRQ.xml"),
    )
    .unwrap();
    out.insert(
        "OTA_NotifReportRQ".into(),
        report.replace("{{INTERNAL_REF}}", &internal).replace("{{LAST_MODIFY}}", "2030-01-01T10:00:00"),
    );
    out.insert("OTA_CancelRQ".into(), cancel("Initiate", &internal));
    out.insert(
        "OTA_HotelResModifyRQ".into(),
        format!(
            r#"<OTA_HotelResModifyRQ xmlns="{NS}" Version="2008.1" ResStatus="Quote">{}<HotelResModifies>{}</HotelResModifies></OTA_HotelResModifyRQ>"#,
            pos(OTA_DEMO),
            as_modify(&current)
        ),
    );
    let (start, end) = (day(20), day(27));
    out.insert(
        "OTA_TourActivitySearchRQ".into(),
        format!(
            r#"<OTA_TourActivitySearchRQ xmlns="{NS}" Version="2011.2">{}<SearchCriteria><DateTimePref Start="{start}" End="{end}"/><LocationPref><Region RegionCode="PMI"/></LocationPref></SearchCriteria></OTA_TourActivitySearchRQ>"#,
            pos(OTA_DEMO)
        ),
    );
    out.insert(
        "OTA_TourActivityAvailRQ".into(),
        format!(
            r#"<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2">{}<TourActivity><BasicInfo TourActivityID="LESPMIBKUI"/><Schedule StartPeriod="{start}" EndPeriod="{}"/><ParticipantCount Quantity="2"><QualifierInfo>Adult</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#,
            pos(OTA_DEMO),
            day(23)
        ),
    );
    out.insert(
        "OTA_TourActivityBookRQ".into(),
        format!(
            r#"<OTA_TourActivityBookRQ xmlns="{NS}" Version="2011.2">{}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A"/><ParticipantInfo><Category Age="41"><QualifierInfo>Adult</QualifierInfo></Category><Individual ParticipantID="1"><GivenName>Ana</GivenName><Surname>Nowak</Surname></Individual></ParticipantInfo><PaymentInfo Amount="25.00" CurrencyCode="EUR"/><Schedule Start="{{{{DAY}}}}"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{{{{REF}}}}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#,
            pos(OTA_DEMO),
        ),
    );
    out.into_iter().collect()
}

/// The official schema of a root.
fn official_xsd(root: &str) -> PathBuf {
    official_dir().join(format!("{root}.xsd"))
}

/// Which variants xmllint finds valid under `xsd`.
fn valid(xsd: &Path, variants: &[Variant], dir: &Path) -> Vec<bool> {
    let files: Vec<PathBuf> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let f = dir.join(format!("{i}.xml"));
            std::fs::write(&f, &v.xml).unwrap();
            f
        })
        .collect();
    let mut verdict = vec![false; files.len()];
    for (chunk_start, chunk) in files.chunks(200).enumerate().map(|(i, c)| (i * 200, c)) {
        let out = Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(xsd)
            .args(chunk)
            .output()
            .expect("xmllint (apt-get install libxml2-utils)");
        let stderr = String::from_utf8_lossy(&out.stderr);
        for (i, f) in chunk.iter().enumerate() {
            verdict[chunk_start + i] = stderr.contains(&format!("{} validates", f.display()));
        }
    }
    verdict
}

/// A folder for the variants xmllint reads: in memory where the machine has one (thousands of
/// files a second are written and removed).
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().tempdir_in("/dev/shm").or_else(|_| tempfile::tempdir()).unwrap()
}

/// The dialects the demo senders' answers are written in: the partner's (`OTA-DEMO`, which
/// sends the demand roots) and the supplier's (`SUP-DEMO`, the supply roots).
#[derive(Debug, Clone, Copy)]
struct Dialects {
    partner: Dialect,
    supplier: Dialect,
}

impl Dialects {
    /// As the demo content has them.
    const DEMO: Dialects = Dialects { partner: Dialect::Ota2016b, supplier: Dialect::Service };

    fn flipped(self) -> Dialects {
        Dialects { partner: self.supplier, supplier: self.partner }
    }

    /// Where the client references of this pass's variants start (each pass books anew).
    fn first_ref(self) -> usize {
        if self.partner == Dialect::Ota2016b { 0 } else { 50_000_000 }
    }

    async fn set(self, server: &TestServer) {
        let actor = ota_gateway::audit::Actor::cli();
        for (id, dialect) in [(OTA_DEMO.0, self.partner), (ota_gateway::import::DEMO_SUPPLIER.0, self.supplier)] {
            admin::set_dialect(server.store(), &actor, id, dialect).await.unwrap();
        }
        server.state.content.refresh().await.unwrap();
    }

    /// The schema an answer to `operation` is valid under: the official one of its root when
    /// its sender is on `ota2016b`, the spec's file of the operation on `service`.
    fn answer_schema(self, operation: &Operation) -> Option<PathBuf> {
        let dialect = if operation.side == Side::Demand { self.partner } else { self.supplier };
        let response = operation.response_root?;
        Some(match dialect {
            Dialect::Ota2016b => official_xsd(response),
            Dialect::Service => Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec").join(operation.schema),
        })
    }
}

/// What became of one variant.
#[derive(Debug, Default)]
struct Tally {
    sent: usize,
    invalid: usize,
    shape: Vec<String>,
    /// Answers not valid under the schema of the sender's dialect.
    invalid_answer: Vec<String>,
    auth: Vec<String>,
    server_error: Vec<String>,
    warned: usize,
    refused: usize,
}

/// A batch of variants of one root, each given a fresh client reference (numbered from
/// `first_ref`) and its verdict from xmllint.
struct Checked {
    variants: Vec<Variant>,
    valid: Vec<bool>,
}

/// A base's (or variant's) `{{REF}}` and `{{DAY}}` filled for the `n`th variant.
fn placeholders(xml: &str, reference: &str, n: usize) -> String {
    xml.replace("{{REF}}", &reference.replace("OTA_", "")).replace("{{DAY}}", &day(20 + (n % 700) as i64).to_string())
}

fn check(root: &str, mut variants: Vec<Variant>, first_ref: usize, dir: &Path) -> Checked {
    for (i, v) in variants.iter_mut().enumerate() {
        let n = first_ref + i;
        v.xml = placeholders(&v.xml, &format!("OFF-{root}-{n}"), n);
    }
    let batch = dir.join(format!("{root}-{first_ref}"));
    std::fs::create_dir_all(&batch).unwrap();
    let valid = valid(&official_xsd(root), &variants, &batch);
    std::fs::remove_dir_all(&batch).unwrap();
    Checked { variants, valid }
}

/// Sends the valid variants of a batch, four at a time (the gateway's two workers stay busy),
/// and checks the answers with xmllint under the schema of the sender's dialect.
async fn send_checked(
    server: &TestServer,
    root: &str,
    checked: Checked,
    dialects: Dialects,
    dir: &Path,
    t: &mut Tally,
) {
    use futures_util::StreamExt;
    let operation = ota_messages::OPERATIONS.iter().find(|o| o.request_root == root).unwrap();
    let path = operation.path;
    let (mut requests, mut answered) = (Vec::new(), Vec::new());
    let mut decoded = Vec::new();
    for (v, ok) in checked.variants.into_iter().zip(checked.valid) {
        if !ok {
            t.invalid += 1;
            continue;
        }
        t.sent += 1;
        // The gateway's own decode: what it answers "malformed".
        match AnyRequest::from_xml_with(&v.xml, ota_messages::official::OFFICIAL) {
            Err(e) => t.shape.push(format!("{}: {e}", v.item)),
            Ok(_) => decoded.push(v),
        }
    }
    let mut answers = futures_util::stream::iter(decoded.into_iter().map(|v| async move {
        let (status, _, body) = server.client().send_raw(path, v.xml.clone(), XML).await.unwrap();
        (v, status, body)
    }))
    .buffer_unordered(4);
    while let Some((v, status, body)) = answers.next().await {
        if status.is_server_error() || body.contains(r#"<Error Type="4""#) {
            dump(root, &v.xml, &body);
        }
        if status.is_server_error() {
            t.server_error.push(format!("{}: {status}", v.item));
        } else if body.contains(r#"<Error Type="4""#) {
            t.auth.push(v.item.clone());
        } else if body.contains("<Warning ") && body.contains("not used by this service") {
            t.warned += 1;
        } else if body.contains(r#"<Error Type="2""#) {
            t.refused += 1;
        }
        if status.is_success() {
            requests.push(v.xml);
            answered.push(Variant { item: v.item, xml: body });
        }
    }
    let Some(xsd) = dialects.answer_schema(operation).filter(|_| !answered.is_empty()) else { return };
    let folder = tempfile::tempdir_in(dir).unwrap();
    let verdicts = valid(&xsd, &answered, folder.path());
    for ((request, answer), ok) in requests.iter().zip(&answered).zip(verdicts) {
        if !ok {
            dump(root, request, &answer.xml);
            t.invalid_answer.push(format!("{}: {}", answer.item, answer.xml));
        }
    }
}

/// Keeps a failed request with its answer in `OFFICIAL_DUMP`, when set (numbered across roots
/// and passes).
fn dump(root: &str, request: &str, answer: &str) {
    static DUMPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if let Some(dump) = std::env::var_os("OFFICIAL_DUMP") {
        let n = DUMPED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let file = Path::new(&dump).join(format!("{root}-{n}.xml"));
        std::fs::write(&file, format!("{request}\n<!-- answer:\n{} -->\n", answer.replace("--", "- -"))).unwrap();
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Whether the decision table (`spec/official.xml`) ignores an item of `root` at `path`
/// (`/OTA_X/A/B/@c`), or the item lies inside one it ignores: what a request can carry and
/// still be processed.
fn ignored(root: &str, path: &str) -> bool {
    let steps: Vec<&str> = path.split('/').skip(2).collect();
    (1..=steps.len()).any(|k| {
        ota_messages::official::RULES
            .iter()
            .find(|r| r.matches(root, &steps[..k], false))
            .is_some_and(|r| matches!(r.decision, ota_messages::runtime::Decision::Ignored))
    })
}

/// Random fills of `base`, drawn and checked by xmllint on a blocking thread while the previous
/// batch is sent: `OFFICIAL_RANDOM` of them, or as many as `OFFICIAL_SECONDS` allows (then in
/// batches of 200, so that one xmllint run, which loads the schema, checks many). Every other
/// batch adds only items the decision table ignores, so that fills also reach the processing of
/// a request (most fills of a booking hold an item it does not support, and are refused).
async fn run_random(
    server: &TestServer,
    schema: &Arc<OfficialSchema>,
    (root, base): (&str, &str),
    dialects: Dialects,
    dir: &Path,
    t: &mut Tally,
) {
    let (randoms, seconds) = (env_number("OFFICIAL_RANDOM", 40) as usize, env_number("OFFICIAL_SECONDS", 0));
    let size = if seconds > 0 { 200 } else { 20 };
    let until = Instant::now() + Duration::from_secs(seconds);
    let draw = |rng: StdRng, drawn: usize| {
        let (schema, root, base, dir) = (schema.clone(), root.to_string(), base.to_string(), dir.to_path_buf());
        let only_ignored = drawn / size % 2 == 1;
        tokio::task::spawn_blocking(move || {
            let mut rng = rng;
            let allow = |path: &str| !only_ignored || ignored(&root, path);
            let batch = (0..size)
                .map(|_| random_fill_where(&schema, &base, &mut rng, &allow).unwrap_or_else(|e| panic!("{root}: {e}")))
                .collect();
            (check(&root, batch, dialects.first_ref() + 1_000_000 + drawn, &dir), rng)
        })
    };
    let mut drawn = 0;
    let mut next = Some(draw(StdRng::seed_from_u64(env_number("OFFICIAL_SEED", 29)), 0));
    while let Some(batch) = next.take() {
        let (checked, rng) = batch.await.unwrap();
        drawn += size;
        if drawn < randoms || Instant::now() < until {
            next = Some(draw(rng, drawn));
        }
        send_checked(server, root, checked, dialects, dir, t).await;
    }
}

async fn official_requests_are_never_malformed(b: Backend) {
    let server = TestServer::start(b).await;
    let schema = Arc::new(OfficialSchema::load(&official_dir()).unwrap());
    let dir = scratch();
    // `OFFICIAL_ROOTS=OTA_CancelRQ,OTA_ReadRQ` runs those roots only.
    let only = std::env::var("OFFICIAL_ROOTS").ok();
    let bases = bases(&server).await;
    let (mut shape, mut failures) = (0, Vec::new());
    // Every root with its sender on each dialect in turn.
    for dialects in [Dialects::DEMO, Dialects::DEMO.flipped()] {
        dialects.set(&server).await;
        for (root, base) in &bases {
            if only.as_ref().is_some_and(|only| !only.split(',').any(|r| r == root)) {
                continue;
            }
            let started = Instant::now();
            let mut t = Tally::default();
            let variants = one_extra(&schema, base).unwrap_or_else(|e| panic!("{root}: {e}"));
            let checked = check(root, variants, dialects.first_ref() + 1, dir.path());
            send_checked(&server, root, checked, dialects, dir.path(), &mut t).await;
            run_random(&server, &schema, (root, base), dialects, dir.path(), &mut t).await;
            println!(
                "{root} ({dialects:?}): {} official-valid requests sent ({} drawn invalid and not sent) in {:.0} s: {} answered with a shape error, {} with an authentication failure, {} 5xx, {} answers not valid in the sender's dialect; {} processed with a Warning naming what was not used, {} refused Type 2",
                t.sent,
                t.invalid,
                started.elapsed().as_secs_f64(),
                t.shape.len(),
                t.auth.len(),
                t.server_error.len(),
                t.invalid_answer.len(),
                t.warned,
                t.refused
            );
            shape += t.shape.len();
            for (kind, list) in [
                ("shape error", &t.shape),
                ("authentication failure", &t.auth),
                ("5xx", &t.server_error),
                ("answer not valid in the sender's dialect", &t.invalid_answer),
            ] {
                failures.extend(list.iter().take(5).map(|w| format!("{root} ({dialects:?}): {kind}: {w}")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "official-valid requests answered as malformed ({shape} in all), unauthenticated, 5xx or with an answer not valid in the sender's dialect:\n{}",
        failures.join("\n")
    );
}

/// The POS of `xml` as a GDS-derived client sends it: the agency's own source first (a Type 22
/// RequestorID of another ID, `AgentSine`, `PseudoCityCode`, `BookingChannel`), a source without
/// a RequestorID, the agency's credentials (a Type 88 of its ID with a password: a second
/// complete pair, of an ID that is no requestor here), then the partner's two sources in the
/// other order (credentials first).
fn gds_pos(xml: &str) -> String {
    let (start, end) = (xml.find("<POS>").unwrap() + "<POS>".len(), xml.find("</POS>").unwrap());
    let sources: Vec<&str> = xml[start..end].split_inclusive("</Source>").filter(|s| !s.trim().is_empty()).collect();
    assert_eq!(sources.len(), 2, "a base's POS: {}", &xml[start..end]);
    let agency = r#"<Source AgentSine="A1B2C3" PseudoCityCode="X9Y" ISOCountry="ES"><RequestorID Type="22" ID="AGENCY-77" ID_Context="GDS"/><BookingChannel Type="1" Primary="true"/></Source><Source ISOCurrency="EUR"/><Source><RequestorID Type="88" ID="AGENCY-77" MessagePassword="x1"/></Source>"#;
    format!("{}{agency}{}{}{}", &xml[..start], sources[1].trim(), sources[0].trim(), &xml[end..])
}

/// A GDS-derived client's POS (its agency's own complete pair of sources, a bare source, the
/// partner's credentials before its requestor source) authenticates the partner on every root,
/// and a success names each source it did not use in a Warning; a POS whose credentials name
/// no single requestor still fails authentication.
async fn a_gds_pos_authenticates_by_its_credentials(b: Backend) {
    let server = TestServer::start(b).await;
    let dir = tempfile::tempdir().unwrap();
    let (mut roots, mut succeeded) = (0, 0);
    for (root, base) in bases(&server).await {
        let xml = gds_pos(&placeholders(&base, &format!("GDS-{root}"), 0));
        let variant = Variant { item: "POS".into(), xml };
        assert_eq!(
            valid(&official_xsd(&root), std::slice::from_ref(&variant), dir.path()),
            [true],
            "{root}: {}",
            variant.xml
        );
        let path = ota_messages::OPERATIONS.iter().find(|o| o.request_root == root).unwrap().path;
        let (status, _, body) = server.client().send_raw(path, variant.xml.clone(), XML).await.unwrap();
        assert_eq!(status, 200, "{root}: {body}");
        assert!(!body.contains(r#"<Error Type="4""#), "{root}: the partner's credentials were not found: {body}");
        if !body.contains("<Errors>") {
            succeeded += 1;
            for n in [1, 2, 3] {
                let said = format!("/{root}/POS/Source[{n}] is not used by this service");
                assert!(body.contains(&said), "{root}: no Warning names Source[{n}]: {body}");
            }
            assert!(!body.contains("POS/Source[4]") && !body.contains("POS/Source[5]"), "{root}: {body}");
        }
        roots += 1;
    }
    assert!(roots >= 12 && succeeded == roots, "{succeeded} of {roots} roots succeeded");
    // Credentials naming two requestor sources (two contexts: which one?), none, two
    // credentials of the partner's ID, or two complete pairs of requestors here (which one?).
    let base = crate::ota_partner::descriptive_info();
    let (id, context, _) = OTA_DEMO;
    for (what, extra) in [
        (
            "a second requestor source of the same ID",
            format!(r#"<Source><RequestorID Type="22" ID="{id}" ID_Context="OTHER"/></Source>"#),
        ),
        ("no requestor source of the credentials' ID", String::new()),
        (
            "a second credentials source of the same ID",
            format!(r#"<Source><RequestorID Type="88" ID="{id}" MessagePassword="other"/></Source>"#),
        ),
        (
            "a second complete pair, of another requestor here",
            format!(
                r#"<Source><RequestorID Type="22" ID="{}" ID_Context="{}"/></Source><Source><RequestorID Type="88" ID="{0}" MessagePassword="{}"/></Source>"#,
                crate::support::DEMO.0,
                crate::support::DEMO.1,
                crate::support::DEMO.2
            ),
        ),
    ] {
        let xml = if extra.is_empty() {
            base.replace(
                &format!(r#"Type="22" ID="{id}" ID_Context="{context}""#),
                r#"Type="22" ID="AGENCY-77" ID_Context="GDS""#,
            )
        } else {
            base.replace("<POS>", &format!("<POS>{extra}"))
        };
        let (_, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
        assert!(body.contains(r#"<Error Type="4""#), "{what}: {body}");
    }
}

mod sqlite {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn official_requests_are_never_malformed() {
        super::official_requests_are_never_malformed(crate::support::Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_gds_pos_authenticates_by_its_credentials() {
        super::a_gds_pos_authenticates_by_its_credentials(crate::support::Backend::Sqlite).await
    }
}
