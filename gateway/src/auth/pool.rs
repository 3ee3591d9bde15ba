//! The argon2 workers: a fixed number of threads, each with one memory area it reuses for every
//! verification, fed by a queue.
//!
//! Why not `spawn_blocking` with a semaphore: each argon2 verification allocates its memory
//! (19 MiB at the default cost), which the allocator keeps after a flood; and a permit held by
//! the request future is released when the client hangs up while the blocking work goes on, so
//! more than "one per CPU" verifications ran at once. Here:
//!
//! - at most [`Pool::workers`] verifications run at once, whatever clients do: the worker
//!   *is* the permit;
//! - argon2 memory is `workers × m_cost`, allocated once per worker and reused (argon2's
//!   `hash_password_into_with_memory`), never given back to and taken from the allocator;
//! - a queued verification whose request is gone (the client hung up, or its time ran out) is
//!   skipped without any argon2 work, so no verification outlives its request in the queue;
//! - the queue is bounded ([`QUEUE`] verifications); a request waits (asynchronously) for a
//!   place in it.

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use argon2::password_hash::PasswordHash;
use argon2::{Algorithm, Argon2, Block, Params, Version};
use subtle::ConstantTimeEq;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use crate::metrics;
use crate::requestors::password::MAX_PASSWORD;

/// The most verifications queued or running at once; more requests wait for a place.
pub const QUEUE: usize = 1024;

/// The most argon2 memory one verification may need (stored hashes are made by this gateway at
/// 19 MiB; a hash asking for more is refused rather than allocated).
const MAX_BLOCKS: usize = 256 * 1024; // 256 MiB

/// Why a verification was not carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// The workers are gone (a worker thread could not be started, or they stopped).
    #[error("no argon2 worker is available")]
    Unavailable,
    /// The deadline passed before a worker took the verification: not carried out.
    #[error("the request's time ran out before its password was verified")]
    Expired,
}

struct Job {
    phc: String,
    password: Vec<u8>,
    too_long: bool,
    deadline: Option<Instant>,
    reply: oneshot::Sender<Result<bool, PoolError>>,
    _place: OwnedSemaphorePermit,
}

/// The argon2 workers (see the module docs).
#[derive(Debug)]
pub struct Pool {
    tx: mpsc::Sender<Job>,
    places: Arc<Semaphore>,
    workers: usize,
}

static POOL: OnceLock<Pool> = OnceLock::new();
static WANTED: OnceLock<usize> = OnceLock::new();

/// The number of workers by default: one per CPU, at most 4 (each keeps 19 MiB).
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 4)
}

/// Sets the number of workers of the process's pool; only before its first use (later calls,
/// and calls after the pool started, change nothing). Returns whether it took effect.
pub fn set_workers(n: usize) -> bool {
    POOL.get().is_none() && WANTED.set(n.max(1)).is_ok()
}

impl Pool {
    /// The process's pool, started at first use.
    pub fn global() -> &'static Pool {
        POOL.get_or_init(|| Pool::start(WANTED.get().copied().unwrap_or_else(default_workers)))
    }

    fn start(workers: usize) -> Pool {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let mut started = 0;
        for i in 0..workers {
            let rx = rx.clone();
            match std::thread::Builder::new().name(format!("argon2-{i}")).spawn(move || work(&rx)) {
                Ok(_) => started += 1,
                Err(e) => tracing::error!(error = %e, "an argon2 worker thread could not be started"),
            }
        }
        metrics::argon2_workers(started);
        Pool { tx, places: Arc::new(Semaphore::new(QUEUE)), workers: started }
    }

    /// The number of workers (the most verifications at once).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Verifies `password` against the PHC string `phc`. Not carried out when the caller is
    /// gone, or `deadline` has passed before a worker takes it ([`PoolError::Expired`]).
    pub async fn verify(&self, phc: &str, password: &str, deadline: Option<Instant>) -> Result<bool, PoolError> {
        if self.workers == 0 {
            return Err(PoolError::Unavailable);
        }
        let place = self.places.clone().acquire_owned().await.map_err(|_| PoolError::Unavailable)?;
        let bytes = password.as_bytes();
        let too_long = bytes.len() > MAX_PASSWORD;
        let (reply, answer) = oneshot::channel();
        let job = Job {
            phc: phc.to_string(),
            password: bytes[..bytes.len().min(MAX_PASSWORD)].to_vec(),
            too_long,
            deadline,
            reply,
            _place: place,
        };
        metrics::argon2_queued(1);
        if self.tx.send(job).is_err() {
            metrics::argon2_queued(-1);
            return Err(PoolError::Unavailable);
        }
        answer.await.unwrap_or(Err(PoolError::Unavailable))
    }
}

