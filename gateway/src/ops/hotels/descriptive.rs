//! `/hotelnbc`: the static descriptive (NBC) content of hotels.
//!
//! Each `HotelDescriptiveInfo` selects one hotel by `HotelCode`, or, when `HotelCode` is empty
//! (or `*`) and `BrandCode` is given, every hotel of that client feed. A hotel selected twice is
//! answered once. `PrimaryLangID` picks the language (then `AltLangID`, then English, then any
//! language the hotel is described in); `PrimaryLangID="*"` answers one
//! `HotelDescriptiveContent` per language the hotel is described in. `RPH` numbers the contents
//! and `TransactionIdentifier` gives their range (`1-N/N`).

use std::collections::{BTreeMap, HashSet};

use ota_messages::common::{Address, CountryName, ErrorCode, ErrorWarningType, Position, Text};
use ota_messages::hotel_descriptive_info as hdi;
use ota_messages::runtime as rt;
use ota_messages::runtime::Response;
use rusqlite::{Connection, OptionalExtension, params};

use super::booking::parse_open;
use super::lang::LangPref;
use crate::db::DbError;
use crate::errors::{Problem, errors, warnings};
use crate::ops::{Ctx, system_error};

const ROOT: &str = "/OTA_HotelDescriptiveInfoRQ/HotelDescriptiveInfos/HotelDescriptiveInfo";

/// One selection of the request.
#[derive(Debug, Clone)]
enum Selection {
    Hotel(String),
    Brand(String),
}

/// `/hotelnbc`: answers the NBC content of the selected hotels.
pub async fn descriptive_info(ctx: &Ctx, rq: &hdi::OtaHotelDescriptiveInfoRq) -> hdi::OtaHotelDescriptiveInfoRs {
    let mut problems = Vec::new();
    let mut selections = Vec::new();
    for (i, info) in rq.hotel_descriptive_infos.hotel_descriptive_info.iter().enumerate() {
        let code = info.hotel_code.trim();
        let brand = info.brand_code.as_deref().map(str::trim).filter(|b| !b.is_empty());
        if !code.is_empty() && code != "*" {
            selections.push((i, Selection::Hotel(code.to_string())));
        } else if let Some(brand) = brand {
            selections.push((i, Selection::Brand(brand.to_string())));
        } else {
            problems.push(Problem::required("A HotelDescriptiveInfo needs a HotelCode, or a BrandCode with an empty HotelCode.").at(format!("{ROOT}[{}]/@HotelCode", i + 1)));
        }
    }
    if !problems.is_empty() {
        return hdi::OtaHotelDescriptiveInfoRs::from_errors(errors(problems));
    }
    let pref = LangPref::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let result = ctx
        .db
        .call(move |conn| {
            let tx = conn.transaction()?;
            let out = build(&tx, &selections, &pref);
            tx.commit()?;
            out
        })
        .await;
    match result {
        Err(e) => system_error(ctx, "hotel NBC", &e),
        Ok(Err(problems)) => hdi::OtaHotelDescriptiveInfoRs::from_errors(errors(problems)),
        Ok(Ok((contents, notes))) => {
            let n = contents.len();
            let mut rs = hdi::OtaHotelDescriptiveInfoRs::success(hdi::HotelDescriptiveContents { hotel_descriptive_content: contents });
            rs.transaction_identifier = Some(format!("1-{n}/{n}"));
            if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) }
        }
    }
}

type Built = Result<(Vec<hdi::HotelDescriptiveContent>, Vec<Problem>), Vec<Problem>>;

