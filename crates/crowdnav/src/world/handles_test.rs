//! Generational ids: removal, refusal of stale ids, determinism of any sequence of
//! spawns and removals, and requests refused without a trace.

use super::*;
use crate::mesh::{Level, NavMesh};
use crate::steer::Orca;
use glam::Vec2;
use rand::{Rng, SeedableRng};

/// A room 30 × 20 m with a pillar in the middle.
fn room() -> NavMesh {
    let level = Level::from_json(
        r#"{"boundary": [[0,0],[30,0],[30,20],[0,20]],
            "obstacles": [[[14,8],[16,8],[16,12],[14,12]]]}"#,
    )
    .expect("valid level");
    NavMesh::from_level(&level).expect("mesh builds")
}

fn world() -> World {
    World::new(
        Some(room()),
        Box::new(Orca::default()),
        WorldParams::default(),
    )
}

/// FNV-1a of `words`, going on from the hash `h`.
pub(super) fn fnv(mut h: u64, words: impl IntoIterator<Item = u32>) -> u64 {
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// FNV-1a over the bits of every agent's id, position and velocities, the events and
/// the time.
pub(super) fn fingerprint(world: &World) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut word = |w: u32| h = fnv(h, [w]);
    for a in world.agents() {
        word(a.id.slot());
        word(a.id.generation());
        for v in [a.position, a.velocity, a.preferred_velocity] {
            word(v.x.to_bits());
            word(v.y.to_bits());
        }
    }
    for e in world.events() {
        word(e.body);
        word(e.impulse.to_bits());
    }
    word(world.time().to_bits() as u32);
    h
}

/// A random agent of the room, from `rng`.
fn random_agent(rng: &mut impl Rng) -> AgentParams {
    let mut point = || loop {
        let p = Vec2::new(rng.gen_range(1.0..29.0), rng.gen_range(1.0..19.0));
        if !(13.0..17.0).contains(&p.x) || !(7.0..13.0).contains(&p.y) {
            return p;
        }
    };
    let (from, to) = (point(), point());
    AgentParams::new(from, to).with_radius(0.3 + 0.1 * (from.x as u32 % 3) as f32)
}

/// `run` on a pool of `threads` threads.
pub(super) fn on_threads<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(run)
}

/// Runs a seeded sequence of spawns, removals and steps (with chases of agents later
/// removed) on a pool of `threads` threads; the fingerprint after every step.
fn churn(seed: u64, threads: usize) -> Vec<u64> {
    on_threads(threads, || {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut world = world();
        let mut ids = Vec::new();
        let mut prints = Vec::new();
        for _ in 0..120 {
            for _ in 0..rng.gen_range(0..4) {
                let mut p = random_agent(&mut rng);
                if !ids.is_empty() && rng.gen_bool(0.2) {
                    p = p.with_goal(Goal::Agent(ids[rng.gen_range(0..ids.len())]));
                }
                ids.push(world.add_agent(p).expect("valid agent"));
            }
            for _ in 0..rng.gen_range(0..3) {
                if ids.is_empty() {
                    break;
                }
                let id = ids.swap_remove(rng.gen_range(0..ids.len()));
                world.remove_agent(id).expect("in the world");
            }
            world.step(0.1).expect("valid step");
            prints.push(fingerprint(&world));
        }
        assert!(world.agents().len() > 20, "a crowd built up");
        prints
    })
}

#[test]
fn spawning_and_removing_gives_the_same_bits_on_one_and_two_threads_and_run_to_run() {
    for seed in [1, 2] {
        let one = churn(seed, 1);
        assert_eq!(one, churn(seed, 2), "seed {seed}: 1 and 2 threads differ");
        assert_eq!(one, churn(seed, 1), "seed {seed}: run to run");
    }
}

