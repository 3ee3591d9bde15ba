//! All SQL of requestors.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use ipnet::IpNet;
use ota_messages::Dialect;

use super::StoredRequestor;
use super::import::HashedRequestor;
use crate::row;
use crate::store::{Conn, Scalar, StoreError};

row! {
    /// A `requestor` row.
    pub(crate) struct RequestorRow { id: String, id_context: String, name: String, password_hash: String, active: bool, dialect: String }
}

row! {
    /// A `requestor_allow` row.
    pub(crate) struct AllowRow { requestor_id: String, network: String }
}

/// Every requestor, with its allow-list.
pub(crate) async fn load_all(c: &mut Conn<'_>) -> Result<Vec<StoredRequestor>, StoreError> {
    let rows: Vec<RequestorRow> = c.query("SELECT id, id_context, name, password_hash, active, dialect FROM requestor ORDER BY id", &[]).await?;
    let allow_rows: Vec<AllowRow> = c.query("SELECT requestor_id, network FROM requestor_allow ORDER BY requestor_id, network", &[]).await?;
    let mut allow: HashMap<String, Vec<IpNet>> = HashMap::new();
    for a in allow_rows {
        let net = a
            .network
            .parse::<IpNet>()
            .map_err(|_| StoreError::Data(format!("requestor_allow: {:?} of requestor {:?} is not a network", a.network, a.requestor_id)))?;
        allow.entry(a.requestor_id).or_default().push(net);
    }
    rows.into_iter()
        .map(|r| {
            let dialect = Dialect::from_name(&r.dialect)
                .ok_or_else(|| StoreError::Data(format!("requestor {:?}: dialect {:?} is not one this gateway knows", r.id, r.dialect)))?;
            Ok(StoredRequestor {
                allow: allow.remove(&r.id).unwrap_or_default(),
                id: r.id,
                id_context: r.id_context,
                name: r.name,
                password_hash: r.password_hash,
                active: r.active,
                dialect,
            })
        })
        .collect()
}

/// How many requestors there are.
pub(crate) async fn count(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    let Scalar(n) = c.query_one("SELECT count(*) FROM requestor", &[]).await?;
    Ok(n)
}

/// Creates or updates a requestor (by id); its allow-list is replaced when `r.allow` is given,
/// its dialect when `r.dialect` is (a new requestor without one gets the default).
pub(crate) async fn upsert(c: &mut Conn<'_>, r: &HashedRequestor, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO requestor (id, id_context, name, password_hash, active, created_at, dialect)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET id_context = excluded.id_context, name = excluded.name,
             password_hash = excluded.password_hash, active = excluded.active,
             dialect = CASE WHEN $8 THEN excluded.dialect ELSE requestor.dialect END",
        &[&r.id, &r.id_context, &r.name, &r.password_hash, &r.active, &now, &r.dialect.unwrap_or_default().as_str(), &r.dialect.is_some()],
    )
    .await?;
    if let Some(allow) = &r.allow {
        replace_allow(c, &r.id, allow).await?;
    }
    Ok(())
}

/// Sets a requestor's dialect; false when there is no such requestor.
pub(crate) async fn set_dialect(c: &mut Conn<'_>, id: &str, dialect: Dialect) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET dialect = $2 WHERE id = $1", &[&id, &dialect.as_str()]).await? == 1)
}

/// A requestor's dialect, as stored; `None` when there is no such requestor.
pub(crate) async fn dialect(c: &mut Conn<'_>, id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<Scalar<String>> = c.query_opt("SELECT dialect FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(row.map(|Scalar(d)| d))
}

/// Creates a requestor; false (and nothing changed) when the id exists.
pub(crate) async fn insert_new(c: &mut Conn<'_>, r: &HashedRequestor, now: DateTime<Utc>) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "INSERT INTO requestor (id, id_context, name, password_hash, active, created_at, dialect)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
            &[&r.id, &r.id_context, &r.name, &r.password_hash, &r.active, &now, &r.dialect.unwrap_or_default().as_str()],
        )
        .await?;
    if n == 1 && let Some(allow) = &r.allow {
        replace_allow(c, &r.id, allow).await?;
    }
    Ok(n == 1)
}

/// Sets a requestor's password hash; false when there is no such requestor.
pub(crate) async fn set_password(c: &mut Conn<'_>, id: &str, password_hash: &str) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET password_hash = $2 WHERE id = $1", &[&id, &password_hash]).await? == 1)
}

/// Enables or disables a requestor; false when there is no such requestor.
pub(crate) async fn set_active(c: &mut Conn<'_>, id: &str, active: bool) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET active = $2 WHERE id = $1", &[&id, &active]).await? == 1)
}

/// Whether a requestor is active; `None` when there is no such requestor.
pub(crate) async fn active(c: &mut Conn<'_>, id: &str) -> Result<Option<bool>, StoreError> {
    let row: Option<Scalar<bool>> = c.query_opt("SELECT active FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(row.map(|Scalar(a)| a))
}

/// A requestor's allow-list, as stored (networks in their text form).
pub(crate) async fn allow_of(c: &mut Conn<'_>, id: &str) -> Result<BTreeSet<String>, StoreError> {
    let rows: Vec<Scalar<String>> = c.query("SELECT network FROM requestor_allow WHERE requestor_id = $1", &[&id]).await?;
    Ok(rows.into_iter().map(|Scalar(n)| n).collect())
}

/// True when the requestor exists.
pub(crate) async fn exists(c: &mut Conn<'_>, id: &str) -> Result<bool, StoreError> {
    let Scalar(n): Scalar<i64> = c.query_one("SELECT count(*) FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(n > 0)
}

/// Replaces a requestor's allow-list (empty: any address).
pub(crate) async fn replace_allow(c: &mut Conn<'_>, id: &str, allow: &[IpNet]) -> Result<(), StoreError> {
    c.execute("DELETE FROM requestor_allow WHERE requestor_id = $1", &[&id]).await?;
    for net in allow {
        let text = net.to_string();
        c.execute("INSERT INTO requestor_allow (requestor_id, network) VALUES ($1, $2) ON CONFLICT DO NOTHING", &[&id, &text]).await?;
    }
    Ok(())
}
