//! The operator console in a real browser (issue 30): Debian's headless chromium driven over
//! WebDriver, on both backends. What an operator does by hand — log in with the form, move
//! through the navigation, log out — works; the pages need nothing from outside the binary and
//! run no inline script; a viewer's page offers no admin action, and the server refuses one all
//! the same. The hotel extranet (issue 31): a hotel user finds its booking, cannot open another
//! supplier's by editing the URL, and closes a night and sets a price in the calendar that a
//! partner's availability then shows. Screenshots of each page: `CONSOLE_SCREENSHOTS=1` writes
//! them to `docs/console/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use fantoccini::Locator;
use ota_gateway::operators::Role;

use crate::support::browser::Browser;
use crate::support::console::ConsoleServer;
use crate::support::{Backend, backend_tests};

/// An admin logs in with the login form, sees the overview and the operators, adds a viewer,
/// and logs out (the next page is the login again); a wrong password shows the form again with
/// its message.
async fn an_operator_logs_in_and_out(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let password = gw.operator("ann", Role::Admin).await;
    let browser = Browser::start().await;

    let login = browser.open(&format!("{}/", gw.console)).await;
    assert!(browser.client.current_url().await.unwrap().path() == "/login", "to the login page: {login}");
    browser.screenshot("login").await;
    browser.submit("form[action='/login']", &[("name", "ann"), ("password", "wrong")]).await;
    assert!(browser.text().await.contains("Wrong name or password."));
    browser.submit("form[action='/login']", &[("name", "ann"), ("password", &password)]).await;
    let overview = browser.text().await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), "/", "{overview}");
    assert!(overview.contains("ann"), "who is logged in: {overview}");
    browser.screenshot("overview").await;

    browser.click("nav a[href='/operators']").await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), "/operators");
    assert!(browser.text().await.contains("ann"));
    browser.screenshot("operators").await;
    assert!(!browser.alert_open().await);

    browser.click("form.logout button").await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), "/login");
    browser.open(&format!("{}/operators", gw.console)).await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), "/login", "the session ended");
}

/// A viewer's navigation has no admin page, and opening one by its address is refused by the
/// server (403), not merely hidden.
async fn a_viewer_sees_no_admin_action(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let password = gw.operator("vic", Role::Viewer).await;
    let browser = Browser::start().await;
    browser.open(&format!("{}/login", gw.console)).await;
    browser.submit("form[action='/login']", &[("name", "vic"), ("password", &password)]).await;
    let nav = browser.client.find(Locator::Css("nav")).await.unwrap().text().await.unwrap();
    assert!(!nav.contains("Operators"), "{nav}");
    let page = browser.open(&format!("{}/operators", gw.console)).await;
    assert!(page.contains("403") || page.to_lowercase().contains("admin"), "{page}");
}

/// An admin sets a partner's rate limit with the Partners page's form: the running gateway
/// refuses the partner's burst over it (429) within seconds, and the Audit page shows the change,
/// who made it and from where. A partner created with a hostile name shows it as text: no
/// script runs, no element is injected.
async fn a_partner_limit_set_in_the_browser_is_enforced_and_audited(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let password = gw.operator("ann", Role::Admin).await;
    let browser = Browser::start().await;
    browser.open(&format!("{}/login", gw.console)).await;
    browser.submit("form[action='/login']", &[("name", "ann"), ("password", &password)]).await;

    browser.open(&format!("{}/partners/DEMO", gw.console)).await;
    browser.screenshot("partner").await;
    browser.submit("form[action='/partners/DEMO/limits']", &[("rate", "1"), ("daily_quota", "off")]).await;
    assert!(browser.text().await.contains("Limits saved: rate 1/s"), "{}", browser.text().await);
    let url = gw.url.clone();
    crate::console::within_3s("the rate limit set in the browser", || {
        let url = url.clone();
        async move {
            let mut statuses = Vec::new();
            for _ in 0..4 {
                statuses.push(crate::console::call_as(&url, crate::support::DEMO).await.0);
            }
            statuses.contains(&429)
        }
    })
    .await;
    let audit = browser.open(&format!("{}/audit", gw.console)).await;
    assert!(
        audit.contains("requestor.limits")
            && audit.contains("rate=1/s")
            && audit.contains("ann")
            && audit.contains("127.0.0.1"),
        "{audit}"
    );
    browser.screenshot("audit").await;

    let hostile = r#"<img src=x onerror=alert(1)>"#;
    browser.open(&format!("{}/partners", gw.console)).await;
    browser.submit("form[action='/partners']", &[("id", "EVIL-1"), ("context", "EVIL-DIST"), ("name", hostile)]).await;
    let list = browser.open(&format!("{}/partners", gw.console)).await;
    assert!(list.contains(hostile), "the name as text: {list}");
    assert!(!browser.alert_open().await, "a script ran");
    assert!(browser.client.find(Locator::Css("img")).await.is_err(), "an element was injected");
    browser.screenshot("partners").await;
}

