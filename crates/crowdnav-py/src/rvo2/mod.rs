//! `crowdnav.rvo2.PyRVOSimulator`: a drop-in for Python-RVO2's simulator, same
//! constructor, methods, argument order and tuple types, over the library's ORCA
//! (RVO2 preset), plus `removeAgent` and NumPy batch accessors.
//!
//! Agent numbers are indices, as in RVO2: the first agent added is 0, the next 1, and
//! so on. `removeAgent(i)` removes agent `i` and numbers every later agent one lower,
//! as `del agents[i]` does to a Python list; numbers below `i` are unchanged.

mod sim;

use crate::convert::{number, points_array, vec2};
use glam::Vec2;
use numpy::{AllowTypeChange, PyArray2, PyArrayLike2};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use sim::{AgentParams, Simulator};

/// RVO2's simulator over crowdnav's ORCA. See the module documentation of
/// `crowdnav.rvo2`.
#[pyclass(name = "PyRVOSimulator", module = "crowdnav.rvo2")]
pub struct PyRVOSimulator {
    sim: Simulator,
}

/// Checks RVO2's agent parameters.
fn agent_params(
    neighbor_dist: f32,
    max_neighbors: usize,
    time_horizon: f32,
    time_horizon_obst: f32,
    radius: f32,
    max_speed: f32,
) -> PyResult<AgentParams> {
    Ok(AgentParams {
        neighbor_dist: number(neighbor_dist, "neighborDist", 0.0, false)?,
        max_neighbors,
        time_horizon: number(time_horizon, "timeHorizon", 0.0, true)?,
        time_horizon_obst: number(time_horizon_obst, "timeHorizonObst", 0.0, true)?,
        radius: number(radius, "radius", 0.0, false)?,
        max_speed: number(max_speed, "maxSpeed", 0.0, false)?,
    })
}

impl PyRVOSimulator {
    /// Agent `agent_no`, or `IndexError`.
    fn check(&self, agent_no: usize) -> PyResult<usize> {
        let n = self.sim.agents().len();
        if agent_no < n {
            Ok(agent_no)
        } else {
            Err(PyIndexError::new_err(format!(
                "agent {agent_no} does not exist: the simulator has {n} agents"
            )))
        }
    }

    fn agent(&self, agent_no: usize) -> PyResult<&sim::Agent> {
        let i = self.check(agent_no)?;
        Ok(&self.sim.agents()[i])
    }

    fn agent_mut(&mut self, agent_no: usize) -> PyResult<&mut sim::Agent> {
        let i = self.check(agent_no)?;
        Ok(&mut self.sim.agents_mut()[i])
    }

    /// Changes one of agent `agent_no`'s parameters.
    fn set_param(&mut self, agent_no: usize, f: impl FnOnce(&mut AgentParams)) -> PyResult<()> {
        let agent = self.agent_mut(agent_no)?;
        let mut params = agent.params();
        f(&mut params);
        agent.set_params(params);
        Ok(())
    }

    fn vertex(&self, vertex_no: usize) -> PyResult<&sim::ObstacleVertex> {
        let n = self.sim.vertices().len();
        self.sim.vertices().get(vertex_no).ok_or_else(|| {
            PyIndexError::new_err(format!(
                "obstacle vertex {vertex_no} does not exist: the simulator has {n}"
            ))
        })
    }
}

/// A pair of `f32` as Python floats.
fn pair(v: Vec2) -> (f64, f64) {
    (f64::from(v.x), f64::from(v.y))
}

