//! The `ota-gateway` command: one file per family of subcommands; [`Command`] (what
//! `ota-gateway --help` prints) says what each does, and `main` only dispatches to it.

mod audit;
mod backup;
mod bookings;
mod calendar;
mod import;
mod log;
mod migrate;
mod operator;
mod outbox;
mod replay;
mod requestor;
mod restore;
mod send;
mod serve;
mod shared;
mod traffic;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc: faster than the system's for the many small, short-lived values of a request (message
/// fields), and it gives memory back after load.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "ota-gateway", version, about = "The OTA XML-over-HTTP hotel and activity gateway")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}
#[derive(Subcommand)]
enum Command {
    /// Runs the gateway.
    Serve(Box<serve::ServeArgs>),
    /// Loads requestors, activities and hotels from a JSON import file (one transaction).
    Import(import::Args),
    /// Administers the requestors (partners): running gateways serve each change within a second.
    Requestor(requestor::Args),
    /// The audit trail: every change through the console or the CLI, who, when, from where.
    Audit(audit::Args),
    /// Administers the console's operators (admin or viewer; passwords from a prompt or stdin).
    Operator(operator::Args),
    /// Finds any booking, hotel or activity (search), and shows one whole (show).
    Bookings(bookings::Args),
    /// A hotel's calendar: rooms, restrictions and amounts per night with who set them (show),
    /// and one change over a range of nights (set), applied as a notification would be.
    Calendar(calendar::Args),
    /// The outbox: the booking events for suppliers (gateway/README.md, "Bookings out to suppliers").
    Outbox(outbox::Args),
    /// Reads the transaction log (the partners whose `requestor set --log` says so).
    Log(log::Args),
    /// Sends the recorded requests of the transaction log (oldest first) to another gateway
    /// and reports which answers differ, ignoring time stamps and generated ids (exit 3 when
    /// some differ). A replayed Commit books there: replay against a sandbox.
    Replay(replay::Args),
    /// Backs up a SQLite database while gateways serve it (PostgreSQL: pg_dump or PITR, see
    /// README.md "Backups and restore").
    Backup(backup::Args),
    /// Restores a SQLite backup (every gateway on the database stopped) and reports the
    /// bookings made or changed since, which partners and suppliers may still hold.
    Restore(restore::Args),
    /// Applies the pending schema migrations and says which (`--check`: applies none, exit 1
    /// when some are pending; `--to N`: stops at migration N). Refuses a schema newer than this
    /// binary knows.
    Migrate(migrate::Args),
    /// Every gateway's traffic per partner and operation: requests, outcomes, latency,
    /// look-to-book; the worst partners and error codes first (`--json`: one JSON document).
    Traffic(traffic::Args),
    /// Posts a message file to URL + the path of its root's operation and prints the answer
    /// (exit 1 when the gateway cannot be reached, 2 on a non-200 answer).
    Send(send::Args),
}

#[tokio::main]
async fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => serve::run(*args).await,
        Command::Import(args) => import::run(args).await,
        Command::Requestor(args) => requestor::run(args).await,
        Command::Audit(args) => audit::run(args).await,
        Command::Operator(args) => operator::run(args).await,
        Command::Bookings(args) => bookings::run(args).await,
        Command::Calendar(args) => calendar::run(args).await,
        Command::Outbox(args) => outbox::run(args).await,
        Command::Log(args) => log::run(args).await,
        Command::Replay(args) => replay::run(args).await,
        Command::Backup(args) => backup::run(args).await,
        Command::Restore(args) => restore::run(args).await,
        Command::Migrate(args) => migrate::run(args).await,
        Command::Send(args) => send::run(args).await,
        Command::Traffic(args) => traffic::run(args).await,
    }
}
