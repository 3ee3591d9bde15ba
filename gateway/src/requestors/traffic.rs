//! Look-to-book: what each requestor asks for — activity searches, availability checks (hotel
//! and activity), quotes and bookings, and every admitted request (what daily quotas count) —
//! counted per UTC day in the gateway's memory ([`Tally`])
//! and added to the `requestor_traffic` table every `--traffic-flush-interval` (5 s) and
//! when the gateway stops (one upsert per requestor and day, in the one batch of
//! [`crate::traffic::flush`] with the traffic rollups), so the counts of every gateway add up
//! and a request costs no database work for being counted. `ota-gateway requestor stats`
//! reads them ([`stats`]).

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::NaiveDate;

use super::repo;
use crate::store::{Conn, Store, StoreError};

/// What a request counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// An activity search.
    Search,
    /// A hotel or activity availability check.
    Availability,
    /// A book request that stored nothing (a Quote, or a Commit that was refused).
    Quote,
    /// A Commit that booked.
    Booking,
}

impl Look {
    /// The value of the metrics' `kind` label.
    pub fn as_str(self) -> &'static str {
        match self {
            Look::Search => "search",
            Look::Availability => "availability",
            Look::Quote => "quote",
            Look::Booking => "booking",
        }
    }
}

/// Counts of one requestor (on one day, or added up).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Activity searches.
    pub searches: i64,
    /// Hotel and activity availability checks.
    pub availability: i64,
    /// Quotes.
    pub quotes: i64,
    /// Bookings (Commits that booked).
    pub bookings: i64,
    /// Every request admitted within the requestor's limits (what daily quotas count).
    pub requests: i64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.searches += other.searches;
        self.availability += other.availability;
        self.quotes += other.quotes;
        self.bookings += other.bookings;
        self.requests += other.requests;
    }

    /// Looks (searches and availability checks) per booking; `None` without bookings.
    pub fn looks_per_booking(&self) -> Option<f64> {
        (self.bookings > 0).then(|| (self.searches + self.availability) as f64 / self.bookings as f64)
    }

    /// Quotes per booking; `None` without bookings.
    pub fn quotes_per_booking(&self) -> Option<f64> {
        (self.bookings > 0).then(|| self.quotes as f64 / self.bookings as f64)
    }
}

/// The counts of one gateway not yet in the database, by requestor and UTC day.
#[derive(Debug, Default)]
pub struct Tally {
    pending: Mutex<HashMap<(String, NaiveDate), Counts>>,
}

impl Tally {
    /// Counts one admitted request of `requestor` on `day`, and what it was (`None`: none of
    /// the look-to-book kinds).
    pub fn count(&self, requestor: &str, day: NaiveDate, look: Option<Look>) {
        let Ok(mut pending) = self.pending.lock() else { return };
        let counts = match pending.get_mut(&(requestor.to_string(), day)) {
            Some(c) => c,
            None => pending.entry((requestor.to_string(), day)).or_default(),
        };
        counts.requests += 1;
        match look {
            Some(Look::Search) => counts.searches += 1,
            Some(Look::Availability) => counts.availability += 1,
            Some(Look::Quote) => counts.quotes += 1,
            Some(Look::Booking) => counts.bookings += 1,
            None => {}
        }
    }

    /// The admitted requests of `requestor` on `day` not yet stored.
    pub fn pending_requests(&self, requestor: &str, day: NaiveDate) -> i64 {
        self.pending.lock().ok().and_then(|p| p.get(&(requestor.to_string(), day)).map(|c| c.requests)).unwrap_or(0)
    }

    /// Takes the pending counts out (to be written by [`Taken::write`], in the one batch of
    /// [`crate::traffic::flush`]), in the order every gateway writes rows in (by requestor and
    /// day: two gateways' batches never wait for each other's rows in a circle).
    pub fn take(&self) -> Taken {
        let mut rows: Vec<((String, NaiveDate), Counts)> = match self.pending.lock() {
            Ok(mut pending) => pending.drain().collect(),
            Err(_) => Vec::new(),
        };
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        Taken(rows)
    }

