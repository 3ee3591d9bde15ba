//! `GET /extranet/hotels/{code}/calendar?from=&to=&room=`: a hotel's calendar — a grid of room
//! types × (rooms on sale and sold / restrictions per rate plan / each rate plan's amount) ×
//! nights, each cell saying in its title who set it last and when; paging by month — and
//! `POST /extranet/hotels/{code}/calendar`: one change over a range of nights, days of the
//! week, room types and rate plans (the form under the grid; works without JavaScript, htmx
//! only swaps the page in place). The same query and edit as `ota-gateway calendar show|set`
//! ([`crate::hotels::calendar`]); the edit goes through the supply notifications' path, and the
//! page says what was applied and what was kept because a channel manager's later message set
//! it.
//!
//! Who may open a hotel's calendar is decided by one function, `may_see` (the hotel is in the
//! content and [`crate::operators::scope::may_see_hotel`] admits the session: a hotel user its
//! supplier's hotels, an admin or a viewer any); a hotel it may not see answers exactly as a URL
//! that leads nowhere ([`layout::not_found`]). A hotel user or an admin edits
//! ([`HotelEditor`]); a viewer reads ([`Hotelier`]).

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use maud::{Markup, html};
use serde::Deserialize;

use crate::audit::Actor;
use crate::console::ConsoleState;
use crate::console::layout::{self, csrf_field};
use crate::console::pages::path_segment;
use crate::console::security::{Client, HotelEditor, Hotelier, form_urlencoded_pairs};
use crate::hotels::calendar::{self, CalendarError};
use crate::hotels::rules::calendar::edit::{EditAsk, EditOutcome};
use crate::hotels::rules::calendar::grid::Calendar;
use crate::hotels::rules::calendar::months_around;
use crate::operators::session::Session;

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/extranet/hotels/{code}/calendar", get(show).post(set))
}

/// Whether this session may see (and, with the role that changes, change) this hotel: the one
/// place the page decides it (a store failure admits nothing).
async fn may_see(session: &Session, state: &ConsoleState, hotel: &str) -> bool {
    if state.app.content.get().hotels.hotel(hotel).is_none() {
        return false;
    }
    match crate::operators::scope::may_see_hotel(&state.app.store, session, hotel).await {
        Ok(yes) => yes,
        Err(e) => {
            tracing::error!(error = %e, "console: calendar: the session's hotels not read");
            false
        }
    }
}

/// What the page is asked for.
#[derive(Debug, Default, Deserialize)]
struct Ask {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    room: String,
}

fn opt(s: &str) -> Option<&str> {
    let s = s.trim();
    (!s.is_empty()).then_some(s)
}

/// A value for a URL's query.
fn q(s: &str) -> String {
    path_segment(s)
}

/// The page's URL for some nights and room type.
fn url(code: &str, from: &str, to: &str, room: &str) -> String {
    let mut out = format!("/extranet/hotels/{}/calendar?from={}", path_segment(code), q(from));
    if !to.is_empty() {
        out.push_str(&format!("&to={}", q(to)));
    }
    if !room.is_empty() {
        out.push_str(&format!("&room={}", q(room)));
    }
    out
}

/// The title of a cell: who set it last.
fn set_by(set: Option<&crate::hotels::rules::calendar::grid::Source>, content: &str) -> String {
    set.map_or_else(|| content.to_string(), ToString::to_string)
}

/// The title of an amount's cell: who set it, and the amounts per number of guests.
fn amount_title(n: &crate::hotels::rules::calendar::grid::AmountNight) -> String {
    let mut title = set_by(n.set.as_ref(), "from the content");
    for g in n.by_guests.iter().filter(|g| g.guests > 0) {
        title.push_str(&format!("; {} guest(s): {} ({})", g.guests, g.amount, g.set));
    }
    title
}

