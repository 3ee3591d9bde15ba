//! The console's static files, built into the binary and served from memory (no CDN): htmx
//! 2.0.4 (`assets/htmx.min.js`, from the npm registry's `htmx.org` package, BSD Zero Clause
//! License: `assets/htmx.LICENSE`) and the style sheet.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

use super::ConsoleState;

/// htmx, as published (2.0.4).
pub const HTMX: &str = include_str!("assets/htmx.min.js");

/// The console's style sheet.
pub const CSS: &str = include_str!("assets/console.css");

/// An hour in caches: the files change only with the binary.
const CACHE: &str = "public, max-age=3600";

/// `GET /assets/htmx.min.js` and `GET /assets/console.css`.
pub fn routes() -> Router<ConsoleState> {
    Router::new()
        .route(
            "/assets/htmx.min.js",
            get(|| async {
                ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8"), (header::CACHE_CONTROL, CACHE)], HTMX)
                    .into_response()
            }),
        )
        .route(
            "/assets/console.css",
            get(|| async {
                ([(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, CACHE)], CSS)
                    .into_response()
            }),
        )
}
