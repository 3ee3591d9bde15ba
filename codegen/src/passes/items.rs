//! The `items` pass: what the generated code holds for each type.
//!
//! - A struct or an enumeration becomes a Rust item, with a schema table.
//! - A restriction of a built-in (an alias) gets a schema table only: its fields have the
//!   built-in's Rust type, because yaserde's derive reads a field as a primitive only by its
//!   type's name (a field of an alias of `String` would not compile). Its constraints go into
//!   the documentation of each field of that type.
//! - An enumeration that only gives the known values of open lists (`xs:union` members) and is
//!   used by no field gets nothing: the open lists carry its values.

use std::collections::HashSet;

use crate::diagnostics::Diagnostics;
use crate::ir::{Emission, FieldType, Model, TypeId, TypeKind};

/// Runs the pass.
pub fn run(model: &mut Model, _diags: &mut Diagnostics) {
    let mut used_by_fields: HashSet<TypeId> = HashSet::new();
    let mut known_values_only: HashSet<TypeId> = HashSet::new();
    for t in &model.types {
        match &t.kind {
            TypeKind::Struct(s) => {
                for f in s.all_fields() {
                    if let FieldType::Simple(sc) = &f.ty
                        && let Some(id) = sc.named
                    {
                        used_by_fields.insert(id);
                    }
                }
            }
            TypeKind::Enum(e) => known_values_only.extend(e.known_from),
            TypeKind::Alias(_) => {}
        }
    }
    for (i, t) in model.types.iter_mut().enumerate() {
        t.emission = match &t.kind {
            TypeKind::Struct(_) => Emission::Item,
            TypeKind::Alias(_) => Emission::TableOnly,
            TypeKind::Enum(_) if known_values_only.contains(&TypeId(i)) && !used_by_fields.contains(&TypeId(i)) => {
                Emission::Nothing
            }
            TypeKind::Enum(_) => Emission::Item,
        };
    }
}
