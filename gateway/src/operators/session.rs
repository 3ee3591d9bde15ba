//! Console logins and sessions.
//!
//! - A login verifies the password on the partners' argon2 workers ([`Pool::global`]); an
//!   unknown or disabled name is verified against a dummy hash of the same cost, so the answer's
//!   timing tells nothing about which names exist. Failures are counted by a [`Throttle`] (the
//!   partners' rules: per client address and per name, locks that double), and a locked attempt
//!   waits (at most [`TARPIT`]) before its refusal, with no argon2 work.
//! - A session's id is 32 random bytes (the cookie's value, hex); the database keeps only its
//!   BLAKE2b hash, so every gateway on the database knows every session, and reading the table
//!   opens none. Its CSRF token is derived from the id (a keyed hash nobody can compute without
//!   the cookie), the same on every gateway.
//! - The login form carries a token of its own ([`login_token`]), also set in a short-lived
//!   cookie by the console; a login whose form and cookie do not carry the same token is refused
//!   before its password is checked ([`login_token_matches`], in constant time), and counts as
//!   a failure for the throttle (login CSRF: a page elsewhere cannot log a browser in).
//! - A session ends at logout, when its operator is disabled or changes password, after
//!   [`Timeouts::idle`] without use, and [`Timeouts::absolute`] after its login, whatever its use.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use blake2::{Blake2b512, Digest};
use chrono::{DateTime, Utc};
use subtle::ConstantTimeEq;

use super::{Role, repo};
use crate::auth::pool::{Pool, PoolError};
use crate::auth::throttle::Throttle;
use crate::auth::{DUMMY_HASH, TARPIT};
use crate::store::{Store, StoreError};

/// How long a session lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Without a request, a session ends after this long.
    pub idle: Duration,
    /// A session ends this long after its login, used or not.
    pub absolute: Duration,
}

/// A logged-in operator's session, as a request finds it.
#[derive(Clone, PartialEq, Eq)]
pub struct Session {
    /// The operator's name.
    pub operator: String,
    /// Its role now (read at every request: a changed role applies at once).
    pub role: Role,
    /// A hotel user's supplier (the `supplier` requestor whose hotels it sees); `None` for
    /// admins and viewers.
    pub supplier: Option<String>,
    /// The token every state-changing request of this session must carry.
    pub csrf: String,
    id_hash: String,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("operator", &self.operator)
            .field("role", &self.role)
            .field("supplier", &self.supplier)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// True for an admin.
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }

    /// True for a hotel user (who sees only the extranet of its supplier's hotels).
    pub fn is_hotel(&self) -> bool {
        self.role == Role::Hotel
    }

    /// True when `token` is this session's CSRF token (compared in constant time).
    pub fn csrf_matches(&self, token: &str) -> bool {
        bool::from(self.csrf.as_bytes().ct_eq(token.as_bytes()))
    }
}

#[cfg(test)]
impl Session {
    /// A session made up for a unit test (no database).
    pub(crate) fn for_test(operator: &str, role: Role, supplier: Option<&str>) -> Session {
        let id = "ab".repeat(32);
        Session {
            operator: operator.into(),
            role,
            supplier: supplier.map(str::to_string),
            csrf: csrf_of(&id),
            id_hash: id_hash(&id),
        }
    }
}

/// Why a login failed.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// A wrong name or password, a disabled operator, or a throttled attempt: all the same.
    #[error("wrong name or password")]
    Refused,
    /// The password could not be checked, or the store failed.
    #[error("the login could not be checked: {0}")]
    Unavailable(String),
}

