//! Saving a booking: a new one (Commit, once per Client reference), a changed one (only when
//! unchanged since it was read), always whole.

use super::find::Lookup;
use super::find::find;
use super::find::load;
use super::rooms::InventoryError;
use chrono::NaiveDateTime;

use super::signed;
use crate::hotels::booking::{Booking, TransferPoint};
use crate::shared::booking::Kind;
use crate::shared::events::{self, EventKind};
use crate::shared::history::{self, By, Change, State};
use crate::shared::reference;
use crate::shared::register::{self, Claim};
use crate::store::{Conn, Scalar, Sequence, StoreError};

/// Deletes the booking with this Internal reference and everything it holds (its rooms sold
/// are the caller's to give back).
pub(crate) async fn delete_by_internal(c: &mut Conn<'_>, internal_ref: &str) -> Result<(), StoreError> {
    c.execute("DELETE FROM hotel_booking WHERE internal_ref = $1", &[&internal_ref]).await?;
    Ok(())
}

/// Stores a new booking (every room priced); gives its row id.
pub(crate) async fn insert(c: &mut Conn<'_>, b: &Booking) -> Result<i64, StoreError> {
    let (arrival, departure) =
        b.span().ok_or_else(|| StoreError::Data(format!("booking {} has no room stay", b.internal_ref)))?;
    let co = b.company.as_ref();
    let revision = next_revision(c).await?;
    let Scalar(id): Scalar<i64> = c
        .query_one(
            "INSERT INTO hotel_booking (internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name, status,
                                        created_at, updated_at, currency, total, arrival, departure, revision)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
            &[
                &b.internal_ref,
                &b.client_ref,
                &b.owner,
                &co.map(|c| c.name.clone()),
                &co.and_then(|c| c.code.clone()),
                &co.and_then(|c| c.short_name.clone()),
                &b.status,
                &b.created,
                &b.updated,
                &b.currency,
                &b.total(),
                &arrival,
                &departure,
                &revision,
            ],
        )
        .await?;
    insert_children(c, id, b).await?;
    Ok(id)
}

/// Why a hotel Commit stored nothing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommitError {
    /// The Client reference names an activity booking of the requestor.
    #[error("the Client reference names an activity booking")]
    ReferenceTaken,
    /// The rooms are not left.
    #[error(transparent)]
    Inventory(#[from] InventoryError),
}

impl From<StoreError> for CommitError {
    fn from(e: StoreError) -> Self {
        CommitError::Inventory(InventoryError::Store(e))
    }
}

/// Claims the Client reference of a new booking, in the caller's write transaction: `None`
/// when it is now this booking's, else the booking already made with it (a repeated Commit).
/// A concurrent Commit with the same reference waits here for this transaction.
pub(crate) async fn claim(c: &mut Conn<'_>, b: &Booking) -> Result<Option<Booking>, CommitError> {
    c.lock_catalogue(false).await?;
    // The Client reference is claimed first: a concurrent Commit with the same one waits here
    // for this transaction and then finds the booking.
    match register::claim(c, &b.owner, &b.client_ref, Kind::Hotel).await? {
        Claim::Claimed => Ok(None),
        Claim::Taken(Kind::Activity) => Err(CommitError::ReferenceTaken),
        Claim::Taken(Kind::Hotel) => {
            if let Lookup::Found(at) = find(c, &b.owner, Some(&b.client_ref), None).await? {
                return Ok(Some(load(c, at.id).await?));
            }
            Err(StoreError::Data(format!(
                "Client reference {:?} of {:?} is registered without its hotel booking",
                b.client_ref, b.owner
            ))
            .into())
        }
    }
}

/// An Internal reference no hotel booking has (see [`reference::free`]).
pub(crate) async fn free_reference(c: &mut Conn<'_>) -> Result<String, StoreError> {
    reference::free(c, "HTL", "SELECT id FROM hotel_booking WHERE internal_ref = $1").await
}

