//! `ota-gateway import FILE`: loads an import file into the database (its requestors audited
//! as `cli:<OS user>`).

use std::path::PathBuf;
use std::process::ExitCode;

use ota_gateway::config::{DEFAULT_DB, LogFormat};
use ota_gateway::{Location, import};

use crate::shared::{create_store, init_logging, print};

/// The arguments of `import`.
#[derive(clap::Args)]
pub struct Args {
    /// The import file.
    file: PathBuf,
    /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
}

/// Loads the file in one transaction.
pub async fn run(Args { file, db }: Args) -> ExitCode {
    init_logging(LogFormat::Text, "info");
    let store = match create_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    match import::import_file(&store, &file, &ota_gateway::audit::Actor::cli()).await {
        Ok(s) => {
            print(&format!(
                "imported {}: {} requestor(s), {} activitie(s), {} hotel(s), {} hotel booking(s)",
                file.display(),
                s.requestors,
                s.activities,
                s.hotels,
                s.bookings
            ));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ota-gateway: import failed, nothing was changed: {e}");
            ExitCode::FAILURE
        }
    }
}
