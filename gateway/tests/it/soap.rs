//! SOAP 1.1 on the operation paths: a real SOAP client (Python zeep, Debian's `python3-zeep`)
//! built from the published WSDL reads a booking with the POS in the message and with a
//! WS-Security UsernameToken standing for it; envelope-level failures are SOAP Faults (500),
//! everything about the OTA message an OTA answer in the envelope (200).

use std::process::Command;

use ota_messages::booking_read::OtaResRetrieveRs;
use ota_messages::runtime::{Message, Response};
use reqwest::StatusCode;

use crate::support::{Backend, GatewayProcess, TestDb, TestServer, backend_tests};

const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const NS: &str = "http://www.opentravel.org/OTA/2003/05";
const WSSE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
const WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

/// The Python that has zeep: Debian's (`/usr/bin/python3`), else the one on the PATH.
fn python_with_zeep() -> &'static str {
    ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|p| Command::new(p).args(["-c", "import zeep"]).output().is_ok_and(|o| o.status.success()))
        .expect("a Python with zeep: is the python3-zeep package installed? (apt-get install python3-zeep)")
}

async fn post(server: &TestServer, path: &str, body: String) -> (StatusCode, String, String) {
    let rs = reqwest::Client::new()
        .post(format!("{}{path}", server.url()))
        .header("Content-Type", "text/xml; charset=utf-8")
        .header("SOAPAction", format!("\"{path}\""))
        .body(body)
        .send()
        .await
        .unwrap();
    let status = rs.status();
    let content_type = rs.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    (status, content_type, rs.text().await.unwrap())
}

/// The OTA answer in a SOAP envelope's Body.
fn body_of(envelope: &str) -> String {
    let doc = ota_messages::runtime::parse_document(envelope).unwrap();
    let root = doc.root_element();
    assert_eq!((root.tag_name().namespace(), root.tag_name().name()), (Some(SOAP11), "Envelope"), "{envelope}");
    let body = root.children().find(|n| n.tag_name().name() == "Body").unwrap();
    let answer = body.children().find(|n| n.is_element()).unwrap();
    envelope[answer.range()].to_string()
}

