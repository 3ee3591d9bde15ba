//! Official-valid variants of a request, drawn from the official schemas: a base document (a
//! request valid under its official schema) with one more optional item at a time
//! ([`one_extra`]), or with random optional items ([`random_fill`]). Each added item gets the
//! least content its declaration requires (its required attributes and elements, recursively)
//! and values of its types (enumerations, patterns, lengths, ranges, built-ins).
//!
//! An added element goes where the official sequence order puts it; where the content model
//! still does not allow it (a second alternative of a choice), the variant is not valid, which
//! a validator (xmllint) tells: callers keep the valid ones.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use roxmltree::{Document, Node};

use super::{Complex, ComplexId, Content, OfficialSchema, Particle, SimpleId, TypeRef, Variety};

const OTA: &str = "http://www.opentravel.org/OTA/2003/05";

/// A variant of a base request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// What was added: the path of each item (`/OTA_ReadRQ/@TargetName`,
    /// `/OTA_HotelResRQ/HotelReservations/HotelReservation/TPA_Extensions`).
    pub items: Vec<String>,
    /// The document.
    pub xml: String,
}

/// An edit of the base: text to insert at a byte offset.
struct Insert {
    at: usize,
    /// How many bytes of the base it replaces (the `/>` of an empty element it gives content).
    replace: usize,
    text: String,
    item: String,
}

/// Every variant of `base` with one more optional item: each absent attribute, and each child
/// element that may occur once more, of every element of the base (in document order).
pub fn one_extra(schema: &OfficialSchema, base: &str, seed: u64) -> Vec<Variant> {
    let Ok(doc) = Document::parse(base) else { return Vec::new() };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut inserts = Vec::new();
    let root = doc.root_element();
    if let Some(TypeRef::Complex(id)) = schema.root(root.tag_name().name()).map(|e| e.ty) {
        candidates(schema, root, id, &format!("/{}", root.tag_name().name()), &mut rng, &mut inserts);
    }
    inserts.into_iter().map(|i| Variant { xml: apply(base, std::slice::from_ref(&i)), items: vec![i.item] }).collect()
}

/// The base with each of its possible one-extra items added with probability `p`.
pub fn random_fill(schema: &OfficialSchema, base: &str, p: f64, rng: &mut StdRng) -> Variant {
    let Ok(doc) = Document::parse(base) else { return Variant { items: Vec::new(), xml: base.to_string() } };
    let mut all = Vec::new();
    let root = doc.root_element();
    if let Some(TypeRef::Complex(id)) = schema.root(root.tag_name().name()).map(|e| e.ty) {
        candidates(schema, root, id, &format!("/{}", root.tag_name().name()), rng, &mut all);
    }
    let chosen: Vec<Insert> = all.into_iter().filter(|_| rng.random_bool(p.clamp(0.0, 1.0))).collect();
    Variant { items: chosen.iter().map(|i| i.item.clone()).collect(), xml: apply(base, &chosen) }
}

/// Applies inserts (any order) to the base.
fn apply(base: &str, inserts: &[Insert]) -> String {
    let mut sorted: Vec<&Insert> = inserts.iter().collect();
    sorted.sort_by_key(|i| std::cmp::Reverse(i.at));
    let mut out = base.to_string();
    for i in sorted {
        if out.get(i.at..i.at + i.replace).is_some() {
            out.replace_range(i.at..i.at + i.replace, &i.text);
        }
    }
    out
}

/// The one-extra inserts of `node` (of official type `id`) and of its descendants.
fn candidates(schema: &OfficialSchema, node: Node, id: ComplexId, path: &str, rng: &mut StdRng, out: &mut Vec<Insert>) {
    let complex = schema.complex(id);
    // Attributes: after the element's name.
    let name_end = node.range().start + 1 + node.tag_name().name().len() + prefix_len(node);
    for a in &complex.attributes {
        if node.attribute(a.name.as_str()).is_none() {
            let v = value(schema, a.ty, rng);
            out.push(Insert {
                at: name_end,
                replace: 0,
                text: format!(" {}=\"{}\"", a.name, escape(&v)),
                item: format!("{path}/@{}", a.name),
            });
        }
    }
    let Content::Elements(particle) = &complex.content else { return };
    let mut order = Vec::new();
    declared(particle, 1, &mut order);
    let children: Vec<Node> = node.children().filter(|c| c.is_element()).collect();
    for (decl, max) in &order {
        let present = children.iter().filter(|c| c.tag_name().name() == decl.name).count() as u32;
        if present < *max {
            let prefix = node.tag_name().namespace().and_then(|ns| node.lookup_prefix(ns)).filter(|p| !p.is_empty());
            let mut text = minimal(schema, &decl.name, decl.ty, prefix, rng, 0);
            let (at, replace) = match insert_point(node, &children, &order, &decl.name) {
                Some(at) => (at, 0),
                None => {
                    // `<X/>`: give it content and an end tag.
                    let own = &node.document().input_text()[node.range()];
                    let tag =
                        own.get(1..).and_then(|t| t.split([' ', '/', '>', '\t', '\n', '\r']).next()).unwrap_or("");
                    text = format!(">{text}</{tag}>");
                    (node.range().end - 2, 2)
                }
            };
            out.push(Insert { at, replace, text, item: format!("{path}/{}", decl.name) });
        }
    }
    let mut seen: Vec<(&str, u32)> = Vec::new();
    for c in children {
        if c.tag_name().namespace() != Some(OTA) {
            continue;
        }
        let name = c.tag_name().name();
        let n = match seen.iter_mut().find(|(s, _)| *s == name) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                seen.push((name, 1));
                1
            }
        };
        if let Some(TypeRef::Complex(child)) = order.iter().find(|(d, _)| d.name == name).map(|(d, _)| d.ty) {
            let step = if n > 1 { format!("{path}/{name}[{n}]") } else { format!("{path}/{name}") };
            candidates(schema, c, child, &step, rng, out);
        }
    }
}

