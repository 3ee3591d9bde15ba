//! The shapes the strict checker enforces, as static tables.
//!
//! The generator writes one static per spec type into `messages/schema.rs`; the decoding
//! context ([`super::Cx`]) walks them beside a parsed document. The built-in simple types are
//! here.

use std::sync::OnceLock;

use regex::Regex;

/// A complex type: attributes and child content.
#[derive(Debug)]
pub struct ComplexDesc {
    /// The XSD type name (or the element name of an anonymous type).
    pub name: &'static str,
    /// The attributes it may carry.
    pub attributes: &'static [AttrDesc],
    /// What it holds.
    pub content: Content,
    /// The other forms of some of its attributes and child elements, in the spec's dialects
    /// (`gen:also`, `gen:written`).
    pub forms: &'static [Form],
}

/// Another form of an attribute or child element of a complex type.
#[derive(Debug)]
pub enum Form {
    /// Decoders also take it under another name (a name some dialect writes it under, or
    /// `gen:also`).
    Also {
        /// The other name.
        name: &'static str,
        /// What it names.
        of: Member,
    },
    /// Decoders take this text in an element of no content: the text some dialect writes
    /// there (`gen:text value=".."`, e.g. the `Other_` of an open OpenTravel list whose code is
    /// in an attribute).
    Text {
        /// The text.
        value: &'static str,
    },
    /// A dialect writes this optional element empty when it is absent
    /// (`gen:written empty-when-absent="true"`): it is always there in that dialect.
    EmptyWhenAbsent {
        /// The dialect (its position in the spec's list, as `DialectIndex`).
        dialect: u8,
        /// The element.
        of: Member,
    },
    /// A dialect does not write it (`gen:written omit="true"`).
    Omitted {
        /// The dialect (its position in the spec's list, as `DialectIndex`).
        dialect: u8,
        /// What it leaves out.
        of: Member,
    },
}

/// An attribute or a child element of a complex type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// The attribute at this position of [`ComplexDesc::attributes`].
    Attribute(usize),
    /// The child element with this [`ElementDesc::index`].
    Element(u16),
    /// The element's text (`gen:text attribute=".."`: also taken as an attribute).
    Text,
}

impl ComplexDesc {
    /// The position of the attribute called `name` (its own name or another it is also taken by).
    pub fn attribute_position(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|d| d.name == name).or_else(|| {
            self.forms.iter().find_map(|f| match f {
                Form::Also { name: n, of: Member::Attribute(i) } if *n == name => Some(*i),
                _ => None,
            })
        })
    }

    /// The other names of the attribute at position `i`.
    pub fn attribute_also(&self, i: usize) -> impl Iterator<Item = &'static str> + '_ {
        self.forms.iter().filter_map(move |f| match f {
            Form::Also { name, of: Member::Attribute(j) } if *j == i => Some(*name),
            _ => None,
        })
    }

    /// The index of the child element another name of which is `name`.
    pub fn element_also(&self, name: &str) -> Option<u16> {
        self.forms.iter().find_map(|f| match f {
            Form::Also { name: n, of: Member::Element(i) } if *n == name => Some(*i),
            _ => None,
        })
    }

    /// The attribute the element's text is also taken as, if any.
    pub fn text_attribute(&self) -> Option<&'static str> {
        self.forms.iter().find_map(|f| match f {
            Form::Also { name, of: Member::Text } => Some(*name),
            _ => None,
        })
    }

    /// The texts taken in an element of no content (besides none).
    pub fn fixed_texts(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.forms.iter().filter_map(|f| match f {
            Form::Text { value } => Some(*value),
            _ => None,
        })
    }

    /// True when the dialect at `dialect` always writes `member` (empty when absent).
    pub fn always_writes(&self, dialect: u8, member: Member) -> bool {
        self.forms
            .iter()
            .any(|f| matches!(f, Form::EmptyWhenAbsent { dialect: d, of } if *d == dialect && *of == member))
    }

    /// True when the dialect at `dialect` does not write `member`.
    pub fn omits(&self, dialect: u8, member: Member) -> bool {
        self.forms.iter().any(|f| matches!(f, Form::Omitted { dialect: d, of } if *d == dialect && *of == member))
    }
}

/// One attribute a complex type may carry.
#[derive(Debug)]
pub struct AttrDesc {
    /// The attribute name (unqualified).
    pub name: &'static str,
    /// Whether it must be present.
    pub required: bool,
    /// Its value type.
    pub ty: &'static SimpleDesc,
}

impl AttrDesc {
    /// An attribute that must be present.
    pub const fn required(name: &'static str, ty: &'static SimpleDesc) -> Self {
        AttrDesc { name, required: true, ty }
    }

    /// An attribute that may be absent.
    pub const fn optional(name: &'static str, ty: &'static SimpleDesc) -> Self {
        AttrDesc { name, required: false, ty }
    }
}

