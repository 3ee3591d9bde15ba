//! Strict decoding: each bad input is rejected with the right error kind, element path and
//! line:column; the few liberties the decoder allows (xsi:schemaLocation, unknown values of open
//! code lists, spaces in free text, the children of a sequence in any order) are accepted and
//! kept.
//!
//! Conventions the assertions follow: an error about an element's own attributes, text or
//! missing attributes carries that element's path; an error about a child element (unknown,
//! wrong namespace, too many, second choice alternative, missing) carries the path of the
//! parent, and its position points at the offending child (or, for a missing child, at the
//! parent, as it is missing once the parent ends). Columns count characters, 1-based.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use ota_messages::common::{RequestorInstance, ResStatus};
use ota_messages::runtime::{DecodeError, DecodeErrorKind, Message};
use ota_messages::tour_activity_book::OtaTourActivityBookRq;
use ota_messages::{AnyMessage, AnyRequest};

const OTA: &str = "http://www.opentravel.org/OTA/2003/05";

/// A small valid booking (line numbers matter: the tests point at them).
const BOOK: &str = r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2">
  <POS>
    <Source><RequestorID Type="22" ID="R1"/></Source>
    <Source><RequestorID Type="88" ID="R1" MessagePassword="pw"/></Source>
  </POS>
  <BookingInfo>
    <BasicInfo TourActivityID="A1"/>
    <ParticipantInfo>
      <Category QualifierInfo="10"/>
      <Individual Age="30" ParticipantID="1"><GivenName>Ana</GivenName><Surname>Ruiz</Surname></Individual>
    </ParticipantInfo>
    <Schedule Start="2025-07-03T09:00:00" End="2025-07-03T17:00:00"/>
    <PickupDropoff DateTime="2025-07-03T08:50:00" LocationName="H1" PickupInd="true"/>
  </BookingInfo>
</OTA_TourActivityBookRQ>"#;

/// A small valid search.
const SEARCH: &str = r#"<OTA_TourActivitySearchRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2">
  <POS>
    <Source><RequestorID Type="22" ID="R1"/></Source>
    <Source><RequestorID Type="88" ID="R1" MessagePassword="pw"/></Source>
  </POS>
  <SearchCriteria>
    <DateTimePref Start="2025-08-01" End="2025-08-15"/>
    <LocationPref Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></LocationPref>
  </SearchCriteria>
</OTA_TourActivitySearchRQ>"#;

/// A small valid availability request.
const AVAIL: &str = r#"<OTA_TourActivityAvailRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2">
  <POS>
    <Source><RequestorID Type="22" ID="R1"/></Source>
    <Source><RequestorID Type="88" ID="R1" MessagePassword="pw"/></Source>
  </POS>
  <TourActivity>
    <Location Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></Location>
    <Schedule StartPeriod="2025-07-02" EndPeriod="2025-07-07"/>
    <ParticipantCount Quantity="2"><QualifierInfo>10</QualifierInfo></ParticipantCount>
    <MultimodalOffer><RequestedOffer><GuidelinePricing>
      <MaximumPrice Amount="350.00" CurrencyCode="EUR"/>
    </GuidelinePricing></RequestedOffer></MultimodalOffer>
  </TourActivity>
</OTA_TourActivityAvailRQ>"#;

const BOOK_ROOT: &str = "/OTA_TourActivityBookRQ";
const BOOKING_INFO: &str = "/OTA_TourActivityBookRQ/BookingInfo";
const INDIVIDUAL: &str = "/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual";
const MAXIMUM_PRICE: &str =
    "/OTA_TourActivityAvailRQ/TourActivity/MultimodalOffer/RequestedOffer/GuidelinePricing/MaximumPrice";

fn sample(name: &str) -> String {
    let path = format!("{}/../spec/samples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Replaces the one occurrence of `from` (so a test can never silently edit nothing).
fn edit(base: &str, from: &str, to: &str) -> String {
    assert_eq!(base.matches(from).count(), 1, "{from:?} must occur exactly once in the base document");
    base.replacen(from, to, 1)
}

/// Line and column (1-based, in characters) of the one occurrence of `needle` in `xml`.
fn at(xml: &str, needle: &str) -> (u32, u32) {
    assert_eq!(xml.matches(needle).count(), 1, "{needle:?} must occur exactly once in the document");
    let offset = xml.find(needle).unwrap();
    position(xml, offset)
}

/// Line and column of a byte offset.
fn position(xml: &str, offset: usize) -> (u32, u32) {
    let before = &xml[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line as u32, column as u32)
}

/// Decodes `xml`, which must be rejected.
fn reject(xml: &str) -> DecodeError {
    match AnyRequest::from_xml(xml) {
        Ok(value) => panic!("accepted a bad document as {value:?}"),
        Err(e) => e,
    }
}

/// Asserts the path and the position of an error (and prints it whole when they differ).
#[track_caller]
fn assert_where(err: &DecodeError, path: &str, (line, column): (u32, u32)) {
    assert_eq!(err.path, path, "path of {err:?}");
    assert_eq!((err.line, err.column), (line, column), "line:column of {err:?}");
}

#[test]
fn the_base_documents_are_valid() {
    for xml in [BOOK, SEARCH, AVAIL] {
        if let Err(e) = AnyRequest::from_xml(xml) {
            panic!("{e}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Root and namespaces
// ---------------------------------------------------------------------------------------------

#[test]
fn wrong_root_element() {
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<!-- a comment -->\n{}",
        BOOK.replace("OTA_TourActivityBookRQ", "OTA_TourActivityBookRS")
    );
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::WrongRoot { expected, found } if found == "OTA_TourActivityBookRS" && expected == AnyRequest::ROOTS),
        "{err:?}"
    );
    assert_where(&err, "/OTA_TourActivityBookRS", (3, 1));
}

#[test]
fn root_of_another_message_for_a_specific_type() {
    let err = OtaTourActivityBookRq::from_xml(SEARCH).unwrap_err();
    assert!(
        matches!(&err.kind, DecodeErrorKind::WrongRoot { expected, found } if found == "OTA_TourActivitySearchRQ" && expected == &["OTA_TourActivityBookRQ"]),
        "{err:?}"
    );
    assert_where(&err, "/OTA_TourActivitySearchRQ", (1, 1));
}

#[test]
fn wrong_namespace_on_root() {
    let xml = format!("<?xml version=\"1.0\"?>\n{}", edit(BOOK, OTA, "http://www.opentravel.org/OTA/2003/06"));
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::WrongNamespace { element, found: Some(ns) }
            if element == "OTA_TourActivityBookRQ" && ns == "http://www.opentravel.org/OTA/2003/06"),
        "{err:?}"
    );
    assert_where(&err, BOOK_ROOT, (2, 1));
}

#[test]
fn missing_namespace() {
    let xml = edit(BOOK, &format!(r#" xmlns="{OTA}""#), "");
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::WrongNamespace { element, found: None } if element == "OTA_TourActivityBookRQ"),
        "{err:?}"
    );
    assert_where(&err, BOOK_ROOT, (1, 1));
}

#[test]
fn child_element_in_another_namespace() {
    let xml = edit(BOOK, "<POS>", r#"<POS xmlns="urn:other">"#);
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::WrongNamespace { element, found: Some(ns) } if element == "POS" && ns == "urn:other"),
        "{err:?}"
    );
    assert_where(&err, BOOK_ROOT, at(&xml, "<POS"));
    assert_eq!(at(&xml, "<POS"), (2, 3));
}

