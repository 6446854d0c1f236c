//! People at doors, in counterflow and where streams cross, with the default crowd
//! model: the figures of docs/crowd-behaviour.md.
//!
//! ```text
//! cargo run --release -p crowdnav --example crowd_flow [LAYOUT] [SEED | FIRST-LAST ...]
//! ```
//!
//! `LAYOUT` is `all` (the default: every door, the counterflow and the crossing of the
//! issue's set-up), `doors`, `doors=1.1,1.3` (doors of other widths),
//! `room=SIZE,PEOPLE[,WIDTH...]` (the doors from a square room of another size, with
//! another number of people), `door-shape=WALL,OFFSET[,WIDTH...]` (the doors in a wall
//! `WALL` metres thick, their middle `OFFSET` metres off the wall's middle:
//! [`DoorShape`]),
//! `counterflow=LENGTH,WIDTH,PEOPLE_A_SIDE` and `crossing=...` (other sizes), `counterflow`, `crossing`, `narrow-counterflow` (30 × 3 m,
//! 20 a side), `wide-counterflow` (50 × 6 m, 80 a side) or `wide-crossing` (50 × 6 m,
//! 80 a stream). Any layout may end in `@shuffled`, `@mirrored`, `@transposed` or `@together`: the places dealt out
//! at random, in reverse, by columns of starts to rows of places, or one point for everyone ([`Places`]) instead of in order. Any layout may end in `+mixed`: people of mixed
//! sizes and speeds (radius 0.2–0.3 m, top speed about 1.34 m/s give or take 0.26; see
//! [`mix`]) instead of all alike. Seeds are numbers or ranges (`1-24`); 1, 2 and 3 when none are given.
//! Seeds run in parallel, one world per thread. Two summary lines per layout give the
//! median and worst times, and how many seeds make them within twice the time alone:
//! *clear*, when everyone rests at its place at once (the run stops there), and
//! *through*, when the last came to its place for the first time.

use crowdnav::scenario::layouts::{
    counterflow_with, crossing_with, door_shaped, DoorShape, Layout, Places, PERSON_SPEED,
};
use crowdnav::scenario::{LaneMeter, LineCounter};
use crowdnav::world::Goal;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// What one run gave.
struct Outcome {
    seed: u64,
    flow: Option<f64>,
    arrived: usize,
    agents: usize,
    clear: f64,
    /// When the last came to its place the first time (everyone through), seconds.
    through: f64,
    alone: f64,
    overlaps: usize,
    lanes: Option<f64>,
}

fn run(seed: u64, layout: &Layout) -> Result<Outcome, String> {
    let scenario = &layout.scenario;
    let mut world = scenario.build(None).map_err(|e| e.to_string())?;
    let alone = world
        .agents()
        .iter()
        .map(|a| match a.goal {
            Goal::Point(g) => f64::from(a.position.distance(g) / a.pref_speed),
            _ => 0.0,
        })
        .fold(0.0, f64::max);
    let mut lines = LineCounter::new(scenario.lines.clone(), &world).map_err(|e| e.to_string())?;
    let mut lanes = LaneMeter::default();
    for _ in 0..scenario.steps {
        world.step(scenario.dt).map_err(|e| e.to_string())?;
        lines.observe(&world);
        lanes.observe(&world);
        if world.all_arrived() {
            break;
        }
    }
    Ok(Outcome {
        seed,
        flow: lines.reports().first().and_then(|l| l.specific_flow),
        arrived: world.agents().iter().filter(|a| a.is_arrived()).count(),
        agents: world.agents().len(),
        clear: world.time(),
        through: world
            .agents()
            .iter()
            .map(|a| a.arrival_time().unwrap_or(f64::INFINITY))
            .fold(0.0, f64::max),
        alone,
        overlaps: world.metrics().overlapping_pairs.len(),
        lanes: lanes.lane_order(),
    })
}

