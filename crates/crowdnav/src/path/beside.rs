//! Keeping a disc's path clear of corners beside its channel.
//!
//! The funnel ([`super::funnel`]) sees the corners of its channel's portals only. A wall
//! corner outside the channel (beyond a triangle side the channel does not cross, the
//! far end of a sliver wall say) or a corner of the start's or goal's triangle that
//! ends no portal can still lie within the disc's radius of the funnel's path: the
//! gate widths guarantee that the disc fits through each triangle, not that the
//! funnel's shortest line through the channel keeps clear of such corners.
//!
//! [`keep_clear`] checks a complete path against every wall corner within reach of it
//! (found by a walk out of the channel that crosses only edges nearer to the path than
//! the radius: a corner within the radius of a path point is joined to it by a segment
//! that crosses only such edges) and, while one is too near, adds it to the funnel as
//! an extra corner on the side of the path it lies on, at the triangle of the channel
//! where the path comes nearest to it, and runs the funnel again.
//!
//! Why the answer stays the optimum. Let `L(c)` be the funnel's length for channel `c`
//! and `L*(c)` the length of the shortest path through `c` that keeps the radius from
//! every wall. The funnel keeps the radius from a subset of those walls, so
//! `L(c) <= L*(c)`: the search's bounds, built on funnel lengths, stay admissible, and
//! a complete path enters the open list with its true length. A corner that the path
//! passes too near lies outside the channel's triangles or ends none of its portals,
//! on one side of the path; a path through the same triangles cannot pass it on the
//! other side without leaving them, so every feasible path of the channel keeps it on
//! that side: adding it as a corner there is a constraint that `L*(c)`'s path meets,
//! and the funnel's new length is still `<= L*(c)`. When no corner is too near, the
//! funnel's path is feasible, so its length is `L*(c)` exactly. Corners are what is
//! tested: the nearest points of a wall and a straight piece include an end of one of
//! them, a corner or the point where the piece meets an arc (or the start or goal,
//! which have room), and the funnel's arcs keep to the gates that the widths admit.
//!
//! When the repair does not converge within [`MAX_EXTRA`] corners, or the channel
//! closes (two circles overlap), the path is dropped: never returned too near a wall.
//!
//! Most paths need no repair, and showing that is most of the check's cost: the walk
//! tests every side edge of the channel, a few hundred on a long channel of a fine
//! mesh. So each round first asks the mesh's grid of corners ([`NavMesh::corner_grid`])
//! whether *any* corner, reached by the walk or not, comes too near a piece of the
//! path, by the very test the round applies to the corners the walk collects. When
//! none does, the walk could find none either, and the path is clear; otherwise the
//! round walks as described. The answer is the same either way, found with a few
//! grid cells per piece instead of a walk along the whole channel.

use super::funnel::{sweep, Funnel, FunnelPoint, Wrap, WrapArena};
use crate::geom::segments_distance_squared_f64 as segment_distance_squared;
use crate::geom::{tangent_between, Side};
use crate::grid::{Cells, Layout};
use crate::mesh::{closest_point, NavMesh, TriangleId};
use glam::{DVec2, Vec2};
use smallvec::SmallVec;

/// Most extra corners added to one path before it is dropped.
pub(super) const MAX_EXTRA: usize = 32;

/// A piece of a path, in `f64`.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Line {
        a: DVec2,
        b: DVec2,
    },
    Arc {
        center: DVec2,
        radius: f64,
        from: Vec2,
        to: Vec2,
        side: Side,
        sweep: f64,
    },
}

impl Piece {
    /// Bounding box, grown by `by`.
    fn bounds(&self, by: f64) -> (DVec2, DVec2) {
        match *self {
            Piece::Line { a, b } => (a.min(b) - by, a.max(b) + by),
            Piece::Arc { center, radius, .. } => (center - radius - by, center + radius + by),
        }
    }

