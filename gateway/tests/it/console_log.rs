//! The console's Transaction log pages (issue 30), on both backends, with traffic made through
//! the OTA API of the same gateway after `ota-gateway requestor set DEMO --log all`: `GET /log`
//! finds the entries by partner, operation, outcome (success, warning and error split the
//! answers), `EchoToken`, reference and time range (and not by another partner's filter),
//! refuses a bad value with 400 naming the field; `GET
//! /log/{id}` shows the request and the answer with no password; a partner's hostile values
//! render as text; a viewer sees no replay form and its replay is refused (403), as one without
//! the CSRF token; an admin's replay to the gateway itself shows the verdict and is audited; a
//! hotel user gets the unknown URL's 404.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ota_gateway::operators::Role;

use crate::bookings::hotel_booking;
use crate::console::assert_nothing_inline;
use crate::support::console::{ConsoleServer, Page};
use crate::support::{Backend, DEMO, PARTNER2, backend_tests, cli};

backend_tests!(
    the_log_is_searched_and_shown_on_the_console,
    a_logged_entry_is_replayed_by_an_admin_only,
    the_warning_outcome_finds_the_answers_with_warnings_only
);

/// A hotel NBC request of `creds` with an `EchoToken` (XML-escaped here) and a `Version`.
pub(crate) fn nbc(creds: (&str, &str, &str), echo: &str, version: &str) -> String {
    nbc_in(creds, echo, version, "en")
}

/// [`nbc`] asking for the language `lang` (`PrimaryLangID`).
fn nbc_in((id, ctx, pw): (&str, &str, &str), echo: &str, version: &str, lang: &str) -> String {
    let echo = echo.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;");
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="{version}" EchoToken="{echo}" PrimaryLangID="{lang}"><POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    )
}

