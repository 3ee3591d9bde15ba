//! Schema migrations. Every process that opens the store migrates it at start (unless `serve
//! --no-migrate`), safely when several processes start at once on a fresh database: SQLite
//! migrates inside an `IMMEDIATE` transaction (the others wait for the write lock, then find the
//! schema current); PostgreSQL under an advisory lock. `ota-gateway migrate` applies them alone
//! (and `--check` says whether some are pending, `--to N` stops at migration N).
//!
//! Each backend has its own numbered files (`gateway/migrations/sqlite/`,
//! `gateway/migrations/postgres/`) describing the same tables; a change adds one file to each.
//! Never edit a migration that has been released: add a new one. SQLite keeps the applied
//! number in `PRAGMA user_version` (as earlier releases did); PostgreSQL in
//! `schema_migration`.
//!
//! **Migrations are additive (expand, then contract a release later).** A release's migrations
//! only add tables, columns (nullable or with a default) and indexes; a table or column that the
//! new code no longer uses is dropped by a later release's migration, never by the release that
//! stops using it. So the previous release's binary still works on the new schema, which is what
//! a rolling upgrade needs (old and new gateways on one database while the migration runs), and
//! why a binary that finds a schema newer than it knows serves on it with a warning naming both
//! versions instead of refusing. `ota-gateway migrate` of an older binary on a newer schema
//! refuses and changes nothing.

use rusqlite::Connection;

use super::StoreError;

/// SQLite migrations, in order (`user_version` = how many are applied): file name, SQL.
const SQLITE: &[(&str, &str)] = &[
    ("0001_core.sql", include_str!("../../migrations/sqlite/0001_core.sql")),
    ("0002_activities.sql", include_str!("../../migrations/sqlite/0002_activities.sql")),
    ("0003_hotels.sql", include_str!("../../migrations/sqlite/0003_hotels.sql")),
    ("0004_store.sql", include_str!("../../migrations/sqlite/0004_store.sql")),
    ("0005_booking_revision.sql", include_str!("../../migrations/sqlite/0005_booking_revision.sql")),
    ("0006_booking_lifecycle.sql", include_str!("../../migrations/sqlite/0006_booking_lifecycle.sql")),
    ("0007_requestor_allow.sql", include_str!("../../migrations/sqlite/0007_requestor_allow.sql")),
    ("0008_requestors_version.sql", include_str!("../../migrations/sqlite/0008_requestors_version.sql")),
    ("0009_time_zones.sql", include_str!("../../migrations/sqlite/0009_time_zones.sql")),
    ("0010_requestor_dialect.sql", include_str!("../../migrations/sqlite/0010_requestor_dialect.sql")),
    ("0011_requestor_limits.sql", include_str!("../../migrations/sqlite/0011_requestor_limits.sql")),
    ("0012_requestor_traffic.sql", include_str!("../../migrations/sqlite/0012_requestor_traffic.sql")),
    (
        "0013_requestor_traffic_requests.sql",
        include_str!("../../migrations/sqlite/0013_requestor_traffic_requests.sql"),
    ),
    ("0014_requestor_rate_for.sql", include_str!("../../migrations/sqlite/0014_requestor_rate_for.sql")),
    ("0015_suppliers.sql", include_str!("../../migrations/sqlite/0015_suppliers.sql")),
    ("0016_supply.sql", include_str!("../../migrations/sqlite/0016_supply.sql")),
    ("0017_outbox.sql", include_str!("../../migrations/sqlite/0017_outbox.sql")),
    ("0018_txlog.sql", include_str!("../../migrations/sqlite/0018_txlog.sql")),
    ("0019_console.sql", include_str!("../../migrations/sqlite/0019_console.sql")),
    ("0020_booking_search.sql", include_str!("../../migrations/sqlite/0020_booking_search.sql")),
    ("0021_outbox_attempts.sql", include_str!("../../migrations/sqlite/0021_outbox_attempts.sql")),
    ("0022_traffic.sql", include_str!("../../migrations/sqlite/0022_traffic.sql")),
    ("0023_hotel_users.sql", include_str!("../../migrations/sqlite/0023_hotel_users.sql")),
    ("0024_supply_source.sql", include_str!("../../migrations/sqlite/0024_supply_source.sql")),
    ("0025_alerts.sql", include_str!("../../migrations/sqlite/0025_alerts.sql")),
    ("0029_console_hardening.sql", include_str!("../../migrations/sqlite/0029_console_hardening.sql")),
    ("0030_console_speed.sql", include_str!("../../migrations/sqlite/0030_console_speed.sql")),
    ("0031_outbox_attempt_started.sql", include_str!("../../migrations/sqlite/0031_outbox_attempt_started.sql")),
];

