//! Stage 6, **write**: put the rendered files in place, or check that they already are.
//!
//! One function, two modes (as rust-analyzer's xtask does): `Write` rewrites only the files
//! whose bytes changed and removes generated files that no longer have a source; `Check`
//! changes nothing and lists what is stale.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

/// What to do with the rendered files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write files whose content changed; delete stale ones.
    Write,
    /// Change nothing; report differences.
    Check,
}

/// What a write or check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Files whose content differs (written in `Write` mode).
    pub changed: Vec<String>,
    /// Files that did not exist (created in `Write` mode).
    pub added: Vec<String>,
    /// `.rs` files in the output folder that the spec no longer produces (deleted in `Write` mode).
    pub removed: Vec<String>,
}

impl Report {
    /// True when the output folder already matched.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

/// Writes or checks `files` (name → content) in `dir`, which holds only generated files.
pub fn write_files(dir: &Path, files: &BTreeMap<String, String>, mode: Mode) -> io::Result<Report> {
    let mut report = Report::default();
    if mode == Mode::Write {
        fs::create_dir_all(dir)?;
    }
    for (name, content) in files {
        let path = dir.join(name);
        match fs::read(&path) {
            Ok(existing) if existing == content.as_bytes() => continue,
            Ok(_) => report.changed.push(name.clone()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => report.added.push(name.clone()),
            Err(e) => return Err(e),
        }
        if mode == Mode::Write {
            fs::write(&path, content)?;
        }
    }
    if dir.is_dir() {
        let mut extra = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".rs") && !files.contains_key(&name) {
                extra.push(name);
            }
        }
        extra.sort();
        for name in extra {
            if mode == Mode::Write {
                fs::remove_file(dir.join(&name))?;
            }
            report.removed.push(name);
        }
    }
    Ok(report)
}
