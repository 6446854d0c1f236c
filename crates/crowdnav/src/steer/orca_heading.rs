//! Looking for a way around people coming the other way ([`OrcaParams::vision`]).
//!
//! Before the half-planes are built, an agent that sees people walking against it
//! (more than 120° off its own way), people walking across it, or moving obstacles
//! ahead picks its preferred
//! direction by the heuristic of Moussaïd, Helbing and Theraulaz ("How simple rules
//! determine pedestrian behavior and crowd disasters", PNAS 2011): for each direction
//! `α` within its field of view, `f(α)` is how far it could walk along `α` at its
//! preferred speed before touching one of them, each keeping its current velocity (at
//! most the horizon `d_max`: the neighbour range, or the distance to where the agent is
//! heading, [`SteerAgent::target`], when that is nearer, as in Moussaïd's model where
//! the horizon ends at the destination); it takes the `α` that brings it nearest the
//! point `d_max` ahead on its way:
//!
//! ```text
//! d²(α) = d_max² + f(α)² − 2 · d_max · f(α) · cos α
//! ```
//!
//! Going straight on is best when nothing blocks it; someone coming head-on in its lane
//! makes a small step aside better, towards the side where the way stays free longest,
//! which is behind someone walking its own way. So two streams sort themselves into
//! lanes. Ties go to the agent's right. An agent that has stopped looks wider (up to
//! 90° each side at a standstill), so two that block each other face to face find the
//! way out sideways.
//!
//! It looks over its [`OrcaParams::vision_neighbors`] nearest (40 for people), more
//! than the half-planes take: in a dense stream the nearest ten walk its own way, and
//! the oncoming stream would come into view only at arm's length.
//!
//! People walking across its way (more than 60° off, not against it) count when they
//! walk (0.5 m/s or more) and the agent is on a straight leg (its next corner at least
//! the neighbour range off). Two crossing streams then turn to pass each other rather
//! than packing into a block where they meet (a block of people standing across each
//! other's ways drains only from its edge). With only them in view, an agent looks
//! no more than 35° aside, even when stopped: wider, it turned with the other stream
//! into that stream's corridor and had to come back round the corner against it.
//! Two or more of them closing in make a stream, and the agent prefers to pass behind
//! it: a way in front of it counts for 70 % of its free length, so a turn that way is
//! taken only when clearly better. Where two corridors cross, each stream then drifts
//! towards where the other comes from, within its own corridor, instead of both
//! drifting to the corner where they leave and meeting there head-on.
//! People standing in a jam, and people converging on the corner it heads for (at a
//! door), are left to the half-planes.
//!
//! People walking its way are left out on purpose: a crowd pressing towards a door
//! would otherwise see its way blocked by those queueing ahead and slide along the wall
//! instead of queueing (their spacing is the time gap's job). Walls end a free way only
//! within half a metre (nearer, a way around someone into a wall is no way; further,
//! they are left to the hard half-planes). The horizon of an agent that has stopped is
//! at least a metre, so that near its place it still steps aside for someone who must
//! get past. The ORCA half-planes then keep the chosen velocity collision-free: this
//! only changes what the agent would like.

#[cfg(doc)]
use super::SteerAgent;
use super::{NeighborKind, OrcaParams, SteerContext};
use crate::geom::capsule_entry;
use glam::Vec2;

/// The cosine below which a neighbour's preferred way counts as against the agent's
/// own (more than 120° apart).
const AGAINST: f32 = -0.5;

/// The angle between two directions looked at, radians (5°).
const STEP: f32 = 5.0 * std::f32::consts::PI / 180.0;

/// The shortest horizon of an agent that has stopped, metres: an arm's length and a
/// step (it shrinks with how fast the agent walks, to none at its preferred speed).
const MIN_HORIZON: f32 = 1.0;

/// How near a wall must be along a direction, metres, to end the free way that the
/// agent sees along it. Nearer walls keep it from choosing a way around someone that
/// runs straight into a wall (against a wall, two people face to face then both turned
/// to the wall and stood); walls further off are left to the half-planes, so that a
/// stream still uses its lanes along the walls.
const WALL_REACH: f32 = 0.5;

