//! Helpers every area uses, each rule written once: language preferences ([`lang`]), Quote or
//! Commit ([`action`]), cancellation policies and penalties ([`cancellation`], stored by
//! `policy_repo`), the values of
//! import files and requests ([`values`]) and the gateway's own booking references
//! ([`reference`](mod@reference)), and the outbox event and history row every booking change
//! writes ([`events`], [`history`]).
//!
//! | file | what |
//! |---|---|
//! | [`context`] | [`Ctx`](context::Ctx), what every handler gets, and [`OpError`](context::OpError), what it returns |
//! | [`booking`] | a booking of either kind: kinds, statuses, heads, guests, list dates |
//! | [`cards`] | card numbers in free text, and the text without them (last four digits kept) |
//! | [`action`] | Quote or Commit (`ResStatus`, `CancelType`) |
//! | [`cancellation`] | cancellation policies and penalties |
//! | `policy_repo` | the SQL of policies and of the penalties fixed into bookings |
//! | `register` | the register of Client references, claimed in a booking's transaction |
//! | [`reference`](mod@reference) | the gateway's own booking references |
//! | [`events`] | the outbox event every booking change writes in its transaction |
//! | [`history`] | the history row every booking change writes in its transaction; the surname key |
//! | [`mapping`] | message pieces both kinds write: totals, penalties, guests, list lines |
//! | [`import`] | the import error and the JSON reader that names a bad entry's path |
//! | [`values`] | the values of import files and requests: codes, currencies, amounts, dates |
//! | [`lang`] | the language chosen for texts |
//! | [`log_text`] | client text as a log line may carry it |

pub mod action;
pub mod booking;
pub mod cancellation;
pub mod cards;
pub mod context;
pub mod events;
pub mod history;
pub mod import;
pub mod lang;
pub mod log_text;
pub mod mapping;
pub(crate) mod policy_repo;
pub mod reference;
pub(crate) mod register;
pub mod values;
