//! Per-partner traffic limits: requests per second and requests per UTC day, per requestor,
//! checked after authentication (whose success is cached) and before the operation touches the
//! store, from memory only: a request over a limit costs no database work.
//!
//! - **Rate**: a GCRA (the "virtual scheduling" form of a token bucket) per requestor: at most
//!   `rate` requests per second in the long run, with a burst of up to one second's worth
//!   (`rate` requests) let through at once after a quiet second.
//! - **Daily quota**: admitted requests counted per requestor and UTC day, in memory; every
//!   gateway adds its counts to the database every `--traffic-flush-interval` (5 s) and
//!   reads the day's totals of
//!   every gateway back ([`Limiter::settle`]), so the quota is shared by the gateways (up to one
//!   flush interval late) and survives a restart.
//! - **Several gateways**: each gateway enforces the rate on its own, from its own memory
//!   (sharing it through the database would cost database work on every request). A partner
//!   spread over N gateways behind a balancer may get up to N × its rate; the operator sets the
//!   rate with that in mind (see gateway/README.md). The daily quota is shared (above).
//!
//! Over a limit, the request is answered with HTTP 429, `Retry-After` (whole seconds, at
//! least 1) and the operation's RS carrying one `Error` ([`too_many_requests`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use ota_messages::common::ErrorCode;

use crate::errors::Problem;
use crate::requestors::Requestor;

/// A request refused by a limit: the problem it is answered with and when to retry.
#[derive(Debug, Clone)]
pub struct Refused {
    /// The OTA problem of the answer ([`too_many_requests`]).
    pub problem: Box<Problem>,
    /// Whole seconds to wait before the next request can be admitted (at least 1).
    pub retry_after: u64,
    /// The limit: `rate`, `operation_rate` or `daily_quota` (the metrics' label).
    pub limit: &'static str,
}

/// The limits of one gateway: the state of each limited requestor (an entry per requestor
/// with a limit that has called, and one per operation with a rate of its own, so bounded by
/// the number of requestors and operations).
#[derive(Debug, Default)]
pub struct Limiter {
    /// By requestor id and operation (`""`: the requestor's own entry).
    by_requestor: Mutex<HashMap<(String, &'static str), Entry>>,
}

/// One requestor's state (or one operation's of a requestor: only `tat` is used).
#[derive(Debug, Clone)]
struct Entry {
    /// GCRA's theoretical arrival time: when the bucket is empty again.
    tat: Instant,
    /// The UTC day counted, and the requests admitted on it.
    day: NaiveDate,
    used: u32,
}

/// GCRA: the bucket's next theoretical arrival time when a request at `now` is admitted at
/// `rate` a second (a burst of `rate`), or the whole seconds to wait.
fn gcra(tat: Instant, now: Instant, rate: u32) -> Result<Instant, u64> {
    let rate = rate.max(1);
    let interval = Duration::from_secs(1) / rate;
    // The burst: `rate` requests at once, i.e. the bucket may run up to (rate - 1) intervals
    // ahead of now.
    let tolerance = interval * (rate - 1);
    let tat = tat.max(now);
    let ahead = tat - now;
    if ahead > tolerance {
        let wait = ahead - tolerance;
        return Err((wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1));
    }
    Ok(tat + interval)
}

impl Limiter {
    /// Admits a request of `requestor` to `operation` (its path without the slash) at `now`
    /// (monotonic) / `utc`, counting it, or says why not. A requestor without limits is
    /// admitted without taking the lock.
    pub fn admit(
        &self,
        requestor: &Requestor,
        operation: &'static str,
        now: Instant,
        utc: DateTime<Utc>,
    ) -> Result<(), Refused> {
        let limits = &requestor.limits;
        let op_rate = limits.per_operation.iter().find(|(o, _)| *o == operation).map(|(_, n)| *n);
        if limits.rate.is_none() && limits.daily_quota.is_none() && op_rate.is_none() {
            return Ok(());
        }
        let today = utc.date_naive();
        let Ok(mut map) = self.by_requestor.lock() else { return Ok(()) };
        let refused = |limit: &'static str, text: String, retry_after: u64| Refused {
            problem: Box::new(too_many_requests(&requestor.id, &text)),
            retry_after,
            limit,
        };
        let entry = map.entry((requestor.id.clone(), "")).or_insert(Entry { tat: now, day: today, used: 0 });
        if entry.day != today {
            entry.day = today;
            entry.used = 0;
        }
        if let Some(quota) = limits.daily_quota
            && entry.used >= quota
        {
            let midnight = today.succ_opt().and_then(|d| d.and_hms_opt(0, 0, 0)).map(|t| t.and_utc());
            let wait = midnight.map_or(86_400, |m| (m - utc).num_seconds().max(1) as u64);
            return Err(refused("daily_quota", format!("{quota} requests per UTC day"), wait));
        }
        let next = match limits.rate {
            Some(rate) => Some(
                gcra(entry.tat, now, rate)
                    .map_err(|wait| refused("rate", format!("{rate} requests per second"), wait))?,
            ),
            None => None,
        };
        if let Some(rate) = op_rate {
            let op_entry =
                map.entry((requestor.id.clone(), operation)).or_insert(Entry { tat: now, day: today, used: 0 });
            op_entry.tat = gcra(op_entry.tat, now, rate).map_err(|wait| {
                refused("operation_rate", format!("{rate} requests per second of {operation}"), wait)
            })?;
        }
        let Some(entry) = map.get_mut(&(requestor.id.clone(), "")) else { return Ok(()) };
        if let Some(tat) = next {
            entry.tat = tat;
        }
        entry.used = entry.used.saturating_add(1);
        Ok(())
    }
}

