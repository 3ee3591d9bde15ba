//! `/bookread` and `/bookcancel`, thin: a booking of either kind, found by reference.

use std::sync::Arc;

use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use ota_messages::booking_read::{self as read, ReservationsList};
use ota_messages::cancel::{OtaCancelRq, OtaCancelRs};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext};

use super::mapping;
use super::reader::{self, ListQuery, READ_TAG};
use super::rules::{self, Cancellable, Outcome, Target};
use crate::activities::catalogue::Catalogue as ActivityCatalogue;
use crate::activities::{self, mapping as activity_mapping, repo as activity_repo};
use crate::errors::{Problem, warnings};
use crate::hotels::booking::Booking as HotelBooking;
use crate::hotels::catalogue::Catalogue as HotelCatalogue;
use crate::hotels::repo::{self as hotel_repo, find::Lookup, rooms::InventoryError};
use crate::hotels::rules::{inventory, next_update, outbox as hotel_outbox};
use crate::hotels::{self, mapping as hotel_mapping};
use crate::shared::action::Action;
use crate::shared::booking::{CANCELLED, Kind};
use crate::shared::cancellation::Cancellation;
use crate::shared::context::{Ctx, OpError, now_in};
use crate::shared::history::{self, By, Change, State};
use crate::shared::lang::Languages;
use crate::shared::mapping::list_entry;
use crate::store::Conn;

/// `/bookread`: one booking by reference, in full, or a list of references and statuses. Only
/// the requestor's own bookings are visible; another requestor's reference is answered like an
/// unknown one (Code 97), so references cannot be probed.
pub async fn read(
    cx: &Ctx,
    hotels: &hotels::Area,
    activities: &activities::Area,
    rq: &read::OtaReadRq,
) -> Result<read::OtaResRetrieveRs, OpError> {
    reader::only_held_kinds(rq)?;
    if rq.return_list_indicator == Some(true) { list(cx, rq).await } else { one(cx, hotels, activities, rq).await }
}

async fn one(
    cx: &Ctx,
    hotels: &hotels::Area,
    activities: &activities::Area,
    rq: &read::OtaReadRq,
) -> Result<read::OtaResRetrieveRs, OpError> {
    let Target { id, by_client, by_internal, .. } = reader::read_target(rq)?;
    // The booking's row and revision first: a copy kept at that revision is the booking.
    let (owner, reference) = (cx.requestor.id.clone(), id.clone());
    let lookup = cx
        .peek(move |c| {
            Box::pin(async move {
                Ok(hotel_repo::find::find_by_reference(c, &owner, &reference, by_client, by_internal).await?)
            })
        })
        .await?;
    let kept = hotels.kept.clone();
    let copy = match lookup {
        Lookup::Found(at) => kept.bookings.get(at),
        Lookup::NotFound | Lookup::Mismatch => {
            let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
            return read_activity(cx, activities, &id, by_client, by_internal, &languages).await;
        }
    };
    let found: Option<Arc<HotelBooking>> = match copy {
        Some(b) => Some(b),
        None => {
            let (owner, reference) = (cx.requestor.id.clone(), id.clone());
            cx.read(move |c| {
                Box::pin(async move {
                    let Lookup::Found(at) =
                        hotel_repo::find::find_by_reference(c, &owner, &reference, by_client, by_internal).await?
                    else {
                        return Ok(None);
                    };
                    let loaded = Arc::new(hotel_repo::find::load(c, at.id).await?);
                    kept.bookings.put(at, loaded.clone());
                    Ok(Some(loaded))
                })
            })
            .await?
        }
    };
    let b = found.ok_or_else(|| not_found(&id))?;
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let mut rs = read::OtaResRetrieveRs::success();
    rs.reservations_list = Some(ReservationsList {
        hotel_reservation: vec![hotel_mapping::hotel_reservation(&b, &hotels.catalogue, &languages)],
    });
    if b.is_cancelled() {
        rs = rs.with_warnings(warnings([Problem::new(
            ErrorWarningType::Advisory,
            ErrorCode::BookingAlreadyCancelled,
            format!("Booking {} is cancelled; it cannot be modified.", b.internal_ref),
        )
        .at(READ_TAG)]));
    }
    Ok(rs)
}

