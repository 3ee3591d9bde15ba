//! One booking whole, hotel or activity, whoever made it: its items and prices as stored, its
//! history, its transaction-log entries and its outbox events ([`show`]); the booking a
//! reference names is found by the search's own [`Filter`], so a page and a show never disagree.

use serde::Serialize;

use super::repo;
use super::search::{Filter, Query, Row, SearchError, heads, invalid};
use crate::shared::booking::Kind;
use crate::shared::log_text::LogText;
use crate::store::Store;
use crate::store::values::{date_text, date_time_text, instant_text, millis_text};

/// The most transaction-log entries [`show`] lists (the oldest first).
pub const MAX_LOG_ENTRIES: i64 = 200;

/// A room stay (a hotel booking) or the service (an activity booking), as stored.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    /// The hotel (a room stay).
    pub hotel: Option<String>,
    /// The room type (a room stay).
    pub room_type: Option<String>,
    /// The board (a room stay).
    pub board: Option<String>,
    /// The product (an activity).
    pub product: Option<String>,
    /// The service (an activity).
    pub service: Option<String>,
    /// The arrival, or when the session starts (local).
    pub start: String,
    /// The departure, or when the session ends (local).
    pub end: String,
    /// The price as stored (a room stay: its total; an activity: the booking's total).
    pub price: String,
    /// Its status (`Cancelled` when cancelled).
    pub status: Option<String>,
    /// When it was cancelled (the place's local time).
    pub cancelled_at: Option<String>,
    /// What cancelling it cost.
    pub cancel_penalty: Option<String>,
    /// The pickup (an activity with one): its time and hotel.
    pub pickup: Option<String>,
}

/// A guest (a participant) of a booking.
#[derive(Debug, Clone, Serialize)]
pub struct Guest {
    /// The age qualifying code (a hotel guest) or the category (a participant).
    pub category: String,
    /// The age.
    pub age: Option<i64>,
    /// The name prefix.
    pub name_prefix: Option<String>,
    /// The given name.
    pub given_name: Option<String>,
    /// The surname.
    pub surname: Option<String>,
    /// The participant's price.
    pub price: Option<String>,
}

/// A version of a booking: a change, by whom, when, and what it left.
#[derive(Debug, Clone, Serialize)]
pub struct Version {
    /// `created`, `modified` or `cancelled`.
    pub change: String,
    /// `partner` or `operator`.
    pub by_kind: String,
    /// The partner's requestor id, or the operator's name (`import`: an import file).
    pub by: String,
    /// When (UTC).
    pub at: String,
    /// The status it left (none: not known, for a booking older than its history).
    pub status: Option<String>,
    /// The total it left.
    pub total: Option<String>,
    /// The total's currency.
    pub currency: Option<String>,
    /// Reconstructed from the booking's lifecycle columns (a booking made before the history
    /// was kept): its creation, and its last change only.
    pub reconstructed: bool,
}

/// A transaction-log entry about a booking (see `ota-gateway log show ID`).
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    /// Its id.
    pub id: i64,
    /// When the request came (UTC).
    pub at: String,
    /// Who sent it.
    pub requestor: String,
    /// The operation (its path without the slash).
    pub operation: String,
    /// The HTTP status.
    pub status: i64,
    /// `success` or `error`.
    pub outcome: &'static str,
    /// The references found in it, as the log stores them.
    pub references: Vec<String>,
}

/// An outbox event of a booking.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// Its id (`ota-gateway outbox retry ID`).
    pub id: i64,
    /// The hotel it is about.
    pub hotel: String,
    /// Its number in the booking and hotel.
    pub seq: i64,
    /// The supplier told.
    pub supplier: String,
    /// `new`, `modified` or `cancelled`.
    pub kind: String,
    /// `pending`, `delivered` or `parked`.
    pub state: String,
    /// Delivery attempts so far.
    pub attempts: i64,
    /// When it was written (UTC, milliseconds).
    pub created: String,
    /// When it was delivered.
    pub delivered: Option<String>,
    /// The last delivery error.
    pub last_error: Option<String>,
}

/// One booking whole.
#[derive(Debug, Clone, Serialize)]
pub struct Booking {
    /// What a search lists of it.
    #[serde(flatten)]
    pub head: Row,
    /// Its room stays (a hotel booking) or its service (an activity booking).
    pub items: Vec<Item>,
    /// Its guests (participants), the lead first.
    pub guests: Vec<Guest>,
    /// Its versions, oldest first.
    pub history: Vec<Version>,
    /// Its transaction-log entries, oldest first (at most [`MAX_LOG_ENTRIES`]).
    pub log: Vec<LogEntry>,
    /// Its outbox events, oldest first.
    pub events: Vec<Event>,
}

/// The booking with this Internal or Client reference (only `partner`'s, when given): refused
/// when none has it, or when several do (Client references of several partners).
pub async fn show(store: &Store, reference: &str, partner: Option<&str>) -> Result<Booking, SearchError> {
    let q = Query {
        reference: Some(reference.to_string()),
        partner: partner.map(str::to_string),
        limit: Some("10".into()),
        ..Query::default()
    };
    show_matching(store, reference, q).await
}

