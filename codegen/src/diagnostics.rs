//! Errors as data: every problem found in the spec is a [`Diagnostic`] with a source span.
//!
//! The stages never stop at the first problem: they push diagnostics into a [`Diagnostics`]
//! collection and carry on, so one run reports every error at once. Rendering uses
//! `codespan-reporting` (plain text, no colour) so the output is stable enough to snapshot.

use std::fmt;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::NoColor};

/// Index of a source file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub usize);

/// A byte range in one source file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the range belongs to.
    pub file: FileId,
    /// Byte offsets into that file's text.
    pub range: Range<usize>,
}

impl Span {
    /// A span covering `range` in `file`.
    pub fn new(file: FileId, range: Range<usize>) -> Self {
        Span { file, range }
    }
}

/// The spec files read in one run, by [`FileId`].
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<(String, String)>,
}

impl SourceMap {
    /// Adds a file (its display name and its text) and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push((name.into(), text.into()));
        FileId(self.files.len() - 1)
    }

    /// The display name of a file (its path relative to the spec folder).
    pub fn name(&self, id: FileId) -> &str {
        self.files.get(id.0).map(|f| f.0.as_str()).unwrap_or("<unknown>")
    }

    /// The text of a file.
    pub fn text(&self, id: FileId) -> &str {
        self.files.get(id.0).map(|f| f.1.as_str()).unwrap_or("")
    }

    /// All files, in the order they were added.
    pub fn ids(&self) -> impl Iterator<Item = FileId> + '_ {
        (0..self.files.len()).map(FileId)
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, span: &Span) -> (usize, usize) {
        let text = self.text(span.file);
        let offset = span.range.start.min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
        (line, col)
    }
}

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The spec cannot be turned into code.
    Error,
    /// The spec works but something in it looks wrong.
    Warning,
}

/// One problem in the spec, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where it is.
    pub span: Span,
    /// Other places that help explain it (e.g. "first defined here").
    pub related: Vec<(Span, String)>,
    /// Extra advice, one line each.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, message: message.into(), span, related: Vec::new(), notes: Vec::new() }
    }

    /// Adds a secondary location.
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }

    /// Adds a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// The diagnostics of one run.
#[derive(Debug, Default, Clone)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Records an error at `span`.
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }

    /// True when at least one error was recorded.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// The recorded diagnostics, sorted by file and position.
    pub fn sorted(&self) -> Vec<Diagnostic> {
        let mut items = self.items.clone();
        items.sort_by(|a, b| {
            (a.span.file, a.span.range.start, &a.message).cmp(&(b.span.file, b.span.range.start, &b.message))
        });
        items.dedup();
        items
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// The failure of a generator run: every diagnostic, with the sources to show them against.
#[derive(Debug, Clone)]
pub struct SpecErrors {
    /// The files that were read.
    pub sources: SourceMap,
    /// Every problem found, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl SpecErrors {
    /// One line per diagnostic: `file:line:col: error: message`.
    pub fn short(&self) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            let (line, col) = self.sources.line_col(&d.span);
            let sev = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            out.push_str(&format!("{}:{line}:{col}: {sev}: {}\n", self.sources.name(d.span.file), d.message));
        }
        out
    }

    /// The full report with source excerpts, as a compiler prints it.
    pub fn render(&self) -> String {
        let mut files = SimpleFiles::new();
        for id in self.sources.ids() {
            files.add(self.sources.name(id).to_string(), self.sources.text(id).to_string());
        }
        let mut buf = NoColor::new(Vec::new());
        let config = term::Config::default();
        for d in &self.diagnostics {
            let cs = match d.severity {
                Severity::Error => CsDiagnostic::error(),
                Severity::Warning => CsDiagnostic::warning(),
            };
            let mut labels = vec![Label::primary(d.span.file.0, d.span.range.clone())];
            for (span, label) in &d.related {
                labels.push(Label::secondary(span.file.0, span.range.clone()).with_message(label));
            }
            let cs = cs.with_message(&d.message).with_labels(labels).with_notes(d.notes.clone());
            // Writing to memory only fails if a span is out of range; fall back to the short form.
            if term::emit(&mut buf, &config, &files, &cs).is_err() {
                return self.short();
            }
        }
        String::from_utf8_lossy(&buf.into_inner()).into_owned()
    }
}

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())?;
        let errors = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        write!(f, "{errors} error(s) in the spec")
    }
}

impl std::error::Error for SpecErrors {}
