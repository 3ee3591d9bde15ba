//! Valid instances of the official schemas: from a base document (a request valid under its
//! root's official schema), variants that stay valid.
//!
//! - [`one_extra`]: for every element of the base and every optional item its official type
//!   allows that the base does not have (an absent attribute; an element below its
//!   `maxOccurs`, or another alternative of a choice that keeps the content valid; an element
//!   of another namespace where `xs:any` allows one), one variant adding just that item, with
//!   minimal valid content (its required attributes and elements, recursively), at a position
//!   valid for the content model.
//! - [`random_fill`]: the base plus random optional items (each absent one added with some
//!   probability, recursively inside what it adds, depth- and size-bounded).
//!
//! Where an element may go is decided by matching the children's names against the content
//! model ([`Particle`]) exactly, so occurrence bounds, sequence order and choices hold. Values
//! respect the facets of the whole derivation chain: enumerations, patterns (generated with
//! `rand_regex` and checked against every level's pattern), lengths, numeric bounds, fraction
//! and total digits, each built-in's lexical form, union members and list items. Elements under
//! a wildcard are not looked into (2016B's `TPA_Extensions` skips them). Everything is
//! deterministic for a given random generator state ([`one_extra`] seeds its own).
//!
//! Bases may be templates: [`fill_dates`] turns `{{DAY+N}}` into the date N days after a given
//! day.

use std::collections::HashMap;
use std::fmt;

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, RngExt, SeedableRng};

use super::{Content, Element, OTA_NS, OfficialSchema, Particle, SimpleId, TypeRef, Variety};

/// The namespace of the elements added where `xs:any` allows one.
pub const EXTENSION_NS: &str = "urn:example:ota-extension";

/// How deep random content goes inside what [`random_fill`] adds.
const MAX_DEPTH: u32 = 3;
/// At most this many elements are added by one [`random_fill`] (required content aside).
const BUDGET: u32 = 120;

/// A variant of a base document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// What was added, as a path: `/OTA_HotelResRQ/HotelReservations/HotelReservation/@RoomStayReservation`
    /// for an attribute, `/OTA_HotelResRQ/POS/Source` for an element (a step is numbered, `[2]`,
    /// where siblings share its name), `…/TPA_Extensions/*` for an element of another namespace;
    /// `random` for a [`random_fill`].
    pub item: String,
    /// The document.
    pub xml: String,
}

/// Why no variant can be made of a base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstanceError {
    /// The base is not well-formed XML.
    Xml(String),
    /// The base's root element is not a top-level element of the schema (in OpenTravel's
    /// namespace).
    UnknownRoot(String),
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceError::Xml(e) => write!(f, "the base is not well-formed XML: {e}"),
            InstanceError::UnknownRoot(r) => write!(f, "the base's root {r} is not an official top-level element"),
        }
    }
}

impl std::error::Error for InstanceError {}

/// Every variant of `base` that adds one optional item (see the [module](self) doc), in
/// document order of the elements, attributes before elements.
pub fn one_extra(schema: &OfficialSchema, base: &str) -> Result<Vec<Variant>, InstanceError> {
    let (tree, root) = parse_base(schema, base)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(29);
    let mut g = Gen::new(schema, &mut rng);
    let mut sites = Vec::new();
    collect_sites(schema, &tree, root.ty, &mut Vec::new(), &format!("/{}", tree.name), &mut sites);
    let mut out = Vec::new();
    for site in &sites {
        let Some(node) = tree.at(&site.index) else { continue };
        let TypeRef::Complex(c) = site.ty else { continue };
        let complex = schema.complex(c);
        for attribute in &complex.attributes {
            if node.attribute(&attribute.name).is_none() {
                let mut copy = tree.clone();
                if let Some(target) = copy.at_mut(&site.index) {
                    let value = g.value(attribute.ty);
                    target.attributes.push((attribute.name.clone(), value));
                    out.push(Variant { item: format!("{}/@{}", site.path, attribute.name), xml: copy.to_xml() });
                }
            }
        }
        let Content::Elements(particle) = &complex.content else { continue };
        let mut candidates: Vec<Option<&Element>> = schema.child_elements(c).into_iter().map(Some).collect();
        if has_any(particle) {
            candidates.push(None);
        }
        for candidate in candidates {
            let key = candidate.map(|e| e.name.as_str());
            let names = node.child_keys();
            let Some(position) = (0..=names.len()).find(|&i| accepts(particle, &inserted(&names, i, key))) else {
                continue;
            };
            let new = match candidate {
                Some(e) => g.minimal(&e.name, e.ty),
                None => extension_element(),
            };
            let mut copy = tree.clone();
            if let Some(target) = copy.at_mut(&site.index) {
                target.insert_element(position, new);
                let step = candidate.map_or("*", |e| e.name.as_str());
                out.push(Variant { item: format!("{}/{step}", site.path), xml: copy.to_xml() });
            }
        }
    }
    Ok(out)
}

