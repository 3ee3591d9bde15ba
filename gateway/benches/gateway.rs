//! The gateway's in-process request path, per operation: the full router (request id, logs
//! off, transport checks, decoding, version and POS checks with the verification cache warm,
//! the operation against the content in memory and the seeded demo database, encoding) through
//! `tower::ServiceExt::oneshot`, next to a baseline route that answers a fixed body through the
//! same machinery. The requests are the spec's samples with the demo credentials and dates
//! moved into the coming weeks, so each takes its success path.
//!
//! `cargo bench -p ota-gateway --bench gateway` (SQLite); with `BENCH_DATABASE_URL=postgres://…`
//! (an empty database) on PostgreSQL. The allocator is the binary's (mimalloc).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::routing::post;
use criterion::{Criterion, criterion_group, criterion_main};
use ota_gateway::{AppState, Config, Location, Store};
use tower::ServiceExt;

#[path = "support/database.rs"]
mod database;

/// The allocator of the `ota-gateway` binary, so that the path is measured as it runs there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const POS: &str = r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#;
const NS: &str = "http://www.opentravel.org/OTA/2003/05";

fn day(n: i64) -> chrono::NaiveDate {
    chrono::Utc::now().date_naive() + chrono::Duration::days(n)
}

/// One request per read-only operation, each answered with Success by the demo content.
fn requests() -> Vec<(&'static str, &'static str, String)> {
    let (d3, d5, d10, d20, d24) = (day(3), day(5), day(10), day(20), day(24));
    vec![
        (
            "activitysearch",
            "/activitysearch",
            format!(
                r#"<OTA_TourActivitySearchRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en">{POS}<SearchCriteria><DateTimePref Start="{d3}" End="{d10}"/><LocationPref Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></LocationPref></SearchCriteria></OTA_TourActivitySearchRQ>"#
            ),
        ),
        (
            "activityavailability",
            "/activityavailability",
            format!(
                r#"<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en">{POS}<TourActivity><BasicInfo/><Location Context="Service"><Region RegionCode="Product">LESPMIBKUI</Region></Location><Schedule StartPeriod="{d3}" EndPeriod="{d5}"/><ParticipantCount Quantity="2"><QualifierInfo>10</QualifierInfo></ParticipantCount><ParticipantCount Quantity="1"><QualifierInfo>8</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#
            ),
        ),
        (
            "activityavailability, 4 activities (17 offers, 19 KB)",
            "/activityavailability",
            format!(
                r#"<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en">{POS}<TourActivity><BasicInfo/><Location Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></Location><Location Context="Service"><Region RegionCode="Product">LESPMIBKUI</Region></Location><Schedule StartPeriod="{d3}" EndPeriod="{d5}"/><ParticipantCount Quantity="2"><QualifierInfo>10</QualifierInfo></ParticipantCount><ParticipantCount Quantity="1"><QualifierInfo>8</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#
            ),
        ),
        (
            "activitynbc",
            "/activitynbc",
            format!(
                r#"<OTA_ProductDescriptiveInfoRQ xmlns="{NS}" Version="2016.2" PrimaryLangID="es">{POS}<ProductDescriptiveInfos><TourActivityDescriptiveInfo TourActivityID="LESPMIBKUI"/></ProductDescriptiveInfos></OTA_ProductDescriptiveInfoRQ>"#
            ),
        ),
        (
            "activitybook Quote",
            "/activitybook",
            format!(
                r#"<OTA_TourActivityBookRQ xmlns="{NS}" Version="2011.2" ResStatus="Quote">{POS}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>Ana</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="41" ParticipantID="2"><GivenName>Luis</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><Schedule Start="{d5}T10:00:00" End="{d5}T11:15:00"/></BookingInfo></OTA_TourActivityBookRQ>"#
            ),
        ),
        (
            "hotelnbc",
            "/hotelnbc",
            format!(
                r#"<OTA_HotelDescriptiveInfoRQ xmlns="{NS}" Version="2009.1" PrimaryLangID="en">{POS}<HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
            ),
        ),
        (
            "hotelavailability, one hotel, one room (11 offers, 11 KB)",
            "/hotelavailability",
            format!(
                r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en">{POS}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode="HTL00042"/></Criterion></HotelSearchCriteria><StayDateRange Start="{d20}" End="{d24}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#
            ),
        ),
        (
            "hotelbook Quote",
            "/hotelbook",
            format!(
                r#"<OTA_HotelResRQ xmlns="{NS}" Version="2008.1" ResStatus="Quote">{POS}<HotelReservations><HotelReservation><RoomStays><RoomStay><RoomTypes><RoomType RoomTypeCode="RMSD000000"/></RoomTypes><RoomRates><RoomRate><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{d20}" End="{d24}"/><BasicPropertyInfo HotelCode="HTL00042"/><ResGuestRPHs><ResGuestRPH RPH="1"/><ResGuestRPH RPH="2"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"/><ResGuest ResGuestRPH="2" AgeQualifyingCode="10"/></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="BENCH-1" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#
            ),
        ),
        (
            "bookread",
            "/bookread",
            format!(
                r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en" ReturnListIndicator="false">{POS}<UniqueID Type="36" ID="DEMO-2030-0001" ID_Context="Client"/></OTA_ReadRQ>"#
            ),
        ),
    ]
}

