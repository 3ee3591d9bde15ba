//! `official.rs`: what the official OpenTravel schemas allow in the requests beyond the spec
//! (the decoders' table) and the decision on each such item, as the `official` pass recorded
//! them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Decision, Model};
use crate::official::{OfficialSchema, SimpleId, Variety};
use crate::passes::naming::screaming;

/// The official simple types a value may be checked against for `id`: its union's members,
/// a list's item type, or itself.
fn alternatives(schema: &OfficialSchema, id: SimpleId, out: &mut Vec<SimpleId>) {
    match &schema.simple(id).variety {
        Variety::Union(members) => members.iter().for_each(|m| alternatives(schema, *m, out)),
        Variety::List(item) => alternatives(schema, *item, out),
        Variety::Atomic => {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
}

/// The checker's table of an official atomic simple type (a built-in the runtime does not know
/// is checked as a string; an exclusive bound is not checked: a value is at worst taken as
/// valid OpenTravel that the service does not take).
fn official_desc(schema: &OfficialSchema, id: SimpleId) -> TokenStream {
    let s = schema.simple(id);
    let name = format_ident!("OFFICIAL_{}", id.0);
    let xml = s.name.clone().unwrap_or_else(|| format!("anonymous type {}", id.0));
    let builtin = crate::ir::Builtin::from_xsd(&s.builtin).unwrap_or(crate::ir::Builtin::String);
    let builtin = format_ident!("{}", crate::passes::naming::pascal(builtin.xsd_name()));
    let f = &s.facets;
    let values = &f.enumerations;
    let patterns: Vec<TokenStream> = f
        .patterns
        .iter()
        .filter_map(|p| {
            let rust = crate::regex::translate_pattern(p).ok()?;
            Some(quote!(rt::schema::Pattern::new(#p, #rust)))
        })
        .collect();
    // Only the facets it has: the rest are the built-in's.
    let mut items = Vec::new();
    let mut set = Vec::new();
    if !values.is_empty() {
        set.push(quote!(values: &[#(#values),*],));
    }
    if !patterns.is_empty() {
        let n = patterns.len();
        let patterns_name = format_ident!("OFFICIAL_{}_PATTERNS", id.0);
        items.push(quote!(static #patterns_name: [rt::schema::Pattern; #n] = [#(#patterns),*];));
        set.push(quote!(patterns: &#patterns_name,));
    }
    let length = |v: Option<u64>| v.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    if let Some(n) = length(f.min_length.or(f.length)) {
        set.push(quote!(min_length: Some(#n),));
    }
    if let Some(n) = length(f.max_length.or(f.length)) {
        set.push(quote!(max_length: Some(#n),));
    }
    if let Some(v) = &f.min_inclusive {
        set.push(quote!(min_inclusive: Some(#v),));
    }
    if let Some(v) = &f.max_inclusive {
        set.push(quote!(max_inclusive: Some(#v),));
    }
    quote! {
        #(#items)*
        static #name: rt::schema::SimpleDesc = rt::schema::SimpleDesc {
            #(#set)*
            ..rt::schema::SimpleDesc::builtin(#xml, rt::schema::Builtin::#builtin)
        };
    }
}

/// The `official.rs` file.
pub(super) fn official_rs(model: &Model) -> TokenStream {
    let extras: Vec<TokenStream> = model
        .official
        .extras
        .iter()
        .map(|x| {
            let desc = format_ident!("{}", screaming(&model.ty(x.of).rust_name));
            let attributes = &x.attributes;
            let elements = x.elements.iter().map(|(name, max)| quote!((#name, #max)));
            let any = x.any_element;
            let optional = &x.optional;
            let text_attributes = x.text_attributes.iter().map(|(e, names)| quote!((#e, &[#(#names),*])));
            quote!(rt::Extras {
                of: &super::schema::#desc,
                attributes: &[#(#attributes),*],
                elements: &[#(#elements),*],
                any_element: #any,
                optional: &[#(#optional),*],
                text_attributes: &[#(#text_attributes),*],
            },)
        })
        .collect();
    let n_extras = extras.len();
    let (mut descs, mut wider) = (Vec::new(), Vec::new());
    if let Some(input) = &model.official_input {
        let mut emitted: Vec<SimpleId> = Vec::new();
        for (of, officials) in &model.official.wider {
            let mut alts = Vec::new();
            officials.iter().for_each(|o| alternatives(&input.schema, *o, &mut alts));
            for a in &alts {
                if !emitted.contains(a) {
                    emitted.push(*a);
                    descs.push(official_desc(&input.schema, *a));
                }
            }
            let of = format_ident!("{}", screaming(&model.ty(*of).rust_name));
            let alts = alts.iter().map(|a| format_ident!("OFFICIAL_{}", a.0));
            wider.push(quote!(rt::Wider { of: &super::schema::#of, official: &[#(&#alts),*] },));
        }
    }
    let n_wider = wider.len();
    let rules: Vec<TokenStream> = model
        .official_input
        .iter()
        .flat_map(|input| &input.rules)
        .map(|r| {
            let root = match &r.root {
                Some(root) => quote!(Some(#root)),
                None => quote!(None),
            };
            let path = &r.path;
            let more = match r.more {
                Some(m) => quote!(Some(#m)),
                None => quote!(None),
            };
            let decision = match r.decision {
                Decision::Ignored => quote!(Ignored),
                Decision::NotSupported => quote!(NotSupported),
            };
            let reason = &r.reason;
            quote!(rt::Rule { root: #root, path: &[#(#path),*], more: #more, decision: rt::Decision::#decision, reason: #reason },)
        })
        .collect();
    let n_rules = rules.len();
    quote! {
        //! What the official OpenTravel 2016B schemas allow in the requests beyond the spec, read
        //! from those schemas by the generator: the table an official decode takes it by
        //! ([`OFFICIAL`]) and the rules that decide each item (`spec/official.xml`).

        use crate::runtime as rt;

        /// Per complex type of a request: what 2016B allows there beyond the spec.
        pub static EXTRAS: [rt::Extras; #n_extras] = [#(#extras)*];

        /// Per named simple type of the spec used in a request: the official types of its places.
        pub static WIDER: [rt::Wider; #n_wider] = [#(#wider)*];

        #(#descs)*

        /// What 2016B allows beyond the spec.
        pub static TABLES: rt::Official = rt::Official { extras: &EXTRAS, wider: &WIDER };

        /// A decode that also takes what 2016B allows beyond the spec, and lists it as unread.
        pub const OFFICIAL: rt::Strictness = rt::Strictness::Official(&TABLES);

        /// The decision rules of `spec/official.xml`, in its order: the first that matches an
        /// unread item decides it (`spec/official-items.md` lists every item with its decision).
        pub static RULES: [rt::Rule; #n_rules] = [#(#rules)*];
    }
}

/// `spec/official-items.md`: every official item the service does not read, by root, with its
/// decision and reason (a review document, written beside the spec).
pub fn items_doc(model: &Model) -> String {
    let mut out = String::from(
        "<!-- @generated by `cargo xtask regen` from spec/official.xml and the official schemas it names. Do not edit by hand. -->\n\n\
         # What the service does with official OpenTravel 2016B items it does not read\n\n\
         Every attribute and element the official 2016B schema of a request allows beyond `spec/`, at its place, \
         with the decision of `spec/official.xml`: **ignored** (processed without it; a Warning names it) or \
         **not supported** (refused, Type 2, naming it). \"(more)\" is an occurrence beyond the spec's maximum of \
         an element it reads (or a second alternative of one of its choices), \"(absent)\" an item the service requires and \
         2016B does not, left out; `*` any element (`xs:any`).\n",
    );
    let mut root = "";
    for i in &model.official.items {
        if i.root != root {
            root = &i.root;
            let n = model.official.items.iter().filter(|x| x.root == root).count();
            let refused =
                model.official.items.iter().filter(|x| x.root == root && x.decision == Decision::NotSupported).count();
            out.push_str(&format!(
                "\n## {root}\n\n{n} items: {} ignored, {refused} not supported.\n\n| item | decision | reason |\n|---|---|---|\n",
                n - refused
            ));
        }
        let decision = match i.decision {
            Decision::Ignored => "ignored",
            Decision::NotSupported => "**not supported**",
        };
        out.push_str(&format!("| `{}`{} | {decision} | {} |\n", i.path, i.kind.mark(), i.reason.replace('|', "\\|")));
    }
    out
}
