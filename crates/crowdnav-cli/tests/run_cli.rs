//! End-to-end tests of `crowdnav run` and `crowdnav demo`: the report's fields, the
//! pictures, and exit code 2 with one line for bad input.

mod common;

use common::{assert_bad_input, crowdnav, temp_file};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("run", name)
}

const REPORT_FIELDS: [&str; 13] = [
    "name",
    "method",
    "agents",
    "steps",
    "arrived",
    "collisions",
    "overlapping_pairs",
    "max_penetration",
    "min_separation",
    "mean_time_to_goal",
    "max_time_to_goal",
    "path_length_ratio",
    "ms_per_step",
];

fn assert_report(value: &serde_json::Value, name: &str, method: &str) {
    for field in REPORT_FIELDS {
        assert!(value.get(field).is_some(), "report lacks {field}: {value}");
    }
    assert_eq!(value["name"], name);
    assert_eq!(value["method"], method);
    assert_eq!(value["agents"], 32);
    assert_eq!(value["arrived"], 32, "{value}");
    assert_eq!(value["overlapping_pairs"], 0, "{value}");
}

#[test]
fn run_writes_the_report_an_svg_and_a_gif() {
    let dir = temp_dir("run");
    let (report, svg, gif) = (dir.join("r.json"), dir.join("s.svg"), dir.join("a.gif"));
    let out = crowdnav(&[
        "run",
        "scenarios/swap.json",
        "--method",
        "antigravity",
        "--report",
        report.to_str().expect("utf-8"),
        "--svg",
        svg.to_str().expect("utf-8"),
        "--gif",
        gif.to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("arrived 32/32"), "{stdout}");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    assert_report(&value, "swap", "antigravity");
    let drawing = std::fs::read_to_string(&svg).expect("svg");
    assert!(drawing.starts_with("<svg"));
    assert!(
        drawing.matches("<circle").count() >= 64,
        "agents and goals drawn"
    );
    let bytes = std::fs::read(&gif).expect("gif");
    assert!(bytes.starts_with(b"GIF89a"), "not a GIF");
    // Several frames: the image descriptor separator appears once per frame.
    assert!(bytes.iter().filter(|&&b| b == 0x2c).count() > 10);
}

#[test]
fn run_steps_override_stops_early_and_reports_it() {
    let dir = temp_dir("steps");
    let report = dir.join("r.json");
    let out = crowdnav(&[
        "run",
        "scenarios/circle.json",
        "--steps",
        "5",
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    assert_eq!(value["steps"], 5);
    assert_eq!(value["method"], "orca");
    assert_eq!(value["completed"], false);
}

#[test]
fn demo_runs_every_formation_and_writes_gif_and_reports() {
    let dir = temp_dir("demo");
    let out = crowdnav(&["demo", "--out", dir.to_str().expect("utf-8")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report"))
            .expect("json");
    let reports = value.as_array().expect("an array of reports");
    let names: Vec<&str> = reports.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names, ["circle", "swap", "groups", "blocks", "lines"]);
    for (r, name) in reports.iter().zip(names) {
        assert_report(r, name, "orca");
    }
    let bytes = std::fs::read(dir.join("demo.gif")).expect("gif");
    assert!(bytes.starts_with(b"GIF89a"));
}

#[test]
fn bad_scenarios_exit_2_with_one_line() {
    let broken = temp_file(
        "run",
        "broken.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10, "agents": [}"#,
    );
    let negative = temp_file(
        "run",
        "negative.json",
        r#"{"name": "x", "dt": 0.1, "steps": 10,
            "agents": [{"pos": [0, 0], "goal": [1, 0], "radius": 0.5, "max_speed": -1}]}"#,
    );
    assert_bad_input(&["run", "no/such/scenario.json"], "cannot read");
    assert_bad_input(&["run", broken.to_str().expect("utf-8")], "line 1");
    assert_bad_input(&["run", negative.to_str().expect("utf-8")], "max_speed");
    assert_bad_input(
        &["run", "scenarios/swap.json", "--method", "teleport"],
        "teleport",
    );
}

#[test]
fn bench_times_every_thread_count_and_checks_they_agree() {
    let out = crowdnav(&[
        "bench",
        "scenarios/swap.json",
        "--steps",
        "5",
        "--warmup",
        "2",
        "--reps",
        "2",
        "--threads",
        "1,2",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["scenario"], "swap");
    assert_eq!(report["method"], "orca");
    assert_eq!(report["agents"], 32);
    assert_eq!(report["steps"], 5);
    assert_eq!(report["deterministic"], true);
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for (r, threads) in results.iter().zip([1, 2]) {
        assert_eq!(r["threads"], threads);
        let median = r["median_ms_per_step"].as_f64().expect("median");
        let p95 = r["p95_ms_per_step"].as_f64().expect("p95");
        let max = r["max_ms_per_step"].as_f64().expect("max");
        assert!(median > 0.0 && median <= p95 && p95 <= max, "{r}");
    }
}

#[test]
fn bench_on_bad_input_is_one_line() {
    assert_bad_input(&["bench", "no/such/scenario.json"], "cannot read");
    assert_bad_input(&["bench", "scenarios/swap.json", "--steps", "0"], "--steps");
    assert_bad_input(
        &["bench", "scenarios/swap.json", "--threads", "0"],
        "--threads",
    );
    assert_bad_input(
        &["bench", "scenarios/swap.json", "--method", "teleport"],
        "teleport",
    );
}
