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
    let login = raw.submit_login("ann", &password).await;
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
            let page = raw.submit_login(name, pw).await;
            (page, started.elapsed())
        }
    };
    let (wrong, wrong_took) = timed("ann", "not-the-password").await;
    assert!(refused(&wrong), "{}", wrong.body);
    let (unknown, unknown_took) = timed("nobody", "not-the-password").await;
    assert!(refused(&unknown), "{}", unknown.body);
    // The same answer but for the new form's own token.
    let untokened = |p: &Page| p.body.replace(&crate::support::console::csrf_of(&p.body).unwrap(), "");
    assert_eq!(untokened(&wrong), untokened(&unknown), "the same answer for a wrong password and an unknown name");
    // Both pay one argon2 verification (several ms even optimised); an unknown name that
    // skipped it would answer in well under a tenth of the time.
    assert!(
        unknown_took * 4 >= wrong_took,
        "an unknown name costs about what a wrong password does: {unknown_took:?} vs {wrong_took:?}"
    );
    let viewer_pw = gw.operator("vic", Role::Viewer).await;
    admin::set_active(gw.store(), &Actor::cli(), "vic", false).await.unwrap();
    let disabled = raw.submit_login("vic", &viewer_pw).await;
    assert!(refused(&disabled), "a disabled operator cannot log in: {}", disabled.body);
    assert!(refused(&raw.submit_login(&"x".repeat(100_000), "p").await));

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

