//! Whole-portal dominance for a disc, on the part of a portal its centre can cross.

use super::astar::Search;
use super::portal::{min_gap, PortalRecord};
use super::tolerance;
use super::tree::NONE_NODE;
use crate::mesh::{FreeSpan, NavMesh, TriangleId};
use crate::path::funnel::Wrap;
use glam::{DVec2, Vec2};

/// Where a disc's centre may cross a portal, for whole-portal dominance. Worked out
/// when a second funnel reaches the portal (most portals see one): until then the
/// first is kept pending.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) enum Span {
    /// No funnel yet.
    #[default]
    Fresh,
    /// One funnel so far, that of this node.
    Pending(u32),
    /// The free part is not one segment: no whole-portal dominance there.
    Unusable,
    /// The segment from `a` to `b`, taken `slack` inside the free part at each end;
    /// the records are in `Search::portal_lists`.
    Segment { a: Vec2, b: Vec2, slack: f64 },
}

impl Span {
    /// The span of memo entry `ends` (see [`SpanMemo`]), `slack` being its portal's.
    fn from_ends(ends: [f32; 4], slack: f64) -> Span {
        if ends[0].is_nan() {
            Span::Unusable
        } else {
            Span::Segment {
                a: Vec2::new(ends[0], ends[1]),
                b: Vec2::new(ends[2], ends[3]),
                slack,
            }
        }
    }
}

/// A thread's crossing segments (see [`Span`]) of the directed portals of one mesh for
/// one radius, kept between searches: agents come in a few sizes, and a portal's free
/// part depends only on the mesh and the radius. Asking for another mesh or radius
/// forgets every entry at once (each carries the stamp of the pair it was made for).
#[derive(Default)]
pub(super) struct SpanMemo {
    /// The mesh's id and the radius' bits the entries are for.
    owner: Option<(u64, u32)>,
    /// The stamp of the current owner's entries.
    stamp: u32,
    /// Per directed portal: the stamp it was made for, and its segment's ends (`NaN`
    /// for [`Span::Unusable`]).
    slots: Vec<(u32, [f32; 4])>,
}

impl SpanMemo {
    /// Makes the memo serve mesh `mesh` (with `portals` directed portals) and `radius`.
    pub(super) fn prepare(&mut self, mesh: u64, portals: usize, radius: f32) {
        let owner = Some((mesh, radius.to_bits()));
        if self.owner != owner {
            self.owner = owner;
            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                // Stamps wrapped: old entries could pass for new ones.
                self.slots.clear();
                self.stamp = 1;
            }
        }
        if self.slots.len() < portals {
            self.slots.resize(portals, (0, [0.0; 4]));
        }
    }

    pub(super) fn get(&self, key: u32) -> Option<[f32; 4]> {
        self.slots
            .get(key as usize)
            .filter(|slot| slot.0 == self.stamp)
            .map(|slot| slot.1)
    }

    pub(super) fn put(&mut self, key: u32, span: Span) {
        let ends = match span {
            Span::Segment { a, b, .. } => [a.x, a.y, b.x, b.y],
            _ => [f32::NAN; 4],
        };
        if let Some(slot) = self.slots.get_mut(key as usize) {
            *slot = (self.stamp, ends);
        }
    }
}

