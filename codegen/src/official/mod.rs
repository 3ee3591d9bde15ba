//! The official OpenTravel schemas, read as published: a folder of `.xsd` files in one
//! namespace joined by `xs:include`, in the full subset they use (`xs:complexContent`
//! extension and restriction, attribute groups across files, `xs:simpleContent` over any simple
//! or simple-content type, element references, `xs:any`, unions and lists of simple types).
//!
//! [`OfficialSchema::load`] reads and resolves every name once; the model is index-based
//! (OpenTravel's types refer to each other in cycles). The `official` pass walks it beside the
//! spec; tests draw official-valid instances from it.

pub mod instances;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use roxmltree::{Document, Node};

const XS: &str = "http://www.w3.org/2001/XMLSchema";

/// A complex type of the official schemas, by position in [`OfficialSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComplexId(pub usize);

/// A simple type of the official schemas, by position in [`OfficialSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SimpleId(pub usize);

/// The type of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeRef {
    /// Text only.
    Simple(SimpleId),
    /// Attributes and/or content.
    Complex(ComplexId),
}

/// An element declaration.
#[derive(Debug, Clone)]
pub struct Element {
    /// Its name (in the OpenTravel namespace).
    pub name: String,
    /// Its type.
    pub ty: TypeRef,
    /// Minimum occurrences.
    pub min: u32,
    /// Maximum occurrences (`u32::MAX`: unbounded).
    pub max: u32,
}

/// A complex type, with its base's content and attributes folded in.
#[derive(Debug, Clone, Default)]
pub struct Complex {
    /// Its name, for a named type.
    pub name: Option<String>,
    /// Its attributes (attribute groups and the base's included).
    pub attributes: Vec<Attribute>,
    /// `xs:anyAttribute`.
    pub any_attribute: bool,
    /// Its content.
    pub content: Content,
    /// `mixed="true"`.
    pub mixed: bool,
}

/// An attribute declaration.
#[derive(Debug, Clone)]
pub struct Attribute {
    /// Its name (unqualified).
    pub name: String,
    /// Its type.
    pub ty: SimpleId,
    /// `use="required"`.
    pub required: bool,
}

/// The content of a complex type.
#[derive(Debug, Clone, Default)]
pub enum Content {
    /// No elements, no text.
    #[default]
    Empty,
    /// Text of a simple type.
    Text(SimpleId),
    /// Child elements.
    Elements(Particle),
}

/// A particle of a content model.
#[derive(Debug, Clone)]
pub enum Particle {
    /// An element.
    Element(Element),
    /// Its items in order.
    Sequence {
        /// Minimum occurrences of the group.
        min: u32,
        /// Maximum occurrences of the group.
        max: u32,
        /// The items.
        items: Vec<Particle>,
    },
    /// One of its items.
    Choice {
        /// Minimum occurrences of the group.
        min: u32,
        /// Maximum occurrences of the group.
        max: u32,
        /// The alternatives.
        items: Vec<Particle>,
    },
    /// Any element (`xs:any`).
    Any {
        /// Minimum occurrences.
        min: u32,
        /// Maximum occurrences.
        max: u32,
    },
}

/// A simple type.
#[derive(Debug, Clone, Default)]
pub struct Simple {
    /// Its name, for a named type (`xs:string` for a built-in).
    pub name: Option<String>,
    /// The XSD built-in at the bottom of its derivation (`string`, `decimal`, `date`, …).
    pub builtin: String,
    /// The facets of every level of its derivation.
    pub facets: Facets,
    /// Atomic, a union or a list.
    pub variety: Variety,
}

/// The facets of a simple type, gathered over its derivation.
#[derive(Debug, Clone, Default)]
pub struct Facets {
    /// `xs:enumeration` values of the nearest level that has some (empty: any).
    pub enumerations: Vec<String>,
    /// `xs:pattern`s; one per level, each must match.
    pub patterns: Vec<String>,
    /// `xs:minLength` / `xs:length`.
    pub min_length: Option<u32>,
    /// `xs:maxLength` / `xs:length`.
    pub max_length: Option<u32>,
    /// `xs:minInclusive`.
    pub min_inclusive: Option<String>,
    /// `xs:maxInclusive`.
    pub max_inclusive: Option<String>,
    /// `xs:minExclusive`.
    pub min_exclusive: Option<String>,
    /// `xs:maxExclusive`.
    pub max_exclusive: Option<String>,
    /// `xs:fractionDigits`.
    pub fraction_digits: Option<u32>,
    /// `xs:totalDigits`.
    pub total_digits: Option<u32>,
}

