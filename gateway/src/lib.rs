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
//! | [`config`] | the server's settings |
//! | [`errors`] | OTA `Errors` / `Warnings` |

pub mod auth;
pub mod client;
pub mod config;
pub mod db;
pub mod errors;
pub mod http;
pub mod ops;
pub mod seed;

pub use client::{Client, ClientError};
pub use config::Config;
pub use db::Db;
pub use http::{AppState, router, serve};