#[pymethods]
impl PyRVOSimulator {
    /// A simulator stepping `timeStep` seconds; the other arguments are the defaults
    /// of agents added with a position alone. `symmetry_bias` (keyword only, not in
    /// Python-RVO2): how far, radians, an agent turns to its right when it meets
    /// another nearly head-on; `None` is the library's RVO2 preset (0.25), 0 is RVO2's
    /// own behaviour.
    #[new]
    #[pyo3(signature = (timeStep, neighborDist, maxNeighbors, timeHorizon, timeHorizonObst, radius, maxSpeed, velocity = None, *, symmetry_bias = None))]
    #[expect(non_snake_case, reason = "Python-RVO2's argument names")]
    #[expect(clippy::too_many_arguments, reason = "Python-RVO2's constructor")]
    fn new(
        timeStep: f32,
        neighborDist: f32,
        maxNeighbors: usize,
        timeHorizon: f32,
        timeHorizonObst: f32,
        radius: f32,
        maxSpeed: f32,
        velocity: Option<&Bound<'_, PyAny>>,
        symmetry_bias: Option<f32>,
    ) -> PyResult<Self> {
        let time_step = number(timeStep, "timeStep", 0.0, true)?;
        let symmetry_bias = match symmetry_bias {
            Some(b) => number(b, "symmetry_bias", 0.0, false)?,
            None => crowdnav::OrcaParams::rvo2().symmetry_bias,
        };
        let defaults = agent_params(
            neighborDist,
            maxNeighbors,
            timeHorizon,
            timeHorizonObst,
            radius,
            maxSpeed,
        )?;
        let velocity = match velocity {
            Some(v) => vec2(v, "velocity")?,
            None => Vec2::ZERO,
        };
        Ok(PyRVOSimulator {
            sim: Simulator::new(time_step, defaults, velocity, symmetry_bias),
        })
    }

    /// Adds an agent at `pos` with the defaults, or with all of the other arguments;
    /// returns its number.
    #[pyo3(name = "addAgent", signature = (pos, neighborDist = None, maxNeighbors = None, timeHorizon = None, timeHorizonObst = None, radius = None, maxSpeed = None, velocity = None))]
    #[expect(non_snake_case, reason = "Python-RVO2's argument names")]
    #[expect(clippy::too_many_arguments, reason = "Python-RVO2's addAgent")]
    fn add_agent(
        &mut self,
        pos: &Bound<'_, PyAny>,
        neighborDist: Option<f32>,
        maxNeighbors: Option<usize>,
        timeHorizon: Option<f32>,
        timeHorizonObst: Option<f32>,
        radius: Option<f32>,
        maxSpeed: Option<f32>,
        velocity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let position = vec2(pos, "pos")?;
        let all = (
            neighborDist,
            maxNeighbors,
            timeHorizon,
            timeHorizonObst,
            radius,
            maxSpeed,
            velocity,
        );
        let params = match all {
            (None, None, None, None, None, None, None) => None,
            (Some(nd), Some(mn), Some(th), Some(tho), Some(r), Some(ms), Some(v)) => {
                Some((agent_params(nd, mn, th, tho, r, ms)?, vec2(v, "velocity")?))
            }
            _ => {
                return Err(PyValueError::new_err(
                    "Either pass only 'pos', or pass all parameters.",
                ))
            }
        };
        Ok(self.sim.add_agent(position, params))
    }

    /// Removes agent `agent_no`. Every agent numbered after it moves down by one (as
    /// `del agents[agent_no]` on a list); those before keep their numbers. Not in
    /// Python-RVO2.
    #[pyo3(name = "removeAgent")]
    fn remove_agent(&mut self, agent_no: usize) -> PyResult<()> {
        let i = self.check(agent_no)?;
        self.sim.remove_agent(i);
        Ok(())
    }

    /// Adds an obstacle polygon: a list of at least two (x, y) corners,
    /// counter-clockwise around a solid obstacle (two corners: a wall avoided from
    /// both sides). Returns the number of its first vertex. Obstacles count from the
    /// next `processObstacles()`.
    #[pyo3(name = "addObstacle")]
    fn add_obstacle(&mut self, vertices: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut points = Vec::new();
        for (k, v) in vertices.try_iter()?.enumerate() {
            points.push(vec2(&v?, &format!("vertex {k}"))?);
        }
        if points.len() < 2 {
            return Err(PyValueError::new_err(format!(
                "an obstacle needs at least 2 vertices, got {}",
                points.len()
            )));
        }
        Ok(self.sim.add_obstacle(&points))
    }

    /// Makes the obstacles added so far count in later steps.
    #[pyo3(name = "processObstacles")]
    fn process_obstacles(&mut self, py: Python<'_>) {
        let sim = &mut self.sim;
        py.detach(|| sim.process_obstacles());
    }

    /// One step: every agent's ORCA velocity from its preferred velocity and the old
    /// state, then every agent moves by velocity × time step. The GIL is released.
    #[pyo3(name = "doStep")]
    fn do_step(&mut self, py: Python<'_>) {
        let sim = &mut self.sim;
        if sim.agents().len() < 64 {
            sim.step();
        } else {
            py.detach(|| sim.step());
        }
    }

