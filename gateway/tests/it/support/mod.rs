//! Shared support of the gateway's integration tests: a fresh database on either backend, a
//! real gateway on an ephemeral port, in-process calls, and the spec's samples.
//!
//! ```ignore
//! mod support;
//! use support::{Backend, TestServer};
//!
//! async fn nbc_answers(b: Backend) {
//!     let server = TestServer::start(b).await;      // fresh database + demo content, 127.0.0.1:0
//!     let xml = support::sample("hotel_descriptive_info");  // a spec sample, demo credentials in it
//!     let (status, headers, body) = server.client().send_raw("/hotelnbc", xml, "application/xml").await.unwrap();
//! }
//! support::backend_tests!(nbc_answers);             // one test per backend: sqlite::…, postgres::…
//! ```
//!
//! PostgreSQL: every test gets a database of its own on the server of `TEST_DATABASE_URL` (a
//! role that may create databases), or, when that is not set, on a throw-away server this test
//! process starts from the Debian package (`initdb` in a temporary directory, as the
//! `postgres` user when run as root; stopped when the process ends). A test never skips: no
//! server is a failure.
//!
//! PgBouncer ([`Backend::PgBouncer`], the `pooler` suite): a database of its own on the same
//! server, reached through a throw-away PgBouncer in transaction pooling mode
//! (`scripts/throwaway-pgbouncer.sh`, Debian's `pgbouncer` package; one per test process,
//! [`PGBOUNCER_POOL`] server connections per database, stopped when the process ends). No
//! `pgbouncer` is a failure too.
//!
//! Demo requestors (from `gateway/demo/requestors.json`): `DEMO` / `DEMO-DIST` /
//! `demo-password`, `PARTNER2` / `P2-DIST` / `partner2-pass`, and `OTA-DEMO` / `OTA-DEMO-DIST` /
//! `ota-demo-pass` (answered in the `ota2016b` dialect).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | databases, gateways (in process and as processes), samples, log capture, the CLI |
//! | [`console`] | a gateway with its operator console on, operators, a logged-in console client |
//! | [`browser`] | a headless chromium driven over WebDriver (chromedriver, fantoccini) |
//! | [`smtp`] | a minimal SMTP server on loopback that keeps the mails it accepted (the booking alerts) |

#![allow(dead_code)]

pub mod browser;
pub mod console;
pub mod smtp;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};

use ota_gateway::content::Content;
use ota_gateway::operation::{self, Request as Meta};
use ota_gateway::shared::context::{Ctx, OpError};
use ota_gateway::store::{Scalar, Ticket};
use ota_gateway::{AppState, Client, Config, Location, Store};
use ota_gateway::{activities, hotels};
use ota_messages::runtime::{Message, Request};
use ota_messages::{AnyMessage, AnyRequest};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A handler's arguments besides its request: the context, and the parts of the areas (a
/// `&Call` is a `&Ctx` where a handler takes one).
pub struct Call {
    /// The request's context.
    pub cx: Ctx,
    /// The hotel area's part.
    pub hotels: hotels::Area,
    /// The activity area's part.
    pub activities: activities::Area,
}

impl std::ops::Deref for Call {
    type Target = Ctx;

    fn deref(&self) -> &Ctx {
        &self.cx
    }
}

impl std::ops::DerefMut for Call {
    fn deref_mut(&mut self) -> &mut Ctx {
        &mut self.cx
    }
}

/// The date `n` days from today (UTC).
pub fn day(n: i64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(n)
}

