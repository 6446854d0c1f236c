//! Trajectory fingerprints: every shipped scenario in `scenarios/`, under each steering
//! method, run for a fixed number of steps on one and on two threads, hashed bit for
//! bit (every agent's position, velocity, preferred and avoidance velocity, every moving
//! obstacle's position, the collision counts and the step's collision events).
//!
//! The recorded hashes pin the trajectories: a refactoring of the world that claims to
//! change nothing must leave them as they are. A change that means to alter the
//! trajectories updates them; print the new ones with
//! `FINGERPRINTS_PRINT=1 cargo test -p crowdnav --test fingerprints -- --nocapture`.

use crowdnav::collide::Collider;
use crowdnav::scenario::{Method, Scenario};
use crowdnav::world::World;
use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// FNV-1a over 32-bit words.
struct Fnv(u64);

impl Fnv {
    fn word(&mut self, w: u32) {
        for b in w.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn f(&mut self, x: f32) {
        self.word(x.to_bits());
    }
}

/// The hash of the world's state now.
fn state_hash(world: &World, h: &mut Fnv) {
    for a in world.agents() {
        for v in [
            a.position,
            a.velocity,
            a.preferred_velocity,
            a.avoidance_velocity,
        ] {
            h.f(v.x);
            h.f(v.y);
        }
    }
    for o in world.obstacles() {
        h.f(o.position.x);
        h.f(o.position.y);
    }
    let m = world.metrics();
    h.word(m.collisions as u32);
    h.word(m.wall_contacts as u32);
    h.word(m.overlapping_pairs.len() as u32);
    h.f(m.max_penetration);
    h.f(m.min_separation);
    for e in world.events() {
        h.word(e.body);
        match e.other {
            Collider::Body(j) => h.word(j),
            Collider::Wall(w) => h.word(u32::MAX - w),
        }
        h.f(e.impulse);
        h.f(e.depth);
    }
}

/// Runs `name` under `method` for `steps` steps on `threads` threads; the hash of every
/// step's state.
fn fingerprint(name: &str, method: Method, steps: u64, threads: usize) -> u64 {
    let path = scenarios_dir().join(format!("{name}.json"));
    let scenario = Scenario::from_file(&path).expect("shipped scenario parses");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        let mut world = scenario
            .build(Some(method))
            .expect("shipped scenario builds");
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        for _ in 0..steps.min(scenario.steps) {
            world.step(scenario.dt).expect("valid dt");
            state_hash(&world, &mut h);
        }
        h.0
    })
}

