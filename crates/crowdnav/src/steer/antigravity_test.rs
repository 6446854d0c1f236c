//! Each part of the seed is shown on the situation its post describes, by simulating a
//! few seconds with a tiny fixed-step integrator (no world exists here).

use super::*;
use crate::steer::{DebugKind, NeighborKind, SteerAgent};

const DT: f32 = 1.0 / 60.0;
/// An agent this close to its goal has arrived.
const ARRIVED: f32 = 0.05;

/// A disc in the test scene: a steering agent, or a scripted obstacle moving at a
/// constant velocity.
#[derive(Clone, Copy, Debug)]
struct Body {
    position: Vec2,
    velocity: Vec2,
    radius: f32,
    /// Cruise speed of an agent, metres per second.
    speed: f32,
    goal: Vec2,
    steers: bool,
}

impl Body {
    fn agent(position: Vec2, goal: Vec2, radius: f32, speed: f32) -> Self {
        let velocity = (goal - position).normalize_or_zero() * speed;
        Self {
            position,
            velocity,
            radius,
            speed,
            goal,
            steers: true,
        }
    }

    fn obstacle(position: Vec2, velocity: Vec2, radius: f32) -> Self {
        Self {
            position,
            velocity,
            radius,
            speed: velocity.length(),
            goal: position,
            steers: false,
        }
    }

    fn preferred_velocity(&self) -> Vec2 {
        if !self.steers {
            return self.velocity;
        }
        let to_goal = self.goal - self.position;
        let distance = to_goal.length();
        if distance < ARRIVED {
            return Vec2::ZERO;
        }
        to_goal / distance * self.speed.min(distance / DT)
    }
}

/// What a run did: every body's position at every step, and the smallest gap between
/// two bodies' surfaces (negative for contact).
struct Trace {
    steps: Vec<Vec<Vec2>>,
    min_gap: f32,
}

impl Trace {
    fn path(&self, body: usize) -> impl Iterator<Item = Vec2> + '_ {
        self.steps.iter().map(move |s| s[body])
    }
}

/// Steps the scene for `seconds`: every agent steers from the same old state, then all
/// move (`position += velocity · dt`).
fn simulate(steering: &AntiGravity, bodies: &mut [Body], walls: &[Segment], seconds: f32) -> Trace {
    let mut trace = Trace {
        steps: Vec::new(),
        min_gap: f32::INFINITY,
    };
    let steps = (seconds / DT).round() as usize;
    for _ in 0..steps {
        let velocities: Vec<Vec2> = (0..bodies.len())
            .map(|i| steer_one(steering, bodies, walls, i, None))
            .collect();
        for (b, v) in bodies.iter_mut().zip(velocities) {
            assert!(v.is_finite());
            assert!(!b.steers || v.length() <= b.speed + 1e-4);
            b.velocity = v;
            b.position += v * DT;
        }
        for (i, a) in bodies.iter().enumerate() {
            for b in bodies[i + 1..].iter().filter(|b| a.steers || b.steers) {
                let gap = a.position.distance(b.position) - a.radius - b.radius;
                trace.min_gap = trace.min_gap.min(gap);
            }
        }
        trace
            .steps
            .push(bodies.iter().map(|b| b.position).collect());
    }
    trace
}

/// Body `i`'s new velocity (unchanged for an obstacle).
fn steer_one(
    steering: &AntiGravity,
    bodies: &[Body],
    walls: &[Segment],
    i: usize,
    debug: Option<&mut SteerDebug>,
) -> Vec2 {
    let me = bodies[i];
    if !me.steers {
        return me.velocity;
    }
    let mut neighbors: Vec<Neighbor> = bodies
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != i)
        .map(|(_, b)| Neighbor {
            position: b.position,
            velocity: b.velocity,
            radius: b.radius,
            preferred_velocity: b.preferred_velocity(),
            kind: if b.steers {
                NeighborKind::Agent
            } else {
                NeighborKind::Obstacle
            },
            same_destination: false,
        })
        .collect();
    neighbors.sort_by(|a, b| {
        let da = a.position.distance_squared(me.position);
        let db = b.position.distance_squared(me.position);
        da.total_cmp(&db)
    });
    let ctx = SteerContext {
        agent: SteerAgent {
            position: me.position,
            velocity: me.velocity,
            radius: me.radius,
            max_speed: me.speed,
            preferred_velocity: me.preferred_velocity(),
            target: me.goal,
        },
        neighbors: &neighbors,
        walls,
        dt: DT,
        opening: None,
    };
    steering.steer(&ctx, debug)
}

