//! The strict checker: walks a parsed document beside the generated schema tables and rejects
//! everything the Rust types cannot hold exactly, before yaserde (which is lenient) sees it.
//!
//! It enforces namespaces, known elements and attributes, sequence order, occurrence bounds,
//! choices, and the shape of every value. It only descends into elements the schema knows, so
//! its recursion is bounded by the depth of the schema, not of the input.

use std::str::FromStr;

use roxmltree::{Document, Node};

use super::error::{DecodeError, DecodeErrorKind};
use super::scalar::{Date, DateTime, Decimal};
use super::schema::{Builtin, ComplexDesc, Content, ElementDesc, Particle, SimpleDesc, TypeDesc};
use super::{OTA_NAMESPACE, XSI_NAMESPACE};

/// Checks the element `node` (already known to be the right root) against `desc`.
pub(crate) fn check_root(doc: &Document, node: Node, desc: &'static ComplexDesc) -> Result<(), DecodeError> {
    let mut c = Checker { doc, path: Vec::new() };
    c.path.push((node.tag_name().name().to_string(), None));
    c.complex(node, desc)
}

struct Checker<'a, 'i> {
    doc: &'a Document<'i>,
    path: Vec<(String, Option<usize>)>,
}

type Res = Result<(), DecodeError>;

impl Checker<'_, '_> {
    fn path_string(&self) -> String {
        let mut s = String::new();
        for (name, idx) in &self.path {
            s.push('/');
            s.push_str(name);
            if let Some(i) = idx {
                s.push_str(&format!("[{i}]"));
            }
        }
        s
    }

    fn error_at(&self, pos: usize, kind: DecodeErrorKind) -> DecodeError {
        let p = self.doc.text_pos_at(pos);
        DecodeError::new(kind, self.path_string(), p.row, p.col)
    }

    fn error(&self, node: Node, kind: DecodeErrorKind) -> DecodeError {
        self.error_at(node.range().start, kind)
    }

    fn complex(&mut self, node: Node, desc: &'static ComplexDesc) -> Res {
        self.attributes(node, desc)?;
        match &desc.content {
            Content::Empty => self.no_children(node, &[]).and_then(|_| self.no_text(node)),
            Content::Text(simple) => {
                self.no_children(node, &[])?;
                self.text(node, simple)
            }
            Content::Sequence(particles) => self.sequence(node, particles),
        }
    }

    fn attributes(&mut self, node: Node, desc: &'static ComplexDesc) -> Res {
        for a in node.attributes() {
            match a.namespace() {
                None => {}
                Some(XSI_NAMESPACE) if matches!(a.name(), "schemaLocation" | "noNamespaceSchemaLocation") => continue,
                Some(ns) => {
                    let expected = desc.attributes.iter().map(|d| d.name).collect();
                    return Err(self.error_at(
                        a.range().start,
                        DecodeErrorKind::UnexpectedAttribute { name: format!("{{{ns}}}{}", a.name()), expected },
                    ));
                }
            }
            let Some(d) = desc.attributes.iter().find(|d| d.name == a.name()) else {
                let expected = desc.attributes.iter().map(|d| d.name).collect();
                return Err(self.error_at(
                    a.range().start,
                    DecodeErrorKind::UnexpectedAttribute { name: a.name().to_string(), expected },
                ));
            };
            if let Err(expected) = check_simple(d.ty, a.value()) {
                return Err(self.error_at(
                    a.range_value().start,
                    DecodeErrorKind::InvalidValue { target: format!("@{}", d.name), value: a.value().to_string(), expected },
                ));
            }
        }
        for d in desc.attributes.iter().filter(|d| d.required) {
            if !node.attributes().any(|a| a.namespace().is_none() && a.name() == d.name) {
                return Err(self.error(node, DecodeErrorKind::MissingAttribute { name: d.name }));
            }
        }
        Ok(())
    }