/// Posts an OTA request to the gateway's API; its answer.
pub(crate) async fn send(gw: &ConsoleServer, path: &str, xml: String) -> String {
    let (status, _, body) =
        ota_gateway::Client::new(&gw.url).send_raw(path, xml, "application/xml").await.expect("post");
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// Turns the log on for `ids` with the CLI, and makes the gateway see it at once.
pub(crate) async fn log_all(gw: &ConsoleServer, ids: &[&str]) {
    let db = gw.db.as_ref().unwrap().arg();
    for id in ids {
        let (code, _, err) = cli(&["requestor", "set", id, "--log", "all", "--db", &db], "");
        assert_eq!(code, 0, "{err}");
    }
    gw.state.content.refresh().await.unwrap();
}

/// The page must be a 200.
fn ok(page: Page, what: &str) -> String {
    assert_eq!(page.status, 200, "{what}: {}", page.body);
    page.body
}

/// The entry ids a result page links to.
fn linked(body: &str) -> Vec<String> {
    body.split(r#"href="/log/"#).skip(1).filter_map(|s| s.split('"').next()).map(str::to_string).collect()
}

/// A time for the form (`datetime-local`, UTC) `minutes` from now.
fn at(minutes: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::minutes(minutes)).format("%Y-%m-%dT%H:%M").to_string()
}

const HOSTILE: &str = r#"<script>alert(1)</script>"><img src=x onerror=alert(2)>"#;

/// Search by every filter, an entry's page, hostile values, the roles.
async fn the_log_is_searched_and_shown_on_the_console(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    log_all(&gw, &["DEMO", "PARTNER2"]).await;
    let booked = send(&gw, "/hotelbook", hotel_booking("LOG-H1", 40)).await;
    assert!(booked.contains("<Success"), "{booked}");
    send(&gw, "/hotelnbc", nbc(DEMO, "echo-ok", "2009.1")).await;
    let bad = send(&gw, "/hotelnbc", nbc(DEMO, "echo-bad", "1.0")).await;
    assert!(bad.contains("<Errors>"), "{bad}");
    let error_type = bad.split(r#"Error Type=""#).nth(1).and_then(|s| s.split('"').next()).unwrap().to_string();
    send(&gw, "/hotelnbc", nbc(PARTNER2, "echo-p2", "2009.1")).await;
    send(&gw, "/hotelnbc", nbc(DEMO, HOSTILE, "2009.1")).await;
    gw.state.txlog.flush().await;
    let all = ota_gateway::txlog::search(gw.store(), &ota_gateway::txlog::Filter::default(), false, 100).await.unwrap();
    assert_eq!(all.len(), 5, "{all:?}");
    let id_of = |echo: &str| all.iter().find(|e| e.echo_token.as_deref() == Some(echo)).unwrap().id.to_string();
    let booking = all.iter().find(|e| e.operation == "hotelbook").unwrap().id.to_string();
    let (ok_id, bad_id, p2, hostile) = (id_of("echo-ok"), id_of("echo-bad"), id_of("echo-p2"), id_of(HOSTILE));

    let vic = gw.login_as("vic", Role::Viewer).await;
    let home = ok(vic.get("/").await, "home");
    assert!(home.contains(r#"href="/log""#), "Log in the navigation: {home}");
    let first = ok(vic.get("/log").await, "the log");
    assert!(first.contains(r#"name="echo-token""#) && first.contains(r#"id="results""#), "{first}");
    assert_eq!(linked(&first).len(), 5, "every entry, newest first: {first}");
    assert_eq!(linked(&first)[0], hostile, "newest first");
    assert_nothing_inline("/log", &first);

    let from = at(-60);
    let cases: Vec<(String, Vec<&str>)> = vec![
        ("requestor=PARTNER2".into(), vec![&p2]),
        ("requestor=DEMO&operation=hotelbook".into(), vec![&booking]),
        ("operation=%2Fhotelbook".into(), vec![&booking]),
        ("echo-token=echo-ok".into(), vec![&ok_id]),
        ("echo-token=echo-ok&requestor=PARTNER2".into(), vec![]),
        ("reference=LOG-H1".into(), vec![&booking]),
        ("reference=LOG-H1&requestor=PARTNER2".into(), vec![]),
        ("outcome=error".into(), vec![&bad_id]),
        (format!("outcome=error:{error_type}"), vec![&bad_id]),
        ("outcome=error:999".into(), vec![]),
        ("outcome=Success&requestor=PARTNER2".into(), vec![&p2]),
        ("outcome=warning".into(), vec![]),
        (format!("from={from}&echo-token=echo-ok"), vec![&ok_id]),
        (format!("to={from}&echo-token=echo-ok"), vec![]),
        (format!("from={}&echo-token=echo-ok", at(60)), vec![]),
    ];
    for (query, expected) in cases {
        let body = ok(vic.get(&format!("/log?{query}")).await, &query);
        assert_eq!(linked(&body), expected, "{query}: {body}");
    }
    for (query, field) in [("outcome=maybe", "outcome"), ("from=yesterday", "from"), ("after=nonsense", "after")] {
        let page = vic.get(&format!("/log?{query}")).await;
        assert_eq!(page.status, 400, "{query}: {}", page.body);
        assert!(page.body.contains(&format!("{field}: ")), "{query}: {}", page.body);
    }

    // Paging: the filters and the cursor in the next page's link; every DEMO entry once.
    let mut next = "/log?requestor=DEMO&limit=3".to_string();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let body = ok(vic.get(&next).await, &next);
        seen.extend(linked(&body));
        let Some(start) = body.find(r#"id="next" href=""#) else { break };
        next = body[start + r#"id="next" href=""#.len()..].split('"').next().unwrap().replace("&amp;", "&");
        assert!(next.starts_with("/log?requestor=DEMO&limit=3&after="), "{next}");
    }
    let mut demo: Vec<String> = all.iter().filter(|e| e.requestor == "DEMO").map(|e| e.id.to_string()).collect();
    assert_eq!(seen, demo, "newest first, each once");
    demo.clear();
    assert_eq!(vic.get("/log?limit=0").await.status, 400);

    // The booking's entry: request and answer side by side, the password never there.
    let entry = ok(vic.get(&format!("/log/{booking}")).await, "the booking's entry");
    for part in [r#"id="request""#, r#"id="answer""#, "OTA_HotelResRQ", "OTA_HotelResRS", "LOG-H1", "hotelbook"] {
        assert!(entry.contains(part), "{part} in {entry}");
    }
    assert!(!entry.contains("demo-password") && !entry.contains("MessagePassword=&quot;demo"), "{entry}");
    assert!(!entry.contains(r#"id="replay""#), "a viewer sees no replay form: {entry}");
    assert_nothing_inline("the entry", &entry);

    // Hostile values: text, never markup, on the list and the entry.
    for path in ["/log?requestor=DEMO".to_string(), format!("/log/{hostile}")] {
        let body = ok(vic.get(&path).await, &path);
        assert!(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{path}: {body}");
        assert!(!body.contains("<script>alert") && !body.contains("<img src=x"), "{path}: {body}");
        assert_nothing_inline(&path, &body);
    }
    assert_eq!(vic.get("/log/123456789").await.status, 404);
    assert_eq!(vic.get("/log/nonsense").await.status, 404);

    // A hotel user: the unknown URL's 404, no Log in its navigation; no session: the login.
    let hu = gw.login_hotel("hu", "SUP-DEMO").await;
    for path in ["/log".to_string(), format!("/log/{booking}")] {
        let page = hu.get(&path).await;
        assert_eq!(page.status, 404, "{path}: {}", page.body);
    }
    assert!(!ok(hu.get("/extranet").await, "the extranet").contains(r#"href="/log""#));
    let anonymous = gw.anonymous().get("/log").await;
    assert!(anonymous.status == 303 || anonymous.body.contains("password"), "{}", anonymous.status);
    gw.stop().await;
}

/// An admin replays an entry to the gateway itself and sees the verdict (audited); a viewer
/// sees no form and is refused (403), a POST without the CSRF token too; a bad target is
/// refused with a sentence, the password never shown back.
async fn a_logged_entry_is_replayed_by_an_admin_only(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    log_all(&gw, &["DEMO"]).await;
    send(&gw, "/hotelnbc", nbc(DEMO, "echo-replay", "2009.1")).await;
    gw.state.txlog.flush().await;
    let all = ota_gateway::txlog::search(gw.store(), &ota_gateway::txlog::Filter::default(), false, 10).await.unwrap();
    let id = all[0].id.to_string();
    let path = format!("/log/{id}/replay");

    let ann = gw.login_as("ann", Role::Admin).await;
    let page = ok(ann.get(&format!("/log/{id}")).await, "the admin's entry page");
    assert!(page.contains(r#"id="replay""#) && page.contains(&format!(r#"value="{}""#, gw.url)), "{page}");
    assert!(page.contains(r#"value="DEMO-DIST""#), "the context read from the request: {page}");

    let form = |to: &str| {
        vec![
            ("to", to.to_string()),
            ("id", "DEMO".into()),
            ("context", "DEMO-DIST".into()),
            ("password", "demo-password".into()),
        ]
    };
    let post = |client: &crate::support::console::ConsoleClient, f: Vec<(&'static str, String)>, csrf: bool| {
        let path = path.clone();
        let client = client.on(&client.base);
        async move {
            let pairs: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
            if csrf { client.post(&path, &pairs).await } else { client.post_raw(&path, &pairs).await }
        }
    };
    let done = post(&ann, form(&gw.url), true).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains(r#"id="verdict""#) && done.body.contains("Same answer"), "{}", done.body);
    assert!(done.body.contains(r#"id="replayed-answer""#), "{}", done.body);
    assert!(!done.body.contains("demo-password"), "the password is not shown back");
    assert_nothing_inline("the replay", &done.body);
    let audit = ota_gateway::audit::list(gw.store(), ota_gateway::audit::Filter::default()).await.unwrap();
    assert!(audit.iter().any(|a| a.action == "txlog.replay" && a.target == id && a.actor == "ann"), "{audit:?}");

    // A wrong password: the gateway's answer differs (an authentication error).
    let mut wrong = form(&gw.url);
    wrong[3].1 = "not-the-password".into();
    let differs = post(&ann, wrong, true).await;
    assert!(differs.body.contains("DIFFERENT"), "{}", differs.body);

    // Targets that are not a gateway's base URL are refused before anything is sent.
    for to in [
        "file:///etc/passwd",
        "http://user:pw@127.0.0.1:1/",
        "gopher://127.0.0.1/",
        "not a url",
        "http://127.0.0.1:1/?x=1",
    ] {
        let page = post(&ann, form(to), true).await;
        assert_eq!(page.status, 422, "{to}: {}", page.body);
        assert!(!page.body.contains(r#"id="verdict""#), "{to}");
    }
    // Without the CSRF token: refused.
    let forged = post(&ann, form(&gw.url), false).await;
    assert_eq!(forged.status, 403, "{}", forged.body);

    // A viewer: no form, and its POST is refused.
    let vic = gw.login_as("vic", Role::Viewer).await;
    let page = ok(vic.get(&format!("/log/{id}")).await, "the viewer's entry page");
    assert!(!page.contains(r#"id="replay""#) && !page.contains(&path), "{page}");
    assert_eq!(post(&vic, form(&gw.url), true).await.status, 403);
    let audit = ota_gateway::audit::list(gw.store(), ota_gateway::audit::Filter::default()).await.unwrap();
    assert_eq!(audit.iter().filter(|a| a.action == "txlog.replay").count(), 2, "{audit:?}");
    gw.stop().await;
}

/// The outcomes split the answers in three: a request answered Success with Warnings (a
/// language the hotel is not described in) is found under `warning` only, not under `success`
/// nor `error`; one answered Success without a warning is found under `success` only; an error
/// under `error` only — on the page and with `ota-gateway log search --outcome` (one code
/// path).
async fn the_warning_outcome_finds_the_answers_with_warnings_only(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    log_all(&gw, &["DEMO"]).await;
    let warned = send(&gw, "/hotelnbc", nbc_in(DEMO, "echo-warned", "2009.1", "ja")).await;
    assert!(warned.contains("<Success") && warned.contains("<Warnings>"), "{warned}");
    let plain = send(&gw, "/hotelnbc", nbc(DEMO, "echo-plain", "2009.1")).await;
    assert!(plain.contains("<Success") && !plain.contains("Warning"), "{plain}");
    let bad = send(&gw, "/hotelnbc", nbc(DEMO, "echo-bad", "1.0")).await;
    assert!(bad.contains("<Errors>"), "{bad}");
    gw.state.txlog.flush().await;
    let all = ota_gateway::txlog::search(gw.store(), &ota_gateway::txlog::Filter::default(), false, 10).await.unwrap();
    assert_eq!(all.len(), 3, "{all:?}");
    let id_of = |echo: &str| all.iter().find(|e| e.echo_token.as_deref() == Some(echo)).unwrap().id.to_string();
    let (warned, plain, bad) = (id_of("echo-warned"), id_of("echo-plain"), id_of("echo-bad"));

    let vic = gw.login_as("vic", Role::Viewer).await;
    let db = gw.db.as_ref().unwrap().arg();
    let cases: [(&str, Vec<&str>); 5] = [
        ("warning", vec![&warned]),
        ("Warning", vec![&warned]),
        ("success", vec![&plain]),
        ("error", vec![&bad]),
        ("error:1", vec![]),
    ];
    for (outcome, expected) in cases {
        let body = ok(vic.get(&format!("/log?outcome={outcome}")).await, outcome);
        assert_eq!(linked(&body), expected, "{outcome}: {body}");
        let (code, out, err) = cli(&["log", "search", "--outcome", outcome, "--db", &db], "");
        assert_eq!(code, 0, "{outcome}: {out}{err}");
        let ids: Vec<String> =
            out.lines().skip(1).filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect();
        assert_eq!(ids, expected, "the CLI, {outcome}: {out}");
    }
    let shown = ok(vic.get("/log?outcome=warning").await, "warning");
    assert!(shown.contains("Success, warnings (type 11"), "its outcome in words: {shown}");
    gw.stop().await;
}
