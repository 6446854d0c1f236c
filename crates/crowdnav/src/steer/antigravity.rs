//! Anti-gravity steering: the steering seed ("Point A to Point B", parts 1 to 4).
//!
//! The agent heads along its preferred velocity, and every neighbour, moving obstacle
//! and wall pushes it away with a force that falls off with the square of the distance
//! ("anti-gravity"); a wall pushes from its closest point, like a body of radius 0, and
//! only from its walkable side. The four parts of the seed each fix one failure of the previous:
//!
//! 1. **Cardioid.** A push is weighted by `((1 + cos δ) / 2)^p`, δ the angle between
//!    the desired direction and the direction to the obstacle: full weight dead ahead,
//!    none behind, so an obstacle already passed stops bending the path.
//! 2. **Picking a side.** An obstacle dead ahead pushes straight back; the pull and the
//!    push cancel and the agent stalls. Each push is rotated towards the perpendicular
//!    of the desired direction, by up to 90° as the push turns from 90° to 180° off the
//!    desired direction (an inverted quarter ellipse), so the agent goes round.
//! 3. **Symmetric obstacles.** Two obstacles mirrored about the path have mirrored
//!    pushes, and so do their rotated versions: the sideways parts cancel again. The
//!    raw pushes are summed first and the sum is rotated as if it were one obstacle;
//!    that vector is blended with the sum of the per-obstacle rotations by a quarter
//!    ellipse of the angle between their total and the desired direction.
//! 4. **Moving obstacles.** When a moving body within look-ahead range is in front, the
//!    agent extends its desired path, its current course and the body's course over a
//!    time horizon and intersects them. No crossing means a chase (same direction: the
//!    push is mostly ignored) or a game of "chicken" (head-on: the normal push handles
//!    it). A crossing gives right of way to whoever reaches it first; the other mirrors
//!    its push about its desired path and amplifies it, which swerves it behind the
//!    first.
//!
//! Where the seed leaves a choice open we decide it:
//! - an exact tie (a push exactly opposite the desired direction) breaks to the agent's
//!   right — clockwise of the desired direction in a y-up frame — as part 3 of the seed
//!   chooses ("the side of the road you should drive on");
//! - part 4 looks at bodies *in front* (within 90° of the desired direction), which is
//!   what the seed's comment says it tests;
//! - collinear courses do not cross (as in the seed, whose intersection divides by
//!   zero there), so chases and head-on meetings take the no-crossing branch;
//! - a tie at a crossing (within one seed frame) goes to the agent coming from the
//!   other's right, so that two agents cannot both yield; the seed lets both yield.
//!
//! Two rules that the seed does not have, for crowds that must all get home (each can
//! be switched off in [`AntiGravityParams`]; in the open, away from resting bodies and
//! goals, they change nothing):
//! - a body at rest (no preferred velocity: an agent home, a parked obstacle) whose
//!   surface lies farther than the agent's target is not in the agent's way and does
//!   not push, as the seed already skips the target itself. Agents standing at their
//!   slots 1.6 m apart push an agent heading for the free slot among them harder than
//!   its pull: it circled its slot for good;
//! - an agent at rest at its goal, or within a few radii of it, makes way for a body
//!   coming at it (see the `make_way` module): it steps off that body's course just in
//!   time and walks home once it has passed. The seed's entities stood still, and
//!   those still on their way could not get past a row of them.
//!
//! **Known weaknesses.** The seed's own: the force is a heuristic, so agents can still
//! touch in crowds (the seed follows with collision response); the many shaping curves
//! of part 4 were tuned by eye; nothing prevents oscillation in tight places; a local
//! method cannot escape a dead end. Part 3 rescues the post's situation (two small
//! obstacles side by side across the path), but when symmetric obstacles are large
//! next to the agent or leave a gap narrower than it, the per-obstacle rotations of
//! part 2 pull the agent back to the middle, part 3 then drops them (their sum points
//! straight back) and its own push shrinks as `1 / (|B| + 1)`: the agent drives into
//! the gap. Without part 3 it stalls in front instead.
//!
//! **Frames to seconds.** The seed steps once per animation frame at an assumed 60 fps.
//! Its 40-frame look-ahead is [`AntiGravityParams::look_ahead`] (40/60 s), its
//! 120-frame trajectory extension is [`AntiGravityParams::trajectory_horizon`] (2 s),
//! and its other frame counts in part 4 (1, 20, 40, 80 frames) are kept as fractions of
//! that horizon, so they scale with it. Speeds are metres per second throughout, and
//! the result does not depend on the step `dt`.

