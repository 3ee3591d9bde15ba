//! The PostgreSQL backend: a pool of connections (deadpool-postgres), for many gateway
//! instances on one database.
//!
//! - **Reads** run in a `REPEATABLE READ READ ONLY` transaction (one consistent snapshot).
//! - **Writes** run in a `READ COMMITTED` transaction in a task of their own, so that once the
//!   commit is sent its outcome is always waited for, whatever happens to the request. Just
//!   before `COMMIT` the request's [`Ticket`] is checked: a write whose request gave up (its
//!   deadline passed) is rolled back instead. Lock waits are bounded by the time the request
//!   has left, plus [`LOCK_WAIT_GRACE`] (`lock_timeout` set for the transaction alone, sent with
//!   its first statement); a write that fails after its
//!   deadline is answered as the time-out is.
//!
//! Concurrency control is in the statements themselves (conditional updates, unique keys,
//! `ON CONFLICT`), plus the catalogue lock ([`super::Conn::lock_catalogue`]).
//!
//! Round trips are what a write costs most (issue 32): locks and writes whose outcome nothing
//! waits for are sent ahead of the next statement, in one round trip with it
//! ([`super::Conn::execute_later`]).
//!
//! Nothing outlives a transaction but the statements the connections prepare and keep (the
//! default): no session setting (transaction-local ones only), no session lock (`pg_advisory_xact_lock`
//! only), no `LISTEN` (the content is polled), no temporary table. With `statement_cache=off`
//! in the URL ([`parse_url`]) not even those, so a pooler in transaction mode (PgBouncer) may
//! run each transaction, and each statement outside one, on a server connection of its choosing.

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Timeouts};
use futures_util::future::BoxFuture;
use tokio_postgres::NoTls;

use super::sql::{Conn, Statements};
use super::{StoreError, Ticket};

/// Connections per gateway process.
const POOL_SIZE: usize = 32;

/// How long a request waits for a pooled connection before it is answered as unavailable.
const POOL_WAIT: Duration = Duration::from_secs(10);

/// How much longer than the request's time left a write's lock waits may last: the request's
/// own time-out answers first ("not processed", 408), and the wait then ends soon after.
const LOCK_WAIT_GRACE: Duration = Duration::from_millis(500);

/// The PostgreSQL backend.
#[derive(Clone)]
pub(crate) struct Postgres {
    pool: Pool,
    shown: String,
    statements: Statements,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Postgres").field("database", &self.shown).finish_non_exhaustive()
    }
}

