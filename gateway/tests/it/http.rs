//! The gateway's transport over real HTTP: status codes and OTA bodies, decoding errors,
//! versions, authentication, the allow-list, echoes, request ids, logs, time-outs and graceful
//! shutdown.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::Duration;

use ota_messages::common::{ErrorCode, ErrorWarningType};
use ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRs;
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_search::OtaTourActivitySearchRs;
use reqwest::StatusCode;
use support::{Backend, DEMO, PARTNER2, TestServer, backend_tests, sample, with_credentials};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const XML: &str = "application/xml";

/// The errors of a hotel NBC answer (panics when it is a success).
fn nbc_errors(body: &str) -> Vec<ota_messages::common::Error> {
    let rs = OtaHotelDescriptiveInfoRs::from_xml(body).unwrap_or_else(|e| panic!("not an RS: {e}\n{body}"));
    rs.errors().unwrap_or_else(|| panic!("no Errors in\n{body}")).error.clone()
}

fn assert_xml(headers: &reqwest::header::HeaderMap) {
    assert_eq!(headers.get("content-type").unwrap(), XML);
}

fn redact_time_stamp(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(at) = rest.find("TimeStamp=\"") {
        let (head, tail) = rest.split_at(at + "TimeStamp=\"".len());
        out.push_str(head);
        out.push_str("[timestamp]");
        rest = &tail[tail.find('"').unwrap()..];
    }
    out.push_str(rest);
    out
}

async fn healthz_and_unknown_paths(b: Backend) {
    let server = TestServer::start(b).await;
    let http = server.client().http().clone();
    let res = http.get(format!("{}/healthz", server.url())).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.text().await.unwrap(), "ok\n");
    let res = http.post(format!("{}/nowhere", server.url())).body("x").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

async fn wrong_content_type_is_415_with_an_ota_body(b: Backend) {
    let server = TestServer::start(b).await;
    for ct in ["text/plain", "application/json", "application/xml; charset=iso-8859-1"] {
        let (status, headers, body) =
            server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), ct).await.unwrap();
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct}");
        assert_xml(&headers);
        let errors = nbc_errors(&body);
        assert_eq!(errors[0].r#type, ErrorWarningType::ProtocolViolation);
    }
    // A charset parameter is fine, and text/xml (common in OTA clients) is taken like application/xml.
    let (_, _, expected) = server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), XML).await.unwrap();
    for ct in ["application/xml; charset=UTF-8", "text/xml", "text/xml; charset=utf-8"] {
        let (status, headers, body) =
            server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), ct).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{ct}");
        assert_xml(&headers);
        assert_eq!(redact_time_stamp(&body), redact_time_stamp(&expected), "{ct}: the answer to application/xml");
    }
}

async fn other_methods_are_405_with_an_ota_body(b: Backend) {
    let server = TestServer::start(b).await;
    let res = server.client().http().get(format!("{}/activitysearch", server.url())).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(res.headers().get("allow").unwrap(), "POST");
    assert_xml(res.headers());
    let rs = OtaTourActivitySearchRs::from_xml(&res.text().await.unwrap()).unwrap();
    assert!(rs.errors().is_some());
}

async fn bodies_over_the_limit_are_413(b: Backend) {
    let server = TestServer::start_with(b, |c| c.body_limit = 2048).await;
    let big = format!("{}<!--{}-->", sample("hotel_descriptive_info"), "x".repeat(4096));
    let (status, headers, body) = server.client().send_raw("/hotelnbc", big.clone(), XML).await.unwrap();
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_xml(&headers);
    assert_eq!(
        headers.get("connection").map(|v| v.to_str().unwrap()),
        Some("close"),
        "the body was not read: the connection closes"
    );
    assert!(nbc_errors(&body)[0].value.contains("2048"));

    // Without a Content-Length (chunked), the limit holds while reading.
    let chunk = &big[..3000];
    let head = format!(
        "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        chunk.len()
    );
    let answer = raw_exchange(server.addr(), head.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("<OTA_HotelDescriptiveInfoRS"), "{answer}");

    // Under the limit is fine.
    let (status, _, _) = server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
}

