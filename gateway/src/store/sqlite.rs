//! The SQLite backend: one database file in WAL mode.
//!
//! - **Reads** run on the calling task, on a connection taken from a small pool, inside a
//!   deferred transaction (one consistent snapshot). In WAL mode a reader never waits for a
//!   writer, and a statement takes microseconds, so this costs less than a hand-off to another
//!   thread would.
//! - **Writes** go to one writer thread that owns the only write connection. It takes every
//!   write waiting in its queue, runs them in one `IMMEDIATE` transaction (each in its own
//!   savepoint, so one that fails is rolled back alone) and commits once: one fsync for many
//!   bookings (group commit). A write whose request was abandoned (its deadline passed while it
//!   waited) is skipped before it starts; one that started always gets its real outcome.
//! - **Checkpoints** (copying the WAL back into the database file, with its own fsync) run on a
//!   checkpointer thread with its own connection, every [`CHECKPOINT_EVERY`], in SQLite's
//!   `PASSIVE` mode (never waiting for a reader or the writer). The writer's connection does
//!   not checkpoint itself (`wal_autocheckpoint=0`): otherwise every 1,000 pages one commit
//!   would also copy the pages and fsync the database file while every queued write waits.
//!   A writer that never pauses appends while a `PASSIVE` checkpoint copies, so the WAL would
//!   never start again from its beginning: once it is longer than [`RESTART_PAGES`], the
//!   writer runs one `PASSIVE` checkpoint itself between two batches (copying the pages the
//!   checkpointer has not), after which its next write starts the WAL again. Both are counted
//!   (`ota_sqlite_writer_checkpoints_total`, `ota_sqlite_wal_restarts_total`: the load test
//!   prints them).
//!
//! - **The file is watched**: the checkpointer also checks, every [`CHECKPOINT_EVERY`], that the
//!   path still names the file the gateway opened (its device and inode) and how large the WAL
//!   has grown. A database file deleted or replaced while serving, or a WAL past [`MAX_WAL_BYTES`]
//!   (checkpoints failing), makes every read and write fail with a clean
//!   [`StoreError::Unavailable`] naming why, and the health check answer 503, within a fraction
//!   of a second: writes acknowledged into an unlinked file would be lost at the next start.
//!   Failed checkpoints are counted (`ota_sqlite_checkpoint_failures_total`); after
//!   [`FAILING_CHECKPOINTS`] in a row the health check answers 503 too.
//!
//! Every connection has `foreign_keys=ON`, `synchronous=FULL` (a committed booking survives a
//! power cut) and a busy timeout, so several processes can share the file.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rusqlite::Connection;

use super::sql::Conn;
use super::{StoreError, Ticket};

/// How long a connection waits for a lock held by another process.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The most writes committed together.
const MAX_BATCH: usize = 512;

/// How often the checkpointer thread copies the WAL back into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// The most idle read connections kept.
const MAX_IDLE_READERS: usize = 16;

/// The WAL's length in pages (as the checkpointer last saw it) past which the writer, between
/// two batches, runs a `PASSIVE` checkpoint itself: a writer that never pauses appends while the
/// checkpointer copies, so the WAL would never start again from its beginning and would grow
/// until writes are refused. The writer's own checkpoint, with no write beside it, reaches the
/// end, and its next write starts the WAL again (unless a reader of an older snapshot is still
/// about; then at the checkpointer's next look). A restart from the checkpointer never got the
/// lock from a busy writer. In the load test's Commit run (release, 2 cores, ~8,000 Commits/s,
/// as before the restart: docs/scaling.md) the writer checkpoints about 4 times a second and the
/// checkpointer sees the WAL start again after 3 in 5 of them; a `RESTART` checkpoint here
/// instead (it waits for every reader) ran 3,261/s. 16 MiB of 4 KiB pages.
const RESTART_PAGES: i64 = 4096;

/// The largest the WAL may grow (checkpoints keep it far smaller; past this they are failing and
/// it would fill the disk): reads and writes are refused until a checkpoint succeeds.
pub const MAX_WAL_BYTES: u64 = 256 << 20;

