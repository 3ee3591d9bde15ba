//! Backups and restores of a SQLite database (`ota-gateway backup` / `restore`; PostgreSQL has
//! `pg_dump` and continuous archiving, see `README.md`, "Backups and restore").
//!
//! - [`backup`] copies a database while gateways serve it: `VACUUM INTO` reads one consistent
//!   snapshot (a read transaction, which in WAL mode never holds up the writer) into a file
//!   beside the target, which is synced, checked ([`inspect`]) and only then linked to its name,
//!   never over an existing file.
//! - [`restore`] puts a backup in place of a database no process has open: it switches the
//!   current database out of WAL mode (`journal_mode=DELETE`), which SQLite does only for its
//!   sole connection, so any gateway still connected makes it refuse; that also copies the
//!   current `-wal` into the file and deletes it and the `-shm` (the leftover `-wal` that brought
//!   back a booking written after the backup, issue 28). Holding an exclusive lock, it compares
//!   the current database with the backup and writes a reconciliation report (the bookings the
//!   restore drops or takes back to an older version, their data, and which suppliers were sent
//!   them), then renames a synced copy of the backup over the database.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | backup, inspect and restore |
//! | `compare` | the current database against the backup: the bookings a restore drops or takes back, and the report |
//!
//! The statements here read two database files at once, outside the [`super::Store`], so they
//! are plain `rusqlite`, like the migrations.

mod compare;

use compare::{Side, report, with_rows};

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, ffi::ErrorCode};

/// Why a backup or a restore did not happen.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// It was refused, for the reason given (an existing target, a database in use, a file
    /// that is not a gateway database).
    #[error("{0}")]
    Refused(String),
    /// SQLite failed.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A file could not be written, read, synced or renamed.
    #[error("{what}: {error}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        error: std::io::Error,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BackupError {
    let what = what.into();
    move |error| BackupError::Io { what, error }
}

/// What a backup file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Its size in bytes.
    pub bytes: u64,
    /// Its schema version (the number of migrations applied).
    pub schema_version: i64,
    /// How many hotel bookings.
    pub hotel_bookings: i64,
    /// How many activity bookings.
    pub activity_bookings: i64,
    /// The latest change of a hotel booking (`updated_at`, UTC), if any.
    pub newest_hotel_booking: Option<String>,
    /// The latest change of an activity booking (`updated_at` or `created_at`, UTC), if any.
    pub newest_activity_booking: Option<String>,
    /// The latest outbox event's time, if any.
    pub newest_event: Option<String>,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        write!(
            f,
            "{} bytes, schema version {}, {} hotel booking(s) (newest change {}), {} activity booking(s) (newest change {}), newest outbox event {}",
            self.bytes,
            self.schema_version,
            self.hotel_bookings,
            or_none(&self.newest_hotel_booking),
            self.activity_bookings,
            or_none(&self.newest_activity_booking),
            or_none(&self.newest_event)
        )
    }
}

/// How long the backup waits for a lock held by another process (a checkpoint).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Backs up the SQLite database `db` (which gateways may be serving) into the new file `to`:
/// what it holds. Refuses when `to` exists; leaves nothing at `to` when it fails.
pub fn backup(db: &Path, to: &Path) -> Result<Summary, BackupError> {
    if to.symlink_metadata().is_ok() {
        return Err(BackupError::Refused(format!("{} exists: a backup never overwrites a file", to.display())));
    }
    if !db.exists() {
        return Err(BackupError::Refused(format!("no database at {}", db.display())));
    }
    let source = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    source.busy_timeout(BUSY_TIMEOUT)?;
    check_gateway(&source, &db.display().to_string())?;
    let partial = beside(to, &format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_file(&partial);
    let copied = (|| {
        let name = partial.to_str().ok_or_else(|| BackupError::Refused(format!("{} is not UTF-8", to.display())))?;
        source.execute("VACUUM INTO ?1", [name])?;
        sync_file(&partial)?;
        let summary = inspect(&partial)?;
        // A hard link never replaces an existing file (a rename would).
        match std::fs::hard_link(&partial, to) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(BackupError::Refused(format!("{} exists: a backup never overwrites a file", to.display())));
            }
            Err(e) => return Err(io(format!("linking {} to {}", partial.display(), to.display()))(e)),
        }
        sync_dir(to)?;
        Ok(summary)
    })();
    let _ = std::fs::remove_file(&partial);
    copied
}

