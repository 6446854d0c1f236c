//! Phase *follow paths*: every agent finds where its goal is now, plans its path when
//! it must, advances along its waypoints and sets its preferred velocity.

use super::agent::{Agent, AgentState, Goal, MovingObstacle};
use super::gather;
use super::handles::Slots;
use super::index::{PointIndex, Walls};
use super::params::WorldParams;
use super::portal;
use crate::geom::{closest_point_on_segment, Segment};
use crate::grid::WallGrid;
use crate::mesh::NavMesh;
use crate::path::{Endpoint, Path, PathError, PathPiece};
use glam::Vec2;
use rayon::prelude::*;

/// Where an agent's goal is this step, and how close its centre must come to it to
/// have arrived (the arrival tolerance, plus the contact distance of a chased body).
#[derive(Clone, Copy, Debug)]
pub(super) struct GoalNow {
    position: Vec2,
    arrive: f32,
}

/// How long an agent whose path could not be planned waits before it tries again
/// (unless it is moved first), seconds: see [`AgentState::NoPath`].
pub const NO_PATH_RETRY: f64 = 1.0;

/// How long an agent on its way may go without getting half its radius nearer the
/// next point of its path before it counts as [`AgentState::Stuck`], seconds.
pub const STUCK_TIME: f64 = 3.0;

/// How long an agent must have gone without progress (see [`STUCK_TIME`]) before it
/// tries other ways, seconds: its preferred velocity turns by up to
/// ±[`TRY_ASIDE_ANGLE`], a new angle every [`TRY_ASIDE_PERIOD`] seconds, until it gets
/// on. A few agents pressed against one another, each with its way through the others,
/// hold still for good under reciprocal avoidance; one of them turning lets the others
/// by. Shorter (6 s) turned people creeping at the back of a crowd before a door, and
/// slowed a 1 m door below the flows measured in experiments.
pub const TRY_ASIDE_TIME: f64 = 12.0;

/// How near its place, in radii, an agent stuck on its way stands still for
/// [`MAKE_WAY_TIME`] (see [`makes_way`]): 1.5 m for people.
pub const MAKE_WAY_REACH: f32 = 6.0;

/// How long an agent stuck near its place stands still, seconds, once it has made no
/// progress for [`STUCK_TIME`] (see [`makes_way`]). 2 s brought the last of the
/// crossings' seeds to their places sooner (places in reverse at worst 1.80 times
/// alone, against 1.99), but someone standing 2 s a step from its place in front of a
/// door held the stream: a 2.4 m door 3 m from the room's corner fell to 1.48 persons
/// per metre and second (1.53 before, 1.55 with 1 s).
pub const MAKE_WAY_TIME: f64 = 1.0;

/// How long an agent must have been carried back (see [`CARRIED_TIME`]) since it last
/// made progress to stand aside once stuck, wherever it is (see [`makes_way`]),
/// seconds. Pushed back for a moment, as people pressing towards one point are by
/// those resting there, it does not: standing aside then held up a crowd sent to one
/// point (not at rest within 120 s, against 49 s); after a whole [`CARRIED_TIME`], a
/// crossing of two streams of 100 in corridors 10 m wide kept a seed of 96 at 2.09
/// times alone (none over twice alone now).
pub const MAKE_WAY_CARRIED: f32 = 0.5;

