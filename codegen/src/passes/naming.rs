//! The `naming` pass: every Rust name.
//!
//! All names are decided here, in one place, in model order (so the result is deterministic):
//! type names are unique across the whole model (anonymous types that collide take their
//! parent's name as a prefix), field names are unique within a struct (keywords become raw
//! identifiers), variant names are unique within an enum, and each message root gets the name
//! of its variant in `AnyMessage` / `AnyRequest` (its type name without the `Ota` prefix).

use std::collections::{HashMap, HashSet};

use crate::diagnostics::{Diagnostic, Diagnostics, Span};
use crate::ir::{Content, Field, Model, Particle, StructDef, TypeKind};

/// Rust keywords (strict and reserved, all editions).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
    "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "try", "type", "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// Type names the generated modules must not shadow (prelude and the names they use).
const RESERVED_TYPES: &[&str] = &[
    "Box",
    "Clone",
    "Debug",
    "Default",
    "Err",
    "Eq",
    "Hash",
    "None",
    "Ok",
    "Option",
    "PartialEq",
    "Result",
    "Self",
    "Some",
    "String",
    "ToString",
    "Vec",
];

/// Splits an XML name into words: at `_`, `-`, `.`, spaces, lower→upper changes and the end of
/// an acronym (`HTMLParser` → `HTML`, `Parser`). A plural `s` stays with its acronym
/// (`ResGuestRPHs` → `Res`, `Guest`, `RPHs`).
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            i += 1;
            continue;
        }
        if let Some(&prev) = cur.chars().last().as_ref() {
            let next = chars.get(i + 1).copied();
            let boundary = if c.is_uppercase() {
                // lower/digit → Upper, or the last capital of an acronym followed by lowercase.
                !prev.is_uppercase() || next.is_some_and(|n| n.is_lowercase() && !is_plural_s(&chars, i + 1))
            } else {
                false
            };
            if boundary {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
        i += 1;
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// True when `chars[i]` is a lone `s` ending a word (so `RPHs` is one word).
fn is_plural_s(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&'s') && chars.get(i + 1).is_none_or(|c| !c.is_lowercase())
}

/// `snake_case` of an XML name, e.g. `ID_Context` → `id_context`, `ResGuestRPHs` → `res_guest_rphs`.
pub fn snake(name: &str) -> String {
    words(name).iter().map(|w| w.to_lowercase()).collect::<Vec<_>>().join("_")
}

/// `PascalCase` of an XML name, e.g. `OTA_HotelResModifyRQ` → `OtaHotelResModifyRq`.
pub fn pascal(name: &str) -> String {
    words(name)
        .iter()
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_uppercase().chain(cs.flat_map(char::to_lowercase)).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The variants of the generated `Dialect` enum (`ota2016b` → `Ota2016b`); a spec type called
/// `Dialect` would collide with it.
fn dialect_variants(model: &mut Model, diags: &mut Diagnostics) {
    if !model.dialects.is_empty()
        && let Some(t) = model.types.iter().find(|t| t.rust_name == "Dialect")
    {
        diags.error(t.span.clone(), "the type name `Dialect` is taken by the generated enum of the spec's dialects");
    }
    let mut seen: Vec<String> = Vec::new();
    for d in &mut model.dialects {
        d.rust_name = pascal(&d.name);
        if !is_plain_ident(&d.rust_name) || seen.contains(&d.rust_name) {
            diags.error(d.span.clone(), format!("dialect `{}` does not make a distinct Rust variant name", d.name));
        }
        seen.push(d.rust_name.clone());
    }
}

/// `SCREAMING_SNAKE_CASE` of a Rust type name, for statics.
pub fn screaming(name: &str) -> String {
    snake(name).to_uppercase()
}

/// A field name that is a valid Rust identifier: keywords become raw (`r#type`), the few that
/// cannot be raw get a `_value` suffix, and a leading digit gets an `n` prefix.
pub fn field_ident(xml_name: &str) -> String {
    let mut s = snake(xml_name);
    if s.is_empty() {
        s = "field".to_string();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'n');
    }
    if NOT_RAW.contains(&s.as_str()) {
        format!("{s}_value")
    } else if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// A variant name for an enumeration value: `Quote` → `Quote`, `per-person` → `PerPerson`,
/// `10` → `V10` (give numeric codes a `gen:variant` name instead).
pub fn variant_ident(value: &str) -> String {
    let p = pascal(value);
    if p.is_empty() {
        "Empty".to_string()
    } else if p.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{p}")
    } else {
        p
    }
}

/// True for a plain (non-keyword) Rust identifier made of ASCII letters, digits and `_`.
pub fn is_plain_ident(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
}

/// Runs the naming pass over the model.
pub fn run(model: &mut Model, diags: &mut Diagnostics) {
    type_names(model, diags);
    message_variants(model, diags);
    dialect_variants(model, diags);
    for t in &mut model.types {
        match &mut t.kind {
            TypeKind::Struct(s) => struct_field_names(s.attributes.as_mut_slice(), &mut s.content),
            TypeKind::Enum(e) => {
                let mut seen: HashMap<String, Span> = HashMap::new();
                if e.open.is_some() {
                    seen.insert("Other".to_string(), t.span.clone());
                }
                for v in &mut e.variants {
                    let name = match &v.given_name {
                        Some(n) if is_plain_ident(n) && n.starts_with(|c: char| c.is_ascii_uppercase()) => n.clone(),
                        Some(n) => {
                            diags.error(
                                v.span.clone(),
                                format!("variant name `{n}` is not a PascalCase Rust identifier"),
                            );
                            variant_ident(&v.value)
                        }
                        None => variant_ident(&v.value),
                    };
                    if let Some(first) = seen.get(&name) {
                        diags.push(
                            Diagnostic::error(
                                v.span.clone(),
                                format!("two values of `{}` are both named `{name}` in Rust", t.xml_name),
                            )
                            .with_related(first.clone(), "the other one")
                            .with_note(
                                "give one of them <gen:variant name=\"...\"/> (`Other` is reserved in open lists)",
                            ),
                        );
                    }
                    seen.insert(name.clone(), v.span.clone());
                    v.rust_name = name;
                }
            }
            TypeKind::Alias(_) => {}
        }
    }
    std_attribute_fields(model, diags);
}

/// A standard attribute's field is named as its trait's accessor: the runtime's
/// `std_attributes!` writes each impl once, reading `self.<accessor>`.
fn std_attribute_fields(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeKind::Struct(s) = &t.kind else { continue };
        for m in s.std_traits.iter().flat_map(|tr| tr.members.iter().map(move |m| (tr.name, m))) {
            let (trait_name, m) = m;
            let a = &s.attributes[m.attribute];
            if a.rust_name != m.method {
                diags.push(
                    Diagnostic::error(
                        a.span.clone(),
                        format!("the field of `{}` is named `{}`, not `{}`", a.xml_name, a.rust_name, m.method),
                    )
                    .with_note(format!("`runtime::{trait_name}` reads it as `{}`", m.method)),
                );
            }
        }
    }
}

