//! The hotel operations: hotel NBC (`/hotelnbc`), availability (`/hotelavailability`), booking
//! (`/hotelbook`) and the booking modify (`/bookmodify`); the read and the cancel of a hotel
//! booking are the [`crate::bookings`] area's.
//!
//! | file | layer |
//! |---|---|
//! | [`handlers`] | the operations, thin |
//! | [`reader`] | the requests read into domain values: the query, the booking asked for, the change |
//! | [`rules`] | pure, on domain values: dates, prices, the version check, the rooms left, the offers |
//! | `repo` | all SQL: the catalogue, bookings, the rooms sold, imports |
//! | [`import`] | the `hotels` part of an import file |
//! | [`catalogue`] | hotels, rates and boards in memory (part of the content snapshot); pricing |
//! | [`booking`] | the booking as the domain knows it |
//! | [`cache`] | what the area keeps in memory: bookings (checked against their revision), rooms sold |
//! | [`mapping`] | domain values → OTA messages |
//! | [`supply`] | what a hotel's supplier said night by night (rooms on sale, restrictions, amounts), held in memory with the hotel |
//! | [`calendar`] | the hotel's calendar: shown with who set each value, edited through the notifications' path |
//!
//! Decisions:
//! - A booking is visible to its owner (the requestor that made it) only; another requestor's
//!   reference is answered as not found (Code 97), never as "not owned" (99).
//! - Prices are per room and night, by room type, board and currency, independent of the
//!   number of guests.
//! - A modify carries the booking's `LastUpdateDateTime` as read; a change made since makes
//!   it fail rather than be undone (no lost update, on one gateway or many).

pub mod booking;
pub mod cache;
pub mod calendar;
pub mod catalogue;
pub mod handlers;
pub mod import;
pub mod mapping;
pub mod reader;
pub(crate) mod repo;
pub mod rules;
pub mod supply;

pub use cache::{BookingCache, Kept};
pub use handlers::{avail_notif, availability, book, descriptive_info, inv_count_notif, modify, rate_amount_notif};
pub use mapping::modify_payload;

/// The hotel area's part of the gateway that a request is served with: the hotels of the
/// content snapshot it started with, and what the area keeps in memory between requests.
#[derive(Debug, Clone)]
pub struct Area {
    /// The hotels, rates and boards of the request's content snapshot.
    pub catalogue: std::sync::Arc<catalogue::Catalogue>,
    /// What the area keeps in memory (one per gateway).
    pub kept: std::sync::Arc<Kept>,
}

/// The first night whose supply values are kept: the values of earlier nights concern no stay
/// that may still be sold or changed (it is [`MAX_NIGHTS`](rules::MAX_NIGHTS) nights before
/// yesterday in UTC, and yesterday in UTC is before today in every time zone), so every gateway
/// deletes them from the store ([`purge_past_supply`]) and drops them from memory
/// ([`catalogue::Catalogue::dropping_supply_before`]).
pub fn first_kept_night(now: chrono::DateTime<chrono::Utc>) -> chrono::NaiveDate {
    now.date_naive() - chrono::Days::new(rules::MAX_NIGHTS.unsigned_abs() + 1)
}

/// Deletes the supply values of nights before [`first_kept_night`] from the store; how many
/// rows.
pub async fn purge_past_supply(
    store: &crate::store::Store,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<u64, crate::store::StoreError> {
    let first = first_kept_night(now);
    crate::store::purge::in_batches(store, move |c| {
        Box::pin(async move { repo::supply::purge_supply_before(c, first, crate::store::purge::BATCH).await })
    })
    .await
}

/// Runs [`purge_past_supply`] at start and every hour, forever (the gateway aborts it when it
/// stops).
pub async fn purge_past_supply_forever(store: crate::store::Store) {
    crate::store::purge::forever(crate::store::purge::HOURLY, "supply values of past nights", || {
        let store = store.clone();
        async move { purge_past_supply(&store, chrono::Utc::now()).await }
    })
    .await
}

/// The catalogue with what suppliers changed since its supply position (see
/// [`supply`](mod@supply)): only the values changed since are read, only the hotels they are of
/// are copied; `None` when nothing changed.
pub async fn supply_changes(
    store: &crate::store::Store,
    catalogue: &catalogue::Catalogue,
) -> Result<Option<catalogue::Catalogue>, crate::store::StoreError> {
    let since = catalogue.supply_position.clone();
    let (below, read, changed) = store
        .peek(move |c| {
            Box::pin(async move {
                // The position first: values read after it may be newer, never older.
                let below = repo::supply::supply_position(c).await?;
                let mut changed = std::collections::HashMap::new();
                let read = repo::supply::read_supply(c, &since, &mut changed).await?;
                Ok::<_, crate::store::StoreError>((below, read, changed))
            })
        })
        .await?;
    // Nothing new: the position it is at still holds.
    if read.is_empty() {
        return Ok(None);
    }
    let position = catalogue.supply_position.after(below, read);
    let merged = changed.into_iter().filter_map(|(code, newer)| {
        let mut supply = supply::HotelSupply::clone(&catalogue.hotel(&code)?.supply);
        supply.merge(newer);
        Some((code, supply))
    });
    Ok(Some(catalogue.with_supply(position, merged)))
}
