//! All SQL of the activities: the catalogue (loaded whole into memory, written by imports),
//! the places booked per service and date, and the bookings.
//!
//! | file | what |
//! |---|---|
//! | [`catalogue`] | the catalogue, and imports |
//! | [`places`] | the places booked per service and date |
//! | [`bookings`] | committing, finding, listing, loading and cancelling bookings |

use super::booking::{Booking, Participant, Pickup, ServiceKey};
use super::catalogue::{Activity, ActivityText, Catalogue, ItemText, NearbyHotel, Product, Schedule, Service, Texts};
use super::import::{CATEGORY_NAMES, ImportedActivities};
use crate::shared::booking::{BookingHead, Kind, ListDate};
use crate::shared::cancellation::{Cancellation, Penalty};
use crate::shared::import::ImportError;
use crate::shared::policy_repo::{self, CancelRuleRow, PenaltyRow};
use crate::shared::reference;
use crate::shared::register::{self, Claim};
use crate::store::row;
use crate::store::{Conn, Param, Scalar, StoreError};

mod bookings;
mod catalogue;
mod places;

pub(crate) use bookings::*;
pub(crate) use catalogue::*;
pub(crate) use places::*;
