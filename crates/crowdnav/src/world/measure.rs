//! Phase *measure*: overlap and separation figures after the step.

use super::contacts::Candidates;
use super::index::PointIndex;
use super::neighbors::Seen;
use super::params::{Metrics, COLLISION_DEPTH};
use crate::grid::PointGrid;
use glam::Vec2;
use rayon::prelude::*;

/// One agent's share of the step's measurements: deepest penetration, smallest gap,
/// and how many pairs (with higher-indexed agents) overlap by more than 1 %.
#[derive(Clone, Copy, Debug, Default)]
struct PairFigures {
    max_penetration: f32,
    min_separation: f32,
    overlapping: u32,
}

/// What [`measure`] reads to visit the pairs it measures.
struct MeasurePairs<'w> {
    seen: &'w [Seen],
    grid: &'w PointGrid,
    positions: &'w [Vec2],
    candidates: &'w [Candidates],
    /// Whether `candidates` cover every pair measured (see
    /// [`Resolved::covers_measure`](super::contacts::Resolved::covers_measure));
    /// otherwise the grid is searched.
    from_candidates: bool,
    max_r: f32,
}

impl MeasurePairs<'_> {
    /// Calls `f(j, gap, overlapping)` for every agent `j > i` whose centre is within
    /// `radius_i + max_r` of agent `i`'s: the gap between their edges (negative when they
    /// overlap) and whether they overlap by more than [`COLLISION_DEPTH`] of the
    /// smaller radius. The order of the calls is not fixed (only extremes and counts
    /// are taken).
    fn visit(&self, i: usize, mut f: impl FnMut(u32, f32, bool)) {
        // (Radii and positions from the compact arrays, not the agents' records.)
        let (p, own) = (self.positions[i], self.seen[i].radius);
        let mut pair = |j: u32, d2: f32| {
            let radius = self.seen[j as usize].radius;
            let gap = d2.sqrt() - own - radius;
            f(j, gap, -gap > COLLISION_DEPTH * own.min(radius));
        };
        let range = own + self.max_r;
        if self.from_candidates {
            let (n, range_squared) = (self.positions.len(), range * range);
            for &j in &self.candidates[i].bodies {
                if (j as usize) < n {
                    let d2 = p.distance_squared(self.positions[j as usize]);
                    if d2 <= range_squared {
                        pair(j, d2);
                    }
                }
            }
        } else {
            self.grid.for_each_within(p, range, |j, d2| {
                if j as usize > i {
                    pair(j, d2);
                }
            });
        }
    }
}

/// The phase's scratch: every agent's share of the step's figures.
#[derive(Debug, Default)]
pub(super) struct MeasureScratch {
    figures: Vec<PairFigures>,
}

/// What the phase reads.
pub(super) struct Surroundings<'a> {
    /// What the agents' neighbours saw of them this step (their radii), in agent
    /// order.
    pub seen: &'a [Seen],
    /// The point grid, rebuilt after the agents moved.
    pub index: &'a PointIndex,
    /// The contacts phase's candidates.
    pub candidates: &'a [Candidates],
    /// Whether the candidates cover every pair measured.
    pub from_candidates: bool,
    /// The largest agent radius.
    pub max_r: f32,
}

/// Overlap and separation figures after the step, into `metrics`. Per agent in
/// parallel, then in agent order; the overlapping pairs (rare) are listed in a second
/// pass.
pub(super) fn measure(scratch: &mut MeasureScratch, env: &Surroundings<'_>, metrics: &mut Metrics) {
    let pairs = MeasurePairs {
        seen: env.seen,
        grid: &env.index.grid,
        positions: &env.index.positions,
        candidates: env.candidates,
        from_candidates: env.from_candidates,
        max_r: env.max_r,
    };
    scratch
        .figures
        .resize(pairs.positions.len(), PairFigures::default());
    scratch
        .figures
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, out)| {
            let mut fig = PairFigures {
                max_penetration: 0.0,
                min_separation: f32::INFINITY,
                overlapping: 0,
            };
            pairs.visit(i, |_, gap, overlapping| {
                fig.min_separation = fig.min_separation.min(gap);
                fig.max_penetration = fig.max_penetration.max(-gap);
                fig.overlapping += u32::from(overlapping);
            });
            *out = fig;
        });
    let m = metrics;
    for (i, fig) in scratch.figures.iter().enumerate() {
        m.max_penetration = m.max_penetration.max(fig.max_penetration);
        m.min_separation = m.min_separation.min(fig.min_separation);
        if fig.overlapping > 0 {
            pairs.visit(i, |j, _, overlapping| {
                if overlapping {
                    m.overlapping_pairs.insert((i as u32, j));
                }
            });
        }
    }
}
