//! The activities section of the import file ([`Content`]) and how it is written to the
//! database ([`store`]). The format is described in the README ("Import file: activities").

use std::collections::{BTreeMap, BTreeSet};

use chrono::{NaiveDate, NaiveTime};
use rusqlite::{Transaction, params};
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::db::DbError;

/// The `"activities"` section of the import file: a list of activities. Each activity listed
/// replaces the stored one with the same `id` (its texts, categories, hotels, products,
/// schedules, services and prices); activities not listed are left as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Content {
    /// The activities.
    pub activities: Vec<ActivityInput>,
}

/// One tour activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivityInput {
    /// The `TourActivityID`, e.g. `LESPMIBKUI`.
    pub id: String,
    /// Names and descriptions per language code (`en`, `es`, …); `en` is the fallback.
    pub texts: BTreeMap<String, ActivityText>,
    /// Category (`XA`, `SE`, …) and type (`CAVE`, …) pairs.
    #[serde(default)]
    pub categories: Vec<CategoryInput>,
    /// Where the activity takes place.
    pub location: LocationInput,
    /// The nominal duration (ISO 8601, e.g. `PT8H`), used when no schedule gives one.
    #[serde(default)]
    pub duration: Option<String>,
    /// The hotels the activity is near to (found by a search from those hotels), with the
    /// pickup point of its transfer services.
    #[serde(default)]
    pub hotels: Vec<HotelInput>,
    /// The products (`SupplierProductCode`).
    pub products: Vec<ProductInput>,
}

/// The texts of an activity in one language.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivityText {
    /// The name.
    pub name: String,
    /// A short name.
    #[serde(default)]
    pub short_name: Option<String>,
    /// A one-sentence description.
    #[serde(default)]
    pub short_description: Option<String>,
    /// The long description.
    #[serde(default)]
    pub long_description: Option<String>,
}

/// A category and type of an activity, with their names per language.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryInput {
    /// The category code: `XA` excursion, `SE` show/event, or another code.
    pub category: String,
    /// The type code within the category, e.g. `CAVE`.
    #[serde(default, rename = "type")]
    pub type_code: Option<String>,
    /// Names of the category per language (built-in English and Spanish names for XA and SE).
    #[serde(default)]
    pub category_name: BTreeMap<String, String>,
    /// Names of the type per language.
    #[serde(default)]
    pub type_name: BTreeMap<String, String>,
}

/// The location of an activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocationInput {
    /// Street address lines.
    #[serde(default)]
    pub address_lines: Vec<String>,
    /// City or town.
    #[serde(default)]
    pub city: Option<String>,
    /// Postal code.
    #[serde(default)]
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default)]
    pub country_code: Option<String>,
    /// Country name.
    #[serde(default)]
    pub country_name: Option<String>,
    /// Region code, e.g. `PMI`.
    pub region_code: String,
    /// Region name, e.g. `Mallorca – East coast`.
    pub region_name: String,
    /// Latitude in decimal degrees, as a string (`"39.5354"`).
    #[serde(default)]
    pub latitude: Option<String>,
    /// Longitude in decimal degrees, as a string.
    #[serde(default)]
    pub longitude: Option<String>,
}

/// A hotel near an activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HotelInput {
    /// The hotel code, e.g. `HTL00042`.
    pub code: String,
    /// The hotel's name (shown as the pickup place).
    #[serde(default)]
    pub name: Option<String>,
    /// Where exactly to meet the driver.
    #[serde(default)]
    pub meeting_location: Option<String>,
    /// Whether the transfer services pick up at this hotel (default true).
    #[serde(default = "yes")]
    pub pickup: bool,
    /// Pickup lead before the start, in minutes, overriding the service's.
    #[serde(default)]
    pub pickup_minutes: Option<u32>,
}

fn yes() -> bool {
    true
}