    /// The distance from `w` to the piece and the nearest point of the piece.
    fn nearest(&self, w: DVec2) -> (f64, DVec2) {
        match *self {
            Piece::Line { a, b } => {
                let q = closest_point(w, a, b);
                (w.distance(q), q)
            }
            Piece::Arc {
                center,
                radius,
                from,
                to,
                side,
                sweep: s,
            } => {
                let d = w - center;
                if d != DVec2::ZERO && sweep(center.as_vec2(), from, w.as_vec2(), side) <= s {
                    let q = center + d.normalize() * radius;
                    return (w.distance(q), q);
                }
                let (f, t) = (from.as_dvec2(), to.as_dvec2());
                if w.distance(f) <= w.distance(t) {
                    (w.distance(f), f)
                } else {
                    (w.distance(t), t)
                }
            }
        }
    }

    /// Whether segment `p q` comes nearer than `radius` to the piece, or within a
    /// hair over it (squared distances: no square roots on the walk's hot path).
    fn near_segment(&self, p: DVec2, q: DVec2, radius: f64) -> bool {
        let within = |d2: f64, reach: f64| d2 < reach * reach * (1.0 + 1e-9);
        match *self {
            Piece::Line { a, b } => within(segment_distance_squared(p, q, a, b), radius),
            Piece::Arc {
                center,
                radius: arc_radius,
                ..
            } => within(
                center.distance_squared(closest_point(center, p, q)),
                arc_radius + radius,
            ),
        }
    }

    /// The side of the path that `w` lies on, seen at `q` on the piece.
    fn side_of(&self, q: DVec2, w: DVec2) -> Side {
        let dir = match *self {
            Piece::Line { a, b } => b - a,
            Piece::Arc { center, side, .. } => match side {
                Side::Left => (q - center).perp(),
                Side::Right => -(q - center).perp(),
            },
        };
        if dir.perp_dot(w - q) >= 0.0 {
            Side::Left
        } else {
            Side::Right
        }
    }
}

/// Puts in `out` the segments and arcs of the path through `wraps`.
fn pieces_into(wraps: &[Wrap], out: &mut Vec<Piece>) {
    out.clear();
    for pair in wraps.windows(2) {
        let (w, next) = (pair[0], pair[1]);
        let leave = tangent_between(w.point.circle, w.side, next.point.circle, next.side)
            .map_or(w.arrive, |t| t.a);
        let r = w.point.circle.radius;
        if r > 0.0 {
            let s = sweep(w.point.circle.center, w.arrive, leave, w.side);
            if s > 0.0 {
                out.push(Piece::Arc {
                    center: w.point.circle.center.as_dvec2(),
                    radius: f64::from(r),
                    from: w.arrive,
                    to: leave,
                    side: w.side,
                    sweep: s,
                });
            }
        }
        out.push(Piece::Line {
            a: leave.as_dvec2(),
            b: next.arrive.as_dvec2(),
        });
    }
}

/// The pieces' boxes (grown by the radius) binned on a grid over the path's box, so
/// that a query box meets only the pieces of the cells it covers; a path of at most
/// [`SCAN_PIECES`] pieces is scanned instead (a long piece's box covers many cells,
/// and checking a few boxes costs less than finding the cells). Kept between checks
/// (see [`BesideScratch`]): rebuilding allocates nothing once grown.
///
/// The cells are laid in `f32` over boxes in `f64`: rounding to `f32` is monotone, so
/// a box that meets another still covers cells that meet the other's, and every
/// candidate is tested again exactly.
#[derive(Default)]
struct Bins {
    boxes: Vec<(DVec2, DVec2)>,
    cells: Cells,
}

/// Most cells of [`Bins`].
const BIN_CELLS: usize = 256;

/// Paths of at most this many pieces are not binned (see [`Bins`]).
const SCAN_PIECES: usize = 24;

