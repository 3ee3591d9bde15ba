//! What every console request goes through: the security headers of every answer, the client's
//! address, the session (from the cookie, looked up in the database), and the CSRF check of
//! every state-changing request — so that a page cannot forget any of them. A page handler then
//! takes [`Viewer`] (an admin or a viewer) or [`Admin`] (an admin; a viewer gets 403) as an
//! argument, and [`Client`] for the address an audit entry records. An extranet page takes
//! [`Hotelier`] (a hotel user, an admin or a viewer) or [`HotelEditor`] (a hotel user or an
//! admin; a viewer gets 403) and asks [`crate::operators::scope::may_see_hotel`] for every hotel
//! it shows.
//!
//! A hotel user sees only the extranet: any other path answers it [`layout::not_found`], byte
//! for byte what an unknown URL answers (not 403: it must not learn what exists) — refused here
//! before any route is chosen ([`sessions`]), and again by the [`Viewer`] and [`Admin`]
//! extractors.

use std::net::{IpAddr, SocketAddr};

use axum::body::Body;
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ConsoleState;
use super::layout::{self, CSRF_FIELD};
use crate::operators::session::{self, Session};

/// The cookie that carries a session's id.
pub const COOKIE: &str = "ota_console";

/// The cookie that carries the login form's token (only to `/login`, for [`LOGIN_COOKIE_AGE`]).
pub const LOGIN_COOKIE: &str = "ota_console_login";

/// How long a login form may wait for its login (its cookie's `Max-Age`, in seconds).
pub const LOGIN_COOKIE_AGE: u64 = 600;

/// The header an htmx request carries its CSRF token in (forms: the field [`CSRF_FIELD`]).
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The most bytes of a form read to find its CSRF token.
const MAX_FORM: usize = 64 * 1024;

/// The Content-Security-Policy of every answer: nothing inline, nothing from elsewhere, never in
/// a frame.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; \
                       form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/// The paths served without a session: the login page and the static files.
fn public(path: &str) -> bool {
    path == "/login" || path.starts_with("/assets/")
}

/// Where a session lands after its login (and at `/`): the extranet for a hotel user, the
/// overview for the others.
pub fn landing(session: &Session) -> &'static str {
    if session.is_hotel() { "/extranet" } else { "/" }
}

/// The paths a hotel user may reach: the extranet, the login page, the logout and the static
/// files.
fn hotel_may_reach(path: &str) -> bool {
    path == "/extranet" || path.starts_with("/extranet/") || path == "/logout" || public(path)
}

/// Sets the security headers on every answer; a page (anything but `/assets/`) is never stored
/// by a cache.
pub async fn headers(req: Request, next: Next) -> Response {
    let asset = req.uri().path().starts_with("/assets/");
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !asset {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

/// The client's address of a console request (behind `--trusted-proxy`, the forwarded one).
#[derive(Debug, Clone, Copy)]
pub struct Client(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts.extensions.get::<Client>().copied().unwrap_or(Client(None)))
    }
}

/// The session id of a request's cookie, if it has one.
fn cookie_id(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, COOKIE)
}

/// The value of the request's cookie `name`, if it has one.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// The `Set-Cookie` value carrying a login form's token: `HttpOnly`, `SameSite=Strict`, sent
/// to `/login` only, for [`LOGIN_COOKIE_AGE`] (`Secure` with `--console-secure-cookie`).
pub fn login_cookie(token: &str, state: &ConsoleState) -> String {
    let secure = if state.app.config.console.secure_cookie { "; Secure" } else { "" };
    format!("{LOGIN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/login; Max-Age={LOGIN_COOKIE_AGE}{secure}")
}

/// The `Set-Cookie` value that removes the login form's cookie (after a login).
pub fn cleared_login_cookie(state: &ConsoleState) -> String {
    let secure = if state.app.config.console.secure_cookie { "; Secure" } else { "" };
    format!("{LOGIN_COOKIE}=; HttpOnly; SameSite=Strict; Path=/login; Max-Age=0{secure}")
}

/// The `Set-Cookie` value of a new session (`Secure` with `--console-secure-cookie`).
pub fn session_cookie(id: &str, state: &ConsoleState) -> String {
    let s = &state.app.config.console;
    let secure = if s.secure_cookie { "; Secure" } else { "" };
    format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{secure}", s.session_lifetime.as_secs())
}

/// The `Set-Cookie` value that removes the session's cookie.
pub fn cleared_cookie(state: &ConsoleState) -> String {
    let secure = if state.app.config.console.secure_cookie { "; Secure" } else { "" };
    format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{secure}")
}

/// The CSRF token of a form body (`csrf=…`), if it has one.
fn form_token(body: &[u8]) -> Option<String> {
    form_urlencoded_pairs(body).find(|(k, _)| k == CSRF_FIELD).map(|(_, v)| v)
}

