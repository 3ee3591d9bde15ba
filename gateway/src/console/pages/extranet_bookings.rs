//! The hotel extranet's bookings: `GET /extranet/bookings` (the bookings of the supplier's
//! hotels, searchable by reference, guest surname, arrival and created dates and status, a page
//! at a time), `GET /extranet/bookings/{ref}` (one booking: its room stays at the hotels the
//! session may see, with their prices as stored, its guests, its history, whether the supplier
//! acknowledged it), `POST /extranet/bookings/{ref}/acknowledge` (acknowledging it as the
//! supplier's `OTA_NotifReportRQ` does, [`pull::acknowledge_in_extranet`]), and
//! `GET /extranet/arrivals?hotel=H&day=D` (a day's arrivals at a hotel, printable).
//!
//! Every page asks [`crate::bookings::search`] — the queries of `ota-gateway bookings search
//! --supplier SUP` and `bookings show` — scoped to the supplier's hotels, and
//! [`scope::may_see_hotel`] for each hotel it shows: a hotel or booking the session may not see
//! answers [`layout::not_found`], as one that does not exist. A hotel user's supplier is its
//! own; an admin or a viewer (support) names one (`?supplier=SUP`).

use std::collections::BTreeMap;

use axum::Router;
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use chrono::Utc;
use maud::{Markup, html};
use serde::Deserialize;

use super::{next_page, path_segment};
use crate::audit::Actor;
use crate::bookings::search::{self, Filter, SearchError};
use crate::bookings::show::{self, Booking, Event, Item};
use crate::console::ConsoleState;
use crate::console::layout::{self, csrf_field};
use crate::console::security::{Client, HotelEditor, Hotelier};
use crate::operators::scope;
use crate::operators::session::Session;
use crate::outbox::pull;
use crate::store::Store;

/// The routes of these pages.
pub fn routes() -> Router<ConsoleState> {
    Router::new()
        .route("/extranet/bookings", get(list))
        .route("/extranet/bookings/{reference}", get(one))
        .route("/extranet/bookings/{reference}/acknowledge", post(acknowledge))
        .route("/extranet/arrivals", get(arrivals))
}

/// The supplier whose bookings a session sees: a hotel user's own (whatever it asks); the one
/// an admin or a viewer names.
fn supplier_of(session: &Session, asked: Option<&str>) -> Option<String> {
    if session.is_hotel() {
        return session.supplier.clone();
    }
    asked.map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// The `supplier=` part of a link, for an admin or a viewer (a hotel user's is implied).
fn supplier_param(session: &Session, supplier: &str) -> String {
    if session.is_hotel() { String::new() } else { format!("supplier={}&", path_segment(supplier)) }
}

fn or_dash(v: Option<&str>) -> &str {
    v.unwrap_or("–")
}

/// A store failure's page.
fn unavailable(e: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %e, "console: extranet");
    layout::error(StatusCode::SERVICE_UNAVAILABLE, "The database could not be read: try again.")
}

/// The page an admin or a viewer sees before naming a supplier: every supplier with hotels.
async fn choose_supplier(state: &ConsoleState, session: &Session, path: &str) -> Response {
    let hotels = match scope::hotels(&state.app.store, session).await {
        Ok(h) => h,
        Err(e) => return unavailable(&e),
    };
    let mut suppliers: Vec<&str> = hotels.iter().map(|h| h.supplier.as_str()).collect();
    suppliers.dedup();
    let body = html! {
        p { "Whose extranet? Choose a supplier:" }
        ul {
            @for s in &suppliers {
                li { a href={ (path) "?supplier=" (path_segment(s)) } { (s) } }
            }
        }
    };
    layout::page(session, "Extranet bookings", body)
}

