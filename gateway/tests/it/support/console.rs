//! The console's test support: a gateway with its console on ([`ConsoleServer`]), operators made
//! through the library, and a logged-in HTTP client ([`ConsoleClient`]) that carries the
//! session's cookie and puts its CSRF token in every form it posts.
//!
//! ```ignore
//! use crate::support::console::ConsoleServer;
//!
//! async fn my_page(b: Backend) {
//!     let gw = ConsoleServer::start(b).await;                 // fresh database + demo content
//!     let admin = gw.login_as("ann", Role::Admin).await;      // a new operator, logged in
//!     let page = admin.get("/bookings?ref=X").await;          // status, headers, body
//!     assert_eq!(page.status, 200);
//!     let done = admin.post("/partners/DEMO/limits", &[("rate", "5")]).await;  // CSRF added
//! }
//! ```

use std::time::Duration;

use ota_gateway::audit::Actor;
use ota_gateway::operators::{Role, admin};
use ota_gateway::{AppState, Config, Location, Store};
use reqwest::header::HeaderMap;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{Backend, TestDb};

/// A gateway (in this process) serving the OTA API and its operator console, each on a port of
/// its own, reloading its requestors when they change (as `serve` does).
pub struct ConsoleServer {
    /// The database, when this gateway made it (a second gateway on it has none).
    pub db: Option<TestDb>,
    /// Where the database is.
    pub location: Location,
    /// The gateway's state.
    pub state: AppState,
    /// The OTA API's base URL.
    pub url: String,
    /// The console's base URL.
    pub console: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl ConsoleServer {
    /// A gateway with its console on a fresh database with the demo content.
    pub async fn start(backend: Backend) -> ConsoleServer {
        ConsoleServer::start_with(backend, |_| {}).await
    }

    /// [`ConsoleServer::start`] with settings changed by `configure` (time-outs, throttle, …).
    pub async fn start_with(backend: Backend, configure: impl FnOnce(&mut Config)) -> ConsoleServer {
        let db = TestDb::new(backend).await;
        let store = db.open().await;
        ota_gateway::import::seed_demo_if_empty(&store).await.expect("seed the demo content");
        let location = db.location.clone();
        let mut gw = ConsoleServer::serve(store, location, configure).await;
        gw.db = Some(db);
        gw
    }

    /// Another gateway, with its console, on the same database as `self`.
    pub async fn another(&self, configure: impl FnOnce(&mut Config)) -> ConsoleServer {
        let store = Store::open(&self.location).await.expect("open the store");
        ConsoleServer::serve(store, self.location.clone(), configure).await
    }

    async fn serve(store: Store, location: Location, configure: impl FnOnce(&mut Config)) -> ConsoleServer {
        let mut config = Config { db: location.clone(), ..Config::default() };
        configure(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let console = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the console");
        let (addr, console_addr) = (listener.local_addr().unwrap(), console.local_addr().unwrap());
        config.addr = addr;
        config.console.addr = Some(console_addr);
        let state = AppState::new(store, config).await.expect("load the content");
        let (stop, stopped) = oneshot::channel::<()>();
        let background =
            ota_gateway::server::Background { console: Some(console), refresh_content: true, ..Default::default() };
        let task = tokio::spawn(ota_gateway::server::run(listener, state.clone(), background, async move {
            let _ = stopped.await;
        }));
        ConsoleServer {
            db: None,
            location,
            state,
            url: format!("http://{addr}"),
            console: format!("http://{console_addr}"),
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.state.store
    }

    /// Creates an operator (as the CLI would, audited as `cli:test`) and gives its password.
    pub async fn operator(&self, name: &str, role: Role) -> String {
        let password = format!("{name}-secret-pw");
        let actor = Actor { name: "cli:test".into(), address: None };
        admin::add(self.store(), &actor, name, role, password.clone()).await.expect("add an operator");
        password
    }

    /// Creates an operator and logs it in on this gateway's console.
    pub async fn login_as(&self, name: &str, role: Role) -> ConsoleClient {
        let password = self.operator(name, role).await;
        ConsoleClient::login(&self.console, name, &password).await.expect("log in")
    }

    /// Creates a hotel user of the supplier `supplier` (a `supplier` requestor: the demo's is
    /// `SUP-DEMO`) and gives its password.
    pub async fn hotel_user(&self, name: &str, supplier: &str) -> String {
        let password = format!("{name}-secret-pw");
        let actor = Actor { name: "cli:test".into(), address: None };
        admin::add_with_supplier(self.store(), &actor, name, Role::Hotel, Some(supplier), password.clone())
            .await
            .expect("add a hotel user");
        password
    }

    /// Creates a hotel user of `supplier` and logs it in (it lands on `/extranet`).
    pub async fn login_hotel(&self, name: &str, supplier: &str) -> ConsoleClient {
        let password = self.hotel_user(name, supplier).await;
        ConsoleClient::login(&self.console, name, &password).await.expect("log in")
    }

    /// A client of this console without a session.
    pub fn anonymous(&self) -> ConsoleClient {
        ConsoleClient::anonymous(&self.console)
    }

    /// Stops the gateway and waits until it has stopped.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for ConsoleServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// An answer of the console.
#[derive(Debug)]
pub struct Page {
    /// Its status.
    pub status: u16,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body.
    pub body: String,
}

impl Page {
    /// A header's value ("" when absent).
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
    }
}

/// An HTTP client of a console: redirects are not followed (a test sees them), the session's
/// cookie is sent with every request, and [`ConsoleClient::post`] adds the CSRF token.
#[derive(Clone)]
pub struct ConsoleClient {
    /// The console's base URL.
    pub base: String,
    /// The session id (the cookie's value), once logged in.
    pub cookie: Option<String>,
    /// The session's CSRF token (read from a page), once logged in.
    pub csrf: String,
    http: reqwest::Client,
}

impl ConsoleClient {
    /// A client without a session.
    pub fn anonymous(base: &str) -> ConsoleClient {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("an HTTP client");
        ConsoleClient { base: base.trim_end_matches('/').to_string(), cookie: None, csrf: String::new(), http }
    }

    /// Logs in (the CSRF token is read from the page the login leads to: the overview, or the
    /// extranet for a hotel user); the login page's answer when it fails.
    pub async fn login(base: &str, name: &str, password: &str) -> Result<ConsoleClient, Page> {
        let mut c = ConsoleClient::anonymous(base);
        let page = c.submit_login(name, password).await;
        if page.status != 303 {
            return Err(page);
        }
        let cookie = page
            .headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|v| v.strip_prefix("ota_console=")?.split(';').next().map(str::to_string))
            .expect("a session cookie");
        c.cookie = Some(cookie);
        let landing = page.header("location").to_string();
        let home = c.get(&landing).await;
        assert_eq!(home.status, 200, "{landing}: {}", home.body);
        c.csrf = csrf_of(&home.body).expect("a CSRF field on the landing page");
        Ok(c)
    }

    /// Fills in and sends the login form as a browser does: `GET /login` (its token, in the
    /// hidden field and the cookie), then `POST /login` with both; the answer to the POST.
    pub async fn submit_login(&self, name: &str, password: &str) -> Page {
        let form = self.get("/login").await;
        assert_eq!(form.status, 200, "the login form: {}", form.body);
        let token = login_token_of(&form).expect("a login cookie");
        assert_eq!(csrf_of(&form.body).as_deref(), Some(token.as_str()), "the same token in the form and its cookie");
        let rq = self.http.post(self.url("/login")).header("cookie", format!("ota_console_login={token}"));
        self.send(rq.form(&[("name", name), ("password", password), ("csrf", &token)])).await
    }

    /// This client's session on another gateway's console (the same database).
    pub fn on(&self, base: &str) -> ConsoleClient {
        ConsoleClient { base: base.trim_end_matches('/').to_string(), ..self.clone() }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn send(&self, rq: reqwest::RequestBuilder) -> Page {
        let rq = match &self.cookie {
            Some(id) => rq.header("cookie", format!("ota_console={id}")),
            None => rq,
        };
        let res = rq.send().await.expect("the console answers");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = res.text().await.expect("a body");
        Page { status, headers, body }
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Page {
        self.send(self.http.get(self.url(path))).await
    }

    /// `POST path` with a form and this session's CSRF token in it.
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        let mut all: Vec<(&str, &str)> = form.to_vec();
        all.push(("csrf", &self.csrf));
        self.send(self.http.post(self.url(path)).form(&all)).await
    }

    /// `POST path` with a form as given (no CSRF token added).
    pub async fn post_raw(&self, path: &str, form: &[(&str, &str)]) -> Page {
        self.send(self.http.post(self.url(path)).form(form)).await
    }

    /// `POST path` with the CSRF token in the header htmx sends, no body.
    pub async fn post_htmx(&self, path: &str, form: &[(&str, &str)]) -> Page {
        let rq = self.http.post(self.url(path)).header("hx-request", "true").header("x-csrf-token", &self.csrf);
        self.send(rq.form(form)).await
    }
}

/// The login token an answer sets in its `ota_console_login` cookie.
pub fn login_token_of(page: &Page) -> Option<String> {
    page.headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("ota_console_login=")?.split(';').next().map(str::to_string))
        .filter(|t| !t.is_empty())
}

/// The CSRF token of a page (the value of its hidden `csrf` field).
pub fn csrf_of(html: &str) -> Option<String> {
    let at = html.find(r#"name="csrf" value=""#)? + r#"name="csrf" value=""#.len();
    let end = html[at..].find('"')? + at;
    Some(html[at..end].to_string())
}
