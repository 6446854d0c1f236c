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
    // The 32 agents and their 32 goals.
    assert!(
        drawing.matches("<circle").count() >= 64,
        "agents and goals drawn"
    );
    let bytes = std::fs::read(&gif).expect("gif");
    assert!(bytes.starts_with(b"GIF89a"), "not a GIF");
    let mut decoder = gif::DecodeOptions::new()
        .read_info(bytes.as_slice())
        .expect("a readable GIF");
    let mut frames = 0u64;
    while decoder
        .read_next_frame()
        .expect("a readable frame")
        .is_some()
    {
        frames += 1;
    }
    // One frame at the start, one every 1 200 / 240 = 5 steps (swap's step limit over
    // the CLI's 240 frames), and the last. Measured: 358 steps, 73 frames.
    let steps = value["steps"].as_u64().expect("steps");
    assert_eq!(
        frames,
        1 + steps / 5 + u64::from(steps % 5 != 0),
        "{steps} steps"
    );
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

/// The CSV's rows as (agent, frame, time); panics on a malformed row.
fn trajectory_rows(csv: &str) -> Vec<(u32, u32, f64)> {
    csv.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 7, "{line}");
            for value in &fields[3..] {
                let v: f32 = value.parse().expect("a number");
                assert!(v.is_finite(), "{line}");
            }
            (
                fields[0].parse().expect("agent"),
                fields[1].parse().expect("frame"),
                fields[2].parse().expect("time"),
            )
        })
        .collect()
}

