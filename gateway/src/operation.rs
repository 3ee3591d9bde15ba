//! Running one operation: [`dispatch`] checks a decoded request's `Version` and POS, calls the
//! area's handler with a [`Ctx`], and stamps the answer (`EchoToken` echoed, `TimeStamp`,
//! `TransactionIdentifier`). A handler returns its RS, or an [`OpError`]: the problems of a
//! refused request (answered as the RS's `Errors`), or a store failure (logged, answered as a
//! Type 12 system error).

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Timelike, Utc};
use ota_messages::common::Warnings;
use ota_messages::common::{ErrorCode, ErrorWarningType, Errors, Pos, ResStatus};
use ota_messages::runtime::{
    Decision, PayloadStdAttributes, PosRequest, Response, ResponseStdAttributes, Rule, Side, Unread, UnreadKind,
};
use ota_messages::{AnyMessage, AnyRequest, Dialect};

use crate::content::Content;
use crate::errors::{Problem, errors, warnings};
use crate::requestors::Role;
use crate::requestors::traffic::Look;
use crate::shared::action::{Action, Asked};
use crate::shared::context::{Ctx, OpError};
use crate::shared::log_text::LogText;
use crate::state::AppState;
use crate::store::{StoreError, Ticket};
use crate::{activities, bookings, hotels, outbox};

/// A `TimeStamp`: UTC, whole seconds, `YYYY-MM-DDThh:mm:ssZ`.
pub fn time_stamp(now: DateTime<Utc>) -> ota_messages::runtime::DateTime {
    let local = now.naive_utc();
    ota_messages::runtime::DateTime {
        local: local.with_nanosecond(0).unwrap_or(local),
        zone: Some(ota_messages::runtime::Zone::Utc),
        fraction_digits: 0,
    }
}

/// The `Version` check: each request must carry the version of the service description.
/// The versions are compared as decimals where both are (OTA's `Version` is an `xs:decimal`:
/// `2008.10` is `2008.1`), else as written.
fn check_version(found: &str, expected: &'static str, root: &'static str) -> Result<(), Problem> {
    let decimal = |v: &str| rust_decimal::Decimal::from_str_exact(v.trim()).ok().map(|d| d.normalize());
    let same = found == expected || decimal(found).is_some_and(|f| Some(f) == decimal(expected));
    if same { Ok(()) } else { Err(unsupported_version(found, expected, root)) }
}

/// The answer to a request `Version` other than the supported one (also to one that is not
/// even of the form of a version, which the decoder reports): Type 7 naming the supported
/// version, `Tag` on the attribute.
pub fn unsupported_version(found: &str, supported: &str, root: &str) -> Problem {
    Problem::protocol(
        ErrorCode::InvalidValue,
        format!("Version {found:?} is not supported for {root}; the supported version is {supported}."),
    )
    .at(format!("/{root}/@Version"))
}