fn request(path: &str, body: &str) -> Request<Body> {
    Request::post(path).header(header::CONTENT_TYPE, "application/xml").body(Body::from(body.to_string())).unwrap()
}

async fn call(app: &Router, path: &str, body: &str) -> (StatusCode, axum::body::Bytes) {
    let res = app.clone().oneshot(request(path, body)).await.unwrap();
    let status = res.status();
    (status, axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    // The database pool is dropped at the end, inside the runtime's context.
    let _context = rt.enter();
    let dir = tempfile::tempdir().unwrap();
    let location = database::location(dir.path());
    let state = rt.block_on(async {
        let store = Store::open(&location).await.unwrap();
        ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
        AppState::new(store, Config { db: location.clone(), ..Config::default() }).await.unwrap()
    });
    let app = ota_gateway::router(state.clone());
    let baseline = Router::new().route(
        "/fixed",
        post(|| async {
            ([(header::CONTENT_TYPE, "application/xml")], "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Fixed/>")
        }),
    );

    let mut group = c.benchmark_group("request");
    group.sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    group.bench_function("baseline fixed body", |b| {
        b.iter(|| black_box(rt.block_on(call(&baseline, "/fixed", "<x/>"))))
    });
    group.bench_function("healthz (a write at most once a second)", |b| {
        b.iter(|| {
            black_box(rt.block_on(async {
                let res = app.clone().oneshot(Request::get("/healthz").body(Body::empty()).unwrap()).await.unwrap();
                axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap()
            }))
        })
    });
    for (name, path, xml) in requests() {
        // Warm the verification cache, and check the request takes its success path.
        let (status, body) = rt.block_on(call(&app, path, &xml));
        let body = String::from_utf8_lossy(&body);
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        assert!(body.contains("<Success/>"), "{name}: not a success: {body}");
        group.bench_function(name, |b| b.iter(|| black_box(rt.block_on(call(&app, path, &xml)))));
    }
    group.finish();
    gzip(c, &rt);
    supply(c, &rt, &state, &app);
}

/// Answers with and without gzip (`Accept-Encoding: gzip`; the gateway compresses at the fastest
/// level): the region availability (38 offers, 36 KB) and the static content of 5,000 hotels
/// of one brand (imported for it). Prints each answer's size both ways.
fn gzip(c: &mut Criterion, rt: &tokio::runtime::Runtime) {
    let demo: serde_json::Value = serde_json::from_str(include_str!("../demo/hotels.json")).unwrap();
    let template = demo["hotels"][0].clone();
    let hotels: Vec<serde_json::Value> = (0..5_000)
        .map(|i| {
            let mut h = template.clone();
            h["code"] = serde_json::Value::String(format!("BIG{i:05}"));
            h["brand"] = serde_json::Value::String("BIGBRAND".into());
            // Not in the demo's region: its availability stays the demo's.
            h["region"] = serde_json::Value::String("Bigland".into());
            h
        })
        .collect();
    let file: ota_gateway::import::ImportFile =
        ota_gateway::import::parse("bench", &serde_json::json!({ "hotels": { "hotels": hotels } }).to_string())
            .unwrap();
    let (d20, d24) = (day(20), day(24));
    let answers = [
        (
            "region availability",
            "/hotelavailability",
            format!(
                r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en">{POS}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><RefPoint CodeContext="Region">Mallorca</RefPoint></Criterion></HotelSearchCriteria><StayDateRange Start="{d20}" End="{d24}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/><GuestCount AgeQualifyingCode="8" Age="9" Count="1"/></GuestCounts></RoomStayCandidate><RoomStayCandidate RPH="2"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="1"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#
            ),
        ),
        (
            "hotel NBC of a brand of 5,000 hotels",
            "/hotelnbc",
            format!(
                r#"<OTA_HotelDescriptiveInfoRQ xmlns="{NS}" Version="2009.1" PrimaryLangID="en">{POS}<HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="*" BrandCode="BIGBRAND"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
            ),
        ),
    ];
    // A state of its own: the import and the reload happen before anything is measured.
    let app = rt.block_on(async {
        let dir = tempfile::tempdir().unwrap().keep();
        let location = Location::Sqlite(dir.join("gzip.db"));
        let store = Store::open(&location).await.unwrap();
        ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
        ota_gateway::import::import(&store, file).await.unwrap();
        ota_gateway::router(AppState::new(store, Config { db: location, ..Config::default() }).await.unwrap())
    });
    let send = |path: &str, body: &str, gzip: bool| {
        let mut rq = request(path, body);
        if gzip {
            rq.headers_mut().insert(header::ACCEPT_ENCODING, "gzip".parse().unwrap());
        }
        let app = app.clone();
        async move {
            let res = app.oneshot(rq).await.unwrap();
            axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap()
        }
    };
    let mut group = c.benchmark_group("gzip");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for (name, path, xml) in &answers {
        let plain = rt.block_on(send(path, xml, false));
        let zipped = rt.block_on(send(path, xml, true));
        assert!(
            String::from_utf8_lossy(&plain).contains("<Success/>"),
            "{name}: {}",
            String::from_utf8_lossy(&plain[..plain.len().min(600)])
        );
        println!(
            "{name}: {} bytes plain, {} gzip ({:.1} %)",
            plain.len(),
            zipped.len(),
            100.0 * zipped.len() as f64 / plain.len() as f64
        );
        group.bench_function(format!("{name}, plain"), |b| b.iter(|| black_box(rt.block_on(send(path, xml, false)))));
        group.bench_function(format!("{name}, gzip"), |b| b.iter(|| black_box(rt.block_on(send(path, xml, true)))));
    }
    group.finish();
}

/// The region availability (the 3 demo hotels of Mallorca, two rooms, 4 nights) on the content
/// alone, then with the demo supplier's values on every night of the stay for every room type of
/// those hotels: rooms on sale, restrictions (every one open, a minimum stay of one night) for
/// every rate plan and for each board the room type is sold with, and the nightly amounts of
/// each of those boards, by number of guests and for any number. The same offers either way:
/// what reading a supplier's values costs availability.
fn supply(c: &mut Criterion, rt: &tokio::runtime::Runtime, state: &AppState, app: &Router) {
    const SUPPLIER: &str = r#"<POS><Source><RequestorID Type="22" ID="SUP-DEMO" ID_Context="SUP-DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="SUP-DEMO" MessagePassword="sup-demo-pass"/></Source></POS>"#;
    let (d20, d24) = (day(20), day(24));
    let region = format!(
        r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en">{POS}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><RefPoint CodeContext="Region">Mallorca</RefPoint></Criterion></HotelSearchCriteria><StayDateRange Start="{d20}" End="{d24}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/><GuestCount AgeQualifyingCode="8" Age="9" Count="1"/></GuestCounts></RoomStayCandidate><RoomStayCandidate RPH="2"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="1"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#
    );
    let mut group = c.benchmark_group("supply");
    group.sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    let before = rt.block_on(call(app, "/hotelavailability", &region)).1;
    group.bench_function("region availability, content only", |b| {
        b.iter(|| black_box(rt.block_on(call(app, "/hotelavailability", &region))))
    });

    // The demo hotels of the region, and the (board, currency) pairs each room type is sold with:
    // the supplier's amounts are for those only, so the answer lists the same offers.
    let demo: serde_json::Value = serde_json::from_str(include_str!("../demo/hotels.json")).unwrap();
    let control = |room: &str, plan: &str| {
        format!(r#"<StatusApplicationControl Start="{d20}" End="{d24}" InvTypeCode="{room}"{plan}/>"#)
    };
    let open = |room: &str, plan: &str| {
        format!(
            r#"<AvailStatusMessage>{}<RestrictionStatus Restriction="Master" Status="Open"/><LengthsOfStay><LengthOfStay Time="1" TimeUnit="Day" MinMaxMessageType="SetMinLOS"/></LengthsOfStay></AvailStatusMessage>"#,
            control(room, plan)
        )
    };
    for content in demo["hotels"].as_array().unwrap().iter().filter(|h| h["region"] == "Mallorca") {
        let hotel = content["code"].as_str().unwrap();
        let rooms: Vec<&str> =
            content["rooms"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
        let mut sold: Vec<(&str, &str, &str)> =
            content["rates"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|r| {
                    r["nightly"].as_object().unwrap().keys().map(move |board| {
                        (r["room"].as_str().unwrap(), board.as_str(), r["currency"].as_str().unwrap())
                    })
                })
                .collect();
        sold.sort_unstable();
        sold.dedup();
        let counts: String = rooms
            .iter()
            .map(|room| {
                format!(
                    r#"<Inventory>{}<InvCounts><InvCount CountType="2" Count="5"/></InvCounts></Inventory>"#,
                    control(room, "")
                )
            })
            .collect();
        let mut restrictions: String = rooms.iter().map(|room| open(room, "")).collect();
        let mut amounts = String::new();
        for (room, board, currency) in sold {
            let plan = format!(r#" RatePlanCode="{board}""#);
            restrictions += &open(room, &plan);
            amounts += &format!(
                r#"<RateAmountMessage>{}<Rates><Rate CurrencyCode="{currency}"><BaseByGuestAmts><BaseByGuestAmt NumberOfGuests="1" AgeQualifyingCode="10" AmountAfterTax="90.00"/><BaseByGuestAmt NumberOfGuests="2" AgeQualifyingCode="10" AmountAfterTax="110.00"/><BaseByGuestAmt AmountAfterTax="130.00"/></BaseByGuestAmts></Rate></Rates></RateAmountMessage>"#,
                control(room, &plan)
            );
        }
        for (path, body) in [
            (
                "/hotelinvcountnotif",
                format!(
                    r#"<OTA_HotelInvCountNotifRQ xmlns="{NS}" Version="2016.1">{SUPPLIER}<Inventories HotelCode="{hotel}">{counts}</Inventories></OTA_HotelInvCountNotifRQ>"#
                ),
            ),
            (
                "/hotelavailnotif",
                format!(
                    r#"<OTA_HotelAvailNotifRQ xmlns="{NS}" Version="2016.1">{SUPPLIER}<AvailStatusMessages HotelCode="{hotel}">{restrictions}</AvailStatusMessages></OTA_HotelAvailNotifRQ>"#
                ),
            ),
            (
                "/hotelrateamountnotif",
                format!(
                    r#"<OTA_HotelRateAmountNotifRQ xmlns="{NS}" Version="2016.1">{SUPPLIER}<RateAmountMessages HotelCode="{hotel}">{amounts}</RateAmountMessages></OTA_HotelRateAmountNotifRQ>"#
                ),
            ),
        ] {
            let (status, body) = rt.block_on(call(app, path, &body));
            let body = String::from_utf8_lossy(&body);
            assert!(
                status == StatusCode::OK && body.contains("<Success/>") && !body.contains("<Warnings>"),
                "{path} {hotel}: {body}"
            );
        }
    }
    // What the gateway's content refresher does within a second.
    assert!(rt.block_on(state.content.refresh()).unwrap(), "the supply version moved on");
    let after = rt.block_on(call(app, "/hotelavailability", &region)).1;
    assert!(
        after != before && String::from_utf8_lossy(&after).contains("<Success/>"),
        "the supplier's values are not served: {}",
        String::from_utf8_lossy(&after)
    );
    let listed = |answer: &[u8]| {
        let answer = String::from_utf8_lossy(answer);
        let id = answer
            .split(r#"TransactionIdentifier=""#)
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("?")
            .to_string();
        format!("{} bytes, offers {id}", answer.len())
    };
    println!("region availability: content only {}; the supplier's values {}", listed(&before), listed(&after));
    group.bench_function("region availability, the supplier's values on every night", |b| {
        b.iter(|| black_box(rt.block_on(call(app, "/hotelavailability", &region))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
