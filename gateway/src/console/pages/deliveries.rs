//! `GET /deliveries`: every delivery of a booking event to the hotel's system — a booking's
//! (`?ref=REF`, its Internal or Client reference: its events, each with every attempt kept and
//! the notification each push sent) or a supplier's (`?supplier=SUP`, filtered: failing,
//! parked, not acknowledged after N minutes), or every supplier's with a filter and no supplier
//! (`?unacked_after=30`: what the overview's alert links to) — and `POST
//! /deliveries/{event}/resend` (admins only) to send any event again.
//! The same queries and the same resend as `ota-gateway outbox history|resend`
//! ([`crate::outbox::admin`]); the resend is asked for by the operator.

use axum::Router;
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use crate::console::ConsoleState;
use crate::console::layout::{self, csrf_field};
use crate::console::security::{Admin, Client, Viewer};
use crate::operators::session::Session;
use crate::outbox::admin::{self, DeliveryFilter, EventHistory};
use crate::outbox::repo::{history::Attempt, history::Delivery};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/deliveries", get(show)).route("/deliveries/{event}/resend", post(resend))
}

/// What the page is asked for: a booking's deliveries, or a supplier's with filters.
#[derive(Debug, Default, Deserialize)]
struct Ask {
    /// A booking's Internal or Client reference.
    #[serde(default, rename = "ref")]
    reference: String,
    /// A supplier's id.
    #[serde(default)]
    supplier: String,
    /// Only failing events.
    #[serde(default)]
    failing: Option<String>,
    /// Only parked events.
    #[serde(default)]
    parked: Option<String>,
    /// Only events not acknowledged after this many minutes (empty: no filter).
    #[serde(default)]
    unacked_after: String,
}

/// An instant of milliseconds since 1970 as shown (UTC).
fn at(ms: Option<i64>) -> String {
    ms.and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(|| "–".to_string(), |t| t.format("%Y-%m-%d %H:%M:%S%.3f").to_string())
}

fn or_dash<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "–".to_string(), |v| v.to_string())
}

/// The forms on top: a booking by reference, a supplier with its filters.
fn forms(ask: &Ask) -> Markup {
    html! {
        form.stack method="get" action="/deliveries" {
            label for="ref" { "Booking (Internal or Client reference)" }
            input #ref type="text" name="ref" value=(ask.reference);
            p { button type="submit" { "Show its deliveries" } }
        }
        form.stack method="get" action="/deliveries" {
            label for="supplier" { "Supplier" }
            input #supplier type="text" name="supplier" value=(ask.supplier);
            label { input type="checkbox" name="failing" value="on" checked[ask.failing.is_some()]; " failing (last attempt failed)" }
            label { input type="checkbox" name="parked" value="on" checked[ask.parked.is_some()]; " parked" }
            label for="unacked_after" { "Not acknowledged after (minutes)" }
            input #unacked_after type="number" min="0" name="unacked_after" value=(ask.unacked_after);
            p { button type="submit" { "Show the supplier's deliveries" } }
        }
    }
}

/// The resend button of an event (admins only; the server checks too), coming back to `back`.
fn resend_button(session: &Session, id: i64, back: &Ask) -> Markup {
    html! {
        @if session.is_admin() {
            form.inline method="post" action={ "/deliveries/" (id) "/resend" } {
                (csrf_field(session))
                input type="hidden" name="ref" value=(back.reference);
                input type="hidden" name="supplier" value=(back.supplier);
                input type="hidden" name="unacked_after" value=(back.unacked_after);
                @if back.failing.is_some() { input type="hidden" name="failing" value="on"; }
                @if back.parked.is_some() { input type="hidden" name="parked" value="on"; }
                button type="submit" { "Resend" }
            }
        }
    }
}

