//! Property round trips, driven by the generated schema tables (not by a strategy per type):
//! for every message root, random documents are drawn within each field's declared shape —
//! occurrences, choices, code lists (unknown values of open lists included), lengths, ranges,
//! patterns, non-ASCII and XML-special characters — and each must
//!
//! - decode with the generated decoder,
//! - decode to the same value through yaserde (the differential check of the decoder),
//! - re-encode to XML that decodes back to an equal value (compact and pretty), in the dialect
//!   it was drawn for (every other case in `ota2016b`: then what that dialect does not write
//!   is left out of the document),
//! - decode to the same value with the children of every element shuffled (same-name siblings
//!   keep their order: they are one list), and re-encode to the same, declared, order.
//!
//! The case count is bounded; a failure prints the seed and the document.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ota_messages::runtime::DialectIndex;
use ota_messages::runtime::check_simple;
use ota_messages::runtime::schema::{
    Builtin, ComplexDesc, Content, ElementDesc, Member, Particle, SimpleDesc, TypeDesc,
};
use ota_messages::{AnyMessage, Dialect};
use std::collections::{BTreeMap, VecDeque};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// Cases per message root.
const CASES: u64 = 60;

/// Every root element with its table, from the generated code.
fn roots() -> Vec<(&'static str, &'static ComplexDesc)> {
    use ota_messages::runtime::Message;
    use ota_messages::*;
    vec![
        (booking_read::OtaReadRq::ROOT, booking_read::OtaReadRq::schema()),
        (booking_read::OtaResRetrieveRs::ROOT, booking_read::OtaResRetrieveRs::schema()),
        (
            hotel_descriptive_info::OtaHotelDescriptiveInfoRq::ROOT,
            hotel_descriptive_info::OtaHotelDescriptiveInfoRq::schema(),
        ),
        (
            hotel_descriptive_info::OtaHotelDescriptiveInfoRs::ROOT,
            hotel_descriptive_info::OtaHotelDescriptiveInfoRs::schema(),
        ),
        (hotel_res_modify::OtaHotelResModifyRq::ROOT, hotel_res_modify::OtaHotelResModifyRq::schema()),
        (hotel_res_modify::OtaHotelResModifyRs::ROOT, hotel_res_modify::OtaHotelResModifyRs::schema()),
        (
            product_descriptive_info::OtaProductDescriptiveInfoRq::ROOT,
            product_descriptive_info::OtaProductDescriptiveInfoRq::schema(),
        ),
        (
            product_descriptive_info::OtaProductDescriptiveInfoRs::ROOT,
            product_descriptive_info::OtaProductDescriptiveInfoRs::schema(),
        ),
        (tour_activity_avail::OtaTourActivityAvailRq::ROOT, tour_activity_avail::OtaTourActivityAvailRq::schema()),
        (tour_activity_avail::OtaTourActivityAvailRs::ROOT, tour_activity_avail::OtaTourActivityAvailRs::schema()),
        (tour_activity_book::OtaTourActivityBookRq::ROOT, tour_activity_book::OtaTourActivityBookRq::schema()),
        (tour_activity_book::OtaTourActivityBookRs::ROOT, tour_activity_book::OtaTourActivityBookRs::schema()),
        (tour_activity_search::OtaTourActivitySearchRq::ROOT, tour_activity_search::OtaTourActivitySearchRq::schema()),
        (tour_activity_search::OtaTourActivitySearchRs::ROOT, tour_activity_search::OtaTourActivitySearchRs::schema()),
    ]
}

/// Characters free text is drawn from: ASCII, XML-special, non-ASCII, whitespace, SQL-ish.
const ALPHABET: &[&str] = &[
    "a",
    "Z",
    "0",
    " ",
    "-",
    "&",
    "<",
    ">",
    "\"",
    "'",
    "é",
    "Ł",
    "ü",
    "Ω",
    "日",
    "本",
    "😀",
    "\t",
    "\n",
    "\r",
    ";",
    "%",
    "]]>",
    "--",
    "' OR 1=1 --",
    "\u{a0}",
];

struct Gen {
    rng: StdRng,
    /// When set, the children of every element are written in an order drawn from this
    /// generator (values are drawn from `rng` alone, so a shuffled document holds the same
    /// values as the ordered one made from the same seed).
    shuffle: Option<StdRng>,
    /// The dialect the document is drawn for: what that dialect does not write is left out
    /// (a value that dialect cannot carry).
    dialect: Dialect,
}

impl Gen {
    fn new(seed: u64, shuffle: Option<u64>) -> Self {
        Gen {
            rng: StdRng::seed_from_u64(seed),
            shuffle: shuffle.map(StdRng::seed_from_u64),
            dialect: Dialect::default(),
        }
    }

