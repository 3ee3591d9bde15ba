//! Helpers every area uses, each rule written once: language preferences ([`lang`]), Quote or
//! Commit ([`action`]), cancellation policies and penalties ([`cancellation`]), the values of
//! import files and requests ([`values`]) and the gateway's own booking references
//! ([`reference`]).

pub mod action;
pub mod cancellation;
pub mod lang;
pub mod reference;
pub mod values;
