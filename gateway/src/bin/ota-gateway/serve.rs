//! `ota-gateway serve`: runs the gateway.

use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use ota_gateway::config::Config;
use ota_gateway::import::{
    self, DEMO_HOTEL_USER, DEMO_ID, DEMO_ID_CONTEXT, DEMO_OPERATOR, DEMO_OTA, DEMO_PASSWORD, DEMO_SUPPLIER,
};
use ota_gateway::server::{self, Background};
use ota_gateway::{AppState, Store, outbox, telemetry};
use ota_messages::common::{Pos, RequestorId, RequestorIdCode, Source};

use crate::shared::init_logging_with;

/// The arguments of `serve`: the gateway's settings ([`Config`], the outbox's) and what the
/// process needs besides. Every option can also come from its `OTA_GATEWAY_*` variable (lists:
/// comma-separated).
#[derive(clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    config: Config,
    /// Password verifications run at once (argon2 workers, 19 MiB each; default: one per CPU,
    /// at most 4).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256), env = "OTA_GATEWAY_AUTH_WORKERS")]
    auth_workers: Option<u16>,
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
    #[command(flatten)]
    outbox: outbox::Settings,
    #[command(flatten)]
    alerts: outbox::alerts::Settings,
    /// Load the demo content (partners, hotels, activities; its credentials are printed) into
    /// a database that has no requestor yet; without it, nothing is ever added.
    #[arg(long, env = "OTA_GATEWAY_DEMO")]
    demo: bool,
    /// Do not migrate the schema at start (a rolling upgrade runs `ota-gateway migrate` once,
    /// then restarts the gateways one by one): on a schema older than this gateway needs, it
    /// refuses to start (exit 1) instead of serving without its tables.
    #[arg(long, env = "OTA_GATEWAY_NO_MIGRATE")]
    no_migrate: bool,
    /// Upgrade rehearsals only: this gateway knows one more (additive, unused) migration than
    /// its release, so that it plays the next release (see `migrate --rehearse-upgrade`).
    #[arg(long, hide = true)]
    rehearse_upgrade: bool,
}

/// Runs the gateway until SIGINT or SIGTERM.
pub async fn run(args: ServeArgs) -> ExitCode {
    let otlp = args.otlp_endpoint.clone().map(|endpoint| telemetry::Otlp {
        endpoint,
        protocol: args.otlp_protocol,
        service_name: args.otlp_service_name.clone(),
    });
    if let Some(e) = init_logging_with(args.config.log_format, "info", otlp.as_ref()) {
        eprintln!(
            "ota-gateway: cannot export spans to {} (--otlp-endpoint): {e}",
            args.otlp_endpoint.as_deref().unwrap_or_default()
        );
        return ExitCode::FAILURE;
    }
    if let Some(o) = &otlp {
        tracing::info!(endpoint = %o.endpoint, "exporting OpenTelemetry spans");
    }
    if let Some(n) = args.auth_workers {
        ota_gateway::auth::pool::set_workers(usize::from(n));
    }
    let plan = ota_gateway::store::migrate::Plan {
        apply: !args.no_migrate,
        rehearsal: args.rehearse_upgrade,
        ..ota_gateway::store::migrate::Plan::START
    };
    let served = match start(args.config, args.outbox, args.alerts, args.demo, &plan).await {
        Ok(served) => served,
        Err(message) => {
            eprintln!("ota-gateway: {message}");
            return ExitCode::FAILURE;
        }
    };
    telemetry::shutdown();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the store, loads the content, binds the listeners and serves until the shutdown
/// signal; `Err` says why the gateway could not start.
async fn start(
    config: Config,
    mut outbox: outbox::Settings,
    alerts: outbox::alerts::Settings,
    demo: bool,
    plan: &ota_gateway::store::migrate::Plan,
) -> Result<std::io::Result<()>, String> {
    let store =
        Store::open_with(&config.db, plan).await.map_err(|e| format!("cannot open the database {}: {e}", config.db))?;
    // Demo content only when asked: never added silently to an operator's database. Said in
    // the log (a record like every line of it; stdout is the banner only).
    if demo {
        match import::seed_demo_if_empty(&store).await.map_err(|e| format!("cannot load the demo content: {e}"))? {
            true => tracing::info!(db = %store.describe(), "demo content loaded"),
            false => tracing::info!("demo content not loaded: the database has requestors already"),
        }
    } else {
        tracing::info!("no demo content (serve --demo loads it into an empty database)");
    }
    let state =
        AppState::new(store.clone(), config.clone()).await.map_err(|e| format!("cannot load the content: {e}"))?;
    if let Some(ca) = &outbox.ca {
        outbox.roots = outbox::deliver::read_roots(ca).map_err(|e| format!("--outbox-ca: {e}"))?;
    }
    outbox.retry_max = outbox.retry_max.max(outbox.retry_base);
    outbox.poll = outbox.poll.max(Duration::from_millis(10));
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener.local_addr().unwrap_or(config.addr);
    let metrics = match config.metrics_addr {
        Some(metrics_addr) => {
            let l = tokio::net::TcpListener::bind(metrics_addr)
                .await
                .map_err(|e| format!("cannot listen on {metrics_addr} (--metrics-addr): {e}"))?;
            tracing::info!(addr = %metrics_addr, "metrics at /metrics");
            Some(l)
        }
        None => None,
    };
    let console = match (config.console.addr, demo) {
        (Some(console_addr), _) => Some(
            tokio::net::TcpListener::bind(console_addr)
                .await
                .map_err(|e| format!("cannot listen on {console_addr} (--console-addr): {e}"))?,
        ),
        // The demo's console, on a loopback port; taken already (another demo gateway on this
        // host): the gateway serves without one.
        (None, true) => match tokio::net::TcpListener::bind(DEMO_CONSOLE_ADDR).await {
            Ok(l) => Some(l),
            Err(e) => {
                tracing::warn!(addr = DEMO_CONSOLE_ADDR, error = %e, "no demo console (give --console-addr)");
                None
            }
        },
        (None, false) => None,
    };
    let console_addr = console.as_ref().and_then(|l| l.local_addr().ok());
    tracing::info!(database = %store.describe(), "store open");
    banner(&state, addr, &config.base_path, console_addr).await;
    if alerts.url.is_none() {
        tracing::info!("no booking alerts by e-mail (serve --smtp-url sends them)");
    }
    let background = Background { refresh_content: true, outbox: Some(outbox), alerts: Some(alerts), metrics, console };
    Ok(server::run(listener, state, background, ota_gateway::http::shutdown_signal()).await)
}

/// Where `serve --demo` serves the console unless `--console-addr` says otherwise.
const DEMO_CONSOLE_ADDR: &str = "127.0.0.1:8081";

/// A listening address as a browser reaches it (an unspecified address: the loopback).
fn reachable(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        ip if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port()),
        _ => addr,
    }
}

