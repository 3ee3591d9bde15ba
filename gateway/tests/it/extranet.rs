//! The hotel extranet's users and scope (issue 31), on both backends, over HTTP with a
//! logged-in console client: hotel users made by `ota-gateway operator add --role hotel
//! --supplier SUP` (a real process) and by an admin on the console, listed and audited; a hotel
//! user lands on `/extranet`, sees only its supplier's hotels and only the extranet's
//! navigation, and every operator page or forged change answers it the 404 of an unknown URL,
//! changing nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ota_gateway::audit::{self, Actor};
use ota_gateway::operators::{Role, admin};
use ota_gateway::requestors::admin::{self as requestors, NewRequestor};

use std::sync::Mutex;

use chrono::NaiveDate;

use crate::console::assert_nothing_inline;
use crate::outbox::{pos, pull};
use crate::support::console::{ConsoleClient, ConsoleServer, Page};
use crate::support::{Backend, backend_tests, cli, day};

backend_tests!(
    hotel_users_are_made_listed_and_audited,
    a_hotel_user_sees_only_its_extranet,
    a_hotel_user_finds_and_acknowledges_its_bookings,
    hostile_guest_names_in_the_extranet
);

/// The demo supplier (hotels HTL00042, HTL00105, HTL02001 once [`second_supplier`] ran).
pub(crate) const SUP_A: &str = "SUP-DEMO";
/// The second supplier [`second_supplier`] makes, owning HTL00077.
pub(crate) const SUP_B: &str = "SUP-B";

/// Makes a second supplier, `SUP-B`, owning the demo hotel HTL00077 (taken from the demo
/// supplier, which keeps its three other hotels).
pub(crate) async fn second_supplier(gw: &ConsoleServer) {
    let cli = Actor::cli();
    let a_hotels = ["HTL00042", "HTL00105", "HTL02001"].map(String::from);
    requestors::set_role(gw.store(), &cli, SUP_A, ota_gateway::requestors::Role::supplier(a_hotels)).await.unwrap();
    let new = NewRequestor {
        id: SUP_B.into(),
        id_context: "SUP-B-DIST".into(),
        name: "Second supplier".into(),
        password: "sup-b-pass".into(),
        active: true,
        allow: vec![],
        dialect: ota_messages::Dialect::Service,
        role: ota_gateway::requestors::Role::supplier(["HTL00077".to_string()]),
    };
    requestors::add(gw.store(), &cli, new).await.unwrap();
}

/// The answer of a URL that does not exist, as `who` gets it.
async fn unknown_url(who: &ConsoleClient) -> Page {
    let page = who.get("/no-such-page").await;
    assert_eq!(page.status, 404, "{}", page.body);
    page
}

