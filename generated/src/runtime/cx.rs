//! The decoding context: walks a parsed roxmltree document beside the generated schema tables.
//!
//! The generated decoders (one `Decode` impl per type) bind values through [`Cx`]; the
//! structure — namespaces, known elements and attributes, occurrence bounds, choices — is
//! enforced here, once, by [`Children`] from the tables. The children of a sequence may come in
//! any order (the encoders write the declared one). Errors carry the element
//! path and line:column. Only elements the schema knows are descended into, so recursion is
//! bounded by the depth of the schema, not of the input.

use std::borrow::Cow;

use roxmltree::{Attribute, Document, Node};

use super::check::{check_facets, check_simple};
use super::error::{DecodeError, DecodeErrorKind};
use super::official::{Extras, Official, Strictness, Unread, UnreadKind};
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
        let value = T::from_value(text)
            .ok_or_else(|| check_simple(ty, text).err().unwrap_or_else(|| format!("a value of type {}", ty.name)))?;
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
    /// Decodes `node`, which the caller has matched by name and namespace. On failure the
    /// problems are recorded in `cx` (as many as [`MAX_ERRORS`] in all).
    fn decode<'a, 'i>(node: Node<'a, 'i>, cx: &mut Cx<'a, 'i>) -> Result<Self, Failed>;
}

/// The most problems one decode reports; it stops at the last one.
pub const MAX_ERRORS: usize = 20;

/// The most unread items ([`Unread`]) one official decode lists; further ones are skipped and
/// not listed.
pub const MAX_UNREAD: usize = 50;

/// A value that could not be decoded: its problems are recorded in the [`Cx`]. Returned as an
/// `Err` by the decoders, and by the [`Cx`] methods only once [`MAX_ERRORS`] problems are
/// recorded, which ends the decode (below that, they record the problem and go on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failed;

/// The state of one decode: the document, the element path (for errors), the occurrence
/// counters of the content models being walked (a stack: one region per open [`Children`]),
/// and the problems found so far.
pub struct Cx<'a, 'i> {
    doc: &'a Document<'i>,
    path: Vec<(&'a str, u32)>,
    counts: Vec<u32>,
    errors: Vec<DecodeError>,
    /// What OpenTravel 2016B allows beyond the spec, taken and listed in `unread` (empty: a
    /// strict decode).
    official: Option<&'static Official>,
    unread: Vec<Unread>,
}

/// A child element matched by [`Children::next`].
pub struct Next<'a, 'i> {
    /// The element.
    pub node: Node<'a, 'i>,
    /// Its declaration (its `name` tells the generated code which field it fills).
    pub elem: &'static ElementDesc,
    /// How many times this declaration has matched so far (for the path of repeated elements).
    pub count: u32,
    /// The type whose child it is.
    pub parent: &'static ComplexDesc,
}

/// `Ok` to go on, `Err` once the decode must stop.
type Res = Result<(), Failed>;

impl<'a, 'i> Cx<'a, 'i> {
    /// A context for `doc`, positioned at its root element.
    pub fn new(doc: &'a Document<'i>) -> Self {
        Self::with(doc, Strictness::Strict)
    }

    /// A context for `doc` that holds it to the spec as `strictness` says.
    pub fn with(doc: &'a Document<'i>, strictness: Strictness) -> Self {
        let mut path = Vec::with_capacity(16);
        path.push((doc.root_element().tag_name().name(), 0));
        let official = match strictness {
            Strictness::Strict => None,
            Strictness::Official(tables) => Some(tables),
        };
        Cx { doc, path, counts: Vec::with_capacity(64), errors: Vec::new(), official, unread: Vec::new() }
    }

    /// What was taken without being read (see [`Strictness::Official`]).
    pub fn take_unread(&mut self) -> Vec<Unread> {
        std::mem::take(&mut self.unread)
    }

