//! Brute-force throttling: repeated authentication failures lock the client address, and the
//! requestor id, for a while that doubles with every further failure. A locked attempt is
//! refused at once with the usual authentication error, without checking its password (no
//! argon2 work, and nothing learnt from it).
//!
//! - **Per client address** (IPv4 address, or IPv6 /64): after [`Settings::address_failures`]
//!   failures, each new failure locks the address for 1 s, 2 s, 4 s, … up to
//!   [`Settings::max_lock`]. A flood from one address so gets a handful of password checks,
//!   then one per lock.
//! - **Per requestor id** (known or not, so the lock tells nothing about which ids exist):
//!   after [`Settings::requestor_failures`] failures from any addresses, likewise. Addresses
//!   the requestor logged in from recently ([`TRUST_FOR`]) are not held by this lock, so a
//!   partner already logged in keeps working while its id is attacked from elsewhere.
//! - Failures are forgotten [`Settings::forget_after`] after the last one. A success does not
//!   reset the counts (an attacker holding one valid account could otherwise reset them).
//! - Memory is bounded: each table keeps at most [`Settings::max_entries`] entries; when full,
//!   the entry whose last event is the oldest (unlocked ones first) makes room.
//!
//! The rules are pure over an explicit `now`; the caller holds the [`Throttle`] per gateway.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::ThrottleSettings as Settings;

/// How long an address a requestor logged in from stays trusted for that requestor's id.
pub const TRUST_FOR: Duration = Duration::from_secs(24 * 3600);

/// The most trusted addresses kept per requestor id.
const MAX_TRUSTED: usize = 16;

/// A client address as the throttle counts it: IPv4 whole, IPv6 by its /64 (one host usually
/// holds a whole /64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressKey {
    /// An IPv4 address (also an IPv4-mapped IPv6 one).
    V4([u8; 4]),
    /// The first 64 bits of an IPv6 address.
    V6([u8; 8]),
}

impl AddressKey {
    /// The key of an address.
    pub fn of(ip: IpAddr) -> AddressKey {
        match ip.to_canonical() {
            IpAddr::V4(v4) => AddressKey::V4(v4.octets()),
            IpAddr::V6(v6) => {
                let o = v6.octets();
                AddressKey::V6([o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]])
            }
        }
    }
}

impl std::fmt::Display for AddressKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddressKey::V4(o) => write!(f, "{}", std::net::Ipv4Addr::from(*o)),
            AddressKey::V6(o) => {
                let mut full = [0u8; 16];
                full[..8].copy_from_slice(o);
                write!(f, "{}/64", std::net::Ipv6Addr::from(full))
            }
        }
    }
}

/// The failure count of one key.
#[derive(Debug, Clone, Default)]
struct Counter {
    failures: u32,
    last: Option<Instant>,
    locked_until: Option<Instant>,
}

impl Counter {
    fn locked(&self, now: Instant) -> bool {
        self.locked_until.is_some_and(|t| now < t)
    }

    /// Counts a failure; what to restore to undo it, and the new lock when it starts one.
    fn fail_undoably(&mut self, now: Instant, free: u32, s: &Settings) -> (Undo, Option<Duration>) {
        let undo = Undo { failures: self.failures, last: self.last, locked_until: self.locked_until };
        if self.last.is_some_and(|l| now.saturating_duration_since(l) > s.forget_after) {
            self.failures = 0;
        }
        self.failures = self.failures.saturating_add(1);
        self.last = Some(now);
        if self.failures <= free {
            return (undo, None);
        }
        let doublings = (self.failures - free - 1).min(30);
        let lock = s.first_lock.saturating_mul(1u32 << doublings).min(s.max_lock);
        self.locked_until = Some(now + lock);
        (undo, Some(lock))
    }

    /// Undoes a failure counted by [`Counter::fail_undoably`] (unless others were counted since).
    fn undo(&mut self, undo: &Undo) {
        if self.failures == undo.failures.saturating_add(1) {
            self.failures = undo.failures;
            self.last = undo.last;
            self.locked_until = undo.locked_until;
        } else {
            self.failures = self.failures.saturating_sub(1);
        }
    }