/// The base plus random optional items: each absent attribute and each element that may be
/// added is added with some probability, recursively inside what is added (at most three
/// levels of optional content, at most 120 added elements); values are random and valid.
pub fn random_fill<R: Rng + ?Sized>(
    schema: &OfficialSchema,
    base: &str,
    rng: &mut R,
) -> Result<Variant, InstanceError> {
    random_fill_where(schema, base, rng, &any_item)
}

/// A [`random_fill`] that adds only the optional items `allow` takes, each named by its path
/// as [`Variant::item`] names it, without step numbers (`/OTA_HotelResRQ/POS/Source/@AgentSine`,
/// `…/TPA_Extensions/*`). Required content of what it adds is added regardless. With the same
/// random state and an `allow` that takes everything, the result is [`random_fill`]'s.
pub fn random_fill_where<R: Rng + ?Sized>(
    schema: &OfficialSchema,
    base: &str,
    rng: &mut R,
    allow: &dyn Fn(&str) -> bool,
) -> Result<Variant, InstanceError> {
    let (mut tree, root) = parse_base(schema, base)?;
    let mut g = Gen::new(schema, rng);
    g.allow = allow;
    let path = format!("/{}", tree.name);
    g.fill(&mut tree, root.ty, 0, true, &path);
    Ok(Variant { item: "random".to_string(), xml: tree.to_xml() })
}

fn any_item(_: &str) -> bool {
    true
}

/// A minimal valid document of a top-level element: its required attributes and content,
/// recursively (the cheapest alternative of each choice); `None` if the schema has no such
/// element.
pub fn minimal_document(schema: &OfficialSchema, root: &str) -> Option<String> {
    let declared = schema.root(root)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(29);
    let mut g = Gen::new(schema, &mut rng);
    let mut node = g.minimal(&declared.name, declared.ty);
    node.attributes.retain(|(n, _)| !n.starts_with("xmlns"));
    Some(node.to_xml())
}

// -- dates ----------------------------------------------------------------------------------

