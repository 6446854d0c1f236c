//! `crowdnav run` (a scenario file) and `crowdnav demo` (the seed demo's formation
//! sequence).

use crate::output::PendingFile;
use crate::raster::GifRecorder;
use crate::{svg, Failure};
use anyhow::Context;
use crowdnav::mesh::Location;
use crowdnav::scenario::{
    demo, formation_goals, formation_starts, run as run_world, run_script, FormationKind,
    LaneMeter, LineCounter, Method, Report, RunOptions, Scenario, Script, TrajectoryRecorder,
};
use crowdnav::world::{AgentId, Goal, World};
use glam::Vec2;
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::BufWriter;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Scenario file (JSON; see docs/scenario-format.md).
    scenario: PathBuf,
    /// Steering method, overriding the scenario's.
    #[arg(long, value_parser = parse_method)]
    method: Option<Method>,
    /// Most steps, overriding the scenario's.
    #[arg(long)]
    steps: Option<u64>,
    /// Write the report (JSON) to this file.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Draw the final state with every agent's trail to this SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Write an animation to this GIF file.
    #[arg(long, value_name = "FILE")]
    gif: Option<PathBuf>,
    /// Write every agent's trajectory to this CSV file (agent,frame,time,x,y,vx,vy),
    /// which PedPy reads as trajectory data.
    #[arg(long, value_name = "FILE.csv")]
    trajectories: Option<PathBuf>,
    /// Record the trajectories every N-th step (frame 0 is the initial state).
    #[arg(long, value_name = "N", value_parser = parse_every, allow_hyphen_values = true)]
    every: Option<NonZeroU64>,
}

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Folder for demo.gif and report.json (created if missing).
    #[arg(long, value_name = "DIR", default_value = "crowdnav-demo")]
    out: PathBuf,
    /// Steering method.
    #[arg(long, value_parser = parse_method, default_value = "orca")]
    method: Method,
    /// Skip the GIF (faster).
    #[arg(long)]
    no_gif: bool,
}

pub fn parse_method(s: &str) -> Result<Method, String> {
    s.parse()
}

fn parse_every(s: &str) -> Result<NonZeroU64, String> {
    s.parse::<u64>()
        .ok()
        .and_then(NonZeroU64::new)
        .ok_or_else(|| "expected a whole number of steps, at least 1".to_owned())
}

fn other(e: impl Into<anyhow::Error>) -> Failure {
    Failure::Other(e.into())
}

fn progress(len: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} steps {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(label.to_owned());
    bar
}

/// Frames to aim for in an animation; steps between frames follow from it.
const GIF_FRAMES: u64 = 240;

/// Samples every agent's position for the SVG trails.
/// Every agent's trail, by its scenario number (agents spawned later get theirs
/// when they appear; a removed agent's trail ends where it left).
struct Trails {
    every: u64,
    paths: Vec<Vec<Vec2>>,
}

impl Trails {
    fn new(world: &World, max_steps: u64) -> Trails {
        Trails {
            every: (max_steps / 400).max(1),
            paths: world.agents().iter().map(|a| vec![a.position]).collect(),
        }
    }

    fn record(&mut self, world: &World, script: &Script) {
        if world.steps() % self.every == 0 || world.all_arrived() {
            for a in world.agents() {
                let Some(number) = script.scenario_index(a.id) else {
                    continue;
                };
                if number >= self.paths.len() {
                    self.paths.resize(number + 1, Vec::new());
                }
                self.paths[number].push(a.position);
            }
        }
    }
}

/// The trajectory file being written: the recorder on a temporary file beside the
/// target, renamed into place when the run has finished.
struct Trajectories {
    recorder: TrajectoryRecorder<BufWriter<File>>,
    file: PendingFile,
    error: Option<std::io::Error>,
}

impl Trajectories {
    /// Creates the temporary file; a path that cannot be written is bad input.
    fn create(path: &Path, every: NonZeroU64) -> Result<Trajectories, Failure> {
        let (file, handle) = PendingFile::create(path).map_err(Failure::BadInput)?;
        let recorder = TrajectoryRecorder::new(BufWriter::new(handle), every)
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(Failure::BadInput)?;
        Ok(Trajectories {
            recorder,
            file,
            error: None,
        })
    }

