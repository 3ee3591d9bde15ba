//! A supplier's reads (`OTA_ReadRQ` on `/bookread`) and acknowledgements (`OTA_NotifReportRQ`
//! on `/notifreport`). What a read asks is read by [`reader::supplier_ask`]:
//!
//! - **No criterion** (no `UniqueID`, an empty `ReadRequests` or `HotelReadRequest`): the pull.
//!   The bookings with events the supplier has not acknowledged, as they now stand, the oldest
//!   event first, at most [`MAX_READ`]. Meant for a supplier without a notification URL; one
//!   with a URL reads what push has not delivered yet, and its activity bookings (which are
//!   pulled only). Each read that gives events, and each acknowledgement, is kept as an attempt
//!   of each event (`pulled`, `acknowledged`: [`repo::pull::record_pulled`], [`repo::pull::acknowledge`]),
//!   for the history.
//! - **One booking by reference** (`UniqueID` Type 36, or `ReadRequests/ReadRequest/UniqueID`;
//!   `ID_Context` Internal: the gateway's reference, Client: the partner's, none: either),
//!   whatever its acknowledgement. A booking with no room stay at the supplier's hotels (another
//!   supplier's) is answered exactly as an unknown one (Type 3, Code 97): references cannot be
//!   probed. A Client reference of several partners answers each of their bookings.
//! - **Bookings by dates** (`ReadRequests/HotelReadRequest/SelectionCriteria@Start@End
//!   @DateType`: `ArrivalDate`, `DepartureDate`, `CreateDate`, `LastUpdateDate`; optional
//!   `@ResStatus`, and `HotelReadRequest@HotelCode`, which must be one of its hotels to find
//!   anything), whatever their acknowledgement; at most [`rules::MAX_RANGE_DAYS`] days per
//!   range; at most [`MAX_READ`] bookings, with a Warning saying how to narrow the read when
//!   more match.
//! - Any other criterion is refused (Type 2, naming it), never ignored. The reads by reference
//!   and by dates change nothing: no attempt kept, nothing acknowledged.
//!
//! Every answer is `OTA_ResRetrieveRS` with one `HotelReservation` per booking and hotel of the
//! supplier: a hotel booking as `/bookread` shows it with the room stays of that hotel only, an
//! activity booking (by its pickup hotel) as `/bookread` shows one (`RoomStayReservation="false"`,
//! one `Service`); each with its `LastModifyDateTime`, the version the supplier acknowledges.
//! Nothing found: Success without `ReservationsList`.

use ota_messages::booking_read::{OtaReadRq, OtaResRetrieveRs, ReservationsList};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext, ReservationIdCode};
use ota_messages::notif_report::{OtaNotifReportRq, OtaNotifReportRs};
use ota_messages::runtime::Unread;

use super::mapping::{self, Catalogues, Loaded};
use super::reader::{self, Ask, Range, Reference};
use super::repo::{self, pull::Upto, supplied::Supplied};
use super::rules;
use crate::errors::{Problem, warnings};
use crate::shared::booking::Kind;
use crate::shared::context::{Ctx, OpError};
use crate::shared::lang::Languages;
use crate::store::{Conn, StoreError};

/// The most bookings one read gives (acknowledge them and read again for the next; narrow a
/// read by dates).
pub const MAX_READ: i64 = 100;

/// The tag of a report's bookings.
const TAG: &str = "/OTA_NotifReportRQ/NotifDetails/HotelNotifReport/HotelReservations/HotelReservation";

/// A supplier's read: the pull, one of its bookings by reference, or its bookings by dates
/// (see the module's documentation). `unread` is what the request held that OpenTravel 2016B
/// allows and the service does not read: refused unless it only says who asks.
pub async fn read(cx: &Ctx, cats: &Catalogues, rq: &OtaReadRq, unread: &[Unread]) -> Result<OtaResRetrieveRs, OpError> {
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    match reader::supplier_ask(rq, unread)? {
        Ask::Pull => pull(cx, cats).await,
        Ask::One(r) => by_reference(cx, cats, r, &languages).await,
        Ask::Dates(r) => by_dates(cx, cats, r, &languages).await,
    }
}

/// Loads the bookings given, as they now stand (one gone meanwhile is left out).
async fn load(c: &mut Conn<'_>, given: &[Supplied]) -> Result<Vec<(Loaded, String)>, StoreError> {
    let mut out = Vec::new();
    for u in given {
        let kind = if u.booking_kind == Kind::Activity.as_str() { Kind::Activity } else { Kind::Hotel };
        let Some((id, owner)) = repo::pull::booking_of(c, kind, &u.booking_ref).await? else { continue };
        let loaded = match kind {
            Kind::Hotel => Some(Loaded::Hotel(crate::hotels::repo::find::load(c, id).await?)),
            Kind::Activity => crate::activities::repo::bookings::find_stored(c, &owner, &u.booking_ref, true)
                .await?
                .map(Loaded::Activity),
        };
        out.extend(loaded.map(|l| (l, u.hotel_code.clone())));
    }
    Ok(out)
}

