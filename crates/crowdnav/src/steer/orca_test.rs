use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0x0_5ca1e;

fn agent_at(position: Vec2, velocity: Vec2, preferred: Vec2) -> SteerAgent {
    SteerAgent {
        position,
        velocity,
        radius: 0.5,
        max_speed: 1.5,
        preferred_velocity: preferred,
        target: position + preferred,
    }
}

fn neighbor_at(position: Vec2, velocity: Vec2, radius: f32, kind: NeighborKind) -> Neighbor {
    Neighbor {
        position,
        velocity,
        radius,
        preferred_velocity: velocity,
        kind,
        same_destination: false,
    }
}

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn assert_close(a: Vec2, b: Vec2, tolerance: f32) {
    assert!(
        a.distance(b) <= tolerance,
        "{a} is not within {tolerance} of {b}"
    );
}

/// A body in the test-local integration loop.
#[derive(Clone, Copy, Debug)]
struct Body {
    position: Vec2,
    velocity: Vec2,
    radius: f32,
    max_speed: f32,
    goal: Vec2,
}

impl Body {
    fn new(position: Vec2, goal: Vec2) -> Self {
        Self {
            position,
            velocity: Vec2::ZERO,
            radius: 0.5,
            max_speed: 1.5,
            goal,
        }
    }

    fn preferred_velocity(&self) -> Vec2 {
        (self.goal - self.position).clamp_length_max(self.max_speed)
    }
}

/// Within this of its goal a body counts as arrived: the world's default arrival
/// tolerance (`WorldParams::default().arrival_tolerance`).
const ARRIVED: f32 = 0.05;

/// Steps every body with ORCA (all velocities from the old state, then all moves) and
/// calls `check` after each step.
fn simulate(
    bodies: &mut [Body],
    walls: &[Segment],
    steps: usize,
    dt: f32,
    mut check: impl FnMut(&[Body]),
) {
    let orca = Orca::new(OrcaParams::rvo2());
    let mut scratch = OrcaScratch::new();
    let mut neighbors = Vec::new();
    let mut velocities = vec![Vec2::ZERO; bodies.len()];
    for _ in 0..steps {
        for (i, body) in bodies.iter().enumerate() {
            neighbors.clear();
            neighbors.extend(bodies.iter().enumerate().filter(|&(j, _)| j != i).map(
                |(_, other)| Neighbor {
                    position: other.position,
                    velocity: other.velocity,
                    radius: other.radius,
                    preferred_velocity: other.preferred_velocity(),
                    kind: NeighborKind::Agent,
                    same_destination: false,
                },
            ));
            neighbors.sort_by(|a, b| {
                a.position
                    .distance_squared(body.position)
                    .total_cmp(&b.position.distance_squared(body.position))
            });
            let ctx = SteerContext {
                agent: SteerAgent {
                    position: body.position,
                    velocity: body.velocity,
                    radius: body.radius,
                    max_speed: body.max_speed,
                    preferred_velocity: body.preferred_velocity(),
                    target: body.goal,
                },
                neighbors: &neighbors,
                walls,
                dt,
                opening: None,
            };
            velocities[i] = orca.steer_with(&ctx, &mut scratch, None);
        }
        for (body, &velocity) in bodies.iter_mut().zip(&velocities) {
            body.velocity = velocity;
            body.position += velocity * dt;
        }
        check(bodies);
    }
}

fn min_gap(bodies: &[Body]) -> f32 {
    let mut gap = f32::INFINITY;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            gap = gap.min(a.position.distance(b.position) - a.radius - b.radius);
        }
    }
    gap
}

// --- Half-plane construction -------------------------------------------------------

#[test]
fn half_plane_for_a_neighbour_ahead_excludes_the_current_velocity_and_turns_right() {
    // Combined radius 2 at distance 10: the legs open at asin(0.2); the relative
    // velocity (1.5, 0) lies on the axis, 0.3 from either leg; the tie goes right.
    let agent = SteerAgent {
        radius: 1.0,
        ..agent_at(Vec2::ZERO, v(1.5, 0.0), v(1.5, 0.0))
    };
    let normal = v(-0.2, -(0.96_f32).sqrt());
    for (kind, share) in [(NeighborKind::Agent, 0.5), (NeighborKind::Obstacle, 1.0)] {
        let neighbor = neighbor_at(v(10.0, 0.0), Vec2::ZERO, 1.0, kind);
        let plane = orca_half_plane_disc(&agent, &neighbor, 10.0, 0.1);
        assert_close(plane.normal(), normal, 1e-5);
        assert!(
            plane
                .signed_distance(agent.velocity + normal * (0.3 * share))
                .abs()
                < 1e-5
        );
        assert!(!plane.contains(agent.velocity));
    }
}

#[test]
fn half_plane_for_a_neighbour_behind_allows_moving_on() {
    // Relative velocity (1, 0) away from a neighbour at (-10, 0): the nearest point of
    // the obstacle is the cut-off tip at (-0.8, 0), u = (-1.8, 0), half of it is ours.
    let agent = agent_at(Vec2::ZERO, v(1.0, 0.0), v(1.0, 0.0));
    let neighbor = neighbor_at(v(-10.0, 0.0), Vec2::ZERO, 1.5, NeighborKind::Agent);
    let plane = orca_half_plane_disc(&agent, &neighbor, 10.0, 0.1);
    assert_close(plane.normal(), Vec2::X, 1e-5);
    assert!(plane.signed_distance(v(0.1, 0.0)).abs() < 1e-5);
    assert!(plane.contains(agent.velocity));
}

#[test]
fn half_plane_for_overlapping_neighbours_separates_them_within_one_step() {
    // Penetration 0.5; each agent takes half: 0.25 m in one step of dt.
    for dt in [0.1_f32, 0.2] {
        let agent = agent_at(Vec2::ZERO, Vec2::ZERO, v(1.0, 0.0));
        let neighbor = neighbor_at(v(0.5, 0.0), Vec2::ZERO, 0.5, NeighborKind::Agent);
        let plane = orca_half_plane_disc(&agent, &neighbor, 10.0, dt);
        let required = -plane.signed_distance(Vec2::ZERO);
        let expected = (1.0 - 0.5 * SYMMETRY_BIAS.cos()) / (2.0 * dt);
        assert!(
            (required - expected).abs() < 1e-3,
            "{required} vs {expected}"
        );
        // Backwards, and turned to the agent's right (it faces +x).
        assert!(plane.normal().x < 0.0 && plane.normal().y < 0.0);
    }
}

