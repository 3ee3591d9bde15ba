//! A real browser for the console's tests: Debian's `chromium`, headless, driven over WebDriver
//! by `chromedriver` (`chromium-driver`; `scripts/test.sh` installs both) with fantoccini.
//! Each [`Browser`] is a chromedriver process of its own on a free port with a throw-away
//! profile, so tests running at the same time share no cookies; it is killed on drop.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

/// A headless chromium session.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

/// The first of `candidates` that exists.
fn first_existing(candidates: &[&'static str]) -> Option<&'static str> {
    candidates.iter().copied().find(|p| std::path::Path::new(p).exists())
}

impl Browser {
    /// Starts chromedriver and a headless chromium; panics with what to install when either is
    /// missing.
    pub async fn start() -> Browser {
        let driver_bin = first_existing(&["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
            .expect("chromedriver is missing: apt-get install chromium chromium-driver (scripts/test.sh does)");
        let chromium = first_existing(&["/usr/bin/chromium", "/usr/lib/chromium/chromium"])
            .expect("chromium is missing: apt-get install chromium chromium-driver (scripts/test.sh does)");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // A process group of its own: the chromium processes it starts join it, and the drop
        // ends them all (killing chromedriver alone leaves them running).
        let driver = Command::new(driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start chromedriver");
        let profile = tempfile::tempdir().unwrap();
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({
                "binary": chromium,
                "args": [
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-dev-shm-usage",
                    "--disable-gpu",
                    "--no-first-run",
                    "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(client) => break client,
                Err(e) if started.elapsed() < Duration::from_secs(20) => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("no WebDriver session after 20 s: {e}"),
            }
        };
        Browser { client, driver, _profile: profile }
    }

    /// Opens `url` and returns the page's visible text.
    pub async fn open(&self, url: &str) -> String {
        self.client.goto(url).await.unwrap_or_else(|e| panic!("open {url}: {e}"));
        self.text().await
    }

    /// The visible text of the page.
    pub async fn text(&self) -> String {
        self.client.find(Locator::Css("body")).await.unwrap().text().await.unwrap()
    }

    /// Fills the form fields named by `fields` (name, value), submits the form they are in, and
    /// waits until the browser shows the answer (the page it was on is gone).
    pub async fn submit(&self, form: &str, fields: &[(&str, &str)]) {
        let form = self.client.form(Locator::Css(form)).await.unwrap_or_else(|e| panic!("form {form}: {e}"));
        for (name, value) in fields {
            form.set_by_name(name, value).await.unwrap_or_else(|e| panic!("field {name}: {e}"));
        }
        self.navigates(form.submit()).await;
    }

    /// Types into the form `form` as a user does — each field named by `fields` (name, text) is
    /// cleared and the text typed key by key — then clicks its submit button and waits for the
    /// page the answer is.
    pub async fn type_and_submit(&self, form: &str, fields: &[(&str, &str)]) {
        let found = self.client.find(Locator::Css(form)).await.unwrap_or_else(|e| panic!("form {form}: {e}"));
        for (name, text) in fields {
            let field = found
                .find(Locator::Css(&format!("[name='{name}']")))
                .await
                .unwrap_or_else(|e| panic!("{form} field {name}: {e}"));
            field.clear().await.unwrap_or_else(|e| panic!("clear {name}: {e}"));
            field.send_keys(text).await.unwrap_or_else(|e| panic!("type into {name}: {e}"));
        }
        let button = found
            .find(Locator::Css("button[type='submit'],input[type='submit']"))
            .await
            .unwrap_or_else(|e| panic!("{form}: no submit button: {e}"));
        self.navigates(button.click()).await;
    }

    /// The visible text of each element `css` selects, in order (none: empty).
    pub async fn texts(&self, css: &str) -> Vec<String> {
        let mut out = Vec::new();
        for element in self.client.find_all(Locator::Css(css)).await.unwrap_or_default() {
            out.push(element.text().await.unwrap_or_default());
        }
        out
    }

    /// Fills and submits a form as [`Browser::submit`] does, for a form htmx sends and whose
    /// answer replaces part of the page (no new page): waits until the page shows `shows`.
    pub async fn submit_in_place(&self, form: &str, fields: &[(&str, &str)], shows: &str) {
        let found = self.client.form(Locator::Css(form)).await.unwrap_or_else(|e| panic!("form {form}: {e}"));
        for (name, value) in fields {
            found.set_by_name(name, value).await.unwrap_or_else(|e| panic!("field {name}: {e}"));
        }
        found.submit().await.unwrap();
        let started = Instant::now();
        loop {
            let text = self.text().await;
            if text.contains(shows) {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{form}: not {shows:?} after 10 s: {text}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Clicks the element `css` selects and waits for the page it leads to.
    pub async fn click(&self, css: &str) {
        let element = self.client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}"));
        self.navigates(element.click()).await;
    }

    /// Runs `action` and waits until the page it was on is replaced by another (its root
    /// element goes stale) and the new one has a body.
    async fn navigates<T, E: std::fmt::Debug>(&self, action: impl std::future::Future<Output = Result<T, E>>) {
        let old = self.client.find(Locator::Css("html")).await.unwrap();
        action.await.unwrap();
        let started = Instant::now();
        while old.tag_name().await.is_ok() {
            assert!(started.elapsed() < Duration::from_secs(10), "no new page after 10 s");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        self.client.wait().at_most(Duration::from_secs(10)).for_element(Locator::Css("body")).await.unwrap();
    }

    /// Saves a PNG of the page to `docs/console/NAME.png` when `CONSOLE_SCREENSHOTS` is set
    /// (the README shows them); otherwise takes it and checks it is a PNG.
    pub async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a screenshot of {name}");
        if std::env::var_os("CONSOLE_SCREENSHOTS").is_some() {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/console");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
        }
    }

    /// [`Browser::screenshot`] of the whole page: the window is made as tall as the page (at
    /// most 2,400 pixels) for the picture, then given back its size.
    pub async fn screenshot_whole(&self, name: &str) {
        let height = self.client.execute("return document.documentElement.scrollHeight", vec![]).await.unwrap();
        let height = height.as_u64().unwrap_or(900).clamp(900, 2_400) as u32;
        let (width, before) = {
            let (w, h) = self.client.get_window_size().await.unwrap();
            (w as u32, h as u32)
        };
        self.client.set_window_size(width, height + 150).await.unwrap();
        self.screenshot(name).await;
        self.client.set_window_size(width, before).await.unwrap();
    }

    /// Whether any script ran that the test did not expect: a page that ran `alert` (a hostile
    /// value taken as markup) leaves an open dialog.
    pub async fn alert_open(&self) -> bool {
        self.client.get_alert_text().await.is_ok()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // chromedriver and every chromium process it started (its process group).
        let _ = Command::new("kill").args(["-KILL", "--"]).arg(format!("-{}", self.driver.id())).status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
