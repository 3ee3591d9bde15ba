//! Stage 2, **lower**: resolve the parsed files into the [`Model`].
//!
//! Type references are resolved across all files (they share one target namespace), attribute
//! groups are flattened in place (each struct keeps which groups gave which attributes), restriction chains are merged, open code lists (`xs:union` of
//! an enumeration and a catch-all type) become open enums, and anonymous types are given
//! suggested names (made final by [`crate::passes::naming`]). Every problem becomes a diagnostic; the
//! stage keeps going so that one run reports them all.

use std::collections::{HashMap, HashSet};

use crate::diagnostics::{Diagnostic, Diagnostics, Span};
use crate::ir::{
    AliasDef, Builtin, Content, DialectDef, DialectVersion, Emission, EnumDef, Facets, Field, FieldType, GroupUse,
    Model, Module, Particle as IrParticle, Personal, RootInfo, Scalar, Side, StructDef, TextForm, TextFormKind,
    TextList, TypeDef, TypeId, TypeKind, Variant, Written, WrittenForm,
};
use crate::parse::{
    Annotation, AttrUse, AttributeDecl, AttributeGroupDecl, ComplexContent, ComplexTypeDecl, ElementDecl, FacetDecl,
    FacetKind, Item, MaxOccurs, Particle, QName, SchemaFile, SimpleDef, SimpleTypeDecl, SimpleTypeUse, TextFormDecl,
    TypeUse,
};
use crate::regex::translate_pattern;

/// A parsed spec file with its module name.
#[derive(Debug, Clone)]
pub struct SpecFile {
    /// The Rust module name (file stem).
    pub module: String,
    /// The file name relative to the spec folder.
    pub file: String,
    /// Its syntax tree.
    pub schema: SchemaFile,
}

/// Lowers all files (common first, then the message files) into one model.
pub fn lower(files: &[SpecFile], diags: &mut Diagnostics) -> Model {
    let mut l = Lowerer {
        files,
        diags,
        model: Model::default(),
        complex: HashMap::new(),
        simple: HashMap::new(),
        groups: HashMap::new(),
        simple_state: HashMap::new(),
        responses: Vec::new(),
    };
    l.declare();
    l.define();
    l.finish();
    l.model
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    InProgress,
    Done,
}

