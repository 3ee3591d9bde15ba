//! The `std_attributes` pass: which structs implement the runtime's traits of the OTA standard
//! attributes, and which requests carry a point of sale.
//!
//! The traits are hand-written in the runtime (`generated/src/runtime/std_attributes.rs`);
//! [`TRAITS`] says which attribute group each one stands for and which attribute is behind each
//! accessor. A struct that uses such a group implements the trait; if the group lacks an
//! attribute the trait needs, or has it with another type or optionality, that is a diagnostic
//! (the generated impl could not compile). A request root with a required complex `POS` child
//! (or one inside a required `TPA_Extensions` child) implements `runtime::PosRequest`.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::ir::{
    Builtin, Field, FieldType, Model, Multiplicity, StdAccess, StdMember, StdTraitImpl, StructDef, TypeKind,
};

/// A runtime trait of standard attributes and the attribute group it stands for.
#[derive(Debug, Clone, Copy)]
pub struct StdTrait {
    /// The trait's name in `runtime`.
    pub name: &'static str,
    /// The attribute group whose users implement it.
    pub group: &'static str,
    /// Its accessors: the attribute, the getter's name, the shape, and whether the attribute is
    /// required.
    pub members: &'static [(&'static str, &'static str, StdAccess, bool)],
}

/// The traits, as the runtime declares them.
pub const TRAITS: &[StdTrait] = &[
    StdTrait {
        name: "PayloadStdAttributes",
        group: "OTA_PayloadStdAttributes",
        members: &[
            ("EchoToken", "echo_token", StdAccess::Text, false),
            ("TimeStamp", "time_stamp", StdAccess::DateTime, false),
            ("Target", "target", StdAccess::Code, false),
            ("Version", "version", StdAccess::Text, true),
            ("TransactionIdentifier", "transaction_identifier", StdAccess::Text, false),
            ("SequenceNmbr", "sequence_nmbr", StdAccess::Count, false),
            ("CorrelationID", "correlation_id", StdAccess::Text, false),
            ("RetransmissionIndicator", "retransmission_indicator", StdAccess::Flag, false),
            ("PrimaryLangID", "primary_lang_id", StdAccess::Code, false),
            ("AltLangID", "alt_lang_id", StdAccess::Text, false),
        ],
    },
    StdTrait {
        name: "ResponseStdAttributes",
        group: "OTA_ResponseStdAttributes",
        members: &[
            ("EchoToken", "echo_token", StdAccess::Text, false),
            ("TimeStamp", "time_stamp", StdAccess::DateTime, false),
            ("Version", "version", StdAccess::Text, true),
            ("TransactionIdentifier", "transaction_identifier", StdAccess::Text, false),
        ],
    },
];

/// The element that holds a request's point of sale.
pub const POS_ELEMENT: &str = "POS";

/// The element that holds a point of sale where the message has no `POS` of its own.
pub const TPA_EXTENSIONS: &str = "TPA_Extensions";

/// Runs the pass (after `items`, which it reads to tell code lists from strings).
pub fn run(model: &mut Model, diags: &mut Diagnostics) {
    let mut outcomes = Vec::new();
    for (i, t) in model.types.iter().enumerate() {
        let TypeKind::Struct(s) = &t.kind else { continue };
        let impls: Vec<StdTraitImpl> = s
            .groups
            .iter()
            .filter_map(|g| {
                let tr = TRAITS.iter().find(|tr| tr.group == g.name)?;
                implement(model, s, tr, &g.attributes, t.span.clone(), diags)
            })
            .collect();
        let pos = if s.root.as_ref().is_some_and(|r| r.path.is_some()) { pos_path(model, s) } else { Vec::new() };
        outcomes.push((i, impls, pos));
    }
    for (i, impls, pos) in outcomes {
        if let TypeKind::Struct(s) = &mut model.types[i].kind {
            s.std_traits = impls;
            if let Some(root) = &mut s.root {
                root.pos = pos;
            }
        }
    }
}

/// Where a request carries its point of sale: a required `POS` child, or one inside a required
/// `TPA_Extensions` child (OpenTravel 2016B has no `POS` on some messages, e.g. a notification
/// report, and leaves `TPA_Extensions` open); empty when neither.
fn pos_path(model: &Model, s: &StructDef) -> Vec<usize> {
    let required_child = |s: &StructDef, name: &str| {
        s.element_fields().iter().position(|f| {
            f.xml_name == name && f.multiplicity() == Multiplicity::One && matches!(f.ty, FieldType::Complex(_))
        })
    };
    if let Some(i) = required_child(s, POS_ELEMENT) {
        return vec![i];
    }
    let Some(t) = required_child(s, TPA_EXTENSIONS) else { return Vec::new() };
    let FieldType::Complex(id) = s.element_fields()[t].ty else { return Vec::new() };
    match &model.ty(id).kind {
        TypeKind::Struct(inner) => required_child(inner, POS_ELEMENT).map(|p| vec![t, p]).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// How `s` implements `tr` with the attributes `from` of its group, or why it cannot.
fn implement(
    model: &Model,
    s: &StructDef,
    tr: &StdTrait,
    from: &[usize],
    span: crate::diagnostics::Span,
    diags: &mut Diagnostics,
) -> Option<StdTraitImpl> {
    let mut members = Vec::new();
    let mut ok = true;
    for &(attribute, method, access, required) in tr.members {
        let found = from.iter().copied().find(|&i| s.attributes.get(i).is_some_and(|a| a.xml_name == attribute));
        let Some(index) = found else {
            diags.push(
                Diagnostic::error(
                    span.clone(),
                    format!("attribute group `{}` has no attribute `{attribute}`", tr.group),
                )
                .with_note(format!(
                    "its users implement `runtime::{}`, which needs it ({})",
                    tr.name,
                    describe(access, required)
                )),
            );
            ok = false;
            continue;
        };
        let a = &s.attributes[index];
        if access_of(model, a) != Some(access) || (a.min > 0) != required {
            diags.push(
                Diagnostic::error(
                    a.span.clone(),
                    format!(
                        "attribute `{attribute}` of group `{}` has a shape `runtime::{}` cannot hold",
                        tr.group, tr.name
                    ),
                )
                .with_note(format!("the trait needs it {}", describe(access, required))),
            );
            ok = false;
            continue;
        }
        members.push(StdMember { method, attribute: index });
    }
    ok.then(|| StdTraitImpl { name: tr.name, group: tr.group.to_string(), members })
}

/// The accessor shape of an attribute's Rust type.
fn access_of(model: &Model, a: &Field) -> Option<StdAccess> {
    let FieldType::Simple(sc) = a.ty else { return None };
    if sc.named.is_some_and(|id| model.ty(id).has_rust_item()) {
        return Some(StdAccess::Code);
    }
    match sc.builtin {
        b if b.is_string() => Some(StdAccess::Text),
        Builtin::DateTime => Some(StdAccess::DateTime),
        Builtin::NonNegativeInteger | Builtin::PositiveInteger => Some(StdAccess::Count),
        Builtin::Boolean => Some(StdAccess::Flag),
        _ => None,
    }
}

fn describe(access: StdAccess, required: bool) -> String {
    let what = match access {
        StdAccess::Text => "a string",
        StdAccess::Code => "a code list",
        StdAccess::DateTime => "an xs:dateTime",
        StdAccess::Count => "an xs:nonNegativeInteger",
        StdAccess::Flag => "an xs:boolean",
    };
    format!("{}, {what}", if required { "required" } else { "optional" })
}
