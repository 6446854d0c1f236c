//! Building a [`NavMesh`]: walls → constrained Delaunay triangulation (spade) →
//! walkable/blocked classification → walls, adjacency, clearance, point locator.

use super::level::{signed_area, winding_contribution};
use super::locate::Locator;
use super::navmesh::{corner_gaps, pack_flags, NavMesh, NONE};
use super::planar::{planarize, Planar, SnapGrid};
use super::refine::measure_and_refine;
use super::{Level, LevelError, Walls};
use crate::geom::{orient2d_value, Segment, AREA_TOLERANCE, MAX_COORDINATE};
use glam::Vec2;
use spade::{ConstrainedDelaunayTriangulation, Point2, Triangulation};

/// Why a navigation mesh could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// The level's polygons are invalid.
    #[error(transparent)]
    Level(#[from] LevelError),
    /// The input has no walls at all.
    #[error("the level has no walls")]
    NoWalls,
    /// A wall segment has a NaN or infinite end.
    #[error("wall segment {segment} has a coordinate that is NaN or infinite")]
    NonFinite {
        /// 0-based index of the segment.
        segment: usize,
    },
    /// A coordinate's magnitude exceeds [`MAX_COORDINATE`](crate::geom::MAX_COORDINATE).
    #[error("point ({x}, {y}) is outside the supported coordinate range (|x|, |y| <= 1e7)")]
    CoordinateRange {
        /// x coordinate.
        x: f32,
        /// y coordinate.
        y: f32,
    },
    /// The walls enclose no walkable space.
    #[error("the walls enclose no walkable space")]
    NoWalkableSpace,
    /// Walls cross so densely or at such thin angles near this point that their
    /// crossings cannot be represented at `f32` precision: rounding them would change
    /// the walkable area by more than [`AREA_TOLERANCE`](crate::geom::AREA_TOLERANCE)
    /// of it, or would leave a clockwise or collinear triangle.
    #[error("walls cross too finely near ({x}, {y}) to be represented at f32 precision")]
    Degenerate {
        /// x coordinate of a point where the crossings did not settle.
        x: f32,
        /// y coordinate.
        y: f32,
    },
}

type Cdt = ConstrainedDelaunayTriangulation<Point2<f64>>;

