//! The decoding context: walks a parsed roxmltree document beside the generated schema tables.
//!
//! The generated decoders (one `Decode` impl per type) bind values through [`Cx`]; the
//! structure — namespaces, known elements and attributes, sequence order, occurrence bounds,
//! choices — is enforced here, once, by [`Children`] from the tables. Errors carry the element
//! path and line:column. Only elements the schema knows are descended into, so recursion is
//! bounded by the depth of the schema, not of the input.

use std::borrow::Cow;

use roxmltree::{Attribute, Document, Node};

use super::check::{check_facets, check_simple};
use super::error::{DecodeError, DecodeErrorKind};
use super::scalar::{Date, DateTime, Decimal};
use super::schema::{ComplexDesc, Content, ElementDesc, Particle, SimpleDesc, TypeDesc};
use super::{OTA_NAMESPACE, XSI_NAMESPACE};

/// A value type that can be read from checked XML text.
pub trait FromValue: Sized {
    /// True when [`FromValue::from_value`] accepts exactly the lexical form of the value's
    /// built-in type (dates, numbers, booleans), so that check need not run twice.
    const CHECKS_LEXICAL: bool = false;

    /// Reads the value; the text has already passed the simple type's checks (or, with
    /// `CHECKS_LEXICAL`, all but the lexical one).
    fn from_value(text: &str) -> Option<Self>;
}

/// Checks `text` against `ty` and reads it as `T`; on failure, what was expected.
fn read_value<T: FromValue>(ty: &'static SimpleDesc, text: &str) -> Result<T, String> {
    // `xs:positiveInteger` is read as `u64`, which also takes 0: keep its own check.
    if T::CHECKS_LEXICAL && ty.values.is_empty() && ty.builtin != super::schema::Builtin::PositiveInteger {
        let value = T::from_value(text).ok_or_else(|| {
            check_simple(ty, text).err().unwrap_or_else(|| format!("a value of type {}", ty.name))
        })?;
        check_facets(ty, text)?;
        return Ok(value);
    }
    check_simple(ty, text)?;
    T::from_value(text).ok_or_else(|| format!("a value of type {}", ty.name))
}

impl FromValue for () {
    fn from_value(_: &str) -> Option<Self> {
        Some(())
    }
}

impl FromValue for String {
    fn from_value(text: &str) -> Option<Self> {
        Some(text.to_owned())
    }
}

impl FromValue for bool {
    const CHECKS_LEXICAL: bool = true;

    fn from_value(text: &str) -> Option<Self> {
        match text {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        }
    }
}

macro_rules! from_str_values {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            const CHECKS_LEXICAL: bool = true;

            fn from_value(text: &str) -> Option<Self> {
                text.parse().ok()
            }
        }
    )*};
}

// Integers: `str::parse` takes exactly what the checker takes (an optional sign and digits),
// and the range of the Rust type is the range the generator chose for the built-in.
from_str_values!(i32, i64, u32, u64, Decimal, Date, DateTime);

/// A type the generated code can decode from an element.
pub trait Decode: Sized {
    /// Decodes `node`, which the caller has matched by name and namespace.
    fn decode<'a, 'i>(node: Node<'a, 'i>, cx: &mut Cx<'a, 'i>) -> Result<Self, DecodeError>;
}

/// The state of one decode: the document and the element path, for errors.
pub struct Cx<'a, 'i> {
    doc: &'a Document<'i>,
    path: Vec<(&'a str, u32)>,
}

/// A child element matched by [`Children::next`].
pub struct Next<'a, 'i> {
    /// The element.
    pub node: Node<'a, 'i>,
    /// Its declaration (its `index` tells the generated code which field it fills).
    pub elem: &'static ElementDesc,
    /// How many times this declaration has matched so far (for the path of repeated elements).
    pub count: u32,
}

type Res = Result<(), DecodeError>;

impl<'a, 'i> Cx<'a, 'i> {
    /// A context for `doc`, positioned at its root element.
    pub fn new(doc: &'a Document<'i>) -> Self {
        let mut path = Vec::with_capacity(16);
        path.push((doc.root_element().tag_name().name(), 0));
        Cx { doc, path }
    }

