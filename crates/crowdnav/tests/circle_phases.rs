//! RVO2's circle of 1 000 agents (`scenarios/circle-1000.json`: radius 1.5 m, RVO2's
//! ORCA parameters, `dt` 0.25 s) with its rings turned to other angular phases than the
//! shipped layout: every agent arrives within 5 900 steps (0.8 × the 7 371 steps RVO2
//! itself needs on the shipped layout), and no two agents ever overlap by more than 1 %
//! of the smaller radius.
//!
//! Before ORCA's contacts in scenarios were made inelastic (`scenario::ORCA_RESTITUTION`),
//! `"phase": 0.3` and `"phase_seed": 2` needed 6 567 and 6 442 steps: agents in the way
//! of the stream leaving the central jam were knocked hundreds of metres back by elastic
//! contacts. With RVO2's symmetry bias of 0.05 rad they needed 5 009 and 5 346, but
//! `"phase": 0.1` needed 7 314 and `"phase_seed": 1` 6 769 (15 of 75 phases measured
//! were over 5 900): an agent caught head-on in the wedge between two touching agents
//! walking the other way has no allowed velocity but theirs, and is carried hundreds of
//! metres back. The rvo2 preset's larger bias (`OrcaParams::symmetry_bias`, 0.25 rad)
//! lets agents meeting nearly head-on pass before they touch: 5 274, 5 144, 4 951 and
//! 4 806 steps. The wedge still formed now and then: 2 of the 75 phases of
//! `cargo run --release -p crowdnav --example circle_phases` were over (the worst,
//! `"phase": 0.74`, 6 323 steps, one agent carried 250 m back). Since an agent carried
//! back against its way for `world::CARRIED_TIME` gets right of way (those carrying it
//! see it walking as it wants to and make room), none of the 75 is over: the worst is
//! 4 888 steps, and `"phase": 0.74` needs 4 690.
//!
//! The scenario names RVO2's preset (`"orca": {"preset": "rvo2"}`): the default ORCA
//! parameters are the people preset, not RVO2's.

use crowdnav::scenario::{Method, Scenario, ORCA_RESTITUTION};

/// 0.8 × RVO2's 7 371 steps on `scenarios/circle-1000.json`, rounded down.
const MOST_STEPS: u64 = 5_900;

/// Runs the 1 000-agent circle with `ring_keys` added to its `"ring"` object until
/// every agent has arrived, at most [`MOST_STEPS`] steps; returns (steps, arrived,
/// overlapping pairs).
fn run_circle(ring_keys: &str) -> (u64, usize, usize) {
    let text = format!(
        r#"{{"name": "circle-1000", "dt": 0.25, "steps": {MOST_STEPS},
            "orca": {{"preset": "rvo2"}}, "ring": {{"count": 1000, {ring_keys}}}}}"#
    );
    let scenario = Scenario::from_json(&text).expect("valid scenario");
    let mut world = scenario.build(None).expect("builds");
    while world.steps() < scenario.steps && !world.all_arrived() {
        world.step(scenario.dt).expect("valid dt");
    }
    let arrived = world.agents().iter().filter(|a| a.is_arrived()).count();
    (
        world.steps(),
        arrived,
        world.metrics().overlapping_pairs.len(),
    )
}

#[test]
fn the_circle_of_1000_finishes_within_0_8_of_rvo2_at_other_ring_phases() {
    let phases = [
        r#""phase": 0.3"#,
        r#""phase_seed": 2"#,
        r#""phase": 0.1"#,
        r#""phase_seed": 1"#,
        r#""phase": 0.74"#,
    ];
    for keys in phases {
        let (steps, arrived, overlapping) = run_circle(keys);
        println!("{keys}: {arrived} of 1000 arrived after {steps} steps");
        assert_eq!(
            arrived, 1000,
            "{keys}: not everyone arrived within {MOST_STEPS} steps"
        );
        assert!(steps <= MOST_STEPS, "{keys}: {steps} steps");
        assert_eq!(overlapping, 0, "{keys}: overlapping pairs");
    }
}

#[test]
fn orca_scenarios_have_inelastic_contacts_unless_the_file_says_otherwise() {
    let base = r#"{"name": "x", "dt": 0.1, "steps": 1"#;
    let plain = Scenario::from_json(&format!("{base}}}")).expect("valid");
    let restitution = |s: &Scenario, m: Method| s.world_params(m).collide.restitution;
    assert_eq!(restitution(&plain, Method::Orca), ORCA_RESTITUTION);
    assert_eq!(ORCA_RESTITUTION, 0.0);
    // The seed's methods keep their elastic contacts.
    assert_eq!(restitution(&plain, Method::AntiGravity), 1.0);
    let keyed = Scenario::from_json(&format!(
        r#"{base}, "world_params": {{"restitution": 0.5}}}}"#
    ))
    .expect("valid");
    assert_eq!(restitution(&keyed, Method::Orca), 0.5);
    for bad in ["1.5", "-0.1"] {
        let text = format!(r#"{base}, "world_params": {{"restitution": {bad}}}}}"#);
        let err = Scenario::from_json(&text)
            .and_then(|s| s.build(None).map(|_| ()))
            .expect_err(bad);
        assert!(err.to_string().contains("restitution"), "{err}");
    }
}

#[test]
fn ring_phases_turn_every_ring_and_default_to_rvo2s_layout() {
    let ring = |keys: &str| {
        let text =
            format!(r#"{{"name": "x", "dt": 0.25, "steps": 1, "ring": {{"count": 1000{keys}}}}}"#);
        Scenario::from_json(&text).expect("valid").all_agents(None)
    };
    let rvo2 = ring("");
    assert_eq!(rvo2, ring(r#", "phase": 0, "phase_step": 0"#));
    // The first agent of the outer ring (radius 400) sits at angle 0.
    assert_eq!(rvo2[0].pos, glam::Vec2::new(400.0, 0.0));
    let turned = ring(r#", "phase": 0.5"#);
    assert!((turned[0].pos.y.atan2(turned[0].pos.x) - 0.5).abs() < 1e-6);
    // Seeded: reproducible, different per seed, and the second ring (from agent 500 on)
    // turned by its own angle.
    let seeded = ring(r#", "phase_seed": 7"#);
    assert_eq!(seeded, ring(r#", "phase_seed": 7"#));
    assert_ne!(seeded, ring(r#", "phase_seed": 8"#));
    let angle = |p: glam::Vec2| p.y.atan2(p.x);
    assert!((angle(seeded[0].pos) - angle(seeded[500].pos)).abs() > 1e-6);
    // Every agent still goes to its antipode.
    for a in &seeded {
        assert_eq!(a.goal, crowdnav::scenario::GoalSpec::Point(-a.pos));
    }
}
