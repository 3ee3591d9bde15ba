//! The audit trail: every change an operator makes, through the console or the command line —
//! who ([`Actor`]: an operator's name, or `cli:<OS user>`), when, what (an action on a target),
//! the old and the new value, and from which address. A change and its entry are written in
//! one transaction ([`record`] takes the change's [`Conn`]), so there is no change without its
//! entry and no entry without its change. Never a password: a password change is recorded as
//! `(changed)`.
//!
//! Any room records its own changes with [`record`] inside its write (`requestors::admin`,
//! `operators::admin`, the outbox's resend); `ota-gateway audit list` and the console's Audit
//! page read them with [`list`].

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::store::row;
use crate::store::{Conn, Store, StoreError};

/// The most characters kept of a value (old or new); longer ones are cut and end in `…`.
pub const MAX_VALUE: usize = 2000;

/// Who makes a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// An operator's name, or `cli:<OS user>`.
    pub name: String,
    /// The client's address (the console), when known.
    pub address: Option<String>,
}

impl Actor {
    /// An operator acting through the console from `address`.
    pub fn operator(name: &str, address: Option<std::net::IpAddr>) -> Actor {
        Actor { name: name.to_string(), address: address.map(|a| a.to_canonical().to_string()) }
    }

    /// The command line, as the OS user running it (`cli:alice`; `cli:unknown` when the
    /// environment names nobody).
    pub fn cli() -> Actor {
        let user = ["USER", "LOGNAME", "USERNAME"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
            .unwrap_or_else(|| "unknown".to_string());
        Actor { name: format!("cli:{}", clean(&user, 64)), address: None }
    }
}

/// A value as stored: control characters replaced by spaces, at most `max` characters.
fn clean(text: &str, max: usize) -> String {
    let mut out: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// Records a change made by `actor` inside the change's own write transaction: `action` (a
/// dotted name, `requestor.set_limits`), its `target` (a requestor's id, an operator's name),
/// the value before and after (none when there is nothing to show; never a password).
pub async fn record(
    c: &mut Conn<'_>,
    actor: &Actor,
    action: &str,
    target: &str,
    old: Option<&str>,
    new: Option<&str>,
) -> Result<(), StoreError> {
    let now = Utc::now();
    let (old, new) = (old.map(|v| clean(v, MAX_VALUE)), new.map(|v| clean(v, MAX_VALUE)));
    c.execute(
        "INSERT INTO audit_entry (at, actor, action, target, old_value, new_value, address) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[&now, &clean(&actor.name, 200), &action, &clean(target, 200), &old, &new, &actor.address],
    )
    .await?;
    Ok(())
}

row! {
    /// An `audit_entry` row.
    struct EntryRow { id: i64, at: DateTime<Utc>, actor: String, action: String, target: String, old_value: Option<String>, new_value: Option<String>, address: Option<String> }
}

/// One entry of the audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Its number (later entries have larger ones).
    pub id: i64,
    /// When (UTC, whole seconds).
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    /// Who: an operator's name or `cli:<OS user>`.
    pub actor: String,
    /// What was done (`requestor.set_limits`).
    pub action: String,
    /// To what.
    pub target: String,
    /// The value before (none when there was nothing, e.g. a creation).
    pub old: Option<String>,
    /// The value after.
    pub new: Option<String>,
    /// The operator's client address (none from the command line).
    pub address: Option<String>,
}

fn rfc3339<S: serde::Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// Which entries [`list`] gives.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only entries at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// Only this actor's.
    pub actor: Option<String>,
    /// Only changes of this target.
    pub target: Option<String>,
    /// At most this many (the newest); 0: 1000.
    pub limit: usize,
}

/// The entries that match, newest first.
pub async fn list(store: &Store, filter: Filter) -> Result<Vec<Entry>, StoreError> {
    let limit = i64::try_from(if filter.limit == 0 { 1000 } else { filter.limit }).unwrap_or(1000);
    let since = filter.since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    let rows: Vec<EntryRow> = store
        .read(move |c| {
            Box::pin(async move {
                c.query(
                    "SELECT id, at, actor, action, target, old_value, new_value, address FROM audit_entry \
                     WHERE at >= $1 AND (CAST($2 AS TEXT) IS NULL OR actor = $2) \
                     AND (CAST($3 AS TEXT) IS NULL OR target = $3) \
                     ORDER BY id DESC LIMIT $4",
                    &[&since, &filter.actor, &filter.target, &limit],
                )
                .await
            })
        })
        .await?;
    Ok(rows
        .into_iter()
        .map(|r| Entry {
            id: r.id,
            at: r.at,
            actor: r.actor,
            action: r.action,
            target: r.target,
            old: r.old_value,
            new: r.new_value,
            address: r.address,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn values_are_cleaned_and_bounded() {
        assert_eq!(clean("a\r\nb", 10), "a  b");
        assert_eq!(clean(&"x".repeat(12), 10), format!("{}…", "x".repeat(10)));
        assert!(Actor::cli().name.starts_with("cli:"));
        assert_eq!(
            Actor::operator("ann", Some("::ffff:10.0.0.1".parse().unwrap())).address.as_deref(),
            Some("10.0.0.1")
        );
    }
}