impl Bins {
    /// Bins `pieces`' boxes grown by `radius`, forgetting what was binned before.
    fn rebuild(&mut self, pieces: &[Piece], radius: f64) {
        self.boxes.clear();
        self.boxes.extend(pieces.iter().map(|p| p.bounds(radius)));
        if self.boxes.len() <= SCAN_PIECES {
            return;
        }
        let (lo, hi) = self.boxes.iter().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), b| (lo.min(b.0), hi.max(b.1)),
        );
        let layout = Layout::dense(lo.as_vec2(), hi.as_vec2(), BIN_CELLS, 1.0, BIN_CELLS);
        let boxes = &self.boxes;
        let span = |i: usize| {
            let (a, b) = boxes[i];
            (layout.coords(a.as_vec2()), layout.coords(b.as_vec2()))
        };
        self.cells
            .rebuild(layout, boxes.len(), span, |_, _, _| true);
    }

    /// Calls `f` with every piece whose box meets the box from `lo` to `hi` (some
    /// more than once), until it returns `true`; returns whether one did.
    fn any(&self, lo: DVec2, hi: DVec2, mut f: impl FnMut(usize) -> bool) -> bool {
        let meets = |(blo, bhi): (DVec2, DVec2)| hi.cmpge(blo).all() && lo.cmple(bhi).all();
        if self.boxes.len() <= SCAN_PIECES {
            return (0..self.boxes.len()).any(|i| meets(self.boxes[i]) && f(i));
        }
        let layout = self.cells.layout();
        let ((x0, y0), (x1, y1)) = (layout.coords(lo.as_vec2()), layout.coords(hi.as_vec2()));
        (y0..=y1).any(|y| {
            self.cells
                .row(y, x0, x1)
                .iter()
                .any(|&i| meets(self.boxes[i as usize]) && f(i as usize))
        })
    }
}

/// What [`corners_near`] marks a triangle as, relative to its check's generation.
const INSIDE: u32 = 0;
const BESIDE: u32 = 1;

/// Buffers of [`keep_clear`], kept by the search between checks and queries: a check
/// then allocates nothing once they have grown.
#[derive(Default)]
pub(super) struct BesideScratch {
    bins: Bins,
    /// Per triangle: `generation + INSIDE` for the channel's, `generation + BESIDE`
    /// for those entered beside it in this check; anything else is neither.
    marks: Vec<u32>,
    generation: u32,
    stack: Vec<u32>,
    near: Vec<u32>,
    pieces: Vec<Piece>,
}

impl BesideScratch {
    /// Starts a check on a mesh of `triangles` triangles: every triangle unmarked.
    fn begin(&mut self, triangles: usize) {
        if self.generation >= u32::MAX - 4 {
            self.generation = 0;
            self.marks.clear();
        }
        // Marks start at 0, below every generation in use.
        self.generation += 2;
        if self.marks.len() < triangles {
            self.marks.resize(triangles, 0);
        }
    }

    /// Marks triangle `t` as `what` ([`INSIDE`] or [`BESIDE`]).
    fn mark(&mut self, t: u32, what: u32) {
        self.marks[t as usize] = self.generation + what;
    }

    /// Whether triangle `t` is marked `what` in this check.
    fn is(&self, t: u32, what: u32) -> bool {
        self.marks[t as usize] == self.generation + what
    }

    /// Whether triangle `t` is marked at all in this check.
    fn is_marked(&self, t: u32) -> bool {
        self.marks[t as usize].wrapping_sub(self.generation) <= BESIDE
    }
}

/// A corner added to the funnel: before portal `at` of the channel (after the last
/// one when `at` is the number of portals), on side `side`.
#[derive(Clone, Copy, Debug)]
struct Extra {
    at: usize,
    /// Where along the path the corner is nearest (piece index, then distance from
    /// the piece's start), to order extras at the same portal.
    order: (usize, f64),
    point: FunnelPoint,
    side: Side,
}

/// A disc's query through one channel: what [`keep_clear`] and its funnel re-runs read.
pub(super) struct ChannelQuery<'a> {
    /// Whether a round first asks the grid of corners (see the module's
    /// documentation; off only to test that it changes nothing).
    pub grid_first: bool,
    /// The mesh.
    pub mesh: &'a NavMesh,
    /// The channel's triangles, start to goal.
    pub channel: &'a [u32],
    /// Start point.
    pub start: Vec2,
    /// Goal point.
    pub goal: Vec2,
    /// The disc's radius.
    pub radius: f32,
    /// Whether the funnel leaves out the channel's last portal.
    pub skip_last: bool,
}

