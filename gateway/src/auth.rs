//! Authentication from the POS: exactly two `Source` elements, in order — Type 22 with `ID`
//! and `ID_Context` (optional `Instance`), then Type 88 with the same `ID` and
//! `MessagePassword` — checked against the requestors of the content snapshot.
//!
//! - Passwords are stored as argon2id PHC strings ([`hash_password`]); verification is
//!   constant-time and runs on a blocking thread (it is slow on purpose), with at most one
//!   verification per CPU at a time so a flood of bad passwords cannot starve the blocking
//!   threads.
//! - Every failure — a malformed POS, an unknown or inactive requestor, a wrong `ID_Context`, a
//!   wrong password — is the same [`Problem::authentication`] (Type 4, Code 497). An unknown
//!   requestor still costs one argon2 verification (against a dummy hash), so the answer's
//!   timing does not tell which requestor ids exist.
//! - Successful verifications are remembered for a while (see [`VerifiedCache`]) so a partner
//!   sending many requests pays argon2 once, not per request. Nothing about passwords is logged.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use blake2::Blake2bMac512;
use blake2::digest::Mac;
use ota_messages::common::{Pos, RequestorIdCode};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

use crate::errors::Problem;
use crate::requestors::{Directory, Requestor};

/// A password could not be hashed.
#[derive(Debug, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(String);

/// Hashes a password for the `requestor` table: argon2id with the crate's default cost
/// (19 MiB, 2 passes) and a random salt, as a PHC string. Slow on purpose: call it from a
/// blocking thread.
pub fn hash_password(password: &str) -> Result<String, HashError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| HashError(e.to_string()))
}

/// A hash of a password nobody knows, with the same cost as [`hash_password`]'s: verified
/// against when the requestor does not exist, so that case takes as long as a wrong password.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$8R0xk3yZJdRcgbQdMwV5Ww$LS3a0GzH7Gzq1cE5mWwpdCcOHZ2Yy6vvoxmS0W+Cm0c";

/// The credentials read from a POS. Deliberately not `Debug`: it holds the password.
struct Presented {
    id: String,
    id_context: String,
    instance: Option<String>,
    password: String,
}

/// Reads the two sources, or `None` when the POS does not have the required shape.
fn presented(pos: &Pos) -> Option<Presented> {
    let [first, second] = pos.source.as_slice() else {
        return None;
    };
    let (who, creds) = (&first.requestor_id, &second.requestor_id);
    if who.r#type != RequestorIdCode::Requestor || creds.r#type != RequestorIdCode::MessageCredentials {
        return None;
    }
    // The password belongs in the second source only.
    if who.id.is_empty() || who.message_password.is_some() || creds.id != who.id {
        return None;
    }
    let id_context = who.id_context.as_deref().filter(|c| !c.is_empty())?;
    let password = creds.message_password.as_deref().filter(|p| !p.is_empty())?;
    Some(Presented {
        id: who.id.clone(),
        id_context: id_context.to_string(),
        instance: who.instance.as_ref().map(|i| i.as_str().to_string()),
        password: password.to_string(),
    })
}

/// Checks the POS against the requestors. Failures say nothing about which part was wrong.
pub async fn authenticate(requestors: &Directory, pos: &Pos) -> Result<Requestor, Problem> {
    let Some(p) = presented(pos) else {
        tracing::info!(reason = "pos", "authentication failed");
        return Err(Problem::authentication());
    };
    let row = requestors.get(&p.id);
    // Verify the password even when the requestor is unknown, inactive or in another context:
    // every failure then costs the same.
    let password_ok = verify(p.id.as_str(), row.as_ref().map(|r| r.password_hash.as_str()), &p.password).await?;
    match row {
        Some(row) if password_ok && row.active && bool::from(row.id_context.as_bytes().ct_eq(p.id_context.as_bytes())) => {
            Ok(Requestor { id: p.id, id_context: row.id_context.clone(), name: row.name.clone(), instance: p.instance })
        }
        _ => {
            // The requestor id is not a secret; which check failed is, so it is not logged.
            tracing::info!(requestor = %p.id, "authentication failed");
            Err(Problem::authentication())
        }
    }
}

/// Verifies `password` against the stored hash (or the dummy hash when there is none): from the
/// cache when this exact password was verified against this exact hash recently, otherwise with
/// argon2 on a blocking thread.
async fn verify(id: &str, stored: Option<&str>, password: &str) -> Result<bool, Problem> {
    let cache = VerifiedCache::global();
    if let (Some(cache), Some(phc)) = (cache, stored)
        && cache.hit(id, phc, password)
    {
        return Ok(true);
    }
    let permits = ARGON2_PERMITS.get_or_init(|| {
        Semaphore::new(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2))
    });
    let _permit = permits.acquire().await.map_err(|_| Problem::system())?;
    let phc = stored.unwrap_or(DUMMY_HASH).to_string();
    let pw = password.to_string();
    let ok = tokio::task::spawn_blocking(move || verify_blocking(&phc, &pw))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "password verification task failed");
            Problem::system()
        })?;
    let ok = ok && stored.is_some();
    if ok && let (Some(cache), Some(phc)) = (cache, stored) {
        cache.insert(id, phc, password);
    }
    Ok(ok)
}

