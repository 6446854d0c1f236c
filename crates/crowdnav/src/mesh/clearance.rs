//! Per-triangle clearance: Demyen's traversal widths, computed exactly.
//!
//! For walkable triangle `t` with corner `C` and opposite edge `AB`, a body crossing `t`
//! between edges `CA` and `CB` passes between `C` and whatever walls face `C` across
//! the triangle. The gate width is the distance from `C` to the nearest wall point in
//! the closed wedge spanned by rays `C→A` and `C→B` (walls touching `C` excluded). The
//! nearest such point `X` is reachable from `t` without crossing a wall (otherwise the
//! crossing would be nearer), and every edge crossed on the way is nearer than `X`, so a
//! search that crosses only non-wall edges nearer than the best distance found so far
//! is exact — it sees walls of other triangles, however far away (Kallmann's objection
//! to purely local widths). A wall vertex counts wherever it lies in the wedge.

use super::navmesh::{NavMesh, TriangleId, NONE};
use glam::{DVec2, Vec2};
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::OnceLock;

/// Gate widths of the three corners of each listed triangle (0 for blocked triangles),
/// in the order given, and the walls that must be split for them to be exact (see
/// [`Split`]), in the same order.
pub(crate) fn measure(mesh: &NavMesh, triangles: &[u32]) -> (Vec<[f32; 3]>, Vec<Split>) {
    let per_triangle: Vec<([f32; 3], [Option<Split>; 3])> = triangles
        .par_iter()
        .with_min_len(256)
        .map(|&t| {
            let t = TriangleId(t);
            if !mesh.is_walkable(t) {
                return ([0.0; 3], [None; 3]);
            }
            MEASURE_SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
                Ok(mut scratch) => {
                    let (stack, visited) = &mut *scratch;
                    widths_of(mesh, t, stack, visited)
                }
                Err(_) => widths_of(mesh, t, &mut Vec::new(), &mut Visited::default()),
            })
        })
        .collect();
    let splits = per_triangle
        .iter()
        .flat_map(|(_, s)| s.iter().flatten().copied())
        .collect();
    (per_triangle.into_iter().map(|(w, _)| w).collect(), splits)
}

thread_local! {
    /// Search buffers of the widths measured on this thread: kept, so that each
    /// [`measure`] (an edit's few hundred triangles) does not clear a new mark per
    /// triangle of the mesh.
    static MEASURE_SCRATCH: RefCell<(Vec<(u32, u8)>, Visited)> = RefCell::default();
}

/// The gate widths of walkable triangle `t`'s corners and the splits they ask for.
fn widths_of(
    mesh: &NavMesh,
    t: TriangleId,
    stack: &mut Vec<(u32, u8)>,
    visited: &mut Visited,
) -> ([f32; 3], [Option<Split>; 3]) {
    let w: [(f64, Option<Split>); 3] = std::array::from_fn(|corner| {
        let (width, split) = corner_width(mesh, t, corner, stack, visited);
        (width, split.or_else(|| disturbance(mesh, t, corner, width)))
    });
    (w.map(|(d, _)| d as f32), w.map(|(_, s)| s))
}

/// Items (triangles, walls) entered by one search, by generation stamp: starting a
/// search clears nothing but bumps the generation. Shared by the clearance searches
/// and the mesh queries.
#[derive(Default)]
pub(super) struct Visited {
    stamp: Vec<u32>,
    generation: u32,
}

