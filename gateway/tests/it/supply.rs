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
    let line = out
        .lines()
        .find(|l| l.starts_with("SUP-DEMO "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("supplier") && line.contains("(hotels: HTL00042,HTL00077,HTL00105,HTL02001)"),
        "{line}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("DEMO ") && l.contains("distributor")),
        "{out}"
    );

    // A supplier calls only the supply operations: a demand operation is Type 6, Code 497.
    let (status, _, body) = gw
        .client()
        .send_raw("/hotelnbc", nbc(SUPPLIER), XML)
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#"Type="6""#) && body.contains(r#"Code="497""#) && body.contains("supplier"),
        "{body}"
    );
    assert!(!body.contains("HotelDescriptiveContent"), "{body}");

    // A hotel has one supplier, whether by command or by import.
    let (code, _, err) = run(
        &[
            "add",
            "CM2",
            "--context",
            "CM2-CTX",
            "--supplier",
            "--hotels",
            "HTL00042,HTL99999",
        ],
        "cm2-secret\n",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(r#"hotel "HTL00042" belongs to supplier "SUP-DEMO""#),
        "{err}"
    );
    let (code, out, err) = run(
        &[
            "add",
            "CM2",
            "--context",
            "CM2-CTX",
            "--supplier",
            "--hotels",
            "HTL99999",
        ],
        "cm2-secret\n",
    );
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run(
        &["add", "CM3", "--context", "X", "--hotels", "HTL1"],
        "pw\n",
    );
    assert_eq!(
        code, 2,
        "hotels without --supplier are a usage error: {err}"
    );
    let (code, _, err) = run(&["set", "CM2", "--hotels", "HTL00077"], "");
    assert_eq!(code, 1);
    assert!(
        err.contains(r#"hotel "HTL00077" belongs to supplier "SUP-DEMO""#),
        "{err}"
    );
    let (code, out, err) = run(
        &["set", "SUP-DEMO", "--hotels", "HTL00042,HTL00105,HTL02001"],
        "",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("supplies HTL00042, HTL00105, HTL02001"),
        "{out}"
    );
    let (code, out, err) = run(&["set", "CM2", "--hotels", "HTL00077,HTL99999"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(
        out.lines()
            .any(|l| l.starts_with("CM2 ") && l.contains("(hotels: HTL00077,HTL99999)")),
        "{out}"
    );
    let (code, out, err) = run(&["set", "CM2", "--distributor"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(
        out.lines()
            .any(|l| l.starts_with("CM2 ") && l.contains("distributor") && !l.contains("hotels:")),
        "{out}"
    );
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
    let (code, _, err) = import(&format!(
        r#"{{"requestors": [{}]}}"#,
        entry("CM4", r#""HTL00042""#)
    ));
    assert_eq!(code, 1);
    assert!(
        err.contains(r#"requestor "CM4""#) && err.contains(r#"belongs to supplier "SUP-DEMO""#),
        "{err}"
    );
    let (code, _, err) = import(&format!(
        r#"{{"requestors": [{}, {}]}}"#,
        entry("CM4", r#""H1""#),
        entry("CM5", r#""H1""#)
    ));
    assert_eq!(code, 1);
    assert!(err.contains("a hotel has one supplier"), "{err}");
    // Moving a hotel in one file: the old owner's entry first.
    let (code, out, err) = import(&format!(
        r#"{{"requestors": [{}, {}]}}"#,
        entry("SUP-DEMO", r#""HTL00105""#)
            .replace("pw-SUP-DEMO", SUPPLIER.2)
            .replace("SUP-DEMO-CTX", SUPPLIER.1),
        entry("CM4", r#""HTL00042""#)
    ));
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(
        out.lines()
            .any(|l| l.starts_with("CM4 ") && l.contains("(hotels: HTL00042)")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("SUP-DEMO ") && l.contains("(hotels: HTL00105)")),
        "{out}"
    );
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
    (chrono::DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z").unwrap()
        + chrono::Duration::milliseconds(n))
    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `OTA_HotelInvCountNotifRQ` setting the rooms on sale of [`ROOM`] from `start` to `end`
/// (included).
fn inv_count(
    who: (&str, &str, &str),
    hotel: &str,
    at: i64,
    (start, end): (NaiveDate, NaiveDate),
    count: i64,
    action: &str,
) -> String {
    format!(
        r#"<OTA_HotelInvCountNotifRQ xmlns="{NS}" Version="2016.1" TimeStamp="{}">{}<Inventories HotelCode="{hotel}"><Inventory><StatusApplicationControl Start="{start}" End="{end}" InvTypeCode="{ROOM}"/><InvCounts><InvCount CountType="2" Count="{count}" ActionType="{action}"/></InvCounts></Inventory></Inventories></OTA_HotelInvCountNotifRQ>"#,
        stamp(at),
        pos(who)
    )
}

/// `OTA_HotelAvailNotifRQ` with one `AvailStatusMessage` of [`ROOM`] (`inner`: its
/// restriction elements).
fn avail_notif(
    at: i64,
    (start, end): (NaiveDate, NaiveDate),
    plan: Option<&str>,
    inner: &str,
) -> String {
    let plan = plan
        .map(|p| format!(r#" RatePlanCode="{p}""#))
        .unwrap_or_default();
    format!(
        r#"<OTA_HotelAvailNotifRQ xmlns="{NS}" Version="2016.1" TimeStamp="{}">{}<AvailStatusMessages HotelCode="{HOTEL}"><AvailStatusMessage><StatusApplicationControl Start="{start}" End="{end}" InvTypeCode="{ROOM}"{plan}/>{inner}</AvailStatusMessage></AvailStatusMessages></OTA_HotelAvailNotifRQ>"#,
        stamp(at),
        pos(SUPPLIER)
    )
}

/// `OTA_HotelRateAmountNotifRQ` with the nightly amounts of [`ROOM`] with board BB in EUR
/// (`amounts`: number of guests, or none for any, and the amount).
fn rate_notif(
    at: i64,
    (start, end): (NaiveDate, NaiveDate),
    amounts: &[(Option<u32>, &str)],
) -> String {
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

fn avail_xml(start: NaiveDate, end: NaiveDate, adults: u32) -> String {
    format!(
        r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1">{}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode="{HOTEL}"/></Criterion></HotelSearchCriteria><StayDateRange Start="{start}" End="{end}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="{adults}"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#,
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

/// The offers of [`ROOM`] with board BB for the stay: their totals.
async fn offers(gw: &GatewayProcess, start: NaiveDate, end: NaiveDate, adults: u32) -> Vec<String> {
    let body = post(gw, "/hotelavailability", avail_xml(start, end, adults)).await;
    assert!(body.contains("<Success"), "{body}");
    let doc = roxmltree::Document::parse(&body).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("RoomStay"))
        .filter(|rs| {
            rs.descendants()
                .any(|n| n.has_tag_name("RoomType") && n.attribute("RoomTypeCode") == Some(ROOM))
        })
        .filter(|rs| {
            rs.descendants()
                .any(|n| n.has_tag_name("Text") && n.text() == Some("BB"))
        })
        .filter_map(|rs| {
            rs.children()
                .find(|n| n.has_tag_name("Total"))
                .and_then(|t| t.attribute("AmountAfterTax"))
                .map(str::to_string)
        })
        .collect()
}

/// Waits (up to 1 s: the issue's bound) until `check` holds on the gateway.
async fn within_a_second<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = std::time::Instant::now();
    while !check().await {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(1),
            "{what}: not visible within 1 s"
        );
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
    let (a, other) = (
        GatewayProcess::start(&arg, &[]).await,
        GatewayProcess::start(&arg, &[]).await,
    );
    let (d1, d2, d3) = (support::day(30), support::day(31), support::day(32));
    assert_eq!(
        offers(&other, d1, d2, 1).await,
        vec!["64.50"],
        "the content's rate"
    );

    // Rooms on sale: none, then two again.
    let body = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(SUPPLIER, HOTEL, 1, (d1, d1), 0, "Allocation"),
    )
    .await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("no rooms", || async {
        offers(&other, d1, d2, 1).await.is_empty()
    })
    .await;
    assert!(
        offers(&other, d2, d3, 1).await.len() == 1,
        "the next night is untouched"
    );
    let body = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(SUPPLIER, HOTEL, 2, (d1, d1), 2, "Allocation"),
    )
    .await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("two rooms", || async {
        offers(&other, d1, d2, 1).await.len() == 1
    })
    .await;

    // A repeat changes nothing and gets the same answer; an older one never wins and says so.
    let again = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(SUPPLIER, HOTEL, 2, (d1, d1), 2, "Allocation"),
    )
    .await;
    assert!(success_without_warnings(&again), "{again}");
    let older = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(SUPPLIER, HOTEL, 1, (d1, d1), 0, "Allocation"),
    )
    .await;
    assert!(
        older.contains("<Success") && older.contains("later TimeStamp"),
        "{older}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(
        offers(&other, d1, d2, 1).await.len(),
        1,
        "the older count did not win"
    );
    // An adjustment, repeated: applied once.
    let adjust = inv_count(SUPPLIER, HOTEL, 3, (d1, d1), -1, "Adjustment");
    assert!(success_without_warnings(
        &post(&a, "/hotelinvcountnotif", adjust.clone()).await
    ));
    assert!(
        success_without_warnings(&post(&a, "/hotelinvcountnotif", adjust).await),
        "a repeat gets the same answer"
    );
    // One room left on d1: one booking takes it, the next is refused.
    let first = post(&other, "/hotelbook", book_xml("SUP-1", d1, d2)).await;
    assert!(first.contains("<Success"), "{first}");
    let second = post(&a, "/hotelbook", book_xml("SUP-2", d1, d2)).await;
    assert!(
        second.contains("<Error") && !second.contains("<Success"),
        "the adjusted count is the limit: {second}"
    );
    // A count below the rooms sold: applied, with a warning naming the night.
    let below = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(SUPPLIER, HOTEL, 4, (d1, d1), 0, "Allocation"),
    )
    .await;
    assert!(
        below.contains("<Success")
            && below.contains(&format!("night of {d1}"))
            && below.contains("already sold"),
        "{below}"
    );
    // Remaining rooms: the count is what is left to sell, over the rooms sold.
    let remaining = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(SUPPLIER, HOTEL, 5, (d1, d1), 1, "Remaining"),
    )
    .await;
    assert!(success_without_warnings(&remaining), "{remaining}");
    within_a_second("one room remaining", || async {
        offers(&other, d1, d2, 1).await.len() == 1
    })
    .await;

    // Restrictions: closed, closed to arrival, minimum stay; for one plan or every one.
    let (e1, e2, e3, e4) = (
        support::day(40),
        support::day(41),
        support::day(42),
        support::day(43),
    );
    let body = post(
        &a,
        "/hotelavailnotif",
        avail_notif(
            10,
            (e2, e2),
            None,
            r#"<RestrictionStatus Restriction="Master" Status="Close"/>"#,
        ),
    )
    .await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("closed", || async {
        offers(&other, e1, e3, 1).await.is_empty()
    })
    .await;
    assert_eq!(
        offers(&other, e1, e2, 1).await.len(),
        1,
        "a stay leaving that day is sold"
    );
    let refused = post(&other, "/hotelbook", book_xml("SUP-3", e1, e3)).await;
    assert!(
        refused.contains("<Error") && refused.contains("closed"),
        "{refused}"
    );
    post(
        &a,
        "/hotelavailnotif",
        avail_notif(
            11,
            (e2, e2),
            Some("BB"),
            r#"<RestrictionStatus Restriction="Master" Status="Open"/>"#,
        ),
    )
    .await;
    within_a_second("opened for BB", || async {
        offers(&other, e1, e3, 1).await.len() == 1
    })
    .await;
    post(
        &a,
        "/hotelavailnotif",
        avail_notif(
            12,
            (e1, e1),
            None,
            r#"<RestrictionStatus Restriction="Arrival" Status="Close"/>"#,
        ),
    )
    .await;
    within_a_second("closed to arrival", || async {
        offers(&other, e1, e2, 1).await.is_empty()
    })
    .await;
    post(&a, "/hotelavailnotif", avail_notif(13, (e1, e1), None, r#"<RestrictionStatus Restriction="Arrival" Status="Open"/><LengthsOfStay><LengthOfStay Time="3" TimeUnit="Day" MinMaxMessageType="SetMinLOS"/></LengthsOfStay>"#)).await;
    within_a_second("minimum stay", || async {
        offers(&other, e1, e3, 1).await.is_empty() && offers(&other, e1, e4, 1).await.len() == 1
    })
    .await;

    // Amounts: per number of guests, else for any number.
    let (f1, f3) = (support::day(50), support::day(52));
    let body = post(
        &a,
        "/hotelrateamountnotif",
        rate_notif(
            20,
            (f1, support::day(51)),
            &[(None, "100.00"), (Some(1), "80.00")],
        ),
    )
    .await;
    assert!(success_without_warnings(&body), "{body}");
    within_a_second("new amounts", || async {
        offers(&other, f1, f3, 1).await == vec!["160.00"]
    })
    .await;
    assert_eq!(
        offers(&other, f1, f3, 2).await,
        vec!["200.00"],
        "two guests: the amount for any number"
    );
    assert_eq!(
        offers(&other, f1, support::day(53), 1).await,
        vec!["224.50"],
        "the third night at the content's rate"
    );

    // All or nothing: an unknown room type refuses the whole message, naming it.
    let mixed = inv_count(SUPPLIER, HOTEL, 30, (d3, d3), 0, "Allocation").replace("</Inventories>", r#"<Inventory><StatusApplicationControl Start="2030-01-01" End="2030-01-01" InvTypeCode="NOSUCHROOM"/><InvCounts><InvCount Count="1"/></InvCounts></Inventory></Inventories>"#);
    let body = post(&a, "/hotelinvcountnotif", mixed).await;
    assert!(
        body.contains("<Error") && body.contains("NOSUCHROOM") && body.contains("Inventory[2]"),
        "{body}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(
        offers(&other, d3, support::day(33), 1).await.len(),
        1,
        "the first item was not applied either"
    );

    // Who may send what: a partner never; a supplier only for its hotels, another's answered as
    // one that does not exist.
    let partner = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(support::DEMO, HOTEL, 40, (d3, d3), 0, "Allocation"),
    )
    .await;
    assert!(
        partner.contains(r#"Type="6""#) && partner.contains(r#"Code="497""#),
        "{partner}"
    );
    let (code, out, err) = cli(
        &[
            "requestor",
            "add",
            "CM2",
            "--context",
            "CM2-CTX",
            "--supplier",
            "--hotels",
            "HTL99999",
            "--db",
            &arg,
        ],
        "cm2-secret\n",
    );
    assert_eq!(code, 0, "{out}{err}");
    let cm2 = ("CM2", "CM2-CTX", "cm2-secret");
    within_a_second("the new supplier", || async {
        !post(
            &a,
            "/hotelinvcountnotif",
            inv_count(cm2, HOTEL, 41, (d3, d3), 0, "Allocation"),
        )
        .await
        .contains(r#"Type="4""#)
    })
    .await;
    let anothers = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(cm2, HOTEL, 41, (d3, d3), 0, "Allocation"),
    )
    .await;
    let missing = post(
        &a,
        "/hotelinvcountnotif",
        inv_count(cm2, "HTLNOPE", 41, (d3, d3), 0, "Allocation"),
    )
    .await;
    let text = |body: &str| {
        body.split("<Error ")
            .nth(1)
            .map(|e| e.replace(HOTEL, "X").replace("HTLNOPE", "X"))
    };
    assert!(anothers.contains("<Error"), "{anothers}");
    assert_eq!(
        text(&anothers),
        text(&missing),
        "another's hotel is answered as one that does not exist"
    );
    assert_eq!(
        offers(&other, d3, support::day(33), 1).await.len(),
        1,
        "nothing applied"
    );
}

/// The spec's full samples of the notifications are applied (Success, warnings naming what is
/// not kept); OpenTravel's own sample notifications get Success or a business answer naming
/// what the gateway does not keep, never a schema or system error.
pub(crate) async fn sample_notifications_get_business_answers(b: Backend) {
    let server = support::TestServer::start(b).await;
    for name in [
        "hotel_inv_count_notif",
        "hotel_avail_notif",
        "hotel_rate_amount_notif",
    ] {
        let xml = support::raw_sample(name);
        let root = roxmltree::Document::parse(&xml)
            .unwrap()
            .root_element()
            .tag_name()
            .name()
            .to_string();
        let path = ota_messages::OPERATIONS
            .iter()
            .find(|o| o.request_root == root)
            .unwrap()
            .path;
        let (status, _, body) = server.client().send_raw(path, xml, XML).await.unwrap();
        assert_eq!(status, 200, "{name}: {body}");
        assert!(
            body.contains("<Success") && !body.contains("<Error"),
            "{name}: {body}"
        );
    }
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/opentravel-samples");
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
        let root = roxmltree::Document::parse(&xml)
            .unwrap()
            .root_element()
            .tag_name()
            .name()
            .to_string();
        let path = ota_messages::OPERATIONS
            .iter()
            .find(|o| o.request_root == root)
            .unwrap()
            .path;
        let (status, _, body) = server.client().send_raw(path, xml, XML).await.unwrap();
        assert_eq!(status, 200, "{name}: {body}");
        let types: Vec<&str> = body
            .split("<Error ")
            .skip(1)
            .filter_map(|e| e.split('"').nth(1))
            .collect();
        assert!(
            types.iter().all(|t| matches!(*t, "2" | "3")),
            "{name}: only business answers: {body}"
        );
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
                    .map(|e| {
                        e.split('>')
                            .nth(1)
                            .unwrap_or("")
                            .split('<')
                            .next()
                            .unwrap_or("")
                            .to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
            }
        );
    }
    println!(
        "{applied} of {} official sample notifications applied",
        files.len()
    );
}

backend_tests!(
    suppliers_own_hotels_and_call_only_the_supply_side,
    notifications_change_what_every_gateway_sells,
    sample_notifications_get_business_answers
);
