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
        // What was expected is written only when the value is refused (an open list takes
        // other values too, often).
        let known = || d.values.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ");
        return match d.open {
            None => Err(format!("one of {} ({})", known(), d.name)),
            Some(other) => {
                check_simple(other, v).map_err(|e| format!("one of {}, or another value that is {e}", known()))
            }
        };
    }
    check_builtin(d.builtin, v)?;
    check_facets(d, v)
}

/// Checks the facets of a simple type (lengths, patterns, bounds), for a value whose lexical
/// form is already known to be right.
pub(crate) fn check_facets(d: &SimpleDesc, v: &str) -> Result<(), String> {
    // A value has at most as many characters as bytes, and at least one when it has a byte:
    // its byte length alone shows most values within the bounds, without counting characters.
    let bytes = v.len() as u64;
    let within_by_bytes = d.max_length.is_none_or(|m| bytes <= u64::from(m))
        && d.min_length.is_none_or(|m| m <= 1 && bytes >= u64::from(m));
    if !within_by_bytes {
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
        _ => compare_numbers(a, bound),
    }
}

/// A number's sign (0 for a zero), integer digits without leading zeros and fraction digits
/// without trailing zeros.
fn magnitude(x: &str) -> Option<(i8, &str, &str)> {
    let p = xsd_builtins::lexical::decimal(x)?;
    // Digits are ASCII: the slices fall on character boundaries.
    let int = &p.int[p.int.bytes().position(|b| b != b'0').unwrap_or(p.int.len())..];
    let frac = &p.frac[..p.frac.bytes().rposition(|b| b != b'0').map_or(0, |i| i + 1)];
    let zero = int.is_empty() && frac.is_empty();
    Some((
        if zero {
            0
        } else if p.negative {
            -1
        } else {
            1
        },
        int,
        frac,
    ))
}

/// Compares two numbers in `xs:decimal`'s lexical form (integers are) by their digits, without
/// reading them into values: the sign (a zero has none), then the integer digits (fewer is
/// smaller, leading zeros aside), then the fraction digits (trailing zeros aside). `None` when
/// either is not such a number.
fn compare_numbers(a: &str, b: &str) -> Option<std::cmp::Ordering> {
    if b == "0" {
        // The most common bound: only the sign counts (a zero has none).
        let p = xsd_builtins::lexical::decimal(a)?;
        let nonzero = p.int.bytes().chain(p.frac.bytes()).any(|b| b != b'0');
        return Some(match (nonzero, p.negative) {
            (false, _) => std::cmp::Ordering::Equal,
            (true, true) => std::cmp::Ordering::Less,
            (true, false) => std::cmp::Ordering::Greater,
        });
    }
    let ((sa, ia, fa), (sb, ib, fb)) = (magnitude(a)?, magnitude(b)?);
    if sa != sb || sa == 0 {
        return Some(sa.cmp(&sb));
    }
    // Both positive or both negative: compare the magnitudes, then turn for negatives.
    let by_size = ia.len().cmp(&ib.len()).then_with(|| ia.cmp(ib)).then_with(|| fa.cmp(fb));
    Some(if sa < 0 { by_size.reverse() } else { by_size })
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
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Numbers compared by their digits compare as their values do.
    #[test]
    fn numbers_compare_as_their_values() {
        let mut texts: Vec<String> = [
            "0", "-0", "0.00", "-0.000", "007", "7", "7.0", "-7", "-7.01", "0.5", ".5", "0.45", "-0.05", "+3", "10",
            "9.999", "100.50", "-100.5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let sign = if x & 1 == 1 { "-" } else { "" };
            texts.push(format!("{sign}{}.{:03}", (x >> 8) % 1000, (x >> 24) % 1000));
        }
        for a in &texts {
            for b in texts.iter().step_by(7) {
                let (x, y) = (Decimal::from_str(a).unwrap(), Decimal::from_str(b).unwrap());
                assert_eq!(compare_numbers(a, b), Some(x.cmp(&y)), "{a} vs {b}");
            }
        }
        for a in &texts {
            let x = Decimal::from_str(a).unwrap();
            assert_eq!(compare_numbers(a, "0"), Some(x.cmp(&Decimal::from_str("0").unwrap())), "{a} vs 0");
        }
        assert_eq!(compare_numbers("1e5", "0"), None);
    }

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
