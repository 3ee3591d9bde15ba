//! The command line's vocabulary, shared by every settings type that is also a set of
//! arguments ([`crate::config::Config`], [`crate::txlog::Settings`], [`crate::outbox::Settings`]):
//! sizes, durations and retentions as the command line and the environment write them (`1MiB`,
//! `30s`, `off`), and [`defaults`], which their `Default` impls are.

use std::time::Duration;

/// Parses a size: bytes (`65536`) or with a unit (`64KiB`, `1MiB`, `2M`, `512k`; K and M are
/// binary, 1024-based).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: usize = num.parse().map_err(|_| format!("{s:?} is not a size (e.g. 1MiB, 65536)"))?;
    let mult: usize = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        "g" | "gb" | "gib" => 1024 * 1024 * 1024,
        _ => return Err(format!("{s:?}: unknown size unit {unit:?} (use B, KiB, MiB or GiB)")),
    };
    n.checked_mul(mult).ok_or_else(|| format!("{s:?} is too large"))
}

/// Parses a duration: `30s`, `500ms`, `2m`, `1h`, or a plain number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| format!("{s:?} is not a duration (e.g. 30s, 500ms)"))?;
    let d = match unit.trim() {
        "" | "s" => Duration::from_secs(n),
        "ms" => Duration::from_millis(n),
        "m" | "min" => Duration::from_secs(n.saturating_mul(60)),
        "h" => Duration::from_secs(n.saturating_mul(3600)),
        "d" => Duration::from_secs(n.saturating_mul(86_400)),
        other => return Err(format!("{s:?}: unknown duration unit {other:?} (use ms, s, m, h or d)")),
    };
    if d.is_zero() {
        return Err(format!("{s:?}: a duration must be more than zero"));
    }
    Ok(d)
}

/// Parses a retention: a duration (see [`parse_duration`]), or `off` (`None`: kept for ever).
pub fn parse_retention(s: &str) -> Result<Option<Duration>, String> {
    if s.trim() == "off" {
        return Ok(None);
    }
    parse_duration(s).map(Some)
}

/// The defaults of a set of command-line arguments (`T`'s clap defaults, whatever the
/// environment says): how the settings' `Default` impls are written, so that each default is
/// stated once, on its argument.
pub fn defaults<T: clap::Args + clap::FromArgMatches>() -> T {
    let command = T::augment_args(clap::Command::new("defaults")).mut_args(|arg| arg.env(None));
    let parsed = command.try_get_matches_from(["defaults"]).and_then(|matches| T::from_arg_matches(&matches));
    // Every argument has a default or is optional (the tests of each settings type check it).
    #[allow(clippy::expect_used)]
    parsed.expect("the defaults of the arguments parse")
}
