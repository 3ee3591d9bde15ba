//! All SQL of the activities: the catalogue (loaded whole into memory, written by imports),
//! the places booked per service and date, and the bookings.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use rust_decimal::Decimal;

use super::catalogue::{Activity, ActivityText, Catalogue, ItemText, NearbyHotel, Product, Schedule, Service, Texts};
use super::import::{CATEGORY_NAMES, ImportedActivities};
use super::rules::{Booking, Participant, Pickup, ServiceKey};
use crate::shared::register::{self, Claim};
use crate::shared::booking::{BookingHead, Kind, ListDate};
use crate::shared::import::ImportError;
use crate::row;
use crate::shared::cancellation::{Cancellation, Penalty};
use crate::shared::policy_repo::{self, CancelRuleRow, PenaltyRow};
use crate::shared::reference;
use crate::store::{Conn, Param, Scalar, StoreError};

// ---------------------------------------------------------------------------------------------
// The catalogue

row! {
    /// An `activity` row.
    struct ActivityRow {
        id: String, address: String, city: Option<String>, postal_code: Option<String>, country_code: Option<String>,
        country_name: Option<String>, region_code: String, region_name: String, latitude: Option<Decimal>,
        longitude: Option<Decimal>, duration: Option<String>,
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

/// Rows grouped by an owner key, in row order.
fn group<K: std::hash::Hash + Eq, R>(rows: Vec<R>, key: impl Fn(&R) -> K) -> HashMap<K, Vec<R>> {
    let mut out: HashMap<K, Vec<R>> = HashMap::new();
    for r in rows {
        out.entry(key(&r)).or_default().push(r);
    }
    out
}

fn item_texts(rows: Option<Vec<ItemTextRow>>) -> Texts<ItemText> {
    rows.unwrap_or_default().into_iter().map(|r| (r.lang, ItemText { name: r.name, description: r.description })).collect()
}

/// The whole catalogue, one query per table.
pub(crate) async fn load_catalogue(c: &mut Conn<'_>) -> Result<Catalogue, StoreError> {
    let activities: Vec<ActivityRow> = c
        .query(
            "SELECT id, address, city, postal_code, country_code, country_name, region_code, region_name, latitude, longitude, duration
             FROM activity ORDER BY id",
            &[],
        )
        .await?;
    let texts: Vec<ActivityTextRow> = c
        .query("SELECT activity_id, lang, name, short_name, short_description, long_description FROM activity_text ORDER BY activity_id, lang", &[])
        .await?;
    let categories: Vec<CategoryRow> =
        c.query("SELECT activity_id, category_code, type_code FROM activity_category ORDER BY activity_id, position", &[]).await?;
    let hotels: Vec<NearbyHotelRow> = c
        .query(
            "SELECT activity_id, hotel_code, hotel_name, meeting_location, pickup, pickup_minutes FROM activity_hotel ORDER BY activity_id, hotel_code",
            &[],
        )
        .await?;
    let products: Vec<ProductRow> = c.query("SELECT id, activity_id, code FROM activity_product ORDER BY activity_id, position, code", &[]).await?;
    let product_texts: Vec<ItemTextRow> =
        c.query("SELECT product_id, lang, name, description FROM activity_product_text ORDER BY product_id, lang", &[]).await?;
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
    let service_texts: Vec<ItemTextRow> =
        c.query("SELECT service_id, lang, name, description FROM activity_service_text ORDER BY service_id, lang", &[]).await?;
    let prices: Vec<PriceRow> = c.query("SELECT service_id, category, amount FROM activity_price ORDER BY service_id, category", &[]).await?;
    let capacities: Vec<CapacityRow> = c.query("SELECT service_id, date, places FROM activity_capacity ORDER BY service_id, date", &[]).await?;
    let code_names: Vec<CodeNameRow> = c.query("SELECT kind, code, lang, name FROM activity_code_text ORDER BY kind, code, lang", &[]).await?;
    let rules = policy_repo::load_rules(c, policy_repo::ACTIVITY_RULES).await?;

    let mut texts = group(texts, |r| r.activity_id.clone());
    let mut categories = group(categories, |r| r.activity_id.clone());
    let mut hotels = group(hotels, |r| r.activity_id.clone());
    let mut products = group(products, |r| r.activity_id.clone());
    let mut product_texts = group(product_texts, |r| r.owner_id);
    let mut schedules = group(schedules, |r| r.product_id);
    let mut services = group(services, |r| r.product_id);
    let mut service_texts = group(service_texts, |r| r.owner_id);
    let mut prices = group(prices, |r| r.service_id);
    let mut capacities = group(capacities, |r| r.service_id);
    let mut rules = group(rules, |r| r.owner.clone());

    let mut out = Vec::with_capacity(activities.len());
    for a in activities {
        let products = products
            .remove(&a.id)
            .unwrap_or_default()
            .into_iter()
            .map(|p| Product {
                texts: item_texts(product_texts.remove(&p.id)),
                schedules: schedules
                    .remove(&p.id)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| Schedule { weekdays: s.weekdays, from: s.valid_from, to: s.valid_to, start: s.start_time, end: s.end_time })
                    .collect(),
                services: services
                    .remove(&p.id)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| Service {
                        texts: item_texts(service_texts.remove(&s.id)),
                        prices: prices.remove(&s.id).unwrap_or_default().into_iter().map(|r| (r.category, r.amount)).collect(),
                        capacity_on: capacities.remove(&s.id).unwrap_or_default().into_iter().map(|r| (r.date, r.places)).collect(),
                        code: s.code,
                        transfer: s.transfer,
                        currency: s.currency,
                        capacity: s.capacity,
                        pickup_minutes: s.pickup_minutes,
                        return_minutes: s.return_minutes,
                    })
                    .collect(),
                code: p.code,
            })
            .collect();
        out.push(Activity {
            texts: texts
                .remove(&a.id)
                .unwrap_or_default()
                .into_iter()
                .map(|t| {
                    (t.lang, ActivityText { name: t.name, short_name: t.short_name, short_description: t.short_description, long_description: t.long_description })
                })
                .collect(),
            categories: categories.remove(&a.id).unwrap_or_default().into_iter().map(|r| (r.category_code, r.type_code)).collect(),
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

/// Writes the activities of an import (each replaces the stored one with its id) and the
/// names of codes. Fails, naming them, when a product or service with future bookings would
/// disappear.
pub(crate) async fn import(c: &mut Conn<'_>, imported: &ImportedActivities, today: NaiveDate, now: DateTime<Utc>) -> Result<(), ImportError> {
    for (code, lang, name) in CATEGORY_NAMES {
        c.execute(
            "INSERT INTO activity_code_text (kind, code, lang, name) VALUES ('category', $1, $2, $3) ON CONFLICT (kind, code, lang) DO NOTHING",
            &[code, lang, name],
        )
        .await?;
    }
    for (kind, code, lang, name) in &imported.code_names {
        c.execute(
            "INSERT INTO activity_code_text (kind, code, lang, name) VALUES ($1, $2, $3, $4)
             ON CONFLICT (kind, code, lang) DO UPDATE SET name = excluded.name",
            &[kind, code, lang, name],
        )
        .await?;
    }
    for a in &imported.activities {
        replace_activity(c, a, now).await?;
        let dropped: Vec<DroppedRow> = c
            .query(
                "SELECT b.product_code, b.service_code, min(b.date) FROM activity_places_booked b
                 WHERE b.activity_id = $1 AND b.date >= $2 AND b.places > 0
                   AND NOT EXISTS (SELECT 1 FROM activity_service s JOIN activity_product p ON p.id = s.product_id
                                   WHERE p.activity_id = b.activity_id AND p.code = b.product_code AND s.code = b.service_code)
                 GROUP BY b.product_code, b.service_code ORDER BY b.product_code, b.service_code",
                &[&a.id, &today],
            )
            .await?;
        if let Some(d) = dropped.first() {
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

row! {
    /// A product and service with future bookings that an import removes.
    struct DroppedRow { product_code: String, service_code: String, first_date: NaiveDate }
}

/// Replaces one activity and everything it holds (its bookings and places booked stay).
async fn replace_activity(c: &mut Conn<'_>, a: &Activity, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute("DELETE FROM activity WHERE id = $1", &[&a.id]).await?;
    c.execute(
        "INSERT INTO activity (id, address, city, postal_code, country_code, country_name, region_code, region_name,
                               latitude, longitude, duration, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
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
                c.execute("INSERT INTO activity_price (service_id, category, amount) VALUES ($1, $2, $3)", &[&service_id, category, amount])
                    .await?;
            }
            for (date, places) in &s.capacity_on {
                c.execute("INSERT INTO activity_capacity (service_id, date, places) VALUES ($1, $2, $3)", &[&service_id, date, places])
                    .await?;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Places

row! {
    /// An `activity_places_booked` row.
    struct BookedRow { activity_id: String, product_code: String, service_code: String, date: NaiveDate, places: i64 }
}

/// Places booked per service and date of some activities, from `from` to `to` (one statement;
/// dates without bookings are absent).
pub(crate) async fn places_booked(c: &mut Conn<'_>, activity_ids: &[String], from: NaiveDate, to: NaiveDate) -> Result<BookedPlaces, StoreError> {
    if activity_ids.is_empty() || to < from {
        return Ok(BookedPlaces::default());
    }
    let list: Vec<String> = (0..activity_ids.len()).map(|i| format!("${}", i + 3)).collect();
    let sql = format!(
        "SELECT activity_id, product_code, service_code, date, places FROM activity_places_booked
         WHERE date BETWEEN $1 AND $2 AND activity_id IN ({})",
        list.join(", ")
    );
    let mut params: Vec<&dyn Param> = vec![&from, &to];
    params.extend(activity_ids.iter().map(|id| id as &dyn Param));
    let rows: Vec<BookedRow> = c.query(&sql, &params).await?;
    let mut out = BookedPlaces::default();
    for r in rows {
        out.0.entry(r.activity_id).or_default().entry(r.product_code).or_default().entry(r.service_code).or_default().insert(r.date, r.places);
    }
    Ok(out)
}

/// Places booked per date, of one service.
type ByDate = BTreeMap<NaiveDate, i64>;

/// Places booked per activity, product, service and date (looked up by `&str`s).
#[derive(Debug, Clone, Default)]
pub(crate) struct BookedPlaces(HashMap<String, HashMap<String, HashMap<String, ByDate>>>);

impl BookedPlaces {
    /// Places booked of a service on a date.
    pub(crate) fn on(&self, activity: &str, product: &str, service: &str, date: NaiveDate) -> i64 {
        self.0.get(activity).and_then(|p| p.get(product)).and_then(|s| s.get(service)).and_then(|d| d.get(&date)).copied().unwrap_or(0)
    }
}

/// Places booked of one service on one date.
pub(crate) async fn places_booked_on(c: &mut Conn<'_>, key: &ServiceKey, date: NaiveDate) -> Result<i64, StoreError> {
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT places FROM activity_places_booked WHERE activity_id = $1 AND product_code = $2 AND service_code = $3 AND date = $4",
            &[&key.activity_id, &key.product_code, &key.service_code, &date],
        )
        .await?;
    Ok(row.map_or(0, |Scalar(n)| n))
}

row! {
    /// The usual capacity of a service and its capacity on one date, if set.
    struct CapacityNowRow { capacity: i64, on_date: Option<i64> }
}

// ---------------------------------------------------------------------------------------------
// Bookings

/// The outcome of a Commit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Committed {
    /// A new booking (with its Internal reference).
    New(Booking),
    /// The booking already made with this Client reference, unchanged.
    Existing(Booking),
}

/// Why a Commit stored nothing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommitError {
    /// Too few places are left.
    #[error("{left} place(s) left")]
    Full {
        /// Places left.
        left: i64,
    },
    /// The service was removed from the catalogue in the meantime.
    #[error("the service is no longer in the catalogue")]
    ServiceGone,
    /// The Client reference names a hotel booking of the requestor.
    #[error("the Client reference names a hotel booking")]
    ReferenceTaken,
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Books: the booking already made with this (requestor, Client reference), or else the
/// places taken (never beyond the capacity) and the booking stored under a new Internal
/// reference. Runs in a write transaction; on an error the caller's transaction is rolled back.
pub(crate) async fn commit(c: &mut Conn<'_>, requestor: &str, b: &Booking, now: DateTime<Utc>) -> Result<Committed, CommitError> {
    let client_ref = b.client_reference.clone().unwrap_or_default();
    c.lock_catalogue(false).await?;
    // The Client reference is claimed first: a concurrent Commit with the same one waits here
    // for this transaction and then finds the booking.
    match register::claim(c, requestor, &client_ref, Kind::Activity).await? {
        Claim::Claimed => {}
        Claim::Taken(Kind::Hotel) => return Err(CommitError::ReferenceTaken),
        Claim::Taken(Kind::Activity) => {
            if let Some(existing) = find(c, requestor, &client_ref).await? {
                return Ok(Committed::Existing(existing));
            }
        }
    }
    let key = b.service_key();
    let capacity: CapacityNowRow = c
        .query_opt(
            "SELECT s.capacity, cap.places FROM activity_service s
             JOIN activity_product p ON p.id = s.product_id
             LEFT JOIN activity_capacity cap ON cap.service_id = s.id AND cap.date = $4
             WHERE p.activity_id = $1 AND p.code = $2 AND s.code = $3",
            &[&key.activity_id, &key.product_code, &key.service_code, &b.service_date],
        )
        .await?
        .ok_or(CommitError::ServiceGone)?;
    let capacity = capacity.on_date.unwrap_or(capacity.capacity);

    let mut stored = None;
    for reference in reference::candidates("ACT") {
        let id: Option<Scalar<i64>> = c
            .query_opt(
                "INSERT INTO activity_booking (reference, client_reference, requestor_id, activity_id, product_code, service_code,
                                               service_date, start_at, end_at, status, total, currency, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'Reserved', $10, $11, $12, $12)
                 ON CONFLICT DO NOTHING RETURNING id",
                &[
                    &reference,
                    &client_ref,
                    &requestor,
                    &key.activity_id,
                    &key.product_code,
                    &key.service_code,
                    &b.service_date,
                    &b.start,
                    &b.end,
                    &b.total,
                    &b.currency,
                    &now,
                ],
            )
            .await?;
        match id {
            Some(Scalar(id)) => {
                stored = Some((id, reference));
                break;
            }
            None => {
                if let Some(existing) = find(c, requestor, &client_ref).await? {
                    return Ok(Committed::Existing(existing));
                }
            }
        }
    }
    let (id, reference) = stored.ok_or_else(reference::exhausted)?;

    let size = b.participants.len() as i64;
    c.execute(
        "INSERT INTO activity_places_booked (activity_id, product_code, service_code, date, places) VALUES ($1, $2, $3, $4, 0)
         ON CONFLICT (activity_id, product_code, service_code, date) DO NOTHING",
        &[&key.activity_id, &key.product_code, &key.service_code, &b.service_date],
    )
    .await?;
    let taken: Option<Scalar<i64>> = c
        .query_opt(
            "UPDATE activity_places_booked SET places = places + $5
             WHERE activity_id = $1 AND product_code = $2 AND service_code = $3 AND date = $4 AND places + $5 <= $6
             RETURNING places",
            &[&key.activity_id, &key.product_code, &key.service_code, &b.service_date, &size, &capacity],
        )
        .await?;
    if taken.is_none() {
        let booked = places_booked_on(c, &key, b.service_date).await?;
        return Err(CommitError::Full { left: (capacity - booked).max(0) });
    }
    for (position, p) in b.participants.iter().enumerate() {
        c.execute(
            "INSERT INTO activity_booking_participant (booking_id, participant_id, position, category, age, name_prefix, given_name, surname, amount)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[&id, &p.participant_id, &(position as i64), &p.category, &p.age, &p.name_prefix, &p.given_name, &p.surname, &p.amount],
        )
        .await?;
    }
    // The policy in force now is fixed into the booking: a later change of the content does
    // not change what was sold.
    let rules: Vec<CancelRuleRow> = c
        .query("SELECT activity_id AS owner, hours_before, percent FROM activity_cancel_rule WHERE activity_id = $1 ORDER BY position", &[&key.activity_id])
        .await?;
    for (position, p) in policy_repo::policy(rules)?.penalties(b.start).iter().enumerate() {
        c.execute(
            "INSERT INTO activity_booking_penalty (booking_id, position, deadline, percent) VALUES ($1, $2, $3, $4)",
            &[&id, &(position as i64), &p.deadline, &p.percent],
        )
        .await?;
    }
    if let Some(pk) = &b.pickup {
        c.execute(
            "INSERT INTO activity_booking_pickup (booking_id, date_time, location_name, pickup_ind) VALUES ($1, $2, $3, $4)",
            &[&id, &pk.date_time, &pk.location_name, &pk.pickup_ind],
        )
        .await?;
    }
    Ok(Committed::New(Booking { reference: Some(reference), ..b.clone() }))
}

row! {
    /// An `activity_booking` row.
    struct BookingRow {
        id: i64, reference: String, client_reference: String, activity_id: String, product_code: String, service_code: String,
        service_date: NaiveDate, start_at: NaiveDateTime, end_at: NaiveDateTime, total: Decimal, currency: String,
    }
}

row! {
    /// An `activity_booking_participant` row.
    struct ParticipantRow {
        participant_id: i64, category: String, age: Option<i64>, name_prefix: Option<String>, given_name: Option<String>,
        surname: Option<String>, amount: Decimal,
    }
}

row! {
    /// An `activity_booking_pickup` row.
    struct PickupRow { date_time: NaiveDateTime, location_name: String, pickup_ind: bool }
}

/// The booking of a requestor with this Client reference.
pub(crate) async fn find(c: &mut Conn<'_>, requestor: &str, client_ref: &str) -> Result<Option<Booking>, StoreError> {
    Ok(find_stored(c, requestor, client_ref, false).await?.map(|s| s.booking))
}

/// A stored activity booking with what cancellation needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stored {
    /// The row id.
    pub id: i64,
    /// The booking.
    pub booking: Booking,
    /// The penalties fixed when it was booked.
    pub penalties: Vec<Penalty>,
    /// When and at what cost it was cancelled.
    pub cancelled: Option<Cancellation>,
    /// When it was booked (UTC).
    pub created: DateTime<Utc>,
    /// When it last changed (UTC).
    pub updated: DateTime<Utc>,
}

row! {
    /// The state columns of an `activity_booking` row.
    struct StateRow { cancelled_at: Option<NaiveDateTime>, cancel_penalty: Option<Decimal>, created_at: DateTime<Utc>, updated_at: DateTime<Utc> }
}

/// The booking of a requestor with this Client reference, or (`internal`) this Internal one.
pub(crate) async fn find_stored(c: &mut Conn<'_>, requestor: &str, reference: &str, internal: bool) -> Result<Option<Stored>, StoreError> {
    let column = if internal { "reference" } else { "client_reference" };
    let row: Option<BookingRow> = c
        .query_opt(
            &format!(
                "SELECT id, reference, client_reference, activity_id, product_code, service_code, service_date, start_at, end_at, total, currency
                 FROM activity_booking WHERE requestor_id = $1 AND {column} = $2"
            ),
            &[&requestor, &reference],
        )
        .await?;
    let Some(row) = row else { return Ok(None) };
    let id = row.id;
    let state: StateRow = c.query_one("SELECT cancelled_at, cancel_penalty, created_at, updated_at FROM activity_booking WHERE id = $1", &[&id]).await?;
    let penalties: Vec<PenaltyRow> =
        c.query("SELECT CAST(0 AS BIGINT) AS item, deadline, percent FROM activity_booking_penalty WHERE booking_id = $1 ORDER BY position", &[&id]).await?;
    let cancelled = match (state.cancelled_at, state.cancel_penalty) {
        (Some(at), penalty) => Some(Cancellation { at, penalty: penalty.unwrap_or_default() }),
        (None, _) => None,
    };
    let Some(booking) = load_booking(c, row).await? else { return Ok(None) };
    Ok(Some(Stored { id, booking, penalties: penalties.iter().map(PenaltyRow::penalty).collect(), cancelled, created: state.created_at, updated: state.updated_at }))
}

row! {
    /// The references, status and dates of an `activity_booking` row.
    pub(crate) struct ActivityHeadRow { reference: String, client_reference: String, status: String, created_at: DateTime<Utc>, updated_at: DateTime<Utc> }
}

impl ActivityHeadRow {
    /// The list line of the booking (its dates in UTC).
    pub(crate) fn head(self) -> BookingHead {
        BookingHead {
            internal_ref: self.reference,
            client_ref: self.client_reference,
            company: None,
            status: self.status,
            created: self.created_at.naive_utc(),
            updated: self.updated_at.naive_utc(),
        }
    }
}

/// The bookings of `owner` whose date of the given kind (the service date as arrival, the
/// end's date as departure, booked, last changed) falls between `start` and `end` (inclusive),
/// optionally with a given status, ordered by that date.
pub(crate) async fn list(c: &mut Conn<'_>, owner: &str, by: ListDate, start: NaiveDate, end: NaiveDate, status: Option<&str>) -> Result<Vec<ActivityHeadRow>, StoreError> {
    const HEAD: &str = "SELECT reference, client_reference, status, created_at, updated_at FROM activity_booking";
    let status = status.map(str::to_string);
    let day_after = end.checked_add_days(chrono::Days::new(1)).unwrap_or(end);
    let instant = |d: NaiveDate| d.and_time(NaiveTime::MIN).and_utc();
    let (from, to) = (instant(start), instant(day_after));
    let (from_local, to_local) = (start.and_time(NaiveTime::MIN), day_after.and_time(NaiveTime::MIN));
    let filter = "requestor_id = $1 AND (CAST($4 AS TEXT) IS NULL OR status = $4)";
    match by {
        ListDate::Arrival => {
            c.query(&format!("{HEAD} WHERE {filter} AND service_date BETWEEN $2 AND $3 ORDER BY service_date, created_at, reference"), &[&owner, &start, &end, &status]).await
        }
        ListDate::Departure => {
            c.query(&format!("{HEAD} WHERE {filter} AND end_at >= $2 AND end_at < $3 ORDER BY end_at, created_at, reference"), &[&owner, &from_local, &to_local, &status]).await
        }
        ListDate::Created => c.query(&format!("{HEAD} WHERE {filter} AND created_at >= $2 AND created_at < $3 ORDER BY created_at, reference"), &[&owner, &from, &to, &status]).await,
        ListDate::Updated => {
            c.query(&format!("{HEAD} WHERE {filter} AND updated_at >= $2 AND updated_at < $3 ORDER BY updated_at, created_at, reference"), &[&owner, &from, &to, &status]).await
        }
    }
}

/// The booking of `owner` with this reference as a Client one (`by_client`), else as an
/// Internal one (`by_internal`): the order a read and a cancel both use.
pub(crate) async fn find_by_reference(c: &mut Conn<'_>, owner: &str, reference: &str, by_client: bool, by_internal: bool) -> Result<Option<Stored>, StoreError> {
    for (on, internal) in [(by_client, false), (by_internal, true)] {
        if on && let Some(s) = find_stored(c, owner, reference, internal).await? {
            return Ok(Some(s));
        }
    }
    Ok(None)
}

/// Cancels a booking and gives its places back, in the caller's write transaction; `false`
/// (and nothing written) when it was cancelled already.
pub(crate) async fn cancel(c: &mut Conn<'_>, s: &Stored, cancellation: Cancellation, now: DateTime<Utc>) -> Result<bool, StoreError> {
    let changed = c
        .execute(
            "UPDATE activity_booking SET status = 'Cancelled', cancelled_at = $2, cancel_penalty = $3, updated_at = $4 WHERE id = $1 AND cancelled_at IS NULL",
            &[&s.id, &cancellation.at, &cancellation.penalty, &now],
        )
        .await?;
    if changed == 0 {
        return Ok(false);
    }
    let b = &s.booking;
    let key = b.service_key();
    c.execute(
        "UPDATE activity_places_booked SET places = CASE WHEN places >= $5 THEN places - $5 ELSE 0 END
         WHERE activity_id = $1 AND product_code = $2 AND service_code = $3 AND date = $4",
        &[&key.activity_id, &key.product_code, &key.service_code, &b.service_date, &(b.participants.len() as i64)],
    )
    .await?;
    Ok(true)
}

/// The rest of a booking after its row: participants and pickup.
async fn load_booking(c: &mut Conn<'_>, row: BookingRow) -> Result<Option<Booking>, StoreError> {
    let participants: Vec<ParticipantRow> = c
        .query(
            "SELECT participant_id, category, age, name_prefix, given_name, surname, amount
             FROM activity_booking_participant WHERE booking_id = $1 ORDER BY position",
            &[&row.id],
        )
        .await?;
    let pickup: Option<PickupRow> =
        c.query_opt("SELECT date_time, location_name, pickup_ind FROM activity_booking_pickup WHERE booking_id = $1", &[&row.id]).await?;
    Ok(Some(Booking {
        reference: Some(row.reference),
        client_reference: Some(row.client_reference),
        activity_id: row.activity_id,
        product_code: row.product_code,
        service_code: row.service_code,
        service_date: row.service_date,
        start: row.start_at,
        end: row.end_at,
        total: row.total,
        currency: row.currency,
        participants: participants
            .into_iter()
            .map(|p| Participant {
                participant_id: p.participant_id,
                category: p.category,
                age: p.age,
                name_prefix: p.name_prefix,
                given_name: p.given_name,
                surname: p.surname,
                amount: p.amount,
            })
            .collect(),
        pickup: pickup.map(|p| Pickup { date_time: p.date_time, location_name: p.location_name, pickup_ind: p.pickup_ind }),
    }))
}
