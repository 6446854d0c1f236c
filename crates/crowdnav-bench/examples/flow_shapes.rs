//! Doors of other shapes and crowds of other sizes, run by crowdnav and by JuPedSim's
//! two models (CollisionFreeSpeed and SocialForce) on the same scene and measured the
//! same way: the specific flow through the door's exit line between the 10th and the
//! 90th percentile crossing, the time to clear over the time alone, and how many got
//! through (docs/crowd-behaviour.md, "Door shapes").
//!
//! ```text
//! cargo run --release -p crowdnav-bench --example flow_shapes -- LAYOUT... [SEED | FIRST-LAST ...]
//! ```
//!
//! `LAYOUT` is as in crowdnav's `crowd_flow` example: `door-shape=WALL,OFFSET[,WIDTH...]`
//! (the 30 m room's 120 people through doors in a wall `WALL` metres thick, their
//! middle `OFFSET` metres off the wall's middle), `room=SIZE,PEOPLE[,WIDTH...]` (a
//! square room of another size, with another number of people) or `doors=WIDTH,...`,
//! each optionally ending in `@shuffled`, `@mirrored`, `@transposed` or `@together`
//! (how the hall's places are dealt out; in order without). Without widths, 1.0, 1.6
//! and 2.4 m. Seeds are numbers or ranges (`1-4`); 1 and 2 when none are given.
//!
//! Per layout, door width and seed it prints a line per side: the specific flow,
//! persons/(m s) (`none`: fewer than 90 % crossed); *clear*, the time when the last
//! one reached its place (crowdnav) or left at its exit (JuPedSim, which removes an
//! agent within 0.25 m of its place), over the time the slowest one would need alone;
//! and how many crossed the door's exit line and arrived. Then a summary line per
//! layout and width: each side's range over the seeds.
//!
//! JuPedSim runs in the flow part's Python environment (`target/flow/venv`, made with
//! pip on first use, see `crowdnav_bench::jupedsim`); without Python or network its
//! side says "skipped" and crowdnav's figures are printed all the same. Seeds run in
//! parallel (as many at once as rayon has threads: `RAYON_NUM_THREADS`), each side's
//! run on one thread.

use crowdnav::scenario::layouts::{door_shaped, DoorShape, Layout, Places};
use crowdnav_bench::flow::{self, FlowRun};
use crowdnav_bench::jupedsim::{flow_dir, Model, Python};
use rayon::prelude::*;

/// The widths when a layout names none, metres.
const WIDTHS: [f32; 3] = [1.0, 1.6, 2.4];

/// The empirical band of the specific flow, persons/(m s).
const BAND: (f64, f64) = (1.5, 2.1);

/// One layout asked for: a room, its people, the door's shape, the widths, the places.
struct Asked {
    label: String,
    key: String,
    size: f32,
    people: usize,
    shape: DoorShape,
    widths: Vec<f32>,
    places: Places,
}

impl Asked {
    fn parse(text: &str) -> Result<Asked, String> {
        let (body, places) = match text.split_once('@') {
            Some((body, places)) => (body, places.parse::<Places>().map_err(|e| e.to_string())?),
            None => (text, Places::InOrder),
        };
        let numbers = |list: &str| {
            list.split(',')
                .map(|d| d.parse::<f32>().map_err(|e| format!("{text}: {d}: {e}")))
                .collect::<Result<Vec<f32>, String>>()
        };
        let (kind, list) = body
            .split_once('=')
            .ok_or(format!("{text}: door-shape=..., room=... or doors=..."))?;
        let dims = numbers(list)?;
        let (size, people, shape, widths) = match (kind, &dims[..]) {
            ("door-shape", [wall, offset, widths @ ..]) => (
                30.0,
                120,
                DoorShape {
                    wall: *wall,
                    offset: *offset,
                },
                widths,
            ),
            ("room", [size, people, widths @ ..]) => {
                (*size, *people as usize, DoorShape::default(), widths)
            }
            ("doors", widths) => (30.0, 120, DoorShape::default(), widths),
            _ => {
                return Err(format!(
                    "{text}: door-shape=WALL,OFFSET,WIDTH,..., room=SIZE,PEOPLE,WIDTH,... or doors=WIDTH,..."
                ))
            }
        };
        let widths = if widths.is_empty() {
            WIDTHS.to_vec()
        } else {
            widths.to_vec()
        };
        // The layout without its widths, e.g. `door-shape=1,12 @mirrored`.
        let fixed = match kind {
            "doors" => "doors".to_owned(),
            _ => format!(
                "{kind}={}",
                list.split(',').take(2).collect::<Vec<_>>().join(",")
            ),
        };
        let label = match text.split_once('@') {
            Some((_, places)) => format!("{fixed} @{places}"),
            None => fixed,
        };
        let key = text
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        Ok(Asked {
            label,
            key,
            size,
            people,
            shape,
            widths,
            places,
        })
    }

    fn layout(&self, width: f32, seed: u64) -> Result<Layout, String> {
        door_shaped(self.size, width, self.people, seed, self.places, self.shape)
            .map_err(|e| format!("{}, {width} m: {e}", self.label))
    }
}

/// One side's run of one layout, measured.
struct Measured {
    specific_flow: Option<f64>,
    clear_over_alone: Option<f64>,
    through: usize,
    expected: usize,
    arrived: usize,
    agents: usize,
}

/// What one side did: measured, or why not.
type Outcome = Result<Measured, String>;

