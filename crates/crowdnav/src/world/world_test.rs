use super::*;
use crate::mesh::{Level, NavMesh};
use crate::steer::{DebugKind, SteerContext, SteerDebug, Steering};
use glam::Vec2;

/// Takes its preferred velocity as it is: no avoidance.
struct Seek;
impl Steering for Seek {
    fn name(&self) -> &'static str {
        "seek"
    }
    fn steer(&self, ctx: &SteerContext<'_>, _: Option<&mut SteerDebug>) -> Vec2 {
        ctx.agent.preferred_velocity
    }
}

fn room_with_pillar() -> NavMesh {
    let level = Level::from_json(
        r#"{"boundary": [[0,0],[20,0],[20,10],[0,10]],
            "obstacles": [[[9,0],[11,0],[11,7],[9,7]]]}"#,
    )
    .expect("valid level");
    NavMesh::from_level(&level).expect("mesh builds")
}

fn run(world: &mut World, dt: f32, max_steps: usize) {
    for _ in 0..max_steps {
        world.step(dt).expect("valid step");
        if world.all_arrived() {
            break;
        }
    }
}

#[test]
fn agent_follows_its_exact_path_around_a_wall_and_stops_at_the_goal() {
    let mut world = World::new(
        Some(room_with_pillar()),
        Box::new(Seek),
        WorldParams::default(),
    );
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 2.0), Vec2::new(18.0, 2.0)))
        .expect("valid agent");
    run(&mut world, 0.05, 2000);
    let a = world.agent(id).expect("in the world");
    assert!(a.is_arrived(), "agent at {}", a.position);
    assert!(a.position.distance(Vec2::new(18.0, 2.0)) <= world.params().arrival_tolerance);
    let shortest = a.first_plan_length().expect("planned");
    // Went over the pillar's top corners, not through it: longer than the radius-0
    // path 2·√(7² + 5²) + 2.
    assert!(shortest > 2.0 * 74f64.sqrt() + 2.0, "shortest {shortest}");
    // Travelled about the path's length: corners cut by at most a little.
    // A regression guard: 2 % of the ~20 m path is 0.4 m, less than one diameter cut
    // at the two corners. Measured: 0.9987.
    let ratio = a.travelled() / shortest;
    assert!(
        (0.98..1.02).contains(&ratio),
        "travelled/shortest = {ratio}"
    );
    // Never inside the pillar or closer to it than its radius (minus tolerance).
    assert!(world.mesh().and_then(|m| m.clearance(a.position)).is_some());
}

#[test]
fn agent_keeps_its_radius_from_walls_along_the_way() {
    let mesh = room_with_pillar();
    let mut world = World::new(Some(mesh.clone()), Box::new(Seek), WorldParams::default());
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 2.0), Vec2::new(18.0, 2.0)).with_radius(1.0))
        .expect("valid agent");
    let mut min_clearance = f32::INFINITY;
    for _ in 0..3000 {
        world.step(0.02).expect("valid step");
        let c = mesh
            .clearance(world.agent(id).expect("in the world").position)
            .unwrap_or(-1.0);
        min_clearance = min_clearance.min(c);
        if world.all_arrived() {
            break;
        }
    }
    assert!(world.all_arrived());
    // Arcs are followed by chords of at most 30°: within 4 % of the radius.
    assert!(min_clearance >= 0.95, "min clearance {min_clearance}");
}

#[test]
fn chaser_reaches_a_moving_agent() {
    let mut world = World::new(None, Box::new(Seek), WorldParams::default());
    let runner = world
        .add_agent(
            AgentParams::new(Vec2::new(0.0, 0.0), Vec2::new(30.0, 0.0)).with_speeds(1.0, 1.0),
        )
        .expect("valid agent");
    let chaser = world
        .add_agent(
            AgentParams::new(Vec2::new(-5.0, 3.0), Vec2::ZERO)
                .with_goal(Goal::Agent(runner))
                .with_speeds(2.0, 2.0),
        )
        .expect("valid agent");
    let mut caught = false;
    for _ in 0..400 {
        world.step(0.05).expect("valid step");
        if world.agent(chaser).expect("in the world").is_arrived() {
            caught = true;
            break;
        }
    }
    assert!(caught);
    let gap = world
        .agent(chaser)
        .expect("in the world")
        .position
        .distance(world.agent(runner).expect("in the world").position);
    // The arrival reach (two 0.5 m radii plus the tolerance), plus one 0.05 s step at
    // the chaser's 2 m/s (0.1 m). Measured: 1.0995.
    assert!(
        gap <= 1.0 + world.params().arrival_tolerance + 0.1,
        "gap {gap}"
    );
}

