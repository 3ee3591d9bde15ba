//! `ResStatus` (and a cancel's `CancelType`): `Quote` (or none) previews and stores nothing;
//! `Commit` applies. Any other value of the open list is refused (Type 3, Code 356) by every
//! operation alike. A book or modify request without `ResStatus` means what the requestor's
//! dialect says (see [`Action::of_request`]).

use ota_messages::Dialect;
use ota_messages::common::{ErrorCode, ErrorWarningType, ResStatus};

use crate::errors::Problem;

/// What a request without `ResStatus` would store (see [`Action::of_request`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// A new booking.
    Booking,
    /// A change to a booking.
    Change,
}

/// What a booking or a change asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Price and check; store nothing.
    Quote,
    /// Price, check and store.
    Commit,
}

impl Action {
    /// The action of a request's `ResStatus` (`tag`: the attribute's XPath).
    pub fn of(status: Option<&ResStatus>, tag: &str) -> Result<Action, Problem> {
        match status {
            None | Some(ResStatus::Quote) => Ok(Action::Quote),
            Some(ResStatus::Commit) => Ok(Action::Commit),
            Some(other) => Err(Problem::biz(
                ErrorCode::InvalidActionStatusCode,
                format!(
                    "ResStatus {:?} is not supported; use Quote (a preview that stores nothing) or Commit.",
                    other.as_str()
                ),
            )
            .at(tag)),
        }
    }

    /// The action of a book or modify request (`tag`: its `ResStatus` attribute's XPath) and,
    /// when it stores nothing although the client may think it did, the warning that says so.
    /// With a `ResStatus`, as [`Action::of`]. Without one, by the requestor's dialect: on
    /// `ota2016b`, whose messages do not need a Quote first (`OTA_TourActivityBookRQ` has no
    /// `ResStatus` at all), the request applies (a Commit: a booking once per Client reference);
    /// on `service` it stays the Quote of the service description, and the answer warns that
    /// nothing was stored, so a Success is never taken for a booking or a change.
    pub fn of_request(
        status: Option<&ResStatus>,
        dialect: Dialect,
        tag: &str,
        kind: Asked,
    ) -> Result<(Action, Option<Problem>), Problem> {
        let (done, verb) = match kind {
            Asked::Booking => ("nothing was booked", "book"),
            Asked::Change => ("nothing was changed", "apply the change"),
        };
        match (status, dialect) {
            (Some(status), _) => Action::of(Some(status), tag).map(|a| (a, None)),
            (None, Dialect::Ota2016b) => Ok((Action::Commit, None)),
            (None, Dialect::Service) => Ok((
                Action::Quote,
                Some(
                    Problem::new(
                        ErrorWarningType::Advisory,
                        ErrorCode::InvalidActionStatusCode,
                        format!("No ResStatus: this is a Quote, and {done}. Send ResStatus=\"Commit\" to {verb}."),
                    )
                    .at(tag),
                ),
            )),
        }
    }

    /// The action of a cancel request's `CancelType` (required there): Quote or OpenTravel's Initiate (what cancelling would cost), Commit or its one-phase Cancel.
    pub fn of_cancel(cancel_type: &ResStatus, tag: &str) -> Result<Action, Problem> {
        match cancel_type {
            ResStatus::Quote => Ok(Action::Quote),
            ResStatus::Commit => Ok(Action::Commit),
            // OpenTravel's two-phase cancel: Initiate asks what it would cost (the answer is
            // Pending), Commit carries it out; its one-phase Cancel carries it out at once.
            other if other.as_str() == "Initiate" => Ok(Action::Quote),
            other if other.as_str() == "Cancel" => Ok(Action::Commit),
            other => Err(Problem::biz(
                ErrorCode::InvalidActionStatusCode,
                format!("CancelType {:?} is not supported; use Quote (or Initiate) to see the penalty, Commit (or Cancel) to cancel.", other.as_str()),
            )
            .at(tag)),
        }
    }

    /// True for a Commit.
    pub fn commits(self) -> bool {
        self == Action::Commit
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn quote_commit_and_the_rest() {
        assert_eq!(Action::of(None, "/x"), Ok(Action::Quote));
        assert_eq!(Action::of(Some(&ResStatus::Quote), "/x"), Ok(Action::Quote));
        assert_eq!(Action::of(Some(&ResStatus::Commit), "/x"), Ok(Action::Commit));
        let other = |s: &str| s.parse::<ResStatus>().unwrap();
        assert_eq!(Action::of_cancel(&other("Initiate"), "/x"), Ok(Action::Quote));
        assert_eq!(Action::of_cancel(&other("Cancel"), "/x"), Ok(Action::Commit));
        assert!(Action::of_cancel(&other("Ignore"), "/x").is_err());
        let refused = Action::of(Some(&ResStatus::Hold), "/R/@ResStatus").unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidActionStatusCode);
        assert_eq!(refused.tag.as_deref(), Some("/R/@ResStatus"));
        assert_eq!(Action::of_cancel(&ResStatus::Commit, "/x"), Ok(Action::Commit));
        // A book request without ResStatus: what the dialect says, never a silent Quote.
        assert_eq!(Action::of_request(None, Dialect::Ota2016b, "/x", Asked::Booking), Ok((Action::Commit, None)));
        let (quote, warning) = Action::of_request(None, Dialect::Service, "/R/@ResStatus", Asked::Booking).unwrap();
        assert_eq!(quote, Action::Quote);
        let warning = warning.unwrap();
        assert!(warning.text.contains("nothing was booked"), "{warning:?}");
        assert_eq!(warning.tag.as_deref(), Some("/R/@ResStatus"));
        for d in Dialect::ALL {
            assert_eq!(Action::of_request(Some(&ResStatus::Quote), *d, "/x", Asked::Change), Ok((Action::Quote, None)));
            assert_eq!(
                Action::of_request(Some(&ResStatus::Commit), *d, "/x", Asked::Change),
                Ok((Action::Commit, None))
            );
            assert!(Action::of_request(Some(&ResStatus::Hold), *d, "/x", Asked::Booking).is_err());
        }
        assert_eq!(Action::of_cancel(&ResStatus::Quote, "/x"), Ok(Action::Quote));
        assert_eq!(
            Action::of_cancel(&ResStatus::Hold, "/C/@CancelType").unwrap_err().tag.as_deref(),
            Some("/C/@CancelType")
        );
    }
}
