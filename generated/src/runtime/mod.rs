//! The hand-written runtime of the generated types: scalar types, the strict checker, the
//! [`Message`] trait and the decode/encode functions.
//!
//! Decoding is strict and lossless: [`parse_document`] parses with roxmltree (DOCTYPEs refused)
//! and the generated decoders bind the document in one pass, checked through [`Cx`] against the
//! generated schema tables; encoding goes through the generated encoders. The yaserde derives
//! every generated type also carries are not part of [`Message`]: [`decode_with_yaserde`] and
//! [`encode_with_yaserde`] use them, for callers that want yaserde's binding.

pub mod bounds;
mod check;
mod cx;
mod error;
mod official;
mod scalar;
pub mod schema;
mod std_attributes;
mod writer;

use roxmltree::{Document, ParsingOptions};
use yaserde::{YaDeserialize, YaSerialize};

pub use check::check_simple;
pub use cx::{Children, Cx, Decode, Failed, FromValue, MAX_ERRORS, MAX_UNREAD, Next, push, set, unqualified};
pub use error::{DecodeError, DecodeErrorKind, EncodeError, UnknownValue};
pub use official::{Decision, Decoded, Extras, Official, Rule, Strictness, Unread, UnreadKind, Wider};
pub use roxmltree::Node;
pub use scalar::{Date, DateTime, Decimal, ScalarError, Zone};
pub(crate) use std_attributes::std_attributes;
pub use std_attributes::{PayloadStdAttributes, PosRequest, ResponseStdAttributes};
pub use writer::{DialectIndex, Encode, ToValue, Writer};
// The codec derives of the generated types, beside the traits they implement.
pub use ota_codec_derive::{Decode, Encode, MessageDefault};

/// The OpenTravel namespace every element of every message is in.
pub const OTA_NAMESPACE: &str = "http://www.opentravel.org/OTA/2003/05";

/// The XML Schema instance namespace (`xsi:schemaLocation` is accepted and not kept).
pub const XSI_NAMESPACE: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// The most elements (and other nodes) a document may have: far above any real message,
/// low enough that a hostile document cannot exhaust memory.
pub const MAX_NODES: u32 = 5_000_000;

/// One operation of the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operation {
    /// The endpoint path, e.g. `/bookmodify`.
    pub path: &'static str,
    /// The request's root element.
    pub request_root: &'static str,
    /// The request `Version` the service expects.
    pub version: &'static str,
    /// The root element of the response.
    pub response_root: Option<&'static str>,
    /// Who sends the request.
    pub side: Side,
    /// Where the request carries its point of sale (the requestor's credentials), as a path of
    /// element names below the root (`POS`, `TPA_Extensions/POS`); `None` when it has none.
    /// The root implements [`PosRequest`] when it has one.
    pub credentials: Option<&'static str>,
    /// The spec file that declares the request and its response (`hotel_res.xsd`), relative to
    /// `spec/`.
    pub schema: &'static str,
}

/// Who sends a request (`gen:message side=".."` in the spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// A distribution partner sends it to the service.
    Demand,
    /// A hotel's system (a supplier) sends it to the service, for its own hotels.
    Supply,
    /// The service sends it to a hotel's system (at the receiver's endpoint).
    Outbound,
}

/// An attribute or element whose value is personal data (`gen:personal` in the spec), masked
/// in logs: see [`crate::PERSONAL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Personal {
    /// Its name (local, in the message namespace).
    pub name: &'static str,
    /// True for an attribute, false for an element (whose text is the value).
    pub attribute: bool,
    /// The value that stands for a masked one: a valid value of the field's type, so that a
    /// masked message still decodes.
    pub mask: &'static str,
}

/// A message root: knows its element name, its `Version` and its schema table.
pub trait Message: Decode + Encode + Sized {
    /// The root element name.
    const ROOT: &'static str;
    /// The `Version` the service expects.
    const VERSION: &'static str;
    /// The root attribute that carries the message version (`Version`), if any: a value of the
    /// wrong form there is a [`DecodeErrorKind::InvalidVersion`].
    const VERSION_ATTRIBUTE: Option<&'static str> = None;

