//! `ota-gateway requestor …`: administers the partners (each change audited as `cli:<OS user>`).

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use ipnet::IpNet;
use ota_gateway::audit::Actor;
use ota_gateway::config::{self, DEFAULT_DB};
use ota_gateway::limits;
use ota_gateway::outbox::admin as outbox_admin;
use ota_gateway::requestors::admin::{self, NewRequestor};
use ota_gateway::requestors::import::parse_dialect;
use ota_gateway::requestors::traffic::Counts;
use ota_gateway::requestors::{Role, StoredRequestor};
use ota_gateway::traffic::query::Figures;
use ota_gateway::{Location, Store};
use ota_messages::Dialect;

use crate::shared::{open_store, report};

/// The arguments of `requestor`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: RequestorCommand,
    /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

#[derive(clap::Subcommand)]
enum RequestorCommand {
    /// Creates a requestor; its password is read from a prompt (or from stdin's first line
    /// when stdin is not a terminal).
    Add {
        /// The requestor id (`RequestorID@ID` of both POS sources).
        id: String,
        /// The distributor context its Type 22 source carries (`ID_Context`).
        #[arg(long)]
        context: String,
        /// A display name (default: the id).
        #[arg(long)]
        name: Option<String>,
        /// A network it may call from (CIDR or address; repeatable). None: any address.
        #[arg(long = "allow", value_name = "CIDR", value_parser = config::parse_net)]
        allow: Vec<IpNet>,
        /// Creates it disabled.
        #[arg(long)]
        disabled: bool,
        /// The dialect its answers are written in: `service` (the default) or `ota2016b`
        /// (valid under the official OpenTravel 2016B schemas).
        #[arg(long, default_value = "service", value_parser = parse_dialect)]
        dialect: Dialect,
        /// Creates a supplier (a hotel's system, which sends the supply notifications of its
        /// hotels) instead of a distribution partner.
        #[arg(long)]
        supplier: bool,
        /// A supplier's hotels (their codes, comma-separated); a hotel has one supplier.
        #[arg(long, value_name = "CODE,…", value_delimiter = ',', requires = "supplier", value_parser = parse_hotel_code)]
        hotels: Vec<String>,
    },
    /// Changes a requestor's settings.
    Set(SetArgs),
    /// Sets a requestor's password, read from a prompt (or from stdin's first line).
    Passwd {
        /// The requestor id.
        id: String,
    },
    /// Disables a requestor: its requests fail authentication.
    Disable {
        /// The requestor id.
        id: String,
    },
    /// Enables a disabled requestor.
    Enable {
        /// The requestor id.
        id: String,
    },
    /// Lists the requestors (never their passwords), with their requests, errors and bookings
    /// of the current UTC day (every gateway's, as the console's Partners page shows them).
    List,
    /// Look-to-book: each requestor's activity searches, availability checks, quotes and
    /// bookings (Commits that booked) since a day, added up over every gateway, with the
    /// ratios (a gateway stores its counts every --traffic-flush-interval and when it stops).
    Stats {
        /// Only this requestor.
        id: Option<String>,
        /// From this UTC day on (`YYYY-MM-DD`); default: every day counted.
        #[arg(long, value_name = "DATE")]
        since: Option<chrono::NaiveDate>,
    },
    /// Sets the networks a requestor may call from (replacing its list); others get the
    /// authentication error of a wrong password.
    Allow {
        /// The requestor id.
        id: String,
        /// The networks (CIDRs or addresses).
        #[arg(value_name = "CIDR", value_parser = config::parse_net, required_unless_present = "any")]
        networks: Vec<IpNet>,
        /// Clears the list: any address may be used.
        #[arg(long, conflicts_with = "networks")]
        any: bool,
    },
}

/// A supplier's hotel code on the command line.
fn parse_hotel_code(code: &str) -> Result<String, String> {
    ota_gateway::requestors::import::check_hotel_code(code).map(|()| code.to_string())
}