/// What [`keep_clear`] made of a path.
#[derive(Debug)]
pub(super) enum Cleared {
    /// The path keeps the radius from every corner near it, as it was.
    Clear(Vec<Wrap>),
    /// The path came too near a corner beside the channel: the funnel's path with the
    /// extra corners, longer.
    Repaired(Vec<Wrap>),
    /// No path of the channel could be kept clear.
    Dropped,
}

/// The channel's path, `wraps` (from [`Funnel::finish`] over the channel's portals, the
/// last one left out when `skip_last`), made to keep `radius` from every wall corner
/// near it (see the module's documentation).
pub(super) fn keep_clear(
    q: &ChannelQuery<'_>,
    wraps: Vec<Wrap>,
    arena: &mut WrapArena,
    scratch: &mut BesideScratch,
) -> Cleared {
    if q.radius <= 0.0 {
        return Cleared::Clear(wraps);
    }
    let mut repaired = false;
    match repair(q, wraps, arena, scratch, &mut repaired) {
        Some(wraps) if repaired => Cleared::Repaired(wraps),
        Some(wraps) => Cleared::Clear(wraps),
        None => Cleared::Dropped,
    }
}

/// [`keep_clear`]'s loop: sets `repaired` when it adds a corner.
fn repair(
    q: &ChannelQuery<'_>,
    mut wraps: Vec<Wrap>,
    arena: &mut WrapArena,
    scratch: &mut BesideScratch,
    repaired: &mut bool,
) -> Option<Vec<Wrap>> {
    let (mesh, channel, radius) = (q.mesh, q.channel, q.radius);
    let mut extras: Vec<Extra> = Vec::new();
    loop {
        let mut pieces = std::mem::take(&mut scratch.pieces);
        pieces_into(&wraps, &mut pieces);
        if q.grid_first && !any_corner_within(mesh, &pieces, &wraps, radius) {
            // What `worst` would find among the corners it looks at (a subset).
            scratch.pieces = pieces;
            return Some(wraps);
        }
        scratch.bins.rebuild(&pieces, f64::from(radius));
        corners_near(mesh, channel, &pieces, f64::from(radius), scratch);
        let (bins, near) = (&scratch.bins, &scratch.near);
        let worst = worst(mesh, channel, &pieces, bins, &wraps, near, radius);
        scratch.pieces = pieces;
        let Some(extra) = worst else {
            return Some(wraps);
        };
        if extras.len() >= MAX_EXTRA
            || extras
                .iter()
                .any(|e| e.point.id == extra.point.id && e.side == extra.side)
        {
            return None;
        }
        *repaired = true;
        extras.push(extra);
        extras.sort_by(|x, y| {
            x.at.cmp(&y.at)
                .then(x.order.0.cmp(&y.order.0))
                .then(x.order.1.total_cmp(&y.order.1))
        });
        wraps = rerun(q, &extras, arena)?;
    }
}

/// The funnel over the channel with the extra corners.
///
/// A portal end that ended the previous portal on the same side too (the channel
/// turning through the fan of triangles around that corner) is not pushed again. After
/// the previous portal that corner is the last of its chain or the apex, so without
/// extras pushing it again changes nothing; but an extra corner placed on that side
/// between the two portals (the path comes nearest to it inside the fan) would then
/// stand before it in the chain, and pushing the fan's corner after the extra would ask
/// the path to go back around the corner it already passed, from the extra's circle
/// to the corner's: when the two circles overlap no such tangent exists, the funnel
/// reports the channel closed and a path clear of every wall was dropped.
fn rerun(q: &ChannelQuery<'_>, extras: &[Extra], arena: &mut WrapArena) -> Option<Vec<Wrap>> {
    let (mesh, channel, radius) = (q.mesh, q.channel, q.radius);
    let mut funnel = Funnel::new(q.start, arena);
    let portals = channel.len().saturating_sub(1);
    let used = if q.skip_last {
        portals.saturating_sub(1)
    } else {
        portals
    };
    let mut next_extra = extras.iter().peekable();
    // The ends' vertex ids of the portal pushed last.
    let mut previous: Option<(u32, u32)> = None;
    for k in 0..=used {
        while let Some(e) = next_extra.next_if(|e| e.at <= k) {
            funnel.push_point(e.point, e.side, arena).ok()?;
        }
        if k < used {
            let (left, right) = portal(mesh, channel, k, radius)?;
            let (same_left, same_right) =
                previous.map_or((false, false), |(l, r)| (l == left.id, r == right.id));
            if !same_left {
                funnel.push_point(left, Side::Left, arena).ok()?;
            }
            if !same_right {
                funnel.push_point(right, Side::Right, arena).ok()?;
            }
            previous = Some((left.id, right.id));
        }
    }
    funnel.finish(q.goal, arena).ok()
}

