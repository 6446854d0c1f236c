//! The shipped scenarios in `scenarios/`: every formation finishes with every agent
//! arrived and no overlapping pair, and runs are bit-identical run to run and across
//! thread counts — in open rooms (`swap`) and among walls, a pillar and moving
//! obstacles (`obstacles`).

use crowdnav::scenario::{run, Method, Report, RunOptions, Scenario};
use crowdnav::world::COLLISION_DEPTH;
use glam::Vec2;
use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

const FORMATIONS: [&str; 5] = ["circle", "swap", "groups", "blocks", "lines"];

/// Runs a scenario to the end on a pool of `threads` threads; returns the report
/// without timing, and the final agent positions followed by the moving obstacles'.
fn run_file(name: &str, method: Option<Method>, threads: usize) -> (Report, Vec<Vec2>) {
    let path = scenarios_dir().join(format!("{name}.json"));
    let scenario = Scenario::from_file(&path).expect("shipped scenario parses");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        let mut world = scenario.build(method).expect("shipped scenario builds");
        let options = RunOptions {
            dt: scenario.dt,
            max_steps: scenario.steps,
            stop_when_arrived: true,
        };
        let report = run(&scenario.name, &mut world, options, |_| {}).expect("valid dt");
        let positions = world
            .agents()
            .iter()
            .map(|a| a.position)
            .chain(world.obstacles().iter().map(|o| o.position))
            .collect();
        (report.without_timing(), positions)
    })
}

#[test]
fn every_shipped_formation_finishes_with_all_arrived_and_no_overlap() {
    for name in FORMATIONS {
        let (report, _) = run_file(name, None, 2);
        println!("{}", report.table());
        assert_eq!(
            report.arrived, report.agents,
            "{name}: not everyone arrived"
        );
        assert!(report.completed, "{name}");
        assert_eq!(report.overlapping_pairs, 0, "{name}: overlapping pairs");
        assert!(
            // In metres: the collision depth of the formations' 0.5 m radius.
            // Measured: at most 0.0025.
            report.max_penetration <= COLLISION_DEPTH * 0.5,
            "{name}: penetration {}",
            report.max_penetration
        );
    }
}

/// The scale scenarios small enough for a test: a bottleneck, a corridor with two
/// directions, crossing flows, and RVO2's circle with 250 agents.
const CROWDS: [&str; 4] = ["bottleneck", "corridor", "crossing", "circle-250"];

#[test]
fn crowd_scenarios_finish_with_all_arrived_and_no_overlap() {
    for name in CROWDS {
        let (report, _) = run_file(name, None, 2);
        println!("{}", report.table());
        assert_eq!(
            report.arrived, report.agents,
            "{name}: not everyone arrived"
        );
        assert!(report.completed, "{name}");
        assert_eq!(report.overlapping_pairs, 0, "{name}: overlapping pairs");
    }
}