/// A product of an activity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProductInput {
    /// The `SupplierProductCode`, e.g. `TE0CC00A`.
    pub code: String,
    /// Name and description per language.
    #[serde(default)]
    pub texts: BTreeMap<String, ItemText>,
    /// When the product runs.
    pub schedules: Vec<ScheduleInput>,
    /// The services (`TIC`, `TRF`, …).
    pub services: Vec<ServiceInput>,
}

/// The name and description of a product or service in one language.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemText {
    /// The name.
    pub name: String,
    /// The description.
    #[serde(default)]
    pub description: Option<String>,
}

/// A recurring schedule: weekdays, an optional validity period and the local start and end
/// time of day.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleInput {
    /// Weekdays (`Mon` … `Sun`); every day when absent.
    #[serde(default)]
    pub weekdays: Option<Vec<String>>,
    /// First date (`YYYY-MM-DD`), open when absent.
    #[serde(default)]
    pub from: Option<String>,
    /// Last date (`YYYY-MM-DD`), open when absent.
    #[serde(default)]
    pub to: Option<String>,
    /// Start time of day, `hh:mm`.
    pub start: String,
    /// End time of day, `hh:mm` (after the start, same day).
    pub end: String,
}

/// A service of a product.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceInput {
    /// The `SupplierServiceCode`: `TIC` ticket only, `TRF` with transfer, or another code.
    pub code: String,
    /// Whether the service includes a transfer (pickup required); default: the code is `TRF`.
    #[serde(default)]
    pub transfer: Option<bool>,
    /// ISO 4217 currency of the prices.
    pub currency: String,
    /// Places per date.
    pub places: u32,
    /// For transfers: pickup this many minutes before the start.
    #[serde(default)]
    pub pickup_minutes: u32,
    /// For transfers: back at the hotel this many minutes after the end.
    #[serde(default)]
    pub return_minutes: u32,
    /// Name and description per language.
    #[serde(default)]
    pub texts: BTreeMap<String, ItemText>,
    /// Price per participant, by participant category (AQC code `"10"` adult, `"8"` child, …),
    /// as a decimal string (`"29.50"`).
    pub prices: BTreeMap<String, String>,
    /// Places left on given dates (`"YYYY-MM-DD": places`), overriding `places` there.
    #[serde(default)]
    pub allotment: BTreeMap<String, u32>,
}

fn bad(what: impl Into<String>) -> DbError {
    DbError::Data(what.into())
}

fn check_lang(lang: &str, at: &str) -> Result<String, DbError> {
    let ok = (2..=8).contains(&lang.len()) && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok { Ok(lang.to_ascii_lowercase()) } else { Err(bad(format!("{at}: invalid language code {lang:?}"))) }
}

fn parse_time(s: &str, at: &str) -> Result<NaiveTime, DbError> {
    NaiveTime::parse_from_str(s, "%H:%M").map_err(|_| bad(format!("{at}: {s:?} is not a time of day hh:mm")))
}

fn parse_date(s: &str, at: &str) -> Result<NaiveDate, DbError> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| bad(format!("{at}: {s:?} is not a date YYYY-MM-DD")))
}

fn parse_weekday(s: &str, at: &str) -> Result<char, DbError> {
    let d = match s.to_ascii_lowercase().get(..3) {
        Some("mon") => '1',
        Some("tue") => '2',
        Some("wed") => '3',
        Some("thu") => '4',
        Some("fri") => '5',
        Some("sat") => '6',
        Some("sun") => '7',
        _ => return Err(bad(format!("{at}: {s:?} is not a weekday (Mon … Sun)"))),
    };
    Ok(d)
}

/// A money amount: a non-negative decimal, with at least two decimals when written.
pub(crate) fn parse_money(s: &str, at: &str) -> Result<Decimal, DbError> {
    let d = Decimal::from_str_exact(s.trim()).map_err(|_| bad(format!("{at}: {s:?} is not a decimal amount")))?;
    if d.is_sign_negative() {
        return Err(bad(format!("{at}: {s:?} is negative")));
    }
    let mut d = d;
    if d.scale() < 2 {
        d.rescale(2);
    }
    Ok(d)
}