/// PostgreSQL migrations, in order: file name, SQL.
const POSTGRES: &[(&str, &str)] = &[
    ("0001_schema.sql", include_str!("../../migrations/postgres/0001_schema.sql")),
    ("0002_booking_revision.sql", include_str!("../../migrations/postgres/0002_booking_revision.sql")),
    ("0003_booking_lifecycle.sql", include_str!("../../migrations/postgres/0003_booking_lifecycle.sql")),
    ("0004_requestor_allow.sql", include_str!("../../migrations/postgres/0004_requestor_allow.sql")),
    ("0005_requestors_version.sql", include_str!("../../migrations/postgres/0005_requestors_version.sql")),
    ("0006_time_zones.sql", include_str!("../../migrations/postgres/0006_time_zones.sql")),
    ("0007_requestor_dialect.sql", include_str!("../../migrations/postgres/0007_requestor_dialect.sql")),
    ("0008_requestor_limits.sql", include_str!("../../migrations/postgres/0008_requestor_limits.sql")),
    ("0009_requestor_traffic.sql", include_str!("../../migrations/postgres/0009_requestor_traffic.sql")),
    (
        "0010_requestor_traffic_requests.sql",
        include_str!("../../migrations/postgres/0010_requestor_traffic_requests.sql"),
    ),
    ("0011_requestor_rate_for.sql", include_str!("../../migrations/postgres/0011_requestor_rate_for.sql")),
    ("0012_suppliers.sql", include_str!("../../migrations/postgres/0012_suppliers.sql")),
    ("0013_supply.sql", include_str!("../../migrations/postgres/0013_supply.sql")),
    ("0014_outbox.sql", include_str!("../../migrations/postgres/0014_outbox.sql")),
    ("0015_txlog.sql", include_str!("../../migrations/postgres/0015_txlog.sql")),
    ("0016_console.sql", include_str!("../../migrations/postgres/0016_console.sql")),
    ("0017_booking_search.sql", include_str!("../../migrations/postgres/0017_booking_search.sql")),
    ("0018_outbox_attempts.sql", include_str!("../../migrations/postgres/0018_outbox_attempts.sql")),
    ("0019_traffic.sql", include_str!("../../migrations/postgres/0019_traffic.sql")),
    ("0020_hotel_users.sql", include_str!("../../migrations/postgres/0020_hotel_users.sql")),
    ("0021_supply_source.sql", include_str!("../../migrations/postgres/0021_supply_source.sql")),
    ("0022_alerts.sql", include_str!("../../migrations/postgres/0022_alerts.sql")),
    ("0026_console_hardening.sql", include_str!("../../migrations/postgres/0026_console_hardening.sql")),
    ("0027_console_speed.sql", include_str!("../../migrations/postgres/0027_console_speed.sql")),
    ("0028_outbox_attempt_started.sql", include_str!("../../migrations/postgres/0028_outbox_attempt_started.sql")),
];

/// How many SQLite migrations this gateway has (the newest schema version it knows).
pub(crate) fn sqlite_versions() -> usize {
    SQLITE.len()
}

/// An arbitrary constant naming the migration lock.
const MIGRATION_LOCK: i64 = 0x4f54_415f_4d49_4701; // "OTA_MIG\x01"

/// The extra migration of an upgrade rehearsal ([`Plan::rehearsal`]): additive, as a release's
/// must be, and touched by no code (so a binary that does not know it works on it).
const REHEARSAL: (&str, &str) = (
    "rehearsal_upgrade_probe.sql",
    "CREATE TABLE upgrade_probe (id BIGINT PRIMARY KEY, note TEXT NOT NULL DEFAULT '')",
);

/// What to do with the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Apply the pending migrations; `false`: only read the version (and refuse an older schema
    /// when `require_current`).
    pub apply: bool,
    /// Migrate up to this migration number (`None`: every migration this binary knows).
    pub to: Option<usize>,
    /// Refuse a schema newer than this binary knows (`ota-gateway migrate`); `false`: say so in
    /// a WARN line and go on (migrations are additive, see the module's documentation).
    pub refuse_newer: bool,
    /// Without `apply`, refuse a schema older than the target (`serve --no-migrate`).
    pub require_current: bool,
    /// Upgrade rehearsals only (hidden `--rehearse-upgrade`): this binary knows one more
    /// additive migration after its own, creating an unused `upgrade_probe` table, so that one
    /// binary can play the release after itself.
    pub rehearsal: bool,
}

impl Plan {
    /// The gateway's start: migrate everything pending; a newer schema is served with a warning.
    pub const START: Plan =
        Plan { apply: true, to: None, refuse_newer: false, require_current: true, rehearsal: false };
}

/// One migration: its number (1 = the first) and file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// Its number: the schema version once it is applied.
    pub number: usize,
    /// Its file under `gateway/migrations/<backend>/`.
    pub file: &'static str,
}

impl std::fmt::Display for Migration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.number, self.file)
    }
}

/// What a migration run found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The schema version found.
    pub before: usize,
    /// The schema version left.
    pub after: usize,
    /// How many migrations this binary knows (its schema version).
    pub known: usize,
    /// The migrations applied, in order.
    pub applied: Vec<Migration>,
    /// The migrations still pending up to the target (when nothing was applied).
    pub pending: Vec<Migration>,
}

