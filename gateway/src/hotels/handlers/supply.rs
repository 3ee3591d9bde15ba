//! The supply notifications: `/hotelavailnotif`, `/hotelinvcountnotif`,
//! `/hotelrateamountnotif` (see [`rules::supply`](crate::hotels::rules::supply) for the rules).
//! Each is read into a [`Notification`] and applied in one transaction, all of it or nothing;
//! every gateway serves the change within a second (its content refresh reads the values
//! written since its supply version, see [`crate::hotels::supply_changes`]).

use crate::hotels::booking::Night;
use crate::hotels::repo::{self, Written};
use crate::hotels::rules::supply::{Applied, Change, Notification};
use crate::shared::context::{Ctx, OpError};
use crate::store::{Conn, StoreError};

/// Applies a notification in the caller's write transaction: the hotel's supply lock taken
/// exclusively first (the bookings taking its rooms wait, or are seen whole), a new supply
/// version, then each value unless a newer notification set it.
pub(crate) async fn apply(c: &mut Conn<'_>, n: &Notification) -> Result<Applied, StoreError> {
    c.lock_hotels(&[n.hotel.as_str()], true).await?;
    let version = repo::next_supply_version(c).await?;
    let mut applied = Applied::default();
    let hotel = n.hotel.as_str();
    for item in &n.items {
        let room = item.room.as_str();
        for day in item.span.days() {
            let (written, rooms) = match &item.change {
                Change::SetRooms(rooms) => (repo::set_rooms(c, (hotel, room, day), *rooms, n.stamp, false, version).await?, Some(*rooms)),
                Change::AdjustRooms(by) => {
                    let night = Night { hotel: hotel.to_string(), room_type: room.to_string(), night: day };
                    let now = repo::on_sale(c, &night).await?.unwrap_or(0);
                    let rooms = u32::try_from((now.saturating_add(*by)).max(0)).unwrap_or(u32::MAX);
                    match repo::set_rooms(c, (hotel, room, day), rooms, n.stamp, true, version).await? {
                        // The same notification again: already applied, not older.
                        Written::Older if repo::supplied_rooms(c, (hotel, room, day)).await?.is_some_and(|(_, at)| at == n.stamp) => continue,
                        written => (written, Some(rooms)),
                    }
                }
                Change::Restriction { board, kind, value } => (repo::set_restriction(c, (hotel, room, board, day), *kind, *value, n.stamp, version).await?, None),
                Change::Rate { board, currency, guests, amount } => {
                    (repo::set_rate(c, (hotel, room, board, currency, day), *guests, *amount, n.stamp, version).await?, None)
                }
            };
            match written {
                Written::Older => applied.older(&item.tag, day),
                Written::Yes => {
                    applied.written += 1;
                    if let Some(rooms) = rooms {
                        let night = Night { hotel: hotel.to_string(), room_type: room.to_string(), night: day };
                        let sold = repo::sold_on(c, &night).await?;
                        if sold > i64::from(rooms) {
                            applied.below_sold.push((item.tag.clone(), room.to_string(), day, rooms, sold));
                        }
                    }
                }
            }
        }
    }
    Ok(applied)
}

/// Applies a read notification in a write transaction of the request.
pub(crate) async fn notify(cx: &Ctx, n: Notification) -> Result<Applied, OpError> {
    let applied = cx.write(move |c| Box::pin(async move { Ok(apply(c, &n).await?) })).await?;
    crate::metrics::supply_applied(applied.written);
    Ok(applied)
}