impl Visited {
    /// Starts a search over items `0..items`; marks of earlier searches expire.
    pub(super) fn start(&mut self, items: usize) {
        if self.stamp.len() < items {
            self.stamp.resize(items, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
    }

    /// Marks `t`; false when it was already marked in this generation.
    pub(super) fn enter(&mut self, t: u32) -> bool {
        let slot = &mut self.stamp[t as usize];
        let fresh = *slot != self.generation;
        *slot = self.generation;
        fresh
    }

    /// Whether `t` is marked in this generation.
    pub(super) fn is_marked(&self, t: u32) -> bool {
        self.stamp[t as usize] == self.generation
    }
}

/// The closed wedge at `c` between rays towards `a` and `b` (counter-clockwise from `a`
/// to `b`, less than a half-turn).
struct Wedge {
    c: DVec2,
    u: DVec2,
    w: DVec2,
}

impl Wedge {
    fn contains(&self, p: DVec2) -> bool {
        let d = p - self.c;
        self.u.perp_dot(d) >= 0.0 && d.perp_dot(self.w) >= 0.0
    }

    /// Distance from the apex to the part of segment `p q` inside the wedge, or `None`
    /// when the segment misses the wedge.
    #[cfg(test)]
    fn distance_to_segment(&self, p: DVec2, q: DVec2) -> Option<f64> {
        self.nearest_on_segment(p, q).map(|(d, _)| d)
    }

    /// Distance from the apex to the part of segment `p q` inside the wedge, and the
    /// nearest point; `None` when the segment misses the wedge.
    fn nearest_on_segment(&self, p: DVec2, q: DVec2) -> Option<(f64, DVec2)> {
        // Ends are tested directly: an end lying exactly on a ray must count even when
        // the clipping arithmetic below rounds it out.
        let ends = [p, q]
            .into_iter()
            .filter(|&e| self.contains(e))
            .map(|e| (self.c.distance(e), e))
            .reduce(|a, b| if b.0 < a.0 { b } else { a });
        match (ends, self.clipped_nearest(p, q)) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    fn clipped_nearest(&self, p: DVec2, q: DVec2) -> Option<(f64, DVec2)> {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let dir = q - p;
        // Each half-plane: f(s) = f0 + s * df >= 0.
        for (f0, df) in [
            (self.u.perp_dot(p - self.c), self.u.perp_dot(dir)),
            ((p - self.c).perp_dot(self.w), dir.perp_dot(self.w)),
        ] {
            if df == 0.0 {
                if f0 < 0.0 {
                    return None;
                }
            } else {
                let s = -f0 / df;
                if df > 0.0 {
                    lo = lo.max(s);
                } else {
                    hi = hi.min(s);
                }
            }
        }
        if lo > hi {
            return None;
        }
        let (a, b) = (p + dir * lo, p + dir * hi);
        let x = closest_point(self.c, a, b);
        Some((self.c.distance(x), x))
    }
}

/// Distance from `x` to segment `a b`, in `f64`.
pub(crate) fn distance_to_segment(x: DVec2, a: DVec2, b: DVec2) -> f64 {
    x.distance(closest_point(x, a, b))
}

/// Squared distance from `x` to segment `a b`, in `f64`.
pub(crate) fn distance_squared_to_segment(x: DVec2, a: DVec2, b: DVec2) -> f64 {
    x.distance_squared(closest_point(x, a, b))
}

pub(crate) use crate::geom::closest_point_f64 as closest_point;

/// A wall to split at a point: the nearest wall point of some gate lies inside a wall
/// that is not an edge of the gate's triangle (a Kallmann disturbance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Split {
    /// The triangle whose gate asked for the split.
    pub source: u32,
    /// The walkable triangle owning the wall, and the wall's edge index in it.
    pub triangle: u32,
    /// Edge index of the wall in `triangle`.
    pub edge: u8,
    /// Where to split it.
    pub at: DVec2,
}

fn corner_width(
    mesh: &NavMesh,
    t: TriangleId,
    corner: usize,
    stack: &mut Vec<(u32, u8)>,
    visited: &mut Visited,
) -> (f64, Option<Split>) {
    let ids = mesh.triangles[t.index()];
    let c_id = ids[corner];
    if !mesh.obstacle_vertex[c_id as usize] {
        return (f64::INFINITY, None);
    }
    let mut split = None;
    let pos = |v: u32| mesh.vertices[v as usize].as_dvec2();
    let (c, a, b) = (
        pos(c_id),
        pos(ids[(corner + 1) % 3]),
        pos(ids[(corner + 2) % 3]),
    );
    let wedge = Wedge {
        c,
        u: a - c,
        w: b - c,
    };
    let mut best = f64::INFINITY;
    for v in [ids[(corner + 1) % 3], ids[(corner + 2) % 3]] {
        if mesh.obstacle_vertex[v as usize] {
            best = best.min(c.distance(pos(v)));
        }
    }
    stack.clear();
    visited.start(mesh.triangles.len());
    visited.enter(t.0);
    stack.push((t.0, ((corner + 1) % 3) as u8));
    while let Some((tri, edge)) = stack.pop() {
        let tid = TriangleId(tri);
        let e = edge as usize;
        let tv = mesh.triangles[tri as usize];
        let (p_id, q_id) = (tv[e], tv[(e + 1) % 3]);
        let (p, q) = (pos(p_id), pos(q_id));
        let Some((d, x)) = wedge.nearest_on_segment(p, q) else {
            continue;
        };
        if d >= best {
            continue;
        }
        if mesh.is_wall(tid, e) {
            if p_id != c_id && q_id != c_id {
                best = d;
                // Nearest inside a wall of another triangle: other gates may pass
                // between the corner and this wall without measuring it.
                let margin = 1e-4 * (1.0 + p.distance(q));
                let interior = x.distance(p) > margin && x.distance(q) > margin;
                split = (interior && tri != t.0).then_some(Split {
                    source: t.0,
                    triangle: tri,
                    edge,
                    at: x,
                });
            }
            continue;
        }
        let nb = mesh.neighbors[tri as usize][e];
        if nb == NONE {
            continue;
        }
        let nv = mesh.triangles[nb as usize];
        let Some(back) = mesh.edge_toward(nb, tri) else {
            continue;
        };
        // A triangle seen through one edge need not be entered through another: its
        // far vertex and remaining edges are already queued (or nearer than `best`).
        if !visited.enter(nb) {
            continue;
        }
        // The far vertex of the neighbour, then its two other edges.
        let far = nv[(back + 2) % 3];
        if far != c_id && mesh.obstacle_vertex[far as usize] && wedge.contains(pos(far)) {
            let d = c.distance(pos(far));
            if d < best {
                best = d;
                split = None;
            }
        }
        stack.push((nb, ((back + 1) % 3) as u8));
        stack.push((nb, ((back + 2) % 3) as u8));
    }
    (best, split)
}

/// A disturbance of the gate at `corner` of `t` (Kallmann 2010) that the width search
/// cannot see: an obstacle vertex just across one of the gate's two edges (the far
/// vertex of the triangle there), on the walkable side of the wall opposite the corner
/// and nearer to it than the gate is wide, with its foot inside the wall. A disc
/// crossing the gate wraps that vertex while its centre is still in `t`, between the
/// vertex and the wall, and no gate measures that gap: the vertex lies outside this
/// corner's wedge, and the wedges that hold it may end at a nearer wall end. Splitting
/// the wall at the foot lets the split's flips join the vertex to it, and the edge
/// between them (a portal between two wall corners) measures the gap.
fn disturbance(mesh: &NavMesh, t: TriangleId, corner: usize, width: f64) -> Option<Split> {
    let ids = mesh.triangles[t.index()];
    let far = (corner + 1) % 3;
    let sides = [corner, (corner + 2) % 3];
    if !mesh.is_wall(t, far) || sides.iter().any(|&e| mesh.is_wall(t, e)) {
        return None;
    }
    let pos = |v: u32| mesh.vertices[v as usize].as_dvec2();
    let (a, b) = (ids[far], ids[(far + 1) % 3]);
    let (pa, pb) = (pos(a), pos(b));
    let along = pb - pa;
    let length = along.length();
    let margin = 1e-4 * (1.0 + length);
    let mut nearest: Option<(f64, DVec2)> = None;
    for e in sides {
        let nb = mesh.neighbors[t.index()][e];
        if nb == NONE {
            continue;
        }
        let Some(back) = mesh.edge_toward(nb, t.0) else {
            continue;
        };
        let v = mesh.triangles[nb as usize][(back + 2) % 3];
        if v == a || v == b || !mesh.obstacle_vertex[v as usize] {
            continue;
        }
        let p = pos(v);
        // On the walkable side of the wall (the corner's side, its left).
        if along.perp_dot(p - pa) <= 0.0 {
            continue;
        }
        let s = (p - pa).dot(along) / (length * length);
        let foot = pa + along * s;
        let d = p.distance(foot);
        if s * length <= margin || (1.0 - s) * length <= margin || d >= width {
            continue;
        }
        if nearest.is_none_or(|(best, _)| d < best) {
            nearest = Some((d, foot));
        }
    }
    nearest.map(|(_, at)| Split {
        source: t.0,
        triangle: t.0,
        edge: far as u8,
        at,
    })
}

/// Brute force reference for tests: the same gate width, from every wall of the mesh.
#[cfg(test)]
pub(crate) fn corner_width_brute_force(mesh: &NavMesh, t: TriangleId, corner: usize) -> f64 {
    let ids = mesh.triangles[t.index()];
    let c_id = ids[corner];
    if !mesh.obstacle_vertex[c_id as usize] {
        return f64::INFINITY;
    }
    let c: Vec2 = mesh.vertices[c_id as usize];
    let pos = |v: u32| mesh.vertices[v as usize].as_dvec2();
    let wedge = Wedge {
        c: c.as_dvec2(),
        u: pos(ids[(corner + 1) % 3]) - c.as_dvec2(),
        w: pos(ids[(corner + 2) % 3]) - c.as_dvec2(),
    };
    mesh.walls()
        .filter(|s| s.a != c && s.b != c)
        .filter_map(|s| wedge.distance_to_segment(s.a.as_dvec2(), s.b.as_dvec2()))
        .fold(f64::INFINITY, f64::min)
}

impl NavMesh {
    /// Distance from `p` to the nearest wall, or `None` when `p` is not in walkable
    /// space. Searches outward from `p`'s triangle, crossing only non-wall edges nearer
    /// than the nearest wall found so far, so it is exact and local.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// assert_eq!(mesh.clearance(Vec2::new(3.0, 4.0)), Some(3.0));
    /// assert_eq!(mesh.clearance(Vec2::new(30.0, 4.0)), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clearance(&self, p: Vec2) -> Option<f32> {
        match self.locate(p) {
            super::Location::Walkable(t) => Some(self.clearance_within(p, t, f64::INFINITY) as f32),
            _ => None,
        }
    }

    /// Distance from `p` (inside walkable triangle `t`) to the nearest wall, or any
    /// value `>= limit` when no wall is nearer than `limit`.
    pub(crate) fn clearance_within(&self, p: Vec2, t: TriangleId, limit: f64) -> f64 {
        self.nearest_wall_within(p.as_dvec2(), t, limit, 0.0).0
    }
}

/// The part of a portal where a disc's centre may cross it: see
/// [`NavMesh::free_span`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FreeSpan {
    /// No point of the portal keeps the radius from every wall.
    Empty,
    /// The points `from + s (to - from) / |to - from|` for `s` in `[lo, hi]`, and no
    /// others.
    One {
        /// Distance of the first free point from the edge's start.
        lo: f64,
        /// Distance of the last free point from the edge's start.
        hi: f64,
    },
    /// Two or more separate pieces.
    Several,
}

