//! Stage 1, **parse**: read one XSD file with roxmltree into a syntax tree that keeps spans.
//!
//! This stage knows the XSD subset the generator supports (see `spec/README.md`). Anything
//! outside it — an unknown `xs:` element, an unsupported attribute such as `default` or `ref` —
//! is reported as an error naming the construct; nothing is skipped silently. Names are not
//! resolved here: that is the job of [`crate::lower`].

use roxmltree::{Document, Node, ParsingOptions};

use crate::diagnostics::{Diagnostics, FileId, Span};

/// The XML Schema namespace.
pub const XS: &str = "http://www.w3.org/2001/XMLSchema";
/// The namespace of the generator's own `xs:appinfo` elements.
pub const GEN: &str = "urn:ota-codegen";
/// The OpenTravel namespace every message lives in.
pub const OTA: &str = "http://www.opentravel.org/OTA/2003/05";

/// A value with the span it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

/// A reference to a type by qualified name, e.g. `xs:string` or `CurrencyCode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QName {
    /// The namespace the prefix resolved to (None when unprefixed and no default namespace).
    pub namespace: Option<String>,
    /// The local part.
    pub local: String,
    /// Where the reference was written.
    pub span: Span,
}

impl QName {
    /// True for a built-in XML Schema type.
    pub fn is_xs(&self) -> bool {
        self.namespace.as_deref() == Some(XS)
    }
}

/// `xs:documentation` and `xs:appinfo` of one declaration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotation {
    /// The documentation text, whitespace-normalised per paragraph.
    pub doc: Option<String>,
    /// `<gen:message version=".." path=".."/>` on a root element.
    pub message: Option<MessageInfo>,
    /// `<gen:variant name=".."/>` on an enumeration value.
    pub variant: Option<Spanned<String>>,
    /// `<gen:also name=".."/>` on an attribute or element: another name decoders take for it;
    /// on an enumeration value, another value that means it.
    pub also: Vec<Spanned<String>>,
    /// `<gen:written dialect=".." name=".."/>`, `omit="true"` or `empty-when-absent="true"`: how
    /// a dialect writes the attribute or element.
    pub written: Vec<WrittenDecl>,
    /// `<gen:text-list written=".."/>` on a complex type of one repeated element with one
    /// attribute: it is also taken as that attribute's values, listed as text.
    pub text_list: Option<TextListDecl>,
    /// `<gen:text dialect=".." attribute=".."/>` or `value=".."` on a complex type: how a
    /// dialect writes the element's text (as an attribute), or the text it writes in an
    /// element of no content.
    pub texts: Vec<TextDecl>,
    /// `<gen:dialect name=".." doc=".."/>` in a schema's own annotation: a dialect of the spec.
    pub dialects: Vec<DialectDecl>,
    /// `<gen:personal/>` (optionally `mask=".."`) on an attribute or element: its value is
    /// personal data (a guest's name, birth date, …), masked in the gateway's transaction log.
    pub personal: Option<PersonalDecl>,
    /// `<gen:version dialect=".." value=".."/>` on a message root: the `Version` that dialect
    /// writes instead of the service's.
    pub versions: Vec<VersionDecl>,
}

/// `<gen:personal/>`: the value of an attribute or element is personal data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonalDecl {
    /// `mask=".."`: what a masked value is replaced with (default: by the value's built-in
    /// type, see the `personal` pass).
    pub mask: Option<Spanned<String>>,
    /// Where it was written.
    pub span: Span,
}

/// The message version one dialect writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDecl {
    /// The dialect.
    pub dialect: Spanned<String>,
    /// The version it writes.
    pub value: Spanned<String>,
}

/// How one dialect writes an attribute or element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenDecl {
    /// The dialect.
    pub dialect: Spanned<String>,
    /// The name it writes instead, if any.
    pub name: Option<Spanned<String>>,
    /// True when the dialect does not write it at all.
    pub omit: bool,
    /// True when the dialect writes an empty element when it is absent
    /// (`empty-when-absent="true"`: an optional element the dialect requires).
    pub empty_when_absent: bool,
    /// The declaration.
    pub span: Span,
}

/// `gen:text`: how one dialect writes an element's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextDecl {
    /// The dialect.
    pub dialect: Spanned<String>,
    /// What it writes.
    pub form: TextFormDecl,
    /// The declaration.
    pub span: Span,
}

/// What a dialect writes for an element's text (`gen:text`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextFormDecl {
    /// `attribute=".."`: the text as this attribute (the element then has no text).
    Attribute(Spanned<String>),
    /// `value=".."`: this text, in an element that has none in the default dialect.
    Value(Spanned<String>),
}

/// `gen:text-list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextListDecl {
    /// The dialects that write the list as text (the others write the elements).
    pub written: Vec<Spanned<String>>,
    /// The declaration.
    pub span: Span,
}

/// A dialect of the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectDecl {
    /// Its name (`service`, `ota2016b`).
    pub name: Spanned<String>,
    /// What it is.
    pub doc: String,
}

