//! All SQL of requestors.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, Utc};
use ipnet::IpNet;
use ota_messages::Dialect;

use super::import::HashedRequestor;
use super::{Limits, Role, StoredRequestor};
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};
use crate::txlog::{Level, Policy, Sample};

row! {
    /// A `requestor` row.
    pub(crate) struct RequestorRow { id: String, id_context: String, name: String, password_hash: String, active: bool, dialect: String, rate_per_second: Option<i64>, daily_quota: Option<i64>, rate_for: String, kind: String, notify_url: Option<String>, alert_emails: Option<String>, log_level: String, log_sample_ppm: i64, revision: i64 }
}

row! {
    /// A `supplier_hotel` row.
    pub(crate) struct SupplierHotelRow { requestor_id: String, hotel_code: String }
}

row! {
    /// A `requestor_allow` row.
    pub(crate) struct AllowRow { requestor_id: String, network: String }
}

/// Every requestor, with its allow-list.
pub(crate) async fn load_all(c: &mut Conn<'_>) -> Result<Vec<StoredRequestor>, StoreError> {
    let rows: Vec<RequestorRow> =
        c.query("SELECT id, id_context, name, password_hash, active, dialect, rate_per_second, daily_quota, rate_for, kind, notify_url, alert_emails, log_level, log_sample_ppm, revision FROM requestor ORDER BY id", &[]).await?;
    let hotel_rows: Vec<SupplierHotelRow> =
        c.query("SELECT requestor_id, hotel_code FROM supplier_hotel ORDER BY requestor_id, hotel_code", &[]).await?;
    let mut hotels: HashMap<String, Vec<String>> = HashMap::new();
    for h in hotel_rows {
        hotels.entry(h.requestor_id).or_default().push(h.hotel_code);
    }
    let allow_rows: Vec<AllowRow> =
        c.query("SELECT requestor_id, network FROM requestor_allow ORDER BY requestor_id, network", &[]).await?;
    let mut allow: HashMap<String, Vec<IpNet>> = HashMap::new();
    for a in allow_rows {
        let net = a.network.parse::<IpNet>().map_err(|_| {
            StoreError::Data(format!(
                "requestor_allow: {:?} of requestor {:?} is not a network",
                a.network, a.requestor_id
            ))
        })?;
        allow.entry(a.requestor_id).or_default().push(net);
    }
    rows.into_iter()
        .map(|r| {
            let dialect = Dialect::from_name(&r.dialect).ok_or_else(|| {
                StoreError::Data(format!("requestor {:?}: dialect {:?} is not one this gateway knows", r.id, r.dialect))
            })?;
            let limits = limits_of(&r.id, r.rate_per_second, r.daily_quota, &r.rate_for)?;
            let role = match r.kind.as_str() {
                "distributor" => Role::Distributor,
                "supplier" => Role::supplier(hotels.remove(&r.id).unwrap_or_default()),
                other => {
                    return Err(StoreError::Data(format!(
                        "requestor {:?}: kind {other:?} is neither distributor nor supplier",
                        r.id
                    )));
                }
            };
            let log = log_policy_of(&r.id, &r.log_level, r.log_sample_ppm)?;
            Ok(StoredRequestor {
                role,
                log,
                limits,
                allow: allow.remove(&r.id).unwrap_or_default(),
                id: r.id,
                id_context: r.id_context,
                name: r.name,
                password_hash: r.password_hash,
                active: r.active,
                dialect,
                notify_url: r.notify_url,
                alert_emails: split_alert_emails(r.alert_emails.as_deref()),
                revision: r.revision,
            })
        })
        .collect()
}

row! {
    /// The limit columns of a `requestor` row.
    pub(crate) struct LimitsRow { rate_per_second: Option<i64>, daily_quota: Option<i64>, rate_for: String }
}

