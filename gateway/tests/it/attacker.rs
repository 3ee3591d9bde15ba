//! Attacks found by a hostile-client review, each held now: parser bombs before login, log
//! forging, attacker-sized ids, text XML cannot carry in imports, a deleted SQLite file,
//! `X-Forwarded-For` with ports, `/metrics` for strangers, overflowing amounts, held uploads,
//! and a commit whose outcome is lost. Each against a real gateway (a process, or a server on a
//! socket) over HTTP, on both backends where the store is involved.

use std::net::IpAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRs;
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use reqwest::StatusCode;

use crate::support::{
    self, Backend, DEMO, GatewayProcess, TestDb, TestServer, backend_tests, client_from, commit_xml, day,
};

const XML: &str = "application/xml";

/// The CPU time a process has used (user + system), from `/proc/PID/stat`.
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // The fields after the command name (which may hold spaces) start after its `)`.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("a stat line").1.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // The kernel's USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

/// A hotel NBC request whose root carries `attributes` (before the POS is ever looked at).
fn nbc_with_root_attributes(attributes: &str) -> String {
    nbc(("NOBODY", "X", "x")).replacen(
        "<OTA_HotelDescriptiveInfoRQ ",
        &format!("<OTA_HotelDescriptiveInfoRQ {attributes} "),
        1,
    )
}

/// The normal request of these tests: a partner's hotel NBC of a demo hotel, a success.
async fn nbc_answers(client: &ota_gateway::Client) -> Duration {
    let started = Instant::now();
    let (status, _, body) = client.send_raw("/hotelnbc", nbc(DEMO), XML).await.expect("an answer");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(OtaHotelDescriptiveInfoRs::from_xml(&body).expect("an NBC answer").is_success(), "{body}");
    started.elapsed()
}

/// A hotel NBC request of the demo hotel HTL00042 with these credentials.
fn nbc(credentials: (&str, &str, &str)) -> String {
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1"><POS><Source><RequestorID Type="22" ID="{}" ID_Context="{}"/></Source><Source><RequestorID Type="88" ID="{}" MessagePassword="{}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#,
        credentials.0, credentials.1, credentials.0, credentials.2
    )
}

/// An anonymous 1 MiB body of 100,000 attributes on one element, and one of 65,780 namespace
/// declarations: each refused (400, not well-formed for this service) for well under a second of
/// the gateway's CPU, while a partner's request is answered within a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parser_bombs_cost_little_and_delay_nobody() {
    let db = TestDb::new(Backend::Sqlite).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    // Each just under the 1 MiB body limit.
    let attributes: String = (0..90_000).map(|i| format!("a{i}=\"\" ")).collect();
    let namespaces: String = (0..55_000).map(|i| format!("xmlns:p{i}=\"u\" ")).collect();
    for (what, body) in
        [("attributes", nbc_with_root_attributes(&attributes)), ("namespaces", nbc_with_root_attributes(&namespaces))]
    {
        let before = cpu(gw.pid());
        let client = gw.client();
        let bombs = (0..2).map(|_| {
            let (client, body) = (client.clone(), body.clone());
            tokio::spawn(async move { client.send_raw("/hotelnbc", body, XML).await.expect("an answer to the bomb") })
        });
        let bombs: Vec<_> = bombs.collect();
        let partner = nbc_answers(&gw.client()).await;
        for bomb in bombs {
            let (status, _, text) = bomb.await.expect("the bomb's task");
            assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
            assert!(text.contains("more than"), "{what}: the answer names the bound: {text}");
        }
        let spent = cpu(gw.pid()) - before;
        println!(
            "{what}: two bombs of {} KiB and one partner request cost {spent:?} of CPU; the partner waited {partner:?}",
            body.len() / 1024
        );
        assert!(spent < Duration::from_secs(1), "{what}: {spent:?} of CPU");
        assert!(partner < Duration::from_secs(1), "{what}: a partner waited {partner:?}");
    }
}

