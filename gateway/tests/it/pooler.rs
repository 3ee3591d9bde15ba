//! PostgreSQL behind PgBouncer in transaction pooling mode (Debian's `pgbouncer`, started by the
//! tests as the throw-away PostgreSQL is: `scripts/throwaway-pgbouncer.sh`). Every connection of
//! the gateways, of the `import` and `requestor` commands and of the tests' own store goes
//! through the pooler, which lends a database [`PGBOUNCER_POOL`] server connections, fewer than
//! one gateway keeps (32): each transaction, and each statement outside one, may run on another
//! server connection than the last.
//!
//! What the store does in production runs here, by the suites that prove it directly on
//! PostgreSQL (each run again on [`Backend::PgBouncer`]): migrations and the demo seed from
//! gateways started together, a booking's whole life (availability, Quote, Commit, read,
//! modify, cancel), Commits on several gateway processes for the last places and the last room
//! (never oversold, one booking per Client reference), modifies from one read, imports and
//! requestor changes reaching running gateways, lock waits bounded by the request's time
//! (a transaction-local `lock_timeout`, the catalogue lock), the health check's write, SIGKILLed gateways
//! and the load test. Its own tests: two gateway processes under load sharing the small server
//! pool, and what the URL's `statement_cache=off` is for.
//!
//! ```text
//! cargo test -p ota-gateway --test it pooler::
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ota_gateway::store::Scalar;
use ota_gateway::{Location, Store};
use ota_messages::common::{ErrorCode, IdContext};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use support::{Backend, GatewayProcess, PGBOUNCER_POOL, TestDb, commit_xml, day, metric, sample};

const XML: &str = "application/xml";

/// Declares, for each `suite::name` listed, the test `pooler::name` running that suite's test
/// on [`Backend::PgBouncer`].
macro_rules! through_pgbouncer {
    ($($suite:ident :: $name:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                crate::$suite::$name(Backend::PgBouncer).await
            }
        )*
    };
}

through_pgbouncer!(
    instances::gateways_started_together_share_one_schema_and_one_seed,
    instances::commits_on_three_gateways_never_overbook_nor_duplicate,
    instances::the_last_room_on_three_gateways_is_sold_once,
    instances::modifies_on_two_gateways_from_one_read_never_lose_an_update,
    instances::an_import_reaches_every_gateway_within_a_second,
    lifecycle::hotel_partner_day,
    lifecycle::hotel_item_cancel_and_the_last_item,
    lifecycle::the_last_room_is_sold_once,
    lifecycle::a_cancel_racing_a_modify_leaves_one_outcome,
    lifecycle::activity_partner_day,
    consistency::no_booking_behind_a_time_out,
    consistency::readers_are_not_starved_by_writers,
    consistency::health_reports_a_database_that_cannot_write,
    consistency::places_stay_right_across_imports,
    operator::requestor_commands_reach_a_running_gateway,
    durability::sigkill_mid_stream_loses_and_duplicates_nothing,
    load::load,
);

/// The activity availability of two adults on the Drach caves for the next days.
fn availability_xml() -> String {
    format!(
        r#"<OTA_TourActivityAvailRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" PrimaryLangID="en"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><TourActivity><BasicInfo/><Location Context="Service"><Region RegionCode="Product">LESPMIBKUI</Region></Location><Schedule StartPeriod="{}" EndPeriod="{}"/><ParticipantCount Quantity="2"><QualifierInfo>10</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#,
        day(5),
        day(8)
    )
}

/// The largest number `read` finds in the rows of `sql` while `running` is set, polled every
/// 10 ms on a connection of its own to `url` (by the simple query protocol: PgBouncer's console
/// knows no other).
fn watch(
    url: String,
    sql: String,
    running: Arc<AtomicBool>,
    read: fn(&tokio_postgres::SimpleQueryRow, &str) -> Option<u64>,
    db: String,
) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let (client, conn) =
            tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        let io = tokio::spawn(conn);
        let mut most = 0;
        while running.load(Ordering::SeqCst) {
            for message in client.simple_query(&sql).await.unwrap() {
                if let tokio_postgres::SimpleQueryMessage::Row(row) = message {
                    most = most.max(read(&row, &db).unwrap_or(0));
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop(client);
        let _ = io.await;
        most
    })
}

