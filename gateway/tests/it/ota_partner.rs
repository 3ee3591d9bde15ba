//! A partner whose client is generated from the official OpenTravel 2016B schemas (`OTA-DEMO`,
//! on the `ota2016b` dialect): every request it sends is first validated against the official
//! schema of its root (`conformance/opentravel-2016b/`, with `xmllint`), so the suite cannot
//! drift into the service's own forms, and every answer is validated against the official
//! schema of its root and parsed.
//!
//! Its hotel day: static content (with OpenTravel's "send" flags) → availability → Quote → a book request without `ResStatus` (which books, on
//! this dialect) → read (the guests of a room as the 2016B list, services with `Type` and `ID`)
//! → cancel Quote → Commit → read
//! shows it cancelled. Its activity day: search by area and by id → availability → a booking
//! without `ResStatus` (stored) → read → cancel, and a transfer booked by the pickup hotel's
//! name; the same booking request from a partner on the service dialect is a Quote that says so.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use chrono::NaiveDate;
use ota_messages::booking_read::{BookingStatus, OtaResRetrieveRs};
use ota_messages::cancel::{OtaCancelRs, TransactionStatus};
use ota_messages::common::{ErrorCode, ResIdSourceContext};
use ota_messages::hotel_avail::OtaHotelAvailRs;
use ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRs;
use ota_messages::hotel_res::OtaHotelResRs;
use ota_messages::hotel_res_modify::OtaHotelResModifyRs;
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_avail::OtaTourActivityAvailRs;
use ota_messages::tour_activity_book::{AgeQualifierName, OtaTourActivityBookRs};
use ota_messages::tour_activity_search::OtaTourActivitySearchRs;
use reqwest::StatusCode;

use crate::support::{Backend, DEMO, OTA_DEMO, TestServer, backend_tests, commit_xml, day};

const NS: &str = "http://www.opentravel.org/OTA/2003/05";
const XML: &str = "application/xml";
const HOTEL: &str = "HTL00105";
const ROOM: &str = "RMDB000000";

/// The official schema of a root.
fn official(root: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../conformance/opentravel-2016b/{root}.xsd"))
}

/// The name of the root element of a document.
fn root_name(xml: &str) -> Result<String, String> {
    let doc = ota_messages::runtime::parse_document(xml).map_err(|e| e.to_string())?;
    Ok(doc.root_element().tag_name().name().to_string())
}

