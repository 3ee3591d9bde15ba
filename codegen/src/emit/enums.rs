//! Code lists: a Rust enum per closed or open list, with `Display`, `FromStr` and the value
//! conversions of the runtime.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Ctx, doc, doc_or, ident};
use crate::ir::{EnumDef, TypeId};

/// The enum of a code list.
pub(super) fn enum_item(ctx: &mut Ctx, id: TypeId, e: &EnumDef) -> TokenStream {
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
        for v in std::iter::once(value).chain(&v.also) {
            from_str.push(if e.open.is_some() {
                quote! { #v => Self::#vn, }
            } else {
                quote! { #v => Ok(Self::#vn), }
            });
        }
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
