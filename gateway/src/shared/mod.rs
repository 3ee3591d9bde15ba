//! Helpers every area uses, each rule written once: language preferences ([`lang`]), Quote or
//! Commit ([`action`]), cancellation policies and penalties ([`cancellation`], stored by
//! `policy_repo`), the values of
//! import files and requests ([`values`]) and the gateway's own booking references
//! ([`reference`](mod@reference)), and the outbox event every booking change writes
//! ([`events`]).

pub mod action;
pub mod booking;
pub mod cancellation;
pub mod context;
pub mod events;
pub mod import;
pub mod lang;
pub mod log_text;
pub mod mapping;
pub(crate) mod policy_repo;
pub mod reference;
pub(crate) mod register;
pub mod values;