/// The limits of stored columns (a value out of range is a data error, not no limit).
fn limits_of(id: &str, rate: Option<i64>, daily_quota: Option<i64>, rate_for: &str) -> Result<Limits, StoreError> {
    let positive = |what: &str, v: Option<i64>| {
        v.map(|n| {
            u32::try_from(n)
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| StoreError::Data(format!("requestor {id:?}: {what} {n} is out of range")))
        })
        .transpose()
    };
    let per_operation = crate::shared::context::parse_rates_for(rate_for)
        .map_err(|e| StoreError::Data(format!("requestor {id:?}: rate_for: {e}")))?;
    Ok(Limits {
        rate: positive("rate_per_second", rate)?,
        daily_quota: positive("daily_quota", daily_quota)?,
        per_operation,
    })
}

/// A requestor's limits, as stored; `None` when there is no such requestor.
pub(crate) async fn limits(c: &mut Conn<'_>, id: &str) -> Result<Option<Limits>, StoreError> {
    let row: Option<LimitsRow> =
        c.query_opt("SELECT rate_per_second, daily_quota, rate_for FROM requestor WHERE id = $1", &[&id]).await?;
    row.map(|r| limits_of(id, r.rate_per_second, r.daily_quota, &r.rate_for)).transpose()
}

/// Sets a requestor's limits; false when there is no such requestor.
pub(crate) async fn set_limits(c: &mut Conn<'_>, id: &str, limits: &Limits) -> Result<bool, StoreError> {
    let (rate, quota) = (limits.rate.map(i64::from), limits.daily_quota.map(i64::from));
    let rate_for = crate::shared::context::rates_for_text(&limits.per_operation);
    Ok(c.execute(
        "UPDATE requestor SET rate_per_second = $2, daily_quota = $3, rate_for = $4 WHERE id = $1",
        &[&id, &rate, &quota, &rate_for],
    )
    .await?
        == 1)
}

/// The log policy of stored columns.
fn log_policy_of(id: &str, level: &str, sample_ppm: i64) -> Result<Policy, StoreError> {
    let level = Level::parse(level).map_err(|e| StoreError::Data(format!("requestor {id:?}: log_level: {e}")))?;
    let sample = u32::try_from(sample_ppm)
        .ok()
        .filter(|n| *n <= 1_000_000)
        .ok_or_else(|| StoreError::Data(format!("requestor {id:?}: log_sample_ppm {sample_ppm} is out of range")))?;
    Ok(Policy { level, sample: Sample::from_ppm(sample) })
}

row! {
    /// The log columns of a `requestor` row.
    pub(crate) struct LogRow { log_level: String, log_sample_ppm: i64 }
}

/// A requestor's log policy, as stored; `None` when there is no such requestor.
pub(crate) async fn log_policy(c: &mut Conn<'_>, id: &str) -> Result<Option<Policy>, StoreError> {
    let row: Option<LogRow> =
        c.query_opt("SELECT log_level, log_sample_ppm FROM requestor WHERE id = $1", &[&id]).await?;
    row.map(|r| log_policy_of(id, &r.log_level, r.log_sample_ppm)).transpose()
}

/// Sets a requestor's log policy; false when there is no such requestor.
pub(crate) async fn set_log_policy(c: &mut Conn<'_>, id: &str, policy: Policy) -> Result<bool, StoreError> {
    let ppm = i64::from(policy.sample.ppm());
    Ok(c.execute(
        "UPDATE requestor SET log_level = $2, log_sample_ppm = $3 WHERE id = $1",
        &[&id, &policy.level.as_str(), &ppm],
    )
    .await?
        == 1)
}

/// How many requestors there are.
/// Moves a requestor's revision on, when it is `shown` (any, when `None`); false when it is not
/// (another change came first) or there is no such requestor.
pub(crate) async fn bump_revision(c: &mut Conn<'_>, id: &str, shown: Option<i64>) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE requestor SET revision = revision + 1 WHERE id = $1 AND (CAST($2 AS BIGINT) IS NULL OR revision = $2)",
            &[&id, &shown],
        )
        .await?;
    Ok(n > 0)
}

