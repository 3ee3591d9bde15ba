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
        let name_of = |p: &'static Particle, name: &str| -> Option<&'static ElementDesc> {
            match p {
                Particle::Element(e) => (e.name == name).then_some(e),
                Particle::Choice { options, .. } => options.iter().find(|o| o.name == name),
            }
        };
        let first_name = |p: &'static Particle| -> &'static str {
            match p {
                Particle::Element(e) => e.name,
                Particle::Choice { options, .. } => options.first().map(|o| o.name).unwrap_or(""),
            }
        };
        // Current particle, how many times it matched, and the choice alternative taken.
        let mut pos = 0usize;
        let mut count = 0u32;
        let mut chosen: Option<&'static str> = None;
        for child in node.children().filter(Node::is_element) {
            self.namespace(child)?;
            let name = child.tag_name().name();
            let found = particles.iter().enumerate().skip(pos).find_map(|(i, p)| name_of(p, name).map(|e| (i, e)));
            let Some((idx, elem)) = found else {
                if particles.iter().take(pos).any(|p| name_of(p, name).is_some()) {
                    let after = particles.get(pos).map(first_name).unwrap_or("");
                    return Err(self.error(child, DecodeErrorKind::OutOfOrder { name: name.to_string(), before: after }));
                }
                let expected = expected_from(particles, pos, count);
                return Err(self.error(child, DecodeErrorKind::UnexpectedElement { name: name.to_string(), expected }));
            };
            if idx != pos {
                // Leaving particles pos..idx: each must have had its minimum.
                self.minimums(child, particles, pos, count, idx)?;
                pos = idx;
                count = 0;
                chosen = None;
            }
            match &particles[idx] {
                Particle::Choice { .. } => {
                    if let Some(first) = chosen {
                        return Err(self.error(child, DecodeErrorKind::ChoiceConflict { first, second: name.to_string() }));
                    }
                    chosen = Some(elem.name);
                    count = 1;
                }
                Particle::Element(_) => {
                    count += 1;
                    if count > elem.max {
                        return Err(self.error(child, DecodeErrorKind::TooMany { name: elem.name, max: elem.max }));
                    }
                }
            }
            let index = (elem.max > 1).then_some(count as usize);
            self.path.push((name.to_string(), index));
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
        self.minimums(node, particles, pos, count, particles.len())
    }

    /// Reports the first particle in `from..to` that did not reach its minimum.
    fn minimums(&self, at: Node, particles: &'static [Particle], from: usize, count_at_from: u32, to: usize) -> Res {
        for (i, p) in particles.iter().enumerate().take(to).skip(from) {
            let seen = if i == from { count_at_from } else { 0 };
            let (min, name) = match p {
                Particle::Element(e) => (e.min, e.name),
                Particle::Choice { required, options } => (u32::from(*required), options.first().map(|o| o.name).unwrap_or("")),
            };
            if seen < min {
                // Point at the parent when the element is missing at the end; else at the next element.
                return Err(self.error(at, DecodeErrorKind::MissingElement { name }));
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

/// The elements that may come next after `count` matches of particle `pos`.
fn expected_from(particles: &'static [Particle], pos: usize, count: u32) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (i, p) in particles.iter().enumerate().skip(pos) {
        let seen = if i == pos { count } else { 0 };
        match p {
            Particle::Element(e) => {
                if seen < e.max {
                    out.push(e.name);
                }
                if seen < e.min {
                    break;
                }
            }
            Particle::Choice { required, options } => {
                if seen == 0 {
                    out.extend(options.iter().map(|o| o.name));
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
