//! Cancellation policies and penalties, for hotel and activity bookings alike.
//!
//! A [`Policy`] is stated in the content: rules such as "25 % from 7 days before the start,
//! 100 % from 48 hours before". Booking something fixes it into [`Penalty`] values with
//! absolute deadlines (the start minus each rule's hours; no deadline: from the booking on),
//! kept with the booking, so that a later change of the content never changes what was sold.
//! What cancelling costs at a moment is the highest percentage whose deadline has passed, of
//! the price of what is cancelled ([`cost`]).
//!
//! Times are local date-times as the messages carry them (a hotel stay starts at 00:00 of its
//! arrival day, an activity at its session's start), compared with the gateway's clock in UTC.

use chrono::{Duration, NaiveDateTime};
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;

use crate::shared::values::de;

/// The most hours before the start a rule may count (one year).
pub const MAX_HOURS_BEFORE: u32 = 366 * 24;

/// The most rules a policy has.
pub const MAX_RULES: usize = 10;

/// The policy where the content states none: free until 48 hours before the start, then the
/// whole price.
pub const DEFAULT_FREE_HOURS: u32 = 48;

/// One rule of a policy: from `hours_before` the start on (or from the booking on, when
/// `None`), cancelling costs `percent` of the price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// How long before the start the rule applies; `None`: from the booking on.
    pub hours_before: Option<u32>,
    /// The share of the price charged, 0 to 100.
    pub percent: Decimal,
}

/// A cancellation policy: its rules, the earliest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    rules: Vec<Rule>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { rules: vec![Rule { hours_before: Some(DEFAULT_FREE_HOURS), percent: Decimal::ONE_HUNDRED }] }
    }
}

impl Policy {
    /// A policy of these rules (checked: percentages 0 to 100, hours at most
    /// [`MAX_HOURS_BEFORE`], no two rules from the same moment). No rule at all: free
    /// cancellation until the start.
    pub fn new(mut rules: Vec<Rule>) -> Result<Policy, String> {
        if rules.len() > MAX_RULES {
            return Err(format!("a cancellation policy has at most {MAX_RULES} rules, not {}", rules.len()));
        }
        for r in &rules {
            if r.percent.is_sign_negative() || r.percent > Decimal::ONE_HUNDRED {
                return Err(format!("a cancellation percentage is 0 to 100, not {}", r.percent));
            }
            if r.hours_before.is_some_and(|h| h > MAX_HOURS_BEFORE) {
                return Err(format!("a cancellation rule counts at most {MAX_HOURS_BEFORE} hours before the start"));
            }
        }
        // Earliest first: from the booking on, then the most hours before the start.
        rules.sort_by_key(|r| std::cmp::Reverse(r.hours_before.map_or(u64::MAX, u64::from)));
        if rules.windows(2).any(|w| w[0].hours_before == w[1].hours_before) {
            return Err("two cancellation rules apply from the same moment".into());
        }
        Ok(Policy { rules })
    }

    /// The rules, the earliest first.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The penalties of something starting at `start`: the rules with their deadlines.
    pub fn penalties(&self, start: NaiveDateTime) -> Vec<Penalty> {
        self.rules
            .iter()
            .map(|r| Penalty {
                deadline: r
                    .hours_before
                    .map(|h| start.checked_sub_signed(Duration::hours(i64::from(h))).unwrap_or(NaiveDateTime::MIN)),
                percent: r.percent,
            })
            .collect()
    }
}

/// A rule of a cancellation policy in an import file: `{"hours_before": 48, "percent": 100}`;
/// without `hours_before`, from the booking on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleInput {
    /// How long before the start the rule applies (absent: from the booking on).
    #[serde(default)]
    pub hours_before: Option<u32>,
    /// The share of the price charged, 0 to 100 (a number or a string).
    #[serde(deserialize_with = "de::percent")]
    pub percent: Decimal,
}

/// The policy an import file states: its rules, or [`Policy::default`] when it states none
/// (an empty list is a policy too: free until the start).
pub fn policy_of(input: Option<&[RuleInput]>) -> Result<Policy, String> {
    match input {
        None => Ok(Policy::default()),
        Some(rules) => {
            Policy::new(rules.iter().map(|r| Rule { hours_before: r.hours_before, percent: r.percent }).collect())
        }
    }
}

