//! `crowdnav-bench`: crowdnav against its peers, one process, one run.
//!
//! ```text
//! crowdnav-bench [all|paths|crowd|mesh|flow|queries|edit] [--quick] [--json FILE] [--out DIR] [--markdown FILE]
//!                [--map NAME] [--reps N] [--every K] [--only I] [--radii R,R] [--every-inflated K]
//!                [--disc-radius R] [--sizes N,N] [--steps N] [--limit SECONDS]
//! ```
//!
//! - `paths`: every scenario query of aurora and of the Iron Harvest map, crowdnav
//!   against the `polyanya` crate: r = 0 on the same mesh, r = 0.5 and 2 on polyanya's
//!   own inflated meshes (bake time apart); and crowdnav alone at r = 1 against its own
//!   r = 0, query by query (`--disc-radius`, 0: not run).
//! - `crowd`: the ORCA circle (N = 1 000, 10 000, 100 000) and the bottleneck,
//!   crowdnav's `World::step` against `dodgy_2d` on 1 and 2 threads and DetourCrowd
//!   on 1 (feature `detour`, opt-in), and runs to the finish.
//! - `mesh`: mesh building, crowdnav against polyanya's triangulation.
//! - `flow`: crowds that should flow like people (doors 0.8–2.4 m, counterflow,
//!   crossing streams), crowdnav against JuPedSim's CollisionFreeSpeed and SocialForce
//!   models (installed with pip into `target/flow/venv`, made on the first run; without
//!   Python or network that side says "skipped") and the specific flow measured in
//!   experiments; a fundamental diagram computed with PedPy.
//! - `queries`: the game-loop mesh queries on aurora (raycast, nearest point, random
//!   point for a disc), crowdnav against Detour's `dtNavMeshQuery` (feature `detour`).
//! - `edit`: run-time obstacle edits on aurora (`NavMesh::add_obstacle`,
//!   `remove_obstacle` of 10 m boxes) against a full build of the edited level and
//!   against polyanya building the edited level at r = 0 and r = 0.5, and against
//!   Detour TileCache's `addBoxObstacle` / `removeObstacle` + `update` (feature
//!   `detour`); the JSON's top level gets `edit_median_ms` and `edit_over_rebuild`.
//! - `all` (the default): the six.
//!
//! `--quick` takes small samples (for CI: under two minutes on two cores for the first
//! three parts; the flow part runs each layout once, JuPedSim on the 1 m door and the
//! corridors only, about a minute and a half, plus about a minute the first time for
//! pip to install JuPedSim). The tables
//! go to stdout as markdown (and to `--markdown FILE`), every figure to `--json FILE`,
//! the plots to `--out DIR` as SVG. Without the benchmark data (`CROWDNAV_DATA`,
//! default `../shared/data` beside the repository) the data parts say "skipped".
//!
//! A disc query of ours that runs longer than `--limit` seconds (by default
//! 2 s with `--quick`, else 5 s; 0: no limit) is left out of the r > 0 timings and listed as such: the queries are first
//! answered in a child process (`crowdnav-bench probe`) that is killed on overrun.

use crowdnav_bench::data::{data_dir, data_required};
use crowdnav_bench::run::{run, Options};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: crowdnav-bench [all|paths|crowd|mesh|flow|queries|edit] [--quick] [--json FILE] [--out DIR] [--markdown FILE]
       [--map NAME] [--reps N] [--every K] [--only I] [--radii R,R] [--every-inflated K]
       [--disc-radius R] [--sizes N,N] [--steps N] [--limit SECONDS]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match main_with(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.starts_with("usage") => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("crowdnav-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn list<T: std::str::FromStr>(flag: &str, v: &str) -> Result<Vec<T>, String> {
    v.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .map_err(|_| format!("{flag}: cannot read {x:?}\n{USAGE}"))
        })
        .collect()
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{flag}: cannot read {v:?}\n{USAGE}"))
}

