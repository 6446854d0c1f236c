//! Crowds: crowdnav's whole `World::step` against `dodgy_2d` (ORCA in Rust) fed the
//! same neighbours with the same parameters.
//!
//! dodgy's side ([`Dodgy`]) keeps its own state. Each step it rebuilds the same
//! uniform grid as the world ([`PointGrid`]), gathers each agent's nearest neighbours
//! within the neighbour distance exactly as the world does (at most `max_neighbors`,
//! nearest first, ties by position), hands it the walls within the world's wall distance,
//! computes the avoiding velocity in parallel and integrates. Its preferred velocity
//! follows the corners of the path crowdnav plans for the agent's radius, slowing
//! down near the goal as the world does. crowdnav's step does all that and more: path
//! following with re-planning, collision response, keeping agents on the mesh and
//! measuring overlaps.

use crate::stats::Spread;
use crowdnav::bench_support::{PointGrid, WallGrid};
use crowdnav::scenario::{RingSpec, Scenario};
use crowdnav::world::{Goal, World};
use dodgy_2d::{Agent, AvoidanceOptions, Obstacle};
use glam::Vec2;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::time::Instant;

/// RVO2's `examples/Circle.cc` at scale (as `scenarios/circle-*.json`): `n` agents of
/// radius 1.5 m on concentric rings 5 m apart cross to their antipodes; ORCA with
/// RVO2's parameters (15 m, 10 neighbours, 10 s horizons), dt 0.25 s.
///
/// # Errors
/// Never in practice: the scenario's fixed header is valid JSON.
pub fn circle(n: usize) -> Result<Scenario, String> {
    let mut s =
        Scenario::from_json(r#"{"name": "circle", "method": "orca", "dt": 0.25, "steps": 100000, "orca": {"preset": "rvo2"}}"#)
            .map_err(|e| e.to_string())?;
    s.name = format!("circle-{n}");
    s.ring = Some(RingSpec::rvo2_example(n));
    Ok(s)
}

/// The repository's `scenarios/bottleneck.json`: 80 agents leave a room through a
/// door 2 m wide.
///
/// # Errors
/// The file cannot be read or parsed.
pub fn bottleneck() -> Result<Scenario, String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bottleneck.json");
    Scenario::from_file(&path).map_err(|e| format!("bottleneck: {e}"))
}

/// Builds the world of `scenario` (ORCA, its own parameters).
///
/// # Errors
/// The scenario does not build.
pub fn build(scenario: &Scenario) -> Result<World, String> {
    scenario
        .build(None)
        .map_err(|e| format!("{}: {e}", scenario.name))
}

/// dodgy_2d's side of the comparison, with its own state.
pub struct Dodgy {
    /// Positions.
    pub position: Vec<Vec2>,
    /// Velocities.
    pub velocity: Vec<Vec2>,
    radius: Vec<f32>,
    max_speed: Vec<f32>,
    pref_speed: Vec<f32>,
    /// Remaining corners of each agent's path, goal last.
    route: Vec<Vec<Vec2>>,
    next_corner: Vec<usize>,
    /// Whether each agent has reached its goal (within the world's arrival tolerance).
    pub arrived: Vec<bool>,
    preferred: Vec<Vec2>,
    next: Vec<Vec2>,
    walls: Vec<(Vec2, Vec2)>,
    wall_grid: WallGrid,
    grid: PointGrid,
    options: AvoidanceOptions,
    neighbor_dist: f32,
    max_neighbors: usize,
    wall_dist: f32,
    arrival_tolerance: f32,
    slowdown_time: f32,
    /// Agent pairs ever left overlapping by more than 1 % of the smaller radius.
    pub overlapping_pairs: BTreeSet<(u32, u32)>,
}

