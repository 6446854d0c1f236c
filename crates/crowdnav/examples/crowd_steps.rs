//! Steps RVO2's circle at scale and prints ms per step: a small binary to profile the
//! crowd step (`perf record`, `valgrind --tool=callgrind`).
//!
//! ```text
//! cargo run --release -p crowdnav --example crowd_steps -- [N] [STEPS] [THREADS]
//! ```
//!
//! Defaults: N = 10 000 agents, 40 timed steps after 20 warm-up steps, rayon's default
//! thread count.

use crowdnav::scenario::{RingSpec, Scenario};
use std::time::Instant;

/// CPU time of the whole process so far (user and system, all threads), seconds, where
/// `/proc` tells it (on a loaded machine, wall time says little).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which sits in parentheses): utime and stime are
    // the 12th and 13th, in clock ticks of 1/100 s.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(10_000);
    let steps = args.get(1).copied().unwrap_or(40);
    let threads = args.get(2).copied().unwrap_or(0);
    let mut s = Scenario::from_json(r#"{"name": "circle", "dt": 0.25, "steps": 10}"#)?;
    s.ring = Some(RingSpec::rvo2_example(n));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    pool.install(|| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let mut world = s.build(None)?;
        for _ in 0..20 {
            world.step(0.25)?;
        }
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        let mut taken = 0;
        while taken < steps && !world.all_arrived() {
            world.step(0.25)?;
            taken += 1;
        }
        let steps = taken;
        let per_step = |seconds: f64| seconds * 1e3 / steps.max(1) as f64;
        let ms = per_step(start.elapsed().as_secs_f64());
        let cpu = cpu_start.and_then(|c0| cpu_seconds().map(|c1| per_step(c1 - c0)));
        println!(
            "circle-{n}: {ms:.2} ms/step over {steps} steps on {} threads (CPU: {} ms/step); \
             overlapping pairs {}; {} of {n} arrived after {} steps",
            rayon::current_num_threads(),
            cpu.map_or("?".to_owned(), |c| format!("{c:.2}")),
            world.metrics().overlapping_pairs.len(),
            world.agents().iter().filter(|a| a.is_arrived()).count(),
            world.steps()
        );
        Ok(())
    })
    .map_err(|e| e as Box<dyn std::error::Error>)
}
