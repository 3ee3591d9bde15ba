//! What every command shares: the outcome's report, the store's opening, the logs.

use std::io::Write as _;
use std::process::ExitCode;

use ota_gateway::config::LogFormat;
use ota_gateway::{Location, Store, telemetry};
use tracing_subscriber::EnvFilter;

/// A command's outcome: its text on stdout (when it has one), or its error on stderr.
pub fn report(done: Result<String, impl std::fmt::Display>) -> ExitCode {
    match done {
        Ok(text) => {
            if !text.is_empty() {
                print(&text);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ota-gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints `text` and a new line on stdout. When the reader has gone (`| head`), the command ends
/// there, quietly and successfully: the reader took what it wanted (Rust ignores SIGPIPE, so
/// `println!` would panic with exit 101).
pub fn print(text: &str) {
    let written = writeln!(std::io::stdout().lock(), "{text}");
    if let Err(e) = written {
        stdout_failed(&e);
    }
}

/// Ends the command on a failed write to stdout: quietly (exit 0) when the reader has gone,
/// else saying why (exit 1).
pub fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("ota-gateway: cannot write to stdout: {e}");
    std::process::exit(1)
}

/// Starts an administration command: its logs (warnings only, as text) and its store, or says
/// why not: a SQLite file that does not exist is not created (a mistyped `--db` would else be
/// an empty database that seems to work).
pub async fn open_store(db: &Location) -> Result<Store, ExitCode> {
    init_logging(LogFormat::Text, "warn");
    require_existing(db)?;
    create_store(db).await
}

/// Refuses a SQLite file that does not exist (saying so on stderr): only `serve` and `import`
/// create one.
pub fn require_existing(db: &Location) -> Result<(), ExitCode> {
    if let Location::Sqlite(path) = db
        && !path.exists()
    {
        eprintln!(
            "ota-gateway: no database at {} (--db): only `ota-gateway serve` and `import` create one",
            path.display()
        );
        return Err(ExitCode::FAILURE);
    }
    Ok(())
}

/// Opens the store of `serve` or `import`, creating a SQLite file that does not exist, or says
/// why not.
pub async fn create_store(db: &Location) -> Result<Store, ExitCode> {
    Store::open(db).await.map_err(|e| {
        eprintln!("ota-gateway: cannot open the database {db}: {e}");
        ExitCode::FAILURE
    })
}

/// The logs on stderr (filtered by `RUST_LOG`, `default_filter` unless it is set).
pub fn init_logging(format: LogFormat, default_filter: &str) {
    init_logging_with(format, default_filter, None);
}

/// The logs on stderr (filtered by `RUST_LOG`); with `otlp`, also the gateway's spans exported to
/// a collector (every span of the gateway's own code, whatever `RUST_LOG` says: the request, its
/// operation, each database statement).
pub fn init_logging_with(format: LogFormat, default_filter: &str, otlp: Option<&telemetry::Otlp>) -> Option<String> {
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

/// A value as one JSON document (what `--json` prints; a list is an array of objects).
pub fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string())
}
