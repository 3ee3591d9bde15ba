//! The intermediate model (IR): the spec with names resolved, groups flattened and every type
//! placed in a module. Everything is held in `Vec`s in spec order, so the model — and the code
//! made from it — never depends on hash order. [`Model::print`] writes it as stable text for
//! snapshots.
//!
//! [`crate::lower`] fills in what the spec says; the [passes](crate::passes) fill in what the
//! generator decides (marked "set by the `…` pass" below); the emitters only read it.

use std::fmt::Write as _;

use crate::diagnostics::Span;

/// Index of a type in [`Model::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId(pub usize);

/// The whole spec, lowered.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// One module per spec file; `common` first, then the messages by file name.
    pub modules: Vec<Module>,
    /// Every type of every module.
    pub types: Vec<TypeDef>,
    /// The `Errors` type of every operation's response, when they all share one: the parameter
    /// of the generated `error_response` (set by the `shared_errors` pass).
    pub shared_errors: Option<TypeId>,
    /// The dialects of the spec, in declaration order (the first is the default): the
    /// generated `Dialect` enum.
    pub dialects: Vec<DialectDef>,
    /// What the official OpenTravel schemas allow beyond the spec, per complex type of a
    /// request, and the decision on each such item (set by the `official` pass; empty when the
    /// spec names no official schemas).
    pub official: Official,
    /// The official schemas and the decision rules, when the spec names them (`official.xml`;
    /// read before the passes, by [`crate::generate_dir`]).
    pub official_input: Option<crate::passes::official::OfficialInput>,
}

/// What the official OpenTravel schemas allow in the spec's requests beyond the spec (set by
/// the `official` pass).
#[derive(Debug, Clone, Default)]
pub struct Official {
    /// Per complex type of a request, in spec order: what 2016B allows there that the type does
    /// not declare (the union over the places it is used).
    pub extras: Vec<OfficialExtras>,
    /// Every such item at its place in a request, by root, in document order, with its decision.
    pub items: Vec<OfficialItem>,
    /// Per named simple type of the spec used in a request: the official types of the places
    /// it is used at (values 2016B takes there and the spec does not are not shape errors).
    pub wider: Vec<(TypeId, Vec<crate::official::SimpleId>)>,
}

/// What 2016B allows in one complex type of the spec beyond it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfficialExtras {
    /// The spec's type.
    pub of: TypeId,
    /// Attributes the type does not declare.
    pub attributes: Vec<String>,
    /// Child elements with their 2016B maximum (`u32::MAX`: unbounded): undeclared ones, and
    /// declared ones 2016B lets occur more often.
    pub elements: Vec<(String, u32)>,
    /// 2016B allows any element here (`xs:any`).
    pub any_element: bool,
    /// What the type requires and 2016B leaves optional: attributes (`@HotelCode`) and child
    /// elements.
    pub optional: Vec<String>,
    /// Attributes 2016B allows on child elements the spec reads as text only, by element.
    pub text_attributes: Vec<(String, Vec<String>)>,
}

/// One item of an official request the service does not read, at its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfficialItem {
    /// The request root (`OTA_HotelResRQ`).
    pub root: String,
    /// The path below the root: element names, `@` before an attribute
    /// (`HotelReservations/HotelReservation/@RoomStayReservation`).
    pub path: String,
    /// What kind of item.
    pub kind: ItemKind,
    /// What the gateway does with it.
    pub decision: Decision,
    /// Why (the decision rule's reason).
    pub reason: String,
}

/// What kind of official item the service does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ItemKind {
    /// An attribute or element the spec does not declare.
    Extra,
    /// An occurrence, beyond the spec's maximum, of an element the spec reads (`POS/Source`
    /// past the tenth), or an alternative of a choice of the spec that 2016B lets occur beside
    /// another.
    More,
    /// An attribute or element the spec requires and 2016B does not, absent.
    Absent,
}

impl ItemKind {
    /// How the generated table of items marks it.
    pub fn mark(self) -> &'static str {
        match self {
            ItemKind::Extra => "",
            ItemKind::More => " (more)",
            ItemKind::Absent => " (absent)",
        }
    }
}

/// What the service does with an official item it does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Taken and left out; the answer carries a Warning naming it (leaving it out cannot change
    /// what is booked or charged).
    Ignored,
    /// Refused: an error Type 2, not supported, naming it (ignoring it would change the deal).
    NotSupported,
}