fn arrived(body: &Body) -> bool {
    body.position.distance(body.goal) < 2.0 * ARRIVED
}

fn with(params: AntiGravityParams) -> AntiGravity {
    AntiGravity::new(params)
}

fn parts(pick_side: bool, resolve_symmetric: bool, moving_obstacles: bool) -> AntiGravity {
    with(AntiGravityParams {
        pick_side,
        resolve_symmetric,
        moving_obstacles,
        ..AntiGravityParams::default()
    })
}

// ---- Part 1: the cardioid -------------------------------------------------------

#[test]
fn an_obstacle_behind_does_not_push_but_one_ahead_does() {
    let obstacle = Body::obstacle(Vec2::ZERO, Vec2::ZERO, 0.5);
    let lane = 0.6;
    let deviation = |steering: &AntiGravity, start_x: f32| {
        let agent = Body::agent(Vec2::new(start_x, lane), Vec2::new(10.0, lane), 0.5, 2.0);
        let mut bodies = [agent, obstacle];
        let trace = simulate(steering, &mut bodies, &[], 10.0);
        assert!(arrived(&bodies[0]));
        trace
            .path(0)
            .map(|p| (p.y - lane).abs())
            .fold(0.0_f32, f32::max)
    };
    let cardioid = AntiGravity::default();
    let circle = with(AntiGravityParams {
        cardioid_power: 0.0,
        ..AntiGravityParams::default()
    });
    // Just past the obstacle, heading away: the cardioid ignores it, a circle pushes.
    assert!(deviation(&cardioid, 1.2) < 1e-3);
    // A regression guard: a clear push, fifty times the cardioid's 1e-3. Measured: 0.186.
    assert!(deviation(&circle, 1.2) > 0.05);
    // Obstacle ahead: the agent is pushed off its line.
    assert!(deviation(&cardioid, -4.0) > 0.1);
}

#[test]
fn with_the_cardioid_the_path_straightens_once_the_obstacle_is_passed() {
    // Heading along y = 0.6 past an obstacle at the origin towards a far goal: right
    // after passing, the circle still pushes the agent away (it keeps climbing), the
    // cardioid has already let go (it heads back towards its line).
    let climb_after_passing = |steering: &AntiGravity| {
        let agent = Body::agent(Vec2::new(-4.0, 0.6), Vec2::new(40.0, 0.6), 0.5, 2.0);
        let mut bodies = [agent, Body::obstacle(Vec2::ZERO, Vec2::ZERO, 0.5)];
        let mut climb = 0.0;
        for _ in 0..600 {
            simulate(steering, &mut bodies, &[], DT);
            if bodies[0].position.x > 1.5 {
                climb = bodies[0].velocity.y;
                break;
            }
        }
        climb
    };
    let circle = with(AntiGravityParams {
        cardioid_power: 0.0,
        ..AntiGravityParams::default()
    });
    // A regression guard: a clear climb, not rounding. Measured: 0.319.
    assert!(climb_after_passing(&circle) > 0.05);
    assert!(climb_after_passing(&AntiGravity::default()) < 0.0);
}

// ---- Part 2: choosing left or right ---------------------------------------------

fn dead_ahead() -> [Body; 2] {
    [
        Body::agent(Vec2::ZERO, Vec2::new(10.0, 0.0), 0.5, 2.0),
        Body::obstacle(Vec2::new(5.0, 0.0), Vec2::ZERO, 0.5),
    ]
}