    /// Whether the segment from `point1` to `point2` keeps `radius` from every
    /// processed obstacle.
    #[pyo3(name = "queryVisibility", signature = (point1, point2, radius = 0.0))]
    fn query_visibility(
        &self,
        point1: &Bound<'_, PyAny>,
        point2: &Bound<'_, PyAny>,
        radius: f32,
    ) -> PyResult<bool> {
        let p = vec2(point1, "point1")?;
        let q = vec2(point2, "point2")?;
        let radius = number(radius, "radius", 0.0, false)?;
        Ok(self.sim.query_visibility(p, q, radius))
    }

    /// Changes the defaults of agents added later with a position alone.
    #[pyo3(name = "setAgentDefaults", signature = (neighbor_dist, max_neighbors, time_horizon, time_horizon_obst, radius, max_speed, velocity = None))]
    #[expect(clippy::too_many_arguments, reason = "Python-RVO2's setAgentDefaults")]
    fn set_agent_defaults(
        &mut self,
        neighbor_dist: f32,
        max_neighbors: usize,
        time_horizon: f32,
        time_horizon_obst: f32,
        radius: f32,
        max_speed: f32,
        velocity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let params = agent_params(
            neighbor_dist,
            max_neighbors,
            time_horizon,
            time_horizon_obst,
            radius,
            max_speed,
        )?;
        let velocity = match velocity {
            Some(v) => vec2(v, "velocity")?,
            None => Vec2::ZERO,
        };
        self.sim.set_defaults(params, velocity);
        Ok(())
    }

    /// The `neighbor_no`-th nearest agent neighbour of agent `agent_no` in the last step.
    #[pyo3(name = "getAgentAgentNeighbor")]
    fn get_agent_agent_neighbor(&self, agent_no: usize, neighbor_no: usize) -> PyResult<usize> {
        let seen = self.sim.seen(self.check(agent_no)?);
        seen.agents.get(neighbor_no).copied().ok_or_else(|| {
            PyIndexError::new_err(format!(
                "agent {agent_no} had {} agent neighbours in the last step",
                seen.agents.len()
            ))
        })
    }

    /// The first vertex of the `neighbor_no`-th nearest obstacle edge of agent
    /// `agent_no` in the last step.
    #[pyo3(name = "getAgentObstacleNeighbor")]
    fn get_agent_obstacle_neighbor(&self, agent_no: usize, neighbor_no: usize) -> PyResult<usize> {
        let seen = self.sim.seen(self.check(agent_no)?);
        seen.obstacles.get(neighbor_no).copied().ok_or_else(|| {
            PyIndexError::new_err(format!(
                "agent {agent_no} had {} obstacle neighbours in the last step",
                seen.obstacles.len()
            ))
        })
    }

    /// How many agent neighbours agent `agent_no` avoided in the last step.
    #[pyo3(name = "getAgentNumAgentNeighbors")]
    fn get_agent_num_agent_neighbors(&self, agent_no: usize) -> PyResult<usize> {
        Ok(self.sim.seen(self.check(agent_no)?).agents.len())
    }

    /// How many obstacle edges agent `agent_no` avoided in the last step.
    #[pyo3(name = "getAgentNumObstacleNeighbors")]
    fn get_agent_num_obstacle_neighbors(&self, agent_no: usize) -> PyResult<usize> {
        Ok(self.sim.seen(self.check(agent_no)?).obstacles.len())
    }

    /// How many ORCA lines bounded agent `agent_no`'s velocity in the last step.
    #[pyo3(name = "getAgentNumORCALines")]
    fn get_agent_num_orca_lines(&self, agent_no: usize) -> PyResult<usize> {
        Ok(self.sim.seen(self.check(agent_no)?).lines.len())
    }

    /// ORCA line `line_no` of agent `agent_no` in the last step, as
    /// `(point_x, point_y, direction_x, direction_y)` (allowed side on the left).
    #[pyo3(name = "getAgentORCALine")]
    fn get_agent_orca_line(
        &self,
        agent_no: usize,
        line_no: usize,
    ) -> PyResult<(f64, f64, f64, f64)> {
        let seen = self.sim.seen(self.check(agent_no)?);
        let (p, d) = seen.lines.get(line_no).copied().ok_or_else(|| {
            PyIndexError::new_err(format!(
                "agent {agent_no} had {} ORCA lines in the last step",
                seen.lines.len()
            ))
        })?;
        Ok((
            f64::from(p.x),
            f64::from(p.y),
            f64::from(d.x),
            f64::from(d.y),
        ))
    }

