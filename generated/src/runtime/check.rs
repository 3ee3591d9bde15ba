//! Value checks (the shape of every simple value against its type and facets), and a generic
//! checker that walks a whole document against the schema tables without binding it — the
//! strict gate in front of yaserde for callers that bind with yaserde directly.

use std::str::FromStr;

use roxmltree::Node;

use super::cx::Cx;
use super::error::DecodeError;
use super::scalar::{Date, DateTime, Decimal};
use super::schema::{Builtin, ComplexDesc, Content, SimpleDesc, TypeDesc};

/// Checks `node` and everything below it against `desc`, binding nothing (used before yaserde
/// binds a document; the generated decoders check and bind in one pass instead).
pub(crate) fn check_complex<'a, 'i>(cx: &mut Cx<'a, 'i>, node: Node<'a, 'i>, desc: &'static ComplexDesc) -> Result<(), DecodeError> {
    for attr in node.attributes() {
        if let Some(i) = cx.attribute(&attr, desc)? {
            cx.value::<()>(&attr, desc.attributes[i].ty)?;
        }
    }
    cx.required_attributes(node, desc)?;
    match &desc.content {
        Content::Empty => cx.empty(node),
        Content::Text(ty) => cx.text::<()>(node, ty),
        Content::Sequence(_) => {
            let mut children = cx.children(node, desc)?;
            while let Some(next) = children.next(cx)? {
                match next.elem.ty {
                    TypeDesc::Complex(c) => cx.element(&next, |n, cx| check_complex(cx, n, c))?,
                    TypeDesc::Simple(_) => cx.simple::<()>(&next)?,
                }
            }
            children.finish(cx)
        }
    }
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
