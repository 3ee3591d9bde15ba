//! The one SQL interface of the repos: a [`Conn`] runs a statement written once, with `$1`,
//! `$2`, … placeholders, on either backend, its values bound and its rows read as
//! [`values`](super::values) says.
//!
//! Why not an existing abstraction: sqlx's `Any` driver carries neither dates nor decimals and
//! runs SQLite on a worker thread per connection (a thread hand-off per statement); diesel's
//! multi-backend support needs a schema DSL for every statement. What is needed here is small:
//! placeholders, a dozen value types, named rows.

use tokio_postgres::types::{ToSql, Type};

use super::StoreError;
use super::values::{FromRow, Param, Row, Scalar};

/// The SQL dialect of a connection, for the rare statement that must differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDialect {
    /// SQLite 3.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// How statements are sent to PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Statements {
    /// Prepared once per connection under a name and kept (deadpool's statement cache): each
    /// later run only binds and executes, on a plan the server may keep. Needs the statement
    /// to be on whichever server connection runs it: a direct connection, a pooler in session
    /// mode, or one that carries prepared statements across its server connections (PgBouncer
    /// 1.21 and later with `max_prepared_statements` set). The default.
    Cached,
    /// Parsed, bound and executed in one round trip as the unnamed statement, with the
    /// parameters' types given: nothing outlives the statement on the server, so a pooler in
    /// transaction mode may hand each transaction (and each statement outside one) another
    /// server connection. Each run is parsed and planned again. `statement_cache=off` in the
    /// URL.
    Unnamed,
}

/// A connection (inside a transaction) of either backend.
pub struct Conn<'c> {
    inner: Inner<'c>,
    /// A PostgreSQL write transaction: its `SELECT`s may lock rows ([`Conn::for_update`]).
    writes: bool,
    /// What this PostgreSQL transaction already holds, so that asking again costs no round
    /// trip: its supply change number, once asked for.
    change: Option<i64>,
    /// The hotel supply locks it holds exclusively, taken outside any part (a part undone
    /// releases the locks taken in it), in order.
    held: Vec<i64>,
    /// A part ([`Conn::begin_part`]) is open.
    in_part: bool,
    /// The catalogue lock this PostgreSQL transaction holds outside any part: `Some(true)`
    /// exclusive, `Some(false)` shared.
    catalogue: Option<bool>,
    /// Statements to send ahead of the next one (see [`Conn::execute_later`]).
    later: Vec<Later>,
}

/// A statement whose outcome nothing waits for, sent ahead of the next one of its transaction
/// (see [`Conn::execute_later`]).
struct Later {
    sql: &'static str,
    params: Vec<Box<dyn Param + Send>>,
}

enum Inner<'c> {
    Sqlite(&'c mut rusqlite::Connection),
    Postgres(&'c deadpool_postgres::Transaction<'c>, Statements),
    /// A PostgreSQL connection outside any transaction (each statement on its own).
    PostgresClient(&'c deadpool_postgres::ClientWrapper, Statements),
}

/// The PostgreSQL advisory lock key of the catalogue lock (see [`Conn::lock_catalogue`]).
pub const CATALOGUE_LOCK: i64 = 0x4f54_415f_4341_5401; // "OTA_CAT\x01"

/// The PostgreSQL advisory lock key of the outbox's takes (see [`Conn::lock_takes`]).
pub const TAKES_LOCK: i64 = 0x4f54_415f_4f42_5801; // "OTA_OBX\x01"

/// A number sequence of the schema: each call of [`Conn::next_in`] gives a number never given
/// before (on SQLite a counter row, as writes are one at a time; on PostgreSQL a sequence, so
/// writers on many gateways never wait for each other).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sequence {
    /// The revision every write of a hotel booking takes (`hotel_booking_revision`).
    HotelBookingRevision,
}

impl Sequence {
    /// Its table (SQLite) or sequence (PostgreSQL).
    fn name(self) -> &'static str {
        match self {
            Sequence::HotelBookingRevision => "hotel_booking_revision",
        }
    }
}