    /// Agent `agent_no`'s most neighbours.
    #[pyo3(name = "getAgentMaxNeighbors")]
    fn get_agent_max_neighbors(&self, agent_no: usize) -> PyResult<usize> {
        Ok(self.agent(agent_no)?.params().max_neighbors)
    }

    /// Agent `agent_no`'s top speed.
    #[pyo3(name = "getAgentMaxSpeed")]
    fn get_agent_max_speed(&self, agent_no: usize) -> PyResult<f64> {
        Ok(f64::from(self.agent(agent_no)?.params().max_speed))
    }

    /// Agent `agent_no`'s neighbour distance.
    #[pyo3(name = "getAgentNeighborDist")]
    fn get_agent_neighbor_dist(&self, agent_no: usize) -> PyResult<f64> {
        Ok(f64::from(self.agent(agent_no)?.params().neighbor_dist))
    }

    /// Agent `agent_no`'s position `(x, y)`.
    #[pyo3(name = "getAgentPosition")]
    fn get_agent_position(&self, agent_no: usize) -> PyResult<(f64, f64)> {
        Ok(pair(self.agent(agent_no)?.position))
    }

    /// Agent `agent_no`'s preferred velocity `(x, y)`.
    #[pyo3(name = "getAgentPrefVelocity")]
    fn get_agent_pref_velocity(&self, agent_no: usize) -> PyResult<(f64, f64)> {
        Ok(pair(self.agent(agent_no)?.pref_velocity))
    }

    /// Agent `agent_no`'s radius.
    #[pyo3(name = "getAgentRadius")]
    fn get_agent_radius(&self, agent_no: usize) -> PyResult<f64> {
        Ok(f64::from(self.agent(agent_no)?.params().radius))
    }

    /// Agent `agent_no`'s time horizon for agents.
    #[pyo3(name = "getAgentTimeHorizon")]
    fn get_agent_time_horizon(&self, agent_no: usize) -> PyResult<f64> {
        Ok(f64::from(self.agent(agent_no)?.params().time_horizon))
    }

    /// Agent `agent_no`'s time horizon for obstacles.
    #[pyo3(name = "getAgentTimeHorizonObst")]
    fn get_agent_time_horizon_obst(&self, agent_no: usize) -> PyResult<f64> {
        Ok(f64::from(self.agent(agent_no)?.params().time_horizon_obst))
    }

    /// Agent `agent_no`'s velocity `(x, y)`.
    #[pyo3(name = "getAgentVelocity")]
    fn get_agent_velocity(&self, agent_no: usize) -> PyResult<(f64, f64)> {
        Ok(pair(self.agent(agent_no)?.velocity))
    }

    /// Simulated seconds so far.
    #[pyo3(name = "getGlobalTime")]
    fn get_global_time(&self) -> f64 {
        f64::from(self.sim.global_time())
    }

    /// The number of agents.
    #[pyo3(name = "getNumAgents")]
    fn get_num_agents(&self) -> usize {
        self.sim.agents().len()
    }

    /// The number of obstacle vertices.
    #[pyo3(name = "getNumObstacleVertices")]
    fn get_num_obstacle_vertices(&self) -> usize {
        self.sim.vertices().len()
    }

    /// Obstacle vertex `vertex_no` `(x, y)`.
    #[pyo3(name = "getObstacleVertex")]
    fn get_obstacle_vertex(&self, vertex_no: usize) -> PyResult<(f64, f64)> {
        Ok(pair(self.vertex(vertex_no)?.point))
    }

    /// The number of the vertex after `vertex_no` in its obstacle.
    #[pyo3(name = "getNextObstacleVertexNo")]
    fn get_next_obstacle_vertex_no(&self, vertex_no: usize) -> PyResult<usize> {
        Ok(self.vertex(vertex_no)?.next)
    }

    /// The number of the vertex before `vertex_no` in its obstacle.
    #[pyo3(name = "getPrevObstacleVertexNo")]
    fn get_prev_obstacle_vertex_no(&self, vertex_no: usize) -> PyResult<usize> {
        Ok(self.vertex(vertex_no)?.prev)
    }

