//! The pull: a supplier reads the bookings with events it has not acknowledged (`OTA_ReadRQ`
//! on `/bookread`: every read of a supplier is this one, whatever it asks) and acknowledges them
//! (`OTA_NotifReportRQ` on `/notifreport`). Meant for a supplier without a notification URL;
//! one with a URL reads what push has not delivered yet, and its activity bookings (which are
//! pulled only).
//!
//! The read answers `OTA_ResRetrieveRS` with one `HotelReservation` per booking and hotel with
//! unacknowledged events, the oldest event first, at most [`MAX_READ`]: a hotel booking as
//! `/bookread` shows it with the room stays of that hotel only, an activity booking as
//! `/bookread` shows one (`RoomStayReservation="false"`, one `Service`); each with its
//! `LastModifyDateTime`, the version the supplier acknowledges. Nothing unacknowledged: Success
//! without `ReservationsList`.
//!
//! Each read that gives events, and each acknowledgement, is kept as an attempt of each event
//! (`pulled`, `acknowledged`: [`repo::record_pulled`], [`repo::acknowledge`]), for the history.

use ota_messages::booking_read::{OtaReadRq, OtaResRetrieveRs, ReservationsList};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext, ReservationIdCode};
use ota_messages::notif_report::{OtaNotifReportRq, OtaNotifReportRs};

use super::mapping::{self, Catalogues, Loaded};
use super::repo::{self, Upto};
use crate::errors::{Problem, warnings};
use crate::shared::booking::Kind;
use crate::shared::context::{Ctx, OpError};

/// The most bookings one read gives (acknowledge them and read again for the next).
pub const MAX_READ: i64 = 100;

/// The tag of a report's bookings.
const TAG: &str = "/OTA_NotifReportRQ/NotifDetails/HotelNotifReport/HotelReservations/HotelReservation";

/// A supplier's read: its bookings with unacknowledged events, as they now stand.
pub async fn read(cx: &Ctx, cats: &Catalogues, _rq: &OtaReadRq) -> Result<OtaResRetrieveRs, OpError> {
    let supplier = cx.requestor.id.clone();
    let (found, given) = cx
        .read(move |c| {
            Box::pin(async move {
                let mut out = Vec::new();
                let given = repo::unacknowledged(c, &supplier, MAX_READ).await?;
                for u in given.iter().cloned() {
                    let kind = if u.booking_kind == Kind::Activity.as_str() { Kind::Activity } else { Kind::Hotel };
                    let Some((id, owner)) = repo::booking_of(c, kind, &u.booking_ref).await? else { continue };
                    let loaded = match kind {
                        Kind::Hotel => Some(Loaded::Hotel(crate::hotels::repo::find::load(c, id).await?)),
                        Kind::Activity => {
                            crate::activities::repo::bookings::find_stored(c, &owner, &u.booking_ref, true)
                                .await?
                                .map(Loaded::Activity)
                        }
                    };
                    out.extend(loaded.map(|l| (l, u.hotel_code)));
                }
                Ok::<_, OpError>((out, given))
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
                    repo::record_pulled(c, &supplier, u, now, &gateway).await?;
                }
                Ok::<_, OpError>(())
            })
        })
        .await?;
    }
    let mut rs = OtaResRetrieveRs::success();
    if !found.is_empty() {
        rs.reservations_list = Some(ReservationsList {
            hotel_reservation: found.iter().map(|(l, hotel)| mapping::read_entry(l, hotel, cats)).collect(),
        });
    }
    Ok(rs)
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
                        Upto::Event(id) => repo::is_event_of(c, &supplier, &reference, id).await?,
                        Upto::Before(_) => repo::known(c, &supplier, &reference).await?,
                    };
                    if known {
                        repo::acknowledge(c, &supplier, &reference, upto, now, &gateway).await?;
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
