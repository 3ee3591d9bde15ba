//! Values and rows of both backends: [`Param`] binds a Rust value to a statement, [`Column`]
//! reads one back, each in the backend's own representation (SQLite: text dates and decimals,
//! 0/1 booleans; PostgreSQL: `date`, `timestamp`, `timestamptz`, `numeric`, `boolean`); a
//! result row is read into a named struct with [`row!`](crate::store::row), its fields in order
//! being the statement's columns.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike, Utc};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rust_decimal::Decimal;
use tokio_postgres::types::{ToSql, Type};

use super::StoreError;

/// A row of a result, read by column index.
pub enum Row<'r> {
    /// A SQLite row.
    Sqlite(&'r rusqlite::Row<'r>),
    /// A PostgreSQL row.
    Postgres(&'r tokio_postgres::Row),
}

/// A value that can be bound to a statement parameter on both backends.
pub trait Param: Sync {
    /// The SQLite value.
    fn to_sqlite(&self) -> ToSqlOutput<'_>;
    /// The PostgreSQL value.
    fn to_postgres(&self) -> &(dyn ToSql + Sync);
    /// Its PostgreSQL type, sent with an unnamed statement (the server then infers nothing).
    fn postgres_type(&self) -> Type;
}

/// The PostgreSQL type of a parameter's Rust type (what an absent value, `None`, is sent as).
pub trait PostgresType {
    /// The type.
    const TYPE: Type;
}

/// A value that can be read from a result column on both backends.
pub trait Column: Sized {
    /// From a SQLite value.
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String>;
    /// From column `i` of a PostgreSQL row.
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String>;
}

/// A struct read from a result row (see [`row!`](crate::store::row)).
pub trait FromRow: Sized {
    /// Reads the row.
    fn from_row(row: &Row<'_>) -> Result<Self, StoreError>;
}

impl Row<'_> {
    /// The value of column `i`.
    pub fn get<T: Column>(&self, i: usize) -> Result<T, StoreError> {
        let out = match self {
            Row::Sqlite(r) => r.get_ref(i).map_err(|e| e.to_string()).and_then(T::from_sqlite),
            Row::Postgres(r) => T::from_postgres(r, i),
        };
        out.map_err(|e| StoreError::Data(format!("column {i}: {e}")))
    }
}

/// The macro behind [`row!`]: exported at the crate root because `macro_rules!` must be, named
/// by its path `store::row` everywhere.
#[doc(hidden)]
#[macro_export]
macro_rules! __store_row {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone)]
        $vis struct $name { $($(#[$fmeta])* pub $field: $ty),* }

        impl $crate::store::FromRow for $name {
            #[allow(unused_assignments)]
            fn from_row(row: &$crate::store::Row<'_>) -> Result<Self, $crate::store::StoreError> {
                let mut i = 0usize;
                $(let $field: $ty = row.get(i)?; i += 1;)*
                Ok($name { $($field),* })
            }
        }
    };
}

/// Declares a struct read from a row, its fields being the statement's columns in order.
///
/// ```ignore
/// row! {
///     /// A service of a product.
///     pub(crate) struct ServiceRow { code: String, capacity: i64, currency: String }
/// }
/// let rows: Vec<ServiceRow> = conn.query(SERVICES, &[&product_id]).await?;
/// ```
#[doc(inline)]
pub use __store_row as row;

/// Rows grouped by a key (a parent's id), each group in the rows' order: how a repo hands the
/// rows of a child table to their parents.
pub fn group<K: std::hash::Hash + Eq, R>(rows: Vec<R>, key: impl Fn(&R) -> K) -> std::collections::HashMap<K, Vec<R>> {
    let mut out: std::collections::HashMap<K, Vec<R>> = std::collections::HashMap::new();
    for r in rows {
        out.entry(key(&r)).or_default().push(r);
    }
    out
}

/// One column read as itself (for `SELECT count(*)` and the like).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scalar<T>(pub T);

impl<T: Column> FromRow for Scalar<T> {
    fn from_row(row: &Row<'_>) -> Result<Self, StoreError> {
        row.get(0).map(Scalar)
    }
}

// ---------------------------------------------------------------------------------------------
// Parameters

/// The stored text of a date (`YYYY-MM-DD`).
pub fn date_text(d: NaiveDate) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
}

