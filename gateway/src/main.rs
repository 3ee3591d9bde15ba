//! The `ota-gateway` command:
//!
//! - `ota-gateway serve` runs the gateway on a SQLite file (the default) or a PostgreSQL
//!   database (a fresh database gets the demo content, and the demo requestor's credentials
//!   are printed with a ready-to-run `curl` line);
//! - `ota-gateway import FILE` loads an import file (see `gateway/README.md`) into the database;
//! - `ota-gateway send URL FILE` posts a message file to `URL` + its operation's path and prints
//!   the answer.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use ipnet::IpNet;
use ota_gateway::config::{self, Config, DEFAULT_DB, LogFormat};
use ota_gateway::import::{self, DEMO_ID, DEMO_ID_CONTEXT, DEMO_PASSWORD};
use ota_gateway::{AppState, Client, ClientError, Location, Store};
use ota_messages::OPERATIONS;
use ota_messages::common::{Pos, RequestorId, RequestorIdCode, Source};
use tracing_subscriber::EnvFilter;

/// mimalloc: the gateway allocates many small, short-lived values per request (message
/// fields), where it is markedly faster than the system allocator, and it gives memory back to
/// the system after load.
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
    Serve(ServeArgs),
    /// Loads requestors, activities and hotels from a JSON import file (one transaction).
    Import {
        /// The import file.
        file: PathBuf,
        /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_DB)]
        db: Location,
    },
    /// Posts a message file to URL + the path of its root's operation and prints the answer
    /// (exit 1 when the gateway cannot be reached, 2 on a non-200 answer).
    Send {
        /// The gateway's base URL, e.g. http://127.0.0.1:8080.
        url: String,
        /// The XML message file.
        file: PathBuf,
    },
}

#[derive(clap::Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The database: a SQLite file (created, with demo content, if missing) or
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DB (shared by many gateways).
    #[arg(long, default_value = DEFAULT_DB)]
    db: Location,
    /// The largest request body (e.g. 1MiB, 256KiB, 65536).
    #[arg(long, default_value = "1MiB", value_parser = config::parse_size)]
    body_limit: usize,
    /// Serve only clients in this network (CIDR or address; repeatable). Others get 403.
    #[arg(long = "allow", value_name = "CIDR", value_parser = config::parse_net)]
    allow: Vec<IpNet>,
    /// The log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// The longest a request may take (e.g. 30s, 500ms).
    #[arg(long, default_value = "30s", value_parser = config::parse_duration)]
    request_timeout: Duration,
    /// The longest a client may take to send its request headers.
    #[arg(long, default_value = "10s", value_parser = config::parse_duration)]
    header_read_timeout: Duration,
}

fn init_logging(format: LogFormat, default_filter: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Import { file, db } => import(file, db).await,
        Command::Send { url, file } => send(url, file).await,
    }
}

async fn serve(args: ServeArgs) -> ExitCode {
    init_logging(args.log_format, "info");
    let config = Config {
        addr: args.addr,
        db: args.db,
        body_limit: args.body_limit,
        allow: args.allow,
        log_format: args.log_format,
        request_timeout: args.request_timeout,
        header_read_timeout: args.header_read_timeout,
        ..Config::default()
    };
    let store = match Store::open(&config.db).await {
        Ok(store) => store,
        Err(e) => {
            eprintln!("ota-gateway: cannot open the database {}: {e}", config.db);
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = import::seed_demo_if_empty(&store).await {
        eprintln!("ota-gateway: cannot load the demo content: {e}");
        return ExitCode::FAILURE;
    }
    let state = match AppState::new(store.clone(), config.clone()).await {
        Ok(state) => state,
        Err(e) => {
            eprintln!("ota-gateway: cannot load the content: {e}");
            return ExitCode::FAILURE;
        }
    };
    let _refresher = state.content.spawn_refresher();
    let listener = match tokio::net::TcpListener::bind(config.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ota-gateway: cannot listen on {}: {e}", config.addr);
            return ExitCode::FAILURE;
        }
    };
    let addr = listener.local_addr().unwrap_or(config.addr);
    tracing::info!(database = %store.describe(), "store open");
    banner(&state, addr).await;
    match ota_gateway::serve(listener, state, ota_gateway::http::shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints where the gateway listens and, while the demo requestor still has its demo password,
/// its credentials and a request to try.
async fn banner(state: &AppState, addr: SocketAddr) {
    let host = match addr.ip() {
        ip if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port()),
        _ => addr,
    };
    let base = format!("http://{host}");
    println!("ota-gateway listening on {base} (health: {base}/healthz)");
    let requestor = |t, id_context: Option<&str>, password: Option<&str>| Source {
        requestor_id: RequestorId {
            r#type: t,
            id: DEMO_ID.into(),
            id_context: id_context.map(str::to_string),
            message_password: password.map(str::to_string),
            ..RequestorId::default()
        },
    };
    let pos = Pos {
        source: vec![
            requestor(RequestorIdCode::Requestor, Some(DEMO_ID_CONTEXT), None),
            requestor(RequestorIdCode::MessageCredentials, None, Some(DEMO_PASSWORD)),
        ],
    };
    if ota_gateway::auth::authenticate(&state.content.get().requestors, &pos).await.is_err() {
        return;
    }
    println!("Demo requestor: ID={DEMO_ID} ID_Context={DEMO_ID_CONTEXT} MessagePassword={DEMO_PASSWORD}");
    println!("Try it:");
    println!(
        "  curl -sS -H 'Content-Type: application/xml' {base}/hotelnbc --data-binary \
         '<OTA_HotelDescriptiveInfoRQ xmlns=\"http://www.opentravel.org/OTA/2003/05\" Version=\"2009.1\" EchoToken=\"try-1\">\
         <POS><Source><RequestorID Type=\"22\" ID=\"{DEMO_ID}\" ID_Context=\"{DEMO_ID_CONTEXT}\"/></Source>\
         <Source><RequestorID Type=\"88\" ID=\"{DEMO_ID}\" MessagePassword=\"{DEMO_PASSWORD}\"/></Source></POS>\
         <HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode=\"HTL00042\"/></HotelDescriptiveInfos>\
         </OTA_HotelDescriptiveInfoRQ>'"
    );
}

async fn import(file: PathBuf, db: Location) -> ExitCode {
    init_logging(LogFormat::Text, "info");
    let store = match Store::open(&db).await {
        Ok(store) => store,
        Err(e) => {
            eprintln!("ota-gateway: cannot open the database {db}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match import::import_file(&store, &file).await {
        Ok(s) => {
            println!(
                "imported {}: {} requestor(s), {} activitie(s), {} hotel(s), {} hotel booking(s)",
                file.display(),
                s.requestors,
                s.activities,
                s.hotels,
                s.bookings
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ota-gateway: import failed, nothing was changed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn send(url: String, file: PathBuf) -> ExitCode {
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
            println!("{body}");
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