/// People of mixed sizes and speeds, as crowds are measured: each person's radius
/// uniform in 0.2–0.3 m and its top speed (which it cruises at) normal about
/// [`PERSON_SPEED`] with a standard deviation of 0.26 m/s, the spread of free walking
/// speeds Weidmann (1993) collected, kept within 0.8–1.9 m/s. Drawn from `seed`, so a
/// run is repeatable. The layouts scatter people at least 0.6 m apart (two radii of
/// 0.25 m and 0.1 m), so none start overlapping.
fn mix(layout: &mut Layout, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x006d_6978_6564);
    for agent in &mut layout.scenario.agents {
        agent.radius = rng.gen_range(0.2..=0.3);
        // Box–Muller: a standard normal from two uniforms.
        let (u, w): (f32, f32) = (rng.gen_range(f32::EPSILON..1.0), rng.gen());
        let normal = (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * w).cos();
        agent.max_speed = (PERSON_SPEED + 0.26 * normal).clamp(0.8, 1.9);
        agent.pref_speed = None;
    }
}

/// Runs `make(seed)` for every seed and prints a line per seed and a summary.
/// With `mixed`, people of mixed sizes and speeds ([`mix`]).
fn report(
    label: &str,
    seeds: &[u64],
    mixed: bool,
    make: impl Fn(u64) -> Result<Layout, String> + Sync,
) -> Result<(), String> {
    let label = &format!("{label}{}", if mixed { " +mixed" } else { "" });
    let outcomes: Vec<Outcome> = seeds
        .par_iter()
        .map(|&seed| {
            let mut layout = make(seed)?;
            if mixed {
                mix(&mut layout, seed);
            }
            run(seed, &layout)
        })
        .collect::<Result<_, _>>()?;
    let shown = |x: Option<f64>| x.map_or("none".to_owned(), |x| format!("{x:.2}"));
    for o in &outcomes {
        println!(
            "{label:<22} s{:<3} specific flow {:>5} /(m s)   arrived {:>3} of {:<3}   clear {:>6.1} s ({:.2} x alone)   through {:.2} x alone   lane order {:>4}   overlapping pairs {}",
            o.seed,
            shown(o.flow),
            o.arrived,
            o.agents,
            o.clear,
            o.clear / o.alone,
            o.through / o.alone,
            shown(o.lanes),
            o.overlaps
        );
    }
    let summary = |what: &str, time: fn(&Outcome) -> f64| {
        let mut ratios: Vec<f64> = outcomes.iter().map(|o| time(o) / o.alone).collect();
        ratios.sort_by(f64::total_cmp);
        if let (Some(median), Some(worst)) = (ratios.get(ratios.len() / 2), ratios.last()) {
            let within = ratios.iter().filter(|&&r| r <= 2.0).count();
            println!(
                "{label:<22} {what} over {} seeds: median {median:.2} x alone, worst {worst:.2}, within twice alone {within} of {}",
                ratios.len(),
                ratios.len()
            );
        }
    };
    summary("clear", |o| o.clear);
    summary("through", |o| o.through);
    Ok(())
}

/// Seeds from numbers and ranges `a-b`.
fn seeds_of(args: &[String]) -> Result<Vec<u64>, String> {
    let mut seeds = Vec::new();
    for arg in args {
        match arg.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u64, u64) = (
                    a.parse().map_err(|_| format!("bad seed range {arg}"))?,
                    b.parse().map_err(|_| format!("bad seed range {arg}"))?,
                );
                seeds.extend(a..=b);
            }
            None => seeds.push(arg.parse().map_err(|_| format!("bad seed {arg}"))?),
        }
    }
    if seeds.is_empty() {
        seeds = vec![1, 2, 3];
    }
    Ok(seeds)
}

