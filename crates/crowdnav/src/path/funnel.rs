//! The funnel with agent radius: an incremental deque funnel whose points are circles.
//!
//! Every obstacle corner of the channel is a circle of the agent's radius (corners that
//! touch no wall, the start and the goal are circles of radius 0). Portals are pushed
//! one at a time, left and right ends; the funnel keeps
//!
//! - the **apex**: the last circle the path is known to wrap, the side it is passed on,
//!   and the exact length of the path up to the point where it reaches that circle;
//! - a **left chain** and a **right chain**: the circles the path may still have to
//!   wrap, in order, each bending the boundary the right way.
//!
//! Directions between circles are their tangents for the sides involved
//! ([`tangent_between`]), so the same comparisons as the point funnel (the Simple
//! Stupid Funnel Algorithm's cross products) hold for any radius, and radius 0 *is*
//! the point funnel. When a new end crosses the opposite boundary, the apex advances
//! along the opposite chain, adding the arc around the old apex and the tangent to the
//! new one. The chains are persistent lists in an arena shared by the search's
//! funnels, so a funnel is a few numbers, copied whole: a search keeps one per node.

use crate::geom::{tangent_between, Circle, Side};
use glam::{DVec2, Vec2};
use smallvec::SmallVec;

/// A corner the funnel may bend around.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FunnelPoint {
    /// Identity (a mesh vertex id; `u32::MAX` for the start and the goal).
    pub id: u32,
    /// The circle: the corner and the radius the path must keep from it.
    pub circle: Circle,
}

/// One corner the final path wraps, with the geometry of the wrap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Wrap {
    pub point: FunnelPoint,
    pub side: Side,
    /// Where the path arrives on the circle.
    pub arrive: Vec2,
    /// Path length from the start to `arrive`.
    pub g: f64,
}

/// A funnel whose tangent between two of its circles does not exist: the corners are
/// closer than their radii allow, so the channel is closed to this agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blocked;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Funnel {
    /// Index of the current apex's record in the caller's arena.
    pub apex: u32,
    pub apex_wrap: Wrap,
    left: Chain,
    right: Chain,
}

/// A chain of the funnel: a persistent list of links kept in the caller's arena (see
/// [`WrapArena`]), so that copying a funnel (a search keeps one per node) copies three
/// numbers per chain, whatever its length.
///
/// The chain is the last `len` cells of the list that ends at cell `tail` (each cell
/// points to the one before it); `head` is the first of them. Pushing adds a cell;
/// popping either end moves `tail` or `head` and shares every cell, so funnels copied
/// from one another share their common links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chain {
    head: u32,
    tail: u32,
    len: u32,
}

impl Chain {
    const EMPTY: Chain = Chain {
        head: NO_PARENT,
        tail: NO_PARENT,
        len: 0,
    };

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn first(&self, arena: &WrapArena) -> Option<Link> {
        (self.len > 0).then(|| arena.cells[self.head as usize].link)
    }

    fn last(&self, arena: &WrapArena) -> Option<Link> {
        (self.len > 0).then(|| arena.cells[self.tail as usize].link)
    }

    /// The link before the last one.
    fn before_last(&self, arena: &WrapArena) -> Option<Link> {
        (self.len > 1).then(|| {
            let prev = arena.cells[self.tail as usize].prev;
            arena.cells[prev as usize].link
        })
    }

    fn push(&mut self, link: Link, arena: &mut WrapArena) {
        let prev = if self.len > 0 { self.tail } else { NO_PARENT };
        arena.cells.push(Cell { link, prev });
        self.tail = (arena.cells.len() - 1) as u32;
        if self.len == 0 {
            self.head = self.tail;
        }
        self.len += 1;
    }

    fn pop_last(&mut self, arena: &WrapArena) {
        if self.len > 0 {
            self.len -= 1;
            self.tail = arena.cells[self.tail as usize].prev;
        }
    }

    fn pop_first(&mut self, arena: &WrapArena) {
        if self.len > 0 {
            self.len -= 1;
            // The new first cell is `len - 1` steps before the last.
            let mut at = self.tail;
            for _ in 1..self.len {
                at = arena.cells[at as usize].prev;
            }
            self.head = at;
        }
    }

