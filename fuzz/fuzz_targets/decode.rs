//! Decode any message from arbitrary bytes: never a panic; whatever decodes re-encodes to XML
//! that decodes to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ota_messages::AnyMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(message) = AnyMessage::from_xml(text) {
        let xml = message.to_xml().expect("a decoded message encodes");
        let again = AnyMessage::from_xml(&xml).expect("the re-encoded message decodes");
        assert_eq!(again, message, "round trip changed the value");
    }
});
