//! Booking alerts by e-mail (issue 31, "Alerts"; docs/hotels/alerts.md): every new, modified
//! and cancelled booking of a supplier's hotels mailed to the supplier's alert addresses
//! (`requestor set SUP --alert-email ADDR`) through the SMTP relay of `serve --smtp-url`.
//!
//! - **Queued with the event**: the outbox event's transaction writes one `booking_alert` per
//!   address ([`crate::shared::events::record`], unique on event and address) when the gateway
//!   has a relay; a gateway without `--smtp-url` queues none.
//! - **Sent by every gateway** ([`run`], started and stopped by `crate::server::run`): an alert
//!   is taken with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL), so one gateway at a time
//!   sends it; marked sent once the relay accepted it; a failure is retried after the outbox's
//!   backoff ([`super::rules::backoff`], `--outbox-retry-base`/`--outbox-retry-max`), parked
//!   after `--outbox-max-attempts` (WARN, `ota_alerts_total{outcome="parked"}`) until
//!   `ota-gateway outbox alerts --retry`.
//! - **Never twice, as far as SMTP allows**: a gateway that stops between the relay's acceptance
//!   and its note of it sends the alert again after the lease; the repeat has the same
//!   `Message-ID` ([`super::mail::message_id`], one per event and address), which mail systems
//!   use to drop duplicates.
//! - **Independent of the push and the pull**: acknowledging an event does not cancel its
//!   alerts, and an alert sent acknowledges nothing.

use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use tokio::sync::Semaphore;

use super::mapping::{Catalogues, Loaded, for_hotel};
use super::repo::{self, alerts::AlertRow};
use super::{mail, rules};
use crate::shared::events::EventKind;
use crate::store::{Abandoned, Store, StoreError};

/// An SMTP relay's URL (`smtp://HOST:PORT`, `smtps://HOST:PORT`, `smtp://HOST:PORT?tls=required`
/// for STARTTLS; a user and password in it log in). Never shown with its password.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl(String);

impl SmtpUrl {
    /// The URL as given (with its credentials: for the transport only).
    fn secret(&self) -> &str {
        &self.0
    }

    /// The URL as logs and answers show it: without its user and password.
    pub fn shown(&self) -> String {
        rules::redacted_url(&self.0).unwrap_or_else(|| "(an SMTP URL)".to_string())
    }
}

impl std::fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SmtpUrl({})", self.shown())
    }
}

impl std::fmt::Display for SmtpUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

/// Checks an SMTP URL (`--smtp-url`): `smtp://` or `smtps://` with a host, one lettre takes.
/// The error never repeats the URL (it may hold a password).
pub fn parse_smtp_url(url: &str) -> Result<SmtpUrl, String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(parsed.scheme(), "smtp" | "smtps") || parsed.host_str().is_none_or(str::is_empty) {
        return Err("not smtp://HOST:PORT or smtps://HOST:PORT".into());
    }
    AsyncSmtpTransport::<Tokio1Executor>::from_url(url).map_err(|e| format!("not an SMTP URL lettre takes: {e}"))?;
    Ok(SmtpUrl(url.to_string()))
}

/// The sender of the alerts (`--smtp-from`): one address, optionally with a name.
pub fn parse_from(from: &str) -> Result<Mailbox, String> {
    if from.chars().any(char::is_control) {
        return Err("a control character".into());
    }
    from.parse::<Mailbox>().map_err(|e| format!("{from:?} is not an address: {e}"))
}

