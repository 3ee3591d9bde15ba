//! Finding any booking, hotel or activity, whoever made it: [`search`] lists the heads a
//! [`Query`] names, one page at a time; [`show`](super::show::show) gives one booking whole (its items and prices
//! as stored, its history, its transaction-log entries and its outbox events). The one code
//! path of `ota-gateway bookings search|show` and of the console's booking pages: a query comes
//! as the texts a command line or a form gives, and every value is checked here ([`Filter::parse`])
//! with an error naming the field, never a panic.
//!
//! Paging is by keyset: a page ends with a cursor ([`Page::next`]) naming the last row's place
//! in the order (its sorted value, its kind and its id), and the next page starts past it, so
//! that every row is listed once even while bookings are made. Both kinds are read in the order
//! (each kind at most a page and one more) and merged: on a tie of the value, hotel bookings
//! come before activity bookings (ascending; after them descending), then by id.

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde::Serialize;

use super::repo::{self, Head, Key, Select};
use crate::shared::booking::{CANCELLED, Kind, RESERVED};
use crate::shared::history::surname_key;
use crate::shared::log_text::LogText;
use crate::store::values::{date_text, instant_text};
use crate::store::{Store, StoreError};

/// How many rows a page has unless the query says.
pub const DEFAULT_LIMIT: i64 = 50;

/// The most rows a page may have.
pub const MAX_LIMIT: i64 = 500;

/// The longest text a filter may have (references are at most 64 characters).
pub const MAX_TEXT: usize = 128;

/// A search as asked: each filter as its text (from a command line or a form; an empty text is
/// no filter), checked by [`Filter::parse`]. A form's fields have the names of `ota-gateway
/// bookings search`'s flags (`ref`, `created-from`, …).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Query {
    /// Only this partner's (its requestor id).
    pub partner: Option<String>,
    /// Only hotel bookings with a room stay at this hotel (its code).
    pub hotel: Option<String>,
    /// Only hotel bookings with a room stay at a hotel of this supplier (a `supplier`
    /// requestor's id; the hotel extranet's scope); each row's hotel is then its first hotel of
    /// this supplier.
    pub supplier: Option<String>,
    /// Only bookings of this activity (its id).
    pub activity: Option<String>,
    /// Only the booking with this Internal or Client reference.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// Only bookings with a guest whose surname starts with this, in any case.
    pub surname: Option<String>,
    /// Only bookings made on or after this day (UTC, `YYYY-MM-DD`).
    pub created_from: Option<String>,
    /// Only bookings made on or before this day (UTC).
    pub created_to: Option<String>,
    /// Only bookings arriving (an activity: served) on or after this day.
    pub arrival_from: Option<String>,
    /// Only bookings arriving (served) on or before this day.
    pub arrival_to: Option<String>,
    /// Only bookings in this status: `Reserved` or `Cancelled` (any case).
    pub status: Option<String>,
    /// The order: `created-desc` (the default), `created`, `arrival` or `arrival-desc`.
    pub sort: Option<String>,
    /// At most this many rows (1 to [`MAX_LIMIT`]; [`DEFAULT_LIMIT`] unless given).
    pub limit: Option<String>,
    /// The page after this cursor (a previous page's [`Page::next`]).
    pub after: Option<String>,
}

impl Query {
    /// Every filter given, as (its flag's name, its text), an empty text left out; without the
    /// supplier and the cursor.
    pub fn given(&self) -> Vec<(&'static str, &str)> {
        [
            ("partner", &self.partner),
            ("hotel", &self.hotel),
            ("activity", &self.activity),
            ("ref", &self.reference),
            ("surname", &self.surname),
            ("created-from", &self.created_from),
            ("created-to", &self.created_to),
            ("arrival-from", &self.arrival_from),
            ("arrival-to", &self.arrival_to),
            ("status", &self.status),
            ("sort", &self.sort),
            ("limit", &self.limit),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().filter(|v| !v.trim().is_empty()).map(|v| (k, v)))
        .collect()
    }
}

