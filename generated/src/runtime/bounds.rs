//! Bounds on the shape of a document, checked in one pass over its bytes before it is parsed.
//!
//! roxmltree checks the attributes of an element for duplicates pairwise and resolves every
//! prefix against the namespaces in scope, so its time grows with the square of the attributes on
//! one element and of the namespace declarations of a document: one 1 MiB body of 100,000
//! attributes on one element took 18 s of CPU to parse. No message of the service, and none of
//! the official OpenTravel schemas, comes near these bounds; a document over them is refused
//! before parsing, for the cost of reading its bytes once.

/// The most attributes one element may carry (the widest OTA element has a few dozen).
pub const MAX_ATTRIBUTES: usize = 128;

/// The most namespace declarations (`xmlns`, `xmlns:p`) a whole document may carry (a message
/// declares one to five; a SOAP envelope a few more).
pub const MAX_NAMESPACE_DECLARATIONS: usize = 64;

/// A document over a bound: the byte offset of the element where it was found, and what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBound {
    /// Where the element starts (its `<`).
    pub at: usize,
    /// What is wrong, naming the element and the bound.
    pub what: String,
}

/// Checks [`MAX_ATTRIBUTES`] and [`MAX_NAMESPACE_DECLARATIONS`]. A document whose every
/// stretch from one `<` to the next has at most [`MAX_ATTRIBUTES`] `=` and which has at most
/// [`MAX_NAMESPACE_DECLARATIONS`] `xmlns` anywhere is within them (found with vectorised byte
/// searches, a small fraction of parsing); any other is read tag by tag ([`exact`]).
pub fn check(xml: &str) -> Result<(), OverBound> {
    if clearly_within(xml.as_bytes()) { Ok(()) } else { exact(xml) }
}

/// True when the counts of `=` and of `xmlns` alone show the document within the bounds. An
/// attribute takes at least four bytes (`a=""`), so only a stretch between two `<` longer than
/// four times [`MAX_ATTRIBUTES`] can hold too many: only those have their `=` counted.
fn clearly_within(b: &[u8]) -> bool {
    const SHORT: usize = 4 * MAX_ATTRIBUTES;
    // A document of few `=` in all has no stretch with too many (most messages).
    if memchr::memchr_iter(b'=', b).count() > MAX_ATTRIBUTES {
        let mut from = 0;
        for at in memchr::memchr_iter(b'<', b).chain(std::iter::once(b.len())) {
            if at - from > SHORT && memchr::memchr_iter(b'=', &b[from..at]).nth(MAX_ATTRIBUTES).is_some() {
                return false;
            }
            from = at;
        }
    }
    static XMLNS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"xmlns"));
    XMLNS.find_iter(b).nth(MAX_NAMESPACE_DECLARATIONS).is_none()
}

