//! `World`: a crowd on a mesh (or open ground), stepped with the GIL released, its
//! state read and written as NumPy arrays, one call for all agents.
//!
//! Agents are named by ids that stay valid until the agent is removed: the library's
//! generational `AgentId` packed into one Python int ([`py_id`]). The per-agent arrays
//! have one row per agent in the world's order, which `World.ids` gives.

use crate::convert::{number, points_array, vec2};
use crate::errors;
use crate::mesh::PyNavMesh;
use crowdnav::prelude::*;
use crowdnav::steer::{AntiGravityParams, SwarmParams};
use crowdnav::world::AgentState;
use crowdnav::{AntiGravity, Method, OrcaPreset, Report, Swarm};
use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLike2};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::collections::BTreeMap;

/// A crowd: agents that follow shortest paths on a mesh (or straight lines on open
/// ground) and avoid each other.
///
/// Agents are named by int ids that stay valid until the agent is removed (an unknown
/// or removed id raises `IndexError`); the per-agent arrays have one row per agent, in
/// the order of `World.ids`. `states` holds the codes `World.IDLE`, `MOVING`,
/// `ARRIVED`, `NO_PATH`, `STUCK`, named by `World.STATE_NAMES`.
#[pyclass(name = "World", module = "crowdnav")]
pub struct PyWorld {
    pub(crate) world: World,
    /// The live agents' ids by their Python ids ([`py_id`]): the library hands out
    /// ids but does not make them from numbers, so the binding remembers them.
    ids: BTreeMap<i64, AgentId>,
}

/// An agent's id as Python sees it: one int64 holding its slot (low 32 bits) and its
/// slot's generation (high 32 bits), `slot + generation * 2**32`. The agents of a world
/// without removals are 0, 1, 2, …; an id freed by a removal never names another
/// agent, because the slot's next agent has the next generation. (Only after 2**31
/// removals from one slot would the int be negative; it is still a valid id.)
pub(crate) fn py_id(id: AgentId) -> i64 {
    (u64::from(id.slot()) | u64::from(id.generation()) << 32) as i64
}

/// How a new agent is made, from the keyword arguments of `add_agent(s)`.
#[derive(Clone, Copy)]
struct Body {
    radius: f32,
    max_speed: f32,
    pref_speed: f32,
    mass: f32,
}

impl Body {
    fn params(self, position: Vec2, goal: Vec2) -> AgentParams {
        AgentParams::new(position, goal)
            .with_radius(self.radius)
            .with_speeds(self.max_speed, self.pref_speed)
            .with_mass(self.mass)
    }
}

impl PyWorld {
    /// The agent Python id `id` names, or `IndexError` when it names none (never
    /// added, or removed).
    pub(crate) fn check(&self, id: i64) -> PyResult<AgentId> {
        self.ids.get(&id).copied().ok_or_else(|| {
            PyIndexError::new_err(format!(
                "agent {id} is not in the world (never added, or removed)"
            ))
        })
    }

    /// Adds an agent and remembers its id; returns its Python id.
    fn add(&mut self, params: AgentParams) -> PyResult<i64> {
        let id = self.world.add_agent(params).map_err(errors::world)?;
        let key = py_id(id);
        self.ids.insert(key, id);
        Ok(key)
    }

    /// An (N, 2) array of one vector of every agent.
    fn per_agent<'py>(
        &self,
        py: Python<'py>,
        f: impl Fn(&crowdnav::Agent) -> Vec2,
    ) -> Bound<'py, PyArray2<f64>> {
        points_array(py, self.world.agents().iter().map(f))
    }
}

/// The names of the state codes of `World.states`, indexed by code.
const STATE_NAMES: [&str; 5] = ["idle", "moving", "arrived", "no_path", "stuck"];

/// The code of `state` in `World.states` (see [`STATE_NAMES`]).
fn state_code(state: &AgentState) -> i8 {
    match state {
        AgentState::Idle => PyWorld::IDLE,
        AgentState::Moving => PyWorld::MOVING,
        AgentState::Arrived => PyWorld::ARRIVED,
        AgentState::NoPath(_) => PyWorld::NO_PATH,
        AgentState::Stuck => PyWorld::STUCK,
    }
}