/// How far to either side an agent that has stopped looks, radians (90°).
const STOPPED_VISION: f32 = std::f32::consts::FRAC_PI_2;

/// The cosine below which a walking neighbour's preferred way counts as crossing the
/// agent's own (more than 60° apart), when it is not against it.
const CROSSING: f32 = 0.5;

/// How fast, m/s, someone crossing the agent's way must walk to be looked out for:
/// people standing or creeping in a jam are left to the half-planes (looking for a way
/// around a packed block only sent people sideways into it).
const CROSSING_SPEED: f32 = 0.5;

/// How far to either side an agent looks, radians (35°), when only people crossing its
/// way are in view. It is enough to pass behind them; looking wider let people turn
/// with the other stream into its corridor, from where they had to come back round
/// the corner against it.
const CROSSING_VISION: f32 = 35.0 * std::f32::consts::PI / 180.0;

/// How much of its free length a way in front of a stream of people crossing counts
/// for (see [`CROSSING_STREAM`]): a way that passes behind them is taken unless one in
/// front is clearly better. Turning to pass in front of a stream means walking the way
/// it walks; at a crossing of two corridors, the two streams then carried each other
/// into the other's corridor and met head-on at its corner (a block of both that stood
/// for a minute on one crossing in thirty).
const CROSSING_FRONT: f32 = 0.7;

/// How many people crossing an agent's way, in view and closing in on it, make a
/// stream that it passes behind ([`CROSSING_FRONT`]). One alone is passed on either
/// side: in the hall behind a door, people fanning out to their places cross one
/// another's ways one at a time, and passing behind slowed the door.
const CROSSING_STREAM: usize = 2;

/// Why a neighbour is looked out for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Walking against the agent (more than 120° off its way), or a moving obstacle.
    Against,
    /// Walking across its way.
    Crossing,
}