/// A hotel user logs in with the form and lands on its extranet; the booking a partner made at
/// its hotel is in its list; another supplier's booking, opened by editing the URL, is the page
/// of an unknown URL; in the calendar it closes a night and sets a price with the range form,
/// and a partner's availability shows both within a second.
async fn a_hotel_user_sells_and_finds_its_bookings_in_the_browser(b: Backend) {
    use crate::extranet::{SUP_A, book, commit, second_supplier};
    let gw = ConsoleServer::start(b).await;
    second_supplier(&gw).await;
    let arrival = crate::support::day(45);
    book(&gw, commit("BR-A1", arrival, "Lindqvist", &[("HTL00042", "RMSD000000")])).await;
    book(&gw, commit("BR-B1", arrival, "Okafor", &[("HTL00077", "RMSD000000")])).await;
    let theirs = ota_gateway::bookings::search::show(gw.store(), "BR-B1", None).await.unwrap().head.internal_ref;
    let password = gw.hotel_user("hu", SUP_A).await;
    let browser = Browser::start().await;

    browser.open(&format!("{}/login", gw.console)).await;
    browser.submit("form[action='/login']", &[("name", "hu"), ("password", &password)]).await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), "/extranet");
    let nav = browser.client.find(Locator::Css("nav")).await.unwrap().text().await.unwrap();
    assert!(!nav.contains("Partners") && !nav.contains("Traffic"), "a hotel user's navigation: {nav}");
    browser.screenshot("extranet").await;
    browser.click("nav a[href='/extranet/bookings']").await;
    let list = browser.text().await;
    assert!(list.contains("Lindqvist") && !list.contains("Okafor"), "{list}");
    browser.screenshot("extranet-bookings").await;
    let other = browser.open(&format!("{}/extranet/bookings/{theirs}", gw.console)).await;
    assert!(other.contains("There is no such page.") && !other.contains("Okafor"), "{other}");

    let (closed, priced) = (crate::support::day(40), crate::support::day(41));
    let page = format!("{}{}", gw.console, crate::calendar::PAGE);
    browser.open(&format!("{page}?from={closed}")).await;
    let form = "form.stack[method='post']";
    let night = closed.to_string();
    let fields =
        [("from", night.as_str()), ("to", night.as_str()), ("room", crate::calendar::ROOM), ("action", "close")];
    browser.submit_in_place(form, &fields, "1 value(s) applied (closed)").await;
    let night = priced.to_string();
    let fields = [
        ("from", night.as_str()),
        ("to", night.as_str()),
        ("room", crate::calendar::ROOM),
        ("plan", "BB"),
        ("action", "amount"),
        ("value", "99.00"),
        ("currency", "EUR"),
    ];
    browser.submit_in_place(form, &fields, "1 value(s) applied (amount 99.00 EUR)").await;
    browser.client.execute("window.scrollTo(0, 0)", vec![]).await.unwrap();
    browser.screenshot("extranet-calendar").await;
    crate::calendar::within_a_second(&gw.url, closed, &[], "the night closed in the browser").await;
    crate::calendar::within_a_second(&gw.url, priced, &["99.00"], "the price set in the browser").await;
    assert!(!browser.alert_open().await);
}

backend_tests!(
    a_hotel_user_sells_and_finds_its_bookings_in_the_browser,
    an_operator_logs_in_and_out,
    a_viewer_sees_no_admin_action,
    a_partner_limit_set_in_the_browser_is_enforced_and_audited
);