/// Failed checkpoints in a row after which the health check answers 503 (5 s of failures).
pub const FAILING_CHECKPOINTS: u32 = 25;

/// What the checkpointer found about the database file (see the module docs).
#[derive(Debug)]
struct FileWatch {
    path: PathBuf,
    /// The device and inode of the file opened.
    identity: Option<(u64, u64)>,
    /// Why the database cannot be used now, if it cannot.
    broken: Mutex<Option<String>>,
    /// Failed checkpoints in a row.
    failing: AtomicU32,
    /// The WAL's length in pages at the checkpointer's last checkpoint (see [`RESTART_PAGES`]).
    wal_pages: AtomicI64,
}

impl FileWatch {
    fn new(path: &Path) -> FileWatch {
        FileWatch {
            path: path.to_path_buf(),
            identity: identity(path),
            broken: Mutex::new(None),
            failing: AtomicU32::new(0),
            wal_pages: AtomicI64::new(0),
        }
    }

    /// Looks at the file and the WAL again.
    fn look(&self) {
        let now = identity(&self.path);
        let wal = std::fs::metadata(wal_path(&self.path)).map_or(0, |m| m.len());
        let broken = if self.identity.is_some() && now != self.identity {
            Some(format!(
                "the database file {} was deleted or replaced while the gateway served it: nothing more is read or written; restart the gateway on the right file",
                self.path.display()
            ))
        } else if wal > MAX_WAL_BYTES {
            Some(format!(
                "the write-ahead log of {} has grown to {wal} bytes (checkpoints are failing): writes are refused until one succeeds",
                self.path.display()
            ))
        } else {
            None
        };
        if let Ok(mut b) = self.broken.lock() {
            if b.is_none()
                && let Some(why) = &broken
            {
                tracing::error!(why = %why, "the SQLite database cannot be used");
            }
            *b = broken;
        }
    }

    /// Refuses with why the database cannot be used, if it cannot.
    fn check(&self) -> Result<(), StoreError> {
        match self.broken.lock().ok().and_then(|b| b.clone()) {
            Some(why) => Err(StoreError::Unavailable(why)),
            None => Ok(()),
        }
    }

    /// [`FileWatch::check`], and whether checkpoints have been failing for a while.
    fn health(&self) -> Result<(), StoreError> {
        self.check()?;
        let failing = self.failing.load(Ordering::Relaxed);
        if failing >= FAILING_CHECKPOINTS {
            return Err(StoreError::Unavailable(format!(
                "the last {failing} WAL checkpoints of {} failed",
                self.path.display()
            )));
        }
        Ok(())
    }
}

/// The device and inode of a file, `None` when there is none.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Elsewhere only whether the file exists.
#[cfg(not(unix))]
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|_| (0, 0))
}

/// The WAL file of a database file.
fn wal_path(path: &Path) -> PathBuf {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}

/// A write waiting for the writer thread (see [`super::Store::write`]).
pub(crate) trait WriteJob: Send {
    /// Runs the write on the connection, inside the batch's transaction and its own
    /// savepoint; false when it failed (the savepoint is then rolled back).
    fn run(&mut self, conn: &mut Connection) -> bool;
    /// Reports the outcome once the batch's commit is known (`Err`: the transaction did not
    /// start or did not commit, so nothing of the write was stored).
    fn finish(self: Box<Self>, commit: Result<(), StoreError>);
    /// Reports that the write was abandoned (its request gave up) before it started.
    fn abandon(self: Box<Self>);
}

struct Queued {
    ticket: Arc<Ticket>,
    job: Box<dyn WriteJob>,
}

/// The SQLite backend.
pub(crate) struct Sqlite {
    path: PathBuf,
    watch: Arc<FileWatch>,
    readers: Mutex<Vec<Connection>>,
    writer: Mutex<Option<mpsc::Sender<Queued>>>,
}

impl std::fmt::Debug for Sqlite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sqlite").field("path", &self.path).finish_non_exhaustive()
    }
}

/// Opens a connection with the gateway's settings.
pub(crate) fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;")?;
    conn.set_prepared_statement_cache_capacity(256);
    Ok(conn)
}

