//! Traffic per partner and operation, for the people who run the gateway (issue #30;
//! `docs/operators/traffic.md`): what every gateway answered — requests, outcomes (Success,
//! Warning, each OTA error Type/Code, HTTP 4xx, 5xx, 429), latency, looks, quotes and bookings —
//! per minute, hour and UTC day, added up over every gateway in the database.
//!
//! A request costs no database work for being counted: the transport's log line
//! ([`crate::http`]'s `observe`) hands what it knows to [`Recorder::record`] (a short lock and a
//! map update, no allocation for a partner and operation already counted this minute), and
//! [`flush`] adds the counts to the database every `--traffic-flush-interval` (5 s) and when the
//! gateway stops, in one transaction with the look-to-book counts
//! ([`crate::requestors::traffic::Tally`]): one batch, one upsert per row. Each row is added to
//! three rollups at once (its minute, hour and day), so a query of 60 days reads day rows only
//! (100 partners × 15 operations × 60 days: 90,000 rows at most).
//!
//! Bounded: the partner is the id of a requestor that authenticated (a stored one), or the
//! unknown partner (`""`) for every request whose requestor is not known (a failed
//! authentication, a request refused before it, a transport error): made-up ids never make rows.
//! Operations are the gateway's own paths, error Types and Codes the code lists it writes.
//!
//! Latency is counted in fixed buckets ([`BUCKETS_MS`]), so the p50 and p99 of rows added up
//! over gateways, partners and minutes are exact to a bucket (the bucket's upper bound).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Recorder`] (the counts in memory), [`flush`], retention ([`purge`]) |
//! | [`query`] | what the CLI and the console show: [`query::traffic`] over a [`query::Window`] |
//! | [`repo`] | all SQL of the rollups |
//! | [`chart`] | the requests and errors per step as an SVG chart (hand-written, every label escaped) |

pub mod chart;
pub mod query;
pub mod repo;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::requestors::traffic::{Look, Tally};
use crate::store::{Store, StoreError};

/// The upper bounds of the latency buckets, in milliseconds; the last bucket also holds
/// everything slower (a percentile there reads "30 s or more" as 60000).
pub const BUCKETS_MS: [u64; 25] = [
    1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 10000, 30000,
    60000,
];

/// How many latency buckets there are.
pub const BUCKETS: usize = BUCKETS_MS.len();

/// The steps of the rollups, in seconds: a minute, an hour, a UTC day.
pub const STEPS: [i64; 3] = [60, 3600, 86_400];

/// How long each step's rows are kept (minutes 3 hours, hours 9 days, days 62 days): a little
/// more than the longest window that reads them.
pub const KEPT: [(i64, Duration); 3] = [
    (60, Duration::from_secs(3 * 3600)),
    (3600, Duration::from_secs(9 * 86_400)),
    (86_400, Duration::from_secs(62 * 86_400)),
];

/// The partner of the requests whose requestor is not known.
pub const UNKNOWN: &str = "";

/// The bucket of a latency.
pub fn bucket_of(took: Duration) -> usize {
    let micros = took.as_micros();
    BUCKETS_MS.iter().position(|&ms| micros <= u128::from(ms) * 1000).unwrap_or(BUCKETS - 1)
}

/// The counts of one row (a step, partner and operation), or of rows added up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Requests answered.
    pub requests: i64,
    /// OTA answers with Success.
    pub success: i64,
    /// OTA answers with Success and Warnings.
    pub warning: i64,
    /// OTA answers with Errors (by Type and Code in `errors`).
    pub ota_errors: i64,
    /// HTTP 4xx answers other than 429.
    pub http_4xx: i64,
    /// HTTP 5xx answers.
    pub http_5xx: i64,
    /// HTTP 429 answers (a partner's limits).
    pub http_429: i64,
    /// Looks: activity searches and availability checks.
    pub looks: i64,
    /// Quotes (book requests that stored nothing).
    pub quotes: i64,
    /// Bookings (Commits that booked).
    pub bookings: i64,
    /// Requests per latency bucket ([`BUCKETS_MS`]).
    pub latency: [i64; BUCKETS],
}

