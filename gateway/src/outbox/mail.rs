//! A booking alert's e-mail as text (pure: no store, no SMTP): its subject, its plain-text body
//! and its `Message-ID`, made from the booking as it stands when the alert is sent. Every value
//! that comes from a partner (a guest's name, a reference, a room type) or from the content (a
//! hotel's name) is put on one line: its control characters (CR, LF, tabs…) become spaces and it
//! is bounded, so no value can start a line of its own or reach a header (lettre encodes the
//! headers it builds; a subject never holds a line break anyway).

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

use crate::hotels::booking::Booking as HotelBooking;
use crate::shared::events::EventKind;

/// The longest value put in a mail line (a longer one is cut, with `…`).
pub const MAX_VALUE: usize = 200;

/// What an alert says about its booking: the booking as stored (none: no longer stored), and
/// the names the content gives.
#[derive(Debug, Clone)]
pub struct About<'a> {
    /// What happened.
    pub event: EventKind,
    /// The event's id (in the footer; its `Message-ID` is made from it).
    pub event_id: i64,
    /// The booking's Internal reference.
    pub booking_ref: &'a str,
    /// The hotel (an activity booking: its location).
    pub hotel_code: &'a str,
    /// The hotel's name in the content (none: not there any more).
    pub hotel_name: Option<&'a str>,
    /// The hotel booking, as it stands now, with the rooms at this hotel only (none: an
    /// activity booking, or no longer stored).
    pub booking: Option<&'a HotelBooking>,
    /// An activity booking's Client reference and what it is (name or code, date).
    pub activity: Option<(Option<&'a str>, String)>,
}

/// A mail's subject and plain-text body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    /// One line: `New booking HTL-… — Hotel X, 12–14 Mar`.
    pub subject: String,
    /// Plain text, lines ending in `\n`.
    pub text: String,
}

/// A value on one line: control characters as spaces, surrounding spaces trimmed, at most
/// [`MAX_VALUE`] characters.
pub fn one_line(value: &str) -> String {
    let flat: String = value.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let flat = flat.trim();
    if flat.chars().count() > MAX_VALUE {
        let mut cut: String = flat.chars().take(MAX_VALUE - 1).collect();
        cut.push('…');
        cut
    } else {
        flat.to_string()
    }
}

/// `12–14 Mar`, `30 Mar–2 Apr`, `30 Dec 2030–2 Jan 2031`: a stay from its first day to its
/// departure.
pub fn stay(start: NaiveDate, end: NaiveDate) -> String {
    if start.year() != end.year() {
        format!("{}–{}", start.format("%-d %b %Y"), end.format("%-d %b %Y"))
    } else if start.month() != end.month() {
        format!("{}–{}", start.format("%-d %b"), end.format("%-d %b"))
    } else {
        format!("{}–{}", start.day(), end.format("%-d %b"))
    }
}

/// The event as a subject starts: `New booking`, `Modified booking`, `Cancelled booking`.
fn what(event: EventKind) -> &'static str {
    match event {
        EventKind::New => "New booking",
        EventKind::Modified => "Modified booking",
        EventKind::Cancelled => "Cancelled booking",
    }
}

