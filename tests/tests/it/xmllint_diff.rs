//! Differential check against libxml2: mutated samples (elements dropped, duplicated and
//! swapped; attributes dropped; values retyped) are judged by `xmllint --schema` and by
//! `from_xml`. Every disagreement must be one of the documented ones (spec/README.md, "Where the
//! decoder is stricter than xmllint" and "Where the decoder is more lenient than xmllint");
//! anything else fails the test with the document.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use ota_messages::AnyMessage;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Mutations per sample.
const PER_SAMPLE: usize = 12;

/// Values a retyped attribute or text takes.
const RETYPED: &[&str] = &[
    "abc",
    "-1",
    "0",
    "2026-02-30",
    "2026-07-17",
    " 10 ",
    "",
    "1.5",
    "XYZ",
    "true",
    "2026-07-17T09:30:00",
    "99999999999999999999",
    "2026-07-17T24:00:00",
    "10000-01-01T00:00:00",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

struct Mutant {
    module: String,
    what: String,
    xml: String,
    /// The sample it was made from.
    original: String,
}

fn mutate(xml: &str, rng: &mut StdRng) -> Option<(String, String)> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let elements: Vec<_> = doc.descendants().filter(|n| n.is_element() && n.parent_element().is_some()).collect();
    let with_attrs: Vec<_> = doc.descendants().filter(|n| n.is_element() && n.attributes().len() > 0).collect();
    let leaves: Vec<_> =
        elements.iter().copied().filter(|n| n.children().all(|c| !c.is_element()) && n.text().is_some()).collect();
    let splice =
        |range: std::ops::Range<usize>, with: &str| format!("{}{}{}", &xml[..range.start], with, &xml[range.end..]);
    match rng.random_range(0..6) {
        0 if !elements.is_empty() => {
            let e = elements[rng.random_range(0..elements.len())];
            Some((format!("drop <{}>", e.tag_name().name()), splice(e.range(), "")))
        }
        1 if !elements.is_empty() => {
            let e = elements[rng.random_range(0..elements.len())];
            let copy = &xml[e.range()];
            Some((format!("duplicate <{}>", e.tag_name().name()), splice(e.range(), &format!("{copy}{copy}"))))
        }
        2 => {
            let pairs: Vec<_> = elements.iter().filter_map(|e| e.next_sibling_element().map(|n| (*e, n))).collect();
            if pairs.is_empty() {
                return None;
            }
            let (a, b) = pairs[rng.random_range(0..pairs.len())];
            let (ta, tb) = (&xml[a.range()], &xml[b.range()]);
            let between = &xml[a.range().end..b.range().start];
            Some((
                format!("swap <{}> and <{}>", a.tag_name().name(), b.tag_name().name()),
                splice(a.range().start..b.range().end, &format!("{tb}{between}{ta}")),
            ))
        }
        3 if !with_attrs.is_empty() => {
            let e = with_attrs[rng.random_range(0..with_attrs.len())];
            let attrs: Vec<_> = e.attributes().collect();
            let a = &attrs[rng.random_range(0..attrs.len())];
            Some((format!("drop @{} of <{}>", a.name(), e.tag_name().name()), splice(a.range(), "")))
        }
        4 if !with_attrs.is_empty() => {
            let e = with_attrs[rng.random_range(0..with_attrs.len())];
            let attrs: Vec<_> = e.attributes().collect();
            let a = &attrs[rng.random_range(0..attrs.len())];
            let v = RETYPED[rng.random_range(0..RETYPED.len())];
            Some((format!("@{} of <{}> = {v:?}", a.name(), e.tag_name().name()), splice(a.range_value(), v)))
        }
        5 if !leaves.is_empty() => {
            let e = leaves[rng.random_range(0..leaves.len())];
            let t = e.children().find(|c| c.is_text())?;
            let v = RETYPED[rng.random_range(0..RETYPED.len())];
            Some((format!("text of <{}> = {v:?}", e.tag_name().name()), splice(t.range(), v)))
        }
        _ => None,
    }
}

/// The documented stricter cases: values with surrounding whitespace (XSD collapses it for
/// typed values; the decoder asks for the bare value) and integers beyond 64 bits.
fn documented_stricter(what: &str) -> bool {
    what.ends_with("\" 10 \"") || what.ends_with("\"99999999999999999999\"")
}

/// The documented more lenient case: two sibling elements swapped, which XML Schema refuses as
/// out of order and the decoder takes as the very same message.
fn documented_order(m: &Mutant, decoded: &Result<AnyMessage, ota_messages::runtime::DecodeError>) -> bool {
    m.what.contains(": swap <") && matches!((decoded, AnyMessage::from_xml(&m.original)), (Ok(a), Ok(b)) if *a == b)
}

