//! The hotel operations, thin: hotel NBC, the booking read, the booking modify, and (in
//! their own files) hotel availability and hotel booking.
//!
//! | file | operations |
//! |---|---|
//! | `mod.rs` | `/hotelnbc`, `/bookread` (a hotel booking), `/bookmodify` |
//! | `availability` | `/hotelavailability` |
//! | `reservation` | `/hotelbook` |
//! | `supply` | `/hotelavailnotif`, `/hotelinvcountnotif`, `/hotelrateamountnotif` |

mod availability;
mod reservation;
pub(crate) mod supply;

pub use availability::availability;
pub use reservation::book;
pub use supply::{avail_notif, inv_count_notif, rate_amount_notif};

use ota_messages::common::{ErrorCode, ErrorWarningType, LanguageSelector};
use ota_messages::hotel_descriptive_info as hdi;
use ota_messages::hotel_res_modify as m;

use std::sync::Arc;

use super::Area;
use super::booking::{Booking, Rooms};
use super::catalogue::Catalogue;
use super::import::MAX_ROOMS;
use super::mapping;
use super::reader::modify;
use super::repo::{self, find::Lookup, rooms::InventoryError};
use super::rules::{self, BASE, MAX_PROBLEMS, inventory};
use crate::errors::{Problem, warnings};
use crate::shared::action::{Action, Asked};
use crate::shared::context::{Ctx, OpError};
use crate::shared::history::{self, By};
use crate::shared::lang::Languages;
use crate::shared::register;
use crate::store::Conn;

