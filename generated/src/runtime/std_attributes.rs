//! The OTA standard attributes and the point of sale, as traits, so that code can treat every
//! message alike: stamp any answer, echo any request's `EchoToken`, check any request's
//! `Version`, authenticate any request's `POS`.
//!
//! The generator implements them (see `codegen/src/passes/std_attributes.rs`): every struct
//! that uses the attribute group `OTA_PayloadStdAttributes` implements
//! [`PayloadStdAttributes`], every struct that uses `OTA_ResponseStdAttributes` implements
//! [`ResponseStdAttributes`], and every request with a `POS` implements [`PosRequest`].
//! `AnyMessage` gives them as trait objects (`AnyMessage::response_std_attributes_mut`, …).
//!
//! ```
//! use ota_messages::runtime::{Response, ResponseStdAttributes};
//! use ota_messages::tour_activity_search::OtaTourActivitySearchRs;
//!
//! /// Stamps any answer the same way.
//! fn stamp<R: ResponseStdAttributes + ?Sized>(rs: &mut R, echo: Option<&str>) {
//!     rs.set_echo_token(echo.map(str::to_string));
//! }
//! let mut rs = OtaTourActivitySearchRs::success();
//! stamp(&mut rs, Some("e-1"));
//! assert_eq!(rs.echo_token.as_deref(), Some("e-1"));
//! assert_eq!(rs.version(), "2016.b");
//! ```

use super::scalar::DateTime;

/// The impl of a standard-attribute trait for a generated struct whose attribute group the
/// generator checked (`codegen/src/passes/std_attributes.rs`: every member there, with the
/// type and optionality the trait needs): one line per struct in the generated code, the
/// accessors written once here.
macro_rules! std_attributes {
    (PayloadStdAttributes for $t:ty) => {
        impl $crate::runtime::PayloadStdAttributes for $t {
            fn echo_token(&self) -> Option<&str> {
                self.echo_token.as_deref()
            }
            fn set_echo_token(&mut self, value: Option<String>) {
                self.echo_token = value;
            }
            fn time_stamp(&self) -> Option<&$crate::runtime::DateTime> {
                self.time_stamp.as_ref()
            }
            fn set_time_stamp(&mut self, value: Option<$crate::runtime::DateTime>) {
                self.time_stamp = value;
            }
            fn target(&self) -> Option<&str> {
                self.target.as_ref().map(|v| v.as_str())
            }
            fn version(&self) -> &str {
                &self.version
            }
            fn set_version(&mut self, value: String) {
                self.version = value;
            }
            fn transaction_identifier(&self) -> Option<&str> {
                self.transaction_identifier.as_deref()
            }
            fn set_transaction_identifier(&mut self, value: Option<String>) {
                self.transaction_identifier = value;
            }
            fn sequence_nmbr(&self) -> Option<u64> {
                self.sequence_nmbr
            }
            fn set_sequence_nmbr(&mut self, value: Option<u64>) {
                self.sequence_nmbr = value;
            }
            fn correlation_id(&self) -> Option<&str> {
                self.correlation_id.as_deref()
            }
            fn set_correlation_id(&mut self, value: Option<String>) {
                self.correlation_id = value;
            }
            fn retransmission_indicator(&self) -> Option<bool> {
                self.retransmission_indicator
            }
            fn set_retransmission_indicator(&mut self, value: Option<bool>) {
                self.retransmission_indicator = value;
            }
            fn primary_lang_id(&self) -> Option<&str> {
                self.primary_lang_id.as_ref().map(|v| v.as_str())
            }
            fn alt_lang_id(&self) -> Option<&str> {
                self.alt_lang_id.as_deref()
            }
            fn set_alt_lang_id(&mut self, value: Option<String>) {
                self.alt_lang_id = value;
            }
        }
    };
    (ResponseStdAttributes for $t:ty) => {
        impl $crate::runtime::ResponseStdAttributes for $t {
            fn echo_token(&self) -> Option<&str> {
                self.echo_token.as_deref()
            }
            fn set_echo_token(&mut self, value: Option<String>) {
                self.echo_token = value;
            }
            fn time_stamp(&self) -> Option<&$crate::runtime::DateTime> {
                self.time_stamp.as_ref()
            }
            fn set_time_stamp(&mut self, value: Option<$crate::runtime::DateTime>) {
                self.time_stamp = value;
            }
            fn version(&self) -> &str {
                &self.version
            }
            fn set_version(&mut self, value: String) {
                self.version = value;
            }
            fn transaction_identifier(&self) -> Option<&str> {
                self.transaction_identifier.as_deref()
            }
            fn set_transaction_identifier(&mut self, value: Option<String>) {
                self.transaction_identifier = value;
            }
        }
    };
}
pub(crate) use std_attributes;