/// A Commit of `people` adults on the Drach caves' morning ticket (20 places a day).
pub fn commit_xml(client_ref: &str, date: NaiveDate, people: usize) -> String {
    let participants: String = (1..=people)
        .map(|i| format!(r#"<ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="{i}"><Surname>P{i}</Surname></Individual></ParticipantInfo>"#))
        .collect();
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TIC"/>{participants}<Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#
    )
}

/// The demo requestor: (ID, ID_Context, MessagePassword).
pub const DEMO: (&str, &str, &str) = ("DEMO", "DEMO-DIST", "demo-password");
/// The second demo requestor (for ownership tests): (ID, ID_Context, MessagePassword).
pub const PARTNER2: (&str, &str, &str) = ("PARTNER2", "P2-DIST", "partner2-pass");
/// The demo partner on the `ota2016b` dialect.
pub const OTA_DEMO: (&str, &str, &str) = ota_gateway::import::DEMO_OTA;

/// The two backends every integration suite runs on, and PostgreSQL behind a pooler (the
/// `pooler` suite runs suites of the others on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file in a temporary directory.
    Sqlite,
    /// A database of its own on a PostgreSQL server.
    Postgres,
    /// A database of its own on the PostgreSQL server, every connection of the gateway (and of
    /// the test's own store) through PgBouncer in transaction pooling mode.
    PgBouncer,
}

/// Declares, for each `async fn name(b: Backend)` listed, one test per backend:
/// `sqlite::name` and `postgres::name`.
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::support::Backend::Sqlite).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::support::Backend::Postgres).await
                }
            )*
        }
    };
}
pub(crate) use backend_tests;

// ---------------------------------------------------------------------------------------------
// Databases

/// A fresh, empty database of one backend. SQLite's lives in a temporary directory removed on
/// drop; PostgreSQL's is a database of its own on the test server.
pub struct TestDb {
    /// Where it is (for [`Backend::PgBouncer`]: through the pooler).
    pub location: Location,
    /// The backend.
    pub backend: Backend,
    /// PostgreSQL: the database's URL on the server itself, never through a pooler (to hold a
    /// lock for a whole session, say).
    pub direct: Option<String>,
    _dir: Option<tempfile::TempDir>,
}

impl TestDb {
    /// A fresh database.
    pub async fn new(backend: Backend) -> TestDb {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                TestDb {
                    location: Location::Sqlite(dir.path().join("gateway.db")),
                    backend,
                    direct: None,
                    _dir: Some(dir),
                }
            }
            Backend::Postgres => {
                let url = fresh_postgres_database().await;
                TestDb { location: Location::Postgres(url.clone()), backend, direct: Some(url), _dir: None }
            }
            Backend::PgBouncer => {
                let url = fresh_postgres_database().await;
                TestDb { location: Location::Postgres(through_pgbouncer(&url)), backend, direct: Some(url), _dir: None }
            }
        }
    }

    /// A fresh database on a throw-away PostgreSQL server of its own (stopped when the test
    /// process ends): for a test that reads the server's own files (its write-ahead log holds
    /// every database's writes, so on the shared server it would see other tests' data).
    pub async fn on_own_postgres() -> TestDb {
        let url = fresh_database_on(&start_throwaway_postgres()).await;
        TestDb { location: Location::Postgres(url.clone()), backend: Backend::Postgres, direct: Some(url), _dir: None }
    }

    /// The location as the command line takes it (`--db`).
    pub fn arg(&self) -> String {
        match &self.location {
            Location::Sqlite(p) => p.display().to_string(),
            Location::Postgres(url) => url.clone(),
        }
    }

    /// Opens (and migrates) the store.
    pub async fn open(&self) -> Store {
        Store::open(&self.location).await.expect("open the store")
    }

    /// PostgreSQL: the URL of [`location`](TestDb::location) as tokio-postgres takes it (for
    /// [`Backend::PgBouncer`] through the pooler, without the gateway's own `statement_cache`
    /// parameter). Panics for SQLite.
    pub fn postgres_url(&self) -> String {
        match &self.location {
            Location::Postgres(url) => url.replace("?statement_cache=off", ""),
            Location::Sqlite(_) => panic!("not a PostgreSQL database"),
        }
    }

    /// The SQLite file (panics for PostgreSQL).
    pub fn sqlite_path(&self) -> &Path {
        match &self.location {
            Location::Sqlite(p) => p,
            Location::Postgres(_) => panic!("not a SQLite database"),
        }
    }
}

