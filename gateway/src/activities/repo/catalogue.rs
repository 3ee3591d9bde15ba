//! The catalogue's SQL: loaded whole into memory, written by imports (an activity replaced
//! whole; its bookings and places booked stay).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use rust_decimal::Decimal;

use crate::activities::catalogue::{
    Activity, ActivityText, Catalogue, ItemText, NearbyHotel, Product, Schedule, Service, Texts,
};
use crate::shared::policy_repo::{self};
use crate::store::group;
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

row! {
    /// An `activity` row.
    struct ActivityRow {
        id: String, address: String, city: Option<String>, postal_code: Option<String>, country_code: Option<String>,
        country_name: Option<String>, region_code: String, region_name: String, latitude: Option<Decimal>,
        longitude: Option<Decimal>, duration: Option<String>, time_zone: String,
    }
}

row! {
    /// An `activity_text` row.
    struct ActivityTextRow {
        activity_id: String, lang: String, name: String, short_name: Option<String>, short_description: Option<String>,
        long_description: Option<String>,
    }
}

row! {
    /// An `activity_category` row.
    struct CategoryRow { activity_id: String, category_code: String, type_code: Option<String> }
}

row! {
    /// An `activity_hotel` row.
    struct NearbyHotelRow {
        activity_id: String, hotel_code: String, hotel_name: Option<String>, meeting_location: Option<String>, pickup: bool,
        pickup_minutes: Option<i64>,
    }
}

row! {
    /// An `activity_product` row.
    struct ProductRow { id: i64, activity_id: String, code: String }
}

row! {
    /// An `activity_product_text` or `activity_service_text` row.
    struct ItemTextRow { owner_id: i64, lang: String, name: String, description: Option<String> }
}

row! {
    /// An `activity_schedule` row.
    struct ScheduleRow {
        product_id: i64, weekdays: String, valid_from: Option<NaiveDate>, valid_to: Option<NaiveDate>, start_time: NaiveTime,
        end_time: NaiveTime,
    }
}

row! {
    /// An `activity_service` row.
    struct ServiceRow {
        id: i64, product_id: i64, code: String, transfer: bool, currency: String, capacity: i64, pickup_minutes: i64,
        return_minutes: i64,
    }
}

row! {
    /// An `activity_price` row.
    struct PriceRow { service_id: i64, category: String, amount: Decimal }
}

row! {
    /// An `activity_capacity` row.
    struct CapacityRow { service_id: i64, date: NaiveDate, places: i64 }
}

row! {
    /// An `activity_code_text` row.
    struct CodeNameRow { kind: String, code: String, lang: String, name: String }
}

fn item_texts(rows: Option<Vec<ItemTextRow>>) -> Texts<ItemText> {
    rows.unwrap_or_default()
        .into_iter()
        .map(|r| (r.lang, ItemText { name: r.name, description: r.description }))
        .collect()
}