#[test]
fn prefixed_root_with_unqualified_children() {
    let xml = edit(
        &edit(BOOK, "<OTA_TourActivityBookRQ xmlns=", "<ota:OTA_TourActivityBookRQ xmlns:ota="),
        "</OTA_TourActivityBookRQ>",
        "</ota:OTA_TourActivityBookRQ>",
    );
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::WrongNamespace { element, found: None } if element == "POS"),
        "{err:?}"
    );
    assert_where(&err, BOOK_ROOT, (2, 3));
}

// ---------------------------------------------------------------------------------------------
// Malformed XML
// ---------------------------------------------------------------------------------------------

fn assert_malformed(err: &DecodeError) {
    assert!(matches!(&err.kind, DecodeErrorKind::Malformed(_)), "{err:?}");
}

#[test]
fn malformed_mismatched_tag() {
    let xml = edit(BOOK, "Ruiz</Surname>", "Ruiz</Surnam>");
    let err = reject(&xml);
    assert_malformed(&err);
    assert_where(&err, "", at(&xml, "</Surnam>"));
    assert_eq!(at(&xml, "</Surnam>"), (10, 85));
}

/// The document is cut off inside `<BookingInfo>`: it is rejected as malformed.
#[test]
fn malformed_truncated_document_is_rejected() {
    let cut = BOOK.find("<ParticipantInfo>").unwrap();
    let err = reject(&BOOK[..cut]);
    assert_malformed(&err);
    assert_eq!(err.path, "");
}

/// Where a truncated document is reported: at its end, where more input was expected.
#[test]
fn malformed_truncated_document_position() {
    let xml = &BOOK[..BOOK.find("<ParticipantInfo>").unwrap()];
    let err = reject(xml);
    assert_malformed(&err);
    assert_where(&err, "", position(xml, xml.len()));
    assert_eq!(position(xml, xml.len()), (8, 5));

    // Cut inside a tag: the same.
    let xml = &BOOK[..BOOK.find("TourActivityID").unwrap()];
    let err = reject(xml);
    assert_malformed(&err);
    assert_where(&err, "", position(xml, xml.len()));
}

#[test]
fn malformed_unquoted_attribute() {
    let xml = edit(BOOK, r#"Age="30""#, "Age=30");
    let err = reject(&xml);
    assert_malformed(&err);
    // Points at the value that should have been quoted.
    let (line, col) = at(&xml, "Age=30");
    assert_where(&err, "", (line, col + 4));
}

#[test]
fn malformed_duplicate_attribute() {
    let xml =
        edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo TourActivityID="A1" TourActivityID="A2"/>"#);
    let err = reject(&xml);
    assert_malformed(&err);
    // Points at the second occurrence.
    assert_where(&err, "", at(&xml, r#"TourActivityID="A2""#));
    assert_eq!(at(&xml, r#"TourActivityID="A2""#), (7, 36));
}

#[test]
fn malformed_empty_input() {
    for xml in ["", "   \n  ", "<?xml version=\"1.0\"?>"] {
        let err = reject(xml);
        assert_malformed(&err);
        assert_where(&err, "", (1, 1));
    }
}

#[test]
fn malformed_trailing_element_after_the_root() {
    let xml = format!("{BOOK}\n<OTA_TourActivityBookRQ/>");
    let err = reject(&xml);
    assert_malformed(&err);
    assert_where(&err, "", (16, 1));
}

#[test]
fn malformed_trailing_text_after_the_root() {
    let xml = format!("{BOOK} junk");
    let err = reject(&xml);
    assert_malformed(&err);
    assert_where(&err, "", (15, 27));
}

// ---------------------------------------------------------------------------------------------
// DOCTYPE
// ---------------------------------------------------------------------------------------------

const BILLION_LAUGHS: &str = r#"<!DOCTYPE OTA_TourActivityBookRQ [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
"#;

#[test]
fn doctype_billion_laughs() {
    let xml = format!("{BILLION_LAUGHS}{}", edit(BOOK, ">Ana<", ">&lol9;<"));
    let started = Instant::now();
    let err = reject(&xml);
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(matches!(err.kind, DecodeErrorKind::Doctype), "{err:?}");
    assert_where(&err, "", (1, 1));
}

#[test]
fn doctype_external_entity_xxe() {
    let xml = format!(
        "<!DOCTYPE OTA_TourActivityBookRQ [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n{}",
        edit(BOOK, ">Ana<", ">&xxe;<")
    );
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::Doctype), "{err:?}");
    assert_where(&err, "", (1, 1));
}

#[test]
fn doctype_plain() {
    let xml = format!("<!DOCTYPE x>{BOOK}");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::Doctype), "{err:?}");
    assert_where(&err, "", (1, 1));
}

#[test]
fn doctype_after_the_xml_declaration_is_rejected() {
    let xml = format!("<?xml version=\"1.0\"?>\n<!DOCTYPE x>\n{BOOK}");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::Doctype), "{err:?}");
    assert_eq!(err.path, "");
}

#[test]
fn doctype_after_the_xml_declaration_position() {
    let xml = format!("<?xml version=\"1.0\"?>\n<!DOCTYPE x>\n{BOOK}");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::Doctype), "{err:?}");
    assert_where(&err, "", (2, 1));
}

// ---------------------------------------------------------------------------------------------
// Unknown elements and attributes
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_element() {
    let xml = edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo TourActivityID="A1"/><Colour/>"#);
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::UnexpectedElement { name, expected }
            if name == "Colour" && expected == &["ParticipantInfo", "PaymentInfo", "Schedule", "PickupDropoff"]),
        "the elements that may still occur (not BasicInfo, which did): {err:?}"
    );
    assert_where(&err, BOOKING_INFO, at(&xml, "<Colour"));
    assert_eq!(at(&xml, "<Colour"), (7, 37));
}

