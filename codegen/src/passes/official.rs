//! Pass **official**: what the official OpenTravel schemas allow in each request of the spec
//! beyond what the spec declares, and what the service does with each such item.
//!
//! The spec names the official schemas and the decision rules in `official.xml` (beside the
//! `.xsd` files; read by [`crate::generate_dir`] into [`OfficialInput`]). From each request
//! root the pass walks the spec's type and the official one side by side, by element name: an
//! attribute or child element the official type has and the spec's does not, or a child the
//! official type lets occur more often, is an item of that root (recorded with its path in
//! [`Official::items`], decided by the first rule that matches it) and an extra of the spec's
//! type (recorded in [`Official::extras`]: the decoders take it there and list it as unread).
//! An item no rule decides is an error: every official item is decided in one place.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::diagnostics::{Diagnostics, FileId, Span};
use crate::ir::{Decision, FieldType, ItemKind, Model, Official, OfficialExtras, OfficialItem, TypeId, TypeKind};
use crate::official::{ComplexId, Content as OffContent, OfficialSchema, Particle as OffParticle, TypeRef};

/// The official schemas and the decision rules (`official.xml`).
#[derive(Clone)]
pub struct OfficialInput {
    /// The official schemas, read.
    pub schema: Arc<OfficialSchema>,
    /// The decision rules, in the file's order: the first that matches an item decides it.
    pub rules: Vec<Rule>,
    /// `official.xml` in the source map.
    pub file: FileId,
}

impl std::fmt::Debug for OfficialInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfficialInput").field("rules", &self.rules.len()).finish_non_exhaustive()
    }
}

/// One decision rule of `official.xml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The request root it applies to; `None`: every root.
    pub root: Option<String>,
    /// The item paths it matches, as steps: an element name, `@` and an attribute name, `*`
    /// (any one step), `@*` (any attribute) or `**` (any number of steps, none included). Written with `/`; a
    /// leading `//` stands for `**/`.
    pub path: Vec<String>,
    /// `Some(true)`: only occurrences beyond the spec's maximum; `Some(false)`: only items the
    /// spec does not declare; `None`: both.
    pub more: Option<bool>,
    /// The decision.
    pub decision: Decision,
    /// Why, as answers say it.
    pub reason: String,
}

impl Rule {
    /// True when the rule decides `item`.
    pub fn matches(&self, root: &str, path: &str, more: bool) -> bool {
        self.root.as_deref().is_none_or(|r| r == root)
            && self.more.is_none_or(|m| m == more)
            && glob(&self.path, &path.split('/').collect::<Vec<_>>())
    }
}

/// Matches steps against a pattern of steps (`*` one step, `**` any number).
fn glob(pattern: &[String], steps: &[&str]) -> bool {
    match pattern.split_first() {
        None => steps.is_empty(),
        Some((p, rest)) if p == "**" => (0..=steps.len()).any(|i| glob(rest, &steps[i..])),
        Some((p, rest)) => match steps.split_first() {
            Some((s, more)) => (p == "*" || p == s || (p == "@*" && s.starts_with('@'))) && glob(rest, more),
            None => false,
        },
    }
}

/// Reads `official.xml`: `<official schemas="DIR">` with `<rule>` children (`root`, `path`,
/// `more`, `decision` = `ignored` | `not-supported`, `reason`). Returns the schemas' folder
/// (relative to the spec folder) and the rules; problems are reported against `file`.
pub fn read_rules(file: FileId, text: &str, diags: &mut Diagnostics) -> Option<(String, Vec<Rule>)> {
    let doc = match roxmltree::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            diags.error(Span::new(file, 0..0), format!("official.xml is not well-formed XML: {e}"));
            return None;
        }
    };
    let root = doc.root_element();
    let at = |n: roxmltree::Node| Span::new(file, n.range());
    let Some(dir) = root.attribute("schemas").filter(|_| root.has_tag_name("official")) else {
        diags.error(at(root), "official.xml must be <official schemas=\"DIR\"> with <rule> children");
        return None;
    };
    let mut rules = Vec::new();
    for n in root.children().filter(roxmltree::Node::is_element) {
        if !n.has_tag_name("rule") {
            diags.error(at(n), format!("unexpected <{}> in official.xml: only <rule>", n.tag_name().name()));
            continue;
        }
        let decision = match n.attribute("decision") {
            Some("ignored") => Decision::Ignored,
            Some("not-supported") => Decision::NotSupported,
            other => {
                diags.error(at(n), format!("a rule's decision is `ignored` or `not-supported`, not {other:?}"));
                continue;
            }
        };
        let (Some(path), Some(reason)) = (n.attribute("path"), n.attribute("reason")) else {
            diags.error(at(n), "a rule needs `path` and `reason`");
            continue;
        };
        let more = match n.attribute("more") {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(other) => {
                diags.error(at(n), format!("`more` is `true` or `false`, not {other:?}"));
                continue;
            }
        };
        let path = match path.strip_prefix("//") {
            Some(rest) => std::iter::once("**").chain(rest.split('/')).map(str::to_string).collect(),
            None => path.split('/').map(str::to_string).collect(),
        };
        rules.push(Rule {
            root: n.attribute("root").map(str::to_string),
            path,
            more,
            decision,
            reason: reason.to_string(),
        });
    }
    Some((dir.to_string(), rules))
}

