//! `schema.rs`: the tables of the strict checker, one static per type that has a table.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};

use crate::ir::{
    AliasDef, Builtin, Content, EnumDef, Field, FieldType, Model, Particle, Scalar, StructDef, TextFormKind, TypeKind,
    WrittenForm,
};
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

/// The tables being written, and what of the runtime's schema module they use.
#[derive(Default)]
struct Tables {
    items: Vec<TokenStream>,
    builtins_used: BTreeSet<Builtin>,
    uses_forms: bool,
    uses_members: bool,
}

/// The `schema.rs` file.
pub(super) fn schema(model: &Model) -> TokenStream {
    let mut tables = Tables::default();
    for t in model.types.iter().filter(|t| t.has_table()) {
        let static_name = format_ident!("{}", screaming(&t.rust_name));
        let xml = &t.xml_name;
        match &t.kind {
            TypeKind::Struct(s) => tables.complex(model, static_name, xml, s),
            TypeKind::Enum(e) => tables.code_list(model, static_name, xml, e),
            TypeKind::Alias(a) => tables.restriction(&t.rust_name, static_name, xml, a),
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
    if tables.uses_forms {
        names.push("Form");
    }
    if tables.uses_members {
        names.push("Member");
    }
    names.sort_unstable();
    let mut imports: Vec<TokenStream> = names.into_iter().map(|n| format_ident!("{n}").into_token_stream()).collect();
    for b in &tables.builtins_used {
        let n = format_ident!("XS_{}", screaming(b.xsd_name()));
        imports.push(quote!(#n));
    }
    let items = tables.items;
    quote! {
        //! What each element may hold: the tables the strict checker (`crate::runtime::check`)
        //! walks when decoding. One static per spec type, in spec order.
        #![allow(missing_docs)]
        use crate::runtime::schema::{#(#imports),*};
        #(#items)*
    }
}

impl Tables {
    /// Notes the built-in a simple type of the table is, when it is one (imported by name).
    fn note_builtin(&mut self, s: &Scalar) {
        if s.named.is_none() {
            self.builtins_used.insert(s.builtin);
        }
    }

    /// A complex type's table: its attributes, its content, and the other forms of its members.
    fn complex(&mut self, model: &Model, static_name: proc_macro2::Ident, xml: &str, s: &StructDef) {
        let mut attrs = Vec::new();
        for a in &s.attributes {
            let FieldType::Simple(sc) = &a.ty else { continue };
            self.note_builtin(sc);
            let n = &a.xml_name;
            let ty = simple_desc_ref(model, sc);
            // One line per attribute.
            attrs.push(if a.min > 0 {
                quote!(AttrDesc::required(#n, #ty),)
            } else {
                quote!(AttrDesc::optional(#n, #ty),)
            });
        }
        let forms = self.forms(s);
        let content = self.content(model, &s.content);
        self.items.push(quote! {
            pub static #static_name: ComplexDesc = ComplexDesc {
                name: #xml,
                attributes: &[#(#attrs)*],
                content: #content,
                forms: &[#(#forms)*],
            };
        });
    }

    /// The other forms of a complex type's members: attributes by position, elements by index
    /// (declaration order), and its text forms.
    fn forms(&mut self, s: &StructDef) -> Vec<TokenStream> {
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
        self.uses_forms |= !forms.is_empty();
        self.uses_members |= forms.len() > fixed_texts;
        forms
    }

    /// A complex type's content: nothing, skipped, text, or its particles in order (each
    /// element numbered in declaration order).
    fn content(&mut self, model: &Model, content: &Content) -> TokenStream {
        match content {
            Content::Empty => quote!(Content::Empty),
            Content::Skipped => quote!(Content::Skipped),
            Content::Text(sc) => {
                self.note_builtin(sc);
                let r = simple_desc_ref(model, sc);
                quote!(Content::Text(#r))
            }
            Content::Sequence(ps) => {
                let mut index: u16 = 0;
                let mut element = |tables: &mut Tables, f: &Field| {
                    if let FieldType::Simple(sc) = &f.ty {
                        tables.note_builtin(sc);
                    }
                    index += 1;
                    element_desc(model, f, index - 1)
                };
                let mut parts = Vec::new();
                for p in ps {
                    parts.push(match p {
                        Particle::Element(f) => {
                            let e = element(self, f);
                            quote!(Particle::Element(#e),)
                        }
                        Particle::Choice { required, branches } => {
                            let mut alternatives = Vec::new();
                            for b in branches {
                                let elems: Vec<TokenStream> = b.iter().map(|f| element(self, f)).collect();
                                alternatives.push(quote!(&[#(#elems),*]));
                            }
                            quote!(Particle::Choice { required: #required, branches: &[#(#alternatives),*] },)
                        }
                    });
                }
                quote!(Content::Sequence(&[#(#parts)*]))
            }
        }
    }

    /// A code list's table: its values, its other spellings, the type of the values it is open to.
    fn code_list(&mut self, model: &Model, static_name: proc_macro2::Ident, xml: &str, e: &EnumDef) {
        let builtin = builtin_variant(e.base);
        let values = e.variants.iter().map(|v| &v.value);
        let open = match &e.open {
            Some(o) => {
                self.note_builtin(o);
                let r = simple_desc_ref(model, o);
                quote!(Some(#r))
            }
            None => quote!(None),
        };
        let also: Vec<&String> = e.variants.iter().flat_map(|v| &v.also).collect();
        let also = (!also.is_empty()).then(|| quote!(also: &[#(#also),*],));
        self.items.push(quote! {
            pub static #static_name: SimpleDesc = SimpleDesc {
                values: &[#(#values),*],
                #also
                open: #open,
                ..SimpleDesc::builtin(#xml, #builtin)
            };
        });
    }

    /// A restriction of a built-in: its facets (patterns in a static of their own).
    fn restriction(&mut self, rust_name: &str, static_name: proc_macro2::Ident, xml: &str, a: &AliasDef) {
        let builtin = builtin_variant(a.base);
        let f = &a.facets;
        let mut extra = Vec::new();
        if !f.patterns.is_empty() {
            let pname = format_ident!("{}_PATTERNS", screaming(rust_name));
            let n = f.patterns.len();
            let pats = f.patterns.iter().map(|p| {
                let rust = crate::regex::translate_pattern(p).unwrap_or_default();
                quote!(Pattern::new(#p, #rust))
            });
            self.items.push(quote! {
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
        self.items.push(quote! {
            pub static #static_name: SimpleDesc = SimpleDesc {
                #(#extra)*
                ..SimpleDesc::builtin(#xml, #builtin)
            };
        });
    }
}
