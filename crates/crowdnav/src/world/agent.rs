//! Agents and moving obstacles: what the world steps.

use crate::path::{Path, PathError};
use glam::Vec2;
use serde::{Deserialize, Serialize};

/// An agent's handle: a slot and the generation of that slot.
///
/// A slot freed by [`World::remove_agent`](super::World::remove_agent) may be taken
/// by a later agent, but with a new generation, so an id never names another agent
/// than the one it was given for: the world refuses a removed agent's id
/// ([`WorldError::UnknownAgent`](super::WorldError::UnknownAgent)). Removing an agent
/// leaves every other agent's id as it was. Ids are handed out by
/// [`World::add_agent`](super::World::add_agent); an agent's place in
/// [`World::agents`](super::World::agents) is [`World::index_of`](super::World::index_of).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AgentId {
    slot: u32,
    generation: u32,
}

impl AgentId {
    pub(crate) fn new(slot: u32, generation: u32) -> AgentId {
        AgentId { slot, generation }
    }

    /// Its slot: the same number for every agent that ever held that slot.
    pub fn slot(self) -> u32 {
        self.slot
    }

    /// The generation of its slot: how many agents held the slot before this one.
    pub fn generation(self) -> u32 {
        self.generation
    }
}

impl std::fmt::Display for AgentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.slot)?;
        if self.generation > 0 {
            write!(f, "v{}", self.generation)?;
        }
        Ok(())
    }
}

/// A moving obstacle's id: its index in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ObstacleId(pub u32);

impl ObstacleId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an agent wants to go.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// A fixed point.
    Point(Vec2),
    /// Another agent (chase it); the path is re-planned as it moves. When that agent
    /// is removed, the chaser stops where it is ([`AgentState::Idle`]).
    Agent(AgentId),
    /// A moving obstacle (meet it); the path is re-planned as it moves.
    Obstacle(ObstacleId),
}

/// How to create an agent. Units: metres, seconds, kilograms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentParams {
    /// Start position.
    pub position: Vec2,
    /// Where it goes.
    pub goal: Goal,
    /// Radius, metres. \[Limit: > 0\]
    pub radius: f32,
    /// Top speed, m/s. \[Limit: > 0\]
    pub max_speed: f32,
    /// Cruising speed, m/s; at most `max_speed`. \[Limit: > 0\]
    pub pref_speed: f32,
    /// Mass, kg, for collision response. \[Limit: > 0\]
    pub mass: f32,
}

impl AgentParams {
    /// An agent of radius 0.5 m, 1 kg, cruising at 1.4 m/s (top 2 m/s), from
    /// `position` to the point `goal`.
    pub fn new(position: Vec2, goal: Vec2) -> Self {
        Self {
            position,
            goal: Goal::Point(goal),
            radius: 0.5,
            max_speed: 2.0,
            pref_speed: 1.4,
            mass: 1.0,
        }
    }

    /// With this radius.
    pub fn with_radius(mut self, radius: f32) -> Self {
        self.radius = radius;
        self
    }

    /// With this top and cruising speed.
    pub fn with_speeds(mut self, max_speed: f32, pref_speed: f32) -> Self {
        self.max_speed = max_speed;
        self.pref_speed = pref_speed;
        self
    }

    /// With this mass.
    pub fn with_mass(mut self, mass: f32) -> Self {
        self.mass = mass;
        self
    }

    /// With this goal.
    pub fn with_goal(mut self, goal: Goal) -> Self {
        self.goal = goal;
        self
    }
}

/// An agent's radius, speeds and mass: what [`World::set_params`](super::World::set_params)
/// changes. Units: metres, seconds, kilograms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentBody {
    /// Radius, metres. \[Limit: > 0\]
    pub radius: f32,
    /// Top speed, m/s. \[Limit: > 0\]
    pub max_speed: f32,
    /// Cruising speed, m/s; at most `max_speed`. \[Limit: > 0\]
    pub pref_speed: f32,
    /// Mass, kg, for collision response. \[Limit: > 0\]
    pub mass: f32,
}