/// Runs the pass (nothing when the spec names no official schemas).
pub fn run(model: &mut Model, diags: &mut Diagnostics) {
    let Some(input) = model.official_input.clone() else { return };
    let mut walk =
        Walk { model, schema: &input.schema, extras: BTreeMap::new(), items: Vec::new(), wider: BTreeMap::new() };
    let requests: Vec<(TypeId, String)> = walk
        .model
        .roots()
        .filter(|(_, _, info)| info.path.is_some() && info.side != crate::ir::Side::Outbound)
        .map(|(_, id, info)| (id, info.element.clone()))
        .collect();
    for (id, root) in requests {
        let Some(element) = input.schema.root(&root) else { continue };
        if let TypeRef::Complex(official) = element.ty {
            walk.types(&root, id, official, String::new(), &mut Vec::new());
        }
    }
    let Walk { extras, items, wider, .. } = walk;
    let mut decided = Vec::new();
    for (root, path, kind) in items {
        match input.rules.iter().find(|r| r.matches(&root, &path, kind == ItemKind::More)) {
            Some(rule) => {
                decided.push(OfficialItem { root, path, kind, decision: rule.decision, reason: rule.reason.clone() })
            }
            None => diags.error(
                Span::new(input.file, 0..0),
                format!("official.xml decides nothing for {root} {path}{}", kind.mark()),
            ),
        }
    }
    model.official =
        Official { extras: extras.into_values().collect(), items: decided, wider: wider.into_iter().collect() };
}

/// The walk of one root: the spec's type beside the official one.
struct Walk<'m> {
    model: &'m Model,
    schema: &'m OfficialSchema,
    /// By the spec type's id (spec order).
    extras: BTreeMap<TypeId, OfficialExtras>,
    /// (root, path, kind), in document order per root.
    items: Vec<(String, String, ItemKind)>,
    /// Per named simple type of the spec: the official types of its places.
    wider: BTreeMap<TypeId, Vec<crate::official::SimpleId>>,
}