async fn a_soap_toolkit_reads_a_booking_from_the_wsdl(b: Backend) {
    let server = TestServer::start(b).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/soap/zeep_client.py");
    let out = Command::new(python_with_zeep()).arg(script).arg(server.url()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn envelopes_by_hand(b: Backend) {
    let server = TestServer::start(b).await;
    let envelope =
        |body: &str| format!(r#"<soap:Envelope xmlns:soap="{SOAP11}"><soap:Body>{body}</soap:Body></soap:Envelope>"#);
    let read = |pos: &str| {
        format!(
            r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1">{pos}<UniqueID Type="36" ID="DEMO-2030-0001" ID_Context="Client"/></OTA_ReadRQ>"#
        )
    };
    let pos = r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#;

    // The answer in an envelope, as text/xml.
    let (status, content_type, text) = post(&server, "/bookread", envelope(&read(pos))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("text/xml"), "{content_type}");
    let rs = OtaResRetrieveRs::from_xml(&body_of(&text)).unwrap();
    assert!(rs.is_success(), "{text}");

    // A schema error of the OTA message: an OTA answer with Errors in the envelope, not a Fault.
    let (status, _, text) = post(&server, "/bookread", envelope(&read(pos).replace("<UniqueID ", "<UniqueId "))).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(OtaResRetrieveRs::from_xml(&body_of(&text)).unwrap().errors().is_some(), "{text}");

    // Envelope-level failures: Faults, HTTP 500.
    let fault = |text: &str| {
        let doc = ota_messages::runtime::parse_document(text).unwrap();
        doc.descendants()
            .find(|n| n.tag_name().name() == "faultcode")
            .and_then(|n| n.text())
            .unwrap_or_default()
            .to_string()
    };
    let v12 = format!(
        r#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body>{}</e:Body></e:Envelope>"#,
        read(pos)
    );
    for (body, code) in [
        (v12, "soap:VersionMismatch"),
        (format!(r#"<soap:Envelope xmlns:soap="{SOAP11}"/>"#), "soap:Client"),
        (envelope(&format!(r#"<OTA_CancelRQ xmlns="{NS}"/>"#)), "soap:Client"),
        (
            format!(
                r#"<soap:Envelope xmlns:soap="{SOAP11}"><soap:Header><t:Trace xmlns:t="urn:trace" soap:mustUnderstand="1"/></soap:Header><soap:Body>{}</soap:Body></soap:Envelope>"#,
                read(pos)
            ),
            "soap:MustUnderstand",
        ),
        (
            // A signature the gateway does not check, under mustUnderstand: never taken as checked.
            format!(
                r#"<soap:Envelope xmlns:soap="{SOAP11}"><soap:Header><wsse:Security xmlns:wsse="{WSSE}" soap:mustUnderstand="1"><wsse:UsernameToken><wsse:Username>DEMO</wsse:Username><wsse:Password>demo-password</wsse:Password></wsse:UsernameToken><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignatureValue>Ym9ndXM=</ds:SignatureValue></ds:Signature></wsse:Security></soap:Header><soap:Body>{}</soap:Body></soap:Envelope>"#,
                read("")
            ),
            "soap:MustUnderstand",
        ),
    ] {
        let (status, _, text) = post(&server, "/bookread", body).await;
        assert_eq!((status, fault(&text).as_str()), (StatusCode::INTERNAL_SERVER_ERROR, code), "{text}");
    }
    // The same token with a Timestamp, under mustUnderstand, is understood.
    let stamped = format!(
        r#"<soap:Envelope xmlns:soap="{SOAP11}"><soap:Header><wsse:Security xmlns:wsse="{WSSE}" xmlns:wsu="{WSU}" soap:mustUnderstand="1"><wsu:Timestamp><wsu:Created>2030-01-01T00:00:00Z</wsu:Created></wsu:Timestamp><wsse:UsernameToken><wsse:Username>DEMO</wsse:Username><wsse:Password>demo-password</wsse:Password></wsse:UsernameToken></wsse:Security></soap:Header><soap:Body>{}</soap:Body></soap:Envelope>"#,
        read("")
    );
    let (status, _, text) = post(&server, "/bookread", stamped).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(OtaResRetrieveRs::from_xml(&body_of(&text)).unwrap().is_success(), "{text}");

    // The WSDL names this gateway; its schemas are served.
    let wsdl = reqwest::get(format!("{}/wsdl", server.url())).await.unwrap().text().await.unwrap();
    assert!(wsdl.contains(&format!(r#"location="{}/bookread""#, server.url())), "{wsdl}");
    let common = reqwest::get(format!("{}/wsdl/common.xsd", server.url())).await.unwrap();
    assert_eq!(common.status(), StatusCode::OK);
    assert_eq!(
        reqwest::get(format!("{}/wsdl/secret.txt", server.url())).await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
}

/// Issue 28, M1: a `UsernameToken` naming no requestor costs what a known one with a wrong
/// password does (an argon2 verification against the dummy hash) and is answered the same, so
/// requestor ids cannot be told apart by timing; both are counted by the throttle.
async fn a_username_token_does_not_tell_which_ids_exist(b: Backend) {
    let server = TestServer::start_with(b, |c| {
        c.throttle.address_failures = 0;
        c.throttle.requestor_failures = 0;
    })
    .await;
    let token = |user: &str, password: &str| {
        format!(
            r#"<soap:Envelope xmlns:soap="{SOAP11}"><soap:Header><wsse:Security xmlns:wsse="{WSSE}"><wsse:UsernameToken><wsse:Username>{user}</wsse:Username><wsse:Password>{password}</wsse:Password></wsse:UsernameToken></wsse:Security></soap:Header><soap:Body><OTA_ReadRQ xmlns="{NS}" Version="2008.1"><UniqueID Type="36" ID="DEMO-2030-0001" ID_Context="Client"/></OTA_ReadRQ></soap:Body></soap:Envelope>"#
        )
    };
    let error = |text: &str| {
        let rs = OtaResRetrieveRs::from_xml(&body_of(text)).unwrap();
        let e = &rs.errors().expect(text).error[0];
        format!("{:?} {:?} {:?} {}", e.r#type, e.code, e.tag, e.value)
    };
    let (_, _, text) = post(&server, "/bookread", token("DEMO", "demo-password")).await;
    assert!(OtaResRetrieveRs::from_xml(&body_of(&text)).unwrap().is_success(), "{text}");
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    let mut answers = std::collections::BTreeSet::new();
    for i in 0..8 {
        for (user, times) in [("DEMO", &mut known), ("NOBODY-HERE", &mut unknown)] {
            let started = std::time::Instant::now();
            let (status, _, text) = post(&server, "/bookread", token(user, &format!("wrong-{i}"))).await;
            times.push(started.elapsed());
            assert_eq!(status, StatusCode::OK, "{text}");
            answers.insert(error(&text));
        }
    }
    assert_eq!(answers.len(), 1, "one answer for a wrong password and an unknown id: {answers:?}");
    let median = |mut v: Vec<std::time::Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (k, u) = (median(known), median(unknown));
    println!("{b:?}: UsernameToken medians: known id, wrong password {k:?}; unknown id {u:?}");
    assert!(u * 2 >= k, "an unknown id answers faster ({u:?}) than a known one with a wrong password ({k:?})");
}

/// A SOAP Fault is the client's error: HTTP 500 as SOAP 1.1 wants, but not an ERROR line in
/// the gateway's log (an operator's alert on ERROR lines is not set off by clients).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_faults_are_not_the_gateways_errors() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gateway.log");
    let db = TestDb::new(Backend::Sqlite).await;
    let gw = GatewayProcess::start_with(&db.arg(), &[], &[("RUST_LOG", "info")], Some(&log)).await;
    for _ in 0..3 {
        let (status, _, text) = gw
            .client()
            .send_raw("/bookread", format!(r#"<soap:Envelope xmlns:soap="{SOAP11}"/>"#), "text/xml")
            .await
            .unwrap();
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{text}");
        assert!(text.contains("soap:Client"), "{text}");
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let text = std::fs::read_to_string(&log).unwrap();
    let requests: Vec<&str> = text.lines().filter(|l| l.contains("request") && l.contains("status=500")).collect();
    assert_eq!(requests.len(), 3, "{text}");
    assert!(requests.iter().all(|l| !l.contains("ERROR")), "{text}");
}

backend_tests!(
    a_soap_toolkit_reads_a_booking_from_the_wsdl,
    envelopes_by_hand,
    a_username_token_does_not_tell_which_ids_exist
);