    fn path_string(&self) -> String {
        let mut s = String::new();
        for (name, idx) in &self.path {
            s.push('/');
            s.push_str(name);
            if *idx > 0 {
                s.push_str(&format!("[{idx}]"));
            }
        }
        s
    }

    /// An error at a byte offset of the input.
    pub fn error_at(&self, pos: usize, kind: DecodeErrorKind) -> DecodeError {
        let p = self.doc.text_pos_at(pos);
        DecodeError::new(kind, self.path_string(), p.row, p.col)
    }

    /// An error at a node.
    pub fn error(&self, node: Node, kind: DecodeErrorKind) -> DecodeError {
        self.error_at(node.range().start, kind)
    }

    /// The error for a generated decoder that disagrees with its table (a generator bug).
    pub fn bug(&self, node: Node) -> DecodeError {
        self.error(node, DecodeErrorKind::Bind("the generated decoder does not match its schema table".to_string()))
    }

    /// The error for a missing required attribute.
    pub fn missing_attribute(&self, node: Node, name: &'static str) -> DecodeError {
        self.error(node, DecodeErrorKind::MissingAttribute { name })
    }

    /// Classifies an attribute of `node`: `Some(i)` for `desc.attributes[i]`, `None` for an
    /// `xsi:` location hint (accepted, not kept); anything else is an error.
    pub fn attribute(&self, attr: &Attribute<'a, 'i>, desc: &'static ComplexDesc) -> Result<Option<usize>, DecodeError> {
        match attr.namespace() {
            None => match desc.attributes.iter().position(|d| d.name == attr.name()) {
                Some(i) => Ok(Some(i)),
                None => Err(self.unexpected_attribute(attr, attr.name().to_string(), desc)),
            },
            Some(XSI_NAMESPACE) if matches!(attr.name(), "schemaLocation" | "noNamespaceSchemaLocation") => Ok(None),
            Some(ns) => Err(self.unexpected_attribute(attr, format!("{{{ns}}}{}", attr.name()), desc)),
        }
    }

    fn unexpected_attribute(&self, attr: &Attribute, name: String, desc: &'static ComplexDesc) -> DecodeError {
        let expected = desc.attributes.iter().map(|d| d.name).collect();
        self.error_at(attr.range().start, DecodeErrorKind::UnexpectedAttribute { name, expected })
    }

    /// Checks and reads an attribute value.
    pub fn value<T: FromValue>(&self, attr: &Attribute<'a, 'i>, ty: &'static SimpleDesc) -> Result<T, DecodeError> {
        let v = attr.value();
        read_value(ty, v).map_err(|expected| {
            self.error_at(
                attr.range_value().start,
                DecodeErrorKind::InvalidValue { target: format!("@{}", attr.name()), value: v.to_string(), expected },
            )
        })
    }

    /// Checks that every required attribute of `desc` is on `node` (for the generic checker;
    /// the generated decoders check their own fields).
    pub fn required_attributes(&self, node: Node, desc: &'static ComplexDesc) -> Res {
        for d in desc.attributes.iter().filter(|d| d.required) {
            if !node.attributes().any(|a| a.namespace().is_none() && a.name() == d.name) {
                return Err(self.missing_attribute(node, d.name));
            }
        }
        Ok(())
    }

    /// Checks that an element has neither child elements nor text.
    pub fn empty(&self, node: Node) -> Res {
        self.no_children(node)?;
        self.no_text(node)
    }

    fn no_children(&self, node: Node) -> Res {
        match node.children().find(Node::is_element) {
            Some(child) => Err(self.error(
                child,
                DecodeErrorKind::UnexpectedElement { name: child.tag_name().name().to_string(), expected: Vec::new() },
            )),
            None => Ok(()),
        }
    }

    fn no_text(&self, node: Node) -> Res {
        for t in node.children().filter(Node::is_text) {
            let text = t.text().unwrap_or("");
            let xml_space = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
            if !text.chars().all(xml_space) {
                let start = t.range().start + (text.len() - text.trim_start_matches(xml_space).len());
                return Err(self.error_at(start, DecodeErrorKind::UnexpectedText { text: text.trim_matches(xml_space).to_string() }));
            }
        }
        Ok(())
    }

