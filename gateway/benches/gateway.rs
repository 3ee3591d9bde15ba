//! Gateway benchmarks (filled in below).

fn main() {}
