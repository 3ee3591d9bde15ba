//! The hotel booking as stored: one [`Booking`] with its room stays, services, guests,
//! comments and references. The same types are the `bookings` of the import file (see
//! [`super::Content`]) and are turned into the `HotelResModify` / `HotelReservation` shapes of
//! the messages here.

use std::collections::{BTreeMap, HashMap};

use chrono::{NaiveDate, NaiveDateTime};
use ota_messages::booking_read::{BookingStatus, HotelReservation, ReservationUniqueId};
use ota_messages::common::{
    AgeQualifyingCode, CompanyName, DateSpan, IdContext, PersonName, ReferenceCode, RequestorId, RequestorIdCode,
    RequestorInstance, ResIdSourceContext, ReservationIdCode, RoomStayStatus, Source, Text, Total,
};
use ota_messages::hotel_res_modify as m;
use ota_messages::runtime as rt;
use rust_decimal::Decimal;
use serde::Deserialize;

use super::lang::LangPref;

/// Serde helpers: values written as strings in the import file (dates, date-times, decimals)
/// and parsed with their `FromStr`.
pub(crate) mod de {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::{Deserialize, Deserializer};

    /// A required value.
    pub fn req<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<T, D::Error>
    where
        T::Err: Display,
    {
        let s = String::deserialize(d)?;
        s.parse().map_err(|e| serde::de::Error::custom(format!("{s:?}: {e}")))
    }

    /// An optional value (absent or `null` is `None`).
    pub fn opt<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error>
    where
        T::Err: Display,
    {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) => s.parse().map(Some).map_err(|e| serde::de::Error::custom(format!("{s:?}: {e}"))),
        }
    }
}

/// The format of stored and answered local date-times.
pub(crate) const DATE_TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%S";

/// A hotel booking.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Booking {
    /// The gateway's booking reference (`ResID_SourceContext="Internal"`), unique.
    pub internal_ref: String,
    /// The partner's booking reference (`ResID_SourceContext="Client"`), unique per owner.
    pub client_ref: String,
    /// The id of the requestor that owns the booking; only it can read or modify it.
    pub owner: String,
    /// The company that issued the client reference (`UniqueID/CompanyName` of a read).
    #[serde(default)]
    pub company: Option<Company>,
    /// The booking status: `Reserved`, `Cancelled`, … (default `Reserved`).
    #[serde(default = "reserved")]
    pub status: String,
    /// When the booking was created (local date-time `YYYY-MM-DDThh:mm:ss`).
    #[serde(deserialize_with = "de::req")]
    pub created: NaiveDateTime,
    /// When the booking was last changed (local date-time); defaults to `created`.
    #[serde(default, deserialize_with = "de::opt")]
    pub last_update: Option<NaiveDateTime>,
    /// The ISO 4217 currency of every amount of the booking.
    pub currency: String,
    /// The room stays (1 to 5).
    pub rooms: Vec<Room>,
    /// The services (transfers, boards, …).
    #[serde(default)]
    pub services: Vec<Service>,
    /// The guests; the first one is the lead guest.
    pub guests: Vec<Guest>,
    /// The booking comments.
    #[serde(default)]
    pub comments: Vec<Comment>,
    /// Further `HotelReservationID`s (item level, Type 37).
    #[serde(default)]
    pub item_refs: Vec<ItemRef>,
}

fn reserved() -> String {
    "Reserved".to_string()
}

/// A company name with its optional code and short name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Company {
    /// The name (element text).
    pub name: String,
    /// `Code`.
    #[serde(default)]
    pub code: Option<String>,
    /// `CompanyShortName`.
    #[serde(default)]
    pub short_name: Option<String>,
}

