//! The `hotels` part of an import file (see `gateway/README.md`, "Import file: hotels"): board
//! codes, hotels with their content and rates, and existing bookings. The input types, and
//! their checks, which turn them into catalogue and booking values ready to store.

use std::collections::{BTreeMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;
use serde::Deserialize;

use super::booking::{self, Booking, RESERVED};
use super::catalogue::{Allotment, Hotel, HotelText, Image, ImageFile, ImageText, Phone, Rate, RoomText, RoomType};
use crate::shared::import::ImportError;
use crate::shared::cancellation::{self, RuleInput};
use crate::shared::values::{self, Amount, de};

/// The demo content (`demo/hotels.json`): four hotels in Mallorca and Barcelona, their rates,
/// and bookings of the requestors `DEMO` and `PARTNER2`.
pub const DEMO: &str = include_str!("../../demo/hotels.json");

/// The most room stays of a hotel booking.
pub const MAX_ROOMS: usize = 5;

/// The `hotels` part of an import file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelsInput {
    /// Board codes (meal plans).
    #[serde(default)]
    pub boards: Vec<BoardInput>,
    /// Hotels, with their descriptions, room types, rates and images.
    #[serde(default)]
    pub hotels: Vec<HotelInput>,
    /// Existing bookings.
    #[serde(default)]
    pub bookings: Vec<BookingInput>,
}

/// A board code.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardInput {
    /// `SC`, `BB`, `HB`, `FB`, `AI`, …
    pub code: String,
    /// English name, e.g. "Bed and breakfast".
    pub name: String,
}

/// A hotel and its static (NBC) content.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelInput {
    /// `HotelCode`.
    pub code: String,
    /// `HotelName`.
    pub name: String,
    /// `HotelCodeContext`.
    #[serde(default)]
    pub code_context: Option<String>,
    /// `ChainName`.
    #[serde(default)]
    pub chain: Option<String>,
    /// The client feed (`BrandCode`) the hotel belongs to.
    #[serde(default)]
    pub brand: Option<String>,
    /// `HotelCategory@Code` (default `20`, hotel).
    #[serde(default = "hotel_category")]
    pub category_code: String,
    /// `HotelCategory@CodeDetail`.
    #[serde(default)]
    pub category_detail: Option<String>,
    /// A description of the category, e.g. "Hotel ****".
    #[serde(default)]
    pub category_text: Option<String>,
    /// Latitude and longitude.
    #[serde(default)]
    pub position: Option<PositionInput>,
    /// The address.
    #[serde(default)]
    pub address: Option<AddressInput>,
    /// The region (area) the hotel is in, e.g. `Mallorca`, for availability by area.
    #[serde(default)]
    pub region: Option<String>,
    /// Phone numbers.
    #[serde(default)]
    pub phones: Vec<PhoneInput>,
    /// E-mail addresses.
    #[serde(default)]
    pub emails: Vec<String>,
    /// `LastModifiedDate`.
    #[serde(deserialize_with = "de::date")]
    pub last_modified: NaiveDate,
    /// The long description (and country name) per language code.
    pub texts: BTreeMap<String, HotelTextInput>,
    /// The room types.
    #[serde(default)]
    pub rooms: Vec<RoomTypeInput>,
    /// Nightly prices.
    #[serde(default)]
    pub rates: Vec<RateInput>,
    /// Images.
    #[serde(default)]
    pub images: Vec<ImageInput>,
    /// The cancellation policy of its bookings (absent: free until 48 hours before the
    /// arrival, then 100 %).
    #[serde(default)]
    pub cancellation: Option<Vec<RuleInput>>,
}

fn hotel_category() -> String {
    "20".to_string()
}

/// A position in decimal degrees.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionInput {
    /// Latitude.
    #[serde(deserialize_with = "de::latitude")]
    pub latitude: Decimal,
    /// Longitude.
    #[serde(deserialize_with = "de::longitude")]
    pub longitude: Decimal,
}

