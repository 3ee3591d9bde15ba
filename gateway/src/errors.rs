//! OTA error and warning answers: the `Errors/Error` envelope with EWT type, ERR code, short
//! text (at most 64 characters), the offending node's path in `Tag`, and a description.

use ota_messages::common::Error as OtaError;
use ota_messages::common::{ErrorCode, ErrorStatus, ErrorWarningType, Errors, Warning, Warnings};

/// One problem to report to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The EWT type (1 Unknown … 13 Application error).
    pub kind: ErrorWarningType,
    /// The ERR code.
    pub code: ErrorCode,
    /// The description (element text).
    pub text: String,
    /// The XPath of the offending node, if known.
    pub tag: Option<String>,
    /// What became of the request: `NotProcessed` for every refusal and failure, except where
    /// the gateway cannot know whether a change was stored (`Unknown`, see
    /// [`Problem::outcome_unknown`]).
    pub status: ErrorStatus,
}

impl Problem {
    /// A problem of a given type and code.
    pub fn new(kind: ErrorWarningType, code: ErrorCode, text: impl Into<String>) -> Self {
        Problem { kind, code, text: text.into(), tag: None, status: ErrorStatus::NotProcessed }
    }

    /// A business-rule error (Type 3).
    pub fn biz(code: ErrorCode, text: impl Into<String>) -> Self {
        Problem::new(ErrorWarningType::BizRule, code, text)
    }

    /// An advisory (Type 11), answered as a warning next to a success.
    pub fn advisory(code: ErrorCode, text: impl Into<String>) -> Self {
        Problem::new(ErrorWarningType::Advisory, code, text)
    }

    /// A request the service does not carry out, though it is well formed (Type 2, "no
    /// implementation", Code 450): what it asks would change the outcome if ignored.
    pub fn not_supported(text: impl Into<String>) -> Self {
        Problem::new(ErrorWarningType::NoImplementation, ErrorCode::UnableToProcess, text)
    }

    /// An authentication failure (Type 4, Code 497). Says nothing about which part was wrong.
    pub fn authentication() -> Self {
        Problem::new(
            ErrorWarningType::Authentication,
            ErrorCode::AuthorizationError,
            "Authentication failed: the POS credentials are not valid.",
        )
    }

    /// A protocol violation (Type 7), e.g. a wrong `Version` or a malformed request.
    pub fn protocol(code: ErrorCode, text: impl Into<String>) -> Self {
        Problem::new(ErrorWarningType::ProtocolViolation, code, text)
    }

    /// A required field is missing (Type 10, Code 321).
    pub fn required(text: impl Into<String>) -> Self {
        Problem::new(ErrorWarningType::RequiredFieldMissing, ErrorCode::RequiredFieldMissing, text)
    }

    /// An internal failure (Type 12, Code 448); the details stay in the logs.
    pub fn system() -> Self {
        Problem::new(
            ErrorWarningType::ProcessingException,
            ErrorCode::SystemError,
            "The request could not be processed; please retry later.",
        )
    }

    /// A request that did not complete within its time limit (Type 12, Code 450); nothing it
    /// asked for was stored.
    pub fn not_processed_in_time() -> Self {
        Problem::new(
            ErrorWarningType::ProcessingException,
            ErrorCode::UnableToProcess,
            "The request was not completed within the time limit; nothing was changed.",
        )
    }

    /// A write whose outcome the gateway does not know: its commit was sent and no answer came
    /// back (the connection to the database broke). It may have been stored; the answer says so
    /// (Type 12, Code 448, `Status="Unknown"`) and never "not processed". Repeating it is safe:
    /// a booking Commit with the same Client reference answers the booking if it was stored,
    /// a cancel Commit answers the first outcome, a modify built on the old version is refused.
    pub fn outcome_unknown() -> Self {
        Problem {
            status: ErrorStatus::Unknown,
            ..Problem::new(
                ErrorWarningType::ProcessingException,
                ErrorCode::SystemError,
                "The outcome is not known: the change may have been stored. Read the booking, or repeat the request with the same Client reference, to learn it.",
            )
        }
    }

    /// Sets the XPath of the offending node.
    pub fn at(mut self, tag: impl Into<String>) -> Self {
        self.tag = Some(tag.into());
        self
    }
}

/// The standard short text of a code (1–64 characters).
fn short_text(code: &ErrorCode) -> String {
    let text = match code {
        ErrorCode::Other(c) => format!("Error {c}"),
        known => {
            // The variant name spelled out: `BookingReferenceNotFound` → "Booking reference not found".
            let name = format!("{known:?}");
            let mut out = String::new();
            for (i, ch) in name.chars().enumerate() {
                if i > 0 && ch.is_uppercase() {
                    out.push(' ');
                    out.extend(ch.to_lowercase());
                } else {
                    out.push(ch);
                }
            }
            out
        }
    };
    text.chars().take(64).collect()
}

/// The `Errors` element for a list of problems.
pub fn errors(problems: impl IntoIterator<Item = Problem>) -> Errors {
    Errors {
        error: problems
            .into_iter()
            .map(|p| OtaError {
                short_text: Some(short_text(&p.code)),
                code: Some(p.code),
                r#type: p.kind,
                status: Some(p.status),
                tag: p.tag,
                record_id: None,
                value: p.text,
            })
            .collect(),
    }
}

/// The `Warnings` element for a list of advisories.
pub fn warnings(problems: impl IntoIterator<Item = Problem>) -> Warnings {
    Warnings {
        warning: problems
            .into_iter()
            .enumerate()
            .map(|(i, p)| Warning {
                short_text: Some(short_text(&p.code)),
                code: Some(p.code),
                r#type: p.kind,
                status: Some(ErrorStatus::Complete),
                tag: p.tag,
                record_id: None,
                rph: Some(i as u64 + 1),
                value: p.text,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn short_texts_are_readable_and_bounded() {
        assert_eq!(short_text(&ErrorCode::BookingReferenceNotFound), "Booking reference not found");
        assert_eq!(short_text(&ErrorCode::Other("999".into())), "Error 999");
        assert!(short_text(&ErrorCode::Other("x".repeat(100))).chars().count() <= 64);
    }
}