/// What the gateway database at `path` holds, after checking it is one (SQLite's quick check,
/// the gateway's tables, a schema version this gateway knows). Opens it read-only.
pub fn inspect(path: &Path) -> Result<Summary, BackupError> {
    let bytes = std::fs::metadata(path).map_err(io(format!("reading {}", path.display())))?.len();
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    let shown = path.display().to_string();
    let schema_version = check_gateway(&conn, &shown)?;
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| BackupError::Refused(format!("{shown} is not a readable SQLite database: {e}")))?;
    if check != "ok" {
        return Err(BackupError::Refused(format!("{shown} is damaged (SQLite's quick check: {check})")));
    }
    let count = |table: &str| conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get::<_, i64>(0));
    let newest = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, Option<String>>(0));
    let activity_updated = if has_column(&conn, "activity_booking", "updated_at")? {
        "SELECT max(CASE WHEN updated_at = '' THEN created_at ELSE updated_at END) FROM activity_booking"
    } else {
        "SELECT max(created_at) FROM activity_booking"
    };
    let newest_event = if has_table(&conn, "outbox_event")? {
        conn.query_row("SELECT max(created_at) FROM outbox_event", [], |r| r.get::<_, Option<i64>>(0))?
            .map(crate::store::values::millis_text)
    } else {
        None
    };
    Ok(Summary {
        bytes,
        schema_version,
        hotel_bookings: count("hotel_booking")?,
        activity_bookings: count("activity_booking")?,
        newest_hotel_booking: newest("SELECT max(updated_at) FROM hotel_booking")?,
        newest_activity_booking: newest(activity_updated)?,
        newest_event,
    })
}

/// What [`restore`] did.
#[derive(Debug)]
pub struct Restored {
    /// The reconciliation report (also written to [`Restored::report_path`]).
    pub report: String,
    /// Where the report was written.
    pub report_path: PathBuf,
    /// What the backup holds.
    pub backup: Summary,
    /// How many bookings of the current database the restore drops or takes back to an older
    /// version.
    pub disagreements: usize,
    /// False for `--report-only`: the database was left as it was.
    pub replaced: bool,
}

/// Restores the backup `from` over the SQLite database `db`, or with `report_only` only
/// writes the report of what a restore would drop. Refuses while any process (a gateway) has
/// `db` open, and when `from` is not a gateway database of a schema this gateway knows.
pub fn restore(db: &Path, from: &Path, report_only: bool) -> Result<Restored, BackupError> {
    // A gateway database of a schema this gateway knows (else refused).
    let backup_summary = inspect(from)?;
    let backup_conn =
        Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    let backup_side = Side::read(&backup_conn)?;

    let mut notes = Vec::new();
    // The current database, locked against every other process (unless only reporting).
    let current = if db.exists() {
        match open_current(db, report_only) {
            Ok(conn) => Some(conn),
            Err(Current::InUse(e)) => {
                return Err(BackupError::Refused(format!(
                    "{} is in use (a gateway or another process has it open: SQLite refused to take it out of WAL mode: {e}); stop every gateway on it first",
                    db.display()
                )));
            }
            Err(Current::Unreadable(e)) => {
                notes.push(format!("The current database could not be opened ({e}): nothing was compared."));
                None
            }
        }
    } else {
        notes.push("There was no database at this path: nothing was compared.".to_string());
        None
    };
    let current_side = match &current {
        Some(conn) => {
            match Side::read(conn).and_then(|mut side| with_rows(conn, &mut side, &backup_side).map(|()| side)) {
                Ok(side) => Some(side),
                Err(e) => {
                    notes.push(format!("The current database could not be read ({e}): nothing was compared."));
                    None
                }
            }
        }
        None => None,
    };
    let now = chrono::Utc::now();
    let (report, disagreements) =
        report(db, from, &backup_summary, current_side.as_ref(), &backup_side, &notes, now, report_only);
    let report_path = write_report(db, now, &report)?;
    if report_only {
        return Ok(Restored { report, report_path, backup: backup_summary, disagreements, replaced: false });
    }

    // A copy of the backup beside the database, synced and checked, then renamed over it.
    let copy = beside(db, &format!("restoring-{}", std::process::id()));
    let replaced = (|| {
        std::fs::copy(from, &copy).map_err(io(format!("copying {} to {}", from.display(), copy.display())))?;
        sync_file(&copy)?;
        inspect(&copy)?;
        // journal_mode=DELETE removed them; a -wal or -shm without its database (or of a
        // database that could not be opened) would be read into the restored one.
        for stale in [suffixed(db, "-wal"), suffixed(db, "-shm"), suffixed(db, "-journal")] {
            match std::fs::remove_file(&stale) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(format!("removing {}", stale.display()))(e)),
            }
        }
        std::fs::rename(&copy, db).map_err(io(format!("renaming {} to {}", copy.display(), db.display())))?;
        sync_dir(db)
    })();
    if replaced.is_err() {
        let _ = std::fs::remove_file(&copy);
    }
    drop(current);
    replaced?;
    Ok(Restored { report, report_path, backup: backup_summary, disagreements, replaced: true })
}