/// The read of an activity booking (see [`read_reservation`](activity_mapping::read_reservation)): no
/// hotel booking has the reference.
async fn read_activity(
    cx: &Ctx,
    activities: &activities::Area,
    id: &str,
    by_client: bool,
    by_internal: bool,
    languages: &Languages,
) -> Result<read::OtaResRetrieveRs, OpError> {
    let (owner, reference) = (cx.requestor.id.clone(), id.to_string());
    let found = cx
        .read(move |c| {
            Box::pin(async move {
                Ok(activity_repo::bookings::find_by_reference(c, &owner, &reference, by_client, by_internal).await?)
            })
        })
        .await?;
    let s = found.ok_or_else(|| not_found(id))?;
    let name = activities
        .catalogue
        .activity(&s.booking.activity_id)
        .and_then(|a| languages.pick(&a.texts))
        .map(|(_, t)| t.name.as_str());
    let mut rs = read::OtaResRetrieveRs::success();
    rs.reservations_list =
        Some(ReservationsList { hotel_reservation: vec![activity_mapping::read_reservation(&s, name)] });
    if s.cancelled.is_some() {
        rs = rs.with_warnings(warnings([Problem::new(
            ErrorWarningType::Advisory,
            ErrorCode::BookingAlreadyCancelled,
            format!("Booking {} is cancelled.", s.booking.reference.as_deref().unwrap_or_default()),
        )
        .at(READ_TAG)]));
    }
    Ok(rs)
}

fn not_found(id: &str) -> OpError {
    Problem::biz(ErrorCode::BookingReferenceNotFound, format!("Booking {id} was not found.")).at(READ_TAG).into()
}

async fn list(cx: &Ctx, rq: &read::OtaReadRq) -> Result<read::OtaResRetrieveRs, OpError> {
    let ListQuery { by, start, end, status } = reader::list_query(rq)?;
    let owner = cx.requestor.id.clone();
    let (hotels, activities) = cx
        .read(move |c| {
            Box::pin(async move {
                let hotels = hotel_repo::find::list(c, &owner, by, start, end, status.as_deref()).await?;
                let activities = activity_repo::bookings::list(c, &owner, by, start, end, status.as_deref()).await?;
                Ok((hotels, activities))
            })
        })
        .await?;
    let mut rs = read::OtaResRetrieveRs::success();
    // Hotel bookings first, then activity bookings (`RoomStayReservation="false"`), each by the date asked.
    let lines: Vec<_> = hotels
        .iter()
        .map(list_entry)
        .chain(activities.into_iter().map(|a| activity_mapping::list_line(&a.head())))
        .collect();
    if !lines.is_empty() {
        rs.reservations_list = Some(ReservationsList { hotel_reservation: lines });
    }
    Ok(rs)
}

