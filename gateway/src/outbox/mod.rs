//! Bookings out to suppliers (issue 21, "Out"): the outbox. Every hotel and activity booking,
//! modify and cancel writes an event in its own transaction ([`crate::shared::events`]); this
//! area delivers them at least once, in order per booking and hotel, and takes the suppliers'
//! acknowledgements. gateway/README.md ("Bookings out to suppliers") has the whole story.
//!
//! - **Push** ([`deliver`]): a supplier with a notification URL (`requestor set ID --notify-url
//!   URL`) gets `OTA_HotelResNotifRQ` posted for each event; its `OTA_HotelResNotifRS` with
//!   `Success` acknowledges it. Failures and time-outs are retried with exponential backoff and
//!   jitter ([`rules::backoff`]); after `--outbox-max-attempts` an event is parked (WARN, the
//!   `ota_outbox_events_total{outcome="parked"}` metric) until `ota-gateway outbox retry`.
//! - **Pull** ([`pull`]): a supplier without a URL reads the bookings with events it has not
//!   acknowledged (`OTA_ReadRQ` on `/bookread`) and acknowledges them (`OTA_NotifReportRQ` on
//!   `/notifreport`). Any supplier also reads its bookings again, whatever their
//!   acknowledgement, by reference or by dates (`OTA_ReadRQ` with criteria, [`reader`]); a
//!   criterion the gateway does not apply is refused, naming it (docs/hotels/reading-bookings.md).
//! - Every gateway delivers; an event is taken by one at a time (a lease, `taken_until`, taken
//!   with `FOR UPDATE SKIP LOCKED` on PostgreSQL); nothing is kept only in memory, so a gateway
//!   killed mid-delivery leads to a repeat (after the lease), never to a lost event. An event is
//!   only taken when every earlier event of its booking and hotel is delivered: a parked event
//!   holds back its booking's later ones.
//! - Fair shares: a supplier has at most `--outbox-per-supplier` events in flight (held by a
//!   lease, on any gateway), and a round takes the suppliers' events in turn (each one's first
//!   due, then each one's second, …), so a receiver that hangs, or one supplier's backlog of
//!   thousands, never takes the delivery slots another supplier's events need.
//! - Booking alerts by e-mail ([`alerts`], issue 31): one per event and supplier's alert
//!   address, queued in the event's transaction, sent by every gateway with `--smtp-url`,
//!   independent of the push and the pull (docs/hotels/alerts.md).
//! - Every delivery is kept (`outbox_attempt`, issue 30): each push attempt from its start (a
//!   row `sending` committed before the notification leaves, with the notification as kept —
//!   [`deliver::kept_body`] — completed with its outcome in the transaction that settles the
//!   event; one never completed is shown as interrupted), each pull that gave an event and its
//!   acknowledgement, deleted with their event; `ota-gateway outbox history` shows them and
//!   `outbox resend` sends any event again (docs/operators/deliveries.md,
//!   docs/console/deliveries.md). Bookings not acknowledged `serve --unacked-alert-minutes`
//!   after their event are counted by the delivery task (the `ota_outbox_unacknowledged_bookings`
//!   gauge) and on the console's overview ([`admin::unacknowledged`]).
//!
//! | file | what |
//! |---|---|
//! | [`rules`] | pure: the backoff, the event's identity, what an answer means; a supplier's read: its date ranges, what it may leave unread |
//! | [`repo`] | SQL only: taking, settling (each attempt kept), listing, retrying, resending and acknowledging events; the deliveries' history; a supplier's bookings by reference and by dates |
//! | [`mapping`] | a booking → `OTA_HotelResNotifRQ` and the pull's answers |
//! | [`deliver`] | the background task of every gateway that pushes events |
//! | [`reader`] | what a supplier's `OTA_ReadRQ` asks: the pull, a reference, a range of dates; every other criterion refused |
//! | [`pull`] | the supplier's reads (the pull, by reference, by dates) and acknowledgement |
//! | [`admin`] | `ota-gateway outbox list \| retry \| history \| resend \| alerts`: the queries the CLI and the console share |
//! | [`alerts`] | booking alerts by e-mail: the `--smtp-*` settings and the background task of every gateway that sends them |
//! | [`mail`] | pure: an alert's subject, text and `Message-ID` |

pub mod admin;
pub mod alerts;
pub mod deliver;
pub mod mail;
pub mod mapping;
pub mod pull;
pub mod reader;
pub mod repo;
pub mod rules;

use std::time::Duration;

