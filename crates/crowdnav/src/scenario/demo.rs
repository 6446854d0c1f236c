//! The seed demo's setup, shared by the CLI's `demo` and the viewer.

use super::file::{Method, Scenario, WorldSpec};
use super::formation::FormationArea;
use crate::mesh::Level;
use crate::steer::OrcaParams;
use glam::Vec2;

/// Entities in the seed demo.
pub const DEMO_AGENTS: usize = 32;

/// Where the demo's formations are laid out: around the origin, 10 m across each way,
/// for agents of radius 0.5 m.
pub const DEMO_AREA: FormationArea = FormationArea {
    center: Vec2::ZERO,
    size: 10.0,
    agent_radius: 0.5,
};

/// The demo's level: a square room 28 m across around the formations.
pub fn demo_level() -> Level {
    let h = 14.0;
    Level {
        boundary: vec![
            Vec2::new(-h, -h),
            Vec2::new(h, -h),
            Vec2::new(h, h),
            Vec2::new(-h, h),
        ],
        obstacles: Vec::new(),
    }
}

/// The seed demo as a scenario without agents (the demo adds 32 and gives them each
/// formation's goals in turn): the demo room, `dt` 0.05 s, at most 1 200 steps per
/// formation, and ORCA with a 2 s horizon, which suits 32 agents of 0.5 m in a room
/// (RVO2's 10 s is for its 250-agent circle); the shipped formation scenarios use the
/// same.
pub fn demo_scenario(method: Method) -> Scenario {
    Scenario {
        name: "demo".to_owned(),
        description: Some("The seed demo's formation sequence".to_owned()),
        method,
        dt: 0.05,
        steps: 1200,
        world: Some(WorldSpec::Inline(demo_level())),
        agents: Vec::new(),
        formation: None,
        ring: None,
        obstacles: Vec::new(),
        orca: Some(OrcaParams {
            neighbor_dist: 8.0,
            max_neighbors: 10,
            time_horizon: 2.0,
            time_horizon_obst: 2.0,
            ..OrcaParams::rvo2()
        }),
        antigravity: None,
        swarm: None,
        world_params: None,
        lines: Vec::new(),
    }
}
