//! Errors of decoding and encoding, as data: what went wrong, at which element path, and at
//! which line and column of the input.

use std::fmt;

/// A message could not be decoded. Says where (element path, line:column) and what was expected.
///
/// A document with several problems gets them all, up to [`MAX_ERRORS`](super::MAX_ERRORS):
/// the fields are the first one (in document order, depth first: an element's attributes, then
/// its children, then what is missing in it), [`DecodeError::more`] the others, and
/// [`DecodeError::problems`] iterates over all of them. A document that cannot be read as this
/// message at all (not well-formed, a DOCTYPE, another root or namespace) has one problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// The element path, e.g. `/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[2]/Individual`
    /// (empty when the document could not be parsed at all).
    pub path: String,
    /// 1-based line of the offending node (a line feed, a carriage return and line feed, or a
    /// carriage return alone ends a line).
    pub line: u32,
    /// 1-based column of the offending node.
    pub column: u32,
    /// The problems after the first, in document order (each with an empty `more`).
    pub more: Box<[DecodeError]>,
}

/// The kinds of decoding failure.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input is not well-formed XML.
    Malformed(String),
    /// The input has a DOCTYPE (refused: entity expansion and external entities are attack vectors).
    Doctype,
    /// The root element is not a message this decoder reads.
    WrongRoot {
        /// The root names that would be accepted.
        expected: Vec<&'static str>,
        /// The root name found.
        found: String,
    },
    /// An element is not in the OTA namespace.
    WrongNamespace {
        /// The element's local name.
        element: String,
        /// Its namespace, if any.
        found: Option<String>,
    },
    /// An element the type cannot hold.
    UnexpectedElement {
        /// Its local name.
        name: String,
        /// The elements allowed at this point.
        expected: Vec<&'static str>,
    },
    /// A required element is missing.
    MissingElement {
        /// Its name.
        name: &'static str,
    },
    /// None of the alternatives of a required choice is present.
    MissingChoice {
        /// The first element of each alternative.
        options: Vec<&'static str>,
    },
    /// An element occurs more often than allowed (a second single-valued element, for one).
    TooMany {
        /// Its name.
        name: &'static str,
        /// The most allowed.
        max: u32,
    },
    /// Elements of two alternatives of a choice are both present.
    ChoiceConflict {
        /// An element of the alternative seen first.
        first: &'static str,
        /// The element of another alternative.
        second: String,
    },
    /// One attribute given twice, under its name and another name it is also taken by.
    GivenTwice {
        /// The attribute's declared name.
        name: &'static str,
        /// The name of the second.
        second: String,
    },
    /// An element's text given also as the attribute it is taken as (`gen:text`).
    TextGivenTwice {
        /// The attribute.
        attribute: &'static str,
    },
    /// An attribute the type cannot hold.
    UnexpectedAttribute {
        /// Its name (with `{namespace}` when qualified).
        name: String,
        /// The attributes allowed here.
        expected: Vec<&'static str>,
    },
    /// A required attribute is missing.
    MissingAttribute {
        /// Its name.
        name: &'static str,
    },
    /// Text where only elements are allowed.
    UnexpectedText {
        /// The start of the text.
        text: String,
    },
    /// A value of the wrong shape.
    InvalidValue {
        /// `@Name` for an attribute, `text` for element content.
        target: String,
        /// The value found.
        value: String,
        /// What it should be.
        expected: String,
    },
    /// The message version (`@Version` on the root) is not even of the form of a version, e.g.
    /// the OTA-style `1.000`. Told apart from [`DecodeErrorKind::InvalidValue`] so that a
    /// service can answer it as it answers any other version it does not support.
    InvalidVersion {
        /// The value found.
        value: String,
        /// What a version looks like.
        expected: String,
        /// The version the message is for ([`Message::VERSION`](super::Message::VERSION)).
        supported: &'static str,
    },
    /// The checked document could not be bound to the Rust types (a generator bug; please report).
    Bind(String),
}

impl DecodeError {
    /// An error at a position.
    pub fn new(kind: DecodeErrorKind, path: impl Into<String>, line: u32, column: u32) -> Self {
        DecodeError { kind, path: path.into(), line, column, more: Box::default() }
    }

    /// Every problem: this one, then [`DecodeError::more`].
    pub fn problems(&self) -> impl Iterator<Item = &DecodeError> {
        std::iter::once(self).chain(self.more.iter())
    }

    /// How many problems there are (at least 1).
    pub fn count(&self) -> usize {
        1 + self.more.len()
    }

