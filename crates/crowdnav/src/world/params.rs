//! The world's settings, errors and measurements.

use super::agent::{AgentId, Goal};
use crate::collide::CollideParams;
use crate::mesh::EditError;
use crate::steer::Steering;
use glam::Vec2;
use std::collections::BTreeSet;

/// Tuning of a [`World`](super::World). Units: metres and seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldParams {
    /// How far an agent looks for neighbours, metres. \[Limit: > 0\] Default 15 m.
    ///
    /// A steering method that chooses its neighbours itself
    /// ([`Steering::neighborhood`]: [`Orca`](crate::steer::Orca) does) owns this
    /// setting: the world takes the method's value when it is built or given the
    /// method, and [`World::params`](super::World::params) shows it.
    pub neighbor_dist: f32,
    /// How many of the nearest neighbours an agent considers. Default 10. Owned by the
    /// steering method when it chooses its neighbours, as
    /// [`WorldParams::neighbor_dist`].
    pub max_neighbors: usize,
    /// How far an agent looks for walls, metres. \[Limit: >= 0\] Default 5 m.
    pub wall_dist: f32,
    /// An agent has arrived when its centre is this close to its goal, metres; it
    /// stays arrived until pushed further than its radius off it
    /// ([`AgentState::Arrived`](super::AgentState::Arrived)). Default 0.05 m.
    pub arrival_tolerance: f32,
    /// An agent slows down in its last `slowdown_time · pref_speed` metres, seconds.
    /// Default 0.5 s.
    pub slowdown_time: f32,
    /// Re-plan a chase when the goal has moved this far since the last plan, metres.
    /// Default 1 m.
    pub replan_distance: f32,
    /// Resolve collisions (impulse and depenetration). Default `true`.
    pub collisions: bool,
    /// How collisions are answered: restitution (elastic by default, as in the seed),
    /// depenetration tolerance and sweeps. The default tolerance, 0.5 % of the smaller
    /// radius, keeps every pair clear of the 1 % that [`Metrics::overlapping_pairs`]
    /// counts; the default cap of 5 000 sweeps lets the jam at the centre of RVO2's
    /// circle of 10 000 agents converge (it takes up to about 500; later sweeps only
    /// look at bodies still moving, so a sweep costs what is still moving).
    pub collide: CollideParams,
    /// Portal steering: in front of a door (an opening of at most 5 m its path bends
    /// through), an agent heads for the nearest point of the door's free width, not
    /// for the post its shortest path wraps, so a crowd uses the whole door. Default
    /// `true`.
    pub portals: bool,
}

impl Default for WorldParams {
    fn default() -> Self {
        Self {
            neighbor_dist: 15.0,
            max_neighbors: 10,
            wall_dist: 5.0,
            arrival_tolerance: 0.05,
            slowdown_time: 0.5,
            replan_distance: 1.0,
            collisions: true,
            collide: CollideParams::default()
                .with_tolerance(0.005)
                .with_max_iterations(5000),
            portals: true,
        }
    }
}

impl WorldParams {
    /// These parameters with the neighbourhood of `steering` when it chooses its own
    /// (see [`WorldParams::neighbor_dist`]).
    pub(super) fn following(mut self, steering: &dyn Steering) -> WorldParams {
        if let Some(n) = steering.neighborhood() {
            self.neighbor_dist = n.neighbor_dist;
            self.max_neighbors = n.max_neighbors;
        }
        self
    }
}