/// The whole catalogue, one query per table.
pub(crate) async fn load_catalogue(c: &mut Conn<'_>) -> Result<Catalogue, StoreError> {
    let activities: Vec<ActivityRow> = c
        .query(
            "SELECT id, address, city, postal_code, country_code, country_name, region_code, region_name, latitude, longitude, duration, time_zone
             FROM activity ORDER BY id",
            &[],
        )
        .await?;
    let texts: Vec<ActivityTextRow> = c
        .query("SELECT activity_id, lang, name, short_name, short_description, long_description FROM activity_text ORDER BY activity_id, lang", &[])
        .await?;
    let categories: Vec<CategoryRow> = c
        .query(
            "SELECT activity_id, category_code, type_code FROM activity_category ORDER BY activity_id, position",
            &[],
        )
        .await?;
    let hotels: Vec<NearbyHotelRow> = c
        .query(
            "SELECT activity_id, hotel_code, hotel_name, meeting_location, pickup, pickup_minutes FROM activity_hotel ORDER BY activity_id, hotel_code",
            &[],
        )
        .await?;
    let code_names: Vec<CodeNameRow> =
        c.query("SELECT kind, code, lang, name FROM activity_code_text ORDER BY kind, code, lang", &[]).await?;
    let rules = policy_repo::load_rules(c, policy_repo::ACTIVITY_RULES).await?;

    let mut texts = group(texts, |r| r.activity_id.clone());
    let mut categories = group(categories, |r| r.activity_id.clone());
    let mut hotels = group(hotels, |r| r.activity_id.clone());
    let mut products = load_products(c).await?;
    let mut rules = group(rules, |r| r.owner.clone());

    let mut out = Vec::with_capacity(activities.len());
    for a in activities {
        let products = products.remove(&a.id).unwrap_or_default();
        let time_zone = a
            .time_zone
            .parse()
            .map_err(|_| StoreError::Data(format!("activity {}: time zone {:?}", a.id, a.time_zone)))?;
        out.push(Activity {
            texts: texts
                .remove(&a.id)
                .unwrap_or_default()
                .into_iter()
                .map(|t| {
                    (
                        t.lang,
                        ActivityText {
                            name: t.name,
                            short_name: t.short_name,
                            short_description: t.short_description,
                            long_description: t.long_description,
                        },
                    )
                })
                .collect(),
            categories: categories
                .remove(&a.id)
                .unwrap_or_default()
                .into_iter()
                .map(|r| (r.category_code, r.type_code))
                .collect(),
            hotels: hotels
                .remove(&a.id)
                .unwrap_or_default()
                .into_iter()
                .map(|h| NearbyHotel {
                    code: h.hotel_code,
                    name: h.hotel_name,
                    meeting_location: h.meeting_location,
                    pickup: h.pickup,
                    pickup_minutes: h.pickup_minutes,
                })
                .collect(),
            products,
            cancellation: policy_repo::policy(rules.remove(&a.id).unwrap_or_default())?,
            address: a.address.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
            id: a.id,
            city: a.city,
            postal_code: a.postal_code,
            country_code: a.country_code,
            country_name: a.country_name,
            region_code: a.region_code,
            region_name: a.region_name,
            latitude: a.latitude,
            longitude: a.longitude,
            duration: a.duration,
            time_zone,
        });
    }
    let mut category_names: BTreeMap<String, Texts<String>> = BTreeMap::new();
    let mut type_names: BTreeMap<String, Texts<String>> = BTreeMap::new();
    for r in code_names {
        let names = if r.kind == "type" { &mut type_names } else { &mut category_names };
        names.entry(r.code).or_default().insert(r.lang, r.name);
    }
    Ok(Catalogue::new(out, category_names, type_names))
}

/// Every activity's products (with their texts, schedules and services), by activity id.
async fn load_products(c: &mut Conn<'_>) -> Result<HashMap<String, Vec<Product>>, StoreError> {
    let products: Vec<ProductRow> =
        c.query("SELECT id, activity_id, code FROM activity_product ORDER BY activity_id, position, code", &[]).await?;
    let product_texts: Vec<ItemTextRow> = c
        .query("SELECT product_id, lang, name, description FROM activity_product_text ORDER BY product_id, lang", &[])
        .await?;
    let schedules: Vec<ScheduleRow> = c
        .query(
            "SELECT product_id, weekdays, valid_from, valid_to, start_time, end_time FROM activity_schedule ORDER BY product_id, start_time, id",
            &[],
        )
        .await?;
    let services: Vec<ServiceRow> = c
        .query(
            "SELECT id, product_id, code, transfer, currency, capacity, pickup_minutes, return_minutes
             FROM activity_service ORDER BY product_id, position, code",
            &[],
        )
        .await?;
    let service_texts: Vec<ItemTextRow> = c
        .query("SELECT service_id, lang, name, description FROM activity_service_text ORDER BY service_id, lang", &[])
        .await?;
    let prices: Vec<PriceRow> =
        c.query("SELECT service_id, category, amount FROM activity_price ORDER BY service_id, category", &[]).await?;
    let capacities: Vec<CapacityRow> =
        c.query("SELECT service_id, date, places FROM activity_capacity ORDER BY service_id, date", &[]).await?;

    let mut product_texts = group(product_texts, |r| r.owner_id);
    let mut schedules = group(schedules, |r| r.product_id);
    let mut services = group(services, |r| r.product_id);
    let mut service_texts = group(service_texts, |r| r.owner_id);
    let mut prices = group(prices, |r| r.service_id);
    let mut capacities = group(capacities, |r| r.service_id);
    let mut out: HashMap<String, Vec<Product>> = HashMap::new();
    for p in products {
        out.entry(p.activity_id.clone()).or_default().push(Product {
            texts: item_texts(product_texts.remove(&p.id)),
            schedules: schedules
                .remove(&p.id)
                .unwrap_or_default()
                .into_iter()
                .map(|s| Schedule {
                    weekdays: s.weekdays,
                    from: s.valid_from,
                    to: s.valid_to,
                    start: s.start_time,
                    end: s.end_time,
                })
                .collect(),
            services: services
                .remove(&p.id)
                .unwrap_or_default()
                .into_iter()
                .map(|s| service(s, &mut service_texts, &mut prices, &mut capacities))
                .collect(),
            code: p.code,
        });
    }
    Ok(out)
}

