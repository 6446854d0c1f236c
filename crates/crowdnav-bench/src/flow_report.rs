//! The flow part of a benchmark run: the door sweep, the counterflow and the crossing
//! of [`crowdnav::scenario::layouts`], run by crowdnav and by JuPedSim's
//! CollisionFreeSpeed and SocialForce models, measured by [`crate::flow`], against the
//! specific flow measured in experiments; a fundamental diagram by PedPy against
//! Weidmann's; a picture of the counterflow's lanes.

use crate::flow::{self, FlowRun, Tracks};
use crate::jupedsim::{flow_dir, Model, Python};
use crate::run::{finite, FlowOptions, Report};
use crate::svg::{Band, Plot, Series, TrackPanel, TrackPicture};
use crowdnav::scenario::layouts::{self, Layout};
use crowdnav::scenario::GoalSpec;
use glam::Vec2;
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// The specific flow through doors measured in experiments, persons/(m·s): about
/// 1.6–2.0 whatever the width (Seyfried et al. 2009, Liddle et al. 2011, Kretz et
/// al. 2006).
pub const EMPIRICAL_SPECIFIC_FLOW: (f64, f64) = (1.6, 2.0);

/// Weidmann's (1993) speed at density `rho` (persons/m²), m/s: `1.34 (1 − exp(−1.913
/// (1/ρ − 1/5.4)))`, 0 at and above 5.4 persons/m².
pub fn weidmann(rho: f64) -> f64 {
    if rho <= 0.0 {
        return 1.34;
    }
    (1.34 * (1.0 - (-1.913 * (1.0 / rho - 1.0 / 5.4)).exp())).max(0.0)
}

/// The sides, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Crowdnav,
    Jps(Model),
}

const SIDES: [Side; 3] = [
    Side::Crowdnav,
    Side::Jps(Model::CollisionFreeSpeed),
    Side::Jps(Model::SocialForce),
];

impl Side {
    fn key(self) -> String {
        match self {
            Side::Crowdnav => "crowdnav".to_owned(),
            Side::Jps(m) => format!("jupedsim_{}", m.key()),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Side::Crowdnav => "crowdnav (defaults)",
            Side::Jps(m) => m.label(),
        }
    }

    fn color(self) -> &'static str {
        match self {
            Side::Crowdnav => "#1f77b4",
            Side::Jps(Model::CollisionFreeSpeed) => "#ff7f0e",
            Side::Jps(Model::SocialForce) => "#2ca02c",
        }
    }
}

/// One run, measured.
#[derive(Clone, Debug)]
struct Measured {
    seed: u64,
    agents: usize,
    /// The agents meant to cross the line forward (everyone through the door; one
    /// direction in the corridors).
    expected: usize,
    /// How many of them did.
    through: usize,
    /// Other agents that crossed the line forward (pushed over it).
    strays: usize,
    specific_flow: Option<f64>,
    flow: Option<f64>,
    arrived: usize,
    clear_s: Option<f64>,
    alone_s: Option<f64>,
    lane_order: Option<f64>,
    overlapping_pairs: usize,
    ms_per_sim_s: f64,
    sim_s: f64,
}

impl Measured {
    fn clear_over_alone(&self) -> Option<f64> {
        Some(self.clear_s? / self.alone_s?)
    }

    fn json(&self) -> Value {
        let opt = |v: Option<f64>| v.map_or(Value::Null, finite);
        json!({
            "seed": self.seed, "agents": self.agents, "expected_forward": self.expected,
            "through": self.through, "strays": self.strays,
            "specific_flow": opt(self.specific_flow), "flow": opt(self.flow),
            "arrived": self.arrived, "clear_s": opt(self.clear_s), "alone_s": opt(self.alone_s),
            "clear_over_alone": opt(self.clear_over_alone()),
            "lane_order": opt(self.lane_order), "overlapping_pairs": self.overlapping_pairs,
            "ms_per_sim_second": finite(self.ms_per_sim_s), "sim_seconds": finite(self.sim_s),
        })
    }
}

/// What one side did on one layout: its runs (one per seed), or why it has none.
#[derive(Clone, Debug, Default)]
struct SideRuns {
    runs: Vec<Measured>,
    failures: Vec<String>,
    not_run: Option<String>,
}

impl SideRuns {
    fn values(&self, f: impl Fn(&Measured) -> Option<f64>) -> Vec<Option<f64>> {
        self.runs.iter().map(f).collect()
    }

