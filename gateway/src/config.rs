//! The gateway's settings: what `ota-gateway serve` reads from its command line, and what tests
//! build by hand (start from [`Config::default`] and change a field or two).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use crate::store::Location;

use ipnet::IpNet;

pub use crate::args::{defaults, parse_duration, parse_retention, parse_size};

/// The default database: a SQLite file in the working directory.
pub const DEFAULT_DB: &str = "./ota-gateway.db";

/// How the server writes its logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The gateway's settings: the arguments of `ota-gateway serve` themselves (each setting, its
/// flag, its `OTA_GATEWAY_*` variable and its default are stated here once; lists in a
/// variable are comma-separated), and what tests build by hand from [`Config::default`].
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080", env = "OTA_GATEWAY_ADDR")]
    pub addr: SocketAddr,
    /// The database: a SQLite file (created if missing; demo content only with --demo) or
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (shared by many gateways).
    #[arg(
        long,
        default_value = DEFAULT_DB,
        env = "OTA_GATEWAY_DB",
        help = "The database: a SQLite file (created if missing; demo content only with --demo) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB (shared by many gateways)"
    )]
    pub db: Location,
    /// The largest request body (e.g. 1MiB, 256KiB, 65536).
    // Larger ones get 413.
    #[arg(long, default_value = "1MiB", value_parser = parse_size, env = "OTA_GATEWAY_BODY_LIMIT")]
    pub body_limit: usize,
    /// The most connections open at once; more wait to be accepted.
    // They wait in the listen backlog until one closes.
    #[arg(long, default_value_t = 4096, env = "OTA_GATEWAY_MAX_CONNECTIONS")]
    pub max_connections: usize,
    /// The most memory the request bodies being read may take together (e.g. 64MiB), counted
    /// as their bytes arrive; a body waits for room for what it has sent.
    // A declared size reserves nothing: a held upload that sends nothing holds nothing. Bounds
    // what held uploads can make the gateway keep.
    #[arg(long, default_value = "64MiB", value_parser = parse_size, env = "OTA_GATEWAY_BODY_MEMORY")]
    pub body_memory: usize,
    /// Serve only clients in this network (CIDR or address; repeatable). Others get 403.
    // Empty: every client is served. The others get 403 before their body is read.
    #[arg(long = "allow", value_name = "CIDR", value_parser = parse_net, env = "OTA_GATEWAY_ALLOW", value_delimiter = ',')]
    pub allow: Vec<IpNet>,
    /// The log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text, env = "OTA_GATEWAY_LOG_FORMAT")]
    pub log_format: LogFormat,
    /// The longest a request may take (e.g. 30s, 500ms).
    // Body upload included; then 408.
    #[arg(long, default_value = "30s", value_parser = parse_duration, env = "OTA_GATEWAY_REQUEST_TIMEOUT")]
    pub request_timeout: Duration,
    /// The longest a client may take to send its request headers.
    // Then the connection is closed.
    #[arg(long, default_value = "10s", value_parser = parse_duration, env = "OTA_GATEWAY_HEADER_READ_TIMEOUT")]
    pub header_read_timeout: Duration,
    /// The longest a client may take to send a request's body (then 408): a held upload keeps
    /// its share of --body-memory no longer.
    // Within the request time-out.
    #[arg(long, default_value = "10s", value_parser = parse_duration, env = "OTA_GATEWAY_BODY_READ_TIMEOUT")]
    pub body_read_timeout: Duration,
    /// At shutdown, how long the requests in flight get to finish.
    // Then the server stops anyway.
    #[arg(long, default_value = "30s", value_parser = parse_duration, env = "OTA_GATEWAY_SHUTDOWN_GRACE")]
    pub shutdown_grace: Duration,
    /// How often this gateway adds its look-to-book, daily-quota and traffic counts to the
    /// database and reads every gateway's day totals back (how late a daily quota may be across
    /// gateways, and the console's traffic).
    #[arg(id = "traffic_flush_interval", long = "traffic-flush-interval", value_name = "TRAFFIC_FLUSH_INTERVAL", default_value = "5s", value_parser = parse_duration, env = "OTA_GATEWAY_TRAFFIC_FLUSH_INTERVAL")]
    pub traffic_flush: Duration,
    /// Serve every route under this path prefix (e.g. /sandbox: /sandbox/hotelnbc,
    /// /sandbox/healthz, /sandbox/metrics).
    // Empty for none. See [`parse_base_path`].
    #[arg(long, default_value = "", value_parser = parse_base_path, env = "OTA_GATEWAY_BASE_PATH")]
    pub base_path: String,
    /// Believe X-Forwarded-For from proxies in this network (repeatable); the client is then
    /// the last forwarded address that is not such a proxy.
    // Empty: the header is ignored and the peer is the client.
    #[arg(long = "trusted-proxy", value_name = "CIDR", value_parser = parse_net, env = "OTA_GATEWAY_TRUSTED_PROXY", value_delimiter = ',')]
    pub trusted_proxies: Vec<IpNet>,
    /// Serve GET /metrics on this address only (instead of on the main address).
    // `None`: on the main address (under the base path); `Some(addr)`: only on that address
    // (served by [`crate::server::run`], see [`crate::http::metrics_router`]).
    #[arg(long, env = "OTA_GATEWAY_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,
    /// Brute-force throttling of authentication failures.
    #[command(flatten)]
    pub throttle: ThrottleSettings,
    /// The transaction log: masking, retention, the writer's queue ([`crate::txlog`]).
    #[command(flatten)]
    pub txlog: crate::txlog::Settings,
    /// The operator console: its listener, its sessions' time-outs, its cookie.
    #[command(flatten)]
    pub console: ConsoleSettings,
    /// Alert on bookings not acknowledged by their supplier this many minutes after their
    /// event was written (pushed and not acknowledged, pulled and not acknowledged, or not
    /// taken yet): counted on the console's overview and in the
    /// `ota_outbox_unacknowledged_bookings` gauge.
    #[arg(
        long = "unacked-alert-minutes",
        value_name = "MINUTES",
        default_value_t = 30,
        value_parser = clap::value_parser!(u32).range(1..),
        env = "OTA_GATEWAY_UNACKED_ALERT_MINUTES"
    )]
    pub unacked_alert_minutes: u32,
}