/// `/bookcancel`: cancels a hotel or activity booking, or one item of it (see
/// [`rules`](super::rules)). `CancelType` Quote answers `Pending` with what cancelling costs now
/// and changes nothing; Commit cancels, gives the rooms or places back in the same
/// transaction, and answers `Committed`. A repeated Commit answers the first outcome.
pub async fn cancel(
    cx: &Ctx,
    hotels: &hotels::Area,
    activities: &activities::Area,
    rq: &OtaCancelRq,
) -> Result<OtaCancelRs, OpError> {
    let commit = Action::of_cancel(&rq.cancel_type, "/OTA_CancelRQ/@CancelType")?.commits();
    let (target, uid) = reader::cancel_target(rq)?;
    let job = Job {
        owner: cx.requestor.id.clone(),
        target: target.clone(),
        now: cx.local_now(),
        utc: cx.now,
        hotels: hotels.catalogue.clone(),
        activities: activities.catalogue.clone(),
    };
    let (booking, outcome, zone) = if commit {
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
    let item = target.item.then(|| (target.id.as_str(), uid.id_context.clone().unwrap_or(IdContext::Internal)));
    let rs = mapping::cancel_rs(&booking, &outcome, zone, item, &cx.requestor, commit);
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// A booking found for a cancel request.
enum Found {
    /// A hotel booking: its row id, the booking, the item named.
    Hotel(i64, HotelBooking, Option<u64>),
    /// An activity booking, and whether its item was named.
    Activity(activity_repo::bookings::Stored, bool),
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
    /// The hotels, whose local times a hotel booking's check-ins and deadlines are.
    hotels: Arc<HotelCatalogue>,
    /// The activities, whose places' local times an activity booking's are.
    activities: Arc<ActivityCatalogue>,
}

impl Job {
    /// Now, as the times of the booking found are compared with it: a local time of its
    /// hotel (of its first room stay) or of its activity's place (UTC when that has left the
    /// content).
    fn now_for(&self, zone: Option<Tz>) -> NaiveDateTime {
        zone.map_or(self.now, |zone| now_in(zone, self.utc))
    }

    /// The time zone of the booking found: its hotel's (of its first room stay) or its
    /// activity's place's; none when that has left the content.
    fn zone_for(&self, found: &Found) -> Option<Tz> {
        match found {
            Found::Activity(s, _) => self.activities.activity(&s.booking.activity_id).map(|a| a.time_zone),
            Found::Hotel(_, b, _) => b.rooms.first().and_then(|r| self.hotels.hotel(&r.hotel)).map(|h| h.time_zone),
        }
    }

    /// The booking the request names, among the requestor's own.
    async fn find(&self, c: &mut Conn<'_>) -> Result<Found, OpError> {
        let t = &self.target;
        if t.item {
            if let Some((id, index)) =
                hotel_repo::find::find_item(c, &self.owner, &t.id, t.by_client, t.by_internal).await?
            {
                return Ok(Found::Hotel(id, hotel_repo::find::load(c, id).await?, Some(index)));
            }
            // An activity booking's one item is `{Internal reference}-1`.
            if t.by_internal
                && let Some(internal) = t.id.strip_suffix("-1")
                && let Some(s) = activity_repo::bookings::find_stored(c, &self.owner, internal, true).await?
            {
                return Ok(Found::Activity(s, true));
            }
            return Err(rules::not_found(&t.id).into());
        }
        // Hotel bookings first, then activity bookings: the order of `/bookread`, so that a
        // reference reads and cancels the same booking.
        if let Lookup::Found(at) =
            hotel_repo::find::find_by_reference(c, &self.owner, &t.id, t.by_client, t.by_internal).await?
        {
            return Ok(Found::Hotel(at.id, hotel_repo::find::load(c, at.id).await?, None));
        }
        if let Some(s) =
            activity_repo::bookings::find_by_reference(c, &self.owner, &t.id, t.by_client, t.by_internal).await?
        {
            return Ok(Found::Activity(s, false));
        }
        Err(rules::not_found(&t.id).into())
    }

    /// What cancelling would cost now; nothing changes.
    async fn quote(&self, c: &mut Conn<'_>) -> Result<(Cancellable, Outcome, Option<Tz>), OpError> {
        let found = self.find(c).await?;
        let booking = found.cancellable();
        let zone = self.zone_for(&found);
        let outcome = rules::plan(&booking, found.item(), self.now_for(zone))?;
        if outcome.repeated {
            return Err(rules::already_cancelled(&booking, ErrorWarningType::BizRule).into());
        }
        Ok((booking, outcome, zone))
    }

    /// Cancels, and gives the inventory back, in this transaction. A booking changed by
    /// another request meanwhile is read again (at most three times).
    async fn commit(&self, c: &mut Conn<'_>) -> Result<(Cancellable, Outcome, Option<Tz>), OpError> {
        for _ in 0..3 {
            let found = self.find(c).await?;
            let booking = found.cancellable();
            let zone = self.zone_for(&found);
            let outcome = rules::plan(&booking, found.item(), self.now_for(zone))?;
            if outcome.repeated {
                return Ok((booking, outcome, zone));
            }
            let done = match &found {
                Found::Hotel(id, stored, _) => {
                    let after = rules::cancel_hotel(stored, &outcome, next_update(stored.updated, self.now));
                    if let Some(revision) = hotel_repo::save::update(c, *id, &after, stored.updated).await? {
                        // Giving back never runs out of rooms: only a store failure can stop it.
                        hotel_repo::rooms::apply_inventory(c, &inventory::change(Some(stored), Some(&after)), false)
                            .await
                            .map_err(|e| match e {
                                InventoryError::Store(e) => OpError::Store(e),
                                other => OpError::Store(crate::store::StoreError::Data(format!(
                                    "giving rooms back: {other}"
                                ))),
                            })?;
                        // In the same transaction: the suppliers of its hotels are told.
                        hotel_repo::save::record_events(
                            c,
                            &after,
                            revision,
                            &hotel_outbox::events(Some(stored), &after),
                        )
                        .await?;
                        let change = if after.is_cancelled() { Change::Cancelled } else { Change::Modified };
                        hotel_repo::save::record_change(c, &after, change, By::Partner(&self.owner)).await?;
                        true
                    } else {
                        false
                    }
                }
                Found::Activity(s, _) => {
                    let cancelled = activity_repo::bookings::cancel(
                        c,
                        s,
                        Cancellation { at: outcome.at, penalty: outcome.cost.amount },
                        self.utc,
                    )
                    .await?;
                    if let (true, Some(reference)) = (cancelled, &s.booking.reference) {
                        let state = State { status: CANCELLED, total: s.booking.total, currency: &s.booking.currency };
                        let by = By::Partner(&self.owner);
                        history::record(c, Kind::Activity, reference, Change::Cancelled, by, self.utc, state).await?;
                    }
                    cancelled
                }
            };
            if done {
                return Ok((booking, outcome, zone));
            }
        }
        Err(Problem::biz(
            ErrorCode::RequestedActionNotPossible,
            "The booking is being changed by other requests; try again.",
        )
        .at(rules::TAG)
        .into())
    }
}
