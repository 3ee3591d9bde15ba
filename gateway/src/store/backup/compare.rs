//! A restore's comparison: the bookings and outbox events of the current database and of the
//! backup, the rows of those that disagree, and the reconciliation report.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use rusqlite::Connection;

use super::{BackupError, Summary, has_column, has_table};
use crate::store::values::millis_text;

/// A hotel or activity booking as the comparison sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Booking {
    id: i64,
    kind: &'static str,
    internal: String,
    client: String,
    partner: String,
    status: String,
    updated: String,
    /// Hotels (rooms; an activity's pickup hotel) or the activity.
    places: Vec<String>,
}

/// An outbox event as the comparison sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Event {
    id: i64,
    hotel: String,
    seq: i64,
    supplier: String,
    kind: String,
    state: String,
    delivered_at: Option<i64>,
}

/// One database's bookings and outbox events.
pub(super) struct Side {
    bookings: BTreeMap<(&'static str, String), Booking>,
    events: BTreeMap<(&'static str, String), Vec<Event>>,
    suppliers: BTreeMap<String, String>,
    /// The rows of the bookings that disagree with the backup, as text, by (kind, Internal
    /// reference) (see [`with_rows`]).
    rows: BTreeMap<(&'static str, String), Vec<String>>,
}

impl Side {
    pub(super) fn read(conn: &Connection) -> Result<Side, BackupError> {
        let mut bookings = BTreeMap::new();
        let mut hotels_of: BTreeMap<i64, Vec<String>> = BTreeMap::new();
        let mut st = conn.prepare("SELECT DISTINCT booking_id, hotel_code FROM hotel_booking_room ORDER BY 1, 2")?;
        for row in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
            let (id, hotel) = row?;
            hotels_of.entry(id).or_default().push(hotel);
        }
        let mut st =
            conn.prepare("SELECT id, internal_ref, client_ref, requestor_id, status, updated_at FROM hotel_booking")?;
        for row in st.query_map([], |r| {
            Ok(Booking {
                id: r.get(0)?,
                kind: "hotel",
                internal: r.get(1)?,
                client: r.get(2)?,
                partner: r.get(3)?,
                status: r.get(4)?,
                updated: r.get(5)?,
                places: Vec::new(),
            })
        })? {
            let mut b = row?;
            b.places = hotels_of.remove(&b.id).unwrap_or_default();
            bookings.insert((b.kind, b.internal.clone()), b);
        }
        let updated = if has_column(conn, "activity_booking", "updated_at")? {
            "CASE WHEN b.updated_at = '' THEN b.created_at ELSE b.updated_at END"
        } else {
            "b.created_at"
        };
        let mut st = conn.prepare(&format!(
            "SELECT b.id, b.reference, b.client_reference, b.requestor_id, b.status, {updated}, b.activity_id, p.location_name
             FROM activity_booking b LEFT JOIN activity_booking_pickup p ON p.booking_id = b.id"
        ))?;
        for row in st.query_map([], |r| {
            let mut places = vec![format!("activity {}", r.get::<_, String>(6)?)];
            if let Some(pickup) = r.get::<_, Option<String>>(7)? {
                places.push(pickup);
            }
            Ok(Booking {
                id: r.get(0)?,
                kind: "activity",
                internal: r.get(1)?,
                client: r.get(2)?,
                partner: r.get(3)?,
                status: r.get(4)?,
                updated: r.get(5)?,
                places,
            })
        })? {
            let b = row?;
            bookings.insert((b.kind, b.internal.clone()), b);
        }
        let mut events: BTreeMap<(&'static str, String), Vec<Event>> = BTreeMap::new();
        if has_table(conn, "outbox_event")? {
            let mut st = conn.prepare(
                "SELECT id, booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, state, delivered_at
                 FROM outbox_event ORDER BY booking_kind, booking_ref, hotel_code, seq",
            )?;
            for row in st.query_map([], |r| {
                let kind: String = r.get(1)?;
                Ok((
                    if kind == "hotel" { "hotel" } else { "activity" },
                    r.get::<_, String>(2)?,
                    Event {
                        id: r.get(0)?,
                        hotel: r.get(3)?,
                        seq: r.get(4)?,
                        supplier: r.get(5)?,
                        kind: r.get(6)?,
                        state: r.get(7)?,
                        delivered_at: r.get(8)?,
                    },
                ))
            })? {
                let (kind, reference, e) = row?;
                events.entry((kind, reference)).or_default().push(e);
            }
        }
        let mut suppliers = BTreeMap::new();
        if has_table(conn, "supplier_hotel")? {
            let mut st = conn.prepare("SELECT hotel_code, requestor_id FROM supplier_hotel")?;
            for row in st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
                let (hotel, supplier) = row?;
                suppliers.insert(hotel, supplier);
            }
        }
        Ok(Side { bookings, events, suppliers, rows: BTreeMap::new() })
    }
}

/// The rows of a booking (its own and its children's) as `table: column=value, …` lines.
fn booking_rows(conn: &Connection, b: &Booking) -> Result<Vec<String>, BackupError> {
    let tables: &[(&str, &str)] = if b.kind == "hotel" {
        &[
            ("hotel_booking", "id"),
            ("hotel_booking_guest", "booking_id"),
            ("hotel_booking_room", "booking_id"),
            ("hotel_booking_room_guest", "booking_id"),
            ("hotel_booking_service", "booking_id"),
        ]
    } else {
        &[
            ("activity_booking", "id"),
            ("activity_booking_participant", "booking_id"),
            ("activity_booking_pickup", "booking_id"),
        ]
    };
    let mut out = Vec::new();
    for (table, key) in tables {
        if !has_table(conn, table)? {
            continue;
        }
        let mut st = conn.prepare(&format!("SELECT * FROM {table} WHERE {key} = ?1"))?;
        let names: Vec<String> = st.column_names().iter().map(|n| n.to_string()).collect();
        let mut rows = st.query([b.id])?;
        while let Some(row) = rows.next()? {
            let mut line = format!("{table}:");
            for (i, name) in names.iter().enumerate() {
                let value = match row.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
                    rusqlite::types::ValueRef::Blob(b) => format!("<{} bytes>", b.len()),
                };
                let _ = write!(line, " {name}={value}");
            }
            out.push(line);
        }
    }
    Ok(out)
}

/// The reconciliation report, and how many bookings disagree.
#[allow(clippy::too_many_arguments)]
pub(super) fn report(
    db: &Path,
    from: &Path,
    summary: &Summary,
    current: Option<&Side>,
    backup: &Side,
    notes: &[String],
    now: chrono::DateTime<chrono::Utc>,
    report_only: bool,
) -> (String, usize) {
    let mut r = String::new();
    let _ = writeln!(r, "ota-gateway restore report, {}", now.format("%Y-%m-%dT%H:%M:%SZ"));
    let _ = writeln!(r, "database: {}", db.display());
    let _ = writeln!(r, "backup:   {} ({summary})", from.display());
    if report_only {
        let _ = writeln!(r, "(--report-only: the database was NOT replaced; this is what a restore would drop)");
    }
    for note in notes {
        let _ = writeln!(r, "{note}");
    }
    let Some(current) = current else {
        let _ = writeln!(
            r,
            "\nReconcile by hand: every booking made or changed after the backup's newest change above is not in the restored database; the partners' and suppliers' systems, and the transaction log (`ota-gateway log search`), name them."
        );
        return (r, 0);
    };
    let mut differing = Vec::new();
    for (key, b) in &current.bookings {
        let old = backup.bookings.get(key);
        if differs(b, old) {
            differing.push((b, old));
        }
    }
    let _ = writeln!(
        r,
        "\n{} booking(s) of the current database are not in the backup, or are in it as an older version: after the restore, the gateway does not know them as they are, while partners and suppliers may.",
        differing.len()
    );
    let mut sent_to: BTreeSet<String> = BTreeSet::new();
    for (n, (b, old)) in differing.iter().enumerate() {
        write_differing(&mut r, n + 1, b, *old, current, backup, &mut sent_to);
    }
    let back: Vec<&Booking> =
        backup.bookings.iter().filter(|(k, _)| !current.bookings.contains_key(*k)).map(|(_, b)| b).collect();
    if !back.is_empty() {
        let _ = writeln!(
            r,
            "\n{} booking(s) of the backup were no longer in the current database and come back:",
            back.len()
        );
        for b in back {
            let _ = writeln!(
                r,
                "    {} Internal {} Client {} partner {} status {}",
                b.kind, b.internal, b.client, b.partner, b.status
            );
        }
    }
    let _ = writeln!(r, "\nWhat to do:");
    let _ = writeln!(
        r,
        "- Tell each partner above that the gateway no longer holds its booking (Internal reference) as it was; the partner books again (a new Commit: a new Internal reference, and a new event to the supplier) or gives it up. The data above is everything the booking had."
    );
    if sent_to.is_empty() {
        let _ = writeln!(
            r,
            "- No supplier was sent any of these bookings after the backup: the suppliers and the restored database agree."
        );
    } else {
        let _ = writeln!(
            r,
            "- The supplier(s) {} received bookings (or changes) the restored database does not have: they must cancel or correct them on their side, or keep them if the partner books again. The gateway cannot send them a cancellation: the bookings are not in the restored database.",
            sent_to.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    let _ = writeln!(
        r,
        "- Events the backup held as pending are sent again by the restarted gateway (suppliers drop repeats by their MessageID): see `ota-gateway outbox list`, and `ota-gateway outbox retry --all-parked` for parked ones."
    );
    (r, differing.len())
}

/// One booking of the current database the backup does not have as it is: what the restore
/// drops, where it was sent, and its data (the suppliers it was sent to are added to `sent_to`).
fn write_differing(
    r: &mut String,
    n: usize,
    b: &Booking,
    old: Option<&Booking>,
    current: &Side,
    backup: &Side,
    sent_to: &mut BTreeSet<String>,
) {
    let _ =
        writeln!(r, "\n[{}] {} booking Internal {} Client {} partner {}", n, b.kind, b.internal, b.client, b.partner);
    match old {
        None => {
            let _ = writeln!(r, "    DROPPED: not in the backup (status now {}, last changed {})", b.status, b.updated);
        }
        Some(old) => {
            let _ = writeln!(
                r,
                "    OLDER IN THE BACKUP: restored as {} (changed {}); now {} (changed {})",
                old.status, old.updated, b.status, b.updated
            );
        }
    }
    let places: Vec<String> = b
        .places
        .iter()
        .map(|p| match current.suppliers.get(p) {
            Some(s) => format!("{p} (supplier {s})"),
            None => p.clone(),
        })
        .collect();
    let _ = writeln!(r, "    hotels/activity: {}", if places.is_empty() { "-".into() } else { places.join(", ") });
    let key = (b.kind, b.internal.clone());
    let before: BTreeSet<(String, i64, String)> =
        backup.events.get(&key).into_iter().flatten().map(|e| (e.hotel.clone(), e.seq, e.state.clone())).collect();
    let events = current.events.get(&key).map(Vec::as_slice).unwrap_or_default();
    if events.is_empty() {
        let _ = writeln!(r, "    outbox: no event (no supplier for its hotels): only the partner holds it");
    }
    for e in events {
        let in_backup = before.contains(&(e.hotel.clone(), e.seq, e.state.clone()));
        let what = match (e.state.as_str(), in_backup) {
            (_, true) => "in the backup as it is".to_string(),
            ("delivered", false) => {
                sent_to.insert(e.supplier.clone());
                format!(
                    "SENT to the supplier after the backup (delivered {})",
                    e.delivered_at.map(millis_text).unwrap_or_else(|| "-".into())
                )
            }
            (state, false) => format!("not sent yet ({state}): the supplier never had it"),
        };
        let _ = writeln!(
            r,
            "    outbox event {}: {} #{} for {} to supplier {}: {what}",
            e.id, e.kind, e.seq, e.hotel, e.supplier
        );
    }
    let _ = writeln!(r, "    data (to re-enter it):");
    if let Some(rows) = current.rows.get(&key) {
        for line in rows {
            let _ = writeln!(r, "      {line}");
        }
    }
}

/// Fills in the rows of the bookings that disagree, read from the current database.
pub(super) fn with_rows(conn: &Connection, current: &mut Side, backup: &Side) -> Result<(), BackupError> {
    let mut rows = BTreeMap::new();
    for (key, b) in &current.bookings {
        if differs(b, backup.bookings.get(key)) {
            rows.insert(key.clone(), booking_rows(conn, b)?);
        }
    }
    current.rows = rows;
    Ok(())
}

/// Whether the restore drops a booking of the current database (`old`: the backup's version)
/// or takes it back to an older version.
fn differs(b: &Booking, old: Option<&Booking>) -> bool {
    old.is_none_or(|old| old.status != b.status || old.updated != b.updated)
}
