//! The `crowdnav` command line.
fn main() {}
