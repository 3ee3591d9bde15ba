//! The activity operations against the demo content, on both backends: search, availability,
//! activity NBC and booking (Quote, Commit, idempotence, validation, concurrency), answered
//! in-process as the gateway would (authentication included); then two end-to-end tests over
//! HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate, Utc, Weekday};
use ota_gateway::shared::context::OpError;
use ota_gateway::store::Scalar;
use ota_messages::common::{Error, ErrorCode, ErrorWarningType, IdContext, PricingMethod, Warning};
use ota_messages::product_descriptive_info::{OtaProductDescriptiveInfoRq, OtaProductDescriptiveInfoRs};
use ota_messages::runtime::{Message, Request, Response};
use ota_messages::tour_activity_avail::{OtaTourActivityAvailRq, OtaTourActivityAvailRs};
use ota_messages::tour_activity_book::{OtaTourActivityBookRq, OtaTourActivityBookRs};
use ota_messages::tour_activity_search::{OtaTourActivitySearchRq, OtaTourActivitySearchRs};
use rust_decimal::Decimal;
use support::{Backend, TestGateway, backend_tests};

// ---------------------------------------------------------------------------------------------
// Set-up

/// A fresh database with the demo content.
async fn env(b: Backend) -> TestGateway {
    TestGateway::start(b).await
}

/// Places left of a service on a date: the places offered then minus the places booked.
async fn places_left(
    env: &TestGateway,
    activity: &'static str,
    product: &'static str,
    service: &'static str,
    date: NaiveDate,
) -> i64 {
    let content = env.content();
    let capacity = content
        .activities
        .activity(activity)
        .and_then(|a| a.product(product))
        .and_then(|p| p.service(service))
        .unwrap()
        .capacity(date);
    let booked: Option<Scalar<i64>> = env
        .store
        .read(move |c| {
            Box::pin(async move {
                c.query_opt(
                    "SELECT places FROM activity_places_booked WHERE activity_id = $1 AND product_code = $2 AND service_code = $3 AND date = $4",
                    &[&activity, &product, &service, &date],
                )
                .await
            })
        })
        .await
        .unwrap();
    capacity - booked.map_or(0, |s| s.0)
}

