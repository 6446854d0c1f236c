//! What a scenario does while it runs: timed events (spawn, remove, drive an agent,
//! close and open a door of the level), sources that spawn agents at a rate into an
//! area, and sinks that remove the agents that arrive in them.
//!
//! A [`Script`] is made from a scenario and the world [`Scenario::build`] built, and
//! drives that world between steps: [`Script::before_step`] applies what is due,
//! [`Script::after_step`] empties the sinks. It also keeps the scenario's numbering of
//! agents: the listed, formation and ring agents are 0, 1, … in the order
//! [`Scenario::all_agents`] gives them, and every agent spawned later (by an event or a
//! source) takes the next number, in the order spawned. Events name agents by that
//! number, and trajectories use it ([`Script::scenario_index`]), so an agent keeps its
//! number when others are removed.

use super::file::{AgentSpec, GoalSpec, Scenario, ScenarioError};
use crate::mesh::{Location, MeshObstacleId, NavMesh};
use crate::world::{AgentId, AgentParams, Goal, World, WorldError};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A rectangle `[[x0, y0], [x1, y1]]`, given by two opposite corners in any order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "[Vec2; 2]", into = "[Vec2; 2]")]
pub struct Area {
    /// The corner with the smaller coordinates.
    pub min: Vec2,
    /// The corner with the larger coordinates.
    pub max: Vec2,
}

impl From<[Vec2; 2]> for Area {
    fn from([a, b]: [Vec2; 2]) -> Area {
        Area {
            min: a.min(b),
            max: a.max(b),
        }
    }
}

impl From<Area> for [Vec2; 2] {
    fn from(area: Area) -> [Vec2; 2] {
        [area.min, area.max]
    }
}

impl Area {
    /// Whether `p` lies inside or on the border.
    pub fn contains(&self, p: Vec2) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// Whether both corners are finite and it has an inside (positive width and height).
    fn is_valid(&self) -> bool {
        self.min.is_finite()
            && self.max.is_finite()
            && (self.max - self.min).cmpgt(Vec2::ZERO).all()
    }

    /// A point drawn uniformly from it.
    fn sample(&self, rng: &mut ChaCha8Rng) -> Vec2 {
        let t = Vec2::new(rng.gen::<f32>(), rng.gen::<f32>());
        (self.min + (self.max - self.min) * t).clamp(self.min, self.max)
    }
}

/// A timed event of a scenario: at `at` seconds since the start, one action.
///
/// In a scenario file: `{"at": 2.0, "spawn": {agent}}`, `{"at": 5.0, "remove": 3}`,
/// `{"at": 1.0, "drive": 0, "velocity": [1.2, 0.0]}` (the agent goes exactly at that
/// velocity, not steered, and the others avoid it), `{"at": 4.0, "drive": 0,
/// "velocity": null}` (handed back to its goal), `{"at": 3.0, "retarget": 2,
/// "goal": [x, y]}`, and `{"at": 6.0, "close": "west"}`, `{"at": 9.0, "open": "west"}`
/// (a door of the level, by its name in the world file's `doors`: closing it adds its
/// polygon to the mesh as an obstacle, opening it removes it; see
/// [`World::add_mesh_obstacle`]). Agents are named by their number in the scenario (see
/// the docs of `scenario/script.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawEvent", into = "RawEvent")]
pub struct EventSpec {
    /// When, seconds since the start. \[Limit: finite, >= 0\]
    pub at: f64,
    /// What.
    pub action: Action,
}

/// What an [`EventSpec`] does.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Add an agent; it takes the next number.
    Spawn(AgentSpec),
    /// Remove the agent with this number.
    Remove(u32),
    /// Drive the agent with this number at this velocity (m/s), or hand it back to its
    /// goal (`None`). See [`World::set_velocity`].
    Drive(u32, Option<Vec2>),
    /// Send the agent with this number to a new goal.
    Retarget(u32, GoalSpec),
    /// Close the level's door of this name (nothing when it is closed).
    Close(String),
    /// Open the level's door of this name (nothing when it is open).
    Open(String),
}