impl Limiter {
    /// Takes every gateway's count of `day` into the daily quotas: each requestor's count
    /// becomes `stored` (its admitted requests of the day in the database, this gateway's
    /// included) plus `pending` (this gateway's not stored yet). Called after each flush of
    /// the look-to-book counts and when the gateway starts.
    pub fn settle(&self, day: NaiveDate, stored: &[(String, i64)], pending: impl Fn(&str) -> i64) {
        let Ok(mut map) = self.by_requestor.lock() else { return };
        let now = Instant::now();
        for (id, _) in stored {
            map.entry((id.clone(), "")).or_insert(Entry { tat: now, day, used: 0 });
        }
        for ((id, operation), entry) in map.iter_mut() {
            if entry.day != day || !operation.is_empty() {
                continue;
            }
            let total = stored.iter().find(|(s, _)| s == id).map_or(0, |(_, n)| *n) + pending(id);
            entry.used = u32::try_from(total.max(0)).unwrap_or(u32::MAX);
        }
    }
}

/// The answer to a request over a limit: Type 3 (business rule: the partner's agreed traffic)
/// with Code 172 "Requested action not possible" (OTA's code list has no code of its own for
/// too many requests, and this is neither a system failure, Type 12, nor an authentication
/// failure, Type 4); the text names the limit and that each gateway enforces it.
pub fn too_many_requests(requestor: &str, limit: &str) -> Problem {
    Problem::biz(
        ErrorCode::RequestedActionNotPossible,
        format!(
            "Too many requests: requestor {requestor} may send {limit} to this gateway; retry after the time in the Retry-After header."
        ),
    )
}

/// A rate as `requestor set --rate` takes it: `N`, `N/s`, or `off` (0).
pub fn parse_rate(text: &str) -> Result<u32, String> {
    if text == "off" {
        return Ok(0);
    }
    let n = text.strip_suffix("/s").unwrap_or(text);
    n.parse::<u32>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{text:?} is not a rate: give N or N/s (N > 0), or off"))
}

/// A per-operation rate as `requestor set --rate-for` takes it: `OPERATION=N`, `OPERATION=N/s`
/// or `OPERATION=off` (0), the operation by its path without the slash (`hotelavailability`).
pub fn parse_rate_for(text: &str) -> Result<(&'static str, u32), String> {
    let (op, rate) = text.split_once('=').ok_or_else(|| format!("{text:?} is not OPERATION=N"))?;
    Ok((crate::shared::context::operation_name(op)?, parse_rate(rate)?))
}