static DATABASES: AtomicU32 = AtomicU32::new(0);

/// Drops the databases earlier test processes (no longer running) left on a long-lived test
/// server, once per test process.
async fn drop_databases_of_finished_runs(client: &tokio_postgres::Client) {
    static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    let Ok(rows) = client.query("SELECT datname FROM pg_database WHERE datname LIKE 'ota\\_test\\_%'", &[]).await
    else {
        return;
    };
    for row in rows {
        let name: String = row.get(0);
        let pid = name.split('_').nth(2).and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|pid| pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
        }
    }
}

/// Creates a database on the test server; gives its URL.
async fn fresh_postgres_database() -> String {
    fresh_database_on(&postgres_admin_url()).await
}

/// Creates a database on the server of `admin` (a role that may create databases); gives its URL.
async fn fresh_database_on(admin: &str) -> String {
    let name = format!("ota_test_{}_{}", std::process::id(), DATABASES.fetch_add(1, Ordering::SeqCst));
    let (client, conn) = tokio_postgres::connect(admin, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {admin}: {e}"));
    let task = tokio::spawn(conn);
    drop_databases_of_finished_runs(&client).await;
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
    drop(client);
    let _ = task.await;
    let mut config: tokio_postgres::Config = admin.parse().expect("admin URL");
    config.dbname(&name);
    url_of(&config)
}

/// A `postgres://` URL for a connection configuration.
fn url_of(c: &tokio_postgres::Config) -> String {
    let host = match c.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "127.0.0.1".into(),
    };
    let port = c.get_ports().first().copied().unwrap_or(5432);
    let user = c.get_user().unwrap_or("postgres");
    let password = c.get_password().map(|p| format!(":{}", String::from_utf8_lossy(p))).unwrap_or_default();
    format!("postgres://{user}{password}@{host}:{port}/{}", c.get_dbname().unwrap_or("postgres"))
}

/// The URL of a role that may create databases: `TEST_DATABASE_URL`, or a throw-away server
/// started for this process.
pub fn postgres_admin_url() -> String {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => start_throwaway_postgres(),
    })
    .clone()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// Starts a throw-away server for this process with `scripts/throwaway-postgres.sh` (the one
/// owner of that start-up), which stops it and removes its directory when this process ends.
fn start_throwaway_postgres() -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/throwaway-postgres.sh");
    let dir = std::env::temp_dir().join(format!("ota-pg-{}-{}", std::process::id(), free_port()));
    let out = Command::new("bash")
        .arg(script)
        .arg("start")
        .arg(&dir)
        .args(["--watch", &std::process::id().to_string()])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    assert!(
        out.status.success(),
        "{script} failed (is the postgresql package installed?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let started = Instant::now();
    while !postgres_answers(&url) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "PostgreSQL at {url} does not answer; see {}/server.log",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    url
}

/// Server connections per database of the test process's PgBouncer: fewer than one gateway's
/// 32, so requests queue in the pooler as they would in production.
pub const PGBOUNCER_POOL: u32 = 5;

