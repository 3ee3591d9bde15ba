//! The answers in the `ota2016b` dialect against the official OpenTravel 2016B schemas
//! (`conformance/opentravel-2016b/`, validated with `xmllint`): every sample answer of
//! `spec/samples/` with an official schema is decoded, written in `ota2016b`, and validated.
//!
//! What is not valid yet is listed in [`NOT_YET`], form by form, each with the part of issue 19
//! that removes it. The list may only shrink: an error it does not list fails the test (a
//! regression, or a new form to decide on), and so does a listed form that no sample shows any
//! more (it was fixed: take it off the list).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ota_messages::{AnyMessage, Dialect};

/// Forms of the `ota2016b` answers the official schemas do not take yet: (root, a fragment of
/// xmllint's message, what is left to do).
const NOT_YET: &[(&str, &str, &str)] = &[
    (
        "OTA_ResRetrieveRS",
        "Element 'Service': The attribute 'Type' is required but missing",
        "the samples' services have no Type/ID (the gateway gives them: ota_partner.rs)",
    ),
    (
        "OTA_ResRetrieveRS",
        "Element 'Service': The attribute 'ID' is required but missing",
        "the samples' services have no Type/ID (the gateway gives them: ota_partner.rs)",
    ),
    ("OTA_ResRetrieveRS", "attribute 'RoomTypeCode': [facet 'maxLength']", "room codes with a contract suffix"),
    (
        "OTA_HotelResModifyRS",
        "Element 'Service': The attribute 'Type' is required but missing",
        "the samples' services have no Type/ID (the gateway gives them: ota_partner.rs)",
    ),
    (
        "OTA_HotelResModifyRS",
        "Element 'Service': The attribute 'ID' is required but missing",
        "the samples' services have no Type/ID (the gateway gives them: ota_partner.rs)",
    ),
    ("OTA_HotelResModifyRS", "attribute 'RoomTypeCode': [facet 'maxLength']", "room codes with a contract suffix"),
];

fn root_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// xmllint's validity errors of `xml` under `schema`, each without its file and line and with
/// the OTA namespace left out of element names.
fn official_errors(schema: &Path, xml: &str) -> Vec<String> {
    let child = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(schema)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let output = match child {
        Ok(mut child) => {
            child.stdin.take().unwrap().write_all(xml.as_bytes()).unwrap();
            child.wait_with_output().unwrap()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            panic!("xmllint is not installed: these tests need it, install it with `apt-get install libxml2-utils`")
        }
        Err(e) => panic!("cannot run xmllint: {e}"),
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<String> = stderr
        .lines()
        .filter_map(|l| {
            l.split_once("Schemas validity error : ")
                .map(|(_, e)| e.replace("{http://www.opentravel.org/OTA/2003/05}", ""))
        })
        .collect();
    assert_eq!(output.status.success(), errors.is_empty(), "xmllint: {stderr}");
    errors
}

#[test]
fn ota2016b_answers_are_valid_under_the_official_schemas_but_for_the_listed_forms() {
    let schemas = root_dir().join("conformance/opentravel-2016b");
    let mut samples: Vec<PathBuf> = std::fs::read_dir(root_dir().join("spec/samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(".rs"))
        .collect();
    samples.sort();
    let mut checked = 0;
    let mut valid = 0;
    let mut unlisted = Vec::new();
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    for path in &samples {
        let message = AnyMessage::from_xml(&std::fs::read_to_string(path).unwrap()).unwrap();
        let root = message.root_name();
        let schema = schemas.join(format!("{root}.xsd"));
        if !schema.exists() {
            assert_eq!(root, "OTA_ProductDescriptiveInfoRS", "only the activity static content has no official schema");
            continue;
        }
        let errors = official_errors(&schema, &message.to_xml_in(Dialect::Ota2016b).unwrap());
        checked += 1;
        valid += usize::from(errors.is_empty());
        for e in errors {
            match NOT_YET.iter().position(|(r, fragment, _)| *r == root && e.contains(fragment)) {
                Some(i) => {
                    seen.insert(i);
                }
                None => unlisted.push(format!("{}: {e}", path.file_name().unwrap().to_string_lossy())),
            }
        }
    }
    println!("{valid} of {checked} sample answers are valid under OpenTravel 2016B in the ota2016b dialect");
    assert!(checked >= 25, "{checked}");
    assert!(
        unlisted.is_empty(),
        "errors under the official schemas that NOT_YET does not list:\n{}",
        unlisted.join("\n")
    );
    let fixed: Vec<String> = NOT_YET
        .iter()
        .enumerate()
        .filter(|(i, _)| !seen.contains(i))
        .map(|(_, (r, f, why))| format!("{r}: {f} ({why})"))
        .collect();
    assert!(
        fixed.is_empty(),
        "forms NOT_YET lists that no answer shows any more (take them off the list):\n{}",
        fixed.join("\n")
    );
}

/// The modules whose request samples (every sample of the module that is not an answer) are
/// valid under the official schema of their root as they are, and once decoded and written
/// again: the requests written against 2016B, and the supply side's messages (issue 21), which
/// are in their 2016B form.
const REQUESTS_VALID_UNDER_2016B: &[&str] = &[
    "booking_read",
    "cancel",
    "hotel_avail",
    "hotel_avail_notif",
    "hotel_inv_count_notif",
    "hotel_rate_amount_notif",
    "hotel_res_notif",
    "notif_report",
];

#[test]
fn request_samples_of_the_2016b_messages_are_valid_under_the_official_schemas() {
    let schemas = root_dir().join("conformance/opentravel-2016b");
    let mut checked = 0;
    let mut invalid = Vec::new();
    let mut samples: Vec<PathBuf> =
        std::fs::read_dir(root_dir().join("spec/samples")).unwrap().map(|e| e.unwrap().path()).collect();
    samples.sort();
    for path in &samples {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let (module, variant) = file.split_once('.').unwrap();
        if !REQUESTS_VALID_UNDER_2016B.contains(&module) || variant.starts_with("rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let message = AnyMessage::from_xml(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let schema = schemas.join(format!("{}.xsd", message.root_name()));
        for (what, xml) in [("as it is", text.clone()), ("written again", message.to_xml().unwrap())] {
            for e in official_errors(&schema, &xml) {
                invalid.push(format!("{file} ({what}): {e}"));
            }
        }
        checked += 1;
    }
    assert!(checked >= 25, "{checked}");
    assert!(invalid.is_empty(), "request samples not valid under OpenTravel 2016B:\n{}", invalid.join("\n"));
}

/// OpenTravel's own sample requests (`conformance/opentravel-samples/`, made by
/// `scripts/official-samples.py`: valid under 2016B, with a demo POS) decode with the generated
/// types, without a schema error: those of the roots the gateway served first and the supply
/// side's notifications (issue 21).
#[test]
fn official_sample_requests_decode() {
    let folder = root_dir().join("conformance/opentravel-samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut failed = Vec::new();
    let mut notifications = 0;
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        match ota_messages::AnyRequest::from_xml(&std::fs::read_to_string(path).unwrap()) {
            Ok(rq) => notifications += usize::from(rq.root_name().ends_with("NotifRQ")),
            Err(e) => failed.push(format!("{file}: {e}")),
        }
    }
    assert!(files.len() >= 47, "{}", files.len());
    assert_eq!(
        notifications, 9,
        "OpenTravel's notification samples: 6 availability, 2 inventory counts, 1 rate amounts"
    );
    assert!(failed.is_empty(), "official samples that do not decode:\n{}", failed.join("\n"));
}
