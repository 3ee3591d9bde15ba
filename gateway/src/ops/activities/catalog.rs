//! Reading the activity catalogue: one activity with its texts, categories, hotels, products,
//! schedules, services and prices; the activities near a hotel or of a product code; the
//! places left of a service; language choice; durations.

use std::collections::BTreeMap;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime};
use rusqlite::{Connection, OptionalExtension, params};
use rust_decimal::Decimal;

use crate::db::DbError;

/// Texts of one language.
pub(crate) type Texts<T> = Vec<(String, T)>;

/// The texts of an activity in one language.
#[derive(Debug, Clone)]
pub(crate) struct ActivityText {
    pub name: String,
    pub short_name: Option<String>,
    pub short_description: Option<String>,
    pub long_description: Option<String>,
}

/// The name and description of a product or service in one language.
#[derive(Debug, Clone)]
pub(crate) struct ItemText {
    pub name: String,
    pub description: Option<String>,
}

/// A stored activity.
#[derive(Debug, Clone)]
pub(crate) struct Activity {
    pub id: String,
    pub address: Vec<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country_code: Option<String>,
    pub country_name: Option<String>,
    pub region_code: String,
    pub region_name: String,
    pub latitude: Option<Decimal>,
    pub longitude: Option<Decimal>,
    pub duration: Option<String>,
    pub texts: Texts<ActivityText>,
    /// (category code, type code)
    pub categories: Vec<(String, Option<String>)>,
    pub hotels: Vec<Hotel>,
    pub products: Vec<Product>,
}

/// A hotel near an activity.
#[derive(Debug, Clone)]
pub(crate) struct Hotel {
    pub code: String,
    pub name: Option<String>,
    pub meeting_location: Option<String>,
    pub pickup: bool,
    pub pickup_minutes: Option<i64>,
}

/// A product of an activity.
#[derive(Debug, Clone)]
pub(crate) struct Product {
    pub code: String,
    pub texts: Texts<ItemText>,
    pub schedules: Vec<Schedule>,
    pub services: Vec<Service>,
}

/// A recurring schedule of a product.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    pub weekdays: String,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    pub start: NaiveTime,
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
pub(crate) struct Session {
    pub start: NaiveDateTime,
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
}

/// A service of a product.
#[derive(Debug, Clone)]
pub(crate) struct Service {
    pub id: i64,
    pub code: String,
    pub transfer: bool,
    pub currency: String,
    pub capacity: i64,
    pub pickup_minutes: i64,
    pub return_minutes: i64,
    pub texts: Texts<ItemText>,
    /// (AQC category, price per participant)
    pub prices: Vec<(String, Decimal)>,
}

impl Service {
    /// The price per participant of a category.
    pub fn price(&self, category: &str) -> Option<Decimal> {
        self.prices.iter().find(|(c, _)| c == category).map(|(_, p)| *p)
    }

    /// What the client experiences of a session: for a transfer, from the pickup (the hotel's
    /// lead, else the service's) to the return; otherwise the session itself.
    pub fn span(&self, session: Session, hotel: Option<&Hotel>) -> Session {
        if !self.transfer {
            return session;
        }
        let lead = hotel.and_then(|h| h.pickup_minutes).unwrap_or(self.pickup_minutes);
        Session { start: session.start - Duration::minutes(lead), end: session.end + Duration::minutes(self.return_minutes) }
    }
}

impl Activity {
    /// The hotel with that code, if the activity is near it.
    pub fn hotel(&self, code: &str) -> Option<&Hotel> {
        self.hotels.iter().find(|h| h.code == code)
    }

    /// The hotels its transfers pick up at.
    pub fn pickup_hotels(&self) -> impl Iterator<Item = &Hotel> {
        self.hotels.iter().filter(|h| h.pickup)
    }
}

fn data(what: &str, value: &str) -> DbError {
    DbError::Data(format!("{what}: {value:?}"))
}

pub(crate) fn decimal(what: &str, value: &str) -> Result<Decimal, DbError> {
    Decimal::from_str_exact(value).map_err(|_| data(what, value))
}

fn date(what: &str, value: &str) -> Result<NaiveDate, DbError> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| data(what, value))
}

fn time(what: &str, value: &str) -> Result<NaiveTime, DbError> {
    NaiveTime::parse_from_str(value, "%H:%M").map_err(|_| data(what, value))
}

fn item_texts(conn: &Connection, table: &str, key: &str, id: i64) -> Result<Texts<ItemText>, DbError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT lang, name, description FROM {table} WHERE {key} = ?1 ORDER BY lang"))?;
    let rows = stmt.query_map([id], |r| Ok((r.get(0)?, ItemText { name: r.get(1)?, description: r.get(2)? })))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Loads one activity, or `None` if there is no such activity.
