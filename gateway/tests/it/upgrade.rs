//! Upgrades (issue 28), with real processes: `ota-gateway migrate` (`--check`, `--to N`, never
//! creating a SQLite file, never going down), `serve --no-migrate` refusing a schema older than
//! it needs, a schema newer than the binary served with a WARN line while `migrate` refuses it,
//! and a rolling upgrade on PostgreSQL (one gateway serving a client loop while the next
//! release's migration runs, a gateway of the next release started, the first stopped) in which
//! no request fails.
//!
//! The next release is played by the hidden `--rehearse-upgrade` of `serve` and `migrate`: the
//! same binary then knows one more additive migration (an unused `upgrade_probe` table), so the
//! gateway started without it is the previous release serving on a schema newer than it knows.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use ota_gateway::store::Scalar;
use ota_gateway::{Client, Location};
use support::{Backend, GatewayProcess, TestDb, backend_tests, cli, sample};

backend_tests!(
    migrate_checks_applies_names_and_never_goes_down,
    a_newer_schema_is_served_with_a_warning_and_never_migrated
);

const XML: &str = "application/xml";

/// The migration files of the backend, sorted: the schema version this binary knows is their
/// count.
fn files(b: Backend) -> Vec<String> {
    let folder = if b == Backend::Sqlite { "sqlite" } else { "postgres" };
    let dir = format!("{}/migrations/{folder}", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A database as `migrate` takes it: SQLite's file exists (empty: schema version 0).
async fn empty_db(b: Backend) -> TestDb {
    let db = TestDb::new(b).await;
    if b == Backend::Sqlite {
        std::fs::write(db.sqlite_path(), b"").unwrap();
    }
    db
}

/// The schema version recorded in the database.
async fn version(db: &TestDb) -> i64 {
    match &db.location {
        Location::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
        }
        Location::Postgres(_) => {
            let (client, conn) = tokio_postgres::connect(&db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(conn);
            client.query_one("SELECT coalesce(max(version), 0) FROM schema_migration", &[]).await.unwrap().get(0)
        }
    }
}

/// Runs `ota-gateway serve ARGS` expecting it to refuse to start: (exit code, stderr). Fails
/// the test when it is still running after 30 s.
fn serve_refused(args: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .arg("serve")
        .args(args)
        .args(["--addr", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve {args:?} started instead of refusing: {}", std::fs::read_to_string(&log).unwrap());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (status.code().unwrap_or(-1), std::fs::read_to_string(&log).unwrap())
}

/// `migrate --to N-1` makes a database of the previous release; `--check` then names the one
/// pending migration (exit 1); `serve --no-migrate` refuses that schema (exit 1) and changes
/// nothing; `migrate` applies it, saying which and the versions; `--check` is then 0; a second
/// `migrate` has nothing to do; `--to` below the schema is refused; a SQLite file that does not
/// exist is never created.
pub(crate) async fn migrate_checks_applies_names_and_never_goes_down(b: Backend) {
    let files = files(b);
    let n = files.len();
    let last = &files[n - 1];
    let db = empty_db(b).await;
    let arg = db.arg();

    if b == Backend::Sqlite {
        let missing = db.sqlite_path().with_file_name("missing.db");
        let (code, _, err) = cli(&["migrate", "--db", &missing.display().to_string()], "");
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("no database at"), "{err}");
        assert!(!missing.exists(), "migrate created a SQLite file");
        let (code, _, err) = cli(&["migrate", "--check", "--db", &missing.display().to_string()], "");
        assert_eq!(code, 1, "{err}");
        assert!(!missing.exists(), "migrate --check created a SQLite file");
    }

    // An empty database, --check: every migration pending, nothing created.
    let (code, out, err) = cli(&["migrate", "--check", "--db", &arg], "");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("schema version 0: {n} migration(s) pending: 1 {}", files[0])), "{out}");

    // The previous release's schema.
    let (code, out, err) = cli(&["migrate", "--to", &(n - 1).to_string(), "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("schema version 0 -> {}: applied 1 {}", n - 1, files[0])), "{out}");
    assert!(!out.contains(last.as_str()), "{out}");
    assert_eq!(version(&db).await, (n - 1) as i64);

    let (code, out, err) = cli(&["migrate", "--check", "--db", &arg], "");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("schema version {}: 1 migration(s) pending: {n} {last}", n - 1)), "{out}");

    // A gateway that may not migrate refuses to start on it, and changes nothing.
    let (code, err) = serve_refused(&["--db", &arg, "--no-migrate"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("the database has schema version {}, this gateway needs {n}", n - 1))
            && err.contains("ota-gateway migrate"),
        "{err}"
    );
    assert_eq!(version(&db).await, (n - 1) as i64);

    // The pending migration, named.
    let (code, out, err) = cli(&["migrate", "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.trim(), format!("schema version {} -> {n}: applied {n} {last}", n - 1));
    assert_eq!(version(&db).await, n as i64);

    let (code, out, err) = cli(&["migrate", "--check", "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("schema version {n}: current")), "{out}");
    let (code, out, err) = cli(&["migrate", "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("schema version {n}: nothing to apply")), "{out}");

    // Never down, never past what the binary knows.
    let (code, _, err) = cli(&["migrate", "--to", &(n - 2).to_string(), "--db", &arg], "");
    assert_eq!(code, 1);
    assert!(err.contains("never undone"), "{err}");
    let (code, _, err) = cli(&["migrate", "--to", &(n + 1).to_string(), "--db", &arg], "");
    assert_eq!(code, 1);
    assert!(err.contains(&format!("this gateway knows {n} migrations")), "{err}");
    assert_eq!(version(&db).await, n as i64);

    // Current: --no-migrate serves.
    let gw = GatewayProcess::start(&arg, &["--no-migrate"]).await;
    let (status, _, body) =
        gw.client().send_raw("/activitynbc", sample("product_descriptive_info"), XML).await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<Success/>"), "{body}");
}

/// Records schema version N+1 (a newer release migrated the database).
async fn newer(db: &TestDb, n: usize) {
    match &db.location {
        Location::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.pragma_update(None, "user_version", (n + 1) as i64).unwrap();
        }
        Location::Postgres(_) => {
            let (client, conn) = tokio_postgres::connect(&db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(conn);
            client.execute("INSERT INTO schema_migration (version) VALUES ($1)", &[&((n + 1) as i64)]).await.unwrap();
        }
    }
}

/// A database whose schema is newer than the binary (N+1): `serve` (with or without
/// `--no-migrate`) serves on it and says so in a WARN line naming both versions; `migrate` and
/// `migrate --check` refuse it (exit 1) and change nothing.
pub(crate) async fn a_newer_schema_is_served_with_a_warning_and_never_migrated(b: Backend) {
    let n = files(b).len();
    let db = empty_db(b).await;
    let arg = db.arg();
    let (code, out, err) = cli(&["migrate", "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    newer(&db, n).await;

    let dir = tempfile::tempdir().unwrap();
    for (i, extra) in [&[][..], &["--no-migrate"][..]].into_iter().enumerate() {
        let log = dir.path().join(format!("serve-{i}.log"));
        let gw = GatewayProcess::start_with(&arg, extra, &[], Some(&log)).await;
        let (status, _, body) =
            gw.client().send_raw("/activitynbc", sample("product_descriptive_info"), XML).await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("<Success/>"), "{body}");
        drop(gw);
        let text = std::fs::read_to_string(&log).unwrap();
        let line = text
            .lines()
            .find(|l| {
                l.contains("WARN") && l.contains(&format!("schema version {}, newer than this gateway's {n}", n + 1))
            })
            .unwrap_or_else(|| panic!("no WARN line naming {} and {n}: {text}", n + 1));
        assert!(line.contains("upgrade this gateway"), "{line}");
    }

    for args in [&["migrate"][..], &["migrate", "--check"][..]] {
        let mut args = args.to_vec();
        args.extend(["--db", &arg]);
        let (code, out, err) = cli(&args, "");
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(
            err.contains(&format!("schema version {}, newer than this gateway's {n}", n + 1))
                && err.contains("nothing done"),
            "{err}"
        );
    }
    assert_eq!(version(&db).await, (n + 1) as i64);
}

fn day(n: i64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(n)
}

/// What the client loop saw.
#[derive(Default)]
struct Tally {
    /// Answers per gateway (index in the rotation's names).
    answered: [AtomicU64; 2],
    /// Answers of the second gateway after the first was stopped.
    after_stop: AtomicU64,
    /// Failed requests: transport errors, non-200 statuses, OTA errors of Type 12.
    failures: Mutex<Vec<String>>,
}

/// One request of the loop: an activity availability or a Commit (one adult on the caves' ticket,
/// a date of the next 200 days), alternately.
async fn one(client: &Client, i: u64) -> Result<(), String> {
    let (path, body) = if i % 2 == 0 {
        let from = day(3 + (i % 50) as i64);
        let avail = sample("tour_activity_avail")
            .replace("2025-07-02", &from.to_string())
            .replace("2025-07-07", &(from + chrono::Duration::days(2)).to_string());
        ("/activityavailability", avail)
    } else {
        ("/activitybook", support::commit_xml(&format!("UPG-{i}"), day(3 + (i % 200) as i64), 1))
    };
    match client.send_raw(path, body, XML).await {
        Err(e) => Err(format!("{path} #{i}: {e}")),
        Ok((status, _, text)) if status != 200 => Err(format!("{path} #{i}: HTTP {status}: {text}")),
        Ok((_, _, text)) if text.contains(r#"Type="12""#) => Err(format!("{path} #{i}: processing error: {text}")),
        Ok(_) => Ok(()),
    }
}

/// A rolling upgrade on PostgreSQL: gateway A (this release) serves a client loop; the next
/// release's `migrate` runs meanwhile (A now serves on a newer schema); gateway B of the next
/// release starts with `--no-migrate` and joins the rotation; A leaves the rotation and is
/// stopped with SIGTERM. No request of the loop fails, both gateways answered, B alone after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_upgrade_on_postgres_fails_no_request() {
    let n = files(Backend::Postgres).len();
    let db = TestDb::new(Backend::Postgres).await;
    let arg = db.arg();
    let mut a = GatewayProcess::start(&arg, &[]).await;
    assert_eq!(version(&db).await, n as i64);

    let rotation: Arc<Mutex<Vec<(usize, Client)>>> = Arc::new(Mutex::new(vec![(0, a.client())]));
    let tally = Arc::new(Tally::default());
    let a_stopped = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for w in 0..2u64 {
        let (rotation, tally, a_stopped, stop) = (rotation.clone(), tally.clone(), a_stopped.clone(), stop.clone());
        workers.push(tokio::spawn(async move {
            let mut i = w;
            let started = Instant::now();
            while !stop.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(120) {
                let (which, client) = {
                    let r = rotation.lock().unwrap();
                    r[(i / 2) as usize % r.len()].clone()
                };
                match one(&client, i).await {
                    Ok(()) => {
                        tally.answered[which].fetch_add(1, Ordering::SeqCst);
                        if which == 1 && a_stopped.load(Ordering::SeqCst) {
                            tally.after_stop.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Err(e) => tally.failures.lock().unwrap().push(e),
                }
                i += 2;
            }
        }));
    }
    let pause = || tokio::time::sleep(Duration::from_millis(1500));
    pause().await;

    // The next release's migration, while A serves.
    let migrate_arg = arg.clone();
    let (code, out, err) =
        tokio::task::spawn_blocking(move || cli(&["migrate", "--rehearse-upgrade", "--db", &migrate_arg], ""))
            .await
            .unwrap();
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("schema version {n} -> {}: applied {} rehearsal_upgrade_probe.sql", n + 1, n + 1)),
        "{out}"
    );
    assert_eq!(version(&db).await, (n + 1) as i64);
    pause().await;

    // The next release's gateway, without migrating, joins; A leaves and stops.
    let b = GatewayProcess::start(&arg, &["--no-migrate", "--rehearse-upgrade"]).await;
    rotation.lock().unwrap().push((1, b.client()));
    pause().await;
    rotation.lock().unwrap().retain(|(which, _)| *which == 1);
    let term = Command::new("kill").args(["-TERM", &a.pid().to_string()]).status().unwrap();
    assert!(term.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = a.child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "A did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "A's exit: {status}");
    a_stopped.store(true, Ordering::SeqCst);
    pause().await;
    stop.store(true, Ordering::SeqCst);
    for w in workers {
        w.await.unwrap();
    }

    let failures = tally.failures.lock().unwrap().clone();
    let (by_a, by_b, after) = (
        tally.answered[0].load(Ordering::SeqCst),
        tally.answered[1].load(Ordering::SeqCst),
        tally.after_stop.load(Ordering::SeqCst),
    );
    eprintln!("rolling upgrade: {by_a} answers by A, {by_b} by B ({after} after A stopped), {} failed", failures.len());
    assert!(failures.is_empty(), "{} failed: {:?}", failures.len(), &failures[..failures.len().min(5)]);
    assert!(by_a > 0 && by_b > 0 && after > 0, "A {by_a}, B {by_b}, B after A stopped {after}");
    // The bookings of the loop are all there, made by both.
    let store = db.open().await;
    let Scalar(booked): Scalar<i64> = store
        .read(|c| {
            Box::pin(async move {
                c.query_one("SELECT count(*) FROM activity_booking WHERE client_reference LIKE 'UPG-%'", &[]).await
            })
        })
        .await
        .unwrap();
    assert!(booked > 0, "no booking made");
}
