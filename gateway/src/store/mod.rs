//! The gateway's store: the database behind every area, on SQLite (one file, the embedded
//! default) or PostgreSQL (many gateway instances on one database).
//!
//! | module | what |
//! |---|---|
//! | [`backup`] | SQLite backups while gateways serve (`VACUUM INTO`) and restores that refuse a database in use, drop its `-wal` and report what the two sides now disagree on |
//! | [`sql`] | [`Conn`]: statements written once (`$1` placeholders) for both backends, in a transaction or outside, some held to travel with the next |
//! | [`values`] | [`Param`], [`Column`], named rows ([`row!`](crate::store::row)): each value in the backend's own representation |
//! | `sqlite` | reads on the calling task; one writer thread with group commit |
//! | `postgres` | a connection pool; each write in a task of its own; statements prepared once per connection, or unnamed (`statement_cache=off`: behind a pooler in transaction mode) |
//! | `migrate` | the schema migrations of each backend, safe when instances start together |
//! | [`recent`] | recent results of the inventory reads of availability (rooms sold, places booked), reused while current |
//! | [`purge`] | deleting what is kept only for a while: in batches, now and then on every gateway |
//!
//! The areas' repos (`requestors::repo`, `activities::repo`, `hotels::repo`) hold all the SQL;
//! they are `async fn`s over a [`Conn`] and never know the backend (but for
//! [`Conn::dialect`], used nowhere yet). A repo function runs inside [`Store::read`] (one
//! consistent snapshot) or [`Store::write`] (one transaction, committed unless the request gave
//! up before — see [`Ticket`]).

pub mod backup;
pub mod migrate;
mod postgres;
pub mod purge;
pub mod recent;
pub mod sql;
mod sqlite;
pub mod values;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use futures_util::future::BoxFuture;

pub use sql::{CATALOGUE_LOCK, Conn, Sequence, SqlDialect, TAKES_LOCK};
pub use values::{ArrayElement, Column, FromRow, Param, Row, Scalar, group, row};

/// A store failure: the database is unreachable, refused a statement, or holds a value that
/// cannot be read. Answered as an OTA system error and logged; never a reason to panic.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite reported an error.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL reported an error.
    #[error("postgres: {}", postgres_error(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// No connection could be had.
    #[error("connection pool: {0}")]
    Pool(String),
    /// The schema could not be migrated.
    #[error("migration: {0}")]
    Migration(String),
    /// A stored value could not be read back (a corrupt or hand-edited row), or a statement
    /// did not give the rows expected.
    #[error("stored data: {0}")]
    Data(String),
    /// The database cannot be used (the writer stopped, a commit failed, …).
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A commit was sent and no answer came back (the connection broke): the write may or may
    /// not be stored.
    #[error("commit outcome unknown: {0}")]
    InDoubt(String),
}

/// A PostgreSQL error as the logs show it: what failed, and the server's (or pooler's) message
/// and SQLSTATE when it refused a statement (`db error: ERROR: prepared statement "s9" does not
/// exist (26000)`); never its DETAIL, which may quote the values of a row.
fn postgres_error(e: &tokio_postgres::Error) -> String {
    match (e.as_db_error(), std::error::Error::source(e)) {
        (Some(db), _) => format!("{e}: {}: {} ({})", db.severity(), db.message(), db.code().code()),
        (None, Some(cause)) => format!("{e}: {cause}"),
        (None, None) => e.to_string(),
    }
}

impl StoreError {
    /// The same failure, for each of several writes it ended together (a batch): whether the
    /// outcome is known is kept (`InDoubt` stays `InDoubt`), the rest is told by its text.
    pub fn shared(&self) -> StoreError {
        match self {
            StoreError::InDoubt(m) => StoreError::InDoubt(m.clone()),
            other => StoreError::Unavailable(other.to_string()),
        }
    }
}

/// A write that was not carried out because its request gave up first (its deadline passed
/// while the write waited). Nothing of it was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request gave up before its write was carried out")]
pub struct Abandoned;

/// Where the database is: `--db` of the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (created if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`).
    Postgres(String),
}

impl FromStr for Location {
    type Err = String;

