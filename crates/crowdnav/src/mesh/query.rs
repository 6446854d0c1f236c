//! What a game loop asks of the mesh for a disc of radius `r` (`r = 0` included), each
//! answer exact for that disc on the one mesh, with no baked agent radius:
//!
//! - [`NavMesh::nearest_point`] and [`NavMesh::nearest_point_reachable`]: where the
//!   disc fits nearest to a point (a click snapped onto the level);
//! - [`NavMesh::raycast`]: how far the disc slides along a segment before it touches a
//!   wall;
//! - [`NavMesh::move_along_surface`]: a character controller's collide-and-slide;
//! - [`NavMesh::random_point`], [`NavMesh::random_point_in_circle`],
//!   [`NavMesh::random_point_reachable`]: uniform by area over where the disc fits;
//! - [`NavMesh::nearest_wall`]: the nearest wall point, its distance and normal;
//! - [`NavMesh::triangles_in_circle`]: the walkable triangles a circle touches.
//!
//! The random-point queries take any `rand_core` 0.6 generator (`rand` 0.8's, such as
//! `rand_chacha::ChaCha8Rng`): the crate's own `rand` dependency.
//!
//! **Where a disc fits.** A disc of radius `r` centred at `x` fits when `x` is in
//! walkable space and no wall is nearer than `r`. The free space is bounded by the
//! walls' offset lines at distance `r` (walkable side) and arcs of radius `r` around
//! wall ends; its nearest point to a query point lies on one of these pieces (the foot
//! of a perpendicular, or the point of an arc towards the query) or where two pieces
//! meet. [`NavMesh::nearest_point`] gathers the walls near the query point on a grid,
//! widening the search until a candidate in reach is confirmed, so the answer is the
//! exact nearest point up to rounding (then moved a few `f32` ulps into the free space,
//! so that [`NavMesh::clearance`] of the answer is at least `r`). No point of a piece
//! is nearer than the piece's own nearest point, so the pieces are taken nearest first
//! and their crossings made only when they could be the answer.
//!
//! **Per-radius data.** The first [`NavMesh::nearest_point`] at a radius builds that
//! radius's free-space boundary once (the pieces split where they cross, those on the
//! boundary kept, on a grid; a few hundred milliseconds on a 35 000-wall map) and keeps
//! it with the mesh for up to eight radii, each at most two query-grid cells wide; a
//! query then takes the nearest kept point, confirms it, and falls back on the search
//! above in the rare case it cannot. Other radii take the search directly: the answers
//! are the same either way. After an edit, the first nearest point at a radius brings
//! its data up to date near the change only (about 1.5 ms on that map).
//! Likewise the first [`NavMesh::raycast`] of a disc at a radius builds a grid whose
//! cells list the walls within the radius of them (tens of milliseconds on that map;
//! `mesh/query_ray.rs`), so that a raycast follows the ray's line through the cells
//! instead of a band `2r` wide. A raycast needs no start triangle then, only that its
//! start is walkable: each cell of the grid keeps a bit for each of its 8 × 8
//! sub-cells that lies wholly in walkable space (`mesh/query_walkable.rs`), which says
//! so for nearly every start away from walls, with the line of memory that holds the
//! start cell's walls; other starts are located, and at `r = 0` walk the triangles.

use super::clearance::{closest_point, distance_squared_to_segment, distance_to_segment, Visited};
use super::navmesh::{NavMesh, TriangleId, NONE};
use super::Location;
use crate::geom::capsule_entry;
use crate::geom::Segment;
use crate::grid::{dense_side, WallGrid};
use glam::{DVec2, Vec2};
use radius::CellClass;
use rand::RngCore;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[path = "query_radius.rs"]
mod radius;
#[path = "query_ray.rs"]
mod ray;
#[path = "query_update.rs"]
mod update;
#[path = "query_walk.rs"]
mod walk;
pub(crate) use update::Frame;
#[path = "query_walkable.rs"]
mod walkable;

/// Why a mesh query refused its input. The mesh is never changed by a query.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum MeshQueryError {
    /// A coordinate or a distance was NaN or infinite.
    #[error("{argument} is not finite")]
    NotFinite {
        /// The argument at fault (`"point"`, `"from"`, `"to"`, `"center"` …).
        argument: &'static str,
    },
    /// A radius was negative or NaN.
    #[error("{argument} {value} is not a finite number >= 0")]
    BadRadius {
        /// The argument at fault (`"radius"` or `"circle radius"`).
        argument: &'static str,
        /// Its value.
        value: f32,
    },
    /// A ray or a move from a point to itself: it has no direction.
    #[error("the ray from {from} to itself has zero length")]
    ZeroLengthRay {
        /// Its start (and end).
        from: Vec2,
    },
    /// A query that starts on the mesh was given a point outside walkable space.
    #[error("{point} is not in walkable space")]
    OffMesh {
        /// The point.
        point: Vec2,
    },
    /// A query that moves a disc was given a start where the disc does not fit.
    #[error("a disc of radius {radius} does not fit at {point}: a wall is {clearance} away")]
    NoRoom {
        /// The start.
        point: Vec2,
        /// The disc's radius.
        radius: f32,
        /// The distance from the start to its nearest wall.
        clearance: f32,
    },
}

/// Where a disc fits nearest to a query point: see [`NavMesh::nearest_point`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearestPoint {
    /// The disc's centre: walkable, and at least the radius from every wall.
    pub point: Vec2,
    /// The walkable triangle that holds `point`.
    pub triangle: TriangleId,
    /// Distance from the query point to `point` (0 when the query point itself fits).
    pub distance: f32,
}

/// Where a disc swept along a ray first touches a wall: see [`NavMesh::raycast`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// How far along the ray the disc touches, from 0 (at `from`) to 1 (at `to`).
    pub fraction: f32,
    /// The disc's centre at the touch: `from + fraction * (to - from)`.
    pub point: Vec2,
    /// The wall point the disc touches (at distance `radius` from `point`).
    pub contact: Vec2,
    /// Unit normal of the wall at `contact`, pointing towards `point` (for `r = 0`,
    /// the wall's normal on the side the ray came from).
    pub normal: Vec2,
}

/// The nearest wall to a point: see [`NavMesh::nearest_wall`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallDistance {
    /// Distance from the query point to `point`.
    pub distance: f32,
    /// The nearest wall point.
    pub point: Vec2,
    /// Unit vector from `point` towards the query point (the wall's own normal, facing
    /// walkable space, when the query point is on the wall).
    pub normal: Vec2,
}

/// Where a disc ends after [`NavMesh::move_along_surface`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slide {
    /// The disc's final centre: `to` when nothing was in the way.
    pub position: Vec2,
    /// How many times the disc touched a wall on the way (0: moved straight to `to`).
    pub hits: u32,
}

/// Most samples a random-point query draws before it gives up (see
/// [`NavMesh::random_point`]).
pub const MAX_RANDOM_SAMPLES: u32 = 1 << 16;

/// The length of the pieces of a ray whose walls [`NavMesh::raycast`] gathers at a
/// time from the grid, in cells.
const CHUNK_CELLS: f64 = 1.0;

/// Most walls [`NavMesh::move_along_surface`] slides along in one move.
pub const MAX_SLIDES: u32 = 4;

/// Per-mesh data the queries build on first use: the walls on a grid, and the walkable
/// triangles' running areas for sampling. An edit keeps a built index aside, and the
/// first use after it brings it up to date where the edit changed the mesh (see
/// `mesh/query_update.rs`).
pub(crate) type LazyQueryIndex = super::lazy::Refreshed<QueryIndex>;

#[derive(Clone, Debug)]
pub(crate) struct QueryIndex {
    /// The box and wall count that size the grids, kept through edits.
    frame: update::Frame,
    /// The mesh's triangles and flags, as last taken.
    seen: update::Seen,
    /// Per triangle, where its walls start in `walls` (one more entry at the end).
    first: Vec<u32>,
    /// The area of each triangle of `area_triangles`.
    areas: Vec<f64>,
    /// Buffers for the next update.
    spare: update::Spare,
    walls: Vec<Segment>,
    grid: WallGrid,
    /// The side of the grid's cells, as asked for.
    grid_cell: f32,
    /// The edges of the triangulation's convex hull.
    hull: Vec<(DVec2, DVec2)>,
    /// Bounding box of the vertices.
    lo: DVec2,
    hi: DVec2,
    /// The walkable triangles, and after each the sum of the areas up to it.
    area_triangles: Vec<u32>,
    area_sums: Vec<f64>,
    /// What the nearest-point queries build per radius, on first use.
    radii: radius::RadiusIndexes,
    /// What the raycasts build per radius, on first use.
    ray_grids: radius::RadiusSlots<ray::RayGrid>,
    /// The walls in `f64`.
    walls64: Vec<(DVec2, DVec2)>,
    /// The walkable triangles as the raycast's walk reads them.
    walk: walk::Walk,
}

impl QueryIndex {
    /// The index of `mesh`, on the grids its frame sizes (see [`update::Frame::of`]).
    fn new(mesh: &NavMesh) -> QueryIndex {
        let frame = update::Frame::of(mesh);
        let tables = update::Tables::take(mesh, None, &mut update::Spare::default());
        let walls = tables.walls;
        let (lo, hi) = (frame.lo, frame.hi);
        let grid = WallGrid::with_layout(&walls, frame.grid);
        let walls64 = walls
            .iter()
            .map(|w| (w.a.as_dvec2(), w.b.as_dvec2()))
            .collect();
        QueryIndex {
            frame,
            seen: update::Seen::of(mesh, tables.hull_triangles),
            spare: update::Spare::default(),
            first: tables.first,
            areas: tables.areas,
            walls,
            grid,
            grid_cell: frame.grid_cell(),
            hull: tables.hull,
            lo,
            hi,
            area_triangles: tables.area_triangles,
            area_sums: tables.area_sums,
            radii: radius::RadiusIndexes::default(),
            ray_grids: radius::RadiusSlots::default(),
            walls64,
            walk: walk::Walk::new(mesh, lo, hi),
        }
    }
}

