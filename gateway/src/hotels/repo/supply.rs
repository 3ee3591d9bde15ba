//! The supply state (`supply_rooms`, `supply_restriction`, `supply_rate`): read whole with the
//! catalogue, read by version for the changes a gateway has not seen, written by suppliers'
//! notifications one value at a time, never over a newer one.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::hotels::supply::{HotelSupply, Restriction, SetBy, SourcedSupply, Stamp, Stamped};
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};
use std::collections::HashMap;

row! {
    /// A `supply_rooms` row.
    struct RoomsRow { hotel_code: String, room_code: String, night: NaiveDate, rooms: Option<i64>, stamp: i64 }
}

row! {
    /// A `supply_restriction` row.
    struct RestrictionRow { hotel_code: String, room_code: String, board_code: String, night: NaiveDate, kind: String, value: Option<i64>, stamp: i64 }
}

row! {
    /// A `supply_rate` row.
    struct RateRow { hotel_code: String, room_code: String, board_code: String, currency: String, night: NaiveDate, guests: i64, amount: Decimal, stamp: i64 }
}

/// A stored stamp (microseconds since 1970 UTC).
fn stamp_of(micros: i64) -> Result<Stamp, StoreError> {
    DateTime::<Utc>::from_timestamp_micros(micros).ok_or_else(|| StoreError::Data(format!("supply stamp {micros}")))
}

/// A stored non-negative count.
fn count(what: &str, v: i64) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|_| StoreError::Data(format!("supply {what} {v}")))
}

/// The supply version: how many notifications changed something.
pub(crate) async fn supply_version(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    let Scalar(v) = c.query_one("SELECT supply_version FROM content_version WHERE id = 1", &[]).await?;
    Ok(v)
}

/// Moves the supply version on, in a notification's transaction (which then holds the
/// version's row until it ends: notifications are written one at a time, so the versions
/// become visible in their order); the new version.
pub(crate) async fn next_supply_version(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    let Scalar(v) = c
        .query_one(
            "UPDATE content_version SET supply_version = supply_version + 1 WHERE id = 1 RETURNING supply_version",
            &[],
        )
        .await?;
    Ok(v)
}

/// Adds to `into` (by hotel) what the notifications of versions after `after` wrote, as each
/// value now stands (every value, from `after` = -1).
pub(crate) async fn read_supply(
    c: &mut Conn<'_>,
    after: i64,
    into: &mut HashMap<String, HotelSupply>,
) -> Result<(), StoreError> {
    let rooms: Vec<RoomsRow> = c
        .query("SELECT hotel_code, room_code, night, rooms, stamp FROM supply_rooms WHERE change > $1", &[&after])
        .await?;
    for r in rooms {
        let room = into.entry(r.hotel_code).or_default().rooms.entry(r.room_code).or_default();
        room.rooms.insert(
            r.night,
            Stamped { value: r.rooms.map(|n| count("rooms", n)).transpose()?, stamp: stamp_of(r.stamp)? },
        );
    }
    let restrictions: Vec<RestrictionRow> = c
        .query("SELECT hotel_code, room_code, board_code, night, kind, value, stamp FROM supply_restriction WHERE change > $1", &[&after])
        .await?;
    for r in restrictions {
        let kind = Restriction::from_name(&r.kind)
            .ok_or_else(|| StoreError::Data(format!("supply restriction kind {:?}", r.kind)))?;
        let value = r.value.map(|v| count("restriction", v)).transpose()?;
        let room = into.entry(r.hotel_code).or_default().rooms.entry(r.room_code).or_default();
        room.restrictions
            .entry(r.board_code)
            .or_default()
            .insert((r.night, kind), Stamped { value, stamp: stamp_of(r.stamp)? });
    }
    let rates: Vec<RateRow> = c
        .query("SELECT hotel_code, room_code, board_code, currency, night, guests, amount, stamp FROM supply_rate WHERE change > $1", &[&after])
        .await?;
    for r in rates {
        let guests = count("guests", r.guests)?;
        let room = into.entry(r.hotel_code).or_default().rooms.entry(r.room_code).or_default();
        let amounts = room.rates.entry(r.board_code).or_default().entry(r.currency).or_default();
        amounts.insert((r.night, guests), Stamped { value: r.amount, stamp: stamp_of(r.stamp)? });
    }
    Ok(())
}

