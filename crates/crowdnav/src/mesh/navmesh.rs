//! The [`NavMesh`] type: triangles, adjacency, walls and clearance, with accessors.

use super::locate::Locator;
use crate::geom::Segment;
use glam::Vec2;
use serde::{Deserialize, Serialize};

/// Index of a triangle in a [`NavMesh`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TriangleId(pub u32);

impl TriangleId {
    /// The index as `usize`, for slicing.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a vertex in a [`NavMesh`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct VertexId(pub u32);

impl VertexId {
    /// The index as `usize`, for slicing.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Marks "no neighbour" in the adjacency arrays.
pub(crate) const NONE: u32 = u32::MAX;

const WALKABLE: u8 = 1;
const WALL_EDGE0: u8 = 2;
/// Flag of a blocked triangle that the level as built left walkable: obstacles added
/// by edits cover it (see `super::edit`). Never stored in a baked mesh.
pub(crate) const COVERED: u8 = 32;

/// A navigation mesh: the constrained Delaunay triangulation of a level.
///
/// Triangles are counter-clockwise. Edge `i` of a triangle runs from its vertex `i` to
/// vertex `i + 1` (mod 3); corner `i` is its vertex `i`, where edges `i - 1` and `i` meet.
/// Every triangle of the triangulation's convex hull is kept, marked walkable or
/// blocked; an edge is a **wall** when it separates walkable from blocked space (or
/// walkable space from the outside).
///
/// Clearance: for each walkable triangle and each corner `C`, [`NavMesh::corner_width`]
/// is the width of the gate a body passes when it crosses the triangle between the two
/// edges that meet at `C`: the distance from `C` to the nearest wall point in the wedge
/// those edges span (Demyen's traversal width, computed by an unbounded search so walls
/// of other triangles count). A disc of radius `r` fits through iff `width >= 2r`. See
/// [`NavMesh::can_cross`].
///
/// Build one with [`NavMesh::from_level`] or [`NavMesh::from_walls`].
#[derive(Clone, Debug)]
pub struct NavMesh {
    pub(crate) vertices: Vec<Vec2>,
    pub(crate) triangles: Vec<[u32; 3]>,
    pub(crate) neighbors: Vec<[u32; 3]>,
    pub(crate) flags: Vec<u8>,
    pub(crate) widths: Vec<[f32; 3]>,
    /// Per vertex: the smallest gate width at it when it is a simple corner (exactly
    /// two walls meet there), else 0. A disc of radius `r <= gap / 2` rolls freely
    /// around the corner between its two walls' normals.
    pub(crate) corner_gap: Vec<f32>,
    pub(crate) obstacle_vertex: Vec<bool>,
    /// Which triangles a disc of each radius can travel between, so that a path
    /// query without an answer is refused at once, and per portal the walls that can
    /// narrow it for a disc (see [`super::clearance::NearWalls`]); built on first use
    /// after an edit.
    pub(crate) portals: super::corridors::LazyPortalIndexes,
    /// Dead-end pockets, which path searches skip.
    pub(crate) pockets: crate::path::pockets::LazyPockets,
    /// The obstacle corners on a grid, built on first use (see
    /// [`super::corner_grid::CornerGrid`]).
    pub(crate) corner_grid: super::corner_grid::LazyCornerGrid,
    /// The walls on a grid and the walkable areas, for the game-loop queries, built on
    /// first use (see [`super::query`]).
    pub(crate) query_index: super::query::LazyQueryIndex,
    pub(crate) locator: Locator,
    pub(crate) walkable_area: f64,
    /// The obstacles added by edits, and the edit count.
    pub(crate) obstacles: super::edit::Obstacles,
    /// Unique to the mesh built (a clone, identical, shares it), and fresh after
    /// every edit: what a thread's memos of per-mesh data are keyed by.
    pub(crate) id: u64,
}

/// A new [`NavMesh::id`].
pub(crate) fn fresh_mesh_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Where a point lies on the mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Inside (or on the edge of) this walkable triangle.
    Walkable(TriangleId),
    /// Inside this blocked triangle (an obstacle, or outside the boundary but inside the
    /// triangulation's convex hull).
    Blocked(TriangleId),
    /// Outside the triangulation altogether.
    Outside,
}

impl NavMesh {
    /// The edge of triangle `t` shared with triangle `other` (`None` when they are not
    /// neighbours).
    pub(crate) fn edge_toward(&self, t: u32, other: u32) -> Option<usize> {
        let n = self.neighbors.get(t as usize)?;
        (0..3).find(|&k| n[k] == other)
    }