/// Replaces a stored booking with `b`, unless it changed since `read_at` (its last update as
/// the client read it): then nothing is written and `false` returned.
pub(crate) async fn update(c: &mut Conn<'_>, id: i64, b: &Booking, read_at: NaiveDateTime) -> Result<bool, StoreError> {
    let (arrival, departure) =
        b.span().ok_or_else(|| StoreError::Data(format!("booking {} has no room stay", b.internal_ref)))?;
    let revision = next_revision(c).await?;
    let changed = c
        .execute(
            "UPDATE hotel_booking SET status = $3, updated_at = $4, total = $5, arrival = $6, departure = $7, revision = $8
             WHERE id = $1 AND updated_at = $2",
            &[&id, &read_at, &b.status, &b.updated, &b.total(), &arrival, &departure, &revision],
        )
        .await?;
    if changed == 0 {
        return Ok(false);
    }
    for sql in [
        "DELETE FROM hotel_booking_room WHERE booking_id = $1",
        "DELETE FROM hotel_booking_comment WHERE booking_id = $1",
        "DELETE FROM hotel_booking_reference WHERE booking_id = $1",
        "DELETE FROM hotel_booking_service WHERE booking_id = $1",
        "DELETE FROM hotel_booking_guest WHERE booking_id = $1",
    ] {
        c.execute(sql, &[&id]).await?;
    }
    insert_children(c, id, b).await?;
    Ok(true)
}

/// Every child row of a booking (all its tables but `hotel_booking`).
async fn insert_children(c: &mut Conn<'_>, id: i64, b: &Booking) -> Result<(), StoreError> {
    for (pos, g) in b.guests.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_booking_guest (booking_id, rph, position, age_qualifying_code, birth_date, name_prefix, given_name, surname, age, surname_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &[
                &id,
                &signed(g.rph)?,
                &(pos as i64),
                &g.age_code,
                &g.birth_date,
                &g.prefix,
                &g.given,
                &g.surname,
                &g.age.map(signed).transpose()?,
                &g.surname.as_deref().map(history::surname_key),
            ],
        )
        .await?;
    }
    insert_services(c, id, b).await?;
    insert_rooms(c, id, b).await?;
    for (pos, cm) in b.comments.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_booking_comment (booking_id, position, name, originator) VALUES ($1, $2, $3, $4)",
            &[&id, &(pos as i64), &cm.name, &cm.originator],
        )
        .await?;
        for (tpos, t) in cm.texts.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_comment_text (booking_id, comment_position, position, language, text) VALUES ($1, $2, $3, $4, $5)",
                &[&id, &(pos as i64), &(tpos as i64), &t.language, &t.text],
            )
            .await?;
        }
    }
    for (pos, r) in b.item_refs.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_booking_reference (booking_id, position, res_id_type, source_context, value, item_rph) VALUES ($1, $2, $3, $4, $5, $6)",
            &[&id, &(pos as i64), &r.res_id_type, &r.context, &r.value, &r.item_rph.map(signed).transpose()?],
        )
        .await?;
    }
    Ok(())
}

/// The rows of a booking's services: each service, its guests and its transfer legs' ends.
async fn insert_services(c: &mut Conn<'_>, id: i64, b: &Booking) -> Result<(), StoreError> {
    for (pos, s) in b.services.iter().enumerate() {
        let rph = signed(s.rph)?;
        c.execute(
            "INSERT INTO hotel_booking_service (booking_id, rph, position, inventory_code) VALUES ($1, $2, $3, $4)",
            &[&id, &rph, &(pos as i64), &s.code],
        )
        .await?;
        for (gpos, guest) in s.guests.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_service_guest (booking_id, service_rph, position, guest_rph) VALUES ($1, $2, $3, $4)",
                &[&id, &rph, &(gpos as i64), &signed(*guest)?],
            )
            .await?;
        }
        for (lpos, leg) in s.legs.iter().enumerate() {
            for (end_kind, point) in [("origin", &leg.origin), ("destination", &leg.destination)] {
                let (kind, hotel, t) = match point {
                    TransferPoint::Hotel(h) => ("hotel", Some(h.clone()), None),
                    TransferPoint::Transport(t) => ("transport", None, Some(t)),
                };
                c.execute(
                    "INSERT INTO hotel_booking_transfer_end (booking_id, service_rph, leg_position, end_kind, kind, hotel_code,
                        departure_at, arrival_at, departure_airport, arrival_airport, flight_number)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                    &[
                        &id,
                        &rph,
                        &(lpos as i64),
                        &end_kind,
                        &kind,
                        &hotel,
                        &t.and_then(|t| t.departure),
                        &t.and_then(|t| t.arrival),
                        &t.and_then(|t| t.departure_airport.clone()),
                        &t.and_then(|t| t.arrival_airport.clone()),
                        &t.and_then(|t| t.flight.clone()),
                    ],
                )
                .await?;
            }
        }
    }
    Ok(())
}

