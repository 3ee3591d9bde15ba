//! The console's hardening (issue 30, `docs/console/hardening.md`), on both backends with real
//! listeners: the login form's own CSRF token (login CSRF); the console listener's connection
//! cap (a gateway process); `ota-gateway import`'s requestors in the audit trail; each
//! partner's traffic of today on the Partners page and in `requestor list`; a change on a stale
//! partner form answers 409.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use ota_gateway::operators::Role;

use crate::support::console::{ConsoleClient, ConsoleServer, Page, csrf_of, login_token_of};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::support::{Backend, GatewayProcess, TestDb, backend_tests, count, free_port};

/// A forged login: what it is, the login cookie's token it carries, its form.
type Attempt<'a> = (&'a str, Option<&'a str>, Vec<(&'a str, &'a str)>);

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
    let attempts: [Attempt<'_>; 4] = [
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

/// A connection that asked for the login page, read its answer and stays open (keep-alive).
async fn idle_connection(addr: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /login HTTP/1.1\r\nHost: console\r\n\r\n").await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // The whole answer: its headers, then as many bytes as its Content-Length says.
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.expect("answered").unwrap();
        assert!(n > 0, "the console closed the connection");
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if let Some(end) = text.find("\r\n\r\n") {
            let head = text[..end].to_ascii_lowercase();
            assert!(head.starts_with("http/1.1 200"), "{head}");
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .expect("a content-length");
            if got.len() >= end + 4 + length {
                return s;
            }
        }
    }
}

/// The console's listener keeps at most `--console-max-connections` connections open (here 3,
/// given by the flag on one backend and by `OTA_GATEWAY_CONSOLE_MAX_CONNECTIONS` on the other),
/// as the partners' listener does with `--max-connections` (the same accept loop): with 3 idle
/// keep-alive connections open, a 4th request waits unanswered — while the partners' listener
/// answers — and is answered as soon as one of them closes.
async fn the_console_listener_caps_its_connections(b: Backend) {
    let db = TestDb::new(b).await;
    let console = format!("127.0.0.1:{}", free_port());
    let mut args = vec!["--console-addr", console.as_str(), "--header-read-timeout", "60s"];
    let mut env = vec![];
    match b {
        Backend::Sqlite => env.push(("OTA_GATEWAY_CONSOLE_MAX_CONNECTIONS", "3")),
        _ => args.extend(["--console-max-connections", "3"]),
    }
    let gw = GatewayProcess::start_with(&db.arg(), &args, &env, None).await;
    // No connection kept in a pool: each request of this client closes its connection.
    let http = reqwest::Client::builder().timeout(Duration::from_secs(20)).pool_max_idle_per_host(0).build().unwrap();
    assert_eq!(http.get(format!("http://{console}/login")).send().await.unwrap().status(), 200);

    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(idle_connection(&console).await);
    }
    // The 4th waits in the listen backlog: connected, never answered while the 3 stay open.
    let waiting = tokio::spawn({
        let (http, console) = (http.clone(), console.clone());
        async move {
            let res = http.get(format!("http://{console}/login")).send().await.unwrap();
            (res.status().as_u16(), std::time::Instant::now())
        }
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!waiting.is_finished(), "a 4th connection is not served while 3 are open");
    // The partners' listener is not affected.
    let health = http.get(format!("{}/healthz", gw.url)).send().await.unwrap();
    assert_eq!(health.status(), 200);
    for _ in 0..5 {
        assert_eq!(http.get(format!("{}/healthz", gw.url)).send().await.unwrap().status(), 200);
    }
    assert!(!waiting.is_finished(), "still waiting");
    // One closes: the waiting request is served.
    let closed = std::time::Instant::now();
    drop(idle.pop());
    let (status, answered) = tokio::time::timeout(Duration::from_secs(10), waiting).await.expect("served").unwrap();
    assert_eq!(status, 200);
    assert!(answered >= closed, "answered after a connection closed");
    // All closed: the console answers at once again.
    idle.clear();
    let page = tokio::time::timeout(Duration::from_secs(10), http.get(format!("http://{console}/login")).send())
        .await
        .expect("the console answers again")
        .unwrap();
    assert_eq!(page.status(), 200);
}

