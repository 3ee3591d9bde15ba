//! The console's HTML frame: [`page`] wraps a page's content in the document every page shares
//! (head, the navigation of [`super::pages::NAV`], who is logged in, the logout button), and
//! [`csrf_field`] is the hidden field every form that changes something carries. Everything is
//! written with maud, which escapes every value put in the markup: a partner's name
//! `<script>…` shows as text.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::pages::NAV;
use crate::operators::session::Session;

/// The form field a form that changes something carries its CSRF token in (htmx requests: the
/// header `X-CSRF-Token`).
pub const CSRF_FIELD: &str = "csrf";

/// htmx's settings: no indicator styles injected (the policy forbids inline styles), no
/// `eval`, no script tags run from swapped content.
const HTMX_CONFIG: &str =
    r#"{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}"#;

/// The document's head.
fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="htmx-config" content=(HTMX_CONFIG);
            title { (title) " · OTA gateway console" }
            link rel="stylesheet" href="/assets/console.css";
            script src="/assets/htmx.min.js" defer {}
        }
    }
}

/// A whole page for a logged-in operator: `title` as its heading, `content` under it. Every
/// htmx request of the page carries the session's CSRF token (`hx-headers`).
pub fn page(session: &Session, title: &str, content: Markup) -> Response {
    page_with_status(StatusCode::OK, session, title, content)
}

/// [`page`] with another status (a form sent back with its errors: 422).
pub fn page_with_status(status: StatusCode, session: &Session, title: &str, content: Markup) -> Response {
    let headers = serde_json::json!({ "X-CSRF-Token": session.csrf }).to_string();
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body hx-headers=(headers) {
                header {
                    nav {
                        span.brand { "OTA gateway" }
                        @for item in NAV {
                            @if item.roles.contains(&session.role) {
                                a href=(item.path) { (item.label) }
                            }
                        }
                        span.who {
                            (session.operator) " (" (session.role.as_str())
                            @if let Some(sup) = &session.supplier { ", " (sup) }
                            ")"
                        }
                        form.logout method="post" action="/logout" {
                            (csrf_field(session))
                            button type="submit" { "Log out" }
                        }
                    }
                }
                main {
                    h1 { (title) }
                    (content)
                }
            }
        }
    };
    (status, Html(markup.into_string())).into_response()
}

/// A page without a session (the login page, an error before login).
pub fn bare(status: StatusCode, title: &str, content: Markup) -> Response {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                main.bare {
                    h1 { (title) }
                    (content)
                }
            }
        }
    };
    (status, Html(markup.into_string())).into_response()
}

/// An error page: `status` and a sentence saying what to do.
pub fn error(status: StatusCode, message: &str) -> Response {
    bare(
        status,
        status.canonical_reason().unwrap_or("Error"),
        html! {
            p.error { (message) }
            p { a href="/" { "Back to the console" } }
        },
    )
}

/// The answer to a URL that leads nowhere — and, the same to the byte, to a page a session may
/// not know about (an operator page asked by a hotel user, another supplier's hotel or
/// booking): 404 "There is no such page."
pub fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "There is no such page.")
}

/// The hidden field with the session's CSRF token: in every form that changes something.
pub fn csrf_field(session: &Session) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(session.csrf); }
}

/// A sentence telling the result of an action (`ok`: it was done; else: why not).
pub fn notice(ok: bool, text: &str) -> Markup {
    html! {
        @if ok { p.notice.ok role="status" { (text) } } @else { p.notice.error role="alert" { (text) } }
    }
}