impl NavMesh {
    /// Which points of edge `edge` of walkable triangle `t` lie at least `radius` from
    /// every wall: the edge minus the open `radius`-neighbourhood (a capsule) of each
    /// wall, each capsule cutting an open interval of the edge. Walls nearer than
    /// `radius` are found by a search outward from the edge's two triangles that
    /// crosses only non-wall edges nearer than `radius` (the segment from an edge point
    /// to a wall point within `radius` crosses only such edges), so the answer is exact.
    /// When the edge's [`NearWalls`] list covers `radius`, the walls are read from it
    /// instead of searched for.
    pub(crate) fn free_span(&self, t: TriangleId, edge: usize, radius: f64) -> FreeSpan {
        self.free_span_by(t, edge, radius, true)
    }

    /// [`NavMesh::free_span`], reading the edge's [`NearWalls`] list when `lists` is
    /// set and the list covers `radius`, else searching.
    pub(super) fn free_span_by(
        &self,
        t: TriangleId,
        edge: usize,
        radius: f64,
        lists: bool,
    ) -> FreeSpan {
        let ids = self.triangles[t.index()];
        let pos = |v: u32| self.vertices[v as usize].as_dvec2();
        let (p_id, q_id) = (ids[edge % 3], ids[(edge + 1) % 3]);
        let (p, q) = (pos(p_id), pos(q_id));
        let len = p.distance(q);
        if len == 0.0 {
            return FreeSpan::Empty;
        }
        let u = (q - p) / len;
        let r2 = radius * radius;
        let mut cuts: smallvec::SmallVec<[(f64, f64); 8]> = smallvec::SmallVec::new();
        if let Some(walls) = lists
            .then(|| {
                self.portal_indexes()
                    .near_walls
                    .within(self, t, edge % 3, r2)
            })
            .flatten()
        {
            // The lists' cuts are measured from the portal's lower-numbered vertex.
            let reversed = p_id > q_id;
            for wall in walls.iter().take_while(|w| w.d2 < r2) {
                if let Some((lo, hi)) = wall.cut(radius) {
                    cuts.push(if reversed {
                        (len - hi, len - lo)
                    } else {
                        (lo, hi)
                    });
                }
            }
            return free_pieces(cuts, len);
        }
        let mut seen: smallvec::SmallVec<[u32; 16]> = smallvec::SmallVec::new();
        let mut stack: smallvec::SmallVec<[u32; 16]> = smallvec::SmallVec::new();
        seen.push(t.0);
        stack.push(t.0);
        // The edge's box grown by the radius: an edge outside it is no nearer.
        let (lo, hi) = (p.min(q) - radius, p.max(q) + radius);
        while let Some(tri) = stack.pop() {
            let tv = self.triangles[tri as usize];
            for e in 0..3 {
                let (a, b) = (pos(tv[e]), pos(tv[(e + 1) % 3]));
                if a.max(b).cmplt(lo).any() || a.min(b).cmpgt(hi).any() {
                    continue;
                }
                if segments_distance_squared(a, b, p, q) >= r2 {
                    continue;
                }
                if self.is_wall(TriangleId(tri), e) {
                    if let Some(cut) = capsule_cut(p, u, a, b, radius) {
                        cuts.push(cut);
                    }
                    continue;
                }
                let nb = self.neighbors[tri as usize][e];
                if nb != NONE && !seen.contains(&nb) {
                    seen.push(nb);
                    stack.push(nb);
                }
            }
        }
        free_pieces(cuts, len)
    }
}

