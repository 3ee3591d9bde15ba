//! All SQL of the hotels: the catalogue (loaded whole into memory, written by imports) and the
//! bookings (found by reference, loaded one child table at a time, saved whole).

use std::collections::{BTreeMap, HashMap};

use chrono::{Days, NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;

use super::booking::{
    Booking, BookingHead, Comment, Company, Guest, ItemRef, LangText, Room, RoomReference, RoomSource, Service, TransferLeg, TransferPoint,
    Transport,
};
use super::catalogue::{Allotment, Catalogue, Hotel, HotelText, Image, ImageFile, ImageText, Phone, Rate, RoomText, RoomType};
use super::import::ImportedHotels;
use super::rules::{inventory, reservation};
use crate::shared::reference;
use crate::shared::register::{self, Claim};
use crate::shared::booking::{Kind, ListDate};
use crate::shared::import::ImportError;
use crate::row;
use crate::shared::cancellation::Cancellation;
use crate::shared::policy_repo::{self, CancelRuleRow, PenaltyRow};
use crate::store::{Conn, Scalar, Sequence, StoreError};

/// A stored unsigned number (RPH, index, age) as the message's `u64`.
fn unsigned(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Data(format!("negative number {v}")))
}

/// A message's unsigned number as a stored integer.
fn signed(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Data(format!("number {v} is too large to store")))
}

fn group<K: std::hash::Hash + Eq, R>(rows: Vec<R>, key: impl Fn(&R) -> K) -> HashMap<K, Vec<R>> {
    let mut out: HashMap<K, Vec<R>> = HashMap::new();
    for r in rows {
        out.entry(key(&r)).or_default().push(r);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The catalogue

row! {
    /// A `hotel` row.
    struct HotelRow {
        code: String, name: String, code_context: Option<String>, chain_name: Option<String>, brand_code: Option<String>,
        category_code: String, category_detail: Option<String>, category_text: Option<String>, latitude: Option<Decimal>,
        longitude: Option<Decimal>, city_name: Option<String>, postal_code: Option<String>, country_code: Option<String>,
        region: Option<String>, last_modified: NaiveDate,
    }
}

row! {
    /// A `hotel_text` row.
    struct HotelTextRow { hotel_code: String, language: String, description: String, country_name: Option<String> }
}

row! {
    /// A `hotel_address_line` or `hotel_email` row.
    struct HotelLineRow { hotel_code: String, line: String }
}

row! {
    /// A `hotel_phone` row.
    struct PhoneRow { hotel_code: String, number: String, tech_type: Option<String> }
}

row! {
    /// A `hotel_room_type` row with one of its texts (if any).
    struct RoomTypeRow {
        hotel_code: String, code: String, units: i64, max_guests: Option<i64>, language: Option<String>, name: Option<String>,
        description: Option<String>,
    }
}

row! {
    /// A `hotel_allotment` row.
    struct AllotmentRow { hotel_code: String, room_code: String, start_date: NaiveDate, end_date: NaiveDate, units: i64 }
}


row! {
    /// A `hotel_rate` row.
    struct RateRow {
        hotel_code: String, room_code: String, board_code: String, currency: String, start_date: NaiveDate, end_date: NaiveDate,
        nightly_amount: Decimal,
    }
}

row! {
    /// A `hotel_image` row.
    struct ImageRow { hotel_code: String, position: i64, category: Option<String> }
}

row! {
    /// A `hotel_image_format` row.
    struct ImageFileRow { hotel_code: String, image_position: i64, url: String, width: Option<i64>, height: Option<i64> }
}

row! {
    /// A `hotel_image_text` row.
    struct ImageTextRow { hotel_code: String, image_position: i64, language: String, caption: Option<String>, description: String }
}

row! {
    /// A `hotel_board` row.
    struct BoardRow { code: String, name: String }
}

/// Every hotel and board, one query per table.
pub(crate) async fn load_catalogue(c: &mut Conn<'_>) -> Result<Catalogue, StoreError> {
    let hotels: Vec<HotelRow> = c
        .query(
            "SELECT code, name, code_context, chain_name, brand_code, category_code, category_detail, category_text, latitude, longitude,
                    city_name, postal_code, country_code, region, last_modified
             FROM hotel ORDER BY code",
            &[],
        )
        .await?;
    let texts: Vec<HotelTextRow> =
        c.query("SELECT hotel_code, language, description, country_name FROM hotel_text ORDER BY hotel_code, language", &[]).await?;
    let lines: Vec<HotelLineRow> = c.query("SELECT hotel_code, line FROM hotel_address_line ORDER BY hotel_code, position", &[]).await?;
    let phones: Vec<PhoneRow> = c.query("SELECT hotel_code, number, tech_type FROM hotel_phone ORDER BY hotel_code, position", &[]).await?;
    let emails: Vec<HotelLineRow> = c.query("SELECT hotel_code, email FROM hotel_email ORDER BY hotel_code, position", &[]).await?;
    let rooms: Vec<RoomTypeRow> = c
        .query(
            "SELECT t.hotel_code, t.code, t.units, t.max_guests, x.language, x.name, x.description
             FROM hotel_room_type t LEFT JOIN hotel_room_type_text x ON x.hotel_code = t.hotel_code AND x.room_code = t.code
             ORDER BY t.hotel_code, t.position, x.language",
            &[],
        )
        .await?;
    let allotments: Vec<AllotmentRow> =
        c.query("SELECT hotel_code, room_code, start_date, end_date, units FROM hotel_allotment ORDER BY hotel_code, room_code, start_date", &[]).await?;
    let rules: Vec<CancelRuleRow> = policy_repo::load_rules(c, policy_repo::HOTEL_RULES).await?;
    let rates: Vec<RateRow> = c
        .query(
            "SELECT hotel_code, room_code, board_code, currency, start_date, end_date, nightly_amount FROM hotel_rate
             ORDER BY hotel_code, room_code, board_code, currency, start_date",
            &[],
        )
        .await?;
    let images: Vec<ImageRow> = c.query("SELECT hotel_code, position, category FROM hotel_image ORDER BY hotel_code, position", &[]).await?;
    let files: Vec<ImageFileRow> = c
        .query("SELECT hotel_code, image_position, url, width, height FROM hotel_image_format ORDER BY hotel_code, image_position, position", &[])
        .await?;
    let image_texts: Vec<ImageTextRow> = c
        .query(
            "SELECT hotel_code, image_position, language, caption, description FROM hotel_image_text ORDER BY hotel_code, image_position, language",
            &[],
        )
        .await?;
    let boards: Vec<BoardRow> = c.query("SELECT code, name FROM hotel_board ORDER BY code", &[]).await?;

    let mut texts = group(texts, |r| r.hotel_code.clone());
    let mut lines = group(lines, |r| r.hotel_code.clone());
    let mut phones = group(phones, |r| r.hotel_code.clone());
    let mut emails = group(emails, |r| r.hotel_code.clone());
    let mut rooms = group(rooms, |r| r.hotel_code.clone());
    let mut rates = group(rates, |r| r.hotel_code.clone());
    let mut images = group(images, |r| r.hotel_code.clone());
    let mut files = group(files, |r| (r.hotel_code.clone(), r.image_position));
    let mut image_texts = group(image_texts, |r| (r.hotel_code.clone(), r.image_position));
    let mut allotments = group(allotments, |r| (r.hotel_code.clone(), r.room_code.clone()));
    let mut rules = group(rules, |r| r.owner.clone());
    let count = |v: i64| u32::try_from(v).map_err(|_| StoreError::Data(format!("room count {v}")));

    let mut out = Vec::with_capacity(hotels.len());
    for h in hotels {
        let mut room_types: Vec<RoomType> = Vec::new();
        for r in rooms.remove(&h.code).unwrap_or_default() {
            if room_types.last().is_none_or(|t| t.code != r.code) {
                let allotment = allotments
                    .remove(&(h.code.clone(), r.code.clone()))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| Ok(Allotment { from: a.start_date, to: a.end_date, units: count(a.units)? }))
                    .collect::<Result<_, StoreError>>()?;
                room_types.push(RoomType {
                    code: r.code.clone(),
                    texts: BTreeMap::new(),
                    units: count(r.units)?,
                    max_guests: r.max_guests.map(count).transpose()?,
                    allotment,
                });
            }
            if let (Some(t), Some(lang), Some(name)) = (room_types.last_mut(), r.language, r.name) {
                t.texts.insert(lang, RoomText { name, description: r.description });
            }
        }
        let mut hotel_images = Vec::new();
        for img in images.remove(&h.code).unwrap_or_default() {
            let key = (h.code.clone(), img.position);
            hotel_images.push(Image {
                category: img.category,
                files: files
                    .remove(&key)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|f| Ok(ImageFile { url: f.url, width: f.width.map(unsigned).transpose()?, height: f.height.map(unsigned).transpose()? }))
                    .collect::<Result<_, StoreError>>()?,
                texts: image_texts
                    .remove(&key)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|t| (t.language, ImageText { caption: t.caption, description: t.description }))
                    .collect(),
            });
        }
        out.push(Hotel {
            texts: texts
                .remove(&h.code)
                .unwrap_or_default()
                .into_iter()
                .map(|t| (t.language, HotelText { description: t.description, country_name: t.country_name }))
                .collect(),
            address_lines: lines.remove(&h.code).unwrap_or_default().into_iter().map(|l| l.line).collect(),
            phones: phones.remove(&h.code).unwrap_or_default().into_iter().map(|p| Phone { number: p.number, tech_type: p.tech_type }).collect(),
            emails: emails.remove(&h.code).unwrap_or_default().into_iter().map(|e| e.line).collect(),
            rooms: room_types,
            rates: rates
                .remove(&h.code)
                .unwrap_or_default()
                .into_iter()
                .map(|r| Rate { room: r.room_code, board: r.board_code, currency: r.currency, from: r.start_date, to: r.end_date, nightly: r.nightly_amount })
                .collect(),
            images: hotel_images,
            cancellation: policy_repo::policy(rules.remove(&h.code).unwrap_or_default())?,
            position: h.latitude.zip(h.longitude),
            code: h.code,
            name: h.name,
            code_context: h.code_context,
            chain: h.chain_name,
            brand: h.brand_code,
            category_code: h.category_code,
            category_detail: h.category_detail,
            category_text: h.category_text,
            city: h.city_name,
            postal_code: h.postal_code,
            country_code: h.country_code,
            region: h.region,
            last_modified: h.last_modified,
        });
    }
    Ok(Catalogue::new(out, boards.into_iter().map(|b| (b.code, b.name)).collect()))
}