/// Whether agent `a`, stuck for `stuck_for` seconds on its way to its place `place`,
/// stands still now: within [`MAKE_WAY_REACH`] radii of a fixed place of its own, or
/// carried back for [`MAKE_WAY_CARRIED`] since it last made progress, wherever it is
/// (not on its way to a spot of a gathering, [`Agent::spot`], where everyone presses
/// towards one point and standing aside only held the gathering up), for the first
/// [`MAKE_WAY_TIME`] seconds after it counted as stuck ([`STUCK_TIME`]), once per time
/// it gets stuck; only under a reciprocal steering method (ORCA), where someone
/// standing makes way for a passer-by entirely
/// ([`OrcaParams::priority`](crate::steer::OrcaParams::priority)), so whoever it held
/// up gets by; then it walks on to its place. Two people a step from their places,
/// each with the other's place or body on its way (one pressed against a wall), held
/// each other until one turned aside after [`TRY_ASIDE_TIME`]: a crossing of 40 × 4 m
/// with places in reverse took 2.15 times alone to bring everyone to their places on
/// seed 28, and with places dealt out at random a counterflow 2.41 (seeds 1–96; the
/// measurements are in docs/crowd-behaviour.md). Two knots of people carried past a
/// crossing's far corner into each other's corridor stood face to face round the
/// corner, each on the other's way back, creeping too slowly to try other ways before
/// [`TRY_ASIDE_TIME`]: a crossing of two streams of 100 in corridors 10 m wide took
/// 2.74 times alone on seed 7 (1.64 now). Standing aside whenever stuck, not only once
/// carried back, also cleared those, but sent one 1.2 m door of 32 above the flows of
/// the experiments (2.13 persons per metre and second).
fn makes_way(a: &Agent, place: Vec2, stuck_for: f64) -> bool {
    let near = a.position.distance_squared(place) < (MAKE_WAY_REACH * a.radius).powi(2);
    // Carried back for `MAKE_WAY_CARRIED` since it last made progress (`carried_since`
    // is NaN before it ever was).
    let pushed_back = a.carried_since == a.progress.1;
    matches!(a.goal, Goal::Point(_))
        && a.spot.is_none()
        && (near || pushed_back)
        && (STUCK_TIME..STUCK_TIME + MAKE_WAY_TIME).contains(&stuck_for)
}

/// Largest angle by which a stuck agent turns its way (see [`TRY_ASIDE_TIME`]),
/// radians (34°).
pub const TRY_ASIDE_ANGLE: f32 = 0.6;

/// How often a stuck agent draws a new angle to turn its way by (see
/// [`TRY_ASIDE_TIME`]), seconds.
pub const TRY_ASIDE_PERIOD: f64 = 1.0;

/// How long an agent on its way must have been carried back (moving against the way it
/// wants to go) before others give it right of way, seconds: see
/// [`Agent::carried_for`](super::Agent).
pub const CARRIED_TIME: f32 = 1.0;

/// How long an agent pushed off its place (within its radius) waits, once nobody
/// pushes it further, before it walks back, seconds.
pub const SETTLE_TIME: f64 = 0.3;

/// How many agents that may have a shorter path since an obstacle of the mesh was
/// removed plan again in one step, at most (the first in agent order): a removal can
/// give hundreds of agents a chance of a short cut, and planning them all at once
/// would make a hitch, while each still has a free path to follow meanwhile.
pub const IMPROVE_PER_STEP: usize = 16;

/// How much further off its place, metres, an agent must be moved to count as pushed.
const PUSHED: f32 = 0.01;

/// What happened to an agent in the phase, as bits: [`ARRIVED`], [`NO_PATH`],
/// [`REPLANNED`].
pub(super) type Happened = u8;
/// It arrived at its goal.
pub(super) const ARRIVED: Happened = 1;
/// Planning its path failed (it was not failing before).
pub(super) const NO_PATH: Happened = 2;
/// It planned its path again (not the first time).
pub(super) const REPLANNED: Happened = 4;

/// The scratch of the phase: where every agent's goal is this step, gathered only
/// when some agent chases a body; and what happened to each agent.
#[derive(Debug, Default)]
pub(super) struct FollowScratch {
    goals: Vec<GoalNow>,
    /// Every agent's place at the start of the step (see [`gather`]).
    places: Vec<Option<gather::Place>>,
    /// Whether some agent may be waiting to improve its path ([`Agent::improve`]).
    pub improving: bool,
    /// Per agent, what happened to it in the phase.
    pub happened: Vec<Happened>,
}

/// What the phase reads besides the agents.
pub(super) struct Surroundings<'a> {
    /// Which agent each id names (for chases).
    pub slots: &'a Slots,
    pub mesh: Option<&'a NavMesh>,
    pub params: &'a WorldParams,
    pub walls: &'a Walls,
    /// The agents' point index (portal steering reads who stands in a door).
    pub index: &'a PointIndex,
    pub obstacles: &'a [MovingObstacle],
    /// How many agents chase a body (an agent or a moving obstacle): only then are
    /// goal positions gathered in a pass of their own.
    pub chasers: usize,
    /// Time now, seconds.
    pub now: f64,
    /// Whether the game drives or points some agent.
    pub controlled: bool,
    /// Whether the steering method shares each avoidance
    /// ([`Steering::reciprocal`](crate::steer::Steering::reciprocal)): only then does
    /// someone stuck near its place stand aside ([`makes_way`]).
    pub reciprocal: bool,
}