impl Postgres {
    /// Connects a pool to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`,
    /// with the parameters of [`parse_url`]).
    pub(crate) async fn connect(url: &str) -> Result<Postgres, StoreError> {
        let (mut config, statements) =
            parse_url(url).map_err(|e| StoreError::Unavailable(format!("invalid PostgreSQL URL: {e}")))?;
        if config.get_application_name().is_none() {
            config.application_name("ota-gateway");
        }
        config.connect_timeout(Duration::from_secs(10));
        let shown = super::postgres_describe(&config);
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .timeouts(Timeouts {
                wait: Some(POOL_WAIT),
                create: Some(Duration::from_secs(10)),
                recycle: Some(Duration::from_secs(5)),
            })
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::Pool(e.to_string()))?;
        let postgres = Postgres { pool, shown, statements };
        // Fail at start, not at the first request, when the database cannot be reached.
        drop(postgres.client().await?);
        Ok(postgres)
    }

    /// `user@host/db`.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(|e| StoreError::Pool(e.to_string()))
    }

    /// Runs `f` in a read-only snapshot transaction.
    pub(crate) async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        let mut client = self.client().await?;
        let tx = client
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .map_err(StoreError::from)?;
        let out = {
            let mut conn = Conn::postgres_read(&tx, self.statements);
            f(&mut conn).await
        };
        match out {
            Ok(v) => {
                tx.commit().await.map_err(StoreError::from)?;
                Ok(v)
            }
            Err(e) => {
                let _ = tx.rollback().await;
                Err(e)
            }
        }
    }

    /// Runs `f` outside any transaction: each statement on its own.
    pub(crate) async fn peek<T, E, F>(&self, f: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        let client = self.client().await?;
        let mut conn = Conn::postgres_client(&client, self.statements);
        f(&mut conn).await
    }

    /// Runs `f` in a write transaction and commits it unless the ticket was abandoned first.
    /// `Ok(Err(e))`: the write itself failed (rolled back); `Err`: it was abandoned or the
    /// database failed.
    pub(crate) async fn write<T, E, F>(
        &self,
        ticket: Arc<Ticket>,
        deadline: Option<Instant>,
        f: F,
    ) -> Result<Result<T, E>, Unwritten>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        let mut client = self.client().await.map_err(Unwritten::Store)?;
        if ticket.is_abandoned() {
            return Err(Unwritten::Abandoned);
        }
        let tx = client.transaction().await.map_err(|e| Unwritten::Store(e.into()))?;
        let out = {
            let mut conn = Conn::postgres(&tx, self.statements);
            let timeout = match deadline {
                // Sent with the transaction's first statement.
                Some(deadline) => {
                    let ms = (deadline.saturating_duration_since(Instant::now()) + LOCK_WAIT_GRACE)
                        .as_millis()
                        .clamp(1, 3_600_000);
                    conn.execute_later("SELECT set_config('lock_timeout', $1, true)", vec![Box::new(ms.to_string())])
                        .await
                }
                None => Ok(()),
            };
            match timeout {
                Ok(()) => match f(&mut conn).await {
                    // What was held for later goes before the commit.
                    Ok(v) => conn.flush().await.map(|()| v).map_err(E::from),
                    Err(e) => Err(e),
                },
                Err(e) => Err(E::from(e)),
            }
        };
        match out {
            Ok(v) => {
                if !ticket.start() {
                    let _ = tx.rollback().await;
                    return Err(Unwritten::Abandoned);
                }
                tx.commit().await.map_err(|e| Unwritten::Store(commit_failure(e)))?;
                Ok(Ok(v))
            }
            Err(e) => {
                let _ = tx.rollback().await;
                // Failed after its time ran out (a lock wait that timed out, say): the request
                // is answered as timed out, which is true: nothing was stored.
                if deadline.is_some_and(|d| Instant::now() >= d) && ticket.abandon() {
                    return Err(Unwritten::Abandoned);
                }
                Ok(Err(e))
            }
        }
    }
}

/// The gateway's own parameter of a PostgreSQL URL: `statement_cache=on` (the default) prepares
/// each statement once per connection and keeps it ([`Statements::Cached`]); `off` sends each
/// one unnamed, parsed and planned every time ([`Statements::Unnamed`]), for a pooler in
/// transaction mode that does not carry prepared statements from one server connection to
/// another (PgBouncer before 1.21, or with `max_prepared_statements = 0`).
pub(crate) const STATEMENT_CACHE: &str = "statement_cache";

/// Reads a `postgres://` URL: the connection settings (every parameter but the gateway's own,
/// as tokio-postgres reads them: `sslmode`, `application_name`, …) and how statements are sent
/// ([`STATEMENT_CACHE`]).
pub(crate) fn parse_url(url: &str) -> Result<(tokio_postgres::Config, Statements), String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut statements = Statements::Cached;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some((STATEMENT_CACHE, "on")) => statements = Statements::Cached,
            Some((STATEMENT_CACHE, "off")) => statements = Statements::Unnamed,
            Some((STATEMENT_CACHE, other)) => return Err(format!("{STATEMENT_CACHE}={other}: on or off")),
            _ => rest.push(pair),
        }
    }
    let url = if rest.is_empty() { base.to_string() } else { format!("{base}?{}", rest.join("&")) };
    let config = tokio_postgres::Config::from_str(&url).map_err(|e| e.to_string())?;
    Ok((config, statements))
}

/// A failed `COMMIT`: refused by the server (it answered with an error: nothing was stored), or
/// in doubt (no answer: the connection broke after the commit was sent, so it may be stored).
fn commit_failure(e: tokio_postgres::Error) -> StoreError {
    if e.code().is_some() { e.into() } else { StoreError::InDoubt(e.to_string()) }
}

/// Why a write did not succeed, besides its own failure.
#[derive(Debug)]
pub(crate) enum Unwritten {
    /// The request gave up before the commit: nothing was stored.
    Abandoned,
    /// The database failed: nothing was stored, except for [`StoreError::InDoubt`] (not known).
    Store(StoreError),
}
