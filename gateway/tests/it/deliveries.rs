//! Every delivery of a booking event kept and shown (issue 30, "Deliveries"), on real gateway
//! processes and a real receiver on loopback: each push attempt with its status, latency and
//! the receiver's answer (bounded, shown escaped), the receiver URL without its secrets;
//! the supplier's pulls and acknowledgements; `outbox history REF`, `outbox history --supplier`
//! with its filters, and `outbox resend` of any event (a retransmission, asked for by whom).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ota_gateway::Store;
use serde_json::Value;

use crate::outbox::{FAST, SUPPLIER, ack, event_of, hotel_commit, notif_report, post, pull};
use crate::support::{Backend, GatewayProcess, TestDb, backend_tests, day};

/// The answers a receiver gives next: (HTTP status, body), in order.
type Script = Arc<Mutex<VecDeque<(u16, Vec<u8>)>>>;

/// A receiver that answers as scripted (status, body), then with a `Success` for every call;
/// it keeps every notification it got, in order.
pub(crate) struct Receiver {
    /// Where it listens (its path is `/notify`).
    pub(crate) addr: SocketAddr,
    /// Every notification it got, in order.
    pub(crate) got: Arc<Mutex<Vec<String>>>,
    script: Script,
    /// While set, a call is kept and then held open (no answer for a minute).
    hold: Arc<AtomicBool>,
}

