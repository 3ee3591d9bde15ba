//! Operator administration (`ota-gateway operator …`, and the console's Operators page): create
//! an operator, change its password, disable or enable it, list them. Each change is one write
//! transaction with its audit entry ([`crate::audit::record`]); a disabled operator, and one
//! whose password changed, loses every session at once (on every gateway). A change that
//! changes nothing (enabling an enabled operator) writes nothing.

use super::{Operator, OperatorError, Role, check_name, repo};
use crate::audit::{self, Actor};
use crate::requestors::admin::check_password;
use crate::requestors::password::hash_password;
use crate::store::Store;

/// Hashes a password on a blocking thread (argon2 is slow on purpose), after checking it.
async fn hashed(password: String) -> Result<String, OperatorError> {
    check_password(&password).map_err(|e| OperatorError::Invalid(e.to_string()))?;
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| OperatorError::Task(e.to_string()))?
        .map_err(OperatorError::from)
}

/// Creates an operator (refused when the name is taken).
pub async fn add(store: &Store, actor: &Actor, name: &str, role: Role, password: String) -> Result<(), OperatorError> {
    check_name(name)?;
    let hash = hashed(password).await?;
    let (key, actor) = (name.to_string(), actor.clone());
    let created = store
        .write_now(move |c| {
            Box::pin(async move {
                let created = repo::insert(c, &key, role.as_str(), &hash, chrono::Utc::now()).await?;
                if created {
                    audit::record(c, &actor, "operator.add", &key, None, Some(&format!("role={}", role.as_str())))
                        .await?;
                }
                Ok::<_, OperatorError>(created)
            })
        })
        .await?;
    if created { Ok(()) } else { Err(OperatorError::Exists(name.to_string())) }
}

/// Sets an operator's password; its sessions end (on every gateway).
pub async fn passwd(store: &Store, actor: &Actor, name: &str, password: String) -> Result<(), OperatorError> {
    let hash = hashed(password).await?;
    let (key, actor) = (name.to_string(), actor.clone());
    let found = store
        .write_now(move |c| {
            Box::pin(async move {
                if !repo::set_password(c, &key, &hash).await? {
                    return Ok::<_, OperatorError>(false);
                }
                repo::delete_sessions_of(c, &key).await?;
                audit::record(c, &actor, "operator.passwd", &key, None, Some("(changed)")).await?;
                Ok(true)
            })
        })
        .await?;
    if found { Ok(()) } else { Err(OperatorError::NotFound(name.to_string())) }
}

/// Enables (`true`) or disables (`false`) an operator; disabling ends its sessions (on every
/// gateway).
pub async fn set_active(store: &Store, actor: &Actor, name: &str, active: bool) -> Result<(), OperatorError> {
    let (key, actor) = (name.to_string(), actor.clone());
    let found = store
        .write_now(move |c| {
            Box::pin(async move {
                let Some(now) = repo::get(c, &key).await? else { return Ok::<_, OperatorError>(false) };
                // Sessions go with a disabling even when the flag is already down.
                if !active {
                    repo::delete_sessions_of(c, &key).await?;
                }
                if now.active != active {
                    repo::set_active(c, &key, active).await?;
                    let shown = |a: bool| if a { "enabled" } else { "disabled" };
                    let action = if active { "operator.enable" } else { "operator.disable" };
                    audit::record(c, &actor, action, &key, Some(shown(now.active)), Some(shown(active))).await?;
                }
                Ok(true)
            })
        })
        .await?;
    if found { Ok(()) } else { Err(OperatorError::NotFound(name.to_string())) }
}

/// Every operator, by name (never a password's hash).
pub async fn list(store: &Store) -> Result<Vec<Operator>, OperatorError> {
    let rows = store.read(|c| Box::pin(async move { repo::all(c).await })).await?;
    rows.into_iter()
        .map(|r| {
            let role = Role::from_name(&r.role).ok_or_else(|| {
                OperatorError::Store(crate::store::StoreError::Data(format!(
                    "operator {:?}: role {:?} is neither admin nor viewer",
                    r.name, r.role
                )))
            })?;
            Ok(Operator { name: r.name, role, active: r.active, created: r.created_at })
        })
        .collect()
}