#[test]
fn an_obstacle_dead_ahead_stalls_the_agent_without_part_two() {
    let mut bodies = dead_ahead();
    let trace = simulate(&parts(false, false, false), &mut bodies, &[], 15.0);
    assert!(!arrived(&bodies[0]));
    assert!(trace.min_gap > 0.0);
    // Pull and push balance: over the last five seconds it hovers in front of the
    // obstacle, exactly on its line.
    let late: Vec<Vec2> = trace.path(0).skip(600).collect();
    assert!(late.iter().all(|p| p.y == 0.0));
    // Short of contact at x = 4 (radii 0.5 + 0.5 from the obstacle at 5). Measured: 3.27 to 3.30.
    assert!(late.iter().all(|p| (3.0..3.5).contains(&p.x)));
}

#[test]
fn picking_a_side_passes_an_obstacle_dead_ahead_and_arrives() {
    for steering in [parts(true, false, false), AntiGravity::default()] {
        let mut bodies = dead_ahead();
        let trace = simulate(&steering, &mut bodies, &[], 10.0);
        assert!(arrived(&bodies[0]));
        assert!(trace.min_gap > 0.0);
        // An exact tie goes right: below the obstacle in a y-up frame.
        // Beside the obstacle without contact, |y| is about the radii's 1 m: -0.5 tells
        // the side with room to spare. Measured: -1.62 and -1.68.
        let beside = trace.path(0).find(|p| p.x >= 5.0).unwrap_or(Vec2::NAN);
        assert!(beside.y < -0.5);
    }
}

// ---- Part 3: symmetric obstacles ------------------------------------------------

fn gate() -> [Body; 3] {
    // Two small obstacles side by side, touching on the path, as in the post's picture:
    // together they block it, and they are exactly the same distance from it.
    [
        Body::agent(Vec2::ZERO, Vec2::new(12.0, 0.0), 0.5, 2.0),
        Body::obstacle(Vec2::new(6.0, 0.3), Vec2::ZERO, 0.3),
        Body::obstacle(Vec2::new(6.0, -0.3), Vec2::ZERO, 0.3),
    ]
}

#[test]
fn symmetric_obstacles_cancel_and_stall_the_agent_without_part_three() {
    let steering = parts(true, false, false);
    let mut bodies = gate();
    // The adjusted (blue) pushes are mirror images: their sideways parts cancel.
    bodies[0].position.x = 4.0;
    let mut debug = SteerDebug::default();
    let v = steer_one(&steering, &bodies, &[], 0, Some(&mut debug));
    let blue: Vec<Vec2> = debug
        .of_kind(DebugKind::Adjusted)
        .map(|d| d.vector)
        .collect();
    assert_eq!(blue.len(), 2);
    assert!(blue[0].y != 0.0);
    assert_eq!(blue[0].y + blue[1].y, 0.0);
    assert_eq!(v.y, 0.0);

    let mut bodies = gate();
    let trace = simulate(&steering, &mut bodies, &[], 10.0);
    assert!(!arrived(&bodies[0]));
    assert!(trace.min_gap > 0.0);
    assert!(trace.path(0).all(|p| p.y == 0.0 && p.x < 5.0));
}

#[test]
fn summing_before_adjusting_takes_the_agent_round_symmetric_obstacles() {
    let mut bodies = gate();
    bodies[0].position.x = 4.0;
    let mut debug = SteerDebug::default();
    let v = steer_one(&AntiGravity::default(), &bodies, &[], 0, Some(&mut debug));
    // The yellow sum points straight back; the choice goes right.
    let yellow: Vec<Vec2> = debug.of_kind(DebugKind::Sum).map(|d| d.vector).collect();
    assert_eq!(yellow.len(), 1);
    assert!(yellow[0].x < 0.0 && yellow[0].y == 0.0);
    assert!(v.y < 0.0);

    let mut bodies = gate();
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[], 10.0);
    assert!(arrived(&bodies[0]));
    assert!(trace.min_gap > 0.0);
    // Round the gate: its lower edge (-0.3 - 0.3) less the agent's radius 0.5. Measured: -1.84.
    let beside = trace.path(0).find(|p| p.x >= 6.0).unwrap_or(Vec2::NAN);
    assert!(beside.y < -1.1);
}