    /// The links, first to last.
    fn links(&self, arena: &WrapArena) -> SmallVec<[Link; 8]> {
        let mut out = SmallVec::new();
        let mut at = self.tail;
        for _ in 0..self.len {
            let cell = arena.cells[at as usize];
            out.push(cell.link);
            at = cell.prev;
        }
        out.reverse();
        out
    }
}

/// A chain corner with the length of the path that reaches it along the chain, from
/// the start, measured between circle centres: exact for a point agent (all radii 0),
/// where it is what [`Funnel::end_lengths`] reports.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    p: FunnelPoint,
    g: f64,
}

/// A link of a [`Chain`], and the cell before it.
#[derive(Clone, Copy, Debug)]
struct Cell {
    link: Link,
    prev: u32,
}

/// Records of wraps, shared by all the funnels of a search: each record points to the
/// wrap before it, so a funnel carries its whole path history as one index. The
/// funnels' chains keep their links here too.
#[derive(Default)]
pub(crate) struct WrapArena {
    records: Vec<(Wrap, u32)>,
    cells: Vec<Cell>,
}

pub(crate) const NO_PARENT: u32 = u32::MAX;

impl WrapArena {
    /// Forgets every record and link (for the next search).
    pub fn clear(&mut self) {
        self.records.clear();
        self.cells.clear();
    }

    /// Where the arena is now, to go back to with [`WrapArena::truncate`].
    fn mark(&self) -> (usize, usize) {
        (self.records.len(), self.cells.len())
    }

    /// Forgets what was added since `mark`: funnels made since then must not be used.
    fn truncate(&mut self, (records, cells): (usize, usize)) {
        self.records.truncate(records);
        self.cells.truncate(cells);
    }

    fn push(&mut self, wrap: Wrap, parent: u32) -> u32 {
        self.records.push((wrap, parent));
        (self.records.len() - 1) as u32
    }

    /// The wraps from the start up to and including `last`.
    pub fn history(&self, mut last: u32) -> Vec<Wrap> {
        let mut out = Vec::new();
        while last != NO_PARENT {
            let (w, parent) = self.records[last as usize];
            out.push(w);
            last = parent;
        }
        out.reverse();
        out
    }
}

fn tangent_dir(from: &Wrap, to: FunnelPoint, to_side: Side) -> Result<(Vec2, Vec2), Blocked> {
    tangent_between(from.point.circle, from.side, to.circle, to_side)
        .map(|t| (t.a, t.b))
        .ok_or(Blocked)
}

/// Direction of the tangent from `a` (side `sa`) to `b` (side `sb`), in `f64`.
#[inline(always)]
fn direction(a: FunnelPoint, sa: Side, b: FunnelPoint, sb: Side) -> Result<DVec2, Blocked> {
    if a.circle.radius == b.circle.radius && (sa == sb || a.circle.radius == 0.0) {
        // Between points the tangent is the segment itself (the common case at r = 0);
        // between equal circles passed on the same side it is parallel to the centres'
        // segment.
        let d = b.circle.center.as_dvec2() - a.circle.center.as_dvec2();
        if d != DVec2::ZERO {
            return Ok(d);
        }
    }
    if let Some(d) = tangent_direction(a, sa, b, sb) {
        return Ok(d);
    }
    // Nearly touching: whether the tangent exists is `tangent_between`'s to decide.
    tangent_between(a.circle, sa, b.circle, sb).ok_or(Blocked)?;
    Ok(touching_direction(a, sa, b, sb))
}

/// The direction of the tangent from `a` (side `sa`) to `b` (side `sb`) when the
/// circles (nearly) touch, with the formula of [`tangent_direction`] and `s` clamped at
/// 0: at the touching point the tangent is perpendicular to the centres' line (a start
/// exactly at the radius from a corner, as on grid maps, leaves along the circle),
/// not along it. The centres' line when that is zero too (the same point).
fn touching_direction(a: FunnelPoint, sa: Side, b: FunnelPoint, sb: Side) -> DVec2 {
    let d = b.circle.center.as_dvec2() - a.circle.center.as_dvec2();
    let delta = signed_radius(b, sb) - signed_radius(a, sa);
    let s = (d.length_squared() - delta * delta).max(0.0).sqrt();
    let t = d * s - d.perp() * delta;
    if t == DVec2::ZERO {
        d
    } else {
        t
    }
}

