//! `ota-gateway outbox list [--state S] | retry ID | retry --all-parked | history | resend |
//! alerts`, and a supplier's notification URL (`ota-gateway requestor set ID --notify-url
//! URL|off`).
//!
//! The history and the resend are the queries the console's Deliveries page asks too (one
//! code path): [`history`] (a booking's events, each with every attempt kept),
//! [`deliveries`] (a supplier's events, filtered), [`resend`] (a new attempt at any event).

use super::repo::{self, events::EventRow, history::Attempt, history::Delivery, history::Filter};
use super::rules;
use crate::store::{Abandoned, Store, StoreError, bump_requestors_version};

/// An outbox command failed; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    /// A value is not acceptable, or names nothing.
    #[error("{0}")]
    Invalid(String),
    /// The store failed.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// The requestor changed since the console form asking this change showed it
    /// ([`crate::requestors::admin::at_revision`]): nothing was changed.
    #[error(
        "requestor {0:?} was changed since this form was loaded (by another operator or the command line): nothing was changed; look at it again and redo the change"
    )]
    Stale(String),
}

impl From<Abandoned> for OutboxError {
    fn from(_: Abandoned) -> Self {
        OutboxError::Invalid("the change was abandoned".into())
    }
}

/// The events in `state` (`pending`, `delivered`, `parked`; all: `None`) for `supplier` (all:
/// `None`), oldest first, at most `limit`.
pub async fn list(
    store: &Store,
    state: Option<String>,
    supplier: Option<String>,
    limit: i64,
) -> Result<Vec<EventRow>, OutboxError> {
    if let Some(s) = &state
        && ![rules::PENDING, rules::DELIVERED, rules::PARKED].contains(&s.as_str())
    {
        return Err(OutboxError::Invalid(format!("no state {s:?}: pending, delivered or parked")));
    }
    store
        .read(move |c| {
            Box::pin(async move {
                Ok::<_, OutboxError>(repo::events::list(c, state.as_deref(), supplier.as_deref(), limit).await?)
            })
        })
        .await
}

/// The booking alerts ([`super::alerts`]) of `supplier` (all: `None`), of the booking whose
/// Internal or Client reference is `booking` (all: `None`), in `state` (`pending`, `sent`,
/// `parked`; all: `None`), the newest first, at most `limit`: what `ota-gateway outbox alerts`
/// prints and the console shows.
pub async fn alerts(
    store: &Store,
    supplier: Option<String>,
    booking: Option<String>,
    state: Option<String>,
    limit: i64,
) -> Result<Vec<repo::alerts::AlertRow>, OutboxError> {
    if let Some(s) = &state
        && !["pending", "sent", "parked"].contains(&s.as_str())
    {
        return Err(OutboxError::Invalid(format!(
            "no alert state {:?}: pending, sent or parked",
            crate::shared::log_text::LogText(s)
        )));
    }
    store
        .read(move |c| {
            Box::pin(async move {
                Ok::<_, OutboxError>(
                    repo::alerts::list_alerts(c, supplier.as_deref(), booking.as_deref(), state.as_deref(), limit)
                        .await?,
                )
            })
        })
        .await
}

/// Sends the parked booking alerts (of `supplier`; all: `None`) again from now on, their
/// attempts counted afresh: how many.
pub async fn retry_alerts(store: &Store, supplier: Option<String>) -> Result<u64, OutboxError> {
    let now = super::deliver::now_ms();
    store
        .write_now(move |c| {
            Box::pin(
                async move { Ok::<_, OutboxError>(repo::alerts::retry_alerts(c, supplier.as_deref(), now).await?) },
            )
        })
        .await
}

/// Sends a parked event (all parked events: `None`) again, from now on, its attempts counted
/// afresh: how many.
pub async fn retry(store: &Store, id: Option<i64>) -> Result<u64, OutboxError> {
    let now = super::deliver::now_ms();
    let n = store
        .write_now(move |c| Box::pin(async move { Ok::<_, OutboxError>(repo::events::retry(c, id, now).await?) }))
        .await?;
    match (id, n) {
        (Some(id), 0) => {
            Err(OutboxError::Invalid(format!("no parked event {id} (`outbox list --state parked` lists them)")))
        }
        _ => Ok(n),
    }
}

/// An event of a booking with every attempt kept, oldest first (see [`history`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct EventHistory {
    /// The event, with its last attempt.
    #[serde(flatten)]
    pub event: Delivery,
    /// Every attempt kept: pushes, pulls that gave it, its acknowledgement; oldest first.
    pub attempts: Vec<Attempt>,
}

