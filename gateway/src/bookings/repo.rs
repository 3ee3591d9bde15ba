//! The SQL of finding any booking (`ota-gateway bookings search|show`, the console's booking
//! pages): the heads of either kind's bookings that a [`Select`] names, one page in its order;
//! a booking's items, guests, history, transaction-log entries and outbox events.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use rust_decimal::Decimal;

use crate::shared::booking::Kind;
use crate::store::row;
use crate::store::{Conn, Param, StoreError};

/// A point of the search order: the value of the sorted column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    /// A creation time.
    Instant(DateTime<Utc>),
    /// An arrival (service) date.
    Date(NaiveDate),
}

/// What a search asks of one kind's bookings, every value checked.
#[derive(Debug, Clone, Default)]
pub struct Select {
    /// Only this requestor's.
    pub partner: Option<String>,
    /// Only hotel bookings with a room at this hotel.
    pub hotel: Option<String>,
    /// Only hotel bookings with a room at a hotel of this supplier (`supplier_hotel`); the
    /// hotel a head shows is then the first of its rooms at one of them.
    pub supplier: Option<String>,
    /// Only bookings of this activity.
    pub activity: Option<String>,
    /// Only the booking with this Internal or Client reference.
    pub reference: Option<String>,
    /// Only bookings with a guest whose surname key is at least the first and, when given,
    /// below the second (a prefix as a range).
    pub surname: Option<(String, Option<String>)>,
    /// Only bookings made at or after this instant.
    pub created_from: Option<DateTime<Utc>>,
    /// Only bookings made before this instant.
    pub created_before: Option<DateTime<Utc>>,
    /// Only bookings arriving (served) on or after this date.
    pub arrival_from: Option<NaiveDate>,
    /// Only bookings arriving (served) on or before this date.
    pub arrival_to: Option<NaiveDate>,
    /// Only bookings in this status.
    pub status: Option<String>,
    /// Sorted by arrival (service date), else by creation.
    pub by_arrival: bool,
    /// Sorted from the highest value down.
    pub descending: bool,
    /// Only past this point of the order: its value, the kind's rank (hotel 0, activity 1)
    /// and the row id.
    pub after: Option<(Key, u8, i64)>,
    /// At most this many.
    pub limit: i64,
}

/// A booking's head as a search lists it (both kinds).
#[derive(Debug, Clone)]
pub struct Head {
    /// Hotel or activity.
    pub kind: Kind,
    /// Its row id (in its kind's table).
    pub id: i64,
    /// The Internal reference.
    pub internal_ref: String,
    /// The partner's (Client) reference.
    pub client_ref: String,
    /// The requestor that owns it.
    pub partner: String,
    /// The hotel of its first room stay (a hotel booking).
    pub hotel: Option<String>,
    /// The activity (an activity booking).
    pub activity: Option<String>,
    /// The lead guest's given name.
    pub given_name: Option<String>,
    /// The lead guest's surname.
    pub surname: Option<String>,
    /// The arrival, or the service date.
    pub arrival: NaiveDate,
    /// The departure (a hotel booking).
    pub departure: Option<NaiveDate>,
    /// Its status.
    pub status: String,
    /// Its total.
    pub total: Decimal,
    /// The total's currency.
    pub currency: String,
    /// When it was made.
    pub created: DateTime<Utc>,
    /// When it last changed.
    pub modified: DateTime<Utc>,
}

impl Head {
    /// Its point in the order of `s`.
    pub fn key(&self, by_arrival: bool) -> Key {
        if by_arrival { Key::Date(self.arrival) } else { Key::Instant(self.created) }
    }
}

/// A statement being written: its text and its parameters, numbered as they are bound.
struct Sql<'p> {
    text: String,
    params: Vec<&'p dyn Param>,
}

impl<'p> Sql<'p> {
    /// Binds a value: its placeholder.
    fn bind(&mut self, p: &'p dyn Param) -> String {
        self.params.push(p);
        format!("${}", self.params.len())
    }
}

row! {
    struct HotelHead {
        id: i64, internal_ref: String, client_ref: String, partner: String, hotel: Option<String>, given_name: Option<String>,
        surname: Option<String>, arrival: NaiveDate, departure: NaiveDate, status: String, total: Decimal, currency: String,
        created: NaiveDateTime, modified: NaiveDateTime,
    }
}

row! {
    struct ActivityHead {
        id: i64, internal_ref: String, client_ref: String, partner: String, activity: String, given_name: Option<String>,
        surname: Option<String>, arrival: NaiveDate, status: String, total: Decimal, currency: String,
        created: DateTime<Utc>, modified: DateTime<Utc>,
    }
}