/// The issue's door widths, metres.
const DOOR_WIDTHS: [f32; 6] = [0.8, 1.0, 1.2, 1.6, 2.0, 2.4];

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (layout, rest) = match args.first() {
        Some(first) if !first.starts_with(|c: char| c.is_ascii_digit()) => {
            (first.as_str(), &args[1..])
        }
        _ => ("all", &args[..]),
    };
    let seeds = seeds_of(rest)?;
    let text = |e: crowdnav::scenario::ScenarioError| e.to_string();
    let (layout, mixed) = match layout.strip_suffix("+mixed") {
        Some(layout) => (layout, true),
        None => (layout, false),
    };
    let (layout, places, dealt) = match layout.split_once('@') {
        Some((layout, places)) => (
            layout,
            places.parse::<Places>().map_err(text)?,
            format!(" @{places}"),
        ),
        None => (layout, Places::InOrder, String::new()),
    };
    let doors_in = |size: f32, people: usize, shape: DoorShape, widths: &[f32]| {
        for &width in widths {
            let mut label = format!("door {width} m");
            if (size, people) != (30.0, 120) {
                label += &format!(", {size} m, {people}");
            }
            if shape != DoorShape::default() {
                label += &format!(", wall {} m, {:+} m", shape.wall, shape.offset);
            }
            report(&format!("{label}{dealt}"), &seeds, mixed, |s| {
                door_shaped(size, width, people, s, places, shape).map_err(text)
            })?;
        }
        Ok::<(), String>(())
    };
    let doors = |widths: &[f32]| doors_in(30.0, 120, DoorShape::default(), widths);
    let numbers = |what: &str, list: &str| {
        list.split(',')
            .map(|d| d.parse::<f32>().map_err(|e| format!("{what} {d}: {e}")))
            .collect::<Result<Vec<f32>, String>>()
    };
    let corridor = |label: &str, length: f32, width: f32, n: usize| {
        report(&format!("{label}{dealt}"), &seeds, mixed, |s| {
            counterflow_with(length, width, n, s, places).map_err(text)
        })
    };
    let cross = |label: &str, length: f32, width: f32, n: usize| {
        report(&format!("{label}{dealt}"), &seeds, mixed, |s| {
            crossing_with(length, width, n, s, places).map_err(text)
        })
    };
    match layout {
        "all" => {
            doors(&DOOR_WIDTHS)?;
            corridor("counterflow", 40.0, 4.0, 40)?;
            cross("crossing", 40.0, 4.0, 40)
        }
        "doors" => doors(&DOOR_WIDTHS),
        other if other.starts_with("counterflow=") || other.starts_with("crossing=") => {
            let (kind, dims) = other.split_once('=').unwrap_or_default();
            let dims = numbers(kind, dims)?;
            let &[length, width, n] = &dims[..] else {
                return Err(format!("{kind}=LENGTH,WIDTH,PEOPLE_A_SIDE, not {other}"));
            };
            let label = format!("{kind} {length} x {width}, {n}");
            if kind == "crossing" {
                cross(&label, length, width, n as usize)
            } else {
                corridor(&label, length, width, n as usize)
            }
        }
        other if other.starts_with("doors=") => {
            doors(&numbers("door width", &other["doors=".len()..])?)
        }
        other if other.starts_with("door-shape=") => {
            let dims = numbers("door shape", &other["door-shape=".len()..])?;
            let [wall, offset, widths @ ..] = &dims[..] else {
                return Err(format!("door-shape=WALL,OFFSET,WIDTH,..., not {other}"));
            };
            let shape = DoorShape {
                wall: *wall,
                offset: *offset,
            };
            let widths = if widths.is_empty() { &DOOR_WIDTHS[..] } else { widths };
            doors_in(30.0, 120, shape, widths)
        }
        other if other.starts_with("room=") => {
            let dims = numbers("room", &other["room=".len()..])?;
            let [size, people, widths @ ..] = &dims[..] else {
                return Err(format!("room=SIZE,PEOPLE,WIDTH,..., not {other}"));
            };
            let widths = if widths.is_empty() { &DOOR_WIDTHS[..] } else { widths };
            doors_in(*size, *people as usize, DoorShape::default(), widths)
        }
        "counterflow" => corridor("counterflow", 40.0, 4.0, 40),
        "narrow-counterflow" => corridor("narrow counterflow", 30.0, 3.0, 20),
        "wide-counterflow" => corridor("wide counterflow", 50.0, 6.0, 80),
        "crossing" => cross("crossing", 40.0, 4.0, 40),
        "wide-crossing" => cross("wide crossing", 50.0, 6.0, 80),
        other => Err(format!(
            "unknown layout {other}: all, doors, doors=W,W,..., room=SIZE,PEOPLE,W,..., door-shape=WALL,OFFSET,W,..., counterflow, narrow-counterflow, wide-counterflow, crossing or wide-crossing"
        )),
    }
}
