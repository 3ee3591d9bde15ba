//! `ota-gateway outbox list|retry|history|resend|alerts`: the booking events for suppliers,
//! their deliveries and their alerts by e-mail.

use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::config::DEFAULT_DB;
use ota_gateway::outbox::admin as outbox_admin;

use crate::shared::{open_store, report, to_json};

/// The arguments of `outbox`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: OutboxCommand,
    /// The database: a SQLite file (created if missing) or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

#[derive(clap::Subcommand)]
enum OutboxCommand {
    /// Lists events, oldest first: id, state, attempts, supplier, booking, hotel, kind, last
    /// error.
    List {
        /// Only events in this state: pending, delivered or parked.
        #[arg(long)]
        state: Option<String>,
        /// Only events for this supplier (its requestor id).
        #[arg(long)]
        supplier: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Sends a parked event again (its attempts counted afresh), or every parked event.
    Retry {
        /// The event's id (`outbox list`).
        #[arg(required_unless_present = "all_parked", conflicts_with = "all_parked")]
        id: Option<i64>,
        /// Every parked event.
        #[arg(long)]
        all_parked: bool,
    },
    /// The deliveries of a booking (REF: its Internal or Client reference): its events, each
    /// with every attempt kept (the notification sent with each push), oldest first; or, with
    /// --supplier, a supplier's events (the newest first) with their last attempt, filtered;
    /// or, with a filter and no --supplier, every supplier's.
    History {
        /// A booking's Internal or Client reference.
        #[arg(
            required_unless_present_any = ["supplier", "failing", "parked", "unacked_after"],
            conflicts_with_all = ["supplier", "failing", "parked", "unacked_after"]
        )]
        reference: Option<String>,
        /// A supplier's deliveries (its requestor id) instead of a booking's.
        #[arg(long)]
        supplier: Option<String>,
        /// Only events not delivered whose last attempt failed (of --supplier, or every
        /// supplier's).
        #[arg(long)]
        failing: bool,
        /// Only parked events (of --supplier, or every supplier's).
        #[arg(long)]
        parked: bool,
        /// Only events not acknowledged this many minutes after they were written (of
        /// --supplier, or every supplier's: the console's alert lists these).
        #[arg(long, value_name = "MINUTES")]
        unacked_after: Option<u32>,
        /// With --supplier or a filter: at most this many events.
        #[arg(long, default_value_t = 100)]
        limit: i64,
        /// One JSON document (an array of objects) instead of the text.
        #[arg(long)]
        json: bool,
    },
    /// Sends any event again (delivered, acknowledged, pending or parked): a new attempt marked
    /// as a retransmission asked for by `cli:USER`, taken by the next delivery round of any
    /// gateway (a pulled event: given again by the supplier's next read).
    Resend {
        /// The event's id (`outbox history REF`).
        event: i64,
        /// One JSON document instead of the text.
        #[arg(long)]
        json: bool,
    },
    /// The booking alerts by e-mail (docs/hotels/alerts.md), the newest first: id, state
    /// (pending, sent, parked), attempts, event, booking, address, last error; with --retry,
    /// sends the parked ones again.
    Alerts {
        /// Only a supplier's alerts (its requestor id).
        #[arg(long)]
        supplier: Option<String>,
        /// Only a booking's (its Internal or Client reference).
        #[arg(long)]
        booking: Option<String>,
        /// Only alerts in this state: pending, sent or parked.
        #[arg(long)]
        state: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: i64,
        /// Sends the parked alerts (of --supplier, or all) again, their attempts counted afresh.
        #[arg(long, conflicts_with_all = ["booking", "state", "json"])]
        retry: bool,
        /// One JSON document (an array of objects) instead of the text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs one outbox command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let done = match command {
        OutboxCommand::List { state, supplier, limit } => {
            outbox_admin::list(&store, state, supplier, limit).await.map(|events| {
                let mut out = format!(
                    "{:<8} {:<10} {:>8} {:<16} {:<24} {:<10} {:>4} {:<10} {:<24} ERROR",
                    "ID", "STATE", "ATTEMPTS", "SUPPLIER", "BOOKING", "HOTEL", "SEQ", "KIND", "CREATED"
                );
                for e in events {
                    out.push_str(&format!(
                        "\n{:<8} {:<10} {:>8} {:<16} {:<24} {:<10} {:>4} {:<10} {:<24} {}",
                        e.id,
                        e.state,
                        e.attempts,
                        e.supplier_id,
                        format!("{}:{}", e.booking_kind, e.booking_ref),
                        e.hotel_code,
                        e.seq,
                        e.event_kind,
                        ota_gateway::store::values::millis_text(e.created_at),
                        e.last_error.as_deref().unwrap_or("-")
                    ));
                }
                out
            })
        }
        OutboxCommand::Alerts { supplier, retry: true, .. } => outbox_admin::retry_alerts(&store, supplier)
            .await
            .map(|n| format!("{n} parked alert(s) will be sent again")),
        OutboxCommand::Alerts { supplier, booking, state, limit, retry: false, json } => {
            outbox_admin::alerts(&store, supplier, booking, state, limit)
                .await
                .map(|alerts| if json { to_json(&alerts) } else { alerts_text(&alerts) })
        }
        OutboxCommand::Retry { id, all_parked: _ } => {
            outbox_admin::retry(&store, id).await.map(|n| format!("{n} parked event(s) will be sent again"))
        }
        OutboxCommand::History { reference: Some(reference), json, .. } => outbox_admin::history(&store, &reference)
            .await
            .map(|h| if json { to_json(&h) } else { booking_text(&reference, &h) }),
        OutboxCommand::History { reference: None, supplier, failing, parked, unacked_after, limit, json } => {
            let filter = outbox_admin::DeliveryFilter { failing, parked, unacked_after_minutes: unacked_after, limit };
            outbox_admin::deliveries(&store, supplier.as_deref(), filter)
                .await
                .map(|d| if json { to_json(&d) } else { supplier_text(&d) })
        }
        OutboxCommand::Resend { event, json } => {
            outbox_admin::resend(&store, event, &ota_gateway::audit::Actor::cli()).await.map(|r| {
                if json {
                    return to_json(&r);
                }
                let how = if r.delivery == "push" {
                    format!("the next delivery round of any gateway sends it to {}", esc(&r.supplier_id))
                } else {
                    format!("{}'s next read gives it again", esc(&r.supplier_id))
                };
                let after = r
                    .waits_for
                    .map(|w| format!(", after event {w} of its booking (not delivered yet)"))
                    .unwrap_or_default();
                format!(
                    "event {} (was {}) will be sent again as a retransmission asked for by {}: {how}{after}",
                    r.event,
                    r.was,
                    esc(&r.requested_by)
                )
            })
        }
    };
    report(done)
}

