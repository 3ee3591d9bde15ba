//! The `hotels` section of the import file: board codes, hotels with their static content and
//! rates, and existing bookings. [`store`] upserts it; [`DEMO`] is the demo content.

use std::collections::{BTreeMap, HashSet};

use chrono::NaiveDate;
use rusqlite::{Transaction, params};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};

use super::booking::{Booking, de, money};
use super::repo::{self, PriceError, date_text, signed};
use crate::db::DbError;

/// The demo content (`demo/hotels.json`): four hotels in Mallorca and Barcelona, their rates,
/// and bookings of the requestors `DEMO` and `PARTNER2`.
pub const DEMO: &str = include_str!("../../../demo/hotels.json");

/// The most room stays of a hotel booking.
pub const MAX_ROOMS: usize = 5;

/// The `hotels` section of the import file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// Board codes (meal plans).
    #[serde(default)]
    pub boards: Vec<Board>,
    /// Hotels, with their descriptions, room types, rates and images.
    #[serde(default)]
    pub hotels: Vec<Hotel>,
    /// Existing bookings.
    #[serde(default)]
    pub bookings: Vec<Booking>,
}

impl Content {
    /// Parses the section from JSON.
    pub fn from_json(json: &str) -> Result<Content, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The demo content.
    pub fn demo() -> Result<Content, serde_json::Error> {
        Content::from_json(DEMO)
    }
}

/// A board code.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// `SC`, `BB`, `HB`, `FB`, `AI`, …
    pub code: String,
    /// English name, e.g. "Bed and breakfast".
    pub name: String,
}

/// A hotel and its static (NBC) content.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hotel {
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
    /// `HotelCategory/DescriptiveText`, e.g. "Hotel ****".
    #[serde(default)]
    pub category_text: Option<String>,
    /// Latitude and longitude.
    #[serde(default)]
    pub position: Option<GeoPosition>,
    /// The address.
    #[serde(default)]
    pub address: Option<HotelAddress>,
    /// Phone numbers.
    #[serde(default)]
    pub phones: Vec<HotelPhone>,
    /// E-mail addresses.
    #[serde(default)]
    pub emails: Vec<String>,
    /// `LastModifiedDate`.
    #[serde(deserialize_with = "de::req")]
    pub last_modified: NaiveDate,
    /// The long description (and country name) per language code.
    pub texts: BTreeMap<String, HotelText>,
    /// The room types.
    #[serde(default)]
    pub rooms: Vec<RoomTypeContent>,
    /// Nightly prices.
    #[serde(default)]
    pub rates: Vec<Rate>,
    /// Images.
    #[serde(default)]
    pub images: Vec<Image>,
}

fn hotel_category() -> String {
    "20".to_string()
}

/// A position in decimal degrees.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeoPosition {
    /// Latitude.
    #[serde(deserialize_with = "de::req")]
    pub latitude: Decimal,
    /// Longitude.
    #[serde(deserialize_with = "de::req")]
    pub longitude: Decimal,
}

/// A hotel's postal address (the country name is per language, in [`HotelText`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelAddress {
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
    #[serde(default)]
    pub country_code: Option<String>,
}

/// A phone number.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelPhone {
    /// The number, international form.
    pub number: String,
    /// `PhoneTechType` (1 voice, 3 fax, 5 mobile).
    #[serde(default)]
    pub tech_type: Option<String>,
}

/// The texts of a hotel in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelText {
    /// The long description.
    pub description: String,
    /// The country name in this language.
    #[serde(default)]
    pub country_name: Option<String>,
}

/// A room type of a hotel.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomTypeContent {
    /// The room code, e.g. `RMSD000000` (no `;` suffix).
    pub code: String,
    /// Name and description per language code.
    pub texts: BTreeMap<String, RoomText>,
}

/// The texts of a room type in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomText {
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
pub struct Rate {
    /// The room code.
    pub room: String,
    /// ISO 4217 currency.
    pub currency: String,
    /// First night.
    #[serde(deserialize_with = "de::req")]
    pub from: NaiveDate,
    /// Last night.
    #[serde(deserialize_with = "de::req")]
    pub to: NaiveDate,
    /// The price of one night of the room per board code, e.g. `{"BB": "95.00"}`.
    pub nightly: BTreeMap<String, Amount>,
}

/// An exact amount, written as a string in the import file (`"95.00"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount(pub Decimal);

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::req(d).map(Amount)
    }
}

/// An image of a hotel.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// `ImageItem@Category` (OTA PIC code: 1 exterior, 6 guest room, …).
    #[serde(default)]
    pub category: Option<String>,
    /// The files of the image (one per size).
    pub formats: Vec<ImageFile>,
    /// Caption and description per language code.
    #[serde(default)]
    pub texts: BTreeMap<String, ImageText>,
}

