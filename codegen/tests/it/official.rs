//! The official schemas' instances: for each base request of `conformance/official-requests/`
//! (its placeholders filled with sample values), every one-extra variant and 30 random fills
//! are valid under the official 2016B schema of its root, according to `xmllint` (one run per
//! root, all its files at once).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ota_codegen::official::OfficialSchema;
use ota_codegen::official::instances::{
    Variant, fill_dates, minimal_document, one_extra, random_fill, random_fill_where, today_utc,
};
use rand::SeedableRng;
use rand::rngs::StdRng;

const RANDOM: u64 = 30;

fn conformance() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

fn schema() -> &'static OfficialSchema {
    static SCHEMA: OnceLock<OfficialSchema> = OnceLock::new();
    SCHEMA
        .get_or_init(|| OfficialSchema::load(&conformance().join("opentravel-2016b")).unwrap_or_else(|e| panic!("{e}")))
}

/// A base with its placeholders filled: dates from today, the others with the sample values
/// of `conformance/official-requests/README.md`.
fn filled(template: &str) -> String {
    fill_dates(template, today_utc())
        .replace("{{CLIENT_REF}}", "OTA-OFFICIAL-1")
        .replace("{{INTERNAL_REF}}", "4471200")
        .replace("{{LAST_MODIFY}}", "2030-01-01T10:00:00")
}

fn bases() -> Vec<(String, String)> {
    let dir = conformance().join("official-requests");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "xml") {
            let root = path.file_stem().unwrap().to_string_lossy().to_string();
            out.push((root, std::fs::read_to_string(&path).unwrap()));
        }
    }
    out.sort();
    out
}

/// Validates files with xmllint against a schema in one run: the files that fail, with their
/// messages.
fn invalid(schema: &Path, files: &[PathBuf]) -> BTreeMap<PathBuf, Vec<String>> {
    let mut failed: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for chunk in files.chunks(500) {
        let out = Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(schema)
            .args(chunk)
            .output()
            .expect("xmllint (apt-get install libxml2-utils)");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut validated = 0;
        for line in stderr.lines() {
            if line.ends_with(" validates") {
                validated += 1;
                continue;
            }
            if let Some(file) = chunk.iter().find(|f| line.starts_with(&*f.to_string_lossy())) {
                failed.entry(file.clone()).or_default().push(line.to_string());
            } else if !line.trim().is_empty() {
                failed.entry(PathBuf::from("(xmllint)")).or_default().push(line.to_string());
            }
        }
        assert!(validated + failed.len() >= chunk.len() || !failed.is_empty(), "xmllint said: {stderr}");
    }
    failed
}

