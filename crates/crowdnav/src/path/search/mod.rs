//! The search: A* over channels of triangles, each node carrying its funnel.
//!
//! By job, one file each:
//!
//! - this file: the query entry points ([`NavMesh::find_path`], [`NavMesh::find_paths`]),
//!   the checks of a query's numbers and endpoints, the switches of the exact rules
//!   ([`Tuning`]) and the fallback run (see the `path` module's documentation);
//! - `pools`: the buffers a thread keeps between queries;
//! - `tree`: the tree of channels (nodes, links, the loop check);
//! - `astar`: the A* loop and the expansion of a node across a portal;
//! - `apex`, `portal`, `disc`: the three dominance rules (on the funnel's apex; on
//!   whole portals for a point; on the part of a portal a disc can cross);
//! - `assemble`: the [`Path`] of a complete funnel;
//! - `tolerance`: the rounding margins the rules share, each with its reason.

mod apex;
mod assemble;
mod astar;
mod disc;
mod pools;
mod portal;
mod tolerance;
mod tree;

use super::funnel::FunnelPoint;
use super::{Endpoint, NoPathReason, Path, PathError, QueryProblem};
use crate::geom::Circle;
use crate::mesh::{Location, NavMesh, TriangleId};
use astar::Search;
use glam::Vec2;
use pools::{KEEP_NODES, SCRATCH};
use rayon::prelude::*;

/// One path query, for [`NavMesh::find_paths`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathQuery {
    /// Start point.
    pub start: Vec2,
    /// Goal point.
    pub goal: Vec2,
    /// Agent radius, `>= 0`.
    pub radius: f32,
}

/// Which of the search's exact rules are on (all of them for [`NavMesh::find_path`]):
/// tests turn some off to check that they change no answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuning {
    /// Whole-portal dominance.
    pub portal_pruning: bool,
    /// Dominance on the funnel's apex.
    pub apex_pruning: bool,
    /// The corridor index's refusal of queries no corridor joins.
    pub corridor_index: bool,
    /// A disc's search again without dominance when its answer may be wrong (see the
    /// module's documentation).
    pub fallback: bool,
    /// A disc's search going on down a corridor ahead of the open list's best (see
    /// [`CORRIDOR_LEAD`](astar::CORRIDOR_LEAD)).
    pub corridor_lead: bool,
    /// The check beside the channel asking the grid of corners before it walks (see
    /// `path::beside`).
    pub beside_grid: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            portal_pruning: true,
            apex_pruning: true,
            corridor_index: true,
            fallback: true,
            corridor_lead: true,
            beside_grid: true,
        }
    }
}

/// The fallback's search without whole-portal dominance gives up after this many times
/// the nodes of the first search (at least [`KEEP_NODES`]): without that rule a disc's
/// search on a large map can grow until memory runs out.
const RERUN_BUDGET: usize = 16;

/// One run of a search, for [`NavMesh::find_path_with`].
struct Outcome {
    result: Result<Path, PathError>,
    /// Whether the fallback is needed (see the module's documentation).
    suspect: bool,
    /// Nodes made.
    nodes: usize,
    /// Whether it gave up over its budget of nodes (`result` then means nothing).
    over_budget: bool,
}

/// What a search did, for tests and measurements.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SearchStats {
    /// Nodes dropped by whole-portal dominance (over both runs when it re-ran).
    pub portal_pruned: u32,
    /// Whether a complete path was repaired or dropped by the check beside its
    /// channel (in the first run).
    pub repaired: bool,
    /// Whether it ran again without whole-portal dominance.
    pub reran: bool,
    /// Whether that second run gave up over its budget of nodes (the first run's
    /// answer is returned).
    pub over_budget: bool,
    /// Entries taken from the open list (over both runs when it re-ran).
    pub popped: u32,
}

