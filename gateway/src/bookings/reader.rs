//! Request readers of the bookings area: what a read or a cancel request names, as domain
//! values, with the problems of a request that names nothing usable (each at its element path).

use chrono::NaiveDate;
use ota_messages::booking_read::{HotelReadRequest, OtaReadRq, ReadDateType, ReadRequests};
use ota_messages::cancel::OtaCancelRq;
use ota_messages::common::{ErrorCode, IdContext, ReservationIdCode, UniqueId};

use super::rules::{TAG as CANCEL_TAG, Target};
use crate::errors::Problem;
use crate::shared::booking::ListDate;

/// The reference of a read of one booking, under every error `Tag` of it.
pub const READ_TAG: &str = "/OTA_ReadRQ/UniqueID";

/// The selection criteria of a list read, under its error `Tag`s.
const LIST_TAG: &str = "/OTA_ReadRQ/ReadRequests/HotelReadRequest/SelectionCriteria";

/// A list read: the bookings whose date of a kind falls between two dates (inclusive),
/// optionally of one status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// Which date.
    pub by: ListDate,
    /// The first date.
    pub start: NaiveDate,
    /// The last date.
    pub end: NaiveDate,
    /// Only bookings of this status.
    pub status: Option<String>,
}

/// The lookups a reference's `ID_Context` asks for: (as a Client one, as an Internal one);
/// none: either.
fn looked_up_as(context: Option<&IdContext>, tag: &str) -> Result<(bool, bool), Problem> {
    match context {
        Some(IdContext::Client) => Ok((true, false)),
        Some(IdContext::Internal) => Ok((false, true)),
        None => Ok((true, true)),
        Some(IdContext::Other(other)) => Err(Problem::biz(
            ErrorCode::InvalidValue,
            format!("ID_Context {other:?} is not known; use Client or Internal."),
        )
        .at(format!("{tag}/@ID_Context"))),
    }
}

/// The reference of a `UniqueID`, trimmed; refused when empty.
fn reference(uid: &UniqueId, tag: &str) -> Result<String, Problem> {
    let id = uid.id.trim().to_string();
    if id.is_empty() {
        return Err(Problem::required("UniqueID@ID is empty.").at(format!("{tag}/@ID")));
    }
    Ok(id)
}

/// What a cancel request's `UniqueID` names: a booking (Type 36) or one item of it (Type 37),
/// and that `UniqueID`. One reference per cancel: OpenTravel's further references of the same
/// reservation are not supported (Type 2).
pub fn cancel_target(rq: &OtaCancelRq) -> Result<(Target, &UniqueId), Problem> {
    let uid = match rq.unique_id.as_slice() {
        [one] => one,
        [] => return Err(Problem::required("UniqueID (the booking or item to cancel) is required.").at(CANCEL_TAG)),
        _ => {
            return Err(Problem::not_supported(
                "One reference per cancel: give the booking's (or item's) one UniqueID.",
            )
            .at(format!("{CANCEL_TAG}[2]")));
        }
    };
    Ok((cancel_target_of(uid)?, uid))
}

fn cancel_target_of(uid: &UniqueId) -> Result<Target, Problem> {
    let item = match uid.r#type {
        ReservationIdCode::Booking => false,
        ReservationIdCode::Item => true,
        ReservationIdCode::Other(ref other) => {
            return Err(Problem::biz(
                ErrorCode::InvalidValue,
                format!("UniqueID@Type {other} is not known: 36 cancels a booking, 37 one item of it."),
            )
            .at(format!("{CANCEL_TAG}/@Type")));
        }
    };
    let id = reference(uid, CANCEL_TAG)?;
    let (by_client, by_internal) = looked_up_as(uid.id_context.as_ref(), CANCEL_TAG)?;
    Ok(Target { id, item, by_client, by_internal })
}

/// Refuses the read requests of the kinds this gateway holds none of (OpenTravel 2016B's air,
/// package, profile, … read requests): Type 2, naming the first one. Left unanswered, they
/// would read as a request for nothing.
pub fn only_held_kinds(rq: &OtaReadRq) -> Result<(), Problem> {
    let Some(r) = rq.read_requests.as_ref() else { return Ok(()) };
    let ReadRequests {
        global_reservation_read_request,
        air_read_request,
        cruise_read_request,
        golf_read_request,
        pkg_read_request,
        profile_read_request,
        rail_read_request,
        vehicle_read_request,
        loyalty_account_read_request,
        read_request: _,
        hotel_read_request: _,
    } = r;
    let others = [
        ("GlobalReservationReadRequest", global_reservation_read_request),
        ("AirReadRequest", air_read_request),
        ("CruiseReadRequest", cruise_read_request),
        ("GolfReadRequest", golf_read_request),
        ("PkgReadRequest", pkg_read_request),
        ("ProfileReadRequest", profile_read_request),
        ("RailReadRequest", rail_read_request),
        ("VehicleReadRequest", vehicle_read_request),
        ("LoyaltyAccountReadRequest", loyalty_account_read_request),
    ];
    match others.iter().find(|(_, given)| !given.is_empty()) {
        Some((name, _)) => Err(Problem::not_supported(format!(
            "{name} is not supported: this gateway holds hotel and activity bookings only (read one by UniqueID, or list hotel bookings with HotelReadRequest)."
        ))
        .at(format!("/OTA_ReadRQ/ReadRequests/{name}"))),
        None => Ok(()),
    }
}

