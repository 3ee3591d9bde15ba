//! A booking's history: every change of a booking of either kind writes one row of
//! `booking_history` in its own transaction (who, when, what it left), read by `ota-gateway
//! bookings show` and the console's booking page (`crate::bookings::search`). Written after the
//! booking's own row, like the outbox event ([`super::events`]), so that two changes of one
//! booking are listed in their order. Also the key a guest's surname is searched by
//! ([`surname_key`]).

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use crate::shared::booking::Kind;
use crate::store::{Conn, StoreError};

/// What a change did to a booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Made (a Commit, or an import file).
    Created,
    /// Changed (a modify, or a cancel of some of its rooms).
    Modified,
    /// Cancelled (the whole booking).
    Cancelled,
}

impl Change {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Modified => "modified",
            Change::Cancelled => "cancelled",
        }
    }
}

/// Who made a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By<'a> {
    /// A partner, through the OTA API (its requestor id).
    Partner(&'a str),
    /// An operator, through a command (its name; `import` for an import file).
    Operator(&'a str),
}

/// What a change left: the booking's status and total.
#[derive(Debug, Clone, Copy)]
pub struct State<'a> {
    /// The booking's status (`Reserved`, `Cancelled`).
    pub status: &'a str,
    /// Its total.
    pub total: Decimal,
    /// The total's currency.
    pub currency: &'a str,
}

/// Records, in the caller's write transaction, a change of the booking (`kind`, its Internal
/// reference) by `by` at `at`, leaving it in `state`: written with the transaction's next
/// statement ([`Conn::execute_later`]).
pub async fn record(
    c: &mut Conn<'_>,
    kind: Kind,
    booking_ref: &str,
    change: Change,
    by: By<'_>,
    at: DateTime<Utc>,
    state: State<'_>,
) -> Result<(), StoreError> {
    let (by_kind, by_id) = match by {
        By::Partner(id) => ("partner", id),
        By::Operator(name) => ("operator", name),
    };
    c.execute_later(
        "INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        vec![
            Box::new(kind.as_str().to_string()),
            Box::new(booking_ref.to_string()),
            Box::new(change.as_str().to_string()),
            Box::new(by_kind.to_string()),
            Box::new(by_id.to_string()),
            Box::new(at),
            Box::new(state.status.to_string()),
            Box::new(state.total),
            Box::new(state.currency.to_string()),
        ],
    )
    .await
}

/// The key a surname is stored and searched by: in lower case (Unicode), so that a search
/// ignores case the same way on both backends (a prefix search compares keys by code point).
pub fn surname_key(surname: &str) -> String {
    surname.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surname_keys_ignore_case_beyond_ascii() {
        assert_eq!(surname_key("McDONALD"), "mcdonald");
        assert_eq!(surname_key("ÖZTÜRK"), "öztürk");
        assert_eq!(surname_key("<Script>\r\n"), "<script>\r\n");
    }
}