impl NavMesh {
    /// Builds the mesh of a world-file level.
    ///
    /// # Errors
    /// [`BuildError::Level`] when the polygons are invalid (see [`Level::to_walls`]),
    /// [`BuildError::NoWalkableSpace`] when nothing is walkable,
    /// [`BuildError::Degenerate`] when walls cross so finely that rounding the
    /// crossings to `f32` could move the walkable area by more than
    /// [`AREA_TOLERANCE`](crate::geom::AREA_TOLERANCE) of the boundary's area.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh, Location};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///                                  "obstacles": [[[4,4],[6,4],[6,6],[4,6]]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// assert!((mesh.walkable_area() - 96.0).abs() < 1e-9);
    /// assert!(matches!(mesh.locate(Vec2::new(1.0, 1.0)), Location::Walkable(_)));
    /// assert!(matches!(mesh.locate(Vec2::new(5.0, 5.0)), Location::Blocked(_)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_level(level: &Level) -> Result<NavMesh, BuildError> {
        let walls = level.to_walls()?;
        // The area tolerance is relative to the boundary's area (valid once to_walls
        // accepted the polygon).
        let boundary_area = 0.5 * signed_area(&level.boundary).abs();
        Self::build(&walls, Some(boundary_area))
    }

    /// Builds the mesh from directed walls (walkable on their left; see [`Walls`]).
    ///
    /// # Errors
    /// [`BuildError`] for non-finite or out-of-range coordinates, no walls, no
    /// walkable space, or crossings finer than `f32` can represent
    /// ([`BuildError::Degenerate`]; the tolerance is relative to the area of the walls'
    /// convex hull).
    pub fn from_walls(walls: &Walls) -> Result<NavMesh, BuildError> {
        Self::build(walls, None)
    }

    /// [`NavMesh::from_walls`], with the area the walkable-area tolerance is relative
    /// to (default: the walls' convex hull).
    fn build(walls: &Walls, reference_area: Option<f64>) -> Result<NavMesh, BuildError> {
        if let Some(segment) = walls
            .segments
            .iter()
            .position(|s| !s.a.is_finite() || !s.b.is_finite())
        {
            return Err(BuildError::NonFinite { segment });
        }
        for s in &walls.segments {
            for p in [s.a, s.b] {
                if p.abs().max_element() > MAX_COORDINATE {
                    return Err(BuildError::CoordinateRange { x: p.x, y: p.y });
                }
            }
        }
        let extent = walls
            .segments
            .iter()
            .map(|s| s.a.abs().max(s.b.abs()).max_element())
            .fold(0.0, f32::max);
        let grid = SnapGrid::for_extent(extent);
        let segments: Vec<Segment> = walls
            .segments
            .iter()
            .map(|s| Segment::new(grid.point(s.a), grid.point(s.b)))
            .filter(|s| s.a != s.b)
            .collect();
        if segments.is_empty() {
            return Err(BuildError::NoWalls);
        }
        let planar = planarize(&segments, grid)?;
        let cdt = triangulate(&planar)?;
        let topo = Topology::from_cdt(&cdt);
        let walkable = classify(&topo, &segments);
        let mut mesh = assemble(topo, walkable, &planar, reference_area)?;
        measure_and_refine(&mut mesh);
        mesh.corner_gap = corner_gaps(&mesh);
        let portals = super::corridors::PortalIndexes::new(&mesh);
        mesh.portals = super::corridors::LazyPortalIndexes::built(portals);
        mesh.pockets = crate::path::pockets::LazyPockets::built(&mesh);
        mesh.locator = Locator::new(&mesh);
        Ok(mesh)
    }
}

/// Triangulates the planar graph, its edges as constraints. The points are `f32`
/// values and the edges never cross, so spade's exact predicates decide everything and
/// no constraint needs splitting.
fn triangulate(planar: &Planar) -> Result<Cdt, BuildError> {
    let points: Vec<Point2<f64>> = planar
        .points
        .iter()
        .map(|p| Point2::new(f64::from(p.x), f64::from(p.y)))
        .collect();
    let mut conflict = None;
    let cdt = Cdt::try_bulk_load_cdt(points, planar.edges.clone(), |e| {
        conflict.get_or_insert(e[0]);
    })
    .map_err(|_| BuildError::CoordinateRange {
        x: f32::NAN,
        y: f32::NAN,
    })?;
    if let Some(v) = conflict {
        // Unreachable for a planar graph; refuse rather than build a wrong mesh.
        let p = planar.points[v];
        return Err(BuildError::Degenerate { x: p.x, y: p.y });
    }
    if cdt.num_vertices() != planar.points.len() {
        return Err(BuildError::Degenerate {
            x: f32::NAN,
            y: f32::NAN,
        });
    }
    Ok(cdt)
}

/// The triangulation copied into flat arrays, before classification.
struct Topology {
    vertices: Vec<Vec2>,
    triangles: Vec<[u32; 3]>,
    neighbors: Vec<[u32; 3]>,
    constrained: Vec<[bool; 3]>,
}

