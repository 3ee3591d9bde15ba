//! Content loading: `ota-gateway import FILE` ([`import_file`]) and the demo content a fresh
//! database gets at first start ([`seed_demo_if_empty`]: the demo partners, hotels and
//! activities, and the console's demo operator [`DEMO_OPERATOR`] and hotel user [`DEMO_HOTEL_USER`]).
//!
//! An import file is one JSON object with three optional parts (see `gateway/README.md`):
//! `requestors` (plain passwords in the file, argon2id hashes in the store), `activities` and
//! `hotels`. Everything in a file is stored in one transaction, which also moves the content
//! version on (every gateway then reloads its content): a file with one bad part changes
//! nothing, and the error names the entry. Every requestor the file creates or updates is
//! recorded in the audit trail in that transaction (`requestor.import`, by the importing
//! [`Actor`]: the value before, none for a new one, and after; never a password, a notification
//! URL's password shown as `***`); the demo content a fresh database gets is not audited.

use std::path::Path;

use std::collections::HashMap;

use chrono::Utc;
use serde::Deserialize;

use crate::activities::import::{ActivitiesInput, ImportedActivities};
use crate::audit::{self, Actor};
use crate::hotels::import::{HotelsInput, ImportedHotels};
use crate::operators::Role;
use crate::requestors::StoredRequestor;
use crate::requestors::import::RequestorInput;
pub use crate::shared::import::{ImportError, parse, parse_file};
use crate::store::{Store, bump_content_version};
use crate::{activities, hotels, requestors};

/// The demo requestors (`gateway/demo/requestors.json`, an import file with requestors only).
pub const DEMO_REQUESTORS: &str = include_str!("../demo/requestors.json");

/// The demo requestor's `RequestorID@ID`.
pub const DEMO_ID: &str = "DEMO";
/// The demo requestor's distributor context (`ID_Context` of the Type 22 source).
pub const DEMO_ID_CONTEXT: &str = "DEMO-DIST";
/// The demo requestor's `MessagePassword` (a demo secret: change it for real use).
pub const DEMO_PASSWORD: &str = "demo-password";
/// The demo partner on the `ota2016b` dialect: `RequestorID@ID`, `ID_Context` and
/// `MessagePassword`.
pub const DEMO_OTA: (&str, &str, &str) = ("OTA-DEMO", "OTA-DEMO-DIST", "ota-demo-pass");
/// The demo supplier, owning the demo hotels: `RequestorID@ID`, `ID_Context` and
/// `MessagePassword`.
pub const DEMO_SUPPLIER: (&str, &str, &str) = ("SUP-DEMO", "SUP-DEMO-DIST", "sup-demo-pass");

/// The demo operator of the console (an admin, created only with the demo content): name and
/// password (a demo secret: change it, or disable the operator, for real use).
pub const DEMO_OPERATOR: (&str, &str) = ("demo", "demo-console");

/// The demo hotel user of the extranet (a hotel user of the demo supplier [`DEMO_SUPPLIER`],
/// created only with the demo content): name and password (a demo secret, like
/// [`DEMO_OPERATOR`]'s).
pub const DEMO_HOTEL_USER: (&str, &str) = ("demo-hotel", "demo-extranet");

/// An import file. Every part is optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportFile {
    /// Requestors to create or update (by `id`).
    #[serde(default)]
    pub requestors: Vec<RequestorInput>,
    /// Activities (each replaces the stored one with its id).
    #[serde(default)]
    pub activities: Option<ActivitiesInput>,
    /// Boards, hotels and bookings.
    #[serde(default)]
    pub hotels: Option<HotelsInput>,
}

/// What an import stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportSummary {
    /// Requestors created or updated.
    pub requestors: usize,
    /// Activities written.
    pub activities: usize,
    /// Hotels written.
    pub hotels: usize,
    /// Hotel bookings written.
    pub bookings: usize,
}

/// Checked content, ready to store.
struct Checked {
    requestors: Vec<requestors::import::HashedRequestor>,
    activities: Option<ImportedActivities>,
    hotels: Option<ImportedHotels>,
}

async fn check(file: ImportFile) -> Result<Checked, ImportError> {
    let activities = file.activities.as_ref().map(activities::import::validate).transpose()?;
    let hotels = file.hotels.as_ref().map(hotels::import::validate).transpose()?;
    let requestors = requestors::import::hash_all(file.requestors).await?;
    Ok(Checked { requestors, activities, hotels })
}

