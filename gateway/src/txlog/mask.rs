//! What the log stores of a body: passwords out, personal values masked, and what it is
//! searched by (`EchoToken`, booking references) read. Works on the XML text as received, by
//! byte ranges of a parse (roxmltree), so the stored body is the partner's own text but for the
//! values replaced; a plain request, a SOAP envelope and an answer alike.
//!
//! - **Passwords**, always: every `MessagePassword` attribute and the text of every
//!   `Password` element (WS-Security's `UsernameToken`) become empty, as does any attribute or
//!   element with `password` in its name.
//! - **Personal values**, when masking: every attribute and element of a name that
//!   [`ota_messages::PERSONAL`] lists (the spec's `gen:personal`) gets its mask, a valid value
//!   of its type (`***`, `1900-01-01`), so a masked request still decodes and can be replayed.
//! - **By what a value is** (the spec marks only what the gateway reads; clients put more
//!   where it does not look): card data, secrets and every SOAP header value always go (a card
//!   number keeps its last four digits, wherever it is: a Luhn-valid run of 13 to 19 digits);
//!   when masking, identity documents, contact details, special requests and comments, e-mail
//!   addresses, and the text of every element but codes and the service's own messages
//!   (`TEXT_KEPT`) are masked too. Who, what, the outcome and the references are kept.
//! - A body that is not UTF-8 or not well-formed XML is not stored: what it holds cannot be
//!   told, so it is replaced by a note of its length.
//! - Every parse here is the decoder's (`parse`): the same bounds on attributes per element,
//!   namespace declarations, nodes and depth, checked before parsing, and no DOCTYPE. A body
//!   over them (an attribute bomb: 100,000 attributes on one element is quadratic to parse) is
//!   refused in one pass over its bytes, never parsed (issue 28, H1).

use std::ops::Range;

use ota_messages::PERSONAL;

use crate::shared::cards::has_card_number;

/// The OTA namespace: a `Password` element in it is not WS-Security's.
const OTA: &str = "http://www.opentravel.org/OTA/2003/05";

/// The most references kept of one entry.
pub const MAX_REFERENCES: usize = 20;

/// The longest reference kept (longer ones are not references of this service).
const MAX_REFERENCE: usize = 128;

/// Parses a body the way the decoder does: bounded (see the module docs); `None` when it is not
/// UTF-8, not well-formed, or over a bound.
fn parse(body: &[u8]) -> Option<roxmltree::Document<'_>> {
    ota_messages::runtime::parse_document(std::str::from_utf8(body).ok()?).ok()
}

/// A body as the log stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The text to store.
    pub text: String,
    /// The `EchoToken` of its OTA message, if any.
    pub echo_token: Option<String>,
    /// The booking references in it (`UniqueID@ID`, `HotelReservationID@ResID_Value`).
    pub references: Vec<String>,
}

