//! The gateway's settings: what `ota-gateway serve` reads from its command line, and what tests
//! build by hand (start from [`Config::default`] and change a field or two).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use crate::store::Location;

use ipnet::IpNet;

/// The default database: a SQLite file in the working directory.
pub const DEFAULT_DB: &str = "./ota-gateway.db";

/// The default request body limit: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// The default [`Config::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// The default [`Config::body_memory`]: 64 MiB.
pub const DEFAULT_BODY_MEMORY: usize = 64 << 20;

/// How the server writes its logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The gateway's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// The database: a SQLite file or a PostgreSQL URL.
    pub db: Location,
    /// The largest request body accepted, in bytes (larger ones get 413).
    pub body_limit: usize,
    /// The most connections open at once (more wait in the listen backlog until one closes).
    pub max_connections: usize,
    /// The most bytes the request bodies being read may take together: a body reserves its
    /// declared length (or the body limit, when it declares none) before it is read, and waits
    /// for room within its request's time. Bounds what held uploads can make the gateway keep.
    pub body_memory: usize,
    /// When not empty, only clients whose address is in one of these networks are served;
    /// the others get 403 before their body is read.
    pub allow: Vec<IpNet>,
    /// The log format.
    pub log_format: LogFormat,
    /// The longest a request may take, body upload included (then 408).
    pub request_timeout: Duration,
    /// The longest a client may take to send a request's headers (then the connection is closed).
    pub header_read_timeout: Duration,
    /// The longest a client may take to send a request's body (then 408), within the request
    /// time-out: a held upload keeps its share of [`Config::body_memory`] no longer.
    pub body_read_timeout: Duration,
    /// At shutdown, how long in-flight requests get to finish before the server stops anyway.
    pub shutdown_grace: Duration,
    /// How often the look-to-book and daily-quota counts go to the database (and every
    /// gateway's day totals come back).
    pub traffic_flush: Duration,
    /// The path prefix of every route (`/sandbox`: `/sandbox/hotelnbc`, `/sandbox/healthz`, …);
    /// empty for none. See [`parse_base_path`].
    pub base_path: String,
    /// Proxies whose `X-Forwarded-For` is believed: when the peer is in one of these networks,
    /// the client address is the last address of that header that is not a trusted proxy.
    /// Empty: the header is ignored and the peer is the client.
    pub trusted_proxies: Vec<IpNet>,
    /// Where `GET /metrics` is served: `None` on the main address (under the base path),
    /// `Some(addr)` only on that address (served by the caller, see [`crate::http::metrics_router`]).
    pub metrics_addr: Option<SocketAddr>,
    /// Brute-force throttling of authentication failures.
    pub throttle: ThrottleSettings,
    /// The transaction log: masking, retention, the writer's queue ([`crate::txlog`]).
    pub txlog: crate::txlog::Settings,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: Location::Sqlite(PathBuf::from(DEFAULT_DB)),
            body_limit: DEFAULT_BODY_LIMIT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            body_memory: DEFAULT_BODY_MEMORY,
            allow: Vec::new(),
            log_format: LogFormat::Text,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(30),
            traffic_flush: Duration::from_secs(60),
            base_path: String::new(),
            trusted_proxies: Vec::new(),
            metrics_addr: None,
            throttle: ThrottleSettings::default(),
            txlog: crate::txlog::Settings::default(),
        }
    }
}

impl Config {
    /// True when a client at `ip` may be served (always, when no allow-list is set).
    /// IPv4 addresses mapped into IPv6 (`::ffff:a.b.c.d`) are checked as IPv4.
    pub fn allows(&self, ip: IpAddr) -> bool {
        if self.allow.is_empty() {
            return true;
        }
        let ip = ip.to_canonical();
        self.allow.iter().any(|net| net.contains(&ip))
    }