/// Why the world refused a request. Each variant names its culprit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// An agent's parameters are invalid (NaN, infinite, non-positive radius, …).
    #[error("agent {index}: {problem}")]
    InvalidAgent {
        /// Index the agent has, or would have had.
        index: usize,
        /// What is wrong.
        problem: BadValue,
    },
    /// A moving obstacle's parameters are invalid.
    #[error("moving obstacle {index}: {problem}")]
    InvalidObstacle {
        /// Index the obstacle would have had.
        index: usize,
        /// What is wrong.
        problem: BadValue,
    },
    /// A goal names an agent (itself included) or obstacle that does not exist.
    #[error(
        "agent {index}: its goal names {}, which it cannot follow",
        goal_target(goal)
    )]
    UnknownGoal {
        /// The agent.
        index: usize,
        /// The goal it was given.
        goal: Goal,
    },
    /// A value given for an agent of the world is invalid (NaN, infinite, a
    /// non-positive radius, …).
    #[error("agent {agent}: {problem}")]
    InvalidValue {
        /// The agent.
        agent: AgentId,
        /// What is wrong.
        problem: BadValue,
    },
    /// No place near the requested position fits the agent's disc on the mesh.
    #[error("agent {agent}: no room for it near ({}, {})", position.x, position.y)]
    NoRoom {
        /// The agent.
        agent: AgentId,
        /// The position asked for.
        position: Vec2,
    },
    /// An id names no agent of the world: it never did, or the agent was removed.
    #[error("agent {0} is not in the world (never added, or removed)")]
    UnknownAgent(AgentId),
    /// The time step is not a positive finite number.
    #[error("time step must be positive and finite, got {0}")]
    InvalidStep(f32),
    /// A mesh edit was asked of a world on open ground (it has no mesh).
    #[error("the world has no navigation mesh to edit")]
    NoMesh,
    /// The world's mesh refused an edit (see [`EditError`]).
    #[error("mesh edit: {0}")]
    Edit(#[from] EditError),
}

/// What a [`Goal`] that is not a point names, for messages.
fn goal_target(goal: &Goal) -> String {
    match goal {
        Goal::Point(p) => format!("the point ({}, {})", p.x, p.y),
        Goal::Agent(a) => format!("agent {a}"),
        Goal::Obstacle(o) => format!("obstacle {}", o.0),
    }
}

/// A number given to the world that it cannot use.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum BadValue {
    /// A position, goal or motion is NaN or infinite.
    #[error("{0} is NaN or infinite")]
    NotFinite(Quantity),
    /// A size, speed or mass is not positive and finite.
    #[error("{0} must be positive and finite, got {1}")]
    NotPositive(Quantity, f32),
}

/// Which of an agent's or obstacle's numbers a [`BadValue`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// Where it is.
    Position,
    /// Where it goes.
    Goal,
    /// Its radius.
    Radius,
    /// Its top speed.
    MaxSpeed,
    /// Its cruising speed.
    PrefSpeed,
    /// Its mass.
    Mass,
    /// A moving obstacle's motion (its position or velocity at some time).
    Motion,
    /// The velocity an agent is driven at.
    Velocity,
    /// The preferred velocity set for an agent.
    PreferredVelocity,
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Quantity::Position => "position",
            Quantity::Goal => "goal",
            Quantity::Radius => "radius",
            Quantity::MaxSpeed => "max_speed",
            Quantity::PrefSpeed => "pref_speed",
            Quantity::Mass => "mass",
            Quantity::Motion => "motion",
            Quantity::Velocity => "velocity",
            Quantity::PreferredVelocity => "preferred velocity",
        })
    }
}

/// How deep two discs (or a disc and a wall) must interpenetrate, as a fraction of the
/// smaller radius, for their contact to count as a collision in [`Metrics`]: 1 %, the
/// same line as [`Metrics::overlapping_pairs`].
///
/// ORCA agents graze at exactly the sum of their radii, and depenetration leaves up
/// to [`CollideParams::tolerance`] (0.5 % by default) of overlap; such touches still
/// get their impulse, but they are not collisions. The same rule holds for every
/// steering method.
pub const COLLISION_DEPTH: f32 = 0.01;

/// Running measurements of a world, from its start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Collisions: an agent meeting another agent or a moving obstacle while
    /// approaching it (an impulse was exchanged) and penetrating it by more than
    /// [`COLLISION_DEPTH`] of the smaller radius.
    pub collisions: u64,
    /// Agents meeting a wall while moving into it, more than [`COLLISION_DEPTH`] of
    /// their radius deep.
    pub wall_contacts: u64,
    /// Agent pairs that were ever left penetrating by more than [`COLLISION_DEPTH`] of
    /// the smaller radius after a step, each pair once.
    pub overlapping_pairs: BTreeSet<(u32, u32)>,
    /// Largest penetration depth between two agents after any step, metres.
    pub max_penetration: f32,
    /// Smallest gap between two agents' edges after any step, metres (negative when
    /// they overlapped); `f32::INFINITY` until two agents came within range.
    pub min_separation: f32,
    /// Paths planned again ([`AgentEvent::Replanned`](super::AgentEvent::Replanned)):
    /// a chased goal moved, an agent strayed, was moved or handed back, or a mesh
    /// edit blocked or may have shortened its way.
    pub replans: u64,
}