use super::make_way::{make_way, HOME_RADII};
use super::walls::wall_push;
use super::{clamp_speed, DebugKind, Neighbor, SteerContext, SteerDebug, Steering};
use crate::geom::{mirror, segment_intersection, Segment, SegmentIntersection};
use glam::Vec2;
use std::f32::consts::{FRAC_PI_2, PI};

/// Frames per second the seed's frame counts assume.
const SEED_FPS: f32 = 60.0;
/// The seed's trajectory extension, in its frames; [`AntiGravityParams::trajectory_horizon`]
/// stands for this many frames.
const SEED_HORIZON_FRAMES: f32 = 120.0;
/// Centre distances are clamped to this fraction of the combined radius, so that
/// coincident bodies give a huge but finite push.
const MIN_DISTANCE_FRACTION: f32 = 1.0e-3;

/// Tuning of [`AntiGravity`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AntiGravityParams {
    /// Strength of the push: at centre distance `d` from a body whose radius plus the
    /// agent's is `R`, the push has length `personal_space · (R / d)²` against a pull
    /// of length 1 along the desired direction. Dimensionless. \[Limit: >= 0\] Default 3
    /// (the seed's part 3; part 1 used 2).
    pub personal_space: f32,
    /// Exponent `p` of the cardioid weight `((1 + cos δ) / 2)^p` (part 1); 0 turns the
    /// cardioid into a circle (every direction weighs 1). \[Limit: >= 0\] Default 3.
    pub cardioid_power: f32,
    /// Part 2: rotate pushes from obstacles ahead so the agent picks a side. Default on.
    pub pick_side: bool,
    /// Part 3: resolve obstacles symmetric about the path by adjusting the sum of the
    /// raw pushes as one obstacle. Default on.
    pub resolve_symmetric: bool,
    /// Part 4: look ahead at moving bodies (right of way, chase, chicken). Default on.
    pub moving_obstacles: bool,
    /// Part 4 range, seconds: a moving body is considered when its centre is closer
    /// than `|velocity| · look_ahead + radius`. \[Limit: >= 0\] Default 40/60 s (the
    /// seed's 40 frames at 60 fps).
    pub look_ahead: f32,
    /// Part 4: how far ahead paths and courses are extended to find where they cross,
    /// seconds. \[Limit: > 0\] Default 2 s (the seed's 120 frames at 60 fps).
    pub trajectory_horizon: f32,
    /// Part 4: how much the yielding agent amplifies its mirrored push. Dimensionless.
    /// \[Limit: >= 0\] Default 3 (the seed's value).
    pub yield_gain: f32,
    /// Not in the seed: a body at rest (no preferred velocity) whose surface lies
    /// farther than the agent's target is not in its way and does not push, as the
    /// seed already skips the target itself. Without this, agents standing at their
    /// own goals round a free goal can push harder than the pull and hold the agent
    /// off it for good. Default on.
    pub skip_resting_beyond_target: bool,
    /// Not in the seed: how far ahead, seconds, an agent at rest, or within 2.2 radii
    /// of its target, looks for bodies coming at it, to make way for them (step off
    /// their course, or not step onto it); 0 leaves it to the seed, whose entities
    /// stand still once home. \[Limit: >= 0\] Default 2 s (the trajectory horizon).
    pub make_way_horizon: f32,
}

