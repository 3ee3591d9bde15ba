//! The `activities` part of an import file (see `gateway/README.md`, "Import file:
//! activities"): the input types, and their checks, which turn them into catalogue
//! [`Activity`] values ready to store. An invalid entry fails the whole import, naming the
//! activity, product or service.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;
use serde::Deserialize;

use super::catalogue::{Activity, ActivityText, ItemText, NearbyHotel, Product, Schedule, Service, Texts};
use super::repo;
use crate::shared::cancellation::{self, RuleInput};
use crate::shared::import::ImportError;
use crate::shared::values::{self, Amount, Day, de};
use crate::store::Conn;

/// The demo activities (the value of the import file's `"activities"` part): Mallorca (region
/// `PMI`, hotels `HTL00042`, `HTL00077`) and Tenerife (region `TFS`, hotels `HTL00110`,
/// `HTL00123`), weekly schedules (so they cover any run date), EUR prices for adults (`10`) and
/// children (`8`), 20 places per date, and one small-group activity (`LESPMICATA`) with 2.
pub const DEMO: &str = include_str!("../../demo/activities.json");

/// The `"activities"` part of an import file: each activity listed replaces the stored one
/// with the same `id`; activities not listed are left as they are.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct ActivitiesInput {
    /// The activities.
    pub activities: Vec<ActivityInput>,
}

/// One tour activity.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivityInput {
    /// The `TourActivityID`, e.g. `LESPMIBKUI`.
    pub id: String,
    /// Names and descriptions per language code (`en`, `es`, …); `en` is the fallback.
    pub texts: BTreeMap<String, ActivityTextInput>,
    /// Category (`XA`, `SE`, …) and type (`CAVE`, …) pairs.
    #[serde(default)]
    pub categories: Vec<CategoryInput>,
    /// Where the activity takes place.
    pub location: LocationInput,
    /// The nominal duration (ISO 8601, e.g. `PT8H`), used when no schedule gives one.
    #[serde(default, deserialize_with = "de::opt_iso_duration")]
    pub duration: Option<String>,
    /// Where its sessions' local times are (IANA, e.g. `Europe/Madrid`); default UTC.
    #[serde(default, deserialize_with = "de::opt_time_zone")]
    pub time_zone: Option<chrono_tz::Tz>,
    /// The hotels the activity is near to, with the pickup point of its transfers.
    #[serde(default)]
    pub hotels: Vec<HotelInput>,
    /// The products (`SupplierProductCode`).
    pub products: Vec<ProductInput>,
    /// The cancellation policy of its bookings (absent: free until 48 hours before the
    /// session starts, then 100 %).
    #[serde(default)]
    pub cancellation: Option<Vec<RuleInput>>,
}

/// The texts of an activity in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivityTextInput {
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
    #[serde(default, deserialize_with = "de::opt_country")]
    pub country_code: Option<String>,
    /// Country name.
    #[serde(default)]
    pub country_name: Option<String>,
    /// Region code, e.g. `PMI`.
    pub region_code: String,
    /// Region name, e.g. `Mallorca – East coast`.
    pub region_name: String,
    /// Latitude in decimal degrees, as a string (`"39.5354"`).
    #[serde(default, deserialize_with = "de::opt_latitude")]
    pub latitude: Option<Decimal>,
    /// Longitude in decimal degrees, as a string.
    #[serde(default, deserialize_with = "de::opt_longitude")]
    pub longitude: Option<Decimal>,
}

/// A hotel near an activity.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProductInput {
    /// The `SupplierProductCode`, e.g. `TE0CC00A`.
    pub code: String,
    /// Name and description per language.
    #[serde(default)]
    pub texts: BTreeMap<String, ItemTextInput>,
    /// When the product runs.
    pub schedules: Vec<ScheduleInput>,
    /// The services (`TIC`, `TRF`, …).
    pub services: Vec<ServiceInput>,
}

/// The name and description of a product or service in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemTextInput {
    /// The name.
    pub name: String,
    /// The description.
    #[serde(default)]
    pub description: Option<String>,
}

