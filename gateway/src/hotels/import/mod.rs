//! The `hotels` part of an import file (see `gateway/README.md`, "Import file: hotels"): board
//! codes, hotels with their content and rates, and existing bookings. The input types, and
//! their checks, which turn them into catalogue and booking values ready to store: the input
//! types (as serde reads them) are [`input`].

pub mod input;

pub use input::*;

use std::collections::{BTreeMap, HashSet};

use super::booking::{self, Booking};
use super::catalogue::Catalogue;
use super::catalogue::{Allotment, Hotel, HotelText, Image, ImageFile, ImageText, Phone, Rate, RoomText, RoomType};
use super::repo;
use super::rules::inventory;
use crate::shared::booking::Kind;
use crate::shared::cancellation;
use crate::shared::history::{By, Change};
use crate::shared::import::ImportError;
use crate::shared::register::{self, Claim};
use crate::shared::values;
use crate::store::Conn;

/// The demo content (`demo/hotels.json`): four hotels in Mallorca and Barcelona, their rates,
/// and bookings of the requestors `DEMO` and `PARTNER2`.
pub const DEMO: &str = include_str!("../../../demo/hotels.json");

/// The most room stays of a hotel booking.
pub const MAX_ROOMS: usize = 5;

/// The hotels part, checked: boards, hotels and bookings ready to store (bookings may still
/// have unpriced rooms, priced from the stored rates when written).
#[derive(Debug, Clone, Default)]
pub struct ImportedHotels {
    /// Board code → English name.
    pub boards: BTreeMap<String, String>,
    /// The hotels.
    pub hotels: Vec<Hotel>,
    /// The bookings.
    pub bookings: Vec<Booking>,
}

/// The longest hotel and room code.
const MAX_CODE: usize = 32;
/// The longest board code.
const MAX_BOARD: usize = 8;
/// The longest booking reference.
const MAX_REFERENCE: usize = 64;

/// Checks the hotels part and turns it into domain values.
pub fn validate(input: &HotelsInput) -> Result<ImportedHotels, ImportError> {
    let mut out = ImportedHotels::default();
    for b in &input.boards {
        values::code(&b.code, MAX_BOARD).map_err(|e| ImportError::invalid(format!("board {:?}", b.code), e))?;
        out.boards.insert(b.code.clone(), b.name.clone());
    }
    let mut codes = HashSet::new();
    for h in &input.hotels {
        let entry = format!("hotel {:?}", h.code);
        if !codes.insert(h.code.as_str()) {
            return Err(ImportError::invalid(entry, "listed twice"));
        }
        out.hotels.push(hotel(h).map_err(|e| ImportError::invalid(&entry, e))?);
    }
    let mut refs = HashSet::new();
    for b in &input.bookings {
        let entry = format!("booking {:?}", b.internal_ref);
        if !refs.insert(b.internal_ref.as_str()) {
            return Err(ImportError::invalid(entry, "listed twice"));
        }
        out.bookings.push(booking(b).map_err(|e| ImportError::invalid(&entry, e))?);
    }
    Ok(out)
}