/// Scratch reused by one thread's queries: triangles and walls seen, and a stack.
#[derive(Default)]
struct Scratch {
    triangles: Visited,
    walls: Visited,
    stack: Vec<u32>,
}

impl Scratch {
    /// Starts a search over triangles `0..triangles`.
    fn start(&mut self, triangles: usize) {
        self.triangles.start(triangles);
        self.stack.clear();
    }

    /// Starts a search over walls `0..walls` (marks of earlier searches expire).
    fn start_walls(&mut self, walls: usize) {
        self.walls.start(walls);
        self.stack.clear();
    }

    /// Marks wall `w`; false when it was already marked in this search.
    fn enter_wall(&mut self, w: u32) -> bool {
        self.walls.enter(w)
    }

    /// Marks `t`; false when it was already marked in this search.
    fn enter(&mut self, t: u32) -> bool {
        self.triangles.enter(t)
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    static NEAR_SCRATCH: RefCell<NearScratch> = RefCell::new(NearScratch::default());
}

/// Buffers reused by one thread's nearest-point searches (apart from [`Scratch`], which
/// the point locations and wall searches they make use).
#[derive(Default)]
struct NearScratch {
    /// Walls already gathered in this round: `seen[w] == generation`.
    seen: Vec<u32>,
    generation: u32,
    /// The walls near the query point: distance to it, index, ends; nearest first.
    walls: Vec<(f64, u32, DVec2, DVec2)>,
    /// The pieces of the walls' boundaries at `r` made so far.
    pieces: Vec<Piece>,
    /// Those whose candidates are not made yet, nearest first.
    queued: BinaryHeap<Reverse<Queued>>,
    /// The pieces whose candidates are made.
    active: Vec<Piece>,
    made: Vec<DVec2>,
    local: Vec<(DVec2, DVec2)>,
    /// Wall indices gathered around a candidate.
    made_walls: Vec<u32>,
    heap: BinaryHeap<Reverse<Candidate>>,
}

/// Runs `f` with this thread's nearest-point buffers (fresh ones if they are in use).
fn with_near_scratch<T>(f: impl FnOnce(&mut NearScratch) -> T) -> T {
    NEAR_SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut NearScratch::default()),
    })
}

/// Runs `f` with this thread's scratch (a fresh one if it is already in use).
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::default()),
    })
}

fn finite(argument: &'static str, p: Vec2) -> Result<(), MeshQueryError> {
    match p.is_finite() {
        true => Ok(()),
        false => Err(MeshQueryError::NotFinite { argument }),
    }
}

/// A ray's checked arguments: finite ends apart from each other and a valid radius
/// (returned in `f64`). Valid arguments are told by a few bit tests together
/// (`0 x` is zero for a finite `x`, NaN otherwise); the checks one by one,
/// [`ray_error`], say what is wrong.
#[inline]
fn ray_ok(from: Vec2, to: Vec2, radius: f32) -> Result<f64, MeshQueryError> {
    let ends = glam::Vec4::new(from.x, from.y, to.x, to.y);
    let finite = (ends * 0.0).cmpeq(glam::Vec4::ZERO).all();
    // (A finite radius `>= 0`, as two comparisons: LLVM makes a range test of it
    // into a dozen integer instructions.)
    let radius_ok = (radius * 0.0 == 0.0) & (radius >= 0.0);
    if finite & radius_ok & (from != to) {
        return Ok(f64::from(radius));
    }
    ray_error(from, to, radius)
}

/// [`ray_ok`]'s checks one by one, in order.
#[cold]
#[inline(never)]
fn ray_error(from: Vec2, to: Vec2, radius: f32) -> Result<f64, MeshQueryError> {
    finite("from", from)?;
    finite("to", to)?;
    let r = radius_ok("radius", radius)?;
    if from == to {
        return Err(MeshQueryError::ZeroLengthRay { from });
    }
    Ok(r)
}

fn radius_ok(argument: &'static str, r: f32) -> Result<f64, MeshQueryError> {
    match r.is_finite() && r >= 0.0 {
        true => Ok(f64::from(r)),
        false => Err(MeshQueryError::BadRadius { argument, value: r }),
    }
}

/// A hair beyond a distance: enough ulps of the point's coordinates and of the radius
/// that rounding to `f32` keeps a point on the free side.
fn hair(p: DVec2, r: f64) -> f64 {
    let scale = p.abs().max_element().max(r).max(1.0);
    scale * 8.0 * f64::from(f32::EPSILON)
}

/// A uniform number in `[0, 1)`.
fn unit(rng: &mut (impl RngCore + ?Sized)) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform point of triangle `a b c`.
fn point_in_triangle(rng: &mut (impl RngCore + ?Sized), [a, b, c]: [DVec2; 3]) -> DVec2 {
    let s = unit(rng).sqrt();
    let u = unit(rng);
    a * (1.0 - s) + b * (s * (1.0 - u)) + c * (s * u)
}

/// Picks an index by weight from running sums (the last is the total).
fn pick(rng: &mut (impl RngCore + ?Sized), sums: &[f64]) -> Option<usize> {
    let total = *sums.last()?;
    let x = unit(rng) * total;
    Some(sums.partition_point(|&s| s <= x).min(sums.len() - 1))
}

/// A wall's ends in `f64`.
type Wall64 = (DVec2, DVec2);

#[cfg(test)]
use crate::geom::segments_distance_squared_f64 as segment_distance_squared;

/// The left unit normal of `a b` (towards walkable space for a wall), or zero.
fn left_normal(a: DVec2, b: DVec2) -> DVec2 {
    (b - a).perp().normalize_or_zero()
}

/// Points where the boundary of the free space of radius `r` may come nearest to `p`,
/// given the walls (as `f64` segments) that can shape it near `p`: the nearest point of
/// each wall (for `r = 0`), or of each wall's offset line and end arcs, and every
/// crossing of the offset lines and arcs of two walls at most `2r` apart.
///
/// The pairs are found by a sweep along `x` over the walls' boxes, so that the cost
/// is about linear in the walls rather than quadratic; `order` is scratch.
#[cfg(test)]
fn boundary_candidates(
    p: DVec2,
    r: f64,
    walls: &[(DVec2, DVec2)],
    order: &mut Vec<u32>,
    out: &mut Vec<DVec2>,
) {
    out.clear();
    for &(a, b) in walls {
        wall_candidates(p, r, (a, b), out);
    }
    if r == 0.0 {
        return;
    }
    // Sweep: walls by the low x of their boxes; a pair's boxes, grown by 2r, overlap.
    let reach = 2.0 * r * (1.0 + 1e-9);
    order.clear();
    order.extend(0..walls.len() as u32);
    let lo_x = |i: u32| {
        let (a, b) = walls[i as usize];
        a.x.min(b.x)
    };
    order.sort_unstable_by(|&i, &j| lo_x(i).total_cmp(&lo_x(j)).then(i.cmp(&j)));
    for (k, &i) in order.iter().enumerate() {
        let (a, b) = walls[i as usize];
        let (lo, hi) = (a.min(b), a.max(b));
        for &j in &order[k + 1..] {
            let (c, d) = walls[j as usize];
            if c.x.min(d.x) > hi.x + reach {
                break;
            }
            if c.y.min(d.y) > hi.y + reach || c.y.max(d.y) < lo.y - reach {
                continue;
            }
            if segment_distance_squared(a, b, c, d) <= reach * reach {
                pair_candidates((a, b), (c, d), r, out);
            }
        }
    }
}

/// The points of one wall's pieces nearest to `p`: the wall's own nearest point for
/// `r = 0`; else the nearest point of its offset line at `r` (on its walkable side) and
/// of the circles of radius `r` round its ends. No point of these pieces is nearer to
/// `p`, so neither is any crossing of them with another wall's.
#[cfg(test)]
fn wall_candidates(p: DVec2, r: f64, wall: (DVec2, DVec2), out: &mut Vec<DVec2>) {
    wall_candidates_into(p, r, wall, out);
}

/// [`wall_candidates`] into any list.
fn wall_candidates_into(p: DVec2, r: f64, (a, b): (DVec2, DVec2), out: &mut impl Extend<DVec2>) {
    if r == 0.0 {
        out.extend([closest_point(p, a, b)]);
        return;
    }
    let towards = |c: DVec2| match (p - c).try_normalize() {
        Some(u) => c + u * r,
        None => c + DVec2::X * r,
    };
    let n = left_normal(a, b);
    out.extend([
        closest_point(p, a + n * r, b + n * r),
        towards(a),
        towards(b),
    ]);
}

/// The hit of a disc of radius `r` swept from `s` along `d` that touches wall `a b`
/// at time `t`.
fn ray_hit(s: DVec2, d: DVec2, t: f64, (a, b): (DVec2, DVec2), r: f64) -> RayHit {
    let point = s + d * t;
    let contact = closest_point(point, a, b);
    let normal = match (point - contact).try_normalize() {
        Some(n) if r > 0.0 => n,
        _ => {
            let n = left_normal(a, b);
            if n.dot(d) > 0.0 {
                -n
            } else {
                n
            }
        }
    };
    RayHit {
        fraction: t as f32,
        point: point.as_vec2(),
        contact: contact.as_vec2(),
        normal: normal.as_vec2(),
    }
}

/// The crossings of the offset lines and end arcs of two walls, at radius `r`.
#[cfg(test)]
fn pair_candidates((a, b): (DVec2, DVec2), (c, d): (DVec2, DVec2), r: f64, out: &mut Vec<DVec2>) {
    let (n, m) = (left_normal(a, b), left_normal(c, d));
    let (oa, ob, oc, od) = (a + n * r, b + n * r, c + m * r, d + m * r);
    segment_crossing(oa, ob, oc, od, out);
    for e in [c, d] {
        segment_circle(oa, ob, e, r, out);
    }
    for e in [a, b] {
        segment_circle(oc, od, e, r, out);
        for f in [c, d] {
            circle_circle(e, f, r, out);
        }
    }
}

