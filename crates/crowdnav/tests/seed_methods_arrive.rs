//! The two seed methods, anti-gravity and swarm, bring every agent home on every
//! shipped scenario of at most 64 agents, within the scenario's steps, and leave no pair
//! overlapping: in corridors and crossings where agents already home stand in the way,
//! and in the seed demo's formations; and on the shipped corridor and crossing with
//! their starts and places moved, layouts of the same kind that nobody tuned for.

use crowdnav::scenario::{run, Method, Report, RunOptions, Scenario};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Scenarios larger than this are crowds for ORCA, not for the seed methods.
const MAX_AGENTS: usize = 64;

/// Every shipped scenario of at most [`MAX_AGENTS`] agents, by file name.
fn small_scenarios() -> Vec<(String, Scenario)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the scenarios folder")
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let scenario = Scenario::from_file(&path).expect("shipped scenario parses");
            let name = path.file_stem()?.to_string_lossy().into_owned();
            (scenario.all_agents(None).len() <= MAX_AGENTS).then_some((name, scenario))
        })
        .collect()
}

/// Runs `scenario` under `method` for its steps, or until everyone is home: the report
/// and the pairs left overlapping.
fn run_out(name: &str, scenario: &Scenario, method: Method) -> (Report, BTreeSet<(u32, u32)>) {
    let mut world = scenario.build(Some(method)).expect("scenario builds");
    let options = RunOptions {
        dt: scenario.dt,
        max_steps: scenario.steps,
        stop_when_arrived: true,
    };
    let report = run(name, &mut world, options, |_| {}).expect("valid dt");
    (report, world.metrics().overlapping_pairs.clone())
}

fn everyone_arrives_with(method: Method) {
    let scenarios = small_scenarios();
    // corridor, crossing, obstacles and the five formations at least.
    assert!(scenarios.len() >= 8, "{}", scenarios.len());
    let mut failures = Vec::new();
    for (name, scenario) in &scenarios {
        let (report, overlapping) = run_out(name, scenario, method);
        println!("{}", report.table());
        if report.arrived != report.agents || !report.completed || !overlapping.is_empty() {
            failures.push(format!(
                "{name}: {}/{} arrived, all home at the end: {}, overlapping pairs {overlapping:?}",
                report.arrived, report.agents, report.completed
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn anti_gravity_brings_everyone_home_on_every_small_shipped_scenario() {
    everyone_arrives_with(Method::AntiGravity);
}

#[test]
fn swarm_brings_everyone_home_on_every_small_shipped_scenario() {
    everyone_arrives_with(Method::Swarm);
}

/// `scenario` with every start and every place moved by up to `reach` metres along x
/// and 0.4 `reach` along y, drawn from `seed`, each kept 0.1 m clear of the starts (or
/// places) moved before it (else left where it was): a layout of the same kind as the
/// shipped one that nobody tuned for. Moved by 2 m, some places fall in a wall's
/// clearance, where an agent's place is the nearest one its disc fits (against the
/// wall).
fn moved(scenario: &Scenario, seed: u64, reach: f32) -> Scenario {
    use crowdnav::scenario::GoalSpec;
    use glam::Vec2;
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut moved = scenario.clone();
    let mut starts: Vec<(Vec2, f32)> = Vec::new();
    let mut places: Vec<(Vec2, f32)> = Vec::new();
    let mut shift = |at: Vec2, radius: f32, taken: &mut Vec<(Vec2, f32)>| {
        for _ in 0..200 {
            let p = at + Vec2::new(rng.gen_range(-1.0..1.0), rng.gen_range(-0.4..0.4)) * reach;
            if taken
                .iter()
                .all(|&(q, r)| p.distance(q) >= radius + r + 0.1)
            {
                taken.push((p, radius));
                return p;
            }
        }
        taken.push((at, radius));
        at
    };
    for agent in &mut moved.agents {
        agent.pos = shift(agent.pos, agent.radius, &mut starts);
        if let GoalSpec::Point(place) = agent.goal {
            agent.goal = GoalSpec::Point(shift(place, agent.radius, &mut places));
        }
    }
    moved
}

/// Everyone home on the shipped corridor and crossing with starts and places moved
/// ([`moved`] by `reach`, seeds 1 to `seeds`) under `method`; no pair overlapping.
fn everyone_arrives_when_moved(method: Method, seeds: u64, reach: f32) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut failures = Vec::new();
    for name in ["corridor", "crossing"] {
        let shipped = Scenario::from_file(&dir.join(format!("{name}.json")))
            .expect("shipped scenario parses");
        for seed in 1..=seeds {
            let (report, overlapping) = run_out(name, &moved(&shipped, seed, reach), method);
            if report.arrived != report.agents || !overlapping.is_empty() {
                failures.push(format!(
                    "{name} moved {reach} m, seed {seed}: {}/{} arrived, overlapping pairs {overlapping:?}",
                    report.arrived, report.agents
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn swarm_brings_everyone_home_when_starts_and_places_move() {
    everyone_arrives_when_moved(Method::Swarm, 12, 1.0);
}

#[test]
fn anti_gravity_brings_everyone_home_when_starts_and_places_move() {
    everyone_arrives_when_moved(Method::AntiGravity, 12, 1.0);
}

#[test]
fn swarm_brings_everyone_home_to_places_against_a_wall() {
    everyone_arrives_when_moved(Method::Swarm, 12, 2.0);
}

#[test]
fn anti_gravity_brings_everyone_home_to_places_against_a_wall() {
    everyone_arrives_when_moved(Method::AntiGravity, 12, 2.0);
}