impl Default for AntiGravityParams {
    fn default() -> Self {
        Self {
            personal_space: 3.0,
            cardioid_power: 3.0,
            pick_side: true,
            resolve_symmetric: true,
            moving_obstacles: true,
            look_ahead: 40.0 / SEED_FPS,
            trajectory_horizon: SEED_HORIZON_FRAMES / SEED_FPS,
            yield_gain: 3.0,
            skip_resting_beyond_target: true,
            make_way_horizon: SEED_HORIZON_FRAMES / SEED_FPS,
        }
    }
}

/// The anti-gravity steering method (the steering seed, parts 1 to 4).
///
/// Debug vectors, labelled with the seed's colour code: `"raw"` (red, one per body: the
/// cardioid-weighted push), `"adjusted"` (blue, one per body: the push after parts 2
/// and 4), `"sum"` (yellow: the sum of the raw pushes) and `"final"` (green: the
/// velocity chosen).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AntiGravity {
    /// Tuning.
    pub params: AntiGravityParams,
}

impl AntiGravity {
    /// Anti-gravity steering with these parameters.
    pub const fn new(params: AntiGravityParams) -> Self {
        Self { params }
    }
}

impl Steering for AntiGravity {
    fn name(&self) -> &'static str {
        "antigravity"
    }

    fn steer(&self, ctx: &SteerContext<'_>, mut debug: Option<&mut SteerDebug>) -> Vec2 {
        let agent = &ctx.agent;
        let p = &self.params;
        let Some(desired) = agent.preferred_velocity.try_normalize() else {
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
        };
        let speed = agent.preferred_velocity.length();
        let to_target = agent.target.distance(agent.position);
        let mut raw_sum = Vec2::ZERO;
        let mut adjusted_sum = Vec2::ZERO;
        let mut add = |push: Push, debug: &mut Option<&mut SteerDebug>| {
            raw_sum += push.raw * push.weight;
            adjusted_sum += push.adjusted * push.weight;
            if let Some(d) = debug.as_deref_mut() {
                d.push(DebugKind::Raw, agent.position, push.raw * push.weight);
                d.push(
                    DebugKind::Adjusted,
                    agent.position,
                    push.adjusted * push.weight,
                );
            }
        };

        for n in ctx.neighbors {
            let offset = agent.position - n.position;
            let distance = offset.length();
            let gap = distance - agent.radius - n.radius;
            if p.skip_resting_beyond_target && n.preferred_velocity == Vec2::ZERO && gap > to_target
            {
                continue;
            }
            let away = offset.try_normalize().unwrap_or(-desired);
            let mut push = Push::new(p, desired, away, distance, agent.radius + n.radius);
            if p.moving_obstacles {
                push = self.give_way(ctx, desired, speed, n, distance, push);
            }
            add(push, &mut debug);
        }
        for wall in ctx.walls {
            if let Some((away, distance)) = wall_push(wall, agent.position, agent.radius) {
                add(
                    Push::new(p, desired, away, distance, agent.radius),
                    &mut debug,
                );
            }
        }

        let push = if p.resolve_symmetric {
            resolve_symmetric(desired, raw_sum, adjusted_sum)
        } else {
            adjusted_sum
        };
        let mut velocity = (desired + push).normalize_or_zero() * speed;
        if to_target <= HOME_RADII * agent.radius {
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
            d.push(DebugKind::Sum, agent.position, raw_sum);
            d.push(DebugKind::Final, agent.position, velocity);
        }
        velocity
    }
}

/// One body's push before weighting: `raw` (part 1), `adjusted` (parts 2 and 4), and
/// the cardioid weight that multiplies both.
#[derive(Clone, Copy, Debug)]
struct Push {
    raw: Vec2,
    adjusted: Vec2,
    weight: f32,
}

