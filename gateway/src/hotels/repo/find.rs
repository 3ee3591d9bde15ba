//! Finding bookings: by reference (the row and its revision first), by item, and lists by date;
//! and loading one, one child table at a time.

use std::collections::{BTreeMap, HashMap};

use chrono::{Days, NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;

use super::unsigned;
use crate::hotels::booking::{
    Booking, BookingHead, Comment, Company, Guest, ItemRef, LangText, Room, RoomReference, RoomSource, Service,
    TransferLeg, TransferPoint, Transport,
};
use crate::shared::booking::ListDate;
use crate::shared::cancellation::Cancellation;
use crate::shared::policy_repo::PenaltyRow;
use crate::store::group;
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

/// A stored booking: its row id and its revision (see [`next_revision`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BookingRef {
    /// The row id.
    pub id: i64,
    /// The revision: a new one for every write of the booking.
    pub revision: i64,
}

row! {
    /// A booking's row id and revision.
    struct RefRow { id: i64, revision: i64 }
}

/// What a booking reference leads to, for a given requestor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The booking.
    Found(BookingRef),
    /// No booking of this requestor has the reference. (A booking of another requestor is
    /// reported the same way, so references of other partners cannot be probed.)
    NotFound,
    /// The Client and the Internal reference lead to different bookings.
    Mismatch,
}

/// Finds a booking of `owner` by its Client and/or Internal booking-level reference.
pub(crate) async fn find(
    c: &mut Conn<'_>,
    owner: &str,
    client: Option<&str>,
    internal: Option<&str>,
) -> Result<Lookup, StoreError> {
    let found = |r: Option<RefRow>| r.map(|r| BookingRef { id: r.id, revision: r.revision });
    let by_client = match client {
        Some(r) => Some(found(
            c.query_opt(
                "SELECT id, revision FROM hotel_booking WHERE requestor_id = $1 AND client_ref = $2",
                &[&owner, &r],
            )
            .await?,
        )),
        None => None,
    };
    let by_internal = match internal {
        Some(r) => Some(found(
            c.query_opt(
                "SELECT id, revision FROM hotel_booking WHERE requestor_id = $1 AND internal_ref = $2",
                &[&owner, &r],
            )
            .await?,
        )),
        None => None,
    };
    Ok(match (by_client, by_internal) {
        (Some(Some(a)), Some(Some(b))) if a.id != b.id => Lookup::Mismatch,
        (Some(Some(a)), Some(Some(_))) | (Some(Some(a)), None) | (None, Some(Some(a))) => Lookup::Found(a),
        _ => Lookup::NotFound,
    })
}

row! {
    /// A booking's row id and an item number.
    struct ItemRow { id: i64, item_rph: Option<i64> }
}

/// Finds an item of a booking of `owner` by its item-level (Type 37) reference, as a Client
/// and/or Internal one: the booking's row id and the item's number.
pub(crate) async fn find_item(
    c: &mut Conn<'_>,
    owner: &str,
    reference: &str,
    by_client: bool,
    by_internal: bool,
) -> Result<Option<(i64, u64)>, StoreError> {
    let contexts: Vec<&str> =
        [(by_client, "Client"), (by_internal, "Internal")].into_iter().filter(|(on, _)| *on).map(|(_, c)| c).collect();
    for context in contexts {
        let row: Option<ItemRow> = c
            .query_opt(
                "SELECT b.id, r.item_rph FROM hotel_booking_reference r JOIN hotel_booking b ON b.id = r.booking_id
                 WHERE b.requestor_id = $1 AND r.value = $2 AND r.source_context = $3 AND r.res_id_type = '37'",
                &[&owner, &reference, &context],
            )
            .await?;
        if let Some(ItemRow { id, item_rph: Some(rph) }) = row {
            return Ok(Some((id, u64::try_from(rph).map_err(|_| StoreError::Data(format!("item_rph {rph}")))?)));
        }
    }
    Ok(None)
}

/// The booking of `owner` with this reference as a Client one (`by_client`), else as an
/// Internal one (`by_internal`).
pub(crate) async fn find_by_reference(
    c: &mut Conn<'_>,
    owner: &str,
    reference: &str,
    by_client: bool,
    by_internal: bool,
) -> Result<Lookup, StoreError> {
    let mut lookup = Lookup::NotFound;
    if by_client {
        lookup = find(c, owner, Some(reference), None).await?;
    }
    if by_internal && lookup == Lookup::NotFound {
        lookup = find(c, owner, None, Some(reference)).await?;
    }
    Ok(lookup)
}

row! {
    /// The head of a `hotel_booking` row.
    struct HeadRow {
        internal_ref: String, client_ref: String, company_name: Option<String>, company_code: Option<String>,
        company_short_name: Option<String>, status: String, created_at: NaiveDateTime, updated_at: NaiveDateTime,
    }
}

