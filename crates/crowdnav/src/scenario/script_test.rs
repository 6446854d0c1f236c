use super::*;
use crate::scenario::{run_script, RunOptions, TrajectoryRecorder};
use std::num::NonZeroU64;

/// A corridor 30 × 6 m, with `extra` JSON keys.
fn corridor(extra: &str) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{"name": "stream", "dt": 0.1, "steps": 900,
            "world": {{"boundary": [[0, 0], [30, 0], [30, 6], [0, 6]]}}{extra}}}"#
    ))
    .expect("valid scenario")
}

fn options(scenario: &Scenario) -> RunOptions {
    RunOptions {
        dt: scenario.dt,
        max_steps: scenario.steps,
        stop_when_arrived: true,
    }
}

const STREAM: &str = r#",
    "sources": [{"area": [[0.5, 0.5], [3, 5.5]], "rate": 2, "count": 30, "goal_area": [[27, 0.5], [29.5, 5.5]], "seed": 3}],
    "sinks": [{"area": [[26, 0], [30, 6]]}]"#;

/// A source spawns at its rate, everyone walks through, the sink empties the level,
/// nobody is spawned on top of anyone, and the run stops once the source is spent and
/// the level empty.
#[test]
fn a_source_and_a_sink_make_a_steady_stream_through_the_level() {
    let scenario = corridor(STREAM);
    let mut world = scenario.build(None).expect("builds");
    let mut script = Script::new(&scenario, &world);
    let mut most = 0;
    let mut closest = f32::INFINITY;
    let report = run_script(
        "stream",
        &mut world,
        &mut script,
        options(&scenario),
        |w, _| {
            most = most.max(w.agents().len());
            let agents = w.agents();
            for (i, a) in agents.iter().enumerate() {
                for b in &agents[i + 1..] {
                    closest = closest.min(a.position.distance(b.position) - a.radius - b.radius);
                }
            }
        },
    )
    .expect("runs");
    assert_eq!((report.spawned, report.removed), (30, 30));
    assert_eq!(report.agents, 0, "the sink took everyone");
    assert!(report.completed);
    assert_eq!(report.overlapping_pairs, 0);
    assert!(closest > -0.01 * 0.25, "closest pair {closest} m");
    // 30 agents at 2 a second take 14.5 s to appear; crossing 25 m takes about 19 s.
    assert!(
        (25.0..60.0).contains(&report.sim_time),
        "took {} s",
        report.sim_time
    );
    // A stream, not a crowd: at 2 a second and 19 s each, about 38 would be in at
    // once without the sink; the count never runs far past what has been spawned.
    assert!((10..=30).contains(&most), "at most {most} at once");
}

/// A sink is an exit: a stream all heading for one point in it leaves as it walks in,
/// without first standing on the point one by one; someone only passing through it,
/// to a goal beyond, walks on. Before, the sink took only those who had arrived at
/// their goal: 60 people to one point left at about one every few seconds.
#[test]
fn a_sink_takes_everyone_heading_into_it_as_they_enter() {
    let scenario = corridor(
        r#",
        "sources": [{"area": [[0.5, 0.5], [3, 5.5]], "rate": 4, "count": 60, "goal": [27, 3], "seed": 5}],
        "sinks": [{"area": [[25, 1], [29, 5]]}],
        "agents": [{"pos": [20, 3], "goal": [29.7, 5.7], "radius": 0.25, "max_speed": 1.34}]"#,
    );
    let mut world = scenario.build(None).expect("builds");
    let mut script = Script::new(&scenario, &world);
    let report = run_script(
        "exit",
        &mut world,
        &mut script,
        options(&scenario),
        |_, _| {},
    )
    .expect("runs");
    assert_eq!((report.spawned, report.removed), (60, 60));
    assert_eq!(report.agents, 1, "the passer-by stays: {report:?}");
    assert!(report.completed);
    assert_eq!(report.overlapping_pairs, 0);
    // 60 at 4 a second take 15 s to appear; walking 24 m takes 18 s.
    assert!(report.sim_time < 45.0, "took {} s", report.sim_time);
}