/// The answer of the bookings found.
fn answer(found: &[(Loaded, String)], cats: &Catalogues, languages: &Languages) -> OtaResRetrieveRs {
    let mut rs = OtaResRetrieveRs::success();
    if !found.is_empty() {
        rs.reservations_list = Some(ReservationsList {
            hotel_reservation: found.iter().map(|(l, hotel)| mapping::read_entry(l, hotel, cats, languages)).collect(),
        });
    }
    rs
}

/// The pull: the supplier's bookings with unacknowledged events, each read kept.
async fn pull(cx: &Ctx, cats: &Catalogues) -> Result<OtaResRetrieveRs, OpError> {
    let supplier = cx.requestor.id.clone();
    let (found, given) = cx
        .read(move |c| {
            Box::pin(async move {
                let given = repo::pull::unacknowledged(c, &supplier, MAX_READ).await?;
                let named: Vec<Supplied> = given
                    .iter()
                    .map(|u| Supplied {
                        booking_kind: u.booking_kind.clone(),
                        booking_ref: u.booking_ref.clone(),
                        hotel_code: u.hotel_code.clone(),
                    })
                    .collect();
                Ok::<_, OpError>((load(c, &named).await?, given))
            })
        })
        .await?;
    if !given.is_empty() {
        // Every delivery is kept: this read gave the supplier these bookings' events (up to the
        // last one the read saw).
        let (supplier, now, gateway) =
            (cx.requestor.id.clone(), super::deliver::now_ms(), super::deliver::gateway_token());
        cx.write(move |c| {
            Box::pin(async move {
                for u in &given {
                    repo::pull::record_pulled(c, &supplier, u, now, &gateway).await?;
                }
                Ok::<_, OpError>(())
            })
        })
        .await?;
    }
    Ok(answer(&found, cats, &Languages::new(None, None)))
}

/// One booking (per hotel of the supplier) by reference, whatever its acknowledgement; none of
/// the supplier's: "not found", as for a reference nobody has.
async fn by_reference(
    cx: &Ctx,
    cats: &Catalogues,
    r: Reference,
    languages: &Languages,
) -> Result<OtaResRetrieveRs, OpError> {
    let supplier = cx.requestor.id.clone();
    let (id, by_client, by_internal) = (r.id.clone(), r.by_client, r.by_internal);
    let found = cx
        .read(move |c| {
            Box::pin(async move {
                let given =
                    repo::supplied::supplied_by_reference(c, &supplier, &id, by_client, by_internal, MAX_READ).await?;
                Ok::<_, OpError>(load(c, &given).await?)
            })
        })
        .await?;
    if found.is_empty() {
        return Err(Problem::biz(ErrorCode::BookingReferenceNotFound, format!("Booking {} was not found.", r.id))
            .at(r.tag)
            .into());
    }
    Ok(answer(&found, cats, languages))
}

/// The supplier's bookings (per hotel) by dates, whatever their acknowledgement: hotel
/// bookings, then activity bookings, at most [`MAX_READ`] (a Warning when more match).
async fn by_dates(cx: &Ctx, cats: &Catalogues, r: Range, languages: &Languages) -> Result<OtaResRetrieveRs, OpError> {
    let supplier = cx.requestor.id.clone();
    let asked = r.clone();
    let (found, more) = cx
        .read(move |c| {
            Box::pin(async move {
                let Range { by, start, end, hotel, status } = asked;
                let (hotels, activities) = repo::supplied::supplied_by_dates(
                    c,
                    &supplier,
                    by,
                    start,
                    end,
                    hotel.as_deref(),
                    status.as_deref(),
                    MAX_READ + 1,
                )
                .await?;
                let mut given: Vec<Supplied> = hotels.into_iter().chain(activities).collect();
                let more = given.len() > MAX_READ as usize;
                given.truncate(MAX_READ as usize);
                Ok::<_, OpError>((load(c, &given).await?, more))
            })
        })
        .await?;
    let rs = answer(&found, cats, languages);
    Ok(if more { rs.with_warnings(warnings([rules::more_than_read(MAX_READ, r.start, r.end)])) } else { rs })
}