    /// What OpenTravel 2016B allows in `desc` beyond the spec, for an official decode.
    fn extras(&self, desc: &'static ComplexDesc) -> Option<&'static Extras> {
        Extras::of(self.official?.extras, desc)
    }

    /// Lists an item taken without being read: `name` below the current element, at `pos`.
    fn unread(&mut self, name: String, index: u32, kind: UnreadKind, pos: usize) {
        self.list(pos, kind, |cx| {
            let mut path = cx.path_string();
            path.push('/');
            path.push_str(&name);
            if index > 0 {
                path.push_str(&format!("[{index}]"));
            }
            (path, name)
        });
    }

    /// Lists an unread item at `pos`, its path and name made by `item`. What a hostile document
    /// can make the decode keep is bounded: the first [`MAX_UNREAD`] items, which the answer
    /// names (the rest is skipped all the same).
    fn list(&mut self, pos: usize, kind: UnreadKind, item: impl FnOnce(&Self) -> (String, String)) {
        if self.unread.len() >= MAX_UNREAD {
            return;
        }
        let (path, name) = item(self);
        let (line, _) = super::text_pos(self.doc.input_text(), pos);
        self.unread.push(Unread { path, name, kind, line });
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
        let (line, column) = super::text_pos(self.doc.input_text(), pos);
        DecodeError::new(kind, self.path_string(), line, column)
    }

    /// An error at a node.
    pub fn error(&self, node: Node, kind: DecodeErrorKind) -> DecodeError {
        self.error_at(node.range().start, kind)
    }

    /// Records a problem. `Err` once it is the [`MAX_ERRORS`]th: the decode stops there.
    pub fn report(&mut self, e: DecodeError) -> Res {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(e);
        }
        if self.errors.len() >= MAX_ERRORS { Err(Failed) } else { Ok(()) }
    }

    /// Records a problem about a child element that is then skipped.
    fn skip<T>(&mut self, node: Node, kind: DecodeErrorKind) -> Result<Option<T>, Failed> {
        let e = self.error(node, kind);
        self.report(e)?;
        Ok(None)
    }

    /// How many problems are recorded: a mark for [`Cx::check`].
    pub fn mark(&self) -> usize {
        self.errors.len()
    }

    /// `Err` when a problem was recorded since `mark` (the value cannot be built).
    pub fn check(&self, mark: usize) -> Res {
        if self.errors.len() > mark { Err(Failed) } else { Ok(()) }
    }

    /// The problems recorded, as one error (the first, with the others in `more`); a generator
    /// bug if there are none.
    pub fn into_error(mut self) -> DecodeError {
        if self.errors.is_empty() {
            let root = self.doc.root_element();
            self.errors.push(self.bug_error(root));
        }
        let mut errors = self.errors.into_iter();
        let mut first =
            errors.next().unwrap_or_else(|| DecodeError::new(DecodeErrorKind::Bind(String::new()), "", 1, 1));
        first.more = errors.collect();
        first
    }

    fn bug_error(&self, node: Node) -> DecodeError {
        self.error(node, DecodeErrorKind::Bind("the generated decoder does not match its schema table".to_string()))
    }

    /// Records that a generated decoder disagrees with its table (a generator bug).
    pub fn bug(&mut self, node: Node) -> Failed {
        let e = self.bug_error(node);
        let _ = self.report(e);
        Failed
    }

    /// Classifies an attribute of `node`: `Some(i)` for `desc.attributes[i]`, `None` for an
    /// `xsi:` location hint (accepted, not kept) and for an attribute the type does not have
    /// (recorded as a problem).
    pub fn attribute(&mut self, attr: &Attribute<'a, 'i>, desc: &'static ComplexDesc) -> Result<Option<usize>, Failed> {
        let name = match attr.namespace() {
            None => match desc.attribute_position(attr.name()) {
                Some(i) => return Ok(Some(i)),
                // Read with the text (`text_or_attribute`).
                None if desc.text_attribute() == Some(attr.name()) => return Ok(None),
                None if self.extras(desc).is_some_and(|x| x.attribute(attr.name())) => {
                    self.unread(format!("@{}", attr.name()), 0, UnreadKind::Item, attr.range().start);
                    return Ok(None);
                }
                None => attr.name().to_string(),
            },
            Some(XSI_NAMESPACE) if matches!(attr.name(), "schemaLocation" | "noNamespaceSchemaLocation") => {
                return Ok(None);
            }
            Some(ns) => format!("{{{ns}}}{}", attr.name()),
        };
        let expected = desc.attributes.iter().map(|d| d.name).collect();
        let e = self.error_at(attr.range().start, DecodeErrorKind::UnexpectedAttribute { name, expected });
        self.report(e)?;
        Ok(None)
    }

