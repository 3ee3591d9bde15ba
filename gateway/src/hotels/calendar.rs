//! A hotel's calendar (issue 31, `docs/hotels/calendar.md`): what the console's calendar page
//! and `ota-gateway calendar show|set` ask (one code path).
//!
//! - [`show`]: per room type and night, the rooms on sale and sold, the restrictions and the
//!   nightly amount per rate plan, each with who set it last and when. The room types, units,
//!   allotments and rates come from the content snapshot in memory (as every operation reads
//!   them); the supply values and their sources from the store (one statement per supply table
//!   and one for the rooms sold), so a page shows an edit the moment it is stored.
//! - [`edit`]: one change over a range of nights, week days, room types and rate plans,
//!   checked ([`crate::hotels::rules::calendar::edit::check_edit`]), turned into the same
//!   [`Notification`](crate::hotels::rules::supply::Notification) a supplier's message is read
//!   into, stamped now, and applied by the notifications' own code in one transaction with its
//!   audit entry: a value a newer message (or edit) set is kept and the outcome says so, a
//!   channel manager's later message replaces the edit's values, its earlier one does not (and
//!   its answer warns). Every gateway serves the change within a second (the supply version
//!   moves on).

use chrono::{DateTime, Utc};

use crate::audit::{self, Actor};
use crate::hotels::catalogue::{Catalogue, Hotel};
use crate::hotels::handlers::supply::apply;
use crate::hotels::repo;
use crate::hotels::rules::calendar::edit::{EditAsk, EditOutcome};
use crate::hotels::rules::calendar::grid::Calendar;
use crate::hotels::rules::calendar::{self as rules, Invalid};
use crate::store::{Store, StoreError};

/// Why a calendar could not be shown or edited.
#[derive(Debug, thiserror::Error)]
pub enum CalendarError {
    /// No such hotel (or not one this user may see).
    #[error("hotel {0:?} is not known")]
    UnknownHotel(String),
    /// A value of the request, named.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The hotel of a code in the catalogue.
fn hotel<'c>(catalogue: &'c Catalogue, code: &str) -> Result<&'c Hotel, CalendarError> {
    catalogue.hotel(code).ok_or_else(|| CalendarError::UnknownHotel(code.chars().take(64).collect()))
}

/// The calendar of a hotel from `from` to `to` (`YYYY-MM-DD`; by default today at the hotel
/// and the 13 months after), only room type `room` when given (empty: every one).
pub async fn show(
    store: &Store,
    catalogue: &Catalogue,
    code: &str,
    (from, to): (Option<&str>, Option<&str>),
    room: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Calendar, CalendarError> {
    let h = hotel(catalogue, code)?;
    let range = rules::page_range(from, to, h.today(now))?;
    let room = room.map(str::trim).filter(|r| !r.is_empty());
    if let Some(r) = room
        && h.room(r).is_none()
    {
        return Err(Invalid { field: "room", message: "not a room type of this hotel".into() }.into());
    }
    let code = h.code.clone();
    let (supply, sold) = store
        .read(move |c| {
            Box::pin(async move {
                let supply = repo::supply::read_sourced(c, &code, range.0, range.1).await?;
                let sold = repo::rooms::rooms_sold(c, &[code.as_str()], range.0, range.1).await?;
                Ok::<_, StoreError>((supply, sold))
            })
        })
        .await?;
    Ok(rules::grid::build(h, range, &supply, &sold, room))
}

/// Who an actor's values are kept as set by: `cli:USER` as it is, an operator as
/// `operator:NAME`.
pub fn source_of(actor: &Actor) -> String {
    if actor.name.starts_with("cli:") { actor.name.clone() } else { format!("operator:{}", actor.name) }
}

/// Applies an edit of a hotel's calendar asked by `actor` at `now` (its stamp): checked, then
/// applied as a notification and audited (`calendar.set`) in one transaction.
pub async fn edit(
    store: &Store,
    catalogue: &Catalogue,
    actor: &Actor,
    ask: &EditAsk,
    code: &str,
    now: DateTime<Utc>,
) -> Result<EditOutcome, CalendarError> {
    let h = hotel(catalogue, code)?;
    let edit = rules::edit::check_edit(ask, h, now)?;
    let notification = rules::edit::notification(&edit, h, now, &source_of(actor));
    let said = describe(ask);
    let (actor, n) = (actor.clone(), notification.clone());
    let applied = store
        .write_now(move |c| {
            Box::pin(async move {
                let applied = apply(c, &n).await?;
                audit::record(c, &actor, "calendar.set", &n.hotel, None, Some(&said)).await?;
                Ok::<_, StoreError>(applied)
            })
        })
        .await?;
    crate::metrics::supply_applied(applied.written);
    Ok(EditOutcome::of(&edit, &notification, &applied))
}

/// An edit as the audit trail keeps it.
fn describe(ask: &EditAsk) -> String {
    let list = |v: &[String]| if v.is_empty() { "all".to_string() } else { v.join(",") };
    format!(
        "{} to {} days {} rooms {} plans {}: {} {} {}{}",
        ask.from,
        ask.to,
        list(&ask.weekdays),
        list(&ask.rooms),
        list(&ask.plans),
        ask.action,
        ask.value,
        ask.currency,
        if ask.guests.trim().is_empty() { String::new() } else { format!(" guests {}", ask.guests) }
    )
}
