//! The supply side (issue 21), on real gateway processes: suppliers (a hotel's system, owning
//! hotels) set up by `ota-gateway requestor …` and by import, and who may call what.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use support::{Backend, GatewayProcess, TestDb, backend_tests, cli};

const XML: &str = "application/xml";
const SUPPLIER: (&str, &str, &str) = ota_gateway::import::DEMO_SUPPLIER;

fn nbc((id, ctx, pw): (&str, &str, &str)) -> String {
    format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1"><POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS><HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    )
}

/// The demo supplier owns the demo hotels; the `requestor` commands and the import make and
/// change suppliers, a hotel never having two; a supplier is refused the demand operations.
pub(crate) async fn suppliers_own_hotels_and_call_only_the_supply_side(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, &[]).await;
    let run = |args: &[&str], stdin: &str| {
        let mut all: Vec<&str> = vec!["requestor"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &arg]);
        cli(&all, stdin)
    };

    let (code, out, _) = run(&["list"], "");
    assert_eq!(code, 0);
    let line = out.lines().find(|l| l.starts_with("SUP-DEMO ")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("supplier") && line.contains("(hotels: HTL00042,HTL00077,HTL00105,HTL02001)"), "{line}");
    assert!(out.lines().any(|l| l.starts_with("DEMO ") && l.contains("distributor")), "{out}");

    // A supplier calls only the supply operations: a demand operation is Type 6, Code 497.
    let (status, _, body) = gw.client().send_raw("/hotelnbc", nbc(SUPPLIER), XML).await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#"Type="6""#) && body.contains(r#"Code="497""#) && body.contains("supplier"), "{body}");
    assert!(!body.contains("HotelDescriptiveContent"), "{body}");

    // A hotel has one supplier, whether by command or by import.
    let (code, _, err) = run(&["add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL00042,HTL99999"], "cm2-secret\n");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(r#"hotel "HTL00042" belongs to supplier "SUP-DEMO""#), "{err}");
    let (code, out, err) = run(&["add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL99999"], "cm2-secret\n");
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run(&["add", "CM3", "--context", "X", "--hotels", "HTL1"], "pw\n");
    assert_eq!(code, 2, "hotels without --supplier are a usage error: {err}");
    let (code, _, err) = run(&["set", "CM2", "--hotels", "HTL00077"], "");
    assert_eq!(code, 1);
    assert!(err.contains(r#"hotel "HTL00077" belongs to supplier "SUP-DEMO""#), "{err}");
    let (code, out, err) = run(&["set", "SUP-DEMO", "--hotels", "HTL00042,HTL00105,HTL02001"], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("supplies HTL00042, HTL00105, HTL02001"), "{out}");
    let (code, out, err) = run(&["set", "CM2", "--hotels", "HTL00077,HTL99999"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(out.lines().any(|l| l.starts_with("CM2 ") && l.contains("(hotels: HTL00077,HTL99999)")), "{out}");
    let (code, out, err) = run(&["set", "CM2", "--distributor"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(out.lines().any(|l| l.starts_with("CM2 ") && l.contains("distributor") && !l.contains("hotels:")), "{out}");
    let (code, _, err) = run(&["set", "CM2", "--hotels", "bad code\n"], "");
    assert_eq!(code, 2, "{err}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suppliers.json");
    let import = |json: &str| {
        std::fs::write(&file, json).unwrap();
        cli(&["import", "--db", &arg, file.to_str().unwrap()], "")
    };
    let entry = |id: &str, hotels: &str| format!(r#"{{"id": "{id}", "id_context": "{id}-CTX", "name": "{id}", "password": "pw-{id}", "supplier": true, "hotels": [{hotels}]}}"#);
    let (code, _, err) = import(&format!(r#"{{"requestors": [{}]}}"#, entry("CM4", r#""HTL00042""#)));
    assert_eq!(code, 1);
    assert!(err.contains(r#"requestor "CM4""#) && err.contains(r#"belongs to supplier "SUP-DEMO""#), "{err}");
    let (code, _, err) = import(&format!(r#"{{"requestors": [{}, {}]}}"#, entry("CM4", r#""H1""#), entry("CM5", r#""H1""#)));
    assert_eq!(code, 1);
    assert!(err.contains("a hotel has one supplier"), "{err}");
    // Moving a hotel in one file: the old owner's entry first.
    let (code, out, err) = import(&format!(r#"{{"requestors": [{}, {}]}}"#, entry("SUP-DEMO", r#""HTL00105""#).replace("pw-SUP-DEMO", SUPPLIER.2).replace("SUP-DEMO-CTX", SUPPLIER.1), entry("CM4", r#""HTL00042""#)));
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = run(&["list"], "");
    assert!(out.lines().any(|l| l.starts_with("CM4 ") && l.contains("(hotels: HTL00042)")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("SUP-DEMO ") && l.contains("(hotels: HTL00105)")), "{out}");
}

backend_tests!(suppliers_own_hotels_and_call_only_the_supply_side);