/// `GET /extranet/bookings`.
async fn list(
    State(state): State<ConsoleState>,
    Hotelier(session): Hotelier,
    Query(asked): Query<search::Query>,
) -> Response {
    // The extranet searches one supplier's hotels: no partner, activity or order.
    let ask = search::Query { partner: None, activity: None, sort: None, ..asked };
    let Some(supplier) = supplier_of(&session, ask.supplier.as_deref()) else {
        return choose_supplier(&state, &session, "/extranet/bookings").await;
    };
    let store = &state.app.store;
    if let Some(hotel) = ask.hotel.as_deref().map(str::trim).filter(|h| !h.is_empty()) {
        match scope::may_see_hotel(store, &session, hotel).await {
            Ok(true) => {}
            Ok(false) => return layout::not_found(),
            Err(e) => return unavailable(&e),
        }
    }
    let query = search::Query { supplier: Some(supplier.clone()), ..ask.clone() };
    let (status, result) = match Filter::parse(&query) {
        Err(e) => (StatusCode::BAD_REQUEST, layout::notice(false, &e.to_string())),
        Ok(filter) => match search::search(store, &filter).await {
            Err(e @ SearchError::Invalid { .. }) => (StatusCode::BAD_REQUEST, layout::notice(false, &e.to_string())),
            Err(e) => return unavailable(&e),
            Ok(page) => {
                let next = page
                    .next
                    .as_ref()
                    .map(|cursor| next_page("/extranet/bookings", &supplier_param(&session, &supplier), &ask, cursor));
                let supplier_part = supplier_param(&session, &supplier);
                let rows = html! {
                    @if page.rows.is_empty() { p.muted #results { "No booking matches." } } @else {
                        table #results {
                            thead { tr { th { "Reference" } th { "Client reference" } th { "Hotel" } th { "Lead guest" } th { "Arrival" } th { "Nights" } th { "Status" } th { "Partner" } th { "Made (UTC)" } } }
                            tbody {
                                @for r in &page.rows {
                                    tr {
                                        td { a href={ "/extranet/bookings/" (path_segment(&r.internal_ref)) @if !supplier_part.is_empty() { "?" (supplier_part.trim_end_matches('&')) } } { (r.internal_ref) } }
                                        td { (r.client_ref) }
                                        td { (or_dash(r.hotel.as_deref())) }
                                        td { (or_dash(r.lead_guest.as_deref())) }
                                        td { (r.arrival) }
                                        td { @if let Some(n) = r.nights { (n) } @else { "–" } }
                                        td { (r.status) }
                                        td { (r.partner) }
                                        td { (r.created) }
                                    }
                                }
                            }
                        }
                    }
                    @if let Some(next) = &next { p { a #next href=(next) { "Next page" } } }
                };
                (StatusCode::OK, rows)
            }
        },
    };
    let value = |v: &Option<String>| v.clone().unwrap_or_default();
    let body = html! {
        form.stack #search method="get" action="/extranet/bookings" {
            @if !session.is_hotel() { input type="hidden" name="supplier" value=(supplier); }
            label for="ref" { "Reference (Internal or Client)" }
            input #ref type="text" name="ref" value=(value(&ask.reference));
            label for="surname" { "Guest surname (its start)" }
            input #surname type="text" name="surname" value=(value(&ask.surname));
            label for="hotel" { "Hotel (code)" }
            input #hotel type="text" name="hotel" value=(value(&ask.hotel));
            label for="arrival-from" { "Arrival from" }
            input #arrival-from type="date" name="arrival-from" value=(value(&ask.arrival_from));
            label for="arrival-to" { "Arrival to" }
            input #arrival-to type="date" name="arrival-to" value=(value(&ask.arrival_to));
            label for="created-from" { "Made from (UTC)" }
            input #created-from type="date" name="created-from" value=(value(&ask.created_from));
            label for="created-to" { "Made to (UTC)" }
            input #created-to type="date" name="created-to" value=(value(&ask.created_to));
            label for="status" { "Status" }
            select #status name="status" {
                @for (v, label) in [("", "any"), ("Reserved", "Reserved"), ("Cancelled", "Cancelled")] {
                    option value=(v) selected[ask.status.as_deref().unwrap_or("") == v] { (label) }
                }
            }
            p { button type="submit" { "Search" } }
        }
        (result)
    };
    layout::page_with_status(status, &session, "Bookings", body)
}

/// A booking as a session may see it: the booking, its room stays and its events at the hotels
/// the session may see (none: the booking is not found for it).
struct Visible {
    booking: Booking,
    items: Vec<Item>,
    events: Vec<Event>,
}

impl Visible {
    /// True when the supplier acknowledged every event of the hotels shown.
    fn acknowledged(&self) -> bool {
        self.events.iter().all(|e| e.state == "delivered")
    }

    /// The last event shown (what an acknowledgement goes up to).
    fn last_event(&self) -> Option<i64> {
        self.events.iter().map(|e| e.id).max()
    }
}