impl Counts {
    /// Adds `other`.
    pub fn add(&mut self, other: &Counts) {
        self.requests += other.requests;
        self.success += other.success;
        self.warning += other.warning;
        self.ota_errors += other.ota_errors;
        self.http_4xx += other.http_4xx;
        self.http_5xx += other.http_5xx;
        self.http_429 += other.http_429;
        self.looks += other.looks;
        self.quotes += other.quotes;
        self.bookings += other.bookings;
        for (a, b) in self.latency.iter_mut().zip(other.latency.iter()) {
            *a += b;
        }
    }

    /// Requests not answered with Success or Warning (OTA errors and HTTP errors without an OTA
    /// answer).
    pub fn errors(&self) -> i64 {
        (self.requests - self.success - self.warning).max(0)
    }

    /// The share of [`Counts::errors`] in the requests (0 without requests).
    pub fn error_share(&self) -> f64 {
        if self.requests > 0 { self.errors() as f64 / self.requests as f64 } else { 0.0 }
    }

    /// The latency under which a share `p` (0–1) of the requests were answered: the upper
    /// bound of its bucket, in milliseconds; `None` without requests.
    pub fn percentile_ms(&self, p: f64) -> Option<u64> {
        let total: i64 = self.latency.iter().sum();
        if total <= 0 {
            return None;
        }
        let rank = ((p * total as f64).ceil() as i64).clamp(1, total);
        let mut seen = 0;
        for (i, n) in self.latency.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(BUCKETS_MS[i]);
            }
        }
        Some(BUCKETS_MS[BUCKETS - 1])
    }

    /// Looks per booking; `None` without bookings.
    pub fn looks_per_booking(&self) -> Option<f64> {
        (self.bookings > 0).then(|| self.looks as f64 / self.bookings as f64)
    }
}

/// A row's counts with its OTA errors by Type and Code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    /// The counts.
    pub counts: Counts,
    /// OTA error answers by (Type, Code) of their first error.
    pub errors: HashMap<(String, String), i64>,
}

impl Cell {
    fn add(&mut self, other: &Cell) {
        self.counts.add(&other.counts);
        for (k, n) in &other.errors {
            *self.errors.entry(k.clone()).or_default() += n;
        }
    }
}

/// One answered request, as the transport knows it.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    /// When it was answered.
    pub at: DateTime<Utc>,
    /// The requestor that authenticated (`None`: not known).
    pub partner: Option<&'a str>,
    /// The operation (its path without the slash).
    pub operation: &'static str,
    /// The HTTP status.
    pub status: u16,
    /// What the OTA answer said (`Success`, `Warning`, `Error T/C`), when an operation answered.
    pub outcome: Option<&'a str>,
    /// What it counts as for look-to-book.
    pub look: Option<Look>,
    /// How long it took.
    pub took: Duration,
}