impl Walk<'_> {
    fn extras_of(&mut self, id: TypeId) -> &mut OfficialExtras {
        self.extras.entry(id).or_insert_with(|| OfficialExtras {
            of: id,
            attributes: Vec::new(),
            elements: Vec::new(),
            any_element: false,
            optional: Vec::new(),
            text_attributes: Vec::new(),
        })
    }

    /// Notes that the spec's `field`, of a simple type, is of the official type `official` here.
    fn wider(&mut self, field: &crate::ir::Field, official: crate::official::SimpleId) {
        if let FieldType::Simple(crate::ir::Scalar { named: Some(named), .. }) = field.ty {
            let list = self.wider.entry(named).or_default();
            if !list.contains(&official) {
                list.push(official);
            }
        }
    }

    /// Notes that the spec requires `name` in `id` where 2016B does not.
    fn optional(&mut self, id: TypeId, name: String) {
        let x = self.extras_of(id);
        if !x.optional.contains(&name) {
            x.optional.push(name);
        }
    }

    fn item(&mut self, root: &str, path: &str, name: &str, kind: ItemKind) {
        let path = if path.is_empty() { name.to_string() } else { format!("{path}/{name}") };
        let item = (root.to_string(), path, kind);
        if !self.items.contains(&item) {
            self.items.push(item);
        }
    }

    /// A simple element of the spec that is text with attributes in 2016B: the attributes are
    /// extras of the element (`child_name` below `path`, a field of type `id`).
    fn text_with_attributes(
        &mut self,
        root: &str,
        path: &str,
        id: TypeId,
        field: &crate::ir::Field,
        child_name: &str,
        official: ComplexId,
    ) {
        let off = self.schema.complex(official);
        if let OffContent::Text(text) = off.content {
            self.wider(field, text);
        }
        let names: Vec<String> = off.attributes.iter().map(|a| a.name.clone()).collect();
        let below = if path.is_empty() { child_name.to_string() } else { format!("{path}/{child_name}") };
        for n in &names {
            self.item(root, &below, &format!("@{n}"), ItemKind::Extra);
        }
        let x = self.extras_of(id);
        match x.text_attributes.iter_mut().find(|(e, _)| *e == field.xml_name) {
            Some((_, list)) => names.into_iter().for_each(|n| {
                if !list.contains(&n) {
                    list.push(n);
                }
            }),
            None if !names.is_empty() => x.text_attributes.push((field.xml_name.clone(), names)),
            None => {}
        }
    }

    /// The alternatives of a choice of the spec (`def`, type `id`) that 2016B lets occur
    /// together: the ones after the first are taken and not read.
    fn choices_together(
        &mut self,
        root: &str,
        path: &str,
        id: TypeId,
        def: &crate::ir::StructDef,
        official: ComplexId,
    ) {
        let schema = self.schema;
        let complex = schema.complex(official);
        if let (crate::ir::Content::Sequence(particles), OffContent::Elements(official_model)) =
            (&def.content, &complex.content)
        {
            for p in particles {
                let crate::ir::Particle::Choice { branches, .. } = p else { continue };
                for (i, a) in branches.iter().flatten().enumerate() {
                    for b in branches.iter().flatten().skip(i + 1) {
                        let in_other_branch = !branches.iter().any(|br| {
                            br.iter().any(|f| f.xml_name == a.xml_name) && br.iter().any(|f| f.xml_name == b.xml_name)
                        });
                        if !in_other_branch || exclusive(official_model, &a.xml_name, &b.xml_name) {
                            continue;
                        }
                        for f in [a, b] {
                            let Some(max) = schema.child(official, &f.xml_name).map(|e| e.max) else { continue };
                            let x = self.extras_of(id);
                            if !x.elements.iter().any(|(n, _)| *n == f.xml_name) {
                                x.elements.push((f.xml_name.clone(), max));
                            }
                            self.item(root, path, &f.xml_name, ItemKind::More);
                        }
                    }
                }
            }
        }
    }

    /// Compares the spec's type `id` with the official `official` at `path` (below the root).
    fn types(
        &mut self,
        root: &str,
        id: TypeId,
        official: ComplexId,
        path: String,
        stack: &mut Vec<(TypeId, ComplexId)>,
    ) {
        if stack.contains(&(id, official)) {
            return;
        }
        let TypeKind::Struct(def) = &self.model.ty(id).kind else { return };
        if matches!(def.content, crate::ir::Content::Skipped) {
            return;
        }
        stack.push((id, official));
        let schema = self.schema;
        let complex = schema.complex(official);
        fn known<'f>(name: &str, fields: &[&'f crate::ir::Field]) -> Option<&'f crate::ir::Field> {
            fields.iter().copied().find(|f| f.xml_name == name || f.other_names().contains(&name))
        }
        let attributes: Vec<&crate::ir::Field> = def.attributes.iter().collect();
        for a in &complex.attributes {
            if let Some(field) = known(&a.name, &attributes) {
                self.wider(field, a.ty);
                if field.min >= 1 && !a.required {
                    self.optional(id, format!("@{}", field.xml_name));
                    self.item(root, &path, &format!("@{}", field.xml_name), ItemKind::Absent);
                }
            } else {
                let x = self.extras_of(id);
                if !x.attributes.contains(&a.name) {
                    x.attributes.push(a.name.clone());
                }
                self.item(root, &path, &format!("@{}", a.name), ItemKind::Extra);
            }
        }
        let fields = def.element_fields();
        if let OffContent::Elements(particle) = &complex.content {
            if has_any(particle) {
                self.extras_of(id).any_element = true;
                self.item(root, &path, "*", ItemKind::Extra);
            }
        }
        let mut children = Vec::new();
        if let OffContent::Elements(particle) = &complex.content {
            elements_of(particle, 1, 1, &mut children);
        }
        for (child, min, max) in children {
            match known(&child.name, &fields) {
                Some(field) => {
                    if field.min >= 1 && !field.in_choice && min == 0 {
                        self.optional(id, field.xml_name.clone());
                        self.item(root, &path, &field.xml_name, ItemKind::Absent);
                    }
                    match (field.ty, child.ty) {
                        (FieldType::Simple(_), TypeRef::Simple(official)) => self.wider(field, official),
                        (FieldType::Simple(_), TypeRef::Complex(official)) => {
                            self.text_with_attributes(root, &path, id, field, &child.name, official)
                        }
                        _ => {}
                    }
                    let declared = field.max.unwrap_or(u32::MAX);
                    if max > declared {
                        let x = self.extras_of(id);
                        if !x.elements.iter().any(|(n, _)| *n == field.xml_name) {
                            x.elements.push((field.xml_name.clone(), max));
                        }
                        self.item(root, &path, &child.name, ItemKind::More);
                    }
                    if let (FieldType::Complex(inner), TypeRef::Complex(off)) = (field.ty, child.ty)
                        && let (
                            TypeKind::Struct(crate::ir::StructDef {
                                content: crate::ir::Content::Text(scalar), ..
                            }),
                            OffContent::Text(text),
                        ) = (&self.model.ty(inner).kind, &schema.complex(off).content)
                        && let Some(named) = scalar.named
                    {
                        // Text of the spec's type beside 2016B's: a wider value is not a shape error.
                        let list = self.wider.entry(named).or_default();
                        if !list.contains(text) {
                            list.push(*text);
                        }
                    }
                    if let (FieldType::Complex(inner), TypeRef::Complex(off)) = (field.ty, child.ty) {
                        let below = if path.is_empty() { child.name.clone() } else { format!("{path}/{}", child.name) };
                        self.types(root, inner, off, below, stack);
                    }
                }
                None => {
                    let x = self.extras_of(id);
                    if !x.elements.iter().any(|(n, _)| *n == child.name) {
                        x.elements.push((child.name.clone(), max));
                    }
                    self.item(root, &path, &child.name, ItemKind::Extra);
                }
            }
        }
        self.choices_together(root, &path, id, def, official);
        stack.pop();
    }
}