/// The order of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Newest first (the default).
    #[default]
    CreatedDesc,
    /// Oldest first.
    Created,
    /// Earliest arrival (service date) first.
    Arrival,
    /// Latest arrival first.
    ArrivalDesc,
}

impl Sort {
    /// Every order, by name.
    pub const ALL: [Sort; 4] = [Sort::CreatedDesc, Sort::Created, Sort::Arrival, Sort::ArrivalDesc];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Sort::CreatedDesc => "created-desc",
            Sort::Created => "created",
            Sort::Arrival => "arrival",
            Sort::ArrivalDesc => "arrival-desc",
        }
    }

    fn by_arrival(self) -> bool {
        matches!(self, Sort::Arrival | Sort::ArrivalDesc)
    }

    fn descending(self) -> bool {
        matches!(self, Sort::CreatedDesc | Sort::ArrivalDesc)
    }
}

/// Why a search or a show gave nothing.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// A filter's value is not one (the field's name, what is wrong).
    #[error("{field}: {problem}")]
    Invalid {
        /// The field (`created-from`, as the command line and the form name it).
        field: &'static str,
        /// What is wrong, the value escaped.
        problem: String,
    },
    /// No booking has the reference.
    #[error("no booking has the reference {0}")]
    NotFound(String),
    /// Several bookings have the reference (Client references of several partners).
    #[error("{} bookings have the reference {reference} (Internal references {}): name one, or the partner", matches.len(), matches.join(", "))]
    Ambiguous {
        /// The reference, escaped.
        reference: String,
        /// The Internal references of the bookings (kind:reference).
        matches: Vec<String>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub(super) fn invalid(field: &'static str, problem: impl Into<String>) -> SearchError {
    SearchError::Invalid { field, problem: problem.into() }
}

/// A checked search.
#[derive(Debug, Clone)]
pub struct Filter {
    pub(super) select: Select,
    kinds: Vec<Kind>,
    sort: Sort,
    limit: i64,
}

/// A text filter: trimmed, none when empty, at most [`MAX_TEXT`] characters.
fn text(field: &'static str, v: &Option<String>) -> Result<Option<String>, SearchError> {
    let Some(v) = v.as_deref().map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if v.chars().count() > MAX_TEXT {
        return Err(invalid(field, format!("longer than {MAX_TEXT} characters")));
    }
    Ok(Some(v.to_string()))
}

/// A day filter (`YYYY-MM-DD`).
fn day(field: &'static str, v: &Option<String>) -> Result<Option<NaiveDate>, SearchError> {
    let Some(v) = text(field, v)? else { return Ok(None) };
    NaiveDate::parse_from_str(&v, "%Y-%m-%d")
        .map(Some)
        .map_err(|_| invalid(field, format!("\"{}\" is not a date (YYYY-MM-DD)", LogText(&v))))
}

/// The first text above every text starting with `prefix` (by code point), if there is one.
fn above_prefix(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match last {
            '\u{D7FF}' => Some('\u{E000}'),
            c => char::from_u32(c as u32 + 1),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

impl Filter {
    /// Checks a query: every value, the ranges (a start after its end) and the page size.
    pub fn parse(q: &Query) -> Result<Filter, SearchError> {
        let hotel = text("hotel", &q.hotel)?;
        let supplier = text("supplier", &q.supplier)?;
        let activity = text("activity", &q.activity)?;
        if supplier.is_some() && activity.is_some() {
            return Err(invalid(
                "activity",
                "a supplier's bookings are hotel bookings: give one of supplier and activity",
            ));
        }
        let kinds = match (hotel.as_ref().or(supplier.as_ref()), &activity) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "activity",
                    "a booking is of a hotel or of an activity: give one of hotel and activity",
                ));
            }
            (Some(_), None) => vec![Kind::Hotel],
            (None, Some(_)) => vec![Kind::Activity],
            (None, None) => vec![Kind::Hotel, Kind::Activity],
        };
        let surname = match text("surname", &q.surname)? {
            None => None,
            Some(s) => {
                let key = surname_key(&s);
                let above = above_prefix(&key);
                Some((key, above))
            }
        };
        let created_from = day("created-from", &q.created_from)?;
        let created_to = day("created-to", &q.created_to)?;
        if let (Some(from), Some(to)) = (created_from, created_to)
            && from > to
        {
            return Err(invalid("created-to", format!("{} is before created-from {}", date_text(to), date_text(from))));
        }
        let arrival_from = day("arrival-from", &q.arrival_from)?;
        let arrival_to = day("arrival-to", &q.arrival_to)?;
        if let (Some(from), Some(to)) = (arrival_from, arrival_to)
            && from > to
        {
            return Err(invalid("arrival-to", format!("{} is before arrival-from {}", date_text(to), date_text(from))));
        }
        let status = match text("status", &q.status)? {
            None => None,
            Some(s) if s.eq_ignore_ascii_case(RESERVED) => Some(RESERVED.to_string()),
            Some(s) if s.eq_ignore_ascii_case(CANCELLED) => Some(CANCELLED.to_string()),
            Some(s) => return Err(invalid("status", format!("\"{}\" is not Reserved or Cancelled", LogText(&s)))),
        };
        let sort = match text("sort", &q.sort)? {
            None => Sort::default(),
            Some(s) => Sort::ALL.into_iter().find(|o| o.as_str().eq_ignore_ascii_case(&s)).ok_or_else(|| {
                let names: Vec<&str> = Sort::ALL.iter().map(|o| o.as_str()).collect();
                invalid("sort", format!("\"{}\" is not one of {}", LogText(&s), names.join(", ")))
            })?,
        };
        let limit = match text("limit", &q.limit)? {
            None => DEFAULT_LIMIT,
            Some(s) => match s.parse::<i64>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
                _ => {
                    return Err(invalid("limit", format!("\"{}\" is not a number from 1 to {MAX_LIMIT}", LogText(&s))));
                }
            },
        };
        let after = match text("after", &q.after)? {
            None => None,
            Some(c) => Some(parse_cursor(&c, sort)?),
        };
        let midnight = |d: NaiveDate| d.and_time(NaiveTime::MIN).and_utc();
        let select = Select {
            partner: text("partner", &q.partner)?,
            hotel,
            supplier,
            activity,
            reference: text("ref", &q.reference)?,
            surname,
            created_from: created_from.map(midnight),
            created_before: created_to.and_then(|d| d.succ_opt()).map(midnight),
            arrival_from,
            arrival_to,
            status,
            by_arrival: sort.by_arrival(),
            descending: sort.descending(),
            after,
            // One more than a page: whether there is a next page.
            limit: limit + 1,
        };
        Ok(Filter { select, kinds, sort, limit })
    }

    /// Its order.
    pub fn sort(&self) -> Sort {
        self.sort
    }
}

