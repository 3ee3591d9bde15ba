//! Stage 4, **emit**: the model as Rust tokens, with `quote` (no Rust is built from strings).
//!
//! Per spec file, one module of types with yaserde 0.13 derives in the verified forms (the full
//! namespace triple on every struct, `prefix` on every child element, none on attributes).
//! Besides the modules: `schema.rs`, the tables the runtime's strict checker walks, and
//! `mod.rs`, which lists the modules, the `AnyRequest` enum and the operation table.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Builtin, Content, EnumDef, Field, FieldType, Model, Multiplicity, Particle, Scalar, StructDef, TypeId, TypeKind};
use crate::naming::{pascal, screaming};
use crate::parse::OTA;

/// The emitted token streams, one per output file (relative path → tokens).
pub type Emitted = BTreeMap<String, TokenStream>;

/// Emits every output file of the model.
pub fn emit(model: &Model) -> Emitted {
    let mut out = Emitted::new();
    for (mi, m) in model.modules.iter().enumerate() {
        out.insert(format!("{}.rs", m.name), module(model, mi));
    }
    out.insert("schema.rs".to_string(), schema(model));
    out.insert("mod.rs".to_string(), mod_rs(model));
    out
}

fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// Wraps `<...>` runs in backticks so rustdoc does not read them as HTML tags.
fn doc_text(text: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '[' | ']' if !in_code => {
                // Brackets in prose (`RoomStay[6]`) are not links.
                out.push('\\');
                out.push(c);
            }
            '<' if !in_code => {
                let tag: String = chars.clone().take_while(|&ch| ch != '>' && ch != ' ').collect();
                if !tag.is_empty() && chars.clone().nth(tag.chars().count()) == Some('>') {
                    out.push_str(&format!("`<{tag}>`"));
                    for _ in 0..=tag.chars().count() {
                        chars.next();
                    }
                } else {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// `#[doc]` attributes for a text, one per line.
fn doc(text: &str) -> TokenStream {
    let attrs = doc_lines(text).into_iter().map(|l| quote!(#[doc = #l]));
    quote!(#(#attrs)*)
}

/// `#![doc]` attributes (module documentation) for a text, one per line.
fn inner_doc(text: &str) -> TokenStream {
    let attrs = doc_lines(text).into_iter().map(|l| quote!(#![doc = #l]));
    quote!(#(#attrs)*)
}

fn doc_lines(text: &str) -> Vec<String> {
    doc_text(text).lines().map(|l| if l.is_empty() { String::new() } else { format!(" {l}") }).collect()
}

fn doc_or(text: Option<&str>, fallback: impl FnOnce() -> String) -> TokenStream {
    match text {
        Some(t) => doc(t),
        None => doc(&fallback()),
    }
}

/// Tracks what a module file needs to import.
struct Ctx<'m> {
    model: &'m Model,
    module: usize,
    imports: BTreeMap<String, BTreeSet<String>>,
    uses_rt: bool,
    uses_empty_string: bool,
}

impl<'m> Ctx<'m> {
    fn type_ref(&mut self, id: TypeId) -> TokenStream {
        let t = self.model.ty(id);
        if t.module != self.module {
            let m = &self.model.modules[t.module].name;
            self.imports.entry(m.clone()).or_default().insert(t.rust_name.clone());
        }
        let name = ident(&t.rust_name);
        quote!(#name)
    }

    fn builtin(&mut self, b: Builtin) -> TokenStream {
        match b {
            Builtin::String | Builtin::NormalizedString | Builtin::Token | Builtin::Language => quote!(String),
            Builtin::Boolean => quote!(bool),
            Builtin::Int => quote!(i32),
            Builtin::Integer => quote!(i64),
            Builtin::NonNegativeInteger | Builtin::PositiveInteger => quote!(u64),
            Builtin::UnsignedInt => quote!(u32),
            Builtin::Decimal => {
                self.uses_rt = true;
                quote!(rt::Decimal)
            }
            Builtin::Date => {
                self.uses_rt = true;
                quote!(rt::Date)
            }
            Builtin::DateTime => {
                self.uses_rt = true;
                quote!(rt::DateTime)
            }
        }
    }

    fn scalar(&mut self, s: &Scalar) -> TokenStream {
        match s.named {
            Some(id) if has_rust_item(self.model, id) => self.type_ref(id),
            _ => self.builtin(s.builtin),
        }
    }

    fn field_type(&mut self, f: &Field) -> TokenStream {
        let inner = match &f.ty {
            FieldType::Complex(id) => self.type_ref(*id),
            FieldType::Simple(s) => self.scalar(s),
        };
        match f.multiplicity() {
            Multiplicity::One => inner,
            Multiplicity::Optional => quote!(Option<#inner>),
            Multiplicity::Many => quote!(Vec<#inner>),
        }
    }
}

/// True when the type becomes a Rust item. Restrictions of built-ins do not: yaserde's derive
/// reads a field as a primitive only by its type's name, so a field of an alias of `String`
/// would not compile. Their constraints go into the field's documentation instead.
fn has_rust_item(model: &Model, id: TypeId) -> bool {
    let t = model.ty(id);
    t.emitted && !matches!(t.kind, TypeKind::Alias(_))
}

/// A sentence on the value type of a field, for its documentation.
fn value_note(model: &Model, ty: &FieldType) -> Option<String> {
    let FieldType::Simple(s) = ty else { return None };
    let id = s.named?;
    let t = model.ty(id);
    let TypeKind::Alias(a) = &t.kind else { return None };
    let mut checks = Vec::new();
    for p in &a.facets.patterns {
        checks.push(format!("matches `{p}`"));
    }
    match (a.facets.min_length, a.facets.max_length) {
        (Some(x), Some(y)) if x == y => checks.push(format!("exactly {x} characters")),
        (Some(x), Some(y)) => checks.push(format!("{x} to {y} characters")),
        (Some(x), None) => checks.push(format!("at least {x} characters")),
        (None, Some(y)) => checks.push(format!("at most {y} characters")),
        (None, None) => {}
    }
    if let Some(v) = &a.facets.min_inclusive {
        checks.push(format!("at least `{v}`"));
    }
    if let Some(v) = &a.facets.max_inclusive {
        checks.push(format!("at most `{v}`"));
    }
    let what = if t.named { format!("`{}` (`xs:{}`)", t.xml_name, a.base.xsd_name()) } else { format!("`xs:{}`", a.base.xsd_name()) };
    Some(if checks.is_empty() {
        format!("Value type: {what}.")
    } else {
        format!("Value type: {what}; checked when decoding: {}.", checks.join(", "))
    })
}

/// The documentation of a field: its own text (or a fallback) and its value constraints.
fn field_doc(model: &Model, f: &Field, fallback: String, extra: Option<&str>) -> TokenStream {
    let mut text = f.doc.clone().unwrap_or(fallback);
    if let Some(n) = value_note(model, &f.ty) {
        text.push_str(&format!("\n\n{n}"));
    }
    if let Some(e) = extra {
        text.push_str(&format!("\n\n{e}"));
    }
    doc(&text)
}

fn namespace_attr(xml_name: &str) -> TokenStream {
    quote! {
        #[yaserde(
            rename = #xml_name,
            prefix = "ota",
            default_namespace = "ota",
            namespaces = { "ota" = #OTA }
        )]
    }
}

fn module(model: &Model, mi: usize) -> TokenStream {
    let m = &model.modules[mi];
    let mut ctx = Ctx { model, module: mi, imports: BTreeMap::new(), uses_rt: false, uses_empty_string: false };
    let mut items = Vec::new();
    for &id in &m.types {
        if !has_rust_item(model, id) {
            continue;
        }
        let t = model.ty(id);
        items.push(match &t.kind {
            TypeKind::Struct(s) => struct_item(&mut ctx, id, s),
            TypeKind::Enum(e) => enum_item(&mut ctx, id, e),
            TypeKind::Alias(_) => continue,
        });
        if let TypeKind::Struct(s) = &t.kind {
            items.push(decode_impl(&mut ctx, id, s));
            items.push(encode_impl(&mut ctx, id, s));
            if let Some(root) = &s.root {
                items.push(root_impls(&mut ctx, id, s, root));
            }
        }
    }
    let module_doc = inner_doc(m.doc.as_deref().unwrap_or("Types of one spec file."));
    let mut uses = Vec::new();
    if ctx.uses_rt {
        uses.push(quote!(use crate::runtime as rt;));
    }
    if ctx.uses_empty_string {
        uses.push(quote!(use crate::runtime::empty_string;));
    }
    for (m, names) in &ctx.imports {
        let m = ident(m);
        let names = names.iter().map(|n| ident(n));
        uses.push(quote!(use super::#m::{#(#names),*};));
    }
    quote! {
        #module_doc
        #(#uses)*
        #(#items)*
    }
}

fn struct_item(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let d = doc_or(t.doc.as_deref(), || format!("The `{}` element.", t.xml_name));
    let ns = namespace_attr(&t.xml_name);
    let mut fields = Vec::new();
    for a in &s.attributes {
        let fname = ident(&a.rust_name);
        let ty = ctx.field_type(a);
        let xml = &a.xml_name;
        let fd = field_doc(ctx.model, a, format!("The `{xml}` attribute."), None);
        fields.push(quote! {
            #fd
            #[yaserde(attribute = true, rename = #xml)]
            pub #fname: #ty,
        });
    }
    match &s.content {
        Content::Empty => {}
        Content::Text(sc) => {
            ctx.uses_empty_string = true;
            let ty = ctx.scalar(sc);
            let mut text = "The element's text content.".to_string();
            if let Some(n) = value_note(ctx.model, &FieldType::Simple(*sc)) {
                text.push_str(&format!("\n\n{n}"));
            }
            let td = doc(&text);
            fields.push(quote! {
                #td
                #[yaserde(text = true, default = "empty_string")]
                pub value: #ty,
            });
        }
        Content::Sequence(ps) => {
            let mut choice_fields: Vec<&Field> = Vec::new();
            for p in ps {
                let (list, note): (&[&Field], Option<String>) = match p {
                    Particle::Element(f) => {
                        choice_fields.clear();
                        choice_fields.push(f);
                        (choice_fields.as_slice(), None)
                    }
                    Particle::Choice { required, branches } => {
                        let alternatives: Vec<String> = branches
                            .iter()
                            .map(|b| b.iter().map(|f| format!("`{}`", f.rust_name)).collect::<Vec<_>>().join(" + "))
                            .collect();
                        let n = if *required { "Exactly one" } else { "At most one" };
                        let note = format!("{n} of these alternatives is present (an `xs:choice`): {}.", alternatives.join("; "));
                        choice_fields.clear();
                        choice_fields.extend(branches.iter().flatten());
                        (choice_fields.as_slice(), Some(note))
                    }
                };
                for f in list {
                    let fname = ident(&f.rust_name);
                    let ty = ctx.field_type(f);
                    let xml = &f.xml_name;
                    let fd = field_doc(ctx.model, f, format!("The `{xml}` element."), note.as_deref());
                    fields.push(quote! {
                        #fd
                        #[yaserde(prefix = "ota", rename = #xml)]
                        pub #fname: #ty,
                    });
                }
            }
        }
    }
    let derive_default = if s.root.is_some() { quote!() } else { quote!(Default,) };
    quote! {
        #d
        #[derive(Debug, Clone, PartialEq, #derive_default yaserde::YaSerialize, yaserde::YaDeserialize)]
        #ns
        pub struct #name {
            #(#fields)*
        }
    }
}

/// The child element fields in declaration order (choice alternatives flattened): the order of
/// `ElementDesc::index`.
fn element_fields(s: &StructDef) -> Vec<&Field> {
    match &s.content {
        Content::Sequence(ps) => ps
            .iter()
            .flat_map(|p| match p {
                Particle::Element(f) => vec![f],
                Particle::Choice { branches, .. } => branches.iter().flatten().collect(),
            })
            .collect(),
        Content::Empty | Content::Text(_) => Vec::new(),
    }
}

/// The `Decode` impl of a struct: attributes and children checked and bound in one pass.
fn decode_impl(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    ctx.uses_rt = true;
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let desc = format_ident!("{}", screaming(&t.rust_name));
    let local = |f: &Field| format_ident!("f_{}", f.rust_name.trim_start_matches("r#"));
    let mut decls = Vec::new();
    let mut attr_arms = Vec::new();
    let mut inits = Vec::new();
    for (i, a) in s.attributes.iter().enumerate() {
        let l = local(a);
        let fname = ident(&a.rust_name);
        let xml = &a.xml_name;
        let i = proc_macro2::Literal::usize_unsuffixed(i);
        decls.push(quote!(let mut #l = None;));
        attr_arms.push((quote!(Some(#i)), quote!(#l = Some(cx.value(&attr, DESC.attributes[#i].ty)?);)));
        inits.push(match a.multiplicity() {
            Multiplicity::One => quote!(#fname: #l.ok_or_else(|| cx.missing_attribute(node, #xml))?,),
            _ => quote!(#fname: #l,),
        });
    }
    let attrs_loop = match attr_arms.as_slice() {
        [] => quote! {
            for attr in node.attributes() {
                cx.attribute(&attr, DESC)?;
            }
        },
        [(pat, body)] => quote! {
            for attr in node.attributes() {
                if let #pat = cx.attribute(&attr, DESC)? {
                    #body
                }
            }
        },
        arms => {
            let arms = arms.iter().map(|(pat, body)| quote!(#pat => { #body }));
            quote! {
                for attr in node.attributes() {
                    match cx.attribute(&attr, DESC)? {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        }
    };
    let content = match &s.content {
        Content::Empty => quote!(cx.empty(node)?;),
        Content::Text(sc) => {
            let d = simple_desc_path(ctx.model, sc);
            inits.push(quote!(value: f_value,));
            quote!(let f_value = cx.text(node, #d)?;)
        }
        Content::Sequence(_) => {
            let mut arms = Vec::new();
            for (i, f) in element_fields(s).into_iter().enumerate() {
                let i = proc_macro2::Literal::usize_unsuffixed(i);
                let l = local(f);
                let fname = ident(&f.rust_name);
                let read = match &f.ty {
                    FieldType::Complex(cid) => {
                        let ct = ctx.type_ref(*cid);
                        quote!(cx.element(&next, <#ct as rt::Decode>::decode)?)
                    }
                    FieldType::Simple(_) => quote!(cx.simple(&next)?),
                };
                match f.multiplicity() {
                    Multiplicity::Many => {
                        decls.push(quote!(let mut #l = Vec::new();));
                        arms.push(quote!(#i => #l.push(#read),));
                        inits.push(quote!(#fname: #l,));
                    }
                    Multiplicity::Optional => {
                        decls.push(quote!(let mut #l = None;));
                        arms.push(quote!(#i => #l = Some(#read),));
                        inits.push(quote!(#fname: #l,));
                    }
                    Multiplicity::One => {
                        decls.push(quote!(let mut #l = None;));
                        arms.push(quote!(#i => #l = Some(#read),));
                        inits.push(quote!(#fname: #l.ok_or_else(|| cx.bug(node))?,));
                    }
                }
            }
            quote! {
                let mut children = cx.children(node, DESC)?;
                while let Some(next) = children.next(cx)? {
                    match next.elem.index {
                        #(#arms)*
                        _ => return Err(cx.bug(next.node)),
                    }
                }
                children.finish(cx)?;
            }
        }
    };
    quote! {
        impl rt::Decode for #name {
            fn decode<'a, 'i>(node: rt::Node<'a, 'i>, cx: &mut rt::Cx<'a, 'i>) -> Result<Self, rt::DecodeError> {
                const DESC: &rt::schema::ComplexDesc = &super::schema::#desc;
                #(#decls)*
                #attrs_loop
                #content
                Ok(Self { #(#inits)* })
            }
        }
    }
}

/// The `Encode` impl of a struct: attributes, then text or children, in declaration order.
fn encode_impl(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let mut body = Vec::new();
    for a in &s.attributes {
        let f = ident(&a.rust_name);
        let xml = &a.xml_name;
        body.push(match a.multiplicity() {
            Multiplicity::One => quote!(w.attr(#xml, &self.#f);),
            _ => quote!(w.attr_opt(#xml, &self.#f);),
        });
    }
    match &s.content {
        Content::Empty => {}
        Content::Text(_) => body.push(quote!(w.text(&self.value);)),
        Content::Sequence(_) => {
            for f in element_fields(s) {
                let fname = ident(&f.rust_name);
                let xml = &f.xml_name;
                let write = |v: TokenStream| match &f.ty {
                    FieldType::Complex(_) => quote!(rt::Encode::encode(#v, w, #xml);),
                    FieldType::Simple(_) => quote!(w.simple(#xml, #v);),
                };
                body.push(match f.multiplicity() {
                    Multiplicity::One => write(quote!(&self.#fname)),
                    Multiplicity::Optional => {
                        let inner = write(quote!(v));
                        quote!(if let Some(v) = &self.#fname { #inner })
                    }
                    Multiplicity::Many => {
                        let inner = write(quote!(v));
                        quote!(for v in &self.#fname { #inner })
                    }
                });
            }
        }
    }
    quote! {
        impl rt::Encode for #name {
            fn encode(&self, w: &mut rt::Writer, name: &str) {
                w.start(name);
                #(#body)*
                w.end(name);
            }
        }
    }
}

/// A path to the static descriptor of a simple type, from a message module.
fn simple_desc_path(model: &Model, s: &Scalar) -> TokenStream {
    match s.named {
        Some(id) => {
            let n = format_ident!("{}", screaming(&model.ty(id).rust_name));
            quote!(&super::schema::#n)
        }
        None => {
            let n = format_ident!("XS_{}", screaming(s.builtin.xsd_name()));
            quote!(&rt::schema::#n)
        }
    }
}

fn all_fields(s: &StructDef) -> Vec<&Field> {
    let mut out: Vec<&Field> = s.attributes.iter().collect();
    if let Content::Sequence(ps) = &s.content {
        for p in ps {
            match p {
                Particle::Element(f) => out.push(f),
                Particle::Choice { branches, .. } => out.extend(branches.iter().flatten()),
            }
        }
    }
    out
}

/// The OTA response shape of a root: a choice between a branch that starts with `Success` and
/// an `Errors` alternative.
struct ResponseShape<'m> {
    success: &'m Field,
    warnings: Option<&'m Field>,
    payload: Vec<&'m Field>,
    errors: &'m Field,
}

fn response_shape(s: &StructDef) -> Option<ResponseShape<'_>> {
    let Content::Sequence(ps) = &s.content else { return None };
    let [Particle::Choice { branches, .. }] = ps.as_slice() else { return None };
    let ok = branches.iter().find(|b| b.first().is_some_and(|f| f.xml_name == "Success"))?;
    let errors = branches.iter().find_map(|b| match b.as_slice() {
        [f] if f.xml_name == "Errors" => Some(f),
        _ => None,
    })?;
    let success = ok.first()?;
    let warnings = ok.iter().find(|f| f.xml_name == "Warnings");
    let payload = ok.iter().skip(1).filter(|f| f.xml_name != "Warnings").collect();
    Some(ResponseShape { success, warnings, payload, errors })
}

fn root_impls(ctx: &mut Ctx, id: TypeId, s: &StructDef, root: &crate::ir::RootInfo) -> TokenStream {
    ctx.uses_rt = true;
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let element = &root.element;
    let version = &root.version;
    let desc = format_ident!("{}", screaming(&t.rust_name));
    let inits = all_fields(s).into_iter().map(|f| {
        let fname = ident(&f.rust_name);
        let is_version = f.xml_name == "Version"
            && f.multiplicity() == Multiplicity::One
            && matches!(f.ty, FieldType::Simple(sc) if sc.builtin.is_string());
        if is_version {
            quote!(#fname: <Self as rt::Message>::VERSION.to_string(),)
        } else {
            quote!(#fname: Default::default(),)
        }
    });
    let text_init = if matches!(s.content, Content::Text(_)) { quote!(value: String::new(),) } else { quote!() };
    let request = root.path.as_ref().map(|path| {
        let response = root
            .response
            .as_ref()
            .and_then(|r| ctx.model.roots().find(|(_, _, info)| &info.element == r).map(|(_, rid, _)| rid))
            .map(|rid| ctx.type_ref(rid));
        let response = response.map(|r| quote!(type Response = #r;));
        quote! {
            impl rt::Request for #name {
                const PATH: &'static str = #path;
                #response
            }
        }
    });
    let response = response_shape(s).map(|shape| {
        let ty = |ctx: &mut Ctx, f: &Field| match &f.ty {
            FieldType::Complex(id) => ctx.type_ref(*id),
            FieldType::Simple(sc) => ctx.scalar(sc),
        };
        let success = ident(&shape.success.rust_name);
        let success_ty = ty(ctx, shape.success);
        let errors = ident(&shape.errors.rust_name);
        let errors_ty = ty(ctx, shape.errors);
        let required: Vec<&Field> = shape.payload.iter().copied().filter(|f| f.min > 0).collect();
        let params: Vec<TokenStream> = required
            .iter()
            .map(|f| {
                let n = ident(&f.rust_name);
                let t = ty(ctx, f);
                if f.max == Some(1) { quote!(#n: #t) } else { quote!(#n: Vec<#t>) }
            })
            .collect();
        let sets = required.iter().map(|f| {
            let n = ident(&f.rust_name);
            if f.max == Some(1) { quote!(#n: Some(#n),) } else { quote!(#n,) }
        });
        let payload_names: Vec<String> = required.iter().map(|f| format!("`{}`", f.xml_name)).collect();
        let success_doc = if payload_names.is_empty() {
            "A success answer (`Success`, no warnings); set the optional payload fields afterwards.".to_string()
        } else {
            format!("A success answer: `Success` and the required payload ({}); no warnings.", payload_names.join(", "))
        };
        let success_doc = doc(&success_doc);
        let (warnings_ty, warnings_get, with_warnings) = match shape.warnings {
            Some(w) => {
                let wn = ident(&w.rust_name);
                let wt = ty(ctx, w);
                (
                    quote!(#wt),
                    quote!(self.#wn.as_ref()),
                    quote! {
                        /// Adds warnings to a success answer.
                        pub fn with_warnings(mut self, warnings: #wt) -> Self {
                            self.#wn = Some(warnings);
                            self
                        }
                    },
                )
            }
            None => (quote!(()), quote!(None), quote!()),
        };
        quote! {
            impl #name {
                #success_doc
                pub fn success(#(#params),*) -> Self {
                    Self { #success: Some(#success_ty::default()), #(#sets)* ..Default::default() }
                }

                #with_warnings
            }

            impl rt::Response for #name {
                type Errors = #errors_ty;
                type Warnings = #warnings_ty;

                fn is_success(&self) -> bool {
                    self.#success.is_some()
                }

                fn errors(&self) -> Option<&Self::Errors> {
                    self.#errors.as_ref()
                }

                fn warnings(&self) -> Option<&Self::Warnings> {
                    #warnings_get
                }

                fn from_errors(errors: Self::Errors) -> Self {
                    Self { #errors: Some(errors), ..Default::default() }
                }
            }
        }
    });
    quote! {
        /// A new message with `Version` set to the one the service expects and every other field empty.
        impl Default for #name {
            fn default() -> Self {
                Self { #(#inits)* #text_init }
            }
        }

        impl rt::Message for #name {
            const ROOT: &'static str = #element;
            const VERSION: &'static str = #version;
            fn schema() -> &'static rt::schema::ComplexDesc {
                &super::schema::#desc
            }
        }

        #request
        #response
    }
}

fn enum_item(ctx: &mut Ctx, id: TypeId, e: &EnumDef) -> TokenStream {
    ctx.uses_rt = true;
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let mut text = t.doc.clone().unwrap_or_else(|| format!("The `{}` code list.", t.xml_name));
    text.push_str(if e.open.is_some() {
        "\n\nAn open list: any other value is kept, as written, in `Other`."
    } else {
        "\n\nA closed list: any other value is rejected when decoding."
    });
    let d = doc(&text);
    let mut variants = Vec::new();
    let mut to_str = Vec::new();
    let mut from_str = Vec::new();
    let mut known = Vec::new();
    for (i, v) in e.variants.iter().enumerate() {
        let vn = ident(&v.rust_name);
        let value = &v.value;
        let vd = doc_or(v.doc.as_deref(), || format!("`{value}`."));
        let default = if i == 0 { quote!(#[default]) } else { quote!() };
        variants.push(quote! { #vd #default #vn, });
        to_str.push(quote! { Self::#vn => #value, });
        from_str.push(if e.open.is_some() { quote! { #value => Self::#vn, } } else { quote! { #value => Ok(Self::#vn), } });
        known.push(value.clone());
    }
    let (other_variant, other_to_str, err_ty, fallback, body) = if e.open.is_some() {
        (
            quote! {
                /// Any other value, kept exactly as written.
                Other(String),
            },
            quote! { Self::Other(value) => value, },
            quote!(::std::convert::Infallible),
            quote! { other => Self::Other(other.to_string()), },
            true,
        )
    } else {
        ctx.uses_rt = true;
        let xml = &t.xml_name;
        (
            quote!(),
            quote!(),
            quote!(rt::UnknownValue),
            quote! { other => Err(rt::UnknownValue::new(#xml, other)), },
            false,
        )
    };
    let from_body = if body {
        quote! { Ok(match s { #(#from_str)* #fallback }) }
    } else {
        quote! { match s { #(#from_str)* #fallback } }
    };
    quote! {
        #d
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default, yaserde::DefaultYaSerde)]
        pub enum #name {
            #(#variants)*
            #other_variant
        }

        impl #name {
            /// The known values, as written in XML.
            pub const KNOWN: &'static [&'static str] = &[#(#known),*];

            /// The value as written in XML.
            pub fn as_str(&self) -> &str {
                match self {
                    #(#to_str)*
                    #other_to_str
                }
            }
        }

        impl ::std::fmt::Display for #name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for #name {
            type Err = #err_ty;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                #from_body
            }
        }

        impl rt::FromValue for #name {
            fn from_value(text: &str) -> Option<Self> {
                text.parse().ok()
            }
        }

        impl rt::ToValue for #name {
            fn to_value(&self) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(self.as_str())
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// schema.rs: the tables of the strict checker.

fn simple_desc_ref(model: &Model, s: &Scalar) -> TokenStream {
    match s.named {
        Some(id) => {
            let n = format_ident!("{}", screaming(&model.ty(id).rust_name));
            quote!(&#n)
        }
        None => {
            let n = format_ident!("XS_{}", screaming(s.builtin.xsd_name()));
            quote!(&#n)
        }
    }
}

fn builtin_variant(b: Builtin) -> TokenStream {
    let v = format_ident!("{}", pascal(b.xsd_name()));
    quote!(Builtin::#v)
}

fn element_desc(model: &Model, f: &Field, index: u16) -> TokenStream {
    let name = &f.xml_name;
    let min = f.min;
    let max = f.max.unwrap_or(u32::MAX);
    let ty = match &f.ty {
        FieldType::Complex(id) => {
            let n = format_ident!("{}", screaming(&model.ty(*id).rust_name));
            quote!(TypeDesc::Complex(&#n))
        }
        FieldType::Simple(s) => {
            let r = simple_desc_ref(model, s);
            quote!(TypeDesc::Simple(#r))
        }
    };
    let index = proc_macro2::Literal::u16_unsuffixed(index);
    quote!(ElementDesc { name: #name, index: #index, min: #min, max: #max, ty: #ty })
}

fn schema(model: &Model) -> TokenStream {
    let mut items = Vec::new();
    let mut builtins_used = BTreeSet::new();
    let mut note_builtin = |s: &Scalar| {
        if s.named.is_none() {
            builtins_used.insert(s.builtin);
        }
    };
    for t in model.types.iter().filter(|t| t.emitted) {
        let static_name = format_ident!("{}", screaming(&t.rust_name));
        let xml = &t.xml_name;
        match &t.kind {
            TypeKind::Struct(s) => {
                let attrs = s.attributes.iter().map(|a| {
                    let FieldType::Simple(sc) = &a.ty else { return quote!() };
                    note_builtin(sc);
                    let n = &a.xml_name;
                    let req = a.min > 0;
                    let ty = simple_desc_ref(model, sc);
                    quote!(AttrDesc { name: #n, required: #req, ty: #ty },)
                });
                let attrs: Vec<TokenStream> = attrs.collect();
                let content = match &s.content {
                    Content::Empty => quote!(Content::Empty),
                    Content::Text(sc) => {
                        note_builtin(sc);
                        let r = simple_desc_ref(model, sc);
                        quote!(Content::Text(#r))
                    }
                    Content::Sequence(ps) => {
                        let mut index: u16 = 0;
                        let mut next_index = || {
                            index += 1;
                            index - 1
                        };
                        let parts = ps.iter().map(|p| match p {
                            Particle::Element(f) => {
                                if let FieldType::Simple(sc) = &f.ty {
                                    note_builtin(sc);
                                }
                                let e = element_desc(model, f, next_index());
                                quote!(Particle::Element(#e),)
                            }
                            Particle::Choice { required, branches } => {
                                let branches: Vec<TokenStream> = branches
                                    .iter()
                                    .map(|b| {
                                        let elems: Vec<TokenStream> = b
                                            .iter()
                                            .map(|f| {
                                                if let FieldType::Simple(sc) = &f.ty {
                                                    note_builtin(sc);
                                                }
                                                element_desc(model, f, next_index())
                                            })
                                            .collect();
                                        quote!(&[#(#elems),*])
                                    })
                                    .collect();
                                quote!(Particle::Choice { required: #required, branches: &[#(#branches),*] },)
                            }
                        });
                        let parts: Vec<TokenStream> = parts.collect();
                        quote!(Content::Sequence(&[#(#parts)*]))
                    }
                };
                items.push(quote! {
                    pub static #static_name: ComplexDesc = ComplexDesc {
                        name: #xml,
                        attributes: &[#(#attrs)*],
                        content: #content,
                    };
                });
            }
            TypeKind::Enum(e) => {
                let builtin = builtin_variant(e.base);
                let values = e.variants.iter().map(|v| &v.value);
                let open = match &e.open {
                    Some(o) => {
                        note_builtin(o);
                        let r = simple_desc_ref(model, o);
                        quote!(Some(#r))
                    }
                    None => quote!(None),
                };
                items.push(quote! {
                    pub static #static_name: SimpleDesc = SimpleDesc {
                        values: &[#(#values),*],
                        open: #open,
                        ..SimpleDesc::builtin(#xml, #builtin)
                    };
                });
            }
            TypeKind::Alias(a) => {
                let builtin = builtin_variant(a.base);
                let f = &a.facets;
                let mut extra = Vec::new();
                if !f.patterns.is_empty() {
                    let pname = format_ident!("{}_PATTERNS", screaming(&t.rust_name));
                    let n = f.patterns.len();
                    let pats = f.patterns.iter().map(|p| {
                        let rust = crate::regex::translate_pattern(p).unwrap_or_default();
                        quote!(Pattern::new(#p, #rust))
                    });
                    items.push(quote! {
                        static #pname: [Pattern; #n] = [#(#pats),*];
                    });
                    extra.push(quote!(patterns: &#pname,));
                }
                if let Some(n) = f.min_length {
                    extra.push(quote!(min_length: Some(#n),));
                }
                if let Some(n) = f.max_length {
                    extra.push(quote!(max_length: Some(#n),));
                }
                if let Some(v) = &f.min_inclusive {
                    extra.push(quote!(min_inclusive: Some(#v),));
                }
                if let Some(v) = &f.max_inclusive {
                    extra.push(quote!(max_inclusive: Some(#v),));
                }
                items.push(quote! {
                    pub static #static_name: SimpleDesc = SimpleDesc {
                        #(#extra)*
                        ..SimpleDesc::builtin(#xml, #builtin)
                    };
                });
            }
        }
    }
    let mut imports = vec![
        quote!(AttrDesc),
        quote!(Builtin),
        quote!(ComplexDesc),
        quote!(Content),
        quote!(ElementDesc),
        quote!(Particle),
        quote!(Pattern),
        quote!(SimpleDesc),
        quote!(TypeDesc),
    ];
    for b in &builtins_used {
        let n = format_ident!("XS_{}", screaming(b.xsd_name()));
        imports.push(quote!(#n));
    }
    quote! {
        //! What each element may hold: the tables the strict checker (`crate::runtime::check`)
        //! walks when decoding. One static per spec type, in spec order.
        #![allow(missing_docs)]
        use crate::runtime::schema::{#(#imports),*};
        #(#items)*
    }
}

// ---------------------------------------------------------------------------------------------
// mod.rs: the module list, AnyRequest and the operation table.

/// The name of a root's variant in `AnyMessage` / `AnyRequest`: the type name without `Ota`.
fn variant_name(model: &Model, id: TypeId) -> Ident {
    let n = &model.ty(id).rust_name;
    format_ident!("{}", n.strip_prefix("Ota").filter(|r| !r.is_empty()).unwrap_or(n))
}

/// An enum over some roots, with `from_xml` by root element and the shared encoders.
fn any_enum(model: &Model, name: &Ident, doc_text: &str, roots: &[(&crate::ir::Module, TypeId, &crate::ir::RootInfo)], extra: TokenStream) -> TokenStream {
    let d = doc(doc_text);
    let variants = roots.iter().map(|(m, id, info)| {
        let v = variant_name(model, *id);
        let mn = ident(&m.name);
        let tn = ident(&model.ty(*id).rust_name);
        let text = match &info.path {
            Some(p) => format!("`{}` (`POST {p}`).", info.element),
            None => format!("`{}`.", info.element),
        };
        let vd = doc(&text);
        quote!(#vd #v(Box<#mn::#tn>),)
    });
    let decode_arms = roots.iter().map(|(_, id, info)| {
        let v = variant_name(model, *id);
        let el = &info.element;
        quote!(#el => rt::decode_document(&doc).map(|m| Self::#v(Box::new(m))),)
    });
    let yaserde_arms = roots.iter().map(|(m, id, info)| {
        let v = variant_name(model, *id);
        let el = &info.element;
        let mn = ident(&m.name);
        let tn = ident(&model.ty(*id).rust_name);
        quote!(#el => rt::decode_with_yaserde::<#mn::#tn>(xml).map(|m| Self::#v(Box::new(m))),)
    });
    let name_arms = roots.iter().map(|(_, id, info)| {
        let v = variant_name(model, *id);
        let el = &info.element;
        quote!(Self::#v(_) => #el,)
    });
    let yaserde_encode_arms = roots.iter().map(|(_, id, _)| {
        let v = variant_name(model, *id);
        quote!(Self::#v(m) => rt::encode_with_yaserde(m.as_ref(), pretty),)
    });
    let encode_arms = roots.iter().map(|(_, id, _)| {
        let v = variant_name(model, *id);
        quote!(Self::#v(m) => rt::encode(m.as_ref(), pretty),)
    });
    let root_names = roots.iter().map(|(_, _, info)| &info.element);
    quote! {
        #d
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// The root element names this enum decodes.
            pub const ROOTS: &'static [&'static str] = &[#(#root_names),*];

            /// Decodes whichever message the root element names, with every strict check.
            pub fn from_xml(xml: &str) -> Result<Self, rt::DecodeError> {
                let doc = rt::parse_document(xml)?;
                match doc.root_element().tag_name().name() {
                    #(#decode_arms)*
                    _ => Err(rt::DecodeError::unknown_root(&doc, Self::ROOTS)),
                }
            }

            /// Decodes with the same checks but binds with yaserde instead of the generated
            /// decoder (slower; for comparison).
            pub fn from_xml_with_yaserde(xml: &str) -> Result<Self, rt::DecodeError> {
                let doc = rt::parse_document(xml)?;
                match doc.root_element().tag_name().name() {
                    #(#yaserde_arms)*
                    _ => Err(rt::DecodeError::unknown_root(&doc, Self::ROOTS)),
                }
            }

            /// Encodes with yaserde instead of the generated encoder (for comparison).
            pub fn to_xml_with_yaserde(&self, pretty: bool) -> Result<String, rt::EncodeError> {
                match self {
                    #(#yaserde_encode_arms)*
                }
            }

            /// The root element name of the message.
            pub fn root_name(&self) -> &'static str {
                match self {
                    #(#name_arms)*
                }
            }

            /// Encodes the message as compact XML.
            pub fn to_xml(&self) -> Result<String, rt::EncodeError> {
                self.encode(false)
            }

            /// Encodes the message as indented XML.
            pub fn to_xml_pretty(&self) -> Result<String, rt::EncodeError> {
                self.encode(true)
            }

            fn encode(&self, pretty: bool) -> Result<String, rt::EncodeError> {
                match self {
                    #(#encode_arms)*
                }
            }

            #extra
        }
    }
}

fn mod_rs(model: &Model) -> TokenStream {
    let mods = model.modules.iter().map(|m| {
        let n = ident(&m.name);
        let d = doc(&format!("Types of `spec/{}`.", m.file));
        quote!(#d pub mod #n;)
    });
    let all: Vec<_> = model.roots().collect();
    let requests: Vec<_> = all.iter().copied().filter(|(_, _, info)| info.path.is_some()).collect();
    let ops = requests.iter().map(|(_, _, info)| {
        let el = &info.element;
        let version = &info.version;
        let path = info.path.as_deref().unwrap_or_default();
        let response = match &info.response {
            Some(r) => quote!(Some(#r)),
            None => quote!(None),
        };
        quote!(rt::Operation { path: #path, request_root: #el, version: #version, response_root: #response },)
    });
    let op_arms = requests.iter().enumerate().map(|(i, (_, id, _))| {
        let v = variant_name(model, *id);
        quote!(Self::#v(_) => OPERATIONS[#i],)
    });
    let any_request = any_enum(
        model,
        &format_ident!("AnyRequest"),
        "Any request message of the service, decoded by its root element.",
        &requests,
        quote! {
            /// The operation this request belongs to.
            pub fn operation(&self) -> rt::Operation {
                match self {
                    #(#op_arms)*
                }
            }
        },
    );
    let any_message = any_enum(
        model,
        &format_ident!("AnyMessage"),
        "Any message of the spec (requests and responses), decoded by its root element.",
        &all,
        quote!(),
    );
    // The error answer of each operation, when every response shares one `Errors` type.
    let mut errors_ty: Option<TypeId> = None;
    let mut same_errors = true;
    let mut error_arms = Vec::new();
    for (_, _, info) in &requests {
        let response = info.response.as_ref().and_then(|r| all.iter().find(|(_, _, i)| &i.element == r));
        let shape = response.and_then(|(_, rid, _)| match &model.ty(*rid).kind {
            TypeKind::Struct(s) => response_shape(s),
            _ => None,
        });
        match (response, shape.map(|sh| &sh.errors.ty)) {
            (Some((m, rid, _)), Some(FieldType::Complex(eid))) => {
                same_errors &= errors_ty.is_none_or(|e| e == *eid);
                errors_ty = Some(*eid);
                let path = info.path.as_deref().unwrap_or_default();
                let v = variant_name(model, *rid);
                let mn = ident(&m.name);
                let tn = ident(&model.ty(*rid).rust_name);
                error_arms.push(quote! {
                    #path => Some(AnyMessage::#v(Box::new(<#mn::#tn as rt::Response>::from_errors(errors)))),
                });
            }
            _ => same_errors = false,
        }
    }
    let error_response = match errors_ty {
        Some(eid) if same_errors => {
            let et = model.ty(eid);
            let em = ident(&model.modules[et.module].name);
            let en = ident(&et.rust_name);
            quote! {
                /// The error answer (errors only, no payload) of the operation at `path`.
                pub fn error_response(path: &str, errors: #em::#en) -> Option<AnyMessage> {
                    match path {
                        #(#error_arms)*
                        _ => None,
                    }
                }
            }
        }
        _ => quote!(),
    };
    quote! {
        //! The generated message types, one module per spec file.
        use crate::runtime as rt;

        #(#mods)*
        #[doc(hidden)]
        pub mod schema;

        /// The service's operations (path, request root, expected `Version`, response root), from the spec.
        pub const OPERATIONS: &[rt::Operation] = &[#(#ops)*];

        #any_request
        #any_message
        #error_response
    }
}
