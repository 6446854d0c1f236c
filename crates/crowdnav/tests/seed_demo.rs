//! The seed demo with anti-gravity: as the seed describes, its entities "usually" avoid
//! each other and bump "when it's crowded". The five formations in turn, as
//! `crowdnav demo` runs them; each must form with everyone home and few collisions
//! (with the seed's 40-frame look-ahead they collided 165 to 867 times each).

use crowdnav::scenario::{
    demo, formation_goals, formation_starts, run, FormationKind, Method, RunOptions,
};
use crowdnav::world::{AgentId, AgentParams, Goal};
use glam::Vec2;

/// Most collisions one formation may count (every step that a pair penetrates by more
/// than 1 % while approaching counts one).
const MOST_PER_FORMATION: u64 = 150;

#[test]
fn anti_gravity_forms_every_demo_formation_with_few_collisions() {
    let scenario = demo::scenario(Method::AntiGravity);
    let mut world = scenario.build(None).expect("the demo builds");
    for p in formation_starts(
        FormationKind::Circle,
        demo::AGENTS,
        demo::AREA,
        1,
        world.mesh(),
    ) {
        world
            .add_agent(
                AgentParams::new(p, p)
                    .with_radius(demo::AREA.agent_radius)
                    .with_speeds(2.0, 1.4),
            )
            .expect("agent");
    }
    let mut total = 0;
    let mut failures = Vec::new();
    for (k, kind) in FormationKind::ALL.into_iter().enumerate() {
        let now: Vec<Vec2> = world.agents().iter().map(|a| a.position).collect();
        let goals = formation_goals(kind, &now, demo::AREA, k as u64 + 1, world.mesh());
        let ids: Vec<AgentId> = world.agents().iter().map(|a| a.id).collect();
        for (id, g) in ids.into_iter().zip(goals) {
            world.set_goal(id, Goal::Point(g)).expect("goal");
        }
        world.reset_metrics();
        let options = RunOptions {
            dt: scenario.dt,
            max_steps: scenario.steps,
            stop_when_arrived: true,
        };
        let report = run(kind.name(), &mut world, options, |_| {}).expect("valid dt");
        println!("{}", report.table());
        total += report.collisions;
        if !report.completed || report.collisions > MOST_PER_FORMATION {
            failures.push(format!(
                "{}: all home {}, {} collisions",
                kind.name(),
                report.completed,
                report.collisions
            ));
        }
        assert!(
            world.metrics().overlapping_pairs.is_empty(),
            "{}",
            kind.name()
        );
    }
    println!("{total} collisions in all");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