#[test]
fn moving_obstacles_follow_their_script() {
    let mut world = World::new(None, Box::new(Seek), WorldParams::default());
    let o = world
        .add_obstacle(
            1.0,
            Motion::Linear {
                start: Vec2::ZERO,
                velocity: Vec2::new(1.0, 0.5),
            },
        )
        .expect("valid obstacle");
    for _ in 0..10 {
        world.step(0.1).expect("valid step");
    }
    let p = world.obstacles()[o.index()].position;
    assert!(p.distance(Vec2::new(1.0, 0.5)) < 1e-5, "{p}");
}

#[test]
fn bad_agents_and_steps_are_refused_with_a_reason() {
    let mut world = World::new(None, Box::new(Seek), WorldParams::default());
    let nan = AgentParams::new(Vec2::new(f32::NAN, 0.0), Vec2::ZERO);
    assert!(matches!(
        world.add_agent(nan),
        Err(WorldError::InvalidAgent { index: 0, .. })
    ));
    let inf_goal = AgentParams::new(Vec2::ZERO, Vec2::new(0.0, f32::INFINITY));
    assert!(matches!(
        world.add_agent(inf_goal),
        Err(WorldError::InvalidAgent { .. })
    ));
    let zero_r = AgentParams::new(Vec2::ZERO, Vec2::ONE).with_radius(0.0);
    assert!(world.add_agent(zero_r).is_err());
    let ghost = AgentParams::new(Vec2::ZERO, Vec2::ONE).with_goal(Goal::Agent(AgentId::new(7, 0)));
    assert!(matches!(
        world.add_agent(ghost),
        Err(WorldError::UnknownGoal { .. })
    ));
    assert!(world.agents().is_empty());
    assert_eq!(world.step(0.0), Err(WorldError::InvalidStep(0.0)));
    assert!(world.step(f32::NAN).is_err());
    assert_eq!(world.steps(), 0);
}

#[test]
fn unreachable_goal_sends_the_agent_straight_without_panicking() {
    // The goal is inside the pillar: no path; the agent heads straight and is kept
    // on the mesh by the walls.
    let mut world = World::new(
        Some(room_with_pillar()),
        Box::new(Seek),
        WorldParams::default(),
    );
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 2.0), Vec2::new(10.0, 3.0)))
        .expect("valid agent");
    for _ in 0..400 {
        world.step(0.05).expect("valid step");
    }
    let p = world.agent(id).expect("in the world").position;
    assert!(p.is_finite());
    assert!(
        world.mesh().and_then(|m| m.clearance(p)).is_some(),
        "{p} off the mesh"
    );
}

#[test]
fn debug_vectors_are_recorded_per_agent_when_asked() {
    use crate::steer::AntiGravity;
    let mut world = World::new(
        None,
        Box::new(AntiGravity::default()),
        WorldParams::default(),
    );
    let a = world
        .add_agent(AgentParams::new(Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0)))
        .expect("valid agent");
    world
        .add_agent(AgentParams::new(Vec2::new(2.0, 0.3), Vec2::new(-10.0, 0.3)))
        .expect("valid agent");
    world.step(0.05).expect("valid step");
    assert!(world.steer_debug(a).is_none(), "off by default");
    world.set_record_debug(true);
    world.step(0.05).expect("valid step");
    let debug = world.steer_debug(a).expect("recorded");
    for kind in [
        DebugKind::Raw,
        DebugKind::Adjusted,
        DebugKind::Sum,
        DebugKind::Final,
    ] {
        assert!(debug.of_kind(kind).next().is_some(), "no {kind:?} vector");
    }
}

