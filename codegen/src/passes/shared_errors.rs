//! The `shared_errors` pass: whether every operation answers errors with one `Errors` type.
//!
//! When the response of every request has the OTA envelope and all their `Errors` elements
//! have the same complex type, the registry gets `error_response(path, errors)`, which builds
//! the error answer of the operation at a path. The outcome is
//! [`Model::shared_errors`](crate::ir::Model::shared_errors).

use crate::diagnostics::Diagnostics;
use crate::ir::{FieldType, Model, TypeId, TypeKind};

/// Runs the pass (after `envelope`).
pub fn run(model: &mut Model, _diags: &mut Diagnostics) {
    model.shared_errors = shared(model);
}

fn shared(model: &Model) -> Option<TypeId> {
    let mut found: Option<TypeId> = None;
    for (_, _, info) in model.roots().filter(|(_, _, info)| info.path.is_some()) {
        let TypeKind::Struct(s) = &model.ty(info.response_type?).kind else { return None };
        let shape = s.root.as_ref()?.shape.as_ref()?;
        let FieldType::Complex(errors) = s.element_fields().get(shape.errors)?.ty else { return None };
        if found.is_some_and(|e| e != errors) {
            return None;
        }
        found = Some(errors);
    }
    found
}
