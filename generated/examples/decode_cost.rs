//! Repeats a bare roxmltree parse or a full decode of one file, so that callgrind can count the
//! instructions of each (repeatable on a busy machine, unlike wall-clock times).
//! `scripts/decode-ratio.sh` runs it for every full sample:
//!
//! ```text
//! decode_cost none|parse|decode ITERATIONS FILE
//! ```
//!
//! decode ÷ parse = (decode − none) ÷ (parse − none): `none` reads the file and does nothing
//! else, so subtracting it leaves the cost of the loop alone.

use std::hint::black_box;
use std::process::ExitCode;

use ota_messages::AnyMessage;

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
    for _ in 0..n {
        let ok = match mode.as_str() {
            "none" => true,
            "parse" => roxmltree::Document::parse(black_box(&xml)).is_ok(),
            "decode" => AnyMessage::from_xml(black_box(&xml)).is_ok(),
            _ => {
                eprintln!("mode is none, parse or decode");
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
