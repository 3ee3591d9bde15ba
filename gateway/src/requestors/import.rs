//! The `requestors` part of an import file: partners with their password in clear; only its
//! argon2id hash is stored.

use std::collections::{HashMap, HashSet};

use ipnet::IpNet;
use ota_messages::Dialect;
use serde::Deserialize;

use super::Role;
use crate::config::parse_net;
use crate::requestors::password::{MAX_PASSWORD, hash_password};
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
    /// True for a supplier (a hotel's system, which sends the supply notifications of its
    /// `hotels`), false for a distribution partner. Absent: a new requestor is a distribution
    /// partner, an existing one keeps its kind and hotels.
    #[serde(default)]
    pub supplier: Option<bool>,
    /// A supplier's hotels (their codes), replacing those it had; only with `supplier: true`.
    /// A hotel has one supplier: one owned by another is refused (release it first, e.g. by
    /// an entry of the other supplier earlier in the same file).
    #[serde(default)]
    pub hotels: Option<Vec<String>>,
    /// A supplier's notification URL: the gateway posts `OTA_HotelResNotifRQ` there for every
    /// booking change of its hotels (see gateway/README.md, "Bookings out to suppliers"); `""`
    /// removes it (the supplier then pulls). Absent: a new requestor has none, an existing one
    /// keeps its own.
    #[serde(default)]
    pub notify_url: Option<String>,
    /// A supplier's alert addresses: an e-mail to each for every new, modified and cancelled
    /// booking of its hotels (docs/hotels/alerts.md), replacing those it had; `[]` removes them.
    /// Absent: a new requestor has none, an existing one keeps its own.
    #[serde(default)]
    pub alert_emails: Option<Vec<String>>,
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
            .field("supplier", &self.supplier)
            .field("hotels", &self.hotels)
            .field("notify_url", &self.notify_url)
            .field("alert_emails", &self.alert_emails)
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
    /// The kind (and a supplier's hotels) to store; `None` leaves the stored one (a new
    /// requestor: a distribution partner).
    pub role: Option<Role>,
    /// The notification URL to store (`Some("")`: none); `None` leaves the stored one.
    pub notify_url: Option<String>,
    /// The alert addresses to store (`Some([])`: none); `None` leaves the stored ones.
    pub alert_emails: Option<Vec<String>>,
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
    let mut owners = HashMap::new();
    for r in requestors {
        let entry = format!("requestor {:?}", r.id);
        for (field, value) in
            [("id", &r.id), ("id_context", &r.id_context), ("name", &r.name), ("password", &r.password)]
        {
            if value.trim().is_empty() {
                return Err(ImportError::invalid(&entry, format!("{field} is empty")));
            }
        }
        if r.id.chars().count() > MAX_ID || r.id_context.chars().count() > MAX_ID {
            return Err(ImportError::invalid(&entry, format!("id and id_context have at most {MAX_ID} characters")));
        }
        for (field, value) in [("id", &r.id), ("id_context", &r.id_context)] {
            if value.trim() != value.as_str() || value.chars().any(char::is_control) {
                return Err(ImportError::invalid(
                    &entry,
                    format!("{field} has surrounding spaces or a control character"),
                ));
            }
        }
        if r.password.len() > MAX_PASSWORD {
            return Err(ImportError::invalid(&entry, format!("password has at most {MAX_PASSWORD} bytes")));
        }
        allow_list(r).map_err(|e| ImportError::invalid(&entry, e))?;
        if let Some(url) = r.notify_url.as_deref().filter(|u| !u.is_empty()) {
            check_notify_url(url).map_err(|e| ImportError::invalid(&entry, e))?;
        }
        if let Some(addresses) = &r.alert_emails {
            check_alert_emails(addresses).map_err(|e| ImportError::invalid(&entry, e))?;
        }
        dialect(r).map_err(|e| ImportError::invalid(&entry, e))?;
        if let Some(Role::Supplier { hotels }) = role(r).map_err(|e| ImportError::invalid(&entry, e))? {
            for hotel in hotels.iter() {
                if let Some(other) = owners.insert(hotel.clone(), r.id.as_str()) {
                    return Err(ImportError::invalid(
                        &entry,
                        format!(
                            "hotel {:?} is also given to supplier {other:?}: a hotel has one supplier",
                            LogText(hotel)
                        ),
                    ));
                }
            }
        }
        log(r).map_err(|e| ImportError::invalid(&entry, e))?;
        if !seen.insert(r.id.as_str()) {
            return Err(ImportError::invalid(&entry, "appears twice"));
        }
    }
    Ok(())
}

/// The allow-list of an import entry, parsed.
fn allow_list(r: &RequestorInput) -> Result<Option<Vec<IpNet>>, String> {
    r.allow
        .as_ref()
        .map(|nets| nets.iter().map(|n| parse_net(n).map_err(|e| format!("allow: {e}"))).collect())
        .transpose()
}

/// The longest hotel code (as the content's).
const MAX_HOTEL_CODE: usize = 32;

