//! The supply notifications: `/hotelavailnotif`, `/hotelinvcountnotif`,
//! `/hotelrateamountnotif` (see [`rules::supply`](crate::hotels::rules::supply) for the rules).
//! Each is read into a [`Notification`] and applied in one transaction, all of it or nothing;
//! every gateway serves the change within a second (its content refresh reads the values
//! written since its supply position, see [`crate::hotels::supply_changes`]).

use std::collections::HashSet;

use chrono::NaiveDate;
use ota_messages::common::Warnings;
use ota_messages::hotel_avail_notif::{OtaHotelAvailNotifRq, OtaHotelAvailNotifRs};
use ota_messages::hotel_inv_count_notif::{OtaHotelInvCountNotifRq, OtaHotelInvCountNotifRs};
use ota_messages::hotel_rate_amount_notif::{OtaHotelRateAmountNotifRq, OtaHotelRateAmountNotifRs};

use crate::errors::warnings;
use crate::hotels::Area;
use crate::hotels::booking::Night;
use crate::hotels::cache::{Kept, SupplyQueue, Unapplied, Waiting};
use crate::hotels::reader::supply::{self, Read};
use crate::hotels::repo::{
    self,
    supply::{RateValue, RestrictionValue, Written},
};
use crate::hotels::rules::supply::{Applied, Change, Notification};
use crate::shared::context::{Ctx, OpError};
use crate::store::{Abandoned, Conn, StoreError, Ticket};
use std::sync::Arc;

/// Applies a notification in the caller's write transaction: the hotel's supply lock taken
/// exclusively first (the bookings taking its rooms wait, or are seen whole), the number its
/// changes carry, then each value unless a newer notification set it: the rooms on sale one by
/// one (each depends on what is sold and on sale), the restrictions and amounts in one
/// statement each (see [`repo::supply::set_restrictions`]).
pub(crate) async fn apply(c: &mut Conn<'_>, n: &Notification) -> Result<Applied, StoreError> {
    c.lock_hotels(&[n.hotel.as_str()], true).await?;
    let change = repo::supply::change_number(c).await?;
    let mut applied = Applied::default();
    let hotel = n.hotel.as_str();
    let set_by = (n.stamp, n.source.as_deref());
    // What became of each value, in the message's order (the warnings follow it).
    let mut outcomes: Vec<(&str, NaiveDate, Outcome)> = Vec::new();
    let mut restrictions: Vec<RestrictionValue<'_>> = Vec::new();
    let mut rates: Vec<RateValue<'_>> = Vec::new();
    // The rooms on sale this notification has set so far: a further change of one of them in
    // the same message (two adjustments of a night) applies on top, where a repeat of the whole
    // message does not.
    let mut set_here: HashSet<(&str, NaiveDate)> = HashSet::new();
    for item in &n.items {
        let room = item.room.as_str();
        for day in item.span.days() {
            // Restrictions and amounts are written together after the loop.
            match &item.change {
                Change::Restriction { board, kind, value } => {
                    outcomes.push((&item.tag, day, Outcome::Restriction(restrictions.len())));
                    restrictions.push(RestrictionValue { room, board, night: day, kind: *kind, value: *value });
                    continue;
                }
                Change::Rate { board, currency, guests, amount } => {
                    outcomes.push((&item.tag, day, Outcome::Rate(rates.len())));
                    rates.push(RateValue { room, board, currency, night: day, guests: *guests, amount: *amount });
                    continue;
                }
                _ => {}
            }
            let at = (hotel, room, day);
            let night = Night { hotel: hotel.to_string(), room_type: room.to_string(), night: day };
            let written = match &item.change {
                Change::SetRooms(rooms) => repo::supply::set_rooms(c, at, Some(*rooms), set_by, false, change).await?,
                Change::ContentRooms => repo::supply::set_rooms(c, at, None, set_by, false, change).await?,
                Change::RemainingRooms(left) => {
                    let rooms = u32::try_from(repo::rooms::sold_on(c, &night).await?.saturating_add(i64::from(*left)))
                        .unwrap_or(u32::MAX);
                    repo::supply::set_rooms(c, at, Some(rooms), set_by, false, change).await?
                }
                Change::AdjustRooms(by) => {
                    let now = repo::rooms::on_sale(c, &night).await?.unwrap_or(0);
                    let rooms = u32::try_from(now.saturating_add(*by).max(0)).unwrap_or(u32::MAX);
                    let repeat_guard = !set_here.contains(&(room, day));
                    match repo::supply::set_rooms(c, at, Some(rooms), set_by, repeat_guard, change).await? {
                        // The same notification again: already applied, not older.
                        Written::Older if repo::supply::rooms_stamp(c, at).await? == Some(n.stamp) => {
                            continue;
                        }
                        written => written,
                    }
                }
                // Taken above.
                Change::Restriction { .. } | Change::Rate { .. } => continue,
            };
            if written == Written::Yes {
                set_here.insert((room, day));
                let (on_sale, sold) =
                    (repo::rooms::on_sale(c, &night).await?.unwrap_or(0), repo::rooms::sold_on(c, &night).await?);
                if sold > on_sale {
                    applied.below_sold.push((
                        item.tag.clone(),
                        room.to_string(),
                        day,
                        u32::try_from(on_sale).unwrap_or(0),
                        sold,
                    ));
                }
            }
            outcomes.push((&item.tag, day, Outcome::Rooms(written)));
        }
    }
    let restrictions = repo::supply::set_restrictions(c, hotel, &restrictions, set_by, change).await?;
    let rates = repo::supply::set_rates(c, hotel, &rates, set_by, change).await?;
    for (tag, day, outcome) in outcomes {
        let written = match outcome {
            Outcome::Rooms(written) => written,
            Outcome::Restriction(i) => restrictions.get(i).copied().unwrap_or(Written::Older),
            Outcome::Rate(i) => rates.get(i).copied().unwrap_or(Written::Older),
        };
        match written {
            Written::Yes => applied.written += 1,
            Written::Older => applied.older(tag, day),
        }
    }
    Ok(applied)
}

