//! The A* loop: the open list, the expansion of a node across each portal it can
//! cross, and the complete paths checked beside their channel when popped.

use super::pools::Scratch;
use super::tolerance;
use super::tree::{Node, NONE_NODE};
use super::Tuning;
use crate::geom::orient2d_value;
use crate::mesh::{NavMesh, TriangleId};
use crate::path::beside::Cleared;
use crate::path::funnel::{Funnel, FunnelPoint, Wrap};
use crate::path::{Path, PathError};
use glam::{DVec2, Vec2};
use std::cmp::Ordering;

/// Open-list entry, ordered by lower bound (smallest first); on ties complete paths
/// first, then the newest node (depth first among equals: along a straight line to
/// the goal, every node has the same bound).
pub(super) struct Open {
    pub(super) f: f64,
    pub(super) node: u32,
    /// A complete path (an index into `Search::done`, `NONE_NODE` for none): `f` is
    /// its exact length.
    pub(super) done: u32,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse. Complete paths first on ties.
        other
            .f
            .total_cmp(&self.f)
            .then_with(|| {
                (other.done == NONE_NODE)
                    .cmp(&(self.done == NONE_NODE))
                    .reverse()
            })
            .then_with(|| self.node.cmp(&other.node))
    }
}

/// How far, in agent radii, a node's bound may exceed the open list's best and the
/// search still go on down its corridor (its only child) instead of switching to the
/// best. A point's bound stays flat along a corridor, so ties keep it going; a disc's
/// rises a little at almost every portal (each portal end shows another point of a
/// corner's circle), so without a lead the search would hop between channels of
/// nearly equal bounds through the open list. Expanding a node before its turn changes
/// no answer: a complete path is still returned only when no open bound is below its
/// length, and every pruning record is a real path whatever the order. The lead trades
/// those hops against expanding nodes a strict order would never reach (how one
/// radius was chosen: `docs/benchmarks.md`, "Design notes").
const CORRIDOR_LEAD: f64 = 1.0;

/// One query's search: the mesh, the query, the rules in force, the buffers, and
/// what the search did so far.
pub(super) struct Search<'m> {
    pub(super) mesh: &'m NavMesh,
    pub(super) start: Vec2,
    pub(super) goal: Vec2,
    pub(super) radius: f32,
    /// The buffers, prepared for this search.
    pub(super) scratch: Scratch,
    /// Which exact rules are on.
    pub(super) tuning: Tuning,
    /// Entries taken from the open list.
    pub(super) popped: u32,
    /// Nodes dropped by whole-portal dominance.
    pub(super) portal_pruned: u32,
    /// Whether a complete path popped was repaired or dropped by the check beside its
    /// channel.
    pub(super) repaired: bool,
    /// For a disc, the least lower bound (`f`) of a node dropped by dominance
    /// (infinite when none was).
    pub(super) least_pruned: f64,
    /// The search stops (`over_budget`) when it has made more nodes than this.
    pub(super) node_budget: usize,
    /// Whether it stopped over its budget.
    pub(super) over_budget: bool,
}

/// The check beside the channel that a disc's complete path still needs (see
/// `path::beside`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Check {
    /// The node whose channel the path goes through (`NONE_NODE`: the start's
    /// triangle alone).
    pub(super) node: u32,
    /// For a path found without the channel's last portal: that portal's ends, which
    /// its last leg must still cross between.
    pub(super) direct: Option<(FunnelPoint, FunnelPoint)>,
}

