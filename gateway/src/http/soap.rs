//! SOAP 1.1 on the operation paths: an OTA message in the `Body` of a `soap:Envelope` is
//! answered with the OTA answer in an envelope.
//!
//! - A request whose root is a SOAP 1.1 `Envelope` is one (a `SOAPAction` header is taken and
//!   not needed). The `Body` holds one OTA request; it is read as the plain request would be,
//!   with the namespaces its envelope declares.
//! - A WS-Security `UsernameToken` (`Header/wsse:Security/wsse:UsernameToken`, a plain-text
//!   `Password`) stands for the POS when the OTA message has none: `Username` is the requestor's
//!   `ID`, `Password` its password, and the `ID_Context` is the requestor's own, as the gateway
//!   has it registered (an unknown `Username` fails authentication like a wrong password).
//! - Envelope-level failures are SOAP Faults (HTTP 500): a SOAP 1.2 envelope (`VersionMismatch`),
//!   a header block the gateway does not understand with `mustUnderstand="1"`
//!   (`MustUnderstand`), no `Body`, or a `Body` that does not hold the path's OTA request
//!   (`Client`). Everything about the OTA message itself, its schema included, is answered as
//!   an OTA answer with `Errors`, inside the envelope (HTTP 200).
//!
//! `GET /wsdl` publishes a WSDL 1.1 description (document/literal, one operation per path the
//! gateway serves, the messages' schemas at `GET /wsdl/<file>.xsd`) for SOAP toolkits. The
//! schemas are the spec's own, with one difference: a request's `POS` is optional there, since
//! a `UsernameToken` may stand for it ([`served_schema`]).

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use roxmltree::{Document, Node};

use ota_messages::OPERATIONS;
use ota_messages::runtime::{Operation, Side};

/// The SOAP 1.1 envelope namespace.
pub const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// The SOAP 1.2 envelope namespace (refused: `VersionMismatch`).
const SOAP12: &str = "http://www.w3.org/2003/05/soap-envelope";
/// The WS-Security 1.0 namespace of `Security` and `UsernameToken`.
const WSSE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
/// The OTA namespace.
const OTA: &str = "http://www.opentravel.org/OTA/2003/05";
/// The Content-Type of SOAP 1.1 answers.
pub const SOAP_XML: &str = "text/xml; charset=utf-8";

/// The OTA request of a SOAP envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped {
    /// The OTA message, as text that reads alone (with the namespaces its envelope declared).
    pub message: String,
    /// The WS-Security `UsernameToken`: (`Username`, `Password`).
    pub username_token: Option<(String, String)>,
}

/// An envelope-level failure: a SOAP Fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// `faultcode` (in the envelope namespace): `VersionMismatch`, `MustUnderstand`, `Client`.
    pub code: &'static str,
    /// `faultstring`.
    pub text: String,
}

impl Fault {
    fn client(text: impl Into<String>) -> Self {
        Fault { code: "Client", text: text.into() }
    }
}

/// The OTA request of a SOAP envelope, or `None` when the document is not a SOAP envelope (or
/// not XML: the plain path reports that).
pub fn unwrap(text: &str, op: &Operation) -> Option<Result<Unwrapped, Fault>> {
    // A look at the first start tag first: a plain request is not parsed twice.
    if !first_tag_is_envelope(text) {
        return None;
    }
    let doc = ota_messages::runtime::parse_document(text).ok()?;
    let root = doc.root_element();
    if root.tag_name().name() != "Envelope" {
        return None;
    }
    match root.tag_name().namespace() {
        Some(SOAP11) => Some(read_envelope(&doc, text, op)),
        Some(SOAP12) => Some(Err(Fault {
            code: "VersionMismatch",
            text: "SOAP 1.2 is not supported: send a SOAP 1.1 envelope.".into(),
        })),
        _ => None,
    }
}

/// True when the first start tag of `text` (after the XML declaration, comments and processing
/// instructions) is an `Envelope`, with any prefix.
fn first_tag_is_envelope(text: &str) -> bool {
    let mut rest = text;
    loop {
        let Some(at) = rest.find('<') else { return false };
        rest = &rest[at + 1..];
        if rest.starts_with('?') || rest.starts_with('!') {
            continue;
        }
        let name = rest.split(|c: char| c.is_whitespace() || c == '>' || c == '/').next().unwrap_or_default();
        return name.rsplit(':').next() == Some("Envelope");
    }
}

