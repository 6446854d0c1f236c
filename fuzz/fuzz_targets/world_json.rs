//! World JSON: parse, validate, and build the mesh when the level is valid.
#![no_main]
use crowdnav::mesh::{Level, NavMesh};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(level) = Level::from_json(text) {
        // Keep the build cheap: large inputs only exercise the parser.
        if level.boundary.len() + level.obstacles.iter().map(Vec::len).sum::<usize>() <= 64 {
            if let Ok(mesh) = NavMesh::from_level(&level) {
                mesh.check_invariants();
            }
        }
    }
});
