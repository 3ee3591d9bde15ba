//! What a supplier's `OTA_ReadRQ` asks, as domain values: the pull (no criterion), one of its
//! bookings by reference, or its bookings by a range of dates. Every criterion the service does
//! not apply is refused (Type 2, naming it), never ignored: the spec's items a supplier's read
//! does not use, and the OpenTravel 2016B items the service does not read (`unread`) but those
//! [`rules::supplier_may_leave_unread`] allows.

use chrono::NaiveDate;
use ota_messages::booking_read::{HotelReadRequest, OtaReadRq, ReadDateType, ReadRequests};
use ota_messages::common::{ErrorCode, IdContext, ReservationIdCode, UniqueId};
use ota_messages::runtime::{Unread, UnreadKind};

use super::rules;
use crate::errors::Problem;
use crate::shared::booking::ListDate;

/// The root's reference.
const UNIQUE_ID: &str = "/OTA_ReadRQ/UniqueID";
/// The reference of OpenTravel 2016B's read of one booking.
const READ_REQUEST: &str = "/OTA_ReadRQ/ReadRequests/ReadRequest";
/// The read by dates.
const HOTEL_READ: &str = "/OTA_ReadRQ/ReadRequests/HotelReadRequest";

/// What a supplier's read asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// Nothing but itself: the bookings with unacknowledged events (the pull).
    Pull,
    /// One booking by reference.
    One(Reference),
    /// The bookings by a range of dates.
    Dates(Range),
}

/// A reference read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The reference, trimmed.
    pub id: String,
    /// Look it up as a partner's Client reference.
    pub by_client: bool,
    /// Look it up as the gateway's Internal reference.
    pub by_internal: bool,
    /// Where the request gave it (the `Tag` of "not found").
    pub tag: String,
}

/// A read by dates: the supplier's bookings (per hotel) whose date of a kind falls between two
/// dates (both included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// Which date: the arrival at the hotel (an activity's service date), the departure from it
    /// (an activity's end), the booking's creation or its last change.
    pub by: ListDate,
    /// The first date.
    pub start: NaiveDate,
    /// The last date.
    pub end: NaiveDate,
    /// Only this hotel's.
    pub hotel: Option<String>,
    /// Only bookings of this status (`Reserved`, `Cancelled`).
    pub status: Option<String>,
}

/// A refusal of a criterion a supplier's read does not apply: Type 2, naming it.
fn refused(what: &str, how: &str, at: impl Into<String>) -> Problem {
    Problem::not_supported(format!("{what} is not supported in a supplier's read: {how}")).at(at)
}

/// What a supplier's read asks, or the first criterion it gives that is not supported.
pub fn supplier_ask(rq: &OtaReadRq, unread: &[Unread]) -> Result<Ask, Problem> {
    if let Some(u) = unread.iter().find(|u| !rules::supplier_may_leave_unread(&u.item_path())) {
        let item = u.item_path();
        let name = item.rsplit('/').next().unwrap_or(&item).to_string();
        return Err(match u.kind {
            UnreadKind::Absent => Problem::required(format!(
                "{name} is required in a supplier's read by dates (Start, End and DateType)."
            ))
            .at(u.path.clone()),
            UnreadKind::More => refused(
                &format!("A further {name}"),
                "give one reference, or one HotelReadRequest with one SelectionCriteria.",
                u.path.clone(),
            ),
            _ => refused(
                &name,
                "it would narrow or change what is read, and the service does not apply it; leave it out.",
                u.path.clone(),
            ),
        });
    }
    if rq.return_list_indicator == Some(true) {
        return Err(refused(
            "ReturnListIndicator=\"true\"",
            "a supplier's read answers its bookings whole; leave it out (or false).",
            "/OTA_ReadRQ/@ReturnListIndicator",
        ));
    }
    if rq.reservation_type.is_some() {
        return Err(refused(
            "ReservationType",
            "a supplier reads its hotel and activity bookings alike; leave it out.",
            "/OTA_ReadRQ/@ReservationType",
        ));
    }
    if rq.req_resp_version.is_some() {
        return Err(refused(
            "ReqRespVersion",
            "the answer's version is the service's; leave it out.",
            "/OTA_ReadRQ/@ReqRespVersion",
        ));
    }
    let requests = rq.read_requests.as_ref();
    if let Some(r) = requests {
        only_hotel_requests(r)?;
    }
    let in_requests = requests.map_or(&[][..], |r| r.read_request.as_slice());
    let dates = requests.and_then(|r| r.hotel_read_request.as_ref()).filter(|h| **h != HotelReadRequest::default());
    let reference = match (rq.unique_id.as_ref(), in_requests) {
        (None, []) => None,
        (Some(uid), []) => Some((uid, UNIQUE_ID.to_string())),
        (None, [one]) => {
            if one.history_requested_ind == Some(true) {
                return Err(refused(
                    "HistoryRequestedInd=\"true\"",
                    "the history of a booking's changes is not kept; read it as it stands.",
                    format!("{READ_REQUEST}/@HistoryRequestedInd"),
                ));
            }
            if one.verification.is_some() {
                return Err(refused(
                    "Verification",
                    "a supplier reads only its own bookings anyway; leave it out.",
                    format!("{READ_REQUEST}/Verification"),
                ));
            }
            Some((&one.unique_id, format!("{READ_REQUEST}/UniqueID")))
        }
        _ => {
            return Err(refused(
                "A second reference",
                "one booking per read: give one UniqueID, or one ReadRequest.",
                READ_REQUEST,
            ));
        }
    };
    match (reference, dates) {
        (Some(_), Some(_)) => Err(refused(
            "A reference with HotelReadRequest",
            "read one booking by its reference, or list bookings by dates, not both at once.",
            HOTEL_READ,
        )),
        (Some((uid, tag)), None) => Ok(Ask::One(reference_of(uid, tag)?)),
        (None, Some(h)) => Ok(Ask::Dates(range_of(h)?)),
        (None, None) => Ok(Ask::Pull),
    }
}

