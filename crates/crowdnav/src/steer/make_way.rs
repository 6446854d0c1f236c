//! Making way: what an agent of the two seed methods does while it rests at its goal.
//!
//! Neither seed says what an entity does once it has reached its target: it stands
//! there, and whoever comes later must get past. In a formation or a corridor the
//! agents already home stand in rows with gaps narrower than an agent, and those still
//! on their way can only push against them (the steering seed's force, or the swarm
//! seed's) until the step limit. People make way instead: a resting agent that sees a
//! body coming at it steps sideways off that body's course, just far enough and just
//! in time for it to pass, and walks back to its goal afterwards (the world gives it a
//! preferred velocity home as soon as it has left it).
//!
//! The resting agent reads the body's course as the world shows it: an agent on its way
//! is shown to a resting one with its preferred velocity, so the resting one makes way
//! for where the other wants to go, not for where it is being pushed. It steps to its own
//! side of that course, to the body's right on an exact tie (the steering seed's side of
//! the road), and not into a wall it touches.

use super::walls::wall_push;
use super::{Neighbor, SteerAgent};
use crate::geom::Segment;
use glam::Vec2;

/// How much room, as a fraction of the two radii, a resting agent leaves beyond
/// contact when it steps aside.
const CLEARANCE: f32 = 0.1;

/// How near its target, in its own radii, an agent counts as at home and makes way:
/// as far as making way can take it from home (two radii and the clearance), so that
/// one that stepped aside does not walk back onto a course before the body has passed.
pub(super) const HOME_RADII: f32 = 2.0 * (1.0 + CLEARANCE);

