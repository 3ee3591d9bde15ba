//! Reading the log (`ota-gateway log search|show|export`, and the pages a replay reads): every
//! read goes through [`repo`]'s SQL.

use chrono::{DateTime, Utc};

use super::{Entry, LogError, repo};
use crate::store::Store;

/// Which entries a search (or an export, or a replay) takes; empty fields take any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this requestor's.
    pub requestor: Option<String>,
    /// Only from this instant on.
    pub since: Option<DateTime<Utc>>,
    /// Only before this instant.
    pub until: Option<DateTime<Utc>>,
    /// Only entries with this booking reference.
    pub reference: Option<String>,
    /// Only entries with this `EchoToken`.
    pub echo_token: Option<String>,
    /// Only the entry (entries) of this request id.
    pub request_id: Option<String>,
    /// Only this operation (its path without the slash).
    pub operation: Option<String>,
    /// Only entries with this outcome.
    pub outcome: Option<Outcome>,
}

/// An entry's outcome, as a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A success answer without warnings (the three outcomes split the answers, as the
    /// traffic's counts do).
    Success,
    /// A success answer with `Warnings`.
    Warning,
    /// An error answer (OTA `Errors`, or an HTTP status other than 200).
    Error,
    /// An error answer with an `Error` of this OTA type (`Type="3"`).
    ErrorType(u16),
}

impl Outcome {
    /// `success`, `warning`, `error` or `error:N` (an OTA error type, 1 to 999), any case.
    pub fn parse(text: &str) -> Result<Outcome, String> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "success" => Ok(Outcome::Success),
            "warning" => Ok(Outcome::Warning),
            "error" => Ok(Outcome::Error),
            _ => t
                .strip_prefix("error:")
                .and_then(|n| n.trim().parse::<u16>().ok())
                .filter(|n| (1..1000).contains(n))
                .map(Outcome::ErrorType)
                .ok_or_else(|| {
                    format!("{text:?} is not an outcome: success, warning, error or error:N (an OTA error type)")
                }),
        }
    }

    /// Its text for [`Outcome::parse`].
    pub fn as_text(self) -> String {
        match self {
            Outcome::Success => "success".into(),
            Outcome::Warning => "warning".into(),
            Outcome::Error => "error".into(),
            Outcome::ErrorType(n) => format!("error:{n}"),
        }
    }

    /// The SQL test's parameters: the state (`ok`, `error` or empty for any; `success`: `ok`
    /// and the answer has no `Warnings`) and a `LIKE` pattern the stored answer must match
    /// (empty for any).
    pub(crate) fn sql(outcome: Option<Outcome>) -> (&'static str, String) {
        match outcome {
            None => ("", String::new()),
            Some(Outcome::Success) => ("success", String::new()),
            Some(Outcome::Warning) => ("ok", "%Warnings>%".into()),
            Some(Outcome::Error) => ("error", String::new()),
            // The gateway writes an Error's Type first; a partner-facing answer of another
            // gateway (a replay's) is not searched.
            Some(Outcome::ErrorType(n)) => ("error", format!("%Error Type=\"{n}\"%")),
        }
    }
}

impl std::str::FromStr for Outcome {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Outcome::parse(s)
    }
}

/// A search as asked in a form (the console's `/log`): each filter as its text, empty for
/// none, named as `ota-gateway log search`'s flags (`requestor`, `echo-token`, `reference`,
/// …, and `from`/`to` for the time range); checked by [`Ask::filter`].
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Ask {
    /// Only this requestor's.
    pub requestor: Option<String>,
    /// Only this operation.
    pub operation: Option<String>,
    /// Only this outcome ([`Outcome::parse`]).
    pub outcome: Option<String>,
    /// Only this `EchoToken`.
    pub echo_token: Option<String>,
    /// Only this booking reference.
    pub reference: Option<String>,
    /// Only this request id.
    pub request_id: Option<String>,
    /// From this instant on (RFC 3339, `YYYY-MM-DDTHH:MM` in UTC as a browser's
    /// `datetime-local` gives it, or a UTC day).
    pub from: Option<String>,
    /// Before this instant (as `from`; a day alone: its end).
    pub to: Option<String>,
    /// Rows per page (1 to [`MAX_ROWS`]; [`ROWS`] unless given).
    pub limit: Option<String>,
    /// The page after this cursor (a previous [`Found::next`]).
    pub after: Option<String>,
}

