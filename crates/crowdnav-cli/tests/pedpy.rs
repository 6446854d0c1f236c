//! The trajectories `crowdnav run` writes load into PedPy, the pedestrian-analysis
//! package, which counts the same line crossings and flow as the report:
//! `scripts/pedpy_check.py` makes a virtual environment, installs PedPy with pip and
//! compares. Without network (pip fails) the test says it was skipped; without
//! `python3` too, except under `CI=true`, where a missing `python3` fails it.

#[expect(dead_code, reason = "this test needs no bad-input check")]
mod common;

use common::{crowdnav, temp_dir, temp_file};
use std::path::PathBuf;
use std::process::Command;

/// The exit code by which the script says it skipped (no venv, no PedPy).
const SKIPPED: i32 = 77;

fn repository() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn pedpy_reads_the_trajectories_and_counts_the_same_crossings() {
    let has_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 is missing, and CI=true"
        );
        println!("skipped: python3 is not installed");
        return;
    }

    // The corridor, 15 agents each way, with a line across its middle (agents going
    // towards +x cross it left to right) and one drawn the other way round. Every
    // step is a frame, so that PedPy sees each movement crowdnav measured, even an
    // agent pushed back across a line within a few steps.
    let corridor = repository().join("scenarios/corridor.json");
    let text = std::fs::read_to_string(&corridor).expect("the corridor scenario");
    let mut scenario: serde_json::Value = serde_json::from_str(&text).expect("json");
    scenario["lines"] = serde_json::json!([
        {"name": "middle", "from": [30, 0], "to": [30, 6]},
        {"name": "quarter, reversed", "from": [15, 6], "to": [15, 0]},
    ]);
    let scenario_path = temp_file("pedpy", "corridor-lines.json", &scenario.to_string());
    let dir = temp_dir("pedpy", "run");
    let (csv, report) = (dir.join("t.csv"), dir.join("r.json"));
    let out = crowdnav(&[
        "run",
        scenario_path.to_str().expect("utf-8"),
        "--trajectories",
        csv.to_str().expect("utf-8"),
        "--every",
        "1",
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
    // Everyone (15 each way) crosses both lines, some more than once (pushed back by
    // the other stream).
    let count = |line: usize, key: &str| value["lines"][line][key].as_u64().expect("a count");
    assert!(count(0, "crossings_left_to_right") >= 15, "{value}");
    assert!(count(0, "crossings_right_to_left") >= 15, "{value}");
    assert!(count(1, "crossings_left_to_right") >= 15, "{value}");
    assert!(count(1, "crossings_right_to_left") >= 15, "{value}");

    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pedpy-venv");
    let check = Command::new("python3")
        .arg(repository().join("scripts/pedpy_check.py"))
        .args([&scenario_path, &csv, &report])
        .args(["--every", "1", "--venv"])
        .arg(&venv)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&check.stdout);
    let stderr = String::from_utf8_lossy(&check.stderr);
    println!("{stdout}{stderr}");
    match check.status.code() {
        Some(0) => assert!(stdout.contains("pedpy_check: ok"), "{stdout}"),
        Some(SKIPPED) => println!("skipped: PedPy could not be installed"),
        code => panic!("pedpy_check.py exited with {code:?}:\n{stdout}\n{stderr}"),
    }
}
