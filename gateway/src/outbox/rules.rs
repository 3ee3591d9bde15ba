//! The outbox's pure rules: when to try again, what an event is called, and the states; what
//! a supplier's read by criteria may ask (its date ranges, the items it may leave unread).

use std::time::Duration;

use chrono::NaiveDate;
use ota_messages::common::ErrorCode;

use crate::errors::Problem;

/// An event waits for delivery (or for its acknowledgement, by pull).
pub const PENDING: &str = "pending";
/// An event the supplier acknowledged.
pub const DELIVERED: &str = "delivered";
/// An event that failed `--outbox-max-attempts` times: held until `outbox retry`.
pub const PARKED: &str = "parked";

/// The wait before the attempt after `attempts` failed ones: `base` × 2^(attempts − 1), at most
/// `max`, then "full jitter" over its upper half (`jitter` in 0..1 picks the point), so that
/// gateways retrying after one outage spread out instead of hitting the receiver together.
pub fn backoff(attempts: u32, base: Duration, max: Duration, jitter: f64) -> Duration {
    let exp = attempts.saturating_sub(1).min(30);
    let full = base.saturating_mul(1u32 << exp).min(max);
    full.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
}

/// An event as logs name it: `{id} ({Internal reference}/{hotel}/{seq})`, e.g.
/// `17 (HTL-7K2M9QX4TB/HTL00042/2)`. Its id is its stable identity, the `MessageID` of every
/// message that delivers it (a repeat carries the same); the rest says which booking, hotel and
/// place among that booking's events there.
pub fn identity(id: i64, booking_ref: &str, hotel: &str, seq: i64) -> String {
    format!("{id} ({booking_ref}/{hotel}/{seq})")
}

/// An error text as stored and logged: one line, at most 500 characters.
pub fn error_text(e: &str) -> String {
    let one: String = e.chars().map(|c| if c.is_control() { ' ' } else { c }).take(500).collect();
    one.trim().to_string()
}

/// How much of a receiver's answer an attempt keeps (as text): an `OTA_HotelResNotifRS` with
/// its warnings fits; a larger one is cut (its full length is kept beside it).
pub const KEPT_ANSWER: usize = 4 * 1024;

/// A receiver's answer as an attempt keeps it: its first [`KEPT_ANSWER`] bytes as text (bytes
/// that are not UTF-8, and a character cut at the end, become U+FFFD; so does NUL, which a
/// PostgreSQL text cannot hold). Anything else (control characters, markup) is kept as sent:
/// whoever shows it escapes it.
pub fn kept_answer(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(KEPT_ANSWER)];
    String::from_utf8_lossy(cut).replace('\0', "\u{FFFD}")
}

/// A receiver URL as an attempt keeps and shows it: without its user and password, and with
/// every query value as `***` (a token may be one; the names are kept), no fragment. A URL that
/// does not parse is not kept (`None`): it could hold anything.
pub fn redacted_url(url: &str) -> Option<String> {
    let mut u = reqwest::Url::parse(url).ok()?;
    let _ = u.set_password(None);
    let _ = u.set_username("");
    u.set_fragment(None);
    if u.query().is_some() {
        let names: Vec<String> = u.query_pairs().map(|(k, _)| k.into_owned()).collect();
        if names.is_empty() {
            u.set_query(None);
        } else {
            u.query_pairs_mut().clear().extend_pairs(names.iter().map(|k| (k.as_str(), "***")));
        }
    }
    Some(u.to_string())
}

/// The most days one range of a supplier's read by dates covers (both ends counted).
pub const MAX_RANGE_DAYS: i64 = 400;

/// A supplier's range of dates (`Start` to `End`, both included), checked: `Start` not after
/// `End` (Type 3, Code 404, at `tag`/@End), at most [`MAX_RANGE_DAYS`] days (Type 3, Code 161,
/// at `tag`/@End, saying how to narrow it).
pub fn date_range(start: NaiveDate, end: NaiveDate, tag: &str) -> Result<(), Problem> {
    if end < start {
        return Err(Problem::biz(
            ErrorCode::InvalidStartEndDateCombination,
            format!("End {end} is before Start {start}."),
        )
        .at(format!("{tag}/@End")));
    }
    let days = (end - start).num_days() + 1;
    if days > MAX_RANGE_DAYS {
        return Err(Problem::biz(
            ErrorCode::SearchCriteriaInvalid,
            format!(
                "Start {start} to End {end} is {days} days; a read covers at most {MAX_RANGE_DAYS} days: read it in several ranges."
            ),
        )
        .at(format!("{tag}/@End")));
    }
    Ok(())
}

/// The Warning of a read by dates that matched more bookings than it gives (`limit`): how to
/// narrow it (a shorter range, a `HotelCode`, a `ResStatus`).
pub fn more_than_read(limit: i64, start: NaiveDate, end: NaiveDate) -> Problem {
    Problem::advisory(
        ErrorCode::SearchCriteriaInvalid,
        format!(
            "More than {limit} bookings match Start {start} to End {end}: the first {limit} are given. Narrow the read to see the others: a shorter range (read it in several), HotelCode, or ResStatus."
        ),
    )
    .at("/OTA_ReadRQ/ReadRequests/HotelReadRequest/SelectionCriteria")
}