/// True when the content model has a choice (of at most one occurrence) with `a` and `b` in
/// different alternatives: they cannot occur together.
fn exclusive(p: &OffParticle, a: &str, b: &str) -> bool {
    fn holds(p: &OffParticle, name: &str) -> bool {
        match p {
            OffParticle::Element(e) => e.name == name,
            OffParticle::Any { .. } => false,
            OffParticle::Sequence { items, .. } | OffParticle::Choice { items, .. } => {
                items.iter().any(|i| holds(i, name))
            }
        }
    }
    match p {
        OffParticle::Choice { max, items, .. } if *max <= 1 => {
            let (ia, ib) = (items.iter().position(|i| holds(i, a)), items.iter().position(|i| holds(i, b)));
            matches!((ia, ib), (Some(x), Some(y)) if x != y) || items.iter().any(|i| exclusive(i, a, b))
        }
        OffParticle::Sequence { items, .. } | OffParticle::Choice { items, .. } => {
            items.iter().any(|i| exclusive(i, a, b))
        }
        OffParticle::Element(_) | OffParticle::Any { .. } => false,
    }
}

/// The element declarations of a content model, each with how often it must and may occur there
/// (its `minOccurs` and `maxOccurs` times those of the groups around it; an alternative of a
/// choice of several need not occur), first occurrence of each name.
fn elements_of<'s>(
    p: &'s OffParticle,
    min_factor: u32,
    factor: u32,
    out: &mut Vec<(&'s crate::official::Element, u32, u32)>,
) {
    match p {
        OffParticle::Any { .. } => {}
        OffParticle::Element(e) => {
            let (min, max) = (e.min.saturating_mul(min_factor), e.max.saturating_mul(factor));
            match out.iter_mut().find(|(o, _, _)| o.name == e.name) {
                Some((_, n, m)) => {
                    *n = n.saturating_add(min);
                    *m = m.saturating_add(max);
                }
                None => out.push((e, min, max)),
            }
        }
        OffParticle::Sequence { min, max, items } => {
            for i in items {
                elements_of(i, min_factor.saturating_mul(*min), factor.saturating_mul(*max), out);
            }
        }
        OffParticle::Choice { min, max, items } => {
            let alone = if items.len() == 1 { *min } else { 0 };
            for i in items {
                elements_of(i, min_factor.saturating_mul(alone), factor.saturating_mul(*max), out);
            }
        }
    }
}

/// True when a content model has an `xs:any`.
fn has_any(p: &OffParticle) -> bool {
    match p {
        OffParticle::Any { .. } => true,
        OffParticle::Element(_) => false,
        OffParticle::Sequence { items, .. } | OffParticle::Choice { items, .. } => items.iter().any(has_any),
    }
}
