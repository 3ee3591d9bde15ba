//! The hotel content as the operations see it: hotels with their descriptions, contacts,
//! room types, rates and images, and the board codes; held in memory (part of the content
//! snapshot). Pricing of a stay from the rates is here, as one rule.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Days, NaiveDate, NaiveDateTime, Utc};
use imbl::OrdMap;
use rust_decimal::Decimal;

use crate::hotels::supply::{self, HotelSupply, Restricted, RoomSupply, SupplyPosition};
use crate::shared::cancellation::Policy;

/// Texts by language code.
pub type Texts<T> = BTreeMap<String, T>;

/// A hotel and its static (NBC) content.
#[derive(Debug, Clone, PartialEq)]
pub struct Hotel {
    /// `HotelCode`.
    pub code: String,
    /// `HotelName`.
    pub name: String,
    /// `HotelCodeContext`.
    pub code_context: Option<String>,
    /// `ChainName`.
    pub chain: Option<String>,
    /// The client feed (`BrandCode`) the hotel belongs to.
    pub brand: Option<String>,
    /// `HotelCategory@Code` (`20`, hotel).
    pub category_code: String,
    /// `HotelCategory@CodeDetail`.
    pub category_detail: Option<String>,
    /// A description of the category, e.g. "Hotel ****".
    pub category_text: Option<String>,
    /// Latitude and longitude.
    pub position: Option<(Decimal, Decimal)>,
    /// Street address lines.
    pub address_lines: Vec<String>,
    /// City.
    pub city: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// ISO country code.
    pub country_code: Option<String>,
    /// The region (area) the hotel is in, e.g. `Mallorca`: what an availability request names
    /// with `RefPoint@CodeContext="Region"`.
    pub region: Option<String>,
    /// Where its dates and check-in are local: "today" and "now" are the hotel's.
    pub time_zone: chrono_tz::Tz,
    /// Phone numbers.
    pub phones: Vec<Phone>,
    /// E-mail addresses.
    pub emails: Vec<String>,
    /// `LastModifiedDate`.
    pub last_modified: NaiveDate,
    /// The description and country name per language.
    pub texts: Texts<HotelText>,
    /// The room types.
    pub rooms: Vec<RoomType>,
    /// Nightly prices.
    pub rates: Vec<Rate>,
    /// Images.
    pub images: Vec<Image>,
    /// The cancellation policy of its bookings.
    pub cancellation: Policy,
    /// What its supplier said, night by night, over the above: rooms on sale, restrictions,
    /// nightly amounts.
    pub supply: Arc<HotelSupply>,
}

/// A phone number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phone {
    /// The number.
    pub number: String,
    /// `PhoneTechType` (1 voice, 3 fax, 5 mobile).
    pub tech_type: Option<String>,
}

/// The texts of a hotel in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotelText {
    /// The long description.
    pub description: String,
    /// The country name.
    pub country_name: Option<String>,
}

/// A room type of a hotel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomType {
    /// The room code, e.g. `RMSD000000`.
    pub code: String,
    /// Name and description per language.
    pub texts: Texts<RoomText>,
    /// Rooms of this type on sale each night, unless an allotment says otherwise.
    pub units: u32,
    /// The most guests a room of this type takes (`None`: not stated, no limit).
    pub max_guests: Option<u32>,
    /// Rooms on sale in periods, overriding `units` (where periods overlap, the one starting
    /// last wins).
    pub allotment: Vec<Allotment>,
}

/// The rooms of a type on sale each night from `from` to `to` (both included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allotment {
    /// First night.
    pub from: NaiveDate,
    /// Last night.
    pub to: NaiveDate,
    /// Rooms on sale each of these nights.
    pub units: u32,
}

impl RoomType {
    /// Rooms of this type on sale the night of `night`.
    pub fn on_sale(&self, night: NaiveDate) -> u32 {
        self.allotment
            .iter()
            .filter(|a| a.from <= night && night <= a.to)
            .max_by_key(|a| a.from)
            .map_or(self.units, |a| a.units)
    }

    /// Whether `guests` fit in one room of this type.
    pub fn fits(&self, guests: u32) -> bool {
        self.max_guests.is_none_or(|max| guests <= max)
    }
}

/// The texts of a room type in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomText {
    /// The name.
    pub name: String,
    /// A longer description.
    pub description: Option<String>,
}

/// The nightly price of one room type with one board, in one currency, for the nights from
/// `from` to `to` (both included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    /// The room code.
    pub room: String,
    /// The board code.
    pub board: String,
    /// ISO 4217 currency.
    pub currency: String,
    /// First night.
    pub from: NaiveDate,
    /// Last night.
    pub to: NaiveDate,
    /// The price of one night of the room.
    pub nightly: Decimal,
}