#[test]
fn run_writes_trajectories_one_row_per_agent_and_recorded_step() {
    let dir = temp_dir("trajectories");
    let csv = dir.join("t.csv");
    let run = |every: Option<&str>| {
        let mut args = vec![
            "run",
            "scenarios/swap.json",
            "--steps",
            "50",
            "--trajectories",
            csv.to_str().expect("utf-8"),
        ];
        args.extend(every.map(|n| ["--every", n]).into_iter().flatten());
        let out = crowdnav(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(&csv).expect("trajectories written")
    };

    // Every step: frame 0 (the start) and 50 steps, 32 agents each.
    let text = run(None);
    assert_eq!(text.lines().next(), Some("agent,frame,time,x,y,vx,vy"));
    let rows = trajectory_rows(&text);
    assert_eq!(rows.len(), 32 * 51);
    assert_eq!(rows[0], (0, 0, 0.0));
    assert_eq!(rows[31].0, 31);
    assert_eq!(rows.last().map(|r| (r.0, r.1)), Some((31, 50)));

    // Every 7th step: steps 0, 7, …, 49 are frames 0 to 7, 0.35 s apart.
    let rows = trajectory_rows(&run(Some("7")));
    assert_eq!(rows.len(), 32 * 8);
    let frames: Vec<u32> = rows.iter().step_by(32).map(|r| r.1).collect();
    assert_eq!(frames, (0..8).collect::<Vec<u32>>());
    let time_of_frame_2 = rows[64].2;
    assert!((time_of_frame_2 - 0.7).abs() < 1e-6, "{time_of_frame_2}");

    // Only the file itself is left in the folder: no temporary file.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["t.csv"]);
}

#[test]
fn run_counts_line_crossings_each_way_and_draws_the_lines() {
    // Four agents walk towards +x through the door, one comes back above them, and
    // nobody goes near "aside".
    let walker = |from: [f32; 2], to: [f32; 2]| serde_json::json!({"pos": from, "goal": to, "radius": 0.25, "max_speed": 1.5});
    let scenario = serde_json::json!({
        "name": "door",
        "dt": 0.05,
        "steps": 400,
        "agents": [
            walker([-4.0, -2.0], [4.0, -2.0]),
            walker([-4.5, -1.0], [4.0, -1.0]),
            walker([-5.0, 0.0], [4.0, 0.0]),
            walker([-5.5, 1.0], [4.0, 1.0]),
            walker([4.0, 2.5], [-4.0, 2.5]),
        ],
        "lines": [
            {"name": "door", "from": [0, -3], "to": [0, 3]},
            {"name": "aside & <away>", "from": [20, -3], "to": [20, 3]},
        ],
    });
    let path = temp_file("run", "door.json", &scenario.to_string());
    let dir = temp_dir("lines");
    let (report, svg, gif) = (dir.join("r.json"), dir.join("s.svg"), dir.join("a.gif"));
    let out = crowdnav(&[
        "run",
        path.to_str().expect("utf-8"),
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
    assert!(
        stdout.contains("line door: 4 left to right, 1 right to left"),
        "{stdout}"
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let lines = value["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 2);
    let door = &lines[0];
    assert_eq!(door["name"], "door");
    assert_eq!(door["length"], 6.0);
    assert_eq!(door["crossings"], 5);
    assert_eq!(door["crossings_left_to_right"], 4);
    assert_eq!(door["crossings_right_to_left"], 1);
    let first = door["first_crossing"].as_f64().expect("a time");
    let last = door["last_crossing"].as_f64().expect("a time");
    // The nearest walker is 4 m from the door at 1.5 m/s at most.
    assert!(first >= 4.0 / 1.5 - 0.05 && first < last, "{door}");
    let flow = door["flow"].as_f64().expect("five crossings have a flow");
    let specific = door["specific_flow"].as_f64().expect("a specific flow");
    assert!((specific - flow / 6.0).abs() < 1e-12, "{door}");
    let aside = &lines[1];
    assert_eq!(aside["crossings"], 0);
    for key in ["first_crossing", "last_crossing", "flow", "specific_flow"] {
        assert!(aside[key].is_null(), "{key}: {aside}");
    }

    let drawing = std::fs::read_to_string(&svg).expect("svg");
    assert!(
        drawing.contains(r#"<line x1="0" y1="-3" x2="0" y2="3"/>"#),
        "door drawn"
    );
    assert!(drawing.contains(">door</text>"), "door named");
    assert!(
        drawing.contains(">aside &amp; &lt;away&gt;</text>"),
        "names escaped"
    );
    let bytes = std::fs::read(&gif).expect("gif");
    assert!(bytes.starts_with(b"GIF89a"));
    // The line colour is in the GIF's palette (global colour table after the header).
    let palette = &bytes[13..13 + 3 * 8];
    assert!(palette.chunks(3).any(|c| c == [224, 112, 0]), "{palette:?}");
}

#[test]
fn bad_lines_every_and_trajectory_paths_exit_2_and_write_nothing() {
    let dir = temp_dir("bad-measure");
    let csv = dir.join("t.csv");
    let csv_arg = csv.to_str().expect("utf-8");
    let with_line = |name: &str, line: &str| {
        let swap = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/swap.json");
        let text = std::fs::read_to_string(swap).expect("swap scenario");
        let mut value: serde_json::Value = serde_json::from_str(&text).expect("json");
        value["lines"] = serde_json::from_str(line).expect("line json");
        temp_file("run", name, &value.to_string())
    };
    let zero = with_line(
        "zero.json",
        r#"[{"name": "door", "from": [1, 2], "to": [1, 2]}]"#,
    );
    let huge = with_line(
        "huge.json",
        r#"[{"name": "far", "from": [1e39, 0], "to": [1, 2]}]"#,
    );
    let unknown = with_line(
        "unknown.json",
        r#"[{"name": "d", "from": [0, 0], "to": [1, 0], "width": 2}]"#,
    );
    let zero_arg = zero.to_str().expect("utf-8");
    assert_bad_input(
        &["run", zero_arg, "--trajectories", csv_arg],
        "lines[0] \"door\": it has zero length",
    );
    assert_bad_input(
        &["run", huge.to_str().expect("utf-8")],
        "lines[0] \"far\": a coordinate is NaN or infinite",
    );
    assert_bad_input(&["run", unknown.to_str().expect("utf-8")], "width");
    for every in ["0", "-1", "1.5", "x"] {
        assert_bad_input(
            &[
                "run",
                "scenarios/swap.json",
                "--trajectories",
                csv_arg,
                "--every",
                every,
            ],
            "at least 1",
        );
    }
    assert_bad_input(
        &["run", "scenarios/swap.json", "--every", "2"],
        "--every needs --trajectories",
    );
    let missing = dir.join("no-such-folder").join("t.csv");
    assert_bad_input(
        &[
            "run",
            "scenarios/swap.json",
            "--trajectories",
            missing.to_str().expect("utf-8"),
        ],
        "cannot write",
    );
    assert_bad_input(
        &[
            "run",
            "scenarios/swap.json",
            "--trajectories",
            dir.to_str().expect("utf-8"),
        ],
        "it is a folder",
    );
    // Nothing was written, not even a temporary file.
    assert_eq!(std::fs::read_dir(&dir).expect("folder").count(), 0);

    // A file already there is left as it was when the run is refused.
    std::fs::write(&csv, "before\n").expect("write");
    assert_bad_input(&["run", zero_arg, "--trajectories", csv_arg], "zero length");
    assert_bad_input(
        &[
            "run",
            "scenarios/swap.json",
            "--trajectories",
            csv_arg,
            "--every",
            "0",
        ],
        "--every",
    );
    assert_eq!(
        std::fs::read_to_string(&csv).expect("still there"),
        "before\n"
    );
    assert_eq!(std::fs::read_dir(&dir).expect("folder").count(), 1);
}

/// Output piped into a reader that has gone (`crowdnav run … | head -1`): the command
/// neither panics nor leaves its files unwritten; it drops the rest of its output
/// quietly and exits 0, as command-line tools do.
#[test]
fn a_closed_stdout_is_no_panic_and_the_files_are_still_written() {
    use std::process::{Command, Stdio};
    let dir = temp_dir("closed-stdout");
    let report = dir.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_crowdnav"))
        .args(["run", "scenarios/swap.json", "--report"])
        .arg(&report)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Close the reading end before the command writes anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it exits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let written = std::fs::read_to_string(&report).expect("the report is written");
    assert!(written.contains("\"arrived\""), "{written}");
}
