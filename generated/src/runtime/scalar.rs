//! Scalar types for the XSD built-ins that Rust has no exact type for: `xs:date`,
//! `xs:dateTime` and `xs:decimal`. Each parses its XSD lexical form strictly and writes it back
//! unchanged, so a decoded value re-encodes to the same text.

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};

/// Why a scalar value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, found {found:?}")]
pub struct ScalarError {
    /// What the value should look like.
    pub expected: &'static str,
    /// The text that was found.
    pub found: String,
}

fn err(expected: &'static str, found: &str) -> ScalarError {
    ScalarError { expected, found: found.to_string() }
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A calendar date without a time zone, written `YYYY-MM-DD` (`xs:date`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, yaserde::DefaultYaSerde)]
pub struct Date(pub NaiveDate);

const DATE_SHAPE: &str = "a date YYYY-MM-DD";

fn parse_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if !s.is_ascii() || b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    NaiveDate::from_ymd_opt(digits(&s[0..4])? as i32, digits(&s[5..7])?, digits(&s[8..10])?)
}

impl FromStr for Date {
    type Err = ScalarError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_date(s).map(Date).ok_or_else(|| err(DATE_SHAPE, s))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.0.year(), self.0.month(), self.0.day())
    }
}

impl From<NaiveDate> for Date {
    fn from(d: NaiveDate) -> Self {
        Date(d)
    }
}

/// The time zone of an [`DateTime`], as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Zone {
    /// `Z`.
    Utc,
    /// `+hh:mm` or `-hh:mm`, in minutes east of UTC.
    Offset(i16),
}

/// A date and time (`xs:dateTime`): `YYYY-MM-DDThh:mm:ss`, optional fraction, optional zone.
///
/// Values without a zone are local times, as the service's date-times are. The fraction is kept
/// with the number of digits it was written with, so the value re-encodes unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, yaserde::DefaultYaSerde)]
pub struct DateTime {
    /// The date and time of day.
    pub local: NaiveDateTime,
    /// The zone, if one was given.
    pub zone: Option<Zone>,
    /// Digits of the fraction of a second as written (0 when there was none).
    pub fraction_digits: u8,
}

const DATE_TIME_SHAPE: &str = "a date-time YYYY-MM-DDThh:mm:ss";

impl DateTime {
    /// A local date-time (no zone, no fraction).
    pub fn local(local: NaiveDateTime) -> Self {
        DateTime { local, zone: None, fraction_digits: 0 }
    }
}

impl From<NaiveDateTime> for DateTime {
    fn from(local: NaiveDateTime) -> Self {
        DateTime::local(local)
    }
}

impl FromStr for DateTime {
    type Err = ScalarError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || err(DATE_TIME_SHAPE, s);
        let (date, rest) = s.split_at_checked(10).ok_or_else(bad)?;
        let date = parse_date(date).ok_or_else(bad)?;
        let rest = rest.strip_prefix('T').ok_or_else(bad)?;
        let (time, rest) = rest.split_at_checked(8).ok_or_else(bad)?;
        let tb = time.as_bytes();
        if !time.is_ascii() || tb[2] != b':' || tb[5] != b':' {
            return Err(bad());
        }
        let (h, m, sec) = (digits(&time[0..2]).ok_or_else(bad)?, digits(&time[3..5]).ok_or_else(bad)?, digits(&time[6..8]).ok_or_else(bad)?);
        let (mut nanos, mut fraction_digits, mut rest) = (0u32, 0u8, rest);
        if let Some(frac) = rest.strip_prefix('.') {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 || n > 9 {
                return Err(bad());
            }
            nanos = digits(&frac[..n]).ok_or_else(bad)? * 10u32.pow(9 - n as u32);
            fraction_digits = n as u8;
            rest = &frac[n..];
        }
        let zone = match rest {
            "" => None,
            "Z" => Some(Zone::Utc),
            z => {
                let zb = z.as_bytes();
                if !z.is_ascii() || zb.len() != 6 || !(zb[0] == b'+' || zb[0] == b'-') || zb[3] != b':' {
                    return Err(bad());
                }
                let (zh, zm) = (digits(&z[1..3]).ok_or_else(bad)?, digits(&z[4..6]).ok_or_else(bad)?);
                if zh > 14 || zm > 59 || (zh == 14 && zm != 0) {
                    return Err(bad());
                }
                let minutes = (zh * 60 + zm) as i16;
                Some(Zone::Offset(if zb[0] == b'-' { -minutes } else { minutes }))
            }
        };
        let time = NaiveTime::from_hms_nano_opt(h, m, sec, nanos).filter(|_| sec < 60).ok_or_else(bad)?;
        Ok(DateTime { local: date.and_time(time), zone, fraction_digits })
    }
}

