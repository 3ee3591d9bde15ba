//! What message roots implement (their `Default`, with the expected version, is derived:
//! [`codecs`](super::codecs)): `Message`, `Request`
//! and `PosRequest` for requests, `Response` and a `success(..)` constructor for responses with
//! the OTA envelope.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, doc, ident};
use crate::ir::{Field, FieldType, ResponseShape, RootInfo, StructDef, TypeId};
use crate::passes::naming::screaming;

/// The impls of a message root.
pub(super) fn root_impls(ctx: &mut Ctx, id: TypeId, s: &StructDef, root: &RootInfo) -> TokenStream {
    ctx.uses_rt = true;
    let t = ctx.model.ty(id);
    let name = ident(&t.rust_name);
    let element = &root.element;
    let version = &root.version;
    let desc = format_ident!("{}", screaming(&t.rust_name));
    let version_attribute = root.version_attribute.and_then(|i| s.attributes.get(i));
    let version_attribute_const = version_attribute.map(|a| {
        let n = &a.xml_name;
        quote!(const VERSION_ATTRIBUTE: Option<&'static str> = Some(#n);)
    });
    let request = root.path.as_ref().map(|path| {
        let response = root.response_type.map(|rid| ctx.type_ref(rid));
        let response = response.map(|r| quote!(type Response = #r;));
        quote! {
            impl rt::Request for #name {
                const PATH: &'static str = #path;
                #response
            }
        }
    });
    let pos = ctx.model.pos_fields(s, &root.pos).and_then(|fields| {
        let ty = ctx.field_type(fields.last()?);
        let path = fields.iter().map(|f| ident(&f.rust_name));
        Some(quote! {
            impl rt::PosRequest for #name {
                type Pos = #ty;
                fn pos(&self) -> &Self::Pos {
                    &self.#(#path).*
                }
            }
        })
    });
    let response = root.shape.as_ref().and_then(|shape| response_impls(ctx, &name, s, shape));
    quote! {
        impl rt::Message for #name {
            const ROOT: &'static str = #element;
            const VERSION: &'static str = #version;
            #version_attribute_const
            fn schema() -> &'static rt::schema::ComplexDesc {
                &super::schema::#desc
            }
        }

        #request
        #pos
        #response
    }
}

/// What a response root implements: `Response` (its success, errors and warnings) and the
/// `success(..)` constructor of its required payload; `None` when its envelope is not whole.
fn response_impls(
    ctx: &mut Ctx,
    name: &proc_macro2::Ident,
    s: &StructDef,
    shape: &ResponseShape,
) -> Option<TokenStream> {
    let elements = s.element_fields();
    let field = |i: usize| elements.get(i).copied();
    let (success_field, errors_field) = (field(shape.success)?, field(shape.errors)?);
    let ty = |ctx: &mut Ctx, f: &Field| match &f.ty {
        FieldType::Complex(id) => ctx.type_ref(*id),
        FieldType::Simple(sc) => ctx.scalar(sc),
    };
    let success = ident(&success_field.rust_name);
    let success_ty = ty(ctx, success_field);
    let errors = ident(&errors_field.rust_name);
    let errors_ty = ty(ctx, errors_field);
    let required: Vec<&Field> = shape.payload.iter().filter_map(|&i| field(i)).filter(|f| f.min > 0).collect();
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
    let (warnings_ty, warnings_get, warnings_mut, with_warnings) = match shape.warnings.and_then(field) {
        Some(w) => {
            let wn = ident(&w.rust_name);
            let wt = ty(ctx, w);
            (
                quote!(#wt),
                quote!(self.#wn.as_ref()),
                quote!(Some(&mut self.#wn)),
                quote! {
                    /// Adds warnings to a success answer.
                    pub fn with_warnings(mut self, warnings: #wt) -> Self {
                        self.#wn = Some(warnings);
                        self
                    }
                },
            )
        }
        None => (quote!(()), quote!(None), quote!(None), quote!()),
    };
    Some(quote! {
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

            fn warnings_mut(&mut self) -> Option<&mut Option<Self::Warnings>> {
                #warnings_mut
            }

            fn from_errors(errors: Self::Errors) -> Self {
                Self { #errors: Some(errors), ..Default::default() }
            }
        }
    })
}
