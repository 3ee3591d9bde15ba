//! The `dialects` pass: checks the forms of the dialects and resolves them.
//!
//! The spec declares its dialects once (`gen:dialect` in `common.xsd`; the first is the
//! default, the form every declaration has). A field may carry other names decoders take in any
//! dialect (`gen:also`), and say how another dialect writes it (`gen:written`: another name,
//! not at all, or as an empty element when absent, for an element that dialect requires); a type of one repeated element with one attribute may also be read from, and in
//! some dialects written as, the attribute's values listed as text (`gen:text-list`).
//!
//! A type may say how a dialect writes its text (`gen:text`): as an attribute (a type of text
//! content), or a fixed text in an element that has none in the default (a type of no content).
//! A message root may give the `Version` another dialect writes (`gen:version`).
//!
//! The pass resolves each dialect name to its position
//! ([`Written::dialect`](crate::ir::Written::dialect),
//! [`TextList::written`](crate::ir::TextList::written),
//! [`DialectVersion::dialect`](crate::ir::DialectVersion::dialect),
//! [`TextForm::dialect`](crate::ir::TextForm::dialect)), finds the list's item type
//! ([`TextList::item`](crate::ir::TextList::item)), and refuses what a decoder or encoder could
//! not honour: an unknown dialect, another name for the default dialect (it may only omit a
//! field that only the other dialects write), a required field that a dialect omits, another
//! name that is already a name of the struct, a text list of any other shape, a text form on
//! a type of the other content (or, as an attribute, under a name the type already has).

use crate::diagnostics::{Diagnostics, Span};
use crate::ir::{
    Content, DialectDef, Field, FieldType, Model, Multiplicity, Particle, StructDef, TextFormKind, TypeId, TypeKind,
    WrittenForm,
};

/// Runs the pass.
pub fn run(model: &mut Model, diags: &mut Diagnostics) {
    let dialects = model.dialects.clone();
    let emptiable = emptiable(model);
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
            resolve_written(f, false, &emptiable, &dialects, diags);
        }
        if let Content::Sequence(ps) = &mut s.content {
            for p in ps {
                match p {
                    Particle::Element(f) => resolve_written(f, true, &emptiable, &dialects, diags),
                    Particle::Choice { branches, .. } => {
                        for f in branches.iter_mut().flatten() {
                            resolve_written(f, true, &emptiable, &dialects, diags);
                        }
                    }
                }
            }
        }
        check_text_forms(s, diags);
        for t in &mut s.text_forms {
            if let Some(i) = position(&dialects, &t.dialect_name, &t.span, false, diags) {
                t.dialect = i;
            }
        }
        if let (Some(list), Some(item)) = (&mut s.text_list, item) {
            match item {
                Ok(id) => list.item = Some(id),
                Err(why) => diags.error(list.span.clone(), format!("gen:text-list needs {why}")),
            }
            list.written =
                list.written_names.iter().filter_map(|n| position(&dialects, n, &list.span, false, diags)).collect();
        }
    }
}

