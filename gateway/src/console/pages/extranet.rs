//! `GET /extranet`: the hotel extranet's home — the hotels the session may see
//! ([`scope::hotels`]: a hotel user its supplier's, an admin or a viewer every supplier's, for
//! support).

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use maud::html;

use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::Hotelier;
use crate::operators::scope;

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/extranet", get(home))
}

/// `GET /extranet`.
async fn home(State(state): State<ConsoleState>, Hotelier(session): Hotelier) -> Response {
    let hotels = match scope::hotels(&state.app.store, &session).await {
        Ok(h) => h,
        Err(e) => {
            tracing::error!(error = %e, "console: extranet hotels");
            return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The hotels could not be read; try again.");
        }
    };
    let content = state.app.content.get();
    let body = html! {
        @if hotels.is_empty() {
            p.muted { "No hotel yet: the gateway's operators give the supplier its hotels." }
        } @else {
            table {
                thead { tr { th { "Hotel" } th { "Name" } th { "Supplier" } } }
                tbody {
                    @for h in &hotels {
                        tr {
                            td.mono { (h.code) }
                            td { (content.hotels.hotel(&h.code).map_or("", |x| x.name.as_str())) }
                            td { (h.supplier) }
                        }
                    }
                }
            }
        }
    };
    layout::page(&session, "Extranet", body)
}
