//! The RVO2 simulator, in Rust over the library's ORCA: no Python here.
//!
//! RVO2's `doStep` is kept as it is: every agent's new velocity is computed from the
//! old state (its preferred velocity, its nearest neighbours within its neighbour
//! distance, the obstacle edges within reach), then every agent moves by its new
//! velocity times the time step. No paths, no collision response, no speed ramp.

use crowdnav::bench_support::{PointGrid, WallGrid};
use crowdnav::geom::Segment;
use crowdnav::steer::{
    DebugKind, Neighbor, NeighborKind, OrcaScratch, SteerAgent, SteerContext, SteerDebug,
};
use crowdnav::{Orca, OrcaParams};
use glam::Vec2;
use rayon::prelude::*;

/// Agents from which a step runs in parallel; fewer are stepped on the calling thread
/// (vita-epfl/CrowdNav builds a simulator of six agents for every step).
const PARALLEL_FROM: usize = 128;

/// An agent's parameters, as RVO2 names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentParams {
    /// Neighbours further than this are ignored, metres. \[Limit: >= 0\]
    pub neighbor_dist: f32,
    /// At most this many nearest neighbours are avoided.
    pub max_neighbors: usize,
    /// How far ahead collisions with other agents are avoided, seconds. \[Limit: > 0\]
    pub time_horizon: f32,
    /// How far ahead collisions with obstacles are avoided, seconds. \[Limit: > 0\]
    pub time_horizon_obst: f32,
    /// Radius, metres. \[Limit: >= 0\]
    pub radius: f32,
    /// Top speed, metres per second. \[Limit: >= 0\]
    pub max_speed: f32,
}

impl AgentParams {
    /// The library's ORCA with these parameters and this head-on turn
    /// ([`OrcaParams::symmetry_bias`]) on RVO2's preset (avoidance shared evenly, no
    /// time gap; see [`OrcaParams::rvo2`]).
    fn orca(&self, symmetry_bias: f32) -> Orca {
        Orca::new(OrcaParams {
            neighbor_dist: self.neighbor_dist,
            max_neighbors: self.max_neighbors,
            time_horizon: self.time_horizon,
            time_horizon_obst: self.time_horizon_obst,
            symmetry_bias,
            ..OrcaParams::rvo2()
        })
    }
}

/// One agent of the simulator.
#[derive(Clone, Debug)]
pub struct Agent {
    /// Centre, metres.
    pub position: Vec2,
    /// Velocity, metres per second (the one chosen by the last step).
    pub velocity: Vec2,
    /// The velocity it would take with nobody around.
    pub pref_velocity: Vec2,
    params: AgentParams,
    orca: Orca,
}

impl Agent {
    /// Its parameters.
    pub fn params(&self) -> AgentParams {
        self.params
    }

    /// Changes its parameters.
    pub fn set_params(&mut self, params: AgentParams) {
        self.params = params;
        self.orca = params.orca(self.orca.params.symmetry_bias);
    }
}

/// One corner of an obstacle polygon, as RVO2 numbers them.
#[derive(Clone, Copy, Debug)]
pub struct ObstacleVertex {
    /// Where it is.
    pub point: Vec2,
    /// The next corner of its polygon.
    pub next: usize,
    /// The previous corner of its polygon.
    pub prev: usize,
}

/// Per-thread buffers of a step.
#[derive(Default)]
struct Scratch {
    nearest: Vec<(f32, u32)>,
    neighbors: Vec<Neighbor>,
    wall_ids: Vec<u32>,
    walls: Vec<(f32, u32)>,
    wall_segments: Vec<Segment>,
    orca: OrcaScratch,
}

/// What one agent saw in the last step, for RVO2's diagnostic getters.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// Its agent neighbours, nearest first.
    pub agents: Vec<usize>,
    /// Its obstacle neighbours (the first vertex of each edge), nearest first.
    pub obstacles: Vec<usize>,
    /// Its ORCA lines: a point and a direction each (allowed side on the left).
    pub lines: Vec<(Vec2, Vec2)>,
}

/// RVO2's simulator over the library's ORCA.
#[derive(Default)]
pub struct Simulator {
    time_step: f32,
    /// [`OrcaParams::symmetry_bias`] of every agent.
    symmetry_bias: f32,
    global_time: f32,
    defaults: AgentParams,
    default_velocity: Vec2,
    agents: Vec<Agent>,
    vertices: Vec<ObstacleVertex>,
    /// Obstacle edges after `process_obstacles`, walkable side on the left, and the
    /// RVO2 vertex each starts from.
    walls: Vec<Segment>,
    wall_vertex: Vec<usize>,
    wall_grid: WallGrid,
    /// The state the last step read: every agent as a neighbour sees it, and the grid
    /// over their positions; `last_step_valid` is false before the first step and
    /// after agents were added or removed (numbers changed).
    bodies: Vec<Neighbor>,
    positions: Vec<Vec2>,
    grid: PointGrid,
    last_step_valid: bool,
    new_velocities: Vec<Vec2>,
}