/// Where the outcome of one value of a notification is.
enum Outcome {
    /// Rooms on sale, written at once.
    Rooms(Written),
    /// The restriction of this index in the batch.
    Restriction(usize),
    /// The amount of this index in the batch.
    Rate(usize),
}

/// Applies a read notification; the answer's warnings: the parts read and not applied, then
/// what applying found. SQLite: in a write of the request (the writer commits several at once);
/// PostgreSQL: in a batch of the notifications waiting ([`in_a_batch`]).
async fn notify(cx: &Ctx, area: &Area, read: Read) -> Result<Option<Warnings>, OpError> {
    let Read { notification, mut notes } = read;
    let applied = if cx.store.groups_commits() {
        cx.write(move |c| Box::pin(async move { Ok(apply(c, &notification).await?) })).await?
    } else {
        in_a_batch(cx, &area.kept, notification).await?
    };
    crate::metrics::supply_applied(applied.written);
    notes.extend(applied.warnings());
    Ok((!notes.is_empty()).then(|| warnings(notes)))
}

/// Applies a notification together with the others waiting (PostgreSQL): it joins the queue;
/// until its outcome comes, its request runs a batch of what waits (up to
/// [`SupplyQueue::MOST`]) whenever fewer than [`SupplyQueue::BATCHES`] run, and else waits for
/// one to end. One transaction and one commit per batch: its hotels' supply locks taken first,
/// in order (two batches never wait for each other in a circle), then each notification in its
/// own part ([`Conn::begin_part`]), so one that fails is undone alone and answered with its
/// error; the notifications of one hotel apply in their order of arrival.
async fn in_a_batch(cx: &Ctx, kept: &Arc<Kept>, notification: Notification) -> Result<Applied, OpError> {
    let queue = &kept.supply;
    let (outcome, mut answer) = tokio::sync::oneshot::channel();
    let waiting = Waiting { notification, ticket: cx.ticket.clone(), deadline: cx.deadline, outcome };
    queue.waiting.lock().map_err(|_| StoreError::Unavailable("the supply queue failed".into()))?.push(waiting);
    let outcome = loop {
        match answer.try_recv() {
            Ok(outcome) => break Some(outcome),
            Err(tokio::sync::oneshot::error::TryRecvError::Closed) => break None,
            Err(tokio::sync::oneshot::error::TryRecvError::Empty) => {}
        }
        // Told of every batch that ends from here on.
        let ended = queue.ended.notified();
        tokio::pin!(ended);
        ended.as_mut().enable();
        if let Ok(running) = queue.batches.clone().try_acquire_owned() {
            let batch: Vec<Waiting> = match queue.waiting.lock() {
                Ok(mut waiting) => {
                    let n = waiting.len().min(SupplyQueue::MOST);
                    waiting.drain(..n).collect()
                }
                Err(_) => Vec::new(),
            };
            if !batch.is_empty() {
                // A task of its own: the batch ends and tells each its outcome even when this
                // request goes (its client hung up, its time ran out).
                let (store, kept) = (cx.store.clone(), kept.clone());
                let _ = tokio::spawn(async move {
                    run_batch(&store, batch).await;
                    drop(running);
                    kept.supply.ended.notify_waiters();
                })
                .await;
                continue;
            }
        }
        // Every batch runs, or this one's notification is in one that runs.
        tokio::select! {
            outcome = &mut answer => break outcome.ok(),
            () = &mut ended => {}
        }
    };
    match outcome {
        Some(Ok(applied)) => Ok(applied),
        Some(Err(Unapplied::Abandoned)) => Err(Abandoned.into()),
        Some(Err(Unapplied::Store(e))) => Err(e.into()),
        None => Err(StoreError::Unavailable("a supply batch ended without an outcome".into()).into()),
    }
}