/// The position of the dialect `name` (reported when unknown, or the default where only
/// another dialect may be named: `omit` is the one form the default may take, for a field only
/// the other dialects write).
fn position(
    dialects: &[DialectDef],
    name: &str,
    span: &Span,
    default_too: bool,
    diags: &mut Diagnostics,
) -> Option<u8> {
    match dialects.iter().position(|d| d.name == name) {
        Some(0) if !default_too => {
            diags.error(
                span.clone(),
                format!("`{name}` is the default dialect: it writes the declared name (it may only omit a field)"),
            );
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

/// Resolves a field's `gen:written` forms; `emptiable[t]`: whether type `t` is a struct an
/// empty element is a valid instance of (for `empty-when-absent`, on elements only).
fn resolve_written(f: &mut Field, element: bool, emptiable: &[bool], dialects: &[DialectDef], diags: &mut Diagnostics) {
    let multiplicity = f.multiplicity();
    let empty_ok = match &f.ty {
        FieldType::Complex(id) => {
            element && multiplicity == Multiplicity::Optional && emptiable.get(id.0).copied().unwrap_or(false)
        }
        FieldType::Simple(_) => false,
    };
    for w in &mut f.written {
        if let Some(i) = position(dialects, &w.dialect_name, &w.span, w.name().is_none(), diags) {
            w.dialect = i;
        }
        match w.form {
            WrittenForm::Omitted if multiplicity == Multiplicity::One => {
                diags.error(
                    w.span.clone(),
                    format!("`{}` is required: dialect `{}` cannot omit it", f.xml_name, w.dialect_name),
                );
            }
            WrittenForm::EmptyWhenAbsent if !empty_ok => diags.error(
                w.span.clone(),
                format!(
                    "`{}`: empty-when-absent needs an optional element of a type with nothing required",
                    f.xml_name
                ),
            ),
            _ => {}
        }
    }
}

/// Whether an empty element is a valid instance of the type: a struct with no required
/// attribute, no text and no required child.
fn emptiable(model: &Model) -> Vec<bool> {
    model
        .types
        .iter()
        .map(|t| match &t.kind {
            TypeKind::Struct(s) => {
                s.attributes.iter().all(|a| a.multiplicity() != Multiplicity::One)
                    && match &s.content {
                        Content::Empty | Content::Skipped => true,
                        Content::Text(_) => false,
                        Content::Sequence(ps) => ps.iter().all(|p| match p {
                            Particle::Element(f) => f.min == 0,
                            Particle::Choice { required, .. } => !required,
                        }),
                    }
            }
            _ => false,
        })
        .collect()
}

/// Another name (`gen:also`, or the name a dialect writes: decoders take both) must not be a
/// name the struct already has (an attribute's among attributes, an element's among elements).
fn check_also(s: &StructDef, diags: &mut Diagnostics) {
    for group in [s.attributes.iter().collect::<Vec<_>>(), s.element_fields()] {
        let mut names: Vec<&str> = group.iter().map(|f| f.xml_name.as_str()).collect();
        for f in &group {
            for a in f.other_names() {
                if names.contains(&a) {
                    diags.error(
                        f.span.clone(),
                        format!("`{a}`, another name of `{}`, is already a name here", f.xml_name),
                    );
                }
                names.push(a);
            }
        }
    }
}

/// A text written as an attribute needs a type of text content and a name none of its
/// attributes has (one name, whichever dialect); a fixed text, a type of no content.
fn check_text_forms(s: &StructDef, diags: &mut Diagnostics) {
    let mut attribute: Option<&str> = None;
    for t in &s.text_forms {
        if let TextFormKind::Attribute(a) = &t.kind {
            match attribute {
                Some(first) if first != a => diags.error(
                    t.span.clone(),
                    format!("gen:text: the text is already written as `{first}`: one attribute per type"),
                ),
                _ => attribute = Some(a),
            }
        }
        match (&t.kind, &s.content) {
            (TextFormKind::Attribute(a), Content::Text(_)) => {
                let taken = s.attributes.iter().any(|f| &f.xml_name == a || f.other_names().contains(&a.as_str()));
                if taken {
                    diags.error(t.span.clone(), format!("gen:text: `{a}` is already an attribute here"));
                }
            }
            (TextFormKind::Value(_), Content::Empty) => {}
            (TextFormKind::Attribute(_), _) => {
                diags.error(t.span.clone(), "gen:text with `attribute` needs a type of text content")
            }
            (TextFormKind::Value(_), _) => {
                diags.error(t.span.clone(), "gen:text with `value` needs a type of no content")
            }
        }
    }
}

/// The item type of a text list: the struct must have no attributes and one repeated element
/// whose struct has exactly one attribute, required, and nothing else.
fn text_list_item(model: &Model, s: &StructDef) -> Result<TypeId, String> {
    const SHAPE: &str =
        "a type of no attributes and one repeated element, whose type has one required attribute and no content";
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
