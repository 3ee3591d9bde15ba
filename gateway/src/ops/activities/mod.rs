//! The activity operations: search, availability, activity NBC and booking.
//! TO BE COMPLETED (activities work).

use ota_messages::runtime::Response;
use ota_messages::{product_descriptive_info as pdi, tour_activity_avail as avail, tour_activity_book as book, tour_activity_search as search};

use super::Ctx;
use crate::errors::{Problem, errors};

fn not_yet<R: Response<Errors = ota_messages::common::Errors>>() -> R {
    R::from_errors(errors([Problem::new(
        ota_messages::common::ErrorWarningType::NoImplementation,
        ota_messages::common::ErrorCode::UnableToProcess,
        "not implemented yet",
    )]))
}

/// `/activitysearch`.
pub async fn search(_ctx: &Ctx, _rq: &search::OtaTourActivitySearchRq) -> search::OtaTourActivitySearchRs {
    not_yet()
}

/// `/activityavailability`.
pub async fn availability(_ctx: &Ctx, _rq: &avail::OtaTourActivityAvailRq) -> avail::OtaTourActivityAvailRs {
    not_yet()
}

/// `/activitynbc`.
pub async fn descriptive_info(_ctx: &Ctx, _rq: &pdi::OtaProductDescriptiveInfoRq) -> pdi::OtaProductDescriptiveInfoRs {
    not_yet()
}

/// `/activitybook`.
pub async fn book(_ctx: &Ctx, _rq: &book::OtaTourActivityBookRq) -> book::OtaTourActivityBookRs {
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