/// What writing one value found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// The value is stored.
    Yes,
    /// A newer message set it: nothing was written.
    Older,
}

fn written(row: Option<Scalar<i64>>) -> Written {
    if row.is_some() { Written::Yes } else { Written::Older }
}

/// Sets the rooms on sale of a room type on a night (`None`: the content's again), unless a
/// message newer than `stamp` set them (`adjust`: unless one as new did, a repeat of the same
/// message included).
pub(crate) async fn set_rooms(
    c: &mut Conn<'_>,
    (hotel, room, night): (&str, &str, NaiveDate),
    rooms: Option<u32>,
    (stamp, source): (Stamp, Option<&str>),
    adjust: bool,
    change: i64,
) -> Result<Written, StoreError> {
    let (rooms, stamp) = (rooms.map(i64::from), stamp.timestamp_micros());
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "INSERT INTO supply_rooms (hotel_code, room_code, night, rooms, stamp, change, source) VALUES ($1, $2, $3, $4, $5, $6, $8)
             ON CONFLICT (hotel_code, room_code, night) DO UPDATE SET rooms = excluded.rooms, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_rooms.stamp < excluded.stamp OR (supply_rooms.stamp = excluded.stamp AND NOT $7)
             RETURNING change",
            &[&hotel, &room, &night, &rooms, &stamp, &change, &adjust, &source],
        )
        .await?;
    Ok(written(row))
}

/// The stamp of the message that last set the rooms of a type on sale on a night (`None`: no
/// supplier's message did).
pub(crate) async fn rooms_stamp(
    c: &mut Conn<'_>,
    (hotel, room, night): (&str, &str, NaiveDate),
) -> Result<Option<Stamp>, StoreError> {
    let row: Option<RoomsRow> = c
        .query_opt(
            "SELECT hotel_code, room_code, night, rooms, stamp FROM supply_rooms WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
            &[&hotel, &room, &night],
        )
        .await?;
    row.map(|r| stamp_of(r.stamp)).transpose()
}

/// Sets a restriction of a room type and rate plan (`""`: every plan) on a day, unless a
/// message newer than `stamp` set it.
pub(crate) async fn set_restriction(
    c: &mut Conn<'_>,
    (hotel, room, board, night): (&str, &str, &str, NaiveDate),
    kind: Restriction,
    value: Option<u32>,
    (stamp, source): (Stamp, Option<&str>),
    change: i64,
) -> Result<Written, StoreError> {
    let (value, stamp) = (value.map(i64::from), stamp.timestamp_micros());
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "INSERT INTO supply_restriction (hotel_code, room_code, board_code, night, kind, value, stamp, change, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (hotel_code, room_code, board_code, night, kind) DO UPDATE SET value = excluded.value, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_restriction.stamp <= excluded.stamp
             RETURNING change",
            &[&hotel, &room, &board, &night, &kind.as_str(), &value, &stamp, &change, &source],
        )
        .await?;
    Ok(written(row))
}

/// Sets the amount of one night of a room of a type with a rate plan, in a currency, for a
/// number of guests (0: any), unless a message newer than `stamp` set it.
pub(crate) async fn set_rate(
    c: &mut Conn<'_>,
    (hotel, room, board, currency, night): (&str, &str, &str, &str, NaiveDate),
    guests: u32,
    amount: Decimal,
    (stamp, source): (Stamp, Option<&str>),
    change: i64,
) -> Result<Written, StoreError> {
    let (guests, stamp) = (i64::from(guests), stamp.timestamp_micros());
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "INSERT INTO supply_rate (hotel_code, room_code, board_code, currency, night, guests, amount, stamp, change, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (hotel_code, room_code, board_code, currency, night, guests) DO UPDATE SET amount = excluded.amount, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_rate.stamp <= excluded.stamp
             RETURNING change",
            &[&hotel, &room, &board, &currency, &night, &guests, &amount, &stamp, &change, &source],
        )
        .await?;
    Ok(written(row))
}

