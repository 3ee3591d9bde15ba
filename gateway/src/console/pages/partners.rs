//! `GET /partners`: every requestor (partners and suppliers) with its status, dialect, limits,
//! allow-list, log level and notification URL, and its requests, errors and bookings of the
//! current UTC day (every gateway's, from the traffic rollups: [`crate::traffic::query::today`],
//! as `ota-gateway requestor list` shows them); `GET /partners/{id}`: one, with the admin's
//! forms, and a supplier's booking alert addresses and latest alerts (the query of `ota-gateway
//! outbox alerts`). An admin creates a requestor (its password made here and shown once), changes its
//! limits, dialect, allow-list, log level, notification URL and alert addresses, rotates its password (shown
//! once), disables or enables it — through the functions `ota-gateway requestor` calls
//! ([`crate::requestors::admin`], [`crate::outbox::admin::set_notify_url`]), so with the same
//! validation, each change audited with the admin and their address. Every form of a partner's
//! values carries the revision it showed: a change on a form the partner changed since (by
//! another operator or the CLI) answers 409 with the page as it is now, and changes nothing
//! ([`admin::at_revision`]). Running gateways apply a
//! change within a second (the requestors' version moves on).

use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use ipnet::IpNet;
use maud::{Markup, html};
use serde::Deserialize;

use crate::audit::Actor;
use crate::console::ConsoleState;
use crate::console::layout::{self, csrf_field};
use crate::console::pages::{new_password, path_segment};
use crate::console::security::{Admin, Client, Viewer};
use crate::operators::session::Session;
use crate::outbox::admin::shown_url;
use crate::requestors::admin::{self, AdminError, NewRequestor};
use crate::requestors::{Role, StoredRequestor};
use crate::txlog::{Level, Sample};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/partners", get(list).post(create)).route("/partners/{id}", get(show))
}

/// How many of a supplier's latest booking alerts its page shows.
pub(super) const LATEST_ALERTS: i64 = 20;

/// A rate as shown: `5/s`, `-` for none.
fn rate(r: Option<u32>) -> String {
    r.map_or_else(|| "-".to_string(), |n| format!("{n}/s"))
}

/// The per-operation rates as the form takes them: `hotelavailability=5, hotelbook=1`.
fn rates_for(r: &StoredRequestor) -> String {
    r.limits.per_operation.iter().map(|(op, n)| format!("{op}={n}")).collect::<Vec<_>>().join(", ")
}

