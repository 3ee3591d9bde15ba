//! Scalar types for the XSD built-ins that Rust has no exact type for: `xs:date`,
//! `xs:dateTime` and `xs:decimal`. Each reads its XSD lexical form with the shared strict
//! checks of `xsd_builtins::lexical` and writes it back unchanged, so a decoded value
//! re-encodes to the same text.

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use xsd_builtins::{Builtin, lexical};

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

/// A calendar date without a time zone, written `YYYY-MM-DD` (`xs:date`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, yaserde::DefaultYaSerde)]
pub struct Date(pub NaiveDate);

fn naive_date(p: lexical::DateParts) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(i32::from(p.year), u32::from(p.month), u32::from(p.day))
}

impl FromStr for Date {
    type Err = ScalarError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        lexical::date(s).and_then(naive_date).map(Date).ok_or_else(|| err(Builtin::Date.expected(), s))
    }
}

impl Date {
    /// Appends the value's text to `out` (the encoder's hot path: every nightly rate has two).
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        let d = self.0;
        match u32::try_from(d.year()) {
            Ok(year) if year <= 9999 => {
                // `YYYY-MM-DD`, written digit by digit.
                let mut buf = *b"0000-00-00";
                put_digits::<4>(&mut buf[0..], year);
                put_digits::<2>(&mut buf[5..], d.month());
                put_digits::<2>(&mut buf[8..], d.day());
                out.extend_from_slice(&buf);
            }
            _ => out.extend_from_slice(format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()).as_bytes()),
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_via(f, |out| self.write_to(out))
    }
}

/// Writes the text a `write_to` appends (ASCII) through a formatter.
fn write_via(f: &mut fmt::Formatter<'_>, write_to: impl FnOnce(&mut Vec<u8>)) -> fmt::Result {
    let mut out = Vec::with_capacity(40);
    write_to(&mut out);
    f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
}

impl From<NaiveDate> for Date {
    fn from(d: NaiveDate) -> Self {
        Date(d)
    }
}

/// The time zone of a [`DateTime`], as written (`Z`, or `±hh:mm` in minutes east of UTC).
pub use xsd_builtins::lexical::Zone;

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
        let read = |p: lexical::DateTimeParts| {
            let time =
                NaiveTime::from_hms_nano_opt(u32::from(p.hour), u32::from(p.minute), u32::from(p.second), p.nanos)?;
            Some(DateTime {
                local: naive_date(p.date)?.and_time(time),
                zone: p.zone,
                fraction_digits: p.fraction_digits,
            })
        };
        lexical::date_time(s).and_then(read).ok_or_else(|| err(Builtin::DateTime.expected(), s))
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

impl DateTime {
    /// Appends the value's text to `out` (the encoder's hot path: every answer has some).
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        let d = self.local.date();
        let t = self.local.time();
        match u32::try_from(d.year()) {
            Ok(year) if year <= 9999 => {
                // `YYYY-MM-DD` as a date writes it, then `Thh:mm:ss` digit by digit.
                Date(d).write_to(out);
                let mut buf = *b"T00:00:00";
                put_digits::<2>(&mut buf[1..], t.hour());
                put_digits::<2>(&mut buf[4..], t.minute());
                put_digits::<2>(&mut buf[7..], t.second());
                out.extend_from_slice(&buf);
            }
            _ => out.extend_from_slice(
                format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                    d.year(),
                    d.month(),
                    d.day(),
                    t.hour(),
                    t.minute(),
                    t.second()
                )
                .as_bytes(),
            ),
        }
        if self.fraction_digits > 0 {
            let digits = u32::from(self.fraction_digits.min(9));
            let frac = t.nanosecond() / 10u32.pow(9 - digits);
            out.extend_from_slice(format!(".{:0width$}", frac, width = digits as usize).as_bytes());
        }
        match self.zone {
            None => {}
            Some(Zone::Utc) => out.push(b'Z'),
            Some(Zone::Offset(m)) => {
                let mut buf = *b"+00:00";
                if m < 0 {
                    buf[0] = b'-';
                }
                let m = u32::from(m.unsigned_abs());
                put_digits::<2>(&mut buf[1..], m / 60);
                put_digits::<2>(&mut buf[4..], m % 60);
                out.extend_from_slice(&buf);
            }
        }
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_via(f, |out| self.write_to(out))
    }
}

/// An exact decimal number (`xs:decimal`), for money and amounts: never a float.
///
/// Written as read: `100.50` stays `100.50`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, yaserde::DefaultYaSerde)]
pub struct Decimal(pub rust_decimal::Decimal);

impl FromStr for Decimal {
    type Err = ScalarError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let p = lexical::decimal(s).ok_or_else(|| err(Builtin::Decimal.expected(), s))?;
        // rust_decimal reads `12`, `-12.50` as they are; `+1`, `.5` and `5.` are rewritten first.
        let plain = !s.starts_with('+') && !p.int.is_empty() && !s.ends_with('.');
        let exact = if plain {
            rust_decimal::Decimal::from_str_exact(s)
        } else {
            let int = if p.int.is_empty() { "0" } else { p.int };
            let dot = if p.frac.is_empty() { "" } else { "." };
            rust_decimal::Decimal::from_str_exact(&format!("{}{int}{dot}{}", if p.negative { "-" } else { "" }, p.frac))
        };
        exact.map(Decimal).map_err(|_| err("a decimal number with at most 28 significant digits", s))
    }
}