#[test]
fn replacing_the_mesh_replans_every_agent_around_the_new_obstacle() {
    let open = Level::from_json(r#"{"boundary": [[0,0],[20,0],[20,10],[0,10]]}"#).expect("level");
    let mut world = World::new(
        Some(NavMesh::from_level(&open).expect("mesh")),
        Box::new(Seek),
        WorldParams::default(),
    );
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 2.0), Vec2::new(18.0, 2.0)))
        .expect("valid agent");
    world.step(0.05).expect("valid step");
    let straight = world
        .agent(id)
        .expect("in the world")
        .path()
        .expect("planned")
        .length();
    // 16 m apart, less the first step: 0.05 s at most 2 m/s, 0.1 m.
    assert!((straight - 16.0).abs() < 0.1, "{straight}");
    world.set_mesh(Some(room_with_pillar()));
    run(&mut world, 0.05, 2000);
    let a = world.agent(id).expect("in the world");
    assert!(a.is_arrived());
    // Through the pillar is 16 m; over its top corners at radius 0 already
    // 2·√(7² + 5²) + 2 ≈ 19.2 m, less the first step. Measured: 19.80.
    assert!(
        a.path().expect("replanned").length() > 19.0,
        "went through the pillar"
    );
}

#[test]
fn velocities_do_not_depend_on_agent_order() {
    use crate::steer::Orca;
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let specs: Vec<(Vec2, Vec2)> = (0..40)
        .map(|i| {
            let start = Vec2::new((i % 8) as f32 * 2.5, (i / 8) as f32 * 2.5);
            let goal = Vec2::new(rng.gen_range(0.0..20.0), rng.gen_range(0.0..12.0));
            (start, goal)
        })
        .collect();
    let params = WorldParams {
        collisions: false,
        ..WorldParams::default()
    };
    let run_in = |order: &[usize]| {
        let mut world = World::new(None, Box::new(Orca::default()), params);
        for &i in order {
            let (s, g) = specs[i];
            world
                .add_agent(AgentParams::new(s, g))
                .expect("valid agent");
        }
        for _ in 0..60 {
            world.step(0.1).expect("valid step");
        }
        let mut out = vec![Vec2::ZERO; specs.len()];
        for (k, &i) in order.iter().enumerate() {
            out[i] = world.agents()[k].position;
        }
        out
    };
    let forward: Vec<usize> = (0..specs.len()).collect();
    let backward: Vec<usize> = forward.iter().rev().copied().collect();
    let (a, b) = (run_in(&forward), run_in(&backward));
    for (p, q) in a.iter().zip(&b) {
        assert_eq!(
            (p.x.to_bits(), p.y.to_bits()),
            (q.x.to_bits(), q.y.to_bits())
        );
    }
}

#[test]
fn agents_avoid_and_bounce_off_a_moving_obstacle_without_overlap() {
    use crate::steer::Orca;
    let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
    let o = world
        .add_obstacle(
            1.5,
            Motion::Patrol {
                from: Vec2::new(0.0, -8.0),
                to: Vec2::new(0.0, 8.0),
                speed: 1.5,
            },
        )
        .expect("valid obstacle");
    for k in 0..8 {
        let y = -7.0 + 2.0 * k as f32;
        world
            .add_agent(AgentParams::new(Vec2::new(-10.0, y), Vec2::new(10.0, y)))
            .expect("valid agent");
    }
    let mut worst = 0.0f32;
    for _ in 0..800 {
        world.step(0.05).expect("valid step");
        let ob = world.obstacles()[o.index()];
        for a in world.agents() {
            let pen = a.radius + ob.radius - a.position.distance(ob.position);
            worst = worst.max(pen / a.radius);
        }
        if world.all_arrived() {
            break;
        }
    }
    assert!(world.all_arrived());
    assert!(
        worst <= COLLISION_DEPTH,
        "an agent overlapped the obstacle by {worst} radii"
    );
    assert!(world.metrics().overlapping_pairs.is_empty());
}

