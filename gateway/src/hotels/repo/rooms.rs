//! The rooms sold per hotel, room type and night: read for availability and the checks, moved
//! by every booking, change and cancel in the same transaction.

use chrono::NaiveDate;

use crate::hotels::booking::{Night, Rooms};
use crate::store::row;
use crate::store::{Conn, Param, Scalar, StoreError};

row! {
    /// A `hotel_rooms_sold` row.
    struct SoldRow { hotel_code: String, room_code: String, night: NaiveDate, rooms: i64 }
}

/// The most hotels a [`rooms_sold`] statement names; with more, every hotel's rows are read.
const MAX_LISTED_HOTELS: usize = 200;

/// Rooms sold per room type and night, of some hotels, from `from` to `to` (inclusive), in
/// one statement (nights without any sold are absent).
pub(crate) async fn rooms_sold(
    c: &mut Conn<'_>,
    hotels: &[&str],
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Rooms, StoreError> {
    if hotels.is_empty() || to < from {
        return Ok(Rooms::new());
    }
    let mut params: Vec<&dyn crate::store::Param> = vec![&from, &to];
    let sql = if hotels.len() <= MAX_LISTED_HOTELS {
        let list: Vec<String> = (0..hotels.len()).map(|i| format!("${}", i + 3)).collect();
        params.extend(hotels.iter().map(|h| h as &dyn crate::store::Param));
        format!(
            "SELECT hotel_code, room_code, night, rooms FROM hotel_rooms_sold WHERE night BETWEEN $1 AND $2 AND hotel_code IN ({})",
            list.join(", ")
        )
    } else {
        "SELECT hotel_code, room_code, night, rooms FROM hotel_rooms_sold WHERE night BETWEEN $1 AND $2".to_string()
    };
    let rows: Vec<SoldRow> = c.query(&sql, &params).await?;
    Ok(rows
        .into_iter()
        .filter(|r| r.rooms > 0)
        .map(|r| (Night { hotel: r.hotel_code, room_type: r.room_code, night: r.night }, r.rooms))
        .collect())
}

/// Why rooms could not be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InventoryError {
    /// Fewer rooms are left on a night than asked for.
    #[error("{left} room(s) left")]
    Full {
        /// The room type and night.
        night: Night,
        /// Rooms left.
        left: i64,
    },
    /// The room type is no longer in the content.
    #[error("the room type is no longer offered")]
    RoomTypeGone(Night),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The rooms of room type `t` (a `hotel_room_type` row) on sale on night `$3`: as its supplier
/// set them, else as an allotment of the stored content says, else its usual number. Stated once,
/// for [`on_sale`] and for the update that takes rooms ([`TAKE`]).
macro_rules! rooms_on_sale {
    () => {
        "COALESCE((SELECT s.rooms FROM supply_rooms s WHERE s.hotel_code = t.hotel_code AND s.room_code = t.code AND s.night = $3),
                  (SELECT a.units FROM hotel_allotment a
                   WHERE a.hotel_code = t.hotel_code AND a.room_code = t.code AND a.start_date <= $3 AND a.end_date >= $3
                   ORDER BY a.start_date DESC LIMIT 1),
                  t.units)"
    };
}

/// Takes `$4` rooms of a night (`$1`, `$2`, `$3`), never beyond those on sale unless `$5`
/// (forced); no row when it could not (no such room type: the condition is not true).
const TAKE: &str = concat!(
    "UPDATE hotel_rooms_sold SET rooms = rooms + $4
     WHERE hotel_code = $1 AND room_code = $2 AND night = $3
       AND ($5 OR rooms + $4 <= (SELECT ",
    rooms_on_sale!(),
    " FROM hotel_room_type t WHERE t.hotel_code = $1 AND t.code = $2))
     RETURNING rooms"
);

/// Rooms of a type on sale on a night, as its supplier set them, else as the stored content has
/// them (`None`: no such room type).
pub(crate) async fn on_sale(c: &mut Conn<'_>, n: &Night) -> Result<Option<i64>, StoreError> {
    let row: Option<Scalar<i64>> = c
        .query_opt(
            concat!("SELECT ", rooms_on_sale!(), " FROM hotel_room_type t WHERE t.hotel_code = $1 AND t.code = $2"),
            &[&n.hotel, &n.room_type, &n.night],
        )
        .await?;
    Ok(row.map(|Scalar(on_sale)| on_sale))
}

/// Rooms sold of a type on a night.
pub(crate) async fn sold_on(c: &mut Conn<'_>, n: &Night) -> Result<i64, StoreError> {
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT rooms FROM hotel_rooms_sold WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
            &[&n.hotel, &n.room_type, &n.night],
        )
        .await?;
    Ok(row.map_or(0, |Scalar(r)| r))
}

/// Applies a change to the rooms sold, in the caller's write transaction: gives back, and
/// takes rooms never beyond those on sale (an imported booking records what exists: `force`
/// takes them even so). On an error the caller's transaction is rolled back. A night taken is
/// one round trip on PostgreSQL (its row made sure of, ahead of the conditional update, and a
/// give-back sent with them: [`Conn::execute_later`]); why it could not be taken is asked only
/// when it could not.
pub(crate) async fn apply_inventory(c: &mut Conn<'_>, change: &Rooms, force: bool) -> Result<(), InventoryError> {
    c.lock_catalogue(false).await?;
    let hotels: Vec<&str> = change.iter().filter(|(_, n)| **n > 0).map(|(night, _)| night.hotel.as_str()).collect();
    c.lock_hotels(&hotels, false).await?;
    for (night, &n) in change {
        let key: Vec<Box<dyn Param + Send>> =
            vec![Box::new(night.hotel.clone()), Box::new(night.room_type.clone()), Box::new(night.night)];
        if n < 0 {
            let mut params = key;
            params.push(Box::new(-n));
            c.execute_later(
                "UPDATE hotel_rooms_sold SET rooms = CASE WHEN rooms >= $4 THEN rooms - $4 ELSE 0 END
                 WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
                params,
            )
            .await?;
            continue;
        }
        c.execute_later(
            "INSERT INTO hotel_rooms_sold (hotel_code, room_code, night, rooms) VALUES ($1, $2, $3, 0)
             ON CONFLICT (hotel_code, room_code, night) DO NOTHING",
            key,
        )
        .await?;
        let taken: Option<Scalar<i64>> =
            c.query_opt(TAKE, &[&night.hotel, &night.room_type, &night.night, &n, &force]).await?;
        if taken.is_none() {
            let Some(total) = on_sale(c, night).await? else {
                return Err(InventoryError::RoomTypeGone(night.clone()));
            };
            let left = (total - sold_on(c, night).await?).max(0);
            return Err(InventoryError::Full { night: night.clone(), left });
        }
    }
    Ok(())
}