/// A cursor: the sort's name, the value, the kind and the row id, joined by `~`.
fn cursor(sort: Sort, head: &Head) -> String {
    let value = match head.key(sort.by_arrival()) {
        Key::Date(d) => date_text(d),
        Key::Instant(t) => t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
    };
    format!("{}~{value}~{}~{}", sort.as_str(), head.kind.as_str(), head.id)
}

fn parse_cursor(text: &str, sort: Sort) -> Result<(Key, u8, i64), SearchError> {
    let bad = || {
        invalid("after", format!("\"{}\" is not a cursor of this search's order ({})", LogText(text), sort.as_str()))
    };
    let parts: Vec<&str> = text.split('~').collect();
    let [name, value, kind, id] = parts[..] else { return Err(bad()) };
    if name != sort.as_str() {
        return Err(bad());
    }
    let key = if sort.by_arrival() {
        Key::Date(NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| bad())?)
    } else {
        Key::Instant(DateTime::parse_from_rfc3339(value).map_err(|_| bad())?.with_timezone(&Utc))
    };
    let kind = match kind {
        "hotel" => Kind::Hotel,
        "activity" => Kind::Activity,
        _ => return Err(bad()),
    };
    let id = id.parse::<i64>().map_err(|_| bad())?;
    Ok((key, repo::rank(kind), id))
}