/// Asserts that a page has no inline script or style: every `<script` tag loads a file from the
/// console and has no body, no `<style>` element, no `style=` or `on…=` attribute in any tag, no
/// `javascript:` URL. Only tags are looked at: text (escaped by the page) may say anything.
pub(crate) fn assert_nothing_inline(what: &str, html: &str) {
    let lower = html.to_ascii_lowercase();
    let mut rest = lower.as_str();
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after.find('>').unwrap_or_else(|| panic!("{what}: an unclosed tag"));
        let tag = &after[..close];
        let name = tag.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("");
        if name == "script" {
            assert!(tag.contains(" src=\"/assets/"), "{what}: an inline script: <{tag}>");
            assert!(after[close + 1..].starts_with("</script>"), "{what}: a script with a body");
        }
        assert_ne!(name, "style", "{what}: a <style> element");
        assert!(!tag.contains("javascript:"), "{what}: a javascript: URL in <{tag}>");
        // The attributes' names: the tag without its quoted values.
        let mut quoted = false;
        let bare: String = tag
            .chars()
            .filter(|c| {
                if *c == '"' {
                    quoted = !quoted;
                }
                !quoted && *c != '"'
            })
            .collect();
        for attribute in bare.split_whitespace().skip(1) {
            let key = attribute.split('=').next().unwrap_or("");
            assert!(key != "style" && !key.starts_with("on"), "{what}: <{tag}> has {key}=");
        }
        rest = &after[close + 1..];
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
        ("a refused login", anon.submit_login("x", "y").await),
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
    let login = secure.anonymous().submit_login("ann", &pw).await;
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

/// `serve --demo` turns the console on (here on a port the system gives it) and prints its address and the
/// demo operator's login, which works; without `--demo` and `--console-addr` there is none.
async fn the_demo_prints_a_working_console_login(b: Backend) {
    let db = TestDb::new(b).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(["serve", "--demo", "--addr", "127.0.0.1:0", "--db", &db.arg()])
        .args(["--console-addr", "127.0.0.1:0"])
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
    // The console's port, which the system gave it, as the banner prints it.
    let console = banner
        .lines()
        .find_map(|l| l.strip_prefix("Operator console: "))
        .unwrap_or_else(|| panic!("no console address in {banner}"))
        .trim_end_matches('/')
        .to_string();
    assert!(console.starts_with("http://127.0.0.1:"), "{banner}");
    let (name, password) = ota_gateway::import::DEMO_OPERATOR;
    assert!(banner.contains(&format!("Demo console login (an admin): name {name}, password {password}")), "{banner}");
    let demo = ConsoleClient::login(&console, name, password).await.unwrap();
    assert!(demo.get("/operators").await.body.contains("demo"), "the demo operator is an admin");
    let (name, password) = ota_gateway::import::DEMO_HOTEL_USER;
    assert!(
        banner.contains(&format!("Demo extranet login (the demo hotels' user): name {name}, password {password}")),
        "{banner}"
    );
    let hotel = ConsoleClient::login(&console, name, password).await.unwrap();
    let home = hotel.get("/extranet").await;
    assert!(home.status == 200 && home.body.contains("HTL00042") && home.body.contains("/calendar"), "{}", home.body);
    assert_eq!(hotel.get("/operators").await.status, 404, "a hotel user has no operator page");
    let _ = child.kill();
    let _ = child.wait();
}

/// The value of the first `<span class="secret">` of a page (a password shown once).
fn secret(page: &Page) -> String {
    let at = page.body.find(r#"<span class="secret">"#).unwrap_or_else(|| panic!("no secret in {}", page.body));
    let rest = &page.body[at + r#"<span class="secret">"#.len()..];
    rest[..rest.find('<').unwrap()].to_string()
}

/// An OTA request of a partner to the gateway: its HTTP status and whether it was let in
/// (not refused with the authentication error).
pub(crate) async fn call_as(url: &str, (id, ctx, pw): (&str, &str, &str)) -> (u16, bool) {
    let xml = format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1" PrimaryLangID="en"><POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    );
    let client = ota_gateway::Client::new(url.to_string());
    let (status, _, body) = client.send_raw("/hotelnbc", xml, "application/xml").await.unwrap();
    (status.as_u16(), status == 200 && !body.contains(r#"Type="4""#))
}

/// Waits (at most 3 s: gateways reload the requestors every 250 ms) until `check` holds.
pub(crate) async fn within_3s<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < Duration::from_secs(3), "{what}: not applied within 3 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The Partners page: an admin's changes go through the CLI's functions (the same validation),
/// reach the running gateway within a second or two (a rate limit set in the console refuses
/// the next requests over it with 429), and are in the audit trail with the admin and their
/// address; a created partner's and a rotated password are shown once and work; a viewer reads
/// but cannot change.
async fn partners_page_changes_reach_the_gateway_and_the_audit(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let ann = gw.login_as("ann", Role::Admin).await;
    let vic = gw.login_as("vic", Role::Viewer).await;
    let demo = crate::support::DEMO;
    for _ in 0..5 {
        assert_eq!(call_as(&gw.url, demo).await, (200, true), "no limit yet");
    }
    let list = vic.get("/partners").await;
    assert_eq!(list.status, 200);
    assert!(
        list.body.contains("DEMO") && list.body.contains("SUP-DEMO") && list.body.contains("supplier"),
        "{}",
        list.body
    );
    assert!(!list.body.contains("Create a partner"), "a viewer sees no forms");
    assert_nothing_inline("partners", &list.body);
    assert_nothing_inline("a partner", &ann.get("/partners/DEMO").await.body);

    // A rate of 1/s set in the console: the running gateway refuses the burst over it.
    let bad = ann.post("/partners/DEMO/limits", &[("rate", "fast"), ("daily_quota", "off"), ("rate_for", "")]).await;
    assert_eq!(bad.status, 422, "the CLI's validation: {}", bad.body);
    assert!(bad.body.contains("is not a rate"), "{}", bad.body);
    let denied = vic.post("/partners/DEMO/limits", &[("rate", "1"), ("daily_quota", "off"), ("rate_for", "")]).await;
    assert_eq!(denied.status, 403, "a viewer's change");
    let set = ann.post("/partners/DEMO/limits", &[("rate", "1"), ("daily_quota", "off"), ("rate_for", "")]).await;
    assert_eq!(set.status, 200, "{}", set.body);
    assert!(set.body.contains("Limits saved: rate 1/s"), "{}", set.body);
    let url = gw.url.clone();
    within_3s("the console's rate limit", || {
        let url = url.clone();
        async move {
            let mut statuses = Vec::new();
            for _ in 0..4 {
                statuses.push(call_as(&url, demo).await.0);
            }
            statuses.contains(&429)
        }
    })
    .await;
    let trail = ota_gateway::audit::list(
        gw.store(),
        ota_gateway::audit::Filter { target: Some("DEMO".into()), ..Default::default() },
    )
    .await
    .unwrap();
    assert_eq!(trail.len(), 1, "one change made (the refused ones wrote nothing): {trail:?}");
    let e = &trail[0];
    assert_eq!(
        (e.actor.as_str(), e.action.as_str(), e.address.as_deref()),
        ("ann", "requestor.limits", Some("127.0.0.1"))
    );
    assert!(e.old.as_deref().unwrap().contains("rate=off") && e.new.as_deref().unwrap().contains("rate=1/s"), "{e:?}");
    let page = vic.get("/audit").await;
    assert_eq!(page.status, 200, "the audit page is a viewer's too");
    assert!(page.body.contains("requestor.limits") && page.body.contains("rate=1/s"), "{}", page.body);
    assert_nothing_inline("audit", &page.body);
    let filtered = vic.get("/audit?actor=nobody").await;
    assert!(!filtered.body.contains("requestor.limits"));

    // A new partner: its password shown once, working at once.
    let made = ann
        .post(
            "/partners",
            &[
                ("id", "NEWP"),
                ("context", "NEWP-DIST"),
                ("name", "New partner"),
                ("dialect", "service"),
                ("kind", "distributor"),
                ("allow", ""),
            ],
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.body);
    let first = secret(&made);
    assert_eq!(first.len(), 20);
    assert!(!ann.get("/partners").await.body.contains(&first), "shown once only");
    let url = gw.url.clone();
    within_3s("the new partner", || {
        let (url, pw) = (url.clone(), first.clone());
        async move { call_as(&url, ("NEWP", "NEWP-DIST", &pw)).await.1 }
    })
    .await;
    let again = ann
        .post("/partners", &[("id", "NEWP"), ("context", "X"), ("dialect", "service"), ("kind", "distributor")])
        .await;
    assert_eq!(again.status, 422);
    assert!(again.body.contains("exists already"), "{}", again.body);
    let rotated = ann.post("/partners/NEWP/password", &[]).await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let second = secret(&rotated);
    assert_ne!(first, second);
    within_3s("the rotated password", || {
        let (url, old) = (url.clone(), first.clone());
        async move { !call_as(&url, ("NEWP", "NEWP-DIST", &old)).await.1 }
    })
    .await;
    assert!(call_as(&gw.url, ("NEWP", "NEWP-DIST", &second)).await.1, "the new password works");
    for (path, form) in [
        ("/partners/NEWP/dialect", vec![("dialect", "ota2016b")]),
        ("/partners/NEWP/allow", vec![("allow", "10.0.0.0/8, 192.168.0.0/16")]),
        ("/partners/NEWP/log", vec![("level", "errors"), ("sample", "")]),
    ] {
        let page = ann.post(path, &form).await;
        assert_eq!(page.status, 200, "{path}: {}", page.body);
    }
    assert_eq!(ann.post("/partners/NEWP/allow", &[("allow", "10.0.0.0/33")]).await.status, 422);
    within_3s("the allow-list", || {
        let (url, pw) = (url.clone(), second.clone());
        async move { !call_as(&url, ("NEWP", "NEWP-DIST", &pw)).await.1 }
    })
    .await;
    assert_eq!(ann.post("/partners/NEWP/allow", &[("allow", "")]).await.status, 200);
    assert_eq!(ann.post("/partners/NEWP/disable", &[]).await.status, 200);
    within_3s("disable", || {
        let (url, pw) = (url.clone(), second.clone());
        async move { !call_as(&url, ("NEWP", "NEWP-DIST", &pw)).await.1 }
    })
    .await;
    // A notification URL with a password: never in the audit trail.
    let hook = ann.post("/partners/SUP-DEMO/notify", &[("url", "https://hotel:hook-secret@pms.example/ota")]).await;
    assert_eq!(hook.status, 200, "{}", hook.body);
    assert!(!hook.body.contains("hook-secret"), "the page shows no URL's password");
    let all = ota_gateway::audit::list(gw.store(), Default::default()).await.unwrap();
    let text = format!("{all:?}");
    assert!(
        !text.contains("hook-secret") && !text.contains(&first) && !text.contains(&second),
        "never a password: {text}"
    );
    let actions: Vec<&str> = all.iter().filter(|e| e.actor == "ann").map(|e| e.action.as_str()).collect();
    for a in [
        "requestor.add",
        "requestor.passwd",
        "requestor.dialect",
        "requestor.allow",
        "requestor.log",
        "requestor.disable",
        "requestor.notify_url",
        "requestor.limits",
    ] {
        assert!(actions.contains(&a), "{a} in {actions:?}");
    }
}

/// Hostile text in a partner's id and name (through the library and the console) shows as text
/// on every page: escaped, never a tag; its page is reached through an encoded link.
async fn hostile_partner_names_render_as_text(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let ann = gw.login_as("ann", Role::Admin).await;
    let script = "<script>alert(1)</script>";
    let img = "\"><img src=x onerror=alert(1)>";
    let new = ota_gateway::requestors::admin::NewRequestor {
        id: script.into(),
        id_context: img.into(),
        name: img.into(),
        password: "hostile-pass".into(),
        active: true,
        allow: vec![],
        dialect: ota_messages::Dialect::Service,
        role: ota_gateway::requestors::Role::Distributor,
    };
    ota_gateway::requestors::admin::add(gw.store(), &Actor::cli(), new).await.unwrap();
    let made = ann
        .post(
            "/partners",
            &[("id", img), ("context", script), ("name", script), ("dialect", "service"), ("kind", "distributor")],
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.body);
    let check = |what: &str, page: &Page| {
        assert_eq!(page.status, 200, "{what}: {}", page.body);
        let lower = page.body.to_ascii_lowercase();
        assert!(
            !lower.contains("<script>alert") && !lower.contains("<img"),
            "{what}: a tag from the data: {}",
            page.body
        );
        assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{what}: shown as text");
        assert_nothing_inline(what, &page.body);
    };
    check("partners", &ann.get("/partners").await);
    assert!(ann.get("/partners").await.body.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"));
    let link = format!("/partners/{}", "%3Cscript%3Ealert%281%29%3C%2Fscript%3E");
    assert!(ann.get("/partners").await.body.contains(&format!("href=\"{link}\"")), "an encoded link");
    check("the partner", &ann.get(&link).await);
    check("the other partner", &ann.get("/partners/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E").await);
    let changed = ann.post(&format!("{link}/dialect"), &[("dialect", "ota2016b")]).await;
    check("a change", &changed);
    check("audit", &ann.get("/audit").await);
    let _ = gw.login_as("ok.name", Role::Viewer).await;
    assert_eq!(gw.anonymous().submit_login(script, img).await.status, 401);
}

/// `ota-gateway audit list`: every requestor and operator change made through the CLI, as
/// `cli:<OS user>`, with the old and new values and never a password; filters by actor and
/// time; `--json` is one array.
async fn audit_list_shows_cli_changes(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let db = match &gw.location {
        ota_gateway::Location::Sqlite(p) => p.display().to_string(),
        ota_gateway::Location::Postgres(url) => url.clone(),
    };
    let run = |args: &[&str], stdin: &str| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--db", &db]);
        let (code, out, err) = cli(&all, stdin);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        out
    };
    run(&["requestor", "add", "ACME", "--context", "ACME-DIST"], "acme-first-pw\n");
    run(&["requestor", "passwd", "ACME"], "acme-second-pw\n");
    run(&["requestor", "set", "ACME", "--rate", "5", "--dialect", "ota2016b", "--log", "errors"], "");
    run(&["requestor", "allow", "ACME", "10.0.0.0/8"], "");
    run(&["requestor", "disable", "ACME"], "");
    run(&["requestor", "enable", "ACME"], "");
    run(
        &["requestor", "set", "SUP-DEMO", "--notify-url", "https://u:url-secret@pms.example/x", "--hotels", "HTL00042"],
        "",
    );
    run(&["operator", "add", "olga", "--role", "viewer"], "olga-pw-123\n");
    run(&["operator", "disable", "olga"], "");
    let json = run(&["audit", "list", "--json"], "");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let entries = v.as_array().unwrap();
    let user = Actor::cli().name;
    let actions: Vec<&str> =
        entries.iter().filter(|e| e["actor"] == user.as_str()).map(|e| e["action"].as_str().unwrap()).collect();
    for a in [
        "requestor.add",
        "requestor.passwd",
        "requestor.limits",
        "requestor.dialect",
        "requestor.log",
        "requestor.allow",
        "requestor.disable",
        "requestor.enable",
        "requestor.notify_url",
        "operator.add",
        "operator.disable",
    ] {
        assert!(actions.contains(&a), "{a} in {actions:?}");
    }
    assert_eq!(actions.first(), Some(&"operator.disable"), "newest first");
    let limits = entries.iter().find(|e| e["action"] == "requestor.limits").unwrap();
    assert_eq!(limits["target"], "ACME");
    assert!(
        limits["old"].as_str().unwrap().contains("rate=off") && limits["new"].as_str().unwrap().contains("rate=5/s")
    );
    assert!(limits["address"].is_null(), "the CLI has no client address");
    assert!(limits["at"].as_str().unwrap().ends_with('Z'));
    for secret in ["acme-first-pw", "acme-second-pw", "olga-pw-123", "url-secret", "argon2"] {
        assert!(!json.contains(secret), "{secret} in the audit trail");
    }
    let table = run(&["audit", "list"], "");
    assert!(table.contains("requestor.limits") && table.contains("rate=5/s") && table.contains(&user), "{table}");
    let none: serde_json::Value =
        serde_json::from_str(&run(&["audit", "list", "--json", "--actor", "nobody"], "")).unwrap();
    assert_eq!(none, serde_json::json!([]));
    let later: serde_json::Value =
        serde_json::from_str(&run(&["audit", "list", "--json", "--since", "2999-01-01"], "")).unwrap();
    assert_eq!(later, serde_json::json!([]));
    let (code, _, err) = cli(&["audit", "list", "--since", "yesterday", "--db", &db], "");
    assert_eq!(code, 2, "{err}");
}

/// Logins are throttled by the partners' rules: after the free failures, the client address is
/// locked — even the right password is refused, after a wait (the tarpit) and without an argon2
/// check — until the lock ends; the name is locked for other addresses too.
async fn logins_are_throttled(b: Backend) {
    let gw = ConsoleServer::start_with(b, |c| {
        c.throttle.address_failures = 3;
        c.throttle.requestor_failures = 5;
        c.throttle.first_lock = Duration::from_secs(2);
    })
    .await;
    let password = gw.operator("ann", Role::Admin).await;
    let raw = ConsoleClient::anonymous(&gw.console);
    for _ in 0..4 {
        assert_eq!(raw.submit_login("ann", "wrong").await.status, 401);
    }
    // The address is locked now (the 4th failure locked it for 2 s).
    let started = Instant::now();
    let locked = raw.submit_login("ann", &password).await;
    assert_eq!(locked.status, 401, "the right password, from a locked address: {}", locked.body);
    assert!(locked.body.contains("Wrong name or password."), "the same answer");
    assert!(started.elapsed() >= Duration::from_millis(500), "held back by the tarpit: {:?}", started.elapsed());
    tokio::time::sleep(Duration::from_millis(2200)).await;
    assert!(ConsoleClient::login(&gw.console, "ann", &password).await.is_ok(), "the lock ended");
}

backend_tests!(
    logins_are_throttled,
    partners_page_changes_reach_the_gateway_and_the_audit,
    hostile_partner_names_render_as_text,
    audit_list_shows_cli_changes,
    logins_and_logout,
    sessions_are_shared_and_revoked_everywhere,
    sessions_time_out,
    csrf_and_roles_are_checked_on_the_server,
    security_headers_and_nothing_inline,
    operator_commands,
    the_demo_prints_a_working_console_login,
);
