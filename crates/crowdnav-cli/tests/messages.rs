//! What the CLI tells its user: missing arguments by name, an error's place said once,
//! failed path queries on stderr with exit code 1, a warning for every agent started
//! off the map, a line for every file written, words instead of bare dashes, and the
//! corners of a path told apart from its points.

mod common;

use common::{assert_bad_input, crowdnav, temp_dir, temp_file};
use std::process::Output;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scenario of two agents in `worlds/two-rooms.json` (given by its absolute path, as
/// scenario paths are taken relative to the scenario file), the first starting at
/// `first`.
fn two_agents(name: &str, first: [f32; 2], steps: u64) -> std::path::PathBuf {
    let world = concat!(env!("CARGO_MANIFEST_DIR"), "/../../worlds/two-rooms.json");
    let scenario = serde_json::json!({
        "name": name, "dt": 0.1, "steps": steps, "world": world,
        "agents": [
            {"pos": first, "goal": [3, 3], "radius": 0.3, "max_speed": 1.5, "pref_speed": 1.3},
            {"pos": [2, 2], "goal": [16, 2], "radius": 0.3, "max_speed": 1.5, "pref_speed": 1.3}
        ]
    });
    temp_file("messages", &format!("{name}.json"), &scenario.to_string())
}

#[test]
fn missing_arguments_are_named() {
    assert_bad_input(&["path", "worlds/two-rooms.json", "--from", "2,2"], "--to");
    assert_bad_input(
        &["path", "worlds/two-rooms.json"],
        "--from <X,Y>, --to <X,Y>",
    );
    assert_bad_input(&["run"], "<SCENARIO>");
}

#[test]
fn a_json_error_says_its_place_once() {
    let bad = temp_file("messages", "bad.json", "{\"name\": \"x\",,}");
    let out = crowdnav(&["run", bad.to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 1, column 14"), "{stderr}");
    assert_eq!(stderr.matches("line").count(), 1, "{stderr}");
    let world = temp_file("messages", "bad-world.json", "{\"boundary\": [[0, 0],,]}");
    let out = crowdnav(&["mesh", world.to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.matches("line").count(), 1, "{stderr}");
}

/// `path` from a point outside the level: nothing on stdout, the reason on stderr,
/// exit code 1.
#[test]
fn a_query_without_a_path_says_why_on_stderr_and_exits_1() {
    let outside = [
        "path",
        "worlds/two-rooms.json",
        "--from",
        "-50,2",
        "--to",
        "3,3",
    ];
    let out = crowdnav(&outside);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(text(&out.stdout), "");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("crowdnav: (-50, 2) -> (3, 3)"),
        "{stderr}"
    );
    assert!(stderr.contains("outside the mesh"), "{stderr}");

    // Inside an obstacle; --json keeps the answer on stdout, and exits 1 too.
    let blocked = [
        "path",
        "worlds/two-rooms.json",
        "--from",
        "8,7",
        "--to",
        "3,3",
        "--json",
    ];
    let out = crowdnav(&blocked);
    assert_eq!(out.status.code(), Some(1));
    let answer: serde_json::Value =
        serde_json::from_str(text(&out.stdout).trim()).expect("one JSON line");
    assert_eq!(answer["found"], false);
    assert_eq!(text(&out.stderr), "");

    // A batch: the found paths on stdout, each failure on stderr, a count at the end.
    let csv = temp_file(
        "messages",
        "mixed.csv",
        "sx,sy,gx,gy,radius\n2,2,36,4,0.5\n-50,2,3,3,0\n36,4,2,2,0.5\n",
    );
    let out = crowdnav(&[
        "path",
        "worlds/two-rooms.json",
        "--queries",
        csv.to_str().expect("utf-8"),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(stdout.lines().all(|l| l.contains("length")), "{stdout}");
    let errors: Vec<&str> = stderr.lines().collect();
    assert_eq!(errors.len(), 2, "{stderr}");
    assert!(errors[0].contains("outside the mesh"), "{stderr}");
    assert_eq!(errors[1], "crowdnav: 1 of 3 queries found no path");
}

#[test]
fn a_found_path_tells_its_corners_from_its_points() {
    let out = crowdnav(&[
        "path",
        "worlds/two-rooms.json",
        "--from",
        "2,2",
        "--to",
        "18,8",
        "--radius",
        "1",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // "…: length L, turns at C corner(s), P points: (x, y) (x, y) …"
    let (head, points) = stdout.trim().split_once(" points: ").expect("points");
    let count: usize = head
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a point count");
    assert_eq!(points.matches('(').count(), count, "{stdout}");
    assert!(head.contains("turns at 1 corner,"), "{stdout}");
    // A disc turning at a corner follows an arc: more points than corners + 2.
    assert!(count > 1 + 2, "{stdout}");
}

#[test]
fn agents_started_off_the_map_are_warned_about() {
    let scenario = two_agents("outside", [-5.0, 2.0], 5);
    let out = crowdnav(&["run", scenario.to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("agent 0 starts off the walkable map at (-5, 2)"));
    // An agent in an obstacle (the square at 6..10 x 5..9) too.
    let scenario = two_agents("blocked", [8.0, 7.0], 5);
    let stderr = text(&crowdnav(&["run", scenario.to_str().expect("utf-8")]).stderr);
    assert!(
        stderr.contains("agent 0 starts off the walkable map"),
        "{stderr}"
    );
}

fn wrote_lines(out: &Output) -> Vec<String> {
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("wrote ").map(str::to_owned))
        .collect()
}

#[test]
fn every_file_written_gets_a_line() {
    let dir = temp_dir("messages", "wrote");
    let file = |name: &str| dir.join(name).to_str().expect("utf-8").to_owned();
    let svg = file("mesh.svg");
    assert_eq!(
        wrote_lines(&crowdnav(&["mesh", "worlds/two-rooms.json", "--svg", &svg])),
        [svg]
    );
    let path_svg = file("path.svg");
    let path = [
        "path",
        "worlds/two-rooms.json",
        "--from",
        "2,2",
        "--to",
        "18,8",
        "--svg",
        &path_svg,
    ];
    assert_eq!(wrote_lines(&crowdnav(&path)), [path_svg.as_str()]);
    let scenario = two_agents("files", [4.0, 2.0], 20);
    let (csv, gif, report, run_svg) = (
        file("run.csv"),
        file("run.gif"),
        file("run.json"),
        file("run.svg"),
    );
    let run = [
        "run",
        scenario.to_str().expect("utf-8"),
        "--trajectories",
        &csv,
        "--gif",
        &gif,
        "--report",
        &report,
        "--svg",
        &run_svg,
    ];
    let written = wrote_lines(&crowdnav(&run));
    assert_eq!(written, [csv, gif, report, run_svg]);
    for f in &written {
        assert!(std::path::Path::new(f).is_file(), "{f}");
    }
}

#[test]
fn the_summary_says_in_words_what_did_not_happen() {
    // One step: nobody arrives, nobody touches.
    let scenario = two_agents("short", [4.0, 2.0], 1);
    let out = crowdnav(&["run", scenario.to_str().expect("utf-8")]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("arrived 0/2, so no times to goal"),
        "{stdout}"
    );
    assert!(stdout.contains("no two agents ever touched"), "{stdout}");
    assert!(stdout.contains("after a first step of"), "{stdout}");
    for line in stdout.lines() {
        assert!(
            !line.contains(" - ") && !line.ends_with(" -") && !line.contains(" -,"),
            "a bare dash: {line}"
        );
    }
}
