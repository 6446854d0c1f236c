//! `crowdnav bench`: how fast crowdnav steps one scenario, on one or more thread
//! counts, with no peer (the `crowdnav-bench` crate compares against other libraries).
//!
//! Every repetition builds the world afresh from the scenario, runs `--warmup` steps
//! untimed, then times `--steps` steps one by one. The figures are medians over all
//! timed steps of all repetitions. Because the world is deterministic, the state after
//! the timed steps must be bit-identical on every thread count and repetition: the
//! command checks it, so a fast wrong answer cannot pass unnoticed.

use crate::{run_cmd::parse_method, Failure};
use anyhow::anyhow;
use crowdnav::scenario::{Method, Scenario};
use crowdnav::world::World;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Scenario file (JSON; see docs/scenario-format.md).
    scenario: PathBuf,
    /// Steering method, overriding the scenario's.
    #[arg(long, value_parser = parse_method)]
    method: Option<Method>,
    /// Steps timed per repetition (default: the scenario's step limit, at most 200).
    #[arg(long)]
    steps: Option<u64>,
    /// Untimed steps before the timed ones, so the crowd is under way.
    #[arg(long, default_value_t = 10)]
    warmup: u64,
    /// Repetitions per thread count, each from a freshly built world.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    reps: u32,
    /// Thread counts to time, comma-separated (default: 1 and every core, if more).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Vec<u16>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The figures of one thread count.
#[derive(serde::Serialize)]
struct ThreadFigures {
    threads: usize,
    median_ms_per_step: f64,
    p95_ms_per_step: f64,
    max_ms_per_step: f64,
    /// Agent-steps per second at the median step time.
    agent_steps_per_s: f64,
}

#[derive(serde::Serialize)]
struct BenchReport {
    scenario: String,
    method: String,
    agents: usize,
    dt: f32,
    warmup: u64,
    steps: u64,
    reps: u32,
    build_ms: f64,
    /// Whether every thread count and repetition ended in the same state, bit for bit.
    deterministic: bool,
    results: Vec<ThreadFigures>,
}

/// Bits of the world's state after a run: positions and velocities of every agent.
fn state_bits(world: &World) -> Vec<u32> {
    world
        .agents()
        .iter()
        .flat_map(|a| [a.position.x, a.position.y, a.velocity.x, a.velocity.y])
        .map(f32::to_bits)
        .collect()
}

/// Value at quantile `q` of sorted `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = (q * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    let bad = |e: anyhow::Error| Failure::BadInput(e);
    let scenario = Scenario::from_file(&args.scenario).map_err(|e| bad(e.into()))?;
    let steps = args.steps.unwrap_or(scenario.steps.min(200));
    if steps == 0 {
        return Err(bad(anyhow!("--steps must be at least 1")));
    }
    let threads: Vec<usize> = if args.threads.is_empty() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if cores > 1 {
            vec![1, cores]
        } else {
            vec![1]
        }
    } else {
        args.threads.iter().map(|&t| usize::from(t)).collect()
    };

    let started = Instant::now();
    let probe = scenario.build(args.method).map_err(|e| bad(e.into()))?;
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let (agents, method) = (probe.agents().len(), probe.steering().name().to_owned());
    drop(probe);

    let mut results = Vec::new();
    let mut reference: Option<Vec<u32>> = None;
    let mut deterministic = true;
    for &t in &threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| Failure::Other(e.into()))?;
        let mut times = Vec::new();
        for _ in 0..args.reps {
            let mut world = scenario.build(args.method).map_err(|e| bad(e.into()))?;
            let timed = pool.install(|| -> Result<Vec<f64>, crowdnav::world::WorldError> {
                for _ in 0..args.warmup {
                    world.step(scenario.dt)?;
                }
                let mut times = Vec::with_capacity(steps as usize);
                for _ in 0..steps {
                    let start = Instant::now();
                    world.step(scenario.dt)?;
                    times.push(start.elapsed().as_secs_f64() * 1e3);
                }
                Ok(times)
            });
            times.extend(timed.map_err(|e| bad(e.into()))?);
            let bits = state_bits(&world);
            match &reference {
                None => reference = Some(bits),
                Some(r) => deterministic &= *r == bits,
            }
        }
        times.sort_by(f64::total_cmp);
        let median = quantile(&times, 0.5);
        results.push(ThreadFigures {
            threads: t,
            median_ms_per_step: median,
            p95_ms_per_step: quantile(&times, 0.95),
            max_ms_per_step: times.last().copied().unwrap_or(f64::NAN),
            agent_steps_per_s: agents as f64 / (median / 1e3),
        });
    }

    let report = BenchReport {
        scenario: scenario.name.clone(),
        method,
        agents,
        dt: scenario.dt,
        warmup: args.warmup,
        steps,
        reps: args.reps,
        build_ms,
        deterministic,
        results,
    };
    if args.json {
        let text = serde_json::to_string(&report).map_err(|e| Failure::Other(e.into()))?;
        say!("{text}");
    } else {
        print_table(&report);
    }
    if deterministic {
        Ok(())
    } else {
        Err(Failure::Other(anyhow!(
            "runs on different thread counts or repetitions ended in different states"
        )))
    }
}

fn print_table(r: &BenchReport) {
    say!(
        "{} ({}, {} agents, dt {} s): build {:.1} ms, {} warm-up + {} timed steps x {} reps",
        r.scenario,
        r.method,
        r.agents,
        r.dt,
        r.build_ms,
        r.warmup,
        r.steps,
        r.reps
    );
    say!("threads  median ms/step  p95 ms/step  max ms/step  agent-steps/s");
    for f in &r.results {
        say!(
            "{:>7}  {:>14.3}  {:>11.3}  {:>11.3}  {:>13.0}",
            f.threads,
            f.median_ms_per_step,
            f.p95_ms_per_step,
            f.max_ms_per_step,
            f.agent_steps_per_s
        );
    }
    say!(
        "same final state on every thread count and repetition: {}",
        if r.deterministic { "yes" } else { "NO" }
    );
}
