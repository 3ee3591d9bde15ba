//! Language choice for texts: `PrimaryLangID` (a code, or `*` for every language), then
//! `AltLangID`, then English, then any language the text exists in.

use std::collections::BTreeMap;

use ota_messages::common::LanguageSelector;

/// The languages an answer's texts should be in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LangPref {
    /// Every language (`PrimaryLangID="*"`).
    All,
    /// The first of these that a text exists in (lower case; `en-GB` is followed by `en`).
    Chain(Vec<String>),
}

/// The language everything falls back to.
pub(crate) const DEFAULT_LANGUAGE: &str = "en";

impl LangPref {
    /// From a request's `PrimaryLangID` and `AltLangID`.
    pub(crate) fn new(primary: Option<&LanguageSelector>, alt: Option<&str>) -> Self {
        let mut chain: Vec<String> = Vec::new();
        let mut push = |code: &str| {
            let code = code.trim().to_ascii_lowercase();
            if code.is_empty() {
                return;
            }
            let base = code.split(['-', '_']).next().unwrap_or_default().to_string();
            for c in [code, base] {
                if !c.is_empty() && !chain.contains(&c) {
                    chain.push(c);
                }
            }
        };
        match primary {
            Some(LanguageSelector::All) => return LangPref::All,
            Some(LanguageSelector::Other(code)) if code.trim() == "*" => return LangPref::All,
            Some(LanguageSelector::Other(code)) => push(code),
            None => {}
        }
        if let Some(alt) = alt {
            push(alt);
        }
        push(DEFAULT_LANGUAGE);
        LangPref::Chain(chain)
    }

    /// The requested language (the head of the chain), if one was asked for.
    pub(crate) fn requested(&self) -> Option<&str> {
        match self {
            LangPref::All => None,
            LangPref::Chain(chain) => chain.first().map(String::as_str),
        }
    }

    /// The language to use among those available: the first of the chain that is available,
    /// else the first available one.
    pub(crate) fn best<'a, I: IntoIterator<Item = &'a str> + Clone>(&self, available: I) -> Option<&'a str> {
        if let LangPref::Chain(chain) = self {
            for want in chain {
                if let Some(found) = available.clone().into_iter().find(|a| a.eq_ignore_ascii_case(want)) {
                    return Some(found);
                }
            }
        }
        available.into_iter().next()
    }

    /// The texts to show from texts per language: all of them (`*`), or the best one.
    pub(crate) fn select<'a, T>(&self, texts: &'a BTreeMap<String, T>) -> Vec<(&'a str, &'a T)> {
        match self {
            LangPref::All => texts.iter().map(|(l, t)| (l.as_str(), t)).collect(),
            LangPref::Chain(_) => self
                .best(texts.keys().map(String::as_str))
                .and_then(|l| texts.get_key_value(l))
                .map(|(l, t)| vec![(l.as_str(), t)])
                .unwrap_or_default(),
        }
    }

    /// The best text from texts per language, whatever the preference (`*` gives English, else
    /// the first language).
    pub(crate) fn one<'a, T>(&self, texts: &'a BTreeMap<String, T>) -> Option<&'a T> {
        let pref = match self {
            LangPref::All => &LangPref::Chain(vec![DEFAULT_LANGUAGE.to_string()]),
            chain => chain,
        };
        pref.best(texts.keys().map(String::as_str)).and_then(|l| texts.get(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_fall_back_to_alt_then_english() {
        let p = LangPref::new(Some(&LanguageSelector::Other("de-AT".into())), Some("es"));
        assert_eq!(p, LangPref::Chain(vec!["de-at".into(), "de".into(), "es".into(), "en".into()]));
        let texts: BTreeMap<String, &str> = [("en".to_string(), "x"), ("es".to_string(), "y")].into();
        assert_eq!(p.select(&texts), vec![("es", &"y")]);
        assert_eq!(LangPref::new(Some(&LanguageSelector::All), None), LangPref::All);
        assert_eq!(LangPref::new(None, None).select(&texts), vec![("en", &"x")]);
        let only_fr: BTreeMap<String, &str> = [("fr".to_string(), "z")].into();
        assert_eq!(p.select(&only_fr), vec![("fr", &"z")]);
    }
}
