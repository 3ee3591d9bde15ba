//! Hotel domain values ↔ OTA messages: a booking as the `HotelResModify` / `HotelReservation`
//! payload (and the parts of a modify request read back), and a hotel's NBC content.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | a booking as the read and modify payload; a hotel's NBC content |
//! | [`offers`] | availability offers → `OTA_HotelAvailRS` room stays |
//! | [`reservation`] | a hotel booking → `OTA_HotelResRS` |

pub mod offers;
pub mod reservation;

use ota_messages::booking_read::HotelReservation;
use ota_messages::common::{
    Address, CountryName, DateSpan, Position, ReferenceCode, RequestorId, RequestorIdCode, RequestorInstance,
    ResIdSourceContext, ReservationIdCode, RoomStayStatus, Source, Text, TextItem, TextItems,
};
use ota_messages::hotel_descriptive_info as hdi;
use ota_messages::hotel_res_modify as m;
use ota_messages::runtime as rt;
use rust_decimal::Decimal;

use super::booking::{Booking, Comment, ItemRef, RoomSource, Service, TransferLeg, TransferPoint};
use super::catalogue::{Catalogue, Hotel, RoomType};
use crate::shared::cancellation::{self, Penalty};
use crate::shared::lang::Languages;
pub(crate) use crate::shared::mapping::{
    company_message, guest_message, guest_profiles, item_penalties, penalty_message, total,
};
pub use crate::shared::mapping::{list_entry, parse_open};

pub(crate) fn rph_list(rphs: &[u64]) -> Option<Vec<m::RphReference>> {
    (!rphs.is_empty()).then(|| rphs.iter().map(|&rph| m::RphReference { rph }).collect())
}

/// The `CancelPenalties` of a whole booking: what cancelling all its live rooms costs from
/// each deadline on.
pub fn booking_penalties(b: &Booking) -> m::HotelCancelPenalties {
    let items: Vec<(&[Penalty], Decimal)> =
        b.live_rooms().map(|r| (r.penalties.as_slice(), r.total.unwrap_or_default())).collect();
    let steps = if b.is_cancelled() { Vec::new() } else { cancellation::steps(&items) };
    m::HotelCancelPenalties {
        cancel_penalty: steps
            .into_iter()
            .map(|(deadline, cost)| penalty_message(deadline, cost, &b.currency))
            .collect(),
    }
}

/// `RoomTypes` with one `RoomType`: the code as booked, the room's name in the best languages.
pub fn room_types(code: &str, room: Option<&RoomType>, languages: &Languages) -> m::RoomTypes {
    let texts: Vec<Text> = room
        .map(|t| {
            languages
                .select(&t.texts)
                .into_iter()
                .map(|(lang, t)| Text { language: Some(lang.to_string()), value: t.name.clone() })
                .collect()
        })
        .unwrap_or_default();
    m::RoomTypes {
        room_type: vec![m::RoomType {
            room_type_code: Some(code.to_string()),
            room_description: (!texts.is_empty()).then_some(m::TextDescription { text: texts }),
        }],
    }
}

/// The board as a rate feature (`Features/Feature/Description/Text`).
pub fn board_feature(board: &str) -> m::RoomRateFeatures {
    m::RoomRateFeatures {
        feature: vec![m::RoomRateFeature {
            description: Some(m::TextDescription { text: vec![Text { language: None, value: board.to_string() }] }),
        }],
    }
}

/// `BasicPropertyInfo` of a hotel (its name from the catalogue, when known).
pub fn property(code: &str, hotel: Option<&Hotel>) -> m::BasicPropertyInfo {
    m::BasicPropertyInfo { hotel_code: Some(code.to_string()), hotel_name: hotel.map(|h| h.name.clone()) }
}

