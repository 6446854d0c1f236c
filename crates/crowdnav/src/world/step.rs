//! [`World`] and its step, phase by phase.

use super::agent::{Agent, AgentId, AgentParams, Goal, Motion, MovingObstacle, ObstacleId};
use super::portal;
use crate::collide::{Body, CollideParams, Collider, CollisionEvent, Resolver};
use crate::geom::{closest_point_on_segment, Segment};
use crate::grid::{key_distance_squared, key_of, PointGrid, WallGrid};
use crate::mesh::{Location, NavMesh};
use crate::path::{Endpoint, Path, PathError, PathPiece};
use crate::steer::{
    clamp_speed, Neighbor, NeighborKind, SteerAgent, SteerContext, SteerDebug, Steering,
};
use glam::Vec2;
use rayon::prelude::*;
use std::collections::BTreeSet;

/// Tuning of a [`World`]. Units: metres and seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldParams {
    /// How far an agent looks for neighbours, metres. \[Limit: > 0\] Default 15 m.
    pub neighbor_dist: f32,
    /// How many of the nearest neighbours an agent considers. Default 10.
    pub max_neighbors: usize,
    /// How far an agent looks for walls, metres. \[Limit: >= 0\] Default 5 m.
    pub wall_dist: f32,
    /// An agent has arrived when its centre is this close to its goal, metres.
    /// Default 0.05 m.
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
    /// The time step is not a positive finite number.
    #[error("time step must be positive and finite, got {0}")]
    InvalidStep(f32),
}

/// What a [`Goal`] that is not a point names, for messages.
fn goal_target(goal: &Goal) -> String {
    match goal {
        Goal::Point(p) => format!("the point ({}, {})", p.x, p.y),
        Goal::Agent(a) => format!("agent {}", a.0),
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
}

/// The crowd world.
///
/// # Example
/// ```
/// use crowdnav::mesh::{Level, NavMesh};
/// use crowdnav::steer::{SteerContext, SteerDebug, Steering};
/// use crowdnav::world::{AgentParams, World, WorldParams};
/// use glam::Vec2;
///
/// /// Goes straight for its preferred velocity (no avoidance).
/// struct Seek;
/// impl Steering for Seek {
///     fn name(&self) -> &'static str { "seek" }
///     fn steer(&self, ctx: &SteerContext<'_>, _: Option<&mut SteerDebug>) -> Vec2 {
///         ctx.agent.preferred_velocity
///     }
/// }
///
/// let level = Level::from_json(r#"{"boundary": [[0,0],[20,0],[20,10],[0,10]],
///                                  "obstacles": [[[9,0],[11,0],[11,7],[9,7]]]}"#)?;
/// let mesh = NavMesh::from_level(&level)?;
/// let mut world = World::new(Some(mesh), Box::new(Seek), WorldParams::default());
/// let id = world.add_agent(AgentParams::new(Vec2::new(2.0, 2.0), Vec2::new(18.0, 2.0)))?;
/// for _ in 0..1000 {
///     world.step(0.05)?;
/// }
/// assert!(world.agent(id).is_arrived());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct World {
    mesh: Option<NavMesh>,
    walls: Vec<Segment>,
    wall_grid: WallGrid,
    steering: Box<dyn Steering>,
    params: WorldParams,
    agents: Vec<Agent>,
    obstacles: Vec<MovingObstacle>,
    grid: PointGrid,
    /// Whether `grid` holds the agents' current positions (it is rebuilt at the end of
    /// a step for measuring, and serves the next step's steering unless agents were
    /// added since).
    grid_fresh: bool,
    positions: Vec<Vec2>,
    /// What every agent's neighbours see of it this step, in agent order.
    seen: Vec<Seen>,
    /// Every agent as a [`Neighbor`] with its current velocity, in agent order: what
    /// the steering phase copies whole for each neighbour (an agent of higher rank
    /// then gets its preferred velocity instead, read from `seen`).
    seen_as_neighbors: Vec<Neighbor>,
    /// Per agent, how far its furthest neighbour was at the last step (a hint for the
    /// next search, which starts there; it never changes the answer).
    neighbor_reach: Vec<f32>,
    /// Per agent, `max_neighbors` slots (at least one): the agents that were its
    /// nearest `max_neighbors` when it last steered, or `u32::MAX` first when it had
    /// fewer (or none is known yet). Where they are at the next step bounds how far its
    /// nearest lie then: a tighter hint for that search than `neighbor_reach` plus how
    /// far anyone moved. Within the step, they may hold its collision candidates
    /// ([`nearest_cover`]).
    last_neighbors: Vec<u32>,
    /// How far the furthest agent moved in the last `integrate`, metres.
    moved: f32,
    /// The smallest and largest agent radius (`INFINITY` and 0 without agents), kept
    /// as agents are added (a radius never changes).
    radii: (f32, f32),
    /// How many agents chase a body (an agent or a moving obstacle): only then are
    /// goal positions gathered in a pass of their own.
    chasers: usize,
    time: f64,
    steps: u64,
    metrics_start_time: f64,
    metrics_start_step: u64,
    metrics: Metrics,
    new_velocities: Vec<Vec2>,
    resolver: Resolver,
    bodies: Vec<Body>,
    pairs: Vec<(u32, u32)>,
    wall_pairs: Vec<(u32, u32)>,
    events: Vec<CollisionEvent>,
    record_debug: bool,
    debug: Vec<SteerDebug>,
    /// Per agent, where its goal is this step and how close it must come.
    goals: Vec<GoalNow>,
    candidates: Vec<Candidates>,
    /// Scratch of [`concat_in_order`].
    concat_offsets: Vec<usize>,
    /// Whether `candidates` hold, for every agent, every higher-indexed agent that
    /// [`World::measure`] looks at (the collision phase found them and moved nobody far
    /// enough since to bring in another).
    candidates_cover_measure: bool,
    figures: Vec<PairFigures>,
}

/// What else of an agent its neighbours may need when they steer, beside its
/// [`Neighbor`] record: a compact copy (read for ten neighbours of every agent, so it
/// pays to keep it small and in one array).
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    preferred_velocity: Vec2,
    radius: f32,
    /// Right of way: 2 for an agent on its way that never arrived, 1 for one that has
    /// arrived once (and not been given a new goal since) and walks back, 0 for one
    /// resting at its goal. An agent gives way to every neighbour of higher rank.
    rank: u8,
}

impl Seen {
    fn of(a: &Agent) -> Seen {
        Seen {
            preferred_velocity: a.preferred_velocity,
            radius: a.radius,
            rank: right_of_way(a),
        }
    }
}

/// [`Seen::rank`] of an agent.
fn right_of_way(a: &Agent) -> u8 {
    if a.is_arrived() {
        0
    } else if a.arrived_at.is_some() {
        1
    } else {
        2
    }
}

/// Where an agent's goal is this step, and how close its centre must come to it to
/// have arrived (the arrival tolerance, plus the contact distance of a chased body).
#[derive(Clone, Copy, Debug)]
struct GoalNow {
    position: Vec2,
    arrive: f32,
}

/// One agent's share of the step's measurements: deepest penetration, smallest gap,
/// and how many pairs (with higher-indexed agents) overlap by more than 1 %.
#[derive(Clone, Copy, Debug, Default)]
struct PairFigures {
    max_penetration: f32,
    min_separation: f32,
    overlapping: u32,
}

/// What [`World::measure`] reads to visit the pairs it measures.
struct MeasurePairs<'w> {
    seen: &'w [Seen],
    grid: &'w PointGrid,
    positions: &'w [Vec2],
    candidates: &'w [Candidates],
    /// Whether `candidates` cover every pair measured (see
    /// `World::candidates_cover_measure`); otherwise the grid is searched.
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