/// What a read of one booking names: a booking (Type 36 only), by the root's `UniqueID` or by
/// OpenTravel 2016B's `ReadRequests/ReadRequest/UniqueID` (one of them, one booking).
pub fn read_target(rq: &OtaReadRq) -> Result<Target, Problem> {
    let in_requests = rq.read_requests.as_ref().map_or(&[][..], |r| r.read_request.as_slice());
    let (uid, tag) = match (rq.unique_id.as_ref(), in_requests) {
        (Some(uid), []) => (uid, READ_TAG.to_string()),
        (None, [one]) if one.history_requested_ind == Some(true) => {
            return Err(Problem::not_supported("The history of a booking's changes is not kept: read it as it stands (HistoryRequestedInd false or absent).")
                .at("/OTA_ReadRQ/ReadRequests/ReadRequest/@HistoryRequestedInd"));
        }
        (None, [one]) => (&one.unique_id, "/OTA_ReadRQ/ReadRequests/ReadRequest/UniqueID".to_string()),
        (None, []) => {
            return Err(Problem::required(
                "A read of one booking needs UniqueID (Type 36, ID_Context Client or Internal); a list read needs ReturnListIndicator=\"true\" and ReadRequests.",
            )
            .at(READ_TAG));
        }
        _ => {
            return Err(Problem::not_supported("One booking per read: give one UniqueID, or one ReadRequest.")
                .at("/OTA_ReadRQ/ReadRequests/ReadRequest"));
        }
    };
    if uid.r#type != ReservationIdCode::Booking {
        return Err(Problem::biz(
            ErrorCode::InvalidValue,
            format!("Only booking-level references (Type 36) can be read, not Type {}.", uid.r#type.as_str()),
        )
        .at(format!("{tag}/@Type")));
    }
    let id = reference(uid, &tag)?;
    let (by_client, by_internal) = looked_up_as(uid.id_context.as_ref(), &tag)?;
    Ok(Target { id, item: false, by_client, by_internal })
}

/// Refuses OpenTravel 2016B's filters of a list read that are not supported (a city, an
/// airport, a user, a hotel by its codes or names): Type 2, naming the first. Left unread, they
/// would answer a wider list than was asked for.
fn not_supported_filters(request: &HotelReadRequest) -> Result<(), Problem> {
    const AT: &str = "/OTA_ReadRQ/ReadRequests/HotelReadRequest";
    let HotelReadRequest {
        city_name,
        airport,
        user_id,
        verification: _,
        selection_criteria: _,
        hotel_code,
        chain_code,
        brand_code,
        hotel_city_code,
        hotel_name,
        hotel_code_context,
        chain_name,
        brand_name,
        area_id,
        tt_icode,
    } = request;
    let elements = [("CityName", city_name.is_some()), ("Airport", airport.is_some()), ("UserID", user_id.is_some())];
    let attributes = [
        ("HotelCode", hotel_code),
        ("ChainCode", chain_code),
        ("BrandCode", brand_code),
        ("HotelCityCode", hotel_city_code),
        ("HotelName", hotel_name),
        ("HotelCodeContext", hotel_code_context),
        ("ChainName", chain_name),
        ("BrandName", brand_name),
        ("AreaID", area_id),
        ("TTIcode", tt_icode),
    ];
    let given = elements
        .iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| format!("{AT}/{name}"))
        .chain(attributes.iter().filter(|(_, value)| value.is_some()).map(|(name, _)| format!("{AT}/@{name}")));
    match given.into_iter().next() {
        Some(at) => Err(Problem::not_supported(format!(
            "{} is not supported: a list read selects the requestor's bookings by SelectionCriteria (dates and status) only.",
            at.rsplit('/').next().unwrap_or_default()
        ))
        .at(at)),
        None => Ok(()),
    }
}

/// What a list read asks for.
pub fn list_query(rq: &OtaReadRq) -> Result<ListQuery, Problem> {
    let Some(request) = rq.read_requests.as_ref().and_then(|r| r.hotel_read_request.as_ref()) else {
        return Err(Problem::required(
            "A list read (ReturnListIndicator=\"true\") needs ReadRequests/HotelReadRequest/SelectionCriteria.",
        )
        .at("/OTA_ReadRQ/ReadRequests"));
    };
    not_supported_filters(request)?;
    let Some(sc) = request.selection_criteria.as_ref() else {
        return Err(Problem::required("A list read needs HotelReadRequest/SelectionCriteria (Start, End, DateType).")
            .at(LIST_TAG));
    };
    let (start, end) = (sc.start.0, sc.end.0);
    if end < start {
        return Err(Problem::biz(
            ErrorCode::InvalidStartEndDateCombination,
            format!("End {end} is before Start {start}."),
        )
        .at(format!("{LIST_TAG}/@End")));
    }
    let by = match sc.date_type {
        ReadDateType::ArrivalDate => ListDate::Arrival,
        ReadDateType::DepartureDate => ListDate::Departure,
        ReadDateType::CreateDate => ListDate::Created,
        ReadDateType::LastUpdateDate => ListDate::Updated,
    };
    Ok(ListQuery { by, start, end, status: sc.res_status.as_ref().map(|s| s.as_str().to_string()) })
}