/// Writes the hotels part of an import: boards and hotels upserted by code (a hotel's texts,
/// contacts, room types, rates and images replaced), bookings replaced whole by Internal
/// reference, their unpriced rooms priced from the rates as stored after this import.
pub(crate) async fn import(c: &mut Conn<'_>, imported: &ImportedHotels) -> Result<(), ImportError> {
    for (code, name) in &imported.boards {
        c.execute("INSERT INTO hotel_board (code, name) VALUES ($1, $2) ON CONFLICT (code) DO UPDATE SET name = excluded.name", &[code, name]).await?;
    }
    let known: Vec<Scalar<String>> = c.query("SELECT code FROM hotel_board", &[]).await?;
    for h in &imported.hotels {
        if let Some(rate) = h.rates.iter().find(|r| !known.iter().any(|Scalar(b)| *b == r.board)) {
            return Err(ImportError::invalid(format!("hotel {:?}", h.code), format!("rate of {}: board {:?} is not known", rate.room, rate.board)));
        }
        replace_hotel(c, h).await?;
    }
    if imported.bookings.is_empty() {
        return Ok(());
    }
    let catalogue = load_catalogue(c).await?;
    for b in &imported.bookings {
        let entry = format!("booking {:?}", b.internal_ref);
        let mut priced = b.clone();
        for (i, r) in priced.rooms.iter_mut().enumerate() {
            let Some(hotel) = catalogue.hotel(&r.hotel) else {
                return Err(ImportError::invalid(&entry, format!("room stay {}: hotel {:?} is not known", i + 1, r.hotel)));
            };
            if !catalogue.is_board(&r.board) {
                return Err(ImportError::invalid(&entry, format!("room stay {}: board {:?} is not known", i + 1, r.board)));
            }
            if r.total.is_none() {
                let total = catalogue
                    .price(&r.hotel, r.base_room_type(), &r.board, &b.currency, r.start, r.end)
                    .map_err(|e| ImportError::invalid(&entry, format!("room stay {} ({} {} {}) cannot be priced: {e}", i + 1, r.hotel, r.room_type, r.board)))?;
                r.total = Some(total);
            }
            if r.penalties.is_empty() {
                r.penalties = hotel.cancellation.penalties(r.starts_at());
            }
        }
        // The booking this one replaces gives back its rooms and its Client reference.
        let before = match c.query_opt::<Scalar<i64>>("SELECT id FROM hotel_booking WHERE internal_ref = $1", &[&b.internal_ref]).await? {
            Some(Scalar(id)) => Some(load(c, id).await?),
            None => None,
        };
        if let Some(old) = &before {
            c.execute("DELETE FROM hotel_booking WHERE internal_ref = $1", &[&b.internal_ref]).await?;
            register::release(c, &old.owner, &old.client_ref, Kind::Hotel).await?;
        }
        match register::claim(c, &b.owner, &b.client_ref, Kind::Hotel).await? {
            Claim::Claimed => {}
            Claim::Taken(kind) => {
                let other = match kind {
                    Kind::Hotel => "a hotel booking",
                    Kind::Activity => "an activity booking",
                };
                return Err(ImportError::invalid(entry, format!("client_ref {:?} of {:?} is already {other}'s", b.client_ref, b.owner)));
            }
        }
        insert(c, &priced).await?;
        // An imported booking records what exists: its rooms count as sold even beyond those on sale.
        apply_inventory(c, &inventory::change(before.as_ref(), Some(&priced)), true).await.map_err(|e| match e {
            InventoryError::Store(e) => ImportError::Store(e),
            other => ImportError::invalid(&entry, other.to_string()),
        })?;
    }
    Ok(())
}