/// Finds booking `reference` as `session` may see it: `Ok(None)` when it may not (or the
/// booking does not exist), the error's page otherwise.
async fn visible(
    store: &Store,
    session: &Session,
    supplier: Option<&str>,
    reference: &str,
) -> Result<Option<Visible>, Response> {
    let found = match supplier {
        Some(sup) => show::show_of_supplier(store, reference, sup).await,
        None => show::show(store, reference, None).await,
    };
    let booking = match found {
        Ok(b) => b,
        Err(SearchError::NotFound(_) | SearchError::Invalid { .. }) => return Ok(None),
        Err(e @ SearchError::Ambiguous { .. }) => {
            let body = html! { (layout::notice(false, &e.to_string())) p { a href="/extranet/bookings" { "Search the bookings" } } };
            return Err(layout::page_with_status(StatusCode::CONFLICT, session, "Booking", body));
        }
        Err(e) => return Err(unavailable(&e)),
    };
    let mut seen: BTreeMap<String, bool> = BTreeMap::new();
    let hotels =
        booking.items.iter().filter_map(|i| i.hotel.clone()).chain(booking.events.iter().map(|e| e.hotel.clone()));
    let mut hotels: Vec<String> = hotels.collect();
    hotels.sort();
    hotels.dedup();
    for hotel in hotels {
        {
            let may = scope::may_see_hotel(store, session, &hotel).await.map_err(|e| unavailable(&e))?;
            // An admin or a viewer naming a supplier sees that supplier's hotels.
            let of_supplier = match supplier {
                Some(sup) if !session.is_hotel() => {
                    scope::hotels_of(store, sup).await.map_err(|e| unavailable(&e))?.contains(&hotel)
                }
                _ => true,
            };
            seen.insert(hotel, may && of_supplier);
        }
    }
    let shown = |h: &str| seen.get(h).copied().unwrap_or(false);
    let items: Vec<Item> = booking.items.iter().filter(|i| i.hotel.as_deref().is_some_and(shown)).cloned().collect();
    if items.is_empty() {
        return Ok(None);
    }
    let events = booking.events.iter().filter(|e| shown(&e.hotel)).cloned().collect();
    Ok(Some(Visible { booking, items, events }))
}

/// Which supplier, for an admin or a viewer.
#[derive(Debug, Default, Deserialize)]
struct Which {
    #[serde(default)]
    supplier: Option<String>,
}

/// `GET /extranet/bookings/{ref}`.
async fn one(
    State(state): State<ConsoleState>,
    Hotelier(session): Hotelier,
    Path(reference): Path<String>,
    Query(which): Query<Which>,
) -> Response {
    let supplier = supplier_of(&session, which.supplier.as_deref());
    match visible(&state.app.store, &session, supplier.as_deref(), &reference).await {
        Err(page) => page,
        Ok(None) => layout::not_found(),
        Ok(Some(v)) => booking_page(&session, supplier.as_deref(), &v, StatusCode::OK, None),
    }
}