impl HeadRow {
    fn head(self) -> BookingHead {
        BookingHead {
            internal_ref: self.internal_ref,
            client_ref: self.client_ref,
            company: company(self.company_name, self.company_code, self.company_short_name),
            status: self.status,
            created: self.created_at,
            updated: self.updated_at,
        }
    }
}

fn company(name: Option<String>, code: Option<String>, short_name: Option<String>) -> Option<Company> {
    name.map(|name| Company { name, code, short_name })
}

/// The bookings of `owner` whose date of the given kind falls between `start` and `end`
/// (inclusive), optionally with a given status, ordered by that date.
pub(crate) async fn list(
    c: &mut Conn<'_>,
    owner: &str,
    by: ListDate,
    start: NaiveDate,
    end: NaiveDate,
    status: Option<&str>,
) -> Result<Vec<BookingHead>, StoreError> {
    const HEAD: &str = "SELECT internal_ref, client_ref, company_name, company_code, company_short_name, status, created_at, updated_at FROM hotel_booking";
    let day_after = end.checked_add_days(Days::new(1)).unwrap_or(end);
    let (from_instant, to_instant) =
        (start.and_time(chrono::NaiveTime::MIN), day_after.and_time(chrono::NaiveTime::MIN));
    let status = status.map(str::to_string);
    let rows: Vec<HeadRow> = match by {
        ListDate::Arrival => {
            c.query(
                &format!("{HEAD} WHERE requestor_id = $1 AND arrival BETWEEN $2 AND $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY arrival, created_at, internal_ref"),
                &[&owner, &start, &end, &status],
            )
            .await?
        }
        ListDate::Departure => {
            c.query(
                &format!(
                    "{HEAD} WHERE requestor_id = $1 AND departure BETWEEN $2 AND $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY departure, created_at, internal_ref"
                ),
                &[&owner, &start, &end, &status],
            )
            .await?
        }
        ListDate::Created => {
            c.query(
                &format!("{HEAD} WHERE requestor_id = $1 AND created_at >= $2 AND created_at < $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY created_at, internal_ref"),
                &[&owner, &from_instant, &to_instant, &status],
            )
            .await?
        }
        ListDate::Updated => {
            c.query(
                &format!(
                    "{HEAD} WHERE requestor_id = $1 AND updated_at >= $2 AND updated_at < $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY updated_at, created_at, internal_ref"
                ),
                &[&owner, &from_instant, &to_instant, &status],
            )
            .await?
        }
    };
    Ok(rows.into_iter().map(HeadRow::head).collect())
}

// ---------------------------------------------------------------------------------------------
// Loading a booking

row! {
    /// A `hotel_booking` row.
    struct BookingRow {
        internal_ref: String, client_ref: String, requestor_id: String, company_name: Option<String>, company_code: Option<String>,
        company_short_name: Option<String>, status: String, created_at: NaiveDateTime, updated_at: NaiveDateTime, currency: String,
    }
}

row! {
    /// A `hotel_booking_guest` row.
    struct GuestRow {
        rph: i64, age_qualifying_code: String, birth_date: Option<NaiveDate>, name_prefix: Option<String>, given_name: Option<String>,
        surname: Option<String>, age: Option<i64>,
    }
}

row! {
    /// A `hotel_booking_service` row.
    struct ServiceRow { rph: i64, inventory_code: String }
}

row! {
    /// A link of a booking child to an RPH (`hotel_booking_service_guest`, `…_room_guest`, `…_room_service`).
    struct LinkRow { owner: i64, rph: i64 }
}

row! {
    /// A `hotel_booking_transfer_end` row.
    struct TransferEndRow {
        service_rph: i64, leg_position: i64, end_kind: String, kind: String, hotel_code: Option<String>,
        departure_at: Option<NaiveDateTime>, arrival_at: Option<NaiveDateTime>, departure_airport: Option<String>,
        arrival_airport: Option<String>, flight_number: Option<String>,
    }
}

row! {
    /// A `hotel_booking_room` row.
    struct RoomRow {
        position: i64, index_number: Option<i64>, status: Option<String>, hotel_code: String, room_type_code: String, board_code: String,
        start_date: NaiveDate, end_date: NaiveDate, total: Decimal, reference_id: Option<String>, reference_type: Option<String>,
        cancelled_at: Option<NaiveDateTime>, cancel_penalty: Option<Decimal>,
    }
}

row! {
    /// A `hotel_booking_room_source` row.
    struct RoomSourceRow {
        room_position: i64, kind: String, id: String, id_context: Option<String>, instance: Option<String>, company_name: Option<String>,
        company_code: Option<String>, company_short_name: Option<String>,
    }
}

row! {
    /// A `hotel_booking_comment` row.
    struct CommentRow { position: i64, name: Option<String>, originator: Option<String> }
}

