//! `GET /`: the overview — who is logged in, this gateway's version and database, the partners;
//! and the alert on bookings not acknowledged by their supplier after `serve
//! --unacked-alert-minutes` (Channex alerts at 30), linking to the Deliveries filter that
//! lists them ([`crate::outbox::admin::unacknowledged`], the same count as the
//! `ota_outbox_unacknowledged_bookings` gauge).

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use maud::{Markup, html};

use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::Viewer;
use crate::outbox::admin::{OutboxError, UnackedAlert};

fn or_dash(v: Option<i64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| v.to_string())
}

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/", get(overview))
}

/// The alert on bookings not acknowledged in time: a line when there are some (linking to the
/// Deliveries filter that lists their events), the count either way; a database failure says so.
fn unacked(minutes: u32, found: &Result<UnackedAlert, OutboxError>) -> Markup {
    let link = format!("/deliveries?unacked_after={minutes}");
    html! {
        @match found {
            Ok(u) if u.counted.bookings > 0 => {
                p.notice.error #unacked-alert role="alert" {
                    (u.counted.bookings) @if u.counted.bookings == 1 { " booking" } @else { " bookings" }
                    " not acknowledged by their supplier " (minutes) " minutes after the booking change ("
                    (u.counted.events) @if u.counted.events == 1 { " event" } @else { " events" } "). "
                    a #unacked-link href=(link) { "See them in Deliveries" }
                }
            }
            Ok(_) => {}
            Err(e) => { p.notice.error role="alert" { "The bookings not acknowledged could not be counted: " (e.to_string()) } }
        }
    }
}

/// `GET /`.
async fn overview(State(state): State<ConsoleState>, Viewer(session): Viewer) -> Response {
    let content = state.app.content.get();
    let minutes = state.app.config.unacked_alert_minutes;
    let found = crate::outbox::admin::unacknowledged(&state.app.store, minutes).await;
    let count = found.as_ref().map(|u| u.counted.bookings).ok();
    let body = html! {
        (unacked(minutes, &found))
        p { "Logged in as " strong { (session.operator) } " (" (session.role.as_str()) ")." }
        table {
            tr { th { "Gateway" } td { "ota-gateway " (env!("CARGO_PKG_VERSION")) } }
            tr { th { "Database" } td.mono { (state.app.store.describe()) } }
            tr { th { "Partners and suppliers" } td { (content.requestors.len()) } }
            tr { th { "Content version" } td { (content.version) } }
            tr {
                th { "Bookings not acknowledged after " (minutes) " minutes" }
                td #unacked-count { a href={ "/deliveries?unacked_after=" (minutes) } { (or_dash(count)) } }
            }
        }
    };
    layout::page(&session, "Overview", body)
}
