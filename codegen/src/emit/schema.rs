//! `schema.rs`: the tables of the strict checker, one static per type that has a table.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};

use crate::ir::{Builtin, Content, Field, FieldType, Model, Particle, Scalar, TextFormKind, TypeKind, WrittenForm};
use crate::passes::naming::{pascal, screaming};

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
    let min = proc_macro2::Literal::u32_unsuffixed(f.min);
    let max = proc_macro2::Literal::u32_unsuffixed(f.max.unwrap_or(u32::MAX));
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
    quote!(ElementDesc::new(#name, #index, #min, #max, #ty))
}

/// The `schema.rs` file.
pub(super) fn schema(model: &Model) -> TokenStream {
    let mut items = Vec::new();
    let mut builtins_used = BTreeSet::new();
    let mut uses_forms = false;
    let mut uses_members = false;
    let mut note_builtin = |s: &Scalar| {
        if s.named.is_none() {
            builtins_used.insert(s.builtin);
        }
    };
    for t in model.types.iter().filter(|t| t.has_table()) {
        let static_name = format_ident!("{}", screaming(&t.rust_name));
        let xml = &t.xml_name;
        match &t.kind {
            TypeKind::Struct(s) => {
                let attrs = s.attributes.iter().map(|a| {
                    let FieldType::Simple(sc) = &a.ty else { return quote!() };
                    note_builtin(sc);
                    let n = &a.xml_name;
                    let ty = simple_desc_ref(model, sc);
                    // One line per attribute.
                    if a.min > 0 { quote!(AttrDesc::required(#n, #ty),) } else { quote!(AttrDesc::optional(#n, #ty),) }
                });
                let attrs: Vec<TokenStream> = attrs.collect();
                // Other forms: attributes by position, elements by index (declaration order).
                let mut forms = Vec::new();
                let mut fixed_texts = 0;
                let members = s.attributes.iter().enumerate().map(|(i, a)| {
                    let i = proc_macro2::Literal::usize_unsuffixed(i);
                    (quote!(Member::Attribute(#i)), a)
                });
                let elements = s.element_fields().into_iter().enumerate().map(|(i, f)| {
                    let i = proc_macro2::Literal::usize_unsuffixed(i);
                    (quote!(Member::Element(#i)), f)
                });
                for (of, f) in members.chain(elements) {
                    for name in f.other_names() {
                        forms.push(quote!(Form::Also { name: #name, of: #of },));
                    }
                    for d in &f.written {
                        let dialect = proc_macro2::Literal::u8_unsuffixed(d.dialect);
                        match d.form {
                            WrittenForm::Omitted => forms.push(quote!(Form::Omitted { dialect: #dialect, of: #of },)),
                            WrittenForm::EmptyWhenAbsent => {
                                forms.push(quote!(Form::EmptyWhenAbsent { dialect: #dialect, of: #of },))
                            }
                            WrittenForm::Name(_) => {}
                        }
                    }
                }
                // A text form, once whichever dialects write it (the `dialects` pass allows one
                // attribute per type); a fixed text is the one form that names no member.
                let mut texts: Vec<&str> = Vec::new();
                for t in &s.text_forms {
                    match &t.kind {
                        TextFormKind::Attribute(name) if !texts.contains(&name.as_str()) => {
                            texts.push(name);
                            forms.push(quote!(Form::Also { name: #name, of: Member::Text },));
                        }
                        TextFormKind::Attribute(_) => {}
                        TextFormKind::Value(value) if !texts.contains(&value.as_str()) => {
                            texts.push(value);
                            forms.push(quote!(Form::Text { value: #value },));
                            fixed_texts += 1;
                        }
                        TextFormKind::Value(_) => {}
                    }
                }
                uses_forms |= !forms.is_empty();
                uses_members |= forms.len() > fixed_texts;
                let content = match &s.content {
                    Content::Empty => quote!(Content::Empty),
                    Content::Skipped => quote!(Content::Skipped),
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
                        forms: &[#(#forms)*],
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
                let also: Vec<&String> = e.variants.iter().flat_map(|v| &v.also).collect();
                let also = (!also.is_empty()).then(|| quote!(also: &[#(#also),*],));
                items.push(quote! {
                    pub static #static_name: SimpleDesc = SimpleDesc {
                        values: &[#(#values),*],
                        #also
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
    let mut names = vec![
        "AttrDesc",
        "Builtin",
        "ComplexDesc",
        "Content",
        "ElementDesc",
        "Particle",
        "Pattern",
        "SimpleDesc",
        "TypeDesc",
    ];
    if uses_forms {
        names.push("Form");
    }
    if uses_members {
        names.push("Member");
    }
    names.sort_unstable();
    let mut imports: Vec<TokenStream> = names.into_iter().map(|n| format_ident!("{n}").into_token_stream()).collect();
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
