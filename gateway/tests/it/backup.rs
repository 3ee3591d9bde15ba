//! Backups and restore of a SQLite database (issue 28): `ota-gateway backup` while a real
//! gateway serves, bookings after it (one pulled and acknowledged by its supplier), the gateway
//! killed (its `-wal` left behind), `ota-gateway restore`: the later bookings are gone (the
//! leftover `-wal` does not bring them back), and the report names them, their data and the
//! supplier that was sent one. Refusals: a restore while a gateway runs, a backup over an
//! existing file, a file that is no gateway database, and PostgreSQL (answered with the docs).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Duration;

use chrono::NaiveDate;
use ota_messages::common::IdContext;
use ota_messages::runtime::Message;

use crate::support::{Backend, GatewayProcess, TestDb, cli, commit_xml, day};

const XML: &str = "application/xml";

fn pos(id: &str, ctx: &str, pw: &str) -> String {
    format!(
        r#"<POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS>"#
    )
}

/// A hotel Commit of one guest in a double room of HTL00042 (supplier SUP-DEMO) for one night.
fn hotel_commit(client_ref: &str, start: NaiveDate, surname: &str) -> String {
    let end = start + chrono::Duration::days(1);
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(
        r#"<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" ResStatus="Commit">{pos}<HotelReservations><HotelReservation><RoomStays><RoomStay><RoomTypes><RoomType RoomTypeCode="RMSD000000"/></RoomTypes><RoomRates><RoomRate><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="HTL00042"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>{surname}</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#
    )
}

async fn post(gw: &GatewayProcess, path: &str, body: &str) -> String {
    let res = reqwest::Client::new()
        .post(format!("{}{path}", gw.url))
        .header("Content-Type", XML)
        .body(body.to_string())
        .timeout(Duration::from_secs(20))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    let body = res.text().await.unwrap();
    assert!(body.contains("<Success"), "{path}: {body}");
    body
}

