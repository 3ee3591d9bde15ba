//! The derives of the generated message types' codec (`cargo xtask regen` writes the types;
//! these write what decodes and encodes them, so a field is stated once, in its struct):
//!
//! - [`Decode`]: attributes and children checked and bound in one pass, each matched by its
//!   XML name and written into its field of a default value (nothing is bound by position).
//!   Each problem is recorded in the context and decoding goes on (a child that fails leaves
//!   its field empty); the value is returned only when no problem was recorded inside it.
//! - [`Encode`]: attributes, then text or children, in declaration order, as each dialect
//!   writes them.
//! - [`MessageDefault`]: a message root's `Default`: the version field set to the version the
//!   service expects, every other field empty.
//!
//! A field's XML name and whether it is an attribute, an element or the text are read from its
//! `yaserde` attribute (`#[yaserde(attribute = true, rename = "EchoToken")]`,
//! `#[yaserde(prefix = "ota", rename = "POS")]`, `#[yaserde(text = true)]`); `Option<_>` is
//! optional, `Vec<_>` repeated, anything else required. What yaserde does not say is in
//! `#[codec(..)]`:
//!
//! | on | `#[codec(..)]` | meaning |
//! |---|---|---|
//! | type | `schema = NAME` | its descriptor, `schema::NAME` (required) |
//! | type | `skipped` | anything inside is taken and not read (`xs:any`) |
//! | type | `empty` | no children and no text (else: children in order) |
//! | type | `empty_text(Dialect = "v")` | an empty element a dialect writes the text `v` in |
//! | type | `text = PATH` | text content of the simple type `PATH`, in the field `value` |
//! | type | `text_attribute(name = "A", Dialect, ..)` | the dialects that write the text as attribute `A` |
//! | type | `text_list(attr = field, value = PATH, Dialect, ..)` | its one list may come as text: values of `PATH` into the items' `field`; the dialects write it so |
//! | type | `version_in(Dialect = "v")` | the version a dialect writes for the service's |
//! | attribute | `value = PATH` | its simple type (required); `NAME` alone is `schema::NAME` |
//! | attribute | `version` | the message's version attribute |
//! | attribute | `also = "Name"` | another name it is read under |
//! | element | `simple` | a simple-typed element (else complex) |
//! | field | `written(Dialect = "Name")`, `omitted(Dialect)`, `empty_when_absent(Dialect)` | how a dialect writes it, in order |

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Path, Type, parse_macro_input};

/// Derives `rt::Decode`: see the crate's documentation.
#[proc_macro_derive(Decode, attributes(codec))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    Codec::read(&input).map_or_else(|e| e.to_compile_error(), |c| c.decode()).into()
}

/// Derives `rt::Encode`: see the crate's documentation.
#[proc_macro_derive(Encode, attributes(codec))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    Codec::read(&input).map_or_else(|e| e.to_compile_error(), |c| c.encode()).into()
}

/// Derives `Default` for a message root: the `#[codec(version)]` field is
/// `<Self as rt::Message>::VERSION`, every other field its default.
#[proc_macro_derive(MessageDefault, attributes(codec))]
pub fn derive_message_default(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    Codec::read(&input).map_or_else(|e| e.to_compile_error(), |c| c.message_default()).into()
}

/// What one struct's codec is made of, read from its attributes.
struct Codec {
    name: Ident,
    schema: Ident,
    content: Content,
    empty_text: Vec<(Ident, LitStr)>,
    text_attribute: Option<(LitStr, Vec<Ident>)>,
    text_list: Option<TextList>,
    version_in: Vec<(Ident, LitStr)>,
    fields: Vec<Field>,
}

enum Content {
    Skipped,
    Empty,
    Text(Path),
    Sequence,
}

struct TextList {
    attr: Ident,
    value: Path,
    written: Vec<Ident>,
}

#[derive(Clone, Copy, PartialEq)]
enum Multiplicity {
    One,
    Optional,
    Many,
}

struct Field {
    ident: Ident,
    ty: Type,
    xml: LitStr,
    kind: Kind,
    multiplicity: Multiplicity,
    written: Vec<Written>,
}

enum Kind {
    Attribute { value: Path, version: bool, also: Vec<LitStr> },
    Element { simple: bool },
    Text,
}