/// The URL of database `url` (on the test server) through the test process's PgBouncer, in
/// transaction pooling mode, with `statement_cache=off`; started at the first call with `scripts/throwaway-pgbouncer.sh`
/// (the one owner of that start-up), which stops it when this process ends.
pub fn through_pgbouncer(url: &str) -> String {
    static POOLER: OnceLock<String> = OnceLock::new();
    let pooler = POOLER.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/throwaway-pgbouncer.sh");
        let dir = std::env::temp_dir().join(format!("ota-pgbouncer-{}-{}", std::process::id(), free_port()));
        let out = Command::new("bash")
            .arg(script)
            .arg("start")
            .arg(&dir)
            .args(["--upstream", &postgres_admin_url(), "--pool-size", &PGBOUNCER_POOL.to_string()])
            .args(["--watch", &std::process::id().to_string()])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
        assert!(
            out.status.success(),
            "{script} failed (is the pgbouncer package installed? apt-get install pgbouncer): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    });
    // The same user and database on the pooler's address; no password: the pooler trusts its
    // clients and logs in to the server itself. No statement kept from one transaction to the
    // next (the pooler may run the next on another server connection).
    let pooler: tokio_postgres::Config = pooler.parse().expect("the pooler's URL");
    let db: tokio_postgres::Config = url.parse().expect("a database URL");
    let Some(tokio_postgres::config::Host::Tcp(host)) = pooler.get_hosts().first() else {
        panic!("the pooler listens on TCP")
    };
    let port = pooler.get_ports().first().copied().expect("the pooler's port");
    format!(
        "postgres://{}@{host}:{port}/{}?statement_cache=off",
        db.get_user().unwrap_or("postgres"),
        db.get_dbname().expect("a database name")
    )
}

fn postgres_answers(url: &str) -> bool {
    std::thread::scope(|s| {
        s.spawn(|| {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return false };
            rt.block_on(async {
                match tokio_postgres::connect(url, tokio_postgres::NoTls).await {
                    Ok((client, conn)) => {
                        let task = tokio::spawn(conn);
                        let ok = client.simple_query("SELECT 1").await.is_ok();
                        drop(client);
                        let _ = task.await;
                        ok
                    }
                    Err(_) => false,
                }
            })
        })
        .join()
        .unwrap_or(false)
    })
}

// ---------------------------------------------------------------------------------------------
// Gateways

/// A gateway's state on a fresh database with the demo content, called in-process (no HTTP).
pub struct TestGateway {
    /// The database.
    pub db: TestDb,
    /// The store.
    pub store: Store,
    /// The gateway's state (store, content, settings).
    pub state: AppState,
}

impl TestGateway {
    /// A fresh database with the demo content.
    pub async fn start(backend: Backend) -> TestGateway {
        let db = TestDb::new(backend).await;
        let store = db.open().await;
        ota_gateway::import::seed_demo_if_empty(&store).await.expect("seed the demo content");
        let state = AppState::new(store.clone(), Config { db: db.location.clone(), ..Config::default() })
            .await
            .expect("load the content");
        TestGateway { db, store, state }
    }

    /// The current content snapshot.
    pub fn content(&self) -> std::sync::Arc<Content> {
        self.state.content.get()
    }

    /// Reloads the content after a change of it.
    pub async fn reload(&self) {
        self.state.content.refresh().await.expect("reload the content");
    }

    /// Answers a request as the gateway would (authentication included).
    pub async fn answer(&self, rq: AnyRequest) -> AnyMessage {
        let meta = Meta { id: "test".into(), ticket: Ticket::new(), deadline: None, client: None };
        operation::dispatch(&self.state, rq, &[], &meta).await.message
    }

    /// The context of a request of the demo requestor and the areas' parts (for calling a
    /// handler directly, with a request the schema would refuse).
    pub fn ctx(&self) -> Call {
        let content = self.state.content.get();
        let cx = Ctx {
            store: self.store.clone(),
            requestor: ota_gateway::requestors::Requestor {
                id: DEMO.0.into(),
                id_context: DEMO.1.into(),
                name: "Demo partner".into(),
                instance: None,
                dialect: ota_messages::Dialect::Service,
                limits: ota_gateway::requestors::Limits::default(),
                role: ota_gateway::requestors::Role::Distributor,
            },
            now: chrono::Utc::now(),
            request_id: "test".into(),
            ticket: Ticket::new(),
            deadline: None,
        };
        Call { cx, hotels: self.state.hotels(&content), activities: self.state.activities(&content) }
    }

    /// Sends a typed request (its POS must carry valid credentials) and gives the typed answer.
    pub async fn send<R: Request>(&self, rq: &R) -> R::Response {
        let any = AnyRequest::from_xml(&rq.to_xml().expect("encode the request")).expect("decode the request");
        let answer = self.answer(any).await;
        let xml = answer.to_xml().expect("encode the answer");
        <R::Response as Message>::from_xml(&xml).unwrap_or_else(|e| panic!("the answer does not decode: {e}\n{xml}"))
    }