fn read_envelope(doc: &Document, text: &str, op: &Operation) -> Result<Unwrapped, Fault> {
    let root = doc.root_element();
    let children: Vec<Node> = root.children().filter(Node::is_element).collect();
    let in_soap = |n: &Node, name: &str| n.tag_name().namespace() == Some(SOAP11) && n.tag_name().name() == name;
    let header = children.iter().find(|n| in_soap(n, "Header"));
    let body =
        children.iter().find(|n| in_soap(n, "Body")).ok_or_else(|| Fault::client("The envelope has no Body."))?;
    let mut username_token = None;
    if let Some(header) = header {
        for block in header.children().filter(Node::is_element) {
            let security = block.tag_name().namespace() == Some(WSSE) && block.tag_name().name() == "Security";
            let must_understand = block.attributes().any(|a| {
                a.namespace() == Some(SOAP11)
                    && a.name() == "mustUnderstand"
                    && matches!(a.value().trim(), "1" | "true")
            });
            if security {
                // A signature, an encrypted key or any other token the gateway does not check
                // is never taken as if it had been checked.
                if must_understand
                    && let Some(other) = block.children().filter(Node::is_element).find(|n| !understood_in_security(n))
                {
                    return Err(Fault {
                        code: "MustUnderstand",
                        text: format!(
                            "The Security header's {{{}}}{} is not supported: the gateway takes a UsernameToken with a plain-text password (and a Timestamp) only.",
                            other.tag_name().namespace().unwrap_or(""),
                            other.tag_name().name()
                        ),
                    });
                }
                username_token = token(block);
            } else if must_understand {
                return Err(Fault {
                    code: "MustUnderstand",
                    text: format!(
                        "The header block {{{}}}{} is not understood.",
                        block.tag_name().namespace().unwrap_or(""),
                        block.tag_name().name()
                    ),
                });
            }
        }
    }
    let messages: Vec<Node> = body.children().filter(Node::is_element).collect();
    let [message] = messages.as_slice() else {
        return Err(Fault::client(format!(
            "The Body holds {} elements; it must hold one, the {} request.",
            messages.len(),
            op.request_root
        )));
    };
    if message.tag_name().namespace() != Some(OTA) || message.tag_name().name() != op.request_root {
        return Err(Fault::client(format!(
            "{} takes <{}> in the Body; it holds <{}>.",
            op.path,
            op.request_root,
            message.tag_name().name()
        )));
    }
    Ok(Unwrapped { message: standalone(message, text), username_token })
}

/// The WS-Security utility namespace (of `Timestamp`).
const WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

/// True for what of a `Security` header block the gateway understands: the `UsernameToken`
/// and a `Timestamp` (which it does not need).
fn understood_in_security(n: &Node) -> bool {
    matches!((n.tag_name().namespace(), n.tag_name().name()), (Some(WSSE), "UsernameToken") | (Some(WSU), "Timestamp"))
}

/// `UsernameToken`'s `Username` and `Password` (plain text) in a `Security` header block.
fn token(security: Node) -> Option<(String, String)> {
    let token = security
        .children()
        .find(|n| n.is_element() && n.tag_name().namespace() == Some(WSSE) && n.tag_name().name() == "UsernameToken")?;
    let text_of = |name: &str| {
        token
            .children()
            .find(|n| n.is_element() && n.tag_name().namespace() == Some(WSSE) && n.tag_name().name() == name)
            .map(|n| n.children().filter(Node::is_text).filter_map(|t| t.text()).collect::<String>())
    };
    Some((text_of("Username")?.trim().to_string(), text_of("Password")?))
}

