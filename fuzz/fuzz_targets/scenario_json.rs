//! Scenario JSON: parse, then build the world (inline levels only) and step it a little.
#![no_main]
use crowdnav::scenario::{Scenario, WorldSpec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(scenario) = Scenario::from_json(text) else {
        return;
    };
    // A level file path would read the disk: parse-only for those.
    if matches!(scenario.world, Some(WorldSpec::File(_))) {
        return;
    }
    if scenario.all_agents(None).len() > 64 || scenario.obstacles.len() > 16 {
        return;
    }
    if let Ok(mut world) = scenario.build(None) {
        for _ in 0..4 {
            if world.step(scenario.dt).is_err() {
                break;
            }
        }
    }
});