#[test]
fn unknown_attribute() {
    let xml = edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo TourActivityID="A1" Colour="red"/>"#);
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::UnexpectedAttribute { name, expected }
            if name == "Colour" && expected == &["TourActivityID", "SupplierProductCode", "SupplierServiceCode"]),
        "{err:?}"
    );
    assert_where(&err, "/OTA_TourActivityBookRQ/BookingInfo/BasicInfo", (7, 36));
}

#[test]
fn unknown_attribute_in_a_foreign_namespace() {
    let xml = edit(BOOK, r#"Version="2011.2">"#, r#"Version="2011.2" xmlns:x="urn:x" x:Colour="red">"#);
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::UnexpectedAttribute { name, .. } if name == "{urn:x}Colour"),
        "{err:?}"
    );
    assert_where(&err, BOOK_ROOT, at(&xml, "x:Colour"));
}

#[test]
fn attribute_on_a_simple_typed_element() {
    let xml = edit(BOOK, "<GivenName>", r#"<GivenName Lang="es">"#);
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::UnexpectedAttribute { name, expected } if name == "Lang" && expected.is_empty()),
        "{err:?}"
    );
    assert_where(
        &err,
        "/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual/GivenName",
        at(&xml, "Lang="),
    );
}

/// `UnexpectedAttribute::name` is documented as "with `{namespace}` when qualified": it is on
/// complex-typed elements, but not on simple-typed ones.
#[test]
fn foreign_attribute_on_a_simple_typed_element_is_named_with_its_namespace() {
    let xml = edit(BOOK, "<GivenName>", r#"<GivenName xmlns:x="urn:x" x:Lang="es">"#);
    let err = reject(&xml);
    assert!(matches!(&err.kind, DecodeErrorKind::UnexpectedAttribute { name, .. } if name == "{urn:x}Lang"), "{err:?}");
    assert_where(
        &err,
        "/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual/GivenName",
        at(&xml, "x:Lang"),
    );
}

#[test]
fn stray_text_in_an_element_only_element() {
    let xml = edit(BOOK, "<POS>", "<POS>hello");
    let err = reject(&xml);
    assert!(matches!(&err.kind, DecodeErrorKind::UnexpectedText { text } if text == "hello"), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/POS", (2, 8));
}

#[test]
fn stray_text_in_an_empty_element() {
    let xml = edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo TourActivityID="A1">oops</BasicInfo>"#);
    let err = reject(&xml);
    assert!(matches!(&err.kind, DecodeErrorKind::UnexpectedText { text } if text == "oops"), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/BookingInfo/BasicInfo", at(&xml, "oops"));
}

// ---------------------------------------------------------------------------------------------
// Occurrences, order, choice
// ---------------------------------------------------------------------------------------------

#[test]
fn second_occurrence_of_a_single_element() {
    let second = r#"<Schedule Start="2025-07-04T09:00:00" End="2025-07-04T17:00:00"/>"#;
    let xml = edit(BOOK, "\n    <PickupDropoff", &format!("\n    {second}\n    <PickupDropoff"));
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::TooMany { name: "Schedule", max: 1 }), "{err:?}");
    assert_where(&err, BOOKING_INFO, (13, 5));
    assert_eq!(at(&xml, second), (13, 5));
}

#[test]
fn eleventh_pos_source() {
    // OpenTravel 2016B allows ten Sources (authentication reads the Type 22 and Type 88 ones).
    let more = r#"<Source><RequestorID Type="22" ID="R3"/></Source>"#.repeat(9);
    let xml = edit(BOOK, "\n  </POS>", &format!("\n    {more}\n  </POS>"));
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::TooMany { name: "Source", max: 10 }), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/POS", (5, 397));
}

#[test]
fn missing_required_element_before_another() {
    let xml = edit(BOOK, "\n    <Schedule Start=\"2025-07-03T09:00:00\" End=\"2025-07-03T17:00:00\"/>", "");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::MissingElement { name: "Schedule" }), "{err:?}");
    // Points at the parent: in any order, an element is missing only once its parent ends.
    assert_where(&err, BOOKING_INFO, at(&xml, "<BookingInfo"));
    assert_eq!(at(&xml, "<BookingInfo"), (6, 3));
}

#[test]
fn missing_required_element_at_the_end() {
    let start = BOOK.find("\n  <BookingInfo>").unwrap();
    let end = BOOK.find("\n</OTA_TourActivityBookRQ>").unwrap();
    let xml = format!("{}{}", &BOOK[..start], &BOOK[end..]);
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::MissingElement { name: "BookingInfo" }), "{err:?}");
    // Points at the parent that ends without it.
    assert_where(&err, BOOK_ROOT, (1, 1));
}

#[test]
fn missing_required_attribute() {
    let xml = edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, "<BasicInfo/>");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::MissingAttribute { name: "TourActivityID" }), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/BookingInfo/BasicInfo", (7, 5));
}

#[test]
fn missing_required_version_on_the_root() {
    let xml = edit(BOOK, r#" Version="2011.2""#, "");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::MissingAttribute { name: "Version" }), "{err:?}");
    assert_where(&err, BOOK_ROOT, (1, 1));
}

/// The children of a sequence may come in any order (spec/README.md, "Where the decoder is more
/// lenient than xmllint"): the value is the same, and encoding writes the declared order.
#[test]
fn elements_out_of_sequence_order_are_accepted() {
    let xml = edit(
        BOOK,
        "<GivenName>Ana</GivenName><Surname>Ruiz</Surname>",
        "<Surname>Ruiz</Surname><GivenName>Ana</GivenName>",
    );
    let xml = edit(&xml, "\n    <BasicInfo TourActivityID=\"A1\"/>", "");
    let xml = edit(&xml, "\n  </BookingInfo>", "\n    <BasicInfo TourActivityID=\"A1\"/>\n  </BookingInfo>");
    let shuffled = OtaTourActivityBookRq::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    let ordered = OtaTourActivityBookRq::from_xml(BOOK).unwrap();
    assert_eq!(shuffled, ordered);
    let out = shuffled.to_xml().unwrap();
    assert!(out.find("<BasicInfo").unwrap() < out.find("<ParticipantInfo").unwrap(), "{out}");
    assert!(out.find("<GivenName").unwrap() < out.find("<Surname").unwrap(), "{out}");
}

/// The room stay in the order the service description lists its children (RoomTypes,
/// RoomRates, BasicPropertyInfo, TPA_Extensions, Reference, TimeSpan, ResGuestRPHs,
/// ServiceRPHs, Total): the same booking as the sample's order.
#[test]
fn a_room_stay_in_the_order_of_the_service_description() {
    let base = sample("hotel_res_modify.xml");
    let doc = roxmltree::Document::parse(&base).unwrap();
    let stay = doc.descendants().find(|n| n.has_tag_name((OTA, "RoomStay"))).unwrap();
    let children: Vec<_> = stay.children().filter(|c| c.is_element()).collect();
    let order = [
        "RoomTypes",
        "RoomRates",
        "BasicPropertyInfo",
        "TPA_Extensions",
        "Reference",
        "TimeSpan",
        "ResGuestRPHs",
        "ServiceRPHs",
        "Total",
    ];
    assert_eq!(children.len(), order.len(), "the sample's first RoomStay has each child once");
    let body: String = order
        .iter()
        .map(|name| &base[children.iter().find(|c| c.tag_name().name() == *name).unwrap().range()])
        .collect::<Vec<_>>()
        .join("\n");
    let (start, end) = (children[0].range().start, children[children.len() - 1].range().end);
    let xml = format!("{}{body}{}", &base[..start], &base[end..]);
    assert_ne!(xml, base);
    let reordered = AnyRequest::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reordered, AnyRequest::from_xml(&base).unwrap());
}