/// The same file gives the same agents, and the same bits on any thread count.
#[test]
fn a_stream_is_the_same_on_any_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let scenario = corridor(STREAM);
            let mut world = scenario.build(None).expect("builds");
            let mut script = Script::new(&scenario, &world);
            let mut csv = TrajectoryRecorder::new(Vec::new(), NonZeroU64::MIN).expect("header");
            run_script("s", &mut world, &mut script, options(&scenario), |w, s| {
                csv.record_numbered(w, |_, id| s.scenario_index(id))
                    .expect("in memory");
            })
            .expect("runs");
            String::from_utf8(csv.finish().expect("in memory")).expect("utf-8")
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    // Every one of the 30 has rows, under its own number.
    let numbers: std::collections::BTreeSet<u32> = one
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next()?.parse().ok())
        .collect();
    assert_eq!(numbers, (0..30).collect());
}

/// Timed events: a spawn takes the next number, a drive moves an agent exactly at its
/// velocity until it is handed back, a retarget sends it elsewhere, a remove takes it
/// out, and trajectories keep each agent's number.
#[test]
fn timed_events_spawn_drive_retarget_and_remove_agents() {
    let scenario = corridor(
        r#",
        "agents": [
            {"pos": [2, 3], "goal": [28, 3], "radius": 0.25, "max_speed": 1.3},
            {"pos": [2, 1], "goal": [28, 1], "radius": 0.25, "max_speed": 1.3}
        ],
        "events": [
            {"at": 3.0, "remove": 0},
            {"at": 1.0, "spawn": {"pos": [5, 5], "goal": [5, 1], "radius": 0.25, "max_speed": 1}},
            {"at": 1.0, "drive": 1, "velocity": [0, 0.5]},
            {"at": 2.0, "drive": 1, "velocity": null},
            {"at": 4.0, "retarget": 2, "goal": [10, 5]}
        ]"#,
    );
    let mut world = scenario.build(None).expect("builds");
    let mut script = Script::new(&scenario, &world);
    let at = |seconds: f64, world: &mut World, script: &mut Script| {
        while world.time() + 1e-6 < seconds {
            script.before_step(world).expect("events apply");
            world.step(scenario.dt).expect("steps");
            script.after_step(world).expect("sinks");
        }
    };
    at(1.0, &mut world, &mut script);
    assert_eq!(world.agents().len(), 2, "nothing before its time");
    let start = world.agents()[1].position;
    at(2.0, &mut world, &mut script);
    assert_eq!(world.agents().len(), 3, "spawned at 1 s");
    let spawned = script.agent_id(2).expect("number 2 is the spawned agent");
    assert_eq!(script.scenario_index(spawned), Some(2));
    // Driven for 1 s straight up at 0.5 m/s, whatever its goal.
    let driven = world
        .agent(script.agent_id(1).expect("1"))
        .expect("in the world");
    assert!(
        (driven.position - (start + Vec2::new(0.0, 0.5))).length() < 1e-3,
        "driven to {}",
        driven.position
    );
    at(3.5, &mut world, &mut script);
    assert_eq!(world.agents().len(), 2, "removed at 3 s");
    assert_eq!(script.agent_id(0), None);
    assert_eq!(script.removed(), 1);
    let handed_back = world.agent(script.agent_id(1).expect("1")).expect("in");
    assert!(
        handed_back.velocity.x > 0.5,
        "back on its way: {}",
        handed_back.velocity
    );
    at(4.5, &mut world, &mut script);
    let retargeted = world.agent(spawned).expect("in");
    assert_eq!(retargeted.goal, Goal::Point(Vec2::new(10.0, 5.0)));
    assert!(script.is_done(&world));
}

/// An event naming an agent that is not in the world stops the run with a clear error.
#[test]
fn an_event_for_an_agent_not_in_the_world_is_an_error() {
    for events in [
        r#"[{"at": 0.5, "remove": 7}]"#,
        r#"[{"at": 0.5, "remove": 0}, {"at": 1.0, "drive": 0, "velocity": [1, 0]}]"#,
    ] {
        let scenario = corridor(&format!(
            r#", "agents": [{{"pos": [2, 3], "goal": [28, 3], "radius": 0.25, "max_speed": 1.3}}],
                "events": {events}"#
        ));
        let mut world = scenario.build(None).expect("builds");
        let mut script = Script::new(&scenario, &world);
        let err = run_script("e", &mut world, &mut script, options(&scenario), |_, _| {})
            .expect_err("refused");
        let text = err.to_string();
        assert!(text.contains("is not in the world"), "{text}");
    }
}