impl Sqlite {
    /// Opens the database (WAL mode) and starts the writer thread. The schema must be migrated
    /// already (see [`super::migrate`]).
    pub(crate) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let conn = connect(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        // After a checkpoint that reached the end, the WAL restarts and is cut back to this size:
        // a burst does not leave a large file behind.
        conn.pragma_update(None, "journal_size_limit", 64i64 << 20)?;
        let checkpointer = connect(path)?;
        let watch = Arc::new(FileWatch::new(path));
        let (watching, writing) = (watch.clone(), watch.clone());
        let (tx, rx) = mpsc::channel::<Queued>();
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                write_loop(conn, rx, &writing);
                // The writer has finished: the checkpointer stops too.
                drop(stop);
            })
            .map_err(|e| StoreError::Unavailable(format!("cannot start the writer thread: {e}")))?;
        std::thread::Builder::new()
            .name("sqlite-checkpointer".into())
            .spawn(move || checkpoint_loop(checkpointer, stopped, &watching))
            .map_err(|e| StoreError::Unavailable(format!("cannot start the checkpointer thread: {e}")))?;
        Ok(Sqlite { path: path.to_path_buf(), watch, readers: Mutex::new(Vec::new()), writer: Mutex::new(Some(tx)) })
    }

    /// The database file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the database can be used, and whether checkpoints are failing (see the module
    /// docs): the health check's part that is SQLite's own.
    pub(crate) fn health(&self) -> Result<(), StoreError> {
        self.watch.health()
    }

    fn take_reader(&self) -> Result<Connection, StoreError> {
        // A connection opened on a deleted path would create an empty database there.
        self.watch.check()?;
        let idle = self.readers.lock().ok().and_then(|mut r| r.pop());
        match idle {
            Some(c) => Ok(c),
            None => connect(&self.path),
        }
    }

    fn put_reader(&self, conn: Connection) {
        if let Ok(mut idle) = self.readers.lock()
            && idle.len() < MAX_IDLE_READERS
        {
            idle.push(conn);
        }
    }

    /// Runs `f` in a read transaction, on this task (see the module docs).
    pub(crate) async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        let mut conn = self.take_reader()?;
        let out = read_on(&mut conn, f);
        // A connection left inside a transaction (a failed COMMIT) is not reused.
        if conn.is_autocommit() {
            self.put_reader(conn);
        }
        out
    }

    /// Runs `f` outside any transaction, on this task: each statement sees the latest
    /// committed state on its own.
    pub(crate) async fn peek<T, E, F>(&self, f: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
    {
        let mut conn = self.take_reader()?;
        let out = {
            let mut c = Conn::sqlite(&mut conn);
            run_ready(f(&mut c))
        };
        if conn.is_autocommit() {
            self.put_reader(conn);
        }
        out
    }

    /// Queues a write for the writer thread.
    pub(crate) fn submit(&self, ticket: Arc<Ticket>, job: Box<dyn WriteJob>) {
        if let Err(e) = self.watch.check() {
            job.finish(Err(e));
            return;
        }
        let sender = self.writer.lock().ok().and_then(|w| w.clone());
        let unsent = match sender {
            Some(sender) => sender.send(Queued { ticket, job }).err().map(|e| e.0.job),
            None => Some(job),
        };
        if let Some(job) = unsent {
            job.finish(Err(StoreError::Unavailable("the SQLite writer has stopped".into())));
        }
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        // Closing the queue lets the writer thread finish what it has and exit.
        if let Ok(mut w) = self.writer.lock() {
            w.take();
        }
    }
}

