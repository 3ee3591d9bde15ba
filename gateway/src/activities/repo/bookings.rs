//! Activity bookings: a Commit (once per Client reference, never beyond the places), finding
//! one by reference, lists by date, loading and cancelling.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use rust_decimal::Decimal;

use crate::activities::booking::{Booking, Participant, Pickup};
use crate::shared::booking::{BookingHead, Kind, ListDate};
use crate::shared::cancellation::{Cancellation, Penalty};
use crate::shared::events::{self, EventKind};
use crate::shared::history;
use crate::shared::policy_repo::PenaltyRow;
use crate::shared::reference;
use crate::shared::register::{self, Claim};
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

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

/// Claims the Client reference of a new booking, in the caller's write transaction: `None`
/// when it is now this booking's, else the booking already made with it (a repeated Commit).
/// A concurrent Commit with the same reference waits here for this transaction.
pub(crate) async fn claim(c: &mut Conn<'_>, requestor: &str, client_ref: &str) -> Result<Option<Booking>, CommitError> {
    c.lock_catalogue(false).await?;
    match register::claim(c, requestor, client_ref, Kind::Activity).await? {
        Claim::Claimed => Ok(None),
        Claim::Taken(Kind::Hotel) => Err(CommitError::ReferenceTaken),
        Claim::Taken(Kind::Activity) => Ok(find(c, requestor, client_ref).await?),
    }
}

/// An Internal reference no activity booking has (see [`reference::free`]).
pub(crate) async fn free_reference(c: &mut Conn<'_>) -> Result<String, StoreError> {
    reference::free(c, "ACT", "SELECT id FROM activity_booking WHERE reference = $1").await
}

/// Stores a new booking under `reference`, with its participants and pickup; gives its row id.
pub(crate) async fn insert(
    c: &mut Conn<'_>,
    requestor: &str,
    b: &Booking,
    reference: &str,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let key = b.service_key();
    let client_ref = b.client_reference.clone().unwrap_or_default();
    let Scalar(id): Scalar<i64> = c
        .query_one(
            "INSERT INTO activity_booking (reference, client_reference, requestor_id, activity_id, product_code, service_code,
                                           service_date, start_at, end_at, status, total, currency, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'Reserved', $10, $11, $12, $12)
             RETURNING id",
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
    // The child rows travel with the transaction's next statement ([`Conn::execute_later`]).
    for (position, p) in b.participants.iter().enumerate() {
        c.execute_later(
            "INSERT INTO activity_booking_participant (booking_id, participant_id, position, category, age, name_prefix, given_name, surname, amount, surname_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            vec![
                Box::new(id),
                Box::new(p.participant_id),
                Box::new(position as i64),
                Box::new(p.category.clone()),
                Box::new(p.age),
                Box::new(p.name_prefix.clone()),
                Box::new(p.given_name.clone()),
                Box::new(p.surname.clone()),
                Box::new(p.amount),
                Box::new(p.surname.as_deref().map(history::surname_key)),
            ],
        )
        .await?;
    }
    if let Some(pk) = &b.pickup {
        c.execute_later(
            "INSERT INTO activity_booking_pickup (booking_id, date_time, location_name, pickup_ind) VALUES ($1, $2, $3, $4)",
            vec![Box::new(id), Box::new(pk.date_time), Box::new(pk.location_name.clone()), Box::new(pk.pickup_ind)],
        )
        .await?;
    }
    Ok(id)
}

/// Fixes the penalties of a booking's cancellation policy into it (written with the
/// transaction's next statement).
pub(crate) async fn insert_penalties(c: &mut Conn<'_>, id: i64, penalties: &[Penalty]) -> Result<(), StoreError> {
    for (position, p) in penalties.iter().enumerate() {
        c.execute_later(
            "INSERT INTO activity_booking_penalty (booking_id, position, deadline, percent) VALUES ($1, $2, $3, $4)",
            vec![Box::new(id), Box::new(position as i64), Box::new(p.deadline), Box::new(p.percent)],
        )
        .await?;
    }
    Ok(())
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
pub(crate) async fn find_stored(
    c: &mut Conn<'_>,
    requestor: &str,
    reference: &str,
    internal: bool,
) -> Result<Option<Stored>, StoreError> {
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
    let state: StateRow = c
        .query_one(
            "SELECT cancelled_at, cancel_penalty, created_at, updated_at FROM activity_booking WHERE id = $1",
            &[&id],
        )
        .await?;
    let penalties: Vec<PenaltyRow> =
        c.query("SELECT CAST(0 AS BIGINT) AS item, deadline, percent FROM activity_booking_penalty WHERE booking_id = $1 ORDER BY position", &[&id]).await?;
    let cancelled = match (state.cancelled_at, state.cancel_penalty) {
        (Some(at), penalty) => Some(Cancellation { at, penalty: penalty.unwrap_or_default() }),
        (None, _) => None,
    };
    let Some(booking) = load_booking(c, row).await? else { return Ok(None) };
    Ok(Some(Stored {
        id,
        booking,
        penalties: penalties.iter().map(PenaltyRow::penalty).collect(),
        cancelled,
        created: state.created_at,
        updated: state.updated_at,
    }))
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
pub(crate) async fn list(
    c: &mut Conn<'_>,
    owner: &str,
    by: ListDate,
    start: NaiveDate,
    end: NaiveDate,
    status: Option<&str>,
) -> Result<Vec<ActivityHeadRow>, StoreError> {
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
pub(crate) async fn find_by_reference(
    c: &mut Conn<'_>,
    owner: &str,
    reference: &str,
    by_client: bool,
    by_internal: bool,
) -> Result<Option<Stored>, StoreError> {
    for (on, internal) in [(by_client, false), (by_internal, true)] {
        if on && let Some(s) = find_stored(c, owner, reference, internal).await? {
            return Ok(Some(s));
        }
    }
    Ok(None)
}

/// Cancels a booking and gives its places back, in the caller's write transaction; `false`
/// (and nothing written) when it was cancelled already.
pub(crate) async fn cancel(
    c: &mut Conn<'_>,
    s: &Stored,
    cancellation: Cancellation,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
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
    if let (Some(pk), Some(reference)) = (&b.pickup, &b.reference) {
        events::record(
            c,
            Kind::Activity,
            reference,
            &pk.location_name,
            EventKind::Cancelled,
            None,
            now.timestamp_millis(),
        )
        .await?;
    }
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
    let pickup: Option<PickupRow> = c
        .query_opt(
            "SELECT date_time, location_name, pickup_ind FROM activity_booking_pickup WHERE booking_id = $1",
            &[&row.id],
        )
        .await?;
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
        pickup: pickup.map(|p| Pickup {
            date_time: p.date_time,
            location_name: p.location_name,
            pickup_ind: p.pickup_ind,
        }),
    }))
}