/// How events are pushed: the `--outbox-*` arguments of `ota-gateway serve`.
#[derive(Debug, Clone, clap::Args)]
#[group(id = "OutboxSettings")]
pub struct Settings {
    /// Outbox: attempts at pushing an event to its supplier before it is parked (until
    /// `ota-gateway outbox retry`).
    #[arg(id = "outbox_max_attempts", long = "outbox-max-attempts", value_name = "OUTBOX_MAX_ATTEMPTS", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..), env = "OTA_GATEWAY_OUTBOX_MAX_ATTEMPTS")]
    pub max_attempts: u32,
    /// Outbox: the wait after a failed push, doubled after each further failure (jittered).
    #[arg(id = "outbox_retry_base", long = "outbox-retry-base", value_name = "OUTBOX_RETRY_BASE", default_value = "1s", value_parser = crate::config::parse_duration, env = "OTA_GATEWAY_OUTBOX_RETRY_BASE")]
    pub retry_base: Duration,
    /// Outbox: the longest wait between two attempts at one event.
    #[arg(id = "outbox_retry_max", long = "outbox-retry-max", value_name = "OUTBOX_RETRY_MAX", default_value = "5m", value_parser = crate::config::parse_duration, env = "OTA_GATEWAY_OUTBOX_RETRY_MAX")]
    pub retry_max: Duration,
    /// Outbox: how long a supplier's receiver may take to answer a push.
    #[arg(id = "outbox_timeout", long = "outbox-timeout", value_name = "OUTBOX_TIMEOUT", default_value = "10s", value_parser = crate::config::parse_duration, env = "OTA_GATEWAY_OUTBOX_TIMEOUT")]
    pub timeout: Duration,
    /// Outbox: how often this gateway looks for events due when it found none.
    #[arg(id = "outbox_poll_interval", long = "outbox-poll-interval", value_name = "OUTBOX_POLL_INTERVAL", default_value = "100ms", value_parser = crate::config::parse_duration, env = "OTA_GATEWAY_OUTBOX_POLL_INTERVAL")]
    pub poll: Duration,
    /// The most events one gateway delivers at once.
    #[arg(skip = 32_usize)]
    pub batch: usize,
    /// Outbox: the most deliveries to one supplier in flight at once, over every gateway (the
    /// events held by a lease count): a receiver that hangs holds this many, never every
    /// gateway's delivery slots. Default: a quarter of a gateway's 32 slots.
    #[arg(id = "outbox_per_supplier", long = "outbox-per-supplier", value_name = "OUTBOX_PER_SUPPLIER", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..), env = "OTA_GATEWAY_OUTBOX_PER_SUPPLIER")]
    pub per_supplier: u32,
    /// This gateway's token, on the events it holds (see [`deliver::release`]).
    #[arg(skip = deliver::gateway_token())]
    pub gateway: String,
    /// Certificate authorities an https receiver's certificate may also come from, besides the
    /// public roots (read from [`Settings::ca`]).
    #[arg(skip)]
    pub roots: Vec<reqwest::Certificate>,
    /// Outbox: a PEM file of certificate authorities that https receivers' certificates may
    /// come from, besides the public roots (a supplier's own CA, a test receiver's certificate).
    // Read into `roots` by `deliver::read_roots` before the delivery starts.
    #[arg(id = "outbox_ca", long = "outbox-ca", value_name = "FILE", env = "OTA_GATEWAY_OUTBOX_CA")]
    pub ca: Option<std::path::PathBuf>,
    /// Outbox: how long delivered events are kept (e.g. 30d, or off: for ever). The last event
    /// of each booking and hotel is always kept.
    #[arg(id = "outbox_retention", long = "outbox-retention", value_name = "OUTBOX_RETENTION", default_value = "30d", value_parser = crate::config::parse_retention, env = "OTA_GATEWAY_OUTBOX_RETENTION")]
    pub retention: std::option::Option<Duration>,
    /// Whether personal values are masked in the notification kept with each attempt, as the
    /// transaction log masks them (`serve --log-unmasked` turns both off; `server` sets it from
    /// the gateway's settings). Card numbers and passwords are never kept.
    #[arg(skip = true)]
    pub mask_bodies: bool,
    /// A booking with an event not acknowledged this many minutes after it was written is
    /// counted in the `ota_outbox_unacknowledged_bookings` gauge (`serve
    /// --unacked-alert-minutes`, [`crate::config::Config::unacked_alert_minutes`]; `server`
    /// sets it from the gateway's settings).
    #[arg(skip = 30_u32)]
    pub unacked_alert_minutes: u32,
}

impl Default for Settings {
    /// The defaults of the `--outbox-*` arguments.
    fn default() -> Self {
        crate::config::defaults()
    }
}

impl Settings {
    /// How long a gateway holds an event it took: the receiver's time-out twice, plus a second
    /// (a gateway that dies holding it delays it by at most this; one that is only slow never
    /// sees another take it while it still waits for the answer).
    pub fn lease(&self) -> Duration {
        self.timeout * 2 + Duration::from_secs(1)
    }

    /// These settings on a gateway with `config`: its notifications kept masked as its
    /// transaction log masks, its bookings not acknowledged counted after its
    /// `--unacked-alert-minutes`.
    pub fn on(self, config: &crate::config::Config) -> Settings {
        Settings { mask_bodies: config.txlog.masked, unacked_alert_minutes: config.unacked_alert_minutes, ..self }
    }
}
