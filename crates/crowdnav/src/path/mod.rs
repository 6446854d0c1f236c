//! Exact shortest paths for discs of any radius on one [`NavMesh`](crate::mesh::NavMesh).
//!
//! [`NavMesh::find_path`](crate::mesh::NavMesh::find_path) searches channels of
//! triangles that a disc of the radius can cross (gate widths), runs the funnel with
//! agent radius incrementally along each, orders the search by an admissible bound
//! (exact length to the funnel's apex plus the straight distance through the last
//! portal to the goal), and stops when a complete path is shorter than every open
//! bound — so the path returned is the optimum, not the first channel found.
//!
//! What keeps the search small, each rule exact (it only drops channels that a strictly
//! shorter path beats, or that cannot lead to the goal):
//!
//! - dead-end pockets (trees of triangles hanging off the rest by one edge) are not
//!   entered unless they hold the goal (computed once per mesh, in `path::pockets`);
//! - a funnel whose apex is reached more cheaply by another is dropped (for discs, when
//!   rolling around the corner from the other arrival is shorter still);
//! - a funnel beaten on the whole of a portal by another funnel through the same
//!   portal is dropped: for a point agent on the portal itself (see
//!   `Search::portal_dominated`), for a disc on the part of the portal its centre can
//!   cross, when that part is one segment (see `Search::disc_pruned`; worked out only
//!   for portals that a second funnel reaches);
//! - a channel never enters a triangle twice.
//!
//! For a disc, dominance compares funnel lengths, which are lower bounds: the check
//! beside the channel (`path::beside`) may still lengthen a complete path when popped
//! (a corner beside its channel comes too near) or drop it. A node pruned by a funnel
//! whose path is later repaired may then have been the truly shorter one. What closes
//! the gap for whole-portal dominance (`Search::disc_pruned`):
//!
//! - when no popped complete path was repaired or dropped, the answer is optimal: for
//!   a node `B` pruned by `A` at a portal, the descendant of `A` that continues along
//!   `B`'s channel has a bound at most `B`'s true length; it is either popped and
//!   checked clean (hence exact, and no longer than `B`) or the search stops first with
//!   a result no longer than its bound; a chain of prunes inducts;
//! - when no pruned node had a bound below the answer's length, the answer is optimal
//!   too: the channel of an optimal path either is searched whole (its complete path's
//!   checked length is the optimum) or loses a node to pruning, whose bound is at most
//!   the optimum.
//!
//! So when a repair or drop happened *and* a node pruned by whole-portal dominance had
//! a bound below the answer (or there is no answer), the same query runs again with
//! whole-portal dominance off, every other rule kept, within a budget of nodes (16
//! times the first run's: without the rule a disc's search on a large map can outgrow
//! memory; over budget, the first answer stands; how often it runs on a real map:
//! `docs/benchmarks.md`, "Design notes"). Apex dominance
//! (`Search::dominated`) is kept in that second run: without it the search can grow
//! without practical bound on large maps, so for it the gap stays open (its prunes are
//! counted the same way in tests).

mod beside;
mod funnel;
pub(crate) mod pockets;
mod search;

pub use search::PathQuery;

use crate::geom::Side;
use crate::mesh::VertexId;
use glam::Vec2;

/// Why there is no path between two valid points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoPathReason {
    /// Start and goal lie in different connected parts of the walkable space.
    Disconnected,
    /// They are connected, but only through gaps narrower than the agent's diameter.
    TooNarrow,
}

impl std::fmt::Display for NoPathReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoPathReason::Disconnected => "start and goal are not connected",
            NoPathReason::TooNarrow => "every connection is narrower than the agent",
        })
    }
}

/// Which end of a query a [`PathError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// The start.
    Start,
    /// The goal.
    Goal,
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Endpoint::Start => "start",
            Endpoint::Goal => "goal",
        })
    }
}

/// What is wrong with a path query's numbers.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum QueryProblem {
    /// The start or the goal has a NaN or infinite coordinate.
    #[error("the {0} is NaN or infinite")]
    NotFinite(Endpoint),
    /// The radius is NaN, infinite or negative.
    #[error("the radius must be finite and >= 0, got {0}")]
    BadRadius(f32),
}