/// Runs a read closure to completion on a SQLite connection, in a deferred transaction.
fn read_on<T, E, F>(conn: &mut Connection, f: F) -> Result<T, E>
where
    E: From<StoreError>,
    F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, E>>,
{
    conn.execute_batch("BEGIN DEFERRED").map_err(StoreError::from)?;
    let out = {
        let mut c = Conn::sqlite(conn);
        run_ready(f(&mut c))
    };
    match out {
        Ok(v) => {
            conn.execute_batch("COMMIT").map_err(StoreError::from)?;
            Ok(v)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Polls a future that never waits (a SQLite repo function: every statement runs inside the
/// poll) to its end.
pub(crate) fn run_ready<T, E: From<StoreError>>(fut: BoxFuture<'_, Result<T, E>>) -> Result<T, E> {
    let mut fut = fut;
    let mut cx = Context::from_waker(Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        Poll::Ready(out) => out,
        Poll::Pending => {
            Err(StoreError::Data("a SQLite repo function waited on something other than SQLite".into()).into())
        }
    }
}

/// The writer thread: batches of queued writes, one transaction and one commit each.
fn write_loop(mut conn: Connection, rx: mpsc::Receiver<Queued>, watch: &FileWatch) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(more) => batch.push(more),
                Err(_) => break,
            }
        }
        // The write lock first (it may be held by another process for a while): a write whose
        // request gave up meanwhile must not start.
        if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
            tracing::error!(error = %e, "the write transaction could not start");
            for q in batch {
                if q.ticket.start() {
                    q.job.finish(Err(StoreError::Unavailable(format!("the write transaction could not start: {e}"))));
                } else {
                    q.job.abandon();
                }
            }
            continue;
        }
        let mut started = Vec::with_capacity(batch.len());
        for q in batch {
            if q.ticket.start() {
                started.push(q.job);
            } else {
                q.job.abandon();
            }
        }
        if started.is_empty() {
            let _ = conn.execute_batch("ROLLBACK");
            continue;
        }
        for job in &mut started {
            run_job(&mut conn, job.as_mut());
        }
        let committed = conn.execute_batch("COMMIT");
        if let Err(e) = &committed {
            tracing::error!(error = %e, writes = started.len(), "the write transaction could not commit");
            let _ = conn.execute_batch("ROLLBACK");
        }
        // Before any of the batch is answered: the reads kept from before it are stale.
        super::recent::note_write();
        for job in started {
            let outcome = match &committed {
                Ok(()) => Ok(()),
                Err(e) => Err(StoreError::Unavailable(format!("the write was not committed: {e}"))),
            };
            job.finish(outcome);
        }
        // Once the WAL is long, and with the batch answered: a checkpoint with no write beside
        // it reaches the end, and the next write starts the WAL again (see `RESTART_PAGES`).
        if watch.wal_pages.load(Ordering::Relaxed) > RESTART_PAGES {
            watch.wal_pages.store(0, Ordering::Relaxed);
            crate::metrics::writer_checkpointed();
            if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                tracing::warn!(error = %e, "the writer's WAL checkpoint failed");
            }
        }
    }
}

/// The checkpointer thread: a `PASSIVE` checkpoint every [`CHECKPOINT_EVERY`] until the writer
/// thread ends (then a last one).
fn checkpoint_loop(conn: Connection, stopped: mpsc::Receiver<()>, watch: &FileWatch) {
    let mut last_pages = 0;
    loop {
        let stop = !matches!(stopped.recv_timeout(CHECKPOINT_EVERY), Err(mpsc::RecvTimeoutError::Timeout));
        // `PASSIVE` answers (busy, the WAL's length in pages, pages copied); busy = 1 is no
        // failure. The length tells the writer when to restart the WAL (`RESTART_PAGES`).
        match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(1)) {
            Ok(pages) => {
                watch.failing.store(0, Ordering::Relaxed);
                watch.wal_pages.store(pages, Ordering::Relaxed);
                if pages < last_pages {
                    crate::metrics::wal_restarted();
                }
                last_pages = pages;
            }
            Err(e) => {
                crate::metrics::checkpoint_failed();
                let failing = watch.failing.fetch_add(1, Ordering::Relaxed) + 1;
                // The first failure of a run, then one line in every hundred: a failing disk
                // must not also flood the log.
                if failing == 1 || failing % 100 == 0 {
                    tracing::warn!(error = %e, failing, "a WAL checkpoint failed");
                }
            }
        }
        watch.look();
        if stop {
            return;
        }
    }
}