/// The text of `node` as a document of its own: its source, with the namespace declarations
/// in scope that it does not make itself added to its start tag.
fn standalone(node: &Node, text: &str) -> String {
    let source = &text[node.range()];
    // Declarations written on the element itself.
    let start_tag_end = source.find('>').unwrap_or(source.len());
    let start_tag = &source[..start_tag_end];
    let mut added = String::new();
    for ns in node.namespaces().filter(|ns| ns.name() != Some("xml")) {
        let attribute = ns.name().map_or_else(|| "xmlns".to_string(), |prefix| format!("xmlns:{prefix}"));
        if !start_tag.contains(&format!("{attribute}=")) {
            added.push_str(&format!(r#" {attribute}="{}""#, escape(ns.uri())));
        }
    }
    // After the qualified name of the start tag.
    let name_end =
        source[1..].find(|c: char| c.is_whitespace() || c == '>' || c == '/').map_or(source.len(), |i| i + 1);
    format!("{}{}{}", &source[..name_end], added, &source[name_end..])
}

/// The `ID_Context` given for a `UsernameToken` whose `Username` names no requestor: any
/// non-empty value, as no known requestor is checked with it.
pub const UNKNOWN_CONTEXT: &str = "-";

/// Adds the POS a `UsernameToken` stands for to an OTA message that has none: the requestor's
/// `ID` and registered `ID_Context` (`context`; [`UNKNOWN_CONTEXT`] when it is not known), and
/// the password.
pub fn with_pos(message: &str, root: &str, (username, password): (&str, &str), context: &str) -> String {
    // The prefix the message writes its own elements with, if any.
    let prefix = message.strip_prefix('<').and_then(|m| {
        m.split_once(':').filter(|(p, rest)| !p.contains(char::is_whitespace) && rest.starts_with(root)).map(|(p, _)| p)
    });
    let q = |name: &str| prefix.map_or(name.to_string(), |p| format!("{p}:{name}"));
    let pos = format!(
        r#"<{pos}><{src}><{rid} Type="22" ID="{id}" ID_Context="{ctx}"/></{src}><{src}><{rid} Type="88" ID="{id}" MessagePassword="{pw}"/></{src}></{pos}>"#,
        pos = q("POS"),
        src = q("Source"),
        rid = q("RequestorID"),
        id = escape(username),
        ctx = escape(context),
        pw = escape(password),
    );
    // Right after the root's start tag (POS comes first in every OTA request); a root written
    // empty gets its children.
    let Some(end) = message.find('>') else { return message.to_string() };
    if message[..end].ends_with('/') {
        let closing = format!("</{}>", q(root));
        return format!("{}>{pos}{closing}", &message[..end - 1]);
    }
    format!("{}{pos}{}", &message[..=end], &message[end + 1..])
}

/// True when an OTA message carries a POS (its own, before any WS-Security one is added).
pub fn has_pos(message: &str) -> bool {
    ota_messages::runtime::parse_document(message)
        .is_ok_and(|doc| doc.root_element().children().any(|n| n.is_element() && n.tag_name().name() == "POS"))
}

/// `text` escaped for an attribute value or element text.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// An OTA answer (an XML document) in a SOAP 1.1 envelope.
pub fn envelope(answer: &str) -> String {
    let answer = answer.trim_start();
    let answer =
        if answer.starts_with("<?xml") { answer.split_once("?>").map_or(answer, |(_, rest)| rest) } else { answer };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="{SOAP11}"><soap:Body>{answer}</soap:Body></soap:Envelope>"#
    )
}

/// A SOAP Fault answer (HTTP 500, as SOAP 1.1 has it).
pub fn fault_response(fault: &Fault) -> Response {
    let text = escape(&fault.text);
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="{SOAP11}"><soap:Body><soap:Fault><faultcode>soap:{}</faultcode><faultstring>{text}</faultstring></soap:Fault></soap:Body></soap:Envelope>"#,
        fault.code
    );
    let mut response = (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, SOAP_XML)], xml).into_response();
    response.extensions_mut().insert(ClientFault);
    response
}

/// Marks a SOAP Fault's answer: HTTP 500 as SOAP 1.1 wants, but the client's doing, so not
/// logged as the gateway's error.
#[derive(Debug, Clone, Copy)]
pub struct ClientFault;

/// A plain answer put in an envelope: its body (an OTA document) wrapped, as `text/xml`.
pub async fn wrap_response(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response();
    };
    let text = String::from_utf8_lossy(&bytes);
    parts.headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static(SOAP_XML));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(envelope(&text)))
}

/// The spec's schema files, served under `/wsdl/<file>` for the WSDL's imports.
pub const SCHEMAS: &[(&str, &str)] = &[
    ("common.xsd", include_str!("../../../spec/common.xsd")),
    ("booking_read.xsd", include_str!("../../../spec/booking_read.xsd")),
    ("cancel.xsd", include_str!("../../../spec/cancel.xsd")),
    ("hotel_avail.xsd", include_str!("../../../spec/hotel_avail.xsd")),
    ("hotel_descriptive_info.xsd", include_str!("../../../spec/hotel_descriptive_info.xsd")),
    ("hotel_res.xsd", include_str!("../../../spec/hotel_res.xsd")),
    ("hotel_res_modify.xsd", include_str!("../../../spec/hotel_res_modify.xsd")),
    ("product_descriptive_info.xsd", include_str!("../../../spec/product_descriptive_info.xsd")),
    ("tour_activity_avail.xsd", include_str!("../../../spec/tour_activity_avail.xsd")),
    ("tour_activity_book.xsd", include_str!("../../../spec/tour_activity_book.xsd")),
    ("tour_activity_search.xsd", include_str!("../../../spec/tour_activity_search.xsd")),
    // supply side (#21): the messages are in the WSDL; handled by the supply handlers.
    ("hotel_avail_notif.xsd", include_str!("../../../spec/hotel_avail_notif.xsd")),
    ("hotel_inv_count_notif.xsd", include_str!("../../../spec/hotel_inv_count_notif.xsd")),
    ("hotel_rate_amount_notif.xsd", include_str!("../../../spec/hotel_rate_amount_notif.xsd")),
    ("hotel_res_notif.xsd", include_str!("../../../spec/hotel_res_notif.xsd")),
    ("notif_report.xsd", include_str!("../../../spec/notif_report.xsd")),
];

