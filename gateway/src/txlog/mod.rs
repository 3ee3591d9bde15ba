//! The transaction log: what chosen partners sent and were answered, kept in the database
//! (every gateway writes to one log) for disputes ("what did you send me at 10:02"), support
//! and certification, and replayed against another gateway by `ota-gateway replay`.
//!
//! - **Chosen per partner** ([`Policy`]: `ota-gateway requestor set ID --log
//!   off|errors|bookings|all --log-sample 0.1`, or `log` / `log_sample` in the import file), off
//!   by default. Only requests that authenticated are logged (their partner is known).
//! - **What is kept** ([`Entry`]): the request and answer bodies, the request id, the
//!   `EchoToken`, the booking references found in either body, the HTTP status, whether the
//!   answer was an error, the time taken and the content version that answered.
//! - **Never a password** and, unless the operator turns masking off (`serve --log-unmasked`),
//!   **no personal value**: [`mask`] removes every `MessagePassword` and WS-Security `Password`
//!   and replaces the values the spec marks personal (`gen:personal`, listed by the generator
//!   in [`ota_messages::PERSONAL`]) with their masks, before anything is stored; and, by what a
//!   value is, card data, secrets and SOAP header values always, free text and contact details
//!   when masking ([`mask`]). A body that is not well-formed XML cannot be checked, so it is not
//!   stored (a note says so).
//! - **Off the request path**: the HTTP layer ([`crate::http`]) hands the raw bodies (shared
//!   buffers, no copy) to a [`Recorder`]: a bounded queue (4,096 entries, 64 MiB of bodies) and
//!   one writer task, which masks a batch on a blocking thread and stores it in one transaction.
//!   When the queue is full the entry is dropped and counted
//!   (`ota_txlog_entries_total{outcome="dropped"}`): an answer never waits for the log. So are
//!   the entries over the writer's byte rate (`--log-max-rate`, 4 MiB of bodies a second), which
//!   bounds what the log takes of the database and the CPU however busy the partners are.
//! - **Retention** (`serve --log-retention 60d`): every gateway deletes older entries in
//!   batches of [`PURGE_BATCH`] rows ([`purge`]), when it starts and then every
//!   [`Settings::purge_every`].
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Policy`], [`Settings`], [`Recorder`] (the queue and the writer), [`purge`] |
//! | [`read`] | `ota-gateway log`: [`search`], [`show`], [`export`] and the [`Pages`] an export and a replay read; the console's [`Ask`] and [`search_page`] |
//! | [`mask`] | passwords out, personal values masked, `EchoToken` and references read, credentials put back for a replay |
//! | [`repo`] | all SQL of the log |
//! | [`replay`] | `ota-gateway replay`: recorded requests sent to another gateway, answers compared |
//! | `tests` | unit tests of `mod.rs` |

pub mod mask;
pub mod read;
pub mod replay;
pub mod repo;

pub use read::{Ask, Filter, Found, Outcome, PAGE, Pages, export, search, search_page, show};

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};

use crate::store::{Abandoned, Store, StoreError};

/// What of a partner's traffic is logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum Level {
    /// Nothing (the default).
    #[default]
    Off,
    /// Requests answered with an error (OTA `Errors`, or an HTTP status other than 200).
    Errors,
    /// Errors, and every request of a booking's life: hotel and activity bookings (Quotes
    /// too), modifies, cancels and reads.
    Bookings,
    /// Everything: errors and bookings in full, the rest (searches, availability, static
    /// content) at the policy's sampling rate.
    All,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Off, Level::Errors, Level::Bookings, Level::All];

    /// Its name on the command line, in the import file and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Errors => "errors",
            Level::Bookings => "bookings",
            Level::All => "all",
        }
    }

    /// The level of a name (see [`Level::as_str`]).
    pub fn parse(name: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == name.trim())
            .ok_or_else(|| format!("{name:?} is not a log level: off, errors, bookings or all"))
    }
}

/// The operations of a booking's life (by path without the slash), logged in full from
/// [`Level::Bookings`] on.
pub const BOOKING_OPERATIONS: &[&str] = &["hotelbook", "activitybook", "bookmodify", "bookcancel", "bookread"];

/// A share of requests, in millionths (1,000,000: all of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Sample(u32);

impl Sample {
    /// Every request.
    pub const ALL: Sample = Sample(1_000_000);

    /// The share of `ppm` millionths (at most a million).
    pub fn from_ppm(ppm: u32) -> Sample {
        Sample(ppm.min(1_000_000))
    }

    /// Its millionths.
    pub fn ppm(self) -> u32 {
        self.0
    }

    /// A share written `0.1`, `0`, `1` or `10%`.
    pub fn parse(text: &str) -> Result<Sample, String> {
        let t = text.trim();
        let (number, scale) = match t.strip_suffix('%') {
            Some(p) => (p.trim(), 100.0),
            None => (t, 1.0),
        };
        let share = number
            .parse::<f64>()
            .ok()
            .map(|v| v / scale)
            .filter(|v| (0.0..=1.0).contains(v))
            .ok_or_else(|| format!("{text:?} is not a share between 0 and 1 (0.1, 10%)"))?;
        Ok(Sample((share * 1_000_000.0).round() as u32))
    }

    /// True for a request drawn into the sample (a random draw, unless all or none).
    pub fn draw(self) -> bool {
        match self.0 {
            0 => false,
            1_000_000.. => true,
            ppm => (uuid::Uuid::new_v4().as_u128() % 1_000_000) < u128::from(ppm),
        }
    }
}

impl Default for Sample {
    fn default() -> Self {
        Sample::ALL
    }
}

impl fmt::Display for Sample {
    /// As a share: `1`, `0.1`, `0.0005`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", f64::from(self.0) / 1_000_000.0)
    }
}

/// A partner's transaction log policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// What is logged.
    pub level: Level,
    /// At [`Level::All`], the share of the requests that are neither errors nor of a booking's
    /// life (searches, availability, static content) that is logged.
    pub sample: Sample,
}

impl Policy {
    /// Whether a request of `operation` (its path without the slash) that `failed` (an error
    /// answer) is logged; at [`Level::All`], a request outside the booking operations is drawn
    /// by the sample.
    pub fn wants(&self, operation: &str, failed: bool) -> bool {
        match self.level {
            Level::Off => false,
            _ if failed => true,
            Level::Errors => false,
            _ if BOOKING_OPERATIONS.contains(&operation) => true,
            Level::Bookings => false,
            Level::All => self.sample.draw(),
        }
    }
}

/// The operator's settings of the log: the `--log-*` arguments of `ota-gateway serve`.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
#[group(id = "TxlogSettings")]
pub struct Settings {
    /// Store guests' names and birth dates (the spec's personal fields) in the transaction log
    /// as they are; by default they are masked. Passwords are never stored.
    // The field says the opposite of the flag: personal values are masked unless it is given.
    #[arg(
        id = "log_unmasked", long = "log-unmasked",
        env = "OTA_GATEWAY_LOG_UNMASKED",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::TypedValueParser::map(clap::builder::BoolValueParser::new(), |unmasked: bool| !unmasked)
    )]
    pub masked: bool,
    /// How long the transaction log keeps entries (e.g. 60d, 12h), or `off` to keep them:
    /// older ones are deleted by every gateway (at start, then every tenth of it, at most
    /// hourly).
    #[arg(id = "log_retention", long = "log-retention", value_name = "LOG_RETENTION", default_value = "60d", value_parser = crate::args::parse_retention, env = "OTA_GATEWAY_LOG_RETENTION")]
    pub retention: std::option::Option<Duration>,
    /// The most bytes of bodies waiting for the writer; over it, entries are dropped.
    #[arg(skip = 64_usize << 20)]
    pub queue_bytes: usize,
    /// The most entries waiting for the writer; over it, entries are dropped.
    #[arg(skip = 4096_usize)]
    pub queue_entries: usize,
    /// The most bytes of request and answer bodies this gateway stores in the transaction log
    /// per second (e.g. 4MiB); entries over it are dropped and counted, never waited for.
    // Dropped before they are masked, so the log's share of the database and of the CPU stays
    // bounded whatever the traffic.
    #[arg(id = "log_max_rate", long = "log-max-rate", value_name = "LOG_MAX_RATE", default_value = "4MiB", value_parser = crate::args::parse_size, env = "OTA_GATEWAY_LOG_MAX_RATE")]
    pub max_rate: usize,
    /// The most bytes of bodies this gateway stores per minute of requests that did not
    /// authenticate (the errors of the partner their POS names, which anyone can send), after
    /// a burst of 16 times it (e.g. 64KiB; 0 stores none); over it, they are dropped and counted.
    // Anonymous traffic cannot fill the disk: 64 KiB a minute is 92 MB a day at most.
    #[arg(id = "log_unauthenticated_rate", long = "log-unauthenticated-rate", value_name = "LOG_UNAUTHENTICATED_RATE", default_value = "64KiB", value_parser = crate::args::parse_size, env = "OTA_GATEWAY_LOG_UNAUTHENTICATED_RATE")]
    pub unauthenticated_rate: usize,
}

/// The default retention (`--log-retention`'s default, 60d), as a value.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(60 * 86_400);

/// How many rows one retention statement deletes (one short transaction each).
pub const PURGE_BATCH: i64 = 1000;

/// The largest body stored; a longer answer is cut there (and marked so).
pub const MAX_STORED_BODY: usize = 1 << 20;

/// How many entries the writer stores in one transaction at most.
const BATCH: usize = 256;

impl Default for Settings {
    /// The defaults of the `--log-*` arguments.
    fn default() -> Self {
        crate::args::defaults()
    }
}

impl Settings {
    /// How often a gateway deletes the entries past the retention: a tenth of it, between a
    /// second and an hour.
    pub fn purge_every(&self) -> Duration {
        self.retention
            .map_or(Duration::from_secs(3600), |r| (r / 10).clamp(Duration::from_secs(1), Duration::from_secs(3600)))
    }
}

/// One request and its answer as the HTTP layer saw them: the raw bodies (passwords and
/// personal values still in them; [`mask`] takes them out in the writer).
#[derive(Debug, Clone)]
pub struct Captured {
    /// When the request came.
    pub at: DateTime<Utc>,
    /// The requestor that authenticated.
    pub requestor: String,
    /// The operation (its path without the slash).
    pub operation: &'static str,
    /// The request id.
    pub request_id: String,
    /// The HTTP status of the answer.
    pub status: u16,
    /// True when the answer was an error (OTA `Errors`, or a status other than 200).
    pub failed: bool,
    /// From the request's arrival to its answer.
    pub duration: Duration,
    /// The version of the content that answered.
    pub content_version: i64,
    /// The request body as received (decompressed).
    pub request: Bytes,
    /// The answer body as sent (before compression).
    pub answer: Bytes,
    /// False for a request that did not authenticate (logged for the partner its POS names):
    /// it takes from [`Settings::unauthenticated_rate`] too.
    pub authenticated: bool,
}

/// A stored entry of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its id (from the arrival time, see `new_id`).
    pub id: i64,
    /// When the request came (whole seconds, UTC).
    pub at: DateTime<Utc>,
    /// The requestor.
    pub requestor: String,
    /// The operation (its path without the slash).
    pub operation: String,
    /// The request id.
    pub request_id: String,
    /// The request's `EchoToken`, if any.
    pub echo_token: Option<String>,
    /// The booking references of the request and the answer.
    pub references: Vec<String>,
    /// The HTTP status.
    pub status: i64,
    /// False for an error answer.
    pub success: bool,
    /// Microseconds from the request's arrival to its answer.
    pub duration_us: i64,
    /// The content version that answered.
    pub content_version: i64,
    /// True when personal values were masked.
    pub masked: bool,
    /// The request as stored (no password; personal values masked when `masked`).
    pub request: String,
    /// The answer as stored (personal values masked when `masked`).
    pub answer: String,
    /// True when the answer was longer than [`MAX_STORED_BODY`] and is cut there.
    pub answer_truncated: bool,
}

impl Entry {
    /// The entry of a captured request and answer: passwords out, personal values masked when
    /// `masked`, the `EchoToken` and references read.
    pub fn of(c: &Captured, masked: bool) -> Entry {
        let request = mask::prepare(&c.request, masked);
        let answer = mask::prepare(&c.answer, masked);
        let mut references = request.references;
        for r in answer.references {
            if !references.contains(&r) && references.len() < mask::MAX_REFERENCES {
                references.push(r);
            }
        }
        let (answer_text, answer_truncated) = cut(answer.text);
        Entry {
            id: new_id(c.at),
            at: c.at,
            requestor: c.requestor.clone(),
            operation: c.operation.to_string(),
            request_id: c.request_id.clone(),
            echo_token: request.echo_token,
            references,
            status: i64::from(c.status),
            success: !c.failed,
            duration_us: i64::try_from(c.duration.as_micros()).unwrap_or(i64::MAX),
            content_version: c.content_version,
            masked,
            request: cut(request.text).0,
            answer: answer_text,
            answer_truncated,
        }
    }

    /// The entry as one line of JSON (`log export`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "at": crate::store::values::instant_text(self.at),
            "requestor": self.requestor,
            "operation": self.operation,
            "request_id": self.request_id,
            "echo_token": self.echo_token,
            "references": self.references,
            "status": self.status,
            "success": self.success,
            "duration_us": self.duration_us,
            "content_version": self.content_version,
            "masked": self.masked,
            "request": self.request,
            "answer": self.answer,
            "answer_truncated": self.answer_truncated,
        })
    }
}

/// A text cut to [`MAX_STORED_BODY`] bytes (at a character boundary), and whether it was.
fn cut(mut text: String) -> (String, bool) {
    if text.len() <= MAX_STORED_BODY {
        return (text, false);
    }
    let mut end = MAX_STORED_BODY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (text, true)
}

/// A new entry id for a request that came `at`: its microseconds since 1970 times 1,000 plus
/// a random 0–999, so ids follow the requests' arrival (entries of one second are listed in
/// order) and two gateways' entries of one microsecond differ but once in a thousand draws.
fn new_id(at: DateTime<Utc>) -> i64 {
    let random = (uuid::Uuid::new_v4().as_u128() % 1000) as i64;
    at.timestamp_micros().max(0).saturating_mul(1000).saturating_add(random).max(1)
}

/// What the writer is given.
enum Job {
    /// An entry to store.
    Entry(Captured),
    /// Answer once everything queued before is stored (or failed).
    Flush(oneshot::Sender<()>),
}

/// The gateway's side of the log: a bounded queue of captured requests and the one writer task
/// that stores them in batches (cheap to clone).
#[derive(Debug, Clone)]
pub struct Recorder {
    tx: mpsc::Sender<Job>,
    queued: Arc<AtomicUsize>,
    limit: usize,
}

impl Recorder {
    /// Starts the writer of `store` (on the current Tokio runtime; it ends when the last
    /// clone of the recorder is dropped).
    pub fn start(store: Store, settings: &Settings) -> Recorder {
        let (tx, rx) = mpsc::channel(settings.queue_entries.max(1));
        let queued = Arc::new(AtomicUsize::new(0));
        tokio::spawn(write_loop(store, rx, queued.clone(), settings.clone()));
        Recorder { tx, queued, limit: settings.queue_bytes }
    }

    /// Queues a captured request for the writer, without waiting: when the queue is full
    /// (entries or bytes), the entry is dropped and counted.
    pub fn record(&self, captured: Captured) {
        let size = captured.request.len() + captured.answer.len();
        if self.queued.fetch_add(size, Ordering::AcqRel) + size > self.limit {
            self.queued.fetch_sub(size, Ordering::AcqRel);
            crate::metrics::txlog_entries("dropped", 1);
            return;
        }
        if self.tx.try_send(Job::Entry(captured)).is_err() {
            self.queued.fetch_sub(size, Ordering::AcqRel);
            crate::metrics::txlog_entries("dropped", 1);
        }
    }

    /// Waits until every entry queued before is stored (or has failed).
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Job::Flush(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }
}

/// How many minutes of [`Settings::unauthenticated_rate`] may be stored at once.
const UNAUTHENTICATED_BURST: f64 = 16.0;

/// Bytes the writer may still store: a bucket of `capacity` bytes, refilled at `per_second`
/// ([`Settings::max_rate`]: one second of it; [`Settings::unauthenticated_rate`]:
/// [`UNAUTHENTICATED_BURST`] minutes of it).
#[derive(Debug)]
struct Bucket {
    per_second: f64,
    capacity: f64,
    tokens: f64,
    at: std::time::Instant,
}

impl Bucket {
    fn new(per_second: f64, capacity: f64) -> Bucket {
        Bucket { per_second, capacity, tokens: capacity, at: std::time::Instant::now() }
    }

    /// True (and counted) when `size` more bytes are in the bucket.
    fn take(&mut self, size: usize) -> bool {
        let now = std::time::Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.per_second;
        (self.tokens, self.at) = ((self.tokens + refill).min(self.capacity), now);
        if size as f64 > self.tokens {
            return false;
        }
        self.tokens -= size as f64;
        true
    }
}

/// The writer: takes what is queued (up to [`BATCH`] entries), drops what is over the byte
/// rates, prepares the rest on a blocking thread, stores it in one transaction, and answers the
/// flushes.
async fn write_loop(store: Store, mut rx: mpsc::Receiver<Job>, queued: Arc<AtomicUsize>, settings: Settings) {
    let mut flushes = Vec::new();
    let mut batch = Vec::new();
    let masked = settings.masked;
    let max_rate = settings.max_rate as f64;
    let mut budget = Bucket::new(max_rate, max_rate);
    let per_minute = settings.unauthenticated_rate as f64;
    let mut unauthenticated = Bucket::new(per_minute / 60.0, per_minute * UNAUTHENTICATED_BURST);
    while let Some(job) = rx.recv().await {
        let mut next = Some(job);
        while let Some(job) = next.take() {
            match job {
                Job::Entry(c) => batch.push(c),
                Job::Flush(done) => flushes.push(done),
            }
            if batch.len() < BATCH {
                next = rx.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            let mut taken = std::mem::take(&mut batch);
            let size: usize = taken.iter().map(|c| c.request.len() + c.answer.len()).sum();
            let before = taken.len();
            taken.retain(|c| {
                let size = c.request.len() + c.answer.len();
                (c.authenticated || unauthenticated.take(size)) && budget.take(size)
            });
            if taken.len() < before {
                crate::metrics::txlog_entries("dropped", (before - taken.len()) as u64);
            }
            let n = taken.len() as u64;
            if taken.is_empty() {
                queued.fetch_sub(size, Ordering::AcqRel);
            } else {
                let prepared =
                    tokio::task::spawn_blocking(move || taken.iter().map(|c| Entry::of(c, masked)).collect::<Vec<_>>())
                        .await;
                queued.fetch_sub(size, Ordering::AcqRel);
                store_prepared(&store, prepared, n).await;
            }
        }
        for done in flushes.drain(..) {
            let _ = done.send(());
        }
    }
}

/// Stores a prepared batch of `n` entries, and counts how it went.
async fn store_prepared(store: &Store, prepared: Result<Vec<Entry>, tokio::task::JoinError>, n: u64) {
    match prepared {
        Ok(entries) => match store_entries(store, entries).await {
            Ok(()) => crate::metrics::txlog_entries("written", n),
            Err(e) => {
                crate::metrics::txlog_entries("failed", n);
                tracing::warn!(error = %e, entries = n, "transaction log entries could not be stored; they are lost");
            }
        },
        Err(e) => {
            crate::metrics::txlog_entries("failed", n);
            tracing::warn!(error = %e, "transaction log entries could not be prepared; they are lost");
        }
    }
}

/// Stores entries in one transaction.
pub async fn store_entries(store: &Store, entries: Vec<Entry>) -> Result<(), LogError> {
    store
        .write_now(move |c| {
            Box::pin(async move {
                for e in &entries {
                    repo::insert(c, e).await?;
                }
                Ok::<_, LogError>(())
            })
        })
        .await
}

/// A log command failed.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The store failed.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// No entry has this id.
    #[error("no log entry {0}")]
    NotFound(i64),
    /// The write was abandoned (never: the log's writes have no deadline).
    #[error("the write was abandoned")]
    Abandoned,
    /// An export could not be written out.
    #[error("output: {0}")]
    Output(#[from] std::io::Error),
}

impl From<Abandoned> for LogError {
    fn from(_: Abandoned) -> Self {
        LogError::Abandoned
    }
}

/// Deletes the entries older than `before`, [`PURGE_BATCH`] rows per transaction, until none is
/// left; how many entries were deleted.
pub async fn purge(store: &Store, before: DateTime<Utc>) -> Result<u64, LogError> {
    let mut total = 0;
    loop {
        let (entries, references) = store
            .write_now(move |c| {
                Box::pin(async move {
                    Ok::<_, LogError>((
                        repo::purge_entries(c, before, PURGE_BATCH).await?,
                        repo::purge_references(c, before, PURGE_BATCH).await?,
                    ))
                })
            })
            .await?;
        total += entries;
        if entries < PURGE_BATCH as u64 && references < PURGE_BATCH as u64 {
            return Ok(total);
        }
    }
}

/// Runs [`purge`] for a retention now and then every [`Settings::purge_every`], forever (the
/// gateway aborts it when it stops). Nothing when the retention is `None`.
pub async fn purge_forever(store: Store, settings: Settings) {
    let Some(retention) = settings.retention else { return };
    crate::store::purge::forever(settings.purge_every(), "transaction log entries past the retention", || {
        let before = Utc::now() - chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::MAX);
        let store = store.clone();
        async move { purge(&store, before).await }
    })
    .await
}

#[cfg(test)]
mod tests;