/// The rows of a booking's room stays: each room, its penalties, guests, services and sources.
async fn insert_rooms(c: &mut Conn<'_>, id: i64, b: &Booking) -> Result<(), StoreError> {
    for (pos, r) in b.rooms.iter().enumerate() {
        let pos = pos as i64;
        let total = r.total.ok_or_else(|| {
            StoreError::Data(format!("booking {}: room stay {} is not priced", b.internal_ref, pos + 1))
        })?;
        c.execute(
            "INSERT INTO hotel_booking_room (booking_id, position, index_number, status, hotel_code, room_type_code, board_code,
                start_date, end_date, total, reference_id, reference_type, cancelled_at, cancel_penalty)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            &[
                &id,
                &pos,
                &r.index.map(signed).transpose()?,
                &r.status,
                &r.hotel,
                &r.room_type,
                &r.board,
                &r.start,
                &r.end,
                &total,
                &r.reference.as_ref().and_then(|x| x.id.clone()),
                &r.reference.as_ref().and_then(|x| x.kind.clone()),
                &r.cancelled.map(|x| x.at),
                &r.cancelled.map(|x| x.penalty),
            ],
        )
        .await?;
        for (ppos, p) in r.penalties.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_room_penalty (booking_id, room_position, position, deadline, percent) VALUES ($1, $2, $3, $4, $5)",
                &[&id, &pos, &(ppos as i64), &p.deadline, &p.percent],
            )
            .await?;
        }
        for (gpos, guest) in r.guests.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_room_guest (booking_id, room_position, position, guest_rph) VALUES ($1, $2, $3, $4)",
                &[&id, &pos, &(gpos as i64), &signed(*guest)?],
            )
            .await?;
        }
        for (spos, service) in r.services.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_room_service (booking_id, room_position, position, service_rph) VALUES ($1, $2, $3, $4)",
                &[&id, &pos, &(spos as i64), &signed(*service)?],
            )
            .await?;
        }
        for (spos, s) in r.sources.iter().enumerate() {
            let co = s.company.as_ref();
            c.execute(
                "INSERT INTO hotel_booking_room_source (booking_id, room_position, position, type, id, id_context, instance,
                    company_name, company_code, company_short_name)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[
                    &id,
                    &pos,
                    &(spos as i64),
                    &s.kind,
                    &s.id,
                    &s.id_context,
                    &s.instance,
                    &co.map(|c| c.name.clone()),
                    &co.and_then(|c| c.code.clone()),
                    &co.and_then(|c| c.short_name.clone()),
                ],
            )
            .await?;
        }
    }
    Ok(())
}

/// A revision never given before: every write of a booking takes one.
async fn next_revision(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    c.next_in(Sequence::HotelBookingRevision).await
}

/// Records a change of the stored booking `b` in its history (see [`crate::shared::history`]),
/// in the caller's write transaction: by `by`, at the booking's last update.
pub(crate) async fn record_change(c: &mut Conn<'_>, b: &Booking, change: Change, by: By<'_>) -> Result<(), StoreError> {
    let state = State { status: &b.status, total: b.total(), currency: &b.currency };
    history::record(c, Kind::Hotel, &b.internal_ref, change, by, b.updated.and_utc(), state).await
}

/// Records the outbox events of a change of the stored booking `b` (see
/// [`crate::shared::events`]), in the caller's write transaction, after the booking's row was
/// written: each with the booking's revision now, and its version (last update) `b.updated`.
pub(crate) async fn record_events(
    c: &mut Conn<'_>,
    b: &Booking,
    events: &[(String, EventKind)],
) -> Result<(), StoreError> {
    if events.is_empty() {
        return Ok(());
    }
    let internal_ref = &b.internal_ref;
    let Scalar(revision): Scalar<i64> =
        c.query_one("SELECT revision FROM hotel_booking WHERE internal_ref = $1", &[internal_ref]).await?;
    let version = b.updated.and_utc().timestamp_millis();
    for (hotel, kind) in events {
        events::record(c, Kind::Hotel, internal_ref, hotel, *kind, Some(revision), version).await?;
    }
    Ok(())
}