/// Squared distance between segments `a b` and `p q` that meet at most at their ends
/// (two edges of a triangulation): the nearest pair of points then includes an end of
/// one of the two segments.
fn segments_distance_squared(a: DVec2, b: DVec2, p: DVec2, q: DVec2) -> f64 {
    distance_squared_to_segment(a, p, q)
        .min(distance_squared_to_segment(b, p, q))
        .min(distance_squared_to_segment(p, a, b))
        .min(distance_squared_to_segment(q, a, b))
}

/// What is left of `[0, len]` after removing the open intervals `cuts`.
fn free_pieces(mut cuts: smallvec::SmallVec<[(f64, f64); 8]>, len: f64) -> FreeSpan {
    cuts.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Sweep: `from` is the first point not cut so far. A piece of a single point
    // counts (a disc may touch through it), which errs towards `Several`.
    let (mut pieces, mut found, mut from) = (0, FreeSpan::Empty, 0.0f64);
    for &(lo, hi) in &cuts {
        if from > len {
            break;
        }
        if lo >= from {
            pieces += 1;
            found = FreeSpan::One {
                lo: from,
                hi: lo.min(len),
            };
        }
        from = from.max(hi);
    }
    if from <= len {
        pieces += 1;
        found = FreeSpan::One { lo: from, hi: len };
    }
    match pieces {
        0 => FreeSpan::Empty,
        1 => found,
        _ => FreeSpan::Several,
    }
}