impl<'m> Search<'m> {
    /// A search from `start` to `goal` for a disc of radius `radius` on `mesh`, under
    /// the rules of `tuning`, in the buffers `scratch` (handed back by
    /// [`Search::into_scratch`]).
    pub(super) fn new(
        mesh: &'m NavMesh,
        start: Vec2,
        goal: Vec2,
        radius: f32,
        tuning: Tuning,
        scratch: Scratch,
    ) -> Self {
        let mut b = scratch;
        b.generation = b.generation.wrapping_add(1).max(1);
        let fresh = b.generation == 1;
        b.nodes.clear();
        b.links.clear();
        b.arena.clear();
        b.open.clear();
        b.done.clear();
        b.unchecked.clear();
        b.arrivals.prepare(mesh.vertices.len(), fresh);
        b.arrival_lists.reset();
        b.portal_lists.reset();
        b.portals.prepare(3 * mesh.triangles.len(), fresh);
        b.portal_spans.clear();
        b.last_in.prepare(mesh.triangles.len(), fresh);
        if radius > 0.0 {
            b.span_memo
                .prepare(mesh.id, 3 * mesh.triangles.len(), radius);
        }
        Search {
            mesh,
            start,
            goal,
            radius,
            scratch: b,
            tuning,
            popped: 0,
            portal_pruned: 0,
            repaired: false,
            least_pruned: f64::INFINITY,
            node_budget: usize::MAX,
            over_budget: false,
        }
    }

    /// The buffers, for the next search.
    pub(super) fn into_scratch(self) -> Scratch {
        self.scratch
    }

    /// The shortest path from the start, in triangle `ts`, to the goal, in `tg`.
    pub(super) fn run(&mut self, ts: TriangleId, tg: TriangleId) -> Result<Path, PathError> {
        let funnel = Funnel::new(self.start, &mut self.scratch.arena);
        if ts == tg {
            if let Ok(wraps) = funnel.finish(self.goal, &mut self.scratch.arena) {
                let len = wraps.last().map_or(0.0, |w| w.g);
                let check = Check {
                    node: NONE_NODE,
                    direct: None,
                };
                self.push_done(len, NONE_NODE, wraps, check);
            }
        }
        // Leave the start triangle through every open edge.
        for e in 0..3 {
            if self.mesh.is_wall(ts, e) {
                continue;
            }
            if let Some(child) = self.extend(NONE_NODE, ts, e, &funnel, tg) {
                self.scratch.open.push(child);
            }
        }
        while let Some(open) = self.scratch.open.pop() {
            self.popped += 1;
            if self.scratch.nodes.len() > self.node_budget {
                self.over_budget = true;
                break;
            }
            if open.done != NONE_NODE {
                let wraps = std::mem::take(&mut self.scratch.done[open.done as usize]);
                let Some(check) = self.scratch.unchecked[open.done as usize].take() else {
                    return Ok(self.build_path(&wraps, open.f));
                };
                // A disc's path, at the funnel's length (a lower bound of the checked
                // one): checked now, and back in the open list at its true length
                // (popped at once when the check changed nothing).
                let mut channel = std::mem::take(&mut self.scratch.channel);
                if check.node == NONE_NODE {
                    channel.clear();
                    channel.push(ts.0);
                } else {
                    self.channel(check.node, &mut channel);
                }
                let cleared = self.keep_clear(&channel, check.direct.is_some(), wraps);
                self.scratch.channel = channel;
                let checked = match cleared {
                    Cleared::Clear(wraps) => Some(wraps),
                    Cleared::Repaired(wraps) => {
                        self.repaired = true;
                        // The direct path's last leg was checked before the repair.
                        check
                            .direct
                            .is_none_or(|(l, r)| last_leg_crosses(&wraps, l, r))
                            .then_some(wraps)
                    }
                    Cleared::Dropped => {
                        self.repaired = true;
                        None
                    }
                };
                if let Some(wraps) = checked {
                    let len = wraps.last().map_or(f64::INFINITY, |w| w.g);
                    self.push_open(len, open.node, Some(wraps));
                }
                continue;
            }
            // Along a corridor (one successor that would be popped next anyway, or
            // nearly: see `CORRIDOR_LEAD`), go on expanding without the round trip
            // through the open list.
            let lead = match self.tuning.corridor_lead {
                true => CORRIDOR_LEAD * f64::from(self.radius),
                false => 0.0,
            };
            let mut current = Some(open.node);
            while let Some(index) = current.take() {
                let node = &mut self.scratch.nodes[index as usize];
                let from = node.from;
                let Some(funnel) = node.funnel.take() else {
                    continue;
                };
                let t = TriangleId(self.scratch.links[index as usize].tri);
                let Some(entry) = self.mesh.edge_toward(t.0, from) else {
                    continue;
                };
                let mut children: [Option<Open>; 2] = [None, None];
                for exit in 0..3 {
                    if exit != entry && self.mesh.can_cross(t, entry, exit, self.radius) {
                        let child = self.extend(index, t, exit, &funnel, tg);
                        if children[0].is_none() {
                            children[0] = child;
                        } else {
                            children[1] = child;
                        }
                    }
                }
                if self.scratch.nodes[index as usize].pending {
                    // Kept: a portal's first funnel is measured when a second arrives.
                    self.scratch.nodes[index as usize].funnel = Some(funnel);
                }
                match children {
                    [Some(only), None]
                        if self.scratch.open.peek().is_none_or(|top| {
                            only >= *top || (lead > 0.0 && only.f <= top.f + lead)
                        }) =>
                    {
                        current = Some(only.node);
                    }
                    _ => self.scratch.open.extend(children.into_iter().flatten()),
                }
            }
        }
        Err(PathError::NoPath(self.mesh.no_path_reason(ts, tg)))
    }