/// Two gateway processes through PgBouncer, whose pool lends the database [`PGBOUNCER_POOL`]
/// server connections (each gateway keeps up to 32 of its own): 60 requests at once on the two
/// — Commits of one place each for the 20 places of a session, availability and booking reads —
/// are all answered, none with a database failure; exactly 20 are booked and stored, each once;
/// and the server never holds more than the pool's connections for the database, while the
/// pooler holds more clients than that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_share_a_small_server_pool() {
    let db = TestDb::new(Backend::PgBouncer).await;
    let url = db.arg();
    let (a, b) = tokio::join!(GatewayProcess::start(&url, &[]), GatewayProcess::start(&url, &[]));
    let direct = db.direct.clone().unwrap();
    let name = direct.rsplit('/').next().unwrap().to_string();
    let running = Arc::new(AtomicBool::new(true));
    // The server's connections to the database, seen from the server (on another database).
    let servers = watch(
        support::postgres_admin_url(),
        format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}'"),
        running.clone(),
        |row, _| row.get(0)?.parse().ok(),
        name.clone(),
    );
    // The pooler's clients of the database's pool, from its console (a database named
    // `pgbouncer` on its address): SHOW POOLS gives database, user, cl_active, cl_waiting, ….
    let console = format!("{}/pgbouncer", db.arg().rsplit_once('/').unwrap().0);
    let clients = watch(
        console,
        "SHOW POOLS".into(),
        running.clone(),
        |row, db| {
            if row.get(0)? != db {
                return None;
            }
            Some(row.get(2)?.parse::<u64>().ok()? + row.get(3)?.parse::<u64>().ok()?)
        },
        name,
    );

    let date = day(6);
    let started = Instant::now();
    let answered = Arc::new(AtomicU64::new(0));
    let mut commits = Vec::new();
    let mut others = Vec::new();
    for i in 0..60 {
        let client = if i % 2 == 0 { a.client() } else { b.client() };
        let answered = answered.clone();
        if i % 3 == 0 {
            others.push(tokio::spawn(async move {
                let (xml, path) = if i % 2 == 0 {
                    (availability_xml(), "/activityavailability")
                } else {
                    (sample("booking_read"), "/bookread")
                };
                let (status, _, body) = client.send_raw(path, xml, XML).await.unwrap();
                answered.fetch_add(1, Ordering::SeqCst);
                assert_eq!(status, 200, "{body}");
                assert!(body.contains("<Success/>"), "{path}: {body}");
            }));
        } else {
            commits.push(tokio::spawn(async move {
                let (status, _, body) =
                    client.send_raw("/activitybook", commit_xml(&format!("CLI-POOL-{i}"), date, 1), XML).await.unwrap();
                answered.fetch_add(1, Ordering::SeqCst);
                assert_eq!(status, 200, "{body}");
                body
            }));
        }
    }
    for t in others {
        t.await.unwrap();
    }
    let mut booked = Vec::new();
    for t in commits {
        let body = t.await.unwrap();
        let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        if rs.is_success() {
            let confirmation = rs.reservation_details.unwrap().confirmation;
            booked.push(confirmation.into_iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id);
        } else {
            assert_eq!(rs.errors().unwrap().error[0].code, Some(ErrorCode::NoAvailability), "{body}");
        }
    }
    let took = started.elapsed();
    running.store(false, Ordering::SeqCst);
    let (servers, clients) = (servers.await.unwrap(), clients.await.unwrap());
    println!(
        "60 requests on two gateways through PgBouncer: {took:?}; at most {servers} server connections for the database, {clients} clients of its pool at once"
    );
    assert_eq!(answered.load(Ordering::SeqCst), 60);
    assert_eq!(booked.len(), 20, "the 20 places of {date}: {booked:?}");
    booked.sort();
    booked.dedup();
    assert_eq!(booked.len(), 20, "one Internal reference per booking");

    let store = db.open().await;
    let ota_gateway::store::Scalar(stored): ota_gateway::store::Scalar<i64> = store
        .read(move |c| {
            Box::pin(async move {
                c.query_one("SELECT count(*) FROM activity_booking WHERE client_reference LIKE 'CLI-POOL-%'", &[]).await
            })
        })
        .await
        .unwrap();
    assert_eq!(stored, 20);
    for g in [&a, &b] {
        assert_eq!(metric(&g.metrics().await, "ota_db_errors_total"), 0.0, "a gateway met a database failure");
    }
    assert!(servers <= u64::from(PGBOUNCER_POOL), "{servers} server connections for a pool of {PGBOUNCER_POOL}");
    assert!(clients > u64::from(PGBOUNCER_POOL), "{clients} clients active at once: the pool was never shared");
}