async fn replace_hotel(c: &mut Conn<'_>, h: &Hotel) -> Result<(), StoreError> {
    let (latitude, longitude) = (h.position.map(|p| p.0), h.position.map(|p| p.1));
    c.execute(
        "INSERT INTO hotel (code, name, code_context, chain_name, brand_code, category_code, category_detail, category_text,
                            latitude, longitude, city_name, postal_code, country_code, last_modified, region)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (code) DO UPDATE SET
            name = excluded.name, code_context = excluded.code_context, chain_name = excluded.chain_name,
            brand_code = excluded.brand_code, category_code = excluded.category_code,
            category_detail = excluded.category_detail, category_text = excluded.category_text,
            latitude = excluded.latitude, longitude = excluded.longitude, city_name = excluded.city_name,
            postal_code = excluded.postal_code, country_code = excluded.country_code, last_modified = excluded.last_modified,
            region = excluded.region",
        &[
            &h.code,
            &h.name,
            &h.code_context,
            &h.chain,
            &h.brand,
            &h.category_code,
            &h.category_detail,
            &h.category_text,
            &latitude,
            &longitude,
            &h.city,
            &h.postal_code,
            &h.country_code,
            &h.last_modified,
            &h.region,
        ],
    )
    .await?;
    policy_repo::save_policy(c, policy_repo::HOTEL_RULES, &h.code, &h.cancellation).await?;
    for sql in [
        "DELETE FROM hotel_text WHERE hotel_code = $1",
        "DELETE FROM hotel_address_line WHERE hotel_code = $1",
        "DELETE FROM hotel_phone WHERE hotel_code = $1",
        "DELETE FROM hotel_email WHERE hotel_code = $1",
        "DELETE FROM hotel_room_type WHERE hotel_code = $1",
        "DELETE FROM hotel_image WHERE hotel_code = $1",
    ] {
        c.execute(sql, &[&h.code]).await?;
    }
    for (lang, t) in &h.texts {
        c.execute(
            "INSERT INTO hotel_text (hotel_code, language, description, country_name) VALUES ($1, $2, $3, $4)",
            &[&h.code, lang, &t.description, &t.country_name],
        )
        .await?;
    }
    for (pos, line) in h.address_lines.iter().enumerate() {
        c.execute("INSERT INTO hotel_address_line (hotel_code, position, line) VALUES ($1, $2, $3)", &[&h.code, &(pos as i64), line]).await?;
    }
    for (pos, p) in h.phones.iter().enumerate() {
        c.execute("INSERT INTO hotel_phone (hotel_code, position, number, tech_type) VALUES ($1, $2, $3, $4)", &[&h.code, &(pos as i64), &p.number, &p.tech_type])
            .await?;
    }
    for (pos, e) in h.emails.iter().enumerate() {
        c.execute("INSERT INTO hotel_email (hotel_code, position, email) VALUES ($1, $2, $3)", &[&h.code, &(pos as i64), e]).await?;
    }
    for (pos, r) in h.rooms.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_room_type (hotel_code, code, position, units, max_guests) VALUES ($1, $2, $3, $4, $5)",
            &[&h.code, &r.code, &(pos as i64), &i64::from(r.units), &r.max_guests.map(i64::from)],
        )
        .await?;
        for a in &r.allotment {
            c.execute(
                "INSERT INTO hotel_allotment (hotel_code, room_code, start_date, end_date, units) VALUES ($1, $2, $3, $4, $5)",
                &[&h.code, &r.code, &a.from, &a.to, &i64::from(a.units)],
            )
            .await?;
        }
        for (lang, t) in &r.texts {
            c.execute(
                "INSERT INTO hotel_room_type_text (hotel_code, room_code, language, name, description) VALUES ($1, $2, $3, $4, $5)",
                &[&h.code, &r.code, lang, &t.name, &t.description],
            )
            .await?;
        }
    }
    for r in &h.rates {
        c.execute(
            "INSERT INTO hotel_rate (hotel_code, room_code, board_code, currency, start_date, end_date, nightly_amount)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[&h.code, &r.room, &r.board, &r.currency, &r.from, &r.to, &r.nightly],
        )
        .await?;
    }
    for (pos, img) in h.images.iter().enumerate() {
        let pos = pos as i64;
        c.execute("INSERT INTO hotel_image (hotel_code, position, category) VALUES ($1, $2, $3)", &[&h.code, &pos, &img.category]).await?;
        for (fpos, f) in img.files.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_image_format (hotel_code, image_position, position, url, width, height) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&h.code, &pos, &(fpos as i64), &f.url, &f.width.map(signed).transpose()?, &f.height.map(signed).transpose()?],
            )
            .await?;
        }
        for (lang, t) in &img.texts {
            c.execute(
                "INSERT INTO hotel_image_text (hotel_code, image_position, language, caption, description) VALUES ($1, $2, $3, $4, $5)",
                &[&h.code, &pos, lang, &t.caption, &t.description],
            )
            .await?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Finding bookings

/// A stored booking: its row id and its revision (see [`next_revision`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BookingRef {
    /// The row id.
    pub id: i64,
    /// The revision: a new one for every write of the booking.
    pub revision: i64,
}

row! {
    /// A booking's row id and revision.
    struct RefRow { id: i64, revision: i64 }
}

/// What a booking reference leads to, for a given requestor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The booking.
    Found(BookingRef),
    /// No booking of this requestor has the reference. (A booking of another requestor is
    /// reported the same way, so references of other partners cannot be probed.)
    NotFound,
    /// The Client and the Internal reference lead to different bookings.
    Mismatch,
}