/// A booking as a search lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// `hotel` or `activity`.
    pub kind: &'static str,
    /// The Internal reference (the gateway's).
    pub internal_ref: String,
    /// The Client reference (the partner's).
    pub client_ref: String,
    /// The partner (requestor id) that made it.
    pub partner: String,
    /// The hotel of its first room stay (a hotel booking).
    pub hotel: Option<String>,
    /// The activity (an activity booking).
    pub activity: Option<String>,
    /// The lead guest's name (given name and surname).
    pub lead_guest: Option<String>,
    /// The arrival (an activity: the service date), `YYYY-MM-DD`.
    pub arrival: String,
    /// The nights (a hotel booking: from its first arrival to its last departure).
    pub nights: Option<i64>,
    /// `Reserved` or `Cancelled`.
    pub status: String,
    /// The total as stored (a decimal).
    pub total: String,
    /// The total's currency.
    pub currency: String,
    /// When it was made (UTC).
    pub created: String,
    /// When it last changed (UTC).
    pub modified: String,
}

impl From<&Head> for Row {
    fn from(h: &Head) -> Row {
        let name: Vec<&str> = [h.given_name.as_deref(), h.surname.as_deref()].into_iter().flatten().collect();
        Row {
            kind: h.kind.as_str(),
            internal_ref: h.internal_ref.clone(),
            client_ref: h.client_ref.clone(),
            partner: h.partner.clone(),
            hotel: h.hotel.clone(),
            activity: h.activity.clone(),
            lead_guest: (!name.is_empty()).then(|| name.join(" ")),
            arrival: date_text(h.arrival),
            nights: h.departure.map(|d| (d - h.arrival).num_days()),
            status: h.status.clone(),
            total: h.total.to_string(),
            currency: h.currency.clone(),
            created: instant_text(h.created),
            modified: instant_text(h.modified),
        }
    }
}

/// A page of a search.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// Its rows, in the search's order.
    pub rows: Vec<Row>,
    /// The cursor of the next page (`after`), when there is one.
    pub next: Option<String>,
}

/// The heads a filter names, in its order, at most a page and one more (whether there is a
/// next page), merged from both kinds.
pub(super) async fn heads(store: &Store, f: &Filter) -> Result<Vec<Head>, SearchError> {
    let f = f.clone();
    let mut heads = store
        .read(move |c| {
            Box::pin(async move {
                let mut heads = Vec::new();
                for kind in &f.kinds {
                    heads.extend(repo::heads(c, *kind, &f.select).await?);
                }
                Ok::<_, SearchError>(heads)
            })
        })
        .await?;
    heads.sort_by(|a, b| {
        let (ka, kb) = (a.key(f.sort.by_arrival()), b.key(f.sort.by_arrival()));
        let order = (ka, repo::rank(a.kind), a.id).cmp(&(kb, repo::rank(b.kind), b.id));
        if f.sort.descending() { order.reverse() } else { order }
    });
    Ok(heads)
}

/// One page of the bookings a filter names (see the module docs for the order and paging).
pub async fn search(store: &Store, f: &Filter) -> Result<Page, SearchError> {
    let mut heads = heads(store, f).await?;
    let limit = usize::try_from(f.limit).unwrap_or(0);
    let next = if heads.len() > limit {
        heads.truncate(limit);
        heads.last().map(|h| cursor(f.sort, h))
    } else {
        None
    };
    Ok(Page { rows: heads.iter().map(Row::from).collect(), next })
}

/// A hotel of a supplier with its bookings counted (the hotel extranet's home).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HotelCount {
    /// The hotel's code.
    pub hotel: String,
    /// The hotel bookings with a room stay there.
    pub bookings: i64,
    /// Those with events the supplier has not acknowledged.
    pub unacknowledged: i64,
}