/// In any order, a single element still occurs once, and the second occurrence is the error.
#[test]
fn a_single_element_repeated_after_others() {
    let again = r#"<BasicInfo TourActivityID="A2"/>"#;
    let xml = edit(BOOK, "\n  </BookingInfo>", &format!("\n    {again}\n  </BookingInfo>"));
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::TooMany { name: "BasicInfo", max: 1 }), "{err:?}");
    assert_where(&err, BOOKING_INFO, at(&xml, again));
}

/// Repeated elements keep their document order, whatever comes between them.
#[test]
fn repeated_elements_split_by_others_keep_their_order() {
    let second = "<ParticipantInfo>\n      <Category QualifierInfo=\"8\"/>\n    </ParticipantInfo>";
    let xml = edit(BOOK, "\n  </BookingInfo>", &format!("\n    {second}\n  </BookingInfo>"));
    let rq = accept_book(&xml);
    let qualifiers: Vec<String> = rq
        .booking_info
        .participant_info
        .iter()
        .map(|p| format!("{:?}", p.category.as_ref().map(|c| &c.qualifier_info_attr)))
        .collect();
    assert_eq!(qualifiers, ["Some(Some(Adult))", "Some(Some(Child))"], "10 (adult) first, then the added 8 (child)");
}

/// The elements of a choice's alternative may come in any order too, mixed with the others;
/// the alternatives stay exclusive.
#[test]
fn an_alternative_in_any_order() {
    let base = sample("tour_activity_book.rs.xml");
    let doc = roxmltree::Document::parse(&base).unwrap();
    let root = doc.root_element();
    let children: Vec<_> = root.children().filter(|c| c.is_element()).collect();
    assert_eq!(children.first().map(|c| c.tag_name().name()), Some("Success"));
    let mut parts: Vec<&str> = children.iter().map(|c| &base[c.range()]).collect();
    parts.reverse();
    let (start, end) = (children[0].range().start, children[children.len() - 1].range().end);
    let xml = format!("{}{}{}", &base[..start], parts.join(""), &base[end..]);
    let reversed = AnyMessage::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reversed, AnyMessage::from_xml(&base).unwrap());

    // Success after the payload, then Errors: still both alternatives.
    let xml =
        format!("{}{}<Errors><Error Type=\"3\">x</Error></Errors>{}", &base[..start], parts.join(""), &base[end..]);
    let err = AnyMessage::from_xml(&xml).unwrap_err();
    assert!(matches!(&err.kind, DecodeErrorKind::ChoiceConflict { second, .. } if second == "Errors"), "{err:?}");
    // The payload without Success: the alternative is incomplete.
    let payload: String = parts.iter().filter(|p| !p.starts_with("<Success")).copied().collect();
    let xml = format!("{}{payload}{}", &base[..start], &base[end..]);
    let err = AnyMessage::from_xml(&xml).unwrap_err();
    assert!(matches!(err.kind, DecodeErrorKind::MissingElement { name: "Success" }), "{err:?}");
    assert_eq!((err.line, err.column), (1, 1), "at the root, which ends without it: {err:?}");
}

#[test]
fn both_alternatives_of_a_choice() {
    let base = sample("hotel_res_modify.xml");
    let xml = edit(
        &base,
        "<OperatingAirline FlightNumber=\"UX6011\"/>\n                  </ConnectingTransport>",
        "<OperatingAirline FlightNumber=\"UX6011\"/>\n                  </ConnectingTransport><Hotel HotelCode=\"H9\"/>",
    );
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::ChoiceConflict { first: "ConnectingTransport", second } if second == "Hotel"),
        "{err:?}"
    );
    assert_where(
        &err,
        "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/Services/Service[3]/TPA_Extensions/TransferInfoType/TransferLeg[1]/TransferOrigin",
        at(&xml, r#"<Hotel HotelCode="H9""#),
    );
}

#[test]
fn both_alternatives_of_a_choice_the_other_way_round() {
    let base = sample("hotel_res_modify.xml");
    let xml = edit(
        &base,
        r#"<TransferOrigin><Hotel HotelCode="HTL00042"/></TransferOrigin>"#,
        r#"<TransferOrigin><Hotel HotelCode="HTL00042"/><ConnectingTransport/></TransferOrigin>"#,
    );
    let err = reject(&xml);
    assert!(
        matches!(&err.kind, DecodeErrorKind::ChoiceConflict { first: "Hotel", second } if second == "ConnectingTransport"),
        "{err:?}"
    );
    assert_where(
        &err,
        "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/Services/Service[3]/TPA_Extensions/TransferInfoType/TransferLeg[2]/TransferOrigin",
        at(&xml, "<ConnectingTransport/>"),
    );
}

// ---------------------------------------------------------------------------------------------
// Value shapes
// ---------------------------------------------------------------------------------------------

/// Asserts an `InvalidValue` of `target` holding `value`.
#[track_caller]
fn assert_invalid(err: &DecodeError, target: &str, value: &str) {
    assert!(
        matches!(&err.kind, DecodeErrorKind::InvalidValue { target: t, value: v, .. } if t == target && v == value),
        "expected an invalid {target} {value:?}, got {err:?}"
    );
}

/// A bad attribute value is reported at the value (just inside the quote).
fn value_at(xml: &str, attribute_and_value: &str) -> (u32, u32) {
    let (line, col) = at(xml, attribute_and_value);
    let quote = attribute_and_value.find('"').unwrap();
    (line, col + quote as u32 + 1)
}