/// Writes the decimal digits of `m` into `digits`, least significant first, at least
/// `scale + 1` of them (the zeros a point needs); returns how many.
fn reversed_digits<T>(mut m: T, scale: usize, digits: &mut [u8; 40]) -> usize
where
    T: Copy + PartialOrd + From<u8> + std::ops::Rem<Output = T> + std::ops::DivAssign + TryInto<u8>,
{
    let (zero, ten) = (T::from(0), T::from(10));
    let mut n = 0;
    while m > zero || n <= scale {
        digits[n] = b'0' + (m % ten).try_into().unwrap_or(0);
        m /= ten;
        n += 1;
    }
    n
}

/// Appends `m` in decimal, `-` first when `negative`, with the point `scale` digits from the
/// right (none when `scale` is 0): the text of integers and of decimals alike.
pub(crate) fn write_number<T>(out: &mut Vec<u8>, negative: bool, m: T, scale: usize)
where
    T: Copy + PartialOrd + From<u8> + std::ops::Rem<Output = T> + std::ops::DivAssign + TryInto<u8>,
{
    let mut digits = [0u8; 40];
    let n = reversed_digits(m, scale, &mut digits);
    let mut buf = [0u8; 42];
    let mut len = 0;
    if negative {
        buf[0] = b'-';
        len = 1;
    }
    for i in (0..n).rev() {
        buf[len] = digits[i];
        len += 1;
        if i == scale && scale > 0 {
            buf[len] = b'.';
            len += 1;
        }
    }
    out.extend_from_slice(&buf[..len]);
}

impl Decimal {
    /// Appends the value's text to `out`: the mantissa's digits with the point `scale` digits
    /// from the right (the encoder's hot path: every amount of an answer); the same text as
    /// rust_decimal's.
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        let scale = self.0.scale() as usize;
        let negative = self.0.is_sign_negative() && !self.0.is_zero();
        let m = self.0.mantissa().unsigned_abs();
        // Money fits in 64 bits: u64 arithmetic there (a u128 division is a library call).
        match u64::try_from(m) {
            Ok(m) => write_number(out, negative, m, scale),
            Err(_) => write_number(out, negative, m, scale),
        }
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.precision().is_some() || f.width().is_some() || f.sign_plus() {
            return fmt::Display::fmt(&self.0, f);
        }
        write_via(f, |out| self.write_to(out))
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
    fn decimals_are_written_as_rust_decimal_writes_them() {
        for s in [
            "0",
            "0.00",
            "0.05",
            "1",
            "-1",
            "-0.50",
            "100.50",
            "12345.6789",
            "0.0000000000000000000000000001",
            "79228162514459439543950335",
            "-79228162514459439543950335",
            "7.9228162514264337593543950335",
            "10",
            "1000000.000",
        ] {
            let ours = Decimal::from_str(s).map(|d| (d.to_string(), d.0.to_string()));
            assert_eq!(ours, Ok((s.to_string(), s.to_string())), "{s}");
        }
        for s in ["-0", "-0.00"] {
            let (ours, theirs) = Decimal::from_str(s).map(|d| (d.to_string(), d.0.to_string())).unwrap_or_default();
            assert_eq!(ours, theirs, "{s}");
            assert!(!ours.is_empty());
        }
        let mut x = rust_decimal::Decimal::new(1, 0);
        for i in 0..200u32 {
            x = x.checked_mul(rust_decimal::Decimal::new(-37, 1)).unwrap_or(rust_decimal::Decimal::new(3, 1))
                + rust_decimal::Decimal::new(i64::from(i), 2);
            x.rescale(i % 7);
            assert_eq!(Decimal(x).to_string(), x.to_string());
        }
    }

    #[test]
    fn dates_round_trip_and_reject_impossible_ones() {
        for ok in ["2026-07-17", "2024-02-29", "0001-01-01"] {
            assert_eq!(Date::from_str(ok).map(|d| d.to_string()).as_deref(), Ok(ok));
        }
        for bad in [
            "2026-02-30",
            "2025-02-29",
            "2026-13-01",
            "26-07-17",
            "2026-7-17",
            "2026-07-17Z",
            " 2026-07-17",
            "2026/07/17",
            "",
        ] {
            assert!(Date::from_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn date_times_keep_their_form() {
        for ok in [
            "2026-07-17T09:30:00",
            "2026-07-17T09:30:00Z",
            "2026-07-17T09:30:00.250+02:00",
            "2026-07-17T23:59:59-05:30",
            "2026-07-17T00:00:00.000000001",
        ] {
            assert_eq!(DateTime::from_str(ok).map(|d| d.to_string()).as_deref(), Ok(ok));
        }
        for bad in [
            "2026-07-17",
            "2026-07-17T25:00:00",
            "2026-07-17T09:60:00",
            "2026-07-17 09:30:00",
            "2026-07-17T09:30",
            "2026-07-17T09:30:00+2:00",
            "2026-07-17T09:30:00.",
            "2026-07-17T09:30:00+15:00",
            "2026-07-17T09:30:60",
        ] {
            assert!(DateTime::from_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn decimals_are_exact() {
        for (input, out) in [
            ("100.50", "100.50"),
            ("0", "0"),
            ("-12.345", "-12.345"),
            ("+1.5", "1.5"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("5.", "5"),
            ("-5.", "-5"),
            ("007.10", "7.10"),
            ("-0", "0"),
        ] {
            assert_eq!(Decimal::from_str(input).map(|d| d.to_string()).as_deref(), Ok(out), "{input}");
        }
        for bad in ["1e5", "1,5", "", "-", ".", "1.2.3", "NaN", " 1", "1 ", "99999999999999999999999999999999"] {
            assert!(Decimal::from_str(bad).is_err(), "{bad}");
        }
    }
}