impl Topology {
    fn from_cdt(cdt: &Cdt) -> Topology {
        let vertices: Vec<Vec2> = cdt
            .vertices()
            .map(|v| {
                let p = v.position();
                Vec2::new(p.x as f32, p.y as f32)
            })
            .collect();
        let mut face_id = vec![NONE; cdt.num_all_faces()];
        for (i, f) in cdt.inner_faces().enumerate() {
            face_id[f.fix().index()] = i as u32;
        }
        let n = cdt.num_inner_faces();
        let mut triangles = Vec::with_capacity(n);
        let mut neighbors = Vec::with_capacity(n);
        let mut constrained = Vec::with_capacity(n);
        for f in cdt.inner_faces() {
            let edges = f.adjacent_edges();
            triangles.push(edges.map(|e| e.from().fix().index() as u32));
            neighbors.push(edges.map(|e| {
                let other = e.rev().face();
                if other.is_outer() {
                    NONE
                } else {
                    face_id[other.fix().index()]
                }
            }));
            constrained.push(edges.map(|e| e.as_undirected().is_constraint_edge()));
        }
        Topology {
            vertices,
            triangles,
            neighbors,
            constrained,
        }
    }

    fn points(&self, t: usize) -> [Vec2; 3] {
        self.triangles[t].map(|v| self.vertices[v as usize])
    }
}

/// Walkable flag of every triangle.
///
/// Triangles joined by unconstrained edges form regions of constant winding number, so
/// the winding is evaluated once per region, at the incentre of its roundest triangle
/// (the point farthest from every region edge, robust against the rounding of split
/// points).
fn classify(topo: &Topology, segments: &[Segment]) -> Vec<bool> {
    let n = topo.triangles.len();
    let mut region = vec![NONE; n];
    let mut reps: Vec<(usize, f64)> = Vec::new(); // best triangle and its inradius
    let mut stack = Vec::new();
    for seed in 0..n {
        if region[seed] != NONE {
            continue;
        }
        let r = reps.len() as u32;
        reps.push((seed, -1.0));
        region[seed] = r;
        stack.push(seed);
        while let Some(t) = stack.pop() {
            let rad = inradius(topo.points(t));
            if rad > reps[r as usize].1 {
                reps[r as usize] = (t, rad);
            }
            for e in 0..3 {
                let nb = topo.neighbors[t][e];
                if nb != NONE && !topo.constrained[t][e] && region[nb as usize] == NONE {
                    region[nb as usize] = r;
                    stack.push(nb as usize);
                }
            }
        }
    }
    let rows = RowIndex::new(segments);
    let region_walkable: Vec<bool> = reps
        .iter()
        .map(|&(t, _)| rows.winding_number(incenter(topo.points(t))) > 0)
        .collect();
    region
        .iter()
        .map(|&r| region_walkable[r as usize])
        .collect()
}

fn inradius([a, b, c]: [Vec2; 3]) -> f64 {
    let (a, b, c) = (a.as_dvec2(), b.as_dvec2(), c.as_dvec2());
    let area2 = ((b - a).perp_dot(c - a)).abs();
    let perimeter = a.distance(b) + b.distance(c) + c.distance(a);
    if perimeter > 0.0 {
        area2 / perimeter
    } else {
        0.0
    }
}

/// The centre of the circle inscribed in a triangle (its first corner for a degenerate
/// one): a point inside it, away from its edges.
pub(super) fn incenter([a, b, c]: [Vec2; 3]) -> Vec2 {
    let (a, b, c) = (a.as_dvec2(), b.as_dvec2(), c.as_dvec2());
    let (la, lb, lc) = (b.distance(c), c.distance(a), a.distance(b));
    let sum = la + lb + lc;
    if sum <= 0.0 {
        return a.as_vec2();
    }
    ((a * la + b * lb + c * lc) / sum).as_vec2()
}

/// Segments bucketed by horizontal rows, for winding numbers (crossings of a
/// horizontal ray) in O(segments per row).
struct RowIndex<'a> {
    segments: &'a [Segment],
    min_y: f32,
    row_height: f32,
    rows: Vec<Vec<u32>>,
}

