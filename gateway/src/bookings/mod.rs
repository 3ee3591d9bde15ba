//! What concerns a booking of either kind: the read (`/bookread`) and the cancel (`/bookcancel`);
//! finding any booking for the operators (`ota-gateway bookings search|show`, the console's
//! booking pages).
//!
//! | file | layer |
//! |---|---|
//! | `handlers` | `/bookcancel`, thin |
//! | [`reader`] | request readers: what a read or cancel request names |
//! | [`rules`] | pure: what a cancel request names, what it costs, what it leaves |
//! | [`mapping`] | domain values → `OTA_CancelRS` |
//! | [`search`] | finding any booking: a search's filters checked, its pages |
//! | [`show`] | one booking whole: items, history, log entries, events |
//! | `repo` | the SQL of the search and of a booking's items, history, log entries and events |
//!
//! The SQL of each kind's bookings stays in its area's repo (`hotels`, `activities`); what reads
//! both kinds at once for the operators is in `repo`.

mod handlers;
pub mod mapping;
pub mod reader;
mod repo;
pub mod rules;
pub mod search;
pub mod show;

pub use handlers::{cancel, read};
