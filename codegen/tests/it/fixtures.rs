//! One folder per case under `tests/fixtures/`: `valid_*` folders must generate (their model
//! and code are snapshotted), every other folder holds a broken spec whose diagnostics are
//! snapshotted. A broken fixture that generates, or a run that panics, fails the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn name(dir: &Path) -> String {
    dir.file_name().expect("name").to_string_lossy().into_owned()
}

#[test]
fn there_are_fixtures_of_both_kinds() {
    let dirs = fixture_dirs();
    assert!(dirs.iter().filter(|d| name(d).starts_with("valid_")).count() >= 1);
    assert!(dirs.iter().filter(|d| !name(d).starts_with("valid_")).count() >= 10);
}

#[test]
fn broken_specs_report_every_error_with_a_position() {
    for dir in fixture_dirs().into_iter().filter(|d| !name(d).starts_with("valid_")) {
        let sources = ota_codegen::read_spec_dir(&dir).expect("read fixture");
        let errors = match ota_codegen::generate(&sources) {
            Ok(_) => panic!("fixture {} should not generate", name(&dir)),
            Err(e) => e,
        };
        assert!(!errors.diagnostics.is_empty());
        // Every diagnostic names a file and a line:column inside it.
        for line in errors.short().lines() {
            let mut parts = line.splitn(4, ':');
            let file = parts.next().unwrap_or("");
            assert!(file.ends_with(".xsd"), "{line}");
            assert!(parts.next().is_some_and(|l| l.parse::<u32>().is_ok()), "{line}");
            assert!(parts.next().is_some_and(|c| c.parse::<u32>().is_ok()), "{line}");
        }
        insta::with_settings!({ snapshot_path => "snapshots/diagnostics", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(name(&dir), format!("{}\n{}", errors.short(), errors.render()));
        });
    }
}

#[test]
fn valid_fixtures_generate_the_expected_model_and_code() {
    for dir in fixture_dirs().into_iter().filter(|d| name(d).starts_with("valid_")) {
        let sources = ota_codegen::read_spec_dir(&dir).expect("read fixture");
        let generated = match ota_codegen::generate(&sources) {
            Ok(g) => g,
            Err(e) => panic!("fixture {} should generate:\n{e}", name(&dir)),
        };
        insta::with_settings!({ snapshot_path => "snapshots/valid", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("{}__model", name(&dir)), generated.model.print());
            for (file, code) in &generated.files {
                insta::assert_snapshot!(format!("{}__{}", name(&dir), file.trim_end_matches(".rs")), code);
            }
        });
    }
}