impl AgentBody {
    /// What is wrong with it, if anything: the first number that is not positive and
    /// finite.
    pub(crate) fn problem(&self) -> Option<super::BadValue> {
        use super::Quantity;
        [
            (Quantity::Radius, self.radius),
            (Quantity::MaxSpeed, self.max_speed),
            (Quantity::PrefSpeed, self.pref_speed),
            (Quantity::Mass, self.mass),
        ]
        .into_iter()
        .find(|&(_, v)| !(v.is_finite() && v > 0.0))
        .map(|(q, v)| super::BadValue::NotPositive(q, v))
    }
}

/// What an agent is doing, as of the last step ([`Agent::state`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AgentState {
    /// It has no goal to go to: the agent it chased was removed (it stays where it
    /// was then), until it is given a new goal.
    Idle,
    /// On its way to its goal (or driven by the game, or heading for the preferred
    /// velocity the game set). The state of an agent that has not stepped yet.
    #[default]
    Moving,
    /// At its goal (or the nearest point it can reach): it came within the arrival
    /// tolerance, and, for a point goal, has not been pushed further than its radius
    /// off it since (a chaser holds no place: it follows as soon as it is out of the
    /// tolerance). Pushed
    /// off within its radius, it stands while it is pushed and walks back once left in
    /// peace for [`SETTLE_TIME`](super::SETTLE_TIME) (it is then not
    /// [`is_arrived`](Agent::is_arrived) until back); pushed further, it is
    /// [`AgentState::Moving`] again.
    Arrived,
    /// Its path could not be planned, for this reason. It holds still (it is still
    /// avoided, and pushed by collisions), and tries again after
    /// [`NO_PATH_RETRY`](super::NO_PATH_RETRY) seconds, or as soon as it is moved off
    /// the place it failed from (pushed, put back on the mesh, teleported), given a
    /// new goal or a new mesh. It never heads for its goal without a path, so never
    /// walks through a wall.
    NoPath(PathError),
    /// On its way, but it has not got half its radius nearer the next point of its
    /// path (nor past one) for [`STUCK_TIME`](super::STUCK_TIME) seconds (pressed in a
    /// jam, or pushing against others who do not yield); or, pushed off its place
    /// again and again soon after it came, it has not stood there that long since. It
    /// is still trying (after [`TRY_ASIDE_TIME`](super::TRY_ASIDE_TIME), other ways
    /// too); it is `Moving` again once it gets on.
    Stuck,
}

/// Something that happened to an agent in the last step ([`World::agent_events`](super::World::agent_events)).
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// It arrived at its goal (again, when it had been pushed off it).
    Arrived(AgentId),
    /// Planning its path failed: it holds still (see [`AgentState::NoPath`]). Said
    /// once, when it starts failing.
    NoPath {
        /// The agent.
        agent: AgentId,
        /// Why.
        error: PathError,
    },
    /// It planned its path again: its chased goal moved, it strayed from its path, it
    /// was moved, handed back to its goal, or the mesh changed.
    Replanned(AgentId),
    /// It collided, as [`Metrics::collisions`](super::Metrics::collisions) and
    /// [`Metrics::wall_contacts`](super::Metrics::wall_contacts) count.
    Collided {
        /// The agent.
        agent: AgentId,
        /// What it collided with.
        with: Touched,
    },
}

impl AgentEvent {
    /// Whether it names agent `id`.
    pub(super) fn concerns(&self, id: AgentId) -> bool {
        match *self {
            AgentEvent::Arrived(a) | AgentEvent::Replanned(a) => a == id,
            AgentEvent::NoPath { agent, .. } => agent == id,
            AgentEvent::Collided { agent, with } => agent == id || with == Touched::Agent(id),
        }
    }
}

/// What an agent collided with ([`AgentEvent::Collided`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touched {
    /// Another agent.
    Agent(AgentId),
    /// A moving obstacle.
    Obstacle(ObstacleId),
    /// A wall: its index in [`World::walls`](super::World::walls).
    Wall(u32),
}

