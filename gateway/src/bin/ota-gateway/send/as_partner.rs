//! `send --as ID`: a message file (the repository's samples, a partner's captured request) sent
//! as another partner, with its dates moved into the future, so that it can be tried against
//! a gateway whose content and credentials it was not written for (the demo).
//!
//! The text is edited in place (attribute values only, by their positions in the parsed
//! document), so everything else of the file is sent exactly as written.

use chrono::{DateTime, Days, NaiveDate, SecondsFormat, Utc};

/// How far ahead the earliest date of a message is moved: far enough for every booking rule of
/// the demo content (release and cut-off days) to allow it.
const LEAD_DAYS: u64 = 28;

/// Attributes whose dates are not moved: a birth date is the guest's, `TimeStamp` is set to
/// the time of sending instead.
const NOT_MOVED: [&str; 4] = ["BirthDate", "TimeStamp", "CreateDateTime", "LastUpdateDateTime"];

/// The partner a message is sent as.
pub struct Partner {
    /// `RequestorID@ID`.
    pub id: String,
    /// `RequestorID@ID_Context`, where the message has one; kept as written when `None`.
    pub context: Option<String>,
    /// `RequestorID@MessagePassword`, where the message has one.
    pub password: String,
}

/// What [`rewrite`] changed, for the sender to say.
pub struct Rewritten {
    /// The message to send.
    pub text: String,
    /// The number of `RequestorID`s of the root's `POS` now naming the partner.
    pub requestors: usize,
    /// How many whole weeks every date was moved (weeks keep each date's weekday).
    pub weeks: u64,
}

/// Names `partner` in every `RequestorID` of the root's `POS` (its id, and its context and
/// password where the message states one), sets `TimeStamp` to `now`, and, unless `keep_dates`,
/// moves every other date and date-time attribute by the same whole number of weeks so that the
/// earliest lies at least 28 days after `now`.
pub fn rewrite(text: &str, partner: &Partner, now: DateTime<Utc>, keep_dates: bool) -> Result<Rewritten, String> {
    let doc = ota_messages::runtime::parse_document(text).map_err(|e| e.to_string())?;
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();

    let pos = doc.root_element().children().find(|n| n.is_element() && n.tag_name().name() == "POS");
    let mut requestors = 0;
    for requestor in pos.iter().flat_map(|pos| pos.descendants()).filter(|n| n.tag_name().name() == "RequestorID") {
        requestors += 1;
        for attr in requestor.attributes() {
            let value = match attr.name() {
                "ID" => Some(&partner.id),
                "ID_Context" => partner.context.as_ref(),
                "MessagePassword" => Some(&partner.password),
                _ => None,
            };
            if let Some(value) = value {
                edits.push((attr.range_value(), escape(value)));
            }
        }
    }

    let stamp = now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let mut dates = Vec::new();
    for node in doc.descendants().filter(|n| n.is_element()) {
        for attr in node.attributes() {
            if attr.name() == "TimeStamp" {
                edits.push((attr.range_value(), stamp.clone()));
            } else if !NOT_MOVED.contains(&attr.name())
                && let Some(date) = date_part(attr.value())
            {
                dates.push((attr.range_value(), date));
            }
        }
    }
    let earliest = dates.iter().map(|(_, date)| *date).min();
    let target = now.date_naive() + Days::new(LEAD_DAYS);
    let weeks = match earliest {
        Some(earliest) if !keep_dates && earliest < target => (target - earliest).num_days().unsigned_abs().div_ceil(7),
        _ => 0,
    };
    if weeks > 0 {
        for (range, date) in dates {
            let moved = date + Days::new(weeks * 7);
            // Only the date part (the first ten characters) changes; a time and offset stay.
            edits.push((range.start..range.start + 10, moved.format("%Y-%m-%d").to_string()));
        }
    }

    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = text.to_string();
    for (range, value) in edits {
        out.replace_range(range, &value);
    }
    Ok(Rewritten { text: out, requestors, weeks })
}

/// The date of an `xs:date` or `xs:dateTime` value (`2025-07-01`, `2025-07-03T08:50:00`,
/// with or without an offset); `None` for anything else.
fn date_part(value: &str) -> Option<NaiveDate> {
    let head = value.get(..10)?;
    let rest = &value[10..];
    if !(rest.is_empty() || rest.starts_with('T') || rest.starts_with('Z') || rest.starts_with(['+', '-'])) {
        return None;
    }
    NaiveDate::parse_from_str(head, "%Y-%m-%d").ok()
}

/// `value` as an attribute value between double quotes.
fn escape(value: &str) -> String {
    value.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;")
}