/// Non-incident walls whose distance bounds an edge's [`NearWalls`] list.
const NEAR_WALLS: usize = 4;

/// For each portal (a non-wall edge between walkable triangles), the walls that can
/// take part of it away from a disc, for every radius up to a bound: independent of
/// any radius, so that [`NavMesh::free_span`] reads a short list instead of searching
/// the mesh. A portal's list is computed the first time it is asked for (building the
/// mesh only numbers the portals), once, whichever thread asks: it depends on the
/// mesh alone, so answers are the same on any number of threads.
///
/// An edge's list holds the walls met by a search outward from the edge that crosses
/// only non-wall edges nearer than the [`NEAR_WALLS`]-th nearest wall found so far
/// (walls sharing an end with the edge, at distance 0, do not count) and than the
/// edge's length, and are nearer than the final bound. For a radius `r` up to the bound, every wall that
/// `free_span`'s own search meets nearer than `r` is met by this one (it crosses at
/// least the same edges), so the list holds it; the list may also hold walls that
/// search would not reach, behind a nearer wall, whose cuts then lie inside that
/// wall's.
#[derive(Clone, Debug, Default)]
pub(crate) struct NearWalls {
    /// Per triangle and edge: the portal's directed edge `3 * t + e`, the one its
    /// list is searched from, `t` being the lower-numbered of its two triangles; or
    /// `NONE`.
    portal: Vec<[u32; 3]>,
    /// Per directed edge: its portal's list, once asked for (unused for the other
    /// directed edges).
    lists: Vec<OnceLock<NearList>>,
}