/// `ota-gateway ARGS… --db DB` as the OS user `imp-ops`: its exit code, stdout and stderr.
fn cli_as_imp(args: &[&str], db: &str) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(args)
        .args(["--db", db])
        .env("USER", "imp-ops")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run ota-gateway");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `ota-gateway import`'s entries in the audit trail (`audit list --json --actor cli:imp-ops`).
fn import_entries(db: &str) -> Vec<serde_json::Value> {
    let (code, out, err) = cli_as_imp(&["audit", "list", "--json", "--actor", "cli:imp-ops"], db);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v.as_array().unwrap().clone()
}

/// `ota-gateway import FILE`: every requestor the file creates or updates is in the audit trail
/// (`requestor.import`, by `cli:<OS user>`, the values before — none for a new one — and after),
/// never a password (neither the partner's nor a notification URL's); an import refused part
/// way (a hotel of another supplier, found after an earlier requestor was written) changes
/// nothing and audits nothing: the entries are written in the import's own transaction.
async fn requestor_import_is_audited(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let dir = tempfile::tempdir().unwrap();
    let import = |name: &str, json: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, json).unwrap();
        cli_as_imp(&["import", file.to_str().unwrap()], &arg)
    };
    let first = r#"{"requestors": [
        {"id": "ACME", "id_context": "ACME-DIST", "name": "Acme <b>travel</b>", "password": "acme-import-pw-1",
         "allow": ["10.0.0.0/8"], "rate": 5},
        {"id": "SUPA", "id_context": "SUPA-DIST", "name": "Supplier A", "password": "supa-import-pw-1",
         "supplier": true, "hotels": ["HTLA1"], "notify_url": "https://pms:hook-secret-1@pms.example/in"}
    ]}"#;
    let (code, out, err) = import("first.json", first);
    assert_eq!(code, 0, "{out}{err}");
    let entries = import_entries(&arg);
    assert_eq!(entries.len(), 2, "{entries:#?}");
    for e in &entries {
        assert_eq!(e["action"], "requestor.import");
        assert!(e["old"].is_null(), "created: nothing before: {e}");
        assert!(e["address"].is_null());
    }
    let acme = entries.iter().find(|e| e["target"] == "ACME").expect("ACME audited");
    let new = acme["new"].as_str().unwrap();
    for part in ["name=Acme <b>travel</b>", "allow=10.0.0.0/8", "rate=5/s", "kind=distributor", "password=(set"] {
        assert!(new.contains(part), "{part} in {new}");
    }
    let supa = entries.iter().find(|e| e["target"] == "SUPA").expect("SUPA audited")["new"].as_str().unwrap();
    assert!(supa.contains("kind=supplier(HTLA1)") && supa.contains("https://pms:***@pms.example/in"), "{supa}");

    // A second import changes ACME: before and after.
    let second = r#"{"requestors": [
        {"id": "ACME", "id_context": "ACME-DIST", "name": "Acme", "password": "acme-import-pw-2", "rate": 7}
    ]}"#;
    let (code, out, err) = import("second.json", second);
    assert_eq!(code, 0, "{out}{err}");
    let entries = import_entries(&arg);
    assert_eq!(entries.len(), 3);
    let changed = &entries[0];
    assert_eq!((changed["action"].as_str(), changed["target"].as_str()), (Some("requestor.import"), Some("ACME")));
    let (old, new) = (changed["old"].as_str().unwrap(), changed["new"].as_str().unwrap());
    assert!(old.contains("rate=5/s") && old.contains("name=Acme <b>travel</b>"), "{old}");
    assert!(new.contains("rate=7/s") && new.contains("name=Acme ") && new.contains("allow=10.0.0.0/8"), "{new}");

    // Refused part way: LATE is written first, then SUPB claims SUPA's hotel; nothing stays.
    let refused = r#"{"requestors": [
        {"id": "LATE", "id_context": "LATE-DIST", "name": "Late", "password": "late-import-pw"},
        {"id": "SUPB", "id_context": "SUPB-DIST", "name": "Supplier B", "password": "supb-import-pw",
         "supplier": true, "hotels": ["HTLA1"]}
    ]}"#;
    let (code, _, err) = import("refused.json", refused);
    assert_ne!(code, 0);
    assert!(err.contains("belongs to supplier"), "{err}");
    assert_eq!(import_entries(&arg).len(), 3, "nothing audited by a refused import");
    let (_, list, _) = cli_as_imp(&["requestor", "list"], &arg);
    assert!(!list.contains("LATE"), "nothing written: {list}");

    let (_, all, _) = cli_as_imp(&["audit", "list", "--json"], &arg);
    for secret in ["acme-import-pw", "supa-import-pw", "late-import-pw", "hook-secret-1", "argon2"] {
        assert!(!all.contains(secret), "{secret} in the audit trail: {all}");
    }
}

