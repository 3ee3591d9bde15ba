//! The input types of the `hotels` part of an import file, as serde reads them (each value of a
//! known kind checked as it is read, see [`de`]); the checks across values are
//! [`super::validate`]'s.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::hotels::booking::RESERVED;
use crate::shared::cancellation::RuleInput;
use crate::shared::values::{Amount, de};

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
    /// Where its dates and check-in are local (IANA, e.g. `Europe/Madrid`); default UTC.
    #[serde(default, deserialize_with = "de::opt_time_zone")]
    pub time_zone: Option<chrono_tz::Tz>,
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
