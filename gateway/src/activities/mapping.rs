//! Activity domain values → the OTA messages of the four activity operations.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveTime};
use ota_messages::common::Position;
use ota_messages::common::{
    ActivityCategory, ActivityCategoryCode, ActivityLocation, ActivityType, Address, AgeQualifyingCode,
    CategoryAndType, CategoryAndTypeExtensions, CountryName, DateSpan, DateTimeSpan, FurtherCategoryAndType, GeoRegion,
    IdContext, LocationContext, PricingMethod, Region, RegionCode, ReservationIdCode, Text, TextItem, TextItems,
    TourActivityBasicInfo, TourActivityLocation, UniqueId,
};
use ota_messages::product_descriptive_info::{
    ActivityDescriptions, ActivityItemInfo, ActivityMultimediaDescription, ActivityMultimediaDescriptions,
    DescriptiveActivitySchedule, DescriptiveScheduleSummary, TourActivityCategory, TourActivityDescriptiveContent,
};
use ota_messages::runtime as rt;
use ota_messages::tour_activity_avail::{
    AvailActivityDescription, AvailActivityPricing, AvailActivitySchedule, AvailPickupDropoff, AvailPricingSummary,
    AvailScheduleSummary, AvailTourActivityInfo,
};
use ota_messages::tour_activity_book::{
    ActivityCancelPolicy, ActivityPaymentInfo, ActivityPolicy, ActivityReservationDetails, AgeQualifierName,
    BookPricing, BookPricingGroup, BookPricingSummary, BookedParticipantCategory, BookingBasicInfo, PickupDropoff,
    ReservationIndividual, ReservationParticipant,
};
use ota_messages::tour_activity_search::{
    SearchActivityDescription, SearchActivityPricing, SearchActivitySchedule, SearchProcessingInformation,
    SearchTourActivityInfo,
};
use rust_decimal::Decimal;

use ota_messages::booking_read::HotelReservation;
use ota_messages::common::ResIdSourceContext;
use ota_messages::hotel_res_modify as m;

use super::booking::Booking;
use super::catalogue::{Activity, ItemText, Texts, iso_duration};
use super::repo::bookings::Stored;
use super::rules::{AvailabilityMode, Offer};
use crate::shared::booking::{BookingHead, CANCELLED, Guest, RESERVED};
use crate::shared::lang::Languages;
use crate::shared::mapping::{guest_message, item_penalties, list_entry, total};

fn category_code(code: &str) -> ActivityCategoryCode {
    code.parse().unwrap_or_else(|never: std::convert::Infallible| match never {})
}

/// The most `Type`s after one `Category` (OpenTravel 2016B).
pub const MAX_TYPES_PER_CATEGORY: usize = 9;

