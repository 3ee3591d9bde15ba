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

use crate::store::StoreError;

/// A stored unsigned number (RPH, index, age) as the message's `u64`.
pub(super) fn unsigned(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Data(format!("negative number {v}")))
}

/// A message's unsigned number as a stored integer.
pub(super) fn signed(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Data(format!("number {v} is too large to store")))
}

pub(crate) mod catalogue;
pub(crate) mod find;
pub(crate) mod rooms;
pub(crate) mod save;
pub(crate) mod supply;
