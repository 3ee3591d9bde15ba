//! `POST /partners/{id}/…`: an admin's changes of one partner (limits, dialect, allowed
//! addresses, log level, notification URL, alert e-mails, password, disabling and enabling), each
//! the function the CLI calls, answered with the partner's page and the outcome on top.

use std::collections::BTreeSet;

use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;
use maud::html;
use serde::Deserialize;

use super::partners::{items, networks, render_one};
use crate::audit::Actor;
use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::pages::new_password;
use crate::console::security::{Admin, Client};
use crate::operators::session::Session;
use crate::outbox::admin::shown_url;
use crate::requestors::admin::{self, AdminError};
use crate::txlog::{Level, Sample};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new()
        .route("/partners/{id}/limits", post(limits))
        .route("/partners/{id}/dialect", post(dialect))
        .route("/partners/{id}/allow", post(allow))
        .route("/partners/{id}/log", post(log))
        .route("/partners/{id}/notify", post(notify))
        .route("/partners/{id}/alerts", post(alert_emails))
        .route("/partners/{id}/password", post(password))
        .route("/partners/{id}/disable", post(disable))
        .route("/partners/{id}/enable", post(enable))
}

/// The page after a change: its outcome on top.
async fn after(state: &ConsoleState, session: &Session, id: &str, done: Result<String, AdminError>) -> Response {
    match done {
        Ok(text) => render_one(state, session, id, StatusCode::OK, Some(layout::notice(true, &text))).await,
        Err(AdminError::NotFound(_)) => layout::error(StatusCode::NOT_FOUND, "There is no such partner."),
        // The page as it is now, so the admin sees what changed and may redo the change.
        Err(e @ AdminError::Stale(_)) => {
            render_one(state, session, id, StatusCode::CONFLICT, Some(layout::notice(false, &e.to_string()))).await
        }
        Err(e) => {
            render_one(
                state,
                session,
                id,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(layout::notice(false, &e.to_string())),
            )
            .await
        }
    }
}

/// The limits form's fields.
#[derive(Deserialize)]
struct LimitsForm {
    /// The revision of the requestor the form showed.
    #[serde(default)]
    revision: Option<i64>,
    rate: String,
    daily_quota: String,
    #[serde(default)]
    rate_for: String,
}

/// A rate or quota field: empty or `off` is none.
fn limit(text: &str, parse: fn(&str) -> Result<u32, String>) -> Result<Option<u32>, AdminError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    parse(t).map(|n| Some(n).filter(|n| *n > 0)).map_err(AdminError::Invalid)
}

