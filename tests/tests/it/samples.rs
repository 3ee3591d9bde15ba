//! Every sample message in `spec/samples/` decodes, re-encodes without losing or changing a
//! value, decodes again to the same value, matches its pretty-printed snapshot, and the
//! re-encoded output is still valid under the message's XML Schema (checked with `xmllint`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::ErrorKind;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use ota_messages::AnyMessage;
use roxmltree::{Document, Node};

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// The fewest sample files there are (six messages, four or five variants each).
const MIN_SAMPLES: usize = 28;

fn workspace_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A sample file: its path, its file name, and its module (the file name up to the first dot).
struct Sample {
    path: PathBuf,
    file: String,
    module: String,
}

impl Sample {
    /// The snapshot name: the file name without `.xml` (e.g. `tour_activity_book.pretty`).
    fn stem(&self) -> &str {
        self.file.strip_suffix(".xml").unwrap_or(&self.file)
    }

    fn schema(&self) -> PathBuf {
        workspace_root().join("spec").join(format!("{}.xsd", self.module))
    }

    fn read(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap_or_else(|e| panic!("cannot read {}: {e}", self.path.display()))
    }
}

/// Every `spec/samples/*.xml`, sorted by file name.
fn samples() -> Vec<Sample> {
    let dir = workspace_root().join("spec/samples");
    let mut out: Vec<Sample> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .map(|path| {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let module = file.split('.').next().unwrap().to_string();
            Sample { path, file, module }
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    assert!(
        out.len() >= MIN_SAMPLES,
        "expected at least {MIN_SAMPLES} samples in {}, found {}",
        dir.display(),
        out.len()
    );
    out
}

/// Runs `check` for every sample, catching panics, and fails once at the end listing every
/// sample that failed (so one run reports all of them, and writes every new snapshot).
fn for_each_sample(check: impl Fn(&Sample) -> Result<(), String>) {
    let mut failures = Vec::new();
    let all = samples();
    for sample in &all {
        match catch_unwind(AssertUnwindSafe(|| check(sample))) {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => failures.push(format!("{}: {msg}", sample.file)),
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panicked".to_string());
                failures.push(format!("{}: panicked: {msg}", sample.file));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} samples failed:\n\n{}", failures.len(), all.len(), failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// XML event comparison
// ---------------------------------------------------------------------------------------------

/// One XML event, with everything that carries no information normalised away.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    /// An element start: namespace URI, local name, attributes sorted by (namespace, name).
    Start { ns: Option<String>, name: String, attrs: Vec<(Option<String>, String, String)> },
    /// Character data (CDATA included), exactly as decoded.
    Text(String),
    /// An element end.
    End(String),
}

fn is_xml_space(s: &str) -> bool {
    s.chars().all(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
}

/// The events of a document: namespace prefixes and `xmlns` declarations, attribute order,
/// `xsi:schemaLocation`, comments and processing instructions are ignored, as is
/// whitespace-only text in elements that have element children. All other text is kept exactly.
fn events(xml: &str) -> Result<Vec<Event>, String> {
    let doc = Document::parse(xml).map_err(|e| format!("not well-formed: {e}"))?;
    let mut out = Vec::new();
    element_events(doc.root_element(), &mut out);
    Ok(out)
}

fn element_events(node: Node, out: &mut Vec<Event>) {
    let mut attrs: Vec<(Option<String>, String, String)> = node
        .attributes()
        .filter(|a| !(a.namespace() == Some(XSI) && a.name() == "schemaLocation"))
        .map(|a| (a.namespace().map(str::to_string), a.name().to_string(), a.value().to_string()))
        .collect();
    attrs.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let name = node.tag_name().name().to_string();
    out.push(Event::Start { ns: node.tag_name().namespace().map(str::to_string), name: name.clone(), attrs });
    let element_only = node.children().any(|c| c.is_element());
    let mut text = String::new();
    let flush = |text: &mut String, out: &mut Vec<Event>| {
        let insignificant = text.is_empty() || (element_only && is_xml_space(text));
        if !insignificant {
            out.push(Event::Text(text.clone()));
        }
        text.clear();
    };
    for child in node.children() {
        if child.is_text() {
            // Adjacent text (split only by a comment or PI) is one piece of text.
            text.push_str(child.text().unwrap_or(""));
        } else if child.is_element() {
            flush(&mut text, out);
            element_events(child, out);
        }
    }
    flush(&mut text, out);
    out.push(Event::End(name));
}

/// `Ok` when both documents have the same events; otherwise says where they first differ.
fn compare_xml(expected: &str, actual: &str) -> Result<(), String> {
    let a = events(expected).map_err(|e| format!("expected document: {e}"))?;
    let b = events(actual).map_err(|e| format!("actual document: {e}"))?;
    if a == b {
        return Ok(());
    }
    let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let context: Vec<String> = a[i.saturating_sub(3)..i].iter().map(|e| format!("    {e:?}")).collect();
    Err(format!(
        "XML differs at event {i}:\n  after:\n{}\n  expected: {:?}\n  actual:   {:?}",
        context.join("\n"),
        a.get(i),
        b.get(i)
    ))
}

// ---------------------------------------------------------------------------------------------
// xmllint
// ---------------------------------------------------------------------------------------------

/// Validates `file` against `schema` with `xmllint`; `Err` carries xmllint's message.
/// Panics (fails the test, never skips it) when xmllint is not installed.
fn xmllint(schema: &Path, file: &Path) -> Result<(), String> {
    let output = Command::new("xmllint").arg("--noout").arg("--schema").arg(schema).arg(file).output();
    match output {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            panic!("xmllint is not installed: these tests need it, install it with `apt-get install libxml2-utils`")
        }
        Err(e) => panic!("cannot run xmllint: {e}"),
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "xmllint rejects {} under {}:\n{}{}",
            file.display(),
            schema.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// A file in the temporary directory with a name no other test (or test run) uses; removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> TempFile {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("ota-tests-{}-{nanos}-{n}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// The sample tests
// ---------------------------------------------------------------------------------------------

fn decode(sample: &Sample) -> Result<AnyMessage, String> {
    AnyMessage::from_xml(&sample.read()).map_err(|e| format!("does not decode: {e}\n  ({e:?})"))
}

#[test]
fn there_are_samples_of_every_message_with_a_schema() {
    let all = samples();
    let mut modules: Vec<&str> = all.iter().map(|s| s.module.as_str()).collect();
    modules.dedup();
    assert!(modules.len() >= 7, "one module per operation: {modules:?}");
    for s in &all {
        assert!(s.schema().is_file(), "{}: no schema {}", s.file, s.schema().display());
    }
}

#[test]
fn samples_decode_and_round_trip_without_loss() {
    for_each_sample(|sample| {
        let input = sample.read();
        let first = decode(sample)?;

        let root = Document::parse(&input).map_err(|e| e.to_string())?.root_element().tag_name().name().to_string();
        if first.root_name() != root {
            return Err(format!("decoded as {} but the root is {root}", first.root_name()));
        }
        // The generated decoder and yaserde's binding (behind the same checks) agree.
        let by_yaserde = AnyMessage::from_xml_with_yaserde(&input).map_err(|e| format!("yaserde path fails: {e}"))?;
        if by_yaserde != first {
            return Err(format!("generated decoder and yaserde disagree:\n{first:#?}\n---\n{by_yaserde:#?}"));
        }

        let compact = first.to_xml().map_err(|e| format!("does not encode: {e}"))?;
        // The generated encoder writes exactly what yaserde writes, compact and pretty.
        for pretty in [false, true] {
            let mine = if pretty { first.to_xml_pretty() } else { Ok(compact.clone()) };
            let theirs = first.to_xml_with_yaserde(pretty);
            if mine != theirs {
                return Err(format!(
                    "generated encoder and yaserde differ (pretty: {pretty}):\n{mine:?}\n---\n{theirs:?}"
                ));
            }
        }
        let again =
            AnyMessage::from_xml(&compact).map_err(|e| format!("re-encoded output does not decode: {e}\n{compact}"))?;
        if again != first {
            return Err(format!("decoding the re-encoded output gives another value:\n{first:#?}\n---\n{again:#?}"));
        }
        compare_xml(&input, &compact).map_err(|e| format!("compact output differs from the input: {e}\n{compact}"))?;

        let pretty = first.to_xml_pretty().map_err(|e| format!("does not encode pretty: {e}"))?;
        let again =
            AnyMessage::from_xml(&pretty).map_err(|e| format!("pretty output does not decode: {e}\n{pretty}"))?;
        if again != first {
            return Err(format!("decoding the pretty output gives another value:\n{first:#?}\n---\n{again:#?}"));
        }
        compare_xml(&input, &pretty).map_err(|e| format!("pretty output differs from the input: {e}\n{pretty}"))?;
        Ok(())
    });
}

#[test]
fn samples_match_their_pretty_snapshots() {
    for_each_sample(|sample| {
        let pretty = decode(sample)?.to_xml_pretty().map_err(|e| e.to_string())?;
        insta::with_settings!({
            snapshot_path => "snapshots/samples",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("to_xml_pretty() of spec/samples/{}", sample.file),
        }, {
            insta::assert_snapshot!(sample.stem(), pretty);
        });
        Ok(())
    });
}

#[test]
fn re_encoded_samples_are_valid_under_their_schema() {
    for_each_sample(|sample| {
        let compact = decode(sample)?.to_xml().map_err(|e| e.to_string())?;
        let file = TempFile::new(&sample.file, &compact);
        xmllint(&sample.schema(), &file.0).map_err(|e| format!("{e}\n{compact}"))
    });
}

#[test]
fn samples_are_valid_under_their_schema() {
    for_each_sample(|sample| xmllint(&sample.schema(), &sample.path));
}

// ---------------------------------------------------------------------------------------------
// The comparer notices what it must and ignores what it may
// ---------------------------------------------------------------------------------------------

const DOC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<R xmlns="urn:a" A="1" B="two">
  <C D="x">text &amp; more</C>
  <E/>
</R>"#;

#[test]
fn comparer_accepts_an_identical_document() {
    assert_eq!(compare_xml(DOC, DOC), Ok(()));
}

#[test]
fn comparer_ignores_prefixes_attribute_order_whitespace_comments_and_schema_location() {
    let same = r#"<p:R xmlns:p="urn:a" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
        xsi:schemaLocation="urn:a a.xsd" B="two" A="1"><!-- comment --><?pi data?>
      <p:C D="x"><![CDATA[text & ]]>more</p:C><p:E></p:E></p:R>"#;
    assert_eq!(compare_xml(DOC, same), Ok(()));
}

#[test]
fn comparer_notices_a_dropped_attribute() {
    let dropped = DOC.replace(r#" B="two""#, "");
    assert!(compare_xml(DOC, &dropped).is_err());
}

#[test]
fn comparer_notices_a_changed_attribute() {
    let changed = DOC.replace(r#"D="x""#, r#"D="y""#);
    assert!(compare_xml(DOC, &changed).is_err());
}

#[test]
fn comparer_notices_changed_text() {
    let changed = DOC.replace("text &amp; more", "text &amp; mor");
    assert!(compare_xml(DOC, &changed).is_err());
    // Whitespace inside a text-only element is significant.
    let spaced = DOC.replace("text &amp; more", " text &amp; more");
    assert!(compare_xml(DOC, &spaced).is_err());
    // Text where the input had none.
    let filled = DOC.replace("<E/>", "<E>x</E>");
    assert!(compare_xml(DOC, &filled).is_err());
}

#[test]
fn comparer_notices_a_dropped_element() {
    let dropped = DOC.replace("<E/>", "");
    assert!(compare_xml(DOC, &dropped).is_err());
    let dropped = DOC.replace(r#"<C D="x">text &amp; more</C>"#, "");
    assert!(compare_xml(DOC, &dropped).is_err());
}

#[test]
fn comparer_notices_a_namespace_change() {
    let other = DOC.replace("urn:a", "urn:b");
    assert!(compare_xml(DOC, &other).is_err());
}
