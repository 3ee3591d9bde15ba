//! Traffic per partner and operation (issue #30, `docs/operators/traffic.md`): what two gateway
//! processes on one database answered shows up added up in one query within the flush
//! interval, each outcome in its column (Success, a Warning, an OTA error with its Type and
//! Code, a 429 of a partner's rate, an unauthenticated failure); latency percentiles exact to a
//! bucket over two gateways' counts; the minute, hour and day rollups and their retention; a
//! flood of made-up requestor ids makes one unknown-partner row; `ota-gateway traffic` prints
//! the same query as text and JSON.

use crate::limits::requestor_cli;
use crate::support;

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use ota_gateway::requestors::traffic::{Look, Tally};
use ota_gateway::traffic::query::{self, Filter, Traffic, Window};
use ota_gateway::traffic::{self as rollups, Answered, Recorder};
use support::{Backend, DEMO, GatewayProcess, PARTNER2, TestDb, TestServer, backend_tests};

const XML: &str = "application/xml";

fn nbc((id, ctx, pw): (&str, &str, &str), hotel: &str) -> String {
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1" PrimaryLangID="en"><POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="{hotel}"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    )
}

/// The Type and Code of an answer's first Error.
fn first_error(xml: &str) -> (String, String) {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    let e = doc.descendants().find(|n| n.has_tag_name("Error")).unwrap_or_else(|| panic!("no Error: {xml}"));
    (e.attribute("Type").unwrap_or("-").to_string(), e.attribute("Code").unwrap_or("-").to_string())
}