/// xmllint's verdict on `xml` under the official schema of its root: `Err` with its errors.
fn official_verdict(xml: &str) -> Result<(), String> {
    let root = root_name(xml)?;
    let mut child = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(official(&root))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xmllint (apt-get install libxml2-utils)");
    child.stdin.take().unwrap().write_all(xml.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

/// Sends an official-form request (checked against its official schema first) and returns the
/// answer, checked against the official schema of its root.
async fn send_official(server: &TestServer, path: &str, xml: &str) -> String {
    official_verdict(xml)
        .unwrap_or_else(|e| panic!("the test's request is not valid under OpenTravel 2016B:\n{e}\n{xml}"));
    let (status, _, body) = server.client().send_raw(path, xml.to_string(), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    official_verdict(&body)
        .unwrap_or_else(|e| panic!("{path}: the answer is not valid under OpenTravel 2016B:\n{e}\n{body}"));
    body
}

pub(crate) fn pos((id, context, password): (&str, &str, &str)) -> String {
    format!(
        r#"<POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{context}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{password}"/></Source></POS>"#
    )
}

pub(crate) fn avail(start: NaiveDate, end: NaiveDate) -> String {
    format!(
        r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1">{}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode="{HOTEL}"/></Criterion></HotelSearchCriteria><StayDateRange Start="{start}" End="{end}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#,
        pos(OTA_DEMO)
    )
}

/// A hotel booking as 2016B bindings write it: the room stay numbered by `IndexNumber`, its
/// guests as the `ResGuestRPHs` list, a service with its `Type` and `ID`.
pub(crate) fn book(res_status: Option<&str>, client_ref: &str, start: NaiveDate, end: NaiveDate) -> String {
    let status = res_status.map(|s| format!(r#" ResStatus="{s}""#)).unwrap_or_default();
    format!(
        r#"<OTA_HotelResRQ xmlns="{NS}" Version="2008.1"{status}>{}<HotelReservations><HotelReservation><RoomStays><RoomStay IndexNumber="1"><RoomTypes><RoomType RoomTypeCode="{ROOM}"/></RoomTypes><RoomRates><RoomRate RoomTypeCode="{ROOM}"><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{HOTEL}"/><ResGuestRPHs>1 2</ResGuestRPHs><ServiceRPHs><ServiceRPH RPH="1"/></ServiceRPHs></RoomStay></RoomStays><Services><Service ServiceInventoryCode="BB" ServiceRPH="1" Type="16" ID="BB-1"/></Services><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest><ResGuest ResGuestRPH="2" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Jan</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs><BasicPropertyInfo HotelCode="{HOTEL}"/></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#,
        pos(OTA_DEMO)
    )
}

pub(crate) fn read(id: &str, context: &str) -> String {
    format!(
        r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1">{}<UniqueID Type="36" ID="{id}" ID_Context="{context}"/></OTA_ReadRQ>"#,
        pos(OTA_DEMO)
    )
}

pub(crate) fn cancel(cancel_type: &str, id: &str) -> String {
    format!(
        r#"<OTA_CancelRQ xmlns="{NS}" Version="2008.1" CancelType="{cancel_type}">{}<UniqueID Type="36" ID="{id}" ID_Context="Internal"/></OTA_CancelRQ>"#,
        pos(OTA_DEMO)
    )
}

/// The `HotelReservation` of a read answer as the `HotelResModify` of a modify request, as an
/// official binding's client sends it back.
pub(crate) fn as_modify(read_answer: &str) -> String {
    let start = read_answer.find("<HotelReservation ").expect("a HotelReservation");
    let end = read_answer.find("</HotelReservation>").expect("its end") + "</HotelReservation>".len();
    read_answer[start..end]
        .replace("<HotelReservation ", "<HotelResModify ")
        .replace("</HotelReservation>", "</HotelResModify>")
}

pub(crate) fn internal_ref(rs: &OtaHotelResRs) -> Option<String> {
    let ids = &rs
        .hotel_reservations
        .as_ref()?
        .hotel_reservation
        .res_global_info
        .hotel_reservation_ids
        .as_ref()?
        .hotel_reservation_id;
    ids.iter().find(|r| r.res_id_source_context == ResIdSourceContext::Internal).map(|r| r.res_id_value.clone())
}

/// A hotel's static content as 2016B bindings ask for it: what to send, the hotel's name and
/// city beside its code, the language as `LangRequested`.
pub(crate) fn descriptive_info() -> String {
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="{NS}" Version="2009.1">{}<HotelDescriptiveInfos LangRequested="en"><HotelDescriptiveInfo HotelCode="{HOTEL}" HotelName="Hostal Ca'n Pep" HotelCityCode="PMI" ChainCode="IND"><HotelInfo SendData="true"/><FacilityInfo SendGuestRooms="true" SendMeetingRooms="false" SendRestaurants="false"/><Policies SendPolicies="true"/><AreaInfo SendRefPoints="false" SendAttractions="false" SendRecreations="false"/><AffiliationInfo SendAwards="true"/><ContactInfo SendData="true"/><MultimediaObjects SendData="false"/></HotelDescriptiveInfo></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#,
        pos(OTA_DEMO)
    )
}

async fn hotel_day_in_the_official_form(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(50), day(53));

    let answer = send_official(&server, "/hotelnbc", &descriptive_info()).await;
    let nbc = OtaHotelDescriptiveInfoRs::from_xml(&answer).unwrap();
    assert!(nbc.is_success(), "{answer}");
    let content = &nbc.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content;
    assert_eq!(content.len(), 1, "{answer}");
    assert_eq!(content[0].hotel_code, HOTEL);
    assert_eq!(content[0].language_code.as_deref(), Some("en"), "LangRequested is honoured: {answer}");

    let answer = send_official(&server, "/hotelavailability", &avail(start, end)).await;
    assert!(answer.contains("<Success/>") && answer.contains(ROOM), "{answer}");

    // Quote: priced, nothing stored.
    let quote = OtaHotelResRs::from_xml(
        &send_official(&server, "/hotelbook", &book(Some("Quote"), "OTA-DAY-1", start, end)).await,
    )
    .unwrap();
    assert!(quote.is_success(), "{:?}", quote.errors());
    assert!(quote.warnings().is_none());
    assert_eq!(internal_ref(&quote), None);

    // No ResStatus: on this dialect a book request books.
    let booked =
        OtaHotelResRs::from_xml(&send_official(&server, "/hotelbook", &book(None, "OTA-DAY-1", start, end)).await)
            .unwrap();
    assert!(booked.is_success(), "{:?}", booked.errors());
    let internal = internal_ref(&booked).expect("booked: an Internal reference");

    // Read: valid under 2016B, the guests of the room as the 2016B list, the room's item
    // reference in RoomStay/Reference.
    let body = send_official(&server, "/bookread", &read(&internal, "Internal")).await;
    assert!(body.contains("<ResGuestRPHs>1 2</ResGuestRPHs>"), "{body}");
    assert!(body.contains(&format!(r#"<Reference ID="{internal}-1" Type="37"/>"#)), "{body}");
    assert!(!body.contains("<ResGuestRPH "), "{body}");
    let read_rs = OtaResRetrieveRs::from_xml(&body).unwrap();
    assert_eq!(read_rs.reservations_list.as_ref().unwrap().hotel_reservation[0].res_status, BookingStatus::Reserved);
    // By the Client reference as the answer wrote it (with its CompanyName), with OpenTravel's
    // Instance and ReservationType: the same booking.
    let by_client = read("OTA-DAY-1", "Client")
        .replace(
            r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">"#,
            r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" ReservationType="14">"#,
        )
        .replace(
            r#"ID_Context="Client"/>"#,
            r#"ID_Context="Client" Instance="1"><CompanyName Code="OTA-DEMO">Demo partner</CompanyName></UniqueID>"#,
        );
    assert!(by_client.contains("CompanyName") && by_client.contains("ReservationType"));
    let again = OtaResRetrieveRs::from_xml(&send_official(&server, "/bookread", &by_client).await).unwrap();
    assert_eq!(again.reservations_list, read_rs.reservations_list);

    // Modify, as 2016B bindings do it: the HotelReservation of the read (its UniqueIDs, ResStatus,
    // LastModifyDateTime, the guests as a list, the services with Type and ID) sent back as
    // HotelResModify with one change, a guest's given name.
    let modify = |res_status: &str| {
        let reservation = as_modify(&body).replace("<GivenName>Jan</GivenName>", "<GivenName>Janek</GivenName>");
        format!(
            r#"<OTA_HotelResModifyRQ xmlns="{NS}" Version="2008.1"{res_status}>{}<HotelResModifies>{reservation}</HotelResModifies></OTA_HotelResModifyRQ>"#,
            pos(OTA_DEMO)
        )
    };
    let quoted =
        OtaHotelResModifyRs::from_xml(&send_official(&server, "/bookmodify", &modify(r#" ResStatus="Quote""#)).await)
            .unwrap();
    assert!(quoted.is_success() && quoted.warnings().is_none(), "{quoted:?}");
    // The version with a zone (2016B's date-times may carry one) is the same instant: Z, or the
    // same time two hours on at +02:00; the wall time at +02:00 is another instant: stale.
    let stamp = body.split(r#"LastModifyDateTime=""#).nth(1).and_then(|s| s.split('"').next()).unwrap().to_string();
    let plus_two = (chrono::NaiveDateTime::parse_from_str(&stamp, "%Y-%m-%dT%H:%M:%S").unwrap()
        + chrono::Duration::hours(2))
    .format("%Y-%m-%dT%H:%M:%S");
    for (zoned, same) in
        [(format!("{stamp}Z"), true), (format!("{plus_two}+02:00"), true), (format!("{stamp}+02:00"), false)]
    {
        let rq = modify(r#" ResStatus="Quote""#)
            .replace(&format!(r#"LastModifyDateTime="{stamp}""#), &format!(r#"LastModifyDateTime="{zoned}""#));
        let rs = OtaHotelResModifyRs::from_xml(&send_official(&server, "/bookmodify", &rq).await).unwrap();
        assert_eq!(rs.is_success(), same, "{zoned}: {rs:?}");
    }
    // No ResStatus: on this dialect the change applies.
    let answer = send_official(&server, "/bookmodify", &modify("")).await;
    let modified = OtaHotelResModifyRs::from_xml(&answer).unwrap();
    assert!(modified.is_success(), "{answer}");
    assert!(
        answer.contains("<GivenName>Janek</GivenName>")
            && answer.contains("LastModifyDateTime=")
            && !answer.contains("LastUpdateDateTime="),
        "{answer}"
    );
    let (_, _, body) = server.client().send_raw("/bookread", read(&internal, "Internal"), XML).await.unwrap();
    assert!(body.contains("<GivenName>Janek</GivenName>"), "stored: {body}");
    // The same built from an older read is refused: it would undo a change it never saw.
    let stale = OtaHotelResModifyRs::from_xml(&send_official(&server, "/bookmodify", &modify("")).await).unwrap();
    assert!(stale.errors().is_some(), "{stale:?}");
    // What OpenTravel's form may say that /bookmodify does not do is refused, naming it; a
    // UniqueID must name this booking.
    let (_, _, fresh) = server.client().send_raw("/bookread", read(&internal, "Internal"), XML).await.unwrap();
    let current = as_modify(&fresh);
    for (change, code, tag) in [
        (
            current.replace(r#"ResStatus="Reserved""#, r#"ResStatus="Cancelled""#),
            ErrorCode::UnableToProcess,
            "/@ResStatus",
        ),
        (
            current.replace("<HotelResModify ", r#"<HotelResModify RoomStayReservation="false" "#),
            ErrorCode::UnableToProcess,
            "/@RoomStayReservation",
        ),
        (
            current.replace(r#"ID="OTA-DAY-1""#, r#"ID="SOMEONE-ELSE""#),
            ErrorCode::BookingReferenceInvalid,
            "/UniqueID[2]",
        ),
        (
            current.replacen(
                "<ServiceRPHs>",
                "<SpecialRequests><SpecialRequest><Text>Cot</Text></SpecialRequest></SpecialRequests><ServiceRPHs>",
                1,
            ),
            ErrorCode::UnableToProcess,
            "/RoomStay[1]/SpecialRequests",
        ),
        (
            current.replacen("<RoomRates>", r#"<RatePlans><RatePlan RatePlanCode="BAR"/></RatePlans><RoomRates>"#, 1),
            ErrorCode::UnableToProcess,
            "/RoomStay[1]/RatePlans",
        ),
    ] {
        let rq = format!(
            r#"<OTA_HotelResModifyRQ xmlns="{NS}" Version="2008.1">{}<HotelResModifies>{change}</HotelResModifies></OTA_HotelResModifyRQ>"#,
            pos(OTA_DEMO)
        );
        let refused = OtaHotelResModifyRs::from_xml(&send_official(&server, "/bookmodify", &rq).await).unwrap();
        let error = &refused.errors().expect("refused").error[0];
        assert_eq!(error.code, Some(code), "{refused:?}");
        assert!(error.tag.as_deref().is_some_and(|t| t.ends_with(tag)), "{refused:?}");
    }

    // Cancel: Quote, then Commit; the read shows it cancelled.
    let quoted =
        OtaCancelRs::from_xml(&send_official(&server, "/bookcancel", &cancel("Quote", &internal)).await).unwrap();
    assert_eq!(quoted.status, TransactionStatus::Pending);
    let cancelled =
        OtaCancelRs::from_xml(&send_official(&server, "/bookcancel", &cancel("Commit", &internal)).await).unwrap();
    assert_eq!(cancelled.status, TransactionStatus::Committed);
    let (_, _, body) = server.client().send_raw("/bookread", read(&internal, "Internal"), XML).await.unwrap();
    let read_rs = OtaResRetrieveRs::from_xml(&body).unwrap();
    assert_eq!(read_rs.reservations_list.as_ref().unwrap().hotel_reservation[0].res_status, BookingStatus::Cancelled);
}

/// The Drach caves' ticket for one adult, as the service's clients write it, without `ResStatus`.
fn activity_book_without_status(who: (&str, &str, &str), client_ref: &str, date: NaiveDate) -> String {
    commit_xml(client_ref, date, 1).replace(r#" ResStatus="Commit""#, "").replace(&pos(DEMO), &pos(who))
}

async fn a_book_request_without_res_status_means_what_the_dialect_says(b: Backend) {
    let server = TestServer::start(b).await;
    let date = day(20);
    let client = server.client();

    // On ota2016b it books: the read finds it.
    let xml = activity_book_without_status(OTA_DEMO, "OTA-ACT-1", date);
    assert_ne!(xml, commit_xml("OTA-ACT-1", date, 1));
    let (_, _, body) = client.send_raw("/activitybook", xml, XML).await.unwrap();
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap();
    assert!(rs.is_success() && rs.warnings().is_none(), "{body}");
    let (_, _, body) = client.send_raw("/bookread", read("OTA-ACT-1", "Client"), XML).await.unwrap();
    assert!(OtaResRetrieveRs::from_xml(&body).unwrap().is_success(), "stored: {body}");

    // On service it stays a Quote, and the answer says that nothing was booked.
    let (_, _, body) =
        client.send_raw("/activitybook", activity_book_without_status(DEMO, "SVC-ACT-1", date), XML).await.unwrap();
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap();
    assert!(rs.is_success(), "{body}");
    let warning = &rs.warnings().expect("a warning").warning[0];
    assert_eq!(warning.code, Some(ErrorCode::InvalidActionStatusCode));
    assert!(warning.value.contains("nothing was booked"), "{body}");
    let read_demo = read("SVC-ACT-1", "Client").replace(&pos(OTA_DEMO), &pos(DEMO));
    let (_, _, body) = client.send_raw("/bookread", read_demo, XML).await.unwrap();
    let rs = OtaResRetrieveRs::from_xml(&body).unwrap();
    assert_eq!(
        rs.errors().map(|e| e.error[0].code.clone()),
        Some(Some(ErrorCode::BookingReferenceNotFound)),
        "nothing stored: {body}"
    );
}

/// Activity ids of a search answer.
fn found(body: &str) -> Vec<String> {
    let rs = OtaTourActivitySearchRs::from_xml(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(rs.is_success(), "{body}");
    rs.tour_activity_info.iter().map(|i| i.basic_info.tour_activity_id.clone()).collect()
}

async fn activity_search_by_area_and_by_id(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(20), day(27));
    let search = |criteria: &str| {
        format!(
            r#"<OTA_TourActivitySearchRQ xmlns="{NS}" Version="2011.2">{}<SearchCriteria>{criteria}</SearchCriteria></OTA_TourActivitySearchRQ>"#,
            pos(OTA_DEMO)
        )
    };
    let dates = format!(r#"<DateTimePref Start="{start}" End="{end}"/>"#);
    // By area code: every Mallorca activity (PMI); by a name the areas begin with: the same.
    let by_code = found(
        &send_official(
            &server,
            "/activitysearch",
            &search(&format!(r#"{dates}<LocationPref><Region RegionCode="PMI"/></LocationPref>"#)),
        )
        .await,
    );
    assert!(by_code.len() >= 3 && by_code.contains(&"LESPMIBKUI".to_string()), "{by_code:?}");
    let by_name = found(
        &send_official(
            &server,
            "/activitysearch",
            &search(&format!(r#"{dates}<LocationPref><Region RegionName="Mallorca"/></LocationPref>"#)),
        )
        .await,
    );
    assert_eq!(by_name, by_code);
    let palma = found(
        &send_official(
            &server,
            "/activitysearch",
            &search(&format!(
                r#"{dates}<LocationPref><Region RegionCode="PMI" RegionName="Mallorca – Palma"/></LocationPref>"#
            )),
        )
        .await,
    );
    assert!(
        !palma.is_empty() && palma.len() < by_code.len() && !palma.contains(&"LESPMIBKUI".to_string()),
        "{palma:?}"
    );
    // An area with no activities finds none, as a hotel with none near it.
    let none = OtaTourActivitySearchRs::from_xml(
        &send_official(
            &server,
            "/activitysearch",
            &search(&format!(r#"{dates}<LocationPref><Region RegionCode="XYZ"/></LocationPref>"#)),
        )
        .await,
    )
    .unwrap();
    assert!(none.tour_activity_info.is_empty(), "{none:?}");
    // One activity by its id, no location.
    let one = found(
        &send_official(
            &server,
            "/activitysearch",
            &search(&format!(r#"<BasicInfo TourActivityID="LESPMIBKUI"/>{dates}"#)),
        )
        .await,
    );
    assert_eq!(one, ["LESPMIBKUI"]);
    let unknown = OtaTourActivitySearchRs::from_xml(
        &send_official(&server, "/activitysearch", &search(&format!(r#"<BasicInfo TourActivityID="NOPE"/>{dates}"#)))
            .await,
    )
    .unwrap();
    assert!(
        unknown
            .errors()
            .is_some_and(|e| e.error[0].tag.as_deref()
                == Some("/OTA_TourActivitySearchRQ/SearchCriteria/BasicInfo/@TourActivityID")),
        "{unknown:?}"
    );
    // The service's form keeps working, from every requestor.
    let service = search(&format!(
        r#"{dates}<LocationPref Context="Service"><Region RegionCode="Product">LESPMIBKUI</Region></LocationPref>"#
    ));
    let (_, _, body) = server.client().send_raw("/activitysearch", service, XML).await.unwrap();
    assert_eq!(found(&body), ["LESPMIBKUI"]);
}

/// Availability as 2016B bindings ask for it: the activity in `BasicInfo@TourActivityID`, no
/// Location, the participants' category by its AgeQualifyingEnum name.
async fn activity_availability_in_the_official_form(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(20), day(23));
    let avail = |category: &str| {
        format!(
            r#"<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2">{}<TourActivity><BasicInfo TourActivityID="LESPMIBKUI"/><Schedule StartPeriod="{start}" EndPeriod="{end}"/><ParticipantCount Quantity="2"><QualifierInfo>{category}</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#,
            pos(OTA_DEMO)
        )
    };
    let by_name =
        OtaTourActivityAvailRs::from_xml(&send_official(&server, "/activityavailability", &avail("Adult")).await)
            .unwrap();
    assert!(by_name.is_success(), "{by_name:?}");
    assert!(!by_name.tour_activity_info.is_empty());
    assert!(by_name.tour_activity_info.iter().all(|i| i.basic_info.tour_activity_id == "LESPMIBKUI"));
    // The same as the service's numeric code.
    let (_, _, by_code) = server.client().send_raw("/activityavailability", avail("10"), XML).await.unwrap();
    let by_code = OtaTourActivityAvailRs::from_xml(&by_code).unwrap();
    assert_eq!(by_code.tour_activity_info, by_name.tour_activity_info);
}

/// A booking as 2016B bindings write it: no ResStatus (it books), the category as the
/// QualifierInfo element by its name with Category@Age, a PaymentInfo, no SupplierServiceCode
/// (the product's one service), the date alone as Schedule@Start; then read, and cancelled.
async fn activity_booking_in_the_official_form(b: Backend) {
    let server = TestServer::start(b).await;
    let date = day(21);
    let book = format!(
        r#"<OTA_TourActivityBookRQ xmlns="{NS}" Version="2011.2">{}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A"/><ParticipantInfo><Category Age="41"><QualifierInfo>Adult</QualifierInfo></Category><Individual ParticipantID="1"><GivenName>Ana</GivenName><Surname>Nowak</Surname></Individual></ParticipantInfo><ParticipantInfo><Category Age="39"><QualifierInfo>Adult</QualifierInfo></Category><Individual ParticipantID="2"><GivenName>Jan</GivenName><Surname>Nowak</Surname></Individual></ParticipantInfo><PaymentInfo Amount="50.00" CurrencyCode="EUR"/><Schedule Start="{date}"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="OTA-ACT-DAY" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#,
        pos(OTA_DEMO)
    );
    let body = send_official(&server, "/activitybook", &book).await;
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(rs.is_success() && rs.warnings().is_none(), "{body}");
    assert!(body.contains("Internal"), "booked: an Internal reference: {body}");
    // Stored: the read finds it, with the ages of Category@Age.
    let read_body = send_official(&server, "/bookread", &read("OTA-ACT-DAY", "Client")).await;
    let read_rs = OtaResRetrieveRs::from_xml(&read_body).unwrap();
    assert!(read_rs.is_success(), "{read_body}");
    let reservation = &read_rs.reservations_list.as_ref().unwrap().hotel_reservation[0];
    assert_eq!(reservation.res_status, BookingStatus::Reserved);
    let internal = reservation
        .unique_id
        .iter()
        .find(|u| u.id_context == ota_messages::common::IdContext::Internal)
        .unwrap()
        .id
        .clone();
    // Cancelled in the official form.
    let cancelled =
        OtaCancelRs::from_xml(&send_official(&server, "/bookcancel", &cancel("Commit", &internal)).await).unwrap();
    assert_eq!(cancelled.status, TransactionStatus::Committed);
    // Two names for one participant's category are refused, naming the element.
    let twice = book
        .replace(r#"<Category Age="41">"#, r#"<Category Age="41" QualifierInfo="8">"#)
        .replace("OTA-ACT-DAY", "OTA-ACT-TWICE");
    let (_, _, body) = server.client().send_raw("/activitybook", twice, XML).await.unwrap();
    let refused = OtaTourActivityBookRs::from_xml(&body).unwrap();
    assert!(
        refused.errors().is_some_and(|e| e.error[0].tag.as_deref()
            == Some("/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Category/QualifierInfo")),
        "{body}"
    );
    // A date that is no calendar date (valid in form) is refused at its attribute.
    let no_such_day = book
        .replace(&format!(r#"<Schedule Start="{date}"/>"#), r#"<Schedule Start="2027-02-30"/>"#)
        .replace("OTA-ACT-DAY", "OTA-ACT-FEB30");
    let (_, _, body) = server.client().send_raw("/activitybook", no_such_day, XML).await.unwrap();
    let refused = OtaTourActivityBookRs::from_xml(&body).unwrap();
    assert!(
        refused
            .errors()
            .is_some_and(|e| e.error[0].tag.as_deref() == Some("/OTA_TourActivityBookRQ/BookingInfo/Schedule/@Start")),
        "{body}"
    );
}

/// A transfer as 2016B bindings book it: the availability answer names the pickup hotel only
/// by its name (OpenTravel has no code there), and the booking copies that name and time.
/// (OpenTravel's availability request cannot name the customer's hotel: this one asks in the
/// service's form, which every partner may send; its answer is in 2016B's.)
async fn activity_transfer_booked_by_the_pickup_hotels_name(b: Backend) {
    let server = TestServer::start(b).await;
    let date = day(22);
    let avail = format!(
        r#"<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2">{}<TourActivity><BasicInfo/><Location Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></Location><Location Context="Service"><Region RegionCode="Product">LESPMIBKUI</Region></Location><Schedule StartPeriod="{date}" EndPeriod="{date}"/><ParticipantCount Quantity="2"><QualifierInfo>Adult</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#,
        pos(OTA_DEMO)
    );
    let (_, _, body) = server.client().send_raw("/activityavailability", avail, XML).await.unwrap();
    official_verdict(&body).unwrap_or_else(|e| panic!("the answer is not valid under OpenTravel 2016B:\n{e}\n{body}"));
    let offers = OtaTourActivityAvailRs::from_xml(&body).unwrap();
    let pickup = offers
        .tour_activity_info
        .iter()
        .flat_map(|i| &i.pickup_dropoff)
        .find(|p| p.pickup_ind)
        .expect("a transfer offer with its pickup");
    assert_eq!(pickup.code, None, "ota2016b writes no code: the name is all the client has");
    let (name, time) = (pickup.location_name.clone().unwrap(), pickup.date_time.unwrap());
    let book = format!(
        r#"<OTA_TourActivityBookRQ xmlns="{NS}" Version="2011.2">{}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A"/><ParticipantInfo><Category><QualifierInfo>Adult</QualifierInfo></Category><Individual ParticipantID="1" Age="40"><GivenName>Ana</GivenName><Surname>Nowak</Surname></Individual></ParticipantInfo><ParticipantInfo><Category><QualifierInfo>Adult</QualifierInfo></Category><Individual ParticipantID="2" Age="38"><GivenName>Jan</GivenName><Surname>Nowak</Surname></Individual></ParticipantInfo><PaymentInfo Amount="0" CurrencyCode="EUR"/><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/><PickupDropoff DateTime="{time}" LocationName="{}" PickupInd="true"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="OTA-TRF-DAY" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#,
        pos(OTA_DEMO),
        name.replace('&', "&amp;")
    );
    let body = send_official(&server, "/activitybook", &book).await;
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap();
    assert!(rs.is_success() && body.contains("Internal"), "booked: {body}");
    let details = rs.reservation_details.unwrap();
    let booked = details.pickup_dropoff.unwrap();
    assert_eq!((booked.date_time.map(|t| t.local), booked.pickup_ind), (Some(time.local), Some(true)), "{body}");
    // The participants' categories by their OpenTravel names.
    let names: Vec<_> =
        details.participant_info.iter().map(|p| p.category.as_ref().and_then(|c| c.qualifier_info.clone())).collect();
    assert_eq!(names, [Some(AgeQualifierName::Adult), Some(AgeQualifierName::Adult)]);
    // A name no pickup hotel has is refused, naming the place and the hotels.
    let elsewhere =
        book.replace(&name.replace('&', "&amp;"), "Nowhere Inn").replace("OTA-TRF-DAY", "OTA-TRF-ELSEWHERE");
    let (_, _, body) = server.client().send_raw("/activitybook", elsewhere, XML).await.unwrap();
    let refused = OtaTourActivityBookRs::from_xml(&body).unwrap();
    let error = &refused.errors().expect("refused").error[0];
    assert_eq!(error.tag.as_deref(), Some("/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff/@LocationName"), "{body}");
    assert!(error.value.contains("Nowhere Inn"), "{body}");
}

/// Who stays in which room as 2016B bindings may say it: `RoomStay/GuestCounts` and no
/// `ResGuestRPHs` (the guests in document order), or neither for a booking of one room stay.
async fn hotel_booking_by_guest_counts(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(40), day(43));
    let one = book(Some("Quote"), "OTA-COUNTS-1", start, end);
    let counted = one
        .replace("<ResGuestRPHs>1 2</ResGuestRPHs>", r#""#)
        .replace("<TimeSpan", r#"<GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/></GuestCounts><TimeSpan"#);
    let bare = one.replace("<ResGuestRPHs>1 2</ResGuestRPHs>", "");
    for (what, xml) in [("GuestCounts", &counted), ("one room stay, no list", &bare)] {
        let rs = OtaHotelResRs::from_xml(&send_official(&server, "/hotelbook", xml).await).unwrap();
        assert!(rs.is_success(), "{what}: {rs:?}");
    }
    // Two rooms by counts: the first two guests in the first, the third in the second.
    let room = |n: u32, count: u32| {
        format!(
            r#"<RoomStay IndexNumber="{n}"><RoomTypes><RoomType RoomTypeCode="{ROOM}"/></RoomTypes><RoomRates><RoomRate RoomTypeCode="{ROOM}"><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><GuestCounts><GuestCount AgeQualifyingCode="10" Count="{count}"/></GuestCounts><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{HOTEL}"/><ServiceRPHs><ServiceRPH RPH="1"/></ServiceRPHs></RoomStay>"#
        )
    };
    let third = r#"<ResGuest ResGuestRPH="3" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Eva</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests>"#;
    let start_of_stays = one.find("<RoomStays>").unwrap() + "<RoomStays>".len();
    let end_of_stays = one.find("</RoomStays>").unwrap();
    let two = format!("{}{}{}{}", &one[..start_of_stays], room(1, 2), room(2, 1), &one[end_of_stays..]).replacen(
        "</ResGuests>",
        third,
        1,
    );
    let body = send_official(&server, "/hotelbook", &two).await;
    let rs = OtaHotelResRs::from_xml(&body).unwrap();
    assert!(rs.is_success(), "{body}");
    // Counts that disagree with the guests named: refused at GuestCounts.
    let disagree = counted.replacen("<ServiceRPHs>", "<ResGuestRPHs>1</ResGuestRPHs><ServiceRPHs>", 1);
    let rs = OtaHotelResRs::from_xml(&send_official(&server, "/hotelbook", &disagree).await).unwrap();
    assert!(
        rs.errors().is_some_and(|e| e.error.iter().any(|e| e.tag.as_deref()
            == Some("/OTA_HotelResRQ/HotelReservations/HotelReservation/RoomStays/RoomStay[1]/GuestCounts"))),
        "{rs:?}"
    );
}

/// What a booking or a modify may ask in 2016B's form that the gateway does not do (special
/// requests, rate plans) is refused, naming it, never dropped silently.
async fn special_requests_and_rate_plans_are_refused_not_dropped(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(44), day(46));
    let one = book(Some("Quote"), "OTA-SR-1", start, end);
    let special = one.replace("<ServiceRPHs>", "<SpecialRequests><SpecialRequest><Text>Late arrival, after midnight</Text></SpecialRequest></SpecialRequests><ServiceRPHs>");
    let rate_plans = one.replace("<RoomRates>", r#"<RatePlans><RatePlan RatePlanCode="BAR"/></RatePlans><RoomRates>"#);
    for (xml, tag) in [(special, "/RoomStay[1]/SpecialRequests"), (rate_plans, "/RoomStay[1]/RatePlans")] {
        let body = send_official(&server, "/hotelbook", &xml).await;
        let rs = OtaHotelResRs::from_xml(&body).unwrap();
        let e = &rs.errors().unwrap_or_else(|| panic!("{body}")).error[0];
        assert_eq!(e.r#type, ota_messages::common::ErrorWarningType::NoImplementation, "{body}");
        assert!(e.tag.as_deref().is_some_and(|t| t.ends_with(tag)), "{tag}: {body}");
    }
}

/// The board as the rate plan (`RoomRate@RatePlanCode`, the way hotels send it in
/// notifications): a booking gives it there instead of a rate feature, the read writes it back
/// there (as well as the feature); a rate plan and a feature naming different boards are refused.
async fn the_board_as_the_rate_plan(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(48), day(50));
    let feature = r#"<RoomRate RoomTypeCode="RMDB000000"><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate>"#;
    let plan_only = book(Some("Commit"), "OTA-PLAN-1", start, end)
        .replace(feature, r#"<RoomRate RoomTypeCode="RMDB000000" RatePlanCode="BB"/>"#);
    assert!(plan_only.contains(r#"RatePlanCode="BB""#), "{plan_only}");
    let body = send_official(&server, "/hotelbook", &plan_only).await;
    let rs = OtaHotelResRs::from_xml(&body).unwrap();
    assert!(rs.is_success(), "{body}");
    let read_body = send_official(&server, "/bookread", &read("OTA-PLAN-1", "Client")).await;
    assert!(read_body.contains(r#"RatePlanCode="BB""#), "{read_body}");
    let differing = book(Some("Quote"), "OTA-PLAN-2", start, end).replace(
        r#"<RoomRate RoomTypeCode="RMDB000000">"#,
        r#"<RoomRate RoomTypeCode="RMDB000000" RatePlanCode="HB">"#,
    );
    let body = send_official(&server, "/hotelbook", &differing).await;
    let rs = OtaHotelResRs::from_xml(&body).unwrap();
    let e = &rs.errors().unwrap_or_else(|| panic!("{body}")).error[0];
    assert!(e.value.contains("different boards"), "{body}");
}

/// Hotel availability in OpenTravel 2016B's other forms: the stay and the rooms inside the
/// Criterion, the stay as Start and a Duration, several hotels in one Criterion, the flags it
/// can ignore; a search the gateway does not do is answered Type 2 naming it.
async fn hotel_availability_in_the_other_official_forms(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(30), day(33));
    let request = |root_attrs: &str, criterion: &str| {
        format!(
            r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1"{root_attrs}>{}<AvailRequestSegments><AvailRequestSegment AvailReqType="Room"><HotelSearchCriteria AvailableOnlyIndicator="true"><Criterion>{criterion}</Criterion></HotelSearchCriteria></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#,
            pos(OTA_DEMO)
        )
    };
    let rooms = r#"<RoomStayCandidates><RoomStayCandidate Quantity="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/></GuestCounts></RoomStayCandidate></RoomStayCandidates>"#;
    let offers = |body: &str| {
        let rs = OtaHotelAvailRs::from_xml(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        assert!(rs.is_success(), "{body}");
        rs.room_stays.map_or(0, |r| r.room_stay.len())
    };
    // The segment's form, as the service has it, is the baseline.
    let baseline = offers(&send_official(&server, "/hotelavailability", &avail(start, end)).await);
    assert!(baseline > 0);
    let inside = request(
        r#" RequestedCurrency="USD" SortOrder="RA""#,
        &format!(
            r#"<HotelRef HotelCode="{HOTEL}" ChainCode="XX"/><StayDateRange Start="{start}" End="{end}"/>{rooms}"#
        ),
    );
    assert_eq!(offers(&send_official(&server, "/hotelavailability", &inside).await), baseline);
    let duration = request(
        "",
        &format!(r#"<HotelRef HotelCode="{HOTEL}"/><StayDateRange Start="{start}" Duration="P3N"/>{rooms}"#),
    );
    assert_eq!(offers(&send_official(&server, "/hotelavailability", &duration).await), baseline);
    // A region (RefPoint, as 2016B has it), the stay in the Criterion: the offers of its hotels.
    let region = request(
        "",
        &format!(r#"<RefPoint CodeContext="Country">ES</RefPoint><StayDateRange Start="{start}" End="{end}"/>{rooms}"#),
    );
    assert!(offers(&send_official(&server, "/hotelavailability", &region).await) > baseline);
    // Two hotels in one Criterion: the offers of both.
    let two = request(
        "",
        &format!(
            r#"<HotelRef HotelCode="{HOTEL}"/><HotelRef HotelCode="HTL00042"/><StayDateRange Start="{start}" End="{end}"/>{rooms}"#
        ),
    );
    assert!(offers(&send_official(&server, "/hotelavailability", &two).await) > baseline);
    // What it does not do: Type 2, naming the element or attribute.
    for (criterion, root_attrs, tag) in [
        (
            format!(
                r#"<Address><CityName>Palma</CityName></Address><StayDateRange Start="{start}" End="{end}"/>{rooms}"#
            ),
            "",
            "/Criterion[1]/Address",
        ),
        (
            format!(
                r#"<HotelRef HotelCode="{HOTEL}"/><StayDateRange Start="{start}" End="{end}"/>{}"#,
                rooms.replace(r#"Quantity="1""#, r#"Quantity="2""#)
            ),
            "",
            "/RoomStayCandidate[1]/@Quantity",
        ),
        (
            format!(r#"<HotelRef HotelName="Somewhere"/><StayDateRange Start="{start}" End="{end}"/>{rooms}"#),
            "",
            "/HotelRef[1]/@HotelCode",
        ),
        (
            format!(r#"<HotelRef HotelCode="{HOTEL}"/><StayDateRange Start="{start}" End="{end}"/>{rooms}"#),
            r#" BestOnly="true""#,
            "/OTA_HotelAvailRQ/@BestOnly",
        ),
    ] {
        let body = send_official(&server, "/hotelavailability", &request(root_attrs, &criterion)).await;
        let rs = OtaHotelAvailRs::from_xml(&body).unwrap();
        let e = &rs.errors().unwrap_or_else(|| panic!("{body}")).error[0];
        assert_eq!(e.r#type, ota_messages::common::ErrorWarningType::NoImplementation, "{body}");
        assert!(e.tag.as_deref().is_some_and(|t| t.ends_with(tag)), "{tag}: {body}");
    }
    // End and Duration that disagree: a business error at Duration.
    let disagree = request(
        "",
        &format!(
            r#"<HotelRef HotelCode="{HOTEL}"/><StayDateRange Start="{start}" End="{end}" Duration="P2N"/>{rooms}"#
        ),
    );
    let rs = OtaHotelAvailRs::from_xml(&send_official(&server, "/hotelavailability", &disagree).await).unwrap();
    assert!(rs.errors().unwrap().error[0].tag.as_deref().is_some_and(|t| t.ends_with("StayDateRange/@Duration")));
}

/// Reads in OpenTravel 2016B's other forms: one booking by `ReadRequests/ReadRequest/UniqueID`
/// (as by the root's `UniqueID`); a read request of a kind this gateway holds none of (air,
/// package, …) is answered Type 2 "not supported", naming it, never a schema error.
async fn reads_in_the_other_official_forms(b: Backend) {
    let server = TestServer::start(b).await;
    let read_request = |inner: &str| {
        format!(
            r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1">{}<ReadRequests>{inner}</ReadRequests></OTA_ReadRQ>"#,
            pos(OTA_DEMO)
        )
    };
    // OTA-DEMO's demo booking, both ways.
    let by_root = send_official(&server, "/bookread", &read("OTA-2030-0001", "Client")).await;
    let by_request = send_official(&server, "/bookread", &read_request(r#"<ReadRequest><UniqueID Type="36" ID="OTA-2030-0001" ID_Context="Client"/><Verification><PersonName><Surname>Smith</Surname></PersonName></Verification></ReadRequest>"#)).await;
    let (a, b) = (OtaResRetrieveRs::from_xml(&by_root).unwrap(), OtaResRetrieveRs::from_xml(&by_request).unwrap());
    assert!(a.is_success(), "{by_root}");
    assert_eq!(a.reservations_list, b.reservations_list);
    // Its errors are tagged at the element the client sent.
    let item = OtaResRetrieveRs::from_xml(
        &send_official(
            &server,
            "/bookread",
            &read_request(
                r#"<ReadRequest><UniqueID Type="37" ID="OTA-2030-0001_1" ID_Context="Client"/></ReadRequest>"#,
            ),
        )
        .await,
    )
    .unwrap();
    assert_eq!(
        item.errors().unwrap().error[0].tag.as_deref(),
        Some("/OTA_ReadRQ/ReadRequests/ReadRequest/UniqueID/@Type")
    );
    // Other kinds: not supported, named.
    for (name, inner) in [
        ("AirReadRequest", r#"<AirReadRequest><DepartureDate>2030-07-01</DepartureDate></AirReadRequest>"#),
        ("PkgReadRequest", r#"<PkgReadRequest/>"#),
        (
            "VehicleReadRequest",
            r#"<VehicleReadRequest><UniqueID Type="14" ID="X1"/><VehRetResRQInfo/></VehicleReadRequest>"#,
        ),
    ] {
        let body = send_official(&server, "/bookread", &read_request(inner)).await;
        let rs = OtaResRetrieveRs::from_xml(&body).unwrap();
        let e = &rs.errors().unwrap_or_else(|| panic!("{body}")).error[0];
        assert_eq!(e.r#type, ota_messages::common::ErrorWarningType::NoImplementation, "{body}");
        assert_eq!(e.tag.as_deref(), Some(format!("/OTA_ReadRQ/ReadRequests/{name}").as_str()), "{body}");
        assert!(e.value.contains("not supported"), "{body}");
    }
}

/// OpenTravel's own sample requests of our roots that are valid under 2016B, with OTA-DEMO's POS
/// and our version put in (`conformance/opentravel-samples/`, `scripts/official-samples.py`):
/// each gets a business answer (Success, or an error saying what is not possible or not
/// supported) valid under 2016B, never a schema error.
async fn official_sample_requests_get_business_answers(b: Backend) {
    let server = TestServer::start(b).await;
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-samples");
    let mut files: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 38, "the samples are in {}", folder.display());
    let mut refused = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let xml = std::fs::read_to_string(file).unwrap();
        let root = root_name(&xml).unwrap();
        let path = ota_messages::OPERATIONS
            .iter()
            .find(|o| o.request_root == root)
            .unwrap_or_else(|| panic!("{name}: no operation for {root}"))
            .path;
        let body = send_official(&server, path, &xml).await;
        // A schema error is a decoder's problem: protocol violations, and missing parts located
        // by line and column.
        let shape: Vec<String> = body
            .split("<Error ")
            .skip(1)
            .filter(|e| {
                e.starts_with(r#"Type="7""#)
                    || (e.starts_with(r#"Type="10""#)
                        && e.split('>')
                            .nth(1)
                            .is_some_and(|t| t.split(':').next().is_some_and(|l| l.parse::<u32>().is_ok())))
            })
            .map(|e| e.split('>').nth(1).unwrap_or_default().split('<').next().unwrap_or_default().to_string())
            .collect();
        if !shape.is_empty() {
            refused.push((name, shape));
        }
    }
    println!("{} of {} official sample requests get a business answer", files.len() - refused.len(), files.len());
    assert!(refused.is_empty(), "schema errors for official sample requests:\n{refused:#?}");
}

/// An import sets a requestor's dialect when it gives one and keeps it when it does not.
async fn an_import_sets_or_keeps_the_dialect(b: Backend) {
    let server = TestServer::start(b).await;
    let import = |id: &str, context: &str, dialect: &str| {
        let json = format!(
            r#"{{"requestors": [{{"id": "{id}", "id_context": "{context}", "name": "{id}", "password": "pw-{id}"{dialect}}}]}}"#
        );
        ota_gateway::import::parse::<ota_gateway::import::ImportFile>("t", &json).unwrap()
    };
    let store = server.store();
    let dialect_of = |id: &'static str| async move {
        let all = ota_gateway::requestors::admin::list(store).await.unwrap();
        all.into_iter().find(|r| r.id == id).map(|r| r.dialect)
    };
    ota_gateway::import::import(server.store(), import(OTA_DEMO.0, OTA_DEMO.1, "")).await.unwrap();
    assert_eq!(dialect_of("OTA-DEMO").await, Some(ota_messages::Dialect::Ota2016b), "kept");
    ota_gateway::import::import(server.store(), import(DEMO.0, DEMO.1, r#", "dialect": "ota2016b""#)).await.unwrap();
    assert_eq!(dialect_of("DEMO").await, Some(ota_messages::Dialect::Ota2016b), "set");
    ota_gateway::import::import(server.store(), import("NEW", "NEW-DIST", "")).await.unwrap();
    assert_eq!(dialect_of("NEW").await, Some(ota_messages::Dialect::Service), "a new requestor: the default");
}

backend_tests!(
    special_requests_and_rate_plans_are_refused_not_dropped,
    the_board_as_the_rate_plan,
    hotel_booking_by_guest_counts,
    hotel_availability_in_the_other_official_forms,
    official_sample_requests_get_business_answers,
    reads_in_the_other_official_forms,
    an_import_sets_or_keeps_the_dialect,
    activity_booking_in_the_official_form,
    activity_transfer_booked_by_the_pickup_hotels_name,
    activity_availability_in_the_official_form,
    activity_search_by_area_and_by_id,
    hotel_day_in_the_official_form,
    a_book_request_without_res_status_means_what_the_dialect_says
);