/// A hotel's postal address (the country name is per language, in the texts).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressInput {
    /// Street address lines.
    #[serde(default)]
    pub lines: Vec<String>,
    /// City.
    #[serde(default)]
    pub city: Option<String>,
    /// Postal code.
    #[serde(default)]
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default, deserialize_with = "de::opt_country")]
    pub country_code: Option<String>,
}

/// A phone number.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhoneInput {
    /// The number, international form.
    pub number: String,
    /// `PhoneTechType` (1 voice, 3 fax, 5 mobile).
    #[serde(default)]
    pub tech_type: Option<String>,
}

/// The texts of a hotel in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelTextInput {
    /// The long description.
    pub description: String,
    /// The country name in this language.
    #[serde(default)]
    pub country_name: Option<String>,
}

/// A room type of a hotel.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomTypeInput {
    /// The room code, e.g. `RMSD000000` (no `;` suffix).
    pub code: String,
    /// Name and description per language code.
    pub texts: BTreeMap<String, RoomTextInput>,
    /// Rooms of this type on sale each night (unless `allotment` says otherwise).
    pub units: u32,
    /// The most guests a room of this type takes (absent: not stated, no limit).
    #[serde(default)]
    pub max_guests: Option<u32>,
    /// Rooms on sale in periods, overriding `units`.
    #[serde(default)]
    pub allotment: Vec<AllotmentInput>,
}

/// Rooms of a type on sale each night from `from` to `to` (both included); where periods
/// overlap, the one starting last wins.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllotmentInput {
    /// First night.
    #[serde(deserialize_with = "de::date")]
    pub from: NaiveDate,
    /// Last night.
    #[serde(deserialize_with = "de::date")]
    pub to: NaiveDate,
    /// Rooms on sale each night.
    pub units: u32,
}

/// The texts of a room type in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomTextInput {
    /// The name, e.g. "Double room, sea view".
    pub name: String,
    /// A longer description.
    #[serde(default)]
    pub description: Option<String>,
}

/// Nightly prices of one room type per board code, in one currency, for the nights from
/// `from` to `to` (both included). Where periods overlap, the one starting last wins.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateInput {
    /// The room code.
    pub room: String,
    /// ISO 4217 currency.
    #[serde(deserialize_with = "de::currency")]
    pub currency: String,
    /// First night.
    #[serde(deserialize_with = "de::date")]
    pub from: NaiveDate,
    /// Last night.
    #[serde(deserialize_with = "de::date")]
    pub to: NaiveDate,
    /// The price of one night of the room per board code, e.g. `{"BB": "95.00"}`.
    pub nightly: BTreeMap<String, Amount>,
}

/// An image of a hotel.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageInput {
    /// `ImageItem@Category` (OTA PIC code: 1 exterior, 6 guest room, …).
    #[serde(default)]
    pub category: Option<String>,
    /// The files of the image (one per size).
    pub formats: Vec<ImageFileInput>,
    /// Caption and description per language code.
    #[serde(default)]
    pub texts: BTreeMap<String, ImageTextInput>,
}

/// One file of an image.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageFileInput {
    /// Absolute URL.
    pub url: String,
    /// Width in pixels.
    #[serde(default)]
    pub width: Option<u64>,
    /// Height in pixels.
    #[serde(default)]
    pub height: Option<u64>,
}

/// The caption and description of an image in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageTextInput {
    /// Short caption.
    #[serde(default)]
    pub caption: Option<String>,
    /// Description.
    pub description: String,
}

/// A hotel booking of an import file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookingInput {
    /// The gateway's booking reference (`ResID_SourceContext="Internal"`), unique.
    pub internal_ref: String,
    /// The partner's booking reference, unique per owner.
    pub client_ref: String,
    /// The id of the requestor that owns the booking.
    pub owner: String,
    /// The company that issued the client reference.
    #[serde(default)]
    pub company: Option<CompanyInput>,
    /// The booking status (default `Reserved`).
    #[serde(default = "reserved")]
    pub status: String,
    /// When the booking was created (local date-time `YYYY-MM-DDThh:mm:ss`).
    #[serde(deserialize_with = "de::local_date_time")]
    pub created: NaiveDateTime,
    /// When it was last changed; defaults to `created`.
    #[serde(default, deserialize_with = "de::opt_local_date_time")]
    pub last_update: Option<NaiveDateTime>,
    /// The ISO 4217 currency of every amount.
    #[serde(deserialize_with = "de::currency")]
    pub currency: String,
    /// The room stays (1 to 5).
    pub rooms: Vec<RoomInput>,
    /// The services.
    #[serde(default)]
    pub services: Vec<ServiceInput>,
    /// The guests; the first one is the lead guest.
    pub guests: Vec<GuestInput>,
    /// The comments.
    #[serde(default)]
    pub comments: Vec<CommentInput>,
    /// Further `HotelReservationID`s (item level, Type 37).
    #[serde(default)]
    pub item_refs: Vec<ItemRefInput>,
}

