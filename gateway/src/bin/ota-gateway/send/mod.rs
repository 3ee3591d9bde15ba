//! `ota-gateway send URL FILE`: posts a message file and prints the answer.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the command: read the file, find its operation, post it, print the answer |
//! | `as_partner.rs` | `--as ID`: the message as another partner, its dates moved ahead |

mod as_partner;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use ota_gateway::config::LogFormat;
use ota_gateway::import::{DEMO_ID, DEMO_ID_CONTEXT, DEMO_OTA, DEMO_PASSWORD, DEMO_SUPPLIER};
use ota_gateway::{Client, ClientError};
use ota_messages::OPERATIONS;

use crate::shared::{init_logging, print};

/// The arguments of `send`.
#[derive(clap::Args)]
pub struct Args {
    /// The gateway's base URL, e.g. http://127.0.0.1:8080.
    url: String,
    /// The XML message file.
    file: PathBuf,
    /// Sends the message as this partner: every `RequestorID` of its `POS` names it (with its
    /// `ID_Context` and `MessagePassword` where the message has them), `TimeStamp` is now, and
    /// every other date moves by whole weeks so that the earliest is 28 days ahead. The demo's
    /// partners (DEMO, OTA-DEMO, SUP-DEMO) need nothing else; for another, the password comes
    /// from OTA_GATEWAY_SEND_PASSWORD, a prompt, or stdin's first line.
    #[arg(long = "as", value_name = "ID")]
    as_partner: Option<String>,
    /// With `--as`: the partner's `ID_Context` (the demo's partners: theirs).
    #[arg(long, requires = "as_partner")]
    context: Option<String>,
    /// With `--as`: keeps the message's dates as written.
    #[arg(long, requires = "as_partner")]
    keep_dates: bool,
}

/// Sends the file to the path of its root's operation.
pub async fn run(Args { url, file, as_partner, context, keep_dates }: Args) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ota-gateway: cannot read {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let text = match as_partner {
        None => text,
        Some(id) => match partner(id.clone(), context)
            .and_then(|p| as_partner::rewrite(&text, &p, chrono::Utc::now(), keep_dates))
        {
            Ok(rewritten) => {
                eprintln!(
                    "ota-gateway: sent as {} ({} RequestorID), dates moved {} weeks ahead",
                    id, rewritten.requestors, rewritten.weeks
                );
                rewritten.text
            }
            Err(e) => {
                eprintln!("ota-gateway: {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        },
    };
    let root = match ota_messages::runtime::parse_document(&text) {
        Ok(doc) => doc.root_element().tag_name().name().to_string(),
        Err(e) => {
            eprintln!("ota-gateway: {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let Some(op) = OPERATIONS.iter().find(|op| op.request_root == root) else {
        let known: Vec<&str> = OPERATIONS.iter().map(|op| op.request_root).collect();
        eprintln!("ota-gateway: {}: <{root}> is not a request of this service ({})", file.display(), known.join(", "));
        return ExitCode::FAILURE;
    };
    match Client::new(url).send_raw(op.path, text, "application/xml").await {
        Ok((status, _, body)) => {
            print(&body);
            if status.is_success() {
                ExitCode::SUCCESS
            } else {
                eprintln!("ota-gateway: HTTP {status}");
                ExitCode::from(2)
            }
        }
        Err(ClientError::Transport(e)) => {
            eprintln!("ota-gateway: cannot reach the gateway: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The partner `--as ID` names: the demo's partners with their published credentials, any
/// other with `--context` and a password from the environment, a prompt or stdin.
fn partner(id: String, context: Option<String>) -> Result<as_partner::Partner, String> {
    let demo = [(DEMO_ID, DEMO_ID_CONTEXT, DEMO_PASSWORD), DEMO_OTA, DEMO_SUPPLIER];
    if let Some((_, demo_context, password)) = demo.iter().find(|(demo_id, _, _)| *demo_id == id) {
        let context = context.or_else(|| Some(demo_context.to_string()));
        return Ok(as_partner::Partner { id, context, password: password.to_string() });
    }
    let password = match std::env::var("OTA_GATEWAY_SEND_PASSWORD") {
        Ok(password) => password,
        Err(_) if std::io::stdin().is_terminal() => rpassword::prompt_password(format!("Password of {id}: "))
            .map_err(|e| format!("cannot read the password: {e}"))?,
        Err(_) => {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map_err(|e| format!("cannot read the password from stdin: {e}"))?;
            line.trim_end_matches(['\r', '\n']).to_string()
        }
    };
    Ok(as_partner::Partner { id, context, password })
}