/// The alert's mail.
pub fn compose(a: &About<'_>) -> Mail {
    let hotel = match a.hotel_name {
        Some(name) if !one_line(name).is_empty() => one_line(name),
        _ => one_line(a.hotel_code),
    };
    let reference = one_line(a.booking_ref);
    let span = a.booking.and_then(|b| {
        let start = b.rooms.iter().map(|r| r.start).min()?;
        let end = b.rooms.iter().map(|r| r.end).max()?;
        Some(stay(start, end))
    });
    let subject = match &span {
        Some(span) => format!("{} {reference} — {hotel}, {span}", what(a.event)),
        None => format!("{} {reference} — {hotel}", what(a.event)),
    };
    let mut t = String::new();
    let mut line = |s: String| {
        t.push_str(&s);
        t.push('\n');
    };
    line(format!("{} at {hotel} ({}).", what(a.event), one_line(a.hotel_code)));
    line(String::new());
    line(format!("Internal reference: {reference}"));
    match (a.booking, &a.activity) {
        (Some(b), _) => {
            line(format!("Partner's reference: {}", one_line(&b.client_ref)));
            line(format!("Partner: {}", one_line(&b.owner)));
            line(format!("Status: {}", one_line(&b.status)));
            if let Some(lead) = b.guests.first() {
                let name = [lead.prefix.as_deref(), lead.given.as_deref(), lead.surname.as_deref()]
                    .into_iter()
                    .flatten()
                    .map(one_line)
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                line(format!("Lead guest: {}", if name.is_empty() { "-".to_string() } else { name }));
            }
            line(format!("Guests: {}", b.guests.len()));
            line(String::new());
            line("Rooms:".to_string());
            let mut total: Option<Decimal> = Some(Decimal::ZERO);
            for (i, r) in b.rooms.iter().enumerate() {
                let nights = (r.end - r.start).num_days();
                let amount =
                    r.total.map_or_else(|| "not priced".to_string(), |v| format!("{v} {}", one_line(&b.currency)));
                let cancelled = if r.is_live() { "" } else { " (cancelled)" };
                line(format!(
                    "  {}. {}, board {}, {} to {} ({nights} night{}), {amount}{cancelled}",
                    i + 1,
                    one_line(&r.room_type),
                    one_line(&r.board),
                    r.start,
                    r.end,
                    if nights == 1 { "" } else { "s" },
                ));
                if r.is_live() {
                    total = match (total, r.total) {
                        (Some(t), Some(v)) => Some(t + v),
                        _ => None,
                    };
                }
            }
            if b.rooms.is_empty() {
                line("  none at this hotel".to_string());
            }
            line(match total {
                Some(t) => format!("Total of the rooms booked: {t} {}", one_line(&b.currency)),
                None => "Total of the rooms booked: not priced yet".to_string(),
            });
            line(String::new());
            line(format!(
                "Booked: {}; last changed: {}",
                b.created.format("%Y-%m-%d %H:%M"),
                b.updated.format("%Y-%m-%d %H:%M")
            ));
        }
        (None, Some((client_ref, what))) => {
            if let Some(c) = client_ref {
                line(format!("Partner's reference: {}", one_line(c)));
            }
            line(format!("Activity: {}", one_line(what)));
        }
        (None, None) => line("The booking is no longer stored: ask the operator for its details.".to_string()),
    }
    line(String::new());
    line(format!(
        "Sent by the OTA gateway for booking event {} (a repeat of this message has the same Message-ID).",
        a.event_id
    ));
    Mail { subject, text: t }
}

