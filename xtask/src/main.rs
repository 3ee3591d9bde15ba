//! `cargo xtask`: project automation.
//!
//! - `cargo xtask regen`: regenerate `generated/src/messages/` from `spec/*.xsd`, writing only
//!   files whose bytes change.
//! - `cargo xtask regen --check`: change nothing; fail (exit 1) if the generated code is stale.
//! - `cargo xtask model`: print the lowered model (the IR) of the spec.
//! - `cargo xtask official-requests --root OTA_X --base FILE [--random N] [--seed S] --out DIR`:
//!   variants of a base request valid under the official OpenTravel 2016B schemas
//!   (`conformance/opentravel-2016b/`): every one-extra variant and N random fills, one file
//!   each, and `index.tsv` (file, item). See `ota_codegen::official::instances`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ota_codegen::official::{OfficialSchema, instances};
use ota_codegen::write::{Mode, write_files};
use rand::SeedableRng;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Project automation for the OTA message workspace")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate the message crate from the spec.
    Regen {
        /// Change nothing; exit non-zero if the checked-in code is not what the spec produces.
        #[arg(long)]
        check: bool,
    },
    /// Print the lowered model (IR) of the spec.
    Model,
    /// Write variants of a base request valid under the official OpenTravel 2016B schemas.
    ///
    /// One file per one-extra variant (the base plus one optional attribute or element
    /// its official type allows), then `--random` random fills; files are named by index and a
    /// slug of what was added, and `index.tsv` lists (file, item).
    #[command(name = "official-requests")]
    OfficialRequests {
        /// The request root, e.g. `OTA_HotelResRQ` (the base's root element must be it).
        #[arg(long)]
        root: String,
        /// The base request, valid under the root's official schema. A template: `{{DAY+N}}`
        /// becomes the date N days from today (UTC); other placeholders are filled by `--set`.
        #[arg(long)]
        base: PathBuf,
        /// How many random fills to write besides the one-extra variants.
        #[arg(long, default_value_t = 0)]
        random: u64,
        /// The seed of the first random fill (the k-th uses seed + k): the same seed writes the
        /// same files.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// `NAME=VALUE`: fills `{{NAME}}` in the base (repeatable), e.g. `--set INTERNAL_REF=4471200`.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// The folder of the official schemas (relative to the workspace root).
        #[arg(long, default_value = "conformance/opentravel-2016b")]
        schemas: PathBuf,
        /// The folder to write into (made if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    match cli.command {
        Command::OfficialRequests { root: name, base, random, seed, set, schemas, out } => {
            let schemas = if schemas.is_absolute() { schemas } else { root.join(schemas) };
            match official_requests(&OfficialArgs { root: name, base, random, seed, set, schemas, out }) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Model => match generate(&root) {
            Ok(generated) => {
                print!("{}", generated.model.print());
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        Command::Regen { check } => match generate(&root) {
            Ok(generated) => regen(&root, &generated, check),
            Err(code) => code,
        },
    }
}

fn generate(root: &Path) -> Result<ota_codegen::Generated, ExitCode> {
    ota_codegen::generate_dir(&root.join("spec")).map_err(|e| {
        eprintln!("{e}");
        ExitCode::FAILURE
    })
}

fn regen(root: &Path, generated: &ota_codegen::Generated, check: bool) -> ExitCode {
    let out = root.join("generated/src/messages");
    let mode = if check { Mode::Check } else { Mode::Write };
    let spec = root.join("spec");
    let written = write_files(&out, &generated.files, mode).and_then(|code| {
        let docs = write_files(&spec, &generated.docs, mode)?;
        Ok((code, docs))
    });
    let (mut report, docs) = match written {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot {} {}: {e}", if check { "read" } else { "write" }, out.display());
            return ExitCode::FAILURE;
        }
    };
    // The generated documents (`spec/official-items.md`) are checked and written with the code.
    let rel = |f: &String| {
        if generated.docs.contains_key(f) { format!("spec/{f}") } else { format!("generated/src/messages/{f}") }
    };
    report.changed.extend(docs.changed);
    report.added.extend(docs.added);
    for f in &report.added {
        println!("{} {}", if check { "missing:" } else { "added:  " }, rel(f));
    }
    for f in &report.changed {
        println!("{} {}", if check { "stale:  " } else { "updated:" }, rel(f));
    }
    for f in &report.removed {
        println!("{} {}", if check { "extra:  " } else { "removed:" }, rel(f));
    }
    if check && !report.is_clean() {
        eprintln!(
            "error: the generated code is out of date with spec/. Run `cargo xtask regen` and commit the result."
        );
        return ExitCode::FAILURE;
    }
    if report.is_clean() {
        println!("generated code is up to date ({} files)", generated.files.len());
    }
    ExitCode::SUCCESS
}

/// The arguments of `official-requests`.
struct OfficialArgs {
    root: String,
    base: PathBuf,
    random: u64,
    seed: u64,
    set: Vec<String>,
    schemas: PathBuf,
    out: PathBuf,
}

fn official_requests(args: &OfficialArgs) -> Result<(), String> {
    let template =
        std::fs::read_to_string(&args.base).map_err(|e| format!("cannot read {}: {e}", args.base.display()))?;
    let mut base = instances::fill_dates(&template, instances::today_utc());
    for pair in &args.set {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(format!("--set {pair}: NAME=VALUE expected"));
        };
        base = base.replace(&format!("{{{{{name}}}}}"), value);
    }
    if let Some(start) = base.find("{{") {
        let name: String = base[start..].chars().take_while(|&c| c != '}').collect();
        return Err(format!("the base still has the placeholder {name}}}}}: fill it with --set"));
    }
    let schema = OfficialSchema::load(&args.schemas).map_err(|e| e.to_string())?;
    let doc = roxmltree_root(&base)?;
    if doc != args.root {
        return Err(format!("the base's root is {doc}, not {}", args.root));
    }
    let mut variants: Vec<(String, instances::Variant)> = instances::one_extra(&schema, &base)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|v| (slug(&v.item, &args.root), v))
        .collect();
    for k in 0..args.random {
        let seed = args.seed.wrapping_add(k);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut v = instances::random_fill(&schema, &base, &mut rng).map_err(|e| e.to_string())?;
        v.item = format!("random (seed {seed})");
        variants.push((format!("random-seed{seed}"), v));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot make {}: {e}", args.out.display()))?;
    let mut index = String::from("file\titem\n");
    for (i, (slug, v)) in variants.iter().enumerate() {
        let file = format!("{i:04}-{slug}.xml");
        let path = args.out.join(&file);
        std::fs::write(&path, &v.xml).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        index.push_str(&format!("{file}\t{}\n", v.item));
    }
    let path = args.out.join("index.tsv");
    std::fs::write(&path, index).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "{}: {} one-extra variants and {} random fills written to {}",
        args.root,
        variants.len() as u64 - args.random,
        args.random,
        args.out.display()
    );
    Ok(())
}

/// The local name of a document's root element.
fn roxmltree_root(xml: &str) -> Result<String, String> {
    let start = xml
        .match_indices('<')
        .map(|(i, _)| &xml[i + 1..])
        .find(|rest| !rest.starts_with('?') && !rest.starts_with('!'))
        .ok_or("the base has no root element")?;
    let name: String = start.chars().take_while(|c| !c.is_whitespace() && *c != '>' && *c != '/').collect();
    Ok(name.rsplit(':').next().unwrap_or_default().to_string())
}

/// A file-name slug of an item: its path below the root, `-` between steps.
fn slug(item: &str, root: &str) -> String {
    let below = item.strip_prefix(&format!("/{root}")).unwrap_or(item);
    let mut out = String::new();
    for c in below.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if c == '*' {
            out.push_str("any");
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    let out = if out.len() > 120 { &out[out.len() - 120..] } else { out };
    if out.is_empty() { "root".to_string() } else { out.to_string() }
}
