//! The activity catalogue as the operations see it: activities with their texts, categories,
//! nearby hotels, products, schedules, services and prices, held in memory (part of the
//! content snapshot) with the look-ups the operations need.

use crate::shared::cancellation::Policy;
use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use rust_decimal::Decimal;

/// Texts by language code.
pub type Texts<T> = BTreeMap<String, T>;

/// The texts of an activity in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityText {
    /// The name.
    pub name: String,
    /// A short name.
    pub short_name: Option<String>,
    /// A one-sentence description.
    pub short_description: Option<String>,
    /// The long description.
    pub long_description: Option<String>,
}

/// The name and description of a product or service in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemText {
    /// The name.
    pub name: String,
    /// The description.
    pub description: Option<String>,
}

/// An activity.
#[derive(Debug, Clone, PartialEq)]
pub struct Activity {
    /// `TourActivityID`.
    pub id: String,
    /// Street address lines.
    pub address: Vec<String>,
    /// City.
    pub city: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// ISO country code.
    pub country_code: Option<String>,
    /// Country name.
    pub country_name: Option<String>,
    /// Region code (`PMI`).
    pub region_code: String,
    /// Region name.
    pub region_name: String,
    /// Latitude.
    pub latitude: Option<Decimal>,
    /// Longitude.
    pub longitude: Option<Decimal>,
    /// Nominal ISO 8601 duration, shown when no schedule gives one.
    pub duration: Option<String>,
    /// Where its sessions' local times are: "now" is compared with them in this zone.
    pub time_zone: chrono_tz::Tz,
    /// Names and descriptions.
    pub texts: Texts<ActivityText>,
    /// (category code, type code) pairs.
    pub categories: Vec<(String, Option<String>)>,
    /// The hotels it is near to.
    pub hotels: Vec<NearbyHotel>,
    /// Its products.
    pub products: Vec<Product>,
    /// The cancellation policy of its bookings.
    pub cancellation: Policy,
}

/// A hotel near an activity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearbyHotel {
    /// Hotel code.
    pub code: String,
    /// Hotel name (shown as the pickup place).
    pub name: Option<String>,
    /// Where to meet the driver.
    pub meeting_location: Option<String>,
    /// Whether transfers pick up there.
    pub pickup: bool,
    /// Pickup lead before the start (minutes), overriding the service's.
    pub pickup_minutes: Option<i64>,
}

/// A product of an activity.
#[derive(Debug, Clone, PartialEq)]
pub struct Product {
    /// `SupplierProductCode`.
    pub code: String,
    /// Names and descriptions.
    pub texts: Texts<ItemText>,
    /// When it runs.
    pub schedules: Vec<Schedule>,
    /// Its services.
    pub services: Vec<Service>,
}

/// A recurring schedule of a product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// ISO weekdays it runs on (`1` Monday … `7` Sunday), e.g. `135`.
    pub weekdays: String,
    /// First date, if any.
    pub from: Option<NaiveDate>,
    /// Last date, if any.
    pub to: Option<NaiveDate>,
    /// Local start time.
    pub start: NaiveTime,
    /// Local end time (same day).
    pub end: NaiveTime,
}

impl Schedule {
    fn runs_on(&self, date: NaiveDate) -> bool {
        let weekday = char::from(b'0' + date.weekday().number_from_monday() as u8);
        self.weekdays.contains(weekday) && self.from.is_none_or(|f| date >= f) && self.to.is_none_or(|t| date <= t)
    }
}

/// One run of a product on a date: local start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Session {
    /// Start.
    pub start: NaiveDateTime,
    /// End.
    pub end: NaiveDateTime,
}

impl Product {
    /// The session of the product on a date (the earliest-starting schedule that runs then).
    pub fn session(&self, date: NaiveDate) -> Option<Session> {
        self.schedules
            .iter()
            .filter(|s| s.runs_on(date))
            .min_by_key(|s| s.start)
            .map(|s| Session { start: date.and_time(s.start), end: date.and_time(s.end) })
    }

