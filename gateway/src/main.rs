//! The `ota-gateway` command:
//!
//! - `ota-gateway serve` runs the gateway on a SQLite file (the default) or a PostgreSQL
//!   database (a fresh database gets the demo content, and the demo requestor's credentials
//!   are printed with a ready-to-run `curl` line);
//! - `ota-gateway import FILE` loads an import file (see `gateway/README.md`) into the database;
//! - `ota-gateway requestor add|passwd|disable|enable|list|allow` administers the partners
//!   (passwords from a prompt or stdin, never from the command line);
//! - `ota-gateway outbox list|retry` lists the booking events for suppliers and sends parked
//!   ones again;
//! - `ota-gateway log search|show|export` reads the transaction log, `ota-gateway replay` sends
//!   its recorded requests to another gateway and reports the answers that differ;
//! - `ota-gateway send URL FILE` posts a message file to `URL` + its operation's path and prints
//!   the answer.

use std::io::{BufRead, IsTerminal};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use ipnet::IpNet;
use ota_gateway::auth::ThrottleSettings;
use ota_gateway::config::{self, Config, DEFAULT_DB, LogFormat};
use ota_gateway::import::{self, DEMO_ID, DEMO_ID_CONTEXT, DEMO_OTA, DEMO_PASSWORD, DEMO_SUPPLIER};
use ota_gateway::limits;
use ota_gateway::outbox::Settings as OutboxSettings;
use ota_gateway::outbox::admin as outbox_admin;
use ota_gateway::requestors::Role;
use ota_gateway::requestors::admin::{self, NewRequestor};
use ota_gateway::requestors::import::parse_dialect;
use ota_gateway::telemetry;
use ota_gateway::{AppState, Client, ClientError, Location, Store};
use ota_messages::common::{Pos, RequestorId, RequestorIdCode, Source};
use ota_messages::{Dialect, OPERATIONS};
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
    Serve(Box<ServeArgs>),
    /// Loads requestors, activities and hotels from a JSON import file (one transaction).
    Import {
        /// The import file.
        file: PathBuf,
        /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
        db: Location,
    },
    /// Administers the requestors (partners): running gateways serve each change within a
    /// second.
    Requestor {
        #[command(subcommand)]
        command: RequestorCommand,
        /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
        db: Location,
    },
    /// The outbox: the booking events for suppliers (see gateway/README.md, "Bookings out to
    /// suppliers").
    Outbox {
        #[command(subcommand)]
        command: OutboxCommand,
        /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
        db: Location,
    },
    /// Reads the transaction log (the partners whose `requestor set --log` says so).
    Log {
        #[command(subcommand)]
        command: LogCommand,
        /// The database: a SQLite file or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
        db: Location,
    },
    /// Sends the recorded requests of the transaction log (oldest first) to another gateway
    /// and reports which answers differ, ignoring time stamps and generated ids (exit 3 when
    /// some differ). A replayed Commit books there: replay against a sandbox.
    Replay {
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

/// Which entries of the transaction log.
#[derive(clap::Args, Clone)]
struct FilterArgs {
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
    /// At most this many entries (`log search`: 100 unless given; `log export` and `replay`:
    /// all unless given).
    #[arg(long)]
    limit: Option<i64>,
}

impl FilterArgs {
    fn filter(&self) -> ota_gateway::txlog::Filter {
        ota_gateway::txlog::Filter {
            requestor: self.requestor.clone(),
            since: self.since,
            until: None,
            reference: self.reference.clone(),
            echo_token: self.echo_token.clone(),
            request_id: self.request_id.clone(),
            operation: self.operation.clone(),
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

#[derive(Subcommand)]
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

#[derive(Subcommand)]
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

#[derive(Subcommand)]
enum RequestorCommand {
    /// Creates a requestor; its password is read from a prompt (or from stdin's first line
    /// when stdin is not a terminal).
    Add {
        /// The requestor id (`RequestorID@ID` of both POS sources).
        id: String,
        /// The distributor context its Type 22 source carries (`ID_Context`).
        #[arg(long)]
        context: String,
        /// A display name (default: the id).
        #[arg(long)]
        name: Option<String>,
        /// A network it may call from (CIDR or address; repeatable). None: any address.
        #[arg(long = "allow", value_name = "CIDR", value_parser = config::parse_net)]
        allow: Vec<IpNet>,
        /// Creates it disabled.
        #[arg(long)]
        disabled: bool,
        /// The dialect its answers are written in: `service` (the default) or `ota2016b`
        /// (valid under the official OpenTravel 2016B schemas).
        #[arg(long, default_value = "service", value_parser = parse_dialect)]
        dialect: Dialect,
        /// Creates a supplier (a hotel's system, which sends the supply notifications of its
        /// hotels) instead of a distribution partner.
        #[arg(long)]
        supplier: bool,
        /// A supplier's hotels (their codes, comma-separated); a hotel has one supplier.
        #[arg(long, value_name = "CODE,…", value_delimiter = ',', requires = "supplier", value_parser = parse_hotel_code)]
        hotels: Vec<String>,
    },
    /// Changes a requestor's settings.
    Set {
        /// The requestor id.
        id: String,
        /// The dialect its answers are written in: `service` or `ota2016b`.
        #[arg(long, value_parser = parse_dialect)]
        dialect: Option<Dialect>,
        /// Requests per second it may send to each gateway (`N` or `N/s`), or `off`.
        #[arg(long, value_name = "N[/s]|off", value_parser = limits::parse_rate)]
        rate: Option<u32>,
        /// Requests per UTC day it may send to each gateway, or `off`.
        #[arg(long, value_name = "N|off", value_parser = limits::parse_quota)]
        daily_quota: Option<u32>,
        /// Requests per second of one operation (its path without the slash, e.g.
        /// `hotelavailability=5`), on top of `--rate`; `OPERATION=off` removes it (repeatable).
        #[arg(long = "rate-for", value_name = "OPERATION=N[/s]|off", value_parser = limits::parse_rate_for)]
        rate_for: Vec<(&'static str, u32)>,
        /// Makes it a supplier of these hotels (comma-separated codes; replacing those it had).
        #[arg(long, value_name = "CODE,…", value_delimiter = ',', num_args = 1.., value_parser = parse_hotel_code)]
        hotels: Option<Vec<String>>,
        /// Makes it a distribution partner (a supplier loses its hotels).
        #[arg(long, conflicts_with = "hotels")]
        distributor: bool,
        /// A supplier's notification URL: the gateway posts OTA_HotelResNotifRQ there for every
        /// booking change of its hotels; `off` removes it (the supplier then pulls them).
        #[arg(long, value_name = "URL|off")]
        notify_url: Option<String>,
        /// What of its traffic the transaction log keeps: off, errors, bookings (errors and
        /// every request of a booking's life) or all.
        #[arg(long, value_name = "off|errors|bookings|all", value_parser = ota_gateway::txlog::Level::parse)]
        log: Option<ota_gateway::txlog::Level>,
        /// At `--log all`, the share of its searches, availability and static content requests
        /// logged (0.1, 10%); errors and bookings are always logged in full.
        #[arg(long, value_name = "SHARE", value_parser = ota_gateway::txlog::Sample::parse)]
        log_sample: Option<ota_gateway::txlog::Sample>,
    },
    /// Sets a requestor's password, read from a prompt (or from stdin's first line).
    Passwd {
        /// The requestor id.
        id: String,
    },
    /// Disables a requestor: its requests fail authentication.
    Disable {
        /// The requestor id.
        id: String,
    },
    /// Enables a disabled requestor.
    Enable {
        /// The requestor id.
        id: String,
    },
    /// Lists the requestors (never their passwords).
    List,
    /// Look-to-book: each requestor's activity searches, availability checks, quotes and
    /// bookings (Commits that booked) since a day, added up over every gateway, with the
    /// ratios (a gateway stores its counts every --traffic-flush-interval and when it stops).
    Stats {
        /// Only this requestor.
        id: Option<String>,
        /// From this UTC day on (`YYYY-MM-DD`); default: every day counted.
        #[arg(long, value_name = "DATE")]
        since: Option<chrono::NaiveDate>,
    },
    /// Sets the networks a requestor may call from (replacing its list); others get the
    /// authentication error of a wrong password.
    Allow {
        /// The requestor id.
        id: String,
        /// The networks (CIDRs or addresses).
        #[arg(value_name = "CIDR", value_parser = config::parse_net, required_unless_present = "any")]
        networks: Vec<IpNet>,
        /// Clears the list: any address may be used.
        #[arg(long, conflicts_with = "networks")]
        any: bool,
    },
}

/// Every option can also come from its `OTA_GATEWAY_*` variable (lists: comma-separated).
#[derive(clap::Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080", env = "OTA_GATEWAY_ADDR")]
    addr: SocketAddr,
    /// The database: a SQLite file (created, with demo content, if missing) or
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DB (shared by many gateways).
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
    /// The largest request body (e.g. 1MiB, 256KiB, 65536).
    #[arg(long, default_value = "1MiB", value_parser = config::parse_size, env = "OTA_GATEWAY_BODY_LIMIT")]
    body_limit: usize,
    /// The most connections open at once; more wait to be accepted.
    #[arg(long, default_value_t = config::DEFAULT_MAX_CONNECTIONS, env = "OTA_GATEWAY_MAX_CONNECTIONS")]
    max_connections: usize,
    /// The most memory the request bodies being read may take together (e.g. 64MiB), counted
    /// as their bytes arrive; a body waits for room for what it has sent.
    #[arg(long, default_value = "64MiB", value_parser = config::parse_size, env = "OTA_GATEWAY_BODY_MEMORY")]
    body_memory: usize,
    /// Serve only clients in this network (CIDR or address; repeatable). Others get 403.
    #[arg(long = "allow", value_name = "CIDR", value_parser = config::parse_net, env = "OTA_GATEWAY_ALLOW", value_delimiter = ',')]
    allow: Vec<IpNet>,
    /// The log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text, env = "OTA_GATEWAY_LOG_FORMAT")]
    log_format: LogFormat,
    /// The longest a request may take (e.g. 30s, 500ms).
    #[arg(long, default_value = "30s", value_parser = config::parse_duration, env = "OTA_GATEWAY_REQUEST_TIMEOUT")]
    request_timeout: Duration,
    /// The longest a client may take to send its request headers.
    #[arg(long, default_value = "10s", value_parser = config::parse_duration, env = "OTA_GATEWAY_HEADER_READ_TIMEOUT")]
    header_read_timeout: Duration,
    /// The longest a client may take to send a request's body (then 408): a held upload keeps
    /// its share of --body-memory no longer.
    #[arg(long, default_value = "10s", value_parser = config::parse_duration, env = "OTA_GATEWAY_BODY_READ_TIMEOUT")]
    body_read_timeout: Duration,
    /// At shutdown, how long the requests in flight get to finish.
    #[arg(long, default_value = "30s", value_parser = config::parse_duration, env = "OTA_GATEWAY_SHUTDOWN_GRACE")]
    shutdown_grace: Duration,
    /// How often this gateway adds its look-to-book and daily-quota counts to the database and
    /// reads every gateway's day totals back (how late a daily quota may be across gateways).
    #[arg(long, default_value = "60s", value_parser = config::parse_duration, env = "OTA_GATEWAY_TRAFFIC_FLUSH_INTERVAL")]
    traffic_flush_interval: Duration,
    /// Serve every route under this path prefix (e.g. /sandbox: /sandbox/hotelnbc,
    /// /sandbox/healthz, /sandbox/metrics).
    #[arg(long, default_value = "", value_parser = config::parse_base_path, env = "OTA_GATEWAY_BASE_PATH")]
    base_path: String,
    /// Believe X-Forwarded-For from proxies in this network (repeatable); the client is then
    /// the last forwarded address that is not such a proxy.
    #[arg(long = "trusted-proxy", value_name = "CIDR", value_parser = config::parse_net, env = "OTA_GATEWAY_TRUSTED_PROXY", value_delimiter = ',')]
    trusted_proxies: Vec<IpNet>,
    /// Serve GET /metrics on this address only (instead of on the main address).
    #[arg(long, env = "OTA_GATEWAY_METRICS_ADDR")]
    metrics_addr: Option<SocketAddr>,
    /// Password verifications run at once (argon2 workers, 19 MiB each; default: one per CPU,
    /// at most 4).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256), env = "OTA_GATEWAY_AUTH_WORKERS")]
    auth_workers: Option<u16>,
    /// Authentication failures allowed from one client address before it is locked (for 1 s,
    /// doubling with each further failure, at most 15 min); 0 turns this off.
    #[arg(long, default_value_t = ThrottleSettings::default().address_failures, env = "OTA_GATEWAY_THROTTLE_ADDRESS_FAILURES")]
    throttle_address_failures: u32,
    /// Authentication failures allowed on one requestor id (from any address) before it is
    /// locked for addresses it has not logged in from; 0 turns this off.
    #[arg(long, default_value_t = ThrottleSettings::default().requestor_failures, env = "OTA_GATEWAY_THROTTLE_REQUESTOR_FAILURES")]
    throttle_requestor_failures: u32,
    /// Export OpenTelemetry spans (each request, its operation, each database statement) to
    /// this OTLP/HTTP collector (`http://collector:4318`); off when not given.
    #[arg(long, value_name = "URL", env = "OTA_GATEWAY_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    /// How spans are written to the collector.
    #[arg(long, value_enum, default_value_t = telemetry::OtlpProtocol::HttpProtobuf, env = "OTA_GATEWAY_OTLP_PROTOCOL")]
    otlp_protocol: telemetry::OtlpProtocol,
    /// The `service.name` of the exported spans.
    #[arg(long, default_value = "ota-gateway", env = "OTA_GATEWAY_OTLP_SERVICE_NAME")]
    otlp_service_name: String,
    /// Outbox: attempts at pushing an event to its supplier before it is parked (until
    /// `ota-gateway outbox retry`).
    #[arg(long, default_value_t = OutboxSettings::default().max_attempts, value_parser = clap::value_parser!(u32).range(1..), env = "OTA_GATEWAY_OUTBOX_MAX_ATTEMPTS")]
    outbox_max_attempts: u32,
    /// Outbox: the wait after a failed push, doubled after each further failure (jittered).
    #[arg(long, default_value = "1s", value_parser = config::parse_duration, env = "OTA_GATEWAY_OUTBOX_RETRY_BASE")]
    outbox_retry_base: Duration,
    /// Outbox: the longest wait between two attempts at one event.
    #[arg(long, default_value = "5m", value_parser = config::parse_duration, env = "OTA_GATEWAY_OUTBOX_RETRY_MAX")]
    outbox_retry_max: Duration,
    /// Outbox: how long a supplier's receiver may take to answer a push.
    #[arg(long, default_value = "10s", value_parser = config::parse_duration, env = "OTA_GATEWAY_OUTBOX_TIMEOUT")]
    outbox_timeout: Duration,
    /// Outbox: how often this gateway looks for events due when it found none.
    #[arg(long, default_value = "100ms", value_parser = config::parse_duration, env = "OTA_GATEWAY_OUTBOX_POLL_INTERVAL")]
    outbox_poll_interval: Duration,
    /// Outbox: a PEM file of certificate authorities that https receivers' certificates may
    /// come from, besides the public roots (a supplier's own CA, a test receiver's certificate).
    #[arg(long, value_name = "FILE", env = "OTA_GATEWAY_OUTBOX_CA")]
    outbox_ca: Option<PathBuf>,
    /// Outbox: how long delivered events are kept (e.g. 30d, or off: for ever). The last event
    /// of each booking and hotel is always kept.
    #[arg(long, default_value = "30d", value_parser = parse_retention, env = "OTA_GATEWAY_OUTBOX_RETENTION")]
    outbox_retention: Retention,
    /// Store guests' names and birth dates (the spec's personal fields) in the transaction log
    /// as they are; by default they are masked. Passwords are never stored.
    #[arg(long, env = "OTA_GATEWAY_LOG_UNMASKED")]
    log_unmasked: bool,
    /// How long the transaction log keeps entries (e.g. 60d, 12h), or `off` to keep them:
    /// older ones are deleted by every gateway (at start, then every tenth of it, at most
    /// hourly).
    #[arg(long, default_value = "60d", value_parser = parse_retention, env = "OTA_GATEWAY_LOG_RETENTION")]
    log_retention: Retention,
    /// The most bytes of request and answer bodies this gateway stores in the transaction log
    /// per second (e.g. 4MiB); entries over it are dropped and counted, never waited for.
    #[arg(long, default_value = "4MiB", value_parser = config::parse_size, env = "OTA_GATEWAY_LOG_MAX_RATE")]
    log_max_rate: usize,
}

/// `--log-retention`: a duration, or `off`.
#[derive(Debug, Clone, Copy)]
struct Retention(Option<Duration>);

fn parse_retention(s: &str) -> Result<Retention, String> {
    if s.trim() == "off" {
        return Ok(Retention(None));
    }
    config::parse_duration(s).map(|d| Retention(Some(d)))
}

fn init_logging(format: LogFormat, default_filter: &str) {
    init_logging_with(format, default_filter, None);
}

/// The logs on stderr (filtered by `RUST_LOG`); with `otlp`, also the gateway's spans exported to
/// a collector (every span of the gateway's own code, whatever `RUST_LOG` says: the request, its
/// operation, each database statement).
fn init_logging_with(format: LogFormat, default_filter: &str, otlp: Option<&telemetry::Otlp>) -> Option<String> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi);
    let fmt = match format {
        LogFormat::Text => fmt.boxed(),
        LogFormat::Json => fmt.json().boxed(),
    };
    let (otel, failed) = match otlp.map(telemetry::layer) {
        None => (None, None),
        Some(Ok(layer)) => (
            Some(layer.with_filter(tracing_subscriber::filter::filter_fn(|m| {
                m.is_span() && m.target().starts_with("ota_gateway")
            }))),
            None,
        ),
        Some(Err(e)) => (None, Some(e)),
    };
    let _ = tracing_subscriber::registry().with(fmt.with_filter(filter)).with(otel).try_init();
    failed
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve(*args).await,
        Command::Import { file, db } => import(file, db).await,
        Command::Requestor { command, db } => requestor(command, db).await,
        Command::Outbox { command, db } => outbox(command, db).await,
        Command::Log { command, db } => log(command, db).await,
        Command::Replay { to, credentials, filter, db } => replay(to, credentials, filter, db).await,
        Command::Send { url, file } => send(url, file).await,
    }
}

async fn serve(args: ServeArgs) -> ExitCode {
    let otlp = args.otlp_endpoint.clone().map(|endpoint| telemetry::Otlp {
        endpoint,
        protocol: args.otlp_protocol,
        service_name: args.otlp_service_name.clone(),
    });
    if let Some(e) = init_logging_with(args.log_format, "info", otlp.as_ref()) {
        eprintln!(
            "ota-gateway: cannot export spans to {} (--otlp-endpoint): {e}",
            args.otlp_endpoint.as_deref().unwrap_or_default()
        );
        return ExitCode::FAILURE;
    }
    if let Some(o) = &otlp {
        tracing::info!(endpoint = %o.endpoint, "exporting OpenTelemetry spans");
    }
    let config = Config {
        addr: args.addr,
        db: args.db,
        body_limit: args.body_limit,
        max_connections: args.max_connections,
        body_memory: args.body_memory,
        allow: args.allow,
        log_format: args.log_format,
        request_timeout: args.request_timeout,
        header_read_timeout: args.header_read_timeout,
        body_read_timeout: args.body_read_timeout,
        shutdown_grace: args.shutdown_grace,
        traffic_flush: args.traffic_flush_interval,
        base_path: args.base_path,
        trusted_proxies: args.trusted_proxies,
        metrics_addr: args.metrics_addr,
        throttle: ThrottleSettings {
            address_failures: args.throttle_address_failures,
            requestor_failures: args.throttle_requestor_failures,
            ..ThrottleSettings::default()
        },
        txlog: ota_gateway::txlog::Settings {
            masked: !args.log_unmasked,
            retention: args.log_retention.0,
            max_rate: args.log_max_rate,
            ..ota_gateway::txlog::Settings::default()
        },
    };
    if let Some(n) = args.auth_workers {
        ota_gateway::auth::pool::set_workers(usize::from(n));
    }
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
    let roots = match args.outbox_ca.as_deref().map(ota_gateway::outbox::deliver::read_roots).transpose() {
        Ok(roots) => roots.unwrap_or_default(),
        Err(e) => {
            eprintln!("ota-gateway: --outbox-ca: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outbox = OutboxSettings {
        roots,
        max_attempts: args.outbox_max_attempts,
        retry_base: args.outbox_retry_base,
        retry_max: args.outbox_retry_max.max(args.outbox_retry_base),
        timeout: args.outbox_timeout,
        poll: args.outbox_poll_interval.max(Duration::from_millis(10)),
        ..OutboxSettings::default()
    };
    let content = state.content.clone();
    let catalogues = std::sync::Arc::new(move || {
        let now = content.get();
        ota_gateway::outbox::mapping::Catalogues { hotels: now.hotels.clone(), activities: now.activities.clone() }
    });
    let delivery = tokio::spawn(ota_gateway::outbox::deliver::run(store.clone(), catalogues, outbox.clone()));
    let outbox_purger =
        args.outbox_retention.0.map(|retention| tokio::spawn(outbox_admin::purge_forever(store.clone(), retention)));
    let listener = match tokio::net::TcpListener::bind(config.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ota-gateway: cannot listen on {}: {e}", config.addr);
            return ExitCode::FAILURE;
        }
    };
    let addr = listener.local_addr().unwrap_or(config.addr);
    if let Some(metrics_addr) = config.metrics_addr {
        match tokio::net::TcpListener::bind(metrics_addr).await {
            Ok(l) => {
                let app = ota_gateway::http::metrics_router(state.clone());
                tokio::spawn(async move {
                    if let Err(e) = axum::serve(l, app).await {
                        tracing::error!(error = %e, "the metrics listener stopped");
                    }
                });
                tracing::info!(addr = %metrics_addr, "metrics at /metrics");
            }
            Err(e) => {
                eprintln!("ota-gateway: cannot listen on {metrics_addr} (--metrics-addr): {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    tracing::info!(database = %store.describe(), "store open");
    banner(&state, addr, &config.base_path).await;
    let served = ota_gateway::serve(listener, state, ota_gateway::http::shutdown_signal()).await;
    // The events this gateway holds go back at once (their deliveries in flight are repeated).
    delivery.abort();
    if let Some(p) = outbox_purger {
        p.abort();
    }
    let _ = delivery.await;
    match ota_gateway::outbox::deliver::release(&store, &outbox).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(events = n, "outbox events this gateway held were given back"),
        Err(e) => {
            tracing::warn!(error = %e, "the outbox events this gateway held could not be given back; they are sent again when their lease ends")
        }
    }
    telemetry::shutdown();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints where the gateway listens and, while the demo requestor still has its demo password,
/// its credentials and a request to try.
async fn banner(state: &AppState, addr: SocketAddr, base_path: &str) {
    let host = match addr.ip() {
        ip if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port()),
        _ => addr,
    };
    let base = format!("http://{host}{base_path}");
    println!("ota-gateway listening on {base} (health: {base}/healthz)");
    let still_demo = |(id, id_context, password): (&str, &str, &str)| {
        let source = |t, id_context: Option<&str>, password: Option<&str>| Source {
            requestor_id: RequestorId {
                r#type: t,
                id: id.into(),
                id_context: id_context.map(str::to_string),
                message_password: password.map(str::to_string),
                ..RequestorId::default()
            },
        };
        let pos = Pos {
            source: vec![
                source(RequestorIdCode::Requestor, Some(id_context), None),
                source(RequestorIdCode::MessageCredentials, None, Some(password)),
            ],
        };
        async move { state.auth.authenticate(&state.content.get().requestors, &pos, None, None).await.is_ok() }
    };
    if !still_demo((DEMO_ID, DEMO_ID_CONTEXT, DEMO_PASSWORD)).await {
        return;
    }
    println!("Demo requestor: ID={DEMO_ID} ID_Context={DEMO_ID_CONTEXT} MessagePassword={DEMO_PASSWORD}");
    if still_demo(DEMO_OTA).await {
        let (id, id_context, password) = DEMO_OTA;
        println!(
            "Demo requestor answered in the OpenTravel 2016B dialect: ID={id} ID_Context={id_context} MessagePassword={password}"
        );
    }
    if still_demo(DEMO_SUPPLIER).await {
        let (id, id_context, password) = DEMO_SUPPLIER;
        println!(
            "Demo supplier of the demo hotels (supply notifications): ID={id} ID_Context={id_context} MessagePassword={password}"
        );
    }
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
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
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

/// A supplier's hotel code on the command line.
fn parse_hotel_code(code: &str) -> Result<String, String> {
    ota_gateway::requestors::import::check_hotel_code(code).map(|()| code.to_string())
}

/// Reads a new password: from a prompt (twice) when stdin is a terminal, else stdin's first
/// line. Never from the command line, where other users could see it.
fn read_password(id: &str) -> Result<String, String> {
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("Password for {id}: "))
            .map_err(|e| format!("cannot read the password: {e}"))?;
        let again = rpassword::prompt_password("Again: ").map_err(|e| format!("cannot read the password: {e}"))?;
        if first != again {
            return Err("the passwords differ".into());
        }
        Ok(first)
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| format!("cannot read the password from stdin: {e}"))?;
        Ok(line.trim_end_matches(['\n', '\r']).to_string())
    }
}

async fn requestor(command: RequestorCommand, db: Location) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let done = match command {
        RequestorCommand::Add { id, context, name, allow, disabled, dialect, supplier, hotels } => {
            match read_password(&id) {
                Ok(password) => {
                    let role = if supplier { Role::supplier(hotels) } else { Role::Distributor };
                    let new = NewRequestor {
                        name: name.unwrap_or_else(|| id.clone()),
                        id: id.clone(),
                        id_context: context,
                        password,
                        active: !disabled,
                        allow,
                        dialect,
                        role,
                    };
                    admin::add(&store, new).await.map(|()| format!("requestor {id} created"))
                }
                Err(e) => Err(admin::AdminError::Invalid(e)),
            }
        }
        RequestorCommand::Passwd { id } => match read_password(&id) {
            Ok(password) => admin::passwd(&store, &id, password).await.map(|()| format!("password of {id} changed")),
            Err(e) => Err(admin::AdminError::Invalid(e)),
        },
        RequestorCommand::Set {
            id,
            dialect,
            rate,
            daily_quota,
            rate_for,
            hotels,
            distributor,
            notify_url,
            log,
            log_sample,
        } => {
            // 0: `off`.
            let (rate, daily_quota) =
                (rate.map(|n| Some(n).filter(|n| *n > 0)), daily_quota.map(|n| Some(n).filter(|n| *n > 0)));
            let mut done = Vec::new();
            let mut result = Ok(());
            if let Some(dialect) = dialect {
                result = admin::set_dialect(&store, &id, dialect).await;
                done.push(format!("is answered in the {} dialect", dialect.as_str()));
            }
            if result.is_ok() && (rate.is_some() || daily_quota.is_some() || !rate_for.is_empty()) {
                for (op, n) in &rate_for {
                    done.push(format!(
                        "has rate {} on {op}",
                        if *n == 0 { "off".to_string() } else { format!("{n}/s") }
                    ));
                }
                result = admin::set_limits(&store, &id, rate, daily_quota, rate_for).await;
                let shown = |v: Option<u32>, unit: &str| v.map_or_else(|| "off".to_string(), |n| format!("{n}{unit}"));
                if let Some(r) = rate {
                    done.push(format!("has rate {}", shown(r, "/s")));
                }
                if let Some(q) = daily_quota {
                    done.push(format!("has daily quota {}", shown(q, "")));
                }
            }
            let role = match hotels {
                Some(hotels) => Some(Role::supplier(hotels)),
                None => distributor.then_some(Role::Distributor),
            };
            if result.is_ok()
                && let Some(role) = role
            {
                done.push(match &role {
                    Role::Supplier { hotels } => {
                        format!("supplies {}", hotels.iter().cloned().collect::<Vec<_>>().join(", "))
                    }
                    Role::Distributor => "is a distribution partner".to_string(),
                });
                result = admin::set_role(&store, &id, role).await;
            }
            if result.is_ok()
                && let Some(url) = notify_url
            {
                let url = Some(url).filter(|u| u != "off");
                done.push(match &url {
                    Some(u) => format!("is notified at {}", outbox_admin::shown_url(u)),
                    None => "pulls its notifications (no URL)".to_string(),
                });
                result = outbox_admin::set_notify_url(&store, &id, url)
                    .await
                    .map_err(|e| admin::AdminError::Invalid(e.to_string()));
            }
            if result.is_ok() && (log.is_some() || log_sample.is_some()) {
                result = admin::set_log(&store, &id, log, log_sample).await;
                if let Some(level) = log {
                    done.push(format!("is logged: {}", level.as_str()));
                }
                if let Some(sample) = log_sample {
                    done.push(format!("has log sample {sample}"));
                }
            }
            if done.is_empty() {
                result = Err(admin::AdminError::Invalid(
                    "nothing to set: give --dialect, --rate, --rate-for, --daily-quota, --hotels, --distributor, --notify-url, --log or --log-sample".into(),
                ));
            }
            result.map(|()| format!("requestor {id} {}", done.join(", ")))
        }
        RequestorCommand::Disable { id } => {
            admin::set_active(&store, &id, false).await.map(|()| format!("requestor {id} disabled"))
        }
        RequestorCommand::Enable { id } => {
            admin::set_active(&store, &id, true).await.map(|()| format!("requestor {id} enabled"))
        }
        RequestorCommand::Allow { id, networks, any } => {
            let networks = if any { Vec::new() } else { networks };
            let shown = if networks.is_empty() {
                "any address".to_string()
            } else {
                networks.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            };
            admin::set_allow(&store, &id, networks).await.map(|()| format!("requestor {id} may call from {shown}"))
        }
        RequestorCommand::Stats { id, since } => {
            let since = since.unwrap_or(chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default());
            ota_gateway::requestors::traffic::stats(&store, id.as_deref(), since)
                .await
                .map_err(admin::AdminError::from)
                .map(|all| {
                    let ratio = |r: Option<f64>| r.map_or_else(|| "-".to_string(), |r| format!("{r:.1}"));
                    let mut out = format!(
                        "{:<20} {:>10} {:>10} {:>12} {:>8} {:>8} {:>16} {:>15}",
                        "ID",
                        "REQUESTS",
                        "SEARCHES",
                        "AVAILABILITY",
                        "QUOTES",
                        "BOOKINGS",
                        "LOOKS/BOOKING",
                        "QUOTES/BOOKING"
                    );
                    for (id, c) in all {
                        out.push_str(&format!(
                            "\n{:<20} {:>10} {:>10} {:>12} {:>8} {:>8} {:>16} {:>15}",
                            id,
                            c.requests,
                            c.searches,
                            c.availability,
                            c.quotes,
                            c.bookings,
                            ratio(c.looks_per_booking()),
                            ratio(c.quotes_per_booking())
                        ));
                    }
                    out
                })
        }
        RequestorCommand::List => admin::list(&store).await.map(|all| {
            let mut out = format!(
                "{:<20} {:<20} {:<8} {:<10} {:<8} {:<10} {:<14} {:<32} {:<12} NAME",
                "ID", "ID_CONTEXT", "ACTIVE", "DIALECT", "RATE", "DAY_QUOTA", "LOG", "ALLOW", "KIND"
            );
            for r in all {
                let allow = if r.allow.is_empty() {
                    "any".to_string()
                } else {
                    r.allow.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
                };
                let active = if r.active { "yes" } else { "no" };
                let mut rate = r.limits.rate.map_or_else(|| "-".to_string(), |n| format!("{n}/s"));
                for (op, n) in &r.limits.per_operation {
                    rate.push_str(&format!(",{op}={n}/s"));
                }
                let quota = r.limits.daily_quota.map_or_else(|| "-".to_string(), |n| n.to_string());
                let log = match r.log.level {
                    ota_gateway::txlog::Level::All if r.log.sample != ota_gateway::txlog::Sample::ALL => {
                        format!("all@{}", r.log.sample)
                    }
                    level => level.as_str().to_string(),
                };
                let kind = r.role.kind();
                out.push_str(&format!(
                    "\n{:<20} {:<20} {:<8} {:<10} {:<8} {:<10} {:<14} {:<32} {kind:<12} {}",
                    r.id,
                    r.id_context,
                    active,
                    r.dialect.as_str(),
                    rate,
                    quota,
                    log,
                    allow,
                    r.name
                ));
                if let Role::Supplier { hotels } = &r.role {
                    out.push_str(&format!(
                        " (hotels: {})",
                        if hotels.is_empty() {
                            "none".to_string()
                        } else {
                            hotels.iter().cloned().collect::<Vec<_>>().join(",")
                        }
                    ));
                }
                if let Some(url) = &r.notify_url {
                    out.push_str(&format!(" (notified at {})", outbox_admin::shown_url(url)));
                }
            }
            out
        }),
    };
    report(done)
}

async fn outbox(command: OutboxCommand, db: Location) -> ExitCode {
    init_logging(LogFormat::Text, "warn");
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

/// A command's outcome: its text on stdout (when it has one), or its error on stderr.
fn report(done: Result<String, impl std::fmt::Display>) -> ExitCode {
    match done {
        Ok(text) => {
            if !text.is_empty() {
                println!("{text}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the store of a command, or says why not.
async fn open_store(db: &Location) -> Result<Store, ExitCode> {
    Store::open(db).await.map_err(|e| {
        eprintln!("ota-gateway: cannot open the database {db}: {e}");
        ExitCode::FAILURE
    })
}

async fn log(command: LogCommand, db: Location) -> ExitCode {
    use ota_gateway::txlog;
    init_logging(LogFormat::Text, "warn");
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let done = match command {
        LogCommand::Search { filter } => txlog::search(&store, &filter.filter(), false, filter.limit.unwrap_or(100)).await.map(|entries| {
            let mut out = format!("{:<20} {:<20} {:<14} {:<20} {:>6} {:>9}  {:<24} {:<36} REFERENCES", "ID", "AT", "REQUESTOR", "OPERATION", "STATUS", "MS", "ECHO_TOKEN", "REQUEST_ID");
            for e in entries {
                let status = if e.success { e.status.to_string() } else { format!("{}!", e.status) };
                out.push_str(&format!(
                    "\n{:<20} {:<20} {:<14} {:<20} {:>6} {:>9.1}  {:<24} {:<36} {}",
                    e.id,
                    ota_gateway::store::sql::instant_text(e.at),
                    e.requestor,
                    e.operation,
                    status,
                    e.duration_us as f64 / 1000.0,
                    e.echo_token.as_deref().unwrap_or("-"),
                    e.request_id,
                    e.references.join(" ")
                ));
            }
            out
        }),
        LogCommand::Show { id } => txlog::show(&store, id).await.map(|e| {
            format!(
                "id: {}\nat: {}\nrequestor: {}\noperation: {}\nrequest id: {}\necho token: {}\nreferences: {}\nstatus: {} ({})\nduration: {:.1} ms\ncontent version: {}\nmasked: {}\n\n--- request\n{}\n\n--- answer{}\n{}",
                e.id,
                ota_gateway::store::sql::instant_text(e.at),
                e.requestor,
                e.operation,
                e.request_id,
                e.echo_token.as_deref().unwrap_or("-"),
                e.references.join(" "),
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
        LogCommand::Export { filter } => txlog::export(&store, &filter.filter(), filter.limit.unwrap_or(i64::MAX), &mut std::io::BufWriter::new(std::io::stdout().lock())).await.map(|_| String::new()),
    };
    report(done)
}

async fn replay(
    to: String,
    credentials: ota_gateway::txlog::mask::Credentials,
    filter: FilterArgs,
    db: Location,
) -> ExitCode {
    use ota_gateway::txlog::replay::{self, Verdict};
    init_logging(LogFormat::Text, "warn");
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
        let head = format!("{} {} {}", o.entry, ota_gateway::store::sql::instant_text(o.at), o.operation);
        match &o.verdict {
            Verdict::Same => {
                same += 1;
                println!("{head}: same");
            }
            Verdict::Different { count, at, recorded, replayed } => {
                different += 1;
                let shown =
                    |v: &Option<String>| v.as_deref().map_or_else(|| "(absent)".to_string(), |v| format!("{v:?}"));
                println!(
                    "{head}: DIFFERENT ({count} value(s)); first at {at}: recorded {}, replayed {}",
                    shown(recorded),
                    shown(replayed)
                );
            }
            Verdict::Skipped(why) => {
                other += 1;
                println!("{head}: skipped: {why}");
            }
            Verdict::Failed(why) => {
                other += 1;
                println!("{head}: FAILED: {why}");
            }
        }
    }
    println!("{} replayed: {same} same, {different} different, {other} skipped or failed", outcomes.len());
    if different > 0 || other > 0 { ExitCode::from(3) } else { ExitCode::SUCCESS }
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
