//! Database access of the hotel operations: bookings (find, load, save), prices, catalogue
//! names. Everything here is synchronous and runs inside [`crate::db::Db::call`].

use std::collections::{BTreeMap, HashSet};

use chrono::{Days, NaiveDate, NaiveDateTime};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use rust_decimal::Decimal;

use super::booking::{
    Booking, Comment, Company, Guest, Head, ItemRef, LangText, Labels, Room, RoomReference, RoomSource, Service,
    TransferLeg, TransferPoint, Transport, DATE_TIME_FORMAT, money,
};
use crate::db::DbError;

// ---------------------------------------------------------------------------------------------
// Conversions between stored text and values.

pub(crate) fn date_text(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

pub(crate) fn date_time_text(d: NaiveDateTime) -> String {
    d.format(DATE_TIME_FORMAT).to_string()
}

fn parse_date(s: &str) -> Result<NaiveDate, DbError> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|e| DbError::Data(format!("date {s:?}: {e}")))
}

fn parse_date_time(s: &str) -> Result<NaiveDateTime, DbError> {
    NaiveDateTime::parse_from_str(s, DATE_TIME_FORMAT).map_err(|e| DbError::Data(format!("date-time {s:?}: {e}")))
}

fn opt_date_time(s: Option<String>) -> Result<Option<NaiveDateTime>, DbError> {
    s.as_deref().map(parse_date_time).transpose()
}

pub(crate) fn parse_amount(s: &str) -> Result<Decimal, DbError> {
    s.parse::<Decimal>().map_err(|e| DbError::Data(format!("amount {s:?}: {e}")))
}

/// A stored integer as the message's unsigned integer.
fn unsigned(v: i64) -> Result<u64, DbError> {
    u64::try_from(v).map_err(|_| DbError::Data(format!("negative number {v}")))
}

/// An unsigned integer of a message or of the import file as a stored integer.
pub(crate) fn signed(v: u64) -> Result<i64, DbError> {
    i64::try_from(v).map_err(|_| DbError::Data(format!("number {v} is too large")))
}

// ---------------------------------------------------------------------------------------------
// Finding bookings.

/// What a booking reference leads to, for a given requestor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The booking (its row id).
    Found(i64),
    /// No booking of this requestor has the reference. (A booking of another requestor is
    /// reported the same way, so references of other partners cannot be probed.)
    NotFound,
    /// The Client and the Internal reference lead to different bookings.
    Mismatch,
}

/// Finds a booking of `owner` by its Client and/or Internal booking-level reference.
pub(crate) fn find_booking(conn: &Connection, owner: &str, client: Option<&str>, internal: Option<&str>) -> Result<Lookup, DbError> {
    let by_client = match client {
        Some(c) => Some(
            conn.prepare_cached("SELECT id FROM hotel_booking WHERE requestor_id = ?1 AND client_ref = ?2")?
                .query_row(params![owner, c], |r| r.get::<_, i64>(0))
                .optional()?,
        ),
        None => None,
    };
    let by_internal = match internal {
        Some(i) => {
            let row = conn
                .prepare_cached("SELECT id, requestor_id FROM hotel_booking WHERE internal_ref = ?1")?
                .query_row(params![i], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                .optional()?;
            Some(match row {
                Some((id, o)) if o == owner => Some(id),
                Some((id, _)) => {
                    tracing::info!(booking = id, requestor = owner, "a booking of another requestor was asked for; answered as not found");
                    None
                }
                None => None,
            })
        }
        None => None,
    };
    Ok(match (by_client, by_internal) {
        (Some(Some(a)), Some(Some(b))) if a != b => Lookup::Mismatch,
        (Some(Some(a)), Some(Some(_))) | (Some(Some(a)), None) | (None, Some(Some(a))) => Lookup::Found(a),
        _ => Lookup::NotFound,
    })
}

/// The bookings of `owner` whose date of the given kind falls between `start` and `end`
/// (inclusive), optionally with a given status, ordered by that date.
pub(crate) fn list_heads(conn: &Connection, owner: &str, column: ListDate, start: NaiveDate, end: NaiveDate, status: Option<&str>) -> Result<Vec<Head>, DbError> {
    // The column is one of four fixed names, never request text.
    let expr = match column {
        ListDate::Arrival => "arrival",
        ListDate::Departure => "departure",
        ListDate::Created => "substr(created_at, 1, 10)",
        ListDate::Updated => "substr(updated_at, 1, 10)",
    };
    let sql = format!(
        "SELECT internal_ref, client_ref, company_name, company_code, company_short_name, status, created_at, updated_at
         FROM hotel_booking
         WHERE requestor_id = ?1 AND {expr} BETWEEN ?2 AND ?3 AND (?4 IS NULL OR status = ?4)
         ORDER BY {expr}, created_at, internal_ref"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![owner, date_text(start), date_text(end), status], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, String>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, String>(7)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (internal_ref, client_ref, name, code, short_name, status, created, updated) = row?;
        out.push(Head {
            internal_ref,
            client_ref,
            company: company(name, code, short_name),
            status,
            created: parse_date_time(&created)?,
            updated: parse_date_time(&updated)?,
        });
    }
    Ok(out)
}

/// The date a list read selects on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListDate {
    Arrival,
    Departure,
    Created,
    Updated,
}

