//! All SQL of the hotels: the catalogue (loaded whole into memory, written by imports) and the
//! bookings (found by reference, loaded one child table at a time, saved whole).
//!
//! | file | what |
//! |---|---|
//! | [`catalogue`] | the catalogue, and imports |
//! | [`find`] | finding, listing and loading bookings |
//! | [`save`] | storing a new or changed booking |
//! | [`rooms`] | the rooms sold per night |
//! | [`supply`] | what suppliers' notifications set: rooms on sale, restrictions, amounts |

use std::collections::HashMap;

use super::booking::{
    Booking, BookingHead, Comment, Company, Guest, ItemRef, LangText, Night, Room, RoomReference, RoomSource, Rooms,
    Service, TransferLeg, TransferPoint, Transport,
};
use super::catalogue::{
    Allotment, Catalogue, Hotel, HotelText, Image, ImageFile, ImageText, Phone, Rate, RoomText, RoomType,
};
use super::import::ImportedHotels;
use crate::shared::booking::{Kind, ListDate};
use crate::shared::cancellation::Cancellation;
use crate::shared::import::ImportError;
use crate::shared::policy_repo::{self, CancelRuleRow, PenaltyRow};
use crate::shared::reference;
use crate::shared::register::{self, Claim};
use crate::store::row;
use crate::store::{Conn, Scalar, Sequence, StoreError};

/// A stored unsigned number (RPH, index, age) as the message's `u64`.
fn unsigned(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Data(format!("negative number {v}")))
}

/// A message's unsigned number as a stored integer.
fn signed(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Data(format!("number {v} is too large to store")))
}

fn group<K: std::hash::Hash + Eq, R>(rows: Vec<R>, key: impl Fn(&R) -> K) -> HashMap<K, Vec<R>> {
    let mut out: HashMap<K, Vec<R>> = HashMap::new();
    for r in rows {
        out.entry(key(&r)).or_default().push(r);
    }
    out
}

mod catalogue;
mod find;
mod rooms;
mod save;
mod supply;

pub(crate) use catalogue::*;
pub(crate) use find::*;
pub(crate) use rooms::*;
pub(crate) use save::*;
pub(crate) use supply::*;