/// The same bomb while a partner's errors are logged (issue 28, H1): the log's capture reads a
/// failed request for the partner it names, and parsed it without the decoder's bounds on the
/// request's own task. Anonymous and naming the logged partner, two at a time, 30,000
/// attributes each (in a debug build the unbounded parse took seconds of CPU per bomb): refused
/// for well under a second of CPU in all, the partner answered within a second, nothing stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parser_bombs_cost_little_with_the_log_on() {
    let db = TestDb::new(Backend::Sqlite).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    let (code, _, err) = support::cli(&["requestor", "set", "DEMO", "--log", "errors", "--db", &db.arg()], "");
    assert_eq!(code, 0, "{err}");
    // The gateway sees a requestor change within 250 ms; a failed request of DEMO is then logged.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let attributes: String = (0..30_000).map(|i| format!("a{i}=\"\" ")).collect();
    let named =
        nbc(DEMO).replacen("<OTA_HotelDescriptiveInfoRQ ", &format!("<OTA_HotelDescriptiveInfoRQ {attributes} "), 1);
    for (what, body) in [("anonymous", nbc_with_root_attributes(&attributes)), ("naming the logged partner", named)] {
        let before = cpu(gw.pid());
        let client = gw.client();
        let bombs: Vec<_> = (0..2)
            .map(|_| {
                let (client, body) = (client.clone(), body.clone());
                tokio::spawn(async move { client.send_raw("/hotelnbc", body, XML).await.expect("an answer") })
            })
            .collect();
        let partner = nbc_answers(&gw.client()).await;
        for bomb in bombs {
            let (status, _, text) = bomb.await.expect("the bomb's task");
            assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
        }
        let spent = cpu(gw.pid()) - before;
        println!(
            "log on, {what}: two bombs of {} KiB and one partner request cost {spent:?} of CPU; the partner waited {partner:?}",
            body.len() / 1024
        );
        assert!(spent < Duration::from_secs(1), "{what}: {spent:?} of CPU");
        assert!(partner < Duration::from_secs(1), "{what}: a partner waited {partner:?}");
    }
    // A failed request of DEMO within the bounds is logged: the log was on all along.
    let bad = nbc(DEMO).replace(r#"Version="2009.1""#, r#"Version="1.0""#);
    gw.client().send_raw("/hotelnbc", bad, XML).await.expect("an answer");
    let store = db.open().await;
    let started = Instant::now();
    while support::count(&store, "txlog_entry").await == 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "the failed request was not logged");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(support::count(&store, "txlog_entry").await, 1, "no bomb stored");
}

/// A requestor id with line breaks, C1 controls, separators and a fake log line in it reaches
/// the text and the JSON log escaped: no line of either log starts anywhere but at a record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_cannot_forge_log_lines() {
    for format in ["text", "json"] {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("gateway.log");
        let db = TestDb::new(Backend::Sqlite).await;
        let gw =
            GatewayProcess::start_with(&db.arg(), &["--log-format", format], &[("RUST_LOG", "info")], Some(&log)).await;
        for id in [
            "X&#10;12:00:00Z ERROR forged",
            "X&#13;&#10;ERROR forged",
            "X&#x85;ERROR forged",
            "X&#x2028;ERROR forged",
            "X&#x9;&#x7f;ERROR forged",
        ] {
            let body = nbc((id, "DEMO-DIST", "wrong"));
            let (status, _, text) = gw.client().send_raw("/hotelnbc", body, XML).await.unwrap();
            assert_eq!(status, StatusCode::OK);
            assert!(text.contains("Authentication failed"), "{text}");
        }
        drop(gw);
        let written = std::fs::read_to_string(&log).unwrap();
        assert!(written.contains("authentication failed"), "the failures were logged:\n{written}");
        for line in written.lines() {
            assert!(
                !line.contains("ERROR forged") || line.contains("\\u{"),
                "{format}: an unescaped forged line: {line:?}"
            );
            assert!(!line.contains(['\u{85}', '\u{2028}', '\u{7f}']), "{format}: a raw control or separator: {line:?}");
            if format == "json" {
                assert!(line.starts_with('{'), "every JSON log line is a record: {line:?}");
            } else {
                assert!(
                    line.starts_with("20") || line.starts_with(' ') || line.is_empty(),
                    "every text log line is a record: {line:?}"
                );
            }
        }
    }
}