/// `RoomStays` of a booking, with hotel and room names from the catalogue.
pub fn room_stays(b: &Booking, catalogue: &Catalogue, languages: &Languages) -> Option<m::RoomStays> {
    if b.rooms.is_empty() {
        return None;
    }
    let room_stay = b
        .rooms
        .iter()
        .map(|r| {
            let hotel = catalogue.hotel(&r.hotel);
            m::RoomStay {
                index_number: r.index,
                room_stay_status: r.status.as_deref().map(parse_open::<RoomStayStatus>),
                room_types: Some(room_types(&r.room_type, hotel.and_then(|h| h.room(r.base_room_type())), languages)),
                room_rates: Some(m::RoomRates {
                    room_rate: vec![m::RoomRate {
                        room_type_code: Some(r.room_type.clone()),
                        // The board as the rate plan too: OpenTravel 2016B's form (the ota2016b
                        // dialect writes it; the service's does not).
                        rate_plan_code: Some(r.board.clone()),
                        features: Some(board_feature(&r.board)),
                    }],
                }),
                time_span: Some(DateSpan { start: rt::Date(r.start), end: rt::Date(r.end) }),
                cancel_penalties: (r.is_live() && !b.is_cancelled())
                    .then(|| item_penalties(&r.penalties, r.total.unwrap_or_default(), &b.currency)),
                total: Some(total(&b.currency, r.total.unwrap_or_default())),
                basic_property_info: Some(property(&r.hotel, hotel)),
                tpa_extensions: (!r.sources.is_empty()).then(|| m::RoomStayExtensions {
                    pos: Some(m::RoomStayPos { source: r.sources.iter().map(source_message).collect() }),
                }),
                res_guest_rphs: rph_list(&r.guests).map(|res_guest_rph| m::ResGuestRphs { res_guest_rph }),
                service_rphs: rph_list(&r.services).map(|service_rph| m::ServiceRphs { service_rph }),
                rate_plans: None,
                special_requests: None,
                reference: r.reference.as_ref().map(|x| m::RoomStayReference {
                    id: x.id.clone(),
                    r#type: x.kind.as_deref().map(parse_open::<ReferenceCode>),
                }),
            }
        })
        .collect();
    Some(m::RoomStays { room_stay })
}

/// `Services`.
fn services(b: &Booking) -> Option<m::Services> {
    (!b.services.is_empty()).then(|| m::Services { service: b.services.iter().map(service_message).collect() })
}

/// `ResGuests`.
fn res_guests(b: &Booking) -> Option<m::ResGuests> {
    (!b.guests.is_empty()).then(|| m::ResGuests { res_guest: b.guests.iter().map(guest_message).collect() })
}

/// `ResGlobalInfo`: comments, the (empty) cancel penalties, the total, the references and,
/// last, the hotel of the booking (its first room stay's).
fn res_global_info(b: &Booking, catalogue: &Catalogue) -> m::ResGlobalInfo {
    let booking_id = |context, value: &String| m::HotelReservationId {
        res_id_type: ReservationIdCode::Booking,
        res_id_source_context: context,
        res_id_value: value.clone(),
        item_rph: None,
    };
    let mut ids = vec![
        booking_id(ResIdSourceContext::Client, &b.client_ref),
        booking_id(ResIdSourceContext::Internal, &b.internal_ref),
    ];
    ids.extend(b.item_refs.iter().map(item_ref_message));
    m::ResGlobalInfo {
        comments: comments_element(&b.comments),
        cancel_penalties: Some(booking_penalties(b)),
        total: Some(total(&b.currency, b.total())),
        hotel_reservation_ids: m::HotelReservationIds { hotel_reservation_id: ids },
        special_requests: None,
        basic_property_info: b.rooms.first().map(|r| m::BasicPropertyInfo {
            hotel_code: Some(r.hotel.clone()),
            hotel_name: catalogue.hotel(&r.hotel).map(|h| h.name.clone()),
        }),
    }
}

/// The booking as the payload of a modify answer.
pub fn hotel_res_modify(b: &Booking, catalogue: &Catalogue, languages: &Languages) -> m::HotelResModify {
    m::HotelResModify {
        create_date_time: Some(rt::DateTime::local(b.created)),
        last_update_date_time: Some(rt::DateTime::local(b.updated)),
        unique_id: Vec::new(),
        res_status: None,
        room_stay_reservation: None,
        room_stays: room_stays(b, catalogue, languages),
        services: services(b),
        res_guests: res_guests(b),
        res_global_info: res_global_info(b, catalogue),
    }
}

/// The booking as a full `HotelReservation` of a read.
pub fn hotel_reservation(b: &Booking, catalogue: &Catalogue, languages: &Languages) -> HotelReservation {
    HotelReservation {
        room_stays: room_stays(b, catalogue, languages),
        services: services(b),
        res_guests: res_guests(b),
        res_global_info: Some(res_global_info(b, catalogue)),
        ..list_entry(&b.head())
    }
}