/// One room stay of a booking.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Room {
    /// `IndexNumber`.
    #[serde(default)]
    pub index: Option<u64>,
    /// `RoomStayStatus` (`Book`, …).
    #[serde(default)]
    pub status: Option<String>,
    /// The hotel (`BasicPropertyInfo@HotelCode`).
    pub hotel: String,
    /// The room type as booked (`RoomTypeCode`), e.g. `RMSD000000` or `RMSD000000;CT12/RP3`.
    pub room_type: String,
    /// The board code (`SC`, `BB`, `HB`, `FB`, `AI`).
    pub board: String,
    /// First night.
    #[serde(deserialize_with = "de::req")]
    pub start: NaiveDate,
    /// Departure day (the last night is the day before).
    #[serde(deserialize_with = "de::req")]
    pub end: NaiveDate,
    /// The price of the stay (`AmountAfterTax`); when absent in the import file it is priced
    /// from the hotel's rates.
    #[serde(default, deserialize_with = "de::opt")]
    pub total: Option<Decimal>,
    /// The guests in this room (`ResGuestRPH`s).
    #[serde(default)]
    pub guests: Vec<u64>,
    /// The services of this room (`ServiceRPH`s).
    #[serde(default)]
    pub services: Vec<u64>,
    /// `Reference@ID` / `@Type`.
    #[serde(default)]
    pub reference: Option<RoomReference>,
    /// `TPA_Extensions/POS/Source/RequestorID`s.
    #[serde(default)]
    pub sources: Vec<RoomSource>,
}

impl Room {
    /// The room type code without its `;contract/rate-plan` suffix: the code of the hotel's
    /// room type and rates.
    pub fn base_room_type(&self) -> &str {
        base_code(&self.room_type)
    }

    /// The number of nights.
    pub fn nights(&self) -> i64 {
        (self.end - self.start).num_days()
    }
}

/// A room type code without its `;contract/rate-plan` suffix.
pub(crate) fn base_code(code: &str) -> &str {
    code.split_once(';').map_or(code, |(base, _)| base)
}

/// The reference attached to a room stay.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomReference {
    /// `ID`.
    #[serde(default)]
    pub id: Option<String>,
    /// `Type` (14 = reservation).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// A `RequestorID` of a room stay's extension (Types 4, 39, 2, 45 seen).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomSource {
    /// `Type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `ID`.
    pub id: String,
    /// `ID_Context`.
    #[serde(default)]
    pub id_context: Option<String>,
    /// `Instance`.
    #[serde(default)]
    pub instance: Option<String>,
    /// `CompanyName`.
    #[serde(default)]
    pub company: Option<Company>,
}

/// A booked service.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Service {
    /// `ServiceRPH`.
    pub rph: u64,
    /// `ServiceInventoryCode` (a board code, `TRF`, …).
    pub code: String,
    /// The guests using the service (`ResGuestRPH`s).
    #[serde(default)]
    pub guests: Vec<u64>,
    /// The legs of a transfer.
    #[serde(default)]
    pub legs: Vec<TransferLeg>,
}

/// One leg of a transfer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferLeg {
    /// Where the leg starts.
    pub origin: TransferPoint,
    /// Where the leg ends.
    pub destination: TransferPoint,
}

/// One end of a transfer leg.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TransferPoint {
    /// A hotel, by code.
    Hotel(String),
    /// A connecting flight.
    Transport(Transport),
}

/// A flight connecting with a transfer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transport {
    /// `DepartureDateTime` (local).
    #[serde(default, deserialize_with = "de::opt")]
    pub departure: Option<NaiveDateTime>,
    /// `ArrivalDateTime` (local).
    #[serde(default, deserialize_with = "de::opt")]
    pub arrival: Option<NaiveDateTime>,
    /// `DepartureAirport@LocationCode`.
    #[serde(default)]
    pub departure_airport: Option<String>,
    /// `ArrivalAirport@LocationCode`.
    #[serde(default)]
    pub arrival_airport: Option<String>,
    /// `OperatingAirline@FlightNumber`.
    #[serde(default)]
    pub flight: Option<String>,
}

/// A guest of the booking.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guest {
    /// `ResGuestRPH`.
    pub rph: u64,
    /// `AgeQualifyingCode` (10 adult, 8 child, 7 infant, 11 senior).
    pub age_code: String,
    /// `BirthDate`.
    #[serde(default, deserialize_with = "de::opt")]
    pub birth_date: Option<NaiveDate>,
    /// `NamePrefix`.
    #[serde(default)]
    pub prefix: Option<String>,
    /// `GivenName`.
    #[serde(default)]
    pub given: Option<String>,
    /// `Surname`.
    #[serde(default)]
    pub surname: Option<String>,
    /// `GuestCount@Age`.
    #[serde(default)]
    pub age: Option<u64>,
}

