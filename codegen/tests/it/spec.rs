//! The real spec: the checked-in generated code is fresh, output is deterministic, the model is
//! snapshotted, and a documentation edit changes exactly one generated file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use ota_codegen::write::{Mode, write_files};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn sources() -> Vec<(String, String)> {
    ota_codegen::read_spec_dir(&root().join("spec")).expect("read spec/")
}

/// Runs the generator on `sources` as `cargo xtask regen` does on `spec/`: with its
/// `official.xml` and the official schemas it names.
fn generate(sources: &[(String, String)]) -> Result<ota_codegen::Generated, ota_codegen::diagnostics::SpecErrors> {
    let dir = root().join("spec");
    let text = std::fs::read_to_string(dir.join(ota_codegen::OFFICIAL_RULES)).expect("read spec/official.xml");
    ota_codegen::generate_with(sources, Some(ota_codegen::OfficialRules { text, dir }))
}

#[test]
fn checked_in_code_is_what_the_spec_generates() {
    let generated = generate(&sources()).unwrap_or_else(|e| panic!("{e}"));
    let report = write_files(&root().join("generated/src/messages"), &generated.files, Mode::Check).expect("check");
    assert!(report.is_clean(), "generated code is stale, run `cargo xtask regen`: {report:?}");
}

#[test]
fn generation_is_deterministic() {
    let s = sources();
    let first = generate(&s).unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..3 {
        let again = generate(&s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.files, again.files);
        assert_eq!(first.model.print(), again.model.print());
    }
    // The order in which files are given does not matter either.
    let mut reversed = s.clone();
    reversed.reverse();
    let other = generate(&reversed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.files, other.files);
}

#[test]
fn model_snapshot() {
    let generated = generate(&sources()).unwrap_or_else(|e| panic!("{e}"));
    insta::assert_snapshot!("spec_model", generated.model.print());
}

#[test]
fn every_generated_file_has_the_header() {
    let generated = generate(&sources()).unwrap_or_else(|e| panic!("{e}"));
    assert!(generated.files.len() >= 9, "{:?}", generated.files.keys());
    for (name, code) in &generated.files {
        assert!(code.starts_with(ota_codegen::render::HEADER), "{name}");
    }
}

#[test]
fn a_documentation_edit_changes_exactly_one_file() {
    let s = sources();
    let before = generate(&s).unwrap_or_else(|e| panic!("{e}"));
    let old = "Book an available tour activity.";
    let mut edited = s.clone();
    let file = edited.iter_mut().find(|(n, _)| n == "tour_activity_book.xsd").expect("book spec");
    assert!(file.1.contains(old), "the test edits a sentence that must exist in the spec");
    file.1 = file.1.replacen(old, "Book one available tour activity.", 1);
    let after = generate(&edited).unwrap_or_else(|e| panic!("{e}"));
    let changed: Vec<&String> = before.files.keys().filter(|k| before.files[*k] != after.files[*k]).collect();
    assert_eq!(changed, ["tour_activity_book.rs"]);
    assert!(after.files["tour_activity_book.rs"].contains("Book one available tour activity."));
}
