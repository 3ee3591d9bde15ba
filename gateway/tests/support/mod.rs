//! Shared support of the gateway's integration tests: a real gateway on an ephemeral port.
//!
//! ```ignore
//! mod support;
//! use support::TestServer;
//!
//! let server = TestServer::start().await;      // temp database + demo content, 127.0.0.1:0
//! let xml = support::sample("hotel_descriptive_info");  // a spec sample, demo credentials in it
//! let (status, headers, body) = server.client().send_raw("/hotelnbc", xml, "application/xml").await.unwrap();
//! let rs = server.client().send(&typed_request).await.unwrap();   // typed
//! server.db();                                  // the database, for direct checks
//! // dropped: the server stops (or `server.stop().await` to wait for it)
//! ```
//!
//! Demo requestors (from `gateway/demo/requestors.json`): `DEMO` / `DEMO-DIST` /
//! `demo-password` and `PARTNER2` / `P2-DIST` / `partner2-password`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;

use ota_gateway::{AppState, Client, Config, Db};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The demo requestor: (ID, ID_Context, MessagePassword).
pub const DEMO: (&str, &str, &str) = ("DEMO", "DEMO-DIST", "demo-password");
/// The second demo requestor (for ownership tests): (ID, ID_Context, MessagePassword).
pub const PARTNER2: (&str, &str, &str) = ("PARTNER2", "P2-DIST", "partner2-password");

/// A gateway serving a fresh temporary database with the demo content.
pub struct TestServer {
    addr: SocketAddr,
    url: String,
    db: Db,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    /// Starts a gateway with the default settings.
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// Starts a gateway with settings changed by `configure` (body limit, allow-list,
    /// time-outs, …; the address and database path are the server's own).
    pub async fn start_with(configure: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config { db_path: dir.path().join("gateway.db"), ..Config::default() };
        configure(&mut config);
        let db = Db::open(&config.db_path).await.expect("open the database");
        ota_gateway::seed::seed_demo_if_empty(&db).await.expect("seed the demo content");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local address");
        config.addr = addr;
        let (stop, stopped) = oneshot::channel::<()>();
        let state = AppState::new(db.clone(), config);
        let task = tokio::spawn(ota_gateway::serve(listener, state, async move {
            let _ = stopped.await;
        }));
        TestServer { addr, url: format!("http://{addr}"), db, stop: Some(stop), task: Some(task), _dir: dir }
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

    /// The server's database.
    pub fn db(&self) -> &Db {
        &self.db
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