/// Prints where the gateway and its console listen and, while the demo requestor (the demo
/// operator) still has its demo password, its credentials and a request to try.
async fn banner(state: &AppState, addr: SocketAddr, base_path: &str, console: Option<SocketAddr>) {
    let base = format!("http://{}{base_path}", reachable(addr));
    say(&format!("ota-gateway listening on {base} (health: {base}/healthz)"));
    if let Some(console) = console {
        say(&format!("Operator console: http://{}/", reachable(console)));
        let (name, password) = DEMO_OPERATOR;
        if ota_gateway::operators::session::still_has_password(&state.store, name, password).await {
            say(&format!("Demo console login (an admin): name {name}, password {password}"));
        }
        let (name, password) = DEMO_HOTEL_USER;
        if ota_gateway::operators::session::still_has_password(&state.store, name, password).await {
            say(&format!("Demo extranet login (the demo hotels' user): name {name}, password {password}"));
        }
    }
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
    say(&format!("Demo requestor: ID={DEMO_ID} ID_Context={DEMO_ID_CONTEXT} MessagePassword={DEMO_PASSWORD}"));
    if still_demo(DEMO_OTA).await {
        let (id, id_context, password) = DEMO_OTA;
        say(&format!(
            "Demo requestor answered in the OpenTravel 2016B dialect: ID={id} ID_Context={id_context} MessagePassword={password}"
        ));
    }
    if still_demo(DEMO_SUPPLIER).await {
        let (id, id_context, password) = DEMO_SUPPLIER;
        say(&format!(
            "Demo supplier of the demo hotels (supply notifications): ID={id} ID_Context={id_context} MessagePassword={password}"
        ));
    }
    say("Try it:");
    say(&format!(
        "  curl -sS -H 'Content-Type: application/xml' {base}/hotelnbc --data-binary \
         '<OTA_HotelDescriptiveInfoRQ xmlns=\"http://www.opentravel.org/OTA/2003/05\" Version=\"2009.1\" EchoToken=\"try-1\">\
         <POS><Source><RequestorID Type=\"22\" ID=\"{DEMO_ID}\" ID_Context=\"{DEMO_ID_CONTEXT}\"/></Source>\
         <Source><RequestorID Type=\"88\" ID=\"{DEMO_ID}\" MessagePassword=\"{DEMO_PASSWORD}\"/></Source></POS>\
         <HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode=\"HTL00042\"/></HotelDescriptiveInfos>\
         </OTA_HotelDescriptiveInfoRQ>'"
    ));
}

/// Prints a line of the banner; a stdout nobody reads (`serve | head -1`) never stops the
/// gateway.
fn say(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}
