//! One benchmark run: which parts, how big, and the report they produce (a markdown
//! table per part, a JSON object of every figure, SVG plots).

use crate::blocked::BlockedSpace;
use crate::crowd::{self, Finish, StepTimes};
use crate::meshes::{self, MeshBuild};
use crate::paths::{self, Found, Inflated, PathWorld, Selection, Timed};
use crate::stats::{median, Spread};
use crate::svg::{Plot, Series};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use std::path::Path;

/// What the path part runs.
#[derive(Clone, Debug)]
pub struct PathOptions {
    /// Maps (names from [`paths::MAPS`]).
    pub maps: Vec<String>,
    /// r = 0 queries.
    pub r0: Selection,
    /// Radii compared against polyanya's inflated meshes.
    pub radii: Vec<f32>,
    /// Queries for r > 0.
    pub inflated: Selection,
    /// The `crowdnav-bench` executable (for `probe`) and the time limit of one r > 0
    /// query of ours; `None`: no limit.
    pub guard: Option<(std::path::PathBuf, std::time::Duration)>,
    /// A radius and the queries at which our disc queries are timed against our point
    /// queries (see [`paths::DiscOverPoint`]); `None`: not run.
    pub disc_over_point: Option<(f32, Selection)>,
}

/// What the crowd part runs.
#[derive(Clone, Debug)]
pub struct CrowdOptions {
    /// Circle sizes.
    pub sizes: Vec<usize>,
    /// Thread counts.
    pub threads: Vec<usize>,
    /// Steps before timing.
    pub warmup: usize,
    /// Timed steps (per side); for N >= 100 000, half as many.
    pub steps: usize,
    /// Step caps of the runs to the finish, per circle size; a size without an entry
    /// gets no such run.
    pub finish_caps: Vec<(usize, u64)>,
    /// Lower step caps for DetourCrowd's runs to the finish, per circle size (it is
    /// single-threaded and several times slower per step); a size without an entry
    /// gets the cap of `finish_caps`.
    pub detour_finish_caps: Vec<(usize, u64)>,
    /// Also the bottleneck scenario (timing and run to the finish).
    pub bottleneck: bool,
    /// Also DetourCrowd (single-threaded, on the 1-thread rows); needs the `detour`
    /// feature, without it the rows say "not built".
    pub detour: bool,
}

/// What the mesh part runs.
#[derive(Clone, Debug)]
pub struct MeshOptions {
    /// Indices into [`meshes::MESH_MAPS`].
    pub maps: Vec<usize>,
    /// Builds per side (median kept).
    pub reps: usize,
}

/// What the edit part runs (see [`crate::edits`]).
#[derive(Clone, Debug)]
pub struct EditOptions {
    /// Obstacles added (timed).
    pub edits: usize,
    /// Obstacles in place at most; past that each add is followed by a timed remove.
    pub live: usize,
    /// Full builds of the edited level (median kept).
    pub rebuilds: usize,
    /// Edits after which polyanya builds the edited level (r = 0 and r = 0.5); 0: none.
    pub polyanya_edits: usize,
}

/// What the queries part runs (see [`crate::queries`]).
#[derive(Clone, Debug)]
pub struct QueryOptions {
    /// The disc radii, each run in turn (Detour's navmesh is eroded by each).
    pub radii: Vec<f32>,
    /// Queries of each kind.
    pub count: usize,
    /// Timed batches per side (fastest kept).
    pub reps: usize,
}

/// What the flow part runs (see [`crate::flow_report`]).
#[derive(Clone, Debug)]
pub struct FlowOptions {
    /// Door widths of the sweep, metres.
    pub doors: Vec<f32>,
    /// The room's side, metres.
    pub room: f32,
    /// People in the room.
    pub door_agents: usize,
    /// Length and width of the corridors (counterflow; each arm of the crossing),
    /// metres.
    pub corridor: (f32, f32),
    /// People per direction in the corridors.
    pub per_side: usize,
    /// The layouts' seeds: each layout runs once per seed.
    pub seeds: Vec<u64>,
    /// Run JuPedSim too (making its Python environment if need be).
    pub jupedsim: bool,
    /// The door widths that JuPedSim runs (each of them must be in `doors`).
    pub jupedsim_doors: Vec<f32>,
    /// JuPedSim runs the first this many seeds.
    pub jupedsim_seeds: usize,
    /// JuPedSim runs the counterflow and the crossing.
    pub jupedsim_corridors: bool,
    /// A fundamental diagram with PedPy (needs the Python environment).
    pub fundamental_diagram: bool,
}

impl FlowOptions {
    /// The set-up of issue 19: the door sweep 0.8–2.4 m out of a 30 m room with 120
    /// people, corridors 40 × 4 m with 40 people a side, `seeds` seeds.
    pub fn standard(seeds: Vec<u64>) -> FlowOptions {
        FlowOptions {
            doors: vec![0.8, 1.0, 1.2, 1.6, 2.0, 2.4],
            room: 30.0,
            door_agents: 120,
            corridor: (40.0, 4.0),
            per_side: 40,
            jupedsim_seeds: seeds.len(),
            seeds,
            jupedsim: true,
            jupedsim_doors: vec![0.8, 1.0, 1.2, 1.6, 2.0, 2.4],
            jupedsim_corridors: true,
            fundamental_diagram: true,
        }
    }
}

/// A whole run.
#[derive(Clone, Debug)]
pub struct Options {
    /// `"quick"`, `"full"` or a caller's own label.
    pub mode: String,
    /// The path part, if run.
    pub paths: Option<PathOptions>,
    /// The crowd part, if run.
    pub crowd: Option<CrowdOptions>,
    /// The mesh part, if run.
    pub mesh: Option<MeshOptions>,
    /// The flow part, if run.
    pub flow: Option<FlowOptions>,
    /// The mesh queries part, if run.
    pub queries: Option<QueryOptions>,
    /// The mesh edit part, if run.
    pub edit: Option<EditOptions>,
}

