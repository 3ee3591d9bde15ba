//! The official OpenTravel schemas (`conformance/opentravel-2016b/`) as a resolved model.
//!
//! The official schemas are not the project's spec (`spec/`, read by [`parse`](crate::parse)):
//! they are 46 files in one namespace ([`OTA_NS`]) joined by `xs:include`, with constructs the
//! spec does not use (type derivation, unions, lists, wildcards). [`OfficialSchema::load`] reads
//! every `*.xsd` of a folder and resolves every name into an owned, index-based model: types
//! refer to one another by [`ComplexId`] and [`SimpleId`] (OTA types are recursive), and
//! derivation is already applied, so a [`Complex`] holds all of its attributes and its whole
//! content model, and a [`Simple`] all the facets of its derivation chain.
//!
//! What is read: `xs:include`; top-level `complexType`, `simpleType`, `attributeGroup` and
//! `element`; `sequence` and `choice` (with `minOccurs`/`maxOccurs`, nested); local elements
//! (named with a type, an inline type or none, or `ref=` to a top-level element); attributes
//! (typed, inline or untyped; `use` required, optional or prohibited); attribute-group
//! references (nested); `anyAttribute`; `any`; `complexContent` extension (the base's content,
//! then the extension's) and restriction (its own content; the base's attributes unless
//! redeclared or prohibited); `simpleContent` extension and restriction over a simple type or a
//! complex type with simple content; simple types by restriction (every facet of XSD 1.0 but
//! `whiteSpace`), `union` and `list`. What 2016B does not use is an error naming file and
//! construct: `xs:group`, `xs:all`, `xs:import`, `xs:redefine`, attribute references,
//! `whiteSpace`, another namespace.
//!
//! ```no_run
//! use ota_codegen::official::{OfficialSchema, TypeRef};
//! let schema = OfficialSchema::load(std::path::Path::new("conformance/opentravel-2016b"))?;
//! let root = schema.root("OTA_HotelResRQ").expect("a root");
//! if let TypeRef::Complex(id) = root.ty {
//!     for child in schema.child_elements(id) {
//!         println!("{} {}..{}", child.name, child.min, child.max);
//!     }
//! }
//! # Ok::<(), ota_codegen::official::LoadError>(())
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;

pub mod instances;
mod load;

/// The namespace of every OpenTravel 2003/05 schema.
pub const OTA_NS: &str = "http://www.opentravel.org/OTA/2003/05";

/// `maxOccurs="unbounded"`.
pub const UNBOUNDED: u32 = u32::MAX;

/// The official schemas of a folder, every name resolved.
#[derive(Debug, Clone)]
pub struct OfficialSchema {
    pub(crate) complexes: Vec<Complex>,
    pub(crate) simples: Vec<Simple>,
    pub(crate) roots: BTreeMap<String, Element>,
    pub(crate) complex_names: BTreeMap<String, ComplexId>,
    pub(crate) simple_names: BTreeMap<String, SimpleId>,
    /// The fewest elements a minimal instance of each complex type holds, computed once on
    /// first use by [`instances`].
    pub(crate) minimal_costs: std::sync::OnceLock<Vec<u64>>,
}

/// The index of a complex type in an [`OfficialSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComplexId(pub usize);

/// The index of a simple type in an [`OfficialSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SimpleId(pub usize);

/// An element declaration: a top-level one, or one of a content model (a `ref=` is the
/// top-level declaration with the occurrence bounds of the reference).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Local name (in [`OTA_NS`]: every 2016B file is `elementFormDefault="qualified"`).
    pub name: String,
    /// Its type.
    pub ty: TypeRef,
    /// `minOccurs` (1 for a top-level element).
    pub min: u32,
    /// `maxOccurs`, [`UNBOUNDED`] for `unbounded`.
    pub max: u32,
}

/// The type of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeRef {
    /// A simple type: the element holds text only.
    Simple(SimpleId),
    /// A complex type.
    Complex(ComplexId),
}

/// A complex type with its derivation applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Complex {
    /// Its name; `None` for an anonymous (inline) type. The built-in `xs:anyType` is named so.
    pub name: Option<String>,
    /// Every attribute it allows, the base's first (without those a restriction prohibits).
    pub attributes: Vec<Attribute>,
    /// Whether it has an `xs:anyAttribute` (its own or its base's).
    pub any_attribute: bool,
    /// What it holds between its tags.
    pub content: Content,
    /// Whether text may stand between its child elements.
    pub mixed: bool,
}