/// One agent's collision candidates, kept from step to step so that their buffers are
/// reused: the other bodies (higher-indexed agents, then obstacles) and the walls.
#[derive(Clone, Debug, Default)]
struct Candidates {
    bodies: Vec<u32>,
    walls: Vec<u32>,
}

/// The whole crowd as the steering phase sees it this step.
#[derive(Clone, Copy)]
struct SeenCrowd<'a> {
    /// Every agent's record, in agent order.
    all: &'a [Seen],
    /// Every agent as a neighbour with its current velocity, in agent order.
    as_neighbors: &'a [Neighbor],
    /// Whether every agent has the same rank (then none is seen with its preferred
    /// velocity).
    one_rank: bool,
}

/// Per-thread scratch for the steering phase.
#[derive(Default)]
struct SteerScratch {
    /// The neighbour search's scratch, its answer at the front: the neighbours'
    /// search keys (squared distance and index, see [`PointGrid::nearest_hinted`]),
    /// nearest first.
    neighbors: Vec<u64>,
    sorted: Vec<Neighbor>,
    wall_ids: Vec<u32>,
    walls: Vec<Segment>,
}

thread_local! {
    /// The steering phase's scratch of this thread, kept across steps (no allocation
    /// once the crowd's neighbourhoods are stable).
    static STEER_SCRATCH: std::cell::RefCell<SteerScratch> =
        std::cell::RefCell::new(SteerScratch::default());
}

/// Runs `f` with this thread's steering scratch (fresh buffers if it is in use).
fn with_steer_scratch<R>(f: impl FnOnce(&mut SteerScratch) -> R) -> R {
    STEER_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut SteerScratch::default()),
    })
}

impl World {
    /// A world on `mesh` (or open ground when `None`), steered by `steering`.
    pub fn new(mesh: Option<NavMesh>, steering: Box<dyn Steering>, params: WorldParams) -> World {
        let walls: Vec<Segment> = mesh
            .as_ref()
            .map(|m| m.walls().collect())
            .unwrap_or_default();
        let wall_grid = WallGrid::new(&walls, wall_cell_size(&walls));
        World {
            mesh,
            walls,
            wall_grid,
            steering,
            params,
            agents: Vec::new(),
            obstacles: Vec::new(),
            grid: PointGrid::default(),
            grid_fresh: false,
            positions: Vec::new(),
            seen: Vec::new(),
            seen_as_neighbors: Vec::new(),
            neighbor_reach: Vec::new(),
            last_neighbors: Vec::new(),
            moved: 0.0,
            radii: (f32::INFINITY, 0.0),
            chasers: 0,
            time: 0.0,
            steps: 0,
            metrics_start_time: 0.0,
            metrics_start_step: 0,
            metrics: Metrics {
                min_separation: f32::INFINITY,
                ..Metrics::default()
            },
            new_velocities: Vec::new(),
            resolver: Resolver::new(params.collide),
            bodies: Vec::new(),
            pairs: Vec::new(),
            wall_pairs: Vec::new(),
            events: Vec::new(),
            record_debug: false,
            debug: Vec::new(),
            goals: Vec::new(),
            candidates: Vec::new(),
            concat_offsets: Vec::new(),
            candidates_cover_measure: false,
            figures: Vec::new(),
        }
    }

