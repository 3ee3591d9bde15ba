//! A SQLite database of an earlier release (schema 0001–0003, with bookings and allotments) is
//! migrated in place at start: places booked are counted from its bookings, its allotment rows
//! become the capacity of their dates, nothing is lost; and a database newer than the gateway
//! is served without being migrated.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ota_gateway::store::Scalar;
use ota_gateway::{Location, Store};

const LEGACY: [&str; 3] = [
    include_str!("../../migrations/sqlite/0001_core.sql"),
    include_str!("../../migrations/sqlite/0002_activities.sql"),
    include_str!("../../migrations/sqlite/0003_hotels.sql"),
];

/// An earlier release's database: one service of 20 places; on 2030-05-01 two bookings (2 and
/// 3 participants) left 15 places; on 2030-05-02 an imported allotment left 4 places.
fn legacy_database(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    for sql in LEGACY {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 3).unwrap();
    conn.execute_batch(
        "INSERT INTO requestor VALUES ('DEMO', 'DEMO-DIST', 'Demo', '$argon2id$x', 1, '2026-01-01T00:00:00Z');
         INSERT INTO activity (id, region_code, region_name, updated_at) VALUES ('A1', 'PMI', 'Mallorca', '2026-01-01T00:00:00Z');
         INSERT INTO activity_text VALUES ('A1', 'en', 'Caves', NULL, NULL, NULL);
         INSERT INTO activity_product (id, activity_id, code) VALUES (7, 'A1', 'P1');
         INSERT INTO activity_service (id, product_id, code, transfer, currency, capacity) VALUES (9, 7, 'TIC', 0, 'EUR', 20);
         INSERT INTO activity_price VALUES (9, '10', '29.50');
         INSERT INTO activity_allotment VALUES (9, '2030-05-01', 15), (9, '2030-05-02', 4);
         INSERT INTO activity_booking VALUES
             (1, 'ACT-0000001', 'C1', 'DEMO', 'A1', 'P1', 'TIC', '2030-05-01', '2030-05-01T10:00:00', '2030-05-01T11:00:00', 'Reserved', '59.00', 'EUR', '2026-01-02T00:00:00Z'),
             (2, 'ACT-0000002', 'C2', 'DEMO', 'A1', 'P1', 'TIC', '2030-05-01', '2030-05-01T10:00:00', '2030-05-01T11:00:00', 'Reserved', '88.50', 'EUR', '2026-01-02T00:00:00Z');
         INSERT INTO activity_booking_participant VALUES
             (1, 1, 0, '10', 40, NULL, NULL, 'X', '29.50'), (1, 2, 1, '10', 40, NULL, NULL, 'Y', '29.50'),
             (2, 1, 0, '10', 40, NULL, NULL, 'Z', '29.50'), (2, 2, 1, '10', 40, NULL, NULL, 'W', '29.50'), (2, 3, 2, '10', 40, NULL, NULL, 'V', '29.50');",
    )
    .unwrap();
}

async fn scalar(store: &Store, sql: &'static str) -> i64 {
    store.read(move |c| Box::pin(async move { c.query_one::<Scalar<i64>>(sql, &[]).await.map(|s| s.0) })).await.unwrap()
}

#[tokio::test]
async fn an_earlier_releases_database_is_migrated_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    legacy_database(&path);
    let store = Store::open(&Location::Sqlite(path.clone())).await.unwrap();
    // Places booked, counted from the bookings.
    assert_eq!(scalar(&store, "SELECT places FROM activity_places_booked WHERE date = '2030-05-01'").await, 5);
    assert_eq!(scalar(&store, "SELECT count(*) FROM activity_places_booked").await, 1);
    // The allotment: on 05-01, 15 left + 5 booked = the usual 20 (no override); on 05-02, 4.
    assert_eq!(scalar(&store, "SELECT count(*) FROM activity_capacity").await, 1);
    assert_eq!(scalar(&store, "SELECT places FROM activity_capacity WHERE date = '2030-05-02'").await, 4);
    // Nothing else lost; the content loads.
    assert_eq!(scalar(&store, "SELECT count(*) FROM activity_booking").await, 2);
    assert_eq!(scalar(&store, "SELECT count(*) FROM activity_booking_participant").await, 5);
    let content = ota_gateway::content::Content::load(&store).await.unwrap();
    let service = content.activities.activity("A1").unwrap().product("P1").unwrap().service("TIC").unwrap();
    assert_eq!((service.capacity, service.capacity("2030-05-02".parse().unwrap())), (20, 4));
    assert_eq!(content.requestors.len(), 1);
    drop(store);

    // Opened again: nothing more to do.
    let store = Store::open(&Location::Sqlite(path.clone())).await.unwrap();
    assert_eq!(scalar(&store, "SELECT places FROM activity_places_booked WHERE date = '2030-05-01'").await, 5);
    drop(store);

    // A database of a newer gateway is served (migrations are additive), not damaged; its
    // migration by this gateway is refused.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    conn.pragma_update(None, "user_version", current + 1).unwrap();
    drop(conn);
    let location = Location::Sqlite(path.clone());
    let store = Store::open(&location).await.unwrap();
    assert_eq!(scalar(&store, "SELECT count(*) FROM activity_booking").await, 2);
    drop(store);
    let plan = ota_gateway::store::migrate::Plan { refuse_newer: true, ..ota_gateway::store::migrate::Plan::START };
    let e = Store::migrate(&location, &plan).await.unwrap_err().to_string();
    assert!(e.contains("newer than this gateway"), "{e}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap(), current + 1);
}
