//! `GET /bookings`: finding any booking — by partner, hotel or activity, Internal or Client
//! reference, guest surname, created and arrival (service) date ranges and status, sorted, a
//! page at a time (the next page's link carries the cursor) — and `GET /bookings/{ref}`: one
//! booking whole (its items and prices as stored, its guests, its history, its
//! transaction-log entries and its outbox events, with a link to its deliveries). The same
//! queries as `ota-gateway bookings search|show` ([`crate::bookings::search`]): the form's
//! fields are named as the command's flags, and a bad value is refused (400) with the same
//! sentence naming the field.

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use maud::{Markup, html};
use serde::Deserialize;

use super::{next_page, path_segment};
use crate::bookings::search::{self, Filter, Page, SearchError, Sort};
use crate::bookings::show::{self, Booking};
use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::Viewer;

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/bookings", get(list)).route("/bookings/{reference}", get(one))
}

fn or_dash(v: Option<&str>) -> &str {
    v.unwrap_or("–")
}

/// A text field of the form.
fn field(id: &'static str, label: &'static str, kind: &'static str, value: &Option<String>) -> Markup {
    html! {
        label for=(id) { (label) }
        input id=(id) type=(kind) name=(id) value=(value.as_deref().unwrap_or(""));
    }
}

/// The search form (GET: the result's address can be kept and shared).
fn form(ask: &search::Query) -> Markup {
    let status = ask.status.as_deref().unwrap_or("");
    let sort = ask.sort.as_deref().unwrap_or("");
    html! {
        form.stack #search method="get" action="/bookings" {
            (field("ref", "Internal or Client reference", "text", &ask.reference))
            (field("surname", "Guest surname (starts with, any case)", "text", &ask.surname))
            (field("partner", "Partner (requestor id)", "text", &ask.partner))
            (field("hotel", "Hotel (code)", "text", &ask.hotel))
            (field("activity", "Activity (id)", "text", &ask.activity))
            (field("created-from", "Made from (UTC, YYYY-MM-DD)", "date", &ask.created_from))
            (field("created-to", "Made until", "date", &ask.created_to))
            (field("arrival-from", "Arrival or service from", "date", &ask.arrival_from))
            (field("arrival-to", "Arrival or service until", "date", &ask.arrival_to))
            label for="status" { "Status" }
            select #status name="status" {
                option value="" selected[status.is_empty()] { "any" }
                @for s in ["Reserved", "Cancelled"] {
                    option value=(s) selected[status.eq_ignore_ascii_case(s)] { (s) }
                }
            }
            label for="sort" { "Order" }
            select #sort name="sort" {
                @for s in Sort::ALL {
                    option value=(s.as_str()) selected[sort.eq_ignore_ascii_case(s.as_str()) || (sort.is_empty() && s == Sort::default())] {
                        (s.as_str())
                    }
                }
            }
            (field("limit", "Rows per page (1 to 500)", "number", &ask.limit))
            p { button type="submit" { "Search" } }
        }
    }
}

/// A page of results.
fn results(ask: &search::Query, page: &Page) -> Markup {
    html! {
        @if page.rows.is_empty() { p { "No booking matches." } } @else {
            table #results {
                thead { tr { th { "Kind" } th { "Internal reference" } th { "Client reference" } th { "Partner" } th { "Hotel / activity" } th { "Lead guest" } th { "Arrival / service" } th { "Nights" } th { "Status" } th { "Total" } th { "Made (UTC)" } th { "Changed (UTC)" } } }
                tbody {
                    @for r in &page.rows {
                        tr {
                            td { (r.kind) }
                            td { a href={ "/bookings/" (path_segment(&r.internal_ref)) } { (r.internal_ref) } }
                            td { a href={ "/bookings/" (path_segment(&r.client_ref)) "?partner=" (path_segment(&r.partner)) } { (r.client_ref) } }
                            td { (r.partner) }
                            td { (or_dash(r.hotel.as_deref().or(r.activity.as_deref()))) }
                            td { (or_dash(r.lead_guest.as_deref())) }
                            td { (r.arrival) }
                            td { @if let Some(n) = r.nights { (n) } @else { "–" } }
                            td { (r.status) }
                            td { (r.total) " " (r.currency) }
                            td { (r.created) }
                            td { (r.modified) }
                        }
                    }
                }
            }
        }
        @if let Some(next) = &page.next {
            p { a #next href=(next_page("/bookings", "", ask, next)) { "Next page" } }
        }
    }
}

