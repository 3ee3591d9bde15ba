//! Requestor administration (`ota-gateway requestor …` and the console's Partners page, one code
//! path): create a requestor, change its password, disable or enable it, set its allow-list,
//! list them. Each change is one write transaction that also moves the requestors' version on,
//! so every running gateway (on the same database) reloads its requestors, and nothing else,
//! within a second, and records the change in the audit trail ([`crate::audit`]: who, the old
//! and the new value; never a password); a change that changes nothing (enabling an enabled
//! requestor, the same allow-list) writes nothing. Passwords come in clear from the caller (a
//! prompt or stdin, never the command line; the console makes them) and only their argon2id hash
//! is stored.
//!
//! Every change moves the requestor's revision on. A console form carries the revision it
//! showed, and its change runs within [`at_revision`]: the revision is compared in the change's
//! own SQL (`UPDATE … WHERE revision = $shown`), so a change made on a form that another
//! operator or the CLI made stale is refused ([`AdminError::Stale`]) and changes nothing.

use std::collections::BTreeSet;

use ipnet::IpNet;
use ota_messages::Dialect;

use super::import::{self, RequestorInput};
use super::{Limits, Role, StoredRequestor, repo};
use crate::audit::{self, Actor};
use crate::requestors::password::{HashError, MAX_PASSWORD, hash_password};
use crate::shared::import::ImportError;
use crate::store::{Abandoned, Store, StoreError, bump_requestors_version};

/// A requestor administration command failed; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// No requestor has this id.
    #[error("no requestor {0:?}")]
    NotFound(String),
    /// A requestor with this id exists already.
    #[error("requestor {0:?} exists already (use `requestor passwd`, `enable`, `disable` or `allow` to change it)")]
    Exists(String),
    /// A value is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The password could not be hashed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The store failed.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// A background task failed.
    #[error("background task: {0}")]
    Task(String),
    /// The requestor changed since the form asking this change showed it ([`at_revision`]).
    #[error(
        "requestor {0:?} was changed since this form was loaded (by another operator or the command line): nothing was changed; look at it again and redo the change"
    )]
    Stale(String),
}

tokio::task_local! {
    /// The revision of the requestor a form showed, while its change runs ([`at_revision`]).
    static SHOWN: i64;
}

/// Runs `change` (one of this module's changes of a requestor) as asked on a form that showed
/// the requestor at revision `shown`: refused with [`AdminError::Stale`], changing nothing, when
/// the requestor's revision has moved on since. `None`: no check (the command line).
pub async fn at_revision<T>(
    shown: Option<i64>,
    change: impl Future<Output = Result<T, AdminError>>,
) -> Result<T, AdminError> {
    match shown {
        Some(revision) => SHOWN.scope(revision, change).await,
        None => change.await,
    }
}

/// The revision the running change's form showed, if it runs within [`at_revision`].
pub fn shown_revision() -> Option<i64> {
    SHOWN.try_with(|r| *r).ok()
}

/// Moves the requestor's revision on inside a change's transaction, compared with `shown`
/// (read with [`shown_revision`] before the transaction); false when the requestor changed since
/// (the change must then fail, so that its transaction is rolled back).
pub async fn revision_moves_on(
    c: &mut crate::store::Conn<'_>,
    id: &str,
    shown: Option<i64>,
) -> Result<bool, StoreError> {
    repo::bump_revision(c, id, shown).await
}

impl From<Abandoned> for AdminError {
    fn from(_: Abandoned) -> Self {
        AdminError::Task("the change was abandoned".into())
    }
}

impl From<ImportError> for AdminError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Store(e) => AdminError::Store(e),
            other => AdminError::Invalid(other.to_string()),
        }
    }
}

/// A requestor to create.
#[derive(Clone)]
pub struct NewRequestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context (`ID_Context` of the Type 22 source).
    pub id_context: String,
    /// A display name.
    pub name: String,
    /// The `MessagePassword`, in clear (only its hash is stored).
    pub password: String,
    /// False to create it disabled.
    pub active: bool,
    /// The networks it may call from; empty: any address.
    pub allow: Vec<IpNet>,
    /// The dialect its answers are written in.
    pub dialect: Dialect,
    /// A distribution partner, or a supplier with its hotels.
    pub role: Role,
}

