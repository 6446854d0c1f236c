//! Agents a game controls: driven by velocity, steered by a preferred velocity,
//! teleported, reshaped, given priority; their states and events; bad input refused.

use super::*;
use crate::geom::Segment;
use crate::mesh::{Level, NavMesh};
use crate::path::{Endpoint, PathError};
use crate::steer::{Orca, SteerContext, SteerDebug, Steering};
use glam::Vec2;
use rand::{Rng, SeedableRng};

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

fn open(steering: Box<dyn Steering>) -> World {
    World::new(None, steering, WorldParams::default())
}

/// A room 20 × 10 m with a pillar from (9, 2) to (11, 8).
fn room() -> NavMesh {
    let level = Level::from_json(
        r#"{"boundary": [[0,0],[20,0],[20,10],[0,10]],
            "obstacles": [[[9,2],[11,2],[11,8],[9,8]]]}"#,
    )
    .expect("valid level");
    NavMesh::from_level(&level).expect("mesh builds")
}

fn add(world: &mut World, from: (f32, f32), to: (f32, f32)) -> AgentId {
    world
        .add_agent(AgentParams::new(Vec2::from(from), Vec2::from(to)))
        .expect("valid agent")
}

fn agent(world: &World, id: AgentId) -> &Agent {
    world.agent(id).expect("in the world")
}

#[test]
fn a_driven_agent_goes_exactly_as_driven_and_the_others_avoid_it() {
    let mut world = open(Box::new(Orca::default()));
    let player = add(&mut world, (-8.0, 0.0), (-8.0, 0.0));
    // One walking straight at it.
    let other = add(&mut world, (8.0, 0.05), (-12.0, 0.05));
    let v = Vec2::new(1.5, 0.0);
    world.set_velocity(player, Some(v)).expect("valid velocity");
    let mut expected = Vec2::new(-8.0, 0.0);
    let mut sidestep = 0.0f32;
    for _ in 0..120 {
        world.step(0.1).expect("valid step");
        expected += v * 0.1;
        let (p, o) = (agent(&world, player), agent(&world, other));
        // Not steered, not pushed: exactly where the game drove it.
        assert_eq!((p.position, p.velocity), (expected, v));
        assert!(p.position.distance(o.position) >= 1.0 - 0.01, "they touch");
        sidestep = sidestep.max((o.position.y - 0.05).abs());
    }
    // The other stepped aside: the whole avoidance was its (a shared one would have
    // moved the player too).
    assert!(sidestep > 0.5, "{sidestep}");
    assert_eq!(agent(&world, player).driven_velocity(), Some(v));
}

#[test]
fn an_agent_no_longer_driven_returns_to_its_goal() {
    let mut world = World::new(
        Some(room()),
        Box::new(Orca::default()),
        WorldParams::default(),
    );
    let id = add(&mut world, (2.0, 5.0), (18.0, 5.0));
    world.step(0.1).expect("valid step");
    world
        .set_velocity(id, Some(Vec2::new(0.0, -1.0)))
        .expect("valid velocity");
    for _ in 0..20 {
        world.step(0.1).expect("valid step");
    }
    world.set_velocity(id, None).expect("valid");
    world.step(0.1).expect("valid step");
    // It re-planned from where it was driven to.
    assert!(world.agent_events().contains(&AgentEvent::Replanned(id)));
    let mut arrivals = 0;
    for _ in 0..400 {
        world.step(0.1).expect("valid step");
        arrivals += world
            .agent_events()
            .iter()
            .filter(|e| **e == AgentEvent::Arrived(id))
            .count();
    }
    assert_eq!(agent(&world, id).state(), &AgentState::Arrived);
    assert_eq!(arrivals, 1, "one arrival event");
}