/// Writes the hotels part of an import: boards and hotels upserted by code (a hotel's texts,
/// contacts, room types, rates and images replaced), bookings replaced whole by Internal
/// reference, their unpriced rooms priced from the rates as stored after this import; each
/// imported booking takes its rooms as the hotel rules say.
pub(crate) async fn write(c: &mut Conn<'_>, imported: &ImportedHotels) -> Result<(), ImportError> {
    for (code, name) in &imported.boards {
        repo::catalogue::upsert_board(c, code, name).await?;
    }
    let known = repo::catalogue::board_codes(c).await?;
    for h in &imported.hotels {
        if let Some(rate) = h.rates.iter().find(|r| !known.contains(&r.board)) {
            return Err(ImportError::invalid(
                format!("hotel {:?}", h.code),
                format!("rate of {}: board {:?} is not known", rate.room, rate.board),
            ));
        }
        repo::catalogue::replace_hotel(c, h).await?;
    }
    if imported.bookings.is_empty() {
        return Ok(());
    }
    let catalogue = repo::catalogue::load_catalogue(c).await?;
    for b in &imported.bookings {
        let entry = format!("booking {:?}", b.internal_ref);
        let priced = priced(&catalogue, b, &entry)?;
        // The booking this one replaces gives back its rooms and its Client reference.
        let before = match repo::find::id_by_internal(c, &b.internal_ref).await? {
            Some(id) => Some(repo::find::load(c, id).await?),
            None => None,
        };
        if register::internal_of_activity(c, &b.internal_ref).await? {
            return Err(ImportError::invalid(entry, "the Internal reference is an activity booking's"));
        }
        if let Some(old) = &before {
            if old.owner != b.owner {
                return Err(ImportError::invalid(
                    entry,
                    format!("the booking is {:?}'s; an import does not give it to another requestor", old.owner),
                ));
            }
            repo::save::delete_by_internal(c, &b.internal_ref).await?;
            register::release(c, &old.owner, &old.client_ref, Kind::Hotel).await?;
        }
        match register::claim(c, &b.owner, &b.client_ref, Kind::Hotel).await? {
            Claim::Claimed => {}
            Claim::Taken(kind) => {
                let other = match kind {
                    Kind::Hotel => "a hotel booking",
                    Kind::Activity => "an activity booking",
                };
                return Err(ImportError::invalid(
                    entry,
                    format!("client_ref {:?} of {:?} is already {other}'s", b.client_ref, b.owner),
                ));
            }
        }
        if repo::save::insert(c, &priced).await?.is_none() {
            return Err(ImportError::invalid(
                entry,
                format!("internal_ref {:?} is another booking's", priced.internal_ref),
            ));
        }
        let change = if before.is_some() { Change::Modified } else { Change::Created };
        repo::save::record_change(c, &priced, change, By::Operator("import")).await?;
        // An imported booking records what exists: its rooms count as sold even beyond those on sale.
        let taken = inventory::change(before.as_ref(), Some(&priced));
        repo::rooms::apply_inventory(c, &taken, true).await.map_err(|e| match e {
            repo::rooms::InventoryError::Store(e) => ImportError::Store(e),
            other => ImportError::invalid(&entry, other.to_string()),
        })?;
    }
    Ok(())
}

/// An imported booking with its hotels and boards checked, each room stay without a total
/// priced from the rates, and without penalties given its hotel's policy's.
fn priced(catalogue: &Catalogue, b: &Booking, entry: &str) -> Result<Booking, ImportError> {
    let mut priced = b.clone();
    for (i, r) in priced.rooms.iter_mut().enumerate() {
        let Some(hotel) = catalogue.hotel(&r.hotel) else {
            return Err(ImportError::invalid(entry, format!("room stay {}: hotel {:?} is not known", i + 1, r.hotel)));
        };
        if !catalogue.is_board(&r.board) {
            return Err(ImportError::invalid(entry, format!("room stay {}: board {:?} is not known", i + 1, r.board)));
        }
        if r.total.is_none() {
            let guests = u32::try_from(r.guests.len()).unwrap_or(u32::MAX);
            let total = catalogue
                .price(&r.hotel, r.base_room_type(), &r.board, &b.currency, (r.start, r.end), guests)
                .map_err(|e| {
                    let room = format!("{} {} {}", r.hotel, r.room_type, r.board);
                    ImportError::invalid(entry, format!("room stay {} ({room}) cannot be priced: {e}", i + 1))
                })?;
            r.total = Some(total);
        }
        if r.penalties.is_empty() {
            r.penalties = hotel.cancellation.penalties(r.starts_at());
        }
    }
    Ok(priced)
}

fn texts<I, T>(input: &BTreeMap<String, I>, f: impl Fn(&I) -> T) -> Result<BTreeMap<String, T>, String> {
    input.iter().map(|(lang, t)| Ok((values::language(lang)?, f(t)))).collect()
}

