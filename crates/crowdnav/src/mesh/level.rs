//! Level input: the world file's polygons, their validation, and the wall soup every
//! input format becomes.

use crate::geom::{orient2d_value, segment_intersection, Segment, SegmentIntersection};
use crate::grid::{Cells, Layout, MAX_CELLS};
use glam::Vec2;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A level as the world file (JSON) describes it.
///
/// `boundary` is the outer edge of the walkable region; `obstacles` are polygons inside
/// it. Both may be listed in either orientation. Obstacles may overlap each other and may
/// touch or cross the boundary: the free space is the inside of the boundary minus the
/// union of the obstacles. `doors` are named polygons that are open (not walls) as the
/// level is built: a scenario closes and opens them while it runs (mesh edits, see
/// [`World::add_mesh_obstacle`](crate::world::World::add_mesh_obstacle)). See
/// `docs/world-format.md`.
///
/// # Example
/// ```
/// use crowdnav::mesh::Level;
/// let level = Level::from_json(r#"{
///     "boundary": [[0,0],[10,0],[10,10],[0,10]],
///     "obstacles": [[[4,4],[6,4],[6,6],[4,6]]]
/// }"#)?;
/// let walls = level.to_walls()?;
/// assert_eq!(walls.segments.len(), 8);
/// # Ok::<(), crowdnav::mesh::LevelError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// Outer edge of the walkable region, as `[x, y]` points.
    pub boundary: Vec<Vec2>,
    /// Obstacle polygons, each a list of `[x, y]` points.
    #[serde(default)]
    pub obstacles: Vec<Vec<Vec2>>,
    /// Doors by name: polygons left open by [`Level::to_walls`], which a scenario's
    /// `close` and `open` events block and free while it runs.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub doors: BTreeMap<String, Vec<Vec2>>,
}

/// Which polygon of a [`Level`] an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolygonRef {
    /// The boundary.
    Boundary,
    /// The obstacle at this index (0-based) in `obstacles`.
    Obstacle(usize),
}

impl fmt::Display for PolygonRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolygonRef::Boundary => write!(f, "the boundary"),
            PolygonRef::Obstacle(i) => write!(f, "obstacle {i}"),
        }
    }
}

/// Why a [`Level`] was rejected. Every variant names its culprit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LevelError {
    /// The file is not valid world JSON.
    #[error("invalid world file at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A coordinate is NaN or infinite.
    #[error("{polygon}: vertex {vertex} has a coordinate that is NaN or infinite")]
    NonFinite {
        /// The polygon.
        polygon: PolygonRef,
        /// 0-based index of the vertex in the polygon as given.
        vertex: usize,
    },
    /// Fewer than three distinct, non-collinear points remain after cleaning.
    #[error("{polygon} has fewer than three distinct corners ({corners} after removing duplicate and collinear points)")]
    TooFewPoints {
        /// The polygon.
        polygon: PolygonRef,
        /// Corners left after cleaning.
        corners: usize,
    },
    /// The polygon encloses no area.
    #[error("{polygon} has zero area")]
    ZeroArea {
        /// The polygon.
        polygon: PolygonRef,
    },
    /// Two edges of one polygon cross or overlap.
    #[error("{polygon} intersects itself: edge {first} (from vertex {first}) meets edge {second}")]
    SelfIntersecting {
        /// The polygon.
        polygon: PolygonRef,
        /// 0-based index of the first edge, numbered by its start vertex as given.
        first: usize,
        /// 0-based index of the second edge.
        second: usize,
    },
    /// An obstacle lies wholly outside the boundary.
    #[error("obstacle {obstacle} lies wholly outside the boundary")]
    ObstacleOutside {
        /// 0-based index of the obstacle.
        obstacle: usize,
    },
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

impl Walls {
    /// Winding number of the walls around `p`: positive means walkable.
    ///
    /// Brute force, O(segments); the mesh builder uses a bucketed version.
    pub fn winding_number(&self, p: Vec2) -> i32 {
        self.segments
            .iter()
            .map(|s| winding_contribution(s, p))
            .sum()
    }
}

/// Contribution of the directed segment `s` to the winding number around `p`
/// (crossing rule on the upward/downward ray to the right of `p`).
pub(crate) fn winding_contribution(s: &Segment, p: Vec2) -> i32 {
    if s.a.y <= p.y {
        if s.b.y > p.y && orient2d_value(s.a, s.b, p) > 0.0 {
            return 1;
        }
    } else if s.b.y <= p.y && orient2d_value(s.a, s.b, p) < 0.0 {
        return -1;
    }
    0
}

/// What serde_json says went wrong, without the " at line L column C" it appends:
/// the errors that carry it give the place in fields of their own.
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