/// Queries until the window's total has `requests` requests (or `wait` passed); the traffic
/// and how long it took.
async fn until_stored(
    store: &ota_gateway::Store,
    filter: &Filter,
    requests: i64,
    wait: Duration,
) -> (Traffic, Duration) {
    let started = Instant::now();
    loop {
        let t = query::traffic(store, Window::Hour, filter, Utc::now()).await.unwrap();
        if t.total.requests >= requests || started.elapsed() > wait {
            return (t, started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Two gateways on one database, flushing every 200 ms: Successes on both, a Warning, an OTA
/// error, 429s of a partner's rate and an unauthenticated failure, each counted in its column,
/// added up over both gateways in one query within a second of the last answer; the CLI
/// prints the same.
async fn two_gateways_add_up_in_one_query(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let flush = ["--traffic-flush-interval", "200ms"];
    let first = GatewayProcess::start(&arg, &flush).await;
    let second = GatewayProcess::start(&arg, &flush).await;
    let (code, out) = requestor_cli(&arg, &["set", "PARTNER2", "--rate", "1/s"]);
    assert_eq!(code, 0, "{out}");
    // Both gateways poll the requestors every 250 ms.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let send = |gw: &GatewayProcess, path: &'static str, xml: String| {
        let client = gw.client();
        async move { client.send_raw(path, xml, XML).await.unwrap() }
    };

    // Successes: 3 on the first gateway, 2 on the second.
    for gw in [&first, &first, &first, &second, &second] {
        let (status, _, text) = send(gw, "/hotelnbc", nbc(DEMO, "HTL00042")).await;
        assert!(status == 200 && text.contains("<Success"), "{text}");
    }
    // A Warning: a book request without ResStatus is a Quote, with a warning saying so.
    let quote = support::commit_xml("TRF-Q1", support::day(40), 1).replace(r#" ResStatus="Commit""#, "");
    let (status, _, text) = send(&second, "/activitybook", quote).await;
    assert!(status == 200 && text.contains("<Warning"), "{text}");
    // An OTA error: an unknown hotel.
    let (status, _, text) = send(&first, "/hotelnbc", nbc(DEMO, "NO-SUCH-HOTEL")).await;
    assert_eq!(status, 200, "{text}");
    let unknown_hotel = first_error(&text);
    // A partner over its rate (1/s, a burst of 1): 429s.
    let mut refused = 0;
    for _ in 0..4 {
        let (status, _, text) = send(&first, "/hotelnbc", nbc(PARTNER2, "HTL00042")).await;
        if status == 429 {
            assert_eq!(first_error(&text).0, "3", "{text}");
            refused += 1;
        }
    }
    assert!(refused >= 2, "{refused} refused");
    // An unauthenticated request.
    let (status, _, text) = send(&second, "/hotelnbc", nbc(("MADE-UP-ID", "X", "wrong"), "HTL00042")).await;
    assert_eq!(status, 200, "{text}");
    let unauthenticated = first_error(&text);

    let sent = 5 + 1 + 1 + 4 + 1;
    let (t, took) = until_stored(&db.open().await, &Filter::default(), sent, Duration::from_secs(10)).await;
    println!("stored and read back {took:?} after the last answer");
    assert_eq!(t.total.requests, sent, "{t:#?}");
    assert!(took < Duration::from_secs(1), "within the flush interval (200 ms) and a read: {took:?}");
    let line = |partner: Option<&str>, operation: &str| {
        t.lines
            .iter()
            .find(|l| l.partner.as_deref() == partner && l.operation == operation)
            .unwrap_or_else(|| panic!("no line {partner:?} {operation}: {t:#?}"))
    };
    let demo = line(Some("DEMO"), "hotelnbc");
    assert_eq!((demo.figures.requests, demo.figures.success, demo.figures.ota_errors), (6, 5, 1), "{demo:#?}");
    assert_eq!(
        (demo.error_codes[0].error_type.as_str(), demo.error_codes[0].error_code.as_str()),
        (unknown_hotel.0.as_str(), unknown_hotel.1.as_str())
    );
    let booked = line(Some("DEMO"), "activitybook");
    assert_eq!((booked.figures.requests, booked.figures.warning, booked.figures.quotes), (1, 1, 1), "{booked:#?}");
    let limited = line(Some("PARTNER2"), "hotelnbc");
    assert_eq!(
        (limited.figures.requests, limited.figures.http_429, limited.figures.success, limited.figures.http_4xx),
        (4, refused, 4 - refused, 0),
        "{limited:#?}"
    );
    let unknown = line(None, "hotelnbc");
    assert_eq!((unknown.figures.requests, unknown.figures.ota_errors), (1, 1), "{unknown:#?}");
    assert_eq!((unknown.error_codes[0].error_type.clone(), unknown.error_codes[0].error_code.clone()), unauthenticated);
    // The worst first: the unknown partner (all errors), then PARTNER2, then DEMO's NBC.
    assert_eq!(t.lines[0].partner, None, "{t:#?}");
    assert_eq!(t.lines[1].partner.as_deref(), Some("PARTNER2"), "{t:#?}");
    assert_eq!(t.error_codes[0].count, refused, "the 429s' code is the most frequent: {t:#?}");
    assert_eq!(t.series.len(), 60);
    assert_eq!(t.series.iter().map(|p| p.figures.requests).sum::<i64>(), sent);
    let latency = (t.total.p50_ms.unwrap(), t.total.p99_ms.unwrap());
    assert!(latency.0 <= latency.1 && latency.1 <= 1000, "{latency:?}");

    // The CLI: the same query as JSON and as text; one partner, the unknown partner.
    let (code, out, err) = support::cli(&["traffic", "--db", &arg, "--json"], "");
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["total"]["requests"], sent, "{out}");
    assert_eq!(json["window"], "hour");
    assert_eq!(json["series"].as_array().unwrap().len(), 60);
    assert!(json["lines"][0]["partner"].is_null(), "{out}");
    let (code, out, err) = support::cli(&["traffic", "--db", &arg, "--partner", "-", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((json["total"]["requests"].as_i64(), json["partner"].as_str()), (Some(1), Some("")), "{out}");
    let (code, out, err) =
        support::cli(&["traffic", "--db", &arg, "--window", "days", "--operation", "activitybook"], "");
    assert_eq!(code, 0, "{err}");
    let demo_line = out.lines().find(|l| l.starts_with("DEMO ")).unwrap_or_else(|| panic!("{out}"));
    assert!(demo_line.contains("activitybook"), "{out}");
    assert!(!out.contains("hotelnbc"), "{out}");
    let (code, _, err) = support::cli(&["traffic", "--db", &arg, "--window", "year"], "");
    assert_eq!(code, 2, "{err}");
}

/// One request as a gateway counts it.
fn answered(at: DateTime<Utc>, partner: &'static str, ms: u64) -> Answered<'static> {
    Answered {
        at,
        partner: Some(partner),
        operation: "hotelavail",
        status: 200,
        outcome: Some("Success"),
        look: Some(Look::Availability),
        took: Duration::from_millis(ms),
    }
}

/// Two gateways' counts (two recorders on one store): p50 and p99 of their sum fall in the
/// right bucket, each rollup (minute, hour, day) adds up what its window shows, and retention
/// deletes minutes before hours before days.
async fn percentiles_and_rollups_add_up(b: Backend) {
    let db = TestDb::new(b).await;
    let store = db.open().await;
    let now = Utc::now();
    let (one, two) = (Recorder::default(), Recorder::default());
    let tally = Tally::default();
    // This minute: 60 fast answers on one gateway, 39 of 4 ms on the other and one of 400 ms.
    for _ in 0..60 {
        one.record(&answered(now, "P", 1));
    }
    for _ in 0..39 {
        two.record(&answered(now, "P", 4));
    }
    two.record(&answered(now, "P", 400));
    // Two hours ago (the week's window, not the hour's) and ten days ago (the 60 days' only).
    one.record(&answered(now - chrono::Duration::hours(2), "P", 2000));
    two.record(&answered(now - chrono::Duration::days(10), "Q", 20));
    assert!(rollups::flush(&store, &tally, &one).await.unwrap() > 0);
    assert!(rollups::flush(&store, &tally, &two).await.unwrap() > 0);
    assert_eq!(rollups::flush(&store, &tally, &two).await.unwrap(), 0, "nothing pending");

    let all = Filter::default();
    let hour = query::traffic(&store, Window::Hour, &all, now).await.unwrap();
    assert_eq!(hour.total.requests, 100);
    // 60 of ≤ 1 ms, 39 of ≤ 5 ms, 1 of ≤ 500 ms: the 50th is in the first bucket, the 99th in
    // the 5 ms one, the 100th in the 500 ms one.
    assert_eq!((hour.total.p50_ms, hour.total.p99_ms), (Some(1), Some(5)), "{:#?}", hour.total);
    assert_eq!(hour.series.last().unwrap().figures.requests, 100);
    assert_eq!(hour.total.looks, 100);
    let week = query::traffic(&store, Window::Week, &all, now).await.unwrap();
    assert_eq!((week.total.requests, week.series.len()), (101, 168));
    assert_eq!(week.total.p99_ms, Some(500), "{:#?}", week.total);
    let days = query::traffic(&store, Window::Days, &all, now).await.unwrap();
    assert_eq!((days.total.requests, days.series.len()), (102, 60));
    let q = Filter { partner: Some("Q".into()), operation: None };
    let days_q = query::traffic(&store, Window::Days, &q, now).await.unwrap();
    assert_eq!((days_q.total.requests, days_q.lines.len(), days_q.total.p50_ms), (1, 1, Some(20)));
    let other_op = Filter { partner: None, operation: Some("hotelnbc".into()) };
    assert_eq!(query::traffic(&store, Window::Days, &other_op, now).await.unwrap().total.requests, 0);

    // Retention: 4 hours on, the minutes are gone, the days kept; 10 days on, the hours too;
    // 70 days on, everything.
    let rows = |step: i64| {
        let store = store.clone();
        async move { support::count(&store, &format!("traffic WHERE step = {step}")).await }
    };
    let (minutes, hours, days) = (rows(60).await, rows(3600).await, rows(86_400).await);
    assert!(minutes >= 3 && hours >= 3 && days >= 2, "{minutes} {hours} {days}");
    rollups::purge(&store, now + chrono::Duration::hours(4)).await.unwrap();
    assert_eq!((rows(60).await, rows(86_400).await), (0, days));
    assert!(rows(3600).await >= 2, "this hour's and two hours ago's kept");
    rollups::purge(&store, now + chrono::Duration::days(10)).await.unwrap();
    assert_eq!((rows(3600).await, rows(86_400).await), (0, days));
    rollups::purge(&store, now + chrono::Duration::days(70)).await.unwrap();
    assert_eq!((rows(86_400).await, support::count(&store, "traffic_errors").await), (0, 0));
}

/// The console's answers ([`query::Recent`]) are kept for a flush interval: asked again within
/// it, the same answer (what was stored since is not read yet); another window or filter, an
/// answer older than the interval, or a new step (a new minute here) is read from the rollups.
async fn recent_answers_are_kept_for_a_flush_interval(b: Backend) {
    let db = TestDb::new(b).await;
    let store = db.open().await;
    let (recorder, tally) = (Recorder::default(), Tally::default());
    let recent = query::Recent::new(Duration::from_millis(500));
    let now = Utc::now();
    let stored = |n: usize| {
        for _ in 0..n {
            recorder.record(&answered(now, "P", 1));
        }
        rollups::flush(&store, &tally, &recorder)
    };
    let (all, p) = (Filter::default(), Filter { partner: Some("P".into()), operation: None });
    let requests = |window, filter, at| {
        let (store, recent) = (&store, &recent);
        async move { recent.traffic(store, window, filter, at).await.unwrap().total.requests }
    };
    stored(1).await.unwrap();
    assert_eq!(requests(Window::Hour, &all, now).await, 1);
    stored(1).await.unwrap();
    assert_eq!(requests(Window::Hour, &all, now).await, 1, "kept within the interval");
    assert_eq!(query::traffic(&store, Window::Hour, &all, now).await.unwrap().total.requests, 2, "stored");
    assert_eq!(requests(Window::Days, &all, now).await, 2, "another window is read");
    assert_eq!(requests(Window::Hour, &p, now).await, 2, "another filter is read");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(requests(Window::Hour, &all, now).await, 2, "read again after the interval");
    stored(1).await.unwrap();
    assert_eq!(requests(Window::Hour, &all, now).await, 2, "kept");
    let next_minute = now + chrono::Duration::minutes(1);
    assert_eq!(requests(Window::Hour, &all, next_minute).await, 3, "a new step is read at once");
}

/// The week's lines and error codes read its whole UTC days from the day rollups and its
/// hours before and after them from the hour rollups: requests at every edge (the window's
/// first hour, either side of its first and last midnight, now) are each counted once, in
/// their partner's line, its error codes and the total, as the series counts them; a request
/// an hour before the window is not.
async fn a_weeks_lines_add_up_its_hours_and_whole_days(b: Backend) {
    let db = TestDb::new(b).await;
    let store = db.open().await;
    let now = Utc::now();
    let (hour, day) = (3600, 86_400);
    let current = now.timestamp().div_euclid(hour) * hour;
    let from = current - 167 * hour;
    let first_day = (from + day - 1).div_euclid(day) * day;
    let last_day = (current + hour).div_euclid(day) * day;
    let at = |secs: i64| DateTime::from_timestamp(secs, 0).unwrap();
    let recorder = Recorder::default();
    let tally = Tally::default();
    let mut expected = std::collections::BTreeMap::<&str, (i64, i64)>::new();
    let edges = [from, first_day - 1, first_day, first_day + day + 5 * hour, last_day - 1, last_day, now.timestamp()];
    for (i, &t) in edges.iter().enumerate().filter(|&(_, &t)| t >= from && t <= now.timestamp()) {
        let partner = if i % 2 == 0 { "P" } else { "Q" };
        let mut a = answered(at(t), partner, 3);
        if i % 3 == 0 {
            a.outcome = Some("Error 3/392");
        }
        recorder.record(&a);
        let e = expected.entry(partner).or_default();
        e.0 += 1;
        e.1 += i64::from(i % 3 == 0);
    }
    recorder.record(&answered(at(from - hour), "P", 3));
    rollups::flush(&store, &tally, &recorder).await.unwrap();

    let week = query::traffic(&store, Window::Week, &Filter::default(), now).await.unwrap();
    let lines: std::collections::BTreeMap<&str, (i64, i64)> = week
        .lines
        .iter()
        .map(|l| (l.partner.as_deref().unwrap(), (l.figures.requests, l.error_codes.iter().map(|e| e.count).sum())))
        .collect();
    assert_eq!(lines, expected, "{week:#?}");
    let (requests, errors) = expected.values().fold((0, 0), |(r, e), v| (r + v.0, e + v.1));
    assert_eq!((week.total.requests, week.total.ota_errors), (requests, errors), "{week:#?}");
    let codes: Vec<(&str, &str, i64)> =
        week.error_codes.iter().map(|e| (e.error_type.as_str(), e.error_code.as_str(), e.count)).collect();
    assert_eq!(codes, [("3", "392", errors)]);
    assert!(week.lines.iter().all(|l| l.figures.p50_ms == Some(3)), "{week:#?}");
}

/// Requests naming made-up requestor ids, each another: one unknown-partner row per minute
/// and operation, never a row per id.
async fn made_up_requestors_share_one_row(b: Backend) {
    let server = TestServer::start(b).await;
    let mut tasks = Vec::new();
    for t in 0..4 {
        let client = server.client();
        tasks.push(tokio::spawn(async move {
            for i in 0..10 {
                let id = format!("&lt;script&gt;FAKE-{t}-{i}&#x2028;");
                let (status, _, text) =
                    client.send_raw("/hotelnbc", nbc((&id, "X", "pw"), "HTL00042"), XML).await.unwrap();
                assert_eq!(status, 200, "{text}");
                assert!(text.contains("<Error"), "{text}");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    server.state.flush_traffic().await.unwrap();
    let store = server.store();
    assert_eq!(support::count(store, "traffic WHERE partner <> ''").await, 0);
    let minutes = support::count(store, "traffic WHERE step = 60").await;
    assert!((1..=2).contains(&minutes), "one row per minute and operation: {minutes}");
    let t = query::traffic(store, Window::Hour, &Filter { partner: Some(String::new()), operation: None }, Utc::now())
        .await
        .unwrap();
    assert_eq!((t.total.requests, t.total.ota_errors, t.lines.len()), (40, 40, 1), "{t:#?}");
}

/// The console's Traffic page (a viewer): the GET form's filters, the SVG chart, the lines and
/// the error codes of what the gateway answered; a hostile filter value is text.
async fn the_console_shows_the_traffic(b: Backend) {
    use ota_gateway::operators::Role;
    let gw = support::console::ConsoleServer::start(b).await;
    let client = ota_gateway::Client::new(gw.url.clone());
    for _ in 0..3 {
        let (status, _, text) = client.send_raw("/hotelnbc", nbc(DEMO, "HTL00042"), XML).await.unwrap();
        assert_eq!(status, 200, "{text}");
    }
    client.send_raw("/hotelnbc", nbc(("&lt;b&gt;FAKE", "X", "pw"), "HTL00042"), XML).await.unwrap();
    gw.state.flush_traffic().await.unwrap();
    let vic = gw.login_as("vic", Role::Viewer).await;
    let page = vic.get("/traffic").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let body = &page.body;
    assert!(body.contains(r#"<form method="get" action="/traffic""#), "{body}");
    assert!(body.contains("<svg") && body.contains(r#"class="requests""#), "{body}");
    assert!(body.contains("DEMO") && body.contains("(unknown)") && body.contains("hotelnbc"), "{body}");
    assert!(!body.contains("FAKE"), "a made-up id is never shown: {body}");
    let one = vic.get("/traffic?window=days&partner=DEMO&operation=hotelnbc").await;
    assert_eq!(one.status, 200);
    assert!(one.body.contains(r#"<option value="days" selected>"#), "{}", one.body);
    assert!(!one.body.contains("(unknown)</td>"), "{}", one.body);
    let hostile = vic.get("/traffic?partner=%3Cscript%3Ealert(1)%3C/script%3E&operation=%22%3E%3Cimg").await;
    assert_eq!(hostile.status, 200);
    assert!(!hostile.body.contains("<script>alert") && !hostile.body.contains("\"><img"), "{}", hostile.body);
    assert!(hostile.body.contains("&lt;script&gt;alert(1)"), "{}", hostile.body);
    let anonymous = gw.anonymous().get("/traffic").await;
    assert_ne!(anonymous.status, 200, "a login first");
}

backend_tests!(
    two_gateways_add_up_in_one_query,
    percentiles_and_rollups_add_up,
    a_weeks_lines_add_up_its_hours_and_whole_days,
    made_up_requestors_share_one_row,
    recent_answers_are_kept_for_a_flush_interval,
    the_console_shows_the_traffic
);