row! {
    /// A `hotel_booking_comment_text` row.
    struct CommentTextRow { comment_position: i64, language: Option<String>, text: String }
}

row! {
    /// A `hotel_booking_reference` row.
    struct ItemRefRow { res_id_type: String, source_context: String, value: String, item_rph: Option<i64> }
}

async fn load_guests(c: &mut Conn<'_>, id: i64) -> Result<Vec<Guest>, StoreError> {
    let rows: Vec<GuestRow> = c
        .query(
            "SELECT rph, age_qualifying_code, birth_date, name_prefix, given_name, surname, age FROM hotel_booking_guest WHERE booking_id = $1 ORDER BY position",
            &[&id],
        )
        .await?;
    rows.into_iter()
        .map(|g| {
            Ok(Guest {
                rph: unsigned(g.rph)?,
                age_code: g.age_qualifying_code,
                birth_date: g.birth_date,
                prefix: g.name_prefix,
                given: g.given_name,
                surname: g.surname,
                age: g.age.map(unsigned).transpose()?,
            })
        })
        .collect()
}

async fn load_services(c: &mut Conn<'_>, id: i64) -> Result<Vec<Service>, StoreError> {
    let rows: Vec<ServiceRow> = c
        .query("SELECT rph, inventory_code FROM hotel_booking_service WHERE booking_id = $1 ORDER BY position", &[&id])
        .await?;
    let guests: Vec<LinkRow> = c
        .query("SELECT service_rph, guest_rph FROM hotel_booking_service_guest WHERE booking_id = $1 ORDER BY service_rph, position", &[&id])
        .await?;
    let ends: Vec<TransferEndRow> = c
        .query(
            "SELECT service_rph, leg_position, end_kind, kind, hotel_code, departure_at, arrival_at, departure_airport, arrival_airport, flight_number
             FROM hotel_booking_transfer_end WHERE booking_id = $1 ORDER BY service_rph, leg_position, end_kind DESC",
            &[&id],
        )
        .await?;
    let mut guests = group(guests, |l| l.owner);
    // (service, leg) → (origin, destination)
    let mut legs: BTreeMap<(i64, i64), (Option<TransferPoint>, Option<TransferPoint>)> = BTreeMap::new();
    for e in ends {
        let point = match (e.kind.as_str(), e.hotel_code) {
            ("hotel", Some(h)) => TransferPoint::Hotel(h),
            _ => TransferPoint::Transport(Transport {
                departure: e.departure_at,
                arrival: e.arrival_at,
                departure_airport: e.departure_airport,
                arrival_airport: e.arrival_airport,
                flight: e.flight_number,
            }),
        };
        let entry = legs.entry((e.service_rph, e.leg_position)).or_default();
        if e.end_kind == "origin" {
            entry.0 = Some(point);
        } else {
            entry.1 = Some(point);
        }
    }
    let mut legs_by_service: HashMap<i64, Vec<TransferLeg>> = HashMap::new();
    for ((service, _), ends) in legs {
        let (Some(origin), Some(destination)) = ends else {
            return Err(StoreError::Data(format!("a transfer leg of service {service} lacks an end")));
        };
        legs_by_service.entry(service).or_default().push(TransferLeg { origin, destination });
    }
    rows.into_iter()
        .map(|s| {
            Ok(Service {
                rph: unsigned(s.rph)?,
                code: s.inventory_code,
                guests: guests
                    .remove(&s.rph)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|l| unsigned(l.rph))
                    .collect::<Result<_, _>>()?,
                legs: legs_by_service.remove(&s.rph).unwrap_or_default(),
            })
        })
        .collect()
}

