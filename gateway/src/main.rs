//! The `ota-gateway` command. TO BE COMPLETED (gateway core work).

fn main() {}
