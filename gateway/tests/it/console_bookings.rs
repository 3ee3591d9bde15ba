//! The console's Bookings pages (issue 30), on both backends, with bookings made through the
//! OTA API of the same gateway: `GET /bookings` finds a booking by Internal reference, Client
//! reference and surname (a viewer can), refuses a bad value with 400 naming the field as the
//! CLI does, pages with a cursor link; `GET /bookings/{ref}` shows the items, history and
//! outbox events with the link to the deliveries page, 404 for an unknown reference; a hostile
//! guest name shows escaped, never as markup; nothing inline; no session goes to the login.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ota_gateway::operators::Role;

use crate::bookings::{activity_booking, hotel_booking};
use crate::console::assert_nothing_inline;
use crate::support::console::{ConsoleServer, Page};
use crate::support::{Backend, backend_tests};

backend_tests!(a_booking_is_found_and_shown_on_the_console, hostile_names_and_bad_values_on_the_console);

/// Posts an OTA request to the gateway's API: it must succeed.
async fn book(gw: &ConsoleServer, path: &str, xml: String) {
    let (status, _, body) =
        ota_gateway::Client::new(&gw.url).send_raw(path, xml, "application/xml").await.expect("post");
    assert!(status.is_success() && body.contains("<Success"), "{path}: {status} {body}");
}

/// The page must be a 200.
fn ok(page: Page, what: &str) -> String {
    assert_eq!(page.status, 200, "{what}: {}", page.body);
    page.body
}

/// A hotel booking made through the API is found by its Internal and Client references and by
/// its lead guest's surname in any case (by a viewer); its page shows its items, its history
/// and its outbox event with the link to its deliveries; the next-page link carries the
/// filters and the cursor; an unknown reference is a 404; without a session, the login page.
async fn a_booking_is_found_and_shown_on_the_console(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    book(&gw, "/hotelbook", hotel_booking("CB-H1", 40)).await;
    let internal = ota_gateway::bookings::show::show(gw.store(), "CB-H1", None).await.unwrap().head.internal_ref;
    let vic = gw.login_as("vic", Role::Viewer).await;

    let home = ok(vic.get("/").await, "home");
    assert!(home.contains(r#"href="/bookings""#), "Bookings in the navigation: {home}");
    let empty = ok(vic.get("/bookings").await, "the empty form");
    assert!(empty.contains(r#"name="created-from""#) && !empty.contains(r#"id="results""#), "{empty}");
    assert_nothing_inline("/bookings", &empty);

    let link = format!(r#"href="/bookings/{internal}""#);
    for query in [format!("ref={internal}"), "ref=CB-H1".to_string(), "surname=m%C3%9CLL".to_string()] {
        let body = ok(vic.get(&format!("/bookings?{query}")).await, &query);
        assert!(body.contains(&link) && body.contains("CB-H1") && body.contains("Müller"), "{query}: {body}");
        assert!(body.contains(r#"href="/bookings/CB-H1?partner=DEMO""#), "{query}: {body}");
        assert_nothing_inline(&query, &body);
    }
    let none = ok(vic.get("/bookings?ref=CB-H1&partner=NOBODY").await, "another partner");
    assert!(none.contains("No booking matches") && !none.contains(&link), "{none}");

    // Paging: one row a page, the link to the next carries the filters and the cursor.
    let first = ok(vic.get("/bookings?limit=1&sort=created").await, "a first page");
    let start = first.find(r#"id="next" href=""#).map(|i| i + r#"id="next" href=""#.len()).expect("a next link");
    let next = first[start..].split('"').next().unwrap().replace("&amp;", "&");
    assert!(next.starts_with("/bookings?sort=created&limit=1&after=created~"), "{next}");
    let second = ok(vic.get(&next).await, "the second page");
    assert!(second.contains(r#"id="results""#), "{second}");

    for reference in [internal.as_str(), "CB-H1"] {
        let body = ok(vic.get(&format!("/bookings/{reference}")).await, reference);
        for part in [
            "Items and prices",
            "HTL00042",
            r#"id="history""#,
            "created",
            "partner DEMO",
            r#"id="events""#,
            "SUP-DEMO",
            r#"id="guests""#,
            &format!(r#"href="/deliveries?ref={internal}""#),
        ] {
            assert!(body.contains(part), "{reference}: {part} in {body}");
        }
        assert_nothing_inline(reference, &body);
    }
    let deliveries = ok(vic.get(&format!("/deliveries?ref={internal}")).await, "its deliveries");
    assert!(deliveries.contains("Event "), "{deliveries}");

    let missing = vic.get("/bookings/NO-SUCH-REF").await;
    assert_eq!(missing.status, 404, "{}", missing.body);
    assert!(missing.body.contains("no booking has the reference"), "{}", missing.body);

    for path in ["/bookings", "/bookings?ref=CB-H1", &format!("/bookings/{internal}")] {
        let page = gw.anonymous().get(path).await;
        assert!(page.status == 303 && page.header("location") == "/login", "{path}: {page:?}");
    }
}

/// A guest named with markup shows as text on both pages (escaped, never raw); a bad value is
/// refused with 400 and the CLI's sentence naming the field, the form kept.
async fn hostile_names_and_bad_values_on_the_console(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let hostile = r#"<script>alert(1)</script>"><img src=x onerror=alert(1)>"#;
    let as_xml = hostile.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    book(&gw, "/activitybook", activity_booking("CB-X1", 22, &as_xml)).await;
    let vic = gw.login_as("vic", Role::Viewer).await;

    let found = ok(vic.get("/bookings?surname=%3Cscript%3E").await, "by the hostile surname");
    let shown = ok(vic.get("/bookings/CB-X1").await, "the hostile booking");
    for (what, body) in [("search", &found), ("booking", &shown)] {
        assert!(body.contains("CB-X1") && body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{what}: {body}");
        assert!(!body.contains("<script>alert") && !body.contains("<img"), "{what}: raw markup in {body}");
        assert_nothing_inline(what, body);
    }

    for (query, field) in [
        ("created-from=2030-02-30", "created-from: &quot;2030-02-30&quot; is not a date"),
        ("arrival-to=tomorrow", "arrival-to: &quot;tomorrow&quot; is not a date"),
        ("limit=1000000", "limit: &quot;1000000&quot; is not a number from 1 to 500"),
        ("sort=price", "sort: &quot;price&quot; is not one of"),
        ("status=Gone", "status:"),
        ("after=created-desc~junk", "after:"),
        ("hotel=HTL00042&activity=LESPMIBKUI", "activity:"),
    ] {
        let page = vic.get(&format!("/bookings?{query}")).await;
        assert_eq!(page.status, 400, "{query}: {}", page.body);
        assert!(page.body.contains(field) && page.body.contains(r#"id="search""#), "{query}: {}", page.body);
        assert_nothing_inline(query, &page.body);
    }
    let huge = vic.get(&format!("/bookings?ref={}", "R".repeat(10_000))).await;
    assert_eq!(huge.status, 400, "{}", &huge.body[..huge.body.len().min(300)]);
    assert!(huge.body.contains("ref: longer than 128 characters"));
}
