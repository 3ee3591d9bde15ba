//! `GET /log`: the transaction log searched — by partner, operation, outcome (Success,
//! Warning, error, an OTA error type), `EchoToken`, booking reference, request id and time
//! range — newest first, a page at a time; `GET /log/{id}`: one entry, its request and its
//! answer side by side, as stored (masked as `ota-gateway log show` prints them); `POST
//! /log/{id}/replay` (admins): the entry's request sent again to a gateway and the answers
//! compared, as `ota-gateway replay` does ([`crate::txlog::replay`]). The form's fields are
//! named as `log search`'s flags ([`crate::txlog::Ask`]), and a bad value is refused (400)
//! with a sentence naming the field.
//!
//! The replay's target is an `http`/`https` base URL the admin types (the console's own
//! gateway by default), with no user name, query or fragment, and no redirect is followed
//! ([`replay::target`]); the credentials are typed too (the log keeps no password) and never
//! shown back. Each replay is audited (`txlog.replay`).

use axum::Router;
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use super::path_segment;
use crate::console::ConsoleState;
use crate::console::layout::{self, csrf_field};
use crate::console::security::{Admin, Client, Viewer};
use crate::operators::session::Session;
use crate::store::values::instant_text;
use crate::txlog::mask::{self, Credentials};
use crate::txlog::replay::{self, Verdict};
use crate::txlog::{self, Ask, Entry, Found, LogError};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/log", get(list)).route("/log/{id}", get(one)).route("/log/{id}/replay", post(replay_post))
}

/// A text field of the form.
fn field(id: &'static str, label: &'static str, kind: &'static str, value: &Option<String>) -> Markup {
    html! {
        label for=(id) { (label) }
        input id=(id) type=(kind) name=(id) value=(value.as_deref().unwrap_or(""));
    }
}

/// The search form (GET: a result's address can be kept and shared).
fn form(ask: &Ask) -> Markup {
    let outcome = ask.outcome.as_deref().unwrap_or("").trim().to_ascii_lowercase();
    html! {
        form.stack #search method="get" action="/log" {
            (field("requestor", "Partner (requestor id)", "text", &ask.requestor))
            (field("operation", "Operation (path: hotelbook, hotelavail, …)", "text", &ask.operation))
            label for="outcome" { "Outcome (success without warnings, warning, error, or error:N for an OTA error type)" }
            input #outcome type="text" name="outcome" list="outcomes" value=(outcome);
            datalist #outcomes {
                @for o in ["success", "warning", "error", "error:3", "error:6", "error:7", "error:12"] { option value=(o) {} }
            }
            (field("echo-token", "EchoToken", "text", &ask.echo_token))
            (field("reference", "Booking reference (UniqueID or HotelReservationID)", "text", &ask.reference))
            (field("request-id", "Request id (x-request-id)", "text", &ask.request_id))
            (field("from", "From (UTC)", "datetime-local", &ask.from))
            (field("to", "Until (UTC, excluded)", "datetime-local", &ask.to))
            (field("limit", "Rows per page (1 to 500)", "number", &ask.limit))
            p { button type="submit" { "Search" } }
        }
    }
}

/// The address of the next page.
fn next_page(ask: &Ask, cursor: &str) -> String {
    let mut parts: Vec<String> = ask.given().into_iter().map(|(k, v)| format!("{k}={}", path_segment(v))).collect();
    parts.push(format!("after={}", path_segment(cursor)));
    format!("/log?{}", parts.join("&"))
}

/// A page of results.
fn results(ask: &Ask, found: &Found) -> Markup {
    html! {
        @if found.entries.is_empty() { p { "No entry matches." } } @else {
            table #results {
                thead { tr { th { "At (UTC)" } th { "Partner" } th { "Operation" } th { "HTTP" } th { "Outcome" } th { "Latency (ms)" } th { "EchoToken" } th { "References" } th { "Entry" } } }
                tbody {
                    @for e in &found.entries {
                        tr {
                            td { (instant_text(e.at)) }
                            td { (e.requestor) }
                            td { (e.operation) }
                            td { (e.status) }
                            td { (e.outcome()) }
                            td { (format!("{:.1}", e.duration_us as f64 / 1000.0)) }
                            td { (e.echo_token.as_deref().unwrap_or("–")) }
                            td { (e.references.join(" ")) }
                            td { a href={ "/log/" (e.id) } { (e.id) } }
                        }
                    }
                }
            }
        }
        @if let Some(next) = &found.next {
            p { a #next href=(next_page(ask, next)) { "Next page" } }
        }
    }
}

/// The sentence of a log error (a store failure is not detailed on the page) and its status.
fn failure(e: &LogError) -> (StatusCode, String) {
    match e {
        LogError::NotFound(_) => (StatusCode::NOT_FOUND, e.to_string()),
        e => {
            tracing::error!(error = %e, "console: the transaction log could not be read");
            (StatusCode::INTERNAL_SERVER_ERROR, "The database could not be read: try again.".into())
        }
    }
}

