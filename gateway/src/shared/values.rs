//! The values of import files (and of requests, where the same rule applies), one rule each:
//! codes, language codes, currencies, amounts, dates, times, coordinates and durations. Each
//! parser gives the value or a message saying what was expected; [`de`] has the same rules as
//! serde `deserialize_with` helpers, so an import file is checked as it is read (and
//! `serde_path_to_error` names the entry).

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use rust_decimal::Decimal;

/// A language code: 2 to 8 letters, digits or `-`, kept in lower case (`en`, `es`, `pt-br`).
pub fn language(code: &str) -> Result<String, String> {
    let l = code.trim().to_ascii_lowercase();
    if (2..=8).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        Ok(l)
    } else {
        Err(format!("{code:?} is not a language code such as en or pt-br"))
    }
}

/// An ISO 4217 currency code: three upper-case letters.
pub fn currency(code: &str) -> Result<String, String> {
    if code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) {
        Ok(code.to_string())
    } else {
        Err(format!("{code:?} is not an ISO 4217 currency code such as EUR"))
    }
}

/// An ISO 3166-1 alpha-2 country code: two upper-case letters.
pub fn country(code: &str) -> Result<String, String> {
    if code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase()) {
        Ok(code.to_string())
    } else {
        Err(format!("{code:?} is not an ISO 3166 country code such as ES"))
    }
}

/// A code (an id, a product or room code): not empty, at most `max` characters, no
/// surrounding spaces.
pub fn code(value: &str, max: usize) -> Result<&str, String> {
    if value.is_empty() || value.trim() != value {
        return Err(format!("{value:?} is not a code: it is empty or has surrounding spaces"));
    }
    if value.chars().count() > max {
        return Err(format!("{value:?} is longer than {max} characters"));
    }
    Ok(value)
}

/// The largest amount a price, fee or total may be: far above any real one, and small enough that
/// every total of a booking (rooms × nights × guests) stays exact.
pub const MAX_AMOUNT: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// A money amount: an exact, non-negative decimal written as a string (`"29.50"`), at most
/// [`MAX_AMOUNT`], kept with at least two decimals (`"30"` is 30.00); never a float. Whether
/// its decimals fit its currency is [`in_currency`].
pub fn amount(s: &str) -> Result<Decimal, String> {
    let mut d =
        Decimal::from_str_exact(s.trim()).map_err(|_| format!("{s:?} is not a decimal amount such as \"29.50\""))?;
    if d.is_sign_negative() {
        return Err(format!("{s:?} is negative"));
    }
    if d > MAX_AMOUNT {
        return Err(format!("{s:?} is over the largest amount, {MAX_AMOUNT}"));
    }
    if d.scale() < 2 {
        d.rescale(2);
    }
    Ok(d)
}

/// The decimals of a currency's minor unit (ISO 4217): 2, but 0 for the yen, the won and
/// others, 3 for the dinars of Bahrain, Iraq, Jordan, Kuwait, Libya, Tunisia and the rial of
/// Oman, 4 for the Chilean and Uruguayan units of account.
pub fn minor_unit(currency: &str) -> u32 {
    match currency {
        "BIF" | "CLP" | "DJF" | "GNF" | "ISK" | "JPY" | "KMF" | "KRW" | "PYG" | "RWF" | "UGX" | "UYI" | "VND"
        | "VUV" | "XAF" | "XOF" | "XPF" => 0,
        "BHD" | "IQD" | "JOD" | "KWD" | "LYD" | "OMR" | "TND" => 3,
        "CLF" | "UYW" => 4,
        _ => 2,
    }
}

/// An amount checked against its currency: no finer than the currency's minor unit
/// (`190.002 EUR` is refused; `190.00` and `190` are 190.00).
pub fn in_currency(amount: Decimal, currency: &str) -> Result<Decimal, String> {
    let unit = minor_unit(currency);
    let exact = amount.normalize();
    if exact.scale() > unit {
        return Err(format!("{amount} {currency} is finer than the currency's smallest unit ({unit} decimals)"));
    }
    Ok(amount)
}

/// An IANA time zone (`Europe/Madrid`, `UTC`): where a place's local times are.
pub fn time_zone(name: &str) -> Result<chrono_tz::Tz, String> {
    name.trim().parse::<chrono_tz::Tz>().map_err(|_| format!("{name:?} is not an IANA time zone such as Europe/Madrid"))
}

