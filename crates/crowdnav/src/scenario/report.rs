//! Running a world to the end, and the report of how it went.

use super::lines::LineReport;
use super::script::Script;
use super::ScenarioError;
use crate::world::{World, WorldError};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What a run measured. Field names are part of the file format; timing fields
/// (`ms_per_step`, `first_step_ms`) vary between runs, every other field is bit-identical for the same
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
    /// they overlapped), over the pairs that came within touching distance; `null`
    /// when no two agents ever touched.
    pub min_separation: Option<f32>,
    /// Mean time of first arrival over the arrived agents, seconds.
    pub mean_time_to_goal: Option<f64>,
    /// Latest time of first arrival, seconds.
    pub max_time_to_goal: Option<f64>,
    /// Mean over arrived agents of distance travelled / shortest path length.
    pub path_length_ratio: Option<f64>,
    /// Wall-clock milliseconds per step, the first step left out when there were
    /// others (varies between runs).
    pub ms_per_step: f64,
    /// Wall-clock milliseconds of the first step, which plans every agent's path and
    /// starts the worker threads (varies between runs).
    #[serde(default)]
    pub first_step_ms: f64,
    /// Simulated seconds.
    pub sim_time: f64,
    /// Whether every agent arrived before the step limit.
    pub completed: bool,
    /// The scenario's measurement lines, in order: crossings and flow through each
    /// (see [`LineCounter`](super::LineCounter)). [`run`] and [`Report::of_world`]
    /// leave it empty; whoever counts sets it.
    #[serde(default)]
    pub lines: Vec<LineReport>,
    /// How far people walking against each other kept to lanes: the mean lane order
    /// parameter Φ while streams met, 0 (mixed) to 1 (lanes); see
    /// [`LaneMeter`](super::LaneMeter). Measured where the scenario has measurement
    /// lines; `null` when it has none or no two streams ever met.
    #[serde(default)]
    pub lane_order: Option<f64>,
    /// Agents spawned during the run by the scenario's events and sources.
    #[serde(default)]
    pub spawned: u64,
    /// Agents removed during the run by the scenario's events and sinks; `agents`
    /// counts those left in the world.
    #[serde(default)]
    pub removed: u64,
    /// Paths planned again during the run ([`Metrics::replans`](crate::world::Metrics::replans)):
    /// chases, strays, moves and mesh edits.
    #[serde(default)]
    pub replans: u64,
}

impl Report {
    /// The report with timing fields zeroed, for comparing runs.
    pub fn without_timing(&self) -> Report {
        Report {
            ms_per_step: 0.0,
            first_step_ms: 0.0,
            ..self.clone()
        }
    }

    /// Reads the figures of `world` now; the timing fields are zero (see [`run`]).
    pub fn of_world(name: &str, world: &World) -> Report {
        let agents = world.agents();
        let times: Vec<f64> = agents
            .iter()
            .filter_map(|a| a.arrival_time())
            .map(|t| t - world.metrics_start_time())
            .collect();
        let ratios: Vec<f64> = agents
            .iter()
            .filter(|a| a.arrival_time().is_some())
            .filter_map(|a| {
                let s = a.first_plan_length()?;
                (s > 1e-6).then(|| a.travelled() / s)
            })
            .collect();
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let m = world.metrics();
        Report {
            name: name.to_owned(),
            method: world.steering().name().to_owned(),
            agents: agents.len(),
            steps: world.steps() - world.metrics_start_step(),
            arrived: times.len(),
            collisions: m.collisions,
            overlapping_pairs: m.overlapping_pairs.len(),
            max_penetration: m.max_penetration,
            min_separation: m.min_separation.is_finite().then_some(m.min_separation),
            mean_time_to_goal: mean(&times),
            max_time_to_goal: times.iter().copied().reduce(f64::max),
            path_length_ratio: mean(&ratios),
            ms_per_step: 0.0,
            first_step_ms: 0.0,
            sim_time: world.time() - world.metrics_start_time(),
            completed: world.all_arrived(),
            lines: Vec::new(),
            lane_order: None,
            spawned: 0,
            removed: 0,
            replans: m.replans,
        }
    }