/// A velocity or `None`: `None` in Python, or a pair of finite numbers.
fn optional_vec2(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Vec2>> {
    if obj.is_none() {
        Ok(None)
    } else {
        vec2(obj, what).map(Some)
    }
}

/// An (n, 2) array of overrides: a finite row is `Some`, a row of two NaNs `None`;
/// anything else (a wrong shape, one NaN, an infinity) is a `ValueError` naming
/// `what`.
fn overrides_in(
    array: &PyArrayLike2<'_, f64, AllowTypeChange>,
    what: &str,
    n: usize,
) -> PyResult<Vec<Option<Vec2>>> {
    let view = array.as_array();
    if view.shape() != [n, 2] {
        return Err(PyValueError::new_err(format!(
            "{what} must have shape ({n}, 2), got {:?}",
            view.shape()
        )));
    }
    let mut out = Vec::with_capacity(n);
    for (i, r) in view.rows().into_iter().enumerate() {
        if r[0].is_nan() && r[1].is_nan() {
            out.push(None);
            continue;
        }
        let v = Vec2::new(r[0] as f32, r[1] as f32);
        if !v.is_finite() {
            return Err(PyValueError::new_err(format!(
                "{what}[{i}] must be finite, or (nan, nan) to hand the agent back to its \
                 goal, got ({}, {})",
                r[0], r[1]
            )));
        }
        out.push(Some(v));
    }
    Ok(out)
}

/// An (N, 2) array of finite points, or `ValueError` naming `what`.
pub(crate) fn points_in(
    array: &PyArrayLike2<'_, f64, AllowTypeChange>,
    what: &str,
) -> PyResult<Vec<Vec2>> {
    let view = array.as_array();
    if view.ncols() != 2 {
        return Err(PyValueError::new_err(format!(
            "{what} must have shape (N, 2), got {:?}",
            view.shape()
        )));
    }
    let mut out = Vec::with_capacity(view.nrows());
    for (i, r) in view.rows().into_iter().enumerate() {
        let p = Vec2::new(r[0] as f32, r[1] as f32);
        if !p.is_finite() {
            return Err(PyValueError::new_err(format!(
                "{what}[{i}] must be finite, got ({}, {})",
                r[0], r[1]
            )));
        }
        out.push(p);
    }
    Ok(out)
}

#[pymethods]
impl PyWorld {
    /// A world on `mesh` (open ground when `None`), steered by `method` (`"orca"`,
    /// `"antigravity"` or `"swarm"`); ORCA with the `orca` preset (`"people"` or
    /// `"rvo2"`). `collisions=False` turns collision response off.
    #[new]
    #[pyo3(signature = (mesh = None, *, method = "orca", orca = "people", collisions = true))]
    fn new(
        mesh: Option<PyRef<'_, PyNavMesh>>,
        method: &str,
        orca: &str,
        collisions: bool,
    ) -> PyResult<Self> {
        let method: Method = method.parse().map_err(PyValueError::new_err)?;
        let preset = match orca.to_ascii_lowercase().as_str() {
            "people" => OrcaPreset::People,
            "rvo2" => OrcaPreset::Rvo2,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown ORCA preset '{orca}' (expected people or rvo2)"
                )))
            }
        };
        let steering: Box<dyn Steering> = match method {
            Method::Orca => Box::new(Orca::new(preset.params())),
            Method::AntiGravity => Box::new(AntiGravity::new(AntiGravityParams::default())),
            Method::Swarm => Box::new(Swarm::new(SwarmParams::default())),
        };
        let params = WorldParams {
            collisions,
            ..WorldParams::default()
        };
        let mesh = mesh.map(|m| m.mesh.clone());
        Ok(PyWorld {
            world: World::new(mesh, steering, params),
            ids: BTreeMap::new(),
        })
    }

    /// Adds an agent at `position` going to `goal`; returns its id.
    #[pyo3(signature = (position, goal, *, radius = 0.5, max_speed = 2.0, pref_speed = 1.4, mass = 1.0))]
    fn add_agent(
        &mut self,
        position: &Bound<'_, PyAny>,
        goal: &Bound<'_, PyAny>,
        radius: f32,
        max_speed: f32,
        pref_speed: f32,
        mass: f32,
    ) -> PyResult<i64> {
        let body = Body {
            radius,
            max_speed,
            pref_speed,
            mass,
        };
        let params = body.params(vec2(position, "position")?, vec2(goal, "goal")?);
        self.add(params)
    }

    /// Adds one agent per row of `positions` and `goals` ((N, 2) arrays); returns
    /// their ids as an int64 array. Nothing is added when any row is refused.
    #[pyo3(signature = (positions, goals, *, radius = 0.5, max_speed = 2.0, pref_speed = 1.4, mass = 1.0))]
    #[expect(
        clippy::too_many_arguments,
        reason = "keyword arguments of the Python API"
    )]
    fn add_agents<'py>(
        &mut self,
        py: Python<'py>,
        positions: PyArrayLike2<'py, f64, AllowTypeChange>,
        goals: PyArrayLike2<'py, f64, AllowTypeChange>,
        radius: f32,
        max_speed: f32,
        pref_speed: f32,
        mass: f32,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let positions = points_in(&positions, "positions")?;
        let goals = points_in(&goals, "goals")?;
        if positions.len() != goals.len() {
            return Err(PyValueError::new_err(format!(
                "positions and goals must have as many rows, got {} and {}",
                positions.len(),
                goals.len()
            )));
        }
        let body = Body {
            radius,
            max_speed,
            pref_speed,
            mass,
        };
        // Every row shares these numbers, and the rows are finite: checked before any
        // agent is added, so that the world takes all of them or none.
        for (what, v) in [
            ("radius", radius),
            ("max_speed", max_speed),
            ("pref_speed", pref_speed),
            ("mass", mass),
        ] {
            number(v, what, 0.0, true)?;
        }
        let mut ids = Vec::with_capacity(positions.len());
        for (&p, &g) in positions.iter().zip(&goals) {
            ids.push(self.add(body.params(p, g))?);
        }
        Ok(PyArray1::from_vec(py, ids))
    }

    /// Gives agent `agent` the point goal `goal`.
    fn set_goal(&mut self, agent: i64, goal: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.check(agent)?;
        let goal = vec2(goal, "goal")?;
        self.world
            .set_goal(id, Goal::Point(goal))
            .map_err(errors::world)
    }

    /// Gives every agent a point goal from an (N, 2) array, N the number of agents.
    fn set_goals(&mut self, goals: PyArrayLike2<'_, f64, AllowTypeChange>) -> PyResult<()> {
        let goals = points_in(&goals, "goals")?;
        let n = self.world.agents().len();
        if goals.len() != n {
            return Err(PyValueError::new_err(format!(
                "goals must have shape ({n}, 2), got ({}, 2)",
                goals.len()
            )));
        }
        let ids: Vec<AgentId> = self.world.agents().iter().map(|a| a.id).collect();
        for (id, g) in ids.into_iter().zip(goals) {
            self.world
                .set_goal(id, Goal::Point(g))
                .map_err(errors::world)?;
        }
        Ok(())
    }

    /// Advances the world by `steps` steps of `dt` seconds, the GIL released.
    #[pyo3(signature = (dt, steps = 1))]
    fn step(&mut self, py: Python<'_>, dt: f32, steps: u64) -> PyResult<()> {
        let world = &mut self.world;
        py.detach(|| {
            for _ in 0..steps {
                world.step(dt)?;
            }
            Ok(())
        })
        .map_err(errors::world)
    }

    /// Every agent's position, an (N, 2) float64 array.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_agent(py, |a| a.position)
    }

    /// Every agent's velocity after the last step, an (N, 2) float64 array.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_agent(py, |a| a.velocity)
    }

    /// Every agent's preferred velocity in the last step (along its path), an (N, 2)
    /// float64 array.
    #[getter]
    fn preferred_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_agent(py, |a| a.preferred_velocity)
    }

    /// Every agent's goal, an (N, 2) float64 array (for a chase, where its target is now).
    #[getter]
    fn goals<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        self.per_agent(py, |a| match a.goal {
            Goal::Point(g) => g,
            Goal::Agent(other) => self.world.agent(other).map_or(a.position, |o| o.position),
            Goal::Obstacle(o) => self
                .world
                .obstacles()
                .get(o.index())
                .map_or(a.position, |o| o.position),
        })
    }

    /// Every agent's radius, an (N,) float64 array.
    #[getter]
    fn radii<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let r = self
            .world
            .agents()
            .iter()
            .map(|a| f64::from(a.radius))
            .collect();
        PyArray1::from_vec(py, r)
    }

    /// Whether each agent is at its goal now, an (N,) bool array.
    #[getter]
    fn arrived<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let a = self.world.agents().iter().map(|a| a.is_arrived()).collect();
        PyArray1::from_vec(py, a)
    }

    /// Whether every agent is at its goal.
    fn all_arrived(&self) -> bool {
        self.world.all_arrived()
    }

    /// Simulated seconds so far.
    #[getter]
    fn time(&self) -> f64 {
        self.world.time()
    }

    /// Steps taken so far.
    #[getter]
    fn steps(&self) -> u64 {
        self.world.steps()
    }

    /// The run's measurements so far as a dict (the report of `crowdnav run`).
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let report = Report::of_world("world", &self.world);
        let text =
            serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    fn __len__(&self) -> usize {
        self.world.agents().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "World(agents={}, time={}, steps={})",
            self.world.agents().len(),
            self.world.time(),
            self.world.steps()
        )
    }

    /// Every agent's id, an (N,) int64 array: row `i` of the other arrays is agent
    /// `ids[i]`. Rows are in the order the agents were added; a removal moves the
    /// later rows up one, while ids never change.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let ids = self.world.agents().iter().map(|a| py_id(a.id)).collect();
        PyArray1::from_vec(py, ids)
    }

    /// The row of agent `agent` in the per-agent arrays (`IndexError` for an id that
    /// names no agent).
    fn index_of(&self, agent: i64) -> PyResult<usize> {
        let id = self.check(agent)?;
        self.world
            .index_of(id)
            .ok_or_else(|| PyIndexError::new_err(format!("agent {agent} is not in the world")))
    }

    /// Removes agent `agent` (`IndexError` when it names no agent). The others keep
    /// their ids; their rows after its row move up one. An agent chasing it stops
    /// where it is.
    fn remove_agent(&mut self, agent: i64) -> PyResult<()> {
        let id = self.check(agent)?;
        self.world.remove_agent(id).map_err(errors::world)?;
        self.ids.remove(&agent);
        Ok(())
    }

    /// Drives agent `agent` at exactly `velocity` from the next step on: it is not
    /// steered, not pushed by collisions, not limited by its `max_speed`, and the
    /// others avoid it. `None` hands it back to its goal (it re-plans from where it
    /// is).
    fn set_velocity(&mut self, agent: i64, velocity: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.check(agent)?;
        let v = optional_vec2(velocity, "velocity")?;
        self.world.set_velocity(id, v).map_err(errors::world)
    }

    /// Sets the velocity agent `agent` heads for instead of following its path (it
    /// still avoids the others and the walls, and does not arrive); `None` hands it
    /// back to its goal.
    fn set_preferred_velocity(&mut self, agent: i64, velocity: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.check(agent)?;
        let v = optional_vec2(velocity, "velocity")?;
        self.world
            .set_preferred_velocity(id, v)
            .map_err(errors::world)
    }

    /// [`set_preferred_velocity`](Self::set_preferred_velocity) for every agent from
    /// one (N, 2) array in row order (`ids`): a row `(nan, nan)` hands that agent back
    /// to its goal. Any other non-finite row, or a wrong shape, is a `ValueError` and
    /// nothing changes.
    fn set_preferred_velocities(
        &mut self,
        velocities: PyArrayLike2<'_, f64, AllowTypeChange>,
    ) -> PyResult<()> {
        let n = self.world.agents().len();
        let velocities = overrides_in(&velocities, "velocities", n)?;
        let ids: Vec<AgentId> = self.world.agents().iter().map(|a| a.id).collect();
        for (id, v) in ids.into_iter().zip(velocities) {
            self.world
                .set_preferred_velocity(id, v)
                .map_err(errors::world)?;
        }
        Ok(())
    }

    /// Every agent's state as of the last step, an (N,) int8 array of the codes
    /// `World.IDLE` (0), `MOVING` (1), `ARRIVED` (2), `NO_PATH` (3), `STUCK` (4);
    /// `World.STATE_NAMES[code]` is the code's name.
    #[getter]
    fn states<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let codes = self
            .world
            .agents()
            .iter()
            .map(|a| state_code(a.state()))
            .collect();
        PyArray1::from_vec(py, codes)
    }

    /// The state code of an agent with no goal to go to (the agent it chased was
    /// removed).
    #[classattr]
    const IDLE: i8 = 0;
    /// The state code of an agent on its way (or driven, or heading for a preferred
    /// velocity set from Python); every agent's state before its first step.
    #[classattr]
    const MOVING: i8 = 1;
    /// The state code of an agent at its goal.
    #[classattr]
    const ARRIVED: i8 = 2;
    /// The state code of an agent whose path could not be planned: it holds still and
    /// tries again later.
    #[classattr]
    const NO_PATH: i8 = 3;
    /// The state code of an agent on its way that has not got further than half its
    /// radius for a while (pressed in a jam).
    #[classattr]
    const STUCK: i8 = 4;

    /// The names of the state codes, indexed by code: `("idle", "moving", "arrived",
    /// "no_path", "stuck")`.
    #[classattr]
    #[pyo3(name = "STATE_NAMES")]
    fn state_names(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        PyTuple::new(py, STATE_NAMES)
    }
}
