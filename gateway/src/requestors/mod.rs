//! Requestors: the partners allowed to call the gateway, identified by the POS (`RequestorID`
//! Type 22 with `ID` and `ID_Context`, Type 88 with the `MessagePassword`).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`Requestor`] (who is calling), [`Directory`] (the stored requestors, in the content snapshot) |
//! | [`repo`] | all SQL of requestors |
//! | [`import`] | the `requestors` part of an import file; passwords hashed before they are stored |
//! | [`admin`] | `ota-gateway requestor add / passwd / disable / enable / list / allow` |
//! | [`password`] | a password as kept: its longest length and its argon2id hash |
//! | [`traffic`] | look-to-book: searches, availability checks, quotes and bookings counted per requestor and day |
//!
//! Authentication itself (argon2, the verification cache) is [`crate::auth`].

pub mod admin;
pub mod import;
pub mod password;
pub mod repo;
pub mod traffic;

use std::collections::HashMap;
use std::net::IpAddr;

use ipnet::IpNet;
use ota_messages::Dialect;

pub use crate::shared::context::{Limits, Requestor, Role};

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
    /// The networks it may call from; empty: any address.
    pub allow: Vec<IpNet>,
    /// The dialect its answers are written in.
    pub dialect: Dialect,
    /// Its traffic limits.
    pub limits: Limits,
    /// A distribution partner or a supplier with its hotels.
    pub role: Role,
    /// A supplier's notification URL, where the bookings of its hotels are pushed (`outbox`).
    pub notify_url: Option<String>,
    /// A supplier's alert addresses: an e-mail to each for every new, modified and cancelled
    /// booking of its hotels (`outbox::alerts`); empty: none.
    pub alert_emails: Vec<String>,
    /// What of its traffic the transaction log keeps.
    pub log: crate::txlog::Policy,
    /// Its revision: moved on by every change of it (a console form carries the one it showed,
    /// see [`admin::at_revision`]).
    pub revision: i64,
}

impl StoredRequestor {
    /// True when a client at `client` may authenticate as this requestor: always when its
    /// allow-list is empty, else only from an address in it (an unknown address never).
    /// IPv4 addresses mapped into IPv6 are checked as IPv4.
    pub fn allows(&self, client: Option<IpAddr>) -> bool {
        if self.allow.is_empty() {
            return true;
        }
        client.is_some_and(|ip| {
            let ip = ip.to_canonical();
            self.allow.iter().any(|net| net.contains(&ip))
        })
    }
}

impl std::fmt::Debug for StoredRequestor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredRequestor")
            .field("id", &self.id)
            .field("id_context", &self.id_context)
            .field("name", &self.name)
            .field("active", &self.active)
            .field("allow", &self.allow)
            .field("dialect", &self.dialect)
            .field("limits", &self.limits)
            .field("role", &self.role)
            .field("notify_url", &self.notify_url)
            .field("alert_emails", &self.alert_emails)
            .field("log", &self.log)
            .finish_non_exhaustive()
    }
}

/// Every stored requestor, by id (part of the content snapshot).
#[derive(Debug, Clone, Default)]
pub struct Directory {
    by_id: HashMap<String, StoredRequestor>,
    logged: bool,
}

impl Directory {
    /// A directory of these requestors.
    pub fn new(requestors: impl IntoIterator<Item = StoredRequestor>) -> Self {
        let by_id: HashMap<String, StoredRequestor> = requestors.into_iter().map(|r| (r.id.clone(), r)).collect();
        let logged = by_id.values().any(|r| r.log.level != crate::txlog::Level::Off);
        Directory { by_id, logged }
    }

    /// True when the transaction log keeps something of at least one requestor (else the
    /// HTTP layer captures nothing at all).
    pub fn logs_any(&self) -> bool {
        self.logged
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn allow_lists() {
        let mut r = StoredRequestor {
            id: "A".into(),
            id_context: "C".into(),
            name: "N".into(),
            password_hash: String::new(),
            active: true,
            allow: vec![],
            dialect: Dialect::Service,
            limits: Limits::default(),
            role: Role::Distributor,
            notify_url: None,
            alert_emails: Vec::new(),
            revision: 1,
            log: Default::default(),
        };
        assert!(r.allows(None));
        assert!(r.allows(Some("203.0.113.9".parse().unwrap())));
        r.allow = vec!["10.0.0.0/8".parse().unwrap(), "2001:db8::/32".parse().unwrap()];
        assert!(r.allows(Some("10.1.2.3".parse().unwrap())));
        assert!(r.allows(Some("::ffff:10.1.2.3".parse().unwrap())));
        assert!(r.allows(Some("2001:db8::1".parse().unwrap())));
        assert!(!r.allows(Some("127.0.0.1".parse().unwrap())));
        assert!(!r.allows(None), "an unknown address is not in any list");
    }
}