/// `CategoryAndType` of an activity, in the OpenTravel 2016B form: its first category with that
/// category's types, then each further category with its types in `TPA_Extensions` (each code
/// once, in the order of the content; a category with more than
/// [`MAX_TYPES_PER_CATEGORY`] types continues in a further entry of the same category).
pub fn category_and_type(a: &Activity) -> Option<CategoryAndType> {
    // Categories in their first order, each with its distinct types.
    let mut grouped: Vec<(&str, Vec<&str>)> = Vec::new();
    for (category, type_code) in &a.categories {
        let i = match grouped.iter().position(|(c, _)| c == category) {
            Some(i) => i,
            None => {
                grouped.push((category, Vec::new()));
                grouped.len() - 1
            }
        };
        if let Some(t) = type_code
            && !grouped[i].1.contains(&t.as_str())
        {
            grouped[i].1.push(t);
        }
    }
    let mut entries = grouped.iter().flat_map(|(category, types)| {
        let chunks: Vec<&[&str]> =
            if types.is_empty() { vec![&[][..]] } else { types.chunks(MAX_TYPES_PER_CATEGORY).collect() };
        chunks.into_iter().map(move |chunk| {
            (
                ActivityCategory { code: category_code(category) },
                chunk.iter().map(|t| ActivityType { code: t.to_string() }).collect::<Vec<_>>(),
            )
        })
    });
    let (category, r#type) = entries.next()?;
    let further: Vec<FurtherCategoryAndType> =
        entries.map(|(category, r#type)| FurtherCategoryAndType { category, r#type }).collect();
    Some(CategoryAndType {
        category: Some(category),
        r#type,
        tpa_extensions: (!further.is_empty()).then_some(CategoryAndTypeExtensions { category_and_type: further }),
    })
}

/// `Location` of an activity: address, region, position.
pub fn tour_location(a: &Activity) -> TourActivityLocation {
    let has_address = !a.address.is_empty()
        || a.city.is_some()
        || a.postal_code.is_some()
        || a.country_name.is_some()
        || a.country_code.is_some();
    TourActivityLocation {
        address: has_address.then(|| Address {
            address_line: a.address.clone(),
            city_name: a.city.clone(),
            postal_code: a.postal_code.clone(),
            country_name: (a.country_name.is_some() || a.country_code.is_some()).then(|| CountryName {
                code: a.country_code.clone(),
                value: a.country_name.clone().unwrap_or_default(),
            }),
        }),
        region: Some(GeoRegion { region_code: a.region_code.clone(), value: a.region_name.clone() }),
        position: match (a.latitude, a.longitude) {
            (Some(lat), Some(lon)) => Some(Position { latitude: rt::Decimal(lat), longitude: rt::Decimal(lon) }),
            _ => None,
        },
    }
}

/// The `TourActivityInfo`s of availability offers. What depends on the activity only (its
/// category and type, its location) is built once per activity and copied to its offers.
pub fn availability_infos(
    offers: &[Offer<'_>],
    mode: AvailabilityMode,
    languages: &Languages,
) -> Vec<AvailTourActivityInfo> {
    let mut built: Vec<(&str, Option<CategoryAndType>, TourActivityLocation)> = Vec::new();
    offers
        .iter()
        .map(|o| {
            let a = o.activity;
            let i = match built.iter().position(|(id, ..)| *id == a.id) {
                Some(i) => i,
                None => {
                    built.push((&a.id, category_and_type(a), tour_location(a)));
                    built.len() - 1
                }
            };
            let (_, category, location) = &built[i];
            availability_info(o, mode, languages, category.clone(), location.clone())
        })
        .collect()
}

/// One `TourActivityInfo` of availability, with its activity's category and type and location.
fn availability_info(
    offer: &Offer<'_>,
    mode: AvailabilityMode,
    languages: &Languages,
    category_and_type: Option<CategoryAndType>,
    location: TourActivityLocation,
) -> AvailTourActivityInfo {
    let (a, p, s) = (offer.activity, offer.product, offer.service);
    let text = languages.pick(&a.texts).map(|(_, t)| t);
    let span = s.span(offer.session, offer.hotel);
    let mut pickup_dropoff = Vec::new();
    if mode == AvailabilityMode::AllPrices
        && let Some(h) = offer.hotel.filter(|h| s.transfer && h.pickup)
    {
        for (pickup_ind, at) in [(true, span.start), (false, span.end)] {
            pickup_dropoff.push(AvailPickupDropoff {
                pickup_ind,
                date_time: Some(rt::DateTime::local(at)),
                location_name: Some(h.name.clone().unwrap_or_else(|| h.code.clone())),
                code: Some(h.code.clone()),
                meeting_location: h.meeting_location.clone(),
            });
        }
    }
    let summary = match mode {
        AvailabilityMode::AllPrices => AvailPricingSummary {
            amount: Some(rt::Decimal(offer.price.total)),
            min_charge: None,
            currency_code: s.currency.clone(),
            pricing_type: PricingMethod::PerGroup,
        },
        AvailabilityMode::PriceFrom => AvailPricingSummary {
            amount: None,
            min_charge: Some(rt::Decimal(offer.price.lowest_unit)),
            currency_code: s.currency.clone(),
            pricing_type: PricingMethod::PerPerson,
        },
    };
    AvailTourActivityInfo {
        basic_info: TourActivityBasicInfo {
            tour_activity_id: a.id.clone(),
            supplier_product_code: Some(p.code.clone()),
            supplier_service_code: Some(s.code.clone()),
            name: text.map(|t| t.name.clone()),
            short_name: text.and_then(|t| t.short_name.clone()),
        },
        schedule: AvailActivitySchedule {
            summary: AvailScheduleSummary {
                start: rt::DateTime::local(span.start),
                end: rt::DateTime::local(span.end),
                duration: Some(iso_duration(span.end - span.start)),
            },
        },
        category_and_type,
        description: text
            .and_then(|t| t.short_description.clone())
            .map(|short_description| AvailActivityDescription { short_description }),
        location: Some(location),
        pickup_dropoff,
        pricing: AvailActivityPricing { summary },
    }
}

/// The cheapest price of a search result: (price, currency, product code, service code).
pub type Cheapest<'a> = (Decimal, &'a str, &'a str, &'a str);

/// `ProcessingInformation` of a search answer whose prices are in `currency`: the currency, and
/// as its decimal places the most any of the `prices` has (`29.50` has 2).
pub fn search_processing_information<'p>(
    currency: &str,
    prices: impl IntoIterator<Item = &'p Decimal>,
) -> SearchProcessingInformation {
    let places = prices.into_iter().map(|p| u64::from(p.scale())).max();
    SearchProcessingInformation { pricing_currency: currency.to_string(), decimal_places: places }
}

/// One `TourActivityInfo` of a search.
pub fn search_info(
    a: &Activity,
    first: NaiveDate,
    last: NaiveDate,
    cheapest: Option<Cheapest<'_>>,
    text: Option<&super::catalogue::ActivityText>,
) -> SearchTourActivityInfo {
    let description = text.and_then(|t| {
        (t.short_description.is_some() || t.long_description.is_some()).then(|| SearchActivityDescription {
            short_description: t.short_description.clone(),
            long_description: t.long_description.clone(),
        })
    });
    SearchTourActivityInfo {
        basic_info: TourActivityBasicInfo {
            tour_activity_id: a.id.clone(),
            supplier_product_code: cheapest.map(|(_, _, p, _)| p.to_string()),
            supplier_service_code: cheapest.map(|(_, _, _, s)| s.to_string()),
            name: text.map(|t| t.name.clone()),
            short_name: text.and_then(|t| t.short_name.clone()),
        },
        schedule: SearchActivitySchedule { summary: DateSpan { start: rt::Date(first), end: rt::Date(last) } },
        category_and_type: category_and_type(a),
        description,
        location: Some(tour_location(a)),
        pricing: cheapest.map(|(price, ..)| SearchActivityPricing { min_price: rt::Decimal(price) }),
    }
}

/// The texts to show of the activity NBC: one chosen language, or all of them; remembers the
/// languages served instead of the primary one.
pub struct TextChooser<'l> {
    languages: &'l Languages,
    /// Languages served instead of the primary one.
    pub fallbacks: Vec<String>,
}

impl<'l> TextChooser<'l> {
    /// A chooser for these preferences.
    pub fn new(languages: &'l Languages) -> Self {
        TextChooser { languages, fallbacks: Vec::new() }
    }

    /// The text in the best language, noting a fallback.
    pub fn pick<'t, T>(&mut self, texts: &'t Texts<T>) -> Option<&'t T> {
        self.pick_with_lang(texts).map(|(_, t)| t)
    }

    fn pick_with_lang<'t, T>(&mut self, texts: &'t Texts<T>) -> Option<(&'t str, &'t T)> {
        let (lang, t) = self.languages.pick(texts)?;
        if !self.languages.is_requested(lang) && !self.fallbacks.iter().any(|l| l == lang) {
            self.fallbacks.push(lang.to_string());
        }
        Some((lang, t))
    }

    /// The descriptions of a product or service: every language (`*`), or the chosen one.
    pub fn descriptions(&mut self, texts: &Texts<ItemText>) -> Option<ActivityDescriptions> {
        let with_text: Texts<&String> =
            texts.iter().filter_map(|(lang, t)| t.description.as_ref().map(|d| (lang.clone(), d))).collect();
        let chosen: Vec<Text> = if self.languages.all() {
            with_text.iter().map(|(lang, d)| Text { language: Some(lang.clone()), value: (*d).clone() }).collect()
        } else {
            self.pick_with_lang(&with_text)
                .map(|(lang, d)| Text { language: Some(lang.to_string()), value: (*d).clone() })
                .into_iter()
                .collect()
        };
        if chosen.is_empty() {
            return None;
        }
        Some(ActivityDescriptions {
            multimedia_descriptions: ActivityMultimediaDescriptions {
                multimedia_description: vec![ActivityMultimediaDescription {
                    text_items: TextItems {
                        text_item: vec![TextItem { title: Some("Description".to_string()), description: chosen }],
                    },
                }],
            },
        })
    }
}