/// A schema file of [`SCHEMAS`] as `GET /wsdl/<file>` serves it: a request root's `POS` is
/// optional (`minOccurs="0"`), so that a toolkit that validates what it sends lets a client
/// give a `UsernameToken` alone. `None` for a file that is not one of them.
pub fn served_schema(file: &str) -> Option<String> {
    let (_, xsd) = SCHEMAS.iter().find(|(name, _)| *name == file)?;
    Some(xsd.replace(r#"<xs:element name="POS" type="POS">"#, r#"<xs:element name="POS" type="POS" minOccurs="0">"#))
}

/// The operations a SOAP client may call: every one but those the gateway sends itself.
fn served() -> impl Iterator<Item = &'static Operation> {
    OPERATIONS.iter().filter(|op| op.side != Side::Outbound)
}

/// The WSDL 1.1 description: one document/literal operation per path the gateway serves (its
/// `soapAction` the path), at `location` (the gateway's base URL as the client reached it).
pub fn wsdl(location: &str) -> String {
    let mut imports = String::new();
    for (file, _) in SCHEMAS.iter().filter(|(f, _)| *f != "common.xsd") {
        imports.push_str(&format!(r#"<xsd:import namespace="{OTA}" schemaLocation="wsdl/{file}"/>"#));
    }
    // One port type, binding and port per operation, so that each port posts to its own path.
    let (mut messages, mut port_types, mut bindings, mut ports) =
        (String::new(), String::new(), String::new(), String::new());
    for op in served() {
        let Some(response_root) = op.response_root else { continue };
        let (name, path, request_root) =
            (op.request_root.trim_start_matches("OTA_").trim_end_matches("RQ"), op.path, op.request_root);
        messages.push_str(&format!(
            r#"<wsdl:message name="{name}Request"><wsdl:part name="body" element="ota:{request_root}"/></wsdl:message><wsdl:message name="{name}Response"><wsdl:part name="body" element="ota:{response_root}"/></wsdl:message>"#
        ));
        port_types.push_str(&format!(
            r#"<wsdl:portType name="{name}PortType"><wsdl:operation name="{name}"><wsdl:input message="tns:{name}Request"/><wsdl:output message="tns:{name}Response"/></wsdl:operation></wsdl:portType>"#
        ));
        bindings.push_str(&format!(
            r#"<wsdl:binding name="{name}Binding" type="tns:{name}PortType"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" style="document"/><wsdl:operation name="{name}"><soap:operation soapAction="{path}" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation></wsdl:binding>"#
        ));
        ports.push_str(&format!(r#"<wsdl:port name="{name}Port" binding="tns:{name}Binding"><soap:address location="{location}{path}"/></wsdl:port>"#));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ota="{OTA}" xmlns:tns="urn:ota-gateway" targetNamespace="urn:ota-gateway" name="OtaGateway"><wsdl:types><xsd:schema targetNamespace="urn:ota-gateway">{imports}</xsd:schema></wsdl:types>{messages}{port_types}{bindings}<wsdl:service name="OtaGateway">{ports}</wsdl:service></wsdl:definitions>"#
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The files served for the WSDL's imports are `common.xsd` and the schema file of every
    /// operation of the generated table, no more.
    #[test]
    fn the_schemas_are_the_operations_files() {
        let mut listed: Vec<&str> = SCHEMAS.iter().map(|(f, _)| *f).collect();
        let mut expected: Vec<&str> = OPERATIONS.iter().map(|op| op.schema).chain(["common.xsd"]).collect();
        listed.sort_unstable();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(listed, expected);
    }

    fn read_op() -> &'static Operation {
        OPERATIONS.iter().find(|o| o.path == "/bookread").unwrap()
    }

    #[test]
    fn the_body_reads_alone_with_the_envelopes_namespaces() {
        let xml = format!(
            r#"<s:Envelope xmlns:s="{SOAP11}" xmlns:o="{OTA}"><s:Header><wsse:Security xmlns:wsse="{WSSE}"><wsse:UsernameToken><wsse:Username> DEMO </wsse:Username><wsse:Password>p&amp;w</wsse:Password></wsse:UsernameToken></wsse:Security></s:Header><s:Body><o:OTA_ReadRQ Version="2008.1"><o:UniqueID Type="36" ID="X" ID_Context="Client"/></o:OTA_ReadRQ></s:Body></s:Envelope>"#
        );
        let u = unwrap(&xml, read_op()).unwrap().unwrap();
        assert_eq!(u.username_token, Some(("DEMO".to_string(), "p&w".to_string())));
        assert!(
            u.message.starts_with("<o:OTA_ReadRQ ") && u.message.contains(&format!(r#" xmlns:o="{OTA}""#)),
            "{}",
            u.message
        );
        assert!(ota_messages::runtime::parse_document(&u.message).is_ok());
        assert!(!has_pos(&u.message));
        let with = with_pos(&u.message, "OTA_ReadRQ", ("DEMO", "p&w\""), "DEMO-DIST");
        assert!(has_pos(&with), "{with}");
        assert!(
            with.contains(r#"<o:POS><o:Source><o:RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/>"#),
            "{with}"
        );
        assert!(with.contains(r#"MessagePassword="p&amp;w&quot;""#), "{with}");
    }

    #[test]
    fn envelope_failures_are_faults() {
        assert_eq!(unwrap("<OTA_ReadRQ/>", read_op()), None, "not an envelope");
        assert_eq!(unwrap("not xml", read_op()), None);
        let v12 = format!(r#"<e:Envelope xmlns:e="{SOAP12}"><e:Body/></e:Envelope>"#);
        assert_eq!(unwrap(&v12, read_op()).unwrap().unwrap_err().code, "VersionMismatch");
        let no_body = format!(r#"<e:Envelope xmlns:e="{SOAP11}"/>"#);
        assert_eq!(unwrap(&no_body, read_op()).unwrap().unwrap_err().code, "Client");
        let other =
            format!(r#"<e:Envelope xmlns:e="{SOAP11}"><e:Body><OTA_CancelRQ xmlns="{OTA}"/></e:Body></e:Envelope>"#);
        assert!(unwrap(&other, read_op()).unwrap().unwrap_err().text.contains("OTA_CancelRQ"));
        let must = format!(
            r#"<e:Envelope xmlns:e="{SOAP11}"><e:Header><x:Trace xmlns:x="urn:x" e:mustUnderstand="1"/></e:Header><e:Body><OTA_ReadRQ xmlns="{OTA}"/></e:Body></e:Envelope>"#
        );
        assert_eq!(unwrap(&must, read_op()).unwrap().unwrap_err().code, "MustUnderstand");
        let fine = must.replace(r#" e:mustUnderstand="1""#, "");
        assert!(unwrap(&fine, read_op()).unwrap().is_ok());
    }

    #[test]
    fn answers_go_in_an_envelope() {
        let e = envelope(
            r#"<?xml version="1.0" encoding="UTF-8"?><OTA_ResRetrieveRS xmlns="http://www.opentravel.org/OTA/2003/05"/>"#,
        );
        assert!(e.contains("<soap:Body><OTA_ResRetrieveRS"), "{e}");
        assert!(ota_messages::runtime::parse_document(&e).is_ok());
    }

    #[test]
    fn the_wsdl_names_every_operation() {
        let w = wsdl("http://gw.example");
        let doc = ota_messages::runtime::parse_document(&w).unwrap();
        assert_eq!(doc.descendants().filter(|n| n.tag_name().name() == "port").count(), served().count());
        assert!(w.contains(r#"location="http://gw.example/bookread""#));
        // What the gateway sends to suppliers is not a port of its own.
        assert!(!w.contains("/hotelresnotif"), "{w}");
        assert!(served().count() < OPERATIONS.len());
    }

    /// Every request's POS is optional in the served schemas (a UsernameToken may stand for
    /// it); nothing else changes.
    #[test]
    fn the_served_schemas_make_the_pos_optional() {
        for (file, xsd) in SCHEMAS {
            let served = served_schema(file).unwrap();
            assert!(!served.contains(r#"<xs:element name="POS" type="POS">"#), "{file}");
            assert_eq!(served.replace(r#" minOccurs="0">"#, ">"), xsd.replace(r#" minOccurs="0">"#, ">"), "{file}");
        }
        assert!(served_schema("secret.txt").is_none());
    }
}