    /// Crosses edge `exit` of triangle `t` (the end of `parent`'s channel), pushing the
    /// node for the triangle beyond (pushing the complete path too if it holds the
    /// goal); returns the node's open-list entry for the caller to push.
    fn extend(
        &mut self,
        parent: u32,
        t: TriangleId,
        exit: usize,
        funnel: &Funnel,
        tg: TriangleId,
    ) -> Option<Open> {
        let mesh = self.mesh;
        let next = mesh.neighbor(t, exit)?;
        if mesh.pockets().pointless(t.0, next.0, tg.0) {
            return None;
        }
        // A triangle other than the goal's that this agent cannot leave again (its
        // gates are too narrow) is a dead end too.
        if next != tg {
            let back = mesh.edge_toward(next.0, t.0)?;
            let onward = |k: usize| mesh.can_cross(next, back, k, self.radius);
            if !onward((back + 1) % 3) && !onward((back + 2) % 3) {
                return None;
            }
        }
        let ids = mesh.triangles[t.index()];
        // Walking out of a counter-clockwise triangle, the edge's end is on the left.
        let (right, left) = (ids[exit], ids[(exit + 1) % 3]);
        let lp = mesh.funnel_point(left, self.radius);
        let rp = mesh.funnel_point(right, self.radius);
        // The portal itself must be wide enough between two obstacle corners.
        let width = lp.circle.center.distance(rp.circle.center);
        if width < lp.circle.radius + rp.circle.radius {
            return None;
        }
        // The new node's funnel is built in place in the node list; pruned
        // nodes are popped again.
        let index = self.scratch.nodes.len() as u32;
        self.scratch.nodes.push(Node {
            from: t.0,
            funnel: Some(*funnel),
            pending: false,
        });
        let pushed = self.scratch.nodes[index as usize].funnel.as_mut()?;
        if pushed.push_portal(lp, rp, &mut self.scratch.arena).is_err() {
            self.scratch.nodes.pop();
            return None;
        }
        let apex = *pushed.apex();
        let pruned = self.pruned(index, apex, t, exit, lp, rp);
        if pruned || self.in_channel(parent, next.0) {
            if self.radius > 0.0 && !pruned {
                self.settle_record(3 * t.0 + exit as u32, index);
            }
            // The loop check comes last: it walks the channel, and pruning usually
            // decides first. A record left by a channel that loops is still a real path
            // (the funnel's path through the channel's triangles in order), so it
            // prunes soundly.
            self.scratch.nodes.pop();
            return None;
        }
        let f = apex.g + self.heuristic(&apex, lp, rp);
        self.link(index, parent, next.0);
        if next == tg {
            let through = self.scratch.nodes[index as usize]
                .funnel
                .and_then(|funnel| funnel.finish(self.goal, &mut self.scratch.arena).ok());
            // For a disc, pushing the last portal may make the funnel wrap a corner
            // because the tangent to the portal's far end passes beyond it, while the
            // goal lies short of that tangent point (the path then sweeps nearly a full
            // turn around the corner). The path found without the last portal is then
            // the shorter one, and it is valid when its last leg crosses the portal
            // clear of both ends.
            let direct = if self.radius > 0.0 {
                funnel
                    .finish(self.goal, &mut self.scratch.arena)
                    .ok()
                    .filter(|wraps| last_leg_crosses(wraps, lp, rp))
            } else {
                None
            };
            // The path without the last portal goes to the open list too when it is
            // shorter (it may fail its check beside the channel, the other not): the
            // shorter is popped first.
            let length = |w: &Option<Vec<Wrap>>| {
                w.as_ref()
                    .and_then(|w| w.last())
                    .map_or(f64::INFINITY, |w| w.g)
            };
            let direct = if length(&direct) < length(&through) {
                direct
            } else {
                None
            };
            for (wraps, direct) in [(through, None), (direct, Some((lp, rp)))] {
                if let Some(wraps) = wraps {
                    let len = wraps.last().map_or(f64::INFINITY, |w| w.g);
                    self.push_done(
                        len,
                        index,
                        wraps,
                        Check {
                            node: index,
                            direct,
                        },
                    );
                }
            }
        }
        Some(Open {
            f,
            node: index,
            done: NONE_NODE,
        })
    }

