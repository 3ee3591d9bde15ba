//! The XML writer behind the generated encoders.
//!
//! It writes the same bytes as the yaserde/xml-rs path (`xmlns` once on the root, `<X/>` for
//! an element with nothing in it, `<X>text</X>` for text, two-space indentation when pretty),
//! but escapes what xml-rs leaves raw and a re-read would change: a tab in an attribute
//! (`&#x9;`) and a carriage return in text (`&#xD;`). Characters XML 1.0 cannot carry at all are
//! an error, not silently written.

use std::borrow::Cow;

use super::OTA_NAMESPACE;
use super::error::EncodeError;
use super::scalar::{Date, DateTime, Decimal, write_number};

/// A value type that can be written as XML text.
pub trait ToValue {
    /// The value as text (unescaped).
    fn to_value(&self) -> Cow<'_, str>;

    /// Writes the value, escaped, to the writer's output (`attribute`: in an attribute).
    fn write_escaped(&self, w: &mut Writer, attribute: bool) {
        let v = self.to_value();
        w.escape(&v, attribute);
    }
}

impl ToValue for String {
    fn to_value(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl ToValue for &str {
    fn to_value(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl ToValue for bool {
    fn to_value(&self) -> Cow<'_, str> {
        Cow::Borrowed(if *self { "true" } else { "false" })
    }
}

/// Numbers, decimals, dates and date-times: their text is ASCII with nothing to escape, so it
/// is appended straight to the output (no intermediate string, no formatter).
macro_rules! ascii_values {
    ($($t:ty => |$v:ident, $out:ident| $write:expr),* $(,)?) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Cow<'_, str> {
                Cow::Owned(self.to_string())
            }

            fn write_escaped(&self, w: &mut Writer, _attribute: bool) {
                let ($v, $out) = (self, &mut w.out);
                $write
            }
        }
    )*};
}

ascii_values! {
    i32 => |v, out| write_number(out, v.is_negative(), u64::from(v.unsigned_abs()), 0),
    i64 => |v, out| write_number(out, v.is_negative(), v.unsigned_abs(), 0),
    u32 => |v, out| write_number(out, false, u64::from(*v), 0),
    u64 => |v, out| write_number(out, false, *v, 0),
    Decimal => |v, out| v.write_to(out),
    Date => |v, out| v.write_to(out),
    DateTime => |v, out| v.write_to(out),
}

/// A type the generated code can encode as an element.
pub trait Encode {
    /// Writes the element `name` with this value's attributes and content.
    fn encode(&self, w: &mut Writer, name: &str);
}

/// Builds one XML document.
pub struct Writer {
    /// The document so far: UTF-8, as only `&str` text and ASCII are appended.
    out: Vec<u8>,
    pretty: bool,
    depth: usize,
    /// A start tag is written but not yet closed with `>`.
    open: bool,
    /// When pretty, per open element: whether it has child elements (for the indentation of
    /// its end tag). Not kept when compact.
    nested: Vec<bool>,
    invalid: Option<char>,
    /// The dialect written (see [`DialectIndex`]).
    dialect: DialectIndex,
}

/// A dialect of the spec, by its position in the spec's list of dialects (`gen:dialect` in
/// `common.xsd`; 0 is the default). The generated `Dialect` enum converts into it; the
/// generated encoders compare it where a field is written differently in some dialect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DialectIndex(pub u8);