    /// An attribute the generated decoder has no arm for (it binds its attributes by name): an
    /// `xsi:` location hint or the attribute the text is also taken as (both accepted, not
    /// kept), or one the type does not have (recorded as a problem).
    pub fn other_attribute(&mut self, attr: &Attribute<'a, 'i>, desc: &'static ComplexDesc) -> Res {
        if self.attribute(attr, desc)?.is_some() {
            let kind = DecodeErrorKind::Bind("the generated decoder does not match its schema table".to_string());
            let e = self.error_at(attr.range().start, kind);
            self.report(e)?;
        }
        Ok(())
    }

    /// Records an attribute of `node` that names one already there under another of its names
    /// (`gen:also`, or a name another dialect writes): `attr` is the second of them.
    pub fn once(&mut self, node: Node<'a, 'i>, attr: &Attribute<'a, 'i>, desc: &'static ComplexDesc) -> Res {
        let Some(i) = desc.attribute_position(attr.name()) else { return Ok(()) };
        let Some(declared) = desc.attributes.get(i) else { return Ok(()) };
        let named = |n: &str| n == declared.name || desc.attribute_also(i).any(|o| o == n);
        let start = attr.range().start;
        let earlier = node.attributes().any(|a| a.range().start < start && a.namespace().is_none() && named(a.name()));
        if !earlier {
            return Ok(());
        }
        let e =
            self.error_at(start, DecodeErrorKind::GivenTwice { name: declared.name, second: attr.name().to_string() });
        self.report(e)
    }

    /// Records an attribute that names one already read under another name (`gen:also`).
    pub fn given_twice(&mut self, attr: &Attribute<'a, 'i>, desc: &'static ComplexDesc, position: usize) -> Res {
        let name = desc.attributes.get(position).map_or("", |d| d.name);
        let e =
            self.error_at(attr.range().start, DecodeErrorKind::GivenTwice { name, second: attr.name().to_string() });
        self.report(e)
    }

    /// Checks and reads an attribute value; `None` when it is invalid (recorded).
    pub fn value<T: FromValue>(
        &mut self,
        attr: &Attribute<'a, 'i>,
        ty: &'static SimpleDesc,
    ) -> Result<Option<T>, Failed> {
        self.attribute_value(attr, ty, None)
    }

    /// Checks and reads the message version of a root (the service supports `supported`); an
    /// invalid one is recorded as [`DecodeErrorKind::InvalidVersion`].
    pub fn version<T: FromValue>(
        &mut self,
        attr: &Attribute<'a, 'i>,
        ty: &'static SimpleDesc,
        supported: &'static str,
    ) -> Result<Option<T>, Failed> {
        self.attribute_value(attr, ty, Some(supported))
    }

    fn attribute_value<T: FromValue>(
        &mut self,
        attr: &Attribute<'a, 'i>,
        ty: &'static SimpleDesc,
        version: Option<&'static str>,
    ) -> Result<Option<T>, Failed> {
        let v = attr.value();
        match read_value(ty, v) {
            Ok(value) => Ok(Some(value)),
            Err(expected) if version.is_none() && self.official.is_some_and(|o| o.takes(ty, v)) => {
                let kind = UnreadKind::Value { value: v.to_string(), expected };
                self.unread(format!("@{}", attr.name()), 0, kind, attr.range().start);
                Ok(None)
            }
            Err(expected) => {
                let value = v.to_string();
                let kind = match version {
                    Some(supported) => DecodeErrorKind::InvalidVersion { value, expected, supported },
                    None => DecodeErrorKind::InvalidValue { target: format!("@{}", attr.name()), value, expected },
                };
                let e = self.error_at(attr.range_value().start, kind);
                self.report(e)?;
                Ok(None)
            }
        }
    }

    /// A required attribute: its value when it was there and valid; when it was not there at
    /// all, records the problem. (`found` is `Some(None)` for a value that was invalid.)
    pub fn required<T>(
        &mut self,
        found: Option<Option<T>>,
        node: Node,
        name: &'static str,
    ) -> Result<Option<T>, Failed> {
        match found {
            Some(value) => Ok(value),
            None => {
                let e = self.error(node, DecodeErrorKind::MissingAttribute { name });
                self.report(e)?;
                Ok(None)
            }
        }
    }