/// Where a page starts for the kind ranked `rank`: past the cursor's value (as an instant, as
/// the naive UTC time hotel bookings keep, or as a date) and, on a tie of the value, past the id
/// it gives. A kind ranked after the cursor's comes after it ascending (`id > MIN`: all its
/// rows) and before it descending (`id < MIN`: none); a kind ranked before the cursor's, the
/// opposite (`MAX`).
fn past(after: Option<(Key, u8, i64)>, rank: u8) -> Past {
    let Some((key, at_rank, id)) = after else { return Past::default() };
    let id = Some(match at_rank.cmp(&rank) {
        std::cmp::Ordering::Equal => id,
        std::cmp::Ordering::Less => i64::MIN,
        std::cmp::Ordering::Greater => i64::MAX,
    });
    match key {
        Key::Instant(t) => Past { instant: Some(t), naive: Some(t.naive_utc()), date: None, id },
        Key::Date(d) => Past { instant: None, naive: None, date: Some(d), id },
    }
}

/// See [`past`]: each value in the type a kind's column has.
#[derive(Default)]
struct Past {
    instant: Option<DateTime<Utc>>,
    naive: Option<NaiveDateTime>,
    date: Option<NaiveDate>,
    id: Option<i64>,
}

/// The conditions on whose booking it is: partner, reference (either), hotel or activity, the
/// first guest's surname (a range of `surname_col` in the `guests` table).
fn whose<'p>(
    q: &mut Sql<'p>,
    s: &'p Select,
    kind: Kind,
    (internal, client): (&str, &str),
    (guests, surname_col): (&str, &str),
) {
    if let Some(v) = &s.partner {
        let p = q.bind(v);
        q.text.push_str(&format!(" AND b.requestor_id = {p}"));
    }
    if let Some(v) = &s.reference {
        let p = q.bind(v);
        q.text.push_str(&format!(" AND ({internal} = {p} OR {client} = {p})"));
    }
    if let Some(v) = &s.hotel {
        let p = q.bind(v);
        match kind {
            Kind::Hotel => q
                .text
                .push_str(&format!(" AND b.id IN (SELECT booking_id FROM hotel_booking_room WHERE hotel_code = {p})")),
            Kind::Activity => q.text.push_str(" AND 1 = 0"),
        }
    }
    if let Some(v) = &s.activity {
        let p = q.bind(v);
        match kind {
            Kind::Hotel => q.text.push_str(" AND 1 = 0"),
            Kind::Activity => q.text.push_str(&format!(" AND b.activity_id = {p}")),
        }
    }
    if let Some((from, below)) = &s.surname {
        let p = q.bind(from);
        let mut range = format!("{surname_col} >= {p}");
        if let Some(below) = below {
            let p = q.bind(below);
            range.push_str(&format!(" AND {surname_col} < {p}"));
        }
        q.text.push_str(&format!(" AND b.id IN (SELECT booking_id FROM {guests} WHERE {range})"));
    }
}

