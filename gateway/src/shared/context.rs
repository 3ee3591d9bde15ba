//! What every operation's handler gets and returns: the request's context ([`Ctx`]: the store,
//! the authenticated [`Requestor`], the time, the request's time limit) and [`OpError`], the
//! one error type of every operation, so that `?` works from the rules and the repo up to the
//! dispatch.

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, NaiveDateTime, Timelike, Utc};
use futures_util::future::BoxFuture;
use ota_messages::Dialect;

use crate::errors::Problem;
use crate::store::{Abandoned, Conn, Store, StoreError, Ticket};

/// An authenticated requestor: who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requestor {
    /// `RequestorID@ID`.
    pub id: String,
    /// The distributor context (`ID_Context` of the Type 22 source).
    pub id_context: String,
    /// The requestor's name.
    pub name: String,
    /// `Instance` of the Type 22 source (`PriceBreakdown`, `MF001`, `MF002`, …), if given.
    pub instance: Option<String>,
    /// The dialect its answers are written in (and, where the dialects differ on it, what its
    /// requests mean: a book request without `ResStatus`).
    pub dialect: Dialect,
    /// Its traffic limits (checked by [`crate::limits`] before the operation runs).
    pub limits: Limits,
    /// What it is to the gateway: a distribution partner or a hotel's system.
    pub role: Role,
}

impl Requestor {
    /// Whether its answers price each night (`Instance="PriceBreakdown"` on its Type 22 source).
    pub fn wants_price_breakdown(&self) -> bool {
        self.instance.as_deref() == Some("PriceBreakdown")
    }
}

/// What a requestor is to the gateway: which side of the market it calls from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Role {
    /// A distribution partner (the demand side): searches, books, modifies, cancels and reads
    /// its own bookings.
    #[default]
    Distributor,
    /// A hotel's system (a channel manager or PMS, the supply side): sends the supply
    /// notifications of the hotels it owns, and only those.
    Supplier {
        /// The codes of the hotels it owns (each hotel has at most one supplier).
        hotels: std::sync::Arc<std::collections::BTreeSet<String>>,
    },
}

impl Role {
    /// A supplier owning these hotels.
    pub fn supplier(hotels: impl IntoIterator<Item = String>) -> Role {
        Role::Supplier { hotels: std::sync::Arc::new(hotels.into_iter().collect()) }
    }

    /// Its stored name (`distributor`, `supplier`).
    pub fn kind(&self) -> &'static str {
        match self {
            Role::Distributor => "distributor",
            Role::Supplier { .. } => "supplier",
        }
    }

    /// True when it is a supplier owning this hotel.
    pub fn owns(&self, hotel: &str) -> bool {
        matches!(self, Role::Supplier { hotels } if hotels.contains(hotel))
    }

    /// True for a supplier.
    pub fn is_supplier(&self) -> bool {
        matches!(self, Role::Supplier { .. })
    }
}

/// A requestor's traffic limits; `None`: no limit. Each gateway enforces them on its own
/// (see `crate::limits`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// Requests per second (a burst of up to one second's worth is let through at once).
    pub rate: Option<u32>,
    /// Requests per second of one operation (its path without the slash, e.g.
    /// `hotelavailability`), on top of [`Limits::rate`]; sorted by operation.
    pub per_operation: Vec<(&'static str, u32)>,
    /// Requests per UTC day.
    pub daily_quota: Option<u32>,
}

/// An operation's name in a per-operation rate: its path without the slash
/// (`hotelavailability`), as `&'static str`; else the names there are.
pub fn operation_name(name: &str) -> Result<&'static str, String> {
    ota_messages::OPERATIONS.iter().map(|op| op.path.trim_start_matches('/')).find(|n| *n == name).ok_or_else(|| {
        let names: Vec<&str> = ota_messages::OPERATIONS.iter().map(|op| op.path.trim_start_matches('/')).collect();
        format!("{name:?} is not an operation: one of {}", names.join(", "))
    })
}