/// An image of a hotel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// `ImageItem@Category` (OTA PIC code).
    pub category: Option<String>,
    /// The files (one per size).
    pub files: Vec<ImageFile>,
    /// Caption and description per language.
    pub texts: Texts<ImageText>,
}

/// One file of an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageFile {
    /// Absolute URL.
    pub url: String,
    /// Width in pixels.
    pub width: Option<u64>,
    /// Height in pixels.
    pub height: Option<u64>,
}

/// The caption and description of an image in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageText {
    /// Short caption.
    pub caption: Option<String>,
    /// Description.
    pub description: String,
}

/// Why a room stay cannot be priced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PriceError {
    /// The hotel does not exist.
    UnknownHotel,
    /// The hotel has no such room type.
    UnknownRoomType,
    /// No such board code.
    UnknownBoard,
    /// The room type is not sold with this board (in this currency).
    BoardNotOffered,
    /// No rate covers this night.
    NoRate(NaiveDate),
}

impl std::fmt::Display for PriceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PriceError::UnknownHotel => f.write_str("unknown hotel"),
            PriceError::UnknownRoomType => f.write_str("unknown room type"),
            PriceError::UnknownBoard => f.write_str("unknown board"),
            PriceError::BoardNotOffered => f.write_str("no rate with this board in this currency"),
            PriceError::NoRate(night) => write!(f, "no rate for the night of {night}"),
        }
    }
}

impl Hotel {
    /// Now as a local time of the hotel (whole seconds): what its check-ins and cancellation
    /// deadlines are compared with.
    pub fn now_here(&self, utc: DateTime<Utc>) -> NaiveDateTime {
        crate::shared::context::now_in(self.time_zone, utc)
    }

    /// Today at the hotel: no stay may arrive before it.
    pub fn today(&self, utc: DateTime<Utc>) -> NaiveDate {
        utc.with_timezone(&self.time_zone).date_naive()
    }

    /// The room type with this code (without a `;` suffix).
    pub fn room(&self, code: &str) -> Option<&RoomType> {
        self.rooms.iter().find(|r| r.code == code)
    }

    /// The price of a stay of a room of `guests` guests: the nightly rate of each night from
    /// `start` to the night before `end` (see [`Hotel::rates_for`]; of the content's, where
    /// periods overlap the one starting last).
    pub fn price(
        &self,
        room: &str,
        board: &str,
        currency: &str,
        (start, end): (NaiveDate, NaiveDate),
        guests: u32,
    ) -> Result<Decimal, PriceError> {
        Ok(self.nightly(room, board, currency, (start, end), guests)?.iter().map(|(_, p)| *p).sum())
    }

    /// The rate of each night of a stay (see [`Hotel::price`]).
    pub fn nightly(
        &self,
        room: &str,
        board: &str,
        currency: &str,
        (start, end): (NaiveDate, NaiveDate),
        guests: u32,
    ) -> Result<Vec<(NaiveDate, Decimal)>, PriceError> {
        if self.room(room).is_none() {
            return Err(PriceError::UnknownRoomType);
        }
        self.rates_for(room, guests).nightly(board, currency, start, end)
    }

    /// The rates of one room type (found once, for pricing it with each board), for any
    /// number of guests.
    pub fn rates_of(&self, room: &str) -> RoomRates<'_> {
        self.rates_for(room, 0)
    }

    /// The rates of one room type for a room of `guests` guests (0: any number): the supplier's
    /// amounts where it gave some (for that many guests, else for any number), the content's
    /// elsewhere.
    pub fn rates_for(&self, room: &str, guests: u32) -> RoomRates<'_> {
        RoomRates {
            content: self.rates.iter().filter(|r| r.room == room).collect(),
            supply: self.supply.room(room),
            guests,
        }
    }

    /// A room type of this hotel with what its supplier said of it, looked up once (for reading
    /// night by night).
    pub fn supplied<'h>(&'h self, room: &'h RoomType) -> SuppliedRoom<'h> {
        SuppliedRoom { room, supply: self.supply.room(&room.code) }
    }

    /// Why its supplier does not sell a stay of a room type with a board, if it does not.
    pub fn restricted(&self, room: &str, board: &str, start: NaiveDate, end: NaiveDate) -> Option<Restricted> {
        self.supply.room(room)?.restricted(board, start, end)
    }
}