/// The heads of `kind`'s bookings that `s` names, in its order, at most `s.limit`.
pub async fn heads(c: &mut Conn<'_>, kind: Kind, s: &Select) -> Result<Vec<Head>, StoreError> {
    let rank = rank(kind);
    // Every value bound below lives here, in the type its kind's columns have.
    let created_from_naive = s.created_from.map(|t| t.naive_utc());
    let created_before_naive = s.created_before.map(|t| t.naive_utc());
    let after = past(s.after, rank);
    let mut q = Sql { text: String::new(), params: Vec::new() };
    // With a supplier, the hotel shown is the first of the booking's rooms at its hotels.
    let supplier_hotels = match (&s.supplier, kind) {
        (Some(v), Kind::Hotel) => {
            let p = q.bind(v);
            format!("hotel_code IN (SELECT hotel_code FROM supplier_hotel WHERE requestor_id = {p})")
        }
        _ => String::new(),
    };
    let hotel_select = format!(
        "SELECT b.id, b.internal_ref, b.client_ref, b.requestor_id,
                (SELECT r.hotel_code FROM hotel_booking_room r WHERE r.booking_id = b.id{} ORDER BY r.position LIMIT 1),
                g.given_name, g.surname, b.arrival, b.departure, b.status, b.total, b.currency, b.created_at, b.updated_at
         FROM hotel_booking b LEFT JOIN hotel_booking_guest g ON g.booking_id = b.id AND g.position = 0",
        if supplier_hotels.is_empty() { String::new() } else { format!(" AND r.{supplier_hotels}") }
    );
    let (select, guests, surname_col, created, arrival, internal, client) = match kind {
        Kind::Hotel => (
            hotel_select.as_str(),
            "hotel_booking_guest",
            "surname_key",
            "b.created_at",
            "b.arrival",
            "b.internal_ref",
            "b.client_ref",
        ),
        Kind::Activity => (
            "SELECT b.id, b.reference, b.client_reference, b.requestor_id, b.activity_id,
                    g.given_name, g.surname, b.service_date, b.status, b.total, b.currency, b.created_at, b.updated_at
             FROM activity_booking b LEFT JOIN activity_booking_participant g ON g.booking_id = b.id AND g.position = 0",
            "activity_booking_participant",
            "surname_key",
            "b.created_at",
            "b.service_date",
            "b.reference",
            "b.client_reference",
        ),
    };
    q.text = format!("{select} WHERE 1 = 1");
    match kind {
        Kind::Hotel if !supplier_hotels.is_empty() => q
            .text
            .push_str(&format!(" AND b.id IN (SELECT booking_id FROM hotel_booking_room WHERE {supplier_hotels})")),
        Kind::Activity if s.supplier.is_some() => q.text.push_str(" AND 1 = 0"),
        _ => {}
    }
    whose(&mut q, s, kind, (internal, client), (guests, surname_col));
    let created_bounds: [(&str, Option<&'_ dyn Param>); 2] = match kind {
        Kind::Hotel => [
            (">=", created_from_naive.as_ref().map(|v| v as &dyn Param)),
            ("<", created_before_naive.as_ref().map(|v| v as &dyn Param)),
        ],
        Kind::Activity => [
            (">=", s.created_from.as_ref().map(|v| v as &dyn Param)),
            ("<", s.created_before.as_ref().map(|v| v as &dyn Param)),
        ],
    };
    for (op, v) in created_bounds {
        if let Some(v) = v {
            let p = q.bind(v);
            q.text.push_str(&format!(" AND {created} {op} {p}"));
        }
    }
    if let Some(v) = &s.arrival_from {
        let p = q.bind(v);
        q.text.push_str(&format!(" AND {arrival} >= {p}"));
    }
    if let Some(v) = &s.arrival_to {
        let p = q.bind(v);
        q.text.push_str(&format!(" AND {arrival} <= {p}"));
    }
    if let Some(v) = &s.status {
        let p = q.bind(v);
        q.text.push_str(&format!(" AND b.status = {p}"));
    }
    let column = if s.by_arrival { arrival } else { created };
    let (cmp, dir) = if s.descending { ("<", "DESC") } else { (">", "ASC") };
    if let Some(id) = &after.id {
        let value: Option<&dyn Param> = match (kind, &after.instant, &after.naive, &after.date) {
            (_, _, _, Some(d)) => Some(d),
            (Kind::Hotel, _, Some(t), _) => Some(t),
            (Kind::Activity, Some(t), _, _) => Some(t),
            _ => None,
        };
        if let Some(value) = value {
            let v = q.bind(value);
            let i = q.bind(id);
            q.text.push_str(&format!(" AND ({column} {cmp} {v} OR ({column} = {v} AND b.id {cmp} {i}))"));
        }
    }
    let limit = q.bind(&s.limit);
    q.text.push_str(&format!(" ORDER BY {column} {dir}, b.id {dir} LIMIT {limit}"));
    Ok(match kind {
        Kind::Hotel => c.query::<HotelHead>(&q.text, &q.params).await?.into_iter().map(HotelHead::head).collect(),
        Kind::Activity => {
            c.query::<ActivityHead>(&q.text, &q.params).await?.into_iter().map(ActivityHead::head).collect()
        }
    })
}

impl HotelHead {
    fn head(self) -> Head {
        let r = self;
        Head {
            kind: Kind::Hotel,
            id: r.id,
            internal_ref: r.internal_ref,
            client_ref: r.client_ref,
            partner: r.partner,
            hotel: r.hotel,
            activity: None,
            given_name: r.given_name,
            surname: r.surname,
            arrival: r.arrival,
            departure: Some(r.departure),
            status: r.status,
            total: r.total,
            currency: r.currency,
            created: r.created.and_utc(),
            modified: r.modified.and_utc(),
        }
    }
}

impl ActivityHead {
    fn head(self) -> Head {
        let r = self;
        Head {
            kind: Kind::Activity,
            id: r.id,
            internal_ref: r.internal_ref,
            client_ref: r.client_ref,
            partner: r.partner,
            hotel: None,
            activity: Some(r.activity),
            given_name: r.given_name,
            surname: r.surname,
            arrival: r.arrival,
            departure: None,
            status: r.status,
            total: r.total,
            currency: r.currency,
            created: r.created,
            modified: r.modified,
        }
    }
}

/// A kind's place among equal values of the order: hotel bookings first.
pub fn rank(kind: Kind) -> u8 {
    match kind {
        Kind::Hotel => 0,
        Kind::Activity => 1,
    }
}

row! {
    /// A room stay of a hotel booking, as stored.
    pub struct RoomRow {
        /// The hotel.
        hotel_code: String,
        /// The room type.
        room_type: String,
        /// The board.
        board: String,
        /// The first night.
        start: NaiveDate,
        /// The departure.
        end: NaiveDate,
        /// The price of the stay.
        total: Decimal,
        /// Its status (`Cancelled` when cancelled).
        status: Option<String>,
        /// When it was cancelled (the hotel's local time).
        cancelled_at: Option<NaiveDateTime>,
        /// What cancelling it cost.
        cancel_penalty: Option<Decimal>,
    }
}

/// The room stays of a hotel booking, in order.
pub async fn rooms(c: &mut Conn<'_>, id: i64) -> Result<Vec<RoomRow>, StoreError> {
    c.query(
        "SELECT hotel_code, room_type_code, board_code, start_date, end_date, total, status, cancelled_at, cancel_penalty
         FROM hotel_booking_room WHERE booking_id = $1 ORDER BY position",
        &[&id],
    )
    .await
}

row! {
    /// A guest (participant) of a booking, as stored.
    pub struct GuestRow {
        /// Its age qualifying code (a hotel guest) or category (a participant).
        category: String,
        /// Its age.
        age: Option<i64>,
        /// Its name prefix.
        name_prefix: Option<String>,
        /// Its given name.
        given_name: Option<String>,
        /// Its surname.
        surname: Option<String>,
        /// Its price (a participant).
        amount: Option<Decimal>,
    }
}

/// The guests of a hotel booking, in order.
pub async fn hotel_guests(c: &mut Conn<'_>, id: i64) -> Result<Vec<GuestRow>, StoreError> {
    c.query(
        "SELECT age_qualifying_code, age, name_prefix, given_name, surname, NULL
         FROM hotel_booking_guest WHERE booking_id = $1 ORDER BY position",
        &[&id],
    )
    .await
}

/// The participants of an activity booking, in order.
pub async fn participants(c: &mut Conn<'_>, id: i64) -> Result<Vec<GuestRow>, StoreError> {
    c.query(
        "SELECT category, age, name_prefix, given_name, surname, amount
         FROM activity_booking_participant WHERE booking_id = $1 ORDER BY position",
        &[&id],
    )
    .await
}

row! {
    /// What an activity booking books, as stored.
    pub struct ServiceRow {
        /// The product.
        product_code: String,
        /// The service.
        service_code: String,
        /// When its session starts (local).
        start_at: NaiveDateTime,
        /// When it ends (local).
        end_at: NaiveDateTime,
        /// When it was cancelled (local).
        cancelled_at: Option<NaiveDateTime>,
        /// What cancelling it cost.
        cancel_penalty: Option<Decimal>,
        /// The pickup's time (local).
        pickup_at: Option<NaiveDateTime>,
        /// The pickup's hotel.
        pickup_hotel: Option<String>,
    }
}

/// The service of an activity booking.
pub async fn service(c: &mut Conn<'_>, id: i64) -> Result<Option<ServiceRow>, StoreError> {
    c.query_opt(
        "SELECT b.product_code, b.service_code, b.start_at, b.end_at, b.cancelled_at, b.cancel_penalty, p.date_time, p.location_name
         FROM activity_booking b LEFT JOIN activity_booking_pickup p ON p.booking_id = b.id WHERE b.id = $1",
        &[&id],
    )
    .await
}

row! {
    /// A version of a booking.
    pub struct VersionRow {
        /// `created`, `modified` or `cancelled`.
        change: String,
        /// `partner` or `operator`.
        by_kind: String,
        /// The requestor id or the operator's name.
        by_id: String,
        /// When.
        at: DateTime<Utc>,
        /// The status it left (unknown for a reconstructed creation).
        status: Option<String>,
        /// The total it left.
        total: Option<Decimal>,
        /// The total's currency.
        currency: Option<String>,
        /// Reconstructed by the migration from the booking's lifecycle columns.
        reconstructed: bool,
    }
}

/// The versions of a booking (its kind, its Internal reference), oldest first.
pub async fn history(c: &mut Conn<'_>, kind: Kind, internal_ref: &str) -> Result<Vec<VersionRow>, StoreError> {
    c.query(
        "SELECT change, by_kind, by_id, at, status, total, currency, reconstructed
         FROM booking_history WHERE booking_ref = $1 AND booking_kind = $2 ORDER BY id",
        &[&internal_ref, &kind.as_str()],
    )
    .await
}

row! {
    /// A transaction-log entry about a booking (no bodies).
    pub struct LogRow {
        /// Its id (`ota-gateway log show ID`).
        id: i64,
        /// When the request came.
        at: DateTime<Utc>,
        /// Who sent it.
        requestor_id: String,
        /// The operation (its path without the slash).
        operation: String,
        /// The HTTP status.
        status: i64,
        /// False: an error answer.
        success: bool,
        /// The references found in it, as the log stores them.
        refs: String,
    }
}

/// The transaction-log entries of a booking, oldest first, at most `limit`: those naming its
/// Internal reference, and those of its owner naming its Client reference.
pub async fn log_entries(
    c: &mut Conn<'_>,
    internal_ref: &str,
    client_ref: &str,
    owner: &str,
    limit: i64,
) -> Result<Vec<LogRow>, StoreError> {
    c.query(
        "SELECT id, at, requestor_id, operation, status, success, refs FROM txlog_entry
         WHERE id IN (SELECT entry_id FROM txlog_reference WHERE reference = $1)
            OR (requestor_id = $3 AND id IN (SELECT entry_id FROM txlog_reference WHERE reference = $2))
         ORDER BY at, id LIMIT $4",
        &[&internal_ref, &client_ref, &owner, &limit],
    )
    .await
}

row! {
    /// An outbox event of a booking.
    pub struct EventRow {
        /// Its id (`ota-gateway outbox retry ID`).
        id: i64,
        /// The hotel it is about.
        hotel_code: String,
        /// Its number in the booking and hotel.
        seq: i64,
        /// The supplier told.
        supplier_id: String,
        /// `new`, `modified` or `cancelled`.
        event_kind: String,
        /// `pending`, `delivered` or `parked`.
        state: String,
        /// Delivery attempts so far.
        attempts: i64,
        /// When it was written (milliseconds since 1970, UTC).
        created_at: i64,
        /// When it was delivered.
        delivered_at: Option<i64>,
        /// The last delivery error.
        last_error: Option<String>,
    }
}

/// The outbox events of a booking, oldest first.
pub async fn events(c: &mut Conn<'_>, kind: Kind, internal_ref: &str) -> Result<Vec<EventRow>, StoreError> {
    c.query(
        "SELECT id, hotel_code, seq, supplier_id, event_kind, state, attempts, created_at, delivered_at, last_error
         FROM outbox_event WHERE booking_kind = $1 AND booking_ref = $2 ORDER BY id",
        &[&kind.as_str(), &internal_ref],
    )
    .await
}

row! {
    /// A hotel's count of bookings (and of those with events its supplier has not acknowledged).
    pub struct HotelCountRow { hotel_code: String, bookings: i64, unacknowledged: i64 }
}

/// For each hotel of `supplier`: how many hotel bookings have a room stay there, and how many
/// of them have events the supplier has not acknowledged.
///
/// Each count is one grouped read of the supplier's rows, not a subquery per hotel: its hotels'
/// rooms through `hotel_booking_room_by_hotel`, its events not delivered through the partial
/// index `outbox_event_unacknowledged` (whose `WHERE` this query's repeats word for word, as
/// SQLite needs to use it).
pub async fn hotel_counts(c: &mut Conn<'_>, supplier: &str) -> Result<Vec<HotelCountRow>, StoreError> {
    c.query(
        "SELECT s.hotel_code, coalesce(rooms.n, 0), coalesce(unacknowledged.n, 0)
         FROM supplier_hotel s
         LEFT JOIN (SELECT r.hotel_code, count(DISTINCT r.booking_id) AS n
                      FROM supplier_hotel h JOIN hotel_booking_room r ON r.hotel_code = h.hotel_code
                     WHERE h.requestor_id = $1 GROUP BY r.hotel_code) rooms ON rooms.hotel_code = s.hotel_code
         LEFT JOIN (SELECT e.hotel_code, count(DISTINCT e.booking_ref) AS n FROM outbox_event e
                     WHERE e.supplier_id = $1 AND e.booking_kind = 'hotel' AND e.state <> 'delivered'
                     GROUP BY e.hotel_code) unacknowledged ON unacknowledged.hotel_code = s.hotel_code
         WHERE s.requestor_id = $1 ORDER BY s.hotel_code",
        &[&supplier],
    )
    .await
}