impl Writer {
    /// A writer; the XML declaration is written at once.
    pub fn new(pretty: bool, capacity: usize) -> Self {
        let mut out = Vec::with_capacity(capacity.max(256));
        out.extend_from_slice(br#"<?xml version="1.0" encoding="UTF-8"?>"#);
        Writer {
            out,
            pretty,
            depth: 0,
            open: false,
            nested: Vec::new(),
            invalid: None,
            dialect: DialectIndex::default(),
        }
    }

    /// The same writer, writing `dialect`.
    pub fn in_dialect(mut self, dialect: DialectIndex) -> Self {
        self.dialect = dialect;
        self
    }

    /// The dialect being written.
    #[inline]
    pub fn dialect(&self) -> DialectIndex {
        self.dialect
    }

    #[inline]
    fn close_start(&mut self) {
        if self.open {
            self.out.push(b'>');
            self.open = false;
        }
    }

    fn indent(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.depth {
            self.out.extend_from_slice(b"  ");
        }
    }

    /// Opens element `name` (the root also gets the OTA namespace).
    pub fn start(&mut self, name: &str) {
        self.close_start();
        if self.pretty {
            if let Some(parent) = self.nested.last_mut() {
                *parent = true;
            }
            self.nested.push(false);
            self.indent();
        }
        self.out.push(b'<');
        self.out.extend_from_slice(name.as_bytes());
        if self.depth == 0 {
            self.out.extend_from_slice(b" xmlns=\"");
            self.out.extend_from_slice(OTA_NAMESPACE.as_bytes());
            self.out.push(b'"');
        }
        self.open = true;
        self.depth += 1;
    }

    /// Writes an attribute of the element just opened.
    #[inline]
    pub fn attr(&mut self, name: &str, value: &impl ToValue) {
        self.out.push(b' ');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"=\"");
        value.write_escaped(self, true);
        self.out.push(b'"');
    }

    /// Writes an attribute when present.
    #[inline]
    pub fn attr_opt(&mut self, name: &str, value: &Option<impl ToValue>) {
        if let Some(v) = value {
            self.attr(name, v);
        }
    }

    /// Writes text content (an empty text still closes the start tag: `<X></X>`).
    pub fn text(&mut self, value: &impl ToValue) {
        self.close_start();
        value.write_escaped(self, false);
    }

    /// Writes values as one text, separated by single spaces (an `xs:list`: `1 2 3`).
    pub fn text_list<'v, T: ToValue + 'v>(&mut self, values: impl IntoIterator<Item = &'v T>) {
        self.close_start();
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.out.push(b' ');
            }
            v.write_escaped(self, false);
        }
    }

    /// Writes a simple-typed element: `<name>text</name>`.
    pub fn simple(&mut self, name: &str, value: &impl ToValue) {
        self.start(name);
        self.text(value);
        self.end(name);
    }

    /// Closes element `name`.
    pub fn end(&mut self, name: &str) {
        self.depth = self.depth.saturating_sub(1);
        let nested = self.pretty && self.nested.pop().unwrap_or(false);
        if self.open {
            self.out.extend_from_slice(b"/>");
            self.open = false;
            return;
        }
        if nested {
            self.indent();
        }
        self.out.extend_from_slice(b"</");
        self.out.extend_from_slice(name.as_bytes());
        self.out.push(b'>');
    }

    fn escape(&mut self, s: &str, attribute: bool) {
        let mut rest = s;
        while let Some((i, c)) = find_escape(rest, attribute) {
            self.out.extend_from_slice(&rest.as_bytes()[..i]);
            let reference: &[u8] = match c {
                '<' => b"&lt;",
                '>' => b"&gt;",
                '&' => b"&amp;",
                '"' => b"&quot;",
                '\'' => b"&apos;",
                '\n' => b"&#xA;",
                '\r' => b"&#xD;",
                '\t' => b"&#x9;",
                other => {
                    self.invalid.get_or_insert(other);
                    b""
                }
            };
            self.out.extend_from_slice(reference);
            rest = &rest[i + c.len_utf8()..];
        }
        self.out.extend_from_slice(rest.as_bytes());
    }

    /// The document, or an error if a value held a character XML 1.0 cannot carry.
    pub fn finish(self) -> Result<String, EncodeError> {
        if let Some(c) = self.invalid {
            return Err(EncodeError(format!("the character U+{:04X} cannot be written in XML 1.0", c as u32)));
        }
        // Everything appended was `&str` text or ASCII, so this cannot fail; checked anyway.
        String::from_utf8(self.out).map_err(|e| {
            EncodeError(format!("the encoder wrote invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()))
        })
    }
}

/// Per byte: whether it may start a character that [`needs_escape`] in text (bit 0) or in an
/// attribute (bit 1). Every such character is ASCII but U+FFFE and U+FFFF, whose UTF-8 form
/// starts with 0xEF.
const CANDIDATES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = 0b11;
        b += 1;
    }
    t[b'<' as usize] = 0b11;
    t[b'>' as usize] = 0b11;
    t[b'&' as usize] = 0b11;
    t[b'"' as usize] = 0b10;
    t[b'\'' as usize] = 0b10;
    t[0xEF] = 0b11;
    t
};

