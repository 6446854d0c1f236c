//! `crowdnav run` (a scenario file) and `crowdnav demo` (the seed demo's formation
//! sequence).

use crate::raster::GifRecorder;
use crate::{svg, Failure};
use anyhow::Context;
use crowdnav::scenario::{
    demo_scenario, formation_goals, formation_starts, run as run_world, FormationKind, Method,
    Report, RunOptions, Scenario, DEMO_AGENTS, DEMO_AREA,
};
use crowdnav::world::{AgentId, Goal, World};
use glam::Vec2;
use indicatif::{ProgressBar, ProgressStyle};
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

    fn record(&mut self, world: &World) {
        if world.steps() % self.every == 0 || world.all_arrived() {
            for (trail, a) in self.paths.iter_mut().zip(world.agents()) {
                trail.push(a.position);
            }
        }
    }
}

pub fn run(args: &RunArgs) -> Result<(), Failure> {
    let scenario = Scenario::from_file(&args.scenario).map_err(|e| Failure::BadInput(e.into()))?;
    let mut world = scenario
        .build(args.method)
        .map_err(|e| Failure::BadInput(e.into()))?;
    let max_steps = args.steps.unwrap_or(scenario.steps);
    let options = RunOptions {
        dt: scenario.dt,
        max_steps,
        stop_when_arrived: true,
    };
    let mut gif = match &args.gif {
        Some(path) => Some(GifRecorder::create(path, &world, 480, 0.05).map_err(other)?),
        None => None,
    };
    let gif_every = (max_steps / GIF_FRAMES).max(1);
    let mut trails = Trails::new(&world, max_steps);
    let bar = progress(max_steps, &scenario.name);
    let mut gif_error = None;
    if let Some(g) = gif.as_mut() {
        g.frame(&world).map_err(other)?;
    }
    let report = run_world(&scenario.name, &mut world, options, |w| {
        bar.inc(1);
        trails.record(w);
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
    if let Some(e) = gif_error {
        return Err(other(e));
    }
    println!("{}", report.table());
    if let Some(path) = &args.report {
        write_json(path, &report)?;
    }
    if let Some(path) = &args.svg {
        std::fs::write(path, svg::world_svg(&world, &trails.paths))
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(other)?;
    }
    Ok(())
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(other)?;
    std::fs::write(path, text + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
        .map_err(other)
}

/// Runs the demo sequence; `on_step` sees every step. Returns one report per
/// formation.
pub fn run_demo(
    method: Method,
    mut on_step: impl FnMut(&World, FormationKind),
) -> anyhow::Result<(World, Vec<Report>)> {
    let scenario = demo_scenario(method);
    let area = DEMO_AREA;
    let mut world = scenario.build(None)?;
    for p in formation_starts(FormationKind::Circle, DEMO_AGENTS, area, 1, world.mesh()) {
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
        for (i, g) in goals.into_iter().enumerate() {
            world.set_goal(AgentId(i as u32), Goal::Point(g))?;
        }
        world.start_epoch();
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
    let bar = progress(5 * demo_scenario(args.method).steps, "demo");
    let (_, reports) = run_demo(args.method, |w, kind| {
        bar.inc(1);
        bar.set_message(kind.name());
        if args.no_gif || gif_error.is_some() {
            return;
        }
        if gif.is_none() {
            match GifRecorder::create(&gif_path, w, 400, 0.1) {
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
        println!("{}", r.table());
    }
    let report_path = args.out.join("report.json");
    write_json(&report_path, &reports)?;
    if !args.no_gif {
        println!("wrote {}", gif_path.display());
    }
    println!("wrote {}", report_path.display());
    Ok(())
}
