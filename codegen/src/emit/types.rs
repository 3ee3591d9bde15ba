//! Structs: one per complex type, with yaserde derives, the codec's derives and attributes
//! ([`codecs`](super::codecs)), and documented fields.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Ctx, codecs, doc, doc_or, field_doc, ident, value_note};
use crate::ir::{Content, Field, FieldType, Particle, StructDef, TypeId};
use crate::parse::OTA;

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

/// The struct of a complex type.
pub(super) fn struct_item(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let d = doc_or(t.doc.as_deref(), || format!("The `{}` element.", t.xml_name));
    let ns = namespace_attr(&t.xml_name);
    let mut fields = Vec::new();
    let version_attribute = s.root.as_ref().and_then(|r| r.version_attribute);
    for (i, a) in s.attributes.iter().enumerate() {
        let fname = ident(&a.rust_name);
        let ty = ctx.field_type(a);
        let xml = &a.xml_name;
        let fd = field_doc(ctx.model, a, format!("The `{xml}` attribute."), None);
        let codec = codecs::field_attribute(ctx.model, a, true, version_attribute == Some(i));
        fields.push(quote! {
            #fd
            #[yaserde(attribute = true, rename = #xml)]
            #codec
            pub #fname: #ty,
        });
    }
    match &s.content {
        Content::Empty | Content::Skipped => {}
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
                        let note = format!(
                            "{n} of these alternatives is present (an `xs:choice`): {}.",
                            alternatives.join("; ")
                        );
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
                    let codec = codecs::field_attribute(ctx.model, f, false, false);
                    fields.push(quote! {
                        #fd
                        #[yaserde(prefix = "ota", rename = #xml)]
                        #codec
                        pub #fname: #ty,
                    });
                }
            }
        }
    }
    let derive_default = if s.root.is_some() { quote!() } else { quote!(Default,) };
    let codec_derives = codecs::derives(ctx, s);
    let codec = codecs::type_attribute(ctx, id, s);
    quote! {
        #d
        #[derive(Debug, Clone, PartialEq, #derive_default yaserde::YaSerialize, yaserde::YaDeserialize, #codec_derives)]
        #ns
        #codec
        pub struct #name {
            #(#fields)*
        }
    }
}
