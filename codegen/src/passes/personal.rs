//! The `personal` pass: which fields hold personal data (`gen:personal`: a guest's name, birth
//! date, …), and what their values are masked with in the gateway's transaction log.
//!
//! The gateway masks by name (an attribute or element of a personal field's name, or of one of
//! its other names, anywhere in a message), so a name is personal everywhere or nowhere: a
//! field of a personal name that is not marked is an error, as are two personal fields of one
//! name with different masks. A personal field holds a simple value (or the text of a type of
//! text content); its mask, given (`mask="…"`) or the default of its built-in type
//! (`1900-01-01` for a date, `1900-01-01T00:00:00` for a date-time, `0` for a number, `***`
//! for text), must be a valid value of that built-in, so a masked message still decodes. The
//! outcome is [`Personal::mask`](crate::ir::Personal::mask), always set.

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostics;
use crate::ir::{Builtin, Content, Field, FieldType, Model, TypeKind};

/// The mask of a personal value of a built-in type when the spec gives none.
pub fn default_mask(builtin: Builtin) -> &'static str {
    match builtin {
        Builtin::Date => "1900-01-01",
        Builtin::DateTime => "1900-01-01T00:00:00",
        Builtin::Boolean => "false",
        Builtin::Int | Builtin::Integer | Builtin::NonNegativeInteger | Builtin::UnsignedInt | Builtin::Decimal => "0",
        Builtin::PositiveInteger => "1",
        Builtin::Language => "und",
        Builtin::String | Builtin::NormalizedString | Builtin::Token => "***",
    }
}

/// The built-in of a field's value: its simple type, or the text of a complex type of text
/// content; `None` for a field of child elements.
fn value_builtin(model: &Model, f: &Field) -> Option<Builtin> {
    match f.ty {
        FieldType::Simple(s) => Some(s.builtin),
        FieldType::Complex(id) => match &model.ty(id).kind {
            TypeKind::Struct(s) => match &s.content {
                Content::Text(sc) => Some(sc.builtin),
                _ => None,
            },
            _ => None,
        },
    }
}

/// Runs the pass.
pub fn run(model: &mut Model, diags: &mut Diagnostics) {
    // (is an attribute, name) → the mask of the personal field(s) of that name.
    let mut masks: BTreeMap<(bool, String), String> = BTreeMap::new();
    let mut resolved: Vec<(usize, bool, usize, String)> = Vec::new();
    for (ti, t) in model.types.iter().enumerate() {
        let TypeKind::Struct(s) = &t.kind else { continue };
        let attributes = s.attributes.len();
        for (fi, f) in s.all_fields().into_iter().enumerate() {
            let Some(p) = &f.personal else { continue };
            let is_attribute = fi < attributes;
            let Some(builtin) = value_builtin(model, f) else {
                diags.error(p.span.clone(), format!("gen:personal on `{}`: a personal field holds a value (a simple type or text), not child elements", f.xml_name));
                continue;
            };
            let mask = p.mask.clone().unwrap_or_else(|| default_mask(builtin).to_string());
            if let Err(why) = builtin.check(&mask) {
                diags.error(p.span.clone(), format!("gen:personal mask `{mask}` of `{}` is not {why}", f.xml_name));
                continue;
            }
            for name in std::iter::once(f.xml_name.as_str()).chain(f.other_names()) {
                match masks.get(&(is_attribute, name.to_string())) {
                    Some(other) if *other != mask => {
                        diags.error(p.span.clone(), format!("gen:personal: `{name}` is masked as `{other}` elsewhere and as `{mask}` here: one mask per name"));
                    }
                    _ => {
                        masks.insert((is_attribute, name.to_string()), mask.clone());
                    }
                }
            }
            resolved.push((ti, is_attribute, fi - if is_attribute { 0 } else { attributes }, mask));
        }
    }
    // A name is personal everywhere or nowhere (the gateway masks by name).
    for t in &model.types {
        let TypeKind::Struct(s) = &t.kind else { continue };
        let attributes = s.attributes.len();
        for (fi, f) in s.all_fields().into_iter().enumerate() {
            if f.personal.is_some() {
                continue;
            }
            let is_attribute = fi < attributes;
            for name in std::iter::once(f.xml_name.as_str()).chain(f.other_names()) {
                if masks.contains_key(&(is_attribute, name.to_string())) {
                    diags.error(
                        f.span.clone(),
                        format!("`{name}` of `{}` is not marked gen:personal, but a field of that name is: personal data is masked by name, so mark both or rename one", t.xml_name),
                    );
                }
            }
        }
    }
    for (ti, is_attribute, i, mask) in resolved {
        let TypeKind::Struct(s) = &mut model.types[ti].kind else { continue };
        let field = if is_attribute { s.attributes.get_mut(i) } else { element_field_mut(&mut s.content, i) };
        if let Some(Some(p)) = field.map(|f| f.personal.as_mut()) {
            p.mask = Some(mask);
        }
    }
}

/// The `i`th child element field (in [`StructDef::element_fields`](crate::ir::StructDef::element_fields) order), mutably.
fn element_field_mut(content: &mut Content, i: usize) -> Option<&mut Field> {
    let Content::Sequence(ps) = content else { return None };
    let mut fields: Vec<&mut Field> = Vec::new();
    for p in ps.iter_mut() {
        match p {
            crate::ir::Particle::Element(f) => fields.push(f),
            crate::ir::Particle::Choice { branches, .. } => fields.extend(branches.iter_mut().flatten()),
        }
    }
    fields.into_iter().nth(i)
}

/// Every personal name of the model, in spec order, each once: (is an attribute, name,
/// mask). Read after the pass has run.
pub fn table(model: &Model) -> Vec<(bool, String, String)> {
    let mut out: Vec<(bool, String, String)> = Vec::new();
    for t in &model.types {
        let TypeKind::Struct(s) = &t.kind else { continue };
        let attributes = s.attributes.len();
        for (fi, f) in s.all_fields().into_iter().enumerate() {
            let Some(p) = &f.personal else { continue };
            let mask = p.mask.clone().unwrap_or_default();
            for name in std::iter::once(f.xml_name.as_str()).chain(f.other_names()) {
                if !out.iter().any(|(a, n, _)| *a == (fi < attributes) && n == name) {
                    out.push((fi < attributes, name.to_string(), mask.clone()));
                }
            }
        }
    }
    out
}
