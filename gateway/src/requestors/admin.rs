//! Requestor administration (`ota-gateway requestor …`): create a requestor, change its
//! password, disable or enable it, set its allow-list, list them. Each change is one write
//! transaction that also moves the requestors' version on, so every running gateway (on the same
//! database) reloads its requestors, and nothing else, within a second; a change that changes
//! nothing (enabling an enabled requestor, the same allow-list) writes nothing. Passwords come in clear from the caller (a prompt or
//! stdin, never the command line) and only their argon2id hash is stored.

use std::collections::BTreeSet;

use ipnet::IpNet;
use ota_messages::Dialect;

use super::import::{self, RequestorInput};
use super::{Limits, Role, StoredRequestor, repo};
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

/// What a requestor change found: no such requestor, nothing to change, or a change made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Changed {
    /// There is no such requestor.
    NotFound,
    /// The requestor already is as asked: nothing was written.
    Already,
    /// The requestor was changed.
    Yes,
}

/// Runs `f` in a write transaction that, when `f` changed something, also moves the requestors'
/// version on (every gateway then reloads its requestors, and nothing else).
async fn change<F>(store: &Store, id: &str, f: F) -> Result<(), AdminError>
where
    F: for<'a, 'c> FnOnce(
            &'a mut crate::store::Conn<'c>,
        ) -> futures_util::future::BoxFuture<'a, Result<Changed, AdminError>>
        + Send
        + 'static,
{
    let changed = store
        .write_now(move |c| {
            Box::pin(async move {
                let changed = f(c).await?;
                if changed == Changed::Yes {
                    bump_requestors_version(c).await?;
                }
                Ok::<_, AdminError>(changed)
            })
        })
        .await?;
    if changed == Changed::NotFound { Err(AdminError::NotFound(id.to_string())) } else { Ok(()) }
}

/// Creates a requestor (refused when the id exists).
pub async fn add(store: &Store, new: NewRequestor) -> Result<(), AdminError> {
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
pub async fn passwd(store: &Store, id: &str, password: String) -> Result<(), AdminError> {
    check_password(&password)?;
    let hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| AdminError::Task(e.to_string()))??;
    let key = id.to_string();
    change(store, id, move |c| {
        Box::pin(
            async move { Ok(if repo::set_password(c, &key, &hash).await? { Changed::Yes } else { Changed::NotFound }) },
        )
    })
    .await
}

/// Enables (`true`) or disables (`false`) a requestor.
pub async fn set_active(store: &Store, id: &str, active: bool) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, id, move |c| {
        Box::pin(async move {
            Ok(match repo::active(c, &key).await? {
                None => Changed::NotFound,
                Some(now) if now == active => Changed::Already,
                Some(_) => {
                    repo::set_active(c, &key, active).await?;
                    Changed::Yes
                }
            })
        })
    })
    .await
}

/// Replaces a requestor's allow-list (empty: any address).
pub async fn set_allow(store: &Store, id: &str, allow: Vec<IpNet>) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, id, move |c| {
        Box::pin(async move {
            if !repo::exists(c, &key).await? {
                return Ok(Changed::NotFound);
            }
            let wanted: BTreeSet<String> = allow.iter().map(ToString::to_string).collect();
            if repo::allow_of(c, &key).await? == wanted {
                return Ok(Changed::Already);
            }
            repo::replace_allow(c, &key, &allow).await?;
            Ok(Changed::Yes)
        })
    })
    .await
}

/// Sets the dialect a requestor's answers are written in.
pub async fn set_dialect(store: &Store, id: &str, dialect: Dialect) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, id, move |c| {
        Box::pin(async move {
            Ok(match repo::dialect(c, &key).await? {
                None => Changed::NotFound,
                Some(now) if now == dialect.as_str() => Changed::Already,
                Some(_) => {
                    repo::set_dialect(c, &key, dialect).await?;
                    Changed::Yes
                }
            })
        })
    })
    .await
}

/// Changes a requestor's traffic limits: each `Some` replaces the stored value (`Some(None)`
/// removes that limit), each `None` leaves it; each of `rate_for` sets the rate of one
/// operation (0 removes it), the others kept.
pub async fn set_limits(
    store: &Store,
    id: &str,
    rate: Option<Option<u32>>,
    daily_quota: Option<Option<u32>>,
    rate_for: Vec<(&'static str, u32)>,
) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, id, move |c| {
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
            Ok(Changed::Yes)
        })
    })
    .await
}

/// Makes a requestor a supplier of these hotels (replacing the hotels it had), or a
/// distribution partner.
pub async fn set_role(store: &Store, id: &str, role: Role) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, id, move |c| {
        Box::pin(async move {
            let Some(now) = repo::load_all(c).await?.into_iter().find(|r| r.id == key) else {
                return Ok(Changed::NotFound);
            };
            if now.role == role {
                return Ok(Changed::Already);
            }
            refuse_owned_by_another(c, &key, &role).await?;
            repo::set_role(c, &key, &role).await?;
            Ok(Changed::Yes)
        })
    })
    .await
}

/// Changes what of a requestor's traffic the transaction log keeps: its level and its sample
/// at `all`, each when given.
pub async fn set_log(
    store: &Store,
    id: &str,
    level: Option<crate::txlog::Level>,
    sample: Option<crate::txlog::Sample>,
) -> Result<(), AdminError> {
    let key = id.to_string();
    change(store, id, move |c| {
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
            Ok(Changed::Yes)
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
        add(&store, new).await.unwrap();
        assert_eq!(versions().await, (content, requestors + 1));
        set_active(&store, "P1", true).await.unwrap();
        set_allow(&store, "P1", vec!["10.0.0.0/8".parse().unwrap()]).await.unwrap();
        set_dialect(&store, "P1", Dialect::Service).await.unwrap();
        assert_eq!(versions().await, (content, requestors + 1), "no-op changes write nothing");
        set_active(&store, "P1", false).await.unwrap();
        set_allow(&store, "P1", vec![]).await.unwrap();
        set_dialect(&store, "P1", Dialect::Ota2016b).await.unwrap();
        assert_eq!(versions().await, (content, requestors + 4));
        assert_eq!(list(&store).await.unwrap()[0].dialect, Dialect::Ota2016b);
        assert!(matches!(set_active(&store, "NOPE", true).await, Err(AdminError::NotFound(_))));
        assert!(matches!(set_dialect(&store, "NOPE", Dialect::Ota2016b).await, Err(AdminError::NotFound(_))));
        assert_eq!(versions().await, (content, requestors + 4));
    }
}