/// A wall of a [`NearWalls`] list, with what its capsule cuts from the portal's line
/// (see [`capsule_cut`]) worked out as far as it does not depend on the radius: the
/// line is `p + s u`, from the portal's lower-numbered vertex `p`, `u` of unit length.
#[derive(Clone, Copy, Debug)]
pub(super) struct NearWall {
    /// Squared distance from the edge.
    d2: f64,
    /// Per end `c` of the wall: `u · (c - p)` and the squared distance of `c` from the
    /// line.
    ends: [(f64, f64); 2],
    /// Where the line runs alongside the wall (its points' projections fall on the
    /// wall): `s` from `along.0` to `along.1`; empty when `along.0 > along.1`.
    along: (f64, f64),
    /// The line's signed distance from the wall's line at `s`: `across.0 + s across.1`.
    across: (f64, f64),
}

impl NearWall {
    /// The wall from `a` to `b`, measured against the line `p + s u`.
    fn new(d2: f64, p: DVec2, u: DVec2, a: DVec2, b: DVec2) -> NearWall {
        let end = |c: DVec2| {
            let m = u.dot(c - p);
            (m, (c - p).length_squared() - m * m)
        };
        let ab = b - a;
        let ell = ab.length();
        let (mut along, mut across) = ((f64::INFINITY, f64::NEG_INFINITY), (0.0, 0.0));
        if ell > 0.0 {
            let w = ab / ell;
            let n = w.perp();
            let (al0, al1) = ((p - a).dot(w), u.dot(w));
            along = if al1 == 0.0 {
                if (0.0..=ell).contains(&al0) {
                    (f64::NEG_INFINITY, f64::INFINITY)
                } else {
                    along
                }
            } else {
                let (x, y) = (-al0 / al1, (ell - al0) / al1);
                (x.min(y), x.max(y))
            };
            across = ((p - a).dot(n), u.dot(n));
        }
        NearWall {
            d2,
            ends: [end(a), end(b)],
            along,
            across,
        }
    }

