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
//!   `/notifreport`).
//! - Every gateway delivers; an event is taken by one at a time (a lease, `taken_until`, taken
//!   with `FOR UPDATE SKIP LOCKED` on PostgreSQL); nothing is kept only in memory, so a gateway
//!   killed mid-delivery leads to a repeat (after the lease), never to a lost event. An event is
//!   only taken when every earlier event of its booking and hotel is delivered: a parked event
//!   holds back its booking's later ones.
//!
//! | file | what |
//! |---|---|
//! | [`rules`] | pure: the backoff, the event's identity, what an answer means |
//! | [`repo`] | SQL only: taking, settling, listing, retrying and acknowledging events |
//! | [`mapping`] | a booking → `OTA_HotelResNotifRQ` and the pull's answers |
//! | [`deliver`] | the background task of every gateway that pushes events |
//! | [`pull`] | the supplier's read and acknowledgement |
//! | [`admin`] | `ota-gateway outbox list \| retry` |

pub mod admin;
pub mod deliver;
pub mod mapping;
pub mod pull;
pub mod repo;
pub mod rules;

use std::time::Duration;

/// How events are pushed: `serve --outbox-*`.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Attempts before an event is parked (`--outbox-max-attempts`, 10).
    pub max_attempts: u32,
    /// The wait after the first failure, doubled after each further one (`--outbox-retry-base`, 1 s).
    pub retry_base: Duration,
    /// The longest wait between attempts (`--outbox-retry-max`, 5 min).
    pub retry_max: Duration,
    /// How long a receiver may take to answer (`--outbox-timeout`, 10 s).
    pub timeout: Duration,
    /// How often the gateway looks for events due (`--outbox-poll-interval`, 100 ms).
    pub poll: Duration,
    /// The most events one gateway delivers at once.
    pub batch: usize,
    /// This gateway's token, on the events it holds (see [`deliver::release`]).
    pub gateway: String,
    /// Certificate authorities an https receiver's certificate may also come from, besides the
    /// public roots (`--outbox-ca FILE`, PEM).
    pub roots: Vec<reqwest::Certificate>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_attempts: 10,
            retry_base: Duration::from_secs(1),
            retry_max: Duration::from_secs(300),
            timeout: Duration::from_secs(10),
            poll: Duration::from_millis(100),
            batch: 32,
            gateway: deliver::gateway_token(),
            roots: Vec::new(),
        }
    }
}

impl Settings {
    /// How long a gateway holds an event it took: the receiver's time-out twice, plus a second
    /// (a gateway that dies holding it delays it by at most this; one that is only slow never
    /// sees another take it while it still waits for the answer).
    pub fn lease(&self) -> Duration {
        self.timeout * 2 + Duration::from_secs(1)
    }
}
