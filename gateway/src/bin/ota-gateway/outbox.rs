//! `ota-gateway outbox list|retry`: the booking events for suppliers.

use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::config::DEFAULT_DB;
use ota_gateway::outbox::admin as outbox_admin;

use crate::shared::{open_store, report};

/// The arguments of `outbox`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: OutboxCommand,
    /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

#[derive(clap::Subcommand)]
enum OutboxCommand {
    /// Lists events, oldest first: id, state, attempts, supplier, booking, hotel, kind, last
    /// error.
    List {
        /// Only events in this state: pending, delivered or parked.
        #[arg(long)]
        state: Option<String>,
        /// Only events for this supplier (its requestor id).
        #[arg(long)]
        supplier: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Sends a parked event again (its attempts counted afresh), or every parked event.
    Retry {
        /// The event's id (`outbox list`).
        #[arg(required_unless_present = "all_parked", conflicts_with = "all_parked")]
        id: Option<i64>,
        /// Every parked event.
        #[arg(long)]
        all_parked: bool,
    },
}

/// Runs one outbox command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let done = match command {
        OutboxCommand::List { state, supplier, limit } => {
            outbox_admin::list(&store, state, supplier, limit).await.map(|events| {
                let at = |ms: i64| {
                    chrono::DateTime::from_timestamp_millis(ms)
                        .map_or_else(|| "-".to_string(), |t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
                };
                let mut out = format!(
                    "{:<8} {:<10} {:>8} {:<16} {:<24} {:<10} {:>4} {:<10} {:<24} ERROR",
                    "ID", "STATE", "ATTEMPTS", "SUPPLIER", "BOOKING", "HOTEL", "SEQ", "KIND", "CREATED"
                );
                for e in events {
                    out.push_str(&format!(
                        "\n{:<8} {:<10} {:>8} {:<16} {:<24} {:<10} {:>4} {:<10} {:<24} {}",
                        e.id,
                        e.state,
                        e.attempts,
                        e.supplier_id,
                        format!("{}:{}", e.booking_kind, e.booking_ref),
                        e.hotel_code,
                        e.seq,
                        e.event_kind,
                        at(e.created_at),
                        e.last_error.as_deref().unwrap_or("-")
                    ));
                }
                out
            })
        }
        OutboxCommand::Retry { id, all_parked: _ } => {
            outbox_admin::retry(&store, id).await.map(|n| format!("{n} parked event(s) will be sent again"))
        }
    };
    report(done)
}