    /// Checks and reads the text content of an element that has no child elements.
    pub fn text<T: FromValue>(&self, node: Node<'a, 'i>, ty: &'static SimpleDesc) -> Result<T, DecodeError> {
        self.no_children(node)?;
        let text = text_of(node);
        read_value(ty, &text).map_err(|expected| {
            self.error(node, DecodeErrorKind::InvalidValue { target: "text".to_string(), value: text.to_string(), expected })
        })
    }

    /// Starts walking the child elements of `node` against the sequence of `desc`.
    pub fn children(&self, node: Node<'a, 'i>, desc: &'static ComplexDesc) -> Result<Children<'a, 'i>, DecodeError> {
        let particles = match &desc.content {
            Content::Sequence(p) => *p,
            Content::Empty | Content::Text(_) => &[],
        };
        self.no_text(node)?;
        Ok(Children { parent: node, iter: node.children(), particles, cur: Cursor::default() })
    }

    /// Decodes a matched complex child with `decode`, with the child on the error path.
    pub fn element<T>(
        &mut self,
        next: &Next<'a, 'i>,
        decode: impl FnOnce(Node<'a, 'i>, &mut Self) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        self.path.push((next.node.tag_name().name(), if next.elem.max > 1 { next.count } else { 0 }));
        let out = decode(next.node, self);
        self.path.pop();
        out
    }

    /// Checks and reads a matched simple-typed child (text only, no attributes but `xsi:` hints).
    pub fn simple<T: FromValue>(&mut self, next: &Next<'a, 'i>) -> Result<T, DecodeError> {
        let TypeDesc::Simple(ty) = next.elem.ty else { return Err(self.bug(next.node)) };
        self.element(next, |node, cx| {
            for a in node.attributes() {
                let hint = a.namespace() == Some(XSI_NAMESPACE)
                    && matches!(a.name(), "schemaLocation" | "noNamespaceSchemaLocation");
                if !hint {
                    let name = match a.namespace() {
                        Some(ns) => format!("{{{ns}}}{}", a.name()),
                        None => a.name().to_string(),
                    };
                    return Err(cx.error_at(a.range().start, DecodeErrorKind::UnexpectedAttribute { name, expected: Vec::new() }));
                }
            }
            cx.text(node, ty)
        })
    }
}

/// The text of an element: its text nodes (CDATA included) joined; borrowed when there is one.
fn text_of<'a>(node: Node<'a, '_>) -> Cow<'a, str> {
    let mut texts = node.children().filter(Node::is_text).filter_map(|t| t.text());
    match (texts.next(), texts.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(one), None) => Cow::Borrowed(one),
        (Some(a), Some(b)) => {
            let mut s = String::from(a);
            s.push_str(b);
            texts.for_each(|t| s.push_str(t));
            Cow::Owned(s)
        }
    }
}

/// Walks the child elements of one element against its sequence.
pub struct Children<'a, 'i> {
    parent: Node<'a, 'i>,
    iter: roxmltree::Children<'a, 'i>,
    particles: &'static [Particle],
    cur: Cursor,
}

impl<'a, 'i> Children<'a, 'i> {
    /// The next child element, checked against the sequence; `None` at the end.
    pub fn next(&mut self, cx: &Cx<'a, 'i>) -> Result<Option<Next<'a, 'i>>, DecodeError> {
        let Some(node) = self.iter.by_ref().find(Node::is_element) else { return Ok(None) };
        if node.tag_name().namespace() != Some(OTA_NAMESPACE) {
            return Err(cx.error(
                node,
                DecodeErrorKind::WrongNamespace {
                    element: node.tag_name().name().to_string(),
                    found: node.tag_name().namespace().map(str::to_string),
                },
            ));
        }
        let (elem, count) = advance(cx, node, self.particles, &mut self.cur)?;
        Ok(Some(Next { node, elem, count }))
    }

    /// Checks that nothing required is missing after the last child.
    pub fn finish(self, cx: &Cx<'a, 'i>) -> Res {
        if let Some(branch) = self.cur.branch(self.particles) {
            element_minimums(cx, self.parent, branch, self.cur.bpos, self.cur.bcount, branch.len())?;
            return minimums(cx, self.parent, self.particles, &self.cur, self.particles.len());
        }
        minimums(cx, self.parent, self.particles, &self.cur, self.particles.len())
    }
}

