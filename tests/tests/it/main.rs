//! The workspace-level tests of the messages, one binary, each suite a module: the spec's
//! samples (round trips, pretty snapshots), rejections, property round trips from the schema
//! tables, the standard attributes, and the differential check against xmllint.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod dialects;
mod official;
mod properties;
mod reject;
mod samples;
mod std_attributes;
mod xmllint_diff;