fn prefix_len(node: Node) -> usize {
    node.tag_name()
        .namespace()
        .and_then(|ns| node.lookup_prefix(ns))
        .filter(|p| !p.is_empty())
        .map_or(0, |p| p.len() + 1)
}

/// The element declarations of a content model in order, each with how often it may occur.
fn declared<'s>(p: &'s Particle, factor: u32, out: &mut Vec<(&'s super::Element, u32)>) {
    match p {
        Particle::Any { .. } => {}
        Particle::Element(e) => {
            let max = e.max.saturating_mul(factor);
            match out.iter_mut().find(|(o, _)| o.name == e.name) {
                Some((_, m)) => *m = m.saturating_add(max),
                None => out.push((e, max)),
            }
        }
        Particle::Sequence { max, items, .. } | Particle::Choice { max, items, .. } => {
            for i in items {
                declared(i, factor.saturating_mul(*max), out);
            }
        }
    }
}

/// Where a new `name` child goes: after the last child declared at or before it, else before
/// the first child, else before the end tag; `None` for an empty element written `<X/>`.
fn insert_point(node: Node, children: &[Node], order: &[(&super::Element, u32)], name: &str) -> Option<usize> {
    let rank = |n: &str| order.iter().position(|(d, _)| d.name == n);
    let mine = rank(name).unwrap_or(usize::MAX);
    let before = children.iter().rev().find(|c| rank(c.tag_name().name()).is_some_and(|r| r <= mine));
    if let Some(c) = before {
        return Some(c.range().end);
    }
    if let Some(first) = children.first() {
        return Some(first.range().start);
    }
    let text = &node.document().input_text()[node.range()];
    if text.ends_with("/>") {
        None
    } else {
        Some(text.rfind("</").map_or(node.range().end, |i| node.range().start + i))
    }
}

/// An element with the least content its type requires.
fn minimal(
    schema: &OfficialSchema,
    name: &str,
    ty: TypeRef,
    prefix: Option<&str>,
    rng: &mut StdRng,
    depth: u32,
) -> String {
    let tag = match prefix {
        Some(p) => format!("{p}:{name}"),
        None => name.to_string(),
    };
    match ty {
        TypeRef::Simple(s) => format!("<{tag}>{}</{tag}>", escape(&value(schema, s, rng))),
        TypeRef::Complex(c) => {
            let complex: &Complex = schema.complex(c);
            let mut attrs = String::new();
            for a in complex.attributes.iter().filter(|a| a.required) {
                attrs.push_str(&format!(" {}=\"{}\"", a.name, escape(&value(schema, a.ty, rng))));
            }
            let inner = match &complex.content {
                Content::Empty => String::new(),
                Content::Text(s) => escape(&value(schema, *s, rng)),
                Content::Elements(p) if depth < 12 => required(schema, p, prefix, rng, depth + 1),
                Content::Elements(_) => String::new(),
            };
            format!("<{tag}{attrs}>{inner}</{tag}>")
        }
    }
}

/// The required elements of a content model, once each (a choice: its first alternative).
fn required(schema: &OfficialSchema, p: &Particle, prefix: Option<&str>, rng: &mut StdRng, depth: u32) -> String {
    match p {
        Particle::Element(e) if e.min > 0 => {
            (0..e.min.min(2)).map(|_| minimal(schema, &e.name, e.ty, prefix, rng, depth)).collect()
        }
        Particle::Element(_) | Particle::Any { .. } => String::new(),
        Particle::Sequence { min, items, .. } if *min > 0 => {
            items.iter().map(|i| required(schema, i, prefix, rng, depth)).collect()
        }
        Particle::Choice { min, items, .. } if *min > 0 => {
            items.first().map(|i| required(schema, i, prefix, rng, depth)).unwrap_or_default()
        }
        Particle::Sequence { .. } | Particle::Choice { .. } => String::new(),
    }
}