/// A body ready to store: passwords removed, personal values masked when `masked`.
pub fn prepare(body: &[u8], masked: bool) -> Prepared {
    let unusable = |why: &str| Prepared {
        text: format!("({why}: {} bytes, not stored)", body.len()),
        echo_token: None,
        references: Vec::new(),
    };
    if body.is_empty() {
        return Prepared { text: String::new(), echo_token: None, references: Vec::new() };
    }
    let Ok(text) = std::str::from_utf8(body) else { return unusable("not UTF-8 text") };
    let Some(doc) = parse(body) else { return unusable("not well-formed XML or over the decoder's bounds") };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut echo_token = None;
    let mut references: Vec<String> = Vec::new();
    for node in doc.descendants().filter(roxmltree::Node::is_element) {
        let name = node.tag_name().name();
        if echo_token.is_none()
            && let Some(t) = node.attribute("EchoToken").filter(|t| !has_card_number(t))
        {
            echo_token = Some(t.to_string());
        }
        let reference = match name {
            "UniqueID" => node.attribute("ID"),
            "HotelReservationID" => node.attribute("ResID_Value"),
            _ => None,
        };
        if let Some(r) =
            reference.map(str::trim).filter(|r| !r.is_empty() && r.len() <= MAX_REFERENCE && !has_card_number(r))
            && references.len() < MAX_REFERENCES
            && !references.iter().any(|x| x == r)
        {
            references.push(r.to_string());
        }
        let zone = Zone::of(node);
        for a in node.attributes() {
            if let Some(with) = attribute_mask(zone, a, masked) {
                edits.push((a.range_value(), with));
            }
        }
        let leaf = !node.children().any(|c| c.is_element());
        let value: String = node.children().filter(roxmltree::Node::is_text).filter_map(|t| t.text()).collect();
        if (leaf || is_password(name))
            && let Some(with) = text_mask(zone, name, &value, masked)
            && let Some(inner) = inner_range(text, node.range())
        {
            edits.push((inner, with));
        } else if !leaf && !value.trim().is_empty() {
            // Mixed content: each piece of text on its own.
            for t in node.children().filter(roxmltree::Node::is_text) {
                if let Some(with) = t.text().and_then(|v| text_mask(zone, name, v, masked)) {
                    edits.push((t.range(), with));
                }
            }
        }
    }
    Prepared { text: apply(text, edits.iter().map(|(r, v)| (r.clone(), v.as_str())).collect()), echo_token, references }
}

/// Where an element is, for what its values may be (each kind of zone by its ancestors, the
/// element itself included).
#[derive(Debug, Clone, Copy, Default)]
struct Zone {
    /// Within a `PaymentCard` (or any element of such a name: `CardNumber`, …): card data.
    card: bool,
    /// Within a SOAP `Header`: credentials and tokens.
    header: bool,
    /// Within an element that holds personal or free-text data by its purpose (identity
    /// documents, contact details, special requests, comments).
    personal: bool,
}

/// Elements whose whole content is personal or free text, whatever it is (case-insensitive).
const PERSONAL_ZONES: &[&str] = &[
    "verification",
    "document",
    "email",
    "telephone",
    "telephoneinfo",
    "address",
    "addressinfo",
    "custloyalty",
    "specialrequest",
    "specialrequests",
    "comment",
    "comments",
    "remark",
    "remarks",
    "profile",
    "customer",
];

impl Zone {
    fn of(node: roxmltree::Node) -> Zone {
        let mut zone = Zone::default();
        for a in node.ancestors().filter(roxmltree::Node::is_element) {
            let n = a.tag_name().name().to_ascii_lowercase();
            zone.card |= n == "paymentcard" || n == "cardnumber" || n == "bankacct";
            zone.header |= n == "header" && a.parent_element().is_some_and(|p| p.tag_name().name() == "Envelope");
            zone.personal |= PERSONAL_ZONES.contains(&n.as_str());
        }
        zone
    }
}

/// The text of elements kept when masking: codes, references, the service's own messages and
/// public content (anything else, free text or unknown, is masked).
const TEXT_KEPT: &[&str] = &[
    "Error",
    "Warning",
    "Region",
    "QualifierInfo",
    "ResGuestRPHs",
    "PricingType",
    "RefPoint",
    "Method",
    "CompanyName",
    "Description",
    "ShortDescription",
    "LongDescription",
    "DescriptiveText",
    "URL",
    "Username",
];

/// Attribute names that are secrets: never stored, masked or not (case-insensitive, parts of
/// the name).
const SECRET_PARTS: &[&str] = &["seriescode", "cvv", "cvc", "securitycode", "token", "secret", "bearer"];

/// Attribute names of card data other than the number: never stored (case-insensitive).
const CARD_DATA: &[&str] = &["expiredate", "expirydate", "effectivedate", "cardholdername", "issuenumber"];

/// Attribute names of personal values the spec does not mark (case-insensitive).
const PERSONAL_ATTRIBUTES: &[&str] =
    &["email", "phonenumber", "docid", "docholdername", "membershipid", "accountnumber", "bankid", "iban"];