    /// Records every required attribute of `desc` that is not on `node` (for the generic
    /// checker; the generated decoders use [`Cx::required`]).
    pub fn required_attributes(&mut self, node: Node, desc: &'static ComplexDesc) -> Res {
        for (i, d) in desc.attributes.iter().enumerate().filter(|(_, d)| d.required) {
            let present = |name: &str| node.attributes().any(|a| a.namespace().is_none() && a.name() == name);
            // By its name, else by another name it is also taken by (rare: looked up only then).
            if !present(d.name) && !desc.attribute_also(i).any(present) {
                let at = format!("@{}", d.name);
                if self.extras(desc).is_some_and(|x| x.optional.contains(&at.as_str())) {
                    self.unread(at, 0, UnreadKind::Absent, node.range().start);
                    continue;
                }
                let e = self.error(node, DecodeErrorKind::MissingAttribute { name: d.name });
                self.report(e)?;
            }
        }
        Ok(())
    }

    /// Checks that an element has neither child elements nor text.
    pub fn empty(&mut self, node: Node, desc: &'static ComplexDesc) -> Res {
        self.no_children(node, Some(desc))?;
        self.no_text(node)
    }

    /// Checks that an element of no content has no children and, for text, only one of the
    /// texts its type takes (`gen:text value=".."`); see [`Self::empty`].
    pub fn empty_or_fixed(&mut self, node: Node, desc: &'static ComplexDesc) -> Res {
        self.no_children(node, Some(desc))?;
        let text = text_of(node);
        let text = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
        if text.is_empty() || desc.fixed_texts().any(|t| t == text) {
            return Ok(());
        }
        let expected = desc.fixed_texts().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(" or ");
        let kind = DecodeErrorKind::InvalidValue {
            target: "text".to_string(),
            value: text.to_string(),
            expected: format!("no text or {expected}"),
        };
        let e = self.error(node, kind);
        self.report(e)
    }

    /// Records each child element of an element that may have none.
    /// (Of an official decode, those 2016B allows in `desc` are listed as unread instead.)
    fn no_children(&mut self, node: Node, desc: Option<&'static ComplexDesc>) -> Res {
        for child in node.children().filter(Node::is_element) {
            let name = child.tag_name().name();
            if let Some(x) = desc.and_then(|d| self.extras(d)).filter(|x| x.element_max(name).is_some()) {
                let index = if x.element_max(name).is_some_and(|m| m > 1) { same_name_before(child) + 1 } else { 0 };
                self.unread(name.to_string(), index, UnreadKind::Item, child.range().start);
                continue;
            }
            let kind =
                DecodeErrorKind::UnexpectedElement { name: child.tag_name().name().to_string(), expected: Vec::new() };
            let e = self.error(child, kind);
            self.report(e)?;
        }
        Ok(())
    }

    /// Records the first text (other than XML white space) of an element that may hold only
    /// elements.
    fn no_text(&mut self, node: Node) -> Res {
        match node.children().find(|t| !is_blank(*t)) {
            Some(t) => self.unexpected_text(t),
            None => Ok(()),
        }
    }

    /// Records a text node where only elements (and white space) may be.
    fn unexpected_text(&mut self, t: Node) -> Res {
        let text = t.text().unwrap_or("");
        let xml_space = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
        let start = t.range().start + (text.len() - text.trim_start_matches(xml_space).len());
        let e =
            self.error_at(start, DecodeErrorKind::UnexpectedText { text: text.trim_matches(xml_space).to_string() });
        self.report(e)
    }

    /// Checks and reads the text content of an element that has no child elements; `None`
    /// when it cannot (recorded).
    pub fn text<T: FromValue>(&mut self, node: Node<'a, 'i>, ty: &'static SimpleDesc) -> Result<Option<T>, Failed> {
        let mark = self.mark();
        self.no_children(node, None)?;
        if self.check(mark).is_err() {
            return Ok(None);
        }
        let text = text_of(node);
        match read_value(ty, &text) {
            Ok(value) => Ok(Some(value)),
            Err(expected) if self.official.is_some_and(|o| o.takes(ty, &text)) => {
                // Valid OpenTravel the spec's type does not take: listed at the element itself.
                let kind = UnreadKind::Value { value: text.to_string(), expected };
                self.list(node.range().start, kind, |cx| (cx.path_string(), node.tag_name().name().to_string()));
                Ok(None)
            }
            Err(expected) => {
                let kind =
                    DecodeErrorKind::InvalidValue { target: "text".to_string(), value: text.to_string(), expected };
                let e = self.error(node, kind);
                self.report(e)?;
                Ok(None)
            }
        }
    }