#[test]
fn an_agent_with_a_preferred_velocity_heads_that_way_and_still_avoids() {
    let mut world = open(Box::new(Orca::default()));
    world
        .add_obstacle(
            1.0,
            Motion::Fixed {
                at: Vec2::new(5.0, 0.0),
            },
        )
        .expect("valid obstacle");
    // Its goal is behind it; it wants to go right, through the obstacle.
    let id = add(&mut world, (0.0, 0.0), (-10.0, 0.0));
    let want = Vec2::new(1.4, 0.0);
    world.set_preferred_velocity(id, Some(want)).expect("valid");
    for _ in 0..100 {
        world.step(0.1).expect("valid step");
        let a = agent(&world, id);
        assert_eq!(a.preferred_velocity, want);
        assert!(a.position.distance(Vec2::new(5.0, 0.0)) >= 1.5 - 0.01);
    }
    let a = agent(&world, id);
    assert!(a.position.x > 7.0, "went past the obstacle: {}", a.position);
    assert!(!a.is_arrived());
    // Handed back, it turns for its goal.
    world.set_preferred_velocity(id, None).expect("valid");
    world.step(0.1).expect("valid step");
    assert!(agent(&world, id).preferred_velocity.x < 0.0);
}

#[test]
fn a_teleported_agent_lands_where_its_disc_fits_and_replans() {
    let mut world = World::new(
        Some(room()),
        Box::new(Orca::default()),
        WorldParams::default(),
    );
    let mesh = room();
    let id = add(&mut world, (2.0, 5.0), (18.0, 5.0));
    world.step(0.1).expect("valid step");
    // Free space: exactly there.
    let at = world.set_position(id, Vec2::new(4.0, 7.0)).expect("fits");
    assert_eq!(at, Vec2::new(4.0, 7.0));
    assert_eq!(agent(&world, id).position, at);
    // Inside the pillar, against a wall, outside the room: onto the nearest place
    // where the disc fits.
    for (p, near) in [
        ((9.3, 5.0), (8.5, 5.0)),
        ((0.1, 5.0), (0.5, 5.0)),
        ((10.0, 1.9), (10.0, 1.5)),
        ((25.0, 5.0), (19.5, 5.0)),
        ((-3.0, -3.0), (0.5, 0.5)),
    ] {
        let at = world.set_position(id, Vec2::from(p)).expect("fits");
        let clear = mesh.clearance(at).expect("on the mesh");
        assert!(clear >= 0.5 * (1.0 - 1e-3), "{p:?} -> {at}: {clear}");
        // The nearest such place, exactly (`NavMesh::nearest_point`).
        assert!(at.distance(Vec2::from(near)) < 1e-4, "{p:?} -> {at}");
        let exact = mesh
            .nearest_point(Vec2::from(p), 0.5)
            .expect("valid")
            .expect("room");
        assert_eq!(at, exact.point);
    }
    world.step(0.1).expect("valid step");
    assert!(world.agent_events().contains(&AgentEvent::Replanned(id)));
}

#[test]
fn new_params_change_the_body_and_a_new_radius_replans() {
    let mut world = World::new(
        Some(room()),
        Box::new(Orca::default()),
        WorldParams::default(),
    );
    let id = add(&mut world, (2.0, 5.0), (18.0, 5.0));
    world.step(0.1).expect("valid step");
    let body = AgentBody {
        radius: 0.8,
        max_speed: 0.5,
        pref_speed: 3.0,
        mass: 70.0,
    };
    world.set_params(id, body).expect("valid body");
    let a = agent(&world, id);
    assert_eq!(
        a.body(),
        AgentBody {
            pref_speed: 0.5,
            ..body
        }
    );
    world.step(0.1).expect("valid step");
    assert!(world.agent_events().contains(&AgentEvent::Replanned(id)));
    let a = agent(&world, id);
    assert_eq!(a.path().map(|p| p.radius()), Some(0.8));
    assert!(a.velocity.length() <= 0.5 + 1e-6);
    // The same radius does not re-plan.
    world
        .set_params(id, AgentBody { mass: 3.0, ..body })
        .expect("valid body");
    world.step(0.1).expect("valid step");
    assert!(!world.agent_events().contains(&AgentEvent::Replanned(id)));
}

/// How far each of two agents meeting head-on strays sideways, the first of
/// `priority`.
fn head_on(priority: u8) -> (f32, f32) {
    let mut world = open(Box::new(Orca::default()));
    let a = add(&mut world, (-6.0, 0.0), (6.0, 0.0));
    let b = add(&mut world, (6.0, 0.0), (-6.0, 0.0));
    world.set_priority(a, priority).expect("in the world");
    let (mut sa, mut sb) = (0.0f32, 0.0f32);
    for _ in 0..150 {
        world.step(0.1).expect("valid step");
        sa = sa.max(agent(&world, a).position.y.abs());
        sb = sb.max(agent(&world, b).position.y.abs());
    }
    assert!(agent(&world, a).is_arrived() && agent(&world, b).is_arrived());
    (sa, sb)
}