/// A daily quota as `requestor set --daily-quota` takes it: `N`, or `off` (0).
pub fn parse_quota(text: &str) -> Result<u32, String> {
    if text == "off" {
        return Ok(0);
    }
    text.parse::<u32>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{text:?} is not a quota: give N (N > 0), or off"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::requestors::Limits;

    fn partner(rate: Option<u32>, daily_quota: Option<u32>) -> Requestor {
        Requestor {
            id: "P".into(),
            id_context: "C".into(),
            name: "N".into(),
            instance: None,
            dialect: ota_messages::Dialect::Service,
            limits: Limits { rate, daily_quota, per_operation: vec![] },
            role: crate::requestors::Role::Distributor,
        }
    }

    #[test]
    fn the_rate_admits_a_burst_then_one_per_interval() {
        let l = Limiter::default();
        let p = partner(Some(10), None);
        let t0 = Instant::now();
        let utc = Utc::now();
        for _ in 0..10 {
            assert!(l.admit(&p, "hotelnbc", t0, utc).is_ok());
        }
        let refused = l.admit(&p, "hotelnbc", t0, utc).unwrap_err();
        assert_eq!(refused.retry_after, 1);
        assert!(l.admit(&p, "hotelnbc", t0 + Duration::from_millis(100), utc).is_ok());
        assert!(l.admit(&p, "hotelnbc", t0 + Duration::from_millis(100), utc).is_err());
        // Over 10 s of constant pressure: the burst plus 10 per second.
        let mut admitted = 0;
        for ms in (101..10_100).step_by(5) {
            admitted += usize::from(l.admit(&p, "hotelnbc", t0 + Duration::from_millis(ms), utc).is_ok());
        }
        assert!((99..=101).contains(&admitted), "{admitted}");
    }

    #[test]
    fn the_daily_quota_counts_admitted_requests_and_starts_again_the_next_day() {
        let l = Limiter::default();
        let p = partner(None, Some(3));
        let now = Instant::now();
        let day = "2030-05-01T23:59:30Z".parse::<DateTime<Utc>>().unwrap();
        for _ in 0..3 {
            assert!(l.admit(&p, "hotelnbc", now, day).is_ok());
        }
        assert_eq!(l.admit(&p, "hotelnbc", now, day).unwrap_err().retry_after, 30);
        let next = "2030-05-02T00:00:01Z".parse::<DateTime<Utc>>().unwrap();
        assert!(l.admit(&p, "hotelnbc", now, next).is_ok());
        assert!(Limiter::default().admit(&partner(None, None), "hotelnbc", now, day).is_ok());
    }

    #[test]
    fn settling_takes_every_gateways_count_of_the_day() {
        let l = Limiter::default();
        let p = partner(None, Some(10));
        let now = Instant::now();
        let utc = "2030-05-01T12:00:00Z".parse::<DateTime<Utc>>().unwrap();
        assert!(l.admit(&p, "hotelnbc", now, utc).is_ok());
        // The database says 8 (this gateway's 1 among them), 1 more is pending here.
        l.settle(utc.date_naive(), &[("P".into(), 8)], |_| 1);
        assert!(l.admit(&p, "hotelnbc", now, utc).is_ok(), "the 10th");
        assert!(l.admit(&p, "hotelnbc", now, utc).is_err(), "the 11th");
        // A gateway that starts knows the day's count before its first request.
        let fresh = Limiter::default();
        fresh.settle(utc.date_naive(), &[("P".into(), 10)], |_| 0);
        assert!(fresh.admit(&p, "hotelnbc", now, utc).is_err());
    }

    #[test]
    fn an_operations_rate_holds_that_operation_only() {
        let l = Limiter::default();
        let mut p = partner(Some(100), None);
        p.limits.per_operation = vec![("hotelavailability", 2)];
        let (t0, utc) = (Instant::now(), Utc::now());
        assert!(l.admit(&p, "hotelavailability", t0, utc).is_ok());
        assert!(l.admit(&p, "hotelavailability", t0, utc).is_ok());
        let refused = l.admit(&p, "hotelavailability", t0, utc).unwrap_err();
        assert_eq!((refused.limit, refused.retry_after), ("operation_rate", 1));
        for _ in 0..50 {
            assert!(l.admit(&p, "hotelnbc", t0, utc).is_ok(), "another operation");
        }
        assert!(l.admit(&p, "hotelavailability", t0 + Duration::from_millis(500), utc).is_ok());
    }

    #[test]
    fn settings_parse() {
        assert_eq!(parse_rate("20/s"), Ok(20));
        assert_eq!(parse_rate("20"), Ok(20));
        assert_eq!(parse_rate("off"), Ok(0));
        assert!(parse_rate("0").is_err() && parse_rate("-1").is_err() && parse_rate("x/s").is_err());
        assert_eq!(parse_rate_for("hotelavailability=5/s"), Ok(("hotelavailability", 5)));
        assert_eq!(parse_rate_for("activitysearch=off"), Ok(("activitysearch", 0)));
        assert!(parse_rate_for("nothing=5").is_err() && parse_rate_for("hotelnbc").is_err());
        assert_eq!(parse_quota("5000"), Ok(5000));
        assert_eq!(parse_quota("off"), Ok(0));
        assert!(parse_quota("0").is_err());
    }
}
