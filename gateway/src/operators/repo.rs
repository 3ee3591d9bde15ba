//! All SQL of operators and their console sessions.

use chrono::{DateTime, Utc};

use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

row! {
    /// An `operator` row.
    pub(crate) struct OperatorRow { name: String, role: String, password_hash: String, active: bool, created_at: DateTime<Utc>, supplier: Option<String> }
}

const OPERATOR: &str = "SELECT name, role, password_hash, active, created_at, supplier FROM operator";

/// Every operator, by name.
pub(crate) async fn all(c: &mut Conn<'_>) -> Result<Vec<OperatorRow>, StoreError> {
    c.query(&format!("{OPERATOR} ORDER BY name"), &[]).await
}

/// The operator of this name.
pub(crate) async fn get(c: &mut Conn<'_>, name: &str) -> Result<Option<OperatorRow>, StoreError> {
    c.query_opt(&format!("{OPERATOR} WHERE name = $1"), &[&name]).await
}

/// Creates an operator (`supplier`: a hotel user's); false when the name is taken.
pub(crate) async fn insert(
    c: &mut Conn<'_>,
    name: &str,
    role: &str,
    supplier: Option<&str>,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "INSERT INTO operator (name, role, password_hash, active, created_at, supplier) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING",
            &[&name, &role, &hash, &true, &now, &supplier],
        )
        .await?;
    Ok(n > 0)
}

/// The kind (`distributor` or `supplier`) of the requestor `id`, if there is one.
pub(crate) async fn requestor_kind(c: &mut Conn<'_>, id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<Scalar<String>> = c.query_opt("SELECT kind FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(row.map(|Scalar(k)| k))
}

/// Every `supplier` requestor's id, in order (the console's choice of a hotel user's supplier).
pub(crate) async fn suppliers(c: &mut Conn<'_>) -> Result<Vec<String>, StoreError> {
    let rows: Vec<Scalar<String>> =
        c.query("SELECT id FROM requestor WHERE kind = 'supplier' ORDER BY id", &[]).await?;
    Ok(rows.into_iter().map(|Scalar(id)| id).collect())
}

/// True when the hotel `hotel` is the supplier `supplier`'s.
pub(crate) async fn supplier_has_hotel(c: &mut Conn<'_>, supplier: &str, hotel: &str) -> Result<bool, StoreError> {
    // COUNT(*): a BIGINT on PostgreSQL (a bare `SELECT 1` is an INT4 there, not an i64).
    let Scalar(n): Scalar<i64> = c
        .query_one(
            "SELECT COUNT(*) FROM supplier_hotel WHERE requestor_id = $1 AND hotel_code = $2",
            &[&supplier, &hotel],
        )
        .await?;
    Ok(n > 0)
}

row! {
    /// A hotel and its supplier (`supplier_hotel`).
    pub(crate) struct SupplierHotelRow { hotel_code: String, requestor_id: String }
}

/// Every hotel that has a supplier, with it, by hotel code.
pub(crate) async fn supplier_hotels(c: &mut Conn<'_>) -> Result<Vec<SupplierHotelRow>, StoreError> {
    c.query("SELECT hotel_code, requestor_id FROM supplier_hotel ORDER BY hotel_code", &[]).await
}

/// The hotel codes of the supplier `supplier`, in order.
pub(crate) async fn hotels_of(c: &mut Conn<'_>, supplier: &str) -> Result<Vec<String>, StoreError> {
    let rows: Vec<Scalar<String>> = c
        .query("SELECT hotel_code FROM supplier_hotel WHERE requestor_id = $1 ORDER BY hotel_code", &[&supplier])
        .await?;
    Ok(rows.into_iter().map(|Scalar(h)| h).collect())
}

/// Sets an operator's password hash; false when there is no such operator.
pub(crate) async fn set_password(c: &mut Conn<'_>, name: &str, hash: &str) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE operator SET password_hash = $1 WHERE name = $2", &[&hash, &name]).await? > 0)
}

/// Enables or disables an operator; false when there is no such operator.
pub(crate) async fn set_active(c: &mut Conn<'_>, name: &str, active: bool) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE operator SET active = $1 WHERE name = $2", &[&active, &name]).await? > 0)
}

row! {
    /// A session found by its id's hash, with its operator as it is now.
    pub(crate) struct SessionRow { operator: String, created_at: DateTime<Utc>, seen_at: DateTime<Utc>, role: String, active: bool, supplier: Option<String> }
}

/// The session whose id hashes to `id_hash`, with its operator.
pub(crate) async fn session(c: &mut Conn<'_>, id_hash: &str) -> Result<Option<SessionRow>, StoreError> {
    c.query_opt(
        "SELECT s.operator, s.created_at, s.seen_at, o.role, o.active, o.supplier FROM console_session s JOIN operator o ON o.name = s.operator WHERE s.id_hash = $1",
        &[&id_hash],
    )
    .await
}

/// Stores a new session.
pub(crate) async fn insert_session(
    c: &mut Conn<'_>,
    id_hash: &str,
    operator: &str,
    now: DateTime<Utc>,
    address: Option<String>,
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO console_session (id_hash, operator, created_at, seen_at, address) VALUES ($1, $2, $3, $3, $4)",
        &[&id_hash, &operator, &now, &address],
    )
    .await?;
    Ok(())
}

/// Moves a session's last use on.
pub(crate) async fn touch_session(c: &mut Conn<'_>, id_hash: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute("UPDATE console_session SET seen_at = $1 WHERE id_hash = $2", &[&now, &id_hash]).await?;
    Ok(())
}

/// Deletes one session.
pub(crate) async fn delete_session(c: &mut Conn<'_>, id_hash: &str) -> Result<(), StoreError> {
    c.execute("DELETE FROM console_session WHERE id_hash = $1", &[&id_hash]).await?;
    Ok(())
}

/// Deletes every session of an operator; how many.
pub(crate) async fn delete_sessions_of(c: &mut Conn<'_>, operator: &str) -> Result<u64, StoreError> {
    c.execute("DELETE FROM console_session WHERE operator = $1", &[&operator]).await
}

/// Deletes the sessions created before `created_before` or unused since `seen_before`.
pub(crate) async fn delete_expired(
    c: &mut Conn<'_>,
    created_before: DateTime<Utc>,
    seen_before: DateTime<Utc>,
) -> Result<u64, StoreError> {
    c.execute("DELETE FROM console_session WHERE created_at < $1 OR seen_at < $2", &[&created_before, &seen_before])
        .await
}
