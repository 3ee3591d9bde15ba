//! `ota-gateway calendar show|set`: a hotel's calendar (the queries and the edit of the
//! console's calendar page, `ota_gateway::hotels::calendar`; an edit audited as
//! `cli:<OS user>` and kept as set by it).

use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::audit::Actor;
use ota_gateway::config::DEFAULT_DB;
use ota_gateway::content::Content;
use ota_gateway::hotels::calendar::{self, CalendarError};
use ota_gateway::hotels::rules::calendar::edit::EditAsk;
use ota_gateway::hotels::rules::calendar::grid::Calendar;
use ota_gateway::shared::log_text::LogText;

use crate::shared::{open_store, report, to_json};

/// The arguments of `calendar`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: CalendarCommand,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

/// What `calendar set` sets (exactly one).
#[derive(clap::Args)]
#[group(required = true, multiple = false)]
struct What {
    /// Rooms on sale.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    rooms: Option<String>,
    /// Closes the nights.
    #[arg(long)]
    close: bool,
    /// Opens the nights.
    #[arg(long)]
    open: bool,
    /// Closes the days to arrival.
    #[arg(long)]
    cta: bool,
    /// Opens the days to arrival.
    #[arg(long)]
    no_cta: bool,
    /// Closes the days to departure.
    #[arg(long)]
    ctd: bool,
    /// Opens the days to departure.
    #[arg(long)]
    no_ctd: bool,
    /// The minimum stay of arrivals on these days (0: no limit).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    min_stay: Option<String>,
    /// The maximum stay of arrivals on these days (0: no limit).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_stay: Option<String>,
    /// The nightly amount of a room (with --currency).
    #[arg(long, value_name = "A", allow_hyphen_values = true, requires = "currency")]
    amount: Option<String>,
}

#[derive(clap::Subcommand)]
enum CalendarCommand {
    /// Shows a hotel's calendar: rooms on sale and sold, restrictions and amounts per night,
    /// each with who set it last (at most 400 nights; by default today and 13 months on).
    Show {
        /// The hotel's code.
        hotel: String,
        /// The first night (YYYY-MM-DD; default: today at the hotel).
        #[arg(long)]
        from: Option<String>,
        /// The last night (YYYY-MM-DD; default: 13 months on).
        #[arg(long)]
        to: Option<String>,
        /// Only this room type.
        #[arg(long)]
        room: Option<String>,
        /// One JSON document (an object).
        #[arg(long)]
        json: bool,
    },
    /// Sets one thing over a range of nights (at most 400), days of the week, room types and
    /// rate plans, through the same path as a channel manager's notification: a value a later
    /// message set is kept, and the outcome says so.
    Set {
        /// The hotel's code.
        hotel: String,
        /// The first night (YYYY-MM-DD).
        #[arg(long)]
        from: String,
        /// The last night (YYYY-MM-DD, included).
        #[arg(long)]
        to: String,
        /// Only these days of the week (Mon,Tue,…).
        #[arg(long)]
        weekdays: Option<String>,
        /// A room type (repeatable; none: every one).
        #[arg(long)]
        room: Vec<String>,
        /// A rate plan (board; repeatable; none: every one).
        #[arg(long)]
        plan: Vec<String>,
        #[command(flatten)]
        what: What,
        /// The currency of --amount (ISO 4217).
        #[arg(long)]
        currency: Option<String>,
        /// The number of guests --amount is for (default: any number).
        #[arg(long, requires = "amount")]
        guests: Option<String>,
        /// One JSON document (an object).
        #[arg(long)]
        json: bool,
    },
}

/// The action and value of `set`.
fn action(w: What) -> (&'static str, String) {
    let flag = |on: bool, name: &'static str| on.then(|| (name, String::new()));
    w.rooms
        .map(|v| ("rooms", v))
        .or_else(|| w.min_stay.map(|v| ("min-stay", v)))
        .or_else(|| w.max_stay.map(|v| ("max-stay", v)))
        .or_else(|| w.amount.map(|v| ("amount", v)))
        .or_else(|| flag(w.close, "close"))
        .or_else(|| flag(w.open, "open"))
        .or_else(|| flag(w.cta, "cta"))
        .or_else(|| flag(w.no_cta, "no-cta"))
        .or_else(|| flag(w.ctd, "ctd"))
        .or_else(|| flag(w.no_ctd, "no-ctd"))
        .unwrap_or(("", String::new()))
}