    /// The schema table the strict checker uses.
    fn schema() -> &'static schema::ComplexDesc;

    /// Decodes a message with every strict check, in one pass over a roxmltree document
    /// (see [`decode_document`]).
    fn from_xml(xml: &str) -> Result<Self, DecodeError> {
        let doc = parse_document(xml)?;
        decode_document(&doc)
    }

    /// Encodes the message as compact XML with an XML declaration.
    fn to_xml(&self) -> Result<String, EncodeError> {
        encode(self, false)
    }

    /// Encodes the message as indented XML with an XML declaration.
    fn to_xml_pretty(&self) -> Result<String, EncodeError> {
        encode(self, true)
    }

    /// Encodes the message as compact XML in a dialect (the generated `Dialect`; its default
    /// writes what [`Message::to_xml`] writes).
    fn to_xml_in(&self, dialect: impl Into<DialectIndex>) -> Result<String, EncodeError> {
        encode_in(self, false, dialect.into())
    }
}

/// A request message: also knows its endpoint and its response type.
pub trait Request: Message {
    /// The endpoint path, e.g. `/bookmodify`.
    const PATH: &'static str;
    /// The response message of this operation.
    type Response: Response;
}

/// A response message: either a success (with its payload and optional warnings) or an error
/// answer (errors only, no payload). Build the first with the type's own `success(..)` and
/// `with_warnings(..)`, the second with [`Response::from_errors`].
pub trait Response: Message + Default {
    /// The `Errors` element type.
    type Errors;
    /// The `Warnings` element type (`()` when the response has none).
    type Warnings;

    /// True when the answer carries `Success`.
    fn is_success(&self) -> bool;

    /// The errors of an error answer.
    fn errors(&self) -> Option<&Self::Errors>;

    /// The warnings of a success answer.
    fn warnings(&self) -> Option<&Self::Warnings>;

    /// The answer's place for warnings; `None` when the response has none.
    fn warnings_mut(&mut self) -> Option<&mut Option<Self::Warnings>>;

    /// An error answer: the errors, and neither `Success` nor payload.
    fn from_errors(errors: Self::Errors) -> Self;
}

/// Parses XML with roxmltree. Refuses DOCTYPEs, and documents over the [`bounds`] (before
/// parsing them); errors carry line and column.
pub fn parse_document(xml: &str) -> Result<Document<'_>, DecodeError> {
    if let Err(over) = bounds::check(xml) {
        let (line, column) = text_pos(xml, over.at);
        return Err(DecodeError::new(
            DecodeErrorKind::Malformed(format!("{} at {line}:{column}", over.what)),
            "",
            line,
            column,
        ));
    }
    let opts = ParsingOptions { allow_dtd: false, nodes_limit: MAX_NODES, ..ParsingOptions::default() };
    Document::parse_with_options(xml, opts).map_err(|e| {
        // roxmltree counts only line feeds as line breaks; go back to the byte offset.
        let reported = e.pos();
        let mut at = offset_of(xml, reported);
        let kind = match e {
            roxmltree::Error::DtdDetected => {
                // roxmltree reports no position for this one: point at the DOCTYPE itself.
                if let Some(doctype) = xml.find("<!DOCTYPE") {
                    at = doctype;
                }
                DecodeErrorKind::Doctype
            }
            roxmltree::Error::UnexpectedEndOfStream | roxmltree::Error::UnclosedRootNode => {
                at = xml.len();
                DecodeErrorKind::Malformed(e.to_string())
            }
            other => DecodeErrorKind::Malformed(other.to_string()),
        };
        let (line, column) = text_pos(xml, at);
        let kind = match kind {
            // The message names roxmltree's position: name ours.
            DecodeErrorKind::Malformed(m) => {
                DecodeErrorKind::Malformed(m.replace(&format!(" at {reported}"), &format!(" at {line}:{column}")))
            }
            k => k,
        };
        DecodeError::new(kind, "", line, column)
    })
}