/// A positive multiple of the direction of the tangent from `a` (side `sa`) to `b`
/// (side `sb`), without the tangent points: with `d` the centres' difference, `δ` the
/// difference of the signed radii and `s = √(|d|² - δ²)`, the tangent runs along
/// `s d - δ d⊥` (the tangent points' difference scaled by `|d|² / s`). One square root
/// and no division; only the direction's side of other directions is asked of it.
/// `None` when the circles are nearly touching or overlapping (where `s` is lost to
/// rounding), for [`tangent_between`] to decide.
fn tangent_direction(a: FunnelPoint, sa: Side, b: FunnelPoint, sb: Side) -> Option<DVec2> {
    let d = b.circle.center.as_dvec2() - a.circle.center.as_dvec2();
    let delta = signed_radius(b, sb) - signed_radius(a, sa);
    let len2 = d.length_squared();
    let s2 = len2 - delta * delta;
    // Well clear of touching: the tangent points' formula is then well conditioned too.
    if s2.is_nan() || s2 <= 1e-6 * len2 {
        return None;
    }
    Some(d * s2.sqrt() - d.perp() * delta)
}

/// The radius of `p`'s circle, negative when passed on the right.
fn signed_radius(p: FunnelPoint, side: Side) -> f64 {
    match side {
        Side::Left => f64::from(p.circle.radius),
        Side::Right => -f64::from(p.circle.radius),
    }
}

/// Angle swept around a circle from `from` to `to` (both on the circle), turning
/// counter-clockwise for `Side::Left` (the circle on the path's left) and clockwise for
/// `Side::Right`, in `[0, 2π)`; sweeps within rounding of a full turn count as none.
pub(crate) fn sweep(center: Vec2, from: Vec2, to: Vec2, side: Side) -> f64 {
    let (c, a, b) = (center.as_dvec2(), from.as_dvec2(), to.as_dvec2());
    let (u, v) = (a - c, b - c);
    if u.length_squared() == 0.0 || v.length_squared() == 0.0 {
        return 0.0;
    }
    let ccw = u.perp_dot(v).atan2(u.dot(v)); // (-π, π]
    let s = match side {
        Side::Left => ccw,
        Side::Right => -ccw,
    };
    let tau = std::f64::consts::TAU;
    // `s.rem_euclid(tau)` without the library's remainder: `|s| <= π`.
    let s = if s < 0.0 { s + tau } else { s };
    if s > tau - 1e-6 {
        0.0
    } else {
        s
    }
}

impl Funnel {
    /// A funnel at the start point.
    pub fn new(start: Vec2, arena: &mut WrapArena) -> Funnel {
        let wrap = Wrap {
            point: FunnelPoint {
                id: u32::MAX,
                circle: Circle::point(start),
            },
            side: Side::Left,
            arrive: start,
            g: 0.0,
        };
        let apex = arena.push(wrap, NO_PARENT);
        Funnel {
            apex,
            apex_wrap: wrap,
            left: Chain::EMPTY,
            right: Chain::EMPTY,
        }
    }

    /// Adds the next portal, `left` and `right` as seen walking through it.
    pub fn push_portal(
        &mut self,
        left: FunnelPoint,
        right: FunnelPoint,
        arena: &mut WrapArena,
    ) -> Result<(), Blocked> {
        self.push_end(left, Side::Left, false, arena)?;
        self.push_end(right, Side::Right, false, arena)
    }

    /// Adds one corner on one side only, between two portals: a wall corner beside
    /// the channel that the path must keep on that side (see `path::beside`).
    pub fn push_point(
        &mut self,
        p: FunnelPoint,
        side: Side,
        arena: &mut WrapArena,
    ) -> Result<(), Blocked> {
        self.push_end(p, side, false, arena)
    }

    /// Adds the goal and returns every wrap of the final path, from the start to the
    /// goal (both as radius-0 wraps).
    pub fn finish(mut self, goal: Vec2, arena: &mut WrapArena) -> Result<Vec<Wrap>, Blocked> {
        self.reach(goal, arena)?;
        Ok(arena.history(self.apex))
    }