#[test]
fn large_symmetric_obstacles_draw_the_agent_into_a_narrow_gap_a_known_weakness() {
    // Two large obstacles leave a 0.4 m gap for a 1 m agent. Part 2 pulls the agent
    // back to the middle, part 3 drops those pushes (their sum points straight back)
    // and its own push is too weak up close: the agent drives into the gap. Without
    // part 3 it stalls in front. Collision response has to handle this case.
    let gap = || {
        [
            Body::agent(Vec2::ZERO, Vec2::new(12.0, 0.0), 0.5, 2.0),
            Body::obstacle(Vec2::new(6.0, 1.2), Vec2::ZERO, 1.0),
            Body::obstacle(Vec2::new(6.0, -1.2), Vec2::ZERO, 1.0),
        ]
    };
    let mut bodies = gap();
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[], 10.0);
    assert!(trace.min_gap < 0.0);
    let mut bodies = gap();
    let trace = simulate(&parts(true, false, false), &mut bodies, &[], 10.0);
    assert!(trace.min_gap > 0.0 && !arrived(&bodies[0]));
}

// ---- Part 4: moving obstacles ---------------------------------------------------

/// Two agents whose straight paths cross at the origin; `a` (along +x) gets there
/// `lead` seconds before `b` (along +y). Radii 0.25 m, speed 2 m/s.
fn crossing(lead: f32) -> [Body; 2] {
    let a = Body::agent(Vec2::new(-6.0, 0.0), Vec2::new(6.0, 0.0), 0.25, 2.0);
    let b_start = -6.0 - 2.0 * lead;
    let b = Body::agent(Vec2::new(0.0, b_start), Vec2::new(0.0, 6.0), 0.25, 2.0);
    [a, b]
}

/// How far each agent strayed from its straight line, and whether `a` passed the
/// crossing first (it was beyond x = 0 when `b` reached y = 0).
fn crossing_outcome(steering: &AntiGravity, lead: f32) -> (f32, f32, bool, f32) {
    let mut bodies = crossing(lead);
    let trace = simulate(steering, &mut bodies, &[], 10.0);
    assert!(arrived(&bodies[0]) && arrived(&bodies[1]));
    let stray_a = trace.path(0).map(|p| p.y.abs()).fold(0.0, f32::max);
    let stray_b = trace.path(1).map(|p| p.x.abs()).fold(0.0, f32::max);
    let a_first = trace
        .steps
        .iter()
        .find(|s| s[1].y >= 0.0)
        .is_some_and(|s| s[0].x > 0.0);
    (stray_a, stray_b, a_first, trace.min_gap)
}

#[test]
fn at_a_crossing_the_first_to_arrive_keeps_its_course_and_the_other_yields() {
    // `a` reaches the crossing 0.2 s before `b`: it passes first and barely strays.
    let (stray_a, stray_b, a_first, gap) = crossing_outcome(&AntiGravity::default(), 0.2);
    assert!(gap > 0.0 && a_first);
    // Barely: less than its own radius, 0.25. Measured: 0.181.
    assert!(stray_a < 0.25 && stray_a < stray_b);
    // Without part 4 both push each other far off their lines.
    let (stray_a, stray_b, _, gap) = crossing_outcome(&parts(true, true, false), 0.2);
    // Far: more than two diameters (radius 0.25). Measured: 1.92 and 2.65.
    assert!(gap > 0.0 && stray_a > 1.0 && stray_b > 1.0);
}

#[test]
fn a_tie_at_a_crossing_goes_to_the_agent_coming_from_the_right() {
    // Both reach the crossing together; `b` comes from `a`'s right, so `a` yields
    // (otherwise both would yield, mirror-image, into each other).
    let (_, _, a_first, gap) = crossing_outcome(&AntiGravity::default(), 0.0);
    assert!(gap > 0.0 && !a_first);
}

#[test]
fn the_yielding_agent_mirrors_its_push_about_its_desired_path() {
    // `b` heads +y and `a` crosses from its left, ahead, reaching the crossing first.
    let bodies = [
        Body::agent(Vec2::new(-0.6, 0.6), Vec2::new(6.0, 0.6), 0.25, 2.0),
        Body::agent(Vec2::new(0.0, -0.3), Vec2::new(0.0, 6.0), 0.25, 2.0),
    ];
    let push = |steering: &AntiGravity| {
        let mut debug = SteerDebug::default();
        steer_one(steering, &bodies, &[], 1, Some(&mut debug));
        debug
            .of_kind(DebugKind::Raw)
            .map(|d| d.vector)
            .sum::<Vec2>()
    };
    let plain = push(&parts(true, true, false));
    let yielding = push(&AntiGravity::default());
    // Without part 4 the push is away from `a` (to the right, +x); yielding mirrors it
    // about the desired path (+y): towards `a`'s side, so `b` passes behind it.
    assert!(plain.x > 0.0 && plain.y < 0.0);
    assert!(yielding.x < 0.0 && yielding.y < 0.0);
    let mirrored = Vec2::new(-plain.x, plain.y);
    assert!(yielding.normalize().distance(mirrored.normalize()) < 1e-4);
}

