//! `/bookread`: one booking by reference, in full, or a list of references and statuses.
//!
//! Only the requestor's own bookings are visible. A reference of another requestor's booking
//! is answered exactly like an unknown one (Code 97), so references cannot be probed.

use ota_messages::booking_read::{self as read, ReadDateType, ReservationsList};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext, ReservationIdCode};
use ota_messages::runtime::Response;

use super::booking::{Booking, Labels};
use super::lang::LangPref;
use super::repo::{self, ListDate, Lookup};
use crate::errors::{Problem, errors, warnings};
use crate::ops::{Ctx, system_error};

/// `/bookread`.
pub async fn read(ctx: &Ctx, rq: &read::OtaReadRq) -> read::OtaResRetrieveRs {
    if rq.return_list_indicator == Some(true) { list(ctx, rq).await } else { one(ctx, rq).await }
}

fn refuse(problem: Problem) -> read::OtaResRetrieveRs {
    read::OtaResRetrieveRs::from_errors(errors([problem]))
}

async fn one(ctx: &Ctx, rq: &read::OtaReadRq) -> read::OtaResRetrieveRs {
    const TAG: &str = "/OTA_ReadRQ/UniqueID";
    let Some(uid) = rq.unique_id.as_ref() else {
        return refuse(Problem::required("A read of one booking needs UniqueID (Type 36, ID_Context Client or Internal); a list read needs ReturnListIndicator=\"true\" and ReadRequests.").at(TAG));
    };
    if uid.r#type != ReservationIdCode::Booking {
        return refuse(
            Problem::biz(ErrorCode::InvalidValue, format!("Only booking-level references (Type 36) can be read, not Type {}.", uid.r#type.as_str()))
                .at(format!("{TAG}/@Type")),
        );
    }
    let id = uid.id.trim().to_string();
    if id.is_empty() {
        return refuse(Problem::required("UniqueID@ID is empty.").at(format!("{TAG}/@ID")));
    }
    let (client, internal) = match &uid.id_context {
        Some(IdContext::Client) => (true, false),
        Some(IdContext::Internal) => (false, true),
        None => (true, true),
        Some(IdContext::Other(other)) => {
            return refuse(
                Problem::biz(ErrorCode::InvalidValue, format!("ID_Context {other:?} is not known; use Client or Internal."))
                    .at(format!("{TAG}/@ID_Context")),
            );
        }
    };
    let owner = ctx.requestor.id.clone();
    let pref = LangPref::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let lookup_id = id.clone();
    let found = ctx
        .db
        .call(move |conn| -> Result<Option<(Booking, Labels)>, crate::db::DbError> {
            let tx = conn.transaction()?;
            let mut lookup = Lookup::NotFound;
            if client {
                lookup = repo::find_booking(&tx, &owner, Some(&lookup_id), None)?;
            }
            if internal && lookup == Lookup::NotFound {
                lookup = repo::find_booking(&tx, &owner, None, Some(&lookup_id))?;
            }
            let out = match lookup {
                Lookup::Found(row) => {
                    let b = repo::load_booking(&tx, row)?;
                    let labels = repo::labels(&tx, &b)?;
                    Some((b, labels))
                }
                Lookup::NotFound | Lookup::Mismatch => None,
            };
            tx.commit()?;
            Ok(out)
        })
        .await;
    match found {
        Err(e) => system_error(ctx, "booking read", &e),
        Ok(None) => refuse(Problem::biz(ErrorCode::BookingReferenceNotFound, format!("Booking {id} was not found.")).at(TAG)),
        Ok(Some((b, labels))) => {
            let mut rs = read::OtaResRetrieveRs::success();
            rs.reservations_list = Some(ReservationsList { hotel_reservation: vec![b.hotel_reservation(&labels, &pref)] });
            if b.is_cancelled() {
                rs = rs.with_warnings(warnings([Problem::new(
                    ErrorWarningType::Advisory,
                    ErrorCode::BookingAlreadyCancelled,
                    format!("Booking {} is cancelled; it cannot be modified.", b.internal_ref),
                )
                .at(TAG)]));
            }
            rs
        }
    }
}

async fn list(ctx: &Ctx, rq: &read::OtaReadRq) -> read::OtaResRetrieveRs {
    const TAG: &str = "/OTA_ReadRQ/ReadRequests/HotelReadRequest/SelectionCriteria";
    let Some(requests) = rq.read_requests.as_ref() else {
        return refuse(Problem::required("A list read (ReturnListIndicator=\"true\") needs ReadRequests/HotelReadRequest/SelectionCriteria.").at("/OTA_ReadRQ/ReadRequests"));
    };
    let sc = &requests.hotel_read_request.selection_criteria;
    let (start, end) = (sc.start.0, sc.end.0);
    if end < start {
        return refuse(
            Problem::biz(ErrorCode::InvalidStartEndDateCombination, format!("End {end} is before Start {start}.")).at(format!("{TAG}/@End")),
        );
    }
    let column = match sc.date_type {
        ReadDateType::ArrivalDate => ListDate::Arrival,
        ReadDateType::DepartureDate => ListDate::Departure,
        ReadDateType::CreateDate => ListDate::Created,
        ReadDateType::LastUpdateDate => ListDate::Updated,
    };
    let status = sc.res_status.as_ref().map(|s| s.as_str().to_string());
    let owner = ctx.requestor.id.clone();
    let heads = ctx.db.call(move |conn| repo::list_heads(conn, &owner, column, start, end, status.as_deref())).await;
    match heads {
        Err(e) => system_error(ctx, "booking list read", &e),
        Ok(heads) => {
            let mut rs = read::OtaResRetrieveRs::success();
            if !heads.is_empty() {
                rs.reservations_list = Some(ReservationsList { hotel_reservation: heads.iter().map(|h| h.list_entry()).collect() });
            }
            rs
        }
    }
}