async fn malformed_xml_and_foreign_roots_are_400(b: Backend) {
    let server = TestServer::start(b).await;
    let cases = [
        "<OTA_HotelDescriptiveInfoRQ xmlns=\"http://www.opentravel.org/OTA/2003/05\"".to_string(),
        "not xml at all".to_string(),
        "<!DOCTYPE x [<!ENTITY a \"b\">]><x/>".to_string(),
        "<Foo/>".to_string(),
        sample("hotel_descriptive_info").replace("http://www.opentravel.org/OTA/2003/05", "urn:other"),
        // A valid message of another operation.
        sample("tour_activity_search"),
    ];
    for body in cases {
        let (status, headers, text) = server.client().send_raw("/hotelnbc", body.clone(), XML).await.unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_xml(&headers);
        assert_eq!(nbc_errors(&text)[0].r#type, ErrorWarningType::ProtocolViolation);
    }
    // The root of /hotelnbc sent to /activitysearch: the answer is /activitysearch's RS.
    let (status, _, text) =
        server.client().send_raw("/activitysearch", sample("hotel_descriptive_info"), XML).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let rs = OtaTourActivitySearchRs::from_xml(&text).unwrap();
    let err = &rs.errors().unwrap().error[0];
    assert!(
        err.value.contains("OTA_HotelDescriptiveInfoRQ") && err.value.contains("OTA_TourActivitySearchRQ"),
        "{}",
        err.value
    );
    // Invalid UTF-8.
    let (status, _, _) = server.client().send_raw("/hotelnbc", vec![0x3c, 0xff, 0xfe, 0x3e], XML).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

async fn invalid_messages_are_200_with_errors(b: Backend) {
    let server = TestServer::start(b).await;
    // An unknown element.
    let xml = sample("hotel_descriptive_info").replace("</HotelDescriptiveInfos>", "</HotelDescriptiveInfos><Bogus/>");
    let (status, headers, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_xml(&headers);
    let rs = OtaHotelDescriptiveInfoRs::from_xml(&body).unwrap();
    assert!(!rs.is_success());
    assert_eq!(rs.echo_token.as_deref(), Some("nbc-h-5521"), "the EchoToken is echoed even here");
    let err = &rs.errors().unwrap().error[0];
    assert_eq!(err.r#type, ErrorWarningType::ProtocolViolation);
    assert_eq!(err.code, Some(ErrorCode::InvalidValue));
    assert!(err.value.contains("Bogus"), "{}", err.value);
    assert_eq!(err.tag.as_deref(), Some("/OTA_HotelDescriptiveInfoRQ"), "the element holding the unknown one");

    // A missing required attribute: Type 10, Code 321.
    let xml = sample("hotel_descriptive_info").replace(" Version=\"2009.1\"", "");
    let (status, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
    let err = &nbc_errors(&body)[0];
    assert_eq!(err.r#type, ErrorWarningType::RequiredFieldMissing);
    assert_eq!(err.code, Some(ErrorCode::RequiredFieldMissing));
    assert!(err.value.contains("Version"), "{}", err.value);

    // A value of the wrong shape.
    let xml = sample("hotel_descriptive_info")
        .replace("RetransmissionIndicator=\"false\"", "RetransmissionIndicator=\"perhaps\"");
    let (status, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(nbc_errors(&body)[0].code, Some(ErrorCode::InvalidValue));
}

async fn every_problem_of_a_request_is_one_error(b: Backend) {
    let server = TestServer::start(b).await;
    let xml = sample("hotel_descriptive_info")
        .replace("RetransmissionIndicator=\"false\"", "RetransmissionIndicator=\"perhaps\"")
        .replace(
            "<HotelDescriptiveInfo HotelCode=\"HTL00105\"/>",
            "<HotelDescriptiveInfo HotelCode=\"HTL00105\"><Bogus/></HotelDescriptiveInfo>",
        )
        .replace("</HotelDescriptiveInfos>", "</HotelDescriptiveInfos><Bogus/>");
    let (status, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
    let rs = OtaHotelDescriptiveInfoRs::from_xml(&body).unwrap();
    assert_eq!(rs.echo_token.as_deref(), Some("nbc-h-5521"));
    let errors = &rs.errors().unwrap().error;
    let got: Vec<(ErrorWarningType, Option<ErrorCode>, Option<&str>)> =
        errors.iter().map(|e| (e.r#type.clone(), e.code.clone(), e.tag.as_deref())).collect();
    assert_eq!(
        got,
        [
            (ErrorWarningType::ProtocolViolation, Some(ErrorCode::InvalidValue), Some("/OTA_HotelDescriptiveInfoRQ")),
            (
                ErrorWarningType::ProtocolViolation,
                Some(ErrorCode::InvalidValue),
                Some("/OTA_HotelDescriptiveInfoRQ/HotelDescriptiveInfos/HotelDescriptiveInfo[3]")
            ),
            (ErrorWarningType::ProtocolViolation, Some(ErrorCode::InvalidValue), Some("/OTA_HotelDescriptiveInfoRQ")),
        ],
        "{body}"
    );
    assert!(
        errors[0].value.starts_with("1:") && errors[0].value.contains("RetransmissionIndicator"),
        "{}",
        errors[0].value
    );
    assert!(errors[1].value.starts_with("9:") && errors[1].value.contains("<Bogus>"), "{}", errors[1].value);
    assert!(errors[2].value.contains("<Bogus>"), "{}", errors[2].value);
    assert!(errors.iter().all(|e| !e.value.contains("more problem")), "each text is its own problem: {body}");

    // With a problem in the POS as well, the answer is the authentication failure alone.
    let xml = sample("hotel_descriptive_info")
        .replace("RetransmissionIndicator=\"false\"", "RetransmissionIndicator=\"perhaps\"")
        .replace(" MessagePassword=\"demo-password\"", " MessagePassword=\"demo-password\" Colour=\"red\"");
    let (_, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
    let errors = nbc_errors(&body);
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0].r#type, ErrorWarningType::Authentication);
}

async fn an_error_answer_snapshot(b: Backend) {
    let server = TestServer::start(b).await;
    let xml = sample("hotel_descriptive_info").replace("</HotelDescriptiveInfos>", "</HotelDescriptiveInfos><Bogus/>");
    let (_, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
    let pretty = OtaHotelDescriptiveInfoRs::from_xml(&body).unwrap().to_xml_pretty().unwrap();
    insta::assert_snapshot!("an_error_answer_snapshot", redact_time_stamp(&pretty));
}

async fn unsupported_versions_name_the_supported_one(b: Backend) {
    let server = TestServer::start(b).await;
    let mut answers = Vec::new();
    // A version of the right form, and OTA-style decimal versions the decoder refuses: the same answer.
    for version in ["2010.1", "1.000", "4.000"] {
        let xml = sample("hotel_descriptive_info").replace("Version=\"2009.1\"", &format!("Version=\"{version}\""));
        let (status, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
        assert_eq!(status, StatusCode::OK);
        let errors = nbc_errors(&body);
        assert_eq!(errors.len(), 1, "{body}");
        let err = &errors[0];
        assert_eq!(err.r#type, ErrorWarningType::ProtocolViolation, "{version}");
        assert_eq!(err.code, Some(ErrorCode::InvalidValue), "{version}");
        assert_eq!(err.tag.as_deref(), Some("/OTA_HotelDescriptiveInfoRQ/@Version"), "{version}");
        assert_eq!(
            err.value,
            format!(
                "Version \"{version}\" is not supported for OTA_HotelDescriptiveInfoRQ; the supported version is 2009.1."
            ),
        );
        answers.push(err.value.replace(version, "V"));
    }
    answers.dedup();
    assert_eq!(answers.len(), 1, "{answers:?}");
}

async fn authentication_failures_all_look_the_same(b: Backend) {
    let server = TestServer::start(b).await;
    let good = sample("hotel_descriptive_info");
    let sources = {
        let start = good.find("<Source>").unwrap();
        let end = good.rfind("</Source>").unwrap() + "</Source>".len();
        (start, end)
    };
    let first_source = {
        let end = good.find("</Source>").unwrap() + "</Source>".len();
        good[sources.0..end].to_string()
    };
    let second_source = {
        let start = good.rfind("<Source>").unwrap();
        good[start..sources.1].to_string()
    };
    let cases = [
        (
            "wrong password",
            with_credentials(&support::raw_sample("hotel_descriptive_info"), ("DEMO", "DEMO-DIST", "demo-passwore")),
        ),
        (
            "wrong ID_Context",
            with_credentials(&support::raw_sample("hotel_descriptive_info"), ("DEMO", "P2-DIST", "demo-password")),
        ),
        (
            "another requestor's password",
            with_credentials(&support::raw_sample("hotel_descriptive_info"), ("DEMO", "DEMO-DIST", PARTNER2.2)),
        ),
        (
            "unknown requestor",
            with_credentials(&support::raw_sample("hotel_descriptive_info"), ("NOBODY", "DEMO-DIST", "demo-password")),
        ),
        ("one Source only", format!("{}{}{}", &good[..sources.0], first_source, &good[sources.1..])),
        ("different IDs", good.replacen("ID=\"DEMO\" MessagePassword", "ID=\"PARTNER2\" MessagePassword", 1)),
        ("the spec sample's credentials", support::raw_sample("hotel_descriptive_info")),
        (
            "three Sources",
            format!("{}{}{}{}", &good[..sources.0], first_source, &good[sources.0..sources.1], &good[sources.1..]),
        ),
        ("no POS", format!("{}{}", &good[..good.find("<POS>").unwrap()], &good[good.find("</POS>").unwrap() + 6..])),
        ("no password", good.replace(" MessagePassword=\"demo-password\"", "")),
        ("empty password", good.replace("MessagePassword=\"demo-password\"", "MessagePassword=\"\"")),
        ("Type 88 twice", good.replacen("Type=\"22\"", "Type=\"88\"", 1)),
    ];
    // OpenTravel 2016B content that authentication does not use (issue 29): the Sources are found
    // by their RequestorID Type, in any order; a password on the requestor's Source is not read.
    let unused = [
        ("Sources swapped", format!("{}{}{}{}", &good[..sources.0], second_source, first_source, &good[sources.1..])),
        (
            "password on the first Source",
            good.replacen("ID_Context=\"DEMO-DIST\"", "ID_Context=\"DEMO-DIST\" MessagePassword=\"demo-password\"", 1),
        ),
    ];
    for (what, xml) in unused {
        let (status, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{what}");
        assert!(body.contains("<Success/>"), "{what}: {body}");
    }
    let mut texts = Vec::new();
    for (what, xml) in cases {
        let (status, _, body) = server.client().send_raw("/hotelnbc", xml, XML).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{what}");
        let errors = nbc_errors(&body);
        assert_eq!(errors.len(), 1, "{what}");
        assert_eq!(errors[0].r#type, ErrorWarningType::Authentication, "{what}");
        assert_eq!(errors[0].code, Some(ErrorCode::AuthorizationError), "{what}");
        texts.push((errors[0].value.clone(), errors[0].short_text.clone(), errors[0].tag.clone()));
    }
    texts.dedup();
    assert_eq!(texts.len(), 1, "the failures must be indistinguishable: {texts:?}");
}

async fn good_credentials_pass_authentication(b: Backend) {
    let server = TestServer::start(b).await;
    for creds in [DEMO, PARTNER2] {
        let xml = with_credentials(&support::raw_sample("hotel_descriptive_info"), creds);
        // Twice: the second is answered from the verification cache.
        for _ in 0..2 {
            let (status, _, body) = server.client().send_raw("/hotelnbc", xml.clone(), XML).await.unwrap();
            assert_eq!(status, StatusCode::OK);
            let rs = OtaHotelDescriptiveInfoRs::from_xml(&body).unwrap();
            if let Some(errors) = rs.errors() {
                assert!(errors.error.iter().all(|e| e.r#type != ErrorWarningType::Authentication), "{body}");
            }
        }
    }
    // Every operation authenticates with the demo credentials.
    for name in [
        "booking_read",
        "hotel_res_modify",
        "product_descriptive_info",
        "tour_activity_avail",
        "tour_activity_book",
        "tour_activity_search",
    ] {
        let xml = sample(name);
        let root = ota_messages::runtime::parse_document(&xml).unwrap().root_element().tag_name().name().to_string();
        let op = ota_messages::OPERATIONS.iter().find(|op| op.request_root == root).unwrap();
        let (status, _, body) = server.client().send_raw(op.path, xml.clone(), XML).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{name}");
        assert!(!body.contains("<Error Type=\"4\""), "{name}: {body}");
    }
}

async fn typed_client_round_trip(b: Backend) {
    let server = TestServer::start(b).await;
    let rq =
        ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRq::from_xml(&sample("hotel_descriptive_info"))
            .unwrap();
    let rs = server.client().send(&rq).await.unwrap();
    assert_eq!(rs.echo_token.as_deref(), Some("nbc-h-5521"));
    assert!(rs.time_stamp.is_some());
    // A trailing slash in the base URL is fine.
    let slash = ota_gateway::Client::new(format!("{}/", server.url()));
    assert_eq!(slash.base_url(), server.url());
    assert!(slash.send(&rq).await.is_ok());
}

async fn clients_outside_the_allow_list_get_403(b: Backend) {
    let server = TestServer::start_with(b, |c| c.allow = vec!["10.0.0.0/8".parse().unwrap()]).await;
    let (status, headers, body) =
        server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), XML).await.unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_xml(&headers);
    assert_eq!(nbc_errors(&body)[0].r#type, ErrorWarningType::Authorization);
    let res = server.client().http().get(format!("{}/healthz", server.url())).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    // The typed client reports a non-200 answer with its OTA body.
    let rq =
        ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRq::from_xml(&sample("hotel_descriptive_info"))
            .unwrap();
    match server.client().send(&rq).await {
        Err(ota_gateway::ClientError::Status { status, body }) => {
            assert_eq!(status, StatusCode::FORBIDDEN);
            assert!(body.contains("<Errors>"), "{body}");
        }
        other => panic!("{other:?}"),
    }

    let server = TestServer::start_with(b, |c| c.allow = vec!["127.0.0.0/8".parse().unwrap()]).await;
    let (status, _, _) = server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
}

async fn echo_token_is_echoed(b: Backend) {
    let server = TestServer::start(b).await;
    let (_, _, body) = server.client().send_raw("/hotelnbc", sample("hotel_descriptive_info"), XML).await.unwrap();
    assert_eq!(OtaHotelDescriptiveInfoRs::from_xml(&body).unwrap().echo_token.as_deref(), Some("nbc-h-5521"));
    // Also on authentication failures.
    let (_, _, body) =
        server.client().send_raw("/hotelnbc", support::raw_sample("hotel_descriptive_info"), XML).await.unwrap();
    assert_eq!(OtaHotelDescriptiveInfoRs::from_xml(&body).unwrap().echo_token.as_deref(), Some("nbc-h-5521"));
}

async fn request_ids_are_echoed_or_made(b: Backend) {
    let server = TestServer::start(b).await;
    let url = format!("{}/hotelnbc", server.url());
    let http = server.client().http().clone();
    let res = http
        .post(&url)
        .header("content-type", XML)
        .header("x-request-id", "test-rid-42")
        .body(sample("hotel_descriptive_info"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers().get("x-request-id").unwrap(), "test-rid-42");
    let res = http.post(&url).header("content-type", "text/plain").body("x").send().await.unwrap();
    let made = res.headers().get("x-request-id").unwrap().to_str().unwrap().to_string();
    assert_eq!(made.len(), 36, "a UUID: {made}");
    // Every answer has one, 404s included.
    let res = http.get(format!("{}/nope", server.url())).send().await.unwrap();
    assert!(res.headers().contains_key("x-request-id"));
}

/// A caller's W3C `traceparent` is continued: the answer's `traceresponse` names the same trace
/// and the gateway's own span, and every log line of the request carries the trace id; a
/// malformed one begins a new trace.
async fn a_callers_trace_is_continued(b: Backend) {
    let logs = support::captured_logs();
    let server = TestServer::start(b).await;
    let http = server.client().http().clone();
    let url = format!("{}/hotelnbc", server.url());
    let trace = "0af7651916cd43dd8448eb211c80319c";
    let res = http
        .post(&url)
        .header("content-type", XML)
        .header("x-request-id", "trace-test-1")
        .header("traceparent", format!("00-{trace}-b7ad6b7169203331-01"))
        .body(sample("hotel_descriptive_info"))
        .send()
        .await
        .unwrap();
    let answered = res.headers().get("traceresponse").unwrap().to_str().unwrap().to_string();
    let parts: Vec<&str> = answered.split('-').collect();
    assert_eq!((parts[0], parts[1], parts[3]), ("00", trace, "01"), "{answered}");
    assert!(parts[2].len() == 16 && parts[2] != "b7ad6b7169203331", "the gateway's own span: {answered}");
    let res = http
        .post(&url)
        .header("content-type", XML)
        .header("traceparent", "00-zz-yy-01")
        .body(sample("hotel_descriptive_info"))
        .send()
        .await
        .unwrap();
    let fresh = res.headers().get("traceresponse").unwrap().to_str().unwrap().to_string();
    assert!(fresh.len() == 55 && !fresh.contains(trace), "{fresh}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    let line =
        text.lines().find(|l| l.contains("trace-test-1")).unwrap_or_else(|| panic!("the request's log line:\n{text}"));
    assert!(line.contains(&format!("trace_id={trace}")), "{line}");
}

async fn passwords_never_reach_the_logs(b: Backend) {
    let logs = support::captured_logs();
    let server = TestServer::start(b).await;
    let secret = "Sup3r-Secret-Passw0rd!";
    let http = server.client().http().clone();
    let url = format!("{}/hotelnbc", server.url());
    let bodies = [
        sample("hotel_descriptive_info"),
        with_credentials(&support::raw_sample("hotel_descriptive_info"), ("DEMO", "DEMO-DIST", secret)),
        with_credentials(&support::raw_sample("hotel_descriptive_info"), ("NOBODY", "X", secret)),
        with_credentials(&support::raw_sample("hotel_descriptive_info"), ("DEMO", "DEMO-DIST", secret))
            .replace("</HotelDescriptiveInfos>", "</HotelDescriptiveInfos><Bogus/>"),
        with_credentials(&support::raw_sample("hotel_descriptive_info"), ("DEMO", "DEMO-DIST", secret))
            .replace("<POS>", "<POS"),
    ];
    for (i, body) in bodies.into_iter().enumerate() {
        let res = http
            .post(&url)
            .header("content-type", XML)
            .header("x-request-id", format!("log-test-{i}"))
            .body(body)
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success() || res.status().is_client_error());
    }
    // The per-request line is written after the answer: give it a moment.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(text.contains("log-test-0") && text.contains("log-test-4"), "the logs were captured:\n{text}");
    assert!(text.contains("authentication failed"), "{text}");
    assert!(!text.contains(secret), "a password in the logs:\n{text}");
    assert!(!text.contains(DEMO.2), "the demo password in the logs:\n{text}");
    // The request's line says who asked and what the answer said (never the password).
    let line = |id: &str| {
        text.lines()
            .find(|l| l.contains(id) && l.contains("latency_ms"))
            .unwrap_or_else(|| panic!("the line of {id}:\n{text}"))
            .to_string()
    };
    // (One of the sample's hotels is not described in its language: a Warning.)
    let ok = line("log-test-0");
    assert!(ok.contains("requestor=DEMO") && ok.contains(r#"outcome="Warning""#), "{ok}");
    let refused = line("log-test-2");
    assert!(refused.contains("requestor=-") && refused.contains(r#"outcome="Error 4/497""#), "{refused}");
    // A failed login's own line says which check failed (the answer never does).
    let failed = |id: &str| {
        text.lines().find(|l| l.contains(id) && l.contains("authentication failed")).unwrap_or_default().to_string()
    };
    assert!(failed("log-test-1").contains(r#"reason="wrong password""#), "{text}");
    assert!(failed("log-test-2").contains(r#"reason="unknown requestor""#), "{text}");
    // And the outcomes are counted per operation.
    let metrics = http.get(format!("{}/metrics", server.url())).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains(r#"ota_answers_total{operation="hotelnbc",outcome="Error 4/497"}"#), "{metrics}");
    assert!(metrics.contains(r#"ota_answers_total{operation="hotelnbc",outcome="Warning"}"#), "{metrics}");
}

/// Writes `request` on a fresh connection and reads the whole answer (until the server closes).
async fn raw_exchange(addr: std::net::SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

async fn slow_requests_time_out_with_408(b: Backend) {
    let server = TestServer::start_with(b, |c| c.request_timeout = Duration::from_millis(300)).await;
    let body = sample("hotel_descriptive_info");
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    let head = format!(
        "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body.as_bytes()[..10]).await.unwrap();
    let mut answer = vec![0u8; 8192];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("an answer in time")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("<OTA_HotelDescriptiveInfoRS"), "{answer}");
}

async fn slow_headers_are_dropped(b: Backend) {
    let server = TestServer::start_with(b, |c| c.header_read_timeout = Duration::from_millis(300)).await;
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(b"POST /hotelnbc HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server must close the connection");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
}

async fn graceful_shutdown_finishes_requests_in_flight(b: Backend) {
    let server = TestServer::start(b).await;
    let addr = server.addr();
    let body = sample("hotel_descriptive_info");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /hotelnbc HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (first, rest) = body.as_bytes().split_at(body.len() / 2);
    stream.write_all(first).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    // Shut down while the request is half sent.
    let stopping = tokio::spawn(server.stop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!stopping.is_finished(), "the server waits for the request in flight");
    assert!(TcpStream::connect(addr).await.is_err(), "no new connections once stopping");

    stream.write_all(rest).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await.unwrap().unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("</OTA_HotelDescriptiveInfoRS>"), "{answer}");
    tokio::time::timeout(Duration::from_secs(5), stopping).await.expect("stopped in time").unwrap().unwrap();
}

/// OTA_HotelResNotifRQ is what the gateway sends to suppliers (the outbox): one sent to it is
/// answered 200 with its RS carrying one Type 2 error, the request's EchoToken echoed. A
/// supplier's OTA_NotifReportRQ (the pull's acknowledgement) is answered, through the typed
/// client too (the path from the root): the sample's bookings were never notified, so Success
/// with a warning for each.
async fn supply_roots_are_not_supported_yet(b: Backend) {
    let server = TestServer::start(b).await;
    let xml = support::raw_sample("hotel_res_notif");
    let rq = ota_messages::AnyRequest::from_xml(&xml).unwrap();
    let (status, _, body) = server.client().send_raw(rq.operation().path, xml.clone(), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    let rs = ota_messages::AnyMessage::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert_eq!(Some(rs.root_name()), rq.operation().response_root);
    assert!(body.contains(r#"Type="2""#) && body.contains("is sent by this gateway to suppliers"), "{body}");
    let rq = ota_messages::notif_report::OtaNotifReportRq::from_xml(&support::raw_sample("notif_report")).unwrap();
    let rs = server.client().send(&rq).await.unwrap();
    assert!(rs.is_success(), "{rs:?}");
    let warnings = &rs.warnings.as_ref().unwrap().warning;
    assert!(
        !warnings.is_empty() && warnings.iter().all(|w| w.code == Some(ErrorCode::BookingReferenceNotFound)),
        "{warnings:?}"
    );
    assert_eq!(rs.echo_token, rq.echo_token);
}

/// With `--otlp-endpoint`, a real gateway exports the request's span (a child of the caller's
/// `traceparent`), its operation's and its database statements', in one trace, to an OTLP/HTTP
/// collector (here a stub taking OTLP/JSON); `traceresponse` and the log name the exported
/// span. Without it nothing is sent.
async fn spans_are_exported_to_a_collector(b: Backend) {
    use axum::routing::post;
    let received: std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>> = std::sync::Arc::default();
    let store = received.clone();
    let collector = axum::Router::new().route(
        "/v1/traces",
        post(move |body: axum::body::Bytes| {
            let store = store.clone();
            async move {
                store.lock().unwrap().push(serde_json::from_slice(&body).unwrap_or_default());
                "{}"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, collector).await.unwrap() });

    let db = support::TestDb::new(b).await;
    let quiet = support::GatewayProcess::start(&db.arg(), &[]).await;
    let gw = support::GatewayProcess::start_with(
        &db.arg(),
        &["--otlp-endpoint", &endpoint, "--otlp-protocol", "http/json"],
        &[("OTEL_BSP_SCHEDULE_DELAY", "100")],
        None,
    )
    .await;
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller = "00f067aa0ba902b7";
    for g in [&quiet, &gw] {
        let res = g
            .client()
            .http()
            .post(format!("{}/bookread", g.client().base_url()))
            .header("content-type", XML)
            .header("traceparent", format!("00-{trace}-{caller}-01"))
            .body(sample("booking_read"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        if std::ptr::eq(g, &gw) {
            let answered = res.headers().get("traceresponse").unwrap().to_str().unwrap().to_string();
            let request_span = answered.split('-').nth(2).unwrap().to_string();
            let started = std::time::Instant::now();
            let exported = || -> Vec<serde_json::Value> {
                received
                    .lock()
                    .unwrap()
                    .iter()
                    .flat_map(|r| r["resourceSpans"].as_array().cloned().unwrap_or_default())
                    .flat_map(|r| r["scopeSpans"].as_array().cloned().unwrap_or_default())
                    .flat_map(|s| s["spans"].as_array().cloned().unwrap_or_default())
                    .collect()
            };
            let spans = loop {
                let spans: Vec<serde_json::Value> = exported().into_iter().filter(|s| s["traceId"] == trace).collect();
                if spans.iter().any(|s| s["name"] == "request") && spans.iter().any(|s| s["name"] == "db") {
                    break spans;
                }
                let all: Vec<String> = exported()
                    .iter()
                    .map(|s| format!("{} {} {} <- {}", s["name"], s["traceId"], s["spanId"], s["parentSpanId"]))
                    .collect();
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "no request with its statements in the trace; exported: {all:#?}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            };
            let named =
                |n: &str| spans.iter().find(|s| s["name"] == n).unwrap_or_else(|| panic!("no {n} span: {spans:?}"));
            let request = named("request");
            assert_eq!(
                (request["spanId"].as_str(), request["parentSpanId"].as_str()),
                (Some(request_span.as_str()), Some(caller)),
                "{request}"
            );
            let operation = named("operation");
            assert_eq!(operation["parentSpanId"], request["spanId"], "{operation}");
            let ids: Vec<&serde_json::Value> = spans.iter().map(|s| &s["spanId"]).collect();
            for db_span in spans.iter().filter(|s| s["name"] == "db") {
                assert!(ids.contains(&&db_span["parentSpanId"]), "a statement's span is within the request: {db_span}");
                assert!(!db_span.to_string().contains("DEMO"), "statements carry no values: {db_span}");
            }
            println!(
                "{} spans of the trace exported: {:?}",
                spans.len(),
                spans.iter().map(|s| s["name"].as_str().unwrap_or("")).collect::<Vec<_>>()
            );
        }
    }
    // The quiet gateway sent nothing: every span received is the exporting gateway's.
    let services: Vec<String> = received
        .lock()
        .unwrap()
        .iter()
        .flat_map(|r| r["resourceSpans"].as_array().cloned().unwrap_or_default())
        .map(|r| r["resource"].to_string())
        .collect();
    assert!(services.iter().all(|r| r.contains("ota-gateway")), "{services:?}");
}

/// A hostile collector (issue 28, H4): it answers every export `200` with a body that never ends.
/// The gateway reads at most 64 KiB of an answer: over four seconds of requests (an export every
/// 100 ms) its peak resident memory stays within tens of MiB of where it started. Then a
/// collector that is down: the lost spans are said at WARN, once (at most once a minute).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_or_absent_collector_costs_no_memory_and_is_reported() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = vec![0u8; 64 * 1024];
                let _ = s.read(&mut head).await;
                let _ = s
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
                    .await;
                let chunk = vec![b' '; 256 * 1024];
                while s.write_all(&chunk).await.is_ok() {}
            });
        }
    });
    let db = support::TestDb::new(Backend::Sqlite).await;
    let env = [("OTEL_BSP_SCHEDULE_DELAY", "100")];
    let gw = support::GatewayProcess::start_with(&db.arg(), &["--otlp-endpoint", &endpoint], &env, None).await;
    let before = gw.rss_mib();
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(4) {
        let (status, _, _) = gw.client().send_raw("/bookread", sample("booking_read"), XML).await.unwrap();
        assert_eq!(status, StatusCode::OK);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let peak = gw.status("VmHWM") as f64 / 1024.0;
    println!("endless collector answers: resident memory {before:.0} MiB, peak {peak:.0} MiB");
    assert!(peak - before < 48.0, "peak resident memory {before:.0} → {peak:.0} MiB");
    drop(gw);

    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gateway.log");
    let down = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let gw = support::GatewayProcess::start_with(&db.arg(), &["--otlp-endpoint", &down], &env, Some(&log)).await;
    for _ in 0..20 {
        gw.client().send_raw("/bookread", sample("booking_read"), XML).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let said = text.lines().filter(|l| l.contains("spans are being lost")).count();
    assert_eq!(said, 1, "one WARN about lost spans in two seconds of failed exports:\n{text}");
}

backend_tests!(
    supply_roots_are_not_supported_yet,
    healthz_and_unknown_paths,
    wrong_content_type_is_415_with_an_ota_body,
    other_methods_are_405_with_an_ota_body,
    bodies_over_the_limit_are_413,
    malformed_xml_and_foreign_roots_are_400,
    invalid_messages_are_200_with_errors,
    every_problem_of_a_request_is_one_error,
    an_error_answer_snapshot,
    unsupported_versions_name_the_supported_one,
    authentication_failures_all_look_the_same,
    good_credentials_pass_authentication,
    typed_client_round_trip,
    clients_outside_the_allow_list_get_403,
    echo_token_is_echoed,
    request_ids_are_echoed_or_made,
    a_callers_trace_is_continued,
    spans_are_exported_to_a_collector,
    passwords_never_reach_the_logs,
    slow_requests_time_out_with_408,
    slow_headers_are_dropped,
    graceful_shutdown_finishes_requests_in_flight,
);
