//! The supply state (`supply_rooms`, `supply_restriction`, `supply_rate`): read whole with the
//! catalogue, read from a supply position for the changes a gateway has not seen, written by
//! suppliers' notifications (rooms on sale one value at a time, restrictions and amounts one
//! statement per message where a statement is a round trip), never over a newer one.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::hotels::supply::{HotelSupply, Restriction, SetBy, SourcedSupply, Stamp, Stamped, SupplyPosition};
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};
use std::collections::{BTreeSet, HashMap};

row! {
    /// A `supply_rooms` row.
    struct RoomsRow { hotel_code: String, room_code: String, night: NaiveDate, rooms: Option<i64>, stamp: i64, change: i64 }
}

row! {
    /// A `supply_restriction` row.
    struct RestrictionRow { hotel_code: String, room_code: String, board_code: String, night: NaiveDate, kind: String, value: Option<i64>, stamp: i64, change: i64 }
}

row! {
    /// A `supply_rate` row.
    struct RateRow { hotel_code: String, room_code: String, board_code: String, currency: String, night: NaiveDate, guests: i64, amount: Decimal, stamp: i64, change: i64 }
}

/// A stored stamp (microseconds since 1970 UTC).
fn stamp_of(micros: i64) -> Result<Stamp, StoreError> {
    DateTime::<Utc>::from_timestamp_micros(micros).ok_or_else(|| StoreError::Data(format!("supply stamp {micros}")))
}

/// A stored non-negative count.
fn count(what: &str, v: i64) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|_| StoreError::Data(format!("supply {what} {v}")))
}

/// The supply position (see [`Conn::supply_position`]).
pub(crate) async fn supply_position(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    c.supply_position().await
}

/// The number a notification's writes carry, in its transaction (see
/// [`Conn::supply_change_number`]).
pub(crate) async fn change_number(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    c.supply_change_number().await
}