/// A service from its row, with its texts, prices and capacities by date (taken from the maps).
fn service(
    s: ServiceRow,
    texts: &mut HashMap<i64, Vec<ItemTextRow>>,
    prices: &mut HashMap<i64, Vec<PriceRow>>,
    capacities: &mut HashMap<i64, Vec<CapacityRow>>,
) -> Service {
    Service {
        texts: item_texts(texts.remove(&s.id)),
        prices: prices.remove(&s.id).unwrap_or_default().into_iter().map(|r| (r.category, r.amount)).collect(),
        capacity_on: capacities.remove(&s.id).unwrap_or_default().into_iter().map(|r| (r.date, r.places)).collect(),
        code: s.code,
        transfer: s.transfer,
        currency: s.currency,
        capacity: s.capacity,
        pickup_minutes: s.pickup_minutes,
        return_minutes: s.return_minutes,
    }
}

/// Adds the name of a code in a language, or renames it; `keep` leaves a stored name as it is.
pub(crate) async fn upsert_code_name(
    c: &mut Conn<'_>,
    (kind, code, lang, name): (&str, &str, &str, &str),
    keep: bool,
) -> Result<(), StoreError> {
    let on_conflict = if keep { "DO NOTHING" } else { "DO UPDATE SET name = excluded.name" };
    c.execute(
        &format!(
            "INSERT INTO activity_code_text (kind, code, lang, name) VALUES ($1, $2, $3, $4) ON CONFLICT (kind, code, lang) {on_conflict}"
        ),
        &[&kind, &code, &lang, &name],
    )
    .await?;
    Ok(())
}

/// The first product and service of an activity, in code order, that has places booked from
/// `today` on but is no longer stored (an import removed it).
pub(crate) async fn dropped_with_bookings(
    c: &mut Conn<'_>,
    activity_id: &str,
    today: NaiveDate,
) -> Result<Option<DroppedRow>, StoreError> {
    let dropped: Vec<DroppedRow> = c
        .query(
            "SELECT b.product_code, b.service_code, min(b.date) FROM activity_places_booked b
             WHERE b.activity_id = $1 AND b.date >= $2 AND b.places > 0
               AND NOT EXISTS (SELECT 1 FROM activity_service s JOIN activity_product p ON p.id = s.product_id
                               WHERE p.activity_id = b.activity_id AND p.code = b.product_code AND s.code = b.service_code)
             GROUP BY b.product_code, b.service_code ORDER BY b.product_code, b.service_code",
            &[&activity_id, &today],
        )
        .await?;
    Ok(dropped.into_iter().next())
}

row! {
    /// A product and service with future bookings that an import removes.
    pub(crate) struct DroppedRow { product_code: String, service_code: String, first_date: NaiveDate }
}

