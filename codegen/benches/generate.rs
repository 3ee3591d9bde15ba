//! Cost of a generator run on `spec/`, whole and by stage, against plain roxmltree parsing.
//!
//! The spec files are read once, before measuring; every function works on the in-memory
//! sources. Group `spec`, throughput = total bytes of the spec files:
//!
//! - `roxmltree_parse`: `roxmltree::Document::parse` of every spec file (the floor of `parse`);
//! - `parse`: [`ota_codegen::parse::parse_file`] of every spec file (XML + syntax tree);
//! - `lower_passes`: [`ota_codegen::lower::lower`] and [`ota_codegen::passes::run_all`]
//!   of the parsed files;
//! - `emit`: [`ota_codegen::emit::emit`] of the named model (token streams);
//! - `render`: [`ota_codegen::render::render`] of every emitted file (syn + prettyplease);
//! - `generate`: [`ota_codegen::generate`], the whole run (what `cargo xtask regen` does
//!   besides reading and writing files).
//!
//! Run with `cargo bench -p ota-codegen --bench generate`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput};
use ota_codegen::diagnostics::{Diagnostics, FileId};
use ota_codegen::{emit, lower, parse, passes, render};

/// The spec folder.
const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec");

/// Parses every source the way [`ota_codegen::generate`] does (`common.xsd` first).
fn parse_all(sources: &[(String, String)]) -> Vec<lower::SpecFile> {
    let mut diags = Diagnostics::default();
    let mut ordered: Vec<&(String, String)> = sources.iter().collect();
    ordered.sort_by_key(|(name, _)| (name != "common.xsd", name.clone()));
    let files = ordered
        .into_iter()
        .enumerate()
        .map(|(i, (name, text))| lower::SpecFile {
            module: name.trim_end_matches(".xsd").to_string(),
            file: name.clone(),
            schema: parse::parse_file(FileId(i), text, &mut diags).expect("spec file parses"),
        })
        .collect();
    assert!(!diags.has_errors(), "the spec has parse errors");
    files
}

/// Lowers parsed files and runs the passes.
fn lower_and_run_passes(files: &[lower::SpecFile]) -> ota_codegen::ir::Model {
    let mut diags = Diagnostics::default();
    let mut model = lower::lower(files, &mut diags);
    passes::run_all(&mut model, &mut diags);
    assert!(!diags.has_errors(), "the spec has lowering errors");
    model
}

fn generate(c: &mut Criterion) {
    let sources = ota_codegen::read_spec_dir(Path::new(SPEC)).expect("read spec/");
    assert!(!sources.is_empty(), "no spec files in {SPEC}");
    let bytes: usize = sources.iter().map(|(_, text)| text.len()).sum();

    // Inputs of the later stages, and a check that the stages add up to the whole run.
    let parsed = parse_all(&sources);
    let model = lower_and_run_passes(&parsed);
    let emitted = emit::emit(&model);
    let whole = ota_codegen::generate(&sources).map_err(|e| e.short()).expect("the spec generates");
    for (name, tokens) in &emitted {
        let text = render::render(name, tokens.clone()).expect("render");
        assert_eq!(whole.files.get(name), Some(&text), "stage-by-stage output of {name} differs from generate");
    }

    let mut group = c.benchmark_group("spec");
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Bytes(bytes as u64));

    group.bench_function("roxmltree_parse", |b| {
        b.iter(|| {
            for (_, text) in &sources {
                black_box(roxmltree::Document::parse(black_box(text)).expect("parse"));
            }
        });
    });
    group.bench_function("parse", |b| b.iter(|| parse_all(black_box(&sources))));
    group.bench_function("lower_passes", |b| b.iter(|| lower_and_run_passes(black_box(&parsed))));
    group.bench_function("emit", |b| b.iter(|| emit::emit(black_box(&model))));
    group.bench_function("render", |b| {
        b.iter_batched(
            || emitted.clone(),
            |emitted| {
                emitted
                    .into_iter()
                    .map(|(name, tokens)| render::render(&name, tokens).expect("render"))
                    .collect::<Vec<_>>()
            },
            BatchSize::SmallInput,
        );
    });
    group.bench_function("generate", |b| {
        b.iter(|| ota_codegen::generate(black_box(&sources)).map_err(|e| e.short()).expect("generate"));
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    generate(&mut criterion);
    criterion.final_summary();
}
