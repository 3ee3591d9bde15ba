//! `/activitynbc`: the static content of one activity. The first `TourActivityDescriptiveContent`
//! carries the name, the first schedule (start time of day, duration), the categories and the
//! products and services with their descriptions; one more content per other start time
//! carries just that schedule.
//!
//! Names come in the first available of `PrimaryLangID`, `AltLangID`, English, any; the
//! description texts likewise, or in every language when `PrimaryLangID="*"`. A warning says
//! when the primary language was not available.

use std::collections::BTreeMap;

use chrono::NaiveTime;
use ota_messages::common::{ErrorCode, ErrorWarningType, LanguageSelector, Text};
use ota_messages::product_descriptive_info::{
    ActivityDescriptions, ActivityItemInfo, ActivityMultimediaDescription, ActivityMultimediaDescriptions, DescriptiveActivitySchedule,
    DescriptiveScheduleSummary, OtaProductDescriptiveInfoRq, OtaProductDescriptiveInfoRs, TextItem, TextItems, TourActivityCategory,
    TourActivityDescriptiveContent, TourActivityDescriptiveResult,
};
use ota_messages::runtime::Response;
use rusqlite::Connection;

use super::catalog::{self, ItemText, LangPrefs, Texts};
use crate::db::DbError;
use crate::errors::{Problem, errors, warnings};
use crate::ops::Ctx;

const ROOT: &str = "/OTA_ProductDescriptiveInfoRQ";

/// `/activitynbc` (see the module docs).
pub async fn descriptive_info(ctx: &Ctx, rq: &OtaProductDescriptiveInfoRq) -> OtaProductDescriptiveInfoRs {
    let rq = rq.clone();
    match ctx.db.call(move |conn| run(conn, &rq)).await {
        Ok(rs) => rs,
        Err(e) => crate::ops::system_error(ctx, "activity NBC", &e),
    }
}

/// The texts to show: one chosen language, or all of them.
struct Chooser<'a> {
    prefs: &'a LangPrefs,
    all: bool,
    /// Languages served instead of the primary one.
    fallbacks: Vec<String>,
}

impl Chooser<'_> {
    fn pick<'t, T>(&mut self, texts: &'t [(String, T)]) -> Option<&'t T> {
        self.pick_with_lang(texts).map(|(_, t)| t)
    }

    fn pick_with_lang<'t, T>(&mut self, texts: &'t [(String, T)]) -> Option<(&'t str, &'t T)> {
        let (lang, t) = self.prefs.pick(texts)?;
        if !self.prefs.is_requested(lang) && !self.fallbacks.iter().any(|l| l == lang) {
            self.fallbacks.push(lang.to_string());
        }
        Some((lang, t))
    }

    /// The descriptions of a product or service: every language, or the chosen one.
    fn descriptions(&mut self, texts: &Texts<ItemText>) -> Option<ActivityDescriptions> {
        let chosen: Vec<Text> = if self.all {
            texts
                .iter()
                .filter_map(|(lang, t)| t.description.clone().map(|d| Text { language: Some(lang.clone()), value: d }))
                .collect()
        } else {
            let with_text: Vec<(String, &String)> =
                texts.iter().filter_map(|(lang, t)| t.description.as_ref().map(|d| (lang.clone(), d))).collect();
            self.pick_with_lang(&with_text)
                .map(|(lang, d)| Text { language: Some(lang.to_string()), value: (*d).clone() })
                .into_iter()
                .collect()
        };
        if chosen.is_empty() {
            return None;
        }
        Some(ActivityDescriptions {
            multimedia_descriptions: ActivityMultimediaDescriptions {
                multimedia_description: vec![ActivityMultimediaDescription {
                    text_items: TextItems { text_item: vec![TextItem { title: Some("Description".to_string()), description: chosen }] },
                }],
            },
        })
    }
}