/// A booking comment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Comment {
    /// `Name`.
    #[serde(default)]
    pub name: Option<String>,
    /// `CommentOriginatorCode`.
    #[serde(default)]
    pub originator: Option<String>,
    /// The `Text` elements.
    #[serde(default)]
    pub texts: Vec<LangText>,
}

/// A text with an optional language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LangText {
    /// `Language`.
    #[serde(default)]
    pub language: Option<String>,
    /// The text.
    pub text: String,
}

/// A further `HotelReservationID` (item level).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemRef {
    /// `ResID_Type` (37 item level).
    #[serde(default = "item_type")]
    pub res_id_type: String,
    /// `ResID_SourceContext`: `Client` or `Internal`.
    pub context: String,
    /// `ResID_Value`.
    pub value: String,
    /// `Item_RPH`.
    #[serde(default)]
    pub item_rph: Option<u64>,
}

fn item_type() -> String {
    "37".to_string()
}

/// Names from the catalogue that a booking answer shows: hotel names and room type names per
/// language (keyed by hotel code and base room code).
#[derive(Debug, Clone, Default)]
pub(crate) struct Labels {
    pub hotel_names: HashMap<String, String>,
    pub room_names: HashMap<(String, String), BTreeMap<String, String>>,
}

/// Rounds an amount to cents and writes it with two decimals.
pub(crate) fn money(d: Decimal) -> Decimal {
    let mut d = d.round_dp(2);
    d.rescale(2);
    d
}

impl Booking {
    /// The last update (the creation when never changed).
    pub fn updated(&self) -> NaiveDateTime {
        self.last_update.unwrap_or(self.created)
    }

    /// The booking total: the sum of its room stays.
    pub fn total(&self) -> Decimal {
        money(self.rooms.iter().filter_map(|r| r.total).sum())
    }

    /// First arrival and last departure of the room stays.
    pub fn span(&self) -> Option<(NaiveDate, NaiveDate)> {
        let start = self.rooms.iter().map(|r| r.start).min()?;
        let end = self.rooms.iter().map(|r| r.end).max()?;
        Some((start, end))
    }

    /// True when the status is `Cancelled`.
    pub fn is_cancelled(&self) -> bool {
        self.status.eq_ignore_ascii_case("Cancelled")
    }

    fn total_element(&self, amount: Decimal) -> Total {
        Total { currency_code: Some(self.currency.clone()), amount_after_tax: Some(rt::Decimal(money(amount))) }
    }

