//! Reading the official schemas: every top-level declaration of every file is collected by name
//! first, each named or inline type gets an id, then every type is resolved (a derived type
//! after its base), so recursive types are ids, never nested trees.

use std::collections::{BTreeMap, HashMap, HashSet};

use roxmltree::{Document, Node};

use super::{
    Attribute, Complex, ComplexId, Content, Element, Facets, LoadError, OTA_NS, OfficialSchema, Particle, Simple,
    SimpleId, TypeRef, UNBOUNDED, Variety,
};

const XS: &str = "http://www.w3.org/2001/XMLSchema";

/// The XSD built-in simple types a schema may name.
const BUILTINS: &[&str] = &[
    "anySimpleType",
    "string",
    "normalizedString",
    "token",
    "language",
    "Name",
    "NCName",
    "NMTOKEN",
    "NMTOKENS",
    "ID",
    "IDREF",
    "IDREFS",
    "ENTITY",
    "ENTITIES",
    "QName",
    "NOTATION",
    "anyURI",
    "boolean",
    "decimal",
    "integer",
    "nonNegativeInteger",
    "positiveInteger",
    "nonPositiveInteger",
    "negativeInteger",
    "long",
    "int",
    "short",
    "byte",
    "unsignedLong",
    "unsignedInt",
    "unsignedShort",
    "unsignedByte",
    "float",
    "double",
    "date",
    "dateTime",
    "time",
    "duration",
    "gYear",
    "gYearMonth",
    "gMonth",
    "gMonthDay",
    "gDay",
    "base64Binary",
    "hexBinary",
];

/// A declaration: the file it is in and its node.
#[derive(Clone, Copy)]
struct Decl<'a, 'i> {
    file: usize,
    node: Node<'a, 'i>,
}

enum State<'a, 'i> {
    Pending(Decl<'a, 'i>),
    InProgress,
    Done,
}

/// Starts resolving a type: its declaration, marking it in progress; `None` when it is already
/// resolved; an error when it is in progress (it derives from itself).
fn start<'a, 'i>(state: &mut State<'a, 'i>, kind: &str, name: Option<&str>) -> R<Option<Decl<'a, 'i>>> {
    match std::mem::replace(state, State::InProgress) {
        State::Pending(decl) => Ok(Some(decl)),
        State::Done => {
            *state = State::Done;
            Ok(None)
        }
        State::InProgress => Err(LoadError {
            file: String::new(),
            construct: format!("{kind} \"{}\"", name.unwrap_or_default()),
            message: "derives from itself".to_string(),
        }),
    }
}