fn hotel(h: &HotelInput) -> Result<Hotel, String> {
    values::code(&h.code, MAX_CODE).map_err(|e| format!("code: {e}"))?;
    if h.name.trim().is_empty() {
        return Err("name is empty".into());
    }
    if h.texts.is_empty() {
        return Err("a description in at least one language is required".into());
    }
    let mut rooms: Vec<RoomType> = Vec::new();
    for r in &h.rooms {
        values::code(&r.code, MAX_CODE).map_err(|e| format!("room type: {e}"))?;
        if r.code.contains(';') {
            return Err(format!("room type {:?}: a room code has no ';' suffix (bookings may have one)", r.code));
        }
        if rooms.iter().any(|x| x.code == r.code) {
            return Err(format!("room type {:?} listed twice", r.code));
        }
        if r.max_guests == Some(0) {
            return Err(format!("room type {:?}: max_guests is at least 1", r.code));
        }
        if let Some(a) = r.allotment.iter().find(|a| a.from > a.to) {
            return Err(format!("room type {:?}: allotment from {} to {} ends before it starts", r.code, a.from, a.to));
        }
        rooms.push(RoomType {
            code: r.code.clone(),
            texts: texts(&r.texts, |t| RoomText { name: t.name.clone(), description: t.description.clone() })?,
            units: r.units,
            max_guests: r.max_guests,
            allotment: r.allotment.iter().map(|a| Allotment { from: a.from, to: a.to, units: a.units }).collect(),
        });
    }
    let mut rates = Vec::new();
    for rate in &h.rates {
        if rate.from > rate.to {
            return Err(format!(
                "rate of {} from {} to {}: the period ends before it starts",
                rate.room, rate.from, rate.to
            ));
        }
        if !rooms.iter().any(|r| r.code == rate.room) {
            return Err(format!("rate of {}: the hotel has no such room type", rate.room));
        }
        for (board, amount) in &rate.nightly {
            values::in_currency(amount.0, &rate.currency)
                .map_err(|e| format!("rate of {} for board {board}: {e}", rate.room))?;
            rates.push(Rate {
                room: rate.room.clone(),
                board: board.clone(),
                currency: rate.currency.clone(),
                from: rate.from,
                to: rate.to,
                nightly: amount.0,
            });
        }
    }
    let mut images = Vec::new();
    for (i, img) in h.images.iter().enumerate() {
        if img.formats.is_empty() {
            return Err(format!("image {}: at least one file is required", i + 1));
        }
        images.push(Image {
            category: img.category.clone(),
            files: img
                .formats
                .iter()
                .map(|f| ImageFile { url: f.url.clone(), width: f.width, height: f.height })
                .collect(),
            texts: texts(&img.texts, |t| ImageText { caption: t.caption.clone(), description: t.description.clone() })?,
        });
    }
    let address = h.address.as_ref();
    Ok(Hotel {
        supply: Default::default(),
        code: h.code.clone(),
        name: h.name.clone(),
        code_context: h.code_context.clone(),
        chain: h.chain.clone(),
        brand: h.brand.clone(),
        category_code: h.category_code.clone(),
        category_detail: h.category_detail.clone(),
        category_text: h.category_text.clone(),
        position: h.position.as_ref().map(|p| (p.latitude, p.longitude)),
        address_lines: address.map(|a| a.lines.clone()).unwrap_or_default(),
        city: address.and_then(|a| a.city.clone()),
        postal_code: address.and_then(|a| a.postal_code.clone()),
        country_code: address.and_then(|a| a.country_code.clone()),
        region: h.region.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_string),
        time_zone: h.time_zone.unwrap_or(chrono_tz::UTC),
        phones: h.phones.iter().map(|p| Phone { number: p.number.clone(), tech_type: p.tech_type.clone() }).collect(),
        emails: h.emails.clone(),
        last_modified: h.last_modified,
        texts: texts(&h.texts, |t| HotelText {
            description: t.description.clone(),
            country_name: t.country_name.clone(),
        })?,
        rooms,
        rates,
        images,
        cancellation: cancellation::policy_of(h.cancellation.as_deref()).map_err(|e| format!("cancellation: {e}"))?,
    })
}

fn company(c: &CompanyInput) -> booking::Company {
    booking::Company { name: c.name.clone(), code: c.code.clone(), short_name: c.short_name.clone() }
}

/// One end of an imported transfer leg.
fn point(p: &TransferPointInput) -> booking::TransferPoint {
    match p {
        TransferPointInput::Hotel(h) => booking::TransferPoint::Hotel(h.clone()),
        TransferPointInput::Transport(t) => booking::TransferPoint::Transport(booking::Transport {
            departure: t.departure,
            arrival: t.arrival,
            departure_airport: t.departure_airport.clone(),
            arrival_airport: t.arrival_airport.clone(),
            flight: t.flight.clone(),
        }),
    }
}