enum Written {
    Name(Ident, LitStr),
    Omitted(Ident),
    EmptyWhenAbsent(Ident),
}

/// A path to a descriptor: `NAME` alone is `schema::NAME`.
fn descriptor(meta: &ParseNestedMeta) -> syn::Result<Path> {
    let path: Path = meta.value()?.parse()?;
    Ok(if path.segments.len() == 1 { syn::parse_quote!(schema::#path) } else { path })
}

/// `Dialect = "value"`, as in `empty_text(Ota2016b = "x")`.
fn dialect_values(meta: &ParseNestedMeta, out: &mut Vec<(Ident, LitStr)>) -> syn::Result<()> {
    meta.parse_nested_meta(|m| {
        out.push((m.path.require_ident()?.clone(), m.value()?.parse()?));
        Ok(())
    })
}

/// The name of a generic type and its first type argument: `("Option", T)` of `Option<T>`.
fn generic(ty: &Type) -> Option<(&Ident, &Type)> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some((&last.ident, t)),
        _ => None,
    }
}

/// `Option<T>` is optional, `Vec<T>` repeated, anything else required (a spec type of the name
/// `Option` or `Vec` has no type argument).
fn multiplicity(ty: &Type) -> Multiplicity {
    match generic(ty) {
        Some((name, _)) if name == "Option" => Multiplicity::Optional,
        Some((name, _)) if name == "Vec" => Multiplicity::Many,
        _ => Multiplicity::One,
    }
}

impl Codec {
    fn read(input: &DeriveInput) -> syn::Result<Codec> {
        let Data::Struct(data) = &input.data else {
            return Err(syn::Error::new_spanned(input, "the codec derives are for structs"));
        };
        let mut schema = None;
        let (mut skipped, mut empty, mut text) = (false, false, None);
        let (mut empty_text, mut version_in, mut text_attribute, mut text_list) = (Vec::new(), Vec::new(), None, None);
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("codec")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("schema") {
                    schema = Some(meta.value()?.parse::<Ident>()?);
                } else if meta.path.is_ident("skipped") {
                    skipped = true;
                } else if meta.path.is_ident("empty") {
                    empty = true;
                } else if meta.path.is_ident("text") {
                    text = Some(descriptor(&meta)?);
                } else if meta.path.is_ident("empty_text") {
                    dialect_values(&meta, &mut empty_text)?;
                } else if meta.path.is_ident("version_in") {
                    dialect_values(&meta, &mut version_in)?;
                } else if meta.path.is_ident("text_attribute") {
                    let (mut name, mut dialects) = (None, Vec::new());
                    meta.parse_nested_meta(|m| {
                        if m.path.is_ident("name") {
                            name = Some(m.value()?.parse()?);
                        } else {
                            dialects.push(m.path.require_ident()?.clone());
                        }
                        Ok(())
                    })?;
                    let name = name.ok_or_else(|| meta.error("text_attribute needs name = \"..\""))?;
                    text_attribute = Some((name, dialects));
                } else if meta.path.is_ident("text_list") {
                    let (mut attr, mut value, mut written) = (None, None, Vec::new());
                    meta.parse_nested_meta(|m| {
                        if m.path.is_ident("attr") {
                            attr = Some(m.value()?.parse()?);
                        } else if m.path.is_ident("value") {
                            value = Some(descriptor(&m)?);
                        } else {
                            written.push(m.path.require_ident()?.clone());
                        }
                        Ok(())
                    })?;
                    let (Some(attr), Some(value)) = (attr, value) else {
                        return Err(meta.error("text_list needs attr = field and value = PATH"));
                    };
                    text_list = Some(TextList { attr, value, written });
                } else {
                    return Err(meta.error("unknown codec attribute of a type"));
                }
                Ok(())
            })?;
        }
        let schema =
            schema.ok_or_else(|| syn::Error::new_spanned(&input.ident, "#[codec(schema = NAME)] is missing"))?;
        let content = match (skipped, empty, text) {
            (true, _, _) => Content::Skipped,
            (_, true, _) => Content::Empty,
            (_, _, Some(t)) => Content::Text(t),
            _ => Content::Sequence,
        };
        let fields = match &data.fields {
            Fields::Named(named) => named.named.iter().map(Field::read).collect::<syn::Result<_>>()?,
            _ => Vec::new(),
        };
        Ok(Codec {
            name: input.ident.clone(),
            schema,
            content,
            empty_text,
            text_attribute,
            text_list,
            version_in,
            fields,
        })
    }

    fn attributes(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| matches!(f.kind, Kind::Attribute { .. }))
    }

    fn elements(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| matches!(f.kind, Kind::Element { .. }))
    }

    fn decode(&self) -> Tokens {
        let name = &self.name;
        if matches!(self.content, Content::Skipped) {
            return quote! {
                impl rt::Decode for #name {
                    fn decode<'a, 'i>(_node: rt::Node<'a, 'i>, _cx: &mut rt::Cx<'a, 'i>) -> Result<Self, rt::Failed> {
                        Ok(Self {})
                    }
                }
            };
        }
        let desc = &self.schema;
        let mut attr_arms = Vec::new();
        for a in self.attributes() {
            let Kind::Attribute { value, version, .. } = &a.kind else { continue };
            let f = &a.ident;
            let read = if *version {
                quote!(cx.version(&attr, &#value, <Self as rt::Message>::VERSION)?)
            } else {
                quote!(cx.value(&attr, &#value)?)
            };
            let bind = match a.multiplicity {
                Multiplicity::One => quote!(rt::set(&mut out.#f, #read)),
                _ => quote!(out.#f = #read),
            };
            let others = a.other_names();
            let names = std::iter::once(&a.xml).chain(others.iter());
            // With other names, the same attribute can come twice.
            attr_arms.push(if others.is_empty() {
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
        let required = self
            .attributes()
            .any(|a| a.multiplicity == Multiplicity::One)
            .then(|| quote!(cx.required_attributes(node, DESC)?;));
        let content = match &self.content {
            Content::Skipped => quote!(),
            Content::Empty if self.empty_text.is_empty() => quote!(cx.empty(node, DESC)?;),
            Content::Empty => quote!(cx.empty_or_fixed(node, DESC)?;),
            Content::Text(d) => match &self.text_attribute {
                Some((name, _)) => quote!(rt::set(&mut out.value, cx.text_or_attribute(node, &#d, #name)?);),
                None => quote!(rt::set(&mut out.value, cx.text(node, &#d)?);),
            },
            Content::Sequence => {
                let text_list = self.text_list_decode();
                let arms = self.elements().map(|f| {
                    let (fname, xml) = (&f.ident, &f.xml);
                    let read = match f.kind {
                        Kind::Element { simple: true } => quote!(cx.simple(&next)?),
                        _ => quote!(cx.element(&next, rt::Decode::decode)?),
                    };
                    match f.multiplicity {
                        Multiplicity::Many => quote!(#xml => rt::push(&mut out.#fname, #read),),
                        Multiplicity::Optional => quote!(#xml => out.#fname = #read,),
                        Multiplicity::One => quote!(#xml => rt::set(&mut out.#fname, #read),),
                    }
                });
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
            || matches!(self.content, Content::Text(_))
            || (matches!(self.content, Content::Sequence) && self.elements().next().is_some());
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

    /// The start of a text list's decoder: the element read as its values listed as text, when
    /// it has text and no child elements.
    fn text_list_decode(&self) -> Tokens {
        let (Some(tl), Some(list)) = (&self.text_list, self.elements().next()) else { return quote!() };
        let (attr, value, list_name) = (&tl.attr, &tl.value, &list.ident);
        let Some((_, item)) = generic(&list.ty).filter(|(name, _)| *name == "Vec") else { return quote!() };
        quote! {
            if let Some(values) = cx.text_list(node, &#value)? {
                cx.check(mark)?;
                return Ok(Self { #list_name: values.into_iter().map(|v| #item { #attr: v }).collect() });
            }
        }
    }

    fn encode(&self) -> Tokens {
        let name = &self.name;
        let mut body = Vec::new();
        for a in self.attributes() {
            let Kind::Attribute { version, .. } = &a.kind else { continue };
            let f = &a.ident;
            let mut write = a.in_dialects(|xml| match a.multiplicity {
                Multiplicity::One => quote!(w.attr(#xml, &self.#f);),
                _ => quote!(w.attr_opt(#xml, &self.#f);),
            });
            // The service's version, as another dialect writes it.
            if *version {
                let xml = &a.xml;
                for (dialect, value) in self.version_in.iter().rev() {
                    let is = is_dialect(std::slice::from_ref(dialect));
                    write = quote! {
                        if #is && self.#f == <Self as rt::Message>::VERSION { w.attr(#xml, &#value); } else { #write }
                    };
                }
            }
            body.push(write);
        }
        match &self.content {
            Content::Skipped => {}
            Content::Empty => {
                // The text some dialects write in an element of no content.
                for (dialect, value) in &self.empty_text {
                    let is = is_dialect(std::slice::from_ref(dialect));
                    body.push(quote!(if #is { w.text(&#value); }));
                }
            }
            Content::Text(_) => match &self.text_attribute {
                // The text as an attribute in the dialects that say so.
                Some((name, dialects)) => {
                    let is = is_dialect(dialects);
                    body.push(quote!(if #is { w.attr(#name, &self.value); } else { w.text(&self.value); }));
                }
                None => body.push(quote!(w.text(&self.value);)),
            },
            Content::Sequence => {
                let mut children = Vec::new();
                for f in self.elements() {
                    let fname = &f.ident;
                    children.push(f.in_dialects(|xml| {
                        let write = |v: Tokens| match f.kind {
                            Kind::Element { simple: true } => quote!(w.simple(#xml, #v);),
                            _ => quote!(rt::Encode::encode(#v, w, #xml);),
                        };
                        match f.multiplicity {
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
                    children.extend(f.empty_when_absent());
                }
                body.push(match self.text_list_encode() {
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

    /// The dialects that write a text list as text, and the code that writes it so.
    fn text_list_encode(&self) -> Option<(Tokens, Tokens)> {
        let tl = self.text_list.as_ref().filter(|tl| !tl.written.is_empty())?;
        let list = &self.elements().next()?.ident;
        let attr = &tl.attr;
        Some((is_dialect(&tl.written), quote!(w.text_list(self.#list.iter().map(|v| &v.#attr));)))
    }

    fn message_default(&self) -> Tokens {
        let name = &self.name;
        let inits = self.fields.iter().map(|f| {
            let fname = &f.ident;
            match &f.kind {
                Kind::Attribute { version: true, .. } => quote!(#fname: <Self as rt::Message>::VERSION.to_string(),),
                _ => quote!(#fname: Default::default(),),
            }
        });
        quote! {
            impl Default for #name {
                fn default() -> Self {
                    Self { #(#inits)* }
                }
            }
        }
    }
}

impl Field {
    fn read(f: &syn::Field) -> syn::Result<Field> {
        let ident = f.ident.clone().ok_or_else(|| syn::Error::new_spanned(f, "the codec derives need named fields"))?;
        let (mut xml, mut is_attribute, mut is_text) = (None, false, false);
        for attr in f.attrs.iter().filter(|a| a.path().is_ident("yaserde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    xml = Some(meta.value()?.parse::<LitStr>()?);
                } else if meta.path.is_ident("attribute") {
                    is_attribute = meta.value()?.parse::<syn::LitBool>()?.value;
                } else if meta.path.is_ident("text") {
                    is_text = meta.value()?.parse::<syn::LitBool>()?.value;
                } else {
                    // prefix, default, …: yaserde's own.
                    let _ = meta.value()?.parse::<syn::Expr>()?;
                }
                Ok(())
            })?;
        }
        let (mut value, mut version, mut also, mut simple, mut written) = (None, false, Vec::new(), false, Vec::new());
        for attr in f.attrs.iter().filter(|a| a.path().is_ident("codec")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("value") {
                    value = Some(descriptor(&meta)?);
                } else if meta.path.is_ident("version") {
                    version = true;
                } else if meta.path.is_ident("also") {
                    also.push(meta.value()?.parse()?);
                } else if meta.path.is_ident("simple") {
                    simple = true;
                } else if meta.path.is_ident("written") {
                    meta.parse_nested_meta(|m| {
                        written.push(Written::Name(m.path.require_ident()?.clone(), m.value()?.parse()?));
                        Ok(())
                    })?;
                } else if meta.path.is_ident("omitted") {
                    meta.parse_nested_meta(|m| {
                        written.push(Written::Omitted(m.path.require_ident()?.clone()));
                        Ok(())
                    })?;
                } else if meta.path.is_ident("empty_when_absent") {
                    meta.parse_nested_meta(|m| {
                        written.push(Written::EmptyWhenAbsent(m.path.require_ident()?.clone()));
                        Ok(())
                    })?;
                } else {
                    return Err(meta.error("unknown codec attribute of a field"));
                }
                Ok(())
            })?;
        }
        let kind = if is_text {
            Kind::Text
        } else if is_attribute {
            let value =
                value.ok_or_else(|| syn::Error::new_spanned(&ident, "an attribute needs #[codec(value = ..)]"))?;
            Kind::Attribute { value, version, also }
        } else {
            Kind::Element { simple }
        };
        let xml = match (&kind, xml) {
            (Kind::Text, _) => LitStr::new("", ident.span()),
            (_, Some(x)) => x,
            (_, None) => return Err(syn::Error::new_spanned(&ident, "the field needs #[yaserde(rename = \"..\")]")),
        };
        Ok(Field { multiplicity: multiplicity(&f.ty), ty: f.ty.clone(), ident, xml, kind, written })
    }

    /// The names it is also read under: its `also` names and those dialects write it under.
    fn other_names(&self) -> Vec<LitStr> {
        let mut out: Vec<LitStr> = Vec::new();
        let also = match &self.kind {
            Kind::Attribute { also, .. } => also.as_slice(),
            _ => &[],
        };
        let written = self.written.iter().filter_map(|w| match w {
            Written::Name(_, n) => Some(n),
            _ => None,
        });
        for n in also.iter().chain(written) {
            if n.value() != self.xml.value() && !out.iter().any(|o| o.value() == n.value()) {
                out.push(n.clone());
            }
        }
        out
    }

    /// What writes the field (`write`, given the XML name): the declared name, or another name
    /// or nothing in the dialects that say so.
    fn in_dialects(&self, write: impl Fn(&LitStr) -> Tokens) -> Tokens {
        let mut out = write(&self.xml);
        for w in self.written.iter().rev() {
            out = match w {
                Written::Name(dialect, name) => {
                    let is = is_dialect(std::slice::from_ref(dialect));
                    let other = write(name);
                    quote!(if #is { #other } else { #out })
                }
                Written::Omitted(dialect) => {
                    let is = is_dialect(std::slice::from_ref(dialect));
                    quote!(if !(#is) { #out })
                }
                // Written as declared; see `empty_when_absent`.
                Written::EmptyWhenAbsent(_) => out,
            };
        }
        out
    }

    /// What writes an empty element for an absent optional element in the dialects that
    /// require it.
    fn empty_when_absent(&self) -> Option<Tokens> {
        let dialects: Vec<Ident> = self
            .written
            .iter()
            .filter_map(|w| match w {
                Written::EmptyWhenAbsent(d) => Some(d.clone()),
                _ => None,
            })
            .collect();
        if dialects.is_empty() {
            return None;
        }
        let is = is_dialect(&dialects);
        let (fname, xml) = (&self.ident, &self.xml);
        Some(quote!(if self.#fname.is_none() && (#is) { w.start(#xml); w.end(#xml); }))
    }
}

/// A test of the writer's dialect: one of `dialects`.
fn is_dialect(dialects: &[Ident]) -> Tokens {
    let tests = dialects.iter().map(|d| quote!(w.dialect() == super::Dialect::#d.into()));
    quote!(#(#tests)||*)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn codec(item: &str) -> syn::Result<Codec> {
        Codec::read(&syn::parse_str::<DeriveInput>(item).expect("a struct"))
    }

    /// The generated code without spaces, so a test names a statement as it reads.
    fn flat(tokens: Tokens) -> String {
        tokens.to_string().replace(' ', "")
    }

    const ROOT: &str = r#"
        #[codec(schema = OTA_PING_RQ, version_in(Ota2016b = "2016.1"))]
        struct OtaPingRq {
            #[yaserde(attribute = true, rename = "Version")]
            #[codec(value = VERSION_NUMBER, version)]
            version: String,
            #[yaserde(attribute = true, rename = "EchoToken")]
            #[codec(value = rt::schema::XS_STRING, also = "Echo")]
            echo_token: Option<String>,
            #[yaserde(prefix = "ota", rename = "POS")]
            pos: Pos,
            #[yaserde(prefix = "ota", rename = "Comment")]
            #[codec(simple, omitted(Service), written(Ota2016b = "Remark"))]
            comment: Vec<String>,
        }
    "#;

    #[test]
    fn fields_are_bound_by_their_names() {
        let decode = flat(codec(ROOT).unwrap().decode());
        assert!(decode.contains("constDESC:&rt::schema::ComplexDesc=&schema::OTA_PING_RQ;"), "{decode}");
        // The version checked against the message's, a required attribute bound once.
        assert!(
            decode.contains(
                r#""Version"=>rt::set(&mutout.version,cx.version(&attr,&schema::VERSION_NUMBER,<Selfasrt::Message>::VERSION)?)"#
            ),
            "{decode}"
        );
        assert!(decode.contains("cx.required_attributes(node,DESC)?;"), "{decode}");
        // Another name of an attribute, and the name a dialect writes it under, read too (once).
        assert!(
            decode.contains(r#""EchoToken"|"Echo"=>{cx.once(node,&attr,DESC)?;out.echo_token=cx.value(&attr,&rt::schema::XS_STRING)?;}"#),
            "{decode}"
        );
        assert!(decode.contains(r#""POS"=>rt::set(&mutout.pos,cx.element(&next,rt::Decode::decode)?),"#), "{decode}");
        assert!(decode.contains(r#""Comment"=>rt::push(&mutout.comment,cx.simple(&next)?),"#), "{decode}");
    }

    #[test]
    fn each_dialect_writes_its_forms() {
        let encode = flat(codec(ROOT).unwrap().encode());
        // The service's version as the other dialect writes it.
        assert!(
            encode.contains(r#"ifw.dialect()==super::Dialect::Ota2016b.into()&&self.version==<Selfasrt::Message>::VERSION{w.attr("Version",&"2016.1");}else{w.attr("Version",&self.version);}"#),
            "{encode}"
        );
        // Omitted by one dialect, renamed by another, in the order declared.
        assert!(
            encode.contains(r#"if!(w.dialect()==super::Dialect::Service.into()){ifw.dialect()==super::Dialect::Ota2016b.into(){forvin&self.comment{w.simple("Remark",v);}}else{forvin&self.comment{w.simple("Comment",v);}}}"#),
            "{encode}"
        );
        let default = flat(codec(ROOT).unwrap().message_default());
        assert!(default.contains("version:<Selfasrt::Message>::VERSION.to_string(),"), "{default}");
        assert!(default.contains("pos:Default::default(),"), "{default}");
    }

    #[test]
    fn multiplicity_is_read_from_the_type() {
        let ty = |t: &str| multiplicity(&syn::parse_str::<Type>(t).unwrap());
        assert!(ty("Option<Box<Pos>>") == Multiplicity::Optional);
        assert!(ty("Vec<String>") == Multiplicity::Many);
        assert!(ty("Pos") == Multiplicity::One);
        // A spec type that happens to be called so.
        assert!(ty("Option") == Multiplicity::One && ty("super::common::Vec") == Multiplicity::One);
    }

    #[test]
    fn what_the_derives_cannot_know_is_an_error() {
        let no_schema = "struct A { #[yaserde(attribute = true, rename = \"X\")] #[codec(value = T)] x: String }";
        assert!(codec(no_schema).err().unwrap().to_string().contains("schema = NAME"));
        let no_value = "#[codec(schema = A)] struct A { #[yaserde(attribute = true, rename = \"X\")] x: String }";
        assert!(codec(no_value).err().unwrap().to_string().contains("value = .."));
        let no_name = "#[codec(schema = A)] struct A { #[yaserde(prefix = \"ota\")] x: String }";
        assert!(codec(no_name).err().unwrap().to_string().contains("rename"));
        let unknown = "#[codec(schema = A, sideways)] struct A {}";
        assert!(codec(unknown).err().unwrap().to_string().contains("unknown codec attribute"));
    }
}
