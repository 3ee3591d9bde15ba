//! Repeats a bare roxmltree parse, a full decode or an encode of one file, so that callgrind can
//! count the instructions of each (repeatable on a busy machine, unlike wall-clock times).
//! `scripts/decode-ratio.sh` runs it for every full sample:
//!
//! ```text
//! decode_cost none|parse|decode|decode-official|encode|encode-ota2016b ITERATIONS FILE
//! ```
//!
//! decode ÷ parse = (decode − none) ÷ (parse − none): `none` reads the file and does nothing
//! else, so subtracting it leaves the cost of the loop alone. `encode` decodes the file once,
//! then encodes it ITERATIONS times in the default dialect (`encode-ota2016b`: in `ota2016b`);
//! its cost per encode is (encode N − encode 0) ÷ N. `decode-official` decodes as the gateway
//! does, also taking what OpenTravel 2016B allows beyond the spec (`official::OFFICIAL`).

use std::hint::black_box;
use std::process::ExitCode;

use ota_messages::{AnyMessage, Dialect};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, n, file] = args.as_slice() else {
        eprintln!("usage: decode_cost none|parse|decode ITERATIONS FILE");
        return ExitCode::from(2);
    };
    let Ok(n) = n.parse::<u32>() else {
        eprintln!("ITERATIONS is a number");
        return ExitCode::from(2);
    };
    let xml = match std::fs::read_to_string(file) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let decoded = if mode.starts_with("encode") { AnyMessage::from_xml(&xml).ok() } else { None };
    for _ in 0..n {
        let ok = match (mode.as_str(), &decoded) {
            ("none", _) => true,
            ("parse", _) => roxmltree::Document::parse(black_box(&xml)).is_ok(),
            ("decode", _) => AnyMessage::from_xml(black_box(&xml)).is_ok(),
            ("decode-official", _) => {
                AnyMessage::from_xml_with(black_box(&xml), ota_messages::official::OFFICIAL).is_ok()
            }
            ("encode", Some(m)) => black_box(m).to_xml().is_ok(),
            ("encode-ota2016b", Some(m)) => black_box(m).to_xml_in(Dialect::Ota2016b).is_ok(),
            ("encode" | "encode-ota2016b", None) => false,
            _ => {
                eprintln!("mode is none, parse, decode, decode-official, encode or encode-ota2016b");
                return ExitCode::from(2);
            }
        };
        if !ok {
            eprintln!("{file} does not {mode}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