/// The ends (left, right) of portal `k` of `channel`: the edge from its triangle `k`
/// to triangle `k + 1`.
fn portal(
    mesh: &NavMesh,
    channel: &[u32],
    k: usize,
    radius: f32,
) -> Option<(FunnelPoint, FunnelPoint)> {
    let (t, next) = (channel[k], channel[k + 1]);
    let exit = (0..3).find(|&e| mesh.neighbors[t as usize][e] == next)?;
    let ids = mesh.triangles[t as usize];
    let (right, left) = (ids[exit], ids[(exit + 1) % 3]);
    Some((
        mesh.funnel_point(left, radius),
        mesh.funnel_point(right, radius),
    ))
}

/// Collects into `scratch.near` the wall corners (vertex ids, sorted) of the
/// triangles within reach of `pieces` (nearer than `radius`, found with the pieces
/// binned in `scratch.bins`) beside the channel, and those of the start's and the
/// goal's triangles.
fn corners_near(
    mesh: &NavMesh,
    channel: &[u32],
    pieces: &[Piece],
    radius: f64,
    scratch: &mut BesideScratch,
) {
    scratch.begin(mesh.triangles.len());
    let mut near = std::mem::take(&mut scratch.near);
    let mut stack = std::mem::take(&mut scratch.stack);
    near.clear();
    stack.clear();
    let pos = |v: u32| mesh.vertices[v as usize].as_dvec2();
    // The channel's triangles, and those entered beside it, are marked.
    for &t in channel {
        scratch.mark(t, INSIDE);
    }
    stack.extend_from_slice(channel);
    // Every corner of a channel triangle ends one of its portals, which the funnel
    // keeps the radius from, except the far corners of the start's and the goal's
    // triangles: corners are collected from those two and from triangles beside.
    let (first, last) = (channel.first().copied(), channel.last().copied());
    while let Some(t) = stack.pop() {
        let ids = mesh.triangles[t as usize];
        if scratch.is(t, BESIDE) || Some(t) == first || Some(t) == last {
            for &v in &ids {
                if mesh.obstacle_vertex[v as usize] {
                    near.push(v);
                }
            }
        }
        for e in 0..3 {
            if mesh.is_wall(TriangleId(t), e) {
                continue;
            }
            let nb = mesh.neighbors[t as usize][e];
            if nb == u32::MAX || scratch.is_marked(nb) {
                continue;
            }
            let (p, q) = (pos(ids[e]), pos(ids[(e + 1) % 3]));
            let within_reach = scratch
                .bins
                .any(p.min(q), p.max(q), |i| pieces[i].near_segment(p, q, radius));
            if within_reach {
                scratch.mark(nb, BESIDE);
                stack.push(nb);
            }
        }
    }
    near.sort_unstable();
    near.dedup();
    scratch.near = near;
    scratch.stack = stack;
}

