//! The `requestors` part of an import file: partners with their password in clear; only its
//! argon2id hash is stored.

use std::collections::HashSet;

use ipnet::IpNet;
use ota_messages::Dialect;
use serde::Deserialize;

use crate::auth::hash_password;
use crate::auth::pool::MAX_PASSWORD;
use crate::config::parse_net;
use crate::shared::import::ImportError;
use crate::shared::log_text::LogText;

/// One requestor of an import file.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestorInput {
    /// `RequestorID@ID` (both POS sources).
    pub id: String,
    /// The distributor context the Type 22 source must carry as `ID_Context`.
    pub id_context: String,
    /// A display name.
    pub name: String,
    /// The `MessagePassword`, in clear in the file; only its argon2id hash is stored.
    pub password: String,
    /// False to disable the requestor (its requests then fail authentication). Default true.
    #[serde(default = "yes")]
    pub active: bool,
    /// The networks (CIDRs or addresses) the requestor may call from; `[]`: any address.
    /// Absent: a new requestor may call from anywhere, an existing one keeps its list.
    #[serde(default)]
    pub allow: Option<Vec<String>>,
    /// The dialect its answers are written in (`service` or `ota2016b`, see
    /// `ota_messages::Dialect`). Absent: a new requestor gets `service`, an existing one keeps
    /// its dialect.
    #[serde(default)]
    pub dialect: Option<String>,
    /// Requests per second it may send to each gateway; `0` removes the limit. Absent: a new
    /// requestor has no limit, an existing one keeps its own.
    #[serde(default)]
    pub rate: Option<u32>,
    /// Requests per UTC day it may send to each gateway; `0` removes the quota. Absent: as
    /// for `rate`.
    #[serde(default)]
    pub daily_quota: Option<u32>,
    /// What of its traffic the transaction log keeps: `off`, `errors`, `bookings` or `all`.
    /// Absent: a new requestor is not logged, an existing one keeps its level.
    #[serde(default)]
    pub log: Option<String>,
    /// At `log: "all"`, the share of its searches, availability checks and static content
    /// requests logged (`0.1`); absent: as for `log` (a new requestor: 1, all of them).
    #[serde(default)]
    pub log_sample: Option<f64>,
}

fn yes() -> bool {
    true
}

impl std::fmt::Debug for RequestorInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestorInput")
            .field("id", &self.id)
            .field("id_context", &self.id_context)
            .field("name", &self.name)
            .field("password", &"<redacted>")
            .field("active", &self.active)
            .field("allow", &self.allow)
            .field("dialect", &self.dialect)
            .field("rate", &self.rate)
            .field("daily_quota", &self.daily_quota)
            .field("log", &self.log)
            .field("log_sample", &self.log_sample)
            .finish()
    }
}

/// A requestor ready to store: the password already hashed.
#[derive(Debug, Clone)]
pub struct HashedRequestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context.
    pub id_context: String,
    /// A display name.
    pub name: String,
    /// The argon2id PHC string.
    pub password_hash: String,
    /// Whether the requestor may call the gateway.
    pub active: bool,
    /// The allow-list to store; `None` leaves the stored one as it is.
    pub allow: Option<Vec<IpNet>>,
    /// The dialect to store; `None` leaves the stored one (a new requestor: the default).
    pub dialect: Option<Dialect>,
    /// The rate to store (`Some(0)`: none); `None` leaves the stored one.
    pub rate: Option<u32>,
    /// The daily quota to store (`Some(0)`: none); `None` leaves the stored one.
    pub daily_quota: Option<u32>,
    /// The log level to store; `None` leaves the stored one (a new requestor: off).
    pub log: Option<crate::txlog::Level>,
    /// The log sample to store; `None` leaves the stored one (a new requestor: all).
    pub log_sample: Option<crate::txlog::Sample>,
}

/// The longest id and context: the spec's `RequestorID@ID` and `@ID_Context`
/// (`StringLength1to32`), so every stored requestor can log in.
const MAX_ID: usize = 32;

/// Checks the requestors of a file: fields present, ids unique.
pub fn validate(requestors: &[RequestorInput]) -> Result<(), ImportError> {
    let mut seen = HashSet::new();
    for r in requestors {
        let entry = format!("requestor {:?}", r.id);
        for (field, value) in [("id", &r.id), ("id_context", &r.id_context), ("name", &r.name), ("password", &r.password)] {
            if value.trim().is_empty() {
                return Err(ImportError::invalid(&entry, format!("{field} is empty")));
            }
        }
        if r.id.chars().count() > MAX_ID || r.id_context.chars().count() > MAX_ID {
            return Err(ImportError::invalid(&entry, format!("id and id_context have at most {MAX_ID} characters")));
        }
        for (field, value) in [("id", &r.id), ("id_context", &r.id_context)] {
            if value.trim() != value.as_str() || value.chars().any(char::is_control) {
                return Err(ImportError::invalid(&entry, format!("{field} has surrounding spaces or a control character")));
            }
        }
        if r.password.len() > MAX_PASSWORD {
            return Err(ImportError::invalid(&entry, format!("password has at most {MAX_PASSWORD} bytes")));
        }
        allow_list(r).map_err(|e| ImportError::invalid(&entry, e))?;
        dialect(r).map_err(|e| ImportError::invalid(&entry, e))?;
        log(r).map_err(|e| ImportError::invalid(&entry, e))?;
        if !seen.insert(r.id.as_str()) {
            return Err(ImportError::invalid(&entry, "appears twice"));
        }
    }
    Ok(())
}