/// Refuses the read requests of other kinds of reservations (air, package, …): Type 2, naming
/// the first.
fn only_hotel_requests(r: &ReadRequests) -> Result<(), Problem> {
    let others = [
        ("GlobalReservationReadRequest", r.global_reservation_read_request.is_empty()),
        ("AirReadRequest", r.air_read_request.is_empty()),
        ("CruiseReadRequest", r.cruise_read_request.is_empty()),
        ("GolfReadRequest", r.golf_read_request.is_empty()),
        ("PkgReadRequest", r.pkg_read_request.is_empty()),
        ("ProfileReadRequest", r.profile_read_request.is_empty()),
        ("RailReadRequest", r.rail_read_request.is_empty()),
        ("VehicleReadRequest", r.vehicle_read_request.is_empty()),
        ("LoyaltyAccountReadRequest", r.loyalty_account_read_request.is_empty()),
    ];
    match others.iter().find(|(_, none)| !none) {
        Some((name, _)) => Err(refused(
            name,
            "a supplier reads its hotel and activity bookings (by UniqueID, or by dates with HotelReadRequest).",
            format!("/OTA_ReadRQ/ReadRequests/{name}"),
        )),
        None => Ok(()),
    }
}

/// A reference: Type 36 only, its `ID_Context` Client, Internal or none (either); its
/// `Instance` and `CompanyName` are refused (they would select a version, or a partner).
fn reference_of(uid: &UniqueId, tag: String) -> Result<Reference, Problem> {
    if uid.r#type != ReservationIdCode::Booking {
        return Err(Problem::biz(
            ErrorCode::InvalidValue,
            format!("Only booking-level references (Type 36) can be read, not Type {}.", uid.r#type.as_str()),
        )
        .at(format!("{tag}/@Type")));
    }
    if uid.instance.is_some() {
        return Err(refused(
            "Instance",
            "a reference names a booking as it now stands; leave it out.",
            format!("{tag}/@Instance"),
        ));
    }
    if uid.company_name.is_some() {
        return Err(refused(
            "CompanyName",
            "the reference alone names the booking (a Client reference of several partners answers each of their bookings); leave it out.",
            format!("{tag}/CompanyName"),
        ));
    }
    let (by_client, by_internal) = match &uid.id_context {
        Some(IdContext::Client) => (true, false),
        Some(IdContext::Internal) => (false, true),
        None => (true, true),
        Some(IdContext::Other(other)) => {
            return Err(Problem::biz(
                ErrorCode::InvalidValue,
                format!("ID_Context {other:?} is not known; use Client or Internal."),
            )
            .at(format!("{tag}/@ID_Context")));
        }
    };
    let id = uid.id.trim().to_string();
    if id.is_empty() {
        return Err(Problem::required("UniqueID@ID is empty.").at(format!("{tag}/@ID")));
    }
    Ok(Reference { id, by_client, by_internal, tag })
}

