//! `mod.rs`: the module list, `AnyRequest`, `AnyMessage`, the operation table and the error
//! answer of each operation.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{doc, ident};
use crate::ir::{Model, Module, RootInfo, StructDef, TypeId, TypeKind};
use crate::passes::naming::snake;

fn variant_name(model: &Model, id: TypeId) -> Ident {
    match &model.ty(id).kind {
        TypeKind::Struct(StructDef { root: Some(root), .. }) => format_ident!("{}", root.variant),
        _ => format_ident!("{}", model.ty(id).rust_name),
    }
}

/// An enum over some roots, with `from_xml` by root element and the shared encoders.
fn any_enum(
    model: &Model,
    name: &Ident,
    doc_text: &str,
    roots: &[(&Module, TypeId, &RootInfo)],
    extra: TokenStream,
) -> TokenStream {
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
        quote!(#el => rt::decode_document_with(&doc, strictness).map(|d| d.map(|m| Self::#v(Box::new(m)))),)
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
        quote!(Self::#v(m) => rt::encode_in(m.as_ref(), pretty, dialect),)
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
                Self::from_xml_with(xml, rt::Strictness::Strict).map(|d| d.message)
            }

            /// Decodes whichever message the root element names, holding it to the spec as
            /// `strictness` says ([`official::OFFICIAL`] also takes what OpenTravel 2016B
            /// allows beyond the spec, and lists it as unread).
            pub fn from_xml_with(xml: &str, strictness: rt::Strictness) -> Result<rt::Decoded<Self>, rt::DecodeError> {
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
                self.encode(false, rt::DialectIndex::default())
            }

            /// Encodes the message as indented XML.
            pub fn to_xml_pretty(&self) -> Result<String, rt::EncodeError> {
                self.encode(true, rt::DialectIndex::default())
            }

            /// Encodes the message as compact XML in a dialect.
            pub fn to_xml_in(&self, dialect: impl Into<rt::DialectIndex>) -> Result<String, rt::EncodeError> {
                self.encode(false, dialect.into())
            }

            fn encode(&self, pretty: bool, dialect: rt::DialectIndex) -> Result<String, rt::EncodeError> {
                match self {
                    #(#encode_arms)*
                }
            }

            #extra
        }
    }
}

/// The standard-attribute traits the roots implement, each as a trait object: one getter and
/// one `_mut` getter per trait that at least one of `roots` implements.
fn std_trait_accessors(model: &Model, roots: &[(&Module, TypeId, &RootInfo)]) -> TokenStream {
    let implements = |id: TypeId, name: &str| match &model.ty(id).kind {
        TypeKind::Struct(s) => s.std_traits.iter().any(|t| t.name == name),
        _ => false,
    };
    let mut names: Vec<&'static str> = Vec::new();
    for (_, id, _) in roots {
        if let TypeKind::Struct(s) = &model.ty(*id).kind {
            for t in &s.std_traits {
                if !names.contains(&t.name) {
                    names.push(t.name);
                }
            }
        }
    }
    let methods = names.into_iter().map(|name| {
        let tr = format_ident!("{name}");
        let get = format_ident!("{}", snake(name));
        let get_mut = format_ident!("{}_mut", snake(name));
        let with: Vec<Ident> = roots
            .iter()
            .filter(|(_, id, _)| implements(*id, name))
            .map(|(_, id, _)| variant_name(model, *id))
            .collect();
        let rest = (with.len() < roots.len()).then(|| quote!(_ => None,));
        let d = doc(&format!("The message as `runtime::{name}`, when it has those attributes."));
        let d_mut = doc(&format!("The message as a mutable `runtime::{name}`, when it has those attributes."));
        quote! {
            #d
            pub fn #get(&self) -> Option<&dyn rt::#tr> {
                match self {
                    #(Self::#with(m) => Some(m.as_ref()),)*
                    #rest
                }
            }

            #d_mut
            pub fn #get_mut(&mut self) -> Option<&mut dyn rt::#tr> {
                match self {
                    #(Self::#with(m) => Some(m.as_mut()),)*
                    #rest
                }
            }
        }
    });
    quote!(#(#methods)*)
}

