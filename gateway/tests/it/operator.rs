//! The operator's controls (issue 10), on real gateway processes: `ota-gateway requestor …`
//! changing what a running gateway accepts, `--base-path`, `OTA_GATEWAY_*` variables, and the
//! Prometheus metrics (on the main address and on `--metrics-addr`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use support::{Backend, DEMO, GatewayProcess, TestDb, backend_tests, cli, metric};

const XML: &str = "application/xml";

fn nbc((id, ctx, pw): (&str, &str, &str)) -> String {
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1" PrimaryLangID="en"><POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    )
}

/// True when the gateway lets these credentials in.
async fn accepted(gw: &GatewayProcess, creds: (&str, &str, &str)) -> bool {
    let (status, _, body) = gw.client().send_raw("/hotelnbc", nbc(creds), XML).await.unwrap();
    assert_eq!(status, 200, "{body}");
    !body.contains(r#"Type="4""#)
}

/// Waits (up to 3 s: the gateway polls every 250 ms) until the gateway's answer to `creds`
/// is `want`.
async fn until_accepted(gw: &GatewayProcess, creds: (&str, &str, &str), want: bool, what: &str) {
    let started = Instant::now();
    while accepted(gw, creds).await != want {
        assert!(started.elapsed() < Duration::from_secs(3), "{what}: the running gateway did not take the change");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every `requestor` command on both backends, each change reaching a running gateway; the
/// password comes from stdin and never appears in `list`.
pub(crate) async fn requestor_commands_reach_a_running_gateway(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, &[]).await;
    let acme = ("ACME", "ACME-DIST", "first-secret");
    let run = |args: &[&str], stdin: &str| {
        let mut all: Vec<&str> = vec!["requestor"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &arg]);
        cli(&all, stdin)
    };

    let (code, out, err) = run(&["add", "ACME", "--context", "ACME-DIST", "--name", "Acme Travel"], "first-secret\n");
    assert_eq!(code, 0, "{out}{err}");
    until_accepted(&gw, acme, true, "add").await;
    let (code, _, err) = run(&["add", "ACME", "--context", "X"], "other\n");
    assert_eq!(code, 1);
    assert!(err.contains("exists already"), "{err}");
    let (code, _, err) = run(&["add", "EMPTY", "--context", "X"], "\n");
    assert_eq!(code, 1, "an empty password is refused");
    assert!(err.contains("empty"), "{err}");

    let (code, out, _) = run(&["list"], "");
    assert_eq!(code, 0);
    assert!(
        out.contains("ACME") && out.contains("ACME-DIST") && out.contains("Acme Travel") && out.contains("DEMO"),
        "{out}"
    );
    assert!(!out.contains("argon2") && !out.contains("first-secret"), "{out}");

    let (code, out, err) = run(&["passwd", "ACME"], "second-secret\r\n");
    assert_eq!(code, 0, "{out}{err}");
    until_accepted(&gw, acme, false, "passwd: the old password").await;
    assert!(accepted(&gw, ("ACME", "ACME-DIST", "second-secret")).await, "passwd: the new password");
    let acme = ("ACME", "ACME-DIST", "second-secret");

    assert_eq!(run(&["disable", "ACME"], "").0, 0);
    until_accepted(&gw, acme, false, "disable").await;
    assert_eq!(run(&["enable", "ACME"], "").0, 0);
    until_accepted(&gw, acme, true, "enable").await;

    let (code, out, err) = run(&["allow", "ACME", "10.0.0.0/8", "2001:db8::/32"], "");
    assert_eq!(code, 0, "{out}{err}");
    until_accepted(&gw, acme, false, "allow elsewhere").await;
    let (_, out, _) = run(&["list"], "");
    assert!(out.contains("10.0.0.0/8,2001:db8::/32"), "{out}");
    assert_eq!(run(&["allow", "ACME", "127.0.0.0/8"], "").0, 0);
    until_accepted(&gw, acme, true, "allow here").await;
    assert_eq!(run(&["allow", "ACME", "10.0.0.0/8"], "").0, 0);
    until_accepted(&gw, acme, false, "allow elsewhere again").await;
    assert_eq!(run(&["allow", "ACME", "--any"], "").0, 0);
    until_accepted(&gw, acme, true, "allow any").await;

    for args in [&["passwd", "NOBODY"][..], &["disable", "NOBODY"], &["allow", "NOBODY", "--any"]] {
        let (code, _, err) = run(args, "pw\n");
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains("no requestor \"NOBODY\""), "{args:?}: {err}");
    }
    let (code, _, err) = run(&["allow", "ACME", "10.0.0.0/33"], "");
    assert_eq!(code, 2, "a bad network is a usage error: {err}");
    // The demo partner was never touched.
    assert!(accepted(&gw, DEMO).await);
}

