//! All SQL of the traffic rollups (`traffic`, `traffic_errors`: migrations `0022_traffic.sql`
//! on SQLite, `0019_traffic.sql` on PostgreSQL).

use std::sync::LazyLock;

use super::{BUCKETS, Counts};
use crate::store::{Conn, FromRow, Param, Row, StoreError};

/// The counted columns, in the order of [`Counts`]' fields and then the latency buckets.
static COLUMNS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut out: Vec<String> = [
        "requests",
        "success",
        "warning",
        "ota_errors",
        "http_4xx",
        "http_5xx",
        "http_429",
        "looks",
        "quotes",
        "bookings",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    out.extend((0..BUCKETS).map(|i| format!("l{i:02}")));
    out
});

/// How many counted columns there are.
const COUNTED: usize = 10 + BUCKETS;

fn values(c: &Counts) -> [i64; COUNTED] {
    let mut out = [0; COUNTED];
    let head = [
        c.requests,
        c.success,
        c.warning,
        c.ota_errors,
        c.http_4xx,
        c.http_5xx,
        c.http_429,
        c.looks,
        c.quotes,
        c.bookings,
    ];
    out[..10].copy_from_slice(&head);
    out[10..].copy_from_slice(&c.latency);
    out
}

/// Reads the counted columns from column `first` on.
fn counts_at(row: &Row<'_>, first: usize) -> Result<Counts, StoreError> {
    let mut v = [0i64; COUNTED];
    for (i, slot) in v.iter_mut().enumerate() {
        *slot = row.get(first + i)?;
    }
    let mut latency = [0; BUCKETS];
    latency.copy_from_slice(&v[10..]);
    Ok(Counts {
        requests: v[0],
        success: v[1],
        warning: v[2],
        ota_errors: v[3],
        http_4xx: v[4],
        http_5xx: v[5],
        http_429: v[6],
        looks: v[7],
        quotes: v[8],
        bookings: v[9],
        latency,
    })
}

static ADD: LazyLock<String> = LazyLock::new(|| {
    let cols = COLUMNS.join(", ");
    let params: Vec<String> = (5..5 + COUNTED).map(|i| format!("${i}")).collect();
    let sets: Vec<String> = COLUMNS.iter().map(|c| format!("{c} = traffic.{c} + excluded.{c}")).collect();
    format!(
        "INSERT INTO traffic (step, at, partner, operation, {cols}) VALUES ($1, $2, $3, $4, {}) ON CONFLICT (step, at, partner, operation) DO UPDATE SET {}",
        params.join(", "),
        sets.join(", ")
    )
});

/// Adds `counts` to a row of a rollup (`step` seconds from `at`, Unix seconds).
pub(crate) async fn add(
    c: &mut Conn<'_>,
    step: i64,
    at: i64,
    partner: &str,
    operation: &str,
    counts: &Counts,
) -> Result<(), StoreError> {
    let v = values(counts);
    let mut params: Vec<&dyn Param> = vec![&step, &at, &partner, &operation];
    params.extend(v.iter().map(|n| n as &dyn Param));
    c.execute(&ADD, &params).await?;
    Ok(())
}

/// Adds `n` OTA errors of `(Type, Code)` to a row of a rollup.
pub(crate) async fn add_error(
    c: &mut Conn<'_>,
    step: i64,
    at: i64,
    partner: &str,
    operation: &str,
    (error_type, error_code): (&str, &str),
    n: i64,
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO traffic_errors (step, at, partner, operation, error_type, error_code, n) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (step, at, partner, operation, error_type, error_code) DO UPDATE SET n = traffic_errors.n + excluded.n",
        &[&step, &at, &partner, &operation, &error_type, &error_code, &n],
    )
    .await?;
    Ok(())
}

/// What the reads select: one step's rows from `from` (Unix seconds, included), of one
/// partner (`partner`; `""` the unknown one) when `only_partner`, of one operation unless
/// `operation` is empty.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    /// The step, in seconds.
    pub step: i64,
    /// The first row's start.
    pub from: i64,
    /// Whether to keep one partner's rows.
    pub only_partner: bool,
    /// That partner.
    pub partner: String,
    /// One operation, or every one (`""`).
    pub operation: String,
    /// What the sums over the whole selection ([`table`], [`errors`]) read of a coarser step
    /// instead: that step's rows from the first to the second time (excluded), and this
    /// step's rows before and after. Each request is added to every step's rollup at once (a
    /// day's row is the sum of its hours' rows), so the sums are the same with far fewer rows
    /// read (a week per hour: 6 days' rows instead of 144 hours'). `None`: this step's rows only.
    pub coarse: Option<(i64, i64, i64)>,
}

const WHERE: &str =
    "step = $1 AND at >= $2 AND ($3 = CAST(0 AS BIGINT) OR partner = $4) AND ($5 = '' OR operation = $5)";