pub(crate) fn load_activity(conn: &Connection, id: &str) -> Result<Option<Activity>, DbError> {
    type Row = (String, Option<String>, Option<String>, Option<String>, Option<String>, String, String, Option<String>, Option<String>, Option<String>);
    let row: Option<Row> = conn
        .query_row(
            "SELECT address, city, postal_code, country_code, country_name, region_code, region_name, latitude, longitude, duration
             FROM activity WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?)),
        )
        .optional()?;
    let Some((address, city, postal_code, country_code, country_name, region_code, region_name, lat, lon, duration)) = row else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT lang, name, short_name, short_description, long_description FROM activity_text WHERE activity_id = ?1 ORDER BY lang",
    )?;
    let texts = stmt
        .query_map([id], |r| {
            Ok((r.get(0)?, ActivityText { name: r.get(1)?, short_name: r.get(2)?, short_description: r.get(3)?, long_description: r.get(4)? }))
        })?
        .collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare_cached("SELECT category_code, type_code FROM activity_category WHERE activity_id = ?1 ORDER BY position")?;
    let categories = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT hotel_code, hotel_name, meeting_location, pickup, pickup_minutes FROM activity_hotel WHERE activity_id = ?1 ORDER BY hotel_code",
    )?;
    let hotels = stmt
        .query_map([id], |r| {
            Ok(Hotel { code: r.get(0)?, name: r.get(1)?, meeting_location: r.get(2)?, pickup: r.get(3)?, pickup_minutes: r.get(4)? })
        })?
        .collect::<Result<_, _>>()?;

    let mut products = Vec::new();
    let mut stmt = conn.prepare_cached("SELECT id, code FROM activity_product WHERE activity_id = ?1 ORDER BY position, code")?;
    let rows: Vec<(i64, String)> = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    for (product_id, code) in rows {
        let texts = item_texts(conn, "activity_product_text", "product_id", product_id)?;
        let mut stmt = conn.prepare_cached(
            "SELECT weekdays, valid_from, valid_to, start_time, end_time FROM activity_schedule WHERE product_id = ?1 ORDER BY start_time, id",
        )?;
        type ScheduleRow = (String, Option<String>, Option<String>, String, String);
        let raw: Vec<ScheduleRow> =
            stmt.query_map([product_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?.collect::<Result<_, _>>()?;
        let schedules = raw
            .into_iter()
            .map(|(weekdays, from, to, start, end)| {
                Ok(Schedule {
                    weekdays,
                    from: from.as_deref().map(|d| date("schedule valid_from", d)).transpose()?,
                    to: to.as_deref().map(|d| date("schedule valid_to", d)).transpose()?,
                    start: time("schedule start_time", &start)?,
                    end: time("schedule end_time", &end)?,
                })
            })
            .collect::<Result<_, DbError>>()?;
        let mut stmt = conn.prepare_cached(
            "SELECT id, code, transfer, currency, capacity, pickup_minutes, return_minutes
             FROM activity_service WHERE product_id = ?1 ORDER BY position, code",
        )?;
        let raw: Vec<(i64, String, bool, String, i64, i64, i64)> = stmt
            .query_map([product_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))?
            .collect::<Result<_, _>>()?;
        let mut services = Vec::new();
        for (service_id, code, transfer, currency, capacity, pickup_minutes, return_minutes) in raw {
            let mut stmt = conn.prepare_cached("SELECT category, amount FROM activity_price WHERE service_id = ?1 ORDER BY category")?;
            let prices: Vec<(String, String)> = stmt.query_map([service_id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
            let prices = prices.into_iter().map(|(c, a)| Ok((c, decimal("price", &a)?))).collect::<Result<_, DbError>>()?;
            services.push(Service {
                id: service_id,
                code,
                transfer,
                currency,
                capacity,
                pickup_minutes,
                return_minutes,
                texts: item_texts(conn, "activity_service_text", "service_id", service_id)?,
                prices,
            });
        }
        products.push(Product { code, texts, schedules, services });
    }

    Ok(Some(Activity {
        id: id.to_string(),
        address: address.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
        city,
        postal_code,
        country_code,
        country_name,
        region_code,
        region_name,
        latitude: lat.as_deref().map(|v| decimal("latitude", v)).transpose()?,
        longitude: lon.as_deref().map(|v| decimal("longitude", v)).transpose()?,
        duration,
        texts,
        categories,
        hotels,
        products,
    }))
}

/// The ids of the activities near a hotel.
pub(crate) fn activities_near(conn: &Connection, hotel_code: &str) -> Result<Vec<String>, DbError> {
    let mut stmt = conn.prepare_cached("SELECT activity_id FROM activity_hotel WHERE hotel_code = ?1 ORDER BY activity_id")?;
    let ids = stmt.query_map([hotel_code], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(ids)
}

/// The activity a "product" code names: a `TourActivityID`, or else a `SupplierProductCode`.
pub(crate) fn activity_of_product(conn: &Connection, code: &str) -> Result<Option<String>, DbError> {
    let direct: Option<String> = conn.query_row("SELECT id FROM activity WHERE id = ?1", [code], |r| r.get(0)).optional()?;
    if direct.is_some() {
        return Ok(direct);
    }
    Ok(conn
        .query_row("SELECT activity_id FROM activity_product WHERE code = ?1 ORDER BY activity_id LIMIT 1", [code], |r| r.get(0))
        .optional()?)
}

/// Places left of a service on each date of `from..=to` that has an allotment row; other dates
/// have the service's full capacity.
pub(crate) fn allotment(conn: &Connection, service_id: i64, from: NaiveDate, to: NaiveDate) -> Result<BTreeMap<NaiveDate, i64>, DbError> {
    let mut stmt = conn.prepare_cached("SELECT date, places_left FROM activity_allotment WHERE service_id = ?1 AND date BETWEEN ?2 AND ?3")?;
    let rows: Vec<(String, i64)> =
        stmt.query_map(params![service_id, from.to_string(), to.to_string()], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    rows.into_iter().map(|(d, n)| Ok((date("allotment date", &d)?, n))).collect()
}

/// Places left of a service on one date.
pub(crate) fn places_left(conn: &Connection, service: &Service, on: NaiveDate) -> Result<i64, DbError> {
    Ok(allotment(conn, service.id, on, on)?.get(&on).copied().unwrap_or(service.capacity))
}

/// The names of category or type codes: code → [(lang, name)].
pub(crate) fn code_names(conn: &Connection, kind: &str) -> Result<BTreeMap<String, Texts<String>>, DbError> {
    let mut stmt = conn.prepare_cached("SELECT code, lang, name FROM activity_code_text WHERE kind = ?1 ORDER BY code, lang")?;
    let rows: Vec<(String, String, String)> = stmt.query_map([kind], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
    let mut out: BTreeMap<String, Texts<String>> = BTreeMap::new();
    for (code, lang, name) in rows {
        out.entry(code).or_default().push((lang, name));
    }
    Ok(out)
}

/// The languages to try, in order: the requested ones, then English.
#[derive(Debug, Clone)]
pub(crate) struct LangPrefs {
    /// Every candidate, in order of preference.
    pub order: Vec<String>,
    /// The forms of the primary language (`de-at`, `de`), empty when none was asked for.
    requested: Vec<String>,
}

fn lang_forms(l: &str) -> Vec<String> {
    let l = l.trim().to_ascii_lowercase();
    if l.is_empty() || l == "*" {
        return Vec::new();
    }
    let base = l.split(['-', '_']).next().unwrap_or(&l).to_string();
    if base == l { vec![l] } else { vec![l, base] }
}

impl LangPrefs {
    /// From the request's `PrimaryLangID` (`*` adds nothing) and `AltLangID`.
    pub fn new(primary: Option<&str>, alt: Option<&str>) -> Self {
        let mut order: Vec<String> = Vec::new();
        for l in [primary, alt, Some("en")].into_iter().flatten() {
            for candidate in lang_forms(l) {
                if !order.contains(&candidate) {
                    order.push(candidate);
                }
            }
        }
        LangPrefs { order, requested: primary.map(lang_forms).unwrap_or_default() }
    }

    /// The primary language asked for, if any (lower case).
    pub fn primary(&self) -> Option<&str> {
        self.requested.first().map(String::as_str)
    }

    /// Whether texts in `lang` answer the primary language asked for (always true when none
    /// was asked for).
    pub fn is_requested(&self, lang: &str) -> bool {
        self.requested.is_empty() || self.requested.iter().any(|l| l == lang)
    }

    /// The text in the most preferred language available, else any; with its language.
    pub fn pick<'a, T>(&self, texts: &'a [(String, T)]) -> Option<(&'a str, &'a T)> {
        self.order
            .iter()
            .find_map(|l| texts.iter().find(|(lang, _)| lang == l))
            .or_else(|| texts.first())
            .map(|(l, t)| (l.as_str(), t))
    }
}

/// An ISO 8601 duration of whole minutes, e.g. `PT1H15M`, `PT8H`, `PT0M`.
pub(crate) fn iso_duration(d: Duration) -> String {
    let minutes = d.num_minutes().max(0);
    let (h, m) = (minutes / 60, minutes % 60);
    match (h, m) {
        (0, m) => format!("PT{m}M"),
        (h, 0) => format!("PT{h}H"),
        (h, m) => format!("PT{h}H{m}M"),
    }
}

/// The number of days of `start..=end`.
pub(crate) fn days_inclusive(start: NaiveDate, end: NaiveDate) -> i64 {
    (end - start).num_days() + 1
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(iso_duration(Duration::minutes(75)), "PT1H15M");
        assert_eq!(iso_duration(Duration::minutes(480)), "PT8H");
        assert_eq!(iso_duration(Duration::minutes(45)), "PT45M");
    }

    #[test]
    fn language_preferences() {
        let prefs = LangPrefs::new(Some("de-AT"), Some("es"));
        assert_eq!(prefs.order, ["de-at", "de", "es", "en"]);
        assert!(prefs.is_requested("de") && !prefs.is_requested("es"));
        assert!(LangPrefs::new(None, Some("es")).is_requested("en"));
        let texts = vec![("en".to_string(), 1), ("es".to_string(), 2)];
        assert_eq!(prefs.pick(&texts), Some(("es", &2)));
        assert_eq!(LangPrefs::new(Some("*"), None).pick(&texts), Some(("en", &1)));
        assert_eq!(LangPrefs::new(Some("fr"), None).pick(&[("it".to_string(), 3)]), Some(("it", &3)));
    }
}