/// Finds a booking of `owner` by its Client and/or Internal booking-level reference.
pub(crate) async fn find(c: &mut Conn<'_>, owner: &str, client: Option<&str>, internal: Option<&str>) -> Result<Lookup, StoreError> {
    let found = |r: Option<RefRow>| r.map(|r| BookingRef { id: r.id, revision: r.revision });
    let by_client = match client {
        Some(r) => Some(found(c.query_opt("SELECT id, revision FROM hotel_booking WHERE requestor_id = $1 AND client_ref = $2", &[&owner, &r]).await?)),
        None => None,
    };
    let by_internal = match internal {
        Some(r) => Some(found(c.query_opt("SELECT id, revision FROM hotel_booking WHERE requestor_id = $1 AND internal_ref = $2", &[&owner, &r]).await?)),
        None => None,
    };
    Ok(match (by_client, by_internal) {
        (Some(Some(a)), Some(Some(b))) if a.id != b.id => Lookup::Mismatch,
        (Some(Some(a)), Some(Some(_))) | (Some(Some(a)), None) | (None, Some(Some(a))) => Lookup::Found(a),
        _ => Lookup::NotFound,
    })
}

row! {
    /// A booking's row id and an item number.
    struct ItemRow { id: i64, item_rph: Option<i64> }
}

/// Finds an item of a booking of `owner` by its item-level (Type 37) reference, as a Client
/// and/or Internal one: the booking's row id and the item's number.
pub(crate) async fn find_item(c: &mut Conn<'_>, owner: &str, reference: &str, by_client: bool, by_internal: bool) -> Result<Option<(i64, u64)>, StoreError> {
    let contexts: Vec<&str> = [(by_client, "Client"), (by_internal, "Internal")].into_iter().filter(|(on, _)| *on).map(|(_, c)| c).collect();
    for context in contexts {
        let row: Option<ItemRow> = c
            .query_opt(
                "SELECT b.id, r.item_rph FROM hotel_booking_reference r JOIN hotel_booking b ON b.id = r.booking_id
                 WHERE b.requestor_id = $1 AND r.value = $2 AND r.source_context = $3 AND r.res_id_type = '37'",
                &[&owner, &reference, &context],
            )
            .await?;
        if let Some(ItemRow { id, item_rph: Some(rph) }) = row {
            return Ok(Some((id, u64::try_from(rph).map_err(|_| StoreError::Data(format!("item_rph {rph}")))?)));
        }
    }
    Ok(None)
}

/// The booking of `owner` with this reference as a Client one (`by_client`), else as an
/// Internal one (`by_internal`).
pub(crate) async fn find_by_reference(c: &mut Conn<'_>, owner: &str, reference: &str, by_client: bool, by_internal: bool) -> Result<Lookup, StoreError> {
    let mut lookup = Lookup::NotFound;
    if by_client {
        lookup = find(c, owner, Some(reference), None).await?;
    }
    if by_internal && lookup == Lookup::NotFound {
        lookup = find(c, owner, None, Some(reference)).await?;
    }
    Ok(lookup)
}

/// A revision never given before: every write of a booking takes one.
async fn next_revision(c: &mut Conn<'_>) -> Result<i64, StoreError> {
    c.next_in(Sequence::HotelBookingRevision).await
}

row! {
    /// The head of a `hotel_booking` row.
    struct HeadRow {
        internal_ref: String, client_ref: String, company_name: Option<String>, company_code: Option<String>,
        company_short_name: Option<String>, status: String, created_at: NaiveDateTime, updated_at: NaiveDateTime,
    }
}

impl HeadRow {
    fn head(self) -> BookingHead {
        BookingHead {
            internal_ref: self.internal_ref,
            client_ref: self.client_ref,
            company: company(self.company_name, self.company_code, self.company_short_name),
            status: self.status,
            created: self.created_at,
            updated: self.updated_at,
        }
    }
}

fn company(name: Option<String>, code: Option<String>, short_name: Option<String>) -> Option<Company> {
    name.map(|name| Company { name, code, short_name })
}

/// The bookings of `owner` whose date of the given kind falls between `start` and `end`
/// (inclusive), optionally with a given status, ordered by that date.
pub(crate) async fn list(c: &mut Conn<'_>, owner: &str, by: ListDate, start: NaiveDate, end: NaiveDate, status: Option<&str>) -> Result<Vec<BookingHead>, StoreError> {
    const HEAD: &str = "SELECT internal_ref, client_ref, company_name, company_code, company_short_name, status, created_at, updated_at FROM hotel_booking";
    let day_after = end.checked_add_days(Days::new(1)).unwrap_or(end);
    let (from_instant, to_instant) = (start.and_time(chrono::NaiveTime::MIN), day_after.and_time(chrono::NaiveTime::MIN));
    let status = status.map(str::to_string);
    let rows: Vec<HeadRow> = match by {
        ListDate::Arrival => {
            c.query(
                &format!("{HEAD} WHERE requestor_id = $1 AND arrival BETWEEN $2 AND $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY arrival, created_at, internal_ref"),
                &[&owner, &start, &end, &status],
            )
            .await?
        }
        ListDate::Departure => {
            c.query(
                &format!(
                    "{HEAD} WHERE requestor_id = $1 AND departure BETWEEN $2 AND $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY departure, created_at, internal_ref"
                ),
                &[&owner, &start, &end, &status],
            )
            .await?
        }
        ListDate::Created => {
            c.query(
                &format!("{HEAD} WHERE requestor_id = $1 AND created_at >= $2 AND created_at < $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY created_at, internal_ref"),
                &[&owner, &from_instant, &to_instant, &status],
            )
            .await?
        }
        ListDate::Updated => {
            c.query(
                &format!(
                    "{HEAD} WHERE requestor_id = $1 AND updated_at >= $2 AND updated_at < $3 AND (CAST($4 AS TEXT) IS NULL OR status = $4) ORDER BY updated_at, created_at, internal_ref"
                ),
                &[&owner, &from_instant, &to_instant, &status],
            )
            .await?
        }
    };
    Ok(rows.into_iter().map(HeadRow::head).collect())
}

// ---------------------------------------------------------------------------------------------
// Loading a booking

row! {
    /// A `hotel_booking` row.
    struct BookingRow {
        internal_ref: String, client_ref: String, requestor_id: String, company_name: Option<String>, company_code: Option<String>,
        company_short_name: Option<String>, status: String, created_at: NaiveDateTime, updated_at: NaiveDateTime, currency: String,
    }
}

row! {
    /// A `hotel_booking_guest` row.
    struct GuestRow {
        rph: i64, age_qualifying_code: String, birth_date: Option<NaiveDate>, name_prefix: Option<String>, given_name: Option<String>,
        surname: Option<String>, age: Option<i64>,
    }
}

row! {
    /// A `hotel_booking_service` row.
    struct ServiceRow { rph: i64, inventory_code: String }
}