#[test]
fn a_goal_inside_an_obstacle_is_replaced_by_the_nearest_reachable_point() {
    // The goal (10, 3) is inside the pillar (x 9..11): the agent of radius 0.5 stops
    // half a metre short of the pillar's left side, at (8.5, 3), and has arrived there.
    let mut world = World::new(
        Some(room_with_pillar()),
        Box::new(Seek),
        WorldParams::default(),
    );
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 3.0), Vec2::new(10.0, 3.0)))
        .expect("valid agent");
    run(&mut world, 0.05, 2000);
    let a = world.agent(id).expect("in the world");
    let near = a.reachable_goal().expect("the goal was out of reach");
    assert!(near.distance(Vec2::new(8.5, 3.0)) < 1e-2, "{near}");
    assert!(a.is_arrived(), "at {}", a.position);
    assert!(a.position.distance(near) <= world.params().arrival_tolerance);
}

use crate::steer::NeighborKind;

/// What one agent saw when it steered: its position and its neighbours' positions and
/// kinds, in order.
type Sight = (Vec2, Vec<(Vec2, NeighborKind)>);

/// Records what every agent sees when it steers, then seeks.
#[derive(Default)]
struct Recorder {
    seen: std::sync::Mutex<Vec<Sight>>,
}

impl Steering for std::sync::Arc<Recorder> {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn steer(&self, ctx: &SteerContext<'_>, _: Option<&mut SteerDebug>) -> Vec2 {
        let neighbors = ctx.neighbors.iter().map(|n| (n.position, n.kind)).collect();
        if let Ok(mut seen) = self.seen.lock() {
            seen.push((ctx.agent.position, neighbors));
        }
        ctx.agent.preferred_velocity
    }
}

#[test]
fn steering_sees_the_nearest_agents_then_obstacles_in_range_nearest_first() {
    let recorder = std::sync::Arc::new(Recorder::default());
    let params = WorldParams {
        collisions: false,
        ..WorldParams::default()
    };
    let mut world = World::new(None, Box::new(recorder.clone()), params);
    // A crowd crossing itself (so that every search after the first starts from its
    // last answer), with moving obstacles among it: the path that merges obstacles.
    for k in 0..80 {
        let (x, y) = ((k % 10) as f32 * 2.3, (k / 10) as f32 * 1.9);
        world
            .add_agent(AgentParams::new(Vec2::new(x, y), Vec2::new(20.0 - y, x)))
            .expect("valid agent");
    }
    for (from, to) in [((-5.0, 4.0), (25.0, 4.0)), ((10.0, -5.0), (10.0, 20.0))] {
        world
            .add_obstacle(
                0.8,
                Motion::Patrol {
                    from: Vec2::from(from),
                    to: Vec2::from(to),
                    speed: 1.0,
                },
            )
            .expect("valid obstacle");
    }
    let (range, k) = (params.neighbor_dist, params.max_neighbors);
    for _ in 0..12 {
        let agents: Vec<Vec2> = world.agents().iter().map(|a| a.position).collect();
        let obstacles: Vec<(Vec2, f32)> = world
            .obstacles()
            .iter()
            .map(|o| (o.position, o.radius))
            .collect();
        if let Ok(mut seen) = recorder.seen.lock() {
            seen.clear();
        }
        world.step(0.1).expect("valid step");
        let seen = recorder.seen.lock().expect("not poisoned");
        assert_eq!(seen.len(), agents.len());
        for (p, neighbors) in seen.iter() {
            let i = agents.iter().position(|q| q == p).expect("an agent") as u32;
            // Brute force: the k nearest other agents in range, then the obstacles in
            // range (each within its radius more), merged by distance, ties by index
            // (obstacles after agents).
            let mut near: Vec<(f32, u32, Vec2, NeighborKind)> = agents
                .iter()
                .enumerate()
                .filter(|&(j, q)| j as u32 != i && p.distance_squared(*q) <= range * range)
                .map(|(j, &q)| (p.distance_squared(q), j as u32, q, NeighborKind::Agent))
                .collect();
            near.sort_by(|a, b| (a.0, a.1).partial_cmp(&(b.0, b.1)).expect("finite"));
            near.truncate(k);
            for (j, &(q, r)) in obstacles.iter().enumerate() {
                let d2 = p.distance_squared(q);
                if d2 <= (range + r) * (range + r) {
                    near.push((d2, u32::MAX - j as u32, q, NeighborKind::Obstacle));
                }
            }
            near.sort_by(|a, b| (a.0, a.1).partial_cmp(&(b.0, b.1)).expect("finite"));
            let expected: Vec<(Vec2, NeighborKind)> =
                near.iter().map(|&(_, _, q, kind)| (q, kind)).collect();
            assert_eq!(neighbors, &expected, "agent {i}");
        }
    }
}

