//! `ota-gateway log search|show|export`: reads the transaction log.

use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::config::{self, DEFAULT_DB};
use ota_gateway::shared::log_text::LogText;

use crate::shared::{open_store, report};

/// The arguments of `log`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: LogCommand,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

/// Which entries of the transaction log.
#[derive(clap::Args, Clone)]
pub struct FilterArgs {
    /// Only this requestor's.
    #[arg(long)]
    requestor: Option<String>,
    /// Only from this time on: an RFC 3339 instant (2030-05-01T10:00:00Z), a UTC day
    /// (2030-05-01), or a while ago (2h, 7d).
    #[arg(long, value_parser = parse_since)]
    since: Option<chrono::DateTime<chrono::Utc>>,
    /// Only the entries with this booking reference (UniqueID or HotelReservationID).
    #[arg(long)]
    reference: Option<String>,
    /// Only the entries with this EchoToken.
    #[arg(long)]
    echo_token: Option<String>,
    /// Only the entry of this request id (x-request-id).
    #[arg(long)]
    request_id: Option<String>,
    /// Only this operation (its path without the slash: hotelbook).
    #[arg(long)]
    operation: Option<String>,
    /// Only this outcome: success (without warnings), warning (success with warnings), error
    /// or error:N (an OTA error type).
    #[arg(long)]
    outcome: Option<ota_gateway::txlog::Outcome>,
    /// At most this many entries (`log search`: 100 unless given; `log export` and `replay`:
    /// all unless given).
    #[arg(long)]
    pub limit: Option<i64>,
}

impl FilterArgs {
    /// The log's filter of these arguments.
    pub fn filter(&self) -> ota_gateway::txlog::Filter {
        ota_gateway::txlog::Filter {
            requestor: self.requestor.clone(),
            since: self.since,
            until: None,
            reference: self.reference.clone(),
            echo_token: self.echo_token.clone(),
            request_id: self.request_id.clone(),
            operation: self.operation.clone(),
            outcome: self.outcome,
        }
    }
}

/// `--since`: an RFC 3339 instant, a UTC day, or a duration ago.
fn parse_since(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s.trim()) {
        return Ok(t.with_timezone(&chrono::Utc));
    }
    if let Ok(d) = s.trim().parse::<chrono::NaiveDate>() {
        return Ok(d.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    let ago = config::parse_duration(s).map_err(|_| {
        format!("{s:?} is not an instant (2030-05-01T10:00:00Z), a day (2030-05-01) or a while ago (2h, 7d)")
    })?;
    Ok(chrono::Utc::now() - chrono::Duration::from_std(ago).map_err(|e| e.to_string())?)
}

#[derive(clap::Subcommand)]
enum LogCommand {
    /// Lists the entries of a filter, newest first (no bodies).
    Search {
        #[command(flatten)]
        filter: FilterArgs,
    },
    /// Prints one entry with its request and answer.
    Show {
        /// The entry's id (from `log search`).
        id: i64,
    },
    /// Prints the entries of a filter as JSON lines, oldest first, bodies included.
    Export {
        #[command(flatten)]
        filter: FilterArgs,
    },
}

/// Runs one log command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    use ota_gateway::txlog;
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let done = match command {
        LogCommand::Search { filter } => txlog::search(&store, &filter.filter(), false, filter.limit.unwrap_or(100)).await.map(|entries| {
            let mut out = format!("{:<20} {:<20} {:<14} {:<20} {:>6} {:>9}  {:<24} {:<36} REFERENCES", "ID", "AT", "REQUESTOR", "OPERATION", "STATUS", "MS", "ECHO_TOKEN", "REQUEST_ID");
            // Client values (the EchoToken, references) escaped: none starts a row of its own.
            let text = |v: &str| LogText(v).to_string();
            for e in entries {
                let status = if e.success { e.status.to_string() } else { format!("{}!", e.status) };
                out.push_str(&format!(
                    "\n{:<20} {:<20} {:<14} {:<20} {:>6} {:>9.1}  {:<24} {:<36} {}",
                    e.id,
                    ota_gateway::store::values::instant_text(e.at),
                    text(&e.requestor),
                    e.operation,
                    status,
                    e.duration_us as f64 / 1000.0,
                    text(e.echo_token.as_deref().unwrap_or("-")),
                    text(&e.request_id),
                    e.references.iter().map(|r| text(r)).collect::<Vec<_>>().join(" ")
                ));
            }
            out
        }),
        LogCommand::Show { id } => txlog::show(&store, id).await.map(|e| {
            format!(
                "id: {}\nat: {}\nrequestor: {}\noperation: {}\nrequest id: {}\necho token: {}\nreferences: {}\nstatus: {} ({})\nduration: {:.1} ms\ncontent version: {}\nmasked: {}\n\n--- request\n{}\n\n--- answer{}\n{}",
                e.id,
                ota_gateway::store::values::instant_text(e.at),
                LogText(&e.requestor),
                e.operation,
                LogText(&e.request_id),
                LogText(e.echo_token.as_deref().unwrap_or("-")),
                e.references.iter().map(|r| LogText(r).to_string()).collect::<Vec<_>>().join(" "),
                e.status,
                if e.success { "success" } else { "error" },
                e.duration_us as f64 / 1000.0,
                e.content_version,
                if e.masked { "yes" } else { "no" },
                e.request,
                if e.answer_truncated { " (cut)" } else { "" },
                e.answer
            )
        }),
        // Straight to stdout, page by page: the log may be larger than memory.
        LogCommand::Export { filter } => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            match txlog::export(&store, &filter.filter(), filter.limit.unwrap_or(i64::MAX), &mut out).await {
                // A reader that has gone (`| head`) ends the export quietly.
                Err(txlog::LogError::Output(e)) => crate::shared::stdout_failed(&e),
                done => done.map(|_| String::new()),
            }
        }
    };
    report(done)
}