impl Receiver {
    pub(crate) async fn start() -> Receiver {
        let got: Arc<Mutex<Vec<String>>> = Arc::default();
        let script: Script = Arc::default();
        let hold: Arc<AtomicBool> = Arc::default();
        let (g, s, h) = (got.clone(), script.clone(), hold.clone());
        let app = axum::Router::new().route(
            "/notify",
            axum::routing::post(move |body: String| {
                let (got, script, hold) = (g.clone(), s.clone(), h.clone());
                async move {
                    let identity = event_of(&body).map(|e| e.0).unwrap_or_default();
                    got.lock().unwrap().push(body);
                    if hold.load(Ordering::SeqCst) {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                    }
                    let (status, answer) =
                        script.lock().unwrap().pop_front().unwrap_or_else(|| (200, ack(&identity).into_bytes()));
                    (axum::http::StatusCode::from_u16(status).unwrap(), answer)
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver { addr, got, script, hold }
    }

    /// The next calls are answered so, in order.
    pub(crate) fn then(&self, answers: &[(u16, &[u8])]) {
        self.script.lock().unwrap().extend(answers.iter().map(|(s, b)| (*s, b.to_vec())));
    }

    pub(crate) fn calls(&self) -> usize {
        self.got.lock().unwrap().len()
    }
}

/// `ota-gateway ARGS --db DB` as the OS user `user`: (exit code, stdout, stderr).
fn as_user(user: &str, args: &[&str], db: &str) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(args)
        .args(["--db", db])
        .env("USER", user)
        .output()
        .expect("run ota-gateway");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `ota-gateway ARGS --db DB` that must succeed: its stdout.
fn ok(args: &[&str], db: &str) -> String {
    let (code, out, err) = as_user("ops-test", args, db);
    assert_eq!(code, 0, "{args:?}: {out}{err}");
    out
}

/// `ota-gateway ARGS --json --db DB` that must succeed: its one JSON document.
fn json(args: &[&str], db: &str) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = ok(&all, db);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}): {out}"))
}

/// Waits until `check` holds of the booking's history (`outbox history REF --json`).
async fn wait_history(db: &str, reference: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let h = json(&["outbox", "history", reference], db);
        if check(&h) {
            return h;
        }
        assert!(Instant::now() < deadline, "{what}: {h:#}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The attempts of the booking's first event.
fn attempts(h: &Value) -> Vec<Value> {
    h[0]["attempts"].as_array().cloned().unwrap_or_default()
}

/// A hotel booking of the demo partner at HTL00042 (SUP-DEMO's hotel): its Internal reference.
async fn book(gw: &GatewayProcess, store: &Store, client_ref: &str, n: i64) -> String {
    let urls = Mutex::new(vec![gw.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &hotel_commit(client_ref, day(60 + n), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let client_ref = client_ref.to_string();
    let found: ota_gateway::store::Scalar<String> = store
        .read(move |c| {
            Box::pin(async move {
                c.query_one("SELECT internal_ref FROM hotel_booking WHERE client_ref = $1", &[&client_ref]).await
            })
        })
        .await
        .unwrap();
    found.0
}

/// Every text of `store`'s kept attempts and events, for secrets that must not be there.
async fn everything_kept(store: &Store) -> String {
    ota_gateway::store::row! { struct Kept { url: Option<String>, error: Option<String>, answer: Option<String>, gateway: Option<String> } }
    let rows: Vec<Kept> = store
        .read(|c| Box::pin(async move { c.query("SELECT url, error, answer, gateway FROM outbox_attempt", &[]).await }))
        .await
        .unwrap();
    let errors: Vec<ota_gateway::store::Scalar<Option<String>>> = store
        .read(|c| Box::pin(async move { c.query("SELECT last_error FROM outbox_event", &[]).await }))
        .await
        .unwrap();
    format!("{rows:?} {:?}", errors.iter().map(|e| e.0.clone()).collect::<Vec<_>>())
}

/// A receiver that fails (HTTP 500) then succeeds: the booking's history (by its Client and by
/// its Internal reference) lists both attempts in order, each with its status, latency, answer,
/// gateway and the receiver URL without its user, password or query values, which appear
/// nowhere in the history, the text, the JSON or the database.
async fn a_failed_then_delivered_push_is_kept_attempt_by_attempt(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let receiver = Receiver::start().await;
    let url = format!("http://gw:s3cret-pw@{}/notify?token=tok-s3cret&x=1", receiver.addr);
    ok(&["requestor", "set", SUPPLIER, "--notify-url", &url], &arg);
    receiver.then(&[(500, b"try later")]);
    let store = db.open().await;
    let internal = book(&gw, &store, "OBX-DLV1", 1).await;

    let h = wait_history(&arg, "OBX-DLV1", "not delivered after a failure", |h| h[0]["state"] == "delivered").await;
    assert_eq!(receiver.calls(), 2);
    assert_eq!(h.as_array().unwrap().len(), 1, "{h:#}");
    let e = &h[0];
    assert_eq!((e["booking_ref"].as_str(), e["client_ref"].as_str()), (Some(internal.as_str()), Some("OBX-DLV1")));
    assert_eq!(
        (e["supplier_id"].as_str(), e["delivery"].as_str(), e["kept"].as_i64()),
        (Some(SUPPLIER), Some("push"), Some(2))
    );
    let a = attempts(&h);
    assert_eq!(a.len(), 2, "{h:#}");
    assert_eq!((a[0]["outcome"].as_str(), a[0]["http_status"].as_i64()), (Some("failed"), Some(500)), "{h:#}");
    assert_eq!(
        (a[0]["answer"].as_str(), a[0]["error"].as_str()),
        (Some("try later"), Some("HTTP 500 Internal Server Error"))
    );
    assert_eq!((a[1]["outcome"].as_str(), a[1]["http_status"].as_i64()), (Some("delivered"), Some(200)), "{h:#}");
    assert!(a[1]["answer"].as_str().unwrap().contains("<Success/>"), "{h:#}");
    assert!(
        a[0]["id"].as_i64() < a[1]["id"].as_i64() && a[0]["at"].as_str() <= a[1]["at"].as_str(),
        "oldest first: {h:#}"
    );
    assert!(a.iter().all(|a| a["latency_ms"].as_i64().is_some_and(|l| (0..5_000).contains(&l))), "{h:#}");
    assert_eq!((a[0]["retransmission"].as_bool(), a[1]["retransmission"].as_bool()), (Some(false), Some(true)));
    assert!(a.iter().all(|a| a["requested_by"].is_null()), "nobody asked: {h:#}");
    let host = format!("http://{}/notify?token=***&x=***", receiver.addr);
    assert!(a.iter().all(|a| a["url"].as_str() == Some(host.as_str())), "{host}: {h:#}");
    assert!(a.iter().all(|a| a["gateway"].as_str().is_some_and(|g| g.contains(&format!("/{}/", gw.pid())))), "{h:#}");
    // By the Internal reference: the same.
    assert_eq!(json(&["outbox", "history", &internal], &arg), h);

    // The text: one line per attempt, in order, with status and latency.
    let text = ok(&["outbox", "history", "OBX-DLV1"], &arg);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("EVENT ") && lines[0].contains("delivered"), "{text}");
    let first = lines.iter().position(|l| l.trim_start().starts_with("1 ")).unwrap();
    let second = lines.iter().position(|l| l.trim_start().starts_with("2 ")).unwrap();
    assert!(first < second, "{text}");
    assert!(
        lines[first].contains("failed") && lines[first].contains(" 500 ") && lines[first].contains(" ms"),
        "{text}"
    );
    assert!(
        lines[second].contains("delivered") && lines[second].contains(" 200 ") && lines[second].contains(" ms"),
        "{text}"
    );
    assert!(text.contains("answer: \"try later\""), "{text}");

    // The password, the user and the query's token appear nowhere.
    let supplier = ok(&["outbox", "history", "--supplier", SUPPLIER], &arg);
    let supplier_json = json(&["outbox", "history", "--supplier", SUPPLIER], &arg).to_string();
    let kept = everything_kept(&store).await;
    for shown in [&text, &h.to_string(), &supplier, &supplier_json, &kept] {
        assert!(!shown.contains("s3cret") && !shown.contains("gw:") && !shown.contains("gw@"), "{shown}");
    }
    assert!(supplier.lines().nth(1).is_some_and(|l| l.contains("delivered") && l.contains("OBX-DLV1")), "{supplier}");

    // An unknown reference, an unknown supplier: refused, saying so.
    let (code, _, err) = as_user("ops-test", &["outbox", "history", "HTL-NOSUCHTHING"], &arg);
    assert!(code == 1 && err.contains("no booking \"HTL-NOSUCHTHING\""), "{err}");
    let (code, _, err) = as_user("ops-test", &["outbox", "history", "--supplier", "NOBODY"], &arg);
    assert!(code == 1 && err.contains("no supplier \"NOBODY\""), "{err}");
}

/// `outbox resend` of a delivered event: the receiver gets it again (the same `MessageID`,
/// `RetransmissionIndicator="true"`), kept as a retransmission asked for by `cli:USER`; a
/// parked event is resent the same way (and listed by `--parked` and `--failing` until then);
/// an unknown event is refused.
async fn a_resend_reaches_the_receiver_again_as_a_retransmission(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let mut args = FAST.to_vec();
    args.extend(["--outbox-max-attempts", "2"]);
    let gw = GatewayProcess::start(&arg, &args).await;
    let receiver = Receiver::start().await;
    ok(&["requestor", "set", SUPPLIER, "--notify-url", &format!("http://{}/notify", receiver.addr)], &arg);
    let store = db.open().await;
    book(&gw, &store, "OBX-RSD1", 1).await;
    let h = wait_history(&arg, "OBX-RSD1", "not delivered", |h| h[0]["state"] == "delivered").await;
    let id = h[0]["id"].as_i64().unwrap();
    assert_eq!(receiver.calls(), 1);
    assert!(receiver.got.lock().unwrap()[0].contains(r#"RetransmissionIndicator="false""#));

    let (code, out, err) = as_user("ops-anna", &["outbox", "resend", &id.to_string()], &arg);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("event {id} (was delivered)")) && out.contains("cli:ops-anna"), "{out}");
    let h = wait_history(&arg, "OBX-RSD1", "not delivered again", |h| {
        attempts(h).len() == 2 && h[0]["state"] == "delivered"
    })
    .await;
    assert_eq!(receiver.calls(), 2, "the receiver got it again");
    let again = receiver.got.lock().unwrap()[1].clone();
    assert!(again.contains(r#"RetransmissionIndicator="true""#), "{again}");
    assert_eq!(event_of(&again).map(|e| e.0), Some(id.to_string()), "the same MessageID");
    let a = attempts(&h);
    assert_eq!((a[1]["outcome"].as_str(), a[1]["retransmission"].as_bool()), (Some("delivered"), Some(true)), "{h:#}");
    assert_eq!(a[1]["requested_by"].as_str(), Some("cli:ops-anna"), "{h:#}");
    assert_eq!(a[0]["requested_by"], Value::Null);
    assert_eq!(h[0]["resent_by"].as_str(), Some("cli:ops-anna"));
    assert!(ok(&["outbox", "history", "OBX-RSD1"], &arg).contains("yes, asked by cli:ops-anna"));
    let audit = json(&["audit", "list", "--actor", "cli:ops-anna"], &arg);
    assert_eq!(audit[0]["action"].as_str(), Some("outbox.resend"), "{audit:#}");

    // A parked event: listed as parked and failing, then resent and delivered.
    receiver.then(&[(503, b"down"), (503, b"down")]);
    book(&gw, &store, "OBX-RSD2", 2).await;
    let h = wait_history(&arg, "OBX-RSD2", "not parked", |h| h[0]["state"] == "parked").await;
    let parked = h[0]["id"].as_i64().unwrap();
    let a = attempts(&h);
    assert_eq!(a.iter().map(|a| a["outcome"].as_str().unwrap()).collect::<Vec<_>>(), ["failed", "parked"], "{h:#}");
    for filter in ["--parked", "--failing"] {
        let listed = json(&["outbox", "history", "--supplier", SUPPLIER, filter], &arg);
        let ids: Vec<i64> = listed.as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
        assert_eq!(ids, [parked], "{filter}: {listed:#}");
        assert_eq!(listed[0]["last_http_status"].as_i64(), Some(503));
    }
    let r = json(&["outbox", "resend", &parked.to_string()], &arg);
    assert_eq!(
        (r["was"].as_str(), r["delivery"].as_str(), r["requested_by"].as_str()),
        (Some("parked"), Some("push"), Some("cli:ops-test")),
        "{r:#}"
    );
    let h = wait_history(&arg, "OBX-RSD2", "not delivered after the resend", |h| h[0]["state"] == "delivered").await;
    let a = attempts(&h);
    assert_eq!(a.len(), 3, "{h:#}");
    assert_eq!((a[2]["outcome"].as_str(), a[2]["requested_by"].as_str()), (Some("delivered"), Some("cli:ops-test")));
    assert!(json(&["outbox", "history", "--supplier", SUPPLIER, "--parked"], &arg).as_array().unwrap().is_empty());
    assert!(json(&["outbox", "history", "--supplier", SUPPLIER, "--failing"], &arg).as_array().unwrap().is_empty());

    // An unknown event: refused, saying so; nothing sent.
    let calls = receiver.calls();
    let (code, out, err) = as_user("ops-test", &["outbox", "resend", "999999"], &arg);
    assert!(code == 1 && err.contains("no event 999999"), "{out}{err}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.calls(), calls);
}

/// A supplier that pulls: each read that gives an event and each acknowledgement is kept;
/// `--unacked-after 30` lists the event not acknowledged 30 minutes after it was written, not
/// the acknowledged one; a resend of the acknowledged one is given again by the next read,
/// kept as a retransmission asked for by the operator.
async fn unacked_after_lists_an_unacknowledged_pull_event_only(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    let store = db.open().await;
    let acked = book(&gw, &store, "OBX-PUL1", 1).await;
    let unacked = book(&gw, &store, "OBX-PUL2", 2).await;
    let read = pull(&urls).await;
    assert_eq!(read.iter().map(|r| r.0.clone()).collect::<Vec<_>>(), [acked.clone(), unacked.clone()]);
    let body = post(&urls, 0, "/notifreport", &notif_report(&[(read[0].0.clone(), read[0].2.clone())])).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    // Both were written 31 minutes ago.
    store
        .write_now(|c| {
            Box::pin(async move {
                c.execute("UPDATE outbox_event SET created_at = created_at - 31 * 60000", &[]).await?;
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();

    let listed = json(&["outbox", "history", "--supplier", SUPPLIER, "--unacked-after", "30"], &arg);
    let refs: Vec<&str> = listed.as_array().unwrap().iter().map(|e| e["booking_ref"].as_str().unwrap()).collect();
    assert_eq!(refs, [unacked.as_str()], "{listed:#}");
    assert_eq!((listed[0]["delivery"].as_str(), listed[0]["last_outcome"].as_str()), (Some("pull"), Some("pulled")));
    assert!(
        json(&["outbox", "history", "--supplier", SUPPLIER, "--unacked-after", "45"], &arg)
            .as_array()
            .unwrap()
            .is_empty()
    );
    let text = ok(&["outbox", "history", "--supplier", SUPPLIER, "--unacked-after", "30"], &arg);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("OBX-PUL2") && !text.contains("OBX-PUL1"), "{text}");

    let h = json(&["outbox", "history", "OBX-PUL1"], &arg);
    let a = attempts(&h);
    assert_eq!(
        a.iter().map(|a| a["outcome"].as_str().unwrap()).collect::<Vec<_>>(),
        ["pulled", "acknowledged"],
        "{h:#}"
    );
    assert!(a.iter().all(|a| a["gateway"].as_str().is_some_and(|g| g.contains(&format!("/{}/", gw.pid())))), "{h:#}");
    assert_eq!(h[0]["state"].as_str(), Some("delivered"));

    // The acknowledged event resent: the next read gives it again, as a retransmission.
    let id = h[0]["id"].as_i64().unwrap();
    let r = json(&["outbox", "resend", &id.to_string()], &arg);
    assert_eq!((r["was"].as_str(), r["delivery"].as_str()), (Some("delivered"), Some("pull")), "{r:#}");
    let read = pull(&urls).await;
    assert!(read.iter().any(|r| r.0 == acked), "given again: {read:?}");
    let h = json(&["outbox", "history", "OBX-PUL1"], &arg);
    let a = attempts(&h);
    assert_eq!(a.len(), 3, "{h:#}");
    assert_eq!(
        (a[2]["outcome"].as_str(), a[2]["retransmission"].as_bool(), a[2]["requested_by"].as_str()),
        (Some("pulled"), Some(true), Some("cli:ops-test")),
        "{h:#}"
    );

    // The booking is cancelled and both its events acknowledged: past the outbox's retention
    // its first event goes with its attempts; its last stays, with its own.
    let body = post(&urls, 0, "/bookcancel", &crate::outbox::cancel("OBX-PUL1")).await;
    assert!(body.contains("<Success"), "{body}");
    let read = pull(&urls).await;
    let taken: Vec<(String, String)> = read.iter().map(|r| (r.0.clone(), r.2.clone())).collect();
    let body = post(&urls, 0, "/notifreport", &notif_report(&taken)).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    let kept = |event: i64| {
        let store = store.clone();
        async move {
            let n: ota_gateway::store::Scalar<i64> = store
                .read(move |c| {
                    Box::pin(async move {
                        c.query_one("SELECT count(*) FROM outbox_attempt WHERE event_id = $1", &[&event]).await
                    })
                })
                .await
                .unwrap();
            n.0
        }
    };
    let h = json(&["outbox", "history", "OBX-PUL1"], &arg);
    let last = h[1]["id"].as_i64().unwrap();
    assert_eq!(
        (kept(id).await, kept(last).await),
        (5, 2),
        "pulled, acknowledged, pulled (resent), pulled, acknowledged: {h:#}"
    );
    let deleted =
        ota_gateway::outbox::admin::purge(&store, chrono::Utc::now() + chrono::Duration::minutes(1)).await.unwrap();
    assert_eq!(deleted, 1, "the booking's first event (the others are each booking's last)");
    assert_eq!((kept(id).await, kept(last).await), (0, 2), "its attempts went with it");
    assert_eq!(json(&["outbox", "history", "OBX-PUL1"], &arg).as_array().unwrap().len(), 1);
}

/// A hostile receiver: an answer of 100 KiB full of markup, terminal escapes, CR/LF and NUL is
/// kept bounded (its first 4 KiB, its declared length beside it; the outbox reads no more), on both backends (NUL cannot be
/// stored in a PostgreSQL text: it is replaced), and printed escaped: the text is one line per
/// answer with no control character in it.
async fn a_hostile_answer_is_kept_bounded_and_shown_escaped(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let receiver = Receiver::start().await;
    ok(&["requestor", "set", SUPPLIER, "--notify-url", &format!("http://{}/notify", receiver.addr)], &arg);
    let mut huge = b"<script>alert(1)</script>\x1b[31mRED\r\nFAKE LINE\0\xff".to_vec();
    while huge.len() < 100 * 1024 {
        huge.extend_from_slice(b"\x1b[2J<img src=x onerror=alert(2)>\r\n");
    }
    let small = b"<OTA_HotelResNotifRS xmlns=\"http://www.opentravel.org/OTA/2003/05\"><Errors><Error Type=\"3\">\x1b]0;owned\x07\r\nno</Error></Errors></OTA_HotelResNotifRS>";
    receiver.then(&[(500, &huge), (200, small)]);
    book(&gw, &db.open().await, "OBX-HOST", 1).await;
    let h = wait_history(&arg, "OBX-HOST", "not delivered", |h| h[0]["state"] == "delivered").await;
    let a = attempts(&h);
    assert_eq!(a.len(), 3, "{h:#}");
    let first = a[0]["answer"].as_str().unwrap();
    assert!(
        first.len() <= 4 * 1024 + 8 && first.starts_with("<script>alert(1)</script>\u{1b}[31mRED\r\n"),
        "{first:?}"
    );
    assert!(!first.contains('\0') && first.contains('\u{FFFD}'), "{first:?}");
    assert_eq!(a[0]["answer_bytes"].as_i64(), Some(huge.len() as i64), "its declared length: {h:#}");
    assert!(a[0]["error"].as_str().unwrap().contains("over 64 KiB"), "{h:#}");
    assert_eq!((a[1]["outcome"].as_str(), a[1]["http_status"].as_i64()), (Some("failed"), Some(200)));
    assert!(a[1]["error"].as_str().unwrap().contains("not an OTA_HotelResNotifRS"), "{h:#}");
    assert!(a[1]["answer"].as_str().unwrap().contains("\u{1b}]0;owned\u{7}"), "kept as sent");
    let text = ok(&["outbox", "history", "OBX-HOST"], &arg);
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "a control character printed: {text:?}");
    let answers: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("answer")).collect();
    assert_eq!(answers.len(), 3, "one line per answer: {text}");
    assert!(
        answers[0].contains(r"\u{1b}[31mRED\r\nFAKE LINE")
            && answers[0].contains(&format!("(the first 4 KiB of {} bytes)", huge.len())),
        "{}",
        answers[0]
    );
    assert!(!text.lines().any(|l| l.starts_with("FAKE LINE")), "{text}");
}

/// The console's Deliveries page, over HTTP: a booking's attempts of a delivery that failed
/// then succeeded are listed (the receiver's hostile answer as text); a supplier's deliveries
/// with a filter; an admin's resend from the page (with its CSRF token) reaches the receiver,
/// asked for by the admin; a viewer sees no resend button and its resend is refused (403), as
/// is one without the CSRF token; nothing is sent for either.
async fn the_console_shows_deliveries_and_resends_for_admins_only(b: Backend) {
    use crate::support::console::ConsoleServer;
    use ota_gateway::operators::Role;
    let console = ConsoleServer::start(b).await;
    let arg = console.db.as_ref().unwrap().arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let receiver = Receiver::start().await;
    ok(&["requestor", "set", SUPPLIER, "--notify-url", &format!("http://{}/notify", receiver.addr)], &arg);
    receiver.then(&[(500, b"<script>alert(1)</script>try later")]);
    book(&gw, console.store(), "OBX-CON1", 1).await;
    let h = wait_history(&arg, "OBX-CON1", "not delivered", |h| h[0]["state"] == "delivered").await;
    let id = h[0]["id"].as_i64().unwrap();

    let ann = console.login_as("ann", Role::Admin).await;
    let vic = console.login_as("vic", Role::Viewer).await;
    let page = vic.get("/deliveries?ref=OBX-CON1").await;
    assert_eq!(page.status, 200, "{}", page.body);
    crate::console::assert_nothing_inline("deliveries", &page.body);
    let body = &page.body;
    let (failed, delivered) = (body.find("<td>failed</td>").unwrap(), body.find("<td>delivered</td>").unwrap());
    assert!(failed < delivered, "oldest first: {body}");
    assert!(body.contains("<td>500</td>") && body.contains("<td>200</td>") && body.contains(" ms</td>"), "{body}");
    assert!(
        body.contains("&lt;script&gt;alert(1)&lt;/script&gt;try later") && !body.contains("<script>alert"),
        "{body}"
    );
    assert!(!body.contains("/resend"), "no resend button for a viewer");
    assert!(ann.get("/deliveries?ref=OBX-CON1").await.body.contains(&format!("/deliveries/{id}/resend")));
    let listed = vic.get(&format!("/deliveries?supplier={SUPPLIER}")).await;
    assert!(listed.status == 200 && listed.body.contains("OBX-CON1"), "{}", listed.body);
    let failing = vic.get(&format!("/deliveries?supplier={SUPPLIER}&failing=on&unacked_after=0")).await;
    assert!(failing.body.contains("No delivery matches."), "{}", failing.body);
    let unknown = vic.get("/deliveries?ref=%3Cb%3Enope").await;
    assert!(unknown.status == 404 && unknown.body.contains("no booking &quot;&lt;b&gt;nope&quot;"), "{}", unknown.body);

    // A viewer's resend, and one without the CSRF token: refused, nothing sent.
    let path = format!("/deliveries/{id}/resend");
    assert_eq!(vic.post(&path, &[("ref", "OBX-CON1")]).await.status, 403);
    assert_eq!(ann.post_raw(&path, &[("ref", "OBX-CON1")]).await.status, 403);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.calls(), 2, "nothing resent");
    assert_eq!(json(&["outbox", "history", "OBX-CON1"], &arg)[0]["resent_by"], Value::Null);

    // An admin's resend reaches the receiver, asked for by the admin.
    let done = ann.post(&path, &[("ref", "OBX-CON1")]).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains(&format!("Event {id} (was delivered) will be sent again")), "{}", done.body);
    let h =
        wait_history(&arg, "OBX-CON1", "not resent", |h| attempts(h).len() == 3 && h[0]["state"] == "delivered").await;
    assert_eq!(receiver.calls(), 3);
    assert_eq!(attempts(&h)[2]["requested_by"].as_str(), Some("ann"), "{h:#}");
    assert!(ann.get("/deliveries?ref=OBX-CON1").await.body.contains("yes, asked by ann"));
    // The audit trail has it: who, from where, which event.
    let audit = json(&["audit", "list", "--actor", "ann"], &arg);
    let resend = audit.as_array().unwrap().iter().find(|e| e["action"] == "outbox.resend").expect("audited");
    let target = resend["target"].as_str().unwrap_or_default();
    assert!(target.starts_with(&format!("event {id} of hotel HTL-")), "{audit:#}");
    assert_eq!(
        (resend["old"].as_str(), resend["address"].as_str()),
        (Some("delivered"), Some("127.0.0.1")),
        "{audit:#}"
    );
    // An unknown event: refused, saying so.
    let missing = ann.post("/deliveries/999999/resend", &[]).await;
    assert!(missing.status == 404 && missing.body.contains("no event 999999"), "{}", missing.body);
}

/// What keeping an attempt adds to a delivery: the settling write of a delivered event (its
/// own transaction, committed, as every gateway does it) with the attempt row and without it,
/// interleaved, 200 each; and the space an attempt with a 300-byte answer takes (10,000 rows).
/// Prints the figures (`-- --nocapture`); asserts only that an attempt row stays under 1 KiB.
async fn keeping_an_attempt_costs_one_row_in_the_same_commit(b: Backend) {
    use ota_gateway::outbox::repo;
    let db = TestDb::new(b).await;
    let store = db.open().await;
    ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
    let n: i64 = 400;
    store
        .write_now(move |c| {
            Box::pin(async move {
                for i in 0..n {
                    c.execute(
                        "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                         VALUES ('hotel', $1, 'HTL00042', 1, 'SUP-DEMO', 'new', 1, 1, 1, 1)",
                        &[&format!("COST-{i}")],
                    )
                    .await?;
                }
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();
    let ids: Vec<ota_gateway::store::Scalar<i64>> = store
        .read(|c| Box::pin(async move { c.query("SELECT id FROM outbox_event ORDER BY id", &[]).await }))
        .await
        .unwrap();
    let answer = format!(
        "<OTA_HotelResNotifRS xmlns=\"http://www.opentravel.org/OTA/2003/05\" Version=\"2016.1\" EchoToken=\"1\"><Success/>{}</OTA_HotelResNotifRS>",
        " ".repeat(180)
    );
    let attempt = |id: i64| repo::events::NewAttempt {
        event_id: id,
        outcome: "delivered",
        at: 1,
        gateway: "host-name-01/123456/0123abcd".into(),
        url: Some("https://pms.example.com/ota/notifications?token=***".into()),
        http_status: Some(200),
        error: None,
        latency_ms: Some(12),
        answer: Some(answer.clone()),
        answer_bytes: Some(answer.len() as i64),
        retransmission: false,
        requested_by: None,
        ..Default::default()
    };
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for (i, ota_gateway::store::Scalar(id)) in ids.iter().copied().enumerate() {
        let keep = (i % 2 == 0).then(|| attempt(id));
        let started = Instant::now();
        let kept = keep.is_some();
        store
            .write_now(move |c| {
                Box::pin(async move {
                    repo::events::delivered(c, id, 2, None).await?;
                    if let Some(a) = &keep {
                        repo::events::record_attempt(c, a).await?;
                    }
                    Ok::<_, ota_gateway::store::StoreError>(())
                })
            })
            .await
            .unwrap();
        let took = started.elapsed().as_secs_f64() * 1000.0;
        if kept { with.push(took) } else { without.push(took) }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (w, wo) = (median(&mut with), median(&mut without));

    // Space: 10,000 more attempts.
    let size = |store: &Store| {
        let store = store.clone();
        async move {
            let sql = if b == Backend::Sqlite {
                "SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size())"
            } else {
                "SELECT pg_total_relation_size('outbox_attempt')"
            };
            let s: ota_gateway::store::Scalar<i64> =
                store.read(move |c| Box::pin(async move { c.query_one(sql, &[]).await })).await.unwrap();
            s.0
        }
    };
    let before = size(&store).await;
    let rows: Vec<repo::events::NewAttempt> = (0..10_000).map(|i| attempt(ids[i % ids.len()].0)).collect();
    store
        .write_now(move |c| {
            Box::pin(async move {
                for a in &rows {
                    repo::events::record_attempt(c, a).await?;
                }
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();
    let per_row = (size(&store).await - before) as f64 / 10_000.0;
    eprintln!(
        "{b:?}: a delivery's settling commit, median of 200 each: {w:.2} ms with the attempt kept, {wo:.2} ms without ({:+.2} ms); an attempt with a {}-byte answer takes {per_row:.0} bytes (10,000 rows, index included)",
        w - wo,
        answer.len()
    );
    assert!(per_row < 1024.0, "{per_row} bytes per attempt");

    // The attempt's start: one more commit before the notification leaves, with the
    // notification kept (a 3 KiB one, about what a one-room booking's is), 200 of them; and
    // the space 1,000 such rows take.
    // Hex of a pseudo-random run: compresses about as badly as text can (XML compresses better).
    let mut rng = crate::support::Rng(7);
    let noise: String = (0..3 * 1024 / 16).map(|_| format!("{:016x}", rng.next())).collect();
    let body = format!("<OTA_HotelResNotifRQ>{noise}</OTA_HotelResNotifRQ>");
    let before = size(&store).await;
    let mut starts = Vec::new();
    for i in 0..1_000 {
        let begun = repo::events::NewAttempt {
            body: Some(body.clone()),
            body_bytes: Some(body.len() as i64),
            ..attempt(ids[i % ids.len()].0)
        };
        let started = Instant::now();
        store.write_now(move |c| Box::pin(async move { repo::events::start_attempt(c, &begun).await })).await.unwrap();
        if i < 200 {
            starts.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let per_start = (size(&store).await - before) as f64 / 1_000.0;
    eprintln!(
        "{b:?}: an attempt's start (its own commit before sending), median of 200: {:.2} ms; with a {}-byte notification kept it takes {per_start:.0} bytes (1,000 rows)",
        median(&mut starts),
        body.len()
    );
}

/// On the database: a resend that comes while a gateway delivers the event is not settled by
/// the delivery in flight (delivered, failed or parked: the event stays pending, its lease given
/// back, due at once); the next taking marks it a retransmission. An event retried after it was
/// parked is a retransmission too (an attempt of it is kept).
async fn a_resend_during_a_delivery_asks_for_another_attempt(b: Backend) {
    use ota_gateway::outbox::repo;
    let db = TestDb::new(b).await;
    let store = db.open().await;
    ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
    ok(&["requestor", "set", SUPPLIER, "--notify-url", "http://127.0.0.1:9/n"], &db.arg());
    store
        .write_now(|c| {
            Box::pin(async move {
                for r in ["R-1", "R-2", "R-3", "R-4"] {
                    c.execute(
                        "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                         VALUES ('hotel', $1, 'HTL00042', 1, 'SUP-DEMO', 'new', 1, 1, 1, 1)",
                        &[&r],
                    )
                    .await?;
                }
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();
    let take = |now: i64| {
        let store = store.clone();
        async move {
            store
                .write_now(move |c| {
                    Box::pin(async move { repo::events::take_due(c, now, now + 60_000, 32, 8, "gw").await })
                })
                .await
                .unwrap()
        }
    };
    let state = |id: i64| {
        let store = store.clone();
        async move {
            ota_gateway::outbox::admin::list(&store, None, None, 10)
                .await
                .unwrap()
                .into_iter()
                .find(|e| e.id == id)
                .unwrap()
        }
    };
    let taken = take(10).await;
    assert_eq!(taken.len(), 4);
    assert!(taken.iter().all(|e| !e.retransmission && e.resent_at.is_none()));
    let (a, b2, c3, d4) = (taken[0].id, taken[1].id, taken[2].id, taken[3].id);
    // Three are resent while in flight; the fourth is not.
    for id in [a, b2, c3] {
        ota_gateway::outbox::admin::resend(
            &store,
            id,
            &ota_gateway::audit::Actor { name: "ops".into(), address: None },
        )
        .await
        .unwrap();
    }
    let settle = |f: fn(i64) -> &'static str, id: i64| {
        let store = store.clone();
        async move {
            store
                .write_now(move |c| {
                    Box::pin(async move {
                        match f(id) {
                            "delivered" => repo::events::delivered(c, id, 20, None).await,
                            "failed" => repo::events::failed(c, id, 99_999_999, "HTTP 500", None).await,
                            _ => repo::events::parked(c, id, "HTTP 500", None).await,
                        }
                    })
                })
                .await
                .unwrap()
        }
    };
    assert!(!settle(|_| "delivered", a).await, "a delivery in flight does not settle a resent event");
    assert!(!settle(|_| "failed", b2).await);
    assert!(!settle(|_| "parked", c3).await);
    assert!(settle(|_| "parked", d4).await, "not resent: parked");
    for id in [a, b2, c3] {
        let e = state(id).await;
        assert_eq!(e.state, "pending", "{e:?}");
    }
    // Due at once, marked a retransmission asked for by the operator.
    let again = take(ota_gateway::outbox::deliver::now_ms() + 1_000).await;
    assert_eq!(again.iter().map(|e| e.id).collect::<Vec<_>>(), [a, b2, c3]);
    assert!(again.iter().all(|e| e.retransmission && e.resent_by.as_deref() == Some("ops")), "{again:?}");
    // Settled with the resend as it was when taken: settled.
    let as_taken = again[0].resent_at;
    assert!(as_taken.is_some());
    let settled = store
        .write_now(move |c| Box::pin(async move { repo::events::delivered(c, a, 40, as_taken).await }))
        .await
        .unwrap();
    assert!(settled, "the attempt taken after the resend settles it");
    assert_eq!(state(a).await.state, "delivered");

    // A parked event with a kept attempt, retried: a retransmission.
    store
        .write_now(move |c| {
            Box::pin(async move {
                repo::events::record_attempt(
                    c,
                    &repo::events::NewAttempt { event_id: d4, outcome: "parked", at: 15, ..Default::default() },
                )
                .await
            })
        })
        .await
        .unwrap();
    ota_gateway::outbox::admin::retry(&store, Some(d4)).await.unwrap();
    let retried = take(ota_gateway::outbox::deliver::now_ms() + 1_000).await;
    let d = retried.iter().find(|e| e.id == d4).unwrap();
    assert!(d.retransmission && d.resent_at.is_none(), "{d:?}");
}

/// A gateway SIGKILLed while the receiver holds its notification open: the attempt's row was
/// written before the notification was sent (in flight while the dead gateway's lease lasts),
/// so the history shows it — as interrupted, no outcome recorded, never as failed or delivered
/// — with the notification it sent; a gateway started after delivers the event again (the
/// same `MessageID`, a retransmission) and the history has both attempts, in order.
async fn a_killed_attempt_is_kept_as_interrupted_and_the_next_gateway_delivers(b: Backend) {
    use crate::support::console::ConsoleServer;
    use ota_gateway::operators::Role;
    let console = ConsoleServer::start(b).await;
    let arg = console.db.as_ref().unwrap().arg();
    // FAST with a receiver's time-out of 2 s: the lease is 5 s.
    let mut args = FAST.to_vec();
    let timeout = args.iter().position(|a| *a == "--outbox-timeout").unwrap();
    args[timeout + 1] = "2s";
    let gw = GatewayProcess::start(&arg, &args).await;
    let receiver = Receiver::start().await;
    ok(&["requestor", "set", SUPPLIER, "--notify-url", &format!("http://{}/notify", receiver.addr)], &arg);
    receiver.hold.store(true, Ordering::SeqCst);
    let store = console.store().clone();
    book(&gw, &store, "OBX-KILL", 1).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while receiver.calls() == 0 {
        assert!(Instant::now() < deadline, "the receiver got nothing");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let dead = gw.pid();
    drop(gw); // SIGKILL while the receiver holds the request open
    receiver.hold.store(false, Ordering::SeqCst);

    let h = json(&["outbox", "history", "OBX-KILL"], &arg);
    let a = attempts(&h);
    assert_eq!(a.len(), 1, "the attempt begun is kept: {h:#}");
    assert_eq!(h[0]["state"].as_str(), Some("pending"), "{h:#}");
    assert_eq!(a[0]["outcome"].as_str(), Some("in_flight"), "the dead gateway's lease still runs: {h:#}");
    assert!(a[0]["gateway"].as_str().is_some_and(|g| g.contains(&format!("/{dead}/"))), "{h:#}");
    assert_eq!(a[0]["url"].as_str(), Some(format!("http://{}/notify", receiver.addr).as_str()));
    assert!(a[0]["http_status"].is_null() && a[0]["answer"].is_null() && a[0]["error"].is_null(), "{h:#}");
    let first = receiver.got.lock().unwrap()[0].clone();
    assert!(a[0]["body"].as_str().is_some_and(|body| body.contains(r#"RetransmissionIndicator="false""#)), "{h:#}");
    assert_eq!(a[0]["body_bytes"].as_i64(), Some(first.len() as i64));

    // Another gateway takes the event when the dead one's lease ends and delivers it.
    let gw = GatewayProcess::start(&arg, &args).await;
    let h = wait_history(&arg, "OBX-KILL", "not delivered after the kill", |h| h[0]["state"] == "delivered").await;
    let a = attempts(&h);
    assert_eq!(
        a.iter().map(|a| a["outcome"].as_str().unwrap()).collect::<Vec<_>>(),
        ["interrupted", "delivered"],
        "{h:#}"
    );
    assert!(a[1]["gateway"].as_str().is_some_and(|g| g.contains(&format!("/{}/", gw.pid()))), "{h:#}");
    assert_eq!((a[0]["retransmission"].as_bool(), a[1]["retransmission"].as_bool()), (Some(false), Some(true)));
    assert!(a[0]["id"].as_i64() < a[1]["id"].as_i64() && a[0]["at"].as_str() < a[1]["at"].as_str(), "{h:#}");
    assert_eq!(receiver.calls(), 2);
    let again = receiver.got.lock().unwrap()[1].clone();
    assert_eq!(event_of(&again).map(|e| e.0), event_of(&first).map(|e| e.0), "the same MessageID");
    assert!(again.contains(r#"RetransmissionIndicator="true""#), "{again}");
    assert_eq!(h[0]["last_outcome"].as_str(), Some("delivered"));

    // The text says it, never "failed"; so does the console.
    let text = ok(&["outbox", "history", "OBX-KILL"], &arg);
    let line = text.lines().find(|l| l.trim_start().starts_with("1 ")).unwrap();
    assert!(line.contains("interrupted (no outcome recorded)") && !line.contains("failed"), "{text}");
    let page = console.login_as("vic", Role::Viewer).await.get("/deliveries?ref=OBX-KILL").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (interrupted, delivered) = (
        page.body.find("<td>interrupted (no outcome recorded)</td>").expect("shown interrupted"),
        page.body.find("<td>delivered</td>").expect("shown delivered"),
    );
    assert!(interrupted < delivered && !page.body.contains("<td>failed</td>"), "{}", page.body);
}

/// The notification each push sent is kept with its attempt: with `--log-unmasked` it is what
/// the receiver got, byte for byte, but for card numbers, which are never kept (a card number a
/// partner put in a comment reached the hotel; the kept body has its last four digits only);
/// by default personal values are masked as in the transaction log. A hostile guest name is
/// text in `outbox history` (escaped, one line) and on the console's Deliveries page.
async fn the_notification_sent_is_kept_masked_and_shown_as_text(b: Backend) {
    use crate::support::console::ConsoleServer;
    use ota_gateway::operators::Role;
    let console = ConsoleServer::start(b).await;
    let arg = console.db.as_ref().unwrap().arg();
    let mut args = FAST.to_vec();
    args.push("--log-unmasked");
    let gw = GatewayProcess::start(&arg, &args).await;
    let receiver = Receiver::start().await;
    ok(&["requestor", "set", SUPPLIER, "--notify-url", &format!("http://{}/notify", receiver.addr)], &arg);
    let hostile = r#"<script>alert(1)</script>"><img src=x onerror=alert(2)>"#;
    let as_xml = hostile.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    // As the gateway writes it in a text (a quote is not escaped there).
    let as_text = hostile.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let commit = |client: &str| {
        hotel_commit(client, day(61), "HTL00042", "RMSD000000").replace("Nowak", &as_xml).replace(
            "<ResGlobalInfo><HotelReservationIDs>",
            r#"<ResGlobalInfo><Comments><Comment Name="Remarks"><Text>pay with 4111 1111 1111 1111 please</Text></Comment></Comments><HotelReservationIDs>"#,
        )
    };
    let urls = Mutex::new(vec![gw.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &commit("OBX-XML1")).await;
    assert!(body.contains("<Success"), "{body}");
    let h = wait_history(&arg, "OBX-XML1", "not delivered", |h| h[0]["state"] == "delivered").await;
    let a = attempts(&h);
    let got = receiver.got.lock().unwrap()[0].clone();
    // The card number in the comment was stored with its last four digits only: that is what
    // the hotel gets, and what is kept of the attempt.
    assert!(
        got.contains("pay with XXXX XXXX XXXX 1111 please") && !got.contains("4111 1111 1111 1111"),
        "the card number reached the hotel as stored: {got}"
    );
    assert!(got.contains(&as_text), "{got}");
    let kept = a[0]["body"].as_str().unwrap();
    assert_eq!(a[0]["body_bytes"].as_i64(), Some(got.len() as i64));
    assert_eq!(a[0]["body_masked"].as_bool(), Some(false));
    assert!(kept.contains("pay with XXXX XXXX XXXX 1111 please") && kept.contains(&as_text), "{kept}");

    // The text: the notification on one line, escaped.
    let text = ok(&["outbox", "history", "OBX-XML1"], &arg);
    let sent: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("sent")).collect();
    assert_eq!(sent.len(), 1, "{text}");
    assert!(sent[0].contains(&as_text.replace('"', "\\\"")) && !text.contains("4111 1111 1111 1111"), "{text}");

    // The console: the notification as text, the hostile name escaped (it is escaped once in
    // the XML and once more in the page), nothing inline, no raw markup.
    let vic = console.login_as("vic", Role::Viewer).await;
    let page = vic.get("/deliveries?ref=OBX-XML1").await;
    assert_eq!(page.status, 200, "{}", page.body);
    crate::console::assert_nothing_inline("deliveries", &page.body);
    let twice = as_text.replace('&', "&amp;").replace('"', "&quot;");
    assert!(page.body.contains("The notification sent (") && page.body.contains(&twice), "{}", page.body);
    assert!(!page.body.contains("<script>alert") && !page.body.contains("<img"), "{}", page.body);
    assert!(page.body.contains("&lt;OTA_HotelResNotifRQ"), "{}", page.body);

    // By default personal values are masked in what is kept, as in the transaction log.
    drop(gw);
    let gw = GatewayProcess::start(&arg, FAST).await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &commit("OBX-XML2")).await;
    assert!(body.contains("<Success"), "{body}");
    let h = wait_history(&arg, "OBX-XML2", "not delivered", |h| h[0]["state"] == "delivered").await;
    let a = attempts(&h);
    let kept = a[0]["body"].as_str().unwrap();
    assert_eq!(a[0]["body_masked"].as_bool(), Some(true));
    assert!(kept.contains("OBX-XML2") && kept.contains("<OTA_HotelResNotifRQ"), "{kept}");
    assert!(!kept.contains("alert(") && !kept.contains(">Ana<") && !kept.contains("4111 1111"), "{kept}");
    assert!(receiver.got.lock().unwrap().last().unwrap().contains(&as_text));
}

/// Sets every event's time of writing back by `minutes`.
async fn written_earlier(store: &Store, minutes: i64) {
    store
        .write_now(move |c| {
            Box::pin(async move {
                c.execute("UPDATE outbox_event SET created_at = created_at - $1", &[&(minutes * 60_000)]).await?;
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();
}

/// Waits until gateway `gw`'s `ota_outbox_unacknowledged_bookings` is `want`.
async fn wait_gauge(gw: &GatewayProcess, want: f64, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(25);
    loop {
        let m = gw.metrics().await;
        let now = crate::support::metric(&m, "ota_outbox_unacknowledged_bookings");
        if now == want {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: {now}, not {want}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A booking pulled by its supplier and not acknowledged for more than 30 minutes (its event
/// written 31 minutes ago) is counted by the `ota_outbox_unacknowledged_bookings` gauge of
/// every gateway (read by each one's delivery task, the same everywhere), not by one whose
/// threshold is 45 (`OTA_GATEWAY_UNACKED_ALERT_MINUTES`); `outbox history --unacked-after 30`
/// lists its event (every supplier's). Acknowledged: gone from the gauges and the list.
async fn bookings_not_acknowledged_in_time_are_in_the_gauge_of_every_gateway(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    let store = db.open().await;
    let internal = book(&gw, &store, "OBX-UNACK", 1).await;
    let read = pull(&urls).await;
    assert_eq!(read.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), [internal.as_str()]);
    assert_eq!(crate::support::metric(&gw.metrics().await, "ota_outbox_unacknowledged_bookings"), 0.0);
    written_earlier(&store, 31).await;

    let other = GatewayProcess::start(&arg, FAST).await;
    let later = GatewayProcess::start_with(&arg, FAST, &[("OTA_GATEWAY_UNACKED_ALERT_MINUTES", "45")], None).await;
    wait_gauge(&other, 1.0, "a gateway started after").await;
    wait_gauge(&gw, 1.0, "the gateway that served the pull").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(crate::support::metric(&later.metrics().await, "ota_outbox_unacknowledged_bookings"), 0.0, "45 minutes");
    let listed = json(&["outbox", "history", "--unacked-after", "30"], &arg);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed:#}");
    assert_eq!(
        (listed[0]["booking_ref"].as_str(), listed[0]["supplier_id"].as_str(), listed[0]["last_outcome"].as_str()),
        (Some(internal.as_str()), Some(SUPPLIER), Some("pulled")),
        "{listed:#}"
    );
    assert!(json(&["outbox", "history", "--unacked-after", "45"], &arg).as_array().unwrap().is_empty());

    let body = post(&urls, 0, "/notifreport", &notif_report(&[(read[0].0.clone(), read[0].2.clone())])).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    wait_gauge(&gw, 0.0, "acknowledged").await;
    wait_gauge(&other, 0.0, "acknowledged, on the other gateway").await;
    assert!(json(&["outbox", "history", "--unacked-after", "30"], &arg).as_array().unwrap().is_empty());
}

/// The console's overview counts the bookings not acknowledged after the gateway's
/// `--unacked-alert-minutes` (5 here) as an alert linking to the Deliveries filter that lists
/// their events (every supplier's); nothing before the threshold, nothing once acknowledged.
async fn the_overview_alerts_on_bookings_not_acknowledged_in_time(b: Backend) {
    use crate::support::console::ConsoleServer;
    use ota_gateway::operators::Role;
    let console = ConsoleServer::start_with(b, |c| c.unacked_alert_minutes = 5).await;
    let urls = Mutex::new(vec![console.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &hotel_commit("OBX-HOME", day(62), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let read = pull(&urls).await;
    assert_eq!(read.len(), 1);
    let vic = console.login_as("vic", Role::Viewer).await;
    let home = vic.get("/").await;
    assert_eq!(home.status, 200, "{}", home.body);
    crate::console::assert_nothing_inline("overview", &home.body);
    assert!(!home.body.contains("unacked-alert"), "written just now: {}", home.body);
    assert!(home.body.contains(r#"<a href="/deliveries?unacked_after=5">0</a>"#), "{}", home.body);

    written_earlier(console.store(), 6).await;
    let home = vic.get("/").await;
    assert!(home.body.contains(r#"id="unacked-alert""#), "{}", home.body);
    assert!(
        home.body.contains("1 booking not acknowledged by their supplier 5 minutes after the booking change (1 event)"),
        "{}",
        home.body
    );
    assert!(home.body.contains(r#"<a id="unacked-link" href="/deliveries?unacked_after=5">"#), "{}", home.body);
    let listed = vic.get("/deliveries?unacked_after=5").await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    crate::console::assert_nothing_inline("deliveries", &listed.body);
    assert!(listed.body.contains(r#"id="every-supplier""#) && listed.body.contains(&read[0].0), "{}", listed.body);
    assert!(listed.body.contains(&format!("<td>{SUPPLIER}</td>")), "{}", listed.body);

    let body = post(&urls, 0, "/notifreport", &notif_report(&[(read[0].0.clone(), read[0].2.clone())])).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    let home = vic.get("/").await;
    assert!(!home.body.contains("unacked-alert"), "acknowledged: {}", home.body);
    assert!(home.body.contains(r#"<a href="/deliveries?unacked_after=5">0</a>"#), "{}", home.body);
    assert!(vic.get("/deliveries?unacked_after=5").await.body.contains("No delivery matches."));
}

/// The migration that lets an attempt be kept from its start (SQLite makes `outbox_attempt`
/// again to allow the new outcome) keeps every attempt of before, with its id; the ids go on
/// after them; a row begun and never completed is shown as interrupted.
async fn the_attempts_of_before_are_kept_by_the_migration(b: Backend) {
    use ota_gateway::outbox::repo;
    use ota_gateway::store::migrate::Plan;
    use ota_gateway::store::{Scalar, StoreError};
    let db = TestDb::new(b).await;
    let all =
        Store::migrate(&db.location, &Plan { apply: false, require_current: false, ..Plan::START }).await.unwrap();
    let mine = all.pending.iter().find(|m| m.file.contains("outbox_attempt_started")).unwrap().number;
    let store = Store::open_with(&db.location, &Plan { to: Some(mine - 1), ..Plan::START }).await.unwrap();
    let (event, old) = store
        .write_now(|c| {
            Box::pin(async move {
                let Scalar(event): Scalar<i64> = c
                    .query_one(
                        "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                         VALUES ('hotel', 'MIG-1', 'HTL00042', 1, 'SUP-DEMO', 'new', 1, 1, 1, 1) RETURNING id",
                        &[],
                    )
                    .await?;
                let mut old = Vec::new();
                for outcome in ["failed", "delivered"] {
                    let Scalar(id): Scalar<i64> = c
                        .query_one(
                            "INSERT INTO outbox_attempt (event_id, outcome, at, gateway, url, http_status, answer, retransmission)
                             VALUES ($1, $2, 5, 'gw', 'http://pms/n', 200, 'ok', false) RETURNING id",
                            &[&event, &outcome],
                        )
                        .await?;
                    old.push(id);
                }
                Ok::<_, StoreError>((event, old))
            })
        })
        .await
        .unwrap();
    drop(store);
    let store = db.open().await;
    let begun = repo::events::NewAttempt { event_id: event, at: 50, gateway: "gw2".into(), ..Default::default() };
    let id =
        store.write_now(move |c| Box::pin(async move { repo::events::start_attempt(c, &begun).await })).await.unwrap();
    assert!(id > old[1], "{id} {old:?}");
    let kept = store
        .read(move |c| {
            Box::pin(async move { repo::history::attempts_of(c, event, ota_gateway::outbox::deliver::now_ms()).await })
        })
        .await
        .unwrap();
    let shown: Vec<(i64, &str, Option<i64>)> = kept.iter().map(|a| (a.id, a.outcome.as_str(), a.http_status)).collect();
    assert_eq!(shown, [(old[0], "failed", Some(200)), (old[1], "delivered", Some(200)), (id, "interrupted", None)]);
    assert!(kept[0].body.is_none() && !kept[0].body_masked && kept[0].answer.as_deref() == Some("ok"));
    let Scalar(n): Scalar<i64> = store
        .read(|c| Box::pin(async move { c.query_one("SELECT count(*) FROM outbox_attempt", &[]).await }))
        .await
        .unwrap();
    assert_eq!(n, 3);
}

/// `outbox history REF` (the console's deliveries by booking) finds the events of the bookings
/// whose Internal or Client reference is REF, of either kind: a Client reference two bookings
/// share (a hotel and an activity booking) gives both bookings' events, oldest first; an
/// Internal reference its booking's only (another kind's event naming it too); a reference of
/// nothing an error; a hotel booking without events an empty list.
async fn a_bookings_events_are_found_by_either_reference_of_either_kind(b: Backend) {
    let db = TestDb::new(b).await;
    let store = db.open().await;
    let owner = ota_gateway::requestors::admin::NewRequestor {
        id: "OWNER".into(),
        id_context: "TEST".into(),
        name: "Owner".into(),
        password: "owner-password-0123456789".into(),
        active: true,
        allow: Vec::new(),
        dialect: ota_messages::Dialect::Service,
        role: ota_gateway::shared::context::Role::Distributor,
    };
    ota_gateway::requestors::admin::add(&store, &ota_gateway::audit::Actor::cli(), owner).await.unwrap();
    store
        .write_now(|c| {
            Box::pin(async move {
                for (internal, client) in [("HB-1", "SHARED"), ("HB-2", "HB-2-CL"), ("HB-3", "NO-EVENTS")] {
                    c.execute(
                        "INSERT INTO hotel_booking (internal_ref, client_ref, requestor_id, status, created_at, updated_at, currency, total, arrival, departure, revision)
                         VALUES ($1, $2, 'OWNER', 'Reserved', '2026-01-02 00:00:00', '2026-01-02 00:00:00', 'EUR', '10', '2030-05-01', '2030-05-02', 1)",
                        &[&internal, &client],
                    )
                    .await?;
                }
                c.execute(
                    "INSERT INTO activity_booking (reference, client_reference, requestor_id, activity_id, product_code, service_code, service_date,
                                                   start_at, end_at, status, total, currency, created_at, updated_at)
                     VALUES ('ACT-1', 'SHARED', 'OWNER', 'A-SPEED', 'P1', 'TIC', '2030-05-01', '2030-05-01 10:00:00', '2030-05-01 11:00:00',
                             'Reserved', '59', 'EUR', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z')",
                    &[],
                )
                .await?;
                // Events, in this order: HB-1's first, ACT-1's, HB-2's, an activity event naming
                // "HB-1" (another kind's booking of that reference), HB-1's second.
                for (kind, reference, seq) in
                    [("hotel", "HB-1", 1), ("activity", "ACT-1", 1), ("hotel", "HB-2", 1), ("activity", "HB-1", 1), ("hotel", "HB-1", 2)]
                {
                    c.execute(
                        "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                         VALUES ($1, $2, 'HTL00042', $3, 'SUP', 'new', $3, 1, 1, 1)",
                        &[&kind, &reference, &(seq as i64)],
                    )
                    .await?;
                }
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();
    let found = |reference: &'static str| {
        let store = store.clone();
        async move {
            ota_gateway::outbox::admin::history(&store, reference).await.map(|events| {
                events
                    .iter()
                    .map(|e| format!("{} {} {}", e.event.booking_kind, e.event.booking_ref, e.event.seq))
                    .collect::<Vec<_>>()
            })
        }
    };
    assert_eq!(found("SHARED").await.unwrap(), ["hotel HB-1 1", "activity ACT-1 1", "hotel HB-1 2"]);
    assert_eq!(found("HB-1").await.unwrap(), ["hotel HB-1 1", "activity HB-1 1", "hotel HB-1 2"]);
    assert_eq!(found("ACT-1").await.unwrap(), ["activity ACT-1 1"]);
    assert_eq!(found("HB-2-CL").await.unwrap(), ["hotel HB-2 1"]);
    assert_eq!(found("HB-2").await.unwrap(), ["hotel HB-2 1"]);
    assert!(found("NO-EVENTS").await.unwrap().is_empty());
    assert!(found("NOTHING").await.is_err());
}

backend_tests!(
    the_attempts_of_before_are_kept_by_the_migration,
    a_killed_attempt_is_kept_as_interrupted_and_the_next_gateway_delivers,
    the_notification_sent_is_kept_masked_and_shown_as_text,
    bookings_not_acknowledged_in_time_are_in_the_gauge_of_every_gateway,
    the_overview_alerts_on_bookings_not_acknowledged_in_time,
    a_resend_during_a_delivery_asks_for_another_attempt,
    keeping_an_attempt_costs_one_row_in_the_same_commit,
    the_console_shows_deliveries_and_resends_for_admins_only,
    a_failed_then_delivered_push_is_kept_attempt_by_attempt,
    a_resend_reaches_the_receiver_again_as_a_retransmission,
    unacked_after_lists_an_unacknowledged_pull_event_only,
    a_hostile_answer_is_kept_bounded_and_shown_escaped,
    a_bookings_events_are_found_by_either_reference_of_either_kind
);