/// Whether any obstacle corner of the mesh, other than those the path wraps, comes
/// nearer to a piece of the path than `worst` tolerates: the same distances and the same
/// test as `worst`, on every corner of the mesh near the path, not only on those the
/// walk beside the channel reaches. When none does, `worst` finds none either, and
/// the walk is not needed: most paths pass the check this way, at a fraction of the
/// walk's cost (the walk tests every side edge of the channel).
fn any_corner_within(mesh: &NavMesh, pieces: &[Piece], wraps: &[Wrap], radius: f32) -> bool {
    let r = f64::from(radius);
    let grid = mesh.corner_grid();
    // Long pieces are looked at in stretches of a few cells, not in their whole box.
    let stretch = 4.0 * grid.cell();
    pieces.iter().any(|piece| {
        let (lo, hi) = piece.bounds(r);
        // A line piece's unit normal, when it has one.
        let normal = match *piece {
            Piece::Line { a, b } => (b - a).perp().try_normalize(),
            Piece::Arc { .. } => None,
        };
        let near = |w: Vec2, v: u32| {
            let w = w.as_dvec2();
            let slack = clear_slack(w, r);
            // No point of the piece is nearer than these (with room for rounding).
            match (*piece, normal) {
                (Piece::Arc { center, radius, .. }, _) => {
                    if w.distance(center) - radius > r + slack {
                        return false;
                    }
                }
                (Piece::Line { a, .. }, Some(n)) => {
                    if n.dot(w - a).abs() > r + slack {
                        return false;
                    }
                }
                (Piece::Line { .. }, None) => {}
            }
            piece.nearest(w).0 < r - slack
                && w.cmpge(lo).all()
                && w.cmple(hi).all()
                && !wraps.iter().any(|x| x.point.id == v)
        };
        match *piece {
            Piece::Line { a, b } => {
                let n = (a.distance(b) / stretch).ceil().clamp(1.0, 1e6) as usize;
                (0..n).any(|k| {
                    let p = a.lerp(b, k as f64 / n as f64);
                    let q = a.lerp(b, (k + 1) as f64 / n as f64);
                    grid.any_in(p.min(q) - r, p.max(q) + r, near)
                })
            }
            Piece::Arc { .. } => grid.any_in(lo, hi, near),
        }
    })
}

/// How far inside the radius `r` a corner at `w` may come and still count as clear:
/// within rounding of the radius (as in the funnel).
fn clear_slack(w: DVec2, r: f64) -> f64 {
    1e-6 * (r + w.abs().max_element())
}

/// The corner of `near` that comes nearest inside the radius of the path, as an extra
/// corner for the funnel; `None` when every one keeps the radius.
fn worst(
    mesh: &NavMesh,
    channel: &[u32],
    pieces: &[Piece],
    bins: &Bins,
    wraps: &[Wrap],
    near: &[u32],
    radius: f32,
) -> Option<Extra> {
    let r = f64::from(radius);
    let mut best: Option<(f64, Extra)> = None;
    for &v in near {
        if wraps.iter().any(|w| w.point.id == v) {
            continue;
        }
        let w = mesh.vertices[v as usize].as_dvec2();
        let slack = clear_slack(w, r);
        let mut hits: SmallVec<[usize; 8]> = SmallVec::new();
        bins.any(w, w, |i| {
            hits.push(i);
            false
        });
        hits.sort_unstable();
        hits.dedup();
        for i in hits {
            let piece = &pieces[i];
            let (d, q) = piece.nearest(w);
            if d >= r - slack || best.as_ref().is_some_and(|(depth, _)| r - d <= *depth) {
                continue;
            }
            let at = channel_position(mesh, channel, q);
            let along = match *piece {
                Piece::Line { a, .. } => a.distance(q),
                Piece::Arc { from, .. } => from.as_dvec2().distance(q),
            };
            best = Some((
                r - d,
                Extra {
                    at,
                    order: (i, along),
                    point: mesh.funnel_point(v, radius),
                    side: piece.side_of(q, w),
                },
            ));
        }
    }
    best.map(|(_, e)| e)
}

