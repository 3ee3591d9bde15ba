//! Helpers every area uses, each rule written once: language preferences ([`lang`]), Quote or
//! Commit ([`action`]), the values of import files and requests ([`values`]) and the gateway's
//! own booking references ([`reference`]).

pub mod action;
pub mod lang;
pub mod reference;
pub mod values;
