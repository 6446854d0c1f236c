//! Geometry kernel: exact orientation predicates, segments, circles and tangents,
//! rays and planes.
//!
//! Everything here works on plain values (`glam` vectors and small structs) and knows
//! nothing of meshes, paths or worlds. Simulation math is `f32`; the predicates evaluate
//! their `f32` inputs exactly (via the `robust` crate, as spade does), so topological
//! decisions never depend on rounding.

mod predicates;
mod segment;

pub use predicates::{orient2d, orient2d_value, point_in_triangle, Orientation};
pub use segment::{closest_point_on_segment, segment_intersection, Segment, SegmentIntersection};

/// Length below which two points are treated as the same point, in metres.
///
/// Used when cleaning user polygons (duplicate consecutive vertices) — never inside the
/// exact predicates, which need no tolerance.
pub const POINT_EPSILON: f32 = 1e-6;

/// Largest coordinate magnitude accepted in level geometry, in metres. Beyond it `f32`
/// keeps less than a metre of precision; inputs outside are rejected with an error.
pub const MAX_COORDINATE: f32 = 1.0e7;