impl std::fmt::Debug for NewRequestor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewRequestor")
            .field("id", &self.id)
            .field("id_context", &self.id_context)
            .field("name", &self.name)
            .field("active", &self.active)
            .field("allow", &self.allow)
            .field("dialect", &self.dialect)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

/// What a requestor change found: no such requestor, nothing to change, or a change made (the
/// value before and after, for the audit trail).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Changed {
    /// There is no such requestor.
    NotFound,
    /// The requestor already is as asked: nothing was written.
    Already,
    /// The requestor was changed from the first value to the second.
    Yes(Option<String>, Option<String>),
}

/// Runs `f` in a write transaction that, when `f` changed something, also moves the requestors'
/// version on (every gateway then reloads its requestors, and nothing else) and records the
/// change as `action` by `actor` in the audit trail.
async fn change<F>(store: &Store, actor: &Actor, action: &'static str, id: &str, f: F) -> Result<(), AdminError>
where
    F: for<'a, 'c> FnOnce(
            &'a mut crate::store::Conn<'c>,
        ) -> futures_util::future::BoxFuture<'a, Result<Changed, AdminError>>
        + Send
        + 'static,
{
    let (actor, key) = (actor.clone(), id.to_string());
    // Read here: the transaction may run on another thread (SQLite's writer).
    let shown = shown_revision();
    let changed = store
        .write_now(move |c| {
            Box::pin(async move {
                let changed = f(c).await?;
                if changed == Changed::Already
                    && let Some(shown) = shown
                    && repo::revision(c, &key).await?.is_some_and(|now| now != shown)
                {
                    return Err(AdminError::Stale(key));
                }
                if let Changed::Yes(old, new) = &changed {
                    if !repo::bump_revision(c, &key, shown).await? {
                        // Rolled back: the change is refused whole.
                        return Err(AdminError::Stale(key));
                    }
                    bump_requestors_version(c).await?;
                    audit::record(c, &actor, action, &key, old.as_deref(), new.as_deref()).await?;
                }
                Ok::<_, AdminError>(changed)
            })
        })
        .await?;
    if changed == Changed::NotFound { Err(AdminError::NotFound(id.to_string())) } else { Ok(()) }
}

/// How a new requestor is recorded in the audit trail (never its password).
fn described(new: &NewRequestor) -> String {
    let allow = if new.allow.is_empty() {
        "any".to_string()
    } else {
        new.allow.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
    };
    format!(
        "id_context={} name={} active={} dialect={} kind={} allow={allow}",
        new.id_context,
        new.name,
        new.active,
        new.dialect.as_str(),
        role_text(&new.role)
    )
}

/// A role as the audit trail records it: `distributor`, `supplier(H1,H2)`.
pub fn role_text(role: &Role) -> String {
    match role {
        Role::Supplier { hotels } => format!("supplier({})", hotels.iter().cloned().collect::<Vec<_>>().join(",")),
        Role::Distributor => "distributor".to_string(),
    }
}

/// Limits as the audit trail records them: `rate=5/s daily_quota=off rate_for=hotelbook=1`.
pub fn limits_text(l: &Limits) -> String {
    let off = |v: Option<u32>, unit: &str| v.map_or_else(|| "off".to_string(), |n| format!("{n}{unit}"));
    let per: Vec<String> = l.per_operation.iter().map(|(op, n)| format!("{op}={n}/s")).collect();
    format!(
        "rate={} daily_quota={} rate_for={}",
        off(l.rate, "/s"),
        off(l.daily_quota, ""),
        if per.is_empty() { "none".to_string() } else { per.join(",") }
    )
}

/// An allow-list as the audit trail records it.
fn allow_text(allow: &BTreeSet<String>) -> String {
    if allow.is_empty() { "any".to_string() } else { allow.iter().cloned().collect::<Vec<_>>().join(",") }
}

/// Creates a requestor (refused when the id exists), as `actor`.
pub async fn add(store: &Store, actor: &Actor, new: NewRequestor) -> Result<(), AdminError> {
    let description = described(&new);
    let actor = actor.clone();
    let input = RequestorInput {
        id: new.id.clone(),
        id_context: new.id_context,
        name: new.name,
        password: new.password,
        active: new.active,
        allow: Some(new.allow.iter().map(ToString::to_string).collect()),
        dialect: Some(new.dialect.as_str().to_string()),
        rate: None,
        daily_quota: None,
        supplier: Some(new.role.is_supplier()),
        hotels: match &new.role {
            Role::Supplier { hotels } => Some(hotels.iter().cloned().collect()),
            Role::Distributor => None,
        },
        notify_url: None,
        alert_emails: None,
        log: None,
        log_sample: None,
    };
    let mut hashed = import::hash_all(vec![input]).await?;
    let Some(r) = hashed.pop() else {
        return Err(AdminError::Task("nothing was hashed".into()));
    };
    let now = chrono::Utc::now();
    let created = store
        .write_now(move |c| {
            Box::pin(async move {
                if let Some(role) = &r.role {
                    refuse_owned_by_another(c, &r.id, role).await?;
                }
                let created = repo::insert_new(c, &r, now).await?;
                if created {
                    bump_requestors_version(c).await?;
                    audit::record(c, &actor, "requestor.add", &r.id, None, Some(&description)).await?;
                }
                Ok::<_, AdminError>(created)
            })
        })
        .await?;
    if created { Ok(()) } else { Err(AdminError::Exists(new.id)) }
}

/// Checks a new password: not empty, not over [`MAX_PASSWORD`] bytes.
pub fn check_password(password: &str) -> Result<(), AdminError> {
    if password.trim().is_empty() {
        return Err(AdminError::Invalid("the password is empty".into()));
    }
    if password.len() > MAX_PASSWORD {
        return Err(AdminError::Invalid(format!("the password has more than {MAX_PASSWORD} bytes")));
    }
    Ok(())
}

/// Sets a requestor's password. The old one stops working at once on every gateway (its
/// cached verifications no longer match the stored hash).
pub async fn passwd(store: &Store, actor: &Actor, id: &str, password: String) -> Result<(), AdminError> {
    check_password(&password)?;
    let hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| AdminError::Task(e.to_string()))??;
    let key = id.to_string();
    change(store, actor, "requestor.passwd", id, move |c| {
        Box::pin(async move {
            Ok(if repo::set_password(c, &key, &hash).await? {
                Changed::Yes(None, Some("(changed)".into()))
            } else {
                Changed::NotFound
            })
        })
    })
    .await
}