/// A requestor's revision; `None` when there is no such requestor.
pub(crate) async fn revision(c: &mut Conn<'_>, id: &str) -> Result<Option<i64>, StoreError> {
    let row: Option<Scalar<i64>> = c.query_opt("SELECT revision FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(row.map(|s| s.0))
}

pub(crate) async fn count(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    let Scalar(n) = c.query_one("SELECT count(*) FROM requestor", &[]).await?;
    Ok(n)
}

/// Creates or updates a requestor (by id); its allow-list is replaced when `r.allow` is given,
/// its dialect when `r.dialect` is (a new requestor without one gets the default).
pub(crate) async fn upsert(c: &mut Conn<'_>, r: &HashedRequestor, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO requestor (id, id_context, name, password_hash, active, created_at, dialect, rate_per_second, daily_quota, log_level, log_sample_ppm)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $11, $12, $14, $16)
         ON CONFLICT (id) DO UPDATE SET revision = requestor.revision + 1, id_context = excluded.id_context, name = excluded.name,
             password_hash = excluded.password_hash, active = excluded.active,
             dialect = CASE WHEN $8 THEN excluded.dialect ELSE requestor.dialect END,
             rate_per_second = CASE WHEN $9 THEN excluded.rate_per_second ELSE requestor.rate_per_second END,
             daily_quota = CASE WHEN $10 THEN excluded.daily_quota ELSE requestor.daily_quota END,
             log_level = CASE WHEN $13 THEN excluded.log_level ELSE requestor.log_level END,
             log_sample_ppm = CASE WHEN $15 THEN excluded.log_sample_ppm ELSE requestor.log_sample_ppm END",
        &[
            &r.id,
            &r.id_context,
            &r.name,
            &r.password_hash,
            &r.active,
            &now,
            &r.dialect.unwrap_or_default().as_str(),
            &r.dialect.is_some(),
            &r.rate.is_some(),
            &r.daily_quota.is_some(),
            &r.rate.filter(|n| *n > 0).map(i64::from),
            &r.daily_quota.filter(|n| *n > 0).map(i64::from),
            &r.log.is_some(),
            &r.log.unwrap_or_default().as_str(),
            &r.log_sample.is_some(),
            &i64::from(r.log_sample.unwrap_or_default().ppm()),
        ],
    )
    .await?;
    if let Some(allow) = &r.allow {
        replace_allow(c, &r.id, allow).await?;
    }
    if let Some(url) = &r.notify_url {
        c.execute("UPDATE requestor SET notify_url = NULLIF($2, '') WHERE id = $1", &[&r.id, url]).await?;
    }
    if let Some(addresses) = &r.alert_emails {
        set_alert_emails(c, &r.id, addresses).await?;
    }
    if let Some(role) = &r.role {
        set_role(c, &r.id, role).await?;
    }
    Ok(())
}

/// Sets a requestor's kind and, for a supplier, replaces its hotels (a distributor has none);
/// false when there is no such requestor. The caller checks first that no other supplier owns
/// one of the hotels ([`owned_by_another`]): the table's key refuses it.
pub(crate) async fn set_role(c: &mut Conn<'_>, id: &str, role: &Role) -> Result<bool, StoreError> {
    if c.execute("UPDATE requestor SET kind = $2 WHERE id = $1", &[&id, &role.kind()]).await? != 1 {
        return Ok(false);
    }
    c.execute("DELETE FROM supplier_hotel WHERE requestor_id = $1", &[&id]).await?;
    if let Role::Supplier { hotels } = role {
        for hotel in hotels.iter() {
            c.execute("INSERT INTO supplier_hotel (hotel_code, requestor_id) VALUES ($1, $2)", &[hotel, &id]).await?;
        }
    }
    Ok(true)
}

