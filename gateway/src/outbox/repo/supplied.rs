//! A supplier's reads of its bookings, by reference and by dates.

use chrono::{Days, NaiveDate, NaiveTime};

use crate::shared::booking::ListDate;
use crate::store::row;
use crate::store::{Conn, StoreError};

row! {
    /// A booking of a supplier as its reads give it: one per booking and hotel of the supplier
    /// (an activity booking: its pickup hotel).
    pub struct Supplied {
        /// `hotel` or `activity`.
        booking_kind: String,
        /// Its Internal reference.
        booking_ref: String,
        /// The supplier's hotel.
        hotel_code: String,
    }
}

/// The bookings at a hotel `supplier` owns (one per booking and hotel; an activity booking by
/// its pickup hotel) whose Client reference (`by_client`) or Internal reference
/// (`by_internal`) is `reference`, whatever their events' acknowledgement: hotel bookings
/// first, at most `limit`.
pub async fn supplied_by_reference(
    c: &mut Conn<'_>,
    supplier: &str,
    reference: &str,
    by_client: bool,
    by_internal: bool,
    limit: i64,
) -> Result<Vec<Supplied>, StoreError> {
    let mut out: Vec<Supplied> = c
        .query(
            "SELECT DISTINCT CAST('hotel' AS TEXT), b.internal_ref, r.hotel_code FROM hotel_booking b
             JOIN hotel_booking_room r ON r.booking_id = b.id
             JOIN supplier_hotel s ON s.hotel_code = r.hotel_code AND s.requestor_id = $1
             WHERE ($3 = true AND b.client_ref = $2) OR ($4 = true AND b.internal_ref = $2)
             ORDER BY b.internal_ref, r.hotel_code LIMIT $5",
            &[&supplier, &reference, &by_client, &by_internal, &limit],
        )
        .await?;
    let left = limit - out.len() as i64;
    if left > 0 {
        out.extend(
            c.query::<Supplied>(
                "SELECT CAST('activity' AS TEXT), a.reference, p.location_name FROM activity_booking a
                 JOIN activity_booking_pickup p ON p.booking_id = a.id
                 JOIN supplier_hotel s ON s.hotel_code = p.location_name AND s.requestor_id = $1
                 WHERE ($3 = true AND a.client_reference = $2) OR ($4 = true AND a.reference = $2)
                 ORDER BY a.reference LIMIT $5",
                &[&supplier, &reference, &by_client, &by_internal, &left],
            )
            .await?,
        );
    }
    Ok(out)
}

/// The bookings at a hotel `supplier` owns (one per booking and hotel; an activity booking by
/// its pickup hotel), of `hotel` only when given, of `status` only when given, whose date `by`
/// falls between `start` and `end` (both included), whatever their events' acknowledgement:
/// the hotel bookings by that date, then the activity bookings by it, at most `limit` of
/// each. The dates: a hotel booking's arrival at (departure from) the hotel is its first
/// (last) night's there; an activity's is its service date (its end); creation and last change
/// are the booking's.
#[allow(clippy::too_many_arguments)]
pub async fn supplied_by_dates(
    c: &mut Conn<'_>,
    supplier: &str,
    by: ListDate,
    start: NaiveDate,
    end: NaiveDate,
    hotel: Option<&str>,
    status: Option<&str>,
    limit: i64,
) -> Result<(Vec<Supplied>, Vec<Supplied>), StoreError> {
    let (hotel, status) = (hotel.map(str::to_string), status.map(str::to_string));
    let day_after = end.checked_add_days(Days::new(1)).unwrap_or(end);
    let (from_local, to_local) = (start.and_time(NaiveTime::MIN), day_after.and_time(NaiveTime::MIN));
    let (from_utc, to_utc) = (from_local.and_utc(), to_local.and_utc());
    const HOTELS: &str = "SELECT b.internal_ref, r.hotel_code, min(r.start_date) AS first_night, max(r.end_date) AS last_day, b.created_at, b.updated_at
         FROM hotel_booking b
         JOIN hotel_booking_room r ON r.booking_id = b.id
         JOIN supplier_hotel s ON s.hotel_code = r.hotel_code AND s.requestor_id = $1
         WHERE (CAST($2 AS TEXT) IS NULL OR r.hotel_code = $2) AND (CAST($3 AS TEXT) IS NULL OR b.status = $3)
         GROUP BY b.internal_ref, r.hotel_code, b.created_at, b.updated_at";
    let hotels = match by {
        ListDate::Arrival => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE first_night BETWEEN $4 AND $5 ORDER BY first_night, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &start, &end, &limit]).await?,
        ListDate::Departure => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE last_day BETWEEN $4 AND $5 ORDER BY last_day, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &start, &end, &limit]).await?,
        ListDate::Created => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE created_at >= $4 AND created_at < $5 ORDER BY created_at, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &from_local, &to_local, &limit]).await?,
        ListDate::Updated => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE updated_at >= $4 AND updated_at < $5 ORDER BY updated_at, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &from_local, &to_local, &limit]).await?,
    };
    const ACTIVITIES: &str = "SELECT CAST('activity' AS TEXT), a.reference, p.location_name FROM activity_booking a
         JOIN activity_booking_pickup p ON p.booking_id = a.id
         JOIN supplier_hotel s ON s.hotel_code = p.location_name AND s.requestor_id = $1
         WHERE (CAST($2 AS TEXT) IS NULL OR p.location_name = $2) AND (CAST($3 AS TEXT) IS NULL OR a.status = $3)";
    let activities = match by {
        ListDate::Arrival => c.query(&format!("{ACTIVITIES} AND a.service_date BETWEEN $4 AND $5 ORDER BY a.service_date, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &start, &end, &limit]).await?,
        ListDate::Departure => c.query(&format!("{ACTIVITIES} AND a.end_at >= $4 AND a.end_at < $5 ORDER BY a.end_at, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &from_local, &to_local, &limit]).await?,
        ListDate::Created => c.query(&format!("{ACTIVITIES} AND a.created_at >= $4 AND a.created_at < $5 ORDER BY a.created_at, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &from_utc, &to_utc, &limit]).await?,
        ListDate::Updated => c.query(&format!("{ACTIVITIES} AND a.updated_at >= $4 AND a.updated_at < $5 ORDER BY a.updated_at, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &from_utc, &to_utc, &limit]).await?,
    };
    Ok((hotels, activities))
}