/// Where the walk through a content model stands.
#[derive(Default)]
struct Cursor {
    /// The current particle.
    pos: usize,
    /// How often the current particle matched (1 for a choice once an alternative is chosen).
    count: u32,
    /// Particles (by index, up to 128) that matched at least once.
    matched: u128,
    /// The chosen alternative of the current choice particle.
    chosen: Option<usize>,
    /// The current element within the chosen alternative.
    bpos: usize,
    /// How often it matched.
    bcount: u32,
    /// Elements of the alternative that matched at least once.
    bmatched: u128,
}

impl Cursor {
    /// The elements of the chosen alternative, when inside one.
    fn branch(&self, particles: &'static [Particle]) -> Option<&'static [ElementDesc]> {
        match (particles.get(self.pos), self.chosen) {
            (Some(Particle::Choice { branches, .. }), Some(b)) => branches.get(b).copied(),
            _ => None,
        }
    }
}

/// The bit of index `i` when it matched (`count > 0`).
fn bit(i: usize, count: u32) -> u128 {
    if count > 0 && i < 128 { 1u128 << i } else { 0 }
}

fn takes(p: &Particle, name: &str) -> bool {
    match p {
        Particle::Element(e) => e.name == name,
        Particle::Choice { branches, .. } => branches.iter().any(|b| b.iter().any(|e| e.name == name)),
    }
}

fn first_name(p: &'static Particle) -> &'static str {
    match p {
        Particle::Element(e) => e.name,
        Particle::Choice { branches, .. } => branches.first().and_then(|b| b.first()).map(|e| e.name).unwrap_or(""),
    }
}

/// Moves the cursor to the particle that takes `child`; returns its declaration and how many
/// times it has now matched.
fn advance(
    cx: &Cx,
    child: Node,
    particles: &'static [Particle],
    cur: &mut Cursor,
) -> Result<(&'static ElementDesc, u32), DecodeError> {
    let name = child.tag_name().name();
    // Inside the chosen alternative of a choice?
    if let Some(branch) = cur.branch(particles) {
        if let Some(j) = branch.iter().position(|e| e.name == name) {
            let e = &branch[j];
            if j == cur.bpos {
                cur.bcount += 1;
                if cur.bcount > e.max {
                    return Err(cx.error(child, DecodeErrorKind::TooMany { name: e.name, max: e.max }));
                }
            } else if j > cur.bpos {
                element_minimums(cx, child, branch, cur.bpos, cur.bcount, j)?;
                cur.bmatched |= bit(cur.bpos, cur.bcount);
                cur.bpos = j;
                cur.bcount = 1;
            } else {
                let matched = (cur.bmatched | bit(cur.bpos, cur.bcount)) & bit(j, 1) != 0;
                return Err(cx.error(child, misplaced(name, e, matched, branch[cur.bpos].name)));
            }
            return Ok((e, cur.bcount));
        }
        if let Some(Particle::Choice { branches, .. }) = particles.get(cur.pos)
            && branches.iter().any(|b| b.iter().any(|e| e.name == name))
        {
            return Err(cx.error(child, DecodeErrorKind::ChoiceConflict { first: branch[0].name, second: name.to_string() }));
        }
        // Leaving the alternative: it must be complete.
        element_minimums(cx, child, branch, cur.bpos, cur.bcount, branch.len())?;
        cur.matched |= bit(cur.pos, 1);
        cur.pos += 1;
        cur.count = 0;
        cur.chosen = None;
    }
    let found = particles.iter().enumerate().skip(cur.pos).find(|(_, p)| takes(p, name));
    match found {
        Some((i, Particle::Element(e))) => {
            if i == cur.pos {
                cur.count += 1;
                if cur.count > e.max {
                    return Err(cx.error(child, DecodeErrorKind::TooMany { name: e.name, max: e.max }));
                }
            } else {
                minimums(cx, child, particles, cur, i)?;
                cur.matched |= bit(cur.pos, cur.count);
                cur.pos = i;
                cur.count = 1;
            }
            Ok((e, cur.count))
        }
        Some((i, Particle::Choice { branches, .. })) => {
            if i > cur.pos {
                minimums(cx, child, particles, cur, i)?;
                cur.matched |= bit(cur.pos, cur.count);
            }
            let Some((b, j)) = branches
                .iter()
                .enumerate()
                .find_map(|(b, br)| br.iter().position(|e| e.name == name).map(|j| (b, j)))
            else {
                return Err(cx.bug(child));
            };
            element_minimums(cx, child, branches[b], 0, 0, j)?;
            cur.pos = i;
            cur.count = 1;
            cur.chosen = Some(b);
            cur.bpos = j;
            cur.bcount = 1;
            cur.bmatched = 0;
            Ok((&branches[b][j], 1))
        }
        None => {
            if let Some((i, p)) = particles.iter().enumerate().take(cur.pos).find(|(_, p)| takes(p, name)) {
                let matched = (cur.matched & bit(i, 1)) != 0;
                let before = particles.get(cur.pos).map(first_name).unwrap_or("");
                let e = match p {
                    Particle::Element(e) => Some(e),
                    Particle::Choice { branches, .. } => branches.iter().flat_map(|b| b.iter()).find(|e| e.name == name),
                };
                let kind = match e {
                    Some(e) => misplaced(name, e, matched, before),
                    None => DecodeErrorKind::OutOfOrder { name: name.to_string(), before },
                };
                return Err(cx.error(child, kind));
            }
            let expected = expected_from(particles, cur);
            Err(cx.error(child, DecodeErrorKind::UnexpectedElement { name: name.to_string(), expected }))
        }
    }
}

/// An element that belongs earlier: a repeat of a single element, or out of order.
fn misplaced(name: &str, e: &'static ElementDesc, matched: bool, before: &'static str) -> DecodeErrorKind {
    if matched && e.max == 1 {
        DecodeErrorKind::TooMany { name: e.name, max: 1 }
    } else {
        DecodeErrorKind::OutOfOrder { name: name.to_string(), before }
    }
}

/// Reports the first particle in `cur.pos..to` that did not reach its minimum.
fn minimums(cx: &Cx, at: Node, particles: &'static [Particle], cur: &Cursor, to: usize) -> Res {
    for (i, p) in particles.iter().enumerate().take(to).skip(cur.pos) {
        let seen = if i == cur.pos { cur.count } else { 0 };
        match p {
            Particle::Element(e) if seen < e.min => {
                return Err(cx.error(at, DecodeErrorKind::MissingElement { name: e.name }));
            }
            Particle::Choice { required: true, branches } if seen == 0 => {
                let options = branches.iter().filter_map(|b| b.first().map(|e| e.name)).collect();
                return Err(cx.error(at, DecodeErrorKind::MissingChoice { options }));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Reports the first element in `elems[from..to]` that did not reach its minimum.
fn element_minimums(cx: &Cx, at: Node, elems: &'static [ElementDesc], from: usize, count_at_from: u32, to: usize) -> Res {
    for (i, e) in elems.iter().enumerate().take(to).skip(from) {
        let seen = if i == from { count_at_from } else { 0 };
        if seen < e.min {
            return Err(cx.error(at, DecodeErrorKind::MissingElement { name: e.name }));
        }
    }
    Ok(())
}

/// The elements that may come next.
fn expected_from(particles: &'static [Particle], cur: &Cursor) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut start = cur.pos;
    if let Some(branch) = cur.branch(particles) {
        for (i, e) in branch.iter().enumerate().skip(cur.bpos) {
            let seen = if i == cur.bpos { cur.bcount } else { 0 };
            if seen < e.max {
                out.push(e.name);
            }
            if seen < e.min {
                return out;
            }
        }
        start += 1;
    }
    for (i, p) in particles.iter().enumerate().skip(start) {
        let seen = if i == cur.pos && cur.chosen.is_none() { cur.count } else { 0 };
        match p {
            Particle::Element(e) => {
                if seen < e.max {
                    out.push(e.name);
                }
                if seen < e.min {
                    break;
                }
            }
            Particle::Choice { required, branches } => {
                if seen == 0 {
                    out.extend(branches.iter().filter_map(|b| b.first().map(|e| e.name)));
                    if *required {
                        break;
                    }
                }
            }
        }
    }
    out
}
