//! Decode and encode throughput of the generated messages, against plain roxmltree parsing.
//!
//! One group per full sample — requests `spec/samples/<module>.xml` and responses
//! `<module>.rs.xml` — plus two large inputs: `tour_activity_book_200`, the booking sample with
//! its `ParticipantInfo` repeated to 200 participants, and `hotel_content_5mb`, a hotel-content
//! response of over 5 MB (thousands of hotels, rooms and long descriptions in several languages,
//! made by [`hotel_content`]). Each group has these functions:
//!
//! - `roxmltree_parse`: `roxmltree::Document::parse` of the input (the floor of decoding);
//! - `decode`: `AnyMessage::from_xml` (roxmltree parse, then the generated one-pass decoder);
//! - `decode_yaserde`: `AnyMessage::from_xml_with_yaserde` (same parse and checks, bound by
//!   yaserde), for comparison;
//! - `encode`: `AnyMessage::to_xml` of the decoded value (the generated encoder);
//! - `encode_yaserde`: `AnyMessage::to_xml_with_yaserde`, for comparison.
//!
//! The yaserde functions are skipped for the 5 MB input (they take seconds per iteration).
//!
//! The decode functions' throughput is the input length, the encode functions' their output
//! length.
//!
//! Run with `cargo bench -p ota-messages --bench messages`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use ota_messages::AnyMessage;
use ota_messages::runtime::Message;
use ota_messages::tour_activity_book::OtaTourActivityBookRq;

/// The folder of the sample messages.
const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/samples");

/// How many participants the large tour_activity_book input has.
const PARTICIPANTS: usize = 200;

/// The full samples (`<module>.xml` and `<module>.rs.xml`, not the other variants), by name.
fn full_samples() -> Vec<(String, String)> {
    let mut samples = Vec::new();
    for entry in std::fs::read_dir(Path::new(SAMPLES)).expect("read spec/samples") {
        let path = entry.expect("read spec/samples entry").path();
        if path.extension().is_none_or(|e| e != "xml") {
            continue;
        }
        let stem = path.file_stem().expect("file stem").to_string_lossy().into_owned();
        if stem.contains('.') && !stem.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read sample");
        samples.push((stem, text));
    }
    samples.sort();
    assert!(!samples.is_empty(), "no samples in {SAMPLES}");
    samples
}

/// The tour_activity_book sample with its `ParticipantInfo` elements cycled to `count`
/// participants, each with its own `ParticipantID`.
fn many_participants(book: &str, count: usize) -> String {
    const OPEN: &str = "<ParticipantInfo>";
    const CLOSE: &str = "</ParticipantInfo>";
    let first = book.find(OPEN).expect("a ParticipantInfo");
    let last = book.rfind(CLOSE).expect("a /ParticipantInfo") + CLOSE.len();
    // The original blocks, without the indentation before them.
    let mut blocks = Vec::new();
    let mut rest = &book[first..last];
    while let Some(end) = rest.find(CLOSE) {
        let block = &rest[..end + CLOSE.len()];
        blocks.push(block.trim_start().to_string());
        rest = &rest[end + CLOSE.len()..];
    }
    let indent = &book[book[..first].rfind('\n').map_or(0, |n| n + 1)..first];
    let mut body = String::new();
    for i in 0..count {
        if i > 0 {
            body.push('\n');
            body.push_str(indent);
        }
        body.push_str(&set_participant_id(&blocks[i % blocks.len()], i + 1));
    }
    format!("{}{}{}", &book[..first], body, &book[last..])
}

/// Replaces the value of the `ParticipantID` attribute of a block with `id`.
fn set_participant_id(block: &str, id: usize) -> String {
    const ATTR: &str = "ParticipantID=\"";
    match block.find(ATTR) {
        Some(at) => {
            let start = at + ATTR.len();
            let end = start + block[start..].find('"').expect("closing quote");
            format!("{}{}{}", &block[..start], id, &block[end..])
        }
        None => block.to_string(),
    }
}