/// The deliveries of the booking whose Internal or Client reference is `reference` (every
/// booking with that Client reference): its events, oldest first, each with every attempt
/// kept, oldest first. No booking and no event by that reference: [`OutboxError::Invalid`].
/// A booking without events (its hotel has no supplier): an empty list.
pub async fn history(store: &Store, reference: &str) -> Result<Vec<EventHistory>, OutboxError> {
    let reference = reference.trim().to_string();
    let now = super::deliver::now_ms();
    store
        .read(move |c| {
            Box::pin(async move {
                let events = repo::history::deliveries_of_booking(c, &reference, now).await?;
                if events.is_empty() && !repo::history::booking_exists(c, &reference).await? {
                    return Err(OutboxError::Invalid(format!(
                        "no booking {reference:?} (an Internal or Client reference) and no event of one"
                    )));
                }
                let mut out = Vec::with_capacity(events.len());
                for event in events {
                    let attempts = repo::history::attempts_of(c, event.id, now).await?;
                    out.push(EventHistory { event, attempts });
                }
                Ok(out)
            })
        })
        .await
}

/// What a supplier's deliveries are filtered by ([`deliveries`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliveryFilter {
    /// Only events not delivered whose last push failed (pending or parked).
    pub failing: bool,
    /// Only parked events.
    pub parked: bool,
    /// Only events not acknowledged this many minutes after they were written (Channex alerts
    /// at 30).
    pub unacked_after_minutes: Option<u32>,
    /// At most this many (the newest).
    pub limit: i64,
}

/// The deliveries to `supplier` (a requestor's id; every supplier's: `None`): its events
/// matching `filter`, the newest first, each with its last attempt. An unknown supplier:
/// [`OutboxError::Invalid`].
pub async fn deliveries(
    store: &Store,
    supplier: Option<&str>,
    filter: DeliveryFilter,
) -> Result<Vec<Delivery>, OutboxError> {
    if filter.limit < 1 {
        return Err(OutboxError::Invalid(format!("a limit of {} lists nothing: at least 1", filter.limit)));
    }
    let now = super::deliver::now_ms();
    let since = filter.unacked_after_minutes.map(|m| super::deliver::unacked_since(now, m));
    let repo_filter = Filter { failing: filter.failing, parked: filter.parked, unacked_since: since };
    let supplier = supplier.map(str::to_string);
    store
        .read(move |c| {
            Box::pin(async move {
                if let Some(s) = &supplier
                    && !repo::history::requestor_exists(c, s).await?
                {
                    return Err(OutboxError::Invalid(format!("no supplier {s:?}")));
                }
                Ok(repo::history::deliveries_of_supplier(c, supplier.as_deref(), repo_filter, filter.limit, now)
                    .await?)
            })
        })
        .await
}

/// The alert on bookings not acknowledged in time ([`unacknowledged`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct UnackedAlert {
    /// After how many minutes an event not acknowledged counts (`serve
    /// --unacked-alert-minutes`).
    pub minutes: u32,
    /// The bookings, events and oldest event counted.
    #[serde(flatten)]
    pub counted: repo::history::Unacked,
}

/// The bookings with an event (of any supplier, pushed or pulled) not acknowledged `minutes`
/// after it was written — pushed or pulled and not acknowledged, failing, parked, or not taken
/// by its supplier yet: what the console's overview counts as an alert (linking to
/// `/deliveries?unacked_after=MINUTES`, which lists the events: [`deliveries`] with
/// [`DeliveryFilter::unacked_after_minutes`]) and the delivery task puts in the
/// `ota_outbox_unacknowledged_bookings` gauge.
pub async fn unacknowledged(store: &Store, minutes: u32) -> Result<UnackedAlert, OutboxError> {
    let since = super::deliver::unacked_since(super::deliver::now_ms(), minutes);
    let counted = store
        .peek(move |c| {
            Box::pin(async move { Ok::<_, OutboxError>(repo::history::unacknowledged_since(c, since).await?) })
        })
        .await?;
    Ok(UnackedAlert { minutes, counted })
}

/// What a resend did ([`resend`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Resent {
    /// The event.
    pub event: i64,
    /// Its state before: `pending`, `delivered` or `parked`.
    pub was: String,
    /// Its supplier.
    pub supplier_id: String,
    /// `push`: the next delivery round of any gateway sends it; `pull`: the supplier's next
    /// read gives it again.
    pub delivery: String,
    /// An earlier event of the same booking and hotel not delivered yet: this one is sent
    /// after it (the order per booking).
    pub waits_for: Option<i64>,
    /// Who asked.
    pub requested_by: String,
}

