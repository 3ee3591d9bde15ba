//! The push: every gateway runs [`run`] in the background (started by `serve`, like the
//! traffic flusher). It takes the events due (each held by one gateway at a time, see
//! [`repo::events::take_due`]), posts each one's `OTA_HotelResNotifRQ` to its supplier's notification
//! URL, and settles it: delivered on the receiver's `Success`, else tried again after a backoff
//! with jitter, or parked after the last attempt allowed. Nothing is kept in memory between
//! two rounds: a gateway that dies holding events leaves them to be taken again when their
//! lease ends (a repeat, never a loss).

use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use tokio::sync::Semaphore;

use super::Settings;
use super::mapping::{self, Catalogues, Loaded};
use super::repo::{self, events::EventRow};
use super::rules;
use crate::shared::booking::Kind;
use crate::store::{Abandoned, Store, StoreError};
use ota_messages::runtime::Message;

/// How often the backlog's gauges are read from the database.
const BACKLOG_EVERY: Duration = Duration::from_secs(10);

/// Milliseconds since 1970 UTC, as the outbox stores times.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// The time (milliseconds since 1970) an event must have been written at or before, at `now`,
/// to be not acknowledged after `minutes`.
pub fn unacked_since(now: i64, minutes: u32) -> i64 {
    now.saturating_sub(i64::from(minutes).saturating_mul(60_000))
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Why an attempt failed (or could not be settled).
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("the write was abandoned")]
    Abandoned,
}

impl From<Abandoned> for Failure {
    fn from(_: Abandoned) -> Self {
        Failure::Abandoned
    }
}

/// The certificate authorities of a PEM file (`serve --outbox-ca`, see [`Settings::roots`]):
/// at least one, else why not.
pub fn read_roots(path: &std::path::Path) -> Result<Vec<reqwest::Certificate>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let roots = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| format!("{}: {e}", path.display()))?;
    if roots.is_empty() {
        return Err("no certificate in the file".into());
    }
    Ok(roots)
}