/// One file of an image.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageFile {
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
pub struct ImageText {
    /// Short caption.
    #[serde(default)]
    pub caption: Option<String>,
    /// Description.
    pub description: String,
}

fn bad(what: impl std::fmt::Display) -> DbError {
    DbError::Data(what.to_string())
}

fn language(code: &str) -> Result<String, DbError> {
    let l = code.trim().to_ascii_lowercase();
    if l.is_empty() || l.len() > 8 || !l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(bad(format!("language code {code:?} is not valid")));
    }
    Ok(l)
}

fn currency(code: &str) -> Result<(), DbError> {
    if code.len() == 3 && code.chars().all(|c| c.is_ascii_uppercase()) {
        Ok(())
    } else {
        Err(bad(format!("currency {code:?} is not an ISO 4217 code")))
    }
}

/// Stores (upserts) the section: boards and hotels by code (a hotel's texts, rooms, rates and
/// images are replaced), bookings by internal reference (replaced whole). Bookings whose rooms
/// have no total are priced from the rates. Fails, leaving the caller to roll back, on the
/// first invalid entry.
pub fn store(tx: &Transaction, content: &Content) -> Result<(), DbError> {
    for b in &content.boards {
        if b.code.is_empty() {
            return Err(bad("a board has an empty code"));
        }
        tx.prepare_cached("INSERT INTO hotel_board (code, name) VALUES (?1, ?2) ON CONFLICT (code) DO UPDATE SET name = excluded.name")?
            .execute(params![b.code, b.name])?;
    }
    for h in &content.hotels {
        store_hotel(tx, h).map_err(|e| bad(format!("hotel {}: {e}", h.code)))?;
    }
    for b in &content.bookings {
        store_booking(tx, b).map_err(|e| bad(format!("booking {}: {e}", b.internal_ref)))?;
    }
    Ok(())
}

