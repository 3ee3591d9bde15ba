//! All SQL of requestors.

use chrono::{DateTime, Utc};

use super::StoredRequestor;
use super::import::HashedRequestor;
use crate::row;
use crate::store::{Conn, Scalar, StoreError};

row! {
    /// A `requestor` row.
    pub(crate) struct RequestorRow { id: String, id_context: String, name: String, password_hash: String, active: bool }
}

/// Every requestor.
pub(crate) async fn load_all(c: &mut Conn<'_>) -> Result<Vec<StoredRequestor>, StoreError> {
    let rows: Vec<RequestorRow> = c.query("SELECT id, id_context, name, password_hash, active FROM requestor ORDER BY id", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|r| StoredRequestor { id: r.id, id_context: r.id_context, name: r.name, password_hash: r.password_hash, active: r.active })
        .collect())
}

/// How many requestors there are.
pub(crate) async fn count(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    let Scalar(n) = c.query_one("SELECT count(*) FROM requestor", &[]).await?;
    Ok(n)
}

/// Creates or updates a requestor (by id).
pub(crate) async fn upsert(c: &mut Conn<'_>, r: &HashedRequestor, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO requestor (id, id_context, name, password_hash, active, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET id_context = excluded.id_context, name = excluded.name,
             password_hash = excluded.password_hash, active = excluded.active",
        &[&r.id, &r.id_context, &r.name, &r.password_hash, &r.active, &now],
    )
    .await?;
    Ok(())
}
