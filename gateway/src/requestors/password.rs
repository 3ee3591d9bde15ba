//! A requestor's password as the gateway keeps it: at most [`MAX_PASSWORD`] bytes, stored as an
//! argon2id PHC string ([`hash_password`]). Verifying one is [`crate::auth`]'s.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHasher, SaltString};

/// The longest password taken; a longer one is refused when set, and wrong when presented (it
/// is still verified, cut to this length, so that it costs the same).
pub const MAX_PASSWORD: usize = 1024;

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