/// Runs one job in its own savepoint; a failure (or a panic) rolls back that job alone.
fn run_job(conn: &mut Connection, job: &mut dyn WriteJob) {
    if let Err(e) = conn.execute_batch("SAVEPOINT write") {
        tracing::error!(error = %e, "a savepoint could not be taken; the write is not run");
        return;
    }
    let ok = std::panic::catch_unwind(AssertUnwindSafe(|| job.run(conn))).unwrap_or_else(|_| {
        tracing::error!("a write panicked; it was rolled back");
        false
    });
    let end = if ok { "RELEASE write" } else { "ROLLBACK TO write; RELEASE write" };
    if let Err(e) = conn.execute_batch(end) {
        tracing::error!(error = %e, "a savepoint could not be closed");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Waits until the checkpointer has looked at the file again (it looks every 200 ms).
    fn after_a_look() {
        std::thread::sleep(CHECKPOINT_EVERY * 3);
    }

    #[test]
    fn a_deleted_or_replaced_file_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gw.db");
        let db = Sqlite::open(&path).unwrap();
        after_a_look();
        assert!(db.health().is_ok());
        assert!(db.take_reader().is_ok());

        std::fs::remove_file(&path).unwrap();
        after_a_look();
        let why = db.health().unwrap_err().to_string();
        assert!(why.contains("deleted or replaced"), "{why}");
        assert!(db.take_reader().is_err(), "no connection is opened on the deleted path");
        assert!(!path.exists(), "nothing recreated the file");

        // Another file at the same path is not the database the gateway opened either.
        std::fs::write(&path, b"").unwrap();
        after_a_look();
        assert!(db.health().is_err());
    }

    /// A write of the test: one row of `bytes` bytes replacing the one before.
    struct Replace {
        id: i64,
        bytes: usize,
        done: mpsc::Sender<Result<(), StoreError>>,
    }

    impl WriteJob for Replace {
        fn run(&mut self, conn: &mut Connection) -> bool {
            let body = vec![u8::try_from(self.id % 251).unwrap(); self.bytes];
            conn.execute("DELETE FROM filler WHERE id = ?1", [self.id - 1]).is_ok()
                && conn.execute("INSERT INTO filler (id, body) VALUES (?1, ?2)", (self.id, body)).is_ok()
        }
        fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
            self.done.send(commit).unwrap();
        }
        fn abandon(self: Box<Self>) {
            self.done.send(Err(StoreError::Unavailable("abandoned".into()))).unwrap();
        }
    }

    /// Writes one after another, with readers always about, keep the WAL bounded ([`RESTART_PAGES`]
    /// and what the writer appends before the checkpointer's next look and the writer's next
    /// restart; 34–57 MiB here in debug, 165 MiB and growing before), far from
    /// [`MAX_WAL_BYTES`], where writes are refused: a writer that never pauses does not keep the
    /// WAL from starting again.
    #[test]
    fn sustained_writes_keep_the_wal_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gw.db");
        let db = Sqlite::open(&path).unwrap();
        connect(&path).unwrap().execute_batch("CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB)").unwrap();
        let reading = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (path, reading) = (path.clone(), reading.clone());
                std::thread::spawn(move || {
                    let conn = connect(&path).unwrap();
                    while reading.load(Ordering::Relaxed) {
                        let _: i64 = conn.query_row("SELECT count(*) FROM filler", [], |r| r.get(0)).unwrap();
                    }
                })
            })
            .collect();
        // 160 MiB written, 256 KiB at a time.
        let (done, outcomes) = mpsc::channel();
        let mut largest = 0;
        for id in 1..=640 {
            db.submit(Ticket::new(), Box::new(Replace { id, bytes: 256 << 10, done: done.clone() }));
            outcomes.recv().unwrap().unwrap();
            largest = largest.max(std::fs::metadata(wal_path(&path)).map_or(0, |m| m.len()));
        }
        reading.store(false, Ordering::Relaxed);
        readers.into_iter().for_each(|r| r.join().unwrap());
        assert!(db.health().is_ok());
        println!("the WAL's largest: {} MiB", largest >> 20);
        assert!(largest <= 100 << 20, "the WAL grew to {largest} bytes");
    }

    #[test]
    fn wal_paths() {
        assert_eq!(wal_path(Path::new("/var/lib/ota/gw.db")), PathBuf::from("/var/lib/ota/gw.db-wal"));
    }
}