/// Runs one calendar command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let content = match Content::load(&store).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ota-gateway: cannot read the content: {e}");
            return ExitCode::FAILURE;
        }
    };
    let now = chrono::Utc::now();
    let done: Result<String, CalendarError> = match command {
        CalendarCommand::Show { hotel, from, to, room, json } => {
            calendar::show(&store, &content.hotels, &hotel, (from.as_deref(), to.as_deref()), room.as_deref(), now)
                .await
                .map(|c| if json { to_json(&c) } else { text(&c) })
        }
        CalendarCommand::Set { hotel, from, to, weekdays, room, plan, what, currency, guests, json } => {
            let (action, value) = action(what);
            let ask = EditAsk {
                from,
                to,
                weekdays: weekdays.into_iter().collect(),
                rooms: room,
                plans: plan,
                action: action.to_string(),
                value,
                currency: currency.unwrap_or_default(),
                guests: guests.unwrap_or_default(),
            };
            calendar::edit(&store, &content.hotels, &Actor::cli(), &ask, &hotel, now)
                .await
                .map(|o| if json { to_json(&o) } else { o.sentences().join("\n") })
        }
    };
    report(done)
}

/// A value from the content or a supplier, escaped.
fn t(v: &str) -> String {
    LogText(v).to_string()
}

/// The calendar as text: one line per room type, night and row.
fn text(c: &Calendar) -> String {
    let mut out = format!("hotel {} ({}), {} to {}", t(&c.hotel), t(&c.name), c.from, c.to);
    for r in &c.rooms {
        out.push_str(&format!("\n\n--- room type {} ({})", t(&r.code), t(&r.name)));
        out.push_str(&format!("\n{:<10} {:>7} {:>5}  SET BY", "NIGHT", "ON SALE", "SOLD"));
        for (night, n) in c.nights.iter().zip(&r.rooms) {
            out.push_str(&format!(
                "\n{night:<10} {:>7} {:>5}  {}",
                n.on_sale,
                n.sold,
                n.set.as_ref().map_or_else(|| "(content)".to_string(), |s| t(&s.to_string()))
            ));
        }
        for p in &r.restrictions {
            let plan = if p.plan.is_empty() { "every plan".to_string() } else { t(&p.plan) };
            out.push_str(&format!("\nrestrictions, {plan}:"));
            for (night, n) in c.nights.iter().zip(&p.nights) {
                if n.set.is_none() {
                    continue;
                }
                let mut said = Vec::new();
                if n.closed {
                    said.push("closed".to_string());
                }
                if n.closed_to_arrival {
                    said.push("CTA".to_string());
                }
                if n.closed_to_departure {
                    said.push("CTD".to_string());
                }
                if let Some(m) = n.min_stay {
                    said.push(format!("min {m}"));
                }
                if let Some(m) = n.max_stay {
                    said.push(format!("max {m}"));
                }
                if said.is_empty() {
                    said.push("open".to_string());
                }
                out.push_str(&format!(
                    "\n  {night} {}  {}",
                    said.join(" "),
                    n.set.as_ref().map(|s| t(&s.to_string())).unwrap_or_default()
                ));
            }
        }
        for p in &r.amounts {
            out.push_str(&format!("\namounts, {} {}:", t(&p.plan), t(&p.currency)));
            for (night, n) in c.nights.iter().zip(&p.nights) {
                out.push_str(&format!(
                    "\n  {night} {}  {}",
                    n.amount.as_deref().unwrap_or("-"),
                    n.set.as_ref().map_or_else(|| "(content)".to_string(), |s| t(&s.to_string()))
                ));
                for g in n.by_guests.iter().filter(|g| g.guests > 0) {
                    out.push_str(&format!(" [{} guest(s): {}, {}]", g.guests, g.amount, t(&g.set.to_string())));
                }
            }
        }
    }
    out
}
