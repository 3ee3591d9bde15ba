//! `ota-messages`: typed OTA 2003/05 messages of the hotel and activity booking service.
//!
//! The types in the message modules are generated from the XML Schema files in `spec/` by
//! `cargo xtask regen`; the [`runtime`] is hand-written. Every root message implements
//! [`runtime::Message`] (root name, `Version`, `from_xml`, `to_xml`) and every request also
//! [`runtime::Request`] (its endpoint). [`AnyRequest`] decodes whichever request a document is.
//!
//! Decoding is strict: a wrong root or namespace, malformed XML, a DOCTYPE, an unknown element
//! or attribute, a repeated single element, a missing required item or a value of the wrong
//! shape is an error naming the element path and line:column. What is accepted round-trips.
//! The children of an element may come in any order; encoding writes the spec's order.
//!
//! ```
//! use ota_messages::runtime::{Message, Request};
//! use ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRq;
//!
//! let xml = r#"<OTA_HotelDescriptiveInfoRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2009.1">
//!   <POS>
//!     <Source><RequestorID Type="22" ID="AGENT1" ID_Context="DIST"/></Source>
//!     <Source><RequestorID Type="88" ID="AGENT1" MessagePassword="secret"/></Source>
//!   </POS>
//!   <HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="H1"/></HotelDescriptiveInfos>
//! </OTA_HotelDescriptiveInfoRQ>"#;
//! let rq = OtaHotelDescriptiveInfoRq::from_xml(xml)?;
//! assert_eq!(OtaHotelDescriptiveInfoRq::PATH, "/hotelnbc");
//! assert!(rq.to_xml()?.contains(r#"HotelCode="H1""#));
//!
//! let err = OtaHotelDescriptiveInfoRq::from_xml(&xml.replace("HotelCode=", "HotelKode=")).unwrap_err();
//! assert_eq!(err.line, 6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod runtime;

#[rustfmt::skip]
mod messages;
pub use messages::*;