row! {
    /// A link of a booking child to an RPH (`hotel_booking_service_guest`, `…_room_guest`, `…_room_service`).
    struct LinkRow { owner: i64, rph: i64 }
}

row! {
    /// A `hotel_booking_transfer_end` row.
    struct TransferEndRow {
        service_rph: i64, leg_position: i64, end_kind: String, kind: String, hotel_code: Option<String>,
        departure_at: Option<NaiveDateTime>, arrival_at: Option<NaiveDateTime>, departure_airport: Option<String>,
        arrival_airport: Option<String>, flight_number: Option<String>,
    }
}

row! {
    /// A `hotel_booking_room` row.
    struct RoomRow {
        position: i64, index_number: Option<i64>, status: Option<String>, hotel_code: String, room_type_code: String, board_code: String,
        start_date: NaiveDate, end_date: NaiveDate, total: Decimal, reference_id: Option<String>, reference_type: Option<String>,
        cancelled_at: Option<NaiveDateTime>, cancel_penalty: Option<Decimal>,
    }
}

row! {
    /// A `hotel_booking_room_source` row.
    struct RoomSourceRow {
        room_position: i64, kind: String, id: String, id_context: Option<String>, instance: Option<String>, company_name: Option<String>,
        company_code: Option<String>, company_short_name: Option<String>,
    }
}

row! {
    /// A `hotel_booking_comment` row.
    struct CommentRow { position: i64, name: Option<String>, originator: Option<String> }
}

row! {
    /// A `hotel_booking_comment_text` row.
    struct CommentTextRow { comment_position: i64, language: Option<String>, text: String }
}

row! {
    /// A `hotel_booking_reference` row.
    struct ItemRefRow { res_id_type: String, source_context: String, value: String, item_rph: Option<i64> }
}

async fn load_guests(c: &mut Conn<'_>, id: i64) -> Result<Vec<Guest>, StoreError> {
    let rows: Vec<GuestRow> = c
        .query(
            "SELECT rph, age_qualifying_code, birth_date, name_prefix, given_name, surname, age FROM hotel_booking_guest WHERE booking_id = $1 ORDER BY position",
            &[&id],
        )
        .await?;
    rows.into_iter()
        .map(|g| {
            Ok(Guest {
                rph: unsigned(g.rph)?,
                age_code: g.age_qualifying_code,
                birth_date: g.birth_date,
                prefix: g.name_prefix,
                given: g.given_name,
                surname: g.surname,
                age: g.age.map(unsigned).transpose()?,
            })
        })
        .collect()
}

async fn load_services(c: &mut Conn<'_>, id: i64) -> Result<Vec<Service>, StoreError> {
    let rows: Vec<ServiceRow> = c.query("SELECT rph, inventory_code FROM hotel_booking_service WHERE booking_id = $1 ORDER BY position", &[&id]).await?;
    let guests: Vec<LinkRow> = c
        .query("SELECT service_rph, guest_rph FROM hotel_booking_service_guest WHERE booking_id = $1 ORDER BY service_rph, position", &[&id])
        .await?;
    let ends: Vec<TransferEndRow> = c
        .query(
            "SELECT service_rph, leg_position, end_kind, kind, hotel_code, departure_at, arrival_at, departure_airport, arrival_airport, flight_number
             FROM hotel_booking_transfer_end WHERE booking_id = $1 ORDER BY service_rph, leg_position, end_kind DESC",
            &[&id],
        )
        .await?;
    let mut guests = group(guests, |l| l.owner);
    // (service, leg) → (origin, destination)
    let mut legs: BTreeMap<(i64, i64), (Option<TransferPoint>, Option<TransferPoint>)> = BTreeMap::new();
    for e in ends {
        let point = match (e.kind.as_str(), e.hotel_code) {
            ("hotel", Some(h)) => TransferPoint::Hotel(h),
            _ => TransferPoint::Transport(Transport {
                departure: e.departure_at,
                arrival: e.arrival_at,
                departure_airport: e.departure_airport,
                arrival_airport: e.arrival_airport,
                flight: e.flight_number,
            }),
        };
        let entry = legs.entry((e.service_rph, e.leg_position)).or_default();
        if e.end_kind == "origin" {
            entry.0 = Some(point);
        } else {
            entry.1 = Some(point);
        }
    }
    let mut legs_by_service: HashMap<i64, Vec<TransferLeg>> = HashMap::new();
    for ((service, _), ends) in legs {
        let (Some(origin), Some(destination)) = ends else {
            return Err(StoreError::Data(format!("a transfer leg of service {service} lacks an end")));
        };
        legs_by_service.entry(service).or_default().push(TransferLeg { origin, destination });
    }
    rows.into_iter()
        .map(|s| {
            Ok(Service {
                rph: unsigned(s.rph)?,
                code: s.inventory_code,
                guests: guests.remove(&s.rph).unwrap_or_default().into_iter().map(|l| unsigned(l.rph)).collect::<Result<_, _>>()?,
                legs: legs_by_service.remove(&s.rph).unwrap_or_default(),
            })
        })
        .collect()
}

async fn load_rooms(c: &mut Conn<'_>, id: i64) -> Result<Vec<Room>, StoreError> {
    let rows: Vec<RoomRow> = c
        .query(
            "SELECT position, index_number, status, hotel_code, room_type_code, board_code, start_date, end_date, total, reference_id, reference_type,
                    cancelled_at, cancel_penalty
             FROM hotel_booking_room WHERE booking_id = $1 ORDER BY position",
            &[&id],
        )
        .await?;
    let penalties: Vec<PenaltyRow> = c
        .query("SELECT room_position, deadline, percent FROM hotel_booking_room_penalty WHERE booking_id = $1 ORDER BY room_position, position", &[&id])
        .await?;
    let mut penalties = group(penalties, |p| p.item);
    let guests: Vec<LinkRow> =
        c.query("SELECT room_position, guest_rph FROM hotel_booking_room_guest WHERE booking_id = $1 ORDER BY room_position, position", &[&id]).await?;
    let services: Vec<LinkRow> = c
        .query("SELECT room_position, service_rph FROM hotel_booking_room_service WHERE booking_id = $1 ORDER BY room_position, position", &[&id])
        .await?;
    let sources: Vec<RoomSourceRow> = c
        .query(
            "SELECT room_position, type, id, id_context, instance, company_name, company_code, company_short_name
             FROM hotel_booking_room_source WHERE booking_id = $1 ORDER BY room_position, position",
            &[&id],
        )
        .await?;
    let mut guests = group(guests, |l| l.owner);
    let mut services = group(services, |l| l.owner);
    let mut sources = group(sources, |s| s.room_position);
    rows.into_iter()
        .map(|r| {
            Ok(Room {
                index: r.index_number.map(unsigned).transpose()?,
                status: r.status,
                hotel: r.hotel_code,
                room_type: r.room_type_code,
                board: r.board_code,
                start: r.start_date,
                end: r.end_date,
                total: Some(r.total),
                guests: guests.remove(&r.position).unwrap_or_default().into_iter().map(|l| unsigned(l.rph)).collect::<Result<_, _>>()?,
                services: services.remove(&r.position).unwrap_or_default().into_iter().map(|l| unsigned(l.rph)).collect::<Result<_, _>>()?,
                reference: (r.reference_id.is_some() || r.reference_type.is_some()).then_some(RoomReference { id: r.reference_id, kind: r.reference_type }),
                penalties: penalties.remove(&r.position).unwrap_or_default().iter().map(PenaltyRow::penalty).collect(),
                cancelled: r.cancelled_at.map(|at| Cancellation { at, penalty: r.cancel_penalty.unwrap_or_default() }),
                sources: sources
                    .remove(&r.position)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| RoomSource {
                        kind: s.kind,
                        id: s.id,
                        id_context: s.id_context,
                        instance: s.instance,
                        company: company(s.company_name, s.company_code, s.company_short_name),
                    })
                    .collect(),
            })
        })
        .collect()
}