/// Each hotel of `supplier` (by code) with its bookings counted.
pub async fn hotel_counts(store: &Store, supplier: &str) -> Result<Vec<HotelCount>, SearchError> {
    let supplier = supplier.to_string();
    let rows = store.read(move |c| Box::pin(async move { repo::hotel_counts(c, &supplier).await })).await?;
    Ok(rows
        .into_iter()
        .map(|r| HotelCount { hotel: r.hotel_code, bookings: r.bookings, unacknowledged: r.unacknowledged })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn q() -> Query {
        Query::default()
    }

    #[test]
    fn bad_values_are_named() {
        let err = |q: Query| Filter::parse(&q).unwrap_err().to_string();
        assert_eq!(
            err(Query { created_from: Some("2030-02-30".into()), ..q() }),
            "created-from: \"2030-02-30\" is not a date (YYYY-MM-DD)"
        );
        assert_eq!(
            err(Query { limit: Some("1000000".into()), ..q() }),
            "limit: \"1000000\" is not a number from 1 to 500"
        );
        assert_eq!(err(Query { limit: Some("0".into()), ..q() }), "limit: \"0\" is not a number from 1 to 500");
        assert!(err(Query { status: Some("Gone\r\nX".into()), ..q() }).contains("Gone\\u{d}\\u{a}X"));
        assert!(
            err(Query { sort: Some("price".into()), ..q() }).starts_with("sort: \"price\" is not one of created-desc")
        );
        assert!(err(Query { reference: Some("R".repeat(200)), ..q() }).starts_with("ref: longer than"));
        assert!(
            err(Query { arrival_from: Some("2030-05-02".into()), arrival_to: Some("2030-05-01".into()), ..q() })
                .starts_with("arrival-to: 2030-05-01 is before")
        );
        assert!(err(Query { after: Some("created-desc~x~hotel~1".into()), ..q() }).starts_with("after:"));
        assert!(err(Query { after: Some("arrival~2030-01-01~hotel~1".into()), ..q() }).starts_with("after:"));
        assert!(err(Query { hotel: Some("H".into()), activity: Some("A".into()), ..q() }).starts_with("activity:"));
    }

    #[test]
    fn empty_values_are_no_filter_and_statuses_any_case() {
        let f = Filter::parse(&Query { partner: Some("  ".into()), status: Some("cancelled".into()), ..q() }).unwrap();
        assert_eq!(f.select.partner, None);
        assert_eq!(f.select.status.as_deref(), Some("Cancelled"));
        assert_eq!(f.limit, DEFAULT_LIMIT);
        assert_eq!(f.kinds, vec![Kind::Hotel, Kind::Activity]);
    }

    #[test]
    fn a_surname_prefix_is_a_range_of_keys() {
        assert_eq!(above_prefix("smi").as_deref(), Some("smj"));
        assert_eq!(above_prefix("a\u{10FFFF}").as_deref(), Some("b"));
        assert_eq!(above_prefix("\u{10FFFF}"), None);
        assert_eq!(above_prefix("\u{D7FF}").as_deref(), Some("\u{E000}"));
        let f = Filter::parse(&Query { surname: Some("McD".into()), ..q() }).unwrap();
        assert_eq!(f.select.surname, Some(("mcd".to_string(), Some("mce".to_string()))));
    }

    #[test]
    fn a_cursor_reads_back() {
        let d = NaiveDate::from_ymd_opt(2030, 5, 1).unwrap();
        let t = d.and_hms_micro_opt(10, 0, 0, 123_456).unwrap().and_utc();
        let head = Head {
            kind: Kind::Activity,
            id: 42,
            internal_ref: "ACT-1".into(),
            client_ref: "C".into(),
            partner: "P".into(),
            hotel: None,
            activity: Some("A".into()),
            given_name: None,
            surname: None,
            arrival: d,
            departure: None,
            status: RESERVED.into(),
            total: rust_decimal::Decimal::ONE,
            currency: "EUR".into(),
            created: t,
            modified: t,
        };
        let c = cursor(Sort::CreatedDesc, &head);
        assert_eq!(c, "created-desc~2030-05-01T10:00:00.123456Z~activity~42");
        assert_eq!(parse_cursor(&c, Sort::CreatedDesc).unwrap(), (Key::Instant(t), 1, 42));
        let c = cursor(Sort::Arrival, &head);
        assert_eq!(parse_cursor(&c, Sort::Arrival).unwrap(), (Key::Date(d), 1, 42));
    }
}
