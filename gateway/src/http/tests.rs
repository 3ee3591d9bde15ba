//! Unit tests of the parent module.

#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn content_types() {
    let mut h = HeaderMap::new();
    assert!(check_content_type(&h).is_err());
    for ok in [
        "application/xml",
        "Application/XML",
        "application/xml; charset=utf-8",
        "application/xml;charset=\"UTF-8\"",
        "text/xml",
        "Text/XML; charset=utf-8",
    ] {
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ok));
        assert!(check_content_type(&h).is_ok(), "{ok}");
    }
    for bad in [
        "text/plain",
        "application/json",
        "application/xml; charset=latin1",
        "text/xml; charset=iso-8859-1",
        "application/xmlx",
        "text/xmlx",
    ] {
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(bad));
        assert!(check_content_type(&h).is_err(), "{bad}");
    }
}