/// The index of the channel's triangle that holds `q` (the most deeply when rounding
/// puts it in several; the nearest when in none).
fn channel_position(mesh: &NavMesh, channel: &[u32], q: DVec2) -> usize {
    let mut best = (f64::NEG_INFINITY, 0);
    for (k, &t) in channel.iter().enumerate() {
        let [a, b, c] = mesh.triangles[t as usize].map(|v| mesh.vertices[v as usize].as_dvec2());
        // Signed distance to each edge's line, positive inside (triangles are ccw).
        let inside = |u: DVec2, v: DVec2| {
            let e = v - u;
            let len = e.length();
            if len > 0.0 {
                e.perp_dot(q - u) / len
            } else {
                0.0
            }
        };
        let depth = inside(a, b).min(inside(b, c)).min(inside(c, a));
        if depth > best.0 {
            best = (depth, k);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grid's answer is the one of looking at every corner of the mesh: random
    /// segments and arcs on random rooms, some corners wrapped (so not counted), at
    /// several radii.
    #[test]
    fn the_grid_finds_a_corner_too_near_exactly_when_a_scan_does() {
        use crate::geom::Circle;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (mut near, mut clear) = (0, 0);
        for _ in 0..6 {
            let mesh =
                crate::mesh::test_worlds::quad_room(&mut rng, 25, 1.0..27.0, 0.3..3.0, |_| 0.0);
            let corners: Vec<u32> = (0..mesh.vertices.len() as u32)
                .filter(|&v| mesh.obstacle_vertex[v as usize])
                .collect();
            for _ in 0..150 {
                let r: f32 = [0.05, 0.2, 0.5, 1.0][rng.gen_range(0..4)];
                let mut point = || DVec2::new(rng.gen_range(0.0..30.0), rng.gen_range(0.0..30.0));
                let mut pieces = vec![Piece::Line {
                    a: point(),
                    b: point(),
                }];
                let c = corners[rng.gen_range(0..corners.len())];
                let center = mesh.vertices[c as usize];
                let from = center + Vec2::new(r, 0.0);
                let to = center + Vec2::new(0.0, r);
                pieces.push(Piece::Arc {
                    center: center.as_dvec2(),
                    radius: f64::from(r),
                    from,
                    to,
                    side: Side::Left,
                    sweep: std::f64::consts::FRAC_PI_2,
                });
                let wrap = |id: u32| Wrap {
                    point: FunnelPoint {
                        id,
                        circle: Circle::new(mesh.vertices[id as usize], r),
                    },
                    side: Side::Left,
                    arrive: mesh.vertices[id as usize],
                    g: 0.0,
                };
                let wraps = [wrap(c), wrap(corners[rng.gen_range(0..corners.len())])];
                let rr = f64::from(r);
                let scan = corners.iter().any(|&v| {
                    let w = mesh.vertices[v as usize].as_dvec2();
                    let slack = clear_slack(w, rr);
                    !wraps.iter().any(|x| x.point.id == v)
                        && pieces.iter().any(|piece| {
                            let (lo, hi) = piece.bounds(rr);
                            w.cmpge(lo).all()
                                && w.cmple(hi).all()
                                && piece.nearest(w).0 < rr - slack
                        })
                });
                assert_eq!(any_corner_within(&mesh, &pieces, &wraps, r), scan);
                if scan {
                    near += 1;
                } else {
                    clear += 1;
                }
            }
        }
        // Coverage floors for both answers. Measured: 560 near, 340 clear.
        assert!(near > 100 && clear > 100, "{near} near, {clear} clear");
    }

    /// The unit circle's arc from (1, 0) to (0, 1), counter-clockwise.
    fn quarter_arc() -> Piece {
        Piece::Arc {
            center: DVec2::ZERO,
            radius: 1.0,
            from: Vec2::new(1.0, 0.0),
            to: Vec2::new(0.0, 1.0),
            side: Side::Left,
            sweep: std::f64::consts::FRAC_PI_2,
        }
    }

    #[test]
    fn an_arc_is_nearest_where_the_ray_to_a_point_meets_it() {
        let arc = quarter_arc();
        let (d, q) = arc.nearest(DVec2::new(2.0, 2.0));
        assert!((d - (8f64.sqrt() - 1.0)).abs() < 1e-12);
        assert!((q - DVec2::splat(0.5f64.sqrt())).length() < 1e-12);
        // Beyond the arc's end: the end is nearest.
        let (d, q) = arc.nearest(DVec2::new(-1.0, 2.0));
        assert!((q - DVec2::new(0.0, 1.0)).length() < 1e-6);
        assert!((d - 2f64.sqrt()).abs() < 1e-6);
        // Moving counter-clockwise around the centre, the far side is the right.
        assert_eq!(arc.side_of(q, DVec2::new(0.0, 3.0)), Side::Right);
    }

    #[test]
    fn crossing_segments_are_at_distance_zero() {
        let d = segment_distance_squared(
            DVec2::new(-1.0, 0.0),
            DVec2::new(1.0, 0.0),
            DVec2::new(0.0, -1.0),
            DVec2::new(0.0, 1.0),
        );
        assert_eq!(d, 0.0);
        let d = segment_distance_squared(
            DVec2::new(-1.0, 0.0),
            DVec2::new(1.0, 0.0),
            DVec2::new(0.0, 0.5),
            DVec2::new(0.0, 1.0),
        );
        assert_eq!(d, 0.25);
    }

    /// A segment is near a piece when it comes within the radius (of the line, or of
    /// the arc's circle), and not when it stays a little further.
    #[test]
    fn a_segment_is_near_a_piece_within_the_radius() {
        let (p, q) = (DVec2::new(-1.0, 2.0), DVec2::new(1.0, 2.0));
        let line = Piece::Line {
            a: DVec2::new(-5.0, 0.0),
            b: DVec2::new(5.0, 0.0),
        };
        assert!(line.near_segment(p, q, 2.001));
        assert!(!line.near_segment(p, q, 1.999));
        let arc = quarter_arc();
        assert!(arc.near_segment(p, q, 1.001));
        assert!(!arc.near_segment(p, q, 0.999));
    }

    /// Pieces binned once and again (the buffers reused) answer every box query as a
    /// test of every piece's box would.
    #[test]
    fn rebinned_pieces_answer_box_queries_as_a_scan_does() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut bins = Bins::default();
        for round in 0..20 {
            let count = rng.gen_range(0..40);
            let mut point = || DVec2::new(rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0));
            let pieces: Vec<Piece> = (0..count)
                .map(|_| Piece::Line {
                    a: point(),
                    b: point(),
                })
                .collect();
            let radius = 0.5 * f64::from(round);
            bins.rebuild(&pieces, radius);
            for _ in 0..50 {
                let (p, q) = (point(), point());
                let (lo, hi) = (p.min(q), p.max(q));
                let mut found = Vec::new();
                bins.any(lo, hi, |i| {
                    found.push(i);
                    false
                });
                found.sort_unstable();
                found.dedup();
                let expected: Vec<usize> = (0..pieces.len())
                    .filter(|&i| {
                        let (blo, bhi) = pieces[i].bounds(radius);
                        hi.cmpge(blo).all() && lo.cmple(bhi).all()
                    })
                    .collect();
                assert_eq!(found, expected, "round {round}");
            }
        }
    }

    /// Each check starts with no triangle marked, also when the generation counter
    /// wraps around.
    #[test]
    fn a_check_starts_with_no_triangle_marked() {
        let mut scratch = BesideScratch::default();
        scratch.begin(10);
        scratch.mark(3, INSIDE);
        scratch.mark(4, BESIDE);
        assert!(scratch.is(3, INSIDE) && scratch.is(4, BESIDE) && !scratch.is(3, BESIDE));
        assert!(scratch.is_marked(3) && scratch.is_marked(4) && !scratch.is_marked(5));
        scratch.begin(12);
        assert!((0..12).all(|t| !scratch.is_marked(t)));
        scratch.mark(11, BESIDE);
        scratch.generation = u32::MAX - 3;
        scratch.mark(2, INSIDE);
        scratch.begin(12);
        assert!((0..12).all(|t| !scratch.is_marked(t)));
        scratch.mark(2, BESIDE);
        assert!(scratch.is(2, BESIDE) && !scratch.is_marked(1));
    }
}
