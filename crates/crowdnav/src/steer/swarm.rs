//! Swarm steering: the swarm seed ("swarm-like collision avoidance, path finding and
//! smooth following"), in 2D and in 3D.
//!
//! Like a bird in a flock, or an iron ball among magnets: the target pulls with a unit
//! vector, and every obstacle whose surface is closer than three agent radii pushes
//! along the offset from its centre to the agent's, weighted by one over the gap
//! between their surfaces. The pull is multiplied by `max(1, 4 · contenders)`, the
//! number of obstacles pushing, so that a crowd cannot hold the agent back; the sum is
//! normalised and taken at the agent's speed. Nothing is planned, so moving obstacles
//! and moving targets cost nothing extra: the seed uses it for ships flying between
//! planets on elliptical orbits.
//!
//! Four rules that the seed does not have, for crowds of agents that must all get home
//! (the first two can be switched off in [`SwarmParams`]; the 3D method and pushes from
//! obstacles are the seed's):
//! - **keeping right.** Two agents whose ways cross push each other sideways, along
//!   the line between them, and walk on side by side, neither letting the other pass:
//!   the "who goes first?" lock of the steering seed's part 4. When the crossing is an
//!   exact mirror image (two flows at right angles, symmetric about the diagonal), it
//!   never breaks. So a push from another agent that holds the agent back (points
//!   against its pull) gains as much again sideways to the agent's right — the
//!   steering seed's side of the road. Head-on, both swerve right; at a crossing, the
//!   one coming from the right passes first, as on the road;
//! - **making way.** An agent at rest at its goal, or within a few radii of it, makes
//!   way for a body coming at it (see the `make_way` module) instead of standing in a
//!   row that those still on their way cannot get through;
//! - **following a turned way.** When the preferred velocity turns off the target (a
//!   world turns the way of an agent stuck for long, to try others), the pull follows
//!   it (see [`TURNED`]); otherwise it points at the target, as in the seed;
//! - **home against a wall.** Within a few radii of its target, an agent is not pushed
//!   by a wall that the target lies as near as it does. A place against a wall (the
//!   nearest place where the disc fits, for a goal given in the wall's clearance) lies
//!   where the wall's push, one over the gap, outweighs the pull: the agent stood a few
//!   centimetres short of it for good. On the shipped corridor with starts and places
//!   moved by up to 2 m, 8 of 20 runs left an agent short so, 1 now.
//!
//! **Known weaknesses** (the seed's own): paths are not shortest; an obstacle exactly
//! on the line to the target pushes straight back and the agent stalls where pull and
//! push balance; it can get stuck when the target is hard to reach and fails in mazes.
//! It suits open spaces with few obstacles.
//!
//! **Frames to seconds.** The seed already works in seconds (metres per second times
//! elapsed time), so nothing is converted; the result does not depend on `dt`.
//!
//! 2D and 3D share one core written on [`Vec3`]: the 2D method embeds its plane at
//! `z = 0`.

use super::make_way::{make_way, HOME_RADII};
use super::walls::wall_push;
use super::{clamp_speed, DebugKind, NeighborKind, SteerContext, SteerDebug, Steering};
use glam::{Vec2, Vec3};

/// Tuning of [`Swarm`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SwarmParams {
    /// An obstacle pushes only while the gap between its surface and the agent's is
    /// below this many agent radii. \[Limit: >= 0\] Default 3.
    pub range_radii: f32,
    /// The pull is multiplied by `max(1, contender_pull · contenders)`, where
    /// contenders are the obstacles pushing; 0 keeps the pull at 1. \[Limit: >= 0\]
    /// Default 4.
    pub contender_pull: f32,
    /// Smallest gap used as a divisor, metres, so touching or overlapping bodies give
    /// a large finite push. \[Limit: > 0\] Default 1e-4.
    pub min_gap: f32,
    /// In 3D, a ship stops once its centre is within
    /// `arrival_factor · (radius + target_radius)` of the target's. \[Limit: >= 0\]
    /// Default 1.5.
    pub arrival_factor: f32,
    /// Not in the seed, 2D only: agents keep right. A push from another agent that
    /// holds the agent back (points against its pull) gains as much again sideways to
    /// the agent's right; obstacles push as in the seed. See [`Swarm`]. Default on.
    pub keep_right: bool,
    /// Not in the seed, 2D only: how far ahead, seconds, an agent at rest, or within
    /// 2.2 radii of its target, looks for bodies coming at it, to make way for them
    /// (step off their course, or not step onto it); 0 leaves it to the seed, whose
    /// ships stop once there. \[Limit: >= 0\] Default 2 s.
    pub make_way_horizon: f32,
}

