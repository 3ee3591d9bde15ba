//! All SQL of operators and their console sessions.

use chrono::{DateTime, Utc};

use crate::store::row;
use crate::store::{Conn, StoreError};

row! {
    /// An `operator` row.
    pub(crate) struct OperatorRow { name: String, role: String, password_hash: String, active: bool, created_at: DateTime<Utc> }
}

const OPERATOR: &str = "SELECT name, role, password_hash, active, created_at FROM operator";

/// Every operator, by name.
pub(crate) async fn all(c: &mut Conn<'_>) -> Result<Vec<OperatorRow>, StoreError> {
    c.query(&format!("{OPERATOR} ORDER BY name"), &[]).await
}

/// The operator of this name.
pub(crate) async fn get(c: &mut Conn<'_>, name: &str) -> Result<Option<OperatorRow>, StoreError> {
    c.query_opt(&format!("{OPERATOR} WHERE name = $1"), &[&name]).await
}

/// Creates an operator; false when the name is taken.
pub(crate) async fn insert(
    c: &mut Conn<'_>,
    name: &str,
    role: &str,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "INSERT INTO operator (name, role, password_hash, active, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING",
            &[&name, &role, &hash, &true, &now],
        )
        .await?;
    Ok(n > 0)
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
    pub(crate) struct SessionRow { operator: String, created_at: DateTime<Utc>, seen_at: DateTime<Utc>, role: String, active: bool }
}

/// The session whose id hashes to `id_hash`, with its operator.
pub(crate) async fn session(c: &mut Conn<'_>, id_hash: &str) -> Result<Option<SessionRow>, StoreError> {
    c.query_opt(
        "SELECT s.operator, s.created_at, s.seen_at, o.role, o.active FROM console_session s JOIN operator o ON o.name = s.operator WHERE s.id_hash = $1",
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
