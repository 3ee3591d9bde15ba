//! What is stored and what is answered agree, on both backends, when things go wrong around a
//! request: a write lock held elsewhere past the request's time-out (the answer says "not
//! processed" and nothing is stored), readers while writers queue, a database that refuses
//! writes (`/healthz`), and imports that change or mistype the catalogue under existing
//! bookings (places left = capacity − places booked, always).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use ota_gateway::Location;
use ota_gateway::import::{ImportError, ImportFile, import, parse};
use ota_gateway::store::{CATALOGUE_LOCK, Scalar};
use ota_messages::common::ErrorCode;
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use reqwest::StatusCode;
use support::{Backend, TestDb, TestGateway, TestServer, backend_tests, commit_xml, day};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const XML: &str = "application/xml";

fn search_xml() -> String {
    format!(
        r#"<OTA_TourActivitySearchRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><SearchCriteria><DateTimePref Start="{}" End="{}"/><LocationPref Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></LocationPref></SearchCriteria></OTA_TourActivitySearchRQ>"#,
        day(1),
        day(14)
    )
}

/// Holds the database's write path from another connection for `hold` (SQLite: its write lock,
/// by an `IMMEDIATE` transaction; PostgreSQL: the catalogue lock that bookings take, in a
/// transaction as an import takes it — a session's lock would stay behind on whichever server
/// connection a pooler in transaction mode lent, and be taken by the next client there); returns
/// once it is held.
async fn hold_writes(db: &TestDb, hold: Duration) -> JoinHandle<()> {
    let (held, is_held) = oneshot::channel();
    let task = match &db.location {
        Location::Sqlite(path) => {
            let path = path.clone();
            tokio::task::spawn_blocking(move || {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.execute_batch("BEGIN IMMEDIATE").unwrap();
                held.send(()).unwrap();
                std::thread::sleep(hold);
                conn.execute_batch("ROLLBACK").unwrap();
            })
        }
        Location::Postgres(_) => {
            let url = db.postgres_url();
            tokio::spawn(async move {
                let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
                let io = tokio::spawn(conn);
                client.batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({CATALOGUE_LOCK})")).await.unwrap();
                held.send(()).unwrap();
                tokio::time::sleep(hold).await;
                client.batch_execute("ROLLBACK").await.unwrap();
                drop(client);
                let _ = io.await;
            })
        }
    };
    is_held.await.unwrap();
    task
}

async fn bookings(server: &TestServer, client_ref: &str) -> i64 {
    let client_ref = client_ref.to_string();
    let Scalar(n): Scalar<i64> = server
        .store()
        .read(move |c| {
            Box::pin(async move {
                c.query_one("SELECT count(*) FROM activity_booking WHERE client_reference = $1", &[&client_ref]).await
            })
        })
        .await
        .unwrap();
    n
}

