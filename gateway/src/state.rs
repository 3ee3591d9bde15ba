//! The state of one gateway process ([`AppState`]), shared by the transport ([`crate::http`])
//! and the dispatch ([`crate::operation`]): the store, the content snapshot, what each area keeps
//! in memory between requests, authentication and the settings. A request is served with the
//! parts of it that its area needs (see [`AppParts::hotels`]).

use std::sync::Arc;

use crate::auth::Authenticator;
use crate::config::Config;
use crate::content::{Content, ContentCache};
use crate::store::{Store, StoreError};
use crate::{activities, hotels};

/// What every request is served with: the store, the content in memory, what each area keeps
/// in memory, authentication and the settings (cheap to clone:
/// one shared [`AppParts`], which the fields are read through).
#[derive(Debug, Clone)]
pub struct AppState(Arc<AppParts>);

/// The parts of an [`AppState`].
#[derive(Debug)]
pub struct AppParts {
    /// The store.
    pub store: Store,
    /// The content snapshot, refreshed when the store's content changes.
    pub content: Arc<ContentCache>,
    /// What the hotel area keeps in memory between requests.
    pub hotels: Arc<hotels::Kept>,
    /// What the activity area keeps in memory between requests.
    pub activities: Arc<activities::Kept>,
    /// The settings.
    pub config: Arc<Config>,
    /// The room left for request bodies being read, in KiB (see [`Config::body_memory`]).
    pub bodies: Arc<tokio::sync::Semaphore>,
    /// Authentication: the throttle and the cache of verified credentials.
    pub auth: Arc<Authenticator>,
    /// The per-partner limits of this gateway.
    pub limits: Arc<crate::limits::Limiter>,
    /// The look-to-book counts not yet stored.
    pub traffic: Arc<crate::requestors::traffic::Tally>,
    /// The traffic rollups' counts not yet stored ([`crate::traffic`]).
    pub rollups: Arc<crate::traffic::Recorder>,
    /// The transaction log's queue and writer.
    pub txlog: crate::txlog::Recorder,
}

impl std::ops::Deref for AppState {
    type Target = AppParts;

    fn deref(&self) -> &AppParts {
        &self.0
    }
}

impl AppState {
    /// The state for a store (whose content is loaded now) and settings.
    pub async fn new(store: Store, config: Config) -> Result<Self, StoreError> {
        let content = ContentCache::load(store.clone()).await?;
        let auth = Arc::new(Authenticator::new(config.throttle));
        let txlog = crate::txlog::Recorder::start(store.clone(), &config.txlog);
        Ok(AppState(Arc::new(AppParts {
            store,
            content,
            hotels: Arc::default(),
            activities: Arc::default(),
            bodies: Arc::new(tokio::sync::Semaphore::new(
                config.body_memory.div_ceil(1024).min(tokio::sync::Semaphore::MAX_PERMITS),
            )),
            config: Arc::new(config),
            auth,
            limits: Arc::default(),
            traffic: Arc::default(),
            rollups: Arc::default(),
            txlog,
        })))
    }
}

impl AppParts {
    /// Adds this gateway's look-to-book counts and traffic rollups to the database (one
    /// batch: [`crate::traffic::flush`]), then takes every gateway's count of today's requests
    /// into the daily quotas (see [`crate::limits`]). Run every `--traffic-flush-interval`, when
    /// the gateway starts and when it stops.
    pub async fn flush_traffic(&self) -> Result<(), StoreError> {
        crate::traffic::flush(&self.store, &self.traffic, &self.rollups).await?;
        let today = chrono::Utc::now().date_naive();
        let stored = crate::requestors::traffic::requests_on(&self.store, today).await?;
        self.limits.settle(today, &stored, |id| self.traffic.pending_requests(id, today));
        Ok(())
    }

    /// The hotel area's part for a request served from `content`.
    pub fn hotels(&self, content: &Content) -> hotels::Area {
        hotels::Area { catalogue: content.hotels.clone(), kept: self.hotels.clone() }
    }

    /// The activity area's part for a request served from `content`.
    pub fn activities(&self, content: &Content) -> activities::Area {
        activities::Area { catalogue: content.activities.clone(), kept: self.activities.clone() }
    }
}