impl Level {
    /// Parses a world file.
    ///
    /// # Errors
    /// [`LevelError::Json`] with the line and column of the problem.
    pub fn from_json(text: &str) -> Result<Level, LevelError> {
        serde_json::from_str(text).map_err(|e| LevelError::Json {
            line: e.line(),
            column: e.column(),
            message: json_message(&e),
        })
    }

    /// Validates and cleans the polygons, then returns them as [`Walls`]: the boundary
    /// counter-clockwise, every obstacle clockwise.
    ///
    /// Duplicate consecutive points and collinear points are removed silently.
    ///
    /// # Errors
    /// A [`LevelError`] naming the polygon (and vertex or edges) at fault: non-finite
    /// coordinates, fewer than three corners, zero area, self-intersection, an obstacle
    /// wholly outside the boundary.
    pub fn to_walls(&self) -> Result<Walls, LevelError> {
        let boundary = clean_polygon(&self.boundary, PolygonRef::Boundary)?;
        let mut obstacles = Vec::with_capacity(self.obstacles.len());
        for (i, points) in self.obstacles.iter().enumerate() {
            let poly = clean_polygon(points, PolygonRef::Obstacle(i))?;
            if wholly_outside(&poly, &boundary) {
                return Err(LevelError::ObstacleOutside { obstacle: i });
            }
            obstacles.push(poly);
        }
        let mut segments = Vec::new();
        push_ring(&mut segments, &boundary, true);
        for poly in &obstacles {
            push_ring(&mut segments, poly, false);
        }
        Ok(Walls { segments })
    }
}

/// A cleaned polygon: distinct corners, no collinear runs, no self-intersection.
pub(crate) struct CleanPolygon {
    pub(crate) points: Vec<Vec2>,
}

pub(crate) fn clean_polygon(
    points: &[Vec2],
    polygon: PolygonRef,
) -> Result<CleanPolygon, LevelError> {
    if let Some(vertex) = points.iter().position(|p| !p.is_finite()) {
        return Err(LevelError::NonFinite { polygon, vertex });
    }
    // Drop duplicate consecutive points (with wrap-around).
    let mut pts: Vec<Vec2> = Vec::with_capacity(points.len());
    let mut src: Vec<usize> = Vec::with_capacity(points.len());
    for (i, &p) in points.iter().enumerate() {
        if pts.last() != Some(&p) {
            pts.push(p);
            src.push(i);
        }
    }
    while pts.len() > 1 && pts.first() == pts.last() {
        pts.pop();
        src.pop();
    }
    // Drop collinear points until none is left (a removal can make a neighbour
    // collinear, e.g. a spike going out and back).
    let mut changed = true;
    while changed && pts.len() >= 3 {
        changed = false;
        let n = pts.len();
        let mut keep_pts = Vec::with_capacity(n);
        let mut keep_src = Vec::with_capacity(n);
        for i in 0..n {
            let prev = keep_pts.last().copied().unwrap_or(pts[(i + n - 1) % n]);
            let next = pts[(i + 1) % n];
            if orient2d_value(prev, pts[i], next) == 0.0 || prev == pts[i] {
                changed = true;
            } else {
                keep_pts.push(pts[i]);
                keep_src.push(src[i]);
            }
        }
        pts = keep_pts;
        src = keep_src;
    }
    if pts.len() < 3 {
        return Err(LevelError::TooFewPoints {
            polygon,
            corners: pts.len(),
        });
    }
    if let Some((i, j)) = find_self_intersection(&pts) {
        return Err(LevelError::SelfIntersecting {
            polygon,
            first: src[i],
            second: src[j],
        });
    }
    if signed_area(&pts) == 0.0 {
        return Err(LevelError::ZeroArea { polygon });
    }
    Ok(CleanPolygon { points: pts })
}

/// Twice the signed area (positive = counter-clockwise), in `f64`.
pub(crate) fn signed_area(pts: &[Vec2]) -> f64 {
    let n = pts.len();
    (0..n)
        .map(|i| {
            let (a, b) = (pts[i].as_dvec2(), pts[(i + 1) % n].as_dvec2());
            a.x * b.y - a.y * b.x
        })
        .sum()
}

fn push_ring(out: &mut Vec<Segment>, poly: &CleanPolygon, ccw: bool) {
    let pts = &poly.points;
    let n = pts.len();
    let reverse = (signed_area(pts) > 0.0) != ccw;
    for i in 0..n {
        let s = Segment::new(pts[i], pts[(i + 1) % n]);
        out.push(if reverse { s.reversed() } else { s });
    }
}