#[test]
fn variants_of_the_base_requests_are_valid_under_2016b() {
    let dir = tempfile::tempdir().unwrap();
    let bases = bases();
    assert_eq!(bases.len(), 13, "{:?}", bases.iter().map(|b| &b.0).collect::<Vec<_>>());
    let mut problems = Vec::new();
    let mut total = 0;
    for (root, template) in &bases {
        let base = filled(template);
        assert!(!base.contains("{{"), "{root}: a placeholder left: {base}");
        let mut variants: Vec<Variant> = vec![Variant { item: "base".to_string(), xml: base.clone() }];
        let extra = one_extra(schema(), &base).unwrap_or_else(|e| panic!("{root}: {e}"));
        let extra_count = extra.len();
        variants.extend(extra);
        for seed in 0..RANDOM {
            let mut rng = StdRng::seed_from_u64(seed);
            variants.push(random_fill(schema(), &base, &mut rng).unwrap_or_else(|e| panic!("{root}: {e}")));
            let pos_only = |path: &str| path.contains("/POS/");
            variants.push(
                random_fill_where(schema(), &base, &mut rng, &pos_only).unwrap_or_else(|e| panic!("{root}: {e}")),
            );
        }
        let folder = dir.path().join(root);
        std::fs::create_dir_all(&folder).unwrap();
        let mut files = Vec::new();
        for (i, v) in variants.iter().enumerate() {
            let file = folder.join(format!("{i:05}.xml"));
            std::fs::write(&file, &v.xml).unwrap();
            files.push(file);
        }
        let xsd = conformance().join(format!("opentravel-2016b/{root}.xsd"));
        let failed = invalid(&xsd, &files);
        println!(
            "{root}: {extra_count} one-extra variants + {RANDOM} random fills: {} of {} valid (xmllint)",
            files.len() - failed.len(),
            files.len()
        );
        total += files.len();
        for (file, messages) in failed {
            let item = files.iter().position(|f| *f == file).map_or("?", |i| variants[i].item.as_str());
            problems.push(format!("{root} {item}:\n  {}", messages.join("\n  ")));
        }
    }
    println!("{total} documents checked");
    assert!(problems.is_empty(), "{} invalid:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn random_fill_is_deterministic_for_a_seed() {
    let (_, template) = bases().into_iter().find(|(r, _)| r == "OTA_HotelResRQ").unwrap();
    let base = filled(&template);
    let one = random_fill(schema(), &base, &mut StdRng::seed_from_u64(7)).unwrap();
    let again = random_fill(schema(), &base, &mut StdRng::seed_from_u64(7)).unwrap();
    let other = random_fill(schema(), &base, &mut StdRng::seed_from_u64(8)).unwrap();
    assert_eq!(one, again);
    assert_ne!(one, other);
    assert_eq!(one_extra(schema(), &base).unwrap(), one_extra(schema(), &base).unwrap());
}

#[test]
fn random_fill_where_adds_only_what_it_allows() {
    let (_, template) = bases().into_iter().find(|(r, _)| r == "OTA_HotelResRQ").unwrap();
    let base = filled(&template);
    let all = random_fill_where(schema(), &base, &mut StdRng::seed_from_u64(7), &|_| true).unwrap();
    assert_eq!(all, random_fill(schema(), &base, &mut StdRng::seed_from_u64(7)).unwrap());
    let unchanged = random_fill_where(schema(), &base, &mut StdRng::seed_from_u64(7), &|_| false).unwrap();
    let asked = std::cell::RefCell::new(Vec::new());
    let in_pos = |path: &str| {
        asked.borrow_mut().push(path.to_string());
        path.starts_with("/OTA_HotelResRQ/POS/")
    };
    let filled_pos = random_fill_where(schema(), &base, &mut StdRng::seed_from_u64(7), &in_pos).unwrap();
    let outside_pos = |xml: &str| {
        let (start, end) = (xml.find("<POS>").unwrap(), xml.find("</POS>").unwrap());
        format!("{}{}", &xml[..start], &xml[end..])
    };
    assert_ne!(filled_pos.xml, unchanged.xml, "nothing was added to the POS");
    assert_eq!(outside_pos(&filled_pos.xml), outside_pos(&unchanged.xml));
    let asked = asked.into_inner();
    assert!(asked.iter().any(|p| p.contains("/HotelReservations/")), "{asked:?}");
    assert!(asked.iter().all(|p| p.starts_with("/OTA_HotelResRQ/") && !p.contains('[')), "{asked:?}");
}

#[test]
fn one_extra_items() {
    let (_, template) = bases().into_iter().find(|(r, _)| r == "OTA_HotelResRQ").unwrap();
    let variants = one_extra(schema(), &filled(&template)).unwrap();
    let items: Vec<&str> = variants.iter().map(|v| v.item.as_str()).collect();
    for expected in [
        "/OTA_HotelResRQ/@TargetName",
        "/OTA_HotelResRQ/HotelReservations/HotelReservation/@RoomStayReservation",
        "/OTA_HotelResRQ/POS/Source",
        "/OTA_HotelResRQ/HotelReservations/HotelReservation/ResGuests/ResGuest[1]/Profiles/ProfileInfo/Profile/CompanyInfo",
    ] {
        assert!(items.contains(&expected), "{expected} not in {items:#?}");
    }
    // POS/Source: two in the base, up to 10: one more is a variant; the base's attributes are
    // never variants.
    assert!(!items.contains(&"/OTA_HotelResRQ/@Version"));
    let unique: std::collections::HashSet<&str> = items.iter().copied().collect();
    assert_eq!(unique.len(), items.len(), "one variant per item");
}

/// Beyond the served requests: every root of the folder (requests and responses, air, rail,
/// vehicle types included), its minimal document, the one-extra variants of that and 10 random
/// fills, are valid under its schema.
#[test]
fn every_root_of_the_folder_has_valid_instances() {
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let mut total = 0;
    let mut roots = 0;
    for entry in std::fs::read_dir(conformance().join("opentravel-2016b")).unwrap() {
        let path = entry.unwrap().path();
        let root = path.file_stem().unwrap().to_string_lossy().to_string();
        let Some(minimal) = minimal_document(schema(), &root) else { continue };
        roots += 1;
        let mut variants = vec![Variant { item: "minimal".to_string(), xml: minimal.clone() }];
        variants.extend(one_extra(schema(), &minimal).unwrap());
        for seed in 0..10 {
            variants.push(random_fill(schema(), &minimal, &mut StdRng::seed_from_u64(seed)).unwrap());
        }
        let folder = dir.path().join(&root);
        std::fs::create_dir_all(&folder).unwrap();
        let files: Vec<PathBuf> = variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let file = folder.join(format!("{i:05}.xml"));
                std::fs::write(&file, &v.xml).unwrap();
                file
            })
            .collect();
        total += files.len();
        for (file, messages) in invalid(&path, &files) {
            let item = files.iter().position(|f| *f == file).map_or("?", |i| variants[i].item.as_str());
            problems.push(format!("{root} {item}:\n  {}", messages.join("\n  ")));
        }
    }
    println!("{roots} roots, {total} documents checked, {} invalid", problems.len());
    assert!(roots >= 29, "{roots}");
    assert!(problems.is_empty(), "{} invalid:\n{}", problems.len(), problems.join("\n"));
}