/// Delivers events for ever: up to [`Settings::batch`] at once, each in a task of its own (a
/// slow receiver holds back only its own events, at most [`Settings::per_supplier`] of them over
/// every gateway, see [`repo::events::take_due`]); a round takes as many events due as there is
/// room for (each the first undelivered of its booking and hotel, so never two of one booking);
/// a round that took nothing waits [`Settings::poll`] before the next. Whether anything is due
/// is looked at first without a transaction, so an idle gateway costs the database one
/// read a poll, never a write. `catalogues` gives the
/// content in memory now.
pub async fn run(store: Store, catalogues: Arc<dyn Fn() -> Catalogues + Send + Sync>, settings: Settings) {
    // Redirects are not followed (a POST would become a GET): a 3xx is a failed attempt. An
    // https receiver's certificate is checked against the public roots and the operator's own.
    let mut builder = reqwest::Client::builder()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout)
        .redirect(reqwest::redirect::Policy::none());
    for root in &settings.roots {
        builder = builder.add_root_certificate(root.clone());
    }
    let http = match builder.build() {
        Ok(h) => h,
        Err(e) => {
            tracing::error!(error = %e, "the outbox cannot make an HTTP client; no event is pushed by this gateway");
            return;
        }
    };
    let room = Arc::new(Semaphore::new(settings.batch.max(1)));
    let settings = Arc::new(settings);
    let mut counted: Option<std::time::Instant> = None;
    loop {
        if counted.is_none_or(|at| at.elapsed() >= BACKLOG_EVERY) {
            counted = Some(std::time::Instant::now());
            match store.peek(|c| Box::pin(async move { Ok::<_, Failure>(repo::events::counts(c).await?) })).await {
                Ok((pending, parked)) => crate::metrics::outbox_backlog(pending, parked),
                Err(e) => tracing::warn!(error = %e, "the outbox backlog could not be counted"),
            }
            // The bookings not acknowledged in time (the console's overview asks the same).
            let since = unacked_since(now_ms(), settings.unacked_alert_minutes);
            match store
                .peek(move |c| {
                    Box::pin(async move { Ok::<_, Failure>(repo::history::unacknowledged_since(c, since).await?) })
                })
                .await
            {
                Ok(u) => crate::metrics::outbox_unacknowledged(u.bookings),
                Err(e) => tracing::warn!(error = %e, "the bookings not acknowledged could not be counted"),
            }
        }
        // At least one delivery may start: wait for room.
        let Ok(first) = room.clone().acquire_owned().await else { return };
        let mut permits = vec![first];
        while let Ok(p) = room.clone().try_acquire_owned() {
            permits.push(p);
        }
        let now = now_ms();
        let (until, limit) = (now + millis(settings.lease()), i64::try_from(permits.len()).unwrap_or(1));
        let per_supplier = i64::from(settings.per_supplier);
        // A look first (no transaction, no lock): an idle gateway never takes the write lock.
        let due =
            store.peek(move |c| Box::pin(async move { Ok::<_, Failure>(repo::events::any_due(c, now).await?) })).await;
        let taken = match due {
            Ok(true) => {
                let gateway = settings.gateway.clone();
                store
                    .write_now(move |c| {
                        Box::pin(async move {
                            Ok::<_, Failure>(
                                repo::events::take_due(c, now, until, limit, per_supplier, &gateway).await?,
                            )
                        })
                    })
                    .await
            }
            Ok(false) => Ok(Vec::new()),
            Err(e) => Err(e),
        };
        match taken {
            Ok(events) if !events.is_empty() => {
                let cats = catalogues();
                for (e, permit) in events.into_iter().zip(permits.drain(..)) {
                    let (store, http, cats, settings) = (store.clone(), http.clone(), cats.clone(), settings.clone());
                    tokio::spawn(async move {
                        deliver(&store, &http, &cats, &settings, e).await;
                        drop(permit);
                    });
                }
                drop(permits);
            }
            Ok(_) => {
                drop(permits);
                tokio::time::sleep(settings.poll).await;
            }
            Err(e) => {
                drop(permits);
                crate::metrics::db_error();
                tracing::warn!(error = %e, "the outbox could not take events");
                tokio::time::sleep(settings.poll.max(Duration::from_secs(1))).await;
            }
        }
    }
}

/// One attempt at one event, and its outcome stored with the attempt kept (the row its start
/// wrote completed, [`repo::events::complete_attempt`], or, when nothing was sent, a row of its own,
/// [`repo::events::record_attempt`]; in the same transaction).
async fn deliver(store: &Store, http: &reqwest::Client, cats: &Catalogues, settings: &Settings, e: EventRow) {
    let identity = rules::identity(e.id, &e.booking_ref, &e.hotel_code, e.seq);
    let tried = attempt(store, http, cats, settings, &e).await;
    let now = now_ms();
    let (id, as_taken, started) = (e.id, e.resent_at, tried.started);
    let kept = repo::events::NewAttempt {
        http_status: tried.status.map(i64::from),
        error: tried.outcome.as_ref().err().cloned(),
        latency_ms: tried.latency.map(millis),
        answer: tried.answer.as_deref().map(rules::kept_answer),
        answer_bytes: tried
            .length
            .or(tried.answer.as_ref().map(|a| a.len() as u64))
            .map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
        ..started_attempt(settings, &e, tried.at)
    };
    let settled = match &tried.outcome {
        Ok(()) => {
            crate::metrics::outbox_event("delivered");
            if e.resent_at.is_none() {
                // A resend's delivery is not the event's latency.
                crate::metrics::outbox_delivered(Duration::from_millis(u64::try_from(now - e.created_at).unwrap_or(0)));
            }
            let kept = repo::events::NewAttempt { outcome: "delivered", ..kept };
            store
                .write_now(move |c| {
                    Box::pin(async move {
                        repo::events::delivered(c, id, now, as_taken).await?;
                        Ok::<_, Failure>(keep(c, started, &kept).await?)
                    })
                })
                .await
        }
        Err(error) if e.attempts >= i64::from(settings.max_attempts) => {
            crate::metrics::outbox_event("parked");
            tracing::warn!(event = %identity, supplier = %e.supplier_id, attempts = e.attempts, error = %error, "outbox event parked: it will not be sent again until `ota-gateway outbox retry`; the booking's later events wait for it");
            let error = error.clone();
            store
                .write_now(move |c| {
                    Box::pin(async move {
                        let parked = repo::events::parked(c, id, &error, as_taken).await?;
                        let kept =
                            repo::events::NewAttempt { outcome: if parked { "parked" } else { "failed" }, ..kept };
                        Ok::<_, Failure>(keep(c, started, &kept).await?)
                    })
                })
                .await
        }
        Err(error) => {
            crate::metrics::outbox_event("failed");
            let jitter = f64::from(OsRng.next_u32()) / f64::from(u32::MAX);
            let wait = rules::backoff(
                u32::try_from(e.attempts).unwrap_or(u32::MAX),
                settings.retry_base,
                settings.retry_max,
                jitter,
            );
            tracing::info!(event = %identity, supplier = %e.supplier_id, attempts = e.attempts, retry_in = ?wait, error = %error, "outbox delivery failed");
            let (next, error) = (now + millis(wait), error.clone());
            store
                .write_now(move |c| {
                    Box::pin(async move {
                        repo::events::failed(c, id, next, &error, as_taken).await?;
                        Ok::<_, Failure>(keep(c, started, &kept).await?)
                    })
                })
                .await
        }
    };
    if let Err(err) = settled {
        // The lease runs out and the event is taken again: a repeat, never a loss.
        crate::metrics::db_error();
        tracing::warn!(event = %identity, error = %err, "the outcome of an outbox delivery could not be stored; it will be sent again");
    }
}