fn reserved() -> String {
    RESERVED.to_string()
}

/// A company name with its optional code and short name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompanyInput {
    /// The name.
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
pub struct RoomInput {
    /// `IndexNumber`.
    #[serde(default)]
    pub index: Option<u64>,
    /// `RoomStayStatus` (`Book`, …).
    #[serde(default)]
    pub status: Option<String>,
    /// The hotel.
    pub hotel: String,
    /// The room type as booked (may carry `;contract/rate-plan`).
    pub room_type: String,
    /// The board code.
    pub board: String,
    /// First night.
    #[serde(deserialize_with = "de::date")]
    pub start: NaiveDate,
    /// Departure day.
    #[serde(deserialize_with = "de::date")]
    pub end: NaiveDate,
    /// The price of the stay; when absent it is priced from the hotel's rates.
    #[serde(default, deserialize_with = "de::opt_amount")]
    pub total: Option<Decimal>,
    /// The guests in this room (`ResGuestRPH`s).
    #[serde(default)]
    pub guests: Vec<u64>,
    /// The services of this room (`ServiceRPH`s).
    #[serde(default)]
    pub services: Vec<u64>,
    /// `Reference@ID` / `@Type`.
    #[serde(default)]
    pub reference: Option<RoomReferenceInput>,
    /// `TPA_Extensions/POS/Source/RequestorID`s.
    #[serde(default)]
    pub sources: Vec<RoomSourceInput>,
}

/// The reference attached to a room stay.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomReferenceInput {
    /// `ID`.
    #[serde(default)]
    pub id: Option<String>,
    /// `Type` (14 = reservation).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// A `RequestorID` of a room stay's extension.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomSourceInput {
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
    pub company: Option<CompanyInput>,
}

/// A booked service.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceInput {
    /// `ServiceRPH`.
    pub rph: u64,
    /// `ServiceInventoryCode`.
    pub code: String,
    /// The guests using the service.
    #[serde(default)]
    pub guests: Vec<u64>,
    /// The legs of a transfer.
    #[serde(default)]
    pub legs: Vec<TransferLegInput>,
}

/// One leg of a transfer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferLegInput {
    /// Where the leg starts.
    pub origin: TransferPointInput,
    /// Where the leg ends.
    pub destination: TransferPointInput,
}

/// One end of a transfer leg: `{"hotel": CODE}` or `{"transport": {…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TransferPointInput {
    /// A hotel, by code.
    Hotel(String),
    /// A connecting flight.
    Transport(TransportInput),
}

/// A flight connecting with a transfer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportInput {
    /// `DepartureDateTime` (local).
    #[serde(default, deserialize_with = "de::opt_local_date_time")]
    pub departure: Option<NaiveDateTime>,
    /// `ArrivalDateTime` (local).
    #[serde(default, deserialize_with = "de::opt_local_date_time")]
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
pub struct GuestInput {
    /// `ResGuestRPH`.
    pub rph: u64,
    /// `AgeQualifyingCode` (10 adult, 8 child, 7 infant, 11 senior).
    pub age_code: String,
    /// `BirthDate`.
    #[serde(default, deserialize_with = "de::opt_date")]
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
pub struct CommentInput {
    /// `Name`.
    #[serde(default)]
    pub name: Option<String>,
    /// `CommentOriginatorCode`.
    #[serde(default)]
    pub originator: Option<String>,
    /// The `Text` elements.
    #[serde(default)]
    pub texts: Vec<LangTextInput>,
}

/// A text with an optional language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LangTextInput {
    /// `Language`.
    #[serde(default)]
    pub language: Option<String>,
    /// The text.
    pub text: String,
}