/// The first hotel of `role` owned by a supplier other than `id`, with that supplier.
pub(crate) async fn owned_by_another(
    c: &mut Conn<'_>,
    id: &str,
    role: &Role,
) -> Result<Option<(String, String)>, StoreError> {
    let Role::Supplier { hotels } = role else { return Ok(None) };
    for hotel in hotels.iter() {
        let row: Option<Scalar<String>> = c
            .query_opt(
                "SELECT requestor_id FROM supplier_hotel WHERE hotel_code = $1 AND requestor_id <> $2",
                &[hotel, &id],
            )
            .await?;
        if let Some(Scalar(owner)) = row {
            return Ok(Some((hotel.clone(), owner)));
        }
    }
    Ok(None)
}

/// Sets a requestor's dialect; false when there is no such requestor.
pub(crate) async fn set_dialect(c: &mut Conn<'_>, id: &str, dialect: Dialect) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET dialect = $2 WHERE id = $1", &[&id, &dialect.as_str()]).await? == 1)
}

/// A requestor's dialect, as stored; `None` when there is no such requestor.
pub(crate) async fn dialect(c: &mut Conn<'_>, id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<Scalar<String>> = c.query_opt("SELECT dialect FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(row.map(|Scalar(d)| d))
}

/// Creates a requestor; false (and nothing changed) when the id exists.
pub(crate) async fn insert_new(c: &mut Conn<'_>, r: &HashedRequestor, now: DateTime<Utc>) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "INSERT INTO requestor (id, id_context, name, password_hash, active, created_at, dialect)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
            &[
                &r.id,
                &r.id_context,
                &r.name,
                &r.password_hash,
                &r.active,
                &now,
                &r.dialect.unwrap_or_default().as_str(),
            ],
        )
        .await?;
    if n == 1
        && let Some(allow) = &r.allow
    {
        replace_allow(c, &r.id, allow).await?;
    }
    if n == 1
        && let Some(url) = &r.notify_url
    {
        c.execute("UPDATE requestor SET notify_url = NULLIF($2, '') WHERE id = $1", &[&r.id, url]).await?;
    }
    if n == 1
        && let Some(addresses) = &r.alert_emails
    {
        set_alert_emails(c, &r.id, addresses).await?;
    }
    if n == 1
        && let Some(role) = &r.role
    {
        set_role(c, &r.id, role).await?;
    }
    Ok(n == 1)
}

/// A supplier's alert addresses as stored: one a line (none: NULL).
pub(crate) fn split_alert_emails(stored: Option<&str>) -> Vec<String> {
    stored.unwrap_or_default().lines().map(str::trim).filter(|a| !a.is_empty()).map(str::to_string).collect()
}

/// Sets a requestor's alert addresses (checked by the caller: one address each, no CR/LF),
/// replacing those it had (none: `[]`); false when there is no such requestor.
pub(crate) async fn set_alert_emails(c: &mut Conn<'_>, id: &str, addresses: &[String]) -> Result<bool, StoreError> {
    let stored = Some(addresses.join("\n")).filter(|s| !s.is_empty());
    Ok(c.execute("UPDATE requestor SET alert_emails = $2 WHERE id = $1", &[&id, &stored]).await? == 1)
}

/// Sets a requestor's password hash; false when there is no such requestor.
pub(crate) async fn set_password(c: &mut Conn<'_>, id: &str, password_hash: &str) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET password_hash = $2 WHERE id = $1", &[&id, &password_hash]).await? == 1)
}

/// Enables or disables a requestor; false when there is no such requestor.
pub(crate) async fn set_active(c: &mut Conn<'_>, id: &str, active: bool) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET active = $2 WHERE id = $1", &[&id, &active]).await? == 1)
}