/// How alerts are sent: the `--smtp-*` arguments of `ota-gateway serve` (retries and their
/// backoff are the outbox's: `--outbox-max-attempts`, `--outbox-retry-base`,
/// `--outbox-retry-max`).
#[derive(Debug, Clone, clap::Args)]
#[group(id = "AlertSettings")]
pub struct Settings {
    /// Booking alerts: the SMTP relay they are sent through (`smtp://HOST:PORT`,
    /// `smtps://HOST:PORT`, `smtp://HOST:PORT?tls=required` for STARTTLS; `USER:PASSWORD@` in it
    /// logs in, never shown). Off when not given: then no alert is queued.
    #[arg(id = "smtp_url", long = "smtp-url", value_name = "smtp://HOST:PORT", value_parser = parse_smtp_url, env = "OTA_GATEWAY_SMTP_URL", hide_env_values = true)]
    pub url: Option<SmtpUrl>,
    /// Booking alerts: their sender (`From`), an address or `Name <address>`.
    #[arg(id = "smtp_from", long = "smtp-from", value_name = "ADDR", default_value = "OTA gateway <ota-gateway@localhost>", value_parser = parse_from, env = "OTA_GATEWAY_SMTP_FROM")]
    pub from: Mailbox,
    /// Booking alerts: how long the relay may take for one message (connection included).
    #[arg(id = "smtp_timeout", long = "smtp-timeout", value_name = "SMTP_TIMEOUT", default_value = "30s", value_parser = crate::config::parse_duration, env = "OTA_GATEWAY_SMTP_TIMEOUT")]
    pub timeout: Duration,
}

impl Settings {
    /// How long a gateway holds an alert it took: the relay's time-out twice, plus a second.
    pub fn lease(&self) -> Duration {
        self.timeout * 2 + Duration::from_secs(1)
    }
}

/// Why an alert's state could not be stored.
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

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// How many alerts one gateway sends at once.
const AT_ONCE: usize = 8;

/// How often sent alerts past the outbox's retention are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// Sends alerts for ever (every gateway with `--smtp-url`): takes the alerts due (a lease: one
/// gateway at a time), sends each through the relay, and marks it sent, to be retried after the
/// outbox's backoff, or parked after `outbox.max_attempts`. Looks without a transaction first,
/// waiting `outbox.poll` when nothing is due. Sent alerts past `outbox.retention` are deleted.
pub async fn run(
    store: Store,
    catalogues: Arc<dyn Fn() -> Catalogues + Send + Sync>,
    settings: Settings,
    outbox: super::Settings,
) {
    let Some(url) = settings.url.clone() else { return };
    let transport = match AsyncSmtpTransport::<Tokio1Executor>::from_url(url.secret()) {
        Ok(b) => b.timeout(Some(settings.timeout)).build(),
        Err(e) => {
            tracing::error!(relay = %url, error = %e, "booking alerts cannot be sent: the SMTP URL is not usable");
            return;
        }
    };
    tracing::info!(relay = %url, from = %settings.from, "booking alerts are sent through this relay");
    let room = Arc::new(Semaphore::new(AT_ONCE));
    let (settings, outbox) = (Arc::new(settings), Arc::new(outbox));
    let mut purged: Option<std::time::Instant> = None;
    loop {
        if let Some(retention) = outbox.retention
            && purged.is_none_or(|at| at.elapsed() >= PURGE_EVERY)
        {
            purged = Some(std::time::Instant::now());
            let before = super::deliver::now_ms() - millis(retention);
            if let Err(e) = store
                .write_now(move |c| {
                    Box::pin(async move { Ok::<_, Failure>(repo::alerts::purge_sent_alerts(c, before).await?) })
                })
                .await
            {
                tracing::warn!(error = %e, "sent booking alerts past their retention could not be deleted");
            }
        }
        let Ok(first) = room.clone().acquire_owned().await else { return };
        let mut permits = vec![first];
        while let Ok(p) = room.clone().try_acquire_owned() {
            permits.push(p);
        }
        let now = super::deliver::now_ms();
        let (until, limit) = (now + millis(settings.lease()), i64::try_from(permits.len()).unwrap_or(1));
        let due = store
            .peek(move |c| Box::pin(async move { Ok::<_, Failure>(repo::alerts::any_alert_due(c, now).await?) }))
            .await;
        let taken = match due {
            Ok(true) => {
                let gateway = outbox.gateway.clone();
                store
                    .write_now(move |c| {
                        Box::pin(async move {
                            Ok::<_, Failure>(repo::alerts::take_due_alerts(c, now, until, limit, &gateway).await?)
                        })
                    })
                    .await
            }
            Ok(false) => Ok(Vec::new()),
            Err(e) => Err(e),
        };
        match taken {
            Ok(alerts) if !alerts.is_empty() => {
                let cats = catalogues();
                for (a, permit) in alerts.into_iter().zip(permits.drain(..)) {
                    let (store, transport, cats, settings, outbox) =
                        (store.clone(), transport.clone(), cats.clone(), settings.clone(), outbox.clone());
                    tokio::spawn(async move {
                        send(&store, &transport, &cats, &settings, &outbox, a).await;
                        drop(permit);
                    });
                }
                drop(permits);
            }
            Ok(_) => {
                drop(permits);
                tokio::time::sleep(outbox.poll).await;
            }
            Err(e) => {
                drop(permits);
                crate::metrics::db_error();
                tracing::warn!(error = %e, "booking alerts could not be taken");
                tokio::time::sleep(outbox.poll.max(Duration::from_secs(1))).await;
            }
        }
    }
}