/// A penalty fixed for a booked item: from `deadline` on (or from the booking on), cancelling
/// costs `percent` of the item's price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Penalty {
    /// From when it applies; `None`: from the booking on.
    pub deadline: Option<NaiveDateTime>,
    /// The share of the price charged, 0 to 100.
    pub percent: Decimal,
}

impl Penalty {
    /// Whether the penalty applies at `at`.
    pub fn applies_at(&self, at: NaiveDateTime) -> bool {
        self.deadline.is_none_or(|d| d <= at)
    }
}

/// A cancelled item: when it was cancelled and what the cancellation cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancellation {
    /// When (local date-time, UTC clock).
    pub at: NaiveDateTime,
    /// The penalty charged, in the currency of the item's price.
    pub penalty: Decimal,
}

/// What cancelling costs: a percentage of the price and the amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cost {
    /// The share of the price charged, 0 to 100.
    pub percent: Decimal,
    /// The amount charged, in the currency of the price, rounded to cents.
    pub amount: Decimal,
}

/// An amount of money rounded to cents (half away from zero).
pub fn cents(amount: Decimal) -> Decimal {
    let mut a = amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    a.rescale(2);
    a
}

/// The share `percent` of `price`, rounded to cents.
pub fn share(price: Decimal, percent: Decimal) -> Decimal {
    cents(price * percent / Decimal::ONE_HUNDRED)
}

/// What cancelling an item of this price with these penalties costs at `at`: the highest
/// percentage in force.
pub fn cost(penalties: &[Penalty], price: Decimal, at: NaiveDateTime) -> Cost {
    let percent = penalties.iter().filter(|p| p.applies_at(at)).map(|p| p.percent).max().unwrap_or(Decimal::ZERO);
    Cost { percent, amount: share(price, percent) }
}

/// The share `amount` is of `price`, in percent rounded to two decimals (0 for a free item).
pub fn percent_of(amount: Decimal, price: Decimal) -> Decimal {
    if price.is_zero() {
        Decimal::ZERO
    } else {
        (amount * Decimal::ONE_HUNDRED / price)
            .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
            .normalize()
    }
}

/// The cost of several items cancelled together: the amounts added, the percentage of the
/// whole price (rounded to two decimals).
pub fn total_cost(parts: &[(Cost, Decimal)]) -> Cost {
    let amount: Decimal = parts.iter().map(|(c, _)| c.amount).sum();
    let price: Decimal = parts.iter().map(|(_, p)| *p).sum();
    let percent = if price.is_zero() {
        parts.iter().map(|(c, _)| c.percent).max().unwrap_or(Decimal::ZERO)
    } else {
        percent_of(amount, price)
    };
    Cost { percent, amount: cents(amount) }
}

/// What cancelling several items together costs from each of their deadlines on: one step
/// per distinct deadline (`None` first: from the booking on), the earliest first, each with
/// the cost of all items at that moment. Steps that cost what the one before did are left out.
pub fn steps(items: &[(&[Penalty], Decimal)]) -> Vec<(Option<NaiveDateTime>, Cost)> {
    let mut deadlines: Vec<Option<NaiveDateTime>> =
        items.iter().flat_map(|(p, _)| p.iter().map(|p| p.deadline)).collect();
    deadlines.sort();
    deadlines.dedup();
    let mut out: Vec<(Option<NaiveDateTime>, Cost)> = Vec::new();
    for deadline in deadlines {
        let at = deadline.unwrap_or(NaiveDateTime::MIN);
        let parts: Vec<(Cost, Decimal)> = items.iter().map(|(p, price)| (cost(p, *price, at), *price)).collect();
        let c = total_cost(&parts);
        if out.last().is_none_or(|(_, last)| last.amount != c.amount) {
            out.push((deadline, c));
        }
    }
    out
}

/// When cancelling stops being free: the earliest deadline of a penalty above 0 % (`None`:
/// never free, or free until the start when there is no such penalty; see [`is_refundable`]).
pub fn free_until(penalties: &[Penalty]) -> Option<NaiveDateTime> {
    penalties.iter().filter(|p| !p.percent.is_zero()).filter_map(|p| p.deadline).min()
}