/// A requestor as the audit trail records an import of it: every value but its password.
fn described(r: &StoredRequestor) -> String {
    let allow = if r.allow.is_empty() {
        "any".to_string()
    } else {
        r.allow.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
    };
    let emails = if r.alert_emails.is_empty() { "none".to_string() } else { r.alert_emails.join(",") };
    format!(
        "id_context={} name={} active={} dialect={} kind={} allow={allow} {} notify_url={} alert_emails={emails} log={} sample={}",
        r.id_context,
        r.name,
        r.active,
        r.dialect.as_str(),
        requestors::admin::role_text(&r.role),
        requestors::admin::limits_text(&r.limits),
        r.notify_url.as_deref().map_or_else(|| "none".to_string(), crate::outbox::admin::shown_url),
        r.log.level.as_str(),
        r.log.sample,
    )
}

/// Stores checked content in one transaction; with `only_if_empty`, stores nothing (and
/// returns `None`) when there are requestors already. With an `actor`, every requestor stored
/// is recorded in the audit trail, in the same transaction.
async fn store_content(
    store: &Store,
    checked: Checked,
    only_if_empty: bool,
    actor: Option<&Actor>,
) -> Result<Option<ImportSummary>, ImportError> {
    let today = Utc::now().date_naive();
    let now = Utc::now();
    let actor = actor.cloned();
    store
        .write_now(move |c| {
            Box::pin(async move {
                c.lock_catalogue(true).await?;
                if only_if_empty && requestors::repo::count(c).await? > 0 {
                    return Ok(None);
                }
                let audited = actor.as_ref().filter(|_| !checked.requestors.is_empty());
                let by_id = |all: Vec<StoredRequestor>| -> HashMap<String, StoredRequestor> {
                    all.into_iter().map(|r| (r.id.clone(), r)).collect()
                };
                let before = match audited {
                    Some(_) => by_id(requestors::repo::load_all(c).await?),
                    None => HashMap::new(),
                };
                for r in &checked.requestors {
                    if let Some(role) = &r.role
                        && let Some((hotel, owner)) = requestors::repo::owned_by_another(c, &r.id, role).await?
                    {
                        return Err(ImportError::invalid(
                            format!("requestor {:?}", r.id),
                            format!("hotel {hotel:?} belongs to supplier {owner:?}: a hotel has one supplier"),
                        ));
                    }
                    requestors::repo::upsert(c, r, now).await?;
                }
                if let Some(actor) = audited {
                    let after = by_id(requestors::repo::load_all(c).await?);
                    for r in &checked.requestors {
                        let old = before.get(&r.id).map(described);
                        let new = after.get(&r.id).map(|a| format!("{} password=(set by the import)", described(a)));
                        audit::record(c, actor, "requestor.import", &r.id, old.as_deref(), new.as_deref()).await?;
                    }
                }
                if let Some(a) = &checked.activities {
                    activities::import::write(c, a, today, now).await?;
                }
                if let Some(h) = &checked.hotels {
                    hotels::import::write(c, h).await?;
                }
                bump_content_version(c).await?;
                Ok(Some(ImportSummary {
                    requestors: checked.requestors.len(),
                    activities: checked.activities.as_ref().map_or(0, |a| a.activities.len()),
                    hotels: checked.hotels.as_ref().map_or(0, |h| h.hotels.len()),
                    bookings: checked.hotels.as_ref().map_or(0, |h| h.bookings.len()),
                }))
            })
        })
        .await
}

/// Imports the content of an import file, in one transaction, audited as the command line's
/// user ([`Actor::cli`]); see [`import_as`].
pub async fn import(store: &Store, file: ImportFile) -> Result<ImportSummary, ImportError> {
    import_as(store, file, &Actor::cli()).await
}

/// Imports the content of an import file, in one transaction; every requestor it creates or
/// updates is recorded in the audit trail as changed by `actor`, in that transaction.
pub async fn import_as(store: &Store, file: ImportFile, actor: &Actor) -> Result<ImportSummary, ImportError> {
    let checked = check(file).await?;
    Ok(store_content(store, checked, false, Some(actor)).await?.unwrap_or_default())
}