async fn load_comments(c: &mut Conn<'_>, id: i64) -> Result<Vec<Comment>, StoreError> {
    let rows: Vec<CommentRow> = c.query("SELECT position, name, originator FROM hotel_booking_comment WHERE booking_id = $1 ORDER BY position", &[&id]).await?;
    let texts: Vec<CommentTextRow> = c
        .query("SELECT comment_position, language, text FROM hotel_booking_comment_text WHERE booking_id = $1 ORDER BY comment_position, position", &[&id])
        .await?;
    let mut texts = group(texts, |t| t.comment_position);
    Ok(rows
        .into_iter()
        .map(|r| Comment {
            name: r.name,
            originator: r.originator,
            texts: texts.remove(&r.position).unwrap_or_default().into_iter().map(|t| LangText { language: t.language, text: t.text }).collect(),
        })
        .collect())
}

async fn load_item_refs(c: &mut Conn<'_>, id: i64) -> Result<Vec<ItemRef>, StoreError> {
    let rows: Vec<ItemRefRow> = c
        .query("SELECT res_id_type, source_context, value, item_rph FROM hotel_booking_reference WHERE booking_id = $1 ORDER BY position", &[&id])
        .await?;
    rows.into_iter()
        .map(|r| Ok(ItemRef { res_id_type: r.res_id_type, context: r.source_context, value: r.value, item_rph: r.item_rph.map(unsigned).transpose()? }))
        .collect()
}

/// Loads a booking with everything it holds.
pub(crate) async fn load(c: &mut Conn<'_>, id: i64) -> Result<Booking, StoreError> {
    let head: BookingRow = c
        .query_one(
            "SELECT internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name, status, created_at, updated_at, currency
             FROM hotel_booking WHERE id = $1",
            &[&id],
        )
        .await?;
    Ok(Booking {
        guests: load_guests(c, id).await?,
        services: load_services(c, id).await?,
        rooms: load_rooms(c, id).await?,
        comments: load_comments(c, id).await?,
        item_refs: load_item_refs(c, id).await?,
        internal_ref: head.internal_ref,
        client_ref: head.client_ref,
        owner: head.requestor_id,
        company: company(head.company_name, head.company_code, head.company_short_name),
        status: head.status,
        created: head.created_at,
        updated: head.updated_at,
        currency: head.currency,
    })
}

// ---------------------------------------------------------------------------------------------
// Saving a booking

/// Stores a new booking (every room priced); gives its row id.
pub(crate) async fn insert(c: &mut Conn<'_>, b: &Booking) -> Result<i64, StoreError> {
    let (arrival, departure) = b.span().ok_or_else(|| StoreError::Data(format!("booking {} has no room stay", b.internal_ref)))?;
    let co = b.company.as_ref();
    let revision = next_revision(c).await?;
    let Scalar(id): Scalar<i64> = c
        .query_one(
            "INSERT INTO hotel_booking (internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name, status,
                                        created_at, updated_at, currency, total, arrival, departure, revision)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
            &[
                &b.internal_ref,
                &b.client_ref,
                &b.owner,
                &co.map(|c| c.name.clone()),
                &co.and_then(|c| c.code.clone()),
                &co.and_then(|c| c.short_name.clone()),
                &b.status,
                &b.created,
                &b.updated,
                &b.currency,
                &b.total(),
                &arrival,
                &departure,
                &revision,
            ],
        )
        .await?;
    insert_children(c, id, b).await?;
    Ok(id)
}

/// The outcome of a hotel Commit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Committed {
    /// A new booking, with its Internal reference.
    New(Booking),
    /// The booking already made with this Client reference, unchanged.
    Existing(Booking),
}

/// Why a hotel Commit stored nothing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommitError {
    /// The Client reference names an activity booking of the requestor.
    #[error("the Client reference names an activity booking")]
    ReferenceTaken,
    /// The rooms are not left.
    #[error(transparent)]
    Inventory(#[from] InventoryError),
}

impl From<StoreError> for CommitError {
    fn from(e: StoreError) -> Self {
        CommitError::Inventory(InventoryError::Store(e))
    }
}

/// Books: the booking already made with this (owner, Client reference), or else `b` stored
/// under a new Internal reference with its rooms taken (never beyond those on sale). Runs in
/// a write transaction; on an error the caller's transaction is rolled back.
pub(crate) async fn commit(c: &mut Conn<'_>, b: &Booking) -> Result<Committed, CommitError> {
    c.lock_catalogue(false).await?;
    // The Client reference is claimed first: a concurrent Commit with the same one waits here
    // for this transaction and then finds the booking.
    match register::claim(c, &b.owner, &b.client_ref, Kind::Hotel).await? {
        Claim::Claimed => {}
        Claim::Taken(Kind::Activity) => return Err(CommitError::ReferenceTaken),
        Claim::Taken(Kind::Hotel) => {
            if let Lookup::Found(at) = find(c, &b.owner, Some(&b.client_ref), None).await? {
                return Ok(Committed::Existing(load(c, at.id).await?));
            }
            return Err(StoreError::Data(format!("Client reference {:?} of {:?} is registered without its hotel booking", b.client_ref, b.owner)).into());
        }
    }
    let mut internal = None;
    for candidate in reference::candidates("HTL") {
        if c.query_opt::<Scalar<i64>>("SELECT id FROM hotel_booking WHERE internal_ref = $1", &[&candidate]).await?.is_none() {
            internal = Some(candidate);
            break;
        }
    }
    let internal = internal.ok_or_else(reference::exhausted)?;
    let booked = reservation::with_reference(b.clone(), &internal);
    insert(c, &booked).await?;
    apply_inventory(c, &inventory::change(None, Some(&booked)), false).await?;
    Ok(Committed::New(booked))
}

