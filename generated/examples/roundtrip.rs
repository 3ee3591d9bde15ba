//! Decodes each file as whichever message its root names and prints it re-encoded.
//!
//! ```text
//! cargo run -q -p ota-messages --example roundtrip -- spec/samples/*.xml
//! ```
//!
//! On failure it prints `FILE:LINE:COLUMN: PATH: what was expected` to stderr, one line per
//! problem, and exits 1.

use std::process::ExitCode;

use ota_messages::AnyMessage;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: roundtrip FILE...");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{file}: cannot read: {e}");
                failed = true;
                continue;
            }
        };
        match AnyMessage::from_xml(&text).and_then(|m| {
            m.to_xml().map_err(|e| {
                ota_messages::runtime::DecodeError::new(
                    ota_messages::runtime::DecodeErrorKind::Bind(e.to_string()),
                    "",
                    0,
                    0,
                )
            })
        }) {
            Ok(xml) => println!("{xml}"),
            Err(e) => {
                for problem in e.problems() {
                    eprintln!("{file}:{}", problem.problem_text());
                }
                failed = true;
            }
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
