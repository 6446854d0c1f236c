//! The navigation mesh: a constrained Delaunay triangulation of the level, with walls,
//! adjacency, point location and per-triangle clearance.
//!
//! ```text
//! Level (world JSON) ─┐
//! .mesh (Polyanya) ───┼─► Walls (directed, walkable on the left) ─► NavMesh::from_walls
//! .map (MovingAI) ────┘        CDT (spade) ► classify by winding ► walls, widths, locator
//! ```

mod bake;
mod build;
mod clearance;
mod corner_grid;
mod corridors;
mod edit;
pub mod import;
mod lazy;
pub(crate) mod level;
mod load;
mod locate;
mod navmesh;
mod planar;
mod query;
mod reach_index;
mod reachable;
mod refine;

pub use bake::LoadMeshError;
pub use build::BuildError;
pub(crate) use clearance::{closest_point, distance_to_segment, FreeSpan};
pub use edit::{EditError, MeshObstacleId};
pub use import::{
    parse_movingai_map, parse_movingai_map_with, parse_polyanya_mesh, GridRule, ImportError,
};
pub use level::{Level, LevelError, PolygonRef, Walls};
pub use load::{read_walls, LoadError};
pub use navmesh::{Location, NavMesh, TriangleId, VertexId};
pub use query::{
    MeshQueryError, NearestPoint, RayHit, Slide, WallDistance, MAX_RANDOM_SAMPLES, MAX_SLIDES,
};

#[cfg(test)]
#[path = "edit_test.rs"]
mod edit_test;
#[cfg(test)]
#[path = "mesh_test.rs"]
mod test;
#[cfg(test)]
pub(crate) mod test_worlds;