    /// Puts counts taken by [`Tally::take`] back (their write failed): they go with the next
    /// batch.
    pub fn give_back(&self, taken: Taken) {
        if let Ok(mut pending) = self.pending.lock() {
            for ((id, day), counts) in taken.0 {
                pending.entry((id, day)).or_default().add(counts);
            }
        }
    }
}

/// Counts taken out of a [`Tally`], by requestor and day, not yet stored.
#[derive(Debug, Clone, Default)]
pub struct Taken(Vec<((String, NaiveDate), Counts)>);

impl Taken {
    /// True when there is nothing to store.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many rows (requestor and day) it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Adds them to the database, in the caller's transaction: one upsert per requestor and day.
    pub async fn write(&self, c: &mut Conn<'_>) -> Result<(), StoreError> {
        for ((id, day), counts) in &self.0 {
            repo::add_traffic(
                c,
                id,
                *day,
                [counts.searches, counts.availability, counts.quotes, counts.bookings, counts.requests],
            )
            .await?;
        }
        Ok(())
    }
}

/// Every requestor's admitted requests on `day`, as stored (added up over every gateway).
pub async fn requests_on(store: &Store, day: NaiveDate) -> Result<Vec<(String, i64)>, StoreError> {
    store.read(move |c| Box::pin(async move { repo::requests_on(c, day).await })).await
}

/// The stored counts since `since` (a UTC day, included), added up per requestor (one, or
/// all), by requestor id.
pub async fn stats(
    store: &Store,
    requestor: Option<&str>,
    since: NaiveDate,
) -> Result<Vec<(String, Counts)>, StoreError> {
    let id = requestor.map(str::to_string);
    let rows = store.read(move |c| Box::pin(async move { repo::traffic_since(c, id.as_deref(), since).await })).await?;
    Ok(rows
        .into_iter()
        .map(|(id, [searches, availability, quotes, bookings, requests])| {
            (id, Counts { searches, availability, quotes, bookings, requests })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ratios() {
        let c = Counts { searches: 300, availability: 100, quotes: 20, bookings: 4, requests: 500 };
        assert_eq!(c.looks_per_booking(), Some(100.0));
        assert_eq!(c.quotes_per_booking(), Some(5.0));
        assert_eq!(Counts::default().looks_per_booking(), None);
    }

    /// What the gateway's flush does with a tally alone: take, write in one transaction.
    async fn flush(tally: &Tally, store: &Store) -> usize {
        let taken = std::sync::Arc::new(tally.take());
        let rows = taken.len();
        let written = taken.clone();
        store.write_now(move |c| Box::pin(async move { written.write(c).await })).await.unwrap();
        rows
    }

    #[tokio::test]
    async fn counts_of_several_flushes_and_gateways_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&crate::store::Location::Sqlite(dir.path().join("gw.db"))).await.unwrap();
        let day = NaiveDate::from_ymd_opt(2030, 5, 1).unwrap();
        let (one, two) = (Tally::default(), Tally::default());
        one.count("P", day, Some(Look::Search));
        one.count("P", day, Some(Look::Booking));
        two.count("P", day, Some(Look::Search));
        two.count("Q", day, Some(Look::Quote));
        two.count("Q", day, None);
        assert_eq!(two.pending_requests("Q", day), 2);
        assert_eq!(flush(&one, &store).await, 1);
        assert_eq!(flush(&one, &store).await, 0, "nothing pending");
        assert_eq!(flush(&two, &store).await, 2);
        let all = stats(&store, None, day).await.unwrap();
        assert_eq!(
            all,
            vec![
                ("P".into(), Counts { searches: 2, bookings: 1, requests: 3, ..Counts::default() }),
                ("Q".into(), Counts { quotes: 1, requests: 2, ..Counts::default() })
            ]
        );
        assert!(stats(&store, Some("P"), day.succ_opt().unwrap()).await.unwrap().is_empty());
        assert_eq!(requests_on(&store, day).await.unwrap(), vec![("P".into(), 3), ("Q".into(), 2)]);
    }
}