#[test]
fn a_removed_agent_s_id_is_refused_and_never_names_a_later_agent() {
    let mut world = world();
    let a = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 2.0), Vec2::new(28.0, 2.0)))
        .expect("valid agent");
    let b = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 5.0), Vec2::new(28.0, 5.0)))
        .expect("valid agent");
    world.step(0.1).expect("valid step");
    let gone = world.remove_agent(a).expect("in the world");
    assert_eq!(gone.id, a);
    assert!(world.agent(a).is_none());
    assert_eq!(world.index_of(a), None);
    assert_eq!(
        world.remove_agent(a).err(),
        Some(WorldError::UnknownAgent(a))
    );
    let to = Goal::Point(Vec2::new(1.0, 1.0));
    assert_eq!(world.set_goal(a, to), Err(WorldError::UnknownAgent(a)));
    assert!(world.steer_debug(a).is_none());
    // A later agent takes the slot, with a new generation: the old id still names
    // nobody, and the new one its own agent.
    let c = world
        .add_agent(AgentParams::new(Vec2::new(9.0, 9.0), Vec2::new(2.0, 9.0)))
        .expect("valid agent");
    assert_eq!(c.slot(), a.slot());
    assert_ne!(c, a);
    assert!(world.agent(a).is_none());
    assert_eq!(
        world.agent(c).map(|x| x.position),
        Some(Vec2::new(9.0, 9.0))
    );
    // Nor can a goal name the removed agent.
    assert!(matches!(
        world.set_goal(b, Goal::Agent(a)),
        Err(WorldError::UnknownGoal { .. })
    ));
    assert!(matches!(
        world
            .add_agent(AgentParams::new(Vec2::new(3.0, 3.0), Vec2::ZERO).with_goal(Goal::Agent(a))),
        Err(WorldError::UnknownGoal { .. })
    ));
    assert_eq!(
        WorldError::UnknownAgent(a).to_string(),
        "agent 0 is not in the world (never added, or removed)"
    );
    assert_eq!(c.to_string(), "0v1");
}

#[test]
fn removing_an_agent_leaves_the_others_ids_and_records_as_they_were() {
    let mut world = world();
    let ids: Vec<AgentId> = (0..5)
        .map(|k| {
            let y = 2.0 + 3.0 * k as f32;
            world
                .add_agent(AgentParams::new(Vec2::new(2.0, y), Vec2::new(28.0, y)))
                .expect("valid agent")
        })
        .collect();
    for _ in 0..10 {
        world.step(0.1).expect("valid step");
    }
    let before: Vec<(AgentId, Vec2, Vec2)> = world
        .agents()
        .iter()
        .map(|a| (a.id, a.position, a.velocity))
        .collect();
    world.remove_agent(ids[1]).expect("in the world");
    for (k, &(id, position, velocity)) in before.iter().enumerate() {
        if k == 1 {
            continue;
        }
        let a = world.agent(id).expect("still in the world");
        assert_eq!((a.id, a.position, a.velocity), (id, position, velocity));
        assert_eq!(world.index_of(id), Some(if k < 1 { k } else { k - 1 }));
    }
    assert_eq!(world.agents().len(), 4);
}

#[test]
fn removing_an_agent_before_it_stepped_is_as_if_it_was_never_added() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let agents: Vec<AgentParams> = (0..40).map(|_| random_agent(&mut rng)).collect();
    let mut with = world();
    let mut without = world();
    let mut extra = None;
    for (k, &p) in agents.iter().enumerate() {
        let id = with.add_agent(p).expect("valid agent");
        if k == 17 {
            extra = Some(id);
        } else {
            without.add_agent(p).expect("valid agent");
        }
    }
    with.remove_agent(extra.expect("added"))
        .expect("in the world");
    for _ in 0..60 {
        with.step(0.1).expect("valid step");
        without.step(0.1).expect("valid step");
        let bits = |w: &World| -> Vec<[u32; 4]> {
            w.agents()
                .iter()
                .map(|a| {
                    [
                        a.position.x.to_bits(),
                        a.position.y.to_bits(),
                        a.velocity.x.to_bits(),
                        a.velocity.y.to_bits(),
                    ]
                })
                .collect()
        };
        assert_eq!(bits(&with), bits(&without));
    }
}

