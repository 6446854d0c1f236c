//! [`World`]: its state, its public surface, and its step as a sequence of phases,
//! each in a file of its own with its own scratch.

use super::agent::{
    Agent, AgentEvent, AgentId, AgentParams, AgentState, Goal, Motion, MovingObstacle, ObstacleId,
    Settling, Touched,
};
use super::contacts::{self, Contacts};
use super::follow::{self, FollowScratch};
use super::follow::{ARRIVED, NO_PATH, REPLANNED};
use super::handles::Slots;
use super::index::{PointIndex, Walls};
use super::integrate::integrate;
use super::keep_on_mesh::keep_on_mesh;
use super::measure::{self, MeasureScratch};
use super::neighbors::NeighborMemory;
use super::params::{BadValue, Metrics, Quantity, WorldError, WorldParams};
use super::steering::{self, SteerPhase};
use crate::collide::Collider;
use crate::collide::CollisionEvent;
use crate::geom::Segment;
use crate::mesh::NavMesh;
use crate::steer::{SteerDebug, Steering};
use glam::Vec2;

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
/// assert!(world.agent(id).is_some_and(|a| a.is_arrived()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct World {
    pub(super) mesh: Option<NavMesh>,
    pub(super) walls: Walls,
    pub(super) steering: Box<dyn Steering>,
    pub(super) params: WorldParams,
    pub(super) crowd: Crowd,
    pub(super) obstacles: Vec<MovingObstacle>,
    clock: Clock,
    pub(super) metrics: Metrics,
    /// The agents' point grid, rebuilt at the end of every step.
    pub(super) index: PointIndex,
    pub(super) phases: Phases,
    /// What happened to agents in the last step.
    pub(super) agent_events: Vec<AgentEvent>,
}

/// The agents and what is kept about them as a whole.
#[derive(Debug)]
pub(super) struct Crowd {
    /// The agents, in the order they were added (a removal moves the later ones down).
    pub agents: Vec<Agent>,
    /// Which agent each live id names.
    pub slots: Slots,
    /// The smallest and largest agent radius (`INFINITY` and 0 without agents), kept
    /// as agents are added, changed and removed.
    pub radii: (f32, f32),
    /// How many agents chase a body (an agent or a moving obstacle).
    pub chasers: usize,
    /// How many agents the game drives ([`Agent::driven_velocity`]) and how many it
    /// points ([`Agent::preferred_velocity_override`]): the phases look for them only
    /// when there are some.
    pub driven: usize,
    pub pointed: usize,
}

/// The phases' scratch and memories, each owned by its phase.
#[derive(Debug)]
pub(super) struct Phases {
    pub follow: FollowScratch,
    pub neighbors: NeighborMemory,
    pub steer: SteerPhase,
    pub contacts: Contacts,
    pub measure: MeasureScratch,
}

/// Time and step count, now and at the start of the measuring period.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    time: f64,
    steps: u64,
    metrics_start_time: f64,
    metrics_start_step: u64,
}

impl World {
    /// A world on `mesh` (or open ground when `None`), steered by `steering`. A
    /// steering method that chooses its neighbours ([`Steering::neighborhood`]) sets
    /// `params`' [`neighbor_dist`](WorldParams::neighbor_dist) and
    /// [`max_neighbors`](WorldParams::max_neighbors).
    pub fn new(mesh: Option<NavMesh>, steering: Box<dyn Steering>, params: WorldParams) -> World {
        let params = params.following(steering.as_ref());
        World {
            walls: Walls::of(mesh.as_ref()),
            mesh,
            steering,
            params,
            crowd: Crowd {
                agents: Vec::new(),
                slots: Slots::default(),
                radii: (f32::INFINITY, 0.0),
                chasers: 0,
                driven: 0,
                pointed: 0,
            },
            obstacles: Vec::new(),
            clock: Clock::default(),
            metrics: Metrics {
                min_separation: f32::INFINITY,
                ..Metrics::default()
            },
            index: PointIndex::default(),
            phases: Phases {
                follow: FollowScratch::default(),
                neighbors: NeighborMemory::default(),
                steer: SteerPhase::default(),
                contacts: Contacts::new(params.collide),
                measure: MeasureScratch::default(),
            },
            agent_events: Vec::new(),
        }
    }

