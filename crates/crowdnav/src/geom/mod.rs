//! Geometry kernel: exact orientation predicates, segments, circles and tangents,
//! rays and planes.
//!
//! Everything here works on plain values (`glam` vectors and small structs) and knows
//! nothing of meshes, paths or worlds. Simulation math is `f32`; the predicates evaluate
//! their `f32` inputs exactly (via the `robust` crate, as spade does), so topological
//! decisions never depend on rounding.

mod circle;
mod predicates;
mod ray;
mod segment;
mod vector;

pub use circle::{
    arc_length, inner_tangents, outer_tangents, tangent_between, Circle, Side, Tangent,
};
pub(crate) use predicates::{incircle_value, orient2d_value};
pub use predicates::{orient2d, point_in_triangle, Orientation};
pub use ray::{ray_plane_intersection, Plane, Ray};
pub(crate) use segment::{capsule_entry, closest_point_f64, segments_distance_squared_f64};
pub use segment::{closest_point_on_segment, segment_intersection, Segment, SegmentIntersection};
pub use vector::{mirror, mirror3};

/// Largest coordinate magnitude accepted in level geometry, in metres. Beyond it `f32`
/// keeps less than a metre of precision; inputs outside are rejected with an error.
pub const MAX_COORDINATE: f32 = 1.0e7;

/// Relative tolerance of a mesh's walkable area: rounding wall crossings to `f32` may
/// change the walkable area by at most this fraction of it, or the build is refused
/// (`BuildError::Degenerate`).
pub const AREA_TOLERANCE: f64 = 1.0e-6;