    fn median(&self, f: impl Fn(&Measured) -> Option<f64>) -> Option<f64> {
        median(&self.values(f))
    }

    fn json(&self) -> Value {
        if let Some(why) = &self.not_run {
            return json!({ "not_run": why });
        }
        let opt = |v: Option<f64>| v.map_or(Value::Null, finite);
        json!({
            "runs": self.runs.iter().map(Measured::json).collect::<Vec<_>>(),
            "failures": self.failures,
            "specific_flow": opt(self.median(|m| m.specific_flow)),
            "clear_s": opt(self.median(|m| m.clear_s)),
            "clear_over_alone": opt(self.median(Measured::clear_over_alone)),
            "lane_order": opt(self.median(|m| m.lane_order)),
            "overlapping_pairs": self.runs.iter().map(|m| m.overlapping_pairs).max(),
            "ms_per_sim_second": opt(self.median(|m| Some(m.ms_per_sim_s).filter(|x| x.is_finite()))),
        })
    }
}

/// One layout (a door width, the counterflow, the crossing) and every side's runs.
struct Case {
    key: String,
    label: String,
    door: Option<f32>,
    sides: Vec<SideRuns>,
}

/// The median of the values that exist (the upper one of an even count); `None` when
/// none does.
fn median(values: &[Option<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().flatten().copied().collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// A table cell: the median over the runs (and their range when several), and how
/// many runs gave no value (`none` says what that means).
fn cell(values: &[Option<f64>], digits: usize, none: &str) -> String {
    if values.is_empty() {
        return "—".to_owned();
    }
    let some: Vec<f64> = values.iter().flatten().copied().collect();
    let missing = values.len() - some.len();
    let mut s = match median(values) {
        None => "—".to_owned(),
        Some(m) if some.len() > 1 => {
            let lo = some.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = some.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{m:.digits$} ({lo:.digits$}–{hi:.digits$})")
        }
        Some(m) => format!("{m:.digits$}"),
    };
    if missing > 0 {
        let _ = write!(s, " [{missing} of {} runs: {none}]", values.len());
    }
    s
}

/// Measures `run` of `layout`: its line, arrivals and, for a corridor walked both ways
/// (`lanes`), its lane order in the corridor's middle half.
fn measure(
    run: &FlowRun,
    layout: &Layout,
    seed: u64,
    lanes: bool,
    alone_s: Option<f64>,
) -> Measured {
    let s = &layout.scenario;
    let line = flow::measure_line(&run.tracks, layout.line);
    let heading = headings(layout);
    // The agents whose goal lies across the line forward (from its left to its right).
    let meant = flow::forward_agents(layout);
    let through = line.forward_times(&meant).len();
    let all_forward = line.forward.iter().flatten().count();
    let lane_order = lanes
        .then(|| {
            let length = s
                .world
                .as_ref()
                .and_then(|w| match w {
                    crowdnav::scenario::WorldSpec::Inline(l) => {
                        Some(l.boundary.iter().map(|p| p.x).fold(0.0f32, f32::max))
                    }
                    _ => None,
                })
                .unwrap_or(0.0);
            let every = (0.5 / f64::from(s.dt)).round().max(1.0) as usize;
            flow::lane_order(&run.tracks, &heading, (0.25 * length, 0.75 * length), every)
        })
        .flatten();
    Measured {
        seed,
        agents: s.agents.len(),
        expected: meant.len(),
        through,
        strays: all_forward - through,
        specific_flow: line.specific_flow(&meant),
        flow: line.flow(&meant),
        arrived: run.arrived(),
        clear_s: run.clear_time(),
        alone_s,
        lane_order,
        overlapping_pairs: run.overlapping_pairs,
        ms_per_sim_s: run.ms_per_sim_second(),
        sim_s: run.sim_seconds,
    }
}

/// Each agent's walking direction along `x` (the sign of its goal's `x` less its
/// start's).
fn headings(layout: &Layout) -> Vec<f32> {
    layout
        .scenario
        .agents
        .iter()
        .map(|a| match a.goal {
            GoalSpec::Point(g) => (g.x - a.pos.x).signum(),
            _ => 0.0,
        })
        .collect()
}

/// A trajectory CSV of crowdnav's run for PedPy: every `every`-th step.
fn write_csv(tracks: &Tracks, path: &std::path::Path, every: usize) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    tracks
        .write_csv(&mut out, every)
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The floor of `layout` as JSON polygons (`boundary`, `obstacles`).
fn floor(layout: &Layout) -> (Value, Value) {
    match flow::scene(layout) {
        Ok(scene) => (scene["boundary"].clone(), scene["obstacles"].clone()),
        Err(_) => (Value::Null, Value::Null),
    }
}

/// The flow part: see the module's documentation.
///
/// # Errors
/// A layout that cannot be made, or a crowdnav run that fails. JuPedSim's and
/// PedPy's failures are reported in the tables, never returned.
pub fn flow_part(r: &mut Report, opts: &FlowOptions) -> Result<(), String> {
    for key in [
        "flow_door_1m_specific_flow",
        "flow_counterflow_clear_over_alone",
        "flow_crossing_clear_over_alone",
        "flow_counterflow_lane_order",
        "flow_overlapping_pairs",
    ] {
        r.json.insert(key.into(), Value::Null);
    }
    let python = if opts.jupedsim {
        Python::prepare(&flow_dir())
    } else {
        Err("not asked for".to_owned())
    };
    if let Err(why) = &python {
        eprintln!("flow: JuPedSim and PedPy skipped: {why}");
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            eprintln!("flow: CI: JuPedSim's side is missing ({why}); crowdnav's side runs");
        }
    }
    let python = python.as_ref();
    let mut cases: Vec<Case> = Vec::new();
    let mut fd_runs: Vec<Value> = Vec::new();
    let mut lanes_tracks: Vec<(Side, Tracks)> = Vec::new();
    let mut lanes_floor = None;
    let (length, width) = opts.corridor;
    let mut kinds: Vec<(String, String, Option<f32>)> = opts
        .doors
        .iter()
        .map(|&w| (format!("door-{w:.1}"), format!("door {w:.1} m"), Some(w)))
        .collect();
    kinds.push((
        "counterflow".into(),
        format!("counterflow {length} × {width} m"),
        None,
    ));
    kinds.push((
        "crossing".into(),
        format!("crossing {length} × {width} m"),
        None,
    ));
    for (key, label, door) in kinds {
        let mut sides: Vec<SideRuns> = vec![SideRuns::default(); SIDES.len()];
        let jps_here = match door {
            Some(w) => opts.jupedsim_doors.iter().any(|&d| (d - w).abs() < 1e-4),
            None => opts.jupedsim_corridors,
        };
        for (k, &seed) in opts.seeds.iter().enumerate() {
            let layout = match (door, key.as_str()) {
                (Some(w), _) => layouts::door(opts.room, w, opts.door_agents, seed),
                (None, "counterflow") => layouts::counterflow(length, width, opts.per_side, seed),
                _ => layouts::crossing(length, width, opts.per_side, seed),
            }
            .map_err(|e| format!("flow: {label}: {e}"))?;
            let lanes = key == "counterflow";
            let alone = (door.is_none())
                .then(|| flow::time_alone(&layout))
                .transpose()?;
            let name = format!("{key}-s{seed}");
            eprintln!("flow: {label}, seed {seed}: crowdnav");
            let ours = flow::run_crowdnav(&layout)?;
            sides[0]
                .runs
                .push(measure(&ours, &layout, seed, lanes, alone));
            // The fundamental diagram: the first seed of the doors that JuPedSim runs.
            let fd_here = opts.fundamental_diagram && door.is_some() && jps_here && k == 0;
            if let (true, Ok(py)) = (fd_here, python) {
                let csv = py.runs_dir().join(format!("{name}-crowdnav.csv"));
                // 10 frames a second.
                let every = (0.1 / f64::from(layout.scenario.dt)).round().max(1.0) as usize;
                write_csv(&ours.tracks, &csv, every)?;
                let fps = 1.0 / (f64::from(layout.scenario.dt) * every as f64);
                let (boundary, obstacles) = floor(&layout);
                fd_runs.push(
                    json!({"name": format!("{key}/crowdnav"), "side": "crowdnav",
                    "csv": csv, "frame_rate": fps, "frame_step": (fps * 0.5).round(),
                    "sample": (fps * 0.5).round(), "boundary": boundary, "obstacles": obstacles}),
                );
            }
            if lanes && k == 0 {
                lanes_floor = Some(floor(&layout));
                lanes_tracks.push((Side::Crowdnav, ours.tracks.clone()));
            }
            drop(ours);
            for (i, side) in SIDES.iter().enumerate().skip(1) {
                let Side::Jps(model) = *side else { continue };
                let py = match python {
                    Ok(py) => py,
                    Err(why) => {
                        sides[i].not_run = Some(format!("skipped: {why}"));
                        continue;
                    }
                };
                if !jps_here || k >= opts.jupedsim_seeds {
                    if sides[i].runs.is_empty() && sides[i].failures.is_empty() {
                        sides[i].not_run = Some("not run in this mode".to_owned());
                    }
                    continue;
                }
                eprintln!("flow: {label}, seed {seed}: {}", model.label());
                let theirs =
                    flow::scene(&layout).and_then(|scene| py.simulate(&scene, model, &name));
                match theirs {
                    Ok(run) => {
                        sides[i].not_run = None;
                        sides[i]
                            .runs
                            .push(measure(&run, &layout, seed, lanes, alone));
                        if fd_here {
                            let fps = 1.0 / f64::from(layout.scenario.dt);
                            let (boundary, obstacles) = floor(&layout);
                            fd_runs.push(json!({"name": format!("{key}/{}", side.key()),
                                "side": side.key(), "csv": py.csv_path(&name, model),
                                "frame_rate": fps, "frame_step": (fps * 0.5).round(),
                                "sample": (fps * 0.5).round(), "boundary": boundary,
                                "obstacles": obstacles}));
                        }
                        if lanes && k == 0 {
                            lanes_tracks.push((*side, run.tracks));
                        }
                    }
                    Err(why) => {
                        eprintln!("flow: {label}: {}: {why}", model.label());
                        sides[i].failures.push(format!("seed {seed}: {why}"));
                    }
                }
            }
        }
        cases.push(Case {
            key,
            label,
            door,
            sides,
        });
    }
    let fd = match (opts.fundamental_diagram, python) {
        (false, _) => Err("not asked for".to_owned()),
        (true, Err(why)) => Err(format!("skipped: {why}")),
        (true, Ok(_)) if fd_runs.is_empty() => Err("no door runs".to_owned()),
        (true, Ok(py)) => {
            eprintln!("flow: PedPy: fundamental diagram of {} runs", fd_runs.len());
            let area = fd_area(opts.room);
            py.fundamental_diagram(&json!({"area": area, "cutoff": 1.0, "runs": fd_runs}))
        }
    };
    report(
        r,
        opts,
        &cases,
        &fd,
        python.err(),
        lanes_floor,
        &lanes_tracks,
    );
    Ok(())
}

/// The measurement area of the fundamental diagram: 2 × 2 m in the room, centred on
/// the door, from 2.5 m to 0.5 m before its wall.
fn fd_area(room: f32) -> Vec<[f32; 2]> {
    let (x0, x1) = (room - 2.5, room - 0.5);
    let (y0, y1) = (room / 2.0 - 1.0, room / 2.0 + 1.0);
    vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
}

/// The density bins of the fundamental diagram's table, persons/m².
const FD_BINS: [(f64, f64); 6] = [
    (0.0, 0.5),
    (0.5, 1.0),
    (1.0, 2.0),
    (2.0, 3.0),
    (3.0, 4.0),
    (4.0, 6.0),
];

fn report(
    r: &mut Report,
    opts: &FlowOptions,
    cases: &[Case],
    fd: &Result<Value, String>,
    python_err: Option<&String>,
    lanes_floor: Option<(Value, Value)>,
    lanes_tracks: &[(Side, Tracks)],
) {
    let mut md = String::from("### Crowd flow\n\n");
    let band = EMPIRICAL_SPECIFIC_FLOW;
    let _ = writeln!(
        md,
        "People of radius {} m walking at {} m/s. Doors: {} people leave a {} m room through a door in a 1 m wall; \
         specific flow = persons/(m·s) through the door's exit line between the 10th and the 90th percentile of the crowd \
         (median over seeds {:?}, range in brackets). Corridors {} × {} m, {} people a side. crowdnav: the library's defaults, \
         one thread; JuPedSim: its defaults, people's radius and speed as ours, dt {} s, one exit square per agent at its goal. \
         Everything is measured from the trajectories by the same code.\n",
        layouts::PERSON_RADIUS,
        layouts::PERSON_SPEED,
        opts.door_agents,
        opts.room,
        opts.seeds,
        opts.corridor.0,
        opts.corridor.1,
        opts.per_side,
        crate::jupedsim::JUPEDSIM_DT,
    );
    if let Some(why) = python_err {
        let _ = writeln!(md, "JuPedSim and PedPy: skipped: {why}\n");
    } else {
        let _ = writeln!(
            md,
            "JuPedSim side: {} in a virtual environment of its own.\n",
            crate::jupedsim::REQUIREMENTS.join(", ")
        );
    }
    md += "| door width m | ";
    md += &SIDES.map(Side::label).join(" | ");
    md += " | measured in experiments |\n|---:|---:|---:|---:|---:|\n";
    let mut flow_plot: Vec<Series> = SIDES
        .iter()
        .map(|s| Series {
            name: s.label().to_owned(),
            color: s.color(),
            points: Vec::new(),
            line: true,
        })
        .collect();
    for case in cases.iter().filter(|c| c.door.is_some()) {
        let w = case.door.unwrap_or(0.0);
        let _ = write!(md, "| {w:.1} |");
        for (i, side) in case.sides.iter().enumerate() {
            let text = match &side.not_run {
                Some(why) if why.starts_with("skipped") => "skipped".to_owned(),
                Some(_) => "—".to_owned(),
                None if side.runs.is_empty() => "failed".to_owned(),
                None => cell(&side.values(|m| m.specific_flow), 2, "under 90 % through"),
            };
            let _ = write!(md, " {text} |");
            if let Some(v) = side.median(|m| m.specific_flow) {
                flow_plot[i].points.push((f64::from(w), v));
            }
        }
        let _ = writeln!(md, " {:.1}–{:.1} |", band.0, band.1);
    }
    md += "\nEvery run: through = crossings of the line the expected way (door: everyone; corridors: one \
           direction) over how many should cross; time to clear = the last arrival (crowdnav: at the goal; \
           JuPedSim: removed at its exit); clear / alone = that over the slowest agent's time alone \
           (shortest path at 1.34 m/s; the goal is ≤ 2); lane order: see below; overlapping pairs: pairs ever \
           deeper into each other than 1 % of the radius (crowdnav: the world's count after every step; JuPedSim: \
           from its trajectories every 0.05 s); ms per simulated second: wall-clock of the stepping alone, one thread.\n\n";
    md += "| layout | side | through | time to clear s | clear / alone | lane order | overlapping pairs | ms per simulated s |\n";
    md += "|---|---|---:|---:|---:|---:|---:|---:|\n";
    for case in cases {
        for (side, runs) in SIDES.iter().zip(&case.sides) {
            if let Some(why) = &runs.not_run {
                // "not run in this mode", or skipped (said above the first table).
                if !why.starts_with("not run") && python_err.is_none() {
                    let _ = writeln!(
                        md,
                        "| {} | {} | {why} | | | | | |",
                        case.label,
                        side.label()
                    );
                }
                continue;
            }
            for f in &runs.failures {
                let _ = writeln!(
                    md,
                    "| {} | {} | failed: {f} | | | | | |",
                    case.label,
                    side.label()
                );
            }
            if runs.runs.is_empty() {
                continue;
            }
            let expected = runs.runs[0].expected;
            let through_cell = {
                let counts: Vec<usize> = runs.runs.iter().map(|m| m.through).collect();
                let lo = counts.iter().min().copied().unwrap_or(0);
                let hi = counts.iter().max().copied().unwrap_or(0);
                let strays = runs.runs.iter().map(|m| m.strays).max().unwrap_or(0);
                let mut c = if lo == hi {
                    format!("{lo}/{expected}")
                } else {
                    format!("{lo}–{hi}/{expected}")
                };
                if strays > 0 {
                    let _ = write!(c, " (+ up to {strays} others)");
                }
                c
            };
            let lane = if case.key == "counterflow" {
                cell(&runs.values(|m| m.lane_order), 2, "none")
            } else {
                "—".to_owned()
            };
            let ratio = if case.door.is_none() {
                cell(
                    &runs.values(Measured::clear_over_alone),
                    2,
                    "not all arrived",
                )
            } else {
                "—".to_owned()
            };
            let overlaps = runs
                .runs
                .iter()
                .map(|m| m.overlapping_pairs)
                .max()
                .unwrap_or(0);
            let _ = writeln!(
                md,
                "| {} | {} | {through_cell} | {} | {ratio} | {lane} | {overlaps} | {} |",
                case.label,
                side.label(),
                cell(&runs.values(|m| m.clear_s), 1, "not all arrived"),
                cell(
                    &runs.values(|m| Some(m.ms_per_sim_s).filter(|x| x.is_finite())),
                    1,
                    "no time simulated"
                )
            );
        }
    }
    let _ = writeln!(
        md,
        "\nLane order: the library's lane order parameter (after Rex and Löwen 2007; the run report's `lane_order`, \
         see docs/scenario-format.md) of the people in the corridor's middle half, averaged over frames every 0.5 s \
         while the two directions meet there. 1: lanes of one way each; 0: each lane holds as many one way as the \
         other; about 1/n when mixed at random (n people per lane).\n"
    );
    // The fundamental diagram.
    let mut fd_json = Map::new();
    let mut fd_plot: Vec<Series> = Vec::new();
    match fd {
        Err(why) => {
            let _ = writeln!(md, "Fundamental diagram: {why}\n");
            fd_json.insert("skipped".into(), json!(why));
        }
        Ok(v) => {
            let runs = v["runs"].as_array().cloned().unwrap_or_default();
            let area = fd_area(opts.room);
            let _ = writeln!(
                md,
                "Fundamental diagram (PedPy {}): Voronoi density (cells cut off at 1 m) and Voronoi speed (displacement \
                 over ±0.5 s) in the 2 × 2 m area in front of the door (x {}–{} m, y {}–{} m), every 0.5 s of the first seed's \
                 run at every door width that JuPedSim runs; mean speed per density bin, m/s (frames in the bin), against Weidmann's \
                 v(ρ) = 1.34 (1 − exp(−1.913 (1/ρ − 1/5.4))).\n",
                v["pedpy"].as_str().unwrap_or("?"),
                area[0][0],
                area[1][0],
                area[0][1],
                area[2][1]
            );
            md += "| density persons/m² | Weidmann | ";
            md += &SIDES.map(Side::label).join(" | ");
            md += " |\n|---|---:|---:|---:|---:|\n";
            let mut per_side: Vec<Vec<(f64, f64)>> = vec![Vec::new(); SIDES.len()];
            for run in &runs {
                let name = run["name"].as_str().unwrap_or("");
                let Some(i) = SIDES
                    .iter()
                    .position(|s| name.ends_with(&format!("/{}", s.key())))
                else {
                    continue;
                };
                let d = run["density"].as_array().cloned().unwrap_or_default();
                let s = run["speed"].as_array().cloned().unwrap_or_default();
                per_side[i].extend(
                    d.iter()
                        .zip(&s)
                        .filter_map(|(d, s)| Some((d.as_f64()?, s.as_f64()?)))
                        .filter(|(d, s)| d.is_finite() && s.is_finite()),
                );
            }
            let mut bins_json = Vec::new();
            for (lo, hi) in FD_BINS {
                let mid = 0.5 * (lo + hi);
                let _ = write!(md, "| {lo}–{hi} | {:.2} |", weidmann(mid));
                let mut row = Map::new();
                row.insert("density".into(), json!([lo, hi]));
                row.insert("weidmann_at_middle".into(), finite(weidmann(mid)));
                for (side, pts) in SIDES.iter().zip(&per_side) {
                    let inside: Vec<f64> = pts
                        .iter()
                        .filter(|p| p.0 >= lo && p.0 < hi)
                        .map(|p| p.1)
                        .collect();
                    let mean = (!inside.is_empty())
                        .then(|| inside.iter().sum::<f64>() / inside.len() as f64);
                    let _ = write!(
                        md,
                        " {} |",
                        mean.map_or("—".to_owned(), |m| format!("{m:.2} ({})", inside.len()))
                    );
                    row.insert(
                        side.key(),
                        json!({"mean_speed": mean.map_or(Value::Null, finite), "frames": inside.len()}),
                    );
                }
                md.push('\n');
                bins_json.push(Value::Object(row));
            }
            md.push('\n');
            fd_json.insert("pedpy".into(), v["pedpy"].clone());
            fd_json.insert("area".into(), json!(area));
            fd_json.insert("bins".into(), Value::Array(bins_json));
            for (side, pts) in SIDES.iter().zip(per_side) {
                fd_json.insert(format!("{}_frames", side.key()), json!(pts.len()));
                if !pts.is_empty() {
                    fd_plot.push(Series {
                        name: side.label().to_owned(),
                        color: side.color(),
                        points: pts,
                        line: false,
                    });
                }
            }
            fd_plot.push(Series {
                name: "Weidmann (1993)".into(),
                color: "black",
                points: (1..=108)
                    .map(|k| 0.05 * f64::from(k))
                    .map(|d| (d, weidmann(d)))
                    .collect(),
                line: true,
            });
        }
    }
    // JSON.
    let mut out = Map::new();
    out.insert(
        "jupedsim".into(),
        match python_err {
            Some(why) => json!({"skipped": why}),
            None => json!({"requirements": crate::jupedsim::REQUIREMENTS, "dt": crate::jupedsim::JUPEDSIM_DT,
                           "exit_half_side": crate::jupedsim::EXIT_HALF}),
        },
    );
    out.insert("empirical_specific_flow".into(), json!([band.0, band.1]));
    out.insert(
        "setup".into(),
        json!({"room": opts.room, "door_agents": opts.door_agents, "corridor": [opts.corridor.0, opts.corridor.1],
               "per_side": opts.per_side, "seeds": opts.seeds,
               "lane_reach": crowdnav::scenario::LANE_REACH}),
    );
    let mut doors = Vec::new();
    for case in cases {
        let mut c = Map::new();
        if let Some(w) = case.door {
            c.insert("width".into(), json!(w));
        }
        for (side, runs) in SIDES.iter().zip(&case.sides) {
            c.insert(side.key(), runs.json());
        }
        if case.door.is_some() {
            doors.push(Value::Object(c));
        } else {
            out.insert(case.key.clone(), Value::Object(c));
        }
    }
    out.insert("door".into(), Value::Array(doors));
    out.insert("fundamental_diagram".into(), Value::Object(fd_json));
    let ours = |key: &str| cases.iter().find(|c| c.key == key).map(|c| &c.sides[0]);
    let opt = |v: Option<f64>| v.map_or(Value::Null, finite);
    if let Some(c) = cases
        .iter()
        .find(|c| c.door.is_some_and(|w| (w - 1.0).abs() < 1e-4))
    {
        r.json.insert(
            "flow_door_1m_specific_flow".into(),
            opt(c.sides[0].median(|m| m.specific_flow)),
        );
    }
    if let Some(s) = ours("counterflow") {
        r.json.insert(
            "flow_counterflow_clear_over_alone".into(),
            opt(s.median(Measured::clear_over_alone)),
        );
        r.json.insert(
            "flow_counterflow_lane_order".into(),
            opt(s.median(|m| m.lane_order)),
        );
    }
    if let Some(s) = ours("crossing") {
        r.json.insert(
            "flow_crossing_clear_over_alone".into(),
            opt(s.median(Measured::clear_over_alone)),
        );
    }
    let overlaps = cases
        .iter()
        .flat_map(|c| c.sides[0].runs.iter().map(|m| m.overlapping_pairs))
        .max();
    r.json
        .insert("flow_overlapping_pairs".into(), json!(overlaps));
    r.json.insert("flow".into(), Value::Object(out));
    // Plots.
    flow_plot.retain(|s| !s.points.is_empty());
    r.plots.push((
        "flow-door-specific-flow.svg".into(),
        Plot {
            title: "Specific flow through a door against its width".into(),
            x_label: "door width (m)".into(),
            y_label: "specific flow (persons / (m s)), median over seeds".into(),
            log_x: false,
            log_y: false,
            series: flow_plot,
            bands: vec![Band {
                name: "experiments (Seyfried 2009, Liddle 2011, Kretz 2006)".into(),
                color: "#888888",
                y: band,
            }],
        }
        .to_svg(),
    ));
    if !fd_plot.is_empty() {
        r.plots.push((
            "flow-fundamental-diagram.svg".into(),
            Plot {
                title: "Speed against density in front of the door (PedPy, Voronoi)".into(),
                x_label: "density (persons / m²)".into(),
                y_label: "speed (m/s)".into(),
                log_x: false,
                log_y: false,
                series: fd_plot,
                bands: Vec::new(),
            }
            .to_svg(),
        ));
    }
    if let (Some((boundary, _)), false) = (lanes_floor, lanes_tracks.is_empty()) {
        r.plots.push((
            "flow-counterflow-lanes.svg".into(),
            lanes_picture(opts, &boundary, cases, lanes_tracks),
        ));
    }
    r.markdown += &md;
}

/// Seconds of trail behind each agent in the picture of the lanes.
const TRAIL_S: f64 = 6.0;

/// The frame at which the two groups of a counterflow along a corridor `length` long
/// are halfway through each other: the first at which half of each direction has
/// passed the corridor's middle, or failing that, the one at which the smaller of the
/// two passed fractions is largest (the earliest of ties).
fn halfway_frame(t: &Tracks, heading: &[f32], length: f32) -> usize {
    let middle = 0.5 * length;
    let east = heading.iter().filter(|h| **h > 0.0).count().max(1) as f64;
    let west = heading.iter().filter(|h| **h < 0.0).count().max(1) as f64;
    let mut best = (0, f64::NEG_INFINITY);
    for f in 0..t.frames() {
        let (mut e, mut w) = (0.0, 0.0);
        for (a, h) in heading.iter().enumerate().take(t.agents()) {
            if let Some(p) = t.position(f, a) {
                if *h > 0.0 && p.x > middle {
                    e += 1.0;
                } else if *h < 0.0 && p.x < middle {
                    w += 1.0;
                }
            }
        }
        let passed = (e / east).min(w / west);
        if passed >= 0.5 {
            return f;
        }
        if passed > best.1 {
            best = (f, passed);
        }
    }
    best.0
}

/// The counterflow, one panel a side: each agent's last [`TRAIL_S`] seconds of path
/// and its disc when the groups are halfway through each other ([`halfway_frame`]),
/// coloured by direction. (JuPedSim removes agents at their exits: those are gone.)
fn lanes_picture(
    opts: &FlowOptions,
    boundary: &Value,
    cases: &[Case],
    tracks: &[(Side, Tracks)],
) -> String {
    let outline: Vec<(f64, f64)> = boundary
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
        .collect();
    let seed = opts.seeds.first().copied().unwrap_or(1);
    let layout = layouts::counterflow(opts.corridor.0, opts.corridor.1, opts.per_side, seed);
    let heading = layout.as_ref().map(headings).unwrap_or_default();
    let counterflow = cases.iter().find(|c| c.key == "counterflow");
    let color = |a: usize| {
        if heading.get(a).copied().unwrap_or(0.0) > 0.0 {
            "#1f77b4"
        } else {
            "#d62728"
        }
    };
    let panels = tracks
        .iter()
        .map(|(side, t)| {
            let now = halfway_frame(t, &heading, opts.corridor.0);
            let t_now = t.times().get(now).copied().unwrap_or(0.0);
            let first = t.times().partition_point(|&x| x < t_now - TRAIL_S);
            // A point every 0.1 s or so.
            let dt = t
                .times()
                .get(1)
                .map_or(0.1, |t1| t1 - t.times()[0])
                .max(1e-3);
            let every = ((0.1 / dt).round() as usize).max(1);
            let mut paths = Vec::new();
            let mut discs = Vec::new();
            for a in 0..t.agents() {
                let mut pts: Vec<(f64, f64)> = (first..=now)
                    .step_by(every)
                    .chain(std::iter::once(now))
                    .filter_map(|f| t.position(f, a))
                    .map(|p: Vec2| (f64::from(p.x), f64::from(p.y)))
                    .collect();
                pts.dedup();
                if let Some(p) = t.position(now, a) {
                    discs.push((
                        color(a),
                        (f64::from(p.x), f64::from(p.y)),
                        f64::from(layouts::PERSON_RADIUS),
                    ));
                }
                if pts.len() > 1 {
                    paths.push((color(a), pts));
                }
            }
            let i = SIDES.iter().position(|s| s == side).unwrap_or(0);
            let summary =
                counterflow
                    .and_then(|c| c.sides[i].runs.first())
                    .map_or(String::new(), |m| {
                        format!(
                            "; whole run: clear in {}, lane order {}",
                            m.clear_s
                                .map_or("— (not all arrived)".to_owned(), |t| format!(
                                    "{t:.1} s"
                                )),
                            m.lane_order.map_or("—".to_owned(), |l| format!("{l:.2}"))
                        )
                    });
            TrackPanel {
                label: format!("{} at t = {t_now:.1} s{summary}", side.label()),
                outlines: vec![outline.clone()],
                paths,
                discs,
            }
        })
        .collect();
    TrackPicture {
        title: format!(
            "Counterflow, {} × {} m, {} people a side (seed {seed})",
            opts.corridor.0, opts.corridor.1, opts.per_side
        ),
        legend: format!(
            "blue: walking east, red: walking west; each side when half of each group has passed the middle, with the last {TRAIL_S} s of path"
        ),
        window: ((0.0, 0.0), (f64::from(opts.corridor.0), f64::from(opts.corridor.1))),
        panels,
    }
    .to_svg(960.0)
}