impl<'c> Conn<'c> {
    /// The next number of a sequence (see [`Sequence`]), inside the caller's transaction.
    pub async fn next_in(&mut self, sequence: Sequence) -> Result<i64, StoreError> {
        let name = sequence.name();
        let Scalar(n) = match self.dialect() {
            SqlDialect::Sqlite => {
                self.query_one(&format!("UPDATE {name} SET value = value + 1 WHERE id = 1 RETURNING value"), &[])
                    .await?
            }
            SqlDialect::Postgres => self.query_one(&format!("SELECT nextval('{name}')"), &[]).await?,
        };
        Ok(n)
    }

    fn new(inner: Inner<'c>, writes: bool) -> Self {
        Conn { inner, writes, change: None, held: Vec::new(), in_part: false, catalogue: None, later: Vec::new() }
    }

    /// A SQLite connection (the caller holds the transaction).
    pub(crate) fn sqlite(conn: &'c mut rusqlite::Connection) -> Self {
        Conn::new(Inner::Sqlite(conn), false)
    }

    /// A PostgreSQL write transaction.
    pub(crate) fn postgres(tx: &'c deadpool_postgres::Transaction<'c>, statements: Statements) -> Self {
        Conn::new(Inner::Postgres(tx, statements), true)
    }

    /// A PostgreSQL read-only transaction.
    pub(crate) fn postgres_read(tx: &'c deadpool_postgres::Transaction<'c>, statements: Statements) -> Self {
        Conn::new(Inner::Postgres(tx, statements), false)
    }

    /// A PostgreSQL connection outside any transaction.
    pub(crate) fn postgres_client(client: &'c deadpool_postgres::ClientWrapper, statements: Statements) -> Self {
        Conn::new(Inner::PostgresClient(client, statements), false)
    }

    /// The dialect of the connection.
    pub fn dialect(&self) -> SqlDialect {
        match self.inner {
            Inner::Sqlite(_) => SqlDialect::Sqlite,
            Inner::Postgres(..) | Inner::PostgresClient(..) => SqlDialect::Postgres,
        }
    }

    /// Runs a query and reads every row.
    pub async fn query<R: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<R>, StoreError> {
        let span = statement_span(sql, self.dialect());
        tracing::Instrument::instrument(self.run_query(sql, params), span).await
    }

