//! `ota-gateway replay`: the recorded requests of a filter sent again, oldest first, to another
//! gateway (a sandbox, a new build), each with the credentials given (the log keeps no
//! password; see [`mask::with_credentials`]), and each answer compared with the recorded one.
//!
//! Two answers are the same when their HTTP status and their XML are, but for what differs
//! from one run to the next by design ([`IGNORED_ATTRIBUTES`]: time stamps, creation and
//! change times; and generated ids: a booking's `Internal` reference). Elements are compared by
//! local name (a SOAP envelope's prefixes do not matter), attributes as a set, text trimmed. A
//! recorded answer whose personal values were masked is compared with the new answer masked
//! the same way. Replaying a Commit books on the other gateway: replay against a sandbox.

use chrono::{DateTime, Utc};

use super::mask::{self, Credentials};
use super::{Entry, Filter, LogError};
use crate::client::Client;
use crate::store::Store;

/// Attributes whose values are not compared: they differ on every run.
pub const IGNORED_ATTRIBUTES: &[&str] =
    &["TimeStamp", "CreateDateTime", "LastModifyDateTime", "LastUpdateDateTime", "EchoToken"];

/// What the replay of one entry found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The same answer (but for what is ignored).
    Same,
    /// Another answer.
    Different {
        /// How many compared values differ.
        count: usize,
        /// The first: where (`/OTA_HotelAvailRS/RoomStays/RoomStay[2]/Total/@AmountAfterTax`).
        at: String,
        /// Its recorded value (`None`: not in the recorded answer).
        recorded: Option<String>,
        /// Its value in the new answer (`None`: not there).
        replayed: Option<String>,
    },
    /// Not replayed: why.
    Skipped(String),
    /// The other gateway could not be reached, or did not answer XML.
    Failed(String),
}

/// The replay of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The entry's id.
    pub entry: i64,
    /// When it was recorded.
    pub at: DateTime<Utc>,
    /// Its operation.
    pub operation: String,
    /// What the replay found.
    pub verdict: Verdict,
    /// The other gateway's answer (masked as the recorded one is), when it answered.
    pub answer: Option<String>,
}

/// How long the console's replay waits for the other gateway.
pub const TARGET_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The gateway a console operator may replay to: an `http` or `https` base URL without user
/// name, password, query or fragment; its client follows no redirect (a 3xx is an answer that
/// differs) and waits at most [`TARGET_TIMEOUT`]. Why not, in a sentence.
pub fn target(url: &str) -> Result<Client, String> {
    let url = url.trim();
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("{url:?} is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("{url:?}: only http and https gateways can be replayed to"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!("{url:?}: a gateway URL has no user name or password"));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() || parsed.host_str().is_none() {
        return Err(format!("{url:?}: a gateway's base URL (scheme, host, port, path), no query or fragment"));
    }
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TARGET_TIMEOUT)
        .build()
        .map_err(|e| format!("no HTTP client: {e}"))?;
    Ok(Client::with_http(url.to_string(), http))
}

/// Replays one entry (by id) against the gateway of `to`, with `credentials` (the console's
/// replay of one entry; the same sending and comparing as [`replay`]).
pub async fn replay_entry(store: &Store, id: i64, to: &Client, credentials: &Credentials) -> Result<Outcome, LogError> {
    let e = super::show(store, id).await?;
    let (verdict, answer) = replay_one(&e, to, credentials).await;
    Ok(Outcome { entry: e.id, at: e.at, operation: e.operation.clone(), verdict, answer })
}

/// Replays the entries of `filter` (oldest first, at most `limit`) against the gateway of
/// `to`, with `credentials`.
pub async fn replay(
    store: &Store,
    filter: &Filter,
    limit: i64,
    to: &Client,
    credentials: &Credentials,
) -> Result<Vec<Outcome>, LogError> {
    let mut pages = super::Pages::new(store, filter, limit);
    let mut out = Vec::new();
    loop {
        let page = pages.next().await?;
        if page.is_empty() {
            break;
        }
        for e in &page {
            let (verdict, answer) = replay_one(e, to, credentials).await;
            out.push(Outcome { entry: e.id, at: e.at, operation: e.operation.clone(), verdict, answer });
        }
    }
    Ok(out)
}

/// Sends one recorded request and compares the answers; the new answer too.
async fn replay_one(e: &Entry, to: &Client, credentials: &Credentials) -> (Verdict, Option<String>) {
    if e.answer_truncated {
        return (Verdict::Skipped("the recorded answer was cut (longer than the log keeps)".into()), None);
    }
    let Some(request) = mask::with_credentials(&e.request, credentials) else {
        return (Verdict::Skipped("the request was not stored (not well-formed XML)".into()), None);
    };
    let soap = roxmltree::Document::parse(&request).is_ok_and(|d| d.root_element().tag_name().name() == "Envelope");
    let content_type = if soap { "text/xml; charset=utf-8" } else { "application/xml" };
    let (status, _, answer) = match to.send_raw(&format!("/{}", e.operation), request, content_type).await {
        Ok(r) => r,
        Err(err) => return (Verdict::Failed(err.to_string()), None),
    };
    let replayed = if e.masked { mask::prepare(answer.as_bytes(), true).text } else { answer };
    (compare(e.status, &e.answer, i64::from(status.as_u16()), &replayed), Some(replayed))
}

