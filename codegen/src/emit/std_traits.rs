//! The impls of the runtime's traits of standard attributes, from what the `std_attributes`
//! pass recorded: one accessor (and setter) per member, each reading or writing its field.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, ident};
use crate::ir::{StdAccess, StructDef, TypeId};

/// The trait impls of a struct (none when it uses no standard group).
pub(super) fn std_trait_impls(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    if s.std_traits.is_empty() {
        return quote!();
    }
    ctx.uses_rt = true;
    let name = ident(&ctx.model.ty(id).rust_name);
    let impls = s.std_traits.iter().map(|t| {
        let trait_name = format_ident!("{}", t.name);
        let methods = t.members.iter().filter_map(|m| {
            let a = s.attributes.get(m.attribute)?;
            let field = ident(&a.rust_name);
            let get = format_ident!("{}", m.method);
            let set = format_ident!("set_{}", m.method);
            let required = a.min > 0;
            let (get_ty, get_body, set_ty) = match (m.access, required) {
                (StdAccess::Text, false) => {
                    (quote!(Option<&str>), quote!(self.#field.as_deref()), Some(quote!(Option<String>)))
                }
                (StdAccess::Text, true) => (quote!(&str), quote!(&self.#field), Some(quote!(String))),
                (StdAccess::Code, false) => {
                    (quote!(Option<&str>), quote!(self.#field.as_ref().map(|v| v.as_str())), None)
                }
                (StdAccess::Code, true) => (quote!(&str), quote!(self.#field.as_str()), None),
                (StdAccess::DateTime, false) => {
                    (quote!(Option<&rt::DateTime>), quote!(self.#field.as_ref()), Some(quote!(Option<rt::DateTime>)))
                }
                (StdAccess::DateTime, true) => {
                    (quote!(&rt::DateTime), quote!(&self.#field), Some(quote!(rt::DateTime)))
                }
                (StdAccess::Count, false) => (quote!(Option<u64>), quote!(self.#field), Some(quote!(Option<u64>))),
                (StdAccess::Count, true) => (quote!(u64), quote!(self.#field), Some(quote!(u64))),
                (StdAccess::Flag, false) => (quote!(Option<bool>), quote!(self.#field), Some(quote!(Option<bool>))),
                (StdAccess::Flag, true) => (quote!(bool), quote!(self.#field), Some(quote!(bool))),
            };
            let setter = set_ty.map(|ty| {
                quote! {
                    fn #set(&mut self, value: #ty) {
                        self.#field = value;
                    }
                }
            });
            Some(quote! {
                fn #get(&self) -> #get_ty {
                    #get_body
                }
                #setter
            })
        });
        quote! {
            impl rt::#trait_name for #name {
                #(#methods)*
            }
        }
    });
    quote!(#(#impls)*)
}