/// The answer of a failed operation: its problems, or a logged system error.
fn failure<R: Response<Errors = Errors>>(e: OpError, request_id: &str, root: &str) -> R {
    match e {
        OpError::Rejected(problems) => R::from_errors(errors(problems)),
        OpError::Store(StoreError::InDoubt(e)) => {
            crate::metrics::db_error();
            tracing::error!(request_id = %request_id, error = %e, "{root}: the outcome of its commit is not known");
            R::from_errors(errors([Problem::outcome_unknown()]))
        }
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

/// The operations of the supply side, by request root: a hotel's system (a supplier) sends
/// them, for its own hotels (`side="supply"` in the spec, `Side::Supply` in the generated table).
pub fn supply_roots() -> impl Iterator<Item = &'static str> {
    ota_messages::OPERATIONS.iter().filter(|op| op.side == Side::Supply).map(|op| op.request_root)
}

/// The read a supplier pulls its bookings with, or reads them by reference or dates
/// (`outbox::pull`), where a distribution partner reads a booking.
pub const PULL_ROOT: &str = "OTA_ReadRQ";

/// Who may call what: a supplier only the supply operations (and [`PULL_ROOT`], its pull), a
/// distribution partner only the others (Type 6, Code 497, naming neither anyone's hotels nor
/// other requestors).
fn check_side(role: &Role, root: &str) -> Result<(), Problem> {
    // A supplier's read is the pull of its bookings (see `outbox::pull`); a partner's read is
    // the booking read.
    let supply = supply_roots().any(|r| r == root) || (role.is_supplier() && root == PULL_ROOT);
    match role {
        Role::Distributor if supply => Err(Problem::new(
            ErrorWarningType::Authorization,
            ErrorCode::AuthorizationError,
            format!("{root} is sent by a hotel's system (a supplier); this requestor is a distribution partner."),
        )),
        Role::Supplier { .. } if !supply => Err(Problem::new(
            ErrorWarningType::Authorization,
            ErrorCode::AuthorizationError,
            format!(
                "{root} is not a supply operation; this requestor is a supplier, which sends only {} (and {PULL_ROOT}, its pull).",
                supply_roots().collect::<Vec<_>>().join(", ")
            ),
        )),
        _ => Ok(()),
    }
}

/// What every request passes before its handler: the `Version` check and POS authentication;
/// the context the handler is given, or the problem the request is answered with.
async fn admit<Rq>(
    state: &AppState,
    content: &Content,
    meta: &Request,
    now: DateTime<Utc>,
    rq: &Rq,
) -> Result<Ctx, Problem>
where
    Rq: ota_messages::runtime::Request + PayloadStdAttributes + PosRequest<Pos = Pos>,
{
    check_version(rq.version(), Rq::VERSION, Rq::ROOT)?;
    let requestor = state.auth.authenticate(&content.requestors, rq.pos(), meta.client, meta.deadline).await?;
    check_side(&requestor.role, Rq::ROOT)?;
    Ok(Ctx {
        store: state.store.clone(),
        requestor,
        now,
        request_id: meta.id.clone(),
        ticket: meta.ticket.clone(),
        deadline: meta.deadline,
    })
}

/// The answer of a request: its handler's, its problems, or a logged system error; then the
/// envelope (`EchoToken` echoed, `TransactionIdentifier`, `TimeStamp`).
fn answer<Rq>(
    admitted: Result<Result<Rq::Response, OpError>, Problem>,
    rq: &Rq,
    meta: &Request,
    now: DateTime<Utc>,
) -> Rq::Response
where
    Rq: ota_messages::runtime::Request + PayloadStdAttributes,
    Rq::Response: Response<Errors = Errors> + ResponseStdAttributes,
{
    let mut rs = match admitted {
        Ok(handled) => handled.unwrap_or_else(|e| failure(e, &meta.id, Rq::ROOT)),
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

/// What a request counts as for look-to-book ([`crate::requestors::traffic`]), read before
/// it is handled.
enum Counted {
    Search,
    Availability,
    /// A book request, with its `ResStatus`.
    Book(Option<ResStatus>),
    Other,
}

impl Counted {
    fn of(request: &AnyRequest) -> Counted {
        match request {
            AnyRequest::TourActivitySearchRq(_) => Counted::Search,
            AnyRequest::TourActivityAvailRq(_) | AnyRequest::HotelAvailRq(_) => Counted::Availability,
            AnyRequest::TourActivityBookRq(rq) => Counted::Book(rq.res_status.clone()),
            AnyRequest::HotelResRq(rq) => Counted::Book(rq.res_status.clone()),
            _ => Counted::Other,
        }
    }

    /// What the handled request counts as: a book request is a booking when it was a Commit
    /// (by its `ResStatus` or its requestor's dialect) and succeeded, else a quote.
    fn kind(&self, dialect: Dialect, success: bool) -> Option<Look> {
        match self {
            Counted::Search => Some(Look::Search),
            Counted::Availability => Some(Look::Availability),
            Counted::Book(status) => {
                let commit =
                    Action::of_request(status.as_ref(), dialect, "", Asked::Booking).is_ok_and(|(a, _)| a.commits());
                Some(if commit && success { Look::Booking } else { Look::Quote })
            }
            Counted::Other => None,
        }
    }
}

/// The name of a request's operation in per-operation limits: its path without the slash.
fn operation_of<R: ota_messages::runtime::Request>(_: &R) -> &'static str {
    R::PATH.trim_start_matches('/')
}

/// Counts an admitted request: in the look-to-book tally and in the requestor's metrics.
fn count(state: &AppState, requestor: &str, now: DateTime<Utc>, kind: Option<Look>) {
    crate::metrics::requestor_request(requestor, kind.map_or("other", Look::as_str));
    state.traffic.count(requestor, now.date_naive(), kind);
}

/// An answer and the dialect to write it in: the requestor's, or the default when the
/// request was not admitted (its requestor is not known).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The answer.
    pub message: AnyMessage,
    /// The dialect it is written in.
    pub dialect: Dialect,
    /// Set when the request was refused by a per-partner limit ([`crate::limits`]): the
    /// seconds to wait (the transport answers 429 with `Retry-After`).
    pub retry_after: Option<u64>,
    /// Who asked (`None`: the request was not admitted) and what the answer says.
    pub said: Said,
}

/// What an answer says, for the request's log line and the `ota_answers` metric: `Success`,
/// `Warning` (a success with warnings) or `Error T/C` (its first error's Type and Code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome(pub String);

impl Outcome {
    /// The outcome of an answer.
    pub fn of<R: Response<Errors = Errors>>(rs: &R) -> Self {
        match rs.errors().and_then(|e| e.error.first()) {
            Some(e) => Outcome::error(&e.r#type, e.code.as_ref()),
            None if rs.warnings().is_some() => Outcome("Warning".into()),
            None => Outcome("Success".into()),
        }
    }

    /// An error answer's outcome: `Error T/C`.
    pub fn error(r#type: &ErrorWarningType, code: Option<&ErrorCode>) -> Self {
        Outcome(format!("Error {}/{}", r#type.as_str(), code.map_or("-", |c| c.as_str())))
    }
}

/// Who asked and what the answer said: handed by the operation route to the transaction log
/// and, as a response extension, to the request's log line, metrics and traffic rollups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The requestor that authenticated, if one did.
    pub requestor: Option<String>,
    /// What the answer says.
    pub outcome: Outcome,
    /// What the request counted as for look-to-book (`None`: none of the kinds, or not admitted).
    pub look: Option<Look>,
}

/// Answers a decoded request (whose root already matched the endpoint path), from the
/// current content snapshot: the one table of which handler answers which request, each handler
/// given its area's part of the gateway.
///
/// `unread` is what the request held that OpenTravel 2016B allows and the service does not read
/// (decided by `ota_messages::official::RULES`): an item whose leaving out could change the deal refuses the request
/// (Type 2, naming it) once it is admitted; the others are named in Warnings of a success.
pub async fn dispatch(state: &AppState, request: AnyRequest, unread: &[Unread], meta: &Request) -> Answer {
    let span = tracing::info_span!("operation", operation = request.operation().request_root);
    tracing::Instrument::instrument(run(state, request, unread, meta), span).await
}

/// What a request held that the service does not read, by the decision on each item
/// (`ota_messages::official::RULES`, the spec's `official.xml`): refused (Type 2, not
/// supported) or ignored (a Warning of a success answer), each naming the item.
#[derive(Debug, Default)]
struct Unused {
    refused: Vec<Problem>,
    ignored: Vec<Problem>,
}

impl Unused {
    fn of(root: &str, unread: &[Unread]) -> Self {
        let mut out = Unused::default();
        for u in unread {
            let what = u.item_path();
            // A value the service does not take is never ignored; other items as the rules say.
            let rule = match u.kind {
                UnreadKind::Value { .. } => None,
                _ => Rule::decide(&ota_messages::official::RULES, root, u),
            };
            let ignored = rule.filter(|r| r.decision == Decision::Ignored).map(|r| r.reason);
            let reason = rule.map_or("this service does not read it", |r| r.reason);
            let text = match (&u.kind, ignored) {
                (UnreadKind::Value { value, expected }, _) => {
                    let value: String = value.chars().take(64).collect();
                    format!(
                        "{what} {:?} is valid OpenTravel 2016B but not supported here: this service takes {expected}.",
                        LogText(&value)
                    )
                }
                (UnreadKind::Absent, Some(reason)) => format!(
                    "{what} is absent (optional in OpenTravel 2016B); the request was processed without it ({reason})."
                ),
                (UnreadKind::Absent, None) => format!(
                    "{what} is optional in OpenTravel 2016B, but this service needs it to carry out the request."
                ),
                (UnreadKind::More, Some(reason)) => format!(
                    "{what} (one more than this service reads) is not used by this service ({reason}); the request was processed without it."
                ),
                (UnreadKind::Item, Some(reason)) => {
                    format!("{what} is not used by this service ({reason}); the request was processed without it.")
                }
                (UnreadKind::More, None) => {
                    format!("{what} (one more than this service reads) is not supported: {reason}.")
                }
                (UnreadKind::Item, None) => format!("{what} is not supported: {reason}."),
            };
            match ignored {
                Some(_) => out.ignored.push(
                    Problem::new(ErrorWarningType::NoImplementation, ErrorCode::UnableToProcess, text)
                        .at(u.path.clone()),
                ),
                None => out.refused.push(Problem::not_supported(text).at(u.path.clone())),
            }
        }
        out
    }

    /// The POS sources authentication did not read ([`crate::auth::unused_sources`]), each
    /// named in a Warning of a success (a GDS-derived client adds sources of its own).
    fn sources(root: &str, pos: &Pos, requestors: &crate::requestors::Directory) -> Vec<Problem> {
        crate::auth::unused_sources(pos, requestors)
            .into_iter()
            .map(|n| {
                let path = format!("/{root}/POS/Source[{n}]");
                Problem::new(
                    ErrorWarningType::NoImplementation,
                    ErrorCode::UnableToProcess,
                    format!(
                        "{path} is not used by this service (only the credentials' source, RequestorID Type 88, and the requestor's source of the same ID, Type 22, are read); the request was processed without it."
                    ),
                )
                .at(path)
            })
            .collect()
    }
}

/// Adds the Warnings of the items a success answer did without, after its own.
fn warn_unused<R: Response<Warnings = Warnings>>(rs: &mut R, ignored: Vec<Problem>) {
    if ignored.is_empty() || !rs.is_success() {
        return;
    }
    if let Some(place) = rs.warnings_mut() {
        let mut all = place.take().map(|w| w.warning).unwrap_or_default();
        let first = all.len() as u64;
        all.extend(warnings(ignored).warning.into_iter().map(|mut w| {
            w.rph = w.rph.map(|n| n + first);
            w
        }));
        *place = Some(Warnings { warning: all });
    }
}

/// [`dispatch`] within its span.
async fn run(state: &AppState, request: AnyRequest, unread: &[Unread], meta: &Request) -> Answer {
    let content = &state.content.get();
    let counted = Counted::of(&request);
    let root = request.root_name();
    let unused = Unused::of(root, unread);
    let now = Utc::now();
    macro_rules! table {
        ($($rq:ident => $rs:ident: |$cx:ident, $m:ident| $handler:expr,)*) => {
            match request {
                $(AnyRequest::$rq($m) => {
                    let mut retry_after = None;
                    let mut requestor = None;
                    let mut look = None;
                    let (handled, dialect) = match admit(state, content, meta, now, &*$m).await {
                        Ok(admitted) => {
                            let dialect = admitted.requestor.dialect;
                            requestor = Some(admitted.requestor.id.clone());
                            // The partner's limits: from memory, before the handler touches the store.
                            match state.limits.admit(&admitted.requestor, operation_of(&*$m), Instant::now(), now) {
                                Ok(()) if !unused.refused.is_empty() => {
                                    (Ok(Err(OpError::Rejected(unused.refused.clone()))), dialect)
                                }
                                Ok(()) => {
                                    let handled = {
                                        let ($cx, $m) = (&admitted, &*$m);
                                        $handler.await
                                    };
                                    let kind = counted.kind(dialect, handled.as_ref().is_ok_and(|rs| rs.is_success()));
                                    count(state, &admitted.requestor.id, now, kind);
                                    look = kind;
                                    (Ok(handled), dialect)
                                }
                                Err(refused) => {
                                    tracing::info!(request_id = %meta.id, requestor = %admitted.requestor.id, retry_after = refused.retry_after, "over the requestor's limit");
                                    crate::metrics::requestor_limited(&admitted.requestor.id, refused.limit);
                                    retry_after = Some(refused.retry_after);
                                    (Err(*refused.problem), dialect)
                                }
                            }
                        }
                        Err(problem) => (Err(problem), Dialect::default()),
                    };
                    let mut rs = answer(handled, &*$m, meta, now);
                    let mut ignored = unused.ignored.clone();
                    if requestor.is_some() {
                        ignored.extend(Unused::sources(root, $m.pos(), &content.requestors));
                    }
                    warn_unused(&mut rs, ignored);
                    let outcome = Outcome::of(&rs);
                    Answer { message: AnyMessage::$rs(Box::new(rs)), dialect, retry_after, said: Said { requestor, outcome, look } }
                })*
                // The gateway sends OTA_HotelResNotifRQ (`outbox`) and does not take it.
                rq @ AnyRequest::HotelResNotifRq(_) => not_taken(&rq, now),
            }
        };
    }
    table! {
        TourActivitySearchRq => TourActivitySearchRs: |cx, rq| activities::search(cx, &state.activities(content), rq),
        TourActivityAvailRq => TourActivityAvailRs: |cx, rq| activities::availability(cx, &state.activities(content), rq),
        ProductDescriptiveInfoRq => ProductDescriptiveInfoRs: |_cx, rq| activities::descriptive_info(&state.activities(content), rq),
        TourActivityBookRq => TourActivityBookRs: |cx, rq| activities::book(cx, &state.activities(content), rq),
        HotelDescriptiveInfoRq => HotelDescriptiveInfoRs: |_cx, rq| hotels::descriptive_info(&state.hotels(content), rq),
        HotelAvailRq => HotelAvailRs: |cx, rq| hotels::availability(cx, &state.hotels(content), rq),
        HotelResRq => HotelResRs: |cx, rq| hotels::book(cx, &state.hotels(content), rq),
        HotelResModifyRq => HotelResModifyRs: |cx, rq| hotels::modify(cx, &state.hotels(content), rq),
        ReadRq => ResRetrieveRs: |cx, rq| read(cx, state, content, rq, unread),
        CancelRq => CancelRs: |cx, rq| bookings::cancel(cx, &state.hotels(content), &state.activities(content), rq),
        HotelInvCountNotifRq => HotelInvCountNotifRs: |cx, rq| hotels::inv_count_notif(cx, &state.hotels(content), rq),
        HotelAvailNotifRq => HotelAvailNotifRs: |cx, rq| hotels::avail_notif(cx, &state.hotels(content), rq),
        HotelRateAmountNotifRq => HotelRateAmountNotifRs: |cx, rq| hotels::rate_amount_notif(cx, &state.hotels(content), rq),
        NotifReportRq => NotifReportRs: |cx, rq| outbox::pull::acknowledge(cx, rq),
    }
}

/// `/bookread`: a supplier's read is its own (`outbox::pull`: the pull, or its bookings by
/// reference or dates, refusing what it holds unread that would change what is read), a
/// partner's the booking read.
async fn read(
    cx: &Ctx,
    state: &AppState,
    content: &Content,
    rq: &ota_messages::booking_read::OtaReadRq,
    unread: &[Unread],
) -> Result<ota_messages::booking_read::OtaResRetrieveRs, OpError> {
    if cx.requestor.role.is_supplier() {
        let catalogues =
            outbox::mapping::Catalogues { hotels: content.hotels.clone(), activities: content.activities.clone() };
        outbox::pull::read(cx, &catalogues, rq, unread).await
    } else {
        bookings::read(cx, &state.hotels(content), &state.activities(content), rq).await
    }
}

/// `OTA_HotelResNotifRQ`: the gateway sends it to suppliers (`outbox`) and takes none: answered
/// with its RS carrying one Type 2 error, before authentication (it tells nothing about any
/// hotel), with the request's `EchoToken` and `TransactionIdentifier` echoed.
fn not_taken(rq: &AnyRequest, now: DateTime<Utc>) -> Answer {
    let op = rq.operation();
    let problem =
        Problem::not_supported(format!("{} is sent by this gateway to suppliers; it takes none.", op.request_root))
            .at(format!("/{}", op.request_root));
    let outcome = Outcome::error(&problem.kind, Some(&problem.code));
    let mut message = ota_messages::error_response(op.path, errors([problem]))
        .unwrap_or_else(|| unreachable!("every operation has a response"));
    let (echo, transaction) = rq
        .payload_std_attributes()
        .map_or((None, None), |a| (a.echo_token().map(str::to_string), a.transaction_identifier().map(str::to_string)));
    if let Some(rs) = message.response_std_attributes_mut() {
        rs.set_echo_token(echo);
        rs.set_transaction_identifier(transaction);
        rs.set_time_stamp(Some(time_stamp(now)));
    }
    Answer {
        message,
        dialect: Dialect::default(),
        retry_after: None,
        said: Said { requestor: None, outcome, look: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_equal_as_decimals() {
        for same in ["2008.1", "2008.10", "2008.100", " 2008.1"] {
            assert!(check_version(same, "2008.1", "R").is_ok(), "{same}");
        }
        for other in ["2008.2", "2008", "2008.01", "2016.b", ""] {
            assert!(check_version(other, "2008.1", "R").is_err(), "{other}");
        }
        assert!(check_version("2016.b", "2016.b", "R").is_ok());
    }
}