    /// The time step, seconds.
    #[pyo3(name = "getTimeStep")]
    fn get_time_step(&self) -> f64 {
        f64::from(self.sim.time_step())
    }

    /// Changes agent `agent_no`'s most neighbours.
    #[pyo3(name = "setAgentMaxNeighbors")]
    fn set_agent_max_neighbors(&mut self, agent_no: usize, max_neighbors: usize) -> PyResult<()> {
        self.set_param(agent_no, |p| p.max_neighbors = max_neighbors)
    }

    /// Changes agent `agent_no`'s top speed.
    #[pyo3(name = "setAgentMaxSpeed")]
    fn set_agent_max_speed(&mut self, agent_no: usize, max_speed: f32) -> PyResult<()> {
        let v = number(max_speed, "max_speed", 0.0, false)?;
        self.set_param(agent_no, |p| p.max_speed = v)
    }

    /// Changes agent `agent_no`'s neighbour distance.
    #[pyo3(name = "setAgentNeighborDist")]
    fn set_agent_neighbor_dist(&mut self, agent_no: usize, neighbor_dist: f32) -> PyResult<()> {
        let v = number(neighbor_dist, "neighbor_dist", 0.0, false)?;
        self.set_param(agent_no, |p| p.neighbor_dist = v)
    }

    /// Moves agent `agent_no` to `position`.
    #[pyo3(name = "setAgentPosition")]
    fn set_agent_position(&mut self, agent_no: usize, position: &Bound<'_, PyAny>) -> PyResult<()> {
        let p = vec2(position, "position")?;
        self.agent_mut(agent_no)?.position = p;
        Ok(())
    }

    /// Changes agent `agent_no`'s preferred velocity.
    #[pyo3(name = "setAgentPrefVelocity")]
    fn set_agent_pref_velocity(
        &mut self,
        agent_no: usize,
        velocity: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let v = vec2(velocity, "velocity")?;
        self.agent_mut(agent_no)?.pref_velocity = v;
        Ok(())
    }

    /// Changes agent `agent_no`'s radius.
    #[pyo3(name = "setAgentRadius")]
    fn set_agent_radius(&mut self, agent_no: usize, radius: f32) -> PyResult<()> {
        let v = number(radius, "radius", 0.0, false)?;
        self.set_param(agent_no, |p| p.radius = v)
    }

    /// Changes agent `agent_no`'s time horizon for agents.
    #[pyo3(name = "setAgentTimeHorizon")]
    fn set_agent_time_horizon(&mut self, agent_no: usize, time_horizon: f32) -> PyResult<()> {
        let v = number(time_horizon, "time_horizon", 0.0, true)?;
        self.set_param(agent_no, |p| p.time_horizon = v)
    }

    /// Changes agent `agent_no`'s time horizon for obstacles.
    #[pyo3(name = "setAgentTimeHorizonObst")]
    #[expect(non_snake_case, reason = "Python-RVO2's argument name")]
    fn set_agent_time_horizon_obst(
        &mut self,
        agent_no: usize,
        timeHorizonObst: f32,
    ) -> PyResult<()> {
        let v = number(timeHorizonObst, "timeHorizonObst", 0.0, true)?;
        self.set_param(agent_no, |p| p.time_horizon_obst = v)
    }

    /// Changes agent `agent_no`'s velocity.
    #[pyo3(name = "setAgentVelocity")]
    fn set_agent_velocity(&mut self, agent_no: usize, velocity: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = vec2(velocity, "velocity")?;
        self.agent_mut(agent_no)?.velocity = v;
        Ok(())
    }

    /// Changes the time step.
    #[pyo3(name = "setTimeStep")]
    fn set_time_step(&mut self, time_step: f32) -> PyResult<()> {
        let dt = number(time_step, "time_step", 0.0, true)?;
        self.sim.set_time_step(dt);
        Ok(())
    }