/// The status a search or show error answers.
fn status_of(e: &SearchError) -> StatusCode {
    match e {
        SearchError::Invalid { .. } => StatusCode::BAD_REQUEST,
        SearchError::NotFound(_) => StatusCode::NOT_FOUND,
        SearchError::Ambiguous { .. } => StatusCode::CONFLICT,
        SearchError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The sentence an error shows (a store failure is not detailed on the page).
fn message_of(e: &SearchError) -> String {
    match e {
        SearchError::Store(_) => "The database could not be read: try again.".to_string(),
        e => e.to_string(),
    }
}

/// `GET /bookings`: the form, and the results when a search is asked.
async fn list(
    State(state): State<ConsoleState>,
    Viewer(session): Viewer,
    Query(mut ask): Query<search::Query>,
) -> Response {
    // The extranet's scope is not a filter of this page.
    ask.supplier = None;
    let asked = !ask.given().is_empty() || ask.after.as_deref().is_some_and(|a| !a.trim().is_empty());
    let (status, result) = if asked {
        match Filter::parse(&ask) {
            Err(e) => (status_of(&e), layout::notice(false, &message_of(&e))),
            Ok(filter) => match search::search(&state.app.store, &filter).await {
                Ok(page) => (StatusCode::OK, results(&ask, &page)),
                Err(e) => {
                    if matches!(e, SearchError::Store(_)) {
                        tracing::error!(error = %e, "console: bookings search failed");
                    }
                    (status_of(&e), layout::notice(false, &message_of(&e)))
                }
            },
        }
    } else {
        (StatusCode::OK, html! { p.muted { "Give any filter, or none and search: the newest bookings first." } })
    };
    let body = html! {
        (form(&ask))
        (result)
    };
    layout::page_with_status(status, &session, "Bookings", body)
}

/// Which booking, when a Client reference is used by several partners.
#[derive(Debug, Default, Deserialize)]
struct Which {
    #[serde(default)]
    partner: Option<String>,
}

/// `GET /bookings/{ref}`: one booking whole.
async fn one(
    State(state): State<ConsoleState>,
    Viewer(session): Viewer,
    Path(reference): Path<String>,
    Query(which): Query<Which>,
) -> Response {
    let partner = which.partner.as_deref().map(str::trim).filter(|p| !p.is_empty());
    match show::show(&state.app.store, &reference, partner).await {
        Ok(b) => layout::page(&session, &format!("Booking {}", b.head.internal_ref), booking(&b)),
        Err(e) => {
            if matches!(e, SearchError::Store(_)) {
                tracing::error!(error = %e, "console: a booking could not be read");
            }
            let body = html! {
                (layout::notice(false, &message_of(&e)))
                @if matches!(e, SearchError::Ambiguous { .. }) {
                    form.stack method="get" action={ "/bookings/" (path_segment(&reference)) } {
                        label for="partner" { "Partner (requestor id)" }
                        input #partner type="text" name="partner" value=(partner.unwrap_or(""));
                        p { button type="submit" { "Show its booking" } }
                    }
                }
                p { a href="/bookings" { "Search the bookings" } }
            };
            layout::page_with_status(status_of(&e), &session, "Booking", body)
        }
    }
}

/// A booking's sections.
fn booking(b: &Booking) -> Markup {
    let h = &b.head;
    html! {
        table.fields {
            tbody {
                tr { th { "Kind" } td { (h.kind) } }
                tr { th { "Internal reference" } td { (h.internal_ref) } }
                tr { th { "Client reference" } td { (h.client_ref) } }
                tr { th { "Partner" } td { (h.partner) } }
                tr { th { "Hotel / activity" } td { (or_dash(h.hotel.as_deref().or(h.activity.as_deref()))) } }
                tr { th { "Lead guest" } td { (or_dash(h.lead_guest.as_deref())) } }
                tr { th { "Arrival / service" } td { (h.arrival) @if let Some(n) = h.nights { " (" (n) " nights)" } } }
                tr { th { "Status" } td { (h.status) } }
                tr { th { "Total" } td { (h.total) " " (h.currency) } }
                tr { th { "Made (UTC)" } td { (h.created) } }
                tr { th { "Changed (UTC)" } td { (h.modified) } }
            }
        }
        h2 { "Items and prices (as stored)" }
        @if b.items.is_empty() { p.muted { "No item stored." } } @else {
            table #items {
                thead { tr { th { "Hotel / product" } th { "Room / service" } th { "Board" } th { "From" } th { "To" } th { "Price" } th { "Status" } th { "Cancelled at" } th { "Cancel penalty" } th { "Pickup" } } }
                tbody {
                    @for i in &b.items {
                        tr {
                            td { (or_dash(i.hotel.as_deref().or(i.product.as_deref()))) }
                            td { (or_dash(i.room_type.as_deref().or(i.service.as_deref()))) }
                            td { (or_dash(i.board.as_deref())) }
                            td { (i.start) }
                            td { (i.end) }
                            td { (i.price) }
                            td { (or_dash(i.status.as_deref())) }
                            td { (or_dash(i.cancelled_at.as_deref())) }
                            td { (or_dash(i.cancel_penalty.as_deref())) }
                            td { (or_dash(i.pickup.as_deref())) }
                        }
                    }
                }
            }
        }
        h2 { "Guests" }
        @if b.guests.is_empty() { p.muted { "No guest stored." } } @else {
            table #guests {
                thead { tr { th { "Category" } th { "Age" } th { "Prefix" } th { "Given name" } th { "Surname" } th { "Price" } } }
                tbody {
                    @for g in &b.guests {
                        tr {
                            td { (g.category) }
                            td { @if let Some(a) = g.age { (a) } @else { "–" } }
                            td { (or_dash(g.name_prefix.as_deref())) }
                            td { (or_dash(g.given_name.as_deref())) }
                            td { (or_dash(g.surname.as_deref())) }
                            td { (or_dash(g.price.as_deref())) }
                        }
                    }
                }
            }
        }
        h2 { "History" }
        @if b.history.is_empty() { p.muted { "No version kept." } } @else {
            table #history {
                thead { tr { th { "Change" } th { "By" } th { "At (UTC)" } th { "Status" } th { "Total" } } }
                tbody {
                    @for v in &b.history {
                        tr {
                            td { (v.change) @if v.reconstructed { " (reconstructed)" } }
                            td { (v.by_kind) " " (v.by) }
                            td { (v.at) }
                            td { (or_dash(v.status.as_deref())) }
                            td { (or_dash(v.total.as_deref())) " " (v.currency.as_deref().unwrap_or("")) }
                        }
                    }
                }
            }
        }
        (log_and_deliveries(b))
        p { a #deliveries href={ "/deliveries?ref=" (path_segment(&h.internal_ref)) } { "Every delivery attempt of this booking" } }
    }
}