/// A Commit whose request times out while the write lock is held elsewhere is answered 408
/// "not processed" — and is then not stored, not even once the lock is free. Sent again, it
/// books.
pub(crate) async fn no_booking_behind_a_time_out(b: Backend) {
    let server = TestServer::start_with(b, |c| c.request_timeout = Duration::from_secs(2)).await;
    let client = server.client();
    // Log in first (argon2), so the time-out is spent waiting for the lock.
    let (status, _, _) = client.send_raw("/activitysearch", search_xml(), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);

    let holder = hold_writes(&server.db, Duration::from_secs(5)).await;
    let started = Instant::now();
    let (status, _, body) =
        client.send_raw("/activitybook", commit_xml("CLI-TIMEOUT-1", day(9), 2), XML).await.unwrap();
    let took = started.elapsed();
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT, "{body}");
    let rs = OtaTourActivityBookRs::from_xml(&body).unwrap();
    let e = &rs.errors().unwrap().error[0];
    assert_eq!((e.r#type.as_str(), e.code.clone()), ("12", Some(ErrorCode::UnableToProcess)), "{body}");
    assert!(body.contains(r#"Status="NotProcessed""#), "{body}");
    assert!(took >= Duration::from_millis(1900) && took < Duration::from_secs(4), "answered after {took:?}");

    holder.await.unwrap();
    // The lock is free: the writer is free to run whatever it still holds.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(bookings(&server, "CLI-TIMEOUT-1").await, 0, "answered 'not processed', yet stored");
    let (status, _, body) =
        client.send_raw("/activitybook", commit_xml("CLI-TIMEOUT-1", day(9), 2), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(OtaTourActivityBookRs::from_xml(&body).unwrap().is_success(), "{body}");
    assert_eq!(bookings(&server, "CLI-TIMEOUT-1").await, 1);
}

/// Ten Commits wait behind a write lock held elsewhere; searches and availability go on at
/// full speed meanwhile, and the Commits all complete once it is released.
///
/// Through PgBouncer (a pool of `support::PGBOUNCER_POOL` server connections, fewer than the
/// waiting Commits), the Commits that got no server connection wait in the pooler's queue,
/// and so does the health check's write.
pub(crate) async fn readers_are_not_starved_by_writers(b: Backend) {
    let server = TestServer::start_with(b, |c| c.request_timeout = Duration::from_secs(20)).await;
    let client = server.client();
    let (status, _, _) = client.send_raw("/activitysearch", search_xml(), XML).await.unwrap();
    assert_eq!(status, StatusCode::OK);

    let holder = hold_writes(&server.db, Duration::from_secs(3)).await;
    let commits: Vec<_> = (0..10)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                client.send_raw("/activitybook", commit_xml(&format!("CLI-QUEUE-{i}"), day(11), 1), XML).await.unwrap()
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let started = Instant::now();
        let (status, _, body) = client.send_raw("/activitysearch", search_xml(), XML).await.unwrap();
        slowest = slowest.max(started.elapsed());
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("<Success/>"), "{body}");
    }
    assert!(slowest < Duration::from_millis(500), "a search took {slowest:?} while writers queued");
    // The health check says whether a write can be made now: not on SQLite, whose one write
    // lock is held; yes on PostgreSQL, where only bookings wait (for the catalogue lock); not
    // through PgBouncer, whose pool's server connections (fewer than the lock and the ten
    // Commits) are each held by the lock or a Commit waiting for it (a transaction keeps its
    // server connection while it waits), so the health check's write waits in its queue.
    const _: () = assert!(support::PGBOUNCER_POOL < 11);
    let started = Instant::now();
    let health = client.http().get(format!("{}/healthz", server.url())).send().await.unwrap();
    let took = started.elapsed();
    let expected = match b {
        Backend::Sqlite | Backend::PgBouncer => StatusCode::SERVICE_UNAVAILABLE,
        Backend::Postgres => StatusCode::OK,
    };
    assert_eq!(health.status(), expected);
    assert!(took < Duration::from_secs(3), "/healthz took {took:?}");
    holder.await.unwrap();
    for c in commits {
        let (status, _, body) = c.await.unwrap();
        assert_eq!(status, StatusCode::OK);
        assert!(OtaTourActivityBookRs::from_xml(&body).unwrap().is_success(), "{body}");
    }
    println!("{b:?}: slowest search while 10 Commits queued: {slowest:?}; /healthz answered in {took:?}");
}

/// `/healthz` writes: a database that refuses writes (here a trigger that fails them, as a full
/// disk would) is reported with 503; once it takes writes again, 200.
pub(crate) async fn health_reports_a_database_that_cannot_write(b: Backend) {
    let server = TestServer::start(b).await;
    let url = format!("{}/healthz", server.url());
    assert_eq!(reqwest::get(&url).await.unwrap().status(), StatusCode::OK);
    let (create, drop): (&[&str], &[&str]) = match b {
        Backend::Sqlite => (
            &[
                "CREATE TRIGGER refuse_writes BEFORE UPDATE ON health_check BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
            ],
            &["DROP TRIGGER refuse_writes"],
        ),
        Backend::Postgres | Backend::PgBouncer => (
            &[
                "CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$",
                "CREATE TRIGGER refuse_writes BEFORE UPDATE ON health_check FOR EACH ROW EXECUTE FUNCTION refuse_writes()",
            ],
            &["DROP TRIGGER refuse_writes ON health_check", "DROP FUNCTION refuse_writes()"],
        ),
    };
    run_sql(&server.db, create).await;
    tokio::time::sleep(Duration::from_millis(1100)).await; // past the second a success is trusted
    let res = reqwest::get(&url).await.unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(res.text().await.unwrap().contains("does not take writes"));
    run_sql(&server.db, drop).await;
    assert_eq!(reqwest::get(&url).await.unwrap().status(), StatusCode::OK);
}

/// Runs statements on the database from outside the gateway.
async fn run_sql(db: &TestDb, statements: &[&str]) {
    match &db.location {
        Location::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            for s in statements {
                conn.execute_batch(s).unwrap();
            }
        }
        Location::Postgres(_) => {
            let (client, conn) = tokio_postgres::connect(&db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
            let io = tokio::spawn(conn);
            for s in statements {
                client.batch_execute(s).await.unwrap();
            }
            drop(client);
            let _ = io.await;
        }
    }
}

/// The demo's activities part, changed by `edit` (a `serde_json::Value` of the activities
/// array), as an import file.
fn activities_file(edit: impl FnOnce(&mut serde_json::Value)) -> ImportFile {
    let mut value: serde_json::Value = serde_json::from_str(ota_gateway::activities::import::DEMO).unwrap();
    edit(&mut value);
    parse("test", &serde_json::json!({ "activities": value }).to_string()).unwrap()
}

/// The activity with this id in the demo's activities array.
fn activity<'a>(value: &'a mut serde_json::Value, id: &str) -> &'a mut serde_json::Value {
    value.as_array_mut().unwrap().iter_mut().find(|a| a["id"] == id).unwrap()
}

