//! Stage 3, **passes**: every decision the generator takes about the lowered model, one pass
//! per decision, each in its own module, run in the order of [`PASSES`] (the one place that
//! lists them). A pass reads the model, records its outcome in it (the fields of [`crate::ir`]
//! marked "set by the `…` pass") and reports problems as diagnostics; the emitters then write
//! only what the model says.
//!
//! | pass | decides | records |
//! |---|---|---|
//! | [`items`] | which types become Rust items, which only schema tables, which nothing | [`TypeDef::emission`](crate::ir::TypeDef::emission) |
//! | [`envelope`] | which response roots have the OTA envelope (`Success`, `Warnings`, payload / `Errors`) | [`RootInfo::shape`](crate::ir::RootInfo::shape) |
//! | [`shared_errors`] | whether every operation answers errors with one `Errors` type | [`Model::shared_errors`](crate::ir::Model::shared_errors) |
//! | [`versions`] | which attribute of a root carries the message version | [`RootInfo::version_attribute`](crate::ir::RootInfo::version_attribute) |
//! | [`std_attributes`] | which structs implement the runtime's traits of the OTA standard attributes (from the attribute groups they use), which requests carry a point of sale | [`StructDef::std_traits`](crate::ir::StructDef::std_traits), [`RootInfo::pos`](crate::ir::RootInfo::pos) |
//! | [`dialects`] | how each dialect reads and writes a field, a list type, a text or a root's version (other names, other forms), checked and resolved to the spec's dialects | [`Written::dialect`](crate::ir::Written::dialect), [`TextList`](crate::ir::TextList), [`TextForm`](crate::ir::TextForm), [`DialectVersion::dialect`](crate::ir::DialectVersion::dialect) |
//! | [`personal`] | which fields hold personal data (`gen:personal`), what masks them in the gateway's transaction log; a name is personal everywhere or nowhere | [`Personal::mask`](crate::ir::Personal::mask) |
//! | [`official`] | what the official OpenTravel schemas allow in each request beyond the spec, and the decision on each such item (`official.xml`) | [`Model::official`](crate::ir::Model::official) |
//! | [`naming`] | every Rust name: types, fields, enum variants, message variants; a standard attribute's field is named as its trait's accessor | `rust_name`s, [`RootInfo::variant`](crate::ir::RootInfo::variant) |

pub mod dialects;
pub mod envelope;
pub mod items;
pub mod naming;
pub mod official;
pub mod personal;
pub mod shared_errors;
pub mod std_attributes;
pub mod versions;

use crate::diagnostics::Diagnostics;
use crate::ir::Model;

/// A pass: a name (for benchmarks and debugging) and the function that runs it.
#[derive(Debug, Clone, Copy)]
pub struct Pass {
    /// The pass's name, as in the table above.
    pub name: &'static str,
    /// Runs the pass over the model.
    pub run: fn(&mut Model, &mut Diagnostics),
}

/// The passes, in the order they run. A pass may rely on the outcomes of the passes before it.
pub const PASSES: &[Pass] = &[
    Pass { name: "items", run: items::run },
    Pass { name: "envelope", run: envelope::run },
    Pass { name: "shared_errors", run: shared_errors::run },
    Pass { name: "versions", run: versions::run },
    Pass { name: "std_attributes", run: std_attributes::run },
    Pass { name: "dialects", run: dialects::run },
    Pass { name: "personal", run: personal::run },
    Pass { name: "official", run: official::run },
    Pass { name: "naming", run: naming::run },
];