/// The contents of an activity NBC answer: the first carries the name, the first schedule
/// (start time of day, duration), the categories and the products and services with their
/// descriptions; one more per other start time carries just that schedule.
pub fn descriptive_contents(
    a: &Activity,
    category_names: &BTreeMap<String, Texts<String>>,
    type_names: &BTreeMap<String, Texts<String>>,
    chooser: &mut TextChooser<'_>,
) -> Vec<TourActivityDescriptiveContent> {
    // Distinct start times with their duration (the first schedule of each start time).
    let mut starts: BTreeMap<NaiveTime, chrono::Duration> = BTreeMap::new();
    for s in a.products.iter().flat_map(|p| &p.schedules) {
        starts.entry(s.start).or_insert(s.end - s.start);
    }
    let schedule = |start: NaiveTime, duration: chrono::Duration| DescriptiveActivitySchedule {
        summary: DescriptiveScheduleSummary {
            start: Some(start.format("%H:%M").to_string()),
            duration: Some(iso_duration(duration)),
        },
    };
    let mut starts = starts.into_iter();
    let first_schedule = match starts.next() {
        Some((start, duration)) => Some(schedule(start, duration)),
        None => a.duration.clone().map(|d| DescriptiveActivitySchedule {
            summary: DescriptiveScheduleSummary { start: None, duration: Some(d) },
        }),
    };
    let name = chooser.pick(&a.texts).map(|t| t.name.clone());
    let mut categories = Vec::new();
    for (category, type_code) in &a.categories {
        let category_name = category_names.get(category).and_then(|names| chooser.pick(names)).cloned();
        let type_name =
            type_code.as_ref().and_then(|t| type_names.get(t)).and_then(|names| chooser.pick(names)).cloned();
        categories.push(TourActivityCategory {
            category_code: category_code(category),
            category_name,
            type_code: type_code.clone(),
            type_name,
        });
    }
    let mut product_info = Vec::new();
    let mut service_info: Vec<ActivityItemInfo> = Vec::new();
    for p in &a.products {
        product_info.push(ActivityItemInfo {
            code: p.code.clone(),
            code_detail: chooser.pick(&p.texts).map(|t| t.name.clone()),
            descriptions: chooser.descriptions(&p.texts),
        });
        for s in &p.services {
            if service_info.iter().any(|x| x.code == s.code) {
                continue;
            }
            service_info.push(ActivityItemInfo {
                code: s.code.clone(),
                code_detail: chooser.pick(&s.texts).map(|t| t.name.clone()),
                descriptions: chooser.descriptions(&s.texts),
            });
        }
    }
    let mut contents = vec![TourActivityDescriptiveContent {
        tour_activity_id: a.id.clone(),
        tour_activity_name: name.clone(),
        rph: Some(1),
        schedule: first_schedule,
        tour_activity_category: categories,
        product_info,
        service_info,
    }];
    for (i, (start, duration)) in starts.enumerate() {
        contents.push(TourActivityDescriptiveContent {
            tour_activity_id: a.id.clone(),
            tour_activity_name: name.clone(),
            rph: Some(i as u64 + 2),
            schedule: Some(schedule(start, duration)),
            tour_activity_category: Vec::new(),
            product_info: Vec::new(),
            service_info: Vec::new(),
        });
    }
    contents
}