    /// Reads the text of an element whose text is also taken as the attribute `attribute`
    /// (`gen:text attribute=".."`): the attribute's value when it is there, else the text; both
    /// at once are refused ([`DecodeErrorKind::TextGivenTwice`]).
    pub fn text_or_attribute<T: FromValue>(
        &mut self,
        node: Node<'a, 'i>,
        ty: &'static SimpleDesc,
        attribute: &'static str,
    ) -> Result<Option<T>, Failed> {
        let Some(attr) = node.attributes().find(|a| a.namespace().is_none() && a.name() == attribute) else {
            return self.text(node, ty);
        };
        let mark = self.mark();
        self.no_children(node, None)?;
        if !text_of(node).trim().is_empty() {
            let e = self.error_at(attr.range().start, DecodeErrorKind::TextGivenTwice { attribute });
            self.report(e)?;
        }
        if self.check(mark).is_err() {
            return Ok(None);
        }
        self.value(&attr, ty)
    }

    /// The values of an element that carries a list as its text (`<ResGuestRPHs>1 2</ResGuestRPHs>`,
    /// the form `gen:text-list` marks), each checked as `ty`; `None` when it has child elements
    /// or no text, so that it is read as elements.
    pub fn text_list<T: FromValue>(
        &mut self,
        node: Node<'a, 'i>,
        ty: &'static SimpleDesc,
    ) -> Result<Option<Vec<T>>, Failed> {
        if node.children().any(|c| c.is_element()) {
            return Ok(None);
        }
        let text = text_of(node);
        if text.trim().is_empty() {
            return Ok(None);
        }
        let mut values = Vec::new();
        for token in text.split_ascii_whitespace() {
            match read_value(ty, token) {
                Ok(value) => values.push(value),
                Err(expected) => {
                    let kind = DecodeErrorKind::InvalidValue {
                        target: "text".to_string(),
                        value: token.to_string(),
                        expected,
                    };
                    let e = self.error(node, kind);
                    self.report(e)?;
                }
            }
        }
        Ok(Some(values))
    }

    /// Starts walking the child elements of `node` against the content model of `desc`.
    pub fn children(&mut self, node: Node<'a, 'i>, desc: &'static ComplexDesc) -> Result<Children<'a, 'i>, Failed> {
        let particles = match &desc.content {
            Content::Sequence(p) => *p,
            Content::Empty | Content::Text(_) | Content::Skipped => &[],
        };
        let elements = element_count(particles);
        let base = self.counts.len();
        self.counts.resize(base + elements + particles.len(), 0);
        Ok(Children { parent: node, iter: node.children(), particles, desc, base, elements, hint: 0, texted: false })
    }

    /// Decodes a matched complex child with `decode`, with the child on the error path: its
    /// value, or `None` when it failed (its problems are recorded; the caller goes on with the
    /// next child).
    pub fn element<T>(
        &mut self,
        next: &Next<'a, 'i>,
        decode: impl FnOnce(Node<'a, 'i>, &mut Self) -> Result<T, Failed>,
    ) -> Result<Option<T>, Failed> {
        self.path.push((next.node.tag_name().name(), if next.elem.max > 1 { next.count } else { 0 }));
        let counters = self.counts.len();
        let out = decode(next.node, self);
        // The child's walks end here even when it failed half-way.
        self.counts.truncate(counters);
        self.path.pop();
        match out {
            Ok(value) => Ok(Some(value)),
            Err(Failed) if self.errors.len() >= MAX_ERRORS => Err(Failed),
            Err(Failed) => Ok(None),
        }
    }