    /// The open interval of `s` where the line lies nearer than `r` to the wall (see
    /// [`capsule_cut`]).
    fn cut(&self, r: f64) -> Option<(f64, f64)> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        let r2 = r * r;
        for (m, h2) in self.ends {
            let disc = r2 - h2;
            if disc > 0.0 {
                let s = disc.sqrt();
                lo = lo.min(m - s);
                hi = hi.max(m + s);
            }
        }
        let (mut s_lo, mut s_hi) = self.along;
        let (be0, be1) = self.across;
        if be1 == 0.0 {
            if be0 < -r || be0 > r {
                s_hi = f64::NEG_INFINITY;
            }
        } else {
            let (x, y) = ((-r - be0) / be1, (r - be0) / be1);
            s_lo = s_lo.max(x.min(y));
            s_hi = s_hi.min(x.max(y));
        }
        if s_lo < s_hi {
            lo = lo.min(s_lo);
            hi = hi.max(s_hi);
        }
        (lo < hi).then_some((lo, hi))
    }
}

/// One portal's walls, nearest first, and the squared radius they cover.
#[derive(Clone, Debug)]
struct NearList {
    walls: Box<[NearWall]>,
    reach2: f64,
}

thread_local! {
    /// Search buffers of the lists computed on this thread.
    static NEAR_SCRATCH: RefCell<NearScratch> = RefCell::default();
}

impl NearWalls {
    /// The lists of the portals named by `portal` (per triangle and edge, the
    /// portal's directed edge `3 t + e` from its lower-numbered triangle `t`, or
    /// `NONE`), not yet computed.
    pub(crate) fn with_leaves(portal: Vec<[u32; 3]>) -> NearWalls {
        let lists = (0..3 * portal.len()).map(|_| OnceLock::new()).collect();
        NearWalls { portal, lists }
    }

    /// The walls of edge `e` of triangle `t` of `mesh` (whose lists these are) when
    /// the edge is a portal and its list covers squared radius `r2`.
    pub(super) fn within(
        &self,
        mesh: &NavMesh,
        t: TriangleId,
        e: usize,
        r2: f64,
    ) -> Option<&[NearWall]> {
        let id = *self.portal.get(t.index())?.get(e)?;
        let slot = self.lists.get(id as usize)?;
        let list = slot.get_or_init(|| {
            let (t, e) = (TriangleId(id / 3), (id % 3) as usize);
            NEAR_SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
                Ok(mut scratch) => near_walls_of(mesh, t, e, &mut scratch),
                Err(_) => near_walls_of(mesh, t, e, &mut NearScratch::default()),
            })
        });
        (r2 <= list.reach2).then_some(&list.walls[..])
    }
}

/// Buffers reused by the list searches of one thread.
#[derive(Default)]
struct NearScratch {
    /// Triangles to expand: id, the edge it was entered by, and the squared distances
    /// of that edge's two ends (its vertices `entry` and `entry + 1`) from the portal.
    stack: Vec<(u32, u8, f64, f64)>,
    visited: Visited,
    /// Walls met, with their squared distances.
    found: Vec<(f64, [u32; 2])>,
}