/// Applies a batch in one transaction and sends each its outcome once the commit's is known.
async fn run_batch(store: &crate::store::Store, mut batch: Vec<Waiting>) {
    // By hotel, each hotel's in their order of arrival.
    batch.sort_by(|a, b| a.notification.hotel.cmp(&b.notification.hotel));
    let deadline = batch.iter().filter_map(|w| w.deadline).min();
    let jobs: Vec<(Notification, Arc<Ticket>)> =
        batch.iter().map(|w| (w.notification.clone(), w.ticket.clone())).collect();
    let written = store
        .write(&Ticket::new(), deadline, move |c| {
            Box::pin(async move {
                let mut hotels: Vec<&str> = jobs.iter().map(|(n, _)| n.hotel.as_str()).collect();
                hotels.dedup();
                c.lock_hotels(&hotels, true).await?;
                let mut outcomes = Vec::with_capacity(jobs.len());
                for (notification, ticket) in &jobs {
                    // Started here: from now on its request waits for the outcome.
                    if !ticket.start() {
                        outcomes.push(Err(Unapplied::Abandoned));
                        continue;
                    }
                    c.begin_part().await?;
                    match apply(c, notification).await {
                        Ok(applied) => {
                            c.end_part(true).await?;
                            outcomes.push(Ok(applied));
                        }
                        Err(e) => {
                            c.end_part(false).await?;
                            outcomes.push(Err(Unapplied::Store(e)));
                        }
                    }
                }
                Ok::<_, BatchError>(outcomes)
            })
        })
        .await;
    match written {
        Ok(outcomes) => {
            for (w, outcome) in batch.into_iter().zip(outcomes) {
                let _ = w.outcome.send(outcome);
            }
        }
        Err(BatchError(e)) => {
            for w in batch {
                let _ = w.outcome.send(Err(Unapplied::Store(e.shared())));
            }
        }
    }
}

/// Why a batch was not written: a store failure for all of it.
#[derive(Debug)]
struct BatchError(StoreError);

impl From<StoreError> for BatchError {
    fn from(e: StoreError) -> Self {
        BatchError(e)
    }
}

impl From<Abandoned> for BatchError {
    fn from(_: Abandoned) -> Self {
        // The batch's own ticket is never abandoned.
        BatchError(StoreError::Unavailable("a supply batch was abandoned".into()))
    }
}

/// `/hotelinvcountnotif`: the rooms on sale per room type and days.
pub async fn inv_count_notif(
    cx: &Ctx,
    area: &Area,
    rq: &OtaHotelInvCountNotifRq,
) -> Result<OtaHotelInvCountNotifRs, OpError> {
    let notes = notify(cx, area, supply::inv_count(cx, &area.catalogue, rq)?).await?;
    Ok(OtaHotelInvCountNotifRs {
        warnings: notes,
        unique_id: rq.unique_id.clone(),
        ..OtaHotelInvCountNotifRs::success()
    })
}

/// `/hotelavailnotif`: booking limits, restrictions and stay limits.
pub async fn avail_notif(cx: &Ctx, area: &Area, rq: &OtaHotelAvailNotifRq) -> Result<OtaHotelAvailNotifRs, OpError> {
    let notes = notify(cx, area, supply::avail(cx, &area.catalogue, rq)?).await?;
    Ok(OtaHotelAvailNotifRs { warnings: notes, unique_id: rq.unique_id.clone(), ..OtaHotelAvailNotifRs::success() })
}

/// `/hotelrateamountnotif`: nightly amounts.
pub async fn rate_amount_notif(
    cx: &Ctx,
    area: &Area,
    rq: &OtaHotelRateAmountNotifRq,
) -> Result<OtaHotelRateAmountNotifRs, OpError> {
    let notes = notify(cx, area, supply::rate_amount(cx, &area.catalogue, rq)?).await?;
    Ok(OtaHotelRateAmountNotifRs {
        warnings: notes,
        unique_id: rq.unique_id.clone(),
        ..OtaHotelRateAmountNotifRs::success()
    })
}