struct Lowerer<'a> {
    files: &'a [SpecFile],
    diags: &'a mut Diagnostics,
    model: Model,
    complex: HashMap<String, (TypeId, &'a ComplexTypeDecl)>,
    simple: HashMap<String, (TypeId, &'a SimpleTypeDecl)>,
    groups: HashMap<String, &'a AttributeGroupDecl>,
    simple_state: HashMap<TypeId, State>,
    /// `response` references of request roots: (the reference, the request's element name).
    responses: Vec<(crate::parse::Spanned<String>, String)>,
}

impl<'a> Lowerer<'a> {
    fn alloc(&mut self, def: TypeDef) -> TypeId {
        self.model.types.push(def);
        TypeId(self.model.types.len() - 1)
    }

    fn placeholder(
        module: usize,
        xml_name: &str,
        named: bool,
        context: Vec<String>,
        doc: Option<String>,
        span: Span,
    ) -> TypeDef {
        TypeDef {
            xml_name: xml_name.to_string(),
            named,
            context,
            rust_name: String::new(),
            module,
            doc,
            kind: TypeKind::Alias(AliasDef { base: Builtin::String, facets: Facets::default() }),
            span,
            emission: Emission::Item,
        }
    }

    /// Pass 1: create modules and allocate an id for every named type, checking for duplicates.
    fn declare(&mut self) {
        let mut seen_names: HashMap<String, Span> = HashMap::new();
        let mut check_dup = |diags: &mut Diagnostics, name: &str, span: &Span| {
            if let Some(first) = seen_names.get(name) {
                diags.push(
                    Diagnostic::error(span.clone(), format!("duplicate definition of `{name}`"))
                        .with_related(first.clone(), "first defined here")
                        .with_note("all spec files share one target namespace, so names must be unique across files"),
                );
                false
            } else {
                seen_names.insert(name.to_string(), span.clone());
                true
            }
        };
        let known_files: HashSet<&str> = self.files.iter().map(|f| f.file.as_str()).collect();
        for (mi, f) in self.files.iter().enumerate() {
            self.model.modules.push(Module {
                name: f.module.clone(),
                file: f.file.clone(),
                doc: f.schema.doc.clone(),
                types: Vec::new(),
                roots: Vec::new(),
            });
            for d in &f.schema.dialects {
                if self.model.dialects.iter().any(|known| known.name == d.name.value) {
                    self.diags.error(d.name.span.clone(), format!("duplicate dialect `{}`", d.name.value));
                } else {
                    self.model.dialects.push(DialectDef {
                        name: d.name.value.clone(),
                        rust_name: String::new(),
                        doc: d.doc.clone(),
                        span: d.name.span.clone(),
                    });
                }
            }
            for inc in &f.schema.includes {
                if !known_files.contains(inc.value.as_str()) {
                    self.diags
                        .error(inc.span.clone(), format!("included file `{}` is not in the spec folder", inc.value));
                }
            }
            for item in &f.schema.items {
                match item {
                    Item::ComplexType(t) => {
                        let Some(name) = &t.name else { continue };
                        if check_dup(self.diags, &name.value, &name.span) {
                            let id = self.alloc(Self::placeholder(
                                mi,
                                &name.value,
                                true,
                                vec![],
                                t.ann.doc.clone(),
                                name.span.clone(),
                            ));
                            self.complex.insert(name.value.clone(), (id, t));
                        }
                    }
                    Item::SimpleType(t) => {
                        let Some(name) = &t.name else { continue };
                        if check_dup(self.diags, &name.value, &name.span) {
                            let id = self.alloc(Self::placeholder(
                                mi,
                                &name.value,
                                true,
                                vec![],
                                t.ann.doc.clone(),
                                name.span.clone(),
                            ));
                            self.simple.insert(name.value.clone(), (id, t));
                        }
                    }
                    Item::AttributeGroup(g) => {
                        if let Some(first) = self.groups.get(&g.name.value) {
                            self.diags.push(
                                Diagnostic::error(
                                    g.name.span.clone(),
                                    format!("duplicate attribute group `{}`", g.name.value),
                                )
                                .with_related(first.name.span.clone(), "first defined here"),
                            );
                        } else {
                            self.groups.insert(g.name.value.clone(), g);
                        }
                    }
                    Item::Element(_) => {}
                }
            }
        }
    }

    /// Pass 2: define every type in file order; inline types follow their parent.
    fn define(&mut self) {
        let mut roots: HashMap<String, Span> = HashMap::new();
        let mut paths: HashMap<String, Span> = HashMap::new();
        for (mi, f) in self.files.iter().enumerate() {
            for item in &f.schema.items {
                match item {
                    Item::ComplexType(t) => {
                        let Some(name) = &t.name else { continue };
                        let Some(&(id, decl)) = self.complex.get(&name.value) else { continue };
                        if !std::ptr::eq(decl, t) {
                            continue;
                        }
                        self.model.modules[mi].types.push(id);
                        let def = self.struct_def(mi, t, std::slice::from_ref(&name.value));
                        self.model.types[id.0].kind = TypeKind::Struct(def);
                    }
                    Item::SimpleType(t) => {
                        let Some(name) = &t.name else { continue };
                        let Some(&(id, decl)) = self.simple.get(&name.value) else { continue };
                        if !std::ptr::eq(decl, t) {
                            continue;
                        }
                        self.model.modules[mi].types.push(id);
                        self.ensure_simple(id);
                    }
                    Item::Element(e) => self.root(mi, e, &mut roots, &mut paths),
                    Item::AttributeGroup(_) => {}
                }
            }
        }
    }

    fn root(
        &mut self,
        mi: usize,
        e: &'a ElementDecl,
        roots: &mut HashMap<String, Span>,
        paths: &mut HashMap<String, Span>,
    ) {
        let name = &e.name;
        let Some(info) = &e.ann.message else {
            self.diags.push(
                Diagnostic::error(name.span.clone(), format!("root element `{}` has no operation metadata", name.value))
                    .with_note("add <xs:annotation><xs:appinfo><gen:message version=\"YYYY.N\" path=\"/op\"/></xs:appinfo></xs:annotation>"),
            );
            return;
        };
        if let Some(first) = roots.get(&name.value) {
            self.diags.push(
                Diagnostic::error(name.span.clone(), format!("duplicate root element `{}`", name.value))
                    .with_related(first.clone(), "first declared here"),
            );
            return;
        }
        roots.insert(name.value.clone(), name.span.clone());
        if info.path.is_some() != info.response.is_some() {
            self.diags.push(
                Diagnostic::error(name.span.clone(), format!("`{}` needs both `path` and `response`, or neither", name.value))
                    .with_note("a request names its endpoint and its response: <gen:message version=\"..\" path=\"/op\" response=\"OTA_OpRS\"/>; a response names neither"),
            );
        }
        let mut side = Side::default();
        if let Some(sd) = &info.side {
            match Side::from_name(&sd.value) {
                Some(_) if info.path.is_none() => {
                    self.diags.error(sd.span.clone(), "only a request (with `path`) names its side");
                }
                Some(s) => side = s,
                None => self.diags.error(
                    sd.span.clone(),
                    format!("`side` is `demand`, `supply` or `outbound`, found `{}`", sd.value),
                ),
            }
        }
        if let Some(p) = &info.path {
            if !p.value.starts_with('/') || p.value.contains(char::is_whitespace) {
                self.diags.error(
                    p.span.clone(),
                    format!("an endpoint path starts with `/` and has no spaces, found `{}`", p.value),
                );
            }
            if let Some(first) = paths.get(&p.value) {
                self.diags.push(
                    Diagnostic::error(p.span.clone(), format!("endpoint path `{}` is used twice", p.value))
                        .with_related(first.clone(), "first used here"),
                );
            }
            paths.insert(p.value.clone(), p.span.clone());
        }
        let TypeUse::Complex(ct) = &e.ty else {
            self.diags.error(e.span.clone(), "a root element declares its complex type inline");
            return;
        };
        let id = self.alloc(Self::placeholder(mi, &name.value, true, vec![], e.ann.doc.clone(), name.span.clone()));
        self.model.modules[mi].types.push(id);
        self.model.modules[mi].roots.push(id);
        let mut def = self.struct_def(mi, ct, std::slice::from_ref(&name.value));
        def.root = Some(Box::new(RootInfo {
            element: name.value.clone(),
            version: info.version.value.clone(),
            path: info.path.as_ref().map(|p| p.value.clone()),
            response: info.response.as_ref().map(|r| r.value.clone()),
            response_type: None,
            shape: None,
            version_attribute: None,
            dialect_versions: e
                .ann
                .versions
                .iter()
                .map(|v| DialectVersion {
                    dialect_name: v.dialect.value.clone(),
                    dialect: 0,
                    value: v.value.value.clone(),
                    span: v.dialect.span.clone(),
                })
                .collect(),
            side,
            pos: Vec::new(),
            variant: String::new(),
        }));
        if let Some(r) = &info.response {
            self.responses.push((r.clone(), name.value.clone()));
        }
        self.model.types[id.0].kind = TypeKind::Struct(def);
    }

    fn struct_def(&mut self, mi: usize, t: &'a ComplexTypeDecl, context: &[String]) -> StructDef {
        let mut attributes = Vec::new();
        let mut groups = Vec::new();
        let mut group_stack = Vec::new();
        self.attributes(mi, &t.attributes, context, &mut attributes, &mut groups, &mut group_stack);
        let mut seen: HashMap<String, Span> = HashMap::new();
        for a in &attributes {
            if let Some(first) = seen.get(&a.xml_name) {
                self.diags.push(
                    Diagnostic::error(
                        a.span.clone(),
                        format!("attribute `{}` is declared twice on this type", a.xml_name),
                    )
                    .with_related(first.clone(), "first declared here"),
                );
            }
            seen.insert(a.xml_name.clone(), a.span.clone());
        }
        let content = match &t.content {
            ComplexContent::Empty => Content::Empty,
            ComplexContent::Skipped => Content::Skipped,
            ComplexContent::Text(base) => match self.resolve_simple(base) {
                Some(s) if s.builtin.is_string() && !self.is_enum(s) => Content::Text(s),
                Some(_) => {
                    self.diags.push(
                        Diagnostic::error(base.span.clone(), "text content with attributes must be a string type")
                            .with_note("yaserde 0.13 reads `text = true` fields only as String; use xs:string or a restriction of it"),
                    );
                    Content::Empty
                }
                None => Content::Empty,
            },
            ComplexContent::Sequence(ps) => {
                let mut out = Vec::new();
                let mut names: HashMap<String, Span> = HashMap::new();
                for p in ps {
                    match p {
                        Particle::Element(e) => {
                            if let Some(f) = self.element_field(mi, e, context) {
                                self.unique_child(&mut names, &f);
                                out.push(IrParticle::Element(f));
                            }
                        }
                        Particle::Choice(c) => {
                            let mut branches = Vec::new();
                            for b in &c.branches {
                                let mut fields = Vec::new();
                                for e in b {
                                    if let Some(mut f) = self.element_field(mi, e, context) {
                                        self.unique_child(&mut names, &f);
                                        f.in_choice = true;
                                        fields.push(f);
                                    }
                                }
                                branches.push(fields);
                            }
                            out.push(IrParticle::Choice { required: c.min > 0, branches });
                        }
                    }
                }
                Content::Sequence(out)
            }
        };
        let text_list = t.ann.text_list.as_ref().map(|l| TextList {
            written_names: l.written.iter().map(|d| d.value.clone()).collect(),
            written: Vec::new(),
            item: None,
            span: l.span.clone(),
        });
        let text_forms = t
            .ann
            .texts
            .iter()
            .map(|d| TextForm {
                dialect_name: d.dialect.value.clone(),
                dialect: 0,
                kind: match &d.form {
                    TextFormDecl::Attribute(a) => TextFormKind::Attribute(a.value.clone()),
                    TextFormDecl::Value(v) => TextFormKind::Value(v.value.clone()),
                },
                span: d.span.clone(),
            })
            .collect();
        StructDef { root: None, attributes, groups, content, std_traits: Vec::new(), text_list, text_forms }
    }

    fn unique_child(&mut self, names: &mut HashMap<String, Span>, f: &Field) {
        if let Some(first) = names.get(&f.xml_name) {
            self.diags.push(
                Diagnostic::error(
                    f.span.clone(),
                    format!("element `{}` appears twice in this content model", f.xml_name),
                )
                .with_related(first.clone(), "first declared here")
                .with_note("use one declaration with maxOccurs instead"),
            );
        } else {
            names.insert(f.xml_name.clone(), f.span.clone());
        }
    }

    fn is_enum(&self, s: Scalar) -> bool {
        s.named.is_some_and(|id| matches!(self.model.ty(id).kind, TypeKind::Enum(_)))
    }

    fn attributes(
        &mut self,
        mi: usize,
        uses: &'a [AttrUse],
        context: &[String],
        out: &mut Vec<Field>,
        groups: &mut Vec<GroupUse>,
        stack: &mut Vec<String>,
    ) {
        for u in uses {
            match u {
                AttrUse::Attribute(a) => {
                    if let Some(f) = self.attribute_field(mi, a, context) {
                        out.push(f);
                    }
                }
                AttrUse::GroupRef(q) => {
                    if q.is_xs() {
                        self.diags.error(q.span.clone(), format!("unknown attribute group `xs:{}`", q.local));
                        continue;
                    }
                    let Some(g) = self.groups.get(&q.local).copied() else {
                        self.diags.error(q.span.clone(), format!("unknown attribute group `{}`", q.local));
                        continue;
                    };
                    if stack.contains(&q.local) {
                        self.diags.error(q.span.clone(), format!("attribute group `{}` refers to itself", q.local));
                        continue;
                    }
                    stack.push(q.local.clone());
                    let (slot, start) = (groups.len(), out.len());
                    groups.push(GroupUse { name: q.local.clone(), attributes: Vec::new() });
                    self.attributes(mi, &g.attributes, context, out, groups, stack);
                    groups[slot].attributes = (start..out.len()).collect();
                    stack.pop();
                }
            }
        }
    }

    fn attribute_field(&mut self, mi: usize, a: &'a AttributeDecl, context: &[String]) -> Option<Field> {
        let scalar = match &a.ty {
            SimpleTypeUse::Named(q) => self.resolve_simple(q)?,
            SimpleTypeUse::Inline(t) => self.inline_simple(mi, t, &a.name.value, context)?,
        };
        Some(Field {
            xml_name: a.name.value.clone(),
            rust_name: String::new(),
            doc: a.ann.doc.clone(),
            ty: FieldType::Simple(scalar),
            min: u32::from(a.required),
            max: Some(1),
            in_choice: false,
            also: a.ann.also.iter().map(|n| n.value.clone()).collect(),
            written: written(&a.ann),
            personal: personal(&a.ann),
            span: a.name.span.clone(),
        })
    }

    fn element_field(&mut self, mi: usize, e: &'a ElementDecl, context: &[String]) -> Option<Field> {
        let ty = match &e.ty {
            TypeUse::Named(q) => {
                if !q.is_xs()
                    && let Some(&(id, _)) = self.complex.get(&q.local)
                {
                    FieldType::Complex(id)
                } else {
                    FieldType::Simple(self.resolve_simple(q)?)
                }
            }
            TypeUse::Complex(ct) => {
                let mut ctx = context.to_vec();
                let id = self.alloc(Self::placeholder(
                    mi,
                    &e.name.value,
                    false,
                    ctx.clone(),
                    e.ann.doc.clone(),
                    e.name.span.clone(),
                ));
                self.model.modules[mi].types.push(id);
                ctx.push(e.name.value.clone());
                let def = self.struct_def(mi, ct, &ctx);
                self.model.types[id.0].kind = TypeKind::Struct(def);
                FieldType::Complex(id)
            }
            TypeUse::Simple(st) => FieldType::Simple(self.inline_simple(mi, st, &e.name.value, context)?),
        };
        Some(Field {
            xml_name: e.name.value.clone(),
            rust_name: String::new(),
            doc: e.ann.doc.clone(),
            ty,
            min: e.min,
            max: match e.max {
                MaxOccurs::Bounded(n) => Some(n),
                MaxOccurs::Unbounded => None,
            },
            in_choice: false,
            also: e.ann.also.iter().map(|n| n.value.clone()).collect(),
            written: written(&e.ann),
            personal: personal(&e.ann),
            span: e.name.span.clone(),
        })
    }

    /// An anonymous simple type: restricted built-ins stay anonymous (no Rust type is needed);
    /// lists become a type named after the attribute or element.
    fn inline_simple(&mut self, mi: usize, t: &'a SimpleTypeDecl, owner: &str, context: &[String]) -> Option<Scalar> {
        let id = self.alloc(Self::placeholder(mi, owner, false, context.to_vec(), t.ann.doc.clone(), t.span.clone()));
        self.model.modules[mi].types.push(id);
        let kind = self.simple_kind(t)?;
        let builtin = match &kind {
            TypeKind::Enum(e) => e.base,
            TypeKind::Alias(a) => a.base,
            TypeKind::Struct(_) => return None,
        };
        self.model.types[id.0].kind = kind;
        self.simple_state.insert(id, State::Done);
        Some(Scalar { builtin, named: Some(id) })
    }

    /// Resolves a reference to a simple type (built-in or named).
    fn resolve_simple(&mut self, q: &QName) -> Option<Scalar> {
        if q.is_xs() {
            return match Builtin::from_xsd(&q.local) {
                Some(b) => Some(Scalar { builtin: b, named: None }),
                None => {
                    let supported: Vec<String> = Builtin::ALL.iter().map(|(_, n)| format!("xs:{n}")).collect();
                    self.diags.push(
                        Diagnostic::error(q.span.clone(), format!("unsupported built-in type `xs:{}`", q.local))
                            .with_note(format!("supported: {}", supported.join(", "))),
                    );
                    None
                }
            };
        }
        if let Some(&(id, _)) = self.simple.get(&q.local) {
            let builtin = self.ensure_simple(id)?;
            return Some(Scalar { builtin, named: Some(id) });
        }
        if self.complex.contains_key(&q.local) {
            self.diags
                .error(q.span.clone(), format!("`{}` is a complex type; a simple type is expected here", q.local));
            return None;
        }
        let mut d = Diagnostic::error(q.span.clone(), format!("unknown type `{}`", q.local));
        if let Some(s) = self.closest_name(&q.local) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.diags.push(d);
        None
    }

    fn closest_name(&self, name: &str) -> Option<String> {
        let lower = name.to_ascii_lowercase();
        let mut all: Vec<&String> = self.simple.keys().chain(self.complex.keys()).collect();
        all.sort();
        all.into_iter().find(|n| n.to_ascii_lowercase() == lower).cloned()
    }

    /// Lowers a named simple type once (on demand), detecting restriction cycles.
    fn ensure_simple(&mut self, id: TypeId) -> Option<Builtin> {
        match self.simple_state.get(&id) {
            Some(State::Done) => {}
            Some(State::InProgress) => {
                let span = self.model.ty(id).span.clone();
                let name = self.model.ty(id).xml_name.clone();
                self.diags.error(span, format!("simple type `{name}` is defined in terms of itself"));
                return None;
            }
            None => {
                self.simple_state.insert(id, State::InProgress);
                let decl = self.simple.values().find(|(i, _)| *i == id).map(|(_, d)| *d)?;
                let kind = self.simple_kind(decl);
                self.simple_state.insert(id, State::Done);
                match kind {
                    Some(k) => self.model.types[id.0].kind = k,
                    None => return None,
                }
            }
        }
        match &self.model.ty(id).kind {
            TypeKind::Enum(e) => Some(e.base),
            TypeKind::Alias(a) => Some(a.base),
            TypeKind::Struct(_) => None,
        }
    }

    fn simple_kind(&mut self, t: &'a SimpleTypeDecl) -> Option<TypeKind> {
        match &t.def {
            SimpleDef::Restriction { base, facets } => self.restriction(base, facets),
            SimpleDef::Union { members } => self.open_code_list(t, members),
        }
    }

    /// A restriction: an enumeration (a code list), or a built-in with facets (an alias).
    fn restriction(&mut self, base: &'a QName, facets: &'a [FacetDecl]) -> Option<TypeKind> {
        let base_scalar = self.resolve_simple(base)?;
        let (builtin, mut merged, base_enum) = match base_scalar.named.map(|id| &self.model.ty(id).kind) {
            Some(TypeKind::Alias(a)) => (a.base, a.facets.clone(), None),
            Some(TypeKind::Enum(e)) => (e.base, Facets::default(), Some(e.clone())),
            _ => (base_scalar.builtin, Facets::default(), None),
        };
        let mut variants = Vec::new();
        let mut step_patterns = Vec::new();
        let mut other_facet = None;
        for f in facets {
            let v = &f.value;
            match f.kind {
                FacetKind::Enumeration => self.enumeration(builtin, base_enum.as_ref(), &mut variants, f),
                FacetKind::Pattern => {
                    if let Err(msg) = translate_pattern(&v.value) {
                        self.diags.error(v.span.clone(), format!("pattern `{}` cannot be used: {msg}", v.value));
                    }
                    step_patterns.push(v.value.clone());
                    other_facet = Some(v.span.clone());
                }
                FacetKind::Length
                | FacetKind::MinLength
                | FacetKind::MaxLength
                | FacetKind::MinInclusive
                | FacetKind::MaxInclusive => {
                    other_facet = Some(v.span.clone());
                    self.bound(builtin, &mut merged, f);
                }
            }
        }
        if let (Some(min), Some(max)) = (merged.min_length, merged.max_length)
            && min > max
            && let Some(span) = &other_facet
        {
            self.diags.error(span.clone(), format!("minLength {min} is greater than maxLength {max}"));
        }
        if !step_patterns.is_empty() {
            merged.patterns.push(if step_patterns.len() == 1 {
                step_patterns.remove(0)
            } else {
                step_patterns.iter().map(|p| format!("({p})")).collect::<Vec<_>>().join("|")
            });
        }
        if !variants.is_empty() {
            if let Some(span) = other_facet {
                self.diags.error(span, "an enumeration cannot be combined with other facets in this subset");
            }
            Some(TypeKind::Enum(EnumDef { base: builtin, variants, open: None, known_from: None }))
        } else if let Some(be) = base_enum {
            Some(TypeKind::Enum(be))
        } else {
            Some(TypeKind::Alias(AliasDef { base: builtin, facets: merged }))
        }
    }

    /// One value of an enumeration, checked against the built-in, the base's values and those
    /// listed before.
    fn enumeration(
        &mut self,
        builtin: Builtin,
        base_enum: Option<&EnumDef>,
        variants: &mut Vec<Variant>,
        f: &FacetDecl,
    ) {
        let v = &f.value;
        if let Err(msg) = builtin.check(&v.value) {
            self.diags.error(
                v.span.clone(),
                format!("enumeration value `{}` is not a valid xs:{} (expected {msg})", v.value, builtin.xsd_name()),
            );
        }
        if let Some(be) = &base_enum
            && !be.variants.iter().any(|b| b.value == v.value)
        {
            self.diags.error(v.span.clone(), format!("`{}` is not one of the base type's values", v.value));
        }
        if variants.iter().any(|x: &Variant| x.value == v.value) {
            self.diags.error(v.span.clone(), format!("enumeration value `{}` is listed twice", v.value));
            return;
        }
        variants.push(Variant {
            value: v.value.clone(),
            given_name: f.ann.variant.as_ref().map(|n| n.value.clone()),
            rust_name: String::new(),
            also: f.ann.also.iter().map(|a| a.value.clone()).collect(),
            doc: f.ann.doc.clone(),
            span: f.ann.variant.as_ref().map(|n| n.span.clone()).unwrap_or_else(|| v.span.clone()),
        });
    }

    /// A length or range facet, checked against the built-in and merged into `merged`.
    fn bound(&mut self, builtin: Builtin, merged: &mut Facets, f: &FacetDecl) {
        let v = &f.value;
        match f.kind {
            FacetKind::Length | FacetKind::MinLength | FacetKind::MaxLength => {
                if !builtin.is_string() {
                    self.diags.error(
                        v.span.clone(),
                        format!("length facets apply to string types, not xs:{}", builtin.xsd_name()),
                    );
                    return;
                }
                let Ok(n) = v.value.parse::<u32>() else {
                    self.diags
                        .error(v.span.clone(), format!("a length is a non-negative integer, found `{}`", v.value));
                    return;
                };
                match f.kind {
                    FacetKind::Length => {
                        merged.min_length = Some(n);
                        merged.max_length = Some(n);
                    }
                    FacetKind::MinLength => merged.min_length = Some(n),
                    _ => merged.max_length = Some(n),
                }
            }
            FacetKind::MinInclusive | FacetKind::MaxInclusive => {
                if !builtin.is_ordered() {
                    self.diags.error(v.span.clone(), format!("range facets do not apply to xs:{}", builtin.xsd_name()));
                    return;
                }
                if let Err(msg) = builtin.check(&v.value) {
                    self.diags.error(
                        v.span.clone(),
                        format!("bound `{}` is not a valid xs:{} (expected {msg})", v.value, builtin.xsd_name()),
                    );
                    return;
                }
                if f.kind == FacetKind::MinInclusive {
                    merged.min_inclusive = Some(v.value.clone());
                } else {
                    merged.max_inclusive = Some(v.value.clone());
                }
            }
            _ => {}
        }
    }

    /// An open code list: `xs:union` of a closed enumeration and the type of any other value.
    fn open_code_list(&mut self, t: &'a SimpleTypeDecl, members: &'a [QName]) -> Option<TypeKind> {
        let help = "an open code list is written <xs:union memberTypes=\"KnownValues xs:string\"/>: an enumeration type, then the type of any other value";
        let [known, other] = members else {
            self.diags.push(
                Diagnostic::error(
                    t.span.clone(),
                    format!("xs:union must have exactly two member types, found {}", members.len()),
                )
                .with_note(help),
            );
            return None;
        };
        let known_s = self.resolve_simple(known)?;
        let other_s = self.resolve_simple(other)?;
        let known_id = known_s.named?;
        let TypeKind::Enum(e) = &self.model.ty(known_id).kind else {
            self.diags.push(
                Diagnostic::error(known.span.clone(), "the first member of an open code list must be an enumeration")
                    .with_note(help),
            );
            return None;
        };
        if e.open.is_some() {
            self.diags.error(known.span.clone(), "the first member of an open code list must be a closed enumeration");
            return None;
        }
        if self.is_enum(other_s) {
            self.diags.push(
                Diagnostic::error(
                    other.span.clone(),
                    "the second member of an open code list must not be an enumeration",
                )
                .with_note(help),
            );
            return None;
        }
        // The known values need not be values of the other member (XML Schema unions
        // allow that: `*` is a known `LanguageSelector` but not an `xs:language`); each
        // was checked against its own enumeration's base.
        let mut e = e.clone();
        e.open = Some(other_s);
        e.known_from = Some(known_id);
        Some(TypeKind::Enum(e))
    }

    /// Pass 3: resolve the `response` of each request to its root type.
    fn finish(&mut self) {
        let roots: Vec<(TypeId, RootInfo)> = self.model.roots().map(|(_, id, r)| (id, r.clone())).collect();
        for (r, request) in &self.responses {
            let found = match roots.iter().find(|(_, x)| x.element == r.value) {
                None => {
                    self.diags.error(
                        r.span.clone(),
                        format!("response `{}` of `{request}` is not a root element of the spec", r.value),
                    );
                    continue;
                }
                Some((_, x)) if x.path.is_some() || x.response.is_some() => {
                    self.diags.error(
                        r.span.clone(),
                        format!(
                            "`{}` is a request (it has a path or a response); a response root has neither",
                            r.value
                        ),
                    );
                    continue;
                }
                Some((id, _)) => *id,
            };
            let Some(&(request_id, _)) = roots.iter().find(|(_, x)| &x.element == request) else { continue };
            if let TypeKind::Struct(StructDef { root: Some(info), .. }) = &mut self.model.types[request_id.0].kind {
                info.response_type = Some(found);
            }
        }
    }
}

/// The `gen:personal` mark of a declaration (its mask is checked and defaulted by the
/// `personal` pass).
fn personal(ann: &Annotation) -> Option<Box<Personal>> {
    ann.personal
        .as_ref()
        .map(|p| Box::new(Personal { mask: p.mask.as_ref().map(|m| m.value.clone()), span: p.span.clone() }))
}

/// The `gen:written` forms of a declaration (resolved to dialects by the `dialects` pass).
fn written(ann: &Annotation) -> Vec<Written> {
    ann.written
        .iter()
        .map(|w| Written {
            dialect_name: w.dialect.value.clone(),
            dialect: 0,
            form: match (&w.name, w.empty_when_absent) {
                (Some(n), _) => WrittenForm::Name(n.value.clone()),
                (None, true) => WrittenForm::EmptyWhenAbsent,
                (None, false) => WrittenForm::Omitted,
            },
            span: w.span.clone(),
        })
        .collect()
}