    /// The client's address of a request from `peer` carrying `forwarded_for` (the values of
    /// its `X-Forwarded-For` headers, in order): `peer`, unless `peer` is a trusted proxy and
    /// the header names an address; then, walking the header from its end, the first address
    /// that is not itself a trusted proxy (what a client prepends is never believed).
    pub fn client_address<'a>(&self, peer: IpAddr, forwarded_for: impl IntoIterator<Item = &'a str>) -> IpAddr {
        let trusted = |ip: IpAddr| {
            let ip = ip.to_canonical();
            self.trusted_proxies.iter().any(|net| net.contains(&ip))
        };
        if !trusted(peer) {
            return peer;
        }
        let hops: Vec<&str> = forwarded_for.into_iter().flat_map(|v| v.split(',')).map(str::trim).collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Some(ip) = hop_address(hop) else {
                // Something that is not an address: stop at the last address believed.
                break;
            };
            client = ip.to_canonical();
            if !trusted(client) {
                break;
            }
        }
        client
    }

    /// The request path without the base path: `Some("/hotelnbc")` for `/sandbox/hotelnbc`
    /// under `/sandbox`; `None` for a path outside it.
    pub fn route_path<'a>(&self, path: &'a str) -> Option<&'a str> {
        if self.base_path.is_empty() {
            return Some(path);
        }
        path.strip_prefix(self.base_path.as_str()).filter(|rest| rest.starts_with('/'))
    }
}

/// The address of one `X-Forwarded-For` hop, as proxies write it: `203.0.113.7`, `2001:db8::1`,
/// with a port (`203.0.113.7:51234`, `[2001:db8::1]:51234`), or bracketed (`[2001:db8::1]`).
fn hop_address(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(socket) = hop.parse::<SocketAddr>() {
        return Some(socket.ip());
    }
    hop.strip_prefix('[')?.strip_suffix(']')?.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6)
}

/// Parses a base path: `/sandbox`, `/ota/v1` (a leading slash, segments of letters, digits,
/// `-`, `_`, `.`, `~`; a trailing slash is dropped). `""` or `/` is no base path.
pub fn parse_base_path(s: &str) -> Result<String, String> {
    let t = s.trim().trim_end_matches('/');
    if t.is_empty() {
        return Ok(String::new());
    }
    let Some(rest) = t.strip_prefix('/') else {
        return Err(format!("{s:?}: a base path starts with / (e.g. /sandbox)"));
    };
    let ok = rest.split('/').all(|seg| {
        !seg.is_empty()
            && seg != "."
            && seg != ".."
            && seg.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    });
    if !ok {
        return Err(format!("{s:?}: a base path is made of /segments of letters, digits, -, _, . and ~"));
    }
    Ok(t.to_string())
}