/// A dialect of the spec (`gen:dialect`).
#[derive(Debug, Clone)]
pub struct DialectDef {
    /// Its name in the spec and in configuration (`ota2016b`).
    pub name: String,
    /// The Rust variant name (set by the `naming` pass).
    pub rust_name: String,
    /// What it is.
    pub doc: String,
    /// Where it was declared.
    pub span: Span,
}

/// One generated Rust module (one spec file).
#[derive(Debug, Clone)]
pub struct Module {
    /// The Rust module name (the file stem).
    pub name: String,
    /// The spec file it comes from, relative to the spec folder.
    pub file: String,
    /// Schema-level documentation.
    pub doc: Option<String>,
    /// Its types in spec order (named types first as declared, inline types after their parent).
    pub types: Vec<TypeId>,
    /// The message roots this module declares (a request and its response, say).
    pub roots: Vec<TypeId>,
}

/// A generated type.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// The XSD name, or for an anonymous type the element/attribute it was declared on.
    pub xml_name: String,
    /// False for anonymous types, whose names are only suggestions.
    pub named: bool,
    /// For anonymous types: the XML names of the enclosing types, outermost first.
    pub context: Vec<String>,
    /// The Rust name (set by the naming pass).
    pub rust_name: String,
    /// The module it belongs to.
    pub module: usize,
    /// Documentation.
    pub doc: Option<String>,
    /// The shape.
    pub kind: TypeKind,
    /// Where it was declared.
    pub span: Span,
    /// What the generated code holds for it (set by the `items` pass).
    pub emission: Emission,
}

/// What the generated code holds for a type (decided by the `items` pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emission {
    /// A Rust item (struct or enum) and its schema table.
    Item,
    /// A schema table only: a restriction of a built-in, whose fields have the built-in's Rust
    /// type (yaserde's derive reads a field as a primitive only by its type's name, so a field
    /// of an alias of `String` would not compile); the constraints go into the field docs.
    TableOnly,
    /// Nothing: an enumeration used only as the known values of an open list (the open list
    /// carries them).
    Nothing,
}

impl TypeDef {
    /// True when the type becomes a Rust item.
    pub fn has_rust_item(&self) -> bool {
        self.emission == Emission::Item
    }

    /// True when the type has a static in the schema tables.
    pub fn has_table(&self) -> bool {
        self.emission != Emission::Nothing
    }
}

/// The shape of a type.
#[derive(Debug, Clone)]
pub enum TypeKind {
    /// A complex type: a struct.
    Struct(StructDef),
    /// A list of values: a Rust enum.
    Enum(EnumDef),
    /// A restricted built-in: a type alias, with facets checked on decode.
    Alias(AliasDef),
}

/// Who sends a request (`gen:message side=".."`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Side {
    /// A distribution partner sends it to the service (the default).
    #[default]
    Demand,
    /// A hotel's system (a supplier) sends it to the service, for its own hotels.
    Supply,
    /// The service sends it to a hotel's system (to the receiver's endpoint).
    Outbound,
}

impl Side {
    /// The spec's name of the side.
    pub fn name(self) -> &'static str {
        match self {
            Side::Demand => "demand",
            Side::Supply => "supply",
            Side::Outbound => "outbound",
        }
    }

    /// The side of a spec name.
    pub fn from_name(name: &str) -> Option<Side> {
        [Side::Demand, Side::Supply, Side::Outbound].into_iter().find(|s| s.name() == name)
    }
}

/// A message root's operation metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootInfo {
    /// The root element name, e.g. `OTA_HotelResModifyRQ`.
    pub element: String,
    /// The `Version` the service expects.
    pub version: String,
    /// The endpoint path, e.g. `/bookmodify`.
    pub path: Option<String>,
    /// The root element of the response to this request.
    pub response: Option<String>,
    /// The response root's type, for a request (set by the `operations` pass).
    pub response_type: Option<TypeId>,
    /// The OTA envelope of a response root (set by the `envelope` pass).
    pub shape: Option<ResponseShape>,
    /// The attribute that carries the message version, as an index into the struct's
    /// attributes: a new message has it set to `version` (set by the `versions` pass).
    pub version_attribute: Option<usize>,
    /// The `Version` other dialects write in place of [`RootInfo::version`] (`gen:version`).
    pub dialect_versions: Vec<DialectVersion>,
    /// Who sends the request.
    pub side: Side,
    /// The point of sale of a request: its required `POS` element, as a path of indexes, each
    /// into [`StructDef::element_fields`] of the type at that level: `[i]` for a child `POS`,
    /// `[i, j]` for one inside a required child (`TPA_Extensions/POS`); empty when it has none
    /// (set by the `std_attributes` pass).
    pub pos: Vec<usize>,
    /// The name of the root's variant in `AnyMessage` / `AnyRequest` (set by the naming pass).
    pub variant: String,
}

