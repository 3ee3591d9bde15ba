//! The push: every gateway runs [`run`] in the background (started by `serve`, like the
//! traffic flusher). It takes the events due (each held by one gateway at a time, see
//! [`repo::take_due`]), posts each one's `OTA_HotelResNotifRQ` to its supplier's notification
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
use super::repo::{self, EventRow};
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
/// every gateway, see [`repo::take_due`]); a round takes as many events due as there is
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
            match store.peek(|c| Box::pin(async move { Ok::<_, Failure>(repo::counts(c).await?) })).await {
                Ok((pending, parked)) => crate::metrics::outbox_backlog(pending, parked),
                Err(e) => tracing::warn!(error = %e, "the outbox backlog could not be counted"),
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
        let due = store.peek(move |c| Box::pin(async move { Ok::<_, Failure>(repo::any_due(c, now).await?) })).await;
        let taken = match due {
            Ok(true) => {
                let gateway = settings.gateway.clone();
                store
                    .write_now(move |c| {
                        Box::pin(async move {
                            Ok::<_, Failure>(repo::take_due(c, now, until, limit, per_supplier, &gateway).await?)
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

/// One attempt at one event, and its outcome stored.
async fn deliver(store: &Store, http: &reqwest::Client, cats: &Catalogues, settings: &Settings, e: EventRow) {
    let identity = rules::identity(e.id, &e.booking_ref, &e.hotel_code, e.seq);
    let outcome = attempt(store, http, cats, &e).await;
    let now = now_ms();
    let id = e.id;
    let settled = match &outcome {
        Ok(()) => {
            crate::metrics::outbox_event("delivered");
            crate::metrics::outbox_delivered(Duration::from_millis(u64::try_from(now - e.created_at).unwrap_or(0)));
            store
                .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::delivered(c, id, now).await?) }))
                .await
        }
        Err(error) if e.attempts >= i64::from(settings.max_attempts) => {
            crate::metrics::outbox_event("parked");
            tracing::warn!(event = %identity, supplier = %e.supplier_id, attempts = e.attempts, error = %error, "outbox event parked: it will not be sent again until `ota-gateway outbox retry`; the booking's later events wait for it");
            let error = error.clone();
            store
                .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::parked(c, id, &error).await?) }))
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
                .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::failed(c, id, next, &error).await?) }))
                .await
        }
    };
    if let Err(err) = settled {
        // The lease runs out and the event is taken again: a repeat, never a loss.
        crate::metrics::db_error();
        tracing::warn!(event = %identity, error = %err, "the outcome of an outbox delivery could not be stored; it will be sent again");
    }
}

/// Loads the booking, posts the notification and reads the answer: `Err` with what went wrong.
async fn attempt(store: &Store, http: &reqwest::Client, cats: &Catalogues, e: &EventRow) -> Result<(), String> {
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
    // Errors without the URL: it may carry a password (logged and stored errors never do).
    let answer = http
        .post(&url)
        .header(reqwest::header::CONTENT_TYPE, "application/xml")
        .body(body)
        .send()
        .await
        .map_err(|err| rules::error_text(&transport_error(&err.without_url())))?;
    let status = answer.status();
    let bytes = read_at_most(answer, MAX_ANSWER).await.map_err(|err| match err {
        Unread::TooLarge => format!("the answer is over {} KiB (not read further)", MAX_ANSWER / 1024),
        Unread::Transport(err) => {
            rules::error_text(&format!("reading the answer: {}", transport_error(&err.without_url())))
        }
    })?;
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

/// Why an answer was not read.
#[derive(Debug)]
pub(crate) enum Unread {
    /// It is longer than the bound.
    TooLarge,
    /// The connection failed or timed out.
    Transport(reqwest::Error),
}

/// The body of `answer`, at most `max` bytes: a longer one (declared or sent) is
/// [`Unread::TooLarge`] as soon as it is seen, the rest never read. The time is the client's
/// (its `timeout` covers the whole exchange, body included).
pub(crate) async fn read_at_most(mut answer: reqwest::Response, max: usize) -> Result<bytes::Bytes, Unread> {
    if answer.content_length().is_some_and(|n| n > max as u64) {
        return Err(Unread::TooLarge);
    }
    let mut body = bytes::BytesMut::new();
    while let Some(chunk) = answer.chunk().await.map_err(Unread::Transport)? {
        if body.len() + chunk.len() > max {
            return Err(Unread::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// A token naming this gateway process on the events it holds: random, never reused.
pub fn gateway_token() -> String {
    format!("{:016x}", OsRng.next_u64())
}

/// Gives back the events this gateway holds, when it stops (`serve` calls it after the
/// delivery task is stopped): another gateway (or this one, started again) takes them at once
/// instead of after their lease. A delivery that was in flight may have reached the receiver:
/// it is repeated (the receiver drops it by `MessageID`).
pub async fn release(store: &Store, settings: &Settings) -> Result<u64, StoreError> {
    let gateway = settings.gateway.clone();
    store
        .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::release(c, &gateway).await?) }))
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
    let kind = if e.booking_kind == Kind::Activity.as_str() { Kind::Activity } else { Kind::Hotel };
    let reference = e.booking_ref.clone();
    store
        .read(move |c| {
            Box::pin(async move {
                let Some((id, owner)) = repo::booking_of(c, kind, &reference).await? else { return Ok(None) };
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