impl Options {
    /// `--quick`: small samples, under two minutes on a 2-core machine.
    pub fn quick() -> Options {
        Options {
            mode: "quick".to_owned(),
            paths: Some(PathOptions {
                maps: paths::MAPS.iter().map(|m| m.0.to_owned()).collect(),
                r0: Selection {
                    reps: 3,
                    every: 20,
                    only: None,
                },
                radii: vec![0.5, 2.0],
                inflated: Selection {
                    reps: 1,
                    every: 200,
                    only: None,
                },
                guard: None,
                disc_over_point: Some((
                    1.0,
                    Selection {
                        reps: 3,
                        every: 20,
                        only: None,
                    },
                )),
            }),
            crowd: Some(CrowdOptions {
                sizes: vec![1_000, 10_000],
                threads: vec![1, 2],
                // Five warm-up and five timed steps moved the ratio between 0.43 and
                // 0.65 from run to run on a quiet machine; twenty of each cost about a
                // second more.
                warmup: 20,
                steps: 20,
                finish_caps: Vec::new(),
                detour_finish_caps: Vec::new(),
                bottleneck: true,
                detour: true,
            }),
            mesh: Some(MeshOptions {
                maps: vec![0],
                reps: 1,
            }),
            // crowdnav on every layout once; JuPedSim (slower: about 20 s a door)
            // on the 1 m door and the corridors.
            flow: Some(FlowOptions {
                jupedsim_doors: vec![1.0],
                ..FlowOptions::standard(vec![1])
            }),
            queries: Some(QueryOptions {
                radii: vec![0.0, 1.0],
                count: 2_000,
                reps: 15,
            }),
            edit: Some(EditOptions {
                edits: 200,
                live: 16,
                rebuilds: 3,
                polyanya_edits: 8,
            }),
        }
    }