/// The OTA envelope of a response root: a choice between a branch that starts with `Success`
/// (then optional `Warnings` and the payload) and an `Errors` alternative. The fields are
/// indexes into [`StructDef::element_fields`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseShape {
    /// The `Success` element.
    pub success: usize,
    /// The `Warnings` element, if the success branch has one.
    pub warnings: Option<usize>,
    /// The other elements of the success branch, in order.
    pub payload: Vec<usize>,
    /// The `Errors` element.
    pub errors: usize,
}

/// A struct.
#[derive(Debug, Clone)]
pub struct StructDef {
    /// Set when this is a message root.
    pub root: Option<Box<RootInfo>>,
    /// Attributes, in order (attribute groups flattened in place).
    pub attributes: Vec<Field>,
    /// The attribute groups the type uses, directly or through other groups, in the order they
    /// are referenced (an outer group before the groups it references).
    pub groups: Vec<GroupUse>,
    /// Child content.
    pub content: Content,
    /// The runtime traits of standard attributes the struct implements (set by the
    /// `std_attributes` pass).
    pub std_traits: Vec<StdTraitImpl>,
    /// `gen:text-list`: the struct is also read from, and in some dialects written as, a list
    /// of its one element's one attribute as text (checked and resolved by the `dialects` pass).
    pub text_list: Option<TextList>,
    /// `gen:text`: how some dialects write the element's text (checked and resolved by the
    /// `dialects` pass).
    pub text_forms: Vec<TextForm>,
}

/// How one dialect writes an element's text (`gen:text`); decoders take the form in every
/// dialect.
#[derive(Debug, Clone)]
pub struct TextForm {
    /// The dialect, by name (from the spec).
    pub dialect_name: String,
    /// Its position in [`Model::dialects`] (set by the `dialects` pass).
    pub dialect: u8,
    /// What it writes.
    pub kind: TextFormKind,
    /// Where it was declared.
    pub span: Span,
}

/// What a dialect writes for an element's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextFormKind {
    /// The text as this attribute, and no text (for a type of text content).
    Attribute(String),
    /// This text, in an element that has none in the default dialect (for a type of no
    /// content; e.g. the `Other_` of an open OpenTravel list whose code is in an attribute).
    Value(String),
}

/// A struct of one repeated element with one attribute, also written as a list of the
/// attribute's values (`<ResGuestRPHs>1 2</ResGuestRPHs>`).
#[derive(Debug, Clone)]
pub struct TextList {
    /// The dialects that write the text form, by name (from the spec).
    pub written_names: Vec<String>,
    /// The same as positions in [`Model::dialects`] (set by the `dialects` pass).
    pub written: Vec<u8>,
    /// The element's struct (set by the `dialects` pass).
    pub item: Option<TypeId>,
    /// Where it was declared.
    pub span: Span,
}

/// The `Version` one dialect writes for a message root (`gen:version`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectVersion {
    /// The dialect, by name (from the spec).
    pub dialect_name: String,
    /// Its position in [`Model::dialects`] (set by the `dialects` pass).
    pub dialect: u8,
    /// The version it writes.
    pub value: String,
    /// Where it was declared.
    pub span: Span,
}

/// How one dialect writes a field (`gen:written`).
#[derive(Debug, Clone)]
pub struct Written {
    /// The dialect, by name (from the spec).
    pub dialect_name: String,
    /// Its position in [`Model::dialects`] (set by the `dialects` pass).
    pub dialect: u8,
    /// What it writes instead.
    pub form: WrittenForm,
    /// Where it was declared.
    pub span: Span,
}

/// What one dialect writes instead of a field's declared form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrittenForm {
    /// The field under this name.
    Name(String),
    /// Nothing: the dialect does not write the field.
    Omitted,
    /// An empty element when the field is absent (an optional element the dialect requires,
    /// of a type with nothing required).
    EmptyWhenAbsent,
}