    /// Whether a dominance rule drops new node `index`, whose funnel has apex `apex`
    /// and last crossed portal `exit` of `t`, from `rp` to `lp`: the rule on the apex
    /// (`apex`), then the rule on the whole portal, a point's (`portal`) or a disc's
    /// (`disc`). Each rule records the node when it passes.
    fn pruned(
        &mut self,
        index: u32,
        apex: Wrap,
        t: TriangleId,
        exit: usize,
        lp: FunnelPoint,
        rp: FunnelPoint,
    ) -> bool {
        if self.dominated(apex) {
            return true;
        }
        if self.radius == 0.0 {
            return self.point_pruned(index, apex, t, exit, lp, rp);
        }
        if !self.disc_pruned(index, apex, t, exit) {
            return false;
        }
        // Kept for the fallback's test (see the module's documentation): the least
        // bound, so the full bound only when the straight one is below it.
        let straight = apex.g + apex.arrive.as_dvec2().distance(self.goal.as_dvec2());
        if straight < self.least_pruned {
            let f = apex.g + self.heuristic(&apex, lp, rp);
            self.least_pruned = self.least_pruned.min(f);
        }
        true
    }

    /// A complete path `wraps` through `channel` (its last portal left out when
    /// `skip_last`), kept clear of the corners beside the channel (see
    /// `path::beside`); `None` when it cannot be.
    fn keep_clear(&mut self, channel: &[u32], skip_last: bool, wraps: Vec<Wrap>) -> Cleared {
        let query = crate::path::beside::ChannelQuery {
            grid_first: self.tuning.beside_grid,
            mesh: self.mesh,
            channel,
            start: self.start,
            goal: self.goal,
            radius: self.radius,
            skip_last,
        };
        crate::path::beside::keep_clear(
            &query,
            wraps,
            &mut self.scratch.arena,
            &mut self.scratch.beside,
        )
    }

    fn push_open(&mut self, f: f64, node: u32, done: Option<Vec<Wrap>>) {
        let done = match done {
            Some(wraps) => {
                self.scratch.done.push(wraps);
                self.scratch.unchecked.push(None);
                (self.scratch.done.len() - 1) as u32
            }
            None => NONE_NODE,
        };
        self.scratch.open.push(Open { f, node, done });
    }

    /// Pushes a complete path of length `len`; a disc's with the check it needs.
    fn push_done(&mut self, len: f64, node: u32, wraps: Vec<Wrap>, check: Check) {
        self.push_open(len, node, Some(wraps));
        if self.radius > 0.0 {
            if let Some(slot) = self.scratch.unchecked.last_mut() {
                *slot = Some(check);
            }
        }
    }