/// Whether some cancellation is free: no penalty above 0 % applies from the booking on.
pub fn is_refundable(penalties: &[Penalty]) -> bool {
    !penalties.iter().any(|p| p.deadline.is_none() && !p.percent.is_zero())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        s.parse().unwrap()
    }

    fn pct(n: i64) -> Decimal {
        Decimal::new(n, 0)
    }

    #[test]
    fn the_highest_percentage_in_force_is_charged() {
        let policy = Policy::new(vec![
            Rule { hours_before: Some(48), percent: pct(100) },
            Rule { hours_before: Some(7 * 24), percent: pct(25) },
        ])
        .unwrap();
        let penalties = policy.penalties(t("2030-06-10T00:00:00"));
        assert_eq!(
            penalties[0],
            Penalty { deadline: Some(t("2030-06-03T00:00:00")), percent: pct(25) },
            "earliest first"
        );
        let price = Decimal::new(41050, 2);
        assert_eq!(
            cost(&penalties, price, t("2030-06-02T23:59:59")),
            Cost { percent: pct(0), amount: Decimal::new(0, 2) }
        );
        assert_eq!(
            cost(&penalties, price, t("2030-06-03T00:00:00")),
            Cost { percent: pct(25), amount: Decimal::new(10263, 2) },
            "102.625 rounds up"
        );
        assert_eq!(cost(&penalties, price, t("2030-06-08T00:00:00")).percent, pct(100));
        assert_eq!(free_until(&penalties), Some(t("2030-06-03T00:00:00")));
        assert!(is_refundable(&penalties));
    }

    #[test]
    fn a_rule_without_hours_applies_from_the_booking_on() {
        let policy = Policy::new(vec![Rule { hours_before: None, percent: pct(100) }]).unwrap();
        let penalties = policy.penalties(t("2030-06-10T00:00:00"));
        assert_eq!(cost(&penalties, pct(80), t("2000-01-01T00:00:00")).amount, Decimal::new(8000, 2));
        assert!(!is_refundable(&penalties));
        assert_eq!(free_until(&penalties), None);
    }

    #[test]
    fn the_default_is_free_until_48_hours_before() {
        let penalties = Policy::default().penalties(t("2030-06-10T09:00:00"));
        assert_eq!(penalties, vec![Penalty { deadline: Some(t("2030-06-08T09:00:00")), percent: pct(100) }]);
    }

    #[test]
    fn policies_are_checked() {
        assert!(Policy::new(vec![Rule { hours_before: Some(1), percent: pct(101) }]).is_err());
        assert!(Policy::new(vec![Rule { hours_before: Some(MAX_HOURS_BEFORE + 1), percent: pct(1) }]).is_err());
        assert!(
            Policy::new(vec![
                Rule { hours_before: Some(2), percent: pct(1) },
                Rule { hours_before: Some(2), percent: pct(5) }
            ])
            .is_err()
        );
        let free = Policy::new(vec![]).unwrap();
        assert_eq!(
            cost(&free.penalties(t("2030-01-01T00:00:00")), pct(50), t("2030-01-01T00:00:00")).amount,
            Decimal::ZERO
        );
    }

    #[test]
    fn steps_of_several_items() {
        let early = Policy::new(vec![Rule { hours_before: Some(48), percent: pct(100) }])
            .unwrap()
            .penalties(t("2030-06-10T00:00:00"));
        let late = Policy::new(vec![Rule { hours_before: Some(48), percent: pct(100) }])
            .unwrap()
            .penalties(t("2030-06-12T00:00:00"));
        let s = steps(&[(&early, pct(100)), (&late, pct(300))]);
        assert_eq!(
            s,
            vec![
                (Some(t("2030-06-08T00:00:00")), Cost { percent: pct(25), amount: Decimal::new(10000, 2) }),
                (Some(t("2030-06-10T00:00:00")), Cost { percent: pct(100), amount: Decimal::new(40000, 2) }),
            ]
        );
        assert!(steps(&[]).is_empty());
    }

    #[test]
    fn several_items_add_up() {
        let c = total_cost(&[
            (Cost { percent: pct(100), amount: Decimal::new(10000, 2) }, pct(100)),
            (Cost { percent: pct(0), amount: Decimal::ZERO }, pct(300)),
        ]);
        assert_eq!(c, Cost { percent: pct(25), amount: Decimal::new(10000, 2) });
    }
}