/// Whether a requestor is active; `None` when there is no such requestor.
pub(crate) async fn active(c: &mut Conn<'_>, id: &str) -> Result<Option<bool>, StoreError> {
    let row: Option<Scalar<bool>> = c.query_opt("SELECT active FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(row.map(|Scalar(a)| a))
}

/// A requestor's allow-list, as stored (networks in their text form).
pub(crate) async fn allow_of(c: &mut Conn<'_>, id: &str) -> Result<BTreeSet<String>, StoreError> {
    let rows: Vec<Scalar<String>> =
        c.query("SELECT network FROM requestor_allow WHERE requestor_id = $1", &[&id]).await?;
    Ok(rows.into_iter().map(|Scalar(n)| n).collect())
}

/// True when the requestor exists.
pub(crate) async fn exists(c: &mut Conn<'_>, id: &str) -> Result<bool, StoreError> {
    let Scalar(n): Scalar<i64> = c.query_one("SELECT count(*) FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(n > 0)
}

/// Replaces a requestor's allow-list (empty: any address).
pub(crate) async fn replace_allow(c: &mut Conn<'_>, id: &str, allow: &[IpNet]) -> Result<(), StoreError> {
    c.execute("DELETE FROM requestor_allow WHERE requestor_id = $1", &[&id]).await?;
    for net in allow {
        let text = net.to_string();
        c.execute(
            "INSERT INTO requestor_allow (requestor_id, network) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&id, &text],
        )
        .await?;
    }
    Ok(())
}

row! {
    /// A requestor's added-up `requestor_traffic` counts.
    pub(crate) struct TrafficRow { requestor_id: String, searches: i64, availability: i64, quotes: i64, bookings: i64, requests: i64 }
}

/// Adds a gateway's counts of one requestor and day to `requestor_traffic`: searches,
/// availability checks, quotes, bookings, and every admitted request.
pub(crate) async fn add_traffic(
    c: &mut Conn<'_>,
    id: &str,
    day: NaiveDate,
    [searches, availability, quotes, bookings, requests]: [i64; 5],
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO requestor_traffic (requestor_id, day, searches, availability, quotes, bookings, requests) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (requestor_id, day) DO UPDATE SET searches = requestor_traffic.searches + excluded.searches, requests = requestor_traffic.requests + excluded.requests,
             availability = requestor_traffic.availability + excluded.availability,
             quotes = requestor_traffic.quotes + excluded.quotes, bookings = requestor_traffic.bookings + excluded.bookings",
        &[&id, &day, &searches, &availability, &quotes, &bookings, &requests],
    )
    .await?;
    Ok(())
}

/// The counts since `since` (included), added up per requestor (`id`, or every one), by id:
/// searches, availability checks, quotes, bookings, every admitted request.
pub(crate) async fn traffic_since(
    c: &mut Conn<'_>,
    id: Option<&str>,
    since: NaiveDate,
) -> Result<Vec<(String, [i64; 5])>, StoreError> {
    let rows: Vec<TrafficRow> = c
        .query(
            "SELECT requestor_id, CAST(sum(searches) AS BIGINT), CAST(sum(availability) AS BIGINT), CAST(sum(quotes) AS BIGINT), CAST(sum(bookings) AS BIGINT), CAST(sum(requests) AS BIGINT)
             FROM requestor_traffic WHERE day >= $1 AND ($2 = '' OR requestor_id = $2) GROUP BY requestor_id ORDER BY requestor_id",
            &[&since, &id.unwrap_or("")],
        )
        .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.requestor_id, [r.searches, r.availability, r.quotes, r.bookings, r.requests]))
        .collect())
}

row! {
    /// A requestor's admitted requests on a day.
    pub(crate) struct RequestsRow { requestor_id: String, requests: i64 }
}

/// Every requestor's admitted requests on `day`, added up over every gateway.
pub(crate) async fn requests_on(c: &mut Conn<'_>, day: NaiveDate) -> Result<Vec<(String, i64)>, StoreError> {
    let rows: Vec<RequestsRow> = c.query("SELECT requestor_id, requests FROM requestor_traffic WHERE day = $1 AND requests > 0 ORDER BY requestor_id", &[&day]).await?;
    Ok(rows.into_iter().map(|r| (r.requestor_id, r.requests)).collect())
}
