//! The codec of each struct, as what the derives of `ota-codec-derive` read: `rt::Decode` and
//! `rt::Encode` (and `rt::MessageDefault` on a root) in its derive list, and a `#[codec(..)]`
//! attribute with what the field's yaserde attribute does not say (its value type, the version
//! attribute, other names, how each dialect writes it) — so a field is stated once, in its
//! struct, besides its entry in the schema tables.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, ident};
use crate::ir::{Content, Field, FieldType, Model, Scalar, StructDef, TextFormKind, TypeId, WrittenForm};
use crate::passes::naming::screaming;

/// The derives of a struct's codec (after the yaserde ones).
pub(super) fn derives(ctx: &mut Ctx, s: &StructDef) -> TokenStream {
    ctx.uses_rt = true;
    ctx.uses_schema = true;
    match s.root {
        Some(_) => quote!(rt::Decode, rt::Encode, rt::MessageDefault),
        None => quote!(rt::Decode, rt::Encode),
    }
}

/// The type's `#[codec(..)]`: its schema descriptor, its content when it has no children, the
/// dialects' text forms, text list and versions.
pub(super) fn type_attribute(ctx: &Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    let model = ctx.model;
    let desc = format_ident!("{}", screaming(&model.ty(id).rust_name));
    let mut parts = vec![quote!(schema = #desc)];
    match &s.content {
        Content::Skipped => parts.push(quote!(skipped)),
        Content::Empty => {
            parts.push(quote!(empty));
            // The text a dialect writes in an element of no content (`gen:text value`).
            let values: Vec<TokenStream> = s
                .text_forms
                .iter()
                .filter_map(|t| match &t.kind {
                    TextFormKind::Value(v) => {
                        let d = dialect(model, t.dialect);
                        Some(quote!(#d = #v))
                    }
                    TextFormKind::Attribute(_) => None,
                })
                .collect();
            if !values.is_empty() {
                parts.push(quote!(empty_text(#(#values),*)));
            }
        }
        Content::Text(sc) => {
            let d = descriptor(model, sc);
            parts.push(quote!(text = #d));
            // The text as an attribute in the dialects that say so (`gen:text attribute`; the
            // `dialects` pass allows one name per type).
            let mut name = None;
            let mut dialects = Vec::new();
            for t in &s.text_forms {
                if let TextFormKind::Attribute(a) = &t.kind {
                    name = Some(a.as_str());
                    dialects.push(dialect(model, t.dialect));
                }
            }
            if let Some(name) = name {
                parts.push(quote!(text_attribute(name = #name, #(#dialects),*)));
            }
        }
        Content::Sequence(_) => {
            if let Some(tl) = &s.text_list
                && let Some(item) = tl.item
                && let crate::ir::TypeKind::Struct(is) = &model.ty(item).kind
                && let Some(a) = is.attributes.first()
                && let FieldType::Simple(sc) = &a.ty
            {
                let (attr, value) = (ident(&a.rust_name), descriptor(model, sc));
                let written = tl.written.iter().map(|&d| dialect(model, d));
                parts.push(quote!(text_list(attr = #attr, value = #value #(, #written)*)));
            }
        }
    }
    if let Some(root) = &s.root
        && !root.dialect_versions.is_empty()
    {
        let versions = root.dialect_versions.iter().map(|v| {
            let (d, value) = (dialect(model, v.dialect), &v.value);
            quote!(#d = #value)
        });
        parts.push(quote!(version_in(#(#versions),*)));
    }
    quote!(#[codec(#(#parts),*)])
}

/// A field's `#[codec(..)]`, if it needs one: an attribute's value type (and whether it is the
/// version, its other names), a simple element's mark, how each dialect writes it.
pub(super) fn field_attribute(model: &Model, f: &Field, attribute: bool, version: bool) -> TokenStream {
    let mut parts = Vec::new();
    match (&f.ty, attribute) {
        (FieldType::Simple(sc), true) => {
            let d = descriptor(model, sc);
            parts.push(quote!(value = #d));
        }
        (FieldType::Simple(_), false) => parts.push(quote!(simple)),
        (FieldType::Complex(_), _) => {}
    }
    if version {
        parts.push(quote!(version));
    }
    // Another name an element is read under is the schema table's (its children are matched
    // there); an attribute's is its decoder's.
    if attribute {
        for name in &f.also {
            parts.push(quote!(also = #name));
        }
    }
    for w in &f.written {
        let d = dialect(model, w.dialect);
        parts.push(match &w.form {
            WrittenForm::Name(name) => quote!(written(#d = #name)),
            WrittenForm::Omitted => quote!(omitted(#d)),
            WrittenForm::EmptyWhenAbsent => quote!(empty_when_absent(#d)),
        });
    }
    if parts.is_empty() { quote!() } else { quote!(#[codec(#(#parts),*)]) }
}

/// A dialect's variant name (`Ota2016b`).
fn dialect(model: &Model, d: u8) -> TokenStream {
    let v = model.dialects.get(usize::from(d)).map_or_else(|| "Unknown".to_string(), |d| d.rust_name.clone());
    let v = format_ident!("{}", v);
    quote!(#v)
}

/// The static descriptor of a simple type, as the derives read it: a named type's by its name
/// in `schema`, a builtin's by its path in the runtime.
fn descriptor(model: &Model, s: &Scalar) -> TokenStream {
    match s.named {
        Some(id) => {
            let n = format_ident!("{}", screaming(&model.ty(id).rust_name));
            quote!(#n)
        }
        None => {
            let n = format_ident!("XS_{}", screaming(s.builtin.xsd_name()));
            quote!(rt::schema::#n)
        }
    }
}