fn company(name: Option<String>, code: Option<String>, short_name: Option<String>) -> Option<Company> {
    name.map(|name| Company { name, code, short_name })
}

// ---------------------------------------------------------------------------------------------
// Loading a booking.

/// Loads a booking with everything it holds.
pub(crate) fn load_booking(conn: &Connection, id: i64) -> Result<Booking, DbError> {
    let head = conn
        .prepare_cached(
            "SELECT internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name,
                    status, created_at, updated_at, currency
             FROM hotel_booking WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, String>(9)?,
            ))
        })?;
    let (internal_ref, client_ref, owner, name, code, short_name, status, created, updated, currency) = head;

    let mut guests = Vec::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT rph, age_qualifying_code, birth_date, name_prefix, given_name, surname, age
             FROM hotel_booking_guest WHERE booking_id = ?1 ORDER BY position",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<i64>>(6)?,
            ))
        })?;
        for row in rows {
            let (rph, age_code, birth, prefix, given, surname, age) = row?;
            guests.push(Guest {
                rph: unsigned(rph)?,
                age_code,
                birth_date: birth.as_deref().map(parse_date).transpose()?,
                prefix,
                given,
                surname,
                age: age.map(unsigned).transpose()?,
            });
        }
    }

    let mut services = Vec::new();
    {
        let mut stmt = conn.prepare_cached("SELECT rph, inventory_code FROM hotel_booking_service WHERE booking_id = ?1 ORDER BY position")?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (rph, code) = row?;
            services.push(Service { rph: unsigned(rph)?, code, guests: Vec::new(), legs: Vec::new() });
        }
        let mut stmt = conn.prepare_cached(
            "SELECT service_rph, guest_rph FROM hotel_booking_service_guest WHERE booking_id = ?1 ORDER BY service_rph, position",
        )?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (service, guest) = row?;
            let service = unsigned(service)?;
            if let Some(s) = services.iter_mut().find(|s| s.rph == service) {
                s.guests.push(unsigned(guest)?);
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT service_rph, leg_position, end_kind, kind, hotel_code, departure_at, arrival_at,
                    departure_airport, arrival_airport, flight_number
             FROM hotel_booking_transfer_end WHERE booking_id = ?1
             ORDER BY service_rph, leg_position, end_kind DESC",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<String>>(8)?,
                r.get::<_, Option<String>>(9)?,
            ))
        })?;
        // (service rph, leg position) → (origin, destination)
        let mut legs: BTreeMap<(u64, i64), (Option<TransferPoint>, Option<TransferPoint>)> = BTreeMap::new();
        for row in rows {
            let (service, leg, end_kind, kind, hotel, departure, arrival, dep_airport, arr_airport, flight) = row?;
            let point = match (kind.as_str(), hotel) {
                ("hotel", Some(h)) => TransferPoint::Hotel(h),
                _ => TransferPoint::Transport(Transport {
                    departure: opt_date_time(departure)?,
                    arrival: opt_date_time(arrival)?,
                    departure_airport: dep_airport,
                    arrival_airport: arr_airport,
                    flight,
                }),
            };
            let entry = legs.entry((unsigned(service)?, leg)).or_default();
            if end_kind == "origin" {
                entry.0 = Some(point);
            } else {
                entry.1 = Some(point);
            }
        }
        for ((service, _), (origin, destination)) in legs {
            let (Some(origin), Some(destination)) = (origin, destination) else {
                return Err(DbError::Data(format!("booking {internal_ref}: a transfer leg of service {service} lacks an end")));
            };
            if let Some(s) = services.iter_mut().find(|s| s.rph == service) {
                s.legs.push(TransferLeg { origin, destination });
            }
        }
    }

    let mut rooms: Vec<(i64, Room)> = Vec::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT position, index_number, status, hotel_code, room_type_code, board_code, start_date, end_date,
                    total, reference_id, reference_type
             FROM hotel_booking_room WHERE booking_id = ?1 ORDER BY position",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, Option<String>>(9)?,
                r.get::<_, Option<String>>(10)?,
            ))
        })?;
        for row in rows {
            let (position, index, status, hotel, room_type, board, start, end, total, ref_id, ref_type) = row?;
            rooms.push((
                position,
                Room {
                    index: index.map(unsigned).transpose()?,
                    status,
                    hotel,
                    room_type,
                    board,
                    start: parse_date(&start)?,
                    end: parse_date(&end)?,
                    total: Some(parse_amount(&total)?),
                    guests: Vec::new(),
                    services: Vec::new(),
                    reference: (ref_id.is_some() || ref_type.is_some()).then_some(RoomReference { id: ref_id, kind: ref_type }),
                    sources: Vec::new(),
                },
            ));
        }
        let mut stmt = conn.prepare_cached(
            "SELECT room_position, guest_rph FROM hotel_booking_room_guest WHERE booking_id = ?1 ORDER BY room_position, position",
        )?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (room, guest) = row?;
            if let Some((_, r)) = rooms.iter_mut().find(|(p, _)| *p == room) {
                r.guests.push(unsigned(guest)?);
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT room_position, service_rph FROM hotel_booking_room_service WHERE booking_id = ?1 ORDER BY room_position, position",
        )?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (room, service) = row?;
            if let Some((_, r)) = rooms.iter_mut().find(|(p, _)| *p == room) {
                r.services.push(unsigned(service)?);
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT room_position, type, id, id_context, instance, company_name, company_code, company_short_name
             FROM hotel_booking_room_source WHERE booking_id = ?1 ORDER BY room_position, position",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, Option<String>>(7)?,
            ))
        })?;
        for row in rows {
            let (room, kind, sid, id_context, instance, name, code, short_name) = row?;
            if let Some((_, r)) = rooms.iter_mut().find(|(p, _)| *p == room) {
                r.sources.push(RoomSource { kind, id: sid, id_context, instance, company: company(name, code, short_name) });
            }
        }
    }

    let mut comments: Vec<(i64, Comment)> = Vec::new();
    {
        let mut stmt = conn.prepare_cached("SELECT position, name, originator FROM hotel_booking_comment WHERE booking_id = ?1 ORDER BY position")?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, Option<String>>(2)?)))?;
        for row in rows {
            let (position, name, originator) = row?;
            comments.push((position, Comment { name, originator, texts: Vec::new() }));
        }
        let mut stmt = conn.prepare_cached(
            "SELECT comment_position, language, text FROM hotel_booking_comment_text WHERE booking_id = ?1 ORDER BY comment_position, position",
        )?;
        let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (comment, language, text) = row?;
            if let Some((_, c)) = comments.iter_mut().find(|(p, _)| *p == comment) {
                c.texts.push(LangText { language, text });
            }
        }
    }

    let mut item_refs = Vec::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT res_id_type, source_context, value, item_rph FROM hotel_booking_reference WHERE booking_id = ?1 ORDER BY position",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<i64>>(3)?))
        })?;
        for row in rows {
            let (res_id_type, context, value, item_rph) = row?;
            item_refs.push(ItemRef { res_id_type, context, value, item_rph: item_rph.map(unsigned).transpose()? });
        }
    }

    Ok(Booking {
        internal_ref,
        client_ref,
        owner,
        company: company(name, code, short_name),
        status,
        created: parse_date_time(&created)?,
        last_update: Some(parse_date_time(&updated)?),
        currency,
        rooms: rooms.into_iter().map(|(_, r)| r).collect(),
        services,
        guests,
        comments: comments.into_iter().map(|(_, c)| c).collect(),
        item_refs,
    })
}

