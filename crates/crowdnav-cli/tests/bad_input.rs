//! `crowdnav run` and `crowdnav demo` on bad input: exit code 2, one line on stderr
//! naming the culprit, never a backtrace. The messages are catalogued in
//! `docs/errors.md`.

mod common;

use common::{assert_bad_input, temp_file};

fn run_scenario_text(name: &str, text: &str, needle: &str) {
    let path = temp_file("bad-input", name, text);
    assert_bad_input(&["run", path.to_str().expect("utf-8")], needle);
}

#[test]
fn run_with_a_missing_scenario_file_names_it() {
    assert_bad_input(&["run", "scenarios/no-such-file.json"], "no-such-file.json");
}

#[test]
fn run_with_malformed_json_gives_line_and_column() {
    run_scenario_text(
        "truncated.json",
        "{\"name\": \"x\", \"dt\": 0.1,\n\"steps\": 10,",
        "line 2",
    );
    run_scenario_text("empty.json", "", "invalid scenario");
    run_scenario_text(
        "typo.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "agnets": []}"#,
        "agnets",
    );
}

#[test]
fn run_with_nan_like_values_is_refused() {
    // JSON has no NaN: the parser refuses it.
    run_scenario_text(
        "nan.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "agents": [{"pos": [NaN, 0], "goal": [1, 1], "radius": 1, "max_speed": 1}]}"#,
        "invalid scenario at line 1",
    );
    // 1e39 overflows f32 to infinity: the world refuses the agent.
    run_scenario_text(
        "inf.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "agents": [{"pos": [1e39, 0], "goal": [1, 1], "radius": 1, "max_speed": 1}]}"#,
        "agent 0: position is NaN or infinite",
    );
    run_scenario_text(
        "inf-goal.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "agents": [{"pos": [0, 0], "goal": [1, -1e39], "radius": 1, "max_speed": 1}]}"#,
        "agent 0",
    );
    run_scenario_text("dt.json", r#"{"name": "x", "dt": 1e39, "steps": 10}"#, "dt");
    run_scenario_text(
        "world.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "world": {"boundary": [[0, 0], [1e39, 0], [0, 1]]}}"#,
        "NaN or infinite",
    );
}

#[test]
fn run_with_a_missing_level_file_names_it() {
    run_scenario_text(
        "level.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "world": "no-such-level.json"}"#,
        "no-such-level.json",
    );
}

#[test]
fn run_and_demo_with_an_unknown_method_list_the_known_ones() {
    assert_bad_input(
        &["run", "scenarios/swap.json", "--method", "teleport"],
        "expected orca, antigravity or swarm",
    );
    assert_bad_input(
        &["demo", "--method", "teleport", "--no-gif"],
        "unknown method 'teleport'",
    );
    run_scenario_text(
        "method.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "method": "teleport"}"#,
        "teleport",
    );
}

#[test]
fn unknown_flags_and_bad_numbers_are_one_line_too() {
    assert_bad_input(&["run", "scenarios/swap.json", "--stepz", "3"], "--stepz");
    assert_bad_input(&["run", "scenarios/swap.json", "--steps", "-3"], "-3");
    assert_bad_input(&["demo", "--bogus"], "--bogus");
}