    /// `SELECT count(*) FROM table`.
    pub async fn count(&self, table: &str) -> i64 {
        count(&self.store, table).await
    }
}

/// A gateway serving a fresh database with the demo content over HTTP.
pub struct TestServer {
    addr: SocketAddr,
    url: String,
    /// The gateway's state.
    pub state: AppState,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    /// The database.
    pub db: TestDb,
}

impl TestServer {
    /// Starts a gateway with the default settings.
    pub async fn start(backend: Backend) -> TestServer {
        TestServer::start_with(backend, |_| {}).await
    }

    /// Starts a gateway with settings changed by `configure` (body limit, allow-list,
    /// time-outs, …; the address and database are the server's own).
    pub async fn start_with(backend: Backend, configure: impl FnOnce(&mut Config)) -> TestServer {
        TestServer::start_on(TestDb::new(backend).await, configure).await
    }

    /// Starts a gateway on a database the test made (see [`TestDb::on_own_postgres`]), with
    /// settings changed by `configure`.
    pub async fn start_on(db: TestDb, configure: impl FnOnce(&mut Config)) -> TestServer {
        let store = db.open().await;
        ota_gateway::import::seed_demo_if_empty(&store).await.expect("seed the demo content");
        let mut config = Config { db: db.location.clone(), ..Config::default() };
        configure(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local address");
        config.addr = addr;
        let (stop, stopped) = oneshot::channel::<()>();
        let state = AppState::new(store, config).await.expect("load the content");
        let task = tokio::spawn(ota_gateway::serve(listener, state.clone(), async move {
            let _ = stopped.await;
        }));
        TestServer { addr, url: format!("http://{addr}"), state, stop: Some(stop), task: Some(task), db }
    }

    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A client of this server.
    pub fn client(&self) -> Client {
        Client::new(self.url.clone())
    }

    /// The server's store.
    pub fn store(&self) -> &Store {
        &self.state.store
    }

    /// Stops the server gracefully and waits until it has stopped (requests in flight finish).
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await.expect("server task"),
            None => Ok(()),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A gateway process (`ota-gateway serve`) on a database, killed on drop.
pub struct GatewayProcess {
    /// The child.
    pub child: std::process::Child,
    /// Its base URL (with the base path, when `--base-path` or `OTA_GATEWAY_BASE_PATH` is given).
    pub url: String,
}

impl GatewayProcess {
    /// Starts `ota-gateway serve --db DB` with extra arguments on a free port and waits until
    /// `/healthz` answers.
    pub async fn start(db: &str, extra: &[&str]) -> GatewayProcess {
        GatewayProcess::start_with(db, extra, &[], None).await
    }

    /// Starts `ota-gateway serve --db DB` with extra arguments and environment variables on a
    /// port the system gives it (`--addr 127.0.0.1:0`: the port is read from the banner it
    /// prints, so two gateways started at once never race for one port), its stderr appended to
    /// `log` (else discarded; `RUST_LOG=warn` unless `env` sets it), and waits until `/healthz`
    /// answers.
    pub async fn start_with(db: &str, extra: &[&str], env: &[(&str, &str)], log: Option<&Path>) -> GatewayProcess {
        let stderr = match log {
            Some(path) => Stdio::from(
                std::fs::OpenOptions::new().create(true).append(true).open(path).expect("open the log file"),
            ),
            None => Stdio::null(),
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db", db])
            .args(extra)
            .env("RUST_LOG", "warn")
            // The demo content (serve --demo); a test's OTA_GATEWAY_DEMO=false goes without.
            .env("OTA_GATEWAY_DEMO", "true")
            // The demo's console on a port of its own (not the demo's 127.0.0.1:8081, which
            // parallel tests would contend for).
            .env("OTA_GATEWAY_CONSOLE_ADDR", "127.0.0.1:0")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("start ota-gateway");
        // The banner's first line names the base URL; the rest of the output is read and
        // dropped, so the gateway never blocks on a full pipe.
        let stdout = child.stdout.take().expect("the gateway's stdout");
        let (found, url) = oneshot::channel::<String>();
        std::thread::spawn(move || {
            use std::io::BufRead;
            let mut found = Some(found);
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = listening_url(&line)
                    && let Some(found) = found.take()
                {
                    let _ = found.send(url);
                }
            }
        });
        let url = match tokio::time::timeout(Duration::from_secs(60), url).await {
            Ok(Ok(url)) => url,
            Ok(Err(_)) => {
                let status = child.wait().expect("wait for the gateway");
                panic!("the gateway exited ({status}) before listening: serve --db {db} {extra:?}")
            }
            Err(_) => panic!("the gateway did not start listening within 60 s: serve --db {db} {extra:?}"),
        };
        let process = GatewayProcess { child, url };
        process.wait_ready().await;
        process
    }

    async fn wait_ready(&self) {
        let http = reqwest::Client::new();
        let started = Instant::now();
        loop {
            if let Ok(res) = http.get(format!("{}/healthz", self.url)).send().await
                && res.status().is_success()
            {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "the gateway at {} did not start", self.url);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A client of this gateway.
    pub fn client(&self) -> Client {
        Client::new(self.url.clone())
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A line of `/proc/PID/status` as a number (`VmRSS` in KiB, `Threads`, …).
    pub fn status(&self, field: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("read /proc/PID/status");
        text.lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc/{}/status", self.pid()))
    }

    /// Resident memory, in MiB.
    pub fn rss_mib(&self) -> f64 {
        self.status("VmRSS") as f64 / 1024.0
    }

    /// The `/metrics` text (from the main address).
    pub async fn metrics(&self) -> String {
        reqwest::get(format!("{}/metrics", self.url)).await.expect("GET /metrics").text().await.expect("metrics text")
    }
}

/// The base URL a line of `serve`'s banner names (`ota-gateway listening on URL (health: …)`),
/// if it is that line.
pub fn listening_url(line: &str) -> Option<String> {
    let rest = line.strip_prefix("ota-gateway listening on ")?;
    Some(rest.split(' ').next()?.trim_end_matches('/').to_string())
}

/// The value of a series in a metrics text (`name` with its labels as written, e.g.
/// `ota_requests_total{operation="hotelnbc",status="200"}`); 0 when absent.
pub fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            (name == series).then(|| value.parse::<f64>().ok()).flatten()
        })
        .unwrap_or(0.0)
}

/// A client of `url` whose connections come from the local address `from` (any of 127.0.0.0/8
/// reaches a gateway on 127.0.0.1), so a test can play several client addresses.
pub fn client_from(url: &str, from: std::net::IpAddr) -> Client {
    let http = reqwest::Client::builder().local_address(from).build().expect("an HTTP client");
    Client::with_http(url.to_string(), http)
}

impl Drop for GatewayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The answer of a handler as the gateway gives it: a refused request is the RS with its
/// `Errors` (a store failure fails the test).
pub fn answer<R: ota_messages::runtime::Response<Errors = ota_messages::common::Errors>>(
    result: Result<R, OpError>,
) -> R {
    match result {
        Ok(rs) => rs,
        Err(OpError::Rejected(problems)) => R::from_errors(ota_gateway::errors::errors(problems)),
        Err(e) => panic!("the operation failed: {e:?}"),
    }
}

/// `SELECT count(*) FROM table`.
pub async fn count(store: &Store, table: &str) -> i64 {
    let sql = format!("SELECT count(*) FROM {table}");
    store
        .read(move |c| Box::pin(async move { c.query_one::<Scalar<i64>>(&sql, &[]).await.map(|s| s.0) }))
        .await
        .expect("count")
}

// ---------------------------------------------------------------------------------------------
// Samples

/// A request sample of `spec/samples/` (`name` without `.xml`) with the sample credentials
/// replaced by the demo requestor's.
pub fn sample(name: &str) -> String {
    with_credentials(&raw_sample(name), DEMO)
}

/// A request sample of `spec/samples/` as it is (sample credentials, which the gateway refuses).
pub fn raw_sample(name: &str) -> String {
    let path = format!("{}/../spec/samples/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Replaces the credentials of a spec sample (`REQ-000123`, `DISTRIBUTOR-EU`,
/// `s3cr3t-P@ssw0rd`) with `(id, id_context, password)`.
pub fn with_credentials(xml: &str, (id, id_context, password): (&str, &str, &str)) -> String {
    xml.replace("ID=\"REQ-000123\"", &format!("ID=\"{id}\""))
        .replace("ID_Context=\"DISTRIBUTOR-EU\"", &format!("ID_Context=\"{id_context}\""))
        .replace("MessagePassword=\"s3cr3t-P@ssw0rd\"", &format!("MessagePassword=\"{password}\""))
}

/// What the tests of this binary log while at least one [`captured_logs`] is alive: every event
/// of every crate at TRACE (the `log` bridge included), in one buffer. One global subscriber
/// serves every test; it writes nothing while no capture is alive, so the other tests pay
/// nothing for it.
pub fn captured_logs() -> Capture {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    let buf = LOGS
        .get_or_init(|| {
            use tracing_subscriber::Layer;
            use tracing_subscriber::layer::SubscriberExt;
            use tracing_subscriber::util::SubscriberInitExt;
            let buf = Arc::new(Mutex::new(Vec::new()));
            let writer = buf.clone();
            let layer = tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(move || LogWriter(writer.clone()))
                // Decided at each event, never cached per callsite: a callsite first met while
                // no test captured (its interest computed then) must still be captured later.
                .with_filter(
                    tracing_subscriber::filter::dynamic_filter_fn(|_, _| CAPTURES.load(Ordering::SeqCst) > 0)
                        .with_callsite_filter(|_| tracing::subscriber::Interest::sometimes()),
                );
            tracing_subscriber::registry().with(layer).try_init().expect("one global subscriber");
            buf
        })
        .clone();
    CAPTURES.fetch_add(1, Ordering::SeqCst);
    Capture { buf }
}

/// How many [`Capture`]s are alive.
static CAPTURES: AtomicU32 = AtomicU32::new(0);

/// The log lines of the tests while it is alive (see [`captured_logs`]); `lock()` gives the bytes.
pub struct Capture {
    buf: Arc<Mutex<Vec<u8>>>,
}

impl Capture {
    /// The bytes captured so far (of every test logging meanwhile).
    pub fn lock(&self) -> std::sync::LockResult<std::sync::MutexGuard<'_, Vec<u8>>> {
        self.buf.lock()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        CAPTURES.fetch_sub(1, Ordering::SeqCst);
    }
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut b) = self.0.lock() {
            b.extend_from_slice(data);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `ota-gateway ARGS` with `stdin` as its standard input; (exit code, stdout, stderr).
pub fn cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run ota-gateway");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A small deterministic generator per task (xorshift64*; the seed must not be 0).
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The modify a partner builds from its read of a hotel booking: the booking as read, with a
/// "Late arrival." remark added (a change that books nothing else).
pub fn with_a_remark(
    read: &ota_messages::booking_read::HotelReservation,
) -> ota_messages::hotel_res_modify::HotelResModify {
    use ota_messages::hotel_res_modify::{Comment, CommentText, Comments};
    let mut payload = ota_gateway::hotels::modify_payload(read).expect("a modify from the read");
    payload.res_global_info.comments = Some(Comments {
        comment: vec![Comment {
            name: Some("Remarks".into()),
            comment_originator_code: Some("Client".into()),
            text: vec![CommentText { language: None, value: "Late arrival.".into() }],
        }],
    });
    payload
}