/// A room type of a hotel with what its supplier said of it (see [`Hotel::supplied`]).
#[derive(Debug, Clone, Copy)]
pub struct SuppliedRoom<'h> {
    /// The room type.
    pub room: &'h RoomType,
    /// What its supplier said of it, if anything.
    pub supply: Option<&'h RoomSupply>,
}

impl SuppliedRoom<'_> {
    /// Rooms on sale the night of `night`: as its supplier said, else as the content says.
    pub fn on_sale(&self, night: NaiveDate) -> u32 {
        self.supply.and_then(|s| s.rooms.get(&night)?.value).unwrap_or_else(|| self.room.on_sale(night))
    }

    /// Why its supplier does not sell a stay with a board, if it does not.
    pub fn restricted(&self, board: &str, start: NaiveDate, end: NaiveDate) -> Option<Restricted> {
        self.supply?.restricted(board, start, end)
    }
}

/// The rates of one room type of a hotel, for a number of guests.
#[derive(Debug, Clone)]
pub struct RoomRates<'h> {
    content: Vec<&'h Rate>,
    supply: Option<&'h RoomSupply>,
    guests: u32,
}

impl<'h> RoomRates<'h> {
    /// The (board, currency) pairs the room type is sold with, in order.
    pub fn sold_with(&self) -> Vec<(&'h str, &'h str)> {
        let mut out: Vec<(&str, &str)> = self.content.iter().map(|r| (r.board.as_str(), r.currency.as_str())).collect();
        out.extend(self.supply.into_iter().flat_map(RoomSupply::plans));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The rate of each night of a stay with this board, in this currency (see
    /// [`Hotel::price`]).
    pub fn nightly(
        &self,
        board: &str,
        currency: &str,
        start: NaiveDate,
        end: NaiveDate,
    ) -> Result<Vec<(NaiveDate, Decimal)>, PriceError> {
        let rates: Vec<&Rate> =
            self.content.iter().copied().filter(|r| r.board == board && r.currency == currency).collect();
        let supplied = self.supply.and_then(|s| s.amounts(board, currency));
        if rates.is_empty() && supplied.is_none() {
            return Err(PriceError::BoardNotOffered);
        }
        let mut out = Vec::new();
        let mut night = start;
        while night < end {
            let amount = match supplied.and_then(|amounts| supply::amount(amounts, night, self.guests)) {
                Some(amount) => amount,
                None => {
                    rates
                        .iter()
                        .filter(|r| r.from <= night && night <= r.to)
                        .max_by_key(|r| r.from)
                        .ok_or(PriceError::NoRate(night))?
                        .nightly
                }
            };
            out.push((night, amount));
            night = night.checked_add_days(Days::new(1)).ok_or(PriceError::NoRate(night))?;
        }
        Ok(out)
    }
}

/// Every hotel and board.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    /// A persistent map: a copy with some hotels changed shares the rest of the index.
    hotels: OrdMap<String, Arc<Hotel>>,
    by_brand: Arc<HashMap<String, Vec<String>>>,
    /// Board codes and their English names.
    pub boards: BTreeMap<String, String>,
    /// The supply position its hotels' supply is at (see [`Catalogue::with_supply`] and
    /// [`crate::hotels::supply_changes`]).
    pub supply_position: SupplyPosition,
    /// The first night its hotels' supply keeps (see [`Catalogue::dropping_supply_before`]);
    /// before the first drop, a date before every night.
    pub supply_from: NaiveDate,
}

impl Catalogue {
    /// The catalogue of these hotels and boards.
    pub fn new(hotels: impl IntoIterator<Item = Hotel>, boards: BTreeMap<String, String>) -> Self {
        let hotels: OrdMap<String, Arc<Hotel>> = hotels.into_iter().map(|h| (h.code.clone(), Arc::new(h))).collect();
        let mut by_brand: HashMap<String, Vec<String>> = HashMap::new();
        for h in hotels.values() {
            if let Some(b) = &h.brand {
                by_brand.entry(b.clone()).or_default().push(h.code.clone());
            }
        }
        Catalogue {
            hotels,
            by_brand: Arc::new(by_brand),
            boards,
            supply_position: SupplyPosition::default(),
            supply_from: NaiveDate::MIN,
        }
    }

    /// The same catalogue, saying its supply is at this position.
    pub fn at_supply_position(self, supply_position: SupplyPosition) -> Catalogue {
        Catalogue { supply_position, ..self }
    }