fn build(conn: &Connection, selections: &[(usize, Selection)], pref: &LangPref) -> Result<Built, DbError> {
    let mut problems = Vec::new();
    let mut hotels: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (i, sel) in selections {
        match sel {
            Selection::Hotel(code) => {
                let found: Option<String> =
                    conn.prepare_cached("SELECT code FROM hotel WHERE code = ?1")?.query_row([code], |r| r.get(0)).optional()?;
                match found {
                    Some(code) => {
                        if seen.insert(code.clone()) {
                            hotels.push(code);
                        }
                    }
                    None => problems.push(
                        Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {code} is not known."))
                            .at(format!("{ROOT}[{}]/@HotelCode", i + 1)),
                    ),
                }
            }
            Selection::Brand(brand) => {
                let mut stmt = conn.prepare_cached("SELECT code FROM hotel WHERE brand_code = ?1 ORDER BY code")?;
                let codes = stmt.query_map([brand], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
                if codes.is_empty() {
                    problems.push(
                        Problem::biz(ErrorCode::NoHotelsFound, format!("No hotels found for brand {brand}."))
                            .at(format!("{ROOT}[{}]/@BrandCode", i + 1)),
                    );
                }
                for code in codes {
                    if seen.insert(code.clone()) {
                        hotels.push(code);
                    }
                }
            }
        }
    }
    if !problems.is_empty() {
        return Ok(Err(problems));
    }
    let mut contents = Vec::new();
    let mut notes = Vec::new();
    for code in &hotels {
        let hotel = load_hotel(conn, code)?;
        let languages: Vec<&str> = hotel.descriptions.keys().map(String::as_str).collect();
        let chosen: Vec<String> = match pref {
            LangPref::All => languages.iter().map(|l| l.to_string()).collect(),
            chain => chain.best(languages.iter().copied()).map(str::to_string).into_iter().collect(),
        };
        if let (Some(wanted), Some(got)) = (pref.requested(), chosen.first())
            && !wanted.eq_ignore_ascii_case(got)
            && !wanted.split('-').next().is_some_and(|base| base.eq_ignore_ascii_case(got))
        {
            notes.push(
                Problem::new(
                    ErrorWarningType::Advisory,
                    ErrorCode::LanguageCodeInvalid,
                    format!("Hotel {code} is not described in {wanted}; its content is given in {got}."),
                )
                .at("/OTA_HotelDescriptiveInfoRQ/@PrimaryLangID"),
            );
        }
        for lang in chosen {
            let rph = contents.len() as u64 + 1;
            contents.push(hotel.content(&lang, rph, pref));
        }
    }
    Ok(Ok((contents, notes)))
}

/// A hotel with all its texts.
struct HotelRow {
    code: String,
    name: String,
    code_context: Option<String>,
    chain: Option<String>,
    category_code: String,
    category_detail: Option<String>,
    category_text: Option<String>,
    latitude: Option<String>,
    longitude: Option<String>,
    city: Option<String>,
    postal_code: Option<String>,
    country_code: Option<String>,
    last_modified: String,
    /// language → (description, country name)
    descriptions: BTreeMap<String, (String, Option<String>)>,
    address_lines: Vec<String>,
    phones: Vec<(String, Option<String>)>,
    emails: Vec<String>,
    /// (code, language → (name, description))
    rooms: Vec<(String, TextsByLanguage)>,
    /// (category, files (url, width, height), language → (caption, description))
    images: Vec<ImageRow>,
}

/// language → (name, description)
type TextsByLanguage = BTreeMap<String, (String, Option<String>)>;

type ImageRow = (Option<String>, Vec<(String, Option<i64>, Option<i64>)>, BTreeMap<String, (Option<String>, String)>);

fn load_hotel(conn: &Connection, code: &str) -> Result<HotelRow, DbError> {
    let mut h = conn
        .prepare_cached(
            "SELECT code, name, code_context, chain_name, category_code, category_detail, category_text, latitude, longitude,
                    city_name, postal_code, country_code, last_modified
             FROM hotel WHERE code = ?1",
        )?
        .query_row([code], |r| {
            Ok(HotelRow {
                code: r.get(0)?,
                name: r.get(1)?,
                code_context: r.get(2)?,
                chain: r.get(3)?,
                category_code: r.get(4)?,
                category_detail: r.get(5)?,
                category_text: r.get(6)?,
                latitude: r.get(7)?,
                longitude: r.get(8)?,
                city: r.get(9)?,
                postal_code: r.get(10)?,
                country_code: r.get(11)?,
                last_modified: r.get(12)?,
                descriptions: BTreeMap::new(),
                address_lines: Vec::new(),
                phones: Vec::new(),
                emails: Vec::new(),
                rooms: Vec::new(),
                images: Vec::new(),
            })
        })?;
    let mut stmt = conn.prepare_cached("SELECT language, description, country_name FROM hotel_text WHERE hotel_code = ?1")?;
    for row in stmt.query_map([code], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))? {
        let (lang, description, country) = row?;
        h.descriptions.insert(lang, (description, country));
    }
    let mut stmt = conn.prepare_cached("SELECT line FROM hotel_address_line WHERE hotel_code = ?1 ORDER BY position")?;
    h.address_lines = stmt.query_map([code], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare_cached("SELECT number, tech_type FROM hotel_phone WHERE hotel_code = ?1 ORDER BY position")?;
    h.phones = stmt.query_map([code], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare_cached("SELECT email FROM hotel_email WHERE hotel_code = ?1 ORDER BY position")?;
    h.emails = stmt.query_map([code], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT t.code, x.language, x.name, x.description
         FROM hotel_room_type t LEFT JOIN hotel_room_type_text x ON x.hotel_code = t.hotel_code AND x.room_code = t.code
         WHERE t.hotel_code = ?1 ORDER BY t.position, x.language",
    )?;
    for row in stmt.query_map([code], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, Option<String>>(3)?))
    })? {
        let (room, lang, name, description) = row?;
        if h.rooms.last().is_none_or(|(c, _)| *c != room) {
            h.rooms.push((room, BTreeMap::new()));
        }
        if let (Some((_, texts)), Some(lang), Some(name)) = (h.rooms.last_mut(), lang, name) {
            texts.insert(lang, (name, description));
        }
    }
    let mut stmt = conn.prepare_cached("SELECT position, category FROM hotel_image WHERE hotel_code = ?1 ORDER BY position")?;
    let images: Vec<(i64, Option<String>)> = stmt.query_map([code], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    for (pos, category) in images {
        let mut stmt = conn.prepare_cached(
            "SELECT url, width, height FROM hotel_image_format WHERE hotel_code = ?1 AND image_position = ?2 ORDER BY position",
        )?;
        let files = stmt.query_map(params![code, pos], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
        let mut stmt = conn.prepare_cached(
            "SELECT language, caption, description FROM hotel_image_text WHERE hotel_code = ?1 AND image_position = ?2",
        )?;
        let texts = stmt
            .query_map(params![code, pos], |r| Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?))))?
            .collect::<Result<_, _>>()?;
        h.images.push((category, files, texts));
    }
    Ok(h)
}