fn is_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    // `EchoToken` is the partner's label of a message, what the log is searched by.
    SECRET_PARTS.iter().any(|p| n.contains(p)) && n != "echotoken"
}

/// Attribute names kept in a personal zone: codes and flags, which say what a value is.
fn is_code(name: &str) -> bool {
    ["Code", "Type", "RPH", "Language", "Ind"].iter().any(|s| name.ends_with(s))
}

/// What an attribute's value becomes in the log, `None` to keep it (see [`prepare`]): card
/// data, secrets and SOAP header values always go; personal values when `masked`.
fn attribute_mask(zone: Zone, a: roxmltree::Attribute, masked: bool) -> Option<String> {
    let (name, value) = (a.name(), a.value());
    let lower = name.to_ascii_lowercase();
    if is_password(name) || is_secret(name) || CARD_DATA.contains(&lower.as_str()) {
        return Some(String::new());
    }
    if zone.header {
        // `mustUnderstand`, `actor`, `role` are the envelope's, not the partner's values.
        let soap = a.namespace().is_some_and(|ns| ns.contains("soap") || ns.contains("envelope"));
        return (!soap).then(String::new);
    }
    let card = has_card_number(value);
    if lower.contains("number") && (zone.card || lower.contains("card")) || (card && zone.card) {
        return Some(last_four(value));
    }
    if zone.card {
        return (!matches!(name, "CardType" | "CardCode")).then(String::new);
    }
    // A personal value goes whole, card number and all; else a card number keeps its last four.
    if masked {
        if let Some(p) = PERSONAL.iter().find(|p| p.attribute && p.name == name) {
            return Some(p.mask.to_string());
        }
        if (zone.personal && !is_code(name)) || PERSONAL_ATTRIBUTES.contains(&lower.as_str()) || email_like(value) {
            return Some("***".into());
        }
    }
    card.then(|| last_four(value))
}

/// What the text of an element becomes in the log, `None` to keep it (see [`prepare`]).
fn text_mask(zone: Zone, name: &str, value: &str, masked: bool) -> Option<String> {
    if is_password(name) {
        return Some(String::new());
    }
    if value.trim().is_empty() {
        return None;
    }
    if zone.header {
        return (name != "Username").then(String::new);
    }
    if is_secret(name) || CARD_DATA.contains(&name.to_ascii_lowercase().as_str()) {
        return Some(String::new());
    }
    if zone.card {
        let digits = value.bytes().filter(u8::is_ascii_digit).count();
        return match name {
            "CardType" | "CardCode" => None,
            _ if digits >= 12 => Some(last_four(value)),
            _ => Some(String::new()),
        };
    }
    // A personal text goes whole, card number and all (a comment with an e-mail address and a
    // card number loses both); else a card number keeps its last four digits.
    if masked {
        if let Some(p) = PERSONAL.iter().find(|p| !p.attribute && p.name == name) {
            return Some(p.mask.to_string());
        }
        if zone.personal || !TEXT_KEPT.contains(&name) {
            return Some("***".into());
        }
    }
    has_card_number(value).then(|| last_four(value))
}

