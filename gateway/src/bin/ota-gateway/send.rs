//! `ota-gateway send URL FILE`: posts a message file and prints the answer.

use std::path::PathBuf;
use std::process::ExitCode;

use ota_gateway::config::LogFormat;
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
}

/// Sends the file to the path of its root's operation.
pub async fn run(Args { url, file }: Args) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ota-gateway: cannot read {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
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
