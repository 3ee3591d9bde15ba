//! The `Decode` impl (attributes and children checked and bound in one pass) and the `Encode`
//! impl (attributes, then text or children in declaration order) of each struct.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, ident};
use crate::ir::{Content, Field, FieldType, Model, Multiplicity, Scalar, StructDef, TypeId};
use crate::passes::naming::screaming;

/// The `Decode` impl of a struct: attributes and children checked and bound in one pass. Each
/// problem is recorded in the context and decoding goes on (a child that fails leaves its field
/// empty); the struct is built only when no problem was recorded inside it.
pub(super) fn decode_impl(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    ctx.uses_rt = true;
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let desc = format_ident!("{}", screaming(&t.rust_name));
    let local = |f: &Field| format_ident!("f_{}", f.rust_name.trim_start_matches("r#"));
    let mut decls = Vec::new();
    let mut attr_arms = Vec::new();
    let mut required = Vec::new();
    let mut inits = Vec::new();
    // An attribute local is `Some(None)` when the attribute was there with an invalid value.
    let version_attribute = s.root.as_ref().and_then(|r| r.version_attribute);
    for (i, a) in s.attributes.iter().enumerate() {
        let l = local(a);
        let fname = ident(&a.rust_name);
        let xml = &a.xml_name;
        let read = if version_attribute == Some(i) { quote!(version) } else { quote!(value) };
        let extra = if version_attribute == Some(i) { quote!(, <Self as rt::Message>::VERSION) } else { quote!() };
        let i = proc_macro2::Literal::usize_unsuffixed(i);
        decls.push(quote!(let mut #l = None;));
        attr_arms.push((quote!(Some(#i)), quote!(#l = Some(cx.#read(&attr, DESC.attributes[#i].ty #extra)?);)));
        match a.multiplicity() {
            Multiplicity::One => {
                required.push(quote!(let #l = cx.required(#l, node, #xml)?;));
                inits.push(quote!(#fname: #l.ok_or_else(|| cx.bug(node))?,));
            }
            _ => inits.push(quote!(#fname: #l.flatten(),)),
        }
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
            inits.push(quote!(value: f_value.ok_or_else(|| cx.bug(node))?,));
            quote!(let f_value = cx.text(node, #d)?;)
        }
        Content::Sequence(_) => {
            let mut arms = Vec::new();
            for (i, f) in s.element_fields().into_iter().enumerate() {
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
                        arms.push(quote!(#i => #l.extend(#read),));
                        inits.push(quote!(#fname: #l,));
                    }
                    Multiplicity::Optional => {
                        decls.push(quote!(let mut #l = None;));
                        arms.push(quote!(#i => #l = #read,));
                        inits.push(quote!(#fname: #l,));
                    }
                    Multiplicity::One => {
                        decls.push(quote!(let mut #l = None;));
                        arms.push(quote!(#i => #l = #read,));
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
            fn decode<'a, 'i>(node: rt::Node<'a, 'i>, cx: &mut rt::Cx<'a, 'i>) -> Result<Self, rt::Failed> {
                const DESC: &rt::schema::ComplexDesc = &super::schema::#desc;
                let mark = cx.mark();
                #(#decls)*
                #attrs_loop
                #(#required)*
                #content
                cx.check(mark)?;
                Ok(Self { #(#inits)* })
            }
        }
    }
}

/// The `Encode` impl of a struct: attributes, then text or children, in declaration order.
pub(super) fn encode_impl(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
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
            for f in s.element_fields() {
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

