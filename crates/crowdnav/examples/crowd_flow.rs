//! People at doors, in counterflow and where streams cross, with the default crowd
//! model: the figures of docs/crowd-behaviour.md.
//!
//! `cargo run --release -p crowdnav --example crowd_flow [SEED ...]` (seeds 1, 2, 3 when
//! none are given).

use crowdnav::scenario::layouts::{counterflow, crossing, door, Layout};
use crowdnav::scenario::LineCounter;

fn run(label: &str, layout: &Layout) -> Result<(), Box<dyn std::error::Error>> {
    let scenario = &layout.scenario;
    let mut world = scenario.build(None)?;
    let mut lines = LineCounter::new(scenario.lines.clone(), &world)?;
    for _ in 0..scenario.steps {
        world.step(scenario.dt)?;
        lines.observe(&world);
        if world.all_arrived() {
            break;
        }
    }
    let line = lines.reports().remove(0);
    let arrived = world.agents().iter().filter(|a| a.is_arrived()).count();
    let flow = line
        .specific_flow
        .map_or("none".to_owned(), |f| format!("{f:.2}"));
    println!(
        "{label:<16} specific flow {flow:>5} /(m s)   arrived {arrived:>3} of {:<3}   last at {:>6.1} s   overlapping pairs {}",
        world.agents().len(),
        world.time(),
        world.metrics().overlapping_pairs.len()
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut seeds: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if seeds.is_empty() {
        seeds = vec![1, 2, 3];
    }
    for seed in seeds {
        for width in [0.8, 1.0, 1.2, 1.6, 2.0, 2.4] {
            run(
                &format!("door {width} m s{seed}"),
                &door(30.0, width, 120, seed)?,
            )?;
        }
        run(
            &format!("counterflow s{seed}"),
            &counterflow(40.0, 4.0, 40, seed)?,
        )?;
        run(
            &format!("crossing s{seed}"),
            &crossing(40.0, 4.0, 40, seed)?,
        )?;
    }
    Ok(())
}
