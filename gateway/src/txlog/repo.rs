//! All SQL of the transaction log.

use chrono::{DateTime, TimeZone, Utc};

use super::{Entry, Filter, Outcome};
use crate::store::row;
use crate::store::{Conn, StoreError};

row! {
    /// A `txlog_entry` row.
    pub(crate) struct EntryRow {
        id: i64, at: DateTime<Utc>, requestor_id: String, operation: String, request_id: String, echo_token: Option<String>, refs: String,
        status: i64, success: bool, duration_us: i64, content_version: i64, masked: bool, request: String, answer: String, answer_truncated: bool
    }
}

const COLUMNS: &str = "id, at, requestor_id, operation, request_id, echo_token, refs, status, success, duration_us, content_version, masked, request, answer, answer_truncated";

impl From<EntryRow> for Entry {
    fn from(r: EntryRow) -> Entry {
        Entry {
            id: r.id,
            at: r.at,
            requestor: r.requestor_id,
            operation: r.operation,
            request_id: r.request_id,
            echo_token: r.echo_token,
            references: r.refs.split(' ').filter(|s| !s.is_empty()).map(str::to_string).collect(),
            status: r.status,
            success: r.success,
            duration_us: r.duration_us,
            content_version: r.content_version,
            masked: r.masked,
            request: r.request,
            answer: r.answer,
            answer_truncated: r.answer_truncated,
        }
    }
}

/// Stores an entry and its references (an id met before is left as it is).
pub(crate) async fn insert(c: &mut Conn<'_>, e: &Entry) -> Result<(), StoreError> {
    let refs = e.references.join(" ");
    let n = c
        .execute(
            &format!("INSERT INTO txlog_entry ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT (id) DO NOTHING"),
            &[
                &e.id,
                &e.at,
                &e.requestor,
                &e.operation,
                &e.request_id,
                &e.echo_token,
                &refs,
                &e.status,
                &e.success,
                &e.duration_us,
                &e.content_version,
                &e.masked,
                &e.request,
                &e.answer,
                &e.answer_truncated,
            ],
        )
        .await?;
    if n == 1 {
        for r in &e.references {
            c.execute(
                "INSERT INTO txlog_reference (reference, entry_id, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                &[r, &e.id, &e.at],
            )
            .await?;
        }
    }
    Ok(())
}

/// The entries of a filter, newest (or oldest) first, at most `limit`.
pub(crate) async fn search(
    c: &mut Conn<'_>,
    f: &Filter,
    oldest_first: bool,
    after: Option<(DateTime<Utc>, i64)>,
    limit: i64,
) -> Result<Vec<Entry>, StoreError> {
    let since = f.since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    let until = f
        .until
        .unwrap_or_else(|| Utc.with_ymd_and_hms(9999, 12, 31, 0, 0, 0).single().unwrap_or(DateTime::<Utc>::MAX_UTC));
    // Past an entry: oldest first, later or as late with a higher id; newest first, earlier or
    // as early with a lower id.
    let (after_at, after_id, past) = if oldest_first {
        let (at, id) = after.unwrap_or((since, i64::MIN));
        (at, id, "(at > $9 OR (at = $9 AND id > $10))")
    } else {
        let (at, id) = after.unwrap_or((until, i64::MAX));
        (at, id, "(at < $9 OR (at = $9 AND id < $10))")
    };
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let (state, answer_like) = Outcome::sql(f.outcome);
    let order = if oldest_first { "at, id" } else { "at DESC, id DESC" };
    let rows: Vec<EntryRow> = c
        .query(
            &format!(
                "SELECT {COLUMNS} FROM txlog_entry
                 WHERE at >= $1 AND at < $2 AND ($3 = '' OR requestor_id = $3) AND ($4 = '' OR echo_token = $4) AND ($5 = '' OR request_id = $5)
                   AND ($6 = '' OR operation = $6) AND ($7 = '' OR id IN (SELECT entry_id FROM txlog_reference WHERE reference = $7))
                   AND {past}
                   AND ($11 = '' OR ($11 = 'ok' AND success) OR ($11 = 'success' AND success AND answer NOT LIKE '%Warnings>%') OR ($11 = 'error' AND NOT success)) AND ($12 = '' OR answer LIKE $12)
                 ORDER BY {order} LIMIT $8"
            ),
            &[&since, &until, &text(&f.requestor), &text(&f.echo_token), &text(&f.request_id), &text(&f.operation), &text(&f.reference), &limit, &after_at, &after_id, &state, &answer_like],
        )
        .await?;
    Ok(rows.into_iter().map(Entry::from).collect())
}

/// One entry, by id.
pub(crate) async fn get(c: &mut Conn<'_>, id: i64) -> Result<Option<Entry>, StoreError> {
    let row: Option<EntryRow> =
        c.query_opt(&format!("SELECT {COLUMNS} FROM txlog_entry WHERE id = $1"), &[&id]).await?;
    Ok(row.map(Entry::from))
}

/// Deletes up to `batch` entries older than `before`; how many.
pub(crate) async fn purge_entries(c: &mut Conn<'_>, before: DateTime<Utc>, batch: i64) -> Result<u64, StoreError> {
    c.execute(
        "DELETE FROM txlog_entry WHERE id IN (SELECT id FROM txlog_entry WHERE at < $1 ORDER BY at LIMIT $2)",
        &[&before, &batch],
    )
    .await
}

/// Deletes up to `batch` references of entries older than `before`; how many.
pub(crate) async fn purge_references(c: &mut Conn<'_>, before: DateTime<Utc>, batch: i64) -> Result<u64, StoreError> {
    c.execute(
        "DELETE FROM txlog_reference WHERE (reference, entry_id) IN (SELECT reference, entry_id FROM txlog_reference WHERE at < $1 ORDER BY at LIMIT $2)",
        &[&before, &batch],
    )
    .await
}