    /// The dates in `from..=to` on which the product runs.
    pub fn dates(&self, from: NaiveDate, to: NaiveDate) -> impl Iterator<Item = NaiveDate> + '_ {
        from.iter_days().take_while(move |d| *d <= to).filter(|d| self.session(*d).is_some())
    }

    /// The service with this code.
    pub fn service(&self, code: &str) -> Option<&Service> {
        self.services.iter().find(|s| s.code == code)
    }
}

/// A service of a product.
#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    /// `SupplierServiceCode`.
    pub code: String,
    /// Whether it includes a transfer (a pickup is then required).
    pub transfer: bool,
    /// ISO 4217 currency of the prices.
    pub currency: String,
    /// Places offered per date.
    pub capacity: i64,
    /// Places offered on given dates, overriding `capacity`.
    pub capacity_on: BTreeMap<NaiveDate, i64>,
    /// Pickup lead before the start, in minutes (transfers).
    pub pickup_minutes: i64,
    /// Back at the hotel this long after the end, in minutes (transfers).
    pub return_minutes: i64,
    /// Names and descriptions.
    pub texts: Texts<ItemText>,
    /// Price per participant by participant category (AQC code).
    pub prices: BTreeMap<String, Decimal>,
}

impl Service {
    /// The price per participant of a category.
    pub fn price(&self, category: &str) -> Option<Decimal> {
        self.prices.get(category).copied()
    }

    /// Places offered on a date.
    pub fn capacity(&self, date: NaiveDate) -> i64 {
        self.capacity_on.get(&date).copied().unwrap_or(self.capacity)
    }

    /// What the client experiences of a session: for a transfer, from the pickup (the hotel's
    /// lead, else the service's) to the return; otherwise the session itself.
    pub fn span(&self, session: Session, hotel: Option<&NearbyHotel>) -> Session {
        if !self.transfer {
            return session;
        }
        let lead = hotel.and_then(|h| h.pickup_minutes).unwrap_or(self.pickup_minutes);
        Session {
            start: session.start - Duration::minutes(lead),
            end: session.end + Duration::minutes(self.return_minutes),
        }
    }
}

impl Activity {
    /// Now as a local time of the activity's place (whole seconds): what its sessions' times
    /// are compared with.
    pub fn now_here(&self, utc: DateTime<Utc>) -> NaiveDateTime {
        crate::shared::context::now_in(self.time_zone, utc)
    }

    /// The nearby hotel with that code.
    pub fn hotel(&self, code: &str) -> Option<&NearbyHotel> {
        self.hotels.iter().find(|h| h.code == code)
    }

    /// The hotel its transfers pick up at that `place` names: by its code, or by its name
    /// (case aside) as the availability answer's `PickupDropoff@LocationName` gives it, when one
    /// pickup hotel has that name.
    pub fn pickup_hotel(&self, place: &str) -> Option<&NearbyHotel> {
        self.pickup_hotels().find(|h| h.code == place).or_else(|| {
            let mut named =
                self.pickup_hotels().filter(|h| h.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(place)));
            match (named.next(), named.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        })
    }

    /// The hotels its transfers pick up at.
    pub fn pickup_hotels(&self) -> impl Iterator<Item = &NearbyHotel> {
        self.hotels.iter().filter(|h| h.pickup)
    }

    /// The product with this code.
    pub fn product(&self, code: &str) -> Option<&Product> {
        self.products.iter().find(|p| p.code == code)
    }
}

/// The whole activity catalogue.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    activities: BTreeMap<String, Activity>,
    /// Hotel code → ids of the activities near it (sorted).
    by_hotel: HashMap<String, Vec<String>>,
    /// Product code → the first activity (by id) with a product of that code.
    by_product: HashMap<String, String>,
    /// Names of category codes: code → language → name.
    pub category_names: BTreeMap<String, Texts<String>>,
    /// Names of type codes: code → language → name.
    pub type_names: BTreeMap<String, Texts<String>>,
}