/// Adds to `into` (by hotel) the values changed since `since` (see [`supply_position`]), as each
/// value now stands (every value, from the default position); the change numbers read, each
/// once.
pub(crate) async fn read_supply(
    c: &mut Conn<'_>,
    since: &SupplyPosition,
    into: &mut HashMap<String, HotelSupply>,
) -> Result<BTreeSet<i64>, StoreError> {
    // The changes at or above the position already read are not read again (PostgreSQL; on
    // SQLite none is at or above it).
    let filter = format!("change >= $1 AND {}", c.not_among("change", 2));
    let params: [&dyn crate::store::Param; 2] = [&since.below, &since.seen];
    let mut changes = BTreeSet::new();
    let rooms: Vec<RoomsRow> = c
        .query(
            &format!("SELECT hotel_code, room_code, night, rooms, stamp, change FROM supply_rooms WHERE {filter}"),
            &params,
        )
        .await?;
    for r in rooms {
        changes.insert(r.change);
        let room = into.entry(r.hotel_code).or_default().rooms.entry(r.room_code).or_default();
        room.rooms.insert(
            r.night,
            Stamped { value: r.rooms.map(|n| count("rooms", n)).transpose()?, stamp: stamp_of(r.stamp)? },
        );
    }
    let restrictions: Vec<RestrictionRow> = c
        .query(&format!("SELECT hotel_code, room_code, board_code, night, kind, value, stamp, change FROM supply_restriction WHERE {filter}"), &params)
        .await?;
    for r in restrictions {
        changes.insert(r.change);
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
        .query(&format!("SELECT hotel_code, room_code, board_code, currency, night, guests, amount, stamp, change FROM supply_rate WHERE {filter}"), &params)
        .await?;
    for r in rates {
        changes.insert(r.change);
        let guests = count("guests", r.guests)?;
        let room = into.entry(r.hotel_code).or_default().rooms.entry(r.room_code).or_default();
        let amounts = room.rates.entry(r.board_code).or_default().entry(r.currency).or_default();
        amounts.insert((r.night, guests), Stamped { value: r.amount, stamp: stamp_of(r.stamp)? });
    }
    Ok(changes)
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
/// message included). Written, gives the rooms sold of the night (in the same statement: one
/// round trip); `None` when a newer message set them.
pub(crate) async fn set_rooms(
    c: &mut Conn<'_>,
    (hotel, room, night): (&str, &str, NaiveDate),
    rooms: Option<u32>,
    (stamp, source): (Stamp, Option<&str>),
    adjust: bool,
    change: i64,
) -> Result<Option<i64>, StoreError> {
    let (rooms, stamp) = (rooms.map(i64::from), stamp.timestamp_micros());
    let row: Option<Scalar<Option<i64>>> = c
        .query_opt(
            "INSERT INTO supply_rooms (hotel_code, room_code, night, rooms, stamp, change, source) VALUES ($1, $2, $3, $4, $5, $6, $8)
             ON CONFLICT (hotel_code, room_code, night) DO UPDATE SET rooms = excluded.rooms, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_rooms.stamp < excluded.stamp OR (supply_rooms.stamp = excluded.stamp AND NOT $7)
             RETURNING (SELECT s.rooms FROM hotel_rooms_sold s WHERE s.hotel_code = $1 AND s.room_code = $2 AND s.night = $3)",
            &[&hotel, &room, &night, &rooms, &stamp, &change, &adjust, &source],
        )
        .await?;
    Ok(row.map(|Scalar(sold)| sold.unwrap_or(0)))
}

/// Rooms on sale set to a number, by one of several notifications written together (see
/// [`set_rooms_together`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoomsValue<'a> {
    pub(crate) hotel: &'a str,
    pub(crate) room: &'a str,
    pub(crate) night: NaiveDate,
    pub(crate) rooms: u32,
    pub(crate) stamp: Stamp,
    pub(crate) source: Option<&'a str>,
}

row! {
    /// A `supply_rooms` row a statement wrote, with the rooms sold of its night.
    struct RoomsWritten { hotel_code: String, room_code: String, night: NaiveDate, sold: Option<i64> }
}

/// Sets rooms on sale of several notifications at once (each unless a message newer than its
/// own set them, as [`set_rooms`] one by one; of a key set more than once, the last): per value,
/// in order, the rooms sold of its night when written, else `None`. On PostgreSQL one statement
/// (`UNNEST`), however many values.
pub(crate) async fn set_rooms_together(
    c: &mut Conn<'_>,
    values: &[RoomsValue<'_>],
    change: i64,
) -> Result<Vec<Option<i64>>, StoreError> {
    if !c.statements_travel() || values.len() < 2 {
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            let at = (v.hotel, v.room, v.night);
            out.push(set_rooms(c, at, Some(v.rooms), (v.stamp, v.source), false, change).await?);
        }
        return Ok(out);
    }
    let kept = last_of_each(values.iter().map(|v| (v.hotel, v.room, v.night)));
    let hotels: Vec<String> = kept.iter().map(|&i| values[i].hotel.to_string()).collect();
    let rooms: Vec<String> = kept.iter().map(|&i| values[i].room.to_string()).collect();
    let nights: Vec<NaiveDate> = kept.iter().map(|&i| values[i].night).collect();
    let counts: Vec<i64> = kept.iter().map(|&i| i64::from(values[i].rooms)).collect();
    let stamps: Vec<i64> = kept.iter().map(|&i| values[i].stamp.timestamp_micros()).collect();
    let sources: Vec<Option<String>> = kept.iter().map(|&i| values[i].source.map(String::from)).collect();
    let written: Vec<RoomsWritten> = c
        .query(
            "INSERT INTO supply_rooms (hotel_code, room_code, night, rooms, stamp, change, source)
             SELECT h, r, n, k, s, $1, src FROM UNNEST($2::text[], $3::text[], $4::date[], $5::int8[], $6::int8[], $7::text[]) AS t (h, r, n, k, s, src)
             ON CONFLICT (hotel_code, room_code, night) DO UPDATE SET rooms = excluded.rooms, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_rooms.stamp <= excluded.stamp
             RETURNING hotel_code, room_code, night,
                 (SELECT s.rooms FROM hotel_rooms_sold s WHERE s.hotel_code = supply_rooms.hotel_code AND s.room_code = supply_rooms.room_code AND s.night = supply_rooms.night)",
            &[&change, &hotels, &rooms, &nights, &counts, &stamps, &sources],
        )
        .await?;
    let written: HashMap<(String, String, NaiveDate), i64> =
        written.into_iter().map(|w| ((w.hotel_code, w.room_code, w.night), w.sold.unwrap_or(0))).collect();
    Ok(values.iter().map(|v| written.get(&(v.hotel.to_string(), v.room.to_string(), v.night)).copied()).collect())
}

/// The stamp of the message that last set the rooms of a type on sale on a night (`None`: no
/// supplier's message did).
pub(crate) async fn rooms_stamp(
    c: &mut Conn<'_>,
    (hotel, room, night): (&str, &str, NaiveDate),
) -> Result<Option<Stamp>, StoreError> {
    let row: Option<RoomsRow> = c
        .query_opt(
            "SELECT hotel_code, room_code, night, rooms, stamp, change FROM supply_rooms WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
            &[&hotel, &room, &night],
        )
        .await?;
    row.map(|r| stamp_of(r.stamp)).transpose()
}

/// A restriction a notification sets: of a room type and rate plan (`""`: every plan), on a
/// day; `None` lifts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RestrictionValue<'a> {
    pub(crate) room: &'a str,
    pub(crate) board: &'a str,
    pub(crate) night: NaiveDate,
    pub(crate) kind: Restriction,
    pub(crate) value: Option<u32>,
}