/// Replaces every `{{DAY+N}}` (and `{{DAY-N}}`, `{{DAY}}`) of a template with the date
/// (`YYYY-MM-DD`) N days after (before) `today`, given as (year, month, day).
pub fn fill_dates(template: &str, today: (i32, u32, u32)) -> String {
    let base = days_from_civil(today.0, today.1, today.2);
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{DAY") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 5..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let offset = after[..end].replace(' ', "");
        let days = match offset.as_str() {
            "" => Some(0),
            o if o.starts_with('+') => o[1..].parse::<i64>().ok(),
            o if o.starts_with('-') => o[1..].parse::<i64>().ok().map(|d| -d),
            _ => None,
        };
        match days {
            Some(d) => {
                let (y, m, dd) = civil_from_days(base + d);
                out.push_str(&format!("{y:04}-{m:02}-{dd:02}"));
            }
            None => out.push_str(&rest[start..start + 5 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Today's date in UTC, as (year, month, day).
pub fn today_utc() -> (i32, u32, u32) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_from_days((secs / 86_400) as i64)
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y as i32, m, d)
}

// -- the document tree ------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Node {
    /// Namespace (`None`: no namespace).
    ns: Option<String>,
    name: String,
    /// Unqualified attributes, and `xml:lang`-like ones written with their prefix.
    attributes: Vec<(String, String)>,
    children: Vec<Child>,
}

#[derive(Debug, Clone)]
enum Child {
    Element(Node),
    Text(String),
}

impl Node {
    fn new(ns: Option<&str>, name: &str) -> Node {
        Node { ns: ns.map(str::to_string), name: name.to_string(), attributes: Vec::new(), children: Vec::new() }
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn elements(&self) -> impl Iterator<Item = &Node> {
        self.children.iter().filter_map(|c| match c {
            Child::Element(e) => Some(e),
            Child::Text(_) => None,
        })
    }

    /// The child elements as the content model sees them: an OpenTravel element by its name,
    /// any other as `None`.
    fn child_keys(&self) -> Vec<Option<&str>> {
        self.elements().map(|e| e.key()).collect()
    }

    fn key(&self) -> Option<&str> {
        (self.ns.as_deref() == Some(OTA_NS)).then_some(self.name.as_str())
    }

    /// Inserts an element before the `position`-th child element (at the end past the last).
    fn insert_element(&mut self, position: usize, node: Node) {
        let mut seen = 0;
        let mut at = self.children.len();
        for (i, child) in self.children.iter().enumerate() {
            if let Child::Element(_) = child {
                if seen == position {
                    at = i;
                    break;
                }
                seen += 1;
            }
        }
        self.children.insert(at, Child::Element(node));
    }

    /// The node at a path of child-element indexes.
    fn at(&self, index: &[usize]) -> Option<&Node> {
        let mut node = self;
        for &i in index {
            node = node.elements().nth(i)?;
        }
        Some(node)
    }

    fn at_mut(&mut self, index: &[usize]) -> Option<&mut Node> {
        let mut node = self;
        for &i in index {
            node = node
                .children
                .iter_mut()
                .filter_map(|c| match c {
                    Child::Element(e) => Some(e),
                    Child::Text(_) => None,
                })
                .nth(i)?;
        }
        Some(node)
    }

    fn to_xml(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        self.write(&mut out, None);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, parent_ns: Option<&str>) {
        out.push('<');
        out.push_str(&self.name);
        if self.ns.as_deref() != parent_ns {
            out.push_str(" xmlns=\"");
            escape_into(out, self.ns.as_deref().unwrap_or_default(), true);
            out.push('"');
        }
        for (name, value) in &self.attributes {
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            escape_into(out, value, true);
            out.push('"');
        }
        if self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        for child in &self.children {
            match child {
                Child::Element(e) => e.write(out, self.ns.as_deref()),
                Child::Text(t) => escape_into(out, t, false),
            }
        }
        out.push_str("</");
        out.push_str(&self.name);
        out.push('>');
    }
}

fn escape_into(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

fn parse_base<'s>(schema: &'s OfficialSchema, base: &str) -> Result<(Node, &'s Element), InstanceError> {
    let doc = roxmltree::Document::parse(base).map_err(|e| InstanceError::Xml(e.to_string()))?;
    let root = doc.root_element();
    let name = root.tag_name().name();
    let declared = match root.tag_name().namespace() {
        Some(OTA_NS) => schema.root(name),
        _ => None,
    };
    let Some(declared) = declared else {
        return Err(InstanceError::UnknownRoot(format!(
            "{{{}}}{name}",
            root.tag_name().namespace().unwrap_or_default()
        )));
    };
    Ok((convert(root), declared))
}

fn convert(node: roxmltree::Node) -> Node {
    let mut out = Node::new(node.tag_name().namespace(), node.tag_name().name());
    for a in node.attributes() {
        let name = match a.namespace() {
            None => a.name().to_string(),
            Some("http://www.w3.org/XML/1998/namespace") => format!("xml:{}", a.name()),
            // Other qualified attributes (xsi:…) are not kept: the variants declare no prefixes.
            Some(_) => continue,
        };
        out.attributes.push((name, a.value().to_string()));
    }
    for child in node.children() {
        if child.is_element() {
            out.children.push(Child::Element(convert(child)));
        } else if let Some(text) = child.text().filter(|_| child.is_text()) {
            out.children.push(Child::Text(text.to_string()));
        }
    }
    out
}

fn extension_element() -> Node {
    let mut node = Node::new(Some(EXTENSION_NS), "Extension");
    node.attributes.push(("Note".to_string(), "added".to_string()));
    node
}

// -- where the base's elements are declared ---------------------------------------------------

/// An element of the base whose declaration is known.
struct Site {
    index: Vec<usize>,
    path: String,
    ty: TypeRef,
}

fn collect_sites(
    schema: &OfficialSchema,
    node: &Node,
    ty: TypeRef,
    index: &mut Vec<usize>,
    path: &str,
    out: &mut Vec<Site>,
) {
    out.push(Site { index: index.clone(), path: path.to_string(), ty });
    let TypeRef::Complex(c) = ty else { return };
    let children: Vec<&Node> = node.elements().collect();
    for (i, child) in children.iter().enumerate() {
        let Some(decl) = child.key().and_then(|k| schema.child(c, k)) else { continue };
        let same = children.iter().filter(|o| o.key() == child.key()).count();
        let step = if same > 1 {
            let n = children[..=i].iter().filter(|o| o.key() == child.key()).count();
            format!("{path}/{}[{n}]", child.name)
        } else {
            format!("{path}/{}", child.name)
        };
        index.push(i);
        collect_sites(schema, child, decl.ty, index, &step, out);
        index.pop();
    }
}

// -- content models ---------------------------------------------------------------------------

fn has_any(p: &Particle) -> bool {
    match p {
        Particle::Any { .. } => true,
        Particle::Element(_) => false,
        Particle::Sequence { items, .. } | Particle::Choice { items, .. } => items.iter().any(has_any),
    }
}

fn inserted<'a>(names: &[Option<&'a str>], at: usize, key: Option<&'a str>) -> Vec<Option<&'a str>> {
    let mut out = names.to_vec();
    out.insert(at.min(out.len()), key);
    out
}

/// Whether a sequence of child elements (an OpenTravel one by name, another as `None`) is
/// valid for a content model.
pub(crate) fn accepts(p: &Particle, children: &[Option<&str>]) -> bool {
    let mut start = Positions::none(children.len());
    start.insert(0);
    ends(p, children, &start).contains(children.len())
}

/// A set of positions `0..=len` in a sequence of children (a bit set: [`ends`] unites and
/// compares them for every particle of a content model).
#[derive(Clone, PartialEq, Eq)]
struct Positions(Vec<u64>);

impl Positions {
    fn none(len: usize) -> Self {
        Positions(vec![0; len / 64 + 1])
    }

    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    fn extend(&mut self, other: &Positions) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(k, &w)| (0..64).filter(move |b| w & (1 << b) != 0).map(move |b| k * 64 + b))
    }
}