/// A read by dates: `SelectionCriteria` with `Start`, `End` and `DateType` (any of the four),
/// an optional `ResStatus`, and an optional `HotelCode`; every other filter refused.
fn range_of(h: &HotelReadRequest) -> Result<Range, Problem> {
    let HotelReadRequest {
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
        city_name,
        airport,
        user_id,
        verification,
        selection_criteria,
    } = h;
    let elements = [
        ("CityName", city_name.is_some()),
        ("Airport", airport.is_some()),
        ("UserID", user_id.is_some()),
        ("Verification", verification.is_some()),
    ];
    let attributes = [
        ("@ChainCode", chain_code),
        ("@BrandCode", brand_code),
        ("@HotelCityCode", hotel_city_code),
        ("@HotelName", hotel_name),
        ("@HotelCodeContext", hotel_code_context),
        ("@ChainName", chain_name),
        ("@BrandName", brand_name),
        ("@AreaID", area_id),
        ("@TTIcode", tt_icode),
    ];
    let first = elements
        .iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| *name)
        .chain(attributes.iter().filter(|(_, v)| v.is_some()).map(|(name, _)| *name))
        .next();
    if let Some(name) = first {
        return Err(refused(
            name.trim_start_matches('@'),
            "a supplier's read by dates takes SelectionCriteria (Start, End, DateType, ResStatus) and HotelCode only.",
            format!("{HOTEL_READ}/{name}"),
        ));
    }
    let tag = format!("{HOTEL_READ}/SelectionCriteria");
    let Some(sc) = selection_criteria else {
        return Err(Problem::required(
            "HotelCode narrows a read by dates: give SelectionCriteria (Start, End, DateType) too, or leave HotelReadRequest empty to read the bookings not acknowledged yet.",
        )
        .at(tag));
    };
    let (start, end) = (sc.start.0, sc.end.0);
    rules::date_range(start, end, &tag)?;
    let by = match sc.date_type {
        ReadDateType::ArrivalDate => ListDate::Arrival,
        ReadDateType::DepartureDate => ListDate::Departure,
        ReadDateType::CreateDate => ListDate::Created,
        ReadDateType::LastUpdateDate => ListDate::Updated,
    };
    let hotel = match hotel_code.as_deref().map(str::trim) {
        Some("") => return Err(Problem::required("HotelCode is empty.").at(format!("{HOTEL_READ}/@HotelCode"))),
        other => other.map(str::to_string),
    };
    Ok(Range { by, start, end, hotel, status: sc.res_status.as_ref().map(|s| s.as_str().to_string()) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use ota_messages::runtime::Message;

    const NS: &str = r#"xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1""#;
    const POS: &str = r#"<POS><Source><RequestorID Type="22" ID="S" ID_Context="C"/></Source><Source><RequestorID Type="88" ID="S" MessagePassword="p"/></Source></POS>"#;

    fn ask(attrs: &str, body: &str) -> Result<Ask, Problem> {
        let rq = OtaReadRq::from_xml(&format!("<OTA_ReadRQ {NS} {attrs}>{POS}{body}</OTA_ReadRQ>")).unwrap();
        supplier_ask(&rq, &[])
    }

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn nothing_asked_is_the_pull() {
        assert_eq!(ask("", "<ReadRequests><HotelReadRequest/></ReadRequests>").unwrap(), Ask::Pull);
        assert_eq!(ask("", "<ReadRequests/>").unwrap(), Ask::Pull);
    }

    #[test]
    fn a_reference_is_read_by_its_context() {
        let one = ask("", r#"<UniqueID Type="36" ID=" HTL-1 " ID_Context="Internal"/>"#).unwrap();
        assert_eq!(
            one,
            Ask::One(Reference { id: "HTL-1".into(), by_client: false, by_internal: true, tag: UNIQUE_ID.into() })
        );
        let Ask::One(r) =
            ask("", r#"<ReadRequests><ReadRequest><UniqueID Type="36" ID="C-1"/></ReadRequest></ReadRequests>"#)
                .unwrap()
        else {
            panic!()
        };
        assert!(r.by_client && r.by_internal && r.tag.ends_with("ReadRequest/UniqueID"));
        let e = ask("", r#"<UniqueID Type="36" ID="C-1" ID_Context="Client" Instance="2"/>"#).unwrap_err();
        assert!(e.text.contains("Instance") && e.tag.as_deref() == Some("/OTA_ReadRQ/UniqueID/@Instance"), "{e:?}");
        let e = ask("", r#"<UniqueID Type="37" ID="C-1-1"/>"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidValue);
        let e = ask(r#"ReturnListIndicator="true""#, r#"<UniqueID Type="36" ID="C-1"/>"#).unwrap_err();
        assert!(e.text.contains("ReturnListIndicator"), "{e:?}");
    }

    #[test]
    fn dates_take_every_date_type_a_hotel_and_a_status() {
        let got = ask(
            "",
            r#"<ReadRequests><HotelReadRequest HotelCode="H1"><SelectionCriteria Start="2030-01-01" End="2030-01-31" DateType="CreateDate" ResStatus="Cancelled"/></HotelReadRequest></ReadRequests>"#,
        )
        .unwrap();
        assert_eq!(
            got,
            Ask::Dates(Range {
                by: ListDate::Created,
                start: d("2030-01-01"),
                end: d("2030-01-31"),
                hotel: Some("H1".into()),
                status: Some("Cancelled".into())
            })
        );
        for (t, by) in [
            ("ArrivalDate", ListDate::Arrival),
            ("DepartureDate", ListDate::Departure),
            ("LastUpdateDate", ListDate::Updated),
        ] {
            let Ask::Dates(r) = ask("", &format!(r#"<ReadRequests><HotelReadRequest><SelectionCriteria Start="2030-01-01" End="2030-01-01" DateType="{t}"/></HotelReadRequest></ReadRequests>"#)).unwrap() else { panic!() };
            assert_eq!(r.by, by);
        }
    }

    #[test]
    fn every_other_criterion_is_refused_by_name() {
        let dates = r#"<SelectionCriteria Start="2030-01-01" End="2030-01-02" DateType="ArrivalDate"/>"#;
        for (body, named) in [
            (format!(r#"<ReadRequests><HotelReadRequest ChainCode="X">{dates}</HotelReadRequest></ReadRequests>"#), "ChainCode"),
            (format!(r#"<ReadRequests><HotelReadRequest><CityName>Palma</CityName>{dates}</HotelReadRequest></ReadRequests>"#), "CityName"),
            ("<ReadRequests><HotelReadRequest HotelCode=\"H1\"/></ReadRequests>".to_string(), "SelectionCriteria"),
            (format!(r#"<ReadRequests><ReadRequest><UniqueID Type="36" ID="A"/></ReadRequest><HotelReadRequest>{dates}</HotelReadRequest></ReadRequests>"#), "not both"),
            (r#"<ReadRequests><ReadRequest><UniqueID Type="36" ID="A"/></ReadRequest><ReadRequest><UniqueID Type="36" ID="B"/></ReadRequest></ReadRequests>"#.to_string(), "one booking per read"),
            (r#"<ReadRequests><AirReadRequest/></ReadRequests>"#.to_string(), "AirReadRequest"),
        ] {
            let e = ask("", &body).unwrap_err();
            assert!(e.text.contains(named), "{named}: {e:?}");
        }
        let e = ask(r#"ReservationType="14""#, "<ReadRequests/>").unwrap_err();
        assert!(e.text.contains("ReservationType"), "{e:?}");
        let e = ask("", r#"<ReadRequests><HotelReadRequest><SelectionCriteria Start="2030-01-01" End="2031-12-31" DateType="ArrivalDate"/></HotelReadRequest></ReadRequests>"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::SearchCriteriaInvalid);
    }

    #[test]
    fn unread_official_items_are_refused_unless_they_only_say_who_asks() {
        let rq = OtaReadRq::from_xml(&format!("<OTA_ReadRQ {NS}>{POS}<ReadRequests/></OTA_ReadRQ>")).unwrap();
        let item = |path: &str, kind| Unread { path: path.into(), name: String::new(), kind, line: 1 };
        let pos = item("/OTA_ReadRQ/POS/Source[1]/@AgentSine", UnreadKind::Item);
        assert_eq!(supplier_ask(&rq, std::slice::from_ref(&pos)).unwrap(), Ask::Pull);
        let e = supplier_ask(&rq, &[pos, item("/OTA_ReadRQ/@MaxResponses", UnreadKind::Item)]).unwrap_err();
        assert!(e.text.contains("MaxResponses") && e.tag.as_deref() == Some("/OTA_ReadRQ/@MaxResponses"), "{e:?}");
        let e = supplier_ask(
            &rq,
            &[item("/OTA_ReadRQ/ReadRequests/HotelReadRequest/SelectionCriteria/@Start", UnreadKind::Absent)],
        )
        .unwrap_err();
        assert!(e.text.contains("Start is required"), "{e:?}");
    }
}