/// Keeps an attempt's outcome: completes the row its start wrote (`started`), or keeps one
/// (nothing was sent).
async fn keep(
    c: &mut crate::store::Conn<'_>,
    started: Option<i64>,
    kept: &repo::events::NewAttempt,
) -> Result<(), StoreError> {
    match started {
        Some(row) => repo::events::complete_attempt(c, row, kept).await,
        None => repo::events::record_attempt(c, kept).await,
    }
}

/// An attempt at event `e` as kept when it begins at `at` (outcome `failed` until completed):
/// who makes it, where to (the URL without its secrets), whether it is a retransmission.
fn started_attempt(settings: &Settings, e: &EventRow, at: i64) -> repo::events::NewAttempt {
    repo::events::NewAttempt {
        event_id: e.id,
        outcome: "failed",
        at,
        gateway: settings.gateway.clone(),
        url: e.notify_url.as_deref().and_then(rules::redacted_url),
        retransmission: e.retransmission,
        requested_by: e.resent_by.clone(),
        ..repo::events::NewAttempt::default()
    }
}

/// How much of a notification an attempt keeps: a booking's fits many times over (a few KiB);
/// a larger one is cut (its full length is kept beside it).
pub const KEPT_BODY: usize = 64 * 1024;

/// A notification as an attempt keeps it: masked as the transaction log masks a message
/// ([`crate::txlog::mask::prepare`]: passwords out, card numbers always, personal values when
/// `masked`), its first [`KEPT_BODY`] bytes (cut at a character).
pub fn kept_body(xml: &str, masked: bool) -> String {
    let mut text = crate::txlog::mask::prepare(xml.as_bytes(), masked).text;
    if text.len() > KEPT_BODY {
        let mut end = KEPT_BODY;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// What one attempt gave: its outcome (`Err` with what went wrong), and what is kept of it.
#[derive(Debug)]
struct Tried {
    /// The attempt's row, written before the notification was sent (none: nothing was sent).
    started: Option<i64>,
    /// Delivered, or why not.
    outcome: Result<(), String>,
    /// When the notification was sent (or the attempt began, when it was never sent).
    at: i64,
    /// The answer's HTTP status.
    status: Option<u16>,
    /// The answer as read (at most [`MAX_ANSWER`] bytes, the start of a longer one).
    answer: Option<bytes::Bytes>,
    /// From sending to the answer read, or to the failure.
    latency: Option<Duration>,
    /// The answer's length: as declared (`Content-Length`) when over the bound, else as read.
    length: Option<u64>,
}

impl Default for Tried {
    fn default() -> Self {
        Tried { started: None, outcome: Ok(()), at: now_ms(), status: None, answer: None, latency: None, length: None }
    }
}

/// Loads the booking, keeps the attempt's start, posts the notification and reads the answer.
async fn attempt(store: &Store, http: &reqwest::Client, cats: &Catalogues, settings: &Settings, e: &EventRow) -> Tried {
    let mut tried = Tried::default();
    let outcome = post(store, http, cats, settings, e, &mut tried).await;
    Tried { outcome, ..tried }
}

/// [`attempt`]'s work: `Err` with what went wrong; what the receiver said in `tried`.
async fn post(
    store: &Store,
    http: &reqwest::Client,
    cats: &Catalogues,
    settings: &Settings,
    e: &EventRow,
    tried: &mut Tried,
) -> Result<(), String> {
    let url = e.notify_url.clone().ok_or("the supplier has no notification URL")?;
    let loaded = load(store, e)
        .await
        .map_err(|err| format!("loading the booking: {err}"))?
        .ok_or("the booking is not stored")?;
    let Loaded::Hotel(booking) = loaded else {
        return Err("an activity booking is delivered by pull only".into());
    };
    let body = mapping::notification(e, &booking, cats, chrono::Utc::now())
        .to_xml()
        .map_err(|err| format!("writing the notification: {err}"))?;
    tried.at = now_ms();
    // The attempt's row, committed before anything is sent: a gateway killed while the receiver
    // holds the request leaves it (shown as interrupted), never no trace. Not kept: not sent.
    let start = repo::events::NewAttempt {
        body: Some(kept_body(&body, settings.mask_bodies)),
        body_bytes: Some(i64::try_from(body.len()).unwrap_or(i64::MAX)),
        body_masked: settings.mask_bodies,
        ..started_attempt(settings, e, tried.at)
    };
    let row = store
        .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::events::start_attempt(c, &start).await?) }))
        .await
        .map_err(|err| rules::error_text(&format!("keeping the attempt's start (nothing was sent): {err}")))?;
    tried.started = Some(row);
    let sent = std::time::Instant::now();
    // Errors without the URL: it may carry a password (logged and stored errors never do).
    let answer = http.post(&url).header(reqwest::header::CONTENT_TYPE, "application/xml").body(body).send().await;
    let answer = answer.map_err(|err| {
        tried.latency = Some(sent.elapsed());
        rules::error_text(&transport_error(&err.without_url()))
    })?;
    let status = answer.status();
    tried.status = Some(status.as_u16());
    let read = read_at_most(answer, MAX_ANSWER, rules::KEPT_ANSWER).await;
    tried.latency = Some(sent.elapsed());
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(Unread::TooLarge(start, declared)) => {
            tried.length = declared.or(Some(start.len() as u64));
            tried.answer = Some(start);
            return Err(format!("the answer is over {} KiB (not read further)", MAX_ANSWER / 1024));
        }
        Err(Unread::Transport(err, start)) => {
            tried.answer = Some(start);
            return Err(rules::error_text(&format!("reading the answer: {}", transport_error(&err.without_url()))));
        }
    };
    tried.answer = Some(bytes.clone());
    if !status.is_success() {
        return Err(format!("HTTP {status}"));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| "the answer is not UTF-8 text".to_string())?;
    // The decoder's parse: bounded in attributes, namespaces, nodes and depth.
    mapping::acknowledges(text).map_err(|err| rules::error_text(&err))
}