impl Written {
    /// The name the dialect writes the field under, if another.
    pub fn name(&self) -> Option<&str> {
        match &self.form {
            WrittenForm::Name(n) => Some(n),
            _ => None,
        }
    }
}

/// An attribute group used by a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupUse {
    /// The group's name.
    pub name: String,
    /// The attributes it gave the struct (its nested groups' included), as indexes into
    /// [`StructDef::attributes`].
    pub attributes: Vec<usize>,
}

/// How a struct implements a runtime trait of standard attributes (decided by the
/// `std_attributes` pass from the attribute groups it uses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdTraitImpl {
    /// The trait's name in `runtime`, e.g. `ResponseStdAttributes`.
    pub name: &'static str,
    /// The attribute group it comes from.
    pub group: String,
    /// Each accessor of the trait and the attribute behind it.
    pub members: Vec<StdMember>,
}

/// One accessor of a runtime trait of standard attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdMember {
    /// The getter's name (the setter, if any, is `set_` + it).
    pub method: &'static str,
    /// The attribute, as an index into [`StructDef::attributes`].
    pub attribute: usize,
}

/// The Rust shape of a standard attribute's accessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdAccess {
    /// A string (a `String` field): `&str`, and a setter taking `String`.
    Text,
    /// A code list (a generated enum): its text as `&str`, no setter.
    Code,
    /// A date-time: `&runtime::DateTime`, and a setter.
    DateTime,
    /// A non-negative integer (`u64`), by value, and a setter.
    Count,
    /// A boolean, by value, and a setter.
    Flag,
}

impl StructDef {
    /// The child element fields in declaration order, choice alternatives flattened: the order
    /// of the decoder's element indexes and of the encoder's output.
    pub fn element_fields(&self) -> Vec<&Field> {
        let mut out = Vec::new();
        if let Content::Sequence(ps) = &self.content {
            for p in ps {
                match p {
                    Particle::Element(f) => out.push(f),
                    Particle::Choice { branches, .. } => out.extend(branches.iter().flatten()),
                }
            }
        }
        out
    }

    /// The attributes, then the child element fields (see [`StructDef::element_fields`]).
    pub fn all_fields(&self) -> Vec<&Field> {
        let mut out: Vec<&Field> = self.attributes.iter().collect();
        out.extend(self.element_fields());
        out
    }
}

/// The child content of a struct.
#[derive(Debug, Clone)]
pub enum Content {
    /// No children, no text.
    Empty,
    /// Child elements in order.
    Sequence(Vec<Particle>),
    /// Text of the given simple type.
    Text(Scalar),
    /// Anything (`xs:any` and `xs:anyAttribute`, skipped): taken and not read; written empty.
    Skipped,
}

/// A member of a sequence.
#[derive(Debug, Clone)]
pub enum Particle {
    /// One element field.
    Element(Field),
    /// Alternatives: at most one (exactly one when `required`) is present.
    Choice {
        /// Whether one alternative must be present.
        required: bool,
        /// The alternatives, each a sequence of fields (held as optional fields in Rust).
        branches: Vec<Vec<Field>>,
    },
}

/// An attribute or child element of a struct.
#[derive(Debug, Clone)]
pub struct Field {
    /// The XML name.
    pub xml_name: String,
    /// The Rust field name (set by the naming pass).
    pub rust_name: String,
    /// Documentation.
    pub doc: Option<String>,
    /// Its value type.
    pub ty: FieldType,
    /// Minimum occurrences (attributes: 1 when required).
    pub min: u32,
    /// Maximum occurrences (None: unbounded; attributes: Some(1)).
    pub max: Option<u32>,
    /// True for an alternative of an `xs:choice` (held as optional whatever its `min`).
    pub in_choice: bool,
    /// Other names decoders take for it (`gen:also`).
    pub also: Vec<String>,
    /// How some dialects write it (`gen:written`).
    pub written: Vec<Written>,
    /// Set when its value is personal data (`gen:personal`).
    pub personal: Option<Box<Personal>>,
    /// Where it was declared.
    pub span: Span,
}

/// A field whose value is personal data (`gen:personal`): masked in the gateway's transaction
/// log, with the field's other names (the generated `PERSONAL` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Personal {
    /// What a masked value is replaced with: as given, else (set by the `personal` pass) a
    /// value of the field's built-in type.
    pub mask: Option<String>,
    /// Where it was declared.
    pub span: Span,
}

