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

/// Parses JSON, naming the path of a bad entry (`hotels.hotels[0].rates[1].from`).
pub fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T, ImportError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = if path == "." { inner.to_string() } else { format!("{path}: {inner}") };
        ImportError::Json { what: what.to_string(), message }
    })
}
