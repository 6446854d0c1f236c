//! The path-query CSV reader of the `crowdnav` CLI (`path --queries`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../crates/crowdnav-cli/src/queries.rs"]
#[allow(dead_code)]
mod queries;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = queries::parse_query_csv(text);
    }
});