/// The variant of each root in `AnyMessage` / `AnyRequest`: its type name without `Ota`.
fn message_variants(model: &mut Model, diags: &mut Diagnostics) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for t in &mut model.types {
        let TypeKind::Struct(StructDef { root: Some(root), .. }) = &mut t.kind else { continue };
        let n = &t.rust_name;
        let variant = n.strip_prefix("Ota").filter(|r| !r.is_empty()).unwrap_or(n).to_string();
        if let Some(first) = seen.get(&variant) {
            diags.push(
                Diagnostic::error(
                    t.span.clone(),
                    format!("two message roots are both named `{variant}` in `AnyMessage`"),
                )
                .with_related(first.clone(), "the other one")
                .with_note("a root's variant is its Rust type name without the `Ota` prefix"),
            );
        }
        seen.insert(variant.clone(), t.span.clone());
        root.variant = variant;
    }
}

fn type_names(model: &mut Model, diags: &mut Diagnostics) {
    let mut taken: HashMap<String, Span> = RESERVED_TYPES
        .iter()
        .map(|n| (n.to_string(), Span::new(crate::diagnostics::FileId(usize::MAX), 0..0)))
        .collect();
    // Named types first: their names are part of the spec and must not move.
    for i in 0..model.types.len() {
        let t = &model.types[i];
        if !t.named {
            continue;
        }
        let name = pascal(&t.xml_name);
        if let Some(first) = taken.get(&name) {
            let mut d = Diagnostic::error(
                t.span.clone(),
                format!("`{}` becomes the Rust name `{name}`, which is already taken", t.xml_name),
            );
            if first.file.0 != usize::MAX {
                d = d.with_related(first.clone(), "taken by this declaration");
            } else {
                d = d.with_note("that name is reserved by the prelude or the generated code");
            }
            diags.push(d);
        }
        taken.insert(name.clone(), t.span.clone());
        model.types[i].rust_name = name;
    }
    // Anonymous types: the element or attribute name, prefixed by as much context as needed.
    for i in 0..model.types.len() {
        let t = &model.types[i];
        if t.named {
            continue;
        }
        // A list declared inline on an attribute (`Type`, `Context`, ...) is named after its
        // owner too: the attribute name alone says little.
        let mut ctx = t.context.iter().rev();
        let base = match (&t.kind, ctx.clone().next()) {
            (TypeKind::Struct(_), _) | (_, None) => pascal(&t.xml_name),
            (_, Some(owner)) => {
                ctx.next();
                format!("{}{}", pascal(owner), pascal(&t.xml_name))
            }
        };
        let mut candidate = base.clone();
        while taken.contains_key(&candidate) {
            match ctx.next() {
                Some(parent) => candidate = format!("{}{candidate}", pascal(parent)),
                None => break,
            }
        }
        let mut n = 2;
        let stem = candidate.clone();
        while taken.contains_key(&candidate) {
            candidate = format!("{stem}{n}");
            n += 1;
        }
        taken.insert(candidate.clone(), t.span.clone());
        model.types[i].rust_name = candidate;
    }
}

