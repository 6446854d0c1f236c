//! Local avoidance: turn an agent's preferred velocity into a velocity that avoids its
//! neighbours, moving obstacles and walls.
//!
//! Three methods sit behind one trait, [`Steering`]:
//! - `Orca` — optimal reciprocal collision avoidance (van den Berg, Guy, Lin, Manocha
//!   2011); the default.
//! - `AntiGravity` — the steering seed: cardioid-weighted repulsion, picking a side,
//!   symmetric obstacles, moving obstacles with right of way.
//! - `Swarm` — the swarm seed: the target pulls, near obstacles push with weight
//!   1/gap; in 2D and in 3D.
//!
//! A steering method sees one agent ([`SteerAgent`]), a slice of [`Neighbor`]s, a
//! slice of wall [`Segment`]s and the door its path passes next, if any
//! ([`Opening`]), and returns a velocity. It knows nothing of the world
//! that gathered them, so each method can be tested and benchmarked alone, and every
//! agent's velocity can be computed in parallel from the same old state.

use crate::geom::Segment;
use glam::Vec2;

mod antigravity;
mod make_way;
mod swarm;
mod walls;

pub use antigravity::{AntiGravity, AntiGravityParams};
pub use swarm::{Neighbor3, SteerAgent3, Swarm, SwarmParams};
mod linear_program;
pub use linear_program::HalfPlane;
mod orca;

pub use orca::{
    orca_half_plane_disc, orca_half_plane_segment, Orca, OrcaParams, OrcaPreset, OrcaScratch,
};

/// The agent whose velocity is being chosen, as a steering method sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteerAgent {
    /// Centre, metres.
    pub position: Vec2,
    /// Current velocity, metres per second.
    pub velocity: Vec2,
    /// Radius, metres. \[Limit: > 0\]
    pub radius: f32,
    /// Top speed, metres per second. \[Limit: >= 0\]
    pub max_speed: f32,
    /// The velocity the agent would take with nobody around: towards the next corner of
    /// its path at its preferred speed, slowing down on arrival. Zero once arrived.
    pub preferred_velocity: Vec2,
    /// Where the agent is heading now: the next corner of its path (or its goal).
    pub target: Vec2,
}

/// What a neighbour is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NeighborKind {
    /// Another agent, which steers too (ORCA shares the avoidance with it).
    Agent,
    /// A scripted moving obstacle (or a static disc): it does not react.
    Obstacle,
}

/// Another body near the agent: an agent or a moving obstacle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    /// Centre, metres.
    pub position: Vec2,
    /// Current velocity, metres per second.
    pub velocity: Vec2,
    /// Radius, metres.
    pub radius: f32,
    /// The velocity it would like to have (its desired path); equal to `velocity` for
    /// obstacles.
    pub preferred_velocity: Vec2,
    /// Agent or obstacle.
    pub kind: NeighborKind,
    /// Whether it walks to the same destination as the agent steering (`false` when
    /// the caller does not know, and for obstacles). Someone ahead on the way to where
    /// one goes oneself walks on rather than stopping in one's way: ORCA's people
    /// preset counts its walk on in a door ([`OrcaParams::time_gap`]).
    pub same_destination: bool,
}

/// Everything one steering decision reads.
#[derive(Clone, Copy, Debug)]
pub struct SteerContext<'a> {
    /// The agent.
    pub agent: SteerAgent,
    /// Its neighbours, nearest first (ties broken by the caller's stable order).
    pub neighbors: &'a [Neighbor],
    /// Wall segments near the agent; walkable space lies on each wall's left.
    pub walls: &'a [Segment],
    /// The step the velocity will be held for, seconds. \[Limit: > 0\]
    pub dt: f32,
    /// The door the agent's path passes next, when it is walking up to one or through
    /// one (`None` in the open, or when the caller does not know). ORCA's people
    /// preset keeps its zipper in front of a short door ([`OrcaParams::zipper`]).
    pub opening: Option<Opening>,
}

/// A door (any narrow opening between walls) that an agent's path passes, as a
/// steering method sees it: where the passage through it begins, its width across,
/// and its length along the way through (a door's wall thickness).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opening {
    /// One end of the passage's entry: the post on one side, where the passage begins.
    pub entry: Vec2,
    /// Unit vector across the entry, from `entry` to the post on the other side.
    pub across: Vec2,
    /// The width across, metres: the other post lies at `entry + across * width`.
    pub width: f32,
    /// Unit vector along the way through (at right angles to `across`).
    pub through: Vec2,
    /// How long the passage is along `through`, metres: about 0 for a door in a thin
    /// wall, the wall's thickness in general. Measured up to about a metre either side
    /// of where the path wraps the post (longer passages read as that long).
    pub length: f32,
}

impl Opening {
    /// How far `point` lies before the passage's entry along the way through, metres
    /// (negative once past the entry; `-length` at its exit).
    pub fn before_entry(&self, point: Vec2) -> f32 {
        (self.entry - point).dot(self.through)
    }
}