#[test]
fn a_chase_ignores_a_faster_body_ahead_and_overtakes_a_slower_one_without_contact() {
    // A faster body just ahead on the same line: part 4 ignores its push almost entirely.
    let bodies = [
        Body::agent(Vec2::ZERO, Vec2::new(12.0, 0.0), 0.25, 2.0),
        Body::obstacle(Vec2::new(1.0, 0.0), Vec2::new(3.0, 0.0), 0.25),
    ];
    let with_part_4 = steer_one(&AntiGravity::default(), &bodies, &[], 0, None);
    let without = steer_one(&parts(true, true, false), &bodies, &[], 0, None);
    // Within 5 % of its top speed, 2 m/s. Measured: 1.9989.
    assert!(with_part_4.x > 1.9);
    assert!(without.x < with_part_4.x - 0.1);

    // A slower body ahead on the same line is overtaken without contact.
    let mut bodies = [
        Body::agent(Vec2::ZERO, Vec2::new(12.0, 0.0), 0.25, 2.0),
        Body::obstacle(Vec2::new(2.0, 0.0), Vec2::new(0.8, 0.0), 0.25),
    ];
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[], 10.0);
    assert!(arrived(&bodies[0]));
    assert!(trace.min_gap > 0.0);
}

#[test]
fn two_agents_playing_chicken_both_swerve_and_pass() {
    let mut bodies = [
        Body::agent(Vec2::new(-6.0, 0.0), Vec2::new(6.0, 0.0), 0.25, 2.0),
        Body::agent(Vec2::new(6.0, 0.0), Vec2::new(-6.0, 0.0), 0.25, 2.0),
    ];
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[], 10.0);
    assert!(arrived(&bodies[0]) && arrived(&bodies[1]));
    assert!(trace.min_gap > 0.0);
    // Both keep right: `a` (heading +x) passes below, `b` (heading -x) above.
    let meet = trace
        .steps
        .iter()
        .find(|s| s[0].x >= s[1].x)
        .cloned()
        .unwrap_or_default();
    assert!(meet.len() == 2 && meet[0].y < 0.0 && meet[1].y > 0.0);
}

// ---- Walls and robustness -------------------------------------------------------

#[test]
fn a_wall_beside_the_path_keeps_the_agent_off_it() {
    // A wall along y = -0.6, walkable above; the goal lies on the wall line.
    let wall = Segment::new(Vec2::new(-10.0, -0.6), Vec2::new(10.0, -0.6));
    let mut bodies = [Body::agent(
        Vec2::new(-5.0, 0.0),
        Vec2::new(5.0, -0.6),
        0.5,
        2.0,
    )];
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[wall], 8.0);
    let closest = trace
        .path(0)
        .map(|p| wall.distance(p))
        .fold(f32::INFINITY, f32::min);
    // Never within half its 0.5 m radius of the wall, and its centre ends on the walkable
    // side of the wall line. Measured: 0.50005 (no contact), y = -0.09995.
    assert!(closest > 0.25);
    assert!(bodies[0].position.y > -0.6);
}

