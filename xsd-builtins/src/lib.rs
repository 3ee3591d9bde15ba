//! `xsd-builtins`: the XML Schema built-in types the OTA spec subset supports, and their
//! lexical checks — one definition, used by the generator (`ota-codegen`, to check enumeration
//! values and bounds in the spec) and by the runtime of `ota-messages` (to check and read
//! values when decoding).
//!
//! The checks are strict: what they accept is what the runtime's Rust types hold and write
//! back unchanged. They follow XML Schema 1.0 except where noted on [`Builtin::check`]; the
//! spec restricts the types it uses with patterns so that `xmllint` agrees (see
//! `spec/README.md`).
//!
//! ```
//! use xsd_builtins::Builtin;
//!
//! assert_eq!(Builtin::from_xsd("dateTime"), Some(Builtin::DateTime));
//! assert!(Builtin::Date.check("2024-02-29").is_ok());
//! assert!(Builtin::Date.check("2025-02-29").is_err());
//! assert_eq!(Builtin::Date.check("2025-7-1"), Err("a date YYYY-MM-DD"));
//! ```
//!
//! This crate depends on nothing, so the generator can run even when the generated crate does
//! not build.

pub mod lexical;

/// The XML Schema built-in types the subset supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Builtin {
    /// `xs:string`.
    String,
    /// `xs:normalizedString`.
    NormalizedString,
    /// `xs:token`.
    Token,
    /// `xs:language`.
    Language,
    /// `xs:boolean`.
    Boolean,
    /// `xs:int`.
    Int,
    /// `xs:integer`.
    Integer,
    /// `xs:nonNegativeInteger`.
    NonNegativeInteger,
    /// `xs:positiveInteger`.
    PositiveInteger,
    /// `xs:unsignedInt`.
    UnsignedInt,
    /// `xs:decimal`.
    Decimal,
    /// `xs:date`.
    Date,
    /// `xs:dateTime`.
    DateTime,
}

impl Builtin {
    /// Every supported built-in, with its XSD local name.
    pub const ALL: [(Builtin, &'static str); 13] = [
        (Builtin::String, "string"),
        (Builtin::NormalizedString, "normalizedString"),
        (Builtin::Token, "token"),
        (Builtin::Language, "language"),
        (Builtin::Boolean, "boolean"),
        (Builtin::Int, "int"),
        (Builtin::Integer, "integer"),
        (Builtin::NonNegativeInteger, "nonNegativeInteger"),
        (Builtin::PositiveInteger, "positiveInteger"),
        (Builtin::UnsignedInt, "unsignedInt"),
        (Builtin::Decimal, "decimal"),
        (Builtin::Date, "date"),
        (Builtin::DateTime, "dateTime"),
    ];

    /// The built-in with this XSD local name.
    pub fn from_xsd(local: &str) -> Option<Builtin> {
        Builtin::ALL.iter().find(|(_, n)| *n == local).map(|(b, _)| *b)
    }

    /// The XSD local name.
    pub fn xsd_name(self) -> &'static str {
        Builtin::ALL.iter().find(|(b, _)| *b == self).map(|(_, n)| *n).unwrap_or("string")
    }

    /// True for the string family (held as `String`).
    pub fn is_string(self) -> bool {
        matches!(self, Builtin::String | Builtin::NormalizedString | Builtin::Token | Builtin::Language)
    }

    /// True for the integer family.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Builtin::Int
                | Builtin::Integer
                | Builtin::NonNegativeInteger
                | Builtin::PositiveInteger
                | Builtin::UnsignedInt
        )
    }

    /// True when `minInclusive` / `maxInclusive` apply.
    pub fn is_ordered(self) -> bool {
        self.is_integer() || matches!(self, Builtin::Decimal | Builtin::Date | Builtin::DateTime)
    }

    /// What a value of the type looks like, for error messages ("a date YYYY-MM-DD").
    pub fn expected(self) -> &'static str {
        match self {
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
    }

    /// Checks the lexical form of a value; on failure, what was expected ([`Builtin::expected`]).
    ///
    /// Stricter than XML Schema 1.0 where the Rust type could not hold the value or give the
    /// same text back: no whitespace around typed values; integers within the range of the
    /// Rust type the generator chose (`xs:integer` → `i64`, `xs:nonNegativeInteger` and
    /// `xs:positiveInteger` → `u64`); dates and date-times with four-digit years 0001–9999,
    /// hours 00–23 (no `24:00:00`) and at most nine digits of fraction; a date without a zone.
    pub fn check(self, v: &str) -> Result<(), &'static str> {
        let ok = match self {
            Builtin::String => true,
            Builtin::NormalizedString => !v.contains(['\t', '\n', '\r']),
            Builtin::Token => !v.contains(['\t', '\n', '\r']) && v.trim_matches(' ') == v && !v.contains("  "),
            Builtin::Language => lexical::language(v),
            Builtin::Boolean => lexical::boolean(v).is_some(),
            Builtin::Int => v.parse::<i32>().is_ok(),
            Builtin::Integer => v.parse::<i64>().is_ok(),
            Builtin::NonNegativeInteger => v.parse::<u64>().is_ok(),
            Builtin::PositiveInteger => v.parse::<u64>().is_ok_and(|n| n > 0),
            Builtin::UnsignedInt => v.parse::<u32>().is_ok(),
            Builtin::Decimal => lexical::decimal(v).is_some(),
            Builtin::Date => lexical::date(v).is_some(),
            Builtin::DateTime => lexical::date_time(v).is_some(),
        };
        if ok { Ok(()) } else { Err(self.expected()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (b, name) in Builtin::ALL {
            assert_eq!(Builtin::from_xsd(name), Some(b));
            assert_eq!(b.xsd_name(), name);
        }
        assert_eq!(Builtin::from_xsd("duration"), None);
    }

    #[test]
    fn integers_are_strict_about_spaces_and_ranges() {
        assert!(Builtin::Int.check("36").is_ok());
        assert!(Builtin::Int.check("+36").is_ok());
        assert!(Builtin::Int.check(" 36 ").is_err());
        assert!(Builtin::Int.check("abc").is_err());
        assert!(Builtin::Int.check("2147483648").is_err());
        assert!(Builtin::PositiveInteger.check("0").is_err());
        assert!(Builtin::NonNegativeInteger.check("-1").is_err());
        assert!(Builtin::Integer.check("99999999999999999999").is_err());
    }

    #[test]
    fn strings() {
        assert!(Builtin::String.check(" any\ttext\n").is_ok());
        assert!(Builtin::NormalizedString.check("a b").is_ok());
        assert!(Builtin::NormalizedString.check("a\tb").is_err());
        assert!(Builtin::Token.check("a b").is_ok());
        for bad in [" a", "a ", "a  b", "a\nb"] {
            assert!(Builtin::Token.check(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn booleans() {
        for ok in ["true", "false", "1", "0"] {
            assert!(Builtin::Boolean.check(ok).is_ok(), "{ok}");
        }
        for bad in ["TRUE", "yes", "", " true"] {
            assert!(Builtin::Boolean.check(bad).is_err(), "{bad}");
        }
    }
}