/// Runs every pass of [`PASSES`] in order.
pub fn run_all(model: &mut Model, diags: &mut Diagnostics) {
    for pass in PASSES {
        (pass.run)(model, diags);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use crate::ir::{Emission, Model, RootInfo, StructDef, TypeKind};

    const HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="http://www.opentravel.org/OTA/2003/05" xmlns:gen="urn:ota-codegen" targetNamespace="http://www.opentravel.org/OTA/2003/05" elementFormDefault="qualified" attributeFormDefault="unqualified">"#;

    /// The model of one spec file `m.xsd` holding `body`.
    fn model(body: &str) -> Result<Model, String> {
        crate::generate(&[("m.xsd".to_string(), format!("{HEAD}{body}</xs:schema>"))])
            .map(|g| g.model)
            .map_err(|e| e.short())
    }

    fn root<'m>(m: &'m Model, element: &str) -> (&'m StructDef, &'m RootInfo) {
        m.types
            .iter()
            .find_map(|t| match &t.kind {
                TypeKind::Struct(s @ StructDef { root: Some(r), .. }) if r.element == element => Some((s, &**r)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no root {element}"))
    }

    fn emission(m: &Model, xml_name: &str) -> Emission {
        m.types.iter().find(|t| t.xml_name == xml_name).map(|t| t.emission).unwrap_or_else(|| panic!("no {xml_name}"))
    }

    /// A request and its response; `rs_content` is the response's content model.
    fn operation(name: &str, rs_content: &str) -> String {
        format!(
            r#"<xs:element name="OTA_{name}RQ"><xs:annotation><xs:appinfo><gen:message version="2024.1" path="/{name}" response="OTA_{name}RS"/></xs:appinfo></xs:annotation>
  <xs:complexType><xs:attribute name="Version" type="xs:string" use="required"/></xs:complexType></xs:element>
<xs:element name="OTA_{name}RS"><xs:annotation><xs:appinfo><gen:message version="2024.1"/></xs:appinfo></xs:annotation>
  <xs:complexType>{rs_content}<xs:attribute name="Version" type="xs:string" use="required"/></xs:complexType></xs:element>"#
        )
    }

    const TYPES: &str = r#"<xs:complexType name="Success"/>
<xs:complexType name="Errors"><xs:sequence><xs:element name="Error" type="xs:string" maxOccurs="unbounded"/></xs:sequence></xs:complexType>
<xs:complexType name="OtherErrors"><xs:sequence><xs:element name="Error" type="xs:string"/></xs:sequence></xs:complexType>"#;

    const ENVELOPE: &str = r#"<xs:choice><xs:sequence><xs:element name="Success" type="Success"/><xs:element name="Warnings" type="xs:string" minOccurs="0"/><xs:element name="Payload" type="xs:string"/></xs:sequence><xs:element name="Errors" type="Errors"/></xs:choice>"#;

    #[test]
    fn the_passes_are_listed_once_each() {
        let mut names: Vec<&str> = super::PASSES.iter().map(|p| p.name).collect();
        assert_eq!(names.first(), Some(&"items"));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), super::PASSES.len());
    }

    #[test]
    fn items_aliases_get_tables_and_known_value_lists_nothing() {
        let m = model(
            r#"<xs:simpleType name="Code"><xs:restriction base="xs:string"><xs:pattern value="[A-Z]{3}"/></xs:restriction></xs:simpleType>
<xs:simpleType name="KnownA"><xs:restriction base="xs:string"><xs:enumeration value="X"/></xs:restriction></xs:simpleType>
<xs:simpleType name="OpenA"><xs:union memberTypes="KnownA xs:string"/></xs:simpleType>
<xs:simpleType name="KnownB"><xs:restriction base="xs:string"><xs:enumeration value="Y"/></xs:restriction></xs:simpleType>
<xs:simpleType name="OpenB"><xs:union memberTypes="KnownB xs:string"/></xs:simpleType>
<xs:complexType name="T"><xs:attribute name="A" type="OpenA"/><xs:attribute name="B" type="OpenB"/><xs:attribute name="C" type="KnownB"/><xs:attribute name="D" type="Code"/></xs:complexType>"#,
        )
        .unwrap();
        assert_eq!(emission(&m, "T"), Emission::Item);
        assert_eq!(emission(&m, "Code"), Emission::TableOnly);
        assert_eq!(emission(&m, "OpenA"), Emission::Item);
        assert_eq!(emission(&m, "KnownA"), Emission::Nothing, "only the known values of OpenA");
        assert_eq!(emission(&m, "KnownB"), Emission::Item, "also the type of an attribute");
    }

    #[test]
    fn personal_fields_get_masks_and_a_name_is_personal_everywhere_or_nowhere() {
        const P: &str = "<xs:annotation><xs:appinfo><gen:personal/></xs:appinfo></xs:annotation>";
        let m = model(&format!(
            r#"<xs:complexType name="Guest"><xs:sequence><xs:element name="Surname" type="xs:string">{P}</xs:element></xs:sequence>
<xs:attribute name="BirthDate" type="xs:date">{P}</xs:attribute><xs:attribute name="Age" type="xs:int"/></xs:complexType>
<xs:complexType name="Other"><xs:sequence><xs:element name="Surname" type="xs:string">{P}</xs:element></xs:sequence></xs:complexType>"#
        ))
        .unwrap();
        let table = super::personal::table(&m);
        assert_eq!(
            table,
            [
                (true, "BirthDate".to_string(), "1900-01-01".to_string()),
                (false, "Surname".to_string(), "***".to_string())
            ]
        );
        let unmarked = model(&format!(
            r#"<xs:complexType name="Guest"><xs:sequence><xs:element name="Surname" type="xs:string">{P}</xs:element></xs:sequence></xs:complexType>
<xs:complexType name="Hotel"><xs:sequence><xs:element name="Surname" type="xs:string"/></xs:sequence></xs:complexType>"#
        ))
        .unwrap_err();
        assert!(unmarked.contains("not marked gen:personal"), "{unmarked}");
        let bad_mask = model(r#"<xs:complexType name="G"><xs:attribute name="BirthDate" type="xs:date"><xs:annotation><xs:appinfo><gen:personal mask="secret"/></xs:appinfo></xs:annotation></xs:attribute></xs:complexType>"#).unwrap_err();
        assert!(bad_mask.contains("mask `secret`"), "{bad_mask}");
        let children = model(&format!(r#"<xs:complexType name="N"><xs:sequence><xs:element name="X" type="xs:string"/></xs:sequence></xs:complexType><xs:complexType name="G"><xs:sequence><xs:element name="Name" type="N">{P}</xs:element></xs:sequence></xs:complexType>"#)).unwrap_err();
        assert!(children.contains("holds a value"), "{children}");
    }

    #[test]
    fn envelope_and_shared_errors() {
        let m = model(&format!("{TYPES}{}{}", operation("Ping", ENVELOPE), operation("Book", ENVELOPE))).unwrap();
        let (s, rs) = root(&m, "OTA_PingRS");
        let shape = rs.shape.as_ref().expect("an envelope");
        let name = |i: usize| s.element_fields()[i].xml_name.clone();
        assert_eq!(name(shape.success), "Success");
        assert_eq!(shape.warnings.map(name).as_deref(), Some("Warnings"));
        assert_eq!(shape.payload.iter().map(|&i| name(i)).collect::<Vec<_>>(), ["Payload"]);
        assert_eq!(name(shape.errors), "Errors");
        assert_eq!(m.shared_errors.map(|id| m.ty(id).xml_name.as_str()), Some("Errors"));
        // A request has no envelope.
        assert!(root(&m, "OTA_PingRQ").1.shape.is_none());
    }

    #[test]
    fn no_envelope_without_an_errors_alternative() {
        let no_errors = r#"<xs:sequence><xs:element name="Success" type="Success"/></xs:sequence>"#;
        let m = model(&format!("{TYPES}{}{}", operation("Ping", ENVELOPE), operation("Book", no_errors))).unwrap();
        assert!(root(&m, "OTA_PingRS").1.shape.is_some());
        assert!(root(&m, "OTA_BookRS").1.shape.is_none());
        assert_eq!(m.shared_errors, None, "operation Book has no error answer");
    }

    #[test]
    fn no_shared_errors_when_the_types_differ() {
        let other = ENVELOPE.replace(r#"type="Errors""#, r#"type="OtherErrors""#);
        let m = model(&format!("{TYPES}{}{}", operation("Ping", ENVELOPE), operation("Book", &other))).unwrap();
        assert!(root(&m, "OTA_BookRS").1.shape.is_some());
        assert_eq!(m.shared_errors, None);
    }

    #[test]
    fn versions_and_variants() {
        let m = model(&format!("{TYPES}{}", operation("Ping", ENVELOPE))).unwrap();
        let (s, rq) = root(&m, "OTA_PingRQ");
        assert_eq!(rq.version_attribute.map(|i| s.attributes[i].xml_name.as_str()), Some("Version"));
        assert_eq!(rq.variant, "PingRq");
        assert_eq!(rq.response_type.map(|id| m.ty(id).xml_name.as_str()), Some("OTA_PingRS"));
        // An optional `Version` is not the message version.
        let m = model(&format!("{TYPES}{}", operation("Ping", ENVELOPE)).replace(r#"use="required""#, "")).unwrap();
        assert_eq!(root(&m, "OTA_PingRQ").1.version_attribute, None);
    }

    #[test]
    fn two_roots_with_one_variant_name_are_an_error() {
        let ota = operation("Ping", ENVELOPE);
        let plain = ota.replace("OTA_Ping", "Ping").replace("/Ping", "/plain");
        let err = model(&format!("{TYPES}{ota}{plain}")).unwrap_err();
        assert!(err.contains("two message roots are both named `PingRq` in `AnyMessage`"), "{err}");
    }

    const STD_GROUPS: &str = r#"<xs:attributeGroup name="OTA_ResponseStdAttributes">
  <xs:attribute name="EchoToken" type="xs:string"/><xs:attribute name="TimeStamp" type="xs:dateTime"/>
  <xs:attribute name="Version" type="xs:string" use="required"/><xs:attribute name="TransactionIdentifier" type="xs:string"/>
</xs:attributeGroup>
<xs:attributeGroup name="Outer"><xs:attribute name="A" type="xs:string"/><xs:attributeGroup ref="OTA_ResponseStdAttributes"/></xs:attributeGroup>
<xs:complexType name="POS"><xs:attribute name="ID" type="xs:string"/></xs:complexType>"#;

    #[test]
    fn attribute_groups_are_kept_and_give_traits() {
        let rq = operation("Ping", ENVELOPE)
            .replace(r#"<xs:complexType><xs:attribute name="Version" type="xs:string" use="required"/></xs:complexType></xs:element>
<xs:element name="OTA_PingRS">"#, r#"<xs:complexType><xs:sequence><xs:element name="POS" type="POS"/></xs:sequence><xs:attribute name="Version" type="xs:string" use="required"/></xs:complexType></xs:element>
<xs:element name="OTA_PingRS">"#)
            .replace(r#"</xs:choice><xs:attribute name="Version" type="xs:string" use="required"/>"#, r#"</xs:choice><xs:attribute name="B" type="xs:int"/><xs:attributeGroup ref="Outer"/>"#);
        let m = model(&format!("{TYPES}{STD_GROUPS}{rq}")).unwrap();
        let (s, rs) = root(&m, "OTA_PingRS");
        let groups: Vec<(&str, Vec<&str>)> = s
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.attributes.iter().map(|&i| s.attributes[i].xml_name.as_str()).collect()))
            .collect();
        assert_eq!(
            groups,
            [
                ("Outer", vec!["A", "EchoToken", "TimeStamp", "Version", "TransactionIdentifier"]),
                ("OTA_ResponseStdAttributes", vec!["EchoToken", "TimeStamp", "Version", "TransactionIdentifier"]),
            ]
        );
        assert_eq!(s.std_traits.len(), 1);
        let t = &s.std_traits[0];
        assert_eq!(t.name, "ResponseStdAttributes");
        let members: Vec<(&str, &str)> =
            t.members.iter().map(|m| (m.method, s.attributes[m.attribute].xml_name.as_str())).collect();
        assert_eq!(
            members,
            [
                ("echo_token", "EchoToken"),
                ("time_stamp", "TimeStamp"),
                ("version", "Version"),
                ("transaction_identifier", "TransactionIdentifier")
            ]
        );
        assert_eq!(rs.version_attribute.map(|i| s.attributes[i].xml_name.as_str()), Some("Version"));
        // The request's point of sale; a response has none.
        let (rq_s, rq) = root(&m, "OTA_PingRQ");
        assert_eq!(m.pos_path(rq_s, &rq.pos).as_deref(), Some("POS"));
        assert!(rq_s.std_traits.is_empty(), "the request does not use a standard group");
        assert!(rs.pos.is_empty());
    }

    #[test]
    fn a_standard_group_that_does_not_fit_its_trait_is_an_error() {
        let broken = STD_GROUPS
            .replace(
                r#"<xs:attribute name="TimeStamp" type="xs:dateTime"/>"#,
                r#"<xs:attribute name="TimeStamp" type="xs:string"/>"#,
            )
            .replace(r#"<xs:attribute name="TransactionIdentifier" type="xs:string"/>"#, "");
        let rs = operation("Ping", ENVELOPE).replace(
            r#"</xs:choice><xs:attribute name="Version" type="xs:string" use="required"/>"#,
            r#"</xs:choice><xs:attributeGroup ref="OTA_ResponseStdAttributes"/>"#,
        );
        let err = model(&format!("{TYPES}{broken}{rs}")).unwrap_err();
        assert!(err.contains("attribute `TimeStamp` of group `OTA_ResponseStdAttributes` has a shape `runtime::ResponseStdAttributes` cannot hold"), "{err}");
        assert!(
            err.contains("attribute group `OTA_ResponseStdAttributes` has no attribute `TransactionIdentifier`"),
            "{err}"
        );
    }
}