fn list(base: &'static [(&'static str, &'static str)], rehearsal: bool) -> Vec<(&'static str, &'static str)> {
    let mut all = base.to_vec();
    if rehearsal {
        all.push(REHEARSAL);
    }
    all
}

/// The migration number to reach from `before`, or why not.
fn target(before: usize, known: usize, plan: &Plan) -> Result<usize, StoreError> {
    if before > known {
        if plan.refuse_newer {
            return Err(StoreError::Migration(format!(
                "the database has schema version {before}, newer than this gateway's {known} (a newer release \
                 migrated it): nothing done; migrate with the newer release"
            )));
        }
        tracing::warn!(
            database_schema = before,
            gateway_schema = known,
            "the database has schema version {before}, newer than this gateway's {known}: serving on it \
             (migrations are additive); upgrade this gateway"
        );
        return Ok(before);
    }
    let target = plan.to.unwrap_or(known);
    if target > known {
        return Err(StoreError::Migration(format!("--to {target}: this gateway knows {known} migrations")));
    }
    if target < before {
        return Err(StoreError::Migration(format!(
            "--to {target}: the database is at schema version {before} already (migrations are never undone)"
        )));
    }
    if !plan.apply && plan.require_current && before < target {
        return Err(StoreError::Migration(format!(
            "the database has schema version {before}, this gateway needs {target}: run `ota-gateway migrate` \
             first (or start without --no-migrate)"
        )));
    }
    Ok(target)
}

fn outcome(before: usize, target: usize, known: usize, names: &[(&'static str, &'static str)], apply: bool) -> Outcome {
    let todo: Vec<Migration> =
        (before..target).map(|i| Migration { number: i + 1, file: names.get(i).map_or("", |m| m.0) }).collect();
    if apply {
        Outcome { before, after: target, known, applied: todo, pending: Vec::new() }
    } else {
        Outcome { before, after: before, known, applied: Vec::new(), pending: todo }
    }
}

/// Migrates a SQLite database as `plan` says.
pub(crate) fn sqlite(conn: &mut Connection, plan: &Plan) -> Result<Outcome, StoreError> {
    let all = list(SQLITE, plan.rehearsal);
    let behavior =
        if plan.apply { rusqlite::TransactionBehavior::Immediate } else { rusqlite::TransactionBehavior::Deferred };
    let tx = conn.transaction_with_behavior(behavior)?;
    let applied: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let before = usize::try_from(applied).map_err(|_| StoreError::Migration(format!("user_version {applied}")))?;
    let target = target(before, all.len(), plan)?;
    if plan.apply {
        for (i, (file, sql)) in all.iter().enumerate().take(target).skip(before) {
            tx.execute_batch(sql)
                .map_err(|e| StoreError::Migration(format!("SQLite migration {} {file}: {e}", i + 1)))?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        }
    }
    tx.commit()?;
    Ok(outcome(before, target, all.len(), &all, plan.apply))
}

/// Migrates a PostgreSQL database as `plan` says.
pub(crate) async fn postgres(client: &mut tokio_postgres::Client, plan: &Plan) -> Result<Outcome, StoreError> {
    use tokio_postgres::types::Type;
    let all = list(POSTGRES, plan.rehearsal);
    // Unnamed statements and a transaction-level lock only: nothing of the migration outlives
    // its transaction on the server connection (which a pooler in transaction mode may hand to
    // another client next). The lock is taken to read the version too: a `--no-migrate` start
    // waits for a migration under way, then sees its result.
    let tx = client.transaction().await?;
    tx.execute_typed("SELECT pg_advisory_xact_lock($1)", &[(&MIGRATION_LOCK, Type::INT8)]).await?;
    let exists: bool = tx.query_typed_one("SELECT to_regclass('schema_migration') IS NOT NULL", &[]).await?.get(0);
    let applied: i64 = if exists {
        tx.query_typed_one("SELECT coalesce(max(version), 0) FROM schema_migration", &[]).await?.get(0)
    } else {
        0
    };
    let before = usize::try_from(applied).map_err(|_| StoreError::Migration(format!("schema_migration {applied}")))?;
    let target = target(before, all.len(), plan)?;
    if plan.apply && target > before {
        tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_migration (version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            .await?;
        for (i, (file, sql)) in all.iter().enumerate().take(target).skip(before) {
            tx.batch_execute(sql)
                .await
                .map_err(|e| StoreError::Migration(format!("PostgreSQL migration {} {file}: {e}", i + 1)))?;
            tx.execute_typed("INSERT INTO schema_migration (version) VALUES ($1)", &[(&((i + 1) as i64), Type::INT8)])
                .await?;
        }
    }
    tx.commit().await?;
    Ok(outcome(before, target, all.len(), &all, plan.apply))
}
