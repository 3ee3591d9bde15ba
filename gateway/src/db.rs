//! The embedded database: one SQLite file in WAL mode, schema migrations at start, and a pool
//! of connections that async code uses through [`Db::call`] (the work runs on a blocking
//! thread, never on the async executor).
//!
//! Every connection gets `foreign_keys=ON`, `synchronous=FULL` (a committed booking survives a
//! power cut) and a busy timeout. Writes that must be atomic use an `IMMEDIATE` transaction
//! (see [`immediate`]), so concurrent writers queue instead of failing half-way.

use std::path::{Path, PathBuf};
use std::time::Duration;

use deadpool_sqlite::rusqlite::{self, Connection, Transaction, TransactionBehavior};
use deadpool_sqlite::{Config, Hook, HookError, Pool, Runtime};
use rusqlite_migration::{M, Migrations};

/// A database failure. Callers answer it with an OTA system error and log it; it is never a
/// reason to panic.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite reported an error.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// No connection could be had from the pool.
    #[error("connection pool: {0}")]
    Pool(String),
    /// The schema could not be migrated.
    #[error("migration: {0}")]
    Migration(String),
    /// A stored value could not be read back (a corrupt or hand-edited row).
    #[error("stored data: {0}")]
    Data(String),
}

/// The migrations, in order. Each file is applied once; never edit one that has shipped, add a
/// new one.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_core.sql"),
    include_str!("../migrations/0002_activities.sql"),
    include_str!("../migrations/0003_hotels.sql"),
];

/// How long a connection waits for a lock held by another writer.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The database handle (cheap to clone).
#[derive(Clone)]
pub struct Db {
    pool: Pool,
    path: PathBuf,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").field("path", &self.path).finish_non_exhaustive()
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;")
}

impl Db {
    /// Opens (creating if needed) the database file, switches it to WAL and migrates it.
    pub async fn open(path: &Path) -> Result<Db, DbError> {
        // Migrate on a plain connection first, so the pool only ever sees the current schema.
        let p = path.to_path_buf();
        tokio::task::spawn_blocking(move || -> Result<(), DbError> {
            let mut conn = Connection::open(&p)?;
            configure(&conn)?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
            migrations.to_latest(&mut conn).map_err(|e| DbError::Migration(e.to_string()))
        })
        .await
        .map_err(|e| DbError::Pool(e.to_string()))??;
        let pool = Config::new(path)
            .builder(Runtime::Tokio1)
            .map_err(|e| DbError::Pool(e.to_string()))?
            .max_size(8)
            .post_create(Hook::async_fn(|conn, _| {
                Box::pin(async move {
                    conn.interact(|c| configure(c))
                        .await
                        .map_err(|e| HookError::message(e.to_string()))?
                        .map_err(HookError::Backend)
                })
            }))
            .build()
            .map_err(|e| DbError::Pool(e.to_string()))?;
        Ok(Db { pool, path: path.to_path_buf() })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with a connection, on a blocking thread.
    pub async fn call<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, DbError> + Send + 'static,
    {
        let conn = self.pool.get().await.map_err(|e| DbError::Pool(e.to_string()))?;
        conn.interact(f).await.map_err(|e| DbError::Pool(e.to_string()))?
    }
}

/// Runs `f` in an `IMMEDIATE` transaction (the write lock is taken at the start, so two
/// writers never both read then both write) and commits when it returns `Ok`.
pub fn immediate<T>(conn: &mut Connection, f: impl FnOnce(&Transaction) -> Result<T, DbError>) -> Result<T, DbError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let out = f(&tx)?;
    tx.commit()?;
    Ok(out)
}
