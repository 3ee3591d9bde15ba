//! The OTA answers of the transport: a request that did not decode (400, or 200 with one
//! `Error` per problem), an error answer of any status, and the XML body of an answer.

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use ota_messages::common::ErrorCode;
use ota_messages::runtime::{DecodeError, DecodeErrorKind, Operation};
use ota_messages::{AnyMessage, Dialect};

use super::{XML, not_found_now};
use crate::errors::{Problem, errors};
use crate::operation;
use crate::shared::log_text::LogText;

/// The root element name an error path starts with (`/OTA_ReadRQ/POS` → `OTA_ReadRQ`).
fn root_of(path: &str) -> &str {
    path.split('/').nth(1).map(|s| s.split(['[', '@']).next().unwrap_or(s)).unwrap_or("")
}

/// A document that did not decode: 400 when it is not XML or not this path's message, else
/// 200 with the operation's RS carrying one `Error` per problem (an OTA business answer).
pub(super) fn decode_failure(op: &'static Operation, text: &str, e: &DecodeError) -> Response {
    let root = root_of(&e.path);
    let at_root = e.path == format!("/{root}");
    match &e.kind {
        DecodeErrorKind::Malformed(_) | DecodeErrorKind::Doctype => {
            tracing::info!(line = e.line, column = e.column, "request is not well-formed XML");
            return bad_request(op, format!("The request is not well-formed XML: {e}"));
        }
        DecodeErrorKind::WrongRoot { found, .. } => {
            tracing::info!(root = %LogText(found), "request root does not match the path");
            return bad_request(op, wrong_root_text(op, found));
        }
        DecodeErrorKind::WrongNamespace { .. } if at_root => {
            tracing::info!("request root is not in the OTA namespace");
            return bad_request(op, format!("The request is not an OTA message: {e}"));
        }
        _ if root != op.request_root || e.path.is_empty() => {
            tracing::info!(root = %LogText(root), "request root does not match the path");
            return bad_request(op, wrong_root_text(op, root));
        }
        _ => {}
    }
    let problems = if e.problems().any(in_pos) {
        // A POS of the wrong shape (one Source, three, a missing attribute, …) is an
        // authentication failure like any other: the answer does not say what was wrong, nor
        // anything else about the message.
        tracing::info!(reason = "pos", "authentication failed");
        vec![Problem::authentication()]
    } else {
        // Where, not what: the values of a failing message are not logged (one could be a password).
        tracing::info!(at = %LogText(&e.path), line = e.line, column = e.column, problems = e.count(), "request is not a valid message");
        // One OTA Error per problem.
        e.problems().map(decode_problem).collect()
    };
    let Some(mut answer) = ota_messages::error_response(op.path, errors(problems)) else {
        return not_found_now();
    };
    stamp(&mut answer, root_attributes(text));
    xml_answer(op, StatusCode::OK, &answer, Dialect::default())
}

/// True when a decoding error is about the POS (missing, or anything inside it).
fn in_pos(e: &DecodeError) -> bool {
    let inside = e.path.split('/').nth(2).is_some_and(|s| s == "POS" || s.starts_with("POS["));
    let about = match &e.kind {
        DecodeErrorKind::MissingElement { name } | DecodeErrorKind::TooMany { name, .. } => *name == "POS",
        DecodeErrorKind::UnexpectedElement { name, .. } => name == "POS",
        _ => false,
    };
    inside || about
}

/// The OTA problem of a decoding error: Type 10 / Code 321 for something missing, else
/// Type 7 / Code 320; the element path as `Tag`. A `Version` of the wrong form gets the answer of
/// any unsupported version.
fn decode_problem(e: &DecodeError) -> Problem {
    match &e.kind {
        DecodeErrorKind::InvalidVersion { value, supported, .. } => {
            return operation::unsupported_version(value, supported, root_of(&e.path));
        }
        DecodeErrorKind::MissingElement { .. }
        | DecodeErrorKind::MissingAttribute { .. }
        | DecodeErrorKind::MissingChoice { .. } => Problem::required(describe(e)),
        _ => Problem::protocol(ErrorCode::InvalidValue, describe(e)),
    }
    .at(e.path.clone())
}

