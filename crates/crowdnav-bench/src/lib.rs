//! Benchmarks of crowdnav against other libraries, on the shared benchmark data.
//!
//! - [`data`]: where the data lives, and readers for its scenario files.
//! - [`paths`]: shortest-path queries, crowdnav against the `polyanya` crate on the
//!   same Polyanya mesh, with every answer checked against the other side's.
//!
//! The criterion benches (`benches/`) and the `crowdnav-bench` binary both use these.

pub mod data;
pub mod paths;