    /// The length of the shortest path within this funnel's channel to point `x` of
    /// the last portal (what [`Funnel::finish`] would find with the goal at `x`),
    /// leaving the arena as it was.
    pub fn length_to(&self, x: Vec2, arena: &mut WrapArena) -> Result<f64, Blocked> {
        let mark = arena.mark();
        let mut probe = *self;
        let done = probe.reach(x, arena);
        arena.truncate(mark);
        done.map(|()| probe.apex_wrap.g)
    }

    /// Adds the goal and makes it the apex: the path's wraps are then the apex's
    /// history.
    fn reach(&mut self, goal: Vec2, arena: &mut WrapArena) -> Result<(), Blocked> {
        let g = FunnelPoint {
            id: u32::MAX,
            circle: Circle::point(goal),
        };
        self.push_end(g, Side::Left, true, arena)?;
        self.push_end(g, Side::Right, true, arena)?;
        // At most one chain still holds corners before the goal; the path wraps them.
        let (chain, side) = if self.left.len > 1 {
            (std::mem::replace(&mut self.left, Chain::EMPTY), Side::Left)
        } else {
            (
                std::mem::replace(&mut self.right, Chain::EMPTY),
                Side::Right,
            )
        };
        for link in chain.links(arena) {
            if link.p != self.apex_wrap.point {
                self.advance_to(link.p, side, arena)?;
            }
        }
        Ok(())
    }

    /// Path length to the apex, and the apex circle: a lower bound for any path
    /// through this funnel is `g + |centre → x| - radius + |x → goal|` for `x` on the
    /// last portal.
    pub fn apex(&self) -> &Wrap {
        &self.apex_wrap
    }

    /// For a point agent, the exact path lengths within the channel to the last
    /// portal's ends `left` and `right` (as pushed last); `None` when an end is not
    /// where this funnel records it.
    pub fn end_lengths(
        &self,
        left: FunnelPoint,
        right: FunnelPoint,
        arena: &WrapArena,
    ) -> Option<(f64, f64)> {
        let end = |chain: &Chain, p: FunnelPoint| {
            if p.id == self.apex_wrap.point.id && p == self.apex_wrap.point {
                Some(self.apex_wrap.g)
            } else {
                chain.last(arena).filter(|q| q.p == p).map(|q| q.g)
            }
        };
        Some((end(&self.left, left)?, end(&self.right, right)?))
    }

    fn chain(&mut self, side: Side) -> &mut Chain {
        match side {
            Side::Left => &mut self.left,
            Side::Right => &mut self.right,
        }
    }

    /// `true` when direction `d` lies strictly beyond direction `boundary` on the
    /// outside of the boundary of side `side` (left of it for the left boundary).
    fn outside(side: Side, boundary: DVec2, d: DVec2) -> bool {
        let cross = boundary.perp_dot(d);
        match side {
            Side::Left => cross > 0.0,
            Side::Right => cross < 0.0,
        }
    }

    /// Must a path from `from` (passed on `from_side`) straight to `p` (on `p_side`)
    /// wrap `corner`, which it has to pass on `corner_side`?
    ///
    /// For a portal end, the test is the point funnel's, on tangent directions: the
    /// corner must be wrapped unless `p` lies inside the boundary towards it. For the
    /// goal (`last`), nothing follows, so the finite tangent segment decides: the corner
    /// is passed correctly when its centre is on its side of the segment's line and its
    /// circle clear of the segment — the goal may lie short of the corner's circle.
    #[inline(always)]
    fn must_wrap(
        from: FunnelPoint,
        from_side: Side,
        corner: FunnelPoint,
        corner_side: Side,
        p: FunnelPoint,
        p_side: Side,
        last: bool,
    ) -> Result<bool, Blocked> {
        if !last {
            let to_corner = direction(from, from_side, corner, corner_side)?;
            let to_new = direction(from, from_side, p, p_side)?;
            // A disc's corner exactly on the way to a new end of its own chain (collinear
            // corners of a straight wall, passed at the radius) is kept: wrapping it
            // costs nothing, and a goal short of the new end may still need it (the
            // tangent to the goal then turns inside the boundary, across the corner's
            // circle).
            if corner_side == p_side
                && corner.circle.radius > 0.0
                && to_corner.perp_dot(to_new) == 0.0
            {
                return Ok(true);
            }
            return Ok(Self::outside(corner_side, to_corner, to_new));
        }
        let t = tangent_between(from.circle, from_side, p.circle, p_side).ok_or(Blocked)?;
        let (a, b) = (t.a.as_dvec2(), t.b.as_dvec2());
        let c = corner.circle.center.as_dvec2();
        let cross = (b - a).perp_dot(c - a);
        // A centre exactly on the line is passed either way (as the point funnel's
        // collinear ends are); the clearance test alone then decides.
        let on_side = match corner_side {
            Side::Left => cross >= 0.0,
            Side::Right => cross <= 0.0,
        };
        let clear = crate::mesh::distance_to_segment(c, a, b) >= f64::from(corner.circle.radius);
        Ok(!(on_side && clear))
    }