/// Replaces a stored booking with `b`, unless it changed since `read_at` (its last update as
/// the client read it): then nothing is written and `false` returned.
pub(crate) async fn update(c: &mut Conn<'_>, id: i64, b: &Booking, read_at: NaiveDateTime) -> Result<bool, StoreError> {
    let (arrival, departure) = b.span().ok_or_else(|| StoreError::Data(format!("booking {} has no room stay", b.internal_ref)))?;
    let revision = next_revision(c).await?;
    let changed = c
        .execute(
            "UPDATE hotel_booking SET status = $3, updated_at = $4, total = $5, arrival = $6, departure = $7, revision = $8
             WHERE id = $1 AND updated_at = $2",
            &[&id, &read_at, &b.status, &b.updated, &b.total(), &arrival, &departure, &revision],
        )
        .await?;
    if changed == 0 {
        return Ok(false);
    }
    for sql in [
        "DELETE FROM hotel_booking_room WHERE booking_id = $1",
        "DELETE FROM hotel_booking_comment WHERE booking_id = $1",
        "DELETE FROM hotel_booking_reference WHERE booking_id = $1",
        "DELETE FROM hotel_booking_service WHERE booking_id = $1",
        "DELETE FROM hotel_booking_guest WHERE booking_id = $1",
    ] {
        c.execute(sql, &[&id]).await?;
    }
    insert_children(c, id, b).await?;
    Ok(true)
}

async fn insert_children(c: &mut Conn<'_>, id: i64, b: &Booking) -> Result<(), StoreError> {
    for (pos, g) in b.guests.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_booking_guest (booking_id, rph, position, age_qualifying_code, birth_date, name_prefix, given_name, surname, age)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[&id, &signed(g.rph)?, &(pos as i64), &g.age_code, &g.birth_date, &g.prefix, &g.given, &g.surname, &g.age.map(signed).transpose()?],
        )
        .await?;
    }
    for (pos, s) in b.services.iter().enumerate() {
        let rph = signed(s.rph)?;
        c.execute("INSERT INTO hotel_booking_service (booking_id, rph, position, inventory_code) VALUES ($1, $2, $3, $4)", &[&id, &rph, &(pos as i64), &s.code])
            .await?;
        for (gpos, guest) in s.guests.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_service_guest (booking_id, service_rph, position, guest_rph) VALUES ($1, $2, $3, $4)",
                &[&id, &rph, &(gpos as i64), &signed(*guest)?],
            )
            .await?;
        }
        for (lpos, leg) in s.legs.iter().enumerate() {
            for (end_kind, point) in [("origin", &leg.origin), ("destination", &leg.destination)] {
                let (kind, hotel, t) = match point {
                    TransferPoint::Hotel(h) => ("hotel", Some(h.clone()), None),
                    TransferPoint::Transport(t) => ("transport", None, Some(t)),
                };
                c.execute(
                    "INSERT INTO hotel_booking_transfer_end (booking_id, service_rph, leg_position, end_kind, kind, hotel_code,
                        departure_at, arrival_at, departure_airport, arrival_airport, flight_number)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                    &[
                        &id,
                        &rph,
                        &(lpos as i64),
                        &end_kind,
                        &kind,
                        &hotel,
                        &t.and_then(|t| t.departure),
                        &t.and_then(|t| t.arrival),
                        &t.and_then(|t| t.departure_airport.clone()),
                        &t.and_then(|t| t.arrival_airport.clone()),
                        &t.and_then(|t| t.flight.clone()),
                    ],
                )
                .await?;
            }
        }
    }
    for (pos, r) in b.rooms.iter().enumerate() {
        let pos = pos as i64;
        let total = r.total.ok_or_else(|| StoreError::Data(format!("booking {}: room stay {} is not priced", b.internal_ref, pos + 1)))?;
        c.execute(
            "INSERT INTO hotel_booking_room (booking_id, position, index_number, status, hotel_code, room_type_code, board_code,
                start_date, end_date, total, reference_id, reference_type, cancelled_at, cancel_penalty)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            &[
                &id,
                &pos,
                &r.index.map(signed).transpose()?,
                &r.status,
                &r.hotel,
                &r.room_type,
                &r.board,
                &r.start,
                &r.end,
                &total,
                &r.reference.as_ref().and_then(|x| x.id.clone()),
                &r.reference.as_ref().and_then(|x| x.kind.clone()),
                &r.cancelled.map(|x| x.at),
                &r.cancelled.map(|x| x.penalty),
            ],
        )
        .await?;
        for (ppos, p) in r.penalties.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_room_penalty (booking_id, room_position, position, deadline, percent) VALUES ($1, $2, $3, $4, $5)",
                &[&id, &pos, &(ppos as i64), &p.deadline, &p.percent],
            )
            .await?;
        }
        for (gpos, guest) in r.guests.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_room_guest (booking_id, room_position, position, guest_rph) VALUES ($1, $2, $3, $4)",
                &[&id, &pos, &(gpos as i64), &signed(*guest)?],
            )
            .await?;
        }
        for (spos, service) in r.services.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_room_service (booking_id, room_position, position, service_rph) VALUES ($1, $2, $3, $4)",
                &[&id, &pos, &(spos as i64), &signed(*service)?],
            )
            .await?;
        }
        for (spos, s) in r.sources.iter().enumerate() {
            let co = s.company.as_ref();
            c.execute(
                "INSERT INTO hotel_booking_room_source (booking_id, room_position, position, type, id, id_context, instance,
                    company_name, company_code, company_short_name)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[
                    &id,
                    &pos,
                    &(spos as i64),
                    &s.kind,
                    &s.id,
                    &s.id_context,
                    &s.instance,
                    &co.map(|c| c.name.clone()),
                    &co.and_then(|c| c.code.clone()),
                    &co.and_then(|c| c.short_name.clone()),
                ],
            )
            .await?;
        }
    }
    for (pos, cm) in b.comments.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_booking_comment (booking_id, position, name, originator) VALUES ($1, $2, $3, $4)",
            &[&id, &(pos as i64), &cm.name, &cm.originator],
        )
        .await?;
        for (tpos, t) in cm.texts.iter().enumerate() {
            c.execute(
                "INSERT INTO hotel_booking_comment_text (booking_id, comment_position, position, language, text) VALUES ($1, $2, $3, $4, $5)",
                &[&id, &(pos as i64), &(tpos as i64), &t.language, &t.text],
            )
            .await?;
        }
    }
    for (pos, r) in b.item_refs.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_booking_reference (booking_id, position, res_id_type, source_context, value, item_rph) VALUES ($1, $2, $3, $4, $5, $6)",
            &[&id, &(pos as i64), &r.res_id_type, &r.context, &r.value, &r.item_rph.map(signed).transpose()?],
        )
        .await?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Inventory

