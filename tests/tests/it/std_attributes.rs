//! The traits of the OTA standard attributes, over every sample: each request exposes its
//! `OTA_PayloadStdAttributes` and its `POS`, each response its `OTA_ResponseStdAttributes`,
//! and what the accessors read and write is what the XML says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use ota_messages::AnyMessage;
use ota_messages::runtime::{Message, PayloadStdAttributes, PosRequest};

fn samples() -> Vec<(String, String)> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/samples"));
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn accessors_read_the_root_attributes_of_every_sample() {
    let (mut requests, mut responses) = (0, 0);
    for (file, xml) in samples() {
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let root = doc.root_element();
        let mut message = AnyMessage::from_xml(&xml).unwrap_or_else(|e| panic!("{file}: {e}"));
        let is_request = root.tag_name().name().ends_with("RQ");
        if is_request {
            requests += 1;
            let std = message.payload_std_attributes().unwrap_or_else(|| panic!("{file}: no payload attributes"));
            assert_eq!(Some(std.version()), root.attribute("Version"), "{file}");
            assert_eq!(std.echo_token(), root.attribute("EchoToken"), "{file}");
            assert_eq!(std.transaction_identifier(), root.attribute("TransactionIdentifier"), "{file}");
            assert_eq!(std.primary_lang_id(), root.attribute("PrimaryLangID"), "{file}");
            assert_eq!(std.time_stamp().map(|t| t.to_string()).as_deref(), root.attribute("TimeStamp"), "{file}");
            assert!(message.response_std_attributes().is_none(), "{file}");
        } else if root.tag_name().name() == "OTA_HotelResNotifRS" {
            // A supplier's system writes it and the gateway reads it: its attributes are
            // OpenTravel 2016B's, taken as any receiver writes them (a `Version` of any form),
            // not the response attributes the gateway writes.
            assert!(
                message.response_std_attributes().is_none() && message.payload_std_attributes().is_none(),
                "{file}"
            );
        } else {
            responses += 1;
            let std = message.response_std_attributes_mut().unwrap_or_else(|| panic!("{file}: no response attributes"));
            assert_eq!(Some(std.version()), root.attribute("Version"), "{file}");
            assert_eq!(std.echo_token(), root.attribute("EchoToken"), "{file}");
            std.set_echo_token(Some("stamped".to_string()));
            std.set_transaction_identifier(None);
            let out = message.to_xml().unwrap();
            assert!(out.contains(r#" EchoToken="stamped""#), "{file}: {out}");
            assert!(!out.contains("TransactionIdentifier="), "{file}: {out}");
            assert!(message.payload_std_attributes().is_none(), "{file}");
        }
    }
    assert!(requests >= 7 && responses >= 21, "{requests} requests, {responses} responses");
}

#[test]
fn generic_code_over_requests() {
    use ota_messages::common::Pos;
    use ota_messages::tour_activity_book::OtaTourActivityBookRq;

    /// What a gateway does with any request, written once.
    fn requestor_and_version<R: Message + PayloadStdAttributes + PosRequest<Pos = Pos>>(rq: &R) -> (String, bool) {
        (rq.pos().source[0].requestor_id.id.clone(), rq.version() == R::VERSION)
    }
    let xml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/samples/tour_activity_book.xml"))
        .unwrap();
    let mut rq = OtaTourActivityBookRq::from_xml(&xml).unwrap();
    assert_eq!(requestor_and_version(&rq), ("REQ-000123".to_string(), true));
    rq.set_version("1.000".to_string());
    assert_eq!(rq.version, "1.000");
    assert!(!requestor_and_version(&rq).1);
}