/// Checks the bounds tag by tag. Comments, CDATA sections, processing instructions and
/// declarations are skipped; what is not well-formed is left to the parser (this only counts,
/// conservatively).
pub fn exact(xml: &str) -> Result<(), OverBound> {
    let b = xml.as_bytes();
    let mut declarations = 0usize;
    let mut i = 0;
    while let Some(lt) = memchr(b'<', b, i) {
        let rest = &b[lt..];
        let skip_to = |end: &[u8]| find(b, lt, end).map_or(b.len(), |e| e + end.len());
        if rest.starts_with(b"<!--") {
            i = skip_to(b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = skip_to(b"]]>");
        } else if rest.starts_with(b"<?") {
            i = skip_to(b"?>");
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") {
            i = skip_to(b">");
        } else {
            let (end, attributes, declared) = start_tag(b, lt + 1);
            let name = || {
                let n = &b[lt + 1..];
                let len =
                    n.iter().take_while(|c| !c.is_ascii_whitespace() && !matches!(c, b'/' | b'>')).count().min(64);
                String::from_utf8_lossy(&n[..len]).into_owned()
            };
            if attributes > MAX_ATTRIBUTES {
                return Err(OverBound {
                    at: lt,
                    what: format!("element <{}> has more than {MAX_ATTRIBUTES} attributes", name()),
                });
            }
            declarations += declared;
            if declarations > MAX_NAMESPACE_DECLARATIONS {
                return Err(OverBound {
                    at: lt,
                    what: format!(
                        "the document declares more than {MAX_NAMESPACE_DECLARATIONS} namespaces (at element <{}>)",
                        name()
                    ),
                });
            }
            i = end;
        }
    }
    Ok(())
}

/// Reads a start tag from just after its `<`: the offset after its `>`, its attributes (each
/// `=` outside a quoted value), and how many of them declare a namespace.
fn start_tag(b: &[u8], mut i: usize) -> (usize, usize, usize) {
    let (mut attributes, mut declared) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'>' => return (i + 1, attributes, declared),
            q @ (b'"' | b'\'') => {
                i = memchr(q, b, i + 1).map_or(b.len(), |e| e + 1);
                continue;
            }
            b'=' => {
                attributes += 1;
                if declares(b, i) {
                    declared += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (b.len(), attributes, declared)
}

/// True when the attribute whose `=` is at `eq` is `xmlns` or `xmlns:…`.
fn declares(b: &[u8], eq: usize) -> bool {
    let mut e = eq;
    while e > 0 && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    let mut s = e;
    while s > 0 && !b[s - 1].is_ascii_whitespace() && !matches!(b[s - 1], b'"' | b'\'' | b'<') {
        s -= 1;
    }
    let name = &b[s..e];
    name == b"xmlns" || name.starts_with(b"xmlns:")
}

/// The first `needle` at or after `from`.
fn memchr(needle: u8, b: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(needle, b.get(from..)?).map(|p| p + from)
}

/// The first `end` at or after `from`.
fn find(b: &[u8], from: usize, end: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, end).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn attrs(n: usize) -> String {
        (0..n).map(|i| format!(" a{i}=\"v\"")).collect()
    }

    #[test]
    fn real_messages_pass() {
        for sample in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/samples")).unwrap() {
            let path = sample.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(check(&text), Ok(()), "{}", path.display());
        }
    }

    #[test]
    fn attributes_are_counted_per_element() {
        let ok = format!("<a{}><b{}/></a>", attrs(MAX_ATTRIBUTES), attrs(MAX_ATTRIBUTES));
        assert_eq!(check(&ok), Ok(()));
        let over = format!("<a>\n<b{}/></a>", attrs(MAX_ATTRIBUTES + 1));
        let e = check(&over).unwrap_err();
        assert_eq!(e.at, 4);
        assert_eq!(e.what, "element <b> has more than 128 attributes");
    }

    #[test]
    fn equals_signs_in_values_comments_and_text_are_not_attributes() {
        let value = "x=y ".repeat(500);
        let doc = format!("<a b=\"{value}\" c='{value}'><!-- {value} --><![CDATA[{value}]]><?pi {value}?>{value}</a>");
        assert_eq!(check(&doc), Ok(()));
    }

    #[test]
    fn namespace_declarations_are_counted_over_the_document() {
        let decl = |i: usize| format!("<e xmlns:p{i}=\"urn:{i}\">");
        let ok: String = (0..MAX_NAMESPACE_DECLARATIONS).map(decl).collect();
        assert_eq!(check(&ok), Ok(()));
        let over: String = (0..=MAX_NAMESPACE_DECLARATIONS).map(decl).collect();
        assert!(check(&over).unwrap_err().what.starts_with("the document declares more than 64 namespaces"));
        // xmlns-like values and names that only start alike are not declarations.
        let lookalike: String = (0..200).map(|i| format!("<e xmlnsx{i}=\"xmlns:a\" b='xmlns=1'/>")).collect();
        assert_eq!(check(&lookalike), Ok(()));
    }

    #[test]
    fn the_quick_count_and_the_exact_reading_agree() {
        let docs = [
            format!("<a{}/>", attrs(MAX_ATTRIBUTES + 1)),
            format!("<a b=\"{}\"/>", "=".repeat(300)),
            format!("<a>{}</a>", "xmlns ".repeat(100)),
            (0..100).map(|i| format!("<e xmlns:p{i}=\"urn\"/>")).collect(),
            "<a xmlns=\"urn\"><b/></a>".to_string(),
        ];
        for doc in &docs {
            if clearly_within(doc.as_bytes()) {
                assert_eq!(exact(doc), Ok(()), "{doc}");
            }
            assert_eq!(check(doc), exact(doc), "{doc}");
        }
        assert!(
            check(&docs[0]).is_err() && check(&docs[1]).is_ok() && check(&docs[2]).is_ok() && check(&docs[3]).is_err()
        );
    }

    #[test]
    fn an_unclosed_tag_or_quote_ends_the_scan() {
        assert_eq!(check("<a b=\"never closed"), Ok(()));
        assert_eq!(check("<a b"), Ok(()));
        assert_eq!(check("<!-- open"), Ok(()));
    }
}