/// An agent in the world.
#[derive(Clone, Debug)]
pub struct Agent {
    /// Its id.
    pub id: AgentId,
    /// Centre, metres.
    pub position: Vec2,
    /// Actual velocity after the last step (after collision response), m/s.
    pub velocity: Vec2,
    /// Desired velocity: along its path at its cruising speed, slowing on arrival.
    pub preferred_velocity: Vec2,
    /// Velocity the steering method chose in the last step, before collisions.
    pub avoidance_velocity: Vec2,
    /// Radius, metres.
    pub radius: f32,
    /// Mass, kg.
    pub mass: f32,
    /// Top speed, m/s.
    pub max_speed: f32,
    /// Cruising speed, m/s.
    pub pref_speed: f32,
    /// Where it goes.
    pub goal: Goal,
    pub(crate) path: Option<Path>,
    /// Points of `path` to follow (start, tangent points, goal).
    pub(crate) waypoints: Vec<Vec2>,
    /// Index into `waypoints` of the point it is heading to.
    pub(crate) next_waypoint: usize,
    /// The openings `path` bends through (see [`super::portal`]).
    pub(crate) portals: Vec<super::portal::Portal>,
    /// Goal position when the path was planned.
    pub(crate) planned_goal: Vec2,
    /// Where a point goal the agent cannot reach was moved to (the nearest point it
    /// can reach), if it was.
    pub(crate) reachable_goal: Option<Vec2>,
    /// Where it rests instead of its point goal, which others already crowd (see
    /// [`super::gather`]).
    pub(crate) spot: Option<Vec2>,
    pub(crate) needs_plan: bool,
    /// A shorter path may have opened (an obstacle of the mesh was removed): it plans
    /// again when its turn comes ([`IMPROVE_PER_STEP`](super::IMPROVE_PER_STEP) a
    /// step), following its path (still free) meanwhile.
    pub(crate) improve: bool,
    /// Time of first arrival, seconds since the start.
    pub(crate) arrived_at: Option<f64>,
    /// Distance travelled, metres.
    pub(crate) travelled: f64,
    /// Length of the first planned path (or straight distance), metres.
    pub(crate) shortest: Option<f64>,
    /// Collided since it last reached its goal (the seed draws such agents red).
    pub(crate) collided: bool,
    /// The velocity the game drives it at, if it does.
    pub(crate) driven: Option<Vec2>,
    /// The preferred velocity the game set instead of its path's, if it did.
    pub(crate) wanted: Option<Vec2>,
    /// Others of a lower priority yield to it.
    pub(crate) priority: u8,
    /// What it is doing.
    pub(crate) state: AgentState,
    /// Whether its chase ended (the agent it chased was removed), until a new goal.
    pub(crate) idle: bool,
    /// Where and when it last got more than half its radius further (for
    /// [`AgentState::Stuck`]), and where and when planning failed (for
    /// [`AgentState::NoPath`]).
    pub(crate) progress: (Vec2, f64),
    /// How it has kept its place since it was given its goal (for
    /// [`AgentState::Stuck`] while it walks back to it).
    pub(crate) settling: Settling,
    /// How long it has been carried back, on its way but moving against the way it
    /// wants to go, seconds (0 when it is not): after
    /// [`CARRIED_TIME`](super::CARRIED_TIME) others give it right of way.
    pub(crate) carried_for: f32,
    /// When it last made progress (the time of `progress`) as of the last step it had
    /// been carried back for [`MAKE_WAY_CARRIED`](super::MAKE_WAY_CARRIED) (see
    /// `carried_for`): equal to `progress.1` when it has been so carried since it last
    /// made progress, so that, stuck, it stands aside (see `makes_way` in
    /// `world/follow.rs`); standing, which is not being carried, leaves it. NaN before
    /// it is ever so carried.
    pub(crate) carried_since: f64,
    /// Near its place (within [`TAKEN_REACH`](super::follow) radii) and someone else
    /// stands on it: it cannot arrive before the other leaves, and pressing on only
    /// holds the other (as often as not someone who must get past it to a place of its
    /// own, the two face to face against a wall), so it gives way as someone resting
    /// at its place does until the place is free.
    pub(crate) place_taken: bool,
}