/// An event as the file writes it: `at` and exactly one action's keys.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    at: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spawn: Option<AgentSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remove: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    drive: Option<u32>,
    // Present and `null` hands the agent back; only read with `drive`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    velocity: Option<Option<Vec2>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retarget: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    goal: Option<GoalSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    close: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    open: Option<String>,
}

/// A key that is present, `null` included (serde reads `null` as absent otherwise).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Vec2>>, D::Error> {
    Option::<Vec2>::deserialize(d).map(Some)
}

impl TryFrom<RawEvent> for EventSpec {
    type Error = String;

    fn try_from(raw: RawEvent) -> Result<EventSpec, String> {
        let actions = [
            raw.spawn.is_some(),
            raw.remove.is_some(),
            raw.drive.is_some(),
            raw.retarget.is_some(),
            raw.close.is_some(),
            raw.open.is_some(),
        ];
        if actions.iter().filter(|&&a| a).count() != 1 {
            return Err(
                "an event has exactly one of \"spawn\", \"remove\", \"drive\", \
                 \"retarget\", \"close\" or \"open\""
                    .to_owned(),
            );
        }
        if raw.velocity.is_some() && raw.drive.is_none() {
            return Err("\"velocity\" belongs to a \"drive\" event".to_owned());
        }
        if raw.goal.is_some() && raw.retarget.is_none() {
            return Err("\"goal\" belongs to a \"retarget\" event".to_owned());
        }
        let action = if let Some(spec) = raw.spawn {
            Action::Spawn(spec)
        } else if let Some(agent) = raw.remove {
            Action::Remove(agent)
        } else if let Some(agent) = raw.drive {
            let velocity = raw.velocity.ok_or(
                "a \"drive\" event needs \"velocity\": [vx, vy], or null to hand the agent back",
            )?;
            Action::Drive(agent, velocity)
        } else if let Some(agent) = raw.retarget {
            let goal = raw.goal.ok_or("a \"retarget\" event needs \"goal\"")?;
            Action::Retarget(agent, goal)
        } else if let Some(door) = raw.close {
            Action::Close(door)
        } else if let Some(door) = raw.open {
            Action::Open(door)
        } else {
            unreachable!("exactly one action is present")
        };
        Ok(EventSpec { at: raw.at, action })
    }
}

impl From<EventSpec> for RawEvent {
    fn from(event: EventSpec) -> RawEvent {
        let mut raw = RawEvent {
            at: event.at,
            ..RawEvent::default()
        };
        match event.action {
            Action::Spawn(spec) => raw.spawn = Some(spec),
            Action::Remove(agent) => raw.remove = Some(agent),
            Action::Drive(agent, velocity) => {
                raw.drive = Some(agent);
                raw.velocity = Some(velocity);
            }
            Action::Retarget(agent, goal) => {
                raw.retarget = Some(agent);
                raw.goal = Some(goal);
            }
            Action::Close(door) => raw.close = Some(door),
            Action::Open(door) => raw.open = Some(door),
        }
        raw
    }
}

fn person_radius() -> f32 {
    super::layouts::PERSON_RADIUS
}

fn person_speed() -> f32 {
    super::layouts::PERSON_SPEED
}

fn one() -> f32 {
    1.0
}

