//! What concerns a booking of either kind: the read (`/bookread`) and the cancel (`/bookcancel`).
//!
//! | file | layer |
//! |---|---|
//! | `handlers` | `/bookcancel`, thin |
//! | [`reader`] | request readers: what a read or cancel request names |
//! | [`rules`] | pure: what a cancel request names, what it costs, what it leaves |
//! | [`mapping`] | domain values → `OTA_CancelRS` |
//!
//! The SQL of each kind's bookings stays in its area's repo (`hotels`, `activities`).

mod handlers;
pub mod mapping;
pub mod reader;
pub mod rules;

pub use handlers::{cancel, read};