fn store_hotel(tx: &Transaction, h: &Hotel) -> Result<(), DbError> {
    if h.code.trim().is_empty() || h.name.trim().is_empty() {
        return Err(bad("code and name are required"));
    }
    if h.texts.is_empty() {
        return Err(bad("a description in at least one language is required"));
    }
    let address = h.address.as_ref();
    tx.prepare_cached(
        "INSERT INTO hotel (code, name, code_context, chain_name, brand_code, category_code, category_detail, category_text,
                            latitude, longitude, city_name, postal_code, country_code, last_modified)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT (code) DO UPDATE SET
            name = excluded.name, code_context = excluded.code_context, chain_name = excluded.chain_name,
            brand_code = excluded.brand_code, category_code = excluded.category_code,
            category_detail = excluded.category_detail, category_text = excluded.category_text,
            latitude = excluded.latitude, longitude = excluded.longitude, city_name = excluded.city_name,
            postal_code = excluded.postal_code, country_code = excluded.country_code,
            last_modified = excluded.last_modified",
    )?
    .execute(params![
        h.code,
        h.name,
        h.code_context,
        h.chain,
        h.brand,
        h.category_code,
        h.category_detail,
        h.category_text,
        h.position.as_ref().map(|p| p.latitude.to_string()),
        h.position.as_ref().map(|p| p.longitude.to_string()),
        address.and_then(|a| a.city.as_ref()),
        address.and_then(|a| a.postal_code.as_ref()),
        address.and_then(|a| a.country_code.as_ref()),
        date_text(h.last_modified),
    ])?;
    for table in ["hotel_text", "hotel_address_line", "hotel_phone", "hotel_email", "hotel_room_type", "hotel_image"] {
        tx.execute(&format!("DELETE FROM {table} WHERE hotel_code = ?1"), [&h.code])?;
    }
    for (lang, t) in &h.texts {
        tx.prepare_cached("INSERT INTO hotel_text (hotel_code, language, description, country_name) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![h.code, language(lang)?, t.description, t.country_name])?;
    }
    for (pos, line) in address.map(|a| a.lines.as_slice()).unwrap_or_default().iter().enumerate() {
        tx.prepare_cached("INSERT INTO hotel_address_line (hotel_code, position, line) VALUES (?1, ?2, ?3)")?
            .execute(params![h.code, pos as i64, line])?;
    }
    for (pos, p) in h.phones.iter().enumerate() {
        tx.prepare_cached("INSERT INTO hotel_phone (hotel_code, position, number, tech_type) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![h.code, pos as i64, p.number, p.tech_type])?;
    }
    for (pos, e) in h.emails.iter().enumerate() {
        tx.prepare_cached("INSERT INTO hotel_email (hotel_code, position, email) VALUES (?1, ?2, ?3)")?
            .execute(params![h.code, pos as i64, e])?;
    }
    for (pos, r) in h.rooms.iter().enumerate() {
        tx.prepare_cached("INSERT INTO hotel_room_type (hotel_code, code, position) VALUES (?1, ?2, ?3)")?
            .execute(params![h.code, r.code, pos as i64])
            .map_err(|e| bad(format!("room type {:?}: {e}", r.code)))?;
        for (lang, t) in &r.texts {
            tx.prepare_cached("INSERT INTO hotel_room_type_text (hotel_code, room_code, language, name, description) VALUES (?1, ?2, ?3, ?4, ?5)")?
                .execute(params![h.code, r.code, language(lang)?, t.name, t.description])?;
        }
    }
    for rate in &h.rates {
        currency(&rate.currency)?;
        if rate.from > rate.to {
            return Err(bad(format!("rate of {} from {} to {}: the period ends before it starts", rate.room, rate.from, rate.to)));
        }
        for (board, amount) in &rate.nightly {
            if amount.0.is_sign_negative() {
                return Err(bad(format!("rate of {} {board}: negative amount", rate.room)));
            }
            tx.prepare_cached(
                "INSERT INTO hotel_rate (hotel_code, room_code, board_code, currency, start_date, end_date, nightly_amount)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![h.code, rate.room, board, rate.currency, date_text(rate.from), date_text(rate.to), money(amount.0).to_string()])
            .map_err(|e| bad(format!("rate of {} {board} (is the room type and the board code known?): {e}", rate.room)))?;
        }
    }
    for (pos, img) in h.images.iter().enumerate() {
        let pos = pos as i64;
        if img.formats.is_empty() {
            return Err(bad(format!("image {}: at least one file is required", pos + 1)));
        }
        tx.prepare_cached("INSERT INTO hotel_image (hotel_code, position, category) VALUES (?1, ?2, ?3)")?
            .execute(params![h.code, pos, img.category])?;
        for (fpos, f) in img.formats.iter().enumerate() {
            tx.prepare_cached("INSERT INTO hotel_image_format (hotel_code, image_position, position, url, width, height) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?
                .execute(params![h.code, pos, fpos as i64, f.url, f.width.map(signed).transpose()?, f.height.map(signed).transpose()?])?;
        }
        for (lang, t) in &img.texts {
            tx.prepare_cached("INSERT INTO hotel_image_text (hotel_code, image_position, language, caption, description) VALUES (?1, ?2, ?3, ?4, ?5)")?
                .execute(params![h.code, pos, language(lang)?, t.caption, t.description])?;
        }
    }
    Ok(())
}

fn store_booking(tx: &Transaction, b: &Booking) -> Result<(), DbError> {
    if b.internal_ref.is_empty() || b.client_ref.is_empty() || b.owner.is_empty() {
        return Err(bad("internal_ref, client_ref and owner are required"));
    }
    currency(&b.currency)?;
    if b.rooms.is_empty() || b.rooms.len() > MAX_ROOMS {
        return Err(bad(format!("a booking has 1 to {MAX_ROOMS} room stays, not {}", b.rooms.len())));
    }
    if b.guests.is_empty() {
        return Err(bad("a booking has at least one guest"));
    }
    if b.updated() < b.created {
        return Err(bad("last_update is before created"));
    }
    let guests: HashSet<u64> = b.guests.iter().map(|g| g.rph).collect();
    let services: HashSet<u64> = b.services.iter().map(|s| s.rph).collect();
    if guests.len() != b.guests.len() || services.len() != b.services.len() {
        return Err(bad("guest and service RPHs must be unique"));
    }
    let mut priced = b.clone();
    for (i, r) in priced.rooms.iter_mut().enumerate() {
        if r.start >= r.end {
            return Err(bad(format!("room stay {}: end {} is not after start {}", i + 1, r.end, r.start)));
        }
        if let Some(g) = r.guests.iter().chain(b.services.iter().flat_map(|s| &s.guests)).find(|g| !guests.contains(g)) {
            return Err(bad(format!("guest RPH {g} is not a guest of the booking")));
        }
        if let Some(s) = r.services.iter().find(|s| !services.contains(s)) {
            return Err(bad(format!("service RPH {s} is not a service of the booking")));
        }
        if r.total.is_none() {
            let p = repo::price(tx, &r.hotel, r.base_room_type(), &r.board, &b.currency, r.start, r.end)?;
            r.total = Some(p.map_err(|e| {
                bad(format!(
                    "room stay {} ({} {} {}) cannot be priced: {}",
                    i + 1,
                    r.hotel,
                    r.room_type,
                    r.board,
                    match e {
                        PriceError::UnknownHotel => "unknown hotel".to_string(),
                        PriceError::UnknownRoomType => "unknown room type".to_string(),
                        PriceError::UnknownBoard => "unknown board".to_string(),
                        PriceError::BoardNotOffered => format!("no rate with this board in {}", b.currency),
                        PriceError::NoRate(night) => format!("no rate for the night of {night}"),
                    }
                ))
            })?);
        }
    }
    repo::save_booking(tx, &priced)?;
    Ok(())
}
