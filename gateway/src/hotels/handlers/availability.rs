//! `/hotelavailability`.

use std::sync::Arc;

use chrono::Days;
use ota_messages::hotel_avail::{AvailRoomStays, OtaHotelAvailRq, OtaHotelAvailRs};

use crate::errors::warnings;
use crate::hotels::Area;
use crate::hotels::mapping::offers;
use crate::hotels::reader;
use crate::hotels::repo;
use crate::hotels::rules::availability;
use crate::hotels::rules::inventory::Rooms;
use crate::shared::context::{Ctx, OpError};
use crate::shared::lang::Languages;

/// `/hotelavailability`: the offers for the stay and rooms asked for, in one hotel or an area
/// (see [`availability`](mod@availability) for the rules). Each offer can be booked as is with `/hotelbook`;
/// nothing is held. Nothing available: Success with a Type 11 warning. The rate of each night
/// is listed with `Instance="PriceBreakdown"` (as `/hotelbook` and `/activitybook` do).
pub async fn availability(cx: &Ctx, area: &Area, rq: &OtaHotelAvailRq) -> Result<OtaHotelAvailRs, OpError> {
    let catalogue = &area.catalogue;
    let q = reader::availability::query(rq, catalogue, cx.now)?;
    let sold = if q.hotels.is_empty() {
        Arc::new(Rooms::new())
    } else {
        let codes: Vec<String> = q.hotels.iter().map(|h| h.code.clone()).collect();
        let (first, last) = (q.start, q.end.checked_sub_days(Days::new(1)).unwrap_or(q.start));
        area.kept
            .rooms_sold
            .get_or_read(
                (codes.clone(), first, last),
                cx.peek(move |c| {
                    Box::pin(async move {
                        let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
                        Ok(repo::rooms::rooms_sold(c, &codes, first, last).await?)
                    })
                }),
            )
            .await?
    };
    let (found, total) = availability::offers(&q, &sold, catalogue);
    if found.is_empty() {
        return Ok(OtaHotelAvailRs::success().with_warnings(warnings([availability::nothing_found(&q)])));
    }
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let with_breakdown = cx.requestor.wants_price_breakdown();
    let room_stay = found
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let guests = q.rooms.iter().find(|r| r.rph == o.rph).map(|r| r.counts.as_slice()).unwrap_or_default();
            offers::room_stay(o, i as u64 + 1, guests, (q.start, q.end), &languages, with_breakdown)
        })
        .collect();
    let mut rs = OtaHotelAvailRs { room_stays: Some(AvailRoomStays { room_stay }), ..OtaHotelAvailRs::success() };
    rs.transaction_identifier = Some(format!("1-{}/{total}", found.len()));
    Ok(rs)
}