    /// Adds an agent; it plans its path at the next step.
    ///
    /// # Errors
    /// [`WorldError::InvalidAgent`] for NaN or infinite positions or goals, or a
    /// radius, speed or mass that is not positive and finite;
    /// [`WorldError::UnknownGoal`] for a goal naming an agent or obstacle that is not
    /// in the world. The world is left unchanged.
    pub fn add_agent(&mut self, p: AgentParams) -> Result<AgentId, WorldError> {
        let index = self.crowd.agents.len();
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
        let id = self.crowd.slots.next_id();
        self.check_goal(index, id, p.goal)?;
        let id = self.crowd.slots.insert(index);
        self.index.invalidate();
        self.crowd.radii = (
            self.crowd.radii.0.min(p.radius),
            self.crowd.radii.1.max(p.radius),
        );
        self.crowd.chasers += usize::from(!matches!(p.goal, Goal::Point(_)));
        self.crowd.agents.push(Agent {
            id,
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
            spot: None,
            needs_plan: true,
            improve: false,
            arrived_at: None,
            travelled: 0.0,
            shortest: None,
            collided: false,
            driven: None,
            wanted: None,
            priority: 0,
            state: AgentState::Moving,
            idle: false,
            progress: (p.position, self.clock.time),
            settling: Settling::new(self.clock.time),
            carried_for: 0.0,
            carried_since: f64::NAN,
            place_taken: false,
        });
        Ok(id)
    }