#[test]
fn a_steering_method_that_chooses_its_neighbours_owns_the_world_s_neighbourhood() {
    use crate::steer::{Orca, OrcaParams};
    let orca = |neighbor_dist, max_neighbors| {
        Box::new(Orca::new(OrcaParams {
            neighbor_dist,
            max_neighbors,
            vision_neighbors: 0,
            ..OrcaParams::people()
        }))
    };
    // The world's own settings say 15 m and 10; ORCA says 3 m and 4: ORCA's hold.
    let mut world = World::new(None, orca(3.0, 4), WorldParams::default());
    assert_eq!(
        (world.params().neighbor_dist, world.params().max_neighbors),
        (3.0, 4)
    );
    // ORCA looking over more neighbours for a way around than it takes half-planes
    // of gets them all handed over.
    let seeing = Box::new(Orca::new(OrcaParams {
        max_neighbors: 4,
        vision_neighbors: 30,
        ..OrcaParams::people()
    }));
    let far_sighted = World::new(None, seeing, WorldParams::default());
    assert_eq!(far_sighted.params().max_neighbors, 30);
    // A new method brings its own; a method without one leaves them as they are.
    world.set_steering(orca(6.0, 12));
    assert_eq!(
        (world.params().neighbor_dist, world.params().max_neighbors),
        (6.0, 12)
    );
    world.set_steering(Box::new(Seek));
    assert_eq!(
        (world.params().neighbor_dist, world.params().max_neighbors),
        (6.0, 12)
    );
    let seek = World::new(None, Box::new(Seek), WorldParams::default());
    assert_eq!(
        seek.params().neighbor_dist,
        WorldParams::default().neighbor_dist
    );
}

/// An arrived agent holds its place: nudged within its radius off its goal it stays
/// arrived and stands while it is pushed, walks back once left in peace for
/// `SETTLE_TIME`, and rests again; nudged further than its radius, it is on its way.
#[test]
fn an_arrived_agent_holds_its_place_within_its_radius_and_walks_back_when_left_in_peace() {
    let dt = 0.05;
    let mut world = World::new(None, Box::new(Seek), WorldParams::default());
    let goal = Vec2::new(5.0, 5.0);
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 5.0), goal))
        .expect("valid agent");
    run(&mut world, dt, 400);
    let radius = world.agent(id).expect("in the world").radius;
    assert!(world.all_arrived());

    // Nudged by 0.6 radius, twice in a row: still arrived, standing.
    for k in 1..=2 {
        let nudge = goal + Vec2::new(0.3 * radius * k as f32, 0.0);
        world.set_position(id, nudge).expect("free space");
        world.step(dt).expect("valid step");
        let a = world.agent(id).expect("in the world");
        assert_eq!(a.state(), &AgentState::Arrived, "nudge {k}");
        assert!(a.is_arrived(), "nudge {k}: it stands while pushed");
        assert_eq!(a.preferred_velocity, Vec2::ZERO);
    }
    // Left in peace: it stands until `SETTLE_TIME` has passed, then walks back, still
    // `Arrived` but not resting, and rests on its place again.
    let settle_steps = (SETTLE_TIME / f64::from(dt)).ceil() as usize;
    for _ in 0..settle_steps - 1 {
        world.step(dt).expect("valid step");
        assert!(world.agent(id).expect("in the world").is_arrived());
    }
    let mut walked_back = false;
    for _ in 0..200 {
        world.step(dt).expect("valid step");
        let a = world.agent(id).expect("in the world");
        assert_eq!(a.state(), &AgentState::Arrived);
        walked_back |= a.preferred_velocity.x < 0.0;
        if walked_back && a.is_arrived() {
            break;
        }
    }
    let a = world.agent(id).expect("in the world");
    assert!(walked_back && a.is_arrived(), "back at rest");
    assert!(a.position.distance(goal) <= world.params().arrival_tolerance);

    // Pushed further than its radius: on its way again, and back.
    world
        .set_position(id, goal + Vec2::new(0.0, 1.5 * radius))
        .expect("free space");
    world.step(dt).expect("valid step");
    let a = world.agent(id).expect("in the world");
    assert_eq!(a.state(), &AgentState::Moving);
    assert!(!a.is_arrived());
    run(&mut world, dt, 400);
    assert!(world.all_arrived());
}

