//! The catalogue's SQL: loaded whole into memory, written by imports (hotels replaced whole,
//! with the bookings of the import file).

use super::supply::read_supply;
use super::supply::supply_position;
use crate::hotels::supply::{HotelSupply, SupplyPosition};
use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{signed, unsigned};
use crate::hotels::catalogue::{
    Allotment, Catalogue, Hotel, HotelText, Image, ImageFile, ImageText, Phone, Rate, RoomText, RoomType,
};
use crate::shared::policy_repo::{self, CancelRuleRow};
use crate::store::group;
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

row! {
    /// A `hotel` row.
    struct HotelRow {
        code: String, name: String, code_context: Option<String>, chain_name: Option<String>, brand_code: Option<String>,
        category_code: String, category_detail: Option<String>, category_text: Option<String>, latitude: Option<Decimal>,
        longitude: Option<Decimal>, city_name: Option<String>, postal_code: Option<String>, country_code: Option<String>,
        region: Option<String>, last_modified: NaiveDate, time_zone: String,
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
    // The position first: values read after it may be newer, never older (a later poll reads
    // them again).
    let below = supply_position(c).await?;
    let mut supply = HashMap::new();
    let read = read_supply(c, &SupplyPosition::default(), &mut supply).await?;
    let supply_position = SupplyPosition::default().after(below, read);
    let hotels: Vec<HotelRow> = c
        .query(
            "SELECT code, name, code_context, chain_name, brand_code, category_code, category_detail, category_text, latitude, longitude,
                    city_name, postal_code, country_code, region, last_modified, time_zone
             FROM hotel ORDER BY code",
            &[],
        )
        .await?;
    let texts: Vec<HotelTextRow> = c
        .query(
            "SELECT hotel_code, language, description, country_name FROM hotel_text ORDER BY hotel_code, language",
            &[],
        )
        .await?;
    let lines: Vec<HotelLineRow> =
        c.query("SELECT hotel_code, line FROM hotel_address_line ORDER BY hotel_code, position", &[]).await?;
    let phones: Vec<PhoneRow> =
        c.query("SELECT hotel_code, number, tech_type FROM hotel_phone ORDER BY hotel_code, position", &[]).await?;
    let emails: Vec<HotelLineRow> =
        c.query("SELECT hotel_code, email FROM hotel_email ORDER BY hotel_code, position", &[]).await?;
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
    let images: Vec<ImageRow> =
        c.query("SELECT hotel_code, position, category FROM hotel_image ORDER BY hotel_code, position", &[]).await?;
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

    let mut of = OfHotels {
        texts: group(texts, |r| r.hotel_code.clone()),
        lines: group(lines, |r| r.hotel_code.clone()),
        phones: group(phones, |r| r.hotel_code.clone()),
        emails: group(emails, |r| r.hotel_code.clone()),
        rooms: group(rooms, |r| r.hotel_code.clone()),
        rates: group(rates, |r| r.hotel_code.clone()),
        images: group(images, |r| r.hotel_code.clone()),
        files: group(files, |r| (r.hotel_code.clone(), r.image_position)),
        image_texts: group(image_texts, |r| (r.hotel_code.clone(), r.image_position)),
        allotments: group(allotments, |r| (r.hotel_code.clone(), r.room_code.clone())),
        rules: group(rules, |r| r.owner.clone()),
        supply,
    };
    let out = hotels.into_iter().map(|h| of.hotel(h)).collect::<Result<Vec<_>, _>>()?;
    Ok(Catalogue::new(out, boards.into_iter().map(|b| (b.code, b.name)).collect()).at_supply_position(supply_position))
}

/// The rows of every hotel's parts, by hotel (and image or room type), each taken by the hotel
/// it belongs to.
struct OfHotels {
    texts: HashMap<String, Vec<HotelTextRow>>,
    lines: HashMap<String, Vec<HotelLineRow>>,
    phones: HashMap<String, Vec<PhoneRow>>,
    emails: HashMap<String, Vec<HotelLineRow>>,
    rooms: HashMap<String, Vec<RoomTypeRow>>,
    rates: HashMap<String, Vec<RateRow>>,
    images: HashMap<String, Vec<ImageRow>>,
    files: HashMap<(String, i64), Vec<ImageFileRow>>,
    image_texts: HashMap<(String, i64), Vec<ImageTextRow>>,
    allotments: HashMap<(String, String), Vec<AllotmentRow>>,
    rules: HashMap<String, Vec<CancelRuleRow>>,
    supply: HashMap<String, HotelSupply>,
}

impl OfHotels {
    /// A hotel from its row and its parts' rows.
    fn hotel(&mut self, h: HotelRow) -> Result<Hotel, StoreError> {
        let room_types = room_types(&h.code, self.rooms.remove(&h.code).unwrap_or_default(), &mut self.allotments)?;
        let hotel_images = hotel_images(
            &h.code,
            self.images.remove(&h.code).unwrap_or_default(),
            &mut self.files,
            &mut self.image_texts,
        )?;
        let time_zone = h
            .time_zone
            .parse()
            .map_err(|_| StoreError::Data(format!("hotel {}: time zone {:?}", h.code, h.time_zone)))?;
        Ok(Hotel {
            texts: self
                .texts
                .remove(&h.code)
                .unwrap_or_default()
                .into_iter()
                .map(|t| (t.language, HotelText { description: t.description, country_name: t.country_name }))
                .collect(),
            address_lines: self.lines.remove(&h.code).unwrap_or_default().into_iter().map(|l| l.line).collect(),
            phones: self
                .phones
                .remove(&h.code)
                .unwrap_or_default()
                .into_iter()
                .map(|p| Phone { number: p.number, tech_type: p.tech_type })
                .collect(),
            emails: self.emails.remove(&h.code).unwrap_or_default().into_iter().map(|e| e.line).collect(),
            rooms: room_types,
            rates: self
                .rates
                .remove(&h.code)
                .unwrap_or_default()
                .into_iter()
                .map(|r| Rate {
                    room: r.room_code,
                    board: r.board_code,
                    currency: r.currency,
                    from: r.start_date,
                    to: r.end_date,
                    nightly: r.nightly_amount,
                })
                .collect(),
            images: hotel_images,
            cancellation: policy_repo::policy(self.rules.remove(&h.code).unwrap_or_default())?,
            position: h.latitude.zip(h.longitude),
            supply: std::sync::Arc::new(self.supply.remove(&h.code).unwrap_or_default()),
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
            time_zone,
        })
    }
}

/// A stored room count.
fn count(v: i64) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|_| StoreError::Data(format!("room count {v}")))
}