/// The request payload of a modify that changes nothing: the booking of a read, sent back
/// (the read-then-modify flow; the read's `LastModifyDateTime` goes back as the version,
/// `LastUpdateDateTime` in the service's dialect). `None` for a list entry (no `ResGlobalInfo`).
pub fn modify_payload(reservation: &HotelReservation) -> Option<m::HotelResModify> {
    Some(m::HotelResModify {
        create_date_time: reservation.create_date_time,
        last_update_date_time: reservation.last_modify_date_time,
        unique_id: Vec::new(),
        res_status: None,
        room_stay_reservation: None,
        room_stays: reservation.room_stays.clone(),
        services: reservation.services.clone(),
        res_guests: reservation.res_guests.clone(),
        res_global_info: reservation.res_global_info.clone()?,
    })
}

/// `Comments`, or `None` when there are none.
pub(crate) fn comments_element(comments: &[Comment]) -> Option<m::Comments> {
    (!comments.is_empty()).then(|| m::Comments {
        comment: comments
            .iter()
            .map(|c| m::Comment {
                name: c.name.clone(),
                comment_originator_code: c.originator.clone(),
                text: c
                    .texts
                    .iter()
                    .map(|t| m::CommentText { language: t.language.clone(), value: t.text.clone() })
                    .collect(),
            })
            .collect(),
    })
}

fn source_message(s: &RoomSource) -> Source {
    Source {
        requestor_id: RequestorId {
            r#type: parse_open::<RequestorIdCode>(&s.kind),
            id: s.id.clone(),
            id_context: s.id_context.clone(),
            instance: s.instance.as_deref().map(parse_open::<RequestorInstance>),
            message_password: None,
            company_name: s.company.as_ref().map(company_message),
        },
    }
}

fn service_message(s: &Service) -> m::Service {
    m::Service {
        service_inventory_code: Some(s.code.clone()),
        service_rph: Some(s.rph),
        // Written by the ota2016b dialect only (OpenTravel requires them): the form of the
        // service description's booking request (`Type="16" ID="BB-1"`).
        r#type: Some("16".into()),
        id: Some(format!("{}-{}", s.code, s.rph)),
        service_details: rph_list(&s.guests).map(|res_guest_rph| m::ServiceDetails {
            time_span: None,
            res_guest_rphs: Some(m::ResGuestRphs { res_guest_rph }),
            cancel_penalties: None,
            total: None,
        }),
        tpa_extensions: (!s.legs.is_empty()).then(|| m::ServiceExtensions {
            transfer_info_type: Some(m::TransferInfo { transfer_leg: s.legs.iter().map(leg_message).collect() }),
            tour_activity: None,
        }),
    }
}

fn leg_message(l: &TransferLeg) -> m::TransferLeg {
    m::TransferLeg { transfer_origin: point_message(&l.origin), transfer_destination: point_message(&l.destination) }
}

fn point_message(p: &TransferPoint) -> m::TransferEndpoint {
    match p {
        TransferPoint::Hotel(code) => m::TransferEndpoint {
            connecting_transport: None,
            hotel: Some(m::TransferHotel { hotel_code: code.clone() }),
        },
        TransferPoint::Transport(t) => m::TransferEndpoint {
            connecting_transport: Some(m::ConnectingTransport {
                departure_date_time: t.departure.map(rt::DateTime::local),
                arrival_date_time: t.arrival.map(rt::DateTime::local),
                departure_airport: t.departure_airport.clone().map(|location_code| m::Airport { location_code }),
                arrival_airport: t.arrival_airport.clone().map(|location_code| m::Airport { location_code }),
                operating_airline: t.flight.clone().map(|f| m::OperatingAirline { flight_number: Some(f) }),
            }),
            hotel: None,
        },
    }
}

fn item_ref_message(r: &ItemRef) -> m::HotelReservationId {
    m::HotelReservationId {
        res_id_type: parse_open::<ReservationIdCode>(&r.res_id_type),
        res_id_source_context: if r.context == "Internal" {
            ResIdSourceContext::Internal
        } else {
            ResIdSourceContext::Client
        },
        res_id_value: r.value.clone(),
        item_rph: r.item_rph,
    }
}