/// A booking's page.
fn booking_page(
    session: &Session,
    supplier: Option<&str>,
    v: &Visible,
    status: StatusCode,
    notice: Option<Markup>,
) -> Response {
    let h = &v.booking.head;
    let action = match supplier.filter(|_| !session.is_hotel()) {
        Some(sup) => {
            format!("/extranet/bookings/{}/acknowledge?supplier={}", path_segment(&h.internal_ref), path_segment(sup))
        }
        None => format!("/extranet/bookings/{}/acknowledge", path_segment(&h.internal_ref)),
    };
    let body = html! {
        @if let Some(n) = notice { (n) }
        table.fields {
            tbody {
                tr { th { "Reference" } td { (h.internal_ref) } }
                tr { th { "Client reference" } td { (h.client_ref) } }
                tr { th { "Partner" } td { (h.partner) } }
                tr { th { "Lead guest" } td { (or_dash(h.lead_guest.as_deref())) } }
                tr { th { "Status" } td { (h.status) } }
                tr { th { "Made (UTC)" } td { (h.created) } }
                tr { th { "Changed (UTC)" } td { (h.modified) } }
                tr {
                    th { "Acknowledged" }
                    td #acknowledged {
                        @if v.events.is_empty() { "–" }
                        @else if v.acknowledged() { span.badge.on { "acknowledged" } }
                        @else { span.badge.off { "not acknowledged" } }
                    }
                }
            }
        }
        @if let (false, Some(upto)) = (v.acknowledged(), v.last_event()) {
            form.inline #acknowledge method="post" action=(action) {
                (csrf_field(session))
                input type="hidden" name="upto" value=(upto);
                button type="submit" { "Acknowledge" }
                " " span.muted { "as your system's OTA_NotifReportRQ would: its pull no longer gives it." }
            }
        }
        h2 { "Room stays and prices (as stored)" }
        table #items {
            thead { tr { th { "Hotel" } th { "Room" } th { "Board" } th { "From" } th { "To" } th { "Price" } th { "Status" } th { "Cancelled at" } th { "Cancel penalty" } } }
            tbody {
                @for i in &v.items {
                    tr {
                        td { (or_dash(i.hotel.as_deref())) }
                        td { (or_dash(i.room_type.as_deref())) }
                        td { (or_dash(i.board.as_deref())) }
                        td { (i.start) }
                        td { (i.end) }
                        td { (i.price) " " (h.currency) }
                        td { (or_dash(i.status.as_deref())) }
                        td { (or_dash(i.cancelled_at.as_deref())) }
                        td { (or_dash(i.cancel_penalty.as_deref())) }
                    }
                }
            }
        }
        h2 { "Guests" }
        @if v.booking.guests.is_empty() { p.muted { "No guest stored." } } @else {
            table #guests {
                thead { tr { th { "Category" } th { "Age" } th { "Prefix" } th { "Given name" } th { "Surname" } } }
                tbody {
                    @for g in &v.booking.guests {
                        tr {
                            td { (g.category) }
                            td { @if let Some(a) = g.age { (a) } @else { "–" } }
                            td { (or_dash(g.name_prefix.as_deref())) }
                            td { (or_dash(g.given_name.as_deref())) }
                            td { (or_dash(g.surname.as_deref())) }
                        }
                    }
                }
            }
        }
        h2 { "History" }
        @if v.booking.history.is_empty() { p.muted { "No version kept." } } @else {
            table #history {
                thead { tr { th { "Change" } th { "By" } th { "At (UTC)" } th { "Status" } } }
                tbody {
                    @for x in &v.booking.history {
                        tr {
                            td { (x.change) }
                            td { (x.by_kind) " " (x.by) }
                            td { (x.at) }
                            td { (or_dash(x.status.as_deref())) }
                        }
                    }
                }
            }
        }
        h2 { "Notifications to your system" }
        @if v.events.is_empty() { p.muted { "None." } } @else {
            table #events {
                thead { tr { th { "Event" } th { "Hotel" } th { "Kind" } th { "State" } th { "Written (UTC)" } th { "Acknowledged (UTC)" } } }
                tbody {
                    @for e in &v.events {
                        tr {
                            td { (e.id) }
                            td { (e.hotel) }
                            td { (e.kind) }
                            td { (if e.state == "delivered" { "acknowledged" } else { e.state.as_str() }) }
                            td { (e.created) }
                            td { (or_dash(e.delivered.as_deref())) }
                        }
                    }
                }
            }
        }
        p { a href="/extranet/bookings" { "All bookings" } }
    };
    layout::page_with_status(status, session, &format!("Booking {}", h.internal_ref), body)
}

/// The acknowledge form's field: the last event the page showed.
#[derive(Debug, Deserialize)]
struct Upto {
    #[serde(default)]
    upto: String,
}

/// `POST /extranet/bookings/{ref}/acknowledge` (a hotel user or an admin).
async fn acknowledge(
    State(state): State<ConsoleState>,
    HotelEditor(session): HotelEditor,
    Client(client): Client,
    Path(reference): Path<String>,
    Query(which): Query<Which>,
    Form(f): Form<Upto>,
) -> Response {
    let supplier = supplier_of(&session, which.supplier.as_deref());
    let store = &state.app.store;
    let v = match visible(store, &session, supplier.as_deref(), &reference).await {
        Err(page) => return page,
        Ok(None) => return layout::not_found(),
        Ok(Some(v)) => v,
    };
    // Only up to an event the page showed: never one of another supplier's hotels.
    let Some(upto) = f.upto.trim().parse::<i64>().ok().filter(|id| v.events.iter().any(|e| e.id == *id)) else {
        return layout::not_found();
    };
    let mut suppliers: Vec<String> = v.events.iter().map(|e| e.supplier.clone()).collect();
    suppliers.sort();
    suppliers.dedup();
    let actor = Actor::operator(&session.operator, client);
    let internal = v.booking.head.internal_ref.clone();
    let n = match pull::acknowledge_in_extranet(store, &actor, &internal, suppliers, upto).await {
        Ok(n) => n,
        Err(e) => return unavailable(&e),
    };
    let text =
        if n > 0 { format!("Acknowledged ({n} notification(s)).") } else { "It was acknowledged already.".into() };
    match visible(store, &session, supplier.as_deref(), &internal).await {
        Err(page) => page,
        Ok(None) => layout::not_found(),
        Ok(Some(v)) => {
            booking_page(&session, supplier.as_deref(), &v, StatusCode::OK, Some(layout::notice(true, &text)))
        }
    }
}

