//! `ota-gateway outbox list [--state S] | retry ID | retry --all-parked`, and a supplier's
//! notification URL (`ota-gateway requestor set ID --notify-url URL|off`).

use super::repo::{self, EventRow};
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
            Box::pin(
                async move { Ok::<_, OutboxError>(repo::list(c, state.as_deref(), supplier.as_deref(), limit).await?) },
            )
        })
        .await
}

/// Sends a parked event (all parked events: `None`) again, from now on, its attempts counted
/// afresh: how many.
pub async fn retry(store: &Store, id: Option<i64>) -> Result<u64, OutboxError> {
    let now = super::deliver::now_ms();
    let n =
        store.write_now(move |c| Box::pin(async move { Ok::<_, OutboxError>(repo::retry(c, id, now).await?) })).await?;
    match (id, n) {
        (Some(id), 0) => {
            Err(OutboxError::Invalid(format!("no parked event {id} (`outbox list --state parked` lists them)")))
        }
        _ => Ok(n),
    }
}

/// Deletes the events delivered before `before`, each but the last of its booking and hotel
/// (kept so that the booking's next event is numbered after it); how many.
pub async fn purge(store: &Store, before: chrono::DateTime<chrono::Utc>) -> Result<u64, OutboxError> {
    let before = before.timestamp_millis();
    crate::store::purge::in_batches(store, move |c| {
        Box::pin(
            async move { Ok::<_, OutboxError>(repo::purge_delivered(c, before, crate::store::purge::BATCH).await?) },
        )
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
    let found = store
        .write_now(move |c| {
            Box::pin(async move {
                let Some(now) = crate::requestors::repo::load_all(c).await?.into_iter().find(|r| r.id == who) else {
                    return Ok::<_, OutboxError>(false);
                };
                if now.notify_url == url {
                    return Ok(true);
                }
                let found = repo::set_notify_url(c, &who, url.clone()).await?;
                if found {
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