/// A qualified name of a reference, resolved to its namespace.
enum QRef<'v> {
    /// In the XML Schema namespace (a built-in).
    Xs(&'v str),
    /// In the OpenTravel namespace (or a chameleon file's, which is the includer's).
    Ota(&'v str),
}

struct Loader<'a, 'i> {
    files: &'a [(String, String)],
    simples: Vec<Simple>,
    simple_state: Vec<State<'a, 'i>>,
    simple_names: HashMap<String, SimpleId>,
    complexes: Vec<Complex>,
    complex_state: Vec<State<'a, 'i>>,
    complex_names: HashMap<String, ComplexId>,
    groups: HashMap<String, Decl<'a, 'i>>,
    group_cache: HashMap<String, (Vec<AttrDecl>, bool)>,
    groups_in_progress: HashSet<String>,
    elements: HashMap<String, Decl<'a, 'i>>,
    roots: BTreeMap<String, Element>,
}

/// An attribute as declared, before merging with a base's.
#[derive(Clone)]
struct AttrDecl {
    attribute: Attribute,
    prohibited: bool,
}

/// What a `complexType`, `extension` or `restriction` body says itself.
struct Body {
    particle: Option<Particle>,
    attributes: Vec<AttrDecl>,
    any_attribute: bool,
}

type R<T> = Result<T, LoadError>;

pub(super) fn load(files: &[(String, String)]) -> R<OfficialSchema> {
    let mut docs = Vec::new();
    for (name, text) in files {
        let doc = Document::parse(text).map_err(|e| LoadError {
            file: name.clone(),
            construct: "document".to_string(),
            message: format!("not well-formed XML: {e}"),
        })?;
        docs.push(doc);
    }
    let mut loader = Loader {
        files,
        simples: Vec::new(),
        simple_state: Vec::new(),
        simple_names: HashMap::new(),
        complexes: Vec::new(),
        complex_state: Vec::new(),
        complex_names: HashMap::new(),
        groups: HashMap::new(),
        group_cache: HashMap::new(),
        groups_in_progress: HashSet::new(),
        elements: HashMap::new(),
        roots: BTreeMap::new(),
    };
    let names: HashSet<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for (file, doc) in docs.iter().enumerate() {
        loader.collect(file, doc, &names)?;
    }
    loader.resolve_roots()?;
    loop {
        let mut progressed = false;
        for i in 0..loader.complex_state.len() {
            if matches!(loader.complex_state[i], State::Pending(_)) {
                loader.resolve_complex(ComplexId(i))?;
                progressed = true;
            }
        }
        for i in 0..loader.simple_state.len() {
            if matches!(loader.simple_state[i], State::Pending(_)) {
                loader.resolve_simple(SimpleId(i))?;
                progressed = true;
            }
        }
        let mut group_names: Vec<String> = loader.groups.keys().cloned().collect();
        group_names.sort();
        for name in group_names {
            if !loader.group_cache.contains_key(&name) {
                loader.attribute_group(&name, None)?;
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    Ok(OfficialSchema {
        complexes: loader.complexes,
        simples: loader.simples,
        roots: loader.roots,
        complex_names: loader.complex_names.into_iter().collect(),
        simple_names: loader.simple_names.into_iter().collect(),
        minimal_costs: std::sync::OnceLock::new(),
    })
}

/// The children of a schema node that are not annotations (nor text).
fn xs_children<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(|c| c.is_element() && !(c.tag_name().namespace() == Some(XS) && local(*c) == "annotation"))
}

fn local<'a>(node: Node<'a, '_>) -> &'a str {
    node.tag_name().name()
}

/// How a node is named in an error: `complexType "X"`, or `element "X"`, or the tag alone.
fn describe(node: Node) -> String {
    let mut what = match node.attribute("name").or_else(|| node.attribute("ref")) {
        Some(n) => format!("{} \"{n}\"", local(node)),
        None => {
            let at = node.document().text_pos_at(node.range().start);
            format!("{} (line {}, column {})", local(node), at.row, at.col)
        }
    };
    // Name the nearest named ancestor too, for an inline construct.
    if let Some(owner) = node.ancestors().skip(1).find(|a| a.attribute("name").is_some() && a.is_element()) {
        what = format!("{what} in {} \"{}\"", local(owner), owner.attribute("name").unwrap_or_default());
    }
    what
}

fn occurs(node: Node, attr: &str) -> Result<u32, String> {
    match node.attribute(attr) {
        None => Ok(1),
        Some("unbounded") if attr == "maxOccurs" => Ok(UNBOUNDED),
        Some(v) => v.trim().parse::<u32>().map_err(|_| format!("{attr}=\"{v}\" is not a count")),
    }
}

impl<'a, 'i> Loader<'a, 'i> {
    fn err(&self, decl: Decl, message: impl Into<String>) -> LoadError {
        self.err_at(decl.file, decl.node, message)
    }

    fn err_at(&self, file: usize, node: Node, message: impl Into<String>) -> LoadError {
        LoadError {
            file: self.files.get(file).map(|(n, _)| n.clone()).unwrap_or_default(),
            construct: describe(node),
            message: message.into(),
        }
    }

    /// Records every top-level declaration of a file, giving each named type an id.
    fn collect(&mut self, file: usize, doc: &'a Document<'i>, names: &HashSet<&str>) -> R<()> {
        let schema = doc.root_element();
        if schema.tag_name().namespace() != Some(XS) || local(schema) != "schema" {
            return Err(self.err_at(file, schema, "the document is not an xs:schema"));
        }
        match schema.attribute("targetNamespace") {
            None | Some(OTA_NS) => {}
            Some(other) => {
                return Err(self.err_at(file, schema, format!("targetNamespace \"{other}\" is not OpenTravel's")));
            }
        }
        for node in xs_children(schema) {
            let decl = Decl { file, node };
            if node.tag_name().namespace() != Some(XS) {
                return Err(self.err(decl, "not an XML Schema construct"));
            }
            let name = node.attribute("name").map(str::to_string);
            match (local(node), name) {
                ("include", _) => {
                    let location = node.attribute("schemaLocation").unwrap_or_default();
                    if !names.contains(location) {
                        return Err(self.err(decl, format!("includes \"{location}\", which is not in the folder")));
                    }
                }
                ("complexType", Some(name)) => {
                    self.check_unique_type(decl, &name)?;
                    let id = self.new_complex(Some(name.clone()), decl);
                    self.complex_names.insert(name, id);
                }
                ("simpleType", Some(name)) => {
                    self.check_unique_type(decl, &name)?;
                    let id = self.new_simple(Some(name.clone()), decl);
                    self.simple_names.insert(name, id);
                }
                ("attributeGroup", Some(name)) => {
                    if self.groups.insert(name, decl).is_some() {
                        return Err(self.err(decl, "declared twice"));
                    }
                }
                ("element", Some(name)) => {
                    if self.elements.insert(name, decl).is_some() {
                        return Err(self.err(decl, "declared twice"));
                    }
                }
                (other @ ("complexType" | "simpleType" | "attributeGroup" | "element"), None) => {
                    return Err(self.err(decl, format!("a top-level {other} without a name")));
                }
                (other, _) => {
                    return Err(self.err(decl, format!("xs:{other} is not supported at the top level")));
                }
            }
        }
        Ok(())
    }

    fn check_unique_type(&self, decl: Decl, name: &str) -> R<()> {
        if self.complex_names.contains_key(name) || self.simple_names.contains_key(name) {
            return Err(self.err(decl, "a type of this name is declared twice"));
        }
        Ok(())
    }

    fn new_complex(&mut self, name: Option<String>, decl: Decl<'a, 'i>) -> ComplexId {
        let id = ComplexId(self.complexes.len());
        self.complexes.push(Complex {
            name,
            attributes: Vec::new(),
            any_attribute: false,
            content: Content::Empty,
            mixed: false,
        });
        self.complex_state.push(State::Pending(decl));
        id
    }

    fn new_simple(&mut self, name: Option<String>, decl: Decl<'a, 'i>) -> SimpleId {
        let id = SimpleId(self.simples.len());
        self.simples.push(Simple {
            name,
            builtin: "anySimpleType".to_string(),
            facets: Facets::default(),
            variety: Variety::Atomic,
        });
        self.simple_state.push(State::Pending(decl));
        id
    }

    /// The id of a built-in simple type, made on first use.
    fn builtin(&mut self, decl: Decl, name: &str) -> R<SimpleId> {
        let key = format!("xs:{name}");
        if let Some(id) = self.simple_names.get(&key) {
            return Ok(*id);
        }
        if !BUILTINS.contains(&name) {
            return Err(self.err(decl, format!("xs:{name} is not a built-in simple type")));
        }
        let id = SimpleId(self.simples.len());
        self.simples.push(Simple {
            name: Some(key.clone()),
            builtin: name.to_string(),
            facets: Facets::default(),
            variety: Variety::Atomic,
        });
        self.simple_state.push(State::Done);
        self.simple_names.insert(key, id);
        Ok(id)
    }

    /// The built-in `xs:anyType`: mixed, any elements, any attributes.
    fn any_type(&mut self) -> ComplexId {
        if let Some(id) = self.complex_names.get("xs:anyType") {
            return *id;
        }
        let id = ComplexId(self.complexes.len());
        self.complexes.push(Complex {
            name: Some("xs:anyType".to_string()),
            attributes: Vec::new(),
            any_attribute: true,
            content: Content::Elements(Particle::Sequence {
                min: 1,
                max: 1,
                items: vec![Particle::Any { min: 0, max: UNBOUNDED }],
            }),
            mixed: true,
        });
        self.complex_state.push(State::Done);
        self.complex_names.insert("xs:anyType".to_string(), id);
        id
    }

    fn qref<'v>(&self, decl: Decl, value: &'v str) -> R<QRef<'v>> {
        let (prefix, name) = match value.split_once(':') {
            Some((p, n)) => (Some(p), n),
            None => (None, value),
        };
        match decl.node.lookup_namespace_uri(prefix) {
            Some(XS) => Ok(QRef::Xs(name)),
            Some(OTA_NS) => Ok(QRef::Ota(name)),
            None if prefix.is_none() => Ok(QRef::Ota(name)),
            Some(other) => Err(self.err(decl, format!("\"{value}\" is in namespace \"{other}\""))),
            None => Err(self.err(decl, format!("the prefix of \"{value}\" is not declared"))),
        }
    }

    /// The type a `type=`, `base=`, `itemType=` or `memberTypes` name refers to.
    fn type_named(&mut self, decl: Decl, value: &str) -> R<TypeRef> {
        match self.qref(decl, value)? {
            QRef::Xs("anyType") => Ok(TypeRef::Complex(self.any_type())),
            QRef::Xs(name) => Ok(TypeRef::Simple(self.builtin(decl, name)?)),
            QRef::Ota(name) => {
                if let Some(id) = self.simple_names.get(name) {
                    Ok(TypeRef::Simple(*id))
                } else if let Some(id) = self.complex_names.get(name) {
                    Ok(TypeRef::Complex(*id))
                } else {
                    Err(self.err(decl, format!("the type \"{name}\" is not declared")))
                }
            }
        }
    }

    fn simple_named(&mut self, decl: Decl, value: &str) -> R<SimpleId> {
        match self.type_named(decl, value)? {
            TypeRef::Simple(id) => Ok(id),
            TypeRef::Complex(_) => {
                Err(self.err(decl, format!("\"{value}\" is a complex type, a simple one is needed")))
            }
        }
    }

    // -- elements ---------------------------------------------------------------------------

    fn resolve_roots(&mut self) -> R<()> {
        let mut names: Vec<String> = self.elements.keys().cloned().collect();
        names.sort();
        for name in names {
            let decl = self.elements[&name];
            let ty = self.element_type(decl)?;
            self.roots.insert(name.clone(), Element { name, ty, min: 1, max: 1 });
        }
        Ok(())
    }

    /// The type of an element declaration: named, inline, or `xs:anyType` when it has neither.
    fn element_type(&mut self, decl: Decl<'a, 'i>) -> R<TypeRef> {
        let inline: Vec<Node<'a, 'i>> = xs_children(decl.node).collect();
        if let Some(ty) = decl.node.attribute("type") {
            if !inline.is_empty() {
                return Err(self.err(decl, "both a type attribute and an inline type"));
            }
            return self.type_named(decl, ty);
        }
        match inline.as_slice() {
            [] => Ok(TypeRef::Complex(self.any_type())),
            [node] if local(*node) == "complexType" => {
                Ok(TypeRef::Complex(self.new_complex(None, Decl { file: decl.file, node: *node })))
            }
            [node] if local(*node) == "simpleType" => {
                Ok(TypeRef::Simple(self.new_simple(None, Decl { file: decl.file, node: *node })))
            }
            _ => Err(self.err(decl, "xs:key, xs:unique and xs:keyref are not supported")),
        }
    }

    fn particle(&mut self, decl: Decl<'a, 'i>) -> R<Particle> {
        let node = decl.node;
        let (min, max) = match (occurs(node, "minOccurs"), occurs(node, "maxOccurs")) {
            (Ok(min), Ok(max)) if min <= max => (min, max),
            (Ok(_), Ok(_)) => return Err(self.err(decl, "minOccurs is above maxOccurs")),
            (Err(e), _) | (_, Err(e)) => return Err(self.err(decl, e)),
        };
        match local(node) {
            "element" => {
                if let Some(reference) = node.attribute("ref") {
                    let QRef::Ota(name) = self.qref(decl, reference)? else {
                        return Err(self.err(decl, "a reference to an element outside OpenTravel's namespace"));
                    };
                    let Some(top) = self.roots.get(name) else {
                        return Err(self.err(decl, format!("the element \"{name}\" is not declared")));
                    };
                    return Ok(Particle::Element(Element { name: top.name.clone(), ty: top.ty, min, max }));
                }
                let Some(name) = node.attribute("name") else {
                    return Err(self.err(decl, "an element with neither name nor ref"));
                };
                let ty = self.element_type(decl)?;
                Ok(Particle::Element(Element { name: name.to_string(), ty, min, max }))
            }
            "sequence" | "choice" => {
                let mut items = Vec::new();
                for child in xs_children(node) {
                    items.push(self.particle(Decl { file: decl.file, node: child })?);
                }
                Ok(if local(node) == "sequence" {
                    Particle::Sequence { min, max, items }
                } else {
                    Particle::Choice { min, max, items }
                })
            }
            "any" => Ok(Particle::Any { min, max }),
            "group" | "all" => Err(self.err(decl, format!("xs:{} is not supported", local(node)))),
            other => Err(self.err(decl, format!("xs:{other} is not allowed in a content model"))),
        }
    }

    // -- attributes -------------------------------------------------------------------------

    fn attribute(&mut self, decl: Decl<'a, 'i>) -> R<AttrDecl> {
        let node = decl.node;
        if node.attribute("ref").is_some() {
            return Err(self.err(decl, "attribute references are not supported"));
        }
        let Some(name) = node.attribute("name") else {
            return Err(self.err(decl, "an attribute without a name"));
        };
        let inline: Vec<Node<'a, 'i>> = xs_children(node).collect();
        let ty = match (node.attribute("type"), inline.as_slice()) {
            (Some(ty), []) => self.simple_named(decl, ty)?,
            (None, []) => self.builtin(decl, "anySimpleType")?,
            (None, [n]) if local(*n) == "simpleType" => self.new_simple(None, Decl { file: decl.file, node: *n }),
            _ => return Err(self.err(decl, "an attribute has one type: a type attribute or an inline simpleType")),
        };
        let (required, prohibited) = match node.attribute("use") {
            None | Some("optional") => (false, false),
            Some("required") => (true, false),
            Some("prohibited") => (false, true),
            Some(other) => return Err(self.err(decl, format!("use=\"{other}\" is not an attribute use"))),
        };
        Ok(AttrDecl { attribute: Attribute { name: name.to_string(), ty, required }, prohibited })
    }

    /// The attributes of a named attribute group (nested groups included) and whether it has
    /// an `xs:anyAttribute`.
    fn attribute_group(&mut self, name: &str, at: Option<Decl>) -> R<(Vec<AttrDecl>, bool)> {
        if let Some(done) = self.group_cache.get(name) {
            return Ok(done.clone());
        }
        let Some(decl) = self.groups.get(name).copied() else {
            return Err(match at {
                Some(at) => self.err(at, format!("the attribute group \"{name}\" is not declared")),
                None => LoadError {
                    file: String::new(),
                    construct: format!("attributeGroup \"{name}\""),
                    message: "not declared".to_string(),
                },
            });
        };
        if !self.groups_in_progress.insert(name.to_string()) {
            return Err(self.err(decl, "the attribute group refers to itself"));
        }
        let mut attributes = Vec::new();
        let mut any = false;
        for child in xs_children(decl.node) {
            let child_decl = Decl { file: decl.file, node: child };
            match local(child) {
                "attribute" => attributes.push(self.attribute(child_decl)?),
                "attributeGroup" => {
                    let (more, more_any) = self.group_ref(child_decl)?;
                    attributes.extend(more);
                    any |= more_any;
                }
                "anyAttribute" => any = true,
                other => return Err(self.err(child_decl, format!("xs:{other} is not allowed in an attribute group"))),
            }
        }
        self.groups_in_progress.remove(name);
        self.group_cache.insert(name.to_string(), (attributes.clone(), any));
        Ok((attributes, any))
    }

    fn group_ref(&mut self, decl: Decl<'a, 'i>) -> R<(Vec<AttrDecl>, bool)> {
        let Some(reference) = decl.node.attribute("ref") else {
            return Err(self.err(decl, "a local attribute group needs ref="));
        };
        let QRef::Ota(name) = self.qref(decl, reference)? else {
            return Err(self.err(decl, "an attribute group outside OpenTravel's namespace"));
        };
        self.attribute_group(name, Some(decl))
    }

    // -- complex types ----------------------------------------------------------------------

    /// The particle, attributes and wildcard a complexType, extension or restriction states
    /// itself (`skip_facets`: facets of a simpleContent restriction are read elsewhere).
    fn body(&mut self, decl: Decl<'a, 'i>, skip_facets: bool) -> R<Body> {
        let mut body = Body { particle: None, attributes: Vec::new(), any_attribute: false };
        for child in xs_children(decl.node) {
            let child_decl = Decl { file: decl.file, node: child };
            match local(child) {
                "sequence" | "choice" | "group" | "all" => {
                    if body.particle.is_some() {
                        return Err(self.err(child_decl, "a second content model"));
                    }
                    body.particle = Some(self.particle(child_decl)?);
                }
                "attribute" => {
                    let a = self.attribute(child_decl)?;
                    body.attributes.push(a);
                }
                "attributeGroup" => {
                    let (more, any) = self.group_ref(child_decl)?;
                    body.attributes.extend(more);
                    body.any_attribute |= any;
                }
                "anyAttribute" => body.any_attribute = true,
                "simpleType" if skip_facets => {}
                _ if skip_facets && is_facet(local(child)) => {}
                other => return Err(self.err(child_decl, format!("xs:{other} is not allowed here"))),
            }
        }
        Ok(body)
    }

    fn resolve_complex(&mut self, id: ComplexId) -> R<()> {
        let Some(decl) = start(&mut self.complex_state[id.0], "complexType", self.complexes[id.0].name.as_deref())?
        else {
            return Ok(());
        };
        let built = self.build_complex(decl)?;
        let name = self.complexes[id.0].name.take();
        self.complexes[id.0] = Complex { name, ..built };
        self.complex_state[id.0] = State::Done;
        Ok(())
    }

    fn build_complex(&mut self, decl: Decl<'a, 'i>) -> R<Complex> {
        let node = decl.node;
        let mixed_attr = |n: Node| n.attribute("mixed") == Some("true");
        let derivation = xs_children(node).find(|c| matches!(local(*c), "complexContent" | "simpleContent"));
        let Some(derivation) = derivation else {
            let body = self.body(decl, false)?;
            return Ok(Complex {
                name: None,
                attributes: merge(Vec::new(), body.attributes),
                any_attribute: body.any_attribute,
                content: body.particle.map_or(Content::Empty, Content::Elements),
                mixed: mixed_attr(node),
            });
        };
        if xs_children(node).count() != 1 {
            return Err(self.err(decl, "complexContent or simpleContent must be the type's only content"));
        }
        let deriv_decl = Decl { file: decl.file, node: derivation };
        let steps: Vec<Node<'a, 'i>> = xs_children(derivation).collect();
        let [step] = steps.as_slice() else {
            return Err(self.err(deriv_decl, "one xs:extension or xs:restriction is needed"));
        };
        let step_decl = Decl { file: decl.file, node: *step };
        let Some(base_name) = step.attribute("base") else {
            return Err(self.err(step_decl, "a derivation without a base"));
        };
        let base = self.type_named(step_decl, base_name)?;
        let extension = match local(*step) {
            "extension" => true,
            "restriction" => false,
            other => return Err(self.err(step_decl, format!("xs:{other} is not a derivation"))),
        };
        if local(derivation) == "complexContent" {
            let TypeRef::Complex(base) = base else {
                return Err(self.err(step_decl, "complexContent derives from a complex type"));
            };
            self.resolve_complex(base)?;
            let base = self.complexes[base.0].clone();
            let body = self.body(step_decl, false)?;
            let own_mixed = mixed_attr(node) || mixed_attr(derivation);
            if extension {
                let content = match (base.content, body.particle) {
                    // Attributes only, over a type with simple content: the same text.
                    (Content::Text(t), None) => Content::Text(t),
                    (Content::Text(_), Some(_)) => {
                        return Err(self.err(step_decl, "elements cannot extend a type with simple content"));
                    }
                    (Content::Elements(b), Some(p)) => {
                        Content::Elements(Particle::Sequence { min: 1, max: 1, items: vec![b, p] })
                    }
                    (Content::Elements(b), None) => Content::Elements(b),
                    (Content::Empty, Some(p)) => Content::Elements(p),
                    (Content::Empty, None) => Content::Empty,
                };
                let mixed = if own_mixed { true } else { base.mixed && matches!(content, Content::Elements(_)) };
                Ok(Complex {
                    name: None,
                    attributes: merge(base.attributes, body.attributes),
                    any_attribute: base.any_attribute || body.any_attribute,
                    content,
                    mixed,
                })
            } else {
                Ok(Complex {
                    name: None,
                    attributes: merge(base.attributes, body.attributes),
                    any_attribute: body.any_attribute,
                    content: body.particle.map_or(Content::Empty, Content::Elements),
                    mixed: own_mixed,
                })
            }
        } else {
            // simpleContent: over a simple type, or a complex type with simple content.
            let (text, base_attributes, base_any) = match base {
                TypeRef::Simple(s) => (s, Vec::new(), false),
                TypeRef::Complex(c) => {
                    self.resolve_complex(c)?;
                    let base = &self.complexes[c.0];
                    let Content::Text(s) = base.content else {
                        return Err(self.err(step_decl, "simpleContent derives from a type with simple content"));
                    };
                    (s, base.attributes.clone(), base.any_attribute)
                }
            };
            let body = self.body(step_decl, !extension)?;
            if body.particle.is_some() {
                return Err(self.err(step_decl, "simpleContent has no content model"));
            }
            let text = if extension {
                text
            } else {
                // The restriction's facets narrow the base's text type (or an inline one).
                let inline = xs_children(*step).find(|c| local(*c) == "simpleType");
                let start = match inline {
                    Some(n) => self.new_simple(None, Decl { file: decl.file, node: n }),
                    None => text,
                };
                self.resolve_simple(start)?;
                let mut derived = self.simples[start.0].clone();
                derived.name = None;
                self.apply_facets(step_decl, &mut derived)?;
                let id = SimpleId(self.simples.len());
                self.simples.push(derived);
                self.simple_state.push(State::Done);
                id
            };
            Ok(Complex {
                name: None,
                attributes: merge(base_attributes, body.attributes),
                any_attribute: if extension { base_any || body.any_attribute } else { body.any_attribute },
                content: Content::Text(text),
                mixed: false,
            })
        }
    }

    // -- simple types -----------------------------------------------------------------------

    fn resolve_simple(&mut self, id: SimpleId) -> R<()> {
        let Some(decl) = start(&mut self.simple_state[id.0], "simpleType", self.simples[id.0].name.as_deref())? else {
            return Ok(());
        };
        let built = self.build_simple(decl)?;
        let name = self.simples[id.0].name.take();
        self.simples[id.0] = Simple { name, ..built };
        self.simple_state[id.0] = State::Done;
        Ok(())
    }

    fn build_simple(&mut self, decl: Decl<'a, 'i>) -> R<Simple> {
        let steps: Vec<Node<'a, 'i>> = xs_children(decl.node).collect();
        let [step] = steps.as_slice() else {
            return Err(self.err(decl, "a simpleType has one xs:restriction, xs:list or xs:union"));
        };
        let step_decl = Decl { file: decl.file, node: *step };
        match local(*step) {
            "restriction" => {
                let inline = xs_children(*step).find(|c| local(*c) == "simpleType");
                let base = match (step.attribute("base"), inline) {
                    (Some(b), None) => self.simple_named(step_decl, b)?,
                    (None, Some(n)) => self.new_simple(None, Decl { file: decl.file, node: n }),
                    _ => return Err(self.err(step_decl, "a restriction has a base or an inline simpleType")),
                };
                self.resolve_simple(base)?;
                let mut simple = self.simples[base.0].clone();
                simple.name = None;
                self.apply_facets(step_decl, &mut simple)?;
                Ok(simple)
            }
            "list" => {
                let inline = xs_children(*step).find(|c| local(*c) == "simpleType");
                let item = match (step.attribute("itemType"), inline) {
                    (Some(t), None) => self.simple_named(step_decl, t)?,
                    (None, Some(n)) => self.new_simple(None, Decl { file: decl.file, node: n }),
                    _ => return Err(self.err(step_decl, "a list has an itemType or an inline simpleType")),
                };
                Ok(Simple {
                    name: None,
                    builtin: "anySimpleType".to_string(),
                    facets: Facets::default(),
                    variety: Variety::List(item),
                })
            }
            "union" => {
                let mut members = Vec::new();
                for name in step.attribute("memberTypes").unwrap_or_default().split_whitespace() {
                    members.push(self.simple_named(step_decl, name)?);
                }
                for child in xs_children(*step) {
                    let child_decl = Decl { file: decl.file, node: child };
                    if local(child) != "simpleType" {
                        return Err(self.err(child_decl, "a union holds simple types only"));
                    }
                    members.push(self.new_simple(None, child_decl));
                }
                if members.is_empty() {
                    return Err(self.err(step_decl, "a union without members"));
                }
                Ok(Simple {
                    name: None,
                    builtin: "anySimpleType".to_string(),
                    facets: Facets::default(),
                    variety: Variety::Union(members),
                })
            }
            other => Err(self.err(step_decl, format!("xs:{other} does not define a simple type"))),
        }
    }

    /// Adds the facets of a restriction node to a copy of its base.
    fn apply_facets(&self, decl: Decl, simple: &mut Simple) -> R<()> {
        let mut enumerations = Vec::new();
        let mut patterns = Vec::new();
        for child in xs_children(decl.node) {
            let name = local(child);
            if !is_facet(name) {
                continue;
            }
            let child_decl = Decl { file: decl.file, node: child };
            let Some(value) = child.attribute("value") else {
                return Err(self.err(child_decl, "a facet without a value"));
            };
            let count = |v: &str| v.trim().parse::<u64>().map_err(|_| self.err(child_decl, "not a count"));
            let f = &mut simple.facets;
            match name {
                "enumeration" => enumerations.push(value.to_string()),
                "pattern" => patterns.push(value.to_string()),
                "length" => f.length = Some(count(value)?),
                "minLength" => f.min_length = Some(count(value)?),
                "maxLength" => f.max_length = Some(count(value)?),
                "minInclusive" => f.min_inclusive = Some(value.trim().to_string()),
                "maxInclusive" => f.max_inclusive = Some(value.trim().to_string()),
                "minExclusive" => f.min_exclusive = Some(value.trim().to_string()),
                "maxExclusive" => f.max_exclusive = Some(value.trim().to_string()),
                "fractionDigits" => f.fraction_digits = Some(count(value)? as u32),
                "totalDigits" => f.total_digits = Some(count(value)? as u32),
                _ => return Err(self.err(child_decl, format!("xs:{name} is not supported"))),
            }
        }
        if !enumerations.is_empty() {
            simple.facets.enumerations = enumerations;
        }
        match patterns.len() {
            0 => {}
            1 => simple.facets.patterns.extend(patterns),
            _ => simple.facets.patterns.push(patterns.iter().map(|p| format!("({p})")).collect::<Vec<_>>().join("|")),
        }
        Ok(())
    }
}

fn is_facet(name: &str) -> bool {
    matches!(
        name,
        "enumeration"
            | "pattern"
            | "length"
            | "minLength"
            | "maxLength"
            | "minInclusive"
            | "maxInclusive"
            | "minExclusive"
            | "maxExclusive"
            | "fractionDigits"
            | "totalDigits"
            | "whiteSpace"
    )
}

/// A base's attributes with a derivation's own: a redeclared one replaces the base's, a
/// prohibited one removes it.
fn merge(base: Vec<Attribute>, own: Vec<AttrDecl>) -> Vec<Attribute> {
    let mut out = base;
    for decl in own {
        out.retain(|a| a.name != decl.attribute.name);
        if !decl.prohibited {
            out.push(decl.attribute);
        }
    }
    out
}
