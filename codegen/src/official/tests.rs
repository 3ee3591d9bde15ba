#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-2016b")
}

fn schema() -> &'static OfficialSchema {
    static SCHEMA: OnceLock<OfficialSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| OfficialSchema::load(&folder()).unwrap_or_else(|e| panic!("{e}")))
}

fn complex_of(e: &Element) -> ComplexId {
    match e.ty {
        TypeRef::Complex(id) => id,
        TypeRef::Simple(_) => panic!("{} has a simple type", e.name),
    }
}

fn path(root: &str, steps: &[&str]) -> &'static Element {
    let s = schema();
    let mut e = s.root(root).unwrap_or_else(|| panic!("no root {root}"));
    for step in steps {
        e = s.child(complex_of(e), step).unwrap_or_else(|| panic!("{} has no child {step}", e.name));
    }
    e
}

#[test]
fn every_request_root_of_the_folder_loads() {
    let mut roots = 0;
    for entry in std::fs::read_dir(folder()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if let Some(root) = name.strip_suffix(".xsd").filter(|r| r.starts_with("OTA_") && r.ends_with("RQ")) {
            let e = schema().root(root).unwrap_or_else(|| panic!("{root}: no top-level element"));
            assert!(!schema().child_elements(complex_of(e)).is_empty(), "{root}: no children");
            roots += 1;
        }
    }
    assert!(roots >= 13, "{roots}");
}

#[test]
fn hotel_res_rq() {
    let s = schema();
    let root = s.root("OTA_HotelResRQ").unwrap();
    let id = complex_of(root);
    assert!(s.attribute(id, "TargetName").is_some());
    assert!(s.attribute(id, "Version").is_some_and(|a| a.required));
    let names: Vec<&str> = s.child_elements(id).iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"POS") && names.contains(&"HotelReservations"), "{names:?}");
    let source = path("OTA_HotelResRQ", &["POS", "Source"]);
    assert_eq!((source.min, source.max), (1, 10));
    let given = path(
        "OTA_HotelResRQ",
        &["HotelReservations", "HotelReservation", "ResGuests", "ResGuest", "Profiles", "ProfileInfo", "Profile"],
    );
    assert!(s.child(complex_of(given), "Customer").is_some());
    assert!(s.child(complex_of(given), "CompanyInfo").is_some());
    // A type extended from a base: the base's attributes and content first.
    let reservation = path("OTA_HotelResRQ", &["HotelReservations", "HotelReservation"]);
    assert!(s.attribute(complex_of(reservation), "RoomStayReservation").is_some());
}

#[test]
fn read_rq() {
    let s = schema();
    let id = complex_of(s.root("OTA_ReadRQ").unwrap());
    assert!(s.child(id, "ReadRequests").is_some());
    assert!(s.child(id, "UniqueID").is_some());
    assert!(s.child(id, "POS").is_some());
}

#[test]
fn tpa_extensions_is_a_wildcard() {
    let s = schema();
    let tpa = s.root("TPA_Extensions").unwrap();
    let Content::Elements(Particle::Sequence { items, .. }) = &s.complex(complex_of(tpa)).content else {
        panic!("{:?}", s.complex(complex_of(tpa)).content);
    };
    assert_eq!(items, &[Particle::Any { min: 0, max: UNBOUNDED }]);
    // A reference keeps the declaration's name and type, with its own bounds.
    let ext = path("OTA_TourActivityBookRQ", &["TPA_Extensions"]);
    assert_eq!((ext.min, ext.ty), (0, tpa.ty));
}

#[test]
fn simple_content() {
    let s = schema();
    let free = s.complex(s.complex_named("FreeTextType").unwrap());
    let Content::Text(text) = free.content else { panic!("{:?}", free.content) };
    assert_eq!(s.simple(text).builtin, "string");
    assert!(free.attributes.iter().any(|a| a.name == "Language"), "{:?}", free.attributes);
    // A simpleContent extension of a complex type with simple content keeps its attributes.
    let text_elem = path("OTA_HotelResRQ", &["HotelReservations", "HotelReservation", "RoomStays", "RoomStay"]);
    assert!(s.child(complex_of(text_elem), "Comments").is_some());
}

