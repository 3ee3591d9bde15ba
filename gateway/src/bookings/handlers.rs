//! `/bookcancel`.

use chrono::{DateTime, NaiveDateTime, Utc};
use ota_messages::cancel::{OtaCancelRq, OtaCancelRs};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext, ResStatus};

use super::mapping;
use super::rules::{self, Cancellable, Outcome, Target};
use crate::activities::repo as activities;
use crate::errors::{Problem, warnings};
use crate::hotels::repo::{self as hotels, InventoryError, Lookup};
use crate::hotels::rules::{inventory, next_update};
use crate::operation::{Ctx, OpError};
use crate::shared::cancellation::Cancellation;
use crate::store::Conn;

/// `/bookcancel`: cancels a hotel or activity booking, or one item of it (see
/// [`rules`](super::rules)). `CancelType` Quote answers `Pending` with what cancelling costs now
/// and changes nothing; Commit cancels, gives the rooms or places back in the same
/// transaction, and answers `Committed`. A repeated Commit answers the first outcome.
pub async fn cancel(cx: &Ctx, rq: &OtaCancelRq) -> Result<OtaCancelRs, OpError> {
    let commit = match &rq.cancel_type {
        ResStatus::Commit => true,
        ResStatus::Quote => false,
        other => {
            return Err(Problem::biz(ErrorCode::InvalidActionStatusCode, format!("CancelType {:?} is not supported; use Quote or Commit.", other.as_str()))
                .at("/OTA_CancelRQ/@CancelType")
                .into());
        }
    };
    let target = rules::target(&rq.unique_id)?;
    let job = Job { owner: cx.requestor.id.clone(), target: target.clone(), now: cx.local_now(), utc: cx.now };
    let (booking, outcome) = if commit {
        cx.write(move |c| Box::pin(async move { job.commit(c).await })).await?
    } else {
        cx.read(move |c| Box::pin(async move { job.quote(c).await })).await?
    };
    let mut notes = Vec::new();
    if outcome.repeated {
        notes.push(rules::already_cancelled(&booking, ErrorWarningType::BizRule));
    } else if commit {
        crate::metrics::booking_cancelled(booking.kind.as_str());
    }
    if outcome.last_item
        && let Some((index, _)) = outcome.items.first()
    {
        notes.push(rules::last_item(&booking, *index, commit));
    }
    let item = target.item.then(|| (target.id.as_str(), rq.unique_id.id_context.clone().unwrap_or(IdContext::Internal)));
    let rs = mapping::cancel_rs(&booking, &outcome, item, &cx.requestor, commit);
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// A booking found for a cancel request.
enum Found {
    /// A hotel booking: its row id, the booking, the item named.
    Hotel(i64, crate::hotels::booking::Booking, Option<u64>),
    /// An activity booking, and whether its item was named.
    Activity(activities::Stored, bool),
}

impl Found {
    fn cancellable(&self) -> Cancellable {
        match self {
            Found::Hotel(_, b, _) => rules::of_hotel(b),
            Found::Activity(s, _) => rules::of_activity(s),
        }
    }

    fn item(&self) -> Option<u64> {
        match self {
            Found::Hotel(_, _, item) => *item,
            Found::Activity(_, item) => item.then_some(1),
        }
    }
}

/// A cancel request, ready to be quoted or committed.
struct Job {
    owner: String,
    target: Target,
    now: NaiveDateTime,
    utc: DateTime<Utc>,
}

impl Job {
    /// The booking the request names, among the requestor's own.
    async fn find(&self, c: &mut Conn<'_>) -> Result<Found, OpError> {
        let t = &self.target;
        if t.item {
            if let Some((id, index)) = hotels::find_item(c, &self.owner, &t.id, t.by_client, t.by_internal).await? {
                return Ok(Found::Hotel(id, hotels::load(c, id).await?, Some(index)));
            }
            // An activity booking's one item is `{Internal reference}-1`.
            if t.by_internal
                && let Some(internal) = t.id.strip_suffix("-1")
                && let Some(s) = activities::find_stored(c, &self.owner, internal, true).await?
            {
                return Ok(Found::Activity(s, true));
            }
            return Err(rules::not_found(&t.id).into());
        }
        // Hotel bookings first, then activity bookings: the order of `/bookread`, so that a
        // reference reads and cancels the same booking.
        if let Lookup::Found(at) = hotels::find_by_reference(c, &self.owner, &t.id, t.by_client, t.by_internal).await? {
            return Ok(Found::Hotel(at.id, hotels::load(c, at.id).await?, None));
        }
        if let Some(s) = activities::find_by_reference(c, &self.owner, &t.id, t.by_client, t.by_internal).await? {
            return Ok(Found::Activity(s, false));
        }
        Err(rules::not_found(&t.id).into())
    }

    /// What cancelling would cost now; nothing changes.
    async fn quote(&self, c: &mut Conn<'_>) -> Result<(Cancellable, Outcome), OpError> {
        let found = self.find(c).await?;
        let booking = found.cancellable();
        let outcome = rules::plan(&booking, found.item(), self.now)?;
        if outcome.repeated {
            return Err(rules::already_cancelled(&booking, ErrorWarningType::BizRule).into());
        }
        Ok((booking, outcome))
    }

    /// Cancels, and gives the inventory back, in this transaction. A booking changed by
    /// another request meanwhile is read again (at most three times).
    async fn commit(&self, c: &mut Conn<'_>) -> Result<(Cancellable, Outcome), OpError> {
        for _ in 0..3 {
            let found = self.find(c).await?;
            let booking = found.cancellable();
            let outcome = rules::plan(&booking, found.item(), self.now)?;
            if outcome.repeated {
                return Ok((booking, outcome));
            }
            let done = match &found {
                Found::Hotel(id, stored, _) => {
                    let after = rules::cancel_hotel(stored, &outcome, next_update(stored.updated, self.now));
                    if hotels::update(c, *id, &after, stored.updated).await? {
                        // Giving back never runs out of rooms: only a store failure can stop it.
                        hotels::apply_inventory(c, &inventory::change(Some(stored), Some(&after)), false).await.map_err(|e| match e {
                            InventoryError::Store(e) => OpError::Store(e),
                            other => OpError::Store(crate::store::StoreError::Data(format!("giving rooms back: {other}"))),
                        })?;
                        true
                    } else {
                        false
                    }
                }
                Found::Activity(s, _) => activities::cancel(c, s, Cancellation { at: outcome.at, penalty: outcome.cost.amount }, self.utc).await?,
            };
            if done {
                return Ok((booking, outcome));
            }
        }
        Err(Problem::biz(ErrorCode::RequestedActionNotPossible, "The booking is being changed by other requests; try again.").at(rules::TAG).into())
    }
}