/// At most this many argon2 verifications run at once (one per CPU).
static ARGON2_PERMITS: OnceLock<Semaphore> = OnceLock::new();

fn verify_blocking(phc: &str, password: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(hash) => Argon2::default().verify_password(password.as_bytes(), &hash).is_ok(),
        Err(e) => {
            tracing::error!(error = %e, "a stored password hash cannot be parsed");
            false
        }
    }
}

/// Recently verified credentials, so argon2 runs once per partner and password, not per request.
///
/// Safety of the design:
/// - An entry is keyed by the requestor id and holds the exact stored PHC string it was
///   verified against, plus a keyed BLAKE2b MAC of the password. The MAC key is random, made
///   per process, and never leaves memory: the entries are useless for an offline guess at the
///   password without it, and nothing is persisted.
/// - A hit needs the same stored hash (a new password, imported or changed, has a new random
///   salt, so old entries stop matching at once) and a MAC equal in constant time.
/// - `active` and `ID_Context` are read from the database on every request, never cached, so
///   disabling a requestor takes effect at once.
/// - Only successes are cached; a wrong password always pays argon2. Entries expire after
///   [`VerifiedCache::TTL`] and the map is bounded.
pub struct VerifiedCache {
    key: [u8; 32],
    entries: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    phc: String,
    mac: [u8; 64],
    at: Instant,
}

static CACHE: OnceLock<Option<VerifiedCache>> = OnceLock::new();

impl VerifiedCache {
    /// How long a verification is remembered.
    pub const TTL: Duration = Duration::from_secs(15 * 60);
    /// The most entries kept (the map is emptied when full).
    pub const MAX_ENTRIES: usize = 10_000;

    /// The process's cache; `None` (no caching) if the system could not supply a random key.
    fn global() -> Option<&'static VerifiedCache> {
        CACHE
            .get_or_init(|| {
                let mut key = [0u8; 32];
                match OsRng.try_fill_bytes(&mut key) {
                    Ok(()) => Some(VerifiedCache { key, entries: Mutex::new(HashMap::new()) }),
                    Err(e) => {
                        tracing::warn!(error = %e, "no random key for the credential cache; every request runs argon2");
                        None
                    }
                }
            })
            .as_ref()
    }

    fn mac(&self, phc: &str, password: &str) -> Option<[u8; 64]> {
        let mut mac = <Blake2bMac512 as Mac>::new_from_slice(&self.key).ok()?;
        // Length-prefixed fields, so no two (hash, password) pairs feed the same bytes.
        mac.update(&(phc.len() as u64).to_le_bytes());
        mac.update(phc.as_bytes());
        mac.update(password.as_bytes());
        Some(mac.finalize().into_bytes().into())
    }

    fn hit(&self, id: &str, phc: &str, password: &str) -> bool {
        let Some(mac) = self.mac(phc, password) else {
            return false;
        };
        let Ok(entries) = self.entries.lock() else {
            return false;
        };
        entries
            .get(id)
            .is_some_and(|e| e.at.elapsed() < Self::TTL && e.phc == phc && bool::from(e.mac.ct_eq(&mac)))
    }

    fn insert(&self, id: &str, phc: &str, password: &str) {
        let Some(mac) = self.mac(phc, password) else {
            return;
        };
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= Self::MAX_ENTRIES {
                entries.retain(|_, e| e.at.elapsed() < Self::TTL);
                if entries.len() >= Self::MAX_ENTRIES {
                    entries.clear();
                }
            }
            entries.insert(id.to_string(), Entry { phc: phc.to_string(), mac, at: Instant::now() });
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn dummy_hash_parses_with_the_default_cost() {
        let hash = PasswordHash::new(DUMMY_HASH).unwrap();
        let params = argon2::Params::try_from(&hash).unwrap();
        let default = argon2::Params::default();
        assert_eq!((params.m_cost(), params.t_cost(), params.p_cost()), (default.m_cost(), default.t_cost(), default.p_cost()));
        assert_eq!(hash.algorithm.as_str(), "argon2id");
    }

    #[test]
    fn hash_then_verify() {
        let phc = hash_password("correct horse").unwrap();
        assert!(verify_blocking(&phc, "correct horse"));
        assert!(!verify_blocking(&phc, "correct horse!"));
        assert!(!verify_blocking("not a phc string", "x"));
    }

    #[test]
    fn cache_needs_same_hash_and_password() {
        let cache = VerifiedCache { key: [7; 32], entries: Mutex::new(HashMap::new()) };
        cache.insert("A", "$phc1", "pw");
        assert!(cache.hit("A", "$phc1", "pw"));
        assert!(!cache.hit("A", "$phc1", "pw2"));
        assert!(!cache.hit("A", "$phc2", "pw"));
        assert!(!cache.hit("B", "$phc1", "pw"));
    }
}