    /// `postgres://…` or `postgresql://…` is PostgreSQL; `sqlite:PATH` or a bare path is SQLite.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("the database location is empty".into());
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Location::Postgres(s.to_string()));
        }
        let path = s.strip_prefix("sqlite://").or_else(|| s.strip_prefix("sqlite:")).unwrap_or(s);
        if path.is_empty() {
            return Err(format!("{s:?} names no SQLite file"));
        }
        Ok(Location::Sqlite(PathBuf::from(path)))
    }
}

impl fmt::Display for Location {
    /// The location without a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(p) => write!(f, "{}", p.display()),
            Location::Postgres(url) => match postgres::parse_url(url) {
                Ok((c, _)) => write!(f, "postgres://{}", postgres_describe(&c)),
                Err(_) => f.write_str("postgres://(invalid URL)"),
            },
        }
    }
}

/// `user@host/db` of a connection configuration, without the password.
fn postgres_describe(c: &tokio_postgres::Config) -> String {
    let host = match c.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    format!("{}@{host}/{}", c.get_user().unwrap_or(""), c.get_dbname().unwrap_or(""))
}

/// Whether a request still waits for its write, and whether the write has started. A request
/// that gives up (its deadline passed) [`abandons`](Ticket::abandon) it: a write that had not
/// started then never starts (SQLite) or is rolled back before its commit (PostgreSQL), and the
/// request answers "not processed" truthfully. A write that started always runs to its real
/// outcome, and the request waits for it.
#[derive(Debug, Default)]
pub struct Ticket(AtomicU8);

const PENDING: u8 = 0;
const STARTED: u8 = 1;
const ABANDONED: u8 = 2;

impl Ticket {
    /// A pending ticket.
    pub fn new() -> Arc<Ticket> {
        Arc::new(Ticket(AtomicU8::new(PENDING)))
    }

    /// The write starts (or commits): true unless the request gave up first.
    pub fn start(&self) -> bool {
        match self.0.compare_exchange(PENDING, STARTED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(state) => state == STARTED,
        }
    }

    /// The request gives up: true when no write has started (nothing will be stored), false
    /// when one has (the request must wait for its outcome).
    pub fn abandon(&self) -> bool {
        match self.0.compare_exchange(PENDING, ABANDONED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(state) => state == ABANDONED,
        }
    }

    /// True when the request gave up.
    pub fn is_abandoned(&self) -> bool {
        self.0.load(Ordering::Acquire) == ABANDONED
    }
}

#[derive(Debug)]
enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// The store (cheap to clone).
#[derive(Debug, Clone)]
pub struct Store {
    backend: Arc<Backend>,
    health: Arc<std::sync::Mutex<Option<Instant>>>,
}

/// How long a successful health check is trusted before `/healthz` writes again.
const HEALTH_REUSE: Duration = Duration::from_secs(1);

/// How long the health check's write may take before the database counts as not writable.
const HEALTH_WRITE_TIME: Duration = Duration::from_secs(2);

impl Store {
    /// Opens the store at `location` and migrates its schema ([`migrate::Plan::START`]).
    pub async fn open(location: &Location) -> Result<Store, StoreError> {
        Store::open_with(location, &migrate::Plan::START).await
    }

    /// Opens the store at `location`, its schema handled as `plan` says (`serve --no-migrate`:
    /// nothing applied, an older schema refused).
    pub async fn open_with(location: &Location, plan: &migrate::Plan) -> Result<Store, StoreError> {
        let backend = match location {
            Location::Sqlite(path) => {
                let path = path.clone();
                let plan = *plan;
                // Migrations may wait for another process's write lock: not on the executor.
                let sqlite = tokio::task::spawn_blocking(move || -> Result<sqlite::Sqlite, StoreError> {
                    let mut conn = sqlite::connect(&path)?;
                    conn.pragma_update(None, "journal_mode", "WAL")?;
                    migrate::sqlite(&mut conn, &plan)?;
                    drop(conn);
                    sqlite::Sqlite::open(&path)
                })
                .await
                .map_err(|e| StoreError::Unavailable(format!("opening the database: {e}")))??;
                Backend::Sqlite(sqlite)
            }
            Location::Postgres(url) => {
                let pg = postgres::Postgres::connect(url).await?;
                let mut client = pg.client().await?;
                migrate::postgres(&mut client, plan).await?;
                drop(client);
                Backend::Postgres(pg)
            }
        };
        Ok(Store { backend: Arc::new(backend), health: Arc::default() })
    }