/// Compares a recorded answer (and its HTTP status) with a new one.
pub fn compare(recorded_status: i64, recorded: &str, replayed_status: i64, replayed: &str) -> Verdict {
    let (Some(a), Some(b)) = (canonical(recorded), canonical(replayed)) else {
        return if recorded.trim() == replayed.trim() && recorded_status == replayed_status {
            Verdict::Same
        } else {
            Verdict::Failed("an answer is not well-formed XML".into())
        };
    };
    let (mut a, mut b) = (a, b);
    a.insert(0, ("(HTTP status)".into(), recorded_status.to_string()));
    b.insert(0, ("(HTTP status)".into(), replayed_status.to_string()));
    let mut first = None;
    let mut count = 0;
    let (mut i, mut j) = (0, 0);
    // Side by side; a path on one side only (an element more or less) is one difference.
    while i < a.len() || j < b.len() {
        let (x, y) = (a.get(i), b.get(j));
        match (x, y) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
                continue;
            }
            (Some(x), Some(y)) if x.0 == y.0 => {
                first.get_or_insert_with(|| (x.0.clone(), Some(x.1.clone()), Some(y.1.clone())));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if b[j..].iter().any(|z| z.0 == x.0) => {
                first.get_or_insert_with(|| (y.0.clone(), None, Some(y.1.clone())));
                j += 1;
            }
            (Some(x), _) => {
                first.get_or_insert_with(|| (x.0.clone(), Some(x.1.clone()), None));
                i += 1;
            }
            (None, Some(y)) => {
                first.get_or_insert_with(|| (y.0.clone(), None, Some(y.1.clone())));
                j += 1;
            }
            (None, None) => break,
        }
        count += 1;
    }
    match first {
        None => Verdict::Same,
        Some((at, recorded, replayed)) => Verdict::Different { count, at, recorded, replayed },
    }
}

/// An answer as the list of what is compared: (path, value) for each attribute (sorted by name
/// within its element; ignored ones as `*`) and each element's trimmed text, in document order.
fn canonical(xml: &str) -> Option<Vec<(String, String)>> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let mut out = Vec::new();
    let root = doc.root_element();
    walk(root, format!("/{}", root.tag_name().name()), &mut out);
    Some(out)
}

fn walk(node: roxmltree::Node, path: String, out: &mut Vec<(String, String)>) {
    let name = node.tag_name().name();
    let generated_id = |attr: &str| {
        (name == "UniqueID" && attr == "ID" && node.attribute("ID_Context") == Some("Internal"))
            || (name == "HotelReservationID"
                && attr == "ResID_Value"
                && node.attribute("ResID_SourceContext") == Some("Internal"))
    };
    let mut attributes: Vec<(String, String)> = node
        .attributes()
        .filter(|a| a.namespace().is_none())
        .map(|a| {
            let value = if IGNORED_ATTRIBUTES.contains(&a.name()) || generated_id(a.name()) {
                "*".to_string()
            } else {
                a.value().to_string()
            };
            (format!("{path}/@{}", a.name()), value)
        })
        .collect();
    attributes.sort();
    out.extend(attributes);
    let text: String = node.children().filter(roxmltree::Node::is_text).filter_map(|t| t.text()).collect();
    if !text.trim().is_empty() {
        out.push((format!("{path}/text()"), text.trim().to_string()));
    }
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for child in node.children().filter(roxmltree::Node::is_element) {
        let n = child.tag_name().name();
        let index = match seen.iter_mut().find(|(s, _)| *s == n) {
            Some((_, i)) => {
                *i += 1;
                *i
            }
            None => {
                seen.push((n, 1));
                1
            }
        };
        let child_path = if index > 1 { format!("{path}/{n}[{index}]") } else { format!("{path}/{n}") };
        walk(child, child_path, out);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn time_stamps_and_internal_references_are_ignored_prices_are_not() {
        let a = r#"<RS TimeStamp="2030-01-01T00:00:00Z" EchoToken="1"><Success/><UniqueID ID="4471200" ID_Context="Internal"/><UniqueID ID="C-1" ID_Context="Client"/><Total Amount="120.00"/><Total Amount="80.00"/></RS>"#;
        let b = r#"<RS EchoToken="1" TimeStamp="2031-05-05T10:00:00Z"><Success/><UniqueID ID="4471999" ID_Context="Internal"/><UniqueID ID="C-1" ID_Context="Client"/><Total Amount="120.00"/><Total Amount="80.00"/></RS>"#;
        assert_eq!(compare(200, a, 200, b), Verdict::Same);
        let c = b.replace(r#"Amount="80.00""#, r#"Amount="95.00""#);
        assert_eq!(
            compare(200, a, 200, &c),
            Verdict::Different {
                count: 1,
                at: "/RS/Total[2]/@Amount".into(),
                recorded: Some("80.00".into()),
                replayed: Some("95.00".into())
            }
        );
        let d = b.replace(r#"<UniqueID ID="C-1" ID_Context="Client"/>"#, "");
        assert!(matches!(compare(200, a, 200, &d), Verdict::Different { .. }));
        assert!(matches!(compare(200, a, 429, b), Verdict::Different { ref at, .. } if at == "(HTTP status)"));
    }
}
