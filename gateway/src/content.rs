//! The static content in memory: requestors, activities, hotels (with their rates). Every
//! operation reads it from a [`Content`] snapshot instead of the database; only places,
//! bookings and their changes go to the store.
//!
//! The snapshot is replaced whole ([`ContentCache`], an `ArcSwap`): after an import in this
//! process at once, and on every instance when the store's content version changes — each
//! gateway polls `content_version` (a one-row read) every [`REFRESH_EVERY`], so an import made
//! on another instance or with `ota-gateway import` is served within a second. A request keeps
//! the snapshot it started with.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;

use crate::store::{Scalar, Store, StoreError, row};
use crate::{activities, hotels, requestors};

/// How often each gateway looks for a new content version.
pub const REFRESH_EVERY: Duration = Duration::from_millis(250);

row! {
    /// The content's and the requestors' versions.
    struct Versions { content: i64, requestors: i64 }
}

/// One consistent snapshot of the static content.
#[derive(Debug)]
pub struct Content {
    /// The content version it was read at.
    pub version: i64,
    /// The requestors' version it was read at (see [`ContentCache::refresh`]).
    pub requestors_version: i64,
    /// When it was read.
    pub loaded_at: Instant,
    /// The requestors.
    pub requestors: requestors::Directory,
    /// The activity catalogue.
    pub activities: Arc<activities::catalogue::Catalogue>,
    /// The hotels, rates and boards.
    pub hotels: Arc<hotels::catalogue::Catalogue>,
}

impl Content {
    /// Reads the whole content in one read transaction.
    pub async fn load(store: &Store) -> Result<Content, StoreError> {
        store
            .read(|c| {
                Box::pin(async move {
                    let versions: Versions = c
                        .query_one("SELECT version, requestors_version FROM content_version WHERE id = 1", &[])
                        .await?;
                    let requestors = requestors::Directory::new(requestors::repo::load_all(c).await?);
                    let activities = activities::repo::catalogue::load_catalogue(c).await?;
                    let hotels = hotels::repo::catalogue::load_catalogue(c).await?;
                    Ok(Content {
                        version: versions.content,
                        requestors_version: versions.requestors,
                        loaded_at: Instant::now(),
                        requestors,
                        activities: Arc::new(activities),
                        hotels: Arc::new(hotels),
                    })
                })
            })
            .await
    }
}

/// The current content snapshot of a gateway, refreshed when the store's version changes.
#[derive(Debug)]
pub struct ContentCache {
    store: Store,
    current: ArcSwap<Content>,
    /// When the snapshot was last found current (loaded, or its version checked).
    confirmed: Mutex<Instant>,
}

impl ContentCache {
    /// Loads the content of the store.
    pub async fn load(store: Store) -> Result<Arc<ContentCache>, StoreError> {
        let content = Content::load(&store).await?;
        Ok(Arc::new(ContentCache {
            store,
            current: ArcSwap::from_pointee(content),
            confirmed: Mutex::new(Instant::now()),
        }))
    }

    /// The current snapshot.
    pub fn get(&self) -> Arc<Content> {
        self.current.load_full()
    }

    /// How long ago the snapshot was last found current (grows while refreshing fails).
    pub fn confirmed_age(&self) -> Duration {
        self.confirmed.lock().map(|at| at.elapsed()).unwrap_or_default()
    }

    fn confirm(&self, at: Instant) {
        if let Ok(mut c) = self.confirmed.lock() {
            *c = at;
        }
    }

    /// Reloads the content when the store's version differs from the snapshot's; else only the
    /// requestors when theirs does (a requestor change costs each gateway the requestors'
    /// reload, not the catalogue's), and only what suppliers changed when the supply's does (a
    /// notification costs each gateway what it changed); once a day, drops the supply values of
    /// past nights ([`hotels::first_kept_night`]). True when it changed anything.
    pub async fn refresh(&self) -> Result<bool, StoreError> {
        let asked = Instant::now();
        let versions = self.store.content_versions().await?;
        let current = self.current.load_full();
        if versions.content != current.version {
            let content = Content::load(&self.store).await?;
            tracing::info!(version = content.version, "content reloaded");
            self.current.store(Arc::new(content));
            self.confirm(asked);
            return Ok(true);
        }
        // Past nights' supply values are dropped once a day (when the first night kept moves).
        let first_kept = hotels::first_kept_night(chrono::Utc::now());
        // What suppliers changed: read when the position moved (SQLite), or on every poll where
        // the store does not say (PostgreSQL: an index range scan, empty when nothing changed).
        let supply = if versions.supply.is_none_or(|position| position != current.hotels.supply_position.below) {
            hotels::supply_changes(&self.store, &current.hotels).await?
        } else {
            None
        };
        if versions.requestors == current.requestors_version
            && supply.is_none()
            && current.hotels.supply_from >= first_kept
        {
            self.confirm(asked);
            return Ok(false);
        }
        let (requestors_version, requestors) = if versions.requestors != current.requestors_version {
            let (version, directory) = self
                .store
                .read(|c| {
                    Box::pin(async move {
                        let Scalar(version) =
                            c.query_one("SELECT requestors_version FROM content_version WHERE id = 1", &[]).await?;
                        Ok::<_, StoreError>((version, requestors::Directory::new(requestors::repo::load_all(c).await?)))
                    })
                })
                .await?;
            tracing::info!(requestors_version = version, "requestors reloaded");
            (version, directory)
        } else {
            (current.requestors_version, current.requestors.clone())
        };
        let mut hotels = supply.map_or_else(|| current.hotels.clone(), Arc::new);
        if hotels.supply_from < first_kept {
            hotels = Arc::new(hotels.dropping_supply_before(first_kept));
        }
        self.current.store(Arc::new(Content {
            version: current.version,
            requestors_version,
            loaded_at: Instant::now(),
            requestors,
            activities: current.activities.clone(),
            hotels,
        }));
        self.confirm(asked);
        Ok(true)
    }

    /// Polls for new content every [`REFRESH_EVERY`] until the cache is dropped elsewhere.
    pub fn spawn_refresher(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(REFRESH_EVERY);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut failing = false;
            loop {
                ticks.tick().await;
                let Some(cache) = weak.upgrade() else { return };
                match cache.refresh().await {
                    Ok(_) if failing => {
                        failing = false;
                        tracing::info!("content refresh works again");
                    }
                    Ok(_) => {}
                    Err(e) if !failing => {
                        crate::metrics::db_error();
                        failing = true;
                        tracing::warn!(error = %e, "content refresh failed; serving the content loaded before");
                    }
                    Err(_) => crate::metrics::db_error(),
                }
            }
        })
    }
}