/// The most of a receiver's answer that is read: an `OTA_HotelResNotifRS` is a few hundred
/// bytes, a few KiB with warnings. A longer answer fails the attempt, read no further (issue 28,
/// H4: an endless answer took 275 MiB within the time-out).
pub const MAX_ANSWER: usize = 64 * 1024;

/// Why an answer was not read (each with what was read of it).
#[derive(Debug)]
pub(crate) enum Unread {
    /// It is longer than the bound: its start (at most `keep` bytes when its length was
    /// declared, else what was read up to the bound) and its declared length.
    TooLarge(bytes::Bytes, Option<u64>),
    /// The connection failed or timed out.
    Transport(reqwest::Error, bytes::Bytes),
}

/// The body of `answer`, at most `max` bytes: a longer one (declared or sent) is
/// [`Unread::TooLarge`] as soon as it is seen, the rest never read (of one declared longer, only
/// its first `keep` bytes are read, for the attempt kept). The time is the client's (its
/// `timeout` covers the whole exchange, body included).
pub(crate) async fn read_at_most(
    mut answer: reqwest::Response,
    max: usize,
    keep: usize,
) -> Result<bytes::Bytes, Unread> {
    let declared = answer.content_length().filter(|n| *n > max as u64);
    let max = if declared.is_some() { keep.min(max) } else { max };
    let mut body = bytes::BytesMut::new();
    loop {
        let chunk = match answer.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) if declared.is_some() => return Err(Unread::TooLarge(body.freeze(), declared)),
            Ok(None) => break,
            Err(e) => return Err(Unread::Transport(e, body.freeze())),
        };
        if body.len() + chunk.len() > max {
            let room = max - body.len();
            body.extend_from_slice(&chunk[..room]);
            return Err(Unread::TooLarge(body.freeze(), declared));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// The name of this gateway process on the events it holds and the attempts it keeps:
/// `HOST/PID/TOKEN` (the host name as the kernel has it, at most 64 of its letters, digits,
/// dots and dashes; the token random), the same for the whole process, never reused.
pub fn gateway_token() -> String {
    static TOKEN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_default();
        let host: String =
            host.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-').take(64).collect();
        let host = if host.is_empty() { "gateway".to_string() } else { host };
        format!("{host}/{}/{:08x}", std::process::id(), OsRng.next_u32())
    });
    TOKEN.clone()
}

