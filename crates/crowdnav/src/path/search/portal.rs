//! Whole-portal dominance for a point agent: a funnel beaten on the whole of a portal
//! by a recorded funnel through the same portal is dropped.

use super::astar::Search;
use super::disc::Span;
use super::tolerance;
use super::tree::NONE_NODE;
use crate::mesh::TriangleId;
use crate::path::funnel::{FunnelPoint, Wrap};
use glam::DVec2;

/// A funnel that reached a portal: exact path lengths within its channel to the
/// portal's ends, and its apex.
#[derive(Clone, Copy, Debug)]
pub(super) struct PortalRecord {
    pub(super) left: f64,
    pub(super) right: f64,
    pub(super) apex: DVec2,
    pub(super) g: f64,
    /// For a disc, the node whose funnel gives `left` and `right` while they are not
    /// measured yet (`NONE_NODE` once they are): most records are never compared
    /// against, so they are measured on first use.
    pub(super) node: u32,
}

impl Search<'_> {
    /// Whole-portal dominance of new node `index` of a point agent (radius 0), whose
    /// funnel has apex `apex` and last crossed portal `exit` of `t`, from `rp` to `lp`
    /// (see [`Search::portal_dominated`]).
    pub(super) fn point_pruned(
        &mut self,
        index: u32,
        apex: Wrap,
        t: TriangleId,
        exit: usize,
        lp: FunnelPoint,
        rp: FunnelPoint,
    ) -> bool {
        if !self.tuning.portal_pruning {
            return false;
        }
        let ends = self.scratch.nodes[index as usize]
            .funnel
            .as_ref()
            .and_then(|funnel| funnel.end_lengths(lp, rp, &self.scratch.arena));
        let Some((dl, dr)) = ends else {
            return false;
        };
        let rec = PortalRecord {
            left: dl,
            right: dr,
            apex: apex.point.circle.center.as_dvec2(),
            g: apex.g,
            node: NONE_NODE,
        };
        let (l, r) = (lp.circle.center.as_dvec2(), rp.circle.center.as_dvec2());
        self.portal_dominated(3 * t.0 + exit as u32, rec, l, r)
    }

    /// Dominance pruning on whole portals, for a point agent. Within one channel the
    /// path length to a point `x` of a portal is a convex function of `x` (geodesic
    /// distance in a simple polygon is convex along segments), so it lies below the
    /// chord between its exact values at the portal's ends; and it is at least the
    /// apex's length plus the straight distance from the apex to `x`. A funnel whose
    /// lower bound exceeds a recorded funnel's chord on the whole portal is beaten at
    /// every point of it: any path through it can be shortened by following the
    /// recorded channel up to the portal, so it is never on a shortest path. Strict
    /// comparison keeps this exact however pruning rules combine. Records that pass are
    /// kept.
    fn portal_dominated(&mut self, key: u32, rec: PortalRecord, l: DVec2, r: DVec2) -> bool {
        let handle = self.portal_handle(key);
        let list = &mut self.scratch.portal_lists[handle];
        let tolerance = tolerance::LENGTH * (1.0 + rec.g + rec.left.min(rec.right));
        for old in list.iter() {
            if min_gap(old, &rec, l, r) > tolerance {
                self.portal_pruned += 1;
                return true;
            }
        }
        list.push(rec);
        false
    }

    /// The index of directed portal `key`'s records (and, for a disc, span), made on
    /// first use.
    pub(super) fn portal_handle(&mut self, key: u32) -> usize {
        let handle = self.scratch.portals.get_mut(self.scratch.generation, key);
        if *handle == 0 {
            let opened = self.scratch.portal_lists.open();
            if self.radius > 0.0 {
                // Spans are a disc's only: a point agent's handles have none.
                self.scratch.portal_spans.push(Span::Fresh);
            }
            *handle = opened as u32 + 1;
        }
        *handle as usize - 1
    }
}

/// The least, over points `x = l + t (r - l)` of a portal, of `new`'s lower bound
/// (`g + |apex - x|`) minus `old`'s chord (`old.left + t (old.right - old.left)`).
pub(super) fn min_gap(old: &PortalRecord, new: &PortalRecord, l: DVec2, r: DVec2) -> f64 {
    let d = r - l;
    let len = d.length();
    let gap =
        |t: f64| new.g + new.apex.distance(l + d * t) - (old.left + t * (old.right - old.left));
    let mut best = gap(0.0).min(gap(1.0));
    if len > 0.0 {
        // The gap is convex in t: its minimum is where the distance's slope equals the
        // chord's, clamped to the portal.
        let slope = (old.right - old.left) / len;
        if slope.abs() < 1.0 {
            let u = d / len;
            let t0 = (new.apex - l).dot(u) / len;
            let h = (new.apex - l).perp_dot(u).abs();
            let t = t0 + h * slope / (1.0 - slope * slope).sqrt() / len;
            best = best.min(gap(t.clamp(0.0, 1.0)));
        }
    }
    best
}