/// A text from outside (a receiver's answer, a reference, a host name) for a terminal: every
/// control and direction-changing character escaped (`\n`, `\u{1b}`), so no value moves the
/// cursor, colours the screen or breaks a line of the table.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// An instant of milliseconds since 1970 as shown (`-`: none).
fn at(ms: Option<i64>) -> String {
    ms.map_or_else(|| "-".to_string(), ota_gateway::store::values::millis_text)
}

fn or_dash<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// A booking's deliveries as text: each event, then its attempts.
fn booking_text(reference: &str, events: &[outbox_admin::EventHistory]) -> String {
    if events.is_empty() {
        return format!("booking {} has no events (its hotels have no supplier)", esc(reference));
    }
    let mut out = String::new();
    for h in events {
        let e = &h.event;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "EVENT {} {} {} (client {}) hotel {} seq {} {} for {} by {}: {}{}, written {}{}",
            e.id,
            e.booking_kind,
            esc(&e.booking_ref),
            esc(e.client_ref.as_deref().unwrap_or("-")),
            esc(&e.hotel_code),
            e.seq,
            e.event_kind,
            esc(&e.supplier_id),
            e.delivery,
            e.state,
            e.delivered_at.map(|d| format!(" at {}", at(Some(d)))).unwrap_or_default(),
            at(Some(e.created_at)),
            e.resent_by
                .as_deref()
                .map(|b| format!(", resent by {} at {}", esc(b), at(e.resent_at)))
                .unwrap_or_default(),
        ));
        out.push_str(&format!(
            "\n  {:<5} {:<24} {:<12} {:>4} {:>8}  {:<22} {:<28} URL",
            "#", "AT", "OUTCOME", "HTTP", "LATENCY", "RETRANSMISSION", "GATEWAY"
        ));
        if h.attempts.is_empty() {
            out.push_str("\n  (no attempt kept)");
        }
        for (i, a) in h.attempts.iter().enumerate() {
            let again = match (a.retransmission, &a.requested_by) {
                (false, _) => "no".to_string(),
                (true, None) => "yes".to_string(),
                (true, Some(by)) => format!("yes, asked by {}", esc(by)),
            };
            out.push_str(&format!(
                "\n  {:<5} {:<24} {:<12} {:>4} {:>8}  {:<22} {:<28} {}",
                i + 1,
                at(Some(a.at)),
                shown_outcome(&a.outcome),
                or_dash(a.http_status),
                a.latency_ms.map_or_else(|| "-".to_string(), |l| format!("{l} ms")),
                again,
                esc(a.gateway.as_deref().unwrap_or("-")),
                esc(a.url.as_deref().unwrap_or("-")),
            ));
            if let Some(error) = &a.error {
                out.push_str(&format!("\n        error: {}", esc(error)));
            }
            if let Some(answer) = &a.answer {
                let cut = match a.answer_bytes {
                    Some(n) if usize::try_from(n).is_ok_and(|n| n > answer.len()) => {
                        format!(" (the first 4 KiB of {n} bytes)")
                    }
                    _ => String::new(),
                };
                out.push_str(&format!("\n        answer{cut}: {answer:?}"));
            }
            if let Some(body) = &a.body {
                let cut = match a.body_bytes {
                    Some(n) if usize::try_from(n).is_ok_and(|n| n > body.len()) => {
                        format!(", the first 64 KiB of {n} bytes")
                    }
                    _ => String::new(),
                };
                let masked = if a.body_masked { ", personal values masked" } else { "" };
                out.push_str(&format!("\n        sent{cut}{masked}: {body:?}"));
            }
        }
    }
    out
}