/// A booking's transaction-log entries and its deliveries to the hotel.
fn log_and_deliveries(b: &Booking) -> Markup {
    html! {
    h2 { "Transaction log" }
    @if b.log.is_empty() { p.muted { "No transaction-log entry (the partner's requests about it are not logged, or no longer kept)." } } @else {
        @if b.log.len() >= usize::try_from(show::MAX_LOG_ENTRIES).unwrap_or(usize::MAX) {
            p.muted { "The first " (show::MAX_LOG_ENTRIES) " entries." }
        }
        table #log {
            thead { tr { th { "Entry" } th { "At (UTC)" } th { "Requestor" } th { "Operation" } th { "HTTP" } th { "Outcome" } th { "References" } } }
            tbody {
                @for e in &b.log {
                    tr {
                        td { (e.id) }
                        td { (e.at) }
                        td { (e.requestor) }
                        td { (e.operation) }
                        td { (e.status) }
                        td { (e.outcome) }
                        td { (e.references.join(" ")) }
                    }
                }
            }
        }
    }
    h2 { "Deliveries to the hotel" }
    @if b.events.is_empty() { p.muted { "No outbox event: its hotels have no supplier." } } @else {
        table #events {
            thead { tr { th { "Event" } th { "Hotel" } th { "Seq" } th { "Supplier" } th { "Kind" } th { "State" } th { "Attempts" } th { "Written (UTC)" } th { "Delivered (UTC)" } th { "Last error" } } }
            tbody {
                @for e in &b.events {
                    tr {
                        td { (e.id) }
                        td { (e.hotel) }
                        td { (e.seq) }
                        td { (e.supplier) }
                        td { (e.kind) }
                        td { (e.state) }
                        td { (e.attempts) }
                        td { (e.created) }
                        td { (or_dash(e.delivered.as_deref())) }
                        td { (or_dash(e.last_error.as_deref())) }
                    }
                }
            }
        }
    }
    }
}