impl Dodgy {
    /// dodgy's copy of `world` now (positions, velocities, goals), with the ORCA time
    /// horizons of `scenario` and the world's neighbour rule.
    pub fn from_world(world: &World, scenario: &Scenario) -> Dodgy {
        let agents = world.agents();
        let orca = scenario.orca.unwrap_or_default();
        let params = world.params();
        let route = agents
            .iter()
            .map(|a| {
                let goal = match a.goal {
                    Goal::Point(g) => g,
                    _ => a.position,
                };
                world
                    .mesh()
                    .and_then(|m| m.find_path(a.position, goal, a.radius).ok())
                    .map(|p| p.points().into_iter().skip(1).collect::<Vec<_>>())
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| vec![goal])
            })
            .collect();
        let walls: Vec<(Vec2, Vec2)> = world.walls().iter().map(|w| (w.a, w.b)).collect();
        Dodgy {
            position: agents.iter().map(|a| a.position).collect(),
            velocity: agents.iter().map(|a| a.velocity).collect(),
            radius: agents.iter().map(|a| a.radius).collect(),
            max_speed: agents.iter().map(|a| a.max_speed).collect(),
            pref_speed: agents.iter().map(|a| a.pref_speed).collect(),
            route,
            next_corner: vec![0; agents.len()],
            arrived: vec![false; agents.len()],
            preferred: vec![Vec2::ZERO; agents.len()],
            next: vec![Vec2::ZERO; agents.len()],
            wall_grid: WallGrid::new(world.walls(), params.wall_dist.max(1.0)),
            walls,
            grid: PointGrid::default(),
            options: AvoidanceOptions {
                obstacle_margin: 0.0,
                time_horizon: orca.time_horizon,
                obstacle_time_horizon: orca.time_horizon_obst,
            },
            neighbor_dist: params.neighbor_dist,
            max_neighbors: params.max_neighbors,
            wall_dist: params.wall_dist,
            arrival_tolerance: params.arrival_tolerance,
            slowdown_time: params.slowdown_time,
            overlapping_pairs: BTreeSet::new(),
        }
    }

    /// Whether every agent has arrived.
    pub fn all_arrived(&self) -> bool {
        self.arrived.iter().all(|&a| a)
    }

    /// Advances by `dt` seconds; with `measure`, records overlapping pairs afterwards.
    pub fn step(&mut self, dt: f32, measure: bool) {
        self.prefer(dt);
        let range = self.neighbor_dist;
        self.grid.rebuild(&self.position, range / 4.0);
        let (k, wall_dist) = (self.max_neighbors, self.wall_dist);
        let (pos, vel, radius, max_speed) = (
            &self.position,
            &self.velocity,
            &self.radius,
            &self.max_speed,
        );
        let (preferred, grid, options) = (&self.preferred, &self.grid, &self.options);
        let (walls, wall_grid) = (&self.walls, &self.wall_grid);
        self.next.par_iter_mut().enumerate().for_each_init(
            || {
                (
                    Vec::<(f32, u32)>::new(),
                    Vec::<Cow<'static, Agent>>::new(),
                    Vec::<u32>::new(),
                    Vec::<Cow<'static, Obstacle>>::new(),
                )
            },
            |(near, neighbours, wall_ids, obstacles), (i, out)| {
                let p = pos[i];
                nearest(grid, pos, i, range, k, near);
                neighbours.clear();
                neighbours.extend(near.iter().map(|&(_, j)| {
                    Cow::Owned(Agent {
                        position: pos[j as usize],
                        velocity: vel[j as usize],
                        radius: radius[j as usize],
                        avoidance_responsibility: 1.0,
                    })
                }));
                obstacles.clear();
                if !walls.is_empty() {
                    wall_grid.walls_near(p, wall_dist, wall_ids);
                    obstacles.extend(wall_ids.iter().filter_map(|&w| {
                        let (a, b) = walls[w as usize];
                        (distance_to_segment(p, a, b) <= wall_dist).then(|| {
                            // dodgy's open obstacles are solid on the left; our walls
                            // are walkable on the left.
                            Cow::Owned(Obstacle::Open {
                                vertices: vec![b, a],
                            })
                        })
                    }));
                }
                let me = Agent {
                    position: p,
                    velocity: vel[i],
                    radius: radius[i],
                    avoidance_responsibility: 1.0,
                };
                *out = me.compute_avoiding_velocity(
                    neighbours,
                    obstacles,
                    preferred[i],
                    max_speed[i],
                    dt,
                    options,
                );
            },
        );
        for ((p, v), &n) in self
            .position
            .iter_mut()
            .zip(&mut self.velocity)
            .zip(&self.next)
        {
            *v = n;
            *p += n * dt;
        }
        for (i, p) in self.position.iter().enumerate() {
            let goal = self.route[i].last().copied().unwrap_or(*p);
            if p.distance(goal) <= self.arrival_tolerance {
                self.arrived[i] = true;
            }
        }
        if measure {
            self.measure_overlaps();
        }
    }

    /// Preferred velocities: towards the next corner at the preferred speed, slowing
    /// down over the last `slowdown_time · pref_speed` metres, never overshooting.
    fn prefer(&mut self, dt: f32) {
        for i in 0..self.position.len() {
            let p = self.position[i];
            let route = &self.route[i];
            let mut c = self.next_corner[i];
            while c + 1 < route.len() && p.distance(route[c]) <= self.radius[i] + 0.1 {
                c += 1;
            }
            self.next_corner[i] = c;
            let target = route.get(c).copied().unwrap_or(p);
            let to = target - p;
            let dist = to.length();
            let last = c + 1 >= route.len();
            let mut speed = self.pref_speed[i];
            if last {
                speed = speed
                    .min(dist / self.slowdown_time.max(1e-3))
                    .min(dist / dt);
            }
            self.preferred[i] = if self.arrived[i] && last {
                Vec2::ZERO
            } else {
                to.normalize_or_zero() * speed
            };
        }
    }

    fn measure_overlaps(&mut self) {
        record_overlaps(
            &mut self.grid,
            &self.position,
            &self.radius,
            &mut self.overlapping_pairs,
        );
    }
}

