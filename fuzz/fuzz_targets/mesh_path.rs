//! Mesh build and path query from raw numbers: a boundary and obstacles from the
//! bytes (any f32 bits, NaN and huge values included), then path queries whose
//! answers are checked: a path starts and ends where asked and is never shorter than
//! the straight line.
#![no_main]
use crowdnav::mesh::{Level, NavMesh};
use glam::Vec2;
use libfuzzer_sys::fuzz_target;

/// Reads f32s from the bytes, 4 at a time; byte 0 of each chooses raw bits (rare) or
/// a small grid value (common, so shapes touch, overlap and repeat vertices).
struct Numbers<'a>(&'a [u8]);

impl Numbers<'_> {
    fn next(&mut self) -> Option<f32> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(if head[0] == 0xff {
            f32::from_le_bytes(*head)
        } else {
            f32::from(i16::from_le_bytes([head[1], head[2]])) / 64.0
        })
    }

    fn point(&mut self) -> Option<Vec2> {
        Some(Vec2::new(self.next()?, self.next()?))
    }

    fn byte(&mut self) -> Option<u8> {
        let (b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(*b)
    }
}

fuzz_target!(|data: &[u8]| {
    let mut n = Numbers(data);
    let Some(shape) = n.byte() else { return };
    let boundary_len = 3 + usize::from(shape % 6);
    let obstacle_count = usize::from(shape / 6 % 5);
    let mut boundary = Vec::new();
    for _ in 0..boundary_len {
        let Some(p) = n.point() else { return };
        boundary.push(p);
    }
    let mut obstacles = Vec::new();
    for _ in 0..obstacle_count {
        let Some(k) = n.byte() else { return };
        let mut poly = Vec::new();
        for _ in 0..3 + usize::from(k % 4) {
            let Some(p) = n.point() else { return };
            poly.push(p);
        }
        obstacles.push(poly);
    }
    let Ok(mesh) = NavMesh::from_level(&Level {
        boundary,
        obstacles,
        ..Level::default()
    }) else {
        return;
    };
    mesh.check_invariants();
    while let (Some(s), Some(g), Some(r)) = (n.point(), n.point(), n.next()) {
        if let Ok(path) = mesh.find_path(s, g, r) {
            assert_eq!(path.start(), s);
            assert_eq!(path.goal(), g);
            let straight = f64::from(s.distance(g));
            assert!(
                path.length() >= straight * (1.0 - 1e-5) - 1e-4,
                "{s} -> {g} r={r}: length {} below straight {straight}",
                path.length()
            );
        }
        let _ = mesh.nearest_reachable(s, g, r);
    }
});