/// A source: agents appear in `area` at `rate` per second from `start` until `stop`
/// (or for good), `count` of them at most, each going to `goal` or to a point drawn
/// in `goal_area`. A new agent is placed at a point drawn uniformly in the area where
/// it has room (on the mesh, clear of walls and of every agent); when there is none
/// this step, it waits for the next, so a crowded entrance spawns late, not on top of
/// anyone. The draws are seeded by `seed`: the same file gives the same agents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Where agents appear.
    pub area: Area,
    /// Agents per second. \[Limit: > 0\]
    pub rate: f64,
    /// When the first appears, seconds since the start.
    #[serde(default)]
    pub start: f64,
    /// When it stops, seconds since the start; never when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<f64>,
    /// Most agents it spawns; no limit when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Where its agents go (a point); one of `goal` and `goal_area`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<Vec2>,
    /// Where its agents go: a point drawn in this area for each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_area: Option<Area>,
    /// Radius of its agents, metres (0.25).
    #[serde(default = "person_radius")]
    pub radius: f32,
    /// Top speed of its agents, m/s (1.34).
    #[serde(default = "person_speed")]
    pub max_speed: f32,
    /// Cruising speed, m/s; `max_speed` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pref_speed: Option<f32>,
    /// Mass of its agents, kg (1).
    #[serde(default = "one")]
    pub mass: f32,
    /// Seed of its draws.
    #[serde(default)]
    pub seed: u64,
}

/// A sink: an exit. An agent whose point goal lies in `area` is removed from the world
/// as soon as its centre enters `area`, and any agent that has arrived at its goal
/// while its centre lies there (a chaser, say) likewise: a steady stream through a
/// level leaves by its exits. Agents only passing through keep walking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkSpec {
    /// Where agents leave.
    pub area: Area,
}

/// Checks the script's numbers; messages name the entry.
pub(super) fn validate(scenario: &Scenario) -> Result<(), ScenarioError> {
    let bad = |what: String| Err(ScenarioError::Invalid(what));
    for (i, event) in scenario.events.iter().enumerate() {
        if !(event.at.is_finite() && event.at >= 0.0) {
            return bad(format!(
                "events[{i}]: \"at\" must be finite and >= 0, got {}",
                event.at
            ));
        }
        if let Action::Drive(_, Some(v)) = event.action {
            if !v.is_finite() {
                return bad(format!("events[{i}]: the velocity is NaN or infinite"));
            }
        }
    }
    for (i, source) in scenario.sources.iter().enumerate() {
        let problem = if !source.area.is_valid() {
            Some("\"area\" needs finite corners and a positive width and height".to_owned())
        } else if !(source.rate.is_finite() && source.rate > 0.0) {
            Some(format!(
                "\"rate\" must be positive and finite, got {}",
                source.rate
            ))
        } else if !(source.start.is_finite() && source.start >= 0.0) {
            Some(format!(
                "\"start\" must be finite and >= 0, got {}",
                source.start
            ))
        } else if source
            .stop
            .is_some_and(|s| !(s.is_finite() && s >= source.start))
        {
            Some("\"stop\" must be finite and not before \"start\"".to_owned())
        } else if source.goal.is_some() == source.goal_area.is_some() {
            Some("give exactly one of \"goal\" and \"goal_area\"".to_owned())
        } else if source.goal.is_some_and(|g| !g.is_finite()) {
            Some("\"goal\" is NaN or infinite".to_owned())
        } else if source.goal_area.is_some_and(|a| !a.is_valid()) {
            Some("\"goal_area\" needs finite corners and a positive width and height".to_owned())
        } else {
            None
        };
        if let Some(problem) = problem {
            return bad(format!("sources[{i}]: {problem}"));
        }
        // The agent's own numbers, as the world would check them.
        let body = crate::world::AgentBody {
            radius: source.radius,
            max_speed: source.max_speed,
            pref_speed: source.pref_speed.unwrap_or(source.max_speed),
            mass: source.mass,
        };
        if let Some(problem) = body.problem() {
            return bad(format!("sources[{i}]: {problem}"));
        }
    }
    for (i, sink) in scenario.sinks.iter().enumerate() {
        if !sink.area.is_valid() {
            return bad(format!(
                "sinks[{i}]: \"area\" needs finite corners and a positive width and height"
            ));
        }
    }
    Ok(())
}

/// A source while the scenario runs.
#[derive(Clone, Debug)]
struct Source {
    spec: SourceSpec,
    spawned: u64,
    rng: ChaCha8Rng,
}