/// A value of a simple type (its facets of every level held, as far as they can be drawn).
pub fn value(schema: &OfficialSchema, id: SimpleId, rng: &mut StdRng) -> String {
    let s = schema.simple(id);
    match &s.variety {
        Variety::Union(members) if !members.is_empty() => {
            let m = members[rng.random_range(0..members.len())];
            return value(schema, m, rng);
        }
        Variety::List(item) => return value(schema, *item, rng),
        _ => {}
    }
    let f = &s.facets;
    if !f.enumerations.is_empty() {
        return f.enumerations[rng.random_range(0..f.enumerations.len())].clone();
    }
    for _ in 0..20 {
        let Some(v) = by_patterns(&f.patterns, rng) else { break };
        let len = v.chars().count() as u32;
        if f.min_length.is_none_or(|m| len >= m) && f.max_length.is_none_or(|m| len <= m) {
            return v;
        }
    }
    match s.builtin.as_str() {
        "boolean" => if rng.random_bool(0.5) { "true" } else { "false" }.to_string(),
        "decimal" | "double" | "float" => number(f, rng, true),
        "integer" | "int" | "long" | "short" | "byte" | "nonNegativeInteger" | "unsignedInt" | "unsignedLong"
        | "unsignedShort" | "unsignedByte" => number(f, rng, false),
        "positiveInteger" => number(&super::Facets { min_inclusive: Some("1".into()), ..f.clone() }, rng, false),
        "date" => format!("2027-{:02}-{:02}", rng.random_range(1..=12), rng.random_range(1..=28)),
        "dateTime" => format!(
            "2027-{:02}-{:02}T{:02}:00:00",
            rng.random_range(1..=12),
            rng.random_range(1..=28),
            rng.random_range(0..24)
        ),
        "time" => format!("{:02}:30:00", rng.random_range(0..24)),
        "duration" => format!("P{}D", rng.random_range(1..9)),
        "gYear" => "2027".into(),
        "gYearMonth" => "2027-06".into(),
        "gMonthDay" => "--06-15".into(),
        "gDay" => "---15".into(),
        "gMonth" => "--06".into(),
        "language" => "en".into(),
        "anyURI" => "http://example.com/x".into(),
        "base64Binary" => "AAAA".into(),
        "hexBinary" => "0A".into(),
        _ => {
            let min = f.min_length.unwrap_or(1).max(1) as usize;
            let max = f.max_length.map_or(min + 8, |m| m as usize).max(min);
            let len = rng.random_range(min..=max.min(min + 8));
            (0..len).map(|_| char::from(b'A' + rng.random_range(0..26u8))).collect()
        }
    }
}

fn number(f: &super::Facets, rng: &mut StdRng, fraction: bool) -> String {
    let parse = |v: &Option<String>| v.as_deref().and_then(|v| v.parse::<f64>().ok());
    let lo = parse(&f.min_inclusive).or(parse(&f.min_exclusive).map(|v| v + 1.0)).unwrap_or(0.0).max(-1e6);
    let hi = parse(&f.max_inclusive).or(parse(&f.max_exclusive).map(|v| v - 1.0)).unwrap_or(lo + 99.0).min(lo + 1e6);
    let n = if hi > lo { rng.random_range(lo.ceil() as i64..=hi.floor() as i64) } else { lo.ceil() as i64 };
    let digits = f.total_digits.unwrap_or(9);
    let n = n.clamp(-(10i64.pow(digits.min(9))) + 1, 10i64.pow(digits.min(9)) - 1);
    if fraction && f.fraction_digits != Some(0) && rng.random_bool(0.3) && n < (hi.floor() as i64) {
        format!("{n}.5")
    } else {
        n.to_string()
    }
}

/// A string matching the first pattern (checked against all of them), if one can be drawn.
fn by_patterns(patterns: &[String], rng: &mut StdRng) -> Option<String> {
    let first = patterns.first()?;
    let translated = crate::regex::translate_pattern(first).ok()?;
    let inner = translated.strip_prefix(r"\A(?:").and_then(|t| t.strip_suffix(r")\z")).unwrap_or(&translated);
    let re = rand_regex::Regex::compile(inner, 4).ok()?;
    let checks: Vec<regex::Regex> = patterns
        .iter()
        .filter_map(|p| crate::regex::translate_pattern(p).ok())
        .filter_map(|p| regex::Regex::new(&p).ok())
        .collect();
    for _ in 0..20 {
        let v: String = rng.sample(&re);
        if checks.iter().all(|c| c.is_match(&v)) && !v.contains(['<', '&']) {
            return Some(v);
        }
    }
    None
}

fn escape(v: &str) -> String {
    v.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;").replace('>', "&gt;")
}