    /// Checks and reads a matched simple-typed child (text only, no attributes but `xsi:`
    /// hints); `None` when it cannot (recorded).
    pub fn simple<T: FromValue>(&mut self, next: &Next<'a, 'i>) -> Result<Option<T>, Failed> {
        let TypeDesc::Simple(ty) = next.elem.ty else { return Err(self.bug(next.node)) };
        let read = self.element(next, |node, cx| {
            let mark = cx.mark();
            for a in node.attributes() {
                let hint = a.namespace() == Some(XSI_NAMESPACE)
                    && matches!(a.name(), "schemaLocation" | "noNamespaceSchemaLocation");
                let official = || cx.extras(next.parent).and_then(|x| x.simple_attributes(next.elem.name));
                if a.namespace().is_none() && official().is_some_and(|o| o.contains(&a.name())) {
                    cx.unread(format!("@{}", a.name()), 0, UnreadKind::Item, a.range().start);
                } else if !hint {
                    let name = match a.namespace() {
                        Some(ns) => format!("{{{ns}}}{}", a.name()),
                        None => a.name().to_string(),
                    };
                    let e = cx
                        .error_at(a.range().start, DecodeErrorKind::UnexpectedAttribute { name, expected: Vec::new() });
                    cx.report(e)?;
                }
            }
            let value = cx.text(node, ty)?;
            cx.check(mark)?;
            value.ok_or(Failed)
        })?;
        Ok(read)
    }
}

/// The name of an attribute in no namespace, the name every attribute of the spec has; `""` (no
/// name of the spec) for one in a namespace. The generated decoders match on it.
pub fn unqualified<'i>(attr: &Attribute<'_, 'i>) -> &'i str {
    if attr.namespace().is_none() { attr.name() } else { "" }
}

/// Sets a field that must be there to a value read, when it could be read (a value that could
/// not is recorded, and the decode of the element fails).
pub fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *field = value;
    }
}

/// Adds a value read to a repeated field, when it could be read.
pub fn push<T>(field: &mut Vec<T>, value: Option<T>) {
    if let Some(value) = value {
        field.push(value);
    }
}