/// A supplier's acknowledgement: for each booking listed (`UniqueID` Type 36, or OpenTravel's
/// 14, with the gateway's reference), its events up to the version given
/// (`LastModifyDateTime` as read or notified), or up to the event a `UniqueID` Type 16 names
/// (a push's `MessageID`). A booking the supplier was never given, or one listed without a
/// version, is a warning and acknowledges nothing; a report of `Errors` acknowledges nothing.
/// A repeat changes nothing.
pub async fn acknowledge(cx: &Ctx, rq: &OtaNotifReportRq) -> Result<OtaNotifReportRs, OpError> {
    let listed = rq
        .notif_details
        .as_ref()
        .map(|d| d.hotel_notif_report.hotel_reservations.hotel_reservation.clone())
        .unwrap_or_default();
    if rq.errors.is_some() {
        tracing::warn!(request_id = %cx.request_id, supplier = %cx.requestor.id, bookings = listed.len(), "a supplier reported errors about the bookings it read; nothing acknowledged");
        return Ok(OtaNotifReportRs::success());
    }
    let mut asked = Vec::new();
    let mut notes = Vec::new();
    for (i, hr) in listed.iter().enumerate() {
        let tag = format!("{TAG}[{}]", i + 1);
        let reference = hr
            .unique_id
            .iter()
            .find(|u| {
                u.r#type == ReservationIdCode::Booking
                    && u.id_context.as_ref().is_none_or(|c| *c == IdContext::Internal)
            })
            .map(|u| u.id.clone());
        let event = hr.unique_id.iter().find(|u| u.r#type.as_str() == "16").and_then(|u| u.id.parse::<i64>().ok());
        let Some(reference) = reference else {
            notes.push(
                Problem::new(
                    ErrorWarningType::BizRule,
                    ErrorCode::RequiredFieldMissing,
                    "UniqueID Type 36 with the gateway's reference (ID_Context Internal) is required.",
                )
                .at(format!("{tag}/UniqueID")),
            );
            continue;
        };
        let upto = match (event, hr.last_modify_date_time) {
            (Some(id), _) => Upto::Event(id),
            (None, Some(v)) => Upto::Before((v.local.and_utc().timestamp() + 1) * 1000),
            (None, None) => {
                notes.push(
                    Problem::new(ErrorWarningType::BizRule, ErrorCode::RequiredFieldMissing, format!("Booking {reference}: LastModifyDateTime (the version read) is required; nothing acknowledged."))
                        .at(format!("{tag}/@LastModifyDateTime")),
                );
                continue;
            }
        };
        asked.push((tag, reference, upto));
    }
    let supplier = cx.requestor.id.clone();
    let (now, gateway) = (super::deliver::now_ms(), super::deliver::gateway_token());
    let unknown = cx
        .write(move |c| {
            Box::pin(async move {
                let mut unknown = Vec::new();
                for (tag, reference, upto) in asked {
                    let known = match upto {
                        // A MessageID past the booking's events (or another's) would acknowledge
                        // events never read.
                        Upto::Event(id) => repo::pull::is_event_of(c, &supplier, &reference, id).await?,
                        Upto::Before(_) => repo::pull::known(c, &supplier, &reference).await?,
                    };
                    if known {
                        repo::pull::acknowledge(c, &supplier, &reference, upto, now, &gateway, None).await?;
                    } else {
                        unknown.push((tag, reference, upto));
                    }
                }
                Ok::<_, OpError>(unknown)
            })
        })
        .await?;
    notes.extend(unknown.into_iter().map(|(tag, reference, upto)| {
        let text = match upto {
            Upto::Event(id) => format!(
                "MessageID {id} is not an event of booking {reference} notified to this supplier; nothing acknowledged."
            ),
            Upto::Before(_) => format!("No booking {reference} was notified to this supplier; nothing acknowledged."),
        };
        Problem::new(ErrorWarningType::BizRule, ErrorCode::BookingReferenceNotFound, text).at(format!("{tag}/UniqueID"))
    }));
    let rs = OtaNotifReportRs::success();
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// An acknowledgement made in the hotel extranet by `actor` (a hotel user, or an admin for
/// support): for each of `suppliers`, the events of booking `reference` (its Internal
/// reference) up to event `upto` (the last one the page showed) — exactly what the supplier's
/// `OTA_NotifReportRQ` naming that event (`UniqueID` Type 16) does, through the same
/// [`repo::pull::acknowledge`], each event's `acknowledged` attempt naming the operator; audited in
/// the same transaction. How many events were acknowledged now (0: they all were already).
pub async fn acknowledge_in_extranet(
    store: &crate::store::Store,
    actor: &crate::audit::Actor,
    reference: &str,
    suppliers: Vec<String>,
    upto: i64,
) -> Result<u64, super::admin::OutboxError> {
    let (now, gateway) = (super::deliver::now_ms(), super::deliver::gateway_token());
    let (reference, actor) = (reference.to_string(), actor.clone());
    store
        .write_now(move |c| {
            Box::pin(async move {
                let mut done = 0;
                for supplier in &suppliers {
                    if !repo::pull::is_event_of(c, supplier, &reference, upto).await?
                        && !repo::pull::known(c, supplier, &reference).await?
                    {
                        continue;
                    }
                    let n = repo::pull::acknowledge(
                        c,
                        supplier,
                        &reference,
                        Upto::Event(upto),
                        now,
                        &gateway,
                        Some(&actor.name),
                    )
                    .await?;
                    if n > 0 {
                        let what = format!("supplier={supplier} events<={upto} ({n} acknowledged)");
                        crate::audit::record(c, &actor, "booking.acknowledge", &reference, None, Some(&what)).await?;
                    }
                    done += n;
                }
                Ok::<_, super::admin::OutboxError>(done)
            })
        })
        .await
}