/// A recurring schedule: weekdays, an optional validity period and the local start and end
/// time of day.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleInput {
    /// Weekdays (`Mon` … `Sun`); every day when absent.
    #[serde(default)]
    pub weekdays: Option<Vec<String>>,
    /// First date (`YYYY-MM-DD`), open when absent.
    #[serde(default, deserialize_with = "de::opt_date")]
    pub from: Option<NaiveDate>,
    /// Last date (`YYYY-MM-DD`), open when absent.
    #[serde(default, deserialize_with = "de::opt_date")]
    pub to: Option<NaiveDate>,
    /// Start time of day, `hh:mm`.
    #[serde(deserialize_with = "de::time_of_day")]
    pub start: NaiveTime,
    /// End time of day, `hh:mm` (after the start, same day).
    #[serde(deserialize_with = "de::time_of_day")]
    pub end: NaiveTime,
}

/// A service of a product.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceInput {
    /// The `SupplierServiceCode`: `TIC` ticket only, `TRF` with transfer, or another code.
    pub code: String,
    /// Whether the service includes a transfer (pickup required); default: the code is `TRF`.
    #[serde(default)]
    pub transfer: Option<bool>,
    /// ISO 4217 currency of the prices.
    #[serde(deserialize_with = "de::currency")]
    pub currency: String,
    /// Places offered per date.
    pub places: u32,
    /// For transfers: pickup this many minutes before the start.
    #[serde(default)]
    pub pickup_minutes: u32,
    /// For transfers: back at the hotel this many minutes after the end.
    #[serde(default)]
    pub return_minutes: u32,
    /// Name and description per language.
    #[serde(default)]
    pub texts: BTreeMap<String, ItemTextInput>,
    /// Price per participant, by participant category (AQC code `"10"` adult, `"8"` child, …),
    /// as a decimal string (`"29.50"`).
    pub prices: BTreeMap<String, Amount>,
    /// Places offered on given dates (`"YYYY-MM-DD": places`), overriding `places` there.
    #[serde(default)]
    pub allotment: BTreeMap<Day, u32>,
}

/// The built-in names of the known category codes.
pub const CATEGORY_NAMES: &[(&str, &str, &str)] = &[
    ("XA", "en", "Excursion"),
    ("XA", "es", "Excursión"),
    ("SE", "en", "Show / event"),
    ("SE", "es", "Espectáculo / evento"),
];

/// The longest activity or product code, and service code.
const MAX_ID: usize = 64;
const MAX_SERVICE_CODE: usize = 16;
/// The longest pickup or return lead, in minutes.
const MAX_LEAD_MINUTES: u32 = 1440;

/// Activities ready to store, and the names of category and type codes they bring.
#[derive(Debug, Clone, Default)]
pub struct ImportedActivities {
    /// The activities.
    pub activities: Vec<Activity>,
    /// (kind `category` or `type`, code, language, name).
    pub code_names: Vec<(String, String, String, String)>,
}

/// Writes the activities of an import (each replaces the stored one with its id) and the
/// names of codes. Fails, naming them, when a product or service with future bookings would
/// disappear.
pub(crate) async fn write(
    c: &mut Conn<'_>,
    imported: &ImportedActivities,
    today: NaiveDate,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), ImportError> {
    for &(code, lang, name) in CATEGORY_NAMES {
        repo::catalogue::upsert_code_name(c, ("category", code, lang, name), true).await?;
    }
    for (kind, code, lang, name) in &imported.code_names {
        repo::catalogue::upsert_code_name(c, (kind, code, lang, name), false).await?;
    }
    for a in &imported.activities {
        repo::catalogue::replace_activity(c, a, now).await?;
        if let Some(d) = repo::catalogue::dropped_with_bookings(c, &a.id, today).await? {
            return Err(ImportError::invalid(
                format!("activity {:?}", a.id),
                format!(
                    "product {:?} service {:?} has bookings from {} on; it cannot be removed (keep it, with places 0 to stop selling it)",
                    d.product_code, d.service_code, d.first_date
                ),
            ));
        }
    }
    Ok(())
}

/// Checks every activity and turns it into catalogue values.
pub fn validate(input: &ActivitiesInput) -> Result<ImportedActivities, ImportError> {
    let mut out = ImportedActivities::default();
    for (code, lang, name) in CATEGORY_NAMES {
        out.code_names.push(("category".into(), code.to_string(), lang.to_string(), name.to_string()));
    }
    let mut ids = BTreeSet::new();
    for a in &input.activities {
        let entry = format!("activity {:?}", a.id);
        if !ids.insert(a.id.as_str()) {
            return Err(ImportError::invalid(entry, "listed twice"));
        }
        let (activity, names) = activity(a).map_err(|problem| ImportError::invalid(&entry, problem))?;
        out.activities.push(activity);
        out.code_names.extend(names);
    }
    Ok(out)
}