/// A chaser holds no place: as soon as the body it chases moves it out of the arrival
/// tolerance, it is on its way again.
#[test]
fn a_chaser_follows_at_once_when_its_body_moves_off() {
    let dt = 0.05;
    let mut world = World::new(None, Box::new(Seek), WorldParams::default());
    let leader = world
        .add_agent(AgentParams::new(Vec2::new(5.0, 5.0), Vec2::new(5.0, 5.0)))
        .expect("valid agent");
    let chaser = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 5.0), Vec2::new(2.0, 5.0)))
        .expect("valid agent");
    world
        .set_goal(chaser, Goal::Agent(leader))
        .expect("a live agent");
    run(&mut world, dt, 400);
    assert!(world.all_arrived());
    let radius = world.agent(chaser).expect("in the world").radius;
    // The leader steps away by half the chaser's radius: within the radius a point goal
    // would hold, but a chaser follows.
    let at = world.agent(leader).expect("in the world").position;
    world
        .set_position(leader, at + Vec2::new(0.5 * radius, 0.0))
        .expect("free space");
    world
        .set_goal(leader, Goal::Point(at + Vec2::new(0.5 * radius, 0.0)))
        .expect("live");
    world.step(dt).expect("valid step");
    let a = world.agent(chaser).expect("in the world");
    assert_eq!(a.state(), &AgentState::Moving);
    assert!(
        a.preferred_velocity.x > 0.0,
        "follows: {}",
        a.preferred_velocity
    );
}

/// RVO2's wedge: an agent meeting two touching agents head-on, side by side, between
/// them, is held by both (ORCA lets it close on neither) and was carried back with
/// them as far as they walked. Carried back for `CARRIED_TIME`, it gets right of way:
/// they see it walking as it wants to and make room.
#[test]
fn an_agent_caught_between_two_walking_the_other_way_is_not_carried_back() {
    use crate::steer::{Orca, OrcaParams};
    let dt = 0.25;
    let mut world = World::new(
        None,
        Box::new(Orca::new(OrcaParams::rvo2())),
        WorldParams::default(),
    );
    let body = |from: Vec2, to: Vec2| AgentParams {
        radius: 1.5,
        max_speed: 2.0,
        pref_speed: 1.0,
        ..AgentParams::new(from, to)
    };
    let caught = world
        .add_agent(body(Vec2::ZERO, Vec2::new(60.0, 0.0)))
        .expect("valid agent");
    // A row of touching agents walking west, the caught one heading for the seam
    // between the middle two.
    for k in -3..=3 {
        let y = 3.0 * k as f32 + 1.5;
        world
            .add_agent(body(Vec2::new(2.6, y), Vec2::new(-200.0, y)))
            .expect("valid agent");
    }
    // All walking west together, touching: the caught one meets them with no
    // relative velocity, as it does once caught.
    let ids: Vec<AgentId> = world.agents().iter().map(|a| a.id).collect();
    for &id in &ids {
        world
            .set_velocity(id, Some(Vec2::new(-1.0, 0.0)))
            .expect("valid");
    }
    world.step(dt).expect("valid step");
    for &id in &ids {
        world.set_velocity(id, None).expect("valid");
    }
    let mut least_x = f32::INFINITY;
    for _ in 0..400 {
        world.step(dt).expect("valid step");
        least_x = least_x.min(world.agent(caught).expect("in the world").position.x);
    }
    let a = world.agent(caught).expect("in the world");
    println!(
        "caught agent: least x {least_x:.1}, at {:.1} after 100 s",
        a.position
    );
    assert!(least_x > -10.0, "carried back to x = {least_x:.1}");
    assert!(a.is_arrived(), "at {:.1}, not at its goal", a.position);
}
