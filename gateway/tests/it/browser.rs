//! The operator console in a real browser (issue 30): Debian's headless chromium driven over
//! WebDriver, on both backends. What an operator does by hand — log in with the form, move
//! through the navigation, log out — works; the pages need nothing from outside the binary and
//! run no inline script; a viewer's page offers no admin action, and the server refuses one all
//! the same. A booking made through the OTA API of a real gateway process is found by its
//! references and its guest's surname typed into the Bookings form, its deliveries (a failure,
//! then the delivery) are listed, and a resend from the page reaches the receiver as a
//! retransmission, audited; a log entry is found by its `EchoToken` and shows its request and
//! answer side by side. The hotel extranet (issue 31): a hotel user finds its booking, cannot
//! open another supplier's by editing the URL, and closes a night and sets a price in the
//! calendar that a partner's availability then shows. Screenshots of each page: `CONSOLE_SCREENSHOTS=1` writes
//! them to `docs/console/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use ota_gateway::operators::Role;
use ota_gateway::outbox::admin::EventHistory;

use crate::support::browser::Browser;
use crate::support::console::ConsoleServer;
use crate::support::{Backend, GatewayProcess, backend_tests};

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
/// and a partner's availability shows both within a second; the channel manager's message made
/// before the edit is answered with a warning and does not overwrite the price, which the
/// calendar, opened again, still shows as set by the user; the booking's alert e-mail reached
/// the supplier's address at the test's SMTP relay once.
async fn a_hotel_user_sells_and_finds_its_bookings_in_the_browser(b: Backend) {
    use crate::extranet::{SUP_A, book, commit, second_supplier};
    let gw = ConsoleServer::start(b).await;
    second_supplier(&gw).await;
    // The partner books through a gateway process that sends booking alerts to the test's relay,
    // to the supplier's address.
    let smtp = crate::support::smtp::SmtpServer::start().await;
    let arg = gw.db.as_ref().unwrap().arg();
    let (code, out, err) =
        crate::support::cli(&["requestor", "set", SUP_A, "--alert-email", "frontdesk@hotel.example", "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    let mut args: Vec<&str> = crate::outbox::FAST.to_vec();
    let relay = smtp.url();
    args.extend(["--smtp-url", relay.as_str(), "--smtp-timeout", "2s"]);
    let alerting = GatewayProcess::start(&arg, &args).await;
    let arrival = crate::support::day(45);
    let booked = commit("BR-A1", arrival, "Lindqvist", &[("HTL00042", "RMSD000000")]);
    let (_, _, answer) =
        ota_gateway::Client::new(&alerting.url).send_raw("/hotelbook", booked, "application/xml").await.unwrap();
    assert!(answer.contains("<Success"), "{answer}");
    book(&gw, commit("BR-B1", arrival, "Okafor", &[("HTL00077", "RMSD000000")])).await;
    let theirs = ota_gateway::bookings::show::show(gw.store(), "BR-B1", None).await.unwrap().head.internal_ref;
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
    let older = crate::calendar::amount(chrono::Utc::now() - chrono::Duration::minutes(5), priced, "51.37");
    let (status, _, answer) = ota_gateway::Client::new(gw.url.clone())
        .send_raw("/hotelrateamountnotif", older, "application/xml")
        .await
        .unwrap();
    assert!(status == 200 && answer.contains("<Warning") && answer.contains("later TimeStamp"), "{answer}");
    let again = browser.open(&format!("{page}?from={priced}&to={priced}")).await;
    assert!(again.contains("99.00") && !again.contains("51.37"), "{again}");
    let html = browser.client.source().await.unwrap();
    assert!(html.contains("set by operator:hu at"), "the user is named as the price's source: {html}");
    crate::calendar::within_a_second(&gw.url, priced, &["99.00"], "the price kept").await;
    assert!(!browser.alert_open().await);

    // The booking's alert reached the supplier's address, once.
    let mails = smtp.wait_for(1, Duration::from_secs(20)).await;
    assert!(mails[0].to.iter().any(|t| t.contains("frontdesk@hotel.example")), "{:?}", mails[0].to);
    assert!(mails[0].body().contains("Partner's reference: BR-A1"), "{}", mails[0].body());
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(smtp.mails().len(), 1, "one alert, once");
}

/// The text of each cell of each row `rows` selects.
async fn cells(browser: &Browser, rows: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for row in browser.client.find_all(Locator::Css(rows)).await.unwrap() {
        let mut cells = Vec::new();
        for cell in row.find_all(Locator::Css("td")).await.unwrap() {
            cells.push(cell.text().await.unwrap().trim().to_string());
        }
        out.push(cells);
    }
    out
}

/// The outbox history of the booking `reference` once `done` holds of it (within 30 s).
async fn history_when(
    store: &ota_gateway::Store,
    reference: &str,
    what: &str,
    done: impl Fn(&[EventHistory]) -> bool,
) -> Vec<EventHistory> {
    let started = Instant::now();
    loop {
        let h = ota_gateway::outbox::admin::history(store, reference).await.unwrap();
        if done(&h) {
            return h;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{what}: {h:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A booking made through the OTA API of a real gateway process (`serve`, a partner's
/// Commit), whose hotel's receiver (on loopback) answers 500 first and then Success: an admin
/// finds it on the Bookings page by typing its Internal reference, then its Client reference,
/// then the start of its guest's surname in another case into the search form (a booking of
/// another guest is not listed), opens its page from the result list, and sees its event
/// delivered after 2 attempts; from the page's link, the Deliveries page lists the failed
/// attempt (500, the receiver's answer) before the delivered one (200). The admin presses
/// Resend (the form carries the CSRF token): the receiver gets the event again (the same
/// `MessageID`, `RetransmissionIndicator="true"`), the page shows a third attempt marked as a
/// retransmission asked for by the admin, and the Audit page shows the resend.
async fn a_booking_is_found_delivered_and_resent_in_the_browser(b: Backend) {
    use crate::bookings::activity_booking;
    use crate::deliveries::Receiver;
    use crate::outbox::{FAST, event_of, hotel_commit, post, set_url};
    let console = ConsoleServer::start(b).await;
    let arg = console.db.as_ref().unwrap().arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let receiver = Receiver::start().await;
    set_url(&arg, &format!("http://{}/notify", receiver.addr));
    receiver.then(&[(500, b"try later")]);
    let urls = Mutex::new(vec![gw.url.clone()]);
    let commit = hotel_commit("BRW-D1", crate::support::day(50), "HTL00042", "RMSD000000")
        .replace("<Surname>Nowak</Surname>", "<Surname>Brückner</Surname>");
    let booked = post(&urls, 0, "/hotelbook", &commit).await;
    assert!(booked.contains("<Success"), "{booked}");
    let other = post(&urls, 0, "/activitybook", &activity_booking("BRW-X1", 30, "Okafor")).await;
    assert!(other.contains("<Success"), "{other}");
    let store = console.store();
    let internal = ota_gateway::bookings::show::show(store, "BRW-D1", None).await.unwrap().head.internal_ref;
    let h = history_when(store, "BRW-D1", "not delivered after a failure", |h| {
        h.len() == 1 && h[0].event.state == "delivered" && h[0].attempts.len() == 2
    })
    .await;
    let event = h[0].event.id;
    let ours = || {
        receiver
            .got
            .lock()
            .unwrap()
            .iter()
            .filter(|body| event_of(body).is_some_and(|e| e.0 == event.to_string()))
            .count()
    };
    assert_eq!(ours(), 2, "a failure, then the delivery");

    let password = console.operator("ann", Role::Admin).await;
    let browser = Browser::start().await;
    browser.open(&format!("{}/login", console.console)).await;
    browser.submit("form[action='/login']", &[("name", "ann"), ("password", &password)]).await;
    browser.click("nav a[href='/bookings']").await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), "/bookings");

    // Found by its references and by its guest's surname, typed as a user does.
    let internal_link = format!("#results a[href='/bookings/{internal}']");
    for (field, typed) in [("ref", internal.as_str()), ("ref", "BRW-D1"), ("surname", "bRÜck")] {
        let fields: Vec<(&str, &str)> =
            if field == "ref" { vec![("ref", typed), ("surname", "")] } else { vec![("ref", ""), ("surname", typed)] };
        browser.type_and_submit("form#search", &fields).await;
        let rows = browser.texts("#results tbody tr").await;
        assert_eq!(rows.len(), 1, "{field}={typed}: {rows:?}");
        let row = &rows[0];
        assert!(
            row.contains(&internal) && row.contains("BRW-D1") && row.contains("Brückner") && row.contains("HTL00042"),
            "{field}={typed}: {row}"
        );
        assert!(!row.contains("Okafor") && !row.contains("BRW-X1"), "{field}={typed}: {row}");
        assert!(browser.client.find(Locator::Css(&internal_link)).await.is_ok(), "{field}={typed}: a link to its page");
    }
    browser.type_and_submit("form#search", &[("ref", ""), ("surname", "Okaf")]).await;
    let rows = browser.texts("#results tbody tr").await;
    assert!(rows.len() == 1 && rows[0].contains("BRW-X1") && !rows[0].contains("Brückner"), "{rows:?}");
    browser.type_and_submit("form#search", &[("ref", ""), ("surname", "")]).await;
    let rows = browser.texts("#results tbody tr").await;
    assert!(
        rows.len() > 2 && rows[0].contains("BRW-X1") && rows[1].contains("BRW-D1"),
        "no filter: the newest first: {rows:?}"
    );
    browser.screenshot_whole("bookings").await;

    // Its page, opened from the result list: the event delivered after 2 attempts.
    browser.click(&internal_link).await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), format!("/bookings/{internal}"));
    let page = browser.text().await;
    assert!(page.contains(&format!("Booking {internal}")) && page.contains("Brückner"), "{page}");
    let events = cells(&browser, "#events tbody tr").await;
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(
        (e[0].as_str(), e[3].as_str(), e[5].as_str(), e[6].as_str()),
        (event.to_string().as_str(), "SUP-DEMO", "delivered", "2"),
        "event, supplier, state, attempts: {e:?}"
    );
    browser.screenshot_whole("booking").await;

    // Its deliveries: the failure, then the delivery.
    browser.click("a#deliveries").await;
    let url = browser.client.current_url().await.unwrap();
    assert_eq!((url.path(), url.query()), ("/deliveries", Some(format!("ref={internal}").as_str())));
    let rows = cells(&browser, "main table tbody tr").await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    // #, at, outcome, HTTP, latency, retransmission, gateway, receiver, error / answer.
    let (failed, delivered) = (&rows[0], &rows[1]);
    assert_eq!((failed[0].as_str(), failed[2].as_str(), failed[3].as_str()), ("1", "failed", "500"), "{failed:?}");
    assert!(failed[4].ends_with(" ms") && failed[5] == "no" && failed[8].contains("try later"), "{failed:?}");
    assert_eq!(
        (delivered[0].as_str(), delivered[2].as_str(), delivered[3].as_str()),
        ("2", "delivered", "200"),
        "{delivered:?}"
    );
    assert!(!delivered[5].contains("asked by"), "{delivered:?}");
    assert!(failed[7].contains(&receiver.addr.to_string()), "the receiver: {failed:?}");

    // The resend, from the page's button (its form carries the CSRF token).
    let form = format!("form[action='/deliveries/{event}/resend']");
    let csrf = browser.client.find(Locator::Css(&format!("{form} input[name='csrf']"))).await.unwrap();
    assert!(csrf.attr("value").await.unwrap().is_some_and(|v| v.len() >= 32), "the form carries the CSRF token");
    browser.click(&format!("{form} button")).await;
    let done = browser.text().await;
    assert!(done.contains(&format!("Event {event} (was delivered) will be sent again as a retransmission")), "{done}");
    let started = Instant::now();
    while ours() < 3 {
        assert!(started.elapsed() < Duration::from_secs(30), "the receiver did not get the resend");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let again = receiver
        .got
        .lock()
        .unwrap()
        .iter()
        .filter(|body| event_of(body).is_some_and(|e| e.0 == event.to_string()))
        .nth(2)
        .cloned()
        .unwrap();
    assert!(again.contains(r#"RetransmissionIndicator="true""#) && again.contains(&internal), "{again}");
    history_when(store, "BRW-D1", "the resend not kept", |h| h[0].attempts.len() == 3).await;
    browser.open(&format!("{}/deliveries?ref={internal}", console.console)).await;
    let rows = cells(&browser, "main table tbody tr").await;
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(
        (rows[2][0].as_str(), rows[2][2].as_str(), rows[2][3].as_str(), rows[2][5].as_str()),
        ("3", "delivered", "200", "yes, asked by ann"),
        "a new attempt, a retransmission asked for by ann: {rows:?}"
    );
    assert!(browser.text().await.contains("resent by ann"));
    browser.screenshot_whole("deliveries").await;

    // The audit trail: who resent which event, from where.
    browser.click("nav a[href='/audit']").await;
    let rows = browser.texts("main table tbody tr").await;
    let resend = rows.iter().find(|r| r.contains("outbox.resend")).unwrap_or_else(|| panic!("audited: {rows:?}"));
    assert!(
        resend.contains("ann") && resend.contains(&format!("event {event} of")) && resend.contains("127.0.0.1"),
        "{resend}"
    );
    assert!(!browser.alert_open().await);
}

/// The transaction log: a partner's requests logged (`--log all`); a viewer types one's
/// `EchoToken` into the Log page's search form and gets that entry alone, opens it from the
/// result list, and sees its request and its answer side by side (the same height on the page,
/// the request on the left).
async fn a_log_entry_is_found_by_its_echo_token_in_the_browser(b: Backend) {
    use crate::console_log::{log_all, nbc, send};
    let gw = ConsoleServer::start(b).await;
    log_all(&gw, &["DEMO"]).await;
    for echo in ["brw-echo-1", "brw-echo-2"] {
        let answer = send(&gw, "/hotelnbc", nbc(crate::support::DEMO, echo, "2009.1")).await;
        assert!(answer.contains("<Success"), "{answer}");
    }
    gw.state.txlog.flush().await;
    let all = ota_gateway::txlog::search(gw.store(), &ota_gateway::txlog::Filter::default(), false, 10).await.unwrap();
    let id = all.iter().find(|e| e.echo_token.as_deref() == Some("brw-echo-1")).unwrap().id;

    let password = gw.operator("vic", Role::Viewer).await;
    let browser = Browser::start().await;
    browser.open(&format!("{}/login", gw.console)).await;
    browser.submit("form[action='/login']", &[("name", "vic"), ("password", &password)]).await;
    browser.click("nav a[href='/log']").await;
    assert_eq!(browser.texts("#results tbody tr").await.len(), 2, "both entries, before a search");
    browser.type_and_submit("form#search", &[("echo-token", "brw-echo-1")]).await;
    let rows = browser.texts("#results tbody tr").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].contains("brw-echo-1") && rows[0].contains("hotelnbc") && rows[0].contains("DEMO"), "{rows:?}");

    browser.click(&format!("#results a[href='/log/{id}']")).await;
    assert_eq!(browser.client.current_url().await.unwrap().path(), format!("/log/{id}"));
    let request = browser.client.find(Locator::Css("pre#request")).await.unwrap();
    let answer = browser.client.find(Locator::Css("pre#answer")).await.unwrap();
    let (rq_text, rs_text) = (request.text().await.unwrap(), answer.text().await.unwrap());
    assert!(rq_text.contains("OTA_HotelDescriptiveInfoRQ") && rq_text.contains("brw-echo-1"), "{rq_text}");
    assert!(!rq_text.contains("demo-password"), "{rq_text}");
    assert!(rs_text.contains("OTA_HotelDescriptiveInfoRS") && rs_text.contains("<Success"), "{rs_text}");
    let (rx, ry, rw, _) = request.rectangle().await.unwrap();
    let (ax, ay, aw, _) = answer.rectangle().await.unwrap();
    assert!(rw > 200.0 && aw > 200.0, "both shown: widths {rw} and {aw}");
    assert!(
        (ry - ay).abs() < 1.0 && rx + rw <= ax,
        "side by side: the request at ({rx}, {ry}), the answer at ({ax}, {ay})"
    );
    browser.screenshot("log").await;
    assert!(!browser.alert_open().await);
}

backend_tests!(
    a_booking_is_found_delivered_and_resent_in_the_browser,
    a_log_entry_is_found_by_its_echo_token_in_the_browser,
    a_hotel_user_sells_and_finds_its_bookings_in_the_browser,
    an_operator_logs_in_and_out,
    a_viewer_sees_no_admin_action,
    a_partner_limit_set_in_the_browser_is_enforced_and_audited
);
