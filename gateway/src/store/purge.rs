//! Deleting what is kept only for a while, the same way everywhere: in batches of
//! [`BATCH`] rows (one short transaction each, so neither the SQLite writer nor PostgreSQL's
//! locks are held long), now and then on every gateway ([`forever`]; deleting is idempotent,
//! so gateways that do it together only share the work).

use std::time::Duration;

use super::{Abandoned, Store, StoreError};

/// How many rows one purge statement deletes.
pub const BATCH: i64 = 5_000;

/// How often a purge without a period of its own runs (the supply's past nights, the outbox's
/// delivered events).
pub const HOURLY: Duration = Duration::from_secs(3600);

/// Runs `batch` (a write deleting at most [`BATCH`] rows, giving how many) until it deletes
/// fewer; how many rows were deleted in all.
pub async fn in_batches<E, F>(store: &Store, batch: F) -> Result<u64, E>
where
    E: From<StoreError> + From<Abandoned> + Send + 'static,
    F: for<'a, 'c> Fn(&'a mut super::Conn<'c>) -> futures_util::future::BoxFuture<'a, Result<u64, E>>
        + Clone
        + Send
        + 'static,
{
    let mut total = 0;
    loop {
        let deleted = store.write_now(batch.clone()).await?;
        total += deleted;
        if deleted < BATCH as u64 {
            return Ok(total);
        }
    }
}

/// Runs `purge` now and then every `every`, forever (the gateway aborts it when it stops):
/// logs at INFO how many rows it deleted, when it deleted any, and at WARN why it could not
/// (tried again at the next round).
pub async fn forever<F, Fut, E>(every: Duration, what: &'static str, mut purge: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<u64, E>>,
    E: std::fmt::Display,
{
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        match purge().await {
            Ok(0) => {}
            Ok(rows) => tracing::info!(rows, "{what} deleted"),
            Err(e) => tracing::warn!(error = %e, "{what} could not be deleted; trying again later"),
        }
    }
}