    /// Runs the migrations of the database at `location` as `plan` says, without opening the
    /// store (`ota-gateway migrate`). A SQLite file that does not exist is created: the caller
    /// refuses that first when it must.
    pub async fn migrate(location: &Location, plan: &migrate::Plan) -> Result<migrate::Outcome, StoreError> {
        match location {
            Location::Sqlite(path) => {
                let path = path.clone();
                let plan = *plan;
                tokio::task::spawn_blocking(move || -> Result<migrate::Outcome, StoreError> {
                    let mut conn = sqlite::connect(&path)?;
                    if plan.apply {
                        conn.pragma_update(None, "journal_mode", "WAL")?;
                    }
                    migrate::sqlite(&mut conn, &plan)
                })
                .await
                .map_err(|e| StoreError::Unavailable(format!("opening the database: {e}")))?
            }
            Location::Postgres(url) => {
                let pg = postgres::Postgres::connect(url).await?;
                let mut client = pg.client().await?;
                migrate::postgres(&mut client, plan).await
            }
        }
    }

    /// The backend's dialect.
    pub fn dialect(&self) -> SqlDialect {
        match &*self.backend {
            Backend::Sqlite(_) => SqlDialect::Sqlite,
            Backend::Postgres(_) => SqlDialect::Postgres,
        }
    }

    /// What the store is, for logs: `SQLite ./ota-gateway.db` or `PostgreSQL user@host/db`.
    pub fn describe(&self) -> String {
        match &*self.backend {
            Backend::Sqlite(s) => format!("SQLite {}", s.path().display()),
            Backend::Postgres(p) => format!("PostgreSQL {}", p.shown()),
        }
    }