    /// Does the circle of `p` come closer than its radius to the tangent from `from`
    /// (passed on `from_side`) to `to` (passed on `to_side`)?
    ///
    /// The point funnel moves the apex to the opposite chain's first corner whenever a
    /// new end crosses the opposite boundary: between points the segment to that corner
    /// cannot touch the new end. Between discs it can: when the new end's corner lies
    /// beside the way to the opposite corner (both ends of one portal, crossed at a
    /// slant), the tangent to the opposite corner passes nearer than the radius to it,
    /// and the path must wrap the new end first.
    fn obstructs(
        p: FunnelPoint,
        from: FunnelPoint,
        from_side: Side,
        to: FunnelPoint,
        to_side: Side,
    ) -> Result<bool, Blocked> {
        if p.circle.radius == 0.0 {
            return Ok(false);
        }
        let t = tangent_between(from.circle, from_side, to.circle, to_side).ok_or(Blocked)?;
        let d = crate::mesh::distance_to_segment(
            p.circle.center.as_dvec2(),
            t.a.as_dvec2(),
            t.b.as_dvec2(),
        );
        Ok(d < f64::from(p.circle.radius) * (1.0 - 1e-6))
    }

    fn push_end(
        &mut self,
        p: FunnelPoint,
        side: Side,
        last: bool,
        arena: &mut WrapArena,
    ) -> Result<(), Blocked> {
        if p == self.apex_wrap.point || (p.id != u32::MAX && p.id == self.apex_wrap.point.id) {
            return Ok(());
        }
        if self
            .chain(side)
            .last(arena)
            .is_some_and(|q| q.p.id == p.id && p.id != u32::MAX)
        {
            return Ok(());
        }
        // Drop corners of this chain that the new end makes redundant.
        loop {
            let chain = *self.chain(side);
            let Some(Link { p: corner, .. }) = chain.last(arena) else {
                break;
            };
            let (prev, prev_side) = match chain.before_last(arena) {
                Some(link) => (link.p, side),
                None => (self.apex_wrap.point, self.apex_wrap.side),
            };
            if Self::must_wrap(prev, prev_side, corner, side, p, side, last)? {
                break;
            }
            self.chain(side).pop_last(arena);
        }
        // With this chain empty, the new end may cross the other boundary: the apex then
        // advances along the other chain.
        let other = side.flipped();
        while self.chain(side).is_empty() {
            let Some(Link { p: first, .. }) = self.chain(other).first(arena) else {
                break;
            };
            let apex = self.apex_wrap;
            if !Self::must_wrap(apex.point, apex.side, first, other, p, side, last)? {
                break;
            }
            if Self::obstructs(p, apex.point, apex.side, first, other)? {
                // The new end's circle lies across the way to the opposite corner: the
                // path wraps the new end first, and the opposite chain stays.
                self.advance_to(p, side, arena)?;
                return Ok(());
            }
            self.chain(other).pop_first(arena);
            self.advance_to(first, other, arena)?;
        }
        let (from, g) = match self.chain(side).last(arena) {
            Some(q) => (q.p.circle.center, q.g),
            None => (self.apex_wrap.point.circle.center, self.apex_wrap.g),
        };
        let g = g + from.as_dvec2().distance(p.circle.center.as_dvec2());
        self.chain(side).push(Link { p, g }, arena);
        Ok(())
    }

