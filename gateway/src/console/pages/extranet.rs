//! `GET /extranet`: the hotel extranet's home — the hotels the session may see
//! ([`scope::hotels`]: a hotel user its supplier's, an admin or a viewer every supplier's, for
//! support), each with its bookings counted ([`search::hotel_counts`]) and links to its
//! bookings and today's arrivals.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use maud::html;

use super::path_segment;
use crate::bookings::search;
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
    let mut suppliers: Vec<&str> = hotels.iter().map(|h| h.supplier.as_str()).collect();
    suppliers.sort_unstable();
    suppliers.dedup();
    let mut counts = std::collections::BTreeMap::new();
    for sup in suppliers {
        match search::hotel_counts(&state.app.store, sup).await {
            Ok(c) => counts.extend(c.into_iter().map(|c| (c.hotel.clone(), c))),
            Err(e) => {
                tracing::error!(error = %e, "console: extranet counts");
                return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The hotels could not be read; try again.");
            }
        }
    }
    let content = state.app.content.get();
    let body = html! {
        @if hotels.is_empty() {
            p.muted { "No hotel yet: the gateway's operators give the supplier its hotels." }
        } @else {
            table {
                thead { tr { th { "Hotel" } th { "Name" } th { "Supplier" } th { "Bookings" } th { "Not acknowledged" } th {} th {} } }
                tbody {
                    @for h in &hotels {
                        @let c = counts.get(&h.code);
                        @let sup = if session.is_hotel() { String::new() } else { format!("supplier={}&", path_segment(&h.supplier)) };
                        tr {
                            td.mono { (h.code) }
                            td { (content.hotels.hotel(&h.code).map_or("", |x| x.name.as_str())) }
                            td { (h.supplier) }
                            td.bookings { a href={ "/extranet/bookings?" (sup) "hotel=" (path_segment(&h.code)) } { (c.map_or(0, |c| c.bookings)) } }
                            td.unacknowledged { (c.map_or(0, |c| c.unacknowledged)) }
                            td { a href={ "/extranet/arrivals?" (sup) "hotel=" (path_segment(&h.code)) } { "Today's arrivals" } }
                            td { a.calendar href={ "/extranet/hotels/" (path_segment(&h.code)) "/calendar" } { "Calendar" } }
                        }
                    }
                }
            }
        }
    };
    layout::page(&session, "Extranet", body)
}