/// The grid of a calendar (rows: room type × rooms / restrictions per plan / amount per plan;
/// columns: nights; each cell's title says who set it last).
pub fn grid(c: &Calendar) -> Markup {
    let days: Vec<(String, String)> = c
        .nights
        .iter()
        .map(|n| {
            let d = chrono::NaiveDate::parse_from_str(n, "%Y-%m-%d").ok();
            (
                d.map_or_else(|| n.clone(), |d| d.format("%d %b").to_string()),
                d.map_or_else(String::new, |d| d.format("%a").to_string()),
            )
        })
        .collect();
    html! {
        div.calendar {
            table.grid {
                thead {
                    tr {
                        th { "Room type / row" }
                        @for (i, (day, wd)) in days.iter().enumerate() {
                            th title=(c.nights[i]) { (day) br; span.muted { (wd) } }
                        }
                    }
                }
                tbody {
                    @for r in &c.rooms {
                        tr.roomhead { th colspan=(c.nights.len() + 1) { (r.code) " · " (r.name) } }
                        tr {
                            th { "Rooms on sale / sold" }
                            @for n in &r.rooms {
                                td.num.supplied[n.supplied] title=(set_by(n.set.as_ref(), "from the content")) {
                                    (n.on_sale) @if n.sold > 0 { span.muted { "/" (n.sold) } }
                                }
                            }
                        }
                        @for p in &r.restrictions {
                            tr {
                                th { "Restrictions " @if p.plan.is_empty() { "(every plan)" } @else { (p.plan) } }
                                @for n in &p.nights {
                                    td.closed[n.closed] title=(set_by(n.set.as_ref(), "no restriction set")) {
                                        @if n.closed { "closed " }
                                        @if n.closed_to_arrival { "CTA " }
                                        @if n.closed_to_departure { "CTD " }
                                        @if let Some(m) = n.min_stay { "min" (m) " " }
                                        @if let Some(m) = n.max_stay { "max" (m) }
                                    }
                                }
                            }
                        }
                        @for p in &r.amounts {
                            tr {
                                th { (p.plan) " " (p.currency) }
                                @for n in &p.nights {
                                    td.num.supplied[n.set.is_some()] title=(amount_title(n)) { (n.amount.as_deref().unwrap_or("–")) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The edit form (a hotel user or an admin; the server checks too).
fn form(session: &Session, code: &str, c: Option<&Calendar>, back: &Ask) -> Markup {
    let rooms: Vec<(String, String)> =
        c.map(|c| c.rooms.iter().map(|r| (r.code.clone(), r.name.clone())).collect()).unwrap_or_default();
    let mut plans: Vec<String> =
        c.map(|c| c.rooms.iter().flat_map(|r| r.amounts.iter().map(|p| p.plan.clone())).collect()).unwrap_or_default();
    plans.sort();
    plans.dedup();
    html! {
        @if session.is_admin() || session.is_hotel() {
            h2 #edit { "Change a range" }
            form.stack method="post" action=(url(code, &back.from, &back.to, &back.room)) hx-post=(url(code, &back.from, &back.to, &back.room)) hx-target="body" hx-push-url="false" {
                (csrf_field(session))
                label for="e-from" { "From (first night)" }
                input #e-from type="date" name="from" required;
                label for="e-to" { "To (last night, included)" }
                input #e-to type="date" name="to" required;
                fieldset {
                    legend { "Days of the week (none: every day)" }
                    @for d in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
                        label.inline { input type="checkbox" name="weekdays" value=(d); " " (d) }
                    }
                }
                label for="e-room" { "Room types (none: every one)" }
                select #e-room name="room" multiple {
                    @for (code, name) in &rooms { option value=(code) { (code) " · " (name) } }
                }
                label for="e-plan" { "Rate plans (none: every one)" }
                select #e-plan name="plan" multiple {
                    @for p in &plans { option value=(p) { (p) } }
                }
                label for="e-action" { "Set" }
                select #e-action name="action" {
                    option value="rooms" { "rooms on sale (value)" }
                    option value="close" { "closed" }
                    option value="open" { "open" }
                    option value="cta" { "closed to arrival" }
                    option value="no-cta" { "open to arrival" }
                    option value="ctd" { "closed to departure" }
                    option value="no-ctd" { "open to departure" }
                    option value="min-stay" { "minimum stay (value; 0: none)" }
                    option value="max-stay" { "maximum stay (value; 0: none)" }
                    option value="amount" { "nightly amount (value, currency, guests)" }
                }
                label for="e-value" { "Value" }
                input #e-value type="text" name="value";
                label for="e-currency" { "Currency (an amount)" }
                input #e-currency type="text" name="currency" maxlength="3";
                label for="e-guests" { "Guests (an amount; empty: any number)" }
                input #e-guests type="text" name="guests";
                p { button type="submit" { "Apply" } }
            }
        }
    }
}

/// The outcome of an edit.
fn outcome(o: &EditOutcome) -> Markup {
    let sentences = o.sentences();
    html! {
        div.notice.ok.outcome role="status" {
            @for s in &sentences { p { (s) } }
        }
    }
}

/// The page, with a notice on top.
async fn render(
    state: &ConsoleState,
    session: &Session,
    code: &str,
    ask: &Ask,
    status: StatusCode,
    notice: Option<Markup>,
) -> Response {
    let content = state.app.content.get();
    let shown = calendar::show(
        &state.app.store,
        &content.hotels,
        code,
        (opt(&ask.from), opt(&ask.to)),
        opt(&ask.room),
        chrono::Utc::now(),
    )
    .await;
    let (status, body, cal) = match shown {
        Ok(c) => {
            let first = chrono::NaiveDate::parse_from_str(&c.from, "%Y-%m-%d").unwrap_or_default();
            let (prev, next) = months_around(first);
            let nav = html! {
                p.paging {
                    a href=(url(code, &prev.to_string(), "", &ask.room)) { "← previous month" } " · "
                    a href=(url(code, &next.to_string(), "", &ask.room)) { "next month →" }
                    " · " span.muted { (c.from) " to " (c.to) ". Hover a cell to see who set it last." }
                }
                form.inline method="get" action=(format!("/extranet/hotels/{}/calendar", path_segment(code))) {
                    label { "From " input type="date" name="from" value=(c.from); }
                    " " label { "to " input type="date" name="to" value=(c.to); }
                    " " label { "room type "
                        select name="room" {
                            option value="" { "every one" }
                            @for r in content.hotels.hotel(code).map(|h| h.rooms.as_slice()).unwrap_or_default() {
                                option value=(r.code) selected[r.code == ask.room.trim()] { (r.code) }
                            }
                        }
                    }
                    " " button type="submit" { "Show" }
                }
            };
            (status, html! { (nav) (grid(&c)) }, Some(c))
        }
        Err(CalendarError::Invalid(e)) => {
            (StatusCode::UNPROCESSABLE_ENTITY, layout::notice(false, &format!("Not shown: {e}")), None)
        }
        Err(CalendarError::UnknownHotel(_)) => return layout::not_found(),
        Err(CalendarError::Store(e)) => {
            tracing::error!(error = %e, "console: calendar not read");
            (StatusCode::SERVICE_UNAVAILABLE, layout::notice(false, "The database failed; try again."), None)
        }
    };
    let name = content.hotels.hotel(code).map(|h| h.name.clone()).unwrap_or_default();
    let page = html! {
        @if let Some(n) = notice { (n) }
        (body)
        (form(session, code, cal.as_ref(), ask))
    };
    layout::page_with_status(status, session, &format!("Calendar of {code} · {name}"), page)
}

/// `GET /extranet/hotels/{code}/calendar`.
async fn show(
    State(state): State<ConsoleState>,
    Hotelier(session): Hotelier,
    Path(code): Path<String>,
    Query(ask): Query<Ask>,
) -> Response {
    if !may_see(&session, &state, &code).await {
        return layout::not_found();
    }
    render(&state, &session, &code, &ask, StatusCode::OK, None).await
}

/// The edit of a form body (repeated `weekdays`, `room`, `plan`).
fn edit_of(body: &[u8]) -> EditAsk {
    let mut ask = EditAsk::default();
    for (k, v) in form_urlencoded_pairs(body) {
        match k.as_str() {
            "from" => ask.from = v,
            "to" => ask.to = v,
            "weekdays" => ask.weekdays.push(v),
            "room" => ask.rooms.push(v),
            "plan" => ask.plans.push(v),
            "action" => ask.action = v,
            "value" => ask.value = v,
            "currency" => ask.currency = v,
            "guests" => ask.guests = v,
            _ => {}
        }
    }
    ask
}

/// `POST /extranet/hotels/{code}/calendar` (a hotel user or an admin): applies the edit, then shows the page with
/// what was applied and what was not.
async fn set(
    State(state): State<ConsoleState>,
    HotelEditor(session): HotelEditor,
    Client(address): Client,
    Path(code): Path<String>,
    Query(back): Query<Ask>,
    body: Bytes,
) -> Response {
    if !may_see(&session, &state, &code).await {
        return layout::not_found();
    }
    let edit = edit_of(&body);
    let actor = Actor::operator(&session.operator, address);
    let content = state.app.content.get();
    let done = calendar::edit(&state.app.store, &content.hotels, &actor, &edit, &code, chrono::Utc::now()).await;
    match done {
        Ok(o) => render(&state, &session, &code, &back, StatusCode::OK, Some(outcome(&o))).await,
        Err(CalendarError::Invalid(e)) => {
            let notice = layout::notice(false, &format!("Nothing changed: {e}"));
            render(&state, &session, &code, &back, StatusCode::UNPROCESSABLE_ENTITY, Some(notice)).await
        }
        Err(CalendarError::UnknownHotel(_)) => layout::not_found(),
        Err(CalendarError::Store(e)) => {
            tracing::error!(error = %e, "console: calendar edit not stored");
            let notice = layout::notice(false, "The database failed: nothing changed; try again.");
            render(&state, &session, &code, &back, StatusCode::SERVICE_UNAVAILABLE, Some(notice)).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_body_gives_every_repeated_field() {
        let e = edit_of(b"csrf=x&from=2030-06-01&to=2030-06-02&weekdays=Mon&weekdays=Sat&room=A%20B&room=C&plan=BB&action=amount&value=9.5&currency=EUR&guests=");
        assert_eq!(e.weekdays, vec!["Mon", "Sat"]);
        assert_eq!(e.rooms, vec!["A B", "C"]);
        assert_eq!((e.action.as_str(), e.value.as_str(), e.currency.as_str()), ("amount", "9.5", "EUR"));
    }
}