/// Where a particle can end when it starts at each of `starts`.
fn ends(p: &Particle, seq: &[Option<&str>], starts: &Positions) -> Positions {
    let mut out = Positions::none(seq.len());
    match p {
        Particle::Element(e) => {
            let matches = |k: &Option<&str>| *k == Some(e.name.as_str());
            run(e.min, e.max, seq, starts, matches, &mut out);
        }
        Particle::Any { min, max } => run(*min, *max, seq, starts, |_| true, &mut out),
        Particle::Sequence { min, max, items } | Particle::Choice { min, max, items } => {
            let choice = matches!(p, Particle::Choice { .. });
            let once = |from: &Positions| -> Positions {
                if choice {
                    let mut all = Positions::none(seq.len());
                    for item in items {
                        all.extend(&ends(item, seq, from));
                    }
                    all
                } else {
                    items
                        .iter()
                        .fold(from.clone(), |acc, item| if acc.is_empty() { acc } else { ends(item, seq, &acc) })
                }
            };
            if *min == 0 {
                out.extend(starts);
            }
            let bound = u64::from(*min) + seq.len() as u64 + 1;
            let mut current = starts.clone();
            let mut i: u32 = 0;
            while i < *max && u64::from(i) < bound {
                let next = once(&current);
                i += 1;
                if next.is_empty() {
                    break;
                }
                if i >= *min {
                    out.extend(&next);
                    if next == current {
                        break;
                    }
                }
                current = next;
            }
        }
    }
    out
}

fn run(
    min: u32,
    max: u32,
    seq: &[Option<&str>],
    starts: &Positions,
    matches: impl Fn(&Option<&str>) -> bool,
    out: &mut Positions,
) {
    for s in starts.iter() {
        if min == 0 {
            out.insert(s);
        }
        let mut j = s;
        while j < seq.len() && ((j - s) as u64) < u64::from(max) && matches(&seq[j]) {
            j += 1;
            if (j - s) as u64 >= u64::from(min) {
                out.insert(j);
            }
        }
    }
}

// -- generation -------------------------------------------------------------------------------

const INFINITE: u64 = u64::MAX / 4;

/// The fewest elements a minimal instance of each complex type holds (fixpoint: recursive types
/// cost what their cheapest finite alternative does; [`INFINITE`] if none).
fn minimal_costs(schema: &OfficialSchema) -> Vec<u64> {
    let mut costs = vec![INFINITE; schema.complex_count()];
    loop {
        let mut changed = false;
        for i in 0..schema.complex_count() {
            let cost = content_cost(schema, i, &costs);
            if cost < costs[i] {
                costs[i] = cost;
                changed = true;
            }
        }
        if !changed {
            return costs;
        }
    }
}

fn content_cost(schema: &OfficialSchema, i: usize, costs: &[u64]) -> u64 {
    match &schema.complex(super::ComplexId(i)).content {
        Content::Elements(p) => particle_cost(p, costs),
        Content::Empty | Content::Text(_) => 0,
    }
}

fn type_cost(ty: TypeRef, costs: &[u64]) -> u64 {
    match ty {
        TypeRef::Simple(_) => 1,
        TypeRef::Complex(c) => costs[c.0].saturating_add(1).min(INFINITE),
    }
}

fn particle_cost(p: &Particle, costs: &[u64]) -> u64 {
    let (min, _) = p.occurs();
    let one = match p {
        Particle::Element(e) => type_cost(e.ty, costs),
        Particle::Any { .. } => 1,
        Particle::Sequence { items, .. } => {
            items.iter().map(|i| particle_cost(i, costs)).fold(0u64, |a, b| a.saturating_add(b)).min(INFINITE)
        }
        Particle::Choice { items, .. } => items.iter().map(|i| particle_cost(i, costs)).min().unwrap_or(0),
    };
    one.saturating_mul(u64::from(min)).min(INFINITE)
}

/// A compiled pattern: a generator (rand_regex) and a checker (regex), either may be missing.
struct Pattern {
    generator: Option<rand_regex::Regex>,
    checker: Option<regex::Regex>,
}

struct Gen<'s, 'r, R: Rng + ?Sized> {
    schema: &'s OfficialSchema,
    rng: &'r mut R,
    costs: &'s [u64],
    patterns: HashMap<String, Pattern>,
    budget: u32,
    /// Which optional items (by path) random content may add.
    allow: &'s dyn Fn(&str) -> bool,
}

impl<'s, 'r, R: Rng + ?Sized> Gen<'s, 'r, R> {
    fn new(schema: &'s OfficialSchema, rng: &'r mut R) -> Self {
        let costs = schema.minimal_costs.get_or_init(|| minimal_costs(schema));
        Gen { schema, rng, costs, patterns: HashMap::new(), budget: BUDGET, allow: &any_item }
    }

    /// A minimal valid element: required attributes, required content (the cheapest
    /// alternative of each choice).
    fn minimal(&mut self, name: &str, ty: TypeRef) -> Node {
        self.instance(name, ty, None, name)
    }

