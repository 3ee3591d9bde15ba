//! The activity operations: search (`/activitysearch`), availability
//! (`/activityavailability`), activity NBC (`/activitynbc`) and booking (`/activitybook`), and
//! the activities section of the import file ([`Content`], [`store`], [`DEMO`]).
//!
//! Business rules (see the README and `docs/ota-service-notes.md`):
//! - Search and availability cover at most 28 days (inclusive), from today on; the Source
//!   location's `HotelCode` selects the activities near that hotel, the Service location's
//!   `Product` one activity (by `TourActivityID` or `SupplierProductCode`); both together give
//!   the union.
//! - Availability prices the requested party per service and date; `MF002` answers one
//!   per-person "price from" per service, anything else every date with the group price.
//! - Quote prices and checks availability and stores nothing; Commit books in one `IMMEDIATE`
//!   transaction, idempotent per (requestor, Client reference), never overbooking.

mod availability;
mod book;
mod catalog;
mod descriptive;
mod search;
mod store;

pub use availability::availability;
pub use book::book;
pub use descriptive::descriptive_info;
pub use search::search;
pub use store::{
    ActivityInput, ActivityText, CategoryInput, Content, HotelInput, ItemText, LocationInput, ProductInput, ScheduleInput, ServiceInput,
    store,
};

use ota_messages::common::{
    ActivityCategory, ActivityCategoryCode, ActivityType, Address, CategoryAndType, CountryName, GeoRegion, LanguageSelector,
    Position, TourActivityLocation,
};
use ota_messages::runtime as rt;

use catalog::Activity;

/// The demo activities (the value of the import file's `"activities"` section): Mallorca
/// (region `PMI`, hotels `HTL00042`, `HTL00077`) and Tenerife (region `TFS`, hotels `HTL00110`,
/// `HTL00123`), recurring weekly schedules (so they cover any run date), EUR prices for adults
/// (`10`) and children (`8`), 20 places per date, and one small-group activity (`LESPMICATA`)
/// with 2 places per date.
pub const DEMO: &str = include_str!("../../../demo/activities.json");

/// The longest date range of a search or availability request, in days (both ends included).
pub const MAX_RANGE_DAYS: i64 = 28;

/// The language code of a `PrimaryLangID`, if it names one (`*` does not).
fn primary_lang(sel: Option<&LanguageSelector>) -> Option<&str> {
    match sel {
        Some(LanguageSelector::Other(l)) => Some(l.as_str()),
        Some(LanguageSelector::All) | None => None,
    }
}

fn category_code(code: &str) -> ActivityCategoryCode {
    code.parse().unwrap_or_else(|never: std::convert::Infallible| match never {})
}

/// `CategoryAndType` of an activity (categories and types, each code once).
fn category_and_type(a: &Activity) -> Option<CategoryAndType> {
    if a.categories.is_empty() {
        return None;
    }
    let mut out = CategoryAndType::default();
    for (category, type_code) in &a.categories {
        let code = category_code(category);
        if !out.category.iter().any(|c| c.code == code) {
            out.category.push(ActivityCategory { code });
        }
        if let Some(t) = type_code {
            if !out.r#type.iter().any(|x| &x.code == t) {
                out.r#type.push(ActivityType { code: t.clone() });
            }
        }
    }
    Some(out)
}

/// `Location` of an activity: address, region, position.
fn tour_location(a: &Activity) -> TourActivityLocation {
    let has_address = !a.address.is_empty() || a.city.is_some() || a.postal_code.is_some() || a.country_name.is_some() || a.country_code.is_some();
    TourActivityLocation {
        address: has_address.then(|| Address {
            address_line: a.address.clone(),
            city_name: a.city.clone(),
            postal_code: a.postal_code.clone(),
            country_name: (a.country_name.is_some() || a.country_code.is_some()).then(|| CountryName {
                code: a.country_code.clone(),
                value: a.country_name.clone().unwrap_or_default(),
            }),
        }),
        region: Some(GeoRegion { region_code: a.region_code.clone(), value: a.region_name.clone() }),
        position: match (a.latitude, a.longitude) {
            (Some(lat), Some(lon)) => Some(Position { latitude: rt::Decimal(lat), longitude: rt::Decimal(lon) }),
            _ => None,
        },
    }
}

/// The activities a request's locations select, and the customer's hotel.
#[derive(Debug, Clone, Default)]
struct Selection {
    /// Activity ids: those named by a product code first, then those near the hotel(s).
    ids: Vec<String>,
    /// The first Source hotel code (for pickups).
    hotel: Option<String>,
}

/// Resolves the `Location` / `LocationPref` list of a search or availability request. `tag` is
/// the XPath of the repeated element. Unknown product codes and unsupported `RegionCode`s are
/// errors; a hotel with no activities near it simply selects nothing.
fn resolve_locations(
    conn: &rusqlite::Connection,
    locations: &[ota_messages::common::ActivityLocation],
    tag: &str,
) -> Result<Result<Selection, Vec<crate::errors::Problem>>, crate::db::DbError> {
    use crate::errors::Problem;
    use ota_messages::common::{ErrorCode, RegionCode};

    if locations.is_empty() {
        return Ok(Err(vec![Problem::required("A location is required: a Source hotel code or a Service product code.").at(tag)]));
    }
    let mut problems = Vec::new();
    let mut named = Vec::new();
    let mut near = Vec::new();
    let mut hotel = None;
    for (i, loc) in locations.iter().enumerate() {
        let at = format!("{tag}[{}]/Region", i + 1);
        let code = loc.region.value.trim();
        if code.is_empty() {
            problems.push(Problem::required("The Region text (a hotel or product code) is empty.").at(at));
            continue;
        }
        match &loc.region.region_code {
            RegionCode::HotelCode => {
                hotel.get_or_insert_with(|| code.to_string());
                near.extend(catalog::activities_near(conn, code)?);
            }
            RegionCode::Product => match catalog::activity_of_product(conn, code)? {
                Some(id) => named.push(id),
                None => problems.push(Problem::biz(ErrorCode::InvalidValue, format!("Unknown product code {code:?}.")).at(at)),
            },
            RegionCode::Other(other) => problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("RegionCode {other:?} is not supported; use HotelCode or Product."))
                    .at(format!("{at}/@RegionCode")),
            ),
        }
    }
    if !problems.is_empty() {
        return Ok(Err(problems));
    }
    let mut ids: Vec<String> = Vec::new();
    for id in named.into_iter().chain(near) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(Ok(Selection { ids, hotel }))
}

/// Checks a request's date range: End not before Start, at most [`MAX_RANGE_DAYS`] days.
fn check_range(start: chrono::NaiveDate, end: chrono::NaiveDate, tag: &str) -> Result<(), crate::errors::Problem> {
    use crate::errors::Problem;
    use ota_messages::common::ErrorCode;
    if end < start {
        return Err(Problem::biz(ErrorCode::InvalidStartEndDateCombination, format!("The end date ({end}) is before the start date ({start}).")).at(tag));
    }
    let days = catalog::days_inclusive(start, end);
    if days > MAX_RANGE_DAYS {
        return Err(Problem::biz(
            ErrorCode::SearchCriteriaInvalid,
            format!("The date range {start} – {end} spans {days} days; at most {MAX_RANGE_DAYS} days are allowed."),
        )
        .at(tag));
    }
    Ok(())
}
