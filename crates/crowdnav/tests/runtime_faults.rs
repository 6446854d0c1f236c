//! Runtime faults at the world's API: NaN and infinite inputs are refused with an
//! error, agents that end up off the mesh are put back, and goals that cannot be
//! reached get the nearest reachable point (`NavMesh::nearest_reachable`).

use crowdnav::mesh::{Level, Location, NavMesh};
use crowdnav::steer::Orca;
use crowdnav::world::{AgentId, AgentParams, Goal, World, WorldError, WorldParams};
use glam::Vec2;

fn room(obstacles: &str) -> NavMesh {
    let json =
        format!(r#"{{"boundary": [[0,0],[20,0],[20,10],[0,10]], "obstacles": [{obstacles}]}}"#);
    NavMesh::from_level(&Level::from_json(&json).expect("level")).expect("mesh")
}

fn world(mesh: NavMesh) -> World {
    World::new(
        Some(mesh),
        Box::new(Orca::new(Default::default())),
        WorldParams::default(),
    )
}

#[test]
fn nan_and_infinite_positions_and_goals_are_refused() {
    let mut w = world(room(""));
    let ok = Vec2::new(2.0, 2.0);
    for (pos, goal) in [
        (Vec2::new(f32::NAN, 2.0), ok),
        (Vec2::new(2.0, f32::INFINITY), ok),
        (ok, Vec2::new(f32::NEG_INFINITY, 1.0)),
        (ok, Vec2::NAN),
    ] {
        let e = w
            .add_agent(AgentParams::new(pos, goal))
            .expect_err("non-finite input");
        assert!(
            matches!(e, WorldError::InvalidAgent { .. }),
            "{pos} -> {goal}: {e}"
        );
        assert!(e.to_string().contains("NaN or infinite"), "{e}");
    }
    for bad in [
        AgentParams::new(ok, ok).with_radius(f32::NAN),
        AgentParams::new(ok, ok).with_radius(-1.0),
        AgentParams::new(ok, ok).with_speeds(f32::INFINITY, 1.0),
        AgentParams::new(ok, ok).with_mass(0.0),
    ] {
        assert!(w.add_agent(bad).is_err());
    }
    assert!(w.agents().is_empty(), "nothing was added");
    let id = w
        .add_agent(AgentParams::new(ok, Vec2::new(18.0, 8.0)))
        .expect("valid agent");
    let e = w
        .set_goal(id, Goal::Point(Vec2::new(f32::NAN, 0.0)))
        .expect_err("NaN goal");
    assert!(e.to_string().contains("NaN or infinite"), "{e}");
    // The agent keeps its old goal and steps on.
    for _ in 0..10 {
        w.step(0.05).expect("valid step");
    }
    assert!(w.agent(id).expect("in the world").position.is_finite());
    assert!(w.step(f32::NAN).is_err());
    assert!(w.step(0.0).is_err());
    assert!(w.step(-0.05).is_err());
}

fn on_mesh(w: &World, id: AgentId) -> bool {
    let mesh = w.mesh().expect("mesh");
    matches!(
        mesh.locate(w.agent(id).expect("in the world").position),
        Location::Walkable(_)
    )
}

#[test]
fn an_agent_placed_outside_the_mesh_is_put_back() {
    let mut w = world(room(""));
    let outside = w
        .add_agent(AgentParams::new(Vec2::new(25.0, 5.0), Vec2::new(5.0, 5.0)).with_radius(0.5))
        .expect("added");
    let below = w
        .add_agent(AgentParams::new(Vec2::new(10.0, -3.0), Vec2::new(5.0, 5.0)).with_radius(0.5))
        .expect("added");
    w.step(0.05).expect("step");
    assert!(
        on_mesh(&w, outside),
        "{}",
        w.agent(outside).expect("in the world").position
    );
    assert!(
        on_mesh(&w, below),
        "{}",
        w.agent(below).expect("in the world").position
    );
}

#[test]
fn an_agent_left_inside_a_new_obstacle_is_put_back() {
    let mut w = world(room(""));
    let id = w
        .add_agent(AgentParams::new(Vec2::new(10.0, 5.0), Vec2::new(10.0, 5.0)).with_radius(0.5))
        .expect("added");
    w.step(0.05).expect("step");
    // A live level edit drops a pillar on the agent.
    w.set_mesh(Some(room("[[9,4],[11,4],[11,6.2],[9,6.2]]")));
    for _ in 0..5 {
        w.step(0.05).expect("step");
        assert!(w.agent(id).expect("in the world").position.is_finite());
    }
    assert!(
        on_mesh(&w, id),
        "{}",
        w.agent(id).expect("in the world").position
    );
}

#[test]
fn an_unreachable_goal_has_a_nearest_reachable_point_the_agent_can_walk_to() {
    // A wall splits the room; the goal is on the far side.
    let mesh = room("[[9,-1],[11,-1],[11,11],[9,11]]");
    let from = Vec2::new(2.0, 5.0);
    let goal = Vec2::new(18.0, 3.0);
    let r = 0.5;
    assert!(mesh.find_path(from, goal, r).is_err());
    let near = mesh
        .nearest_reachable(from, goal, r)
        .expect("start has room");
    assert!(near.distance(Vec2::new(8.5, 3.0)) < 1e-3, "{near}");
    let mut w = world(mesh);
    let id = w
        .add_agent(AgentParams::new(from, near).with_radius(r))
        .expect("added");
    // ORCA slows an agent heading straight at a wall to (gap / time horizon), so the
    // last few centimetres to a point exactly one radius off the wall take a while.
    for _ in 0..1600 {
        w.step(0.05).expect("step");
    }
    // Arrived: within the arrival tolerance (was a looser 0.1 m). Measured: 0.048 m.
    let p = w.agent(id).expect("in the world").position;
    assert!(
        p.distance(near) <= w.params().arrival_tolerance,
        "{p} vs {near}"
    );
}
