//! Polyanya `.mesh` (v2, v3): import, then build the mesh when the walls are few.
#![no_main]
use crowdnav::mesh::{parse_polyanya_mesh, NavMesh};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(walls) = parse_polyanya_mesh(text) {
        if walls.segments.len() <= 256 {
            if let Ok(mesh) = NavMesh::from_walls(&walls) {
                mesh.check_invariants();
            }
        }
    }
});
