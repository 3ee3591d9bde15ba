//! Authentication from the POS: the credentials' `Source` (RequestorID Type 88 with `ID` and
//! `MessagePassword`) and the requestor's `Source` of the same `ID` (Type 22 with `ID_Context`,
//! optional `Instance`), in any order among up to ten sources — checked against the requestors
//! of the content snapshot and the client's address. Where the POS holds several such pairs (a
//! GDS-derived client's own credentials beside the partner's), the one whose `ID` is a requestor
//! here is used. The other sources are not used (a success names them in Warnings,
//! [`unused_sources`]).
//!
//! - Passwords are stored as argon2id PHC strings ([`hash_password`](crate::requestors::password::hash_password)); verification runs on a
//!   fixed pool of argon2 workers ([`pool`]), each reusing one memory area: at most one
//!   verification per worker at a time and a fixed amount of memory, whatever clients do; a
//!   queued verification whose request is gone is skipped.
//! - Every failure — a malformed POS, an unknown or inactive requestor, a wrong `ID_Context`, a
//!   client address outside the requestor's allow-list, a wrong password, a throttled attempt —
//!   is the same [`Problem::authentication`] (Type 4, Code 497); the log line of a failure says
//!   which (for the operator), after the check's full cost. Every failure that reaches the
//!   password check costs one argon2 verification (against a dummy hash when the requestor does
//!   not exist), so the answer's timing tells neither which ids exist nor whether the password
//!   was right.
//! - Only a complete success is remembered ([`VerifiedCache`]), and the cache is consulted only
//!   when everything but the password is right, so a partner sending many requests pays argon2
//!   once, and a right password with a wrong context costs as much as a wrong one.
//! - Repeated failures lock the client address and the requestor id for growing times
//!   ([`throttle`]); a locked attempt costs no argon2 work. Nothing about passwords is logged.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Authenticator`]: the POS read, the requestor found, the verification cached |
//! | [`pool`] | the argon2 workers: a fixed number of threads, each reusing one memory area |
//! | [`throttle`] | repeated failures lock the client address and the requestor id for growing times |

pub mod pool;
pub mod throttle;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use blake2::Blake2bMac512;
use blake2::digest::Mac;
use ota_messages::common::{Pos, RequestorIdCode};
use subtle::ConstantTimeEq;

use crate::errors::Problem;
use crate::metrics;
use crate::requestors::{Directory, Requestor, StoredRequestor};
use crate::shared::log_text::LogText;

pub use crate::config::ThrottleSettings;
pub use pool::Pool;
pub use throttle::Throttle;

/// A hash of a password nobody knows, with the same cost as [`hash_password`](crate::requestors::password::hash_password)'s: verified
/// against when the requestor does not exist, so that case takes as long as a wrong password.
pub const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$8R0xk3yZJdRcgbQdMwV5Ww$LS3a0GzH7Gzq1cE5mWwpdCcOHZ2Yy6vvoxmS0W+Cm0c";

/// The credentials read from a POS. Deliberately not `Debug`: it holds the password.
struct Presented<'a> {
    id: &'a str,
    id_context: &'a str,
    instance: Option<&'a str>,
    password: &'a str,
    /// One of several complete pairs, none of them or more than one naming a requestor here:
    /// no single requestor, it fails (with a password check's full cost, like an unknown one).
    ambiguous: bool,
}

/// Reads the credentials' source (RequestorID Type 88 with an `ID` and a `MessagePassword`) and
/// the requestor's source of the same `ID` (Type 22) that [`used_sources`] chooses, or `None`
/// when the POS has no such pair. Other sources (OpenTravel allows ten: a GDS-derived client adds
/// its own, of its own Types, another Type 22 or Type 88 of another ID, its own credentials) and
/// a password on the requestor's source are not used ([`unused_sources`]).
fn presented<'p>(pos: &'p Pos, requestors: &Directory) -> Option<Presented<'p>> {
    let chosen = used_sources(pos, requestors)?;
    let (who, creds) = (&pos.source[chosen.who].requestor_id, &pos.source[chosen.creds].requestor_id);
    // Both present: the pair was chosen so.
    let id_context = who.id_context.as_deref()?;
    let password = creds.message_password.as_deref()?;
    Some(Presented {
        id: &who.id,
        id_context,
        instance: who.instance.as_ref().map(|i| i.as_str()),
        password,
        ambiguous: chosen.ambiguous,
    })
}