/// The kind of an import entry, checked: `None` when it gives none.
fn role(r: &RequestorInput) -> Result<Option<Role>, String> {
    match (r.supplier, &r.hotels) {
        (None, None) => Ok(None),
        (None | Some(false), Some(_)) => Err("hotels are for a supplier: add \"supplier\": true".into()),
        (Some(false), None) => Ok(Some(Role::Distributor)),
        (Some(true), hotels) => {
            let hotels = hotels.as_deref().unwrap_or_default();
            for h in hotels {
                check_hotel_code(h)?;
            }
            Ok(Some(Role::supplier(hotels.iter().cloned())))
        }
    }
}

/// Checks a supplier's hotel code: 1 to 32 characters, no spaces around, no control character.
pub fn check_hotel_code(code: &str) -> Result<(), String> {
    if code.is_empty()
        || code.chars().count() > MAX_HOTEL_CODE
        || code.trim() != code
        || code.chars().any(char::is_control)
    {
        return Err(format!(
            "hotel code {:?} is not 1 to {MAX_HOTEL_CODE} characters without surrounding spaces",
            LogText(code)
        ));
    }
    Ok(())
}

/// The dialect of an import entry, checked.
fn dialect(r: &RequestorInput) -> Result<Option<Dialect>, String> {
    r.dialect.as_deref().map(parse_dialect).transpose()
}

/// Checks a supplier's notification URL: `http://` or `https://` with a host (an `https://`
/// receiver's certificate is checked against the public roots and `serve --outbox-ca`).
pub fn check_notify_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("notify_url {:?} is not a URL: {e}", LogText(url)))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(format!("notify_url {:?} is not http:// or https:// with a host", LogText(url)));
    }
    Ok(())
}

/// The longest alert address (RFC 5321's path limit less its angle brackets).
pub const MAX_ALERT_EMAIL: usize = 254;

/// The most alert addresses a supplier has.
pub const MAX_ALERT_EMAILS: usize = 10;

/// Checks one alert address: one plain address (`frontdesk@hotel.example`, no display name, no
/// list), at most [`MAX_ALERT_EMAIL`] characters, no space or control character (CR/LF never
/// reach a mail header).
pub fn check_alert_email(address: &str) -> Result<(), String> {
    let shown = || LogText(address);
    if address.is_empty() || address.chars().count() > MAX_ALERT_EMAIL {
        return Err(format!("alert address {:?} is not 1 to {MAX_ALERT_EMAIL} characters", shown()));
    }
    if address.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!("alert address {:?} has a space or a control character", shown()));
    }
    if address.chars().any(|c| matches!(c, ',' | ';' | '<' | '>' | '"' | '(' | ')' | '[' | ']' | '\\')) {
        return Err(format!("alert address {:?} is not one plain address (no name, list or quotes)", shown()));
    }
    let Some((local, domain)) = address.split_once('@') else {
        return Err(format!("alert address {:?} has no @", shown()));
    };
    if local.is_empty() || local.len() > 64 || domain.is_empty() || domain.contains('@') {
        return Err(format!("alert address {:?} is not LOCAL@DOMAIN", shown()));
    }
    address
        .parse::<lettre::Address>()
        .map_err(|e| format!("alert address {:?} is not an e-mail address: {e}", shown()))?;
    Ok(())
}

/// Checks a supplier's alert addresses: each one ([`check_alert_email`]), none twice, at most
/// [`MAX_ALERT_EMAILS`].
pub fn check_alert_emails(addresses: &[String]) -> Result<(), String> {
    if addresses.len() > MAX_ALERT_EMAILS {
        return Err(format!("at most {MAX_ALERT_EMAILS} alert addresses"));
    }
    for (i, a) in addresses.iter().enumerate() {
        check_alert_email(a)?;
        if addresses[..i].iter().any(|b| b.eq_ignore_ascii_case(a)) {
            return Err(format!("alert address {:?} is given twice", LogText(a)));
        }
    }
    Ok(())
}

/// A dialect by its name; else the names there are.
pub fn parse_dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        format!("dialect {:?} is not one of: {}", LogText(name), names.join(", "))
    })
}