impl Field {
    /// Every other name decoders take for it: its `gen:also` names and the names dialects
    /// write it under, each once.
    pub fn other_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for n in self.also.iter().map(String::as_str).chain(self.written.iter().filter_map(Written::name)) {
            if n != self.xml_name && !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }

    /// How the field is held in Rust.
    pub fn multiplicity(&self) -> Multiplicity {
        match (self.min, self.max) {
            (_, Some(1)) if self.min >= 1 && !self.in_choice => Multiplicity::One,
            (_, Some(1)) => Multiplicity::Optional,
            _ => Multiplicity::Many,
        }
    }
}

/// How a field is held in Rust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiplicity {
    /// `T`.
    One,
    /// `Option<T>`.
    Optional,
    /// `Vec<T>`.
    Many,
}

/// The type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A struct.
    Complex(TypeId),
    /// A simple value.
    Simple(Scalar),
}

/// A simple value type: a built-in, optionally through a named simple type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scalar {
    /// The built-in it is ultimately based on.
    pub builtin: Builtin,
    /// The named (alias or enum) type, if any.
    pub named: Option<TypeId>,
}

/// The XML Schema built-in types the subset supports (one definition, shared with the
/// runtime).
pub use xsd_builtins::Builtin;

/// A closed or open list of values.
#[derive(Debug, Clone)]
pub struct EnumDef {
    /// The built-in the known values are written in.
    pub base: Builtin,
    /// The known values.
    pub variants: Vec<Variant>,
    /// For an open list: the type any other value must have (kept verbatim in `Other`).
    pub open: Option<Scalar>,
    /// For an open list: the enumeration type its known values come from.
    pub known_from: Option<TypeId>,
}

/// One known value of a list.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The value as written in XML.
    pub value: String,
    /// A name given with `gen:variant`, if any.
    pub given_name: Option<String>,
    /// The Rust variant name (set by the naming pass).
    pub rust_name: String,
    /// Other values that mean it (`gen:also`: another dialect's form, e.g. `Adult` for `10`);
    /// decoders take them, encoders write [`Variant::value`].
    pub also: Vec<String>,
    /// Documentation.
    pub doc: Option<String>,
    /// Where it was declared.
    pub span: Span,
}

/// A restricted built-in.
#[derive(Debug, Clone)]
pub struct AliasDef {
    /// The built-in.
    pub base: Builtin,
    /// Constraints checked on decode.
    pub facets: Facets,
}

/// Constraining facets, merged along the restriction chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facets {
    /// Each must match (patterns of one restriction step are joined with `|`).
    pub patterns: Vec<String>,
    /// Minimum length in characters.
    pub min_length: Option<u32>,
    /// Maximum length in characters.
    pub max_length: Option<u32>,
    /// Inclusive lower bound (lexical form).
    pub min_inclusive: Option<String>,
    /// Inclusive upper bound (lexical form).
    pub max_inclusive: Option<String>,
}

impl Facets {
    /// True when there is nothing to check.
    pub fn is_empty(&self) -> bool {
        *self == Facets::default()
    }
}

impl Model {
    /// The type behind an id.
    pub fn ty(&self, id: TypeId) -> &TypeDef {
        &self.types[id.0]
    }

    /// The roots of all modules, in module order, with their metadata.
    pub fn roots(&self) -> impl Iterator<Item = (&Module, TypeId, &RootInfo)> {
        self.modules.iter().flat_map(move |m| {
            m.roots.iter().filter_map(move |&id| match &self.ty(id).kind {
                TypeKind::Struct(StructDef { root: Some(info), .. }) => Some((m, id, &**info)),
                _ => None,
            })
        })
    }