enum Current {
    InUse(rusqlite::Error),
    Unreadable(rusqlite::Error),
}

/// Opens the current database; unless only reporting, takes it out of WAL mode (only its sole
/// connection may) and holds an exclusive lock until the connection is dropped.
fn open_current(db: &Path, report_only: bool) -> Result<Connection, Current> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(Current::Unreadable)?;
    if report_only {
        let _ = conn.busy_timeout(BUSY_TIMEOUT);
        return Ok(conn);
    }
    let busy = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Current::InUse(e),
        _ => Current::Unreadable(e),
    };
    conn.busy_timeout(Duration::ZERO).map_err(Current::Unreadable)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0)).map_err(busy)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(Current::InUse(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some(format!("the journal mode stayed {mode}")),
        )));
    }
    conn.execute_batch("BEGIN EXCLUSIVE").map_err(busy)?;
    Ok(conn)
}

/// The schema version of `conn`, after checking it is a gateway database.
fn check_gateway(conn: &Connection, shown: &str) -> Result<i64, BackupError> {
    let not_gateway = |why: String| BackupError::Refused(format!("{shown} is not a gateway database: {why}"));
    let version: i64 =
        conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| not_gateway(e.to_string()))?;
    for table in ["requestor", "hotel_booking", "activity_booking"] {
        if !has_table(conn, table).map_err(|e| not_gateway(e.to_string()))? {
            return Err(not_gateway(format!("it has no table {table}")));
        }
    }
    if version < 1 {
        return Err(not_gateway("its schema version is 0".into()));
    }
    let known = super::migrate::sqlite_versions() as i64;
    if version > known {
        return Err(BackupError::Refused(format!(
            "{shown} has schema version {version}, newer than this gateway's {known}: use a newer gateway"
        )));
    }
    Ok(version)
}

fn has_table(conn: &Connection, table: &str) -> Result<bool, BackupError> {
    Ok(conn
        .query_row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |_| Ok(()))
        .optional()?
        .is_some())
}

fn has_column(conn: &Connection, table: &str, column: &str) -> Result<bool, BackupError> {
    Ok(conn
        .query_row("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", [table, column], |_| Ok(()))
        .optional()?
        .is_some())
}

/// `path` with `suffix` appended (`gw.db` → `gw.db-wal`).
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// A file beside `path`: `gw.db` → `gw.db.NAME`.
fn beside(path: &Path, name: &str) -> PathBuf {
    suffixed(path, &format!(".{name}"))
}

fn sync_file(path: &Path) -> Result<(), BackupError> {
    File::open(path).and_then(|f| f.sync_all()).map_err(io(format!("syncing {}", path.display())))
}

/// Syncs the directory holding `path` (so a new name or a rename survives a power cut).
fn sync_dir(path: &Path) -> Result<(), BackupError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    #[cfg(unix)]
    {
        File::open(&dir).and_then(|f| f.sync_all()).map_err(io(format!("syncing {}", dir.display())))?;
    }
    Ok(())
}

/// Writes the report beside the database, `PATH.restore-report-<UTC time>.txt` (`-2`, `-3`, …
/// after the time when one of that name exists): where it is.
fn write_report(db: &Path, now: chrono::DateTime<chrono::Utc>, report: &str) -> Result<PathBuf, BackupError> {
    let stamp = now.format("%Y%m%dT%H%M%S%3fZ");
    for n in 1..100 {
        let name =
            if n == 1 { format!("restore-report-{stamp}.txt") } else { format!("restore-report-{stamp}-{n}.txt") };
        let path = beside(db, &name);
        match write_synced(&path, report.as_bytes()) {
            Err(BackupError::Io { error, .. }) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            written => return written.map(|()| path),
        }
    }
    Err(BackupError::Refused(format!("too many restore reports of {} at {stamp}", db.display())))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), BackupError> {
    use std::io::Write as _;
    let mut f =
        File::options().write(true).create_new(true).open(path).map_err(io(format!("creating {}", path.display())))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(io(format!("writing {}", path.display())))?;
    sync_dir(path)
}