    /// This problem alone, as `LINE:COLUMN: PATH: what` (the `Display` form without the count
    /// of the others).
    pub fn problem_text(&self) -> String {
        if self.path.is_empty() {
            format!("{}:{}: {}", self.line, self.column, self.kind)
        } else {
            format!("{}:{}: {}: {}", self.line, self.column, self.path, self.kind)
        }
    }

    /// The error for a root element that no decoder reads.
    pub fn unknown_root(doc: &roxmltree::Document, expected: &[&'static str]) -> Self {
        let root = doc.root_element();
        let (line, column) = super::text_pos(doc.input_text(), root.range().start);
        DecodeError::new(
            DecodeErrorKind::WrongRoot { expected: expected.to_vec(), found: root.tag_name().name().to_string() },
            format!("/{}", root.tag_name().name()),
            line,
            column,
        )
    }
}

fn list(items: &[&str]) -> String {
    if items.is_empty() {
        return "nothing".to_string();
    }
    items.iter().map(|i| format!("<{i}>")).collect::<Vec<_>>().join(", ")
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DecodeErrorKind::*;
        match self {
            Malformed(m) => write!(f, "not well-formed XML: {m}"),
            Doctype => f.write_str("a DOCTYPE is not allowed (entities are refused)"),
            WrongRoot { expected, found } => {
                write!(f, "unexpected root element <{found}>; expected {}", list(expected).replace(", ", " or "))
            }
            WrongNamespace { element, found: Some(ns) } => write!(
                f,
                "element <{element}> is in namespace \"{ns}\"; expected \"{}\"",
                crate::runtime::OTA_NAMESPACE
            ),
            WrongNamespace { element, found: None } => {
                write!(f, "element <{element}> has no namespace; expected xmlns=\"{}\"", crate::runtime::OTA_NAMESPACE)
            }
            UnexpectedElement { name, expected } => {
                write!(f, "unexpected element <{name}>; expected {}", list(expected))
            }
            MissingElement { name } => write!(f, "missing required element <{name}>"),
            MissingChoice { options } => write!(f, "missing one of {}", list(options).replace(", ", " or ")),
            TooMany { name, max: 1 } => write!(f, "element <{name}> may occur only once"),
            TooMany { name, max } => write!(f, "element <{name}> may occur at most {max} times"),
            ChoiceConflict { first, second } => {
                write!(f, "<{second}> cannot appear together with <{first}>: only one of them is allowed")
            }
            GivenTwice { name, second } => {
                write!(f, "@{second} is @{name} under another name: give only one of them")
            }
            TextGivenTwice { attribute } => {
                write!(f, "@{attribute} is the element's text under another name: give only one of them")
            }
            UnexpectedAttribute { name, expected } => {
                let expected: Vec<String> = expected.iter().map(|e| format!("@{e}")).collect();
                let expected = if expected.is_empty() { "none".to_string() } else { expected.join(", ") };
                write!(f, "unexpected attribute @{name}; allowed: {expected}")
            }
            MissingAttribute { name } => write!(f, "missing required attribute @{name}"),
            UnexpectedText { text } => write!(f, "unexpected text {:?}: this element holds only elements", clip(text)),
            InvalidValue { target, value, expected } => {
                write!(f, "invalid value {:?} in {target}: expected {expected}", clip(value))
            }
            InvalidVersion { value, expected, supported } => write!(
                f,
                "invalid version {:?} in @Version: expected {expected} (the supported version is {supported})",
                clip(value)
            ),
            Bind(m) => write!(f, "the document passed every check but could not be bound: {m}"),
        }
    }
}

/// The first problem as `LINE:COLUMN: PATH: what`, then `(and N more problems)` when there
/// are others (print the [`DecodeError::problem_text`] of each of [`DecodeError::problems`] to
/// see them all).
impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problem_text())?;
        match self.more.len() {
            0 => Ok(()),
            1 => f.write_str(" (and 1 more problem)"),
            n => write!(f, " (and {n} more problems)"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A message could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot encode the message: {0}")]
pub struct EncodeError(pub String);

/// A value that is not in a closed list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a known {list} value")]
pub struct UnknownValue {
    /// The list (XSD type name).
    pub list: &'static str,
    /// The value found.
    pub value: String,
}

impl UnknownValue {
    /// A new error.
    pub fn new(list: &'static str, value: &str) -> Self {
        UnknownValue { list, value: value.to_string() }
    }
}