fn main_with(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("probe") {
        // Internal: answer queries in a child process (see crowdnav_bench::guard).
        let [_, map, radius, indices] = args else {
            return Err(format!(
                "usage: crowdnav-bench probe MAP RADIUS I,J,..\n{USAGE}"
            ));
        };
        let dir = data_dir()?;
        let radius: f32 = number("radius", radius)?;
        let indices: Vec<usize> = list("indices", indices)?;
        return crowdnav_bench::guard::probe(&dir, map, radius, &indices);
    }
    let mut it = args.iter().peekable();
    let part = match it.peek().map(|s| s.as_str()) {
        Some(p @ ("all" | "paths" | "crowd" | "mesh" | "flow" | "queries" | "edit")) => {
            it.next();
            p.to_owned()
        }
        _ => "all".to_owned(),
    };
    let rest: Vec<&String> = it.collect();
    let quick = rest.iter().any(|a| a.as_str() == "--quick");
    let mut opts = if quick {
        Options::quick()
    } else {
        Options::full()
    };
    let (mut json, mut out, mut markdown) = (None::<PathBuf>, None::<PathBuf>, None::<PathBuf>);
    let mut limit = None::<f64>;
    let mut i = 0;
    while i < rest.len() {
        let flag = rest[i].as_str();
        if flag == "--quick" {
            i += 1;
            continue;
        }
        const VALUED: [&str; 13] = [
            "--disc-radius",
            "--json",
            "--out",
            "--markdown",
            "--limit",
            "--map",
            "--reps",
            "--every",
            "--only",
            "--radii",
            "--every-inflated",
            "--sizes",
            "--steps",
        ];
        if !VALUED.contains(&flag) {
            return Err(format!("usage: unknown argument {flag}\n{USAGE}"));
        }
        let value = rest
            .get(i + 1)
            .map(|s| s.as_str())
            .ok_or(format!("usage: {flag} needs a value\n{USAGE}"))?;
        i += 2;
        match flag {
            "--json" => json = Some(value.into()),
            "--out" => out = Some(value.into()),
            "--markdown" => markdown = Some(value.into()),
            "--limit" => limit = Some(number(flag, value)?),
            "--map" | "--reps" | "--every" | "--only" | "--radii" | "--every-inflated"
            | "--disc-radius" => {
                let p = opts
                    .paths
                    .as_mut()
                    .ok_or(format!("usage: {flag} is a paths option\n{USAGE}"))?;
                match flag {
                    "--map" => p.maps = vec![value.to_owned()],
                    "--reps" => {
                        p.r0.reps = number(flag, value)?;
                        p.inflated.reps = p.r0.reps;
                        if let Some((_, sel)) = &mut p.disc_over_point {
                            sel.reps = p.r0.reps;
                        }
                    }
                    "--disc-radius" => {
                        let radius: f32 = number(flag, value)?;
                        if !(radius.is_finite() && radius >= 0.0) {
                            return Err(format!("usage: {flag} needs a radius >= 0\n{USAGE}"));
                        }
                        p.disc_over_point = (radius > 0.0).then(|| {
                            let sel = p.disc_over_point.map_or(p.inflated, |(_, sel)| sel);
                            (radius, sel)
                        });
                    }
                    "--every" => p.r0.every = number(flag, value)?,
                    "--every-inflated" => p.inflated.every = number(flag, value)?,
                    "--only" => {
                        p.r0.only = Some(number(flag, value)?);
                        p.inflated.only = p.r0.only;
                        p.inflated.every = 1;
                        if let Some((_, sel)) = &mut p.disc_over_point {
                            sel.only = p.r0.only;
                            sel.every = 1;
                        }
                    }
                    _ => p.radii = list(flag, value)?,
                }
            }
            "--sizes" | "--steps" => {
                let c = opts
                    .crowd
                    .as_mut()
                    .ok_or(format!("usage: {flag} is a crowd option\n{USAGE}"))?;
                if flag == "--sizes" {
                    c.sizes = list(flag, value)?;
                } else {
                    c.steps = number(flag, value)?;
                }
            }
            _ => return Err(format!("usage: unknown argument {flag}\n{USAGE}")),
        }
    }
    if part != "all" {
        if part != "paths" {
            opts.paths = None;
        }
        if part != "crowd" {
            opts.crowd = None;
        }
        if part != "mesh" {
            opts.mesh = None;
        }
        if part != "flow" {
            opts.flow = None;
        }
        if part != "queries" {
            opts.queries = None;
        }
        if part != "edit" {
            opts.edit = None;
        }
    }
    if let (Some(p), Ok(exe)) = (opts.paths.as_mut(), std::env::current_exe()) {
        let limit = limit.unwrap_or(if quick { 2.0 } else { 5.0 });
        if limit > 0.0 && limit.is_finite() {
            p.guard = Some((exe, std::time::Duration::from_secs_f64(limit)));
        }
    }
    let dir = data_dir();
    if let (Err(why), true) = (
        &dir,
        opts.paths.is_some()
            || opts.mesh.is_some()
            || opts.queries.is_some()
            || opts.edit.is_some(),
    ) {
        if data_required() {
            return Err(format!("{why}; CI=true: the data parts must run"));
        }
        println!("skipped (data parts): {why}");
    }
    let report = run(&opts, dir.as_deref().map_err(String::as_str))?;
    println!(
        "## crowdnav-bench ({} mode, {} UTC)\n\n{}\n",
        opts.mode,
        report
            .json
            .get("date_utc")
            .and_then(|v| v.as_str())
            .unwrap_or("?"),
        report
            .json
            .get("machine")
            .and_then(|v| v.as_str())
            .unwrap_or("?")
    );
    print!("{}", report.markdown);
    let write = |path: &PathBuf, text: &str| {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    if let Some(path) = &markdown {
        write(path, &report.markdown)?;
    }
    if let Some(path) = &json {
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(report.json.clone()))
            .map_err(|e| e.to_string())?;
        write(path, &text)?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(dir) = &out {
        for (name, svg) in &report.plots {
            write(&dir.join(name), svg)?;
            eprintln!("wrote {}", dir.join(name).display());
        }
    }
    Ok(())
}