    /// Whether the dialect drawn for writes this member of `c`.
    fn writes(&self, c: &ComplexDesc, member: Member) -> bool {
        !c.omits(DialectIndex::from(self.dialect).0, member)
    }

    /// Writes `children` (name, XML) in order, or shuffled with same-name siblings kept in
    /// their order.
    fn write_children(&mut self, out: &mut String, children: Vec<(&str, String)>) {
        let Some(rng) = self.shuffle.as_mut() else {
            children.into_iter().for_each(|(_, xml)| out.push_str(&xml));
            return;
        };
        let mut names: Vec<&str> = children.iter().map(|(n, _)| *n).collect();
        names.shuffle(rng);
        let mut by_name: BTreeMap<&str, VecDeque<String>> = BTreeMap::new();
        for (n, xml) in children {
            by_name.entry(n).or_default().push_back(xml);
        }
        for n in names {
            if let Some(xml) = by_name.get_mut(n).and_then(VecDeque::pop_front) {
                out.push_str(&xml);
            }
        }
    }
}

impl Gen {
    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn text(&mut self, min: usize, max: usize) -> String {
        let n = self.rng.random_range(min..=max.max(min));
        let mut s = String::new();
        while s.chars().count() < n {
            let piece = ALPHABET[self.rng.random_range(0..ALPHABET.len())];
            s.push_str(piece);
        }
        s.chars().take(n).collect()
    }

    fn builtin(&mut self, b: Builtin, d: &SimpleDesc) -> String {
        match b {
            Builtin::String => {
                let min = d.min_length.unwrap_or(0) as usize;
                let max = d.max_length.map(|m| m as usize).unwrap_or(min + 24).min(min + 40);
                self.text(min, max)
            }
            Builtin::NormalizedString | Builtin::Token => {
                let s = self.text(1, 12).replace(['\t', '\n', '\r'], "x");
                let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
                if s.is_empty() { "t".to_string() } else { s }
            }
            Builtin::Language => {
                ["en", "es", "de", "en-GB", "zh-Hant-TW", "pt-BR"][self.rng.random_range(0..6)].to_string()
            }
            Builtin::Boolean => ["true", "false", "1", "0"][self.rng.random_range(0..4)].to_string(),
            Builtin::Int => self.rng.random_range(-1000i32..100_000).to_string(),
            Builtin::Integer => self.rng.random_range(-1_000_000i64..1_000_000).to_string(),
            Builtin::NonNegativeInteger | Builtin::UnsignedInt => self.rng.random_range(0u32..100_000).to_string(),
            Builtin::PositiveInteger => self.rng.random_range(1u32..100_000).to_string(),
            Builtin::Decimal => {
                let int = self.rng.random_range(0u32..100_000);
                match self.rng.random_range(0..3) {
                    0 => int.to_string(),
                    1 => format!("{int}.{:02}", self.rng.random_range(0..100)),
                    _ => format!("-{int}.5"),
                }
            }
            Builtin::Date => format!(
                "{:04}-{:02}-{:02}",
                self.rng.random_range(1950..2080),
                self.rng.random_range(1..=12),
                self.rng.random_range(1..=28)
            ),
            Builtin::DateTime => {
                let mut s = format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                    self.rng.random_range(1950..2080),
                    self.rng.random_range(1..=12),
                    self.rng.random_range(1..=28),
                    self.rng.random_range(0..24),
                    self.rng.random_range(0..60),
                    self.rng.random_range(0..60)
                );
                if self.chance(0.3) {
                    s.push_str(".250");
                }
                match self.rng.random_range(0..3) {
                    0 => s.push('Z'),
                    1 => s.push_str("+02:00"),
                    _ => {}
                }
                s
            }
        }
    }

    /// A number within `minInclusive`..`maxInclusive`, when both bound a numeric type.
    fn in_range(&mut self, d: &SimpleDesc) -> Option<String> {
        let (lo, hi) = (d.min_inclusive?.parse::<f64>().ok()?, d.max_inclusive?.parse::<f64>().ok()?);
        let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
        if lo > hi {
            return None;
        }
        let n = self.rng.random_range(lo..=hi);
        let v = match d.builtin {
            Builtin::Decimal if n < hi && self.chance(0.7) => format!("{n}.{:04}", self.rng.random_range(0..10_000)),
            Builtin::Decimal
            | Builtin::Int
            | Builtin::Integer
            | Builtin::NonNegativeInteger
            | Builtin::PositiveInteger
            | Builtin::UnsignedInt => n.to_string(),
            _ => return None,
        };
        check_simple(d, &v).is_ok().then_some(v)
    }

    fn by_pattern(&mut self, d: &SimpleDesc) -> Option<String> {
        let p = d.patterns.first()?;
        let inner = p.regex.strip_prefix(r"\A(?:")?.strip_suffix(r")\z")?;
        let re = rand_regex::Regex::compile(inner, 4).ok()?;
        Some(self.rng.sample::<String, _>(&re))
    }

    /// A value of a simple type that passes its checks (retrying a few shapes).
    fn simple(&mut self, d: &SimpleDesc) -> String {
        if !d.values.is_empty() {
            if let Some(other) = d.open
                && self.chance(0.3)
            {
                let v = self.simple(other);
                if !v.is_empty() && v.trim() == v {
                    return v;
                }
            }
            return d.values[self.rng.random_range(0..d.values.len())].to_string();
        }
        if let Some(v) = self.in_range(d) {
            return v;
        }
        for _ in 0..200 {
            let v = match self.by_pattern(d) {
                Some(v) if d.builtin == Builtin::String => v,
                _ => self.builtin(d.builtin, d),
            };
            if check_simple(d, &v).is_ok() {
                return v;
            }
        }
        panic!("could not draw a valid value of {}", d.name);
    }
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            c => out.push(c),
        }
    }
    out
}