/// The content of a complex type.
#[derive(Debug)]
pub enum Content {
    /// Nothing: no child elements, no text.
    Empty,
    /// Text of a simple type (and no child elements).
    Text(&'static SimpleDesc),
    /// Anything, attributes too (`xs:any`, `xs:anyAttribute`, skipped): taken and not read.
    Skipped,
    /// Child elements (`xs:sequence`), in the order the encoders write; decoding accepts them
    /// in any order.
    Sequence(&'static [Particle]),
}

/// A member of a sequence.
#[derive(Debug)]
pub enum Particle {
    /// An element.
    Element(ElementDesc),
    /// One of several alternatives (`xs:choice`), each a sequence of elements.
    Choice {
        /// Whether one alternative must be present.
        required: bool,
        /// The alternatives.
        branches: &'static [&'static [ElementDesc]],
    },
}

/// A child element.
#[derive(Debug)]
pub struct ElementDesc {
    /// The element name (in the OTA namespace).
    pub name: &'static str,
    /// Its position among all child elements of the type, in declaration order (choice
    /// alternatives included): the slot of its occurrence counter in [`super::Children`]. The
    /// generated decoders match on [`ElementDesc::name`], never on this.
    pub index: u16,
    /// Minimum occurrences.
    pub min: u32,
    /// Maximum occurrences (`u32::MAX` for unbounded).
    pub max: u32,
    /// Its type.
    pub ty: TypeDesc,
}

impl ElementDesc {
    /// A child element (the fields in order: name, index, minimum, maximum, type).
    pub const fn new(name: &'static str, index: u16, min: u32, max: u32, ty: TypeDesc) -> Self {
        ElementDesc { name, index, min, max, ty }
    }
}

/// The type of a child element.
#[derive(Debug, Clone, Copy)]
pub enum TypeDesc {
    /// Attributes and/or children.
    Complex(&'static ComplexDesc),
    /// Text only.
    Simple(&'static SimpleDesc),
}

/// The XML Schema built-in types (one definition, shared with the generator).
pub use xsd_builtins::Builtin;

/// A simple type: a built-in with facets, or a list of values.
#[derive(Debug)]
pub struct SimpleDesc {
    /// The XSD type name.
    pub name: &'static str,
    /// The built-in it is based on.
    pub builtin: Builtin,
    /// Known values. With `open: None` the list is closed: nothing else is accepted.
    pub values: &'static [&'static str],
    /// Other values that mean known ones (the spec's `gen:also` on an enumeration value, e.g.
    /// `Adult` for `10`): taken, and read as the value they mean.
    pub also: &'static [&'static str],
    /// For an open list: the type any other value must have.
    pub open: Option<&'static SimpleDesc>,
    /// Each must match.
    pub patterns: &'static [Pattern],
    /// Minimum length in characters.
    pub min_length: Option<u32>,
    /// Maximum length in characters.
    pub max_length: Option<u32>,
    /// Inclusive lower bound, in the built-in's lexical form.
    pub min_inclusive: Option<&'static str>,
    /// Inclusive upper bound, in the built-in's lexical form.
    pub max_inclusive: Option<&'static str>,
}

impl SimpleDesc {
    /// A built-in with no facets (the base for struct-update syntax in generated tables).
    pub const fn builtin(name: &'static str, builtin: Builtin) -> Self {
        SimpleDesc {
            name,
            builtin,
            values: &[],
            also: &[],
            open: None,
            patterns: &[],
            min_length: None,
            max_length: None,
            min_inclusive: None,
            max_inclusive: None,
        }
    }
}

/// An `xs:pattern`, with its translation to the `regex` crate, compiled on first use.
#[derive(Debug)]
pub struct Pattern {
    /// The pattern as written in the spec.
    pub xsd: &'static str,
    /// The anchored `regex` translation (made and validated by the generator).
    pub regex: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern; compiled lazily.
    pub const fn new(xsd: &'static str, regex: &'static str) -> Self {
        Pattern { xsd, regex, compiled: OnceLock::new() }
    }

    /// True when the whole value matches. A pattern that does not compile matches nothing.
    pub fn is_match(&self, value: &str) -> bool {
        self.compiled.get_or_init(|| Regex::new(self.regex).ok()).as_ref().is_some_and(|r| r.is_match(value))
    }
}

macro_rules! builtins {
    ($($name:ident = $xsd:literal, $variant:ident;)*) => {
        $(
            #[doc = concat!("`xs:", $xsd, "` with no facets.")]
            pub static $name: SimpleDesc = SimpleDesc::builtin(concat!("xs:", $xsd), Builtin::$variant);
        )*
    };
}

builtins! {
    XS_STRING = "string", String;
    XS_NORMALIZED_STRING = "normalizedString", NormalizedString;
    XS_TOKEN = "token", Token;
    XS_LANGUAGE = "language", Language;
    XS_BOOLEAN = "boolean", Boolean;
    XS_INT = "int", Int;
    XS_INTEGER = "integer", Integer;
    XS_NON_NEGATIVE_INTEGER = "nonNegativeInteger", NonNegativeInteger;
    XS_POSITIVE_INTEGER = "positiveInteger", PositiveInteger;
    XS_UNSIGNED_INT = "unsignedInt", UnsignedInt;
    XS_DECIMAL = "decimal", Decimal;
    XS_DATE = "date", Date;
    XS_DATE_TIME = "dateTime", DateTime;
}
