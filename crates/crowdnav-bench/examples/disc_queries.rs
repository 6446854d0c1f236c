//! Answers every `k`-th aurora query at one radius, printing each length (all digits)
//! and the per-query median time: a small binary for profilers and for checking that
//! a change leaves every length as it was.
//!
//! ```text
//! cargo run --release -p crowdnav-bench --example disc_queries -- [RADIUS] [EVERY] [REPS] [ONLY]
//! ```
//!
//! Without the benchmark data (`CROWDNAV_DATA`, default `../shared/data`) it says it
//! skipped and exits 0.

use crowdnav_bench::data::data_dir;
use crowdnav_bench::paths::{median, PathWorld};
use std::time::Instant;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: f64| -> Result<f64, String> {
        args.get(i).map_or(Ok(default), |s| {
            s.parse().map_err(|_| format!("cannot read {s:?}"))
        })
    };
    let radius = number(0, 1.0)? as f32;
    let every = (number(1, 10.0)? as usize).max(1);
    let reps = (number(2, 1.0)? as usize).max(1);
    let only = args.get(3).and_then(|s| s.parse::<usize>().ok());
    let dir = match data_dir() {
        Ok(dir) => dir,
        Err(why) => {
            println!("skipped disc_queries: {why}");
            return Ok(());
        }
    };
    let world = PathWorld::load(&dir, "aurora")?;
    let mut times = Vec::new();
    let all = Instant::now();
    for (i, q) in world.queries.iter().enumerate().step_by(every) {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let mut runs = Vec::with_capacity(reps);
        let mut length = None;
        for _ in 0..reps {
            let t = Instant::now();
            length = world.ours(q, radius);
            runs.push(t.elapsed().as_secs_f64());
        }
        let m = median(&mut runs);
        times.push(m);
        match length {
            Some(l) => println!("{i} {l:.17e} {m:.3e}"),
            None => println!("{i} none {m:.3e}"),
        }
    }
    eprintln!(
        "r = {radius}: {} queries, median {:.3e} s, total {:.3} s",
        times.len(),
        median(&mut times),
        all.elapsed().as_secs_f64()
    );
    Ok(())
}