/// Enables (`true`) or disables (`false`) a requestor.
pub async fn set_active(store: &Store, actor: &Actor, id: &str, active: bool) -> Result<(), AdminError> {
    let key = id.to_string();
    let action = if active { "requestor.enable" } else { "requestor.disable" };
    change(store, actor, action, id, move |c| {
        Box::pin(async move {
            Ok(match repo::active(c, &key).await? {
                None => Changed::NotFound,
                Some(now) if now == active => Changed::Already,
                Some(_) => {
                    repo::set_active(c, &key, active).await?;
                    let shown = |a: bool| Some(if a { "enabled" } else { "disabled" }.to_string());
                    Changed::Yes(shown(!active), shown(active))
                }
            })
        })
    })
    .await
}

/// Replaces a requestor's allow-list (empty: any address).
pub async fn set_allow(store: &Store, actor: &Actor, id: &str, allow: Vec<IpNet>) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, actor, "requestor.allow", id, move |c| {
        Box::pin(async move {
            if !repo::exists(c, &key).await? {
                return Ok(Changed::NotFound);
            }
            let wanted: BTreeSet<String> = allow.iter().map(ToString::to_string).collect();
            let now = repo::allow_of(c, &key).await?;
            if now == wanted {
                return Ok(Changed::Already);
            }
            repo::replace_allow(c, &key, &allow).await?;
            Ok(Changed::Yes(Some(allow_text(&now)), Some(allow_text(&wanted))))
        })
    })
    .await
}

