//! All SQL of the activities: the catalogue (loaded whole into memory, written by imports),
//! the places booked per service and date, and the bookings.
//!
//! | file | what |
//! |---|---|
//! | [`catalogue`] | the catalogue, and imports |
//! | [`places`] | the places booked per service and date |
//! | [`bookings`] | committing, finding, listing, loading and cancelling bookings |

pub(crate) mod bookings;
pub(crate) mod catalogue;
pub(crate) mod places;