/// The allow-list of an import entry, parsed.
fn allow_list(r: &RequestorInput) -> Result<Option<Vec<IpNet>>, String> {
    r.allow.as_ref().map(|nets| nets.iter().map(|n| parse_net(n).map_err(|e| format!("allow: {e}"))).collect()).transpose()
}

/// The dialect of an import entry, checked.
fn dialect(r: &RequestorInput) -> Result<Option<Dialect>, String> {
    r.dialect.as_deref().map(parse_dialect).transpose()
}

/// The log level and sample of an import entry, checked.
fn log(r: &RequestorInput) -> Result<(Option<crate::txlog::Level>, Option<crate::txlog::Sample>), String> {
    let level = r.log.as_deref().map(crate::txlog::Level::parse).transpose().map_err(|e| format!("log: {e}"))?;
    let sample = r.log_sample.map(|v| crate::txlog::Sample::parse(&v.to_string())).transpose().map_err(|e| format!("log_sample: {e}"))?;
    Ok((level, sample))
}

/// A dialect by its name; else the names there are.
pub fn parse_dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        format!("dialect {:?} is not one of: {}", LogText(name), names.join(", "))
    })
}

/// Validates and hashes the passwords (on a blocking thread: argon2 is slow on purpose).
pub async fn hash_all(requestors: Vec<RequestorInput>) -> Result<Vec<HashedRequestor>, ImportError> {
    validate(&requestors)?;
    tokio::task::spawn_blocking(move || {
        requestors
            .into_iter()
            .map(|r| {
                let allow = allow_list(&r).map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e))?;
                let dialect = dialect(&r).map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e))?;
                let (log, log_sample) = log(&r).map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e))?;
                Ok(HashedRequestor {
                    allow,
                    password_hash: hash_password(&r.password).map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e.to_string()))?,
                    id: r.id,
                    id_context: r.id_context,
                    name: r.name,
                    active: r.active,
                    dialect,
                    rate: r.rate,
                    daily_quota: r.daily_quota,
                    log,
                    log_sample,
                })
            })
            .collect::<Result<Vec<_>, ImportError>>()
    })
    .await
    .map_err(|e| ImportError::Task(e.to_string()))?
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn one(id: &str, pw: &str) -> RequestorInput {
        RequestorInput { id: id.into(), id_context: "C".into(), name: "N".into(), password: pw.into(), active: true, allow: None, dialect: None, rate: None, daily_quota: None, log: None, log_sample: None }
    }

    #[test]
    fn bad_requestors_are_refused_naming_them() {
        assert!(validate(&[one("A", "")]).is_err_and(|e| e.to_string().contains("requestor \"A\"")));
        assert!(validate(&[one("", "x")]).is_err());
        assert!(validate(&[one("A", "x"), one("A", "y")]).is_err());
        assert!(validate(&[one("A", "x"), one("B", "y")]).is_ok());
        assert!(!format!("{:?}", one("A", "hunter2")).contains("hunter2"));
        let mut bad_net = one("A", "x");
        bad_net.allow = Some(vec!["10.0.0.0/33".into()]);
        assert!(validate(&[bad_net]).is_err_and(|e| e.to_string().contains("allow")));
        let mut good_net = one("A", "x");
        good_net.allow = Some(vec!["10.0.0.0/8".into(), "2001:db8::1".into()]);
        assert!(validate(&[good_net.clone()]).is_ok());
        assert_eq!(allow_list(&good_net).unwrap().unwrap().len(), 2);
        for id in ["A\nERROR forged", "A ", " A", "A\u{85}", &"A".repeat(33)] {
            assert!(validate(&[one(id, "x")]).is_err(), "{id:?}");
        }
        assert!(validate(&[one(&"A".repeat(32), "x")]).is_ok());
        let mut ota = one("A", "x");
        ota.dialect = Some("ota2016b".into());
        assert!(validate(&[ota.clone()]).is_ok());
        assert_eq!(dialect(&ota).unwrap(), Some(Dialect::Ota2016b));
        ota.dialect = Some("OTA-2016\nB".into());
        assert!(validate(&[ota]).is_err_and(|e| e.to_string().contains("service, ota2016b") && !e.to_string().contains('\n')));
        let mut logged = one("A", "x");
        logged.log = Some("all".into());
        logged.log_sample = Some(0.25);
        assert_eq!(log(&logged).unwrap(), (Some(crate::txlog::Level::All), Some(crate::txlog::Sample::from_ppm(250_000))));
        logged.log = Some("everything".into());
        assert!(validate(&[logged.clone()]).is_err_and(|e| e.to_string().contains("log")));
        logged.log = None;
        logged.log_sample = Some(1.5);
        assert!(validate(&[logged]).is_err_and(|e| e.to_string().contains("log_sample")));
    }
}