/// A booking's events, each with its attempts.
fn booking(session: &Session, ask: &Ask, events: &[EventHistory]) -> Markup {
    html! {
        @if events.is_empty() { p { "This booking has no events: its hotels have no supplier." } }
        @for h in events {
            @let e = &h.event;
            h2 { "Event " (e.id) ": " (e.event_kind) " · " (e.state) }
            p {
                (e.booking_kind) " booking " (e.booking_ref) " (client " (e.client_ref.as_deref().unwrap_or("–")) "), hotel "
                (e.hotel_code) ", sequence " (e.seq) ", supplier " (e.supplier_id) " by " (e.delivery)
                ", written " (at(Some(e.created_at))) @if let Some(d) = e.delivered_at { ", acknowledged " (at(Some(d))) }
                @if let Some(by) = &e.resent_by { ", resent by " (by) " at " (at(e.resent_at)) }
                " " (resend_button(session, e.id, ask))
            }
            (attempts(&h.attempts))
        }
    }
}

/// An attempt's outcome as shown: one begun and never completed says so (never failed or
/// delivered: whether the receiver had it is unknown).
fn shown_outcome(outcome: &str) -> &str {
    match outcome {
        "in_flight" => "in flight",
        "interrupted" => "interrupted (no outcome recorded)",
        other => other,
    }
}

/// The notification a push sent, as kept (folded: a booking's is a few KiB).
fn sent(a: &Attempt) -> Markup {
    html! {
        @if let Some(body) = &a.body {
            details.sent {
                summary {
                    "The notification sent (" (or_dash(a.body_bytes)) " bytes"
                    @if a.body_bytes.is_some_and(|n| usize::try_from(n).is_ok_and(|n| n > body.len())) { ", its first 64 KiB kept" }
                    @if a.body_masked { ", personal values masked" }
                    ")"
                }
                pre { (body) }
            }
        }
    }
}

/// The attempts of an event, oldest first.
fn attempts(all: &[Attempt]) -> Markup {
    html! {
        @if all.is_empty() { p.muted { "No attempt kept." } } @else {
            table {
                thead { tr { th { "#" } th { "At (UTC)" } th { "Outcome" } th { "HTTP" } th { "Latency" } th { "Retransmission" } th { "Gateway" } th { "Receiver" } th { "Error / answer" } th { "Sent" } } }
                tbody {
                    @for (i, a) in all.iter().enumerate() {
                        tr {
                            td { (i + 1) }
                            td { (at(Some(a.at))) }
                            td { (shown_outcome(&a.outcome)) }
                            td { (or_dash(a.http_status)) }
                            td { @if let Some(l) = a.latency_ms { (l) " ms" } @else { "–" } }
                            td { @if a.retransmission { "yes" @if let Some(by) = &a.requested_by { ", asked by " (by) } } @else { "no" } }
                            td { (a.gateway.as_deref().unwrap_or("–")) }
                            td { (a.url.as_deref().unwrap_or("–")) }
                            td {
                                @if let Some(e) = &a.error { p.error { (e) } }
                                @if let Some(answer) = &a.answer {
                                    @if a.answer_bytes.is_some_and(|n| usize::try_from(n).is_ok_and(|n| n > answer.len())) {
                                        p.muted { "The first 4 KiB of " (or_dash(a.answer_bytes)) " bytes:" }
                                    }
                                    pre { (answer) }
                                }
                            }
                            td { (sent(a)) }
                        }
                    }
                }
            }
        }
    }
}

/// A supplier's events (every supplier's, with a column saying whose: `every`), the newest
/// first.
fn supplier(session: &Session, ask: &Ask, events: &[Delivery], every: bool) -> Markup {
    html! {
        @if events.is_empty() { p { "No delivery matches." } } @else {
            table {
                thead { tr { th { "Event" } th { "State" } th { "By" } @if every { th { "Supplier" } } th { "Booking" } th { "Client" } th { "Hotel" } th { "Seq" } th { "Kind" } th { "Written (UTC)" } th { "Attempts kept" } th { "Last attempt" } th { "HTTP" } th { "Latency" } th { "Error" } th {} } }
                tbody {
                    @for e in events {
                        tr {
                            td { (e.id) }
                            td { (e.state) }
                            td { (e.delivery) }
                            @if every { td { (e.supplier_id) } }
                            td { a href={ "/deliveries?ref=" (urlencode(&e.booking_ref)) } { (e.booking_ref) } }
                            td { (e.client_ref.as_deref().unwrap_or("–")) }
                            td { (e.hotel_code) }
                            td { (e.seq) }
                            td { (e.event_kind) }
                            td { (at(Some(e.created_at))) }
                            td { (e.kept) }
                            td { (at(e.last_at)) " " (e.last_outcome.as_deref().map_or("", shown_outcome)) }
                            td { (or_dash(e.last_http_status)) }
                            td { @if let Some(l) = e.last_latency_ms { (l) " ms" } @else { "–" } }
                            td { (e.last_error.as_deref().unwrap_or("")) }
                            td { (resend_button(session, e.id, ask)) }
                        }
                    }
                }
            }
        }
    }
}