/// A worker: takes jobs until the pool is dropped, with one memory area for all of them.
fn work(rx: &Mutex<mpsc::Receiver<Job>>) {
    let mut memory: Vec<Block> = Vec::new();
    loop {
        let job = {
            let Ok(rx) = rx.lock() else { return };
            match rx.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        metrics::argon2_queued(-1);
        if job.reply.is_closed() || job.deadline.is_some_and(|d| Instant::now() >= d) {
            metrics::argon2_skipped();
            let _ = job.reply.send(Err(PoolError::Expired));
            continue;
        }
        metrics::argon2_running(1);
        let ok = verify_with(&mut memory, &job.phc, &job.password) && !job.too_long;
        metrics::argon2_running(-1);
        metrics::argon2_checked();
        let _ = job.reply.send(Ok(ok));
        // `job` (and its queue place) is dropped here.
    }
}

/// Verifies `password` against a PHC string with `memory` as argon2's work area (grown to what
/// the hash needs, then reused). A hash that cannot be read or asks for too much memory is a
/// wrong password (and logged).
pub(crate) fn verify_with(memory: &mut Vec<Block>, phc: &str, password: &[u8]) -> bool {
    let hash = match PasswordHash::new(phc) {
        Ok(h) => h,
        Err(e) => {
            tracing::error!(error = %e, "a stored password hash cannot be parsed");
            return false;
        }
    };
    let (Some(salt), Some(expected)) = (hash.salt, hash.hash) else {
        tracing::error!("a stored password hash has no salt or no hash");
        return false;
    };
    let algorithm = Algorithm::try_from(hash.algorithm);
    let version = hash.version.map(Version::try_from).transpose();
    let params = Params::try_from(&hash);
    let (Ok(algorithm), Ok(version), Ok(params)) = (algorithm, version, params) else {
        tracing::error!("a stored password hash is not an argon2 hash this gateway reads");
        return false;
    };
    let blocks = params.block_count();
    if blocks > MAX_BLOCKS {
        tracing::error!(blocks, "a stored password hash asks for more argon2 memory than allowed");
        return false;
    }
    if memory.len() < blocks {
        memory.resize(blocks, Block::default());
    }
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        tracing::error!("a stored password hash has a salt that cannot be decoded");
        return false;
    };
    let mut out = vec![0u8; expected.len()];
    let argon2 = Argon2::new(algorithm, version.unwrap_or_default(), params);
    match argon2.hash_password_into_with_memory(password, salt, &mut out, &mut memory[..blocks]) {
        Ok(()) => bool::from(out.as_slice().ct_eq(expected.as_bytes())),
        Err(e) => {
            tracing::error!(error = %e, "argon2 failed");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reused_memory_gives_the_same_answers() {
        let a = crate::requestors::password::hash_password("correct horse").unwrap();
        let b = crate::requestors::password::hash_password("battery staple").unwrap();
        let mut memory = Vec::new();
        for _ in 0..2 {
            assert!(verify_with(&mut memory, &a, b"correct horse"));
            assert!(!verify_with(&mut memory, &a, b"battery staple"));
            assert!(verify_with(&mut memory, &b, b"battery staple"));
            assert!(!verify_with(&mut memory, &b, b"correct horse"));
        }
        assert_eq!(memory.len(), Params::default().block_count());
        assert!(!verify_with(&mut memory, "not a phc string", b"x"));
        // A hash made elsewhere with a smaller cost verifies too.
        let small = Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::new(1024, 1, 1, None).unwrap());
        let salt = argon2::password_hash::SaltString::from_b64("c2FsdHNhbHRzYWx0").unwrap();
        let phc = argon2::password_hash::PasswordHasher::hash_password(&small, b"pw", &salt).unwrap().to_string();
        assert!(verify_with(&mut memory, &phc, b"pw"));
        assert!(!verify_with(&mut memory, &phc, b"pw2"));
    }

    #[tokio::test]
    async fn a_pool_verifies_and_skips_what_nobody_waits_for() {
        let pool = Pool::start(1);
        let phc = crate::requestors::password::hash_password("pw").unwrap();
        assert!(pool.verify(&phc, "pw", None).await.unwrap());
        assert!(!pool.verify(&phc, "pw!", None).await.unwrap());
        let long = "p".repeat(MAX_PASSWORD + 1);
        assert!(!pool.verify(&phc, &long, None).await.unwrap());
        // A deadline already passed: not verified.
        assert_eq!(pool.verify(&phc, "pw", Some(Instant::now())).await, Err(PoolError::Expired));
    }
}
