//! Where a bench keeps its database: `BENCH_DATABASE_URL` (an empty PostgreSQL database) when
//! set, else a new SQLite file in the bench's temporary directory.

use std::path::Path;

use ota_gateway::Location;

/// The bench's database: PostgreSQL at `BENCH_DATABASE_URL`, else `bench.db` in `dir`.
pub fn location(dir: &Path) -> Location {
    match std::env::var("BENCH_DATABASE_URL") {
        Ok(url) => Location::Postgres(url),
        Err(_) => Location::Sqlite(dir.join("bench.db")),
    }
}
