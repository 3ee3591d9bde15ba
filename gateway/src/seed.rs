//! Content loading: the demo content a fresh database gets at first start
//! ([`seed_demo_if_empty`]) and `ota-gateway import FILE` ([`import`]).
//!
//! An import file is one JSON object with three optional parts (see `gateway/README.md`):
//! `requestors` (plain passwords in the file, argon2id hashes in the database), `activities`
//! and `hotels` (each module's own `Content`). Everything in a file is stored in one
//! transaction: a file with one bad part changes nothing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::Transaction;
use serde::Deserialize;

use crate::auth::{HashError, hash_password};
use crate::db::{Db, DbError, immediate};
use crate::ops::{activities, hotels};

/// The demo requestors (`gateway/demo/requestors.json`, an import file with requestors only).
pub const DEMO_REQUESTORS: &str = include_str!("../demo/requestors.json");

/// The demo requestor's `RequestorID@ID`.
pub const DEMO_ID: &str = "DEMO";
/// The demo requestor's distributor context (`ID_Context` of the Type 22 source).
pub const DEMO_ID_CONTEXT: &str = "DEMO-DIST";
/// The demo requestor's `MessagePassword` (a demo secret: change it with `import` for real use).
pub const DEMO_PASSWORD: &str = "demo-password";

/// The content of an import file. Every part is optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// Requestors to create or update (by `id`).
    #[serde(default)]
    pub requestors: Vec<RequestorSeed>,
    /// Activity content (see `crate::ops::activities::Content`).
    #[serde(default)]
    pub activities: Option<activities::Content>,
    /// Hotel content (see `crate::ops::hotels::Content`).
    #[serde(default)]
    pub hotels: Option<hotels::Content>,
}

/// One requestor of an import file.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestorSeed {
    /// `RequestorID@ID` (both POS sources).
    pub id: String,
    /// The distributor context the Type 22 source must carry as `ID_Context`.
    pub id_context: String,
    /// A display name.
    pub name: String,
    /// The `MessagePassword`, in clear in the file; only its argon2id hash is stored.
    pub password: String,
    /// False to disable the requestor (its requests then fail authentication). Default true.
    #[serde(default = "yes")]
    pub active: bool,
}

fn yes() -> bool {
    true
}

impl std::fmt::Debug for RequestorSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestorSeed")
            .field("id", &self.id)
            .field("id_context", &self.id_context)
            .field("name", &self.name)
            .field("password", &"<redacted>")
            .field("active", &self.active)
            .finish()
    }
}

/// A requestor ready to store: the password already hashed.
#[derive(Debug, Clone)]
pub struct HashedRequestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context.
    pub id_context: String,
    /// A display name.
    pub name: String,
    /// The argon2id PHC string.
    pub password_hash: String,
    /// Whether the requestor may call the gateway.
    pub active: bool,
}

/// What an import stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportSummary {
    /// Requestors created or updated.
    pub requestors: usize,
    /// Whether the file had an `activities` part.
    pub activities: bool,
    /// Whether the file had a `hotels` part.
    pub hotels: bool,
}

/// Content could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The JSON does not have the import file's shape.
    #[error("{what}: {source}")]
    Json {
        /// The file, or which demo part.
        what: String,
        /// Where and why (serde_json gives line and column).
        source: serde_json::Error,
    },
    /// A value is not acceptable (an empty id, a duplicate requestor, …).
    #[error("{0}")]
    Invalid(String),
    /// A password could not be hashed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The database refused the content.
    #[error("database: {0}")]
    Db(#[from] DbError),
    /// A background task failed.
    #[error("background task: {0}")]
    Task(String),
}

fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T, SeedError> {
    serde_json::from_str(text).map_err(|source| SeedError::Json { what: what.to_string(), source })
}

fn validate(requestors: &[RequestorSeed]) -> Result<(), SeedError> {
    let mut seen = HashSet::new();
    for (i, r) in requestors.iter().enumerate() {
        let at = format!("requestors[{i}]");
        for (field, value) in [("id", &r.id), ("id_context", &r.id_context), ("name", &r.name), ("password", &r.password)] {
            if value.trim().is_empty() {
                return Err(SeedError::Invalid(format!("{at}.{field} is empty")));
            }
        }
        if r.id.chars().count() > 64 || r.id_context.chars().count() > 64 {
            return Err(SeedError::Invalid(format!("{at}: id and id_context are at most 64 characters")));
        }
        if !seen.insert(r.id.as_str()) {
            return Err(SeedError::Invalid(format!("{at}: requestor {:?} appears twice", r.id)));
        }
    }
    Ok(())
}

/// Hashes the passwords (on a blocking thread: argon2 is slow on purpose).
async fn hash_all(requestors: Vec<RequestorSeed>) -> Result<Vec<HashedRequestor>, SeedError> {
    validate(&requestors)?;
    tokio::task::spawn_blocking(move || {
        requestors
            .into_iter()
            .map(|r| {
                Ok(HashedRequestor {
                    password_hash: hash_password(&r.password)?,
                    id: r.id,
                    id_context: r.id_context,
                    name: r.name,
                    active: r.active,
                })
            })
            .collect::<Result<Vec<_>, SeedError>>()
    })
    .await
    .map_err(|e| SeedError::Task(e.to_string()))?
}