// ---------------------------------------------------------------------------------------------
// Saving a booking.

/// Saves a booking: replaces the stored one with the same internal reference (keeping its row
/// id), or inserts it. Every room must be priced. Run it inside a transaction.
pub(crate) fn save_booking(tx: &Transaction, b: &Booking) -> Result<i64, DbError> {
    let (arrival, departure) = b.span().ok_or_else(|| DbError::Data(format!("booking {}: no room stays", b.internal_ref)))?;
    let old: Option<i64> = tx
        .prepare_cached("SELECT id FROM hotel_booking WHERE internal_ref = ?1")?
        .query_row([&b.internal_ref], |r| r.get(0))
        .optional()?;
    if let Some(old) = old {
        tx.execute("DELETE FROM hotel_booking WHERE id = ?1", [old])?;
    }
    let company = b.company.as_ref();
    tx.prepare_cached(
        "INSERT INTO hotel_booking (id, internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name,
                                    status, created_at, updated_at, currency, total, arrival, departure)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        old,
        b.internal_ref,
        b.client_ref,
        b.owner,
        company.map(|c| &c.name),
        company.and_then(|c| c.code.as_ref()),
        company.and_then(|c| c.short_name.as_ref()),
        b.status,
        date_time_text(b.created),
        date_time_text(b.updated()),
        b.currency,
        b.total().to_string(),
        date_text(arrival),
        date_text(departure),
    ])?;
    let id = tx.last_insert_rowid();

    for (pos, g) in b.guests.iter().enumerate() {
        tx.prepare_cached(
            "INSERT INTO hotel_booking_guest (booking_id, rph, position, age_qualifying_code, birth_date, name_prefix, given_name, surname, age)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            id,
            signed(g.rph)?,
            pos as i64,
            g.age_code,
            g.birth_date.map(date_text),
            g.prefix,
            g.given,
            g.surname,
            g.age.map(signed).transpose()?,
        ])?;
    }

    for (pos, s) in b.services.iter().enumerate() {
        let rph = signed(s.rph)?;
        tx.prepare_cached("INSERT INTO hotel_booking_service (booking_id, rph, position, inventory_code) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![id, rph, pos as i64, s.code])?;
        for (gpos, guest) in s.guests.iter().enumerate() {
            tx.prepare_cached("INSERT INTO hotel_booking_service_guest (booking_id, service_rph, position, guest_rph) VALUES (?1, ?2, ?3, ?4)")?
                .execute(params![id, rph, gpos as i64, signed(*guest)?])?;
        }
        for (lpos, leg) in s.legs.iter().enumerate() {
            for (end_kind, point) in [("origin", &leg.origin), ("destination", &leg.destination)] {
                let (kind, hotel, t) = match point {
                    TransferPoint::Hotel(h) => ("hotel", Some(h.as_str()), None),
                    TransferPoint::Transport(t) => ("transport", None, Some(t)),
                };
                tx.prepare_cached(
                    "INSERT INTO hotel_booking_transfer_end (booking_id, service_rph, leg_position, end_kind, kind, hotel_code,
                        departure_at, arrival_at, departure_airport, arrival_airport, flight_number)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )?
                .execute(params![
                    id,
                    rph,
                    lpos as i64,
                    end_kind,
                    kind,
                    hotel,
                    t.and_then(|t| t.departure).map(date_time_text),
                    t.and_then(|t| t.arrival).map(date_time_text),
                    t.and_then(|t| t.departure_airport.as_ref()),
                    t.and_then(|t| t.arrival_airport.as_ref()),
                    t.and_then(|t| t.flight.as_ref()),
                ])?;
            }
        }
    }

    for (pos, r) in b.rooms.iter().enumerate() {
        let pos = pos as i64;
        let total = r.total.ok_or_else(|| DbError::Data(format!("booking {}: room stay {} is not priced", b.internal_ref, pos + 1)))?;
        tx.prepare_cached(
            "INSERT INTO hotel_booking_room (booking_id, position, index_number, status, hotel_code, room_type_code, board_code,
                start_date, end_date, total, reference_id, reference_type)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            id,
            pos,
            r.index.map(signed).transpose()?,
            r.status,
            r.hotel,
            r.room_type,
            r.board,
            date_text(r.start),
            date_text(r.end),
            money(total).to_string(),
            r.reference.as_ref().and_then(|x| x.id.as_ref()),
            r.reference.as_ref().and_then(|x| x.kind.as_ref()),
        ])?;
        for (gpos, guest) in r.guests.iter().enumerate() {
            tx.prepare_cached("INSERT INTO hotel_booking_room_guest (booking_id, room_position, position, guest_rph) VALUES (?1, ?2, ?3, ?4)")?
                .execute(params![id, pos, gpos as i64, signed(*guest)?])?;
        }
        for (spos, service) in r.services.iter().enumerate() {
            tx.prepare_cached("INSERT INTO hotel_booking_room_service (booking_id, room_position, position, service_rph) VALUES (?1, ?2, ?3, ?4)")?
                .execute(params![id, pos, spos as i64, signed(*service)?])?;
        }
        for (spos, s) in r.sources.iter().enumerate() {
            let c = s.company.as_ref();
            tx.prepare_cached(
                "INSERT INTO hotel_booking_room_source (booking_id, room_position, position, type, id, id_context, instance,
                    company_name, company_code, company_short_name)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                id,
                pos,
                spos as i64,
                s.kind,
                s.id,
                s.id_context,
                s.instance,
                c.map(|c| &c.name),
                c.and_then(|c| c.code.as_ref()),
                c.and_then(|c| c.short_name.as_ref()),
            ])?;
        }
    }

    for (pos, c) in b.comments.iter().enumerate() {
        tx.prepare_cached("INSERT INTO hotel_booking_comment (booking_id, position, name, originator) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![id, pos as i64, c.name, c.originator])?;
        for (tpos, t) in c.texts.iter().enumerate() {
            tx.prepare_cached(
                "INSERT INTO hotel_booking_comment_text (booking_id, comment_position, position, language, text) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![id, pos as i64, tpos as i64, t.language, t.text])?;
        }
    }

    for (pos, r) in b.item_refs.iter().enumerate() {
        tx.prepare_cached(
            "INSERT INTO hotel_booking_reference (booking_id, position, res_id_type, source_context, value, item_rph) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![id, pos as i64, r.res_id_type, r.context, r.value, r.item_rph.map(signed).transpose()?])?;
    }
    Ok(id)
}

// ---------------------------------------------------------------------------------------------
// Catalogue: names, boards, prices.

/// The hotel and room type names a booking answer shows.
pub(crate) fn labels(conn: &Connection, b: &Booking) -> Result<Labels, DbError> {
    let mut labels = Labels::default();
    for r in &b.rooms {
        if !labels.hotel_names.contains_key(&r.hotel) {
            let name: Option<String> = conn
                .prepare_cached("SELECT name FROM hotel WHERE code = ?1")?
                .query_row([&r.hotel], |row| row.get(0))
                .optional()?;
            if let Some(name) = name {
                labels.hotel_names.insert(r.hotel.clone(), name);
            }
        }
        let key = (r.hotel.clone(), r.base_room_type().to_string());
        if let std::collections::hash_map::Entry::Vacant(entry) = labels.room_names.entry(key) {
            let (hotel, room) = entry.key();
            let mut stmt = conn.prepare_cached("SELECT language, name FROM hotel_room_type_text WHERE hotel_code = ?1 AND room_code = ?2")?;
            let rows = stmt.query_map(params![hotel, room], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)))?;
            let names = rows.collect::<Result<BTreeMap<_, _>, _>>()?;
            entry.insert(names);
        }
    }
    Ok(labels)
}