impl Search<'_> {
    /// Dominance pruning of a new node `index` of a disc (radius > 0) whose funnel
    /// has apex `apex` and last crossed portal `exit` of `t`.
    ///
    /// The apex rule ([`Search::dominated`]) is tested before. The whole-portal rule is the point
    /// agent's ([`Search::portal_dominated`]) on the part of the portal the disc's
    /// centre can cross, when that part is one segment `S` (see [`NavMesh::free_span`]):
    ///
    /// - a channel's funnel gives the shortest path, within the channel, from the start
    ///   to each point of `S`, in the domain `D` = the channel's triangles (glued along
    ///   its portals: a topological disc even when the channel winds) minus the discs of
    ///   the agent's radius around its wall corners. `D` is simply connected (each disc
    ///   removed meets `D`'s boundary), and flat inside, so with its own lengths it is a
    ///   CAT(0) space, where the distance from a point is convex along any geodesic.
    ///   Every point of `S` keeps the radius from every wall, hence from every corner,
    ///   so `S` lies in `D` and is straight: a geodesic. The channel's length to `x` in
    ///   `S` is therefore at most the chord between its values at `S`'s ends, which
    ///   [`Funnel::length_to`] computes (each the length of a real path, as for a goal);
    /// - any path of a new funnel crossing at `x` is at least the apex's length plus
    ///   the straight distance from the apex's arrival point to `x` (every path beyond
    ///   the funnel wraps the apex);
    /// - a disc crosses the portal only at points of `S`'s free part. `S` is that part
    ///   shrunk by `slack` at each end; on the slivers left out both bounds move by at
    ///   most the slivers' length (both are 1-Lipschitz), so a margin of three slacks
    ///   covers them and the rounding of `S`'s ends to `f32`.
    ///
    /// A new funnel whose bound exceeds a recorded chord by the margin on all of `S` is
    /// beaten at every point where a disc can cross: following the recorded channel up
    /// to the crossing and the new one after it is a strictly shorter real path, so no
    /// shortest path goes through the new node. Records that pass are kept.
    pub(super) fn disc_pruned(
        &mut self,
        index: u32,
        apex: Wrap,
        t: TriangleId,
        exit: usize,
    ) -> bool {
        if !self.tuning.portal_pruning {
            return false;
        }
        let key = 3 * t.0 + exit as u32;
        let handle = self.portal_handle(key);
        let (a, b, slack) = match self.scratch.portal_spans[handle] {
            Span::Fresh => {
                self.scratch.portal_spans[handle] = Span::Pending(index);
                self.scratch.nodes[index as usize].pending = true;
                return false;
            }
            Span::Unusable => return false,
            Span::Segment { a, b, slack } => (a, b, slack),
            Span::Pending(first) => {
                let span = self.span(t, exit);
                self.scratch.portal_spans[handle] = span;
                let Span::Segment { a, b, slack } = span else {
                    if let Some(first) = self.scratch.nodes.get_mut(first as usize) {
                        first.pending = false;
                    }
                    return false;
                };
                // The first funnel stays kept, its record measured when first used.
                let first_apex = self
                    .scratch
                    .nodes
                    .get(first as usize)
                    .and_then(|n| n.funnel.as_ref())
                    .map(|f| *f.apex());
                if let Some(first_apex) = first_apex {
                    self.scratch.portal_lists[handle].push(unmeasured(first, &first_apex));
                }
                (a, b, slack)
            }
        };
        let (a64, b64) = (a.as_dvec2(), b.as_dvec2());
        let new = unmeasured(index, &apex);
        // The margin below without its part that depends on the old record's lengths.
        let least_margin = tolerance::LENGTH * (1.0 + apex.g) + tolerance::MARGIN_SLACKS * slack;
        // The measured records first: pruning by any record is pruning, and one of them
        // may spare measuring the others.
        for old in &self.scratch.portal_lists[handle] {
            if old.node != NONE_NODE {
                continue;
            }
            let margin = tolerance::LENGTH * (1.0 + apex.g + old.left.min(old.right))
                + tolerance::MARGIN_SLACKS * slack;
            if min_gap(old, &new, a64, b64) > margin {
                self.portal_pruned += 1;
                return true;
            }
        }
        let mut i = 0;
        while i < self.scratch.portal_lists[handle].len() {
            let old = self.scratch.portal_lists[handle][i];
            if old.node == NONE_NODE {
                i += 1;
                continue;
            }
            // An unmeasured record's lengths to `a` and `b` are at least its apex's
            // length plus the straight distances, so its chord lies above the chord of
            // those: when the new bound exceeds that lower chord by no more than the
            // margin somewhere, it exceeds the record's chord there by no more either,
            // so the record cannot prune the new node, and measuring it can wait.
            let low = PortalRecord {
                left: old.g + old.apex.distance(a64),
                right: old.g + old.apex.distance(b64),
                ..old
            };
            let rounding = tolerance::ROUNDING * (1.0 + new.g + low.left.max(low.right));
            if min_gap(&low, &new, a64, b64) <= least_margin - rounding {
                i += 1;
                continue;
            }
            let Some(old) = self.measure(old.node, a, b) else {
                // Its funnel cannot reach the segment's ends: no record.
                self.scratch.portal_lists[handle].remove(i);
                continue;
            };
            self.scratch.portal_lists[handle][i] = old;
            let margin = tolerance::LENGTH * (1.0 + apex.g + old.left.min(old.right))
                + tolerance::MARGIN_SLACKS * slack;
            if min_gap(&old, &new, a64, b64) > margin {
                self.portal_pruned += 1;
                return true;
            }
            i += 1;
        }
        self.scratch.portal_lists[handle].push(new);
        self.scratch.nodes[index as usize].pending = true;
        false
    }

    /// Measures, before node `index` is dropped, its record still waiting in the list
    /// of directed portal `key` (the list's last), so that the record outlives it.
    pub(super) fn settle_record(&mut self, key: u32, index: u32) {
        let Some(&handle) = self
            .scratch
            .portals
            .get(self.scratch.generation, key)
            .filter(|&&h| h > 0)
        else {
            return;
        };
        let handle = handle as usize - 1;
        let span = self.scratch.portal_spans[handle];
        if span == Span::Pending(index) {
            self.scratch.portal_spans[handle] = Span::Fresh;
        }
        let Span::Segment { a, b, .. } = span else {
            return;
        };
        if self.scratch.portal_lists[handle]
            .last()
            .is_some_and(|rec| rec.node == index)
        {
            match self.measure(index, a, b) {
                Some(rec) => {
                    if let Some(last) = self.scratch.portal_lists[handle].last_mut() {
                        *last = rec;
                    }
                }
                None => {
                    self.scratch.portal_lists[handle].pop();
                }
            }
        }
    }

    /// The portal record of node `index` on the crossing segment `a b` of its last
    /// portal: its apex, and its exact lengths to `a` and `b`. The node's funnel need
    /// not be kept for the record after this.
    fn measure(&mut self, index: u32, a: Vec2, b: Vec2) -> Option<PortalRecord> {
        let node = self.scratch.nodes.get_mut(index as usize)?;
        node.pending = false;
        let funnel = node.funnel.as_ref()?;
        let apex = funnel.apex();
        Some(PortalRecord {
            left: funnel.length_to(a, &mut self.scratch.arena).ok()?,
            right: funnel.length_to(b, &mut self.scratch.arena).ok()?,
            apex: apex.arrive.as_dvec2(),
            g: apex.g,
            node: NONE_NODE,
        })
    }

    /// The crossing segment of portal `exit` of `t` ([`span_of`]), from this thread's
    /// memo of the mesh and radius when it holds the portal (see [`SpanMemo`]).
    pub(super) fn span(&mut self, t: TriangleId, exit: usize) -> Span {
        let key = 3 * t.0 + exit as u32;
        if let Some(ends) = self.scratch.span_memo.get(key) {
            return Span::from_ends(ends, portal_ends(self.mesh, t, exit).2);
        }
        let span = span_of(self.mesh, t, exit, self.radius);
        self.scratch.span_memo.put(key, span);
        span
    }
}