impl From<StoreError> for LoginError {
    fn from(e: StoreError) -> Self {
        LoginError::Unavailable(e.to_string())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The stored hash of a session id.
fn id_hash(id: &str) -> String {
    hex(&Blake2b512::new_with_prefix(b"ota-console-session\0").chain_update(id.as_bytes()).finalize())
}

/// The CSRF token of a session id.
fn csrf_of(id: &str) -> String {
    hex(&Blake2b512::new_with_prefix(b"ota-console-csrf\0").chain_update(id.as_bytes()).finalize()[..32])
}

/// A session id as a cookie carries it: 64 lower-case hex digits.
fn well_formed(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A new login form token: 32 random bytes, 64 lower-case hex digits (the form's hidden field
/// and the login cookie both carry it).
pub fn login_token() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex(&bytes)
}

/// True when a login's form field and its cookie carry the same well-formed login token
/// (compared in constant time): the form came from this console, in this browser.
pub fn login_token_matches(cookie: Option<&str>, field: Option<&str>) -> bool {
    match (cookie, field) {
        (Some(c), Some(f)) => well_formed(c) && bool::from(c.as_bytes().ct_eq(f.as_bytes())),
        _ => false,
    }
}

/// A login refused before its password is checked (its form token missing or wrong): counted
/// as a failure of `name` from `client` by the throttle, as a wrong password is.
pub fn login_forged(throttle: &Throttle, name: &str, client: Option<IpAddr>) {
    for lock in throttle.count_failure(client, name, Instant::now()) {
        tracing::warn!(?lock, "console login locked after repeated failures");
    }
    tracing::warn!(operator = %crate::shared::log_text::LogText(name), "console login without its form token refused");
}

/// Checks a login; on success stores a new session and gives its id (the cookie's value) and
/// the session. Every failure is [`LoginError::Refused`], after the same cost.
pub async fn login(
    store: &Store,
    throttle: &Throttle,
    name: &str,
    password: &str,
    client: Option<IpAddr>,
    timeouts: Timeouts,
) -> Result<(String, Session), LoginError> {
    let admission = match throttle.admit(client, name, Instant::now()) {
        Ok(a) => a,
        Err(refused) => {
            crate::metrics::auth_throttled();
            tokio::time::sleep(refused.remaining.min(TARPIT)).await;
            return Err(LoginError::Refused);
        }
    };
    let key = name.to_string();
    let row = match store.read(move |c| Box::pin(async move { repo::get(c, &key).await })).await {
        Ok(row) => row,
        Err(e) => {
            throttle.not_checked(admission);
            return Err(e.into());
        }
    };
    let phc = row.as_ref().map_or(DUMMY_HASH, |r| r.password_hash.as_str());
    let deadline = Some(Instant::now() + Duration::from_secs(10));
    let verified = match Pool::global().verify(phc, password, deadline).await {
        Ok(v) => v,
        Err(e @ (PoolError::Expired | PoolError::Unavailable)) => {
            throttle.not_checked(admission);
            return Err(LoginError::Unavailable(e.to_string()));
        }
    };
    // A hotel user without its supplier (which the schema forbids) is refused like any other.
    let role = row.as_ref().and_then(|r| usable_role(&r.role, r.supplier.as_deref()));
    let (Some(row), Some(role), true) = (row.filter(|r| r.active), role, verified) else {
        for lock in throttle.failed(admission) {
            tracing::warn!(?lock, "console login locked after repeated failures");
        }
        tracing::info!(operator = %crate::shared::log_text::LogText(name), "console login failed");
        return Err(LoginError::Refused);
    };
    throttle.succeeded(admission, Instant::now());
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    let id = hex(&bytes);
    let hash = id_hash(&id);
    let now = Utc::now();
    let (operator, address) = (row.name.clone(), client.map(|a| a.to_canonical().to_string()));
    let stored_hash = hash.clone();
    let (created_before, seen_before) = expiry(now, timeouts);
    store
        .write_now(move |c| {
            Box::pin(async move {
                repo::delete_expired(c, created_before, seen_before).await?;
                repo::insert_session(c, &stored_hash, &operator, now, address).await
            })
        })
        .await?;
    tracing::info!(operator = %row.name, role = role.as_str(), "console login");
    let session = Session { operator: row.name, role, supplier: row.supplier, csrf: csrf_of(&id), id_hash: hash };
    Ok((id, session))
}

/// The role of a stored operator, if it may log in: a known role, and a supplier exactly when
/// it is a hotel user.
fn usable_role(role: &str, supplier: Option<&str>) -> Option<Role> {
    Role::from_name(role).filter(|r| (*r == Role::Hotel) == supplier.is_some())
}

/// The instants before which a session was created, or last used, too long ago.
fn expiry(now: DateTime<Utc>, t: Timeouts) -> (DateTime<Utc>, DateTime<Utc>) {
    let ago = |d: Duration| now - chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX / 2);
    (ago(t.absolute), ago(t.idle))
}

/// The session of a cookie's id, if it is still valid: its operator active, within both
/// time-outs. A session found expired is deleted; one in use has its last use moved on (at
/// most every minute, or every quarter of the idle time-out when shorter).
pub async fn find(store: &Store, id: &str, timeouts: Timeouts) -> Result<Option<Session>, StoreError> {
    if !well_formed(id) {
        return Ok(None);
    }
    let hash = id_hash(id);
    let key = hash.clone();
    let Some(row) = store.peek(move |c| Box::pin(async move { repo::session(c, &key).await })).await? else {
        return Ok(None);
    };
    let now = Utc::now();
    let (created_before, seen_before) = expiry(now, timeouts);
    let role = usable_role(&row.role, row.supplier.as_deref());
    let Some(role) = role.filter(|_| row.active && row.created_at >= created_before && row.seen_at >= seen_before)
    else {
        let key = hash.clone();
        store.write_now(move |c| Box::pin(async move { repo::delete_session(c, &key).await })).await?;
        return Ok(None);
    };
    let touch = (timeouts.idle / 4).min(Duration::from_secs(60));
    if now - row.seen_at >= chrono::Duration::from_std(touch).unwrap_or_default() {
        let key = hash.clone();
        store.write_now(move |c| Box::pin(async move { repo::touch_session(c, &key, now).await })).await?;
    }
    Ok(Some(Session { operator: row.operator, role, supplier: row.supplier, csrf: csrf_of(id), id_hash: hash }))
}

/// True when the operator `name` exists, is active and has this password (the demo banner
/// asks, to print the demo login only while it works). Not throttled: not for clients.
pub async fn still_has_password(store: &Store, name: &str, password: &str) -> bool {
    let key = name.to_string();
    let Ok(Some(row)) = store.read(move |c| Box::pin(async move { repo::get(c, &key).await })).await else {
        return false;
    };
    row.active && Pool::global().verify(&row.password_hash, password, None).await.unwrap_or(false)
}

/// Ends a session (logout).
pub async fn logout(store: &Store, session: &Session) -> Result<(), StoreError> {
    let key = session.id_hash.clone();
    store.write_now(move |c| Box::pin(async move { repo::delete_session(c, &key).await })).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_hashes_and_tokens() {
        let id = "ab".repeat(32);
        assert!(well_formed(&id));
        assert!(!well_formed("AB"));
        assert!(!well_formed(&"g".repeat(64)));
        assert_ne!(id_hash(&id), csrf_of(&id));
        assert_eq!(csrf_of(&id).len(), 64);
        assert_eq!(csrf_of(&id), csrf_of(&id));
        assert_ne!(csrf_of(&id), csrf_of(&"cd".repeat(32)));
        let t = login_token();
        assert!(well_formed(&t) && t != login_token());
        assert!(login_token_matches(Some(&t), Some(&t)));
        assert!(!login_token_matches(Some(&t), Some(&login_token())));
        assert!(!login_token_matches(Some(&t), None) && !login_token_matches(None, Some(&t)));
        assert!(!login_token_matches(Some(""), Some("")), "an empty token is no token");
    }
}