/// A value with every digit but the last four replaced by `X` (a card number as PCI DSS allows
/// it to be kept; fewer than 12 digits: all of them). XML-escaped, for a stored body.
fn last_four(value: &str) -> String {
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    let keep = if digits >= 12 { 4 } else { 0 };
    let mut seen = 0;
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '0'..='9' => {
                seen += 1;
                out.push(if seen > digits - keep { c } else { 'X' });
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// True when a value holds an e-mail address.
fn email_like(value: &str) -> bool {
    value.split_whitespace().any(|w| w.find('@').is_some_and(|i| i > 0 && w[i + 1..].contains('.')))
}

/// True for the name of an attribute or element that may hold a password: `MessagePassword`,
/// WS-Security's `Password`, and any other name with `password` in it (a partner's mistake is
/// no reason to store one).
fn is_password(name: &str) -> bool {
    name.to_ascii_lowercase().contains("password")
}

/// The requestor a request claims to be (the `ID` of its first `RequestorID`, else a
/// WS-Security `Username`), for an error answer to a request that did not authenticate; `None`
/// when the body is not well-formed XML, is over the decoder's bounds, or names none.
pub fn claimed_requestor(body: &[u8]) -> Option<String> {
    let doc = parse(body)?;
    let mut elements = doc.descendants().filter(roxmltree::Node::is_element);
    let found = elements.find(|n| {
        n.tag_name().name() == "RequestorID" && n.attribute("ID").is_some() || n.tag_name().name() == "Username"
    })?;
    match found.attribute("ID") {
        Some(id) => Some(id.trim().to_string()),
        None => found.text().map(|t| t.trim().to_string()),
    }
}

/// The range of an element's content (between its start and end tags) within `text`, given
/// the element's whole range; `None` for an empty element (`<X/>`).
fn inner_range(text: &str, element: Range<usize>) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = element.start;
    while i < element.end {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => break,
            None => {}
        }
        i += 1;
    }
    if i >= element.end || bytes.get(i.wrapping_sub(1)) == Some(&b'/') {
        return None;
    }
    let start = i + 1;
    let end = text[start..element.end].rfind("</").map(|j| start + j)?;
    (start <= end).then_some(start..end)
}

/// `text` with each range replaced (ranges inside a replaced one are dropped).
fn apply(text: &str, mut edits: Vec<(Range<usize>, &str)>) -> String {
    edits.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (r, with) in edits {
        if r.start < at {
            continue;
        }
        out.push_str(&text[at..r.start]);
        out.push_str(with);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Credentials to send a recorded request with (the log keeps none): the requestor's `ID`,
/// its `ID_Context` and its password.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// `RequestorID@ID`.
    pub id: String,
    /// `RequestorID@ID_Context` (Type 22).
    pub id_context: String,
    /// `MessagePassword` (Type 88), or the WS-Security `Password`.
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("id", &self.id)
            .field("id_context", &self.id_context)
            .finish_non_exhaustive()
    }
}

impl std::str::FromStr for Credentials {
    type Err = String;

    /// `ID,CONTEXT,PASSWORD` (the password may hold commas).
    fn from_str(s: &str) -> Result<Self, String> {
        let mut parts = s.splitn(3, ',');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(id), Some(ctx), Some(pw)) if !id.is_empty() && !pw.is_empty() => {
                Ok(Credentials { id: id.into(), id_context: ctx.into(), password: pw.into() })
            }
            _ => Err("credentials are ID,CONTEXT,PASSWORD".into()),
        }
    }
}

/// A stored request with `credentials` in its POS (each `RequestorID`'s `ID`, `ID_Context`
/// where it has one, `MessagePassword` where it has one) and in a WS-Security
/// `UsernameToken` (`Username`, `Password`); `None` when it is not well-formed XML.
pub fn with_credentials(stored: &str, credentials: &Credentials) -> Option<String> {
    let doc = parse(stored.as_bytes())?;
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let escaped = |v: &str| v.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;").replace('\'', "&apos;");
    for node in doc.descendants().filter(roxmltree::Node::is_element) {
        match node.tag_name().name() {
            "RequestorID" => {
                for a in node.attributes() {
                    let value = match a.name() {
                        "ID" => &credentials.id,
                        "ID_Context" => &credentials.id_context,
                        "MessagePassword" => &credentials.password,
                        _ => continue,
                    };
                    edits.push((a.range_value(), escaped(value)));
                }
            }
            "Username" | "Password" if node.tag_name().namespace() != Some(OTA) => {
                let value = if node.tag_name().name() == "Username" { &credentials.id } else { &credentials.password };
                if let Some(inner) = inner_range(stored, node.range()) {
                    edits.push((inner, escaped(value)));
                }
            }
            _ => {}
        }
    }
    Some(apply(stored, edits.iter().map(|(r, v)| (r.clone(), v.as_str())).collect()))
}

