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

use crate::console::assert_nothing_inline;
use crate::support::console::{ConsoleClient, ConsoleServer, Page};
use crate::support::{Backend, backend_tests, cli};

backend_tests!(hotel_users_are_made_listed_and_audited, a_hotel_user_sees_only_its_extranet);

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
        let login = gw.anonymous().post_raw("/login", &[("name", name), ("password", pw)]).await;
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
    for operator_link in ["/partners", "/bookings\"", "/operators", "/audit", "/traffic", "/deliveries", "href=\"/\""] {
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