/// The variety of a simple type.
#[derive(Debug, Clone, Default)]
pub enum Variety {
    /// One value.
    #[default]
    Atomic,
    /// A value of one of the members.
    Union(Vec<SimpleId>),
    /// A white-space separated list of values of the item type.
    List(SimpleId),
}

/// Why the official schemas could not be read.
#[derive(Debug)]
pub struct LoadError(pub String);

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

/// The official schemas of one folder, every name resolved.
#[derive(Debug, Clone, Default)]
pub struct OfficialSchema {
    complex: Vec<Complex>,
    simple: Vec<Simple>,
    roots: HashMap<String, Element>,
}

impl OfficialSchema {
    /// Reads every `*.xsd` of the folder and resolves every name; an error names the file and
    /// the construct.
    pub fn load(dir: &Path) -> Result<OfficialSchema, LoadError> {
        let io = |e: std::io::Error| LoadError(format!("{}: {e}", dir.display()));
        let mut texts = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.extension().is_some_and(|e| e == "xsd") {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                texts.push((name, std::fs::read_to_string(&path).map_err(io)?));
            }
        }
        texts.sort();
        let mut docs = Vec::new();
        for (name, text) in &texts {
            let doc = Document::parse(text).map_err(|e| LoadError(format!("{name}: {e}")))?;
            docs.push((name.as_str(), doc));
        }
        let mut r = Reader::default();
        for (file, doc) in &docs {
            for n in doc.root_element().children().filter(|n| n.is_element()) {
                let Some(name) = n.attribute("name") else { continue };
                let map = match n.tag_name().name() {
                    "complexType" => &mut r.complex_defs,
                    "simpleType" => &mut r.simple_defs,
                    "attributeGroup" => &mut r.group_defs,
                    "element" => &mut r.element_defs,
                    other => return Err(LoadError(format!("{file}: top-level xs:{other} {name} is not supported"))),
                };
                map.insert(name.to_string(), (*file, n));
            }
        }
        // In name order: the ids (and what is generated from them) are the same on every run.
        let mut names: Vec<String> = r.element_defs.keys().cloned().collect();
        names.sort();
        for name in names {
            let (file, node) = r.element_defs[&name];
            let element = r.element(file, node, 1, 1)?;
            r.out.roots.insert(name, element);
        }
        Ok(r.out)
    }

    /// A top-level element (`OTA_HotelResRQ`).
    pub fn root(&self, name: &str) -> Option<&Element> {
        self.roots.get(name)
    }

    /// A complex type.
    pub fn complex(&self, id: ComplexId) -> &Complex {
        &self.complex[id.0]
    }

    /// A simple type.
    pub fn simple(&self, id: SimpleId) -> &Simple {
        &self.simple[id.0]
    }

    /// Every element declaration a complex type's content can hold, in document order (first
    /// declaration of each name).
    pub fn child_elements(&self, id: ComplexId) -> Vec<&Element> {
        fn walk<'a>(p: &'a Particle, out: &mut Vec<&'a Element>) {
            match p {
                Particle::Element(e) => {
                    if !out.iter().any(|o| o.name == e.name) {
                        out.push(e);
                    }
                }
                Particle::Sequence { items, .. } | Particle::Choice { items, .. } => {
                    items.iter().for_each(|i| walk(i, out));
                }
                Particle::Any { .. } => {}
            }
        }
        let mut out = Vec::new();
        if let Content::Elements(p) = &self.complex(id).content {
            walk(p, &mut out);
        }
        out
    }

    /// The child element declaration named `name` of a complex type.
    pub fn child(&self, id: ComplexId, name: &str) -> Option<&Element> {
        self.child_elements(id).into_iter().find(|e| e.name == name)
    }
}