    /// An element with its required attributes and content; with `random` = Some(depth) choices
    /// are random among the cheap alternatives and optional content is added (depth-bounded).
    /// `path` is the element's (for what [`Gen::allow`]s).
    fn instance(&mut self, name: &str, ty: TypeRef, random: Option<u32>, path: &str) -> Node {
        let mut node = Node::new(Some(OTA_NS), name);
        match ty {
            TypeRef::Simple(s) => {
                let v = self.value(s);
                node.children.push(Child::Text(v));
            }
            TypeRef::Complex(c) => {
                let complex = self.schema.complex(c);
                for a in complex.attributes.iter().filter(|a| a.required) {
                    let v = self.value(a.ty);
                    node.attributes.push((a.name.clone(), v));
                }
                match &complex.content {
                    Content::Empty => {}
                    Content::Text(s) => {
                        let v = self.value(*s);
                        node.children.push(Child::Text(v));
                    }
                    Content::Elements(p) => {
                        let mut children = Vec::new();
                        self.required(p, random, &mut children, path);
                        node.children.extend(children.into_iter().map(Child::Element));
                    }
                }
                if let Some(depth) = random {
                    self.fill(&mut node, ty, depth, false, path);
                }
            }
        }
        node
    }

    fn required(&mut self, p: &Particle, random: Option<u32>, out: &mut Vec<Node>, path: &str) {
        let (min, _) = p.occurs();
        for _ in 0..min {
            match p {
                Particle::Element(e) => {
                    let child = self.instance(&e.name, e.ty, random.map(|d| d + 1), &format!("{path}/{}", e.name));
                    out.push(child);
                }
                Particle::Any { .. } => out.push(extension_element()),
                Particle::Sequence { items, .. } => {
                    for item in items {
                        self.required(item, random, out, path);
                    }
                }
                Particle::Choice { items, .. } => {
                    let costs: Vec<u64> = items.iter().map(|i| particle_cost(i, self.costs)).collect();
                    let cheapest = costs.iter().copied().min().unwrap_or(0);
                    let pick = match random {
                        Some(depth) if depth < MAX_DEPTH => {
                            let cheap: Vec<usize> =
                                (0..items.len()).filter(|&i| costs[i] <= cheapest.saturating_mul(2) + 4).collect();
                            cheap.choose(self.rng).copied()
                        }
                        _ => costs.iter().position(|&c| c == cheapest),
                    };
                    if let Some(item) = pick.and_then(|i| items.get(i)) {
                        self.required(item, random, out, path);
                    }
                }
            }
        }
    }

    /// Adds random optional items to an element of type `ty` (`depth`: how deep inside what was
    /// added it is, 0 for the base's), and with `into_children` into its children too.
    /// `path` is the element's.
    fn fill(&mut self, node: &mut Node, ty: TypeRef, depth: u32, into_children: bool, path: &str) {
        let TypeRef::Complex(c) = ty else { return };
        let schema = self.schema;
        let complex = schema.complex(c);
        let p = 0.5 / f64::from(depth + 1);
        for a in &complex.attributes {
            if node.attribute(&a.name).is_none()
                && self.rng.random_bool(p)
                && (self.allow)(&format!("{path}/@{}", a.name))
            {
                let v = self.value(a.ty);
                node.attributes.push((a.name.clone(), v));
            }
        }
        let Content::Elements(particle) = &complex.content else { return };
        // Into the base's children (those of what is added were filled when made).
        if into_children {
            for child in node.children.iter_mut() {
                let Child::Element(child) = child else { continue };
                let Some(decl) = child.key().and_then(|k| schema.child(c, k)) else { continue };
                let child_path = format!("{path}/{}", child.name);
                self.fill(child, decl.ty, 0, true, &child_path);
            }
        }
        if depth >= MAX_DEPTH {
            return;
        }
        let mut candidates: Vec<Option<&Element>> = schema.child_elements(c).into_iter().map(Some).collect();
        if has_any(particle) {
            candidates.push(None);
        }
        candidates.shuffle(self.rng);
        for candidate in candidates {
            if self.budget == 0 || !self.rng.random_bool(p) {
                continue;
            }
            let key = candidate.map(|e| e.name.as_str());
            let item = format!("{path}/{}", key.unwrap_or("*"));
            if !(self.allow)(&item) {
                continue;
            }
            let names = node.child_keys();
            let positions: Vec<usize> =
                (0..=names.len()).filter(|&i| accepts(particle, &inserted(&names, i, key))).collect();
            let Some(&position) = positions.choose(self.rng) else { continue };
            self.budget -= 1;
            let new = match candidate {
                Some(e) => self.instance(&e.name, e.ty, Some(depth + 1), &item),
                None => extension_element(),
            };
            node.insert_element(position, new);
        }
    }

    // -- values ---------------------------------------------------------------------------