/// The operation metadata of a root element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageInfo {
    /// The `Version` the service expects.
    pub version: Spanned<String>,
    /// The endpoint path, when the message is a request with an endpoint.
    pub path: Option<Spanned<String>>,
    /// The root element of the response to this request.
    pub response: Option<Spanned<String>>,
    /// Who sends the request (`demand`, `supply` or `outbound`).
    pub side: Option<Spanned<String>>,
}

/// One parsed schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFile {
    /// The file.
    pub file: FileId,
    /// Schema-level documentation.
    pub doc: Option<String>,
    /// The dialects the schema declares (`gen:dialect`; in `common.xsd`).
    pub dialects: Vec<DialectDecl>,
    /// `xs:include` locations.
    pub includes: Vec<Spanned<String>>,
    /// Top-level declarations in file order.
    pub items: Vec<Item>,
}

/// A top-level declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A global element (a message root).
    Element(ElementDecl),
    /// A named complex type.
    ComplexType(ComplexTypeDecl),
    /// A named simple type.
    SimpleType(SimpleTypeDecl),
    /// A named attribute group.
    AttributeGroup(AttributeGroupDecl),
}

/// Maximum occurrences of a particle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MaxOccurs {
    /// At most this many.
    Bounded(u32),
    /// `unbounded`.
    Unbounded,
}

/// An `xs:element`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementDecl {
    /// The element name.
    pub name: Spanned<String>,
    /// Its type.
    pub ty: TypeUse,
    /// `minOccurs`.
    pub min: u32,
    /// `maxOccurs`.
    pub max: MaxOccurs,
    /// Documentation and appinfo.
    pub ann: Annotation,
    /// The whole declaration.
    pub span: Span,
}

/// How an element gets its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeUse {
    /// `type="..."`.
    Named(QName),
    /// An anonymous `xs:complexType` child.
    Complex(Box<ComplexTypeDecl>),
    /// An anonymous `xs:simpleType` child.
    Simple(Box<SimpleTypeDecl>),
}

/// An `xs:complexType`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComplexTypeDecl {
    /// The name, for a top-level type.
    pub name: Option<Spanned<String>>,
    /// Documentation.
    pub ann: Annotation,
    /// Child content.
    pub content: ComplexContent,
    /// Attributes and attribute group references, in order.
    pub attributes: Vec<AttrUse>,
    /// The whole declaration.
    pub span: Span,
}

/// The content model of a complex type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComplexContent {
    /// No child elements and no text.
    Empty,
    /// An `xs:sequence` (an `xs:choice` as the whole content is a sequence of that one choice).
    Sequence(Vec<Particle>),
    /// `xs:simpleContent/xs:extension base=".."`: text plus attributes.
    Text(QName),
    /// `xs:sequence` of one `xs:any processContents="skip"` (any number of elements) with
    /// `xs:anyAttribute processContents="skip"`: content taken and not read.
    Skipped,
}

/// One member of a sequence.
#[allow(clippy::large_enum_variant)] // a short-lived syntax tree: boxing buys nothing
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Particle {
    /// A local element.
    Element(ElementDecl),
    /// An `xs:choice` of elements.
    Choice(ChoiceDecl),
}

/// An `xs:choice` of elements or element sequences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceDecl {
    /// `minOccurs` (0 or 1).
    pub min: u32,
    /// The alternatives: each a sequence of elements (a plain `xs:element` alternative is a
    /// sequence of one).
    pub branches: Vec<Vec<ElementDecl>>,
    /// The whole declaration.
    pub span: Span,
}

/// An attribute or a reference to an attribute group.
#[allow(clippy::large_enum_variant)] // a short-lived syntax tree: boxing buys nothing
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrUse {
    /// A local `xs:attribute`.
    Attribute(AttributeDecl),
    /// `xs:attributeGroup ref=".."`.
    GroupRef(QName),
}

/// An `xs:attribute`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeDecl {
    /// The attribute name.
    pub name: Spanned<String>,
    /// Its simple type.
    pub ty: SimpleTypeUse,
    /// `use="required"`.
    pub required: bool,
    /// Documentation.
    pub ann: Annotation,
    /// The whole declaration.
    pub span: Span,
}

/// How an attribute gets its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimpleTypeUse {
    /// `type=".."`.
    Named(QName),
    /// An anonymous `xs:simpleType` child.
    Inline(Box<SimpleTypeDecl>),
}

/// A named `xs:attributeGroup`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeGroupDecl {
    /// The group name.
    pub name: Spanned<String>,
    /// Documentation.
    pub ann: Annotation,
    /// Its attributes and nested group references.
    pub attributes: Vec<AttrUse>,
    /// The whole declaration.
    pub span: Span,
}

/// An `xs:simpleType`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleTypeDecl {
    /// The name, for a top-level type.
    pub name: Option<Spanned<String>>,
    /// Documentation.
    pub ann: Annotation,
    /// Restriction or union.
    pub def: SimpleDef,
    /// The whole declaration.
    pub span: Span,
}