/// Parses a network for the allow-list: a CIDR (`10.0.0.0/8`, `::1/128`) or a bare address
/// (taken as a single host).
pub fn parse_net(s: &str) -> Result<IpNet, String> {
    let s = s.trim();
    if let Ok(net) = s.parse::<IpNet>() {
        return Ok(net.trunc());
    }
    s.parse::<IpAddr>().map(IpNet::from).map_err(|_| format!("{s:?} is not an IP network (e.g. 10.0.0.0/8) or address"))
}

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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1MiB").unwrap(), 1 << 20);
        assert_eq!(parse_size("64k").unwrap(), 64 << 10);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("1 parsec").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("7").unwrap(), Duration::from_secs(7));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn allow_list() {
        let mut c = Config::default();
        assert!(c.allows("203.0.113.9".parse().unwrap()));
        c.allow = vec![parse_net("10.0.0.0/8").unwrap(), parse_net("::1").unwrap()];
        assert!(c.allows("10.1.2.3".parse().unwrap()));
        assert!(c.allows("::ffff:10.1.2.3".parse().unwrap()));
        assert!(c.allows("::1".parse().unwrap()));
        assert!(!c.allows("127.0.0.1".parse().unwrap()));
        assert!(parse_net("10.0.0.300/8").is_err());
    }

    #[test]
    fn base_paths() {
        assert_eq!(parse_base_path("/sandbox").unwrap(), "/sandbox");
        assert_eq!(parse_base_path("/ota/v1/").unwrap(), "/ota/v1");
        assert_eq!(parse_base_path("/").unwrap(), "");
        assert_eq!(parse_base_path("").unwrap(), "");
        for bad in ["sandbox", "/a//b", "/a b", "/../x", "/a?b"] {
            assert!(parse_base_path(bad).is_err(), "{bad}");
        }
        let c = Config { base_path: "/sandbox".into(), ..Config::default() };
        assert_eq!(c.route_path("/sandbox/hotelnbc"), Some("/hotelnbc"));
        assert_eq!(c.route_path("/sandbox"), None);
        assert_eq!(c.route_path("/sandboxes/hotelnbc"), None);
        assert_eq!(c.route_path("/hotelnbc"), None);
        assert_eq!(Config::default().route_path("/hotelnbc"), Some("/hotelnbc"));
    }

    #[test]
    fn forwarded_addresses_only_from_trusted_proxies() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let mut c = Config::default();
        assert_eq!(
            c.client_address(ip("10.0.0.5"), ["203.0.113.9"]),
            ip("10.0.0.5"),
            "no proxy trusted: the header is ignored"
        );
        c.trusted_proxies = vec![parse_net("10.0.0.0/24").unwrap()];
        assert_eq!(c.client_address(ip("10.0.0.5"), ["203.0.113.9"]), ip("203.0.113.9"));
        assert_eq!(
            c.client_address(ip("10.0.0.5"), ["198.51.100.1, 203.0.113.9, 10.0.0.7"]),
            ip("203.0.113.9"),
            "a spoofed first hop is not believed"
        );
        assert_eq!(
            c.client_address(ip("10.0.0.5"), ["198.51.100.1", "203.0.113.9"]),
            ip("203.0.113.9"),
            "several headers"
        );
        assert_eq!(c.client_address(ip("10.0.0.5"), ["junk"]), ip("10.0.0.5"));
        // Proxies that write ports: each client is itself, not the proxy.
        assert_eq!(c.client_address(ip("10.0.0.5"), ["203.0.113.9:51234"]), ip("203.0.113.9"));
        assert_eq!(c.client_address(ip("10.0.0.5"), ["[2001:db8::7]:443"]), ip("2001:db8::7"));
        assert_eq!(c.client_address(ip("10.0.0.5"), ["[2001:db8::7]"]), ip("2001:db8::7"));
        assert_eq!(
            c.client_address(ip("10.0.0.5"), ["198.51.100.1:1, 10.0.0.7:8080"]),
            ip("198.51.100.1"),
            "a trusted hop with a port is walked past"
        );
        assert_eq!(c.client_address(ip("10.0.0.5"), std::iter::empty()), ip("10.0.0.5"));
        assert_eq!(
            c.client_address(ip("192.0.2.1"), ["203.0.113.9"]),
            ip("192.0.2.1"),
            "an untrusted peer's header is ignored"
        );
    }
}

/// The settings of the throttle on failed logins (see [`crate::auth::throttle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleSettings {
    /// Failures allowed from one client address before it is locked; 0: no address throttling.
    pub address_failures: u32,
    /// Failures allowed on one requestor id before it is locked; 0: no requestor throttling.
    pub requestor_failures: u32,
    /// The first lock; each further failure doubles it.
    pub first_lock: Duration,
    /// The longest lock.
    pub max_lock: Duration,
    /// Failures older than this (counted from the last one) are forgotten.
    pub forget_after: Duration,
    /// The most entries of each table (addresses, requestor ids).
    pub max_entries: usize,
}

impl Default for ThrottleSettings {
    fn default() -> Self {
        ThrottleSettings {
            address_failures: 10,
            requestor_failures: 20,
            first_lock: Duration::from_secs(1),
            max_lock: Duration::from_secs(15 * 60),
            forget_after: Duration::from_secs(15 * 60),
            max_entries: 10_000,
        }
    }
}