/// One attempt at one alert, and its outcome stored.
async fn send(
    store: &Store,
    transport: &AsyncSmtpTransport<Tokio1Executor>,
    cats: &Catalogues,
    settings: &Settings,
    outbox: &super::Settings,
    a: AlertRow,
) {
    let tried = attempt(store, transport, cats, settings, &a).await;
    let (id, now) = (a.id, super::deliver::now_ms());
    let settled = match tried {
        Ok(()) => {
            crate::metrics::alert("sent");
            tracing::info!(alert = a.id, event = a.event_id, booking = %a.booking_ref, "booking alert sent");
            store
                .write_now(move |c| {
                    Box::pin(async move { Ok::<_, Failure>(repo::alerts::alert_sent(c, id, now).await?) })
                })
                .await
        }
        Err(error) if a.attempts >= i64::from(outbox.max_attempts) => {
            crate::metrics::alert("parked");
            tracing::warn!(alert = a.id, event = a.event_id, booking = %a.booking_ref, supplier = %a.supplier_id, attempts = a.attempts, error = %error,
                "booking alert parked: it will not be sent again until `ota-gateway outbox alerts --retry`");
            store
                .write_now(move |c| {
                    Box::pin(async move { Ok::<_, Failure>(repo::alerts::alert_parked(c, id, &error).await?) })
                })
                .await
        }
        Err(error) => {
            crate::metrics::alert("failed");
            let jitter = f64::from(OsRng.next_u32()) / f64::from(u32::MAX);
            let wait = rules::backoff(
                u32::try_from(a.attempts).unwrap_or(u32::MAX),
                outbox.retry_base,
                outbox.retry_max,
                jitter,
            );
            tracing::info!(alert = a.id, event = a.event_id, attempts = a.attempts, retry_in = ?wait, error = %error, "booking alert not sent");
            let next = now + millis(wait);
            store
                .write_now(move |c| {
                    Box::pin(async move { Ok::<_, Failure>(repo::alerts::alert_failed(c, id, next, &error).await?) })
                })
                .await
        }
    };
    if let Err(err) = settled {
        crate::metrics::db_error();
        tracing::warn!(alert = a.id, error = %err, "the outcome of a booking alert could not be stored; it will be sent again (same Message-ID)");
    }
}

/// Loads the booking, writes the mail and hands it to the relay: `Err` says why not (one line).
async fn attempt(
    store: &Store,
    transport: &AsyncSmtpTransport<Tokio1Executor>,
    cats: &Catalogues,
    settings: &Settings,
    a: &AlertRow,
) -> Result<(), String> {
    let message = message(store, cats, settings, a).await?;
    transport.send(message).await.map_err(|e| rules::error_text(&smtp_error(&e)))?;
    Ok(())
}

