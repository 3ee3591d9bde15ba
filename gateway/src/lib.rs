//! `ota-gateway`: the OTA XML-over-HTTP gateway of the hotel and activity booking service,
//! built on the generated message types of `ota-messages`.
//!
//! A request goes: [`http`] (transport rules, allow-list, time-out) → [`operation::dispatch`]
//! (version, POS authentication with [`auth`], the envelope; the one table of which handler
//! answers which request) → an area's handler ([`hotels`], [`activities`], or [`bookings`] for
//! a booking of either kind) with a [`shared::context::Ctx`] and its area's part of the gateway
//! → its reader, pure rules, repo (all its SQL, through the [`store`]) and mapping. Static
//! content is served from memory ([`content`]). `gateway/README.md` (Architecture) draws the
//! floors and who may use whom; the `architecture` test holds them.
//!
//! | module | what |
//! |---|---|
//! | [`server`] | the process: [`server::run`] starts, owns and stops every background task around the HTTP server |
//! | [`http`] | the axum server: transport rules, the allow-list, time-outs, logging |
//! | [`operation`] | version and POS checks, then one handler per operation |
//! | [`state`] | [`AppState`]: the store, the content, what each area keeps, auth, the settings |
//! | [`content`] | the static content in memory, refreshed when it changes |
//! | [`import`] | `ota-gateway import` and the demo content |
//! | [`console`] | the operator console: its listener, security, sessions, pages |
//! | [`bookings`] | a booking of either kind: the read and the cancel |
//! | [`outbox`] | bookings out to suppliers: the events' push (every gateway, in the background) and pull |
//! | [`hotels`], [`activities`] | the areas: handlers, reader, rules, mapping, repo, catalogue, import |
//! | [`requestors`], [`auth`] | who calls: the partners, POS authentication (argon2, the cache, throttling) |
//! | [`operators`] | the console's operators (admin, viewer), their logins and sessions |
//! | [`limits`] | per-partner rate limits and daily quotas, from memory |
//! | [`traffic`] | traffic per partner and operation (outcomes, latency, look-to-book) per minute, hour and day: counted in memory, stored in batches, queried by the CLI and the console |
//! | [`shared`] | what every area needs, once: the request context, booking kinds, the Client-reference register, Quote/Commit, values, languages |
//! | [`store`] | the database: SQLite (embedded) or PostgreSQL (many instances), migrations |
//! | [`metrics`] | the Prometheus metrics and the functions that record them |
//! | [`telemetry`] | OpenTelemetry spans exported over OTLP (`serve --otlp-endpoint`) |
//! | [`client`] | a typed async client |
//! | [`config`] | the server's settings: the arguments of `ota-gateway serve` |
//! | [`args`] | the command line's vocabulary: sizes, durations, retentions, the defaults of a set of arguments |
//! | [`txlog`] | the transaction log: chosen partners' requests and answers, passwords out, personal values masked; search, retention, replay |
//! | [`audit`] | the audit trail: who changed what, when, from where (written with the change) |
//! | [`errors`] | OTA `Errors` / `Warnings` |

pub mod activities;
pub mod args;
pub mod audit;
pub mod auth;
pub mod bookings;
pub mod client;
pub mod config;
pub mod console;
pub mod content;
pub mod errors;
pub mod hotels;
pub mod http;
pub mod import;
pub mod limits;
pub mod metrics;
pub mod operation;
pub mod operators;
pub mod outbox;
pub mod requestors;
pub mod server;
pub mod shared;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod traffic;
pub mod txlog;

pub use client::{Client, ClientError};
pub use config::Config;
pub use http::router;
pub use server::serve;
pub use state::{AppParts, AppState};
pub use store::{Location, Store};