    async fn run_query<R: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<R>, StoreError> {
        // The statement, never its values (a parameter may be a password hash or a name).
        tracing::trace!(sql, "query");
        match &mut self.inner {
            Inner::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                bind_sqlite(&mut stmt, params)?;
                let mut rows = stmt.raw_query();
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(R::from_row(&Row::Sqlite(row))?);
                }
                Ok(out)
            }
            Inner::Postgres(tx, Statements::Cached) => {
                let stmt = tx.prepare_cached(sql).await?;
                let values = values(params);
                let rows =
                    after(tx, Statements::Cached, std::mem::take(&mut self.later), tx.query(&stmt, &values)).await?;
                rows.iter().map(|r| R::from_row(&Row::Postgres(r))).collect()
            }
            Inner::Postgres(tx, Statements::Unnamed) => {
                let typed = typed(params);
                let rows = after(tx, Statements::Unnamed, std::mem::take(&mut self.later), tx.query_typed(sql, &typed))
                    .await?;
                rows.iter().map(|r| R::from_row(&Row::Postgres(r))).collect()
            }
            Inner::PostgresClient(client, Statements::Cached) => {
                let stmt = client.prepare_cached(sql).await?;
                let rows = client.query(&stmt, &values(params)).await?;
                rows.iter().map(|r| R::from_row(&Row::Postgres(r))).collect()
            }
            Inner::PostgresClient(client, Statements::Unnamed) => {
                let rows = client.query_typed(sql, &typed(params)).await?;
                rows.iter().map(|r| R::from_row(&Row::Postgres(r))).collect()
            }
        }
    }

    /// Runs a query that gives at most one row.
    pub async fn query_opt<R: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Option<R>, StoreError> {
        let mut rows = self.query(sql, params).await?;
        match rows.len() {
            0 | 1 => Ok(rows.pop()),
            n => Err(StoreError::Data(format!("{n} rows where at most one was expected"))),
        }
    }

    /// Runs a query that gives exactly one row.
    pub async fn query_one<R: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<R, StoreError> {
        self.query_opt(sql, params).await?.ok_or_else(|| StoreError::Data("no row where one was expected".into()))
    }

    /// Runs a statement; gives the number of rows it changed.
    pub async fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> Result<u64, StoreError> {
        let span = statement_span(sql, self.dialect());
        tracing::Instrument::instrument(self.run_execute(sql, params), span).await
    }

    async fn run_execute(&mut self, sql: &str, params: &[&dyn Param]) -> Result<u64, StoreError> {
        tracing::trace!(sql, "execute");
        match &mut self.inner {
            Inner::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                bind_sqlite(&mut stmt, params)?;
                Ok(stmt.raw_execute()? as u64)
            }
            Inner::Postgres(tx, Statements::Cached) => {
                let stmt = tx.prepare_cached(sql).await?;
                let values = values(params);
                after(tx, Statements::Cached, std::mem::take(&mut self.later), tx.execute(&stmt, &values)).await
            }
            Inner::Postgres(tx, Statements::Unnamed) => {
                let typed = typed(params);
                after(tx, Statements::Unnamed, std::mem::take(&mut self.later), tx.execute_typed(sql, &typed)).await
            }
            Inner::PostgresClient(client, Statements::Cached) => {
                let stmt = client.prepare_cached(sql).await?;
                Ok(client.execute(&stmt, &values(params)).await?)
            }
            Inner::PostgresClient(client, Statements::Unnamed) => Ok(client.execute_typed(sql, &typed(params)).await?),
        }
    }

    /// Runs a statement whose outcome nothing waits for (a row written, a lock taken) with the
    /// next statement of the transaction: on PostgreSQL it is sent ahead of the next one (or
    /// before the commit), both in one round trip, and a failure of it fails that next
    /// statement (the transaction is then rolled back); on SQLite, and outside a transaction,
    /// it runs now. For writes whose failure is a plain store error only.
    pub async fn execute_later(
        &mut self,
        sql: &'static str,
        params: Vec<Box<dyn Param + Send>>,
    ) -> Result<(), StoreError> {
        if let Inner::Postgres(..) = self.inner {
            self.later.push(Later { sql, params });
            return Ok(());
        }
        let params: Vec<&dyn Param> = params.iter().map(|p| &**p as &dyn Param).collect();
        self.execute(sql, &params).await.map(drop)
    }

    /// Sends the statements held for later ([`Conn::execute_later`]) now: before a commit, or
    /// where a lock must be waited for before anything else happens.
    pub(crate) async fn flush(&mut self) -> Result<(), StoreError> {
        if let Inner::Postgres(tx, statements) = &self.inner
            && !self.later.is_empty()
        {
            after(tx, *statements, std::mem::take(&mut self.later), std::future::ready(Ok(()))).await?;
        }
        Ok(())
    }

    /// True when each statement is a round trip to a server (PostgreSQL): a caller that writes
    /// many rows then writes them in one statement (arrays, `UNNEST`); on SQLite a statement
    /// costs no round trip.
    pub fn statements_travel(&self) -> bool {
        self.dialect() == SqlDialect::Postgres
    }

    /// `column` is none of the numbers of the array parameter `$n` (a [`Vec`] of `i64`): a
    /// condition for a `WHERE` clause.
    pub fn not_among(&self, column: &str, n: usize) -> String {
        match self.dialect() {
            SqlDialect::Sqlite => format!("{column} NOT IN (SELECT CAST(value AS INTEGER) FROM json_each(${n}))"),
            SqlDialect::Postgres => format!("NOT {column} = ANY(${n})"),
        }
    }

    /// The supply's change feed (issue 32): the number the changes of this write transaction
    /// carry. SQLite: the counter `content_version.supply_version` moved on (the one writer
    /// holds it until it commits); PostgreSQL: the transaction's own id (nothing shared, so
    /// notifications of different hotels never wait for each other).
    pub async fn supply_change_number(&mut self) -> Result<i64, StoreError> {
        // PostgreSQL's is the same for the whole transaction: asked once.
        if let Some(v) = self.change {
            return Ok(v);
        }
        let sql = match self.dialect() {
            SqlDialect::Sqlite => {
                "UPDATE content_version SET supply_version = supply_version + 1 WHERE id = 1 RETURNING supply_version"
            }
            SqlDialect::Postgres => "SELECT pg_current_xact_id()::text::bigint",
        };
        let Scalar(v) = self.query_one(sql, &[]).await?;
        if self.dialect() == SqlDialect::Postgres {
            self.change = Some(v);
        }
        Ok(v)
    }

    /// The supply's change feed: a position every change numbered below which is visible to this
    /// statement and every later one. SQLite: the counter plus one; PostgreSQL: the oldest
    /// transaction id still running (`pg_snapshot_xmin`): transactions end in any order, so the
    /// changes at or above it are read again until the reader knows it has them.
    pub async fn supply_position(&mut self) -> Result<i64, StoreError> {
        let sql = match self.dialect() {
            SqlDialect::Sqlite => "SELECT supply_version + 1 FROM content_version WHERE id = 1",
            SqlDialect::Postgres => "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
        };
        let Scalar(v) = self.query_one(sql, &[]).await?;
        Ok(v)
    }

    /// Starts a part of the transaction that can be undone alone (`SAVEPOINT part`; parts do
    /// not nest): see [`Conn::end_part`].
    pub async fn begin_part(&mut self) -> Result<(), StoreError> {
        self.execute("SAVEPOINT part", &[]).await?;
        self.in_part = true;
        Ok(())
    }

    /// Ends the part [`begun`](Conn::begin_part): kept (`RELEASE`), or undone with everything
    /// written since it began (`ROLLBACK TO`), the transaction going on.
    pub async fn end_part(&mut self, keep: bool) -> Result<(), StoreError> {
        let sql = if keep { "RELEASE SAVEPOINT part" } else { "ROLLBACK TO SAVEPOINT part" };
        self.in_part = false;
        self.execute(sql, &[]).await.map(drop)
    }

    /// The clause that makes a `SELECT` lock the rows it gives of the table aliased `alias` and
    /// pass over those another transaction has locked (PostgreSQL: `FOR UPDATE OF alias SKIP
    /// LOCKED`, so that gateways taking work from one table never wait for each other); empty on
    /// SQLite, whose write transactions run one at a time.
    pub fn skip_locked(&self, alias: &str) -> String {
        match self.dialect() {
            SqlDialect::Sqlite => String::new(),
            SqlDialect::Postgres => format!("FOR UPDATE OF {alias} SKIP LOCKED"),
        }
    }

    /// The clause that makes a `SELECT` lock the rows it gives until the transaction ends, so
    /// that what the transaction reads next (in other statements) belongs to the same version
    /// of them: `FOR UPDATE` in a PostgreSQL write transaction (whose statements each see the
    /// latest commit); empty elsewhere (SQLite's write transactions run one at a time, and
    /// PostgreSQL's reads run in one snapshot).
    pub fn for_update(&self) -> &'static str {
        if self.writes { "FOR UPDATE" } else { "" }
    }

    /// Takes the catalogue lock: shared by bookings (which may run together), exclusive for an
    /// import, so an import never removes a product or service under a booking being made and
    /// a booking never lands on one an import is removing. On SQLite every write transaction
    /// already holds the database's single write lock, so this does nothing.
    pub async fn lock_catalogue(&mut self, exclusive: bool) -> Result<(), StoreError> {
        const KEY: i64 = CATALOGUE_LOCK;
        match &self.inner {
            Inner::Sqlite(_) => Ok(()),
            Inner::Postgres(..) => {
                // Held already (as strongly): nothing to ask for.
                if self.catalogue.is_some_and(|held| held || !exclusive) {
                    return Ok(());
                }
                // A transaction-level lock, released by its COMMIT or ROLLBACK: it never
                // outlives the transaction on a pooled server connection. Sent with the next
                // statement, which it thus precedes.
                let sql = if exclusive {
                    "SELECT pg_advisory_xact_lock($1)"
                } else {
                    "SELECT pg_advisory_xact_lock_shared($1)"
                };
                self.later.push(Later { sql, params: vec![Box::new(KEY)] });
                if !self.in_part {
                    self.catalogue = Some(exclusive);
                }
                Ok(())
            }
            Inner::PostgresClient(..) => Err(StoreError::Data("the catalogue lock is taken in a transaction".into())),
        }
    }

    /// Takes, until the end of the transaction, the lock that makes the outbox's takes (of the
    /// events due, every gateway's) run one at a time: what one take counts as held (a supplier's
    /// share) then includes every take committed before, and an event committed late with an
    /// early place in the order cannot be counted by two takes at once. Sent with the next
    /// statement, whose snapshot is thus taken once the lock is held. SQLite's write
    /// transactions already run one at a time.
    pub async fn lock_takes(&mut self) -> Result<(), StoreError> {
        match &self.inner {
            Inner::Sqlite(_) => Ok(()),
            Inner::Postgres(..) => {
                self.later.push(Later { sql: "SELECT pg_advisory_xact_lock($1)", params: vec![Box::new(TAKES_LOCK)] });
                Ok(())
            }
            Inner::PostgresClient(..) => {
                Err(StoreError::Data("the outbox's take lock is taken in a transaction".into()))
            }
        }
    }

    /// Takes, until the end of the transaction, each hotel's supply lock: shared by every
    /// booking change that takes its rooms, exclusive for a supplier's notification of it. A
    /// notification thus sees every booking committed before it and none half-way, and a
    /// booking after it sees the rooms on sale it set. Taken in code order (no deadlock between
    /// writers naming several), in one statement; those the transaction already holds
    /// exclusively are not asked for again. SQLite needs none (one writer at a time).
    pub async fn lock_hotels(&mut self, hotels: &[&str], exclusive: bool) -> Result<(), StoreError> {
        match &self.inner {
            Inner::Postgres(..) => {}
            Inner::Sqlite(_) => return Ok(()),
            _ => return Err(StoreError::Data("a hotel's supply lock is taken in a transaction".into())),
        }
        let mut keys: Vec<i64> =
            hotels.iter().map(|h| hotel_lock_key(h)).filter(|k| self.held.binary_search(k).is_err()).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() {
            return Ok(());
        }
        // `unnest` gives the keys in the array's order: the locks are taken in it. Sent with the
        // next statement, which they thus precede.
        let sql = if exclusive {
            "SELECT pg_advisory_xact_lock(k) FROM unnest($1::int8[]) AS k"
        } else {
            "SELECT pg_advisory_xact_lock_shared(k) FROM unnest($1::int8[]) AS k"
        };
        if exclusive && !self.in_part {
            self.held.extend(&keys);
            self.held.sort_unstable();
        }
        self.later.push(Later { sql, params: vec![Box::new(keys)] });
        Ok(())
    }
}

