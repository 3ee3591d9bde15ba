//! A cancellation → `OTA_CancelRS`.

use ota_messages::booking_read::ReservationUniqueId;
use ota_messages::cancel::{CancelInfo, CancelRule, CancelRuleType, CancelRules, OtaCancelRs, TransactionStatus};
use ota_messages::common::{CompanyName, IdContext, ReservationIdCode};
use ota_messages::runtime as rt;

use super::rules::{Cancellable, Outcome};
use crate::requestors::Requestor;

/// The answer: `Pending` for a Quote, `Committed` after a Commit; the item's reference when
/// one item was named (`item`: as the request gave it), the booking's Internal and Client
/// references (the Client one with the requestor as `CompanyName`), and the charge.
pub fn cancel_rs(
    b: &Cancellable,
    o: &Outcome,
    item: Option<(&str, IdContext)>,
    requestor: &Requestor,
    commit: bool,
) -> OtaCancelRs {
    let mut unique_id = Vec::new();
    if let Some((id, id_context)) = item {
        unique_id.push(ReservationUniqueId {
            r#type: ReservationIdCode::Item,
            id: id.to_string(),
            id_context,
            company_name: None,
        });
    }
    unique_id.push(ReservationUniqueId {
        r#type: ReservationIdCode::Booking,
        id: b.internal.clone(),
        id_context: IdContext::Internal,
        company_name: None,
    });
    if !b.client.is_empty() {
        unique_id.push(ReservationUniqueId {
            r#type: ReservationIdCode::Booking,
            id: b.client.clone(),
            id_context: IdContext::Client,
            company_name: Some(CompanyName {
                company_short_name: None,
                code: Some(requestor.id.clone()),
                value: requestor.name.clone(),
                travel_sector: None,
            }),
        });
    }
    let rule = CancelRule {
        cancel_by_date: Some(rt::DateTime { local: o.at, zone: Some(rt::Zone::Utc), fraction_digits: 0 }),
        currency_code: Some(b.currency.clone()),
        amount: Some(rt::Decimal(o.cost.amount)),
        percent: Some(rt::Decimal(o.cost.percent.normalize())),
        r#type: Some(CancelRuleType::Charge),
    };
    OtaCancelRs {
        status: if commit { TransactionStatus::Committed } else { TransactionStatus::Pending },
        unique_id,
        cancel_info_rs: Some(CancelInfo { cancel_rules: Some(CancelRules { cancel_rule: vec![rule] }) }),
        ..OtaCancelRs::success()
    }
}