/// (scenario, method, steps, recorded hash).
/// Recorded on the world before it was split by phases (issue 21), and again when
/// people got their vision (`OrcaParams::vision`), which changes the trajectories of
/// the scenarios where people meet head-on, and again when arrived agents began to hold
/// their places (an agent pushed within its radius off its goal stays arrived and
/// stands while pushed) and people standing took a tenth of the avoidance from
/// passers-by, which changes every scenario where agents push past arrived ones; and
/// again when the vision began to look out for people crossing the agent's way, which
/// changes the ORCA runs where people walk across each other (bottleneck, crossing,
/// groups, lines, obstacles and swap); and again when agents carried back against
/// their way for `world::CARRIED_TIME` got right of way in ORCA crowds, which changes
/// the one ORCA run where someone is carried back that long (groups); and again when
/// people queueing in a passage two wide began to keep a zipper
/// (`OrcaParams::zipper`) and chose their point of a door at 1 m a person already
/// on the way there (`world::portal::QUEUE_COST`, 0.5 m before), which changes the
/// one ORCA run through a door (bottleneck).
const RECORDED: &[(&str, Method, u64, u64)] = &[
    ("blocks", Method::Orca, 300, 0xc4ff074135b5ee2f),
    ("blocks", Method::AntiGravity, 300, 0xa8fb697b426a252c),
    ("blocks", Method::Swarm, 300, 0xc248894a0aea97cc),
    ("bottleneck", Method::Orca, 300, 0x1463b04dcc8938be),
    ("bottleneck", Method::AntiGravity, 300, 0x74bafdaed4c3f109),
    ("bottleneck", Method::Swarm, 300, 0xa6563fbf0cbd5d71),
    ("circle", Method::Orca, 300, 0xd328becf389b4976),
    ("circle", Method::AntiGravity, 300, 0xb316f582f1bac59b),
    ("circle", Method::Swarm, 300, 0xcf837ff9ce4244e4),
    ("circle-1000", Method::Orca, 120, 0x6e7e0b8d9d8f8d9f),
    ("circle-10000", Method::Orca, 8, 0x19e24561663a8e9c),
    ("circle-250", Method::Orca, 300, 0x2d3a911b69dec734),
    ("corridor", Method::Orca, 300, 0xc6cf81cc72e3d733),
    ("corridor", Method::AntiGravity, 300, 0xac8b6bd47e15a11e),
    ("corridor", Method::Swarm, 300, 0x503d206767d0245c),
    ("crossing", Method::Orca, 300, 0xfd55549591e6780b),
    ("crossing", Method::AntiGravity, 300, 0x33aa3fb6d25c8965),
    ("crossing", Method::Swarm, 300, 0x0ce515bee55a5315),
    ("doors", Method::Orca, 300, 0xe0d92c0984aaad85),
    ("doors", Method::AntiGravity, 300, 0xe0d92c0984aaad85),
    ("doors", Method::Swarm, 300, 0xe0d92c0984aaad85),
    ("groups", Method::Orca, 300, 0x1aab46b5391b728c),
    ("groups", Method::AntiGravity, 300, 0x1a3f68d6607c9bf4),
    ("groups", Method::Swarm, 300, 0x0d3a6390dc3b3fa9),
    ("lines", Method::Orca, 300, 0x7d760613ec4988e8),
    ("lines", Method::AntiGravity, 300, 0x20b32770fb023577),
    ("lines", Method::Swarm, 300, 0xe46d3305d807b9f0),
    ("obstacles", Method::Orca, 300, 0x6437a38c419ced58),
    ("obstacles", Method::AntiGravity, 300, 0x4fe53e76d8c6f99a),
    ("obstacles", Method::Swarm, 300, 0x87b64f9946c0d505),
    ("stream", Method::Orca, 300, 0x2432795ed1a072c5),
    ("stream", Method::AntiGravity, 300, 0x2432795ed1a072c5),
    ("stream", Method::Swarm, 300, 0x2432795ed1a072c5),
    ("swap", Method::Orca, 300, 0x83a53c193c8c21e0),
    ("swap", Method::AntiGravity, 300, 0xad26d8ab38629f01),
    ("swap", Method::Swarm, 300, 0x05398a662743f03c),
];

/// How many steps a scenario runs for its fingerprint: the big circles fewer.
fn steps_of(name: &str) -> u64 {
    match name {
        "circle-10000" => 8,
        "circle-1000" => 120,
        _ => 300,
    }
}

#[test]
fn shipped_scenarios_keep_their_trajectory_fingerprints_on_one_and_two_threads() {
    let mut names: Vec<String> = std::fs::read_dir(scenarios_dir())
        .expect("scenarios/ is shipped")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "json").then(|| p.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    let print = std::env::var_os("FINGERPRINTS_PRINT").is_some();
    let mut found = Vec::new();
    for name in &names {
        let methods: &[Method] = if name.starts_with("circle-") {
            &[Method::Orca]
        } else {
            &[Method::Orca, Method::AntiGravity, Method::Swarm]
        };
        for &method in methods {
            let steps = steps_of(name);
            let one = fingerprint(name, method, steps, 1);
            let two = fingerprint(name, method, steps, 2);
            assert_eq!(
                one,
                two,
                "{name} ({}): 1 and 2 threads differ",
                method.name()
            );
            if print {
                println!("    (\"{name}\", Method::{method:?}, {steps}, {one:#018x}),");
            }
            found.push((name.clone(), method, steps, one));
        }
    }
    if print {
        return;
    }
    assert_eq!(
        found.len(),
        RECORDED.len(),
        "scenarios added or removed: re-record"
    );
    for ((name, method, steps, hash), &(rname, rmethod, rsteps, rhash)) in
        found.iter().zip(RECORDED)
    {
        assert_eq!((name.as_str(), *method, *steps), (rname, rmethod, rsteps));
        assert_eq!(
            *hash,
            rhash,
            "{name} ({}): trajectories changed",
            method.name()
        );
    }
}