/// Every agent plans its path if its goal changed, moved, or it strayed
/// ([`plan_path`]), then sets its preferred velocity ([`prefer_velocity`]); one pass, as
/// each agent reads only itself and where its goal is.
pub(super) fn follow_paths(
    agents: &mut [Agent],
    scratch: &mut FollowScratch,
    env: &Surroundings<'_>,
    dt: f32,
) {
    let params = env.params;
    if scratch.improving {
        scratch.improving = let_improve(agents);
    }
    if env.chasers > 0 {
        goal_positions(agents, env, &mut scratch.goals);
    } else {
        scratch.goals.clear();
    }
    let widest = gather::places(agents, &mut scratch.places);
    let goals = &scratch.goals;
    let mesh = env.mesh;
    let walls = params
        .portals
        .then_some((&env.walls.segments[..], &env.walls.grid));
    let (grid, positions) = (&env.index.grid, &env.index.positions[..]);
    let now = env.now;
    let crowd = gather::Crowd {
        grid,
        places: &scratch.places,
        widest,
        mesh,
    };
    agents
        .par_iter_mut()
        .enumerate()
        .map(|(i, a)| {
            // Set again below for an agent on its way; never left over from before.
            a.place_taken = false;
            // Driven by the game, or heading where the game says: no path to follow.
            if let Some(v) = env.controlled.then(|| a.driven.or(a.wanted)).flatten() {
                a.preferred_velocity = v;
                a.state = AgentState::Moving;
                a.carried_for = 0.0;
                return 0;
            }
            // Held up by others gathered at its place: a spot of their gathering (or,
            // resting at one and pushed off it, the place it was pushed to).
            if let (Goal::Point(point), false) = (a.goal, a.is_arrived()) {
                if let Some(spot) = crowd.new_spot(a, i, point) {
                    a.spot = Some(spot);
                    a.needs_plan = true;
                }
            } else {
                gather::settle_where_pushed(a, params.arrival_tolerance);
            }
            let goal = goal_now(a, goals.get(i), params.arrival_tolerance);
            let planned = plan_path(a, goal.position, mesh, params.replan_distance, walls, now);
            if let AgentState::NoPath(_) = a.state {
                // No path: it holds still, never heading for its goal through walls.
                a.preferred_velocity = Vec2::ZERO;
                a.carried_for = 0.0;
                return planned;
            }
            let others = portal::Others {
                grid,
                positions,
                me: i as u32,
            };
            let happened = planned | prefer_velocity(a, goal, params, now, dt, &others);
            if a.state == AgentState::Stuck {
                let stuck_for = now - since_progress(a);
                if stuck_for >= TRY_ASIDE_TIME {
                    // Stuck for long (in a deadlock, or held back and forth): another way.
                    a.preferred_velocity = turned_aside(a.preferred_velocity, i, now);
                } else if env.reciprocal && makes_way(a, goal.position, stuck_for) {
                    // Held up near its place: it stands aside for a while.
                    a.preferred_velocity = Vec2::ZERO;
                }
            }
            // Carried back: on its way (never yet arrived) but moving against the way
            // it wants to go, as when caught between others walking the other way.
            let carried = a.arrived_at.is_none()
                && matches!(a.state, AgentState::Moving | AgentState::Stuck)
                && a.velocity.dot(a.preferred_velocity) < 0.0;
            a.carried_for = if carried { a.carried_for + dt } else { 0.0 };
            if a.carried_for >= MAKE_WAY_CARRIED {
                a.carried_since = a.progress.1;
            }
            happened
        })
        .collect_into_vec(&mut scratch.happened);
}

/// How near its place, in radii, an agent looks whether someone else stands on it
/// (see [`Agent::place_taken`](super::Agent)): 2 m for people.
const TAKEN_REACH: f32 = 8.0;