/// One piece of the boundary of the free space at radius `r`: a wall's offset line
/// at `r` (on its walkable side), a circle of radius `r` round one of its ends, or (for
/// `r = 0`) the wall itself.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Line(DVec2, DVec2),
    Arc(DVec2),
    Wall,
}

impl Shape {
    /// Appends the points where `self` and `other` cross (the pieces of two walls, as
    /// [`pair_candidates`] makes them).
    fn crossings(self, other: Shape, r: f64, out: &mut Vec<DVec2>) {
        match (self, other) {
            (Shape::Line(a, b), Shape::Line(c, d)) => segment_crossing(a, b, c, d, out),
            (Shape::Line(a, b), Shape::Arc(c)) | (Shape::Arc(c), Shape::Line(a, b)) => {
                segment_circle(a, b, c, r, out)
            }
            (Shape::Arc(a), Shape::Arc(c)) => circle_circle(a, c, r, out),
            _ => {}
        }
    }
}

/// A [`Shape`] of a wall near the query point, with its box and its nearest point to
/// the query point (`bound` away: no point of the piece is nearer).
#[derive(Clone, Copy, Debug)]
struct Piece {
    shape: Shape,
    wall: u32,
    /// Its place among the wall's pieces (for a total order).
    order: u8,
    lo: DVec2,
    hi: DVec2,
    near: DVec2,
    bound: f64,
}

/// The reaches of [`NavMesh::nearest_free`]'s rounds: `floor + step`, `step` doubling
/// until the reach passes `bound`.
#[derive(Clone, Copy, Debug)]
struct Rounds {
    /// No free point is nearer (less a rounding margin).
    floor: f64,
    /// The first round's reach beyond the floor.
    step: f64,
    /// No free point is farther.
    bound: f64,
}

/// A [`Piece`] waiting in the search, ordered by its bound, then wall and place (a
/// total order, so that ties break the same way on every run).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Queued {
    bound: f64,
    wall: u32,
    order: u8,
    index: u32,
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.bound
            .total_cmp(&other.bound)
            .then(self.wall.cmp(&other.wall))
            .then(self.order.cmp(&other.order))
    }
}

/// The pieces of wall `wall` (`a b`) at radius `r`, with their nearest points to `p`
/// (those of [`wall_candidates`]), into `out`.
fn wall_pieces(p: DVec2, r: f64, wall: u32, (a, b): (DVec2, DVec2), out: &mut Vec<Piece>) {
    let piece = |order: u8, shape: Shape, lo: DVec2, hi: DVec2, near: DVec2| Piece {
        shape,
        wall,
        order,
        lo,
        hi,
        near,
        bound: near.distance(p),
    };
    if r == 0.0 {
        out.push(piece(
            0,
            Shape::Wall,
            a.min(b),
            a.max(b),
            closest_point(p, a, b),
        ));
        return;
    }
    let mut near = smallvec::SmallVec::<[DVec2; 3]>::new();
    wall_candidates_into(p, r, (a, b), &mut near);
    let n = left_normal(a, b);
    let (oa, ob) = (a + n * r, b + n * r);
    out.push(piece(
        0,
        Shape::Line(oa, ob),
        oa.min(ob),
        oa.max(ob),
        near[0],
    ));
    for (k, c) in [(1, a), (2, b)] {
        out.push(piece(k, Shape::Arc(c), c - r, c + r, near[k as usize]));
    }
}

/// A candidate point and its distance from the query, ordered by distance then
/// coordinates (a total order, so that ties break the same way on every run).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Candidate(f64, DVec2);

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .total_cmp(&other.0)
            .then(self.1.x.total_cmp(&other.1.x))
            .then(self.1.y.total_cmp(&other.1.y))
    }
}

