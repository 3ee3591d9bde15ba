//! The gateway's own booking references (`ResID_SourceContext="Internal"`): a prefix and ten
//! random Crockford base-32 characters (50 bits), e.g. `ACT-7K2M9QX4TB`. They tell nothing
//! about how many bookings the gateway holds (sequential numbers would, to every partner); a
//! collision is caught by the unique key and another reference drawn.

use argon2::password_hash::rand_core::{OsRng, RngCore};

use crate::store::{Conn, Scalar, StoreError};

/// How many references a booking draws before giving up: a collision among 2^50 references is
/// rare, five in a row mean something else is wrong.
pub const DRAWS: usize = 5;

/// Crockford's base 32: no I, L, O, U.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A reference with `prefix` that no booking has, drawn the same way for every kind of
/// booking: at most [`DRAWS`] new ones tried in turn, in the caller's write transaction;
/// `used` is the kind's statement that finds a booking by it (`$1`).
pub(crate) async fn free(c: &mut Conn<'_>, prefix: &str, used: &str) -> Result<String, StoreError> {
    for candidate in (0..DRAWS).map(|_| new_reference(prefix)) {
        if c.query_opt::<Scalar<i64>>(used, &[&candidate]).await?.is_none() {
            return Ok(candidate);
        }
    }
    Err(StoreError::Data(format!("no free booking reference after {DRAWS} draws")))
}

/// A new random reference with `prefix` (`ACT`, `HTL`).
pub fn new_reference(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    OsRng.fill_bytes(&mut bytes);
    let mut n = u64::from_le_bytes(bytes);
    let mut out = String::with_capacity(prefix.len() + 11);
    out.push_str(prefix);
    out.push('-');
    for _ in 0..10 {
        out.push(char::from(ALPHABET[(n & 31) as usize]));
        n >>= 5;
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn references_are_random_and_well_formed() {
        let a = new_reference("ACT");
        let b = new_reference("ACT");
        assert_ne!(a, b);
        assert_eq!(a.len(), 14);
        assert!(a.starts_with("ACT-"));
        assert!(a[4..].bytes().all(|c| ALPHABET.contains(&c)));
    }
}
