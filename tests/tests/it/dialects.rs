//! The spec's dialects on real messages: decoders take every dialect's form of a field (a
//! room stay's `IndexNumber` for `RPH`, guests listed as text for `ResGuestRPH` elements) and
//! each form decodes to the same value; encoders write the dialect asked for, the default one
//! byte for byte as before, and what a dialect writes decodes back to the same value but for
//! what it does not write (the random documents of `properties.rs` check this for every message
//! in both dialects).

use ota_messages::booking_read::OtaResRetrieveRs;
use ota_messages::hotel_res::OtaHotelResRq;
use ota_messages::runtime::{DecodeErrorKind, Message};
use ota_messages::{AnyMessage, Dialect};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn sample(name: &str) -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/samples/").to_string() + name).unwrap()
}

/// `<ResGuestRPHs><ResGuestRPH RPH="1"/>…</ResGuestRPHs>` → `<ResGuestRPHs>1 …</ResGuestRPHs>`.
fn as_text_lists(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<ResGuestRPHs>") {
        let end = rest[start..].find("</ResGuestRPHs>").unwrap() + start;
        let inner = &rest[start + "<ResGuestRPHs>".len()..end];
        let rphs: Vec<&str> = inner.split("RPH=\"").skip(1).map(|s| s.split('"').next().unwrap()).collect();
        out.push_str(&rest[..start]);
        out.push_str(&format!("<ResGuestRPHs>{}</ResGuestRPHs>", rphs.join(" ")));
        rest = &rest[end + "</ResGuestRPHs>".len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_dialects_are_the_specs() {
    assert_eq!(Dialect::ALL, &[Dialect::Service, Dialect::Ota2016b]);
    assert_eq!(Dialect::default(), Dialect::Service);
    for d in Dialect::ALL {
        assert_eq!(Dialect::from_name(d.as_str()), Some(*d));
    }
    assert_eq!(Dialect::from_name("OTA2016B"), None);
}

#[test]
fn a_room_stay_is_numbered_by_rph_or_index_number() {
    let service = sample("hotel_res.xml");
    assert!(service.contains("<RoomStay RPH="), "the sample numbers its room stays by RPH");
    let ota = service.replace("<RoomStay RPH=", "<RoomStay IndexNumber=");
    assert_eq!(OtaHotelResRq::from_xml(&ota).unwrap(), OtaHotelResRq::from_xml(&service).unwrap());
    // Both at once is one attribute given twice: refused, not silently one of them.
    let both = service.replacen("<RoomStay RPH=\"1\"", "<RoomStay RPH=\"1\" IndexNumber=\"1\"", 1);
    assert_ne!(both, service);
    assert!(OtaHotelResRq::from_xml(&both).is_err());
}

#[test]
fn guests_are_referenced_by_elements_or_a_text_list() {
    for file in ["hotel_res.xml", "hotel_res_modify.xml", "booking_read.rs.xml"] {
        let elements = sample(file);
        let text = as_text_lists(&elements);
        assert_ne!(text, elements, "{file} has ResGuestRPH elements");
        assert!(text.contains("<ResGuestRPHs>1 2"), "{text}");
        assert_eq!(AnyMessage::from_xml(&text).unwrap(), AnyMessage::from_xml(&elements).unwrap(), "{file}");
    }
}

#[test]
fn a_bad_number_in_a_text_list_is_an_error_at_the_list() {
    let xml = as_text_lists(&sample("hotel_res.xml")).replacen("<ResGuestRPHs>1 2 3", "<ResGuestRPHs>1 two 3", 1);
    let e = OtaHotelResRq::from_xml(&xml).unwrap_err();
    assert!(e.path.ends_with("/RoomStay[1]/ResGuestRPHs"), "{}", e.path);
    assert!(matches!(&e.kind, DecodeErrorKind::InvalidValue { value, .. } if value == "two"), "{e}");
}

#[test]
fn the_default_dialect_writes_what_it_always_wrote_and_ota2016b_writes_lists() {
    let rs = OtaResRetrieveRs::from_xml(&sample("booking_read.rs.xml")).unwrap();
    let service = rs.to_xml().unwrap();
    assert_eq!(rs.to_xml_in(Dialect::Service).unwrap(), service);
    assert!(service.contains("<ResGuestRPH RPH=\"1\"/>"));
    let ota = rs.to_xml_in(Dialect::Ota2016b).unwrap();
    assert!(ota.contains("<ResGuestRPHs>1 2</ResGuestRPHs>"), "{ota}");
    assert!(!ota.contains("<ResGuestRPH "), "{ota}");
    // Each dialect's output decodes back to the same message, but for what the dialect does not
    // write: ota2016b leaves out Item_RPH (each room's item reference is in RoomStay/Reference).
    assert!(service.contains("Item_RPH=") && !ota.contains("Item_RPH="));
    let mut without_item_rph = rs.clone();
    for id in &mut without_item_rph.reservations_list.as_mut().unwrap().hotel_reservation[0]
        .res_global_info
        .as_mut()
        .unwrap()
        .hotel_reservation_ids
        .hotel_reservation_id
    {
        id.item_rph = None;
    }
    assert!(OtaResRetrieveRs::from_xml(&ota).unwrap() == without_item_rph, "ota2016b loses nothing else");
    assert!(OtaResRetrieveRs::from_xml(&service).unwrap() == rs, "service loses nothing");
    // The same through AnyMessage.
    let any = AnyMessage::ResRetrieveRs(Box::new(rs));
    assert_eq!(any.to_xml_in(Dialect::Ota2016b).unwrap(), ota);
}

/// Property: any list of guest numbers, in either form, with any XML blanks between the
/// numbers, decodes to the same value.
#[test]
fn either_form_of_any_guest_list_decodes_the_same() {
    let base = sample("hotel_res.xml");
    let mut rng = StdRng::seed_from_u64(0x0da1_ec75);
    for _ in 0..200 {
        let n = rng.random_range(1..=6);
        let rphs: Vec<u32> = (0..n).map(|_| rng.random_range(1..=9)).collect();
        let elements: String = rphs.iter().map(|r| format!("<ResGuestRPH RPH=\"{r}\"/>")).collect();
        let blanks = [" ", "\n", "\t", "  ", "\r\n "];
        let text: String =
            rphs.iter().map(|r| format!("{}{r}", blanks[rng.random_range(0..blanks.len())])).collect::<String>()
                + blanks[rng.random_range(0..blanks.len())];
        let with = |inner: &str| {
            base.replacen(
                "<ResGuestRPHs><ResGuestRPH RPH=\"1\"/><ResGuestRPH RPH=\"2\"/><ResGuestRPH RPH=\"3\"/></ResGuestRPHs>",
                &format!("<ResGuestRPHs>{inner}</ResGuestRPHs>"),
                1,
            )
        };
        assert_ne!(with(&elements), base, "the sample's list of three is replaced");
        let a = OtaHotelResRq::from_xml(&with(&elements)).unwrap();
        let b = OtaHotelResRq::from_xml(&with(&text)).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(a, b, "{rphs:?} as {text:?}");
    }
}

#[test]
fn an_age_category_is_a_code_or_its_opentravel_name() {
    use ota_messages::common::AgeQualifyingCode;
    use ota_messages::tour_activity_avail::OtaTourActivityAvailRq;
    let codes = sample("tour_activity_avail.xml");
    let names = codes
        .replace("<QualifierInfo>10</QualifierInfo>", "<QualifierInfo>Adult</QualifierInfo>")
        .replace("<QualifierInfo>8</QualifierInfo>", "<QualifierInfo>Child</QualifierInfo>")
        .replace("<QualifierInfo>11</QualifierInfo>", "<QualifierInfo>Senior</QualifierInfo>");
    assert_ne!(names, codes);
    let rq = OtaTourActivityAvailRq::from_xml(&names).unwrap();
    assert_eq!(rq, OtaTourActivityAvailRq::from_xml(&codes).unwrap());
    assert_eq!(rq.tour_activity.participant_count[0].qualifier_info, AgeQualifyingCode::Adult);
    // Written as the code, in every dialect.
    assert!(rq.to_xml_in(Dialect::Ota2016b).unwrap().contains("<QualifierInfo>10</QualifierInfo>"));
    // Another word is neither a known name nor a code (the list is open to any non-negative
    // integer): refused.
    assert!(
        OtaTourActivityAvailRq::from_xml(
            &codes.replace("<QualifierInfo>10</QualifierInfo>", "<QualifierInfo>Toddler</QualifierInfo>")
        )
        .is_err()
    );
}

#[test]
fn an_activity_region_is_named_by_text_or_region_name() {
    use ota_messages::tour_activity_avail::OtaTourActivityAvailRs;
    let service = sample("tour_activity_avail.rs.xml");
    let text = r#"<Region RegionCode="PMI">Mallorca – East coast</Region>"#;
    assert!(service.contains(text), "the sample names a region by its text");
    let ota = service.replace(text, r#"<Region RegionCode="PMI" RegionName="Mallorca – East coast"/>"#);
    let value = OtaTourActivityAvailRs::from_xml(&service).unwrap();
    assert_eq!(OtaTourActivityAvailRs::from_xml(&ota).unwrap(), value);
    // ota2016b writes the attribute form, the default the text as before.
    assert!(
        value
            .to_xml_in(Dialect::Ota2016b)
            .unwrap()
            .contains(r#"<Region RegionCode="PMI" RegionName="Mallorca – East coast"/>"#)
    );
    assert!(value.to_xml().unwrap().contains(text));
    // Both at once: refused, naming the attribute.
    let both =
        service.replacen(text, r#"<Region RegionCode="PMI" RegionName="Mallorca">Mallorca – East coast</Region>"#, 1);
    let e = OtaTourActivityAvailRs::from_xml(&both).unwrap_err();
    assert!(matches!(e.kind, DecodeErrorKind::TextGivenTwice { attribute: "RegionName" }), "{e}");
}

#[test]
fn an_activity_category_may_carry_opentravels_other() {
    use ota_messages::tour_activity_avail::OtaTourActivityAvailRs;
    let service = sample("tour_activity_avail.rs.xml");
    assert!(service.contains(r#"<Category Code="XA"/>"#));
    let value = OtaTourActivityAvailRs::from_xml(&service).unwrap();
    let ota = value.to_xml_in(Dialect::Ota2016b).unwrap();
    assert!(ota.contains(r#"<Category Code="XA">Other_</Category>"#), "{ota}");
    assert!(ota.contains(">Other_</Type>"), "{ota}");
    let categories = |rs: &OtaTourActivityAvailRs| {
        rs.tour_activity_info.iter().map(|i| i.category_and_type.clone()).collect::<Vec<_>>()
    };
    assert_eq!(categories(&OtaTourActivityAvailRs::from_xml(&ota).unwrap()), categories(&value));
    // Other text is not a category: refused as a value of the text.
    let other = service.replacen(r#"<Category Code="XA"/>"#, r#"<Category Code="XA">Cultural</Category>"#, 1);
    let e = OtaTourActivityAvailRs::from_xml(&other).unwrap_err();
    assert!(matches!(&e.kind, DecodeErrorKind::InvalidValue { value, .. } if value == "Cultural"), "{e}");
}

#[test]
fn an_activity_booking_read_has_an_empty_property_only_in_ota2016b() {
    let service = sample("booking_read.rs-activity.xml");
    let value = OtaResRetrieveRs::from_xml(&service).unwrap();
    assert!(!value.to_xml().unwrap().contains("BasicPropertyInfo"), "the service's answer is as before");
    let ota = value.to_xml_in(Dialect::Ota2016b).unwrap();
    assert!(ota.contains("<BasicPropertyInfo/></ResGlobalInfo>"), "{ota}");
}
