//! gzip both ways: a gzip request body is read decompressed (its expanded size under the body
//! limit: a bomb is a 413 with an OTA body, after reading at most the limit); an answer of at
//! least `COMPRESS_FROM` bytes goes out gzip to a client that accepts it, a smaller one plain;
//! a client that does not ask gets every answer plain.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use ota_messages::hotel_avail::OtaHotelAvailRs;
use ota_messages::product_descriptive_info::OtaProductDescriptiveInfoRs;
use ota_messages::runtime::{Message, Response};
use reqwest::StatusCode;

use crate::support::{Backend, TestServer, backend_tests, day, sample};

const XML: &str = "application/xml";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn gunzip(bytes: &[u8]) -> String {
    let mut out = String::new();
    GzDecoder::new(bytes).read_to_string(&mut out).unwrap();
    out
}

/// A region availability request (two rooms, many offers: an answer of tens of KB).
fn region_availability() -> String {
    sample("hotel_avail.area").replace("2025-08-10", &day(30).to_string()).replace("2025-08-17", &day(33).to_string())
}

async fn gzip_both_ways(b: Backend) {
    let server = TestServer::start(b).await;
    let http = reqwest::Client::new();
    let post = |path: &str| http.post(format!("{}{path}", server.url())).header("content-type", XML);

    // A gzip request, a plain answer to a client that does not ask for gzip.
    let body = region_availability();
    let res =
        post("/hotelavailability").header("content-encoding", "gzip").body(gzip(body.as_bytes())).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().get("content-encoding").is_none());
    // Its body was read to the end: the connection stays open for the next request.
    assert!(res.headers().get("connection").is_none());
    let plain = res.text().await.unwrap();
    assert!(OtaHotelAvailRs::from_xml(&plain).unwrap().is_success(), "{plain}");

    // The same asked with Accept-Encoding: gzip, and the same answer once decompressed.
    let res = post("/hotelavailability").header("accept-encoding", "gzip").body(body.clone()).send().await.unwrap();
    assert_eq!(res.headers().get("content-encoding").map(|v| v.to_str().unwrap()), Some("gzip"));
    let compressed = res.bytes().await.unwrap();
    let answer = gunzip(&compressed);
    let stamp = |s: &str| {
        s.split("TimeStamp=\"").nth(1).map(|r| r.split('"').next().unwrap_or_default().to_string()).unwrap_or_default()
    };
    assert_eq!(answer.replace(&stamp(&answer), ""), plain.replace(&stamp(&plain), ""));
    println!(
        "{b:?}: a region availability answer of {} bytes went out as {} gzip bytes",
        plain.len(),
        compressed.len()
    );
    assert!(compressed.len() * 4 < plain.len(), "{} → {}", plain.len(), compressed.len());

    // An answer under COMPRESS_FROM bytes stays plain, asked or not (an error answer here).
    let res = post("/activitynbc")
        .header("accept-encoding", "gzip")
        .body("<OTA_ProductDescriptiveInfoRQ/>")
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("content-encoding").is_none());
    let text = res.text().await.unwrap();
    assert!(text.len() < usize::from(ota_gateway::http::COMPRESS_FROM) && text.contains("<Errors>"), "{text}");
    // And one over it, compressed.
    let res = post("/activitynbc")
        .header("accept-encoding", "gzip")
        .body(sample("product_descriptive_info"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers().get("content-encoding").map(|v| v.to_str().unwrap()), Some("gzip"));
    let text = gunzip(&res.bytes().await.unwrap());
    assert!(text.len() >= usize::from(ota_gateway::http::COMPRESS_FROM));
    assert!(OtaProductDescriptiveInfoRs::from_xml(&text).unwrap().is_success());
}

/// A gzip body that expands past the body limit (1 MiB) is refused with 413 and an OTA body,
/// after reading no more than the limit of it; an encoding the gateway does not read is a 415.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_bomb_is_refused_for_what_it_expands_to() {
    let server = TestServer::start(Backend::Sqlite).await;
    let http = reqwest::Client::new();
    // 64 MiB of blanks inside an XML element: about 64 KiB compressed.
    let mut e = GzEncoder::new(Vec::new(), Compression::best());
    e.write_all(b"<OTA_HotelAvailRQ xmlns=\"http://www.opentravel.org/OTA/2003/05\" Version=\"2008.1\">").unwrap();
    let blanks = vec![b' '; 1 << 20];
    for _ in 0..64 {
        e.write_all(&blanks).unwrap();
    }
    let bomb = e.finish().unwrap();
    let started = Instant::now();
    let res = http
        .post(format!("{}/hotelavailability", server.url()))
        .header("content-type", XML)
        .header("content-encoding", "gzip")
        .body(bomb.clone())
        .send()
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // The rest of the bomb is never read: the client is told not to reuse the connection.
    assert_eq!(res.headers().get("connection").map(|v| v.to_str().unwrap()), Some("close"));
    let text = res.text().await.unwrap();
    assert!(text.contains("<Errors>"), "{text}");
    println!("a gzip bomb of {} KiB (64 MiB expanded) refused in {took:?}", bomb.len() / 1024);
    assert!(took < Duration::from_secs(5), "{took:?}");

    let res = http
        .post(format!("{}/hotelavailability", server.url()))
        .header("content-type", XML)
        .header("content-encoding", "compress")
        .body(region_availability())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(res.text().await.unwrap().contains("<Errors>"));
    // And the gateway goes on serving.
    let (status, _, _) =
        server.client().send_raw("/activitynbc", sample("product_descriptive_info"), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
}

backend_tests!(gzip_both_ways);
