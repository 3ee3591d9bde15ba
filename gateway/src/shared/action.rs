//! `ResStatus` (and a cancel's `CancelType`): `Quote` (or none) previews and stores nothing;
//! `Commit` applies. Any other value of the open list is refused (Type 3, Code 356) by every
//! operation alike.

use ota_messages::common::{ErrorCode, ResStatus};

use crate::errors::Problem;

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
                format!("ResStatus {:?} is not supported; use Quote (a preview that stores nothing) or Commit.", other.as_str()),
            )
            .at(tag)),
        }
    }

    /// The action of a cancel request's `CancelType` (required there: Quote or Commit).
    pub fn of_cancel(cancel_type: &ResStatus, tag: &str) -> Result<Action, Problem> {
        match cancel_type {
            ResStatus::Quote => Ok(Action::Quote),
            ResStatus::Commit => Ok(Action::Commit),
            other => Err(Problem::biz(ErrorCode::InvalidActionStatusCode, format!("CancelType {:?} is not supported; use Quote or Commit.", other.as_str())).at(tag)),
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
        let refused = Action::of(Some(&ResStatus::Hold), "/R/@ResStatus").unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidActionStatusCode);
        assert_eq!(refused.tag.as_deref(), Some("/R/@ResStatus"));
        assert_eq!(Action::of_cancel(&ResStatus::Commit, "/x"), Ok(Action::Commit));
        assert_eq!(Action::of_cancel(&ResStatus::Quote, "/x"), Ok(Action::Quote));
        assert_eq!(Action::of_cancel(&ResStatus::Hold, "/C/@CancelType").unwrap_err().tag.as_deref(), Some("/C/@CancelType"));
    }
}