#[test]
fn half_planes_of_head_on_agents_mirror_each_other_bit_for_bit() {
    let a = agent_at(v(-3.0, 0.0), Vec2::ZERO, v(1.0, 0.0));
    let b = agent_at(v(3.0, 0.0), Vec2::ZERO, v(-1.0, 0.0));
    let as_neighbor = |s: SteerAgent| Neighbor {
        position: s.position,
        velocity: s.velocity,
        radius: s.radius,
        preferred_velocity: s.preferred_velocity,
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let pa = orca_half_plane_disc(&a, &as_neighbor(b), 10.0, 0.1);
    let pb = orca_half_plane_disc(&b, &as_neighbor(a), 10.0, 0.1);
    assert_eq!(pa.point, -pb.point);
    assert_eq!(pa.direction, -pb.direction);
    // Each one turns to its own right: a (facing +x) downwards, b upwards.
    assert!(pa.normal().y < 0.0 && pb.normal().y > 0.0);
}

#[test]
fn half_plane_of_a_wall_ahead_limits_the_approach_speed() {
    // Wall along y = 2 with walkable space below (its left when running towards -x).
    let wall = Segment::new(v(5.0, 2.0), v(-5.0, 2.0));
    let agent = agent_at(Vec2::ZERO, v(0.0, 1.0), v(0.0, 1.0));
    let plane = orca_half_plane_segment(&agent, wall, 10.0, 0.1).expect("faces the agent");
    // Gap 1.5 over 10 s: at most 0.15 m/s towards it.
    assert_close(plane.normal(), -Vec2::Y, 1e-5);
    assert!(plane.signed_distance(v(0.7, 0.15)).abs() < 1e-5);
    assert!(!plane.contains(agent.velocity));
}

#[test]
fn half_plane_of_a_wall_end_is_round() {
    // The wall ends at (1, 2); heading straight at that end is excluded. The nearest way
    // out is around the end (the circle there), not along the wall.
    let wall = Segment::new(v(5.0, 2.0), v(1.0, 2.0));
    let towards_end = v(1.0, 2.0).normalize() * 1.5;
    let agent = agent_at(Vec2::ZERO, towards_end, towards_end);
    let plane = orca_half_plane_segment(&agent, wall, 10.0, 0.1).expect("faces the agent");
    assert!(!plane.contains(towards_end));
    assert!(plane.contains(v(-1.0, 1.0)));
    // Tangent to the end circle's cone: the normal is perpendicular to the tangent
    // from the agent, which passes 0.5 from the end.
    let n = plane.normal();
    assert!(n.x < 0.0 && n.y > 0.0, "{n}");
    let tangent = -n.perp();
    assert!((v(1.0, 2.0).perp_dot(tangent).abs() - 0.5).abs() < 1e-4);
}

#[test]
fn half_plane_of_an_overlapping_wall_pushes_out_gently() {
    let wall = Segment::new(v(5.0, 2.0), v(-5.0, 2.0));
    let agent = agent_at(v(0.0, 1.8), Vec2::ZERO, v(0.0, 1.0));
    let plane = orca_half_plane_segment(&agent, wall, 10.0, 0.1).expect("faces the agent");
    // Depth 0.3 in 0.1 s would be 3 m/s; capped at half the top speed.
    assert_close(plane.normal(), -Vec2::Y, 1e-5);
    assert!(plane.signed_distance(v(0.0, -0.75)).abs() < 1e-5);
}

#[test]
fn wall_seen_from_behind_is_ignored() {
    // Same line, walkable space above: the agent below sees its back.
    let wall = Segment::new(v(-5.0, 2.0), v(5.0, 2.0));
    let agent = agent_at(Vec2::ZERO, v(0.0, 1.0), v(0.0, 1.0));
    assert_eq!(orca_half_plane_segment(&agent, wall, 10.0, 0.1), None);
    let ctx = SteerContext {
        agent,
        neighbors: &[],
        walls: &[wall],
        dt: 0.1,
        opening: None,
    };
    assert_eq!(Orca::new(OrcaParams::rvo2()).steer(&ctx, None), v(0.0, 1.0));
}

// --- Filtering and debug -------------------------------------------------------------

#[test]
fn only_the_nearest_neighbours_within_range_count() {
    let params = OrcaParams {
        neighbor_dist: 5.0,
        max_neighbors: 2,
        ..OrcaParams::rvo2()
    };
    let agent = agent_at(Vec2::ZERO, v(1.0, 0.0), v(1.0, 0.0));
    // Given out of order: the caller may pass more and farther ones.
    let neighbors = [
        neighbor_at(v(4.0, 0.0), Vec2::ZERO, 0.5, NeighborKind::Agent),
        neighbor_at(v(9.0, 0.0), Vec2::ZERO, 0.5, NeighborKind::Agent),
        neighbor_at(v(0.0, 2.0), Vec2::ZERO, 0.5, NeighborKind::Agent),
        neighbor_at(v(0.0, -3.0), Vec2::ZERO, 0.5, NeighborKind::Agent),
    ];
    let ctx = SteerContext {
        agent,
        neighbors: &neighbors,
        walls: &[],
        dt: 0.1,
        opening: None,
    };
    let mut debug = SteerDebug::default();
    Orca::new(params).steer(&ctx, Some(&mut debug));
    let lines: Vec<_> = debug.of_kind(DebugKind::OrcaLine).collect();
    assert_eq!(lines.len(), 2);
    let expected = [
        orca_half_plane_disc(&agent, &neighbors[2], params.time_horizon, 0.1),
        orca_half_plane_disc(&agent, &neighbors[3], params.time_horizon, 0.1),
    ];
    for (line, plane) in lines.iter().zip(&expected) {
        assert_eq!((line.origin, line.vector), (plane.point, plane.direction));
    }
}

#[test]
fn walls_out_of_reach_are_skipped_and_debug_records_lines_preferred_and_final() {
    let agent = agent_at(Vec2::ZERO, v(0.0, 1.0), v(0.0, 1.0));
    // Reach: 10 s · 1.5 m/s + 0.5 m = 15.5 m.
    let walls = [
        Segment::new(v(5.0, 2.0), v(-5.0, 2.0)),
        Segment::new(v(5.0, 16.0), v(-5.0, 16.0)),
    ];
    let ctx = SteerContext {
        agent,
        neighbors: &[],
        walls: &walls,
        dt: 0.1,
        opening: None,
    };
    let mut debug = SteerDebug::default();
    let velocity = Orca::new(OrcaParams::rvo2()).steer(&ctx, Some(&mut debug));
    assert_eq!(debug.of_kind(DebugKind::OrcaLine).count(), 1);
    let preferred: Vec<_> = debug.of_kind(DebugKind::Preferred).collect();
    let last: Vec<_> = debug.of_kind(DebugKind::Final).collect();
    assert_eq!(preferred.len(), 1);
    assert_eq!(preferred[0].vector, v(0.0, 1.0));
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].vector, velocity);
    assert!((velocity.y - 0.15).abs() < 1e-5, "{velocity}");
}