#[test]
fn an_agent_of_lower_priority_yields_to_one_of_higher() {
    let (sa, sb) = head_on(0);
    // Alike, they share the way evenly.
    assert!((sa - sb).abs() < 0.1 * sa.max(sb), "{sa} vs {sb}");
    let (sa, sb) = head_on(3);
    // The one of higher priority keeps (nearly) its line; the other steps aside.
    assert!(sa < 0.25 * sb, "{sa} vs {sb}");
    assert!(sb > 0.5, "{sb}");
}

/// Whether the move from `p` to `q` crosses wall `w` (strictly).
fn crosses(p: Vec2, q: Vec2, w: Segment) -> bool {
    let side = |a: Vec2, b: Vec2, c: Vec2| {
        let (a, b, c) = (a.as_dvec2(), b.as_dvec2(), c.as_dvec2());
        (b - a).perp_dot(c - a)
    };
    side(w.a, w.b, p) * side(w.a, w.b, q) < 0.0 && side(p, q, w.a) * side(p, q, w.b) < 0.0
}

#[test]
fn an_agent_without_a_path_holds_still_and_never_walks_through_a_wall() {
    let mut world = World::new(Some(room()), Box::new(Seek), WorldParams::default());
    let walls: Vec<Segment> = world.walls().to_vec();
    // It starts inside the pillar: no path from there.
    let id = add(&mut world, (9.5, 5.0), (18.0, 5.0));
    let other = add(&mut world, (2.0, 2.0), (3.0, 2.0));
    world.step(0.1).expect("valid step");
    let a = agent(&world, id);
    let no_path = AgentState::NoPath(PathError::InObstacle(Endpoint::Start));
    assert_eq!(a.state(), &no_path);
    assert_eq!((a.preferred_velocity, a.velocity), (Vec2::ZERO, Vec2::ZERO));
    assert_eq!(
        world.agent_events(),
        &[AgentEvent::NoPath {
            agent: id,
            error: PathError::InObstacle(Endpoint::Start)
        }]
    );
    assert_eq!(agent(&world, other).state(), &AgentState::Moving);
    // Put back on the floor, it plans again and walks round the pillar.
    let mut p = agent(&world, id).position;
    for _ in 0..400 {
        world.step(0.1).expect("valid step");
        let q = agent(&world, id).position;
        assert!(!walls.iter().any(|&w| crosses(p, q, w)), "{p} -> {q}");
        p = q;
    }
    assert_eq!(agent(&world, id).state(), &AgentState::Arrived);
    assert_eq!(agent(&world, other).state(), &AgentState::Arrived);
}

