//! Stage 4, **emit**: the model as Rust tokens, with `quote` (no Rust is built from strings).
//!
//! The emitters decide nothing: what becomes an item, the response envelope, the version
//! attribute, the shared `Errors` type, the standard-attribute traits, the point of sale and
//! every name were decided by the
//! [passes](crate::passes) and are read from the model. One module per concern:
//!
//! | module | writes |
//! |---|---|
//! | `types` | structs, with yaserde 0.13 derives in the verified forms (the full namespace triple on every struct, `prefix` on every child element, none on attributes) |
//! | `enums` | code lists (closed and open) |
//! | `codecs` | the `Decode` and `Encode` impls of the structs, after every type of the file; fields bound by name |
//! | `roots` | what message roots implement: `Default`, `Message`, `Request`, `Response`, `PosRequest` |
//! | `std_traits` | the impls of the runtime's traits of standard attributes |
//! | `schema` | `schema.rs`: the tables the runtime's checker walks |
//! | `official` | `official.rs`: what the official OpenTravel schemas allow in the requests beyond the spec, and the decision on each item |
//! | `registry` | `mod.rs`: the module list, `AnyRequest`, `AnyMessage`, `OPERATIONS`, `error_response` |
//!
//! This module runs them: per spec file one module of types and their impls, then `schema.rs`
//! and `mod.rs`.

mod codecs;
mod enums;
pub mod official;
mod registry;
mod roots;
mod schema;
mod std_traits;
mod types;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::ir::{Builtin, Field, FieldType, Model, Multiplicity, Scalar, TypeId, TypeKind};

/// The emitted token streams, one per output file (relative path → tokens).
pub type Emitted = BTreeMap<String, TokenStream>;

/// Emits every output file of the model.
pub fn emit(model: &Model) -> Emitted {
    let mut out = Emitted::new();
    for (mi, m) in model.modules.iter().enumerate() {
        out.insert(format!("{}.rs", m.name), module(model, mi));
    }
    out.insert("schema.rs".to_string(), schema::schema(model));
    out.insert("official.rs".to_string(), official::official_rs(model));
    out.insert("mod.rs".to_string(), registry::mod_rs(model));
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
    uses_schema: bool,
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
            Some(id) if self.model.ty(id).has_rust_item() => self.type_ref(id),
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
    let what = if t.named {
        format!("`{}` (`xs:{}`)", t.xml_name, a.base.xsd_name())
    } else {
        format!("`xs:{}`", a.base.xsd_name())
    };
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

fn module(model: &Model, mi: usize) -> TokenStream {
    let m = &model.modules[mi];
    let mut ctx = Ctx {
        model,
        module: mi,
        imports: BTreeMap::new(),
        uses_rt: false,
        uses_schema: false,
        uses_empty_string: false,
    };
    // The file reads as declarations: the types first (their codecs derived), then what the
    // roots and the types of standard attributes implement.
    let (mut items, mut traits) = (Vec::new(), Vec::new());
    for &id in &m.types {
        let t = model.ty(id);
        if !t.has_rust_item() {
            continue;
        }
        match &t.kind {
            TypeKind::Struct(s) => {
                items.push(types::struct_item(&mut ctx, id, s));
                traits.push(std_traits::std_trait_impls(&mut ctx, id, s));
                if let Some(root) = &s.root {
                    traits.push(roots::root_impls(&mut ctx, id, s, root));
                }
            }
            TypeKind::Enum(e) => items.push(enums::enum_item(&mut ctx, id, e)),
            TypeKind::Alias(_) => {}
        }
    }
    items.extend(traits);
    let module_doc = inner_doc(m.doc.as_deref().unwrap_or("Types of one spec file."));
    let mut uses = Vec::new();
    if ctx.uses_rt {
        uses.push(quote!(
            use crate::runtime as rt;
        ));
    }
    if ctx.uses_schema {
        uses.push(quote!(
            use super::schema;
        ));
    }
    if ctx.uses_empty_string {
        uses.push(quote!(
            use crate::runtime::empty_string;
        ));
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