impl Default for SwarmParams {
    fn default() -> Self {
        Self {
            range_radii: 3.0,
            contender_pull: 4.0,
            min_gap: 1.0e-4,
            arrival_factor: 1.5,
            keep_right: true,
            make_way_horizon: 2.0,
        }
    }
}

/// The swarm steering method, in 2D (as a [`Steering`]) and in 3D ([`Swarm::steer_3d`]).
///
/// In 2D the pull points at `ctx.agent.target` (or along the preferred velocity when
/// that turns off the target, see [`TURNED`]) and the speed is that of the preferred
/// velocity (zero once arrived); neighbours push as discs, and walls from their closest
/// point as discs of radius 0 (only from their walkable side).
///
/// In 2D, agents keep right and make way at home (see the module docs).
///
/// Debug vectors (2D): `"pull"` (the scaled pull), `"push"` (the sum of the pushes) and
/// `"final"` (the velocity chosen).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Swarm {
    /// Tuning.
    pub params: SwarmParams,
}

/// A ship in 3D, as [`Swarm::steer_3d`] sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteerAgent3 {
    /// Centre, metres.
    pub position: Vec3,
    /// Radius of its bounding sphere, metres. \[Limit: > 0\]
    pub radius: f32,
    /// Cruise speed, metres per second: the ship flies at this speed until it arrives.
    /// \[Limit: >= 0\]
    pub max_speed: f32,
    /// Centre of the target (it may move between calls).
    pub target: Vec3,
    /// Radius of the target, metres (0 for a point). \[Limit: >= 0\]
    pub target_radius: f32,
}

/// A sphere the ship avoids in 3D (a planet, another ship).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor3 {
    /// Centre, metres.
    pub position: Vec3,
    /// Radius, metres. \[Limit: >= 0\]
    pub radius: f32,
}

/// The core's answer: the scaled pull, the summed push and the unit heading (zero when
/// they cancel).
#[derive(Clone, Copy, Debug)]
struct Heading {
    pull: Vec3,
    push: Vec3,
    direction: Vec3,
}

impl Swarm {
    /// Swarm steering with these parameters.
    pub const fn new(params: SwarmParams) -> Self {
        Self { params }
    }

    /// The velocity of a ship among spheres in 3D: towards `agent.target` at
    /// `agent.max_speed`, bent away from the spheres in `neighbors`; zero once arrived.
    ///
    /// # Example
    /// ```
    /// use crowdnav::steer::{Neighbor3, SteerAgent3, Swarm};
    /// use glam::Vec3;
    /// let ship = SteerAgent3 {
    ///     position: Vec3::ZERO,
    ///     radius: 1.0,
    ///     max_speed: 10.0,
    ///     target: Vec3::new(100.0, 0.0, 0.0),
    ///     target_radius: 5.0,
    /// };
    /// let planet = Neighbor3 { position: Vec3::new(4.0, 1.5, 0.0), radius: 1.0 };
    /// let v = Swarm::default().steer_3d(&ship, &[planet]);
    /// assert!((v.length() - 10.0).abs() < 1e-4 && v.y < 0.0);
    /// ```
    pub fn steer_3d(&self, agent: &SteerAgent3, neighbors: &[Neighbor3]) -> Vec3 {
        let to_target = agent.target - agent.position;
        let distance = to_target.length();
        let arrival = self.params.arrival_factor * (agent.radius + agent.target_radius);
        // Also stops on a NaN distance or arrival radius.
        if distance.partial_cmp(&arrival) != Some(std::cmp::Ordering::Greater) {
            return Vec3::ZERO;
        }
        let pushers = neighbors
            .iter()
            .map(|n| (agent.position - n.position, n.radius, false));
        let heading = self.heading(to_target / distance, agent.radius, None, pushers);
        clamp_speed_3d(heading.direction * agent.max_speed, agent.max_speed)
    }

    /// The shared core: the unit `pull`, the agent's `radius`, and the pushing bodies as
    /// (offset from the body's centre to the agent's, body radius, whether it keeps
    /// right with the agent). `right` is the agent's right (the pull turned a quarter
    /// turn clockwise in 2D), `None` in 3D where there is no right.
    fn heading(
        &self,
        pull: Vec3,
        radius: f32,
        right: Option<Vec3>,
        bodies: impl IntoIterator<Item = (Vec3, f32, bool)>,
    ) -> Heading {
        let p = &self.params;
        let mut push = Vec3::ZERO;
        let mut contenders = 0_u32;
        for (offset, body_radius, keeps_right) in bodies {
            let gap = offset.length() - body_radius - radius;
            if gap < p.range_radii * radius {
                contenders += 1;
                let mut one = offset / gap.max(p.min_gap).max(f32::MIN_POSITIVE);
                let against = -one.dot(pull);
                if let (true, Some(right)) = (keeps_right && against > 0.0, right) {
                    one += right * against;
                }
                push += one;
            }
        }
        let pull = pull * (p.contender_pull * contenders as f32).max(1.0);
        Heading {
            pull,
            push,
            direction: (pull + push).normalize_or_zero(),
        }
    }
}