/// Whether `node` is no text, or text of white space only (between elements).
fn is_blank(node: Node) -> bool {
    !node.is_text() || node.text().unwrap_or("").bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
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

/// Walks the child elements of one element against its content model.
///
/// The children of a sequence may come in any order: each is found by its name. What still
/// holds: every element is one the type declares (in the OTA namespace), occurs at most its
/// `maxOccurs` times (a second single element is refused), and, once the walk is over, at least
/// its `minOccurs` times; elements of two alternatives of one choice are refused together, and
/// a required choice needs one alternative. Elements with the same name keep their order (they
/// fill one `Vec` in document order).
pub struct Children<'a, 'i> {
    parent: Node<'a, 'i>,
    iter: roxmltree::Children<'a, 'i>,
    particles: &'static [Particle],
    /// The type whose children these are (for their other names).
    desc: &'static ComplexDesc,
    /// Where this walk's counters start in the context's counter stack: one per element
    /// declaration (by [`ElementDesc::index`]), then one per particle (for a choice: its chosen
    /// alternative + 1, or 0 before one is chosen).
    base: usize,
    /// How many element declarations the content model has.
    elements: usize,
    /// The particle of the last match, where the next lookup starts (a document in the
    /// declared order finds each child there or at the next particle).
    hint: usize,
    /// A text among the children was recorded (one is enough).
    texted: bool,
}

/// Where a declaration sits in a content model.
struct Found {
    particle: usize,
    /// The alternative, for an element of a choice.
    branch: Option<usize>,
    elem: &'static ElementDesc,
}

/// How many elements of the same name as `node` come before it among its siblings.
fn same_name_before(node: Node) -> u32 {
    let name = node.tag_name();
    node.prev_sibling_element()
        .into_iter()
        .flat_map(|n| std::iter::successors(Some(n), |n| n.prev_sibling_element()))
        .filter(|n| n.tag_name() == name)
        .count() as u32
}

/// How many element declarations a content model has: one more than the index of the last
/// (indexes count the declarations in order).
fn element_count(particles: &[Particle]) -> usize {
    let last = particles.iter().rev().find_map(|p| match p {
        Particle::Element(e) => Some(e.index),
        Particle::Choice { branches, .. } => branches.iter().rev().find_map(|b| b.last()).map(|e| e.index),
    });
    last.map_or(0, |i| usize::from(i) + 1)
}

impl<'a, 'i> Children<'a, 'i> {
    /// The next child element that the content model takes; `None` at the end. A child it does
    /// not take (unknown, in another namespace, one too many, of a second alternative of a
    /// choice) is recorded as a problem and skipped.
    pub fn next(&mut self, cx: &mut Cx<'a, 'i>) -> Result<Option<Next<'a, 'i>>, Failed> {
        while let Some(node) = self.iter.next() {
            if node.is_element() {
                if let Some(next) = self.take(cx, node)? {
                    return Ok(Some(next));
                }
            } else if !self.texted && !is_blank(node) {
                // Text between the children: its first piece is a problem of this element.
                self.texted = true;
                cx.unexpected_text(node)?;
            }
        }
        Ok(None)
    }

    /// Matches one child element against the content model; `None` when it does not fit (the
    /// problem is recorded).
    fn take(&mut self, cx: &mut Cx<'a, 'i>, node: Node<'a, 'i>) -> Result<Option<Next<'a, 'i>>, Failed> {
        // What 2016B allows beyond the spec is looked up only for what the spec does not take.
        if node.tag_name().namespace() != Some(OTA_NAMESPACE) {
            if cx.extras(self.desc).is_some_and(|x| x.any_element) {
                cx.unread(node.tag_name().name().to_string(), 0, UnreadKind::Item, node.range().start);
                return Ok(None);
            }
            let kind = DecodeErrorKind::WrongNamespace {
                element: node.tag_name().name().to_string(),
                found: node.tag_name().namespace().map(str::to_string),
            };
            return cx.skip(node, kind);
        }
        let name = node.tag_name().name();
        let Some(found) = self.find(name) else {
            if let Some(x) = cx.extras(self.desc) {
                if let Some(&(declared, max)) = x.elements.iter().find(|(n, _)| *n == name) {
                    // Its occurrence: counted among the element's siblings of the same name.
                    let count = same_name_before(node) + 1;
                    if count > max {
                        return cx.skip(node, DecodeErrorKind::TooMany { name: declared, max });
                    }
                    cx.unread(name.to_string(), if max > 1 { count } else { 0 }, UnreadKind::Item, node.range().start);
                    return Ok(None);
                }
                if x.any_element {
                    cx.unread(name.to_string(), 0, UnreadKind::Item, node.range().start);
                    return Ok(None);
                }
            }
            let expected = self.expected(cx);
            return cx.skip(node, DecodeErrorKind::UnexpectedElement { name: name.to_string(), expected });
        };
        self.hint = found.particle;
        let e = found.elem;
        if let Some(b) = found.branch {
            let chosen = self.choice(cx, found.particle);
            if chosen != 0 && chosen != b + 1 {
                if cx.extras(self.desc).and_then(|x| x.element_max(name)).is_some() {
                    // 2016B lets these alternatives occur together: the spec reads the first.
                    cx.unread(name.to_string(), 0, UnreadKind::More, node.range().start);
                    return Ok(None);
                }
                let first = self.seen_in_branch(cx, found.particle, chosen - 1).unwrap_or("");
                return cx.skip(node, DecodeErrorKind::ChoiceConflict { first, second: name.to_string() });
            }
            self.set(cx, self.elements + found.particle, b + 1);
        }
        let count = self.count(cx, e) + 1;
        if count > e.max {
            let official = cx.extras(self.desc).and_then(|x| x.element_max(name)).filter(|max| *max >= count);
            if official.is_some() {
                self.set(cx, usize::from(e.index), count as usize);
                cx.unread(name.to_string(), count, UnreadKind::More, node.range().start);
                return Ok(None);
            }
            return cx.skip(node, DecodeErrorKind::TooMany { name: e.name, max: e.max });
        }
        self.set(cx, usize::from(e.index), count as usize);
        Ok(Some(Next { node, elem: e, count, parent: self.desc }))
    }

    /// Records every element and choice below its minimum, and ends the walk.
    pub fn finish(self, cx: &mut Cx<'a, 'i>) -> Res {
        let result = self.minimums(cx);
        cx.counts.truncate(self.base);
        result
    }

    fn counter(&self, cx: &Cx, slot: usize) -> u32 {
        cx.counts.get(self.base + slot).copied().unwrap_or(0)
    }

    fn set(&self, cx: &mut Cx, slot: usize, value: usize) {
        if let Some(c) = cx.counts.get_mut(self.base + slot) {
            *c = value as u32;
        }
    }

    fn count(&self, cx: &Cx, e: &ElementDesc) -> u32 {
        self.counter(cx, usize::from(e.index))
    }

    /// The chosen alternative + 1 of the choice at `particle` (0: none yet).
    fn choice(&self, cx: &Cx, particle: usize) -> usize {
        self.counter(cx, self.elements + particle) as usize
    }

    /// The declaration named `name` (or also taken by that name).
    fn find(&self, name: &str) -> Option<Found> {
        self.find_named(name).or_else(|| self.find_index(self.desc.element_also(name)?))
    }

    /// The declaration with this [`ElementDesc::index`].
    fn find_index(&self, index: u16) -> Option<Found> {
        self.particles.iter().enumerate().find_map(|(particle, p)| match p {
            Particle::Element(e) => (e.index == index).then_some(Found { particle, branch: None, elem: e }),
            Particle::Choice { branches, .. } => branches.iter().enumerate().find_map(|(b, branch)| {
                branch.iter().find(|e| e.index == index).map(|elem| Found { particle, branch: Some(b), elem })
            }),
        })
    }

    /// The declaration named `name`, looked up from the particle of the last match on, then
    /// from the start.
    fn find_named(&self, name: &str) -> Option<Found> {
        let probe = |particle: usize, p: &'static Particle| match p {
            Particle::Element(e) => (e.name == name).then_some(Found { particle, branch: None, elem: e }),
            Particle::Choice { branches, .. } => branches.iter().enumerate().find_map(|(b, branch)| {
                branch.iter().find(|e| e.name == name).map(|elem| Found { particle, branch: Some(b), elem })
            }),
        };
        let hint = self.hint.min(self.particles.len());
        let (before, after) = self.particles.split_at(hint);
        after
            .iter()
            .enumerate()
            .find_map(|(i, p)| probe(hint + i, p))
            .or_else(|| before.iter().enumerate().find_map(|(i, p)| probe(i, p)))
    }

    /// An element of alternative `branch` of the choice at `particle` that has occurred.
    fn seen_in_branch(&self, cx: &Cx, particle: usize, branch: usize) -> Option<&'static str> {
        let Some(Particle::Choice { branches, .. }) = self.particles.get(particle) else { return None };
        branches.get(branch)?.iter().find(|e| self.count(cx, e) > 0).map(|e| e.name)
    }

    /// The elements that may still occur, in declaration order.
    fn expected(&self, cx: &Cx) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (p, particle) in self.particles.iter().enumerate() {
            match particle {
                Particle::Element(e) => {
                    if self.count(cx, e) < e.max {
                        out.push(e.name);
                    }
                }
                Particle::Choice { branches, .. } => {
                    let chosen = self.choice(cx, p);
                    for (b, branch) in branches.iter().enumerate() {
                        if chosen == 0 || chosen == b + 1 {
                            out.extend(branch.iter().filter(|e| self.count(cx, e) < e.max).map(|e| e.name));
                        }
                    }
                }
            }
        }
        out
    }

    /// Records every element and choice, in declaration order, below its minimum.
    fn minimums(&self, cx: &mut Cx) -> Res {
        for (p, particle) in self.particles.iter().enumerate() {
            match particle {
                Particle::Element(e) if self.count(cx, e) < e.min => {
                    if cx.extras(self.desc).is_some_and(|x| x.optional.contains(&e.name)) {
                        cx.unread(e.name.to_string(), 0, UnreadKind::Absent, self.parent.range().start);
                        continue;
                    }
                    let e = cx.error(self.parent, DecodeErrorKind::MissingElement { name: e.name });
                    cx.report(e)?;
                }
                Particle::Element(_) => {}
                Particle::Choice { required, branches } => match self.choice(cx, p) {
                    0 if *required => {
                        let options = branches.iter().filter_map(|b| b.first().map(|e| e.name)).collect();
                        let e = cx.error(self.parent, DecodeErrorKind::MissingChoice { options });
                        cx.report(e)?;
                    }
                    0 => {}
                    chosen => {
                        for e in branches.get(chosen - 1).copied().unwrap_or(&[]) {
                            if self.count(cx, e) < e.min {
                                let e = cx.error(self.parent, DecodeErrorKind::MissingElement { name: e.name });
                                cx.report(e)?;
                            }
                        }
                    }
                },
            }
        }
        Ok(())
    }
}
