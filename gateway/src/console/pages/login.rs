//! `GET /login` (the form), `POST /login` (a session and its cookie, then the overview — the
//! extranet for a hotel user —, or the form again with "wrong name or password" — the same for
//! every failure), `POST /logout`.

use axum::Router;
use axum::extract::{Form, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use crate::console::ConsoleState;
use crate::console::layout;
use crate::console::security::{self, Client, Hotelier};
use crate::operators::MAX_NAME;
use crate::operators::session::{self, LoginError, Session};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new().route("/login", get(form).post(login)).route("/logout", post(logout))
}

/// The login form, with a message when a login failed.
fn login_form(status: StatusCode, message: Option<&str>) -> Response {
    let content: Markup = html! {
        @if let Some(m) = message { (layout::notice(false, m)) }
        form.stack method="post" action="/login" {
            label for="name" { "Name" }
            input #name type="text" name="name" autocomplete="username" required autofocus;
            label for="password" { "Password" }
            input #password type="password" name="password" autocomplete="current-password" required;
            p { button type="submit" { "Log in" } }
        }
    };
    layout::bare(status, "Log in", content)
}

/// `GET /login`: the form (an operator logged in already goes to its landing page).
async fn form(session: Option<axum::Extension<Session>>) -> Response {
    if let Some(axum::Extension(session)) = session {
        return (StatusCode::SEE_OTHER, [(header::LOCATION, security::landing(&session))]).into_response();
    }
    login_form(StatusCode::OK, None)
}

/// The login form's fields.
#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

/// `POST /login`.
async fn login(State(state): State<ConsoleState>, Client(client): Client, Form(c): Form<Credentials>) -> Response {
    // A name longer than any operator's is unknown; it is cut so the throttle keeps little.
    let name: String = c.name.chars().take(MAX_NAME + 1).collect();
    match session::login(&state.app.store, &state.throttle, &name, &c.password, client, state.timeouts()).await {
        Ok((id, session)) => (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, security::landing(&session).to_string()),
                (header::SET_COOKIE, security::session_cookie(&id, &state)),
            ],
        )
            .into_response(),
        Err(LoginError::Refused) => login_form(StatusCode::UNAUTHORIZED, Some("Wrong name or password.")),
        Err(e @ LoginError::Unavailable(_)) => {
            tracing::error!(error = %e, "console login");
            login_form(StatusCode::SERVICE_UNAVAILABLE, Some("The login could not be checked now; try again."))
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