/// The CLI makes a hotel user of a supplier (refusing one without a supplier, with a partner
/// that is not a supplier or unknown, and a supplier on another role), lists it with its
/// supplier (text and JSON), audits it; an admin makes one on the console's Operators page
/// choosing the supplier (refused without one); each logs in and lands on `/extranet`.
async fn hotel_users_are_made_listed_and_audited(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let arg = gw.db.as_ref().unwrap().arg();
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = vec!["operator"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &arg]);
        cli(&all, "hotel-user-pw-1\n")
    };
    let (code, out, err) = run(&["add", "front.desk", "--role", "hotel", "--supplier", SUP_A]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("front.desk") && out.contains(SUP_A), "{out}");
    for (args, says) in [
        (vec!["add", "nosup", "--role", "hotel"], "needs its supplier"),
        (vec!["add", "partner", "--role", "hotel", "--supplier", "DEMO"], "is not a supplier"),
        (vec!["add", "nobody", "--role", "hotel", "--supplier", "NOBODY"], "no requestor"),
        (vec!["add", "viewsup", "--role", "viewer", "--supplier", SUP_A], "only a hotel user"),
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let (code, out, _) = run(&["list"]);
    assert_eq!(code, 0);
    let line = out.lines().find(|l| l.starts_with("front.desk")).expect("listed");
    assert!(line.contains("hotel") && line.ends_with(SUP_A), "{out}");
    assert!(!out.contains("nosup") && !out.contains("viewsup") && !out.contains("argon2"), "{out}");
    let (code, out, _) = run(&["list", "--json"]);
    assert_eq!(code, 0);
    let all: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fd = all.as_array().unwrap().iter().find(|o| o["name"] == "front.desk").unwrap();
    assert_eq!((fd["role"].as_str(), fd["supplier"].as_str()), (Some("hotel"), Some(SUP_A)), "{out}");
    let demo = all.as_array().unwrap().iter().find(|o| o["name"] == "demo").unwrap();
    assert!(demo["supplier"].is_null(), "{out}");

    // The console: an admin chooses the supplier; a hotel user without one is refused.
    let ann = gw.login_as("ann", Role::Admin).await;
    let form = ann.get("/operators").await;
    assert!(
        form.body.contains(r#"<option value="hotel">"#) && form.body.contains(&format!(r#"<option value="{SUP_A}">"#)),
        "{}",
        form.body
    );
    let refused = ann.post("/operators", &[("name", "nosup"), ("role", "hotel"), ("supplier", "")]).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body.contains("needs its supplier"), "{}", refused.body);
    let made = ann.post("/operators", &[("name", "reception"), ("role", "hotel"), ("supplier", SUP_A)]).await;
    assert_eq!(made.status, 200, "{}", made.body);
    let start =
        made.body.find(r#"<span class="secret">"#).expect("the password shown") + r#"<span class="secret">"#.len();
    let password = made.body[start..].split('<').next().unwrap().to_string();
    assert!(made.body.contains("reception") && made.body.contains(&format!("<td>{SUP_A}</td>")), "{}", made.body);
    let listed = admin::list(gw.store()).await.unwrap();
    let reception = listed.iter().find(|o| o.name == "reception").unwrap();
    assert_eq!((reception.role, reception.supplier.as_deref()), (Role::Hotel, Some(SUP_A)));
    assert!(!listed.iter().any(|o| o.name == "nosup"));

    // Audited, with the supplier, by the CLI's user and by the admin.
    let entries = audit::list(gw.store(), audit::Filter::default()).await.unwrap();
    let added = |who: &str| entries.iter().find(|e| e.action == "operator.add" && e.target == who).cloned();
    let by_cli = added("front.desk").expect("the CLI's creation audited");
    assert!(by_cli.actor.starts_with("cli:") && by_cli.new.as_deref() == Some("role=hotel supplier=SUP-DEMO"));
    let by_ann = added("reception").expect("the console's creation audited");
    assert_eq!((by_ann.actor.as_str(), by_ann.new.as_deref()), ("ann", Some("role=hotel supplier=SUP-DEMO")));

    // Both log in and land on the extranet.
    for (name, pw) in [("front.desk", "hotel-user-pw-1"), ("reception", password.as_str())] {
        let login = gw.anonymous().submit_login(name, pw).await;
        assert_eq!((login.status, login.header("location")), (303, "/extranet"), "{name}: {}", login.body);
        let user = ConsoleClient::login(&gw.console, name, pw).await.unwrap();
        let home = user.get("/extranet").await;
        assert!(home.status == 200 && home.body.contains("HTL00042"), "{name}: {}", home.body);
        assert!(home.body.contains(&format!("{name} (hotel, {SUP_A})")), "{name}: {}", home.body);
        // A logged-in hotel user asking for the login page, or the root, goes to the extranet.
        for path in ["/login", "/"] {
            let again = user.get(path).await;
            assert_eq!((again.status, again.header("location")), (303, "/extranet"), "{path}");
        }
    }
}

/// A hotel user of supplier A sees A's hotels only, and only the extranet's navigation; every
/// operator page — and a forged change with its valid CSRF token — answers the 404 of an
/// unknown URL, byte for byte, and changes nothing; admins and viewers keep their pages and
/// see every supplier's hotels in the extranet.
async fn a_hotel_user_sees_only_its_extranet(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    second_supplier(&gw).await;
    let hu = gw.login_hotel("hu", SUP_A).await;
    let home = hu.get("/extranet").await;
    assert_eq!(home.status, 200, "{}", home.body);
    for hotel in ["HTL00042", "HTL00105", "HTL02001"] {
        assert!(home.body.contains(hotel), "{hotel}: {}", home.body);
    }
    assert!(!home.body.contains("HTL00077") && !home.body.contains(SUP_B), "{}", home.body);
    assert!(home.body.contains(r#"href="/extranet""#), "{}", home.body);
    for operator_link in
        ["/partners", "href=\"/bookings", "/operators", "/audit", "/traffic", "/deliveries", "href=\"/\""]
    {
        assert!(!home.body.contains(operator_link), "{operator_link} in a hotel user's page: {}", home.body);
    }
    assert_nothing_inline("extranet", &home.body);

    let unknown = unknown_url(&hu).await;
    assert!(unknown.body.contains("There is no such page."), "{}", unknown.body);
    for path in [
        "/partners",
        "/partners/DEMO",
        "/partners/SUP-B",
        "/bookings",
        "/bookings?ref=X",
        "/bookings/X",
        "/operators",
        "/audit",
        "/traffic",
        "/deliveries",
        "/deliveries?supplier=SUP-B",
    ] {
        let page = hu.get(path).await;
        assert_eq!((page.status, page.body.as_str()), (404, unknown.body.as_str()), "{path}");
    }
    let before = audit::list(gw.store(), audit::Filter::default()).await.unwrap().len();
    for (path, form) in [
        ("/operators", vec![("name", "evil"), ("role", "admin"), ("supplier", "")]),
        ("/operators/demo/disable", vec![]),
        (
            "/partners",
            vec![("id", "EVIL"), ("context", "E"), ("name", "E"), ("dialect", "service"), ("kind", "distributor")],
        ),
        ("/partners/DEMO/disable", vec![]),
        ("/no-such-page", vec![]),
    ] {
        let page = hu.post(path, &form).await;
        assert_eq!((page.status, page.body.as_str()), (404, unknown.body.as_str()), "POST {path}");
    }
    let operators = admin::list(gw.store()).await.unwrap();
    assert!(!operators.iter().any(|o| o.name == "evil"), "{operators:?}");
    assert!(operators.iter().find(|o| o.name == "demo").unwrap().active);
    assert!(requestors::list(gw.store()).await.unwrap().iter().all(|r| r.id != "EVIL"));
    assert!(requestors::list(gw.store()).await.unwrap().iter().all(|r| r.active));
    assert_eq!(audit::list(gw.store(), audit::Filter::default()).await.unwrap().len(), before, "nothing audited");

    // Admins and viewers: their pages as before, and every supplier's hotels in the extranet.
    let ann = gw.login_as("ann", Role::Admin).await;
    let vic = gw.login_as("vic", Role::Viewer).await;
    for who in [&ann, &vic] {
        assert_eq!(who.get("/partners").await.status, 200);
        let all = who.get("/extranet").await;
        assert!(all.status == 200 && all.body.contains("HTL00077") && all.body.contains("HTL00042"), "{}", all.body);
        assert!(all.body.contains(r#"href="/partners""#) && all.body.contains(r#"href="/extranet""#), "{}", all.body);
    }
}

/// A partner's (DEMO's) hotel Commit, Client reference `client`, of one guest `surname` (XML
/// text, escaped as it must be), one night from `start` in each of `stays` (hotel, room type).
pub(crate) fn commit(client: &str, start: NaiveDate, surname: &str, stays: &[(&str, &str)]) -> String {
    let end = start + chrono::Duration::days(1);
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    let stays: String = stays
        .iter()
        .map(|(hotel, room)| format!(r#"<RoomStay><RoomTypes><RoomType RoomTypeCode="{room}"/></RoomTypes><RoomRates><RoomRate><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{hotel}"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay>"#))
        .collect();
    format!(
        r#"<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" ResStatus="Commit">{pos}<HotelReservations><HotelReservation><RoomStays>{stays}</RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>{surname}</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#
    )
}

/// Books through the gateway's OTA API (it must succeed).
pub(crate) async fn book(gw: &ConsoleServer, xml: String) {
    let (status, _, body) =
        ota_gateway::Client::new(&gw.url).send_raw("/hotelbook", xml, "application/xml").await.unwrap();
    assert!(status.is_success() && body.contains("<Success"), "{status} {body}");
}

/// The Internal reference of the booking whose Client reference is `client`.
async fn internal(gw: &ConsoleServer, client: &str) -> String {
    ota_gateway::bookings::show::show(gw.store(), client, None).await.unwrap().head.internal_ref
}

/// The value of the hidden `upto` field of a booking page's Acknowledge form.
fn upto_of(html: &str) -> Option<String> {
    let at = html.find(r#"name="upto" value=""#)? + r#"name="upto" value=""#.len();
    Some(html[at..].split('"').next()?.to_string())
}

/// A hotel user of supplier A finds the partner's booking at A's hotel in the list, by
/// surname, by Client and Internal reference, and in the day's printable arrivals; opens it;
/// B's hotel, B's booking, an unknown
/// reference answer the 404 of an unknown URL. A viewer cannot acknowledge (403); a forged
/// acknowledgement of B's event is a 404 changing nothing; the hotel user's Acknowledge
/// counts as the supplier's OTA_NotifReportRQ: its next pull no longer gives the booking,
/// the attempt names the user, the change is audited. The CLI's `bookings search --supplier`
/// lists what the extranet lists.
async fn a_hotel_user_finds_and_acknowledges_its_bookings(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    second_supplier(&gw).await;
    let arrival = day(60);
    book(&gw, commit("EX-A1", arrival, "Lindqvist", &[("HTL00042", "RMSD000000")])).await;
    book(&gw, commit("EX-B1", arrival, "Lindqvist", &[("HTL00077", "RMSD000000")])).await;
    // A booking is of one hotel (the gateway refuses room stays at two): a second one of A's.
    book(&gw, commit("EX-AB", day(61), "Okafor", &[("HTL00042", "RMTW000000")])).await;
    let (a1, b1, ab) = (internal(&gw, "EX-A1").await, internal(&gw, "EX-B1").await, internal(&gw, "EX-AB").await);
    let hu = gw.login_hotel("hu", SUP_A).await;
    let unknown = unknown_url(&hu).await;
    let not_found = |page: Page, what: &str| {
        assert_eq!((page.status, page.body.as_str()), (404, unknown.body.as_str()), "{what}");
    };

    let home = hu.get("/extranet").await;
    assert!(
        home.body.contains(r#"<td class="unacknowledged">2</td>"#),
        "two bookings not acknowledged at HTL00042: {}",
        home.body
    );
    let all = hu.get("/extranet/bookings").await;
    assert_eq!(all.status, 200, "{}", all.body);
    assert!(all.body.contains("EX-A1") && all.body.contains("EX-AB") && !all.body.contains("EX-B1"), "{}", all.body);
    assert!(all.body.contains(&format!(r#"href="/extranet/bookings/{a1}""#)), "{}", all.body);
    assert_nothing_inline("extranet bookings", &all.body);
    for query in ["surname=lindq", "surname=LINDQVIST", "ref=EX-A1", &format!("ref={a1}")] {
        let found = hu.get(&format!("/extranet/bookings?{query}")).await;
        assert_eq!(found.status, 200, "{query}: {}", found.body);
        assert!(
            found.body.contains("EX-A1") && !found.body.contains("EX-B1") && !found.body.contains("EX-AB"),
            "{query}: {}",
            found.body
        );
    }
    for query in [
        "ref=EX-B1".to_string(),
        format!("ref={b1}"),
        "surname=okafor&arrival-from=2000-01-01&arrival-to=2000-01-02".into(),
    ] {
        let none = hu.get(&format!("/extranet/bookings?{query}")).await;
        assert!(none.status == 200 && none.body.contains("No booking matches"), "{query}: {}", none.body);
    }
    let bad = hu.get("/extranet/bookings?arrival-from=tomorrow").await;
    assert!(bad.status == 400 && bad.body.contains("arrival-from"), "{}", bad.body);
    let paged = hu.get("/extranet/bookings?limit=1").await;
    assert!(paged.body.contains(r#"id="next""#), "{}", paged.body);

    let page = hu.get(&format!("/extranet/bookings/{a1}")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    for part in ["HTL00042", "RMSD000000", "Lindqvist", "not acknowledged", r#"id="history""#, "EX-A1"] {
        assert!(page.body.contains(part), "{part} in {}", page.body);
    }
    assert_nothing_inline("extranet booking", &page.body);
    let second = hu.get(&format!("/extranet/bookings/{ab}")).await;
    assert!(
        second.status == 200 && second.body.contains("RMTW000000") && second.body.contains("Okafor"),
        "{}",
        second.body
    );
    not_found(hu.get(&format!("/extranet/bookings/{b1}")).await, "B's booking");
    not_found(hu.get("/extranet/bookings/EX-B1").await, "B's booking by its Client reference");
    not_found(hu.get("/extranet/bookings/NO-SUCH-REF").await, "an unknown booking");
    not_found(hu.get("/extranet/bookings?hotel=HTL00077").await, "B's hotel's bookings");
    not_found(hu.get("/extranet/bookings?hotel=NOHOTEL").await, "an unknown hotel's bookings");
    not_found(hu.get("/extranet/arrivals?hotel=HTL00077").await, "B's hotel's arrivals");

    let arrivals = hu.get(&format!("/extranet/arrivals?hotel=HTL00042&day={arrival}")).await;
    assert_eq!(arrivals.status, 200, "{}", arrivals.body);
    assert!(
        arrivals.body.contains("Ana Lindqvist") && arrivals.body.contains(&a1) && !arrivals.body.contains(&ab),
        "{}",
        arrivals.body
    );
    assert!(
        arrivals.body.contains(r#"href="/assets/console.css""#) && arrivals.body.contains("print-only"),
        "{}",
        arrivals.body
    );
    assert_nothing_inline("arrivals", &arrivals.body);
    let css = gw.anonymous().get("/assets/console.css").await;
    assert!(css.body.contains("@media print"), "the print style sheet");

    // Acknowledging: a viewer may not; a forged event id (B's) changes nothing.
    let urls = Mutex::new(vec![gw.url.clone()]);
    let pulled: Vec<String> = pull(&urls).await.into_iter().map(|r| r.0).collect();
    assert!(pulled.contains(&a1) && pulled.contains(&ab), "{pulled:?}");
    let upto = upto_of(&page.body).expect("an Acknowledge form");
    let vic = gw.login_as("vic", Role::Viewer).await;
    let refused = vic.post(&format!("/extranet/bookings/{a1}/acknowledge?supplier={SUP_A}"), &[("upto", &upto)]).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let b_event = ota_gateway::bookings::show::show(gw.store(), &b1, None).await.unwrap().events[0].id.to_string();
    not_found(hu.post(&format!("/extranet/bookings/{a1}/acknowledge"), &[("upto", &b_event)]).await, "B's event");
    not_found(hu.post(&format!("/extranet/bookings/{b1}/acknowledge"), &[("upto", &b_event)]).await, "B's booking");
    assert!(pull(&urls).await.iter().any(|r| r.0 == a1), "nothing acknowledged yet");
    let b_events = ota_gateway::bookings::show::show(gw.store(), &b1, None).await.unwrap().events;
    assert!(b_events.iter().all(|e| e.state != "delivered"), "{b_events:?}");

    let done = hu.post(&format!("/extranet/bookings/{a1}/acknowledge"), &[("upto", &upto)]).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Acknowledged (1") && done.body.contains(">acknowledged<"), "{}", done.body);
    let pulled: Vec<String> = pull(&urls).await.into_iter().map(|r| r.0).collect();
    assert!(!pulled.contains(&a1) && pulled.contains(&ab), "the next pull: {pulled:?}");
    let again = hu.get(&format!("/extranet/bookings/{a1}")).await;
    assert!(again.body.contains(">acknowledged<") && upto_of(&again.body).is_none(), "{}", again.body);
    let history = serde_json::to_string(&ota_gateway::outbox::admin::history(gw.store(), &a1).await.unwrap()).unwrap();
    assert!(history.contains(r#""outcome":"acknowledged""#) && history.contains(r#""requested_by":"hu""#), "{history}");
    let entries = audit::list(gw.store(), audit::Filter::default()).await.unwrap();
    let ack = entries.iter().find(|e| e.action == "booking.acknowledge").expect("audited");
    assert_eq!((ack.actor.as_str(), ack.target.as_str()), ("hu", a1.as_str()));
    assert!(ack.new.as_deref().is_some_and(|n| n.contains("supplier=SUP-DEMO")), "{ack:?}");

    // The CLI lists what the extranet lists.
    let arg = gw.db.as_ref().unwrap().arg();
    let (code, out, err) = cli(&["bookings", "search", "--supplier", SUP_A, "--json", "--db", &arg], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("EX-A1") && out.contains("EX-AB") && !out.contains("EX-B1"), "{out}");
    assert!(!out.contains("HTL00077") && !out.contains("LESPMIBKUI"), "{out}");
}

/// A guest named with markup shows as text in the extranet's list, booking page and arrivals:
/// escaped, never a tag.
async fn hostile_guest_names_in_the_extranet(b: Backend) {
    let gw = ConsoleServer::start(b).await;
    let hostile = r#"<script>alert(1)</script>"><img src=x onerror=alert(1)>"#;
    let as_xml = hostile.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let arrival = day(45);
    book(&gw, commit("EX-X1", arrival, &as_xml, &[("HTL00042", "RMSD000000")])).await;
    let x1 = internal(&gw, "EX-X1").await;
    let hu = gw.login_hotel("hu", SUP_A).await;
    for path in [
        "/extranet/bookings".to_string(),
        "/extranet/bookings?surname=%3Cscript%3E".into(),
        format!("/extranet/bookings/{x1}"),
        format!("/extranet/arrivals?hotel=HTL00042&day={arrival}"),
    ] {
        let page = hu.get(&path).await;
        assert_eq!(page.status, 200, "{path}: {}", page.body);
        assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{path}: {}", page.body);
        assert!(
            !page.body.contains("<script>alert") && !page.body.contains("<img"),
            "{path}: raw markup in {}",
            page.body
        );
        assert_nothing_inline(&path, &page.body);
    }
}