/// The NBC content of a hotel in `lang` (texts missing in `lang` fall back along the request's
/// preference, then English, then any language).
pub fn hotel_content(h: &Hotel, lang: &str, rph: u64, languages: &Languages) -> hdi::HotelDescriptiveContent {
    let texts = languages.starting_with(lang);
    let description = h.texts.get(lang);
    let country_name = description
        .and_then(|t| t.country_name.clone())
        .or_else(|| texts.pick(&h.texts).and_then(|(_, t)| t.country_name.clone()));
    // A room type: its code in CodeDetail, its name as DescriptiveText, its description (in
    // the language it has) as a text item.
    let guest_room_info = h
        .rooms
        .iter()
        .map(|r| {
            let picked = texts.pick(&r.texts);
            let description = picked.and_then(|(l, t)| t.description.clone().map(|d| (l, d)));
            hdi::GuestRoomInfo {
                code: None,
                code_detail: r.code.clone(),
                multimedia_descriptions: description.map(|(l, d)| hdi::RoomMultimediaDescriptions {
                    multimedia_description: vec![hdi::RoomMultimediaDescription {
                        text_items: TextItems {
                            text_item: vec![TextItem {
                                title: Some("Description".to_string()),
                                description: vec![Text { language: Some(l.to_string()), value: d }],
                            }],
                        },
                    }],
                }),
                descriptive_text: picked.map(|(_, t)| t.name.clone()),
            }
        })
        .collect();
    let hotel_info = hdi::HotelInfo {
        category_codes: Some(hdi::HotelCategoryCodes {
            hotel_category: vec![hdi::HotelCategory {
                code: parse_open::<hdi::HotelCategoryCode>(&h.category_code),
                code_detail: h.category_detail.clone(),
            }],
            guest_room_info,
        }),
        descriptions: description.map(|t| hdi::HotelDescriptions { descriptive_text: t.description.clone() }),
        position: h.position.map(|(lat, lon)| Position { latitude: rt::Decimal(lat), longitude: rt::Decimal(lon) }),
    };
    let image_item: Vec<hdi::ImageItem> = h
        .images
        .iter()
        .map(|img| hdi::ImageItem {
            category: img.category.as_deref().map(parse_open::<hdi::ImageCategoryCode>),
            image_format: img
                .files
                .iter()
                .map(|f| hdi::ImageFormat { width: f.width, height: f.height, url: f.url.clone() })
                .collect(),
            description: texts
                .pick(&img.texts)
                .map(|(l, t)| hdi::ImageDescription {
                    caption: t.caption.clone(),
                    language: Some(l.to_string()),
                    value: t.description.clone(),
                })
                .into_iter()
                .collect(),
        })
        .collect();
    let has_address =
        !h.address_lines.is_empty() || h.city.is_some() || h.postal_code.is_some() || h.country_code.is_some();
    let contact = hdi::HotelContactInfo {
        addresses: has_address.then(|| hdi::Addresses {
            address: vec![Address {
                address_line: h.address_lines.clone(),
                city_name: h.city.clone(),
                postal_code: h.postal_code.clone(),
                country_name: (h.country_code.is_some() || country_name.is_some()).then(|| CountryName {
                    code: h.country_code.clone(),
                    value: country_name.clone().or_else(|| h.country_code.clone()).unwrap_or_default(),
                }),
            }],
        }),
        phones: (!h.phones.is_empty()).then(|| hdi::Phones {
            phone: h
                .phones
                .iter()
                .map(|p| hdi::Phone {
                    phone_number: p.number.clone(),
                    phone_tech_type: p.tech_type.as_deref().map(parse_open::<hdi::PhoneTechType>),
                })
                .collect(),
        }),
        emails: (!h.emails.is_empty()).then(|| hdi::Emails { email: h.emails.clone() }),
    };
    let has_contact = contact.addresses.is_some() || contact.phones.is_some() || contact.emails.is_some();
    hdi::HotelDescriptiveContent {
        language_code: Some(lang.to_string()),
        rph: Some(rph),
        hotel_code: h.code.clone(),
        hotel_name: Some(h.name.clone()),
        hotel_code_context: h.code_context.clone(),
        chain_name: h.chain.clone(),
        last_modified_date: Some(rt::Date(h.last_modified)),
        hotel_info: Some(hotel_info),
        affiliation_info: h.category_text.clone().map(|rating| hdi::HotelAffiliationInfo {
            awards: hdi::HotelAwards { award: vec![hdi::HotelAward { rating }] },
        }),
        multimedia_descriptions: (!image_item.is_empty()).then(|| hdi::HotelMultimediaDescriptions {
            multimedia_description: vec![hdi::HotelMultimediaDescription {
                image_items: hdi::ImageItems { image_item },
            }],
        }),
        contact_infos: has_contact.then(|| hdi::HotelContactInfos { contact_info: vec![contact] }),
    }
}