    /// The portals, numbered: each open edge (not a wall) between two walkable
    /// triangles once, in the order of its lower-numbered triangle and edge. Returns,
    /// per triangle and edge, the portal's number or `NONE`, and per portal the
    /// directed edge `3 * t + e` from its lower-numbered triangle `t`.
    pub(crate) fn number_portals(&self) -> (Vec<[u32; 3]>, Vec<u32>) {
        let n = self.triangles.len();
        let mut number = vec![[NONE; 3]; n];
        let mut side = Vec::new();
        for t in 0..n {
            let tid = TriangleId(t as u32);
            if !self.is_walkable(tid) {
                continue;
            }
            for e in 0..3 {
                let nb = self.neighbors[t][e];
                if self.is_wall(tid, e)
                    || nb == NONE
                    || (t as u32) > nb
                    || !self.is_walkable(TriangleId(nb))
                {
                    continue;
                }
                let Some(back) = self.edge_toward(nb, t as u32) else {
                    continue;
                };
                let id = side.len() as u32;
                number[t][e] = id;
                number[nb as usize][back] = id;
                side.push((3 * t + e) as u32);
            }
        }
        (number, side)
    }

    /// Vertex positions.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// Number of triangles, walkable and blocked.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// All triangle ids, walkable and blocked.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = TriangleId> + '_ {
        (0..self.triangles.len() as u32).map(TriangleId)
    }

