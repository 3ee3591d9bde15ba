//! The SQL of cancellation policies (content) and of the penalties fixed into bookings, the
//! same for hotels and activities: each kind has its own tables, named here.

use chrono::NaiveDateTime;
use rust_decimal::Decimal;

use crate::shared::cancellation::{Penalty, Policy, Rule};
use crate::store::row;
use crate::store::{Conn, StoreError};

/// A table of cancellation rules and its owner column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleTable {
    table: &'static str,
    owner: &'static str,
}

/// The rules of hotels.
pub(crate) const HOTEL_RULES: RuleTable = RuleTable { table: "hotel_cancel_rule", owner: "hotel_code" };
/// The rules of activities.
pub(crate) const ACTIVITY_RULES: RuleTable = RuleTable { table: "activity_cancel_rule", owner: "activity_id" };

row! {
    /// A `hotel_cancel_rule` or `activity_cancel_rule` row.
    pub(crate) struct CancelRuleRow { owner: String, hours_before: Option<i64>, percent: Decimal }
}

/// Every stored rule of a table, by owner then position.
pub(crate) async fn load_rules(c: &mut Conn<'_>, t: RuleTable) -> Result<Vec<CancelRuleRow>, StoreError> {
    c.query(&format!("SELECT {}, hours_before, percent FROM {} ORDER BY {}, position", t.owner, t.table, t.owner), &[])
        .await
}

/// The policy of one owner (a hotel, an activity) as stored now.
pub(crate) async fn policy_of(c: &mut Conn<'_>, t: RuleTable, owner: &str) -> Result<Policy, StoreError> {
    let rows: Vec<CancelRuleRow> = c
        .query(
            &format!("SELECT {0}, hours_before, percent FROM {1} WHERE {0} = $1 ORDER BY position", t.owner, t.table),
            &[&owner],
        )
        .await?;
    policy(rows)
}

/// The policy of stored rules (of one owner).
pub(crate) fn policy(rows: Vec<CancelRuleRow>) -> Result<Policy, StoreError> {
    let rules = rows
        .into_iter()
        .map(|r| {
            let hours_before = r
                .hours_before
                .map(|h| u32::try_from(h).map_err(|_| StoreError::Data(format!("hours_before {h}"))))
                .transpose()?;
            Ok(Rule { hours_before, percent: r.percent })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    Policy::new(rules).map_err(StoreError::Data)
}

/// Stores the rules of an owner's policy, replacing the stored ones.
pub(crate) async fn save_policy(
    c: &mut Conn<'_>,
    t: RuleTable,
    owner: &str,
    policy: &Policy,
) -> Result<(), StoreError> {
    c.execute(&format!("DELETE FROM {} WHERE {} = $1", t.table, t.owner), &[&owner]).await?;
    for (pos, r) in policy.rules().iter().enumerate() {
        c.execute(
            &format!("INSERT INTO {} ({}, position, hours_before, percent) VALUES ($1, $2, $3, $4)", t.table, t.owner),
            &[&owner, &(pos as i64), &r.hours_before.map(i64::from), &r.percent],
        )
        .await?;
    }
    Ok(())
}

row! {
    /// A penalty row: its item (a room position, or 0 for an activity booking), deadline and percentage.
    pub(crate) struct PenaltyRow { item: i64, deadline: Option<NaiveDateTime>, percent: Decimal }
}

impl PenaltyRow {
    /// The penalty.
    pub(crate) fn penalty(&self) -> Penalty {
        Penalty { deadline: self.deadline, percent: self.percent }
    }
}