/// `preferred` turned to the direction within the agent's field of view that leads
/// nearest its way's end, as the module docs say; `preferred` itself, bit for bit, when
/// nobody it looks out for is in range, when it stands, or when the vision is not a
/// positive angle. Its length (the speed) never changes. `oncoming` is scratch. With
/// it, whether the agent was turned to pass a stream crossing its way (at least
/// `CROSSING_STREAM` people crossing and closing in, nobody walking against it in
/// view): then it keeps that way rather than step out of a queue (`OVERTAKE_ANGLE` in
/// orca.rs), which would take it back into the stream.
pub(super) fn look_for_a_way(
    ctx: &SteerContext<'_>,
    preferred: Vec2,
    params: &OrcaParams,
    oncoming: &mut Vec<(Vec2, Vec2, f32)>,
) -> (Vec2, bool) {
    let vision = params.vision;
    // Moussaïd's horizon: the neighbour range, or the distance to where the agent is
    // heading when that is nearer (people beyond it are no concern of this leg).
    let to_target = ctx.agent.target.distance(ctx.agent.position);
    // How much slower than it wants to walk it is: 1 at a standstill.
    let speed = preferred.length();
    let slowed = 1.0 - (ctx.agent.velocity.length() / speed).clamp(0.0, 1.0);
    let slowed = if slowed.is_finite() { slowed } else { 0.0 };
    // Stopped, it looks at least `MIN_HORIZON` ahead, so that one stopped near its
    // place still sees the point of stepping aside for someone who must get past it.
    let horizon = if to_target < params.neighbor_dist {
        to_target.max((MIN_HORIZON * slowed).min(params.neighbor_dist))
    } else {
        params.neighbor_dist
    };
    if !(vision > 0.0 && horizon > 0.0 && horizon.is_finite()) {
        return (preferred, false);
    }
    let Some(way) = preferred.try_normalize() else {
        return (preferred, false);
    };
    let agent = &ctx.agent;
    // People crossing its way count only on a straight leg: near a corner (a door's
    // post) the horizon is short and people converging on the same corner cross
    // each other's ways without being in each other's way.
    let sees_crossing = to_target >= params.neighbor_dist;
    let seen = |neighbor: &super::Neighbor| {
        if neighbor.kind == NeighborKind::Obstacle {
            return Some(Seen::Against);
        }
        let cosine = neighbor.preferred_velocity.normalize_or_zero().dot(way);
        if cosine < AGAINST {
            Some(Seen::Against)
        } else if sees_crossing
            && cosine < CROSSING
            && neighbor.velocity.length_squared() >= CROSSING_SPEED * CROSSING_SPEED
        {
            Some(Seen::Crossing)
        } else {
            None
        }
    };
    // Everyone it looks out for, once: offset, velocity and contact distance.
    let range_squared = horizon * horizon;
    let (mut in_view, mut against_in_view) = (false, false);
    // People crossing in view and closing in: how many, and which way they walk
    // (positive: to the agent's left).
    let (mut crossing, mut leftwards) = (0usize, 0.0f32);
    oncoming.clear();
    for neighbor in ctx.neighbors.iter().take(params.seen_neighbors()) {
        let Some(kind) = seen(neighbor) else {
            continue;
        };
        let offset = neighbor.position - agent.position;
        if offset.length_squared() < range_squared {
            in_view = true;
            against_in_view |= kind == Seen::Against;
            if kind == Seen::Crossing && offset.dot(neighbor.velocity - preferred) < 0.0 {
                crossing += 1;
                leftwards += way.perp_dot(neighbor.velocity);
            }
        }
        oncoming.push((offset, neighbor.velocity, agent.radius + neighbor.radius));
    }
    // Nobody it looks out for within its horizon: straight on.
    if !in_view {
        return (preferred, false);
    }
    // Slower than it wants to walk: look wider, up to 90° at a standstill; with only
    // people crossing its way in view, no wider than `CROSSING_VISION`.
    let vision = vision.min(STOPPED_VISION);
    let vision = vision + (STOPPED_VISION - vision) * slowed;
    let vision = if against_in_view {
        vision
    } else {
        vision.min(CROSSING_VISION)
    };
    let steps = (vision / STEP) as i32;
    // A stream of people crossing (and nobody against it): the side they walk to is
    // the side in front of them (a turn to the left is a positive angle).
    let stream = !against_in_view && crossing >= CROSSING_STREAM;
    // Straight on first, then alternately right and left, further out each time: the
    // first of equally good directions is kept, so ties go straight on, then right.
    let mut best = (f32::INFINITY, 0.0f32);
    for k in 0..=2 * steps {
        let index = if k % 2 == 1 { -(k + 1) / 2 } else { k / 2 };
        let angle = index as f32 * STEP;
        let direction = Vec2::from_angle(angle).rotate(way);
        let velocity = direction * speed;
        let mut free = horizon;
        if let Some(wall) = wall_ahead(ctx, direction) {
            free = free.min(wall);
        }
        for &(offset, their_velocity, contact) in oncoming.iter() {
            if let Some(time) = time_to_contact(offset, velocity - their_velocity, contact) {
                free = free.min(time * speed);
            }
        }
        if stream && angle * leftwards > 0.0 {
            free *= CROSSING_FRONT;
        }
        let distance_squared = horizon * horizon + free * free - 2.0 * horizon * free * angle.cos();
        if distance_squared < best.0 {
            best = (distance_squared, angle);
        }
    }
    if best.1 == 0.0 || !best.0.is_finite() {
        return (preferred, false);
    }
    (Vec2::from_angle(best.1).rotate(way) * speed, stream)
}

/// How far, metres, the agent could walk along the unit `direction` before its disc
/// touches one of the walls it sees, when that is less than [`WALL_REACH`].
fn wall_ahead(ctx: &SteerContext<'_>, direction: Vec2) -> Option<f32> {
    wall_within(ctx, direction, WALL_REACH)
}

/// How far the agent could walk along the unit `direction` before its disc touches
/// one of the walls it sees, when that is less than `reach`.
pub(super) fn wall_within(ctx: &SteerContext<'_>, direction: Vec2, reach: f32) -> Option<f32> {
    let (position, radius) = (ctx.agent.position.as_dvec2(), f64::from(ctx.agent.radius));
    let direction = direction.as_dvec2();
    ctx.walls
        .iter()
        .filter_map(|wall| {
            capsule_entry(
                position,
                direction,
                wall.a.as_dvec2(),
                wall.b.as_dvec2(),
                radius,
                f64::from(reach),
            )
        })
        .reduce(f64::min)
        .map(|distance| distance as f32)
}