/// Where a page of a search starts: past the entry of this time and id.
pub type Cursor = (DateTime<Utc>, i64);

/// Rows per page of a form's search, unless asked.
pub const ROWS: i64 = 50;
/// The most rows per page of a form's search.
pub const MAX_ROWS: i64 = 500;

impl Ask {
    /// Every filter given, as (its field's name, its text), empty ones left out; without the
    /// cursor.
    pub fn given(&self) -> Vec<(&'static str, &str)> {
        [
            ("requestor", &self.requestor),
            ("operation", &self.operation),
            ("outcome", &self.outcome),
            ("echo-token", &self.echo_token),
            ("reference", &self.reference),
            ("request-id", &self.request_id),
            ("from", &self.from),
            ("to", &self.to),
            ("limit", &self.limit),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().filter(|v| !v.trim().is_empty()).map(|v| (k, v)))
        .collect()
    }

    /// The rows per page asked; a sentence naming the field of a bad value.
    pub fn rows(&self) -> Result<i64, String> {
        match self.limit.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            None => Ok(ROWS),
            Some(v) => v
                .parse::<i64>()
                .ok()
                .filter(|n| (1..=MAX_ROWS).contains(n))
                .ok_or_else(|| format!("limit: {v:?} is not a number of rows from 1 to {MAX_ROWS}")),
        }
    }

    /// The filter asked, and the cursor; a sentence naming the field of a bad value.
    pub fn filter(&self) -> Result<(Filter, Option<Cursor>), String> {
        let text = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
        let outcome =
            text(&self.outcome).map(|o| Outcome::parse(&o)).transpose().map_err(|e| format!("outcome: {e}"))?;
        let since = text(&self.from).map(|v| instant(&v, false)).transpose().map_err(|e| format!("from: {e}"))?;
        let until = text(&self.to).map(|v| instant(&v, true)).transpose().map_err(|e| format!("to: {e}"))?;
        let after = text(&self.after)
            .map(|c| {
                let (at, id) = c.split_once('~').ok_or(())?;
                let at = DateTime::<Utc>::from_timestamp_micros(at.parse().map_err(|_| ())?).ok_or(())?;
                Ok::<_, ()>((at, id.parse::<i64>().map_err(|_| ())?))
            })
            .transpose()
            .map_err(|()| "after: not a cursor of this page".to_string())?;
        let filter = Filter {
            requestor: text(&self.requestor),
            since,
            until,
            reference: text(&self.reference),
            echo_token: text(&self.echo_token),
            request_id: text(&self.request_id),
            operation: text(&self.operation).map(|o| o.trim_start_matches('/').to_string()),
            outcome,
        };
        Ok((filter, after))
    }
}