/// The version of the test process's PgBouncer (`SHOW VERSION` on its console): (major, minor).
async fn pgbouncer_version(db: &TestDb) -> (u32, u32) {
    let console = format!("{}/pgbouncer", db.arg().rsplit_once('/').unwrap().0);
    let (client, conn) =
        tokio_postgres::connect(&console, tokio_postgres::NoTls).await.unwrap_or_else(|e| panic!("{console}: {e}"));
    let io = tokio::spawn(conn);
    let mut text = String::new();
    for message in client.simple_query("SHOW VERSION").await.unwrap() {
        if let tokio_postgres::SimpleQueryMessage::Row(row) = message {
            text = row.get(0).unwrap().to_string();
        }
    }
    drop(client);
    let _ = io.await;
    // "PgBouncer 1.18.0"
    let mut numbers = text
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("SHOW VERSION: {text:?}"))
        .split('.')
        .map(|n| n.parse::<u32>().unwrap());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// Without `statement_cache=off` (the default, `on`), each connection prepares a statement once
/// and runs it again by name. Through PgBouncer in transaction mode that works only where the
/// pooler carries prepared statements to its other server connections (1.21 and later, with
/// `max_prepared_statements`, which the throw-away PgBouncer sets where it can): there, reads
/// on 32 connections at once succeed, round after round; before 1.21 (Debian 12 has 1.18) the
/// next transaction of a connection lands on another server connection and its statement is
/// not there — the failure `statement_cache=off` is for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_statement_cache_off_only_a_pooler_with_prepared_statements_works() {
    let db = TestDb::new(Backend::PgBouncer).await;
    let version = pgbouncer_version(&db).await;
    let carries = version >= (1, 21);
    let cached = db.arg().replace("statement_cache=off", "statement_cache=on");
    let store = Store::open(&Location::Postgres(cached)).await.expect("migrations send no named statement");
    let started = Instant::now();
    let mut failure = None;
    let mut rounds = 0;
    while failure.is_none() && started.elapsed() < Duration::from_secs(5) {
        let reads: Vec<_> = (0..64)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .read(|c| {
                            Box::pin(
                                async move { c.query_one::<Scalar<i64>>("SELECT count(*) FROM requestor", &[]).await },
                            )
                        })
                        .await
                })
            })
            .collect();
        for r in reads {
            if let Err(e) = r.await.unwrap() {
                failure.get_or_insert(e.to_string());
            }
        }
        rounds += 1;
    }
    println!("PgBouncer {version:?}: {rounds} rounds of 64 reads, {failure:?}");
    if carries {
        assert_eq!(failure, None, "PgBouncer {version:?} carries prepared statements");
    } else {
        let failure = failure.unwrap_or_else(|| {
            panic!("PgBouncer {version:?}: {rounds} rounds of reads by cached statements never failed")
        });
        assert!(failure.contains("prepared statement"), "{failure}");
    }
}