/// The first character of `s` that [`needs_escape`], with its byte offset.
fn find_escape(s: &str, attribute: bool) -> Option<(usize, char)> {
    let mask = if attribute { 0b10 } else { 0b01 };
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(k) = bytes[from..].iter().position(|&b| CANDIDATES[b as usize] & mask != 0) {
        let i = from + k;
        // A char boundary: the byte is ASCII or the lead byte 0xEF.
        if let Some(c) = s[i..].chars().next()
            && needs_escape(c, attribute)
        {
            return Some((i, c));
        }
        from = i + 1;
    }
    None
}

/// True for characters written as references (and for those XML 1.0 cannot hold).
fn needs_escape(c: char, attribute: bool) -> bool {
    match c {
        '<' | '>' | '&' | '\r' => true,
        '"' | '\'' | '\n' | '\t' => attribute,
        '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Leaf;
    impl Encode for Leaf {
        fn encode(&self, w: &mut Writer, name: &str) {
            w.start(name);
            w.attr("A", &"x\"<&>'\t\n\r".to_string());
            w.end(name);
        }
    }

    #[test]
    fn compact_and_pretty_shapes() {
        let mut w = Writer::new(false, 0);
        w.start("R");
        Leaf.encode(&mut w, "L");
        w.simple("T", &"a\rb<c>".to_string());
        w.simple("E", &String::new());
        w.end("R");
        assert_eq!(
            w.finish().ok().as_deref(),
            Some(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><R xmlns=\"http://www.opentravel.org/OTA/2003/05\">\
                 <L A=\"x&quot;&lt;&amp;&gt;&apos;&#x9;&#xA;&#xD;\"/><T>a&#xD;b&lt;c&gt;</T><E></E></R>"
            )
        );
        let mut w = Writer::new(true, 0);
        w.start("R");
        w.start("P");
        w.simple("T", &"t".to_string());
        w.end("P");
        w.end("R");
        assert_eq!(
            w.finish().ok().as_deref(),
            Some(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<R xmlns=\"http://www.opentravel.org/OTA/2003/05\">\n  <P>\n    <T>t</T>\n  </P>\n</R>"
            )
        );
    }

    #[test]
    fn integers_are_written_as_rust_writes_them() {
        let mut w = Writer::new(false, 0);
        w.start("R");
        for (name, v) in [("A", i64::MIN), ("B", -1), ("C", 0), ("D", 7), ("E", i64::MAX)] {
            w.attr(name, &v);
        }
        w.attr("F", &i32::MIN);
        w.attr("G", &u64::MAX);
        w.attr("H", &0u32);
        w.end("R");
        let expected = format!(
            "<R xmlns=\"{OTA_NAMESPACE}\" A=\"{}\" B=\"-1\" C=\"0\" D=\"7\" E=\"{}\" F=\"{}\" G=\"{}\" H=\"0\"/>",
            i64::MIN,
            i64::MAX,
            i32::MIN,
            u64::MAX
        );
        assert!(w.finish().is_ok_and(|xml| xml.ends_with(&expected)));
    }

    #[test]
    fn control_characters_are_an_error() {
        let mut w = Writer::new(false, 0);
        w.simple("T", &"a\u{1}b".to_string());
        assert!(w.finish().is_err());
    }
}
