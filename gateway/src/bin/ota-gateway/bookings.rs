//! `ota-gateway bookings search|show`: finding any booking, hotel or activity (the queries of
//! the console's booking pages, `ota_gateway::bookings::search`).

use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::bookings::search::{self, Filter, Page, Query};
use ota_gateway::bookings::show::{self, Booking};
use ota_gateway::config::DEFAULT_DB;
use ota_gateway::shared::log_text::LogText;

use crate::shared::{open_store, report, to_json};

/// The arguments of `bookings`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: BookingsCommand,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

/// The arguments of `bookings search`.
#[derive(clap::Args)]
struct SearchArgs {
    /// Only this partner's (its requestor id).
    #[arg(long)]
    partner: Option<String>,
    /// Only hotel bookings with a room stay at this hotel.
    #[arg(long)]
    hotel: Option<String>,
    /// Only hotel bookings with a room stay at a hotel of this supplier (what its hotel users
    /// see in the extranet); the hotel listed is then its first hotel of this supplier.
    #[arg(long, value_name = "SUP")]
    supplier: Option<String>,
    /// Only bookings of this activity.
    #[arg(long)]
    activity: Option<String>,
    /// Only the booking with this Internal or Client reference.
    #[arg(long = "ref")]
    reference: Option<String>,
    /// Only bookings with a guest whose surname starts with this (any case).
    #[arg(long)]
    surname: Option<String>,
    /// Only bookings made on or after this day (UTC, YYYY-MM-DD).
    #[arg(long)]
    created_from: Option<String>,
    /// Only bookings made on or before this day (UTC, YYYY-MM-DD).
    #[arg(long)]
    created_to: Option<String>,
    /// Only bookings arriving (an activity: served) on or after this day.
    #[arg(long)]
    arrival_from: Option<String>,
    /// Only bookings arriving (served) on or before this day.
    #[arg(long)]
    arrival_to: Option<String>,
    /// Only bookings in this status: Reserved or Cancelled.
    #[arg(long)]
    status: Option<String>,
    /// The order: created-desc (the default), created, arrival or arrival-desc.
    #[arg(long)]
    sort: Option<String>,
    /// At most this many (1 to 500; 50 unless given).
    #[arg(long)]
    limit: Option<String>,
    /// The page after this cursor (said by the previous page).
    #[arg(long)]
    after: Option<String>,
    /// One JSON document: an array of objects, one per booking.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum BookingsCommand {
    /// Lists the bookings of both kinds a filter names, one page (newest first unless --sort
    /// says); the cursor of the next page is said on stderr.
    Search(Box<SearchArgs>),
    /// Shows one booking: its items and prices as stored, its history, its transaction-log
    /// entries and its outbox events.
    Show {
        /// Its Internal reference, or its Client reference.
        reference: String,
        /// The partner whose Client reference it is (when several partners use it).
        #[arg(long)]
        partner: Option<String>,
        /// One JSON document (an object).
        #[arg(long)]
        json: bool,
    },
}

/// Runs one bookings command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let done = match command {
        BookingsCommand::Search(args) => {
            let SearchArgs {
                partner,
                hotel,
                supplier,
                activity,
                reference,
                surname,
                created_from,
                created_to,
                arrival_from,
                arrival_to,
                status,
                sort,
                limit,
                after,
                json,
            } = *args;
            let query = Query {
                partner,
                hotel,
                supplier,
                activity,
                reference,
                surname,
                created_from,
                created_to,
                arrival_from,
                arrival_to,
                status,
                sort,
                limit,
                after,
            };
            match Filter::parse(&query) {
                Err(e) => Err(e),
                Ok(filter) => search::search(&store, &filter).await.map(|page| {
                    if let Some(next) = &page.next {
                        eprintln!("more: --after '{next}'");
                    }
                    if json { to_json(&page.rows) } else { search_text(&page) }
                }),
            }
        }
        BookingsCommand::Show { reference, partner, json } => show::show(&store, &reference, partner.as_deref())
            .await
            .map(|b| if json { to_json(&b) } else { show_text(&b) }),
    };
    report(done)
}

/// A value from a partner or a guest, escaped (no control character starts a row of its own).
fn t(v: &str) -> String {
    LogText(v).to_string()
}

fn opt(v: &Option<String>) -> String {
    v.as_deref().map_or_else(|| "-".to_string(), t)
}