    /// Runs `f` in a read-only transaction (one consistent snapshot).
    ///
    /// ```ignore
    /// let n = store.read(|c| Box::pin(repo::count_requestors(c))).await?;
    /// ```
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        match &*self.backend {
            Backend::Sqlite(s) => s.read(f).await,
            Backend::Postgres(p) => p.read(f).await,
        }
    }

    /// Runs `f` outside any transaction: each statement sees the latest committed state on its
    /// own. For reads of one statement (places booked), which so save the transaction's own
    /// statements (two round trips on PostgreSQL).
    pub async fn peek<T, E, F>(&self, f: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        match &*self.backend {
            Backend::Sqlite(s) => s.peek(f).await,
            Backend::Postgres(p) => p.peek(f).await,
        }
    }

    /// Runs `f` in a write transaction and commits it, for a write no request waits on (a
    /// background task, an administration command, an import): [`Store::write`] with a ticket
    /// nobody abandons and no deadline.
    pub async fn write_now<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + From<Abandoned> + Send + 'static,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>> + Send + 'static,
    {
        self.write(&Ticket::new(), None, f).await
    }

    /// Runs `f` in a write transaction and commits it, unless `ticket` was abandoned before the
    /// write started (then nothing is stored and the answer is [`Abandoned`], converted into
    /// `E`). When `f` fails, its writes are rolled back and its error returned. `deadline`
    /// bounds how long PostgreSQL lock waits may take.
    pub async fn write<T, E, F>(&self, ticket: &Arc<Ticket>, deadline: Option<Instant>, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + From<Abandoned> + Send + 'static,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>> + Send + 'static,
    {
        // The write runs on the SQLite writer or a task of its own: its statements stay spans of
        // the request that asked for it.
        let f = in_span(f, tracing::Span::current());
        match &*self.backend {
            Backend::Sqlite(s) => {
                let (tx, rx) = tokio::sync::oneshot::channel();
                s.submit(ticket.clone(), Box::new(SqliteWrite { f: Some(f), out: None, tx: Some(tx) }));
                match rx.await {
                    Ok(out) => out,
                    Err(_) => Err(StoreError::Unavailable("the SQLite writer dropped a write".into()).into()),
                }
            }
            Backend::Postgres(p) => {
                let pg = p.clone();
                let ticket = ticket.clone();
                // A task of its own: once the commit is sent, its outcome is always awaited.
                let task = tokio::spawn(async move {
                    let out = pg.write(ticket, deadline, f).await;
                    recent::note_write();
                    out
                });
                match task.await {
                    Ok(Ok(out)) => out,
                    Ok(Err(postgres::Unwritten::Abandoned)) => Err(Abandoned.into()),
                    Ok(Err(postgres::Unwritten::Store(e))) => Err(e.into()),
                    Err(e) => Err(StoreError::Unavailable(format!("a write task failed: {e}")).into()),
                }
            }
        }
    }

    /// Proves that the database takes writes (a one-row update, committed), at most once per
    /// second; within the second after a success, succeeds at once.
    pub async fn check_health(&self) -> Result<(), StoreError> {
        if let Backend::Sqlite(s) = &*self.backend {
            s.health()?;
        }
        let recent = self.health.lock().ok().and_then(|h| *h).is_some_and(|at| at.elapsed() < HEALTH_REUSE);
        if recent {
            return Ok(());
        }
        let deadline = Instant::now() + HEALTH_WRITE_TIME;
        let ticket = Ticket::new();
        let now = Utc::now();
        let write = self.write(&ticket, Some(deadline), move |c| {
            Box::pin(async move {
                c.execute("UPDATE health_check SET checked_at = $1 WHERE id = 1", &[&now]).await?;
                Ok::<_, HealthError>(())
            })
        });
        match tokio::time::timeout_at(deadline.into(), write).await {
            Ok(Ok(())) => {
                if let Ok(mut h) = self.health.lock() {
                    *h = Some(Instant::now());
                }
                Ok(())
            }
            Ok(Err(HealthError(e))) => Err(e),
            Err(_) => {
                ticket.abandon();
                Err(StoreError::Unavailable(format!("a write did not complete within {HEALTH_WRITE_TIME:?}")))
            }
        }
    }

    /// The version of the static content (bumped by every import).
    pub async fn content_version(&self) -> Result<i64, StoreError> {
        Ok(self.content_versions().await?.content)
    }

    /// True when the store commits concurrent writes together itself (SQLite: its one writer
    /// commits a batch at once); else a caller with many small writes may group them.
    pub fn groups_commits(&self) -> bool {
        self.dialect() == SqlDialect::Sqlite
    }

    /// The versions of the static content, of the requestors and of the supply, in one
    /// statement.
    pub async fn content_versions(&self) -> Result<ContentVersions, StoreError> {
        // SQLite numbers the supply's changes with a counter, whose next number is the supply
        // position; PostgreSQL's position says nothing of whether the supply changed (see
        // `hotels::repo::supply::supply_position`).
        let sql = match self.dialect() {
            SqlDialect::Sqlite => {
                "SELECT version AS content, requestors_version AS requestors, supply_version + 1 AS supply FROM content_version WHERE id = 1"
            }
            SqlDialect::Postgres => {
                "SELECT version AS content, requestors_version AS requestors, NULL::bigint AS supply FROM content_version WHERE id = 1"
            }
        };
        self.peek(move |c| Box::pin(async move { c.query_one(sql, &[]).await })).await
    }
}

row! {
    /// The versions of what every gateway keeps in memory: the static content (moved on by
    /// every import), the requestors (moved on by every requestor change) and, where the store
    /// says, the supply's position (moved on by every supplier's notification that changed
    /// something; `None`: read the changes to know).
    pub struct ContentVersions {
        /// The static content's.
        content: i64,
        /// The requestors'.
        requestors: i64,
        /// The supply's position (SQLite), or `None` (PostgreSQL).
        supply: Option<i64>,
    }
}

/// Marks, inside a write transaction, that the requestors changed: every gateway reloads its
/// requestors (and nothing else).
pub async fn bump_requestors_version(c: &mut Conn<'_>) -> Result<(), StoreError> {
    let now = Utc::now();
    c.execute(
        "UPDATE content_version SET requestors_version = requestors_version + 1, changed_at = $1 WHERE id = 1",
        &[&now],
    )
    .await?;
    Ok(())
}

/// Marks, inside a write transaction, that the static content changed: every gateway reloads it.
pub async fn bump_content_version(c: &mut Conn<'_>) -> Result<(), StoreError> {
    let now = Utc::now();
    c.execute("UPDATE content_version SET version = version + 1, changed_at = $1 WHERE id = 1", &[&now]).await?;
    Ok(())
}

