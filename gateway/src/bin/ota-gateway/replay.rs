//! `ota-gateway replay --to URL`: sends the logged requests to another gateway.

use std::process::ExitCode;

use ota_gateway::config::DEFAULT_DB;
use ota_gateway::{Client, Location};

use crate::log::FilterArgs;
use crate::shared::{open_store, print};

/// The arguments of `replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The other gateway's base URL, e.g. http://sandbox.internal:8080.
    #[arg(long)]
    to: String,
    /// The credentials to send (the log keeps no password): ID,CONTEXT,PASSWORD. Read
    /// from OTA_GATEWAY_REPLAY_CREDENTIALS when not given.
    #[arg(long, env = "OTA_GATEWAY_REPLAY_CREDENTIALS", hide_env_values = true)]
    credentials: ota_gateway::txlog::mask::Credentials,
    #[command(flatten)]
    filter: FilterArgs,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
}

/// Replays, prints one line per entry and the totals; exit 3 when some answers differ.
pub async fn run(Args { to, credentials, filter, db }: Args) -> ExitCode {
    use ota_gateway::txlog::replay::{self, Verdict};
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let outcomes = match replay::replay(
        &store,
        &filter.filter(),
        filter.limit.unwrap_or(i64::MAX),
        &Client::new(to.trim_end_matches('/').to_string()),
        &credentials,
    )
    .await
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut same, mut different, mut other) = (0, 0, 0);
    for o in &outcomes {
        let head = format!("{} {} {}", o.entry, ota_gateway::store::values::instant_text(o.at), o.operation);
        match &o.verdict {
            Verdict::Same => {
                same += 1;
                print(&format!("{head}: same"));
            }
            Verdict::Different { count, at, recorded, replayed } => {
                different += 1;
                let shown =
                    |v: &Option<String>| v.as_deref().map_or_else(|| "(absent)".to_string(), |v| format!("{v:?}"));
                print(&format!(
                    "{head}: DIFFERENT ({count} value(s)); first at {at}: recorded {}, replayed {}",
                    shown(recorded),
                    shown(replayed)
                ));
            }
            Verdict::Skipped(why) => {
                other += 1;
                print(&format!("{head}: skipped: {why}"));
            }
            Verdict::Failed(why) => {
                other += 1;
                print(&format!("{head}: FAILED: {why}"));
            }
        }
    }
    print(&format!("{} replayed: {same} same, {different} different, {other} skipped or failed", outcomes.len()));
    if different > 0 || other > 0 { ExitCode::from(3) } else { ExitCode::SUCCESS }
}