    fn no_children(&self, node: Node, expected: &[&'static str]) -> Res {
        match node.children().find(Node::is_element) {
            Some(child) => Err(self.error(
                child,
                DecodeErrorKind::UnexpectedElement { name: child.tag_name().name().to_string(), expected: expected.to_vec() },
            )),
            None => Ok(()),
        }
    }

    fn no_text(&self, node: Node) -> Res {
        for t in node.children().filter(Node::is_text) {
            let text = t.text().unwrap_or("");
            if !text.trim().is_empty() {
                return Err(self.error(t, DecodeErrorKind::UnexpectedText { text: text.trim().to_string() }));
            }
        }
        Ok(())
    }

    fn text(&self, node: Node, simple: &SimpleDesc) -> Res {
        let text: String = node.children().filter(Node::is_text).filter_map(|t| t.text()).collect();
        check_simple(simple, &text).map_err(|expected| {
            self.error(node, DecodeErrorKind::InvalidValue { target: "text".to_string(), value: text.clone(), expected })
        })
    }

    fn namespace(&self, node: Node) -> Res {
        match node.tag_name().namespace() {
            Some(OTA_NAMESPACE) => Ok(()),
            other => Err(self.error(
                node,
                DecodeErrorKind::WrongNamespace { element: node.tag_name().name().to_string(), found: other.map(str::to_string) },
            )),
        }
    }

    fn sequence(&mut self, node: Node, particles: &'static [Particle]) -> Res {
        self.no_text(node)?;
        let mut cur = Cursor::default();
        for child in node.children().filter(Node::is_element) {
            self.namespace(child)?;
            let (elem, count) = self.advance(child, particles, &mut cur)?;
            let index = (elem.max > 1).then_some(count as usize);
            self.path.push((child.tag_name().name().to_string(), index));
            match elem.ty {
                TypeDesc::Complex(c) => self.complex(child, c)?,
                TypeDesc::Simple(s) => {
                    self.attributes_none(child)?;
                    self.no_children(child, &[])?;
                    self.text(child, s)?;
                }
            }
            self.path.pop();
        }
        if let Some(branch) = cur.branch(particles) {
            self.element_minimums(node, branch, cur.bpos, cur.bcount, branch.len())?;
        }
        self.minimums(node, particles, &cur, particles.len())
    }

    /// Moves the cursor to the particle that takes `child`; returns its declaration and how
    /// many times it has now matched.
    fn advance(
        &self,
        child: Node,
        particles: &'static [Particle],
        cur: &mut Cursor,
    ) -> Result<(&'static ElementDesc, u32), DecodeError> {
        let name = child.tag_name().name();
        // Inside the chosen alternative of a choice?
        if let Some(branch) = cur.branch(particles) {
            if let Some(j) = branch.iter().position(|e| e.name == name) {
                let e = &branch[j];
                if j == cur.bpos {
                    cur.bcount += 1;
                    if cur.bcount > e.max {
                        return Err(self.error(child, DecodeErrorKind::TooMany { name: e.name, max: e.max }));
                    }
                } else if j > cur.bpos {
                    self.element_minimums(child, branch, cur.bpos, cur.bcount, j)?;
                    cur.bmatched |= bit(cur.bpos, cur.bcount);
                    cur.bpos = j;
                    cur.bcount = 1;
                } else {
                    let matched = (cur.bmatched | bit(cur.bpos, cur.bcount)) & bit(j, 1) != 0;
                    return Err(self.error(child, self.misplaced(name, e, matched, branch[cur.bpos].name)));
                }
                return Ok((e, cur.bcount));
            }
            if let Some(Particle::Choice { branches, .. }) = particles.get(cur.pos)
                && branches.iter().any(|b| b.iter().any(|e| e.name == name))
            {
                return Err(self.error(child, DecodeErrorKind::ChoiceConflict { first: branch[0].name, second: name.to_string() }));
            }
            // Leaving the alternative: it must be complete.
            self.element_minimums(child, branch, cur.bpos, cur.bcount, branch.len())?;
            cur.matched |= bit(cur.pos, 1);
            cur.pos += 1;
            cur.count = 0;
            cur.chosen = None;
        }
        let found = particles.iter().enumerate().skip(cur.pos).find(|(_, p)| takes(p, name));
        match found {
            Some((i, Particle::Element(e))) => {
                if i == cur.pos {
                    cur.count += 1;
                    if cur.count > e.max {
                        return Err(self.error(child, DecodeErrorKind::TooMany { name: e.name, max: e.max }));
                    }
                } else {
                    self.minimums(child, particles, cur, i)?;
                    cur.matched |= bit(cur.pos, cur.count);
                    cur.pos = i;
                    cur.count = 1;
                }
                Ok((e, cur.count))
            }
            Some((i, Particle::Choice { branches, .. })) => {
                if i > cur.pos {
                    self.minimums(child, particles, cur, i)?;
                    cur.matched |= bit(cur.pos, cur.count);
                }
                let Some((b, j)) = branches
                    .iter()
                    .enumerate()
                    .find_map(|(b, br)| br.iter().position(|e| e.name == name).map(|j| (b, j)))
                else {
                    return Err(self.error(child, DecodeErrorKind::UnexpectedElement { name: name.to_string(), expected: Vec::new() }));
                };
                self.element_minimums(child, branches[b], 0, 0, j)?;
                cur.pos = i;
                cur.count = 1;
                cur.chosen = Some(b);
                cur.bpos = j;
                cur.bcount = 1;
                cur.bmatched = 0;
                Ok((&branches[b][j], 1))
            }
            None => {
                if let Some((i, p)) = particles.iter().enumerate().take(cur.pos).find(|(_, p)| takes(p, name)) {
                    let matched = (cur.matched & bit(i, 1)) != 0;
                    let before = particles.get(cur.pos).map(first_name).unwrap_or("");
                    let e = match p {
                        Particle::Element(e) => e,
                        Particle::Choice { branches, .. } => {
                            match branches.iter().flat_map(|b| b.iter()).find(|e| e.name == name) {
                                Some(e) => e,
                                None => return Err(self.error(child, DecodeErrorKind::OutOfOrder { name: name.to_string(), before })),
                            }
                        }
                    };
                    return Err(self.error(child, self.misplaced(name, e, matched, before)));
                }
                let expected = expected_from(particles, cur);
                Err(self.error(child, DecodeErrorKind::UnexpectedElement { name: name.to_string(), expected }))
            }
        }
    }

    /// An element that belongs earlier: a repeat of a single element, or out of order.
    fn misplaced(&self, name: &str, e: &'static ElementDesc, matched: bool, before: &'static str) -> DecodeErrorKind {
        if matched && e.max == 1 {
            DecodeErrorKind::TooMany { name: e.name, max: 1 }
        } else {
            DecodeErrorKind::OutOfOrder { name: name.to_string(), before }
        }
    }

    /// Reports the first particle in `cur.pos..to` that did not reach its minimum.
    fn minimums(&self, at: Node, particles: &'static [Particle], cur: &Cursor, to: usize) -> Res {
        for (i, p) in particles.iter().enumerate().take(to).skip(cur.pos) {
            let seen = if i == cur.pos { cur.count } else { 0 };
            match p {
                Particle::Element(e) if seen < e.min => {
                    return Err(self.error(at, DecodeErrorKind::MissingElement { name: e.name }));
                }
                Particle::Choice { required: true, branches } if seen == 0 => {
                    let options = branches.iter().filter_map(|b| b.first().map(|e| e.name)).collect();
                    return Err(self.error(at, DecodeErrorKind::MissingChoice { options }));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reports the first element in `elems[from..to]` that did not reach its minimum.
    fn element_minimums(&self, at: Node, elems: &'static [ElementDesc], from: usize, count_at_from: u32, to: usize) -> Res {
        for (i, e) in elems.iter().enumerate().take(to).skip(from) {
            let seen = if i == from { count_at_from } else { 0 };
            if seen < e.min {
                return Err(self.error(at, DecodeErrorKind::MissingElement { name: e.name }));
            }
        }
        Ok(())
    }

    /// A simple-typed element carries no attributes (but the xsi: ones a validator accepts).
    fn attributes_none(&self, node: Node) -> Res {
        for a in node.attributes() {
            if a.namespace() == Some(XSI_NAMESPACE) && matches!(a.name(), "schemaLocation" | "noNamespaceSchemaLocation") {
                continue;
            }
            return Err(self.error_at(
                a.range().start,
                DecodeErrorKind::UnexpectedAttribute { name: a.name().to_string(), expected: Vec::new() },
            ));
        }
        Ok(())
    }
}

/// Where the walk through a content model stands.
#[derive(Default)]
struct Cursor {
    /// The current particle.
    pos: usize,
    /// How often the current particle matched (1 for a choice once an alternative is chosen).
    count: u32,
    /// Particles (by index, up to 128) that matched at least once.
    matched: u128,
    /// The chosen alternative of the current choice particle.
    chosen: Option<usize>,
    /// The current element within the chosen alternative.
    bpos: usize,
    /// How often it matched.
    bcount: u32,
    /// Elements of the alternative that matched at least once.
    bmatched: u128,
}

impl Cursor {
    /// The elements of the chosen alternative, when inside one.
    fn branch(&self, particles: &'static [Particle]) -> Option<&'static [ElementDesc]> {
        match (particles.get(self.pos), self.chosen) {
            (Some(Particle::Choice { branches, .. }), Some(b)) => branches.get(b).copied(),
            _ => None,
        }
    }
}

/// The bit of index `i` when it matched (`count > 0`).
fn bit(i: usize, count: u32) -> u128 {
    if count > 0 && i < 128 { 1u128 << i } else { 0 }
}

fn takes(p: &Particle, name: &str) -> bool {
    match p {
        Particle::Element(e) => e.name == name,
        Particle::Choice { branches, .. } => branches.iter().any(|b| b.iter().any(|e| e.name == name)),
    }
}

fn first_name(p: &'static Particle) -> &'static str {
    match p {
        Particle::Element(e) => e.name,
        Particle::Choice { branches, .. } => branches.first().and_then(|b| b.first()).map(|e| e.name).unwrap_or(""),
    }
}

/// The elements that may come next.
fn expected_from(particles: &'static [Particle], cur: &Cursor) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut start = cur.pos;
    if let Some(branch) = cur.branch(particles) {
        for (i, e) in branch.iter().enumerate().skip(cur.bpos) {
            let seen = if i == cur.bpos { cur.bcount } else { 0 };
            if seen < e.max {
                out.push(e.name);
            }
            if seen < e.min {
                return out;
            }
        }
        start += 1;
    }
    for (i, p) in particles.iter().enumerate().skip(start) {
        let seen = if i == cur.pos { cur.count } else { 0 };
        match p {
            Particle::Element(e) => {
                if seen < e.max {
                    out.push(e.name);
                }
                if seen < e.min {
                    break;
                }
            }
            Particle::Choice { required, branches } => {
                if seen == 0 {
                    out.extend(branches.iter().filter_map(|b| b.first().map(|e| e.name)));
                    if *required {
                        break;
                    }
                }
            }
        }
    }
    out
}

/// Checks a value against a simple type. On failure, says what was expected.
pub fn check_simple(d: &SimpleDesc, v: &str) -> Result<(), String> {
    if !d.values.is_empty() {
        if d.values.contains(&v) {
            return Ok(());
        }
        let known = d.values.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ");
        return match d.open {
            None => Err(format!("one of {known} ({})", d.name)),
            Some(other) => {
                if v.is_empty() || v.trim() != v {
                    return Err(format!("one of {known} or another code, without surrounding spaces ({})", d.name));
                }
                check_simple(other, v).map_err(|e| format!("one of {known}, or another value that is {e}"))
            }
        };
    }
    check_builtin(d.builtin, v)?;
    if d.min_length.is_some() || d.max_length.is_some() {
        let n = v.chars().count() as u64;
        let min = d.min_length.map(u64::from);
        let max = d.max_length.map(u64::from);
        if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
            return Err(match (min, max) {
                (Some(a), Some(b)) if a == b => format!("exactly {a} characters ({})", d.name),
                (Some(a), Some(b)) => format!("{a} to {b} characters ({})", d.name),
                (Some(a), None) => format!("at least {a} characters ({})", d.name),
                (None, Some(b)) => format!("at most {b} characters ({})", d.name),
                (None, None) => String::new(),
            });
        }
    }
    for p in d.patterns {
        if !p.is_match(v) {
            return Err(format!("a value matching the pattern {} ({})", p.xsd, d.name));
        }
    }
    if let Some(min) = d.min_inclusive
        && compare(d.builtin, v, min).is_some_and(|o| o.is_lt())
    {
        return Err(format!("a value of at least {min} ({})", d.name));
    }
    if let Some(max) = d.max_inclusive
        && compare(d.builtin, v, max).is_some_and(|o| o.is_gt())
    {
        return Err(format!("a value of at most {max} ({})", d.name));
    }
    Ok(())
}

fn compare(b: Builtin, a: &str, bound: &str) -> Option<std::cmp::Ordering> {
    match b {
        Builtin::Date => Some(Date::from_str(a).ok()?.cmp(&Date::from_str(bound).ok()?)),
        Builtin::DateTime => {
            let (x, y) = (DateTime::from_str(a).ok()?, DateTime::from_str(bound).ok()?);
            Some(x.local.cmp(&y.local))
        }
        _ => {
            let (x, y) = (Decimal::from_str(a).ok()?, Decimal::from_str(bound).ok()?);
            Some(x.cmp(&y))
        }
    }
}

fn check_builtin(b: Builtin, v: &str) -> Result<(), String> {
    let ok = match b {
        Builtin::String => true,
        Builtin::NormalizedString => !v.contains(['\t', '\n', '\r']),
        Builtin::Token => !v.contains(['\t', '\n', '\r']) && v.trim() == v && !v.contains("  "),
        Builtin::Language => is_language(v),
        Builtin::Boolean => matches!(v, "true" | "false" | "1" | "0"),
        Builtin::Int => v.parse::<i32>().is_ok(),
        Builtin::Integer => v.parse::<i64>().is_ok(),
        Builtin::NonNegativeInteger => v.parse::<u64>().is_ok(),
        Builtin::PositiveInteger => v.parse::<u64>().is_ok_and(|n| n > 0),
        Builtin::UnsignedInt => v.parse::<u32>().is_ok(),
        Builtin::Decimal => Decimal::from_str(v).is_ok(),
        Builtin::Date => Date::from_str(v).is_ok(),
        Builtin::DateTime => DateTime::from_str(v).is_ok(),
    };
    if ok {
        Ok(())
    } else {
        Err(match b {
            Builtin::String => "a string",
            Builtin::NormalizedString => "a string without tabs or line breaks",
            Builtin::Token => "a string without tabs, line breaks, or leading, trailing or double spaces",
            Builtin::Language => "a language code such as en or en-GB",
            Builtin::Boolean => "true or false",
            Builtin::Int => "an integer from -2147483648 to 2147483647",
            Builtin::Integer => "an integer",
            Builtin::NonNegativeInteger => "a non-negative integer",
            Builtin::PositiveInteger => "a positive integer",
            Builtin::UnsignedInt => "an integer from 0 to 4294967295",
            Builtin::Decimal => "a decimal number such as 123.45",
            Builtin::Date => "a date YYYY-MM-DD",
            Builtin::DateTime => "a date-time YYYY-MM-DDThh:mm:ss",
        }
        .to_string())
    }
}

/// `xs:language`: `[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*`.
fn is_language(v: &str) -> bool {
    let mut parts = v.split('-');
    let first_ok = parts.next().is_some_and(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphabetic()));
    first_ok && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes() {
        for ok in ["en", "en-GB", "zh-Hant-TW", "x-klingon1"] {
            assert!(is_language(ok), "{ok}");
        }
        for bad in ["", "en_GB", "toolonglang", "en-", "-en", "*", "e1"] {
            assert!(!is_language(bad), "{bad}");
        }
    }

    #[test]
    fn integers_are_strict_about_spaces() {
        assert!(check_builtin(Builtin::Int, "36").is_ok());
        assert!(check_builtin(Builtin::Int, " 36 ").is_err());
        assert!(check_builtin(Builtin::Int, "abc").is_err());
        assert!(check_builtin(Builtin::PositiveInteger, "0").is_err());
        assert!(check_builtin(Builtin::NonNegativeInteger, "-1").is_err());
    }
}