/// A percentage: an exact decimal from 0 to 100 (`"25"`, `"12.5"`).
pub fn percent(s: &str) -> Result<Decimal, String> {
    let d = Decimal::from_str_exact(s.trim()).map_err(|_| format!("{s:?} is not a percentage such as 25 or 12.5"))?;
    if d.is_sign_negative() || d > Decimal::ONE_HUNDRED {
        return Err(format!("{s:?} is not a percentage from 0 to 100"));
    }
    Ok(d.normalize())
}

/// A date `YYYY-MM-DD`.
pub fn date(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| format!("{s:?} is not a date YYYY-MM-DD"))
}

/// A local date-time `YYYY-MM-DDThh:mm:ss` (no zone).
pub fn local_date_time(s: &str) -> Result<NaiveDateTime, String> {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S")
        .map_err(|_| format!("{s:?} is not a local date-time YYYY-MM-DDThh:mm:ss"))
}

/// A time of day `hh:mm`.
pub fn time_of_day(s: &str) -> Result<NaiveTime, String> {
    NaiveTime::parse_from_str(s, "%H:%M").map_err(|_| format!("{s:?} is not a time of day hh:mm"))
}

/// A latitude (`limit` 90) or longitude (`limit` 180) in decimal degrees, as a string.
pub fn coordinate(s: &str, limit: i64) -> Result<Decimal, String> {
    let d = Decimal::from_str_exact(s.trim()).map_err(|_| format!("{s:?} is not a decimal number of degrees"))?;
    if d.abs() > Decimal::from(limit) {
        return Err(format!("{s:?} is out of range (±{limit})"));
    }
    Ok(d)
}

/// An ISO 8601 duration of whole numbers, `P[nY][nM][nD][T[nH][nM][nS]]` (`PT8H`, `PT1H15M`).
pub fn iso_duration(s: &str) -> Result<String, String> {
    let bad = || format!("{s:?} is not an ISO 8601 duration such as PT8H");
    let rest = s.strip_prefix('P').ok_or_else(bad)?;
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) if !t.is_empty() => (d, Some(t)),
        Some(_) => return Err(bad()),
        None => (rest, None),
    };
    let well_formed = |part: &str, units: &[char]| {
        let mut last = 0usize;
        let mut digits = false;
        for c in part.chars() {
            if c.is_ascii_digit() {
                digits = true;
            } else if let Some(pos) = units.iter().position(|u| *u == c) {
                if !digits || pos < last {
                    return false;
                }
                last = pos + 1;
                digits = false;
            } else {
                return false;
            }
        }
        !digits
    };
    if (date.is_empty() && time.is_none())
        || !well_formed(date, &['Y', 'M', 'D'])
        || !time.is_none_or(|t| well_formed(t, &['H', 'M', 'S']))
    {
        return Err(bad());
    }
    Ok(s.to_string())
}

/// A date (`YYYY-MM-DD`) read from an import file, usable as a map key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(pub NaiveDate);

impl<'de> serde::Deserialize<'de> for Day {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::date(d).map(Day)
    }
}

/// A money amount read from an import file ([`amount`]), usable as a map value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount(pub Decimal);

impl<'de> serde::Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::amount(d).map(Amount)
    }
}

/// The same rules as serde `deserialize_with` helpers, for import types.
pub mod de {
    use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
    use rust_decimal::Decimal;
    use serde::{Deserialize, Deserializer, de::Error};

    fn with<'de, D: Deserializer<'de>, T>(d: D, parse: impl Fn(&str) -> Result<T, String>) -> Result<T, D::Error> {
        let s = String::deserialize(d)?;
        parse(&s).map_err(D::Error::custom)
    }

    fn with_opt<'de, D: Deserializer<'de>, T>(
        d: D,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, D::Error> {
        Option::<String>::deserialize(d)?.map(|s| parse(&s).map_err(D::Error::custom)).transpose()
    }

    /// [`super::date`].
    pub fn date<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDate, D::Error> {
        with(d, super::date)
    }

    /// An optional [`super::date`].
    pub fn opt_date<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDate>, D::Error> {
        with_opt(d, super::date)
    }

    /// [`super::local_date_time`].
    pub fn local_date_time<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDateTime, D::Error> {
        with(d, super::local_date_time)
    }

    /// An optional [`super::local_date_time`].
    pub fn opt_local_date_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDateTime>, D::Error> {
        with_opt(d, super::local_date_time)
    }

    /// [`super::time_of_day`].
    pub fn time_of_day<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveTime, D::Error> {
        with(d, super::time_of_day)
    }

    /// [`super::amount`].
    pub fn amount<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        with(d, super::amount)
    }

