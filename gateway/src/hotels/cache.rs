//! What the hotel area keeps in memory ([`Kept`]): the rooms sold that availability read
//! recently, and hotel bookings, checked against the store's revision on every use: a read
//! finds the booking's row and revision (one statement) and takes the copy kept here when the
//! revision is the same, else loads it (one statement per child table) and keeps it. Every
//! write of a booking gives it a revision never given before (also on another gateway), so a
//! kept copy is never served once stale. It also holds the supply notifications waiting to be
//! applied together on PostgreSQL (`SupplyQueue`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;

use super::booking::Booking;
use super::repo::find::BookingRef;
use super::rules::inventory::Rooms;
use super::rules::supply::{Applied, Notification};
use crate::store::recent::RecentReads;
use crate::store::{StoreError, Ticket};
use std::time::Instant;

/// What the hotel operations keep in memory between requests (one per gateway).
#[derive(Debug, Default)]
pub struct Kept {
    /// Hotel bookings, checked against their revision on every use.
    pub bookings: BookingCache,
    /// The rooms sold per hotel, room type and night that availability read recently (see
    /// [`crate::store::recent`]), keyed by the hotels and the first and last night asked for.
    pub(crate) rooms_sold: RecentReads<(Vec<String>, NaiveDate, NaiveDate), Rooms>,
    /// The supply notifications waiting to be applied (PostgreSQL).
    pub(crate) supply: SupplyQueue,
}

/// The supply notifications waiting to be applied together on PostgreSQL, several in one
/// transaction and one commit (see `hotels::handlers::supply`): a notification joins the queue;
/// until its outcome comes, its request applies what waits whenever fewer than
/// [`SupplyQueue::BATCHES`] batches run, and else waits for one to end.
#[derive(Debug)]
pub(crate) struct SupplyQueue {
    /// The notifications waiting, in their order of arrival.
    pub(crate) waiting: Mutex<Vec<Waiting>>,
    /// One permit per batch that may run at once.
    pub(crate) batches: Arc<tokio::sync::Semaphore>,
    /// Told when a batch ends (its outcomes sent, its permit back).
    pub(crate) ended: tokio::sync::Notify,
}

impl SupplyQueue {
    /// How many batches run at once (each on a connection of its own). Few: the notifications
    /// that arrive while they run wait and make the next batch bigger, and a bigger batch costs
    /// less per notification (one transaction, one commit, one statement for what it sets
    /// together). Measured with 32 connections on PostgreSQL (`docs/scaling.md`): 1 to 3 at once
    /// apply 9,400–12,400 notifications/s, 8 at once 8,100–9,100; two, so that a batch waiting
    /// for a hotel's lock (a booking taking its rooms) does not hold every other hotel up.
    pub(crate) const BATCHES: usize = 2;
    /// The most notifications in one batch.
    pub(crate) const MOST: usize = 64;
}

impl Default for SupplyQueue {
    fn default() -> Self {
        SupplyQueue {
            waiting: Mutex::new(Vec::new()),
            batches: Arc::new(tokio::sync::Semaphore::new(Self::BATCHES)),
            ended: tokio::sync::Notify::new(),
        }
    }
}

/// A notification waiting in the [`SupplyQueue`].
#[derive(Debug)]
pub(crate) struct Waiting {
    /// What to apply.
    pub(crate) notification: Notification,
    /// Whether its request still waits (a batch starts it before applying it).
    pub(crate) ticket: Arc<Ticket>,
    /// When its request gives up (a batch's lock waits end by its earliest).
    pub(crate) deadline: Option<Instant>,
    /// Where its outcome goes.
    pub(crate) outcome: tokio::sync::oneshot::Sender<Result<Applied, Unapplied>>,
}

/// Why a waiting notification was not applied.
#[derive(Debug)]
pub(crate) enum Unapplied {
    /// Its request gave up before a batch started it: nothing of it is stored.
    Abandoned,
    /// The store failed (for the batch, or for it alone).
    Store(StoreError),
}

/// Loaded bookings by row id, with the revision they were loaded at.
#[derive(Debug, Default)]
pub struct BookingCache {
    entries: Mutex<HashMap<i64, (i64, Arc<Booking>)>>,
}

impl BookingCache {
    /// The most bookings kept (about 2 KiB each); past it, one is dropped for each one added.
    pub const CAPACITY: usize = 10_000;

    /// The kept copy of a booking at exactly this revision.
    pub(crate) fn get(&self, at: BookingRef) -> Option<Arc<Booking>> {
        let entries = self.entries.lock().ok()?;
        entries.get(&at.id).filter(|(revision, _)| *revision == at.revision).map(|(_, b)| b.clone())
    }

    /// Keeps a booking as loaded at a revision.
    pub(crate) fn put(&self, at: BookingRef, booking: Arc<Booking>) {
        let Ok(mut entries) = self.entries.lock() else { return };
        if entries.len() >= Self::CAPACITY && !entries.contains_key(&at.id) {
            let victim = entries.keys().next().copied();
            if let Some(victim) = victim {
                entries.remove(&victim);
            }
        }
        entries.insert(at.id, (at.revision, booking));
    }

    /// How many bookings are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }

    /// True when none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