/// The alert's message, the booking as it stands now.
async fn message(store: &Store, cats: &Catalogues, settings: &Settings, a: &AlertRow) -> Result<Message, String> {
    let loaded = super::deliver::load_booking(store, &a.booking_kind, &a.booking_ref)
        .await
        .map_err(|e: StoreError| rules::error_text(&format!("loading the booking: {e}")))?;
    let hotel = match &loaded {
        Some(Loaded::Hotel(b)) => Some(for_hotel(b, &a.hotel_code)),
        _ => None,
    };
    let activity = match &loaded {
        Some(Loaded::Activity(s)) => {
            let name = cats
                .activities
                .activity(&s.booking.activity_id)
                .and_then(|x| x.texts.values().next())
                .map(|t| t.name.clone())
                .unwrap_or_else(|| s.booking.activity_id.clone());
            Some((s.booking.client_reference.as_deref(), format!("{name}, {}", s.booking.service_date)))
        }
        _ => None,
    };
    let about = mail::About {
        event: EventKind::parse(&a.event_kind).unwrap_or(EventKind::Modified),
        event_id: a.event_id,
        booking_ref: &a.booking_ref,
        hotel_code: &a.hotel_code,
        hotel_name: cats.hotels.hotel(&a.hotel_code).map(|h| h.name.as_str()),
        booking: hotel.as_ref(),
        activity,
    };
    let text = mail::compose(&about);
    let to: lettre::Address = a.address.parse().map_err(|e| format!("the address is not usable: {e}"))?;
    let domain = settings.from.email.domain().to_string();
    Message::builder()
        .from(settings.from.clone())
        .to(Mailbox::new(None, to))
        .subject(text.subject)
        .message_id(Some(format!("<{}>", mail::message_id(a.event_id, &a.address, &domain))))
        .header(ContentType::TEXT_PLAIN)
        .body(text.text)
        .map_err(|e| format!("writing the mail: {e}"))
}

/// An SMTP failure with its causes, never the relay's URL.
fn smtp_error(e: &lettre::transport::smtp::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

/// Gives back the alerts this gateway holds when it stops: any gateway takes them at once.
pub async fn release(store: &Store, outbox: &super::Settings) -> Result<u64, StoreError> {
    let gateway = outbox.gateway.clone();
    store
        .write_now(move |c| Box::pin(async move { Ok::<_, Failure>(repo::alerts::release_alerts(c, &gateway).await?) }))
        .await
        .map_err(|e| match e {
            Failure::Store(e) => e,
            Failure::Abandoned => StoreError::Unavailable("the release was abandoned".into()),
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_smtp_url_is_smtp_or_smtps_and_never_shown_with_its_password() {
        for good in
            ["smtp://127.0.0.1:2525", "smtps://mail.example:465", "smtp://gw:s3cret@mail.example:587?tls=required"]
        {
            assert!(parse_smtp_url(good).is_ok(), "{good}");
        }
        for bad in ["http://mail.example", "mail.example:25", "smtp://", ""] {
            assert!(parse_smtp_url(bad).is_err(), "{bad:?}");
        }
        let url = parse_smtp_url("smtp://gw:s3cret@mail.example:587?tls=required").unwrap();
        for shown in [url.to_string(), format!("{url:?}")] {
            assert!(!shown.contains("s3cret") && !shown.contains("gw@"), "{shown}");
        }
        let err = parse_smtp_url("smtpx://gw:s3cret@mail.example").unwrap_err();
        assert!(!err.contains("s3cret"), "{err}");
        assert!(parse_from("OTA gateway <gw@example.com>").is_ok());
        assert!(parse_from("gw@example.com\r\nBcc: x@example.com").is_err());
    }
}