/// Reads and imports an import file (see the module docs), audited as changed by `actor`.
pub async fn import_file(store: &Store, path: &Path, actor: &Actor) -> Result<ImportSummary, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Io { path: path.to_path_buf(), source })?;
    let file: ImportFile = parse_file(&path.display().to_string(), &text)?;
    let summary = import_as(store, file, actor).await?;
    tracing::info!(
        file = %path.display(),
        requestors = summary.requestors,
        activities = summary.activities,
        hotels = summary.hotels,
        bookings = summary.bookings,
        "content imported"
    );
    Ok(summary)
}

/// The demo content: `gateway/demo/requestors.json` plus the activities' and hotels' demo.
pub fn demo_content() -> Result<ImportFile, ImportError> {
    let requestors: ImportFile = parse("demo/requestors.json", DEMO_REQUESTORS)?;
    Ok(ImportFile {
        requestors: requestors.requestors,
        activities: Some(parse("demo/activities.json", activities::import::DEMO)?),
        hotels: Some(parse("demo/hotels.json", hotels::import::DEMO)?),
    })
}

/// At first start (no requestor yet), loads the demo content in one transaction. Returns
/// whether it did. Two gateways starting together on a fresh database seed it once.
pub async fn seed_demo_if_empty(store: &Store) -> Result<bool, ImportError> {
    // A cheap look first, so a non-empty database does not pay for hashing the demo passwords;
    // the look is repeated inside the transaction.
    let count: i64 = store.read(|c| Box::pin(async move { requestors::repo::count(c).await })).await?;
    if count > 0 {
        return Ok(false);
    }
    let checked = check(demo_content()?).await?;
    let seeded = store_content(store, checked, true, None).await?.is_some();
    if seeded {
        tracing::info!("empty database: demo content loaded");
        let actor = crate::audit::Actor { name: "demo-content".into(), address: None };
        let (hotel_user, hotel_password) = DEMO_HOTEL_USER;
        for (name, role, supplier, password) in [
            (DEMO_OPERATOR.0, Role::Admin, None, DEMO_OPERATOR.1),
            (hotel_user, Role::Hotel, Some(DEMO_SUPPLIER.0), hotel_password),
        ] {
            match crate::operators::admin::add_with_supplier(store, &actor, name, role, supplier, password.into()).await
            {
                Ok(()) | Err(crate::operators::OperatorError::Exists(_)) => {}
                Err(crate::operators::OperatorError::Store(e)) => return Err(ImportError::Store(e)),
                Err(e) => tracing::warn!(error = %e, operator = name, "a demo operator could not be created"),
            }
        }
    }
    Ok(seeded)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_demo_parts_parse() {
        let demo = demo_content().unwrap();
        assert_eq!(demo.requestors.len(), 4);
        // OTA's MessagePassword has at most 16 characters: every demo partner can log in with
        // a client generated from the official schemas.
        assert!(demo.requestors.iter().all(|r| r.password.chars().count() <= 16));
        let ota = &demo.requestors[2];
        assert_eq!((ota.id.as_str(), ota.id_context.as_str(), ota.password.as_str()), DEMO_OTA);
        assert_eq!(ota.dialect.as_deref(), Some("ota2016b"));
        assert_eq!(demo.requestors[0].id, DEMO_ID);
        assert_eq!(demo.requestors[0].id_context, DEMO_ID_CONTEXT);
        assert_eq!(demo.requestors[0].password, DEMO_PASSWORD);
        let supplier = &demo.requestors[3];
        assert_eq!((supplier.id.as_str(), supplier.id_context.as_str(), supplier.password.as_str()), DEMO_SUPPLIER);
        let demo_hotels: Vec<String> = demo.hotels.as_ref().unwrap().hotels.iter().map(|h| h.code.clone()).collect();
        assert_eq!(
            (supplier.supplier, supplier.hotels.as_ref()),
            (Some(true), Some(&demo_hotels)),
            "the demo supplier owns every demo hotel"
        );
    }

    #[test]
    fn unknown_parts_and_bad_values_are_refused_with_their_path() {
        assert!(parse::<ImportFile>("t", r#"{"requestor": []}"#).is_err());
        assert!(parse::<ImportFile>("t", r#"{}"#).is_ok());
        let e = parse::<ImportFile>("f.json", r#"{"hotels": {"boards": [{"code": "BB"}]}}"#).unwrap_err().to_string();
        assert!(e.starts_with("f.json: hotels.boards[0]") && e.contains("name"), "{e}");
    }
}
