//! The places booked per activity, product, service and date: read by availability and
//! the Quote, moved by every booking and cancel in the same transaction.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;

use crate::activities::booking::ServiceKey;
use crate::store::row;
use crate::store::{Conn, Param, Scalar, StoreError};

row! {
    /// An `activity_places_booked` row.
    struct BookedRow { activity_id: String, product_code: String, service_code: String, date: NaiveDate, places: i64 }
}

/// Places booked per service and date of some activities, from `from` to `to` (one statement;
/// dates without bookings are absent).
pub(crate) async fn places_booked(
    c: &mut Conn<'_>,
    activity_ids: &[String],
    from: NaiveDate,
    to: NaiveDate,
) -> Result<BookedPlaces, StoreError> {
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
        out.0
            .entry(r.activity_id)
            .or_default()
            .entry(r.product_code)
            .or_default()
            .entry(r.service_code)
            .or_default()
            .insert(r.date, r.places);
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
        self.0
            .get(activity)
            .and_then(|p| p.get(product))
            .and_then(|s| s.get(service))
            .and_then(|d| d.get(&date))
            .copied()
            .unwrap_or(0)
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
    /// A service's capacity, and its capacity on one date when the content sets one.
    struct CapacityRow { capacity: i64, on_date: Option<i64> }
}

/// The places a service offers on a date; `None` when the service is not in the catalogue
/// (removed since the request was read).
pub(crate) async fn capacity_on(
    c: &mut Conn<'_>,
    key: &ServiceKey,
    date: NaiveDate,
) -> Result<Option<i64>, StoreError> {
    let row: Option<CapacityRow> = c
        .query_opt(
            "SELECT s.capacity, cap.places FROM activity_service s
             JOIN activity_product p ON p.id = s.product_id
             LEFT JOIN activity_capacity cap ON cap.service_id = s.id AND cap.date = $4
             WHERE p.activity_id = $1 AND p.code = $2 AND s.code = $3",
            &[&key.activity_id, &key.product_code, &key.service_code, &date],
        )
        .await?;
    Ok(row.map(|r| r.on_date.unwrap_or(r.capacity)))
}

/// Takes `places` of a service on a date unless that would book more than `capacity`: whether
/// they were taken. Concurrent takes never pass the capacity together.
pub(crate) async fn take(
    c: &mut Conn<'_>,
    key: &ServiceKey,
    date: NaiveDate,
    places: i64,
    capacity: i64,
) -> Result<bool, StoreError> {
    c.execute(
        "INSERT INTO activity_places_booked (activity_id, product_code, service_code, date, places) VALUES ($1, $2, $3, $4, 0)
         ON CONFLICT (activity_id, product_code, service_code, date) DO NOTHING",
        &[&key.activity_id, &key.product_code, &key.service_code, &date],
    )
    .await?;
    let taken: Option<Scalar<i64>> = c
        .query_opt(
            "UPDATE activity_places_booked SET places = places + $5
             WHERE activity_id = $1 AND product_code = $2 AND service_code = $3 AND date = $4 AND places + $5 <= $6
             RETURNING places",
            &[&key.activity_id, &key.product_code, &key.service_code, &date, &places, &capacity],
        )
        .await?;
    Ok(taken.is_some())
}
