//! RVO2's circle of 1 000 agents (`scenarios/circle-1000.json`) with its rings turned to
//! 75 angular phases: prints, per phase, the steps until every agent has arrived and the
//! pairs that overlapped, then the worst and how many phases exceed 5 900 steps (the
//! goal of tests/circle_phases.rs).
//!
//! ```text
//! cargo run --release -p crowdnav --example circle_phases -- [ORCA_JSON] [RING_KEYS ...]
//! ```
//!
//! `ORCA_JSON` (starting with `{`) replaces the scenario's `{"preset": "rvo2"}`, e.g.
//! `'{"preset": "rvo2", "time_horizon": 5}'`. Each `RING_KEYS` (e.g. `'"phase": 0.1'` or
//! `'"phase_seed": 2'`) is one run; without any, `"phase_seed"` runs from 1 to 25 and
//! `"phase"` from 0 to 0.98 by 0.02. Runs go two at a time, each world on one thread
//! (results are the same on any thread count); about 5 s each on an idle machine.

use crowdnav::scenario::Scenario;
use std::sync::Mutex;
use std::time::Instant;

/// The goal: 0.8 × RVO2's 7 371 steps on the shipped layout, rounded down.
const MOST_STEPS: u64 = 5_900;

/// Gives up after this many steps.
const STEP_LIMIT: u64 = 12_000;

/// Steps until every agent has arrived (or [`STEP_LIMIT`]), agents arrived, and
/// overlapping pairs.
fn run(orca: &str, ring_keys: &str) -> Result<(u64, usize, usize), String> {
    let text = format!(
        r#"{{"name": "circle-1000", "dt": 0.25, "steps": {STEP_LIMIT},
            "orca": {orca}, "ring": {{"count": 1000, {ring_keys}}}}}"#
    );
    let scenario = Scenario::from_json(&text).map_err(|e| e.to_string())?;
    let mut world = scenario.build(None).map_err(|e| e.to_string())?;
    while world.steps() < scenario.steps && !world.all_arrived() {
        world.step(scenario.dt).map_err(|e| e.to_string())?;
    }
    let arrived = world.agents().iter().filter(|a| a.is_arrived()).count();
    Ok((
        world.steps(),
        arrived,
        world.metrics().overlapping_pairs.len(),
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut orca = r#"{"preset": "rvo2"}"#.to_owned();
    let mut runs = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg.trim_start().starts_with('{') {
            orca = arg;
        } else {
            runs.push(arg);
        }
    }
    if runs.is_empty() {
        runs = (1..=25)
            .map(|seed| format!(r#""phase_seed": {seed}"#))
            .chain((0..50).map(|k| format!(r#""phase": {:.2}"#, 0.02 * k as f64)))
            .collect();
    }
    println!("orca: {orca}");
    let results = Mutex::new(vec![None; runs.len()]);
    let next = Mutex::new(0usize);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let index = {
                    let Ok(mut next) = next.lock() else { return };
                    *next += 1;
                    *next - 1
                };
                let Some(keys) = runs.get(index) else { return };
                let start = Instant::now();
                let result = pool.install(|| run(&orca, keys));
                let seconds = start.elapsed().as_secs_f64();
                match &result {
                    Ok((steps, arrived, overlapping)) => println!(
                        "{keys:<20} {steps:>6} steps  {arrived:>4} arrived  \
                         {overlapping} overlapping  ({seconds:.0} s)"
                    ),
                    Err(e) => println!("{keys:<20} error: {e}"),
                }
                if let Ok(mut results) = results.lock() {
                    results[index] = result.ok();
                }
            });
        }
    });
    let results = results.into_inner().map_err(|e| e.to_string())?;
    let done: Vec<(&String, (u64, usize, usize))> = runs
        .iter()
        .zip(&results)
        .filter_map(|(k, r)| r.map(|r| (k, r)))
        .collect();
    println!("| ring | steps | overlapping pairs |\n|---|---|---|");
    for (keys, (steps, arrived, overlapping)) in &done {
        let short = if *arrived < 1000 {
            " (not all arrived)"
        } else {
            ""
        };
        println!("| `{keys}` | {steps}{short} | {overlapping} |");
    }
    let over = done.iter().filter(|(_, r)| r.0 > MOST_STEPS).count();
    let overlapping: usize = done.iter().map(|(_, r)| r.2).sum();
    if let Some((keys, worst)) = done.iter().max_by_key(|(_, r)| r.0) {
        let mean = done.iter().map(|(_, r)| r.0 as f64).sum::<f64>() / done.len() as f64;
        println!(
            "worst {keys}: {} steps; mean {mean:.0}; {over} of {} over {MOST_STEPS}; \
             {overlapping} overlapping pairs in all",
            worst.0,
            done.len()
        );
    }
    Ok(())
}