/// The stored text of a local date-time (`YYYY-MM-DDThh:mm:ss`, whole seconds).
pub fn date_time_text(d: NaiveDateTime) -> String {
    format!("{}T{:02}:{:02}:{:02}", date_text(d.date()), d.hour(), d.minute(), d.second())
}

/// The stored text of a UTC instant (`YYYY-MM-DDThh:mm:ssZ`, whole seconds).
pub fn instant_text(d: DateTime<Utc>) -> String {
    format!("{}Z", date_time_text(d.naive_utc()))
}

/// A time kept as milliseconds since 1970 (UTC), as shown: an RFC 3339 instant with
/// milliseconds (`2026-11-28T13:50:00.123Z`); the number itself when out of range.
pub fn millis_text(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map_or_else(|| ms.to_string(), |t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
}

/// The stored text of a time of day (`hh:mm`).
pub fn time_text(t: NaiveTime) -> String {
    format!("{:02}:{:02}", t.hour(), t.minute())
}

impl Param for i64 {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Integer(*self))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for i64 {
    const TYPE: Type = Type::INT8;
}

impl Param for bool {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Integer(i64::from(*self)))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for bool {
    const TYPE: Type = Type::BOOL;
}

impl Param for String {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Borrowed(ValueRef::Text(self.as_bytes()))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for String {
    const TYPE: Type = Type::TEXT;
}

impl Param for &str {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Borrowed(ValueRef::Text(self.as_bytes()))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for &str {
    const TYPE: Type = Type::TEXT;
}

impl Param for NaiveDate {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(date_text(*self)))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for NaiveDate {
    const TYPE: Type = Type::DATE;
}

impl Param for NaiveDateTime {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(date_time_text(*self)))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for NaiveDateTime {
    const TYPE: Type = Type::TIMESTAMP;
}

impl Param for NaiveTime {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(time_text(*self)))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for NaiveTime {
    const TYPE: Type = Type::TIME;
}

impl Param for DateTime<Utc> {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(instant_text(*self)))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for DateTime<Utc> {
    const TYPE: Type = Type::TIMESTAMPTZ;
}

impl Param for Decimal {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        ToSqlOutput::Owned(Value::Text(self.to_string()))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        Self::TYPE
    }
}

impl PostgresType for Decimal {
    const TYPE: Type = Type::NUMERIC;
}

impl<T: Param + ToSql + PostgresType> Param for Option<T> {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        match self {
            Some(v) => v.to_sqlite(),
            None => ToSqlOutput::Owned(Value::Null),
        }
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        T::TYPE
    }
}

/// A value that can be an element of an array parameter (see the `Param` of `Vec`).
pub trait ArrayElement: ToSql + Sync {
    /// The PostgreSQL type of an array of it.
    const ARRAY: Type;
    /// Its text in the JSON array SQLite is given (`None`: `null`).
    fn text(&self) -> Option<String>;
}

macro_rules! array_element {
    ($($t:ty => $array:expr),* $(,)?) => {$(
        impl ArrayElement for $t {
            const ARRAY: Type = $array;
            fn text(&self) -> Option<String> {
                Some(self.to_string())
            }
        }
    )*};
}
array_element!(String => Type::TEXT_ARRAY, NaiveDate => Type::DATE_ARRAY, i64 => Type::INT8_ARRAY, Decimal => Type::NUMERIC_ARRAY);

impl<T: ArrayElement> ArrayElement for Option<T> {
    const ARRAY: Type = T::ARRAY;
    fn text(&self) -> Option<String> {
        self.as_ref().and_then(ArrayElement::text)
    }
}

/// An array parameter, for set-based statements on PostgreSQL (`UNNEST($1::text[], …)`); SQLite
/// is given a JSON array of the values' texts (for `json_each`).
impl<T: ArrayElement> Param for Vec<T> {
    fn to_sqlite(&self) -> ToSqlOutput<'_> {
        let texts: Vec<Option<String>> = self.iter().map(ArrayElement::text).collect();
        ToSqlOutput::Owned(Value::Text(serde_json::to_string(&texts).unwrap_or_default()))
    }
    fn to_postgres(&self) -> &(dyn ToSql + Sync) {
        self
    }
    fn postgres_type(&self) -> Type {
        T::ARRAY
    }
}