/// The `Message-ID` of the alert of event `event_id` to `address` (without the angle brackets
/// lettre adds): the same on every attempt, so a receiver drops a repeat (a gateway that stops
/// between the relay's acceptance and its note of it sends the alert again).
/// `alert.{event}.{hash of the address}@{domain}`, `domain` the sender's.
pub fn message_id(event_id: i64, address: &str, domain: &str) -> String {
    use blake2::Digest;
    let digest = blake2::Blake2s256::digest(address.to_ascii_lowercase().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let domain = if domain.is_empty() { "ota-gateway.invalid" } else { domain };
    format!("alert.{event_id}.{hex}@{domain}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::hotels::booking::{Guest, Room};

    fn booking(surname: &str) -> HotelBooking {
        let day = |d| NaiveDate::from_ymd_opt(2031, 3, d).unwrap();
        HotelBooking {
            internal_ref: "HTL-7K2M9QX4TB".into(),
            client_ref: "DEMO-2030-0001".into(),
            owner: "DEMO".into(),
            company: None,
            status: "Reserved".into(),
            created: day(1).and_hms_opt(10, 0, 0).unwrap(),
            updated: day(1).and_hms_opt(10, 0, 0).unwrap(),
            currency: "EUR".into(),
            rooms: vec![Room {
                index: None,
                status: None,
                hotel: "HTL00042".into(),
                room_type: "RMSD000000".into(),
                board: "BB".into(),
                start: day(12),
                end: day(14),
                total: Some(Decimal::new(24000, 2)),
                guests: vec![1],
                services: vec![],
                reference: None,
                sources: vec![],
                penalties: vec![],
                cancelled: None,
            }],
            services: vec![],
            guests: vec![Guest {
                rph: 1,
                age_code: "10".into(),
                birth_date: None,
                prefix: Some("Mr".into()),
                given: Some("John".into()),
                surname: Some(surname.into()),
                age: None,
            }],
            comments: vec![],
            item_refs: vec![],
        }
    }

    fn about<'a>(event: EventKind, b: Option<&'a HotelBooking>) -> About<'a> {
        About {
            event,
            event_id: 17,
            booking_ref: "HTL-7K2M9QX4TB",
            hotel_code: "HTL00042",
            hotel_name: Some("Hotel X"),
            booking: b,
            activity: None,
        }
    }

    #[test]
    fn the_subject_says_what_happened_to_which_booking_where_and_when() {
        let b = booking("Smith");
        assert_eq!(
            compose(&about(EventKind::New, Some(&b))).subject,
            "New booking HTL-7K2M9QX4TB — Hotel X, 12–14 Mar"
        );
        assert!(compose(&about(EventKind::Modified, Some(&b))).subject.starts_with("Modified booking HTL-7K2M9QX4TB"));
        assert!(compose(&about(EventKind::Cancelled, None)).subject == "Cancelled booking HTL-7K2M9QX4TB — Hotel X");
        let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(stay(d(2031, 3, 30), d(2031, 4, 2)), "30 Mar–2 Apr");
        assert_eq!(stay(d(2030, 12, 30), d(2031, 1, 2)), "30 Dec 2030–2 Jan 2031");
    }

    #[test]
    fn the_body_has_the_references_guest_stay_and_amounts() {
        let b = booking("Smith");
        let text = compose(&about(EventKind::New, Some(&b))).text;
        for part in [
            "New booking at Hotel X (HTL00042).",
            "Internal reference: HTL-7K2M9QX4TB",
            "Partner's reference: DEMO-2030-0001",
            "Lead guest: Mr John Smith",
            "1. RMSD000000, board BB, 2031-03-12 to 2031-03-14 (2 nights), 240.00 EUR",
            "Total of the rooms booked: 240.00 EUR",
        ] {
            assert!(text.contains(part), "{part:?} in {text}");
        }
        assert!(!text.contains("http"), "link-free");
    }

    #[test]
    fn a_hostile_name_stays_on_its_line_and_out_of_the_subject() {
        let b = booking("Evil\r\nBcc: victim@example.com\r\n\r\n<script>alert(1)</script>");
        let mut hostile = about(EventKind::New, Some(&b));
        hostile.hotel_name = Some("Hotel\r\nX-Injected: yes");
        let mail = compose(&hostile);
        assert!(!mail.subject.contains('\r') && !mail.subject.contains('\n'));
        assert!(mail.text.lines().all(|l| !l.starts_with("Bcc:") && !l.starts_with("X-Injected")));
        assert!(mail.text.contains("Lead guest: Mr John Evil  Bcc: victim@example.com    <script>alert(1)</script>"));
        assert!(!mail.text.contains('\r'));
        let huge = "x".repeat(10_000);
        assert!(one_line(&huge).chars().count() == MAX_VALUE);
    }

    #[test]
    fn the_message_id_is_the_same_for_one_event_and_address_and_differs_otherwise() {
        let a = message_id(17, "frontdesk@hotel.example", "gw.example");
        assert_eq!(a, message_id(17, "FrontDesk@hotel.example", "gw.example"));
        assert_ne!(a, message_id(18, "frontdesk@hotel.example", "gw.example"));
        assert_ne!(a, message_id(17, "other@hotel.example", "gw.example"));
        assert!(a.starts_with("alert.17.") && a.ends_with("@gw.example"));
    }
}