/// A value for a URL's query.
fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The page for `ask`, with a notice on top.
async fn render(
    state: &ConsoleState,
    session: &Session,
    ask: &Ask,
    status: StatusCode,
    notice: Option<Markup>,
) -> Response {
    let store = &state.app.store;
    let (status, result) = if !ask.reference.trim().is_empty() {
        match admin::history(store, &ask.reference).await {
            Ok(events) => (status, booking(session, ask, &events)),
            Err(e) => (StatusCode::NOT_FOUND, layout::notice(false, &e.to_string())),
        }
    } else if !ask.supplier.trim().is_empty()
        || ask.failing.is_some()
        || ask.parked.is_some()
        || !ask.unacked_after.trim().is_empty()
    {
        // A supplier's, or every supplier's when a filter is given without one.
        let whose = Some(ask.supplier.trim()).filter(|s| !s.is_empty());
        let unacked = ask.unacked_after.trim();
        let minutes = if unacked.is_empty() { Ok(None) } else { unacked.parse::<u32>().map(Some) };
        match minutes {
            Err(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                layout::notice(false, "Not acknowledged after: a whole number of minutes."),
            ),
            Ok(minutes) => {
                let filter = DeliveryFilter {
                    failing: ask.failing.is_some(),
                    parked: ask.parked.is_some(),
                    unacked_after_minutes: minutes,
                    limit: 100,
                };
                match admin::deliveries(store, whose, filter).await {
                    Ok(events) => (
                        status,
                        html! {
                            @if whose.is_none() {
                                p #every-supplier {
                                    "Every supplier's events"
                                    @if let Some(m) = minutes { " not acknowledged " (m) " minutes after they were written" }
                                    @if ask.failing.is_some() { ", failing" }
                                    @if ask.parked.is_some() { ", parked" }
                                    " (the newest 100 first)."
                                }
                            }
                            (supplier(session, ask, &events, whose.is_none()))
                        },
                    ),
                    Err(e) => (StatusCode::NOT_FOUND, layout::notice(false, &e.to_string())),
                }
            }
        }
    } else {
        (status, html! { p.muted { "Give a booking's reference or a supplier." } })
    };
    let body = html! {
        @if let Some(n) = notice { (n) }
        (forms(ask))
        (result)
    };
    layout::page_with_status(status, session, "Deliveries", body)
}

/// `GET /deliveries`.
async fn show(State(state): State<ConsoleState>, Viewer(session): Viewer, Query(ask): Query<Ask>) -> Response {
    render(&state, &session, &ask, StatusCode::OK, None).await
}

/// `POST /deliveries/{event}/resend` (admins): a new attempt at the event, a retransmission
/// asked for by the operator; the page it came from is shown again with the outcome.
async fn resend(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(address): Client,
    Path(event): Path<i64>,
    Form(back): Form<Ask>,
) -> Response {
    let actor = crate::audit::Actor::operator(&session.operator, address);
    match admin::resend(&state.app.store, event, &actor).await {
        Ok(r) => {
            let how = if r.delivery == "push" {
                "the next delivery round sends it"
            } else {
                "the supplier's next read gives it"
            };
            let after = r.waits_for.map(|w| format!(", after event {w} of its booking")).unwrap_or_default();
            let text =
                format!("Event {} (was {}) will be sent again as a retransmission: {how}{after}.", r.event, r.was);
            render(&state, &session, &back, StatusCode::OK, Some(layout::notice(true, &text))).await
        }
        Err(e) => {
            render(&state, &session, &back, StatusCode::NOT_FOUND, Some(layout::notice(false, &e.to_string()))).await
        }
    }
}
