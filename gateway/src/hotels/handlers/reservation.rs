//! `/hotelbook`.

use ota_messages::hotel_res::{OtaHotelResRq, OtaHotelResRs};

use super::{check_inventory, not_left};
use crate::errors::warnings;
use crate::hotels::Area;
use crate::hotels::booking::{Booking, Company};
use crate::hotels::mapping::reservation as mapping;
use crate::hotels::reader::reservation as reader;
use crate::hotels::repo::{self, save::CommitError};
use crate::hotels::rules::MAX_PROBLEMS;
use crate::hotels::rules::inventory;
use crate::hotels::rules::reservation::{self as rules, Asker, ROOM_STAYS};
use crate::shared::action::{Action, Asked};
use crate::shared::booking::Committed;
use crate::shared::context::{Ctx, OpError};
use crate::shared::history::{By, Change};
use crate::shared::lang::Languages;
use crate::shared::reference;
use crate::store::{Conn, StoreError};

/// `/hotelbook`: `Quote` prices the booking and checks that its rooms are left, and stores
/// nothing; `Commit` books it once per (requestor, Client reference), taking its rooms in the
/// same transaction, never beyond those on sale; no `ResStatus` is what the requestor's dialect
/// says ([`Action::of_request`]). A repeated Commit answers the booking
/// already made (with a warning when it asked for something else). See
/// [`rules`](crate::hotels::rules::reservation) for what a booking must be.
pub async fn book(cx: &Ctx, area: &Area, rq: &OtaHotelResRq) -> Result<OtaHotelResRs, OpError> {
    let (action, no_status) =
        Action::of_request(rq.res_status.as_ref(), cx.requestor.dialect, "/OTA_HotelResRQ/@ResStatus", Asked::Booking)?;
    let with_breakdown = cx.requestor.wants_price_breakdown();
    let asker = Asker {
        owner: cx.requestor.id.clone(),
        company: Company { name: cx.requestor.name.clone(), code: Some(cx.requestor.id.clone()), short_name: None },
        utc: cx.now,
        now: cx.local_now(),
    };
    let asked = reader::booking(&rq.hotel_reservations.hotel_reservation, &asker, &area.catalogue, action.commits())
        .map_err(|problems| OpError::Rejected(problems.into_iter().take(MAX_PROBLEMS).collect()))?;
    let mut notes: Vec<_> = no_status.into_iter().collect();
    let answer = match action {
        Action::Quote => {
            let wanted = inventory::change(None, Some(&asked));
            let quoted = asked.clone();
            let catalogue = area.catalogue.clone();
            cx.peek(move |c| {
                Box::pin(async move {
                    check_inventory(c, &wanted, &catalogue).await.map_err(|e| not_left(e, &quoted, ROOM_STAYS))
                })
            })
            .await?;
            asked
        }
        Action::Commit => {
            let wanted = asked.clone();
            let committed = cx
                .write(move |c| {
                    Box::pin(async move {
                        commit(c, &wanted).await.map_err(|e| match e {
                            CommitError::ReferenceTaken => rules::reference_taken(&wanted.client_ref).into(),
                            CommitError::Inventory(e) => not_left(e, &wanted, ROOM_STAYS),
                        })
                    })
                })
                .await?;
            match committed {
                Committed::New(b) => {
                    crate::metrics::booking_committed("hotel");
                    b
                }
                Committed::Existing(b) => {
                    if !rules::same_as_asked(&b, &asked) {
                        notes.push(rules::already_booked(&b));
                    }
                    b
                }
            }
        }
    };
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let rs = OtaHotelResRs::success(mapping::booked(&answer, &area.catalogue, &languages, with_breakdown));
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// Books, in the caller's write transaction: the booking already made with this (owner, Client
/// reference), or else `b` stored under a new Internal reference with its rooms taken (never
/// beyond those on sale). On an error the transaction is rolled back.
async fn commit(c: &mut Conn<'_>, b: &Booking) -> Result<Committed<Booking>, CommitError> {
    if let Some(existing) = repo::save::claim(c, b).await? {
        return Ok(Committed::Existing(existing));
    }
    // A reference another booking has (rare: 50 random bits) writes nothing: another is drawn.
    for _ in 0..reference::DRAWS {
        let booked = rules::with_reference(b.clone(), &reference::new_reference("HTL"));
        let Some(revision) = repo::save::insert(c, &booked).await? else {
            continue;
        };
        repo::rooms::apply_inventory(c, &inventory::change(None, Some(&booked)), false).await?;
        let events = crate::hotels::rules::outbox::events(None, &booked);
        repo::save::record_events(c, &booked, revision, &events).await?;
        repo::save::record_change(c, &booked, Change::Created, By::Partner(&booked.owner)).await?;
        return Ok(Committed::New(booked));
    }
    Err(StoreError::Data(format!("no free booking reference after {} draws", reference::DRAWS)).into())
}
