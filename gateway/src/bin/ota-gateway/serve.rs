//! `ota-gateway serve`: runs the gateway.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use ipnet::IpNet;
use ota_gateway::auth::ThrottleSettings;
use ota_gateway::config::{self, Config, DEFAULT_DB, LogFormat};
use ota_gateway::import::{self, DEMO_ID, DEMO_ID_CONTEXT, DEMO_OTA, DEMO_PASSWORD, DEMO_SUPPLIER};
use ota_gateway::outbox::Settings as OutboxSettings;
use ota_gateway::outbox::admin as outbox_admin;
use ota_gateway::telemetry;
use ota_gateway::{AppState, Location, Store};
use ota_messages::common::{Pos, RequestorId, RequestorIdCode, Source};

use crate::shared::init_logging_with;

/// Every option can also come from its `OTA_GATEWAY_*` variable (lists: comma-separated).
#[derive(clap::Args)]
pub struct ServeArgs {
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
    /// The most memory the request bodies being read may take together (e.g. 64MiB); a body
    /// waits for room before it is read.
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

/// Runs the gateway until SIGINT or SIGTERM.
pub async fn run(args: ServeArgs) -> ExitCode {
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