/// `/hotelnbc`: the static content of hotels. Each `HotelDescriptiveInfo` selects one hotel
/// by `HotelCode`, or, when `HotelCode` is empty (or `*`) and `BrandCode` is given, every
/// hotel of that client feed; a hotel selected twice is answered once. One content per hotel
/// in the best language, or one per language for `PrimaryLangID="*"`; `RPH` numbers them and
/// `TransactionIdentifier` gives their range (`1-N/N`).
pub async fn descriptive_info(
    area: &Area,
    rq: &hdi::OtaHotelDescriptiveInfoRq,
) -> Result<hdi::OtaHotelDescriptiveInfoRs, OpError> {
    const ROOT: &str = "/OTA_HotelDescriptiveInfoRQ/HotelDescriptiveInfos/HotelDescriptiveInfo";
    let catalogue = &area.catalogue;
    let mut problems = Vec::new();
    let mut hotels = Vec::new();
    for (i, info) in rq.hotel_descriptive_infos.hotel_descriptive_info.iter().enumerate() {
        let code = info.hotel_code.trim();
        let brand = info.brand_code.as_deref().map(str::trim).filter(|b| !b.is_empty());
        if !code.is_empty() && code != "*" {
            match catalogue.hotel(code) {
                Some(h) => hotels.push(h),
                None => problems.push(
                    Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {code} is not known."))
                        .at(format!("{ROOT}[{}]/@HotelCode", i + 1)),
                ),
            }
        } else if let Some(brand) = brand {
            let before = hotels.len();
            hotels.extend(catalogue.brand(brand));
            if hotels.len() == before {
                problems.push(
                    Problem::biz(ErrorCode::NoHotelsFound, format!("No hotels found for brand {brand}."))
                        .at(format!("{ROOT}[{}]/@BrandCode", i + 1)),
                );
            }
        } else {
            problems.push(
                Problem::required("A HotelDescriptiveInfo needs a HotelCode, or a BrandCode with an empty HotelCode.")
                    .at(format!("{ROOT}[{}]/@HotelCode", i + 1)),
            );
        }
    }
    if !problems.is_empty() {
        return Err(problems.into());
    }
    let mut seen = std::collections::HashSet::new();
    hotels.retain(|h| seen.insert(h.code.as_str()));

    // PrimaryLangID as the service describes it; else OpenTravel's LangRequested.
    let requested = rq.hotel_descriptive_infos.lang_requested.clone().map(LanguageSelector::Other);
    let languages = Languages::new(rq.primary_lang_id.as_ref().or(requested.as_ref()), rq.alt_lang_id.as_deref());
    let mut contents = Vec::new();
    let mut notes = Vec::new();
    for h in hotels {
        let chosen: Vec<&str> = languages.select(&h.texts).into_iter().map(|(l, _)| l).collect();
        if let (Some(wanted), Some(got)) = (languages.requested(), chosen.first())
            && !languages.is_requested(got)
        {
            notes.push(
                Problem::new(
                    ErrorWarningType::Advisory,
                    ErrorCode::LanguageCodeInvalid,
                    format!("Hotel {} is not described in {wanted}; its content is given in {got}.", h.code),
                )
                .at("/OTA_HotelDescriptiveInfoRQ/@PrimaryLangID"),
            );
        }
        for lang in chosen {
            let rph = contents.len() as u64 + 1;
            contents.push(mapping::hotel_content(h, lang, rph, &languages));
        }
    }
    let n = contents.len();
    let mut rs =
        hdi::OtaHotelDescriptiveInfoRs::success(hdi::HotelDescriptiveContents { hotel_descriptive_content: contents });
    rs.transaction_identifier = Some(format!("1-{n}/{n}"));
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// `/bookmodify`: read-then-modify of a hotel booking. The request carries the booking as
/// read, with only the intended change, and its `LastUpdateDateTime` as read. It is compared
/// with the stored booking field by field:
///
/// - **minor** changes are applied without re-pricing: the comments, and the names of guests
///   other than the lead guest (the first `ResGuest`);
/// - **major** changes re-price the room stay from the rates: its room type, its board (the
///   `RoomRate` feature text) and its dates (`TimeSpan`); a board service follows the board of
///   its rooms;
/// - **occupancy** changes are refused (Type 3, Code 172): the number of room stays or guests,
///   a guest's RPH, age qualifying code, age or birth date, who is in a room or uses a service;
/// - any other difference is refused (Type 3, Code 172, "data received differs from stored
///   data") with `Tag` at the differing node.
///
/// Output-only data are not compared (`CreateDateTime`, `HotelName`, `RoomDescription`,
/// `CancelPenalties`, the `MessagePassword` of a room's extension sources). The totals are
/// computed, never taken: a request `Total` that differs from the answered one gets a Type 11
/// warning. A request whose version (`LastUpdateDateTime`, or `LastModifyDateTime` as the read
/// answers it) is not the stored one is refused: it was built from an older version and would
/// undo a change it never saw; a Commit must carry it. `Quote` answers the booking as it would
/// be and stores nothing; `Commit` applies it and moves `LastUpdateDateTime` on (unchanged when
/// nothing changed); no `ResStatus` is what the requestor's dialect says
/// ([`Action::of_request`]). OpenTravel's form of the read answer sent back is taken: its
/// `UniqueID`s must name this booking, its `ResStatus` and `RoomStayReservation` must not ask
/// for a cancel or an activity booking (see [`modify::open_travel_form`]).
pub async fn modify(cx: &Ctx, area: &Area, rq: &m::OtaHotelResModifyRq) -> Result<m::OtaHotelResModifyRs, OpError> {
    let (action, no_status) = Action::of_request(
        rq.res_status.as_ref(),
        cx.requestor.dialect,
        "/OTA_HotelResModifyRQ/@ResStatus",
        Asked::Change,
    )?;
    let hrm = rq.hotel_res_modifies.hotel_res_modify.clone();
    let rooms = hrm.room_stays.as_ref().map_or(0, |r| r.room_stay.len());
    if rooms > MAX_ROOMS {
        return Err(Problem::biz(
            ErrorCode::MaxNumberOfRoomsExceeded,
            format!("A hotel booking holds at most {MAX_ROOMS} rooms; the modification asks for {rooms}."),
        )
        .at(format!("{BASE}/RoomStays/RoomStay[{}]", MAX_ROOMS + 1))
        .into());
    }
    let (client, internal) = modify::booking_references(&hrm);
    if client.is_none() && internal.is_none() {
        return Err(Problem::required(
            "The booking to modify is identified by a HotelReservationID with ResID_Type 36 and ResID_SourceContext Client or Internal.",
        )
        .at(format!("{BASE}/ResGlobalInfo/HotelReservationIDs"))
        .into());
    }
    let problems = modify::open_travel_form(rq, (client.as_deref(), internal.as_deref()));
    if !problems.is_empty() {
        return Err(problems.into());
    }
    let change = Change {
        owner: cx.requestor.id.clone(),
        client,
        internal,
        hrm,
        utc: cx.now,
        now: cx.local_now(),
        catalogue: area.catalogue.clone(),
    };
    let booking = match action {
        Action::Quote => cx.read(move |c| Box::pin(async move { change.preview(c).await })).await?,
        Action::Commit => {
            let booking = cx.write(move |c| Box::pin(async move { change.apply(c).await })).await?;
            crate::metrics::booking_modified("hotel");
            booking
        }
    };
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let mut notes: Vec<Problem> = no_status.into_iter().collect();
    notes.extend(modify::total_notes(&rq.hotel_res_modifies.hotel_res_modify, &booking));
    let rs = m::OtaHotelResModifyRs::success(m::HotelResModifies {
        hotel_res_modify: mapping::hotel_res_modify(&booking, &area.catalogue, &languages),
    });
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// The answer when the rooms a booking (as the request makes it) takes are not left; a store
/// failure stays one. `room_stays` is the tag of the request's room stays.
/// Checks that the rooms a change takes are left now (a Quote or a modify's preview: nothing
/// is stored): those on sale as `hotels` (the content in memory) has them, less those sold as
/// the database has them, read in one statement. Availability counts the same way.
async fn check_inventory(c: &mut Conn<'_>, change: &Rooms, hotels: &Catalogue) -> Result<(), InventoryError> {
    let Some((codes, first, last)) = inventory::taken_span(change) else {
        return Ok(());
    };
    let sold = repo::rooms::rooms_sold(c, &codes, first, last).await?;
    match inventory::first_short(change, hotels, &sold) {
        None => Ok(()),
        Some((night, Some(left))) => Err(InventoryError::Full { night: night.clone(), left }),
        Some((night, None)) => Err(InventoryError::RoomTypeGone(night.clone())),
    }
}

fn not_left(e: InventoryError, booking: &Booking, room_stays: &str) -> OpError {
    match e {
        InventoryError::Full { night, left } => inventory::not_left(booking, &night, Some(left), room_stays).into(),
        InventoryError::RoomTypeGone(night) => inventory::not_left(booking, &night, None, room_stays).into(),
        InventoryError::Store(e) => e.into(),
    }
}

/// The tag of a modify request's room stays.
const ROOM_STAYS: &str = "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays";

/// A modify request, ready to be previewed or applied.
struct Change {
    owner: String,
    client: Option<String>,
    internal: Option<String>,
    hrm: m::HotelResModify,
    utc: chrono::DateTime<chrono::Utc>,
    now: chrono::NaiveDateTime,
    catalogue: Arc<Catalogue>,
}

impl Change {
    /// The stored booking and what the request makes of it.
    async fn plan(&self, c: &mut Conn<'_>, commit: bool) -> Result<(i64, Booking, Booking), OpError> {
        let tag = format!("{BASE}/ResGlobalInfo/HotelReservationIDs");
        let reference = self.internal.as_deref().or(self.client.as_deref()).unwrap_or_default();
        let id = match repo::find::find(c, &self.owner, self.client.as_deref(), self.internal.as_deref()).await? {
            Lookup::Found(at) => at.id,
            Lookup::NotFound
                if register::owns_activity(c, &self.owner, self.client.as_deref(), self.internal.as_deref())
                    .await? =>
            {
                return Err(Problem::not_supported(format!(
                    "Booking {reference} is an activity booking: the modify is for hotel bookings (cancel it and book again)."
                ))
                .at(tag)
                .into());
            }
            Lookup::NotFound => {
                return Err(Problem::biz(
                    ErrorCode::BookingReferenceNotFound,
                    format!("Booking {reference} was not found."),
                )
                .at(tag)
                .into());
            }
            Lookup::Mismatch => {
                return Err(Problem::biz(
                    ErrorCode::BookingReferenceInvalid,
                    "The Client and the Internal booking references designate different bookings.",
                )
                .at(tag)
                .into());
            }
        };
        let stored = repo::find::load(c, id).await?;
        if stored.is_cancelled() {
            return Err(Problem::biz(
                ErrorCode::BookingAlreadyCancelled,
                format!("Booking {} is cancelled; it cannot be modified.", stored.internal_ref),
            )
            .at(tag)
            .into());
        }
        rules::check_version(modify::version_stamp(&self.hrm), &stored, commit)?;
        let desired = modify::plan(&self.hrm, &stored, &self.catalogue, self.utc)
            .map_err(|problems| OpError::Rejected(problems.into_iter().take(MAX_PROBLEMS).collect()))?;
        Ok((id, stored, desired))
    }

    /// The booking as the change would make it, if the rooms it takes are left now.
    async fn preview(&self, c: &mut Conn<'_>) -> Result<Booking, OpError> {
        let (_, stored, desired) = self.plan(c, false).await?;
        let taken = inventory::change(Some(&stored), Some(&desired));
        check_inventory(c, &taken, &self.catalogue).await.map_err(|e| not_left(e, &desired, ROOM_STAYS))?;
        Ok(desired)
    }

    /// Applies the change; refused when the booking changed since it was read.
    async fn apply(&self, c: &mut Conn<'_>) -> Result<Booking, OpError> {
        let (id, stored, mut desired) = self.plan(c, true).await?;
        if desired == stored {
            return Ok(stored);
        }
        desired.updated = rules::next_update(stored.updated, self.now);
        let Some(revision) = repo::save::update(c, id, &desired, stored.updated).await? else {
            return Err(Problem::biz(
                ErrorCode::RequestedActionNotPossible,
                "Booking not changed – it was changed at the same time by another request; read it again.",
            )
            .at(format!("{BASE}/@LastUpdateDateTime"))
            .into());
        };
        // In the same transaction: new dates or room types take rooms, the old ones are given back.
        let taken = inventory::change(Some(&stored), Some(&desired));
        repo::rooms::apply_inventory(c, &taken, false).await.map_err(|e| not_left(e, &desired, ROOM_STAYS))?;
        // In the same transaction: the suppliers of its hotels are told.
        repo::save::record_events(c, &desired, revision, &rules::outbox::events(Some(&stored), &desired)).await?;
        let change = if desired.is_cancelled() { history::Change::Cancelled } else { history::Change::Modified };
        repo::save::record_change(c, &desired, change, By::Partner(&self.owner)).await?;
        Ok(desired)
    }
}
