//! Level input: the world file's polygons, and the wall soup every input becomes.

use crate::geom::Segment;
use glam::Vec2;
use serde::{Deserialize, Serialize};

/// A level as the world file (JSON) describes it.
///
/// `boundary` is the outer edge of the walkable region; `obstacles` are polygons inside
/// it. Both may be listed in either orientation. Obstacles may overlap each other and may
/// touch or cross the boundary: the free space is the inside of the boundary minus the
/// union of the obstacles.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// Outer edge of the walkable region, as `[x, y]` points.
    pub boundary: Vec<Vec2>,
    /// Obstacle polygons, each a list of `[x, y]` points.
    #[serde(default)]
    pub obstacles: Vec<Vec<Vec2>>,
}

/// Why a [`Level`] was rejected. Placeholder until validation lands.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LevelError {
    /// The boundary has fewer than three distinct points.
    #[error("the boundary has fewer than three distinct points")]
    EmptyBoundary,
}

/// Walls as directed segments with the walkable side on their **left**
/// (counter-clockwise outer edges, clockwise holes).
///
/// Every input format becomes this before triangulation: a point is walkable when the
/// winding number of these segments around it is positive. Segments may touch, cross
/// and overlap.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Walls {
    /// The directed wall segments, walkable on the left of `a → b`.
    pub segments: Vec<Segment>,
}