fn decimal(s: &Option<String>) -> Option<rt::Decimal> {
    s.as_deref().and_then(|s| s.parse().ok())
}

fn size(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

impl HotelRow {
    /// The content of the hotel in `lang` (texts missing in `lang` fall back along the
    /// request's chain, then English, then any language).
    fn content(&self, lang: &str, rph: u64, pref: &LangPref) -> hdi::HotelDescriptiveContent {
        let mut chain = vec![lang.to_string()];
        if let LangPref::Chain(rest) = pref {
            chain.extend(rest.iter().filter(|l| *l != lang).cloned());
        }
        let text_pref = LangPref::Chain(chain);
        let description = self.descriptions.get(lang);
        let country_name = description
            .and_then(|(_, c)| c.clone())
            .or_else(|| text_pref.one(&self.descriptions).and_then(|(_, c)| c.clone()));

        let position = match (decimal(&self.latitude), decimal(&self.longitude)) {
            (Some(latitude), Some(longitude)) => Some(Position { latitude, longitude }),
            _ => None,
        };
        let guest_room_info = self
            .rooms
            .iter()
            .map(|(code, texts)| {
                let t = text_pref.one(texts);
                hdi::GuestRoomInfo {
                    code: code.clone(),
                    code_detail: t.map(|(name, _)| name.clone()),
                    descriptive_text: t.and_then(|(_, d)| d.clone()),
                }
            })
            .collect();
        let hotel_info = hdi::HotelInfo {
            descriptions: description.map(|(d, _)| hdi::HotelDescriptions {
                descriptive_text: vec![Text { language: Some(lang.to_string()), value: d.clone() }],
            }),
            position,
            category_codes: Some(hdi::HotelCategoryCodes {
                hotel_category: vec![hdi::HotelCategory {
                    code: parse_open::<hdi::HotelCategoryCode>(&self.category_code),
                    code_detail: self.category_detail.clone(),
                    descriptive_text: self.category_text.clone(),
                }],
                guest_room_info,
            }),
        };
        let image_item: Vec<hdi::ImageItem> = self
            .images
            .iter()
            .map(|(category, files, texts)| hdi::ImageItem {
                category: category.as_deref().map(parse_open::<hdi::ImageCategoryCode>),
                image_format: files
                    .iter()
                    .map(|(url, w, h)| hdi::ImageFormat { width: size(*w), height: size(*h), url: url.clone() })
                    .collect(),
                description: text_pref
                    .best(texts.keys().map(String::as_str))
                    .and_then(|l| texts.get_key_value(l))
                    .map(|(l, (caption, d))| hdi::ImageDescription { caption: caption.clone(), language: Some(l.clone()), value: d.clone() })
                    .into_iter()
                    .collect(),
            })
            .collect();
        let has_address = !self.address_lines.is_empty() || self.city.is_some() || self.postal_code.is_some() || self.country_code.is_some();
        let contact = hdi::HotelContactInfo {
            addresses: has_address.then(|| hdi::Addresses {
                address: vec![Address {
                    address_line: self.address_lines.clone(),
                    city_name: self.city.clone(),
                    postal_code: self.postal_code.clone(),
                    country_name: (self.country_code.is_some() || country_name.is_some()).then(|| CountryName {
                        code: self.country_code.clone(),
                        value: country_name.clone().or_else(|| self.country_code.clone()).unwrap_or_default(),
                    }),
                }],
            }),
            phones: (!self.phones.is_empty()).then(|| hdi::Phones {
                phone: self
                    .phones
                    .iter()
                    .map(|(number, tech)| hdi::Phone { phone_number: number.clone(), phone_tech_type: tech.as_deref().map(parse_open::<hdi::PhoneTechType>) })
                    .collect(),
            }),
            emails: (!self.emails.is_empty()).then(|| hdi::Emails { email: self.emails.clone() }),
        };
        let has_contact = contact.addresses.is_some() || contact.phones.is_some() || contact.emails.is_some();
        hdi::HotelDescriptiveContent {
            language_code: Some(lang.to_string()),
            rph: Some(rph),
            hotel_code: self.code.clone(),
            hotel_name: Some(self.name.clone()),
            hotel_code_context: self.code_context.clone(),
            chain_name: self.chain.clone(),
            last_modified_date: self.last_modified.parse::<rt::Date>().ok(),
            hotel_info: Some(hotel_info),
            multimedia_descriptions: (!image_item.is_empty()).then(|| hdi::HotelMultimediaDescriptions {
                multimedia_description: vec![hdi::HotelMultimediaDescription { image_items: hdi::ImageItems { image_item } }],
            }),
            contact_infos: has_contact.then(|| hdi::HotelContactInfos { contact_info: vec![contact] }),
        }
    }
}