    /// A valid value of a simple type.
    fn value(&mut self, id: SimpleId) -> String {
        let mut last = String::new();
        for _ in 0..24 {
            let candidate = self.candidate(id);
            if self.valid(id, &candidate) {
                return candidate;
            }
            last = candidate;
        }
        // The fallbacks: the shortest enumeration, else the last candidate.
        let facets = &self.schema.simple(id).facets;
        facets.enumerations.iter().min_by_key(|v| v.len()).cloned().unwrap_or(last)
    }

    fn candidate(&mut self, id: SimpleId) -> String {
        let simple = self.schema.simple(id);
        let facets = &simple.facets;
        if !facets.enumerations.is_empty() {
            let valid: Vec<&String> = facets.enumerations.iter().filter(|v| self.valid_facets(id, v)).collect();
            let pool: Vec<&String> = if valid.is_empty() { facets.enumerations.iter().collect() } else { valid };
            return pool.choose(self.rng).map(|v| v.to_string()).unwrap_or_default();
        }
        match &simple.variety {
            Variety::Union(members) => match members.choose(self.rng).copied() {
                Some(m) => self.value(m),
                None => String::new(),
            },
            Variety::List(item) => {
                let item = *item;
                let lo = facets.length.or(facets.min_length).unwrap_or(1).max(1);
                let hi = facets.length.or(facets.max_length).unwrap_or(lo + 2).max(lo).min(lo + 4);
                let n = self.rng.random_range(lo..=hi);
                (0..n).map(|_| self.value(item)).collect::<Vec<_>>().join(" ")
            }
            Variety::Atomic => {
                if !facets.patterns.is_empty() {
                    let level = facets.patterns.len() - 1;
                    let pattern = facets.patterns[level].clone();
                    if let Some(v) = self.pattern_value(&pattern) {
                        return v;
                    }
                }
                self.builtin_value(id)
            }
        }
    }

    fn pattern_value(&mut self, xsd: &str) -> Option<String> {
        self.pattern(xsd);
        let generator = self.patterns.get(xsd)?.generator.as_ref()?;
        let value: String = self.rng.sample(generator);
        Some(value)
    }

    fn pattern(&mut self, xsd: &str) -> &Pattern {
        self.patterns.entry(xsd.to_string()).or_insert_with(|| Pattern {
            generator: generation_pattern(xsd).and_then(|p| rand_regex::Regex::compile(&p, 4).ok()),
            checker: crate::regex::translate_pattern(xsd).ok().and_then(|p| regex::Regex::new(&p).ok()),
        })
    }

    fn valid(&mut self, id: SimpleId, value: &str) -> bool {
        let simple = self.schema.simple(id);
        if !simple.facets.enumerations.is_empty() && !simple.facets.enumerations.iter().any(|v| v == value) {
            return false;
        }
        self.valid_facets(id, value)
    }

    /// Whether a value keeps the patterns, lengths and bounds of a type (not its enumeration).
    fn valid_facets(&mut self, id: SimpleId, value: &str) -> bool {
        if value.starts_with(' ') || value.ends_with(' ') || value.contains("  ") {
            return false;
        }
        if value.chars().any(|c| !is_xml_char(c) || (c.is_control())) {
            return false;
        }
        let simple = self.schema.simple(id);
        let facets = simple.facets.clone();
        for p in &facets.patterns {
            match &self.pattern(p).checker {
                Some(re) if !re.is_match(value) => return false,
                _ => {}
            }
        }
        let length = match simple.variety {
            Variety::List(_) => value.split_whitespace().count() as u64,
            _ => value.chars().count() as u64,
        };
        if facets.length.is_some_and(|l| length != l)
            || facets.min_length.is_some_and(|l| length < l)
            || facets.max_length.is_some_and(|l| length > l)
        {
            return false;
        }
        if is_numeric(&simple.builtin) {
            let Some(v) = parse_number(value) else { return false };
            let bound = |b: &Option<String>| b.as_deref().and_then(parse_number);
            if bound(&facets.min_inclusive).is_some_and(|b| v < b)
                || bound(&facets.max_inclusive).is_some_and(|b| v > b)
                || bound(&facets.min_exclusive).is_some_and(|b| v <= b)
                || bound(&facets.max_exclusive).is_some_and(|b| v >= b)
            {
                return false;
            }
            let (int_digits, frac_digits) = digits(value);
            if facets.fraction_digits.is_some_and(|f| frac_digits > f as usize)
                || facets.total_digits.is_some_and(|t| int_digits + frac_digits > t as usize)
            {
                return false;
            }
        }
        true
    }