/// The log level and sample of an import entry, checked.
fn log(r: &RequestorInput) -> Result<(Option<crate::txlog::Level>, Option<crate::txlog::Sample>), String> {
    let level = r.log.as_deref().map(crate::txlog::Level::parse).transpose().map_err(|e| format!("log: {e}"))?;
    let sample = r
        .log_sample
        .map(|v| crate::txlog::Sample::parse(&v.to_string()))
        .transpose()
        .map_err(|e| format!("log_sample: {e}"))?;
    Ok((level, sample))
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
                let role = role(&r).map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e))?;
                let (log, log_sample) =
                    log(&r).map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e))?;
                Ok(HashedRequestor {
                    allow,
                    password_hash: hash_password(&r.password)
                        .map_err(|e| ImportError::invalid(format!("requestor {:?}", r.id), e.to_string()))?,
                    id: r.id,
                    id_context: r.id_context,
                    name: r.name,
                    active: r.active,
                    dialect,
                    rate: r.rate,
                    daily_quota: r.daily_quota,
                    role,
                    notify_url: r.notify_url,
                    alert_emails: r.alert_emails,
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
        RequestorInput {
            id: id.into(),
            id_context: "C".into(),
            name: "N".into(),
            password: pw.into(),
            active: true,
            allow: None,
            dialect: None,
            rate: None,
            daily_quota: None,
            supplier: None,
            hotels: None,
            notify_url: None,
            alert_emails: None,
            log: None,
            log_sample: None,
        }
    }

    #[test]
    fn an_alert_address_is_one_plain_address_without_cr_or_lf() {
        for good in ["frontdesk@hotel.example", "a.b+alerts@x.example.com", "res@localhost"] {
            assert!(check_alert_email(good).is_ok(), "{good}");
        }
        let long = format!("{}@example.com", "a".repeat(250));
        for bad in [
            "",
            "no-at",
            "a@b@c",
            "@x.example",
            "x@",
            "a@x.example\r\nBcc: evil@x.example",
            "a@x.example\nX: y",
            "a b@x.example",
            "Front Desk <a@x.example>",
            "a@x.example, b@x.example",
            "a@x.example;b@x.example",
            "\"q\"@x.example",
            long.as_str(),
        ] {
            assert!(check_alert_email(bad).is_err(), "{bad:?}");
        }
        let many: Vec<String> = (0..11).map(|i| format!("a{i}@x.example")).collect();
        assert!(check_alert_emails(&many).is_err());
        assert!(check_alert_emails(&many[..10]).is_ok());
        assert!(check_alert_emails(&["a@x.example".into(), "A@x.example".into()]).is_err());
        let mut entry = one("S", "x");
        entry.alert_emails = Some(vec!["a@x.example\r\nBcc: b@x.example".into()]);
        assert!(validate(&[entry]).is_err_and(|e| e.to_string().contains("alert address")));
        let mut entry = one("S", "x");
        entry.alert_emails = Some(vec!["a@x.example".into()]);
        assert!(validate(&[entry]).is_ok());
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
        assert!(
            validate(&[ota])
                .is_err_and(|e| e.to_string().contains("service, ota2016b") && !e.to_string().contains('\n'))
        );
        let mut logged = one("A", "x");
        logged.log = Some("all".into());
        logged.log_sample = Some(0.25);
        assert_eq!(
            log(&logged).unwrap(),
            (Some(crate::txlog::Level::All), Some(crate::txlog::Sample::from_ppm(250_000)))
        );
        logged.log = Some("everything".into());
        assert!(validate(&[logged.clone()]).is_err_and(|e| e.to_string().contains("log")));
        logged.log = None;
        logged.log_sample = Some(1.5);
        assert!(validate(&[logged]).is_err_and(|e| e.to_string().contains("log_sample")));
    }

    #[test]
    fn a_notification_url_is_http_or_https_with_a_host() {
        assert!(check_notify_url("http://127.0.0.1:9000/ota").is_ok());
        assert!(check_notify_url("https://pms.example.com/ota").is_ok());
        assert!(check_notify_url("ftp://x/y").is_err());
        assert!(check_notify_url("not a url").is_err());
        let bad = RequestorInput { notify_url: Some("mailto:a@b".into()), ..one("S", "x") };
        assert!(validate(&[bad]).is_err());
        assert!(
            validate(&[RequestorInput { notify_url: Some(String::new()), ..one("S", "x") }]).is_ok(),
            "empty: removes it"
        );
    }

    #[test]
    fn suppliers_own_their_hotels_alone() {
        let supplier = |id: &str, hotels: &[&str]| RequestorInput {
            supplier: Some(true),
            hotels: Some(hotels.iter().map(|h| h.to_string()).collect()),
            ..one(id, "x")
        };
        assert!(validate(&[supplier("S1", &["H1", "H2"]), supplier("S2", &["H3"])]).is_ok());
        assert_eq!(
            role(&supplier("S1", &["H2", "H1"])).unwrap(),
            Some(Role::supplier(["H1".to_string(), "H2".to_string()]))
        );
        let twice = validate(&[supplier("S1", &["H1"]), supplier("S2", &["H1"])]);
        assert!(twice.is_err_and(|e| e.to_string().contains("requestor \"S2\"") && e.to_string().contains("\"S1\"")));
        let hotels_of_a_distributor = RequestorInput { hotels: Some(vec!["H1".into()]), ..one("D", "x") };
        assert!(validate(&[hotels_of_a_distributor]).is_err_and(|e| e.to_string().contains("supplier")));
        for bad in ["", " H1", "H\n1", &"H".repeat(33)] {
            assert!(validate(&[supplier("S", &[bad])]).is_err(), "{bad:?}");
        }
        assert_eq!(role(&RequestorInput { supplier: Some(false), ..one("D", "x") }).unwrap(), Some(Role::Distributor));
        assert_eq!(role(&one("D", "x")).unwrap(), None);
    }
}