    /// The fields along a point-of-sale path ([`RootInfo::pos`]) from the struct `s`, outermost
    /// first; `None` for an empty or broken path.
    pub fn pos_fields<'m>(&'m self, s: &'m StructDef, path: &[usize]) -> Option<Vec<&'m Field>> {
        let mut out = Vec::new();
        let mut at = s;
        for (n, &i) in path.iter().enumerate() {
            let f = *at.element_fields().get(i)?;
            out.push(f);
            if n + 1 < path.len() {
                let FieldType::Complex(id) = f.ty else { return None };
                let TypeKind::Struct(next) = &self.ty(id).kind else { return None };
                at = next;
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// A point-of-sale path as XML names (`TPA_Extensions/POS`).
    pub fn pos_path(&self, s: &StructDef, path: &[usize]) -> Option<String> {
        let fields = self.pos_fields(s, path)?;
        Some(fields.iter().map(|f| f.xml_name.as_str()).collect::<Vec<_>>().join("/"))
    }

    /// Writes the model as indented text, for snapshots and debugging.
    pub fn print(&self) -> String {
        let mut out = String::new();
        for m in &self.modules {
            let _ = writeln!(out, "module {} ({})", m.name, m.file);
            for &id in &m.types {
                self.print_type(&mut out, id);
            }
            out.push('\n');
        }
        if let Some(id) = self.shared_errors {
            let _ = writeln!(out, "shared Errors type: {}", self.ty(id).rust_name);
        }
        for (i, d) in self.dialects.iter().enumerate() {
            let _ =
                writeln!(out, "dialect {i} {} -> {}{}", d.name, d.rust_name, if i == 0 { " (default)" } else { "" });
        }
        out
    }

    /// A field's other names and dialect forms, as printed after it (empty when none).
    fn forms(f: &Field) -> String {
        let mut out = String::new();
        for a in &f.also {
            let _ = write!(out, " also {a}");
        }
        for w in &f.written {
            let _ = match &w.form {
                WrittenForm::Name(n) => write!(out, "; {} writes {n}", w.dialect_name),
                WrittenForm::Omitted => write!(out, "; {} omits it", w.dialect_name),
                WrittenForm::EmptyWhenAbsent => write!(out, "; {} writes it empty when absent", w.dialect_name),
            };
        }
        if let Some(p) = &f.personal {
            let _ = write!(out, "; personal, masked as {:?}", p.mask.as_deref().unwrap_or(""));
        }
        out
    }

    fn scalar(&self, s: &Scalar) -> String {
        match s.named {
            Some(id) => format!("{} (xs:{})", self.ty(id).rust_name, s.builtin.xsd_name()),
            None => format!("xs:{}", s.builtin.xsd_name()),
        }
    }

    fn field_type(&self, t: &FieldType) -> String {
        match t {
            FieldType::Complex(id) => self.ty(*id).rust_name.clone(),
            FieldType::Simple(s) => self.scalar(s),
        }
    }

    fn occurs(f: &Field) -> String {
        match f.max {
            Some(max) => format!("[{}..{}]", f.min, max),
            None => format!("[{}..]", f.min),
        }
    }

    fn print_root_decisions(&self, out: &mut String, s: &StructDef, r: &RootInfo) {
        let elements = s.element_fields();
        let name = |i: usize| elements.get(i).map(|f| format!("<{}>", f.xml_name)).unwrap_or_default();
        let mut parts = vec![format!("variant {}", r.variant)];
        if let Some(id) = r.response_type {
            parts.push(format!("response type {}", self.ty(id).rust_name));
        }
        if let Some(a) = r.version_attribute.and_then(|i| s.attributes.get(i)) {
            parts.push(format!("version in @{}", a.xml_name));
        }
        for v in &r.dialect_versions {
            parts.push(format!("{} writes version {}", v.dialect_name, v.value));
        }
        if let Some(path) = self.pos_path(s, &r.pos) {
            parts.push(format!("point of sale {path}"));
        }
        if r.path.is_some() {
            parts.push(format!("side {}", r.side.name()));
        }
        if let Some(sh) = &r.shape {
            let mut e = format!("envelope: success {}", name(sh.success));
            if let Some(w) = sh.warnings {
                e.push_str(&format!(", warnings {}", name(w)));
            }
            if !sh.payload.is_empty() {
                let p: Vec<String> = sh.payload.iter().map(|&i| name(i)).collect();
                e.push_str(&format!(", payload {}", p.join(" ")));
            }
            e.push_str(&format!(", errors {}", name(sh.errors)));
            parts.push(e);
        }
        let _ = writeln!(out, "    [{}]", parts.join("; "));
    }

    /// An element field's line, indented by `indent`.
    fn print_element(&self, out: &mut String, indent: &str, f: &Field) {
        let _ = writeln!(
            out,
            "{indent}<{}> -> {}: {} {}{}",
            f.xml_name,
            f.rust_name,
            self.field_type(&f.ty),
            Self::occurs(f),
            Self::forms(f)
        );
    }

    /// A struct's lines: its root, groups, traits, text forms, attributes and content.
    fn print_struct(&self, out: &mut String, t: &TypeDef, s: &StructDef, origin: &str) {
        let _ = write!(out, "  struct {} <- {}{}", t.rust_name, t.xml_name, origin);
        if let Some(r) = &s.root {
            let _ = write!(out, " root {} version {}", r.element, r.version);
            if let Some(p) = &r.path {
                let _ = write!(out, " path {p}");
            }
            if let Some(rs) = &r.response {
                let _ = write!(out, " response {rs}");
            }
        }
        out.push('\n');
        if let Some(r) = &s.root {
            self.print_root_decisions(out, s, r);
        }
        for g in &s.groups {
            let names: Vec<&str> =
                g.attributes.iter().filter_map(|&i| s.attributes.get(i)).map(|a| a.xml_name.as_str()).collect();
            let _ = writeln!(out, "    attribute group {}: {}", g.name, names.join(" "));
        }
        for i in &s.std_traits {
            let _ = writeln!(out, "    implements runtime::{} (from {})", i.name, i.group);
        }
        if let Some(l) = &s.text_list {
            let _ = writeln!(out, "    also read as a text list; written so by {}", l.written_names.join(" "));
        }
        for t in &s.text_forms {
            let _ = match &t.kind {
                TextFormKind::Attribute(a) => {
                    writeln!(out, "    text also read as @{a}; written so by {}", t.dialect_name)
                }
                TextFormKind::Value(v) => {
                    writeln!(out, "    text {v:?} also read; written by {}", t.dialect_name)
                }
            };
        }
        for a in &s.attributes {
            let req = if a.min > 0 { "required" } else { "optional" };
            let _ = writeln!(
                out,
                "    @{} -> {}: {} {req}{}",
                a.xml_name,
                a.rust_name,
                self.field_type(&a.ty),
                Self::forms(a)
            );
        }
        match &s.content {
            Content::Empty => {}
            Content::Skipped => {
                let _ = writeln!(out, "    any content, skipped");
            }
            Content::Text(sc) => {
                let _ = writeln!(out, "    text: {}", self.scalar(sc));
            }
            Content::Sequence(ps) => {
                for p in ps {
                    match p {
                        Particle::Element(f) => self.print_element(out, "    ", f),
                        Particle::Choice { required, branches } => {
                            let _ = writeln!(out, "    choice{}", if *required { "" } else { " (optional)" });
                            for (i, branch) in branches.iter().enumerate() {
                                let _ = writeln!(out, "      branch {}", i + 1);
                                for f in branch {
                                    self.print_element(out, "        ", f);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn print_type(&self, out: &mut String, id: TypeId) {
        let t = self.ty(id);
        let origin = if t.named { String::new() } else { format!(" (inline in {})", t.context.join("/")) };
        match &t.kind {
            TypeKind::Struct(s) => self.print_struct(out, t, s, &origin),
            TypeKind::Enum(e) => {
                let kind = match &e.open {
                    Some(other) => format!("open, any other {}", self.scalar(other)),
                    None => "closed".to_string(),
                };
                let skipped = if t.has_table() { "" } else { " [known values of an open list; not emitted]" };
                let _ = writeln!(
                    out,
                    "  enum {} <- {}{} (xs:{}, {kind}){skipped}",
                    t.rust_name,
                    t.xml_name,
                    origin,
                    e.base.xsd_name()
                );
                for v in &e.variants {
                    let also: String = v.also.iter().map(|a| format!(" also {a:?}")).collect();
                    let _ = writeln!(out, "    {:?} -> {}{also}", v.value, v.rust_name);
                }
            }
            TypeKind::Alias(a) => {
                let _ = writeln!(out, "  alias {} <- {}{} = xs:{}", t.rust_name, t.xml_name, origin, a.base.xsd_name());
                let f = &a.facets;
                for p in &f.patterns {
                    let _ = writeln!(out, "    pattern {p:?}");
                }
                if let Some(v) = f.min_length {
                    let _ = writeln!(out, "    minLength {v}");
                }
                if let Some(v) = f.max_length {
                    let _ = writeln!(out, "    maxLength {v}");
                }
                if let Some(v) = &f.min_inclusive {
                    let _ = writeln!(out, "    minInclusive {v}");
                }
                if let Some(v) = &f.max_inclusive {
                    let _ = writeln!(out, "    maxInclusive {v}");
                }
            }
        }
    }
}