fn struct_field_names(attributes: &mut [Field], content: &mut Content) {
    let mut used: HashSet<String> = HashSet::new();
    if matches!(content, Content::Text(_)) {
        used.insert("value".to_string());
    }
    let mut name_one = |f: &mut Field, suffix: &str| {
        let base = field_ident(&f.xml_name);
        let mut name = base.clone();
        if used.contains(&name) {
            name = format!("{}_{suffix}", base.trim_start_matches("r#"));
        }
        let stem = name.clone();
        let mut n = 2;
        while used.contains(&name) {
            name = format!("{stem}{n}");
            n += 1;
        }
        used.insert(name.clone());
        f.rust_name = name;
    };
    if let Content::Sequence(ps) = content {
        for p in ps.iter_mut() {
            match p {
                Particle::Element(f) => name_one(f, "element"),
                Particle::Choice { branches, .. } => branches.iter_mut().flatten().for_each(|f| name_one(f, "element")),
            }
        }
    }
    for a in attributes.iter_mut() {
        name_one(a, "attr");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_table() {
        let cases = [
            ("ResGuestRPHs", "res_guest_rphs"),
            ("ID_Context", "id_context"),
            ("ResID_Type", "res_id_type"),
            ("ResID_SourceContext", "res_id_source_context"),
            ("TPA_Extensions", "tpa_extensions"),
            ("POS", "pos"),
            ("OTA_HotelResModifyRQ", "ota_hotel_res_modify_rq"),
            ("AmountAfterTax", "amount_after_tax"),
            ("HotelReservationIDs", "hotel_reservation_ids"),
            ("Item_RPH", "item_rph"),
            ("CorrelationID", "correlation_id"),
            ("SequenceNmbr", "sequence_nmbr"),
            ("RequestorID", "requestor_id"),
            ("HTMLParser", "html_parser"),
            ("Address2", "address2"),
            ("per-person", "per_person"),
            ("ServiceRPHs", "service_rphs"),
            ("IDs", "ids"),
            ("PickupInd", "pickup_ind"),
        ];
        for (xml, rust) in cases {
            assert_eq!(snake(xml), rust, "{xml}");
        }
    }

    #[test]
    fn pascal_case_table() {
        let cases = [
            ("OTA_HotelResModifyRQ", "OtaHotelResModifyRq"),
            ("RequestorID", "RequestorId"),
            ("TPA_Extensions", "TpaExtensions"),
            ("POS", "Pos"),
            ("ResGuestRPHs", "ResGuestRphs"),
            ("hotel_res_modify", "HotelResModify"),
            ("Quote", "Quote"),
            ("PerPerson", "PerPerson"),
        ];
        for (xml, rust) in cases {
            assert_eq!(pascal(xml), rust, "{xml}");
        }
    }

    #[test]
    fn keywords_and_odd_names() {
        assert_eq!(field_ident("Type"), "r#type");
        assert_eq!(field_ident("Ref"), "r#ref");
        assert_eq!(field_ident("Self"), "self_value");
        assert_eq!(field_ident("Crate"), "crate_value");
        assert_eq!(field_ident("3D"), "n3_d");
        assert_eq!(field_ident("Match"), "r#match");
    }

    #[test]
    fn variant_names() {
        assert_eq!(variant_ident("Quote"), "Quote");
        assert_eq!(variant_ident("PerPerson"), "PerPerson");
        assert_eq!(variant_ident("10"), "V10");
        assert_eq!(variant_ident("MF001"), "Mf001");
        assert_eq!(variant_ident(""), "Empty");
    }

    #[test]
    fn screaming_case() {
        assert_eq!(screaming("OtaHotelResModifyRq"), "OTA_HOTEL_RES_MODIFY_RQ");
        assert_eq!(screaming("RequestorId"), "REQUESTOR_ID");
    }
}