/// The `ReservationDetails` of a quoted or stored booking, in the OpenTravel 2016B form. What
/// is due is one `PaymentInfo` with the total, or with `with_breakdown` one per participant (with its
/// `ParticipantID`), which add up to the total.
///
/// Each participant's category is given both as its code and as its OpenTravel name, for the
/// dialect that writes it (`BookedParticipantCategory`).
pub fn reservation_details(b: &Booking, with_breakdown: bool) -> ActivityReservationDetails {
    let mut confirmation = Vec::new();
    if let Some(c) = &b.client_reference {
        confirmation.push(UniqueId {
            r#type: ReservationIdCode::Booking,
            id: c.clone(),
            id_context: Some(IdContext::Client),
            ..UniqueId::default()
        });
    }
    if let Some(r) = &b.reference {
        confirmation.push(UniqueId {
            r#type: ReservationIdCode::Booking,
            id: r.clone(),
            id_context: Some(IdContext::Internal),
            ..UniqueId::default()
        });
    }
    let participant_info = b
        .participants
        .iter()
        .map(|p| ReservationParticipant {
            category: Some({
                let code: AgeQualifyingCode =
                    p.category.parse().unwrap_or_else(|never: std::convert::Infallible| match never {});
                BookedParticipantCategory { qualifier_info: age_qualifier_name(&code), qualifier_info_attr: Some(code) }
            }),
            individual: Some(ReservationIndividual {
                age: p.age.and_then(|a| u64::try_from(a).ok()),
                participant_id: u64::try_from(p.participant_id).ok(),
                name_prefix: p.name_prefix.clone(),
                given_name: p.given_name.clone(),
                surname: p.surname.clone(),
            }),
        })
        .collect();
    let payment_info = if with_breakdown {
        b.participants
            .iter()
            .map(|p| ActivityPaymentInfo {
                amount: rt::Decimal(p.amount),
                currency_code: b.currency.clone(),
                participant_id: u64::try_from(p.participant_id).ok(),
            })
            .collect()
    } else {
        vec![ActivityPaymentInfo {
            amount: rt::Decimal(b.total),
            currency_code: b.currency.clone(),
            participant_id: None,
        }]
    };
    ActivityReservationDetails {
        basic_info: BookingBasicInfo {
            tour_activity_id: b.activity_id.clone(),
            supplier_product_code: Some(b.product_code.clone()),
            supplier_service_code: Some(b.service_code.clone()),
        },
        confirmation,
        participant_info,
        payment_info,
        schedule: DateTimeSpan { start: rt::DateTime::local(b.start), end: rt::DateTime::local(b.end) },
        location: Some(ActivityLocation {
            context: Some(LocationContext::Service),
            region: Region { region_code: Some(RegionCode::Product), region_name: None, value: b.activity_id.clone() },
        }),
        pickup_dropoff: b.pickup.as_ref().map(|p| PickupDropoff {
            date_time: Some(rt::DateTime::local(p.date_time)),
            location_name: Some(p.location_name.clone()),
            pickup_ind: Some(p.pickup_ind),
        }),
        policy: Some(ActivityPolicy {
            cancel: Some(ActivityCancelPolicy {
                cancel_deadline: rt::DateTime::local(b.free_cancellation_until()),
                value: format!("100 % of the price: {} {}", b.total, b.currency),
            }),
        }),
        pricing: BookPricing {
            summary: BookPricingSummary { amount: rt::Decimal(b.total), currency_code: b.currency.clone() },
            group: Some(BookPricingGroup { known_groupsize: b.participants.len() as u64 }),
        },
    }
}

