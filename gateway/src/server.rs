//! The gateway as a process: [`run`] starts every background task of a gateway, serves HTTP
//! ([`crate::http::serve`]) until its shutdown signal, then stops the tasks and stores what they
//! hold. `ota-gateway serve` and the tests' servers both run through here.
//!
//! The tasks: the look-to-book, daily-quota and traffic rollup counts' flush (every
//! [`Config::traffic_flush`](crate::config::Config::traffic_flush), and once more at the end), the
//! transaction log's retention, the traffic rollups' retention, the past nights' supply purge; and, when [`Background`] asks,
//! the content refresher, the outbox's delivery and its retention, the booking alerts' sender,
//! the metrics listener and the operator console's listener.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::outbox;
use crate::state::AppState;

/// What runs besides the HTTP server and the tasks every gateway runs.
#[derive(Default)]
pub struct Background {
    /// Reload the content when another gateway or an import changed it
    /// ([`crate::content`]'s refresher).
    pub refresh_content: bool,
    /// Push the outbox's events to their suppliers with these settings, and delete the
    /// delivered ones past their retention ([`outbox::deliver`]).
    pub outbox: Option<outbox::Settings>,
    /// Queue and send booking alerts by e-mail through this relay ([`outbox::alerts`]; its
    /// retries as `outbox`'s settings say, the defaults without them). `None`, or settings
    /// without a relay: no alert is queued or sent.
    pub alerts: Option<outbox::alerts::Settings>,
    /// Serve `GET /metrics` on this listener ([`crate::http::metrics_router`]).
    pub metrics: Option<TcpListener>,
    /// Serve the operator console on this listener ([`crate::console`]).
    pub console: Option<TcpListener>,
}

/// Serves `state` on `listener` until `shutdown` completes, with the tasks every gateway runs
/// (not the content refresher, the outbox's delivery or a metrics listener: see [`run`]).
pub async fn serve(listener: TcpListener, state: AppState, shutdown: impl Future<Output = ()>) -> io::Result<()> {
    run(listener, state, Background::default(), shutdown).await
}

/// Starts the background tasks, serves `state` on `listener` until `shutdown` completes (the
/// requests in flight finish, see [`crate::http::serve`]), then stops every task: the traffic
/// counts and the transaction log's queue are stored, the outbox events this gateway held are
/// given back.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    background: Background,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    // The daily quotas count from the day's totals: read them before the first request.
    if let Err(e) = state.flush_traffic().await {
        tracing::warn!(error = %e, "the day's request counts could not be read; daily quotas count from zero until the next flush");
    }
    let tasks = Tasks::start(&state, background);
    let served = crate::http::serve(listener, state.clone(), shutdown).await;
    tasks.stop(&state).await;
    served
}

/// The running background tasks.
struct Tasks {
    /// Every task, aborted at the stop.
    all: Vec<JoinHandle<()>>,
    /// The outbox's delivery and its settings: its events are given back at the stop.
    delivery: Option<(JoinHandle<()>, outbox::Settings)>,
    /// The booking alerts' task and the outbox settings it runs with: its alerts are given
    /// back at the stop.
    alerts: Option<(JoinHandle<()>, outbox::Settings)>,
}