/// `GET /log`: the form, and the results when a search is asked.
async fn list(State(state): State<ConsoleState>, Viewer(session): Viewer, Query(ask): Query<Ask>) -> Response {
    let asked = !ask.given().is_empty() || ask.after.as_deref().is_some_and(|a| !a.trim().is_empty());
    let (status, result) = if asked {
        match ask.filter().and_then(|(filter, after)| Ok((filter, after, ask.rows()?))) {
            Err(e) => (StatusCode::BAD_REQUEST, layout::notice(false, &e)),
            Ok((filter, after, rows)) => match txlog::search_page(&state.app.store, &filter, after, rows).await {
                Ok(found) => (StatusCode::OK, results(&ask, &found)),
                Err(e) => {
                    let (status, text) = failure(&e);
                    (status, layout::notice(false, &text))
                }
            },
        }
    } else {
        match txlog::search_page(&state.app.store, &txlog::Filter::default(), None, txlog::read::ROWS).await {
            Ok(found) => (StatusCode::OK, results(&ask, &found)),
            Err(e) => {
                let (status, text) = failure(&e);
                (status, layout::notice(false, &text))
            }
        }
    };
    let body = html! {
        p.muted { "What the partners whose log level is on sent and were answered (ota-gateway requestor set ID --log errors|bookings|all), passwords removed and personal values masked." }
        (form(&ask))
        (result)
    };
    layout::page_with_status(status, &session, "Transaction log", body)
}

/// The replay form's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ReplayForm {
    /// The gateway's base URL.
    to: String,
    /// `RequestorID@ID`.
    id: String,
    /// `RequestorID@ID_Context`.
    context: String,
    /// The password (never shown back).
    password: String,
}

/// The console's own gateway, as a base URL (an unspecified address: the loopback).
fn own_gateway(state: &ConsoleState) -> String {
    let addr = state.app.config.addr;
    let ip = match addr.ip() {
        std::net::IpAddr::V4(v) if v.is_unspecified() => std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        std::net::IpAddr::V6(v) if v.is_unspecified() => std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", std::net::SocketAddr::new(ip, addr.port()))
}

/// A body in a `<pre>` (escaped by maud; wrapped by the style sheet).
fn body_of(id: &str, title: &str, text: &str) -> Markup {
    html! {
        section {
            h2 { (title) }
            pre id=(id) { (text) }
        }
    }
}

/// The entry's page: its fields, its bodies side by side, the replay's outcome and form.
fn entry_page(
    state: &ConsoleState,
    session: &Session,
    e: &Entry,
    form: Option<&ReplayForm>,
    replayed: Option<Markup>,
) -> Markup {
    let known = mask::credentials_of(&e.request);
    let id = form
        .map(|f| f.id.clone())
        .unwrap_or_else(|| known.as_ref().map_or_else(|| e.requestor.clone(), |c| c.id.clone()));
    let context = form.map(|f| f.context.clone()).unwrap_or_else(|| known.map(|c| c.id_context).unwrap_or_default());
    let to = form.map(|f| f.to.clone()).unwrap_or_else(|| own_gateway(state));
    html! {
        table.fields #entry {
            tbody {
                tr { th { "Entry" } td { (e.id) } }
                tr { th { "At (UTC)" } td { (instant_text(e.at)) } }
                tr { th { "Partner" } td { (e.requestor) } }
                tr { th { "Operation" } td { (e.operation) } }
                tr { th { "Request id" } td { (e.request_id) } }
                tr { th { "EchoToken" } td { (e.echo_token.as_deref().unwrap_or("–")) } }
                tr { th { "References" } td { (e.references.join(" ")) } }
                tr { th { "HTTP status" } td { (e.status) } }
                tr { th { "Outcome" } td { (e.outcome()) } }
                tr { th { "Latency" } td { (format!("{:.1} ms", e.duration_us as f64 / 1000.0)) } }
                tr { th { "Content version" } td { (e.content_version) } }
                tr { th { "Personal values masked" } td { @if e.masked { "yes" } @else { "no" } } }
            }
        }
        div.sides {
            (body_of("request", "Request", &e.request))
            (body_of("answer", if e.answer_truncated { "Answer (cut: longer than the log keeps)" } else { "Answer" }, &e.answer))
        }
        @if let Some(r) = replayed { (r) }
        @if session.role == crate::operators::Role::Admin {
            h2 { "Replay" }
            p.muted { "Sends this request again, with the credentials given (the log keeps no password), to a gateway, and compares its answer with the recorded one (time stamps and generated references ignored). Replaying a booking books there: replay bookings against a sandbox." }
            form.stack #replay method="post" action={ "/log/" (e.id) "/replay" } {
                (csrf_field(session))
                label for="to" { "Gateway (http or https base URL; no redirect is followed)" }
                input #to type="url" name="to" value=(to) required;
                label for="id" { "RequestorID ID" }
                input #id type="text" name="id" value=(id) required;
                label for="context" { "RequestorID ID_Context" }
                input #context type="text" name="context" value=(context);
                label for="password" { "Password (MessagePassword)" }
                input #password type="password" name="password" autocomplete="off" required;
                p { button type="submit" { "Replay" } }
            }
        }
        p { a href="/log" { "Search the log" } }
    }
}