/// Line and column (1-based; columns in characters) of a byte offset. A line break is a line
/// feed, a carriage return followed by a line feed, or a carriage return alone (as in files
/// with old Mac line ends, like some official OTA samples): XML reads all three as one.
pub(crate) fn text_pos(xml: &str, at: usize) -> (u32, u32) {
    let mut at = at.min(xml.len());
    while !xml.is_char_boundary(at) {
        at -= 1;
    }
    let before = &xml.as_bytes()[..at];
    let (mut line, mut line_start) = (1u32, 0);
    for (i, &b) in before.iter().enumerate() {
        match b {
            b'\r' => {
                line += 1;
                line_start = i + 1;
            }
            b'\n' => {
                if i == 0 || before[i - 1] != b'\r' {
                    line += 1;
                }
                line_start = i + 1;
            }
            _ => {}
        }
    }
    let column = xml[line_start..at].chars().count() as u32 + 1;
    (line, column)
}

/// The byte offset of a roxmltree position (lines counted at line feeds only).
fn offset_of(xml: &str, pos: roxmltree::TextPos) -> usize {
    let mut start = 0;
    for _ in 1..pos.row {
        match xml[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return xml.len(),
        }
    }
    xml[start..].char_indices().nth(pos.col.saturating_sub(1) as usize).map_or(xml.len(), |(i, _)| start + i)
}

/// Checks the root element's name and namespace.
fn check_root<T: Message>(doc: &Document) -> Result<(), DecodeError> {
    let root = doc.root_element();
    let (line, column) = text_pos(doc.input_text(), root.range().start);
    let at = |kind| DecodeError::new(kind, format!("/{}", root.tag_name().name()), line, column);
    if root.tag_name().name() != T::ROOT {
        return Err(at(DecodeErrorKind::WrongRoot {
            expected: vec![T::ROOT],
            found: root.tag_name().name().to_string(),
        }));
    }
    if root.tag_name().namespace() != Some(OTA_NAMESPACE) {
        return Err(at(DecodeErrorKind::WrongNamespace {
            element: root.tag_name().name().to_string(),
            found: root.tag_name().namespace().map(str::to_string),
        }));
    }
    Ok(())
}

/// Decodes a parsed document as `T` with the generated decoder: the root's name and namespace,
/// then every element, attribute and value, checked and bound in one pass. Every problem is
/// reported (up to [`MAX_ERRORS`]), not only the first.
pub fn decode_document<T: Message>(doc: &Document) -> Result<T, DecodeError> {
    decode_document_with(doc, Strictness::Strict).map(|d| d.message)
}

/// Decodes a parsed document as `T`, holding it to the spec as `strictness` says: with
/// [`Strictness::Official`], what OpenTravel 2016B allows beyond the spec is taken and listed
/// in [`Decoded::unread`].
pub fn decode_document_with<T: Message>(doc: &Document, strictness: Strictness) -> Result<Decoded<T>, DecodeError> {
    check_root::<T>(doc)?;
    let mut cx = Cx::with(doc, strictness);
    match T::decode(doc.root_element(), &mut cx) {
        Ok(message) if cx.mark() == 0 => Ok(Decoded { message, unread: cx.take_unread() }),
        _ => Err(cx.into_error()),
    }
}

/// Decodes with the same strict checks, but binds with yaserde (the derives every generated
/// type also carries). Slower than [`Message::from_xml`]; kept for callers and tests that want
/// yaserde's binding.
pub fn decode_with_yaserde<T: Message + YaDeserialize>(xml: &str) -> Result<T, DecodeError> {
    let doc = parse_document(xml)?;
    check_root::<T>(&doc)?;
    let mut cx = Cx::new(&doc);
    let version = T::VERSION_ATTRIBUTE.map(|a| (a, T::VERSION));
    let _ = check::check_complex(&mut cx, doc.root_element(), T::schema(), version);
    if cx.mark() > 0 {
        return Err(cx.into_error());
    }
    let root = doc.root_element();
    let (line, column) = text_pos(xml, root.range().start);
    bind(xml).map_err(|e| DecodeError::new(DecodeErrorKind::Bind(e.to_string()), format!("/{}", T::ROOT), line, column))
}