/// How an agent has kept its place: two pushing each other off their places in turn
/// each walk back and arrive again and again, and make no progress.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settling {
    /// When it last came to its place.
    pub reached: f64,
    /// The last time it had stood at its place for [`STUCK_TIME`](super::STUCK_TIME)
    /// (or when it was given its goal).
    pub settled: f64,
    /// How often it was pushed off its place sooner than that since.
    pub brief_stays: u8,
}

impl Settling {
    /// Settled as of time `now`.
    pub fn new(now: f64) -> Settling {
        Settling {
            reached: now,
            settled: now,
            brief_stays: 0,
        }
    }
}

impl Agent {
    /// What it is doing, as of the last step.
    pub fn state(&self) -> &AgentState {
        &self.state
    }

    /// Its radius, speeds and mass.
    pub fn body(&self) -> AgentBody {
        AgentBody {
            radius: self.radius,
            max_speed: self.max_speed,
            pref_speed: self.pref_speed,
            mass: self.mass,
        }
    }

    /// The velocity the game drives it at ([`World::set_velocity`](super::World::set_velocity)),
    /// if it does.
    pub fn driven_velocity(&self) -> Option<Vec2> {
        self.driven
    }

    /// The preferred velocity the game set instead of its path's
    /// ([`World::set_preferred_velocity`](super::World::set_preferred_velocity)), if it did.
    pub fn preferred_velocity_override(&self) -> Option<Vec2> {
        self.wanted
    }

    /// Its priority ([`World::set_priority`](super::World::set_priority)); 0 by default.
    pub fn priority(&self) -> u8 {
        self.priority
    }

    /// Whether it rests at its goal now: [`AgentState::Arrived`] (or idle) and not
    /// walking back onto its place.
    pub fn is_arrived(&self) -> bool {
        self.arrived_at.is_some() && self.preferred_velocity == Vec2::ZERO
    }

    /// Time of its first arrival, seconds since the world started, if it has arrived.
    pub fn arrival_time(&self) -> Option<f64> {
        self.arrived_at
    }

    /// Whether it has collided since it last reached its goal (the seed's red agents).
    pub fn has_collided(&self) -> bool {
        self.collided
    }

    /// The path it follows, if one was planned (none when the goal is in plain sight of
    /// an open world without a mesh, or when planning failed).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_ref()
    }

    /// Where the agent is really heading when its point goal is out of its reach
    /// (inside an obstacle, off the mesh, or only through gaps narrower than the
    /// agent): the nearest point it can reach
    /// ([`NavMesh::nearest_reachable`](crate::mesh::NavMesh::nearest_reachable)). It
    /// arrives there. `None` when the goal itself is reachable.
    pub fn reachable_goal(&self) -> Option<Vec2> {
        self.reachable_goal
    }

    /// Where it rests instead of its point goal when others already crowd that place
    /// (agents sent to one point): the free spot near the goal, and near itself, that
    /// it took once the ones gathered there held it up (then moved to wherever it was
    /// pushed while resting). The first to come rests on the goal itself, the others
    /// around it, so that the crowd settles in a compact disc. `None` while it heads
    /// for the goal itself.
    pub fn spot(&self) -> Option<Vec2> {
        self.spot
    }

    /// The waypoints it steers through: the start, tangent points and the goal.
    pub fn waypoints(&self) -> &[Vec2] {
        &self.waypoints
    }

    /// The waypoint it is heading to now.
    pub fn next_waypoint(&self) -> Option<Vec2> {
        self.waypoints.get(self.next_waypoint).copied()
    }

    /// Distance travelled so far, metres.
    pub fn travelled(&self) -> f64 {
        self.travelled
    }

    /// Length of its first planned path, metres (the shortest path from where it
    /// started, which the report's path ratio divides by); `None` before it planned.
    pub fn first_plan_length(&self) -> Option<f64> {
        self.shortest
    }
}