/// The `Dialect` enum: the spec's dialects, the first the default.
fn dialect_enum(model: &Model) -> TokenStream {
    if model.dialects.is_empty() {
        return quote!();
    }
    let variants = model.dialects.iter().enumerate().map(|(i, d)| {
        let v = format_ident!("{}", d.rust_name);
        let dd = doc(&format!("`{}`: {}", d.name, d.doc));
        let default = (i == 0).then(|| quote!(#[default]));
        quote!(#dd #default #v,)
    });
    let names: Vec<TokenStream> = model
        .dialects
        .iter()
        .map(|d| {
            let v = format_ident!("{}", d.rust_name);
            let n = &d.name;
            quote!(Self::#v => #n,)
        })
        .collect();
    let parse = model.dialects.iter().map(|d| {
        let v = format_ident!("{}", d.rust_name);
        let n = &d.name;
        quote!(#n => Some(Self::#v),)
    });
    let all = model.dialects.iter().map(|d| format_ident!("{}", d.rust_name));
    quote! {
        /// The dialects of the spec (`gen:dialect` in `common.xsd`), the default first: each
        /// writes some fields under other names, or not at all, or lists as text (the spec's
        /// `gen:written` and `gen:text-list`). Decoders take every dialect's form.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub enum Dialect {
            #(#variants)*
        }

        impl Dialect {
            /// Every dialect, the default first.
            pub const ALL: &'static [Dialect] = &[#(Self::#all),*];

            /// Its name in the spec and in configuration.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(#names)*
                }
            }

            /// The dialect of this name.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    #(#parse)*
                    _ => None,
                }
            }
        }

        impl From<Dialect> for rt::DialectIndex {
            fn from(d: Dialect) -> Self {
                rt::DialectIndex(d as u8)
            }
        }
    }
}

/// The `mod.rs` file.
pub(super) fn mod_rs(model: &Model) -> TokenStream {
    let dialects = dialect_enum(model);
    let mods = model.modules.iter().map(|m| {
        let n = ident(&m.name);
        let d = doc(&format!("Types of `spec/{}`.", m.file));
        quote!(#d pub mod #n;)
    });
    let all: Vec<_> = model.roots().collect();
    let requests: Vec<_> = all.iter().copied().filter(|(_, _, info)| info.path.is_some()).collect();
    let ops = requests.iter().map(|(m, id, info)| {
        let el = &info.element;
        let schema = &m.file;
        let side = format_ident!("{}", format!("{:?}", info.side));
        let credentials = match &model.ty(*id).kind {
            TypeKind::Struct(s) => model.pos_path(s, &info.pos),
            _ => None,
        };
        let credentials = match credentials {
            Some(c) => quote!(Some(#c)),
            None => quote!(None),
        };
        let version = &info.version;
        let path = info.path.as_deref().unwrap_or_default();
        let response = match &info.response {
            Some(r) => quote!(Some(#r)),
            None => quote!(None),
        };
        quote!(rt::Operation {
            path: #path,
            request_root: #el,
            version: #version,
            response_root: #response,
            side: rt::Side::#side,
            credentials: #credentials,
            schema: #schema,
        },)
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
        {
            let std = std_trait_accessors(model, &requests);
            quote! {
                /// The operation this request belongs to.
                pub fn operation(&self) -> rt::Operation {
                    match self {
                        #(#op_arms)*
                    }
                }

                #std
            }
        },
    );
    let any_message = any_enum(
        model,
        &format_ident!("AnyMessage"),
        "Any message of the spec (requests and responses), decoded by its root element.",
        &all,
        std_trait_accessors(model, &all),
    );
    // The error answer of each operation, when every response shares one `Errors` type.
    let error_arms = requests.iter().filter_map(|(_, _, info)| {
        let rid = info.response_type?;
        let m = &model.modules[model.ty(rid).module];
        let path = info.path.as_deref().unwrap_or_default();
        let v = variant_name(model, rid);
        let mn = ident(&m.name);
        let tn = ident(&model.ty(rid).rust_name);
        Some(quote! {
            #path => Some(AnyMessage::#v(Box::new(<#mn::#tn as rt::Response>::from_errors(errors)))),
        })
    });
    let error_response = match model.shared_errors {
        Some(eid) => {
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
    let personal = crate::passes::personal::table(model)
        .into_iter()
        .map(|(attribute, name, mask)| quote!(rt::Personal { name: #name, attribute: #attribute, mask: #mask },));
    quote! {
        //! The generated message types, one module per spec file.
        use crate::runtime as rt;

        #(#mods)*
        #[doc(hidden)]
        pub mod schema;
        pub mod official;

        /// The service's operations (path, request root, expected `Version`, response root), from the spec.
        pub const OPERATIONS: &[rt::Operation] = &[#(#ops)*];

        /// The attributes and elements whose values are personal data (`gen:personal` in the spec:
        /// guests' names, birth dates, …), by name, each with its mask: a name is personal
        /// wherever it occurs in a message (the generator refuses a spec where it is not).
        pub const PERSONAL: &[rt::Personal] = &[#(#personal)*];

        #dialects
        #any_request
        #any_message
        #error_response
    }
}