/// Per-operation rates as stored: `operation=N` pairs separated by `;` (empty: none).
pub fn parse_rates_for(text: &str) -> Result<Vec<(&'static str, u32)>, String> {
    let mut rates = Vec::new();
    for pair in text.split(';').filter(|p| !p.is_empty()) {
        let (op, n) = pair.split_once('=').ok_or_else(|| format!("{pair:?} is not operation=N"))?;
        let n = n
            .parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{pair:?}: the rate is not a number above 0"))?;
        rates.push((operation_name(op)?, n));
    }
    rates.sort_unstable();
    rates.dedup_by_key(|(op, _)| *op);
    Ok(rates)
}

/// Per-operation rates in their stored form (see [`parse_rates_for`]).
pub fn rates_for_text(rates: &[(&'static str, u32)]) -> String {
    rates.iter().map(|(op, n)| format!("{op}={n}")).collect::<Vec<_>>().join(";")
}

/// Why an operation did not answer with a success.
#[derive(Debug)]
pub enum OpError {
    /// The request is refused: one problem per thing wrong with it.
    Rejected(Vec<Problem>),
    /// The store failed.
    Store(StoreError),
    /// The request gave up before its write was carried out (nothing was stored).
    Abandoned,
}

impl From<Problem> for OpError {
    fn from(p: Problem) -> Self {
        OpError::Rejected(vec![p])
    }
}

impl From<Vec<Problem>> for OpError {
    fn from(p: Vec<Problem>) -> Self {
        OpError::Rejected(p)
    }
}

impl From<StoreError> for OpError {
    fn from(e: StoreError) -> Self {
        OpError::Store(e)
    }
}

impl From<Abandoned> for OpError {
    fn from(_: Abandoned) -> Self {
        OpError::Abandoned
    }
}

/// What an operation gets besides its request and its area's part of the gateway (its
/// catalogue, what it keeps in memory): the store, who is calling, when, and the request's
/// time limit.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The store.
    pub store: Store,
    /// The authenticated requestor.
    pub requestor: Requestor,
    /// When the request arrived (UTC); the operation's "now".
    pub now: DateTime<Utc>,
    /// The request id (in the logs too).
    pub request_id: String,
    /// Whether the request still waits for its write (see [`Ticket`]).
    pub ticket: Arc<Ticket>,
    /// When the request gives up.
    pub deadline: Option<Instant>,
}

/// `utc` as a local time of a place in `zone`, in whole seconds: what the times of a hotel or
/// an activity (check-ins, sessions, cancellation deadlines) are compared with.
pub fn now_in(zone: chrono_tz::Tz, utc: DateTime<Utc>) -> NaiveDateTime {
    let local = utc.with_timezone(&zone).naive_local();
    local.with_nanosecond(0).unwrap_or(local)
}

impl Ctx {
    /// Now as a date-time of whole seconds in UTC (what is stored as a booking's creation and
    /// change times; a place's own local time is [`now_in`] its zone).
    pub fn local_now(&self) -> NaiveDateTime {
        now_in(chrono_tz::UTC, self.now)
    }

    /// Runs `f` in a read transaction of the store.
    pub async fn read<T, F>(&self, f: F) -> Result<T, OpError>
    where
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, OpError>>,
    {
        self.store.read(f).await
    }

    /// Runs one statement outside any transaction (see [`Store::peek`]).
    pub async fn peek<T, F>(&self, f: F) -> Result<T, OpError>
    where
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, OpError>>,
    {
        self.store.peek(f).await
    }

    /// Runs `f` in a write transaction, committed unless the request gave up before (see
    /// [`Store::write`]); an error of `f` rolls it back.
    pub async fn write<T, F>(&self, f: F) -> Result<T, OpError>
    where
        T: Send + 'static,
        F: for<'a, 'c> FnOnce(&'a mut Conn<'c>) -> BoxFuture<'a, Result<T, OpError>> + Send + 'static,
    {
        self.store.write(&self.ticket, self.deadline, f).await
    }
}
