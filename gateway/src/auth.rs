//! Authentication from the POS: exactly two `Source` elements, in order — Type 22 with `ID`
//! and `ID_Context` (optional `Instance`), then Type 88 with `ID` and `MessagePassword`.
//! TO BE COMPLETED (gateway core work): argon2 verification against the requestor table.

use ota_messages::common::Pos;

use crate::db::Db;
use crate::errors::Problem;

/// An authenticated requestor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context (`ID_Context` of the Type 22 source).
    pub id_context: String,
    /// The requestor's name.
    pub name: String,
    /// `Instance` of the Type 22 source (`PriceBreakdown`, `MF001`, `MF002`, …), if given.
    pub instance: Option<String>,
}

/// Checks the POS against the requestor table. Failures say nothing about which part was wrong.
pub async fn authenticate(_db: &Db, _pos: &Pos) -> Result<Requestor, Problem> {
    Err(Problem::authentication())
}