fn parse_coordinate(s: &str, limit: i64, at: &str) -> Result<String, DbError> {
    let d = Decimal::from_str_exact(s.trim()).map_err(|_| bad(format!("{at}: {s:?} is not a decimal number")))?;
    if d.abs() > Decimal::from(limit) {
        return Err(bad(format!("{at}: {s:?} is out of range")));
    }
    Ok(d.to_string())
}

fn check_duration(s: &str, at: &str) -> Result<(), DbError> {
    // P[nY][nM][nD][T[nH][nM][nS]] with whole numbers.
    let bad_duration = || bad(format!("{at}: {s:?} is not an ISO 8601 duration such as PT8H"));
    let rest = s.strip_prefix('P').ok_or_else(bad_duration)?;
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) if !t.is_empty() => (d, Some(t)),
        Some(_) => return Err(bad_duration()),
        None => (rest, None),
    };
    let ok = |part: &str, units: &[char]| {
        let mut last = 0usize;
        let mut digits = false;
        for c in part.chars() {
            if c.is_ascii_digit() {
                digits = true;
            } else if let Some(pos) = units.iter().position(|u| *u == c) {
                if !digits || pos < last {
                    return false;
                }
                last = pos + 1;
                digits = false;
            } else {
                return false;
            }
        }
        !digits
    };
    if (date.is_empty() && time.is_none()) || !ok(date, &['Y', 'M', 'D']) || !time.is_none_or(|t| ok(t, &['H', 'M', 'S'])) {
        return Err(bad_duration());
    }
    Ok(())
}

fn nonempty(s: &str, at: &str, what: &str) -> Result<(), DbError> {
    if s.trim().is_empty() { Err(bad(format!("{at}: {what} is empty"))) } else { Ok(()) }
}

/// Checks one activity before anything is written.
fn validate(a: &ActivityInput) -> Result<(), DbError> {
    let at = format!("activity {:?}", a.id);
    nonempty(&a.id, &at, "id")?;
    if a.id.len() > 64 {
        return Err(bad(format!("{at}: id longer than 64 characters")));
    }
    if a.texts.is_empty() {
        return Err(bad(format!("{at}: texts need at least one language")));
    }
    for (lang, t) in &a.texts {
        check_lang(lang, &at)?;
        nonempty(&t.name, &at, "name")?;
    }
    nonempty(&a.location.region_code, &at, "location.region_code")?;
    nonempty(&a.location.region_name, &at, "location.region_name")?;
    if let Some(c) = a.location.country_code.as_ref().filter(|c| !(c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()))) {
        return Err(bad(format!("{at}: country_code {c:?} is not two upper-case letters")));
    }
    if let Some(d) = &a.duration {
        check_duration(d, &at)?;
    }
    for c in &a.categories {
        nonempty(&c.category, &at, "category")?;
        for lang in c.category_name.keys().chain(c.type_name.keys()) {
            check_lang(lang, &at)?;
        }
    }
    let mut hotels = BTreeSet::new();
    for h in &a.hotels {
        nonempty(&h.code, &at, "hotel code")?;
        if !hotels.insert(&h.code) {
            return Err(bad(format!("{at}: hotel {:?} listed twice", h.code)));
        }
        if h.pickup_minutes.is_some_and(|m| m > 1440) {
            return Err(bad(format!("{at}: hotel {:?}: pickup_minutes above 1440", h.code)));
        }
    }
    if a.products.is_empty() {
        return Err(bad(format!("{at}: no products")));
    }
    let mut products = BTreeSet::new();
    for p in &a.products {
        let at = format!("{at}, product {:?}", p.code);
        nonempty(&p.code, &at, "code")?;
        if !products.insert(&p.code) {
            return Err(bad(format!("{at}: listed twice")));
        }
        for lang in p.texts.keys() {
            check_lang(lang, &at)?;
        }
        for s in &p.schedules {
            let (start, end) = (parse_time(&s.start, &at)?, parse_time(&s.end, &at)?);
            if end <= start {
                return Err(bad(format!("{at}: schedule ends ({}) before it starts ({})", s.end, s.start)));
            }
            for w in s.weekdays.iter().flatten() {
                parse_weekday(w, &at)?;
            }
            if s.weekdays.as_ref().is_some_and(Vec::is_empty) {
                return Err(bad(format!("{at}: schedule with an empty weekday list")));
            }
            let from = s.from.as_deref().map(|d| parse_date(d, &at)).transpose()?;
            let to = s.to.as_deref().map(|d| parse_date(d, &at)).transpose()?;
            if let (Some(f), Some(t)) = (from, to) {
                if t < f {
                    return Err(bad(format!("{at}: schedule ends ({t}) before it starts ({f})")));
                }
            }
        }
        if p.services.is_empty() {
            return Err(bad(format!("{at}: no services")));
        }
        let mut services = BTreeSet::new();
        for s in &p.services {
            let at = format!("{at}, service {:?}", s.code);
            nonempty(&s.code, &at, "code")?;
            if s.code.len() > 16 {
                return Err(bad(format!("{at}: code longer than 16 characters")));
            }
            if !services.insert(&s.code) {
                return Err(bad(format!("{at}: listed twice")));
            }
            if !(s.currency.len() == 3 && s.currency.bytes().all(|b| b.is_ascii_uppercase())) {
                return Err(bad(format!("{at}: currency {:?} is not an ISO 4217 code", s.currency)));
            }
            if s.pickup_minutes > 1440 || s.return_minutes > 1440 {
                return Err(bad(format!("{at}: pickup/return minutes above 1440")));
            }
            if s.prices.is_empty() {
                return Err(bad(format!("{at}: no prices")));
            }
            for (category, amount) in &s.prices {
                if category.is_empty() || category.len() > 8 || !category.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad(format!("{at}: participant category {category:?} is not an AQC code")));
                }
                parse_money(amount, &at)?;
            }
            for lang in s.texts.keys() {
                check_lang(lang, &at)?;
            }
            for date in s.allotment.keys() {
                parse_date(date, &at)?;
            }
        }
    }
    Ok(())
}