    /// A few lines for a terminal. Figures that a run did not produce (no agent
    /// arrived, no two agents came near, no crossing) are said in words.
    pub fn table(&self) -> String {
        let mut text = format!(
            "{name} ({method}): {agents} agents, {steps} steps ({sim:.1} s)\n  ",
            name = self.name,
            method = self.method,
            agents = self.agents,
            steps = self.steps,
            sim = self.sim_time,
        );
        if self.spawned > 0 || self.removed > 0 {
            text.push_str(&format!(
                "spawned {}, removed {} (the figures below are of the {} left)\n  ",
                self.spawned, self.removed, self.agents
            ));
        }
        text.push_str(&format!("arrived {}/{}", self.arrived, self.agents));
        match (self.mean_time_to_goal, self.max_time_to_goal) {
            (Some(mean), Some(max)) => {
                text.push_str(&format!(", mean time {mean:.2} s, max {max:.2} s"));
            }
            _ => text.push_str(", so no times to goal"),
        }
        if let Some(ratio) = self.path_length_ratio {
            text.push_str(&format!(", path ratio {ratio:.2}"));
        }
        text.push_str(&format!(
            "\n  collisions {coll}, overlapping pairs {ov}, ",
            coll = self.collisions,
            ov = self.overlapping_pairs,
        ));
        match self.min_separation {
            Some(s) => text.push_str(&format!(
                "max penetration {:.4} m, min separation {s:.4} m",
                self.max_penetration
            )),
            None => text.push_str("no two agents ever touched"),
        }
        if self.replans > 0 {
            text.push_str(&format!(", paths planned again {}", self.replans));
        }
        text.push_str(&format!(
            "\n  {:.3} ms/step after a first step of {:.3} ms",
            self.ms_per_step, self.first_step_ms
        ));
        if let Some(order) = self.lane_order {
            text.push_str(&format!("\n  lane order {order:.2} (0 mixed, 1 lanes)"));
        }
        for line in &self.lines {
            text.push_str(&format!(
                "\n  line {name}: {lr} left to right, {rl} right to left",
                name = line.name,
                lr = line.crossings_left_to_right,
                rl = line.crossings_right_to_left,
            ));
            if let (Some(first), Some(last)) = (line.first_crossing, line.last_crossing) {
                text.push_str(&format!(", first at {first:.2} s, last at {last:.2} s"));
            }
            match (line.flow, line.specific_flow) {
                (Some(flow), Some(specific)) => text.push_str(&format!(
                    ", flow {flow:.2} /s, specific flow {specific:.2} /(m s)"
                )),
                _ => text.push_str(", too few crossings for a flow"),
            }
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
/// returns the report named `name`. The timing fields time the steps alone, not
/// `on_step`: `first_step_ms` the first step, which plans every path, and
/// `ms_per_step` the mean of the others (of the first, when it was the only one).
///
/// # Errors
/// [`crate::world::WorldError::InvalidStep`] when `dt` is not positive and finite.
pub fn run(
    name: &str,
    world: &mut World,
    options: RunOptions,
    on_step: impl FnMut(&World),
) -> Result<Report, WorldError> {
    let mut on_step = on_step;
    drive(name, world, options, &mut Unscripted, |w, _| on_step(w))
}

/// [`run`] with a scenario's [`Script`]: its events and sources before each step, its
/// sinks after it; `on_step` also sees the script (for the agents' scenario numbers,
/// [`Script::scenario_index`]). A run that stops when every agent has arrived also
/// waits until every event has happened and every source is spent. The report counts
/// the agents spawned and removed.
///
/// # Errors
/// [`ScenarioError::World`] for a bad step or an agent the world refuses;
/// [`ScenarioError::Invalid`] for an event naming an agent not in the world.
pub fn run_script(
    name: &str,
    world: &mut World,
    script: &mut Script,
    options: RunOptions,
    mut on_step: impl FnMut(&World, &Script),
) -> Result<Report, ScenarioError> {
    let spawned_before = script.spawned();
    let removed_before = script.removed();
    let mut report = drive(name, world, options, script, |w, s| on_step(w, s))?;
    report.spawned = script.spawned() - spawned_before;
    report.removed = script.removed() - removed_before;
    Ok(report)
}

/// What happens between two steps of a run.
trait Between {
    type Error: From<WorldError>;
    /// Before each step.
    fn before(&mut self, world: &mut World) -> Result<(), Self::Error>;
    /// After each step, before `on_step`.
    fn after(&mut self, world: &mut World) -> Result<(), Self::Error>;
    /// Whether nothing is left to happen (a run that stops on arrival needs it).
    fn is_done(&self, world: &World) -> bool;
}

/// Nothing between the steps.
struct Unscripted;

impl Between for Unscripted {
    type Error = WorldError;
    fn before(&mut self, _: &mut World) -> Result<(), WorldError> {
        Ok(())
    }
    fn after(&mut self, _: &mut World) -> Result<(), WorldError> {
        Ok(())
    }
    fn is_done(&self, _: &World) -> bool {
        true
    }
}

impl Between for Script {
    type Error = ScenarioError;
    fn before(&mut self, world: &mut World) -> Result<(), ScenarioError> {
        self.before_step(world)
    }
    fn after(&mut self, world: &mut World) -> Result<(), ScenarioError> {
        self.after_step(world)
    }
    fn is_done(&self, world: &World) -> bool {
        Script::is_done(self, world)
    }
}

fn drive<B: Between>(
    name: &str,
    world: &mut World,
    options: RunOptions,
    between: &mut B,
    mut on_step: impl FnMut(&World, &B),
) -> Result<Report, B::Error> {
    let mut first_step = None;
    let mut later = std::time::Duration::ZERO;
    let first = world.steps();
    while world.steps() - first < options.max_steps {
        between.before(world)?;
        let started = Instant::now();
        world.step(options.dt)?;
        let took = started.elapsed();
        match first_step {
            None => first_step = Some(took),
            Some(_) => later += took,
        }
        between.after(world)?;
        on_step(world, between);
        if options.stop_when_arrived && world.all_arrived() && between.is_done(world) {
            break;
        }
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let first_step_ms = first_step.map_or(0.0, ms);
    let taken = world.steps() - first;
    let mut report = Report::of_world(name, world);
    report.first_step_ms = first_step_ms;
    report.ms_per_step = match taken {
        0 => 0.0,
        1 => first_step_ms,
        n => ms(later) / (n - 1) as f64,
    };
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::Orca;
    use crate::world::{AgentParams, WorldParams};
    use glam::Vec2;

    fn world() -> World {
        let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
        for (from, to) in [(Vec2::ZERO, Vec2::X * 5.0), (Vec2::X * 5.0, Vec2::ZERO)] {
            world
                .add_agent(AgentParams::new(from, to).with_radius(0.3))
                .expect("valid agent");
        }
        world
    }

    /// The first step (planning, thread start-up) is reported on its own and left out of
    /// the mean of the others; a run of one step has only it; a run of none, nothing.
    #[test]
    fn the_first_step_is_timed_apart_from_the_others() {
        let options = |max_steps| RunOptions {
            dt: 0.1,
            max_steps,
            stop_when_arrived: false,
        };
        let none = run("none", &mut world(), options(0), |_| {}).expect("runs");
        assert_eq!(
            (none.steps, none.first_step_ms, none.ms_per_step),
            (0, 0.0, 0.0)
        );
        let one = run("one", &mut world(), options(1), |_| {}).expect("runs");
        assert_eq!(one.steps, 1);
        assert!(one.first_step_ms > 0.0);
        assert_eq!(one.ms_per_step, one.first_step_ms);
        let many = run("many", &mut world(), options(20), |_| {}).expect("runs");
        assert_eq!(many.steps, 20);
        assert!(many.first_step_ms > 0.0 && many.ms_per_step > 0.0);
        let timing_free = many.without_timing();
        assert_eq!(
            (timing_free.first_step_ms, timing_free.ms_per_step),
            (0.0, 0.0)
        );
    }
}