#[test]
fn params_deserialize_with_every_field_optional() {
    let all: OrcaParams = serde_json::from_str("{}").expect("valid");
    assert_eq!(all, OrcaParams::default());
    let some: OrcaParams =
        serde_json::from_str(r#"{ "time_horizon": 5, "max_neighbors": 3 }"#).expect("valid");
    assert_eq!(
        some,
        OrcaParams {
            time_horizon: 5.0,
            max_neighbors: 3,
            ..OrcaParams::people()
        }
    );
}

#[test]
fn a_preset_fills_the_fields_left_out_and_unknown_ones_are_refused() {
    let rvo2: OrcaParams = serde_json::from_str(r#"{"preset": "rvo2"}"#).expect("valid");
    assert_eq!(rvo2, OrcaParams::rvo2());
    let people: OrcaParams = serde_json::from_str(r#"{"preset": "people"}"#).expect("valid");
    assert_eq!(people, OrcaParams::people());
    let tuned: OrcaParams =
        serde_json::from_str(r#"{"preset": "rvo2", "time_gap": 0.5}"#).expect("valid");
    assert_eq!(
        tuned,
        OrcaParams {
            time_gap: 0.5,
            ..OrcaParams::rvo2()
        }
    );
    // The head-on turn is the preset's unless given.
    assert_eq!(people.symmetry_bias, SYMMETRY_BIAS);
    assert_eq!(rvo2.symmetry_bias, RVO2_SYMMETRY_BIAS);
    let turned: OrcaParams =
        serde_json::from_str(r#"{"preset": "rvo2", "symmetry_bias": 0.1}"#).expect("valid");
    assert_eq!(
        turned,
        OrcaParams {
            symmetry_bias: 0.1,
            ..OrcaParams::rvo2()
        }
    );
    assert!(serde_json::from_str::<OrcaParams>(r#"{"preset": "ants"}"#).is_err());
    assert!(serde_json::from_str::<OrcaParams>(r#"{"horizon": 3}"#).is_err());
    // What is written reads back the same.
    let text = serde_json::to_string(&tuned).expect("serialises");
    assert_eq!(
        serde_json::from_str::<OrcaParams>(&text).expect("reads"),
        tuned
    );
}

/// The velocity `orca` gives `me` with `other` (an agent) as its only neighbour.
/// How its neighbours see the agent `a`.
fn seen_as_neighbor(a: &SteerAgent) -> Neighbor {
    Neighbor {
        position: a.position,
        velocity: a.velocity,
        radius: a.radius,
        preferred_velocity: a.preferred_velocity,
        kind: NeighborKind::Agent,
        same_destination: false,
    }
}

fn steer_pair(orca: &Orca, me: &SteerAgent, other: &SteerAgent) -> Vec2 {
    let seen = seen_as_neighbor(other);
    let ctx = SteerContext {
        agent: *me,
        neighbors: &[seen],
        walls: &[],
        dt: 0.05,
        opening: None,
    };
    orca.steer(&ctx, None)
}

/// Two agents walking the same way, one right behind the other: with priority the one
/// behind takes all of the avoidance and the one ahead none, so the one ahead walks on
/// as it wants while the one behind holds back; shared evenly (RVO2), the one ahead is
/// pushed forward too.
#[test]
fn the_agent_behind_yields_to_the_one_ahead() {
    let ahead = SteerAgent {
        position: v(0.6, 0.0),
        velocity: v(0.2, 0.0),
        radius: 0.25,
        max_speed: 1.5,
        preferred_velocity: v(0.2, 0.0),
        target: v(10.0, 0.0),
    };
    let behind = SteerAgent {
        position: v(0.0, 0.0),
        velocity: v(1.3, 0.0),
        preferred_velocity: v(1.3, 0.0),
        ..ahead
    };
    let people = Orca::new(OrcaParams {
        time_gap: 0.0,
        ..OrcaParams::people()
    });
    assert_eq!(
        steer_pair(&people, &ahead, &behind),
        ahead.preferred_velocity
    );
    let held = steer_pair(&people, &behind, &ahead);
    assert!(held.x < 1.0, "the one behind holds back: {held}");
    let even = Orca::new(OrcaParams {
        time_horizon: 3.0,
        ..OrcaParams::rvo2()
    });
    let pushed = steer_pair(&even, &ahead, &behind);
    assert!(
        pushed.x > ahead.preferred_velocity.x + 0.01,
        "shared evenly, pushed on: {pushed}"
    );
}

/// Someone standing still makes way for a passer-by coming straight at it: it takes all
/// of the avoidance and steps aside, and the passer-by walks on as it wants. (Taking a
/// tenth, people resting at their places in a dense block held those walking through
/// to theirs: crossings whose places were dealt out at random cleared within twice the
/// time alone on 2 of 8 seeds, 8 of 8 now.)
#[test]
fn someone_standing_makes_way_for_a_passer_by_who_walks_on() {
    let standing = SteerAgent {
        position: v(0.0, 0.0),
        velocity: Vec2::ZERO,
        radius: 0.25,
        max_speed: 1.5,
        preferred_velocity: Vec2::ZERO,
        target: v(0.0, 0.0),
    };
    let passer = SteerAgent {
        position: v(-1.2, 0.05),
        velocity: v(1.3, 0.0),
        preferred_velocity: v(1.3, 0.0),
        target: v(10.0, 0.05),
        ..standing
    };
    let people = Orca::new(OrcaParams::people());
    let stepped = steer_pair(&people, &standing, &passer);
    let walked = steer_pair(&people, &passer, &standing);
    assert!(
        stepped.y < -0.1,
        "the one standing steps aside, away from the passer-by's side: {stepped}"
    );
    assert_eq!(walked, passer.preferred_velocity, "the passer-by walks on");
}

/// Two people never queue behind each other: an agent whose vision turned it aside
/// still walks the way it wants to as its neighbours see it, and queues behind one of
/// them only when it would along both ways. (Four people in the exit of a 2.4 m door
/// stood still for 12 s: the first, turned to the right by its vision, queued behind the
/// one beside it, which queued behind the first.)
#[test]
fn two_people_never_queue_behind_each_other() {
    let first = SteerAgent {
        position: v(31.02, 15.95),
        velocity: Vec2::ZERO,
        radius: 0.25,
        max_speed: 1.34,
        preferred_velocity: v(1.17, 0.66),
        target: v(42.5, 25.5),
    };
    let second = SteerAgent {
        position: v(31.29, 15.50),
        preferred_velocity: v(0.85, 1.04),
        target: v(36.5, 25.5),
        ..first
    };
    let unit = |a: &SteerAgent| a.preferred_velocity.normalize();
    // The first's vision turned it nearly straight along x.
    let turned = v(1.32, 0.22).normalize();
    let free_first = free_distance(
        first,
        [seen_as_neighbor(&second)].iter(),
        (turned, unit(&first)),
        8.0,
        (1.0, 0.0, 0.0),
    );
    let free_second = free_distance(
        second,
        [seen_as_neighbor(&first)].iter(),
        (unit(&second), unit(&second)),
        8.0,
        (1.0, 0.0, 0.0),
    );
    assert!(
        free_second < 0.5,
        "the second queues behind the first: {free_second}"
    );
    assert_eq!(
        free_first, 8.0,
        "so the first does not queue behind the second"
    );
    // Along the turned way alone, the first would have queued behind the second.
    let along_turned = free_distance(
        first,
        [seen_as_neighbor(&second)].iter(),
        (turned, turned),
        8.0,
        (1.0, 0.0, 0.0),
    );
    assert!(along_turned < 0.5, "{along_turned}");
}

/// Someone ahead crossing the agent's way more steeply than 45° is passing, not
/// leading a queue; within 45° the agent queues behind it.
#[test]
fn someone_crossing_steeply_is_passing_not_leading_a_queue() {
    let me = SteerAgent {
        position: Vec2::ZERO,
        velocity: Vec2::ZERO,
        radius: 0.25,
        max_speed: 1.34,
        preferred_velocity: v(1.34, 0.0),
        target: v(10.0, 0.0),
    };
    let ahead = |degrees: f32| Neighbor {
        position: v(0.7, 0.0),
        velocity: Vec2::ZERO,
        radius: 0.25,
        preferred_velocity: Vec2::from_angle(degrees.to_radians()) * 1.34,
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let free =
        |n: Neighbor| free_distance(me, [n].iter(), (Vec2::X, Vec2::X), 8.0, (1.0, 0.0, 0.0));
    assert!(
        (free(ahead(30.0)) - 0.2).abs() < 1e-5,
        "{}",
        free(ahead(30.0))
    );
    assert!(
        (free(ahead(44.0)) - 0.2).abs() < 1e-5,
        "{}",
        free(ahead(44.0))
    );
    assert_eq!(free(ahead(46.0)), 8.0);
    assert_eq!(free(ahead(60.0)), 8.0);
}

/// Someone ahead in the agent's lane whose own velocity takes it out of the lane within
/// a second is no one to queue behind; someone stepping into the lane, or staying, is.
#[test]
fn someone_stepping_out_of_the_lane_is_not_queued_behind() {
    let me = SteerAgent {
        position: Vec2::ZERO,
        velocity: v(1.0, 0.0),
        radius: 0.25,
        max_speed: 1.34,
        preferred_velocity: v(1.34, 0.0),
        target: v(10.0, 0.0),
    };
    let ahead = |velocity: Vec2| Neighbor {
        position: v(0.7, 0.2),
        velocity,
        radius: 0.25,
        preferred_velocity: v(1.34, 0.0),
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let free =
        |n: Neighbor| free_distance(me, [n].iter(), (Vec2::X, Vec2::X), 8.0, (1.0, 0.0, 0.0));
    let queued = 0.7 - (0.5f32 * 0.5 - 0.2 * 0.2).sqrt();
    assert!((free(ahead(v(1.0, 0.0))) - queued).abs() < 1e-5);
    // Out by 0.31 m in the second: still in the band (0.5 m).
    assert!((free(ahead(v(1.0, 0.11))) - queued).abs() < 1e-5);
    assert_eq!(free(ahead(v(1.0, 0.6))), 8.0);
    // Across the lane to its other side within the second: still in the way now.
    assert!((free(ahead(v(1.0, -0.6))) - queued).abs() < 1e-5);
}

/// Someone at `(x, y)` walking east at 1.3 m/s (its preferred velocity too) to
/// `(10, y)`: radius 0.25 m, at most 1.5 m/s.
fn walking_east(x: f32, y: f32) -> SteerAgent {
    SteerAgent {
        position: v(x, y),
        velocity: v(1.3, 0.0),
        radius: 0.25,
        max_speed: 1.5,
        preferred_velocity: v(1.3, 0.0),
        target: v(10.0, y),
    }
}

/// A passage 1.2 m wide along x, from x = -1 to x = `end`.
fn passage_to(end: f32) -> [Segment; 2] {
    [
        Segment::new(v(end, 0.6), v(-1.0, 0.6)),
        Segment::new(v(-1.0, -0.6), v(end, -0.6)),
    ]
}

/// `agent`'s velocity by ORCA's people preset among `neighbors` and `walls` (no door
/// known, steps of 0.05 s).
fn steer_people(agent: SteerAgent, neighbors: &[Neighbor], walls: &[Segment]) -> Vec2 {
    Orca::new(OrcaParams::people()).steer(
        &SteerContext {
            agent,
            neighbors,
            walls,
            dt: 0.05,
            opening: None,
        },
        None,
    )
}

/// An agent queued behind another walking the same way walks no faster than the free
/// space ahead over the time gap; one that is not in its way does not slow it down.
/// (The queue is in a passage one person wide: in the open, held back so, it steps out
/// to pass, see `someone_held_behind_a_slow_walker_steps_out_into_a_free_lane`.)
#[test]
fn the_time_gap_slows_an_agent_to_the_free_space_ahead() {
    let me = walking_east(0.0, 0.0);
    let other = |x: f32, y: f32, preferred: Vec2| Neighbor {
        position: v(x, y),
        velocity: preferred,
        radius: 0.25,
        preferred_velocity: preferred,
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let orca = Orca::new(OrcaParams::people());
    let steer_among = |neighbors: &[Neighbor], walls: &[Segment]| {
        orca.steer(
            &SteerContext {
                agent: me,
                neighbors,
                walls,
                dt: 0.05,
                opening: None,
            },
            None,
        )
    };
    let steer = |neighbors: &[Neighbor]| steer_among(neighbors, &[]);
    // 0.2 m of free space ahead, a time gap of 0.3 s: at most 0.67 m/s. (In a passage a
    // few abreast the time gap is kept at the zipper's 1.4 contact distances, 0.7 m.)
    // The passage ends 0.6 m ahead, as the door of a wall a metre thick does: in one
    // that goes on, the one ahead walking on counts too (see
    // `in_a_passage_that_goes_on_a_follower_counts_its_leader_walking_on`).
    let passage = [
        Segment::new(v(0.6, 0.6), v(-1.0, 0.6)),
        Segment::new(v(-1.0, -0.6), v(0.6, -0.6)),
    ];
    let queued = steer_among(&[other(0.9, 0.0, v(1.0, 0.0))], &passage);
    assert!(queued.x <= 0.2 / 0.3 + 1e-4 && queued.x > 0.5, "{queued}");
    // Someone beside, or coming the other way, is not a queue.
    let free = steer(&[other(0.0, 1.0, v(1.0, 0.0))]);
    assert_eq!(free, me.preferred_velocity);
    let oncoming = steer(&[other(3.0, 0.0, v(-1.0, 0.0))]);
    assert!(oncoming.x > 1.0, "{oncoming}");
}

/// In a door, someone walking to the same destination as the agent counts walking on
/// (`SAME_DESTINATION_LEAD`): it will not stop in the agent's way, as the one ahead at
/// a door to places of their own turns off once through. The agent follows it closer
/// than someone walking elsewhere. In the open it makes no difference.
#[test]
fn in_a_door_someone_walking_to_the_same_destination_is_followed_closer() {
    let me = walking_east(0.0, 0.0);
    let ahead = |same_destination: bool| Neighbor {
        position: v(0.9, 0.0),
        velocity: v(1.0, 0.0),
        radius: 0.25,
        preferred_velocity: v(1.0, 0.0),
        kind: NeighborKind::Agent,
        same_destination,
    };
    let steer = |neighbor: Neighbor, walls: &[Segment]| steer_people(me, &[neighbor], walls);
    // The door of `the_time_gap_slows_an_agent_to_the_free_space_ahead`: 0.2 m free
    // ahead, the time gap 0.3 s.
    let door = passage_to(0.6);
    let elsewhere = steer(ahead(false), &door);
    assert!(elsewhere.x <= 0.2 / 0.3 + 1e-4, "{elsewhere}");
    // With the leader's 0.2 s at 1 m/s: 0.4 m free, up to 1.33 m/s, above its 1.3 (ORCA
    // itself, closing in at 0.3 m/s, holds it a little below).
    let same = steer(ahead(true), &door);
    assert!(same.x > 1.0, "{same}");
    assert_eq!(steer(ahead(true), &[]), steer(ahead(false), &[]));
}

/// In front of a door in a thin wall (shorter than `SHORT_DOOR`), the zipper holds
/// from `SHORT_DOOR` before the door's exit, where walls do not yet close in across the
/// way: someone ahead beside the agent, within the zipper's band, is someone it queues
/// behind. Further from the door, past it, at a door as long as a metre (where the
/// zipper holds inside, as in any passage), or with no door known, it walks on.
#[test]
fn in_front_of_a_short_door_people_walk_in_its_zipper() {
    let agent_at = |x: f32| walking_east(x, -0.3);
    // A door 1.2 m wide whose entry lies at x = 1 (posts at y = ±0.6), passed along +x.
    let door = |length: f32| Opening {
        entry: v(1.0, -0.6),
        across: v(0.0, 1.0),
        width: 1.2,
        through: v(1.0, 0.0),
        length,
    };
    // Ahead of the agent by 0.5 m, 0.6 m aside: past contact, within the band.
    let steer = |x: f32, opening: Option<Opening>| {
        let beside = Neighbor {
            position: v(x + 0.5, 0.3),
            velocity: v(1.3, 0.0),
            radius: 0.25,
            preferred_velocity: v(1.3, 0.0),
            kind: NeighborKind::Agent,
            same_destination: false,
        };
        Orca::default().steer(
            &SteerContext {
                agent: agent_at(x),
                neighbors: &[beside],
                walls: &[],
                dt: 0.05,
                opening,
            },
            None,
        )
    };
    // Held back, it steps out into the free lane on its other side (nothing walls it
    // in here), as in a wide passage: it no longer walks straight on at 1.3 m/s.
    let preferred = v(1.3, 0.0);
    for (what, velocity) in [
        // 0.3 m before a door 0.2 m long: within 0.6 m of its exit.
        ("0.3 m before the door", steer(0.7, Some(door(0.2)))),
        ("in the door", steer(1.1, Some(door(0.2)))),
    ] {
        assert!(velocity.distance(preferred) > 0.05, "{what}: {velocity}");
        assert!(velocity.y < -0.05, "{what}: steps out, {velocity}");
    }
    for (what, velocity) in [
        ("no door known", steer(0.7, None)),
        ("1 m before the door", steer(0.0, Some(door(0.2)))),
        ("past the door", steer(1.3, Some(door(0.2)))),
        ("before a door 1 m long", steer(0.7, Some(door(1.0)))),
    ] {
        assert!(velocity.distance(preferred) < 1e-3, "{what}: {velocity}");
    }
}

/// In a passage a few abreast that goes on at least `ANTICIPATION_REACH` ahead, someone
/// queued behind a neighbour counts that neighbour walking on over `ANTICIPATION`: it
/// keeps its time gap to where the other will be, not to where it is, and so does not
/// fall back to the time gap's pace behind someone walking at full speed. Behind
/// someone standing, where the passage ends within a metre (the door of a wall up to a
/// metre thick), or in the open, the time gap holds as before.
#[test]
fn in_a_passage_that_goes_on_a_follower_counts_its_leader_walking_on() {
    let me = walking_east(0.0, 0.0);
    // 0.9 m ahead in line, walking along at `speed`.
    let ahead = |speed: f32| Neighbor {
        position: v(0.9, 0.0),
        velocity: v(speed, 0.0),
        radius: 0.25,
        preferred_velocity: v(1.0, 0.0),
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let passage = passage_to;
    let steer = |neighbor: Neighbor, walls: &[Segment]| steer_people(me, &[neighbor], walls);
    // The zipper's contact is 0.7 m: 0.2 m free, at most 0.67 m/s over the 0.3 s gap.
    let limit = 0.2 / 0.3;
    // The passage goes on 9 m: 0.2 m and the other's 1 m/s over `ANTICIPATION`.
    let following = steer(ahead(1.0), &passage(10.0));
    assert!(following.x > limit + 0.3, "{following}");
    for (what, velocity) in [
        ("behind someone standing", steer(ahead(0.0), &passage(10.0))),
        (
            "the passage ends 0.6 m ahead",
            steer(ahead(1.0), &passage(0.6)),
        ),
    ] {
        assert!(velocity.x <= limit + 1e-4, "{what}: {velocity}");
    }
}

/// In a passage a few abreast (narrower than five diameters), an agent keeps its time
/// gap also to someone ahead beside it, within the zipper's band (a zipper of staggered
/// files); in a wider passage, in the open, or without a zipper, someone beside is no
/// queue.
#[test]
fn in_a_passage_a_few_wide_people_walk_in_a_zipper() {
    let me = walking_east(0.0, -0.3);
    // Ahead, 0.6 m aside: past contact (0.5 m), within the zipper's band (0.7 m);
    // walking as fast, so that the half-planes leave the agent free to slow down.
    let beside = Neighbor {
        position: v(0.5, 0.3),
        velocity: v(1.3, 0.0),
        radius: 0.25,
        preferred_velocity: v(1.3, 0.0),
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    // Walls along the way `half_width` either side of the passage's middle line y = 0
    // (walkable side on each wall's left), ending 0.6 m ahead of the agent: the door of
    // a wall a metre thick (in a passage that goes on, the one ahead walking on counts
    // too: see `in_a_passage_that_goes_on_a_follower_counts_its_leader_walking_on`).
    let passage = |half_width: f32| {
        [
            Segment::new(v(-5.0, -half_width), v(0.6, -half_width)),
            Segment::new(v(0.6, half_width), v(-5.0, half_width)),
        ]
    };
    let steer = |params: OrcaParams, walls: &[Segment]| {
        Orca::new(params).steer(
            &SteerContext {
                agent: me,
                neighbors: &[beside],
                walls,
                dt: 0.05,
                opening: None,
            },
            None,
        )
    };
    let people = OrcaParams::people();
    assert_eq!(people.zipper, PEOPLE_ZIPPER);
    // 1.2 m wide: the free space ahead is 0.5 − √(0.7² − 0.6²) = 0.139 m, over the
    // 0.3 s time gap at most 0.46 m/s.
    let limit = (0.5 - (0.7f32 * 0.7 - 0.36).sqrt()) / 0.3;
    let zipped = steer(people, &passage(0.6));
    assert!(zipped.x <= limit + 1e-3 && zipped.x > 0.3, "{zipped}");
    // 2.4 m wide: held back as much, but with a free lane on its other side it steps
    // out into it (see `someone_held_behind_a_slow_walker_steps_out_into_a_free_lane`).
    let stepped = steer(people, &passage(1.2));
    assert!(stepped.x > limit && stepped.y < 0.0, "{stepped}");
    // 2.6 m wide is more than five abreast; in the open there is no passage; a zipper
    // of 1 keeps the band at contact: walking on at 1.3 m/s in each case.
    for (what, velocity) in [
        ("five wide", steer(people, &passage(1.3))),
        ("open", steer(people, &[])),
        (
            "no zipper",
            steer(
                OrcaParams {
                    zipper: 1.0,
                    ..people
                },
                &passage(0.6),
            ),
        ),
    ] {
        assert!(velocity.x > 1.2, "{what}: {velocity}");
    }
}

/// Walking at a slant towards a door flush with a room's corner, the room's wall on
/// one side and the far side of the door's post across the way are no passage: the
/// post's side does not lie alongside the agent, and the zipper does not hold on the
/// open floor before the door (as before a door in a wall's middle). In the door,
/// between its two sides, the passage is the door's width.
#[test]
fn the_floor_before_a_door_in_a_corner_is_no_passage() {
    // The room's wall y = 1 runs on past the door; the door's post ends at x = 0, its
    // side y = 0 running on to x = 1: a door 1 m wide and 1 m long.
    let walls = [
        Segment::new(v(5.0, 1.0), v(-5.0, 1.0)),
        Segment::new(v(0.0, 0.0), v(1.0, 0.0)),
        Segment::new(v(0.0, -5.0), v(0.0, 0.0)),
    ];
    let limit = 2.5;
    // Before the door, heading for its far corner: 0.57 m to the room's wall on its
    // left; on its right the line runs into the door to the post's side, 0.85 m off,
    // which does not count.
    let slant = v(1.0, 1.0).normalize();
    let before = width_across(&walls, v(-0.3, 0.6), slant, limit);
    assert!(
        (before - (0.4 * std::f32::consts::SQRT_2 + limit)).abs() < 1e-4,
        "{before}"
    );
    // In the door, at a slant or straight through: its sides are alongside.
    let inside = width_across(&walls, v(0.5, 0.5), v(1.0, 0.0), limit);
    assert!((inside - 1.0).abs() < 1e-5, "{inside}");
    let slanted = width_across(&walls, v(0.5, 0.5), slant, limit);
    assert!(
        (slanted - std::f32::consts::SQRT_2).abs() < 1e-4,
        "{slanted}"
    );
}

// --- Behaviour in small simulations ----------------------------------------------------

#[test]
fn head_on_agents_swap_places_without_touching_or_deadlock() {
    let mut bodies = [
        Body::new(v(-5.0, 0.0), v(5.0, 0.0)),
        Body::new(v(5.0, 0.0), v(-5.0, 0.0)),
    ];
    let mut closest = f32::INFINITY;
    simulate(&mut bodies, &[], 400, 0.1, |b| {
        closest = closest.min(min_gap(b))
    });
    assert!(closest >= -1e-3, "overlap {closest}");
    for body in &bodies {
        assert!(body.position.distance(body.goal) < ARRIVED, "{body:?}");
    }
}

#[test]
fn head_on_agents_starting_at_rest_close_together_still_pass() {
    // At rest 0.1 m apart, face to face: braking alone would freeze them.
    let mut bodies = [
        Body::new(v(-0.55, 0.0), v(5.0, 0.0)),
        Body::new(v(0.55, 0.0), v(-5.0, 0.0)),
    ];
    let mut closest = f32::INFINITY;
    simulate(&mut bodies, &[], 600, 0.1, |b| {
        closest = closest.min(min_gap(b))
    });
    assert!(closest >= -1e-3, "overlap {closest}");
    for body in &bodies {
        assert!(body.position.distance(body.goal) < ARRIVED, "{body:?}");
    }
}

#[test]
fn four_agents_swapping_corners_all_arrive_without_overlap() {
    let corners = [v(5.0, 5.0), v(-5.0, 5.0), v(-5.0, -5.0), v(5.0, -5.0)];
    let mut bodies: Vec<Body> = corners.iter().map(|&c| Body::new(c, -c)).collect();
    let mut closest = f32::INFINITY;
    simulate(&mut bodies, &[], 600, 0.1, |b| {
        closest = closest.min(min_gap(b))
    });
    assert!(closest >= -1e-3, "overlap {closest}");
    for body in &bodies {
        assert!(body.position.distance(body.goal) < ARRIVED, "{body:?}");
    }
}

#[test]
fn agent_moving_toward_a_wall_stops_before_it() {
    let walls = [Segment::new(v(5.0, 2.0), v(-5.0, 2.0))];
    let mut bodies = [Body::new(v(0.3, 0.0), v(0.0, 10.0))];
    simulate(&mut bodies, &walls, 300, 0.1, |b| {
        // Never overlaps the wall, let alone crosses to its right side.
        assert!(b[0].position.y + b[0].radius <= 2.0 + 1e-4, "{:?}", b[0]);
    });
    assert!(
        bodies[0].position.y > 1.0,
        "it did approach: {:?}",
        bodies[0]
    );
}

#[test]
fn agent_sliding_into_a_wall_corner_stays_inside() {
    // A room corner: walls x = 2 (walkable on the left, x < 2) and y = 2.
    let walls = [
        Segment::new(v(2.0, -5.0), v(2.0, 2.0)),
        Segment::new(v(2.0, 2.0), v(-5.0, 2.0)),
    ];
    let mut bodies = [Body::new(Vec2::ZERO, v(10.0, 8.0))];
    simulate(&mut bodies, &walls, 300, 0.1, |b| {
        let p = b[0].position;
        assert!(p.x + 0.5 <= 2.0 + 1e-4 && p.y + 0.5 <= 2.0 + 1e-4, "{p}");
    });
}

#[test]
fn neighbour_cannot_push_an_agent_through_a_wall() {
    // A stands still just below the wall; B rushes up into it. A must yield sideways
    // or not at all, never through the wall.
    let walls = [Segment::new(v(5.0, 2.0), v(-5.0, 2.0))];
    let mut bodies = [
        Body::new(v(0.0, 1.4), v(0.0, 1.4)),
        Body {
            max_speed: 3.0,
            ..Body::new(v(0.0, -1.0), v(0.0, 5.0))
        },
    ];
    simulate(&mut bodies, &walls, 200, 0.1, |b| {
        for body in b {
            assert!(body.position.y + body.radius <= 2.0 + 1e-4, "{body:?}");
        }
    });
}

#[test]
fn agent_avoids_a_moving_obstacle_that_does_not_react() {
    // An obstacle crosses the agent's path from the left; it has right of way.
    let orca = Orca::new(OrcaParams::rvo2());
    let dt = 0.1;
    let mut agent = agent_at(v(-5.0, 0.0), Vec2::ZERO, Vec2::ZERO);
    let mut obstacle = neighbor_at(v(0.0, -5.0), v(0.0, 1.0), 1.0, NeighborKind::Obstacle);
    let goal = v(5.0, 0.0);
    let mut closest = f32::INFINITY;
    for _ in 0..400 {
        agent.preferred_velocity = (goal - agent.position).clamp_length_max(agent.max_speed);
        let ctx = SteerContext {
            agent,
            neighbors: &[obstacle],
            walls: &[],
            dt,
            opening: None,
        };
        agent.velocity = orca.steer(&ctx, None);
        agent.position += agent.velocity * dt;
        obstacle.position += obstacle.velocity * dt;
        closest = closest.min(agent.position.distance(obstacle.position) - 1.5);
    }
    assert!(closest >= -1e-3, "overlap {closest}");
    assert!(agent.position.distance(goal) < ARRIVED);
}

// --- Robustness and determinism ------------------------------------------------------

fn random_scene(rng: &mut ChaCha8Rng) -> (SteerAgent, Vec<Neighbor>, Vec<Segment>) {
    let mut point = |r: f32| v(rng.gen_range(-r..r), rng.gen_range(-r..r));
    let agent = agent_at(point(0.5), point(1.0), point(1.5));
    let mut neighbors: Vec<Neighbor> = (0..16)
        .map(|k| {
            let kind = if k % 5 == 0 {
                NeighborKind::Obstacle
            } else {
                NeighborKind::Agent
            };
            neighbor_at(point(4.0), point(1.0), 0.5, kind)
        })
        .collect();
    neighbors.sort_by(|a, b| {
        a.position
            .distance_squared(agent.position)
            .total_cmp(&b.position.distance_squared(agent.position))
    });
    let walls = (0..6)
        .map(|_| {
            let a = point(6.0);
            Segment::new(a, a + point(3.0))
        })
        .collect();
    (agent, neighbors, walls)
}

#[test]
fn steering_is_deterministic_and_independent_of_scratch_contents() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let orca = Orca::new(OrcaParams::rvo2());
    let mut dirty = OrcaScratch::new();
    for _ in 0..200 {
        let (agent, neighbors, walls) = random_scene(&mut rng);
        let ctx = SteerContext {
            agent,
            neighbors: &neighbors,
            walls: &walls,
            dt: 0.1,
            opening: None,
        };
        let first = orca.steer_with(&ctx, &mut OrcaScratch::new(), None);
        let again = orca.steer_with(&ctx, &mut dirty, None);
        let via_trait = orca.steer(&ctx, None);
        assert_eq!(
            first.to_array().map(f32::to_bits),
            again.to_array().map(f32::to_bits)
        );
        assert_eq!(
            first.to_array().map(f32::to_bits),
            via_trait.to_array().map(f32::to_bits)
        );
        assert!(first.is_finite() && first.length() <= agent.max_speed * (1.0 + 1e-6));
    }
}

#[test]
fn crowded_random_scenes_keep_every_facing_wall() {
    // However crowded, the chosen velocity keeps each wall's hard half-plane whenever
    // the walls alone leave room.
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
    let orca = Orca::new(OrcaParams::rvo2());
    let mut scratch = OrcaScratch::new();
    for _ in 0..300 {
        let (agent, neighbors, walls) = random_scene(&mut rng);
        let ctx = SteerContext {
            agent,
            neighbors: &neighbors,
            walls: &walls,
            dt: 0.1,
            opening: None,
        };
        let velocity = orca.steer_with(&ctx, &mut scratch, None);
        let planes: Vec<HalfPlane> = walls
            .iter()
            .filter_map(|&w| orca_half_plane_segment(&agent, w, 10.0, 0.1))
            .collect();
        let walls_alone = crate::steer::linear_program::linear_program_2d(
            &planes,
            agent.max_speed,
            crate::steer::linear_program::Objective::Closest(Vec2::ZERO),
        );
        if walls_alone.is_ok() {
            for plane in &planes {
                assert!(plane.signed_distance(velocity) >= -1e-4, "{velocity}");
            }
        }
    }
}

#[test]
fn degenerate_inputs_give_finite_bounded_velocities() {
    let orca = Orca::new(OrcaParams::rvo2());
    let base = agent_at(v(1.0, 1.0), v(0.5, 0.0), v(1.0, 0.0));
    let coincident = neighbor_at(v(1.0, 1.0), v(0.5, 0.0), 0.5, NeighborKind::Agent);
    let point_neighbor = neighbor_at(v(2.0, 1.0), Vec2::ZERO, 0.0, NeighborKind::Obstacle);
    let bad_neighbor = neighbor_at(v(f32::NAN, 1.0), Vec2::ZERO, 0.5, NeighborKind::Agent);
    let point_wall = Segment::new(v(1.0, 1.0), v(1.0, 1.0));
    let short_wall = Segment::new(v(1.5, 1.0), v(1.5, 1.0));
    let scenes: Vec<(SteerAgent, Vec<Neighbor>, Vec<Segment>, f32)> = vec![
        (base, vec![coincident], vec![], 0.1),
        (base, vec![coincident], vec![], 0.0),
        (base, vec![coincident], vec![], f32::NAN),
        (
            SteerAgent {
                radius: 0.0,
                ..base
            },
            vec![point_neighbor],
            vec![],
            0.1,
        ),
        (
            SteerAgent {
                radius: 0.0,
                ..base
            },
            vec![neighbor_at(
                v(1.0, 1.0),
                Vec2::ZERO,
                0.0,
                NeighborKind::Agent,
            )],
            vec![point_wall],
            0.1,
        ),
        (base, vec![], vec![point_wall, short_wall], 0.1),
        (base, vec![bad_neighbor, coincident], vec![short_wall], 0.0),
        (
            SteerAgent {
                max_speed: 0.0,
                ..base
            },
            vec![coincident],
            vec![],
            0.1,
        ),
        (
            SteerAgent {
                preferred_velocity: v(f32::INFINITY, 0.0),
                ..base
            },
            vec![coincident],
            vec![short_wall],
            0.1,
        ),
    ];
    for (agent, neighbors, walls, dt) in &scenes {
        let ctx = SteerContext {
            agent: *agent,
            neighbors,
            walls,
            dt: *dt,
            opening: None,
        };
        let velocity = orca.steer(&ctx, None);
        assert!(
            velocity.is_finite(),
            "{agent:?} {neighbors:?} {walls:?} {dt}"
        );
        assert!(velocity.length() <= agent.max_speed * (1.0 + 1e-6));
    }
}

#[test]
fn coincident_agents_split_apart() {
    // Same place, same velocity, opposite wishes: they move apart, not together.
    let a = agent_at(Vec2::ZERO, Vec2::ZERO, v(1.0, 0.0));
    let b = agent_at(Vec2::ZERO, Vec2::ZERO, v(-1.0, 0.0));
    let as_neighbor = |s: SteerAgent| Neighbor {
        position: s.position,
        velocity: s.velocity,
        radius: s.radius,
        preferred_velocity: s.preferred_velocity,
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let orca = Orca::new(OrcaParams::rvo2());
    let steer = |s: SteerAgent, other: SteerAgent| {
        let ctx = SteerContext {
            agent: s,
            neighbors: &[as_neighbor(other)],
            walls: &[],
            dt: 0.1,
            opening: None,
        };
        orca.steer(&ctx, None)
    };
    let (va, vb) = (steer(a, b), steer(b, a));
    assert_eq!(va, -vb);
    assert!(va != Vec2::ZERO);
}

#[test]
fn agents_on_a_circle_reach_the_opposite_side_without_overlap() {
    // RVO2's Circle example, smaller: 16 agents on a circle of radius 10, each heading
    // for the antipode, all meeting in the middle.
    let count = 16;
    let mut bodies: Vec<Body> = (0..count)
        .map(|k| {
            let p = Vec2::from_angle(k as f32 * std::f32::consts::TAU / count as f32) * 10.0;
            Body::new(p, -p)
        })
        .collect();
    let mut closest = f32::INFINITY;
    simulate(&mut bodies, &[], 500, 0.1, |b| {
        closest = closest.min(min_gap(b))
    });
    assert!(closest >= -1e-3, "overlap {closest}");
    for body in &bodies {
        assert!(body.position.distance(body.goal) < ARRIVED, "{body:?}");
    }
}

#[test]
fn agent_passes_the_corner_of_a_square_obstacle_without_entering_it() {
    // The square [-1, 1]² as walls in clockwise order, so that outside is on the left.
    let corners = [v(1.0, 1.0), v(1.0, -1.0), v(-1.0, -1.0), v(-1.0, 1.0)];
    let walls: Vec<Segment> = (0..4)
        .map(|k| Segment::new(corners[k], corners[(k + 1) % 4]))
        .collect();
    let mut bodies = [Body::new(v(-4.0, 1.6), v(4.0, 1.6))];
    simulate(&mut bodies, &walls, 300, 0.1, |b| {
        let p = b[0].position;
        let outside = (p.abs() - Vec2::ONE).max(Vec2::ZERO).length();
        assert!(outside >= b[0].radius - 1e-4, "{p}");
    });
    assert!(
        bodies[0].position.distance(bodies[0].goal) < ARRIVED,
        "{:?}",
        bodies[0]
    );
}

#[test]
fn agent_slides_along_a_wall_made_of_pieces_without_snagging() {
    // Walkable above y = 0; the goal lies on the wall line, so the preferred velocity
    // keeps pressing into it.
    let walls = [
        Segment::new(v(-6.0, 0.0), v(-2.0, 0.0)),
        Segment::new(v(-2.0, 0.0), v(2.0, 0.0)),
        Segment::new(v(2.0, 0.0), v(6.0, 0.0)),
    ];
    let mut bodies = [Body::new(v(-5.0, 0.6), v(5.0, 0.0))];
    simulate(&mut bodies, &walls, 150, 0.1, |b| {
        assert!(b[0].position.y >= b[0].radius - 1e-4, "{:?}", b[0]);
    });
    assert!(bodies[0].position.x > 4.5, "{:?}", bodies[0]);
}

#[test]
fn early_answer_matches_the_full_program_bit_for_bit() {
    // When every half-plane admits the preferred velocity, `steer_with` answers without
    // running the linear program: the answer must be the program's, bit for bit, and
    // the scenes must reach both branches.
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 7);
    let orca = Orca::new(OrcaParams::rvo2());
    let mut scratch = OrcaScratch::new();
    let mut projected = Vec::new();
    let (mut admitted, mut solved) = (0, 0);
    for round in 0..400 {
        let (mut agent, mut neighbors, mut walls) = random_scene(&mut rng);
        // In every other scene, nothing binds: no walls, and the neighbours move with
        // the agent, which keeps its velocity (outside every velocity obstacle: the
        // discs are apart). The other scenes keep their walls and conflicts.
        if round % 2 == 0 {
            walls.clear();
            agent.preferred_velocity = agent.velocity;
            for neighbor in &mut neighbors {
                neighbor.position = agent.position + (neighbor.position - agent.position) * 2.0;
                neighbor.velocity = agent.velocity;
            }
        }
        let ctx = SteerContext {
            agent,
            neighbors: &neighbors,
            walls: &walls,
            dt: 0.1,
            opening: None,
        };
        let fast = orca.steer_with(&ctx, &mut scratch, None);
        let mut hard = Vec::new();
        orca.wall_half_planes(&ctx, agent.max_speed, Vec2::ZERO, &mut hard);
        let preferred = clamp_speed(agent.preferred_velocity, agent.max_speed);
        let full = clamp_speed(
            solve_velocity(
                &scratch.planes,
                hard.len(),
                agent.max_speed,
                preferred,
                &mut projected,
            ),
            agent.max_speed,
        );
        assert_eq!(
            fast.to_array().map(f32::to_bits),
            full.to_array().map(f32::to_bits),
            "{ctx:?}"
        );
        if scratch.planes.iter().all(|plane| plane.contains(preferred)) {
            admitted += 1;
        } else {
            solved += 1;
        }
    }
    assert!(
        admitted > 50 && solved > 50,
        "{admitted} admitted, {solved} solved"
    );
}

#[test]
fn positive_finite_test_agrees_with_normalising() {
    // `is_positive_finite(|w|²)` stands for `Vec2::try_normalize(w).is_some()`.
    let tiny = f32::from_bits(1);
    for x in [
        0.0,
        -0.0,
        tiny,
        f32::MIN_POSITIVE,
        1.0e-30,
        0.5,
        1.0,
        3.0e38,
        f32::MAX,
        f32::INFINITY,
        -tiny,
        -1.0,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
    ] {
        let inverse = 1.0 / x.sqrt();
        let normalises = inverse.is_finite() && inverse > 0.0;
        assert_eq!(is_positive_finite(x), normalises, "{x:e}");
    }
}

#[test]
fn head_on_turns_hold_the_rounded_cosine_and_sine_of_their_bias() {
    // The people preset's turn, as it was before the bias became a parameter.
    let people = HeadOnTurn::new(SYMMETRY_BIAS);
    assert_eq!(people.rotation.x.to_bits(), 0x3f7f_ae19);
    assert_eq!(people.rotation.y.to_bits(), 0x3d4c_b6f5);
    assert_eq!(people.sin.to_bits(), SYMMETRY_BIAS.sin().to_bits());
    assert_eq!(HeadOnTurn::new(OrcaParams::people().symmetry_bias), people);
    for bias in [
        SYMMETRY_BIAS,
        RVO2_SYMMETRY_BIAS,
        0.01,
        0.1,
        0.5,
        MAX_SYMMETRY_BIAS,
    ] {
        let turn = HeadOnTurn::new(bias);
        let angle = f64::from(bias);
        assert_eq!(turn.angle, bias);
        assert_eq!(turn.rotation.x, angle.cos() as f32);
        assert_eq!(turn.rotation.y, angle.sin() as f32);
        // The head-on turn skips the arc cosine below this cosine: the angle is then at
        // least the bias.
        let below = f32::from_bits(turn.rotation.x.to_bits() - 1);
        assert!(below.acos() >= bias, "{bias}");
        assert!(turn.rotation.x.acos() <= bias * (1.0 + 1e-3), "{bias}");
    }
    // Out of range: no turn for NaN, zero or negative biases, at most a quarter turn.
    for (bias, angle) in [
        (f32::NAN, 0.0),
        (-0.1, 0.0),
        (0.0, 0.0),
        (f32::NEG_INFINITY, 0.0),
        (2.0, MAX_SYMMETRY_BIAS),
        (f32::INFINITY, MAX_SYMMETRY_BIAS),
    ] {
        let turn = HeadOnTurn::new(bias);
        assert_eq!(turn.angle, angle, "{bias}");
        assert!(turn.rotation.is_finite() && turn.sin.is_finite(), "{bias}");
    }
}

#[test]
fn a_changed_bias_is_used_though_orca_was_built_with_another() {
    // Two agents exactly head-on, slowed down (the cut-off arc binds): the turn decides
    // the side.
    let agent = agent_at(Vec2::ZERO, v(0.02, 0.0), v(1.0, 0.0));
    let neighbor = neighbor_at(v(2.0, 0.0), v(-0.02, 0.0), 0.5, NeighborKind::Agent);
    let ctx = SteerContext {
        agent,
        neighbors: &[neighbor],
        walls: &[],
        dt: 0.1,
        opening: None,
    };
    for bias in [0.05, 0.3] {
        let built = Orca::new(OrcaParams {
            symmetry_bias: bias,
            ..OrcaParams::rvo2()
        });
        let mut changed = Orca::new(OrcaParams::rvo2());
        changed.params.symmetry_bias = bias;
        assert_eq!(changed.steer(&ctx, None), built.steer(&ctx, None), "{bias}");
    }
    let turn = |bias| {
        Orca::new(OrcaParams {
            symmetry_bias: bias,
            ..OrcaParams::rvo2()
        })
        .steer(&ctx, None)
    };
    // A larger bias dodges further to the right; none leaves the agent braking only.
    assert!(turn(0.3).y < turn(0.05).y && turn(0.05).y < 0.0);
    assert_eq!(turn(0.0).y, 0.0);
}

/// What the scalar code does with one neighbour: the case the lanes must reproduce.
fn disc_case(
    agent: &SteerAgent,
    neighbor: &Neighbor,
    inv_tau: f32,
    turn: &HeadOnTurn,
    preferred: Vec2,
) -> &'static str {
    let relative_position = neighbor.position - agent.position;
    let relative_velocity = agent.velocity - neighbor.velocity;
    let radius = (agent.radius + neighbor.radius).max(0.0);
    let distance_squared = relative_position.length_squared();
    // Also when the distance is NaN.
    let apart = distance_squared > radius * radius;
    if !apart {
        return "overlap";
    }
    let boundary = closest_on_disc_velocity_obstacle(
        relative_position,
        distance_squared,
        radius,
        inv_tau,
        relative_velocity,
    );
    if boundary.piece != Piece::Arc {
        return "leg";
    }
    let share = match neighbor.kind {
        NeighborKind::Agent => 0.5,
        NeighborKind::Obstacle => 1.0,
    };
    let u = boundary.point - relative_velocity;
    let plane = HalfPlane::from_point_normal(agent.velocity + u * share, boundary.normal);
    let (built, _) = half_plane_disc(agent, neighbor, inv_tau, turn, 0.1, preferred, share);
    if built != plane {
        "turned"
    } else if !plane.contains(preferred) {
        "binding"
    } else {
        "arc"
    }
}

#[test]
fn four_lanes_give_the_scalar_half_planes_bit_for_bit() {
    // Random neighbours of every kind (arcs and legs, overlapping, exactly and nearly
    // head-on, binding arcs near the turning threshold, NaN, infinite, huge and tiny
    // numbers), in groups of 1 to 4 with the unused lanes holding other neighbours.
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 11);
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0e30,
        -1.0e-30,
        f32::from_bits(1),
        f32::MAX,
    ];
    let mut cases = std::collections::BTreeMap::<&str, usize>::new();
    let (mut non_finite, mut gated_count) = (0, 0);
    for round in 0..40_000 {
        let point = |rng: &mut ChaCha8Rng, r: f32| v(rng.gen_range(-r..r), rng.gen_range(-r..r));
        let mut agent = agent_at(
            point(&mut rng, 2.0),
            point(&mut rng, 1.5),
            point(&mut rng, 1.5),
        );
        agent.radius = [0.5, 0.3, 0.0, -0.2][rng.gen_range(0..4)];
        if rng.gen_bool(0.5) {
            agent.preferred_velocity = agent.velocity;
        }
        let inv_tau = 1.0 / [10.0, 2.0, 0.5, f32::INFINITY][rng.gen_range(0..4)];
        // Both presets' turns, none, and any other.
        let turn = HeadOnTurn::new(match rng.gen_range(0..5) {
            0 | 1 => SYMMETRY_BIAS,
            2 => RVO2_SYMMETRY_BIAS,
            3 => 0.0,
            _ => rng.gen_range(0.0..MAX_SYMMETRY_BIAS),
        });
        let count = 1 + round % 4;
        let mut neighbors = Vec::new();
        for _ in 0..4 {
            let kind = if rng.gen_bool(0.2) {
                NeighborKind::Obstacle
            } else {
                NeighborKind::Agent
            };
            let mut n = neighbor_at(
                agent.position + point(&mut rng, 5.0),
                point(&mut rng, 1.5),
                rng.gen_range(0.0..0.8),
                kind,
            );
            match rng.gen_range(0..10) {
                // Head-on along the axis, slightly off it, or exactly on it: binding arcs
                // with normals on both sides of the turning threshold.
                0..=2 => {
                    let direction = agent.velocity.normalize_or(Vec2::X);
                    let off = if rng.gen_bool(0.3) {
                        0.0
                    } else {
                        rng.gen_range(-0.08f32..0.08)
                    };
                    n.position = agent.position
                        + Vec2::from_angle(off).rotate(direction) * rng.gen_range(0.5..4.0);
                    n.velocity = -direction * rng.gen_range(0.0..1.5);
                }
                // Overlapping, or coincident.
                3 => {
                    n.position = agent.position + point(&mut rng, 0.3);
                    if rng.gen_bool(0.2) {
                        n.position = agent.position;
                    }
                }
                // A special number somewhere.
                4 => {
                    let x = specials[rng.gen_range(0..specials.len())];
                    match rng.gen_range(0..6) {
                        0 => n.position.x = x,
                        1 => n.position.y = x,
                        2 => n.velocity.x = x,
                        3 => n.velocity.y = x,
                        4 => n.radius = x,
                        _ => agent.radius = x,
                    }
                }
                // A binding arc whose normal lies about the turn's angle off the axis,
                // either side of the turning threshold.
                6 => {
                    let axis = (n.position - agent.position).normalize_or(Vec2::X);
                    let radius = (agent.radius + n.radius).max(0.0);
                    let angle = turn.sin.asin() * rng.gen_range(0.99..1.01);
                    let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                    let normal = Vec2::from_angle(angle * sign).rotate(-axis);
                    let relative_velocity = (n.position - agent.position) * inv_tau
                        + normal * (radius * inv_tau + rng.gen_range(0.01..0.5));
                    n.velocity = agent.velocity - relative_velocity;
                    agent.preferred_velocity = agent.velocity;
                }
                // Tiny or huge distances.
                5 => {
                    let scale = [1.0e-20, 1.0e-16, 1.0e18, 1.0e19][rng.gen_range(0..4)];
                    n.position = agent.position + point(&mut rng, 1.0) * scale;
                    n.radius *= scale;
                }
                _ => {}
            }
            neighbors.push(n);
        }
        let preferred = clamp_speed(agent.preferred_velocity, agent.max_speed);
        // Mostly nearest first, as a world hands them over.
        if rng.gen_bool(0.7) {
            let distance = |n: &Neighbor| n.position.distance_squared(agent.position);
            neighbors[..count].sort_by(|a, b| distance(a).total_cmp(&distance(b)));
        }
        let lanes = [&neighbors[0], &neighbors[1], &neighbors[2], &neighbors[3]];
        let own = lanes::Own {
            agent: &agent,
            inv_tau,
            turn: &turn,
            dt: 0.1,
            preferred,
        };
        let mut planes = vec![HalfPlane::from_point_normal(Vec2::ONE, Vec2::Y)];
        let admitted = lanes::half_planes_of_four(own, &lanes, count, &mut planes);
        // The same after the range and order check, which passes exactly when the
        // scalar check would.
        let range_squared = [f32::INFINITY, 16.0, 4.0][rng.gen_range(0..3)];
        let mut previous = [0.0, 0.5, 2.0][rng.gen_range(0..3)];
        let gate = (range_squared, previous);
        let mut in_order = true;
        for neighbor in &neighbors[..count] {
            let distance_squared = neighbor.position.distance_squared(agent.position);
            in_order &= distance_squared < range_squared && distance_squared >= previous;
            previous = distance_squared;
        }
        let mut gated_planes = vec![HalfPlane::from_point_normal(Vec2::ONE, Vec2::Y)];
        let gated =
            lanes::half_planes_of_four_in_order(own, &lanes, count, &mut gated_planes, gate);
        if in_order {
            assert_eq!(
                gated.map(|(_, last)| last.to_bits()),
                Some(previous.to_bits())
            );
            assert_eq!(gated.map(|(admits, _)| admits), Some(admitted));
            let bits =
                |p: &HalfPlane| [p.point, p.direction].map(|v| v.to_array().map(f32::to_bits));
            assert!(gated_planes.iter().map(bits).eq(planes.iter().map(bits)));
            gated_count += 1;
        } else {
            assert_eq!(gated, None);
            assert_eq!(gated_planes.len(), 1);
        }

        let mut expected = vec![HalfPlane::from_point_normal(Vec2::ONE, Vec2::Y)];
        let mut expected_admitted = true;
        for neighbor in &neighbors[..count] {
            let (plane, admits) = half_plane_disc(
                &agent,
                neighbor,
                inv_tau,
                &turn,
                0.1,
                preferred,
                reciprocal_share(neighbor),
            );
            *cases
                .entry(disc_case(&agent, neighbor, inv_tau, &turn, preferred))
                .or_default() += 1;
            if is_finite(&plane) {
                expected.push(plane);
                expected_admitted &= admits;
            } else {
                non_finite += 1;
            }
        }
        let bits = |planes: &[HalfPlane]| -> Vec<[u32; 4]> {
            planes
                .iter()
                .map(|p| [p.point.x, p.point.y, p.direction.x, p.direction.y].map(f32::to_bits))
                .collect()
        };
        assert_eq!(
            bits(&planes),
            bits(&expected),
            "{agent:?} {:?}",
            &neighbors[..count]
        );
        assert_eq!(
            admitted,
            expected_admitted,
            "{agent:?} {:?}",
            &neighbors[..count]
        );
    }
    for case in ["overlap", "leg", "arc", "binding", "turned"] {
        assert!(
            cases.get(case).copied().unwrap_or(0) > 200,
            "{case}: {cases:?}"
        );
    }
    // Coverage floors: the comparisons above mean something only if many random cases
    // reached each branch (non-finite inputs, gated in-range cases).
    assert!(non_finite > 100, "{non_finite} non-finite");
    assert!(gated_count > 5_000, "{gated_count} in range and in order");
}

#[test]
fn neighbour_half_planes_are_the_scalar_ones_of_the_nearest_in_range() {
    // Whatever the order of the neighbours (nearest first, nearly so, or shuffled), the
    // range and the count kept, `steer_with` builds the half-planes of the nearest
    // `max_neighbors` in range, in `select_neighbors`' order, each bit for bit as
    // `half_plane_disc` gives it.
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 13);
    let mut scratch = OrcaScratch::new();
    let mut nearest = Vec::new();
    let (mut in_order, mut reordered) = (0, 0);
    for round in 0..2_000 {
        let (agent, mut neighbors, _) = random_scene(&mut rng);
        neighbors.truncate(rng.gen_range(0..=neighbors.len()));
        match round % 4 {
            0 => {}
            1 => {
                let (i, j) = (
                    rng.gen_range(0..neighbors.len().max(1)),
                    rng.gen_range(0..neighbors.len().max(1)),
                );
                if i < neighbors.len() && j < neighbors.len() {
                    neighbors.swap(i, j);
                }
            }
            2 => {
                for k in (1..neighbors.len()).rev() {
                    neighbors.swap(k, rng.gen_range(0..=k));
                }
            }
            _ => {
                if let Some(n) = neighbors.first_mut() {
                    n.position.x = f32::NAN;
                }
            }
        }
        let orca = Orca::new(OrcaParams {
            neighbor_dist: [15.0, 3.0, 2.0, 0.0][rng.gen_range(0..4)],
            max_neighbors: rng.gen_range(0..12),
            symmetry_bias: [RVO2_SYMMETRY_BIAS, SYMMETRY_BIAS, 0.0][rng.gen_range(0..3)],
            ..OrcaParams::rvo2()
        });
        let ctx = SteerContext {
            agent,
            neighbors: &neighbors,
            walls: &[],
            dt: 0.1,
            opening: None,
        };
        orca.steer_with(&ctx, &mut scratch, None);

        let preferred = clamp_speed(agent.preferred_velocity, agent.max_speed);
        let inv_tau = 1.0 / orca.params.time_horizon.max(MIN_TIME);
        select_neighbors(
            &ctx,
            orca.params.neighbor_dist,
            orca.params.max_neighbors,
            &mut nearest,
        );
        let expected: Vec<HalfPlane> = nearest
            .iter()
            .map(|&(_, index)| {
                half_plane_disc(
                    &agent,
                    &neighbors[index],
                    inv_tau,
                    &orca.turn(),
                    0.1,
                    preferred,
                    reciprocal_share(&neighbors[index]),
                )
                .0
            })
            .filter(is_finite)
            .collect();
        let bits = |p: &HalfPlane| [p.point, p.direction].map(|v| v.to_array().map(f32::to_bits));
        assert!(
            scratch
                .planes
                .iter()
                .map(bits)
                .eq(expected.iter().map(bits)),
            "{ctx:?}"
        );
        let mut planes = Vec::new();
        match orca.neighbor_half_planes_in_order(
            &ctx,
            inv_tau,
            &orca.turn(),
            preferred,
            &mut planes,
        ) {
            Some(_) => in_order += 1,
            None => reordered += 1,
        }
    }
    assert!(
        in_order > 300 && reordered > 300,
        "{in_order} in order, {reordered} not"
    );
}

/// Someone walking against the flow of its neighbours takes more of the avoidance of
/// those it meets head-on than when it shares evenly; walking with the flow, nothing
/// changes.
#[test]
fn walking_against_the_flow_gives_way() {
    let me = SteerAgent {
        position: v(0.0, 0.0),
        velocity: v(1.0, 0.0),
        radius: 0.25,
        max_speed: 1.5,
        preferred_velocity: v(1.0, 0.0),
        target: v(10.0, 0.0),
    };
    let walker = |x: f32, y: f32, way: f32| Neighbor {
        position: v(x, y),
        velocity: v(way, 0.0),
        radius: 0.25,
        preferred_velocity: v(way, 0.0),
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    // One coming head-on, slightly off the axis, in a stream coming the other way.
    let oncoming = walker(1.5, 0.1, -1.0);
    let stream = [oncoming, walker(2.5, 0.8, -1.0), walker(2.5, -0.8, -1.0)];
    let alone = [oncoming, walker(-2.5, 0.8, 1.0), walker(-2.5, -0.8, 1.0)];
    let steer = |params: OrcaParams, neighbors: &[Neighbor]| {
        Orca::new(params).steer(
            &SteerContext {
                agent: me,
                neighbors,
                walls: &[],
                dt: 0.05,
                opening: None,
            },
            None,
        )
    };
    let off = OrcaParams::people();
    let on = OrcaParams {
        yield_to_flow: 1.0,
        ..OrcaParams::people()
    };
    // With its own stream behind it, nothing changes.
    assert_eq!(steer(on, &alone), steer(off, &alone));
    // Against the stream it changes its velocity more than when it shares evenly.
    let yielding = steer(on, &stream);
    let sharing = steer(off, &stream);
    let change = |v: Vec2| v.distance(me.preferred_velocity);
    assert!(
        change(yielding) > change(sharing) + 1e-3,
        "gives way more: {yielding} against {sharing}"
    );
}

/// Someone held back 0.6 m behind a slow walker a little to its left, in the open.
/// (Stepping 20° to the right, the walker leaves its lane within a second.)
fn held_behind_a_slow_walker() -> (SteerAgent, Vec<Neighbor>) {
    let me = SteerAgent {
        position: Vec2::ZERO,
        velocity: v(0.3, 0.0),
        radius: 0.25,
        max_speed: 1.34,
        preferred_velocity: v(1.34, 0.0),
        target: v(20.0, 0.0),
    };
    let ahead = Neighbor {
        position: v(0.6, 0.3),
        velocity: v(0.3, 0.0),
        radius: 0.25,
        preferred_velocity: v(1.34, 0.0),
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    (me, vec![ahead])
}

/// The time gap's velocity for `me` among `neighbors` and `walls`, people's preset.
fn time_gap_velocity(me: SteerAgent, neighbors: &[Neighbor], walls: &[Segment]) -> Vec2 {
    time_gap_velocity_stepping_out(me, neighbors, walls, true)
}

/// [`time_gap_velocity`], stepping out of a queue allowed or not.
fn time_gap_velocity_stepping_out(
    me: SteerAgent,
    neighbors: &[Neighbor],
    walls: &[Segment],
    step_out: bool,
) -> Vec2 {
    let ctx = SteerContext {
        agent: me,
        neighbors,
        walls,
        dt: 0.05,
        opening: None,
    };
    let people = Orca::new(OrcaParams::people());
    people.keep_time_gap(&ctx, neighbors.iter(), me.preferred_velocity, step_out)
}

/// The pace of `me` queued behind `neighbors` in the open: the free space ahead along
/// its way over the time gap.
fn queue_pace(me: SteerAgent, neighbors: &[Neighbor]) -> f32 {
    let way = me.preferred_velocity.normalize();
    free_distance(me, neighbors.iter(), (way, way), 5.0, (1.0, 0.0, 0.0))
        / OrcaParams::people().time_gap
}

/// Held back behind a slow walker with a free lane beside it, someone steps out into
/// the lane, turned by 5–20° to the walker's free side, and walks there faster than
/// the queue would let it. (People leaving a door for places on one side merged into
/// one file behind it, and the file held the door.)
#[test]
fn someone_held_behind_a_slow_walker_steps_out_into_a_free_lane() {
    let (me, ahead) = held_behind_a_slow_walker();
    let queued = queue_pace(me, &ahead);
    assert!(queued < 0.7, "held back: {queued}");
    let stepped = time_gap_velocity(me, &ahead, &[]);
    let turned = -stepped.y.atan2(stepped.x);
    assert!(
        (4.9f32.to_radians()..=20.1f32.to_radians()).contains(&turned),
        "turned to the right by {turned} rad: {stepped}"
    );
    assert!(
        stepped.length() > 2.0 * queued,
        "faster than the queue's {queued}: {stepped}"
    );
}

/// Someone held back does not step out into a wall, nor into a gap of a packed crowd
/// (no lane free for 2 m), nor when turned to pass people crossing its way: it keeps
/// its place in the queue, along its way at the queue's pace.
#[test]
fn someone_held_beside_a_wall_or_in_a_crowd_keeps_its_place_in_the_queue() {
    let (me, ahead) = held_behind_a_slow_walker();
    let queued = queue_pace(me, &ahead);
    let wall = [Segment::new(v(-1.0, -0.45), v(10.0, -0.45))];
    assert_eq!(time_gap_velocity(me, &ahead, &wall), v(queued, 0.0));
    let mut crowd = ahead.clone();
    for x in [0.9, 1.5] {
        for y in [-0.4, 0.2] {
            crowd.push(Neighbor {
                position: v(x, y),
                ..ahead[0]
            });
        }
    }
    assert_eq!(time_gap_velocity(me, &crowd, &[]), v(queued, 0.0));
    // Nor when its vision turned it to pass people crossing its way: stepping out would
    // take it back into their stream.
    assert_eq!(
        time_gap_velocity_stepping_out(me, &ahead, &[], false),
        v(queued, 0.0)
    );
}

/// Two people held at the two posts of a door one person wide, each heading round its
/// post across the door: one of them yields entirely and the other takes none, by the
/// rule of the right, so that one goes first. Before, each took half and both stood
/// until turning aside freed them (7–15 s on a 1 m door). Two meeting head-on, or
/// walking, share as before.
#[test]
fn two_people_standing_off_at_a_narrow_door_let_one_go_first() {
    let lower = SteerAgent {
        position: v(29.75, 14.5),
        velocity: Vec2::ZERO,
        radius: 0.25,
        max_speed: 1.34,
        preferred_velocity: v(0.43, 1.27),
        target: v(30.0, 15.0),
    };
    let upper = SteerAgent {
        position: v(29.75, 15.51),
        preferred_velocity: v(0.50, -1.24),
        target: v(30.0, 15.0),
        ..lower
    };
    let share = |a: &SteerAgent, b: &SteerAgent| {
        let heading = a.preferred_velocity.normalize_or_zero();
        priority_share(
            a,
            heading,
            &seen_as_neighbor(b),
            OrcaParams::people().priority,
        )
    };
    let (lower_share, upper_share) = (share(&lower, &upper), share(&upper, &lower));
    assert_eq!(lower_share + upper_share, 1.0);
    assert!(
        lower_share == 1.0 || upper_share == 1.0,
        "{lower_share} {upper_share}"
    );
    // Head-on, in a lane: no one yields by the rule.
    let facing = SteerAgent {
        preferred_velocity: v(0.0, -1.34),
        ..upper
    };
    let lower_straight = SteerAgent {
        position: v(29.75, 14.5),
        preferred_velocity: v(0.0, 1.34),
        ..lower
    };
    assert_eq!(share(&lower_straight, &facing), 0.5);
    // Walking, they share as before.
    let walking = |a: &SteerAgent| SteerAgent {
        velocity: a.preferred_velocity,
        ..*a
    };
    let (a, b) = (walking(&lower), walking(&upper));
    assert!(
        share(&a, &b) > 0.0 && share(&a, &b) < 1.0,
        "{}",
        share(&a, &b)
    );
}
