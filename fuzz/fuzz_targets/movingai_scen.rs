//! MovingAI `.scen` reader.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crowdnav::mesh::import::parse_movingai_scen(text);
    }
});