/// The description of a decoding error; a bad `MessagePassword` value is not repeated.
fn describe(e: &DecodeError) -> String {
    match &e.kind {
        DecodeErrorKind::InvalidValue { target, expected, .. } if target.contains("MessagePassword") => {
            format!("{}:{}: {}: invalid value in {target}: expected {expected}", e.line, e.column, e.path)
        }
        _ => e.problem_text(),
    }
}

/// `EchoToken` and `TransactionIdentifier` of a well-formed request that did not decode, when
/// they are of a length the answer can carry.
fn root_attributes(text: &str) -> Echo {
    let Ok(doc) = ota_messages::runtime::parse_document(text) else {
        return Echo::default();
    };
    let root = doc.root_element();
    let pick = |name: &str, max: usize| {
        root.attribute(name).filter(|v| !v.is_empty() && v.chars().count() <= max).map(str::to_string)
    };
    Echo { echo_token: pick("EchoToken", 128), transaction_identifier: pick("TransactionIdentifier", 32) }
}

/// What an answer echoes from its request.
#[derive(Debug, Default)]
struct Echo {
    echo_token: Option<String>,
    transaction_identifier: Option<String>,
}

/// Sets `TimeStamp` (now) and the echoed attributes on an answer.
fn stamp(answer: &mut AnyMessage, echo: Echo) {
    if let Some(rs) = answer.response_std_attributes_mut() {
        rs.set_time_stamp(Some(operation::time_stamp(Utc::now())));
        rs.set_echo_token(echo.echo_token);
        rs.set_transaction_identifier(echo.transaction_identifier);
    }
}

/// The operation's RS carrying one problem, with an HTTP status.
pub(super) fn ota_error(op: &Operation, status: StatusCode, problem: Problem) -> Response {
    match ota_messages::error_response(op.path, errors([problem])) {
        Some(mut answer) => {
            stamp(&mut answer, Echo::default());
            xml_answer(op, status, &answer, Dialect::default())
        }
        None => (status, "error\n").into_response(),
    }
}

/// Encodes an answer in a dialect (a request not admitted, or not even decoded, gets the
/// default: whose dialect it would be is not known). An answer that cannot be encoded (a bug) is
/// logged and replaced by a Type 12 system error.
pub(super) fn xml_answer(op: &Operation, status: StatusCode, answer: &AnyMessage, dialect: Dialect) -> Response {
    match answer.to_xml_in(dialect) {
        Ok(xml) => (status, [(header::CONTENT_TYPE, XML)], xml).into_response(),
        Err(e) => {
            tracing::error!(error = %e, root = answer.root_name(), "an answer could not be encoded");
            let fallback = ota_messages::error_response(op.path, errors([Problem::system()])).map(|mut a| {
                stamp(&mut a, Echo::default());
                a.to_xml()
            });
            match fallback {
                Some(Ok(xml)) => (status, [(header::CONTENT_TYPE, XML)], xml).into_response(),
                _ => (StatusCode::INTERNAL_SERVER_ERROR, Body::from("internal error\n")).into_response(),
            }
        }
    }
}

pub(super) fn too_large(op: &Operation, limit: usize) -> Response {
    ota_error(
        op,
        StatusCode::PAYLOAD_TOO_LARGE,
        Problem::protocol(
            ErrorCode::UnableToProcess,
            format!("The request body is larger than the limit of {limit} bytes."),
        ),
    )
}

pub(super) fn bad_request(op: &Operation, text: String) -> Response {
    ota_error(
        op,
        StatusCode::BAD_REQUEST,
        Problem::protocol(
            ErrorCode::UnableToProcess,
            text.replace(
                |c: char| (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}'),
                "\u{fffd}",
            ),
        ),
    )
}

pub(super) fn wrong_root_text(op: &Operation, found: &str) -> String {
    format!("{} takes <{}>; the request's root element is <{found}>.", op.path, op.request_root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_of_paths() {
        assert_eq!(root_of("/OTA_ReadRQ/POS/Source[2]"), "OTA_ReadRQ");
        assert_eq!(root_of("/OTA_ReadRQ"), "OTA_ReadRQ");
        assert_eq!(root_of(""), "");
    }
}