#[test]
fn unions_and_lists() {
    let s = schema();
    let date_or = s.simple(s.simple_named("DateOrDateTimeType").unwrap());
    let Variety::Union(members) = &date_or.variety else { panic!("{date_or:?}") };
    let builtins: Vec<&str> = members.iter().map(|m| s.simple(*m).builtin.as_str()).collect();
    assert_eq!(builtins, ["date", "dateTime"]);
    let list = s.simple(s.simple_named("ListOfRPH").unwrap());
    let Variety::List(item) = list.variety else { panic!("{list:?}") };
    assert_eq!(s.simple(item).facets.patterns, ["[0-9]{1,8}"]);
    // Inline members; a pattern on each level of a chain.
    let cabin = s.simple(s.simple_named("CabinType").unwrap());
    let Variety::Union(members) = &cabin.variety else { panic!("{cabin:?}") };
    assert!(members.iter().any(|m| s.simple(*m).facets.patterns.len() == 2), "{members:?}");
}

#[test]
fn facets_and_builtins() {
    let s = schema();
    let numeric = s.simple(s.simple_named("Numeric1to999").unwrap());
    assert_eq!(numeric.builtin, "integer");
    assert_eq!(
        (numeric.facets.min_inclusive.as_deref(), numeric.facets.max_inclusive.as_deref()),
        (Some("1"), Some("999"))
    );
    let lengths = s.simple(s.simple_named("StringLength1to64").unwrap());
    assert_eq!((lengths.facets.min_length, lengths.facets.max_length), (Some(1), Some(64)));
    assert_eq!(s.simple(s.simple_named("xs:boolean").unwrap()).builtin, "boolean");
    let status = s.simple(s.simple_named("TransactionActionType").unwrap());
    assert!(status.facets.enumerations.iter().any(|v| v == "Book"), "{status:?}");
}

fn one_file(body: &str) -> Result<OfficialSchema, LoadError> {
    let text = format!(
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="{OTA_NS}" targetNamespace="{OTA_NS}" elementFormDefault="qualified">{body}</xs:schema>"#
    );
    OfficialSchema::from_sources(&[("t.xsd".to_string(), text)])
}

#[test]
fn derivation_by_restriction_and_prohibited_attributes() {
    let s = one_file(
        r#"<xs:complexType name="Base"><xs:sequence><xs:element name="A" type="xs:string"/></xs:sequence>
             <xs:attribute name="X" type="xs:int"/><xs:attribute name="Y" type="xs:int"/></xs:complexType>
           <xs:complexType name="Narrow"><xs:complexContent><xs:restriction base="Base">
             <xs:sequence><xs:element name="A" type="xs:string" minOccurs="0"/></xs:sequence>
             <xs:attribute name="Y" use="prohibited"/><xs:attribute name="X" type="xs:int" use="required"/>
           </xs:restriction></xs:complexContent></xs:complexType>
           <xs:complexType name="Amount"><xs:simpleContent><xs:extension base="xs:decimal">
             <xs:attribute name="Currency" type="xs:string"/></xs:extension></xs:simpleContent></xs:complexType>
           <xs:complexType name="SmallAmount"><xs:simpleContent><xs:restriction base="Amount">
             <xs:maxInclusive value="10"/></xs:restriction></xs:simpleContent></xs:complexType>
           <xs:element name="R" type="Narrow"/>"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let narrow = s.complex(s.complex_named("Narrow").unwrap());
    assert_eq!(narrow.attributes.len(), 1);
    assert!(narrow.attributes[0].name == "X" && narrow.attributes[0].required);
    let small = s.complex(s.complex_named("SmallAmount").unwrap());
    let Content::Text(text) = small.content else { panic!() };
    assert_eq!(s.simple(text).builtin, "decimal");
    assert_eq!(s.simple(text).facets.max_inclusive.as_deref(), Some("10"));
    assert_eq!(small.attributes[0].name, "Currency");
}

#[test]
fn errors_name_file_and_construct() {
    let e = one_file(r#"<xs:complexType name="G"><xs:group ref="X"/></xs:complexType>"#).unwrap_err();
    assert_eq!((e.file.as_str(), e.message.as_str()), ("t.xsd", "xs:group is not supported"));
    assert!(e.construct.contains("complexType \"G\""), "{e}");
    let e = one_file(r#"<xs:complexType name="G"><xs:attribute name="A" type="Nope"/></xs:complexType>"#).unwrap_err();
    assert!(e.message.contains("\"Nope\" is not declared") && e.construct.contains("attribute \"A\""), "{e}");
    let e = one_file(r#"<xs:complexType name="A"><xs:complexContent><xs:extension base="B"/></xs:complexContent></xs:complexType><xs:complexType name="B"><xs:complexContent><xs:extension base="A"/></xs:complexContent></xs:complexType>"#).unwrap_err();
    assert!(e.message.contains("derives from itself"), "{e}");
    let e = one_file(r#"<xs:include schemaLocation="Missing.xsd"/>"#).unwrap_err();
    assert!(e.message.contains("Missing.xsd"), "{e}");
}
