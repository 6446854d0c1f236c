//! The seed demo: 32 entities walking through five formations (circle, swap places,
//! three groups, two blocks, two lines) in a square room. The CLI's `demo` and the
//! viewer build it from these pieces: [`scenario`] (the room, step and steering
//! settings), [`AGENTS`] agents placed with
//! [`formation_starts`](super::formation_starts) in [`AREA`], and each formation's goals
//! from [`formation_goals`](super::formation_goals).

use super::file::{Method, Scenario, WorldSpec};
use super::formation::FormationArea;
use crate::mesh::Level;
use crate::steer::{AntiGravityParams, OrcaParams};
use glam::Vec2;

/// Entities in the seed demo.
pub const AGENTS: usize = 32;

/// Where the demo's formations are laid out: around the origin, 10 m across each way,
/// for agents of radius 0.5 m.
pub const AREA: FormationArea = FormationArea {
    center: Vec2::ZERO,
    size: 10.0,
    agent_radius: 0.5,
};

/// The demo's level: a square room 28 m across around the formations.
pub fn level() -> Level {
    let h = 14.0;
    Level {
        boundary: vec![
            Vec2::new(-h, -h),
            Vec2::new(h, -h),
            Vec2::new(h, h),
            Vec2::new(-h, h),
        ],
        obstacles: Vec::new(),
        doors: Default::default(),
    }
}

/// Anti-gravity as the demo uses it: the seed's four parts with a part-4 look-ahead of
/// 2 s instead of 40 frames.
///
/// Part 4 considers a moving body once it is closer than `speed · look_ahead + radius`,
/// and then weighs its push by how opposed the two headings are plus a closeness ramp,
/// `(1 - 1.25 d / range)²`, that brings the whole push back as the body gets near. The
/// seed's 40 frames (2/3 s at 60 fps) were tuned for its entities, which cover several
/// of their widths in that time; the demo's agents, 1 m wide at 1.4 m/s, cover 0.93 m.
/// The range, 1.43 m, then barely exceeds contact (1 m), the ramp is 0.016 at contact,
/// and two agents walking side by side or one behind the other (headings alike) all but
/// ignore each other until they collide: 2 069 collisions over the five formations,
/// 165 to 867 each. A 2 s look-ahead reaches 3.3 m, 3.3 agent widths, as the seed's
/// frames reached, and the ramp gives back 40 % of the push at contact: 158 collisions,
/// 0 to 89 each, and the formations form as fast or faster. The default stays the
/// seed's 40 frames (its unit tests show the chase it describes with it).
pub fn antigravity() -> AntiGravityParams {
    AntiGravityParams {
        look_ahead: 2.0,
        ..AntiGravityParams::default()
    }
}

/// The seed demo as a scenario without agents (the demo adds 32 and gives them each
/// formation's goals in turn): the demo room, `dt` 0.05 s, at most 1 200 steps per
/// formation, ORCA with a 2 s horizon, which suits 32 agents of 0.5 m in a room
/// (RVO2's 10 s is for its 250-agent circle), and anti-gravity as
/// [`antigravity`]; the shipped formation scenarios use the same.
pub fn scenario(method: Method) -> Scenario {
    Scenario {
        name: "demo".to_owned(),
        description: Some("The seed demo's formation sequence".to_owned()),
        method,
        dt: 0.05,
        steps: 1200,
        world: Some(WorldSpec::Inline(level())),
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
        antigravity: Some(antigravity()),
        swarm: None,
        world_params: None,
        lines: Vec::new(),
        events: Vec::new(),
        sources: Vec::new(),
        sinks: Vec::new(),
    }
}