/// Runs `xmllint --schema spec/<module>.xsd` over documents; which ones validate.
fn xmllint_verdicts(module: &str, docs: &[String], tag: &str) -> Vec<bool> {
    let dir = std::env::temp_dir().join(format!("ota-xmllint-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<PathBuf> = docs
        .iter()
        .enumerate()
        .map(|(i, xml)| {
            let f = dir.join(format!("d{i}.xml"));
            std::fs::write(&f, xml).unwrap();
            f
        })
        .collect();
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(root().join(format!("spec/{module}.xsd")))
        .args(&files)
        .output()
        .unwrap_or_else(|e| panic!("xmllint is required (apt-get install libxml2-utils): {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let verdicts = files.iter().map(|f| stderr.lines().any(|l| l == format!("{} validates", f.display()))).collect();
    let _ = std::fs::remove_dir_all(&dir);
    verdicts
}

/// Dates and date-times at the edges of what XML Schema and the decoder read: the spec's types
/// are restricted with patterns, so both give the same verdict on each (24:00:00, five-digit
/// and negative years, year 0000, long fractions, zones, impossible days).
#[test]
fn date_time_edges_get_the_same_verdict() {
    let sample = std::fs::read_to_string(root().join("spec/samples/tour_activity_book.xml")).unwrap();
    let date_times = [
        "2026-07-17T24:00:00",
        "2026-07-17T23:59:59",
        "10000-01-01T00:00:00",
        "-2026-07-17T09:30:00",
        "0000-01-01T00:00:00",
        "0001-01-01T00:00:00",
        "2026-07-17T09:30:00.1234567890",
        "2026-07-17T09:30:00.123456789",
        "2026-07-17T09:30:00+14:00",
        "2026-07-17T09:30:00+14:30",
        "2026-07-17T09:30:00-05:30",
        "2026-07-17T09:30:00Z",
        "2026-02-29T09:30:00",
        "2024-02-29T09:30:00",
        "2026-07-17T09:30",
        "2026-07-17T09:60:00",
        "2026-07-17T09:30:60",
        "2026-07-17T09:30:00.",
    ];
    let mut docs = Vec::new();
    let mut what = Vec::new();
    for v in date_times {
        // TimeStamp (a date-time with optional zone and fraction) and Schedule/@Start (a local one).
        docs.push(sample.replacen("TimeStamp=\"2025-06-01T16:45:30Z\"", &format!("TimeStamp=\"{v}\""), 1));
        what.push(format!("@TimeStamp = {v:?}"));
        docs.push(sample.replacen("Start=\"2025-07-03T00:00:00\"", &format!("Start=\"{v}\""), 1));
        what.push(format!("Schedule/@Start = {v:?}"));
    }
    assert!(docs.iter().all(|d| *d != sample), "each edit must change the sample");
    let lint = xmllint_verdicts("tour_activity_book", &docs, "dates");
    let mut disagree = Vec::new();
    for ((xml, lint), what) in docs.iter().zip(lint).zip(&what) {
        let ours = AnyMessage::from_xml(xml);
        if ours.is_ok() != lint {
            disagree.push(format!(
                "{what}: xmllint {}, decoder {:?}",
                if lint { "accepts" } else { "rejects" },
                ours.err().map(|e| e.to_string())
            ));
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
}

/// No attribute or element of the spec uses `xs:date` or `xs:dateTime` bare (which would take
/// 24:00:00 and five-digit years that the decoder refuses): only the restricted `Date`,
/// `LocalDateTime` and `DateTime` of `common.xsd`.
#[test]
fn no_bare_date_or_date_time_in_the_spec() {
    let mut bare = Vec::new();
    for entry in std::fs::read_dir(root().join("spec")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "xsd") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                if line.contains(r#"type="xs:date""#) || line.contains(r#"type="xs:dateTime""#) {
                    bare.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(bare.is_empty(), "use Date, LocalDateTime or DateTime of common.xsd:\n{}", bare.join("\n"));
}

#[test]
fn mutated_samples_get_the_same_verdict_from_xmllint_and_the_decoder() {
    let samples_dir = root().join("spec/samples");
    let mut samples: Vec<PathBuf> = std::fs::read_dir(&samples_dir).unwrap().map(|e| e.unwrap().path()).collect();
    samples.sort();
    let mut rng = StdRng::seed_from_u64(200_305);
    let mut mutants = Vec::new();
    for path in &samples {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = name.split('.').next().unwrap().to_string();
        let xml = std::fs::read_to_string(path).unwrap();
        let mut made = 0;
        for _ in 0..PER_SAMPLE * 4 {
            if made == PER_SAMPLE {
                break;
            }
            if let Some((what, m)) = mutate(&xml, &mut rng) {
                mutants.push(Mutant {
                    module: module.clone(),
                    what: format!("{name}: {what}"),
                    xml: m,
                    original: xml.clone(),
                });
                made += 1;
            }
        }
    }
    assert!(mutants.len() >= 300, "{}", mutants.len());

    // xmllint, one run per schema over all that schema's mutants.
    let mut lint_ok = vec![false; mutants.len()];
    let mut modules: Vec<&str> = mutants.iter().map(|m| m.module.as_str()).collect();
    modules.sort();
    modules.dedup();
    for module in modules {
        let (indexes, docs): (Vec<usize>, Vec<String>) =
            mutants.iter().enumerate().filter(|(_, m)| m.module == module).map(|(i, m)| (i, m.xml.clone())).unzip();
        for (i, ok) in indexes.into_iter().zip(xmllint_verdicts(module, &docs, "diff")) {
            lint_ok[i] = ok;
        }
    }

    let mut unexplained = Vec::new();
    let (mut agree, mut documented_count, mut order_count) = (0, 0, 0);
    for (m, lint) in mutants.iter().zip(lint_ok) {
        let ours = AnyMessage::from_xml(&m.xml);
        if ours.is_ok() == lint {
            agree += 1;
        } else if !lint && documented_order(m, &ours) {
            order_count += 1;
        } else if lint && documented_stricter(&m.what) {
            documented_count += 1;
        } else {
            unexplained.push(format!(
                "{} — xmllint {}, decoder {:?}",
                m.what,
                if lint { "accepts" } else { "rejects" },
                ours.err().map(|e| e.to_string())
            ));
        }
    }
    eprintln!(
        "{} mutants: {agree} same verdict, {documented_count} documented stricter, {order_count} documented order leniency",
        mutants.len()
    );
    assert!(order_count > 0, "the mutants exercise the order leniency");
    assert!(unexplained.is_empty(), "{} unexplained disagreements:\n{}", unexplained.len(), unexplained.join("\n"));
}
