//! Passwords never leak: every operation's success path (from the spec samples, with the demo
//! credentials), failed logins of every kind and malformed requests carrying passwords, with
//! all log output captured — in process at TRACE level for every crate, and from the real
//! binary with `RUST_LOG=trace` (text and JSON formats). Neither the demo password nor any of
//! the wrong ones may appear in a log line or in an answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use ota_gateway::Client;
use ota_messages::booking_read::OtaReadRq;
use ota_messages::common::ResStatus;
use ota_messages::hotel_res_modify::{self as m, OtaHotelResModifyRq};
use ota_messages::runtime::Message;
use support::{
    Backend, DEMO, OTA_DEMO, PARTNER2, TestDb, TestServer, backend_tests, raw_sample, sample, with_credentials,
};

const XML: &str = "application/xml";

/// Wrong passwords tried (as they are decoded; the XML carries them escaped).
const WRONG: &[&str] =
    &["Wr0ng-Pa55word-XYZ", "hunter2-not-it", "p&ss<w>rd\"quoted'", "contraseña-Ñandú-🔑", "demo-passwore"];

/// Every secret that must not show: the right passwords, the wrong ones (decoded and as sent),
/// and the nested-POS password of the modify sample.
fn secrets() -> Vec<String> {
    let mut s: Vec<String> =
        vec![DEMO.2.into(), PARTNER2.2.into(), OTA_DEMO.2.into(), "branch-pass-0091".into(), long_password()];
    // The database's password, when the test server has one.
    let url = std::env::var("TEST_DATABASE_URL").unwrap_or_default();
    if let Some(pw) = url
        .parse::<tokio_postgres::Config>()
        .ok()
        .and_then(|c| c.get_password().map(|p| String::from_utf8_lossy(p).into_owned()))
    {
        s.push(pw);
    }
    for w in WRONG {
        s.push(w.to_string());
        s.push(escape_attr(w));
    }
    s
}

fn long_password() -> String {
    "L0ng-".repeat(60)
}

fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// The activity dates used: comfortably in the future.
fn date(days: i64) -> String {
    (Utc::now().date_naive() + chrono::Duration::days(days)).to_string()
}

// ---------------------------------------------------------------------------------------------
// The requests