/// What a debug vector shows. Each method records some of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DebugKind {
    /// Anti-gravity: one neighbour's or wall's repulsion as the field gives it.
    Raw,
    /// Anti-gravity: that repulsion after the cardioid adjustment (part 4).
    Adjusted,
    /// Anti-gravity: the sum of the adjusted repulsions.
    Sum,
    /// Swarm: the attraction towards the goal.
    Pull,
    /// Swarm: the repulsion from neighbours and walls.
    Push,
    /// ORCA: the preferred velocity (velocity space, from the agent).
    Preferred,
    /// ORCA: one half-plane's boundary line (velocity space: a point and a direction).
    OrcaLine,
    /// Every method: the velocity chosen.
    Final,
}

impl DebugKind {
    /// Short lowercase name, for legends and logs.
    pub fn name(self) -> &'static str {
        match self {
            DebugKind::Raw => "raw",
            DebugKind::Adjusted => "adjusted",
            DebugKind::Sum => "sum",
            DebugKind::Pull => "pull",
            DebugKind::Push => "push",
            DebugKind::Preferred => "preferred",
            DebugKind::OrcaLine => "orca line",
            DebugKind::Final => "final",
        }
    }
}

/// A vector for debug drawing, anchored at the agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugVector {
    /// What the vector is.
    pub kind: DebugKind,
    /// Where it starts.
    pub origin: Vec2,
    /// The vector itself.
    pub vector: Vec2,
}

/// What a steering method saw and decided, for debug drawing and tests. Filled only
/// when the caller asks for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SteerDebug {
    /// The vectors, in the order they were computed.
    pub vectors: Vec<DebugVector>,
}

impl SteerDebug {
    /// Records a vector.
    pub fn push(&mut self, kind: DebugKind, origin: Vec2, vector: Vec2) {
        self.vectors.push(DebugVector {
            kind,
            origin,
            vector,
        });
    }

    /// The vectors of this kind, in the order they were recorded.
    pub fn of_kind(&self, kind: DebugKind) -> impl Iterator<Item = &DebugVector> {
        self.vectors.iter().filter(move |v| v.kind == kind)
    }
}

/// A local avoidance method.
///
/// Implementations are pure: the new velocity depends only on the context, so a
/// world can compute every agent's velocity in parallel and get the same bits on any
/// thread count. The returned velocity is finite and no faster than
/// `ctx.agent.max_speed`.
pub trait Steering: Send + Sync {
    /// Short lowercase name: `"orca"`, `"antigravity"`, `"swarm"`.
    fn name(&self) -> &'static str;

    /// The new velocity for `ctx.agent`. When `debug` is given, the method records the
    /// vectors it computed on the way.
    fn steer(&self, ctx: &SteerContext<'_>, debug: Option<&mut SteerDebug>) -> Vec2;

    /// The neighbours this method takes into account, when it chooses them itself
    /// ([`Orca`] does, from [`OrcaParams::neighbor_dist`] and
    /// [`OrcaParams::max_neighbors`]): a world steered by it then searches exactly
    /// these, whatever its [`WorldParams`](crate::world::WorldParams) said. `None` (the
    /// default) leaves the choice to the world.
    fn neighborhood(&self) -> Option<Neighborhood> {
        None
    }

    /// Whether the method shares each avoidance between the two agents, each taking
    /// its part ([`Orca`] does). Reciprocal avoidance lets two touching agents with no
    /// relative velocity hold each other's velocity, so that one caught against its
    /// way between others is carried along with them; a world steered by such a method
    /// gives an agent carried back for
    /// [`CARRIED_TIME`](crate::world::CARRIED_TIME) right of way, and has an agent
    /// stuck near its place stand aside for
    /// [`MAKE_WAY_TIME`](crate::world::MAKE_WAY_TIME). `false` (the default) for
    /// methods that avoid on their own.
    fn reciprocal(&self) -> bool {
        false
    }
}

/// Which neighbours a steering method takes into account: the nearest
/// `max_neighbors` whose centres lie within `neighbor_dist` (see
/// [`Steering::neighborhood`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighborhood {
    /// How far, metres. \[Limit: >= 0\]
    pub neighbor_dist: f32,
    /// How many at most.
    pub max_neighbors: usize,
}

/// Clamps `v` to length `max`, and maps NaN or infinite input to zero so that a bad
/// value never spreads through a crowd.
pub fn clamp_speed(v: Vec2, max: f32) -> Vec2 {
    if !v.is_finite() || !max.is_finite() || max <= 0.0 {
        return Vec2::ZERO;
    }
    v.clamp_length_max(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_speed_limits_length_and_swallows_nan() {
        assert_eq!(clamp_speed(Vec2::new(3.0, 4.0), 1.0), Vec2::new(0.6, 0.8));
        assert_eq!(clamp_speed(Vec2::new(0.3, 0.4), 1.0), Vec2::new(0.3, 0.4));
        assert_eq!(clamp_speed(Vec2::new(f32::NAN, 0.0), 1.0), Vec2::ZERO);
        assert_eq!(clamp_speed(Vec2::ONE, 0.0), Vec2::ZERO);
    }
}
