//! `GET /audit` (admins and viewers): the audit trail, newest first, filtered by actor or
//! target — the query `ota-gateway audit list` asks ([`crate::audit::list`]).

use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use maud::html;
use serde::Deserialize;

use crate::audit::{self, Filter};
use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::Viewer;

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/audit", get(trail))
}

/// The filters of the page (empty: none).
#[derive(Deserialize, Default)]
struct Filters {
    #[serde(default)]
    actor: String,
    #[serde(default)]
    target: String,
}

/// The most entries shown.
const SHOWN: usize = 500;

/// `GET /audit?actor=…&target=…`.
async fn trail(State(state): State<ConsoleState>, Viewer(session): Viewer, Query(f): Query<Filters>) -> Response {
    let some = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    let filter = Filter { actor: some(&f.actor), target: some(&f.target), limit: SHOWN, ..Filter::default() };
    let entries = match audit::list(&state.app.store, filter).await {
        Ok(e) => e,
        Err(e) => {
            tracing::error!(error = %e, "console: audit");
            return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The audit trail could not be read; try again.");
        }
    };
    let body = html! {
        form method="get" action="/audit" {
            label { "Actor " input type="text" name="actor" value=(f.actor); }
            " "
            label { "Target " input type="text" name="target" value=(f.target); }
            " "
            button type="submit" { "Filter" }
        }
        p.muted { "The newest " (SHOWN) " changes at most; `ota-gateway audit list` reads them all." }
        table {
            thead { tr { th { "When (UTC)" } th { "Actor" } th { "From" } th { "Action" } th { "Target" } th { "Before" } th { "After" } } }
            tbody {
                @for e in &entries {
                    tr {
                        td { (e.at.format("%Y-%m-%d %H:%M:%S")) }
                        td { (e.actor) }
                        td { (e.address.as_deref().unwrap_or("")) }
                        td.mono { (e.action) }
                        td { (e.target) }
                        td.mono { (e.old.as_deref().unwrap_or("")) }
                        td.mono { (e.new.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
    };
    layout::page(&session, "Audit trail", body)
}