/// The operator console's settings (see `docs/operators/console.md`).
#[derive(Debug, Clone, clap::Args)]
pub struct ConsoleSettings {
    /// Serve the operator console on this address (e.g. 127.0.0.1:8081); off when not set
    /// (`serve --demo` turns it on at 127.0.0.1:8081).
    #[arg(id = "console_addr", long = "console-addr", value_name = "ADDR", env = "OTA_GATEWAY_CONSOLE_ADDR")]
    pub addr: Option<SocketAddr>,
    /// The most connections the console's listener keeps open at once; more wait to be
    /// accepted (as --max-connections does for the partners' listener).
    #[arg(
        id = "console_max_connections",
        long = "console-max-connections",
        value_name = "N",
        default_value_t = 64,
        env = "OTA_GATEWAY_CONSOLE_MAX_CONNECTIONS"
    )]
    pub max_connections: usize,
    /// A console session unused for this long ends (e.g. 30m).
    #[arg(id = "console_idle_timeout", long = "console-idle-timeout", value_name = "DURATION", default_value = "30m", value_parser = parse_duration, env = "OTA_GATEWAY_CONSOLE_IDLE_TIMEOUT")]
    pub idle_timeout: Duration,
    /// A console session ends this long after its login, used or not (e.g. 12h).
    #[arg(id = "console_session_lifetime", long = "console-session-lifetime", value_name = "DURATION", default_value = "12h", value_parser = parse_duration, env = "OTA_GATEWAY_CONSOLE_SESSION_LIFETIME")]
    pub session_lifetime: Duration,
    /// Mark the console's cookie `Secure` (the browser sends it over HTTPS only): set it when
    /// the console is reached through a TLS proxy.
    #[arg(id = "console_secure_cookie", long = "console-secure-cookie", env = "OTA_GATEWAY_CONSOLE_SECURE_COOKIE")]
    pub secure_cookie: bool,
}

