//! The console's hardening (issue 30, `docs/console/hardening.md`), on both backends with real
//! listeners: the login form's own CSRF token (login CSRF).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use ota_gateway::operators::Role;

use crate::support::console::{ConsoleClient, ConsoleServer, Page, csrf_of, login_token_of};
use crate::support::{Backend, backend_tests, count};

/// `POST /login` with the given form and, when given, the login cookie's token.
async fn post_login(raw: &ConsoleClient, cookie: Option<&str>, form: &[(&str, &str)]) -> Page {
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let mut rq = http.post(format!("{}/login", raw.base)).form(form);
    if let Some(token) = cookie {
        rq = rq.header("cookie", format!("ota_console_login={token}"));
    }
    let res = rq.send().await.unwrap();
    let (status, headers) = (res.status().as_u16(), res.headers().clone());
    Page { status, headers, body: res.text().await.unwrap() }
}

/// Login CSRF: the login form carries a token of its own, in its hidden field and in a
/// short-lived `HttpOnly`, `SameSite=Strict` cookie sent to `/login` only; a login without
/// the token, with only one of the two, or with a token of another form (an attacker's own,
/// which it cannot set in the victim's browser) is refused with 403 and makes no session —
/// even with the right password — and counts as a failure for the throttle (the address is
/// locked after them); the right form logs in and its login cookie is removed.
async fn login_form_carries_its_own_csrf_token(b: Backend) {
    let gw = ConsoleServer::start_with(b, |c| {
        c.throttle.address_failures = 3;
        c.throttle.requestor_failures = 100;
        c.throttle.first_lock = Duration::from_secs(2);
    })
    .await;
    let password = gw.operator("ann", Role::Admin).await;
    let raw = gw.anonymous();
    let form = raw.get("/login").await;
    assert_eq!(form.status, 200);
    let cookie = form
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("ota_console_login="))
        .expect("a login cookie")
        .to_string();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/login", "Max-Age=600"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "{cookie}");
    let token = login_token_of(&form).unwrap();
    assert_eq!(token.len(), 64);
    assert_eq!(csrf_of(&form.body).as_deref(), Some(token.as_str()), "the form's hidden field");
    let other = login_token_of(&raw.get("/login").await).unwrap();
    assert_ne!(token, other, "a new token for every form");

    let sessions = count(gw.store(), "console_session").await;
    let creds = [("name", "ann"), ("password", password.as_str())];
    fn with<'a>(creds: &[(&'a str, &'a str)], t: &'a str) -> Vec<(&'a str, &'a str)> {
        let mut f = creds.to_vec();
        f.push(("csrf", t));
        f
    }
    let attempts: [(&str, Option<&str>, Vec<(&str, &str)>); 4] = [
        ("no token at all", None, creds.to_vec()),
        ("the cookie only", Some(&token), creds.to_vec()),
        ("the field only", None, with(&creds, &token)),
        ("another form's token", Some(&token), with(&creds, &other)),
    ];
    for (what, cookie, form) in attempts {
        let page = post_login(&raw, cookie, &form).await;
        assert_eq!(page.status, 403, "{what}: {}", page.body);
        assert!(page.body.contains("did not come from this console"), "{what}: {}", page.body);
        assert!(
            !page.headers.get_all("set-cookie").iter().any(|v| v.to_str().unwrap().starts_with("ota_console=")),
            "{what}: no session cookie"
        );
        assert!(login_token_of(&page).is_some(), "{what}: a new form to try again with");
    }
    assert_eq!(count(gw.store(), "console_session").await, sessions, "no session made");

    // The four refusals counted: the address is locked, the right form is refused for now…
    let locked = raw.submit_login("ann", &password).await;
    assert_eq!(locked.status, 401, "locked by the refused logins: {}", locked.body);
    tokio::time::sleep(Duration::from_millis(2200)).await;
    // …and works once the lock ends; the login cookie is removed.
    let ok = raw.submit_login("ann", &password).await;
    assert_eq!(ok.status, 303, "{}", ok.body);
    let cookies: Vec<&str> = ok.headers.get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).collect();
    assert!(cookies.iter().any(|c| c.starts_with("ota_console=") && c.contains("HttpOnly")), "{cookies:?}");
    assert!(cookies.iter().any(|c| c.starts_with("ota_console_login=;") && c.contains("Max-Age=0")), "{cookies:?}");
    assert_eq!(count(gw.store(), "console_session").await, sessions + 1);

    // With --console-secure-cookie, the login cookie is Secure too.
    let secure = ConsoleServer::start_with(b, |c| c.console.secure_cookie = true).await;
    let form = secure.anonymous().get("/login").await;
    let cookie = form.header("set-cookie");
    assert!(cookie.starts_with("ota_console_login=") && cookie.contains("; Secure"), "{cookie}");
}

backend_tests!(login_form_carries_its_own_csrf_token);