/// Runs yaserde over checked text, keeping whitespace in text content (yaserde's own
/// `from_str` trims it, which would change values).
fn bind<T: YaDeserialize>(xml: &str) -> Result<T, yaserde::Error> {
    let config = xml::ParserConfig::new()
        .trim_whitespace(false)
        .whitespace_to_characters(true)
        .cdata_to_characters(true)
        .ignore_comments(true)
        .coalesce_characters(true)
        .override_encoding(Some(xml::Encoding::Utf8))
        .ignore_invalid_encoding_declarations(true);
    let reader = xml::EventReader::new_with_config(xml.as_bytes(), config);
    T::deserialize(&mut yaserde::de::Deserializer::new(reader))
}

/// Encodes a message with its generated encoder: XML declaration, `xmlns` once on the root,
/// `<X/>` for empty elements; indented when `pretty`.
pub fn encode<T: Message>(value: &T, pretty: bool) -> Result<String, EncodeError> {
    encode_in(value, pretty, DialectIndex::default())
}

/// [`encode`] in a dialect.
pub fn encode_in<T: Message>(value: &T, pretty: bool, dialect: DialectIndex) -> Result<String, EncodeError> {
    // Most answers fit without growing the buffer (a hotel availability of 11 offers is 11 KB).
    let mut w = Writer::new(pretty, 16 * 1024).in_dialect(dialect);
    value.encode(&mut w, T::ROOT);
    w.finish()
}

/// Encodes a value with yaserde (the derives every generated type also carries); the generated
/// encoder writes the same bytes, faster, and escapes tabs and carriage returns that this path
/// leaves raw.
pub fn encode_with_yaserde<T: YaSerialize>(value: &T, pretty: bool) -> Result<String, EncodeError> {
    let config =
        xml::EmitterConfig::new().write_document_declaration(true).pad_self_closing(false).perform_indent(pretty);
    let mut ser = yaserde::ser::Serializer::new(xml::EventWriter::new_with_config(Vec::new(), config));
    value.serialize(&mut ser).map_err(|e| EncodeError(e.to_string()))?;
    String::from_utf8(ser.into_inner()).map_err(|e| EncodeError(e.to_string()))
}

/// The default of text fields (used by the generated `#[yaserde(default = ..)]`).
pub fn empty_string() -> String {
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_are_lf_crlf_or_cr() {
        for (xml, at, pos) in [
            ("ab\ncd", 4, (2, 2)),
            ("ab\r\ncd", 5, (2, 2)),
            ("ab\rcd", 4, (2, 2)),
            ("a\r\r\nb\n\rc", 6, (4, 1)),
            ("a\r\r\nb\n\rc", 7, (5, 1)),
            ("é\rü\rx", 6, (3, 1)),
            ("é\rüx", 5, (2, 2)),
            ("abc", 99, (1, 4)),
        ] {
            assert_eq!(text_pos(xml, at), pos, "{xml:?} at {at}");
        }
        // In the middle of a character: its start.
        assert_eq!(text_pos("xé", 2), (1, 2));
    }

    #[test]
    fn roxmltree_positions_map_back_to_offsets() {
        let xml = "a\rb\nc\r\nd";
        assert_eq!(offset_of(xml, roxmltree::TextPos::new(1, 3)), 2);
        assert_eq!(offset_of(xml, roxmltree::TextPos::new(2, 1)), 4);
        assert_eq!(offset_of(xml, roxmltree::TextPos::new(3, 1)), 7);
        assert_eq!(offset_of(xml, roxmltree::TextPos::new(9, 1)), xml.len());
    }
}
