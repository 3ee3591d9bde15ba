//! `ota-gateway backup --db PATH --to FILE`: a consistent copy of a SQLite database while
//! gateways serve it.

use std::path::PathBuf;
use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::config::{DEFAULT_DB, LogFormat};
use ota_gateway::store::backup;

use crate::shared::{init_logging, print};

/// What PostgreSQL does instead of `backup` and `restore`.
pub const POSTGRES_INSTEAD: &str = "a PostgreSQL database is backed up and restored with PostgreSQL's own tools: pg_dump / pg_restore, or continuous archiving with point-in-time recovery (PITR); see README.md, \"Backups and restore\" (what to reconcile after a restore is there too)";

/// The arguments of `backup`.
#[derive(clap::Args)]
pub struct Args {
    /// The database: a SQLite file (postgres://… is refused: use pg_dump).
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
    /// The backup file to create (never overwritten).
    #[arg(long)]
    to: PathBuf,
}

/// Writes the backup and says what it holds.
pub async fn run(Args { db, to }: Args) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
    let path = match db {
        Location::Sqlite(path) => path,
        Location::Postgres(_) => {
            eprintln!("ota-gateway: backup: {POSTGRES_INSTEAD}");
            return ExitCode::FAILURE;
        }
    };
    match tokio::task::spawn_blocking(move || backup::backup(&path, &to).map(|s| (to, s))).await {
        Ok(Ok((to, summary))) => {
            print(&format!("backed up to {}: {summary}", to.display()));
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("ota-gateway: backup failed, nothing was written: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("ota-gateway: backup failed: {e}");
            ExitCode::FAILURE
        }
    }
}
