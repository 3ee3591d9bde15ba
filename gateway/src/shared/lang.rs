//! Language choice for texts: `PrimaryLangID` (a code, or `*` for every language), then
//! `AltLangID`, then English, then any language the text exists in. A regional code
//! (`de-AT`) is followed by its base language (`de`). Codes are compared in lower case (the
//! import stores them so).

use std::collections::BTreeMap;

use ota_messages::common::LanguageSelector;

/// The language everything falls back to.
pub const DEFAULT_LANGUAGE: &str = "en";

/// The languages an answer's texts should be in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Languages {
    /// `PrimaryLangID="*"`: every language.
    all: bool,
    /// The forms of the primary language asked for (`de-at`, `de`); empty when none was.
    requested: Vec<String>,
    /// Every language to try, in order of preference, ending with English.
    chain: Vec<String>,
}

/// `de-AT` → `["de-at", "de"]`; empty and `*` → nothing.
fn forms(code: &str) -> Vec<String> {
    let code = code.trim().to_ascii_lowercase();
    if code.is_empty() || code == "*" {
        return Vec::new();
    }
    let base = code.split(['-', '_']).next().unwrap_or_default().to_string();
    if base.is_empty() || base == code { vec![code] } else { vec![code, base] }
}

impl Languages {
    /// From a request's `PrimaryLangID` and `AltLangID`.
    pub fn new(primary: Option<&LanguageSelector>, alt: Option<&str>) -> Self {
        let (all, requested) = match primary {
            Some(LanguageSelector::All) => (true, Vec::new()),
            Some(LanguageSelector::Other(code)) if code.trim() == "*" => (true, Vec::new()),
            Some(LanguageSelector::Other(code)) => (false, forms(code)),
            None => (false, Vec::new()),
        };
        let mut chain: Vec<String> = Vec::new();
        for code in requested.iter().cloned().chain(alt.map(forms).unwrap_or_default()).chain(forms(DEFAULT_LANGUAGE)) {
            if !chain.contains(&code) {
                chain.push(code);
            }
        }
        Languages { all, requested, chain }
    }

    /// Only `lang`, then the rest of this preference (the texts of one content of a `*` answer).
    pub fn starting_with(&self, lang: &str) -> Self {
        let mut chain = forms(lang);
        chain.extend(self.chain.iter().filter(|l| !chain.contains(l)).cloned().collect::<Vec<_>>());
        Languages { all: false, requested: forms(lang), chain }
    }

    /// True for `PrimaryLangID="*"`.
    pub fn all(&self) -> bool {
        self.all
    }

    /// The primary language asked for, if any (lower case).
    pub fn requested(&self) -> Option<&str> {
        self.requested.first().map(String::as_str)
    }

    /// Whether texts in `lang` answer the primary language asked for (always, when none was).
    pub fn is_requested(&self, lang: &str) -> bool {
        self.requested.is_empty() || self.requested.iter().any(|l| l.eq_ignore_ascii_case(lang))
    }

    /// The most preferred of the available languages, else the first available one.
    pub fn best<'a, I>(&self, available: I) -> Option<&'a str>
    where
        I: IntoIterator<Item = &'a str> + Clone,
    {
        self.chain
            .iter()
            .find_map(|want| available.clone().into_iter().find(|a| a.eq_ignore_ascii_case(want)))
            .or_else(|| available.into_iter().next())
    }

    /// The text in the most preferred language available (else any), with its language.
    pub fn pick<'a, T>(&self, texts: &'a BTreeMap<String, T>) -> Option<(&'a str, &'a T)> {
        self.best(texts.keys().map(String::as_str)).and_then(|l| texts.get_key_value(l)).map(|(l, t)| (l.as_str(), t))
    }

    /// The texts to show: every language for `*`, else the best one.
    pub fn select<'a, T>(&self, texts: &'a BTreeMap<String, T>) -> Vec<(&'a str, &'a T)> {
        if self.all {
            texts.iter().map(|(l, t)| (l.as_str(), t)).collect()
        } else {
            self.pick(texts).into_iter().collect()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn texts(langs: &[(&str, i32)]) -> BTreeMap<String, i32> {
        langs.iter().map(|(l, v)| (l.to_string(), *v)).collect()
    }

    #[test]
    fn the_primary_then_the_alternative_then_english_then_any() {
        let p = Languages::new(Some(&LanguageSelector::Other("de-AT".into())), Some("es"));
        assert_eq!(p.chain, ["de-at", "de", "es", "en"]);
        assert_eq!(p.requested(), Some("de-at"));
        assert!(p.is_requested("de") && !p.is_requested("es"));
        assert_eq!(p.pick(&texts(&[("en", 1), ("es", 2)])), Some(("es", &2)));
        assert_eq!(p.pick(&texts(&[("it", 3)])), Some(("it", &3)));
        assert_eq!(p.pick(&texts(&[])), None);
    }

    #[test]
    fn star_selects_every_language_and_falls_back_to_english() {
        let p = Languages::new(Some(&LanguageSelector::All), None);
        assert!(p.all());
        assert_eq!(p.requested(), None);
        assert!(p.is_requested("fr"));
        let t = texts(&[("en", 1), ("es", 2)]);
        assert_eq!(p.select(&t).len(), 2);
        assert_eq!(p.pick(&t), Some(("en", &1)));
        assert_eq!(Languages::new(Some(&LanguageSelector::Other("*".into())), None), p);
    }

    #[test]
    fn no_preference_means_english() {
        let p = Languages::new(None, None);
        assert_eq!(p.select(&texts(&[("es", 2), ("en", 1)])), vec![("en", &1)]);
        let only_es = p.starting_with("es");
        assert_eq!(only_es.pick(&texts(&[("es", 2), ("en", 1)])), Some(("es", &2)));
    }
}
