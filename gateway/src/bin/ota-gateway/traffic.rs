//! `ota-gateway traffic`: every gateway's traffic per partner and operation (the console's
//! Traffic page asks the same question: `ota_gateway::traffic::query::traffic`).

use std::fmt::Write as _;
use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::config::DEFAULT_DB;
use ota_gateway::shared::log_text::LogText;
use ota_gateway::traffic::query::{self, Figures, Filter, Traffic, Window};

use crate::shared::{open_store, report, to_json};

/// The arguments of `traffic`.
#[derive(clap::Args)]
pub struct Args {
    /// The period: the last hour per minute, the last 7 days per hour, or the last 60 days per
    /// UTC day.
    #[arg(long, default_value = "hour", value_parser = ["hour", "week", "days"])]
    window: String,
    /// Only this partner's traffic (a requestor id; `-`: the requests whose requestor is not
    /// known).
    #[arg(long)]
    partner: Option<String>,
    /// Only this operation's traffic (its path without the slash: hotelavail, activitybook, …).
    #[arg(long)]
    operation: Option<String>,
    /// One JSON document instead of the text tables.
    #[arg(long)]
    json: bool,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB")]
    db: Location,
}

/// Runs `traffic`.
pub async fn run(args: Args) -> ExitCode {
    let store = match open_store(&args.db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let window = Window::parse(&args.window).unwrap_or(Window::Hour);
    let partner = args.partner.map(|p| if p == "-" { String::new() } else { p });
    let filter = Filter { partner, operation: args.operation };
    let done = query::traffic(&store, window, &filter, chrono::Utc::now())
        .await
        .map(|t| if args.json { to_json(&t) } else { text(&t) });
    report(done)
}

fn ms(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn ratio(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.1}"))
}

fn figures_row(f: &Figures) -> String {
    format!(
        "{:>8} {:>8} {:>7} {:>7} {:>6.1} {:>6} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7} {:>8} {:>7}",
        f.requests,
        f.success,
        f.warning,
        f.errors,
        f.error_share * 100.0,
        f.http_4xx,
        f.http_5xx,
        f.http_429,
        ms(f.p50_ms),
        ms(f.p99_ms),
        f.looks,
        f.quotes,
        f.bookings,
        ratio(f.looks_per_booking)
    )
}

const FIGURES_HEAD: &str =
    "REQUESTS  SUCCESS WARNING  ERRORS ERROR%    4XX    5XX    429 P50(ms) P99(ms)   LOOKS  QUOTES BOOKINGS LOOKS/B";

/// The text tables: the window and its total, the worst lines, the error codes, the series.
fn text(t: &Traffic) -> String {
    let mut out = String::new();
    let who = match t.partner.as_deref() {
        None => "every partner".to_string(),
        Some("") => "the unknown partner".to_string(),
        Some(p) => format!("partner {}", LogText(p)),
    };
    let what =
        t.operation.as_deref().map_or_else(|| "every operation".to_string(), |o| format!("operation {}", LogText(o)));
    let _ = writeln!(
        out,
        "Traffic of {who}, {what}: {} to {} per {} s (every gateway's, stored every --traffic-flush-interval)",
        t.from.format("%Y-%m-%d %H:%M"),
        t.to.format("%Y-%m-%d %H:%M UTC"),
        t.step_seconds
    );
    let _ = writeln!(out, "\n{:<24} {:<24} {FIGURES_HEAD}", "PARTNER", "OPERATION");
    let _ = writeln!(out, "{:<24} {:<24} {}", "(total)", "", figures_row(&t.total));
    for l in &t.lines {
        let partner = l.partner.as_deref().map_or_else(|| "(unknown)".to_string(), |p| LogText(p).to_string());
        let _ = writeln!(out, "{:<24} {:<24} {}", partner, LogText(&l.operation), figures_row(&l.figures));
    }
    let _ = writeln!(out, "\n{:<8} {:<8} {:>8}", "TYPE", "CODE", "COUNT");
    for e in &t.error_codes {
        let _ = writeln!(out, "{:<8} {:<8} {:>8}", LogText(&e.error_type), LogText(&e.error_code), e.count);
    }
    let _ = writeln!(out, "\n{:<17} {FIGURES_HEAD}", "STEP (UTC)");
    for p in &t.series {
        let _ = writeln!(out, "{:<17} {}", p.at.format("%Y-%m-%d %H:%M"), figures_row(&p.figures));
    }
    out.trim_end().to_string()
}