    /// Whether agent `id` (at `index`) may be given `goal`: a finite point, another
    /// agent in the world, or a moving obstacle of the world.
    fn check_goal(&self, index: usize, id: AgentId, goal: Goal) -> Result<(), WorldError> {
        match goal {
            Goal::Point(g) if !g.is_finite() => Err(WorldError::InvalidAgent {
                index,
                problem: BadValue::NotFinite(Quantity::Goal),
            }),
            Goal::Agent(a) if a == id || self.crowd.slots.index_of(a).is_none() => {
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
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world (never was,
    /// or was removed); as [`World::add_agent`] for the goal. The world is left
    /// unchanged.
    pub fn set_goal(&mut self, id: AgentId, goal: Goal) -> Result<(), WorldError> {
        let index = self.index_of_checked(id)?;
        self.check_goal(index, id, goal)?;
        let a = &mut self.crowd.agents[index];
        let chases = |g: Goal| usize::from(!matches!(g, Goal::Point(_)));
        self.crowd.chasers = self.crowd.chasers - chases(a.goal) + chases(goal);
        a.goal = goal;
        a.spot = None;
        a.needs_plan = true;
        a.idle = false;
        a.arrived_at = None;
        a.shortest = None;
        a.travelled = 0.0;
        a.settling = Settling::new(self.clock.time);
        Ok(())
    }

    /// Adds a scripted moving obstacle of radius `radius`.
    ///
    /// # Errors
    /// [`WorldError::InvalidObstacle`] for a radius that is not positive and finite or a
    /// motion with NaN or infinite numbers.
    pub fn add_obstacle(&mut self, radius: f32, motion: Motion) -> Result<ObstacleId, WorldError> {
        let index = self.obstacles.len();
        let (position, velocity) = motion.state_at(self.clock.time);
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

    /// The agents, in the order they were added (removing one moves the later ones
    /// down one place; their ids stay as they were). Collision events and metrics name
    /// agents by their place here.
    pub fn agents(&self) -> &[Agent] {
        &self.crowd.agents
    }

    /// The agent `id` names, or `None` when it names none (it was removed, or is of
    /// another world).
    pub fn agent(&self, id: AgentId) -> Option<&Agent> {
        self.crowd.agents.get(self.crowd.slots.index_of(id)?)
    }

    /// The place in [`World::agents`] of the agent `id` names, or `None` when it names
    /// none.
    pub fn index_of(&self, id: AgentId) -> Option<usize> {
        self.crowd.slots.index_of(id)
    }

    /// [`World::index_of`], or the error that `id` names no agent.
    fn index_of_checked(&self, id: AgentId) -> Result<usize, WorldError> {
        self.crowd
            .slots
            .index_of(id)
            .ok_or(WorldError::UnknownAgent(id))
    }

    /// Removes an agent from the world and returns it. Every other agent keeps its
    /// id; the agents added after it move down one place in [`World::agents`] (and in
    /// the last step's [`World::events`], whose events with it are dropped). An agent
    /// chasing it ([`Goal::Agent`]) stops where it is: its goal becomes the point it
    /// stands on.
    ///
    /// Costs time in proportion to the number of agents (the dense list is kept in
    /// order, so that every phase iterates the agents in a fixed order).
    ///
    /// # Errors
    /// [`WorldError::UnknownAgent`] when `id` names no agent of the world (never was,
    /// or already removed); the world is left unchanged.
    ///
    /// # Example
    /// ```
    /// use crowdnav::world::{AgentParams, World, WorldError, WorldParams};
    /// use crowdnav::Orca;
    /// use glam::Vec2;
    ///
    /// let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
    /// let a = world.add_agent(AgentParams::new(Vec2::ZERO, Vec2::new(5.0, 0.0)))?;
    /// let b = world.add_agent(AgentParams::new(Vec2::new(0.0, 3.0), Vec2::new(5.0, 3.0)))?;
    /// world.remove_agent(a)?;
    /// assert_eq!(world.remove_agent(a).err(), Some(WorldError::UnknownAgent(a)));
    /// let c = world.add_agent(AgentParams::new(Vec2::ZERO, Vec2::new(5.0, 0.0)))?;
    /// assert!(world.agent(a).is_none() && world.agent(b).is_some() && c != a);
    /// # Ok::<(), WorldError>(())
    /// ```
    pub fn remove_agent(&mut self, id: AgentId) -> Result<Agent, WorldError> {
        let index = self.index_of_checked(id)?;
        let gone = self.crowd.agents.remove(index);
        self.crowd.slots.remove(id, &self.crowd.agents, index);
        let chases = |g: Goal| usize::from(!matches!(g, Goal::Point(_)));
        self.crowd.chasers -= chases(gone.goal);
        self.crowd.driven -= usize::from(gone.driven.is_some());
        self.crowd.pointed -= usize::from(gone.wanted.is_some());
        for a in &mut self.crowd.agents {
            if a.goal == Goal::Agent(id) {
                // The chase is over: it stays where it is.
                a.goal = Goal::Point(a.position);
                a.spot = None;
                a.needs_plan = true;
                a.idle = true;
                self.crowd.chasers -= 1;
            }
        }
        if gone.radius <= self.crowd.radii.0 || gone.radius >= self.crowd.radii.1 {
            self.crowd.radii = super::control::radii_of(&self.crowd.agents);
        }
        self.agent_events.retain(|e| !e.concerns(id));
        self.index.invalidate();
        self.phases
            .neighbors
            .remove(index, NeighborMemory::slots(&self.params));
        self.phases.steer.remove(index);
        self.phases.contacts.remove(index);
        Ok(gone)
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
        &self.walls.segments
    }

    /// The steering method.
    pub fn steering(&self) -> &dyn Steering {
        self.steering.as_ref()
    }

    /// Replaces the steering method (and the neighbourhood the world searches, when the
    /// method chooses its own, see [`WorldParams::neighbor_dist`]).
    pub fn set_steering(&mut self, steering: Box<dyn Steering>) {
        let params = self.params.following(steering.as_ref());
        if params != self.params {
            self.phases.neighbors = NeighborMemory::default();
            self.params = params;
        }
        self.steering = steering;
    }

    /// The world's tuning.
    pub fn params(&self) -> &WorldParams {
        &self.params
    }

    /// Seconds simulated so far.
    pub fn time(&self) -> f64 {
        self.clock.time
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.clock.steps
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
        self.clock.metrics_start_time = self.clock.time;
        self.clock.metrics_start_step = self.clock.steps;
    }

    /// Time when the current measuring period started, seconds.
    pub fn metrics_start_time(&self) -> f64 {
        self.clock.metrics_start_time
    }

    /// Step count when the current measuring period started.
    pub fn metrics_start_step(&self) -> u64 {
        self.clock.metrics_start_step
    }

    /// What happened to agents in the last step, in this order: re-plans, failed plans
    /// and arrivals (in agent order), then collisions (as
    /// [`Metrics::collisions`] and [`Metrics::wall_contacts`] count them).
    /// Removing an agent drops its events.
    pub fn agent_events(&self) -> &[AgentEvent] {
        &self.agent_events
    }

    /// The collision events of the last step. `body` indexes the agents; `other` is
    /// [`Collider::Body`] with an agent index, or with `agents().len() + k` for moving
    /// obstacle `k`, or [`Collider::Wall`] indexing [`World::walls`].
    pub fn events(&self) -> &[CollisionEvent] {
        &self.phases.contacts.events
    }

    /// Asks the steering method to record its debug vectors for every agent from the
    /// next step on (or stops it). Costs time and memory; for viewers and tests.
    pub fn set_record_debug(&mut self, on: bool) {
        self.phases.steer.record_debug = on;
    }

    /// The debug vectors the steering method recorded for `id` in the last step, when
    /// [`World::set_record_debug`] is on (for anti-gravity: `"raw"`, `"adjusted"`,
    /// `"sum"`, `"final"`; for ORCA: `"orca_line"`, `"preferred"`, `"final"`).
    pub fn steer_debug(&self, id: AgentId) -> Option<&SteerDebug> {
        self.phases.steer.debug.get(self.crowd.slots.index_of(id)?)
    }

    /// Replaces the navigation mesh (a level edited live: an obstacle dragged, added
    /// or removed): walls are rebuilt and every agent plans its path again at the next
    /// step. Agents now inside an obstacle are put back on the mesh by the step. To
    /// change a few obstacles, [`World::add_mesh_obstacle`] and its kin edit the mesh in
    /// place and re-plan only the agents concerned.
    pub fn set_mesh(&mut self, mesh: Option<NavMesh>) {
        self.walls = Walls::of(mesh.as_ref());
        self.mesh = mesh;
        for a in &mut self.crowd.agents {
            a.needs_plan = true;
        }
    }

    /// Whether every agent is at its goal now.
    pub fn all_arrived(&self) -> bool {
        self.crowd.agents.iter().all(Agent::is_arrived)
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

    /// The step's first half: the phases *follow paths*, *steer* (the neighbours found
    /// on the way) and *integrate*. Returns how far the furthest agent moved, metres.
    pub(super) fn move_agents(&mut self, dt: f32) -> f32 {
        if !self.index.is_fresh() {
            self.index.rebuild(
                &self.crowd.agents,
                self.crowd.radii.1,
                self.params.neighbor_dist,
            );
        }
        follow::follow_paths(
            &mut self.crowd.agents,
            &mut self.phases.follow,
            &follow::Surroundings {
                slots: &self.crowd.slots,
                mesh: self.mesh.as_ref(),
                params: &self.params,
                walls: &self.walls,
                index: &self.index,
                obstacles: &self.obstacles,
                chasers: self.crowd.chasers,
                controlled: self.crowd.driven + self.crowd.pointed > 0,
                now: self.clock.time,
                reciprocal: self.steering.reciprocal(),
            },
            dt,
        );
        self.agent_events.clear();
        for (a, &happened) in self.crowd.agents.iter().zip(&self.phases.follow.happened) {
            if happened == 0 {
                continue;
            }
            if happened & REPLANNED != 0 {
                self.agent_events.push(AgentEvent::Replanned(a.id));
                self.metrics.replans += 1;
            }
            if let (true, AgentState::NoPath(error)) = (happened & NO_PATH != 0, &a.state) {
                self.agent_events.push(AgentEvent::NoPath {
                    agent: a.id,
                    error: error.clone(),
                });
            }
            if happened & ARRIVED != 0 {
                self.agent_events.push(AgentEvent::Arrived(a.id));
            }
        }
        self.phases.steer.run(
            &self.crowd.agents,
            &mut self.phases.neighbors,
            &steering::Surroundings {
                obstacles: &self.obstacles,
                index: &self.index,
                walls: &self.walls,
                steering: self.steering.as_ref(),
                any_driven: self.crowd.driven > 0,
                params: &self.params,
            },
            dt,
        );
        integrate(
            &mut self.crowd.agents,
            &self.phases.steer.velocities,
            dt,
            &mut self.phases.contacts.bodies,
            self.params.collisions,
            self.crowd.driven > 0,
        )
    }

    /// The step's second half, after agents moved up to `moved` metres: time, moving
    /// obstacles, the phases *contacts* and *keep on mesh*, the grid, and the phase
    /// *measure*.
    pub(super) fn settle(&mut self, dt: f32, moved: f32) {
        self.phases.neighbors.moved = moved;
        self.clock.time += f64::from(dt);
        let t = self.clock.time;
        for o in &mut self.obstacles {
            (o.position, o.velocity) = o.motion.state_at(t);
        }
        self.index.invalidate();
        // The grid still holds the positions before `integrate`, none further than
        // `moved` from where they are now.
        let env = contacts::Surroundings {
            obstacles: &self.obstacles,
            index: &self.index,
            walls: &self.walls,
            memory: &self.phases.neighbors,
            slots: NeighborMemory::slots(&self.params),
            radii: self.crowd.radii,
            collide: self.params.collide,
        };
        let collisions = self.params.collisions;
        let resolved = self.phases.contacts.collide(
            &mut self.crowd.agents,
            &env,
            &mut self.metrics,
            moved,
            collisions,
        );
        let put_back = keep_on_mesh(
            &mut self.crowd.agents,
            self.mesh.as_ref(),
            &mut self.phases.contacts,
            &env,
            &mut self.metrics,
            moved + resolved.pushed,
            collisions,
        );
        let n = self.crowd.agents.len();
        for &(body, other) in &self.phases.contacts.counted {
            let Some(a) = self.crowd.agents.get(body as usize) else {
                continue;
            };
            let with = match other {
                Collider::Body(j) if (j as usize) < n => {
                    Touched::Agent(self.crowd.agents[j as usize].id)
                }
                Collider::Body(j) => Touched::Obstacle(ObstacleId(j - n as u32)),
                Collider::Wall(w) => Touched::Wall(w),
            };
            self.agent_events
                .push(AgentEvent::Collided { agent: a.id, with });
        }
        self.index.rebuild(
            &self.crowd.agents,
            self.crowd.radii.1,
            self.params.neighbor_dist,
        );
        measure::measure(
            &mut self.phases.measure,
            &measure::Surroundings {
                seen: self.phases.steer.seen(),
                index: &self.index,
                candidates: &self.phases.contacts.candidates,
                from_candidates: resolved.covers_measure && !put_back,
                max_r: self.crowd.radii.1,
            },
            &mut self.metrics,
        );
        self.clock.steps += 1;
    }
}

#[cfg(test)]
#[path = "phases_test.rs"]
mod phases_test;