/// A hotel-content response (`OTA_HotelDescriptiveInfoRS`) of at least `min_bytes`: the
/// sample's hotels repeated under new hotel codes, each description lengthened with a long
/// paragraph in its language.
fn hotel_content(sample: &str, min_bytes: usize) -> String {
    const OPEN: &str = "<HotelDescriptiveContents>";
    const CLOSE: &str = "</HotelDescriptiveContents>";
    let start = sample.find(OPEN).expect("HotelDescriptiveContents") + OPEN.len();
    let end = sample.find(CLOSE).expect("/HotelDescriptiveContents");
    let long = " Las habitaciones, renovadas en 2024, dan al mar o a los jardines; el desayuno buffet \
        incluye productos locales &amp; opciones sin gluten. Zimmer mit Balkon, Klimaanlage und \
        kostenlosem WLAN; Kinder &lt; 12 Jahre übernachten im Zimmer der Eltern gratis. Rooms \
        overlook the bay or the gardens; the spa offers massages, a sauna and a heated pool. \
        Chambres avec vue sur la baie, piscine chauffée et navette gratuite vers l'aéroport.";
    let blocks = sample[start..end].replace("</DescriptiveText>", &format!("{long}</DescriptiveText>"));
    let mut body = String::with_capacity(min_bytes + blocks.len());
    let mut n = 0;
    while body.len() < min_bytes {
        n += 1;
        body.push_str(&blocks.replace("HotelCode=\"HTL", &format!("HotelCode=\"H{n:05}")));
    }
    format!("{}{}{}", &sample[..start], body, &sample[end..])
}

/// One group: parse baseline, decode and encode of `xml`, each also through yaserde.
fn bench_input(c: &mut Criterion, name: &str, xml: &str) {
    bench_input_with(c, name, xml, true);
}

fn bench_input_with(c: &mut Criterion, name: &str, xml: &str, with_yaserde: bool) {
    let decoded = AnyMessage::from_xml(xml).unwrap_or_else(|e| panic!("{name} does not decode: {e}"));
    let encoded = decoded.to_xml().unwrap_or_else(|e| panic!("{name} does not encode: {e}"));
    // The encoded form must decode to the same value, or `encode` measures the wrong thing.
    assert_eq!(AnyMessage::from_xml(&encoded).expect("re-decode"), decoded, "{name} does not round-trip");
    let encoded_yaserde = if with_yaserde {
        assert_eq!(
            AnyMessage::from_xml_with_yaserde(xml).expect("decode with yaserde"),
            decoded,
            "{name}: decoders differ"
        );
        decoded.to_xml_with_yaserde(false).expect("encode with yaserde")
    } else {
        String::new()
    };

    let mut group = c.benchmark_group(name);
    group.sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));

    group.throughput(Throughput::Bytes(xml.len() as u64));
    group.bench_function("roxmltree_parse", |b| {
        b.iter(|| roxmltree::Document::parse(black_box(xml)).expect("parse"));
    });
    group.bench_function("decode", |b| b.iter(|| AnyMessage::from_xml(black_box(xml)).expect("decode")));
    if with_yaserde {
        group.bench_function("decode_yaserde", |b| {
            b.iter(|| AnyMessage::from_xml_with_yaserde(black_box(xml)).expect("decode with yaserde"));
        });
    }

    group.throughput(Throughput::Bytes(encoded.len() as u64));
    group.bench_function("encode", |b| b.iter(|| black_box(&decoded).to_xml().expect("encode")));
    if with_yaserde {
        group.throughput(Throughput::Bytes(encoded_yaserde.len() as u64));
        group.bench_function("encode_yaserde", |b| {
            b.iter(|| black_box(&decoded).to_xml_with_yaserde(false).expect("encode with yaserde"));
        });
    }
    group.finish();
}

fn messages(c: &mut Criterion) {
    let samples = full_samples();
    for (module, xml) in &samples {
        bench_input(c, module, xml);
    }

    let book = samples.iter().find(|(m, _)| m == "tour_activity_book").map(|(_, x)| x).expect("tour_activity_book.xml");
    let large = many_participants(book, PARTICIPANTS);
    let rq = OtaTourActivityBookRq::from_xml(&large).expect("the large input decodes");
    assert_eq!(rq.booking_info.participant_info.len(), PARTICIPANTS, "participants in the large input");
    bench_input(c, &format!("tour_activity_book_{PARTICIPANTS}"), &large);

    let hotels = samples
        .iter()
        .find(|(m, _)| m == "hotel_descriptive_info.rs")
        .map(|(_, x)| x)
        .expect("hotel_descriptive_info.rs.xml");
    let big = hotel_content(hotels, 5 * 1024 * 1024);
    assert!(big.len() >= 5 * 1024 * 1024);
    bench_input_with(c, "hotel_content_5mb", &big, false);
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    messages(&mut criterion);
    criterion.final_summary();
}
