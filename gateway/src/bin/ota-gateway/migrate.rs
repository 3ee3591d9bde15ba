//! `ota-gateway migrate`: applies the pending schema migrations, or says which are pending.

use std::process::ExitCode;

use ota_gateway::config::{DEFAULT_DB, LogFormat};
use ota_gateway::store::migrate::{Migration, Plan};
use ota_gateway::{Location, Store};

use crate::shared::{init_logging, print, require_existing};

/// The arguments of `migrate`.
#[derive(clap::Args)]
pub struct Args {
    /// The database: an existing SQLite file (never created) or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
    /// Apply nothing: say which migrations are pending; exit 1 when some are, 0 when the schema
    /// is current (for deploy scripts).
    #[arg(long)]
    check: bool,
    /// Stop at this migration number (the schema version it leaves) instead of the last this
    /// binary knows: to upgrade in steps, or to make a database of an earlier release.
    #[arg(long, value_name = "N")]
    to: Option<usize>,
    /// Upgrade rehearsals only: this binary knows one more (additive, unused) migration than
    /// its release, so that it plays the next release.
    #[arg(long, hide = true)]
    rehearse_upgrade: bool,
}

fn names(list: &[Migration]) -> String {
    list.iter().map(Migration::to_string).collect::<Vec<_>>().join(", ")
}

/// Runs the migrations, or checks them.
pub async fn run(args: Args) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
    if let Err(code) = require_existing(&args.db) {
        return code;
    }
    let plan = Plan {
        apply: !args.check,
        to: args.to,
        refuse_newer: true,
        require_current: false,
        rehearsal: args.rehearse_upgrade,
    };
    let outcome = match Store::migrate(&args.db, &plan).await {
        Ok(o) => o,
        Err(e) => {
            eprintln!("ota-gateway: migrate {}: {e}", args.db);
            return ExitCode::FAILURE;
        }
    };
    if args.check {
        if outcome.pending.is_empty() {
            print(&format!("schema version {}: current (this gateway knows {})", outcome.before, outcome.known));
            return ExitCode::SUCCESS;
        }
        print(&format!(
            "schema version {}: {} migration(s) pending: {}",
            outcome.before,
            outcome.pending.len(),
            names(&outcome.pending)
        ));
        return ExitCode::FAILURE;
    }
    if outcome.applied.is_empty() {
        print(&format!("schema version {}: nothing to apply (this gateway knows {})", outcome.before, outcome.known));
    } else {
        print(&format!("schema version {} -> {}: applied {}", outcome.before, outcome.after, names(&outcome.applied)));
    }
    ExitCode::SUCCESS
}
