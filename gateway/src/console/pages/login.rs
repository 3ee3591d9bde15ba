//! `GET /login` (the form), `POST /login` (a session and its cookie, then the overview — the
//! extranet for a hotel user —, or the form again with "wrong name or password" — the same for
//! every failure), `POST /logout`.
//!
//! Login CSRF: every login form carries a new random token in its hidden field [`CSRF_FIELD`]
//! and in the cookie [`LOGIN_COOKIE`] (`HttpOnly`, `SameSite=Strict`, to `/login` only, 10
//! minutes); a login whose field and cookie differ, or lack the token, is refused with 403
//! before its password is checked (no session; a failure for the throttle), so a page elsewhere
//! cannot log a browser into an account of its choosing.

use axum::Router;
use axum::extract::{Form, State};
use axum::http::{StatusCode, header};
use axum::response::{AppendHeaders, IntoResponse, Response};
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use crate::console::ConsoleState;
use crate::console::layout::{self, CSRF_FIELD};
use crate::console::security::{self, Client, Hotelier, LOGIN_COOKIE};
use crate::operators::MAX_NAME;
use crate::operators::session::{self, LoginError, Session};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/login", get(form).post(login)).route("/logout", post(logout))
}

/// The login form, with a message when a login failed: with a new token, in its hidden field
/// and its cookie.
fn login_form(state: &ConsoleState, status: StatusCode, message: Option<&str>) -> Response {
    let token = session::login_token();
    let content: Markup = html! {
        @if let Some(m) = message { (layout::notice(false, m)) }
        form.stack method="post" action="/login" {
            input type="hidden" name=(CSRF_FIELD) value=(token);
            label for="name" { "Name" }
            input #name type="text" name="name" autocomplete="username" required autofocus;
            label for="password" { "Password" }
            input #password type="password" name="password" autocomplete="current-password" required;
            p { button type="submit" { "Log in" } }
        }
    };
    let mut page = layout::bare(status, "Log in", content);
    if let Ok(cookie) = header::HeaderValue::from_str(&security::login_cookie(&token, state)) {
        page.headers_mut().append(header::SET_COOKIE, cookie);
    }
    page
}

/// `GET /login`: the form (an operator logged in already goes to its landing page).
async fn form(State(state): State<ConsoleState>, session: Option<axum::Extension<Session>>) -> Response {
    if let Some(axum::Extension(session)) = session {
        return (StatusCode::SEE_OTHER, [(header::LOCATION, security::landing(&session))]).into_response();
    }
    login_form(&state, StatusCode::OK, None)
}

/// The login form's fields.
#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
    /// The form's token ([`CSRF_FIELD`]).
    csrf: Option<String>,
}

/// `POST /login`.
async fn login(
    State(state): State<ConsoleState>,
    Client(client): Client,
    headers: header::HeaderMap,
    Form(c): Form<Credentials>,
) -> Response {
    // A name longer than any operator's is unknown; it is cut so the throttle keeps little.
    let name: String = c.name.chars().take(MAX_NAME + 1).collect();
    if !session::login_token_matches(security::cookie(&headers, LOGIN_COOKIE), c.csrf.as_deref()) {
        session::login_forged(&state.throttle, &name, client);
        return login_form(
            &state,
            StatusCode::FORBIDDEN,
            Some("This login form has expired or did not come from this console: log in again."),
        );
    }
    match session::login(&state.app.store, &state.throttle, &name, &c.password, client, state.timeouts()).await {
        Ok((id, session)) => (
            StatusCode::SEE_OTHER,
            AppendHeaders([
                (header::LOCATION, security::landing(&session).to_string()),
                (header::SET_COOKIE, security::session_cookie(&id, &state)),
                (header::SET_COOKIE, security::cleared_login_cookie(&state)),
            ]),
        )
            .into_response(),
        Err(LoginError::Refused) => login_form(&state, StatusCode::UNAUTHORIZED, Some("Wrong name or password.")),
        Err(e @ LoginError::Unavailable(_)) => {
            tracing::error!(error = %e, "console login");
            login_form(&state, StatusCode::SERVICE_UNAVAILABLE, Some("The login could not be checked now; try again."))
        }
    }
}

/// `POST /logout`: the session ends (on every gateway) and its cookie is removed.
async fn logout(State(state): State<ConsoleState>, Hotelier(session): Hotelier) -> Response {
    if let Err(e) = session::logout(&state.app.store, &session).await {
        tracing::error!(error = %e, "console logout");
        return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The session could not be ended; try again.");
    }
    tracing::info!(operator = %session.operator, "console logout");
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, "/login".to_string()), (header::SET_COOKIE, security::cleared_cookie(&state))],
    )
        .into_response()
}
