//! The supply notifications: `/hotelavailnotif`, `/hotelinvcountnotif`,
//! `/hotelrateamountnotif` (see [`rules::supply`](crate::hotels::rules::supply) for the rules).
//! Each is read into a [`Notification`] and applied in one transaction, all of it or nothing;
//! every gateway serves the change within a second (its content refresh reads the values
//! written since its supply position, see [`crate::hotels::supply_changes`]).

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use ota_messages::common::Warnings;
use ota_messages::hotel_avail_notif::{OtaHotelAvailNotifRq, OtaHotelAvailNotifRs};
use ota_messages::hotel_inv_count_notif::{OtaHotelInvCountNotifRq, OtaHotelInvCountNotifRs};
use ota_messages::hotel_rate_amount_notif::{OtaHotelRateAmountNotifRq, OtaHotelRateAmountNotifRs};

use crate::errors::warnings;
use crate::hotels::Area;
use crate::hotels::booking::Night;
use crate::hotels::cache::{Kept, SupplyQueue, Unapplied, Waiting};
use crate::hotels::reader::rate_amount::rate_amount;
use crate::hotels::reader::supply::{self, Read};
use crate::hotels::repo::{
    self,
    supply::{RateValue, RestrictionValue, Written},
};
use crate::hotels::rules::supply::{Applied, Change, Item, Notification};
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
            // The rooms set (`None`: the content's) and, when written, the rooms sold.
            let (rooms, sold) = match &item.change {
                Change::SetRooms(rooms) => {
                    (Some(*rooms), repo::supply::set_rooms(c, at, Some(*rooms), set_by, false, change).await?)
                }
                Change::ContentRooms => (None, repo::supply::set_rooms(c, at, None, set_by, false, change).await?),
                Change::RemainingRooms(left) => {
                    let rooms = u32::try_from(repo::rooms::sold_on(c, &night).await?.saturating_add(i64::from(*left)))
                        .unwrap_or(u32::MAX);
                    (Some(rooms), repo::supply::set_rooms(c, at, Some(rooms), set_by, false, change).await?)
                }
                Change::AdjustRooms(by) => {
                    let now = repo::rooms::on_sale(c, &night).await?.unwrap_or(0);
                    let rooms = u32::try_from(now.saturating_add(*by).max(0)).unwrap_or(u32::MAX);
                    let repeat_guard = !set_here.contains(&(room, day));
                    match repo::supply::set_rooms(c, at, Some(rooms), set_by, repeat_guard, change).await? {
                        // The same notification again: already applied, not older.
                        None if repo::supply::rooms_stamp(c, at).await? == Some(n.stamp) => continue,
                        sold => (Some(rooms), sold),
                    }
                }
                // Taken above.
                Change::Restriction { .. } | Change::Rate { .. } => continue,
            };
            let written = match sold {
                Some(sold) => {
                    set_here.insert((room, day));
                    let on_sale = match rooms {
                        Some(rooms) => i64::from(rooms),
                        None => repo::rooms::on_sale(c, &night).await?.unwrap_or(0),
                    };
                    if sold > on_sale {
                        applied.below_sold.push((
                            item.tag.clone(),
                            room.to_string(),
                            day,
                            u32::try_from(on_sale).unwrap_or(0),
                            sold,
                        ));
                    }
                    Written::Yes
                }
                None => Written::Older,
            };
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
/// First all in one go; only when one of them fails is the batch written again with each
/// notification in its own part (a part costs two round trips), so that the failing one is
/// undone alone.
async fn run_batch(store: &crate::store::Store, mut batch: Vec<Waiting>) {
    // By hotel, each hotel's in their order of arrival.
    batch.sort_by(|a, b| a.notification.hotel.cmp(&b.notification.hotel));
    let deadline = batch.iter().filter_map(|w| w.deadline).min();
    let jobs: Arc<Vec<(Notification, Arc<Ticket>)>> =
        Arc::new(batch.iter().map(|w| (w.notification.clone(), w.ticket.clone())).collect());
    let written = match write_batch(store, deadline, jobs.clone(), false).await {
        Err(BatchError::OneFailed) => write_batch(store, deadline, jobs, true).await,
        written => written,
    };
    match written {
        Ok(outcomes) => {
            for (w, outcome) in batch.into_iter().zip(outcomes) {
                let _ = w.outcome.send(outcome);
            }
        }
        Err(e) => {
            let e = match e {
                BatchError::Store(e) => e,
                BatchError::OneFailed => StoreError::Unavailable("a supply batch failed".into()),
            };
            for w in batch {
                let _ = w.outcome.send(Err(Unapplied::Store(e.shared())));
            }
        }
    }
}

