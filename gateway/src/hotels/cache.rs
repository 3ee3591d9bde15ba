//! What the hotel area keeps in memory ([`Kept`]): the rooms sold that availability read
//! recently, and hotel bookings, checked against the store's revision on every use: a read
//! finds the booking's row and revision (one statement) and takes the copy kept here when the
//! revision is the same, else loads it (one statement per child table) and keeps it. Every
//! write of a booking gives it a revision never given before (also on another gateway), so a
//! kept copy is never served once stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;

use super::booking::Booking;
use super::repo::find::BookingRef;
use super::rules::inventory::Rooms;
use crate::store::recent::RecentReads;

/// What the hotel operations keep in memory between requests (one per gateway).
#[derive(Debug, Default)]
pub struct Kept {
    /// Hotel bookings, checked against their revision on every use.
    pub bookings: BookingCache,
    /// The rooms sold per hotel, room type and night that availability read recently (see
    /// [`crate::store::recent`]), keyed by the hotels and the first and last night asked for.
    pub(crate) rooms_sold: RecentReads<(Vec<String>, NaiveDate, NaiveDate), Rooms>,
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