/// Whether a supplier's read may hold an OpenTravel 2016B item the service does not read (its
/// path without the root and indexes, `POS/Source/@AgentSine`, as the decisions name it) and
/// still be answered: only what says who asks (the point of sale), the target system or
/// transaction (`@TargetName`, `@TransactionStatusCode`) and a reference's `@URL`. Anything
/// else would narrow or change what is read (a count, a further criterion, an extension, a
/// required criterion left out): refused, never ignored.
pub fn supplier_may_leave_unread(item: &str) -> bool {
    item == "POS"
        || item.starts_with("POS/")
        || matches!(item, "@TargetName" | "@TransactionStatusCode")
        || item == "UniqueID/@URL"
        || item == "ReadRequests/ReadRequest/UniqueID/@URL"
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_maximum_and_is_jittered_over_the_upper_half() {
        let (base, max) = (Duration::from_millis(100), Duration::from_secs(2));
        assert_eq!(backoff(1, base, max, 1.0), Duration::from_millis(100));
        assert_eq!(backoff(1, base, max, 0.0), Duration::from_millis(50));
        assert_eq!(backoff(3, base, max, 1.0), Duration::from_millis(400));
        assert_eq!(backoff(10, base, max, 1.0), max);
        assert_eq!(backoff(100, base, max, 0.0), Duration::from_secs(1));
    }

    #[test]
    fn an_event_is_named_by_its_id_and_its_place() {
        assert_eq!(identity(17, "HTL-7K2M9QX4TB", "HTL00042", 3), "17 (HTL-7K2M9QX4TB/HTL00042/3)");
        assert_eq!(error_text("a\nb"), "a b");
    }

    #[test]
    fn a_kept_url_has_no_user_password_or_query_value() {
        assert_eq!(
            redacted_url("https://gw:s3cret@pms.example.com:8443/ota?token=abc&hotel=42#frag").as_deref(),
            Some("https://pms.example.com:8443/ota?token=***&hotel=***")
        );
        assert_eq!(redacted_url("http://user@127.0.0.1/n").as_deref(), Some("http://127.0.0.1/n"));
        assert_eq!(redacted_url("http://127.0.0.1/n?").as_deref(), Some("http://127.0.0.1/n"));
        assert_eq!(redacted_url("not a url"), None);
    }

    #[test]
    fn a_kept_answer_is_bounded_text_without_nul() {
        let huge = vec![b'x'; 100_000];
        assert_eq!(kept_answer(&huge).len(), KEPT_ANSWER);
        assert_eq!(kept_answer(b"a\0b\xffc"), "a\u{FFFD}b\u{FFFD}c");
        // A character cut by the bound is replaced, not split.
        let mut cut = vec![b'a'; KEPT_ANSWER - 1];
        cut.extend("é".as_bytes());
        assert!(kept_answer(&cut).ends_with('\u{FFFD}'));
    }

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap_or_default()
    }

    #[test]
    fn a_range_runs_forwards_over_at_most_400_days() {
        assert!(date_range(d("2030-01-01"), d("2030-01-01"), "T").is_ok());
        assert!(date_range(d("2030-01-01"), d("2031-02-04"), "T").is_ok(), "400 days, both ends counted");
        let long = date_range(d("2030-01-01"), d("2031-02-05"), "T").unwrap_err();
        assert_eq!(long.code, ErrorCode::SearchCriteriaInvalid);
        assert!(long.text.contains("401 days"), "{}", long.text);
        assert_eq!(long.tag.as_deref(), Some("T/@End"));
        let backwards = date_range(d("2030-01-02"), d("2030-01-01"), "T").unwrap_err();
        assert_eq!(backwards.code, ErrorCode::InvalidStartEndDateCombination);
    }

    #[test]
    fn a_supplier_may_leave_unread_only_who_asks_and_where() {
        for ok in ["POS", "POS/Source/@AgentSine", "@TargetName", "@TransactionStatusCode", "UniqueID/@URL"] {
            assert!(supplier_may_leave_unread(ok), "{ok}");
        }
        for refused in [
            "@MaxResponses",
            "@MoreIndicator",
            "@MoreDataEchoToken",
            "ReadRequests/HotelReadRequest/SelectionCriteria/@Duration",
            "ReadRequests/HotelReadRequest/SelectionCriteria/@Start",
            "ReadRequests/HotelReadRequest/SelectionCriteria/@SelectionType",
            "ReadRequests/HotelReadRequest",
            "ReadRequests/HotelReadRequest/TPA_Extensions",
            "UniqueID",
            "UniqueID/TPA_Extensions",
            "UniqueID/CompanyName/@Division",
            "ReadRequests",
            "POSX",
        ] {
            assert!(!supplier_may_leave_unread(refused), "{refused}");
        }
    }
}
