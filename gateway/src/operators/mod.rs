//! Operators: the people who run the gateway and use its console ([`crate::console`]), each an
//! `admin` (reads and changes) or a `viewer` (reads only) — and the hotels' own users, `hotel`,
//! each belonging to one supplier and seeing only that supplier's hotels in the extranet
//! ([`scope`] decides which hotels a session may see). Their passwords are kept as the
//! partners' are (argon2id, [`crate::requestors::password`]) and verified on the same argon2
//! workers ([`crate::auth::pool`]); their logins are throttled by the same rules
//! ([`crate::auth::throttle`]); their sessions live in the database, so every gateway on it
//! knows them and a logout or a disabled operator ends them everywhere at once.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Role`], [`Operator`], [`OperatorError`], what an operator's name may be |
//! | [`admin`] | `ota-gateway operator add / passwd / disable / enable / list`, each change audited |
//! | [`scope`] | which hotels a session may see (a hotel user: its supplier's; the others: all) |
//! | [`session`] | login (throttled, the same cost for an unknown name), sessions and their time-outs, logout |
//! | [`repo`] | all SQL of operators and their sessions |

pub mod admin;
pub mod repo;
pub mod scope;
pub mod session;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::requestors::password::HashError;
use crate::store::{Abandoned, StoreError};

/// What an operator may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Reads every page.
    Viewer,
    /// Reads every page and changes partners, operators, deliveries.
    Admin,
    /// A hotel's user: sees only the extranet of its supplier's hotels (every other page answers
    /// as if it did not exist).
    Hotel,
}

impl Role {
    /// Its stored name: `admin`, `viewer` or `hotel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Viewer => "viewer",
            Role::Hotel => "hotel",
        }
    }

    /// The role of a stored name.
    pub fn from_name(name: &str) -> Option<Role> {
        match name {
            "admin" => Some(Role::Admin),
            "viewer" => Some(Role::Viewer),
            "hotel" => Some(Role::Hotel),
            _ => None,
        }
    }
}

/// An operator as listed (never the password's hash).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Operator {
    /// The login name.
    pub name: String,
    /// What it may do.
    pub role: Role,
    /// The supplier (a `supplier` requestor's id) a hotel user belongs to; `None` for the others.
    pub supplier: Option<String>,
    /// False when disabled (it cannot log in, and had its sessions ended).
    pub active: bool,
    /// When it was created (UTC).
    #[serde(serialize_with = "rfc3339")]
    pub created: DateTime<Utc>,
}

fn rfc3339<S: serde::Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// An operator command failed; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    /// No operator has this name.
    #[error("no operator {0:?}")]
    NotFound(String),
    /// An operator with this name exists already.
    #[error("operator {0:?} exists already (use `operator passwd`, `enable` or `disable` to change it)")]
    Exists(String),
    /// A value is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The password could not be hashed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The store failed.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// A background task failed.
    #[error("background task: {0}")]
    Task(String),
}

impl From<Abandoned> for OperatorError {
    fn from(_: Abandoned) -> Self {
        OperatorError::Task("the change was abandoned".into())
    }
}

/// The longest operator name.
pub const MAX_NAME: usize = 64;

/// Checks an operator's name: 1 to [`MAX_NAME`] characters among letters, digits, `.`, `-`,
/// `_` and `@` (no `:`, which the command line's actors use: `cli:alice`).
pub fn check_name(name: &str) -> Result<(), OperatorError> {
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_NAME
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'));
    if ok {
        Ok(())
    } else {
        Err(OperatorError::Invalid(format!(
            "an operator's name is 1 to {MAX_NAME} letters, digits, '.', '-', '_' or '@'"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_name("ann.smith@ops").is_ok());
        for bad in ["", "cli:ann", "a b", "<script>", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Role::from_name("admin"), Some(Role::Admin));
        assert_eq!(Role::from_name(Role::Viewer.as_str()), Some(Role::Viewer));
        assert_eq!(Role::from_name("root"), None);
        assert_eq!(Role::from_name(Role::Hotel.as_str()), Some(Role::Hotel));
    }
}
