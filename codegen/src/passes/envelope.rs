//! The `envelope` pass: which response roots have the OTA envelope, and where its parts are.
//!
//! A response root's content is the OTA envelope when it is a single choice between a branch
//! that starts with `Success` (then, optionally, `Warnings`, and the payload) and a branch that
//! is `Errors` alone. Such a root implements `runtime::Response` and gets a `success(..)`
//! constructor; the outcome is [`RootInfo::shape`](crate::ir::RootInfo::shape).

use crate::diagnostics::Diagnostics;
use crate::ir::{Content, Model, Particle, ResponseShape, StructDef, TypeKind};

/// Runs the pass.
pub fn run(model: &mut Model, _diags: &mut Diagnostics) {
    for t in &mut model.types {
        if let TypeKind::Struct(s) = &mut t.kind
            && s.root.is_some()
        {
            let shape = response_shape(s);
            if let Some(root) = &mut s.root {
                root.shape = shape;
            }
        }
    }
}

/// The envelope of a struct's content, if it has that shape.
pub fn response_shape(s: &StructDef) -> Option<ResponseShape> {
    let Content::Sequence(ps) = &s.content else { return None };
    let [Particle::Choice { branches, .. }] = ps.as_slice() else { return None };
    // Element indexes count the fields of every branch before this one.
    let mut start = 0;
    let mut ok = None;
    let mut errors = None;
    for b in branches {
        if ok.is_none() && b.first().is_some_and(|f| f.xml_name == "Success") {
            ok = Some((start, b));
        }
        if errors.is_none() && matches!(b.as_slice(), [f] if f.xml_name == "Errors") {
            errors = Some(start);
        }
        start += b.len();
    }
    let ((first, branch), errors) = (ok?, errors?);
    let warnings = branch.iter().position(|f| f.xml_name == "Warnings").map(|i| first + i);
    let payload = (1..branch.len()).map(|i| first + i).filter(|&i| Some(i) != warnings).collect();
    Some(ResponseShape { success: first, warnings, payload, errors })
}