    /// Records a frame if due, agents numbered as in the scenario; the first write
    /// error is kept for the end.
    fn record(&mut self, world: &World, script: &Script) {
        if self.error.is_none() {
            let number = |_, id| script.scenario_index(id);
            if let Err(e) = self.recorder.record_numbered(world, number) {
                self.error = Some(e);
            }
        }
    }

    /// Flushes the file and moves it into place, unless a write failed.
    fn finish(self) -> Result<(), Failure> {
        let target = self.file.target().display().to_string();
        let written = match self.error {
            Some(e) => Err(e),
            None => self.recorder.finish().and_then(|out| {
                out.into_inner()
                    .map_err(std::io::IntoInnerError::into_error)?
                    .sync_all()
            }),
        };
        written
            .with_context(|| format!("cannot write {target}"))
            .map_err(other)?;
        self.file.commit().map_err(other)
    }
}

pub fn run(args: &RunArgs) -> Result<(), Failure> {
    if args.every.is_some() && args.trajectories.is_none() {
        return Err(Failure::BadInput(anyhow::anyhow!(
            "--every needs --trajectories FILE.csv"
        )));
    }
    let scenario = Scenario::from_file(&args.scenario).map_err(|e| Failure::BadInput(e.into()))?;
    let mut world = scenario
        .build(args.method)
        .map_err(|e| Failure::BadInput(e.into()))?;
    warn_off_the_map(&world);
    let mut lines = LineCounter::new(scenario.lines.clone(), &world)
        .map_err(|e| Failure::BadInput(e.into()))?;
    // Lane order is measured where the scenario measures flow (it has lines).
    let mut lanes = (!scenario.lines.is_empty()).then(LaneMeter::default);
    let mut script = Script::new(&scenario, &world);
    let mut trajectories = match &args.trajectories {
        Some(path) => Some(Trajectories::create(
            path,
            args.every.unwrap_or(NonZeroU64::MIN),
        )?),
        None => None,
    };
    let max_steps = args.steps.unwrap_or(scenario.steps);
    let options = RunOptions {
        dt: scenario.dt,
        max_steps,
        stop_when_arrived: true,
    };
    let mut gif = match &args.gif {
        Some(path) => {
            Some(GifRecorder::create(path, &world, &scenario.lines, 480, 0.05).map_err(other)?)
        }
        None => None,
    };
    let gif_every = (max_steps / GIF_FRAMES).max(1);
    let mut trails = Trails::new(&world, max_steps);
    let bar = progress(max_steps, &scenario.name);
    let mut gif_error = None;
    if let Some(g) = gif.as_mut() {
        g.frame(&world).map_err(other)?;
    }
    if let Some(t) = trajectories.as_mut() {
        t.record(&world, &script);
    }
    let mut report = run_script(&scenario.name, &mut world, &mut script, options, |w, s| {
        bar.inc(1);
        trails.record(w, s);
        lines.observe(w);
        if let Some(meter) = lanes.as_mut() {
            meter.observe(w);
        }
        if let Some(t) = trajectories.as_mut() {
            t.record(w, s);
        }
        if let Some(g) = gif.as_mut() {
            if w.steps() % gif_every == 0 || w.all_arrived() {
                if let Err(e) = g.frame(w) {
                    gif_error.get_or_insert(e);
                }
            }
        }
    })
    .map_err(|e| Failure::BadInput(e.into()))?;
    bar.finish_and_clear();
    report.lines = lines.reports();
    report.lane_order = lanes.and_then(|meter| meter.lane_order());
    if let Some(e) = gif_error {
        return Err(other(e));
    }
    say!("{}", report.table());
    if let Some(t) = trajectories {
        let path = t.file.target().to_owned();
        t.finish()?;
        wrote(&path);
    }
    if let Some(path) = &args.gif {
        wrote(path);
    }
    if let Some(path) = &args.report {
        write_json(path, &report)?;
    }
    if let Some(path) = &args.svg {
        std::fs::write(path, svg::world_svg(&world, &trails.paths, &scenario.lines))
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(other)?;
        wrote(path);
    }
    Ok(())
}

