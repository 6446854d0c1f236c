//! The shipped door scenario (`scenarios/doors.json`): doors of the level closed and
//! opened by the scenario's events while a stream of people crosses. Everyone gets
//! through, a door shuts on the people in it and leaves nobody inside, the edits
//! re-plan some paths, and the run gives the same bits on one and two threads.

use crowdnav::scenario::{run_script, Report, RunOptions, Scenario, Script};
use glam::Vec2;
use std::path::PathBuf;

fn doors() -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/doors.json");
    Scenario::from_file(&path).expect("shipped scenario parses")
}

/// What a run saw: its report without timing, the most agents found inside a closed
/// door after a step, the most inside the south door in the step before it shut, and
/// the final positions of every step, as bits.
struct Seen {
    report: Report,
    inside_closed: usize,
    in_south_before: usize,
    bits: Vec<u32>,
}

fn run(threads: usize) -> Seen {
    let scenario = doors();
    let polygons = scenario.doors().expect("the level's doors");
    let boxes: Vec<(String, Vec2, Vec2)> = polygons
        .iter()
        .map(|(name, p)| {
            let lo = p.iter().copied().fold(Vec2::INFINITY, Vec2::min);
            let hi = p.iter().copied().fold(Vec2::NEG_INFINITY, Vec2::max);
            (name.clone(), lo, hi)
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        let mut world = scenario.build(None).expect("shipped scenario builds");
        let mut script = Script::new(&scenario, &world);
        let options = RunOptions {
            dt: scenario.dt,
            max_steps: scenario.steps,
            stop_when_arrived: true,
        };
        let (mut inside_closed, mut in_south_before, mut shut_once) = (0, 0, false);
        let mut bits = Vec::new();
        let report = run_script(&scenario.name, &mut world, &mut script, options, |w, s| {
            for (name, lo, hi) in &boxes {
                // The part of the door's polygon inside the wall's opening.
                let inside = |p: Vec2| p.cmpgt(*lo).all() && p.cmplt(*hi).all();
                let n = w.agents().iter().filter(|a| inside(a.position)).count();
                if s.is_closed(name) == Some(true) {
                    inside_closed = inside_closed.max(n);
                }
                // Until the south door first shuts, how many are in it.
                if name == "south" && s.is_closed(name) == Some(false) && !shut_once {
                    in_south_before = n;
                }
                shut_once |= name == "south" && s.is_closed(name) == Some(true);
            }
            for a in w.agents() {
                bits.extend([a.position.x.to_bits(), a.position.y.to_bits()]);
            }
        })
        .expect("runs");
        Seen {
            report: report.without_timing(),
            inside_closed,
            in_south_before,
            bits,
        }
    })
}

#[test]
fn doors_shut_on_a_stream_leave_nobody_inside_and_everyone_gets_through() {
    let seen = run(2);
    println!("{}", seen.report.table());
    println!("{} in the south door as it shut", seen.in_south_before);
    assert!(seen.report.completed, "the run did not finish");
    assert_eq!((seen.report.spawned, seen.report.removed), (40, 40));
    assert_eq!(seen.report.overlapping_pairs, 0);
    assert!(
        seen.in_south_before >= 1,
        "nobody was in the south door when it shut: the scenario tests nothing"
    );
    assert_eq!(seen.inside_closed, 0, "someone stood in a closed door");
    assert!(seen.report.replans > 0, "closing a door re-plans paths");
}

#[test]
fn the_door_scenario_gives_the_same_bits_on_one_and_two_threads() {
    let (one, two) = (run(1), run(2));
    assert_eq!(one.report, two.report);
    assert_eq!(one.bits, two.bits);
}