/// Where segment `a b` crosses segment `c d`, as the parameter along `a b` (0 at `a`,
/// 1 at `b`); `None` for parallel segments or no crossing.
fn segment_crossing_at(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> Option<f64> {
    let (u, v) = (b - a, d - c);
    let den = u.perp_dot(v);
    if den == 0.0 {
        return None;
    }
    let w = c - a;
    let (s, t) = (w.perp_dot(v) / den, w.perp_dot(u) / den);
    ((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t)).then_some(s)
}

fn segment_crossing(a: DVec2, b: DVec2, c: DVec2, d: DVec2, out: &mut Vec<DVec2>) {
    out.extend(segment_crossing_at(a, b, c, d).map(|s| a + (b - a) * s));
}

/// Where segment `a b` crosses the circle of radius `r` round `c`, as parameters along
/// `a b` (0 at `a`, 1 at `b`), nearer `a` first; none for a degenerate segment.
fn segment_circle_at(a: DVec2, b: DVec2, c: DVec2, r: f64) -> impl Iterator<Item = f64> {
    let (d, m) = (b - a, a - c);
    let (qa, qb, qc) = (d.length_squared(), m.dot(d), m.length_squared() - r * r);
    let disc = qb * qb - qa * qc;
    let roots = if qa == 0.0 || disc < 0.0 {
        [f64::NAN; 2]
    } else {
        let root = disc.sqrt();
        [(-qb - root) / qa, (-qb + root) / qa]
    };
    // (NaN is in no range.)
    roots.into_iter().filter(|t| (0.0..=1.0).contains(t))
}

fn segment_circle(a: DVec2, b: DVec2, c: DVec2, r: f64, out: &mut Vec<DVec2>) {
    out.extend(segment_circle_at(a, b, c, r).map(|t| a + (b - a) * t));
}

fn circle_circle(a: DVec2, b: DVec2, r: f64, out: &mut Vec<DVec2>) {
    let d = b - a;
    let dist_sq = d.length_squared();
    if dist_sq == 0.0 || dist_sq > 4.0 * r * r {
        return;
    }
    let mid = a + d * 0.5;
    let h = (r * r - dist_sq / 4.0).max(0.0).sqrt();
    let off = d.perp() * (h / dist_sq.sqrt());
    out.push(mid + off);
    out.push(mid - off);
}

impl NavMesh {
    /// The query index, built on first use.
    fn query_index(&self) -> &QueryIndex {
        self.query_index.get(|stale| match stale {
            Some(mut index) => {
                index.update(self);
                index
            }
            None => QueryIndex::new(self),
        })
    }

    /// The per-radius data for `r`, built on first use; `None` when the mesh already
    /// keeps the data of [`radius::MAX_RADII`] other radii, or for a radius wider than
    /// [`radius::MAX_CELLS_WIDE`] cells of the query grid (whose build, which crosses
    /// the pieces of every two walls within `2r`, would grow with the square of it).
    fn radius_index(&self, r: f64) -> Option<&radius::RadiusIndex> {
        let index = self.query_index();
        if r > radius::MAX_CELLS_WIDE * f64::from(index.grid_cell) {
            return None;
        }
        let walls = radius::Walls {
            walls: &index.walls64,
            segments: &index.walls,
            grid: &index.grid,
        };
        index.radii.get(
            r,
            || radius::RadiusIndex::new(self, r, &walls, index.lo, index.hi, index.frame.walls),
            |(kept, edits)| kept.update(self, &walls, edits),
        )
    }

    /// The raycasts' grid for radius `r`, built on first use; `None` as for
    /// [`NavMesh::radius_index`].
    fn ray_grid(&self, r: f64) -> Option<&ray::RayGrid> {
        let index = self.query_index();
        if r > radius::MAX_CELLS_WIDE * f64::from(index.grid_cell) {
            return None;
        }
        index.ray_grids.get(r, || {
            let cell = dense_side(
                index.lo.as_vec2(),
                index.hi.as_vec2(),
                index.frame.walls.max(1),
                ray::WALLS_PER_CELL,
            );
            ray::RayGrid::for_mesh(self, r, &index.walls, index.lo, index.hi, f64::from(cell))
        })
    }

    /// The nearest wall point to `x`, which lies in triangle `t`, among walls nearer
    /// than `limit`: searches outward from `t`, crossing only non-wall edges nearer
    /// than the best wall found so far, so the answer is exact and local. Stops as soon
    /// as a wall nearer than `stop` is found (then only that is known: some wall is
    /// nearer than `stop`). Returns the distance (`limit` when no wall is nearer) and
    /// the wall point with its wall's triangle and edge.
    pub(crate) fn nearest_wall_within(
        &self,
        x: DVec2,
        t: TriangleId,
        limit: f64,
        stop: f64,
    ) -> (f64, Option<(DVec2, TriangleId, usize)>) {
        with_scratch(|s| {
            s.start(self.triangles.len());
            let mut best = (limit, None);
            s.enter(t.0);
            s.stack.push(t.0);
            while let Some(tri) = s.stack.pop() {
                let ids = self.triangles[tri as usize];
                for e in 0..3 {
                    let (a, b) = (
                        self.vertices[ids[e] as usize].as_dvec2(),
                        self.vertices[ids[(e + 1) % 3] as usize].as_dvec2(),
                    );
                    let c = closest_point(x, a, b);
                    let d = x.distance(c);
                    if d >= best.0 {
                        continue;
                    }
                    if self.is_wall(TriangleId(tri), e) {
                        best = (d, Some((c, TriangleId(tri), e)));
                        if d < stop {
                            return best;
                        }
                        continue;
                    }
                    let nb = self.neighbors[tri as usize][e];
                    if nb != NONE && s.enter(nb) {
                        s.stack.push(nb);
                    }
                }
            }
            best
        })
    }

    /// Whether a disc of radius `r` centred at `x` (in walkable triangle `t`) is no
    /// nearer than `r` to any wall.
    fn has_room(&self, x: DVec2, t: TriangleId, r: f64) -> bool {
        self.nearest_wall_within(x, t, r, r).1.is_none()
    }

    /// [`NavMesh::has_room`] by the walls `walls`, which must hold every wall within
    /// `r` and a margin of `x` (those [`NavMesh::confirm_free`] is given): the same
    /// answer without the search over the triangles round `x`. The search finds a wall
    /// exactly when some wall is nearer than `r` (the nearest wall is reached through
    /// the triangles the segment to it crosses); a wall within rounding of `r` leaves
    /// the answer to the search itself.
    fn has_room_among(&self, x: DVec2, t: TriangleId, r: f64, walls: &[(DVec2, DVec2)]) -> bool {
        let eps = 1e-9 * (1.0 + r + x.abs().max_element());
        let mut close = false;
        for &(a, b) in walls {
            let d = x.distance(closest_point(x, a, b));
            if d < r - eps {
                return false;
            }
            close |= d < r + eps;
        }
        !close || self.has_room(x, t, r)
    }

    /// The nearest wall point to `point`, its distance, and the normal there.
    ///
    /// `point` may lie in walkable space or inside an obstacle (a blocked triangle);
    /// the search runs outward from its triangle and is exact.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`] for a NaN or infinite point;
    /// [`MeshQueryError::OffMesh`] for a point outside the triangulation, or on a mesh
    /// without walls.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let wall = mesh.nearest_wall(Vec2::new(3.0, 1.5))?;
    /// assert_eq!((wall.distance, wall.point, wall.normal), (1.5, Vec2::new(3.0, 0.0), Vec2::Y));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// *See also* [`NavMesh::clearance`] (the distance alone).
    #[doc(alias = "findDistanceToWall")]
    pub fn nearest_wall(&self, point: Vec2) -> Result<WallDistance, MeshQueryError> {
        finite("point", point)?;
        let t = match self.locate(point) {
            Location::Walkable(t) | Location::Blocked(t) => t,
            Location::Outside => return Err(MeshQueryError::OffMesh { point }),
        };
        let x = point.as_dvec2();
        let (d, Some((c, wt, e))) = self.nearest_wall_within(x, t, f64::INFINITY, 0.0) else {
            return Err(MeshQueryError::OffMesh { point });
        };
        let normal = match (x - c).try_normalize() {
            Some(n) => n,
            None => {
                let w = self.edge_segment(wt, e);
                let n = left_normal(w.a.as_dvec2(), w.b.as_dvec2());
                // The wall's edge belongs to a walkable or a blocked triangle: face the
                // walkable side either way.
                if self.is_walkable(wt) {
                    n
                } else {
                    -n
                }
            }
        };
        Ok(WallDistance {
            distance: d as f32,
            point: c.as_vec2(),
            normal: normal.as_vec2(),
        })
    }

    /// The walkable triangles that meet the closed circle of `radius` around `center`,
    /// in increasing id order, into `out` (cleared first).
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`] for a NaN or infinite centre;
    /// [`MeshQueryError::BadRadius`] for a negative or NaN radius.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let mut near = Vec::new();
    /// mesh.triangles_in_circle(Vec2::new(5.0, 5.0), 20.0, &mut near)?;
    /// assert_eq!(near.len(), mesh.walkable_triangles().count());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "findPolysAroundCircle")]
    pub fn triangles_in_circle(
        &self,
        center: Vec2,
        radius: f32,
        out: &mut Vec<TriangleId>,
    ) -> Result<(), MeshQueryError> {
        finite("center", center)?;
        let r = radius_ok("circle radius", radius)?;
        out.clear();
        let c = center.as_dvec2();
        let meets = |t: u32| {
            let [a, b, d] =
                self.triangles[t as usize].map(|v| self.vertices[v as usize].as_dvec2());
            let inside = (b - a).perp_dot(c - a) >= 0.0
                && (d - b).perp_dot(c - b) >= 0.0
                && (a - d).perp_dot(c - d) >= 0.0;
            inside
                || distance_to_segment(c, a, b) <= r
                || distance_to_segment(c, b, d) <= r
                || distance_to_segment(c, d, a) <= r
        };
        let start = match self.locate(center) {
            Location::Walkable(t) | Location::Blocked(t) => Some(t.0),
            // Outside the hull: any triangle the circle meets starts the search (the
            // circle meets the convex hull in a convex, so connected, set).
            Location::Outside => (0..self.triangles.len() as u32).find(|&t| meets(t)),
        };
        let Some(start) = start else {
            return Ok(());
        };
        with_scratch(|s| {
            s.start(self.triangles.len());
            s.enter(start);
            s.stack.push(start);
            while let Some(t) = s.stack.pop() {
                if self.is_walkable(TriangleId(t)) {
                    out.push(TriangleId(t));
                }
                let ids = self.triangles[t as usize];
                for e in 0..3 {
                    let nb = self.neighbors[t as usize][e];
                    if nb == NONE || s.triangles.is_marked(nb) {
                        continue;
                    }
                    let (a, b) = (
                        self.vertices[ids[e] as usize].as_dvec2(),
                        self.vertices[ids[(e + 1) % 3] as usize].as_dvec2(),
                    );
                    if distance_to_segment(c, a, b) <= r && s.enter(nb) {
                        s.stack.push(nb);
                    }
                }
            }
        });
        out.sort_unstable();
        Ok(())
    }

    /// The nearest place to `point` where a disc of `radius` fits: walkable, and at
    /// least `radius` from every wall. `point` itself when the disc fits there; `None`
    /// when it fits nowhere on the mesh. `point` may be anywhere: inside an obstacle,
    /// beyond the boundary, against a wall.
    ///
    /// Exact (see the notes at the top of `mesh/query.rs`), up to rounding: the answer is moved a few
    /// `f32` ulps into free space so that it passes [`NavMesh::clearance`] `>= radius`.
    /// Cost: a point location and a local wall search when the disc fits at `point`;
    /// otherwise a ring search of the free space's boundary kept for this radius (built
    /// on the first query at the radius: see the module's notes on per-radius data) and
    /// a confirmation of its nearest point, or, for a radius whose boundary is not
    /// kept, a search of the walls around `point` on a grid, widening until the nearest
    /// free point is confirmed.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`] for a NaN or infinite point;
    /// [`MeshQueryError::BadRadius`] for a negative or NaN radius.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{
    ///     "boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///     "obstacles": [[[4,4],[6,4],[6,6],[4,6]]]
    /// }"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// // A click inside the pillar snaps to half a metre off its left side.
    /// let near = mesh.nearest_point(Vec2::new(4.4, 5.0), 0.5)?.expect("room somewhere");
    /// assert!(near.point.distance(Vec2::new(3.5, 5.0)) < 1e-5);
    /// // No disc of radius 6 fits in a 10 m room.
    /// assert_eq!(mesh.nearest_point(Vec2::new(5.0, 5.0), 6.0)?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// *See also* [`NavMesh::nearest_point_reachable`].
    #[doc(alias = "findNearestPoly")]
    pub fn nearest_point(
        &self,
        point: Vec2,
        radius: f32,
    ) -> Result<Option<NearestPoint>, MeshQueryError> {
        finite("point", point)?;
        let r = radius_ok("radius", radius)?;
        if let Some(found) = self.nearest_on_boundary(point, r) {
            return Ok(found);
        }
        Ok(self.nearest_free(point, r, &mut |_, _| true))
    }

    /// [`NavMesh::nearest_point`] by the free space's boundary kept for radius `r`:
    /// `point` itself when the disc fits there, else the nearest point of the kept
    /// boundary once confirmed free. `None` when that cannot settle the query (no data
    /// kept for `r`, or the nearest kept point is not free): the caller searches.
    fn nearest_on_boundary(&self, point: Vec2, r: f64) -> Option<Option<NearestPoint>> {
        let p = point.as_dvec2();
        // Most points where a disc fits lie in cells where it fits everywhere (a point
        // fits anywhere walkable); most points inside obstacles or off the mesh, in
        // cells wholly so, which need no point location either.
        let class = (r > 0.0)
            .then(|| self.radius_index(r))
            .flatten()
            .map_or(CellClass::Unknown, |kept| kept.cell_class(p));
        if class != CellClass::Blocked {
            if let Location::Walkable(t) = self.locate(point) {
                if class == CellClass::Fits || self.has_room(p, t, r) {
                    return Some(Some(NearestPoint {
                        point,
                        triangle: t,
                        distance: 0.0,
                    }));
                }
            }
        }
        let q = self.radius_index(r)?.nearest_boundary(p)?;
        let index = self.query_index();
        // The walls within r and a few hairs of `q`, as the search keeps at hand.
        let reach = r + 1e-3 * (1.0 + r) + 64.0 * hair(q, r);
        with_near_scratch(|sc| {
            let mut found = std::mem::take(&mut sc.made_walls);
            radius::walls_near(&index.grid, q, reach, &mut found);
            sc.local.clear();
            sc.local.extend(found.iter().map(|&i| {
                let w = index.walls[i as usize];
                (w.a.as_dvec2(), w.b.as_dvec2())
            }));
            sc.made_walls = found;
            let found = self.confirm_free(q, r, &sc.local, &mut |_, _| true)?;
            Some(Some(NearestPoint {
                distance: (found.point.as_dvec2().distance(p) as f32).min(f32::MAX),
                ..found
            }))
        })
    }

    /// The nearest place to `point` where a disc of `radius` fits and that the disc can
    /// reach from `from`: [`NavMesh::find_path`] from `from` succeeds to it. `point`
    /// itself when it qualifies.
    ///
    /// Exact like [`NavMesh::nearest_point`]; candidates in other components of the free
    /// space are refused by the mesh's corridor index at once, the rest confirmed by a
    /// path query.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`], [`MeshQueryError::BadRadius`] for bad input;
    /// [`MeshQueryError::OffMesh`] when `from` is not in walkable space;
    /// [`MeshQueryError::NoRoom`] when the disc does not fit at `from`.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// // A wall across the room: the right half cannot be reached from the left.
    /// let level = Level::from_json(r#"{
    ///     "boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///     "obstacles": [[[4,-1],[6,-1],[6,11],[4,11]]]
    /// }"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let near = mesh.nearest_point_reachable(Vec2::new(1.0, 5.0), Vec2::new(9.0, 7.0), 0.5)?;
    /// assert!(near.point.distance(Vec2::new(3.5, 7.0)) < 1e-5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// *See also* [`NavMesh::nearest_reachable`] (the approximate goal substitute the
    /// world uses).
    pub fn nearest_point_reachable(
        &self,
        from: Vec2,
        point: Vec2,
        radius: f32,
    ) -> Result<NearestPoint, MeshQueryError> {
        finite("from", from)?;
        finite("point", point)?;
        let r = radius_ok("radius", radius)?;
        let start = self.start_with_room(from, r, radius)?;
        let mut reachable = |q: Vec2, t: TriangleId| {
            (t == start || self.corridor_linked(start, t, radius))
                && self.find_path(from, q, radius).is_ok()
        };
        Ok(self
            .nearest_free(point, r, &mut reachable)
            .unwrap_or(NearestPoint {
                point: from,
                triangle: start,
                distance: from.distance(point),
            }))
    }

    /// `from`'s walkable triangle, when a disc of radius `r` fits there.
    fn start_with_room(
        &self,
        from: Vec2,
        r: f64,
        radius: f32,
    ) -> Result<TriangleId, MeshQueryError> {
        let Location::Walkable(start) = self.locate(from) else {
            return Err(MeshQueryError::OffMesh { point: from });
        };
        let (d, _) = self.nearest_wall_within(from.as_dvec2(), start, r, -1.0);
        if d < r {
            return Err(MeshQueryError::NoRoom {
                point: from,
                radius,
                clearance: d as f32,
            });
        }
        Ok(start)
    }

    /// The nearest free point to `p` for radius `r` that `accept` takes (it is called on
    /// confirmed free points, nearest first).
    fn nearest_free(
        &self,
        point: Vec2,
        r: f64,
        accept: &mut dyn FnMut(Vec2, TriangleId) -> bool,
    ) -> Option<NearestPoint> {
        let p = point.as_dvec2();
        let index = self.query_index();
        // A lower bound on the answer's distance. From a walkable point nearer than r
        // to a wall, the disc must move r minus that distance. From inside an obstacle
        // or outside the hull, the way to a free point crosses a wall no nearer than
        // the nearest wall (or the hull) and ends r beyond it.
        let floor = match self.locate(point) {
            Location::Walkable(t) => {
                let (c, _) = self.nearest_wall_within(p, t, r, -1.0);
                if c >= r {
                    if accept(point, t) {
                        return Some(NearestPoint {
                            point,
                            triangle: t,
                            distance: 0.0,
                        });
                    }
                    0.0
                } else {
                    r - c
                }
            }
            Location::Blocked(t) => self.nearest_wall_within(p, t, f64::INFINITY, 0.0).0 + r,
            Location::Outside => {
                index
                    .hull
                    .iter()
                    .map(|&(a, b)| distance_to_segment(p, a, b))
                    .fold(f64::INFINITY, f64::min)
                    + r
            }
        };
        // Beyond this, no wall and so no free point.
        let bound = [
            index.lo,
            index.hi,
            DVec2::new(index.lo.x, index.hi.y),
            DVec2::new(index.hi.x, index.lo.y),
        ]
        .iter()
        .map(|c| c.distance(p))
        .fold(0.0, f64::max)
            + 2.0 * r;
        // Candidates nearer than the floor (less a rounding margin) are skipped.
        let margin = 1e-6 * (1.0 + r + p.abs().max_element());
        let floor = (floor - margin).max(0.0);
        let rounds = Rounds {
            floor,
            step: (2.0 * r).max(0.25 * f64::from(index.grid_cell)).max(1e-3),
            bound,
        };
        with_near_scratch(|sc| self.nearest_free_by_rounds(p, r, rounds, accept, sc))
    }

    /// The search of [`NavMesh::nearest_free`] once the floor is known: rounds of
    /// growing reach (`floor + step`, `step` doubling up to `bound`), each trying the
    /// candidates within reach nearest first.
    ///
    /// Within a round, the walls near `p` are taken nearest first, and their pieces
    /// (offset lines, end arcs) in order of their nearest point to `p`: a crossing of two pieces is no
    /// nearer than either piece's, so a piece's candidates (its nearest point, its
    /// crossings with the pieces taken before it) are made only once the nearest
    /// candidate waiting is farther than that. The first candidates tried usually
    /// settle the query, and most pairs of pieces are never looked at.
    fn nearest_free_by_rounds(
        &self,
        p: DVec2,
        r: f64,
        Rounds {
            floor,
            mut step,
            bound,
        }: Rounds,
        accept: &mut dyn FnMut(Vec2, TriangleId) -> bool,
        sc: &mut NearScratch,
    ) -> Option<NearestPoint> {
        let index = self.query_index();
        let point = p.as_vec2();
        let slack = 1e-9 * (1.0 + r + p.abs().max_element());
        let mut reach = floor + step;
        // Candidates at most this far were all tried in an earlier round.
        let mut done = f64::NEG_INFINITY;
        loop {
            // Every candidate within `reach` of `p` is made by walls within
            // `reach + r`; `pad` more keeps every wall within `r` and a few hairs of
            // such a candidate at hand for its checks.
            let range = reach + r;
            let hair_max = 8.0 * f64::from(f32::EPSILON) * (p.abs().max_element() + range + 1.0);
            let pad = 64.0 * hair_max + 1e-6 * (1.0 + r);
            let eps = 1e-9 * (1.0 + range + p.abs().max_element());
            let half = Vec2::splat(((range + pad) * (1.0 + 1e-6)) as f32 + 1e-3);
            sc.generation = sc.generation.wrapping_add(1);
            if sc.generation == 0 {
                sc.seen.fill(0);
                sc.generation = 1;
            }
            if sc.seen.len() < index.walls.len() {
                sc.seen.resize(index.walls.len(), 0);
            }
            let (seen, walls, generation) = (&mut sc.seen, &mut sc.walls, sc.generation);
            walls.clear();
            index
                .grid
                .for_each_row_in_box(point - half, point + half, |items| {
                    for &i in items {
                        if std::mem::replace(&mut seen[i as usize], generation) == generation {
                            continue;
                        }
                        let w = index.walls[i as usize];
                        let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
                        let d = distance_to_segment(p, a, b);
                        if d <= range * (1.0 + 1e-9) + pad {
                            walls.push((d, i, a, b));
                        }
                    }
                });
            sc.walls
                .sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            sc.pieces.clear();
            sc.queued.clear();
            sc.heap.clear();
            sc.active.clear();
            let (mut next_wall, mut last, mut refused) = (0, None, 0);
            loop {
                // No point of a wall's pieces is nearer than the wall less r: the walls
                // (nearest first) become pieces only when that could be the nearest.
                let wall_bound = sc.walls.get(next_wall).map_or(f64::INFINITY, |w| w.0 - r);
                let next_bound = sc.queued.peek().map_or(f64::INFINITY, |x| x.0.bound);
                let top = sc.heap.peek().map_or(f64::INFINITY, |c| c.0 .0);
                if wall_bound <= next_bound.min(top) + eps && wall_bound <= reach {
                    let (_, i, a, b) = sc.walls[next_wall];
                    next_wall += 1;
                    let first = sc.pieces.len();
                    wall_pieces(p, r, i, (a, b), &mut sc.pieces);
                    for (k, x) in sc.pieces.iter().enumerate().skip(first) {
                        sc.queued.push(Reverse(Queued {
                            bound: x.bound,
                            wall: x.wall,
                            order: x.order,
                            index: k as u32,
                        }));
                    }
                    continue;
                }
                if next_bound.min(top) > reach {
                    break;
                }
                if next_bound <= top + eps {
                    // The next piece's nearest point, and its crossings with the
                    // pieces of other walls taken before it.
                    let Some(Reverse(queued)) = sc.queued.pop() else {
                        break;
                    };
                    let x = sc.pieces[queued.index as usize];
                    sc.made.clear();
                    sc.made.push(x.near);
                    for y in &sc.active {
                        if y.wall != x.wall
                            && x.lo.cmple(y.hi + eps).all()
                            && y.lo.cmple(x.hi + eps).all()
                        {
                            x.shape.crossings(y.shape, r, &mut sc.made);
                        }
                    }
                    sc.active.push(x);
                    for &q in &sc.made {
                        let dq = q.distance(p);
                        if q.is_finite() && dq >= floor && dq > done && dq <= reach {
                            sc.heap.push(Reverse(Candidate(dq, q)));
                        }
                    }
                    continue;
                }
                let Some(Reverse(Candidate(dq, q))) = sc.heap.pop() else {
                    break;
                };
                if last == Some(q) {
                    continue;
                }
                last = Some(q);
                let qf = q.as_vec2();
                if !qf.is_finite() {
                    continue;
                }
                // Cheap refusal first: a wall nearer than r. Every wall within r of
                // `q` (and a few hairs more) is among the nearest walls kept here.
                let near = dq + r + pad;
                let walls = &sc.walls[..sc.walls.partition_point(|w| w.0 <= near)];
                let too_near = |&(_, _, a, b): &(f64, u32, DVec2, DVec2)| {
                    r > slack && distance_squared_to_segment(q, a, b) < (r - slack) * (r - slack)
                };
                // Neighbouring candidates are mostly refused by the same wall.
                if walls.get(refused).is_some_and(too_near) {
                    continue;
                }
                if let Some(k) = walls.iter().position(too_near) {
                    refused = k;
                    continue;
                }
                // Clear of every wall by more than a push moves it: it must be walkable
                // as it is.
                if r > 64.0 * hair(q, r) && !matches!(self.locate(qf), Location::Walkable(_)) {
                    continue;
                }
                sc.local.clear();
                sc.local.extend(walls.iter().map(|&(_, _, a, b)| (a, b)));
                if let Some(found) = self.confirm_free(q, r, &sc.local, accept) {
                    return Some(NearestPoint {
                        distance: (found.point.as_dvec2().distance(p) as f32).min(f32::MAX),
                        ..found
                    });
                }
            }
            if reach >= bound {
                return None;
            }
            done = reach;
            step *= 2.0;
            reach = floor + step;
        }
    }

    /// `q` (a candidate at about `r` from the walls) moved a hair into free space and
    /// rounded to `f32`, if it is then walkable, at least `r` from every wall, and
    /// accepted. `walls` holds every wall within `r` and 32 hairs of `q` (the pushes
    /// below move it at most 16), so that the room check needs no other.
    fn confirm_free(
        &self,
        q: DVec2,
        r: f64,
        walls: &[(DVec2, DVec2)],
        accept: &mut dyn FnMut(Vec2, TriangleId) -> bool,
    ) -> Option<NearestPoint> {
        // Away from the walls at about r: their normals there (walls that share the
        // touched corner once), then their sum, then each alone.
        let touch = r + 1e-6 * (1.0 + r);
        let mut normals: smallvec::SmallVec<[DVec2; 8]> = smallvec::SmallVec::new();
        for &(a, b) in walls {
            let c = closest_point(q, a, b);
            if q.distance(c) <= touch {
                let n = (q - c).try_normalize().unwrap_or_else(|| left_normal(a, b));
                if !normals.iter().any(|m| m.dot(n) > 1.0 - 1e-12) {
                    normals.push(n);
                }
            }
        }
        let h = hair(q, r);
        // A candidate clear of every wall by more than the pushes below keeps its side:
        // inside an obstacle it stays there.
        if normals.is_empty() && !matches!(self.locate(q.as_vec2()), Location::Walkable(_)) {
            let clear = walls
                .iter()
                .map(|&(a, b)| distance_to_segment(q, a, b))
                .fold(f64::INFINITY, f64::min);
            if clear > r + 32.0 * h {
                return None;
            }
        }
        let sum = normals.iter().sum::<DVec2>().normalize_or_zero();
        for away in std::iter::once(sum).chain(normals.iter().copied()) {
            for k in [1.0, 4.0, 16.0] {
                let x = (q + away * (h * k)).as_vec2();
                let Location::Walkable(t) = self.locate(x) else {
                    continue;
                };
                if self.has_room_among(x.as_dvec2(), t, r, walls) && accept(x, t) {
                    return Some(NearestPoint {
                        point: x,
                        triangle: t,
                        distance: 0.0,
                    });
                }
            }
        }
        None
    }

    /// The first wall a disc of `radius` touches when its centre moves along the
    /// segment from `from` to `to`; `None` when the way is clear.
    ///
    /// The disc touches a wall when it comes within `radius` of it while moving
    /// closer; a disc that starts nearer than `radius` to a wall is stopped at once
    /// only if it moves towards that wall, so a disc resting against a wall can slide
    /// along it or leave it. For `radius = 0` the search walks the segment through the
    /// triangles it crosses up to the first wall; for a disc it walks the cells the
    /// segment crosses on a grid built for the radius (each cell listing the walls
    /// within the radius of it), nearest first, stopping past the first touch; past the
    /// radii the mesh keeps, it tests the walls on the query grid's cells in a band
    /// along the ray. All are exact. A start in a cell wholly in walkable space needs
    /// no point location (a bit kept with the grid's cell says it is walkable); a start near a wall
    /// is located, which [`NavMesh::raycast_in`] skips when the caller knows `from`'s
    /// triangle.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`], [`MeshQueryError::BadRadius`] for bad input;
    /// [`MeshQueryError::ZeroLengthRay`] when `to == from`;
    /// [`MeshQueryError::OffMesh`] when `from` is not in walkable space.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let hit = mesh.raycast(Vec2::new(2.0, 5.0), Vec2::new(12.0, 5.0), 1.0)?.expect("a wall");
    /// assert_eq!((hit.fraction, hit.point, hit.normal), (0.7, Vec2::new(9.0, 5.0), -Vec2::X));
    /// assert_eq!(mesh.raycast(Vec2::new(2.0, 5.0), Vec2::new(8.0, 5.0), 1.0)?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "cast")]
    pub fn raycast(
        &self,
        from: Vec2,
        to: Vec2,
        radius: f32,
    ) -> Result<Option<RayHit>, MeshQueryError> {
        let r = ray_ok(from, to, radius)?;
        let s = from.as_dvec2();
        if let Some(found) = self.raycast_from_walkable(s, to.as_dvec2(), r) {
            return Ok(found);
        }
        // Located on the walk's own records (then the walk finds its start at hand),
        // else by the mesh's point location.
        let hint = self.locator.hint(from, self.triangles.len());
        if let Some(t) = self.query_index().walk.locate_strictly(s, hint) {
            return Ok(self.raycast_from(s, to.as_dvec2(), r, TriangleId(t)));
        }
        let Location::Walkable(t) = self.locate(from) else {
            return Err(MeshQueryError::OffMesh { point: from });
        };
        Ok(self.raycast_from(s, to.as_dvec2(), r, t))
    }

    /// [`NavMesh::raycast`] from a point whose triangle the caller already has, as
    /// Detour's `raycast` takes its start polygon: `start` is where the point location
    /// of `from` begins (the triangle of a [`NearestPoint`], of an earlier
    /// [`Location::Walkable`], or an agent's last one), so that a right one costs three
    /// orientation tests instead of a grid look-up and a walk, for a start near a wall
    /// (one away from walls needs no triangle: see [`NavMesh::raycast`]). A wrong or
    /// stale `start` only costs a longer walk: the answer is [`NavMesh::raycast`]'s.
    ///
    /// # Errors
    /// As [`NavMesh::raycast`].
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, Location, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let from = Vec2::new(2.0, 5.0);
    /// let Location::Walkable(start) = mesh.locate(from) else { panic!("walkable") };
    /// let hit = mesh.raycast_in(start, from, Vec2::new(12.0, 5.0), 1.0)?.expect("a wall");
    /// assert_eq!(Some(hit), mesh.raycast(from, Vec2::new(12.0, 5.0), 1.0)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn raycast_in(
        &self,
        start: TriangleId,
        from: Vec2,
        to: Vec2,
        radius: f32,
    ) -> Result<Option<RayHit>, MeshQueryError> {
        let r = ray_ok(from, to, radius)?;
        if let Some(found) = self.raycast_from_walkable(from.as_dvec2(), to.as_dvec2(), r) {
            return Ok(found);
        }
        let t = match self.strictly_inside(start, from.as_dvec2()) {
            true => start,
            false => match self.locate_from(from, start) {
                Location::Walkable(t) => t,
                _ => return Err(MeshQueryError::OffMesh { point: from }),
            },
        };
        Ok(self.raycast_from(from.as_dvec2(), to.as_dvec2(), r, t))
    }

    /// The raycast from `s` when the radius has a ray grid whose walkable sub-cells
    /// vouch for `s`: no start triangle needed. `None`: the caller locates `s`
    /// and takes [`NavMesh::raycast_from`] (the same answer).
    #[inline(always)]
    fn raycast_from_walkable(&self, s: DVec2, to: DVec2, r: f64) -> Option<Option<RayHit>> {
        let found = self.ray_grid(r)?.first_touch_from_walkable(s, to - s)?;
        Some(found.map(|(t, _, wall)| ray_hit(s, to - s, t, wall, r)))
    }

    /// Whether `t` is a walkable triangle of this mesh with `x` inside it, clear of its
    /// edges by more than rounding: then [`NavMesh::locate_from`] would find `t` too.
    fn strictly_inside(&self, t: TriangleId, x: DVec2) -> bool {
        let Some(tri) = self.query_index().walk.of(t.0) else {
            return false;
        };
        let [a, b, c] = [tri.at(0), tri.at(1), tri.at(2)];
        let clear = |a: DVec2, b: DVec2| {
            let (ab, w) = (b - a, x - a);
            ab.perp_dot(w) > 1e-12 * (ab.x.abs() + ab.y.abs()) * (w.x.abs() + w.y.abs())
        };
        clear(a, b) && clear(b, c) && clear(c, a)
    }

    /// The first touch of a disc of radius `r` moving from `s` (in walkable triangle
    /// `start`) to `to`, over every wall; ties go to the lowest wall index. For `r = 0`
    /// a walk of the ray through the triangles ([`NavMesh::raycast_walk`]) when it can
    /// tell its way; else the cells of the radius's ray grid along the ray
    /// (`mesh/query_ray.rs`), or without one the walls on the query grid along the ray
    /// ([`NavMesh::raycast_by_grid`]): the same answer.
    fn raycast_from(&self, s: DVec2, to: DVec2, r: f64, start: TriangleId) -> Option<RayHit> {
        if r == 0.0 {
            if let Some(found) = self.raycast_walk(s, to, start.0) {
                return found;
            }
        }
        if let Some(found) = self.ray_grid(r).and_then(|g| g.first_touch(s, to - s)) {
            return found.map(|(t, _, wall)| ray_hit(s, to - s, t, wall, r));
        }
        self.raycast_by_grid(s, to, r)
    }

    /// The first wall a point moving from `s` (in walkable triangle `start`) to `to`
    /// touches (a disc of radius 0), by a walk through the triangles the segment
    /// crosses: the segment touches a wall only where it crosses one, and crosses
    /// walls only as edges of the triangles it crosses, so testing the start
    /// triangle's walls and the wall the walk leaves a triangle through (if any) with
    /// [`capsule_entry`] gives the first touch over every wall.
    ///
    /// The next triangle is told by the side of the ray's line each vertex lies on:
    /// `None` (the caller searches otherwise) when a vertex lies too near the line to
    /// tell, when `s` is not in `start` but for rounding, or when the walk would leave
    /// walkable space other than through a wall.
    ///
    /// The walk reads its own records of the walkable triangles (see
    /// `mesh/query_walk.rs`), one a step, not the mesh's arrays.
    fn raycast_walk(&self, s: DVec2, to: DVec2, start: u32) -> Option<Option<RayHit>> {
        let walk = &self.query_index().walk;
        let d = to - s;
        let dn = d.x.abs() + d.y.abs();
        // The side of the ray's line `p` lies on (positive: left), unless too near it.
        let side = |p: DVec2| {
            let w = p - s;
            let o = d.perp_dot(w);
            (o.abs() > 1e-12 * dn * (w.x.abs() + w.y.abs())).then_some(o)
        };
        let mut tri = walk.of(start)?;
        // `s` in `start` (closed), but for rounding.
        let [p0, p1, p2] = [tri.at(0), tri.at(1), tri.at(2)];
        for (a, b) in [(p0, p1), (p1, p2), (p2, p0)] {
            let (ab, w) = (b - a, s - a);
            if ab.perp_dot(w) < -1e-12 * (ab.x.abs() + ab.y.abs()) * (w.x.abs() + w.y.abs()) {
                return None;
            }
        }
        let mut o = [side(p0)?, side(p1)?, side(p2)?];
        // The best touch: its time and wall (touches of a point do not tie).
        let mut best: Option<(f64, Wall64)> = None;
        let test = |(a, b): Wall64, best: &mut Option<(f64, Wall64)>| {
            let limit = best.map_or(1.0, |(t, _)| t);
            if let Some(x) = capsule_entry(s, d, a, b, 0.0, limit) {
                if best.is_none_or(|(t, _)| x < t) {
                    *best = Some((x, (a, b)));
                }
            }
        };
        let edge = |tri: &walk::WalkTriangle, e: usize| (tri.at(e), tri.at((e + 1) % 3));
        for e in 0..3 {
            if tri.walls & (1 << e) != 0 {
                test(edge(tri, e), &mut best);
            }
        }
        let mut entered = None;
        // Each triangle once at most (a longer walk would be a cycle of rounding).
        for steps in 0.. {
            if steps > walk.records.len() {
                return None;
            }
            // Leaving through the edge from a vertex on the right to one on the left:
            // past the edge entered through, the one the third vertex's side tells.
            let e = match entered {
                None => (0..3).find(|&k| o[k] < 0.0 && o[(k + 1) % 3] > 0.0)?,
                Some(k) if o[(k + 2) % 3] > 0.0 => (k + 1) % 3,
                Some(k) => (k + 2) % 3,
            };
            let (a, b) = edge(tri, e);
            let ab = b - a;
            let ends = ab.perp_dot(to - a) >= 0.0;
            if tri.walls & (1 << e) != 0 {
                // Leaving walkable space through a wall (or ending on it): touching it,
                // if not before.
                test((a, b), &mut best);
                if best.is_none() && !ends {
                    return None;
                }
                break;
            }
            // The ray ends in this triangle, or touched a wall of the start before
            // leaving it.
            if ends || best.is_some_and(|(x, _)| x <= (a - s).perp_dot(ab) / d.perp_dot(ab)) {
                break;
            }
            let n = tri.next[e];
            if n == walk::CLOSED {
                return None;
            }
            // The shared edge runs from `b` to `a` in the next triangle.
            let k = (n & 3) as usize;
            tri = walk.records.get((n >> 2) as usize)?;
            // Ask now for the two triangles the walk may enter next, so that their
            // loads overlap this step's work (the walk is bound by memory latency).
            for x in [tri.next[(k + 1) % 3], tri.next[(k + 2) % 3]] {
                if x != walk::CLOSED {
                    std::hint::black_box(walk.records.get((x >> 2) as usize).map(|t| t.walls));
                }
            }
            let (oa, ob) = (o[e], o[(e + 1) % 3]);
            o[k] = ob;
            o[(k + 1) % 3] = oa;
            o[(k + 2) % 3] = side(tri.at((k + 2) % 3))?;
            entered = Some(k);
        }
        Some(best.map(|(t, wall)| ray_hit(s, d, t, wall, 0.0)))
    }

    /// The first touch of a disc of radius `r` moving from `s` to `to`, over every
    /// wall: the walls come from the cells of the wall grid along the ray, a chunk of
    /// the ray (about two cells long) at a time, each wall tested once by
    /// [`capsule_entry`]. A wall touched at time `t` lies within `r` of the disc's
    /// centre then, so in a cell of the box of `t`'s chunk grown by `r`: once a touch
    /// is found no later than the end of the chunks searched, no later chunk can hold
    /// an earlier one, and the search stops.
    fn raycast_by_grid(&self, s: DVec2, to: DVec2, r: f64) -> Option<RayHit> {
        let index = self.query_index();
        let d = to - s;
        let scale = 1.0 + r + s.abs().max_element().max(to.abs().max_element());
        let slack = 1e-9 * scale;
        // Rounding the boxes to the grid's `f32`: a few ulps, as the grid pads its cells.
        let cell = f64::from(index.grid.cell_side());
        let pad = r + slack + 1e-4 * cell + 1e-6 * scale;
        let beyond = (r + slack) * d.length();
        let chunks = (d.length() / (CHUNK_CELLS * cell).max(1e-9))
            .ceil()
            .clamp(1.0, 4096.0);
        with_scratch(|sc| {
            sc.start_walls(index.walls.len());
            // The best touch: its time, and its wall's index and ends.
            let mut best: (f64, Option<(u32, Wall64)>) = (1.0, None);
            let mut t0 = 0.0;
            for k in 1..=chunks as u32 {
                let t1 = (f64::from(k) / chunks).min(1.0);
                let (u, v) = (s + d * t0, s + d * t1);
                let (lo, hi) = ((u.min(v) - pad).as_vec2(), (u.max(v) + pad).as_vec2());
                index.grid.for_each_row_in_box(lo, hi, |items| {
                    for &w in items {
                        if !sc.enter_wall(w) {
                            continue;
                        }
                        let wall = index.walls[w as usize];
                        let (a, b) = (wall.a.as_dvec2(), wall.b.as_dvec2());
                        // Both ends farther than r from the ray's line, on one side: no
                        // touch (the sides are times |d|).
                        let (oa, ob) = (d.perp_dot(a - s), d.perp_dot(b - s));
                        if (oa > beyond && ob > beyond) || (oa < -beyond && ob < -beyond) {
                            continue;
                        }
                        // The box of the ray up to the best touch, grown by r.
                        let e = s + d * best.0;
                        let (blo, bhi) = (s.min(e) - (r + slack), s.max(e) + (r + slack));
                        if a.max(b).cmplt(blo).any() || a.min(b).cmpgt(bhi).any() {
                            continue;
                        }
                        if let Some(t) = capsule_entry(s, d, a, b, r, best.0) {
                            // At most `best.0`: the earlier, or the lower wall at a tie.
                            if t < best.0 || best.1.is_none_or(|(v, _)| w < v) {
                                best = (t, Some((w, (a, b))));
                            }
                        }
                    }
                });
                if best.1.is_some() && best.0 <= t1 {
                    break;
                }
                t0 = t1;
            }
            let (t, (_, wall)) = (best.0, best.1?);
            Some(ray_hit(s, d, t, wall, r))
        })
    }

    /// Moves a disc of `radius` from `from` towards `to`, sliding along the walls it
    /// touches as a character controller does: at each touch the rest of the move
    /// loses its part along the wall's normal (the rest is aimed at `to` again, so
    /// that every leg brings the disc nearer to it), and the disc goes on along the
    /// wall, sliding at most [`MAX_SLIDES`] times. The disc never comes nearer than
    /// `radius` to a wall it moves towards (to a few `f32` ulps).
    ///
    /// Each leg is an exact [`NavMesh::raycast`]; the disc stops a few `f32` ulps short
    /// of each touch, so that it can slide on from there.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`], [`MeshQueryError::BadRadius`] for bad input;
    /// [`MeshQueryError::OffMesh`] when `from` is not in walkable space. A move of
    /// length zero is no error: the disc stays at `from`.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// // Pushed diagonally into the right wall, the disc slides up along it.
    /// let slide = mesh.move_along_surface(Vec2::new(8.0, 5.0), Vec2::new(11.0, 7.0), 0.5)?;
    /// assert!(slide.position.distance(Vec2::new(9.5, 7.0)) < 1e-4);
    /// assert_eq!(slide.hits, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "moveAlongSurface")]
    pub fn move_along_surface(
        &self,
        from: Vec2,
        to: Vec2,
        radius: f32,
    ) -> Result<Slide, MeshQueryError> {
        finite("from", from)?;
        finite("to", to)?;
        let r = radius_ok("radius", radius)?;
        let Location::Walkable(_) = self.locate(from) else {
            return Err(MeshQueryError::OffMesh { point: from });
        };
        let (mut pos, mut target) = (from.as_dvec2(), to.as_dvec2());
        let mut hits = 0;
        while pos != target {
            let found = match self.locate(pos.as_vec2()) {
                Location::Walkable(t) => self.raycast_from(pos, target, r, t),
                _ => self.raycast_by_grid(pos, target, r),
            };
            let Some(hit) = found else {
                pos = target;
                break;
            };
            hits += 1;
            let n = hit.normal.as_dvec2();
            let touch = hit.point.as_dvec2();
            // A hair off the wall, so that the slide starts clear of it; at the touch
            // itself if that is not walkable (a pinch).
            let pushed = touch + n * hair(touch, r);
            let walkable = |x: DVec2| matches!(self.locate(x.as_vec2()), Location::Walkable(_));
            let at = if walkable(pushed) {
                pushed
            } else if walkable(touch) {
                touch
            } else {
                pos
            };
            pos = at;
            if hits > MAX_SLIDES {
                break;
            }
            // The rest of the move without its part into the wall.
            // Projected from the move's own end, so that every leg comes nearer to it.
            let rest = to.as_dvec2() - at;
            target = at + (rest - n * rest.dot(n).min(0.0));
        }
        Ok(Slide {
            position: pos.as_vec2(),
            hits,
        })
    }

    /// A point uniform by area over where a disc of `radius` fits on the whole mesh
    /// (walkable, at least `radius` from every wall); `None` when no sample of
    /// [`MAX_RANDOM_SAMPLES`] lands there (the disc fits nowhere, or on a sliver of the
    /// mesh too small to hit).
    ///
    /// Rejection sampling: a walkable triangle by area (binary search over running
    /// sums), a uniform point in it, kept when the disc fits. The expected number of
    /// samples is the walkable area over the free area.
    ///
    /// # Errors
    /// [`MeshQueryError::BadRadius`] for a negative or NaN radius.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use rand::SeedableRng;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    /// let p = mesh.random_point(&mut rng, 1.0)?.expect("room for the disc");
    /// assert!(mesh.clearance(p).expect("walkable") >= 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "findRandomPoint")]
    pub fn random_point(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        radius: f32,
    ) -> Result<Option<Vec2>, MeshQueryError> {
        let r = radius_ok("radius", radius)?;
        let index = self.query_index();
        for _ in 0..MAX_RANDOM_SAMPLES {
            let Some(k) = pick(rng, &index.area_sums) else {
                return Ok(None);
            };
            let t = TriangleId(index.area_triangles[k]);
            if let Some(x) = self.sample_in(rng, t, r) {
                return Ok(Some(x));
            }
        }
        Ok(None)
    }

    /// A uniform point of triangle `t`, if a disc of radius `r` fits there.
    fn sample_in(&self, rng: &mut (impl RngCore + ?Sized), t: TriangleId, r: f64) -> Option<Vec2> {
        let x = point_in_triangle(rng, self.triangle_points(t).map(|v| v.as_dvec2())).as_vec2();
        // Rounding may put the point in a neighbour: locate it from `t`.
        let Location::Walkable(u) = self.locate_from(x, t) else {
            return None;
        };
        self.has_room(x.as_dvec2(), u, r).then_some(x)
    }

    /// A point uniform by area over where a disc of `radius` fits inside the circle of
    /// `circle_radius` around `center`; `None` when no sample of
    /// [`MAX_RANDOM_SAMPLES`] lands there.
    ///
    /// Samples the cheaper of the walkable triangles the circle meets (by area) and the
    /// circle itself, keeping points inside both where the disc fits.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`] for a NaN or infinite centre;
    /// [`MeshQueryError::BadRadius`] for a negative or NaN radius.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// use rand::SeedableRng;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    /// let c = Vec2::new(1.0, 1.0);
    /// let p = mesh.random_point_in_circle(&mut rng, c, 2.0, 0.5)?.expect("room");
    /// assert!(p.distance(c) <= 2.0 && p.min_element() >= 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "findRandomPointAroundCircle")]
    pub fn random_point_in_circle(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        center: Vec2,
        circle_radius: f32,
        radius: f32,
    ) -> Result<Option<Vec2>, MeshQueryError> {
        finite("center", center)?;
        let big = radius_ok("circle radius", circle_radius)?;
        let r = radius_ok("radius", radius)?;
        let mut near = Vec::new();
        self.triangles_in_circle(center, circle_radius, &mut near)?;
        let mut sums = Vec::with_capacity(near.len());
        let mut sum = 0.0;
        for &t in &near {
            let [a, b, c] = self.triangle_points(t).map(|v| v.as_dvec2());
            sum += 0.5 * (b - a).perp_dot(c - a).abs();
            sums.push(sum);
        }
        if near.is_empty() {
            return Ok(None);
        }
        let c = center.as_dvec2();
        let in_circle = |x: Vec2| x.as_dvec2().distance_squared(c) <= big * big;
        let disc_area = std::f64::consts::PI * big * big;
        for _ in 0..MAX_RANDOM_SAMPLES {
            if disc_area < sum {
                // Uniform in the circle, then on the mesh.
                let (s, a) = (unit(rng).sqrt() * big, unit(rng) * std::f64::consts::TAU);
                let x = (c + DVec2::new(a.cos(), a.sin()) * s).as_vec2();
                if !in_circle(x) {
                    continue;
                }
                if let Location::Walkable(u) = self.locate(x) {
                    if self.has_room(x.as_dvec2(), u, r) {
                        return Ok(Some(x));
                    }
                }
            } else {
                let Some(k) = pick(rng, &sums) else {
                    return Ok(None);
                };
                if let Some(x) = self.sample_in(rng, near[k], r).filter(|&x| in_circle(x)) {
                    return Ok(Some(x));
                }
            }
        }
        Ok(None)
    }

    /// A point uniform by area over where a disc of `radius` fits and can reach from
    /// `from` ([`NavMesh::find_path`] from `from` succeeds to it); `None` when no
    /// sample of [`MAX_RANDOM_SAMPLES`] lands there.
    ///
    /// Samples the triangles a disc can enter from `from`'s (a superset of where it can
    /// go), keeps the points where the disc fits, and confirms each by the corridor
    /// index and a path query. Cost: a search over the triangles reachable from `from`
    /// (linear in the mesh), then one path query per sample kept; to draw many points
    /// from one start, prefer [`NavMesh::random_point`] filtered by
    /// [`NavMesh::find_path`] when most of the mesh is reachable.
    ///
    /// # Errors
    /// [`MeshQueryError::NotFinite`], [`MeshQueryError::BadRadius`] for bad input;
    /// [`MeshQueryError::OffMesh`] when `from` is not in walkable space;
    /// [`MeshQueryError::NoRoom`] when the disc does not fit at `from`.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// use rand::SeedableRng;
    /// let level = Level::from_json(r#"{
    ///     "boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///     "obstacles": [[[4,-1],[6,-1],[6,11],[4,11]]]
    /// }"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    /// let p = mesh.random_point_reachable(&mut rng, Vec2::new(1.0, 5.0), 0.5)?.expect("room");
    /// assert!(p.x <= 3.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn random_point_reachable(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        from: Vec2,
        radius: f32,
    ) -> Result<Option<Vec2>, MeshQueryError> {
        finite("from", from)?;
        let r = radius_ok("radius", radius)?;
        let start = self.start_with_room(from, r, radius)?;
        let reached = self.reachable_triangles(start, radius);
        let index = self.query_index();
        let (mut tris, mut sums) = (Vec::new(), Vec::new());
        let mut sum = 0.0;
        for (k, &t) in index.area_triangles.iter().enumerate() {
            if reached[t as usize] {
                let before = if k == 0 { 0.0 } else { index.area_sums[k - 1] };
                sum += index.area_sums[k] - before;
                tris.push(t);
                sums.push(sum);
            }
        }
        for _ in 0..MAX_RANDOM_SAMPLES {
            let Some(k) = pick(rng, &sums) else {
                return Ok(None);
            };
            let Some(x) = self.sample_in(rng, TriangleId(tris[k]), r) else {
                continue;
            };
            let Location::Walkable(u) = self.locate(x) else {
                continue;
            };
            if (u == start || self.corridor_linked(start, u, radius))
                && self.find_path(from, x, radius).is_ok()
            {
                return Ok(Some(x));
            }
        }
        Ok(None)
    }
}