/// `GET /log/{id}`: one entry.
async fn one(State(state): State<ConsoleState>, Viewer(session): Viewer, Path(id): Path<String>) -> Response {
    let Ok(id) = id.trim().parse::<i64>() else { return layout::not_found() };
    match txlog::show(&state.app.store, id).await {
        Ok(e) => layout::page(&session, &format!("Log entry {}", e.id), entry_page(&state, &session, &e, None, None)),
        Err(e) => {
            let (status, text) = failure(&e);
            layout::page_with_status(
                status,
                &session,
                "Log entry",
                html! { (layout::notice(false, &text)) p { a href="/log" { "Search the log" } } },
            )
        }
    }
}

/// What a replay found, as a section.
fn verdict_of(o: &replay::Outcome, recorded: &str) -> Markup {
    let shown = |v: &Option<String>| v.as_deref().map_or_else(|| "(absent)".to_string(), |v| format!("{v:?}"));
    html! {
        section #replayed {
            h2 { "Replay" }
            @match &o.verdict {
                Verdict::Same => { p.notice.ok role="status" #verdict { "Same answer (but for time stamps and generated references)." } }
                Verdict::Different { count, at, recorded, replayed } => {
                    p.notice.error role="alert" #verdict {
                        "DIFFERENT: " (count) " value(s); first at " code { (at) } ": recorded " (shown(recorded)) ", replayed " (shown(replayed)) "."
                    }
                }
                Verdict::Skipped(why) => { p.notice.error role="alert" #verdict { "Skipped: " (why) } }
                Verdict::Failed(why) => { p.notice.error role="alert" #verdict { "Failed: " (why) } }
            }
            @if let Some(answer) = &o.answer {
                div.sides {
                    (body_of("recorded", "Recorded answer", recorded))
                    (body_of("replayed-answer", "Replayed answer", answer))
                }
            }
        }
    }
}

/// `POST /log/{id}/replay` (admins): the entry replayed, its page shown with the verdict.
async fn replay_post(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(address): Client,
    Path(id): Path<String>,
    Form(f): Form<ReplayForm>,
) -> Response {
    let Ok(id) = id.trim().parse::<i64>() else { return layout::not_found() };
    let entry = match txlog::show(&state.app.store, id).await {
        Ok(e) => e,
        Err(e) => {
            let (status, text) = failure(&e);
            return layout::page_with_status(status, &session, "Log entry", layout::notice(false, &text));
        }
    };
    let refuse = |text: String| {
        let body = entry_page(&state, &session, &entry, Some(&f), Some(layout::notice(false, &text)));
        layout::page_with_status(StatusCode::UNPROCESSABLE_ENTITY, &session, &format!("Log entry {}", entry.id), body)
    };
    let to = match replay::target(&f.to) {
        Ok(c) => c,
        Err(e) => return refuse(e),
    };
    if f.id.trim().is_empty() || f.password.is_empty() {
        return refuse("A replay needs the requestor's ID and password (the log keeps no password).".into());
    }
    let credentials = Credentials {
        id: f.id.trim().to_string(),
        id_context: f.context.trim().to_string(),
        password: f.password.clone(),
    };
    let actor = crate::audit::Actor::operator(&session.operator, address);
    // Audited before anything is sent: a replay of a booking books there.
    let (target, url) = (entry.id.to_string(), to.base_url().to_string());
    let audited = state
        .app
        .store
        .write_now(move |c| {
            Box::pin(async move {
                Ok::<_, LogError>(crate::audit::record(c, &actor, "txlog.replay", &target, None, Some(&url)).await?)
            })
        })
        .await;
    if let Err(e) = audited {
        let (status, text) = failure(&e);
        return layout::page_with_status(status, &session, "Log entry", layout::notice(false, &text));
    }
    match replay::replay_entry(&state.app.store, id, &to, &credentials).await {
        Ok(o) => {
            let verdict = verdict_of(&o, &entry.answer);
            layout::page(
                &session,
                &format!("Log entry {}", entry.id),
                entry_page(&state, &session, &entry, Some(&f), Some(verdict)),
            )
        }
        Err(e) => {
            let (status, text) = failure(&e);
            layout::page_with_status(status, &session, "Log entry", layout::notice(false, &text))
        }
    }
}