/// The allow-list as shown and as the form takes it.
fn allow_text(r: &StoredRequestor) -> String {
    r.allow.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The log policy as shown: `all@0.1`, `errors`.
fn log_text(r: &StoredRequestor) -> String {
    match r.log.level {
        Level::All if r.log.sample != Sample::ALL => format!("all@{}", r.log.sample),
        level => level.as_str().to_string(),
    }
}

/// The kind as shown: `distributor`, `supplier (H1, H2)`.
fn kind_text(r: &StoredRequestor) -> String {
    match &r.role {
        Role::Supplier { hotels } => {
            format!("supplier ({})", hotels.iter().cloned().collect::<Vec<_>>().join(", "))
        }
        Role::Distributor => "distributor".to_string(),
    }
}

/// Every requestor, or an error page.
async fn all(state: &ConsoleState) -> Result<Vec<StoredRequestor>, Response> {
    admin::list(&state.app.store).await.map_err(|e| {
        tracing::error!(error = %e, "console: partners");
        layout::error(StatusCode::SERVICE_UNAVAILABLE, "The partners could not be read; try again.")
    })
}

/// `GET /partners`.
async fn list(State(state): State<ConsoleState>, Viewer(session): Viewer) -> Response {
    render_list(&state, &session, StatusCode::OK, None).await
}

/// The list, with a notice on top.
async fn render_list(state: &ConsoleState, session: &Session, status: StatusCode, notice: Option<Markup>) -> Response {
    let all = match all(state).await {
        Ok(all) => all,
        Err(page) => return page,
    };
    let today = match crate::traffic::query::today(&state.app.store, chrono::Utc::now()).await {
        Ok(today) => today,
        Err(e) => {
            tracing::error!(error = %e, "console: partners' traffic today");
            return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The partners could not be read; try again.");
        }
    };
    let body = html! {
        @if let Some(n) = notice { (n) }
        table {
            thead { tr {
                th { "ID" } th { "Name" } th { "Status" } th { "Kind" } th { "Dialect" } th.num { "Rate" }
                th.num { "Daily quota" } th { "Per operation" } th { "Allow-list" } th { "Log" } th { "Notification URL" }
                th.num title="Today (UTC), every gateway" { "Requests today" } th.num { "Errors today" } th.num { "Bookings today" }
            } }
            tbody {
                @for r in &all {
                    @let day = today.get(&r.id);
                    tr {
                        td { a href={ "/partners/" (path_segment(&r.id)) } { (r.id) } }
                        td { (r.name) }
                        td { @if r.active { span.badge.on { "active" } } @else { span.badge.off { "disabled" } } }
                        td { (kind_text(r)) }
                        td { (r.dialect.as_str()) }
                        td.num { (rate(r.limits.rate)) }
                        td.num { (r.limits.daily_quota.map_or_else(|| "-".to_string(), |n| n.to_string())) }
                        td { (rates_for(r)) }
                        td { @if r.allow.is_empty() { span.muted { "any address" } } @else { (allow_text(r)) } }
                        td { (log_text(r)) }
                        td.mono { (r.notify_url.as_deref().map(shown_url).unwrap_or_default()) }
                        td.num.today { (day.map_or(0, |f| f.requests)) }
                        td.num.today { (day.map_or(0, |f| f.errors)) }
                        td.num.today { (day.map_or(0, |f| f.bookings)) }
                    }
                }
            }
        }
        @if session.is_admin() {
            h2 { "Create a partner or supplier" }
            form.stack method="post" action="/partners" {
                (csrf_field(session))
                label for="id" { "ID (RequestorID@ID)" }
                input #id type="text" name="id" required;
                label for="context" { "ID_Context" }
                input #context type="text" name="context" required;
                label for="name" { "Display name" }
                input #name type="text" name="name";
                label for="dialect" { "Dialect" }
                (dialect_select(ota_messages::Dialect::Service))
                label for="kind" { "Kind" }
                select #kind name="kind" {
                    option value="distributor" { "distribution partner" }
                    option value="supplier" { "supplier (a hotel's system)" }
                }
                label for="hotels" { "A supplier's hotels (codes, comma-separated)" }
                input #hotels type="text" name="hotels";
                label for="allow" { "Allow-list (CIDRs, comma-separated; empty: any address)" }
                input #allow type="text" name="allow";
                p { button type="submit" { "Create" } " " span.muted { "A password is made and shown once." } }
            }
        }
    };
    layout::page_with_status(status, session, "Partners and suppliers", body)
}

/// The dialect choice, `now` selected.
fn dialect_select(now: ota_messages::Dialect) -> Markup {
    html! {
        select #dialect name="dialect" {
            @for d in ota_messages::Dialect::ALL {
                option value=(d.as_str()) selected[*d == now] { (d.as_str()) }
            }
        }
    }
}

/// The create form's fields.
#[derive(Deserialize)]
struct Create {
    id: String,
    context: String,
    #[serde(default)]
    name: String,
    dialect: String,
    kind: String,
    #[serde(default)]
    hotels: String,
    #[serde(default)]
    allow: String,
}

/// A comma- or space-separated list.
pub(super) fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', ' ', '\n', '\r', '\t']).map(str::trim).filter(|s| !s.is_empty())
}

/// An allow-list as the form writes it.
pub(super) fn networks(text: &str) -> Result<Vec<IpNet>, AdminError> {
    items(text).map(|n| crate::config::parse_net(n).map_err(AdminError::Invalid)).collect()
}