row! {
    /// A `hotel_rooms_sold` row.
    struct SoldRow { hotel_code: String, room_code: String, night: NaiveDate, rooms: i64 }
}

row! {
    /// The rooms of a type on sale: usually, and on one night when an allotment says so.
    struct OnSaleRow { units: i64, on_night: Option<i64> }
}

/// The most hotels a [`rooms_sold`] statement names; with more, every hotel's rows are read.
const MAX_LISTED_HOTELS: usize = 200;

/// Rooms sold per room type and night, of some hotels, from `from` to `to` (inclusive), in
/// one statement (nights without any sold are absent).
pub(crate) async fn rooms_sold(c: &mut Conn<'_>, hotels: &[&str], from: NaiveDate, to: NaiveDate) -> Result<inventory::Rooms, StoreError> {
    if hotels.is_empty() || to < from {
        return Ok(inventory::Rooms::new());
    }
    let mut params: Vec<&dyn crate::store::Param> = vec![&from, &to];
    let sql = if hotels.len() <= MAX_LISTED_HOTELS {
        let list: Vec<String> = (0..hotels.len()).map(|i| format!("${}", i + 3)).collect();
        params.extend(hotels.iter().map(|h| h as &dyn crate::store::Param));
        format!("SELECT hotel_code, room_code, night, rooms FROM hotel_rooms_sold WHERE night BETWEEN $1 AND $2 AND hotel_code IN ({})", list.join(", "))
    } else {
        "SELECT hotel_code, room_code, night, rooms FROM hotel_rooms_sold WHERE night BETWEEN $1 AND $2".to_string()
    };
    let rows: Vec<SoldRow> = c.query(&sql, &params).await?;
    Ok(rows.into_iter().filter(|r| r.rooms > 0).map(|r| (inventory::Night { hotel: r.hotel_code, room_type: r.room_code, night: r.night }, r.rooms)).collect())
}

/// Why rooms could not be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InventoryError {
    /// Fewer rooms are left on a night than asked for.
    #[error("{left} room(s) left")]
    Full {
        /// The room type and night.
        night: inventory::Night,
        /// Rooms left.
        left: i64,
    },
    /// The room type is no longer in the content.
    #[error("the room type is no longer offered")]
    RoomTypeGone(inventory::Night),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Rooms of a type on sale on a night, from the stored content (`None`: no such room type).
async fn on_sale(c: &mut Conn<'_>, n: &inventory::Night) -> Result<Option<i64>, StoreError> {
    let row: Option<OnSaleRow> = c
        .query_opt(
            "SELECT t.units,
                    (SELECT a.units FROM hotel_allotment a
                     WHERE a.hotel_code = t.hotel_code AND a.room_code = t.code AND a.start_date <= $3 AND a.end_date >= $3
                     ORDER BY a.start_date DESC LIMIT 1)
             FROM hotel_room_type t WHERE t.hotel_code = $1 AND t.code = $2",
            &[&n.hotel, &n.room_type, &n.night],
        )
        .await?;
    Ok(row.map(|r| r.on_night.unwrap_or(r.units)))
}

/// Rooms sold of a type on a night.
async fn sold_on(c: &mut Conn<'_>, n: &inventory::Night) -> Result<i64, StoreError> {
    let row: Option<Scalar<i64>> = c
        .query_opt("SELECT rooms FROM hotel_rooms_sold WHERE hotel_code = $1 AND room_code = $2 AND night = $3", &[&n.hotel, &n.room_type, &n.night])
        .await?;
    Ok(row.map_or(0, |Scalar(r)| r))
}

/// Checks that the rooms a change takes are left now (a Quote or a modify's preview: nothing
/// is stored): those on sale as `hotels` (the content in memory) has them, less those sold as
/// the database has them, read in one statement. Availability counts the same way.
pub(crate) async fn check_inventory(c: &mut Conn<'_>, change: &inventory::Rooms, hotels: &Catalogue) -> Result<(), InventoryError> {
    let Some((codes, first, last)) = inventory::taken_span(change) else {
        return Ok(());
    };
    let sold = rooms_sold(c, &codes, first, last).await?;
    match inventory::first_short(change, hotels, &sold) {
        None => Ok(()),
        Some((night, Some(left))) => Err(InventoryError::Full { night: night.clone(), left }),
        Some((night, None)) => Err(InventoryError::RoomTypeGone(night.clone())),
    }
}

/// Applies a change to the rooms sold, in the caller's write transaction: gives back, and
/// takes rooms never beyond those on sale (an imported booking records what exists: `force`
/// takes them even so). On an error the caller's transaction is rolled back.
pub(crate) async fn apply_inventory(c: &mut Conn<'_>, change: &inventory::Rooms, force: bool) -> Result<(), InventoryError> {
    c.lock_catalogue(false).await?;
    for (night, &n) in change {
        if n < 0 {
            c.execute(
                "UPDATE hotel_rooms_sold SET rooms = CASE WHEN rooms >= $4 THEN rooms - $4 ELSE 0 END
                 WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
                &[&night.hotel, &night.room_type, &night.night, &-n],
            )
            .await?;
            continue;
        }
        let total = match on_sale(c, night).await? {
            Some(total) => total,
            None if force => 0,
            None => return Err(InventoryError::RoomTypeGone(night.clone())),
        };
        c.execute(
            "INSERT INTO hotel_rooms_sold (hotel_code, room_code, night, rooms) VALUES ($1, $2, $3, 0)
             ON CONFLICT (hotel_code, room_code, night) DO NOTHING",
            &[&night.hotel, &night.room_type, &night.night],
        )
        .await?;
        let taken: Option<Scalar<i64>> = c
            .query_opt(
                "UPDATE hotel_rooms_sold SET rooms = rooms + $4
                 WHERE hotel_code = $1 AND room_code = $2 AND night = $3 AND (rooms + $4 <= $5 OR $6)
                 RETURNING rooms",
                &[&night.hotel, &night.room_type, &night.night, &n, &total, &force],
            )
            .await?;
        if taken.is_none() {
            let left = (total - sold_on(c, night).await?).max(0);
            return Err(InventoryError::Full { night: night.clone(), left });
        }
    }
    Ok(())
}