/// An instant of a form: RFC 3339, `YYYY-MM-DDTHH:MM[:SS]` (UTC), or a UTC day (its start, or
/// with `end_of_day` the next day's start).
fn instant(v: &str, end_of_day: bool) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(t.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(v, format) {
            return Ok(t.and_utc());
        }
    }
    if let Ok(d) = v.parse::<chrono::NaiveDate>() {
        let d = if end_of_day { d.succ_opt().unwrap_or(d) } else { d };
        return Ok(d.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    Err(format!("{v:?} is not an instant (2030-05-01T10:00, UTC) or a day (2030-05-01)"))
}

impl Entry {
    /// Its outcome in words: `Success`, `Success, warnings (type 11)`, `Error type 7 code 320`,
    /// or `HTTP 500` (an answer that is not an OTA one).
    pub fn outcome(&self) -> String {
        let doc = roxmltree::Document::parse(&self.answer).ok();
        let first = |name: &str| {
            doc.as_ref().and_then(|d| d.descendants().find(|n| n.is_element() && n.tag_name().name() == name))
        };
        let typed = |n: roxmltree::Node| {
            let mut out = String::new();
            if let Some(t) = n.attribute("Type") {
                out.push_str(&format!(" type {t}"));
            }
            if let Some(c) = n.attribute("Code") {
                out.push_str(&format!(" code {c}"));
            }
            out
        };
        if self.success {
            match first("Warning") {
                Some(w) => format!("Success, warnings ({})", typed(w).trim()),
                None => "Success".into(),
            }
        } else {
            match first("Error") {
                Some(e) => format!("Error{}", typed(e)),
                None => format!("HTTP {}", self.status),
            }
        }
    }
}

/// A page of a search, newest first.
#[derive(Debug)]
pub struct Found {
    /// Its entries.
    pub entries: Vec<Entry>,
    /// The cursor of the next page (for [`Ask::after`]), when there may be one.
    pub next: Option<String>,
}

/// One page of the entries of a filter, newest first, after the cursor `after` (the last
/// entry of the previous page), at most `limit`.
pub async fn search_page(store: &Store, filter: &Filter, after: Option<Cursor>, limit: i64) -> Result<Found, LogError> {
    let filter = filter.clone();
    let entries = store
        .read(move |c| Box::pin(async move { Ok::<_, LogError>(repo::search(c, &filter, false, after, limit).await?) }))
        .await?;
    let next = if entries.len() as i64 == limit {
        entries.last().map(|e| format!("{}~{}", e.at.timestamp_micros(), e.id))
    } else {
        None
    };
    Ok(Found { entries, next })
}

/// The entries of a filter, newest first (`oldest_first`: oldest first), at most `limit`.
pub async fn search(store: &Store, filter: &Filter, oldest_first: bool, limit: i64) -> Result<Vec<Entry>, LogError> {
    let filter = filter.clone();
    store.read(move |c| Box::pin(async move { Ok(repo::search(c, &filter, oldest_first, None, limit).await?) })).await
}

/// How many entries one page of an export or a replay reads ([`Pages`]): with bodies of up to
/// [`MAX_STORED_BODY`](super::MAX_STORED_BODY) each way, at most 64 MiB in memory at once.
pub const PAGE: i64 = 32;

/// The entries of a filter, oldest first, at most a limit, read [`PAGE`] at a time (keyset on
/// the time and the id): an export or a replay holds one page whatever the log's size.
#[derive(Debug)]
pub struct Pages<'s> {
    store: &'s Store,
    filter: Filter,
    /// How many entries may still be given.
    left: usize,
    /// The last entry given (time and id).
    after: Option<(DateTime<Utc>, i64)>,
}

impl<'s> Pages<'s> {
    /// The pages of a filter's entries, at most `limit` in all.
    pub fn new(store: &'s Store, filter: &Filter, limit: i64) -> Pages<'s> {
        Pages { store, filter: filter.clone(), left: usize::try_from(limit).unwrap_or(0), after: None }
    }

    /// The next page; empty once every entry (or the limit) was given.
    pub async fn next(&mut self) -> Result<Vec<Entry>, LogError> {
        if self.left == 0 {
            return Ok(Vec::new());
        }
        let (filter, after) = (self.filter.clone(), self.after);
        let mut page = self
            .store
            .read(move |c| {
                Box::pin(async move { Ok::<_, LogError>(repo::search(c, &filter, true, after, PAGE).await?) })
            })
            .await?;
        // A short page is the last one.
        let full = page.len() == PAGE as usize;
        page.truncate(self.left);
        self.left = if full { self.left - page.len() } else { 0 };
        self.after = page.last().map(|e| (e.at, e.id));
        Ok(page)
    }
}

/// One entry, by id.
pub async fn show(store: &Store, id: i64) -> Result<Entry, LogError> {
    store.read(move |c| Box::pin(async move { repo::get(c, id).await?.ok_or(LogError::NotFound(id)) })).await
}

/// Writes the entries of a filter to `out` as JSON lines (see [`Entry::to_json`]), oldest
/// first, at most `limit`, page by page ([`Pages`]); how many.
pub async fn export(
    store: &Store,
    filter: &Filter,
    limit: i64,
    out: &mut impl std::io::Write,
) -> Result<u64, LogError> {
    let mut pages = Pages::new(store, filter, limit);
    let mut written = 0;
    loop {
        let page = pages.next().await?;
        if page.is_empty() {
            break;
        }
        for e in &page {
            writeln!(out, "{}", e.to_json())?;
        }
        written += page.len() as u64;
    }
    out.flush()?;
    Ok(written)
}