/// Brute-force references for the tests: every wall, every pair.
#[cfg(test)]
pub(crate) mod reference {
    use super::*;

    /// Distance from `x` to the nearest wall, over all walls.
    pub(crate) fn clearance(mesh: &NavMesh, x: DVec2) -> f64 {
        mesh.walls()
            .map(|w| distance_to_segment(x, w.a.as_dvec2(), w.b.as_dvec2()))
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether a disc of radius `r` fits at `x`, by all walls and point location.
    pub(crate) fn fits(mesh: &NavMesh, x: Vec2, r: f64) -> bool {
        matches!(mesh.locate(x), Location::Walkable(_)) && clearance(mesh, x.as_dvec2()) >= r
    }

    /// The nearest point to `p` where the disc fits: every candidate of every wall and
    /// pair of walls, the nearest that fits (to a tolerance), unrounded.
    pub(crate) fn nearest_point(mesh: &NavMesh, p: Vec2, r: f64) -> Option<DVec2> {
        if fits(mesh, p, r) {
            return Some(p.as_dvec2());
        }
        let walls: Vec<(DVec2, DVec2)> = mesh
            .walls()
            .map(|w| (w.a.as_dvec2(), w.b.as_dvec2()))
            .collect();
        let mut out = Vec::new();
        boundary_candidates(p.as_dvec2(), r, &walls, &mut Vec::new(), &mut out);
        // Every pair, not only the sweep's.
        if r > 0.0 {
            for (i, &w) in walls.iter().enumerate() {
                for &v in &walls[i + 1..] {
                    pair_candidates(w, v, r, &mut out);
                }
            }
        }
        out.sort_by(|a, b| {
            a.distance(p.as_dvec2())
                .total_cmp(&b.distance(p.as_dvec2()))
        });
        out.into_iter().find(|&q| {
            clearance(mesh, q) >= r - 1e-6
                && (1..=16).any(|k| {
                    // Walkable a hair away, in some direction (r = 0: on a wall).
                    let h = 1e-4 * f64::from(k);
                    let a = f64::from(k) * 0.7;
                    matches!(
                        mesh.locate((q + DVec2::new(a.cos(), a.sin()) * h).as_vec2()),
                        Location::Walkable(_)
                    ) && (r == 0.0 || matches!(mesh.locate(q.as_vec2()), Location::Walkable(_)))
                })
        })
    }

    /// The first touch of a disc swept from `s` to `e`, over all walls.
    pub(crate) fn raycast(mesh: &NavMesh, s: Vec2, e: Vec2, r: f64) -> Option<f64> {
        let (s, e) = (s.as_dvec2(), e.as_dvec2());
        mesh.walls()
            .filter_map(|w| capsule_entry(s, e - s, w.a.as_dvec2(), w.b.as_dvec2(), r, 1.0))
            .reduce(f64::min)
    }
}

#[cfg(test)]
#[path = "query_test.rs"]
mod test;

#[cfg(test)]
#[path = "query_ray_exact_test.rs"]
mod ray_exact_test;