fn run(conn: &mut Connection, rq: &OtaProductDescriptiveInfoRq) -> Result<OtaProductDescriptiveInfoRs, DbError> {
    let tag = format!("{ROOT}/ProductDescriptiveInfos/TourActivityDescriptiveInfo/@TourActivityID");
    let id = rq.product_descriptive_infos.tour_activity_descriptive_info.tour_activity_id.trim();
    if id.is_empty() {
        return Ok(OtaProductDescriptiveInfoRs::from_errors(errors([Problem::required("TourActivityID is empty.").at(tag)])));
    }
    let Some(a) = catalog::load_activity(conn, id)? else {
        return Ok(OtaProductDescriptiveInfoRs::from_errors(errors([
            Problem::biz(ErrorCode::InvalidValue, format!("Unknown tour activity {id:?}.")).at(tag)
        ])));
    };
    let category_names = catalog::code_names(conn, "category")?;
    let type_names = catalog::code_names(conn, "type")?;

    let prefs = LangPrefs::new(super::primary_lang(rq.primary_lang_id.as_ref()), rq.alt_lang_id.as_deref());
    let all = matches!(rq.primary_lang_id, Some(LanguageSelector::All));
    let mut chooser = Chooser { prefs: &prefs, all, fallbacks: Vec::new() };

    // Distinct start times with their duration (the first schedule row of each start time).
    let mut starts: BTreeMap<NaiveTime, chrono::Duration> = BTreeMap::new();
    for s in a.products.iter().flat_map(|p| &p.schedules) {
        starts.entry(s.start).or_insert(s.end - s.start);
    }
    let schedule = |start: NaiveTime, duration: chrono::Duration| DescriptiveActivitySchedule {
        summary: DescriptiveScheduleSummary { start: Some(start.format("%H:%M").to_string()), duration: Some(catalog::iso_duration(duration)) },
    };
    let mut starts = starts.into_iter();
    let first_schedule = match starts.next() {
        Some((start, duration)) => Some(schedule(start, duration)),
        None => a.duration.clone().map(|d| DescriptiveActivitySchedule { summary: DescriptiveScheduleSummary { start: None, duration: Some(d) } }),
    };

    let name = chooser.pick(&a.texts).map(|t| t.name.clone());
    let mut categories = Vec::new();
    for (category, type_code) in &a.categories {
        let category_name = category_names.get(category).and_then(|names| chooser.pick(names)).cloned();
        let type_name = type_code.as_ref().and_then(|t| type_names.get(t)).and_then(|names| chooser.pick(names)).cloned();
        categories.push(TourActivityCategory {
            category_code: super::category_code(category),
            category_name,
            type_code: type_code.clone(),
            type_name,
        });
    }
    let mut product_info = Vec::new();
    let mut service_info: Vec<ActivityItemInfo> = Vec::new();
    for p in &a.products {
        product_info.push(ActivityItemInfo {
            code: p.code.clone(),
            code_detail: chooser.pick(&p.texts).map(|t| t.name.clone()),
            descriptions: chooser.descriptions(&p.texts),
        });
        for s in &p.services {
            if service_info.iter().any(|x| x.code == s.code) {
                continue;
            }
            service_info.push(ActivityItemInfo {
                code: s.code.clone(),
                code_detail: chooser.pick(&s.texts).map(|t| t.name.clone()),
                descriptions: chooser.descriptions(&s.texts),
            });
        }
    }

    let mut contents = vec![TourActivityDescriptiveContent {
        tour_activity_id: a.id.clone(),
        tour_activity_name: name.clone(),
        rph: Some(1),
        schedule: first_schedule,
        tour_activity_category: categories,
        product_info,
        service_info,
    }];
    for (i, (start, duration)) in starts.enumerate() {
        contents.push(TourActivityDescriptiveContent {
            tour_activity_id: a.id.clone(),
            tour_activity_name: name.clone(),
            rph: Some(i as u64 + 2),
            schedule: Some(schedule(start, duration)),
            tour_activity_category: Vec::new(),
            product_info: Vec::new(),
            service_info: Vec::new(),
        });
    }

    let mut rs = OtaProductDescriptiveInfoRs::success(TourActivityDescriptiveResult { tour_activity_descriptive_content: contents });
    if !chooser.fallbacks.is_empty() {
        rs = rs.with_warnings(warnings([Problem::new(
            ErrorWarningType::Advisory,
            ErrorCode::LanguageCodeInvalid,
            format!(
                "Texts of {} are not available in {:?}; they are returned in {}.",
                a.id,
                prefs.primary().unwrap_or_default(),
                chooser.fallbacks.join(", ")
            ),
        )
        .at(format!("{ROOT}/@PrimaryLangID"))]));
    }
    Ok(rs)
}