/// Sets the dialect a requestor's answers are written in.
pub async fn set_dialect(store: &Store, actor: &Actor, id: &str, dialect: Dialect) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, actor, "requestor.dialect", id, move |c| {
        Box::pin(async move {
            Ok(match repo::dialect(c, &key).await? {
                None => Changed::NotFound,
                Some(now) if now == dialect.as_str() => Changed::Already,
                Some(now) => {
                    repo::set_dialect(c, &key, dialect).await?;
                    Changed::Yes(Some(now), Some(dialect.as_str().to_string()))
                }
            })
        })
    })
    .await
}

/// Sets a supplier's alert addresses (docs/hotels/alerts.md), replacing those it had (`[]`:
/// none; an empty address in the list is dropped, so `--alert-email ''` clears them): each
/// checked ([`import::check_alert_emails`]: one plain address, no CR/LF, bounded). Audited
/// as `requestor.alert_emails` with the lists before and after.
pub async fn set_alert_emails(
    store: &Store,
    actor: &Actor,
    id: &str,
    addresses: Vec<String>,
) -> Result<(), AdminError> {
    let addresses: Vec<String> =
        addresses.into_iter().map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect();
    import::check_alert_emails(&addresses).map_err(AdminError::Invalid)?;
    let key = id.to_string();
    change(store, actor, "requestor.alert_emails", id, move |c| {
        Box::pin(async move {
            let Some(now) = repo::load_all(c).await?.into_iter().find(|r| r.id == key) else {
                return Ok(Changed::NotFound);
            };
            if now.alert_emails == addresses {
                return Ok(Changed::Already);
            }
            repo::set_alert_emails(c, &key, &addresses).await?;
            let shown = |a: &[String]| if a.is_empty() { "none".to_string() } else { a.join(", ") };
            Ok(Changed::Yes(Some(shown(&now.alert_emails)), Some(shown(&addresses))))
        })
    })
    .await
}

/// Changes a requestor's traffic limits: each `Some` replaces the stored value (`Some(None)`
/// removes that limit), each `None` leaves it; each of `rate_for` sets the rate of one
/// operation (0 removes it), the others kept.
pub async fn set_limits(
    store: &Store,
    actor: &Actor,
    id: &str,
    rate: Option<Option<u32>>,
    daily_quota: Option<Option<u32>>,
    rate_for: Vec<(&'static str, u32)>,
) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, actor, "requestor.limits", id, move |c| {
        Box::pin(async move {
            let Some(now) = repo::limits(c, &key).await? else {
                return Ok(Changed::NotFound);
            };
            let mut per_operation = now.per_operation.clone();
            for (op, n) in &rate_for {
                per_operation.retain(|(o, _)| o != op);
                if *n > 0 {
                    per_operation.push((op, *n));
                }
            }
            per_operation.sort_unstable();
            let wanted = Limits {
                rate: rate.unwrap_or(now.rate),
                daily_quota: daily_quota.unwrap_or(now.daily_quota),
                per_operation,
            };
            if wanted == now {
                return Ok(Changed::Already);
            }
            repo::set_limits(c, &key, &wanted).await?;
            Ok(Changed::Yes(Some(limits_text(&now)), Some(limits_text(&wanted))))
        })
    })
    .await
}

/// Makes a requestor a supplier of these hotels (replacing the hotels it had), or a
/// distribution partner.
pub async fn set_role(store: &Store, actor: &Actor, id: &str, role: Role) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, actor, "requestor.role", id, move |c| {
        Box::pin(async move {
            let Some(now) = repo::load_all(c).await?.into_iter().find(|r| r.id == key) else {
                return Ok(Changed::NotFound);
            };
            if now.role == role {
                return Ok(Changed::Already);
            }
            refuse_owned_by_another(c, &key, &role).await?;
            repo::set_role(c, &key, &role).await?;
            Ok(Changed::Yes(Some(role_text(&now.role)), Some(role_text(&role))))
        })
    })
    .await
}