/// Indices of the first pair of non-adjacent edges that meet, or adjacent edges that
/// overlap. Edges are bucketed into a uniform grid, so this is near-linear for ordinary
/// polygons.
fn find_self_intersection(pts: &[Vec2]) -> Option<(usize, usize)> {
    let n = pts.len();
    let edge = |i: usize| Segment::new(pts[i], pts[(i + 1) % n]);
    let grid = SegmentGrid::new((0..n).map(edge).collect());
    let mut found: Option<(usize, usize)> = None;
    grid.for_each_candidate_pair(|i, j| {
        let (i, j) = (i.min(j), i.max(j));
        let adjacent = j == i + 1 || (i == 0 && j == n - 1);
        let hit = match segment_intersection(edge(i), edge(j)) {
            SegmentIntersection::None => false,
            SegmentIntersection::Point(_) => !adjacent,
            SegmentIntersection::Overlap(..) => true,
        };
        if hit && found.is_none_or(|f| (i, j) < f) {
            found = Some((i, j));
        }
    });
    found
}

/// `true` when polygon `poly` shares no interior with `boundary`.
fn wholly_outside(poly: &CleanPolygon, boundary: &CleanPolygon) -> bool {
    let ring = |pts: &[Vec2]| {
        let n = pts.len();
        (0..n)
            .map(|i| Segment::new(pts[i], pts[(i + 1) % n]))
            .collect::<Vec<_>>()
    };
    let b_edges = ring(&boundary.points);
    let o_edges = ring(&poly.points);
    let inside = |edges: &[Segment], p: Vec2| {
        edges
            .iter()
            .map(|s| winding_contribution(s, p))
            .sum::<i32>()
            != 0
    };
    // Any obstacle vertex strictly inside the boundary, or any proper crossing, means
    // they share interior. Midpoints of obstacle edges catch edges that run through the
    // boundary's interior between two boundary vertices.
    if poly.points.iter().any(|&p| inside(&b_edges, p)) {
        return false;
    }
    if o_edges.iter().any(|e| inside(&b_edges, (e.a + e.b) * 0.5)) {
        return false;
    }
    if boundary.points.iter().any(|&p| inside(&o_edges, p)) {
        return false;
    }
    for o in &o_edges {
        for b in &b_edges {
            if let SegmentIntersection::Point(x) = segment_intersection(*o, *b) {
                if x != o.a && x != o.b && x != b.a && x != b.b {
                    return false;
                }
            }
        }
    }
    true
}

/// Segments bucketed into a uniform grid over their bounding box, about one segment
/// per cell.
pub(crate) struct SegmentGrid {
    cells: Cells,
}

impl SegmentGrid {
    pub(crate) fn new(segments: Vec<Segment>) -> Self {
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        for s in &segments {
            min = min.min(s.a).min(s.b);
            max = max.max(s.a).max(s.b);
        }
        let layout = Layout::dense(min, max, segments.len(), 1.0, MAX_CELLS);
        let span = |i: usize| {
            let s = segments[i];
            (layout.coords(s.a.min(s.b)), layout.coords(s.a.max(s.b)))
        };
        let mut cells = Cells::default();
        cells.rebuild(layout, segments.len(), span, |_, _, _| true);
        SegmentGrid { cells }
    }