/// Whether someone other than `others.me` stands on `place`: a centre within `radius`
/// of it (the agents' positions at the start of the step).
fn stands_on(place: Vec2, radius: f32, others: &portal::Others<'_>) -> bool {
    let mut taken = false;
    others.grid.for_each_within(place, radius, |j, _| {
        taken |= j != others.me
            && others
                .positions
                .get(j as usize)
                .is_some_and(|q| q.distance_squared(place) < radius * radius);
    });
    taken
}

/// When agent `a`, on its way, last made progress: once pushed off its place
/// [`PING_PONG`] times soon after it came, when it last stood there for
/// [`STUCK_TIME`] (two pushing each other off their places in turn make no progress).
fn since_progress(a: &Agent) -> f64 {
    if a.settling.brief_stays >= PING_PONG {
        a.settling.settled
    } else {
        a.progress.1
    }
}

/// How often an agent pushed off its place soon after it came must have been, since it
/// last stood there for [`STUCK_TIME`], to count walking back as no progress.
const PING_PONG: u8 = 2;

/// A stuck agent's way, turned by [`try_aside`]'s angle for agent `i` at time `now`.
fn turned_aside(way: Vec2, i: usize, now: f64) -> Vec2 {
    Vec2::from_angle(try_aside(i, now)).rotate(way)
}