    /// A value of the type's built-in within its bounds (patterns are checked after).
    fn builtin_value(&mut self, id: SimpleId) -> String {
        let simple = self.schema.simple(id);
        let facets = simple.facets.clone();
        let builtin = simple.builtin.clone();
        let rng = &mut *self.rng;
        match builtin.as_str() {
            "boolean" => ["true", "false"].choose(rng).map(|s| s.to_string()).unwrap_or_default(),
            b if integer_range(b).is_some() => {
                let (mut lo, mut hi) = integer_range(b).unwrap_or((0, 0));
                let bound = |s: &Option<String>| s.as_deref().and_then(|v| v.trim().parse::<f64>().ok());
                if let Some(v) = bound(&facets.min_inclusive) {
                    lo = lo.max(v.ceil() as i128);
                }
                if let Some(v) = bound(&facets.min_exclusive) {
                    lo = lo.max(v.floor() as i128 + 1);
                }
                if let Some(v) = bound(&facets.max_inclusive) {
                    hi = hi.min(v.floor() as i128);
                }
                if let Some(v) = bound(&facets.max_exclusive) {
                    hi = hi.min(v.ceil() as i128 - 1);
                }
                if let Some(t) = facets.total_digits {
                    hi = hi.min(10i128.saturating_pow(t.min(30)) - 1);
                }
                let lo = lo.max(if hi >= 0 { 0 } else { lo });
                let hi = hi.min(lo.saturating_add(if rng.random_bool(0.7) { 9 } else { 999 }));
                if lo > hi { lo.to_string() } else { rng.random_range(lo..=hi).to_string() }
            }
            "decimal" | "float" | "double" => {
                let bound = |s: &Option<String>| s.as_deref().and_then(|v| v.trim().parse::<f64>().ok());
                let lo = bound(&facets.min_inclusive).or(bound(&facets.min_exclusive)).unwrap_or(0.0).max(0.0);
                let hi = bound(&facets.max_inclusive).or(bound(&facets.max_exclusive)).unwrap_or(lo + 1000.0);
                let hi = hi.min(lo + 1000.0);
                let whole = rng.random_range(lo.ceil() as i64..=(hi.floor() as i64).max(lo.ceil() as i64));
                let fraction = facets.fraction_digits.unwrap_or(2).min(2);
                if fraction > 0 && rng.random_bool(0.6) && (whole as f64) + 1.0 <= hi {
                    let cents = rng.random_range(0..10u32.pow(fraction));
                    format!("{whole}.{cents:0width$}", width = fraction as usize)
                } else {
                    whole.to_string()
                }
            }
            "date" => date(rng),
            "dateTime" => format!("{}T{}", date(rng), time(rng)),
            "time" => time(rng),
            "duration" => match rng.random_range(0..3) {
                0 => format!("P{}D", rng.random_range(1..30)),
                1 => format!("PT{}H", rng.random_range(1..48)),
                _ => format!("P{}M", rng.random_range(1..12)),
            },
            "gYear" => rng.random_range(2026..2036).to_string(),
            "gYearMonth" => format!("{}-{:02}", rng.random_range(2026..2036), rng.random_range(1..=12)),
            "gMonthDay" => format!("--{:02}-{:02}", rng.random_range(1..=12), rng.random_range(1..=28)),
            "gMonth" => format!("--{:02}", rng.random_range(1..=12)),
            "gDay" => format!("---{:02}", rng.random_range(1..=28)),
            "anyURI" => format!("http://example.com/{}", word(rng, 1, 8)),
            "language" => ["en", "es", "de", "fr", "en-GB"].choose(rng).map(|s| s.to_string()).unwrap_or_default(),
            "base64Binary" => "QUJD".to_string(),
            "hexBinary" => "0AFF".to_string(),
            "Name" | "NCName" | "ID" | "IDREF" | "ENTITY" | "QName" | "NOTATION" => {
                format!("n{}", word(rng, 0, 6))
            }
            "NMTOKENS" | "IDREFS" | "ENTITIES" => format!("n{} n{}", word(rng, 1, 4), word(rng, 1, 4)),
            _ => {
                // string, normalizedString, token, NMTOKEN, anySimpleType.
                let lo = facets.length.or(facets.min_length).unwrap_or(1) as usize;
                let hi = facets.length.or(facets.max_length).map_or(lo.max(1) + 10, |h| h as usize).min(lo.max(1) + 16);
                word(rng, lo, hi.max(lo))
            }
        }
    }
}

/// A random alphanumeric word of `lo..=hi` characters, a letter first.
fn word<R: Rng + ?Sized>(rng: &mut R, lo: usize, hi: usize) -> String {
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let n = rng.random_range(lo..=hi.max(lo));
    (0..n)
        .map(|i| {
            let set = if i == 0 { LETTERS } else { ALNUM };
            set.choose(rng).copied().map_or('x', char::from)
        })
        .collect()
}

fn date<R: Rng + ?Sized>(rng: &mut R) -> String {
    format!("{}-{:02}-{:02}", rng.random_range(2026..2036), rng.random_range(1..=12), rng.random_range(1..=28))
}

fn time<R: Rng + ?Sized>(rng: &mut R) -> String {
    format!("{:02}:{:02}:00", rng.random_range(0..24), rng.random_range(0..60))
}