/// The list of [`NearWalls`] for edge `e` of walkable triangle `t`.
///
/// Each edge met is measured in the orientation of the triangle it is met from, by the
/// least of its ends' distances from the portal and the portal's ends' distances from
/// it; an end's distance is carried along with the edge a triangle is entered by, and
/// that edge (whose triangle is already entered) is not measured again.
fn near_walls_of(mesh: &NavMesh, t: TriangleId, e: usize, scratch: &mut NearScratch) -> NearList {
    let NearScratch {
        stack,
        visited,
        found,
    } = scratch;
    let ids = mesh.triangles[t.index()];
    let (p_id, q_id) = {
        let (x, y) = (ids[e], ids[(e + 1) % 3]);
        (x.min(y), x.max(y))
    };
    let pos = |v: u32| mesh.vertices[v as usize].as_dvec2();
    let (p, q) = (pos(p_id), pos(q_id));
    let from_portal = |v: u32| distance_squared_to_segment(pos(v), p, q);
    // The NEAR_WALLS smallest squared distances of walls not touching the edge, sorted,
    // and at most the edge's squared length: a disc wider than the edge seldom crosses
    // it, and the bound keeps the search local from its start.
    let mut nearest = [p.distance_squared(q); NEAR_WALLS];
    found.clear();
    stack.clear();
    visited.start(mesh.triangles.len());
    visited.enter(t.0);
    let mut first = true;
    while let Some((tri, entry, d_from, d_to)) = if first {
        first = false;
        Some((t.0, 0, from_portal(ids[0]), from_portal(ids[1])))
    } else {
        stack.pop()
    } {
        let tv = mesh.triangles[tri as usize];
        let entry = usize::from(entry);
        // Squared distances of the vertices entry, entry + 1, entry + 2 (mod 3).
        let far = from_portal(tv[(entry + 2) % 3]);
        let ends = [d_from, d_to, far];
        // The start triangle measures all three edges; the others skip their entry.
        for k in 0..3 {
            let step = (k + 3 - entry) % 3;
            if step == 0 && tri != t.0 {
                continue;
            }
            let (a_id, b_id) = (tv[k], tv[(k + 1) % 3]);
            let (a, b) = (pos(a_id), pos(b_id));
            let d2 = ends[step]
                .min(ends[(step + 1) % 3])
                .min(distance_squared_to_segment(p, a, b))
                .min(distance_squared_to_segment(q, a, b));
            if d2 >= nearest[NEAR_WALLS - 1] {
                continue;
            }
            if mesh.is_wall(TriangleId(tri), k) {
                found.push((d2, [a_id, b_id]));
                let touches = [a_id, b_id].iter().any(|&v| v == p_id || v == q_id);
                if !touches {
                    // Insert into the sorted bound list.
                    let mut i = NEAR_WALLS - 1;
                    nearest[i] = d2;
                    while i > 0 && nearest[i - 1] > nearest[i] {
                        nearest.swap(i - 1, i);
                        i -= 1;
                    }
                }
                continue;
            }
            let nb = mesh.neighbors[tri as usize][k];
            if nb == NONE || !visited.enter(nb) {
                continue;
            }
            let Some(back) = (0..3).find(|&j| mesh.neighbors[nb as usize][j] == tri) else {
                continue;
            };
            // The shared edge runs b -> a in the neighbour.
            stack.push((nb, back as u8, ends[(step + 1) % 3], ends[step]));
        }
    }
    let reach2 = nearest[NEAR_WALLS - 1];
    let u = (q - p).normalize_or_zero();
    let mut walls: Vec<NearWall> = found
        .iter()
        .filter(|&&(d2, _)| d2 < reach2)
        .map(|&(d2, [a, b])| NearWall::new(d2, p, u, pos(a), pos(b)))
        .collect();
    walls.sort_by(|x, y| x.d2.total_cmp(&y.d2));
    NearList {
        walls: walls.into_boxed_slice(),
        reach2,
    }
}

/// The open interval of `s` where `p + s u` (`u` a unit vector) lies nearer than `r` to
/// segment `a b`: the line through a capsule, which is convex, so the union of its
/// passes through the two end discs and the middle strip.
fn capsule_cut(p: DVec2, u: DVec2, a: DVec2, b: DVec2, r: f64) -> Option<(f64, f64)> {
    NearWall::new(0.0, p, u, a, b).cut(r)
}