/// An amount a notification sets: of one night of a room of a type with a rate plan, in a
/// currency, for a number of guests (0: any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RateValue<'a> {
    pub(crate) room: &'a str,
    pub(crate) board: &'a str,
    pub(crate) currency: &'a str,
    pub(crate) night: NaiveDate,
    pub(crate) guests: u32,
    pub(crate) amount: Decimal,
}

/// The index of the last value of each key, in order: what a statement that writes each key
/// once writes (a later value of a message over an earlier one, as when applied in turn).
fn last_of_each<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> Vec<usize> {
    let mut last: HashMap<K, usize> = HashMap::new();
    for (i, k) in keys.enumerate() {
        last.insert(k, i);
    }
    let mut kept: Vec<usize> = last.into_values().collect();
    kept.sort_unstable();
    kept
}

row! {
    /// The key of a `supply_restriction` row a statement wrote.
    struct RestrictionKey { room_code: String, board_code: String, night: NaiveDate, kind: String }
}

row! {
    /// The key of a `supply_rate` row a statement wrote.
    struct RateKey { room_code: String, board_code: String, currency: String, night: NaiveDate, guests: i64 }
}

/// Sets restrictions of a hotel, each unless a message newer than `stamp` set it: whether each
/// was written, in order. SQLite: one statement per value (in the process, cheap); PostgreSQL:
/// one statement for all (`UNNEST`, a round trip however many).
pub(crate) async fn set_restrictions(
    c: &mut Conn<'_>,
    hotel: &str,
    values: &[RestrictionValue<'_>],
    (stamp, source): (Stamp, Option<&str>),
    change: i64,
) -> Result<Vec<Written>, StoreError> {
    if !c.statements_travel() || values.len() < 2 {
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            out.push(set_restriction(c, hotel, v, (stamp, source), change).await?);
        }
        return Ok(out);
    }
    let kept = last_of_each(values.iter().map(|v| (v.room, v.board, v.night, v.kind)));
    let pick =
        |f: &dyn Fn(&RestrictionValue<'_>) -> String| -> Vec<String> { kept.iter().map(|&i| f(&values[i])).collect() };
    let (rooms, boards, kinds) =
        (pick(&|v| v.room.into()), pick(&|v| v.board.into()), pick(&|v| v.kind.as_str().into()));
    let nights: Vec<NaiveDate> = kept.iter().map(|&i| values[i].night).collect();
    let amounts: Vec<Option<i64>> = kept.iter().map(|&i| values[i].value.map(i64::from)).collect();
    let written: Vec<RestrictionKey> = c
        .query(
            "INSERT INTO supply_restriction (hotel_code, room_code, board_code, night, kind, value, stamp, change, source)
             SELECT $1, r, b, n, k, v, $2, $3, $4 FROM UNNEST($5::text[], $6::text[], $7::date[], $8::text[], $9::int8[]) AS t (r, b, n, k, v)
             ON CONFLICT (hotel_code, room_code, board_code, night, kind) DO UPDATE SET value = excluded.value, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_restriction.stamp <= excluded.stamp
             RETURNING room_code, board_code, night, kind",
            &[&hotel, &stamp.timestamp_micros(), &change, &source, &rooms, &boards, &nights, &kinds, &amounts],
        )
        .await?;
    let written: std::collections::HashSet<(String, String, NaiveDate, String)> =
        written.into_iter().map(|k| (k.room_code, k.board_code, k.night, k.kind)).collect();
    Ok(values
        .iter()
        .map(|v| {
            let key = (v.room.to_string(), v.board.to_string(), v.night, v.kind.as_str().to_string());
            if written.contains(&key) { Written::Yes } else { Written::Older }
        })
        .collect())
}

/// Sets amounts of a hotel, each unless a message newer than `stamp` set it: whether each was
/// written, in order (as [`set_restrictions`]).
pub(crate) async fn set_rates(
    c: &mut Conn<'_>,
    hotel: &str,
    values: &[RateValue<'_>],
    (stamp, source): (Stamp, Option<&str>),
    change: i64,
) -> Result<Vec<Written>, StoreError> {
    if !c.statements_travel() || values.len() < 2 {
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            out.push(set_rate(c, hotel, v, (stamp, source), change).await?);
        }
        return Ok(out);
    }
    let kept = last_of_each(values.iter().map(|v| (v.room, v.board, v.currency, v.night, v.guests)));
    let pick = |f: &dyn Fn(&RateValue<'_>) -> String| -> Vec<String> { kept.iter().map(|&i| f(&values[i])).collect() };
    let (rooms, boards, currencies) =
        (pick(&|v| v.room.into()), pick(&|v| v.board.into()), pick(&|v| v.currency.into()));
    let nights: Vec<NaiveDate> = kept.iter().map(|&i| values[i].night).collect();
    let guests: Vec<i64> = kept.iter().map(|&i| i64::from(values[i].guests)).collect();
    let amounts: Vec<Decimal> = kept.iter().map(|&i| values[i].amount).collect();
    let written: Vec<RateKey> = c
        .query(
            "INSERT INTO supply_rate (hotel_code, room_code, board_code, currency, night, guests, amount, stamp, change, source)
             SELECT $1, r, b, cu, n, g, a, $2, $3, $4 FROM UNNEST($5::text[], $6::text[], $7::text[], $8::date[], $9::int8[], $10::numeric[]) AS t (r, b, cu, n, g, a)
             ON CONFLICT (hotel_code, room_code, board_code, currency, night, guests) DO UPDATE SET amount = excluded.amount, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_rate.stamp <= excluded.stamp
             RETURNING room_code, board_code, currency, night, guests",
            &[&hotel, &stamp.timestamp_micros(), &change, &source, &rooms, &boards, &currencies, &nights, &guests, &amounts],
        )
        .await?;
    let written: std::collections::HashSet<(String, String, String, NaiveDate, i64)> =
        written.into_iter().map(|k| (k.room_code, k.board_code, k.currency, k.night, k.guests)).collect();
    Ok(values
        .iter()
        .map(|v| {
            let key = (v.room.to_string(), v.board.to_string(), v.currency.to_string(), v.night, i64::from(v.guests));
            if written.contains(&key) { Written::Yes } else { Written::Older }
        })
        .collect())
}

/// Sets a restriction of a room type and rate plan (`""`: every plan) on a day, unless a
/// message newer than `stamp` set it.
async fn set_restriction(
    c: &mut Conn<'_>,
    hotel: &str,
    RestrictionValue { room, board, night, kind, value }: &RestrictionValue<'_>,
    (stamp, source): (Stamp, Option<&str>),
    change: i64,
) -> Result<Written, StoreError> {
    let (value, stamp) = (value.map(i64::from), stamp.timestamp_micros());
    let (room, board) = (*room, *board);
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "INSERT INTO supply_restriction (hotel_code, room_code, board_code, night, kind, value, stamp, change, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (hotel_code, room_code, board_code, night, kind) DO UPDATE SET value = excluded.value, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_restriction.stamp <= excluded.stamp
             RETURNING change",
            &[&hotel, &room, &board, night, &kind.as_str(), &value, &stamp, &change, &source],
        )
        .await?;
    Ok(written(row))
}

/// Sets the amount of one night of a room of a type with a rate plan, in a currency, for a
/// number of guests (0: any), unless a message newer than `stamp` set it.
async fn set_rate(
    c: &mut Conn<'_>,
    hotel: &str,
    RateValue { room, board, currency, night, guests, amount }: &RateValue<'_>,
    (stamp, source): (Stamp, Option<&str>),
    change: i64,
) -> Result<Written, StoreError> {
    let (guests, stamp) = (i64::from(*guests), stamp.timestamp_micros());
    let (room, board, currency) = (*room, *board, *currency);
    let row: Option<Scalar<i64>> = c
        .query_opt(
            "INSERT INTO supply_rate (hotel_code, room_code, board_code, currency, night, guests, amount, stamp, change, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (hotel_code, room_code, board_code, currency, night, guests) DO UPDATE SET amount = excluded.amount, stamp = excluded.stamp, change = excluded.change, source = excluded.source
             WHERE supply_rate.stamp <= excluded.stamp
             RETURNING change",
            &[&hotel, &room, &board, &currency, night, &guests, amount, &stamp, &change, &source],
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