/// The figures of today a partner's row of the Partners page shows (requests, errors,
/// bookings); `None` without the row.
fn today_of(page: &str, id: &str) -> Option<Vec<i64>> {
    let at = page.find(&format!("href=\"/partners/{id}\""))?;
    let row = &page[at..at + page[at..].find("</tr>")?];
    let cell = r#"class="num today">"#;
    Some(
        row.match_indices(cell)
            .map(|(i, _)| {
                let rest = &row[i + cell.len()..];
                rest[..rest.find('<').unwrap()].parse().unwrap()
            })
            .collect(),
    )
}

/// The Partners page lists each partner's requests, errors and bookings of today (UTC) from
/// the traffic rollups every gateway writes in batches: after 5 requests of DEMO through the
/// OTA API (3 answered with Success, 1 with an OTA error, 1 Commit that booked) DEMO's row
/// shows 5, 1 and 1 once the batch is stored, and PARTNER2's 0, 0, 0; `ota-gateway requestor
/// list` shows the same.
async fn partners_show_their_traffic_today(b: Backend) {
    let gw = ConsoleServer::start_with(b, |c| c.traffic_flush = Duration::from_millis(200)).await;
    let ann = gw.login_as("ann", Role::Viewer).await;
    let before = ann.get("/partners").await;
    assert_eq!(before.status, 200);
    assert_eq!(today_of(&before.body, "DEMO"), Some(vec![0, 0, 0]), "no traffic yet");
    assert!(before.body.contains("Requests today"), "{}", before.body);

    let client = ota_gateway::Client::new(gw.url.clone());
    let nbc = |hotel: &str| {
        format!(
            r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1" PrimaryLangID="en"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="{hotel}"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
        )
    };
    for hotel in ["HTL00042", "HTL00042", "HTL00042", "NO-SUCH-HOTEL"] {
        let (status, _, text) = client.send_raw("/hotelnbc", nbc(hotel), "application/xml").await.unwrap();
        assert_eq!(status, 200, "{text}");
        assert_eq!(text.contains("<Success"), hotel != "NO-SUCH-HOTEL", "{text}");
    }
    let commit = crate::support::commit_xml("HRD-1", crate::support::day(30), 1);
    let (status, _, text) = client.send_raw("/activitybook", commit, "application/xml").await.unwrap();
    assert!(status == 200 && text.contains("<Success"), "{text}");

    let started = std::time::Instant::now();
    let page = loop {
        let page = ann.get("/partners").await;
        if today_of(&page.body, "DEMO") == Some(vec![5, 1, 1]) {
            break page;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "DEMO's traffic today: {:?}",
            today_of(&page.body, "DEMO")
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(today_of(&page.body, "PARTNER2"), Some(vec![0, 0, 0]), "another partner: nothing");

    let db = match &gw.location {
        ota_gateway::Location::Sqlite(p) => p.display().to_string(),
        ota_gateway::Location::Postgres(url) => url.clone(),
    };
    let (code, out, err) = crate::support::cli(&["requestor", "list", "--db", &db], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().next().unwrap().contains("TODAY_REQ/ERR/BK"), "{out}");
    let line = |id: &str| out.lines().find(|l| l.starts_with(&format!("{id} "))).unwrap().to_string();
    assert!(line("DEMO").contains(" 5/1/1 "), "{out}");
    assert!(line("PARTNER2").contains(" 0/0/0 "), "{out}");
}

/// The revision a partner's page shows in its forms.
fn revision_of(page: &str) -> String {
    let at = page.find(r#"name="revision" value=""#).expect("a revision field") + r#"name="revision" value=""#.len();
    page[at..at + page[at..].find('"').unwrap()].to_string()
}

/// An admin's change made on a stale form — the partner changed since the form was loaded, by
/// the CLI or by another admin — answers 409 with the page as it is now, and changes nothing
/// (the value the other one set stays, nothing audited for the refused change); on the page
/// loaded again the change is made. Every form of a partner's values carries the revision.
async fn a_change_on_a_stale_partner_form_is_refused(b: Backend) {
    use ota_gateway::requestors::admin;
    let gw = ConsoleServer::start(b).await;
    let ann = gw.login_as("ann", Role::Admin).await;
    let bob = gw.login_as("bob", Role::Admin).await;
    let page = ann.get("/partners/DEMO").await;
    assert_eq!(page.status, 200);
    let shown = revision_of(&page.body);
    assert_eq!(page.body.matches(r#"name="revision""#).count(), 6, "every form of the partner's values");
    let rate = |store| async move {
        admin::list(store).await.unwrap().into_iter().find(|r| r.id == "DEMO").unwrap().limits.rate
    };

    // The CLI changes DEMO's rate after ann loaded the page.
    let db = match &gw.location {
        ota_gateway::Location::Sqlite(p) => p.display().to_string(),
        ota_gateway::Location::Postgres(url) => url.clone(),
    };
    let (code, _, err) = crate::support::cli(&["requestor", "set", "DEMO", "--rate", "9", "--db", &db], "");
    assert_eq!(code, 0, "{err}");
    let stale = ann.post("/partners/DEMO/limits", &[("rate", "5"), ("daily_quota", "off"), ("revision", &shown)]).await;
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert!(stale.body.contains("was changed since this form was loaded"), "{}", stale.body);
    assert_eq!(rate(gw.store()).await, Some(9), "nothing changed: the CLI's rate stays");
    let fresh = revision_of(&stale.body);
    assert_ne!(fresh, shown, "the page as it is now, with the new revision");
    for (path, form) in [
        ("/partners/DEMO/dialect", vec![("dialect", "ota2016b")]),
        ("/partners/DEMO/allow", vec![("allow", "10.0.0.0/8")]),
        ("/partners/DEMO/log", vec![("level", "all")]),
        ("/partners/DEMO/notify", vec![("url", "https://pms.example/in")]),
        ("/partners/DEMO/alerts", vec![("alert_emails", "a@hotel.example")]),
    ] {
        let mut form = form.clone();
        form.push(("revision", &shown));
        assert_eq!(ann.post(path, &form).await.status, 409, "{path} on the stale form");
    }
    let entries = ota_gateway::audit::list(gw.store(), Default::default()).await.unwrap();
    assert!(!entries.iter().any(|e| e.actor == "ann"), "nothing audited: {entries:?}");

    // Another admin changes DEMO first (on a fresh form): ann's form of the same revision is
    // stale again.
    let bobs = bob.post("/partners/DEMO/dialect", &[("dialect", "ota2016b"), ("revision", &fresh)]).await;
    assert_eq!(bobs.status, 200, "{}", bobs.body);
    let late = ann.post("/partners/DEMO/limits", &[("rate", "5"), ("daily_quota", "off"), ("revision", &fresh)]).await;
    assert_eq!(late.status, 409, "{}", late.body);
    assert_eq!(rate(gw.store()).await, Some(9));

    // On the page as it is now, the change is made.
    let now = revision_of(&late.body);
    let done = ann.post("/partners/DEMO/limits", &[("rate", "5"), ("daily_quota", "off"), ("revision", &now)]).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(rate(gw.store()).await, Some(5));
    assert_ne!(revision_of(&done.body), now, "the change moved the revision on");
}

backend_tests!(
    a_change_on_a_stale_partner_form_is_refused,
    login_form_carries_its_own_csrf_token,
    partners_show_their_traffic_today,
    the_console_listener_caps_its_connections,
    requestor_import_is_audited
);