/// The known board codes.
pub(crate) fn board_codes(conn: &Connection) -> Result<HashSet<String>, DbError> {
    let mut stmt = conn.prepare_cached("SELECT code FROM hotel_board")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Why a room stay cannot be priced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PriceError {
    /// The hotel does not exist.
    UnknownHotel,
    /// The hotel has no such room type.
    UnknownRoomType,
    /// No such board code.
    UnknownBoard,
    /// The room type is not sold with this board (in this currency).
    BoardNotOffered,
    /// No rate covers this night.
    NoRate(NaiveDate),
}

/// The price of a stay: the sum of the nightly rates of each night from `start` to the night
/// before `end`, in `currency`.
pub(crate) fn price(
    conn: &Connection,
    hotel: &str,
    room: &str,
    board: &str,
    currency: &str,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<Result<Decimal, PriceError>, DbError> {
    let exists = |sql: &str, p: &[&dyn rusqlite::ToSql]| -> Result<bool, DbError> {
        Ok(conn.prepare_cached(sql)?.query_row(p, |_| Ok(())).optional()?.is_some())
    };
    if !exists("SELECT 1 FROM hotel WHERE code = ?1", &[&hotel])? {
        return Ok(Err(PriceError::UnknownHotel));
    }
    if !exists("SELECT 1 FROM hotel_room_type WHERE hotel_code = ?1 AND code = ?2", &[&hotel, &room])? {
        return Ok(Err(PriceError::UnknownRoomType));
    }
    if !exists("SELECT 1 FROM hotel_board WHERE code = ?1", &[&board])? {
        return Ok(Err(PriceError::UnknownBoard));
    }
    if !exists(
        "SELECT 1 FROM hotel_rate WHERE hotel_code = ?1 AND room_code = ?2 AND board_code = ?3 AND currency = ?4",
        &[&hotel, &room, &board, &currency],
    )? {
        return Ok(Err(PriceError::BoardNotOffered));
    }
    let mut total = Decimal::ZERO;
    let mut night = start;
    while night < end {
        let d = date_text(night);
        let amount: Option<String> = conn
            .prepare_cached(
                "SELECT nightly_amount FROM hotel_rate
                 WHERE hotel_code = ?1 AND room_code = ?2 AND board_code = ?3 AND currency = ?4
                   AND start_date <= ?5 AND end_date >= ?5
                 ORDER BY start_date DESC LIMIT 1",
            )?
            .query_row(params![hotel, room, board, currency, d], |r| r.get(0))
            .optional()?;
        match amount {
            Some(a) => total += parse_amount(&a)?,
            None => return Ok(Err(PriceError::NoRate(night))),
        }
        night = match night.checked_add_days(Days::new(1)) {
            Some(n) => n,
            None => return Ok(Err(PriceError::NoRate(night))),
        };
    }
    Ok(Ok(money(total)))
}
