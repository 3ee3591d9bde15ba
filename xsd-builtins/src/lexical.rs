//! The lexical forms of the built-ins with structure (dates, date-times, decimals, language
//! codes, booleans), parsed into their parts. The runtime builds its values from these parts,
//! so what is checked and what is read are one definition.

/// The parts of an `xs:date` (and of the date of an `xs:dateTime`): a real calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateParts {
    /// 1 to 9999.
    pub year: u16,
    /// 1 to 12.
    pub month: u8,
    /// 1 to the number of days of the month.
    pub day: u8,
}

/// A time zone as written in an `xs:dateTime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Zone {
    /// `Z`.
    Utc,
    /// `+hh:mm` or `-hh:mm`, in minutes east of UTC (−14:00 to +14:00).
    Offset(i16),
}

/// The parts of an `xs:dateTime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTimeParts {
    /// The date.
    pub date: DateParts,
    /// 0 to 23.
    pub hour: u8,
    /// 0 to 59.
    pub minute: u8,
    /// 0 to 59.
    pub second: u8,
    /// The fraction of a second, in nanoseconds.
    pub nanos: u32,
    /// How many digits the fraction was written with (0 to 9; 0 when there was none).
    pub fraction_digits: u8,
    /// The zone, if one was written.
    pub zone: Option<Zone>,
}

/// The parts of an `xs:decimal`: sign, integer digits and fraction digits as written (either
/// may be empty, not both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecimalParts<'a> {
    /// A leading `-`.
    pub negative: bool,
    /// The digits before the point.
    pub int: &'a str,
    /// The digits after the point.
    pub frac: &'a str,
}

/// All ASCII digits, at least one.
fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The value of exactly `n` ASCII digits.
fn number(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && all_digits(s)).then(|| s.bytes().fold(0u32, |acc, b| acc * 10 + u32::from(b - b'0')))
}

/// True for a leap year of the proleptic Gregorian calendar.
pub fn is_leap_year(year: u16) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// The number of days of a month (0 for a month that is not 1–12).
pub fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// `YYYY-MM-DD`: a four-digit year 0001–9999 and a real date; no zone.
pub fn date(s: &str) -> Option<DateParts> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = u16::try_from(number(s.get(0..4)?, 4)?).ok().filter(|&y| y >= 1)?;
    let month = u8::try_from(number(s.get(5..7)?, 2)?).ok()?;
    let day = u8::try_from(number(s.get(8..10)?, 2)?).ok()?;
    (day >= 1 && day <= days_in_month(year, month)).then_some(DateParts { year, month, day })
}

/// `YYYY-MM-DDThh:mm:ss`, an optional fraction of 1–9 digits, an optional zone (`Z` or
/// `±hh:mm` within ±14:00); hours 00–23.
pub fn date_time(s: &str) -> Option<DateTimeParts> {
    let date = date(s.get(0..10)?)?;
    let rest = s.get(10..)?.strip_prefix('T')?;
    let time = rest.get(0..8)?;
    let tb = time.as_bytes();
    if tb[2] != b':' || tb[5] != b':' {
        return None;
    }
    let hour = u8::try_from(number(time.get(0..2)?, 2)?).ok().filter(|&h| h < 24)?;
    let minute = u8::try_from(number(time.get(3..5)?, 2)?).ok().filter(|&m| m < 60)?;
    let second = u8::try_from(number(time.get(6..8)?, 2)?).ok().filter(|&x| x < 60)?;
    let mut rest = rest.get(8..)?;
    let (mut nanos, mut fraction_digits) = (0, 0);
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > 9 {
            return None;
        }
        nanos = number(frac.get(..n)?, n)? * 10u32.pow(9 - n as u32);
        fraction_digits = n as u8;
        rest = frac.get(n..)?;
    }
    let zone = match rest {
        "" => None,
        "Z" => Some(Zone::Utc),
        z => {
            let zb = z.as_bytes();
            if zb.len() != 6 || !(zb[0] == b'+' || zb[0] == b'-') || zb[3] != b':' {
                return None;
            }
            let (zh, zm) = (number(z.get(1..3)?, 2)?, number(z.get(4..6)?, 2)?);
            if zh > 14 || zm > 59 || (zh == 14 && zm != 0) {
                return None;
            }
            let minutes = (zh * 60 + zm) as i16;
            Some(Zone::Offset(if zb[0] == b'-' { -minutes } else { minutes }))
        }
    };
    Some(DateTimeParts { date, hour, minute, second, nanos, fraction_digits, zone })
}

