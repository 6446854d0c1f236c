//! `crowdnav-bench`: benchmark reports that criterion does not give.
//!
//! ```text
//! crowdnav-bench paths [--map aurora] [--reps 5] [--every 1] [--only I] [--no-r1]
//!                      [--slowest N]
//! ```
//!
//! `paths` times every scenario query of a Polyanya v2 map individually (the median of
//! `--reps` runs each), crowdnav at r = 0 and r = 1 and the `polyanya` crate, checks
//! every answer against the other side's, and prints median/p95/max per side, the
//! median of the per-query ratios ours/polyanya, and r = 1 against r = 0. `--every k`
//! keeps every k-th query only, `--only i` query `i` only; `--no-r1` skips the r = 1
//! runs; `--slowest n` lists the n queries slowest at r = 1. Without the benchmark data it says so and exits 0.

use crowdnav_bench::data::data_dir;
use crowdnav_bench::paths::{slowest_r1, summarize, time_each, PathWorld, Selection};
use std::process::ExitCode;

const USAGE: &str =
    "usage: crowdnav-bench paths [--map NAME] [--reps N] [--every K] [--only I] [--no-r1] [--slowest N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("paths") => match paths(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("crowdnav-bench: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn paths(args: &[String]) -> Result<(), String> {
    let mut map = "aurora".to_owned();
    let mut sel = Selection {
        reps: 5,
        every: 1,
        only: None,
        with_r1: true,
    };
    let mut slowest = 0usize;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or(format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--map" => map = value()?,
            "--reps" => sel.reps = value()?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--no-r1" => sel.with_r1 = false,
            "--slowest" => slowest = value()?.parse().map_err(|e| format!("--slowest: {e}"))?,
            "--every" => sel.every = value()?.parse().map_err(|e| format!("--every: {e}"))?,
            "--only" => {
                sel.only = Some(value()?.parse().map_err(|e| format!("--only: {e}"))?);
            }
            _ => return Err(format!("unknown argument {flag}\n{USAGE}")),
        }
    }
    let dir = match data_dir() {
        Ok(dir) => dir,
        Err(why) => {
            println!("skipped: {why}");
            return Ok(());
        }
    };
    let world = PathWorld::load(&dir, &map)?;
    let times = time_each(&world, sel)?;
    print!("{}", summarize(&world, &times));
    if slowest > 0 {
        print!("{}", slowest_r1(&times, slowest));
    }
    Ok(())
}