impl Source {
    /// How many agents it should have spawned by `time`.
    fn due(&self, time: f64) -> u64 {
        if time < self.spec.start {
            return 0;
        }
        let until = self.spec.stop.map_or(time, |stop| time.min(stop));
        // The first at `start`, then one every `1 / rate` seconds.
        let due = ((until - self.spec.start) * self.spec.rate).floor() as u64 + 1;
        self.spec.count.map_or(due, |count| due.min(count))
    }

    /// Whether it will never spawn again.
    fn is_spent(&self, time: f64) -> bool {
        let counted_out = self.spec.count.is_some_and(|c| self.spawned >= c);
        let stopped = self
            .spec
            .stop
            .is_some_and(|stop| time > stop && self.spawned >= self.due(stop));
        counted_out || stopped
    }
}

/// Most points drawn for one new agent in one step before it waits for the next.
const SPAWN_TRIES: usize = 32;

/// Drives a world through a scenario's events, sources and sinks (see the
/// docs of `scenario/script.rs`).
#[derive(Clone, Debug)]
pub struct Script {
    /// The events, in time order (the file's order among equal times).
    events: Vec<EventSpec>,
    next_event: usize,
    sources: Vec<Source>,
    sinks: Vec<Area>,
    dt: f32,
    /// Scenario number → the agent's id, while it is in the world.
    ids: Vec<Option<AgentId>>,
    /// The agent's id → its scenario number.
    numbers: BTreeMap<AgentId, usize>,
    /// How many agents the world had when the script started.
    initial: usize,
    removed: u64,
    /// The level's doors by name.
    doors: BTreeMap<String, Door>,
}

/// A door of the level while the scenario runs.
#[derive(Clone, Debug)]
struct Door {
    polygon: Vec<Vec2>,
    /// The mesh obstacle that closes it, while it is closed.
    closed: Option<MeshObstacleId>,
}

impl Script {
    /// The script of `scenario` for `world`, which [`Scenario::build`] built from it:
    /// the world's agents, in order, are numbers 0, 1, …; the level's doors are open
    /// ([`Scenario::doors`]; a level file that cannot be read again has none, and an
    /// event naming one of its doors fails).
    pub fn new(scenario: &Scenario, world: &World) -> Script {
        let mut events = scenario.events.clone();
        events.sort_by(|a, b| a.at.total_cmp(&b.at));
        let ids: Vec<Option<AgentId>> = world.agents().iter().map(|a| Some(a.id)).collect();
        let numbers = world
            .agents()
            .iter()
            .enumerate()
            .map(|(i, a)| (a.id, i))
            .collect();
        Script {
            events,
            next_event: 0,
            sources: scenario
                .sources
                .iter()
                .enumerate()
                .map(|(i, spec)| Source {
                    spec: spec.clone(),
                    spawned: 0,
                    rng: ChaCha8Rng::seed_from_u64(
                        spec.seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    ),
                })
                .collect(),
            sinks: scenario.sinks.iter().map(|s| s.area).collect(),
            dt: scenario.dt,
            initial: ids.len(),
            ids,
            numbers,
            removed: 0,
            doors: scenario
                .doors()
                .unwrap_or_default()
                .into_iter()
                .map(|(name, polygon)| {
                    let door = Door {
                        polygon,
                        closed: None,
                    };
                    (name, door)
                })
                .collect(),
        }
    }