/// The only item of `items`, if there is exactly one.
fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    match (items.next(), items.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// The sources [`presented`] reads: the indices of the requestor's and of the credentials'.
struct Chosen {
    who: usize,
    creds: usize,
    /// See [`Presented::ambiguous`].
    ambiguous: bool,
}

/// The pair of a Type 88 source with an `ID` and a password and a Type 22 source of that `ID`
/// with an `ID_Context`, each the only one of its Type with that `ID` (two sources of one Type
/// and `ID` name no single requestor): the only such pair, or of several the only one whose
/// `ID` is a requestor here (else the first, [`Chosen::ambiguous`]).
fn used_sources(pos: &Pos, requestors: &Directory) -> Option<Chosen> {
    // The sources whose RequestorID is of Type `t` and `ID` `id` (a Source without a
    // RequestorID, optional in 2016B, is read with an empty one).
    fn of<'p>(pos: &'p Pos, t: RequestorIdCode, id: &'p str) -> impl Iterator<Item = usize> + 'p {
        pos.source
            .iter()
            .enumerate()
            .filter(move |(_, s)| s.requestor_id.r#type == t && s.requestor_id.id == id)
            .map(|(i, _)| i)
    }
    let pairs = pos.source.iter().map(|s| &s.requestor_id).enumerate().filter_map(|(creds, r)| {
        let password = r.message_password.as_deref().is_some_and(|p| !p.is_empty());
        if r.r#type != RequestorIdCode::MessageCredentials || r.id.is_empty() || !password {
            return None;
        }
        only(of(pos, RequestorIdCode::MessageCredentials, &r.id))?;
        let who = only(of(pos, RequestorIdCode::Requestor, &r.id))?;
        let context = pos.source[who].requestor_id.id_context.as_deref().is_some_and(|c| !c.is_empty());
        context.then_some((who, creds))
    });
    let pairs: Vec<(usize, usize)> = pairs.collect();
    let known = || pairs.iter().filter(|(who, _)| requestors.get(&pos.source[*who].requestor_id.id).is_some());
    let (&(who, creds), ambiguous) = match pairs.as_slice() {
        [] => return None,
        [one] => (one, false),
        [first, ..] => only(known()).map_or((first, true), |one| (one, false)),
    };
    Some(Chosen { who, creds, ambiguous })
}

/// The 1-based positions of the POS's sources that authentication does not read (all but the
/// requestor's and the credentials'), for the Warnings of a success; none when the POS has no
/// usable credentials (the request then fails authentication).
pub fn unused_sources(pos: &Pos, requestors: &Directory) -> Vec<usize> {
    match used_sources(pos, requestors) {
        Some(Chosen { who, creds, ambiguous: false }) => {
            (0..pos.source.len()).filter(|i| *i != who && *i != creds).map(|i| i + 1).collect()
        }
        _ => Vec::new(),
    }
}

/// The requestor a successful attempt authenticated as.
fn requestor(p: &Presented<'_>, row: &StoredRequestor) -> Requestor {
    Requestor {
        id: p.id.to_string(),
        id_context: row.id_context.clone(),
        name: row.name.clone(),
        instance: p.instance.map(str::to_string),
        dialect: row.dialect,
        limits: row.limits.clone(),
        role: row.role.clone(),
    }
}

/// The longest a throttled attempt's answer is held back.
pub const TARPIT: Duration = Duration::from_secs(2);

/// Authentication of one gateway: its throttle and its cache of verified credentials (the
/// argon2 workers are the process's, [`Pool::global`]).
#[derive(Debug)]
pub struct Authenticator {
    throttle: Throttle,
    cache: Option<VerifiedCache>,
    flights: Flights,
}

/// Credentials being checked now, by keyed MAC of (id, password): an attempt presenting the
/// same ones waits for that check and then finds its success in the cache, rather than count
/// as one more attempt at once. So a partner's burst of first requests (many connections
/// opened together) is one argon2 verification, not a flood the throttle locks out; an attacker
/// repeating one guess only queues behind it.
#[derive(Debug, Default)]
struct Flights(Mutex<HashMap<[u8; 64], Arc<tokio::sync::Mutex<()>>>>);

/// The turn of one attempt among those presenting the same credentials.
struct Flight<'a> {
    flights: &'a Flights,
    key: [u8; 64],
    turn: tokio::sync::OwnedMutexGuard<()>,
}