impl NavMesh {
    /// The shortest path for a disc of radius `radius` from `start` to `goal`: the
    /// disc's centre keeps at least `radius` from every wall, the path is straight
    /// segments and arcs of that radius around corners, and no shorter such path exists.
    ///
    /// # Errors
    /// [`PathError`]: invalid numbers, an endpoint outside the mesh, in an obstacle or
    /// without room for the disc, or [`PathError::NoPath`] with the reason.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///                                  "obstacles": [[[4,0],[6,0],[6,8],[4,8]]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let path = mesh.find_path(Vec2::new(2.0, 2.0), Vec2::new(8.0, 2.0), 0.0)?;
    /// // Up and over the wall's end at (4, 8) and (6, 8).
    /// let expected = 2.0 * (2f64 * 2.0 + 6.0 * 6.0).sqrt() + 2.0;
    /// assert!((path.length() - expected).abs() < 1e-4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_path(&self, start: Vec2, goal: Vec2, radius: f32) -> Result<Path, PathError> {
        self.find_path_with(start, goal, radius, Tuning::default())
            .0
    }

    /// [`NavMesh::find_path`], with whole-portal dominance on or off, the corridor
    /// index's refusal on or off, and the number of nodes that dominance dropped.
    #[cfg(test)]
    pub(crate) fn find_path_tuned(
        &self,
        start: Vec2,
        goal: Vec2,
        radius: f32,
        portal_pruning: bool,
        corridor_index: bool,
    ) -> (Result<Path, PathError>, u32) {
        let tuning = Tuning {
            portal_pruning,
            corridor_index,
            ..Tuning::default()
        };
        let (result, stats) = self.find_path_with(start, goal, radius, tuning);
        (result, stats.portal_pruned)
    }

    /// [`NavMesh::find_path`] with the rules of `tuning`, and what the search did.
    pub(crate) fn find_path_with(
        &self,
        start: Vec2,
        goal: Vec2,
        radius: f32,
        tuning: Tuning,
    ) -> (Result<Path, PathError>, SearchStats) {
        let mut stats = SearchStats::default();
        let (ts, tg) = match self.endpoints(start, goal, radius) {
            Ok(ends) => ends,
            Err(e) => return (Err(e), stats),
        };
        // No corridor wide enough: the search would find no channel.
        if tuning.corridor_index && ts != tg && !self.corridor_linked(ts, tg, radius) {
            return (Err(PathError::NoPath(self.no_path_reason(ts, tg))), stats);
        }
        let mut once = |tuning: Tuning, node_budget: usize| {
            SCRATCH.with(|cell| {
                let mut search = Search::new(self, start, goal, radius, tuning, cell.take());
                search.node_budget = node_budget;
                let result = search.run(ts, tg);
                stats.portal_pruned += search.portal_pruned;
                stats.popped += search.popped;
                let length = result.as_ref().map_or(f64::INFINITY, Path::length);
                let suspect = search.repaired
                    && search.least_pruned < length + tolerance::LENGTH * (1.0 + length);
                stats.repaired |= search.repaired;
                let outcome = Outcome {
                    result,
                    suspect,
                    nodes: search.scratch.nodes.len(),
                    over_budget: search.over_budget,
                };
                let scratch = search.into_scratch();
                // Keep the buffers for the next query unless one grew unusually large.
                if scratch.nodes.capacity() <= KEEP_NODES {
                    cell.replace(scratch);
                }
                outcome
            })
        };
        let first = once(tuning, usize::MAX);
        if first.suspect && tuning.portal_pruning && tuning.fallback {
            // A repair beside the channel may have lengthened a path whose funnel
            // length pruned a shorter one (see the module's documentation): the same
            // search again without whole-portal dominance, within a budget of nodes.
            stats.reran = true;
            let budget = RERUN_BUDGET.saturating_mul(first.nodes).max(KEEP_NODES);
            let without_portals = Tuning {
                portal_pruning: false,
                ..tuning
            };
            let second = once(without_portals, budget);
            if second.over_budget {
                stats.over_budget = true;
            } else {
                return (second.result, stats);
            }
        }
        (first.result, stats)
    }

    /// The start's and the goal's triangles, after checking the query's numbers.
    fn endpoints(
        &self,
        start: Vec2,
        goal: Vec2,
        radius: f32,
    ) -> Result<(TriangleId, TriangleId), PathError> {
        for (point, endpoint) in [(start, Endpoint::Start), (goal, Endpoint::Goal)] {
            if !point.is_finite() {
                return Err(PathError::InvalidQuery(QueryProblem::NotFinite(endpoint)));
            }
        }
        if !radius.is_finite() || radius < 0.0 {
            return Err(PathError::InvalidQuery(QueryProblem::BadRadius(radius)));
        }
        let ts = self.endpoint_triangle(start, radius, Endpoint::Start)?;
        let tg = self.endpoint_triangle(goal, radius, Endpoint::Goal)?;
        Ok((ts, tg))
    }

    /// [`NavMesh::find_path`] for many queries in parallel; results in input order.
    pub fn find_paths(&self, queries: &[PathQuery]) -> Vec<Result<Path, PathError>> {
        queries
            .par_iter()
            .map(|q| self.find_path(q.start, q.goal, q.radius))
            .collect()
    }

    fn endpoint_triangle(
        &self,
        p: Vec2,
        radius: f32,
        endpoint: Endpoint,
    ) -> Result<TriangleId, PathError> {
        let t = match self.locate(p) {
            Location::Walkable(t) => t,
            Location::Blocked(_) => return Err(PathError::InObstacle(endpoint)),
            Location::Outside => return Err(PathError::OutsideMesh(endpoint)),
        };
        let clearance = self.clearance_within(p, t, f64::from(radius));
        if clearance < f64::from(radius) {
            return Err(PathError::NoRoom {
                endpoint,
                clearance: clearance as f32,
                radius,
            });
        }
        Ok(t)
    }

    /// The funnel point of vertex `v` for an agent of radius `radius`.
    pub(super) fn funnel_point(&self, v: u32, radius: f32) -> FunnelPoint {
        let r = if self.obstacle_vertex[v as usize] {
            radius
        } else {
            0.0
        };
        FunnelPoint {
            id: v,
            circle: Circle::new(self.vertices[v as usize], r),
        }
    }

    /// Why no path joins triangles `from` and `to`: they are connected (ignoring the
    /// radius) or not.
    fn no_path_reason(&self, from: TriangleId, to: TriangleId) -> NoPathReason {
        if from == to || self.corridor_linked(from, to, 0.0) {
            NoPathReason::TooNarrow
        } else {
            NoPathReason::Disconnected
        }
    }

    /// Is `goal` reachable from `start` at all, ignoring the radius? (The reference
    /// for [`NavMesh::no_path_reason`].)
    #[cfg(test)]
    pub(crate) fn connected(&self, from: TriangleId, to: TriangleId) -> bool {
        let mut seen = vec![false; self.triangles.len()];
        let mut stack = vec![from];
        seen[from.index()] = true;
        while let Some(t) = stack.pop() {
            if t == to {
                return true;
            }
            for e in 0..3 {
                if self.is_wall(t, e) {
                    continue;
                }
                if let Some(nb) = self.neighbor(t, e) {
                    if !seen[nb.index()] {
                        seen[nb.index()] = true;
                        stack.push(nb);
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
#[path = "search_test.rs"]
mod test;