    /// Calls `f(i, j)` (i < j) for every pair of segments sharing a cell, once per cell
    /// they share (callers must tolerate repeats).
    pub(crate) fn for_each_candidate_pair(&self, mut f: impl FnMut(usize, usize)) {
        for cell in self.cells.each_cell() {
            for (k, &i) in cell.iter().enumerate() {
                for &j in &cell[k + 1..] {
                    f(i as usize, j as usize);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn square(x: f32, y: f32, s: f32) -> Vec<Vec2> {
        vec![v(x, y), v(x + s, y), v(x + s, y + s), v(x, y + s)]
    }

    #[test]
    fn walls_put_free_space_on_their_left_in_either_input_orientation() {
        let mut hole = square(4.0, 4.0, 2.0);
        hole.reverse();
        let mut outer = square(0.0, 0.0, 10.0);
        outer.reverse();
        let level = Level {
            boundary: outer,
            obstacles: vec![hole, square(7.0, 7.0, 1.0)],
            ..Level::default()
        };
        let walls = level.to_walls().expect("valid level");
        assert_eq!(walls.winding_number(v(1.0, 1.0)), 1);
        assert_eq!(walls.winding_number(v(5.0, 5.0)), 0);
        assert_eq!(walls.winding_number(v(7.5, 7.5)), 0);
        assert_eq!(walls.winding_number(v(11.0, 5.0)), 0);
    }

    #[test]
    fn overlapping_obstacles_block_their_union() {
        let level = Level {
            boundary: square(0.0, 0.0, 10.0),
            obstacles: vec![square(2.0, 2.0, 4.0), square(4.0, 4.0, 4.0)],
            ..Level::default()
        };
        let walls = level.to_walls().expect("valid level");
        assert_eq!(walls.winding_number(v(5.0, 5.0)), -1);
        assert!(walls.winding_number(v(3.0, 3.0)) <= 0);
        assert!(walls.winding_number(v(7.0, 7.0)) <= 0);
        assert_eq!(walls.winding_number(v(1.0, 9.0)), 1);
    }

    #[test]
    fn duplicate_and_collinear_points_are_cleaned_not_rejected() {
        let level = Level {
            boundary: vec![
                v(0.0, 0.0),
                v(0.0, 0.0),
                v(5.0, 0.0),
                v(10.0, 0.0),
                v(10.0, 10.0),
                v(0.0, 10.0),
                v(0.0, 0.0),
            ],
            obstacles: vec![],
            ..Level::default()
        };
        let walls = level.to_walls().expect("valid level");
        assert_eq!(walls.segments.len(), 4);
    }

    #[test]
    fn non_finite_coordinates_name_polygon_and_vertex() {
        let mut obstacle = square(1.0, 1.0, 1.0);
        obstacle[2].y = f32::NAN;
        let level = Level {
            boundary: square(0.0, 0.0, 10.0),
            obstacles: vec![square(5.0, 5.0, 1.0), obstacle],
            ..Level::default()
        };
        assert_eq!(
            level.to_walls(),
            Err(LevelError::NonFinite {
                polygon: PolygonRef::Obstacle(1),
                vertex: 2
            })
        );
        let mut boundary = square(0.0, 0.0, 10.0);
        boundary[0].x = f32::INFINITY;
        let level = Level {
            boundary,
            obstacles: vec![],
            ..Level::default()
        };
        assert!(matches!(
            level.to_walls(),
            Err(LevelError::NonFinite {
                polygon: PolygonRef::Boundary,
                vertex: 0
            })
        ));
    }

    #[test]
    fn empty_and_degenerate_polygons_are_rejected() {
        let empty = Level::default();
        assert!(matches!(
            empty.to_walls(),
            Err(LevelError::TooFewPoints {
                polygon: PolygonRef::Boundary,
                ..
            })
        ));
        let flat = Level {
            boundary: square(0.0, 0.0, 10.0),
            obstacles: vec![vec![v(1.0, 1.0), v(2.0, 2.0), v(3.0, 3.0)]],
            ..Level::default()
        };
        assert!(matches!(
            flat.to_walls(),
            Err(LevelError::TooFewPoints {
                polygon: PolygonRef::Obstacle(0),
                ..
            })
        ));
    }

    #[test]
    fn a_bow_tie_is_self_intersecting() {
        let level = Level {
            boundary: vec![v(0.0, 0.0), v(10.0, 10.0), v(10.0, 0.0), v(0.0, 10.0)],
            obstacles: vec![],
            ..Level::default()
        };
        assert_eq!(
            level.to_walls(),
            Err(LevelError::SelfIntersecting {
                polygon: PolygonRef::Boundary,
                first: 0,
                second: 2
            })
        );
    }

    #[test]
    fn an_obstacle_outside_the_boundary_is_rejected_but_one_crossing_it_is_not() {
        let outside = Level {
            boundary: square(0.0, 0.0, 10.0),
            obstacles: vec![square(2.0, 2.0, 1.0), square(20.0, 20.0, 1.0)],
            ..Level::default()
        };
        assert_eq!(
            outside.to_walls(),
            Err(LevelError::ObstacleOutside { obstacle: 1 })
        );
        let crossing = Level {
            boundary: square(0.0, 0.0, 10.0),
            obstacles: vec![square(8.0, 4.0, 4.0)],
            ..Level::default()
        };
        assert!(crossing.to_walls().is_ok());
        let touching_outside = Level {
            boundary: square(0.0, 0.0, 10.0),
            obstacles: vec![square(10.0, 4.0, 2.0)],
            ..Level::default()
        };
        assert_eq!(
            touching_outside.to_walls(),
            Err(LevelError::ObstacleOutside { obstacle: 0 })
        );
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let err = Level::from_json("{\n \"boundary\": [[0,0],[1,0],\n [1,\"x\"]]}")
            .expect_err("malformed");
        assert!(matches!(err, LevelError::Json { line: 3, .. }), "{err:?}");
        let truncated = Level::from_json("{\"boundary\": [[0,0],").expect_err("truncated");
        assert!(matches!(truncated, LevelError::Json { line: 1, .. }));
        // The place is said once, by the error's own fields.
        let text = err.to_string();
        assert_eq!(text.matches("line").count(), 1, "{text}");
        assert!(text.contains("line 3, column"), "{text}");
    }
}