    /// The same catalogue with what suppliers said of some hotels replaced (hotels not in the
    /// catalogue are left out: their supply is taken when they are imported). Costs the index's
    /// path to each hotel changed and a copy of its content (the supply comes whole), never of
    /// the others.
    pub fn with_supply(
        &self,
        supply_position: SupplyPosition,
        changed: impl IntoIterator<Item = (String, HotelSupply)>,
    ) -> Catalogue {
        let mut hotels = self.hotels.clone();
        for (code, supply) in changed {
            if let Some(h) = hotels.get_mut(&code) {
                Arc::make_mut(h).supply = Arc::new(supply);
            }
        }
        Catalogue {
            hotels,
            by_brand: self.by_brand.clone(),
            boards: self.boards.clone(),
            supply_position,
            supply_from: self.supply_from,
        }
    }

    /// The same catalogue without its hotels' supply values of nights before `first` (see
    /// [`HotelSupply::drop_before`]): only the hotels that had some are copied.
    pub fn dropping_supply_before(&self, first: NaiveDate) -> Catalogue {
        let mut hotels = self.hotels.clone();
        let past: Vec<String> =
            self.hotels.values().filter(|h| h.supply.has_before(first)).map(|h| h.code.clone()).collect();
        for code in past {
            if let Some(hotel) = hotels.get_mut(&code) {
                let mut supply = HotelSupply::clone(&hotel.supply);
                supply.drop_before(first);
                Arc::make_mut(hotel).supply = Arc::new(supply);
            }
        }
        Catalogue {
            hotels,
            by_brand: self.by_brand.clone(),
            boards: self.boards.clone(),
            supply_position: self.supply_position.clone(),
            supply_from: first,
        }
    }

    /// The hotel with this code.
    pub fn hotel(&self, code: &str) -> Option<&Hotel> {
        self.hotels.get(code).map(|h| &**h)
    }

    /// Every hotel, by code.
    pub fn hotels(&self) -> impl Iterator<Item = &Hotel> {
        self.hotels.values().map(|h| &**h)
    }

    /// The hotels of a country, named by its ISO code or by its name in any language of the
    /// content (case-insensitive), by code.
    pub fn in_country(&self, country: &str) -> Vec<&Hotel> {
        let wanted = country.trim();
        self.hotels()
            .filter(|h| {
                h.country_code.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(wanted))
                    || h.texts.values().any(|t| t.country_name.as_deref().is_some_and(|n| eq_words(n, wanted)))
            })
            .collect()
    }

    /// The hotels of a region, named as in the content (case-insensitive), by code.
    pub fn in_region(&self, region: &str) -> Vec<&Hotel> {
        let wanted = region.trim();
        self.hotels().filter(|h| h.region.as_deref().is_some_and(|r| eq_words(r, wanted))).collect()
    }

    /// The hotels of a client feed (sorted by code).
    pub fn brand(&self, brand: &str) -> impl Iterator<Item = &Hotel> {
        self.by_brand.get(brand).into_iter().flatten().filter_map(|c| self.hotel(c))
    }

    /// Whether a board code is known.
    pub fn is_board(&self, code: &str) -> bool {
        self.boards.contains_key(code)
    }

    /// The price of a stay (see [`Hotel::price`]).
    pub fn price(
        &self,
        hotel: &str,
        room: &str,
        board: &str,
        currency: &str,
        stay: (NaiveDate, NaiveDate),
        guests: u32,
    ) -> Result<Decimal, PriceError> {
        let h = self.hotel(hotel).ok_or(PriceError::UnknownHotel)?;
        if !self.is_board(board) {
            return Err(PriceError::UnknownBoard);
        }
        h.price(room, board, currency, stay, guests)
    }
}

/// Two names the same but for case and surrounding spaces.
fn eq_words(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    a.len() == b.len() && a.chars().zip(b.chars()).all(|(x, y)| x == y || x.to_lowercase().eq(y.to_lowercase()))
}

/// A hotel with a code and room types and nothing else (for tests).
#[cfg(test)]
impl Hotel {
    pub(crate) fn bare(code: &str, rooms: Vec<RoomType>) -> Hotel {
        Hotel {
            code: code.into(),
            name: code.into(),
            code_context: None,
            chain: None,
            brand: None,
            category_code: "20".into(),
            category_detail: None,
            category_text: None,
            position: None,
            address_lines: vec![],
            city: None,
            postal_code: None,
            country_code: None,
            region: None,
            time_zone: chrono_tz::UTC,
            phones: vec![],
            emails: vec![],
            last_modified: NaiveDate::MIN,
            texts: Texts::new(),
            rooms,
            rates: vec![],
            images: vec![],
            cancellation: Policy::default(),
            supply: Arc::default(),
        }
    }
}

#[cfg(test)]
mod tests;