#[test]
fn non_numeric_integer() {
    let xml = edit(BOOK, r#"Age="30""#, r#"Age="thirty""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Age", "thirty");
    assert_where(&err, INDIVIDUAL, value_at(&xml, r#"Age="thirty""#));
    assert_eq!(value_at(&xml, r#"Age="thirty""#), (10, 24));
}

#[test]
fn negative_non_negative_integer() {
    let xml = edit(BOOK, r#"Age="30""#, r#"Age="-1""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Age", "-1");
    assert_where(&err, INDIVIDUAL, value_at(&xml, r#"Age="-1""#));
}

#[test]
fn integer_with_spaces() {
    let xml = edit(BOOK, r#"Age="30""#, r#"Age=" 36 ""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Age", " 36 ");
    assert_where(&err, INDIVIDUAL, value_at(&xml, r#"Age=" 36 ""#));
}

#[test]
fn impossible_date() {
    let xml = edit(SEARCH, r#"Start="2025-08-01""#, r#"Start="2026-02-30""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Start", "2026-02-30");
    assert_where(
        &err,
        "/OTA_TourActivitySearchRQ/SearchCriteria/DateTimePref",
        value_at(&xml, r#"Start="2026-02-30""#),
    );
    assert_eq!(value_at(&xml, r#"Start="2026-02-30""#), (7, 26));
}

#[test]
fn date_with_a_zone() {
    let xml = edit(SEARCH, r#"End="2025-08-15""#, r#"End="2025-08-15Z""#);
    let err = reject(&xml);
    assert_invalid(&err, "@End", "2025-08-15Z");
    assert_where(&err, "/OTA_TourActivitySearchRQ/SearchCriteria/DateTimePref", value_at(&xml, r#"End="2025-08-15Z""#));
}

#[test]
fn local_date_time_with_a_zone() {
    let xml = edit(BOOK, r#"DateTime="2025-07-03T08:50:00""#, r#"DateTime="2025-07-03T08:50:00+02:00""#);
    let err = reject(&xml);
    assert_invalid(&err, "@DateTime", "2025-07-03T08:50:00+02:00");
    assert_where(
        &err,
        "/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff",
        value_at(&xml, r#"DateTime="2025-07-03T08:50:00+02:00""#),
    );
}

#[test]
fn decimal_with_a_comma() {
    let xml = edit(AVAIL, r#"Amount="350.00""#, r#"Amount="1,5""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Amount", "1,5");
    assert_where(&err, MAXIMUM_PRICE, value_at(&xml, r#"Amount="1,5""#));
    assert_eq!(value_at(&xml, r#"Amount="1,5""#), (11, 29));
}

#[test]
fn decimal_with_an_exponent() {
    let xml = edit(AVAIL, r#"Amount="350.00""#, r#"Amount="1e5""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Amount", "1e5");
    assert_where(&err, MAXIMUM_PRICE, value_at(&xml, r#"Amount="1e5""#));
}

#[test]
fn negative_money() {
    let xml = edit(AVAIL, r#"Amount="350.00""#, r#"Amount="-0.01""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Amount", "-0.01");
    assert_where(&err, MAXIMUM_PRICE, value_at(&xml, r#"Amount="-0.01""#));
}

#[test]
fn bad_boolean() {
    let xml = edit(BOOK, r#"PickupInd="true""#, r#"PickupInd="yes""#);
    let err = reject(&xml);
    assert_invalid(&err, "@PickupInd", "yes");
    assert_where(&err, "/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff", value_at(&xml, r#"PickupInd="yes""#));
}

#[test]
fn wrong_currency_code() {
    let xml = edit(AVAIL, r#"CurrencyCode="EUR""#, r#"CurrencyCode="eur""#);
    let err = reject(&xml);
    assert_invalid(&err, "@CurrencyCode", "eur");
    assert_where(&err, MAXIMUM_PRICE, value_at(&xml, r#"CurrencyCode="eur""#));
}

#[test]
fn unknown_value_of_a_closed_list() {
    let xml = edit(SEARCH, r#"Context="Source""#, r#"Context="Other""#);
    let err = reject(&xml);
    assert_invalid(&err, "@Context", "Other");
    assert_where(
        &err,
        "/OTA_TourActivitySearchRQ/SearchCriteria/LocationPref[1]",
        value_at(&xml, r#"Context="Other""#),
    );
}

#[test]
fn bad_element_text_value() {
    let xml = edit(AVAIL, "<QualifierInfo>10</QualifierInfo>", "<QualifierInfo>ten</QualifierInfo>");
    let err = reject(&xml);
    assert_invalid(&err, "text", "ten");
    // Element content is reported at its element.
    assert_where(
        &err,
        "/OTA_TourActivityAvailRQ/TourActivity/ParticipantCount[1]/QualifierInfo",
        at(&xml, "<QualifierInfo>"),
    );
}

/// A `Version` not even of the form of a version is told apart from other bad values, with the
/// version the message is for, so that a service answers it like any other unsupported one.
#[test]
fn bad_version_number() {
    for bad in ["2011", "1.000", "4.000", ""] {
        let attr = format!(r#"Version="{bad}""#);
        let xml = edit(BOOK, r#"Version="2011.2""#, &attr);
        for err in [reject(&xml), AnyRequest::from_xml_with_yaserde(&xml).unwrap_err()] {
            assert!(
                matches!(&err.kind, DecodeErrorKind::InvalidVersion { value, supported: "2011.2", .. } if value == bad),
                "{err:?}"
            );
            assert_where(&err, BOOK_ROOT, value_at(&xml, &attr));
            assert_eq!(err.count(), 1);
        }
    }
    let err = reject(&edit(BOOK, r#"Version="2011.2""#, r#"Version="1.000""#));
    assert_eq!(
        err.to_string(),
        "1:80: /OTA_TourActivityBookRQ: invalid version \"1.000\" in @Version: expected a value matching the pattern [0-9]{4}\\.[0-9]+ (VersionNumber) (the supported version is 2011.2)"
    );
    // A version of the right form is the service's business: it decodes.
    assert!(AnyRequest::from_xml(&edit(BOOK, r#"Version="2011.2""#, r#"Version="2010.1""#)).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Hostile nesting
// ---------------------------------------------------------------------------------------------

const DEPTH: usize = 100_000;

#[test]
fn deep_nesting_of_an_unknown_element_inside_a_known_one() {
    let nest = format!("{}{}", "<X>".repeat(DEPTH), "</X>".repeat(DEPTH));
    let xml = edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, &format!(r#"<BasicInfo TourActivityID="A1"/>{nest}"#));
    let started = Instant::now();
    let err = reject(&xml);
    let elapsed = started.elapsed();
    assert!(
        matches!(&err.kind, DecodeErrorKind::UnexpectedElement { name, expected }
            if name == "X" && expected == &["ParticipantInfo", "PaymentInfo", "Schedule", "PickupDropoff"]),
        "{err:?}"
    );
    assert_where(&err, BOOKING_INFO, (7, 37));
    assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");
}

#[test]
fn deep_nesting_inside_a_simple_typed_element() {
    let nest = format!("{}{}", "<X>".repeat(DEPTH), "</X>".repeat(DEPTH));
    let xml = edit(BOOK, "<GivenName>Ana</GivenName>", &format!("<GivenName>{nest}</GivenName>"));
    let started = Instant::now();
    let err = reject(&xml);
    let elapsed = started.elapsed();
    assert!(matches!(&err.kind, DecodeErrorKind::UnexpectedElement { name, .. } if name == "X"), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual/GivenName", (10, 57));
    assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");
}

#[test]
fn deep_nesting_of_an_unknown_root() {
    let xml = format!("{}{}", "<X>".repeat(DEPTH), "</X>".repeat(DEPTH));
    let started = Instant::now();
    let err = reject(&xml);
    let elapsed = started.elapsed();
    assert!(matches!(&err.kind, DecodeErrorKind::WrongRoot { found, .. } if found == "X"), "{err:?}");
    assert_where(&err, "/X", (1, 1));
    assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");
}

// ---------------------------------------------------------------------------------------------
// Accepted
// ---------------------------------------------------------------------------------------------

#[test]
fn xsi_schema_location_on_the_root_is_accepted() {
    let xml = edit(
        BOOK,
        r#"Version="2011.2">"#,
        r#"Version="2011.2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opentravel.org/OTA/2003/05 tour_activity_book.xsd">"#,
    );
    let with = AnyRequest::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    let without = AnyRequest::from_xml(BOOK).unwrap();
    assert_eq!(with, without);
}

#[test]
fn unknown_values_of_open_lists_are_kept_verbatim() {
    let xml = edit(
        &edit(BOOK, r#"Version="2011.2">"#, r#"Version="2011.2" ResStatus="Hold-For-Review">"#),
        r#"<RequestorID Type="22" ID="R1"/>"#,
        r#"<RequestorID Type="22" ID="R1" Instance="X1"/>"#,
    );
    let rq = OtaTourActivityBookRq::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rq.res_status, Some(ResStatus::Other("Hold-For-Review".to_string())));
    assert_eq!(rq.pos.source[0].requestor_id.instance, Some(RequestorInstance::Other("X1".to_string())));

    let out = rq.to_xml().unwrap();
    assert!(out.contains(r#" ResStatus="Hold-For-Review""#), "{out}");
    assert!(out.contains(r#" Instance="X1""#), "{out}");
    assert_eq!(OtaTourActivityBookRq::from_xml(&out).unwrap_or_else(|e| panic!("{e}\n{out}")), rq);
}

#[test]
fn known_values_of_open_lists_are_not_other() {
    let xml = edit(BOOK, r#"Version="2011.2">"#, r#"Version="2011.2" ResStatus="Commit">"#);
    let rq = OtaTourActivityBookRq::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rq.res_status, Some(ResStatus::Commit));
}

#[test]
fn spaces_around_free_text_are_kept() {
    let xml = edit(&edit(BOOK, ">Ana<", ">  Ana  <"), ">Ruiz<", ">\tRuiz \n<");
    let rq = OtaTourActivityBookRq::from_xml(&xml).unwrap_or_else(|e| panic!("{e}"));
    let individual = rq.booking_info.participant_info[0].individual.as_ref().unwrap();
    assert_eq!(individual.given_name.as_deref(), Some("  Ana  "));
    assert_eq!(individual.surname.as_deref(), Some("\tRuiz \n"));

    for out in [rq.to_xml().unwrap(), rq.to_xml_pretty().unwrap()] {
        assert!(out.contains("<GivenName>  Ana  </GivenName>"), "{out}");
        let again = OtaTourActivityBookRq::from_xml(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(again, rq, "{out}");
    }
}

// ---------------------------------------------------------------------------------------------
// Display
// ---------------------------------------------------------------------------------------------

#[test]
fn decode_error_display_reads_well() {
    let xml = edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo TourActivityID="A1" Colour="red"/>"#);
    assert_eq!(
        reject(&xml).to_string(),
        "7:36: /OTA_TourActivityBookRQ/BookingInfo/BasicInfo: unexpected attribute @Colour; \
         allowed: @TourActivityID, @SupplierProductCode, @SupplierServiceCode"
    );
}

#[test]
fn decode_error_display_without_a_path() {
    assert_eq!(reject("").to_string(), "1:1: not well-formed XML: the document does not have a root node");
}

#[test]
fn decode_error_display_of_a_value() {
    let xml = edit(BOOK, r#"Age="30""#, r#"Age="-1""#);
    assert_eq!(
        reject(&xml).to_string(),
        "10:24: /OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual: \
         invalid value \"-1\" in @Age: expected a non-negative integer"
    );
}

// ---------------------------------------------------------------------------------------------
// Valid documents that must decode to exactly what they say and re-encode unchanged
// ---------------------------------------------------------------------------------------------

/// Decodes a booking that must be accepted, and checks its re-encoded form decodes to the same.
fn accept_book(xml: &str) -> OtaTourActivityBookRq {
    let rq = OtaTourActivityBookRq::from_xml(xml).unwrap_or_else(|e| panic!("rejected a valid document: {e}\n  {e:?}"));
    let out = rq.to_xml().unwrap();
    let again =
        OtaTourActivityBookRq::from_xml(&out).unwrap_or_else(|e| panic!("re-encoded output rejected: {e}\n{out}"));
    assert_eq!(again, rq, "the re-encoded output decodes to another value:\n{out}");
    rq
}

fn given_name(rq: &OtaTourActivityBookRq) -> Option<&str> {
    rq.booking_info.participant_info[0].individual.as_ref().and_then(|i| i.given_name.as_deref())
}

#[test]
fn comment_inside_text_is_ignored() {
    let rq = accept_book(&edit(BOOK, ">Ana<", ">An<!-- note -->a<"));
    assert_eq!(given_name(&rq), Some("Ana"));
}

#[test]
fn processing_instruction_inside_text_is_ignored() {
    let rq = accept_book(&edit(BOOK, ">Ana<", ">An<?note x?>a<"));
    assert_eq!(given_name(&rq), Some("Ana"));
}

#[test]
fn processing_instruction_inside_simple_content_keeps_all_text() {
    let xml = edit(
        BOOK,
        r#"<RequestorID Type="22" ID="R1"/>"#,
        r#"<RequestorID Type="22" ID="R1"><CompanyName Code="S">Sol<?x?> y Mar</CompanyName></RequestorID>"#,
    );
    let rq = accept_book(&xml);
    let company = rq.pos.source[0].requestor_id.company_name.as_ref().unwrap();
    assert_eq!(company.value, "Sol y Mar");
}

#[test]
fn carriage_return_in_text_round_trips() {
    let rq = accept_book(&edit(BOOK, ">Ana<", ">A&#13;na<"));
    assert_eq!(given_name(&rq), Some("A\rna"));
}

#[test]
fn tab_in_an_attribute_round_trips() {
    let rq = accept_book(&edit(BOOK, r#"MessagePassword="pw""#, r#"MessagePassword="p&#9;w""#));
    assert_eq!(rq.pos.source[1].requestor_id.message_password.as_deref(), Some("p\tw"));
}

#[test]
fn line_feed_and_carriage_return_in_an_attribute_round_trip() {
    let rq = accept_book(&edit(BOOK, r#"MessagePassword="pw""#, r#"MessagePassword="p&#10;w&#13;""#));
    assert_eq!(rq.pos.source[1].requestor_id.message_password.as_deref(), Some("p\nw\r"));
}

#[test]
fn encoding_declaration_does_not_change_the_text() {
    for encoding in ["ISO-8859-1", "windows-1252", "UTF-16", "US-ASCII", "x-unknown"] {
        let xml = format!("<?xml version=\"1.0\" encoding=\"{encoding}\"?>\n{}", edit(BOOK, ">Ana<", ">José<"));
        match OtaTourActivityBookRq::from_xml(&xml) {
            Ok(rq) => assert_eq!(given_name(&rq), Some("José"), "with encoding={encoding}"),
            Err(e) => assert!(!matches!(e.kind, DecodeErrorKind::Bind(_)), "with encoding={encoding}: {e}"),
        }
    }
}

#[test]
fn byte_order_mark_is_accepted() {
    let rq = accept_book(&format!("\u{FEFF}{BOOK}"));
    assert_eq!(given_name(&rq), Some("Ana"));
}

/// Only space, tab, CR and LF are XML white space: a no-break space is character content,
/// which an element-only or empty element may not have (xmllint rejects both documents).
#[test]
fn non_xml_white_space_in_element_only_content_is_rejected() {
    let xml = edit(BOOK, "<POS>", "<POS>\u{A0}");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::UnexpectedText { .. }), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/POS", (2, 8));

    let xml =
        edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, "<BasicInfo TourActivityID=\"A1\">\u{2003}</BasicInfo>");
    let err = reject(&xml);
    assert!(matches!(err.kind, DecodeErrorKind::UnexpectedText { .. }), "{err:?}");
    assert_where(&err, "/OTA_TourActivityBookRQ/BookingInfo/BasicInfo", (7, 36));
}

#[test]
fn empty_optional_values_are_kept() {
    let xml = edit(
        &edit(BOOK, "<GivenName>Ana</GivenName>", "<GivenName/>"),
        r#"<RequestorID Type="22" ID="R1"/>"#,
        r#"<RequestorID Type="22" ID="R1" ID_Context=""/>"#,
    );
    let rq = accept_book(&xml);
    assert_eq!(given_name(&rq), Some(""));
    assert_eq!(rq.pos.source[0].requestor_id.id_context.as_deref(), Some(""));
}

#[test]
fn zero_is_not_a_positive_integer() {
    let xml = edit(SEARCH, r#"Version="2011.2""#, r#"Version="2011.2" MaxResponses="0""#);
    let err = reject(&xml);
    assert!(matches!(&err.kind, DecodeErrorKind::InvalidValue { target, .. } if target == "@MaxResponses"), "{err}");
    assert!(AnyRequest::from_xml(&edit(SEARCH, r#"Version="2011.2""#, r#"Version="2011.2" MaxResponses="1""#)).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Several problems at once
// ---------------------------------------------------------------------------------------------

/// (path, line:column, kind) of every problem of an error, for comparisons.
fn problems(err: &DecodeError) -> Vec<(String, (u32, u32), String)> {
    err.problems().map(|p| (p.path.clone(), (p.line, p.column), p.kind.to_string())).collect()
}

#[test]
fn every_invalid_value_is_reported_in_document_order() {
    let xml = edit(
        &edit(
            &edit(BOOK, r#"Age="30""#, r#"Age="thirty""#),
            r#"Start="2025-07-03T09:00:00""#,
            r#"Start="2025-07-03T25:00:00""#,
        ),
        r#"PickupInd="true""#,
        r#"PickupInd="yes""#,
    );
    let err = reject(&xml);
    assert_eq!(err.count(), 3, "{err:#?}");
    assert_eq!(
        problems(&err),
        [
            (INDIVIDUAL.to_string(), value_at(&xml, r#"Age="thirty""#), "invalid value \"thirty\" in @Age: expected a non-negative integer".to_string()),
            (
                "/OTA_TourActivityBookRQ/BookingInfo/Schedule".to_string(),
                value_at(&xml, r#"Start="2025-07-03T25:00:00""#),
                "invalid value \"2025-07-03T25:00:00\" in @Start: expected a value matching the pattern [0-9]{4}-[0-9]{2}-[0-9]{2}(T([01][0-9]|2[0-3]):[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+\\-][0-9]{2}:[0-9]{2})?)? (DateOrDateTime)".to_string()
            ),
            (
                "/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff".to_string(),
                value_at(&xml, r#"PickupInd="yes""#),
                "invalid value \"yes\" in @PickupInd: expected true or false".to_string()
            ),
        ]
    );
    // The fields are the first problem; Display says there are more.
    assert_invalid(&err, "@Age", "thirty");
    assert!(err.to_string().ends_with("expected a non-negative integer (and 2 more problems)"), "{err}");
    assert_eq!(
        err.problem_text(),
        "10:24: /OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual: invalid value \"thirty\" in @Age: expected a non-negative integer"
    );
    assert_eq!(err.more[0].problem_text(), err.more[0].to_string());
}

#[test]
fn problems_of_every_kind_together() {
    let xml = edit(
        &edit(
            &edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo Colour="red"/><Colour/>"#),
            "\n    <Schedule Start=\"2025-07-03T09:00:00\" End=\"2025-07-03T17:00:00\"/>",
            "",
        ),
        "<POS>",
        "<POS>hello",
    );
    let err = reject(&xml);
    let kinds: Vec<String> = err.problems().map(|p| format!("{}: {}", p.path, p.kind)).collect();
    assert_eq!(
        kinds,
        [
            "/OTA_TourActivityBookRQ/POS: unexpected text \"hello\": this element holds only elements",
            "/OTA_TourActivityBookRQ/BookingInfo/BasicInfo: unexpected attribute @Colour; allowed: @TourActivityID, @SupplierProductCode, @SupplierServiceCode",
            "/OTA_TourActivityBookRQ/BookingInfo/BasicInfo: missing required attribute @TourActivityID",
            "/OTA_TourActivityBookRQ/BookingInfo: unexpected element <Colour>; expected <ParticipantInfo>, <PaymentInfo>, <Schedule>, <PickupDropoff>",
            "/OTA_TourActivityBookRQ/BookingInfo: missing required element <Schedule>",
        ]
    );
}

/// A child that fails is not also "missing", and a value inside a failed element is still
/// checked: each problem once.
#[test]
fn a_failed_child_is_not_also_missing() {
    let xml = edit(
        &edit(BOOK, r#"<Category QualifierInfo="10"/>"#, r#"<Category QualifierInfo="10" Bogus="1"/>"#),
        ">Ana<",
        "><b/><",
    );
    let err = reject(&xml);
    let kinds: Vec<String> = err.problems().map(|p| p.kind.to_string()).collect();
    assert_eq!(
        kinds,
        ["unexpected attribute @Bogus; allowed: @QualifierInfo, @Age", "unexpected element <b>; expected nothing",],
        "{err:#?}"
    );
}

#[test]
fn problems_in_repeated_elements_carry_their_index() {
    let base = sample("hotel_res_modify.xml");
    let xml = edit(
        &edit(&base, r#"<RoomStay IndexNumber="1""#, r#"<RoomStay IndexNumber="one""#),
        r#"<RoomStay IndexNumber="2""#,
        r#"<RoomStay IndexNumber="two""#,
    );
    let err = reject(&xml);
    let paths: Vec<&str> = err.problems().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays/RoomStay[1]",
            "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays/RoomStay[2]",
        ],
        "{err:#?}"
    );
}

#[test]
fn at_most_twenty_problems() {
    let bad = "<ParticipantInfo><Category QualifierInfo=\"x\"/><Individual Age=\"-1\"/></ParticipantInfo>";
    let xml = edit(BOOK, "\n  </BookingInfo>", &format!("{}\n  </BookingInfo>", bad.repeat(30)));
    let err = reject(&xml);
    assert_eq!(err.count(), ota_messages::runtime::MAX_ERRORS);
    assert_eq!(err.count(), 20);
    assert!(err.to_string().ends_with("(and 19 more problems)"), "{err}");
    // The first twenty in document order: participants 2 to 11, two problems each.
    assert_eq!(
        err.more.last().map(|p| p.path.as_str()),
        Some("/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[11]/Individual")
    );
}

/// What makes the rest meaningless stays one problem.
#[test]
fn structural_errors_are_single() {
    for xml in [
        edit(BOOK, "Ruiz</Surname>", "Ruiz</Surnam>"),
        format!("<!DOCTYPE x>{BOOK}"),
        BOOK.replace("OTA_TourActivityBookRQ", "OTA_TourActivityBookRS"),
        edit(BOOK, OTA, "urn:other"),
    ] {
        let err = reject(&xml);
        assert_eq!(err.count(), 1, "{err:#?}");
        assert!(err.more.is_empty());
    }
}

/// The generic checker in front of yaserde reports the same problems as the generated decoder.
#[test]
fn the_yaserde_path_reports_the_same_problems() {
    let xmls = [
        edit(&edit(BOOK, r#"Age="30""#, r#"Age="thirty""#), r#"PickupInd="true""#, r#"PickupInd="yes""#),
        edit(
            &edit(BOOK, r#"<BasicInfo TourActivityID="A1"/>"#, r#"<BasicInfo Colour="red"/><Colour/>"#),
            "<POS>",
            "<POS>hello",
        ),
        edit(BOOK, ">Ana<", "><b/><"),
    ];
    for xml in xmls {
        let generated = AnyRequest::from_xml(&xml).unwrap_err();
        let checked = AnyRequest::from_xml_with_yaserde(&xml).unwrap_err();
        assert!(generated.count() > 1 || xml.contains("<b/>"));
        assert_eq!(problems(&generated), problems(&checked), "{xml}");
    }
}

// ---------------------------------------------------------------------------------------------
// Line breaks
// ---------------------------------------------------------------------------------------------

/// Positions are the same whatever the line ends: LF, CR LF, or CR alone (official OTA sample
/// files use CR line ends).
#[test]
fn carriage_returns_end_lines_in_positions() {
    let lf = edit(&edit(BOOK, r#"Age="30""#, r#"Age="thirty""#), r#"PickupInd="true""#, r#"PickupInd="yes""#);
    let expected = [value_at(&lf, r#"Age="thirty""#), value_at(&lf, r#"PickupInd="yes""#)];
    for (name, xml) in [("LF", lf.clone()), ("CR LF", lf.replace('\n', "\r\n")), ("CR", lf.replace('\n', "\r"))] {
        let err = reject(&xml);
        let positions: Vec<(u32, u32)> = err.problems().map(|p| (p.line, p.column)).collect();
        assert_eq!(positions, expected, "{name}: {err:#?}");
    }
    assert_eq!(expected[0], (10, 24));
}

#[test]
fn carriage_returns_end_lines_in_parse_errors() {
    let lf = edit(BOOK, "Ruiz</Surname>", "Ruiz</Surnam>");
    let at = at(&lf, "</Surnam>");
    for xml in [lf.replace('\n', "\r\n"), lf.replace('\n', "\r")] {
        let err = reject(&xml);
        assert_malformed(&err);
        assert_eq!((err.line, err.column), at, "{err}");
        // The message names the same position as the fields.
        assert!(err.to_string().starts_with(&format!("{}:{}: not well-formed XML", at.0, at.1)), "{err}");
        assert!(!err.to_string().contains(" at 1:"), "{err}");
    }
    // A truncated document: at its end.
    let cr = BOOK.replace('\n', "\r");
    let cut = &cr[..cr.find("<ParticipantInfo>").unwrap()];
    let err = reject(cut);
    assert_eq!((err.line, err.column), (8, 5), "{err}");
}