    /// Whether it does nothing (no events, sources or sinks): then a run may stop once
    /// every agent has arrived.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.sources.is_empty() && self.sinks.is_empty()
    }

    /// Whether nothing is left to happen at `world`'s time: every event applied and
    /// every source spent (sinks always wait for arrivals).
    pub fn is_done(&self, world: &World) -> bool {
        self.next_event == self.events.len()
            && self.sources.iter().all(|s| s.is_spent(world.time()))
    }

    /// The agent's number in the scenario (see the docs of `scenario/script.rs`), while it is
    /// in the world or was at some time.
    pub fn scenario_index(&self, id: AgentId) -> Option<usize> {
        self.numbers.get(&id).copied()
    }

    /// The id of the agent with scenario number `number`, while it is in the world.
    pub fn agent_id(&self, number: usize) -> Option<AgentId> {
        self.ids.get(number).copied().flatten()
    }

    /// How many agents the events and sources spawned so far.
    pub fn spawned(&self) -> u64 {
        (self.ids.len() - self.initial) as u64
    }

    /// How many agents the sinks and events removed so far.
    pub fn removed(&self) -> u64 {
        self.removed
    }

    /// Applies what is due before the next step: the events whose time has come (an
    /// event at `t` applies before the step that starts within half a step of `t`), in
    /// time order, then the sources' new agents.
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] for an event naming an agent that is not in the world
    /// (never spawned, or removed) or a door the level does not have, or a door whose
    /// polygon the mesh refuses; the world's own error for an agent it refuses.
    pub fn before_step(&mut self, world: &mut World) -> Result<(), ScenarioError> {
        let now = world.time() + 0.5 * f64::from(self.dt);
        while let Some(event) = self.events.get(self.next_event).filter(|e| e.at <= now) {
            let event = event.clone();
            self.next_event += 1;
            self.apply(world, &event)?;
        }
        for k in 0..self.sources.len() {
            self.run_source(world, k, now)?;
        }
        Ok(())
    }

    /// Removes the agents that leave by a sink ([`SinkSpec`]): inside one, heading
    /// for a point in it or arrived.
    ///
    /// # Errors
    /// None in practice: only agents in the world are removed.
    pub fn after_step(&mut self, world: &mut World) -> Result<(), ScenarioError> {
        if self.sinks.is_empty() {
            return Ok(());
        }
        let leaving: Vec<AgentId> = world
            .agents()
            .iter()
            .filter(|a| {
                self.sinks.iter().any(|s| {
                    s.contains(a.position)
                        && (a.is_arrived() || matches!(a.goal, Goal::Point(g) if s.contains(g)))
                })
            })
            .map(|a| a.id)
            .collect();
        for id in leaving {
            self.remove(world, id)?;
        }
        Ok(())
    }

    fn live(&self, number: u32, event: &EventSpec) -> Result<AgentId, ScenarioError> {
        self.agent_id(number as usize).ok_or_else(|| {
            ScenarioError::Invalid(format!(
                "event at {} s: agent {number} is not in the world (never spawned, or removed)",
                event.at
            ))
        })
    }

    fn apply(&mut self, world: &mut World, event: &EventSpec) -> Result<(), ScenarioError> {
        match event.action.clone() {
            Action::Spawn(spec) => {
                let goal = self.goal(&spec.goal, event)?;
                let params = AgentParams::new(spec.pos, spec.pos)
                    .with_radius(spec.radius)
                    .with_speeds(spec.max_speed, spec.pref_speed.unwrap_or(spec.max_speed))
                    .with_mass(spec.mass)
                    .with_goal(goal);
                self.spawn(world, params)?;
            }
            Action::Remove(number) => {
                let id = self.live(number, event)?;
                self.remove(world, id)?;
            }
            Action::Drive(number, velocity) => {
                let id = self.live(number, event)?;
                world.set_velocity(id, velocity)?;
            }
            Action::Retarget(number, goal) => {
                let id = self.live(number, event)?;
                let goal = self.goal(&goal, event)?;
                world.set_goal(id, goal)?;
            }
            Action::Close(name) => self.set_door(world, &name, true, event)?,
            Action::Open(name) => self.set_door(world, &name, false, event)?,
        }
        Ok(())
    }

    /// Closes (`close`) or opens door `name` of the world's mesh, unless it already is.
    fn set_door(
        &mut self,
        world: &mut World,
        name: &str,
        close: bool,
        event: &EventSpec,
    ) -> Result<(), ScenarioError> {
        let at = event.at;
        let door = self.doors.get_mut(name).ok_or_else(|| {
            ScenarioError::Invalid(format!(
                "event at {at} s: the level has no door named \"{name}\""
            ))
        })?;
        let refused = |e: WorldError| {
            ScenarioError::Invalid(format!("event at {at} s: door \"{name}\": {e}"))
        };
        match (close, door.closed) {
            (true, None) => {
                let edit = world.add_mesh_obstacle(&door.polygon).map_err(refused)?;
                door.closed = Some(edit.obstacle);
            }
            (false, Some(id)) => {
                world.remove_mesh_obstacle(id).map_err(refused)?;
                door.closed = None;
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether the level's door `name` is closed now; `None` when it has no such door.
    pub fn is_closed(&self, name: &str) -> Option<bool> {
        self.doors.get(name).map(|d| d.closed.is_some())
    }

    /// A file's goal as the world's: agents by their scenario number.
    fn goal(&self, goal: &GoalSpec, event: &EventSpec) -> Result<Goal, ScenarioError> {
        Ok(match *goal {
            GoalSpec::Point(p) => Goal::Point(p),
            GoalSpec::Agent { agent } => Goal::Agent(self.live(agent, event)?),
            GoalSpec::Obstacle { obstacle } => Goal::Obstacle(crate::world::ObstacleId(obstacle)),
        })
    }

    fn spawn(&mut self, world: &mut World, params: AgentParams) -> Result<AgentId, ScenarioError> {
        let id = world.add_agent(params)?;
        self.numbers.insert(id, self.ids.len());
        self.ids.push(Some(id));
        Ok(id)
    }

    fn remove(&mut self, world: &mut World, id: AgentId) -> Result<(), ScenarioError> {
        world.remove_agent(id)?;
        if let Some(&number) = self.numbers.get(&id) {
            self.ids[number] = None;
        }
        self.removed += 1;
        Ok(())
    }

    /// Spawns source `k`'s agents due by `now`, as many as find room.
    fn run_source(&mut self, world: &mut World, k: usize, now: f64) -> Result<(), ScenarioError> {
        let due = self.sources[k].due(now);
        while self.sources[k].spawned < due {
            let source = &mut self.sources[k];
            let Some(position) = free_spot(world, &source.spec, &mut source.rng) else {
                // No room this step: wait for the next.
                return Ok(());
            };
            let goal = match (source.spec.goal, source.spec.goal_area) {
                (Some(goal), _) => goal,
                (None, Some(area)) => area.sample(&mut source.rng),
                (None, None) => position,
            };
            let spec = &source.spec;
            let params = AgentParams::new(position, goal)
                .with_radius(spec.radius)
                .with_speeds(spec.max_speed, spec.pref_speed.unwrap_or(spec.max_speed))
                .with_mass(spec.mass);
            source.spawned += 1;
            self.spawn(world, params)?;
        }
        Ok(())
    }
}

/// A point drawn in the source's area where its agent has room: on the world's mesh
/// with clearance for its radius (anywhere without a mesh), and clear of every agent.
fn free_spot(world: &World, spec: &SourceSpec, rng: &mut ChaCha8Rng) -> Option<Vec2> {
    let radius = spec.radius;
    (0..SPAWN_TRIES)
        .map(|_| spec.area.sample(rng))
        .find(|&p| has_room(world.mesh(), p, radius) && is_clear(world, p, radius))
}

fn has_room(mesh: Option<&NavMesh>, p: Vec2, radius: f32) -> bool {
    let Some(mesh) = mesh else {
        return true;
    };
    match mesh.locate(p) {
        Location::Walkable(t) => {
            let room = f64::from(radius);
            mesh.clearance_within(p, t, room) >= room
        }
        _ => false,
    }
}

fn is_clear(world: &World, p: Vec2, radius: f32) -> bool {
    world
        .agents()
        .iter()
        .all(|a| a.position.distance(p) >= a.radius + radius)
        && world
            .obstacles()
            .iter()
            .all(|o| o.position.distance(p) >= o.radius + radius)
}

#[cfg(test)]
#[path = "script_test.rs"]
mod tests;
