//! Running a world to the end, and the report of how it went.

use super::lines::LineReport;
use crate::world::World;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What a run measured. Field names are part of the file format; timing fields
/// (`ms_per_step`) vary between runs, every other field is bit-identical for the same
/// scenario on any thread count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Scenario name.
    pub name: String,
    /// Steering method.
    pub method: String,
    /// Number of agents.
    pub agents: usize,
    /// Steps taken.
    pub steps: u64,
    /// Agents that reached their goal.
    pub arrived: usize,
    /// Contact events reported by collision response.
    pub collisions: u64,
    /// Agent pairs left penetrating by more than 1 % of the smaller radius after a
    /// step, each pair counted once.
    pub overlapping_pairs: usize,
    /// Largest penetration between two agents after any step, metres.
    pub max_penetration: f32,
    /// Smallest gap between two agents' edges after any step, metres (negative when
    /// they overlapped); `null` when no two agents ever came near.
    pub min_separation: Option<f32>,
    /// Mean time of first arrival over the arrived agents, seconds.
    pub mean_time_to_goal: Option<f64>,
    /// Latest time of first arrival, seconds.
    pub max_time_to_goal: Option<f64>,
    /// Mean over arrived agents of distance travelled / shortest path length.
    pub path_length_ratio: Option<f64>,
    /// Wall-clock milliseconds per step (varies between runs).
    pub ms_per_step: f64,
    /// Simulated seconds.
    pub sim_time: f64,
    /// Whether every agent arrived before the step limit.
    pub completed: bool,
    /// The scenario's measurement lines, in order: crossings and flow through each
    /// (see [`LineCounter`](super::LineCounter)). [`run`] and [`Report::of_world`]
    /// leave it empty; whoever counts sets it.
    #[serde(default)]
    pub lines: Vec<LineReport>,
}

impl Report {
    /// The report with timing fields zeroed, for comparing runs.
    pub fn without_timing(&self) -> Report {
        Report {
            ms_per_step: 0.0,
            ..self.clone()
        }
    }

    /// Reads the figures of `world` now; `ms_per_step` as given.
    pub fn of_world(name: &str, world: &World, ms_per_step: f64) -> Report {
        let agents = world.agents();
        let times: Vec<f64> = agents
            .iter()
            .filter_map(|a| a.arrival_time())
            .map(|t| t - world.epoch_time())
            .collect();
        let ratios: Vec<f64> = agents
            .iter()
            .filter(|a| a.arrival_time().is_some())
            .filter_map(|a| {
                let s = a.shortest_length()?;
                (s > 1e-6).then(|| a.travelled() / s)
            })
            .collect();
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let m = world.metrics();
        Report {
            name: name.to_owned(),
            method: world.steering().name().to_owned(),
            agents: agents.len(),
            steps: world.steps() - world.epoch_steps(),
            arrived: times.len(),
            collisions: m.collisions,
            overlapping_pairs: m.overlapping_pairs.len(),
            max_penetration: m.max_penetration,
            min_separation: m.min_separation.is_finite().then_some(m.min_separation),
            mean_time_to_goal: mean(&times),
            max_time_to_goal: times.iter().copied().reduce(f64::max),
            path_length_ratio: mean(&ratios),
            ms_per_step,
            sim_time: world.time() - world.epoch_time(),
            completed: world.all_arrived(),
            lines: Vec::new(),
        }
    }

    /// A few lines for a terminal.
    pub fn table(&self) -> String {
        let opt = |v: Option<f64>| v.map_or("-".to_owned(), |x| format!("{x:.2}"));
        let mut text = format!(
            "{name} ({method}): {agents} agents, {steps} steps ({sim:.1} s)\n  \
             arrived {arrived}/{agents}, mean time {mean} s, max {max} s, path ratio {ratio}\n  \
             collisions {coll}, overlapping pairs {ov}, max penetration {pen:.4} m, \
             min separation {sep}\n  {ms:.3} ms/step",
            name = self.name,
            method = self.method,
            agents = self.agents,
            steps = self.steps,
            sim = self.sim_time,
            arrived = self.arrived,
            mean = opt(self.mean_time_to_goal),
            max = opt(self.max_time_to_goal),
            ratio = opt(self.path_length_ratio),
            coll = self.collisions,
            ov = self.overlapping_pairs,
            pen = self.max_penetration,
            sep = self
                .min_separation
                .map_or("-".to_owned(), |s| format!("{s:.4} m")),
            ms = self.ms_per_step,
        );
        for line in &self.lines {
            text.push_str(&format!(
                "\n  line {name}: {lr} left to right, {rl} right to left, first {first} s, \
                 last {last} s, flow {flow} /s, specific flow {specific} /(m s)",
                name = line.name,
                lr = line.crossings_left_to_right,
                rl = line.crossings_right_to_left,
                first = opt(line.first_crossing),
                last = opt(line.last_crossing),
                flow = opt(line.flow),
                specific = opt(line.specific_flow),
            ));
        }
        text
    }
}

/// How long to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Step length, seconds.
    pub dt: f32,
    /// Most steps to take.
    pub max_steps: u64,
    /// Stop as soon as every agent has arrived.
    pub stop_when_arrived: bool,
}

/// Steps `world` until every agent arrived (if asked) or `max_steps`, calling
/// `on_step(world)` after each step (for progress bars and animation frames), and
/// returns the report named `name`. `ms_per_step` times the steps alone, not
/// `on_step`.
///
/// # Errors
/// [`crate::world::WorldError::InvalidStep`] when `dt` is not positive and finite.
pub fn run(
    name: &str,
    world: &mut World,
    options: RunOptions,
    mut on_step: impl FnMut(&World),
) -> Result<Report, crate::world::WorldError> {
    let mut stepping = std::time::Duration::ZERO;
    let first = world.steps();
    while world.steps() - first < options.max_steps {
        let started = Instant::now();
        world.step(options.dt)?;
        stepping += started.elapsed();
        on_step(world);
        if options.stop_when_arrived && world.all_arrived() {
            break;
        }
    }
    let taken = (world.steps() - first).max(1);
    let ms = stepping.as_secs_f64() * 1e3 / taken as f64;
    Ok(Report::of_world(name, world, ms))
}
