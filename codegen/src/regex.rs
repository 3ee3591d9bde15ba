//! Translation of XML Schema regular expressions (`xs:pattern`) to the `regex` crate's syntax.
//!
//! XSD patterns are implicitly anchored, treat `^` and `$` as ordinary characters and let `.`
//! match anything but line breaks. The few XSD-only features (`\i`, `\c`, Unicode block escapes,
//! character-class subtraction) have no `regex` equivalent and are reported as errors.

/// Translates an XSD pattern into an anchored `regex` pattern, or says why it cannot.
pub fn translate_pattern(xsd: &str) -> Result<String, String> {
    let mut out = String::from(r"\A(?:");
    let mut chars = xsd.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    return Err("it ends with a lone backslash".to_string());
                };
                match next {
                    'i' | 'I' | 'c' | 'C' => {
                        return Err(format!("the XSD name escape `\\{next}` is not supported"));
                    }
                    'p' | 'P' if chars.peek() == Some(&'{') => {
                        let rest: String = chars.clone().take_while(|&ch| ch != '}').collect();
                        if rest.starts_with("{Is") {
                            return Err("Unicode block escapes (`\\p{Is…}`) are not supported".to_string());
                        }
                        out.push('\\');
                        out.push(next);
                    }
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    out.push('^');
                }
            }
            '[' => return Err("character-class subtraction and nested classes are not supported".to_string()),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '-' if in_class && chars.peek() == Some(&'[') => {
                return Err("character-class subtraction is not supported".to_string());
            }
            '^' | '$' if !in_class => {
                out.push('\\');
                out.push(c);
            }
            '.' if !in_class => out.push_str(r"[^\n\r]"),
            _ => out.push(c),
        }
    }
    if in_class {
        return Err("a character class is not closed".to_string());
    }
    out.push_str(r")\z");
    regex::Regex::new(&out).map_err(|e| format!("it is not a valid regular expression ({e})"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::translate_pattern;

    #[test]
    fn translations() {
        let cases = [
            ("[A-Z]{3}", r"\A(?:[A-Z]{3})\z"),
            (r"[0-9]{4}\.[0-9]+", r"\A(?:[0-9]{4}\.[0-9]+)\z"),
            ("a^b$", r"\A(?:a\^b\$)\z"),
            ("a.b", r"\A(?:a[^\n\r]b)\z"),
            ("[^.$]", r"\A(?:[^.$])\z"),
            (r"\d+", r"\A(?:\d+)\z"),
        ];
        for (xsd, rust) in cases {
            assert_eq!(translate_pattern(xsd).as_deref(), Ok(rust), "{xsd}");
        }
    }

    #[test]
    fn unsupported_features_are_errors() {
        for bad in [r"\i\c*", "[a-z-[aeiou]]", r"\p{IsBasicLatin}", "[abc", "(", "a\\"] {
            assert!(translate_pattern(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn anchoring_is_implicit() {
        let re = regex::Regex::new(&translate_pattern("[A-Z]{3}").unwrap_or_default()).ok();
        let re = re.as_ref();
        assert!(re.is_some_and(|r| r.is_match("EUR")));
        assert!(re.is_some_and(|r| !r.is_match("EURO")));
        assert!(re.is_some_and(|r| !r.is_match("xEUR")));
    }
}