/// Gives back the events this gateway holds, when it stops (`serve` calls it after the
/// delivery task is stopped): another gateway (or this one, started again) takes them at once
/// instead of after their lease. A delivery that was in flight may have reached the receiver:
/// it is repeated (the receiver drops it by `MessageID`).
pub async fn release(store: &Store, settings: &Settings) -> Result<u64, StoreError> {
    let gateway = settings.gateway.clone();
    store
        .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::events::release(c, &gateway).await?) }))
        .await
        .map_err(|e| match e {
            Failure::Store(e) => e,
            Failure::Abandoned => StoreError::Unavailable("the release was abandoned".into()),
        })
}

/// A transport failure with its causes (`error sending request: connection refused`).
fn transport_error(err: &reqwest::Error) -> String {
    let mut text = if err.is_timeout() { "no answer in time".to_string() } else { err.to_string() };
    let mut cause = std::error::Error::source(err);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The booking an event names, as it stands now.
pub(crate) async fn load(store: &Store, e: &EventRow) -> Result<Option<Loaded>, StoreError> {
    load_booking(store, &e.booking_kind, &e.booking_ref).await
}

/// The booking of kind `booking_kind` (`hotel` or `activity`) with the Internal reference
/// `booking_ref`, as it now stands (`None`: gone).
pub(crate) async fn load_booking(
    store: &Store,
    booking_kind: &str,
    booking_ref: &str,
) -> Result<Option<Loaded>, StoreError> {
    let kind = if booking_kind == Kind::Activity.as_str() { Kind::Activity } else { Kind::Hotel };
    let reference = booking_ref.to_string();
    store
        .read(move |c| {
            Box::pin(async move {
                let Some((id, owner)) = repo::pull::booking_of(c, kind, &reference).await? else { return Ok(None) };
                Ok(match kind {
                    Kind::Hotel => Some(Loaded::Hotel(crate::hotels::repo::find::load(c, id).await?)),
                    Kind::Activity => crate::activities::repo::bookings::find_stored(c, &owner, &reference, true)
                        .await?
                        .map(Loaded::Activity),
                })
            })
        })
        .await
}