    /// Ids of the walkable triangles.
    pub fn walkable_triangles(&self) -> impl Iterator<Item = TriangleId> + '_ {
        self.triangles().filter(|&t| self.is_walkable(t))
    }

    /// The three vertex ids of `t`, counter-clockwise.
    ///
    /// # Panics
    /// If `t` is not a triangle of this mesh.
    pub fn triangle_vertex_ids(&self, t: TriangleId) -> [VertexId; 3] {
        self.triangles[t.index()].map(VertexId)
    }

    /// The three corner positions of `t`, counter-clockwise.
    ///
    /// # Panics
    /// If `t` is not a triangle of this mesh.
    pub fn triangle_points(&self, t: TriangleId) -> [Vec2; 3] {
        self.triangles[t.index()].map(|v| self.vertices[v as usize])
    }

    /// Edge `edge` (0..3) of `t` as a segment, from corner `edge` to corner `edge + 1`.
    pub fn edge_segment(&self, t: TriangleId, edge: usize) -> Segment {
        let p = self.triangle_points(t);
        Segment::new(p[edge % 3], p[(edge + 1) % 3])
    }

    /// The triangle across edge `edge` of `t`, if any.
    pub fn neighbor(&self, t: TriangleId, edge: usize) -> Option<TriangleId> {
        let n = self.neighbors[t.index()][edge % 3];
        (n != NONE).then_some(TriangleId(n))
    }

    /// `true` when `t` is walkable space.
    pub fn is_walkable(&self, t: TriangleId) -> bool {
        self.flags[t.index()] & WALKABLE != 0
    }

    /// `true` when edge `edge` of `t` is a wall: walkable on one side only.
    pub fn is_wall(&self, t: TriangleId, edge: usize) -> bool {
        self.flags[t.index()] & (WALL_EDGE0 << (edge % 3)) != 0
    }

    /// `true` when vertex `v` touches a wall (a corner a path may bend around).
    pub fn is_obstacle_vertex(&self, v: VertexId) -> bool {
        self.obstacle_vertex[v.index()]
    }

    /// The gate width at corner `corner` of walkable triangle `t`: the largest diameter
    /// of a disc that can cross `t` between the two edges meeting at that corner.
    /// `f32::INFINITY` when the corner touches no wall; 0 for blocked triangles.
    pub fn corner_width(&self, t: TriangleId, corner: usize) -> f32 {
        self.widths[t.index()][corner % 3]
    }

    /// Can a disc of radius `radius` cross walkable triangle `t` from edge `from` to
    /// edge `to`? O(1): compares the precomputed gate width with `2 * radius`.
    /// Crossing a wall edge, or a blocked triangle, is never possible.
    ///
    /// # Panics
    /// If `t` is not a triangle of this mesh.
    pub fn can_cross(&self, t: TriangleId, from: usize, to: usize, radius: f32) -> bool {
        let (from, to) = (from % 3, to % 3);
        if from == to || !self.is_walkable(t) || self.is_wall(t, from) || self.is_wall(t, to) {
            return false;
        }
        let opposite = 3 - from - to;
        let corner = (opposite + 2) % 3;
        self.widths[t.index()][corner] >= 2.0 * radius
    }

    /// Can a disc of radius `radius` travel from walkable triangle `from` to another
    /// one, `to`, through gates and portals wide enough for it? `false` is exact: no
    /// path search between points of the two finds a channel (see `mesh::corridors`).
    pub(crate) fn corridor_linked(&self, from: TriangleId, to: TriangleId, radius: f32) -> bool {
        self.portal_indexes().corridors.linked(from, to, radius)
    }

    /// The wall segments, each once, with walkable space on the left.
    pub fn walls(&self) -> impl Iterator<Item = Segment> + '_ {
        self.triangles().flat_map(move |t| {
            (0..3)
                .filter(move |&e| self.is_walkable(t) && self.is_wall(t, e))
                .map(move |e| self.edge_segment(t, e))
        })
    }

    /// Total area of the walkable triangles, in square metres.
    pub fn walkable_area(&self) -> f64 {
        self.walkable_area
    }

    /// Checks the mesh's internal consistency; for tests and debugging.
    ///
    /// # Panics
    /// With a description of the first inconsistency found.
    pub fn check_invariants(&self) {
        let n = self.triangles.len();
        assert_eq!(self.neighbors.len(), n);
        assert_eq!(self.flags.len(), n);
        assert_eq!(self.widths.len(), n);
        for t in self.triangles() {
            let [a, b, c] = self.triangle_points(t);
            assert!(
                crate::geom::orient2d(a, b, c).is_ccw(),
                "triangle {t:?} is not counter-clockwise"
            );
            for e in 0..3 {
                let Some(nb) = self.neighbor(t, e) else {
                    assert!(
                        !self.is_walkable(t) || self.is_wall(t, e),
                        "hull edge {e} of walkable {t:?} is not a wall"
                    );
                    continue;
                };
                let back = self.edge_toward(nb.0, t.0);
                let back = back.unwrap_or_else(|| panic!("{nb:?} does not link back to {t:?}"));
                let [u, v] = [
                    self.triangles[t.index()][e],
                    self.triangles[t.index()][(e + 1) % 3],
                ];
                let [x, y] = [
                    self.triangles[nb.index()][back],
                    self.triangles[nb.index()][(back + 1) % 3],
                ];
                assert_eq!((u, v), (y, x), "edge {e} of {t:?} does not match its twin");
                let wall = self.is_walkable(t) != self.is_walkable(nb);
                assert_eq!(self.is_wall(t, e), wall, "wall flag of edge {e} of {t:?}");
                assert_eq!(self.is_wall(nb, back), wall);
            }
        }
    }
}