/// [`show`] among the hotel bookings with a room stay at a hotel of `supplier` only (the hotel
/// extranet's scope): another booking is [`SearchError::NotFound`], as one that does not exist.
/// The booking comes whole: a page shows only the rooms of the hotels it may show.
pub async fn show_of_supplier(store: &Store, reference: &str, supplier: &str) -> Result<Booking, SearchError> {
    let q = Query {
        reference: Some(reference.to_string()),
        supplier: Some(supplier.to_string()),
        limit: Some("10".into()),
        ..Query::default()
    };
    show_matching(store, reference, q).await
}

impl Item {
    /// A hotel booking's room stay.
    fn of_room(r: repo::RoomRow) -> Item {
        Item {
            hotel: Some(r.hotel_code),
            room_type: Some(r.room_type),
            board: Some(r.board),
            product: None,
            service: None,
            start: date_text(r.start),
            end: date_text(r.end),
            price: r.total.to_string(),
            status: r.status,
            cancelled_at: r.cancelled_at.map(date_time_text),
            cancel_penalty: r.cancel_penalty.map(|p| p.to_string()),
            pickup: None,
        }
    }

    /// An activity booking's service (its price and status are the booking's).
    fn of_service(s: repo::ServiceRow, h: &repo::Head) -> Item {
        Item {
            hotel: None,
            room_type: None,
            board: None,
            product: Some(s.product_code),
            service: Some(s.service_code),
            start: date_time_text(s.start_at),
            end: date_time_text(s.end_at),
            price: h.total.to_string(),
            status: Some(h.status.clone()),
            cancelled_at: s.cancelled_at.map(date_time_text),
            cancel_penalty: s.cancel_penalty.map(|p| p.to_string()),
            pickup: match (s.pickup_at, s.pickup_hotel) {
                (Some(at), Some(hotel)) => Some(format!("{} at {hotel}", date_time_text(at))),
                _ => None,
            },
        }
    }
}

/// The one booking a reference query names, whole.
async fn show_matching(store: &Store, reference: &str, q: Query) -> Result<Booking, SearchError> {
    let filter = Filter::parse(&q)?;
    if filter.select.reference.is_none() {
        return Err(invalid("ref", "a reference is needed"));
    }
    let heads = heads(store, &filter).await?;
    let head = match &heads[..] {
        [] => return Err(SearchError::NotFound(format!("\"{}\"", LogText(reference)))),
        [one] => one.clone(),
        many => {
            return Err(SearchError::Ambiguous {
                reference: format!("\"{}\"", LogText(reference)),
                matches: many
                    .iter()
                    .map(|h| format!("{} of {}", LogText(&h.internal_ref), LogText(&h.partner)))
                    .collect(),
            });
        }
    };
    let h = head.clone();
    store
        .read(move |c| {
            Box::pin(async move {
                let (items, guests) = match h.kind {
                    Kind::Hotel => {
                        let items = repo::rooms(c, h.id).await?.into_iter().map(Item::of_room).collect();
                        (items, repo::hotel_guests(c, h.id).await?)
                    }
                    Kind::Activity => {
                        let items =
                            repo::service(c, h.id).await?.map(|s| Item::of_service(s, &h)).into_iter().collect();
                        (items, repo::participants(c, h.id).await?)
                    }
                };
                let guests = guests
                    .into_iter()
                    .map(|g| Guest {
                        category: g.category,
                        age: g.age,
                        name_prefix: g.name_prefix,
                        given_name: g.given_name,
                        surname: g.surname,
                        price: g.amount.map(|a| a.to_string()),
                    })
                    .collect();
                let history = repo::history(c, h.kind, &h.internal_ref)
                    .await?
                    .into_iter()
                    .map(|v| Version {
                        change: v.change,
                        by_kind: v.by_kind,
                        by: v.by_id,
                        at: instant_text(v.at),
                        status: v.status,
                        total: v.total.map(|t| t.to_string()),
                        currency: v.currency,
                        reconstructed: v.reconstructed,
                    })
                    .collect();
                let log = repo::log_entries(c, &h.internal_ref, &h.client_ref, &h.partner, MAX_LOG_ENTRIES)
                    .await?
                    .into_iter()
                    .map(|e| LogEntry {
                        id: e.id,
                        at: instant_text(e.at),
                        requestor: e.requestor_id,
                        operation: e.operation,
                        status: e.status,
                        outcome: if e.success { "success" } else { "error" },
                        references: e.refs.split_whitespace().map(str::to_string).collect(),
                    })
                    .collect();
                let events = repo::events(c, h.kind, &h.internal_ref)
                    .await?
                    .into_iter()
                    .map(|e| Event {
                        id: e.id,
                        hotel: e.hotel_code,
                        seq: e.seq,
                        supplier: e.supplier_id,
                        kind: e.event_kind,
                        state: e.state,
                        attempts: e.attempts,
                        created: millis_text(e.created_at),
                        delivered: e.delivered_at.map(millis_text),
                        last_error: e.last_error,
                    })
                    .collect();
                Ok::<_, SearchError>(Booking { head: Row::from(&h), items, guests, history, log, events })
            })
        })
        .await
}