/// The span of one statement of a request (exported with `serve --otlp-endpoint`, see
/// [`crate::telemetry`]): its first words, never its values; debug level, so that without the
/// exporter no span is made. The gateway's own background statements (the content polls) make
/// none: each would be a trace of its own.
fn statement_span(sql: &str, dialect: SqlDialect) -> tracing::Span {
    if tracing::Span::current().is_none() {
        return tracing::Span::none();
    }
    let system = match dialect {
        SqlDialect::Sqlite => "sqlite",
        SqlDialect::Postgres => "postgresql",
    };
    let mut end = sql.len().min(80);
    while !sql.is_char_boundary(end) {
        end -= 1;
    }
    let words: String = sql[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    tracing::debug_span!("db", db.system = system, db.statement = %words)
}

/// The advisory lock key of a hotel's supply: FNV-1a of its code (stable across builds, so
/// gateways of different versions agree), in a range of its own (top byte `0x48`, "H").
fn hotel_lock_key(code: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in code.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    i64::from_be_bytes(((hash & 0x00ff_ffff_ffff_ffff) | 0x4800_0000_0000_0000).to_be_bytes())
}

/// Runs `then` (a statement's future, not yet polled) after the statements held for later, all
/// sent at once, in order (tokio-postgres pipelines the requests of futures polled together):
/// one round trip. A failure of one held statement is the error (the statements after it fail
/// too, the transaction being aborted).
async fn after<T>(
    tx: &deadpool_postgres::Transaction<'_>,
    statements: Statements,
    later: Vec<Later>,
    then: impl std::future::Future<Output = Result<T, tokio_postgres::Error>> + Send,
) -> Result<T, StoreError> {
    if later.is_empty() {
        return Ok(then.await?);
    }
    let mut prepared = Vec::with_capacity(later.len());
    if statements == Statements::Cached {
        for l in &later {
            prepared.push(tx.prepare_cached(l.sql).await?);
        }
    }
    let params: Vec<Vec<&dyn Param>> =
        later.iter().map(|l| l.params.iter().map(|p| &**p as &dyn Param).collect()).collect();
    // The values as the mode sends them: bare for a prepared statement, typed for an unnamed one.
    let (values, typed): (Vec<_>, Vec<_>) = match statements {
        Statements::Cached => (params.iter().map(|p| values(p)).collect(), Vec::new()),
        Statements::Unnamed => (Vec::new(), params.iter().map(|p| typed(p)).collect()),
    };
    let sent = later.iter().enumerate().map(|(i, l)| -> futures_util::future::BoxFuture<'_, _> {
        match statements {
            Statements::Cached => Box::pin(tx.execute(&prepared[i], &values[i])),
            Statements::Unnamed => Box::pin(tx.execute_typed(l.sql, &typed[i])),
        }
    });
    let (_, out) = futures_util::future::try_join(futures_util::future::try_join_all(sent), then).await?;
    Ok(out)
}