/// The credentials a stored request was sent with, its password left empty (the log keeps
/// none): its first `RequestorID`'s `ID` and `ID_Context`, or a WS-Security `Username`.
pub fn credentials_of(stored: &str) -> Option<Credentials> {
    let doc = parse(stored.as_bytes())?;
    let requestor = doc.descendants().find(|n| n.is_element() && n.tag_name().name() == "RequestorID");
    if let Some(r) = requestor.filter(|r| r.attribute("ID").is_some()) {
        return Some(Credentials {
            id: r.attribute("ID").unwrap_or_default().to_string(),
            id_context: r.attribute("ID_Context").unwrap_or_default().to_string(),
            password: String::new(),
        });
    }
    let user = doc
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name() == "Username" && n.tag_name().namespace() != Some(OTA))?;
    Some(Credentials {
        id: user.text().unwrap_or_default().trim().to_string(),
        id_context: String::new(),
        password: String::new(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const RQ: &str = r#"<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" EchoToken="e-1"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword='demo-"password'/></Source></POS><UniqueID Type="36" ID="CLI-1" ID_Context="Client"/><Customer BirthDate="1980-04-12"><PersonName><NamePrefix>Mr</NamePrefix><GivenName>Jos&#233;</GivenName><Surname><![CDATA[Müller]]></Surname><Surname/></PersonName></Customer></OTA_HotelResRQ>"#;

    #[test]
    fn passwords_always_go_and_personal_values_when_masked() {
        let p = prepare(RQ.as_bytes(), true);
        assert!(!p.text.contains("demo-") && p.text.contains("MessagePassword=''"), "{}", p.text);
        for personal in ["Mr", "Jos", "Müller", "1980"] {
            assert!(!p.text.contains(personal), "{personal}: {}", p.text);
        }
        assert!(
            p.text.contains("<GivenName>***</GivenName>")
                && p.text.contains(r#"BirthDate="1900-01-01""#)
                && p.text.contains("<Surname/>"),
            "{}",
            p.text
        );
        assert_eq!(p.echo_token.as_deref(), Some("e-1"));
        assert_eq!(p.references, ["CLI-1"]);
        for sample in [
            include_str!("../../../spec/samples/hotel_res.xml"),
            include_str!("../../../spec/samples/tour_activity_book.xml"),
        ] {
            let masked = prepare(sample.as_bytes(), true).text;
            assert!(!masked.contains("s3cr3t") && masked.contains("***"), "{masked}");
            assert!(ota_messages::AnyRequest::from_xml(&masked).is_ok(), "a masked request decodes: {masked}");
        }
        let unmasked = prepare(RQ.as_bytes(), false);
        assert!(
            !unmasked.text.contains("demo-")
                && unmasked.text.contains("Müller")
                && unmasked.text.contains("1980-04-12")
        );
    }

    #[test]
    fn ws_security_passwords_go_and_unreadable_bodies_are_not_stored() {
        let env = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><w:Security xmlns:w="urn:wsse"><w:UsernameToken><w:Username>DEMO</w:Username><w:Password>pw&amp;1</w:Password></w:UsernameToken></w:Security></s:Header><s:Body/></s:Envelope>"#;
        let p = prepare(env.as_bytes(), true);
        assert!(p.text.contains("<w:Password></w:Password>") && !p.text.contains("pw&amp;1"), "{}", p.text);
        let c: Credentials = "P,P-CTX,new,pass".parse().unwrap();
        let again = with_credentials(&p.text, &c).unwrap();
        assert!(
            again.contains("<w:Password>new,pass</w:Password>") && again.contains("<w:Username>P</w:Username>"),
            "{again}"
        );
        assert_eq!(
            prepare(b"<a>MessagePassword=\"x\"", true).text,
            "(not well-formed XML or over the decoder's bounds: 22 bytes, not stored)"
        );
        assert_eq!(prepare(&[0xff, 0xfe], true).text, "(not UTF-8 text: 2 bytes, not stored)");
    }

    #[test]
    fn the_requestor_a_request_names() {
        assert_eq!(claimed_requestor(RQ.as_bytes()).as_deref(), Some("DEMO"));
        let env = r#"<s:Envelope xmlns:s="urn:s"><s:Header><w:Security xmlns:w="urn:w"><w:UsernameToken><w:Username> P2 </w:Username></w:UsernameToken></w:Security></s:Header></s:Envelope>"#;
        assert_eq!(claimed_requestor(env.as_bytes()).as_deref(), Some("P2"));
        assert_eq!(claimed_requestor(b"<a><RequestorID"), None);
        assert_eq!(claimed_requestor(b"<a/>"), None);
        let bomb: String = (0..200).map(|i| format!(" a{i}=\"\"")).collect();
        let bomb = format!("<a{bomb}><RequestorID ID=\"DEMO\"/></a>");
        assert_eq!(claimed_requestor(bomb.as_bytes()), None, "over the bounds: not parsed");
        assert!(prepare(bomb.as_bytes(), true).text.starts_with("(not well-formed XML or over"));
    }

    #[test]
    fn card_data_keeps_only_the_last_four_digits() {
        assert_eq!(last_four("4111 1111 1111 1234"), "XXXX XXXX XXXX 1234");
        assert_eq!(last_four("7319"), "XXXX");
        let env = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><a:T xmlns:a="urn:a" s:mustUnderstand="1" k="v">Bearer abc</a:T></s:Header><s:Body><R><PaymentCard CardCode="VI" CardNumber="4111111111111111" SeriesCode="123"><CardHolderName>J</CardHolderName></PaymentCard><SpecialRequest><Text>x@y.org</Text></SpecialRequest></R></s:Body></s:Envelope>"#;
        for masked in [true, false] {
            let p = prepare(env.as_bytes(), masked).text;
            assert!(!p.contains("Bearer") && !p.contains(r#"k="v""#) && p.contains(r#"s:mustUnderstand="1""#), "{p}");
            assert!(p.contains(r#"CardNumber="XXXXXXXXXXXX1111""#) && p.contains(r#"SeriesCode="""#), "{p}");
            assert!(p.contains(r#"CardCode="VI""#) && p.contains("<CardHolderName></CardHolderName>"), "{p}");
            assert_eq!(p.contains("x@y.org"), !masked, "{p}");
        }
        // A personal text with a card number in it: masked whole when masking, else the card
        // number alone.
        let comment = r#"<R><Comment><Text>mail x@y.org, pay 4111 1111 1111 1111</Text></Comment><Guest Note="x@y.org 4111111111111111"/></R>"#;
        let p = prepare(comment.as_bytes(), true).text;
        assert!(p.contains("<Text>***</Text>") && p.contains(r#"Note="***""#), "{p}");
        let p = prepare(comment.as_bytes(), false).text;
        assert!(
            p.contains("mail x@y.org, pay XXXX XXXX XXXX 1111") && p.contains(r#"Note="x@y.org XXXXXXXXXXXX1111""#),
            "{p}"
        );
    }

    #[test]
    fn credentials_go_back_into_a_stored_request() {
        let stored = prepare(RQ.as_bytes(), true).text;
        let c = Credentials { id: "P2".into(), id_context: "P2-DIST".into(), password: "p&2".into() };
        let out = with_credentials(&stored, &c).unwrap();
        assert!(out.contains(r#"ID="P2" ID_Context="P2-DIST""#) && out.contains("MessagePassword='p&amp;2'"), "{out}");
        assert!(out.contains(r#"UniqueID Type="36" ID="CLI-1""#), "not a RequestorID: kept");
    }
}