    /// When this entry can be forgotten.
    fn stale(&self, now: Instant, s: &Settings) -> bool {
        !self.locked(now) && self.last.is_none_or(|l| now.saturating_duration_since(l) > s.forget_after)
    }
}

/// A counter's state before a provisional failure.
#[derive(Debug, Clone, Copy)]
struct Undo {
    failures: u32,
    last: Option<Instant>,
    locked_until: Option<Instant>,
}

#[derive(Debug, Clone, Default)]
struct IdEntry {
    counter: Counter,
    trusted: Vec<(AddressKey, Instant)>,
}

impl IdEntry {
    fn trusts(&self, addr: Option<AddressKey>, now: Instant) -> bool {
        addr.is_some_and(|a| {
            self.trusted.iter().any(|(t, at)| *t == a && now.saturating_duration_since(*at) < TRUST_FOR)
        })
    }

    fn stale(&self, now: Instant, s: &Settings) -> bool {
        self.counter.stale(now, s) && self.trusted.iter().all(|(_, at)| now.saturating_duration_since(*at) >= TRUST_FOR)
    }

    fn last_event(&self) -> Option<Instant> {
        self.trusted.iter().map(|(_, at)| *at).chain(self.counter.last).max()
    }
}

/// An attempt the throttle refused: why, and how long the lock still holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// Which lock.
    pub verdict: Verdict,
    /// How long until it is lifted.
    pub remaining: Duration,
}

/// What the throttle says about an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The password may be checked.
    Check,
    /// Refused without checking: the address is locked.
    AddressLocked,
    /// Refused without checking: the requestor id is locked (and the address is not trusted).
    RequestorLocked,
}

/// An attempt admitted by [`Throttle::admit`], counted as a failure until it succeeds.
#[derive(Debug)]
pub struct Admission {
    address: Option<AddressKey>,
    id: String,
    address_undo: Option<Undo>,
    id_undo: Option<Undo>,
    locks: Vec<Lock>,
}

/// A lock that a failure started (to be logged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lock {
    /// The client address is locked.
    Address {
        /// The address (or IPv6 /64).
        address: AddressKey,
        /// Its failures so far.
        failures: u32,
        /// For how long.
        lock: Duration,
    },
    /// The requestor id is locked.
    Requestor {
        /// The id.
        id: String,
        /// Its failures so far.
        failures: u32,
        /// For how long.
        lock: Duration,
    },
}

/// The failure tables of one gateway.
#[derive(Debug, Default)]
pub struct Throttle {
    settings: Settings,
    addresses: Mutex<HashMap<AddressKey, Counter>>,
    ids: Mutex<HashMap<String, IdEntry>>,
}

/// Makes room for one entry in a full table: drops the stale entries, and if it is still full
/// the unlocked (then any) entry with the oldest last event.
fn make_room<K: Clone + Eq + Hash, V>(
    map: &mut HashMap<K, V>,
    max: usize,
    stale: impl Fn(&V) -> bool,
    locked: impl Fn(&V) -> bool,
    last: impl Fn(&V) -> Option<Instant>,
) {
    if map.len() < max {
        return;
    }
    map.retain(|_, v| !stale(v));
    while map.len() >= max.max(1) {
        let victim = map.iter().min_by_key(|(_, v)| (locked(v), last(v))).map(|(k, _)| k.clone());
        match victim {
            Some(k) => {
                map.remove(&k);
            }
            None => return,
        }
    }
}

