//! `ota-gateway audit list`: the audit trail (every change through the console or the CLI).

use std::process::ExitCode;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use ota_gateway::Location;
use ota_gateway::audit::{self, Entry, Filter};
use ota_gateway::config::DEFAULT_DB;

use crate::shared::{open_store, report, to_json};

/// The arguments of `audit`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: AuditCommand,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

#[derive(clap::Subcommand)]
enum AuditCommand {
    /// Lists the changes, newest first: when, who (an operator, or cli:<OS user>), from where,
    /// what, the value before and after (never a password).
    List {
        /// From this UTC instant on: `2030-07-01`, `2030-07-01T08:00`, `2030-07-01T08:00:00Z`.
        #[arg(long, value_name = "DATETIME", value_parser = parse_since)]
        since: Option<DateTime<Utc>>,
        /// Only this actor's changes (`ann`, `cli:root`).
        #[arg(long, value_name = "NAME")]
        actor: Option<String>,
        /// Only the changes of this target (a requestor's id, an operator's name).
        #[arg(long, value_name = "ID")]
        target: Option<String>,
        /// At most this many (the newest).
        #[arg(long, default_value_t = 1000)]
        limit: usize,
        /// One JSON document: an array of objects.
        #[arg(long)]
        json: bool,
    },
}

/// A `--since` instant: an RFC 3339 time, a date-time (UTC) or a date (its midnight, UTC).
fn parse_since(text: &str) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Ok(d.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(d) = NaiveDateTime::parse_from_str(t, format) {
            return Ok(d.and_utc());
        }
    }
    NaiveDate::parse_from_str(t, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
        .ok_or_else(|| format!("{t:?} is not a date or date-time (2030-07-01, 2030-07-01T08:00, 2030-07-01T08:00:00Z)"))
}

/// Runs one audit command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let AuditCommand::List { since, actor, target, limit, json } = command;
    let done = audit::list(&store, Filter { since, actor, target, limit: limit.max(1) })
        .await
        .map(|all| if json { to_json(&all) } else { table(&all) });
    report(done)
}

/// A value in a column: control characters (there are none stored) and nothing else changed.
fn cell(v: Option<&str>) -> &str {
    v.unwrap_or("-")
}

/// `audit list`: one line per change.
fn table(all: &[Entry]) -> String {
    let mut out =
        format!("{:<20} {:<20} {:<16} {:<22} {:<20} BEFORE → AFTER", "WHEN", "ACTOR", "FROM", "ACTION", "TARGET");
    for e in all {
        out.push_str(&format!(
            "\n{:<20} {:<20} {:<16} {:<22} {:<20} {} → {}",
            e.at.format("%Y-%m-%dT%H:%M:%SZ"),
            e.actor,
            cell(e.address.as_deref()),
            e.action,
            e.target,
            cell(e.old.as_deref()),
            cell(e.new.as_deref())
        ));
    }
    out
}
