//! `cargo xtask`: project automation.
//!
//! - `cargo xtask regen`: regenerate `generated/src/messages/` from `spec/*.xsd`, writing only
//!   files whose bytes change.
//! - `cargo xtask regen --check`: change nothing; fail (exit 1) if the generated code is stale.
//! - `cargo xtask model`: print the lowered model (the IR) of the spec.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ota_codegen::write::{Mode, write_files};

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
}

fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let spec = root.join("spec");
    let out = root.join("generated/src/messages");
    let generated = match ota_codegen::generate_dir(&spec) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    match cli.command {
        Command::Model => {
            print!("{}", generated.model.print());
            ExitCode::SUCCESS
        }
        Command::Regen { check } => {
            let mode = if check { Mode::Check } else { Mode::Write };
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
    }
}
