//! `GET /`: the overview — who is logged in, this gateway's version and database, the partners.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use maud::html;

use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::Viewer;

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/", get(overview))
}

/// `GET /`.
async fn overview(State(state): State<ConsoleState>, Viewer(session): Viewer) -> Response {
    let content = state.app.content.get();
    let body = html! {
        p { "Logged in as " strong { (session.operator) } " (" (session.role.as_str()) ")." }
        table {
            tr { th { "Gateway" } td { "ota-gateway " (env!("CARGO_PKG_VERSION")) } }
            tr { th { "Database" } td.mono { (state.app.store.describe()) } }
            tr { th { "Partners and suppliers" } td { (content.requestors.len()) } }
            tr { th { "Content version" } td { (content.version) } }
        }
    };
    layout::page(&session, "Overview", body)
}
