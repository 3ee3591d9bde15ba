//! What hotel and activity bookings share: cancellation (`/bookcancel`) and the register of
//! Client references.
//!
//! | file | layer |
//! |---|---|
//! | `handlers` | `/bookcancel`, thin |
//! | [`rules`] | pure: what a cancel request names, what it costs, what it leaves |
//! | `repo` | the register of Client references |
//! | [`mapping`] | domain values → `OTA_CancelRS` |
//!
//! The SQL of each kind's bookings stays in its area's repo (`hotels`, `activities`).

mod handlers;
pub mod mapping;
pub(crate) mod repo;
pub mod rules;

pub use handlers::cancel;

/// The two kinds of booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A hotel booking (`/hotelbook`, or an import).
    Hotel,
    /// An activity booking (`/activitybook`).
    Activity,
}

impl Kind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Hotel => "hotel",
            Kind::Activity => "activity",
        }
    }
}