/// The standard attributes of an OTA request root (`OTA_PayloadStdAttributes`).
pub trait PayloadStdAttributes {
    /// `EchoToken`: chosen by the client, echoed in the answer.
    fn echo_token(&self) -> Option<&str>;
    /// Sets `EchoToken`.
    fn set_echo_token(&mut self, value: Option<String>);
    /// `TimeStamp`: when the message was created.
    fn time_stamp(&self) -> Option<&DateTime>;
    /// Sets `TimeStamp`.
    fn set_time_stamp(&mut self, value: Option<DateTime>);
    /// `Target` (`Test` or `Production`, or another value), as written.
    fn target(&self) -> Option<&str>;
    /// `Version`: the message version.
    fn version(&self) -> &str;
    /// Sets `Version`.
    fn set_version(&mut self, value: String);
    /// `TransactionIdentifier`: identifies a multi-message transaction.
    fn transaction_identifier(&self) -> Option<&str>;
    /// Sets `TransactionIdentifier`.
    fn set_transaction_identifier(&mut self, value: Option<String>);
    /// `SequenceNmbr`.
    fn sequence_nmbr(&self) -> Option<u64>;
    /// Sets `SequenceNmbr`.
    fn set_sequence_nmbr(&mut self, value: Option<u64>);
    /// `CorrelationID`: ties messages that belong together.
    fn correlation_id(&self) -> Option<&str>;
    /// Sets `CorrelationID`.
    fn set_correlation_id(&mut self, value: Option<String>);
    /// `RetransmissionIndicator`: true for a retransmission.
    fn retransmission_indicator(&self) -> Option<bool>;
    /// Sets `RetransmissionIndicator`.
    fn set_retransmission_indicator(&mut self, value: Option<bool>);
    /// `PrimaryLangID`, as written.
    fn primary_lang_id(&self) -> Option<&str>;
    /// `AltLangID`.
    fn alt_lang_id(&self) -> Option<&str>;
    /// Sets `AltLangID`.
    fn set_alt_lang_id(&mut self, value: Option<String>);
}

/// The standard attributes of an OTA response root (`OTA_ResponseStdAttributes`).
pub trait ResponseStdAttributes {
    /// `EchoToken`: the request's, echoed.
    fn echo_token(&self) -> Option<&str>;
    /// Sets `EchoToken`.
    fn set_echo_token(&mut self, value: Option<String>);
    /// `TimeStamp`: when the answer was created.
    fn time_stamp(&self) -> Option<&DateTime>;
    /// Sets `TimeStamp`.
    fn set_time_stamp(&mut self, value: Option<DateTime>);
    /// `Version`: the response message version.
    fn version(&self) -> &str;
    /// Sets `Version`.
    fn set_version(&mut self, value: String);
    /// `TransactionIdentifier`.
    fn transaction_identifier(&self) -> Option<&str>;
    /// Sets `TransactionIdentifier`.
    fn set_transaction_identifier(&mut self, value: Option<String>);
}

/// A request that carries a point of sale (`POS`): who sends it, with which credentials.
pub trait PosRequest {
    /// The `POS` element type.
    type Pos;
    /// The point of sale.
    fn pos(&self) -> &Self::Pos;
}