type Def<'d, 'i> = (&'d str, Node<'d, 'i>);

/// The state of a load: the top-level definitions by name and what is resolved so far.
#[derive(Default)]
struct Reader<'d, 'i> {
    complex_defs: HashMap<String, Def<'d, 'i>>,
    simple_defs: HashMap<String, Def<'d, 'i>>,
    group_defs: HashMap<String, Def<'d, 'i>>,
    element_defs: HashMap<String, Def<'d, 'i>>,
    complex_ids: HashMap<String, ComplexId>,
    simple_ids: HashMap<String, SimpleId>,
    /// Top-level elements referenced (`ref=`), by name.
    element_refs: HashMap<String, Element>,
    out: OfficialSchema,
}

fn xs_children<'d, 'i>(n: Node<'d, 'i>) -> impl Iterator<Item = Node<'d, 'i>> {
    n.children()
        .filter(|c| c.is_element() && c.tag_name().namespace() == Some(XS) && !c.has_tag_name((XS, "annotation")))
}

fn occurs(n: Node, attr: &str) -> u32 {
    match n.attribute(attr) {
        None => 1,
        Some("unbounded") => u32::MAX,
        Some(v) => v.parse().unwrap_or(1),
    }
}

/// The local part of a QName (`xs:string` → `string`) and whether it is in the XSD namespace.
fn qname(n: Node, value: &str) -> (String, bool) {
    match value.split_once(':') {
        Some((prefix, local)) => (local.to_string(), n.lookup_namespace_uri(Some(prefix)) == Some(XS)),
        None => (value.to_string(), n.lookup_namespace_uri(None) == Some(XS)),
    }
}

impl<'d, 'i> Reader<'d, 'i> {
    fn err<T>(&self, file: &str, n: Node, what: &str) -> Result<T, LoadError> {
        let name = n.attribute("name").or(n.attribute("ref")).unwrap_or("");
        Err(LoadError(format!("{file}: <xs:{} {name}>: {what}", n.tag_name().name())))
    }

    fn element(&mut self, file: &'d str, n: Node<'d, 'i>, min: u32, max: u32) -> Result<Element, LoadError> {
        if let Some(r) = n.attribute("ref") {
            let (name, _) = qname(n, r);
            if let Some(e) = self.element_refs.get(&name) {
                return Ok(Element { min, max, ..e.clone() });
            }
            let Some(&(f, def)) = self.element_defs.get(&name) else { return self.err(file, n, "unknown element") };
            // A placeholder first: a referenced element may contain itself.
            let e = self.element(f, def, 1, 1)?;
            self.element_refs.insert(name, e.clone());
            return Ok(Element { min, max, ..e });
        }
        let Some(name) = n.attribute("name") else { return self.err(file, n, "an element needs a name or a ref") };
        let ty = if let Some(t) = n.attribute("type") {
            self.type_ref(file, n, t)?
        } else if let Some(c) = xs_children(n).find(|c| c.has_tag_name((XS, "complexType"))) {
            TypeRef::Complex(self.complex_type(file, c, None)?)
        } else if let Some(s) = xs_children(n).find(|c| c.has_tag_name((XS, "simpleType"))) {
            TypeRef::Simple(self.simple_type(file, s, None)?)
        } else {
            TypeRef::Simple(self.builtin("anySimpleType"))
        };
        Ok(Element { name: name.to_string(), ty, min, max })
    }

    fn type_ref(&mut self, file: &'d str, n: Node<'d, 'i>, value: &str) -> Result<TypeRef, LoadError> {
        let (name, xs) = qname(n, value);
        if xs {
            return Ok(match name.as_str() {
                "anyType" => TypeRef::Complex(self.any_type()),
                _ => TypeRef::Simple(self.builtin(&name)),
            });
        }
        if self.complex_defs.contains_key(&name) {
            return Ok(TypeRef::Complex(self.named_complex(&name)?));
        }
        if self.simple_defs.contains_key(&name) {
            return Ok(TypeRef::Simple(self.named_simple(&name)?));
        }
        self.err(file, n, &format!("unknown type {value}"))
    }

    fn any_type(&mut self) -> ComplexId {
        if let Some(&id) = self.complex_ids.get("xs:anyType") {
            return id;
        }
        let id = ComplexId(self.out.complex.len());
        self.out.complex.push(Complex {
            name: Some("xs:anyType".into()),
            any_attribute: true,
            mixed: true,
            content: Content::Elements(Particle::Any { min: 0, max: u32::MAX }),
            ..Complex::default()
        });
        self.complex_ids.insert("xs:anyType".into(), id);
        id
    }

    fn builtin(&mut self, name: &str) -> SimpleId {
        let key = format!("xs:{name}");
        if let Some(&id) = self.simple_ids.get(&key) {
            return id;
        }
        let id = SimpleId(self.out.simple.len());
        self.out.simple.push(Simple { name: Some(key.clone()), builtin: name.to_string(), ..Simple::default() });
        self.simple_ids.insert(key, id);
        id
    }

    fn named_complex(&mut self, name: &str) -> Result<ComplexId, LoadError> {
        if let Some(&id) = self.complex_ids.get(name) {
            return Ok(id);
        }
        let Some(&(file, node)) = self.complex_defs.get(name) else {
            return Err(LoadError(format!("unknown complex type {name}")));
        };
        self.complex_type(file, node, Some(name))
    }

    fn named_simple(&mut self, name: &str) -> Result<SimpleId, LoadError> {
        if let Some(&id) = self.simple_ids.get(name) {
            return Ok(id);
        }
        let Some(&(file, node)) = self.simple_defs.get(name) else {
            return Err(LoadError(format!("unknown simple type {name}")));
        };
        self.simple_type(file, node, Some(name))
    }

    /// A complex type; a named one is registered before its content is read (cycles).
    fn complex_type(&mut self, file: &'d str, n: Node<'d, 'i>, name: Option<&str>) -> Result<ComplexId, LoadError> {
        let id = ComplexId(self.out.complex.len());
        self.out.complex.push(Complex { name: name.map(str::to_string), ..Complex::default() });
        if let Some(name) = name {
            self.complex_ids.insert(name.to_string(), id);
        }
        let mut c = Complex {
            name: name.map(str::to_string),
            mixed: n.attribute("mixed") == Some("true"),
            ..Complex::default()
        };
        for child in xs_children(n) {
            match child.tag_name().name() {
                "sequence" | "choice" | "all" => c.content = Content::Elements(self.particle(file, child)?),
                "attribute" | "attributeGroup" | "anyAttribute" => self.attribute_use(file, child, &mut c)?,
                "complexContent" => self.complex_content(file, child, &mut c)?,
                "simpleContent" => self.simple_content(file, child, &mut c)?,
                _ => return self.err(file, child, "not supported in a complex type"),
            }
        }
        self.out.complex[id.0] = c;
        Ok(id)
    }

    fn particle(&mut self, file: &'d str, n: Node<'d, 'i>) -> Result<Particle, LoadError> {
        let (min, max) = (occurs(n, "minOccurs"), occurs(n, "maxOccurs"));
        match n.tag_name().name() {
            "element" => Ok(Particle::Element(self.element(file, n, min, max)?)),
            "any" => Ok(Particle::Any { min, max }),
            "sequence" | "all" => {
                let items = xs_children(n).map(|c| self.particle(file, c)).collect::<Result<_, _>>()?;
                Ok(Particle::Sequence { min, max, items })
            }
            "choice" => {
                let items = xs_children(n).map(|c| self.particle(file, c)).collect::<Result<_, _>>()?;
                Ok(Particle::Choice { min, max, items })
            }
            _ => self.err(file, n, "not supported in a content model"),
        }
    }

    fn attribute_use(&mut self, file: &'d str, n: Node<'d, 'i>, c: &mut Complex) -> Result<(), LoadError> {
        match n.tag_name().name() {
            "anyAttribute" => c.any_attribute = true,
            "attributeGroup" => {
                let Some(r) = n.attribute("ref") else {
                    return self.err(file, n, "a local attribute group needs a ref");
                };
                let (name, _) = qname(n, r);
                let Some(&(f, def)) = self.group_defs.get(&name) else { return self.err(file, n, "unknown group") };
                for child in xs_children(def) {
                    self.attribute_use(f, child, c)?;
                }
            }
            _ => {
                let Some(name) = n.attribute("name") else { return self.err(file, n, "an attribute needs a name") };
                let prohibited = n.attribute("use") == Some("prohibited");
                c.attributes.retain(|a| a.name != name);
                if !prohibited {
                    let ty = match (n.attribute("type"), xs_children(n).find(|x| x.has_tag_name((XS, "simpleType")))) {
                        (Some(t), _) => match self.type_ref(file, n, t)? {
                            TypeRef::Simple(s) => s,
                            TypeRef::Complex(_) => return self.err(file, n, "an attribute of a complex type"),
                        },
                        (None, Some(s)) => self.simple_type(file, s, None)?,
                        (None, None) => self.builtin("anySimpleType"),
                    };
                    c.attributes.push(Attribute {
                        name: name.to_string(),
                        ty,
                        required: n.attribute("use") == Some("required"),
                    });
                }
            }
        }
        Ok(())
    }

    /// `xs:complexContent`: an extension appends its content to the base's and adds
    /// attributes; a restriction states its content, and keeps the base's attributes unless it
    /// redeclares or prohibits them.
    fn complex_content(&mut self, file: &'d str, n: Node<'d, 'i>, c: &mut Complex) -> Result<(), LoadError> {
        let Some(d) = xs_children(n).next() else { return self.err(file, n, "empty complexContent") };
        let Some(base) = d.attribute("base") else { return self.err(file, d, "no base") };
        let base = match self.type_ref(file, d, base)? {
            TypeRef::Complex(b) => self.out.complex[b.0].clone(),
            TypeRef::Simple(_) => return self.err(file, d, "complexContent over a simple type"),
        };
        c.attributes = base.attributes;
        c.any_attribute = base.any_attribute;
        c.mixed |= base.mixed;
        let extension = d.has_tag_name((XS, "extension"));
        if extension {
            c.content = base.content;
        }
        for child in xs_children(d) {
            match child.tag_name().name() {
                "sequence" | "choice" | "all" => {
                    let own = self.particle(file, child)?;
                    c.content = match std::mem::take(&mut c.content) {
                        Content::Elements(before) if extension => {
                            Content::Elements(Particle::Sequence { min: 1, max: 1, items: vec![before, own] })
                        }
                        _ => Content::Elements(own),
                    };
                }
                "attribute" | "attributeGroup" | "anyAttribute" => self.attribute_use(file, child, c)?,
                _ => return self.err(file, child, "not supported in complexContent"),
            }
        }
        Ok(())
    }

    /// `xs:simpleContent`: text of the base's simple type (or of a simple-content base's), with
    /// the base's attributes and its own.
    fn simple_content(&mut self, file: &'d str, n: Node<'d, 'i>, c: &mut Complex) -> Result<(), LoadError> {
        let Some(d) = xs_children(n).next() else { return self.err(file, n, "empty simpleContent") };
        let Some(base) = d.attribute("base") else { return self.err(file, d, "no base") };
        c.content = match self.type_ref(file, d, base)? {
            TypeRef::Simple(s) => Content::Text(s),
            TypeRef::Complex(b) => {
                let base = self.out.complex[b.0].clone();
                c.attributes = base.attributes;
                c.any_attribute = base.any_attribute;
                base.content
            }
        };
        if d.has_tag_name((XS, "restriction")) {
            if let Content::Text(s) = c.content {
                let mut restricted = self.out.simple[s.0].clone();
                restricted.name = None;
                self.facets(d, &mut restricted.facets);
                let id = SimpleId(self.out.simple.len());
                self.out.simple.push(restricted);
                c.content = Content::Text(id);
            }
        }
        for child in xs_children(d) {
            if matches!(child.tag_name().name(), "attribute" | "attributeGroup" | "anyAttribute") {
                self.attribute_use(file, child, c)?;
            }
        }
        Ok(())
    }

    fn simple_type(&mut self, file: &'d str, n: Node<'d, 'i>, name: Option<&str>) -> Result<SimpleId, LoadError> {
        let id = SimpleId(self.out.simple.len());
        self.out.simple.push(Simple { name: name.map(str::to_string), builtin: "string".into(), ..Simple::default() });
        if let Some(name) = name {
            self.simple_ids.insert(name.to_string(), id);
        }
        let Some(d) = xs_children(n).next() else { return self.err(file, n, "empty simpleType") };
        let mut s = Simple { name: name.map(str::to_string), ..Simple::default() };
        match d.tag_name().name() {
            "restriction" => {
                let base = match (d.attribute("base"), xs_children(d).find(|x| x.has_tag_name((XS, "simpleType")))) {
                    (Some(b), _) => match self.type_ref(file, d, b)? {
                        TypeRef::Simple(b) => b,
                        TypeRef::Complex(_) => return self.err(file, d, "a simple type restricting a complex one"),
                    },
                    (None, Some(inner)) => self.simple_type(file, inner, None)?,
                    (None, None) => return self.err(file, d, "no base"),
                };
                let b = self.out.simple[base.0].clone();
                s.builtin = b.builtin;
                s.facets = b.facets;
                s.variety = b.variety;
                self.facets(d, &mut s.facets);
            }
            "union" => {
                let mut members = Vec::new();
                for m in d.attribute("memberTypes").unwrap_or("").split_whitespace() {
                    match self.type_ref(file, d, m)? {
                        TypeRef::Simple(id) => members.push(id),
                        TypeRef::Complex(_) => return self.err(file, d, "a union of a complex type"),
                    }
                }
                for inner in xs_children(d).filter(|x| x.has_tag_name((XS, "simpleType"))) {
                    members.push(self.simple_type(file, inner, None)?);
                }
                s.builtin = "string".into();
                s.variety = Variety::Union(members);
            }
            "list" => {
                let item = match (d.attribute("itemType"), xs_children(d).find(|x| x.has_tag_name((XS, "simpleType"))))
                {
                    (Some(t), _) => match self.type_ref(file, d, t)? {
                        TypeRef::Simple(id) => id,
                        TypeRef::Complex(_) => return self.err(file, d, "a list of a complex type"),
                    },
                    (None, Some(inner)) => self.simple_type(file, inner, None)?,
                    (None, None) => return self.err(file, d, "a list needs an item type"),
                };
                s.builtin = "string".into();
                s.variety = Variety::List(item);
            }
            _ => return self.err(file, d, "not supported in a simple type"),
        }
        self.out.simple[id.0] = s;
        Ok(id)
    }

    /// Adds the facets of one restriction to those of its base.
    fn facets(&self, d: Node, f: &mut Facets) {
        let mut enumerations = Vec::new();
        for x in xs_children(d) {
            let v = x.attribute("value").unwrap_or("").to_string();
            let n = || v.parse::<u32>().ok();
            match x.tag_name().name() {
                "enumeration" => enumerations.push(v.clone()),
                "pattern" => f.patterns.push(v.clone()),
                "length" => {
                    f.min_length = n();
                    f.max_length = n();
                }
                "minLength" => f.min_length = n(),
                "maxLength" => f.max_length = n(),
                "minInclusive" => f.min_inclusive = Some(v.clone()),
                "maxInclusive" => f.max_inclusive = Some(v.clone()),
                "minExclusive" => f.min_exclusive = Some(v.clone()),
                "maxExclusive" => f.max_exclusive = Some(v.clone()),
                "fractionDigits" => f.fraction_digits = n(),
                "totalDigits" => f.total_digits = n(),
                _ => {}
            }
        }
        if !enumerations.is_empty() {
            f.enumerations = enumerations;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn schema() -> OfficialSchema {
        OfficialSchema::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-2016b")).unwrap()
    }

    fn complex(_: &OfficialSchema, e: &Element) -> ComplexId {
        match e.ty {
            TypeRef::Complex(c) => c,
            TypeRef::Simple(_) => panic!("{} is simple", e.name),
        }
    }

    #[test]
    fn the_official_requests_read() {
        let s = schema();
        let rq = s.root("OTA_HotelResRQ").unwrap();
        let c = complex(&s, rq);
        let attrs: Vec<&str> = s.complex(c).attributes.iter().map(|a| a.name.as_str()).collect();
        assert!(attrs.contains(&"TargetName") && attrs.contains(&"Version"), "{attrs:?}");
        let pos = s.child(c, "POS").unwrap();
        let source = s.child(complex(&s, pos), "Source").unwrap();
        assert_eq!(source.max, 10);
        let sattrs: Vec<&str> = s.complex(complex(&s, source)).attributes.iter().map(|a| a.name.as_str()).collect();
        assert!(sattrs.contains(&"AgentSine") && sattrs.contains(&"PseudoCityCode"), "{sattrs:?}");
        let read = complex(&s, s.root("OTA_ReadRQ").unwrap());
        assert!(s.child(read, "ReadRequests").is_some() && s.child(read, "UniqueID").is_some());
        // TPA_Extensions (an element reference) holds anything.
        let tpa = complex(&s, s.root("TPA_Extensions").unwrap());
        assert!(
            matches!(s.complex(tpa).content, Content::Elements(Particle::Sequence { ref items, .. }) if matches!(items[..], [Particle::Any { .. }]))
        );
        for root in [
            "OTA_CancelRQ",
            "OTA_HotelAvailRQ",
            "OTA_TourActivityBookRQ",
            "OTA_HotelRateAmountNotifRQ",
            "OTA_NotifReportRQ",
        ] {
            assert!(s.root(root).is_some(), "{root}");
        }
    }
}
