//! What the operators see of the traffic — `ota-gateway traffic` and the console ask the same
//! question ([`traffic`]) and get the same values: over a [`Window`] (per minute over the last
//! hour, per hour over 7 days, per day over 60 days), optionally of one partner and one
//! operation, the series per step, a line per partner and operation (the worst first: the
//! highest error share, then the most errors) and the OTA errors by Type and Code (the most
//! frequent first). [`today`] asks the same rollups for each partner's figures of the current
//! UTC day (the console's Partners page, `ota-gateway requestor list`). [`Recent`] keeps the
//! console's answers for a flush interval, so that several operators looking at the same window
//! read the rollups once.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::repo::{self, Selection};
use super::{Counts, UNKNOWN};
use crate::store::{Store, StoreError};

/// The period shown and its step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    /// The last hour, per minute.
    Hour,
    /// The last 7 days, per hour.
    Week,
    /// The last 60 days, per UTC day.
    Days,
}

impl Window {
    /// Its name: `hour`, `week`, `days`.
    pub fn as_str(self) -> &'static str {
        match self {
            Window::Hour => "hour",
            Window::Week => "week",
            Window::Days => "days",
        }
    }

    /// A window by its name.
    pub fn parse(name: &str) -> Option<Window> {
        match name {
            "hour" => Some(Window::Hour),
            "week" => Some(Window::Week),
            "days" => Some(Window::Days),
            _ => None,
        }
    }

    /// Its step, in seconds.
    pub fn step(self) -> i64 {
        match self {
            Window::Hour => 60,
            Window::Week => 3600,
            Window::Days => 86_400,
        }
    }

    /// How many steps it shows (the current one included).
    pub fn steps(self) -> i64 {
        match self {
            Window::Hour => 60,
            Window::Week => 7 * 24,
            Window::Days => 60,
        }
    }
}

/// Which traffic: every partner's or one's (`Some("")`: the unknown partner's, the requests
/// whose requestor is not known), every operation's or one's (its path without the slash).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    /// One partner (a requestor id; `""` the unknown partner).
    pub partner: Option<String>,
    /// One operation (`hotelavail`, …).
    pub operation: Option<String>,
}

/// The figures of a step, a line or the whole window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    /// Requests answered.
    pub requests: i64,
    /// Answered with Success.
    pub success: i64,
    /// Answered with Success and Warnings.
    pub warning: i64,
    /// Not answered with Success or Warning (OTA errors, and HTTP errors without an OTA answer).
    pub errors: i64,
    /// `errors` / `requests` (0 without requests).
    pub error_share: f64,
    /// OTA answers with Errors.
    pub ota_errors: i64,
    /// HTTP 4xx answers other than 429.
    pub http_4xx: i64,
    /// HTTP 5xx answers.
    pub http_5xx: i64,
    /// HTTP 429 answers (a partner's limits).
    pub http_429: i64,
    /// The median latency, in ms: the upper bound of its bucket (`None` without requests).
    pub p50_ms: Option<u64>,
    /// The 99th percentile latency, in ms, likewise.
    pub p99_ms: Option<u64>,
    /// Activity searches and availability checks.
    pub looks: i64,
    /// Quotes.
    pub quotes: i64,
    /// Bookings.
    pub bookings: i64,
    /// Looks per booking (`None` without bookings).
    pub looks_per_booking: Option<f64>,
}

impl From<&Counts> for Figures {
    fn from(c: &Counts) -> Self {
        Figures {
            requests: c.requests,
            success: c.success,
            warning: c.warning,
            errors: c.errors(),
            error_share: c.error_share(),
            ota_errors: c.ota_errors,
            http_4xx: c.http_4xx,
            http_5xx: c.http_5xx,
            http_429: c.http_429,
            p50_ms: c.percentile_ms(0.50),
            p99_ms: c.percentile_ms(0.99),
            looks: c.looks,
            quotes: c.quotes,
            bookings: c.bookings,
            looks_per_booking: c.looks_per_booking(),
        }
    }
}

/// One step of the series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The step's start (UTC; in JSON as RFC 3339, `2030-05-01T10:00:00Z`).
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    /// Its figures.
    #[serde(flatten)]
    pub figures: Figures,
}