/// Places left of the caves' morning ticket on a date, as availability sees them.
async fn places_left(env: &TestGateway, date: NaiveDate) -> i64 {
    let content = env.content();
    let capacity = content
        .activities
        .activity("LESPMIBKUI")
        .and_then(|a| a.product("TE0CC00A"))
        .and_then(|p| p.service("TIC"))
        .unwrap()
        .capacity(date);
    let booked: Option<Scalar<i64>> = env
        .store
        .read(move |c| {
            Box::pin(async move {
                c.query_opt(
                    "SELECT places FROM activity_places_booked WHERE activity_id = 'LESPMIBKUI' AND product_code = 'TE0CC00A' AND service_code = 'TIC' AND date = $1",
                    &[&date],
                )
                .await
            })
        })
        .await
        .unwrap();
    (capacity - booked.map_or(0, |s| s.0)).max(0)
}

/// Books through the gateway (in-process).
async fn book(env: &TestGateway, client_ref: &str, date: NaiveDate, people: usize) -> OtaTourActivityBookRs {
    let rq = ota_messages::tour_activity_book::OtaTourActivityBookRq::from_xml(&commit_xml(client_ref, date, people))
        .unwrap();
    env.send(&rq).await
}

/// Imports never lose track of the places booked: an import that would drop a booked product
/// (a mistyped code) fails whole and names it; re-imports and capacity changes leave places
/// left = capacity − places booked.
pub(crate) async fn places_stay_right_across_imports(b: Backend) {
    let env = TestGateway::start(b).await;
    let date = day(12);
    assert!(book(&env, "CLI-IMPORT-1", date, 3).await.is_success());
    assert!(book(&env, "CLI-IMPORT-2", date, 1).await.is_success());
    assert_eq!(places_left(&env, date).await, 16);

    // A mistyped product code: the booked product would go. Refused, nothing changed.
    let file = activities_file(|v| activity(v, "LESPMIBKUI")["products"][0]["code"] = "TE0CC0OA".into());
    let e = import(&env.store, file).await.unwrap_err();
    assert!(matches!(e, ImportError::Invalid { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("LESPMIBKUI")
            && text.contains("TE0CC00A")
            && text.contains("TIC")
            && text.contains(&date.to_string()),
        "{text}"
    );
    env.reload().await;
    assert!(env.content().activities.activity("LESPMIBKUI").unwrap().product("TE0CC00A").is_some());
    assert_eq!(places_left(&env, date).await, 16);

    // The same content again: the places booked stay booked.
    import(&env.store, activities_file(|_| {})).await.unwrap();
    env.reload().await;
    assert_eq!(places_left(&env, date).await, 16);

    // Capacity on the date lowered below what is booked: none left (never negative), and a
    // Commit finds no place; raised again: capacity − booked.
    let set_allotment = |places: u64| {
        activities_file(move |v| {
            activity(v, "LESPMIBKUI")["products"][0]["services"][0]["allotment"] =
                serde_json::json!({ date.to_string(): places });
        })
    };
    import(&env.store, set_allotment(3)).await.unwrap();
    env.reload().await;
    assert_eq!(places_left(&env, date).await, 0);
    let rs = book(&env, "CLI-IMPORT-3", date, 1).await;
    assert_eq!(rs.errors().unwrap().error[0].code, Some(ErrorCode::NoAvailability));
    import(&env.store, set_allotment(30)).await.unwrap();
    env.reload().await;
    assert_eq!(places_left(&env, date).await, 26);
    assert!(book(&env, "CLI-IMPORT-3", date, 2).await.is_success());
    assert_eq!(places_left(&env, date).await, 24);
    // Back to the usual 20 places: 20 − 6 booked.
    import(&env.store, activities_file(|_| {})).await.unwrap();
    env.reload().await;
    assert_eq!(places_left(&env, date).await, 14);

    // A product without bookings may go.
    let file = activities_file(|v| {
        let products = activity(v, "LESPMIBKUI")["products"].as_array_mut().unwrap();
        products.retain(|p| p["code"] != "TE0CC00C");
    });
    import(&env.store, file).await.unwrap();
    env.reload().await;
    assert!(env.content().activities.activity("LESPMIBKUI").unwrap().product("TE0CC00C").is_none());
}

backend_tests!(
    no_booking_behind_a_time_out,
    readers_are_not_starved_by_writers,
    health_reports_a_database_that_cannot_write,
    places_stay_right_across_imports
);

/// On PostgreSQL a booking's rows after its first (a hotel booking's or an activity
/// booking's), its outbox event and its history row are sent with the transaction's next
/// statement (issue 32: many writes, one round trip). When
/// one of them fails — with the rooms' update, or just before the commit — the Commit stores
/// nothing (no booking, no rooms sold, no outbox event, its Client reference free) and is
/// answered with an error; once the cause is gone, the same Commit books.
#[tokio::test]
async fn postgres_a_held_write_that_fails_undoes_the_whole_commit() {
    let server = TestServer::start(Backend::Postgres).await;
    let (pg, conn) = tokio_postgres::connect(&server.db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let night = day(63);
    // What a Commit leaves: bookings, Client references of this test, outbox events, rooms sold.
    let stored = || async {
        let mut out = Vec::new();
        for sql in [
            "SELECT count(*) FROM hotel_booking",
            "SELECT count(*) FROM activity_booking",
            "SELECT count(*) FROM client_reference WHERE client_ref LIKE 'HELD-%'",
            "SELECT count(*) FROM outbox_event",
            "SELECT coalesce(sum(rooms), 0)::bigint FROM hotel_rooms_sold WHERE hotel_code = 'HTL00042'",
        ] {
            out.push(pg.query_one(sql, &[]).await.unwrap().get::<_, i64>(0));
        }
        out
    };
    let before = stored().await;
    pg.batch_execute(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$",
    )
    .await
    .unwrap();
    // A hotel Commit's room guest and history rows, an activity Commit's participant and pickup.
    for (table, client_ref) in [
        ("hotel_booking_room_guest", "HELD-1"),
        ("booking_history", "HELD-2"),
        ("activity_booking_participant", "HELD-3"),
        ("activity_booking_pickup", "HELD-4"),
    ] {
        pg.batch_execute(&format!(
            "CREATE TRIGGER refuse BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION refuse()"
        ))
        .await
        .unwrap();
        let (path, xml) = if table.starts_with("activity") {
            ("/activitybook", crate::outbox::activity_commit(client_ref, day(40)))
        } else {
            ("/hotelbook", crate::outbox::hotel_commit(client_ref, night, "HTL00042", "RMSD000000"))
        };
        let unrefused = stored().await;
        let (_, _, body) = server.client().send_raw(path, xml.clone(), XML).await.unwrap();
        assert!(body.contains("<Errors>") && !body.contains("<Success"), "{table}: {body}");
        assert_eq!(stored().await, unrefused, "{table} refused: nothing of the Commit stored");
        pg.batch_execute(&format!("DROP TRIGGER refuse ON {table}")).await.unwrap();
        let (_, _, body) = server.client().send_raw(path, xml, XML).await.unwrap();
        assert!(body.contains("<Success"), "{table} no longer refused: {body}");
    }
    let after = stored().await;
    assert_eq!(after[0] - before[0], 2, "two hotel bookings");
    assert_eq!(after[1] - before[1], 2, "two activity bookings");
    assert_eq!(after[2], 4, "four Client references");
    assert_eq!(after[4] - before[4], 2, "two rooms sold");
}
