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

/// Creates an admin or a viewer (refused when the name is taken; a hotel user needs its
/// supplier: [`add_with_supplier`]).
pub async fn add(store: &Store, actor: &Actor, name: &str, role: Role, password: String) -> Result<(), OperatorError> {
    add_with_supplier(store, actor, name, role, None, password).await
}

/// Creates an operator: a hotel user (`Role::Hotel`) with its supplier — the id of a requestor
/// of kind `supplier` —, an admin or a viewer without one. Refused when the name is taken, when
/// a hotel user has no supplier or one that is not a supplier, and when another role has one.
pub async fn add_with_supplier(
    store: &Store,
    actor: &Actor,
    name: &str,
    role: Role,
    supplier: Option<&str>,
    password: String,
) -> Result<(), OperatorError> {
    check_name(name)?;
    let supplier = match (role, supplier.map(str::trim).filter(|s| !s.is_empty())) {
        (Role::Hotel, Some(s)) => Some(s.to_string()),
        (Role::Hotel, None) => {
            return Err(OperatorError::Invalid("a hotel user needs its supplier (--supplier SUP)".into()));
        }
        (_, Some(_)) => {
            return Err(OperatorError::Invalid(format!("only a hotel user has a supplier, not a {}", role.as_str())));
        }
        (_, None) => None,
    };
    let hash = hashed(password).await?;
    let (key, actor) = (name.to_string(), actor.clone());
    let created = store
        .write_now(move |c| {
            Box::pin(async move {
                if let Some(sup) = &supplier {
                    match repo::requestor_kind(c, sup).await?.as_deref() {
                        Some("supplier") => {}
                        Some(_) => {
                            return Err(OperatorError::Invalid(format!(
                                "requestor {sup:?} is not a supplier (a hotel's system): `requestor set {sup} --hotels CODE,…` makes it one"
                            )));
                        }
                        None => return Err(OperatorError::Invalid(format!("no requestor {sup:?}"))),
                    }
                }
                let created =
                    repo::insert(c, &key, role.as_str(), supplier.as_deref(), &hash, chrono::Utc::now()).await?;
                if created {
                    let shown = match &supplier {
                        Some(sup) => format!("role={} supplier={sup}", role.as_str()),
                        None => format!("role={}", role.as_str()),
                    };
                    audit::record(c, &actor, "operator.add", &key, None, Some(&shown)).await?;
                }
                Ok::<_, OperatorError>(created)
            })
        })
        .await?;
    if created { Ok(()) } else { Err(OperatorError::Exists(name.to_string())) }
}

/// The ids of every supplier (a requestor of kind `supplier`), in order: what a hotel user may
/// belong to.
pub async fn suppliers(store: &Store) -> Result<Vec<String>, OperatorError> {
    Ok(store.read(|c| Box::pin(async move { repo::suppliers(c).await })).await?)
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
                    "operator {:?}: role {:?} is not admin, viewer or hotel",
                    r.name, r.role
                )))
            })?;
            Ok(Operator { name: r.name, role, supplier: r.supplier, active: r.active, created: r.created_at })
        })
        .collect()
}