impl Push {
    /// The push on an agent heading along unit `desired` from a body in unit direction
    /// `-away`, `distance` between centres, `reach` the sum of the radii.
    fn new(p: &AntiGravityParams, desired: Vec2, away: Vec2, distance: f32, reach: f32) -> Self {
        let d = distance.max(MIN_DISTANCE_FRACTION * reach);
        let magnitude = if d > 0.0 {
            p.personal_space * (reach / d) * (reach / d)
        } else {
            0.0
        };
        let raw = away * magnitude;
        // Part 1: the cardioid of the angle between the desired direction and the
        // direction to the body.
        let weight = ((1.0 - desired.dot(away)) * 0.5)
            .clamp(0.0, 1.0)
            .powf(p.cardioid_power);
        let adjusted = if p.pick_side {
            pick_side(desired, raw, weight)
        } else {
            raw
        };
        Self {
            raw,
            adjusted,
            weight,
        }
    }

    fn scaled(self, factor: f32) -> Self {
        Self {
            raw: self.raw * factor,
            adjusted: self.adjusted * factor,
            weight: self.weight,
        }
    }

    fn mirrored(self, axis: Vec2, factor: f32) -> Self {
        Self {
            raw: mirror(self.raw, axis) * factor,
            adjusted: mirror(self.adjusted, axis) * factor,
            weight: self.weight,
        }
    }
}

/// Part 2: rotates `push` towards the perpendicular of `desired`, by
/// `90° · weight · e(δ)` where δ is the angle from `desired` to `push` and `e` the
/// inverted quarter ellipse (0 at 90°, 1 at 180°). The rotation keeps the side the push
/// already leans to; an exact tie goes right.
fn pick_side(desired: Vec2, push: Vec2, weight: f32) -> Vec2 {
    let (delta, sign) = signed_angle(desired, push);
    if delta.abs() < FRAC_PI_2 || sign == 0.0 {
        return push;
    }
    let theta = FRAC_PI_2 * weight * inverted_quarter_ellipse(delta.abs());
    Vec2::from_angle(-theta * sign).rotate(push)
}

/// Part 3: the combined push `A + k B`.
///
/// `B` is the sum of the adjusted pushes. `A` (green) is the sum of the raw pushes
/// (yellow, `Y`), treated as one obstacle: when `|Y| >= |B|`, it is scaled by
/// `s = (1 - |B| / |Y|) / (|B| + 1)` and by `b²`, where `b` runs from 0 to 1 as `Y`
/// turns from 90° to 180° off the desired direction, and rotated by `s · b² · 90°`
/// towards the perpendicular it leans to (ties go right). `k` is the quarter ellipse of
/// the angle between `A + B` and the desired direction, so `B` is dropped when the two
/// together point straight back (or ahead).
fn resolve_symmetric(desired: Vec2, raw_sum: Vec2, adjusted_sum: Vec2) -> Vec2 {
    let old = raw_sum.length();
    let new = adjusted_sum.length();
    let mut green = Vec2::ZERO;
    if old > 0.0 && old >= new {
        let shrink = (1.0 - new / old) / (new + 1.0);
        let (delta, sign) = signed_angle(desired, raw_sum);
        let behind = if delta.abs() > FRAC_PI_2 {
            let t = (delta.abs() - FRAC_PI_2) / FRAC_PI_2;
            t * t
        } else {
            0.0
        };
        let angle = -shrink * FRAC_PI_2 * behind * sign;
        green = Vec2::from_angle(angle).rotate(raw_sum) * shrink * behind;
    }
    let keep = match (green + adjusted_sum).try_normalize() {
        Some(total) => {
            let delta = total.perp_dot(desired).abs().atan2(total.dot(desired));
            quarter_ellipse(delta)
        }
        // No direction to judge: keep the per-body pushes as part 2 would.
        None => 1.0,
    };
    green + keep * adjusted_sum
}

