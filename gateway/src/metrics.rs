//! The gateway's metrics, in the Prometheus/OpenMetrics text format at `GET /metrics` (or on
//! `--metrics-addr`), from one process-wide registry (`prometheus-client`).
//!
//! Handlers record what happens with the small functions below; none of them can fail or
//! block (an atomic add, or a map lookup under a short lock for labelled series). Label values
//! are `&'static str` chosen by the code, never taken from a request, so a client cannot grow
//! the number of series; the one exception, `requestor`, is the id of a stored requestor that
//! authenticated (bounded by the requestors table, not by what clients send).
//!
//! | series | type | recorded by |
//! |---|---|---|
//! | `ota_requests_total{operation,status}` | counter | every HTTP answer ([`request`]) |
//! | `ota_request_duration_seconds{operation}` | histogram | every HTTP answer ([`request`]) |
//! | `ota_auth_failures_total` | counter | [`auth_failure`] |
//! | `ota_auth_throttled_total` | counter | [`auth_throttled`] |
//! | `ota_auth_cache_hits_total` | counter | [`auth_cache_hit`] |
//! | `ota_auth_argon2_checks_total`, `ota_auth_argon2_skipped_total` | counter | the argon2 workers |
//! | `ota_auth_argon2_running`, `ota_auth_argon2_queued`, `ota_auth_argon2_workers` | gauge | the argon2 workers |
//! | `ota_bookings_committed_total{kind}` | counter | [`booking_committed`] |
//! | `ota_bookings_modified_total{kind}` | counter | [`booking_modified`] |
//! | `ota_bookings_cancelled_total{kind}` | counter | [`booking_cancelled`] |
//! | `ota_requestor_requests_total{requestor,kind}` | counter | [`requestor_request`] |
//! | `ota_requestor_limited_total{requestor,limit}` | counter | [`requestor_limited`] |
//! | `ota_outbox_events_total{outcome}` | counter | [`outbox_event`]: `delivered`, `failed` (to be retried), `parked` |
//! | `ota_alerts_total{outcome}` | counter | [`alert`]: booking alert e-mails `sent`, `failed` (to be retried), `parked` |
//! | `ota_outbox_pending`, `ota_outbox_parked` | gauge | [`outbox_backlog`]: events not acknowledged yet, and parked ones (every gateway's, read from the database every 10 s) |
//! | `ota_outbox_unacknowledged_bookings` | gauge | [`outbox_unacknowledged`]: bookings with an event not acknowledged more than `--unacked-alert-minutes` after it was written (every gateway's, read from the database every 10 s) |
//! | `ota_outbox_delivery_seconds` | histogram | [`outbox_delivered`]: from the booking change to the supplier's acknowledgement |
//! | `ota_txlog_entries_total{outcome}` | counter | the transaction log ([`txlog_entries`]): `written`, `dropped` (the queue was full), `failed` (the database refused the batch) |
//! | `ota_db_errors_total` | counter | [`db_error`] |
//! | `ota_sqlite_checkpoint_failures_total` | counter | [`checkpoint_failed`] |
//! | `ota_sqlite_wal_restarts_total`, `ota_sqlite_writer_checkpoints_total` | counter | [`wal_restarted`], [`writer_checkpointed`]: the WAL started again from its beginning; the writer checkpointed to let it |
//! | `ota_content_snapshot_age_seconds`, `ota_content_version` | gauge | [`content_snapshot`], set when scraped |