    /// Makes `p` (passed on `side`) the new apex: adds the arc around the old apex and
    /// the tangent to `p`.
    fn advance_to(
        &mut self,
        p: FunnelPoint,
        side: Side,
        arena: &mut WrapArena,
    ) -> Result<(), Blocked> {
        let old = self.apex_wrap;
        let (leave, arrive) = tangent_dir(&old, p, side)?;
        let arc = if old.point.circle.radius == 0.0 {
            0.0
        } else {
            f64::from(old.point.circle.radius)
                * sweep(old.point.circle.center, old.arrive, leave, old.side)
        };
        let g = old.g + arc + arrive.as_dvec2().distance(leave.as_dvec2());
        let wrap = Wrap {
            point: p,
            side,
            arrive,
            g,
        };
        self.apex = arena.push(wrap, self.apex);
        self.apex_wrap = wrap;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{direction, Chain, FunnelPoint, Link, WrapArena};
    use crate::geom::{Circle, Side};
    use glam::{DVec2, Vec2};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn point(x: f32, y: f32, radius: f32) -> FunnelPoint {
        FunnelPoint {
            id: 0,
            circle: Circle::new(Vec2::new(x, y), radius),
        }
    }

    /// From a point on a circle, or between touching circles passed on opposite
    /// sides, the tangent runs across the centres' line, turned the way of the sides.
    #[test]
    fn the_tangent_at_a_touching_point_is_across_the_centres_line() {
        let on = point(0.0, 0.0, 0.0);
        let corner = point(1.0, 0.0, 1.0);
        let d = direction(on, Side::Left, corner, Side::Right).expect("touching");
        assert!(d.x == 0.0 && d.y > 0.0, "{d}");
        let d = direction(on, Side::Left, corner, Side::Left).expect("touching");
        assert!(d.x == 0.0 && d.y < 0.0, "{d}");
        let other = point(3.0, 0.0, 1.0);
        let d = direction(corner, Side::Left, other, Side::Right).expect("touching");
        assert!(d.x == 0.0 && d.y > 0.0, "{d}");
        // The same point: the centres' line (empty).
        assert_eq!(direction(on, Side::Left, on, Side::Right), Ok(DVec2::ZERO));
    }

    /// Copies of a chain share its cells and still change apart: random pushes and
    /// pops at both ends on many copies, after each of which every copy reads as the
    /// `Vec` it models (first, last, the link before last, all links).
    #[test]
    fn chains_copied_and_changed_apart_read_as_their_own_lists() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut arena = WrapArena::default();
        let link = |k: u32| Link {
            p: FunnelPoint {
                id: k,
                circle: Circle::point(Vec2::new(k as f32, 0.0)),
            },
            g: f64::from(k),
        };
        let mut copies: Vec<(Chain, Vec<Link>)> = vec![(Chain::EMPTY, Vec::new())];
        for step in 0..20_000u32 {
            let i = rng.gen_range(0..copies.len());
            let (mut chain, mut model) = copies[i].clone();
            match rng.gen_range(0..4) {
                0 | 1 => {
                    chain.push(link(step), &mut arena);
                    model.push(link(step));
                }
                2 => {
                    chain.pop_last(&arena);
                    model.pop();
                }
                _ => {
                    chain.pop_first(&arena);
                    if !model.is_empty() {
                        model.remove(0);
                    }
                }
            }
            if copies.len() < 64 {
                copies.push((chain, model));
            } else {
                copies[i] = (chain, model);
            }
            for (chain, model) in &copies {
                assert_eq!(chain.len as usize, model.len());
                assert_eq!(chain.is_empty(), model.is_empty());
                assert_eq!(chain.first(&arena), model.first().copied());
                assert_eq!(chain.last(&arena), model.last().copied());
                let before_last = model.len().checked_sub(2).map(|k| model[k]);
                assert_eq!(chain.before_last(&arena), before_last);
                assert_eq!(chain.links(&arena).as_slice(), model.as_slice());
            }
        }
    }
}