/// Adds to `pairs` every pair of discs (`position`, `radius`) overlapping by more than
/// 1 % of the smaller radius now, as (lower index, higher index); `grid` is scratch.
/// Every side of the crowd comparison counts its overlaps with this.
pub fn record_overlaps(
    grid: &mut PointGrid,
    position: &[Vec2],
    radius: &[f32],
    pairs: &mut BTreeSet<(u32, u32)>,
) {
    let range = 2.0 * radius.iter().copied().fold(0.0f32, f32::max);
    grid.rebuild(position, range.max(1e-3));
    for (i, &p) in position.iter().enumerate() {
        grid.for_each_near(p, range, |j| {
            let j = j as usize;
            if j <= i {
                return;
            }
            let depth = radius[i] + radius[j] - p.distance(position[j]);
            if depth > 0.01 * radius[i].min(radius[j]) {
                pairs.insert((i as u32, j as u32));
            }
        });
    }
}

/// The `k` nearest other points within `range` of point `i`, nearest first (ties by
/// index), into `near` as (squared distance, index).
fn nearest(
    grid: &PointGrid,
    pos: &[Vec2],
    i: usize,
    range: f32,
    k: usize,
    near: &mut Vec<(f32, u32)>,
) {
    let p = pos[i];
    near.clear();
    if k == 0 {
        return;
    }
    grid.for_each_near(p, range, |j| {
        let d2 = p.distance_squared(pos[j as usize]);
        if j as usize == i || d2 > range * range {
            return;
        }
        let key = (d2, j);
        if near.len() >= k && near[k - 1] <= key {
            return;
        }
        let at = near.partition_point(|e| *e < key);
        near.insert(at, key);
        near.truncate(k);
    });
}

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// Per-step times of both sides, and a fingerprint of our final state.
#[derive(Clone, Debug)]
pub struct StepTimes {
    /// Our milliseconds per step.
    pub ours_ms: Spread,
    /// dodgy's milliseconds per step.
    pub theirs_ms: Spread,
    /// Bits of every agent's position after the timed steps (for the determinism check
    /// across thread counts).
    pub fingerprint: u64,
}

/// Runs `f` on a rayon pool of `threads` threads.
fn on_threads<T: Send>(
    threads: usize,
    f: impl FnOnce() -> Result<T, String> + Send,
) -> Result<T, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?
        .install(f)
}