/// A further `HotelReservationID` (item level).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemRefInput {
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

/// The hotels part, checked: boards, hotels and bookings ready to store (bookings may still
/// have unpriced rooms, priced from the stored rates when written).
#[derive(Debug, Clone, Default)]
pub struct ImportedHotels {
    /// Board code → English name.
    pub boards: BTreeMap<String, String>,
    /// The hotels.
    pub hotels: Vec<Hotel>,
    /// The bookings.
    pub bookings: Vec<Booking>,
}

/// The longest hotel and room code.
const MAX_CODE: usize = 32;
/// The longest board code.
const MAX_BOARD: usize = 8;
/// The longest booking reference.
const MAX_REFERENCE: usize = 64;

/// Checks the hotels part and turns it into domain values.
pub fn validate(input: &HotelsInput) -> Result<ImportedHotels, ImportError> {
    let mut out = ImportedHotels::default();
    for b in &input.boards {
        values::code(&b.code, MAX_BOARD).map_err(|e| ImportError::invalid(format!("board {:?}", b.code), e))?;
        out.boards.insert(b.code.clone(), b.name.clone());
    }
    let mut codes = HashSet::new();
    for h in &input.hotels {
        let entry = format!("hotel {:?}", h.code);
        if !codes.insert(h.code.as_str()) {
            return Err(ImportError::invalid(entry, "listed twice"));
        }
        out.hotels.push(hotel(h).map_err(|e| ImportError::invalid(&entry, e))?);
    }
    let mut refs = HashSet::new();
    for b in &input.bookings {
        let entry = format!("booking {:?}", b.internal_ref);
        if !refs.insert(b.internal_ref.as_str()) {
            return Err(ImportError::invalid(entry, "listed twice"));
        }
        out.bookings.push(booking(b).map_err(|e| ImportError::invalid(&entry, e))?);
    }
    Ok(out)
}

fn texts<I, T>(input: &BTreeMap<String, I>, f: impl Fn(&I) -> T) -> Result<BTreeMap<String, T>, String> {
    input.iter().map(|(lang, t)| Ok((values::language(lang)?, f(t)))).collect()
}

