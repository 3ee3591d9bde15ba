//! The `Decode` impl (attributes and children checked and bound in one pass) and the `Encode`
//! impl (attributes, then text or children in declaration order) of each struct.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, ident};
use crate::ir::{
    Content, Field, FieldType, Model, Multiplicity, Scalar, StructDef, TextFormKind, TypeId, TypeKind, WrittenForm,
};
use crate::passes::naming::screaming;

/// The `Decode` impl of a struct: attributes and children checked and bound in one pass, each
/// matched by its name and written into its field of a default value (nothing is bound by
/// position, so adding a field changes only the lines about it). Each problem is recorded in
/// the context and decoding goes on (a child that fails leaves its field empty); the value is
/// returned only when no problem was recorded inside it.
pub(super) fn decode_impl(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    ctx.uses_rt = true;
    ctx.uses_schema = true;
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    if matches!(s.content, Content::Skipped) {
        // Anything inside, attributes too, is taken and not read (`xs:any` skipped).
        return quote! {
            impl rt::Decode for #name {
                fn decode<'a, 'i>(_node: rt::Node<'a, 'i>, _cx: &mut rt::Cx<'a, 'i>) -> Result<Self, rt::Failed> {
                    Ok(Self {})
                }
            }
        };
    }
    let desc = format_ident!("{}", screaming(&t.rust_name));
    let version_attribute = s.root.as_ref().and_then(|r| r.version_attribute);
    let mut attr_arms = Vec::new();
    for (i, a) in s.attributes.iter().enumerate() {
        let f = ident(&a.rust_name);
        let FieldType::Simple(sc) = &a.ty else { continue };
        let ty = simple_desc_path(ctx.model, sc);
        let read = if version_attribute == Some(i) {
            quote!(cx.version(&attr, #ty, <Self as rt::Message>::VERSION)?)
        } else {
            quote!(cx.value(&attr, #ty)?)
        };
        let bind = match a.multiplicity() {
            Multiplicity::One => quote!(rt::set(&mut out.#f, #read)),
            _ => quote!(out.#f = #read),
        };
        let names = std::iter::once(a.xml_name.as_str()).chain(a.other_names());
        // With other names, the same attribute can come twice.
        attr_arms.push(if a.other_names().is_empty() {
            quote!(#(#names)|* => #bind,)
        } else {
            quote!(#(#names)|* => { cx.once(node, &attr, DESC)?; #bind; })
        });
    }
    let attrs_loop = if attr_arms.is_empty() {
        quote! {
            for attr in node.attributes() {
                cx.other_attribute(&attr, DESC)?;
            }
        }
    } else {
        quote! {
            for attr in node.attributes() {
                match rt::unqualified(&attr) {
                    #(#attr_arms)*
                    _ => cx.other_attribute(&attr, DESC)?,
                }
            }
        }
    };
    let required = s
        .attributes
        .iter()
        .any(|a| a.multiplicity() == Multiplicity::One)
        .then(|| quote!(cx.required_attributes(node, DESC)?;));
    let content = match &s.content {
        Content::Skipped => quote!(),
        Content::Empty if s.text_forms.is_empty() => quote!(cx.empty(node, DESC)?;),
        // A text some dialect writes (`gen:text value`).
        Content::Empty => quote!(cx.empty_or_fixed(node, DESC)?;),
        Content::Text(sc) => {
            let d = simple_desc_path(ctx.model, sc);
            match text_attribute(s) {
                Some((_, name)) => quote!(rt::set(&mut out.value, cx.text_or_attribute(node, #d, #name)?);),
                None => quote!(rt::set(&mut out.value, cx.text(node, #d)?);),
            }
        }
        Content::Sequence(_) => {
            let text_list = text_list_decode(ctx, s);
            let mut arms = Vec::new();
            for f in s.element_fields() {
                let fname = ident(&f.rust_name);
                let xml = &f.xml_name;
                let read = match &f.ty {
                    FieldType::Complex(_) => quote!(cx.element(&next, rt::Decode::decode)?),
                    FieldType::Simple(_) => quote!(cx.simple(&next)?),
                };
                arms.push(match f.multiplicity() {
                    Multiplicity::Many => quote!(#xml => rt::push(&mut out.#fname, #read),),
                    Multiplicity::Optional => quote!(#xml => out.#fname = #read,),
                    Multiplicity::One => quote!(#xml => rt::set(&mut out.#fname, #read),),
                });
            }
            quote! {
                #text_list
                let mut children = cx.children(node, DESC)?;
                while let Some(next) = children.next(cx)? {
                    match next.elem.name {
                        #(#arms)*
                        _ => return Err(cx.bug(next.node)),
                    }
                }
                children.finish(cx)?;
            }
        }
    };
    let binds = !attr_arms.is_empty()
        || matches!(&s.content, Content::Text(_))
        || (matches!(&s.content, Content::Sequence(_)) && !s.element_fields().is_empty());
    let out = if binds { quote!(let mut out = Self::default();) } else { quote!(let out = Self::default();) };
    quote! {
        impl rt::Decode for #name {
            fn decode<'a, 'i>(node: rt::Node<'a, 'i>, cx: &mut rt::Cx<'a, 'i>) -> Result<Self, rt::Failed> {
                const DESC: &rt::schema::ComplexDesc = &schema::#desc;
                let mark = cx.mark();
                #out
                #attrs_loop
                #required
                #content
                cx.check(mark)?;
                Ok(out)
            }
        }
    }
}

/// The `Encode` impl of a struct: attributes, then text or children, in declaration order.
pub(super) fn encode_impl(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let mut body = Vec::new();
    let version_attribute = s.root.as_ref().and_then(|r| r.version_attribute);
    for (i, a) in s.attributes.iter().enumerate() {
        let f = ident(&a.rust_name);
        let mut write = in_dialects(ctx.model, a, |xml| match a.multiplicity() {
            Multiplicity::One => quote!(w.attr(#xml, &self.#f);),
            _ => quote!(w.attr_opt(#xml, &self.#f);),
        });
        // The service's version, as another dialect writes it (`gen:version`).
        if version_attribute == Some(i) {
            let xml = &a.xml_name;
            for v in s.root.iter().flat_map(|r| r.dialect_versions.iter().rev()) {
                let is = is_dialect(ctx.model, &[v.dialect]);
                let value = &v.value;
                write = quote! {
                    if #is && self.#f == <Self as rt::Message>::VERSION { w.attr(#xml, &#value); } else { #write }
                };
            }
        }
        body.push(write);
    }
    match &s.content {
        Content::Skipped => {}
        Content::Empty => {
            // The text some dialects write in an element of no content (`gen:text value`).
            for t in &s.text_forms {
                if let TextFormKind::Value(v) = &t.kind {
                    let is = is_dialect(ctx.model, &[t.dialect]);
                    body.push(quote!(if #is { w.text(&#v); }));
                }
            }
        }
        Content::Text(_) => match text_attribute(s) {
            // The text as an attribute in the dialects that say so (`gen:text attribute`).
            Some((dialects, name)) => {
                let is = is_dialect(ctx.model, &dialects);
                body.push(quote!(if #is { w.attr(#name, &self.value); } else { w.text(&self.value); }));
            }
            None => body.push(quote!(w.text(&self.value);)),
        },
        Content::Sequence(_) => {
            let mut children = Vec::new();
            for f in s.element_fields() {
                let fname = ident(&f.rust_name);
                children.push(in_dialects(ctx.model, f, |xml| {
                    let write = |v: TokenStream| match &f.ty {
                        FieldType::Complex(_) => quote!(rt::Encode::encode(#v, w, #xml);),
                        FieldType::Simple(_) => quote!(w.simple(#xml, #v);),
                    };
                    match f.multiplicity() {
                        Multiplicity::One => write(quote!(&self.#fname)),
                        Multiplicity::Optional => {
                            let inner = write(quote!(v));
                            quote!(if let Some(v) = &self.#fname { #inner })
                        }
                        Multiplicity::Many => {
                            let inner = write(quote!(v));
                            quote!(for v in &self.#fname { #inner })
                        }
                    }
                }));
                children.extend(empty_when_absent(ctx.model, f));
            }
            body.push(match text_list_encode(ctx.model, s) {
                Some((is, as_text)) => quote! {
                    if #is { #as_text } else { #(#children)* }
                },
                None => quote!(#(#children)*),
            });
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

/// What writes a field (`write`, given the XML name): the declared name, or another name or
/// nothing in the dialects that say so (`gen:written`).
fn in_dialects(model: &Model, f: &Field, write: impl Fn(&str) -> TokenStream) -> TokenStream {
    let mut out = write(&f.xml_name);
    for d in f.written.iter().rev() {
        let is = is_dialect(model, &[d.dialect]);
        out = match &d.form {
            WrittenForm::Name(name) => {
                let other = write(name);
                quote!(if #is { #other } else { #out })
            }
            WrittenForm::Omitted => quote!(if !(#is) { #out }),
            // Written as declared; see `empty_when_absent`.
            WrittenForm::EmptyWhenAbsent => out,
        };
    }
    out
}

/// What writes an empty element for an absent optional element in the dialects that require
/// it (`gen:written empty-when-absent`).
fn empty_when_absent(model: &Model, f: &Field) -> Option<TokenStream> {
    let dialects: Vec<u8> =
        f.written.iter().filter(|d| d.form == WrittenForm::EmptyWhenAbsent).map(|d| d.dialect).collect();
    if dialects.is_empty() {
        return None;
    }
    let is = is_dialect(model, &dialects);
    let (fname, xml) = (ident(&f.rust_name), &f.xml_name);
    Some(quote!(if self.#fname.is_none() && (#is) { w.start(#xml); w.end(#xml); }))
}

/// The dialects that write a struct's text as an attribute, and the attribute
/// (`gen:text attribute`; the `dialects` pass allows one name per type).
fn text_attribute(s: &StructDef) -> Option<(Vec<u8>, &str)> {
    let mut name = None;
    let mut dialects = Vec::new();
    for t in &s.text_forms {
        if let TextFormKind::Attribute(a) = &t.kind {
            name = Some(a.as_str());
            dialects.push(t.dialect);
        }
    }
    Some((dialects, name?))
}

/// A test of the writer's dialect: one of `dialects`.
fn is_dialect(model: &Model, dialects: &[u8]) -> TokenStream {
    let tests = dialects.iter().filter_map(|&d| model.dialects.get(usize::from(d))).map(|d| {
        let v = format_ident!("{}", d.rust_name);
        quote!(w.dialect() == super::Dialect::#v.into())
    });
    quote!(#(#tests)||*)
}

/// A text list's pieces: the list field's name, the item type and the field name of the item's
/// one attribute.
fn text_list_parts(model: &Model, s: &StructDef) -> Option<(proc_macro2::Ident, TypeId, proc_macro2::Ident)> {
    let item = s.text_list.as_ref()?.item?;
    let TypeKind::Struct(is) = &model.ty(item).kind else { return None };
    let list = s.element_fields().into_iter().next()?;
    Some((ident(&list.rust_name), item, ident(&is.attributes.first()?.rust_name)))
}

/// The start of a text list's decoder: the element read as its values listed as text, when
/// it has text and no child elements.
fn text_list_decode(ctx: &mut Ctx, s: &StructDef) -> TokenStream {
    let Some((list, item, attr)) = text_list_parts(ctx.model, s) else { return quote!() };
    let item_ty = ctx.type_ref(item);
    let TypeKind::Struct(is) = &ctx.model.ty(item).kind else { return quote!() };
    let Some(FieldType::Simple(sc)) = is.attributes.first().map(|a| &a.ty) else { return quote!() };
    let ty = simple_desc_path(ctx.model, sc);
    quote! {
        if let Some(values) = cx.text_list(node, #ty)? {
            cx.check(mark)?;
            return Ok(Self { #list: values.into_iter().map(|v| #item_ty { #attr: v }).collect() });
        }
    }
}

/// The dialects that write a text list as text, and the code that writes it so.
fn text_list_encode(model: &Model, s: &StructDef) -> Option<(TokenStream, TokenStream)> {
    let written = &s.text_list.as_ref()?.written;
    if written.is_empty() {
        return None;
    }
    let (list, _, attr) = text_list_parts(model, s)?;
    Some((is_dialect(model, written), quote!(w.text_list(self.#list.iter().map(|v| &v.#attr));)))
}

/// A path to the static descriptor of a simple type, from a message module (which imports
/// `super::schema` when it has a decoder).
fn simple_desc_path(model: &Model, s: &Scalar) -> TokenStream {
    match s.named {
        Some(id) => {
            let n = format_ident!("{}", screaming(&model.ty(id).rust_name));
            quote!(&schema::#n)
        }
        None => {
            let n = format_ident!("XS_{}", screaming(s.builtin.xsd_name()));
            quote!(&rt::schema::#n)
        }
    }
}