/// The definition of a simple type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimpleDef {
    /// `xs:restriction base=".."` with facets.
    Restriction {
        /// The base type.
        base: QName,
        /// The facets, in order.
        facets: Vec<FacetDecl>,
    },
    /// `xs:union memberTypes=".."`.
    Union {
        /// The member types, in order.
        members: Vec<QName>,
    },
}

/// The kind of a constraining facet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FacetKind {
    /// `xs:enumeration`.
    Enumeration,
    /// `xs:pattern`.
    Pattern,
    /// `xs:length`.
    Length,
    /// `xs:minLength`.
    MinLength,
    /// `xs:maxLength`.
    MaxLength,
    /// `xs:minInclusive`.
    MinInclusive,
    /// `xs:maxInclusive`.
    MaxInclusive,
}

/// One facet of a restriction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetDecl {
    /// Which facet.
    pub kind: FacetKind,
    /// Its `value`.
    pub value: Spanned<String>,
    /// Documentation and `gen:variant` (enumerations only).
    pub ann: Annotation,
}

/// Parses one schema file. Problems go to `diags`; the returned tree holds whatever could be read.
pub fn parse_file(file: FileId, text: &str, diags: &mut Diagnostics) -> Option<SchemaFile> {
    let opts = ParsingOptions { allow_dtd: false, ..ParsingOptions::default() };
    let doc = match Document::parse_with_options(text, opts) {
        Ok(doc) => doc,
        Err(e) => {
            let pos = e.pos();
            let offset = offset_of(text, pos.row as usize, pos.col as usize);
            diags.error(Span::new(file, offset..offset), format!("malformed XML: {e}"));
            return None;
        }
    };
    let p = Parser { file, diags };
    p.schema(doc.root_element())
}

/// Byte offset of a 1-based row/column (columns count characters).
fn offset_of(text: &str, row: usize, col: usize) -> usize {
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == row {
            let in_line: usize = line.chars().take(col.saturating_sub(1)).map(char::len_utf8).sum();
            return offset + in_line;
        }
        offset += line.len();
    }
    text.len()
}

struct Parser<'d> {
    file: FileId,
    diags: &'d mut Diagnostics,
}

/// The `xs:` local name of an element node, if it is one.
fn xs_name<'a>(node: Node<'a, '_>) -> Option<&'a str> {
    (node.tag_name().namespace() == Some(XS)).then(|| node.tag_name().name())
}