fn hotel(h: &HotelInput) -> Result<Hotel, String> {
    values::code(&h.code, MAX_CODE).map_err(|e| format!("code: {e}"))?;
    if h.name.trim().is_empty() {
        return Err("name is empty".into());
    }
    if h.texts.is_empty() {
        return Err("a description in at least one language is required".into());
    }
    let mut rooms: Vec<RoomType> = Vec::new();
    for r in &h.rooms {
        values::code(&r.code, MAX_CODE).map_err(|e| format!("room type: {e}"))?;
        if r.code.contains(';') {
            return Err(format!("room type {:?}: a room code has no ';' suffix (bookings may have one)", r.code));
        }
        if rooms.iter().any(|x| x.code == r.code) {
            return Err(format!("room type {:?} listed twice", r.code));
        }
        if r.max_guests == Some(0) {
            return Err(format!("room type {:?}: max_guests is at least 1", r.code));
        }
        if let Some(a) = r.allotment.iter().find(|a| a.from > a.to) {
            return Err(format!("room type {:?}: allotment from {} to {} ends before it starts", r.code, a.from, a.to));
        }
        rooms.push(RoomType {
            code: r.code.clone(),
            texts: texts(&r.texts, |t| RoomText { name: t.name.clone(), description: t.description.clone() })?,
            units: r.units,
            max_guests: r.max_guests,
            allotment: r.allotment.iter().map(|a| Allotment { from: a.from, to: a.to, units: a.units }).collect(),
        });
    }
    let mut rates = Vec::new();
    for rate in &h.rates {
        if rate.from > rate.to {
            return Err(format!("rate of {} from {} to {}: the period ends before it starts", rate.room, rate.from, rate.to));
        }
        if !rooms.iter().any(|r| r.code == rate.room) {
            return Err(format!("rate of {}: the hotel has no such room type", rate.room));
        }
        for (board, amount) in &rate.nightly {
            values::in_currency(amount.0, &rate.currency).map_err(|e| format!("rate of {} for board {board}: {e}", rate.room))?;
            rates.push(Rate { room: rate.room.clone(), board: board.clone(), currency: rate.currency.clone(), from: rate.from, to: rate.to, nightly: amount.0 });
        }
    }
    let mut images = Vec::new();
    for (i, img) in h.images.iter().enumerate() {
        if img.formats.is_empty() {
            return Err(format!("image {}: at least one file is required", i + 1));
        }
        images.push(Image {
            category: img.category.clone(),
            files: img.formats.iter().map(|f| ImageFile { url: f.url.clone(), width: f.width, height: f.height }).collect(),
            texts: texts(&img.texts, |t| ImageText { caption: t.caption.clone(), description: t.description.clone() })?,
        });
    }
    let address = h.address.as_ref();
    Ok(Hotel {
        code: h.code.clone(),
        name: h.name.clone(),
        code_context: h.code_context.clone(),
        chain: h.chain.clone(),
        brand: h.brand.clone(),
        category_code: h.category_code.clone(),
        category_detail: h.category_detail.clone(),
        category_text: h.category_text.clone(),
        position: h.position.as_ref().map(|p| (p.latitude, p.longitude)),
        address_lines: address.map(|a| a.lines.clone()).unwrap_or_default(),
        city: address.and_then(|a| a.city.clone()),
        postal_code: address.and_then(|a| a.postal_code.clone()),
        country_code: address.and_then(|a| a.country_code.clone()),
        region: h.region.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_string),
        phones: h.phones.iter().map(|p| Phone { number: p.number.clone(), tech_type: p.tech_type.clone() }).collect(),
        emails: h.emails.clone(),
        last_modified: h.last_modified,
        texts: texts(&h.texts, |t| HotelText { description: t.description.clone(), country_name: t.country_name.clone() })?,
        rooms,
        rates,
        images,
        cancellation: cancellation::policy_of(h.cancellation.as_deref()).map_err(|e| format!("cancellation: {e}"))?,
    })
}

fn company(c: &CompanyInput) -> booking::Company {
    booking::Company { name: c.name.clone(), code: c.code.clone(), short_name: c.short_name.clone() }
}