impl Steering for Swarm {
    fn name(&self) -> &'static str {
        "swarm"
    }

    fn steer(&self, ctx: &SteerContext<'_>, debug: Option<&mut SteerDebug>) -> Vec2 {
        let agent = &ctx.agent;
        let p = &self.params;
        if agent.preferred_velocity == Vec2::ZERO {
            // At rest at its goal: make way for whoever comes.
            let velocity = make_way(
                agent,
                Vec2::ZERO,
                ctx.neighbors,
                ctx.walls,
                p.make_way_horizon,
                ctx.dt,
            );
            if let Some(d) = debug {
                d.push(DebugKind::Final, agent.position, velocity);
            }
            return velocity;
        }
        let speed = agent.preferred_velocity.length();
        let way = agent.preferred_velocity.try_normalize();
        let pull = (agent.target - agent.position)
            .try_normalize()
            .map(|to_target| match way {
                // Its way turned off the target: the pull follows it (see `TURNED`).
                Some(way) if way.dot(to_target) < TURNED => way,
                _ => to_target,
            })
            .or(way);
        let Some(pull) = pull.filter(|_| speed.is_finite()) else {
            return Vec2::ZERO;
        };
        let discs = ctx.neighbors.iter().map(|n| {
            let keeps_right = p.keep_right && n.kind == NeighborKind::Agent;
            (
                (agent.position - n.position).extend(0.0),
                n.radius,
                keeps_right,
            )
        });
        // Home, or nearly: a wall that its target lies as near as it does pushes it no
        // more (see `HOME_RADII` and the module docs).
        let near_home = agent.target.distance(agent.position) <= HOME_RADII * agent.radius;
        let walls = ctx.walls.iter().filter_map(move |w| {
            if near_home && w.distance_squared(agent.target) <= w.distance_squared(agent.position) {
                return None;
            }
            let (away, distance) = wall_push(w, agent.position, agent.radius)?;
            Some(((away * distance).extend(0.0), 0.0, false))
        });
        let right = Vec2::new(pull.y, -pull.x).extend(0.0);
        let heading = self.heading(
            pull.extend(0.0),
            agent.radius,
            Some(right),
            discs.chain(walls),
        );
        let mut velocity = heading.direction.truncate() * speed;
        if near_home {
            // Home, or nearly: still make way.
            velocity = make_way(
                agent,
                velocity,
                ctx.neighbors,
                ctx.walls,
                p.make_way_horizon,
                ctx.dt,
            );
        }
        let velocity = clamp_speed(velocity, agent.max_speed);
        if let Some(d) = debug {
            d.push(DebugKind::Pull, agent.position, heading.pull.truncate());
            d.push(DebugKind::Push, agent.position, heading.push.truncate());
            d.push(DebugKind::Final, agent.position, velocity);
        }
        velocity
    }
}

/// The cosine below which the preferred velocity counts as turned off the target
/// (0.8°), in 2D: the pull then follows the preferred velocity instead of pointing at
/// the target. Whoever sets the preferred velocity may turn an agent's way; a world
/// does for an agent stuck for long, which tries other ways. The seed's pull at the
/// target ignored that, and an agent pinched between a wall and another resting near
/// its place was pushed back and forth between them for good: on the shipped corridor
/// with starts and places moved by up to a metre, 8 of 30 such runs left 2 to 5 agents
/// short of their places, none now (`swarm_brings_everyone_home_when_starts_and_places_move`
/// in tests/seed_methods_arrive.rs). 0.8° lies far above the rounding of a preferred
/// velocity taken towards the target, so the pull is the seed's whenever the way is
/// not turned.
const TURNED: f32 = 0.9999;

/// [`clamp_speed`] in 3D.
fn clamp_speed_3d(v: Vec3, max: f32) -> Vec3 {
    if !v.is_finite() || !max.is_finite() || max <= 0.0 {
        return Vec3::ZERO;
    }
    v.clamp_length_max(max)
}

#[cfg(test)]
#[path = "swarm_test.rs"]
mod tests;