/// 400 failed logins with quarter-megabyte ids from 40 addresses: the gateway keeps none of the
/// ids (they are refused by the spec's 32-character bound before the throttle sees them): its
/// memory after the first rounds (the transient peak of 40 bodies at once) grows no further,
/// and the log grows by a bounded line per attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attacker_sized_ids_cost_no_memory_and_little_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gateway.log");
    let db = TestDb::new(Backend::Sqlite).await;
    let gw = GatewayProcess::start_with(&db.arg(), &[], &[("RUST_LOG", "info")], Some(&log)).await;
    nbc_answers(&gw.client()).await;
    let rss_start = gw.rss_mib();
    let log_before = std::fs::metadata(&log).unwrap().len();
    // Twice in a request (both sources), under the 1 MiB body limit.
    let huge = "Z".repeat(256 * 1024);
    let mut rss_warm = 0.0;
    for round in 0..10u8 {
        let mut sends = Vec::new();
        for a in 0..40u8 {
            let client = client_from(&gw.url, IpAddr::from([127, 0, 1 + round, 1 + a]));
            let body = nbc((&format!("{huge}{a}"), "DEMO-DIST", "wrong"));
            sends.push(tokio::spawn(async move { client.send_raw("/hotelnbc", body, XML).await.unwrap() }));
        }
        for s in sends {
            let (status, _, text) = s.await.unwrap();
            assert_eq!(status, StatusCode::OK);
            assert!(text.contains("Authentication failed"), "{}", &text[..text.len().min(300)]);
        }
        if round == 1 {
            rss_warm = gw.rss_mib();
        }
    }
    let rss_end = gw.rss_mib();
    let logged = std::fs::metadata(&log).unwrap().len() - log_before;
    println!(
        "400 logins with 256 KiB ids from 40 addresses: resident memory {rss_start:.1} MiB → {rss_warm:.1} after 80 → {rss_end:.1} after 400; log +{logged} bytes ({} per attempt)",
        logged / 400
    );
    // 40 bodies of 512 KiB at once make a transient peak (about 90 MiB in a debug build, flat
    // over 1,200 attempts when measured); kept ids would add 200 MiB here.
    assert!(rss_end - rss_start < 64.0, "resident memory grew {:.1} MiB", rss_end - rss_start);
    assert!(logged < 400 * 1024, "the log grew {logged} bytes");
    // The demo partner is not locked out by any of it.
    nbc_answers(&gw.client()).await;
}

/// An import with text XML cannot carry (U+0000, U+0001, U+FFFE in a hotel name) is refused
/// whole, naming where; so is `[]`, and an amount over the largest.
async fn imports_refuse_what_answers_cannot_carry(b: Backend) {
    let db = TestDb::new(b).await;
    let dir = tempfile::tempdir().unwrap();
    let cases = [("\\u0000", "U+0000"), ("\\u0001", "U+0001"), ("\\ufffe", "U+FFFE")];
    for (escape, shown) in cases {
        let file = dir.path().join("bad.json");
        let hotels =
            ota_gateway::hotels::import::DEMO.replacen("\"name\": \"", &format!("\"name\": \"Bad {escape} "), 1);
        std::fs::write(&file, format!("{{\"hotels\": {hotels}}}")).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
            .args(["import", "--db", &db.arg()])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{shown} was imported");
        assert!(err.contains(shown) && err.contains("XML cannot carry"), "{err}");
    }
    let hotels = ota_gateway::hotels::import::DEMO;
    for (body, says) in [
        ("[]".to_string(), "one JSON object"),
        (
            format!(
                "{{\"hotels\": {}}}",
                hotels.replacen("\"SC\": \"80.00\"", "\"SC\": \"79228162514264337593543950335\"", 1)
            ),
            "over the largest amount",
        ),
        (
            format!("{{\"hotels\": {}}}", hotels.replacen("\"SC\": \"80.00\"", "\"SC\": \"80.005\"", 1)),
            "finer than the currency",
        ),
    ] {
        let file = dir.path().join("bad.json");
        std::fs::write(&file, &body).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
            .args(["import", "--db", &db.arg()])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{says}: imported");
        assert!(err.contains(says), "{says}: {err}");
    }
}