#[test]
fn a_chaser_of_a_removed_agent_stops_where_it_is() {
    let mut world = world();
    let runner = world
        .add_agent(AgentParams::new(
            Vec2::new(25.0, 3.0),
            Vec2::new(28.0, 18.0),
        ))
        .expect("valid agent");
    let chaser = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 3.0), Vec2::ZERO).with_goal(Goal::Agent(runner)))
        .expect("valid agent");
    for _ in 0..20 {
        world.step(0.1).expect("valid step");
    }
    let at = world.agent(chaser).expect("in the world").position;
    world.remove_agent(runner).expect("in the world");
    assert_eq!(
        world.agent(chaser).map(|a| a.goal),
        Some(Goal::Point(at)),
        "the chase ends where the chaser stands"
    );
    for _ in 0..40 {
        world.step(0.1).expect("valid step");
    }
    let a = world.agent(chaser).expect("in the world");
    // It slows to a stop within its braking distance (1.4 m/s · 0.5 s).
    assert!(a.position.distance(at) < 0.8, "{} from {at}", a.position);
    assert_eq!(a.velocity, Vec2::ZERO);
}

/// Two worlds built alike: `mutate` applied to the first must fail and leave it as the
/// second, to the bit, step after step.
fn refused_without_a_trace(mutate: impl Fn(&mut World, &[AgentId]) -> bool) {
    let build = || {
        let mut w = world();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let ids: Vec<AgentId> = (0..12)
            .map(|_| w.add_agent(random_agent(&mut rng)).expect("valid agent"))
            .collect();
        w.remove_agent(ids[4]).expect("in the world");
        for _ in 0..5 {
            w.step(0.1).expect("valid step");
        }
        (w, ids)
    };
    let (mut tried, ids) = build();
    let (mut twin, _) = build();
    assert!(mutate(&mut tried, &ids), "the request was refused");
    assert_eq!(fingerprint(&tried), fingerprint(&twin));
    for _ in 0..20 {
        tried.step(0.1).expect("valid step");
        twin.step(0.1).expect("valid step");
        assert_eq!(fingerprint(&tried), fingerprint(&twin));
    }
    // A new agent gets the same id in both.
    let p = AgentParams::new(Vec2::new(5.0, 5.0), Vec2::new(6.0, 6.0));
    assert_eq!(tried.add_agent(p), twin.add_agent(p));
}

#[test]
fn a_request_naming_a_removed_or_unknown_agent_leaves_the_world_unchanged() {
    let here = Goal::Point(Vec2::new(3.0, 3.0));
    refused_without_a_trace(|w, ids| w.remove_agent(ids[4]).is_err());
    refused_without_a_trace(|w, ids| w.set_goal(ids[4], here).is_err());
    refused_without_a_trace(|w, ids| w.set_goal(ids[2], Goal::Agent(ids[4])).is_err());
    refused_without_a_trace(|w, ids| w.set_goal(ids[2], Goal::Agent(ids[2])).is_err());
    refused_without_a_trace(|w, _| {
        let stranger = AgentId::new(40, 0);
        w.set_goal(stranger, here).is_err() && w.remove_agent(stranger).is_err()
    });
    refused_without_a_trace(|w, ids| {
        let nan = Goal::Point(Vec2::new(f32::NAN, 1.0));
        w.set_goal(ids[1], nan).is_err()
    });
    refused_without_a_trace(|w, ids| {
        let p = AgentParams::new(Vec2::new(5.0, 5.0), Vec2::ONE).with_goal(Goal::Agent(ids[4]));
        w.add_agent(p).is_err()
    });
    refused_without_a_trace(|w, _| {
        let p = AgentParams::new(Vec2::new(5.0, 5.0), Vec2::ONE).with_radius(0.0);
        w.add_agent(p).is_err()
    });
    refused_without_a_trace(|w, _| {
        let p = AgentParams::new(Vec2::new(f32::NAN, 5.0), Vec2::ONE);
        w.add_agent(p).is_err()
    });
    refused_without_a_trace(|w, _| w.step(f32::NAN).is_err() && w.step(-1.0).is_err());
}
