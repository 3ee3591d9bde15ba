//! What the official OpenTravel 2016B schemas allow beyond the spec, and what a decode that
//! takes it ([`Strictness::Official`]) did not read.
//!
//! The generator reads the official schemas beside the spec and writes, for each complex type
//! of a request, the attributes and child elements 2016B allows there that the spec does not
//! declare (and the elements 2016B lets occur more often): an [`Extras`] entry of the generated
//! table `messages::official::EXTRAS`. A strict decode refuses them, as always; an official one
//! takes each, skips it (an element with everything inside it) and lists it as an [`Unread`],
//! so that the caller can answer what it did with it instead of "malformed".

use super::check::check_simple;
use super::schema::{ComplexDesc, SimpleDesc};

/// How strictly a decode holds a document to the spec.
#[derive(Debug, Clone, Copy, Default)]
pub enum Strictness {
    /// The spec only: anything it does not declare is a problem.
    #[default]
    Strict,
    /// The spec, and what OpenTravel 2016B allows beyond it (these tables), taken and listed
    /// as unread.
    Official(&'static Official),
}

/// What OpenTravel 2016B allows beyond the spec, as the generator read it from the official
/// schemas (`messages::official::TABLES`).
#[derive(Debug)]
pub struct Official {
    /// Per complex type of the spec.
    pub extras: &'static [Extras],
    /// Per simple type of the spec that 2016B takes wider where the spec uses it.
    pub wider: &'static [Wider],
}

/// The official types of the places a simple type of the spec is used at: a value one of them
/// takes and the spec's does not is valid OpenTravel that the service does not take.
#[derive(Debug)]
pub struct Wider {
    /// The spec's type.
    pub of: &'static SimpleDesc,
    /// The official types (as the checker's tables).
    pub official: &'static [&'static SimpleDesc],
}

impl Official {
    /// True when `value`, which the spec's type `ty` does not take, is valid under 2016B where
    /// `ty` is used.
    pub fn takes(&self, ty: &'static SimpleDesc, value: &str) -> bool {
        self.wider
            .iter()
            .filter(|w| std::ptr::eq(w.of, ty))
            .flat_map(|w| w.official)
            .any(|o| check_simple(o, value).is_ok())
    }
}

/// What OpenTravel 2016B allows in one complex type of the spec, at the places the type is
/// used in requests, beyond what the spec declares.
#[derive(Debug)]
pub struct Extras {
    /// The spec's type.
    pub of: &'static ComplexDesc,
    /// Attributes 2016B allows that the type does not declare.
    pub attributes: &'static [&'static str],
    /// Child elements 2016B allows, with their maximum occurrences there (`u32::MAX`:
    /// unbounded): those the type does not declare, and those it declares with a lower maximum.
    pub elements: &'static [(&'static str, u32)],
    /// 2016B allows any element here (`xs:any`, e.g. `TPA_Extensions`).
    pub any_element: bool,
    /// What the type requires and 2016B leaves optional: attributes (`@HotelCode`) and child
    /// elements; a request without one is valid OpenTravel that the service cannot carry out.
    pub optional: &'static [&'static str],
    /// Attributes 2016B allows on child elements the spec reads as text only (`QualifierInfo`'s
    /// `@Extension`), by element.
    pub text_attributes: &'static [(&'static str, &'static [&'static str])],
}

impl Extras {
    /// The entry of `desc` in `table`.
    pub fn of(table: &'static [Extras], desc: &'static ComplexDesc) -> Option<&'static Extras> {
        table.iter().find(|e| std::ptr::eq(e.of, desc))
    }

    /// True when 2016B allows the attribute `name` here.
    pub fn attribute(&self, name: &str) -> bool {
        self.attributes.contains(&name)
    }

    /// The attributes 2016B allows on the text-only child `element`.
    pub fn simple_attributes(&self, element: &str) -> Option<&'static [&'static str]> {
        self.text_attributes.iter().find(|(e, _)| *e == element).map(|(_, a)| *a)
    }

    /// How many `name` elements 2016B allows here, when it allows them.
    pub fn element_max(&self, name: &str) -> Option<u32> {
        self.elements.iter().find(|(n, _)| *n == name).map(|(_, max)| *max).or(self.any_element.then_some(u32::MAX))
    }
}