    /// Every agent's position, an (N, 2) float64 array. Not in Python-RVO2.
    #[pyo3(name = "getAgentPositions")]
    fn get_agent_positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        points_array(py, self.sim.agents().iter().map(|a| a.position))
    }

    /// Every agent's velocity, an (N, 2) float64 array. Not in Python-RVO2.
    #[pyo3(name = "getAgentVelocities")]
    fn get_agent_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        points_array(py, self.sim.agents().iter().map(|a| a.velocity))
    }

    /// Sets every agent's preferred velocity from an (N, 2) array. Not in Python-RVO2.
    #[pyo3(name = "setAgentPrefVelocities")]
    fn set_agent_pref_velocities(
        &mut self,
        velocities: PyArrayLike2<'_, f64, AllowTypeChange>,
    ) -> PyResult<()> {
        let view = velocities.as_array();
        let n = self.sim.agents().len();
        if view.shape() != [n, 2] {
            return Err(PyValueError::new_err(format!(
                "velocities must have shape ({n}, 2), got {:?}",
                view.shape()
            )));
        }
        let mut new = Vec::with_capacity(n);
        for (i, row) in view.rows().into_iter().enumerate() {
            let v = Vec2::new(row[0] as f32, row[1] as f32);
            if !v.is_finite() {
                return Err(PyValueError::new_err(format!(
                    "velocity of agent {i} must be finite, got ({}, {})",
                    row[0], row[1]
                )));
            }
            new.push(v);
        }
        for (a, v) in self.sim.agents_mut().iter_mut().zip(new) {
            a.pref_velocity = v;
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "PyRVOSimulator(agents={}, obstacle_vertices={}, time={})",
            self.sim.agents().len(),
            self.sim.vertices().len(),
            self.sim.global_time()
        )
    }
}

/// Runs `steps` steps of `simulator` in Rust alone, the GIL released, and returns the
/// seconds they took: the step without the Python layer, for benchmarks.
#[pyfunction]
#[pyo3(name = "_time_rust_steps")]
pub fn time_rust_steps(
    py: Python<'_>,
    simulator: &Bound<'_, PyRVOSimulator>,
    steps: usize,
) -> PyResult<f64> {
    let mut this = simulator.try_borrow_mut()?;
    let sim = &mut this.sim;
    Ok(py.detach(|| {
        let started = std::time::Instant::now();
        for _ in 0..steps {
            sim.step();
        }
        started.elapsed().as_secs_f64()
    }))
}

/// The library's ORCA (RVO2 preset) velocity for one agent, straight from
/// `crowdnav::Orca`, for tests that compare the simulator with it. `agent` is
/// `(x, y, vx, vy, pref_vx, pref_vy, radius, max_speed)`; `neighbors` an (K, 7)
/// array of rows `x, y, vx, vy, pref_vx, pref_vy, radius`.
#[pyfunction]
#[pyo3(name = "_orca_velocity", signature = (agent, neighbors, dt, neighbor_dist, max_neighbors, time_horizon, time_horizon_obst))]
pub fn orca_velocity(
    agent: [f32; 8],
    neighbors: PyArrayLike2<'_, f64, AllowTypeChange>,
    dt: f32,
    neighbor_dist: f32,
    max_neighbors: usize,
    time_horizon: f32,
    time_horizon_obst: f32,
) -> PyResult<(f64, f64)> {
    use crowdnav::steer::{Neighbor, NeighborKind, SteerAgent, SteerContext};
    use crowdnav::{Orca, OrcaParams, Steering};
    let view = neighbors.as_array();
    if view.ncols() != 7 && view.nrows() > 0 {
        return Err(PyValueError::new_err("neighbors must have shape (K, 7)"));
    }
    let neighbors: Vec<Neighbor> = view
        .rows()
        .into_iter()
        .map(|r| Neighbor {
            position: Vec2::new(r[0] as f32, r[1] as f32),
            velocity: Vec2::new(r[2] as f32, r[3] as f32),
            preferred_velocity: Vec2::new(r[4] as f32, r[5] as f32),
            radius: r[6] as f32,
            kind: NeighborKind::Agent,
            same_destination: false,
        })
        .collect();
    let [x, y, vx, vy, px, py, radius, max_speed] = agent;
    let orca = Orca::new(OrcaParams {
        neighbor_dist,
        max_neighbors,
        time_horizon,
        time_horizon_obst,
        ..OrcaParams::rvo2()
    });
    let position = Vec2::new(x, y);
    let preferred_velocity = Vec2::new(px, py);
    let ctx = SteerContext {
        agent: SteerAgent {
            position,
            velocity: Vec2::new(vx, vy),
            radius,
            max_speed,
            preferred_velocity,
            target: position + preferred_velocity,
        },
        neighbors: &neighbors,
        walls: &[],
        dt,
        opening: None,
    };
    Ok(pair(orca.steer(&ctx, None)))
}