/// Replaces one activity and everything it holds (its bookings and places booked stay).
pub(crate) async fn replace_activity(c: &mut Conn<'_>, a: &Activity, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute("DELETE FROM activity WHERE id = $1", &[&a.id]).await?;
    c.execute(
        "INSERT INTO activity (id, address, city, postal_code, country_code, country_name, region_code, region_name,
                               latitude, longitude, duration, time_zone, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        &[
            &a.id,
            &a.address.join("\n"),
            &a.city,
            &a.postal_code,
            &a.country_code,
            &a.country_name,
            &a.region_code,
            &a.region_name,
            &a.latitude,
            &a.longitude,
            &a.duration,
            &a.time_zone.name(),
            &now,
        ],
    )
    .await?;
    policy_repo::save_policy(c, policy_repo::ACTIVITY_RULES, &a.id, &a.cancellation).await?;
    for (lang, t) in &a.texts {
        c.execute(
            "INSERT INTO activity_text (activity_id, lang, name, short_name, short_description, long_description) VALUES ($1, $2, $3, $4, $5, $6)",
            &[&a.id, lang, &t.name, &t.short_name, &t.short_description, &t.long_description],
        )
        .await?;
    }
    for (position, (category, type_code)) in a.categories.iter().enumerate() {
        c.execute(
            "INSERT INTO activity_category (activity_id, position, category_code, type_code) VALUES ($1, $2, $3, $4)",
            &[&a.id, &(position as i64), category, type_code],
        )
        .await?;
    }
    for h in &a.hotels {
        c.execute(
            "INSERT INTO activity_hotel (activity_id, hotel_code, hotel_name, meeting_location, pickup, pickup_minutes) VALUES ($1, $2, $3, $4, $5, $6)",
            &[&a.id, &h.code, &h.name, &h.meeting_location, &h.pickup, &h.pickup_minutes],
        )
        .await?;
    }
    for (position, p) in a.products.iter().enumerate() {
        let Scalar(product_id): Scalar<i64> = c
            .query_one(
                "INSERT INTO activity_product (activity_id, code, position) VALUES ($1, $2, $3) RETURNING id",
                &[&a.id, &p.code, &(position as i64)],
            )
            .await?;
        for (lang, t) in &p.texts {
            c.execute(
                "INSERT INTO activity_product_text (product_id, lang, name, description) VALUES ($1, $2, $3, $4)",
                &[&product_id, lang, &t.name, &t.description],
            )
            .await?;
        }
        for s in &p.schedules {
            c.execute(
                "INSERT INTO activity_schedule (product_id, weekdays, valid_from, valid_to, start_time, end_time) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&product_id, &s.weekdays, &s.from, &s.to, &s.start, &s.end],
            )
            .await?;
        }
        for (position, s) in p.services.iter().enumerate() {
            let Scalar(service_id): Scalar<i64> = c
                .query_one(
                    "INSERT INTO activity_service (product_id, code, transfer, currency, capacity, pickup_minutes, return_minutes, position)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                    &[&product_id, &s.code, &s.transfer, &s.currency, &s.capacity, &s.pickup_minutes, &s.return_minutes, &(position as i64)],
                )
                .await?;
            for (lang, t) in &s.texts {
                c.execute(
                    "INSERT INTO activity_service_text (service_id, lang, name, description) VALUES ($1, $2, $3, $4)",
                    &[&service_id, lang, &t.name, &t.description],
                )
                .await?;
            }
            for (category, amount) in &s.prices {
                c.execute(
                    "INSERT INTO activity_price (service_id, category, amount) VALUES ($1, $2, $3)",
                    &[&service_id, category, amount],
                )
                .await?;
            }
            for (date, places) in &s.capacity_on {
                c.execute(
                    "INSERT INTO activity_capacity (service_id, date, places) VALUES ($1, $2, $3)",
                    &[&service_id, date, places],
                )
                .await?;
            }
        }
    }
    Ok(())
}