/// Writes a batch in one transaction: each notification's outcome. Without `parts`, the first
/// that fails undoes the whole transaction ([`BatchError::OneFailed`]); with them, it is undone
/// alone and its error is its outcome.
async fn write_batch(
    store: &crate::store::Store,
    deadline: Option<std::time::Instant>,
    jobs: Arc<Vec<(Notification, Arc<Ticket>)>>,
    parts: bool,
) -> Result<Vec<Result<Applied, Unapplied>>, BatchError> {
    store
        .write(&Ticket::new(), deadline, move |c| {
            Box::pin(async move {
                let mut hotels: Vec<&str> = jobs.iter().map(|(n, _)| n.hotel.as_str()).collect();
                hotels.dedup();
                c.lock_hotels(&hotels, true).await?;
                // Waited for now, before any request is started: a request whose time runs out
                // waiting for a hotel's lock is answered as timed out, nothing written.
                c.flush().await?;
                if !parts {
                    // Started here: from now on their requests wait for the outcome.
                    let started: Vec<Option<&Notification>> =
                        jobs.iter().map(|(n, ticket)| ticket.start().then_some(n)).collect();
                    let applied = apply_all(c, &started).await.map_err(|_| BatchError::OneFailed)?;
                    return Ok(applied.into_iter().map(|a| a.ok_or(Unapplied::Abandoned)).collect());
                }
                let mut outcomes = Vec::with_capacity(jobs.len());
                for (notification, ticket) in jobs.iter() {
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
        .await
}

/// Applies the notifications of a batch (`None`: its request gave up first, not applied):
/// those that only set rooms on sale to numbers (what channel managers send most) all in one
/// statement, when no value of their hotel is set twice in the batch (so that together is the
/// same as one after the other); every other one by one, in order ([`apply`]).
async fn apply_all(
    c: &mut Conn<'_>,
    notifications: &[Option<&Notification>],
) -> Result<Vec<Option<Applied>>, StoreError> {
    let together = set_together(notifications);
    let mut values: Vec<repo::supply::RoomsValue<'_>> = Vec::new();
    // Of each value: its notification and item.
    let mut of: Vec<(usize, &Item)> = Vec::new();
    for (i, n) in notifications.iter().enumerate() {
        let Some(n) = n.filter(|_| together[i]) else { continue };
        let (hotel, stamp, source) = (n.hotel.as_str(), n.stamp, n.source.as_deref());
        for item in &n.items {
            let Change::SetRooms(rooms) = item.change else { continue };
            let room = item.room.as_str();
            for night in item.span.days() {
                values.push(repo::supply::RoomsValue { hotel, room, night, rooms, stamp, source });
                of.push((i, item));
            }
        }
    }
    // `together` holds only for a notification still waiting.
    let mut out: Vec<Option<Applied>> = together.iter().map(|&t| t.then(Applied::default)).collect();
    if !values.is_empty() {
        let change = repo::supply::change_number(c).await?;
        let sold = repo::supply::set_rooms_together(c, &values, change).await?;
        for ((v, (i, item)), sold) in values.iter().zip(of).zip(sold) {
            let Some(applied) = out[i].as_mut() else { continue };
            match sold {
                Some(sold) => {
                    applied.written += 1;
                    if sold > i64::from(v.rooms) {
                        applied.below_sold.push((item.tag.clone(), item.room.clone(), v.night, v.rooms, sold));
                    }
                }
                None => applied.older(&item.tag, v.night),
            }
        }
    }
    for (i, n) in notifications.iter().enumerate() {
        if let (Some(n), false) = (n, together[i]) {
            out[i] = Some(apply(c, n).await?);
        }
    }
    Ok(out)
}

/// Which notifications of a batch [`apply_all`] writes together: every one of a hotel whose
/// notifications in the batch only set rooms on sale to numbers, each night of a room type once.
fn set_together(notifications: &[Option<&Notification>]) -> Vec<bool> {
    let mut hotels: HashMap<&str, bool> = HashMap::new();
    let mut keys: HashSet<(&str, &str, NaiveDate)> = HashSet::new();
    for n in notifications.iter().flatten() {
        let hotel = n.hotel.as_str();
        let mut alone = !hotels.get(hotel).copied().unwrap_or(true);
        for item in &n.items {
            match item.change {
                Change::SetRooms(_) => {
                    alone |= !item.span.days().all(|night| keys.insert((hotel, item.room.as_str(), night)))
                }
                _ => alone = true,
            }
        }
        hotels.insert(hotel, !alone);
    }
    notifications.iter().map(|n| n.is_some_and(|n| hotels.get(n.hotel.as_str()).copied().unwrap_or(false))).collect()
}

/// Why a batch was not written.
#[derive(Debug)]
enum BatchError {
    /// A store failure for all of it.
    Store(StoreError),
    /// One notification failed, written without parts: the batch is to be written again with
    /// them.
    OneFailed,
}

impl From<StoreError> for BatchError {
    fn from(e: StoreError) -> Self {
        BatchError::Store(e)
    }
}

impl From<Abandoned> for BatchError {
    fn from(_: Abandoned) -> Self {
        // The batch's own ticket is never abandoned.
        BatchError::Store(StoreError::Unavailable("a supply batch was abandoned".into()))
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
    let notes = notify(cx, area, rate_amount(cx, &area.catalogue, rq)?).await?;
    Ok(OtaHotelRateAmountNotifRs {
        warnings: notes,
        unique_id: rq.unique_id.clone(),
        ..OtaHotelRateAmountNotifRs::success()
    })
}