use std::sync::LazyLock;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The media type of [`render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    operation: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabel {
    operation: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestorLabels {
    requestor: String,
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabels {
    requestor: String,
    limit: &'static str,
}

type HistogramFamily = Family<OperationLabel, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 1 ms … ~16 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 15))
}

struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: HistogramFamily,
    auth_failures: Counter,
    auth_throttled: Counter,
    auth_cache_hits: Counter,
    argon2_checks: Counter,
    argon2_skipped: Counter,
    argon2_running: Gauge,
    argon2_queued: Gauge,
    argon2_workers: Gauge,
    committed: Family<KindLabel, Counter>,
    modified: Family<KindLabel, Counter>,
    cancelled: Family<KindLabel, Counter>,
    db_errors: Counter,
    checkpoint_failures: Counter,
    wal_restarts: Counter,
    writer_checkpoints: Counter,
    content_age: Gauge<f64, AtomicU64>,
    content_version: Gauge,
    requestor_requests: Family<RequestorLabels, Counter>,
    requestor_limited: Family<LimitLabels, Counter>,
    supply_values: Counter,
    outbox_events: Family<OutcomeLabel, Counter>,
    alerts: Family<OutcomeLabel, Counter>,
    outbox_latency: Histogram,
    outbox_pending: Gauge,
    outbox_parked: Gauge,
    outbox_unacknowledged: Gauge,
    txlog: Family<OutcomeLabel, Counter>,
    answers: Family<AnswerLabels, Counter>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AnswerLabels {
    operation: &'static str,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabel {
    outcome: &'static str,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let mut registry = Registry::with_prefix("ota");
    let m = Metrics {
        requests: Family::default(),
        latency: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
        auth_failures: Counter::default(),
        auth_throttled: Counter::default(),
        auth_cache_hits: Counter::default(),
        argon2_checks: Counter::default(),
        argon2_skipped: Counter::default(),
        argon2_running: Gauge::default(),
        argon2_queued: Gauge::default(),
        argon2_workers: Gauge::default(),
        committed: Family::default(),
        modified: Family::default(),
        cancelled: Family::default(),
        db_errors: Counter::default(),
        checkpoint_failures: Counter::default(),
        wal_restarts: Counter::default(),
        writer_checkpoints: Counter::default(),
        content_age: Gauge::default(),
        content_version: Gauge::default(),
        requestor_requests: Family::default(),
        requestor_limited: Family::default(),
        supply_values: Counter::default(),
        outbox_events: Family::default(),
        alerts: Family::default(),
        outbox_latency: latency_histogram(),
        outbox_pending: Gauge::default(),
        outbox_parked: Gauge::default(),
        outbox_unacknowledged: Gauge::default(),
        txlog: Family::default(),
        answers: Family::default(),
        registry: Registry::default(),
    };
    registry.register(
        "requests",
        "HTTP requests answered, by operation (or route) and HTTP status",
        m.requests.clone(),
    );
    registry.register(
        "answers",
        "OTA answers by operation and outcome: Success, Warning, or Error TYPE/CODE (the first error's)",
        m.answers.clone(),
    );
    registry.register(
        "request_duration_seconds",
        "Time from the request's arrival to its answer, by operation",
        m.latency.clone(),
    );
    registry.register(
        "auth_failures",
        "Authentication failures (wrong credentials, context, state or address), throttled attempts excluded",
        m.auth_failures.clone(),
    );
    registry.register(
        "auth_throttled",
        "Authentication attempts refused by the throttle without checking the password",
        m.auth_throttled.clone(),
    );
    registry.register(
        "auth_cache_hits",
        "Successful authentications answered from the verification cache (no argon2)",
        m.auth_cache_hits.clone(),
    );
    registry.register("auth_argon2_checks", "argon2 password verifications carried out", m.argon2_checks.clone());
    registry.register(
        "auth_argon2_skipped",
        "argon2 verifications not carried out because their request was gone (client hung up or timed out)",
        m.argon2_skipped.clone(),
    );
    registry.register("auth_argon2_running", "argon2 verifications running now", m.argon2_running.clone());
    registry.register("auth_argon2_queued", "argon2 verifications waiting for a worker", m.argon2_queued.clone());
    registry.register(
        "auth_argon2_workers",
        "argon2 worker threads (the most verifications at once)",
        m.argon2_workers.clone(),
    );
    registry.register(
        "bookings_committed",
        "Bookings committed (new bookings, not repeats), by kind",
        m.committed.clone(),
    );
    registry.register("bookings_modified", "Booking modifications committed, by kind", m.modified.clone());
    registry.register("bookings_cancelled", "Bookings cancelled, by kind", m.cancelled.clone());
    registry.register(
        "db_errors",
        "Database failures met while answering (answered as a system error) or refreshing content",
        m.db_errors.clone(),
    );
    registry.register(
        "sqlite_checkpoint_failures",
        "SQLite WAL checkpoints that failed (the health check answers 503 after 25 in a row)",
        m.checkpoint_failures.clone(),
    );
    registry.register(
        "sqlite_wal_restarts",
        "Times the SQLite WAL started again from its beginning (seen by the checkpointer)",
        m.wal_restarts.clone(),
    );
    registry.register(
        "sqlite_writer_checkpoints",
        "WAL checkpoints the SQLite writer ran between two batches so that the WAL could start again",
        m.writer_checkpoints.clone(),
    );
    registry.register(
        "content_snapshot_age_seconds",
        "Seconds since the content snapshot was last confirmed current against the store",
        m.content_age.clone(),
    );
    registry.register("content_version", "Content version of the snapshot served", m.content_version.clone());
    registry.register(
        "requestor_requests",
        "Requests of authenticated requestors within their limits, by requestor and look-to-book kind (search, availability, quote, booking, other)",
        m.requestor_requests.clone(),
    );
    registry.register(
        "requestor_limited",
        "Requests refused by a requestor's limit (429), by requestor and limit (rate, operation_rate, daily_quota)",
        m.requestor_limited.clone(),
    );
    registry.register(
        "supply_values",
        "Values (a room type's rooms on sale, restriction or amount on one day) written by suppliers' notifications",
        m.supply_values.clone(),
    );
    registry.register("alerts", "Booking alert e-mails by this gateway, by outcome (sent: the relay accepted it, failed: to be retried, parked: held until `outbox alerts --retry`)", m.alerts.clone());
    registry.register("outbox_events", "Outbox delivery attempts by this gateway, by outcome (delivered, failed: to be retried, parked: held until `outbox retry`)", m.outbox_events.clone());
    registry.register(
        "outbox_delivery_seconds",
        "Time from a booking change to its supplier's acknowledgement of the pushed event",
        m.outbox_latency.clone(),
    );
    registry.register(
        "outbox_pending",
        "Outbox events not acknowledged yet and not parked, of every gateway (read from the database every 10 s)",
        m.outbox_pending.clone(),
    );
    registry.register("outbox_parked", "Outbox events parked (waiting for `ota-gateway outbox retry`), of every gateway (read from the database every 10 s)", m.outbox_parked.clone());
    registry.register(
        "outbox_unacknowledged_bookings",
        "Bookings with an outbox event not acknowledged by its supplier more than --unacked-alert-minutes (default 30) after it was written, of every gateway (read from the database every 10 s)",
        m.outbox_unacknowledged.clone(),
    );
    registry.register(
        "txlog_entries",
        "Transaction log entries, by outcome: written to the database, dropped (the writer's queue was full: the answer never waits for the log), failed (the database refused their batch)",
        m.txlog.clone(),
    );
    Metrics { registry, ..m }
});

/// The operation label of a request path (already without the base path): the operation's
/// path without its slash (`hotelnbc`), `healthz`, `metrics`, or `other`.
pub fn operation_label(path: &str) -> &'static str {
    if let Some(op) = ota_messages::OPERATIONS.iter().find(|op| op.path == path) {
        return op.path.trim_start_matches('/');
    }
    match path {
        "/healthz" => "healthz",
        "/metrics" => "metrics",
        _ => "other",
    }
}

/// One HTTP request answered: its operation label (see [`operation_label`]), HTTP status and
/// how long it took.
pub fn request(operation: &'static str, status: u16, took: Duration) {
    let m = &*METRICS;
    m.requests.get_or_create(&RequestLabels { operation, status }).inc();
    m.latency.get_or_create(&OperationLabel { operation }).observe(took.as_secs_f64());
}

/// An operation answered with this outcome (`Success`, `Warning`, `Error 3/172`): bounded by
/// the code lists the gateway writes.
pub fn answer(operation: &'static str, outcome: &str) {
    METRICS.answers.get_or_create(&AnswerLabels { operation, outcome: outcome.to_string() }).inc();
}

/// `n` transaction log entries had this outcome: `"written"`, `"dropped"` (the writer's queue
/// was full) or `"failed"` (the database refused their batch).
pub fn txlog_entries(outcome: &'static str, n: u64) {
    METRICS.txlog.get_or_create(&OutcomeLabel { outcome }).inc_by(n);
}

/// An authentication failed (after its password was checked, or for a requestor that does not
/// exist). Throttled attempts are counted by [`auth_throttled`] instead.
pub fn auth_failure() {
    METRICS.auth_failures.inc();
}

/// An authentication attempt was refused by the throttle, without any password check.
pub fn auth_throttled() {
    METRICS.auth_throttled.inc();
}

/// A successful authentication answered from the verification cache.
pub fn auth_cache_hit() {
    METRICS.auth_cache_hits.inc();
}

/// A booking was committed (a new one: a repeated Commit returning the same booking is not
/// counted). `kind`: `"activity"` or `"hotel"`.
pub fn booking_committed(kind: &'static str) {
    METRICS.committed.get_or_create(&KindLabel { kind }).inc();
}

/// A change of a booking was committed. `kind`: `"activity"` or `"hotel"`.
pub fn booking_modified(kind: &'static str) {
    METRICS.modified.get_or_create(&KindLabel { kind }).inc();
}

/// A supplier's notification was applied, writing `values` values.
pub fn supply_applied(values: usize) {
    METRICS.supply_values.inc_by(u64::try_from(values).unwrap_or(u64::MAX));
}

/// A booking was cancelled (a cancellation committed, not a repeat of one). `kind`:
/// `"activity"` or `"hotel"`.
pub fn booking_cancelled(kind: &'static str) {
    METRICS.cancelled.get_or_create(&KindLabel { kind }).inc();
}

/// A request of an authenticated requestor, within its limits, of a look-to-book `kind`
/// (`search`, `availability`, `quote`, `booking`, or `other`). The `requestor` label is the id of
/// a stored requestor that authenticated (never an id a client made up), so the series are
/// bounded by the requestors table.
pub fn requestor_request(requestor: &str, kind: &'static str) {
    METRICS.requestor_requests.get_or_create(&RequestorLabels { requestor: requestor.to_string(), kind }).inc();
}

/// A request of an authenticated requestor refused by its `limit` (`rate`, `operation_rate` or
/// `daily_quota`).
pub fn requestor_limited(requestor: &str, limit: &'static str) {
    METRICS.requestor_limited.get_or_create(&LimitLabels { requestor: requestor.to_string(), limit }).inc();
}

/// An outbox delivery attempt ended: `outcome` is `delivered`, `failed` (to be retried) or
/// `parked` (failed for the last time allowed).
pub fn outbox_event(outcome: &'static str) {
    METRICS.outbox_events.get_or_create(&OutcomeLabel { outcome }).inc();
}

/// A booking alert's attempt ended: `outcome` is `sent` (the relay accepted it), `failed` (to
/// be retried) or `parked` (failed for the last time allowed).
pub fn alert(outcome: &'static str) {
    METRICS.alerts.get_or_create(&OutcomeLabel { outcome }).inc();
}

/// The outbox's backlog, every gateway's: events `pending` (not acknowledged yet, pushed or
/// pulled) and `parked`.
pub fn outbox_backlog(pending: i64, parked: i64) {
    METRICS.outbox_pending.set(pending);
    METRICS.outbox_parked.set(parked);
}

/// The bookings with an event not acknowledged more than `serve --unacked-alert-minutes` after it
/// was written, every gateway's (read from the database by the delivery task with the backlog).
pub fn outbox_unacknowledged(bookings: i64) {
    METRICS.outbox_unacknowledged.set(bookings);
}

/// An outbox event was acknowledged `took` after the booking change that wrote it.
pub fn outbox_delivered(took: Duration) {
    METRICS.outbox_latency.observe(took.as_secs_f64());
}

/// A database failure was met (a request answered with a system error, a failed health check or
/// content refresh).
pub fn db_error() {
    METRICS.db_errors.inc();
}

/// A SQLite WAL checkpoint failed (see [`crate::store`]'s SQLite backend).
pub fn checkpoint_failed() {
    METRICS.checkpoint_failures.inc();
}

/// The SQLite WAL started again from its beginning (see [`crate::store`]'s SQLite backend).
pub fn wal_restarted() {
    METRICS.wal_restarts.inc();
}

/// The SQLite writer ran a checkpoint between two batches so that the WAL could start again.
pub fn writer_checkpointed() {
    METRICS.writer_checkpoints.inc();
}

/// The content snapshot served: its version and how long ago it was last confirmed current.
pub fn content_snapshot(version: i64, age: Duration) {
    METRICS.content_version.set(version);
    METRICS.content_age.set(age.as_secs_f64());
}

/// argon2 work: a verification starts (`+1`) or ends (`-1`).
pub(crate) fn argon2_running(delta: i64) {
    METRICS.argon2_running.inc_by(delta);
}

/// argon2 work: a verification is queued (`+1`) or leaves the queue (`-1`).
pub(crate) fn argon2_queued(delta: i64) {
    METRICS.argon2_queued.inc_by(delta);
}

/// argon2 work: one verification carried out.
pub(crate) fn argon2_checked() {
    METRICS.argon2_checks.inc();
}

/// argon2 work: one verification skipped (its request was gone).
pub(crate) fn argon2_skipped() {
    METRICS.argon2_skipped.inc();
}

/// argon2 work: the number of worker threads.
pub(crate) fn argon2_workers(n: usize) {
    METRICS.argon2_workers.set(i64::try_from(n).unwrap_or(i64::MAX));
}

/// Every series, in the OpenMetrics text format (which Prometheus reads).
pub fn render() -> String {
    let mut out = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &METRICS.registry) {
        tracing::error!(error = %e, "metrics could not be encoded");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_fixed_and_series_render() {
        assert_eq!(operation_label("/hotelnbc"), "hotelnbc");
        assert_eq!(operation_label("/healthz"), "healthz");
        assert_eq!(operation_label("/anything/else"), "other");
        request("hotelnbc", 200, Duration::from_millis(3));
        booking_committed("activity");
        let text = render();
        assert!(text.contains("ota_requests_total{operation=\"hotelnbc\",status=\"200\"}"), "{text}");
        assert!(
            text.contains("ota_request_duration_seconds_bucket{le=\"0.004\",operation=\"hotelnbc\"}")
                || text.contains("ota_request_duration_seconds_bucket{operation=\"hotelnbc\",le=\"0.004\"}"),
            "{text}"
        );
        assert!(text.contains("ota_bookings_committed_total{kind=\"activity\"}"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
