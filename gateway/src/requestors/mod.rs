//! Requestors: the partners allowed to call the gateway, identified by the POS (`RequestorID`
//! Type 22 with `ID` and `ID_Context`, Type 88 with the `MessagePassword`).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Requestor`] (who is calling), [`Directory`] (the stored requestors, in the content snapshot) |
//! | [`repo`] | all SQL of requestors |
//! | [`import`] | the `requestors` part of an import file; passwords hashed before they are stored |
//!
//! Authentication itself (argon2, the verification cache) is [`crate::auth`].

pub mod import;
pub mod repo;

use std::collections::HashMap;

/// An authenticated requestor: who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context (`ID_Context` of the Type 22 source).
    pub id_context: String,
    /// The requestor's name.
    pub name: String,
    /// `Instance` of the Type 22 source (`PriceBreakdown`, `MF001`, `MF002`, …), if given.
    pub instance: Option<String>,
}

/// A requestor as stored. Deliberately not `Debug`-printing the hash.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredRequestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context the Type 22 source must carry.
    pub id_context: String,
    /// A display name.
    pub name: String,
    /// The argon2id PHC string of the password.
    pub password_hash: String,
    /// False when the requestor is disabled.
    pub active: bool,
}

impl std::fmt::Debug for StoredRequestor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredRequestor")
            .field("id", &self.id)
            .field("id_context", &self.id_context)
            .field("name", &self.name)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

/// Every stored requestor, by id (part of the content snapshot).
#[derive(Debug, Clone, Default)]
pub struct Directory {
    by_id: HashMap<String, StoredRequestor>,
}

impl Directory {
    /// A directory of these requestors.
    pub fn new(requestors: impl IntoIterator<Item = StoredRequestor>) -> Self {
        Directory { by_id: requestors.into_iter().map(|r| (r.id.clone(), r)).collect() }
    }

    /// The requestor with this id.
    pub fn get(&self, id: &str) -> Option<&StoredRequestor> {
        self.by_id.get(id)
    }

    /// How many requestors there are.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}