/// The pairs of an `application/x-www-form-urlencoded` body.
pub(crate) fn form_urlencoded_pairs(body: &[u8]) -> impl Iterator<Item = (String, String)> + '_ {
    let decode = |s: &[u8]| -> String {
        let mut out = Vec::with_capacity(s.len());
        let mut i = 0;
        while i < s.len() {
            match s[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < s.len() => {
                    let hex = std::str::from_utf8(&s[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                    match hex {
                        Some(b) => {
                            out.push(b);
                            i += 2;
                        }
                        None => out.push(b'%'),
                    }
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split(|b| *b == b'&').filter(|p| !p.is_empty()).map(move |pair| {
        let mut it = pair.splitn(2, |b| *b == b'=');
        let k = it.next().unwrap_or_default();
        let v = it.next().unwrap_or_default();
        (decode(k), decode(v))
    })
}

/// Finds the client's address and the request's session; refuses (403) a state-changing
/// request without a session or without its session's CSRF token (the header
/// [`CSRF_HEADER`], or the form field [`CSRF_FIELD`]). The login itself has no session yet:
/// its form's own token is checked by its handler (`pages::login`).
pub async fn sessions(State(state): State<ConsoleState>, mut req: Request, next: Next) -> Response {
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let client = peer.map(|peer| {
        let forwarded = req.headers().get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
        state.app.config.client_address(peer, forwarded)
    });
    req.extensions_mut().insert(Client(client));
    let path = req.uri().path().to_string();
    if public(&path) && path != "/login" {
        return next.run(req).await;
    }
    let found = match cookie_id(req.headers()) {
        Some(id) => match session::find(&state.app.store, id, state.timeouts()).await {
            Ok(found) => found,
            Err(e) => {
                tracing::error!(error = %e, "console: the session could not be read");
                return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The database is not available; try again.");
            }
        },
        None => None,
    };
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD);
    if changes && path != "/login" {
        let Some(session) = &found else {
            return layout::error(StatusCode::FORBIDDEN, "Log in first: this request has no valid session.");
        };
        let header_token = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
        let token = match header_token {
            Some(t) => Some(t),
            None => {
                let (parts, body) = req.into_parts();
                let bytes = match axum::body::to_bytes(body, MAX_FORM).await {
                    Ok(b) => b,
                    Err(_) => return layout::error(StatusCode::PAYLOAD_TOO_LARGE, "This form is too large."),
                };
                let token = form_token(&bytes);
                req = Request::from_parts(parts, Body::from(bytes));
                token
            }
        };
        if !token.is_some_and(|t| session.csrf_matches(&t)) {
            tracing::warn!(operator = %session.operator, path = %crate::shared::log_text::LogText(&path), "console: a request without its CSRF token refused");
            return layout::error(
                StatusCode::FORBIDDEN,
                "This request does not carry this session's CSRF token: reload the page and try again.",
            );
        }
    }
    if let Some(session) = found {
        if session.is_hotel() && !hotel_may_reach(&path) {
            if path == "/" && !changes {
                return (StatusCode::SEE_OTHER, [(header::LOCATION, landing(&session))]).into_response();
            }
            tracing::info!(operator = %session.operator, path = %crate::shared::log_text::LogText(&path), "console: a hotel user outside the extranet");
            return layout::not_found();
        }
        req.extensions_mut().insert(session);
    }
    next.run(req).await
}

/// A logged-in operator (admin or viewer): what a page that only reads takes. Without a
/// session, the browser is sent to the login page; a hotel user gets [`layout::not_found`].
#[derive(Debug, Clone)]
pub struct Viewer(pub Session);

/// A logged-in admin: what every change takes. A viewer gets 403 (checked here, on the server,
/// whatever the page showed); a hotel user gets [`layout::not_found`].
#[derive(Debug, Clone)]
pub struct Admin(pub Session);

/// Who may read the extranet: a hotel user (its supplier's hotels), an admin or a viewer (any
/// hotel's, for support). The page asks [`crate::operators::scope::may_see_hotel`] for each
/// hotel, and answers [`layout::not_found`] for one the session may not see.
#[derive(Debug, Clone)]
pub struct Hotelier(pub Session);

/// Who may change something in the extranet (acknowledge a booking, edit the calendar): a hotel
/// user or an admin; a viewer gets 403. The hotel is still checked with
/// [`crate::operators::scope::may_see_hotel`].
#[derive(Debug, Clone)]
pub struct HotelEditor(pub Session);

/// The answer to a request that needs a session and has none: to the login page (an htmx
/// request is told with `HX-Redirect`).
fn to_login(parts: &Parts) -> Response {
    if parts.headers.contains_key("hx-request") {
        return (StatusCode::UNAUTHORIZED, [("hx-redirect", "/login")]).into_response();
    }
    (StatusCode::SEE_OTHER, [(header::LOCATION, "/login")]).into_response()
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Session>() {
            Some(s) if s.is_hotel() => Err(hotel_refused(s, parts)),
            Some(s) => Ok(Viewer(s.clone())),
            None => Err(to_login(parts)),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Admin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Session>() {
            Some(s) if s.is_admin() => Ok(Admin(s.clone())),
            Some(s) if s.is_hotel() => Err(hotel_refused(s, parts)),
            Some(s) => {
                tracing::warn!(operator = %s.operator, path = %parts.uri.path(), "console: a viewer's change refused");
                Err(layout::error(StatusCode::FORBIDDEN, "Only an admin may do this."))
            }
            None => Err(to_login(parts)),
        }
    }
}

/// A hotel user on an operator's page: the answer of an unknown URL.
fn hotel_refused(s: &Session, parts: &Parts) -> Response {
    tracing::info!(operator = %s.operator, path = %crate::shared::log_text::LogText(parts.uri.path()), "console: a hotel user on an operator page");
    layout::not_found()
}

impl<S: Send + Sync> FromRequestParts<S> for Hotelier {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Session>() {
            Some(s) => Ok(Hotelier(s.clone())),
            None => Err(to_login(parts)),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for HotelEditor {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Session>() {
            Some(s) if s.is_hotel() || s.is_admin() => Ok(HotelEditor(s.clone())),
            Some(s) => {
                tracing::warn!(operator = %s.operator, path = %parts.uri.path(), "console: a viewer's extranet change refused");
                Err(layout::error(StatusCode::FORBIDDEN, "Only the hotel's user or an admin may do this."))
            }
            None => Err(to_login(parts)),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn cookies_and_forms() {
        let mut h = HeaderMap::new();
        h.append(header::COOKIE, HeaderValue::from_static("a=1; ota_console=abc; b=2"));
        assert_eq!(cookie_id(&h), Some("abc"));
        h.clear();
        h.append(header::COOKIE, HeaderValue::from_static("ota_consolex=1"));
        assert_eq!(cookie_id(&h), None);
        h.clear();
        h.append(header::COOKIE, HeaderValue::from_static("ota_console_login=t1; ota_console=s1"));
        assert_eq!((cookie_id(&h), cookie(&h, LOGIN_COOKIE)), (Some("s1"), Some("t1")));
        assert_eq!(form_token(b"a=1&csrf=x%2By+z&b=%"), Some("x+y z".to_string()));
        assert_eq!(form_token(b"csrf=%zz%4"), Some("%zz%4".to_string()));
        assert_eq!(form_token(b"a=1"), None);
    }

    /// The extractors on their own (the middleware refuses a hotel user outside the extranet
    /// first): a hotel user gets the unknown URL's 404 from [`Viewer`] and [`Admin`], is
    /// admitted by [`Hotelier`] and [`HotelEditor`]; a viewer is refused by [`HotelEditor`].
    #[tokio::test]
    async fn extractors_by_role() {
        use crate::operators::Role;
        async fn status<T: FromRequestParts<(), Rejection = Response>>(s: &Session) -> StatusCode {
            let (mut parts, ()) = axum::http::Request::get("/partners").body(()).unwrap().into_parts();
            parts.extensions.insert(s.clone());
            match T::from_request_parts(&mut parts, &()).await {
                Ok(_) => StatusCode::OK,
                Err(r) => r.status(),
            }
        }
        let hotel = Session::for_test("hu", Role::Hotel, Some("SUP"));
        let viewer = Session::for_test("vic", Role::Viewer, None);
        let admin = Session::for_test("ann", Role::Admin, None);
        assert_eq!(status::<Viewer>(&hotel).await, StatusCode::NOT_FOUND);
        assert_eq!(status::<Admin>(&hotel).await, StatusCode::NOT_FOUND);
        assert_eq!(status::<Hotelier>(&hotel).await, StatusCode::OK);
        assert_eq!(status::<HotelEditor>(&hotel).await, StatusCode::OK);
        assert_eq!(status::<Viewer>(&viewer).await, StatusCode::OK);
        assert_eq!(status::<Hotelier>(&viewer).await, StatusCode::OK);
        assert_eq!(status::<HotelEditor>(&viewer).await, StatusCode::FORBIDDEN);
        assert_eq!(status::<HotelEditor>(&admin).await, StatusCode::OK);
        assert_eq!(status::<Admin>(&admin).await, StatusCode::OK);
        let unknown = axum::body::to_bytes(layout::not_found().into_body(), 1 << 20).await.unwrap();
        let (mut parts, ()) = axum::http::Request::get("/partners").body(()).unwrap().into_parts();
        parts.extensions.insert(hotel);
        let refused = Viewer::from_request_parts(&mut parts, &()).await.unwrap_err();
        assert_eq!(axum::body::to_bytes(refused.into_body(), 1 << 20).await.unwrap(), unknown);
    }
}
