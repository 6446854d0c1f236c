//! ms per step of the ORCA circle (RVO2's `examples/Circle.cc` layout at scale: see
//! `scenarios/circle-*.json`), crowdnav's whole `World::step` against `dodgy_2d`
//! (ORCA in Rust) fed the same neighbours, on 1 and 2 threads, in one run.
//!
//! ```text
//! cargo bench -p crowdnav-bench --bench crowd_step            # N = 1 000, 10 000, 100 000
//! CROWD_SIZES=1000,10000 CROWD_STEPS=20 cargo bench -p crowdnav-bench --bench crowd_step
//! ```
//!
//! Both sides start from the same state: the crowdnav world after `WARMUP` steps (the
//! agents under way); their steps are timed interleaved. The dodgy side is
//! [`crowdnav_bench::crowd::Dodgy`]: the same uniform grid and neighbour rule as the
//! world, dodgy's avoiding velocity in parallel, integration. crowdnav's step does all
//! that and more: path following, collision response, keeping on the mesh and
//! measuring overlaps. `crowdnav-bench crowd` reports the same figures with steps to
//! the finish and overlap counts.

use crowdnav_bench::crowd::{circle, time_steps};

const WARMUP: usize = 20;

fn main() {
    let sizes: Vec<usize> = std::env::var("CROWD_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let steps: usize = std::env::var("CROWD_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    println!("| N | threads | crowdnav ms/step | dodgy_2d ms/step | dodgy / crowdnav |");
    println!("|---:|---:|---:|---:|---:|");
    for &n in &sizes {
        let scenario = circle(n).expect("circle scenario");
        for threads in [1, 2] {
            let t = time_steps(&scenario, threads, WARMUP, steps).expect("crowd steps");
            println!(
                "| {n} | {threads} | {:.2} | {:.2} | {:.2} |",
                t.ours_ms.median,
                t.theirs_ms.median,
                t.theirs_ms.median / t.ours_ms.median
            );
        }
    }
}
