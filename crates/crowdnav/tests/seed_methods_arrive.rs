//! The two seed methods, anti-gravity and swarm, bring every agent home on every
//! shipped scenario of at most 64 agents, within the scenario's steps, and leave no pair
//! overlapping: in corridors and crossings where agents already home stand in the way,
//! and in the seed demo's formations.

use crowdnav::scenario::{run, Method, RunOptions, Scenario};
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

fn everyone_arrives_with(method: Method) {
    let scenarios = small_scenarios();
    // corridor, crossing, obstacles and the five formations at least.
    assert!(scenarios.len() >= 8, "{}", scenarios.len());
    let mut failures = Vec::new();
    for (name, scenario) in &scenarios {
        let mut world = scenario
            .build(Some(method))
            .expect("shipped scenario builds");
        let options = RunOptions {
            dt: scenario.dt,
            max_steps: scenario.steps,
            stop_when_arrived: true,
        };
        let report = run(name, &mut world, options, |_| {}).expect("valid dt");
        println!("{}", report.table());
        let overlapping = &world.metrics().overlapping_pairs;
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