impl Tasks {
    fn start(state: &AppState, background: Background) -> Tasks {
        let store = &state.store;
        let parts = state.clone();
        let mut all = vec![
            // Look-to-book counts (and the daily quotas' counts) and the traffic rollups go to the database every
            // --traffic-flush-interval, and once more at the end.
            tokio::spawn(async move {
                let mut every = tokio::time::interval(parts.config.traffic_flush.max(Duration::from_millis(100)));
                every.tick().await;
                loop {
                    every.tick().await;
                    if let Err(e) = parts.flush_traffic().await {
                        tracing::warn!(error = %e, "look-to-book counts could not be stored; kept for the next try");
                    }
                }
            }),
            // The transaction log's retention: entries past it deleted now and then regularly.
            tokio::spawn(crate::txlog::purge_forever(store.clone(), state.config.txlog.clone())),
            // The traffic rollups past their retention: deleted at start and every 10 minutes.
            tokio::spawn(crate::traffic::purge_forever(store.clone())),
            // The supply values of past nights: deleted at start and every hour.
            tokio::spawn(crate::hotels::purge_past_supply_forever(store.clone())),
        ];
        if let Some(listener) = background.console {
            let c = &state.config;
            let connections = crate::http::Connections {
                name: "console",
                max: c.console.max_connections,
                header_read_timeout: c.header_read_timeout,
                shutdown_grace: c.shutdown_grace,
            };
            let app = crate::console::app(state.clone());
            all.push(tokio::spawn(async move {
                // Stopped by the abort at the end (the console has no requests to finish).
                if let Err(e) = crate::http::serve_router(listener, app, connections, std::future::pending()).await {
                    tracing::error!(error = %e, "the console listener stopped");
                }
            }));
        }
        if background.refresh_content {
            all.push(state.content.spawn_refresher());
        }
        if let Some(listener) = background.metrics {
            let app = crate::http::metrics_router(state.clone());
            all.push(tokio::spawn(async move {
                if let Err(e) = axum::serve(listener, app).await {
                    tracing::error!(error = %e, "the metrics listener stopped");
                }
            }));
        }
        let alerts = background.alerts.filter(|a| a.url.is_some()).map(|alerts| {
            // From now on this process queues an alert with each event it writes.
            crate::shared::events::queue_alerts(true);
            let outbox = background.outbox.clone().unwrap_or_default();
            let content = state.content.clone();
            let catalogues = Arc::new(move || {
                let now = content.get();
                outbox::mapping::Catalogues { hotels: now.hotels.clone(), activities: now.activities.clone() }
            });
            (tokio::spawn(outbox::alerts::run(store.clone(), catalogues, alerts, outbox.clone())), outbox)
        });
        let delivery = background.outbox.map(|settings| {
            let settings = settings.on(&state.config);
            let content = state.content.clone();
            let catalogues = Arc::new(move || {
                let now = content.get();
                outbox::mapping::Catalogues { hotels: now.hotels.clone(), activities: now.activities.clone() }
            });
            if let Some(retention) = settings.retention {
                all.push(tokio::spawn(outbox::admin::purge_forever(store.clone(), retention)));
            }
            (tokio::spawn(outbox::deliver::run(store.clone(), catalogues, settings.clone())), settings)
        });
        Tasks { all, delivery, alerts }
    }

    async fn stop(self, state: &AppState) {
        for task in &self.all {
            task.abort();
        }
        if let Err(e) = state.flush_traffic().await {
            tracing::warn!(error = %e, "look-to-book counts could not be stored at shutdown; they are lost");
        }
        // What the transaction log has queued is stored before the gateway stops.
        state.txlog.flush().await;
        // The alerts this gateway holds go back at once (one in flight may be repeated, with
        // the same Message-ID).
        if let Some((alerts, settings)) = self.alerts {
            alerts.abort();
            let _ = alerts.await;
            match outbox::alerts::release(&state.store, &settings).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(alerts = n, "booking alerts this gateway held were given back"),
                Err(e) => {
                    tracing::warn!(error = %e, "the booking alerts this gateway held could not be given back; they are sent again when their lease ends")
                }
            }
        }
        // The events this gateway holds go back at once (their deliveries in flight are repeated).
        let Some((delivery, settings)) = self.delivery else { return };
        delivery.abort();
        let _ = delivery.await;
        match outbox::deliver::release(&state.store, &settings).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(events = n, "outbox events this gateway held were given back"),
            Err(e) => {
                tracing::warn!(error = %e, "the outbox events this gateway held could not be given back; they are sent again when their lease ends")
            }
        }
    }
}