impl Catalogue {
    /// The catalogue of these activities and code names.
    pub fn new(
        activities: impl IntoIterator<Item = Activity>,
        category_names: BTreeMap<String, Texts<String>>,
        type_names: BTreeMap<String, Texts<String>>,
    ) -> Self {
        let activities: BTreeMap<String, Activity> = activities.into_iter().map(|a| (a.id.clone(), a)).collect();
        let mut by_hotel: HashMap<String, Vec<String>> = HashMap::new();
        let mut by_product: HashMap<String, String> = HashMap::new();
        for a in activities.values() {
            for h in &a.hotels {
                by_hotel.entry(h.code.clone()).or_default().push(a.id.clone());
            }
            for p in &a.products {
                by_product.entry(p.code.clone()).or_insert_with(|| a.id.clone());
            }
        }
        Catalogue { activities, by_hotel, by_product, category_names, type_names }
    }

    /// The activity with this id.
    pub fn activity(&self, id: &str) -> Option<&Activity> {
        self.activities.get(id)
    }

    /// Every activity, by id.
    pub fn activities(&self) -> impl Iterator<Item = &Activity> {
        self.activities.values()
    }

    /// The activities of an area (OpenTravel's `Region@RegionCode` / `@RegionName`), by id: those
    /// whose region code is `code` (case aside) and whose region name begins with `name` (case
    /// aside: `Mallorca` is every `Mallorca – …` region).
    pub fn in_area<'a>(
        &'a self,
        code: Option<&'a str>,
        name: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Activity> + 'a {
        let name = name.map(str::to_lowercase);
        self.activities().filter(move |a| {
            code.is_none_or(|c| a.region_code.eq_ignore_ascii_case(c))
                && name.as_deref().is_none_or(|n| a.region_name.to_lowercase().starts_with(n))
        })
    }

    /// The ids of the activities near a hotel.
    pub fn near(&self, hotel_code: &str) -> &[String] {
        self.by_hotel.get(hotel_code).map(Vec::as_slice).unwrap_or_default()
    }

    /// The activity a "product" code names: a `TourActivityID`, else a `SupplierProductCode`.
    pub fn of_product(&self, code: &str) -> Option<&Activity> {
        self.activities.get(code).or_else(|| self.by_product.get(code).and_then(|id| self.activities.get(id)))
    }
}

/// An ISO 8601 duration of whole minutes, e.g. `PT1H15M`, `PT8H`, `PT0M`.
pub fn iso_duration(d: Duration) -> String {
    let minutes = d.num_minutes().max(0);
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("PT{m}M"),
        (h, 0) => format!("PT{h}H"),
        (h, m) => format!("PT{h}H{m}M"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(iso_duration(Duration::minutes(75)), "PT1H15M");
        assert_eq!(iso_duration(Duration::minutes(480)), "PT8H");
        assert_eq!(iso_duration(Duration::minutes(45)), "PT45M");
    }

    #[test]
    fn capacity_on_a_date_overrides_the_usual_one() {
        let s = Service {
            code: "TIC".into(),
            transfer: false,
            currency: "EUR".into(),
            capacity: 20,
            capacity_on: [(NaiveDate::from_ymd_opt(2030, 8, 15).unwrap_or_default(), 4)].into(),
            pickup_minutes: 0,
            return_minutes: 0,
            texts: Texts::new(),
            prices: BTreeMap::new(),
        };
        assert_eq!(s.capacity(NaiveDate::from_ymd_opt(2030, 8, 15).unwrap_or_default()), 4);
        assert_eq!(s.capacity(NaiveDate::from_ymd_opt(2030, 8, 16).unwrap_or_default()), 20);
    }
}