/// The built-in names of the known category codes.
const CATEGORY_NAMES: &[(&str, &str, &str)] = &[
    ("XA", "en", "Excursion"),
    ("XA", "es", "Excursión"),
    ("SE", "en", "Show / event"),
    ("SE", "es", "Espectáculo / evento"),
];

/// Writes the activities of `content` (upsert by activity id; see [`Content`]). Invalid content
/// is refused with [`DbError::Data`] before anything is written.
pub fn store(tx: &Transaction, content: &Content) -> Result<(), DbError> {
    for a in &content.activities {
        validate(a)?;
    }
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    for (code, lang, name) in CATEGORY_NAMES {
        tx.execute(
            "INSERT INTO activity_code_text (kind, code, lang, name) VALUES ('category', ?1, ?2, ?3)
             ON CONFLICT (kind, code, lang) DO NOTHING",
            params![code, lang, name],
        )?;
    }
    for a in &content.activities {
        store_activity(tx, a, &now)?;
    }
    Ok(())
}

fn store_activity(tx: &Transaction, a: &ActivityInput, now: &str) -> Result<(), DbError> {
    let at = format!("activity {:?}", a.id);
    let loc = &a.location;
    let latitude = loc.latitude.as_deref().map(|v| parse_coordinate(v, 90, &at)).transpose()?;
    let longitude = loc.longitude.as_deref().map(|v| parse_coordinate(v, 180, &at)).transpose()?;
    tx.execute(
        "INSERT INTO activity (id, address, city, postal_code, country_code, country_name, region_code, region_name,
                               latitude, longitude, duration, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (id) DO UPDATE SET address = excluded.address, city = excluded.city,
             postal_code = excluded.postal_code, country_code = excluded.country_code,
             country_name = excluded.country_name, region_code = excluded.region_code,
             region_name = excluded.region_name, latitude = excluded.latitude,
             longitude = excluded.longitude, duration = excluded.duration, updated_at = excluded.updated_at",
        params![
            a.id,
            loc.address_lines.join("\n"),
            loc.city,
            loc.postal_code,
            loc.country_code,
            loc.country_name,
            loc.region_code,
            loc.region_name,
            latitude,
            longitude,
            a.duration,
            now
        ],
    )?;
    for table in ["activity_text", "activity_category", "activity_hotel"] {
        tx.execute(&format!("DELETE FROM {table} WHERE activity_id = ?1"), [&a.id])?;
    }
    for (lang, t) in &a.texts {
        tx.execute(
            "INSERT INTO activity_text (activity_id, lang, name, short_name, short_description, long_description)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![a.id, check_lang(lang, &at)?, t.name, t.short_name, t.short_description, t.long_description],
        )?;
    }
    for (i, c) in a.categories.iter().enumerate() {
        tx.execute(
            "INSERT INTO activity_category (activity_id, position, category_code, type_code) VALUES (?1, ?2, ?3, ?4)",
            params![a.id, i as i64, c.category, c.type_code],
        )?;
        let names = c
            .category_name
            .iter()
            .map(|(lang, name)| ("category", c.category.as_str(), lang, name))
            .chain(c.type_code.iter().flat_map(|t| c.type_name.iter().map(move |(lang, name)| ("type", t.as_str(), lang, name))));
        for (kind, code, lang, name) in names {
            tx.execute(
                "INSERT INTO activity_code_text (kind, code, lang, name) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (kind, code, lang) DO UPDATE SET name = excluded.name",
                params![kind, code, check_lang(lang, &at)?, name],
            )?;
        }
    }
    for h in &a.hotels {
        tx.execute(
            "INSERT INTO activity_hotel (activity_id, hotel_code, hotel_name, meeting_location, pickup, pickup_minutes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![a.id, h.code, h.name, h.meeting_location, h.pickup, h.pickup_minutes],
        )?;
    }

    let mut kept_products = Vec::new();
    for (pos, p) in a.products.iter().enumerate() {
        let product_id: i64 = tx.query_row(
            "INSERT INTO activity_product (activity_id, code, position) VALUES (?1, ?2, ?3)
             ON CONFLICT (activity_id, code) DO UPDATE SET position = excluded.position
             RETURNING id",
            params![a.id, p.code, pos as i64],
            |r| r.get(0),
        )?;
        kept_products.push(product_id);
        store_product(tx, product_id, p, &at)?;
    }
    // Products no longer listed go, with their schedules, services, prices and allotment.
    let mut stmt = tx.prepare("SELECT id FROM activity_product WHERE activity_id = ?1")?;
    let existing: Vec<i64> = stmt.query_map([&a.id], |r| r.get(0))?.collect::<Result<_, _>>()?;
    for id in existing.into_iter().filter(|id| !kept_products.contains(id)) {
        tx.execute("DELETE FROM activity_product WHERE id = ?1", [id])?;
    }
    Ok(())
}

