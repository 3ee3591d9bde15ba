//! The supply side (issue 21), on real gateway processes: suppliers (a hotel's system, owning
//! hotels) set up by `ota-gateway requestor …` and by import, and who may call what.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use chrono::NaiveDate;
use support::{Backend, GatewayProcess, TestDb, backend_tests, cli};

const XML: &str = "application/xml";
const SUPPLIER: (&str, &str, &str) = ota_gateway::import::DEMO_SUPPLIER;

fn nbc((id, ctx, pw): (&str, &str, &str)) -> String {
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1"><POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    )
}

/// The demo supplier owns the demo hotels; the `requestor` commands and the import make and
/// change suppliers, a hotel never having two; a supplier is refused the demand operations.
pub(crate) async fn suppliers_own_hotels_and_call_only_the_supply_side(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, &[]).await;
    let run = |args: &[&str], stdin: &str| {
        let mut all: Vec<&str> = vec!["requestor"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &arg]);
        cli(&all, stdin)
    };

    let (code, out, _) = run(&["list"], "");
    assert_eq!(code, 0);
    let line = out.lines().find(|l| l.starts_with("SUP-DEMO ")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("supplier") && line.contains("(hotels: HTL00042,HTL00077,HTL00105,HTL02001)"), "{line}");
    assert!(out.lines().any(|l| l.starts_with("DEMO ") && l.contains("distributor")), "{out}");

    // A supplier calls only the supply operations: a demand operation is Type 6, Code 497.
    let (status, _, body) = gw.client().send_raw("/hotelnbc", nbc(SUPPLIER), XML).await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#"Type="6""#) && body.contains(r#"Code="497""#) && body.contains("supplier"), "{body}");
    assert!(!body.contains("HotelDescriptiveContent"), "{body}");

    // A hotel has one supplier, whether by command or by import.
    let (code, _, err) =
        run(&["add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL00042,HTL99999"], "cm2-secret\n");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(r#"hotel "HTL00042" belongs to supplier "SUP-DEMO""#), "{err}");
    let (code, out, err) =
        run(&["add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL99999"], "cm2-secret\n");
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run(&["add", "CM3", "--context", "X", "--hotels", "HTL1"], "pw\n");
    assert_eq!(code, 2, "hotels without --supplier are a usage error: {err}");
    let (code, _, err) = run(&["set", "CM2", "--hotels", "HTL00077"], "");
    assert_eq!(code, 1);
    assert!(err.contains(r#"hotel "HTL00077" belongs to supplier "SUP-DEMO""#), "{err}");
    let (code, out, err) = run(&["set", "SUP-DEMO", "--hotels", "HTL00042,HTL00105,HTL02001"], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("supplies HTL00042, HTL00105, HTL02001"), "{out}");
    let (code, out, err) = run(&["set", "CM2", "--hotels", "HTL00077,HTL99999"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(out.lines().any(|l| l.starts_with("CM2 ") && l.contains("(hotels: HTL00077,HTL99999)")), "{out}");
    let (code, out, err) = run(&["set", "CM2", "--distributor"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(out.lines().any(|l| l.starts_with("CM2 ") && l.contains("distributor") && !l.contains("hotels:")), "{out}");
    let (code, _, err) = run(&["set", "CM2", "--hotels", "bad code\n"], "");
    assert_eq!(code, 2, "{err}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suppliers.json");
    let import = |json: &str| {
        std::fs::write(&file, json).unwrap();
        cli(&["import", "--db", &arg, file.to_str().unwrap()], "")
    };
    let entry = |id: &str, hotels: &str| {
        format!(
            r#"{{"id": "{id}", "id_context": "{id}-CTX", "name": "{id}", "password": "pw-{id}", "supplier": true, "hotels": [{hotels}]}}"#
        )
    };
    let (code, _, err) = import(&format!(r#"{{"requestors": [{}]}}"#, entry("CM4", r#""HTL00042""#)));
    assert_eq!(code, 1);
    assert!(err.contains(r#"requestor "CM4""#) && err.contains(r#"belongs to supplier "SUP-DEMO""#), "{err}");
    let (code, _, err) =
        import(&format!(r#"{{"requestors": [{}, {}]}}"#, entry("CM4", r#""H1""#), entry("CM5", r#""H1""#)));
    assert_eq!(code, 1);
    assert!(err.contains("a hotel has one supplier"), "{err}");
    // Moving a hotel in one file: the old owner's entry first.
    let (code, out, err) = import(&format!(
        r#"{{"requestors": [{}, {}]}}"#,
        entry("SUP-DEMO", r#""HTL00105""#).replace("pw-SUP-DEMO", SUPPLIER.2).replace("SUP-DEMO-CTX", SUPPLIER.1),
        entry("CM4", r#""HTL00042""#)
    ));
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(out.lines().any(|l| l.starts_with("CM4 ") && l.contains("(hotels: HTL00042)")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("SUP-DEMO ") && l.contains("(hotels: HTL00105)")), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Notifications

const NS: &str = "http://www.opentravel.org/OTA/2003/05";
/// The demo hotel with few rooms: RMDB000000 (2 rooms, 2 guests, SC 55.00 / BB 64.50 a night).
const HOTEL: &str = "HTL00105";
const ROOM: &str = "RMDB000000";

fn pos((id, ctx, pw): (&str, &str, &str)) -> String {
    format!(
        r#"<POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS>"#
    )
}

/// A time stamp `n` milliseconds after a fixed instant (stamps order notifications).
fn stamp(n: i64) -> String {
    // A day ago, once per test process: a TimeStamp is when a message was made, never ahead.
    static BASE: std::sync::LazyLock<chrono::DateTime<chrono::Utc>> =
        std::sync::LazyLock::new(|| chrono::Utc::now() - chrono::Duration::days(1));
    (*BASE + chrono::Duration::milliseconds(n)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `OTA_HotelInvCountNotifRQ` setting the rooms on sale of [`ROOM`] from `start` to `end`
/// (included).
fn inv_count(
    who: (&str, &str, &str),
    hotel: &str,
    at: i64,
    span: (NaiveDate, NaiveDate),
    count: i64,
    action: &str,
) -> String {
    inv_count_of(who, (hotel, ROOM), at, span, count, action)
}

/// `OTA_HotelInvCountNotifRQ` setting the rooms on sale of a room type from `start` to `end`
/// (included).
fn inv_count_of(
    who: (&str, &str, &str),
    (hotel, room): (&str, &str),
    at: i64,
    (start, end): (NaiveDate, NaiveDate),
    count: i64,
    action: &str,
) -> String {
    format!(
        r#"<OTA_HotelInvCountNotifRQ xmlns="{NS}" Version="2016.1" TimeStamp="{}">{}<Inventories HotelCode="{hotel}"><Inventory><StatusApplicationControl Start="{start}" End="{end}" InvTypeCode="{room}"/><InvCounts><InvCount CountType="2" Count="{count}" ActionType="{action}"/></InvCounts></Inventory></Inventories></OTA_HotelInvCountNotifRQ>"#,
        stamp(at),
        pos(who)
    )
}

/// `OTA_HotelAvailNotifRQ` with one `AvailStatusMessage` of [`ROOM`] (`inner`: its
/// restriction elements).
fn avail_notif(at: i64, (start, end): (NaiveDate, NaiveDate), plan: Option<&str>, inner: &str) -> String {
    let plan = plan.map(|p| format!(r#" RatePlanCode="{p}""#)).unwrap_or_default();
    format!(
        r#"<OTA_HotelAvailNotifRQ xmlns="{NS}" Version="2016.1" TimeStamp="{}">{}<AvailStatusMessages HotelCode="{HOTEL}"><AvailStatusMessage><StatusApplicationControl Start="{start}" End="{end}" InvTypeCode="{ROOM}"{plan}/>{inner}</AvailStatusMessage></AvailStatusMessages></OTA_HotelAvailNotifRQ>"#,
        stamp(at),
        pos(SUPPLIER)
    )
}

/// `OTA_HotelRateAmountNotifRQ` with the nightly amounts of [`ROOM`] with board BB in EUR
/// (`amounts`: number of guests, or none for any, and the amount).
fn rate_notif(at: i64, (start, end): (NaiveDate, NaiveDate), amounts: &[(Option<u32>, &str)]) -> String {
    let amounts: String = amounts
        .iter()
        .map(|(n, a)| match n {
            Some(n) => format!(r#"<BaseByGuestAmt NumberOfGuests="{n}" AgeQualifyingCode="10" AmountAfterTax="{a}"/>"#),
            None => format!(r#"<BaseByGuestAmt AmountAfterTax="{a}"/>"#),
        })
        .collect();
    format!(
        r#"<OTA_HotelRateAmountNotifRQ xmlns="{NS}" Version="2016.1" TimeStamp="{}">{}<RateAmountMessages HotelCode="{HOTEL}"><RateAmountMessage><StatusApplicationControl Start="{start}" End="{end}" InvTypeCode="{ROOM}" RatePlanCode="BB"/><Rates><Rate CurrencyCode="EUR"><BaseByGuestAmts>{amounts}</BaseByGuestAmts></Rate></Rates></RateAmountMessage></RateAmountMessages></OTA_HotelRateAmountNotifRQ>"#,
        stamp(at),
        pos(SUPPLIER)
    )
}

fn avail_xml(hotel: &str, start: NaiveDate, end: NaiveDate, adults: u32) -> String {
    format!(
        r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1">{}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode="{hotel}"/></Criterion></HotelSearchCriteria><StayDateRange Start="{start}" End="{end}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="{adults}"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#,
        pos(support::DEMO)
    )
}

fn book_xml(client_ref: &str, start: NaiveDate, end: NaiveDate) -> String {
    format!(
        r#"<OTA_HotelResRQ xmlns="{NS}" Version="2008.1" ResStatus="Commit">{}<HotelReservations><HotelReservation><RoomStays><RoomStay RPH="1"><RoomTypes><RoomType RoomTypeCode="{ROOM}"/></RoomTypes><RoomRates><RoomRate RoomTypeCode="{ROOM}"><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{HOTEL}"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#,
        pos(support::DEMO)
    )
}

/// Posts a message; the answer's body (HTTP 200 required).
async fn post(gw: &GatewayProcess, path: &str, xml: String) -> String {
    let (status, _, body) = gw.client().send_raw(path, xml, XML).await.unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// The offers of [`ROOM`] of [`HOTEL`] with board BB for the stay: their totals.
async fn offers(gw: &GatewayProcess, start: NaiveDate, end: NaiveDate, adults: u32) -> Vec<String> {
    offers_of(&gw.client(), (HOTEL, ROOM, "BB"), (start, end), adults).await
}

/// The offers of a hotel's room type with a board for the stay: their totals.
async fn offers_of(
    client: &ota_gateway::Client,
    (hotel, room, board): (&str, &str, &str),
    (start, end): (NaiveDate, NaiveDate),
    adults: u32,
) -> Vec<String> {
    let (status, _, body) =
        client.send_raw("/hotelavailability", avail_xml(hotel, start, end, adults), XML).await.unwrap();
    assert!(status == 200 && body.contains("<Success"), "{body}");
    let doc = roxmltree::Document::parse(&body).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("RoomStay"))
        .filter(|rs| rs.descendants().any(|n| n.has_tag_name("RoomType") && n.attribute("RoomTypeCode") == Some(room)))
        .filter(|rs| rs.descendants().any(|n| n.has_tag_name("Text") && n.text() == Some(board)))
        .filter_map(|rs| {
            rs.children()
                .find(|n| n.has_tag_name("Total"))
                .and_then(|t| t.attribute("AmountAfterTax"))
                .map(str::to_string)
        })
        .collect()
}

/// Waits (up to 1 s: the issue's bound) until `check` holds on the gateway.
async fn within_a_second<F, Fut>(what: &str, check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    within(what, std::time::Duration::from_secs(1), check).await;
}

/// Waits (up to `bound`) until `check` holds on the gateway.
async fn within<F, Fut>(what: &str, bound: std::time::Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = std::time::Instant::now();
    while !check().await {
        assert!(started.elapsed() < bound, "{what}: not visible within {bound:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn success_without_warnings(body: &str) -> bool {
    body.contains("<Success") && !body.contains("<Warning") && !body.contains("<Error")
}

/// Each notification changes what every gateway sells, within a second; once; never over a
/// newer one; all of it or nothing; only for the supplier's own hotels.
pub(crate) async fn notifications_change_what_every_gateway_sells(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let (a, other) = (GatewayProcess::start(&arg, &[]).await, GatewayProcess::start(&arg, &[]).await);
    let (d1, d2, d3) = (support::day(30), support::day(31), support::day(32));
    assert_eq!(offers(&other, d1, d2, 1).await, vec!["64.50"], "the content's rate");

    // Rooms on sale: none, then two again.
    let body = post(&a, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, 1, (d1, d1), 0, "Allocation")).await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("no rooms", || async { offers(&other, d1, d2, 1).await.is_empty() }).await;
    assert!(offers(&other, d2, d3, 1).await.len() == 1, "the next night is untouched");
    let body = post(&a, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, 2, (d1, d1), 2, "Allocation")).await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("two rooms", || async { offers(&other, d1, d2, 1).await.len() == 1 }).await;

    // A repeat changes nothing and gets the same answer; an older one never wins and says so.
    let again = post(&a, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, 2, (d1, d1), 2, "Allocation")).await;
    assert!(success_without_warnings(&again), "{again}");
    let older = post(&a, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, 1, (d1, d1), 0, "Allocation")).await;
    assert!(older.contains("<Success") && older.contains("later TimeStamp"), "{older}");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(offers(&other, d1, d2, 1).await.len(), 1, "the older count did not win");
    // A TimeStamp from the future would hold back every later update for good: refused.
    let future = inv_count(SUPPLIER, HOTEL, 4, (d1, d1), 0, "Allocation")
        .replace(&format!(r#"TimeStamp="{}""#, stamp(4)), r#"TimeStamp="9999-12-31T23:59:59Z""#);
    let refused = post(&a, "/hotelinvcountnotif", future).await;
    assert!(refused.contains(r#"Code="15""#) && refused.contains("/OTA_HotelInvCountNotifRQ/@TimeStamp"), "{refused}");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(offers(&other, d1, d2, 1).await.len(), 1, "the message from the future changed nothing");
    // An adjustment, repeated: applied once.
    let adjust = inv_count(SUPPLIER, HOTEL, 3, (d1, d1), -1, "Adjustment");
    assert!(success_without_warnings(&post(&a, "/hotelinvcountnotif", adjust.clone()).await));
    assert!(success_without_warnings(&post(&a, "/hotelinvcountnotif", adjust).await), "a repeat gets the same answer");
    // One room left on d1: one booking takes it, the next is refused.
    let first = post(&other, "/hotelbook", book_xml("SUP-1", d1, d2)).await;
    assert!(first.contains("<Success"), "{first}");
    let second = post(&a, "/hotelbook", book_xml("SUP-2", d1, d2)).await;
    assert!(second.contains("<Error") && !second.contains("<Success"), "the adjusted count is the limit: {second}");
    // A count below the rooms sold: applied, with a warning naming the night.
    let below = post(&a, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, 4, (d1, d1), 0, "Allocation")).await;
    assert!(
        below.contains("<Success") && below.contains(&format!("night of {d1}")) && below.contains("already sold"),
        "{below}"
    );
    // Remaining rooms: the count is what is left to sell, over the rooms sold.
    let remaining = post(&a, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, 5, (d1, d1), 1, "Remaining")).await;
    assert!(success_without_warnings(&remaining), "{remaining}");
    within_a_second("one room remaining", || async { offers(&other, d1, d2, 1).await.len() == 1 }).await;
    // Two adjustments of one night in one message: both applied (2 + 3 - 1 = 4), and again only
    // once when the message is repeated.
    let two = inv_count(SUPPLIER, HOTEL, 6, (d1, d1), 3, "Adjustment").replace(
        "</Inventory></Inventories>",
        &format!(
            r#"</Inventory><Inventory><StatusApplicationControl Start="{d1}" End="{d1}" InvTypeCode="{ROOM}"/><InvCounts><InvCount CountType="2" Count="-1" ActionType="Adjustment"/></InvCounts></Inventory></Inventories>"#
        ),
    );
    let store = db.open().await;
    let on_sale = || async {
        let ota_gateway::store::Scalar(n): ota_gateway::store::Scalar<i64> = store
            .read(move |c| {
                Box::pin(async move {
                    c.query_one(
                        "SELECT rooms FROM supply_rooms WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
                        &[&HOTEL, &ROOM, &d1],
                    )
                    .await
                })
            })
            .await
            .unwrap();
        n
    };
    assert_eq!(on_sale().await, 2, "one sold, one remaining");
    assert!(success_without_warnings(&post(&a, "/hotelinvcountnotif", two.clone()).await));
    assert_eq!(on_sale().await, 4, "+3 then -1");
    assert!(success_without_warnings(&post(&a, "/hotelinvcountnotif", two).await), "a repeat gets the same answer");
    assert_eq!(on_sale().await, 4, "a repeat is applied once");

    // Restrictions: closed, closed to arrival, minimum stay; for one plan or every one.
    let (e1, e2, e3, e4) = (support::day(40), support::day(41), support::day(42), support::day(43));
    let body = post(
        &a,
        "/hotelavailnotif",
        avail_notif(10, (e2, e2), None, r#"<RestrictionStatus Restriction="Master" Status="Close"/>"#),
    )
    .await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("closed", || async { offers(&other, e1, e3, 1).await.is_empty() }).await;
    assert_eq!(offers(&other, e1, e2, 1).await.len(), 1, "a stay leaving that day is sold");
    let refused = post(&other, "/hotelbook", book_xml("SUP-3", e1, e3)).await;
    assert!(refused.contains("<Error") && refused.contains("closed"), "{refused}");
    post(
        &a,
        "/hotelavailnotif",
        avail_notif(11, (e2, e2), Some("BB"), r#"<RestrictionStatus Restriction="Master" Status="Open"/>"#),
    )
    .await;
    within_a_second("opened for BB", || async { offers(&other, e1, e3, 1).await.len() == 1 }).await;
    post(
        &a,
        "/hotelavailnotif",
        avail_notif(12, (e1, e1), None, r#"<RestrictionStatus Restriction="Arrival" Status="Close"/>"#),
    )
    .await;
    within_a_second("closed to arrival", || async { offers(&other, e1, e2, 1).await.is_empty() }).await;
    post(&a, "/hotelavailnotif", avail_notif(13, (e1, e1), None, r#"<RestrictionStatus Restriction="Arrival" Status="Open"/><LengthsOfStay><LengthOfStay Time="3" TimeUnit="Day" MinMaxMessageType="SetMinLOS"/></LengthsOfStay>"#)).await;
    within_a_second("minimum stay", || async {
        offers(&other, e1, e3, 1).await.is_empty() && offers(&other, e1, e4, 1).await.len() == 1
    })
    .await;

    // Quote and modify honour them too.
    let (g1, g2, g3, g4) = (support::day(60), support::day(61), support::day(62), support::day(64));
    let booked = post(&other, "/hotelbook", book_xml("SUP-9", g1, g2)).await;
    assert!(booked.contains("<Success"), "{booked}");
    post(
        &a,
        "/hotelavailnotif",
        avail_notif(
            14,
            (support::day(63), support::day(63)),
            None,
            r#"<RestrictionStatus Restriction="Master" Status="Close"/>"#,
        ),
    )
    .await;
    within_a_second("closed for the modify", || async { offers(&other, g3, g4, 1).await.is_empty() }).await;
    let quote =
        post(&other, "/hotelbook", book_xml("SUP-10", g3, g4).replace(r#"ResStatus="Commit""#, r#"ResStatus="Quote""#))
            .await;
    assert!(quote.contains("<Error") && quote.contains("closed"), "{quote}");
    {
        use ota_messages::runtime::{Date, Message, Response};
        let read_rq = ota_messages::booking_read::OtaReadRq::from_xml(&format!(
            r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1">{}<UniqueID Type="36" ID="SUP-9" ID_Context="Client"/></OTA_ReadRQ>"#,
            pos(support::DEMO)
        ))
        .unwrap();
        let read = other.client().send(&read_rq).await.unwrap();
        let reservation = read.reservations_list.as_ref().unwrap().hotel_reservation[0].clone();
        let mut payload = ota_gateway::hotels::modify_payload(&reservation).unwrap();
        payload.room_stays.as_mut().unwrap().room_stay[0].time_span =
            Some(ota_messages::common::DateSpan { start: Date(g3), end: Date(g4) });
        let modify = ota_messages::hotel_res_modify::OtaHotelResModifyRq {
            version: "2008.1".into(),
            res_status: Some(ota_messages::common::ResStatus::Commit),
            pos: read_rq.pos,
            hotel_res_modifies: ota_messages::hotel_res_modify::HotelResModifies { hotel_res_modify: payload },
            ..Default::default()
        };
        let modified = other.client().send(&modify).await.unwrap();
        let text = format!("{:?}", modified.errors());
        assert!(!modified.is_success() && text.contains("closed"), "{text}");
    }

    // Amounts: per number of guests, else for any number.
    let (f1, f3) = (support::day(50), support::day(52));
    let body = post(
        &a,
        "/hotelrateamountnotif",
        rate_notif(20, (f1, support::day(51)), &[(None, "100.00"), (Some(1), "80.00")]),
    )
    .await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("new amounts", || async { offers(&other, f1, f3, 1).await == vec!["160.00"] }).await;
    assert_eq!(offers(&other, f1, f3, 2).await, vec!["200.00"], "two guests: the amount for any number");
    assert_eq!(offers(&other, f1, support::day(53), 1).await, vec!["224.50"], "the third night at the content's rate");

    // Hostile amounts are refused, naming them; nothing panics.
    for bad in ["79000000000000000000000000000.00", "7900000000000.00", "-1.00", "10.001"] {
        let body = post(&a, "/hotelrateamountnotif", rate_notif(21, (f1, f1), &[(None, bad)])).await;
        assert!(
            body.contains("<Error") && body.contains("BaseByGuestAmt[1]") && !body.contains(r#"Type="12""#),
            "{bad}: {body}"
        );
    }

    // All or nothing: an unknown room type refuses the whole message, naming it.
    let mixed = inv_count(SUPPLIER, HOTEL, 30, (d3, d3), 0, "Allocation").replace("</Inventories>", r#"<Inventory><StatusApplicationControl Start="2030-01-01" End="2030-01-01" InvTypeCode="NOSUCHROOM"/><InvCounts><InvCount Count="1"/></InvCounts></Inventory></Inventories>"#);
    let body = post(&a, "/hotelinvcountnotif", mixed).await;
    assert!(body.contains("<Error") && body.contains("NOSUCHROOM") && body.contains("Inventory[2]"), "{body}");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(offers(&other, d3, support::day(33), 1).await.len(), 1, "the first item was not applied either");

    // Who may send what: a partner never; a supplier only for its hotels, another's answered as
    // one that does not exist.
    let partner = post(&a, "/hotelinvcountnotif", inv_count(support::DEMO, HOTEL, 40, (d3, d3), 0, "Allocation")).await;
    assert!(partner.contains(r#"Type="6""#) && partner.contains(r#"Code="497""#), "{partner}");
    let (code, out, err) = cli(
        &["requestor", "add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL99999", "--db", &arg],
        "cm2-secret\n",
    );
    assert_eq!(code, 0, "{out}{err}");
    let cm2 = ("CM2", "CM2-CTX", "cm2-secret");
    within_a_second("the new supplier", || async {
        !post(&a, "/hotelinvcountnotif", inv_count(cm2, HOTEL, 41, (d3, d3), 0, "Allocation"))
            .await
            .contains(r#"Type="4""#)
    })
    .await;
    let anothers = post(&a, "/hotelinvcountnotif", inv_count(cm2, HOTEL, 41, (d3, d3), 0, "Allocation")).await;
    let missing = post(&a, "/hotelinvcountnotif", inv_count(cm2, "HTLNOPE", 41, (d3, d3), 0, "Allocation")).await;
    let text = |body: &str| body.split("<Error ").nth(1).map(|e| e.replace(HOTEL, "X").replace("HTLNOPE", "X"));
    assert!(anothers.contains("<Error"), "{anothers}");
    assert_eq!(text(&anothers), text(&missing), "another's hotel is answered as one that does not exist");
    assert_eq!(offers(&other, d3, support::day(33), 1).await.len(), 1, "nothing applied");
}

/// The spec's full samples of the notifications are applied (Success, warnings naming what is
/// not kept); OpenTravel's own sample notifications get Success or a business answer naming
/// what the gateway does not keep, never a schema or system error.
pub(crate) async fn sample_notifications_get_business_answers(b: Backend) {
    let server = support::TestServer::start(b).await;
    for name in ["hotel_inv_count_notif", "hotel_avail_notif", "hotel_rate_amount_notif"] {
        let xml = support::raw_sample(name);
        let root = roxmltree::Document::parse(&xml).unwrap().root_element().tag_name().name().to_string();
        let path = ota_messages::OPERATIONS.iter().find(|o| o.request_root == root).unwrap().path;
        let (status, _, body) = server.client().send_raw(path, xml, XML).await.unwrap();
        assert_eq!(status, 200, "{name}: {body}");
        assert!(body.contains("<Success") && !body.contains("<Error"), "{name}: {body}");
    }
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-samples");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("Notif"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "{files:?}");
    let mut applied = 0;
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let xml = std::fs::read_to_string(file).unwrap();
        let root = roxmltree::Document::parse(&xml).unwrap().root_element().tag_name().name().to_string();
        let path = ota_messages::OPERATIONS.iter().find(|o| o.request_root == root).unwrap().path;
        let (status, _, body) = server.client().send_raw(path, xml, XML).await.unwrap();
        assert_eq!(status, 200, "{name}: {body}");
        let types: Vec<&str> = body.split("<Error ").skip(1).filter_map(|e| e.split('"').nth(1)).collect();
        assert!(types.iter().all(|t| matches!(*t, "2" | "3")), "{name}: only business answers: {body}");
        if body.contains("<Success") {
            applied += 1;
        }
        println!(
            "{name}: {}",
            if body.contains("<Success") {
                "Success".to_string()
            } else {
                body.split("<Error ")
                    .skip(1)
                    .map(|e| e.split('>').nth(1).unwrap_or("").split('<').next().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
                    .join(" | ")
            }
        );
    }
    println!("{applied} of {} official sample notifications applied", files.len());
}

/// One update of the simulated channel manager: one value of one day.
#[derive(Debug, Clone)]
enum Update {
    /// Rooms on sale of HTL00105's RMDB000000 (the room the partners book).
    Rooms(u32),
    /// HTL00042's RMSD000000 closed (every plan).
    Closed(bool),
    /// HTL00042's RMSD000000 minimum stay.
    MinStay(u32),
    /// HTL00042's RMTW000000 amount with BB, in cents.
    Rate(i64),
}

impl Update {
    fn key(&self) -> &'static str {
        match self {
            Update::Rooms(_) => "rooms",
            Update::Closed(_) => "closed",
            Update::MinStay(_) => "min",
            Update::Rate(_) => "rate",
        }
    }

    /// The message (path and body), stamped `at` milliseconds.
    fn message(&self, at: i64, day: NaiveDate) -> (&'static str, String) {
        let span = (day, day);
        match self {
            Update::Rooms(n) => ("/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, at, span, i64::from(*n), "Allocation")),
            Update::Closed(closed) => {
                let status = if *closed { "Close" } else { "Open" };
                ("/hotelavailnotif", avail_notif(at, span, None, &format!(r#"<RestrictionStatus Restriction="Master" Status="{status}"/>"#)).replace(HOTEL, "HTL00042").replace(ROOM, "RMSD000000"))
            }
            Update::MinStay(n) => (
                "/hotelavailnotif",
                avail_notif(at, span, None, &format!(r#"<LengthsOfStay><LengthOfStay Time="{n}" TimeUnit="Day" MinMaxMessageType="SetMinLOS"/></LengthsOfStay>"#)).replace(HOTEL, "HTL00042").replace(ROOM, "RMSD000000"),
            ),
            Update::Rate(cents) => {
                let amount = format!("{}.{:02}", cents / 100, cents % 100);
                ("/hotelrateamountnotif", rate_notif(at, span, &[(None, &amount)]).replace(HOTEL, "HTL00042").replace(ROOM, "RMTW000000"))
            }
        }
    }
}

/// The issue's run: a channel manager pushes updates (rooms on sale, closings, minimum stays,
/// amounts; `SUPPLY_UPDATES`, default 2,000, the issue's 10,000 with the variable) from 4
/// connections at once, spread over 3 gateways, while 4 partners book the room it counts. The
/// updates of one day are sent out of order (4 at once): the newest `TimeStamp` must win
/// wherever the older arrives later. Probes (every 100th update: an amount of its own day)
/// must show in the availability of every gateway within 1 s. Never oversold: the rooms sold of
/// each night are the bookings answered Success, and above the rooms on sale only where the
/// supplier's last count was below them (its answer warned).
pub(crate) async fn a_channel_manager_pushes_while_partners_book(b: Backend) {
    let total: usize = std::env::var("SUPPLY_UPDATES").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000);
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gateways = std::sync::Arc::new(vec![
        GatewayProcess::start(&arg, &[]).await,
        GatewayProcess::start(&arg, &[]).await,
        GatewayProcess::start(&arg, &[]).await,
    ]);
    const DAYS: i64 = 20;
    let first = support::day(60);
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // (key, day) → (stamp, update, answer warned below sold) of every update answered.
    type Sent = std::collections::HashMap<(&'static str, NaiveDate), Vec<(i64, Update, bool)>>;
    let sent: std::sync::Arc<std::sync::Mutex<Sent>> = std::sync::Arc::default();
    let probe_delays: std::sync::Arc<std::sync::Mutex<Vec<std::time::Duration>>> = std::sync::Arc::default();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Updates that arrived after a newer one of their day (answered with a warning).
    let older = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));

    // Partners book one night of the counted room, anywhere in the days.
    let mut bookers = Vec::new();
    for t in 0..4u64 {
        let (gateways, done) = (gateways.clone(), done.clone());
        bookers.push(tokio::spawn(async move {
            let client = gateways[t as usize % 3].client();
            let mut rng = support::Rng(0x5eed + t);
            let mut booked: Vec<NaiveDate> = Vec::new();
            let mut i = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let night = first + chrono::Duration::days(rng.below(DAYS as u64) as i64);
                let (status, _, body) = client
                    .send_raw("/hotelbook", book_xml(&format!("CM-{t}-{i}"), night, night.succ_opt().unwrap()), XML)
                    .await
                    .unwrap();
                assert_eq!(status, 200, "{body}");
                assert!(!body.contains(r#"Type="12""#), "{body}");
                if body.contains("<Success") {
                    booked.push(night);
                }
                i += 1;
            }
            (booked, i)
        }));
    }

    let started = std::time::Instant::now();
    let mut senders = Vec::new();
    for t in 0..4u64 {
        let (gateways, next, sent, probe_delays, older) =
            (gateways.clone(), next.clone(), sent.clone(), probe_delays.clone(), older.clone());
        senders.push(tokio::spawn(async move {
            let clients: Vec<_> = gateways.iter().map(GatewayProcess::client).collect();
            let mut rng = support::Rng(0xc0ffee + t);
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= total {
                    return;
                }
                let at = i as i64 + 1;
                let client = &clients[i % 3];
                if i % 100 == 99 {
                    // A probe: an amount of a day of its own, on every gateway within 1 s.
                    let day = support::day(100 + (i / 100) as i64);
                    let cents = 50_000 + i as i64;
                    let (path, xml) = Update::Rate(cents).message(at, day);
                    let xml = xml.replace("RMTW000000", "RMJS000000");
                    let (status, _, body) = client.send_raw(path, xml, XML).await.unwrap();
                    assert!(status == 200 && success_without_warnings(&body), "{body}");
                    let sent_at = std::time::Instant::now();
                    let want = vec![format!("{}.{:02}", cents / 100, cents % 100)];
                    for c in &clients {
                        while offers_of(c, ("HTL00042", "RMJS000000", "BB"), (day, day.succ_opt().unwrap()), 2).await
                            != want
                        {
                            assert!(
                                sent_at.elapsed() < std::time::Duration::from_secs(1),
                                "probe {i}: not on every gateway within 1 s"
                            );
                            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                        }
                    }
                    probe_delays.lock().unwrap().push(sent_at.elapsed());
                    continue;
                }
                let day = first + chrono::Duration::days(rng.below(DAYS as u64) as i64);
                let update = match rng.below(4) {
                    0 => Update::Rooms(rng.below(4) as u32),
                    1 => Update::Closed(rng.below(3) == 0),
                    2 => Update::MinStay(1 + rng.below(3) as u32),
                    _ => Update::Rate(9_000 + rng.below(5_000) as i64),
                };
                let (path, xml) = update.message(at, day);
                let (status, _, body) = client.send_raw(path, xml, XML).await.unwrap();
                assert!(status == 200 && body.contains("<Success") && !body.contains("<Error"), "{body}");
                let warned = body.contains("already sold");
                if body.contains("later TimeStamp") {
                    older.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                sent.lock().unwrap().entry((update.key(), day)).or_default().push((at, update, warned));
            }
        }));
    }
    for s in senders {
        s.await.unwrap();
    }
    let elapsed = started.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut booked: std::collections::HashMap<NaiveDate, i64> = std::collections::HashMap::new();
    let mut attempts = 0;
    for b in bookers {
        let (nights, tried) = b.await.unwrap();
        attempts += tried;
        for n in nights {
            *booked.entry(n).or_default() += 1;
        }
    }

    // The newest stamp of every day won, wherever it arrived.
    let store = db.open().await;
    let sent = sent.lock().unwrap().clone();
    let newest = |key: &'static str, day: NaiveDate| {
        sent.get(&(key, day)).and_then(|all| all.iter().max_by_key(|(at, _, _)| *at)).cloned()
    };
    let mut checked = 0;
    for d in 0..DAYS {
        let day = first + chrono::Duration::days(d);
        let rows: Vec<(String, Option<i64>)> = store
            .read(move |c| {
                Box::pin(async move {
                    let mut out = Vec::new();
                    let r: Option<ota_gateway::store::Scalar<Option<i64>>> =
                        c.query_opt("SELECT rooms FROM supply_rooms WHERE hotel_code = 'HTL00105' AND room_code = 'RMDB000000' AND night = $1", &[&day]).await?;
                    out.push(("rooms".to_string(), r.and_then(|s| s.0)));
                    for kind in ["closed", "min_stay"] {
                        let r: Option<ota_gateway::store::Scalar<Option<i64>>> = c
                            .query_opt("SELECT value FROM supply_restriction WHERE hotel_code = 'HTL00042' AND room_code = 'RMSD000000' AND board_code = '' AND night = $1 AND kind = $2", &[&day, &kind])
                            .await?;
                        out.push((kind.to_string(), r.and_then(|s| s.0)));
                    }
                    let r: Option<ota_gateway::store::Scalar<rust_decimal::Decimal>> = c
                        .query_opt("SELECT amount FROM supply_rate WHERE hotel_code = 'HTL00042' AND room_code = 'RMTW000000' AND board_code = 'BB' AND night = $1", &[&day])
                        .await?;
                    out.push(("rate".to_string(), r.map(|s| i64::try_from((s.0 * rust_decimal::Decimal::from(100)).trunc().mantissa()).unwrap())));
                    let sold: Option<ota_gateway::store::Scalar<i64>> =
                        c.query_opt("SELECT rooms FROM hotel_rooms_sold WHERE hotel_code = 'HTL00105' AND room_code = 'RMDB000000' AND night = $1", &[&day]).await?;
                    out.push(("sold".to_string(), sold.map(|s| s.0)));
                    Ok::<_, ota_gateway::store::StoreError>(out)
                })
            })
            .await
            .unwrap();
        let stored = |k: &str| rows.iter().find(|(n, _)| n == k).and_then(|(_, v)| *v);
        let want = |key| newest(key, day).map(|(_, u, _)| u);
        assert_eq!(
            stored("rooms"),
            want("rooms").map(|u| if let Update::Rooms(n) = u { i64::from(n) } else { unreachable!() }),
            "rooms of {day}"
        );
        assert_eq!(
            stored("closed"),
            want("closed").map(|u| if let Update::Closed(c) = u { i64::from(c) } else { unreachable!() }),
            "closed on {day}"
        );
        assert_eq!(
            stored("min_stay"),
            want("min").map(|u| if let Update::MinStay(n) = u { i64::from(n) } else { unreachable!() }),
            "minimum stay of {day}"
        );
        assert_eq!(
            stored("rate"),
            want("rate").map(|u| if let Update::Rate(c) = u { c } else { unreachable!() }),
            "amount of {day}"
        );
        checked += 4;
        // Never oversold: the rooms sold are the bookings answered, above the count only where
        // the supplier's last count was below them.
        let sold = stored("sold").unwrap_or(0);
        assert_eq!(
            sold,
            booked.get(&day).copied().unwrap_or(0),
            "rooms sold of {day} are the bookings answered Success"
        );
        let on_sale = stored("rooms").unwrap_or(2);
        if sold > on_sale {
            assert!(
                newest("rooms", day).is_some_and(|(_, _, warned)| warned),
                "{day}: {sold} sold over {on_sale} on sale, and the count that set it did not warn"
            );
        }
    }
    let mut delays = probe_delays.lock().unwrap().clone();
    delays.sort();
    let pct = |p: usize| {
        delays.get((delays.len() * p / 100).min(delays.len().saturating_sub(1))).copied().unwrap_or_default()
    };
    let older = older.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "{b:?}: {total} updates on 3 gateways in {elapsed:.2?} ({:.0} updates/s), {older} arrived after a newer one of their day (not applied, warned); {} bookings of {attempts} Commits; {checked} day values checked; visible on all 3 gateways: p50 {:?}, p99 {:?}, max {:?} ({} probes)",
        total as f64 / elapsed.as_secs_f64(),
        booked.values().sum::<i64>(),
        pct(50),
        pct(99),
        delays.last().copied().unwrap_or_default(),
        delays.len()
    );
}

/// CPU of a process so far (user + system), from `/proc/PID/stat` (clock ticks of 10 ms).
fn cpu_of(pid: u32) -> std::time::Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    std::time::Duration::from_millis(ticks * 10)
}

/// With 5,000 hotels, a notification costs each gateway what it changed, never a reload of the
/// content: the CPU of a gateway over 20 notifications of one hotel (each read by its refresh
/// before the next), less what it spends idle as long, against one reload of the whole content
/// (an empty import).
pub(crate) async fn a_notification_costs_each_gateway_what_it_changes(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let demo: serde_json::Value = serde_json::from_str(include_str!("../../demo/hotels.json")).unwrap();
    let template = demo["hotels"].as_array().unwrap().iter().find(|h| h["code"] == HOTEL).unwrap().clone();
    let hotels: Vec<serde_json::Value> = (0..5_000)
        .map(|i| {
            let mut h = template.clone();
            h["code"] = serde_json::Value::String(format!("BIG{i:05}"));
            h["name"] = serde_json::Value::String(format!("Hotel {i}"));
            h
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    std::fs::write(&file, serde_json::json!({ "hotels": { "hotels": hotels } }).to_string()).unwrap();
    let gw = GatewayProcess::start(&arg, &[]).await;
    let (code, out, err) = cli(&["import", "--db", &arg, file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}{err}");
    let day = support::day(70);
    let client = gw.client();
    within_a_second("the import", || async { !offers(&gw, day, day.succ_opt().unwrap(), 1).await.is_empty() }).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;

    // One reload of the whole content.
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    let before = cpu_of(gw.pid());
    let (code, out, err) = cli(&["import", "--db", &arg, empty.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}{err}");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let reload = cpu_of(gw.pid()) - before;

    // 20 notifications, each read by the gateway's refresh before the next (250 ms apart).
    let before = cpu_of(gw.pid());
    for i in 0..20i64 {
        let cents = 7_000 + i;
        let amount = format!("{}.{:02}", cents / 100, cents % 100);
        let body = post(&gw, "/hotelrateamountnotif", rate_notif(100 + i, (day, day), &[(None, &amount)])).await;
        assert!(success_without_warnings(&body), "{body}");
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    let notifications = cpu_of(gw.pid()) - before;
    assert_eq!(
        offers_of(&client, (HOTEL, ROOM, "BB"), (day, day.succ_opt().unwrap()), 1).await,
        vec!["70.19"],
        "the last amount is served"
    );
    // The same time without notifications: what the gateway spends anyway (its polls).
    let before = cpu_of(gw.pid());
    tokio::time::sleep(std::time::Duration::from_millis(300 * 20)).await;
    let idle = cpu_of(gw.pid()) - before;
    let per = notifications.saturating_sub(idle) / 20;
    println!(
        "{b:?}, 5,000 hotels: a reload of the content costs the gateway {reload:?} of CPU; a notification {per:?} ({notifications:?} for 20 in 6 s, {idle:?} idle in as long)"
    );
    assert!(per * 10 < reload, "a notification costs {per:?}, a tenth of a reload ({reload:?}) at most");
}

/// The supply values of nights long past are deleted from the store by every gateway (at start
/// and every hour), in batches; the values of nights to come are kept.
pub(crate) async fn values_of_past_nights_are_deleted(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    let past = support::day(-60);
    let nights = |first: NaiveDate, n: u64| (first, first + chrono::Days::new(n - 1));
    // A stay long past (7,000 nights, over a batch of each table) and one to come.
    for (at, span) in [(1, nights(past - chrono::Days::new(7_000), 7_000)), (2, nights(support::day(30), 3))] {
        let body = post(&gw, "/hotelinvcountnotif", inv_count(SUPPLIER, HOTEL, at, span, 1, "Allocation")).await;
        assert!(success_without_warnings(&body), "{body}");
        let body = post(
            &gw,
            "/hotelavailnotif",
            avail_notif(at, span, None, r#"<RestrictionStatus Restriction="Master" Status="Open"/>"#),
        )
        .await;
        assert!(success_without_warnings(&body), "{body}");
        let body = post(&gw, "/hotelrateamountnotif", rate_notif(at, span, &[(None, "70.00")])).await;
        assert!(success_without_warnings(&body), "{body}");
    }
    let store = db.open().await;
    let counts = || async {
        let mut out = Vec::new();
        for table in ["supply_rooms", "supply_restriction", "supply_rate"] {
            let sql = format!("SELECT count(*) FROM {table}");
            let ota_gateway::store::Scalar(n): ota_gateway::store::Scalar<i64> =
                store.read(move |c| Box::pin(async move { c.query_one(&sql, &[]).await })).await.unwrap();
            out.push(n);
        }
        out
    };
    assert_eq!(counts().await, [7_003, 7_003, 7_003]);
    let deleted = ota_gateway::hotels::purge_past_supply(&store, chrono::Utc::now()).await.unwrap();
    assert_eq!(deleted, 7_000, "the most one table lost, batch after batch");
    assert_eq!(counts().await, [3, 3, 3], "the nights to come are kept");
    assert_eq!(ota_gateway::hotels::purge_past_supply(&store, chrono::Utc::now()).await.unwrap(), 0);
    // What is kept still sells as the supplier said.
    within_a_second("the supplier's amount", || async {
        offers(&gw, support::day(31), support::day(32), 1).await == ["70.00"]
    })
    .await;
}

/// Issue 28, M3: what a supplier may set is bounded by its hotel: its currencies, its room
/// types' occupancy, and the selling horizon (days past it are left out with a warning, so a
/// range to 9999 neither fills the database nor is refused whole).
async fn a_suppliers_values_are_bounded_by_its_hotel(b: Backend) {
    let server = support::TestServer::start(b).await;
    let send = |xml: String| {
        let client = server.client();
        async move {
            let (status, _, body) = client.send_raw("/hotelrateamountnotif", xml, XML).await.unwrap();
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    let d1 = support::day(30);
    let usd =
        send(rate_notif(1, (d1, d1), &[(None, "70.00")]).replace(r#"CurrencyCode="EUR""#, r#"CurrencyCode="USD""#))
            .await;
    assert!(
        usd.contains(r#"Code="61""#) && usd.contains("@CurrencyCode") && usd.contains("it sells in EUR"),
        "another currency than the hotel's: {usd}"
    );
    let crowd = send(rate_notif(2, (d1, d1), &[(Some(9), "70.00")])).await;
    assert!(crowd.contains("<Error") && crowd.contains("@NumberOfGuests"), "9 guests in a double: {crowd}");
    let far = "9999-12-31".parse().unwrap();
    let horizon = send(rate_notif(3, (d1, far), &[(None, "71.00")])).await;
    assert!(
        horizon.contains("<Success") && horizon.contains("past the selling horizon") && !horizon.contains("<Error"),
        "a range to 9999: {horizon}"
    );
    let client = server.client();
    // Applied up to the horizon (the in-process server sees the store's changes when asked).
    server.state.content.refresh().await.unwrap();
    let next = d1.succ_opt().unwrap();
    assert_eq!(offers_of(&client, (HOTEL, ROOM, "BB"), (d1, next), 1).await, ["71.00"]);
}

/// Issue 32: one message of 750 nights × 10 room types × 4 rate plans (30,000 amounts, and a
/// later item setting two of them again) is applied whole: answered without a warning, the later
/// item's amounts win, every gateway serves them; an older message over part of it is kept out
/// and its answer says how many days of which item.
pub(crate) async fn a_big_message_is_applied_whole(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, &[]).await;
    let plans = ["P0", "P1", "P2", "P3"];
    let rooms: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"code": "RM{i}", "units": 5, "texts": {{"en": {{"name": "Room {i}"}}}}}}"#))
        .collect();
    let nightly: Vec<String> = plans.iter().map(|p| format!(r#""{p}": "80.00""#)).collect();
    let rates: Vec<String> = (0..10)
        .map(|i| {
            format!(
                r#"{{"room": "RM{i}", "currency": "EUR", "from": "2026-01-01", "to": "2039-12-31", "nightly": {{{}}}}}"#,
                nightly.join(", ")
            )
        })
        .collect();
    let boards: Vec<String> = plans.iter().map(|p| format!(r#"{{"code": "{p}", "name": "Plan {p}"}}"#)).collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    std::fs::write(
        &file,
        format!(
            r#"{{"hotels": {{"boards": [{}], "hotels": [{{"code": "BIG0001", "name": "Big hotel", "region": "Big", "last_modified": "2026-01-01", "texts": {{"en": {{"description": "x"}}}}, "rooms": [{}], "rates": [{}]}}]}},
                "requestors": [{{"id": "CM9", "id_context": "CM9-CTX", "name": "CM9", "password": "pw-CM9", "supplier": true, "hotels": ["BIG0001"]}}]}}"#,
            boards.join(", "),
            rooms.join(", "),
            rates.join(", ")
        ),
    )
    .unwrap();
    let (code, out, err) = cli(&["import", "--db", &arg, file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}{err}");
    let (first, last) = (support::day(10), support::day(759));
    let client = gw.client();
    within_a_second("the import", || async {
        let xml = avail_xml("BIG0001", first, first + chrono::Days::new(1), 1);
        client.send_raw("/hotelavailability", xml, XML).await.unwrap().2.contains("<Success")
    })
    .await;
    let item = |room: usize, plan: &str, (start, end): (NaiveDate, NaiveDate), amount: &str| {
        format!(
            r#"<RateAmountMessage><StatusApplicationControl Start="{start}" End="{end}" InvTypeCode="RM{room}" RatePlanCode="{plan}"/><Rates><Rate CurrencyCode="EUR"><BaseByGuestAmts><BaseByGuestAmt AmountAfterTax="{amount}"/></BaseByGuestAmts></Rate></Rates></RateAmountMessage>"#
        )
    };
    let message = |at: i64, items: String| {
        format!(
            r#"<OTA_HotelRateAmountNotifRQ xmlns="{NS}" Version="2016.1" TimeStamp="{}">{}<RateAmountMessages HotelCode="BIG0001">{items}</RateAmountMessages></OTA_HotelRateAmountNotifRQ>"#,
            stamp(at),
            pos(("CM9", "CM9-CTX", "pw-CM9"))
        )
    };
    let mut items: String = (0..10)
        .flat_map(|room| plans.iter().enumerate().map(move |(p, plan)| (room, p, *plan)))
        .map(|(room, p, plan)| item(room, plan, (first, last), &format!("{}.00", 100 + room * 10 + p)))
        .collect();
    let twice = (support::day(20), support::day(21));
    items += &item(0, "P0", twice, "199.00");
    let started = std::time::Instant::now();
    let body = post(&gw, "/hotelrateamountnotif", message(10, items)).await;
    println!("{b:?}: 30,002 amounts in one message applied in {:?} (debug build)", started.elapsed());
    assert!(success_without_warnings(&body), "{body}");
    // 30,000 values in a debug build with other suites running: the 1 s bound is the load
    // test's (release), this only waits for them.
    within("the big message", std::time::Duration::from_secs(10), || async {
        offers_of(&client, ("BIG0001", "RM0", "P0"), (twice.0, twice.1 + chrono::Days::new(1)), 1).await == ["398.00"]
            && offers_of(&client, ("BIG0001", "RM9", "P3"), (last, last + chrono::Days::new(1)), 1).await == ["193.00"]
            && offers_of(&client, ("BIG0001", "RM4", "P2"), (first, first + chrono::Days::new(1)), 1).await
                == ["142.00"]
    })
    .await;

    // An older message over one room type and plan: kept out, said.
    let body = post(&gw, "/hotelrateamountnotif", message(5, item(5, "P1", (first, last), "1.00"))).await;
    assert!(body.contains("<Success") && body.contains("Not applied to 750 day(s) from"), "{body}");
    assert_eq!(
        offers_of(&client, ("BIG0001", "RM5", "P1"), (first, first + chrono::Days::new(1)), 1).await,
        ["151.00"],
        "the newer amount is kept"
    );
}

/// Notifications that arrive together (on PostgreSQL, applied in batches, those that only set
/// rooms on sale in one statement) get the answers and leave the state of the same
/// notifications applied one after the other: a count below the rooms sold warned, an older one
/// kept out and said, of two hotels, each value the newest.
pub(crate) async fn notifications_sent_together_get_the_answers_of_one_after_the_other(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    const OTHER: (&str, &str) = ("HTL00042", "RMSD000000");
    let night = |i: i64| support::day(40 + i);
    // One room of the first night sold; nights 1 to 8 of each hotel set by a newer message.
    let booked = post(&gw, "/hotelbook", book_xml("TOGETHER-1", night(0), night(1))).await;
    assert!(booked.contains("<Success"), "{booked}");
    for i in 1..=8 {
        for at in [(HOTEL, ROOM), OTHER] {
            let newer = inv_count_of(SUPPLIER, at, 10_000, (night(i), night(i)), 2, "Allocation");
            assert!(success_without_warnings(&post(&gw, "/hotelinvcountnotif", newer).await));
        }
    }
    // At once: per hotel, an older count for nights 1 to 8, one count of each of nights 9 to
    // 28 (some of two nights, with the rest), and for the first hotel none on its sold night.
    let mut sent: Vec<(String, &str)> =
        vec![(inv_count(SUPPLIER, HOTEL, 20_000, (night(0), night(0)), 0, "Allocation"), "below")];
    for at in [(HOTEL, ROOM), OTHER] {
        for i in 1..=8 {
            sent.push((inv_count_of(SUPPLIER, at, 5, (night(i), night(i)), 0, "Allocation"), "older"));
        }
        for i in (9..=28).step_by(2) {
            sent.push((inv_count_of(SUPPLIER, at, 20_000 + i, (night(i), night(i + 1)), 1, "Allocation"), "applied"));
        }
    }
    let answers =
        futures_util::future::join_all(sent.iter().map(|(xml, _)| post(&gw, "/hotelinvcountnotif", xml.clone()))).await;
    for ((_, what), body) in sent.iter().zip(&answers) {
        match *what {
            "below" => assert!(
                body.contains("<Success")
                    && body.contains(&format!("night of {}", night(0)))
                    && body.contains("already sold"),
                "{body}"
            ),
            "older" => assert!(body.contains("<Success") && body.contains("Not applied to 1 day(s) from"), "{body}"),
            _ => assert!(success_without_warnings(body), "{body}"),
        }
    }
    // What is stored is the newest of each night.
    let store = db.open().await;
    ota_gateway::store::row! { struct Stored { hotel_code: String, night: NaiveDate, rooms: Option<i64> } }
    let first = night(0);
    let rooms: Vec<(String, NaiveDate, Option<i64>)> = store
        .read(move |c| {
            Box::pin(async move {
                let rows: Vec<Stored> = c
                    .query("SELECT hotel_code, night, rooms FROM supply_rooms WHERE night >= $1 ORDER BY hotel_code, night", &[&first])
                    .await?;
                Ok::<_, ota_gateway::store::StoreError>(rows.into_iter().map(|r| (r.hotel_code, r.night, r.rooms)).collect())
            })
        })
        .await
        .unwrap();
    let mut want: Vec<(String, NaiveDate, Option<i64>)> = Vec::new();
    for hotel in [OTHER.0, HOTEL] {
        if hotel == HOTEL {
            want.push((hotel.to_string(), night(0), Some(0)));
        }
        want.extend((1..=8).map(|i| (hotel.to_string(), night(i), Some(2))));
        want.extend((9..=28).map(|i| (hotel.to_string(), night(i), Some(1))));
    }
    want.sort();
    assert_eq!(rooms, want);
}

backend_tests!(
    a_suppliers_values_are_bounded_by_its_hotel,
    values_of_past_nights_are_deleted,
    suppliers_own_hotels_and_call_only_the_supply_side,
    notifications_change_what_every_gateway_sells,
    sample_notifications_get_business_answers,
    a_channel_manager_pushes_while_partners_book,
    a_notification_costs_each_gateway_what_it_changes,
    a_big_message_is_applied_whole,
    notifications_sent_together_get_the_answers_of_one_after_the_other
);

/// PostgreSQL: a notification that fails in the database (here a trigger the test adds refuses
/// one night) fails alone: the notifications applied in the same batch are applied and answered
/// as if it had not been sent, and nothing of it is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_notification_that_fails_fails_alone() {
    let db = TestDb::new(Backend::Postgres).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    // Three waves of 40 notifications sent at once, the middle one of each refused: those that
    // arrive while the first batches run wait together, so the refused one is in a batch with
    // others (in nearly every run: a wave where it is alone shows nothing about its batch).
    let waves: Vec<Vec<NaiveDate>> = (0..3).map(|w| (0..40).map(|i| support::day(40 + 40 * w + i)).collect()).collect();
    let refused: Vec<NaiveDate> = waves.iter().map(|w| w[20]).collect();
    let (pg, conn) = tokio_postgres::connect(&db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
    let io = tokio::spawn(conn);
    let list = refused.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    pg.batch_execute(&format!(
        "CREATE FUNCTION refuse_night() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.night IN ({list}) THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
         CREATE TRIGGER refuse_night BEFORE INSERT OR UPDATE ON supply_rooms FOR EACH ROW EXECUTE FUNCTION refuse_night();"
    ))
    .await
    .unwrap();
    let client = gw.client();
    for nights in &waves {
        let answers = futures_util::future::join_all(nights.iter().map(|&night| {
            let xml = inv_count(SUPPLIER, HOTEL, 1, (night, night), 1, "Allocation");
            let client = client.clone();
            async move { client.send_raw("/hotelinvcountnotif", xml, XML).await.unwrap() }
        }))
        .await;
        for (night, (_, _, body)) in nights.iter().zip(&answers) {
            if refused.contains(night) {
                assert!(!body.contains("<Success") && body.contains("<Error"), "{body}");
            } else {
                assert!(success_without_warnings(body), "{night}: {body}");
            }
        }
    }
    let stored: Vec<NaiveDate> = pg
        .query("SELECT night FROM supply_rooms WHERE hotel_code = $1 AND rooms = 1 ORDER BY night", &[&HOTEL])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let applied: Vec<NaiveDate> = waves.into_iter().flatten().filter(|n| !refused.contains(n)).collect();
    assert_eq!(stored, applied);
    drop(pg);
    let _ = io.await;
}

/// PostgreSQL (issue 32): notifications of different hotels never wait for each other, and a
/// change that commits after a later one is still served by every gateway. Hotel A's
/// notification is held inside its transaction (its row is locked by the test after it began),
/// hotel B's is answered and served by a second gateway meanwhile; once A's commits, the second
/// gateway serves it too (its supply position never passes a transaction in flight).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_hotels_never_wait_for_each_other() {
    const B: (&str, &str) = ("HTL00042", "RMSD000000");
    let db = TestDb::new(Backend::Postgres).await;
    let arg = db.arg();
    let one = GatewayProcess::start(&arg, &[]).await;
    let two = GatewayProcess::start(&arg, &[]).await;
    let (night, next) = (support::day(40), support::day(41));
    // Neither hotel sells the night (A's row exists: the test locks it below).
    for xml in [
        inv_count(SUPPLIER, HOTEL, 1, (night, night), 0, "Allocation"),
        inv_count_of(SUPPLIER, B, 1, (night, night), 0, "Allocation"),
    ] {
        assert!(success_without_warnings(&post(&one, "/hotelinvcountnotif", xml).await));
    }
    let client = two.client();
    let b_offers = || async { offers_of(&client, (B.0, B.1, "BB"), (night, next), 1).await };
    within_a_second("no room on sale", || async {
        offers(&two, night, next, 1).await.is_empty() && b_offers().await.is_empty()
    })
    .await;

    // A's row locked by another transaction: A's notification waits inside its own.
    let (locker, conn) = tokio_postgres::connect(&db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
    let io = tokio::spawn(conn);
    locker
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM supply_rooms WHERE hotel_code = '{HOTEL}' AND room_code = '{ROOM}' AND night = '{night}' FOR UPDATE"
        ))
        .await
        .unwrap();
    let a = {
        let xml = inv_count(SUPPLIER, HOTEL, 2, (night, night), 2, "Allocation");
        let client = one.client();
        tokio::spawn(async move { client.send_raw("/hotelinvcountnotif", xml, XML).await.unwrap() })
    };
    let started = std::time::Instant::now();
    loop {
        let waiting: i64 = locker
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        if waiting > 0 {
            break;
        }
        if a.is_finished() {
            panic!("A's notification did not wait: {:?}", a.await.unwrap());
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "A's notification never reached its write");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // B's is answered while A's transaction is open, and served by the other gateway.
    let answered = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        post(&one, "/hotelinvcountnotif", inv_count_of(SUPPLIER, B, 2, (night, night), 3, "Allocation")),
    )
    .await
    .expect("hotel B's notification waited for hotel A's");
    assert!(success_without_warnings(&answered), "{answered}");
    within_a_second("B's change on the other gateway", || async { !b_offers().await.is_empty() }).await;
    assert!(!a.is_finished(), "A's notification is still held");
    assert!(offers(&two, night, next, 1).await.is_empty(), "A's change is not served before it commits");

    // A's commits after B's: served too.
    locker.batch_execute("ROLLBACK").await.unwrap();
    let (status, _, body) = a.await.unwrap();
    assert!(status == 200 && success_without_warnings(&body), "{body}");
    within_a_second("A's change, committed after B's, on the other gateway", || async {
        !offers(&two, night, next, 1).await.is_empty()
    })
    .await;
    drop(locker);
    let _ = io.await;
}