#[test]
fn an_agent_pressed_against_one_that_does_not_move_is_stuck_until_it_moves() {
    // A corridor 1.2 m wide; a driven agent standing in it fills it.
    let level =
        Level::from_json(r#"{"boundary": [[0,0],[20,0],[20,1.2],[0,1.2]]}"#).expect("valid level");
    let mesh = NavMesh::from_level(&level).expect("mesh builds");
    let mut world = World::new(
        Some(mesh),
        Box::new(Orca::default()),
        WorldParams::default(),
    );
    let wall = world
        .add_agent(AgentParams::new(Vec2::new(10.0, 0.6), Vec2::new(10.0, 0.6)).with_radius(0.55))
        .expect("valid agent");
    world.set_velocity(wall, Some(Vec2::ZERO)).expect("valid");
    let id = world
        .add_agent(AgentParams::new(Vec2::new(2.0, 0.6), Vec2::new(18.0, 0.6)).with_radius(0.3))
        .expect("valid agent");
    let mut stuck_at = None;
    for k in 0..200 {
        world.step(0.1).expect("valid step");
        if agent(&world, id).state() == &AgentState::Stuck {
            stuck_at = Some(k);
            break;
        }
        assert_eq!(agent(&world, id).state(), &AgentState::Moving);
    }
    assert!(stuck_at.is_some(), "never stuck");
    // The one in the way walks off ahead: on its way again.
    world
        .set_velocity(wall, Some(Vec2::new(1.5, 0.0)))
        .expect("valid");
    for _ in 0..20 {
        world.step(0.1).expect("valid step");
    }
    assert_eq!(agent(&world, id).state(), &AgentState::Moving);
}

#[test]
fn a_chaser_whose_quarry_is_removed_is_idle_until_given_a_goal() {
    let mut world = open(Box::new(Orca::default()));
    let quarry = add(&mut world, (10.0, 0.0), (10.0, 8.0));
    let chaser = world
        .add_agent(AgentParams::new(Vec2::ZERO, Vec2::ZERO).with_goal(Goal::Agent(quarry)))
        .expect("valid agent");
    world.step(0.1).expect("valid step");
    assert_eq!(agent(&world, chaser).state(), &AgentState::Moving);
    world.remove_agent(quarry).expect("in the world");
    world.step(0.1).expect("valid step");
    assert_eq!(agent(&world, chaser).state(), &AgentState::Idle);
    world
        .set_goal(chaser, Goal::Point(Vec2::new(-5.0, 0.0)))
        .expect("valid goal");
    world.step(0.1).expect("valid step");
    assert_eq!(agent(&world, chaser).state(), &AgentState::Moving);
}

#[test]
fn collisions_are_events_naming_both_sides() {
    let mut world = World::new(Some(room()), Box::new(Seek), WorldParams::default());
    // Head-on without avoidance, and one straight into the pillar's side.
    let a = add(&mut world, (2.0, 1.0), (6.0, 1.0));
    let b = add(&mut world, (6.0, 1.0), (2.0, 1.0));
    let c = add(&mut world, (5.0, 5.0), (2.0, 5.0));
    world
        .set_preferred_velocity(c, Some(Vec2::new(2.0, 0.0)))
        .expect("valid");
    let mut seen = Vec::new();
    for _ in 0..60 {
        world.step(0.1).expect("valid step");
        seen.extend(
            world
                .agent_events()
                .iter()
                .filter(|e| matches!(e, AgentEvent::Collided { .. }))
                .cloned(),
        );
    }
    assert!(seen.iter().any(|e| matches!(
        e,
        AgentEvent::Collided { agent, with: Touched::Agent(other) }
            if (*agent, *other) == (a, b) || (*agent, *other) == (b, a)
    )));
    assert!(seen.iter().any(|e| matches!(
        e,
        AgentEvent::Collided { agent, with: Touched::Wall(_) } if *agent == c
    )));
    let m = world.metrics();
    assert_eq!(seen.len() as u64, m.collisions + m.wall_contacts);
}

/// Two worlds built alike: `mutate` applied to the first must fail and leave it as the
/// second, to the bit, step after step.
fn refused_without_a_trace(mutate: impl Fn(&mut World, AgentId, AgentId) -> bool) {
    let build = || {
        let mut w = World::new(
            Some(room()),
            Box::new(Orca::default()),
            WorldParams::default(),
        );
        let a = add(&mut w, (2.0, 5.0), (18.0, 5.0));
        let gone = add(&mut w, (2.0, 8.0), (18.0, 8.0));
        add(&mut w, (18.0, 5.5), (2.0, 5.5));
        w.remove_agent(gone).expect("in the world");
        w.step(0.1).expect("valid step");
        (w, a, gone)
    };
    let (mut tried, a, gone) = build();
    let (mut twin, _, _) = build();
    assert!(mutate(&mut tried, a, gone), "the request was refused");
    for _ in 0..30 {
        tried.step(0.1).expect("valid step");
        twin.step(0.1).expect("valid step");
        let bits = |w: &World| -> Vec<(AgentId, [u32; 4], u8)> {
            w.agents()
                .iter()
                .map(|a| {
                    let (p, v) = (a.position, a.velocity);
                    let bits = [p.x, p.y, v.x, v.y].map(f32::to_bits);
                    (a.id, bits, a.priority())
                })
                .collect()
        };
        assert_eq!(bits(&tried), bits(&twin));
        assert_eq!(tried.agent_events(), twin.agent_events());
    }
}

#[test]
fn bad_requests_to_control_an_agent_leave_the_world_unchanged() {
    let nan = Vec2::new(f32::NAN, 0.0);
    let inf = Vec2::new(0.0, f32::INFINITY);
    let body = AgentBody {
        radius: 0.5,
        max_speed: 2.0,
        pref_speed: 1.4,
        mass: 1.0,
    };
    let invalid = |r: Result<(), WorldError>, quantity| {
        matches!(r, Err(WorldError::InvalidValue { problem, .. })
            if matches!(problem, BadValue::NotFinite(q) | BadValue::NotPositive(q, _) if q == quantity))
    };
    refused_without_a_trace(|w, a, _| invalid(w.set_velocity(a, Some(nan)), Quantity::Velocity));
    refused_without_a_trace(|w, a, _| {
        invalid(
            w.set_preferred_velocity(a, Some(inf)),
            Quantity::PreferredVelocity,
        )
    });
    refused_without_a_trace(|w, a, _| {
        invalid(w.set_position(a, nan).map(|_| ()), Quantity::Position)
    });
    for (quantity, bad) in [
        (
            Quantity::Radius,
            AgentBody {
                radius: 0.0,
                ..body
            },
        ),
        (
            Quantity::Radius,
            AgentBody {
                radius: -1.0,
                ..body
            },
        ),
        (
            Quantity::MaxSpeed,
            AgentBody {
                max_speed: f32::NAN,
                ..body
            },
        ),
        (
            Quantity::PrefSpeed,
            AgentBody {
                pref_speed: f32::INFINITY,
                ..body
            },
        ),
        (Quantity::Mass, AgentBody { mass: 0.0, ..body }),
    ] {
        refused_without_a_trace(|w, a, _| invalid(w.set_params(a, bad), quantity));
    }
    // A removed agent's id, for every call.
    let unknown = |r: Result<(), WorldError>, gone| r == Err(WorldError::UnknownAgent(gone));
    refused_without_a_trace(|w, _, g| unknown(w.set_velocity(g, Some(Vec2::X)), g));
    refused_without_a_trace(|w, _, g| unknown(w.set_velocity(g, None), g));
    refused_without_a_trace(|w, _, g| unknown(w.set_preferred_velocity(g, Some(Vec2::X)), g));
    refused_without_a_trace(|w, _, g| unknown(w.set_position(g, Vec2::ONE).map(|_| ()), g));
    refused_without_a_trace(|w, _, g| unknown(w.set_params(g, body), g));
    refused_without_a_trace(|w, _, g| unknown(w.set_priority(g, 9), g));
    refused_without_a_trace(|w, _, g| unknown(w.set_goal(g, Goal::Point(Vec2::ONE)), g));
    refused_without_a_trace(|w, _, g| unknown(w.remove_agent(g).map(|_| ()), g));
    // Moving obstacles and steps.
    refused_without_a_trace(|w, _, _| {
        w.add_obstacle(f32::NAN, Motion::Fixed { at: Vec2::ONE })
            .is_err()
            && w.add_obstacle(1.0, Motion::Fixed { at: nan }).is_err()
            && w.step(0.0).is_err()
    });
}

#[test]
fn no_sequence_of_requests_panics_or_lets_a_nan_in() {
    let values = [
        0.0,
        -1.0,
        0.5,
        3.0,
        1e30,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let mut world = World::new(
        Some(room()),
        Box::new(Orca::default()),
        WorldParams::default(),
    );
    let mut ids: Vec<AgentId> = Vec::new();
    for _ in 0..600 {
        let mut x = || values[rng.gen_range(0..values.len())];
        let v = Vec2::new(x(), x());
        let p = Vec2::new(x() + 5.0, x() + 5.0);
        let body = AgentBody {
            radius: x(),
            max_speed: x(),
            pref_speed: x(),
            mass: x(),
        };
        let id = match ids.len() {
            0 => AgentId::new(3, 1),
            n => ids[rng.gen_range(0..n)],
        };
        let _ = match rng.gen_range(0..10) {
            0 | 1 => world
                .add_agent(AgentParams::new(p, v))
                .map(|id| ids.push(id)),
            2 => world.remove_agent(id).map(|_| ()),
            3 => world.set_velocity(id, rng.gen_bool(0.7).then_some(v)),
            4 => world.set_preferred_velocity(id, rng.gen_bool(0.7).then_some(v)),
            5 => world.set_position(id, p).map(|_| ()),
            6 => world.set_params(id, body),
            7 => world.set_goal(id, Goal::Point(p)),
            8 => world.set_priority(id, rng.gen()),
            _ => world.step(0.1),
        };
        for a in world.agents() {
            assert!(a.position.is_finite() && a.velocity.is_finite(), "{a:?}");
        }
    }
}