/// The rounding slack of portal `exit` of `t` (a few `f32` ulps of its coordinates),
/// and its ends.
fn portal_ends(mesh: &NavMesh, t: TriangleId, exit: usize) -> (DVec2, DVec2, f64) {
    let ids = mesh.triangles[t.index()];
    let p = mesh.vertices[ids[exit] as usize].as_dvec2();
    let q = mesh.vertices[ids[(exit + 1) % 3] as usize].as_dvec2();
    let slack = tolerance::PORTAL_SLACK * (1.0 + p.abs().max_element().max(q.abs().max_element()));
    (p, q, slack)
}

/// The crossing segment of portal `exit` of `t` for a disc of radius `radius`:
/// [`Span::Segment`] or [`Span::Unusable`].
pub(super) fn span_of(mesh: &NavMesh, t: TriangleId, exit: usize, radius: f32) -> Span {
    let (p, q, slack) = portal_ends(mesh, t, exit);
    match mesh.free_span(t, exit, f64::from(radius)) {
        FreeSpan::One { lo, hi } if hi - lo > tolerance::MIN_SPAN_SLACKS * slack => {
            let u = (q - p).normalize_or_zero();
            Span::Segment {
                a: (p + u * (lo + slack)).as_vec2(),
                b: (p + u * (hi - slack)).as_vec2(),
                slack,
            }
        }
        FreeSpan::One { .. } | FreeSpan::Empty | FreeSpan::Several => Span::Unusable,
    }
}

/// The record of node `node`, whose funnel has apex `apex`, before its lengths are
/// measured.
fn unmeasured(node: u32, apex: &Wrap) -> PortalRecord {
    PortalRecord {
        left: f64::NAN,
        right: f64::NAN,
        apex: apex.arrive.as_dvec2(),
        g: apex.g,
        node,
    }
}