    /// `RoomStays`, with the room names in the preferred languages.
    pub(crate) fn room_stays(&self, labels: &Labels, pref: &LangPref) -> Option<m::RoomStays> {
        if self.rooms.is_empty() {
            return None;
        }
        let room_stay = self
            .rooms
            .iter()
            .map(|r| {
                let names = labels.room_names.get(&(r.hotel.clone(), r.base_room_type().to_string()));
                let texts: Vec<Text> = names
                    .map(|names| pref.select(names).into_iter().map(|(lang, name)| Text { language: Some(lang.to_string()), value: name.clone() }).collect())
                    .unwrap_or_default();
                m::RoomStay {
                    index_number: r.index,
                    room_stay_status: r.status.as_deref().map(parse_open::<RoomStayStatus>),
                    room_types: Some(m::RoomTypes {
                        room_type: vec![m::RoomType {
                            room_type_code: Some(r.room_type.clone()),
                            room_description: (!texts.is_empty()).then_some(m::TextDescription { text: texts }),
                        }],
                    }),
                    room_rates: Some(m::RoomRates {
                        room_rate: vec![m::RoomRate {
                            room_type_code: Some(r.room_type.clone()),
                            features: Some(m::RoomRateFeatures {
                                feature: vec![m::RoomRateFeature {
                                    description: Some(m::TextDescription { text: vec![Text { language: None, value: r.board.clone() }] }),
                                }],
                            }),
                        }],
                    }),
                    time_span: Some(DateSpan { start: rt::Date(r.start), end: rt::Date(r.end) }),
                    total: Some(self.total_element(r.total.unwrap_or_default())),
                    basic_property_info: Some(m::BasicPropertyInfo {
                        hotel_code: Some(r.hotel.clone()),
                        hotel_name: labels.hotel_names.get(&r.hotel).cloned(),
                    }),
                    tpa_extensions: (!r.sources.is_empty()).then(|| m::RoomStayExtensions {
                        pos: Some(m::RoomStayPos { source: r.sources.iter().map(RoomSource::to_message).collect() }),
                    }),
                    res_guest_rphs: rph_list(&r.guests).map(|res_guest_rph| m::ResGuestRphs { res_guest_rph }),
                    service_rphs: rph_list(&r.services).map(|service_rph| m::ServiceRphs { service_rph }),
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
    pub(crate) fn services_element(&self) -> Option<m::Services> {
        if self.services.is_empty() {
            return None;
        }
        Some(m::Services { service: self.services.iter().map(Service::to_message).collect() })
    }

    /// `ResGuests`.
    pub(crate) fn res_guests(&self) -> Option<m::ResGuests> {
        if self.guests.is_empty() {
            return None;
        }
        Some(m::ResGuests { res_guest: self.guests.iter().map(Guest::to_message).collect() })
    }

    /// `ResGlobalInfo`: comments, the (empty) cancel penalties, the total and the references.
    pub(crate) fn res_global_info(&self) -> m::ResGlobalInfo {
        let mut ids = vec![
            m::HotelReservationId {
                res_id_type: ReservationIdCode::Booking,
                res_id_source_context: ResIdSourceContext::Client,
                res_id_value: self.client_ref.clone(),
                item_rph: None,
            },
            m::HotelReservationId {
                res_id_type: ReservationIdCode::Booking,
                res_id_source_context: ResIdSourceContext::Internal,
                res_id_value: self.internal_ref.clone(),
                item_rph: None,
            },
        ];
        ids.extend(self.item_refs.iter().map(ItemRef::to_message));
        m::ResGlobalInfo {
            comments: comments_element(&self.comments),
            cancel_penalties: Some(m::CancelPenalties {}),
            total: Some(self.total_element(self.total())),
            hotel_reservation_ids: m::HotelReservationIds { hotel_reservation_id: ids },
        }
    }

    /// The booking as the payload of a modify answer.
    pub(crate) fn hotel_res_modify(&self, labels: &Labels, pref: &LangPref) -> m::HotelResModify {
        m::HotelResModify {
            create_date_time: Some(rt::DateTime::local(self.created)),
            last_update_date_time: Some(rt::DateTime::local(self.updated())),
            room_stays: self.room_stays(labels, pref),
            services: self.services_element(),
            res_guests: self.res_guests(),
            res_global_info: self.res_global_info(),
        }
    }

    /// The booking as a full `HotelReservation` of a read.
    pub(crate) fn hotel_reservation(&self, labels: &Labels, pref: &LangPref) -> HotelReservation {
        HotelReservation {
            room_stays: self.room_stays(labels, pref),
            services: self.services_element(),
            res_guests: self.res_guests(),
            res_global_info: Some(self.res_global_info()),
            ..self.head().list_entry()
        }
    }

    /// The reference part of the booking.
    pub(crate) fn head(&self) -> Head {
        Head {
            internal_ref: self.internal_ref.clone(),
            client_ref: self.client_ref.clone(),
            company: self.company.clone(),
            status: self.status.clone(),
            created: self.created,
            updated: self.updated(),
        }
    }
}

/// The references, status and dates of a booking: what a list read shows.
#[derive(Debug, Clone)]
pub(crate) struct Head {
    pub internal_ref: String,
    pub client_ref: String,
    pub company: Option<Company>,
    pub status: String,
    pub created: NaiveDateTime,
    pub updated: NaiveDateTime,
}

impl Head {
    /// A `HotelReservation` with the status, the dates and both references only.
    pub(crate) fn list_entry(&self) -> HotelReservation {
        HotelReservation {
            res_status: parse_open::<BookingStatus>(&self.status),
            create_date_time: Some(rt::DateTime::local(self.created)),
            last_update_date_time: Some(rt::DateTime::local(self.updated)),
            unique_id: vec![
                ReservationUniqueId {
                    r#type: ReservationIdCode::Booking,
                    id: self.internal_ref.clone(),
                    id_context: IdContext::Internal,
                    company_name: None,
                },
                ReservationUniqueId {
                    r#type: ReservationIdCode::Booking,
                    id: self.client_ref.clone(),
                    id_context: IdContext::Client,
                    company_name: self.company.as_ref().map(Company::to_message),
                },
            ],
            room_stays: None,
            services: None,
            res_guests: None,
            res_global_info: None,
        }
    }
}

/// Parses a value of an open code list (never fails: unknown values are kept as written).
pub(crate) fn parse_open<T: std::str::FromStr<Err = std::convert::Infallible>>(s: &str) -> T {
    match s.parse() {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

fn rph_list(rphs: &[u64]) -> Option<Vec<m::RphReference>> {
    (!rphs.is_empty()).then(|| rphs.iter().map(|&rph| m::RphReference { rph }).collect())
}

/// `Comments`, or `None` when there are none.
pub(crate) fn comments_element(comments: &[Comment]) -> Option<m::Comments> {
    if comments.is_empty() {
        return None;
    }
    Some(m::Comments {
        comment: comments
            .iter()
            .map(|c| m::Comment {
                name: c.name.clone(),
                comment_originator_code: c.originator.clone(),
                text: c.texts.iter().map(|t| Text { language: t.language.clone(), value: t.text.clone() }).collect(),
            })
            .collect(),
    })
}

/// The comments of a request (or answer), as stored.
pub(crate) fn comments_from(comments: Option<&m::Comments>) -> Vec<Comment> {
    comments
        .map(|c| {
            c.comment
                .iter()
                .map(|c| Comment {
                    name: c.name.clone(),
                    originator: c.comment_originator_code.clone(),
                    texts: c.text.iter().map(|t| LangText { language: t.language.clone(), text: t.value.clone() }).collect(),
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Company {
    pub(crate) fn to_message(&self) -> CompanyName {
        CompanyName { company_short_name: self.short_name.clone(), code: self.code.clone(), value: self.name.clone() }
    }

    pub(crate) fn from_message(c: &CompanyName) -> Self {
        Company { name: c.value.clone(), code: c.code.clone(), short_name: c.company_short_name.clone() }
    }
}

impl RoomSource {
    pub(crate) fn to_message(&self) -> Source {
        Source {
            requestor_id: RequestorId {
                r#type: parse_open::<RequestorIdCode>(&self.kind),
                id: self.id.clone(),
                id_context: self.id_context.clone(),
                instance: self.instance.as_deref().map(parse_open::<RequestorInstance>),
                message_password: None,
                company_name: self.company.as_ref().map(Company::to_message),
            },
        }
    }

    /// The stored form of a request's source (its `MessagePassword` is dropped).
    pub(crate) fn from_message(s: &Source) -> Self {
        let r = &s.requestor_id;
        RoomSource {
            kind: r.r#type.as_str().to_string(),
            id: r.id.clone(),
            id_context: r.id_context.clone(),
            instance: r.instance.as_ref().map(|i| i.as_str().to_string()),
            company: r.company_name.as_ref().map(Company::from_message),
        }
    }
}

impl Service {
    fn to_message(&self) -> m::Service {
        m::Service {
            service_inventory_code: Some(self.code.clone()),
            service_rph: Some(self.rph),
            service_details: rph_list(&self.guests)
                .map(|res_guest_rph| m::ServiceDetails { res_guest_rphs: Some(m::ResGuestRphs { res_guest_rph }) }),
            tpa_extensions: (!self.legs.is_empty()).then(|| m::ServiceExtensions {
                transfer_info_type: Some(m::TransferInfo { transfer_leg: self.legs.iter().map(TransferLeg::to_message).collect() }),
            }),
        }
    }

    /// The transfer legs of a request's service, as stored; `None` when a leg end is neither a
    /// hotel nor a connecting transport (or both).
    pub(crate) fn legs_from(s: &m::Service) -> Option<Vec<TransferLeg>> {
        let legs = s
            .tpa_extensions
            .as_ref()
            .and_then(|x| x.transfer_info_type.as_ref())
            .map(|t| t.transfer_leg.as_slice())
            .unwrap_or_default();
        legs.iter()
            .map(|l| Some(TransferLeg { origin: TransferPoint::from_message(&l.transfer_origin)?, destination: TransferPoint::from_message(&l.transfer_destination)? }))
            .collect()
    }
}

impl TransferLeg {
    fn to_message(&self) -> m::TransferLeg {
        m::TransferLeg { transfer_origin: self.origin.to_message(), transfer_destination: self.destination.to_message() }
    }
}

impl TransferPoint {
    fn to_message(&self) -> m::TransferEndpoint {
        match self {
            TransferPoint::Hotel(code) => m::TransferEndpoint { connecting_transport: None, hotel: Some(m::TransferHotel { hotel_code: code.clone() }) },
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

    fn from_message(e: &m::TransferEndpoint) -> Option<Self> {
        match (&e.hotel, &e.connecting_transport) {
            (Some(h), None) => Some(TransferPoint::Hotel(h.hotel_code.clone())),
            (None, Some(t)) => Some(TransferPoint::Transport(Transport {
                departure: t.departure_date_time.map(|d| d.local),
                arrival: t.arrival_date_time.map(|d| d.local),
                departure_airport: t.departure_airport.as_ref().map(|a| a.location_code.clone()),
                arrival_airport: t.arrival_airport.as_ref().map(|a| a.location_code.clone()),
                flight: t.operating_airline.as_ref().and_then(|a| a.flight_number.clone()),
            })),
            _ => None,
        }
    }
}

impl Guest {
    fn to_message(&self) -> m::ResGuest {
        let has_name = self.prefix.is_some() || self.given.is_some() || self.surname.is_some();
        let has_profile = has_name || self.birth_date.is_some();
        m::ResGuest {
            age_qualifying_code: Some(parse_open::<AgeQualifyingCode>(&self.age_code)),
            res_guest_rph: Some(self.rph),
            profiles: has_profile.then(|| m::GuestProfiles {
                profile_info: m::ProfileInfo {
                    profile: m::Profile {
                        customer: m::Customer {
                            birth_date: self.birth_date.map(rt::Date),
                            person_name: has_name.then(|| PersonName {
                                name_prefix: self.prefix.clone(),
                                given_name: self.given.clone(),
                                surname: self.surname.clone(),
                            }),
                        },
                    },
                },
            }),
            guest_counts: self.age.map(|age| m::GuestCounts { guest_count: vec![m::GuestCount { age: Some(age) }] }),
        }
    }
}

impl ItemRef {
    fn to_message(&self) -> m::HotelReservationId {
        m::HotelReservationId {
            res_id_type: parse_open::<ReservationIdCode>(&self.res_id_type),
            res_id_source_context: if self.context == "Internal" { ResIdSourceContext::Internal } else { ResIdSourceContext::Client },
            res_id_value: self.value.clone(),
            item_rph: self.item_rph,
        }
    }

    /// The stored form of a request's reference.
    pub(crate) fn from_message(r: &m::HotelReservationId) -> Self {
        ItemRef {
            res_id_type: r.res_id_type.as_str().to_string(),
            context: r.res_id_source_context.as_str().to_string(),
            value: r.res_id_value.clone(),
            item_rph: r.item_rph,
        }
    }
}

/// The request payload of a modify that changes nothing: the booking of a read, sent back
/// (the read-then-modify flow). `None` for a list entry (no `ResGlobalInfo`).
pub fn modify_payload(reservation: &HotelReservation) -> Option<m::HotelResModify> {
    Some(m::HotelResModify {
        create_date_time: reservation.create_date_time,
        last_update_date_time: reservation.last_update_date_time,
        room_stays: reservation.room_stays.clone(),
        services: reservation.services.clone(),
        res_guests: reservation.res_guests.clone(),
        res_global_info: reservation.res_global_info.clone()?,
    })
}