/// `POST /partners`: creates a requestor with a new password, shown once.
async fn create(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Form(f): Form<Create>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let made = async {
        let dialect = crate::requestors::import::parse_dialect(&f.dialect).map_err(AdminError::Invalid)?;
        let role = match f.kind.as_str() {
            "distributor" => Role::Distributor,
            "supplier" => {
                let hotels: Vec<String> = items(&f.hotels).map(str::to_string).collect();
                for h in &hotels {
                    crate::requestors::import::check_hotel_code(h).map_err(AdminError::Invalid)?;
                }
                Role::supplier(hotels)
            }
            _ => return Err(AdminError::Invalid("the kind is distributor or supplier".into())),
        };
        let password = new_password();
        let new = NewRequestor {
            id: f.id.clone(),
            id_context: f.context.clone(),
            name: if f.name.trim().is_empty() { f.id.clone() } else { f.name.clone() },
            password: password.clone(),
            active: true,
            allow: networks(&f.allow)?,
            dialect,
            role,
        };
        admin::add(&state.app.store, &actor, new).await.map(|()| password)
    };
    match made.await {
        Ok(password) => {
            let n = html! {
                p.notice.ok role="status" {
                    "Created " a href={ "/partners/" (path_segment(&f.id)) } { (f.id) }
                    ". Its MessagePassword, shown only now: " span.secret { (password) }
                }
            };
            render_list(&state, &session, StatusCode::OK, Some(n)).await
        }
        Err(e) => {
            render_list(&state, &session, StatusCode::UNPROCESSABLE_ENTITY, Some(layout::notice(false, &e.to_string())))
                .await
        }
    }
}

/// `GET /partners/{id}`.
async fn show(State(state): State<ConsoleState>, Viewer(session): Viewer, Path(id): Path<String>) -> Response {
    render_one(&state, &session, &id, StatusCode::OK, None).await
}