fn element(g: &mut Gen, out: &mut String, name: &str, ty: TypeDesc, root: bool) {
    out.push('<');
    out.push_str(name);
    if root {
        out.push_str(r#" xmlns="http://www.opentravel.org/OTA/2003/05""#);
    }
    match ty {
        TypeDesc::Simple(s) => {
            out.push('>');
            out.push_str(&escape(&g.simple(s), false));
        }
        TypeDesc::Complex(c) => {
            for (i, a) in c.attributes.iter().enumerate() {
                if !g.writes(c, Member::Attribute(i)) {
                    continue;
                }
                if a.required || g.chance(0.6) {
                    let v = g.simple(a.ty);
                    out.push_str(&format!(r#" {}="{}""#, a.name, escape(&v, true)));
                }
            }
            out.push('>');
            match &c.content {
                Content::Empty | Content::Skipped => {}
                Content::Text(s) => out.push_str(&escape(&g.simple(s), false)),
                Content::Sequence(particles) => {
                    let mut children = Vec::new();
                    for p in *particles {
                        match p {
                            Particle::Element(e) => occurrences(g, &mut children, c, e),
                            Particle::Choice { required, branches } => {
                                if *required || g.chance(0.5) {
                                    let b = branches[g.rng.random_range(0..branches.len())];
                                    for e in b {
                                        occurrences(g, &mut children, c, e);
                                    }
                                }
                            }
                        }
                    }
                    g.write_children(out, children);
                }
            }
        }
    }
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

fn occurrences(g: &mut Gen, children: &mut Vec<(&'static str, String)>, parent: &ComplexDesc, e: &ElementDesc) {
    if !g.writes(parent, Member::Element(e.index)) {
        return;
    }
    let extra = if e.max > e.min { g.rng.random_range(0..=(e.max - e.min).min(2)) } else { 0 };
    // An element the dialect writes even when absent is always there in its documents.
    let always = parent.always_writes(DialectIndex::from(g.dialect).0, Member::Element(e.index));
    let n = if e.min == 0 && !always && g.chance(0.35) {
        0
    } else {
        e.min.max(1).min(e.max) + extra.min(e.max.saturating_sub(e.min.max(1)))
    };
    for _ in 0..n {
        let mut xml = String::new();
        element(g, &mut xml, e.name, e.ty, false);
        children.push((e.name, xml));
    }
}

/// True when both decoders agree once carriage returns are left out of the document.
fn same_without_cr(xml: &str) -> bool {
    let xml = xml.replace("&#13;", "");
    matches!((AnyMessage::from_xml(&xml), AnyMessage::from_xml_with_yaserde(&xml)), (Ok(a), Ok(b)) if a == b)
}

#[test]
fn random_documents_of_every_message_round_trip() {
    let mut failures = Vec::new();
    let mut total = 0;
    for (i, (root, desc)) in roots().into_iter().enumerate() {
        for case in 0..CASES {
            let seed = (i as u64) << 32 | case;
            let mut g = Gen::new(seed, None);
            // Every other case in another dialect.
            g.dialect = Dialect::ALL[case as usize % Dialect::ALL.len()];
            let dialect = g.dialect;
            let mut xml = String::new();
            element(&mut g, &mut xml, root, TypeDesc::Complex(desc), true);
            total += 1;
            let fail = |why: String| format!("{root} seed {seed} ({}): {why}\n{xml}", dialect.as_str());
            let value = match AnyMessage::from_xml(&xml) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(fail(format!("does not decode: {e}")));
                    continue;
                }
            };
            match AnyMessage::from_xml_with_yaserde(&xml) {
                Ok(v) if v == value => {}
                // yaserde re-parses attribute values of custom types (code lists, dates) through a
                // nested document, which turns a carriage return into a line feed: a known yaserde
                // defect (see spec/README.md). The generated decoder keeps it.
                Ok(_) if xml.contains("&#13;") && same_without_cr(&xml) => {}
                Ok(v) => failures.push(fail(format!("yaserde binds another value:\n{value:#?}\n{v:#?}"))),
                Err(e) => failures.push(fail(format!("yaserde path fails: {e}"))),
            }
            // Compact in the case's dialect; pretty (the default dialect's) on its cases.
            let pretty = (dialect == Dialect::default()).then(|| value.to_xml_pretty());
            for out in std::iter::once(value.to_xml_in(dialect)).chain(pretty) {
                match out.map(|o| (AnyMessage::from_xml(&o), o)) {
                    Ok((Ok(again), _)) if again == value => {}
                    Ok((Ok(again), o)) => {
                        failures.push(fail(format!("re-encoded value differs:\n{o}\n{value:#?}\n{again:#?}")))
                    }
                    Ok((Err(e), o)) => failures.push(fail(format!("re-encoded output does not decode: {e}\n{o}"))),
                    Err(e) => failures.push(fail(format!("does not encode: {e}"))),
                }
            }
        }
    }
    assert!(total >= 14 * CASES as usize);
    let kinds: Vec<String> =
        failures.iter().map(|f| f.lines().next().unwrap_or("").split(": ").nth(1).unwrap_or("").to_string()).collect();
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed ({kinds:?}); first:\n{}",
        failures.len(),
        failures.iter().take(2).cloned().collect::<Vec<_>>().join("\n\n")
    );
}

/// The children of every sequence in any order (same-name siblings in theirs) decode to the
/// same value as the declared order, and encode back to the declared order.
#[test]
fn shuffled_children_decode_to_the_same_value() {
    let mut failures = Vec::new();
    let (mut total, mut reordered) = (0, 0);
    for (i, (root, desc)) in roots().into_iter().enumerate() {
        for case in 0..CASES {
            let seed = (i as u64) << 32 | case;
            let mut ordered = String::new();
            element(&mut Gen::new(seed, None), &mut ordered, root, TypeDesc::Complex(desc), true);
            let mut shuffled = String::new();
            element(&mut Gen::new(seed, Some(!seed)), &mut shuffled, root, TypeDesc::Complex(desc), true);
            total += 1;
            reordered += usize::from(shuffled != ordered);
            let fail = |why: String| format!("{root} seed {seed}: {why}\n{shuffled}");
            let expected = match AnyMessage::from_xml(&ordered) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(fail(format!("the ordered document does not decode: {e}")));
                    continue;
                }
            };
            match AnyMessage::from_xml(&shuffled) {
                Ok(v) if v == expected => {}
                Ok(v) => failures.push(fail(format!("decodes to another value:\n{expected:#?}\n{v:#?}"))),
                Err(e) => failures.push(fail(format!("does not decode: {e}"))),
            }
            match AnyMessage::from_xml_with_yaserde(&shuffled) {
                Ok(v) if v == expected => {}
                // yaserde's carriage-return defect, as in the test above.
                Ok(_) if shuffled.contains("&#13;") && same_without_cr(&shuffled) => {}
                Ok(v) => failures.push(fail(format!("yaserde binds another value:\n{expected:#?}\n{v:#?}"))),
                Err(e) => failures.push(fail(format!("yaserde path fails: {e}"))),
            }
            match (AnyMessage::from_xml(&shuffled).map(|v| v.to_xml()), expected.to_xml()) {
                (Ok(Ok(a)), Ok(b)) if a == b => {}
                _ => failures.push(fail("does not encode to the declared order".to_string())),
            }
        }
    }
    assert!(reordered * 2 > total, "only {reordered} of {total} documents were reordered");
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed; first:\n{}",
        failures.len(),
        failures.iter().take(2).cloned().collect::<Vec<_>>().join("\n\n")
    );
}

#[test]
fn the_generator_draws_what_the_checks_accept() {
    // The value generator itself must only draw valid values (else the property test above
    // would test the error path): every simple type reachable from the roots.
    let mut g = Gen::new(7, None);
    for (_, desc) in roots() {
        for a in desc.attributes {
            for _ in 0..20 {
                let v = g.simple(a.ty);
                assert!(check_simple(a.ty, &v).is_ok(), "{} {v:?}", a.name);
            }
        }
    }
}
