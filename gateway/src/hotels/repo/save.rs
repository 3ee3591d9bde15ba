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
use crate::shared::register::{self, Claim};
use crate::store::{Conn, Scalar, Sequence, StoreError};

/// Deletes the booking with this Internal reference and everything it holds (its rooms sold
/// are the caller's to give back).
pub(crate) async fn delete_by_internal(c: &mut Conn<'_>, internal_ref: &str) -> Result<(), StoreError> {
    c.execute("DELETE FROM hotel_booking WHERE internal_ref = $1", &[&internal_ref]).await?;
    Ok(())
}

/// Stores a new booking (every room priced): the revision it took (see [`next_revision`]), or
/// `None` when its Internal reference is another booking's (nothing written). Its rows but the
/// first are written with the transaction's next statement ([`Conn::execute_later`]).
pub(crate) async fn insert(c: &mut Conn<'_>, b: &Booking) -> Result<Option<i64>, StoreError> {
    let (arrival, departure) =
        b.span().ok_or_else(|| StoreError::Data(format!("booking {} has no room stay", b.internal_ref)))?;
    let co = b.company.as_ref();
    let revision = next_revision(c).await?;
    let id: Option<Scalar<i64>> = c
        .query_opt(
            "INSERT INTO hotel_booking (internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name, status,
                                        created_at, updated_at, currency, total, arrival, departure, revision)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             ON CONFLICT (internal_ref) DO NOTHING RETURNING id",
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
    let Some(Scalar(id)) = id else {
        return Ok(None);
    };
    insert_children(c, id, b).await?;
    Ok(Some(revision))
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

/// Replaces a stored booking with `b`, unless it changed since `read_at` (its last update as
/// the client read it): then nothing is written and `None` returned; else the revision it took.
/// Its rows but the first are written with the transaction's next statement.
pub(crate) async fn update(
    c: &mut Conn<'_>,
    id: i64,
    b: &Booking,
    read_at: NaiveDateTime,
) -> Result<Option<i64>, StoreError> {
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
        return Ok(None);
    }
    for sql in [
        "DELETE FROM hotel_booking_room WHERE booking_id = $1",
        "DELETE FROM hotel_booking_comment WHERE booking_id = $1",
        "DELETE FROM hotel_booking_reference WHERE booking_id = $1",
        "DELETE FROM hotel_booking_service WHERE booking_id = $1",
        "DELETE FROM hotel_booking_guest WHERE booking_id = $1",
    ] {
        c.execute_later(sql, vec![Box::new(id)]).await?;
    }
    insert_children(c, id, b).await?;
    Ok(Some(revision))
}

/// Every child row of a booking (all its tables but `hotel_booking`), written with the
/// transaction's next statement.
async fn insert_children(c: &mut Conn<'_>, id: i64, b: &Booking) -> Result<(), StoreError> {
    for (pos, g) in b.guests.iter().enumerate() {
        c.execute_later(
            "INSERT INTO hotel_booking_guest (booking_id, rph, position, age_qualifying_code, birth_date, name_prefix, given_name, surname, age, surname_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            vec![
                Box::new(id),
                Box::new(signed(g.rph)?),
                Box::new(pos as i64),
                Box::new(g.age_code.clone()),
                Box::new(g.birth_date),
                Box::new(g.prefix.clone()),
                Box::new(g.given.clone()),
                Box::new(g.surname.clone()),
                Box::new(g.age.map(signed).transpose()?),
                Box::new(g.surname.as_deref().map(history::surname_key)),
            ],
        )
        .await?;
    }
    insert_services(c, id, b).await?;
    insert_rooms(c, id, b).await?;
    for (pos, cm) in b.comments.iter().enumerate() {
        c.execute_later(
            "INSERT INTO hotel_booking_comment (booking_id, position, name, originator) VALUES ($1, $2, $3, $4)",
            vec![Box::new(id), Box::new(pos as i64), Box::new(cm.name.clone()), Box::new(cm.originator.clone())],
        )
        .await?;
        for (tpos, t) in cm.texts.iter().enumerate() {
            c.execute_later(
                "INSERT INTO hotel_booking_comment_text (booking_id, comment_position, position, language, text) VALUES ($1, $2, $3, $4, $5)",
                vec![
                    Box::new(id),
                    Box::new(pos as i64),
                    Box::new(tpos as i64),
                    Box::new(t.language.clone()),
                    Box::new(t.text.clone()),
                ],
            )
            .await?;
        }
    }
    for (pos, r) in b.item_refs.iter().enumerate() {
        c.execute_later(
            "INSERT INTO hotel_booking_reference (booking_id, position, res_id_type, source_context, value, item_rph) VALUES ($1, $2, $3, $4, $5, $6)",
            vec![
                Box::new(id),
                Box::new(pos as i64),
                Box::new(r.res_id_type.clone()),
                Box::new(r.context.clone()),
                Box::new(r.value.clone()),
                Box::new(r.item_rph.map(signed).transpose()?),
            ],
        )
        .await?;
    }
    Ok(())
}

