//! `ota-gateway restore --db PATH --from FILE`: puts a backup in place of a SQLite database no
//! gateway has open, and reports the bookings the two sides now disagree on.

use std::path::PathBuf;
use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::config::{DEFAULT_DB, LogFormat};
use ota_gateway::store::backup;

use crate::backup::POSTGRES_INSTEAD;
use crate::shared::{init_logging, print};

/// The arguments of `restore`.
#[derive(clap::Args)]
pub struct Args {
    /// The database to replace: a SQLite file (postgres://… is refused: use pg_restore or PITR).
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
    /// The backup file (from `ota-gateway backup`).
    #[arg(long)]
    from: PathBuf,
    /// Only write the report of what a restore would drop; the database is left as it is
    /// (and may be in use).
    #[arg(long)]
    report_only: bool,
}

/// Restores (or reports), printing the report; exit 0 only when restored (or reported).
pub async fn run(Args { db, from, report_only }: Args) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
    let path = match db {
        Location::Sqlite(path) => path,
        Location::Postgres(_) => {
            eprintln!("ota-gateway: restore: {POSTGRES_INSTEAD}");
            return ExitCode::FAILURE;
        }
    };
    let shown = path.display().to_string();
    match tokio::task::spawn_blocking(move || backup::restore(&path, &from, report_only).map(|r| (from, r))).await {
        Ok(Ok((from, r))) => {
            print(&r.report);
            if r.replaced {
                print(&format!(
                    "restored {shown} from {} ({} booking(s) to reconcile); this report is in {}",
                    from.display(),
                    r.disagreements,
                    r.report_path.display()
                ));
            } else {
                print(&format!(
                    "not restored (--report-only): {} booking(s) would be dropped or taken back; this report is in {}",
                    r.disagreements,
                    r.report_path.display()
                ));
            }
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("ota-gateway: restore refused, {shown} was not changed: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("ota-gateway: restore failed: {e}");
            ExitCode::FAILURE
        }
    }
}