/// The time, seconds, until a disc at the origin moving at `relative` (its velocity
/// less the other's) touches another at `offset` when their radii sum to `contact`:
/// 0 when they touch already and close in, `None` when it never does.
fn time_to_contact(offset: Vec2, relative: Vec2, contact: f32) -> Option<f32> {
    let closing = offset.dot(relative);
    if closing.is_nan() || closing <= 0.0 {
        return None;
    }
    let gap = offset.length_squared() - contact * contact;
    if gap <= 0.0 {
        return Some(0.0);
    }
    let discriminant = closing * closing - relative.length_squared() * gap;
    if discriminant.is_nan() || discriminant < 0.0 {
        return None;
    }
    // The smaller root of |offset − t · relative| = contact, in the form that does not
    // cancel.
    Some(gap / (closing + discriminant.sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::{Neighbor, SteerAgent, Steering};

    fn walker(position: Vec2, velocity: Vec2) -> Neighbor {
        Neighbor {
            position,
            velocity,
            radius: 0.25,
            preferred_velocity: velocity,
            kind: NeighborKind::Agent,
            same_destination: false,
        }
    }

    fn agent() -> SteerAgent {
        SteerAgent {
            position: Vec2::ZERO,
            velocity: Vec2::new(1.3, 0.0),
            radius: 0.25,
            max_speed: 2.0,
            preferred_velocity: Vec2::new(1.3, 0.0),
            target: Vec2::new(20.0, 0.0),
        }
    }

    fn look(neighbors: &[Neighbor]) -> Vec2 {
        look_as(agent(), neighbors, &[])
    }

    /// Where `agent`, wanting its preferred velocity, looks to go among `neighbors` and
    /// `walls` with the people preset.
    fn look_as(agent: SteerAgent, neighbors: &[Neighbor], walls: &[crate::geom::Segment]) -> Vec2 {
        let ctx = SteerContext {
            agent,
            neighbors,
            walls,
            dt: 0.1,
            opening: None,
        };
        look_for_a_way(
            &ctx,
            agent.preferred_velocity,
            &OrcaParams::people(),
            &mut Vec::new(),
        )
        .0
    }

    #[test]
    fn contact_times_match_the_geometry() {
        // Closing at 2 m/s from 3 m apart, radii summing to 1: touch after 1 s.
        let t = time_to_contact(Vec2::new(3.0, 0.0), Vec2::new(2.0, 0.0), 1.0);
        assert!((t.expect("meets") - 1.0).abs() < 1e-6);
        // Passing 2 m aside never touches; moving apart never touches.
        assert_eq!(
            time_to_contact(Vec2::new(3.0, 2.0), Vec2::new(2.0, 0.0), 1.0),
            None
        );
        assert_eq!(
            time_to_contact(Vec2::new(3.0, 0.0), Vec2::new(-2.0, 0.0), 1.0),
            None
        );
        // Touching and closing in: now.
        assert_eq!(
            time_to_contact(Vec2::new(0.9, 0.0), Vec2::new(1.0, 0.0), 1.0),
            Some(0.0)
        );
        assert_eq!(time_to_contact(Vec2::new(3.0, 0.0), Vec2::NAN, 1.0), None);
    }

    #[test]
    fn someone_coming_head_on_makes_the_agent_step_aside_to_its_right() {
        let v = look(&[walker(Vec2::new(3.0, 0.0), Vec2::new(-1.3, 0.0))]);
        assert!(v.y < 0.0, "steps to its right: {v}");
        assert!((v.length() - 1.3).abs() < 1e-5, "same speed: {v}");
        assert!(v.x > 0.0, "still walks on: {v}");
    }

    #[test]
    fn the_agent_steps_to_the_side_that_stays_free() {
        // Oncoming people slightly to its right: it goes left, not right.
        let v = look(&[
            walker(Vec2::new(3.0, -0.3), Vec2::new(-1.3, 0.0)),
            walker(Vec2::new(3.5, -0.8), Vec2::new(-1.3, 0.0)),
        ]);
        assert!(v.y > 0.0, "goes left of them: {v}");
    }

    #[test]
    fn a_wall_at_its_right_sends_it_left_around_someone_coming_head_on() {
        // Someone head-on, and a wall just off its right side (0.3 m from its centre:
        // its disc is 0.05 m from it). Without the wall it would step right (see
        // above); stepping right runs into the wall, so it goes left.
        let wall = [crate::geom::Segment::new(
            Vec2::new(-5.0, -0.3),
            Vec2::new(20.0, -0.3),
        )];
        let oncoming = [walker(Vec2::new(3.0, 0.0), Vec2::new(-1.3, 0.0))];
        let v = look_as(agent(), &oncoming, &wall);
        assert!(v.y > 0.0, "goes left, away from the wall: {v}");
        // A wall further off than `WALL_REACH` is the half-planes' business.
        let far = [crate::geom::Segment::new(
            Vec2::new(-5.0, -2.0),
            Vec2::new(20.0, -2.0),
        )];
        let v = look_as(agent(), &oncoming, &far);
        assert!(v.y < 0.0, "a wall 2 m off changes nothing: {v}");
    }

    #[test]
    fn stopped_near_its_place_it_still_steps_aside_for_someone_face_to_face() {
        // Standing 0.4 m short of its place, someone standing face to face with it
        // 0.2 m apart who wants to get past. With the horizon ending at its place, a
        // step aside never looked better than straight on, and the two stood for good.
        let stopped = SteerAgent {
            velocity: Vec2::ZERO,
            preferred_velocity: Vec2::new(0.8, 0.0),
            target: Vec2::new(0.4, 0.0),
            ..agent()
        };
        let oncoming = [walker(Vec2::new(0.7, 0.0), Vec2::ZERO)];
        let mut oncoming = oncoming;
        oncoming[0].preferred_velocity = Vec2::new(-1.3, 0.0);
        let v = look_as(stopped, &oncoming, &[]);
        assert!(v.y.abs() > 0.3, "steps aside: {v}");
        // Walking at its preferred speed, its horizon still ends at its place.
        let walking = SteerAgent {
            velocity: stopped.preferred_velocity,
            ..stopped
        };
        let v = look_as(walking, &oncoming, &[]);
        assert_eq!(v.to_array(), walking.preferred_velocity.to_array());
    }

    #[test]
    fn someone_walking_across_its_way_makes_it_turn_no_more_than_the_crossing_view() {
        // Someone coming from its right, walking north, on course to meet it 2.6 m
        // ahead in 2 s.
        let crosser = walker(Vec2::new(2.6, -2.6), Vec2::new(0.0, 1.3));
        let v = look(&[crosser]);
        let turned = v.angle_to(agent().preferred_velocity).abs();
        assert!(turned > 0.0, "turns to pass them: {v}");
        assert!(turned <= CROSSING_VISION + 1e-5, "within the view: {v}");
        assert!((v.length() - 1.3).abs() < 1e-5, "same speed: {v}");
        // Stopped, it would look up to 90° aside for someone coming against it; for
        // someone crossing, it still looks no wider than `CROSSING_VISION`, or it
        // turned with the other stream into its corridor.
        let stopped = SteerAgent {
            velocity: Vec2::ZERO,
            ..agent()
        };
        let near = [walker(Vec2::new(0.8, -0.6), Vec2::new(0.0, 1.3))];
        let v = look_as(stopped, &near, &[]);
        let turned = v.angle_to(stopped.preferred_velocity).abs();
        assert!(turned > 0.0, "turns: {v}");
        assert!(turned <= CROSSING_VISION + 1e-5, "within the view: {v}");
    }

    /// Turned to pass a stream crossing its way, the agent says so (it then keeps that
    /// way rather than step out of a queue); turned around one person crossing alone,
    /// or around someone coming against it, or not turned, it does not.
    #[test]
    fn a_turn_around_a_crossing_stream_is_told_apart() {
        let preferred = agent().preferred_velocity;
        let params = OrcaParams::people();
        let look_among = |neighbors: &[Neighbor]| {
            let ctx = SteerContext {
                agent: agent(),
                neighbors,
                walls: &[],
                dt: 0.1,
                opening: None,
            };
            look_for_a_way(&ctx, preferred, &params, &mut Vec::new())
        };
        let crosser = walker(Vec2::new(2.6, -2.6), Vec2::new(0.0, 1.3));
        let behind_it = walker(Vec2::new(2.6, -3.4), Vec2::new(0.0, 1.3));
        let (turned, around_stream) = look_among(&[crosser, behind_it]);
        assert!(turned != preferred && around_stream, "{turned}");
        let (turned, around_stream) = look_among(&[crosser]);
        assert!(turned != preferred && !around_stream, "{turned}");
        let (turned, around_stream) =
            look_among(&[walker(Vec2::new(3.0, 0.0), Vec2::new(-1.3, 0.0))]);
        assert!(turned != preferred && !around_stream, "{turned}");
        assert_eq!(look_among(&[]), (preferred, false));
    }

    #[test]
    fn people_crossing_when_standing_or_near_a_corner_change_nothing() {
        let preferred = agent().preferred_velocity;
        // Standing (or creeping) in its way, crossing: left to the half-planes.
        let mut standing = walker(Vec2::new(1.0, 0.0), Vec2::new(0.0, 0.3));
        assert_eq!(look(&[standing]).to_array(), preferred.to_array());
        // Walking across it, but it is 2 m from the corner it heads for (a door's
        // post): people converging on one corner cross ways without being in the way.
        standing.velocity = Vec2::new(0.0, 1.3);
        standing.position = Vec2::new(1.3, -1.3);
        assert_ne!(look(&[standing]).to_array(), preferred.to_array());
        let at_corner = SteerAgent {
            target: Vec2::new(2.0, 0.0),
            ..agent()
        };
        let v = look_as(at_corner, &[standing], &[]);
        assert_eq!(v.to_array(), preferred.to_array());
    }

    #[test]
    fn people_walking_the_same_way_or_far_off_change_nothing() {
        let preferred = agent().preferred_velocity;
        // Queued behind someone slower walking its way: the time gap's job.
        let ahead = walker(Vec2::new(0.6, 0.0), Vec2::new(0.2, 0.0));
        assert_eq!(look(&[ahead]).to_array(), preferred.to_array());
        // Coming the other way but beyond the neighbour range.
        let far = walker(Vec2::new(8.0, 0.0), Vec2::new(-1.3, 0.0));
        assert_eq!(look(&[far]).to_array(), preferred.to_array());
        // Coming the other way in another lane: straight on stays best.
        let aside = walker(Vec2::new(3.0, 1.5), Vec2::new(-1.3, 0.0));
        assert_eq!(look(&[aside]).to_array(), preferred.to_array());
    }

    #[test]
    fn vision_zero_or_nan_and_bad_numbers_change_nothing() {
        let oncoming = [walker(Vec2::new(3.0, 0.0), Vec2::new(-1.3, 0.0))];
        let ctx = SteerContext {
            agent: agent(),
            neighbors: &oncoming,
            walls: &[],
            dt: 0.1,
            opening: None,
        };
        let preferred = ctx.agent.preferred_velocity;
        for vision in [0.0, f32::NAN, -1.0] {
            let params = OrcaParams {
                vision,
                ..OrcaParams::people()
            };
            assert_eq!(
                look_for_a_way(&ctx, preferred, &params, &mut Vec::new())
                    .0
                    .to_array(),
                preferred.to_array()
            );
        }
        let params = OrcaParams::people();
        let broken = [walker(Vec2::NAN, Vec2::new(-1.3, 0.0))];
        let ctx = SteerContext {
            neighbors: &broken,
            ..ctx
        };
        assert_eq!(
            look_for_a_way(&ctx, preferred, &params, &mut Vec::new())
                .0
                .to_array(),
            preferred.to_array()
        );
        let v = crate::steer::Orca::default().steer(&ctx, None);
        assert!(v.is_finite(), "{v}");
    }
}
