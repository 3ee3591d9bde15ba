//! Schema migrations, run at start by every process that opens the store. Safe when several
//! processes start at once on a fresh database: SQLite migrates inside an `IMMEDIATE`
//! transaction (the others wait for the write lock, then find the schema current); PostgreSQL
//! under an advisory lock.
//!
//! Each backend has its own numbered files (`gateway/migrations/sqlite/`,
//! `gateway/migrations/postgres/`) describing the same tables; a change adds one file to each.
//! Never edit a migration that has been released: add a new one. SQLite keeps the applied
//! number in `PRAGMA user_version` (as earlier releases did); PostgreSQL in
//! `schema_migration`.

use rusqlite::Connection;

use super::StoreError;

/// SQLite migrations, in order (`user_version` = how many are applied).
const SQLITE: &[&str] = &[
    include_str!("../../migrations/sqlite/0001_core.sql"),
    include_str!("../../migrations/sqlite/0002_activities.sql"),
    include_str!("../../migrations/sqlite/0003_hotels.sql"),
    include_str!("../../migrations/sqlite/0004_store.sql"),
    include_str!("../../migrations/sqlite/0005_booking_revision.sql"),
    include_str!("../../migrations/sqlite/0006_booking_lifecycle.sql"),
    include_str!("../../migrations/sqlite/0007_requestor_allow.sql"),
    include_str!("../../migrations/sqlite/0008_requestors_version.sql"),
    include_str!("../../migrations/sqlite/0009_time_zones.sql"),
    include_str!("../../migrations/sqlite/0010_requestor_dialect.sql"),
    include_str!("../../migrations/sqlite/0011_requestor_limits.sql"),
    include_str!("../../migrations/sqlite/0012_requestor_traffic.sql"),
    include_str!("../../migrations/sqlite/0013_requestor_traffic_requests.sql"),
    include_str!("../../migrations/sqlite/0014_requestor_rate_for.sql"),
    include_str!("../../migrations/sqlite/0015_suppliers.sql"),
    include_str!("../../migrations/sqlite/0016_supply.sql"),
    include_str!("../../migrations/sqlite/0017_outbox.sql"),
    include_str!("../../migrations/sqlite/0018_txlog.sql"),
];

/// PostgreSQL migrations, in order.
const POSTGRES: &[&str] = &[
    include_str!("../../migrations/postgres/0001_schema.sql"),
    include_str!("../../migrations/postgres/0002_booking_revision.sql"),
    include_str!("../../migrations/postgres/0003_booking_lifecycle.sql"),
    include_str!("../../migrations/postgres/0004_requestor_allow.sql"),
    include_str!("../../migrations/postgres/0005_requestors_version.sql"),
    include_str!("../../migrations/postgres/0006_time_zones.sql"),
    include_str!("../../migrations/postgres/0007_requestor_dialect.sql"),
    include_str!("../../migrations/postgres/0008_requestor_limits.sql"),
    include_str!("../../migrations/postgres/0009_requestor_traffic.sql"),
    include_str!("../../migrations/postgres/0010_requestor_traffic_requests.sql"),
    include_str!("../../migrations/postgres/0011_requestor_rate_for.sql"),
    include_str!("../../migrations/postgres/0012_suppliers.sql"),
    include_str!("../../migrations/postgres/0013_supply.sql"),
    include_str!("../../migrations/postgres/0014_outbox.sql"),
    include_str!("../../migrations/postgres/0015_txlog.sql"),
];

/// How many SQLite migrations this gateway has (the newest schema version it knows).
pub(crate) fn sqlite_versions() -> usize {
    SQLITE.len()
}

/// An arbitrary constant naming the migration lock.
const MIGRATION_LOCK: i64 = 0x4f54_415f_4d49_4701; // "OTA_MIG\x01"

/// Migrates a SQLite database to the current schema.
pub(crate) fn sqlite(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let applied: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let applied = usize::try_from(applied).map_err(|_| StoreError::Migration(format!("user_version {applied}")))?;
    if applied > SQLITE.len() {
        return Err(StoreError::Migration(format!(
            "the database has schema version {applied}, newer than this gateway's {}; use a newer gateway",
            SQLITE.len()
        )));
    }
    for (i, sql) in SQLITE.iter().enumerate().skip(applied) {
        tx.execute_batch(sql).map_err(|e| StoreError::Migration(format!("SQLite migration {}: {e}", i + 1)))?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
    }
    tx.commit()?;
    Ok(())
}

/// Migrates a PostgreSQL database to the current schema.
pub(crate) async fn postgres(client: &mut tokio_postgres::Client) -> Result<(), StoreError> {
    use tokio_postgres::types::Type;
    // Unnamed statements and a transaction-level lock only: nothing of the migration outlives
    // its transaction on the server connection (which a pooler in transaction mode may hand to
    // another client next).
    let tx = client.transaction().await?;
    tx.execute_typed("SELECT pg_advisory_xact_lock($1)", &[(&MIGRATION_LOCK, Type::INT8)]).await?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_migration (version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        .await?;
    let applied: i64 = tx.query_typed_one("SELECT coalesce(max(version), 0) FROM schema_migration", &[]).await?.get(0);
    let applied = usize::try_from(applied).map_err(|_| StoreError::Migration(format!("schema_migration {applied}")))?;
    if applied > POSTGRES.len() {
        return Err(StoreError::Migration(format!(
            "the database has schema version {applied}, newer than this gateway's {}; use a newer gateway",
            POSTGRES.len()
        )));
    }
    for (i, sql) in POSTGRES.iter().enumerate().skip(applied) {
        tx.batch_execute(sql)
            .await
            .map_err(|e| StoreError::Migration(format!("PostgreSQL migration {}: {e}", i + 1)))?;
        tx.execute_typed("INSERT INTO schema_migration (version) VALUES ($1)", &[(&((i + 1) as i64), Type::INT8)])
            .await?;
    }
    tx.commit().await?;
    Ok(())
}
