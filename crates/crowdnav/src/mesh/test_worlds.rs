//! Random worlds shared by the unit tests.

use super::{Level, NavMesh};
use glam::Vec2;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::ops::Range;

/// A 30 x 30 room with `count` four-sided obstacles (overlaps allowed): lower-left
/// corner and width/height drawn from `corner` and `size`, the top edge shifted
/// sideways by `slant(rng)` (0 for a rectangle).
pub(crate) fn quad_room(
    rng: &mut ChaCha8Rng,
    count: usize,
    corner: Range<f32>,
    size: Range<f32>,
    slant: impl Fn(&mut ChaCha8Rng) -> f32,
) -> NavMesh {
    let mut obstacles = Vec::with_capacity(count);
    for _ in 0..count {
        let (x, y) = (rng.gen_range(corner.clone()), rng.gen_range(corner.clone()));
        let (w, h) = (rng.gen_range(size.clone()), rng.gen_range(size.clone()));
        let s = slant(rng);
        obstacles.push(vec![
            Vec2::new(x, y),
            Vec2::new(x + w, y),
            Vec2::new(x + w + s, y + h),
            Vec2::new(x + s, y + h),
        ]);
    }
    let level = Level {
        boundary: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(30.0, 0.0),
            Vec2::new(30.0, 30.0),
            Vec2::new(0.0, 30.0),
        ],
        obstacles,
        ..Level::default()
    };
    NavMesh::from_level(&level).expect("random room builds")
}

/// The mesh of a world file's JSON.
pub(crate) fn mesh(json: &str) -> NavMesh {
    NavMesh::from_level(&Level::from_json(json).expect("level")).expect("mesh")
}

/// A 10 × 10 m room with a 2 × 2 m pillar in its middle.
pub(crate) fn room_with_pillar() -> NavMesh {
    mesh(
        r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
            "obstacles": [[[4,4],[6,4],[6,6],[4,6]]]}"#,
    )
}