/// The SQLite file deleted while serving: within 5 s the health check answers 503 and a
/// Commit is refused with a clean answer (nothing acknowledged that would be lost).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_database_file_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gw.db");
    let gw = GatewayProcess::start(&path.display().to_string(), &[]).await;
    nbc_answers(&gw.client()).await;
    for f in ["gw.db", "gw.db-wal", "gw.db-shm"] {
        let _ = std::fs::remove_file(dir.path().join(f));
    }
    let started = Instant::now();
    loop {
        let status = reqwest::get(format!("{}/healthz", gw.url)).await.unwrap().status();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "health still {status} after {:?}", started.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("a deleted database file noticed after {:?}", started.elapsed());
    let (status, _, body) =
        gw.client().send_raw("/activitybook", commit_xml("DELETED-1", day(7), 2), XML).await.unwrap();
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert!(!rs.is_success(), "a Commit was acknowledged into a deleted file ({status}): {body}");
    assert!(!Path::new(&path).exists(), "nothing recreated the file");
}

/// Behind a trusted proxy that writes `ip:port`, an attacker's failures lock the attacker's
/// address, not the proxy's: another client behind the same proxy still logs in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_addresses_with_ports_are_clients_of_their_own() {
    let server = TestServer::start_with(Backend::Sqlite, |c| {
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        c.throttle.address_failures = 3;
        c.throttle.requestor_failures = 0;
    })
    .await;
    let http = reqwest::Client::new();
    let send = |from: &'static str, password: &'static str| {
        let http = http.clone();
        let url = format!("{}/hotelnbc", server.url());
        async move {
            let body = nbc(("DEMO", "DEMO-DIST", password));
            let res = http
                .post(url)
                .header("content-type", XML)
                .header("x-forwarded-for", from)
                .body(body)
                .send()
                .await
                .unwrap();
            res.text().await.unwrap()
        }
    };
    for _ in 0..11 {
        assert!(send("198.51.100.7:51234", "wrong").await.contains("Authentication failed"));
    }
    let other = send("[2001:db8::9]:443", DEMO.2).await;
    assert!(OtaHotelDescriptiveInfoRs::from_xml(&other).unwrap().is_success(), "another client is locked out: {other}");
}

/// `/metrics` on the gateway's own address: 200 to a client on this machine, 404 to a client
/// forwarded from elsewhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_for_this_machine_only() {
    let server =
        TestServer::start_with(Backend::Sqlite, |c| c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    let http = reqwest::Client::new();
    let url = format!("{}/metrics", server.url());
    assert_eq!(http.get(&url).send().await.unwrap().status(), StatusCode::OK);
    let res = http.get(&url).header("x-forwarded-for", "203.0.113.5").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

/// 100 uploads of 1 MiB held open just short of their end: the bodies being read share 16 MiB,
/// so the gateway's memory grows by about that, not by 100 MiB, and gives it back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_uploads_share_a_bounded_memory() {
    use tokio::io::AsyncWriteExt;
    let db = TestDb::new(Backend::Sqlite).await;
    let gw = GatewayProcess::start(&db.arg(), &["--body-memory", "16MiB"]).await;
    nbc_answers(&gw.client()).await;
    let before = gw.rss_mib();
    let addr = gw.url.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    let chunk = vec![b' '; 1024 * 1024 - 1];
    for _ in 0..100 {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
            1024 * 1024
        );
        s.write_all(head.as_bytes()).await.unwrap();
        // As much as the socket takes now; the rest waits in the kernel or here.
        let _ = tokio::time::timeout(Duration::from_millis(20), s.write_all(&chunk)).await;
        held.push(s);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let peak = gw.rss_mib();
    // A partner is still served (its small body fits beside the held ones... or waits for room).
    nbc_answers(&gw.client()).await;
    drop(held);
    println!("100 held 1 MiB uploads with --body-memory 16MiB: resident memory {before:.0} → {peak:.0} MiB");
    assert!(peak - before < 48.0, "resident memory grew {:.0} MiB", peak - before);
}

