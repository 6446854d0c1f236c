//! The navigation mesh: a constrained Delaunay triangulation of the level, with walls,
//! adjacency, point location and per-triangle clearance.

pub mod import;
mod level;

pub use level::{Level, LevelError, Walls};
