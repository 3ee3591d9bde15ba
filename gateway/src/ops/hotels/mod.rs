//! The hotel operations: hotel NBC, booking read and booking modify.
//! TO BE COMPLETED (hotels work).

use ota_messages::runtime::Response;
use ota_messages::{booking_read as read, hotel_descriptive_info as hdi, hotel_res_modify as modify};

use super::Ctx;
use crate::errors::{Problem, errors};

fn not_yet<R: Response<Errors = ota_messages::common::Errors>>() -> R {
    R::from_errors(errors([Problem::new(
        ota_messages::common::ErrorWarningType::NoImplementation,
        ota_messages::common::ErrorCode::UnableToProcess,
        "not implemented yet",
    )]))
}

/// `/hotelnbc`.
pub async fn descriptive_info(_ctx: &Ctx, _rq: &hdi::OtaHotelDescriptiveInfoRq) -> hdi::OtaHotelDescriptiveInfoRs {
    not_yet()
}

/// `/bookread`.
pub async fn read(_ctx: &Ctx, _rq: &read::OtaReadRq) -> read::OtaResRetrieveRs {
    not_yet()
}

/// `/bookmodify`.
pub async fn modify(_ctx: &Ctx, _rq: &modify::OtaHotelResModifyRq) -> modify::OtaHotelResModifyRs {
    not_yet()
}

/// PLACEHOLDER (gateway core, until this module's own lands): this module's section of the
/// import file.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Content {}

/// PLACEHOLDER (gateway core, until this module's own lands): stores this module's section of
/// an import file.
pub fn store(_tx: &rusqlite::Transaction, _content: &Content) -> Result<(), crate::db::DbError> {
    Ok(())
}

/// PLACEHOLDER (gateway core, until this module's own lands): this module's demo content (its
/// import file section).
pub const DEMO: &str = "{}";