#[test]
fn circle_velocity_phase_gives_identical_bits_on_one_and_many_threads() {
    let ring = |threads: usize| {
        let mut s = Scenario::from_json(
            r#"{"name": "ring", "dt": 0.25, "steps": 60, "ring": {"count": 120, "radius": 40}}"#,
        )
        .expect("valid scenario");
        s.steps = 60;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| {
            let mut world = s.build(None).expect("builds");
            for _ in 0..s.steps {
                world.step(s.dt).expect("valid dt");
            }
            world
                .agents()
                .iter()
                .map(|a| {
                    (
                        a.position.x.to_bits(),
                        a.position.y.to_bits(),
                        a.velocity.x.to_bits(),
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    let one = ring(1);
    assert_eq!(one, ring(2), "1 vs 2 threads");
    assert_eq!(one, ring(4), "1 vs 4 threads");
}

/// Runs `name` with every steering method: twice on one thread and once on two, and
/// checks that reports and final positions are bit-identical.
fn assert_bit_identical(name: &str) {
    for method in [Method::Orca, Method::AntiGravity, Method::Swarm] {
        let (first, pos1) = run_file(name, Some(method), 1);
        let (again, pos_again) = run_file(name, Some(method), 1);
        let (two, pos2) = run_file(name, Some(method), 2);
        assert_eq!(first, again, "{name} {method:?}: run to run");
        assert_eq!(first, two, "{name} {method:?}: 1 vs 2 threads");
        let bits = |v: &[Vec2]| {
            v.iter()
                .map(|p| (p.x.to_bits(), p.y.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&pos1), bits(&pos_again), "{name} {method:?}");
        assert_eq!(bits(&pos1), bits(&pos2), "{name} {method:?}");
    }
}

#[test]
fn same_scenario_gives_identical_bits_across_runs_and_thread_counts() {
    assert_bit_identical("swap");
}

#[test]
fn walls_pillar_and_moving_obstacles_give_identical_bits_across_runs_and_thread_counts() {
    assert_bit_identical("obstacles");
}

#[test]
fn obstacles_scenario_finishes_for_every_method_without_overlap() {
    for method in [Method::Orca, Method::AntiGravity, Method::Swarm] {
        let (report, _) = run_file("obstacles", Some(method), 2);
        assert_eq!(report.arrived, report.agents, "{method:?}");
        assert_eq!(report.overlapping_pairs, 0, "{method:?}");
    }
}

#[test]
fn every_scenario_file_parses_and_builds() {
    let mut count = 0;
    for entry in std::fs::read_dir(scenarios_dir()).expect("scenarios/ exists") {
        let path = entry.expect("readable").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let s = Scenario::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        s.build(None)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        count += 1;
    }
    assert!(count >= FORMATIONS.len());
}

#[test]
fn bad_scenarios_are_refused_with_the_culprit_named() {
    let cases = [
        (r#"{"name": "x", "dt": 0.1}"#, "steps"),
        (r#"{"name": "x", "dt": 0, "steps": 10}"#, "dt"),
        (
            r#"{"name": "x", "dt": 0.1, "steps": 10, "method": "teleport"}"#,
            "teleport",
        ),
        (
            r#"{"name": "x", "dt": 0.1, "steps": 10, "agents": [{"pos": [0, 0], "goal": [1, 1], "radius": -1, "max_speed": 1}]}"#,
            "radius",
        ),
        (
            r#"{"name": "x", "dt": 0.1, "steps": 10, "agents": [{"pos": [0, 0], "goal": {"agent": 5}, "radius": 1, "max_speed": 1}]}"#,
            "agent 5",
        ),
        (
            r#"{"name": "x", "dt": 0.1, "steps": 10, "world": {"boundary": [[0, 0], [1, 0]]}}"#,
            "boundary",
        ),
        (
            r#"{"name": "x", "dt": 0.1, "steps": 10, "agnets": []}"#,
            "agnets",
        ),
        (
            r#"{"name": "x", "dt": 0.1, "steps": 10, "orca": {"time_horizsizeon": 5}}"#,
            "time_horizsizeon",
        ),
    ];
    for (text, culprit) in cases {
        let err = Scenario::from_json(text)
            .and_then(|s| s.build(None).map(|_| ()))
            .expect_err(text);
        let msg = err.to_string();
        assert!(
            msg.contains(culprit),
            "{text}: message '{msg}' lacks '{culprit}'"
        );
    }
}

/// Found by the `scenario_json` fuzz target: a formation of 344 444 444 442 agents
/// made `all_agents` ask for terabytes before anything checked the count. Counts are
/// now refused when the file is read.
#[test]
fn an_absurd_agent_count_is_refused_when_read() {
    for key in ["formation", "ring"] {
        let extra = if key == "formation" {
            r#""type": "swap", "count": 344444444442, "size": 41"#
        } else {
            r#""count": 344444444442"#
        };
        let text = format!(r#"{{"name": "x", "dt": 0.05, "steps": 10, "{key}": {{{extra}}}}}"#);
        let err = crowdnav::scenario::Scenario::from_json(&text).expect_err("refused");
        assert!(
            err.to_string().contains("more than a million"),
            "{key}: {err}"
        );
    }
}