    /// The full run.
    pub fn full() -> Options {
        Options {
            mode: "full".to_owned(),
            paths: Some(PathOptions {
                maps: paths::MAPS.iter().map(|m| m.0.to_owned()).collect(),
                r0: Selection {
                    reps: 5,
                    every: 1,
                    only: None,
                },
                radii: vec![0.5, 2.0],
                inflated: Selection {
                    reps: 3,
                    every: 20,
                    only: None,
                },
                guard: None,
                disc_over_point: Some((
                    1.0,
                    Selection {
                        reps: 5,
                        every: 5,
                        only: None,
                    },
                )),
            }),
            crowd: Some(CrowdOptions {
                sizes: vec![1_000, 10_000, 100_000],
                threads: vec![1, 2],
                warmup: 20,
                steps: 20,
                finish_caps: vec![(1_000, 8_000), (10_000, 20_000), (100_000, 100)],
                detour_finish_caps: vec![(10_000, 2_000)],
                bottleneck: true,
                detour: true,
            }),
            mesh: Some(MeshOptions {
                maps: (0..meshes::MESH_MAPS.len()).collect(),
                reps: 3,
            }),
            flow: Some(FlowOptions::standard(vec![1, 2, 3])),
            // r = 2.5 too: a disc larger than the ray grid's quarter cell, where our
            // raycast is slower than Detour's (docs/benchmarks.md, mesh queries).
            queries: Some(QueryOptions {
                radii: vec![0.0, 1.0, 2.5],
                count: 20_000,
                reps: 15,
            }),
            edit: Some(EditOptions {
                edits: 2_000,
                live: 16,
                rebuilds: 5,
                polyanya_edits: 40,
            }),
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every figure.
    pub json: Map<String, Value>,
    /// The markdown tables.
    pub markdown: String,
    /// SVG plots: (file name, document).
    pub plots: Vec<(String, String)>,
}

/// Runs `opts`, reading data from `data` (`Err`: why there is none, and the data parts
/// say "skipped"). Progress goes to stderr.
///
/// # Errors
/// A failed correctness check or an unreadable input.
pub fn run(opts: &Options, data: Result<&Path, &str>) -> Result<Report, String> {
    let mut r = Report::default();
    r.json.insert("mode".into(), json!(opts.mode));
    r.json.insert("date_utc".into(), json!(utc_now()));
    r.json.insert("machine".into(), json!(machine()));
    r.json
        .insert("path_median_ratio_vs_polyanya".into(), Value::Null);
    r.json
        .insert("disc_over_point_median_ratio".into(), Value::Null);
    r.json
        .insert("orca_step_ratio_vs_dodgy".into(), Value::Null);
    r.json
        .insert("orca_step_ratio_vs_detour".into(), Value::Null);
    r.json.insert("edit_median_ms".into(), Value::Null);
    r.json.insert("edit_over_rebuild".into(), Value::Null);
    if let Some(p) = &opts.paths {
        path_part(&mut r, p, data)?;
    }
    if let Some(c) = &opts.crowd {
        crowd_part(&mut r, c)?;
    }
    if let Some(m) = &opts.mesh {
        mesh_part(&mut r, m, data)?;
    }
    if let Some(f) = &opts.flow {
        crate::flow_report::flow_part(&mut r, f)?;
    }
    if let Some(q) = &opts.queries {
        query_part(&mut r, q, data)?;
    }
    if let Some(e) = &opts.edit {
        edit_part(&mut r, e, data)?;
    }
    Ok(r)
}

fn spread_json(s: Spread) -> Value {
    json!({"median": finite(s.median), "p95": finite(s.p95), "max": finite(s.max)})
}

/// `x` as JSON, `null` when not finite.
pub(crate) fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

fn ms3(s: Spread) -> String {
    format!("{:.3} / {:.3} / {:.2}", s.median, s.p95, s.max)
}

fn path_part(r: &mut Report, opts: &PathOptions, data: Result<&Path, &str>) -> Result<(), String> {
    let mut md = String::from("### Path queries\n\n");
    let data = match data {
        Ok(d) => d,
        Err(why) => {
            let _ = writeln!(md, "skipped: {why}\n");
            r.json.insert("paths".into(), json!({"skipped": why}));
            r.markdown += &md;
            return Ok(());
        }
    };
    let mut maps_json = Map::new();
    let mut r0_rows = String::new();
    let mut disc_rows = String::new();
    let mut inflated_rows = String::new();
    let mut timeouts: Vec<String> = Vec::new();
    for name in &opts.maps {
        eprintln!("paths: loading {name}");
        let world = PathWorld::load(data, name)?;
        eprintln!(
            "paths: {name}: r = 0, {} of {} queries",
            opts.r0.pick(&world.queries).len(),
            world.queries.len()
        );
        let timed = paths::time_r0(&world, opts.r0)?;
        let (ours, theirs) = ms_spreads(&timed);
        let mut ratios = paths::time_ratios(&timed);
        let ratio = Spread::of(&ratios);
        let totals = timed.iter().map(|t| t.ours_s).sum::<f64>()
            / timed.iter().map(|t| t.theirs_s).sum::<f64>();
        let diffs: Vec<f64> = paths::length_differences(&timed)
            .iter()
            .map(|d| d.abs())
            .collect();
        let found = Found::of(&timed);
        let _ = writeln!(
            r0_rows,
            "| {name} | {} | {} | {} | {:.2} ({:.2}) | {totals:.2} | {} / {} , max rel. diff {:.1e} |",
            timed.len(),
            ms3(ours),
            ms3(theirs),
            ratio.median,
            ratio.p95,
            found.both + found.neither,
            timed.len(),
            Spread::of(&diffs).max
        );
        if name == "aurora" {
            r.json.insert(
                "path_median_ratio_vs_polyanya".into(),
                finite(median(&mut ratios)),
            );
            r.plots.push((
                "bench-path-time-vs-length.svg".into(),
                time_vs_length(&timed, name),
            ));
        }
        let mut map_json = Map::new();
        map_json.insert(
            "r0".into(),
            json!({
                "queries": timed.len(),
                "scenario_queries": world.queries.len(),
                "ours_ms": spread_json(ours),
                "theirs_ms": spread_json(theirs),
                "ratio_per_query": spread_json(ratio),
                "ratio_of_totals": finite(totals),
                "length_max_relative_difference": finite(Spread::of(&diffs).max),
                "agree": found.both + found.neither,
            }),
        );
        if let Some((radius, sel)) = opts.disc_over_point {
            eprintln!(
                "paths: {name}: crowdnav at r = {radius} against r = 0, {} queries",
                sel.pick(&world.queries).len()
            );
            let d = paths::time_disc_over_point(&world, radius, sel);
            let mut ratios = d.ratios();
            let ratio = Spread::of(&ratios);
            let (of_medians, of_totals) = (d.ratio_of_medians(), d.ratio_of_totals());
            let _ = writeln!(
                disc_rows,
                "| {name} | {radius} | {} ({} without) | {:.2} ({:.2}) | {:.2} | {:.2} |",
                d.timed.len(),
                d.no_path,
                ratio.median,
                ratio.p95,
                of_medians,
                of_totals
            );
            if name == "aurora" {
                r.json.insert(
                    "disc_over_point_median_ratio".into(),
                    finite(median(&mut ratios)),
                );
            }
            map_json.insert(
                "disc_over_point".into(),
                json!({
                    "radius": radius,
                    "queries": d.timed.len(),
                    "queries_without_path": d.no_path,
                    "ratio_per_query": spread_json(ratio),
                    "ratio_of_medians": finite(of_medians),
                    "ratio_of_totals": finite(of_totals),
                }),
            );
        }
        let blocked = BlockedSpace::of(&world.ours);
        eprintln!(
            "paths: {name}: {} obstacle rings for polyanya ({} blocked groups, {} of them enclosing walkable islands)",
            blocked.obstacles.len(),
            blocked.traced_groups + blocked.enclosing_groups,
            blocked.enclosing_groups
        );
        let mut infl_json = Vec::new();
        for &radius in &opts.radii {
            eprintln!(
                "paths: {name}: r = {radius}, {} queries (polyanya bakes its mesh first)",
                opts.inflated.pick(&world.queries).len()
            );
            let skip = match &opts.guard {
                Some((exe, limit)) => {
                    crate::guard::screen(exe, &world, radius, opts.inflated, *limit)?
                }
                None => Vec::new(),
            };
            if !skip.is_empty() {
                eprintln!("paths: {name}: r = {radius}: no answer of ours within the limit for queries {skip:?}");
            }
            let inf = paths::time_inflated(&world, &blocked, radius, opts.inflated, &skip)?;
            let (row, j) = inflated_summary(name, &inf, &blocked);
            inflated_rows += &row;
            if !inf.timed_out.is_empty() {
                timeouts.push(format!("{name} r = {radius}: queries {:?}", inf.timed_out));
            }
            infl_json.push(j);
        }
        map_json.insert("inflated".into(), Value::Array(infl_json));
        maps_json.insert(name.clone(), Value::Object(map_json));
    }
    md += "r = 0, both on the same `.mesh` file; times per query in ms (median / p95 / max of the per-query medians); \
           ratio = crowdnav / polyanya per query, median (p95); every answer checked against the other side's.\n\n";
    md += "| map | queries | crowdnav ms | polyanya ms | ours/theirs per query | ratio of totals | lengths agree |\n";
    md += "|---|---:|---:|---:|---:|---:|---|\n";
    md += &r0_rows;
    if !disc_rows.is_empty() {
        md += "\nDisc against point, crowdnav alone: each query with a path for the disc timed at r = 0 \
               and at r, one after the other (queries without a path for the disc left out and \
               counted); disc time / point time per query, median (p95), then the median disc time \
               over the median point time and the total over the total.\n\n";
        md += "| map | r | queries with a path | disc/point per query | ratio of medians | ratio of totals |\n";
        md += "|---|---:|---:|---:|---:|---:|\n";
        md += &disc_rows;
    }
    md += "\nr > 0: crowdnav on its one mesh; polyanya on a mesh it triangulated and inflated for that radius \
           (bake time apart). found = both / ours only / polyanya only / neither; length difference = \
           (ours − polyanya) / polyanya over queries both answered: median, then p95 and max of |·|.\n\n";
    md += "| map | r | queries | polyanya bake s | found | crowdnav ms | polyanya ms | ours/theirs per query | length diff median / p95 / max |\n";
    md += "|---|---:|---:|---:|---|---:|---:|---:|---:|\n";
    md += &inflated_rows;
    if !timeouts.is_empty() {
        md += "\ntimed out = crowdnav gave no answer within the time limit (`--limit`); those queries \
               are left out of the row: ";
        md += &timeouts.join("; ");
        md.push_str(".\n");
    }
    md.push('\n');
    r.json.insert("paths".into(), Value::Object(maps_json));
    r.markdown += &md;
    Ok(())
}

fn ms_spreads(timed: &[Timed]) -> (Spread, Spread) {
    let ours: Vec<f64> = timed.iter().map(|t| t.ours_s * 1e3).collect();
    let theirs: Vec<f64> = timed.iter().map(|t| t.theirs_s * 1e3).collect();
    (Spread::of(&ours), Spread::of(&theirs))
}

fn inflated_summary(name: &str, inf: &Inflated, blocked: &BlockedSpace) -> (String, Value) {
    let (ours, theirs) = ms_spreads(&inf.timed);
    let ratio = Spread::of(&paths::time_ratios(&inf.timed));
    let diffs = paths::length_differences(&inf.timed);
    let abs: Vec<f64> = diffs.iter().map(|d| d.abs()).collect();
    let signed = Spread::of(&diffs);
    let abs_spread = Spread::of(&abs);
    let found = Found::of(&inf.timed);
    // Queries neither side answers (no corridor wide enough for the disc): how fast
    // each refuses them.
    let refused: Vec<&Timed> = inf
        .timed
        .iter()
        .filter(|t| t.ours_len.is_none() && t.theirs_len.is_none())
        .collect();
    let refused_ours = Spread::of(&refused.iter().map(|t| t.ours_s * 1e3).collect::<Vec<_>>());
    let refused_theirs = Spread::of(&refused.iter().map(|t| t.theirs_s * 1e3).collect::<Vec<_>>());
    eprintln!(
        "paths: {name}: r = {}: {} queries without a path: crowdnav ms {}, polyanya ms {}",
        inf.radius,
        refused.len(),
        ms3(refused_ours),
        ms3(refused_theirs)
    );
    let timed_out = if inf.timed_out.is_empty() {
        String::new()
    } else {
        format!(" (+{} timed out)", inf.timed_out.len())
    };
    let row = format!(
        "| {name} | {} | {}{timed_out} | {:.2} | {} / {} / {} / {} | {} | {} | {:.2} ({:.2}) | {:+.2e} / {:.1e} / {:.1e} |\n",
        inf.radius,
        inf.timed.len(),
        inf.bake_s,
        found.both,
        found.ours_only,
        found.theirs_only,
        found.neither,
        ms3(ours),
        ms3(theirs),
        ratio.median,
        ratio.p95,
        signed.median,
        abs_spread.p95,
        abs_spread.max
    );
    let j = json!({
        "radius": inf.radius,
        "queries": inf.timed.len(),
        "polyanya_bake_s": finite(inf.bake_s),
        "polyanya_obstacles": inf.obstacles,
        "blocked_groups": blocked.traced_groups + blocked.enclosing_groups,
        "blocked_groups_enclosing_islands": blocked.enclosing_groups,
        "ours_timed_out": inf.timed_out,
        "found": {"both": found.both, "ours_only": found.ours_only,
                  "theirs_only": found.theirs_only, "neither": found.neither},
        "ours_ms": spread_json(ours),
        "theirs_ms": spread_json(theirs),
        "no_path_ours_ms": spread_json(refused_ours),
        "no_path_theirs_ms": spread_json(refused_theirs),
        "ratio_per_query": spread_json(ratio),
        "length_relative_difference": {"median": finite(signed.median),
                                        "abs_p95": finite(abs_spread.p95),
                                        "abs_max": finite(abs_spread.max)},
    });
    (row, j)
}

fn time_vs_length(timed: &[Timed], name: &str) -> String {
    let pts = |f: fn(&Timed) -> f64| -> Vec<(f64, f64)> {
        timed
            .iter()
            .filter_map(|t| t.theirs_len.map(|l| (l, f(t) * 1e3)))
            .collect()
    };
    Plot {
        title: format!("{name}, r = 0: time per query against path length"),
        x_label: "path length".into(),
        y_label: "ms per query (median of repetitions)".into(),
        log_x: false,
        log_y: true,
        series: vec![
            Series {
                name: "crowdnav".into(),
                color: "#1f77b4",
                points: pts(|t| t.ours_s),
                line: false,
            },
            Series {
                name: "polyanya".into(),
                color: "#d62728",
                points: pts(|t| t.theirs_s),
                line: false,
            },
        ],
        bands: Vec::new(),
    }
    .to_svg()
}

/// DetourCrowd's timing of `scenario` (`Err`: why it did not run; a failed check
/// inside its run is an error of the whole run, `Ok(Err(..))` only means "not run").
fn detour_times(
    opts: &CrowdOptions,
    scenario: &crowdnav::scenario::Scenario,
    steps: usize,
) -> Result<Result<Spread, String>, String> {
    if !opts.detour {
        return Ok(Err("not run: not asked for".into()));
    }
    #[cfg(feature = "detour")]
    {
        if let Some(why) = crate::detour::refusal(scenario.all_agents(None).len()) {
            return Ok(Err(why));
        }
        eprintln!("crowd: {} on DetourCrowd (1 thread)", scenario.name);
        crate::detour::time_steps(scenario, opts.warmup, steps).map(Ok)
    }
    #[cfg(not(feature = "detour"))]
    {
        let _ = (scenario, steps);
        Ok(Err("not built (feature `detour` off)".into()))
    }
}

/// DetourCrowd's run of `scenario` to the finish, as [`detour_times`].
fn detour_finish(
    opts: &CrowdOptions,
    scenario: &crowdnav::scenario::Scenario,
    cap: u64,
) -> Result<Result<Finish, String>, String> {
    if !opts.detour {
        return Ok(Err("not run: not asked for".into()));
    }
    #[cfg(feature = "detour")]
    {
        if let Some(why) = crate::detour::refusal(scenario.all_agents(None).len()) {
            return Ok(Err(why));
        }
        eprintln!(
            "crowd: {} to the finish on DetourCrowd (cap {cap} steps)",
            scenario.name
        );
        crate::detour::run_to_finish(scenario, cap).map(Ok)
    }
    #[cfg(not(feature = "detour"))]
    {
        let _ = (scenario, cap);
        Ok(Err("not built (feature `detour` off)".into()))
    }
}

fn crowd_part(r: &mut Report, opts: &CrowdOptions) -> Result<(), String> {
    let mut md = String::from("### Crowds (ORCA)\n\n");
    md += "ms per step, median over the timed steps (after warm-up), crowdnav and dodgy_2d interleaved; \
           ratio = crowdnav / dodgy_2d. DetourCrowd has no parallel update: it is timed alone on one \
           thread and shown on the 1-thread row, against crowdnav's 1-thread time.\n\n";
    md += "| scenario | agents | threads | crowdnav ms/step | dodgy_2d ms/step | crowdnav / dodgy | DetourCrowd ms/step | crowdnav / DetourCrowd |\n";
    md += "|---|---:|---:|---:|---:|---:|---:|---:|\n";
    let mut finish_md = String::from(
        "\nRun to the finish (every agent within 5 cm of its goal) or a step cap, on the largest thread count \
         (DetourCrowd on one); overlapping pairs = agent pairs ever left overlapping by more than 1 % of the \
         smaller radius, counted the same way on every side.\n\n\
         | scenario | agents | cap | crowdnav steps | crowdnav arrived | crowdnav overlapping pairs | dodgy steps | dodgy arrived | dodgy overlapping pairs | DetourCrowd steps | DetourCrowd arrived | DetourCrowd overlapping pairs |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut out = Map::new();
    let mut scenarios: Vec<(crowdnav::scenario::Scenario, usize, Option<u64>)> = Vec::new();
    for &n in &opts.sizes {
        let cap = opts.finish_caps.iter().find(|c| c.0 == n).map(|c| c.1);
        scenarios.push((crowd::circle(n)?, n, cap));
    }
    if opts.bottleneck {
        let s = crowd::bottleneck()?;
        let n = s.all_agents(None).len();
        let cap = s.steps;
        scenarios.push((s, n, Some(cap)));
    }
    let mut plot: Vec<Series> = Vec::new();
    let colors = ["#1f77b4", "#d62728", "#aec7e8", "#ff9896"];
    for (k, &t) in opts.threads.iter().enumerate() {
        for (side, color) in [
            ("crowdnav", colors[(2 * k) % 4]),
            ("dodgy_2d", colors[(2 * k + 1) % 4]),
        ] {
            plot.push(Series {
                name: format!("{side}, {t} thread(s)"),
                color,
                points: Vec::new(),
                line: true,
            });
        }
    }
    let detour_series = plot.len();
    plot.push(Series {
        name: "DetourCrowd, 1 thread".into(),
        color: "#2ca02c",
        points: Vec::new(),
        line: true,
    });
    let max_threads = opts.threads.iter().copied().max().unwrap_or(1);
    for (scenario, n, cap) in &scenarios {
        let mut sj = Map::new();
        sj.insert("agents".into(), json!(n));
        let mut fingerprints: Vec<u64> = Vec::new();
        let steps = if *n >= 100_000 {
            (opts.steps / 2).max(2)
        } else {
            opts.steps
        };
        let detour = detour_times(opts, scenario, steps)?;
        sj.insert(
            "detour".into(),
            match &detour {
                Ok(ms) => json!({"threads": 1, "ms": spread_json(*ms), "timed_steps": steps,
                                 "warmup_steps": opts.warmup}),
                Err(why) => json!({"not_run": why}),
            },
        );
        if let (Ok(ms), true) = (&detour, scenario.name.starts_with("circle")) {
            plot[detour_series].points.push((*n as f64, ms.median));
        }
        for (k, &threads) in opts.threads.iter().enumerate() {
            eprintln!("crowd: {} on {threads} thread(s)", scenario.name);
            let StepTimes {
                ours_ms,
                theirs_ms,
                fingerprint,
            } = crowd::time_steps(scenario, threads, opts.warmup, steps)?;
            fingerprints.push(fingerprint);
            let ratio = ours_ms.median / theirs_ms.median;
            let (detour_cell, detour_ratio) = match (&detour, threads) {
                (Ok(ms), 1) => {
                    let q = ours_ms.median / ms.median;
                    if let Some(Value::Object(d)) = sj.get_mut("detour") {
                        d.insert("ratio_ours_over_detour".into(), finite(q));
                    }
                    (format!("{:.2}", ms.median), Some(q))
                }
                (Err(why), 1) => (why.clone(), None),
                _ => ("— (1 thread only)".to_owned(), None),
            };
            let _ = writeln!(
                md,
                "| {} | {n} | {threads} | {:.2} | {:.2} | {ratio:.2} | {detour_cell} | {} |",
                scenario.name,
                ours_ms.median,
                theirs_ms.median,
                detour_ratio.map_or("—".to_owned(), |q| format!("{q:.2}"))
            );
            sj.insert(
                format!("threads_{threads}"),
                json!({"ours_ms": spread_json(ours_ms), "theirs_ms": spread_json(theirs_ms),
                       "ratio": finite(ratio), "timed_steps": steps, "warmup_steps": opts.warmup}),
            );
            // N = 10 000 on one thread; a run without it takes its largest circle.
            let reference = opts
                .sizes
                .iter()
                .copied()
                .find(|&s| s == 10_000)
                .or_else(|| opts.sizes.iter().copied().max());
            if scenario.name.starts_with("circle") && Some(*n) == reference && threads == 1 {
                r.json
                    .insert("orca_step_ratio_vs_dodgy".into(), finite(ratio));
                r.json.insert("orca_step_ratio_agents".into(), json!(n));
                if let Some(q) = detour_ratio {
                    r.json.insert("orca_step_ratio_vs_detour".into(), finite(q));
                }
            }
            if scenario.name.starts_with("circle") {
                plot[2 * k].points.push((*n as f64, ours_ms.median));
                plot[2 * k + 1].points.push((*n as f64, theirs_ms.median));
            }
        }
        // Determinism: the same state after the same steps, whatever the thread count.
        if fingerprints.windows(2).any(|w| w[0] != w[1]) {
            return Err(format!(
                "{}: crowdnav's state differs between thread counts",
                scenario.name
            ));
        }
        if let Some(cap) = cap {
            eprintln!("crowd: {} to the finish (cap {cap} steps)", scenario.name);
            let (ours, theirs) = crowd::run_to_finish(scenario, max_threads, *cap)?;
            let detour_cap = opts
                .detour_finish_caps
                .iter()
                .find(|c| c.0 == *n)
                .map_or(*cap, |c| c.1.min(*cap));
            let detour = detour_finish(opts, scenario, detour_cap)?;
            let steps = |f: &Finish| {
                if f.finished {
                    f.steps.to_string()
                } else {
                    format!("did not finish within {} steps", f.steps)
                }
            };
            let detour_cells = match &detour {
                Ok(f) => format!("{} | {} | {}", steps(f), f.arrived, f.overlapping_pairs),
                Err(why) => format!("{why} | — | —"),
            };
            let _ = writeln!(
                finish_md,
                "| {} | {n} | {cap} | {} | {} | {} | {} | {} | {} | {detour_cells} |",
                scenario.name,
                steps(&ours),
                ours.arrived,
                ours.overlapping_pairs,
                steps(&theirs),
                theirs.arrived,
                theirs.overlapping_pairs
            );
            let fj = |f: &Finish| {
                json!({"steps": f.steps, "finished": f.finished, "arrived": f.arrived,
                       "overlapping_pairs": f.overlapping_pairs, "seconds": finite(f.seconds)})
            };
            sj.insert(
                "finish".into(),
                json!({"cap": cap, "threads": max_threads, "ours": fj(&ours), "theirs": fj(&theirs),
                "detour": match &detour {
                    Ok(f) => { let mut j = fj(f); j["threads"] = json!(1); j }
                    Err(why) => json!({"not_run": why}),
                }}),
            );
        }
        out.insert(scenario.name.clone(), Value::Object(sj));
    }
    md += &finish_md;
    md.push('\n');
    if plot[detour_series].points.is_empty() {
        plot.remove(detour_series);
    }
    r.json.insert("crowd".into(), Value::Object(out));
    r.plots.push((
        "bench-crowd-ms-per-step.svg".into(),
        Plot {
            title: "ORCA circle: ms per step against crowd size".into(),
            x_label: "agents".into(),
            y_label: "ms per step (median)".into(),
            log_x: true,
            log_y: true,
            series: plot,
            bands: Vec::new(),
        }
        .to_svg(),
    ));
    r.markdown += &md;
    Ok(())
}

fn mesh_part(r: &mut Report, opts: &MeshOptions, data: Result<&Path, &str>) -> Result<(), String> {
    let mut md = String::from("### Mesh building\n\n");
    let data = match data {
        Ok(d) => d,
        Err(why) => {
            let _ = writeln!(md, "skipped: {why}\n");
            r.json.insert("mesh".into(), json!({"skipped": why}));
            r.markdown += &md;
            return Ok(());
        }
    };
    md += "Seconds, median of the builds. crowdnav: `NavMesh::from_walls` (CDT, clearance, refinement) from the parsed walls \
           (parse time apart); polyanya: `Triangulation` of the same level's obstacle polygons, `merge_polygons`, `bake`. \
           Both meshes must cover the same walkable area.\n\n";
    md += "| map | parse s | crowdnav build s | polyanya build s | crowdnav / polyanya | crowdnav triangles | polyanya polygons |\n";
    md += "|---|---:|---:|---:|---:|---:|---:|\n";
    let mut out = Map::new();
    for &i in &opts.maps {
        let Some(&(name, file)) = meshes::MESH_MAPS.get(i) else {
            continue;
        };
        eprintln!("mesh: {name}");
        let MeshBuild {
            parse_s,
            ours_s,
            theirs_s,
            ours_triangles,
            theirs_polygons,
            area,
            ..
        } = meshes::build_both(data, name, file, opts.reps)?;
        let _ = writeln!(
            md,
            "| {name} | {parse_s:.3} | {ours_s:.3} | {theirs_s:.3} | {:.2} | {ours_triangles} | {theirs_polygons} |",
            ours_s / theirs_s
        );
        out.insert(
            name.to_owned(),
            json!({"parse_s": finite(parse_s), "ours_s": finite(ours_s), "theirs_s": finite(theirs_s),
                   "ratio": finite(ours_s / theirs_s), "ours_triangles": ours_triangles,
                   "theirs_polygons": theirs_polygons, "walkable_area": finite(area)}),
        );
    }
    md.push('\n');
    r.json.insert("mesh".into(), Value::Object(out));
    r.markdown += &md;
    Ok(())
}

fn edit_part(r: &mut Report, opts: &EditOptions, data: Result<&Path, &str>) -> Result<(), String> {
    let mut md = String::from("### Mesh edits\n\n");
    let data = match data {
        Ok(d) => d,
        Err(why) => {
            let _ = writeln!(md, "skipped: {why}\n");
            r.json.insert("edit".into(), json!({"skipped": why}));
            r.markdown += &md;
            return Ok(());
        }
    };
    eprintln!("edit: {}", crate::edits::EDIT_MAP.0);
    let t = crate::edits::time_edits(
        data,
        opts.edits,
        opts.live,
        opts.rebuilds,
        opts.polyanya_edits,
    )?;
    let both: Vec<f64> = t.add_ms.iter().chain(&t.remove_ms).copied().collect();
    let (add, remove, all, rebuild) = (
        Spread::of(&t.add_ms),
        Spread::of(&t.remove_ms),
        Spread::of(&both),
        Spread::of(&t.rebuild_ms),
    );
    let (first_query, warm_query) = (Spread::of(&t.first_query_ms), Spread::of(&t.warm_query_ms));
    let (first_query_r0, warm_query_r0) = (
        Spread::of(&t.first_query_r0_ms),
        Spread::of(&t.warm_query_r0_ms),
    );
    let rays = [
        &t.first_raycast_r0_ms,
        &t.warm_raycast_r0_ms,
        &t.first_raycast_r1_ms,
        &t.warm_raycast_r1_ms,
        &t.first_nearest_r1_ms,
        &t.warm_nearest_r1_ms,
    ]
    .map(|v| Spread::of(v));
    let poly = t.polyanya_ms.each_ref().map(|v| Spread::of(v));
    let ratio = all.median / rebuild.median;
    let detour_both = t.detour_edit_ms();
    let (detour_add, detour_remove, detour_all) = (
        Spread::of(&t.detour_add_ms),
        Spread::of(&t.detour_remove_ms),
        Spread::of(&detour_both),
    );
    let _ = writeln!(
        md,
        "Milliseconds on {} ({} triangles): `NavMesh::add_obstacle` of a 4-vertex box 10 m across at a random \
         walkable point, and `remove_obstacle` of a random one once {} are in place, against `NavMesh::from_walls` \
         of the edited level, and against polyanya (0.18) building the level as one of the edits left it \
         (`Triangulation` of the level's obstacles and the boxes in place, agent-radius inflation, \
         `merge_polygons`, `bake`), after {} of the edits. {} boxes refused (reaching outside the mesh). \
         An edit leaves part of the search indexes (corridor index, near-wall lists, corner grid) to be \
         brought up to date on first use: after each edit a path query (r = 0.5 or r = 0, drawn at random for \
         each edit) between random walkable points within 30 m of it is timed (it pays for them), \
         then the same query again; likewise a raycast 20 m long (r = 0 or r = 1) from a random walkable \
         point within 30 m of it, which brings the query index up to date; then a nearest point (r = 1) \
         from a random point within 30 m of it, which brings the r = 1 nearest-point data up to date.\n",
        crate::edits::EDIT_MAP.0,
        t.triangles,
        opts.live,
        poly[0].count.max(poly[1].count),
        t.refused
    );
    md += "| operation | count | median ms | p95 ms | max ms | our edit / this (medians) |\n|---|---:|---:|---:|---:|---:|\n";
    // The last column compares our edit with the other sides' builds.
    let rows = [
        ("add", add, false),
        ("remove", remove, false),
        ("add and remove", all, false),
        (
            "first path query after an edit, r = 0.5",
            first_query,
            false,
        ),
        ("the same query again, r = 0.5", warm_query, false),
        (
            "first path query after an edit, r = 0",
            first_query_r0,
            false,
        ),
        ("the same query again, r = 0", warm_query_r0, false),
        ("first raycast after an edit, r = 0", rays[0], false),
        ("the same raycast again, r = 0", rays[1], false),
        ("first raycast after an edit, r = 1", rays[2], false),
        ("the same raycast again, r = 1", rays[3], false),
        ("first nearest point after an edit, r = 1", rays[4], false),
        ("the same nearest point again, r = 1", rays[5], false),
        ("full build", rebuild, true),
        ("polyanya build, r = 0", poly[0], true),
        ("polyanya build, r = 0.5", poly[1], true),
        (
            "Detour TileCache add (addBoxObstacle, update until up to date)",
            detour_add,
            false,
        ),
        (
            "Detour TileCache remove (removeObstacle, update until up to date)",
            detour_remove,
            false,
        ),
        ("Detour TileCache add and remove", detour_all, true),
    ];
    for (name, s, versus) in rows {
        let vs = if versus {
            format!("{:.4}", all.median / s.median)
        } else {
            "".to_owned()
        };
        let _ = writeln!(
            md,
            "| {name} | {} | {:.3} | {:.3} | {:.3} | {vs} |",
            s.count, s.median, s.p95, s.max
        );
    }
    let _ = writeln!(
        md,
        "\nmedian edit / median full build: {ratio:.4}; / polyanya r = 0: {:.4}; / polyanya r = 0.5: {:.4}. \
         polyanya panicked on {} (r = 0) and {} (r = 0.5) builds; its r = 0 walkable area is within {:.1e} \
         (relative) of ours.\n",
        all.median / poly[0].median,
        all.median / poly[1].median,
        t.polyanya_failed[0],
        t.polyanya_failed[1],
        t.polyanya_area_diff
    );
    let _ = writeln!(
        md,
        "{}\n",
        detour_tile_cache_text(&t, detour_all, all.median)
    );
    let polyanya_json = |k: usize| {
        json!({"radius": crate::edits::POLYANYA_RADII[k], "build_ms": spread_json(poly[k]),
               "count": poly[k].count, "failed": t.polyanya_failed[k],
               "edit_over_polyanya": finite(all.median / poly[k].median)})
    };
    r.json.insert(
        "edit".into(),
        json!({"map": crate::edits::EDIT_MAP.0, "triangles": t.triangles, "refused": t.refused,
               "add_ms": spread_json(add), "remove_ms": spread_json(remove),
               "edit_ms": spread_json(all), "rebuild_ms": spread_json(rebuild),
               "first_query_ms": spread_json(first_query), "warm_query_ms": spread_json(warm_query),
               "first_query_r0_ms": spread_json(first_query_r0),
               "warm_query_r0_ms": spread_json(warm_query_r0),
               "first_raycast_r0_ms": spread_json(rays[0]),
               "warm_raycast_r0_ms": spread_json(rays[1]),
               "first_raycast_r1_ms": spread_json(rays[2]),
               "warm_raycast_r1_ms": spread_json(rays[3]),
               "first_nearest_r1_ms": spread_json(rays[4]),
               "warm_nearest_r1_ms": spread_json(rays[5]),
               "polyanya_r0": polyanya_json(0), "polyanya_r05": polyanya_json(1),
               "polyanya_area_max_relative_difference": finite(t.polyanya_area_diff),
               "detour_tile_cache": detour_tile_cache_json(&t, all.median)}),
    );
    r.plots.push((
        "bench-edit-times.svg".into(),
        edit_plot(
            &both,
            &t.first_query_ms,
            &t.rebuild_ms,
            &t.polyanya_ms,
            &detour_both,
        ),
    ));
    r.json.insert("edit_median_ms".into(), finite(all.median));
    r.json.insert("edit_over_rebuild".into(), finite(ratio));
    world_edit_rows(r, &mut md, data, (opts.edits / 4).clamp(2, WORLD_EDITS))?;
    r.markdown += &md;
    Ok(())
}

/// Mesh edits through a running world, at most this many per run (a quarter of the
/// mesh edits).
const WORLD_EDITS: usize = 100;
/// Agents walking on aurora while the world's mesh is edited.
const WORLD_EDIT_AGENTS: usize = 1000;

/// The edit part's world rows: `World::add_mesh_obstacle` and `remove_mesh_obstacle`
/// among [`WORLD_EDIT_AGENTS`] agents, and the step after each (JSON `edit.world`).
fn world_edit_rows(
    r: &mut Report,
    md: &mut String,
    data: &Path,
    edits: usize,
) -> Result<(), String> {
    eprintln!("edit: through a world of {WORLD_EDIT_AGENTS} agents");
    let w = crate::edits::time_world_edits(data, edits, WORLD_EDIT_AGENTS)?;
    let (edit, step) = (Spread::of(&w.edit_ms), Spread::of(&w.step_ms));
    // Adds and removes alternate, an add first.
    let adds = w.edit_ms.len().div_ceil(2).max(1);
    let removes = (w.edit_ms.len() / 2).max(1);
    let (per_add, per_remove) = (
        w.replanning[0] as f64 / adds as f64,
        w.replanning[1] as f64 / removes as f64,
    );
    let moved = w.moved as f64 / adds as f64;
    let _ = writeln!(
        md,
        "Through a running `World` of {} agents walking between random points (ORCA), alternately \
         adding a box 10 m across at a random walkable point and removing it, one step (0.1 s) after \
         each: the world's call (mesh edit, the world's wall list and grid updated where it changed them, who re-plans, who \
         is moved) and the step after it (the marked agents re-plan; the first query builds the \
         indexes the edit dropped). Agents marked to re-plan: {per_add:.1} per add (those whose way \
         the box blocks), {per_remove:.1} per remove (those for whom a way through the freed box \
         could be shorter than their remaining path, by straight lines: on aurora's winding paths, \
         many); {moved:.2} moved per add.\n",
        w.agents
    );
    *md += "| operation | count | median ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|\n";
    for (name, s) in [("world edit", edit), ("the step after it", step)] {
        let _ = writeln!(
            md,
            "| {name} | {} | {:.3} | {:.3} | {:.3} |",
            s.count, s.median, s.p95, s.max
        );
    }
    md.push('\n');
    if let Some(Value::Object(o)) = r.json.get_mut("edit") {
        o.insert(
            "world".into(),
            json!({"agents": w.agents, "edit_ms": spread_json(edit), "step_after_ms": spread_json(step),
                   "replanning_per_add": finite(per_add),
                   "replanning_per_remove": finite(per_remove), "moved_per_add": finite(moved)}),
        );
    }
    Ok(())
}

/// The edit part's sentence on Detour's TileCache: how it was built and what differs
/// from our edits, or why it has no times.
fn detour_tile_cache_text(t: &crate::edits::EditTimes, theirs: Spread, ours: f64) -> String {
    if theirs.count == 0 {
        return format!(
            "Detour TileCache: {}.",
            t.detour_note.as_deref().unwrap_or("no times")
        );
    }
    let updates =
        t.detour_updates.iter().sum::<usize>() as f64 / t.detour_updates.len().max(1) as f64;
    let mut text = format!(
        "Detour TileCache (recastnavigation through recastnavigation-sys 1.0.3, feature \
         `detour_tile_cache`): the walkable triangles rasterised on {cell} m cells in {x} × {y} tiles of \
         {tile} cells, eroded by r = {r} and cached as heightfield layers (a no-op compressor; built once in \
         {build:.0} ms); each box added at the same place as ours as an oriented box obstacle \
         (`addBoxObstacle`) grown by r (square corners where the exact inflation is round), each removal \
         `removeObstacle`, then `update` until up to date: {updates:.1} calls per edit, each rebuilding one \
         whole tile from its layer. Median edit, ours over Detour's: {ratio:.4}. What differs: Detour \
         answers for the one radius it was baked for and at voxel resolution (its polygons follow {cell} m \
         cells), it rebuilds whole tiles rather than the triangles the box meets, and it has no move (a move \
         is a removal and an add); our edit is exact for every radius.",
        cell = t.detour_cell,
        x = t.detour_tiles.0,
        y = t.detour_tiles.1,
        tile = t.detour_tile_cells,
        r = crate::edits::DETOUR_RADIUS,
        build = t.detour_build_ms,
        ratio = ours / theirs.median,
    );
    if let Some(note) = &t.detour_note {
        text += &format!(" ({note})");
    }
    text
}

/// The edit part's JSON on Detour's TileCache (`edit.detour_tile_cache`).
fn detour_tile_cache_json(t: &crate::edits::EditTimes, ours: f64) -> Value {
    let both = t.detour_edit_ms();
    if both.is_empty() {
        return json!({"skipped": t.detour_note.as_deref().unwrap_or("no times")});
    }
    let all = Spread::of(&both);
    let updates =
        t.detour_updates.iter().sum::<usize>() as f64 / t.detour_updates.len().max(1) as f64;
    json!({"radius": crate::edits::DETOUR_RADIUS, "cell_m": t.detour_cell,
           "tile_cells": t.detour_tile_cells,
           "tiles": [t.detour_tiles.0, t.detour_tiles.1], "build_ms": finite(t.detour_build_ms),
           "add_ms": spread_json(Spread::of(&t.detour_add_ms)),
           "remove_ms": spread_json(Spread::of(&t.detour_remove_ms)),
           "edit_ms": spread_json(all), "updates_per_edit": finite(updates),
           "edit_over_detour": finite(ours / all.median), "note": t.detour_note})
}

/// Per-edit times, each series sorted: the share of edits (x, percent) done within
/// y milliseconds, on a log y axis.
fn edit_plot(
    ours: &[f64],
    first_query: &[f64],
    rebuild: &[f64],
    polyanya: &[Vec<f64>; 2],
    detour: &[f64],
) -> String {
    let sorted = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len() as f64;
        v.iter()
            .enumerate()
            .map(|(i, &ms)| (100.0 * (i as f64 + 0.5) / n, ms))
            .collect::<Vec<_>>()
    };
    Plot {
        title: "Obstacle edits on aurora: time per edit, sorted".into(),
        x_label: "share of edits (%)".into(),
        y_label: "ms per edit".into(),
        log_x: false,
        log_y: true,
        series: vec![
            Series {
                name: "crowdnav add/remove_obstacle".into(),
                color: "#1f77b4",
                points: sorted(ours),
                line: true,
            },
            Series {
                name: "crowdnav first path query after an edit".into(),
                color: "#2ca02c",
                points: sorted(first_query),
                line: true,
            },
            Series {
                name: "crowdnav full build".into(),
                color: "#7f7f7f",
                points: sorted(rebuild),
                line: true,
            },
            Series {
                name: "polyanya build, r = 0".into(),
                color: "#ff7f0e",
                points: sorted(&polyanya[0]),
                line: true,
            },
            Series {
                name: "polyanya build, r = 0.5".into(),
                color: "#d62728",
                points: sorted(&polyanya[1]),
                line: true,
            },
            Series {
                name: "Detour TileCache obstacle + update, r = 0.5".into(),
                color: "#9467bd",
                points: sorted(detour),
                line: true,
            },
        ],
        bands: Vec::new(),
    }
    .to_svg()
}

fn query_part(
    r: &mut Report,
    opts: &QueryOptions,
    data: Result<&Path, &str>,
) -> Result<(), String> {
    let mut md = String::from("### Mesh queries\n\n");
    let data = match data {
        Ok(d) => d,
        Err(why) => {
            let _ = writeln!(md, "skipped: {why}\n");
            r.json.insert("queries".into(), json!({"skipped": why}));
            r.markdown += &md;
            return Ok(());
        }
    };
    let mut out = Map::new();
    let mut runs = Vec::new();
    for &radius in &opts.radii {
        eprintln!("queries: aurora, r = {radius}");
        let q = crate::queries::run_queries(data, radius, opts.count, opts.reps)?;
        let _ = writeln!(
            md,
            "aurora ({} triangles), a disc of radius {} m; microseconds per query, fastest of {} batches; \
             ratio = crowdnav / Detour per query. crowdnav: exact for the disc on its one mesh; Detour: \
             `dtNavMeshQuery` on its navmesh of the same walkable triangles eroded by the radius \
             (see the crate docs of `crowdnav_bench::queries` for what each side answers). \
             crowdnav's first query at this radius, which builds the mesh's data for it, took {:.1} ms \
             (untimed in the rows).\n",
            q.triangles, q.radius, opts.reps, q.first_query_ms
        );
        md += "| query | queries | crowdnav µs | Detour µs | crowdnav / Detour | answers |\n";
        md += "|---|---:|---:|---:|---:|---|\n";
        let mut rows = Map::new();
        rows.insert("radius".into(), json!(q.radius));
        rows.insert("first_query_ms".into(), finite(q.first_query_ms));
        for (name, t) in &q.rows {
            let (detour, ratio) = match &t.detour_us {
                Ok(d) => (format!("{d:.2}"), format!("{:.2}", t.ours_us / d)),
                Err(why) => (why.clone(), "–".into()),
            };
            let _ = writeln!(
                md,
                "| {name} | {} | {:.2} | {detour} | {ratio} | {} |",
                t.count, t.ours_us, t.note
            );
            rows.insert(
                name.replace(' ', "_"),
                json!({"count": t.count, "ours_us": finite(t.ours_us),
                       "detour_us": t.detour_us.as_ref().map_or(Value::Null, |&d| finite(d)),
                       "ratio_vs_detour": t.detour_us.as_ref().map_or(Value::Null, |&d| finite(t.ours_us / d)),
                       "detour_note": t.detour_us.as_ref().err(),
                       "answers": t.note}),
            );
        }
        md.push('\n');
        runs.push(Value::Object(rows));
    }
    out.insert("runs".into(), Value::Array(runs));
    r.json.insert("queries".into(), Value::Object(out));
    r.markdown += &md;
    Ok(())
}

/// The current UTC time, `YYYY-MM-DD HH:MM`.
pub(crate) fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3_600,
        (rem % 3_600) / 60
    )
}

/// CPU model and core count, as far as the system tells.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} hardware threads, {}", std::env::consts::OS)
}