/// The key of a row in memory: the minute (Unix seconds) and the operation; then the partner.
type Minute = (i64, &'static str);

/// The counts of one gateway not yet in the database, per minute, operation and partner.
#[derive(Debug, Default)]
pub struct Recorder {
    pending: Mutex<HashMap<Minute, HashMap<Box<str>, Cell>>>,
}

/// What a flush takes out of a [`Recorder`]: minute, operation, partner, counts.
type Rows = Vec<((i64, &'static str, Box<str>), Cell)>;

impl Recorder {
    /// Counts one answered request (never fails, never waits for anything but a short lock).
    pub fn record(&self, a: &Answered<'_>) {
        let minute = a.at.timestamp().div_euclid(60) * 60;
        let partner = a.partner.unwrap_or(UNKNOWN);
        let Ok(mut pending) = self.pending.lock() else { return };
        let partners = pending.entry((minute, a.operation)).or_default();
        let cell = match partners.get_mut(partner) {
            Some(cell) => cell,
            None => partners.entry(partner.into()).or_default(),
        };
        let c = &mut cell.counts;
        c.requests += 1;
        match a.outcome {
            Some("Success") => c.success += 1,
            Some("Warning") => c.warning += 1,
            Some(error) => {
                c.ota_errors += 1;
                let (t, code) = error.strip_prefix("Error ").and_then(|e| e.split_once('/')).unwrap_or(("-", "-"));
                match cell.errors.iter_mut().find(|((et, ec), _)| et == t && ec == code) {
                    Some((_, n)) => *n += 1,
                    None => {
                        cell.errors.insert((t.to_string(), code.to_string()), 1);
                    }
                }
            }
            None => {}
        }
        let c = &mut cell.counts;
        match a.status {
            429 => c.http_429 += 1,
            400..=499 => c.http_4xx += 1,
            500..=599 => c.http_5xx += 1,
            _ => {}
        }
        match a.look {
            Some(Look::Search | Look::Availability) => c.looks += 1,
            Some(Look::Quote) => c.quotes += 1,
            Some(Look::Booking) => c.bookings += 1,
            None => {}
        }
        c.latency[bucket_of(a.took)] += 1;
    }

    /// Takes every pending count out.
    fn take(&self) -> Rows {
        let Ok(mut pending) = self.pending.lock() else { return Vec::new() };
        pending
            .drain()
            .flat_map(|((minute, operation), partners)| {
                partners.into_iter().map(move |(partner, cell)| ((minute, operation, partner), cell))
            })
            .collect()
    }

    /// Puts counts taken out back (their write failed).
    fn give_back(&self, rows: Rows) {
        let Ok(mut pending) = self.pending.lock() else { return };
        for ((minute, operation, partner), cell) in rows {
            pending.entry((minute, operation)).or_default().entry(partner).or_default().add(&cell);
        }
    }

    /// How many rows (minute, operation and partner) are pending.
    pub fn pending_rows(&self) -> usize {
        self.pending.lock().map_or(0, |p| p.values().map(HashMap::len).sum())
    }
}

/// One row of a rollup to add: step, start, partner, operation.
type Rollup = (i64, i64, Box<str>, &'static str);

/// The pending rows added into their minute, hour and day rollups, in the order every gateway
/// writes them (so two gateways' batches never wait for each other in a circle).
fn rollups(rows: &Rows) -> Vec<(Rollup, Cell)> {
    let mut out: HashMap<Rollup, Cell> = HashMap::new();
    for ((minute, operation, partner), cell) in rows {
        for step in STEPS {
            let at = minute.div_euclid(step) * step;
            out.entry((step, at, partner.clone(), operation)).or_default().add(cell);
        }
    }
    let mut out: Vec<_> = out.into_iter().collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Adds what `tally` (look-to-book, per requestor and day) and `recorder` (the rollups) hold
/// to the database, in one transaction; on failure both keep their counts for the next flush.
/// How many rows were written.
pub async fn flush(store: &Store, tally: &Tally, recorder: &Recorder) -> Result<usize, StoreError> {
    let taken = tally.take();
    let rows = recorder.take();
    if taken.is_empty() && rows.is_empty() {
        return Ok(0);
    }
    // What the write holds (a copy: the counts are given back if it fails).
    let writing = Arc::new((taken.clone(), rollups(&rows)));
    let written = store
        .write_now(move |c| {
            Box::pin(async move {
                let (taken, rollups) = &*writing;
                taken.write(c).await?;
                for ((step, at, partner, operation), cell) in rollups {
                    repo::add(c, *step, *at, partner, operation, &cell.counts).await?;
                }
                for ((step, at, partner, operation), cell) in rollups {
                    let mut errors: Vec<_> = cell.errors.iter().collect();
                    errors.sort();
                    for ((t, code), n) in errors {
                        repo::add_error(c, *step, *at, partner, operation, (t, code), *n).await?;
                    }
                }
                Ok::<_, StoreError>(taken.len() + rollups.len())
            })
        })
        .await;
    match written {
        Ok(n) => Ok(n),
        Err(e) => {
            tally.give_back(taken);
            recorder.give_back(rows);
            Err(e)
        }
    }
}

/// Deletes the rows past their retention ([`KEPT`]) as of `now`; how many.
pub async fn purge(store: &Store, now: DateTime<Utc>) -> Result<u64, StoreError> {
    let mut total = 0;
    for (step, kept) in KEPT {
        let before = now.timestamp() - kept.as_secs() as i64;
        total += crate::store::purge::in_batches(store, move |c| {
            Box::pin(async move { repo::purge(c, step, before, crate::store::purge::BATCH).await })
        })
        .await?;
    }
    Ok(total)
}

/// Runs [`purge`] at start and every 10 minutes, forever (the gateway aborts it when it stops).
pub async fn purge_forever(store: Store) {
    crate::store::purge::forever(Duration::from_secs(600), "traffic rollups past their retention", || {
        let store = store.clone();
        async move { purge(&store, Utc::now()).await }
    })
    .await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn answered(partner: Option<&str>, status: u16, outcome: Option<&str>, ms: u64) -> Answered<'static> {
        let partner: Option<&'static str> = partner.map(|p| &*Box::leak(p.to_string().into_boxed_str()));
        let outcome: Option<&'static str> = outcome.map(|o| &*Box::leak(o.to_string().into_boxed_str()));
        Answered {
            at: DateTime::from_timestamp(1_900_000_000, 0).unwrap(),
            partner,
            operation: "hotelnbc",
            status,
            outcome,
            look: None,
            took: Duration::from_millis(ms),
        }
    }

    #[test]
    fn buckets_and_percentiles() {
        assert_eq!(bucket_of(Duration::from_micros(1000)), 0);
        assert_eq!(bucket_of(Duration::from_micros(1001)), 1);
        assert_eq!(bucket_of(Duration::from_millis(45)), 9);
        assert_eq!(bucket_of(Duration::from_secs(3600)), BUCKETS - 1);
        let mut c = Counts::default();
        assert_eq!(c.percentile_ms(0.5), None);
        c.latency[bucket_of(Duration::from_millis(4))] = 98;
        c.latency[bucket_of(Duration::from_millis(400))] = 2;
        assert_eq!((c.percentile_ms(0.5), c.percentile_ms(0.98), c.percentile_ms(0.99)), (Some(5), Some(5), Some(500)));
    }

    #[test]
    fn outcomes_go_to_their_columns_and_unknown_partners_share_a_row() {
        let r = Recorder::default();
        r.record(&answered(Some("P"), 200, Some("Success"), 3));
        r.record(&answered(Some("P"), 200, Some("Warning"), 3));
        r.record(&answered(Some("P"), 429, Some("Error 3/172"), 1));
        r.record(&answered(None, 200, Some("Error 4/497"), 3));
        r.record(&answered(None, 413, None, 3));
        r.record(&answered(None, 500, None, 3));
        assert_eq!(r.pending_rows(), 2, "P and the unknown partner");
        let rows = r.take();
        let get = |p: &str| rows.iter().find(|(k, _)| &*k.2 == p).unwrap().1.clone();
        let p = get("P");
        assert_eq!(
            (p.counts.requests, p.counts.success, p.counts.warning, p.counts.ota_errors, p.counts.http_429),
            (3, 1, 1, 1, 1)
        );
        assert_eq!(p.errors, HashMap::from([(("3".into(), "172".into()), 1)]));
        let u = get(UNKNOWN);
        assert_eq!((u.counts.requests, u.counts.ota_errors, u.counts.http_4xx, u.counts.http_5xx), (3, 1, 1, 1));
        assert_eq!(u.counts.errors(), 3);
        let all = rollups(&rows);
        assert_eq!(all.len(), 6, "two rows, each in its minute, hour and day");
        r.give_back(rows);
        assert_eq!(r.pending_rows(), 2);
    }
}