/// An optional sign, digits, an optional point and digits (`1`, `-1.50`, `.5`, `5.`); no
/// exponent, no spaces.
pub fn decimal(s: &str) -> Option<DecimalParts<'_>> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    // One pass over the bytes: digits, then at most one point and digits.
    let bytes = body.as_bytes();
    let point = bytes.iter().position(|b| !b.is_ascii_digit()).unwrap_or(bytes.len());
    let (int, frac) = match bytes.get(point) {
        None => (body, ""),
        Some(b'.') => (body.get(..point)?, body.get(point + 1..)?),
        Some(_) => return None,
    };
    (!(int.is_empty() && frac.is_empty()) && frac.bytes().all(|b| b.is_ascii_digit())).then_some(DecimalParts {
        negative,
        int,
        frac,
    })
}

/// `xs:language`: `[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*`.
pub fn language(v: &str) -> bool {
    let mut parts = v.split('-');
    let first_ok =
        parts.next().is_some_and(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphabetic()));
    first_ok && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// `xs:boolean`: `true`, `false`, `1` or `0`.
pub fn boolean(v: &str) -> Option<bool> {
    match v {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        for ok in ["2026-07-17", "2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31"] {
            assert!(date(ok).is_some(), "{ok}");
        }
        for bad in [
            "2026-02-30",
            "2025-02-29",
            "1900-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-01-00",
            "0000-01-01",
            "26-07-17",
            "2026-7-17",
            "2026-07-17Z",
            " 2026-07-17",
            "2026/07/17",
            "",
            "10000-01-01",
            "-0001-01-01",
            "2026-07-1\u{e9}",
            "２０２６-07-17",
        ] {
            assert!(date(bad).is_none(), "{bad}");
        }
        assert_eq!(date("2024-02-29"), Some(DateParts { year: 2024, month: 2, day: 29 }));
    }

    #[test]
    fn date_times() {
        for ok in [
            "2026-07-17T09:30:00",
            "2026-07-17T09:30:00Z",
            "2026-07-17T09:30:00.250+02:00",
            "2026-07-17T23:59:59-05:30",
            "2026-07-17T00:00:00.000000001",
            "2026-07-17T09:30:00+14:00",
            "2026-07-17T09:30:00-14:00",
        ] {
            assert!(date_time(ok).is_some(), "{ok}");
        }
        for bad in [
            "2026-07-17",
            "2026-07-17T24:00:00",
            "2026-07-17T25:00:00",
            "2026-07-17T09:60:00",
            "2026-07-17T09:30:60",
            "2026-07-17 09:30:00",
            "2026-07-17T09:30",
            "2026-07-17T09:30:00+2:00",
            "2026-07-17T09:30:00.",
            "2026-07-17T09:30:00+15:00",
            "2026-07-17T09:30:00+14:01",
            "2026-07-17T09:30:00.1234567890",
            "10000-01-01T00:00:00",
            "0000-01-01T00:00:00",
            "2026-02-30T00:00:00",
            "2026-07-17T09:30:00z",
            "2026-07-17T09:3\u{e9}:00",
        ] {
            assert!(date_time(bad).is_none(), "{bad}");
        }
        let p = date_time("2026-07-17T09:30:05.25-05:30");
        assert_eq!(
            p,
            Some(DateTimeParts {
                date: DateParts { year: 2026, month: 7, day: 17 },
                hour: 9,
                minute: 30,
                second: 5,
                nanos: 250_000_000,
                fraction_digits: 2,
                zone: Some(Zone::Offset(-330)),
            })
        );
    }

    #[test]
    fn decimals() {
        for ok in ["0", "100.50", "-12.345", "+1.5", ".5", "5.", "-0"] {
            assert!(decimal(ok).is_some(), "{ok}");
        }
        for bad in ["1e5", "1,5", "", "-", ".", "+.", "1.2.3", "NaN", " 1", "1 ", "--1"] {
            assert!(decimal(bad).is_none(), "{bad}");
        }
        assert_eq!(decimal("-1.50"), Some(DecimalParts { negative: true, int: "1", frac: "50" }));
    }

    #[test]
    fn language_codes() {
        for ok in ["en", "en-GB", "zh-Hant-TW", "x-klingon1"] {
            assert!(language(ok), "{ok}");
        }
        for bad in ["", "en_GB", "toolonglang", "en-", "-en", "*", "e1"] {
            assert!(!language(bad), "{bad}");
        }
    }
}