/// 70 anonymous connections that declare a 1 MiB body and send nothing (issue 28, H2): they
/// reserved the whole 64 MiB for bodies, first come first served, so a partner's 1 KiB request
/// waited for their 30 s time-out. The room is taken for bytes received: a partner's requests
/// beside them are answered at once, and the holders are answered 408 after the body read
/// time-out (10 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_uploads_that_send_nothing_delay_nobody() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let db = TestDb::new(Backend::Sqlite).await;
    let gw = GatewayProcess::start(&db.arg(), &["--body-read-timeout", "3s"]).await;
    nbc_answers(&gw.client()).await;
    let addr = gw.url.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    for _ in 0..70 {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
            1024 * 1024
        );
        s.write_all(head.as_bytes()).await.unwrap();
        held.push(s);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut waits = Vec::new();
    for _ in 0..5 {
        let waited = tokio::time::timeout(Duration::from_secs(5), nbc_answers(&gw.client())).await;
        waits.push(waited.unwrap_or(Duration::from_secs(5)));
    }
    let worst = waits.iter().max().copied().unwrap_or_default();
    println!("a partner's 5 requests beside 70 held uploads of 1 MiB: worst {worst:?} ({waits:?})");
    assert!(worst < Duration::from_secs(1), "a partner waited {worst:?}");
    // The holders are answered 408 at the body read time-out.
    let mut answer = vec![0u8; 512];
    let started = Instant::now();
    let n = tokio::time::timeout(Duration::from_secs(10), held[0].read(&mut answer)).await.unwrap().unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    println!("a holder answered 408 {:?} after the partner's requests", started.elapsed());
}

/// A TCP proxy to PostgreSQL that, once armed, lets a write transaction's `COMMIT` through and
/// then cuts the connection before the answer comes back: the commit happens, the gateway never
/// hears of it (what a proxy or network failure does).
struct CommitEater {
    addr: std::net::SocketAddr,
    armed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    eaten: std::sync::Arc<std::sync::atomic::AtomicU32>,
}

impl CommitEater {
    async fn start(upstream: std::net::SocketAddr) -> CommitEater {
        use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let armed = std::sync::Arc::new(AtomicBool::new(false));
        let eaten = std::sync::Arc::new(AtomicU32::new(0));
        let (armed2, eaten2) = (armed.clone(), eaten.clone());
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = tokio::net::TcpStream::connect(upstream).await else { continue };
                let (armed, eaten) = (armed2.clone(), eaten2.clone());
                tokio::spawn(async move {
                    let (mut cr, mut cw) = client.into_split();
                    let (mut sr, mut sw) = server.into_split();
                    let (cut, mut cut_seen) = tokio::sync::watch::channel(false);
                    let mut down = tokio::spawn(async move {
                        let mut buf = vec![0u8; 64 * 1024];
                        loop {
                            tokio::select! {
                                _ = cut_seen.changed() => return,
                                n = sr.read(&mut buf) => match n {
                                    Ok(0) | Err(_) => return,
                                    Ok(n) => if cw.write_all(&buf[..n]).await.is_err() { return },
                                },
                            }
                        }
                    });
                    let mut buf = vec![0u8; 64 * 1024];
                    let mut in_write = false;
                    loop {
                        let n = match cr.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        let chunk = &buf[..n];
                        let has = |w: &[u8]| chunk.windows(w.len()).any(|x| x == w);
                        // A request's write sets its lock timeout (the gateway's own background
                        // writes have no deadline, so none).
                        if has(b"lock_timeout") {
                            in_write = true;
                        }
                        // The simple-query messages themselves ('Q', length, text), not the words
                        // inside a statement's parameters.
                        let commit = has(b"Q\0\0\0\x0bCOMMIT\0");
                        if in_write && commit && armed.load(Ordering::SeqCst) {
                            // Counted first: the gateway may answer as soon as it is cut off.
                            eaten.fetch_add(1, Ordering::SeqCst);
                            // Nothing more reaches the gateway; then the server gets the commit
                            // and is given time to carry it out before the connection goes.
                            let _ = cut.send(true);
                            let _ = (&mut down).await;
                            let _ = sw.write_all(chunk).await;
                            tokio::time::sleep(Duration::from_millis(300)).await;
                            break;
                        }
                        if sw.write_all(chunk).await.is_err() {
                            break;
                        }
                        if commit || has(b"Q\0\0\0\x0dROLLBACK\0") {
                            in_write = false;
                        }
                    }
                    down.abort();
                });
            }
        });
        CommitEater { addr, armed, eaten }
    }
}