/// Says on stdout that `path` was written: every file a command writes gets a line.
pub fn wrote(path: &Path) {
    say!("wrote {}", path.display());
}

/// Warns on stderr about every agent whose start is not on the walkable part of the
/// map: the world moves it just inside the nearest wall at its first step.
fn warn_off_the_map(world: &World) {
    let Some(mesh) = world.mesh() else {
        return;
    };
    for (i, a) in world.agents().iter().enumerate() {
        if !matches!(mesh.locate(a.position), Location::Walkable(_)) {
            eprintln!(
                "crowdnav: warning: agent {i} starts off the walkable map at ({}, {}); \
                 it is moved inside the nearest wall",
                a.position.x, a.position.y
            );
        }
    }
}

/// Writes `value` as pretty JSON to `path`, and says so.
fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(other)?;
    std::fs::write(path, text + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
        .map_err(other)?;
    wrote(path);
    Ok(())
}

/// Runs the demo sequence; `on_step` sees every step. Returns one report per
/// formation.
pub fn run_demo(
    method: Method,
    mut on_step: impl FnMut(&World, FormationKind),
) -> anyhow::Result<(World, Vec<Report>)> {
    let scenario = demo::scenario(method);
    let area = demo::AREA;
    let mut world = scenario.build(None)?;
    for p in formation_starts(FormationKind::Circle, demo::AGENTS, area, 1, world.mesh()) {
        world.add_agent(
            crowdnav::world::AgentParams::new(p, p)
                .with_radius(area.agent_radius)
                .with_speeds(2.0, 1.4),
        )?;
    }
    let mut reports = Vec::new();
    for (k, kind) in FormationKind::ALL.into_iter().enumerate() {
        let now: Vec<Vec2> = world.agents().iter().map(|a| a.position).collect();
        let goals = formation_goals(kind, &now, area, k as u64 + 1, world.mesh());
        let ids: Vec<AgentId> = world.agents().iter().map(|a| a.id).collect();
        for (id, g) in ids.into_iter().zip(goals) {
            world.set_goal(id, Goal::Point(g))?;
        }
        world.reset_metrics();
        let options = RunOptions {
            dt: scenario.dt,
            max_steps: scenario.steps,
            stop_when_arrived: true,
        };
        let report = run_world(kind.name(), &mut world, options, |w| on_step(w, kind))?;
        reports.push(report);
    }
    Ok((world, reports))
}

pub fn demo(args: &DemoArgs) -> Result<(), Failure> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))
        .map_err(other)?;
    let gif_path = args.out.join("demo.gif");
    let mut gif: Option<GifRecorder> = None;
    let mut gif_error = None;
    let bar = progress(5 * demo::scenario(args.method).steps, "demo");
    let (_, reports) = run_demo(args.method, |w, kind| {
        bar.inc(1);
        bar.set_message(kind.name());
        if args.no_gif || gif_error.is_some() {
            return;
        }
        if gif.is_none() {
            match GifRecorder::create(&gif_path, w, &[], 400, 0.1) {
                Ok(g) => gif = Some(g),
                Err(e) => {
                    gif_error = Some(e);
                    return;
                }
            }
        }
        if let Some(g) = gif.as_mut() {
            if w.steps() % 4 == 0 {
                if let Err(e) = g.frame(w) {
                    gif_error = Some(e);
                }
            }
        }
    })
    .map_err(Failure::BadInput)?;
    bar.finish_and_clear();
    if let Some(e) = gif_error {
        return Err(other(e));
    }
    for r in &reports {
        say!("{}", r.table());
    }
    if !args.no_gif {
        wrote(&gif_path);
    }
    write_json(&args.out.join("report.json"), &reports)?;
    Ok(())
}
