//! The operations. [`dispatch`] takes a decoded request, checks its `Version` and its POS
//! credentials, runs the operation and stamps the answer (`EchoToken` echoed, `TimeStamp`,
//! `TransactionIdentifier`). Every operation returns its RS: a success, or an error answer
//! for business and validation failures. Nothing here panics on input.

pub mod activities;
pub mod hotels;

use chrono::{DateTime, Utc};
use ota_messages::runtime::{Message, Response};
use ota_messages::{AnyMessage, AnyRequest};

use crate::auth::{self, Requestor};
use crate::db::Db;
use crate::errors::{Problem, errors};

/// What an operation gets besides its request.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The database.
    pub db: Db,
    /// The authenticated requestor (from the POS).
    pub requestor: Requestor,
    /// When the request arrived (UTC); operations use it as "now".
    pub now: DateTime<Utc>,
    /// The request id (also in the logs).
    pub request_id: String,
}

/// A `TimeStamp`: UTC, whole seconds, `YYYY-MM-DDThh:mm:ssZ`.
pub fn time_stamp(now: DateTime<Utc>) -> ota_messages::runtime::DateTime {
    let local = now.naive_utc();
    ota_messages::runtime::DateTime {
        local: local.with_nanosecond(0).unwrap_or(local),
        zone: Some(ota_messages::runtime::Zone::Utc),
        fraction_digits: 0,
    }
}

use chrono::Timelike;

/// The `Version` check: each request must carry the version of the service description.
fn check_version(found: &str, expected: &'static str, root: &'static str) -> Result<(), Problem> {
    if found == expected {
        Ok(())
    } else {
        Err(Problem::protocol(
            ota_messages::common::ErrorCode::InvalidValue,
            format!("Version {found:?} is not supported for {root}; the supported version is {expected}."),
        )
        .at(format!("/{root}/@Version")))
    }
}

/// Runs one operation: version, authentication, the operation, then the envelope.
macro_rules! run {
    ($db:expr, $now:expr, $request_id:expr, $rq:expr, $op:path, $variant:ident, $rs:ty) => {{
        let rq = $rq;
        let (expected, root) = meta(&*rq);
        let checked = match check_version(&rq.version, expected, root) {
            Ok(()) => auth::authenticate($db, &rq.pos).await,
            Err(p) => Err(p),
        };
        let mut rs: $rs = match checked {
            Ok(requestor) => {
                let ctx = Ctx { db: $db.clone(), requestor, now: $now, request_id: $request_id.to_string() };
                $op(&ctx, &rq).await
            }
            Err(problem) => <$rs as Response>::from_errors(errors([problem])),
        };
        rs.echo_token = rq.echo_token.clone();
        // An operation may report its own identifier (hotel NBC: the range of hotels, `1-3/3`).
        rs.transaction_identifier = rs.transaction_identifier.take().or_else(|| rq.transaction_identifier.clone());
        rs.time_stamp = Some(time_stamp($now));
        AnyMessage::$variant(Box::new(rs))
    }};
}

/// The expected `Version` and the root name of a request.
fn meta<M: Message>(_: &M) -> (&'static str, &'static str) {
    (M::VERSION, M::ROOT)
}

/// Answers a decoded request (whose root already matched the endpoint path).
pub async fn dispatch(db: &Db, request: AnyRequest, request_id: &str) -> AnyMessage {
    use ota_messages::{
        booking_read::OtaResRetrieveRs, hotel_descriptive_info::OtaHotelDescriptiveInfoRs,
        hotel_res_modify::OtaHotelResModifyRs, product_descriptive_info::OtaProductDescriptiveInfoRs,
        tour_activity_avail::OtaTourActivityAvailRs, tour_activity_book::OtaTourActivityBookRs,
        tour_activity_search::OtaTourActivitySearchRs,
    };
    use ota_messages::{
        cancel::{OtaCancelRq, OtaCancelRs},
        hotel_avail::{OtaHotelAvailRq, OtaHotelAvailRs},
        hotel_res::{OtaHotelResRq, OtaHotelResRs},
    };
    let now = Utc::now();
    match request {
        AnyRequest::TourActivitySearchRq(rq) => {
            run!(db, now, request_id, rq, activities::search, TourActivitySearchRs, OtaTourActivitySearchRs)
        }
        AnyRequest::TourActivityAvailRq(rq) => {
            run!(db, now, request_id, rq, activities::availability, TourActivityAvailRs, OtaTourActivityAvailRs)
        }
        AnyRequest::ProductDescriptiveInfoRq(rq) => {
            run!(db, now, request_id, rq, activities::descriptive_info, ProductDescriptiveInfoRs, OtaProductDescriptiveInfoRs)
        }
        AnyRequest::TourActivityBookRq(rq) => {
            run!(db, now, request_id, rq, activities::book, TourActivityBookRs, OtaTourActivityBookRs)
        }
        AnyRequest::HotelDescriptiveInfoRq(rq) => {
            run!(db, now, request_id, rq, hotels::descriptive_info, HotelDescriptiveInfoRs, OtaHotelDescriptiveInfoRs)
        }
        AnyRequest::ReadRq(rq) => run!(db, now, request_id, rq, hotels::read, ResRetrieveRs, OtaResRetrieveRs),
        AnyRequest::HotelResModifyRq(rq) => {
            run!(db, now, request_id, rq, hotels::modify, HotelResModifyRs, OtaHotelResModifyRs)
        }
        // Placeholders until the three operations are implemented (to be replaced).
        AnyRequest::HotelAvailRq(rq) => {
            run!(db, now, request_id, rq, not_implemented::<OtaHotelAvailRq, _>, HotelAvailRs, OtaHotelAvailRs)
        }
        AnyRequest::HotelResRq(rq) => {
            run!(db, now, request_id, rq, not_implemented::<OtaHotelResRq, _>, HotelResRs, OtaHotelResRs)
        }
        AnyRequest::CancelRq(rq) => run!(db, now, request_id, rq, not_implemented::<OtaCancelRq, _>, CancelRs, OtaCancelRs),
    }
}

/// Placeholder answer of hotel availability, hotel booking and cancellation until they are
/// implemented (to be replaced): after the version and credentials checks, a Type 2 "No
/// implementation" error.
async fn not_implemented<Q: Message, R: Response<Errors = ota_messages::common::Errors>>(_ctx: &Ctx, _rq: &Q) -> R {
    let problem = Problem::new(
        ota_messages::common::ErrorWarningType::NoImplementation,
        ota_messages::common::ErrorCode::UnableToProcess,
        format!("{} is not implemented yet.", Q::ROOT),
    );
    R::from_errors(errors([problem.at(format!("/{}", Q::ROOT))]))
}

/// The error answer of an operation whose handler failed inside (database down, …): logged
/// with the request id, answered as a Type 12 system error.
pub fn system_error<R: Response<Errors = ota_messages::common::Errors>>(ctx: &Ctx, what: &str, err: &dyn std::fmt::Display) -> R {
    tracing::error!(request_id = %ctx.request_id, error = %err, "{what} failed");
    R::from_errors(errors([Problem::system()]))
}