/// An activity booking as a booking read shows it, within what `OTA_ResRetrieveRS` allows (it
/// has no tour-activity line): a `HotelReservation` with `RoomStayReservation="false"`, no room
/// stays, one `Service` — the activity's service, its session as `ServiceDetails/TimeSpan`,
/// its participants as `ResGuestRPHs` (their positions, 1-based), its cancellation terms and
/// price, the activity, product, service and pickup in `TPA_Extensions/TourActivity` — the
/// participants as `ResGuests`, and both references.
pub(crate) fn read_reservation(s: &Stored, activity_name: Option<&str>) -> HotelReservation {
    let b = &s.booking;
    let internal = b.reference.clone().unwrap_or_default();
    let client = b.client_reference.clone().unwrap_or_default();
    let total_now = s.cancelled.map_or(b.total, |c| c.penalty);
    let live = s.cancelled.is_none();
    let penalties = live.then(|| item_penalties(&s.penalties, b.total, &b.currency));
    let guests: Vec<m::RphReference> = (1..=b.participants.len() as u64).map(|rph| m::RphReference { rph }).collect();
    let service = m::Service {
        service_inventory_code: Some(b.service_code.clone()),
        service_rph: Some(1),
        // Written by the ota2016b dialect only (OpenTravel requires them): the item reference.
        r#type: Some("37".into()),
        id: Some(format!("{internal}-1")),
        service_details: Some(m::ServiceDetails {
            time_span: Some(m::LocalDateTimeSpan {
                start: rt::DateTime::local(b.start),
                end: rt::DateTime::local(b.end),
            }),
            res_guest_rphs: (!guests.is_empty()).then_some(m::ResGuestRphs { res_guest_rph: guests }),
            cancel_penalties: penalties.clone(),
            total: Some(total(&b.currency, total_now)),
        }),
        tpa_extensions: Some(m::ServiceExtensions {
            transfer_info_type: None,
            tour_activity: Some(m::TourActivityService {
                tour_activity_id: b.activity_id.clone(),
                supplier_product_code: b.product_code.clone(),
                supplier_service_code: b.service_code.clone(),
                name: activity_name.map(str::to_string),
                pickup_date_time: b.pickup.as_ref().map(|p| rt::DateTime::local(p.date_time)),
                pickup_location: b.pickup.as_ref().map(|p| p.location_name.clone()),
            }),
        }),
    };
    let res_guest = b
        .participants
        .iter()
        .enumerate()
        .map(|(i, p)| {
            guest_message(&Guest {
                rph: i as u64 + 1,
                age_code: p.category.clone(),
                birth_date: None,
                prefix: p.name_prefix.clone(),
                given: p.given_name.clone(),
                surname: p.surname.clone(),
                age: p.age.and_then(|a| u64::try_from(a).ok()),
            })
        })
        .collect();
    let id = |context, value: &String| m::HotelReservationId {
        res_id_type: ReservationIdCode::Booking,
        res_id_source_context: context,
        res_id_value: value.clone(),
        item_rph: None,
    };
    let mut ids = vec![id(ResIdSourceContext::Client, &client), id(ResIdSourceContext::Internal, &internal)];
    ids.push(m::HotelReservationId {
        res_id_type: ReservationIdCode::Item,
        res_id_source_context: ResIdSourceContext::Internal,
        res_id_value: format!("{internal}-1"),
        item_rph: Some(1),
    });
    let head = BookingHead {
        internal_ref: internal,
        client_ref: client,
        company: None,
        status: if live { RESERVED.to_string() } else { CANCELLED.to_string() },
        created: s.created.naive_utc(),
        updated: s.updated.naive_utc(),
    };
    HotelReservation {
        services: Some(m::Services { service: vec![service] }),
        res_guests: Some(m::ResGuests { res_guest }),
        res_global_info: Some(m::ResGlobalInfo {
            comments: None,
            cancel_penalties: Some(penalties.unwrap_or(m::HotelCancelPenalties { cancel_penalty: Vec::new() })),
            total: Some(total(&b.currency, total_now)),
            hotel_reservation_ids: m::HotelReservationIds { hotel_reservation_id: ids },
            special_requests: None,
            basic_property_info: None,
        }),
        ..list_line(&head)
    }
}

/// The list line of an activity booking: as a hotel booking's, with `RoomStayReservation="false"`.
pub fn list_line(head: &BookingHead) -> HotelReservation {
    HotelReservation { room_stay_reservation: Some(false), ..list_entry(head) }
}

/// The OpenTravel 2016B AgeQualifyingEnum name of a category code, for the codes that have one.
fn age_qualifier_name(code: &AgeQualifyingCode) -> Option<AgeQualifierName> {
    match code {
        AgeQualifyingCode::Adult => Some(AgeQualifierName::Adult),
        AgeQualifyingCode::Child => Some(AgeQualifierName::Child),
        AgeQualifyingCode::Infant => Some(AgeQualifierName::Infant),
        AgeQualifyingCode::Senior => Some(AgeQualifierName::Senior),
        AgeQualifyingCode::Other(_) => None,
    }
}