fn store_product(tx: &Transaction, product_id: i64, p: &ProductInput, at: &str) -> Result<(), DbError> {
    let at = format!("{at}, product {:?}", p.code);
    for table in ["activity_product_text", "activity_schedule"] {
        tx.execute(&format!("DELETE FROM {table} WHERE product_id = ?1"), [product_id])?;
    }
    for (lang, t) in &p.texts {
        tx.execute(
            "INSERT INTO activity_product_text (product_id, lang, name, description) VALUES (?1, ?2, ?3, ?4)",
            params![product_id, check_lang(lang, &at)?, t.name, t.description],
        )?;
    }
    for s in &p.schedules {
        let weekdays: String = match &s.weekdays {
            None => "1234567".to_string(),
            Some(days) => {
                let set: BTreeSet<char> = days.iter().map(|d| parse_weekday(d, &at)).collect::<Result<_, _>>()?;
                set.into_iter().collect()
            }
        };
        let start = parse_time(&s.start, &at)?.format("%H:%M").to_string();
        let end = parse_time(&s.end, &at)?.format("%H:%M").to_string();
        let from = s.from.as_deref().map(|d| parse_date(d, &at)).transpose()?.map(|d| d.to_string());
        let to = s.to.as_deref().map(|d| parse_date(d, &at)).transpose()?.map(|d| d.to_string());
        tx.execute(
            "INSERT INTO activity_schedule (product_id, weekdays, valid_from, valid_to, start_time, end_time)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![product_id, weekdays, from, to, start, end],
        )?;
    }
    let mut kept = Vec::new();
    for (pos, s) in p.services.iter().enumerate() {
        let at = format!("{at}, service {:?}", s.code);
        let transfer = s.transfer.unwrap_or(s.code == "TRF");
        let service_id: i64 = tx.query_row(
            "INSERT INTO activity_service (product_id, code, transfer, currency, capacity, pickup_minutes, return_minutes, position)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (product_id, code) DO UPDATE SET transfer = excluded.transfer, currency = excluded.currency,
                 capacity = excluded.capacity, pickup_minutes = excluded.pickup_minutes,
                 return_minutes = excluded.return_minutes, position = excluded.position
             RETURNING id",
            params![product_id, s.code, transfer, s.currency, s.places, s.pickup_minutes, s.return_minutes, pos as i64],
            |r| r.get(0),
        )?;
        kept.push(service_id);
        for table in ["activity_service_text", "activity_price"] {
            tx.execute(&format!("DELETE FROM {table} WHERE service_id = ?1"), [service_id])?;
        }
        for (lang, t) in &s.texts {
            tx.execute(
                "INSERT INTO activity_service_text (service_id, lang, name, description) VALUES (?1, ?2, ?3, ?4)",
                params![service_id, check_lang(lang, &at)?, t.name, t.description],
            )?;
        }
        for (category, amount) in &s.prices {
            tx.execute(
                "INSERT INTO activity_price (service_id, category, amount) VALUES (?1, ?2, ?3)",
                params![service_id, category, parse_money(amount, &at)?.to_string()],
            )?;
        }
        for (date, places) in &s.allotment {
            tx.execute(
                "INSERT INTO activity_allotment (service_id, date, places_left) VALUES (?1, ?2, ?3)
                 ON CONFLICT (service_id, date) DO UPDATE SET places_left = excluded.places_left",
                params![service_id, parse_date(date, &at)?.to_string(), places],
            )?;
        }
    }
    let mut stmt = tx.prepare("SELECT id FROM activity_service WHERE product_id = ?1")?;
    let existing: Vec<i64> = stmt.query_map([product_id], |r| r.get(0))?.collect::<Result<_, _>>()?;
    for id in existing.into_iter().filter(|id| !kept.contains(id)) {
        tx.execute("DELETE FROM activity_service WHERE id = ?1", [id])?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for ok in ["PT8H", "PT1H15M", "P2D", "P1DT2H", "PT45M", "PT30S"] {
            assert!(check_duration(ok, "t").is_ok(), "{ok}");
        }
        for bad in ["", "P", "PT", "8H", "PT8", "PTH", "PT15M1H", "P1H"] {
            assert!(check_duration(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn money_gets_two_decimals() {
        assert_eq!(parse_money("30", "t").map(|d| d.to_string()).ok().as_deref(), Some("30.00"));
        assert_eq!(parse_money("29.5", "t").map(|d| d.to_string()).ok().as_deref(), Some("29.50"));
        assert_eq!(parse_money("1.125", "t").map(|d| d.to_string()).ok().as_deref(), Some("1.125"));
        assert!(parse_money("-1", "t").is_err());
        assert!(parse_money("1e3", "t").is_err());
    }

    #[test]
    fn demo_content_is_valid() {
        let content: Content = match serde_json::from_str(super::super::DEMO) {
            Ok(c) => c,
            Err(e) => panic!("demo: {e}"),
        };
        assert!(content.activities.len() >= 4);
        for a in &content.activities {
            assert!(validate(a).is_ok(), "{}: {:?}", a.id, validate(a));
        }
    }
}
