//! ms per step of the ORCA circle (RVO2's `examples/Circle.cc` layout at scale: see
//! `scenarios/circle-*.json`), crowdnav's whole `World::step` against `dodgy_2d`
//! (ORCA in Rust) fed the same neighbours, on 1 and 2 threads, in one run.
//!
//! ```text
//! cargo bench -p crowdnav-bench --bench crowd_step            # N = 1 000, 10 000, 100 000
//! CROWD_SIZES=1000,10000 CROWD_STEPS=20 cargo bench -p crowdnav-bench --bench crowd_step
//! ```
//!
//! Both sides start from the same state: the crowdnav world after `WARMUP` steps (the
//! agents under way); their steps are timed interleaved. dodgy's step is: rebuild the same uniform grid
//! ([`crowdnav::world::PointGrid`]), gather each agent's 10 nearest neighbours within
//! 15 m exactly as the world does, build dodgy's agents from them, compute the
//! avoiding velocity (time horizon 10 s) in parallel, integrate. crowdnav's step does
//! all that and more: path following, collision response, keeping on the mesh and
//! measuring overlaps.
//!
//! DetourCrowd (through `recastnavigation-sys`) is not compared: that crate's build
//! script needs `cmake` (to build the vendored C++) and libclang (bindgen), neither of
//! which is on the build machine; installing them was out of this round's time.

use crowdnav::scenario::{RingSpec, Scenario};
use crowdnav::world::{PointGrid, World};
use dodgy_2d::{Agent, AvoidanceOptions};
use glam::Vec2;
use rayon::prelude::*;
use std::borrow::Cow;
use std::time::Instant;

const DT: f32 = 0.25;
const WARMUP: usize = 20;

fn circle(n: usize) -> Scenario {
    let mut s = Scenario::from_json(r#"{"name": "circle", "dt": 0.25, "steps": 10}"#)
        .expect("valid scenario");
    s.ring = Some(RingSpec {
        count: n,
        center: Vec2::ZERO,
        radius: None,
        ring_gap: 5.0,
        spacing: std::f32::consts::TAU * 200.0 / 250.0,
        agent_radius: 1.5,
        max_speed: 2.0,
        pref_speed: 1.0,
        mass: 1.0,
    });
    s.name = format!("circle-{n}");
    s
}

fn warm_world(n: usize) -> World {
    let mut world = circle(n).build(None).expect("circle builds");
    for _ in 0..WARMUP {
        world.step(DT).expect("step");
    }
    world
}

/// dodgy_2d's side of the comparison, with its own state.
struct Dodgy {
    position: Vec<Vec2>,
    velocity: Vec<Vec2>,
    goal: Vec<Vec2>,
    grid: PointGrid,
    next: Vec<Vec2>,
}

impl Dodgy {
    fn from_world(world: &World) -> Dodgy {
        let agents = world.agents();
        Dodgy {
            position: agents.iter().map(|a| a.position).collect(),
            velocity: agents.iter().map(|a| a.velocity).collect(),
            goal: agents
                .iter()
                .map(|a| match a.goal {
                    crowdnav::world::Goal::Point(g) => g,
                    _ => a.position,
                })
                .collect(),
            grid: PointGrid::default(),
            next: vec![Vec2::ZERO; agents.len()],
        }
    }

    fn step(&mut self) {
        let (range, k, radius) = (15.0f32, 10usize, 1.5f32);
        self.grid.rebuild(&self.position, range / 4.0);
        let options = AvoidanceOptions {
            obstacle_margin: 0.0,
            time_horizon: 10.0,
            obstacle_time_horizon: 10.0,
        };
        let (pos, vel, goal, grid) = (&self.position, &self.velocity, &self.goal, &self.grid);
        self.next.par_iter_mut().enumerate().for_each_init(
            || (Vec::<(f32, u32)>::new(), Vec::<Cow<'static, Agent>>::new()),
            |(near, neighbours), (i, out)| {
                let p = pos[i];
                near.clear();
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
                neighbours.clear();
                neighbours.extend(near.iter().map(|&(_, j)| {
                    Cow::Owned(Agent {
                        position: pos[j as usize],
                        velocity: vel[j as usize],
                        radius,
                        avoidance_responsibility: 1.0,
                    })
                }));
                let me = Agent {
                    position: p,
                    velocity: vel[i],
                    radius,
                    avoidance_responsibility: 1.0,
                };
                let to_goal = goal[i] - p;
                let preferred = to_goal.clamp_length_max(1.0);
                *out = me.compute_avoiding_velocity(neighbours, &[], preferred, 2.0, DT, &options);
            },
        );
        for ((p, v), &n) in self
            .position
            .iter_mut()
            .zip(&mut self.velocity)
            .zip(&self.next)
        {
            *v = n;
            *p += n * DT;
        }
    }
}

/// ms per step of `a` and of `b`, their steps interleaved so that both see the same
/// load from whatever else runs on the machine.
fn time_interleaved(steps: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let (mut ta, mut tb) = (0.0, 0.0);
    for _ in 0..steps {
        let start = Instant::now();
        a();
        ta += start.elapsed().as_secs_f64();
        let start = Instant::now();
        b();
        tb += start.elapsed().as_secs_f64();
    }
    (ta * 1e3 / steps as f64, tb * 1e3 / steps as f64)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("CROWD_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let steps: usize = std::env::var("CROWD_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    println!("| N | threads | crowdnav ms/step | dodgy_2d ms/step | dodgy / crowdnav |");
    println!("|---:|---:|---:|---:|---:|");
    for &n in &sizes {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let (ours, theirs) = pool.install(|| {
                let mut world = warm_world(n);
                let mut dodgy = Dodgy::from_world(&world);
                let (ours, theirs) =
                    time_interleaved(steps, || world.step(DT).expect("step"), || dodgy.step());
                // Correctness inside the bench: nobody overlaps after the timed steps.
                assert!(world.metrics().overlapping_pairs.is_empty());
                (ours, theirs)
            });
            println!(
                "| {n} | {threads} | {ours:.2} | {theirs:.2} | {:.2} |",
                theirs / ours
            );
        }
    }
}
