//! Soak: long runs of scenarios that must end with no NaN, no agent off the mesh, no
//! overlap beyond the bound, and memory flat. Ignored by default (minutes in release);
//! run it with
//!
//! ```text
//! cargo test --release -p crowdnav --test soak -- --ignored --nocapture
//! CROWDNAV_SOAK_STEPS=200000 CROWDNAV_SOAK_SCENARIOS=scenarios/bottleneck.json \
//!     cargo test --release -p crowdnav --test soak -- --ignored --nocapture
//! ```
//!
//! `CROWDNAV_SOAK_STEPS` (default 1 000 000) is the number of steps per scenario;
//! `CROWDNAV_SOAK_SCENARIOS` is a comma-separated list of scenario files, relative to
//! the repository root or absolute (default `scenarios/circle.json,scenarios/obstacles.json`).
//!
//! Agents never rest: whenever all have arrived, or 4 000 steps after the last change,
//! every agent heads back to where it came from (start and goal swap), so the crowd
//! keeps crossing itself for the whole run.

use crowdnav::mesh::Location;
use crowdnav::scenario::{GoalSpec, Scenario};
use crowdnav::world::{AgentId, Goal, World, COLLISION_DEPTH};
use glam::Vec2;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Resident and peak memory of this process in KiB (Linux; `None` elsewhere).
fn memory_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Checks the world after a step; panics with the step number on the first fault.
fn check(world: &World, bound: f32) {
    let step = world.steps();
    for (i, a) in world.agents().iter().enumerate() {
        assert!(
            a.position.is_finite() && a.velocity.is_finite(),
            "step {step}: agent {i} is not finite: {} {}",
            a.position,
            a.velocity
        );
        if let Some(mesh) = world.mesh() {
            assert!(
                matches!(mesh.locate(a.position), Location::Walkable(_)),
                "step {step}: agent {i} at {} is off the mesh",
                a.position
            );
        }
    }
    let pen = world.metrics().max_penetration;
    assert!(
        pen <= bound,
        "step {step}: penetration {pen} m beyond the bound {bound} m"
    );
}

fn soak(path: &Path, steps: u64) {
    let scenario = Scenario::from_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut world = scenario
        .build(None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Where each agent goes back and forth between (point goals only).
    let ends: Vec<Option<(Vec2, Vec2)>> = scenario
        .all_agents(world.mesh())
        .iter()
        .map(|a| match a.goal {
            GoalSpec::Point(g) => Some((a.pos, g)),
            _ => None,
        })
        .collect();
    let min_radius = world
        .agents()
        .iter()
        .map(|a| a.radius)
        .fold(f32::INFINITY, f32::min);
    // The collision phase keeps penetration within COLLISION_DEPTH (1 %) of a radius;
    // allow 10x that over hours of steps.
    let bound = 10.0 * COLLISION_DEPTH * min_radius;
    let (rss0, _) = memory_kib().unwrap_or((0, 0));
    let started = Instant::now();
    let mut last_change = 0u64;
    let mut rss_early = None;
    let mut toward_start = false;
    for k in 0..steps {
        world.step(scenario.dt).expect("valid dt");
        check(&world, bound);
        if world.all_arrived() || k - last_change >= 4000 {
            toward_start = !toward_start;
            let ids: Vec<AgentId> = world.agents().iter().map(|a| a.id).collect();
            for (&id, e) in ids.iter().zip(&ends) {
                if let Some((s, g)) = e {
                    let target = if toward_start { *s } else { *g };
                    world
                        .set_goal(id, Goal::Point(target))
                        .expect("finite goal");
                }
            }
            world.reset_metrics();
            last_change = k;
        }
        if k == steps / 10 {
            rss_early = memory_kib().map(|m| m.0);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let (rss1, hwm) = memory_kib().unwrap_or((0, 0));
    println!(
        "soak {}: {} agents, {steps} steps in {secs:.1} s ({:.0} steps/s); RSS {rss0} KiB at start, {} KiB at 10 %, {rss1} KiB at end, peak {hwm} KiB; max penetration {:.5} m (bound {bound} m), {} collisions",
        path.display(),
        world.agents().len(),
        steps as f64 / secs,
        rss_early.unwrap_or(0),
        world.metrics().max_penetration,
        world.metrics().collisions,
    );
    if let Some(early) = rss_early {
        // Flat: after warm-up, growth stays under 8 MiB; over the default 10⁶ steps a
        // leak of even 10 bytes a step would exceed it. A regression guard.
        assert!(
            rss1 <= early + 8 * 1024,
            "memory grew from {early} KiB to {rss1} KiB"
        );
    }
}

#[test]
#[ignore = "long run (minutes in release): cargo test --release -p crowdnav --test soak -- --ignored --nocapture"]
fn long_runs_stay_finite_on_the_mesh_without_overlap_and_flat_in_memory() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let steps = std::env::var("CROWDNAV_SOAK_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let list = std::env::var("CROWDNAV_SOAK_SCENARIOS")
        .unwrap_or_else(|_| "scenarios/circle.json,scenarios/obstacles.json".to_owned());
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        soak(&root.join(name), steps);
    }
}

/// The same harness, a few thousand steps, always on: keeps the soak code working.
#[test]
fn short_soak_of_the_obstacles_scenario() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    soak(&root.join("scenarios/obstacles.json"), 3000);
}