/// Writes `n` as exactly `N` decimal digits (the caller guarantees it fits).
fn put_digits<const N: usize>(out: &mut [u8], n: u32) {
    let mut n = n;
    for slot in out[..N].iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.local.date();
        let t = self.local.time();
        match u32::try_from(d.year()) {
            Ok(year) if year <= 9999 => {
                // `YYYY-MM-DDThh:mm:ss`, written digit by digit (a hot path of every answer).
                let mut buf = *b"0000-00-00T00:00:00";
                put_digits::<4>(&mut buf[0..], year);
                put_digits::<2>(&mut buf[5..], d.month());
                put_digits::<2>(&mut buf[8..], d.day());
                put_digits::<2>(&mut buf[11..], t.hour());
                put_digits::<2>(&mut buf[14..], t.minute());
                put_digits::<2>(&mut buf[17..], t.second());
                f.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)?;
            }
            _ => write!(f, "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", d.year(), d.month(), d.day(), t.hour(), t.minute(), t.second())?,
        }
        if self.fraction_digits > 0 {
            let digits = u32::from(self.fraction_digits.min(9));
            let frac = t.nanosecond() / 10u32.pow(9 - digits);
            write!(f, ".{:0width$}", frac, width = digits as usize)?;
        }
        match self.zone {
            None => Ok(()),
            Some(Zone::Utc) => f.write_str("Z"),
            Some(Zone::Offset(m)) => {
                let sign = if m < 0 { '-' } else { '+' };
                let m = m.unsigned_abs();
                write!(f, "{sign}{:02}:{:02}", m / 60, m % 60)
            }
        }
    }
}

/// An exact decimal number (`xs:decimal`), for money and amounts: never a float.
///
/// Written as read: `100.50` stays `100.50`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, yaserde::DefaultYaSerde)]
pub struct Decimal(pub rust_decimal::Decimal);

const DECIMAL_SHAPE: &str = "a decimal number such as 123.45";

impl FromStr for Decimal {
    type Err = ScalarError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || err(DECIMAL_SHAPE, s);
        let (neg, body) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if (int.is_empty() && frac.is_empty()) || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let normalized = format!("{}{}{}{}", if neg { "-" } else { "" }, if int.is_empty() { "0" } else { int }, if frac.is_empty() { "" } else { "." }, frac);
        rust_decimal::Decimal::from_str_exact(&normalized)
            .map(Decimal)
            .map_err(|_| err("a decimal number with at most 28 significant digits", s))
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<rust_decimal::Decimal> for Decimal {
    fn from(d: rust_decimal::Decimal) -> Self {
        Decimal(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_and_reject_impossible_ones() {
        for ok in ["2026-07-17", "2024-02-29", "0001-01-01"] {
            assert_eq!(Date::from_str(ok).map(|d| d.to_string()).as_deref(), Ok(ok));
        }
        for bad in ["2026-02-30", "2025-02-29", "2026-13-01", "26-07-17", "2026-7-17", "2026-07-17Z", " 2026-07-17", "2026/07/17", ""] {
            assert!(Date::from_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn date_times_keep_their_form() {
        for ok in ["2026-07-17T09:30:00", "2026-07-17T09:30:00Z", "2026-07-17T09:30:00.250+02:00", "2026-07-17T23:59:59-05:30", "2026-07-17T00:00:00.000000001"] {
            assert_eq!(DateTime::from_str(ok).map(|d| d.to_string()).as_deref(), Ok(ok));
        }
        for bad in ["2026-07-17", "2026-07-17T25:00:00", "2026-07-17T09:60:00", "2026-07-17 09:30:00", "2026-07-17T09:30", "2026-07-17T09:30:00+2:00", "2026-07-17T09:30:00.", "2026-07-17T09:30:00+15:00", "2026-07-17T09:30:60"] {
            assert!(DateTime::from_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn decimals_are_exact() {
        for (input, out) in [("100.50", "100.50"), ("0", "0"), ("-12.345", "-12.345"), ("+1.5", "1.5"), (".5", "0.5"), ("5.", "5")] {
            assert_eq!(Decimal::from_str(input).map(|d| d.to_string()).as_deref(), Ok(out), "{input}");
        }
        for bad in ["1e5", "1,5", "", "-", ".", "1.2.3", "NaN", " 1", "1 ", "99999999999999999999999999999999"] {
            assert!(Decimal::from_str(bad).is_err(), "{bad}");
        }
    }
}
