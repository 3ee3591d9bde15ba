//! Reading the log (`ota-gateway log search|show|export`, and the pages a replay reads): every
//! read goes through [`repo`]'s SQL.

use chrono::{DateTime, Utc};

use super::{Entry, LogError, repo};
use crate::store::Store;

/// Which entries a search (or an export, or a replay) takes; empty fields take any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this requestor's.
    pub requestor: Option<String>,
    /// Only from this instant on.
    pub since: Option<DateTime<Utc>>,
    /// Only before this instant.
    pub until: Option<DateTime<Utc>>,
    /// Only entries with this booking reference.
    pub reference: Option<String>,
    /// Only entries with this `EchoToken`.
    pub echo_token: Option<String>,
    /// Only the entry (entries) of this request id.
    pub request_id: Option<String>,
    /// Only this operation (its path without the slash).
    pub operation: Option<String>,
}

/// The entries of a filter, newest first (`oldest_first`: oldest first), at most `limit`.
pub async fn search(store: &Store, filter: &Filter, oldest_first: bool, limit: i64) -> Result<Vec<Entry>, LogError> {
    let filter = filter.clone();
    store.read(move |c| Box::pin(async move { Ok(repo::search(c, &filter, oldest_first, None, limit).await?) })).await
}

/// How many entries one page of an export or a replay reads ([`Pages`]): with bodies of up to
/// [`MAX_STORED_BODY`](super::MAX_STORED_BODY) each way, at most 64 MiB in memory at once.
pub const PAGE: i64 = 32;

/// The entries of a filter, oldest first, at most a limit, read [`PAGE`] at a time (keyset on
/// the time and the id): an export or a replay holds one page whatever the log's size.
#[derive(Debug)]
pub struct Pages<'s> {
    store: &'s Store,
    filter: Filter,
    /// How many entries may still be given.
    left: usize,
    /// The last entry given (time and id).
    after: Option<(DateTime<Utc>, i64)>,
}

impl<'s> Pages<'s> {
    /// The pages of a filter's entries, at most `limit` in all.
    pub fn new(store: &'s Store, filter: &Filter, limit: i64) -> Pages<'s> {
        Pages { store, filter: filter.clone(), left: usize::try_from(limit).unwrap_or(0), after: None }
    }

    /// The next page; empty once every entry (or the limit) was given.
    pub async fn next(&mut self) -> Result<Vec<Entry>, LogError> {
        if self.left == 0 {
            return Ok(Vec::new());
        }
        let (filter, after) = (self.filter.clone(), self.after);
        let mut page = self
            .store
            .read(move |c| {
                Box::pin(async move { Ok::<_, LogError>(repo::search(c, &filter, true, after, PAGE).await?) })
            })
            .await?;
        // A short page is the last one.
        let full = page.len() == PAGE as usize;
        page.truncate(self.left);
        self.left = if full { self.left - page.len() } else { 0 };
        self.after = page.last().map(|e| (e.at, e.id));
        Ok(page)
    }
}

/// One entry, by id.
pub async fn show(store: &Store, id: i64) -> Result<Entry, LogError> {
    store.read(move |c| Box::pin(async move { repo::get(c, id).await?.ok_or(LogError::NotFound(id)) })).await
}

/// Writes the entries of a filter to `out` as JSON lines (see [`Entry::to_json`]), oldest
/// first, at most `limit`, page by page ([`Pages`]); how many.
pub async fn export(
    store: &Store,
    filter: &Filter,
    limit: i64,
    out: &mut impl std::io::Write,
) -> Result<u64, LogError> {
    let mut pages = Pages::new(store, filter, limit);
    let mut written = 0;
    loop {
        let page = pages.next().await?;
        if page.is_empty() {
            break;
        }
        for e in &page {
            writeln!(out, "{}", e.to_json())?;
        }
        written += page.len() as u64;
    }
    out.flush()?;
    Ok(written)
}