/// The supplier SUP-DEMO reads its bookings with unacknowledged events and acknowledges them
/// (its events are then delivered): the Internal references it took.
async fn supplier_takes_its_bookings(gw: &GatewayProcess) -> Vec<String> {
    let sup = pos("SUP-DEMO", "SUP-DEMO-DIST", "sup-demo-pass");
    let read = post(
        gw,
        "/bookread",
        &format!(r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">{sup}<ReadRequests><HotelReadRequest/></ReadRequests></OTA_ReadRQ>"#),
    )
    .await;
    let rs = ota_messages::booking_read::OtaResRetrieveRs::from_xml(&read).unwrap_or_else(|e| panic!("{e}\n{read}"));
    let taken: Vec<(String, String)> = rs
        .reservations_list
        .map(|l| l.hotel_reservation)
        .unwrap_or_default()
        .into_iter()
        .map(|hr| {
            let internal = hr
                .unique_id
                .iter()
                .find(|u| u.id_context == IdContext::Internal)
                .map(|u| u.id.clone())
                .unwrap_or_default();
            let version =
                hr.last_modify_date_time.map(|v| v.local.format("%Y-%m-%dT%H:%M:%S").to_string()).unwrap_or_default();
            (internal, version)
        })
        .collect();
    let bookings: String = taken
        .iter()
        .map(|(r, v)| format!(r#"<HotelReservation LastModifyDateTime="{v}"><UniqueID Type="14" ID="{r}" ID_Context="Internal"/></HotelReservation>"#))
        .collect();
    post(gw, "/notifreport", &format!(r#"<OTA_NotifReportRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2016.1"><Success/><TPA_Extensions>{sup}</TPA_Extensions><NotifDetails><HotelNotifReport><HotelReservations>{bookings}</HotelReservations></HotelNotifReport></NotifDetails></OTA_NotifReportRQ>"#)).await;
    taken.into_iter().map(|(r, _)| r).collect()
}

/// (Client reference, Internal reference) of the test's bookings (`BKP…`), hotel then activity,
/// read with a plain SQLite connection (which reads a `-wal` beside the file, as a gateway would).
fn bookings(db: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare(
            "SELECT client_ref, internal_ref FROM hotel_booking WHERE client_ref LIKE 'BKP%'
             UNION ALL SELECT client_reference, reference FROM activity_booking WHERE client_reference LIKE 'BKP%' ORDER BY 1",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap()
}

/// The restore reports beside the database.
fn reports(db: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".restore-report-"))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

fn suffixed(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_drops_later_bookings_and_reports_them() {
    let db = TestDb::new(Backend::Sqlite).await;
    let arg = db.arg();
    let path = db.sqlite_path().to_path_buf();
    let dir = tempfile::tempdir().unwrap();
    let backup = dir.path().join("gateway-backup.db");
    let backup_arg = backup.to_str().unwrap().to_string();

    let mut gw = GatewayProcess::start(&arg, &[]).await;
    post(&gw, "/hotelbook", &hotel_commit("BKP-1", day(40), "Before")).await;

    // The backup, while the gateway serves.
    let (code, out, err) = cli(&["backup", "--db", &arg, "--to", &backup_arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("schema version ") && out.contains("hotel booking(s)"), "{out}");
    assert_eq!(bookings(&backup).len(), 1, "the backup holds the booking made before it");
    let (code, out, err) = cli(&["backup", "--db", &arg, "--to", &backup_arg], "");
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("exists") && err.contains("never overwrites"), "{err}");

    // After the backup: a hotel booking its supplier takes, and an activity booking.
    post(&gw, "/hotelbook", &hotel_commit("BKP-2", day(41), "Afterwards")).await;
    post(&gw, "/activitybook", &commit_xml("BKP-A", day(42), 2)).await;
    let now = bookings(&path);
    assert_eq!(now.iter().map(|b| b.0.as_str()).collect::<Vec<_>>(), ["BKP-1", "BKP-2", "BKP-A"]);
    let internal = |client: &str| now.iter().find(|b| b.0 == client).unwrap().1.clone();
    let taken = supplier_takes_its_bookings(&gw).await;
    assert!(taken.contains(&internal("BKP-2")), "{taken:?}");

    // What a restore would drop, while the gateway serves (the database left as it is).
    let (code, out, err) = cli(&["restore", "--report-only", "--db", &arg, "--from", &backup_arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("NOT replaced") && out.contains(&format!("Internal {} Client BKP-2", internal("BKP-2"))),
        "{out}"
    );
    assert_eq!(bookings(&path).len(), 3, "nothing changed");
    let dry_run = reports(&path);
    assert_eq!(dry_run.len(), 1);

    // Not while a gateway has the database open.
    let (code, out, err) = cli(&["restore", "--db", &arg, "--from", &backup_arg], "");
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("in use") && err.contains("stop every gateway"), "{err}");
    assert_eq!(bookings(&path).len(), 3, "nothing changed");
    assert_eq!(reports(&path), dry_run, "no report of a refused restore");

    // The gateway dies: its -wal stays beside the file (what a copy-back restore replayed).
    gw.child.kill().unwrap();
    gw.child.wait().unwrap();
    assert!(suffixed(&path, "-wal").exists(), "a killed gateway leaves its -wal");

    let (code, out, err) = cli(&["restore", "--db", &arg, "--from", &backup_arg], "");
    assert_eq!(code, 0, "{out}{err}");
    for later in ["BKP-2", "BKP-A"] {
        let line = format!("Internal {} Client {later} partner DEMO", internal(later));
        assert!(out.contains(&line), "the report names {later}: {out}");
    }
    assert!(!out.contains("Client BKP-1 "), "the booking of the backup is no disagreement: {out}");
    assert!(out.contains("2 booking(s) of the current database"), "{out}");
    assert!(out.contains("DROPPED") && out.contains("HTL00042 (supplier SUP-DEMO)"), "{out}");
    assert!(out.contains("SENT to the supplier after the backup"), "BKP-2 was acknowledged: {out}");
    assert!(out.contains("supplier(s) SUP-DEMO received bookings"), "{out}");
    assert!(out.contains(r#"surname="Afterwards""#), "the dropped booking's data: {out}");
    assert!(out.contains("activity_booking_participant:"), "{out}");
    assert!(out.contains("restored ") && out.contains(".restore-report-"), "{out}");
    let report =
        reports(&path).into_iter().find(|r| !dry_run.contains(r)).expect("the report file beside the database");
    let written = std::fs::read_to_string(&report).unwrap();
    assert!(!written.contains("NOT replaced"), "{written}");
    assert!(written.contains(&internal("BKP-2")) && written.contains("SENT"), "{written}");

    // Restored: no -wal, and the later bookings are gone even when a connection opens the file.
    assert!(!suffixed(&path, "-wal").exists() && !suffixed(&path, "-shm").exists());
    assert_eq!(bookings(&path), vec![("BKP-1".to_string(), internal("BKP-1"))]);
    // A gateway serves the restored database.
    let gw = GatewayProcess::start(&arg, &[]).await;
    post(&gw, "/hotelbook", &hotel_commit("BKP-3", day(43), "Again")).await;
    drop(gw);

    // Only a gateway database is restored.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"not a database at all, just some bytes long enough to look like one").unwrap();
    let (code, _, err) = cli(&["restore", "--db", &arg, "--from", junk.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(err.contains("restore refused"), "{err}");
    assert_eq!(bookings(&path).len(), 2, "nothing changed");
}

#[test]
fn postgres_is_answered_with_its_own_tools() {
    for args in [
        &["backup", "--db", "postgres://gw@localhost/gw", "--to", "/nonexistent/b.db"][..],
        &["restore", "--db", "postgres://gw@localhost/gw", "--from", "/nonexistent/b.db"][..],
    ] {
        let (code, out, err) = cli(args, "");
        assert_eq!(code, 1, "{out}");
        assert!(err.contains("pg_dump") && err.contains("PITR") && err.contains("Backups and restore"), "{err}");
    }
}

/// Backups taken while a client books without pause are each one consistent snapshot: SQLite's
/// check passes, and each holds every booking answered before it started and none that was not
/// answered by the time it ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backups_while_booking_are_consistent() {
    let db = TestDb::new(Backend::Sqlite).await;
    let arg = db.arg();
    let dir = tempfile::tempdir().unwrap();
    let gw = GatewayProcess::start(&arg, &[]).await;
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (url, answered, stop) = (gw.url.clone(), answered.clone(), stop.clone());
        tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                n += 1;
                // One participant on a different date each time (20 places a day).
                let body = commit_xml(&format!("BKP-C{n}"), day(10 + n % 150), 1);
                let res = http.post(format!("{url}/activitybook")).header("Content-Type", XML).body(body).send().await;
                let text = res.unwrap().text().await.unwrap();
                assert!(text.contains("<Success"), "{text}");
                answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    for i in 0..3 {
        let to = dir.path().join(format!("b{i}.db"));
        let before = answered.load(std::sync::atomic::Ordering::SeqCst);
        let (code, out, err) = tokio::task::spawn_blocking({
            let (arg, to) = (arg.clone(), to.to_str().unwrap().to_string());
            move || cli(&["backup", "--db", &arg, "--to", &to], "")
        })
        .await
        .unwrap();
        let after = answered.load(std::sync::atomic::Ordering::SeqCst) + 1;
        assert_eq!(code, 0, "{out}{err}");
        let held = bookings(&to).len();
        assert!(
            before <= held && held <= after,
            "backup {i} holds {held}: {before} were answered before it, {after} after"
        );
        eprintln!("backup {i}: {held} booking(s), {before} answered before it, {after} after; {out}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    writer.await.unwrap();
    assert!(answered.load(std::sync::atomic::Ordering::SeqCst) > 10, "the client booked meanwhile");
}