impl NavMesh {
    /// Calls `f(t, k)` for each triangle `t` around vertex `v` (`v` being its corner
    /// `k`), each once, starting from `start`, which has `v` as a corner: turning one
    /// way across the edges into `v`, then (when the fan meets the hull) the other way.
    pub(crate) fn for_each_around(&self, v: u32, start: u32, mut f: impl FnMut(u32, usize)) {
        let corner = |t: u32| self.triangles[t as usize].iter().position(|&x| x == v);
        let Some(k0) = corner(start) else {
            return;
        };
        f(start, k0);
        // Edge `k + 2` of a triangle runs into `v`, edge `k` out of it.
        let (mut t, mut k) = (start, k0);
        for _ in 0..self.triangles.len() {
            let next = self.neighbors[t as usize][(k + 2) % 3];
            if next == start {
                return;
            }
            match (next != NONE).then(|| corner(next)).flatten() {
                Some(j) => (t, k) = (next, j),
                None => break,
            }
            f(t, k);
        }
        (t, k) = (start, k0);
        for _ in 0..self.triangles.len() {
            let next = self.neighbors[t as usize][k];
            match (next != NONE && next != start)
                .then(|| corner(next))
                .flatten()
            {
                Some(j) => (t, k) = (next, j),
                None => return,
            }
            f(t, k);
        }
    }

    /// Does a wall end at vertex `v`, a corner of triangle `t`? What the build's
    /// scan over every triangle finds, from the triangles around `v` only.
    pub(crate) fn ends_wall(&self, v: u32, t: u32) -> bool {
        let mut wall = false;
        self.for_each_around(v, t, |t, k| {
            let f = self.flags[t as usize];
            wall |= f & (WALL_EDGE0 << k | WALL_EDGE0 << ((k + 2) % 3)) != 0;
        });
        wall
    }

    /// [`NavMesh::corner_gap`] of vertex `v`, a corner of triangle `t`: what
    /// [`corner_gaps`] finds, from the triangles around `v` only.
    pub(crate) fn corner_gap_at(&self, v: u32, t: u32) -> f32 {
        let (mut gap, mut walls) = (f32::INFINITY, 0u32);
        self.for_each_around(v, t, |t, k| {
            let tid = TriangleId(t);
            if self.is_walkable(tid) {
                gap = gap.min(self.widths[t as usize][k]);
                walls +=
                    u32::from(self.is_wall(tid, k)) + u32::from(self.is_wall(tid, (k + 2) % 3));
            }
        });
        if walls == 2 && gap.is_finite() {
            gap
        } else {
            0.0
        }
    }
}

/// [`NavMesh::corner_gap`] values from the widths and walls.
pub(crate) fn corner_gaps(mesh: &NavMesh) -> Vec<f32> {
    let n = mesh.vertices.len();
    let mut gap = vec![f32::INFINITY; n];
    let mut walls = vec![0u8; n];
    for t in mesh.walkable_triangles() {
        let ids = mesh.triangles[t.index()];
        for k in 0..3 {
            let v = ids[k] as usize;
            gap[v] = gap[v].min(mesh.widths[t.index()][k]);
            if mesh.is_wall(t, k) {
                walls[v] = walls[v].saturating_add(1);
                let w = ids[(k + 1) % 3] as usize;
                walls[w] = walls[w].saturating_add(1);
            }
        }
    }
    gap.iter()
        .zip(&walls)
        .map(|(&g, &w)| if w == 2 && g.is_finite() { g } else { 0.0 })
        .collect()
}

/// Packs the walkable bit and the three wall bits.
pub(crate) fn pack_flags(walkable: bool, walls: [bool; 3]) -> u8 {
    let mut f = if walkable { WALKABLE } else { 0 };
    for (i, w) in walls.iter().enumerate() {
        if *w {
            f |= WALL_EDGE0 << i;
        }
    }
    f
}