impl AntiGravity {
    /// Part 4: adjusts the push of neighbour `n` for its motion (see the module docs).
    fn give_way(
        &self,
        ctx: &SteerContext<'_>,
        desired: Vec2,
        speed: f32,
        n: &Neighbor,
        distance: f32,
        push: Push,
    ) -> Push {
        let p = &self.params;
        let agent = &ctx.agent;
        let other_speed = n.velocity.length();
        let range = agent.velocity.length() * p.look_ahead + agent.radius;
        let ahead = (n.position - agent.position).dot(desired) > 0.0;
        if !(other_speed > 0.0 && distance < range && ahead && range.is_finite()) {
            return push;
        }
        let horizon = p.trajectory_horizon;
        let frame = horizon / SEED_HORIZON_FRAMES;
        let near = if distance / range > 0.8 {
            0.0
        } else {
            let t = 1.0 - 1.25 * distance / range;
            t * t
        };
        let path = Segment::new(agent.position, agent.position + desired * speed * horizon);
        let course = Segment::new(agent.position, agent.position + agent.velocity * horizon);
        let other = Segment::new(n.position, n.position + n.velocity * horizon);
        let Some(on_path) = crossing(path, other) else {
            // Chase or chicken: weigh by how opposed the headings are (0 for the same
            // heading, 1 for opposite ones), plus the closeness ramp.
            let mine = agent.velocity.try_normalize().unwrap_or(desired);
            let theirs = n.velocity / other_speed;
            let opposed = (1.0 - (mine + theirs).length_squared() * 0.5).max(0.0);
            return push.scaled(opposed + near);
        };
        let on_course = crossing(course, other);
        let point = on_course.unwrap_or(on_path);
        let mine = point.distance(agent.position) / speed;
        let theirs = point.distance(n.position) / other_speed;
        // Right of way to whoever reaches the crossing first. A tie (within one seed
        // frame) goes to the one coming from the other's right, as on the road, so
        // that two agents cannot both yield.
        let first = if (theirs - mine).abs() <= frame {
            desired.perp_dot(n.position - agent.position) > 0.0
        } else {
            theirs > mine
        };
        if first || mine < frame {
            // Our right of way (or we are already crossing): keep the normal push.
            return push;
        }
        // We yield: mirror the push about the desired path and amplify it, fading out
        // far in the horizon and, when only our desired path crosses theirs, as they
        // reach the crossing.
        let mut gain = p.yield_gain;
        if mine > 80.0 * frame {
            gain *= ((horizon - mine) / (40.0 * frame)).max(0.0);
        }
        if on_course.is_none() && theirs < 20.0 * frame {
            gain *= theirs / (20.0 * frame) * (theirs / mine);
        }
        push.mirrored(desired, gain + near)
    }
}

/// Where two segments cross; collinear overlaps count as no crossing (parallel courses
/// are chases or head-on meetings, handled apart).
fn crossing(a: Segment, b: Segment) -> Option<Vec2> {
    match segment_intersection(a, b) {
        SegmentIntersection::Point(p) => Some(p),
        SegmentIntersection::None | SegmentIntersection::Overlap(..) => None,
    }
}

/// The angle from unit `desired` to `v`, in `[-π, π)`, and its sign (+1
/// counter-clockwise, -1 clockwise, 0 for none). A vector exactly opposite `desired`
/// counts as clockwise (angle -π): ties break to the agent's right.
fn signed_angle(desired: Vec2, v: Vec2) -> (f32, f32) {
    let cross = desired.perp_dot(v);
    let dot = desired.dot(v);
    if cross > 0.0 {
        (cross.atan2(dot), 1.0)
    } else if cross < 0.0 {
        (cross.atan2(dot), -1.0)
    } else if dot < 0.0 {
        (-PI, -1.0)
    } else {
        (0.0, 0.0)
    }
}

/// `1 - sqrt(1 - ((2δ - π) / π)²)` for δ in `[π/2, π]`: 0 at 90°, 1 at 180°.
fn inverted_quarter_ellipse(delta: f32) -> f32 {
    let t = (2.0 * delta - PI) / PI;
    1.0 - (1.0 - t * t).max(0.0).sqrt()
}

/// `sqrt(1 - ((2δ - π) / π)²)` for δ in `[0, π]`: 0 at 0° and 180°, 1 at 90° (the
/// seed calls it a quarter ellipse: one per side of 90°).
fn quarter_ellipse(delta: f32) -> f32 {
    let t = (2.0 * delta - PI) / PI;
    (1.0 - t * t).max(0.0).sqrt()
}

#[cfg(test)]
#[path = "antigravity_test.rs"]
mod tests;
