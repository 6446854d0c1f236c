//! The navigation mesh: a constrained Delaunay triangulation of the level, with walls,
//! adjacency, point location and per-triangle clearance.

pub mod import;
mod level;

pub use import::{parse_movingai_map, parse_polyanya_mesh, ImportError};
pub use level::{Level, LevelError, Walls};
