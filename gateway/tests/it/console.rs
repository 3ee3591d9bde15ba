//! The operator console (issue 30), over HTTP on both backends: logins (good, wrong password,
//! unknown name, disabled), sessions in the database (logout and a disabled operator end them,
//! on a second gateway too; idle and absolute time-outs), the CSRF token and the admin role
//! checked on the server, the security headers and the absence of anything inline on every
//! page, htmx served from the binary; `ota-gateway operator …` and `serve --demo`'s console.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ota_gateway::audit::Actor;
use ota_gateway::operators::{Role, admin};

use crate::support::console::{ConsoleClient, ConsoleServer, Page};
use crate::support::{Backend, TestDb, backend_tests, cli};

/// The console sends a browser without a session to the login page.
fn to_login(page: &Page) -> bool {
    page.status == 303 && page.header("location") == "/login"
}

/// Logins: a good one gets a session cookie with the right attributes; a wrong password, an
/// unknown name and a disabled operator all get the same refusal, at about the same cost (the
/// unknown name is verified against a dummy hash); a page without a session goes to the login;
/// logout ends the session (its old cookie no longer works).
async fn logins_and_logout(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let password = gw.operator("ann", Role::Admin).await;
    assert!(to_login(&gw.anonymous().get("/").await), "no session: to the login page");
    assert!(to_login(&gw.anonymous().get("/operators").await));

    let raw = ConsoleClient::anonymous(&gw.console);
    let login = raw.post_raw("/login", &[("name", "ann"), ("password", &password)]).await;
    assert_eq!(login.status, 303, "{}", login.body);
    let cookie = login.header("set-cookie");
    for attribute in ["ota_console=", "HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "not Secure unless --console-secure-cookie: {cookie}");

    let refused = |page: &Page| page.status == 401 && page.body.contains("Wrong name or password.");
    let timed = |name: &'static str, pw: &'static str| {
        let raw = raw.clone();
        async move {
            let started = Instant::now();
            let page = raw.post_raw("/login", &[("name", name), ("password", pw)]).await;
            (page, started.elapsed())
        }
    };
    let (wrong, wrong_took) = timed("ann", "not-the-password").await;
    assert!(refused(&wrong), "{}", wrong.body);
    let (unknown, unknown_took) = timed("nobody", "not-the-password").await;
    assert!(refused(&unknown), "{}", unknown.body);
    assert_eq!(wrong.body, unknown.body, "the same answer for a wrong password and an unknown name");
    // Both pay one argon2 verification (several ms even optimised); an unknown name that
    // skipped it would answer in well under a tenth of the time.
    assert!(
        unknown_took * 4 >= wrong_took,
        "an unknown name costs about what a wrong password does: {unknown_took:?} vs {wrong_took:?}"
    );
    let viewer_pw = gw.operator("vic", Role::Viewer).await;
    admin::set_active(gw.store(), &Actor::cli(), "vic", false).await.unwrap();
    let disabled = raw.post_raw("/login", &[("name", "vic"), ("password", &viewer_pw)]).await;
    assert!(refused(&disabled), "a disabled operator cannot log in: {}", disabled.body);
    assert!(refused(&raw.post_raw("/login", &[("name", &"x".repeat(100_000)), ("password", "p")]).await));

    let ann = ConsoleClient::login(&gw.console, "ann", &password).await.unwrap();
    let home = ann.get("/").await;
    assert_eq!(home.status, 200);
    assert!(home.body.contains("ann") && home.body.contains("admin"), "{}", home.body);
    assert!(to_login(&ann.get("/login").await) || ann.get("/login").await.status == 303);
    let out = ann.post("/logout", &[]).await;
    assert!(to_login(&out), "{out:?}");
    assert!(out.header("set-cookie").contains("Max-Age=0"));
    assert!(to_login(&ann.get("/").await), "the old cookie no longer works after logout");
    assert_eq!(ann.post("/operators", &[("name", "zed"), ("role", "admin")]).await.status, 403);
}

/// Sessions live in the database: a session opened on one gateway works on another on the
/// same database; logging out on one ends it on both, and disabling the operator (through the
/// library, as `operator disable` does) ends every session of it on both at once.
async fn sessions_are_shared_and_revoked_everywhere(b: Backend) {
    let a = ConsoleServer::start(b).await;
    let b2 = a.another(|_| {}).await;
    let password = a.operator("ann", Role::Admin).await;
    let on_a = ConsoleClient::login(&a.console, "ann", &password).await.unwrap();
    let on_b = on_a.on(&b2.console);
    assert_eq!(on_b.get("/").await.status, 200, "a session of gateway A works on gateway B");
    // A second session of the same operator, ended by its logout on B only.
    let other = ConsoleClient::login(&b2.console, "ann", &password).await.unwrap();
    assert_eq!(other.post("/logout", &[]).await.status, 303);
    assert!(to_login(&other.on(&a.console).get("/").await), "logged out on B: gone on A too");
    assert_eq!(on_a.get("/").await.status, 200, "the other session lives on");

    admin::set_active(a.store(), &Actor::cli(), "ann", false).await.unwrap();
    assert!(to_login(&on_a.get("/").await), "disabled: the session ends on A");
    assert!(to_login(&on_b.get("/").await), "disabled: the session ends on B");
    admin::set_active(a.store(), &Actor::cli(), "ann", true).await.unwrap();
    assert!(to_login(&on_b.get("/").await), "enabling does not bring an ended session back");

    // A password change ends the sessions too.
    let again = ConsoleClient::login(&a.console, "ann", &password).await.unwrap();
    admin::passwd(a.store(), &Actor::cli(), "ann", "a-new-password".into()).await.unwrap();
    assert!(to_login(&again.on(&b2.console).get("/").await));
    assert!(ConsoleClient::login(&a.console, "ann", &password).await.is_err());
    assert!(ConsoleClient::login(&b2.console, "ann", "a-new-password").await.is_ok());
}

/// A session unused for the idle time-out ends; one in use ends at its absolute time-out.
async fn sessions_time_out(b: Backend) {
    let gw = ConsoleServer::start_with(b, |c| {
        c.console.idle_timeout = Duration::from_secs(2);
        c.console.session_lifetime = Duration::from_secs(6);
    })
    .await;
    let idle = gw.login_as("ann", Role::Viewer).await;
    let busy = ConsoleClient::login(&gw.console, "ann", "ann-secret-pw").await.unwrap();
    let started = Instant::now();
    // The busy session is used every half second: it outlives the idle time-out…
    while started.elapsed() < Duration::from_millis(3500) {
        assert_eq!(busy.get("/").await.status, 200, "a session in use stays ({:?})", started.elapsed());
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(to_login(&idle.get("/").await), "unused for more than 2 s: ended");
    // …but not its lifetime.
    while started.elapsed() < Duration::from_secs(5) {
        assert_eq!(busy.get("/").await.status, 200);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert!(to_login(&busy.get("/").await), "past its 6 s lifetime: ended, used or not");
}

/// Every state-changing request carries the session's CSRF token (form field or htmx header);
/// without it, or with another session's, it is refused and changes nothing. A viewer's change
/// is refused on the server (403), whatever the page showed.
async fn csrf_and_roles_are_checked_on_the_server(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let ann = gw.login_as("ann", Role::Admin).await;
    let vic = gw.login_as("vic", Role::Viewer).await;
    let names = || async { admin::list(gw.store()).await.unwrap().into_iter().map(|o| o.name).collect::<Vec<_>>() };

    let add = [("name", "zed"), ("role", "viewer")];
    let without = ann.post_raw("/operators", &add).await;
    assert_eq!(without.status, 403, "no CSRF token: {}", without.body);
    let wrong = ann.post_raw("/operators", &[("name", "zed"), ("role", "viewer"), ("csrf", &vic.csrf)]).await;
    assert_eq!(wrong.status, 403, "another session's token");
    let bad = ann.post_raw("/operators", &[("name", "zed"), ("role", "viewer"), ("csrf", "")]).await;
    assert_eq!(bad.status, 403, "an empty token");
    assert!(!names().await.contains(&"zed".to_string()), "nothing changed");
    assert_eq!(ann.post("/logout", &[]).await.status, 303, "(ann still logged in before this)");

    let ann = ConsoleClient::login(&gw.console, "ann", "ann-secret-pw").await.unwrap();
    let done = ann.post("/operators", &add).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("shown only now"), "{}", done.body);
    let htmx = ann.post_htmx("/operators/zed/disable", &[]).await;
    assert_eq!(htmx.status, 200, "the token in htmx's header: {}", htmx.body);

    let viewer = vic.post("/operators", &[("name", "eve"), ("role", "admin")]).await;
    assert_eq!(viewer.status, 403, "a viewer's change, with a valid token: {}", viewer.body);
    assert_eq!(vic.post("/operators/zed/enable", &[]).await.status, 403);
    assert_eq!(vic.get("/operators").await.status, 403, "the operators page is the admins'");
    assert!(!vic.get("/").await.body.contains(r#"href="/operators""#), "not in a viewer's navigation");
    let all = admin::list(gw.store()).await.unwrap();
    assert!(!all.iter().any(|o| o.name == "eve"));
    assert!(!all.iter().find(|o| o.name == "zed").unwrap().active, "still disabled");
    // Without a session at all: refused too.
    assert_eq!(gw.anonymous().post_raw("/operators", &add).await.status, 403);
}

/// Asserts the security headers of a console answer.
fn assert_secure(what: &str, page: &Page, cached: bool) {
    let csp = page.header("content-security-policy");
    for part in ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"] {
        assert!(csp.contains(part), "{what}: {part} in {csp:?}");
    }
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"), "{what}: {csp}");
    assert_eq!(page.header("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(page.header("referrer-policy"), "same-origin", "{what}");
    if !cached {
        assert_eq!(page.header("cache-control"), "no-store", "{what}");
    }
}

/// Asserts that a page has no inline script or style: every `<script` loads a file and has no
/// body, no `<style>` element, no `style=` or `on…=` attribute, no `javascript:` URL.
pub(crate) fn assert_nothing_inline(what: &str, html: &str) {
    let lower = html.to_ascii_lowercase();
    for (at, _) in lower.match_indices("<script") {
        let tag_end = lower[at..].find('>').map(|e| at + e).unwrap();
        assert!(lower[at..tag_end].contains(" src=\"/assets/"), "{what}: an inline script at {at}");
        assert!(lower[tag_end + 1..].starts_with("</script>"), "{what}: a script with a body");
    }
    assert!(!lower.contains("<style"), "{what}: a <style> element");
    assert!(!lower.contains(" style="), "{what}: a style attribute");
    assert!(!lower.contains("javascript:"), "{what}: a javascript: URL");
    for event in [" onclick=", " onload=", " onerror=", " onsubmit=", " onmouseover="] {
        assert!(!lower.contains(event), "{what}: an {event} handler");
    }
}

/// Every answer carries the security headers; no page has anything inline; htmx and the style
/// sheet come from the binary.
async fn security_headers_and_nothing_inline(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let ann = gw.login_as("ann", Role::Admin).await;
    let anon = gw.anonymous();
    for (what, page) in [
        ("login", anon.get("/login").await),
        ("a refused login", anon.post_raw("/login", &[("name", "x"), ("password", "y")]).await),
        ("to login", anon.get("/").await),
        ("overview", ann.get("/").await),
        ("operators", ann.get("/operators").await),
        ("not found", ann.get("/no/such/page").await),
        ("csrf refused", ann.post_raw("/operators", &[]).await),
    ] {
        assert_secure(what, &page, false);
        assert_nothing_inline(what, &page.body);
    }
    assert_eq!(ann.get("/").await.status, 200);
    let htmx = anon.get("/assets/htmx.min.js").await;
    assert_eq!(htmx.status, 200);
    assert!(htmx.header("content-type").starts_with("text/javascript"), "{}", htmx.header("content-type"));
    assert_eq!(htmx.body, ota_gateway::console::assets::HTMX, "htmx from the binary");
    assert!(htmx.body.starts_with("var htmx=function()"), "htmx itself");
    assert_secure("htmx", &htmx, true);
    let css = anon.get("/assets/console.css").await;
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").starts_with("text/css"));
    // The page loads exactly these, from the console itself.
    let home = ann.get("/").await.body;
    assert!(home.contains(r#"<script src="/assets/htmx.min.js" defer></script>"#), "{home}");
    assert!(home.contains(r#"<link rel="stylesheet" href="/assets/console.css">"#), "{home}");
    assert!(!home.contains("http://") && !home.contains("https://"), "nothing from elsewhere: {home}");
    // With --console-secure-cookie, the cookie is Secure.
    let secure = ConsoleServer::start_with(b, |c| c.console.secure_cookie = true).await;
    let pw = secure.operator("ann", Role::Viewer).await;
    let login = secure.anonymous().post_raw("/login", &[("name", "ann"), ("password", &pw)]).await;
    assert!(login.header("set-cookie").contains("; Secure"), "{}", login.header("set-cookie"));
}

/// `ota-gateway operator add|passwd|disable|enable|list`: the password from stdin, never in
/// the listing; each change takes effect on a running console.
async fn operator_commands(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let db = match &gw.location {
        ota_gateway::Location::Sqlite(p) => p.display().to_string(),
        ota_gateway::Location::Postgres(url) => url.clone(),
    };
    let run = |args: &[&str], stdin: &str| {
        let mut all = vec!["operator"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &db]);
        cli(&all, stdin)
    };
    let (code, out, err) = run(&["add", "olga", "--role", "viewer"], "olga-password-1\n");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("operator olga created (viewer)"), "{out}");
    let (code, _, err) = run(&["add", "olga", "--role", "admin"], "x-password\n");
    assert_eq!(code, 1);
    assert!(err.contains("exists already"), "{err}");
    let (code, _, err) = run(&["add", "bad name", "--role", "admin"], "x-password\n");
    assert_eq!(code, 1, "{err}");
    assert_eq!(run(&["add", "x", "--role", "root"], "pw\n").0, 2, "an unknown role is a usage error");
    assert_eq!(run(&["add", "empty", "--role", "admin"], "\n").0, 1, "an empty password");
    let olga = ConsoleClient::login(&gw.console, "olga", "olga-password-1").await.unwrap();

    let (code, out, _) = run(&["list"], "");
    assert_eq!(code, 0);
    assert!(out.contains("olga") && out.contains("viewer") && out.contains("demo"), "{out}");
    assert!(!out.contains("argon2") && !out.contains("olga-password-1"), "{out}");
    let (code, json, _) = run(&["list", "--json"], "");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let olga_json = v.as_array().unwrap().iter().find(|o| o["name"] == "olga").unwrap();
    assert_eq!(olga_json["role"], "viewer");
    assert_eq!(olga_json["active"], true);
    assert!(olga_json["created"].as_str().unwrap().ends_with('Z'));
    assert!(!json.contains("argon2"));

    assert_eq!(run(&["disable", "olga"], "").0, 0);
    assert!(to_login(&olga.get("/").await), "operator disable ends the running session");
    assert!(ConsoleClient::login(&gw.console, "olga", "olga-password-1").await.is_err());
    assert_eq!(run(&["enable", "olga"], "").0, 0);
    let olga = ConsoleClient::login(&gw.console, "olga", "olga-password-1").await.unwrap();
    let (code, out, err) = run(&["passwd", "olga"], "olga-password-2\r\n");
    assert_eq!(code, 0, "{out}{err}");
    assert!(to_login(&olga.get("/").await), "operator passwd ends the sessions");
    assert!(ConsoleClient::login(&gw.console, "olga", "olga-password-2").await.is_ok());
    for args in [&["passwd", "nobody"][..], &["disable", "nobody"], &["enable", "nobody"]] {
        let (code, _, err) = run(args, "pw-pw-pw\n");
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains("no operator \"nobody\""), "{args:?}: {err}");
    }
}

/// `serve --demo` turns the console on (here at a given port) and prints its address and the
/// demo operator's login, which works; without `--demo` and `--console-addr` there is none.
async fn the_demo_prints_a_working_console_login(b: Backend) {
    let db = TestDb::new(b).await;
    let port = crate::support::free_port();
    let console_port = crate::support::free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(["serve", "--demo", "--addr", &format!("127.0.0.1:{port}"), "--db", &db.arg()])
        .args(["--console-addr", &format!("127.0.0.1:{console_port}")])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut seen = String::new();
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            seen.push_str(&line);
            seen.push('\n');
            if line.starts_with("Try it") {
                break;
            }
        }
        seen
    });
    let banner = tokio::task::spawn_blocking(move || lines.join().unwrap()).await.unwrap();
    let console = format!("http://127.0.0.1:{console_port}");
    assert!(banner.contains(&format!("Operator console: {console}/")), "{banner}");
    let (name, password) = ota_gateway::import::DEMO_OPERATOR;
    assert!(banner.contains(&format!("Demo console login (an admin): name {name}, password {password}")), "{banner}");
    let demo = ConsoleClient::login(&console, name, password).await.unwrap();
    assert!(demo.get("/operators").await.body.contains("demo"), "the demo operator is an admin");
    let _ = child.kill();
    let _ = child.wait();
}

backend_tests!(
    logins_and_logout,
    sessions_are_shared_and_revoked_everywhere,
    sessions_time_out,
    csrf_and_roles_are_checked_on_the_server,
    security_headers_and_nothing_inline,
    operator_commands,
    the_demo_prints_a_working_console_login,
);
