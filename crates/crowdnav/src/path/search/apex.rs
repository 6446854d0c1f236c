//! Dominance on the funnel's apex: a prefix reaching a corner beaten by a recorded
//! shorter arrival at the same corner is dropped.

use super::astar::Search;
use super::pools::list_of;
use super::tolerance;
use crate::geom::Side;
use crate::path::funnel::{sweep, Wrap};
use glam::Vec2;

/// A path prefix reaching corner `side` of a vertex at point `at` with length `g`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arrival {
    pub(super) side: Side,
    pub(super) at: Vec2,
    pub(super) g: f64,
}

impl Search<'_> {
    /// Dominance pruning on the funnel's apex (Polyanya's root-level pruning, extended
    /// to discs). Any continuation from a prefix reaching the apex corner can instead
    /// follow a recorded prefix that is shorter: for a point corner directly; for a
    /// disc, rolling around the corner from the recorded arrival to this one, which
    /// stays clear of every wall when the corner is simple, its gap fits the disc, and
    /// the roll is less than half a turn (both arrivals then lie between the two
    /// walls' normals). A prefix on a shortest path is never beaten, so pruning is
    /// exact. Records that pass are kept.
    pub(super) fn dominated(&mut self, apex: Wrap) -> bool {
        let v = apex.point.id;
        if v == u32::MAX || !self.tuning.apex_pruning {
            return false;
        }
        let r = f64::from(apex.point.circle.radius);
        let rolls = r == 0.0 || f64::from(self.mesh.corner_gap[v as usize]) >= 2.0 * r;
        let center = apex.point.circle.center;
        let tolerance = tolerance::ROUNDING * (1.0 + apex.g);
        let list = list_of(
            &mut self.scratch.arrivals,
            &mut self.scratch.arrival_lists,
            self.scratch.generation,
            v,
        );
        for rec in list.iter() {
            if r == 0.0 {
                if rec.g < apex.g - tolerance {
                    return true;
                }
            } else if rec.side != apex.side || !rolls {
                continue;
            } else if rec.g < apex.g - tolerance
                && rec.g
                    + tolerance::CHORD_SHRINK * rec.at.as_dvec2().distance(apex.arrive.as_dvec2())
                    < apex.g - tolerance
            {
                // Only a record shorter than the apex by more than the chord between
                // the arrivals (no roll is shorter) can beat it: the roll is measured
                // (an arc tangent) only then. Equal arrivals roll by 0, so the check
                // below sees the same records as when every roll is measured.
                let s = sweep(center, rec.at, apex.arrive, apex.side);
                if s >= std::f64::consts::PI {
                    continue;
                }
                if rec.g + r * s < apex.g - tolerance {
                    return true;
                }
            }
            if rec.side == apex.side && rec.at == apex.arrive && rec.g <= apex.g {
                return false; // Already recorded.
            }
        }
        if r > 0.0 && list.len() == list.capacity() {
            // A disc arrives at a corner at many points: grow by four times, not two.
            list.reserve(3 * list.len());
        }
        list.push(Arrival {
            side: apex.side,
            at: apex.arrive,
            g: apex.g,
        });
        false
    }
}