/// The angle by which agent `i`, stuck for [`TRY_ASIDE_TIME`], turns its way at time
/// `now`: drawn anew every [`TRY_ASIDE_PERIOD`] seconds, uniformly within
/// ±[`TRY_ASIDE_ANGLE`], from the agent's index and the period's number alone, so the
/// same on every run and every thread count, and different for the agents that hold
/// one another (a deadlock of ORCA agents is symmetric: each waits for the others).
pub(super) fn try_aside(i: usize, now: f64) -> f32 {
    let period = (now / TRY_ASIDE_PERIOD).floor() as u64;
    // SplitMix64's finaliser over the two numbers.
    let mut z =
        (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ period.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
    ((2.0 * unit - 1.0) * f64::from(TRY_ASIDE_ANGLE)) as f32
}

/// Lets the first [`IMPROVE_PER_STEP`] agents (in agent order) waiting to improve their
/// paths plan again; returns whether some are left waiting.
fn let_improve(agents: &mut [Agent]) -> bool {
    let mut budget = IMPROVE_PER_STEP;
    for a in agents.iter_mut().filter(|a| a.improve) {
        if budget == 0 {
            return true;
        }
        a.improve = false;
        a.needs_plan = true;
        budget -= 1;
    }
    false
}

/// Fills `goals` with where every agent's goal is now, the chased bodies' included
/// (agents with a point goal find theirs in [`goal_now`]).
fn goal_positions(agents: &[Agent], env: &Surroundings<'_>, goals: &mut Vec<GoalNow>) {
    let (obstacles, tolerance) = (env.obstacles, env.params.arrival_tolerance);
    goals.clear();
    goals.par_extend(agents.par_iter().map(|a| {
        let (position, contact) = match a.goal {
            Goal::Point(p) => (a.spot.unwrap_or(p), 0.0),
            // (A chased agent is always in the world: removing it ends the chase.)
            Goal::Agent(b) => match env.slots.index_of(b).and_then(|k| agents.get(k)) {
                Some(b) => (b.position, a.radius + b.radius),
                None => (a.planned_goal, 0.0),
            },
            Goal::Obstacle(o) => match obstacles.get(o.index()) {
                Some(o) => (o.position, a.radius + o.radius),
                None => (a.planned_goal, 0.0),
            },
        };
        GoalNow {
            position,
            arrive: contact + tolerance,
        }
    }));
}

/// Where agent `a`'s goal is now and how close it must come: `chased` when goals were
/// gathered ([`goal_positions`]), else its point goal with the arrival
/// tolerance.
fn goal_now(a: &Agent, chased: Option<&GoalNow>, tolerance: f32) -> GoalNow {
    match (chased, a.goal) {
        (Some(&g), _) => g,
        (None, Goal::Point(position)) => GoalNow {
            position: a.spot.unwrap_or(position),
            arrive: tolerance,
        },
        // (Not reached: goals are gathered whenever an agent chases a body.)
        (None, _) => GoalNow {
            position: a.planned_goal,
            arrive: tolerance,
        },
    }
}

/// Plans agent `a`'s path to `goal` if its goal moved more than `replan` metres since
/// the last plan, or it needs one; with `walls` (portal steering), finds the openings
/// the path bends through.
fn plan_path(
    a: &mut Agent,
    goal: Vec2,
    mesh: Option<&NavMesh>,
    replan: f32,
    walls: Option<(&[Segment], &WallGrid)>,
    now: f64,
) -> Happened {
    if !matches!(a.goal, Goal::Point(_)) && a.planned_goal.distance(goal) > replan {
        a.needs_plan = true;
    }
    if let AgentState::NoPath(_) = a.state {
        // Try again after a while, or once moved off the place it failed from.
        let (at, when) = a.progress;
        if now - when >= NO_PATH_RETRY || a.position.distance(at) > 1e-3 {
            a.needs_plan = true;
        }
    }
    if !a.needs_plan {
        return 0;
    }
    a.improve = false;
    let path = match mesh.map(|m| plan(m, a.position, goal, a.radius)) {
        None => None,
        Some(Ok(path)) => Some(path),
        Some(Err(e)) => {
            // It stays where it is until a plan succeeds.
            let first = !matches!(a.state, AgentState::NoPath(_));
            a.path = None;
            a.waypoints.clear();
            a.waypoints.extend([a.position, a.position]);
            a.portals.clear();
            a.reachable_goal = None;
            a.next_waypoint = 1;
            a.planned_goal = goal;
            a.needs_plan = false;
            a.state = AgentState::NoPath(e);
            a.progress = (a.position, now);
            return if first { NO_PATH } else { 0 };
        }
    };
    if let AgentState::NoPath(_) = a.state {
        a.state = AgentState::Moving;
        a.progress = (a.position, now);
    }
    let replanned = if a.path.is_some() || a.shortest.is_some() {
        REPLANNED
    } else {
        0
    };
    a.waypoints.clear();
    a.portals.clear();
    match &path {
        Some(p) => {
            waypoints_of(p, &mut a.waypoints);
            if let Some((walls, grid)) = walls {
                portal::portals_of(p, walls, grid, &mut a.portals);
            }
        }
        None => a.waypoints.extend([a.position, goal]),
    }
    if a.shortest.is_none() {
        a.shortest = Some(match &path {
            Some(p) => p.length(),
            None => f64::from(a.position.distance(goal)),
        });
    }
    // A point goal out of reach was replaced by the nearest reachable point.
    a.reachable_goal = match (a.goal, &path) {
        (Goal::Point(_), Some(p)) if p.goal().distance_squared(goal) > 1e-12 => Some(p.goal()),
        _ => None,
    };
    a.path = path;
    a.next_waypoint = 1;
    a.planned_goal = goal;
    a.needs_plan = false;
    replanned
}

/// Advances agent `a` along its waypoints and sets its preferred velocity towards
/// `goal`; marks its arrival (time `now`) and its state.
fn prefer_velocity(
    a: &mut Agent,
    goal: GoalNow,
    params: &WorldParams,
    now: f64,
    dt: f32,
    others: &portal::Others<'_>,
) -> Happened {
    let (tolerance, slowdown) = (params.arrival_tolerance, params.slowdown_time);
    let arrive = goal.arrive;
    let goal = a.reachable_goal.unwrap_or(goal.position);
    let before = a.next_waypoint;
    advance_waypoint(a);
    let advanced = a.next_waypoint != before;
    let last = a.waypoints.len().saturating_sub(1);
    let to_goal = goal.distance(a.position);
    // At its place: within the tolerance, or, once there, pushed no further than its
    // radius off it (its body still covers its place). A chaser follows its body at
    // once: it holds no place.
    let was_there = matches!(a.state, AgentState::Arrived | AgentState::Idle);
    let holds = was_there && matches!(a.goal, Goal::Point(_));
    if to_goal <= arrive || (holds && to_goal <= arrive + a.radius) {
        if a.arrived_at.is_none() {
            a.arrived_at = Some(now);
        }
        if !was_there {
            a.settling.reached = now;
        }
        if now - a.settling.reached >= STUCK_TIME {
            a.settling.settled = now;
            a.settling.brief_stays = 0;
        }
        a.collided = false;
        a.state = if a.idle {
            AgentState::Idle
        } else {
            AgentState::Arrived
        };
        // `progress` holds where and when it was last pushed further off its place.
        let pushed = to_goal > a.progress.0.distance(goal) + PUSHED;
        if to_goal <= arrive || !was_there || pushed {
            a.progress = (a.position, now);
        }
        a.preferred_velocity = if to_goal <= arrive || now - a.progress.1 < SETTLE_TIME {
            // It stands, and gives way as someone standing does (it makes way for
            // whoever is passing, and does not walk back into them).
            Vec2::ZERO
        } else {
            // Left in peace: back onto its place, slowing down as it comes.
            let dist = to_goal - (arrive - tolerance);
            (goal - a.position).normalize_or_zero()
                * approach_speed(a.pref_speed, dist, Some(slowdown), dt)
        };
        return if was_there { 0 } else { ARRIVED };
    }
    // Progress: half its radius nearer the next point of its path than when last it
    // made progress, or past a point of its path (or it just set off: from its goal,
    // from idleness). Carried further off, it starts counting from there, so walking
    // back is progress.
    let on_its_way = matches!(a.state, AgentState::Moving | AgentState::Stuck);
    let aim = if a.next_waypoint >= last {
        goal
    } else {
        a.waypoints[a.next_waypoint]
    };
    let (now_off, then_off) = (aim.distance(a.position), aim.distance(a.progress.0));
    if !on_its_way || advanced || now_off < then_off - 0.5 * a.radius {
        if a.state == AgentState::Arrived && now - a.settling.reached < STUCK_TIME {
            a.settling.brief_stays = a.settling.brief_stays.saturating_add(1);
        }
        a.progress = (a.position, now);
    } else if now_off > then_off {
        a.progress.0 = a.position;
    }
    a.state = if now - since_progress(a) >= STUCK_TIME {
        AgentState::Stuck
    } else {
        AgentState::Moving
    };
    let (target, dist) = if a.next_waypoint >= last {
        // Slow down towards the goal point itself (or the contact distance of a chased
        // body), so the arrival circle is entered, not crept at.
        (goal, to_goal - (arrive - tolerance))
    } else {
        (portal_target(a, others), f32::INFINITY)
    };
    a.place_taken = matches!(a.goal, Goal::Point(_))
        && to_goal <= TAKEN_REACH * a.radius
        && stands_on(goal, a.radius, others);
    let dir = (target - a.position).normalize_or_zero();
    // A moving goal is met at full speed; a fixed one is approached slowly.
    let ease = matches!(a.goal, Goal::Point(_)).then_some(slowdown);
    a.preferred_velocity = dir * approach_speed(a.pref_speed, dist, ease, dt);
    0
}

/// The speed at which an agent cruising at `pref_speed` walks on with `dist` metres
/// to go: slowed down over its last `slowdown · pref_speed` metres when it eases in
/// (`Some(slowdown)`), and never past the end within one step `dt`.
fn approach_speed(pref_speed: f32, dist: f32, slowdown: Option<f32>, dt: f32) -> f32 {
    let ease = slowdown.map_or(f32::INFINITY, |s| dist / s.max(1e-3));
    pref_speed.min(ease).min(dist / dt).max(0.0)
}

/// Where agent `a` heads for its next waypoint (not the last): a point of the door's
/// width when the waypoint lies on the corner of a portal ([`portal`]), else the
/// waypoint. Drops the rest of a portal's waypoints once past it.
fn portal_target(a: &mut Agent, others: &portal::Others<'_>) -> Vec2 {
    let last = a.waypoints.len().saturating_sub(1);
    let mut w = a.waypoints[a.next_waypoint];
    while let Some(p) = portal::portal_at(&a.portals, w, a.radius) {
        let corner = *p;
        let on_corner =
            |w: Vec2| portal::portal_at(std::slice::from_ref(&corner), w, a.radius).is_some();
        // The first waypoint past the corner.
        let beyond = a.waypoints[a.next_waypoint..]
            .iter()
            .copied()
            .find(|&w| !on_corner(w))
            .unwrap_or(a.waypoints[last]);
        match corner.choose(a.position, a.radius, beyond, others) {
            portal::AtPortal::Head(target) => return target,
            portal::AtPortal::Follow => return w,
            portal::AtPortal::Passed => {
                while a.next_waypoint < last && on_corner(w) {
                    a.next_waypoint += 1;
                    w = a.waypoints[a.next_waypoint];
                }
                if a.next_waypoint >= last {
                    return w;
                }
            }
        }
    }
    w
}

/// The path for an agent, or why there is none. A goal the disc cannot reach (inside
/// an obstacle, off the mesh, nearer a wall than the radius, or beyond gaps narrower
/// than the disc) is replaced by the nearest point it can reach; a start nearer a wall
/// than the radius (pushed there by the crowd) plans for the widest disc that fits
/// there.
fn plan(mesh: &NavMesh, start: Vec2, goal: Vec2, radius: f32) -> Result<Path, PathError> {
    match mesh.find_path(start, goal, radius) {
        Ok(p) => Ok(p),
        Err(
            e @ PathError::NoRoom {
                endpoint: Endpoint::Start,
                ..
            },
        ) => {
            // Pushed nearer a wall than its radius: plan for the widest disc that fits
            // here, to the nearest point that disc can reach.
            let Some(clearance) = mesh.clearance(start) else {
                return Err(e);
            };
            let r = clearance.min(radius) * 0.99;
            let Some(goal) = mesh.nearest_reachable(start, goal, r) else {
                return Err(e);
            };
            mesh.find_path(start, goal, r)
        }
        Err(
            e @ (PathError::NoRoom {
                endpoint: Endpoint::Goal,
                ..
            }
            | PathError::InObstacle(Endpoint::Goal)
            | PathError::OutsideMesh(Endpoint::Goal)
            | PathError::NoPath(_)),
        ) => {
            let Some(goal) = mesh.nearest_reachable(start, goal, radius) else {
                return Err(e);
            };
            mesh.find_path(start, goal, radius)
        }
        Err(e) => Err(e),
    }
}

/// The points an agent steers through: the path's start, its tangent points (arcs
/// split so that no chord sweeps more than 30°, keeping the chord within 4 % of the
/// radius of the arc) and its goal.
fn waypoints_of(path: &Path, out: &mut Vec<Vec2>) {
    out.push(path.start());
    for piece in path.pieces() {
        match *piece {
            PathPiece::Line { to, .. } => out.push(to),
            PathPiece::Arc { sweep, to, .. } => {
                let n = (sweep.abs() / 30f32.to_radians()).ceil().max(1.0) as usize;
                for k in 1..n {
                    out.push(piece.point_at(k as f32 / n as f32));
                }
                out.push(to);
            }
        }
    }
    out.push(path.goal());
    out.dedup_by(|a, b| a.distance_squared(*b) < 1e-10);
    if out.len() == 1 {
        out.push(path.goal());
    }
}

/// Moves `next_waypoint` past the points the agent has reached or passed.
fn advance_waypoint(a: &mut Agent) {
    let last = a.waypoints.len().saturating_sub(1);
    let reach = (0.05 * a.radius).max(0.01);
    while a.next_waypoint < last {
        let w = a.waypoints[a.next_waypoint];
        let prev = a.waypoints[a.next_waypoint - 1];
        let seg = w - prev;
        let passed =
            seg.length_squared() > 0.0 && (a.position - prev).dot(seg) >= seg.length_squared();
        if a.position.distance(w) <= reach || passed {
            a.next_waypoint += 1;
        } else {
            break;
        }
    }
    if a.next_waypoint >= 1 && a.next_waypoint <= last {
        let (prev, w) = (
            a.waypoints[a.next_waypoint - 1],
            a.waypoints[a.next_waypoint],
        );
        let off = closest_point_on_segment(a.position, prev, w).distance(a.position);
        if off > (2.0 * a.radius).max(1.0) {
            a.needs_plan = true;
        }
    }
}