/// The room types of one hotel from its rows (one per type and language, in order), with their
/// allotments (taken from `allotments`).
fn room_types(
    hotel: &str,
    rows: Vec<RoomTypeRow>,
    allotments: &mut HashMap<(String, String), Vec<AllotmentRow>>,
) -> Result<Vec<RoomType>, StoreError> {
    let mut room_types: Vec<RoomType> = Vec::new();
    for r in rows {
        if room_types.last().is_none_or(|t| t.code != r.code) {
            let allotment = allotments
                .remove(&(hotel.to_string(), r.code.clone()))
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
    Ok(room_types)
}

/// The images of one hotel, with their files and texts (taken from `files` and `texts`).
fn hotel_images(
    hotel: &str,
    rows: Vec<ImageRow>,
    files: &mut HashMap<(String, i64), Vec<ImageFileRow>>,
    texts: &mut HashMap<(String, i64), Vec<ImageTextRow>>,
) -> Result<Vec<Image>, StoreError> {
    let mut out = Vec::new();
    for img in rows {
        let key = (hotel.to_string(), img.position);
        out.push(Image {
            category: img.category,
            files: files
                .remove(&key)
                .unwrap_or_default()
                .into_iter()
                .map(|f| {
                    Ok(ImageFile {
                        url: f.url,
                        width: f.width.map(unsigned).transpose()?,
                        height: f.height.map(unsigned).transpose()?,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
            texts: texts
                .remove(&key)
                .unwrap_or_default()
                .into_iter()
                .map(|t| (t.language, ImageText { caption: t.caption, description: t.description }))
                .collect(),
        });
    }
    Ok(out)
}

/// Adds a board, or renames it.
pub(crate) async fn upsert_board(c: &mut Conn<'_>, code: &str, name: &str) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO hotel_board (code, name) VALUES ($1, $2) ON CONFLICT (code) DO UPDATE SET name = excluded.name",
        &[&code, &name],
    )
    .await?;
    Ok(())
}

/// The codes of every board stored.
pub(crate) async fn board_codes(c: &mut Conn<'_>) -> Result<Vec<String>, StoreError> {
    let rows: Vec<Scalar<String>> = c.query("SELECT code FROM hotel_board", &[]).await?;
    Ok(rows.into_iter().map(|Scalar(code)| code).collect())
}

/// Stores a hotel by its code: its texts, contacts, room types, rates and images replaced.
pub(crate) async fn replace_hotel(c: &mut Conn<'_>, h: &Hotel) -> Result<(), StoreError> {
    let (latitude, longitude) = (h.position.map(|p| p.0), h.position.map(|p| p.1));
    c.execute(
        "INSERT INTO hotel (code, name, code_context, chain_name, brand_code, category_code, category_detail, category_text,
                            latitude, longitude, city_name, postal_code, country_code, last_modified, region, time_zone)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (code) DO UPDATE SET
            name = excluded.name, code_context = excluded.code_context, chain_name = excluded.chain_name,
            brand_code = excluded.brand_code, category_code = excluded.category_code,
            category_detail = excluded.category_detail, category_text = excluded.category_text,
            latitude = excluded.latitude, longitude = excluded.longitude, city_name = excluded.city_name,
            postal_code = excluded.postal_code, country_code = excluded.country_code, last_modified = excluded.last_modified,
            region = excluded.region, time_zone = excluded.time_zone",
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
            &h.time_zone.name(),
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
        c.execute(
            "INSERT INTO hotel_address_line (hotel_code, position, line) VALUES ($1, $2, $3)",
            &[&h.code, &(pos as i64), line],
        )
        .await?;
    }
    for (pos, p) in h.phones.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_phone (hotel_code, position, number, tech_type) VALUES ($1, $2, $3, $4)",
            &[&h.code, &(pos as i64), &p.number, &p.tech_type],
        )
        .await?;
    }
    for (pos, e) in h.emails.iter().enumerate() {
        c.execute(
            "INSERT INTO hotel_email (hotel_code, position, email) VALUES ($1, $2, $3)",
            &[&h.code, &(pos as i64), e],
        )
        .await?;
    }
    insert_rooms(c, h).await?;
    for r in &h.rates {
        c.execute(
            "INSERT INTO hotel_rate (hotel_code, room_code, board_code, currency, start_date, end_date, nightly_amount)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[&h.code, &r.room, &r.board, &r.currency, &r.from, &r.to, &r.nightly],
        )
        .await?;
    }
    insert_images(c, h).await?;
    Ok(())
}

/// Inserts a hotel's room types, with their allotments and texts.
async fn insert_rooms(c: &mut Conn<'_>, h: &Hotel) -> Result<(), StoreError> {
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
    Ok(())
}

/// Inserts a hotel's images, with their files and texts.
async fn insert_images(c: &mut Conn<'_>, h: &Hotel) -> Result<(), StoreError> {
    for (pos, img) in h.images.iter().enumerate() {
        let pos = pos as i64;
        c.execute(
            "INSERT INTO hotel_image (hotel_code, position, category) VALUES ($1, $2, $3)",
            &[&h.code, &pos, &img.category],
        )
        .await?;
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