/// An attempt's outcome as the text shows it: one begun and never completed says so.
fn shown_outcome(outcome: &str) -> &str {
    match outcome {
        "in_flight" => "in flight",
        "interrupted" => "interrupted (no outcome recorded)",
        other => other,
    }
}

/// A supplier's deliveries as a table, one event a line.
fn supplier_text(events: &[ota_gateway::outbox::repo::history::Delivery]) -> String {
    let mut out = format!(
        "{:<8} {:<10} {:<5} {:<24} {:<20} {:<10} {:>4} {:<10} {:<24} {:>5} {:<24} {:<12} {:>4} {:>8}  ERROR",
        "ID",
        "STATE",
        "BY",
        "BOOKING",
        "CLIENT",
        "HOTEL",
        "SEQ",
        "KIND",
        "CREATED",
        "KEPT",
        "LAST ATTEMPT",
        "OUTCOME",
        "HTTP",
        "LATENCY"
    );
    for e in events {
        out.push_str(&format!(
            "\n{:<8} {:<10} {:<5} {:<24} {:<20} {:<10} {:>4} {:<10} {:<24} {:>5} {:<24} {:<12} {:>4} {:>8}  {}",
            e.id,
            e.state,
            e.delivery,
            esc(&format!("{}:{}", e.booking_kind, e.booking_ref)),
            esc(e.client_ref.as_deref().unwrap_or("-")),
            esc(&e.hotel_code),
            e.seq,
            e.event_kind,
            at(Some(e.created_at)),
            e.kept,
            at(e.last_at),
            e.last_outcome.as_deref().map_or("-", shown_outcome),
            or_dash(e.last_http_status),
            e.last_latency_ms.map_or_else(|| "-".to_string(), |l| format!("{l} ms")),
            esc(e.last_error.as_deref().unwrap_or("-")),
        ));
    }
    out
}

/// `outbox alerts`: one line per alert (values from partners escaped).
fn alerts_text(alerts: &[ota_gateway::outbox::repo::alerts::AlertRow]) -> String {
    let at = |ms: Option<i64>| {
        ms.and_then(chrono::DateTime::from_timestamp_millis)
            .map_or_else(|| "-".to_string(), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
    };
    let mut out = format!(
        "{:<8} {:<8} {:>8} {:<8} {:<10} {:<16} {:<24} {:<10} {:<32} {:<20} ERROR",
        "ID", "STATE", "ATTEMPTS", "EVENT", "KIND", "SUPPLIER", "BOOKING", "HOTEL", "ADDRESS", "SENT"
    );
    for a in alerts {
        out.push_str(&format!(
            "\n{:<8} {:<8} {:>8} {:<8} {:<10} {:<16} {:<24} {:<10} {:<32} {:<20} {}",
            a.id,
            a.state,
            a.attempts,
            a.event_id,
            a.event_kind,
            esc(&a.supplier_id),
            esc(&a.booking_ref),
            esc(&a.hotel_code),
            esc(&a.address),
            at(a.sent_at),
            a.last_error.as_deref().map_or_else(|| "-".to_string(), esc)
        ));
    }
    out
}