/// Runs `warmup` steps of our world, copies it to dodgy, then times `steps` steps of
/// each side interleaved (so both see the same load), on a pool of `threads` threads.
///
/// # Errors
/// The world does not build, a step fails, or a position stops being finite.
pub fn time_steps(
    scenario: &Scenario,
    threads: usize,
    warmup: usize,
    steps: usize,
) -> Result<StepTimes, String> {
    on_threads(threads, || {
        let dt = scenario.dt;
        let mut world = build(scenario)?;
        for _ in 0..warmup {
            world.step(dt).map_err(|e| e.to_string())?;
        }
        let mut dodgy = Dodgy::from_world(&world, scenario);
        dodgy.step(dt, false); // warm-up of dodgy's buffers
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..steps.max(1) {
            let t0 = Instant::now();
            world.step(dt).map_err(|e| e.to_string())?;
            ours.push(t0.elapsed().as_secs_f64() * 1e3);
            let t0 = Instant::now();
            dodgy.step(dt, false);
            theirs.push(t0.elapsed().as_secs_f64() * 1e3);
            // Correctness inside the loop: nothing became NaN or infinite.
            if !world.agents().iter().all(|a| a.position.is_finite())
                || !dodgy.position.iter().all(|p| p.is_finite())
            {
                return Err(format!("{}: a position is not finite", scenario.name));
            }
        }
        Ok(StepTimes {
            ours_ms: Spread::of(&ours),
            theirs_ms: Spread::of(&theirs),
            fingerprint: fingerprint(&world),
        })
    })
}

fn fingerprint(world: &World) -> u64 {
    // FNV-1a over the position bits.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for a in world.agents() {
        for x in [a.position.x, a.position.y, a.velocity.x, a.velocity.y] {
            for b in x.to_bits().to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    h
}

/// How one side ran a scenario to the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finish {
    /// Steps taken: until every agent arrived, or the cap.
    pub steps: u64,
    /// Whether every agent arrived within the cap.
    pub finished: bool,
    /// Agents arrived at the end.
    pub arrived: usize,
    /// Agent pairs ever left overlapping by more than 1 % of the smaller radius.
    pub overlapping_pairs: usize,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
}

/// Runs `scenario` from its start on both sides until every agent arrives or `cap`
/// steps pass, on a pool of `threads` threads: (ours, dodgy's).
///
/// # Errors
/// The world does not build, a step fails, or a position stops being finite.
pub fn run_to_finish(
    scenario: &Scenario,
    threads: usize,
    cap: u64,
) -> Result<(Finish, Finish), String> {
    on_threads(threads, || {
        let dt = scenario.dt;
        let mut world = build(scenario)?;
        let mut dodgy = Dodgy::from_world(&world, scenario);
        let t0 = Instant::now();
        let mut steps = 0;
        while steps < cap && !world.all_arrived() {
            world.step(dt).map_err(|e| e.to_string())?;
            steps += 1;
        }
        let ours = Finish {
            steps,
            finished: world.all_arrived(),
            arrived: world.agents().iter().filter(|a| a.is_arrived()).count(),
            overlapping_pairs: world.metrics().overlapping_pairs.len(),
            seconds: t0.elapsed().as_secs_f64(),
        };
        if !world.agents().iter().all(|a| a.position.is_finite()) {
            return Err(format!("{}: a position is not finite", scenario.name));
        }
        let t0 = Instant::now();
        let mut steps = 0;
        while steps < cap && !dodgy.all_arrived() {
            dodgy.step(dt, true);
            steps += 1;
        }
        if !dodgy.position.iter().all(|p| p.is_finite()) {
            return Err(format!("{}: a dodgy position is not finite", scenario.name));
        }
        let theirs = Finish {
            steps,
            finished: dodgy.all_arrived(),
            arrived: dodgy.arrived.iter().filter(|&&a| a).count(),
            overlapping_pairs: dodgy.overlapping_pairs.len(),
            seconds: t0.elapsed().as_secs_f64(),
        };
        Ok((ours, theirs))
    })
}
