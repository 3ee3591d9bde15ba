//! What the `calendar` and `refresh` benches share: hotels of 10 room types sold with 4 rate
//! plans (their import file) and a calendar edit.

use ota_gateway::hotels::rules::calendar::edit::EditAsk;

/// The rate plans every hotel sells.
pub const PLANS: [&str; 4] = ["B0", "B1", "B2", "B3"];

/// The import file of these hotels, each with 10 room types sold with [`PLANS`].
pub fn import_file(codes: impl Iterator<Item = String>) -> String {
    let rooms: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"code": "RM{i:02}", "units": 5, "texts": {{"en": {{"name": "Room type {i}"}}}}}}"#))
        .collect();
    let nightly: Vec<String> = PLANS.iter().enumerate().map(|(i, p)| format!(r#""{p}": "{}.00""#, 80 + i)).collect();
    let rates: Vec<String> = (0..10)
        .map(|i| {
            format!(
                r#"{{"room": "RM{i:02}", "currency": "EUR", "from": "2026-01-01", "to": "2039-12-31", "nightly": {{{}}}}}"#,
                nightly.join(", ")
            )
        })
        .collect();
    let (rooms, rates) = (rooms.join(", "), rates.join(", "));
    let hotels: Vec<String> = codes
        .enumerate()
        .map(|(n, code)| {
            format!(
                r#"{{"code": "{code}", "name": "Bench hotel {n}", "last_modified": "2026-01-01", "texts": {{"en": {{"description": "x"}}}}, "rooms": [{rooms}], "rates": [{rates}]}}"#
            )
        })
        .collect();
    let boards: Vec<String> = PLANS.iter().map(|p| format!(r#"{{"code": "{p}", "name": "Plan {p}"}}"#)).collect();
    format!(r#"{{"hotels": {{"boards": [{}], "hotels": [{}]}}}}"#, boards.join(", "), hotels.join(", "))
}

/// A calendar edit of `nights` nights from `from`: `action` with `value`, for these plans (none:
/// every plan), in EUR for amounts.
pub fn ask(from: chrono::NaiveDate, nights: u64, action: &str, value: &str, plans: &[&str]) -> EditAsk {
    EditAsk {
        from: from.to_string(),
        to: (from + chrono::Days::new(nights - 1)).to_string(),
        plans: plans.iter().map(|p| (*p).to_string()).collect(),
        action: action.into(),
        value: value.into(),
        currency: if action == "amount" { "EUR".into() } else { String::new() },
        ..EditAsk::default()
    }
}
