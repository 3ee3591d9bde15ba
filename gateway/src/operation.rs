//! Running one operation: [`dispatch`] checks a decoded request's `Version` and POS, calls the
//! area's handler with a [`Ctx`], and stamps the answer (`EchoToken` echoed, `TimeStamp`,
//! `TransactionIdentifier`). A handler returns its RS, or an [`OpError`]: the problems of a
//! refused request (answered as the RS's `Errors`), or a store failure (logged, answered as a
//! Type 12 system error).

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Timelike, Utc};
use futures_util::future::BoxFuture;
use ota_messages::common::{ErrorCode, Errors, Pos};
use ota_messages::runtime::{PayloadStdAttributes, PosRequest, Response, ResponseStdAttributes};
use ota_messages::{AnyMessage, AnyRequest};

use crate::content::Content;
use crate::hotels::BookingCache;
use crate::http::AppState;
use crate::errors::{Problem, errors};
use crate::requestors::Requestor;
use crate::store::recent::RecentReads;
use crate::store::{Abandoned, Conn, Store, StoreError, Ticket};
use crate::{activities, hotels};

/// Why an operation did not answer with a success.
#[derive(Debug)]
pub enum OpError {
    /// The request is refused: one problem per thing wrong with it.
    Rejected(Vec<Problem>),
    /// The store failed.
    Store(StoreError),
    /// The request gave up before its write was carried out (nothing was stored).
    Abandoned,
}

impl From<Problem> for OpError {
    fn from(p: Problem) -> Self {
        OpError::Rejected(vec![p])
    }
}

impl From<Vec<Problem>> for OpError {
    fn from(p: Vec<Problem>) -> Self {
        OpError::Rejected(p)
    }
}

impl From<StoreError> for OpError {
    fn from(e: StoreError) -> Self {
        OpError::Store(e)
    }
}

impl From<Abandoned> for OpError {
    fn from(_: Abandoned) -> Self {
        OpError::Abandoned
    }
}

/// The inventory reads of the availability operations, reused while current (see
/// [`crate::store::recent`]): keyed by the hotels or activities and the first and last night
/// or date asked for.
#[derive(Debug, Default)]
pub struct RecentInventory {
    /// Rooms sold per hotel, room type and night.
    pub(crate) rooms_sold: RecentReads<(Vec<String>, NaiveDate, NaiveDate), hotels::rules::inventory::Rooms>,
    /// Places booked per activity, product, service and date.
    pub(crate) places_booked: RecentReads<(Vec<String>, NaiveDate, NaiveDate), activities::repo::BookedPlaces>,
}

/// What an operation gets besides its request.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The store.
    pub store: Store,
    /// The content snapshot the request is served from.
    pub content: Arc<Content>,
    /// Hotel bookings kept in memory.
    pub hotel_bookings: Arc<BookingCache>,
    /// The recent inventory reads of the availability operations.
    pub recent: Arc<RecentInventory>,
    /// The authenticated requestor.
    pub requestor: Requestor,
    /// When the request arrived (UTC); the operation's "now".
    pub now: DateTime<Utc>,
    /// The request id (in the logs too).
    pub request_id: String,
    /// Whether the request still waits for its write (see [`Ticket`]).
    pub ticket: Arc<Ticket>,
    /// When the request gives up.
    pub deadline: Option<Instant>,
}

impl Ctx {
    /// Today (UTC).
    pub fn today(&self) -> NaiveDate {
        self.now.date_naive()
    }

    /// Now as a local date-time of whole seconds (UTC).
    pub fn local_now(&self) -> NaiveDateTime {
        let now = self.now.naive_utc();
        now.with_nanosecond(0).unwrap_or(now)
    }

    /// Runs `f` in a read transaction of the store.
    pub async fn read<T, F>(&self, f: F) -> Result<T, OpError>
    where
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, OpError>>,
    {
        self.store.read(f).await
    }

    /// Runs one statement outside any transaction (see [`Store::peek`]).
    pub async fn peek<T, F>(&self, f: F) -> Result<T, OpError>
    where
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, OpError>>,
    {
        self.store.peek(f).await
    }

    /// Runs `f` in a write transaction, committed unless the request gave up before (see
    /// [`Store::write`]); an error of `f` rolls it back.
    pub async fn write<T, F>(&self, f: F) -> Result<T, OpError>
    where
        T: Send + 'static,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, OpError>> + Send + 'static,
    {
        self.store.write(&self.ticket, self.deadline, f).await
    }
}

/// A `TimeStamp`: UTC, whole seconds, `YYYY-MM-DDThh:mm:ssZ`.
pub fn time_stamp(now: DateTime<Utc>) -> ota_messages::runtime::DateTime {
    let local = now.naive_utc();
    ota_messages::runtime::DateTime { local: local.with_nanosecond(0).unwrap_or(local), zone: Some(ota_messages::runtime::Zone::Utc), fraction_digits: 0 }
}