/// `f` run within `span` (wherever it runs).
fn in_span<T, E, F>(
    f: F,
    span: tracing::Span,
) -> impl for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>> + Send + 'static
where
    T: Send + 'static,
    E: Send + 'static,
    F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>> + Send + 'static,
{
    move |c: &mut Conn<'_>| -> BoxFuture<'_, Result<T, E>> { Box::pin(tracing::Instrument::instrument(f(c), span)) }
}

/// The health check's error type.
struct HealthError(StoreError);

impl From<StoreError> for HealthError {
    fn from(e: StoreError) -> Self {
        HealthError(e)
    }
}

impl From<Abandoned> for StoreError {
    fn from(_: Abandoned) -> Self {
        StoreError::Unavailable("the write was abandoned before it started".into())
    }
}

impl From<Abandoned> for HealthError {
    fn from(_: Abandoned) -> Self {
        HealthError(StoreError::Unavailable("the health check was abandoned".into()))
    }
}

/// A write for the SQLite writer thread: the closure, its outcome once run, and where to send it.
struct SqliteWrite<T, E, F> {
    f: Option<F>,
    out: Option<Result<T, E>>,
    tx: Option<tokio::sync::oneshot::Sender<Result<T, E>>>,
}

impl<T, E, F> sqlite::WriteJob for SqliteWrite<T, E, F>
where
    T: Send,
    E: From<StoreError> + From<Abandoned> + Send,
    F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>> + Send,
{
    fn run(&mut self, conn: &mut rusqlite::Connection) -> bool {
        let Some(f) = self.f.take() else { return false };
        let out = {
            let mut c = Conn::sqlite(conn);
            sqlite::run_ready(f(&mut c))
        };
        let ok = out.is_ok();
        self.out = Some(out);
        ok
    }

    fn finish(mut self: Box<Self>, commit: Result<(), StoreError>) {
        let outcome = match (self.out.take(), commit) {
            (Some(Err(e)), _) => Err(e),
            (Some(Ok(v)), Ok(())) => Ok(v),
            (Some(Ok(_)), Err(e)) | (None, Err(e)) => Err(e.into()),
            (None, Ok(())) => Err(StoreError::Unavailable("the write did not run".into()).into()),
        };
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(outcome);
        }
    }

    fn abandon(mut self: Box<Self>) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Err(Abandoned.into()));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn locations() {
        assert_eq!("./x.db".parse::<Location>().unwrap(), Location::Sqlite("./x.db".into()));
        assert_eq!("sqlite:/tmp/x.db".parse::<Location>().unwrap(), Location::Sqlite("/tmp/x.db".into()));
        assert_eq!(
            "postgres://u:secret@h/db".parse::<Location>().unwrap(),
            Location::Postgres("postgres://u:secret@h/db".into())
        );
        assert!(!"postgres://u:secret@h/db".parse::<Location>().unwrap().to_string().contains("secret"));
        assert!("".parse::<Location>().is_err());
    }

    #[test]
    fn the_statement_cache_parameter_is_the_gateways_own() {
        use sql::Statements;
        let (c, statements) =
            postgres::parse_url("postgres://u:secret@h:6432/db?statement_cache=off&sslmode=disable").unwrap();
        assert_eq!(statements, Statements::Unnamed);
        assert_eq!((c.get_dbname(), c.get_ports()), (Some("db"), &[6432][..]));
        assert_eq!(c.get_ssl_mode(), tokio_postgres::config::SslMode::Disable);
        assert_eq!(postgres::parse_url("postgres://u@h/db").unwrap().1, Statements::Cached);
        assert_eq!(postgres::parse_url("postgres://u@h/db?statement_cache=on").unwrap().1, Statements::Cached);
        assert!(postgres::parse_url("postgres://u@h/db?statement_cache=no").unwrap_err().contains("on or off"));
        assert!(
            postgres::parse_url("postgres://u@h/db?pool=1").is_err(),
            "tokio-postgres's parameters are checked as before"
        );
        let shown = Location::Postgres("postgres://u:secret@h/db?statement_cache=off".into()).to_string();
        assert_eq!(shown, "postgres://u@h/db");
    }

    #[test]
    fn a_ticket_is_either_started_or_abandoned() {
        let t = Ticket::new();
        assert!(t.start());
        assert!(!t.abandon(), "a started write cannot be abandoned");
        assert!(t.start());
        let t = Ticket::new();
        assert!(t.abandon());
        assert!(!t.start(), "an abandoned write never starts");
    }
}