/// An attribute declaration (unqualified: every 2016B file is `attributeFormDefault`
/// unqualified, or says nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// Local name.
    pub name: String,
    /// Its type (`xs:anySimpleType` for an attribute declared without one).
    pub ty: SimpleId,
    /// `use="required"`.
    pub required: bool,
}

/// The content of a complex type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Nothing (attributes only).
    Empty,
    /// Text of a simple type (`xs:simpleContent`).
    Text(SimpleId),
    /// Child elements, as a content model.
    Elements(Particle),
}

/// A piece of a content model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Particle {
    /// An element declaration with its occurrence bounds.
    Element(Element),
    /// `xs:sequence`: its items in order, the whole `min..=max` times.
    Sequence {
        /// `minOccurs`.
        min: u32,
        /// `maxOccurs` ([`UNBOUNDED`] for `unbounded`).
        max: u32,
        /// Its particles.
        items: Vec<Particle>,
    },
    /// `xs:choice`: one of its items, `min..=max` times.
    Choice {
        /// `minOccurs`.
        min: u32,
        /// `maxOccurs` ([`UNBOUNDED`] for `unbounded`).
        max: u32,
        /// Its alternatives.
        items: Vec<Particle>,
    },
    /// `xs:any`: elements of any namespace. 2016B has two wildcards: `TPA_ExtensionsType`'s
    /// (`processContents="skip"`) and the built-in `xs:anyType`'s (lax); an element of another
    /// namespace is valid under both.
    Any {
        /// `minOccurs`.
        min: u32,
        /// `maxOccurs` ([`UNBOUNDED`] for `unbounded`).
        max: u32,
    },
}

impl Particle {
    /// Its occurrence bounds `(min, max)`.
    pub fn occurs(&self) -> (u32, u32) {
        match self {
            Particle::Element(e) => (e.min, e.max),
            Particle::Sequence { min, max, .. } | Particle::Choice { min, max, .. } | Particle::Any { min, max } => {
                (*min, *max)
            }
        }
    }
}

/// A simple type with its derivation applied. Built-in types (`xs:string`, …) are entries too,
/// named `xs:string` etc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simple {
    /// Its name; `None` for an anonymous (inline) type; `xs:…` for a built-in.
    pub name: Option<String>,
    /// The XSD built-in it derives from, without prefix: `string`, `decimal`, `date`,
    /// `dateTime`, `boolean`, `integer`, `nonNegativeInteger`, … (the nearest built-in of its
    /// chain); `anySimpleType` for a union or a list.
    pub builtin: String,
    /// Every facet of its derivation chain.
    pub facets: Facets,
    /// Atomic, union or list.
    pub variety: Variety,
}

/// The variety of a simple type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Variety {
    /// A single value of [`Simple::builtin`].
    Atomic,
    /// A value of any one of its members.
    Union(Vec<SimpleId>),
    /// Space-separated values of its item type (length facets count items).
    List(SimpleId),
}

/// The facets of a simple type, gathered along its derivation chain (a restriction narrows its
/// base: each bound here is the nearest level's, which is the tightest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facets {
    /// The allowed values (`xs:enumeration`) of the nearest level that has any; empty: no limit.
    pub enumerations: Vec<String>,
    /// XSD regular expressions, one per derivation level that has any: a value must match every
    /// one (a level with several `xs:pattern` is their alternation `(p1)|(p2)`).
    pub patterns: Vec<String>,
    /// `xs:length`.
    pub length: Option<u64>,
    /// `xs:minLength`.
    pub min_length: Option<u64>,
    /// `xs:maxLength`.
    pub max_length: Option<u64>,
    /// `xs:minInclusive`, as written.
    pub min_inclusive: Option<String>,
    /// `xs:maxInclusive`, as written.
    pub max_inclusive: Option<String>,
    /// `xs:minExclusive`, as written.
    pub min_exclusive: Option<String>,
    /// `xs:maxExclusive`, as written.
    pub max_exclusive: Option<String>,
    /// `xs:fractionDigits`.
    pub fraction_digits: Option<u32>,
    /// `xs:totalDigits`.
    pub total_digits: Option<u32>,
}