// ---------------------------------------------------------------------------------------------
// Columns

fn sqlite_text<'v>(v: ValueRef<'v>, what: &str) -> Result<&'v str, String> {
    match v {
        ValueRef::Text(t) => std::str::from_utf8(t).map_err(|_| format!("{what}: not UTF-8")),
        other => Err(format!("{what}: expected text, found {:?}", other.data_type())),
    }
}

fn pg<T: for<'a> tokio_postgres::types::FromSql<'a>>(row: &tokio_postgres::Row, i: usize) -> Result<T, String> {
    row.try_get(i).map_err(|e| e.to_string())
}

impl Column for i64 {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        v.as_i64().map_err(|e| e.to_string())
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for bool {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        match v.as_i64().map_err(|e| e.to_string())? {
            0 => Ok(false),
            1 => Ok(true),
            n => Err(format!("{n} is not a boolean")),
        }
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for String {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        sqlite_text(v, "string").map(str::to_string)
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for NaiveDate {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        let t = sqlite_text(v, "date")?;
        NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|e| format!("date {t:?}: {e}"))
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for NaiveDateTime {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        let t = sqlite_text(v, "date-time")?;
        NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S").map_err(|e| format!("date-time {t:?}: {e}"))
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for NaiveTime {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        let t = sqlite_text(v, "time")?;
        NaiveTime::parse_from_str(t, "%H:%M").map_err(|e| format!("time {t:?}: {e}"))
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for DateTime<Utc> {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        let t = sqlite_text(v, "instant")?;
        NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%SZ")
            .map(|d| d.and_utc())
            .map_err(|e| format!("instant {t:?}: {e}"))
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl Column for Decimal {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        match v {
            ValueRef::Integer(n) => Ok(Decimal::from(n)),
            other => {
                let t = sqlite_text(other, "decimal")?;
                Decimal::from_str_exact(t).map_err(|e| format!("decimal {t:?}: {e}"))
            }
        }
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        pg(row, i)
    }
}

impl<T: Column> Column for Option<T> {
    fn from_sqlite(v: ValueRef<'_>) -> Result<Self, String> {
        match v {
            ValueRef::Null => Ok(None),
            v => T::from_sqlite(v).map(Some),
        }
    }
    fn from_postgres(row: &tokio_postgres::Row, i: usize) -> Result<Self, String> {
        // NULL is told from a value by the raw column, then the value is read as `T`.
        let raw: Option<RawValue> = pg(row, i)?;
        match raw {
            None => Ok(None),
            Some(_) => T::from_postgres(row, i).map(Some),
        }
    }
}

/// Any non-NULL PostgreSQL value, unread (only used to tell NULL apart).
struct RawValue;

impl<'a> tokio_postgres::types::FromSql<'a> for RawValue {
    fn from_sql(
        _: &tokio_postgres::types::Type,
        _: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue)
    }
    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn stored_texts_of_dates_and_times() {
        let d = NaiveDate::from_ymd_opt(2030, 7, 1).unwrap();
        assert_eq!(date_text(d), "2030-07-01");
        assert_eq!(date_time_text(d.and_hms_opt(8, 5, 9).unwrap()), "2030-07-01T08:05:09");
        assert_eq!(instant_text(d.and_hms_opt(23, 0, 0).unwrap().and_utc()), "2030-07-01T23:00:00Z");
        assert_eq!(time_text(NaiveTime::from_hms_opt(7, 30, 0).unwrap()), "07:30");
    }
}