fn booking(b: &BookingInput) -> Result<Booking, String> {
    for (field, value) in [("internal_ref", &b.internal_ref), ("client_ref", &b.client_ref), ("owner", &b.owner)] {
        values::code(value, MAX_REFERENCE).map_err(|e| format!("{field}: {e}"))?;
    }
    if b.rooms.is_empty() || b.rooms.len() > MAX_ROOMS {
        return Err(format!("a booking has 1 to {MAX_ROOMS} room stays, not {}", b.rooms.len()));
    }
    if b.guests.is_empty() {
        return Err("a booking has at least one guest".into());
    }
    for (i, r) in b.rooms.iter().enumerate() {
        if let Some(total) = r.total {
            values::in_currency(total, &b.currency).map_err(|e| format!("room stay {}: {e}", i + 1))?;
        }
    }
    let updated = b.last_update.unwrap_or(b.created);
    if updated < b.created {
        return Err("last_update is before created".into());
    }
    let guests: HashSet<u64> = b.guests.iter().map(|g| g.rph).collect();
    let services: HashSet<u64> = b.services.iter().map(|s| s.rph).collect();
    if guests.len() != b.guests.len() || services.len() != b.services.len() {
        return Err("guest and service RPHs must be unique".into());
    }
    if let Some(g) = b.services.iter().flat_map(|s| &s.guests).find(|g| !guests.contains(g)) {
        return Err(format!("guest RPH {g} of a service is not a guest of the booking"));
    }
    for (i, r) in b.rooms.iter().enumerate() {
        if r.start >= r.end {
            return Err(format!("room stay {}: end {} is not after start {}", i + 1, r.end, r.start));
        }
        if let Some(g) = r.guests.iter().find(|g| !guests.contains(g)) {
            return Err(format!("room stay {}: guest RPH {g} is not a guest of the booking", i + 1));
        }
        if let Some(s) = r.services.iter().find(|s| !services.contains(s)) {
            return Err(format!("room stay {}: service RPH {s} is not a service of the booking", i + 1));
        }
    }
    if let Some(r) = b.item_refs.iter().find(|r| r.context != "Client" && r.context != "Internal") {
        return Err(format!("item reference {:?}: context is Client or Internal", r.value));
    }
    Ok(Booking {
        internal_ref: b.internal_ref.clone(),
        client_ref: b.client_ref.clone(),
        owner: b.owner.clone(),
        company: b.company.as_ref().map(company),
        status: b.status.clone(),
        created: b.created,
        updated,
        currency: b.currency.clone(),
        rooms: b.rooms.iter().map(room).collect(),
        services: b
            .services
            .iter()
            .map(|s| booking::Service {
                rph: s.rph,
                code: s.code.clone(),
                guests: s.guests.clone(),
                legs: s
                    .legs
                    .iter()
                    .map(|l| booking::TransferLeg { origin: point(&l.origin), destination: point(&l.destination) })
                    .collect(),
            })
            .collect(),
        guests: b
            .guests
            .iter()
            .map(|g| booking::Guest {
                rph: g.rph,
                age_code: g.age_code.clone(),
                birth_date: g.birth_date,
                prefix: g.prefix.clone(),
                given: g.given.clone(),
                surname: g.surname.clone(),
                age: g.age,
            })
            .collect(),
        comments: b
            .comments
            .iter()
            .map(|c| booking::Comment {
                name: c.name.clone(),
                originator: c.originator.clone(),
                texts: c
                    .texts
                    .iter()
                    .map(|t| booking::LangText { language: t.language.clone(), text: t.text.clone() })
                    .collect(),
            })
            .collect(),
        item_refs: b
            .item_refs
            .iter()
            .map(|r| booking::ItemRef {
                res_id_type: r.res_id_type.clone(),
                context: r.context.clone(),
                value: r.value.clone(),
                item_rph: r.item_rph,
            })
            .collect(),
    })
}

/// A room stay of an imported booking.
fn room(r: &RoomInput) -> booking::Room {
    booking::Room {
        index: r.index,
        status: r.status.clone(),
        hotel: r.hotel.clone(),
        room_type: r.room_type.clone(),
        board: r.board.clone(),
        start: r.start,
        end: r.end,
        total: r.total,
        guests: r.guests.clone(),
        services: r.services.clone(),
        reference: r.reference.as_ref().map(|x| booking::RoomReference { id: x.id.clone(), kind: x.kind.clone() }),
        sources: r
            .sources
            .iter()
            .map(|s| booking::RoomSource {
                kind: s.kind.clone(),
                id: s.id.clone(),
                id_context: s.id_context.clone(),
                instance: s.instance.clone(),
                company: s.company.as_ref().map(company),
            })
            .collect(),
        // Fixed from the hotel's policy when stored.
        penalties: Vec::new(),
        cancelled: None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn the_demo_content_is_valid() {
        let input: HotelsInput = serde_json::from_str(DEMO).unwrap();
        let imported = validate(&input).unwrap_or_else(|e| panic!("{e}"));
        assert!(imported.hotels.len() >= 4 && !imported.bookings.is_empty());
    }

    #[test]
    fn an_invalid_booking_is_named() {
        let mut input: HotelsInput = serde_json::from_str(DEMO).unwrap();
        input.bookings[0].rooms[0].guests.push(99);
        let e = validate(&input).unwrap_err().to_string();
        assert!(e.contains(&format!("booking {:?}", input.bookings[0].internal_ref)) && e.contains("99"), "{e}");
    }
}
