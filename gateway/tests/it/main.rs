//! The gateway's integration tests, one binary: each suite a module, sharing [`support`] (a
//! fresh database on either backend, a gateway in process or as a process, the spec's samples,
//! log capture). Most tests run once per backend (`sqlite::name`, `postgres::name`); the load
//! test runs a short round by default (`LOAD_TASKS=300 LOAD_SECS=20 cargo test --release -p
//! ota-gateway --test it load:: -- --nocapture` for the real one).
//!
//! ```text
//! cargo test -p ota-gateway --test it                 # everything
//! cargo test -p ota-gateway --test it hostile::       # one suite
//! cargo test -p ota-gateway --test it sqlite::        # one backend
//! cargo test -p ota-gateway --test it pooler::        # PostgreSQL through PgBouncer
//! cargo test -p ota-gateway --test it txlog::         # the transaction log and replay
//! cargo test -p ota-gateway --test it upgrade::       # migrate, newer schemas, a rolling upgrade
//! cargo test -p ota-gateway --test it console::       # the operator console: sessions, security, pages
//! cargo test -p ota-gateway --test it browser::       # the console in headless chromium (WebDriver)
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

mod activities;
mod alerts;
mod architecture;
mod attacker;
mod auth;
mod backup;
mod bookings;
mod browser;
mod calendar;
mod compression;
mod consistency;
mod console;
mod console_bookings;
mod console_log;
mod deliveries;
mod durability;
mod extranet;
mod hardening;
mod hostile;
mod hotels;
mod http;
mod instances;
mod lifecycle;
mod limits;
mod load;
mod migrations;
mod official_items;
mod operator;
mod ota_partner;
mod outbox;
mod pooler;
mod secrets;
mod soap;
mod supplier_read;
mod supply;
mod traffic;
mod txlog;
mod upgrade;