impl Throttle {
    /// A throttle with these settings.
    pub fn new(settings: Settings) -> Throttle {
        Throttle { settings, ..Throttle::default() }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Whether an attempt for `id` from `addr` may check its password: `Ok` admits it and
    /// counts it as a failure at once (so that attempts running at the same time cannot all
    /// slip in before the first of them fails); report its outcome with [`Throttle::failed`] or
    /// [`Throttle::succeeded`]. An admission dropped without either stays a failure (a client
    /// that hangs up gains nothing).
    pub fn admit(&self, addr: Option<IpAddr>, id: &str, now: Instant) -> Result<Admission, Refused> {
        let s = self.settings;
        let key = addr.map(AddressKey::of);
        let mut admission =
            Admission { address: key, id: id.to_string(), address_undo: None, id_undo: None, locks: Vec::new() };
        let mut addresses = if key.is_some() && s.address_failures > 0 { self.addresses.lock().ok() } else { None };
        let mut ids = if s.requestor_failures > 0 { self.ids.lock().ok() } else { None };
        let remaining = |c: &Counter| c.locked_until.map(|t| t.saturating_duration_since(now)).unwrap_or_default();
        if let (Some(key), Some(map)) = (key, addresses.as_deref())
            && let Some(c) = map.get(&key).filter(|c| c.locked(now))
        {
            return Err(Refused { verdict: Verdict::AddressLocked, remaining: remaining(c) });
        }
        if let Some(map) = ids.as_deref()
            && let Some(entry) = map.get(id)
            && entry.counter.locked(now)
            && !entry.trusts(key, now)
        {
            return Err(Refused { verdict: Verdict::RequestorLocked, remaining: remaining(&entry.counter) });
        }
        if let (Some(address), Some(map)) = (key, addresses.as_deref_mut()) {
            if !map.contains_key(&address) {
                make_room(map, s.max_entries, |c| c.stale(now, &s), |c| c.locked(now), |c| c.last);
            }
            let c = map.entry(address).or_default();
            let (undo, lock) = c.fail_undoably(now, s.address_failures, &s);
            admission.address_undo = Some(undo);
            if let Some(lock) = lock {
                admission.locks.push(Lock::Address { address, failures: c.failures, lock });
            }
        }
        if let Some(map) = ids.as_deref_mut() {
            if !map.contains_key(id) {
                make_room(map, s.max_entries, |e| e.stale(now, &s), |e| e.counter.locked(now), IdEntry::last_event);
            }
            let e = map.entry(id.to_string()).or_default();
            let (undo, lock) = e.counter.fail_undoably(now, s.requestor_failures, &s);
            admission.id_undo = Some(undo);
            if let Some(lock) = lock {
                admission.locks.push(Lock::Requestor { id: id.to_string(), failures: e.counter.failures, lock });
            }
        }
        Ok(admission)
    }

    /// Confirms an admitted attempt's failure; the locks it started (to be logged).
    pub fn failed(&self, admission: Admission) -> Vec<Lock> {
        admission.locks
    }

    /// Records an admitted attempt's success: its provisional failure is undone and the
    /// address is trusted for the requestor's id.
    pub fn succeeded(&self, admission: Admission, now: Instant) {
        let (address, id) = (admission.address, admission.id.clone());
        self.not_checked(admission);
        self.trust(address, &id, now);
    }

    /// Records that an admitted attempt's password was never checked (its time ran out in the
    /// queue, or the check failed): its provisional failure is undone.
    pub fn not_checked(&self, admission: Admission) {
        if let (Some(address), Some(undo)) = (admission.address, admission.address_undo)
            && let Ok(mut map) = self.addresses.lock()
            && let Some(c) = map.get_mut(&address)
        {
            c.undo(&undo);
        }
        if let Some(undo) = admission.id_undo
            && let Ok(mut map) = self.ids.lock()
            && let Some(e) = map.get_mut(&admission.id)
        {
            e.counter.undo(&undo);
        }
    }

    /// Counts a failed attempt that was not admitted through [`Throttle::admit`]; the locks it
    /// started.
    pub fn count_failure(&self, addr: Option<IpAddr>, id: &str, now: Instant) -> Vec<Lock> {
        match self.admit(addr, id, now) {
            Ok(a) => self.failed(a),
            Err(_) => Vec::new(),
        }
    }

    /// Whether an attempt for `id` from `addr` would be admitted (without counting it).
    pub fn check(&self, addr: Option<IpAddr>, id: &str, now: Instant) -> Verdict {
        let key = addr.map(AddressKey::of);
        if let Some(key) = key
            && self.settings.address_failures > 0
            && let Ok(addresses) = self.addresses.lock()
            && addresses.get(&key).is_some_and(|c| c.locked(now))
        {
            return Verdict::AddressLocked;
        }
        if self.settings.requestor_failures > 0
            && let Ok(ids) = self.ids.lock()
            && let Some(entry) = ids.get(id)
            && entry.counter.locked(now)
            && !entry.trusts(key, now)
        {
            return Verdict::RequestorLocked;
        }
        Verdict::Check
    }

    /// Records a success that was not admitted through [`Throttle::admit`] (credentials
    /// verified recently, after [`Throttle::check`] said they may be checked): the address is
    /// trusted for the requestor's id, as [`Throttle::succeeded`] does.
    pub fn trusted(&self, addr: Option<IpAddr>, id: &str, now: Instant) {
        self.trust(addr.map(AddressKey::of), id, now);
    }

    /// Trusts `addr` for `id` (a successful login from there).
    fn trust(&self, addr: Option<AddressKey>, id: &str, now: Instant) {
        let s = self.settings;
        let (Some(address), true) = (addr, s.requestor_failures > 0) else { return };
        let Ok(mut map) = self.ids.lock() else { return };
        if !map.contains_key(id) {
            make_room(&mut map, s.max_entries, |e| e.stale(now, &s), |e| e.counter.locked(now), IdEntry::last_event);
            map.insert(id.to_string(), IdEntry::default());
        }
        let Some(e) = map.get_mut(id) else { return };
        e.trusted.retain(|(a, at)| *a != address && now.saturating_duration_since(*at) < TRUST_FOR);
        if e.trusted.len() >= MAX_TRUSTED {
            e.trusted.remove(0);
        }
        e.trusted.push((address, now));
    }

    /// How many entries the tables hold (addresses, requestor ids).
    pub fn sizes(&self) -> (usize, usize) {
        (self.addresses.lock().map(|m| m.len()).unwrap_or(0), self.ids.lock().map(|m| m.len()).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    fn small() -> Settings {
        Settings { address_failures: 3, requestor_failures: 5, max_entries: 4, ..Settings::default() }
    }

    #[test]
    fn an_address_is_locked_after_its_free_failures_for_doubling_times() {
        let t = Throttle::new(small());
        let now = Instant::now();
        for _ in 0..3 {
            assert_eq!(t.check(ip("10.0.0.1"), "X", now), Verdict::Check);
            assert!(t.count_failure(ip("10.0.0.1"), "X", now).is_empty());
        }
        let locks = t.count_failure(ip("10.0.0.1"), "X", now);
        assert_eq!(
            locks,
            vec![Lock::Address {
                address: AddressKey::of("10.0.0.1".parse().unwrap()),
                failures: 4,
                lock: Duration::from_secs(1)
            }]
        );
        assert_eq!(t.check(ip("10.0.0.1"), "Y", now), Verdict::AddressLocked);
        assert_eq!(t.check(ip("10.0.0.2"), "X", now), Verdict::Check, "another address is not held");
        let later = now + Duration::from_millis(1001);
        assert_eq!(t.check(ip("10.0.0.1"), "X", later), Verdict::Check);
        let locks = t.count_failure(ip("10.0.0.1"), "X", later);
        assert!(matches!(locks[0], Lock::Address { lock, .. } if lock == Duration::from_secs(2)));
        // Forgotten after a quiet while.
        let much_later = later + Duration::from_secs(16 * 60);
        assert_eq!(t.check(ip("10.0.0.1"), "X", much_later), Verdict::Check);
        assert!(t.count_failure(ip("10.0.0.1"), "Z", much_later).is_empty());
    }

    #[test]
    fn ipv6_addresses_count_by_their_64() {
        assert_eq!(
            AddressKey::of("2001:db8:1:2::1".parse().unwrap()),
            AddressKey::of("2001:db8:1:2:ffff::9".parse().unwrap())
        );
        assert_ne!(
            AddressKey::of("2001:db8:1:2::1".parse().unwrap()),
            AddressKey::of("2001:db8:1:3::1".parse().unwrap())
        );
        assert_eq!(AddressKey::of("::ffff:10.0.0.1".parse().unwrap()), AddressKey::of("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn a_requestor_lock_spares_the_addresses_it_logged_in_from() {
        let t = Throttle::new(Settings { address_failures: 0, ..small() });
        let now = Instant::now();
        t.succeeded(t.admit(ip("192.0.2.1"), "ACME", now).unwrap(), now);
        for i in 0..6 {
            t.count_failure(ip(&format!("198.51.100.{i}")), "ACME", now);
        }
        assert_eq!(t.check(ip("198.51.100.77"), "ACME", now), Verdict::RequestorLocked);
        assert_eq!(t.check(None, "ACME", now), Verdict::RequestorLocked);
        assert_eq!(t.check(ip("192.0.2.1"), "ACME", now), Verdict::Check, "the partner's own address");
        assert_eq!(t.check(ip("198.51.100.77"), "OTHER", now), Verdict::Check);
    }

    #[test]
    fn tables_stay_bounded_and_keep_locked_entries() {
        let t = Throttle::new(Settings { address_failures: 1, requestor_failures: 1, ..small() });
        let now = Instant::now();
        // Lock one id and one address first.
        t.count_failure(ip("10.9.9.9"), "VICTIM", now);
        t.count_failure(ip("10.9.9.9"), "VICTIM", now);
        assert_eq!(t.check(ip("10.0.0.200"), "VICTIM", now), Verdict::RequestorLocked);
        for i in 0..100 {
            let at = now + Duration::from_millis(i);
            t.count_failure(ip(&format!("10.0.1.{i}")), &format!("junk{i}"), at);
            let (a, b) = t.sizes();
            assert!(a <= 4 && b <= 4, "{a} {b}");
        }
        assert_eq!(t.check(ip("10.0.0.200"), "VICTIM", now + Duration::from_millis(100)), Verdict::RequestorLocked);
        assert_eq!(t.check(ip("10.9.9.9"), "x", now + Duration::from_millis(100)), Verdict::AddressLocked);
    }

    #[test]
    fn attempts_in_flight_count_at_once_and_a_success_is_undone() {
        let t = Throttle::new(small());
        let now = Instant::now();
        // Ten attempts at the same time, none finished: three are free, the fourth starts a
        // lock, the rest are refused.
        let admitted: Vec<_> = (0..10).filter_map(|_| t.admit(ip("10.0.0.1"), "X", now).ok()).collect();
        assert_eq!(admitted.len(), 4);
        // A success undoes its own provisional failure (and the lock it started).
        let t = Throttle::new(small());
        for _ in 0..3 {
            t.count_failure(ip("10.0.0.1"), "X", now);
        }
        let a = t.admit(ip("10.0.0.1"), "X", now).unwrap();
        assert_eq!(t.check(ip("10.0.0.1"), "X", now), Verdict::AddressLocked, "locked while the attempt is checked");
        t.succeeded(a, now);
        assert_eq!(t.check(ip("10.0.0.1"), "X", now), Verdict::Check, "the success lifts the lock it started");
    }

    #[test]
    fn zero_turns_a_table_off() {
        let t = Throttle::new(Settings { address_failures: 0, requestor_failures: 0, ..small() });
        let now = Instant::now();
        for _ in 0..50 {
            assert!(t.count_failure(ip("10.0.0.1"), "X", now).is_empty());
        }
        assert_eq!(t.check(ip("10.0.0.1"), "X", now), Verdict::Check);
        assert_eq!(t.sizes(), (0, 0));
    }
}