/// The rows of a booking's services: each service, its guests and its transfer legs' ends.
async fn insert_services(c: &mut Conn<'_>, id: i64, b: &Booking) -> Result<(), StoreError> {
    for (pos, s) in b.services.iter().enumerate() {
        let rph = signed(s.rph)?;
        c.execute_later(
            "INSERT INTO hotel_booking_service (booking_id, rph, position, inventory_code) VALUES ($1, $2, $3, $4)",
            vec![Box::new(id), Box::new(rph), Box::new(pos as i64), Box::new(s.code.clone())],
        )
        .await?;
        for (gpos, guest) in s.guests.iter().enumerate() {
            c.execute_later(
                "INSERT INTO hotel_booking_service_guest (booking_id, service_rph, position, guest_rph) VALUES ($1, $2, $3, $4)",
                vec![Box::new(id), Box::new(rph), Box::new(gpos as i64), Box::new(signed(*guest)?)],
            )
            .await?;
        }
        for (lpos, leg) in s.legs.iter().enumerate() {
            for (end_kind, point) in [("origin", &leg.origin), ("destination", &leg.destination)] {
                let (kind, hotel, t) = match point {
                    TransferPoint::Hotel(h) => ("hotel", Some(h.clone()), None),
                    TransferPoint::Transport(t) => ("transport", None, Some(t)),
                };
                c.execute_later(
                    "INSERT INTO hotel_booking_transfer_end (booking_id, service_rph, leg_position, end_kind, kind, hotel_code,
                        departure_at, arrival_at, departure_airport, arrival_airport, flight_number)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                    vec![
                        Box::new(id),
                        Box::new(rph),
                        Box::new(lpos as i64),
                        Box::new(end_kind.to_string()),
                        Box::new(kind.to_string()),
                        Box::new(hotel),
                        Box::new(t.and_then(|t| t.departure)),
                        Box::new(t.and_then(|t| t.arrival)),
                        Box::new(t.and_then(|t| t.departure_airport.clone())),
                        Box::new(t.and_then(|t| t.arrival_airport.clone())),
                        Box::new(t.and_then(|t| t.flight.clone())),
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
        c.execute_later(
            "INSERT INTO hotel_booking_room (booking_id, position, index_number, status, hotel_code, room_type_code, board_code,
                start_date, end_date, total, reference_id, reference_type, cancelled_at, cancel_penalty)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            vec![
                Box::new(id),
                Box::new(pos),
                Box::new(r.index.map(signed).transpose()?),
                Box::new(r.status.clone()),
                Box::new(r.hotel.clone()),
                Box::new(r.room_type.clone()),
                Box::new(r.board.clone()),
                Box::new(r.start),
                Box::new(r.end),
                Box::new(total),
                Box::new(r.reference.as_ref().and_then(|x| x.id.clone())),
                Box::new(r.reference.as_ref().and_then(|x| x.kind.clone())),
                Box::new(r.cancelled.map(|x| x.at)),
                Box::new(r.cancelled.map(|x| x.penalty)),
            ],
        )
        .await?;
        for (ppos, p) in r.penalties.iter().enumerate() {
            c.execute_later(
                "INSERT INTO hotel_booking_room_penalty (booking_id, room_position, position, deadline, percent) VALUES ($1, $2, $3, $4, $5)",
                vec![Box::new(id), Box::new(pos), Box::new(ppos as i64), Box::new(p.deadline), Box::new(p.percent)],
            )
            .await?;
        }
        for (gpos, guest) in r.guests.iter().enumerate() {
            c.execute_later(
                "INSERT INTO hotel_booking_room_guest (booking_id, room_position, position, guest_rph) VALUES ($1, $2, $3, $4)",
                vec![Box::new(id), Box::new(pos), Box::new(gpos as i64), Box::new(signed(*guest)?)],
            )
            .await?;
        }
        for (spos, service) in r.services.iter().enumerate() {
            c.execute_later(
                "INSERT INTO hotel_booking_room_service (booking_id, room_position, position, service_rph) VALUES ($1, $2, $3, $4)",
                vec![Box::new(id), Box::new(pos), Box::new(spos as i64), Box::new(signed(*service)?)],
            )
            .await?;
        }
        for (spos, s) in r.sources.iter().enumerate() {
            let co = s.company.as_ref();
            c.execute_later(
                "INSERT INTO hotel_booking_room_source (booking_id, room_position, position, type, id, id_context, instance,
                    company_name, company_code, company_short_name)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                vec![
                    Box::new(id),
                    Box::new(pos),
                    Box::new(spos as i64),
                    Box::new(s.kind.clone()),
                    Box::new(s.id.clone()),
                    Box::new(s.id_context.clone()),
                    Box::new(s.instance.clone()),
                    Box::new(co.map(|c| c.name.clone())),
                    Box::new(co.and_then(|c| c.code.clone())),
                    Box::new(co.and_then(|c| c.short_name.clone())),
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
/// written: each with the booking's `revision` now (as [`insert`] or [`update`] gave it), and
/// its version (last update) `b.updated`.
pub(crate) async fn record_events(
    c: &mut Conn<'_>,
    b: &Booking,
    revision: i64,
    events: &[(String, EventKind)],
) -> Result<(), StoreError> {
    let version = b.updated.and_utc().timestamp_millis();
    for (hotel, kind) in events {
        events::record(c, Kind::Hotel, &b.internal_ref, hotel, *kind, Some(revision), version).await?;
    }
    Ok(())
}
