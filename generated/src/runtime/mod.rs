//! The hand-written runtime of the generated types: scalar types, the strict checker, the
//! [`Message`] trait and the decode/encode functions.
//!
//! Decoding is strict and lossless: [`parse_document`] parses with roxmltree (DOCTYPEs refused),
//! the checker walks the document beside the generated schema tables, and only a document that
//! passes is bound to the Rust types by yaserde. Encoding writes through yaserde.

mod check;
mod cx;
mod error;
mod scalar;
pub mod schema;
mod std_attributes;
mod writer;

use roxmltree::{Document, ParsingOptions};
use yaserde::{YaDeserialize, YaSerialize};

pub use check::check_simple;
pub use cx::{Children, Cx, Decode, Failed, FromValue, MAX_ERRORS, Next};
pub use error::{DecodeError, DecodeErrorKind, EncodeError, UnknownValue};
pub use roxmltree::Node;
pub use scalar::{Date, DateTime, Decimal, ScalarError, Zone};
pub use std_attributes::{PayloadStdAttributes, PosRequest, ResponseStdAttributes};
pub use writer::{Encode, ToValue, Writer};

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
}

/// A message root: knows its element name, its `Version` and its schema table.
pub trait Message: Decode + Encode + YaSerialize + YaDeserialize + Sized {
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

    /// An error answer: the errors, and neither `Success` nor payload.
    fn from_errors(errors: Self::Errors) -> Self;
}

/// Parses XML with roxmltree. Refuses DOCTYPEs; errors carry line and column.
pub fn parse_document(xml: &str) -> Result<Document<'_>, DecodeError> {
    let opts = ParsingOptions { allow_dtd: false, nodes_limit: MAX_NODES, ..ParsingOptions::default() };
    Document::parse_with_options(xml, opts).map_err(|e| {
        let mut pos = e.pos();
        let kind = match e {
            roxmltree::Error::DtdDetected => {
                // roxmltree reports no position for this one: point at the DOCTYPE itself.
                if let Some(at) = xml.find("<!DOCTYPE") {
                    pos = text_pos(xml, at);
                }
                DecodeErrorKind::Doctype
            }
            roxmltree::Error::UnexpectedEndOfStream | roxmltree::Error::UnclosedRootNode => {
                pos = text_pos(xml, xml.len());
                DecodeErrorKind::Malformed(e.to_string())
            }
            other => DecodeErrorKind::Malformed(other.to_string()),
        };
        DecodeError::new(kind, "", pos.row, pos.col)
    })
}

/// Line and column (1-based, in characters) of a byte offset.
fn text_pos(xml: &str, at: usize) -> roxmltree::TextPos {
    let before = xml.get(..at).unwrap_or(xml);
    let row = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    roxmltree::TextPos::new(row as u32, col as u32)
}

/// Checks the root element's name and namespace.
fn check_root<T: Message>(doc: &Document) -> Result<(), DecodeError> {
    let root = doc.root_element();
    let pos = doc.text_pos_at(root.range().start);
    let at = |kind| DecodeError::new(kind, format!("/{}", root.tag_name().name()), pos.row, pos.col);
    if root.tag_name().name() != T::ROOT {
        return Err(at(DecodeErrorKind::WrongRoot { expected: vec![T::ROOT], found: root.tag_name().name().to_string() }));
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
    check_root::<T>(doc)?;
    let mut cx = Cx::new(doc);
    match T::decode(doc.root_element(), &mut cx) {
        Ok(value) if cx.mark() == 0 => Ok(value),
        _ => Err(cx.into_error()),
    }
}

/// Decodes with the same strict checks, but binds with yaserde (the derives every generated
/// type also carries). Slower than [`Message::from_xml`]; kept for callers and tests that want
/// yaserde's binding.
pub fn decode_with_yaserde<T: Message>(xml: &str) -> Result<T, DecodeError> {
    let doc = parse_document(xml)?;
    check_root::<T>(&doc)?;
    let mut cx = Cx::new(&doc);
    let version = T::VERSION_ATTRIBUTE.map(|a| (a, T::VERSION));
    let _ = check::check_complex(&mut cx, doc.root_element(), T::schema(), version);
    if cx.mark() > 0 {
        return Err(cx.into_error());
    }
    let root = doc.root_element();
    let pos = doc.text_pos_at(root.range().start);
    bind(xml).map_err(|e| DecodeError::new(DecodeErrorKind::Bind(e.to_string()), format!("/{}", T::ROOT), pos.row, pos.col))
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
    let mut w = Writer::new(pretty, 4096);
    value.encode(&mut w, T::ROOT);
    w.finish()
}

/// Encodes a value with yaserde (the derives every generated type also carries); the generated
/// encoder writes the same bytes, faster, and escapes tabs and carriage returns that this path
/// leaves raw.
pub fn encode_with_yaserde<T: YaSerialize>(value: &T, pretty: bool) -> Result<String, EncodeError> {
    let config = xml::EmitterConfig::new()
        .write_document_declaration(true)
        .pad_self_closing(false)
        .perform_indent(pretty);
    let mut ser = yaserde::ser::Serializer::new(xml::EventWriter::new_with_config(Vec::new(), config));
    value.serialize(&mut ser).map_err(|e| EncodeError(e.to_string()))?;
    String::from_utf8(ser.into_inner()).map_err(|e| EncodeError(e.to_string()))
}

/// The default of text fields (used by the generated `#[yaserde(default = ..)]`).
pub fn empty_string() -> String {
    String::new()
}
