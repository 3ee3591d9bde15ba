//! `ota-gateway`: the OTA XML-over-HTTP gateway of the hotel and activity booking service,
//! built on the generated message types of `ota-messages`.
//!
//! A request goes: [`http`] (transport rules, allow-list, time-out) → [`operation::dispatch`]
//! (version, POS authentication with [`auth`], the envelope) → an area's handler
//! ([`activities`], [`hotels`]) → its pure rules, its repo (all its SQL, through the
//! [`store`]) and its mapping to the answer. Static content is served from memory
//! ([`content`]).
//!
//! | module | what |
//! |---|---|
//! | [`http`] | the axum server: transport rules, the allow-list, time-outs, logging |
//! | [`operation`] | version and POS checks, then one handler per operation; `Ctx`, `OpError` |
//! | [`requestors`], [`activities`], [`hotels`] | the areas: handlers, rules, repo, import, mapping |
//! | [`auth`] | POS authentication (argon2 workers, the verification cache, throttling) |
//! | [`metrics`] | the Prometheus metrics and the functions that record them |
//! | [`store`] | the database: SQLite (embedded) or PostgreSQL (many instances), migrations |
//! | [`content`] | the static content in memory, refreshed when it changes |
//! | [`import`] | `ota-gateway import` and the demo content |
//! | [`shared`] | rules every area uses: languages, Quote/Commit, values, references |
//! | [`client`] | a typed async client |
//! | [`config`] | the server's settings |
//! | [`errors`] | OTA `Errors` / `Warnings` |

pub mod activities;
pub mod auth;
pub mod bookings;
pub mod client;
pub mod config;
pub mod content;
pub mod errors;
pub mod hotels;
pub mod http;
pub mod import;
pub mod metrics;
pub mod operation;
pub mod requestors;
pub mod shared;
pub mod state;
pub mod store;

pub use client::{Client, ClientError};
pub use config::Config;
pub use http::{router, serve};
pub use state::{AppParts, AppState};
pub use store::{Location, Store};