/// On PostgreSQL, a Commit whose COMMIT reaches the database but whose answer is lost is stored;
/// its answer says the outcome is not known (Status `Unknown`), never "not processed", and the
/// read right after finds the booking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_commit_answer_is_in_doubt_never_not_processed() {
    use std::sync::atomic::Ordering;
    let db = TestDb::new(Backend::Postgres).await;
    let url = db.arg();
    let upstream: std::net::SocketAddr = {
        let host_port = url.split('@').nth(1).and_then(|r| r.split('/').next()).expect("host:port in the URL");
        tokio::net::lookup_host(host_port).await.unwrap().next().unwrap()
    };
    let eater = CommitEater::start(upstream).await;
    let proxied = url.replacen(&upstream.to_string(), &eater.addr.to_string(), 1).replacen(
        &format!("localhost:{}", upstream.port()),
        &eater.addr.to_string(),
        1,
    );
    // Unnamed statements, so that each carries its text (the proxy tells a request's write by its
    // lock timeout's statement; a prepared one's text goes once per connection only). What an
    // unknown commit outcome is answered does not depend on how statements are sent.
    let proxied = format!("{proxied}{}statement_cache=off", if proxied.contains('?') { '&' } else { '?' });
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gateway.log");
    let gw = GatewayProcess::start_with(&proxied, &[], &[("RUST_LOG", "info")], Some(&log)).await;
    eater.armed.store(true, Ordering::SeqCst);
    let (status, _, body) =
        gw.client().send_raw("/activitybook", commit_xml("LOST-COMMIT-1", day(7), 2), XML).await.unwrap();
    eater.armed.store(false, Ordering::SeqCst);
    let logged = || std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(eater.eaten.load(Ordering::SeqCst), 1, "the proxy cut one commit ({status}): {body}\n{}", logged());
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let errors = rs.errors().unwrap_or_else(|| panic!("an in-doubt Commit answered as a success: {body}"));
    assert!(body.contains("Status=\"Unknown\""), "{body}");
    assert!(!body.contains("NotProcessed"), "an in-doubt Commit said not processed: {body}");
    assert!(errors.error[0].value.contains("may have been stored"), "{body}");
    // The booking is stored: the database says so.
    let stored = support::count(&db.open().await, "activity_booking").await;
    assert!(stored >= 1, "the commit that reached the database is stored");
}