/// `POST /partners/{id}/limits`: the rate, daily quota and per-operation rates, replaced.
async fn limits(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
    Form(f): Form<LimitsForm>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let done = async {
        let rate = limit(&f.rate, crate::limits::parse_rate)?;
        let quota = limit(&f.daily_quota, crate::limits::parse_quota)?;
        let wanted: Vec<(&'static str, u32)> = items(&f.rate_for)
            .map(crate::limits::parse_rate_for)
            .collect::<Result<_, _>>()
            .map_err(AdminError::Invalid)?;
        // The form lists every per-operation rate: the ones it no longer lists are removed.
        let now = admin::list(&state.app.store).await?.into_iter().find(|r| r.id == id);
        let Some(now) = now else { return Err(AdminError::NotFound(id.clone())) };
        let listed: BTreeSet<&str> = wanted.iter().map(|(op, _)| *op).collect();
        let mut rate_for = wanted.clone();
        rate_for.extend(now.limits.per_operation.iter().filter(|(op, _)| !listed.contains(op)).map(|(op, _)| (*op, 0)));
        admin::at_revision(
            f.revision,
            admin::set_limits(&state.app.store, &actor, &id, Some(rate), Some(quota), rate_for),
        )
        .await?;
        Ok(format!(
            "Limits saved: rate {}, daily quota {}.",
            rate_shown(rate),
            quota.map_or("off".into(), |q| q.to_string())
        ))
    };
    after(&state, &session, &id, done.await).await
}

fn rate_shown(r: Option<u32>) -> String {
    r.map_or_else(|| "off".to_string(), |n| format!("{n}/s"))
}

/// The dialect form's field.
#[derive(Deserialize)]
struct DialectForm {
    /// The revision of the requestor the form showed.
    #[serde(default)]
    revision: Option<i64>,
    dialect: String,
}

/// `POST /partners/{id}/dialect`.
async fn dialect(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
    Form(f): Form<DialectForm>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let done = async {
        let d = crate::requestors::import::parse_dialect(&f.dialect).map_err(AdminError::Invalid)?;
        admin::at_revision(f.revision, admin::set_dialect(&state.app.store, &actor, &id, d)).await?;
        Ok(format!("Answered in the {} dialect.", d.as_str()))
    };
    after(&state, &session, &id, done.await).await
}

/// The allow-list form's field.
#[derive(Deserialize)]
struct AllowForm {
    /// The revision of the requestor the form showed.
    #[serde(default)]
    revision: Option<i64>,
    #[serde(default)]
    allow: String,
}

/// `POST /partners/{id}/allow`.
async fn allow(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
    Form(f): Form<AllowForm>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let done = async {
        let nets = networks(&f.allow)?;
        let shown = if nets.is_empty() { "any address".to_string() } else { f.allow.trim().to_string() };
        admin::at_revision(f.revision, admin::set_allow(&state.app.store, &actor, &id, nets)).await?;
        Ok(format!("May call from {shown}."))
    };
    after(&state, &session, &id, done.await).await
}

/// The log form's fields.
#[derive(Deserialize)]
struct LogForm {
    /// The revision of the requestor the form showed.
    #[serde(default)]
    revision: Option<i64>,
    level: String,
    #[serde(default)]
    sample: String,
}

/// `POST /partners/{id}/log`.
async fn log(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
    Form(f): Form<LogForm>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let done = async {
        let level = Level::parse(&f.level).map_err(AdminError::Invalid)?;
        let sample = if f.sample.trim().is_empty() {
            None
        } else {
            Some(Sample::parse(f.sample.trim()).map_err(AdminError::Invalid)?)
        };
        admin::at_revision(f.revision, admin::set_log(&state.app.store, &actor, &id, Some(level), sample)).await?;
        Ok(format!("Transaction log: {}.", level.as_str()))
    };
    after(&state, &session, &id, done.await).await
}

/// The notification URL form's field.
#[derive(Deserialize)]
struct NotifyForm {
    /// The revision of the requestor the form showed.
    #[serde(default)]
    revision: Option<i64>,
    #[serde(default)]
    url: String,
}

/// `POST /partners/{id}/notify`.
async fn notify(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
    Form(f): Form<NotifyForm>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let url = Some(f.url.trim().to_string()).filter(|u| !u.is_empty() && u != "off");
    let text = match &url {
        Some(u) => format!("Notified at {}.", shown_url(u)),
        None => "No notification URL: it pulls its bookings.".to_string(),
    };
    let change = async {
        crate::outbox::admin::set_notify_url(&state.app.store, &actor, &id, url).await.map_err(|e| match e {
            crate::outbox::admin::OutboxError::Stale(id) => AdminError::Stale(id),
            e => AdminError::Invalid(e.to_string()),
        })
    };
    let done = admin::at_revision(f.revision, change).await.map(|()| text);
    after(&state, &session, &id, done).await
}

/// The alert addresses form's field.
#[derive(Deserialize)]
struct AlertEmailsForm {
    /// The revision of the requestor the form showed.
    #[serde(default)]
    revision: Option<i64>,
    #[serde(default)]
    alert_emails: String,
}

/// `POST /partners/{id}/alerts`: a supplier's alert addresses (one a line, or comma-separated),
/// through [`admin::set_alert_emails`] (checked and audited as the CLI's).
async fn alert_emails(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
    Form(f): Form<AlertEmailsForm>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let addresses: Vec<String> = f
        .alert_emails
        .split(['\n', ','])
        .map(|a| a.trim_end_matches('\r').trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    let text = if addresses.is_empty() {
        "No booking alerts.".to_string()
    } else {
        format!("Booking alerts to {}.", addresses.join(", "))
    };
    let done = admin::at_revision(f.revision, admin::set_alert_emails(&state.app.store, &actor, &id, addresses))
        .await
        .map(|()| text);
    after(&state, &session, &id, done).await
}

/// `POST /partners/{id}/password`: a new password, shown once.
async fn password(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Path(id): Path<String>,
) -> Response {
    let actor = Actor::operator(&session.operator, client);
    let password = new_password();
    match admin::passwd(&state.app.store, &actor, &id, password.clone()).await {
        Ok(()) => {
            let n = html! {
                p.notice.ok role="status" {
                    "New MessagePassword, shown only now (the old one no longer works): " span.secret { (password) }
                }
            };
            render_one(&state, &session, &id, StatusCode::OK, Some(n)).await
        }
        Err(e) => after(&state, &session, &id, Err(e)).await,
    }
}

/// `POST /partners/{id}/disable`.
async fn disable(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    client: Client,
    Path(id): Path<String>,
) -> Response {
    let actor = Actor::operator(&session.operator, client.0);
    let done = admin::set_active(&state.app.store, &actor, &id, false).await.map(|()| "Disabled.".to_string());
    after(&state, &session, &id, done).await
}

/// `POST /partners/{id}/enable`.
async fn enable(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    client: Client,
    Path(id): Path<String>,
) -> Response {
    let actor = Actor::operator(&session.operator, client.0);
    let done = admin::set_active(&state.app.store, &actor, &id, true).await.map(|()| "Enabled.".to_string());
    after(&state, &session, &id, done).await
}