impl Flights {
    /// Waits until no other attempt with these credentials is being checked (`Err`: the
    /// request's time ran out first).
    async fn join(&self, key: [u8; 64], deadline: Option<Instant>) -> Result<Flight<'_>, ()> {
        let lock = {
            let Ok(mut map) = self.0.lock() else { return Err(()) };
            map.entry(key).or_default().clone()
        };
        let turn = match deadline {
            Some(d) => {
                tokio::time::timeout_at(tokio::time::Instant::from_std(d), lock.lock_owned()).await.map_err(|_| ())?
            }
            None => lock.lock_owned().await,
        };
        Ok(Flight { flights: self, key, turn })
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        // The last one out (the map's and this turn's references only) removes the entry.
        if let Ok(mut map) = self.flights.0.lock()
            && Arc::strong_count(tokio::sync::OwnedMutexGuard::mutex(&self.turn)) <= 2
        {
            map.remove(&self.key);
        }
    }
}

impl Default for Authenticator {
    fn default() -> Self {
        Authenticator::new(ThrottleSettings::default())
    }
}

impl Authenticator {
    /// An authenticator with these throttle settings and an empty cache.
    pub fn new(throttle: ThrottleSettings) -> Authenticator {
        Authenticator { throttle: Throttle::new(throttle), cache: VerifiedCache::new(), flights: Flights::default() }
    }

    /// The throttle (for its sizes, in tests and metrics).
    pub fn throttle(&self) -> &Throttle {
        &self.throttle
    }