impl Default for AgentParams {
    fn default() -> Self {
        let p = OrcaParams::rvo2();
        AgentParams {
            neighbor_dist: p.neighbor_dist,
            max_neighbors: p.max_neighbors,
            time_horizon: p.time_horizon,
            time_horizon_obst: p.time_horizon_obst,
            radius: 0.5,
            max_speed: 2.0,
        }
    }
}

impl Simulator {
    /// An empty simulator stepping `time_step` seconds, with these defaults for new
    /// agents, every agent turning by `symmetry_bias` head-on (see
    /// [`OrcaParams::symmetry_bias`]: RVO2's preset has 0.25 rad, RVO2 itself none).
    pub fn new(
        time_step: f32,
        defaults: AgentParams,
        velocity: Vec2,
        symmetry_bias: f32,
    ) -> Simulator {
        Simulator {
            time_step,
            symmetry_bias,
            defaults,
            default_velocity: velocity,
            ..Simulator::default()
        }
    }

    /// Changes the defaults for agents added later.
    pub fn set_defaults(&mut self, defaults: AgentParams, velocity: Vec2) {
        self.defaults = defaults;
        self.default_velocity = velocity;
    }

    /// Adds an agent at `position`, with the defaults or these parameters and
    /// velocity; returns its number.
    pub fn add_agent(&mut self, position: Vec2, params: Option<(AgentParams, Vec2)>) -> usize {
        let (params, velocity) = params.unwrap_or((self.defaults, self.default_velocity));
        self.agents.push(Agent {
            position,
            velocity,
            pref_velocity: Vec2::ZERO,
            params,
            orca: params.orca(self.symmetry_bias),
        });
        self.last_step_valid = false;
        self.agents.len() - 1
    }

    /// Removes agent `index`; the agents after it move down by one.
    pub fn remove_agent(&mut self, index: usize) {
        self.agents.remove(index);
        self.last_step_valid = false;
    }

    /// Adds an obstacle polygon (RVO2: corners counter-clockwise for a solid obstacle,
    /// clockwise for a boundary; two corners for a thin wall avoided from both sides);
    /// returns the number of its first vertex. It counts from the next
    /// `process_obstacles`.
    pub fn add_obstacle(&mut self, points: &[Vec2]) -> usize {
        let first = self.vertices.len();
        let n = points.len();
        for (k, &point) in points.iter().enumerate() {
            self.vertices.push(ObstacleVertex {
                point,
                next: first + (k + 1) % n,
                prev: first + (k + n - 1) % n,
            });
        }
        first
    }

    /// Makes the obstacles added so far count in the next steps.
    pub fn process_obstacles(&mut self) {
        self.walls.clear();
        self.wall_vertex.clear();
        for (i, v) in self.vertices.iter().enumerate() {
            let next = self.vertices[v.next].point;
            // RVO2's edge from this corner to the next has the obstacle on its left;
            // the library's walls have walkable space on theirs: reversed.
            if next != v.point {
                self.walls.push(Segment::new(next, v.point));
                self.wall_vertex.push(i);
            }
        }
        let cell = self
            .agents
            .iter()
            .map(|a| a.params.time_horizon_obst * a.params.max_speed + a.params.radius)
            .fold(
                self.defaults.time_horizon_obst * self.defaults.max_speed,
                f32::max,
            )
            .clamp(1.0, 64.0);
        self.wall_grid = WallGrid::new(&self.walls, cell);
    }

    /// Whether the segment from `p` to `q` stays at least `radius` from every processed
    /// obstacle edge.
    pub fn query_visibility(&self, p: Vec2, q: Vec2, radius: f32) -> bool {
        let sight = Segment::new(p, q);
        self.walls.iter().all(|&wall| {
            !matches!(
                crowdnav::geom::segment_intersection(sight, wall),
                crowdnav::geom::SegmentIntersection::Point(_)
                    | crowdnav::geom::SegmentIntersection::Overlap(..)
            ) && segment_distance_squared(sight, wall) >= radius * radius
        })
    }

    /// One step: every new velocity from the old state, then every agent moves.
    pub fn step(&mut self) {
        self.gather();
        let n = self.agents.len();
        let mut new_velocities = std::mem::take(&mut self.new_velocities);
        let this = &*self;
        if n >= PARALLEL_FROM {
            (0..n)
                .into_par_iter()
                .map_init(Scratch::default, |s, i| this.velocity_of(i, s, None))
                .collect_into_vec(&mut new_velocities);
        } else {
            let mut s = Scratch::default();
            new_velocities.clear();
            new_velocities.extend((0..n).map(|i| this.velocity_of(i, &mut s, None)));
        }
        let dt = self.time_step;
        for (a, &v) in self.agents.iter_mut().zip(&new_velocities) {
            a.velocity = v;
            a.position += v * dt;
        }
        self.new_velocities = new_velocities;
        self.global_time += dt;
        self.last_step_valid = true;
    }