/// An item of a request that OpenTravel 2016B allows and the decode took without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// Where: the element path and the item, `/OTA_ReadRQ/@TargetName`,
    /// `/OTA_HotelResRQ/HotelReservations/HotelReservation/ResGlobalInfo/Guarantee`, or
    /// `/OTA_ReadRQ/POS/Source[3]` for an occurrence beyond what the spec reads.
    pub path: String,
    /// The item's name (`@TargetName`, `Guarantee`, `Source`).
    pub name: String,
    /// What kind of item.
    pub kind: UnreadKind,
    /// 1-based line of the item in the document.
    pub line: u32,
}

/// A decoded message and what of it was taken without being read.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<T> {
    /// The message.
    pub message: T,
    /// What OpenTravel 2016B allows and the spec does not read, in document order (empty for a
    /// strict decode).
    pub unread: Vec<Unread>,
}

/// What an [`Unread`] item is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnreadKind {
    /// An attribute or element the spec does not declare (with everything in it).
    Item,
    /// An occurrence, beyond the spec's maximum, of an element the spec reads.
    More,
    /// A value 2016B takes and the spec's type does not (the field is left empty).
    Value {
        /// The value.
        value: String,
        /// What the spec takes there.
        expected: String,
    },
    /// An attribute or element the spec requires and 2016B does not, absent.
    Absent,
}

impl UnreadKind {
    /// True for an occurrence beyond the spec's maximum.
    pub fn is_more(&self) -> bool {
        matches!(self, UnreadKind::More)
    }
}

impl Unread {
    /// The path without the element indexes and the root (`HotelReservations/HotelReservation/@RoomStayReservation`):
    /// the path of the item in the table of decisions.
    pub fn item_path(&self) -> String {
        let mut steps =
            self.path.split('/').filter(|s| !s.is_empty()).skip(1).map(|s| s.split('[').next().unwrap_or(s));
        let mut out = String::new();
        if let Some(first) = steps.next() {
            out.push_str(first);
        }
        for s in steps {
            out.push('/');
            out.push_str(s);
        }
        out
    }
}

impl<T> Decoded<T> {
    /// The same, with the message mapped.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Decoded<U> {
        Decoded { message: f(self.message), unread: self.unread }
    }
}

/// What the service does with an official item it does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Taken and left out: the answer carries a Warning naming it (leaving it out cannot change
    /// what is booked or charged).
    Ignored,
    /// Refused with an error Type 2, not supported, naming it (ignoring it would change the
    /// deal).
    NotSupported,
}

/// A decision rule (the spec's `official.xml`, in its order: the first that matches an item
/// decides it; the generated table `messages::official::RULES`).
#[derive(Debug)]
pub struct Rule {
    /// The request root it applies to; `None`: every root.
    pub root: Option<&'static str>,
    /// The item paths it matches, as steps (see [`Unread::item_path`]): a name, `*` any one
    /// step, `@*` any attribute, `**` any number of steps.
    pub path: &'static [&'static str],
    /// `Some(true)`: only occurrences beyond the spec's maximum; `Some(false)`: only items the
    /// spec does not declare; `None`: both.
    pub more: Option<bool>,
    /// The decision.
    pub decision: Decision,
    /// Why, as the answer says it.
    pub reason: &'static str,
}

impl Rule {
    /// The rule that decides `unread` in a request of `root`: the first of `table` that
    /// matches it.
    pub fn decide(table: &'static [Rule], root: &str, unread: &Unread) -> Option<&'static Rule> {
        let path = unread.item_path();
        let steps: Vec<&str> = path.split('/').collect();
        table.iter().find(|r| r.matches(root, &steps, unread.kind.is_more()))
    }

    /// True when the rule matches the item at `steps` in `root`.
    pub fn matches(&self, root: &str, steps: &[&str], more: bool) -> bool {
        self.root.is_none_or(|r| r == root) && self.more.is_none_or(|m| m == more) && glob(self.path, steps)
    }
}

/// Matches steps against a pattern of steps (`*` one step, `**` any number).
fn glob(pattern: &[&str], steps: &[&str]) -> bool {
    match pattern.split_first() {
        None => steps.is_empty(),
        Some((&"**", rest)) => (0..=steps.len()).any(|i| steps.get(i..).is_some_and(|tail| glob(rest, tail))),
        Some((p, rest)) => match steps.split_first() {
            Some((s, tail)) => (*p == "*" || p == s || (*p == "@*" && s.starts_with('@'))) && glob(rest, tail),
            None => false,
        },
    }
}