/// Why a path query has no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    /// A coordinate or the radius is NaN or infinite, or the radius is negative.
    #[error("invalid query: {0}")]
    InvalidQuery(QueryProblem),
    /// The point lies outside the mesh.
    #[error("the {0} is outside the mesh")]
    OutsideMesh(Endpoint),
    /// The point lies inside an obstacle.
    #[error("the {0} is inside an obstacle")]
    InObstacle(Endpoint),
    /// The point is closer to a wall than the agent's radius.
    #[error("the {endpoint} has no room: {clearance} m from a wall, radius {radius} m")]
    NoRoom {
        /// Which end.
        endpoint: Endpoint,
        /// Its distance to the nearest wall.
        clearance: f32,
        /// The agent's radius.
        radius: f32,
    },
    /// Both points are valid, but no path joins them.
    #[error("no path: {0}")]
    NoPath(NoPathReason),
}

impl PathError {
    /// `true` when the query was valid but no path exists (see [`NoPathReason`]), as
    /// opposed to bad input or an endpoint without room.
    pub fn is_no_path(&self) -> bool {
        matches!(self, PathError::NoPath(_))
    }
}

/// A corner the path bends around.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corner {
    /// The mesh vertex.
    pub vertex: VertexId,
    /// Its position.
    pub position: Vec2,
    /// Which side of the path it is on: `Left` means the path turns left
    /// (counter-clockwise) around it.
    pub side: Side,
}

/// One piece of a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathPiece {
    /// A straight segment.
    Line {
        /// Start point.
        from: Vec2,
        /// End point.
        to: Vec2,
    },
    /// An arc around a corner, at the agent's radius.
    Arc {
        /// The corner.
        center: Vec2,
        /// The agent's radius.
        radius: f32,
        /// Where the arc starts.
        from: Vec2,
        /// Where it ends.
        to: Vec2,
        /// Signed angle swept, radians: positive counter-clockwise.
        sweep: f32,
    },
}

impl PathPiece {
    /// Length of the piece.
    pub fn length(&self) -> f64 {
        match *self {
            PathPiece::Line { from, to } => from.as_dvec2().distance(to.as_dvec2()),
            PathPiece::Arc { radius, sweep, .. } => f64::from(radius) * f64::from(sweep).abs(),
        }
    }

    /// The point at `t ∈ [0, 1]` along the piece.
    pub fn point_at(&self, t: f32) -> Vec2 {
        match *self {
            PathPiece::Line { from, to } => from.lerp(to, t),
            PathPiece::Arc {
                center,
                radius,
                from,
                sweep,
                ..
            } => {
                let a0 = (from - center).to_angle();
                center + Vec2::from_angle(a0 + sweep * t) * radius
            }
        }
    }
}

/// A shortest path for a disc: straight segments joined by arcs around corners.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    start: Vec2,
    goal: Vec2,
    pieces: Vec<PathPiece>,
    corners: Vec<Corner>,
    length: f64,
    radius: f32,
}

impl Path {
    /// Exact length of the path (of the disc's centre), in metres.
    pub fn length(&self) -> f64 {
        self.length
    }

    /// The agent radius the path was found for.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The segments and arcs, in order from start to goal.
    pub fn pieces(&self) -> &[PathPiece] {
        &self.pieces
    }

    /// The corners the path bends around, in order.
    pub fn corners(&self) -> &[Corner] {
        &self.corners
    }

    /// The start, every point where a segment meets an arc, and the goal: for radius 0,
    /// the start, the corners and the goal.
    pub fn points(&self) -> Vec<Vec2> {
        let mut out: Vec<Vec2> = Vec::with_capacity(self.pieces.len() + 2);
        out.push(self.start);
        for piece in &self.pieces {
            let (a, b) = match *piece {
                PathPiece::Line { from, to } => (from, to),
                PathPiece::Arc { from, to, .. } => (from, to),
            };
            if out.last() != Some(&a) {
                out.push(a);
            }
            if out.last() != Some(&b) {
                out.push(b);
            }
        }
        if out.last() != Some(&self.goal) {
            out.push(self.goal);
        }
        out
    }

    /// The start point.
    pub fn start(&self) -> Vec2 {
        self.start
    }

    /// The goal point.
    pub fn goal(&self) -> Vec2 {
        self.goal
    }
}