impl Default for ConsoleSettings {
    /// The defaults of the console's arguments.
    fn default() -> Self {
        defaults()
    }
}

impl Default for Config {
    /// The defaults of `ota-gateway serve`'s arguments.
    fn default() -> Self {
        defaults()
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The defaults are the arguments' (stated once, on each argument); the log's masking is on
    /// unless `--log-unmasked` is given.
    #[test]
    fn defaults_are_the_arguments() {
        use clap::{Args as _, FromArgMatches as _};
        let c = Config::default();
        assert_eq!(c.addr, SocketAddr::from(([127, 0, 0, 1], 8080)));
        assert_eq!((c.body_limit, c.max_connections, c.body_memory), (1 << 20, 4096, 64 << 20));
        assert_eq!(c.console.max_connections, 64);
        assert_eq!((c.request_timeout, c.traffic_flush), (Duration::from_secs(30), Duration::from_secs(5)));
        assert_eq!((c.throttle.address_failures, c.throttle.requestor_failures), (10, 20));
        assert!(c.txlog.masked);
        assert_eq!(c.txlog.retention, Some(crate::txlog::DEFAULT_RETENTION));
        assert_eq!((c.txlog.max_rate, c.txlog.unauthenticated_rate), (4 << 20, 64 << 10));
        let parse = |args: &[&str]| {
            let command = Config::augment_args(clap::Command::new("serve")).mut_args(|a| a.env(None));
            Config::from_arg_matches(&command.try_get_matches_from(args).unwrap()).unwrap()
        };
        assert!(!parse(&["serve", "--log-unmasked"]).txlog.masked);
        assert_eq!(parse(&["serve", "--log-retention", "off"]).txlog.retention, None);
        assert_eq!(parse(&["serve", "--console-max-connections", "5"]).console.max_connections, 5);
    }

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct ThrottleSettings {
    /// Authentication failures allowed from one client address before it is locked (for 1 s,
    /// doubling with each further failure, at most 15 min); 0 turns this off.
    #[arg(
        id = "throttle_address_failures",
        long = "throttle-address-failures",
        value_name = "THROTTLE_ADDRESS_FAILURES",
        default_value_t = 10,
        env = "OTA_GATEWAY_THROTTLE_ADDRESS_FAILURES"
    )]
    pub address_failures: u32,
    /// Authentication failures allowed on one requestor id (from any address) before it is
    /// locked for addresses it has not logged in from; 0 turns this off.
    #[arg(
        id = "throttle_requestor_failures",
        long = "throttle-requestor-failures",
        value_name = "THROTTLE_REQUESTOR_FAILURES",
        default_value_t = 20,
        env = "OTA_GATEWAY_THROTTLE_REQUESTOR_FAILURES"
    )]
    pub requestor_failures: u32,
    /// The first lock; each further failure doubles it.
    #[arg(skip = Duration::from_secs(1))]
    pub first_lock: Duration,
    /// The longest lock.
    #[arg(skip = Duration::from_secs(15 * 60))]
    pub max_lock: Duration,
    /// Failures older than this (counted from the last one) are forgotten.
    #[arg(skip = Duration::from_secs(15 * 60))]
    pub forget_after: Duration,
    /// The most entries of each table (addresses, requestor ids).
    #[arg(skip = 10_000_usize)]
    pub max_entries: usize,
}

impl Default for ThrottleSettings {
    /// The defaults of the `--throttle-*` arguments.
    fn default() -> Self {
        defaults()
    }
}
