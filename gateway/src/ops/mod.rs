//! The operations. [`dispatch`] takes a decoded request, checks its `Version` and its POS
//! credentials, runs the operation and stamps the answer (`EchoToken` echoed, `TimeStamp`,
//! `TransactionIdentifier`). Every operation returns its RS: a success, or an error answer
//! for business and validation failures. Nothing here panics on input.

pub mod activities;
pub mod hotels;

use chrono::{DateTime, Utc};
use ota_messages::common::{Errors, Pos};
use ota_messages::runtime::{PayloadStdAttributes, PosRequest, Request, Response, ResponseStdAttributes};
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
    if found == expected { Ok(()) } else { Err(unsupported_version(found, expected, root)) }
}

/// The answer to a request `Version` other than the supported one (also to one that is not
/// even of the form of a version, which the decoder reports): Type 7 naming the supported
/// version, `Tag` on the attribute.
pub fn unsupported_version(found: &str, supported: &str, root: &str) -> Problem {
    Problem::protocol(
        ota_messages::common::ErrorCode::InvalidValue,
        format!("Version {found:?} is not supported for {root}; the supported version is {supported}."),
    )
    .at(format!("/{root}/@Version"))
}

/// Runs one operation: version, authentication, the operation, then the envelope.
async fn run<Rq>(db: &Db, now: DateTime<Utc>, request_id: &str, rq: &Rq, op: impl AsyncFn(&Ctx, &Rq) -> Rq::Response) -> Rq::Response
where
    Rq: Request + PayloadStdAttributes + PosRequest<Pos = Pos>,
    Rq::Response: Response<Errors = Errors> + ResponseStdAttributes,
{
    let checked = match check_version(rq.version(), Rq::VERSION, Rq::ROOT) {
        Ok(()) => auth::authenticate(db, rq.pos()).await,
        Err(p) => Err(p),
    };
    let mut rs = match checked {
        Ok(requestor) => {
            let ctx = Ctx { db: db.clone(), requestor, now, request_id: request_id.to_string() };
            op(&ctx, rq).await
        }
        Err(problem) => Rq::Response::from_errors(errors([problem])),
    };
    rs.set_echo_token(rq.echo_token().map(str::to_string));
    // An operation may report its own identifier (hotel NBC: the range of hotels, `1-3/3`).
    if rs.transaction_identifier().is_none() {
        rs.set_transaction_identifier(rq.transaction_identifier().map(str::to_string));
    }
    rs.set_time_stamp(Some(time_stamp(now)));
    rs
}

/// Answers a decoded request (whose root already matched the endpoint path).
pub async fn dispatch(db: &Db, request: AnyRequest, request_id: &str) -> AnyMessage {
    let now = Utc::now();
    let id = request_id;
    match request {
        AnyRequest::TourActivitySearchRq(rq) => {
            AnyMessage::TourActivitySearchRs(Box::new(run(db, now, id, &*rq, activities::search).await))
        }
        AnyRequest::TourActivityAvailRq(rq) => {
            AnyMessage::TourActivityAvailRs(Box::new(run(db, now, id, &*rq, activities::availability).await))
        }
        AnyRequest::ProductDescriptiveInfoRq(rq) => {
            AnyMessage::ProductDescriptiveInfoRs(Box::new(run(db, now, id, &*rq, activities::descriptive_info).await))
        }
        AnyRequest::TourActivityBookRq(rq) => {
            AnyMessage::TourActivityBookRs(Box::new(run(db, now, id, &*rq, activities::book).await))
        }
        AnyRequest::HotelDescriptiveInfoRq(rq) => {
            AnyMessage::HotelDescriptiveInfoRs(Box::new(run(db, now, id, &*rq, hotels::descriptive_info).await))
        }
        AnyRequest::ReadRq(rq) => AnyMessage::ResRetrieveRs(Box::new(run(db, now, id, &*rq, hotels::read).await)),
        AnyRequest::HotelResModifyRq(rq) => {
            AnyMessage::HotelResModifyRs(Box::new(run(db, now, id, &*rq, hotels::modify).await))
        }
    }
}

/// The error answer of an operation whose handler failed inside (database down, …): logged
/// with the request id, answered as a Type 12 system error.
pub fn system_error<R: Response<Errors = ota_messages::common::Errors>>(ctx: &Ctx, what: &str, err: &dyn std::fmt::Display) -> R {
    tracing::error!(request_id = %ctx.request_id, error = %err, "{what} failed");
    R::from_errors(errors([Problem::system()]))
}