/// One requestor's page, with a notice on top.
pub(super) async fn render_one(
    state: &ConsoleState,
    session: &Session,
    id: &str,
    status: StatusCode,
    notice: Option<Markup>,
) -> Response {
    let all = match all(state).await {
        Ok(all) => all,
        Err(page) => return page,
    };
    let Some(r) = all.into_iter().find(|r| r.id == id) else {
        return layout::error(StatusCode::NOT_FOUND, "There is no such partner.");
    };
    let base = format!("/partners/{}", path_segment(&r.id));
    // A supplier's latest booking alerts (none for a distribution partner).
    let alerts = match &r.role {
        Role::Supplier { .. } => {
            crate::outbox::admin::alerts(&state.app.store, Some(r.id.clone()), None, None, LATEST_ALERTS)
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "the console could not read a supplier's booking alerts");
                    Vec::new()
                })
        }
        Role::Distributor => Vec::new(),
    };
    let body = html! {
        @if let Some(n) = notice { (n) }
        p { a href="/partners" { "← every partner" } }
        table {
            tr { th { "ID" } td { (r.id) } }
            tr { th { "ID_Context" } td { (r.id_context) } }
            tr { th { "Name" } td { (r.name) } }
            tr { th { "Status" } td { @if r.active { span.badge.on { "active" } } @else { span.badge.off { "disabled" } } } }
            tr { th { "Kind" } td { (kind_text(&r)) } }
            tr { th { "Dialect" } td { (r.dialect.as_str()) } }
            tr { th { "Rate" } td { (rate(r.limits.rate)) } }
            tr { th { "Daily quota" } td { (r.limits.daily_quota.map_or_else(|| "-".to_string(), |n| n.to_string())) } }
            tr { th { "Per operation" } td { (rates_for(&r)) } }
            tr { th { "Allow-list" } td { @if r.allow.is_empty() { "any address" } @else { (allow_text(&r)) } } }
            tr { th { "Transaction log" } td { (log_text(&r)) } }
            tr { th { "Notification URL" } td.mono { (r.notify_url.as_deref().map(shown_url).unwrap_or_default()) } }
            tr { th { "Booking alerts to" } td.mono { @if r.alert_emails.is_empty() { "none" } @else { (r.alert_emails.join(", ")) } } }
        }
        @if !alerts.is_empty() {
            h2 { "Latest booking alerts" }
            table {
                tr { th { "Alert" } th { "Booking" } th { "Event" } th { "To" } th { "State" } th.num { "Attempts" } th { "Last error" } }
                @for a in &alerts {
                    tr {
                        td.num { (a.id) }
                        td.mono { (a.booking_ref) }
                        td { (a.event_kind) }
                        td.mono { (a.address) }
                        td { (a.state) }
                        td.num { (a.attempts) }
                        td { (a.last_error.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
        @if session.is_admin() { (admin_forms(session, &r, &base)) }
    };
    layout::page_with_status(status, session, &format!("Partner {}", r.id), body)
}

/// The administrator's forms of a requestor's page: limits, dialect, allow-list, transaction
/// log, notification URL, alert addresses, password and status.
fn admin_forms(session: &Session, r: &StoredRequestor, base: &str) -> Markup {
    html! {
    h2 { "Limits" }
    form.stack method="post" action={ (base) "/limits" } {
        (csrf_field(session))
        (revision_field(r))
        label for="rate" { "Requests per second, per gateway (N, or off)" }
        input #rate type="text" name="rate" value=(r.limits.rate.map_or_else(|| "off".to_string(), |n| n.to_string()));
        label for="daily_quota" { "Requests per UTC day, all gateways (N, or off)" }
        input #daily_quota type="text" name="daily_quota" value=(r.limits.daily_quota.map_or_else(|| "off".to_string(), |n| n.to_string()));
        label for="rate_for" { "Per operation (operation=N, comma-separated; empty: none)" }
        input #rate_for type="text" name="rate_for" value=(rates_for(r));
        p { button type="submit" { "Save limits" } }
    }
    h2 { "Dialect" }
    form.stack method="post" action={ (base) "/dialect" } {
        (csrf_field(session))
        (revision_field(r))
        (dialect_select(r.dialect))
        p { button type="submit" { "Save dialect" } }
    }
    h2 { "Allow-list" }
    form.stack method="post" action={ (base) "/allow" } {
        (csrf_field(session))
        (revision_field(r))
        label for="allow" { "Networks it may call from (CIDRs, comma-separated; empty: any address)" }
        input #allow type="text" name="allow" value=(allow_text(r));
        p { button type="submit" { "Save allow-list" } }
    }
    h2 { "Transaction log" }
    form.stack method="post" action={ (base) "/log" } {
        (csrf_field(session))
        (revision_field(r))
        label for="level" { "Level" }
        select #level name="level" {
            @for l in Level::ALL { option value=(l.as_str()) selected[l == r.log.level] { (l.as_str()) } }
        }
        label for="sample" { "At all: the share of searches logged (0 to 1)" }
        input #sample type="text" name="sample" value=(r.log.sample.to_string());
        p { button type="submit" { "Save log level" } }
    }
    h2 { "Notification URL" }
    form.stack method="post" action={ (base) "/notify" } {
        (csrf_field(session))
        (revision_field(r))
        label for="url" { "Where its hotels' bookings are pushed (empty: it pulls them)" }
        input #url type="text" name="url" value=(r.notify_url.as_deref().map(shown_url).unwrap_or_default());
        p { button type="submit" { "Save URL" } }
    }
    h2 { "Booking alerts" }
    form.stack method="post" action={ (base) "/alerts" } {
        (csrf_field(session))
        (revision_field(r))
        label for="alert_emails" { "E-mail addresses told of every new, modified and cancelled booking of its hotels (one a line; empty: none)" }
        textarea #alert_emails name="alert_emails" rows="3" { (r.alert_emails.join("\n")) }
        p { button type="submit" { "Save alert addresses" } }
    }
    h2 { "Password and status" }
    form.inline method="post" action={ (base) "/password" } {
        (csrf_field(session))
        button type="submit" { "Rotate the password" }
    }
    " "
    @let (action, label) = if r.active { ("disable", "Disable") } else { ("enable", "Enable") };
    form.inline method="post" action={ (base) "/" (action) } {
        (csrf_field(session))
        button type="submit" { (label) }
    }
    }
}

/// The hidden field with the revision of the requestor a form shows: its change is refused
/// (409) when the requestor has changed since ([`admin::at_revision`]).
fn revision_field(r: &StoredRequestor) -> Markup {
    html! { input type="hidden" name="revision" value=(r.revision); }
}