    /// An optional [`super::amount`].
    pub fn opt_amount<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
        with_opt(d, super::amount)
    }

    /// [`super::currency`].
    pub fn currency<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        with(d, super::currency)
    }

    /// An optional [`super::country`].
    pub fn opt_country<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        with_opt(d, super::country)
    }

    /// An optional latitude ([`super::coordinate`] within ±90).
    pub fn opt_latitude<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
        with_opt(d, |s| super::coordinate(s, 90))
    }

    /// An optional longitude ([`super::coordinate`] within ±180).
    pub fn opt_longitude<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
        with_opt(d, |s| super::coordinate(s, 180))
    }

    /// A latitude ([`super::coordinate`] within ±90).
    pub fn latitude<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        with(d, |s| super::coordinate(s, 90))
    }

    /// A longitude ([`super::coordinate`] within ±180).
    pub fn longitude<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        with(d, |s| super::coordinate(s, 180))
    }

    /// [`super::percent`], written as a JSON number or a string.
    pub fn percent<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum NumberOrText {
            Whole(u64),
            Text(String),
        }
        match NumberOrText::deserialize(d)? {
            NumberOrText::Whole(n) => super::percent(&n.to_string()),
            NumberOrText::Text(s) => super::percent(&s),
        }
        .map_err(D::Error::custom)
    }

    /// An optional [`super::time_zone`].
    pub fn opt_time_zone<'de, D: Deserializer<'de>>(d: D) -> Result<Option<chrono_tz::Tz>, D::Error> {
        with_opt(d, super::time_zone)
    }

    /// An optional [`super::iso_duration`].
    pub fn opt_iso_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        with_opt(d, super::iso_duration)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn amounts_are_exact_with_two_decimals_at_least() {
        assert_eq!(amount("30").map(|d| d.to_string()).as_deref(), Ok("30.00"));
        assert_eq!(amount("29.5").map(|d| d.to_string()).as_deref(), Ok("29.50"));
        assert_eq!(amount("1.125").map(|d| d.to_string()).as_deref(), Ok("1.125"));
        assert!(amount("-1").is_err());
        assert!(amount("1e3").is_err());
        assert!(amount("").is_err());
        assert_eq!(amount("1000000000").map(|d| d.to_string()).as_deref(), Ok("1000000000.00"));
        assert!(amount("1000000000.01").is_err() && amount("79228162514264337593543950335").is_err());
        assert!(in_currency(amount("190.002").unwrap(), "EUR").is_err());
        assert!(
            in_currency(amount("190.00").unwrap(), "EUR").is_ok()
                && in_currency(amount("190.50").unwrap(), "EUR").is_ok()
        );
        assert!(
            in_currency(amount("190.5").unwrap(), "JPY").is_err()
                && in_currency(amount("190.00").unwrap(), "JPY").is_ok()
        );
        assert!(in_currency(amount("1.125").unwrap(), "KWD").is_ok());
        assert_eq!(percent("12.50").map(|d| d.to_string()).as_deref(), Ok("12.5"));
        assert!(percent("100.01").is_err() && percent("-1").is_err());
    }

    #[test]
    fn durations() {
        for ok in ["PT8H", "PT1H15M", "P2D", "P1DT2H", "PT45M", "PT30S"] {
            assert!(iso_duration(ok).is_ok(), "{ok}");
        }
        for bad in ["", "P", "PT", "8H", "PT8", "PTH", "PT15M1H", "P1H"] {
            assert!(iso_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn codes_and_languages() {
        assert_eq!(language("EN").as_deref(), Ok("en"));
        assert_eq!(language("pt-BR").as_deref(), Ok("pt-br"));
        assert!(language("e").is_err() && language("english!").is_err());
        assert!(currency("EUR").is_ok() && currency("eur").is_err() && currency("EURO").is_err());
        assert!(country("ES").is_ok() && country("ESP").is_err());
        assert!(
            code("HTL1", 8).is_ok()
                && code(" HTL1", 8).is_err()
                && code("", 8).is_err()
                && code("123456789", 8).is_err()
        );
        assert!(coordinate("39.5", 90).is_ok() && coordinate("91", 90).is_err());
        assert!(date("2026-02-30").is_err() && time_of_day("24:00").is_err());
    }
}