/// OTA errors of one Type and Code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorCount {
    /// The OTA error Type (`3`: business rule, …).
    pub error_type: String,
    /// The OTA error Code (`-`: none).
    pub error_code: String,
    /// How many answers had it first.
    pub count: i64,
}

/// One partner's traffic on one operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    /// The partner (a requestor id; `None`: the unknown partner).
    pub partner: Option<String>,
    /// The operation.
    pub operation: String,
    /// Its figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// Its OTA errors, the most frequent first.
    pub error_codes: Vec<ErrorCount>,
}

/// The traffic of a window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Traffic {
    /// The window.
    pub window: Window,
    /// The step, in seconds.
    pub step_seconds: i64,
    /// The first step's start.
    #[serde(serialize_with = "rfc3339")]
    pub from: DateTime<Utc>,
    /// The end of the last step (the current one).
    #[serde(serialize_with = "rfc3339")]
    pub to: DateTime<Utc>,
    /// The partner shown (`None`: every one; `Some("")`: the unknown partner).
    pub partner: Option<String>,
    /// The operation shown (`None`: every one).
    pub operation: Option<String>,
    /// The whole window's figures.
    pub total: Figures,
    /// Every step, oldest first (steps without traffic included, with zeros).
    pub series: Vec<Point>,
    /// A line per partner and operation, the worst first (error share, then errors, then
    /// requests).
    pub lines: Vec<Line>,
    /// The OTA errors by Type and Code, the most frequent first.
    pub error_codes: Vec<ErrorCount>,
}

/// The traffic of `window` ending with the step of `now`, as every gateway has stored it.
pub async fn traffic(
    store: &Store,
    window: Window,
    filter: &Filter,
    now: DateTime<Utc>,
) -> Result<Traffic, StoreError> {
    let step = window.step();
    let current = now.timestamp().div_euclid(step) * step;
    let from = current - step * (window.steps() - 1);
    // The lines and error codes add up the window's rows: its whole UTC days are read from
    // the day rollups (a week per hour: 6 or 7 days' rows instead of 24 each).
    let day = Window::Days.step();
    let (first_day, last_day) = ((from + day - 1).div_euclid(day) * day, (current + step).div_euclid(day) * day);
    let selection = Selection {
        step,
        from,
        only_partner: filter.partner.is_some(),
        partner: filter.partner.clone().unwrap_or_default(),
        operation: filter.operation.clone().unwrap_or_default(),
        coarse: (step < day && first_day < last_day).then_some((day, first_day, last_day)),
    };
    let (series, table, errors) = store
        .read(move |c| {
            Box::pin(async move {
                let series = repo::series(c, &selection).await?;
                let table = repo::table(c, &selection).await?;
                let errors = repo::errors(c, &selection).await?;
                Ok::<_, StoreError>((series, table, errors))
            })
        })
        .await?;
    let time = |secs: i64| DateTime::from_timestamp(secs, 0).unwrap_or_default();

    let mut total = Counts::default();
    let by_step: HashMap<i64, Counts> = series.into_iter().map(|r| (r.0, r.1)).collect();
    let series = (0..window.steps())
        .map(|i| {
            let at = from + i * step;
            let counts = by_step.get(&at).cloned().unwrap_or_default();
            total.add(&counts);
            Point { at: time(at), figures: Figures::from(&counts) }
        })
        .collect();

    let mut per_line: HashMap<(String, String), Vec<ErrorCount>> = HashMap::new();
    let mut overall: HashMap<(String, String), i64> = HashMap::new();
    for e in errors {
        *overall.entry((e.error_type.clone(), e.error_code.clone())).or_default() += e.n;
        per_line.entry((e.partner, e.operation)).or_default().push(ErrorCount {
            error_type: e.error_type,
            error_code: e.error_code,
            count: e.n,
        });
    }
    let mut lines: Vec<Line> = table
        .into_iter()
        .map(|r| {
            let mut error_codes = per_line.remove(&(r.0.clone(), r.1.clone())).unwrap_or_default();
            sort_errors(&mut error_codes);
            Line { partner: (r.0 != UNKNOWN).then_some(r.0), operation: r.1, figures: Figures::from(&r.2), error_codes }
        })
        .collect();
    lines.sort_by(|a, b| {
        b.figures
            .error_share
            .total_cmp(&a.figures.error_share)
            .then(b.figures.errors.cmp(&a.figures.errors))
            .then(b.figures.requests.cmp(&a.figures.requests))
            .then_with(|| (&a.partner, &a.operation).cmp(&(&b.partner, &b.operation)))
    });
    let mut error_codes: Vec<ErrorCount> = overall
        .into_iter()
        .map(|((error_type, error_code), count)| ErrorCount { error_type, error_code, count })
        .collect();
    sort_errors(&mut error_codes);
    Ok(Traffic {
        window,
        step_seconds: step,
        from: time(from),
        to: time(current + step),
        partner: filter.partner.clone(),
        operation: filter.operation.clone(),
        total: Figures::from(&total),
        series,
        lines,
        error_codes,
    })
}