    /// The state a step reads: every agent as a neighbour, and the grid.
    fn gather(&mut self) {
        self.bodies.clear();
        self.bodies.extend(self.agents.iter().map(|a| Neighbor {
            position: a.position,
            velocity: a.velocity,
            radius: a.params.radius,
            preferred_velocity: a.pref_velocity,
            kind: NeighborKind::Agent,
            same_destination: false,
        }));
        self.positions.clear();
        self.positions
            .extend(self.agents.iter().map(|a| a.position));
        let max_radius = self
            .agents
            .iter()
            .map(|a| a.params.radius)
            .fold(0.0, f32::max);
        self.grid
            .rebuild(&self.positions, (2.5 * max_radius).max(0.1));
    }

    /// Agent `i`'s new velocity from the gathered state (its own included: the
    /// velocity, position and preferred velocity it had then) and its current
    /// parameters; fills `seen` when given.
    fn velocity_of(&self, i: usize, s: &mut Scratch, seen: Option<&mut Seen>) -> Vec2 {
        let a = &self.bodies[i];
        let orca = &self.agents[i].orca;
        let p = self.agents[i].params;
        self.grid.nearest(
            a.position,
            p.neighbor_dist,
            p.max_neighbors,
            Some(i as u32),
            &mut s.nearest,
        );
        s.neighbors.clear();
        s.neighbors
            .extend(s.nearest.iter().map(|&(_, j)| self.bodies[j as usize]));
        s.walls.clear();
        s.wall_segments.clear();
        if !self.walls.is_empty() {
            let range = p.time_horizon_obst * p.max_speed + p.radius;
            self.wall_grid
                .walls_near(a.position, range, &mut s.wall_ids);
            for &k in &s.wall_ids {
                let wall = self.walls[k as usize];
                let d2 = wall.distance_squared(a.position);
                let faces = (wall.b - wall.a).perp_dot(a.position - wall.a) > 0.0;
                if faces && d2 < range * range {
                    s.walls.push((d2, k));
                }
            }
            s.walls
                .sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            s.wall_segments
                .extend(s.walls.iter().map(|&(_, k)| self.walls[k as usize]));
        }
        let ctx = SteerContext {
            agent: SteerAgent {
                position: a.position,
                velocity: a.velocity,
                radius: p.radius,
                max_speed: p.max_speed,
                preferred_velocity: a.preferred_velocity,
                target: a.position + a.preferred_velocity,
            },
            neighbors: &s.neighbors,
            walls: &s.wall_segments,
            dt: self.time_step,
            opening: None,
        };
        match seen {
            None => orca.steer_with(&ctx, &mut s.orca, None),
            Some(seen) => {
                let mut debug = SteerDebug::default();
                let v = orca.steer_with(&ctx, &mut s.orca, Some(&mut debug));
                seen.agents = s.nearest.iter().map(|&(_, j)| j as usize).collect();
                seen.obstacles = s
                    .walls
                    .iter()
                    .map(|&(_, k)| self.wall_vertex[k as usize])
                    .collect();
                seen.lines = debug
                    .of_kind(DebugKind::OrcaLine)
                    .map(|d| (d.origin, d.vector))
                    .collect();
                v
            }
        }
    }

    /// What agent `i` saw in the last step (nothing before the first step, or when
    /// agents were added or removed since): recomputed from the last step's input,
    /// which the simulator keeps, rather than stored for every agent at every step.
    pub fn seen(&self, i: usize) -> Seen {
        let mut seen = Seen::default();
        if self.last_step_valid && i < self.bodies.len() {
            self.velocity_of(i, &mut Scratch::default(), Some(&mut seen));
        }
        seen
    }

    /// The time step, seconds.
    pub fn time_step(&self) -> f32 {
        self.time_step
    }

    /// Changes the time step.
    pub fn set_time_step(&mut self, dt: f32) {
        self.time_step = dt;
    }

    /// Simulated seconds so far.
    pub fn global_time(&self) -> f32 {
        self.global_time
    }

    /// The agents, by number.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// The agents, by number, to change.
    pub fn agents_mut(&mut self) -> &mut [Agent] {
        &mut self.agents
    }

    /// The obstacle vertices, by number.
    pub fn vertices(&self) -> &[ObstacleVertex] {
        &self.vertices
    }
}

/// Squared distance between two segments that do not cross.
fn segment_distance_squared(p: Segment, q: Segment) -> f32 {
    [
        q.distance_squared(p.a),
        q.distance_squared(p.b),
        p.distance_squared(q.a),
        p.distance_squared(q.b),
    ]
    .into_iter()
    .fold(f32::INFINITY, f32::min)
}