#[test]
fn degenerate_input_gives_finite_capped_velocities() {
    let steering = AntiGravity::default();
    let here = Vec2::new(1.0, 2.0);
    let agent = SteerAgent {
        position: here,
        velocity: Vec2::ZERO,
        radius: 0.5,
        max_speed: 1.5,
        preferred_velocity: Vec2::new(3.0, 0.0),
        target: Vec2::new(9.0, 2.0),
    };
    let coincident = Neighbor {
        position: here,
        velocity: Vec2::new(-1.0, 0.0),
        radius: 0.5,
        preferred_velocity: Vec2::ZERO,
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let point_wall = Segment::new(here, here);
    let zero_radius = Neighbor {
        radius: 0.0,
        ..coincident
    };
    for (agent, neighbors, dt) in [
        (agent, vec![coincident], 0.0),
        (
            SteerAgent {
                radius: 0.0,
                ..agent
            },
            vec![zero_radius, coincident],
            DT,
        ),
        (
            SteerAgent {
                preferred_velocity: Vec2::ZERO,
                ..agent
            },
            vec![coincident],
            DT,
        ),
        (
            SteerAgent {
                preferred_velocity: Vec2::NAN,
                ..agent
            },
            vec![],
            DT,
        ),
    ] {
        let ctx = SteerContext {
            agent,
            neighbors: &neighbors,
            walls: &[point_wall],
            dt,
            opening: None,
        };
        let mut debug = SteerDebug::default();
        let v = steering.steer(&ctx, Some(&mut debug));
        assert!(v.is_finite());
        assert!(v.length() <= agent.max_speed + 1e-5);
        assert!(debug.vectors.iter().all(|d| d.vector.is_finite()));
    }
}

// ---- Beyond the seed: resting bodies beyond the goal, making way ---------------

/// An agent heading for a free slot in a lattice of bodies resting 1.6 m apart (gaps of
/// 0.6 m), as in a formation whose other agents are already home.
fn free_slot() -> Vec<Body> {
    let mut bodies = vec![Body::agent(Vec2::new(-3.0, 0.3), Vec2::ZERO, 0.5, 2.0)];
    for (x, y) in [(1.6, 0.0), (0.0, 1.6), (0.0, -1.6), (1.6, 1.6), (1.6, -1.6)] {
        bodies.push(Body::obstacle(Vec2::new(x, y), Vec2::ZERO, 0.5));
    }
    bodies
}

#[test]
fn resting_bodies_beyond_the_goal_no_longer_hold_the_agent_off_it() {
    let seed = with(AntiGravityParams {
        skip_resting_beyond_target: false,
        ..AntiGravityParams::default()
    });
    let mut bodies = free_slot();
    simulate(&seed, &mut bodies, &[], 10.0);
    assert!(!arrived(&bodies[0]), "{}", bodies[0].position);
    let mut bodies = free_slot();
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[], 10.0);
    assert!(arrived(&bodies[0]), "{}", bodies[0].position);
    assert!(trace.min_gap > 0.0);
}

#[test]
fn an_agent_at_rest_steps_off_the_course_of_one_coming_at_it_and_comes_back() {
    // `b` rests at its goal on `a`'s line; `a` walks through. As in the seed, `b`
    // stands still and `a` must go round it; with making way `b` steps aside (to `a`'s
    // right on this exact tie), lets `a` pass and walks home.
    let scene = || {
        [
            Body::agent(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0), 0.5, 2.0),
            Body::agent(Vec2::ZERO, Vec2::ZERO, 0.5, 2.0),
        ]
    };
    let seed = with(AntiGravityParams {
        make_way_horizon: 0.0,
        ..AntiGravityParams::default()
    });
    let stray = |trace: &Trace| trace.path(0).map(|p| p.y.abs()).fold(0.0_f32, f32::max);
    let mut bodies = scene();
    let trace = simulate(&seed, &mut bodies, &[], 8.0);
    assert!(trace.path(1).all(|p| p == Vec2::ZERO));
    let seed_stray = stray(&trace);
    let mut bodies = scene();
    let trace = simulate(&AntiGravity::default(), &mut bodies, &[], 8.0);
    assert!(arrived(&bodies[0]) && arrived(&bodies[1]));
    assert!(trace.min_gap > 0.0);
    let lowest = trace.path(1).map(|p| p.y).fold(0.0_f32, f32::min);
    println!(
        "b stepped to {lowest}; a strayed {} (seed: {seed_stray})",
        stray(&trace)
    );
    // A regression guard: a real step (8 % of its 0.5 m radius), not rounding. Measured: -0.050.
    assert!(lowest < -0.04, "{lowest}");
    assert!(stray(&trace) < seed_stray);
}