/// A page as a table.
fn search_text(page: &Page) -> String {
    let mut out = format!(
        "{:<8} {:<20} {:<20} {:<14} {:<16} {:<24} {:<10} {:>6} {:<9} {:>12} {:<3} {:<20} MODIFIED",
        "KIND",
        "INTERNAL",
        "CLIENT",
        "PARTNER",
        "HOTEL/ACTIVITY",
        "LEAD GUEST",
        "ARRIVAL",
        "NIGHTS",
        "STATUS",
        "TOTAL",
        "CUR",
        "CREATED"
    );
    for r in &page.rows {
        out.push_str(&format!(
            "\n{:<8} {:<20} {:<20} {:<14} {:<16} {:<24} {:<10} {:>6} {:<9} {:>12} {:<3} {:<20} {}",
            r.kind,
            t(&r.internal_ref),
            t(&r.client_ref),
            t(&r.partner),
            opt(if r.hotel.is_some() { &r.hotel } else { &r.activity }),
            opt(&r.lead_guest),
            r.arrival,
            r.nights.map_or_else(|| "-".to_string(), |n| n.to_string()),
            t(&r.status),
            r.total,
            t(&r.currency),
            r.created,
            r.modified
        ));
    }
    out
}

/// A booking as text.
fn show_text(b: &Booking) -> String {
    let h = &b.head;
    let mut out = format!(
        "kind: {}\ninternal reference: {}\nclient reference: {}\npartner: {}\n{}: {}\nlead guest: {}\narrival: {}{}\nstatus: {}\ntotal: {} {}\ncreated: {}\nmodified: {}\n",
        h.kind,
        t(&h.internal_ref),
        t(&h.client_ref),
        t(&h.partner),
        if h.hotel.is_some() { "hotel" } else { "activity" },
        opt(if h.hotel.is_some() { &h.hotel } else { &h.activity }),
        opt(&h.lead_guest),
        h.arrival,
        h.nights.map_or_else(String::new, |n| format!(" ({n} nights)")),
        t(&h.status),
        h.total,
        t(&h.currency),
        h.created,
        h.modified
    );
    out.push_str("\n--- items\n");
    for i in &b.items {
        let what = match (&i.hotel, &i.product) {
            (Some(_), _) => format!("room {} board {} at {}", opt(&i.room_type), opt(&i.board), opt(&i.hotel)),
            _ => format!("product {} service {}", opt(&i.product), opt(&i.service)),
        };
        out.push_str(&format!("{what}: {} to {}, {} {}", i.start, i.end, i.price, t(&h.currency)));
        if let Some(s) = &i.status {
            out.push_str(&format!(", {}", t(s)));
        }
        if let Some(at) = &i.cancelled_at {
            out.push_str(&format!(", cancelled at {at} for {}", i.cancel_penalty.as_deref().unwrap_or("0")));
        }
        if let Some(p) = &i.pickup {
            out.push_str(&format!(", pickup {}", t(p)));
        }
        out.push('\n');
    }
    out.push_str("\n--- guests\n");
    for g in &b.guests {
        let name: Vec<String> =
            [&g.name_prefix, &g.given_name, &g.surname].into_iter().flatten().map(|v| t(v)).collect();
        out.push_str(&format!(
            "{} ({}{}){}\n",
            if name.is_empty() { "-".to_string() } else { name.join(" ") },
            t(&g.category),
            g.age.map_or_else(String::new, |a| format!(", age {a}")),
            g.price.as_deref().map_or_else(String::new, |p| format!(": {p}"))
        ));
    }
    out.push_str("\n--- history\n");
    for v in &b.history {
        out.push_str(&format!(
            "{} {:<9} by {} {}: {} {} {}{}\n",
            v.at,
            v.change,
            v.by_kind,
            t(&v.by),
            opt(&v.status),
            opt(&v.total),
            opt(&v.currency),
            if v.reconstructed { " (reconstructed)" } else { "" }
        ));
    }
    out.push_str("\n--- transaction log\n");
    if b.log.is_empty() {
        out.push_str("(none: the partner's log level keeps none, or they are past the retention)\n");
    }
    for e in &b.log {
        out.push_str(&format!(
            "{} {} {} {} {} {}: {}\n",
            e.id,
            e.at,
            t(&e.requestor),
            e.operation,
            e.status,
            e.outcome,
            e.references.iter().map(|r| t(r)).collect::<Vec<_>>().join(" ")
        ));
    }
    out.push_str("\n--- outbox events\n");
    if b.events.is_empty() {
        out.push_str("(none: no hotel of the booking has a supplier)\n");
    }
    for e in &b.events {
        out.push_str(&format!(
            "{} {} #{} {} to {}: {}, {} attempt(s), created {}{}{}\n",
            e.id,
            t(&e.hotel),
            e.seq,
            e.kind,
            t(&e.supplier),
            e.state,
            e.attempts,
            e.created,
            e.delivered.as_deref().map_or_else(String::new, |d| format!(", delivered {d}")),
            e.last_error.as_deref().map_or_else(String::new, |err| format!(", last error: {}", t(err)))
        ));
    }
    out.trim_end().to_string()
}