/// The arrivals page's parameters.
#[derive(Debug, Default, Deserialize)]
struct Day {
    #[serde(default)]
    hotel: Option<String>,
    #[serde(default)]
    day: Option<String>,
    #[serde(default)]
    supplier: Option<String>,
}

/// `GET /extranet/arrivals?hotel=H&day=D`: the bookings arriving at a hotel on a day (today,
/// UTC, unless given), Reserved, for printing (the style sheet's print rules leave only the
/// list).
async fn arrivals(State(state): State<ConsoleState>, Hotelier(session): Hotelier, Query(d): Query<Day>) -> Response {
    let store = &state.app.store;
    let Some(hotel) = d.hotel.as_deref().map(str::trim).filter(|h| !h.is_empty()) else {
        let hotels = match scope::hotels(store, &session).await {
            Ok(h) => h,
            Err(e) => return unavailable(&e),
        };
        let body = html! {
            p { "Whose arrivals? Choose a hotel:" }
            ul { @for h in &hotels { li { a href={ "/extranet/arrivals?hotel=" (path_segment(&h.code)) } { (h.code) } } } }
        };
        return layout::page(&session, "Arrivals", body);
    };
    match scope::may_see_hotel(store, &session, hotel).await {
        Ok(true) => {}
        Ok(false) => return layout::not_found(),
        Err(e) => return unavailable(&e),
    }
    let day = d.day.clone().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| Utc::now().date_naive().to_string());
    let query = search::Query {
        supplier: supplier_of(&session, d.supplier.as_deref()),
        hotel: Some(hotel.to_string()),
        arrival_from: Some(day.clone()),
        arrival_to: Some(day.clone()),
        status: Some("Reserved".into()),
        sort: Some("arrival".into()),
        limit: Some(search::MAX_LIMIT.to_string()),
        ..search::Query::default()
    };
    let page = match Filter::parse(&query) {
        Err(e) => {
            return layout::page_with_status(
                StatusCode::BAD_REQUEST,
                &session,
                "Arrivals",
                layout::notice(false, &e.to_string()),
            );
        }
        Ok(f) => match search::search(store, &f).await {
            Ok(p) => p,
            Err(e) => return unavailable(&e),
        },
    };
    let name = state.app.content.get().hotels.hotel(hotel).map(|h| h.name.clone()).unwrap_or_default();
    let body = html! {
        p.print-only { strong { (hotel) " " (name) } " — arrivals on " (day) }
        form.stack.no-print method="get" action="/extranet/arrivals" {
            input type="hidden" name="hotel" value=(hotel);
            label for="day" { "Day" }
            input #day type="date" name="day" value=(day);
            p { button type="submit" { "Show" } " " span.muted { "Print this page with your browser: only the list is printed." } }
        }
        @if page.rows.is_empty() { p #arrivals { "No arrival on " (day) "." } } @else {
            table #arrivals.arrivals {
                thead { tr { th { "Guest" } th { "Nights" } th { "Reference" } th { "Client reference" } th { "Partner" } } }
                tbody {
                    @for r in &page.rows {
                        tr {
                            td { (or_dash(r.lead_guest.as_deref())) }
                            td { @if let Some(n) = r.nights { (n) } @else { "–" } }
                            td { (r.internal_ref) }
                            td { (r.client_ref) }
                            td { (r.partner) }
                        }
                    }
                }
            }
        }
    };
    layout::page(&session, &format!("Arrivals at {hotel} on {day}"), body)
}
