//! The generator's tests, one binary: the fixtures (valid ones generate the expected model and
//! code, invalid ones the expected diagnostics), the whole spec's lowered model, and the official
//! schemas' generated instances (valid under xmllint).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod edit_locality;
mod fixtures;
mod official;
mod spec;
