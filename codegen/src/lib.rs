//! `ota-codegen`: turns the OTA message spec (a subset of XML Schema 1.0, in `spec/`) into the
//! Rust types of the `ota-messages` crate.
//!
//! The pipeline has one module per stage, each usable on its own:
//!
//! | stage | module | in → out |
//! |---|---|---|
//! | parse | [`parse`] | XSD text → syntax tree with spans (roxmltree) |
//! | lower | [`lower`] | syntax trees → [`ir::Model`] (names resolved, groups flattened) |
//! | passes | [`passes`] | the generator's decisions, one named pass each, recorded in the model: [`passes::PASSES`] lists them in order (Rust names are one of them) |
//! | emit | [`emit`] | model → token streams (`quote`): writes what the model says, one module per concern |
//! | render | [`render`] | tokens → formatted source (`prettyplease`) with a generated-file header |
//! | write | [`write`](mod@write) | files → disk, or a check that disk is up to date |
//!
//! Beside the pipeline, [`official`] reads the official OpenTravel 2016B schemas
//! (`conformance/opentravel-2016b/`) into a resolved model of their own, which the `official`
//! pass walks beside the spec (`spec/official.xml`), and makes valid instances of them
//! ([`official::instances`]).
//!
//! Problems in the spec are [`diagnostics::Diagnostic`]s with file, line and column; a run
//! reports all of them and never panics. Output is deterministic: the model keeps spec order and
//! every map that reaches the output is ordered.
//!
//! ```no_run
//! let generated = ota_codegen::generate_dir(std::path::Path::new("spec"))?;
//! for (file, source) in &generated.files {
//!     println!("{file}: {} bytes", source.len());
//! }
//! # Ok::<(), ota_codegen::Error>(())
//! ```

pub mod diagnostics;
pub mod emit;
pub mod ir;
pub mod lower;
pub mod official;
pub mod parse;
pub mod passes;
pub mod regex;
pub mod render;
pub mod write;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use diagnostics::{Diagnostic, Diagnostics, SourceMap, Span, SpecErrors};
use passes::naming;

/// The result of a successful run.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The lowered and named model (printable with [`ir::Model::print`]).
    pub model: ir::Model,
    /// Rendered files, by name relative to the output folder.
    pub files: BTreeMap<String, String>,
    /// Generated documents, by name relative to the spec folder (`official-items.md`).
    pub docs: BTreeMap<String, String>,
}

/// Why a run failed.
#[derive(Debug)]
pub enum Error {
    /// The spec folder could not be read.
    Io(std::io::Error),
    /// The spec has errors.
    Spec(SpecErrors),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "cannot read the spec: {e}"),
            Error::Spec(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

/// Reads every `*.xsd` file of a folder, sorted by name.
pub fn read_spec_dir(dir: &Path) -> std::io::Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "xsd") {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            files.push((name, std::fs::read_to_string(&path)?));
        }
    }
    files.sort();
    Ok(files)
}

/// The file of a spec folder that names the official schemas and decides what the service does
/// with the items they allow beyond the spec ([`passes::official`]).
pub const OFFICIAL_RULES: &str = "official.xml";

/// The decision rules of a spec folder ([`OFFICIAL_RULES`]) and the folder its `schemas` path
/// is relative to.
#[derive(Debug, Clone)]
pub struct OfficialRules {
    /// The text of `official.xml`.
    pub text: String,
    /// The spec folder.
    pub dir: std::path::PathBuf,
}

/// Runs the whole pipeline on the `*.xsd` files of a folder, with its `official.xml` if it has
/// one.
pub fn generate_dir(dir: &Path) -> Result<Generated, Error> {
    let sources = read_spec_dir(dir).map_err(Error::Io)?;
    let rules = match std::fs::read_to_string(dir.join(OFFICIAL_RULES)) {
        Ok(text) => Some(OfficialRules { text, dir: dir.to_path_buf() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::Io(e)),
    };
    generate_with(&sources, rules).map_err(Error::Spec)
}

/// Runs the whole pipeline on in-memory files (name → XSD text). `common.xsd`, if present,
/// becomes the first module; the others follow by name. No official schemas are read.
pub fn generate(sources: &[(String, String)]) -> Result<Generated, SpecErrors> {
    generate_with(sources, None)
}

/// [`generate`], with the official schemas and decision rules when given.
pub fn generate_with(sources: &[(String, String)], official: Option<OfficialRules>) -> Result<Generated, SpecErrors> {
    let mut map = SourceMap::default();
    let mut diags = Diagnostics::default();
    let official = official.and_then(|rules| {
        let id = map.add(OFFICIAL_RULES.to_string(), rules.text.clone());
        let (schemas, rules_read) = passes::official::read_rules(id, &rules.text, &mut diags)?;
        match official::OfficialSchema::load(&rules.dir.join(&schemas)) {
            Ok(schema) => Some(passes::official::OfficialInput {
                schema: std::sync::Arc::new(schema),
                rules: rules_read,
                file: id,
            }),
            Err(e) => {
                diags.error(Span::new(id, 0..0), format!("the official schemas in {schemas} cannot be read: {e}"));
                None
            }
        }
    });
    let mut ordered: Vec<&(String, String)> = sources.iter().collect();
    ordered.sort_by_key(|(name, _)| (name != "common.xsd", name.clone()));
    let mut files = Vec::new();
    for (name, text) in ordered {
        let id = map.add(name.clone(), text.clone());
        let module = name.trim_end_matches(".xsd").to_string();
        if !naming::is_plain_ident(&module) || module != naming::snake(&module) || module == "schema" || module == "mod"
        {
            diags.push(
                Diagnostic::error(Span::new(id, 0..0), format!("`{name}` cannot name a Rust module"))
                    .with_note("spec files are named in snake_case, e.g. `tour_activity_book.xsd` (not `schema.xsd`)"),
            );
            continue;
        }
        if let Some(schema) = parse::parse_file(id, text, &mut diags) {
            files.push(lower::SpecFile { module, file: name.clone(), schema });
        }
    }
    let fail = |map: SourceMap, diags: &Diagnostics| SpecErrors { sources: map, diagnostics: diags.sorted() };
    if diags.has_errors() {
        return Err(fail(map, &diags));
    }
    let mut model = lower::lower(&files, &mut diags);
    model.official_input = official;
    passes::run_all(&mut model, &mut diags);
    if diags.has_errors() {
        return Err(fail(map, &diags));
    }
    let mut out = BTreeMap::new();
    for (name, tokens) in emit::emit(&model) {
        match render::render(&name, tokens) {
            Ok(text) => {
                out.insert(name, text);
            }
            Err(msg) => diags.error(Span::new(diagnostics::FileId(0), 0..0), msg),
        }
    }
    if diags.has_errors() {
        return Err(fail(map, &diags));
    }
    let mut docs = BTreeMap::new();
    if model.official_input.is_some() {
        docs.insert("official-items.md".to_string(), emit::official::items_doc(&model));
    }
    Ok(Generated { model, files: out, docs })
}