    /// Checks the POS of a request from `client` (the client's address, when known) against
    /// the requestors. Failures say nothing about which part was wrong. `deadline`: when the
    /// request gives up (a password check not started by then is not carried out).
    pub async fn authenticate(
        &self,
        requestors: &Directory,
        pos: &Pos,
        client: Option<IpAddr>,
        deadline: Option<Instant>,
    ) -> Result<Requestor, Problem> {
        let Some(p) = presented(pos, requestors) else {
            tracing::info!(reason = "pos", "authentication failed");
            metrics::auth_failure();
            return Err(Problem::authentication());
        };
        // Several pairs that name no single requestor: checked as an unknown requestor.
        let row = requestors.get(p.id).filter(|_| !p.ambiguous);
        // Everything but the password, checked first: the cache is only asked when all of it
        // is right, so that a right password in a failing request costs what a wrong one does.
        let rest_ok = row.is_some_and(|r| {
            r.active && bool::from(r.id_context.as_bytes().ct_eq(p.id_context.as_bytes())) && r.allows(client)
        });
        let phc = row.map(|r| r.password_hash.as_str());
        let verified_recently = || match (rest_ok, phc, &self.cache) {
            (true, Some(phc), Some(cache)) => cache.hit(p.id, phc, p.password),
            _ => false,
        };
        // A partner's usual request: credentials verified recently, the rest right, no lock in
        // force. It succeeds at once, so nothing is counted and no turn is waited for.
        if let Some(row) = row
            && rest_ok
            && self.throttle.check(client, p.id, Instant::now()) == throttle::Verdict::Check
            && verified_recently()
        {
            metrics::auth_cache_hit();
            self.throttle.trusted(client, p.id, Instant::now());
            return Ok(requestor(&p, row));
        }
        let flight_key = self.cache.as_ref().and_then(|c| c.mac(&format!("flight\0{}", p.id), p.password));
        let _turn = match flight_key {
            Some(key) => match self.flights.join(key, deadline).await {
                Ok(turn) => Some(turn),
                Err(()) => return Err(Problem::not_processed_in_time()),
            },
            None => None,
        };
        let admission = match self.throttle.admit(client, p.id, Instant::now()) {
            Ok(a) => a,
            Err(refused) => {
                metrics::auth_throttled();
                tracing::debug!(requestor = %LogText(p.id), verdict = ?refused.verdict, "authentication refused by the throttle");
                // The answer waits while the lock holds (at most TARPIT, and within the
                // request's time): a flood's connections then send little, at no argon2 cost.
                let mut wait = refused.remaining.min(TARPIT);
                if let Some(deadline) = deadline {
                    wait = wait.min(
                        deadline.saturating_duration_since(Instant::now()).saturating_sub(Duration::from_millis(50)),
                    );
                }
                tokio::time::sleep(wait).await;
                return Err(Problem::authentication());
            }
        };
        // An attempt that waited for the same credentials' check finds its success here.
        let cached = verified_recently();
        let ok = if cached {
            metrics::auth_cache_hit();
            true
        } else {
            // An unknown requestor is checked against the dummy hash: same cost.
            let verified = match Pool::global().verify(phc.unwrap_or(DUMMY_HASH), p.password, deadline).await {
                Ok(v) => v,
                Err(pool::PoolError::Expired) => {
                    self.throttle.not_checked(admission);
                    return Err(Problem::not_processed_in_time());
                }
                Err(e) => {
                    self.throttle.not_checked(admission);
                    tracing::error!(error = %e, "password verification failed");
                    return Err(Problem::system());
                }
            };
            verified && rest_ok && phc.is_some()
        };
        let now = Instant::now();
        match row {
            Some(row) if ok => {
                if !cached && let Some(cache) = &self.cache {
                    cache.insert(p.id, &row.password_hash, p.password);
                }
                self.throttle.succeeded(admission, now);
                Ok(requestor(&p, row))
            }
            _ => {
                metrics::auth_failure();
                // Which check failed is for the operator's log only, never the answer; it is
                // told after the full cost was paid, so the timing says nothing either.
                let reason = match row {
                    None if p.ambiguous => "several credentials in the POS, no single requestor of this gateway",
                    None => "unknown requestor",
                    Some(r) if !r.active => "requestor disabled",
                    Some(r) if r.id_context != p.id_context => "wrong ID_Context",
                    Some(r) if !r.allows(client) => "client address not in the requestor's allow-list",
                    Some(_) => "wrong password",
                };
                tracing::info!(requestor = %LogText(p.id), reason, "authentication failed");
                for lock in self.throttle.failed(admission) {
                    match lock {
                        throttle::Lock::Address { address, failures, lock } => tracing::warn!(
                            client = %address, failures, lock_seconds = lock.as_secs_f64(),
                            "client address locked after repeated authentication failures"
                        ),
                        throttle::Lock::Requestor { id, failures, lock } => tracing::warn!(
                            requestor = %LogText(&id), failures, lock_seconds = lock.as_secs_f64(),
                            "requestor locked after repeated authentication failures"
                        ),
                    }
                }
                Err(Problem::authentication())
            }
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
/// - `active`, `ID_Context` and the allow-list are read from the content snapshot on every
///   request, never cached, so disabling a requestor takes effect at once; and the cache is
///   only asked when they are all right.
/// - Only complete successes are cached; a wrong password always pays argon2. Entries expire
///   after [`VerifiedCache::TTL`] and the map is bounded.
pub struct VerifiedCache {
    key: [u8; 32],
    entries: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for VerifiedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.entries.lock().map(|e| e.len()).unwrap_or(0);
        f.debug_struct("VerifiedCache").field("entries", &n).finish_non_exhaustive()
    }
}

struct Entry {
    phc: String,
    mac: [u8; 64],
    at: Instant,
}

impl VerifiedCache {
    /// How long a verification is remembered.
    pub const TTL: Duration = Duration::from_secs(15 * 60);
    /// The most entries kept (the map is emptied when full).
    pub const MAX_ENTRIES: usize = 10_000;

    /// A cache with a fresh random key; `None` (no caching) if the system could not supply
    /// one.
    fn new() -> Option<VerifiedCache> {
        let mut key = [0u8; 32];
        match OsRng.try_fill_bytes(&mut key) {
            Ok(()) => Some(VerifiedCache { key, entries: Mutex::new(HashMap::new()) }),
            Err(e) => {
                tracing::warn!(error = %e, "no random key for the credential cache; every request runs argon2");
                None
            }
        }
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
        entries.get(id).is_some_and(|e| e.at.elapsed() < Self::TTL && e.phc == phc && bool::from(e.mac.ct_eq(&mac)))
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
    use crate::requestors::password::hash_password;

    #[test]
    fn dummy_hash_parses_with_the_default_cost() {
        let hash = argon2::password_hash::PasswordHash::new(DUMMY_HASH).unwrap();
        let params = argon2::Params::try_from(&hash).unwrap();
        let default = argon2::Params::default();
        assert_eq!(
            (params.m_cost(), params.t_cost(), params.p_cost()),
            (default.m_cost(), default.t_cost(), default.p_cost())
        );
        assert_eq!(hash.algorithm.as_str(), "argon2id");
    }

    #[test]
    fn hash_then_verify() {
        let phc = hash_password("correct horse").unwrap();
        let mut memory = Vec::new();
        assert!(pool::verify_with(&mut memory, &phc, b"correct horse"));
        assert!(!pool::verify_with(&mut memory, &phc, b"correct horse!"));
        assert!(!pool::verify_with(&mut memory, "not a phc string", b"x"));
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