/// Changes what of a requestor's traffic the transaction log keeps: its level and its sample
/// at `all`, each when given.
pub async fn set_log(
    store: &Store,
    actor: &Actor,
    id: &str,
    level: Option<crate::txlog::Level>,
    sample: Option<crate::txlog::Sample>,
) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, actor, "requestor.log", id, move |c| {
        Box::pin(async move {
            let Some(now) = repo::log_policy(c, &key).await? else {
                return Ok(Changed::NotFound);
            };
            let wanted =
                crate::txlog::Policy { level: level.unwrap_or(now.level), sample: sample.unwrap_or(now.sample) };
            if wanted == now {
                return Ok(Changed::Already);
            }
            repo::set_log_policy(c, &key, wanted).await?;
            let shown = |p: crate::txlog::Policy| format!("{} sample={}", p.level.as_str(), p.sample);
            Ok(Changed::Yes(Some(shown(now)), Some(shown(wanted))))
        })
    })
    .await
}

/// Refuses hotels owned by another supplier, naming the first and its owner.
async fn refuse_owned_by_another(c: &mut crate::store::Conn<'_>, id: &str, role: &Role) -> Result<(), AdminError> {
    match repo::owned_by_another(c, id, role).await? {
        Some((hotel, owner)) => {
            Err(AdminError::Invalid(format!("hotel {hotel:?} belongs to supplier {owner:?}: a hotel has one supplier")))
        }
        None => Ok(()),
    }
}

/// Every requestor, by id.
pub async fn list(store: &Store) -> Result<Vec<StoredRequestor>, AdminError> {
    Ok(store.read(|c| Box::pin(async move { repo::load_all(c).await })).await?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::Location;

    #[tokio::test]
    async fn a_change_moves_the_requestors_version_only_and_a_no_op_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&Location::Sqlite(dir.path().join("gw.db"))).await.unwrap();
        let versions = || async { store.content_versions().await.map(|v| (v.content, v.requestors)).unwrap() };
        let (content, requestors) = versions().await;
        let new = NewRequestor {
            id: "P1".into(),
            id_context: "P1-DIST".into(),
            name: "Partner one".into(),
            password: "secret-pass".into(),
            active: true,
            allow: vec!["10.0.0.0/8".parse().unwrap()],
            dialect: Dialect::Service,
            role: Role::Distributor,
        };
        let cli = Actor::cli();
        add(&store, &cli, new).await.unwrap();
        assert_eq!(versions().await, (content, requestors + 1));
        set_active(&store, &cli, "P1", true).await.unwrap();
        set_allow(&store, &cli, "P1", vec!["10.0.0.0/8".parse().unwrap()]).await.unwrap();
        set_dialect(&store, &cli, "P1", Dialect::Service).await.unwrap();
        assert_eq!(versions().await, (content, requestors + 1), "no-op changes write nothing");
        set_active(&store, &cli, "P1", false).await.unwrap();
        set_allow(&store, &cli, "P1", vec![]).await.unwrap();
        set_dialect(&store, &cli, "P1", Dialect::Ota2016b).await.unwrap();
        assert_eq!(versions().await, (content, requestors + 4));
        assert_eq!(list(&store).await.unwrap()[0].dialect, Dialect::Ota2016b);
        assert!(matches!(set_active(&store, &cli, "NOPE", true).await, Err(AdminError::NotFound(_))));
        assert!(matches!(set_dialect(&store, &cli, "NOPE", Dialect::Ota2016b).await, Err(AdminError::NotFound(_))));
        assert_eq!(versions().await, (content, requestors + 4));
        // Each change made is in the audit trail (newest first), the no-ops are not.
        let trail = audit::list(&store, audit::Filter::default()).await.unwrap();
        let actions: Vec<&str> = trail.iter().map(|e| e.action.as_str()).collect();
        assert_eq!(actions, ["requestor.dialect", "requestor.allow", "requestor.disable", "requestor.add"]);
        assert!(trail.iter().all(|e| e.actor.starts_with("cli:") && e.target == "P1"));
        assert_eq!((trail[0].old.as_deref(), trail[0].new.as_deref()), (Some("service"), Some("ota2016b")));
        assert_eq!((trail[1].old.as_deref(), trail[1].new.as_deref()), (Some("10.0.0.0/8"), Some("any")));
        assert!(!trail[3].new.as_deref().unwrap().contains("secret-pass"), "never a password");
    }
}