fn day(n: i64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(n)
}

/// A Commit of one adult on the sunset catamaran.
fn commit_xml(client_ref: &str, date: NaiveDate) -> String {
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><BookingInfo><BasicInfo TourActivityID="LESPMICATA" SupplierProductCode="CATSUNSET" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><Surname>Sailor</Surname></Individual></ParticipantInfo><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#
    )
}

/// A sandbox gateway configured from the environment: every route under the base path, the
/// global allow-list from a comma-separated variable, and the metrics counting what happened.
/// A second gateway serves its metrics on `--metrics-addr` only.
async fn base_path_environment_and_metrics(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start_with(
        &db.arg(),
        &[],
        &[
            ("OTA_GATEWAY_BASE_PATH", "/sandbox"),
            ("OTA_GATEWAY_ALLOW", "10.0.0.0/8,127.0.0.0/8"),
            ("OTA_GATEWAY_BODY_LIMIT", "64KiB"),
        ],
        None,
    )
    .await;
    assert!(gw.url.ends_with("/sandbox"));
    let root = gw.url.trim_end_matches("/sandbox").to_string();
    let http = reqwest::Client::new();
    // Under the prefix: the operations, /healthz and /metrics; outside it: 404.
    assert!(accepted(&gw, DEMO).await);
    let (status, _, _) = ota_gateway::Client::new(root.clone()).send_raw("/hotelnbc", nbc(DEMO), XML).await.unwrap();
    assert_eq!(status, 404);
    assert_eq!(http.get(format!("{root}/healthz")).send().await.unwrap().status(), 404);
    assert_eq!(http.get(format!("{root}/sandboxhealthz")).send().await.unwrap().status(), 404);
    assert_eq!(http.get(format!("{}/healthz", gw.url)).send().await.unwrap().status(), 200);
    // The body limit came from the environment.
    let big = format!("{}{}", nbc(DEMO), " ".repeat(70 * 1024));
    assert_eq!(gw.client().send_raw("/hotelnbc", big, XML).await.unwrap().0, 413);

    // What the metrics count.
    let (_, _, body) = gw.client().send_raw("/activitybook", commit_xml("OPS-METRICS-1", day(30)), XML).await.unwrap();
    assert!(body.contains("<Success/>"), "{body}");
    let (_, _, body) = gw.client().send_raw("/activitybook", commit_xml("OPS-METRICS-1", day(30)), XML).await.unwrap();
    assert!(body.contains("<Success/>"), "a repeat: {body}");
    assert!(!accepted(&gw, ("DEMO", "DEMO-DIST", "wrong")).await);
    let text = gw.metrics().await;
    assert!(text.contains("# TYPE ota_request_duration_seconds histogram"), "{text}");
    assert_eq!(metric(&text, r#"ota_requests_total{operation="hotelnbc",status="200"}"#), 2.0, "{text}");
    assert_eq!(metric(&text, r#"ota_requests_total{operation="hotelnbc",status="413"}"#), 1.0, "{text}");
    assert_eq!(metric(&text, r#"ota_requests_total{operation="activitybook",status="200"}"#), 2.0, "{text}");
    assert!(metric(&text, r#"ota_requests_total{operation="other",status="404"}"#) >= 3.0, "{text}");
    assert_eq!(
        metric(&text, r#"ota_bookings_committed_total{kind="activity"}"#),
        1.0,
        "a repeat is not a new booking: {text}"
    );
    assert_eq!(metric(&text, "ota_auth_failures_total"), 1.0, "{text}");
    assert_eq!(metric(&text, "ota_db_errors_total"), 0.0, "{text}");
    assert!(metric(&text, r#"ota_request_duration_seconds_count{operation="hotelnbc"}"#) >= 3.0, "{text}");
    let age = metric(&text, "ota_content_snapshot_age_seconds");
    assert!(
        text.contains("ota_content_snapshot_age_seconds") && age < 5.0,
        "the refresher confirms the snapshot: {age}"
    );
    assert!(metric(&text, "ota_content_version") >= 1.0);
    assert_eq!(metric(&text, "ota_auth_argon2_workers"), ota_gateway::auth::pool::default_workers() as f64);
    drop(gw);

    // Metrics on their own address; the global allow-list from the environment refuses us.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let metrics_addr = format!("127.0.0.1:{port}");
    let gw = GatewayProcess::start_with(&db.arg(), &["--metrics-addr", &metrics_addr], &[], None).await;
    assert_eq!(http.get(format!("{}/metrics", gw.url)).send().await.unwrap().status(), 404);
    let res = http.get(format!("http://{metrics_addr}/metrics")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/openmetrics-text"));
    assert!(res.text().await.unwrap().ends_with("# EOF\n"));
    drop(gw);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(["serve", "--demo", "--db", &db.arg()])
        .env("OTA_GATEWAY_ADDR", format!("127.0.0.1:{port}"))
        .env("OTA_GATEWAY_ALLOW", "10.0.0.0/8,192.168.0.0/16")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let refused = loop {
        if let Ok(res) = http.get(format!("http://127.0.0.1:{port}/healthz")).send().await {
            break res.status();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the gateway did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(refused, 403, "OTA_GATEWAY_ADDR and OTA_GATEWAY_ALLOW (two networks) from the environment");
}

backend_tests!(
    requestor_commands_reach_a_running_gateway,
    base_path_environment_and_metrics,
    the_samples_are_sendable_to_the_demo
);

/// `serve --help` shows an `OTA_GATEWAY_*` variable for every option (`[env: NAME=VALUE]`, or
/// `[env: NAME]` for one whose value is never shown: `--smtp-url`'s may hold a password).
#[test]
fn every_serve_option_has_an_environment_variable() {
    let (code, help, _) = cli(&["serve", "--help"], "");
    assert_eq!(code, 0);
    let mut options = 0;
    for block in help.split("\n      --").skip(1) {
        let name = block.split([' ', '\n', '<']).next().unwrap();
        if name == "help" {
            continue;
        }
        options += 1;
        let want = format!("[env: OTA_GATEWAY_{}", name.to_uppercase().replace('-', "_"));
        assert!(
            block.contains(&format!("{want}=")) || block.contains(&format!("{want}]")),
            "--{name} has no {want}…]:\n{block}"
        );
    }
    assert!(options >= 14, "{options} options found in:\n{help}");
}

/// An administration command given a SQLite file that does not exist (a mistyped `--db`) says
/// so and fails, creating nothing: only `serve` and `import` create a database (issue 28).
#[test]
fn an_admin_command_never_creates_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("mistyped.db");
    let db = missing.to_str().unwrap();
    let commands: [&[&str]; 5] = [
        &["requestor", "list", "--db", db],
        &["requestor", "disable", "ACME", "--db", db],
        &["outbox", "list", "--db", db],
        &["log", "search", "--db", db],
        &["replay", "--to", "http://127.0.0.1:9", "--credentials", "A,B,C", "--db", db],
    ];
    for args in commands {
        let (code, out, err) = cli(args, "");
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains("no database at") && err.contains("mistyped.db"), "{args:?}: {err}");
        assert!(!missing.exists(), "{args:?} created {db}");
    }
}

/// A command whose reader has gone (`ota-gateway requestor list | head -1`) ends quietly, never
/// with a panic (exit 101) on the broken pipe (issue 28).
#[tokio::test]
async fn a_closed_pipe_ends_a_command_quietly() {
    let db = TestDb::new(Backend::Sqlite).await;
    ota_gateway::import::seed_demo_if_empty(&db.open().await).await.unwrap();
    let arg = db.arg();
    let commands: [&[&str]; 3] =
        [&["requestor", "list", "--db", &arg], &["log", "export", "--db", &arg], &["outbox", "list", "--db", &arg]];
    for args in commands {
        // The reading end is closed before the command writes a byte.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Demo content only when asked (issue 28): `serve` on a fresh database adds nothing and says
/// so; `serve --demo` loads it and says so.
#[tokio::test]
async fn demo_content_only_with_demo() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fresh.db");
    let db = db.to_str().unwrap();
    let log = dir.path().join("stderr");
    let gw = GatewayProcess::start_with(db, &[], &[("OTA_GATEWAY_DEMO", "false")], Some(&log)).await;
    assert!(!accepted(&gw, DEMO).await, "no demo requestor without --demo");
    drop(gw);
    let (code, out, err) = cli(&["requestor", "list", "--db", db], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1, "no requestor at all:\n{out}");
    let gw = GatewayProcess::start_with(db, &["--demo"], &[], Some(&log)).await;
    assert!(accepted(&gw, DEMO).await, "--demo loads the demo requestor");
}

/// What `serve` says (on stderr) about the demo content, before it listens.
#[test]
fn serve_says_whether_it_loaded_demo_content() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fresh.db");
    let db = db.to_str().unwrap();
    // A port nobody can listen on makes serve stop right after the database part.
    let (_, _, err) = cli(&["serve", "--addr", "192.0.2.1:1", "--db", db], "");
    assert!(err.contains("no demo content"), "{err}");
    let (_, _, err) = cli(&["serve", "--demo", "--addr", "192.0.2.1:1", "--db", db], "");
    assert!(err.contains("demo content loaded"), "{err}");
    let (_, _, err) = cli(&["serve", "--demo", "--addr", "192.0.2.1:1", "--db", db], "");
    assert!(err.contains("demo content not loaded"), "{err}");
}

/// `ota-gateway send URL FILE --as ID` (issue 28): the repository's request samples, sent as
/// the demo's partners, are answered as a partner would want on the demo content (their dates
/// moved ahead, `TimeStamp` now), in the order a partner's day goes: content, availability,
/// Quote, Commit, read, cancel; the supplier's notifications and acknowledgement as the demo
/// supplier. The modify sample names a booking the demo does not hold: a clear "not found".
pub(crate) async fn the_samples_are_sendable_to_the_demo(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    let send = |sample: &str, args: &[&str], stdin: &str| {
        let path = format!("{}/../spec/samples/{sample}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut all = vec!["send", gw.url.as_str(), path.as_str()];
        all.extend_from_slice(args);
        cli(&all, stdin)
    };
    let demand = [
        "hotel_descriptive_info",
        "product_descriptive_info",
        "tour_activity_search",
        "hotel_avail",
        "tour_activity_avail",
        "tour_activity_book",
        "hotel_res",
        "booking_read",
        "cancel",
    ];
    let supply = ["hotel_avail_notif", "hotel_inv_count_notif", "hotel_rate_amount_notif", "notif_report"];
    for (sample, id) in demand.iter().map(|s| (s, "DEMO")).chain(supply.iter().map(|s| (s, "SUP-DEMO"))) {
        let (code, out, err) = send(sample, &["--as", id], "");
        assert_eq!(code, 0, "{sample}: {err}");
        assert!(out.contains("<Success/>") && !out.contains("<Error "), "{sample} as {id}:\n{out}");
        assert!(err.contains(&format!("sent as {id}")), "{sample}: {err}");
    }
    // The cancel cancelled what the hotel_res sample booked (its Client reference).
    let (_, out, _) = send("cancel", &["--as", "DEMO"], "");
    assert!(out.contains("already cancelled"), "{out}");
    let (code, out, _) = send("hotel_res_modify", &["--as", "DEMO"], "");
    assert_eq!(code, 0);
    assert!(out.contains(r#"Code="97""#) && out.contains("was not found"), "{out}");

    // As written, the samples' credentials are the description's, which the demo refuses.
    let (_, out, _) = send("hotel_avail", &[], "");
    assert!(out.contains(r#"Type="4""#), "{out}");
    // Another partner: its context and password (from stdin) are given.
    let (_, out, err) = send(
        "hotel_avail",
        &["--as", "PARTNER2", "--context", support::PARTNER2.1],
        &format!("{}\n", support::PARTNER2.2),
    );
    assert!(out.contains("<Success/>"), "{out}{err}");
    let (_, out, _) = send("hotel_avail", &["--as", "PARTNER2", "--context", support::PARTNER2.1], "wrong\n");
    assert!(out.contains(r#"Type="4""#), "{out}");
    // --keep-dates: the sample's 2025 stay is in the past.
    let (_, out, _) = send("hotel_avail", &["--as", "DEMO", "--keep-dates"], "");
    assert!(out.contains("<Error ") && !out.contains("<Success/>"), "{out}");
}