/// The value range of an integer built-in.
fn integer_range(builtin: &str) -> Option<(i128, i128)> {
    Some(match builtin {
        "integer" => (-1_000_000_000, 1_000_000_000),
        "nonNegativeInteger" => (0, 1_000_000_000),
        "positiveInteger" => (1, 1_000_000_000),
        "nonPositiveInteger" => (-1_000_000_000, 0),
        "negativeInteger" => (-1_000_000_000, -1),
        "long" => (i64::MIN.into(), i64::MAX.into()),
        "int" => (i32::MIN.into(), i32::MAX.into()),
        "short" => (i16::MIN.into(), i16::MAX.into()),
        "byte" => (i8::MIN.into(), i8::MAX.into()),
        "unsignedLong" => (0, u64::MAX.into()),
        "unsignedInt" => (0, u32::MAX.into()),
        "unsignedShort" => (0, u16::MAX.into()),
        "unsignedByte" => (0, u8::MAX.into()),
        _ => return None,
    })
}

fn is_numeric(builtin: &str) -> bool {
    integer_range(builtin).is_some() || matches!(builtin, "decimal" | "float" | "double")
}

fn parse_number(v: &str) -> Option<f64> {
    v.trim().parse::<f64>().ok()
}

/// The significant digits of a decimal's integer and fraction parts.
fn digits(v: &str) -> (usize, usize) {
    let v = v.trim().trim_start_matches(['+', '-']);
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    (int.len(), frac.len())
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{9}' | '\u{A}' | '\u{D}' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// An XSD pattern in the syntax of `rand_regex` (the `regex` crate's), generating a subset of
/// its language that is safe in XML: the multi-character escapes and `.` become ASCII classes,
/// `^` and `$` are literal.
fn generation_pattern(xsd: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = xsd.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars.next()?;
                let (class, inner) = match next {
                    'd' => ("[0-9]", "0-9"),
                    'D' | 'S' | 'W' | 'I' | 'C' => ("[A-Za-z]", "A-Za-z"),
                    'w' => ("[A-Za-z0-9]", "A-Za-z0-9"),
                    's' => ("[ ]", " "),
                    'i' => ("[A-Za-z_]", "A-Za-z_"),
                    'c' => ("[A-Za-z0-9._-]", "A-Za-z0-9._\\-"),
                    other => {
                        out.push('\\');
                        out.push(other);
                        continue;
                    }
                };
                out.push_str(if in_class { inner } else { class });
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    // A negated class generates anything: keep it to printable ASCII.
                    chars.next();
                    out.push_str("[ -~]&&[^");
                    let mut negated = String::new();
                    for n in chars.by_ref() {
                        if n == ']' {
                            break;
                        }
                        negated.push(n);
                    }
                    out.push_str(&negated);
                    out.push_str("]]");
                    in_class = false;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '^' | '$' if !in_class => {
                out.push('\\');
                out.push(c);
            }
            '.' if !in_class => out.push_str("[A-Za-z0-9]"),
            _ => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn dates() {
        assert_eq!(
            fill_dates("a {{DAY+30}} b {{DAY}} {{DAY-1}} {{X}}", (2026, 2, 1)),
            "a 2026-03-03 b 2026-02-01 2026-01-31 {{X}}"
        );
        assert_eq!(fill_dates("{{DAY+365}}", (2027, 12, 31)), "2028-12-30");
        for days in [-1000i64, 0, 59, 60, 11_000, 20_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
    }

    #[test]
    fn content_models() {
        let e = |name: &str, min, max| {
            Particle::Element(Element { name: name.to_string(), ty: TypeRef::Simple(SimpleId(0)), min, max })
        };
        let model = Particle::Sequence {
            min: 1,
            max: 1,
            items: vec![
                e("A", 1, 1),
                Particle::Choice { min: 0, max: 2, items: vec![e("B", 1, 1), e("C", 1, 3)] },
                e("D", 0, 1),
            ],
        };
        let ok = |names: &[&str]| accepts(&model, &names.iter().map(|n| Some(*n)).collect::<Vec<_>>());
        assert!(ok(&["A"]) && ok(&["A", "B", "C", "C", "D"]) && ok(&["A", "C", "C", "C"]) && ok(&["A", "B", "B"]));
        assert!(!ok(&[]) && !ok(&["A", "B", "B", "B"]) && !ok(&["A", "D", "B"]) && !ok(&["A", "D", "D"]));
    }

    #[test]
    fn every_simple_type_of_2016b_gets_valid_values() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-2016b");
        let schema = OfficialSchema::load(&dir).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut g = Gen::new(&schema, &mut rng);
        let mut bad = Vec::new();
        for i in 0..schema.simple_count() {
            for _ in 0..5 {
                let v = g.value(SimpleId(i));
                if !g.valid(SimpleId(i), &v) {
                    bad.push((schema.simple(SimpleId(i)).name.clone(), v));
                }
            }
        }
        assert!(bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn patterns_for_generation() {
        assert_eq!(generation_pattern(r"\d{2}\.[^a]").unwrap(), r"[0-9]{2}\.[[ -~]&&[^a]]");
        let re = rand_regex::Regex::compile(&generation_pattern("[^abc]{3}").unwrap(), 4).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for _ in 0..50 {
            let v: String = rng.sample(&re);
            assert!(v.chars().all(|c| (' '..='~').contains(&c) && !"abc".contains(c)), "{v:?}");
        }
    }
}
