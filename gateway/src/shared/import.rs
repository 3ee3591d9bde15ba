//! What every import part shares: the import error and the JSON reader that names the path of a
//! bad entry. The import command itself (which parts a file has, one transaction for all of
//! them) is [`crate::import`].

use std::path::PathBuf;

use serde::Deserialize;

use crate::store::{Abandoned, StoreError};

/// Content could not be imported; nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The JSON does not have the import file's shape, or a value is malformed.
    #[error("{what}: {message}")]
    Json {
        /// The file, or which demo part.
        what: String,
        /// Where (the entry's path in the file, line and column) and why.
        message: String,
    },
    /// An entry is not acceptable.
    #[error("{entry}: {problem}")]
    Invalid {
        /// Which entry (`activity "X", product "Y"`, `hotel "H"`, `booking "B"`, …).
        entry: String,
        /// What is wrong.
        problem: String,
    },
    /// The store refused the content or failed.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// A background task failed.
    #[error("background task: {0}")]
    Task(String),
}

impl ImportError {
    /// An invalid entry.
    pub fn invalid(entry: impl Into<String>, problem: impl Into<String>) -> Self {
        ImportError::Invalid { entry: entry.into(), problem: problem.into() }
    }
}

impl From<Abandoned> for ImportError {
    fn from(_: Abandoned) -> Self {
        ImportError::Task("the import was abandoned".into())
    }
}

/// Parses an import file: one JSON object (see [`parse`]).
pub fn parse_file<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T, ImportError> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        return Err(ImportError::Json {
            what: what.to_string(),
            message: "an import file is one JSON object ({\"requestors\": […], \"activities\": {…}, \"hotels\": {…}})"
                .into(),
        });
    }
    parse(what, text)
}

/// Parses JSON, naming the path of a bad entry (`hotels.hotels[0].rates[1].from`). No text in
/// it may hold a character XML cannot carry (a control character other than tab and line
/// breaks, U+FFFE, U+FFFF): every answer about its content would otherwise fail to encode.
pub fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T, ImportError> {
    let json = |message: String| ImportError::Json { what: what.to_string(), message };
    let whole: serde_json::Value = serde_json::from_str(text).map_err(|e| json(e.to_string()))?;
    if let Some((path, c)) = text_xml_cannot_carry(&whole, &mut String::new()) {
        return Err(json(format!("{path}: the text has the character U+{:04X}, which XML cannot carry", u32::from(c))));
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = if path == "." { inner.to_string() } else { format!("{path}: {inner}") };
        ImportError::Json { what: what.to_string(), message }
    })
}

/// The first string (key or value) of `v` holding a character XML 1.0 cannot carry, with its
/// path (`hotels.hotels[0].name`).
fn text_xml_cannot_carry(v: &serde_json::Value, path: &mut String) -> Option<(String, char)> {
    let bad = |s: &str| s.chars().find(|&c| !xml_char(c));
    match v {
        serde_json::Value::String(s) => bad(s).map(|c| (path.clone(), c)),
        serde_json::Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = text_xml_cannot_carry(item, path);
            path.truncate(len);
            found
        }),
        serde_json::Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
            let found = bad(key).map(|c| (path.clone(), c)).or_else(|| text_xml_cannot_carry(item, path));
            path.truncate(len);
            found
        }),
        _ => None,
    }
}

/// True for a character of XML 1.0 (`Char`): tab, line feed, carriage return, and U+0020 up,
/// less the surrogates (which a Rust `char` never is), U+FFFE and U+FFFF.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[derive(Debug, Deserialize)]
    struct File {
        #[serde(default)]
        #[allow(dead_code)]
        hotels: Vec<serde_json::Value>,
    }

    fn refused(text: &str) -> String {
        parse_file::<File>("f.json", text).unwrap_err().to_string()
    }

    #[test]
    fn text_xml_cannot_carry_is_refused_with_its_path() {
        for (c, hex) in [("\\u0000", "0000"), ("\\u0001", "0001"), ("\\ufffe", "FFFE"), ("\\u001b", "001B")] {
            let text = format!(r#"{{"hotels": [{{"code": "H1"}}, {{"names": {{"en": "Hotel {c}"}}}}]}}"#);
            assert_eq!(
                refused(&text),
                format!("f.json: hotels[1].names.en: the text has the character U+{hex}, which XML cannot carry")
            );
        }
        assert!(parse::<File>("f.json", r#"{"hotels": [{"name": "Tab\tand\nlines\r, é, 漢字"}]}"#).is_ok());
    }

    #[test]
    fn a_file_is_one_object() {
        for text in ["[]", " [{}]", "3", "\"x\"", "null"] {
            assert!(refused(text).starts_with("f.json: an import file is one JSON object"), "{text}");
        }
    }
}