/// A hotel Quote naming 15,000 guests (750 KiB) is refused for its number before any guest is
/// read: it cost 172 ms when every guest was compared with every other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_of_thousands_of_guests_is_refused_at_once() {
    let server = TestServer::start(Backend::Sqlite).await;
    let sample = support::sample("hotel_res");
    let (start, end) = (sample.find("<ResGuests>").unwrap(), sample.find("</ResGuests>").unwrap());
    let guests: String =
        (1..=15_000).map(|i| format!(r#"<ResGuest ResGuestRPH="{i}" AgeQualifyingCode="10"/>"#)).collect();
    let body = format!("{}<ResGuests>{guests}{}", &sample[..start], &sample[end..])
        .replace(r#"ResStatus="Commit""#, r#"ResStatus="Quote""#);
    let started = Instant::now();
    let (status, _, text) = server.client().send_raw("/hotelbook", body, XML).await.unwrap();
    let took = started.elapsed();
    assert_eq!(status, StatusCode::OK, "{}", &text[..text.len().min(500)]);
    assert!(text.contains("at most 99 guests"), "{}", &text[..text.len().min(500)]);
    println!("a Quote of 15,000 guests refused in {took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// An import may neither give a booking to another requestor nor give a hotel booking the
/// Internal reference of a live activity booking (a read or cancel by that reference would find
/// the wrong one): both refused, naming the booking.
async fn imports_neither_re_own_nor_shadow_bookings(b: Backend) {
    let server = TestServer::start(b).await;
    let (_, _, body) =
        server.client().send_raw("/activitybook", commit_xml("SHADOWED-1", day(9), 1), XML).await.unwrap();
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap();
    assert!(rs.is_success(), "{body}");
    let internal = body
        .split("ID_Context=\"Internal\"")
        .next()
        .and_then(|b| b.rsplit("ID=\"").next())
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    assert!(internal.starts_with("ACT-"), "{internal}");

    let demo: serde_json::Value = serde_json::from_str(ota_gateway::hotels::import::DEMO).unwrap();
    let first = demo["bookings"][0].clone();
    let import = |booking: serde_json::Value| {
        let file = serde_json::json!({ "hotels": { "boards": demo["boards"], "hotels": [], "bookings": [booking] } });
        let store = server.store().clone();
        async move {
            let parsed: ota_gateway::import::ImportFile = serde_json::from_value(file).unwrap();
            ota_gateway::import::import(&store, parsed).await.map(|_| ()).map_err(|e| e.to_string())
        }
    };
    let mut re_owned = first.clone();
    re_owned["owner"] = "PARTNER2".into();
    let e = import(re_owned).await.unwrap_err();
    assert!(e.contains("\"4471200\"") && e.contains("is \"DEMO\"'s"), "{e}");
    let mut shadowing = first.clone();
    shadowing["internal_ref"] = internal.clone().into();
    shadowing["client_ref"] = "SHADOW-CLIENT".into();
    let e = import(shadowing).await.unwrap_err();
    assert!(e.contains(&internal) && e.contains("an activity booking's"), "{e}");
    // The same booking again, as its owner: accepted.
    import(first).await.unwrap();
}

backend_tests!(imports_refuse_what_answers_cannot_carry, imports_neither_re_own_nor_shadow_bookings);

/// Dates and times are the hotel's: at 23:30 UTC on 30 June it is already 1 July in Mallorca
/// (the demo hotels' zone), so a stay arriving on 30 June has started there and one arriving on
/// 1 July arrives today; an activity session that began 30 minutes ago (local) is not booked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn today_is_the_hotels_and_the_activitys() {
    use chrono::TimeZone;
    use ota_messages::hotel_res::OtaHotelResRq;
    let env = support::TestGateway::start(Backend::Sqlite).await;
    let mut call = env.ctx();
    call.cx.now = chrono::Utc.with_ymd_and_hms(2030, 6, 30, 23, 30, 0).unwrap();
    let quote = |arrive: &str, leave: &str| {
        let xml = support::sample("hotel_res")
            .replace(r#"ResStatus="Commit""#, r#"ResStatus="Quote""#)
            .replace("2025-07-01", arrive)
            .replace("2025-07-04", leave);
        OtaHotelResRq::from_xml(&xml).unwrap()
    };
    // (The spec's sample names a room type the demo hotel lacks: only the date problems count.)
    let date_problems = |rs: &ota_messages::hotel_res::OtaHotelResRs| -> Vec<String> {
        rs.errors()
            .map(|e| {
                e.error
                    .iter()
                    .filter(|e| e.tag.as_deref().is_some_and(|t| t.contains("TimeSpan")))
                    .map(|e| e.value.clone())
                    .collect()
            })
            .unwrap_or_default()
    };
    let rs = support::answer(ota_gateway::hotels::book(&call, &call.hotels, &quote("2030-06-30", "2030-07-03")).await);
    let problems = date_problems(&rs);
    assert!(
        problems.iter().any(|p| p.contains("2030-06-30")),
        "arrival yesterday at the hotel is refused: {problems:?}"
    );
    let rs = support::answer(ota_gateway::hotels::book(&call, &call.hotels, &quote("2030-07-01", "2030-07-04")).await);
    assert_eq!(date_problems(&rs), Vec::<String>::new(), "arrival today at the hotel");

    // 10:30 in Mallorca: the caves' 10:00 session (today, there) has begun.
    let madrid = chrono_tz::Europe::Madrid;
    let today = chrono::Utc::now().with_timezone(&madrid).date_naive();
    call.cx.now =
        madrid.from_local_datetime(&today.and_hms_opt(10, 30, 0).unwrap()).unwrap().with_timezone(&chrono::Utc);
    let xml = commit_xml("LOCAL-1", today, 1)
        .replace(r#"ResStatus="Commit""#, r#"ResStatus="Quote""#)
        .replace("T00:00:00", "T10:00:00")
        .replace("T23:59:59", "T11:15:00");
    let rq = ota_messages::tour_activity_book::OtaTourActivityBookRq::from_xml(&xml).unwrap();
    let rs = support::answer(ota_gateway::activities::book(&call, &call.activities, &rq).await);
    if let Some(errors) = rs.errors() {
        // Refused for having begun (or, on a day without the session, for that): never booked.
        assert!(!errors.error.is_empty());
    } else {
        panic!("a session that began 30 minutes ago (local) was quoted: {}", rs.to_xml().unwrap());
    }
}