fn booking(b: &BookingInput) -> Result<Booking, String> {
    for (field, value) in [("internal_ref", &b.internal_ref), ("client_ref", &b.client_ref), ("owner", &b.owner)] {
        values::code(value, MAX_REFERENCE).map_err(|e| format!("{field}: {e}"))?;
    }
    if b.rooms.is_empty() || b.rooms.len() > MAX_ROOMS {
        return Err(format!("a booking has 1 to {MAX_ROOMS} room stays, not {}", b.rooms.len()));
    }
    if b.guests.is_empty() {
        return Err("a booking has at least one guest".into());
    }
    for (i, r) in b.rooms.iter().enumerate() {
        if let Some(total) = r.total {
            values::in_currency(total, &b.currency).map_err(|e| format!("room stay {}: {e}", i + 1))?;
        }
    }
    let updated = b.last_update.unwrap_or(b.created);
    if updated < b.created {
        return Err("last_update is before created".into());
    }
    let guests: HashSet<u64> = b.guests.iter().map(|g| g.rph).collect();
    let services: HashSet<u64> = b.services.iter().map(|s| s.rph).collect();
    if guests.len() != b.guests.len() || services.len() != b.services.len() {
        return Err("guest and service RPHs must be unique".into());
    }
    if let Some(g) = b.services.iter().flat_map(|s| &s.guests).find(|g| !guests.contains(g)) {
        return Err(format!("guest RPH {g} of a service is not a guest of the booking"));
    }
    for (i, r) in b.rooms.iter().enumerate() {
        if r.start >= r.end {
            return Err(format!("room stay {}: end {} is not after start {}", i + 1, r.end, r.start));
        }
        if let Some(g) = r.guests.iter().find(|g| !guests.contains(g)) {
            return Err(format!("room stay {}: guest RPH {g} is not a guest of the booking", i + 1));
        }
        if let Some(s) = r.services.iter().find(|s| !services.contains(s)) {
            return Err(format!("room stay {}: service RPH {s} is not a service of the booking", i + 1));
        }
    }
    if let Some(r) = b.item_refs.iter().find(|r| r.context != "Client" && r.context != "Internal") {
        return Err(format!("item reference {:?}: context is Client or Internal", r.value));
    }
    let point = |p: &TransferPointInput| match p {
        TransferPointInput::Hotel(h) => booking::TransferPoint::Hotel(h.clone()),
        TransferPointInput::Transport(t) => booking::TransferPoint::Transport(booking::Transport {
            departure: t.departure,
            arrival: t.arrival,
            departure_airport: t.departure_airport.clone(),
            arrival_airport: t.arrival_airport.clone(),
            flight: t.flight.clone(),
        }),
    };
    Ok(Booking {
        internal_ref: b.internal_ref.clone(),
        client_ref: b.client_ref.clone(),
        owner: b.owner.clone(),
        company: b.company.as_ref().map(company),
        status: b.status.clone(),
        created: b.created,
        updated,
        currency: b.currency.clone(),
        rooms: b
            .rooms
            .iter()
            .map(|r| booking::Room {
                index: r.index,
                status: r.status.clone(),
                hotel: r.hotel.clone(),
                room_type: r.room_type.clone(),
                board: r.board.clone(),
                start: r.start,
                end: r.end,
                total: r.total,
                guests: r.guests.clone(),
                services: r.services.clone(),
                reference: r.reference.as_ref().map(|x| booking::RoomReference { id: x.id.clone(), kind: x.kind.clone() }),
                sources: r
                    .sources
                    .iter()
                    .map(|s| booking::RoomSource {
                        kind: s.kind.clone(),
                        id: s.id.clone(),
                        id_context: s.id_context.clone(),
                        instance: s.instance.clone(),
                        company: s.company.as_ref().map(company),
                    })
                    .collect(),
                // Fixed from the hotel's policy when stored.
                penalties: Vec::new(),
                cancelled: None,
            })
            .collect(),
        services: b
            .services
            .iter()
            .map(|s| booking::Service {
                rph: s.rph,
                code: s.code.clone(),
                guests: s.guests.clone(),
                legs: s.legs.iter().map(|l| booking::TransferLeg { origin: point(&l.origin), destination: point(&l.destination) }).collect(),
            })
            .collect(),
        guests: b
            .guests
            .iter()
            .map(|g| booking::Guest {
                rph: g.rph,
                age_code: g.age_code.clone(),
                birth_date: g.birth_date,
                prefix: g.prefix.clone(),
                given: g.given.clone(),
                surname: g.surname.clone(),
                age: g.age,
            })
            .collect(),
        comments: b
            .comments
            .iter()
            .map(|c| booking::Comment {
                name: c.name.clone(),
                originator: c.originator.clone(),
                texts: c.texts.iter().map(|t| booking::LangText { language: t.language.clone(), text: t.text.clone() }).collect(),
            })
            .collect(),
        item_refs: b
            .item_refs
            .iter()
            .map(|r| booking::ItemRef { res_id_type: r.res_id_type.clone(), context: r.context.clone(), value: r.value.clone(), item_rph: r.item_rph })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn the_demo_content_is_valid() {
        let input: HotelsInput = serde_json::from_str(DEMO).unwrap();
        let imported = validate(&input).unwrap_or_else(|e| panic!("{e}"));
        assert!(imported.hotels.len() >= 4 && !imported.bookings.is_empty());
    }

    #[test]
    fn an_invalid_booking_is_named() {
        let mut input: HotelsInput = serde_json::from_str(DEMO).unwrap();
        input.bookings[0].rooms[0].guests.push(99);
        let e = validate(&input).unwrap_err().to_string();
        assert!(e.contains(&format!("booking {:?}", input.bookings[0].internal_ref)) && e.contains("99"), "{e}");
    }
}