impl Parser<'_> {
    fn span(&self, node: Node) -> Span {
        Span::new(self.file, node.range())
    }

    fn attr_span(&self, node: Node, name: &str) -> Span {
        node.attribute_node(name).map(|a| Span::new(self.file, a.range_value())).unwrap_or_else(|| self.span(node))
    }

    fn unsupported(&self, node: Node, context: &str) -> String {
        let name = match node.tag_name().namespace() {
            Some(XS) => format!("xs:{}", node.tag_name().name()),
            Some(ns) => format!("{{{ns}}}{}", node.tag_name().name()),
            None => node.tag_name().name().to_string(),
        };
        format!("unsupported XSD construct `{name}` in {context}")
    }

    /// Reports an element that the subset does not allow in `context`.
    fn reject(&mut self, node: Node, context: &str) {
        let msg = self.unsupported(node, context);
        let span = self.span(node);
        self.diags.error(span, msg);
    }

    /// Reports attributes other than `allowed` (namespace declarations are not attributes).
    fn check_attrs(&mut self, node: Node, allowed: &[&str]) {
        let element = node.tag_name().name().to_string();
        for a in node.attributes() {
            if a.namespace().is_some() || !allowed.contains(&a.name()) {
                let span = Span::new(self.file, a.range());
                self.diags.push(
                    crate::diagnostics::Diagnostic::error(
                        span,
                        format!("unsupported attribute `{}` on xs:{element}", a.name()),
                    )
                    .with_note(format!("supported here: {}", allowed.join(", "))),
                );
            }
        }
    }

    /// Element children, reporting stray text.
    fn children<'a, 'i>(&mut self, node: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
        let mut out = Vec::new();
        for c in node.children() {
            if c.is_element() {
                out.push(c);
            } else if let Some(t) = c.text().filter(|t| c.is_text() && !t.trim().is_empty()) {
                let start = c.range().start + (t.len() - t.trim_start().len());
                let span = Span::new(self.file, start..start + t.trim().len());
                self.diags.error(span, format!("unexpected text in xs:{}", node.tag_name().name()));
            }
        }
        out
    }

    fn required_attr(&mut self, node: Node, name: &str) -> Option<Spanned<String>> {
        match node.attribute(name) {
            Some(v) => Some(Spanned { value: v.to_string(), span: self.attr_span(node, name) }),
            None => {
                let span = self.span(node);
                self.diags.error(span, format!("xs:{} needs a `{name}` attribute", node.tag_name().name()));
                None
            }
        }
    }

    fn qname(&mut self, node: Node, attr: &str, value: &str) -> Option<QName> {
        let span = self.attr_span(node, attr);
        let (prefix, local) = match value.split_once(':') {
            Some((p, l)) => (Some(p), l),
            None => (None, value),
        };
        let namespace = node.lookup_namespace_uri(prefix).map(str::to_string);
        if prefix.is_some() && namespace.is_none() {
            self.diags.error(span, format!("unknown namespace prefix in `{value}`"));
            return None;
        }
        Some(QName { namespace, local: local.to_string(), span })
    }

    fn schema(mut self, node: Node) -> Option<SchemaFile> {
        if xs_name(node) != Some("schema") {
            let span = self.span(node);
            self.diags.error(span, "the root element of a spec file must be xs:schema");
            return None;
        }
        self.check_attrs(node, &["targetNamespace", "elementFormDefault", "attributeFormDefault", "version"]);
        match node.attribute("targetNamespace") {
            Some(OTA) => {}
            _ => {
                let span = self.span(node);
                self.diags.error(span, format!("xs:schema must have targetNamespace=\"{OTA}\""));
            }
        }
        if node.attribute("elementFormDefault") != Some("qualified") {
            let span = self.span(node);
            self.diags.error(span, "xs:schema must have elementFormDefault=\"qualified\"");
        }
        if node.attribute("attributeFormDefault").is_some_and(|v| v != "unqualified") {
            let span = self.attr_span(node, "attributeFormDefault");
            self.diags.error(span, "attributes must be unqualified (attributeFormDefault=\"unqualified\")");
        }
        let mut out =
            SchemaFile { file: self.file, doc: None, dialects: Vec::new(), includes: Vec::new(), items: Vec::new() };
        for (i, c) in self.children(node).into_iter().enumerate() {
            match xs_name(c) {
                Some("annotation") if i == 0 => {
                    let ann = self.annotation(c);
                    self.misplaced(&ann, "a schema", &["dialect"]);
                    out.doc = ann.doc;
                    out.dialects = ann.dialects;
                }
                Some("include") => {
                    self.check_attrs(c, &["schemaLocation"]);
                    if let Some(loc) = self.required_attr(c, "schemaLocation") {
                        out.includes.push(loc);
                    }
                }
                Some("element") => {
                    if let Some(e) = self.element(c, true) {
                        out.items.push(Item::Element(e));
                    }
                }
                Some("complexType") => {
                    if let Some(t) = self.complex_type(c, true) {
                        out.items.push(Item::ComplexType(t));
                    }
                }
                Some("simpleType") => {
                    if let Some(t) = self.simple_type(c, true) {
                        out.items.push(Item::SimpleType(t));
                    }
                }
                Some("attributeGroup") => {
                    if let Some(g) = self.attribute_group(c) {
                        out.items.push(Item::AttributeGroup(g));
                    }
                }
                _ => {
                    self.reject(c, "xs:schema");
                }
            }
        }
        Some(out)
    }

    /// Reads `xs:annotation`: documentation text and `gen:` appinfo.
    fn annotation(&mut self, node: Node) -> Annotation {
        self.check_attrs(node, &[]);
        let mut ann = Annotation::default();
        for c in self.children(node) {
            match xs_name(c) {
                Some("documentation") => {
                    self.check_attrs(c, &["source"]);
                    let text: String = c.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect();
                    let doc = normalize_doc(&text);
                    if !doc.is_empty() {
                        ann.doc = Some(match ann.doc.take() {
                            Some(prev) => format!("{prev}\n\n{doc}"),
                            None => doc,
                        });
                    }
                }
                Some("appinfo") => {
                    self.check_attrs(c, &["source"]);
                    for g in self.children(c) {
                        self.appinfo(g, &mut ann);
                    }
                }
                _ => {
                    self.reject(c, "xs:annotation");
                }
            }
        }
        ann
    }

    fn appinfo(&mut self, node: Node, ann: &mut Annotation) {
        let span = self.span(node);
        if node.tag_name().namespace() != Some(GEN) {
            self.diags.error(span, format!("xs:appinfo may only hold elements in the `{GEN}` namespace"));
            return;
        }
        match node.tag_name().name() {
            "message" => {
                self.check_attrs(node, &["version", "path", "response", "side"]);
                let version = self.required_attr(node, "version");
                let optional = |name: &str| {
                    node.attribute(name).map(|v| Spanned { value: v.to_string(), span: self.attr_span(node, name) })
                };
                let (path, response, side) = (optional("path"), optional("response"), optional("side"));
                if let Some(version) = version {
                    ann.message = Some(MessageInfo { version, path, response, side });
                }
            }
            "variant" => {
                self.check_attrs(node, &["name"]);
                ann.variant = self.required_attr(node, "name");
            }
            "also" => {
                self.check_attrs(node, &["name"]);
                ann.also.extend(self.required_attr(node, "name"));
            }
            "written" => {
                self.check_attrs(node, &["dialect", "name", "omit", "empty-when-absent"]);
                let Some(dialect) = self.required_attr(node, "dialect") else { return };
                let name = node
                    .attribute("name")
                    .map(|v| Spanned { value: v.to_string(), span: self.attr_span(node, "name") });
                let mut flag = |attr: &str| match node.attribute(attr) {
                    None | Some("false") => false,
                    Some("true") => true,
                    Some(other) => {
                        let span = self.attr_span(node, attr);
                        self.diags.error(span, format!("`{attr}` must be `true` or `false`, found `{other}`"));
                        false
                    }
                };
                let (omit, empty_when_absent) = (flag("omit"), flag("empty-when-absent"));
                if usize::from(name.is_some()) + usize::from(omit) + usize::from(empty_when_absent) != 1 {
                    self.diags.error(
                        span.clone(),
                        "gen:written takes one of `name`, `omit=\"true\"` and `empty-when-absent=\"true\"`",
                    );
                }
                ann.written.push(WrittenDecl { dialect, name, omit, empty_when_absent, span });
            }
            "text-list" => {
                self.check_attrs(node, &["written"]);
                let written = self.required_attr(node, "written").map(|w| {
                    w.value
                        .split_ascii_whitespace()
                        .map(|d| Spanned { value: d.to_string(), span: w.span.clone() })
                        .collect()
                });
                ann.text_list = Some(TextListDecl { written: written.unwrap_or_default(), span });
            }
            "text" => {
                self.check_attrs(node, &["dialect", "attribute", "value"]);
                let Some(dialect) = self.required_attr(node, "dialect") else { return };
                let given = |name: &str| {
                    node.attribute(name).map(|v| Spanned { value: v.to_string(), span: self.attr_span(node, name) })
                };
                let form = match (given("attribute"), given("value")) {
                    (Some(a), None) => TextFormDecl::Attribute(a),
                    (None, Some(v)) => TextFormDecl::Value(v),
                    _ => {
                        self.diags.error(span, "gen:text takes either `attribute` or `value`");
                        return;
                    }
                };
                ann.texts.push(TextDecl { dialect, form, span });
            }
            "version" => {
                self.check_attrs(node, &["dialect", "value"]);
                if let (Some(dialect), Some(value)) =
                    (self.required_attr(node, "dialect"), self.required_attr(node, "value"))
                {
                    ann.versions.push(VersionDecl { dialect, value });
                }
            }
            "personal" => {
                self.check_attrs(node, &["mask"]);
                let mask = node
                    .attribute("mask")
                    .map(|v| Spanned { value: v.to_string(), span: self.attr_span(node, "mask") });
                ann.personal = Some(PersonalDecl { mask, span });
            }
            "dialect" => {
                self.check_attrs(node, &["name", "doc"]);
                let doc = node.attribute("doc").map(normalize_doc).unwrap_or_default();
                if let Some(name) = self.required_attr(node, "name") {
                    ann.dialects.push(DialectDecl { name, doc });
                }
            }
            other => self.diags.error(span, format!("unknown appinfo element `gen:{other}`")),
        }
    }

    /// Reports each `gen:` form or dialect of `ann` that a declaration of this kind does not
    /// take (`takes`: the appinfo element names it does).
    fn misplaced(&mut self, ann: &Annotation, what: &str, takes: &[&str]) {
        let found = [
            ("also", ann.also.first().map(|a| a.span.clone())),
            ("written", ann.written.first().map(|w| w.span.clone())),
            ("text-list", ann.text_list.as_ref().map(|l| l.span.clone())),
            ("text", ann.texts.first().map(|t| t.span.clone())),
            ("dialect", ann.dialects.first().map(|d| d.name.span.clone())),
            ("version", ann.versions.first().map(|v| v.dialect.span.clone())),
            ("personal", ann.personal.as_ref().map(|p| p.span.clone())),
        ];
        for (name, span) in found {
            if let Some(span) = span
                && !takes.contains(&name)
            {
                self.diags.error(span, format!("gen:{name} does not apply to {what}"));
            }
        }
    }

    /// Splits off a leading annotation; returns it and the remaining element children. `takes`:
    /// the `gen:` forms the declaration may carry (see [`Self::misplaced`]).
    fn split_annotation<'a, 'i>(&mut self, node: Node<'a, 'i>, takes: &[&str]) -> (Annotation, Vec<Node<'a, 'i>>) {
        let mut kids = self.children(node);
        let ann = match kids.first() {
            Some(first) if xs_name(*first) == Some("annotation") => {
                let first = *first;
                kids.remove(0);
                let ann = self.annotation(first);
                let what = format!("xs:{}", xs_name(node).unwrap_or("?"));
                self.misplaced(&ann, &what, takes);
                ann
            }
            _ => Annotation::default(),
        };
        for k in &kids {
            if xs_name(*k) == Some("annotation") {
                let span = self.span(*k);
                self.diags.error(span, "xs:annotation must be the first child");
            }
        }
        (ann, kids)
    }

    fn occurs(&mut self, node: Node) -> (u32, MaxOccurs) {
        let min = match node.attribute("minOccurs") {
            None => 1,
            Some(v) => v.parse::<u32>().unwrap_or_else(|_| {
                let span = self.attr_span(node, "minOccurs");
                self.diags.error(span, format!("minOccurs must be a non-negative integer, found `{v}`"));
                1
            }),
        };
        let max = match node.attribute("maxOccurs") {
            None => MaxOccurs::Bounded(1),
            Some("unbounded") => MaxOccurs::Unbounded,
            Some(v) => match v.parse::<u32>() {
                Ok(n) if n >= 1 => MaxOccurs::Bounded(n),
                _ => {
                    let span = self.attr_span(node, "maxOccurs");
                    self.diags.error(span, format!("maxOccurs must be a positive integer or `unbounded`, found `{v}`"));
                    MaxOccurs::Bounded(1)
                }
            },
        };
        if let MaxOccurs::Bounded(m) = max
            && min > m
        {
            let span = self.span(node);
            self.diags.error(span, format!("minOccurs ({min}) is greater than maxOccurs ({m})"));
        }
        (min, max)
    }

    fn element(&mut self, node: Node, top_level: bool) -> Option<ElementDecl> {
        if top_level {
            self.check_attrs(node, &["name", "type"]);
        } else {
            self.check_attrs(node, &["name", "type", "minOccurs", "maxOccurs"]);
        }
        let name = self.required_attr(node, "name")?;
        let (min, max) = self.occurs(node);
        let takes: &[&str] = if top_level { &["version"] } else { &["also", "written", "personal"] };
        let (ann, kids) = self.split_annotation(node, takes);
        let mut inline: Option<TypeUse> = None;
        for c in kids {
            match xs_name(c) {
                Some("complexType") if inline.is_none() => {
                    inline = self.complex_type(c, false).map(|t| TypeUse::Complex(Box::new(t)));
                }
                Some("simpleType") if inline.is_none() => {
                    inline = self.simple_type(c, false).map(|t| TypeUse::Simple(Box::new(t)));
                }
                _ => {
                    self.reject(c, "xs:element");
                }
            }
        }
        let span = self.span(node);
        let ty = match (node.attribute("type"), inline) {
            (Some(t), None) => TypeUse::Named(self.qname(node, "type", t)?),
            (None, Some(inline)) => inline,
            (Some(_), Some(_)) => {
                self.diags.error(span, "an element has either a `type` attribute or an inline type, not both");
                return None;
            }
            (None, None) => {
                self.diags.error(span, format!("element `{}` has no type", name.value));
                return None;
            }
        };
        Some(ElementDecl { name, ty, min, max, ann, span })
    }

    fn complex_type(&mut self, node: Node, top_level: bool) -> Option<ComplexTypeDecl> {
        self.check_attrs(node, if top_level { &["name"] } else { &[] });
        let name = if top_level { Some(self.required_attr(node, "name")?) } else { None };
        let (ann, kids) = self.split_annotation(node, &["text-list", "text"]);
        let mut content = ComplexContent::Empty;
        let mut attributes = Vec::new();
        let mut seen_content = false;
        let mut any_attribute = None;
        for c in kids {
            match xs_name(c) {
                Some("sequence") if !seen_content && attributes.is_empty() && self.is_skipped_sequence(c) => {
                    seen_content = true;
                    content = ComplexContent::Skipped;
                }
                Some("anyAttribute")
                    if matches!(content, ComplexContent::Skipped)
                        && attributes.is_empty()
                        && any_attribute.is_none() =>
                {
                    self.check_attrs(c, &["processContents"]);
                    if c.attribute("processContents") != Some("skip") {
                        let span = self.span(c);
                        self.diags.error(span, "xs:anyAttribute needs processContents=\"skip\"");
                    }
                    any_attribute = Some(());
                }
                Some("sequence") if !seen_content && attributes.is_empty() => {
                    seen_content = true;
                    content = ComplexContent::Sequence(self.sequence(c));
                }
                Some("choice") if !seen_content && attributes.is_empty() => {
                    seen_content = true;
                    content = ComplexContent::Sequence(self.choice(c).map(Particle::Choice).into_iter().collect());
                }
                Some("simpleContent") if !seen_content && attributes.is_empty() => {
                    seen_content = true;
                    if let Some((base, attrs)) = self.simple_content(c) {
                        content = ComplexContent::Text(base);
                        attributes.extend(attrs);
                    }
                }
                Some("attribute") | Some("attributeGroup") if !matches!(content, ComplexContent::Text(_)) => {
                    if let Some(a) = self.attr_use(c) {
                        attributes.push(a);
                    }
                }
                _ => {
                    let msg = self.unsupported(c, "xs:complexType");
                    let span = self.span(c);
                    self.diags.push(crate::diagnostics::Diagnostic::error(span, msg).with_note(
                        "a complex type holds an xs:sequence, an xs:choice or an xs:simpleContent, then attributes",
                    ));
                }
            }
        }
        if matches!(content, ComplexContent::Skipped) && any_attribute.is_none() {
            let span = self.span(node);
            self.diags.error(span, "a type of skipped content (xs:any) also takes any attribute: add <xs:anyAttribute processContents=\"skip\"/>");
        }
        Some(ComplexTypeDecl { name, ann, content, attributes, span: self.span(node) })
    }

    /// True for `<xs:sequence><xs:any processContents="skip" minOccurs="0"
    /// maxOccurs="unbounded"/></xs:sequence>` (any elements, taken and not read); reports an
    /// `xs:any` of any other form. Other sequences are read by [`Self::sequence`].
    fn is_skipped_sequence(&mut self, node: Node) -> bool {
        let kids: Vec<Node> = node.children().filter(Node::is_element).collect();
        let [any] = kids.as_slice() else { return false };
        if xs_name(*any) != Some("any") {
            return false;
        }
        self.check_attrs(*any, &["processContents", "minOccurs", "maxOccurs"]);
        let shape = (any.attribute("processContents"), any.attribute("minOccurs"), any.attribute("maxOccurs"));
        if shape != (Some("skip"), Some("0"), Some("unbounded")) {
            let span = self.span(*any);
            self.diags.error(span, "xs:any is supported as <xs:any processContents=\"skip\" minOccurs=\"0\" maxOccurs=\"unbounded\"/>, alone in its sequence");
        }
        true
    }

    fn simple_content(&mut self, node: Node) -> Option<(QName, Vec<AttrUse>)> {
        self.check_attrs(node, &[]);
        let (_, kids) = self.split_annotation(node, &[]);
        let mut result = None;
        for c in kids {
            match xs_name(c) {
                Some("extension") if result.is_none() => {
                    self.check_attrs(c, &["base"]);
                    let base = self.required_attr(c, "base")?;
                    let base = self.qname(c, "base", &base.value)?;
                    let (_, ext_kids) = self.split_annotation(c, &[]);
                    let mut attrs = Vec::new();
                    for a in ext_kids {
                        match xs_name(a) {
                            Some("attribute") | Some("attributeGroup") => {
                                if let Some(a) = self.attr_use(a) {
                                    attrs.push(a);
                                }
                            }
                            _ => {
                                self.reject(a, "xs:extension");
                            }
                        }
                    }
                    result = Some((base, attrs));
                }
                _ => {
                    self.reject(c, "xs:simpleContent");
                }
            }
        }
        result
    }

    fn sequence(&mut self, node: Node) -> Vec<Particle> {
        self.check_attrs(node, &[]);
        let (_, kids) = self.split_annotation(node, &[]);
        let mut out = Vec::new();
        for c in kids {
            match xs_name(c) {
                Some("element") => {
                    if let Some(e) = self.element(c, false) {
                        out.push(Particle::Element(e));
                    }
                }
                Some("choice") => {
                    if let Some(ch) = self.choice(c) {
                        out.push(Particle::Choice(ch));
                    }
                }
                _ => {
                    self.reject(c, "xs:sequence");
                }
            }
        }
        out
    }

    fn choice(&mut self, node: Node) -> Option<ChoiceDecl> {
        self.check_attrs(node, &["minOccurs", "maxOccurs"]);
        let (min, max) = self.occurs(node);
        let span = self.span(node);
        if min > 1 || max != MaxOccurs::Bounded(1) {
            self.diags.error(span.clone(), "xs:choice supports minOccurs 0 or 1 and maxOccurs 1 only");
        }
        let (_, kids) = self.split_annotation(node, &[]);
        let mut branches = Vec::new();
        for c in kids {
            match xs_name(c) {
                Some("element") => {
                    if let Some(e) = self.element(c, false) {
                        if e.min != 1 || e.max != MaxOccurs::Bounded(1) {
                            self.diags.error(
                                e.span.clone(),
                                "a plain element alternative of xs:choice takes no minOccurs/maxOccurs",
                            );
                        }
                        branches.push(vec![e]);
                    }
                }
                Some("sequence") => {
                    self.check_attrs(c, &[]);
                    let (_, seq_kids) = self.split_annotation(c, &[]);
                    let mut branch = Vec::new();
                    for k in seq_kids {
                        match xs_name(k) {
                            Some("element") => branch.extend(self.element(k, false)),
                            _ => {
                                self.reject(k, "an xs:sequence inside xs:choice (elements only)");
                            }
                        }
                    }
                    if branch.is_empty() {
                        let span = self.span(c);
                        self.diags.error(span, "an xs:sequence alternative needs at least one element");
                    } else {
                        branches.push(branch);
                    }
                }
                _ => {
                    self.reject(c, "xs:choice");
                }
            }
        }
        if branches.len() < 2 {
            self.diags.error(span.clone(), "xs:choice needs at least two alternatives");
        }
        Some(ChoiceDecl { min, branches, span })
    }

    fn attr_use(&mut self, node: Node) -> Option<AttrUse> {
        match xs_name(node) {
            Some("attributeGroup") => {
                self.check_attrs(node, &["ref"]);
                let r = self.required_attr(node, "ref")?;
                Some(AttrUse::GroupRef(self.qname(node, "ref", &r.value)?))
            }
            _ => self.attribute(node).map(AttrUse::Attribute),
        }
    }

    fn attribute(&mut self, node: Node) -> Option<AttributeDecl> {
        self.check_attrs(node, &["name", "type", "use"]);
        let name = self.required_attr(node, "name")?;
        let required = match node.attribute("use") {
            None | Some("optional") => false,
            Some("required") => true,
            Some(other) => {
                let span = self.attr_span(node, "use");
                self.diags.error(span, format!("`use` must be `optional` or `required`, found `{other}`"));
                false
            }
        };
        let (ann, kids) = self.split_annotation(node, &["also", "written", "personal"]);
        let mut inline = None;
        for c in kids {
            match xs_name(c) {
                Some("simpleType") if inline.is_none() => inline = self.simple_type(c, false),
                _ => {
                    self.reject(c, "xs:attribute");
                }
            }
        }
        let span = self.span(node);
        let ty = match (node.attribute("type"), inline) {
            (Some(t), None) => SimpleTypeUse::Named(self.qname(node, "type", t)?),
            (None, Some(t)) => SimpleTypeUse::Inline(Box::new(t)),
            (Some(_), Some(_)) => {
                self.diags.error(span, "an attribute has either a `type` attribute or an inline type, not both");
                return None;
            }
            (None, None) => {
                self.diags.error(span, format!("attribute `{}` has no type", name.value));
                return None;
            }
        };
        Some(AttributeDecl { name, ty, required, ann, span })
    }

    fn attribute_group(&mut self, node: Node) -> Option<AttributeGroupDecl> {
        self.check_attrs(node, &["name"]);
        let name = self.required_attr(node, "name")?;
        let (ann, kids) = self.split_annotation(node, &[]);
        let mut attributes = Vec::new();
        for c in kids {
            match xs_name(c) {
                Some("attribute") | Some("attributeGroup") => {
                    if let Some(a) = self.attr_use(c) {
                        attributes.push(a);
                    }
                }
                _ => {
                    self.reject(c, "xs:attributeGroup");
                }
            }
        }
        Some(AttributeGroupDecl { name, ann, attributes, span: self.span(node) })
    }

    fn simple_type(&mut self, node: Node, top_level: bool) -> Option<SimpleTypeDecl> {
        self.check_attrs(node, if top_level { &["name"] } else { &[] });
        let name = if top_level { Some(self.required_attr(node, "name")?) } else { None };
        let (ann, kids) = self.split_annotation(node, &[]);
        let span = self.span(node);
        let mut def = None;
        for c in kids {
            match xs_name(c) {
                Some("restriction") if def.is_none() => def = self.restriction(c),
                Some("union") if def.is_none() => {
                    self.check_attrs(c, &["memberTypes"]);
                    let m = self.required_attr(c, "memberTypes")?;
                    let members: Vec<QName> =
                        m.value.split_whitespace().filter_map(|q| self.qname(c, "memberTypes", q)).collect();
                    let (_, rest) = self.split_annotation(c, &[]);
                    for r in rest {
                        self.reject(r, "xs:union (member types go in `memberTypes`)");
                    }
                    def = Some(SimpleDef::Union { members });
                }
                _ => {
                    self.reject(c, "xs:simpleType");
                }
            }
        }
        match def {
            Some(def) => Some(SimpleTypeDecl { name, ann, def, span }),
            None => {
                self.diags.error(span, "xs:simpleType needs an xs:restriction or an xs:union");
                None
            }
        }
    }

    fn restriction(&mut self, node: Node) -> Option<SimpleDef> {
        self.check_attrs(node, &["base"]);
        let base = self.required_attr(node, "base")?;
        let base = self.qname(node, "base", &base.value)?;
        let (_, kids) = self.split_annotation(node, &[]);
        let mut facets = Vec::new();
        for c in kids {
            let kind = match xs_name(c) {
                Some("enumeration") => FacetKind::Enumeration,
                Some("pattern") => FacetKind::Pattern,
                Some("length") => FacetKind::Length,
                Some("minLength") => FacetKind::MinLength,
                Some("maxLength") => FacetKind::MaxLength,
                Some("minInclusive") => FacetKind::MinInclusive,
                Some("maxInclusive") => FacetKind::MaxInclusive,
                _ => {
                    self.reject(c, "xs:restriction");
                    continue;
                }
            };
            self.check_attrs(c, &["value"]);
            let Some(value) = self.required_attr(c, "value") else { continue };
            let takes: &[&str] = if kind == FacetKind::Enumeration { &["also"] } else { &[] };
            let (ann, rest) = self.split_annotation(c, takes);
            for r in rest {
                self.reject(r, "a facet");
            }
            if ann.variant.is_some() && kind != FacetKind::Enumeration {
                let span = self.span(c);
                self.diags.error(span, "gen:variant only applies to xs:enumeration");
            }
            facets.push(FacetDecl { kind, value, ann });
        }
        Some(SimpleDef::Restriction { base, facets })
    }
}

/// Collapses runs of whitespace inside paragraphs; keeps blank-line paragraph breaks.
fn normalize_doc(text: &str) -> String {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    paragraphs.into_iter().map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>().join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_text_is_normalised_per_paragraph() {
        assert_eq!(normalize_doc("\n   one\n   two  three\n\n   four\n  "), "one two three\n\nfour");
    }

    #[test]
    fn offsets_count_characters() {
        let text = "ab\ncdé\nf";
        assert_eq!(offset_of(text, 1, 1), 0);
        assert_eq!(offset_of(text, 2, 3), 5);
        assert_eq!(offset_of(text, 3, 1), 8);
    }
}