/// The `Version` check: each request must carry the version of the service description.
fn check_version(found: &str, expected: &'static str, root: &'static str) -> Result<(), Problem> {
    if found == expected { Ok(()) } else { Err(unsupported_version(found, expected, root)) }
}

/// The answer to a request `Version` other than the supported one (also to one that is not
/// even of the form of a version, which the decoder reports): Type 7 naming the supported
/// version, `Tag` on the attribute.
pub fn unsupported_version(found: &str, supported: &str, root: &str) -> Problem {
    Problem::protocol(ErrorCode::InvalidValue, format!("Version {found:?} is not supported for {root}; the supported version is {supported}."))
        .at(format!("/{root}/@Version"))
}

/// The answer of a failed operation: its problems, or a logged system error.
fn failure<R: Response<Errors = Errors>>(e: OpError, request_id: &str, root: &str) -> R {
    match e {
        OpError::Rejected(problems) => R::from_errors(errors(problems)),
        OpError::Store(e) => {
            crate::metrics::db_error();
            tracing::error!(request_id = %request_id, error = %e, "{root} failed in the store");
            R::from_errors(errors([Problem::system()]))
        }
        OpError::Abandoned => R::from_errors(errors([Problem::not_processed_in_time()])),
    }
}

/// What a request brings besides its message.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request id.
    pub id: String,
    /// Whether it still waits for its write.
    pub ticket: Arc<Ticket>,
    /// When it gives up.
    pub deadline: Option<Instant>,
    /// The client's address (`None` when not known, e.g. called in-process): authentication
    /// checks it against the requestor's allow-list and throttles by it.
    pub client: Option<std::net::IpAddr>,
}

/// Runs one operation: version, authentication, the operation, then the envelope.
async fn run<Rq>(
    state: &AppState,
    content: &Arc<Content>,
    meta: &Request,
    now: DateTime<Utc>,
    rq: &Rq,
    op: impl AsyncFn(&Ctx, &Rq) -> Result<Rq::Response, OpError>,
) -> Rq::Response
where
    Rq: ota_messages::runtime::Request + PayloadStdAttributes + PosRequest<Pos = Pos>,
    Rq::Response: Response<Errors = Errors> + ResponseStdAttributes,
{
    let checked = match check_version(rq.version(), Rq::VERSION, Rq::ROOT) {
        Ok(()) => state.auth.authenticate(&content.requestors, rq.pos(), meta.client, meta.deadline).await,
        Err(p) => Err(p),
    };
    let mut rs = match checked {
        Ok(requestor) => {
            let cx = Ctx {
                store: state.store.clone(),
                content: content.clone(),
                hotel_bookings: state.hotel_bookings.clone(),
                recent: state.recent.clone(),
                requestor,
                now,
                request_id: meta.id.clone(),
                ticket: meta.ticket.clone(),
                deadline: meta.deadline,
            };
            op(&cx, rq).await.unwrap_or_else(|e| failure(e, &meta.id, Rq::ROOT))
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

/// Answers a decoded request (whose root already matched the endpoint path), from the
/// current content snapshot.
pub async fn dispatch(state: &AppState, request: AnyRequest, meta: &Request) -> AnyMessage {
    let content = &state.content.get();
    let now = Utc::now();
    match request {
        AnyRequest::TourActivitySearchRq(rq) => {
            AnyMessage::TourActivitySearchRs(Box::new(run(state, content, meta, now, &*rq, activities::search).await))
        }
        AnyRequest::TourActivityAvailRq(rq) => {
            AnyMessage::TourActivityAvailRs(Box::new(run(state, content, meta, now, &*rq, activities::availability).await))
        }
        AnyRequest::ProductDescriptiveInfoRq(rq) => {
            AnyMessage::ProductDescriptiveInfoRs(Box::new(run(state, content, meta, now, &*rq, activities::descriptive_info).await))
        }
        AnyRequest::TourActivityBookRq(rq) => {
            AnyMessage::TourActivityBookRs(Box::new(run(state, content, meta, now, &*rq, activities::book).await))
        }
        AnyRequest::HotelDescriptiveInfoRq(rq) => {
            AnyMessage::HotelDescriptiveInfoRs(Box::new(run(state, content, meta, now, &*rq, hotels::descriptive_info).await))
        }
        AnyRequest::ReadRq(rq) => AnyMessage::ResRetrieveRs(Box::new(run(state, content, meta, now, &*rq, hotels::read).await)),
        AnyRequest::HotelResModifyRq(rq) => {
            AnyMessage::HotelResModifyRs(Box::new(run(state, content, meta, now, &*rq, hotels::modify).await))
        }
        AnyRequest::HotelAvailRq(rq) => AnyMessage::HotelAvailRs(Box::new(run(state, content, meta, now, &*rq, hotels::availability).await)),
        AnyRequest::HotelResRq(rq) => AnyMessage::HotelResRs(Box::new(run(state, content, meta, now, &*rq, hotels::book).await)),
        AnyRequest::CancelRq(rq) => AnyMessage::CancelRs(Box::new(run(state, content, meta, now, &*rq, crate::bookings::cancel).await)),
    }
}

