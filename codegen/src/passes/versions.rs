//! The `versions` pass: which attribute of a message root carries the message version.
//!
//! It is a required attribute named `Version` of a string type. A new message (the root's
//! `Default`) has it set to the version the service expects; the outcome is
//! [`RootInfo::version_attribute`](crate::ir::RootInfo::version_attribute).

use crate::diagnostics::Diagnostics;
use crate::ir::{FieldType, Model, Multiplicity, TypeKind};

/// Runs the pass.
pub fn run(model: &mut Model, _diags: &mut Diagnostics) {
    for t in &mut model.types {
        let TypeKind::Struct(s) = &mut t.kind else { continue };
        let found = s.attributes.iter().position(|f| {
            f.xml_name == "Version"
                && f.multiplicity() == Multiplicity::One
                && matches!(f.ty, FieldType::Simple(sc) if sc.builtin.is_string())
        });
        if let Some(root) = &mut s.root {
            root.version_attribute = found;
        }
    }
}