/// Reads a new password: from a prompt (twice) when stdin is a terminal, else stdin's first
/// line. Never from the command line, where other users could see it.
pub(crate) fn read_password(id: &str) -> Result<String, String> {
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("Password for {id}: "))
            .map_err(|e| format!("cannot read the password: {e}"))?;
        let again = rpassword::prompt_password("Again: ").map_err(|e| format!("cannot read the password: {e}"))?;
        if first != again {
            return Err("the passwords differ".into());
        }
        Ok(first)
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| format!("cannot read the password from stdin: {e}"))?;
        Ok(line.trim_end_matches(['\n', '\r']).to_string())
    }
}

/// Runs one requestor command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let actor = Actor::cli();
    let done = match command {
        RequestorCommand::Add { id, context, name, allow, disabled, dialect, supplier, hotels } => {
            match read_password(&id) {
                Ok(password) => {
                    let role = if supplier { Role::supplier(hotels) } else { Role::Distributor };
                    let new = NewRequestor {
                        name: name.unwrap_or_else(|| id.clone()),
                        id: id.clone(),
                        id_context: context,
                        password,
                        active: !disabled,
                        allow,
                        dialect,
                        role,
                    };
                    admin::add(&store, &actor, new).await.map(|()| format!("requestor {id} created"))
                }
                Err(e) => Err(admin::AdminError::Invalid(e)),
            }
        }
        RequestorCommand::Passwd { id } => match read_password(&id) {
            Ok(password) => {
                admin::passwd(&store, &actor, &id, password).await.map(|()| format!("password of {id} changed"))
            }
            Err(e) => Err(admin::AdminError::Invalid(e)),
        },
        RequestorCommand::Set(args) => set(&store, &actor, args).await,
        RequestorCommand::Disable { id } => {
            admin::set_active(&store, &actor, &id, false).await.map(|()| format!("requestor {id} disabled"))
        }
        RequestorCommand::Enable { id } => {
            admin::set_active(&store, &actor, &id, true).await.map(|()| format!("requestor {id} enabled"))
        }
        RequestorCommand::Allow { id, networks, any } => {
            let networks = if any { Vec::new() } else { networks };
            let shown = if networks.is_empty() {
                "any address".to_string()
            } else {
                networks.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            };
            admin::set_allow(&store, &actor, &id, networks)
                .await
                .map(|()| format!("requestor {id} may call from {shown}"))
        }
        RequestorCommand::Stats { id, since } => {
            let since = since.unwrap_or(chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default());
            ota_gateway::requestors::traffic::stats(&store, id.as_deref(), since)
                .await
                .map_err(admin::AdminError::from)
                .map(|all| stats_table(&all))
        }
        RequestorCommand::List => match ota_gateway::traffic::query::today(&store, chrono::Utc::now()).await {
            Ok(today) => admin::list(&store).await.map(|all| list_table(&all, &today)),
            Err(e) => Err(admin::AdminError::Store(e)),
        },
    };
    report(done)
}