/// Deletes up to `batch` values of nights before `first` from each supply table; the most one
/// table lost (below `batch`: none has any left).
pub(crate) async fn purge_supply_before(c: &mut Conn<'_>, first: NaiveDate, batch: i64) -> Result<u64, StoreError> {
    const TABLES: [(&str, &str); 3] = [
        ("supply_rooms", "hotel_code, room_code, night"),
        ("supply_restriction", "hotel_code, room_code, board_code, night, kind"),
        ("supply_rate", "hotel_code, room_code, board_code, currency, night, guests"),
    ];
    let mut most = 0;
    for (table, key) in TABLES {
        let deleted = c
            .execute(
                &format!("DELETE FROM {table} WHERE ({key}) IN (SELECT {key} FROM {table} WHERE night < $1 LIMIT $2)"),
                &[&first, &batch],
            )
            .await?;
        most = most.max(deleted);
    }
    Ok(most)
}

row! {
    /// A `supply_rooms` row with its source.
    struct SourcedRoomsRow { room_code: String, night: NaiveDate, rooms: Option<i64>, stamp: i64, source: Option<String> }
}

row! {
    /// A `supply_restriction` row with its source.
    struct SourcedRestrictionRow { room_code: String, board_code: String, night: NaiveDate, kind: String, value: Option<i64>, stamp: i64, source: Option<String> }
}

row! {
    /// A `supply_rate` row with its source.
    struct SourcedRateRow { room_code: String, board_code: String, currency: String, night: NaiveDate, guests: i64, amount: Decimal, stamp: i64, source: Option<String> }
}

/// The supply values of one hotel from `from` to `to` (both included), each with who set it
/// and when: one statement per table.
pub(crate) async fn read_sourced(
    c: &mut Conn<'_>,
    hotel: &str,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<SourcedSupply, StoreError> {
    let mut out = SourcedSupply::default();
    let rooms: Vec<SourcedRoomsRow> = c
        .query(
            "SELECT room_code, night, rooms, stamp, source FROM supply_rooms WHERE hotel_code = $1 AND night BETWEEN $2 AND $3",
            &[&hotel, &from, &to],
        )
        .await?;
    for r in rooms {
        let value = r.rooms.map(|n| count("rooms", n)).transpose()?;
        out.rooms.insert((r.room_code, r.night), (value, SetBy { source: r.source, stamp: stamp_of(r.stamp)? }));
    }
    let restrictions: Vec<SourcedRestrictionRow> = c
        .query(
            "SELECT room_code, board_code, night, kind, value, stamp, source FROM supply_restriction WHERE hotel_code = $1 AND night BETWEEN $2 AND $3",
            &[&hotel, &from, &to],
        )
        .await?;
    for r in restrictions {
        let kind = Restriction::from_name(&r.kind)
            .ok_or_else(|| StoreError::Data(format!("supply restriction kind {:?}", r.kind)))?;
        let value = r.value.map(|v| count("restriction", v)).transpose()?;
        out.restrictions.insert(
            (r.room_code, r.board_code, r.night, kind),
            (value, SetBy { source: r.source, stamp: stamp_of(r.stamp)? }),
        );
    }
    let rates: Vec<SourcedRateRow> = c
        .query(
            "SELECT room_code, board_code, currency, night, guests, amount, stamp, source FROM supply_rate WHERE hotel_code = $1 AND night BETWEEN $2 AND $3",
            &[&hotel, &from, &to],
        )
        .await?;
    for r in rates {
        let guests = count("guests", r.guests)?;
        let by = SetBy { source: r.source, stamp: stamp_of(r.stamp)? };
        out.rates.entry((r.room_code, r.board_code, r.currency, r.night)).or_default().push((guests, r.amount, by));
    }
    for amounts in out.rates.values_mut() {
        amounts.sort_by_key(|a| a.0);
    }
    Ok(out)
}