fn texts<I, T>(input: &BTreeMap<String, I>, f: impl Fn(&I) -> Result<T, String>) -> Result<Texts<T>, String> {
    input.iter().map(|(lang, t)| Ok((values::language(lang)?, f(t)?))).collect()
}

fn nonempty(value: &str, what: &str) -> Result<(), String> {
    if value.trim().is_empty() { Err(format!("{what} is empty")) } else { Ok(()) }
}

fn item_text(t: &ItemTextInput) -> Result<ItemText, String> {
    nonempty(&t.name, "a name")?;
    Ok(ItemText { name: t.name.clone(), description: t.description.clone() })
}

type CodeName = (String, String, String, String);

fn activity(a: &ActivityInput) -> Result<(Activity, Vec<CodeName>), String> {
    values::code(&a.id, MAX_ID).map_err(|e| format!("id: {e}"))?;
    if a.texts.is_empty() {
        return Err("texts need at least one language".into());
    }
    let texts = texts(&a.texts, |t| {
        nonempty(&t.name, "a name")?;
        Ok(ActivityText {
            name: t.name.clone(),
            short_name: t.short_name.clone(),
            short_description: t.short_description.clone(),
            long_description: t.long_description.clone(),
        })
    })?;
    let loc = &a.location;
    nonempty(&loc.region_code, "location.region_code")?;
    nonempty(&loc.region_name, "location.region_name")?;
    let mut names = Vec::new();
    let mut categories = Vec::new();
    for c in &a.categories {
        nonempty(&c.category, "a category")?;
        for (lang, name) in &c.category_name {
            names.push(("category".to_string(), c.category.clone(), values::language(lang)?, name.clone()));
        }
        if let Some(t) = &c.type_code {
            for (lang, name) in &c.type_name {
                names.push(("type".to_string(), t.clone(), values::language(lang)?, name.clone()));
            }
        } else if !c.type_name.is_empty() {
            return Err(format!("category {:?} has type names but no type", c.category));
        }
        categories.push((c.category.clone(), c.type_code.clone()));
    }
    let mut hotels = Vec::new();
    for h in &a.hotels {
        values::code(&h.code, MAX_ID).map_err(|e| format!("hotel: {e}"))?;
        if hotels.iter().any(|x: &NearbyHotel| x.code == h.code) {
            return Err(format!("hotel {:?} listed twice", h.code));
        }
        if h.pickup_minutes.is_some_and(|m| m > MAX_LEAD_MINUTES) {
            return Err(format!("hotel {:?}: pickup_minutes above {MAX_LEAD_MINUTES}", h.code));
        }
        hotels.push(NearbyHotel {
            code: h.code.clone(),
            name: h.name.clone(),
            meeting_location: h.meeting_location.clone(),
            pickup: h.pickup,
            pickup_minutes: h.pickup_minutes.map(i64::from),
        });
    }
    hotels.sort_by(|a, b| a.code.cmp(&b.code));
    if a.products.is_empty() {
        return Err("no products".into());
    }
    let mut products: Vec<Product> = Vec::new();
    for p in &a.products {
        if products.iter().any(|x| x.code == p.code) {
            return Err(format!("product {:?} listed twice", p.code));
        }
        products.push(product(p).map_err(|e| format!("product {:?}: {e}", p.code))?);
    }
    let cancellation = cancellation::policy_of(a.cancellation.as_deref()).map_err(|e| format!("cancellation: {e}"))?;
    Ok((
        Activity {
            cancellation,
            id: a.id.clone(),
            address: loc.address_lines.iter().filter(|l| !l.trim().is_empty()).cloned().collect(),
            city: loc.city.clone(),
            postal_code: loc.postal_code.clone(),
            country_code: loc.country_code.clone(),
            country_name: loc.country_name.clone(),
            region_code: loc.region_code.clone(),
            region_name: loc.region_name.clone(),
            latitude: loc.latitude,
            longitude: loc.longitude,
            duration: a.duration.clone(),
            time_zone: a.time_zone.unwrap_or(chrono_tz::UTC),
            texts,
            categories,
            hotels,
            products,
        },
        names,
    ))
}