/// Creates or updates requestors (by id) inside a transaction.
pub fn store_requestors(tx: &Transaction, requestors: &[HashedRequestor]) -> Result<(), DbError> {
    let now = crate::ops::time_stamp(chrono::Utc::now()).to_string();
    let mut stmt = tx.prepare_cached(
        "INSERT INTO requestor (id, id_context, name, password_hash, active, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (id) DO UPDATE SET id_context = excluded.id_context, name = excluded.name,
             password_hash = excluded.password_hash, active = excluded.active",
    )?;
    for r in requestors {
        stmt.execute(rusqlite::params![r.id, r.id_context, r.name, r.password_hash, i64::from(r.active), now])?;
    }
    Ok(())
}

/// Stores everything in one `IMMEDIATE` transaction; with `only_if_empty`, stores nothing (and
/// returns `None`) when the requestor table already has rows.
async fn store(db: &Db, content: Content, only_if_empty: bool) -> Result<Option<ImportSummary>, SeedError> {
    let Content { requestors, activities: acts, hotels: hots } = content;
    let hashed = hash_all(requestors).await?;
    let out = db
        .call(move |conn| {
            immediate(conn, |tx| {
                if only_if_empty && requestor_count(tx)? > 0 {
                    return Ok(None);
                }
                store_requestors(tx, &hashed)?;
                if let Some(a) = &acts {
                    activities::store(tx, a)?;
                }
                if let Some(h) = &hots {
                    hotels::store(tx, h)?;
                }
                Ok(Some(ImportSummary { requestors: hashed.len(), activities: acts.is_some(), hotels: hots.is_some() }))
            })
        })
        .await?;
    Ok(out)
}

fn requestor_count(conn: &rusqlite::Connection) -> Result<i64, DbError> {
    Ok(conn.query_row("SELECT count(*) FROM requestor", [], |r| r.get(0))?)
}

/// Loads an import file (see the module docs) into the database, in one transaction.
pub async fn import(db: &Db, path: &Path) -> Result<ImportSummary, SeedError> {
    let text = std::fs::read_to_string(path).map_err(|source| SeedError::Io { path: path.to_path_buf(), source })?;
    let content: Content = parse(&path.display().to_string(), &text)?;
    let summary = store(db, content, false).await?;
    let summary = summary.unwrap_or_default();
    tracing::info!(
        file = %path.display(),
        requestors = summary.requestors,
        activities = summary.activities,
        hotels = summary.hotels,
        "content imported"
    );
    Ok(summary)
}

/// The demo content: `gateway/demo/requestors.json` plus each module's `DEMO`.
pub fn demo_content() -> Result<Content, SeedError> {
    let requestors: Content = parse("demo/requestors.json", DEMO_REQUESTORS)?;
    Ok(Content {
        requestors: requestors.requestors,
        activities: Some(parse("activities::DEMO", activities::DEMO)?),
        hotels: Some(parse("hotels::DEMO", hotels::DEMO)?),
    })
}

/// At first start (no requestor yet), loads the demo content in one transaction. Returns
/// whether it did.
pub async fn seed_demo_if_empty(db: &Db) -> Result<bool, SeedError> {
    // A cheap look first, so a non-empty database does not pay for hashing the demo passwords;
    // the look is repeated inside the transaction, so two starting processes seed only once.
    if db.call(|conn| requestor_count(conn)).await? > 0 {
        return Ok(false);
    }
    let seeded = store(db, demo_content()?, true).await?.is_some();
    if seeded {
        tracing::info!("empty database: demo content loaded");
    }
    Ok(seeded)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn demo_parts_parse() {
        let demo = demo_content().unwrap();
        assert_eq!(demo.requestors.len(), 2);
        assert_eq!(demo.requestors[0].id, DEMO_ID);
        assert_eq!(demo.requestors[0].id_context, DEMO_ID_CONTEXT);
        assert_eq!(demo.requestors[0].password, DEMO_PASSWORD);
        validate(&demo.requestors).unwrap();
    }

    #[test]
    fn bad_requestors_are_refused() {
        let one = |id: &str, pw: &str| RequestorSeed {
            id: id.into(),
            id_context: "C".into(),
            name: "N".into(),
            password: pw.into(),
            active: true,
        };
        assert!(validate(&[one("A", "")]).is_err());
        assert!(validate(&[one("", "x")]).is_err());
        assert!(validate(&[one("A", "x"), one("A", "y")]).is_err());
        assert!(!format!("{:?}", one("A", "hunter2")).contains("hunter2"));
    }

    #[test]
    fn unknown_parts_are_refused() {
        assert!(parse::<Content>("t", r#"{"requestor": []}"#).is_err());
        assert!(parse::<Content>("t", r#"{}"#).is_ok());
    }
}
