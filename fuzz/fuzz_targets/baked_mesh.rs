//! Loading a baked mesh from bytes, then querying it: `NavMesh::from_bytes` must
//! refuse damaged or crafted data with an error, and a mesh it accepts must keep its
//! invariants and answer queries without panicking.
//!
//! Input that starts with the magic bytes is loaded as it is; any other input is taken
//! as a body and given a valid header (format version, length, checksum), so that the
//! fuzzer explores the body's checks rather than the checksum's.
#![no_main]
use crowdnav::mesh::NavMesh;
use glam::Vec2;
use libfuzzer_sys::fuzz_target;

const MAGIC: &[u8; 8] = b"\x89CNMESH\n";

fn with_header(body: &[u8]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&NavMesh::FORMAT_VERSION.to_le_bytes());
    bytes.push(4);
    bytes.extend_from_slice(b"fuzz");
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    bytes.extend_from_slice(body);
    bytes
}

fuzz_target!(|data: &[u8]| {
    let bytes = if data.starts_with(MAGIC) {
        data.to_vec()
    } else {
        with_header(data)
    };
    let Ok(mesh) = NavMesh::from_bytes(&bytes) else {
        return;
    };
    mesh.check_invariants();
    if mesh.triangle_count() > 4096 {
        return;
    }
    // Queries between vertices and triangle centres, at a few radii.
    let points: Vec<Vec2> = mesh
        .triangles()
        .take(8)
        .map(|t| mesh.triangle_points(t).iter().sum::<Vec2>() / 3.0)
        .chain(mesh.vertices().iter().take(4).copied())
        .collect();
    for &a in &points {
        let _ = mesh.locate(a);
        let _ = mesh.clearance(a);
        for &b in points.iter().rev().take(4) {
            for radius in [0.0, 0.3, 1.0] {
                if let Ok(path) = mesh.find_path(a, b, radius) {
                    assert!(path.length().is_finite());
                }
            }
        }
    }
    // What loads, saved again, loads again.
    assert!(NavMesh::from_bytes(&mesh.to_bytes()).is_ok());
});