/// The arguments of `requestor set`.
#[derive(clap::Args)]
pub struct SetArgs {
    /// The requestor id.
    pub id: String,
    /// The dialect its answers are written in: `service` or `ota2016b`.
    #[arg(long, value_parser = parse_dialect)]
    pub dialect: Option<Dialect>,
    /// Requests per second it may send to each gateway (`N` or `N/s`), or `off`.
    #[arg(long, value_name = "N[/s]|off", value_parser = limits::parse_rate)]
    pub rate: Option<u32>,
    /// Requests per UTC day it may send, counted across every gateway (through the database,
    /// up to a minute late), or `off`.
    #[arg(long, value_name = "N|off", value_parser = limits::parse_quota)]
    pub daily_quota: Option<u32>,
    /// Requests per second of one operation (its path without the slash, e.g.
    /// `hotelavailability=5`), on top of `--rate`; `OPERATION=off` removes it (repeatable).
    #[arg(long = "rate-for", value_name = "OPERATION=N[/s]|off", value_parser = limits::parse_rate_for)]
    pub rate_for: Vec<(&'static str, u32)>,
    /// Makes it a supplier of these hotels (comma-separated codes; replacing those it had).
    #[arg(long, value_name = "CODE,…", value_delimiter = ',', num_args = 1.., value_parser = parse_hotel_code)]
    pub hotels: Option<Vec<String>>,
    /// Makes it a distribution partner (a supplier loses its hotels).
    #[arg(long, conflicts_with = "hotels")]
    pub distributor: bool,
    /// A supplier's notification URL: the gateway posts OTA_HotelResNotifRQ there for every
    /// booking change of its hotels; `off` removes it (the supplier then pulls them).
    #[arg(long, value_name = "URL|off")]
    pub notify_url: Option<String>,
    /// A supplier's alert address: an e-mail to it for every new, modified and cancelled
    /// booking of its hotels, sent by gateways with `--smtp-url` (repeatable; the list given
    /// replaces the one it had; `--alert-email ''` clears it).
    #[arg(long = "alert-email", value_name = "ADDR")]
    pub alert_email: Vec<String>,
    /// Removes every alert address of a supplier.
    #[arg(long = "no-alert-email", conflicts_with = "alert_email")]
    pub no_alert_email: bool,
    /// What of its traffic the transaction log keeps: off, errors, bookings (errors and
    /// every request of a booking's life) or all.
    #[arg(long, value_name = "off|errors|bookings|all", value_parser = ota_gateway::txlog::Level::parse)]
    pub log: Option<ota_gateway::txlog::Level>,
    /// At `--log all`, the share of its searches, availability and static content requests
    /// logged (0.1, 10%); errors and bookings are always logged in full.
    #[arg(long, value_name = "SHARE", value_parser = ota_gateway::txlog::Sample::parse)]
    pub log_sample: Option<ota_gateway::txlog::Sample>,
}

/// `requestor set`: each setting given, in order; the first that fails stops the rest.
async fn set(store: &Store, actor: &Actor, args: SetArgs) -> Result<String, admin::AdminError> {
    let SetArgs {
        id,
        dialect,
        rate,
        daily_quota,
        rate_for,
        hotels,
        distributor,
        notify_url,
        alert_email,
        no_alert_email,
        log,
        log_sample,
    } = args;
    // 0: `off`.
    let (rate, daily_quota) =
        (rate.map(|n| Some(n).filter(|n| *n > 0)), daily_quota.map(|n| Some(n).filter(|n| *n > 0)));
    let mut done = Vec::new();
    let mut result = Ok(());
    if let Some(dialect) = dialect {
        result = admin::set_dialect(store, actor, &id, dialect).await;
        done.push(format!("is answered in the {} dialect", dialect.as_str()));
    }
    if result.is_ok() && (rate.is_some() || daily_quota.is_some() || !rate_for.is_empty()) {
        for (op, n) in &rate_for {
            done.push(format!("has rate {} on {op}", if *n == 0 { "off".to_string() } else { format!("{n}/s") }));
        }
        result = admin::set_limits(store, actor, &id, rate, daily_quota, rate_for).await;
        let shown = |v: Option<u32>, unit: &str| v.map_or_else(|| "off".to_string(), |n| format!("{n}{unit}"));
        if let Some(r) = rate {
            done.push(format!("has rate {}", shown(r, "/s")));
        }
        if let Some(q) = daily_quota {
            done.push(format!("has daily quota {}", shown(q, "")));
        }
    }
    let role = match hotels {
        Some(hotels) => Some(Role::supplier(hotels)),
        None => distributor.then_some(Role::Distributor),
    };
    if result.is_ok()
        && let Some(role) = role
    {
        done.push(match &role {
            Role::Supplier { hotels } => {
                format!("supplies {}", hotels.iter().cloned().collect::<Vec<_>>().join(", "))
            }
            Role::Distributor => "is a distribution partner".to_string(),
        });
        result = admin::set_role(store, actor, &id, role).await;
    }
    if result.is_ok()
        && let Some(url) = notify_url
    {
        let url = Some(url).filter(|u| u != "off");
        done.push(match &url {
            Some(u) => format!("is notified at {}", outbox_admin::shown_url(u)),
            None => "pulls its notifications (no URL)".to_string(),
        });
        result = outbox_admin::set_notify_url(store, actor, &id, url)
            .await
            .map_err(|e| admin::AdminError::Invalid(e.to_string()));
    }
    if result.is_ok() && (no_alert_email || !alert_email.is_empty()) {
        let addresses: Vec<String> = alert_email.into_iter().filter(|a| !a.trim().is_empty()).collect();
        done.push(if addresses.is_empty() {
            "has no alert address".to_string()
        } else {
            format!("is alerted at {}", addresses.join(", "))
        });
        result = admin::set_alert_emails(store, actor, &id, addresses).await;
    }
    if result.is_ok() && (log.is_some() || log_sample.is_some()) {
        result = admin::set_log(store, actor, &id, log, log_sample).await;
        if let Some(level) = log {
            done.push(format!("is logged: {}", level.as_str()));
        }
        if let Some(sample) = log_sample {
            done.push(format!("has log sample {sample}"));
        }
    }
    if done.is_empty() {
        result = Err(admin::AdminError::Invalid(
            "nothing to set: give --dialect, --rate, --rate-for, --daily-quota, --hotels, --distributor, --notify-url, --alert-email, --no-alert-email, --log or --log-sample".into(),
        ));
    }
    result.map(|()| format!("requestor {id} {}", done.join(", ")))
}

/// `requestor stats`: one line per requestor, with the ratios.
fn stats_table(all: &[(String, Counts)]) -> String {
    let ratio = |r: Option<f64>| r.map_or_else(|| "-".to_string(), |r| format!("{r:.1}"));
    let mut out = format!(
        "{:<20} {:>10} {:>10} {:>12} {:>8} {:>8} {:>16} {:>15}",
        "ID", "REQUESTS", "SEARCHES", "AVAILABILITY", "QUOTES", "BOOKINGS", "LOOKS/BOOKING", "QUOTES/BOOKING"
    );
    for (id, c) in all {
        out.push_str(&format!(
            "\n{:<20} {:>10} {:>10} {:>12} {:>8} {:>8} {:>16} {:>15}",
            id,
            c.requests,
            c.searches,
            c.availability,
            c.quotes,
            c.bookings,
            ratio(c.looks_per_booking()),
            ratio(c.quotes_per_booking())
        ));
    }
    out
}

/// `requestor list`: one line per requestor (never its password).
fn list_table(all: &[StoredRequestor], today: &BTreeMap<String, Figures>) -> String {
    let mut out = format!(
        "{:<20} {:<20} {:<8} {:<10} {:<8} {:<10} {:<14} {:<32} {:<16} {:<12} NAME",
        "ID", "ID_CONTEXT", "ACTIVE", "DIALECT", "RATE", "DAY_QUOTA", "LOG", "ALLOW", "TODAY_REQ/ERR/BK", "KIND"
    );
    for r in all {
        let day = today.get(&r.id);
        let day = format!(
            "{}/{}/{}",
            day.map_or(0, |f| f.requests),
            day.map_or(0, |f| f.errors),
            day.map_or(0, |f| f.bookings)
        );
        let allow = if r.allow.is_empty() {
            "any".to_string()
        } else {
            r.allow.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
        };
        let active = if r.active { "yes" } else { "no" };
        let mut rate = r.limits.rate.map_or_else(|| "-".to_string(), |n| format!("{n}/s"));
        for (op, n) in &r.limits.per_operation {
            rate.push_str(&format!(",{op}={n}/s"));
        }
        let quota = r.limits.daily_quota.map_or_else(|| "-".to_string(), |n| n.to_string());
        let log = match r.log.level {
            ota_gateway::txlog::Level::All if r.log.sample != ota_gateway::txlog::Sample::ALL => {
                format!("all@{}", r.log.sample)
            }
            level => level.as_str().to_string(),
        };
        let kind = r.role.kind();
        out.push_str(&format!(
            "\n{:<20} {:<20} {:<8} {:<10} {:<8} {:<10} {:<14} {:<32} {day:<16} {kind:<12} {}",
            r.id,
            r.id_context,
            active,
            r.dialect.as_str(),
            rate,
            quota,
            log,
            allow,
            r.name
        ));
        if let Role::Supplier { hotels } = &r.role {
            out.push_str(&format!(
                " (hotels: {})",
                if hotels.is_empty() {
                    "none".to_string()
                } else {
                    hotels.iter().cloned().collect::<Vec<_>>().join(",")
                }
            ));
        }
        if let Some(url) = &r.notify_url {
            out.push_str(&format!(" (notified at {})", outbox_admin::shown_url(url)));
        }
        if !r.alert_emails.is_empty() {
            out.push_str(&format!(" (alerts to {})", r.alert_emails.join(",")));
        }
    }
    out
}
