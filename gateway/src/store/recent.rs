//! Recent results of the inventory reads that every availability request makes (rooms sold,
//! places booked), reused while they are known to be current.
//!
//! A result is reused when both hold:
//! - no write has finished in this process since the read started: every write of either
//!   backend counts one (`note_write`) once its transaction has ended, before its request is
//!   answered (a Commit, modify or cancel is seen at once by the availability requests that
//!   follow it on the same gateway);
//! - it is younger than [`MAX_AGE`]: the bound on how late a gateway reflects the bookings made
//!   by another gateway (or another process) on the same database, the same order as the
//!   content snapshot's refresh.
//!
//! An availability answer is advisory either way: a Commit always checks the rooms and places
//! left in its own transaction, so a reused result can never oversell.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a result from before a write on another process may be served.
pub const MAX_AGE: Duration = Duration::from_millis(250);

/// Writes finished in this process (any store).
static WRITES: AtomicU64 = AtomicU64::new(0);

/// Counts a finished write transaction (committed or not): every result read before it is
/// stale from now on.
pub(crate) fn note_write() {
    WRITES.fetch_add(1, Ordering::AcqRel);
}

/// When a read started: the writes finished so far, and the time.
#[derive(Debug, Clone, Copy)]
struct Mark {
    writes: u64,
    at: Instant,
}

impl Mark {
    fn now(writes: &AtomicU64) -> Mark {
        Mark { writes: writes.load(Ordering::Acquire), at: Instant::now() }
    }

    /// True when a result read from this mark is still current at `now`.
    fn is_current(&self, now: Mark) -> bool {
        self.writes == now.writes && now.at.saturating_duration_since(self.at) < MAX_AGE
    }
}

/// Recent results of one kind of read, by its parameters.
#[derive(Debug)]
pub struct RecentReads<K, V> {
    entries: Mutex<HashMap<K, (Mark, Arc<V>)>>,
    /// The writes counted (`WRITES`; a test's own counter in unit tests).
    writes: &'static AtomicU64,
}

impl<K, V> Default for RecentReads<K, V> {
    fn default() -> Self {
        RecentReads { entries: Mutex::new(HashMap::new()), writes: &WRITES }
    }
}

impl<K: Hash + Eq, V> RecentReads<K, V> {
    /// The most results kept; past it, the stale ones are dropped (all, if none is stale).
    pub const CAPACITY: usize = 1024;

    /// The current result for `key`, or the result of `read` (kept for the requests that
    /// follow). A failed read is not kept.
    pub async fn get_or_read<E, F>(&self, key: K, read: F) -> Result<Arc<V>, E>
    where
        F: Future<Output = Result<V, E>>,
    {
        let mark = Mark::now(self.writes);
        if let Some(v) = self.current(&key, mark) {
            return Ok(v);
        }
        let value = Arc::new(read.await?);
        self.keep(key, mark, value.clone());
        Ok(value)
    }

    fn current(&self, key: &K, now: Mark) -> Option<Arc<V>> {
        let entries = self.entries.lock().ok()?;
        entries.get(key).filter(|(mark, _)| mark.is_current(now)).map(|(_, v)| v.clone())
    }

    fn keep(&self, key: K, mark: Mark, value: Arc<V>) {
        let Ok(mut entries) = self.entries.lock() else { return };
        if entries.len() >= Self::CAPACITY {
            let now = Mark::now(self.writes);
            entries.retain(|_, (m, _)| m.is_current(now));
            if entries.len() >= Self::CAPACITY {
                entries.clear();
            }
        }
        entries.insert(key, (mark, value));
    }

    /// How many results are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }

    /// True when none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results counting the writes of one test alone (the tests run in parallel).
    fn reads<K: Hash + Eq, V>() -> (RecentReads<K, V>, &'static AtomicU64) {
        let writes: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
        (RecentReads { entries: Mutex::new(HashMap::new()), writes }, writes)
    }

    fn write(writes: &AtomicU64) {
        writes.fetch_add(1, Ordering::AcqRel);
    }

    #[tokio::test]
    async fn a_result_is_reused_until_a_write_finishes() {
        let (reads, writes) = reads::<&str, i64>();
        let first = reads.get_or_read("k", async { Ok::<_, ()>(1) }).await;
        assert_eq!(first.as_deref(), Ok(&1));
        let again = reads.get_or_read("k", async { Ok::<_, ()>(2) }).await;
        assert_eq!(again.as_deref(), Ok(&1), "reused");
        write(writes);
        let after = reads.get_or_read("k", async { Ok::<_, ()>(3) }).await;
        assert_eq!(after.as_deref(), Ok(&3), "read again after a write");
    }

    #[tokio::test]
    async fn a_write_during_the_read_makes_its_result_stale() {
        let (reads, writes) = reads::<&str, i64>();
        let during = reads
            .get_or_read("k", async {
                write(writes);
                Ok::<_, ()>(1)
            })
            .await;
        assert_eq!(during.as_deref(), Ok(&1));
        let next = reads.get_or_read("k", async { Ok::<_, ()>(2) }).await;
        assert_eq!(next.as_deref(), Ok(&2), "the result read across a write is not reused");
    }

    #[tokio::test]
    async fn a_result_expires_after_max_age_and_failures_are_not_kept() {
        let (reads, _) = reads::<&str, i64>();
        assert_eq!(reads.get_or_read("k", async { Err::<i64, _>("down") }).await.err(), Some("down"));
        assert!(reads.is_empty());
        let _ = reads.get_or_read("k", async { Ok::<_, ()>(1) }).await;
        std::thread::sleep(MAX_AGE + Duration::from_millis(20));
        let later = reads.get_or_read("k", async { Ok::<_, ()>(2) }).await;
        assert_eq!(later.as_deref(), Ok(&2));
    }

    #[tokio::test]
    async fn capacity_is_bounded() {
        let (reads, _) = reads::<usize, usize>();
        for k in 0..RecentReads::<usize, usize>::CAPACITY * 3 {
            let _ = reads.get_or_read(k, async move { Ok::<_, ()>(k) }).await;
        }
        assert!(reads.len() <= RecentReads::<usize, usize>::CAPACITY);
    }
}