/// The request sent with `Instance` on its Type 22 source.
fn with_instance<R: Request>(rq: &R, instance: &str) -> R {
    let xml = rq.to_xml().unwrap().replacen(
        r#"ID_Context="DEMO-DIST""#,
        &format!(r#"ID_Context="DEMO-DIST" Instance="{instance}""#),
        1,
    );
    R::from_xml(&xml).unwrap()
}

/// Today in Mallorca, where the demo activities are (their time zone).
fn today() -> NaiveDate {
    Utc::now().with_timezone(&chrono_tz::Europe::Madrid).date_naive()
}

fn day(n: i64) -> NaiveDate {
    today() + Duration::days(n)
}

/// The first `weekday` at least `after` days from today.
fn next(weekday: Weekday, after: i64) -> NaiveDate {
    let mut d = day(after);
    while d.weekday() != weekday {
        d += Duration::days(1);
    }
    d
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str_exact(s).unwrap()
}

fn errors_of<R: Response<Errors = ota_messages::common::Errors>>(rs: &R) -> Vec<Error> {
    assert!(!rs.is_success(), "expected an error answer");
    rs.errors().expect("Errors").error.clone()
}

fn only_error<R: Response<Errors = ota_messages::common::Errors>>(rs: &R) -> Error {
    let errors = errors_of(rs);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    errors.into_iter().next().unwrap()
}

fn warnings_of(w: Option<&ota_messages::common::Warnings>) -> Vec<Warning> {
    w.map(|w| w.warning.clone()).unwrap_or_default()
}

/// Encodes and decodes an answer: it must be valid against the spec.
fn round_trip<M: Message + std::fmt::Debug + PartialEq>(rs: &M) -> String {
    let xml = rs.to_xml_pretty().unwrap();
    let back = M::from_xml(&xml).unwrap_or_else(|e| panic!("invalid answer: {e}\n{xml}"));
    assert_eq!(&back, rs);
    xml
}

// ---------------------------------------------------------------------------------------------
// Requests

fn pos(instance: Option<&str>) -> String {
    let instance = instance.map(|i| format!(r#" Instance="{i}""#)).unwrap_or_default();
    format!(
        r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"{instance}/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#
    )
}

/// (Context, RegionCode, text)
type Loc<'a> = (&'a str, &'a str, &'a str);

fn locations(element: &str, locs: &[Loc]) -> String {
    locs.iter()
        .map(|(context, code, value)| {
            format!(r#"<{element} Context="{context}"><Region RegionCode="{code}">{value}</Region></{element}>"#)
        })
        .collect()
}

fn search_xml(start: NaiveDate, end: NaiveDate, locs: &[Loc], attrs: &str) -> String {
    format!(
        r#"<OTA_TourActivitySearchRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2"{attrs}>{}<SearchCriteria><DateTimePref Start="{start}" End="{end}"/>{}</SearchCriteria></OTA_TourActivitySearchRQ>"#,
        pos(None),
        locations("LocationPref", locs)
    )
}

fn search_rq(start: NaiveDate, end: NaiveDate, locs: &[Loc], attrs: &str) -> OtaTourActivitySearchRq {
    OtaTourActivitySearchRq::from_xml(&search_xml(start, end, locs, attrs)).unwrap()
}

fn avail_rq(
    start: NaiveDate,
    end: NaiveDate,
    locs: &[Loc],
    party: &[(u64, &str)],
    max_price: Option<(&str, &str, &str)>,
) -> OtaTourActivityAvailRq {
    let party: String = party
        .iter()
        .map(|(q, c)| {
            format!(r#"<ParticipantCount Quantity="{q}"><QualifierInfo>{c}</QualifierInfo></ParticipantCount>"#)
        })
        .collect();
    let offer = max_price
        .map(|(method, amount, currency)| {
            format!(
                r#"<MultimodalOffer><RequestedOffer><GuidelinePricing><Method>{method}</Method><MaximumPrice Amount="{amount}" CurrencyCode="{currency}" CurrencyDecimal="2"/></GuidelinePricing></RequestedOffer></MultimodalOffer>"#
            )
        })
        .unwrap_or_default();
    let xml = format!(
        r#"<OTA_TourActivityAvailRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" PrimaryLangID="en">{}<TourActivity><BasicInfo/>{}<Schedule StartPeriod="{start}" EndPeriod="{end}"/>{party}{offer}</TourActivity></OTA_TourActivityAvailRQ>"#,
        pos(None),
        locations("Location", locs)
    );
    OtaTourActivityAvailRq::from_xml(&xml).unwrap()
}

fn nbc_rq(id: &str, attrs: &str) -> OtaProductDescriptiveInfoRq {
    let xml = format!(
        r#"<OTA_ProductDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2016.2"{attrs}>{}<ProductDescriptiveInfos><TourActivityDescriptiveInfo TourActivityID="{id}"/></ProductDescriptiveInfos></OTA_ProductDescriptiveInfoRQ>"#,
        pos(None)
    );
    OtaProductDescriptiveInfoRq::from_xml(&xml).unwrap()
}

/// A booking request.
#[derive(Clone)]
struct Book<'a> {
    status: Option<&'a str>,
    instance: Option<&'a str>,
    activity: &'a str,
    product: Option<&'a str>,
    service: Option<&'a str>,
    start: String,
    end: String,
    /// (ParticipantID, category, age)
    participants: Vec<(u64, &'a str, u64)>,
    /// (DateTime, LocationName)
    pickup: Option<(String, &'a str)>,
    client_ref: Option<&'a str>,
}

impl<'a> Book<'a> {
    fn new(activity: &'a str, product: &'a str, service: &'a str, date: NaiveDate) -> Self {
        Book {
            status: Some("Quote"),
            instance: None,
            activity,
            product: Some(product),
            service: Some(service),
            start: format!("{date}T00:00:00"),
            end: format!("{date}T23:59:59"),
            participants: vec![(1, "10", 44), (2, "10", 42), (3, "8", 9)],
            pickup: None,
            client_ref: Some("CLI-ACT-0001"),
        }
    }

    fn xml(&self) -> String {
        let status = self.status.map(|s| format!(r#" ResStatus="{s}""#)).unwrap_or_default();
        let attr = |name: &str, v: Option<&str>| v.map(|v| format!(r#" {name}="{v}""#)).unwrap_or_default();
        let names = ["José|Müller|Mr", "Zoë|O'Brien &amp; Müller|Mrs", "Łucja|Müller|Miss", "Ana|Nowak|Ms"];
        let participants: String = self
            .participants
            .iter()
            .enumerate()
            .map(|(i, (id, cat, age))| {
                let parts: Vec<&str> = names[i % names.len()].split('|').collect();
                format!(
                    r#"<ParticipantInfo><Category QualifierInfo="{cat}"/><Individual Age="{age}" ParticipantID="{id}"><GivenName>{}</GivenName><NamePrefix>{}</NamePrefix><Surname>{}</Surname></Individual></ParticipantInfo>"#,
                    parts[0], parts[2], parts[1]
                )
            })
            .collect();
        let pickup = self
            .pickup
            .as_ref()
            .map(|(dt, loc)| format!(r#"<PickupDropoff DateTime="{dt}" LocationName="{loc}" PickupInd="true"/>"#))
            .unwrap_or_default();
        let ext = self
            .client_ref
            .map(|r| format!(r#"<TPA_Extensions><UniqueID Type="36" ID="{r}" ID_Context="Client"/><UniqueID Type="37" ID="{r}_1" ID_Context="Client"/></TPA_Extensions>"#))
            .unwrap_or_default();
        format!(
            r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2"{status}>{}<BookingInfo><BasicInfo TourActivityID="{}"{}{}/>{participants}<Schedule Start="{}" End="{}"/>{pickup}</BookingInfo>{ext}</OTA_TourActivityBookRQ>"#,
            pos(self.instance),
            self.activity,
            attr("SupplierProductCode", self.product),
            attr("SupplierServiceCode", self.service),
            self.start,
            self.end
        )
    }

    fn rq(&self) -> OtaTourActivityBookRq {
        OtaTourActivityBookRq::from_xml(&self.xml()).unwrap_or_else(|e| panic!("{e}\n{}", self.xml()))
    }

    async fn send(&self, env: &TestGateway) -> OtaTourActivityBookRs {
        env.send(&self.rq()).await
    }
}

// ---------------------------------------------------------------------------------------------
// Search

async fn search_around_a_hotel(b: Backend) {
    let env = env(b).await;
    let rq = search_rq(day(1), day(14), &[("Source", "HotelCode", "HTL00042")], r#" PrimaryLangID="es""#);
    let rs = env.send(&rq).await;
    assert!(rs.is_success(), "{rs:?}");
    round_trip(&rs);
    assert!(rs.warnings.is_none());
    assert_eq!(rs.primary_lang_id.as_deref(), Some("es"));
    let ids: Vec<&str> = rs.tour_activity_info.iter().map(|i| i.basic_info.tour_activity_id.as_str()).collect();
    assert_eq!(ids, ["LESPMIAZ9U", "LESPMIBKUI", "LESPMISE01"]);
    let drach = &rs.tour_activity_info[1];
    assert_eq!(drach.basic_info.name.as_deref(), Some("Cuevas del Drach y concierto en el lago Martel"));
    // The cheapest adult price: the afternoon visit's ticket.
    let pricing = drach.pricing.as_ref().unwrap();
    assert_eq!(pricing.min_price.0, dec("27.00"));
    // The answer's one currency, in ProcessingInformation (OpenTravel 2016B).
    let info = rs.processing_information.as_ref().unwrap();
    assert_eq!((info.pricing_currency.as_str(), info.decimal_places), ("EUR", Some(2)));
    assert_eq!(drach.basic_info.supplier_product_code.as_deref(), Some("TE0CC00C"));
    assert_eq!(drach.basic_info.supplier_service_code.as_deref(), Some("TIC"));
    let summary = &drach.schedule.summary;
    assert_eq!((summary.start.0, summary.end.0), (day(1), day(14)));
    let location = drach.location.as_ref().unwrap();
    assert_eq!(location.region.as_ref().unwrap().region_code, "PMI");
    assert!(drach.description.as_ref().unwrap().long_description.as_deref().unwrap().starts_with("Recorrido"));
    // The first category with its types, the second in TPA_Extensions (OpenTravel 2016B).
    let cat = drach.category_and_type.as_ref().unwrap();
    assert_eq!(cat.category.as_ref().map(|c| c.code.as_str()), Some("XA"));
    assert_eq!(cat.r#type.iter().map(|t| t.code.as_str()).collect::<Vec<_>>(), ["CAVE"]);
    let further = &cat.tpa_extensions.as_ref().unwrap().category_and_type;
    assert_eq!(further.len(), 1);
    assert_eq!((further[0].category.code.as_str(), further[0].r#type[0].code.as_str()), ("SE", "CONCERT"));
    // The train runs Tue, Thu, Sat: its first and last dates in the range are such days.
    let train = &rs.tour_activity_info[0].schedule.summary;
    for d in [train.start.0, train.end.0] {
        assert!(matches!(d.weekday(), Weekday::Tue | Weekday::Thu | Weekday::Sat), "{d}");
        assert!(d >= day(1) && d <= day(14));
    }
}

async fn search_by_product_and_max_responses(b: Backend) {
    let env = env(b).await;
    // A TourActivityID or a SupplierProductCode names the activity.
    for code in ["LESTFSLORO", "TFLORO01"] {
        let rs = env.send(&search_rq(day(1), day(7), &[("Service", "Product", code)], "")).await;
        let ids: Vec<&str> = rs.tour_activity_info.iter().map(|i| i.basic_info.tour_activity_id.as_str()).collect();
        assert_eq!(ids, ["LESTFSLORO"], "{code}");
    }
    // Both locations: the named product first, then the hotel's activities.
    let locs = [("Source", "HotelCode", "HTL00077"), ("Service", "Product", "LESTFSTEI1")];
    let rs = env.send(&search_rq(day(1), day(7), &locs, "")).await;
    let ids: Vec<&str> = rs.tour_activity_info.iter().map(|i| i.basic_info.tour_activity_id.as_str()).collect();
    assert_eq!(ids, ["LESTFSTEI1", "LESPMIAZ9U", "LESPMIBKUI", "LESPMICATA"]);
    let rs = env.send(&search_rq(day(1), day(7), &locs, r#" MaxResponses="2""#)).await;
    assert_eq!(rs.tour_activity_info.len(), 2);
}

async fn search_range_is_at_most_28_days(b: Backend) {
    let env = env(b).await;
    let hotel = [("Source", "HotelCode", "HTL00042")];
    let rs = env.send(&search_rq(day(1), day(28), &hotel, "")).await;
    assert!(rs.is_success(), "28 days are allowed");
    let rs = env.send(&search_rq(day(1), day(29), &hotel, "")).await;
    round_trip(&rs);
    let e = only_error(&rs);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::SearchCriteriaInvalid)));
    assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivitySearchRQ/SearchCriteria/DateTimePref"));
    assert!(e.value.contains("29 days"), "{}", e.value);
    // End before Start.
    let rs = env.send(&search_rq(day(5), day(2), &hotel, "")).await;
    assert_eq!(only_error(&rs).code, Some(ErrorCode::InvalidStartEndDateCombination));
}

async fn search_unknown_area_and_bad_locations(b: Backend) {
    let env = env(b).await;
    // A hotel with nothing near: success, no activity, a 427 warning.
    let rs = env.send(&search_rq(day(1), day(7), &[("Source", "HotelCode", "HTL99999")], "")).await;
    assert!(rs.is_success());
    assert!(rs.tour_activity_info.is_empty());
    let w = warnings_of(rs.warnings.as_ref());
    assert_eq!(
        (w.len(), w[0].r#type.clone(), w[0].code.clone()),
        (1, ErrorWarningType::Advisory, Some(ErrorCode::NoAvailability))
    );
    round_trip(&rs);
    // Dates already past: nothing runs.
    let rs = env.send(&search_rq(day(-10), day(-2), &[("Source", "HotelCode", "HTL00042")], "")).await;
    assert!(rs.is_success() && rs.tour_activity_info.is_empty());
    // An unknown product code is an error, tagged.
    let locs = [("Source", "HotelCode", "HTL00042"), ("Service", "Product", "LESPMIZZZZ")];
    let e = only_error(&env.send(&search_rq(day(1), day(7), &locs, "")).await);
    assert_eq!(e.code, Some(ErrorCode::InvalidValue));
    assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivitySearchRQ/SearchCriteria/LocationPref[2]/Region"));
    // No location at all (the schema requires one; built in Rust).
    let mut rq = search_rq(day(1), day(7), &[("Source", "HotelCode", "HTL00042")], "");
    rq.search_criteria.location_pref.clear();
    let call = env.ctx();
    let Err(OpError::Rejected(problems)) = ota_gateway::activities::search(&call, &call.activities, &rq).await else {
        panic!("refused")
    };
    assert_eq!(
        (problems[0].kind.clone(), problems[0].code.clone()),
        (ErrorWarningType::RequiredFieldMissing, ErrorCode::RequiredFieldMissing)
    );
}

async fn search_language_fallback(b: Backend) {
    let env = env(b).await;
    let rq = search_rq(day(1), day(7), &[("Source", "HotelCode", "HTL00110")], r#" PrimaryLangID="de""#);
    let rs = env.send(&rq).await;
    assert_eq!(rs.primary_lang_id.as_deref(), Some("en"));
    assert_eq!(rs.tour_activity_info[0].basic_info.name.as_deref(), Some("Loro Parque"));
    let w = warnings_of(rs.warnings.as_ref());
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].code, Some(ErrorCode::LanguageCodeInvalid));
    assert_eq!(w[0].tag.as_deref(), Some("/OTA_TourActivitySearchRQ/@PrimaryLangID"));
}

// ---------------------------------------------------------------------------------------------
// Availability

async fn availability_mf001_every_date_with_group_prices_and_pickups(b: Backend) {
    let env = env(b).await;
    let (start, end) = (day(3), day(5));
    let rq = avail_rq(
        start,
        end,
        &[("Source", "HotelCode", "HTL00042"), ("Service", "Product", "LESPMIBKUI")],
        &[(2, "10"), (1, "8")],
        None,
    );
    let rs = env.send(&with_instance(&rq, "MF001")).await;
    assert!(rs.is_success(), "{rs:?}");
    round_trip(&rs);
    let drach: Vec<_> =
        rs.tour_activity_info.iter().filter(|i| i.basic_info.tour_activity_id == "LESPMIBKUI").collect();
    // The morning product runs daily (TIC and TRF), the afternoon one Mon–Sat (TIC).
    let afternoons = start.iter_days().take(3).filter(|d| d.weekday() != Weekday::Sun).count();
    assert_eq!(drach.len(), 3 * 2 + afternoons);
    let tic = drach
        .iter()
        .find(|i| {
            i.basic_info.supplier_product_code.as_deref() == Some("TE0CC00A")
                && i.basic_info.supplier_service_code.as_deref() == Some("TIC")
        })
        .unwrap();
    let summary = &tic.pricing.summary;
    assert_eq!(summary.amount.map(|a| a.0), Some(dec("73.75"))); // 2 × 29.50 + 14.75
    assert_eq!(
        (summary.min_charge, summary.pricing_type.clone(), summary.currency_code.as_str()),
        (None, PricingMethod::PerGroup, "EUR")
    );
    let schedule = &tic.schedule.summary;
    assert_eq!(schedule.start.to_string(), format!("{start}T10:00:00"));
    assert_eq!(schedule.end.to_string(), format!("{start}T11:15:00"));
    assert_eq!(schedule.duration.as_deref(), Some("PT1H15M"));
    assert!(tic.pickup_dropoff.is_empty());
    // The transfer: pickup 70 minutes before, back 195 minutes after.
    let trf = drach.iter().find(|i| i.basic_info.supplier_service_code.as_deref() == Some("TRF")).unwrap();
    assert_eq!(trf.pricing.summary.amount.map(|a| a.0), Some(dec("101.40")));
    let schedule = &trf.schedule.summary;
    assert_eq!(schedule.duration.as_deref(), Some("PT5H40M"));
    assert_eq!(trf.pickup_dropoff.len(), 2);
    let pickup = &trf.pickup_dropoff[0];
    assert!(pickup.pickup_ind);
    assert_eq!(pickup.date_time.map(|d| d.to_string()), Some(format!("{start}T08:50:00")));
    assert_eq!(pickup.code.as_deref(), Some("HTL00042"));
    assert_eq!(pickup.location_name.as_deref(), Some("Hotel Playa d'Or & Spa"));
    assert!(!trf.pickup_dropoff[1].pickup_ind);
    assert_eq!(trf.pickup_dropoff[1].date_time.map(|d| d.to_string()), Some(format!("{start}T14:30:00")));
    // The hotel's other activities are there too (the union of both locations).
    assert!(rs.tour_activity_info.iter().any(|i| i.basic_info.tour_activity_id == "LESPMISE01"));
    // MaxResponses.
    let mut limited = rq.clone();
    limited.max_responses = Some(4);
    assert_eq!(env.send(&limited).await.tour_activity_info.len(), 4);
}

async fn availability_mf002_one_price_from_per_service(b: Backend) {
    let env = env(b).await;
    let rq = avail_rq(day(3), day(9), &[("Service", "Product", "LESPMIBKUI")], &[(2, "10"), (1, "8")], None);
    let rs = env.send(&with_instance(&rq, "MF002")).await;
    assert!(rs.is_success());
    round_trip(&rs);
    let keys: Vec<(String, String)> = rs
        .tour_activity_info
        .iter()
        .map(|i| {
            (i.basic_info.supplier_product_code.clone().unwrap(), i.basic_info.supplier_service_code.clone().unwrap())
        })
        .collect();
    let expected = [("TE0CC00A", "TIC"), ("TE0CC00A", "TRF"), ("TE0CC00C", "TIC")];
    assert_eq!(keys, expected.map(|(p, s)| (p.to_string(), s.to_string())));
    let charges: Vec<Decimal> = rs.tour_activity_info.iter().map(|i| i.pricing.summary.min_charge.unwrap().0).collect();
    assert_eq!(charges, [dec("14.75"), dec("23.40"), dec("13.50")]);
    for i in &rs.tour_activity_info {
        assert_eq!(i.pricing.summary.pricing_type, PricingMethod::PerPerson);
        assert!(i.pricing.summary.amount.is_none());
        assert!(i.pickup_dropoff.is_empty());
    }
    // Without an Instance: the detailed mode.
    let rs = env.send(&rq).await;
    assert!(rs.tour_activity_info.len() > 3);
    assert!(rs.tour_activity_info.iter().all(|i| i.pricing.summary.amount.is_some()));
}

async fn availability_maximum_price(b: Backend) {
    let env = env(b).await;
    let drach = [("Service", "Product", "LESPMIBKUI")];
    let services = |rs: &OtaTourActivityAvailRs| {
        let mut s: Vec<String> = rs
            .tour_activity_info
            .iter()
            .map(|i| {
                format!(
                    "{}/{}",
                    i.basic_info.supplier_product_code.as_deref().unwrap(),
                    i.basic_info.supplier_service_code.as_deref().unwrap()
                )
            })
            .collect();
        s.dedup();
        s
    };
    // Per person: every participant's price within 30.00 (the transfer's 39.00 is not).
    let rq = avail_rq(day(2), day(2), &drach, &[(2, "10"), (1, "8")], Some(("PerPerson", "30.00", "EUR")));
    let rs = env.send(&with_instance(&rq, "MF002")).await;
    let mut got = services(&rs);
    got.sort();
    let afternoon = day(2).weekday() != Weekday::Sun;
    let mut expected = vec!["TE0CC00A/TIC".to_string()];
    if afternoon {
        expected.push("TE0CC00C/TIC".to_string());
    }
    assert_eq!(got, expected);
    // Per group: the party's total (2 adults: 59.00 morning ticket, 54.00 afternoon, 78.00 transfer).
    let rq = avail_rq(day(2), day(2), &drach, &[(2, "10")], Some(("PerGroup", "59.00", "EUR")));
    let got = services(&env.send(&rq).await);
    assert!(got.contains(&"TE0CC00A/TIC".to_string()) && !got.contains(&"TE0CC00A/TRF".to_string()), "{got:?}");
    // Nothing within 10.00: success with a warning.
    let rq = avail_rq(day(2), day(2), &drach, &[(2, "10")], Some(("PerPerson", "10.00", "EUR")));
    let rs = env.send(&rq).await;
    assert!(rs.is_success() && rs.tour_activity_info.is_empty());
    assert_eq!(warnings_of(rs.warnings.as_ref())[0].code, Some(ErrorCode::NoAvailability));
    // Another currency: error 61.
    let rq = avail_rq(day(2), day(2), &drach, &[(2, "10")], Some(("PerPerson", "100.00", "USD")));
    let e = only_error(&env.send(&rq).await);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::InvalidCurrencyCode)));
}

async fn availability_categories_and_allotment(b: Backend) {
    let env = env(b).await;
    // Seniors (11) are priced by no service: an error pointing at the ParticipantCount.
    let rq = avail_rq(day(2), day(3), &[("Source", "HotelCode", "HTL00042")], &[(2, "10"), (1, "11")], None);
    let rs = env.send(&rq).await;
    round_trip(&rs);
    let e = only_error(&rs);
    assert_eq!(e.code, Some(ErrorCode::InvalidValue));
    assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityAvailRQ/TourActivity/ParticipantCount[2]/QualifierInfo"));
    // Infants (7): only Loro Parque prices them.
    let rq = avail_rq(day(2), day(3), &[("Source", "HotelCode", "HTL00110")], &[(2, "10"), (1, "7")], None);
    let rs = env.send(&rq).await;
    assert!(!rs.tour_activity_info.is_empty());
    assert!(rs.tour_activity_info.iter().all(|i| i.basic_info.tour_activity_id == "LESTFSLORO"));
    assert_eq!(rs.tour_activity_info[0].pricing.summary.amount.map(|a| a.0), Some(dec("82.00")));
    // Loro Parque picks up nowhere; Teide's transfer is offered from HTL00110.
    let rq = avail_rq(day(1), day(7), &[("Source", "HotelCode", "HTL00110")], &[(1, "10")], None);
    let rs = env.send(&rq).await;
    assert!(rs.tour_activity_info.iter().any(|i| i.basic_info.supplier_service_code.as_deref() == Some("TRF")));
    // The catamaran has 2 places: a party of 3 finds nothing, a party of 2 finds every date.
    let cat = [("Service", "Product", "LESPMICATA")];
    let rs = env.send(&avail_rq(day(1), day(3), &cat, &[(3, "10")], None)).await;
    assert!(rs.tour_activity_info.is_empty());
    let rs = env.send(&avail_rq(day(1), day(3), &cat, &[(2, "10")], None)).await;
    assert_eq!(rs.tour_activity_info.len(), 3);
    // Range over 28 days and an empty party.
    let e = only_error(&env.send(&avail_rq(day(1), day(40), &cat, &[(2, "10")], None)).await);
    assert_eq!(e.code, Some(ErrorCode::SearchCriteriaInvalid));
    let e = only_error(&env.send(&avail_rq(day(1), day(2), &cat, &[(0, "10")], None)).await);
    assert_eq!(e.code, Some(ErrorCode::InvalidValue));
}

// ---------------------------------------------------------------------------------------------
// Activity NBC

async fn activity_nbc_in_the_requested_language(b: Backend) {
    let env = env(b).await;
    let rs = env.send(&nbc_rq("LESPMIBKUI", r#" PrimaryLangID="es""#)).await;
    assert!(rs.is_success());
    assert!(rs.warnings.is_none());
    round_trip(&rs);
    let contents = &rs.tour_activity_descriptive_info.as_ref().unwrap().tour_activity_descriptive_content;
    // One content per start time: 10:00 (with everything) and 14:30.
    assert_eq!(contents.len(), 2);
    let c = &contents[0];
    assert_eq!(c.tour_activity_name.as_deref(), Some("Cuevas del Drach y concierto en el lago Martel"));
    let s = &c.schedule.as_ref().unwrap().summary;
    assert_eq!((s.start.as_deref(), s.duration.as_deref()), (Some("10:00"), Some("PT1H15M")));
    assert_eq!(contents[1].schedule.as_ref().unwrap().summary.start.as_deref(), Some("14:30"));
    assert_eq!(contents[1].rph, Some(2));
    let cat = &c.tour_activity_category[0];
    assert_eq!(cat.category_code.as_str(), "XA");
    assert_eq!(cat.category_name.as_deref(), Some("Excursión"));
    assert_eq!((cat.type_code.as_deref(), cat.type_name.as_deref()), (Some("CAVE"), Some("Cuevas y grutas")));
    let products: Vec<&str> = c.product_info.iter().map(|p| p.code.as_str()).collect();
    assert_eq!(products, ["TE0CC00A", "TE0CC00C"]);
    assert_eq!(c.product_info[0].code_detail.as_deref(), Some("Visita de mañana con concierto"));
    let services: Vec<&str> = c.service_info.iter().map(|p| p.code.as_str()).collect();
    assert_eq!(services, ["TIC", "TRF"]);
    let text = &c.service_info[1].descriptions.as_ref().unwrap().multimedia_descriptions.multimedia_description[0]
        .text_items
        .text_item[0];
    assert_eq!(text.description.len(), 1);
    assert_eq!(text.description[0].language.as_deref(), Some("es"));
    assert!(text.description[0].value.starts_with("Recogida"));
}

async fn activity_nbc_language_fallback_and_all_languages(b: Backend) {
    let env = env(b).await;
    // German is not there: AltLangID Spanish is used, with a warning.
    let rs = env.send(&nbc_rq("LESPMIAZ9U", r#" PrimaryLangID="de" AltLangID="es""#)).await;
    let c = &rs.tour_activity_descriptive_info.as_ref().unwrap().tour_activity_descriptive_content[0];
    assert_eq!(c.tour_activity_name.as_deref(), Some("Valldemossa, Sóller y la Tramuntana en tren"));
    let w = warnings_of(rs.warnings.as_ref());
    assert_eq!((w.len(), w[0].code.clone()), (1, Some(ErrorCode::LanguageCodeInvalid)));
    assert!(w[0].value.contains("es"), "{}", w[0].value);
    // French, no AltLangID: English.
    let rs = env.send(&nbc_rq("LESPMIAZ9U", r#" PrimaryLangID="fr""#)).await;
    let c = &rs.tour_activity_descriptive_info.as_ref().unwrap().tour_activity_descriptive_content[0];
    assert_eq!(c.tour_activity_name.as_deref(), Some("Valldemossa, Sóller & the Tramuntana by train"));
    assert!(rs.warnings.is_some());
    // "*": every language of the descriptions.
    let rs = env.send(&nbc_rq("LESPMIAZ9U", r#" PrimaryLangID="*""#)).await;
    round_trip(&rs);
    let c = &rs.tour_activity_descriptive_info.as_ref().unwrap().tour_activity_descriptive_content[0];
    let texts = &c.product_info[0].descriptions.as_ref().unwrap().multimedia_descriptions.multimedia_description[0]
        .text_items
        .text_item[0];
    let langs: Vec<&str> = texts.description.iter().filter_map(|d| d.language.as_deref()).collect();
    assert_eq!(langs, ["en", "es"]);
    assert!(rs.warnings.is_none());
}

async fn activity_nbc_unknown_id(b: Backend) {
    let env = env(b).await;
    let rs = env.send(&nbc_rq("LESPMI0000", "")).await;
    round_trip(&rs);
    let e = only_error(&rs);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::InvalidValue)));
    assert_eq!(
        e.tag.as_deref(),
        Some("/OTA_ProductDescriptiveInfoRQ/ProductDescriptiveInfos/TourActivityDescriptiveInfo/@TourActivityID")
    );
    assert!(rs.tour_activity_descriptive_info.is_none());
}

// ---------------------------------------------------------------------------------------------
// Booking

/// A transfer booking of the Drach caves, 10 days ahead, with pickup at HTL00042.
fn drach_transfer() -> Book<'static> {
    let date = day(10);
    let mut b = Book::new("LESPMIBKUI", "TE0CC00A", "TRF", date);
    b.pickup = Some((format!("{date}T08:50:00"), "HTL00042"));
    b
}

async fn quote_stores_nothing(b: Backend) {
    let env = env(b).await;
    let before = (
        env.count("activity_booking").await,
        env.count("activity_places_booked").await,
        env.count("activity_booking_participant").await,
    );
    let rs = drach_transfer().send(&env).await;
    assert!(rs.is_success(), "{rs:?}");
    round_trip(&rs);
    let after = (
        env.count("activity_booking").await,
        env.count("activity_places_booked").await,
        env.count("activity_booking_participant").await,
    );
    assert_eq!(before, after);
    let d = rs.reservation_details.as_ref().unwrap();
    // Only the Client reference: no Internal one for a quote.
    assert_eq!(d.confirmation.len(), 1);
    assert_eq!(d.confirmation[0].id_context, Some(IdContext::Client));
    assert_eq!(d.confirmation[0].id, "CLI-ACT-0001");
    assert_eq!(d.pricing.summary.amount.0, dec("101.40"));
    // What is due: the total, once, without a breakdown.
    let due: Vec<_> = d.payment_info.iter().map(|p| (p.participant_id, p.amount.0, p.currency_code.as_str())).collect();
    assert_eq!(due, [(None, dec("101.40"), "EUR")], "no breakdown without Instance PriceBreakdown");
    assert_eq!(d.pricing.group.as_ref().map(|g| g.known_groupsize), Some(3));
    // A quote without a client reference and without ResStatus is fine.
    let mut b = drach_transfer();
    b.client_ref = None;
    b.status = None;
    let rs = b.send(&env).await;
    assert!(rs.is_success());
    assert!(rs.reservation_details.unwrap().confirmation.is_empty());
    assert_eq!(env.count("activity_booking").await, 0);
}

async fn price_breakdown_sums_to_the_total(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.instance = Some("PriceBreakdown");
    let rs = b.send(&env).await;
    round_trip(&rs);
    // One PaymentInfo per participant (OpenTravel 2016B PaymentInfo@ParticipantID).
    let d = rs.reservation_details.as_ref().unwrap();
    let parts: Vec<(Option<u64>, Decimal)> = d.payment_info.iter().map(|p| (p.participant_id, p.amount.0)).collect();
    assert_eq!(parts, [(Some(1), dec("39.00")), (Some(2), dec("39.00")), (Some(3), dec("23.40"))]);
    let sum: Decimal = parts.iter().map(|(_, a)| *a).sum();
    assert_eq!(sum, d.pricing.summary.amount.0);
    assert!(d.payment_info.iter().all(|p| p.currency_code == "EUR"));
}

async fn commit_books_once_per_client_reference(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.status = Some("Commit");
    let date = day(10);
    assert_eq!(places_left(&env, "LESPMIBKUI", "TE0CC00A", "TRF", date).await, 20);
    let rs = b.send(&env).await;
    assert!(rs.is_success(), "{rs:?}");
    round_trip(&rs);
    let d = rs.reservation_details.as_ref().unwrap();
    let internal = d.confirmation.iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id.clone();
    assert!(internal.starts_with("ACT-"), "{internal}");
    assert!(d.confirmation.iter().any(|c| c.id_context == Some(IdContext::Client) && c.id == "CLI-ACT-0001"));
    assert_eq!(d.participant_info.len(), 3);
    assert_eq!(d.participant_info[1].individual.as_ref().unwrap().surname.as_deref(), Some("O'Brien & Müller"));
    assert_eq!(d.pickup_dropoff.as_ref().unwrap().location_name.as_deref(), Some("HTL00042"));
    assert_eq!(d.location.as_ref().unwrap().region.value, "LESPMIBKUI");
    // Free until 48 hours before the start (the 08:50 pickup), then 100 %.
    let cancel = d.policy.as_ref().unwrap().cancel.as_ref().unwrap();
    assert_eq!(cancel.cancel_deadline.to_string(), format!("{}T08:50:00", date - Duration::days(2)));
    assert_eq!(cancel.value, "100 % of the price: 101.40 EUR");
    assert_eq!(places_left(&env, "LESPMIBKUI", "TE0CC00A", "TRF", date).await, 17);
    assert_eq!(env.count("activity_booking").await, 1);
    assert_eq!(env.count("activity_booking_participant").await, 3);
    assert_eq!(env.count("activity_booking_pickup").await, 1);

    // The same Commit again: the same booking, no second decrement, no warning.
    let again = b.send(&env).await;
    assert_eq!((&again.reservation_details, &again.warnings), (&rs.reservation_details, &rs.warnings));
    assert_eq!(places_left(&env, "LESPMIBKUI", "TE0CC00A", "TRF", date).await, 17);
    assert_eq!(env.count("activity_booking").await, 1);

    // The same reference with another party: still the first booking, with a warning.
    let mut other = b.clone();
    other.participants = vec![(1, "10", 30)];
    let rs2 = other.send(&env).await;
    let d2 = rs2.reservation_details.as_ref().unwrap();
    assert_eq!(d2.confirmation.iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id, internal);
    assert_eq!(d2.participant_info.len(), 3);
    assert_eq!(warnings_of(rs2.warnings.as_ref())[0].code, Some(ErrorCode::ReservationAlreadyExists));
    assert_eq!(env.count("activity_booking").await, 1);

    // A new reference: a second booking with another Internal reference.
    let mut second = b.clone();
    second.client_ref = Some("CLI-ACT-0002");
    let rs3 = second.send(&env).await;
    let internal3 = &rs3
        .reservation_details
        .as_ref()
        .unwrap()
        .confirmation
        .iter()
        .find(|c| c.id_context == Some(IdContext::Internal))
        .unwrap()
        .id;
    assert_ne!(internal3, &internal);
    assert_eq!(places_left(&env, "LESPMIBKUI", "TE0CC00A", "TRF", date).await, 14);
}

async fn transfer_needs_a_pickup_on_the_booking_date(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.pickup = None;
    let rs = b.send(&env).await;
    round_trip(&rs);
    let e = only_error(&rs);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::RequiredFieldMissing, Some(ErrorCode::RequiredFieldMissing)));
    assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff"));
    // On another day.
    let mut b = drach_transfer();
    b.pickup = Some((format!("{}T08:50:00", day(11)), "HTL00042"));
    assert_eq!(
        only_error(&b.send(&env).await).tag.as_deref(),
        Some("/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff/@DateTime")
    );
    // At a hotel without pickup.
    let mut b = drach_transfer();
    b.pickup = Some((format!("{}T08:50:00", day(10)), "HTL00110"));
    assert_eq!(
        only_error(&b.send(&env).await).tag.as_deref(),
        Some("/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff/@LocationName")
    );
    // A ticket-only service needs none (a pickup sent is ignored, with a warning).
    let mut b = Book::new("LESPMIBKUI", "TE0CC00A", "TIC", day(10));
    b.pickup = Some((format!("{}T08:50:00", day(10)), "HTL00042"));
    let rs = b.send(&env).await;
    assert!(rs.is_success());
    assert!(rs.reservation_details.as_ref().unwrap().pickup_dropoff.is_none());
    assert_eq!(warnings_of(rs.warnings.as_ref()).len(), 1);
}

async fn participant_ids_must_be_unique(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.participants = vec![(1, "10", 44), (1, "10", 42), (3, "8", 9)];
    let rs = b.send(&env).await;
    round_trip(&rs);
    let e = only_error(&rs);
    assert_eq!(e.code, Some(ErrorCode::InvalidValue));
    assert_eq!(
        e.tag.as_deref(),
        Some("/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[2]/Individual/@ParticipantID")
    );
    // A category the service has no price for.
    let mut b = drach_transfer();
    b.participants = vec![(1, "10", 44), (2, "11", 70)];
    let e = only_error(&b.send(&env).await);
    assert_eq!(
        e.tag.as_deref(),
        Some("/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[2]/Category/@QualifierInfo")
    );
}

async fn schedule_is_one_calendar_date_on_which_the_service_runs(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.end = format!("{}T10:00:00", day(11));
    let rs = b.send(&env).await;
    round_trip(&rs);
    let e = only_error(&rs);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::InvalidStartEndDateCombination)));
    assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityBookRQ/BookingInfo/Schedule"));
    // The train does not run on Mondays.
    let monday = next(Weekday::Mon, 3);
    let mut b = Book::new("LESPMIAZ9U", "TE0CC00B", "TRF", monday);
    b.pickup = Some((format!("{monday}T07:35:00"), "HTL00042"));
    assert_eq!(only_error(&b.send(&env).await).code, Some(ErrorCode::InvalidDate));
    // On a Tuesday it does; without product and service codes (one each) it is found too.
    let tuesday = next(Weekday::Tue, 3);
    let mut b = Book::new("LESPMIAZ9U", "TE0CC00B", "TRF", tuesday);
    b.pickup = Some((format!("{tuesday}T07:35:00"), "HTL00042"));
    b.product = None;
    b.service = None;
    let rs = b.send(&env).await;
    assert!(rs.is_success(), "{rs:?}");
    let d = rs.reservation_details.unwrap();
    assert_eq!(d.schedule.start.to_string(), format!("{tuesday}T07:35:00"));
    assert_eq!(d.schedule.end.to_string(), format!("{tuesday}T16:30:00"));
    // A date in the past.
    let b = Book::new("LESPMIBKUI", "TE0CC00A", "TIC", day(-1));
    assert_eq!(only_error(&b.send(&env).await).code, Some(ErrorCode::StartDateInvalid));
    // Several services and none named (as OpenTravel's form has none): the one the request
    // describes, without a pickup the ticket (TIC), with one the transfer (TRF).
    let mut b = Book::new("LESPMIBKUI", "TE0CC00A", "TIC", day(3));
    b.service = None;
    let rs = b.send(&env).await;
    assert_eq!(
        rs.reservation_details.as_ref().map(|d| d.basic_info.supplier_service_code.clone()),
        Some(Some("TIC".into())),
        "{rs:?}"
    );
    b.pickup = Some((format!("{}T08:50:00", day(3)), "HTL00042"));
    let rs = b.send(&env).await;
    assert_eq!(
        rs.reservation_details.as_ref().map(|d| d.basic_info.supplier_service_code.clone()),
        Some(Some("TRF".into())),
        "{rs:?}"
    );
    // Unknown activity.
    let b = Book::new("LESPMI0000", "X", "TIC", day(3));
    assert_eq!(
        only_error(&b.send(&env).await).tag.as_deref(),
        Some("/OTA_TourActivityBookRQ/BookingInfo/BasicInfo/@TourActivityID")
    );
}

/// Values at the edges get a clean Type 3 answer naming the attribute, in a Quote as in a
/// Commit, and nothing is stored: a ParticipantID or an Age of 2^63, a date too far ahead
/// (9999-12-31 would end in a year OTA cannot write), a service that has begun, a pickup after
/// the activity's start.
async fn values_at_the_edges_are_refused_cleanly(b: Backend) {
    let env = env(b).await;
    let big = 1u64 << 63;
    for status in ["Quote", "Commit"] {
        let mut b = drach_transfer();
        b.status = Some(status);
        b.participants = vec![(big, "10", 44)];
        let e = only_error(&b.send(&env).await);
        assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::InvalidValue)), "{status}");
        assert_eq!(
            e.tag.as_deref(),
            Some("/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual/@ParticipantID")
        );
        b.participants = vec![(1, "10", big)];
        let e = only_error(&b.send(&env).await);
        assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::InvalidValue)), "{status}");
        assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityBookRQ/BookingInfo/ParticipantInfo[1]/Individual/@Age"));

        // Too far ahead: the last date that can be written, and the day after the bound.
        let last: NaiveDate = "9999-12-31".parse().unwrap();
        for date in [last, day(ota_gateway::activities::rules::MAX_DAYS_AHEAD + 1)] {
            let mut b = Book::new("LESPMIBKUI", "TE0CC00A", "TIC", date);
            b.status = Some(status);
            let e = only_error(&b.send(&env).await);
            assert_eq!(
                (e.r#type, e.code),
                (ErrorWarningType::BizRule, Some(ErrorCode::StartDateInvalid)),
                "{status} {date}"
            );
            assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityBookRQ/BookingInfo/Schedule/@Start"));
        }

        // A pickup after the start of the activity (10:00).
        let mut b = drach_transfer();
        b.status = Some(status);
        b.pickup = Some((format!("{}T23:00:00", day(10)), "HTL00042"));
        let e = only_error(&b.send(&env).await);
        assert_eq!(e.code, Some(ErrorCode::InvalidValue));
        assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityBookRQ/BookingInfo/PickupDropoff/@DateTime"));
    }
    assert_eq!(env.count("activity_booking").await, 0);

    // Today's morning session (10:00; the transfer picks up at 08:50): bookable and offered
    // before it begins, neither once it has begun.
    // Local times in Mallorca, where the sessions are.
    let at = |h: u32, m: u32| {
        chrono::TimeZone::from_local_datetime(&chrono_tz::Europe::Madrid, &today().and_hms_opt(h, m, 0).unwrap())
            .unwrap()
            .with_timezone(&Utc)
    };
    let rq = avail_rq(
        today(),
        today(),
        &[("Source", "HotelCode", "HTL00042"), ("Service", "Product", "LESPMIBKUI")],
        &[(1, "10")],
        None,
    );
    let offered = |rs: &OtaTourActivityAvailRs| {
        let mut v: Vec<String> = rs
            .tour_activity_info
            .iter()
            .filter(|i| i.basic_info.supplier_product_code.as_deref() == Some("TE0CC00A"))
            .map(|i| i.basic_info.supplier_service_code.clone().unwrap_or_default())
            .collect();
        v.sort();
        v
    };
    let tic = Book::new("LESPMIBKUI", "TE0CC00A", "TIC", today());
    let mut trf = Book::new("LESPMIBKUI", "TE0CC00A", "TRF", today());
    trf.pickup = Some((format!("{}T08:50:00", today()), "HTL00042"));
    for (now, services) in [(at(8, 0), vec!["TIC", "TRF"]), (at(9, 0), vec!["TIC"]), (at(10, 30), vec![])] {
        let mut ctx = env.ctx();
        ctx.now = now;
        let rs = support::answer(ota_gateway::activities::availability(&ctx, &ctx.activities, &rq).await);
        assert_eq!(offered(&rs), services, "offered at {now}");
        for (b, code) in [(&tic, "TIC"), (&trf, "TRF")] {
            let rs = support::answer(ota_gateway::activities::book(&ctx, &ctx.activities, &b.rq()).await);
            if services.contains(&code) {
                assert!(rs.is_success(), "{code} at {now}: {:?}", rs.errors());
            } else {
                let e = only_error(&rs);
                assert_eq!(
                    (e.code, e.tag.as_deref()),
                    (Some(ErrorCode::StartDateInvalid), Some("/OTA_TourActivityBookRQ/BookingInfo/Schedule/@Start")),
                    "{code} at {now}"
                );
            }
        }
    }
}

async fn commit_needs_a_client_reference_and_other_statuses_are_refused(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.status = Some("Commit");
    b.client_ref = None;
    let rs = b.send(&env).await;
    let e = only_error(&rs);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::RequiredFieldMissing, Some(ErrorCode::RequiredFieldMissing)));
    assert_eq!(e.tag.as_deref(), Some("/OTA_TourActivityBookRQ/TPA_Extensions/UniqueID"));
    let mut b = drach_transfer();
    b.status = Some("Book");
    let e = only_error(&b.send(&env).await);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::InvalidActionStatusCode)));
    assert_eq!(env.count("activity_booking").await, 0);
}

async fn no_overbooking(b: Backend) {
    let env = env(b).await;
    let date = day(5);
    // Quote for 3 on a 2-place allotment: 427.
    let mut b = Book::new("LESPMICATA", "CATSUNSET", "TIC", date);
    let e = only_error(&b.send(&env).await);
    assert_eq!((e.r#type, e.code), (ErrorWarningType::BizRule, Some(ErrorCode::NoAvailability)));
    // Two of them fit.
    b.participants.truncate(2);
    assert!(b.send(&env).await.is_success());
}

async fn concurrent_commits_for_the_last_places(b: Backend) {
    let env = Arc::new(env(b).await);
    let date = day(6);
    let mut tasks = Vec::new();
    for i in 0..10 {
        let env = env.clone();
        let mut b = Book::new("LESPMICATA", "CATSUNSET", "TIC", date);
        b.status = Some("Commit");
        b.participants = vec![(1, "10", 30)];
        let reference = format!("CLI-RACE-{i:02}");
        b.client_ref = Some(&reference);
        let rq = b.rq();
        tasks.push(tokio::spawn(async move { env.send(&rq).await }));
    }
    let mut booked = 0;
    for t in tasks {
        let rs = t.await.unwrap();
        if rs.is_success() {
            booked += 1;
        } else {
            assert_eq!(only_error(&rs).code, Some(ErrorCode::NoAvailability));
        }
    }
    assert_eq!(booked, 2);
    assert_eq!(places_left(&env, "LESPMICATA", "CATSUNSET", "TIC", date).await, 0);
    assert_eq!(env.count("activity_booking").await, 2);
}

// ---------------------------------------------------------------------------------------------
// Snapshots (volatile values redacted)

/// Replaces every `YYYY-MM-DD` with `<date>`, an Internal reference `"ACT-…` with `"ACT-<n>`
/// and the `TimeStamp` with `[timestamp]`.
fn redact(xml: &str) -> String {
    let chars: Vec<char> = xml.chars().collect();
    let is_date = |w: &[char]| {
        w.len() == 10
            && w.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == '-' } else { c.is_ascii_digit() })
    };
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if i + 10 <= chars.len() && is_date(&chars[i..i + 10]) {
            out.push_str("<date>");
            i += 10;
        } else if chars[i..].starts_with(&['"', 'A', 'C', 'T', '-']) {
            out.push('"');
            i += 1;
            out.push_str("ACT-<n>");
            i += 4;
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

async fn snapshot_search(b: Backend) {
    let env = env(b).await;
    let rs =
        env.send(&search_rq(day(1), day(14), &[("Source", "HotelCode", "HTL00042")], r#" PrimaryLangID="en""#)).await;
    let xml = round_trip(&rs);
    let xml = xml.replace(&rs.time_stamp.unwrap().to_string(), "[timestamp]");
    insta::assert_snapshot!("snapshot_search", redact(&xml));
}

async fn snapshot_commit(b: Backend) {
    let env = env(b).await;
    let mut b = drach_transfer();
    b.status = Some("Commit");
    b.instance = Some("PriceBreakdown");
    let rs = b.send(&env).await;
    let xml = round_trip(&rs);
    let xml = xml.replace(&rs.time_stamp.unwrap().to_string(), "[timestamp]");
    insta::assert_snapshot!("snapshot_commit", redact(&xml));
}

// ---------------------------------------------------------------------------------------------
// End to end, over HTTP

async fn http_search(b: Backend) {
    let server = support::TestServer::start(b).await;
    let rq = search_rq(
        day(1),
        day(14),
        &[("Source", "HotelCode", "HTL00042")],
        r#" EchoToken="act-e2e-1" PrimaryLangID="es""#,
    );
    let rs: OtaTourActivitySearchRs = server.client().send(&rq).await.unwrap();
    assert!(rs.is_success(), "{rs:?}");
    assert_eq!(rs.echo_token.as_deref(), Some("act-e2e-1"));
    assert!(rs.time_stamp.is_some());
    let ids: Vec<&str> = rs.tour_activity_info.iter().map(|i| i.basic_info.tour_activity_id.as_str()).collect();
    assert_eq!(ids, ["LESPMIAZ9U", "LESPMIBKUI", "LESPMISE01"]);
}

async fn http_commit(b: Backend) {
    let server = support::TestServer::start(b).await;
    let mut b = drach_transfer();
    b.status = Some("Commit");
    b.client_ref = Some("CLI-E2E-1");
    let rq = b.rq();
    let rs = server.client().send(&rq).await.unwrap();
    assert!(rs.is_success(), "{rs:?}");
    let internal = rs
        .reservation_details
        .as_ref()
        .unwrap()
        .confirmation
        .iter()
        .find(|c| c.id_context == Some(IdContext::Internal))
        .unwrap()
        .id
        .clone();
    // Sent again: the same booking.
    let again = server.client().send(&rq).await.unwrap();
    assert_eq!(
        again
            .reservation_details
            .as_ref()
            .unwrap()
            .confirmation
            .iter()
            .find(|c| c.id_context == Some(IdContext::Internal))
            .unwrap()
            .id,
        internal
    );
    assert_eq!(support::count(server.store(), "activity_booking").await, 1);
    // The NBC and availability answer over HTTP too.
    let rs: OtaProductDescriptiveInfoRs = server.client().send(&nbc_rq("LESPMIBKUI", "")).await.unwrap();
    assert!(rs.is_success());
    let rq = avail_rq(day(1), day(2), &[("Source", "HotelCode", "HTL00042")], &[(2, "10")], None);
    let rs: OtaTourActivityAvailRs = server.client().send(&rq).await.unwrap();
    assert!(rs.is_success() && !rs.tour_activity_info.is_empty());
}

backend_tests!(
    search_around_a_hotel,
    search_by_product_and_max_responses,
    search_range_is_at_most_28_days,
    search_unknown_area_and_bad_locations,
    search_language_fallback,
    availability_mf001_every_date_with_group_prices_and_pickups,
    availability_mf002_one_price_from_per_service,
    availability_maximum_price,
    availability_categories_and_allotment,
    activity_nbc_in_the_requested_language,
    activity_nbc_language_fallback_and_all_languages,
    activity_nbc_unknown_id,
    quote_stores_nothing,
    price_breakdown_sums_to_the_total,
    commit_books_once_per_client_reference,
    transfer_needs_a_pickup_on_the_booking_date,
    participant_ids_must_be_unique,
    schedule_is_one_calendar_date_on_which_the_service_runs,
    commit_needs_a_client_reference_and_other_statuses_are_refused,
    values_at_the_edges_are_refused_cleanly,
    no_overbooking,
    concurrent_commits_for_the_last_places,
    snapshot_search,
    snapshot_commit,
    http_search,
    http_commit,
);
