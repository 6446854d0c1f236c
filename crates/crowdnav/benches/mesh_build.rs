//! Mesh build and point location benchmarks.
fn main() {}