/// [`WHERE`] for the sums over the whole selection: this step's rows before `$6` and from `$7`
/// on, and step `$8`'s rows from `$6` to `$7` (see [`Selection::coarse`]). Three ranges of the
/// primary key.
const WHERE_SUMS: &str =
    "((step = $1 AND at >= $2 AND at < $6) OR (step = $8 AND at >= $6 AND at < $7) OR (step = $1 AND at >= $7))
     AND ($3 = CAST(0 AS BIGINT) OR partner = $4) AND ($5 = '' OR operation = $5)";

fn sums() -> String {
    COLUMNS.iter().map(|c| format!("CAST(sum({c}) AS BIGINT)")).collect::<Vec<_>>().join(", ")
}

static SERIES: LazyLock<String> =
    LazyLock::new(|| format!("SELECT at, {} FROM traffic WHERE {WHERE} GROUP BY at ORDER BY at", sums()));

static TABLE: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT partner, operation, {} FROM traffic WHERE {WHERE} GROUP BY partner, operation", sums())
});

static TABLE_SPLIT: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT partner, operation, {} FROM traffic WHERE {WHERE_SUMS} GROUP BY partner, operation", sums())
});

const ERRORS: &str =
    "SELECT partner, operation, error_type, error_code, CAST(sum(n) AS BIGINT) FROM traffic_errors WHERE";
const ERRORS_GROUP: &str = "GROUP BY partner, operation, error_type, error_code";

/// A step's counts.
pub(crate) struct AtRow(pub i64, pub Counts);

impl FromRow for AtRow {
    fn from_row(row: &Row<'_>) -> Result<Self, StoreError> {
        Ok(AtRow(row.get(0)?, counts_at(row, 1)?))
    }
}

/// A partner's and operation's counts.
pub(crate) struct LineRow(pub String, pub String, pub Counts);

impl FromRow for LineRow {
    fn from_row(row: &Row<'_>) -> Result<Self, StoreError> {
        Ok(LineRow(row.get(0)?, row.get(1)?, counts_at(row, 2)?))
    }
}

crate::store::row! {
    /// A partner's and operation's OTA errors of one Type and Code.
    pub(crate) struct ErrorRow { partner: String, operation: String, error_type: String, error_code: String, n: i64 }
}

fn selection_params(s: &Selection) -> (i64, &str, &str) {
    (i64::from(s.only_partner), s.partner.as_str(), s.operation.as_str())
}

/// `$6`, `$7`, `$8` of [`WHERE_SUMS`] (`None`: no coarser step, [`WHERE`] alone).
fn coarse_params(s: &Selection) -> Option<(i64, i64, i64)> {
    match s.coarse {
        Some((step, from, to)) if from >= s.from && to > from => Some((from, to, step)),
        _ => None,
    }
}

/// The selected rows added up per step, by step.
pub(crate) async fn series(c: &mut Conn<'_>, s: &Selection) -> Result<Vec<AtRow>, StoreError> {
    let (only, partner, operation) = selection_params(s);
    c.query(&SERIES, &[&s.step, &s.from, &only, &partner, &operation]).await
}

/// The selected rows added up per partner and operation.
pub(crate) async fn table(c: &mut Conn<'_>, s: &Selection) -> Result<Vec<LineRow>, StoreError> {
    let (only, partner, operation) = selection_params(s);
    match coarse_params(s) {
        Some((from, to, coarse)) => {
            c.query(&TABLE_SPLIT, &[&s.step, &s.from, &only, &partner, &operation, &from, &to, &coarse]).await
        }
        None => c.query(&TABLE, &[&s.step, &s.from, &only, &partner, &operation]).await,
    }
}

/// The selected OTA errors added up per partner, operation, Type and Code.
pub(crate) async fn errors(c: &mut Conn<'_>, s: &Selection) -> Result<Vec<ErrorRow>, StoreError> {
    let (only, partner, operation) = selection_params(s);
    match coarse_params(s) {
        Some((from, to, coarse)) => {
            c.query(
                &format!("{ERRORS} {WHERE_SUMS} {ERRORS_GROUP}"),
                &[&s.step, &s.from, &only, &partner, &operation, &from, &to, &coarse],
            )
            .await
        }
        None => {
            c.query(&format!("{ERRORS} {WHERE} {ERRORS_GROUP}"), &[&s.step, &s.from, &only, &partner, &operation]).await
        }
    }
}

/// Deletes at most `batch` rows of each table of `step` that start before `before`; how many.
pub(crate) async fn purge(c: &mut Conn<'_>, step: i64, before: i64, batch: i64) -> Result<u64, StoreError> {
    let rows = c
        .execute(
            "DELETE FROM traffic WHERE (step, at, partner, operation) IN (SELECT step, at, partner, operation FROM traffic WHERE step = $1 AND at < $2 LIMIT $3)",
            &[&step, &before, &batch],
        )
        .await?;
    let errors = c
        .execute(
            "DELETE FROM traffic_errors WHERE (step, at, partner, operation, error_type, error_code) IN (SELECT step, at, partner, operation, error_type, error_code FROM traffic_errors WHERE step = $1 AND at < $2 LIMIT $3)",
            &[&step, &before, &batch],
        )
        .await?;
    Ok(rows.max(errors))
}