    /// Adds an agent; it plans its path at the next step.
    ///
    /// # Errors
    /// [`WorldError::InvalidAgent`] for NaN or infinite positions or goals, or a
    /// radius, speed or mass that is not positive and finite;
    /// [`WorldError::UnknownGoal`] for a goal naming an agent or obstacle that does not
    /// exist yet.
    pub fn add_agent(&mut self, p: AgentParams) -> Result<AgentId, WorldError> {
        let index = self.agents.len();
        let bad = |problem| WorldError::InvalidAgent { index, problem };
        if !p.position.is_finite() {
            return Err(bad(BadValue::NotFinite(Quantity::Position)));
        }
        for (quantity, v) in [
            (Quantity::Radius, p.radius),
            (Quantity::MaxSpeed, p.max_speed),
            (Quantity::PrefSpeed, p.pref_speed),
            (Quantity::Mass, p.mass),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(bad(BadValue::NotPositive(quantity, v)));
            }
        }
        self.check_goal(index, p.goal)?;
        self.grid_fresh = false;
        self.radii = (self.radii.0.min(p.radius), self.radii.1.max(p.radius));
        self.chasers += usize::from(!matches!(p.goal, Goal::Point(_)));
        self.agents.push(Agent {
            id: AgentId(index as u32),
            position: p.position,
            velocity: Vec2::ZERO,
            preferred_velocity: Vec2::ZERO,
            avoidance_velocity: Vec2::ZERO,
            radius: p.radius,
            mass: p.mass,
            max_speed: p.max_speed,
            pref_speed: p.pref_speed.min(p.max_speed),
            goal: p.goal,
            path: None,
            waypoints: Vec::new(),
            next_waypoint: 0,
            portals: Vec::new(),
            planned_goal: p.position,
            reachable_goal: None,
            needs_plan: true,
            arrived_at: None,
            travelled: 0.0,
            shortest: None,
            collided: false,
        });
        Ok(AgentId(index as u32))
    }

    fn check_goal(&self, index: usize, goal: Goal) -> Result<(), WorldError> {
        match goal {
            Goal::Point(g) if !g.is_finite() => Err(WorldError::InvalidAgent {
                index,
                problem: BadValue::NotFinite(Quantity::Goal),
            }),
            Goal::Agent(a)
                if a.index() >= self.agents.len().max(index + 1) || a.index() == index =>
            {
                Err(WorldError::UnknownGoal { index, goal })
            }
            Goal::Obstacle(o) if o.index() >= self.obstacles.len() => {
                Err(WorldError::UnknownGoal { index, goal })
            }
            _ => Ok(()),
        }
    }

    /// Gives an agent a new goal; it re-plans at the next step and counts as not
    /// arrived until it reaches it (its first arrival time is kept).
    ///
    /// # Errors
    /// As [`World::add_agent`] for the goal.
    ///
    /// # Panics
    /// If `id` is not an agent of this world.
    pub fn set_goal(&mut self, id: AgentId, goal: Goal) -> Result<(), WorldError> {
        self.check_goal(id.index(), goal)?;
        let a = &mut self.agents[id.index()];
        let chases = |g: Goal| usize::from(!matches!(g, Goal::Point(_)));
        self.chasers = self.chasers - chases(a.goal) + chases(goal);
        a.goal = goal;
        a.needs_plan = true;
        a.arrived_at = None;
        a.shortest = None;
        a.travelled = 0.0;
        Ok(())
    }

    /// Adds a scripted moving obstacle of radius `radius`.
    ///
    /// # Errors
    /// [`WorldError::InvalidObstacle`] for a radius that is not positive and finite or a
    /// motion with NaN or infinite numbers.
    pub fn add_obstacle(&mut self, radius: f32, motion: Motion) -> Result<ObstacleId, WorldError> {
        let index = self.obstacles.len();
        let (position, velocity) = motion.state_at(self.time);
        let problem = if !(radius.is_finite() && radius > 0.0) {
            Some(BadValue::NotPositive(Quantity::Radius, radius))
        } else if !(position.is_finite() && velocity.is_finite()) {
            Some(BadValue::NotFinite(Quantity::Motion))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(WorldError::InvalidObstacle { index, problem });
        }
        self.obstacles.push(MovingObstacle {
            id: ObstacleId(index as u32),
            radius,
            motion,
            position,
            velocity,
        });
        Ok(ObstacleId(index as u32))
    }

    /// The agents, in id order.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// One agent.
    ///
    /// # Panics
    /// If `id` is not an agent of this world.
    pub fn agent(&self, id: AgentId) -> &Agent {
        &self.agents[id.index()]
    }

    /// The moving obstacles, in id order.
    pub fn obstacles(&self) -> &[MovingObstacle] {
        &self.obstacles
    }

    /// The navigation mesh, if the world has one.
    pub fn mesh(&self) -> Option<&NavMesh> {
        self.mesh.as_ref()
    }

    /// The wall segments of the mesh (walkable on the left).
    pub fn walls(&self) -> &[Segment] {
        &self.walls
    }

    /// The steering method.
    pub fn steering(&self) -> &dyn Steering {
        self.steering.as_ref()
    }

    /// Replaces the steering method.
    pub fn set_steering(&mut self, steering: Box<dyn Steering>) {
        self.steering = steering;
    }

    /// The world's tuning.
    pub fn params(&self) -> &WorldParams {
        &self.params
    }

    /// Seconds simulated so far.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Measurements since the start or the last [`World::reset_metrics`].
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Starts a new measuring period (the demo's next formation): clears the metrics and
    /// remembers the time and step count, which [`World::metrics_start_time`] and
    /// [`World::metrics_start_step`] return.
    pub fn reset_metrics(&mut self) {
        self.metrics = Metrics {
            min_separation: f32::INFINITY,
            ..Metrics::default()
        };
        self.metrics_start_time = self.time;
        self.metrics_start_step = self.steps;
    }

    /// Time when the current measuring period started, seconds.
    pub fn metrics_start_time(&self) -> f64 {
        self.metrics_start_time
    }

    /// Step count when the current measuring period started.
    pub fn metrics_start_step(&self) -> u64 {
        self.metrics_start_step
    }

    /// The collision events of the last step. `body` indexes the agents; `other` is
    /// [`Collider::Body`] with an agent index, or with `agents().len() + k` for moving
    /// obstacle `k`, or [`Collider::Wall`] indexing [`World::walls`].
    pub fn events(&self) -> &[CollisionEvent] {
        &self.events
    }

    /// Asks the steering method to record its debug vectors for every agent from the
    /// next step on (or stops it). Costs time and memory; for viewers and tests.
    pub fn set_record_debug(&mut self, on: bool) {
        self.record_debug = on;
    }

    /// The debug vectors the steering method recorded for `id` in the last step, when
    /// [`World::set_record_debug`] is on (for anti-gravity: `"raw"`, `"adjusted"`,
    /// `"sum"`, `"final"`; for ORCA: `"orca_line"`, `"preferred"`, `"final"`).
    pub fn steer_debug(&self, id: AgentId) -> Option<&SteerDebug> {
        self.debug.get(id.index())
    }

    /// Replaces the navigation mesh (a level edited live: an obstacle dragged, added
    /// or removed): walls are rebuilt and every agent plans its path again at the next
    /// step. Agents now inside an obstacle are put back on the mesh by the step.
    pub fn set_mesh(&mut self, mesh: Option<NavMesh>) {
        self.walls = mesh
            .as_ref()
            .map(|m| m.walls().collect())
            .unwrap_or_default();
        self.wall_grid = WallGrid::new(&self.walls, wall_cell_size(&self.walls));
        self.mesh = mesh;
        for a in &mut self.agents {
            a.needs_plan = true;
        }
    }

    /// Whether every agent is at its goal now.
    pub fn all_arrived(&self) -> bool {
        self.agents.iter().all(Agent::is_arrived)
    }

    /// Advances the world by `dt` seconds.
    ///
    /// # Errors
    /// [`WorldError::InvalidStep`] when `dt` is not positive and finite; the world is
    /// left unchanged.
    pub fn step(&mut self, dt: f32) -> Result<(), WorldError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(WorldError::InvalidStep(dt));
        }
        let moved = self.move_agents(dt);
        self.settle(dt, moved);
        Ok(())
    }

    /// Entries per agent in [`World::last_neighbors`].
    fn neighbor_slots(&self) -> usize {
        self.params.max_neighbors.max(1)
    }

    /// The step's first half: paths, steering and integration. Returns how far the
    /// furthest agent moved, metres.
    fn move_agents(&mut self, dt: f32) -> f32 {
        if !self.grid_fresh {
            self.rebuild_grid();
        }
        self.follow_paths(dt);
        self.steer(dt);
        self.integrate(dt)
    }

    /// The step's second half, after agents moved up to `moved` metres: time, moving
    /// obstacles, collisions, the mesh, the grid and the metrics.
    fn settle(&mut self, dt: f32, moved: f32) {
        self.moved = moved;
        self.time += f64::from(dt);
        self.move_obstacles();
        // The grid still holds the positions before `integrate`, none further than
        // `moved` from where they are now.
        let pushed = self.collide(moved);
        if self.keep_on_mesh(moved + pushed) {
            self.candidates_cover_measure = false;
        }
        self.rebuild_grid();
        self.measure();
        self.steps += 1;
    }

    /// Fills `self.goals` with where every chased body is now (agents with a point
    /// goal find theirs in [`goal_now`]).
    fn update_goal_positions(&mut self) {
        let (agents, obstacles) = (&self.agents, &self.obstacles);
        let tolerance = self.params.arrival_tolerance;
        self.goals.clear();
        self.goals.par_extend(agents.par_iter().map(|a| {
            let (position, contact) = match a.goal {
                Goal::Point(p) => (p, 0.0),
                Goal::Agent(b) => {
                    let b = &agents[b.index()];
                    (b.position, a.radius + b.radius)
                }
                Goal::Obstacle(o) => {
                    let o = &obstacles[o.index()];
                    (o.position, a.radius + o.radius)
                }
            };
            GoalNow {
                position,
                arrive: contact + tolerance,
            }
        }));
    }

    /// Phase: every agent plans its path if its goal changed, moved, or it strayed
    /// ([`plan_path`]), then sets its preferred velocity ([`prefer_velocity`]); one
    /// pass, as each agent reads only itself and where its goal is.
    fn follow_paths(&mut self, dt: f32) {
        if self.chasers > 0 {
            self.update_goal_positions();
        } else {
            self.goals.clear();
        }
        let goals = &self.goals;
        let mesh = self.mesh.as_ref();
        let params = &self.params;
        let walls = params.portals.then_some((&self.walls[..], &self.wall_grid));
        let (grid, positions) = (&self.grid, &self.positions[..]);
        let now = self.time;
        self.agents.par_iter_mut().enumerate().for_each(|(i, a)| {
            let goal = goal_now(a, goals.get(i), params.arrival_tolerance);
            plan_path(a, goal.position, mesh, params.replan_distance, walls);
            let others = portal::Others {
                grid,
                positions,
                me: i as u32,
            };
            prefer_velocity(a, goal, params, now, dt, &others);
        });
    }

    /// Phase: the point grid over agents, for neighbour queries, collisions and
    /// measures. Cells of about 2.5 radii: a few agents per cell in a dense crowd,
    /// so the nearest-neighbour search stops after a ring or two.
    fn rebuild_grid(&mut self) {
        self.positions.clear();
        self.positions
            .par_extend(self.agents.par_iter().map(|a| a.position));
        let max_r = self.radii.1;
        let cell = (2.5 * max_r).max(self.params.neighbor_dist / 8.0).max(0.1);
        self.grid.rebuild(&self.positions, cell);
        self.grid_fresh = true;
    }

    /// Phase: every agent's new velocity from the old state, in parallel.
    fn steer(&mut self, dt: f32) {
        self.agents
            .par_iter()
            .map(|a| {
                let neighbor = Neighbor {
                    position: a.position,
                    velocity: a.velocity,
                    radius: a.radius,
                    preferred_velocity: a.preferred_velocity,
                    kind: NeighborKind::Agent,
                };
                (Seen::of(a), neighbor)
            })
            .unzip_into_vecs(&mut self.seen, &mut self.seen_as_neighbors);
        // (A minimum and a maximum are exact: the same on any thread count.)
        let (low, high) = self
            .seen
            .par_iter()
            .map(|b| (b.rank, b.rank))
            .reduce(|| (u8::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
        // When every agent has the same right of way, none sees another with its
        // preferred velocity.
        let one_rank = low >= high;
        self.neighbor_reach.resize(self.agents.len(), 0.0);
        let slots = self.neighbor_slots();
        self.last_neighbors
            .resize(self.agents.len() * slots, u32::MAX);
        // Neighbours move towards each other at most twice as far as the fastest.
        let margin = 2.0 * self.moved;
        let agents = &self.agents;
        let seen = SeenCrowd {
            all: &self.seen,
            as_neighbors: &self.seen_as_neighbors,
            one_rank,
        };
        let obstacles = &self.obstacles;
        let grid = &self.grid;
        let walls = &self.walls;
        let wall_grid = &self.wall_grid;
        let steering = self.steering.as_ref();
        let params = self.params;
        self.new_velocities.clear();
        self.new_velocities.resize(agents.len(), Vec2::ZERO);
        if self.record_debug {
            self.debug.resize_with(agents.len(), SteerDebug::default);
        } else {
            self.debug.clear();
        }
        let steer_with_scratch =
            |s: &mut SteerScratch, i: usize, memory: Memory<'_>, debug: Option<&mut SteerDebug>| {
                let a = &agents[i];
                let (reach, last) = memory;
                let hint = neighbor_hint(a.position, *reach + margin, last, seen.as_neighbors);
                *reach = gather_neighbors(i, a, (hint, last), (seen, obstacles, grid), &params, s);
                let reach = params.wall_dist + a.radius;
                s.walls.clear();
                if !walls.is_empty() {
                    wall_grid.walls_near(a.position, reach, &mut s.wall_ids);
                    s.walls.extend(
                        s.wall_ids
                            .iter()
                            .map(|&w| walls[w as usize])
                            .filter(|w| w.distance_squared(a.position) <= reach * reach),
                    );
                }
                let ctx = SteerContext {
                    agent: SteerAgent {
                        position: a.position,
                        velocity: a.velocity,
                        radius: a.radius,
                        max_speed: a.max_speed,
                        preferred_velocity: a.preferred_velocity,
                        target: a.next_waypoint().unwrap_or(a.position),
                    },
                    neighbors: &s.sorted,
                    walls: &s.walls,
                    dt,
                };
                clamp_speed(steering.steer(&ctx, debug), a.max_speed)
            };
        let steer_one = |i: usize, memory: Memory<'_>, debug: Option<&mut SteerDebug>| {
            with_steer_scratch(|s| steer_with_scratch(s, i, memory, debug))
        };
        let memories = self
            .neighbor_reach
            .par_iter_mut()
            .zip(self.last_neighbors.par_chunks_mut(slots));
        if self.record_debug {
            self.new_velocities
                .par_iter_mut()
                .zip(memories)
                .zip(self.debug.par_iter_mut())
                .enumerate()
                .for_each(|(i, ((out, memory), debug))| {
                    debug.vectors.clear();
                    *out = steer_one(i, memory, Some(debug));
                });
        } else {
            self.new_velocities
                .par_iter_mut()
                .zip(memories)
                .enumerate()
                .for_each(|(i, (out, memory))| {
                    *out = steer_one(i, memory, None);
                });
        }
    }

    /// Phase: move every agent with its new velocity and, when collisions are on,
    /// make the agents the first bodies of [`World::collide`] in the same pass.
    /// Returns how far the furthest moved, metres.
    fn integrate(&mut self, dt: f32) -> f32 {
        // The largest step from the compact velocities: `sqrt` and `· dt` are monotonic,
        // so this is the largest `|v| dt` bit for bit (a maximum is exact: the same on
        // any thread count).
        let fastest = self
            .new_velocities
            .par_iter()
            .map(|v| v.length_squared())
            .reduce(|| 0.0f32, f32::max);
        let moved = fastest.sqrt() * dt;
        let integrate = move |a: &mut Agent, v: Vec2| {
            a.avoidance_velocity = v;
            a.velocity = v;
            a.position += v * dt;
            a.travelled += f64::from(v.length() * dt);
        };
        let agents = self
            .agents
            .par_iter_mut()
            .zip(self.new_velocities.par_iter());
        self.bodies.clear();
        if self.params.collisions {
            self.bodies.par_extend(agents.map(|(a, &v)| {
                integrate(a, v);
                Body::new(a.position, a.velocity, a.radius, a.mass)
            }));
        } else {
            agents.for_each(|(a, &v)| integrate(a, v));
        }
        // `moved` bounds each move up to rounding; a relative margin covers that.
        moved * (1.0 + 1e-4) + 1e-6
    }

    /// Phase: collision response. Agents (made bodies by [`World::integrate`]) and
    /// moving obstacles (immovable) are the bodies; candidate pairs come from the grid with a margin of the largest radius,
    /// which bounds how far depenetration moves anyone in a step. The grid holds the
    /// agents' positions from before they moved, at most `moved` metres away. Returns
    /// how far depenetration moved anyone, metres.
    fn collide(&mut self, moved: f32) -> f32 {
        self.grid_fresh = false;
        self.events.clear();
        self.candidates_cover_measure = false;
        if !self.params.collisions {
            return 0.0;
        }
        self.bodies.truncate(self.agents.len());
        self.bodies.extend(
            self.obstacles
                .iter()
                .map(|o| Body::immovable(o.position, o.velocity, o.radius)),
        );
        self.resolve_contacts(moved).0
    }

    /// Collision response among the bodies as they are now (the grid holds positions
    /// at most `widen` metres from the bodies' now): one [`World::resolve_pass`], and
    /// more while depenetration moved someone further than the candidates' margin
    /// covers (half the smallest radius), since a pair it pushed together may have
    /// been no candidate; at most [`RESOLVE_PASSES`], and none after a pass that could not
    /// settle its overlaps. Returns how far the passes moved anyone, metres, and whether
    /// the last pass settled them.
    fn resolve_contacts(&mut self, mut widen: f32) -> (f32, bool) {
        let mut total = 0.0;
        let mut settled = true;
        for _ in 0..RESOLVE_PASSES {
            let (pushed, converged) = self.resolve_pass(widen);
            total += pushed;
            widen += pushed;
            settled = converged;
            // A pass that could not settle its overlaps within the resolver's sweeps
            // (bodies far too big for the room) would not settle them in another one.
            if 2.0 * pushed <= self.radii.0 || !converged {
                break;
            }
        }
        (total, settled)
    }

    /// One pass of collision response among the bodies as they are now: candidates
    /// (the grid holds positions at most `widen` metres from the bodies' now),
    /// impulses and depenetration, the results copied back to the agents, and the
    /// events appended to `self.events` and counted. Returns how far depenetration
    /// moved anyone, metres, and whether it settled every overlap (within the
    /// resolver's sweeps).
    fn resolve_pass(&mut self, widen: f32) -> (f32, bool) {
        let first_event = self.events.len();
        let (min_r, max_r) = self.radii;
        self.find_candidates(max_r, widen);
        self.resolver.set_params(self.params.collide);
        let summary = self.resolver.resolve(
            &mut self.bodies,
            &self.pairs,
            &self.walls,
            &self.wall_pairs,
            &mut self.events,
        );
        // How far depenetration moved anyone: a pair that ends within `radius + max_r`
        // of each other started it within `radius + max_r + 2 pushed`, which the
        // candidates cover while `2 pushed` is within the smaller radius.
        // Agents without a candidate were left as they were: their records are not
        // touched (a pass over every agent's record costs memory bandwidth at scale).
        let resolver = &self.resolver;
        let pushed = self
            .agents
            .par_iter_mut()
            .zip(self.bodies.par_iter())
            .enumerate()
            .map(|(i, (a, b))| {
                if !resolver.constrained(i) {
                    return 0.0;
                }
                let d = a.position.distance(b.position);
                a.travelled += f64::from(d);
                a.position = b.position;
                a.velocity = b.velocity;
                d
            })
            .reduce(|| 0.0f32, f32::max);
        self.candidates_cover_measure = 2.0 * pushed <= min_r;
        for e in &self.events[first_event..] {
            let radius = self.bodies[e.body as usize].radius;
            let smaller = match e.other {
                Collider::Body(j) => radius.min(self.bodies[j as usize].radius),
                Collider::Wall(_) => radius,
            };
            if e.impulse <= 0.0 || e.depth <= COLLISION_DEPTH * smaller {
                continue;
            }
            match e.other {
                Collider::Body(j) => {
                    self.metrics.collisions += 1;
                    self.agents[e.body as usize].collided = true;
                    if let Some(b) = self.agents.get_mut(j as usize) {
                        b.collided = true;
                    }
                }
                Collider::Wall(_) => self.metrics.wall_contacts += 1,
            }
        }
        (pushed, summary.converged)
    }

    /// The collision candidates at the bodies' positions: pairs of agents (or of an
    /// agent and a moving obstacle) no further apart than touching plus `max_r`, and
    /// the walls within `max_r` of touching, into `self.pairs` and `self.wall_pairs`.
    /// The grid holds positions at most `widen` metres from the bodies' now.
    ///
    /// An agent whose nearest agents, found when it steered this step, reach further
    /// than any candidate could have been then takes its candidates among them, without
    /// searching the grid (see [`nearest_cover`]).
    fn find_candidates(&mut self, max_r: f32, widen: f32) {
        let n = self.agents.len();
        let (bodies, obstacles, grid) = (&self.bodies, &self.obstacles, &self.grid);
        let (walls, wall_grid) = (&self.walls, &self.wall_grid);
        let slots = self.neighbor_slots();
        let steered = self.neighbor_reach.len() == n && self.last_neighbors.len() == n * slots;
        let (reaches, nearest) = (&self.neighbor_reach, &self.last_neighbors);
        self.candidates.resize_with(n, Candidates::default);
        self.candidates
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, c)| {
                let a = &bodies[i];
                c.bodies.clear();
                let near = match nearest.get(i * slots..(i + 1) * slots) {
                    Some(near) if steered && nearest_cover(a, max_r, widen, reaches[i], near) => {
                        near
                    }
                    _ => &[],
                };
                if let Ok(near) = <&[u32; NEAREST_COVER]>::try_from(near) {
                    // Branch-free: every one is written, the kept ones stay.
                    let mut kept = [0u32; NEAREST_COVER];
                    let mut len = 0;
                    for &j in near {
                        let Some(b) = bodies.get(j as usize) else {
                            continue;
                        };
                        let reach = a.radius + b.radius + max_r;
                        kept[len] = j;
                        len += usize::from(
                            (j as usize > i)
                                & (a.position.distance_squared(b.position) <= reach * reach),
                        );
                    }
                    c.bodies.extend_from_slice(&kept[..len]);
                } else {
                    grid.for_each_within(a.position, a.radius + 2.0 * max_r + widen, |j, _| {
                        if j as usize <= i {
                            return;
                        }
                        let b = &bodies[j as usize];
                        let reach = a.radius + b.radius + max_r;
                        if a.position.distance_squared(b.position) <= reach * reach {
                            c.bodies.push(j);
                        }
                    });
                }
                for (k, o) in obstacles.iter().enumerate() {
                    let reach = a.radius + o.radius + max_r;
                    if a.position.distance_squared(o.position) <= reach * reach {
                        c.bodies.push((n + k) as u32);
                    }
                }
                c.bodies.sort_unstable();
                c.walls.clear();
                if !walls.is_empty() {
                    let reach = a.radius + max_r;
                    wall_grid.walls_near(a.position, reach, &mut c.walls);
                    c.walls.retain(|&w| {
                        walls[w as usize].distance_squared(a.position) <= reach * reach
                    });
                }
            });
        // Concatenated in agent order, in parallel.
        let candidates = &self.candidates;
        concat_in_order(
            candidates,
            |c| &c.bodies,
            &mut self.concat_offsets,
            &mut self.pairs,
        );
        self.wall_pairs.clear();
        if !walls.is_empty() {
            concat_in_order(
                candidates,
                |c| &c.walls,
                &mut self.concat_offsets,
                &mut self.wall_pairs,
            );
        }
    }

    /// Phase: moving obstacles to their scripted state at the current time.
    fn move_obstacles(&mut self) {
        let t = self.time;
        for o in &mut self.obstacles {
            (o.position, o.velocity) = o.motion.state_at(t);
        }
    }

    /// Phase: an agent that left the walkable space (it started inside an obstacle, an
    /// edit put one on it, or it was pushed through a wall) is put back on it, just
    /// inside the nearest wall. That spot may be taken: with collisions on, contacts
    /// are resolved again around the new positions, and so on for at most
    /// [`PUT_BACK_ROUNDS`] rounds, so that nobody is left overlapping another. The
    /// grid holds positions at most `widen` metres from the agents' now. Returns
    /// whether it moved anyone.
    fn keep_on_mesh(&mut self, mut widen: f32) -> bool {
        let mut put_back = false;
        for round in 0..PUT_BACK_ROUNDS {
            let far = self.put_back_on_mesh();
            if far == 0.0 {
                break;
            }
            put_back = true;
            if !self.params.collisions || round + 1 == PUT_BACK_ROUNDS {
                break;
            }
            // The bodies of the agents put back are where they were before; every
            // other body already matches its agent.
            for (b, a) in self.bodies.iter_mut().zip(&self.agents) {
                b.position = a.position;
                b.velocity = a.velocity;
            }
            widen += far;
            let (pushed, settled) = self.resolve_contacts(widen);
            widen += pushed;
            if !settled {
                break;
            }
        }
        put_back
    }

    /// Puts every agent whose centre is off the walkable space just inside the
    /// nearest wall; returns how far it moved anyone (0 when nobody was off).
    fn put_back_on_mesh(&mut self) -> f32 {
        let Some(mesh) = self.mesh.as_ref() else {
            return 0.0;
        };
        let walls = &self.walls;
        let wall_grid = &self.wall_grid;
        self.agents
            .par_iter_mut()
            .map_init(Vec::new, |ids, a| {
                if matches!(mesh.locate(a.position), Location::Walkable(_)) {
                    return 0.0;
                }
                match nearest_inside(a.position, a.radius, walls, wall_grid, ids) {
                    Some(p) => {
                        let d = a.position.distance(p);
                        a.position = p;
                        d
                    }
                    None => 0.0,
                }
            })
            .reduce(|| 0.0f32, f32::max)
    }

    /// Phase: overlap and separation figures after the step. Per agent in parallel,
    /// then in agent order; the overlapping pairs (rare) are listed in a second pass.
    fn measure(&mut self) {
        let pairs = MeasurePairs {
            seen: &self.seen,
            grid: &self.grid,
            positions: &self.positions,
            candidates: &self.candidates,
            from_candidates: self.candidates_cover_measure,
            max_r: self.radii.1,
        };
        self.figures
            .resize(pairs.positions.len(), PairFigures::default());
        self.figures
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
        let m = &mut self.metrics;
        for (i, fig) in self.figures.iter().enumerate() {
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
}

/// Fills `out` with `(i, x)` for every `x` of `list(&candidates[i])`, in the order of
/// `i` then of the list, in parallel and without allocating once `out` and `offsets`
/// (scratch) have grown.
fn concat_in_order(
    candidates: &[Candidates],
    list: fn(&Candidates) -> &[u32],
    offsets: &mut Vec<usize>,
    out: &mut Vec<(u32, u32)>,
) {
    /// Lists filled by one task.
    const GRAIN: usize = 2048;
    fn fill(
        candidates: &[Candidates],
        first: usize,
        offsets: &[usize],
        list: fn(&Candidates) -> &[u32],
        out: &mut [(u32, u32)],
    ) {
        if candidates.len() <= GRAIN {
            let items = candidates.iter().enumerate().flat_map(|(k, c)| {
                let i = (first + k) as u32;
                list(c).iter().map(move |&x| (i, x))
            });
            for (slot, item) in out.iter_mut().zip(items) {
                *slot = item;
            }
            return;
        }
        let mid = candidates.len() / 2;
        let (lo, hi) = out.split_at_mut(offsets[first + mid] - offsets[first]);
        let (left, right) = candidates.split_at(mid);
        rayon::join(
            || fill(left, first, offsets, list, lo),
            || fill(right, first + mid, offsets, list, hi),
        );
    }
    offsets.clear();
    offsets.push(0);
    let mut total = 0;
    offsets.extend(candidates.iter().map(|c| {
        total += list(c).len();
        total
    }));
    out.clear();
    out.resize(total, (0, 0));
    fill(candidates, 0, offsets, list, out);
}

/// Where agent `a`'s goal is now and how close it must come: `chased` when goals were
/// gathered (`World::update_goal_positions`), else its point goal with the arrival
/// tolerance.
fn goal_now(a: &Agent, chased: Option<&GoalNow>, tolerance: f32) -> GoalNow {
    match (chased, a.goal) {
        (Some(&g), _) => g,
        (None, Goal::Point(position)) => GoalNow {
            position,
            arrive: tolerance,
        },
        // (Not reached: goals are gathered whenever an agent chases a body.)
        (None, _) => GoalNow {
            position: a.planned_goal,
            arrive: tolerance,
        },
    }
}

/// Plans agent `a`'s path to `goal` if its goal moved more than `replan` metres since
/// the last plan, or it needs one; with `walls` (portal steering), finds the openings
/// the path bends through.
fn plan_path(
    a: &mut Agent,
    goal: Vec2,
    mesh: Option<&NavMesh>,
    replan: f32,
    walls: Option<(&[Segment], &WallGrid)>,
) {
    if !matches!(a.goal, Goal::Point(_)) && a.planned_goal.distance(goal) > replan {
        a.needs_plan = true;
    }
    if !a.needs_plan {
        return;
    }
    let path = mesh.and_then(|m| plan(m, a.position, goal, a.radius));
    a.waypoints.clear();
    a.portals.clear();
    match &path {
        Some(p) => {
            waypoints_of(p, &mut a.waypoints);
            if let Some((walls, grid)) = walls {
                portal::portals_of(p, walls, grid, &mut a.portals);
            }
        }
        None => a.waypoints.extend([a.position, goal]),
    }
    if a.shortest.is_none() {
        a.shortest = Some(match &path {
            Some(p) => p.length(),
            None => f64::from(a.position.distance(goal)),
        });
    }
    // A point goal out of reach was replaced by the nearest reachable point.
    a.reachable_goal = match (a.goal, &path) {
        (Goal::Point(_), Some(p)) if p.goal().distance_squared(goal) > 1e-12 => Some(p.goal()),
        _ => None,
    };
    a.path = path;
    a.next_waypoint = 1;
    a.planned_goal = goal;
    a.needs_plan = false;
}

/// Advances agent `a` along its waypoints and sets its preferred velocity towards
/// `goal`; marks its arrival (time `now`).
fn prefer_velocity(
    a: &mut Agent,
    goal: GoalNow,
    params: &WorldParams,
    now: f64,
    dt: f32,
    others: &portal::Others<'_>,
) {
    let (tolerance, slowdown) = (params.arrival_tolerance, params.slowdown_time);
    let arrive = goal.arrive;
    let goal = a.reachable_goal.unwrap_or(goal.position);
    advance_waypoint(a);
    let last = a.waypoints.len().saturating_sub(1);
    let to_goal = goal.distance(a.position);
    if to_goal <= arrive {
        a.preferred_velocity = Vec2::ZERO;
        if a.arrived_at.is_none() {
            a.arrived_at = Some(now);
        }
        a.collided = false;
        return;
    }
    let (target, dist) = if a.next_waypoint >= last {
        // Slow down towards the goal point itself (or the contact distance of a chased
        // body), so the arrival circle is entered, not crept at.
        (goal, to_goal - (arrive - tolerance))
    } else {
        (portal_target(a, others), f32::INFINITY)
    };
    let dir = (target - a.position).normalize_or_zero();
    // A moving goal is met at full speed; a fixed one is approached slowly.
    let ease = match a.goal {
        Goal::Point(_) => dist / slowdown.max(1e-3),
        _ => f32::INFINITY,
    };
    let speed = a.pref_speed.min(ease).min(dist / dt).max(0.0);
    a.preferred_velocity = dir * speed;
}

/// Where agent `a` heads for its next waypoint (not the last): a point of the door's
/// width when the waypoint lies on the corner of a portal ([`portal`]), else the
/// waypoint. Drops the rest of a portal's waypoints once past it.
fn portal_target(a: &mut Agent, others: &portal::Others<'_>) -> Vec2 {
    let last = a.waypoints.len().saturating_sub(1);
    let mut w = a.waypoints[a.next_waypoint];
    while let Some(p) = portal::portal_at(&a.portals, w, a.radius) {
        let corner = *p;
        let on_corner =
            |w: Vec2| portal::portal_at(std::slice::from_ref(&corner), w, a.radius).is_some();
        // The first waypoint past the corner.
        let beyond = a.waypoints[a.next_waypoint..]
            .iter()
            .copied()
            .find(|&w| !on_corner(w))
            .unwrap_or(a.waypoints[last]);
        match corner.choose(a.position, a.radius, beyond, others) {
            portal::AtPortal::Head(target) => return target,
            portal::AtPortal::Follow => return w,
            portal::AtPortal::Passed => {
                while a.next_waypoint < last && on_corner(w) {
                    a.next_waypoint += 1;
                    w = a.waypoints[a.next_waypoint];
                }
                if a.next_waypoint >= last {
                    return w;
                }
            }
        }
    }
    w
}

/// The path for an agent, or `None` (it then heads straight for the goal). A goal the
/// disc cannot reach (inside an obstacle, off the mesh, nearer a wall than the radius,
/// or beyond gaps narrower than the disc) is replaced by the nearest point it can
/// reach; a start nearer a wall than the radius (pushed there by the crowd) plans for
/// the widest disc that fits there.
fn plan(mesh: &NavMesh, start: Vec2, goal: Vec2, radius: f32) -> Option<Path> {
    match mesh.find_path(start, goal, radius) {
        Ok(p) => Some(p),
        Err(PathError::NoRoom {
            endpoint: Endpoint::Start,
            ..
        }) => {
            // Pushed nearer a wall than its radius: plan for the widest disc that fits
            // here, to the nearest point that disc can reach.
            let r = mesh.clearance(start)?.min(radius) * 0.99;
            let goal = mesh.nearest_reachable(start, goal, r)?;
            mesh.find_path(start, goal, r).ok()
        }
        Err(
            PathError::NoRoom {
                endpoint: Endpoint::Goal,
                ..
            }
            | PathError::InObstacle(Endpoint::Goal)
            | PathError::OutsideMesh(Endpoint::Goal)
            | PathError::NoPath(_),
        ) => {
            let goal = mesh.nearest_reachable(start, goal, radius)?;
            mesh.find_path(start, goal, radius).ok()
        }
        Err(_) => None,
    }
}

/// The points an agent steers through: the path's start, its tangent points (arcs
/// split so that no chord sweeps more than 30°, keeping the chord within 4 % of the
/// radius of the arc) and its goal.
fn waypoints_of(path: &Path, out: &mut Vec<Vec2>) {
    out.push(path.start());
    for piece in path.pieces() {
        match *piece {
            PathPiece::Line { to, .. } => out.push(to),
            PathPiece::Arc { sweep, to, .. } => {
                let n = (sweep.abs() / 30f32.to_radians()).ceil().max(1.0) as usize;
                for k in 1..n {
                    out.push(piece.point_at(k as f32 / n as f32));
                }
                out.push(to);
            }
        }
    }
    out.push(path.goal());
    out.dedup_by(|a, b| a.distance_squared(*b) < 1e-10);
    if out.len() == 1 {
        out.push(path.goal());
    }
}

/// Moves `next_waypoint` past the points the agent has reached or passed.
fn advance_waypoint(a: &mut Agent) {
    let last = a.waypoints.len().saturating_sub(1);
    let reach = (0.05 * a.radius).max(0.01);
    while a.next_waypoint < last {
        let w = a.waypoints[a.next_waypoint];
        let prev = a.waypoints[a.next_waypoint - 1];
        let seg = w - prev;
        let passed =
            seg.length_squared() > 0.0 && (a.position - prev).dot(seg) >= seg.length_squared();
        if a.position.distance(w) <= reach || passed {
            a.next_waypoint += 1;
        } else {
            break;
        }
    }
    if a.next_waypoint >= 1 && a.next_waypoint <= last {
        let (prev, w) = (
            a.waypoints[a.next_waypoint - 1],
            a.waypoints[a.next_waypoint],
        );
        let off = closest_point_on_segment(a.position, prev, w).distance(a.position);
        if off > (2.0 * a.radius).max(1.0) {
            a.needs_plan = true;
        }
    }
}

/// How many nearest agents [`nearest_cover`] takes collision candidates from: the
/// default `max_neighbors`.
const NEAREST_COVER: usize = 10;

/// Whether the nearest agents `near` of body `a` (agent indices, found at the grid's
/// positions when it steered, the furthest `reach` metres away; `u32::MAX` first when
/// unknown) hold every agent that may be its collision candidate now: every one
/// within `a.radius + 2 max_r` of `a` now lay within that plus `2 widen` then (both
/// moved at most `widen`), and lies among them when they reach further (less a margin
/// for rounding).
fn nearest_cover(a: &Body, max_r: f32, widen: f32, reach: f32, near: &[u32]) -> bool {
    if near.len() != NEAREST_COVER || near.first().is_none_or(|&j| j == u32::MAX) {
        return false;
    }
    let within = (a.radius + 2.0 * (max_r + widen)) * (1.0 + 1e-3)
        + 1e-5 * (1.0 + a.position.abs().max_element());
    // (A NaN fails the test.)
    reach > within
}

/// What an agent's neighbour search remembers from the last step: how far its
/// furthest neighbour lay, and which agents its neighbours were (see
/// `World::last_neighbors`).
type Memory<'m> = (&'m mut f32, &'m mut [u32]);

/// The hint for the neighbour search of an agent at `p` (see
/// [`PointGrid::nearest_hinted`]): when `last` names its nearest agents of the last
/// step, how far the furthest of them lies now (a little more, for rounding), within
/// which its nearest certainly lie; else `fallback`. `crowd` holds every agent. Only
/// the time of the search depends on the hint, never its answer.
fn neighbor_hint(p: Vec2, fallback: f32, last: &[u32], crowd: &[Neighbor]) -> f32 {
    if last.first().is_none_or(|&j| j == u32::MAX) {
        return fallback;
    }
    // The largest squared distance by its bits (squares are never negative, so their
    // bits order as they do): an integer maximum, without a branch. A NaN comes out on
    // top, and makes a NaN hint, which the search ignores.
    let mut furthest = 0u32;
    for &j in last {
        let Some(b) = crowd.get(j as usize) else {
            return fallback;
        };
        furthest = furthest.max(p.distance_squared(b.position).to_bits());
    }
    f32::from_bits(furthest).sqrt() * (1.0 + 1e-4)
}

/// Fills `s.sorted` with agent `i`'s nearest `max_neighbors` agents within
/// `neighbor_dist`, then every moving obstacle in range, nearest first; the search
/// starts with every agent within `hint` (see [`PointGrid::nearest_hinted`]), and
/// `last` receives the agents found when they are `max_neighbors` (else `u32::MAX`
/// first). Returns how far the furthest of those agents lies (the range when fewer
/// were found).
fn gather_neighbors(
    i: usize,
    a: &Agent,
    (hint, last): (f32, &mut [u32]),
    (seen, obstacles, grid): (SeenCrowd<'_>, &[MovingObstacle], &PointGrid),
    params: &WorldParams,
    s: &mut SteerScratch,
) -> f32 {
    let range = params.neighbor_dist;
    // Keys (squared distance, index) sorted; obstacles are indexed `u32::MAX - j`.
    let k = params.max_neighbors;
    let found = grid.nearest_keys(a.position, range, k, Some(i as u32), hint, &mut s.neighbors);
    if found.len() == k && last.len() == k {
        for (slot, &key) in last.iter_mut().zip(found) {
            *slot = key as u32;
        }
    } else if let Some(first) = last.first_mut() {
        *first = u32::MAX;
    }
    let reach = match found.last() {
        Some(&key) if found.len() == k => key_distance_squared(key).sqrt(),
        _ => range,
    };
    s.sorted.clear();
    if obstacles.is_empty() && seen.one_rank {
        // Agents only, each seen as it is: whole records copied. (The grid holds
        // exactly the agents, so every index names one.)
        let all = seen.as_neighbors;
        s.sorted
            .extend(found.iter().map(|&key| all[key as u32 as usize]));
        return reach;
    }
    let found = found.len();
    s.neighbors.truncate(found);
    for (j, o) in obstacles.iter().enumerate() {
        let d2 = a.position.distance_squared(o.position);
        let reach = range + o.radius;
        // (A NaN fails the test; a squared distance is never negative.)
        if d2 <= reach * reach {
            let key = key_of(d2, u32::MAX - j as u32);
            let at = s.neighbors.partition_point(|e| *e < key);
            s.neighbors.insert(at, key);
        }
    }
    // An agent resting at its goal yields to one on its way (or on its way back): it
    // sees the passer-by moving as it wants to, not as it is blocked, and makes way;
    // pushed off its goal, it walks back, still yielding to agents on their way.
    // (A passer-by that never arrived has right of way over every agent that has,
    // resting or walking back; one walking back over those resting.)
    let rank = right_of_way(a);
    s.sorted.reserve(s.neighbors.len());
    for &key in &s.neighbors {
        let j = key as u32;
        let neighbor = match (seen.as_neighbors.get(j as usize), seen.all.get(j as usize)) {
            (Some(&n), Some(b)) => Neighbor {
                velocity: if b.rank > rank {
                    b.preferred_velocity
                } else {
                    n.velocity
                },
                ..n
            },
            _ => {
                let Some(o) = obstacles.get((u32::MAX - j) as usize) else {
                    continue;
                };
                Neighbor {
                    position: o.position,
                    velocity: o.velocity,
                    radius: o.radius,
                    preferred_velocity: o.velocity,
                    kind: NeighborKind::Obstacle,
                }
            }
        };
        s.sorted.push(neighbor);
    }
    reach
}

/// Most passes of collision response per call of `World::resolve_contacts`: the
/// first nearly always suffices; more follow bodies that depenetration pushed further
/// than the candidates' margin (agents started on top of each other).
const RESOLVE_PASSES: usize = 8;

/// Most rounds of putting agents back on the mesh and resolving the contacts that
/// makes, per step (see `World::keep_on_mesh`); one or two are enough but where agents
/// stand in a gap narrower than their diameter.
const PUT_BACK_ROUNDS: usize = 4;

/// The point just inside the wall nearest to `p` (one radius in from it), or `None`
/// when no wall is known near `p`.
fn nearest_inside(
    p: Vec2,
    radius: f32,
    walls: &[Segment],
    grid: &WallGrid,
    ids: &mut Vec<u32>,
) -> Option<Vec2> {
    let mut range = 1.0f32;
    for _ in 0..24 {
        grid.walls_near(p, range, ids);
        let best = ids
            .iter()
            .map(|&w| walls[w as usize])
            .map(|w| (w.distance_squared(p), w))
            .filter(|(d2, _)| *d2 <= range * range)
            .min_by(|x, y| x.0.total_cmp(&y.0));
        if let Some((_, w)) = best {
            let q = w.closest_point(p);
            let normal = (w.b - w.a).perp().normalize_or_zero();
            return Some(q + normal * radius.max(1e-3));
        }
        range *= 2.0;
    }
    None
}

/// Cell size for the wall grid: about four average wall lengths, at least 1 m.
fn wall_cell_size(walls: &[Segment]) -> f32 {
    if walls.is_empty() {
        return 1.0;
    }
    let mean = walls.iter().map(|w| w.length()).sum::<f32>() / walls.len() as f32;
    (4.0 * mean).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::Orca;

    #[test]
    fn nearest_agents_cover_the_candidates_only_when_they_reach_past_them() {
        let a = Body::new(Vec2::new(3.0, -4.0), Vec2::ZERO, 0.5, 1.0);
        let near: Vec<u32> = (1..=10).collect();
        // Candidates lie within 0.5 + 2 (0.5 + 0.1) = 1.7 m, plus the margin.
        assert!(nearest_cover(&a, 0.5, 0.1, 1.8, &near));
        assert!(!nearest_cover(&a, 0.5, 0.1, 1.7, &near));
        assert!(!nearest_cover(&a, 0.5, 0.1, f32::NAN, &near));
        assert!(!nearest_cover(&a, 0.5, 0.1, 1.8, &near[..9]));
        let unknown = [u32::MAX; 10];
        assert!(!nearest_cover(&a, 0.5, 0.1, 1.8, &unknown));
    }

    #[test]
    fn the_hint_is_how_far_the_last_nearest_lie_now() {
        let at = |x: f32, y: f32| Neighbor {
            position: Vec2::new(x, y),
            velocity: Vec2::ZERO,
            radius: 0.5,
            preferred_velocity: Vec2::ZERO,
            kind: NeighborKind::Agent,
        };
        let crowd = [at(0.0, 0.0), at(3.0, 4.0), at(1.0, 0.0), at(0.0, -2.0)];
        let hint = neighbor_hint(Vec2::ZERO, 9.0, &[2, 1, 3], &crowd);
        assert!((5.0..5.001).contains(&hint), "{hint}");
        // Unknown or stale: the fallback.
        assert_eq!(neighbor_hint(Vec2::ZERO, 9.0, &[u32::MAX, 1], &crowd), 9.0);
        assert_eq!(neighbor_hint(Vec2::ZERO, 9.0, &[1, 4], &crowd), 9.0);
        assert_eq!(neighbor_hint(Vec2::ZERO, 9.0, &[], &crowd), 9.0);
        // A NaN position makes a NaN hint, which the search ignores.
        let lost = [at(1.0, 0.0), at(f32::NAN, 0.0)];
        assert!(neighbor_hint(Vec2::ZERO, 9.0, &[0, 1], &lost).is_nan());
    }

    /// Every pair of bodies no further apart than touching plus the largest radius, in
    /// order, by brute force.
    fn close_pairs(bodies: &[Body], max_r: f32) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for (i, a) in bodies.iter().enumerate() {
            for (j, b) in bodies.iter().enumerate().skip(i + 1) {
                let reach = a.radius + b.radius + max_r;
                if a.position.distance_squared(b.position) <= reach * reach {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
        pairs
    }

    /// Two facing blocks of 12 × 12 agents 1.1 m apart, radius 0.5 (0.3 for every
    /// third), walking through each other; and, when `big`, a far agent of that radius.
    fn facing_blocks(big: Option<f32>) -> World {
        let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
        for side in [-1.0f32, 1.0] {
            for k in 0..144 {
                let (x, y) = ((k % 12) as f32 * 1.1, (k / 12) as f32 * 1.1);
                let start = Vec2::new(side * (x + 1.0), y);
                let radius = if k % 3 == 0 { 0.3 } else { 0.5 };
                world
                    .add_agent(
                        AgentParams::new(start, start - Vec2::new(side * 30.0, 0.0))
                            .with_radius(radius),
                    )
                    .expect("agent");
            }
        }
        if let Some(radius) = big {
            let far = Vec2::new(0.0, 100.0);
            world
                .add_agent(AgentParams::new(far, far).with_radius(radius))
                .expect("agent");
        }
        world
    }

    /// Steps `world` `steps` times, checking at each step that the collision
    /// candidates are every close pair; returns how many times an agent took them from
    /// its nearest agents.
    fn check_candidates(world: &mut World, steps: usize) -> usize {
        let dt = 0.1;
        let mut covered = 0;
        for _ in 0..steps {
            // `World::step`'s halves, the candidates checked between them.
            let moved = world.move_agents(dt);
            let n = world.agents.len();
            let slots = world.neighbor_slots();
            let max_r = world.radii.1;
            covered += (0..n)
                .filter(|&i| {
                    let near = &world.last_neighbors[i * slots..(i + 1) * slots];
                    let reach = world.neighbor_reach[i];
                    nearest_cover(&world.bodies[i], max_r, moved, reach, near)
                })
                .count();
            world.find_candidates(max_r, moved);
            assert_eq!(world.pairs, close_pairs(&world.bodies, max_r));
            world.settle(dt, moved);
        }
        covered
    }

    #[test]
    fn collision_candidates_taken_from_the_nearest_agents_are_every_close_pair() {
        let covered = check_candidates(&mut facing_blocks(None), 60);
        // Most of the 60 × 288 agent-steps took their candidates from their nearest
        // agents: a coverage floor, so the check above tests the shortcut. Measured: 16 561.
        assert!(covered > 60 * 288 / 2, "{covered}");
    }

    #[test]
    fn collision_candidates_beyond_the_nearest_agents_come_from_the_grid() {
        // A large radius somewhere widens every agent's candidates past its nearest ten.
        let covered = check_candidates(&mut facing_blocks(Some(2.5)), 60);
        // So no agent-step took the nearest agents' shortcut: all came from the grid.
        assert_eq!(covered, 0);
    }
}
