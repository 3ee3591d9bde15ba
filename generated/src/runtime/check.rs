//! Value checks (the shape of every simple value against its type and facets), and a generic
//! checker that walks a whole document against the schema tables without binding it — the
//! strict gate in front of yaserde for callers that bind with yaserde directly.

use std::str::FromStr;

use roxmltree::Node;

use super::cx::{Cx, Failed};
use super::scalar::{Date, DateTime, Decimal};
use super::schema::{Builtin, ComplexDesc, Content, SimpleDesc, TypeDesc};

/// Checks `node` and everything below it against `desc`, binding nothing (used before yaserde
/// binds a document; the generated decoders check and bind in one pass instead). The problems
/// are recorded in `cx`; `Err` only when there are too many to go on. `version` is, for a
/// message root, its version attribute and the version it is for.
pub(crate) fn check_complex<'a, 'i>(
    cx: &mut Cx<'a, 'i>,
    node: Node<'a, 'i>,
    desc: &'static ComplexDesc,
    version: Option<(&'static str, &'static str)>,
) -> Result<(), Failed> {
    if matches!(desc.content, Content::Skipped) {
        return Ok(());
    }
    for attr in node.attributes() {
        if let Some(i) = cx.attribute(&attr, desc)? {
            let d = &desc.attributes[i];
            match version {
                Some((name, supported)) if d.name == name => cx.version::<()>(&attr, d.ty, supported)?,
                _ => cx.value::<()>(&attr, d.ty)?,
            };
        }
    }
    cx.required_attributes(node, desc)?;
    match &desc.content {
        Content::Empty => cx.empty_or_fixed(node, desc),
        Content::Skipped => Ok(()),
        Content::Text(ty) => match desc.text_attribute() {
            Some(attribute) => cx.text_or_attribute::<()>(node, ty, attribute).map(drop),
            None => cx.text::<()>(node, ty).map(drop),
        },
        Content::Sequence(_) => {
            let mut children = cx.children(node, desc)?;
            while let Some(next) = children.next(cx)? {
                match next.elem.ty {
                    TypeDesc::Complex(c) => {
                        cx.element(&next, |n, cx| {
                            let mark = cx.mark();
                            check_complex(cx, n, c, None)?;
                            cx.check(mark)
                        })?;
                    }
                    TypeDesc::Simple(_) => {
                        cx.simple::<()>(&next)?;
                    }
                }
            }
            children.finish(cx)
        }
    }
}

/// Checks a value against a simple type. On failure, says what was expected.
pub fn check_simple(d: &SimpleDesc, v: &str) -> Result<(), String> {
    if !d.values.is_empty() {
        if d.values.contains(&v) || d.also.contains(&v) {
            return Ok(());
        }
        let known = d.values.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ");
        return match d.open {
            None => Err(format!("one of {known} ({})", d.name)),
            Some(other) => check_simple(other, v).map_err(|e| format!("one of {known}, or another value that is {e}")),
        };
    }
    check_builtin(d.builtin, v)?;
    check_facets(d, v)
}

/// Checks the facets of a simple type (lengths, patterns, bounds), for a value whose lexical
/// form is already known to be right.
pub(crate) fn check_facets(d: &SimpleDesc, v: &str) -> Result<(), String> {
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

/// The lexical check of the built-in (shared with the generator), and for `xs:decimal` also
/// that `rust_decimal` can hold the value exactly.
fn check_builtin(b: Builtin, v: &str) -> Result<(), String> {
    b.check(v).map_err(str::to_string)?;
    if b == Builtin::Decimal {
        Decimal::from_str(v).map_err(|e| e.expected.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_use_the_shared_lexical_checks() {
        assert!(check_builtin(Builtin::Int, "36").is_ok());
        assert_eq!(check_builtin(Builtin::Int, " 36 ").err().as_deref(), Some(Builtin::Int.expected()));
        assert!(check_builtin(Builtin::Language, "en_GB").is_err());
        assert!(check_builtin(Builtin::DateTime, "2026-07-17T24:00:00").is_err());
    }

    #[test]
    fn decimals_must_fit_rust_decimal() {
        assert!(check_builtin(Builtin::Decimal, "12345678901234567890.12345678").is_ok());
        let err = check_builtin(Builtin::Decimal, "99999999999999999999999999999999").err();
        assert_eq!(err.as_deref(), Some("a decimal number with at most 28 significant digits"));
    }
}