fn measure(run: &FlowRun, layout: &Layout, alone: f64) -> Measured {
    let meant = flow::forward_agents(layout);
    let line = flow::measure_line(&run.tracks, layout.line);
    Measured {
        specific_flow: line.specific_flow(&meant),
        clear_over_alone: run.clear_time().map(|t| t / alone),
        through: line.forward_times(&meant).len(),
        expected: meant.len(),
        arrived: run.arrived(),
        agents: run.tracks.agents(),
    }
}

/// The sides, in the order of the lines and the summary.
const SIDES: [&str; 3] = ["crowdnav", "JuPedSim CFS", "JuPedSim SF"];

/// Runs every side on `asked` at `width` for `seed`.
fn run_all(
    asked: &Asked,
    width: f32,
    seed: u64,
    python: Result<&Python, &str>,
) -> Result<Vec<Outcome>, String> {
    let layout = asked.layout(width, seed)?;
    let alone = flow::time_alone(&layout)?;
    let mut outcomes = vec![flow::run_crowdnav(&layout).map(|run| measure(&run, &layout, alone))];
    let name = format!("shapes-{}-w{width:.2}-s{seed}", asked.key);
    for model in Model::ALL {
        outcomes.push(match python {
            Ok(py) => flow::scene(&layout)
                .and_then(|scene| py.simulate(&scene, model, &name))
                .map(|run| measure(&run, &layout, alone)),
            Err(why) => Err(format!("skipped: {why}")),
        });
    }
    Ok(outcomes)
}

fn shown(x: Option<f64>) -> String {
    x.map_or("none".to_owned(), |x| format!("{x:.2}"))
}

/// `lo–hi` of the values that exist (and how many runs gave none).
fn range(values: &[Option<f64>]) -> String {
    let some: Vec<f64> = values.iter().flatten().copied().collect();
    if some.is_empty() {
        return "—".to_owned();
    }
    let lo = some.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = some.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut s = if some.len() > 1 {
        format!("{lo:.2}–{hi:.2}")
    } else {
        format!("{lo:.2}")
    };
    if some.len() < values.len() {
        s += &format!(" [{} none]", values.len() - some.len());
    }
    s
}

/// Seeds from numbers and ranges `a-b`.
fn seeds_of(args: &[&String]) -> Result<Vec<u64>, String> {
    let mut seeds = Vec::new();
    for arg in args {
        match arg.split_once('-') {
            Some((a, b)) => {
                let bad = |_| format!("bad seed range {arg}");
                let (a, b): (u64, u64) = (a.parse().map_err(bad)?, b.parse().map_err(bad)?);
                seeds.extend(a..=b);
            }
            None => seeds.push(arg.parse().map_err(|_| format!("bad seed {arg}"))?),
        }
    }
    if seeds.is_empty() {
        seeds = vec![1, 2];
    }
    Ok(seeds)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (seeds, layouts): (Vec<&String>, Vec<&String>) = args
        .iter()
        .partition(|a| a.starts_with(|c: char| c.is_ascii_digit()));
    let seeds = seeds_of(&seeds)?;
    let asked = layouts
        .iter()
        .map(|l| Asked::parse(l))
        .collect::<Result<Vec<_>, _>>()?;
    if asked.is_empty() {
        return Err(
            "usage: flow_shapes LAYOUT... [SEEDS]: door-shape=WALL,OFFSET,WIDTH,..., room=SIZE,PEOPLE,WIDTH,... or doors=WIDTH,..., each optionally @shuffled, @mirrored, @transposed or @together"
                .to_owned(),
        );
    }
    let python = Python::prepare(&flow_dir());
    if let Err(why) = &python {
        println!("JuPedSim skipped: {why}");
    }
    let python = python.as_ref().map_err(String::as_str);
    let seed_list = match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) if seeds.len() > 1 && b - a + 1 == seeds.len() as u64 => {
            format!("{a}-{b}")
        }
        _ => seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
    };
    for a in &asked {
        for &width in &a.widths {
            let runs: Vec<(u64, Vec<Outcome>)> = seeds
                .par_iter()
                .map(|&seed| run_all(a, width, seed, python).map(|o| (seed, o)))
                .collect::<Result<_, _>>()?;
            let head = format!("{} {width} m", a.label);
            for (seed, outcomes) in &runs {
                for (side, outcome) in SIDES.iter().zip(outcomes) {
                    match outcome {
                        Ok(m) => println!(
                            "{head:<32} s{seed:<2} {side:<13} specific flow {:>5} /(m s)   clear {:>5} x alone   through {:>3} of {:<3}   arrived {:>3} of {}",
                            shown(m.specific_flow),
                            shown(m.clear_over_alone),
                            m.through,
                            m.expected,
                            m.arrived,
                            m.agents
                        ),
                        Err(why) => println!("{head:<32} s{seed:<2} {side:<13} {why}"),
                    }
                }
            }
            let mut flows = Vec::new();
            let mut clears = Vec::new();
            for k in 0..SIDES.len() {
                let measured: Vec<&Measured> = runs
                    .iter()
                    .filter_map(|(_, o)| o[k].as_ref().ok())
                    .collect();
                let of = |f: fn(&Measured) -> Option<f64>| {
                    range(&measured.iter().map(|m| f(m)).collect::<Vec<_>>())
                };
                flows.push(format!("{} {}", SIDES[k], of(|m| m.specific_flow)));
                clears.push(format!("{} {}", SIDES[k], of(|m| m.clear_over_alone)));
            }
            println!(
                "{head:<32} seeds {seed_list}: specific flow (band {:.1}–{:.1}): {}   clear / alone: {}",
                BAND.0,
                BAND.1,
                flows.join(", "),
                clears.join(", ")
            );
        }
    }
    Ok(())
}