/// Why the schemas could not be loaded: the file and the construct, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file (or folder) concerned.
    pub file: String,
    /// The construct, e.g. `complexType "HotelResRequestType"`.
    pub construct: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.construct, self.message)
    }
}

impl std::error::Error for LoadError {}

impl OfficialSchema {
    /// Reads every `*.xsd` of the folder and resolves every name; errors name file and
    /// construct.
    pub fn load(dir: &Path) -> Result<OfficialSchema, LoadError> {
        let io = |e: std::io::Error| LoadError {
            file: dir.display().to_string(),
            construct: "folder".to_string(),
            message: e.to_string(),
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.extension().is_some_and(|e| e == "xsd") {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let text = std::fs::read_to_string(&path).map_err(|e| LoadError {
                    file: name.clone(),
                    construct: "file".to_string(),
                    message: e.to_string(),
                })?;
                files.push((name, text));
            }
        }
        files.sort();
        OfficialSchema::from_sources(&files)
    }

    /// As [`load`](Self::load), from in-memory files (file name → XSD text).
    pub fn from_sources(files: &[(String, String)]) -> Result<OfficialSchema, LoadError> {
        load::load(files)
    }

    /// A top-level element, e.g. `OTA_HotelResRQ`.
    pub fn root(&self, name: &str) -> Option<&Element> {
        self.roots.get(name)
    }

    /// The names of every top-level element, sorted.
    pub fn root_names(&self) -> impl Iterator<Item = &str> {
        self.roots.keys().map(String::as_str)
    }

    /// A complex type by id.
    pub fn complex(&self, id: ComplexId) -> &Complex {
        &self.complexes[id.0]
    }

    /// A simple type by id.
    pub fn simple(&self, id: SimpleId) -> &Simple {
        &self.simples[id.0]
    }

    /// A named complex type (`xs:anyType` for the built-in).
    pub fn complex_named(&self, name: &str) -> Option<ComplexId> {
        self.complex_names.get(name).copied()
    }

    /// A named simple type (`xs:string` etc. for a built-in that the schemas use).
    pub fn simple_named(&self, name: &str) -> Option<SimpleId> {
        self.simple_names.get(name).copied()
    }

    /// How many complex types there are (ids are `0..complex_count()`).
    pub fn complex_count(&self) -> usize {
        self.complexes.len()
    }

    /// How many simple types there are (ids are `0..simple_count()`).
    pub fn simple_count(&self) -> usize {
        self.simples.len()
    }

    /// Every element declaration a complex type's content can hold, flattened (in document
    /// order, first occurrence of each name).
    pub fn child_elements(&self, id: ComplexId) -> Vec<&Element> {
        let mut out = Vec::new();
        if let Content::Elements(p) = &self.complex(id).content {
            let mut seen = HashSet::new();
            collect_elements(p, &mut seen, &mut out);
        }
        out
    }

    /// The child element declaration named `name` of a complex type.
    pub fn child(&self, id: ComplexId, name: &str) -> Option<&Element> {
        match &self.complex(id).content {
            Content::Elements(p) => find_element(p, name),
            _ => None,
        }
    }

    /// The attribute named `name` of a complex type.
    pub fn attribute(&self, id: ComplexId, name: &str) -> Option<&Attribute> {
        self.complex(id).attributes.iter().find(|a| a.name == name)
    }
}

fn collect_elements<'a>(p: &'a Particle, seen: &mut HashSet<&'a str>, out: &mut Vec<&'a Element>) {
    match p {
        Particle::Element(e) => {
            if seen.insert(e.name.as_str()) {
                out.push(e);
            }
        }
        Particle::Sequence { items, .. } | Particle::Choice { items, .. } => {
            for item in items {
                collect_elements(item, seen, out);
            }
        }
        Particle::Any { .. } => {}
    }
}

fn find_element<'a>(p: &'a Particle, name: &str) -> Option<&'a Element> {
    match p {
        Particle::Element(e) => (e.name == name).then_some(e),
        Particle::Sequence { items, .. } | Particle::Choice { items, .. } => {
            items.iter().find_map(|item| find_element(item, name))
        }
        Particle::Any { .. } => None,
    }
}

#[cfg(test)]
mod tests;