/// Asks for a new attempt at event `id`, whatever its state (delivered, acknowledged, pending,
/// parked), marked as a retransmission asked for by `actor` (an operator, or `cli:USER` from
/// the command line; its name kept on the event and on each attempt it leads to, the request in
/// the audit trail in the same transaction): a pushed event is taken by the next delivery round
/// of any gateway, a pulled one is given again by the supplier's next read. Its attempts are
/// counted afresh (it is parked again after `--outbox-max-attempts` failures). An unknown event:
/// [`OutboxError::Invalid`].
pub async fn resend(store: &Store, id: i64, actor: &crate::audit::Actor) -> Result<Resent, OutboxError> {
    let requested_by = rules::error_text(&actor.name);
    if requested_by.is_empty() {
        return Err(OutboxError::Invalid("a resend names who asks for it".into()));
    }
    let now = super::deliver::now_ms();
    let (who, actor) = (requested_by.clone(), actor.clone());
    let done = store
        .write_now(move |c| {
            Box::pin(async move {
                let Some((was, after)) = repo::events::resend(c, id, now, &who).await? else { return Ok(None) };
                let waits_for = repo::events::waits_for(c, id).await?;
                let target = format!("event {id} of {} {}", after.booking_kind, after.booking_ref);
                crate::audit::record(c, &actor, "outbox.resend", &target, Some(&was), Some("retransmission")).await?;
                Ok::<_, OutboxError>(Some((was, after, waits_for)))
            })
        })
        .await?;
    let Some((was, after, waits_for)) = done else {
        return Err(OutboxError::Invalid(format!(
            "no event {id} (`outbox history REF` or `outbox list` shows the events)"
        )));
    };
    let push = after.booking_kind == "hotel" && after.notify_url.is_some();
    Ok(Resent {
        event: id,
        was,
        supplier_id: after.supplier_id,
        delivery: if push { "push" } else { "pull" }.to_string(),
        waits_for,
        requested_by,
    })
}

/// Deletes the events delivered before `before`, each but the last of its booking and hotel
/// (kept so that the booking's next event is numbered after it), with their attempts; how many
/// events.
pub async fn purge(store: &Store, before: chrono::DateTime<chrono::Utc>) -> Result<u64, OutboxError> {
    let before = before.timestamp_millis();
    crate::store::purge::in_batches(store, move |c| {
        Box::pin(async move {
            Ok::<_, OutboxError>(repo::history::purge_delivered(c, before, crate::store::purge::BATCH).await?)
        })
    })
    .await
}

/// Runs [`purge`] for a retention (`serve --outbox-retention`) at start and every hour,
/// forever (the gateway aborts it when it stops).
pub async fn purge_forever(store: Store, retention: std::time::Duration) {
    crate::store::purge::forever(
        crate::store::purge::HOURLY,
        "booking events delivered before the outbox retention",
        || {
            let before = chrono::Utc::now() - chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::MAX);
            let store = store.clone();
            async move { purge(&store, before).await }
        },
    )
    .await
}

/// Sets a requestor's notification URL (`None`: removes it; its events are then pulled), as
/// `actor`: recorded in the audit trail (the URLs as [`shown_url`] shows them, never a password
/// in them); the same URL again writes nothing.
pub async fn set_notify_url(
    store: &Store,
    actor: &crate::audit::Actor,
    id: &str,
    url: Option<String>,
) -> Result<(), OutboxError> {
    if let Some(u) = &url {
        crate::requestors::import::check_notify_url(u).map_err(OutboxError::Invalid)?;
    }
    let (who, actor) = (id.to_string(), actor.clone());
    // The revision a console form showed (read here: the transaction may run on another thread).
    let shown = crate::requestors::admin::shown_revision();
    let found = store
        .write_now(move |c| {
            Box::pin(async move {
                let Some(now) = crate::requestors::repo::load_all(c).await?.into_iter().find(|r| r.id == who) else {
                    return Ok::<_, OutboxError>(false);
                };
                if shown.is_some_and(|s| s != now.revision) {
                    return Err(OutboxError::Stale(who));
                }
                if now.notify_url == url {
                    return Ok(true);
                }
                let found = repo::pull::set_notify_url(c, &who, url.clone()).await?;
                if found {
                    // Compared in the update's SQL: a change that came first refuses this one.
                    if !crate::requestors::admin::revision_moves_on(c, &who, shown).await? {
                        return Err(OutboxError::Stale(who));
                    }
                    bump_requestors_version(c).await?;
                    let (old, new) = (now.notify_url.as_deref().map(shown_url), url.as_deref().map(shown_url));
                    let off = || "off".to_string();
                    crate::audit::record(
                        c,
                        &actor,
                        "requestor.notify_url",
                        &who,
                        Some(&old.unwrap_or_else(off)),
                        Some(&new.unwrap_or_else(off)),
                    )
                    .await?;
                }
                Ok(found)
            })
        })
        .await?;
    if found { Ok(()) } else { Err(OutboxError::Invalid(format!("no requestor {id:?}"))) }
}

/// A notification URL as shown (`requestor set`, `requestor list`): its password, if it has
/// one, as `***`.
pub fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_a_url_is_never_shown() {
        assert_eq!(shown_url("http://gw:s3cret@pms.internal:8080/ota"), "http://gw:***@pms.internal:8080/ota");
        assert_eq!(shown_url("http://pms.internal/ota"), "http://pms.internal/ota");
    }
}