impl<'a> RowIndex<'a> {
    fn new(segments: &'a [Segment]) -> Self {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for s in segments {
            lo = lo.min(s.a.y).min(s.b.y);
            hi = hi.max(s.a.y).max(s.b.y);
        }
        let count = ((segments.len() as f64).sqrt() as usize).clamp(1, 4096);
        let row_height = ((hi - lo) / count as f32).max(f32::MIN_POSITIVE) * 1.000_01;
        let mut index = RowIndex {
            segments,
            min_y: lo,
            row_height,
            rows: vec![Vec::new(); count],
        };
        for (i, s) in segments.iter().enumerate() {
            let r0 = index.row(s.a.y.min(s.b.y));
            let r1 = index.row(s.a.y.max(s.b.y));
            for r in r0..=r1 {
                index.rows[r].push(i as u32);
            }
        }
        index
    }

    fn row(&self, y: f32) -> usize {
        (((y - self.min_y) / self.row_height).max(0.0) as usize).min(self.rows.len() - 1)
    }

    fn winding_number(&self, p: Vec2) -> i32 {
        if p.y < self.min_y {
            return 0;
        }
        self.rows[self.row(p.y)]
            .iter()
            .map(|&i| winding_contribution(&self.segments[i as usize], p))
            .sum()
    }
}

/// Flags, walls and areas of the classified triangles.
///
/// # Errors
/// [`BuildError::Degenerate`] when a triangle is not counter-clockwise, or when the
/// rounding of the wall crossings (`planar.drift`) may have moved the walkable area by
/// more than [`AREA_TOLERANCE`] of `reference_area` (default: the convex hull's area);
/// [`BuildError::NoWalkableSpace`] when nothing is walkable.
fn assemble(
    topo: Topology,
    walkable: Vec<bool>,
    planar: &Planar,
    reference_area: Option<f64>,
) -> Result<NavMesh, BuildError> {
    let n = topo.triangles.len();
    let mut flags = Vec::with_capacity(n);
    let mut obstacle_vertex = vec![false; topo.vertices.len()];
    let mut walkable_area = 0.0;
    let mut hull_area = 0.0;
    for t in 0..n {
        let walls: [bool; 3] = std::array::from_fn(|e| {
            let nb = topo.neighbors[t][e];
            let other = nb != NONE && walkable[nb as usize];
            walkable[t] != other
        });
        for (e, &w) in walls.iter().enumerate() {
            if w {
                obstacle_vertex[topo.triangles[t][e] as usize] = true;
                obstacle_vertex[topo.triangles[t][(e + 1) % 3] as usize] = true;
            }
        }
        let [a, b, c] = topo.points(t);
        let area2 = orient2d_value(a, b, c);
        if area2 <= 0.0 {
            // Cannot happen for a triangulation of f32 points; refuse rather than
            // return a mesh that breaks its invariants.
            return Err(BuildError::Degenerate { x: a.x, y: a.y });
        }
        hull_area += area2 * 0.5;
        if walkable[t] {
            walkable_area += area2 * 0.5;
        }
        flags.push(pack_flags(walkable[t], walls));
    }
    let reference = reference_area.map_or(hull_area, |r| r.min(hull_area));
    if planar.drift > AREA_TOLERANCE * reference {
        // Rounding the crossings to f32 may have moved walls by more than the level's
        // f32 precision: it is finer than f32 can represent there.
        return Err(BuildError::Degenerate {
            x: planar.worst.x,
            y: planar.worst.y,
        });
    }
    if walkable_area <= 0.0 {
        return Err(BuildError::NoWalkableSpace);
    }
    Ok(NavMesh {
        vertices: topo.vertices,
        triangles: topo.triangles,
        neighbors: topo.neighbors,
        flags,
        widths: Vec::new(),
        corner_gap: Vec::new(),
        obstacle_vertex,
        pockets: Default::default(),
        portals: Default::default(),
        corner_grid: Default::default(),
        query_index: Default::default(),
        locator: Locator::default(),
        walkable_area,
        obstacles: Default::default(),
        id: super::navmesh::fresh_mesh_id(),
    })
}