/// Bad scripts are refused when the scenario is read or built, each naming its entry.
#[test]
fn bad_scripts_are_refused_with_the_entry_named() {
    let read = |extra: &str| {
        Scenario::from_json(&format!(
            r#"{{"name": "n", "dt": 0.1, "steps": 10{extra}}}"#
        ))
        .and_then(|s| s.build(None).map(|_| ()))
        .expect_err("refused")
        .to_string()
    };
    let cases = [
        (r#", "events": [{"at": 1}]"#, "exactly one of"),
        (
            r#", "events": [{"at": 1, "remove": 0, "drive": 0}]"#,
            "exactly one of",
        ),
        (
            r#", "events": [{"at": 1, "drive": 0}]"#,
            "needs \"velocity\"",
        ),
        (
            r#", "events": [{"at": 1, "remove": 0, "velocity": [1, 0]}]"#,
            "belongs to a \"drive\"",
        ),
        (r#", "events": [{"at": -1, "remove": 0}]"#, "events[0]"),
        (
            r#", "events": [{"at": 1, "retarget": 0}]"#,
            "needs \"goal\"",
        ),
        (r#", "events": [{"at": 1, "bogus": 0}]"#, "unknown field"),
        (
            r#", "sources": [{"area": [[0, 0], [0, 5]], "rate": 1, "goal": [1, 1]}]"#,
            "sources[0]: \"area\"",
        ),
        (
            r#", "sources": [{"area": [[0, 0], [1, 1]], "rate": 0, "goal": [1, 1]}]"#,
            "sources[0]: \"rate\"",
        ),
        (
            r#", "sources": [{"area": [[0, 0], [1, 1]], "rate": 1}]"#,
            "exactly one of \"goal\" and \"goal_area\"",
        ),
        (
            r#", "sources": [{"area": [[0, 0], [1, 1]], "rate": 1, "goal": [1, 1], "radius": -1}]"#,
            "sources[0]: radius",
        ),
        (
            r#", "sources": [{"area": [[0, 0], [1, 1]], "rate": 1, "goal": [1, 1], "start": 5, "stop": 2}]"#,
            "\"stop\"",
        ),
        (r#", "sinks": [{"area": [[0, 0], [1, 1e40]]}]"#, ""),
    ];
    for (extra, says) in cases {
        let text = read(extra);
        assert!(text.contains(says), "{extra}: {text}");
    }
}

/// A scenario without events, sources or sinks runs exactly as before, bit for bit.
#[test]
fn an_empty_script_changes_nothing() {
    let scenario = corridor(
        r#", "agents": [
            {"pos": [2, 3], "goal": [28, 3], "radius": 0.25, "max_speed": 1.3},
            {"pos": [28, 3], "goal": [2, 3], "radius": 0.25, "max_speed": 1.3}
        ]"#,
    );
    let mut plain = scenario.build(None).expect("builds");
    let a = crate::scenario::run("p", &mut plain, options(&scenario), |_| {}).expect("runs");
    let mut world = scenario.build(None).expect("builds");
    let mut script = Script::new(&scenario, &world);
    assert!(script.is_empty());
    let b = run_script("p", &mut world, &mut script, options(&scenario), |_, _| {}).expect("runs");
    assert_eq!(a.without_timing(), b.without_timing());
    for (x, y) in plain.agents().iter().zip(world.agents()) {
        assert_eq!(x.position.to_array(), y.position.to_array());
    }
}

/// A hall split by a wall at x 14–16 with an opening at y 3–5, and its door.
fn hall(events: &str) -> Result<World, ScenarioError> {
    Scenario::from_json(&format!(
        r#"{{"name": "hall", "dt": 0.1, "steps": 10,
            "world": {{"boundary": [[0, 0], [30, 0], [30, 16], [0, 16]],
                       "obstacles": [[[14, -1], [16, -1], [16, 3], [14, 3]], [[14, 5], [16, 5], [16, 17], [14, 17]]],
                       "doors": {{"gate": [[14, 2.5], [16, 2.5], [16, 5.5], [14, 5.5]]}}}},
            "agents": [{{"pos": [2, 4], "goal": [28, 4], "radius": 0.3, "max_speed": 1.3}}],
            "events": [{events}]}}"#
    ))?
    .build(None)
}

/// Closing a door blocks the way (no path through the wall), opening it frees it
/// again; closing a closed door or opening an open one does nothing.
#[test]
fn events_close_and_open_a_door_of_the_level() {
    let text = r#"{"name": "hall", "dt": 0.1, "steps": 10,
        "world": {"boundary": [[0, 0], [30, 0], [30, 16], [0, 16]],
                  "obstacles": [[[14, -1], [16, -1], [16, 3], [14, 3]], [[14, 5], [16, 5], [16, 17], [14, 17]]],
                  "doors": {"gate": [[14, 2.5], [16, 2.5], [16, 5.5], [14, 5.5]]}},
        "agents": [{"pos": [2, 4], "goal": [28, 4], "radius": 0.3, "max_speed": 1.3}],
        "events": [{"at": 0.3, "close": "gate"}, {"at": 0.3, "close": "gate"},
                   {"at": 0.6, "open": "gate"}, {"at": 0.6, "open": "gate"}]}"#;
    let scenario = Scenario::from_json(text).expect("valid scenario");
    let mut world = scenario.build(None).expect("builds");
    let mut script = Script::new(&scenario, &world);
    assert_eq!(script.is_closed("gate"), Some(false));
    assert_eq!(script.is_closed("nowhere"), None);
    let walkable = |w: &World| {
        let mesh = w.mesh().expect("a mesh");
        mesh.find_path(Vec2::new(2.0, 4.0), Vec2::new(28.0, 4.0), 0.3)
            .is_ok()
    };
    let mut seen = Vec::new();
    for _ in 0..8 {
        script.before_step(&mut world).expect("valid events");
        seen.push((script.is_closed("gate"), walkable(&world)));
        world.step(0.1).expect("valid step");
    }
    let (open, closed) = ((Some(false), true), (Some(true), false));
    assert_eq!(
        seen,
        vec![open, open, open, closed, closed, closed, open, open]
    );
    assert_eq!(world.mesh().map(|m| m.edit_count()), Some(2));
}

