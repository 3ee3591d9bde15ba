//! `GET /traffic` (admins and viewers): every gateway's traffic per partner and operation over
//! a window, with the filters as a GET form, the requests and errors as an SVG chart, the lines
//! (the worst first) and the error codes (the most frequent first) — the query `ota-gateway
//! traffic` asks ([`crate::traffic::query::traffic`]), its answer kept for a flush interval
//! ([`crate::traffic::query::Recent`]).

use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;

use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::Viewer;
use crate::traffic::chart;
use crate::traffic::query::{Figures, Filter, Window};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/traffic", get(traffic))
}

/// The filters of the page (empty: none; partner `-`: the unknown partner).
#[derive(Deserialize, Default)]
struct Filters {
    #[serde(default)]
    window: String,
    #[serde(default)]
    partner: String,
    #[serde(default)]
    operation: String,
}

fn ms(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn figures(f: &Figures) -> Markup {
    html! {
        td.num { (f.requests) } td.num { (f.success) } td.num { (f.warning) } td.num { (f.errors) }
        td.num { (format!("{:.1}", f.error_share * 100.0)) }
        td.num { (f.http_4xx) } td.num { (f.http_5xx) } td.num { (f.http_429) }
        td.num { (ms(f.p50_ms)) } td.num { (ms(f.p99_ms)) }
        td.num { (f.looks) } td.num { (f.quotes) } td.num { (f.bookings) }
        td.num { (f.looks_per_booking.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))) }
    }
}

fn head() -> Markup {
    html! {
        th { "Requests" } th { "Success" } th { "Warning" } th { "Errors" } th { "Error %" }
        th { "HTTP 4xx" } th { "HTTP 5xx" } th { "429" } th { "p50 ms" } th { "p99 ms" }
        th { "Looks" } th { "Quotes" } th { "Bookings" } th { "Looks/booking" }
    }
}

/// `GET /traffic?window=hour|week|days&partner=…&operation=…`.
async fn traffic(State(state): State<ConsoleState>, Viewer(session): Viewer, Query(f): Query<Filters>) -> Response {
    let window = Window::parse(f.window.trim()).unwrap_or(Window::Hour);
    let some = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    let partner = some(&f.partner).map(|p| if p == "-" { String::new() } else { p });
    let filter = Filter { partner, operation: some(&f.operation) };
    let t = match state.traffic.traffic(&state.app.store, window, &filter, chrono::Utc::now()).await {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(error = %e, "console: traffic");
            return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The traffic could not be read; try again.");
        }
    };
    let body = html! {
        form method="get" action="/traffic" {
            label { "Window "
                select name="window" {
                    @for (w, label) in [(Window::Hour, "last hour, per minute"), (Window::Week, "7 days, per hour"), (Window::Days, "60 days, per day")] {
                        option value=(w.as_str()) selected[w == window] { (label) }
                    }
                }
            }
            " "
            label { "Partner " input type="text" name="partner" value=(f.partner) placeholder="every one (- : unknown)"; }
            " "
            label { "Operation " input type="text" name="operation" value=(f.operation) placeholder="every one"; }
            " "
            button type="submit" { "Show" }
        }
        p.muted { "Every gateway's traffic, stored every --traffic-flush-interval (this page's figures may be that old again: several operators looking at the same window read it once). From "
            (t.from.format("%Y-%m-%d %H:%M")) " to " (t.to.format("%Y-%m-%d %H:%M")) " UTC." }
        (PreEscaped(chart::svg(&t)))
        h2 { "Per partner and operation, the worst first" }
        table {
            thead { tr { th { "Partner" } th { "Operation" } (head()) } }
            tbody {
                tr.total { td { "(total)" } td {} (figures(&t.total)) }
                @for l in &t.lines {
                    tr {
                        td { (l.partner.as_deref().unwrap_or("(unknown)")) }
                        td.mono { (l.operation) }
                        (figures(&l.figures))
                    }
                }
            }
        }
        h2 { "OTA errors, the most frequent first" }
        table {
            thead { tr { th { "Type" } th { "Code" } th { "Answers" } } }
            tbody {
                @for e in &t.error_codes {
                    tr { td.mono { (e.error_type) } td.mono { (e.error_code) } td.num { (e.count) } }
                }
            }
        }
    };
    layout::page(&session, "Traffic", body)
}