/// The most answers [`Recent`] keeps (the filters come from a form: any text).
pub const RECENT_ANSWERS: usize = 64;

/// [`traffic`]'s answers, each kept for a while (the console's: several operators, or a screen
/// on the wall, looking at the same window read the rollups once a while, not once a page — a
/// week's page reads ~27,000 rows). An answer is given again only while it is younger than
/// `keep` (the console's: `--traffic-flush-interval`, how often every gateway adds its counts
/// anyway) and its window's current step is still the current one (a new minute, hour or day is
/// read at once). At most [`RECENT_ANSWERS`] are kept.
#[derive(Debug)]
pub struct Recent {
    keep: Duration,
    answers: Mutex<HashMap<(Window, Filter), Kept>>,
}

/// An answer and when it was read.
#[derive(Debug)]
struct Kept {
    read: Instant,
    step: i64,
    traffic: Arc<Traffic>,
}

impl Recent {
    /// Answers kept `keep` each.
    pub fn new(keep: Duration) -> Recent {
        Recent { keep, answers: Mutex::new(HashMap::new()) }
    }

    /// [`traffic`], or the same question's answer read less than `keep` ago in the same step.
    pub async fn traffic(
        &self,
        store: &Store,
        window: Window,
        filter: &Filter,
        now: DateTime<Utc>,
    ) -> Result<Arc<Traffic>, StoreError> {
        let key = (window, filter.clone());
        let step = now.timestamp().div_euclid(window.step());
        let fresh = |k: &Kept| k.read.elapsed() < self.keep && k.step == step;
        if let Ok(answers) = self.answers.lock()
            && let Some(kept) = answers.get(&key).filter(|k| fresh(k))
        {
            return Ok(kept.traffic.clone());
        }
        let answer = Arc::new(traffic(store, window, filter, now).await?);
        if let Ok(mut answers) = self.answers.lock() {
            if answers.len() >= RECENT_ANSWERS {
                answers.retain(|_, k| fresh(k));
                if answers.len() >= RECENT_ANSWERS {
                    answers.clear();
                }
            }
            answers.insert(key, Kept { read: Instant::now(), step, traffic: answer.clone() });
        }
        Ok(answer)
    }
}

/// Each known partner's figures of the current UTC day (the day of `now`), as every gateway
/// has stored them: the day rollups of [`traffic`]'s lines (`Window::Days`, its last step),
/// added up over the operations, by requestor id. A partner without traffic today is absent;
/// the unknown partner is left out.
pub async fn today(store: &Store, now: DateTime<Utc>) -> Result<BTreeMap<String, Figures>, StoreError> {
    let step = Window::Days.step();
    let selection = Selection {
        step,
        from: now.timestamp().div_euclid(step) * step,
        only_partner: false,
        partner: String::new(),
        operation: String::new(),
        coarse: None,
    };
    let table = store.read(move |c| Box::pin(async move { repo::table(c, &selection).await })).await?;
    let mut per_partner: BTreeMap<String, Counts> = BTreeMap::new();
    for line in table.into_iter().filter(|l| l.0 != UNKNOWN) {
        per_partner.entry(line.0).or_default().add(&line.2);
    }
    Ok(per_partner.into_iter().map(|(p, c)| (p, Figures::from(&c))).collect())
}

/// A time in JSON: RFC 3339 in UTC, whole seconds.
fn rfc3339<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn sort_errors(errors: &mut [ErrorCount]) {
    errors.sort_by(|a, b| {
        b.count.cmp(&a.count).then_with(|| (&a.error_type, &a.error_code).cmp(&(&b.error_type, &b.error_code)))
    });
}