#[test]
fn a_door_the_level_does_not_have_or_a_bad_door_is_refused_when_built() {
    let unknown = hall(r#"{"at": 1, "close": "front"}"#)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        unknown.as_deref(),
        Some("invalid scenario: event at 1 s: the level has no door named \"front\"")
    );
    let both = hall(r#"{"at": 1, "close": "gate", "open": "gate"}"#);
    assert!(matches!(both, Err(ScenarioError::Json { .. })));
    let bad = Scenario::from_json(
        r#"{"name": "n", "dt": 0.1, "steps": 1,
            "world": {"boundary": [[0, 0], [10, 0], [10, 10], [0, 10]],
                      "doors": {"flat": [[1, 1], [2, 2], [3, 3]]}}}"#,
    )
    .expect("parses")
    .build(None)
    .err()
    .map(|e| e.to_string());
    assert!(
        bad.as_deref().is_some_and(|m| m.contains("door \"flat\"")),
        "{bad:?}"
    );
}

/// A door polygon wholly outside the mesh is refused when it closes, naming it.
#[test]
fn a_door_the_mesh_refuses_stops_the_run_naming_it() {
    let scenario = Scenario::from_json(
        r#"{"name": "n", "dt": 0.1, "steps": 5,
            "world": {"boundary": [[0, 0], [10, 0], [10, 10], [0, 10]],
                      "doors": {"out": [[12, 12], [14, 12], [14, 14], [12, 14]]}},
            "events": [{"at": 0, "close": "out"}]}"#,
    )
    .expect("parses");
    let mut world = scenario.build(None).expect("builds");
    let mut script = Script::new(&scenario, &world);
    let message = script.before_step(&mut world).err().map(|e| e.to_string());
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.contains("door \"out\"") && m.contains("outside the mesh")),
        "{message:?}"
    );
}