/// The PostgreSQL values of parameters (for a prepared statement: the server gave their types).
fn values<'p>(params: &[&'p dyn Param]) -> Vec<&'p (dyn ToSql + Sync)> {
    params.iter().map(|p| p.to_postgres()).collect()
}

/// The PostgreSQL values of parameters with their types (for an unnamed statement).
fn typed<'p>(params: &[&'p dyn Param]) -> Vec<(&'p (dyn ToSql + Sync), Type)> {
    params.iter().map(|p| (p.to_postgres(), p.postgres_type())).collect()
}

/// Binds `$k` to `params[k - 1]`. SQLite numbers `$k` parameters in the order they first
/// appear (not by `k`), so each parameter is bound by its name; no statement is rewritten.
fn bind_sqlite(stmt: &mut rusqlite::CachedStatement<'_>, params: &[&dyn Param]) -> Result<(), StoreError> {
    let count = stmt.parameter_count();
    let mut highest = 0;
    for i in 1..=count {
        let k = stmt
            .parameter_name(i)
            .and_then(|name| name.strip_prefix('$'))
            .and_then(|k| k.parse::<usize>().ok())
            .ok_or_else(|| StoreError::Data(format!("parameter {i} of a statement is not of the form $k")))?;
        let p = params
            .get(k.wrapping_sub(1))
            .ok_or_else(|| StoreError::Data(format!("the statement uses ${k}; {} values were given", params.len())))?;
        stmt.raw_bind_parameter(i, p.to_sqlite())?;
        highest = highest.max(k);
    }
    if highest != params.len() {
        return Err(StoreError::Data(format!(
            "the statement uses {highest} parameters, {} values were given",
            params.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn parameters_are_bound_by_their_number_in_any_order() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        let mut c = Conn::sqlite(&mut conn);
        let run = |c: &mut Conn<'_>, sql: &'static str, params: &[&dyn Param]| {
            let fut = c.query::<Scalar<String>>(sql, params);
            let mut fut = std::pin::pin!(fut);
            match fut.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
                std::task::Poll::Ready(r) => r,
                std::task::Poll::Pending => panic!("SQLite never waits"),
            }
        };
        let rows = run(&mut c, "SELECT $2 || '-' || $1 || '-' || $2", &[&"a", &"b"]).unwrap();
        assert_eq!(rows[0].0, "b-a-b");
        assert!(run(&mut c, "SELECT $1 || $2", &[&"a"]).is_err(), "too few values");
        assert!(run(&mut c, "SELECT $1", &[&"a", &"b"]).is_err(), "too many values");
        assert!(run(&mut c, "SELECT ?1", &[&"a"]).is_err(), "only $k parameters");
    }
}