async fn load_rooms(c: &mut Conn<'_>, id: i64) -> Result<Vec<Room>, StoreError> {
    let rows: Vec<RoomRow> = c
        .query(
            "SELECT position, index_number, status, hotel_code, room_type_code, board_code, start_date, end_date, total, reference_id, reference_type,
                    cancelled_at, cancel_penalty
             FROM hotel_booking_room WHERE booking_id = $1 ORDER BY position",
            &[&id],
        )
        .await?;
    let penalties: Vec<PenaltyRow> = c
        .query("SELECT room_position, deadline, percent FROM hotel_booking_room_penalty WHERE booking_id = $1 ORDER BY room_position, position", &[&id])
        .await?;
    let mut penalties = group(penalties, |p| p.item);
    let guests: Vec<LinkRow> =
        c.query("SELECT room_position, guest_rph FROM hotel_booking_room_guest WHERE booking_id = $1 ORDER BY room_position, position", &[&id]).await?;
    let services: Vec<LinkRow> = c
        .query("SELECT room_position, service_rph FROM hotel_booking_room_service WHERE booking_id = $1 ORDER BY room_position, position", &[&id])
        .await?;
    let sources: Vec<RoomSourceRow> = c
        .query(
            "SELECT room_position, type, id, id_context, instance, company_name, company_code, company_short_name
             FROM hotel_booking_room_source WHERE booking_id = $1 ORDER BY room_position, position",
            &[&id],
        )
        .await?;
    let mut guests = group(guests, |l| l.owner);
    let mut services = group(services, |l| l.owner);
    let mut sources = group(sources, |s| s.room_position);
    rows.into_iter()
        .map(|r| {
            Ok(Room {
                index: r.index_number.map(unsigned).transpose()?,
                status: r.status,
                hotel: r.hotel_code,
                room_type: r.room_type_code,
                board: r.board_code,
                start: r.start_date,
                end: r.end_date,
                total: Some(r.total),
                guests: guests
                    .remove(&r.position)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|l| unsigned(l.rph))
                    .collect::<Result<_, _>>()?,
                services: services
                    .remove(&r.position)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|l| unsigned(l.rph))
                    .collect::<Result<_, _>>()?,
                reference: (r.reference_id.is_some() || r.reference_type.is_some())
                    .then_some(RoomReference { id: r.reference_id, kind: r.reference_type }),
                penalties: penalties.remove(&r.position).unwrap_or_default().iter().map(PenaltyRow::penalty).collect(),
                cancelled: r.cancelled_at.map(|at| Cancellation { at, penalty: r.cancel_penalty.unwrap_or_default() }),
                sources: sources
                    .remove(&r.position)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| RoomSource {
                        kind: s.kind,
                        id: s.id,
                        id_context: s.id_context,
                        instance: s.instance,
                        company: company(s.company_name, s.company_code, s.company_short_name),
                    })
                    .collect(),
            })
        })
        .collect()
}

async fn load_comments(c: &mut Conn<'_>, id: i64) -> Result<Vec<Comment>, StoreError> {
    let rows: Vec<CommentRow> = c
        .query(
            "SELECT position, name, originator FROM hotel_booking_comment WHERE booking_id = $1 ORDER BY position",
            &[&id],
        )
        .await?;
    let texts: Vec<CommentTextRow> = c
        .query("SELECT comment_position, language, text FROM hotel_booking_comment_text WHERE booking_id = $1 ORDER BY comment_position, position", &[&id])
        .await?;
    let mut texts = group(texts, |t| t.comment_position);
    Ok(rows
        .into_iter()
        .map(|r| Comment {
            name: r.name,
            originator: r.originator,
            texts: texts
                .remove(&r.position)
                .unwrap_or_default()
                .into_iter()
                .map(|t| LangText { language: t.language, text: t.text })
                .collect(),
        })
        .collect())
}

async fn load_item_refs(c: &mut Conn<'_>, id: i64) -> Result<Vec<ItemRef>, StoreError> {
    let rows: Vec<ItemRefRow> = c
        .query("SELECT res_id_type, source_context, value, item_rph FROM hotel_booking_reference WHERE booking_id = $1 ORDER BY position", &[&id])
        .await?;
    rows.into_iter()
        .map(|r| {
            Ok(ItemRef {
                res_id_type: r.res_id_type,
                context: r.source_context,
                value: r.value,
                item_rph: r.item_rph.map(unsigned).transpose()?,
            })
        })
        .collect()
}

/// The stored id of the booking with this Internal reference.
pub(crate) async fn id_by_internal(c: &mut Conn<'_>, internal_ref: &str) -> Result<Option<i64>, StoreError> {
    let row: Option<Scalar<i64>> =
        c.query_opt("SELECT id FROM hotel_booking WHERE internal_ref = $1", &[&internal_ref]).await?;
    Ok(row.map(|Scalar(id)| id))
}

/// Loads a booking with everything it holds, as one version of it: in a write transaction its
/// row stays locked until the transaction ends (see [`Conn::for_update`]), so a change
/// committed meanwhile is seen whole or not at all.
pub(crate) async fn load(c: &mut Conn<'_>, id: i64) -> Result<Booking, StoreError> {
    let sql = format!(
        "SELECT internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name, status, created_at, updated_at, currency
         FROM hotel_booking WHERE id = $1 {}",
        c.for_update()
    );
    let head: BookingRow = c.query_one(&sql, &[&id]).await?;
    Ok(Booking {
        guests: load_guests(c, id).await?,
        services: load_services(c, id).await?,
        rooms: load_rooms(c, id).await?,
        comments: load_comments(c, id).await?,
        item_refs: load_item_refs(c, id).await?,
        internal_ref: head.internal_ref,
        client_ref: head.client_ref,
        owner: head.requestor_id,
        company: company(head.company_name, head.company_code, head.company_short_name),
        status: head.status,
        created: head.created_at,
        updated: head.updated_at,
        currency: head.currency,
    })
}