/// `velocity`, corrected so that `agent`, at or near home, makes way for the bodies
/// coming at it within `horizon` seconds.
///
/// For each such body, nearest first: when the body is level with the agent (in `t`
/// seconds, at least `dt`), the agent must stand at least the two radii and the
/// clearance off its course, `c`, to its own side of it; standing `l` off it now, the
/// agent's velocity away from the course must be at least `(c - l) / t`. When it falls
/// short, the missing part is added: an agent on the course steps aside just far
/// enough and just in time; one beside it does not step onto it; one walking home does
/// not walk back onto it before the body has passed. Then no velocity is left into a
/// wall that the agent touches or would touch within the step. Capped at the agent's
/// top speed; `velocity` unchanged (but capped) for a `horizon` of zero, walls
/// included.
pub(super) fn make_way(
    agent: &SteerAgent,
    velocity: Vec2,
    neighbors: &[Neighbor],
    walls: &[Segment],
    horizon: f32,
    dt: f32,
) -> Vec2 {
    let mut velocity = if velocity.is_finite() {
        velocity
    } else {
        Vec2::ZERO
    };
    if horizon.is_nan() || horizon <= 0.0 {
        return velocity.clamp_length_max(agent.max_speed.max(0.0));
    }
    for n in neighbors {
        let Some(heading) = n.velocity.try_normalize() else {
            continue;
        };
        let offset = agent.position - n.position;
        let along = offset.dot(heading);
        let time = along / n.velocity.length();
        // Only bodies coming at the agent, soon enough.
        if !(along > 0.0 && time <= horizon) {
            continue;
        }
        let lateral = offset - heading * along;
        let clear = (agent.radius + n.radius) * (1.0 + CLEARANCE);
        // Its own side of the course; on the course itself, the body's right.
        let side = lateral
            .try_normalize()
            .unwrap_or(Vec2::new(heading.y, -heading.x));
        let least = (clear - lateral.length()) / time.max(dt).max(f32::MIN_POSITIVE);
        let away = velocity.dot(side);
        if away < least {
            velocity += side * (least - away);
        }
    }
    for wall in walls {
        let Some((away, distance)) = wall_push(wall, agent.position, agent.radius) else {
            continue;
        };
        let into = -velocity.dot(away);
        if into > 0.0 && distance - into * dt.max(0.0) <= agent.radius {
            velocity += away * into;
        }
    }
    if velocity.is_finite() {
        velocity.clamp_length_max(agent.max_speed.max(0.0))
    } else {
        Vec2::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::NeighborKind;

    fn resting(position: Vec2) -> SteerAgent {
        SteerAgent {
            position,
            velocity: Vec2::ZERO,
            radius: 0.5,
            max_speed: 2.0,
            preferred_velocity: Vec2::ZERO,
            target: position,
        }
    }

    fn passer(position: Vec2, velocity: Vec2) -> Neighbor {
        Neighbor {
            position,
            velocity,
            radius: 0.5,
            preferred_velocity: velocity,
            kind: NeighborKind::Agent,
            same_destination: false,
        }
    }

    #[test]
    fn a_resting_agent_steps_off_the_course_of_a_body_coming_at_it() {
        let me = resting(Vec2::new(0.0, 0.3));
        // Coming along y = 0 at 1 m/s, 2 m away: it misses 1.1 - 0.3 = 0.8 m of room
        // and has 2 s to make it, on its own side (+y).
        let v = make_way(
            &me,
            Vec2::ZERO,
            &[passer(Vec2::new(-2.0, 0.0), Vec2::X)],
            &[],
            3.0,
            0.05,
        );
        assert!(v.distance(Vec2::new(0.0, 0.4)) < 1e-5, "{v}");
        // Too far ahead in time, going away, or passing clear: nothing.
        let far = passer(Vec2::new(-4.0, 0.0), Vec2::X);
        let away = passer(Vec2::new(-2.0, 0.0), -Vec2::X);
        let clear = passer(Vec2::new(-2.0, -1.0), Vec2::X);
        for n in [far, away, clear] {
            assert_eq!(make_way(&me, Vec2::ZERO, &[n], &[], 3.0, 0.05), Vec2::ZERO);
        }
        // Switched off.
        let n = passer(Vec2::new(-2.0, 0.0), Vec2::X);
        assert_eq!(make_way(&me, Vec2::ZERO, &[n], &[], 0.0, 0.05), Vec2::ZERO);
    }

    #[test]
    fn dead_on_its_course_it_steps_to_the_bodys_right_but_not_into_a_wall() {
        let me = resting(Vec2::ZERO);
        let n = passer(Vec2::new(-1.0, 0.0), Vec2::X);
        let v = make_way(&me, Vec2::ZERO, &[n], &[], 3.0, 0.05);
        assert!(v.y < 0.0 && v.x == 0.0, "{v}");
        assert!(v.length() <= 2.0 + 1e-6);
        // A wall along y = -0.5 (walkable above) that it touches holds it.
        let wall = Segment::new(Vec2::new(-5.0, -0.5), Vec2::new(5.0, -0.5));
        let v = make_way(&me, Vec2::ZERO, &[n], &[wall], 3.0, 0.05);
        assert!(v.length() < 1e-6, "{v}");
    }

    #[test]
    fn walking_home_it_does_not_step_onto_the_course_before_the_body_has_passed() {
        // 1.5 m above a course along y = 0, walking home straight down at 1 m/s; the
        // body is level with it in 1 s: it may come down at most 0.4 m/s.
        let me = resting(Vec2::new(0.0, 1.5));
        let n = passer(Vec2::new(-1.0, 0.0), Vec2::X);
        let v = make_way(&me, Vec2::new(0.0, -1.0), &[n], &[], 3.0, 0.05);
        assert!(v.distance(Vec2::new(0.0, -0.4)) < 1e-5, "{v}");
        // Sideways it is free.
        let v = make_way(&me, Vec2::new(0.7, -0.2), &[n], &[], 3.0, 0.05);
        assert!(v.distance(Vec2::new(0.7, -0.2)) < 1e-6, "{v}");
    }

    #[test]
    fn degenerate_input_stays_finite() {
        let me = resting(Vec2::ZERO);
        let on_top = passer(Vec2::ZERO, Vec2::X);
        let nan = passer(Vec2::new(-1.0, 0.0), Vec2::NAN);
        let v = make_way(&me, Vec2::ZERO, &[on_top, nan], &[], f32::NAN, 0.0);
        assert_eq!(v, Vec2::ZERO);
        let v = make_way(&me, Vec2::ZERO, &[on_top, nan], &[], 2.0, 0.0);
        assert!(v.is_finite() && v.length() <= 2.0 + 1e-6);
    }
}