/// A scripted motion of a moving obstacle, as a function of time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Motion {
    /// Stands still at `at`.
    Fixed {
        /// Position.
        at: Vec2,
    },
    /// Straight line at constant velocity from `start`.
    Linear {
        /// Position at time 0.
        start: Vec2,
        /// Velocity, m/s.
        velocity: Vec2,
    },
    /// Back and forth between `from` and `to` at `speed`.
    Patrol {
        /// One end.
        from: Vec2,
        /// The other end.
        to: Vec2,
        /// Speed, m/s. \[Limit: > 0\]
        speed: f32,
    },
    /// An elliptical orbit around `center` with semi-axes `semi_axes` (x, y), one turn
    /// every `period` seconds (counter-clockwise; negative period turns clockwise),
    /// starting at angle `phase` (radians).
    Orbit {
        /// Centre of the ellipse.
        center: Vec2,
        /// Semi-axes along x and y, metres.
        semi_axes: Vec2,
        /// Seconds per turn. \[Limit: != 0\]
        period: f32,
        /// Angle at time 0, radians.
        #[serde(default)]
        phase: f32,
    },
}

impl Motion {
    /// Position and velocity at time `t` (seconds).
    pub fn state_at(&self, t: f64) -> (Vec2, Vec2) {
        match *self {
            Motion::Fixed { at } => (at, Vec2::ZERO),
            Motion::Linear { start, velocity } => (start + velocity * t as f32, velocity),
            Motion::Patrol { from, to, speed } => {
                let len = from.distance(to);
                if len <= 0.0 || speed <= 0.0 || !speed.is_finite() {
                    return (from, Vec2::ZERO);
                }
                let dir = (to - from) / len;
                let s = (t * f64::from(speed)).rem_euclid(2.0 * f64::from(len)) as f32;
                if s <= len {
                    (from + dir * s, dir * speed)
                } else {
                    (to - dir * (s - len), -dir * speed)
                }
            }
            Motion::Orbit {
                center,
                semi_axes,
                period,
                phase,
            } => {
                if period == 0.0 || !period.is_finite() {
                    return (center + Vec2::new(semi_axes.x, 0.0), Vec2::ZERO);
                }
                let w = std::f64::consts::TAU / f64::from(period);
                let a = f64::from(phase) + w * t;
                let (s, c) = a.sin_cos();
                let pos = center + Vec2::new(semi_axes.x * c as f32, semi_axes.y * s as f32);
                let vel = Vec2::new(-semi_axes.x * (w * s) as f32, semi_axes.y * (w * c) as f32);
                (pos, vel)
            }
        }
    }
}

/// A scripted moving obstacle: a disc that follows its [`Motion`] and never yields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovingObstacle {
    /// Its id.
    pub id: ObstacleId,
    /// Radius, metres.
    pub radius: f32,
    /// Its script.
    pub motion: Motion,
    /// Centre now.
    pub position: Vec2,
    /// Velocity now.
    pub velocity: Vec2,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patrol_goes_back_and_forth() {
        let m = Motion::Patrol {
            from: Vec2::ZERO,
            to: Vec2::new(4.0, 0.0),
            speed: 2.0,
        };
        assert_eq!(m.state_at(1.0), (Vec2::new(2.0, 0.0), Vec2::new(2.0, 0.0)));
        assert_eq!(m.state_at(3.0), (Vec2::new(2.0, 0.0), Vec2::new(-2.0, 0.0)));
        assert_eq!(m.state_at(4.0).0, Vec2::ZERO);
    }

    #[test]
    fn orbit_velocity_is_the_derivative_of_position() {
        let m = Motion::Orbit {
            center: Vec2::new(1.0, 2.0),
            semi_axes: Vec2::new(5.0, 3.0),
            period: 7.0,
            phase: 0.3,
        };
        for i in 0..20 {
            let t = f64::from(i) * 0.37;
            let h = 1e-3;
            let (p0, v) = m.state_at(t);
            let (p1, _) = m.state_at(t + h);
            let fd = (p1 - p0) / h as f32;
            // Forward difference error ≈ h/2·|a|, with |a| ≤ (2π/7)²·5 ≈ 4: 2e-3, plus f32
            // rounding of the positions (~6e-7 / h): under 3e-3; 2e-2 leaves sevenfold room.
            assert!((fd - v).length() < 2e-2, "{fd} vs {v}");
            let q = (p0 - Vec2::new(1.0, 2.0)) / Vec2::new(5.0, 3.0);
            assert!((q.length() - 1.0).abs() < 1e-4, "off the ellipse");
        }
    }
}