    /// Admissible estimate of the rest: from the apex's arrival point (on its circle)
    /// through the last portal (shrunk by the corners' radii) to the goal.
    fn heuristic(&self, apex: &Wrap, left: FunnelPoint, right: FunnelPoint) -> f64 {
        let (l, r) = (
            left.circle.center.as_dvec2(),
            right.circle.center.as_dvec2(),
        );
        let len = l.distance(r);
        let (a, b) = if len > 0.0 {
            let u = (r - l) / len;
            let (sl, sr) = (
                f64::from(left.circle.radius),
                f64::from(right.circle.radius),
            );
            (l + u * sl.min(len), r - u * sr.min(len))
        } else {
            (l, r)
        };
        // Every continuation leaves from the arrival point (where the apex's length
        // ends; a point agent's is the corner itself). A disc's lies at the radius from
        // the centre: measured from there, the bound is at least the centre's less the
        // radius, often more.
        via_segment(apex.arrive.as_dvec2(), a, b, self.goal.as_dvec2()).max(0.0)
    }
}

/// Does the last leg of a path (the tangent from its last corner to the goal) cross
/// the portal from `right` to `left` (as seen walking through it) between them,
/// keeping both ends' radii?
fn last_leg_crosses(wraps: &[Wrap], left: FunnelPoint, right: FunnelPoint) -> bool {
    let [.., corner, goal] = wraps else {
        return false;
    };
    let Some(leg) = crate::geom::tangent_between(
        corner.point.circle,
        corner.side,
        goal.point.circle,
        goal.side,
    ) else {
        return false;
    };
    let (p, q) = (leg.a.as_dvec2(), leg.b.as_dvec2());
    let (l, r) = (
        left.circle.center.as_dvec2(),
        right.circle.center.as_dvec2(),
    );
    let clear = |c: FunnelPoint| {
        let d = crate::mesh::distance_to_segment(c.circle.center.as_dvec2(), p, q);
        d >= f64::from(c.circle.radius) * (1.0 - tolerance::CLEARANCE)
    };
    // The leg starts on the portal's near side (left of `r -> l`) and ends on its far
    // side or on it, meeting the portal between its ends.
    let side = |x: DVec2| (l - r).perp_dot(x - r);
    let (sp, sq) = (side(p), side(q));
    if sp < 0.0 || sq > 0.0 {
        return false;
    }
    let denom = sp - sq;
    let x = if denom > 0.0 {
        p + (q - p) * (sp / denom)
    } else {
        p
    };
    let t = (x - r).dot(l - r) / (l - r).length_squared().max(f64::MIN_POSITIVE);
    (0.0..=1.0).contains(&t) && clear(left) && clear(right)
}

/// Shortest distance from `c` to `g` through a point of segment `a b`.
fn via_segment(c: DVec2, a: DVec2, b: DVec2, g: DVec2) -> f64 {
    let ab = b - a;
    if ab.length_squared() == 0.0 {
        return c.distance(a) + a.distance(g);
    }
    // Reflect the goal when it is on the same side as `c`.
    let side = |p: DVec2| ab.perp_dot(p - a);
    let (sc, sg) = (side(c), side(g));
    let g2 = if sc * sg > 0.0 {
        let n = ab.perp().normalize();
        g - n * (2.0 * (g - a).dot(n))
    } else {
        g
    };
    // Where the line c → g2 crosses the line a b.
    let d = g2 - c;
    let denom = ab.perp_dot(d);
    if denom != 0.0 {
        let t = (c - a).perp_dot(d) / denom;
        if (0.0..=1.0).contains(&t) {
            return c.distance(g2);
        }
    } else if orient2d_value(a.as_vec2(), b.as_vec2(), c.as_vec2()) == 0.0 {
        // Degenerate: everything on one line.
        return (c.distance(a) + a.distance(g)).min(c.distance(b) + b.distance(g));
    }
    (c.distance(a) + a.distance(g)).min(c.distance(b) + b.distance(g))
}
