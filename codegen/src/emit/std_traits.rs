//! The impls of the runtime's traits of standard attributes, from what the `std_attributes`
//! pass recorded: one `runtime::std_attributes!` line per trait a struct implements (the pass
//! checked its attributes, the `naming` pass their fields' names; the macro writes the
//! accessors).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, ident};
use crate::ir::{StructDef, TypeId};

/// The trait impls of a struct (none when it uses no standard group).
pub(super) fn std_trait_impls(ctx: &mut Ctx, id: TypeId, s: &StructDef) -> TokenStream {
    if s.std_traits.is_empty() {
        return quote!();
    }
    ctx.uses_rt = true;
    let name = ident(&ctx.model.ty(id).rust_name);
    let impls = s.std_traits.iter().map(|t| {
        let trait_name = format_ident!("{}", t.name);
        quote!(rt::std_attributes!(#trait_name for #name);)
    });
    quote!(#(#impls)*)
}
