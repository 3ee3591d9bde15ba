//! The operator console: a web console on a listener of its own (`serve --console-addr ADDR`,
//! off unless set), served by every gateway from the same database, so any gateway's console
//! shows and changes the same things. Server-rendered HTML (maud, which escapes every value)
//! with htmx, both built into the binary; the read pages work without JavaScript.
//!
//! Security, on every request ([`security`]): a Content-Security-Policy with nothing inline and
//! nothing from elsewhere, `nosniff`, `Referrer-Policy: same-origin`, pages never cached; a
//! session from the database (the cookie `HttpOnly`, `SameSite=Strict`, `Secure` with
//! `--console-secure-cookie`; idle and absolute time-outs, see [`crate::operators::session`]);
//! every state-changing request refused without its session's CSRF token; every change checked
//! on the server to come from an admin ([`security::Admin`]). A hotel user (role `hotel`) reaches
//! only the extranet (`/extranet…`, [`security::Hotelier`]): every other page answers it 404 as
//! an unknown URL does, and a hotel or booking not its supplier's answers the same.
//!
//! **Adding a page**: a file in `pages/` with `pub fn routes() -> Router<ConsoleState>` whose
//! handlers take [`security::Viewer`] (to read) or [`security::Admin`] (to change; forms carry
//! [`layout::csrf_field`]) and answer [`layout::page`]; one line in `pages/mod.rs`'s
//! [`pages::routes`] and, for the navigation, one in [`pages::NAV`]. See `pages/mod.rs`.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`ConsoleState`], [`router`], [`app`] (served on its listener by [`crate::server::run`], at most `--console-max-connections` at once) |
//! | [`security`] | the security headers, the session and CSRF check of every request, the [`security::Viewer`] / [`security::Admin`] / [`security::Hotelier`] / [`security::HotelEditor`] / [`security::Client`] extractors, the cookie |
//! | [`layout`] | the page frame ([`layout::page`]), the CSRF field, error pages, notices |
//! | [`assets`] | htmx and the style sheet, from memory |
//! | [`pages`] | one file per page, and the navigation |

pub mod assets;
pub mod layout;
pub mod pages;
pub mod security;

use std::sync::Arc;

use axum::Router;
use axum::middleware;

use crate::auth::throttle::Throttle;
use crate::operators::session::Timeouts;
use crate::state::AppState;

/// What every console request is served with: the gateway's state and the console's own login
/// throttle (the partners' rules, its own counts).
#[derive(Debug, Clone)]
pub struct ConsoleState {
    /// The gateway's state: the store, the content, the settings.
    pub app: AppState,
    /// Repeated login failures lock the client address and the name.
    pub throttle: Arc<Throttle>,
    /// The Traffic page's answers, each kept for a flush interval (`--traffic-flush-interval`).
    pub traffic: Arc<crate::traffic::query::Recent>,
}

impl ConsoleState {
    /// The console of a gateway.
    pub fn new(app: AppState) -> ConsoleState {
        let throttle = Arc::new(Throttle::new(app.config.throttle));
        let traffic = Arc::new(crate::traffic::query::Recent::new(app.config.traffic_flush));
        ConsoleState { app, throttle, traffic }
    }

    /// The sessions' time-outs (`--console-idle-timeout`, `--console-session-lifetime`).
    pub fn timeouts(&self) -> Timeouts {
        let c = &self.app.config.console;
        Timeouts { idle: c.idle_timeout, absolute: c.session_lifetime }
    }
}

/// Every route of the console, behind its security layers.
pub fn router(state: ConsoleState) -> Router {
    Router::new()
        .merge(pages::routes())
        .merge(assets::routes())
        .fallback(|| async { layout::not_found() })
        .layer(middleware::from_fn_with_state(state.clone(), security::sessions))
        .layer(middleware::from_fn(security::headers))
        .with_state(state)
}

/// The console of `app`: every route behind its security layers, with its own login throttle.
/// [`crate::server::run`] serves it on the console's listener through the accept loop every
/// listener shares (`http::serve_router`), with at most `--console-max-connections` open at
/// once.
pub fn app(app: AppState) -> Router {
    router(ConsoleState::new(app))
}