fn weekday(s: &str) -> Result<char, String> {
    match s.to_ascii_lowercase().get(..3) {
        Some("mon") => Ok('1'),
        Some("tue") => Ok('2'),
        Some("wed") => Ok('3'),
        Some("thu") => Ok('4'),
        Some("fri") => Ok('5'),
        Some("sat") => Ok('6'),
        Some("sun") => Ok('7'),
        _ => Err(format!("{s:?} is not a weekday (Mon … Sun)")),
    }
}

fn product(p: &ProductInput) -> Result<Product, String> {
    values::code(&p.code, MAX_ID).map_err(|e| format!("code: {e}"))?;
    let mut schedules = Vec::new();
    for s in &p.schedules {
        if s.end <= s.start {
            return Err(format!("a schedule ends ({}) before it starts ({})", s.end, s.start));
        }
        let weekdays: String = match &s.weekdays {
            None => "1234567".to_string(),
            Some(days) if days.is_empty() => return Err("a schedule has an empty weekday list".into()),
            Some(days) => days.iter().map(|d| weekday(d)).collect::<Result<BTreeSet<char>, _>>()?.into_iter().collect(),
        };
        if let (Some(f), Some(t)) = (s.from, s.to)
            && t < f
        {
            return Err(format!("a schedule ends ({t}) before it starts ({f})"));
        }
        schedules.push(Schedule { weekdays, from: s.from, to: s.to, start: s.start, end: s.end });
    }
    schedules.sort_by_key(|s| s.start);
    if p.services.is_empty() {
        return Err("no services".into());
    }
    let mut services: Vec<Service> = Vec::new();
    for s in &p.services {
        if services.iter().any(|x| x.code == s.code) {
            return Err(format!("service {:?} listed twice", s.code));
        }
        services.push(service(s).map_err(|e| format!("service {:?}: {e}", s.code))?);
    }
    Ok(Product { code: p.code.clone(), texts: texts(&p.texts, item_text)?, schedules, services })
}

fn service(s: &ServiceInput) -> Result<Service, String> {
    values::code(&s.code, MAX_SERVICE_CODE).map_err(|e| format!("code: {e}"))?;
    if s.pickup_minutes > MAX_LEAD_MINUTES || s.return_minutes > MAX_LEAD_MINUTES {
        return Err(format!("pickup/return minutes above {MAX_LEAD_MINUTES}"));
    }
    if s.prices.is_empty() {
        return Err("no prices".into());
    }
    let mut prices = BTreeMap::new();
    for (category, amount) in &s.prices {
        if category.is_empty() || category.len() > 8 || !category.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("participant category {category:?} is not an AQC code such as 10"));
        }
        values::in_currency(amount.0, &s.currency)
            .map_err(|e| format!("price of participant category {category}: {e}"))?;
        prices.insert(category.clone(), amount.0);
    }
    Ok(Service {
        code: s.code.clone(),
        transfer: s.transfer.unwrap_or(s.code == "TRF"),
        currency: s.currency.clone(),
        capacity: i64::from(s.places),
        capacity_on: s.allotment.iter().map(|(d, n)| (d.0, i64::from(*n))).collect(),
        pickup_minutes: i64::from(s.pickup_minutes),
        return_minutes: i64::from(s.return_minutes),
        texts: texts(&s.texts, item_text)?,
        prices,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn the_demo_content_is_valid() {
        let input: ActivitiesInput = serde_json::from_str(DEMO).unwrap();
        let imported = validate(&input).unwrap_or_else(|e| panic!("{e}"));
        assert!(imported.activities.len() >= 4);
    }

    #[test]
    fn an_invalid_entry_is_named() {
        let mut input: ActivitiesInput = serde_json::from_str(DEMO).unwrap();
        input.activities[0].products[0].services[0].prices.insert("adult".into(), Amount(Decimal::ONE));
        let id = input.activities[0].id.clone();
        let e = validate(&input).unwrap_err().to_string();
        assert!(e.contains(&format!("activity {id:?}")) && e.contains("service") && e.contains("adult"), "{e}");
    }

    #[test]
    fn values_are_checked_as_they_are_read() {
        let json = DEMO.replacen("\"EUR\"", "\"eur\"", 1);
        let e = serde_json::from_str::<ActivitiesInput>(&json).unwrap_err().to_string();
        assert!(e.contains("ISO 4217"), "{e}");
    }
}
