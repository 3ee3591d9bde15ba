//! `ota-gateway`: the OTA XML-over-HTTP gateway of the hotel and activity booking service,
//! built on the generated message types of `ota-messages`.
//!
//! | module | what |
//! |---|---|
//! | [`http`] | the axum server: transport rules, the allow-list, time-outs, logging |
//! | [`ops`] | version and POS checks, then one function per operation |
//! | [`auth`] | POS authentication against the requestor table (argon2) |
//! | [`db`] | the embedded SQLite database (WAL, migrations, a connection pool) |
//! | [`seed`] | demo content and `ota-gateway import` |
//! | [`client`] | a typed async client |
//! | [`errors`] | OTA `Errors` / `Warnings` |

pub mod auth;
pub mod db;
pub mod errors;
pub mod ops;