/// Every operation's success path (but the modify's), from the spec samples with the demo credentials (dates
/// moved to the future), and a success with a wrong password on the Type 22 source (the Type 88
/// one authenticates; the other is a secret all the same).
fn success_requests() -> Vec<(&'static str, &'static str, String)> {
    let d = date(20);
    vec![
        (
            "/hotelnbc",
            "password on the Type 22 source",
            sample("hotel_descriptive_info").replacen(
                r#"ID_Context="DEMO-DIST""#,
                r#"ID_Context="DEMO-DIST" MessagePassword="Wr0ng-Pa55word-XYZ""#,
                1,
            ),
        ),
        ("/bookread", "booking read", sample("booking_read")),
        ("/hotelnbc", "hotel NBC", sample("hotel_descriptive_info")),
        ("/activitynbc", "activity NBC", sample("product_descriptive_info")),
        (
            "/activityavailability",
            "availability",
            sample("tour_activity_avail").replace("2025-07-02", &date(3)).replace("2025-07-07", &date(8)),
        ),
        ("/activitybook", "activity Quote", sample("tour_activity_book").replace("2025-07-03", &d)),
        (
            "/activitybook",
            "activity Commit",
            sample("tour_activity_book")
                .replace("2025-07-03", &d)
                .replace(r#"ResStatus="Quote""#, r#"ResStatus="Commit""#),
        ),
        (
            "/activitysearch",
            "search",
            sample("tour_activity_search").replace("2025-08-01", &date(2)).replace("2025-08-15", &date(16)),
        ),
        (
            "/hotelavailability",
            "hotel availability",
            sample("hotel_avail").replace("2025-07-01", &date(30)).replace("2025-07-04", &date(33)),
        ),
        ("/hotelbook", "hotel Quote", hotel_booking().replace(r#"ResStatus="Commit""#, r#"ResStatus="Quote""#)),
        ("/hotelbook", "hotel Commit", hotel_booking()),
        ("/bookcancel", "cancel Quote", sample("cancel").replace(r#"CancelType="Commit""#, r#"CancelType="Quote""#)),
        ("/bookcancel", "cancel Commit", sample("cancel")),
    ]
}

/// The hotel booking sample, made bookable in the demo content (its single room is a twin
/// there) and moved to the future.
fn hotel_booking() -> String {
    sample("hotel_res").replace("2025-07-01", &date(30)).replace("2025-07-04", &date(33))
}

/// Requests that must fail authentication (or not be read at all) and carry passwords.
fn failing_requests() -> Vec<(&'static str, String, String)> {
    let nbc = raw_sample("hotel_descriptive_info");
    let good = sample("hotel_descriptive_info");
    let mut out = Vec::new();
    for w in WRONG {
        out.push((
            "/hotelnbc",
            format!("wrong password {w:?}"),
            with_credentials(&nbc, (DEMO.0, DEMO.1, &escape_attr(w))),
        ));
    }
    out.extend([
        (
            "/hotelnbc",
            "wrong context, right password".to_string(),
            with_credentials(&nbc, (DEMO.0, PARTNER2.1, DEMO.2)),
        ),
        ("/hotelnbc", "another requestor's password".to_string(), with_credentials(&nbc, (DEMO.0, DEMO.1, PARTNER2.2))),
        (
            "/hotelnbc",
            "unknown requestor, demo password".to_string(),
            with_credentials(&nbc, ("NOBODY", DEMO.1, DEMO.2)),
        ),
        (
            "/hotelnbc",
            "a 300-character password".to_string(),
            with_credentials(&nbc, (DEMO.0, DEMO.1, &long_password())),
        ),
        (
            "/hotelnbc",
            "password attribute twice".to_string(),
            good.replace(
                r#"MessagePassword="demo-password""#,
                r#"MessagePassword="demo-password" MessagePassword="hunter2-not-it""#,
            ),
        ),
        (
            "/hotelnbc",
            "password as element text".to_string(),
            good.replace("</POS>", "<Password>hunter2-not-it</Password></POS>"),
        ),
        (
            "/hotelnbc",
            "an invalid message with the right password".to_string(),
            good.replace("</HotelDescriptiveInfos>", "</HotelDescriptiveInfos><Bogus/>"),
        ),
        ("/hotelnbc", "not well-formed, right password".to_string(), good.replace("<POS>", "<POS")),
        (
            "/hotelnbc",
            "cut short after the password".to_string(),
            good[..good.find("demo-password").unwrap() + 20].to_string(),
        ),
        ("/activitysearch", "wrong root, right password".to_string(), good.clone()),
        (
            "/bookmodify",
            "the modify sample (a nested POS password), unknown booking".to_string(),
            sample("hotel_res_modify"),
        ),
        ("/hotelnbc", "DOCTYPE, right password".to_string(), format!("<!DOCTYPE x []>{good}")),
    ]);
    out
}

/// Runs everything against the gateway at `base` and returns every answer body (headers
/// included). Asserts the success paths succeed and the failed logins fail.
async fn exercise(base: &str) -> Vec<String> {
    let client = Client::new(base);
    let mut answers = Vec::new();
    for (path, what, xml) in success_requests() {
        let (status, headers, body) = client.send_raw(path, xml, XML).await.unwrap();
        assert_eq!(status, reqwest::StatusCode::OK, "{what}: {body}");
        assert!(body.contains("<Success/>"), "{what}: {body}");
        answers.push(format!("{headers:?}\n{body}"));
    }
    // The seventh operation, the modify: read, change a comment, Commit (the read-then-modify
    // flow; the sample itself is of a booking the demo does not have).
    let read = OtaReadRq::from_xml(&sample("booking_read")).unwrap();
    let reservation = client.send(&read).await.unwrap().reservations_list.unwrap().hotel_reservation.remove(0);
    let payload = crate::support::with_a_remark(&reservation);
    let rq = OtaHotelResModifyRq {
        version: "2008.1".into(),
        res_status: Some(ResStatus::Commit),
        pos: OtaHotelResModifyRq::from_xml(&sample("hotel_res_modify")).unwrap().pos,
        hotel_res_modifies: m::HotelResModifies { hotel_res_modify: payload },
        ..Default::default()
    };
    let (status, headers, body) = client.send_raw("/bookmodify", rq.to_xml().unwrap(), XML).await.unwrap();
    assert_eq!(status, reqwest::StatusCode::OK, "modify: {body}");
    assert!(body.contains("<Success/>"), "modify: {body}");
    answers.push(format!("{headers:?}\n{body}"));

    for (path, what, xml) in failing_requests() {
        let (status, headers, body) = client.send_raw(path, xml, XML).await.unwrap();
        assert!(status == reqwest::StatusCode::OK || status == reqwest::StatusCode::BAD_REQUEST, "{what}: {status}");
        assert!(!body.contains("<Success/>"), "{what}: {body}");
        answers.push(format!("{headers:?}\n{body}"));
    }
    // Wrong content type and an over-long body, both carrying the password.
    let (_, headers, body) =
        client.send_raw("/hotelnbc", sample("hotel_descriptive_info"), "text/plain").await.unwrap();
    answers.push(format!("{headers:?}\n{body}"));
    let big = format!("{}<!--{}-->", sample("hotel_descriptive_info"), "x".repeat(1024 * 1024));
    let (status, headers, body) = client.send_raw("/hotelnbc", big, XML).await.unwrap();
    assert_eq!(status, reqwest::StatusCode::PAYLOAD_TOO_LARGE);
    answers.push(format!("{headers:?}\n{body}"));
    answers
}

fn assert_no_secrets(what: &str, text: &str) {
    for secret in secrets() {
        if let Some(at) = text.find(&secret) {
            let line =
                format!("{}{}", text[..at].rsplit('\n').next().unwrap_or(""), text[at..].lines().next().unwrap_or(""));
            panic!("{what}: {secret:?} found in:\n{line}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// In process: a global subscriber at TRACE for every crate (the `log` bridge included)

async fn no_password_in_logs_or_answers_in_process(b: Backend) {
    let logs = support::captured_logs();
    let server = TestServer::start(b).await;
    let answers = exercise(server.url()).await;
    server.stop().await.unwrap();
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    // The capture worked: request lines, failed logins, and TRACE output of other crates.
    assert!(text.contains("authentication failed"), "{text}");
    assert!(text.contains("status=200") && text.contains("status=413"), "{text}");
    assert!(text.contains("TRACE"), "nothing at TRACE level was captured");
    println!("in process: {} answers and {} log lines checked", answers.len(), text.lines().count());
    for a in &answers {
        assert_no_secrets("an answer", a);
    }
    assert_no_secrets("the logs", &text);
}

// ---------------------------------------------------------------------------------------------
// The binary, RUST_LOG=trace, both log formats

async fn no_password_in_the_binarys_logs(b: Backend) {
    for format in ["text", "json"] {
        let dir = tempfile::tempdir().unwrap();
        let db = TestDb::new(b).await;
        let (stdout_path, stderr_path) = (dir.path().join("stdout"), dir.path().join("stderr"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
            .args(["serve", "--demo", "--addr", "127.0.0.1:0", "--log-format", format, "--db", &db.arg()])
            .env("RUST_LOG", "trace")
            // The demo's console on a port of its own (not the demo's 127.0.0.1:8081, which
            // another test's gateway may hold).
            .env("OTA_GATEWAY_CONSOLE_ADDR", "127.0.0.1:0")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout_path).unwrap())
            .stderr(std::fs::File::create(&stderr_path).unwrap())
            .spawn()
            .unwrap();
        // The port the system gave it, from the banner's first line (standard output).
        let started = Instant::now();
        let base = loop {
            let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
            if let Some(url) = stdout.lines().find_map(support::listening_url) {
                break url;
            }
            assert!(child.try_wait().unwrap().is_none(), "the gateway exited");
            assert!(started.elapsed() < Duration::from_secs(20), "the gateway did not come up");
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        while !reqwest::get(format!("{base}/healthz")).await.is_ok_and(|r| r.status().is_success()) {
            assert!(started.elapsed() < Duration::from_secs(20), "the gateway did not answer");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let answers = exercise(&base).await;
        // SIGTERM would be nicer; SIGKILL is enough (the logs are written per line, unbuffered).
        tokio::time::sleep(Duration::from_millis(200)).await;
        child.kill().unwrap();
        child.wait().unwrap();
        let logs = std::fs::read_to_string(&stderr_path).unwrap();
        assert!(logs.contains("authentication failed"), "{format}: {logs}");
        assert!(logs.contains("TRACE") || logs.contains("\"level\":\"TRACE\""), "{format}: no TRACE lines");
        assert!(logs.contains("413"), "{format}: {logs}");
        println!("binary, {format} logs: {} answers and {} log lines checked", answers.len(), logs.lines().count());
        for a in &answers {
            assert_no_secrets("an answer", a);
        }
        assert_no_secrets(&format!("the {format} logs (stderr)"), &logs);
        // Standard output is not a log: it is the start banner, which prints the demo
        // requestor's credentials on purpose (README: while the demo password is unchanged).
        // Nothing else may be there.
        let stdout = std::fs::read_to_string(&stdout_path).unwrap();
        for line in stdout.lines() {
            let banner = line.starts_with("ota-gateway listening on")
                || line.starts_with("Demo requestor: ID=DEMO ")
                || line.starts_with("Demo requestor answered in the OpenTravel 2016B dialect: ID=OTA-DEMO ")
                || line.starts_with("Demo supplier of the demo hotels (supply notifications): ID=SUP-DEMO ")
                || line.starts_with("Operator console: http://127.0.0.1:")
                || line.starts_with("Demo console login (an admin): name demo, ")
                || line.starts_with("Demo extranet login (the demo hotels' user): name demo-hotel, ")
                || line == "Try it:"
                || line.trim_start().starts_with("curl ");
            assert!(banner, "{format}: unexpected output on stdout: {line}");
            if !line.starts_with("Demo requestor")
                && !line.starts_with("Demo supplier")
                && !line.starts_with("Demo console login")
                && !line.starts_with("Demo extranet login")
                && !line.trim_start().starts_with("curl ")
            {
                assert_no_secrets("stdout", line);
            }
        }
        for w in WRONG {
            assert!(!stdout.contains(w), "{format}: a wrong password on stdout");
        }
    }
}

backend_tests!(no_password_in_logs_or_answers_in_process, no_password_in_the_binarys_logs);
