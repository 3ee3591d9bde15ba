//! The `dialects` pass: checks the forms of the dialects and resolves them.
//!
//! The spec declares its dialects once (`gen:dialect` in `common.xsd`; the first is the
//! default, the form every declaration has). A field may carry other names decoders take in any
//! dialect (`gen:also`), and say how another dialect writes it (`gen:written`: another name, or
//! not at all); a type of one repeated element with one attribute may also be read from, and in
//! some dialects written as, the attribute's values listed as text (`gen:text-list`).
//!
//! A message root may give the `Version` another dialect writes (`gen:version`).
//!
//! The pass resolves each dialect name to its position
//! ([`Written::dialect`](crate::ir::Written::dialect),
//! [`TextList::written`](crate::ir::TextList::written),
//! [`DialectVersion::dialect`](crate::ir::DialectVersion::dialect)), finds the list's item type
//! ([`TextList::item`](crate::ir::TextList::item)), and refuses what a decoder or encoder could
//! not honour: an unknown dialect, another name for the default dialect (it may only omit a
//! field that only the other dialects write), a required field that a dialect omits, another
//! name that is already a name of the struct, a text list of any other shape.

use crate::diagnostics::{Diagnostics, Span};
use crate::ir::{Content, DialectDef, Field, FieldType, Model, Multiplicity, Particle, StructDef, TypeId, TypeKind};

/// Runs the pass.
pub fn run(model: &mut Model, diags: &mut Diagnostics) {
    let dialects = model.dialects.clone();
    let items: Vec<Option<Result<TypeId, String>>> = model
        .types
        .iter()
        .map(|t| match &t.kind {
            TypeKind::Struct(s) if s.text_list.is_some() => Some(text_list_item(model, s)),
            _ => None,
        })
        .collect();
    for (t, item) in model.types.iter_mut().zip(items) {
        let TypeKind::Struct(s) = &mut t.kind else { continue };
        check_also(s, diags);
        if let Some(root) = &mut s.root {
            for v in &mut root.dialect_versions {
                if let Some(i) = position(&dialects, &v.dialect_name, &v.span, false, diags) {
                    v.dialect = i;
                }
            }
        }
        for f in s.attributes.iter_mut() {
            resolve_written(f, &dialects, diags);
        }
        if let Content::Sequence(ps) = &mut s.content {
            for p in ps {
                match p {
                    Particle::Element(f) => resolve_written(f, &dialects, diags),
                    Particle::Choice { branches, .. } => {
                        for f in branches.iter_mut().flatten() {
                            resolve_written(f, &dialects, diags);
                        }
                    }
                }
            }
        }
        if let (Some(list), Some(item)) = (&mut s.text_list, item) {
            match item {
                Ok(id) => list.item = Some(id),
                Err(why) => diags.error(list.span.clone(), format!("gen:text-list needs {why}")),
            }
            list.written = list.written_names.iter().filter_map(|n| position(&dialects, n, &list.span, false, diags)).collect();
        }
    }
}

/// The position of the dialect `name` (reported when unknown, or the default where only
/// another dialect may be named: `omit` is the one form the default may take, for a field only
/// the other dialects write).
fn position(dialects: &[DialectDef], name: &str, span: &Span, default_too: bool, diags: &mut Diagnostics) -> Option<u8> {
    match dialects.iter().position(|d| d.name == name) {
        Some(0) if !default_too => {
            diags.error(span.clone(), format!("`{name}` is the default dialect: it writes the declared name (it may only omit a field)"));
            None
        }
        Some(i) => u8::try_from(i).ok(),
        None => {
            let known: Vec<&str> = dialects.iter().map(|d| d.name.as_str()).collect();
            diags.error(span.clone(), format!("unknown dialect `{name}` (the spec declares: {})", known.join(", ")));
            None
        }
    }
}

fn resolve_written(f: &mut Field, dialects: &[DialectDef], diags: &mut Diagnostics) {
    let required = f.multiplicity() == Multiplicity::One;
    for w in &mut f.written {
        if let Some(i) = position(dialects, &w.dialect_name, &w.span, w.name.is_none(), diags) {
            w.dialect = i;
        }
        if w.name.is_none() && required {
            diags.error(w.span.clone(), format!("`{}` is required: dialect `{}` cannot omit it", f.xml_name, w.dialect_name));
        }
    }
}

/// Another name (`gen:also`, or the name a dialect writes: decoders take both) must not be a
/// name the struct already has (an attribute's among attributes, an element's among elements).
fn check_also(s: &StructDef, diags: &mut Diagnostics) {
    for group in [s.attributes.iter().collect::<Vec<_>>(), s.element_fields()] {
        let mut names: Vec<&str> = group.iter().map(|f| f.xml_name.as_str()).collect();
        for f in &group {
            for a in f.other_names() {
                if names.contains(&a) {
                    diags.error(f.span.clone(), format!("`{a}`, another name of `{}`, is already a name here", f.xml_name));
                }
                names.push(a);
            }
        }
    }
}

/// The item type of a text list: the struct must have no attributes and one repeated element
/// whose struct has exactly one attribute, required, and nothing else.
fn text_list_item(model: &Model, s: &StructDef) -> Result<TypeId, String> {
    const SHAPE: &str = "a type of no attributes and one repeated element, whose type has one required attribute and no content";
    let fields = s.element_fields();
    let ([f], true) = (fields.as_slice(), s.attributes.is_empty()) else { return Err(SHAPE.into()) };
    let (FieldType::Complex(id), Multiplicity::Many) = (&f.ty, f.multiplicity()) else { return Err(SHAPE.into()) };
    match &model.ty(*id).kind {
        TypeKind::Struct(item)
            if matches!(item.content, Content::Empty)
                && item.attributes.len() == 1
                && item.attributes[0].multiplicity() == Multiplicity::One =>
        {
            Ok(*id)
        }
        _ => Err(SHAPE.into()),
    }
}
