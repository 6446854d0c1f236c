//! ORCA, optimal reciprocal collision avoidance: the method is described on [`Orca`].

use super::linear_program::{solve_velocity, HalfPlane};
use super::{
    clamp_speed, DebugKind, Neighbor, NeighborKind, Opening, SteerAgent, SteerContext, SteerDebug,
    Steering,
};
use crate::geom::{closest_point_on_segment, Segment};
use glam::Vec2;
use lanes::{half_planes_of_four, half_planes_of_four_in_order, lanes_of, Own};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::cmp::Ordering;

/// Shortest time horizon and step used, seconds: smaller or invalid values (zero,
/// negative, NaN) are raised to it, so that `1 / time` stays finite.
pub const MIN_TIME: f32 = 1.0e-3;

/// The angle, radians, by which a head-on cut-off normal is turned to the agent's right
/// to break the symmetry of two agents meeting exactly head-on, in the people preset
/// ([`OrcaParams::symmetry_bias`]).
pub const SYMMETRY_BIAS: f32 = 0.05;

/// [`OrcaParams::symmetry_bias`] in the rvo2 preset, radians: larger than the people
/// preset's, so that agents meeting nearly head-on pass before they touch. Touching
/// agents with no relative velocity hold each other's velocity, and one caught head-on
/// between two others walking the other way is carried back with them (the world then
/// gives it right of way, see [`crate::world::CARRIED_TIME`]); on RVO2's circle of
/// 1 000 agents at 75 ring phases, 4 finished after 5 900 steps with this bias and 15
/// with 0.05, before that right of way (see docs/crowd-behaviour.md).
pub const RVO2_SYMMETRY_BIAS: f32 = 0.25;

/// [`OrcaParams::vision`] in the people preset, radians (45°).
pub const PEOPLE_VISION: f32 = std::f32::consts::FRAC_PI_4;

/// [`OrcaParams::vision_neighbors`] in the people preset: the 40 nearest within the
/// neighbour range, which in a crowd of walking density reach about 3 m.
pub const PEOPLE_VISION_NEIGHBORS: usize = 40;

/// The largest [`OrcaParams::symmetry_bias`] used, radians: larger values are lowered
/// to it.
pub const MAX_SYMMETRY_BIAS: f32 = std::f32::consts::FRAC_PI_4;

/// Share of the top speed an overlapping wall may demand to push the agent back out.
const WALL_PUSH_SHARE: f32 = 0.5;

/// [`OrcaParams::zipper`] of [`OrcaParams::people`]. Measured on the generated doors
/// (docs/crowd-behaviour.md): without it, doors of 1.1 to 1.3 m let through 2.0 to 2.3
/// persons per metre and second, more than any wider door. Since people held back in
/// a queue step out into a free lane beside it ([`OVERTAKE_ANGLE`]) and the zipper
/// holds in passages up to five diameters wide ([`ZIPPER_PASSAGE`]), 1.35 let the
/// 1.2 m door through at up to 2.16 and 1.4 at 1.92 to 2.08 (seeds 1 to 32, places in
/// order); 1.45 took the 1.0 m door with places by columns down to 1.35 (seeds 1 to
/// 16, before [`standoff_share`]).
pub const PEOPLE_ZIPPER: f32 = 1.4;

/// ORCA's parameters. `Default` is [`OrcaParams::people`]: crowds of people that
/// queue at doors, press into gaps and pass each other in counterflow;
/// [`OrcaParams::rvo2`] is RVO2's own avoidance, as in its Circle example.
///
/// In scenario files every field is optional, and `"preset"` (`"people"`, the default,
/// or `"rvo2"`) says what the fields left out are:
/// `{"preset": "rvo2", "time_horizon": 5}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OrcaParams {
    /// Neighbours whose centres lie further than this are ignored, metres. [Limit: >= 0]
    pub neighbor_dist: f32,
    /// At most this many nearest neighbours are taken into account.
    pub max_neighbors: usize,
    /// How far ahead collisions with other agents and moving obstacles are avoided,
    /// seconds. Longer is safer but more timid. \[Limit: > 0\]
    pub time_horizon: f32,
    /// How far ahead collisions with walls are avoided, seconds. \[Limit: > 0\]
    pub time_horizon_obst: f32,
    /// How the avoidance between two walking agents is shared by their places. At 0
    /// each takes half, wherever they are (RVO2). Above 0 the one behind takes
    /// `0.5 + 0.5 · priority · ahead` of it (at most all), where `ahead` (from −2 to 2)
    /// is how far the other lies ahead of it along both their ways, less how far it lies
    /// ahead of the other; the other takes the rest. Someone yielded to entirely is
    /// expected to walk as it wants to. People give way to those ahead and pay little
    /// heed to those behind, which lets a crowd at a door drain instead of jamming.
    /// Touching agents share evenly; someone standing still makes way for a passer-by
    /// entirely (it takes all of the avoidance and expects the passer-by to walk as it
    /// wants), and the passer-by walks on, so that people resting at their places open
    /// a way for those walking through to theirs. \[Limit: >= 0\]
    pub priority: f32,
    /// The time gap an agent keeps behind the one it queues behind (someone ahead in
    /// its path walking the same way), seconds: it walks no faster than the free space
    /// ahead over this time (the collision-free speed model of Tordeux, Chraibi and
    /// Seyfried 2016), so a crowd slows down as it packs and queues rather than
    /// sliding sideways. Held back so, it steps out into a lane beside the queue that
    /// is free for 2 m, within 20° of its way, when there is one (the heuristic of
    /// Moussaïd, Helbing and Theraulaz 2011 over those walking its way): people walk
    /// past a slow file instead of joining it. In a door, someone walking to the same
    /// destination ([`Neighbor::same_destination`]) is followed closer, as it walks
    /// on. 0 turns it off (RVO2). \[Limit: >= 0\]
    pub time_gap: f32,
    /// How wide, as a multiple of the contact distance, the band of people ahead that
    /// an agent keeps its time gap to is, in a passage a few can walk abreast
    /// (narrower than five of the agent's diameters across its way, between walls):
    /// someone ahead of it whose centre lies within `zipper` times the sum of their
    /// radii counts as the one it queues behind. People pass a door a few shoulder
    /// widths wide in the staggered lanes of a zipper, not shoulder to shoulder
    /// (Hoogendoorn and Daamen 2005; Seyfried et al. 2009), so a door just wide enough
    /// for two lets through fewer than twice a file. In front of a short door (a thin
    /// wall, [`SteerContext::opening`]) it holds too, from 0.6 m before the door's
    /// exit. 1 keeps the band at contact, as in the open. Only with a time gap.
    /// \[Limit: >= 1\]
    pub zipper: f32,
    /// How readily an agent walking against the flow of its neighbours gives way to
    /// those it meets head-on: it takes `0.5 + 0.5 · yield_to_flow · against` of the
    /// avoidance (at most all), where `against` (0 to 1) is how much the mean way of its
    /// neighbours opposes its own, while they keep their half. Someone caught in an
    /// oncoming stream steps aside instead of being carried back with it: at 1, in a
    /// corridor of counterflow, fewer are carried back and no run locks. But where two
    /// groups meet head-on in the open (the seed demo's lines), both sides count as
    /// against the flow, both give way, and they lock; so it is 0 (off) in both
    /// presets. \[Limit: >= 0\]
    pub yield_to_flow: f32,
    /// How far to either side of its way, radians, an agent looks for a free way around
    /// people walking against it (more than 120° off its own way), people walking
    /// across it (more than 60° off, at 0.5 m/s or more, seen only on a straight leg
    /// of at least `neighbor_dist`) and moving obstacles:
    /// of the directions within this angle it takes the one that would bring it nearest
    /// its way's end `neighbor_dist` ahead, given how far it could walk along each before
    /// meeting one of them (the heuristic of Moussaïd, Helbing and Theraulaz 2011). An
    /// agent that has stopped looks wider, up to 90° (no wider than 35° when only
    /// people crossing are in view). Two streams meeting head-on then step aside into
    /// lanes instead of pressing into each other, and two crossing streams pass through
    /// each other instead of packing into a block where they meet. A stream crossing
    /// its way (two or more closing in) it passes behind unless a way in front is
    /// clearly better, so that two crossing streams do not carry each other into the
    /// other's corridor. Walls and people
    /// walking its way are left to the half-planes, so a crowd at a door is unchanged.
    /// 0 turns it off. \[Limit: 0 to π/2\]
    pub vision: f32,
    /// How many of its nearest neighbours within `neighbor_dist` an agent looks over
    /// for people coming its way ([`OrcaParams::vision`]). In a dense stream the
    /// `max_neighbors` nearest are mostly people walking its own way, so an agent
    /// seeing no further would meet the oncoming stream only at arm's length, too late
    /// to fall into a lane. The half-planes and the time gap still take only the
    /// `max_neighbors` nearest. A world hands each agent
    /// `max(max_neighbors, vision_neighbors)` neighbours when the vision is on.
    pub vision_neighbors: usize,
    /// How far, radians, a cut-off normal lying this near the axis between two agents
    /// (nearly head-on) is turned to the agent's right when it binds, so that two agents
    /// meeting head-on choose opposite sides and pass (see [`Orca`]).
    /// Larger values start passing earlier, from further off the axis. 0 turns it off;
    /// values above π/4 are lowered to it, NaN counts as 0.
    /// \[Limit: 0 to π/4\]
    pub symmetry_bias: f32,
}

/// A named set of [`OrcaParams`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrcaPreset {
    /// [`OrcaParams::people`], the default.
    #[default]
    People,
    /// [`OrcaParams::rvo2`].
    Rvo2,
}

impl OrcaPreset {
    /// Its parameters.
    pub fn params(self) -> OrcaParams {
        match self {
            OrcaPreset::People => OrcaParams::people(),
            OrcaPreset::Rvo2 => OrcaParams::rvo2(),
        }
    }
}

impl OrcaParams {
    /// People walking: neighbours within 5 m (the ten nearest), a 3 s horizon for
    /// each other and 1 s for walls, priority 4 to those ahead, a 0.3 s time gap kept
    /// in a zipper in passages a few wide, and a look 45° to either side for a way
    /// around people coming the other way.
    /// [`OrcaParams::yield_to_flow`] is off (see there).
    /// Measured on generated doors, corridors and crossings (see docs/crowd-behaviour.md).
    pub const fn people() -> OrcaParams {
        OrcaParams {
            neighbor_dist: 5.0,
            max_neighbors: 10,
            time_horizon: 3.0,
            time_horizon_obst: 1.0,
            priority: 4.0,
            time_gap: 0.3,
            zipper: PEOPLE_ZIPPER,
            yield_to_flow: 0.0,
            vision: PEOPLE_VISION,
            vision_neighbors: PEOPLE_VISION_NEIGHBORS,
            symmetry_bias: SYMMETRY_BIAS,
        }
    }

    /// RVO2's Circle example: neighbours within 15 m (the ten nearest), 10 s horizons,
    /// the avoidance shared evenly, no time gap, nobody giving way to the flow or
    /// looking for a way around, and a head-on turn of 0.25 rad.
    pub const fn rvo2() -> OrcaParams {
        OrcaParams {
            neighbor_dist: 15.0,
            max_neighbors: 10,
            time_horizon: 10.0,
            time_horizon_obst: 10.0,
            priority: 0.0,
            time_gap: 0.0,
            zipper: 1.0,
            yield_to_flow: 0.0,
            vision: 0.0,
            vision_neighbors: 0,
            symmetry_bias: RVO2_SYMMETRY_BIAS,
        }
    }
}

impl OrcaParams {
    /// How many neighbours an agent is handed: `max_neighbors`, or
    /// `vision_neighbors` when more and the vision is on.
    pub fn seen_neighbors(&self) -> usize {
        if self.vision > 0.0 {
            self.max_neighbors.max(self.vision_neighbors)
        } else {
            self.max_neighbors
        }
    }
}

impl Default for OrcaParams {
    fn default() -> Self {
        Self::people()
    }
}

/// [`OrcaParams`] as a scenario file writes them: a preset and any field of its own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrcaParamsSpec {
    #[serde(default)]
    preset: OrcaPreset,
    neighbor_dist: Option<f32>,
    max_neighbors: Option<usize>,
    vision_neighbors: Option<usize>,
    time_horizon: Option<f32>,
    time_horizon_obst: Option<f32>,
    priority: Option<f32>,
    time_gap: Option<f32>,
    zipper: Option<f32>,
    yield_to_flow: Option<f32>,
    vision: Option<f32>,
    symmetry_bias: Option<f32>,
}

impl<'de> Deserialize<'de> for OrcaParams {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spec = OrcaParamsSpec::deserialize(deserializer)?;
        let base = spec.preset.params();
        Ok(OrcaParams {
            neighbor_dist: spec.neighbor_dist.unwrap_or(base.neighbor_dist),
            max_neighbors: spec.max_neighbors.unwrap_or(base.max_neighbors),
            time_horizon: spec.time_horizon.unwrap_or(base.time_horizon),
            time_horizon_obst: spec.time_horizon_obst.unwrap_or(base.time_horizon_obst),
            priority: spec.priority.unwrap_or(base.priority),
            time_gap: spec.time_gap.unwrap_or(base.time_gap),
            zipper: spec.zipper.unwrap_or(base.zipper),
            yield_to_flow: spec.yield_to_flow.unwrap_or(base.yield_to_flow),
            vision: spec.vision.unwrap_or(base.vision),
            vision_neighbors: spec.vision_neighbors.unwrap_or(base.vision_neighbors),
            symmetry_bias: spec.symmetry_bias.unwrap_or(base.symmetry_bias),
        })
    }
}

/// ORCA, optimal reciprocal collision avoidance (van den Berg, Guy, Lin, Manocha,
/// "Reciprocal n-body collision avoidance", 2011): the [`Steering`] method that keeps
/// every velocity collision-free for a time horizon, sharing the effort between agents.
///
/// Every neighbour and every wall within reach turns into one half-plane of allowed
/// velocities (an *ORCA line*), and a small linear program picks the allowed velocity
/// closest to the preferred one.
///
/// - **Neighbours** are discs. The velocity obstacle of a disc over the time horizon is
///   a truncated cone; the agent takes half of the smallest change `u` that leaves it
///   (the neighbouring agent takes the other half), or all of it for a
///   [`NeighborKind::Obstacle`], which does not react. Discs that already overlap use
///   the step `dt` as horizon, so they separate within one step.
/// - **Walls** are one-sided segments (walkable side on the left). The velocity
///   obstacle of a segment for a disc is the cone over a capsule (the segment swept by
///   the agent's radius: two end circles joined by two straight sides), truncated at
///   `time_horizon_obst`. Walls don't move, so the agent takes full responsibility, and
///   their half-planes are *hard*: when the program is infeasible (dense crowds), the 3D
///   fallback relaxes only the agents' half-planes, never the walls'.
/// - **Symmetry**: two agents exactly head-on see their relative velocity on the axis
///   of the cone, where both legs are equally near, and, once slowed down, a normal
///   along the axis that only brakes. Both cases resolve to the same side in every
///   agent's own frame (a dodge to the right), deterministically: ties between the legs
///   go to the right leg, and when the half-plane excludes the preferred velocity, a
///   cut-off normal within [`OrcaParams::symmetry_bias`] of the axis is turned that far
///   to the right (never past the tangent points, so the half-plane still clears the
///   obstacle).
///   Negating every input of the pair negates the half-plane bit for bit, so both
///   agents of a mirrored pair choose opposite world directions and pass each other.
/// - **People** ([`OrcaParams::people`], the default): the avoidance between two walking
///   agents is shared by their places, the one behind taking more, and an agent queued behind someone walking the same way walks no faster than the
///   free space ahead over a time gap ([`OrcaParams::time_gap`]), after Tordeux,
///   Chraibi and Seyfried's collision-free speed model (2016). [`OrcaParams::rvo2`]
///   turns both off. See docs/crowd-behaviour.md.
///
/// *See also* [`Orca::steer_with`], [`orca_half_plane_disc`], [`orca_half_plane_segment`].
///
/// # Example
/// ```
/// use crowdnav::steer::{NeighborKind, Neighbor, Orca, SteerAgent, SteerContext, Steering};
/// use glam::Vec2;
/// let agent = SteerAgent {
///     position: Vec2::ZERO,
///     velocity: Vec2::X,
///     radius: 0.5,
///     max_speed: 1.5,
///     preferred_velocity: Vec2::X,
///     target: Vec2::new(10.0, 0.0),
/// };
/// let other = Neighbor {
///     position: Vec2::new(3.0, 0.0),
///     velocity: -Vec2::X,
///     radius: 0.5,
///     preferred_velocity: -Vec2::X,
///     kind: NeighborKind::Agent,
///     same_destination: false,
/// };
/// let ctx = SteerContext { agent, neighbors: &[other], walls: &[], dt: 0.1, opening: None };
/// let v = Orca::default().steer(&ctx, None);
/// assert!(v.y < 0.0, "dodges to its right");
/// assert!(v.length() <= 1.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orca {
    /// The parameters.
    pub params: OrcaParams,
    /// The head-on turn of `params.symmetry_bias`, worked out once (see [`Orca::turn`]).
    turn: HeadOnTurn,
}

impl Default for Orca {
    fn default() -> Self {
        Self::new(OrcaParams::default())
    }
}

/// Reusable buffers for [`Orca::steer_with`], so that steering allocates nothing once
/// they have grown. One per thread; contents never affect the result.
#[derive(Clone, Debug, Default)]
pub struct OrcaScratch {
    planes: Vec<HalfPlane>,
    projected: Vec<HalfPlane>,
    nearest: Vec<(f32, usize)>,
    /// Those the vision looks out for: offset, velocity, contact distance.
    oncoming: Vec<(Vec2, Vec2, f32)>,
}

impl OrcaScratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }
}

thread_local! {
    static SCRATCH: RefCell<OrcaScratch> = RefCell::new(OrcaScratch::new());
}

impl Orca {
    /// ORCA with these parameters.
    pub fn new(params: OrcaParams) -> Self {
        Self {
            params,
            turn: HeadOnTurn::new(params.symmetry_bias),
        }
    }

    /// The head-on turn of [`OrcaParams::symmetry_bias`]: the one worked out in
    /// [`Orca::new`], unless `params` has been changed since.
    #[inline(always)]
    fn turn(&self) -> HeadOnTurn {
        if self.turn.given.to_bits() == self.params.symmetry_bias.to_bits() {
            self.turn
        } else {
            HeadOnTurn::new(self.params.symmetry_bias)
        }
    }

    /// Whether the people's rules ([`OrcaParams::priority`],
    /// [`OrcaParams::yield_to_flow`]) share the avoidance; else it is shared evenly.
    fn people(&self) -> bool {
        self.params.priority > 0.0 || self.params.yield_to_flow > 0.0
    }

    /// The new velocity for `ctx.agent`, using `scratch` for all temporary storage.
    ///
    /// Walls within `time_horizon_obst · max_speed + radius` that face the agent and
    /// the nearest `max_neighbors` neighbours within `neighbor_dist` each add one
    /// half-plane; the result is the allowed velocity closest to the preferred one,
    /// finite and no faster than `max_speed`. With `debug`, records every half-plane as
    /// `"orca_line"` (origin: a point of the line, vector: its direction; the allowed
    /// side is on the left; both in velocity space, drawn from the agent), then
    /// `"preferred"` and `"final"`.
    pub fn steer_with(
        &self,
        ctx: &SteerContext<'_>,
        scratch: &mut OrcaScratch,
        debug: Option<&mut SteerDebug>,
    ) -> Vec2 {
        let agent = ctx.agent;
        let max_speed = if agent.max_speed.is_finite() {
            agent.max_speed.max(0.0)
        } else {
            0.0
        };
        let mut preferred = clamp_speed(agent.preferred_velocity, max_speed);
        // The nearest `max_neighbors`, picked out of all the agent sees when the people's
        // rules need them or when it sees more (for its vision).
        let selected = self.people()
            || (self.params.time_gap > 0.0 && ctx.neighbors.len() > self.params.max_neighbors);
        if selected {
            select_neighbors(
                ctx,
                self.params.neighbor_dist,
                self.params.max_neighbors,
                &mut scratch.nearest,
            );
        }
        // Turned to pass a stream crossing its way, an agent keeps that way rather than
        // step out of a queue back into the stream.
        let mut around_stream = false;
        if self.params.vision > 0.0 {
            (preferred, around_stream) =
                heading::look_for_a_way(ctx, preferred, &self.params, &mut scratch.oncoming);
        }
        if self.params.time_gap > 0.0 {
            let step_out = !around_stream;
            preferred = if selected {
                let nearest = scratch.nearest.iter().map(|&(_, i)| &ctx.neighbors[i]);
                self.keep_time_gap(ctx, nearest, preferred, step_out)
            } else {
                self.keep_time_gap(ctx, ctx.neighbors.iter(), preferred, step_out)
            };
        }
        scratch.planes.clear();

        let mut result = Vec2::ZERO;
        if max_speed > 0.0 && agent.position.is_finite() && agent.velocity.is_finite() {
            // Whether every half-plane kept so far admits `preferred`.
            let mut admitted = true;
            if !ctx.walls.is_empty() {
                admitted = self.wall_half_planes(ctx, max_speed, preferred, &mut scratch.planes);
            }
            let hard_count = scratch.planes.len();
            // Per agent, not per neighbour: the horizon's inverse. (`preferred` is the
            // preferred velocity clamped to the top speed: `max_speed` is the agent's
            // own here, finite and positive.)
            let inv_tau = 1.0 / self.params.time_horizon.max(MIN_TIME);
            let turn = self.turn();
            let in_order = if self.people() {
                None
            } else {
                self.neighbor_half_planes_in_order(
                    ctx,
                    inv_tau,
                    &turn,
                    preferred,
                    &mut scratch.planes,
                )
            };
            match in_order {
                Some(neighbors_admit) => admitted &= neighbors_admit,
                None => {
                    scratch.planes.truncate(hard_count);
                    if !selected {
                        select_neighbors(
                            ctx,
                            self.params.neighbor_dist,
                            self.params.max_neighbors,
                            &mut scratch.nearest,
                        );
                    }
                    if self.people() {
                        admitted &= self.prioritised_half_planes(
                            ctx,
                            inv_tau,
                            preferred,
                            &scratch.nearest,
                            &mut scratch.planes,
                        );
                    }
                    for chunk in scratch.nearest.chunks(4).filter(|_| !self.people()) {
                        // `select_neighbors` gives indices into `ctx.neighbors`.
                        let lane = |k: usize| &ctx.neighbors[chunk[k.min(chunk.len() - 1)].1];
                        let own = Own {
                            agent: &agent,
                            inv_tau,
                            turn: &turn,
                            dt: ctx.dt,
                            preferred,
                        };
                        admitted &= half_planes_of_four(
                            own,
                            &[lane(0), lane(1), lane(2), lane(3)],
                            chunk.len(),
                            &mut scratch.planes,
                        );
                    }
                }
            }
            // The program's first candidate is `preferred` pulled onto the speed disc,
            // which leaves it as it is when it lies within (no rounding): when every
            // half-plane admits it, that candidate is the answer, bit for bit. Most
            // agents of an unhurried crowd end here.
            result = if admitted && preferred.length_squared() <= max_speed * max_speed {
                preferred
            } else {
                solve_velocity(
                    &scratch.planes,
                    hard_count,
                    max_speed,
                    preferred,
                    &mut scratch.projected,
                )
            };
        }
        let velocity = clamp_speed(result, max_speed);

        if let Some(debug) = debug {
            for plane in &scratch.planes {
                debug.push(DebugKind::OrcaLine, plane.point, plane.direction);
            }
            debug.push(DebugKind::Preferred, Vec2::ZERO, agent.preferred_velocity);
            debug.push(DebugKind::Final, Vec2::ZERO, velocity);
        }
        velocity
    }

    /// The half-planes of the nearest `max_neighbors` neighbours within `neighbor_dist`,
    /// appended to `planes` in one pass, when the neighbours in range come nearest
    /// first (as a world hands them over): then they are the first `max_neighbors` in
    /// range, in the order [`select_neighbors`] would give. Returns whether every
    /// half-plane appended admits `preferred`; `None`, with `planes` partly filled, when
    /// the neighbours do not come in that order.
    #[inline(never)]
    fn neighbor_half_planes_in_order(
        &self,
        ctx: &SteerContext<'_>,
        inv_tau: f32,
        turn: &HeadOnTurn,
        preferred: Vec2,
        planes: &mut Vec<HalfPlane>,
    ) -> Option<bool> {
        let agent = &ctx.agent;
        let range = self.params.neighbor_dist.max(0.0);
        let range_squared = range * range;
        let mut room = self.params.max_neighbors;
        planes.reserve(room.min(ctx.neighbors.len()));
        // The distances kept are below the range, so not NaN, and squares, so not -0:
        // `<` orders them as `total_cmp` does, and equal ones keep their index order.
        let mut previous = 0.0f32;
        let mut admitted = true;
        let own = Own {
            agent,
            inv_tau,
            turn,
            dt: ctx.dt,
            preferred,
        };
        // The neighbours whose half-planes are due, four at a time; lanes from `count`
        // on hold any neighbour.
        let Some(first) = ctx.neighbors.first() else {
            return Some(true);
        };
        let mut batch = [first; 4];
        let mut count = 0;
        for chunk in ctx.neighbors.chunks(4) {
            // Most often the whole chunk is in range, in order and due: then it is one
            // batch, with its distances checked four at a time.
            if room >= chunk.len() {
                // (Any half-planes pending go first.)
                if count > 0 {
                    admitted &= half_planes_of_four(own, &batch, count, planes);
                    count = 0;
                }
                let lanes = match chunk {
                    [a, b, c, d] => [a, b, c, d],
                    _ => lanes_of(chunk),
                };
                if let Some((admits, last)) = half_planes_of_four_in_order(
                    own,
                    &lanes,
                    chunk.len(),
                    planes,
                    (range_squared, previous),
                ) {
                    admitted &= admits;
                    previous = last;
                    room -= chunk.len();
                    continue;
                }
            }
            for neighbor in chunk {
                let distance_squared = neighbor.position.distance_squared(agent.position);
                let in_range = distance_squared < range_squared;
                if !in_range {
                    continue;
                }
                if distance_squared < previous {
                    return None;
                }
                previous = distance_squared;
                if room == 0 {
                    // Only checking that the rest would not be nearer.
                    continue;
                }
                room -= 1;
                batch[count] = neighbor;
                count += 1;
                if count == 4 {
                    admitted &= half_planes_of_four(own, &batch, 4, planes);
                    count = 0;
                }
            }
        }
        if count > 0 {
            admitted &= half_planes_of_four(own, &batch, count, planes);
        }
        Some(admitted)
    }

    /// `preferred` slowed down so that the agent keeps [`OrcaParams::time_gap`] behind
    /// the one it queues behind: it walks no faster than the free space ahead of it
    /// over the time gap (see [`free_distance`]), of `neighbors` (its nearest). Held
    /// back so, it steps out of the queue when a way beside it is freer (see
    /// [`OVERTAKE_ANGLE`]) and `step_out` allows.
    fn keep_time_gap<'n>(
        &self,
        ctx: &SteerContext<'_>,
        neighbors: impl Iterator<Item = &'n Neighbor> + Clone,
        preferred: Vec2,
        step_out: bool,
    ) -> Vec2 {
        let speed = preferred.length();
        let Some(way) = preferred.try_normalize() else {
            return preferred;
        };
        let agent = ctx.agent;
        let time_gap = self.params.time_gap;
        // A passage a few abreast: its width across the way, looked for no further than
        // `ZIPPER_PASSAGE` diameters.
        let passage = ZIPPER_PASSAGE * 2.0 * agent.radius;
        let band = if self.params.zipper > 1.0
            && (width_across(ctx.walls, agent.position, way, passage) < passage
                || before_short_door(ctx.opening, agent.position, passage))
        {
            self.params.zipper
        } else {
            1.0
        };
        // The way it wants to walk, as its neighbours see it (before its vision turned
        // it), beside the way it walks: see [`free_distance`].
        let wanted = agent.preferred_velocity.try_normalize().unwrap_or(way);
        let range = self.params.neighbor_dist.max(0.0);
        // In a passage that goes on: the one ahead walks on too (see `ANTICIPATION`).
        let lead = if band > 1.0
            && width_across(
                ctx.walls,
                agent.position + way * ANTICIPATION_REACH,
                way,
                passage,
            ) < passage
        {
            ANTICIPATION
        } else {
            0.0
        };
        // In a door: someone ahead walking to the same destination walks on (see
        // `SAME_DESTINATION_LEAD`).
        let same_lead = if lead == 0.0 && band > 1.0 {
            SAME_DESTINATION_LEAD
        } else {
            lead
        };
        let free_along = |along: Vec2| {
            free_distance(
                agent,
                neighbors.clone(),
                (along, wanted),
                range,
                (band, lead, same_lead),
            )
        };
        let straight = (free_along(way) / time_gap).min(speed);
        if straight >= speed || !step_out {
            return way * straight;
        }
        // Held back: of the ways within `OVERTAKE_ANGLE` whose lane is free of people to
        // queue behind and of walls for `OVERTAKE_LANE`, the one that gains most along
        // the way (of two that gain as much, the nearer, then the one to the left), if
        // it gains more than `OVERTAKE_GAIN` times the queue's pace.
        let mut best = (straight * OVERTAKE_GAIN, way, straight);
        for step in 1..=OVERTAKE_STEPS {
            for side in [1.0f32, -1.0] {
                let angle = side * step as f32 * OVERTAKE_ANGLE / OVERTAKE_STEPS as f32;
                let aside = Vec2::from_angle(angle).rotate(way);
                let mut free = free_along(aside);
                if free < OVERTAKE_LANE {
                    continue;
                }
                if let Some(wall) = heading::wall_within(ctx, aside, free) {
                    free = free.min(wall);
                }
                let pace = (free / time_gap).min(speed);
                if free >= OVERTAKE_LANE && pace * angle.cos() > best.0 {
                    best = (pace * angle.cos(), aside, pace);
                }
            }
        }
        best.1 * best.2
    }

    /// The half-planes of the neighbours `nearest` (indices into `ctx.neighbors`) with
    /// the avoidance shared by [`OrcaParams::priority`]; returns whether every one
    /// admits `preferred`.
    fn prioritised_half_planes(
        &self,
        ctx: &SteerContext<'_>,
        inv_tau: f32,
        preferred: Vec2,
        nearest: &[(f32, usize)],
        planes: &mut Vec<HalfPlane>,
    ) -> bool {
        let agent = &ctx.agent;
        let heading = agent.preferred_velocity.normalize_or_zero();
        let against = self.against_the_flow(ctx, heading, nearest);
        let mut admitted = true;
        for &(_, index) in nearest {
            let neighbor = &ctx.neighbors[index];
            let mut share = priority_share(agent, heading, neighbor, self.params.priority);
            if against > 0.0 && neighbor.preferred_velocity.dot(heading) < 0.0 {
                // Someone walking against the flow around it gives way to those it
                // meets: it takes more than half, they keep their half, so the pair
                // still avoids each other in full.
                share = share.max((0.5 + 0.5 * against).min(1.0));
            }
            if share <= 0.0 {
                // The neighbour behind takes all of it: nothing is left for this agent.
                continue;
            }
            // Someone the agent yields to entirely is expected to walk as it wants to.
            let expected;
            let neighbor = if share >= 1.0 && neighbor.kind == NeighborKind::Agent {
                expected = Neighbor {
                    velocity: neighbor.preferred_velocity,
                    ..*neighbor
                };
                &expected
            } else {
                neighbor
            };
            let (plane, admits) = half_plane_disc(
                agent,
                neighbor,
                inv_tau,
                &self.turn(),
                ctx.dt,
                preferred,
                share,
            );
            if is_finite(&plane) {
                planes.push(plane);
                admitted &= admits;
            }
        }
        admitted
    }

    /// How much the agent walks against the flow of its neighbours `nearest`: the mean
    /// of their preferred ways (unit, or zero for those standing) against its own
    /// `heading`, times [`OrcaParams::yield_to_flow`]; 0 when it walks with the flow.
    fn against_the_flow(
        &self,
        ctx: &SteerContext<'_>,
        heading: Vec2,
        nearest: &[(f32, usize)],
    ) -> f32 {
        let weight = self.params.yield_to_flow;
        if weight.is_nan() || weight <= 0.0 || nearest.is_empty() || heading == Vec2::ZERO {
            return 0.0;
        }
        let flow: Vec2 = nearest
            .iter()
            .map(|&(_, i)| ctx.neighbors[i].preferred_velocity.normalize_or_zero())
            .sum();
        (-heading.dot(flow) / nearest.len() as f32).max(0.0) * weight
    }

    /// The hard half-planes of the walls in range, appended to `planes`; returns whether
    /// every one of them admits `preferred`.
    fn wall_half_planes(
        &self,
        ctx: &SteerContext<'_>,
        max_speed: f32,
        preferred: Vec2,
        planes: &mut Vec<HalfPlane>,
    ) -> bool {
        let agent = &ctx.agent;
        let range = self.params.time_horizon_obst.max(0.0) * max_speed + agent.radius.max(0.0);
        let range_squared = range * range;
        let mut admitted = true;
        for wall in ctx.walls {
            let distance_squared = wall.distance_squared(agent.position);
            if distance_squared.is_nan() || distance_squared > range_squared {
                continue;
            }
            if let Some(plane) =
                orca_half_plane_segment(agent, *wall, self.params.time_horizon_obst, ctx.dt)
            {
                if is_finite(&plane) {
                    planes.push(plane);
                    admitted &= plane.contains(preferred);
                }
            }
        }
        admitted
    }
}

impl Steering for Orca {
    fn name(&self) -> &'static str {
        "orca"
    }

    fn neighborhood(&self) -> Option<super::Neighborhood> {
        Some(super::Neighborhood {
            neighbor_dist: self.params.neighbor_dist,
            max_neighbors: self.params.seen_neighbors(),
        })
    }

    fn reciprocal(&self) -> bool {
        true
    }

    fn steer(&self, ctx: &SteerContext<'_>, debug: Option<&mut SteerDebug>) -> Vec2 {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => self.steer_with(ctx, &mut scratch, debug),
            // Re-entered on this thread (a steering method calling another): use fresh
            // buffers rather than panic.
            Err(_) => self.steer_with(ctx, &mut OrcaScratch::new(), debug),
        })
    }
}

/// Whether every number of `plane` is finite: `x · 0` is 0 for finite `x` and NaN for
/// infinite or NaN `x`, so one comparison checks all four.
#[inline(always)]
fn is_finite(plane: &HalfPlane) -> bool {
    let zero = plane.point * 0.0 + plane.direction * 0.0;
    zero.x + zero.y == 0.0
}

/// Whether `x` is finite and greater than zero, in one integer comparison: the bits of
/// such floats, less one, are below those of the largest finite float; zero wraps
/// around, and negative numbers, infinity and NaN lie above.
#[inline(always)]
fn is_positive_finite(x: f32) -> bool {
    x.to_bits().wrapping_sub(1) < f32::MAX.to_bits()
}

/// The indices of the nearest `max_neighbors` neighbours whose centres lie within
/// `neighbor_dist`, nearest first (ties by index), into `nearest`.
fn select_neighbors(
    ctx: &SteerContext<'_>,
    neighbor_dist: f32,
    max_neighbors: usize,
    nearest: &mut Vec<(f32, usize)>,
) {
    nearest.clear();
    let range = neighbor_dist.max(0.0);
    let range_squared = range * range;
    for (index, neighbor) in ctx.neighbors.iter().enumerate() {
        let distance_squared = neighbor.position.distance_squared(ctx.agent.position);
        if distance_squared < range_squared {
            nearest.push((distance_squared, index));
        }
    }
    let order = |x: &(f32, usize), y: &(f32, usize)| -> Ordering {
        x.0.total_cmp(&y.0).then(x.1.cmp(&y.1))
    };
    if nearest.len() > max_neighbors {
        nearest.select_nth_unstable_by(max_neighbors, order);
        nearest.truncate(max_neighbors);
    }
    // A world hands its neighbours over sorted already. (The distances kept are below
    // the range, so not NaN, and squares, so not -0: `<` and `==` order them as
    // `total_cmp` does.)
    let in_order = |x: &(f32, usize), y: &(f32, usize)| x.0 < y.0 || (x.0 == y.0 && x.1 <= y.1);
    if !nearest.is_sorted_by(in_order) {
        nearest.sort_unstable_by(order);
    }
}

/// The ORCA half-plane that `neighbor` imposes on `agent`'s velocity.
///
/// Outside contact, it is built from the velocity obstacle over `time_horizon`: `u` is
/// the smallest change of the relative velocity that leaves it, `n` the outward normal
/// there, and the half-plane is `{v : (v - (velocity + share·u))·n >= 0}` with share ½
/// for a [`NeighborKind::Agent`] and 1 for a [`NeighborKind::Obstacle`]. Discs that
/// already overlap use `dt` as the horizon. Head-on cases whose half-plane excludes the
/// preferred velocity are biased to the agent's right by the people preset's
/// [`OrcaParams::symmetry_bias`] (see [`Orca`]).
pub fn orca_half_plane_disc(
    agent: &SteerAgent,
    neighbor: &Neighbor,
    time_horizon: f32,
    dt: f32,
) -> HalfPlane {
    let preferred = clamp_speed(agent.preferred_velocity, agent.max_speed);
    let inv_tau = 1.0 / time_horizon.max(MIN_TIME);
    half_plane_disc(
        agent,
        neighbor,
        inv_tau,
        &HeadOnTurn::new(SYMMETRY_BIAS),
        dt,
        preferred,
        reciprocal_share(neighbor),
    )
    .0
}

/// The share of the avoidance an agent takes towards `neighbor` when the effort is
/// split evenly: half for an agent, all of it for an obstacle (which does not react).
#[inline(always)]
fn reciprocal_share(neighbor: &Neighbor) -> f32 {
    match neighbor.kind {
        NeighborKind::Agent => 0.5,
        NeighborKind::Obstacle => 1.0,
    }
}

/// [`orca_half_plane_disc`] given `inv_tau = 1 / max(time_horizon, MIN_TIME)`, the
/// head-on `turn` and the agent's preferred velocity clamped to its top speed (all
/// computed once per agent, not once per neighbour), with whether the half-plane admits
/// that preferred velocity.
#[inline(always)]
fn half_plane_disc(
    agent: &SteerAgent,
    neighbor: &Neighbor,
    inv_tau: f32,
    turn: &HeadOnTurn,
    dt: f32,
    preferred: Vec2,
    share: f32,
) -> (HalfPlane, bool) {
    let relative_position = neighbor.position - agent.position;
    let relative_velocity = agent.velocity - neighbor.velocity;
    let radius = (agent.radius + neighbor.radius).max(0.0);
    let distance_squared = relative_position.length_squared();
    // Also when the distance is NaN.
    let apart = distance_squared > radius * radius;
    if !apart {
        let plane = overlapping_half_plane(agent, neighbor, radius, share, turn, dt, preferred);
        return (plane, plane.contains(preferred));
    }
    let boundary = closest_on_disc_velocity_obstacle(
        relative_position,
        distance_squared,
        radius,
        inv_tau,
        relative_velocity,
    );
    let u = boundary.point - relative_velocity;
    let plane = HalfPlane::from_point_normal(agent.velocity + u * share, boundary.normal);
    // Head-on cases are turned to the right only when the half-plane binds, i.e. the
    // preferred velocity lies outside it; a neighbour that is no threat keeps its
    // exact half-plane.
    let admits = plane.contains(preferred);
    if boundary.piece != Piece::Arc || admits {
        return (plane, admits);
    }
    match head_on_half_plane(
        agent,
        (relative_position, relative_velocity),
        radius,
        share,
        inv_tau,
        turn,
        boundary.normal,
    ) {
        Some(turned) => (turned, turned.contains(preferred)),
        None => (plane, false),
    }
}

/// [`half_plane_disc`] when the cut-off arc binds: its normal turned to the right by
/// `turn` when it lies near the axis (see the module docs), given the neighbour's
/// position and the agent's velocity relative to each other; `None` when it is left as
/// it is, or for coincident centres.
#[cold]
#[inline(never)]
fn head_on_half_plane(
    agent: &SteerAgent,
    (relative_position, relative_velocity): (Vec2, Vec2),
    radius: f32,
    share: f32,
    inv_tau: f32,
    turn: &HeadOnTurn,
    normal: Vec2,
) -> Option<HalfPlane> {
    let axis = relative_position.try_normalize()?;
    // Most binding arcs are not head-on: then the half-plane stays as it was built,
    // without the arc cosine below.
    if !turn.near_axis(normal, axis) {
        return None;
    }
    // Keep the turned normal on the near arc: no further from the axis than the tangent
    // points.
    let distance = relative_position.length_squared().sqrt();
    let cos_arc_half_angle = (radius / distance).clamp(-1.0, 1.0);
    // The arc cosine is needed only when the tangent points lie nearer the axis than
    // the bias, i.e. for discs almost touching: `acos(c) >= turn.angle` exactly when
    // `c < turn.rotation.x`.
    let normal = if cos_arc_half_angle < turn.rotation.x {
        turn.turned(normal, axis, turn.angle)
    } else {
        turn.turned(normal, axis, cos_arc_half_angle.acos())
    };
    let center = relative_position * inv_tau;
    let u = center + normal * (radius * inv_tau) - relative_velocity;
    Some(HalfPlane::from_point_normal(
        agent.velocity + u * share,
        normal,
    ))
}

/// [`half_plane_disc`] for discs that already overlap (or whose distance is NaN): leave
/// the disc of radius `radius / dt` around `relative_position / dt`, i.e. separate
/// within one step.
#[cold]
#[inline(never)]
fn overlapping_half_plane(
    agent: &SteerAgent,
    neighbor: &Neighbor,
    radius: f32,
    share: f32,
    turn: &HeadOnTurn,
    dt: f32,
    preferred: Vec2,
) -> HalfPlane {
    let relative_position = neighbor.position - agent.position;
    let relative_velocity = agent.velocity - neighbor.velocity;
    let axis = relative_position.try_normalize();
    let inv_dt = 1.0 / dt.max(MIN_TIME);
    let center = relative_position * inv_dt;
    let normal = (relative_velocity - center)
        .try_normalize()
        .or_else(|| axis.map(|axis| -axis))
        .or_else(|| {
            // Coincident and at rest relative to each other: split by the preferred
            // velocities (antisymmetric between the two agents), else any way.
            (-(agent.preferred_velocity - neighbor.preferred_velocity).perp()).try_normalize()
        })
        .unwrap_or(Vec2::X);
    let scaled_radius = radius * inv_dt;
    let plane_for = |normal: Vec2| {
        let u = center + normal * scaled_radius - relative_velocity;
        HalfPlane::from_point_normal(agent.velocity + u * share, normal)
    };
    let plane = plane_for(normal);
    match axis {
        // Head-on: turned to the right when it binds (see the module docs).
        Some(axis) if !plane.contains(preferred) => {
            plane_for(turn.turned(normal, axis, turn.angle))
        }
        _ => plane,
    }
}

/// The head-on turn of one [`OrcaParams::symmetry_bias`], its cosine and sine worked out
/// once.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HeadOnTurn {
    /// The [`OrcaParams::symmetry_bias`] it was made from, as given.
    given: f32,
    /// The angle turned by, radians: `given` within 0 to [`MAX_SYMMETRY_BIAS`], 0 for
    /// NaN.
    angle: f32,
    /// `Vec2::from_angle(angle)`: its cosine and sine, correctly rounded.
    rotation: Vec2,
    /// `angle.sin()`: normals nearer the axis line than this sine are turned.
    sin: f32,
}

impl HeadOnTurn {
    /// The turn by `bias` radians, clamped to 0 to [`MAX_SYMMETRY_BIAS`].
    fn new(bias: f32) -> HeadOnTurn {
        let angle = if bias > 0.0 {
            bias.min(MAX_SYMMETRY_BIAS)
        } else {
            0.0
        };
        // Through f64, so that both are correctly rounded (`f32::sin_cos` need not be).
        let (sin, cos) = f64::from(angle).sin_cos();
        HeadOnTurn {
            given: bias,
            angle,
            rotation: Vec2::new(cos as f32, sin as f32),
            sin: angle.sin(),
        }
    }

    /// Whether the unit `normal` lies within the turn's angle of the line of the unit
    /// `axis` (either way): the normals [`HeadOnTurn::turned`] turns.
    #[inline(always)]
    fn near_axis(&self, normal: Vec2, axis: Vec2) -> bool {
        normal.perp_dot(axis).abs() < self.sin
    }

    /// Turns a normal lying within the turn's angle of the axis (either way) to exactly
    /// `min(angle, max_angle)` counter-clockwise of the axis line, which is the agent's
    /// right when the normal points back at it. The same in every agent's frame:
    /// negating all inputs negates the result bit for bit.
    fn turned(&self, normal: Vec2, axis: Vec2, max_angle: f32) -> Vec2 {
        if !self.near_axis(normal, axis) {
            return normal;
        }
        let base = if normal.dot(axis) >= 0.0 { axis } else { -axis };
        let angle = self.angle.min(max_angle).max(0.0);
        let rotation = if angle == self.angle {
            self.rotation
        } else {
            Vec2::from_angle(angle)
        };
        rotation.rotate(base)
    }
}

/// The ORCA half-plane of a static wall for `agent`, or `None` when the wall's back
/// faces the agent (its centre lies strictly on the wall's right), or the wall is a
/// point the agent's centre sits on.
///
/// The wall's velocity obstacle is the cone over the capsule (the segment thickened by
/// the agent's radius), truncated at `time_horizon_obst`; the half-plane is tangent to
/// it at the boundary point nearest the current velocity (full responsibility). When
/// the agent already overlaps the wall, it may not move further in, and is pushed out
/// at up to `(radius - distance) / dt`, capped at half its top speed.
pub fn orca_half_plane_segment(
    agent: &SteerAgent,
    wall: Segment,
    time_horizon_obst: f32,
    dt: f32,
) -> Option<HalfPlane> {
    let a = wall.a - agent.position;
    let b = wall.b - agent.position;
    if (b - a).perp_dot(-a) < 0.0 {
        return None;
    }
    let radius = agent.radius.max(0.0);
    let closest = closest_point_on_segment(Vec2::ZERO, a, b);
    let distance_squared = closest.length_squared();
    if distance_squared > radius * radius {
        let inv_tau = 1.0 / time_horizon_obst.max(MIN_TIME);
        let boundary = closest_on_velocity_obstacle(a, b, radius, inv_tau, agent.velocity);
        return Some(HalfPlane::from_point_normal(
            boundary.point,
            boundary.normal,
        ));
    }
    let normal = (-closest)
        .try_normalize()
        .or_else(|| (b - a).perp().try_normalize())?;
    let depth = radius - distance_squared.sqrt();
    let push = (depth / dt.max(MIN_TIME)).min(WALL_PUSH_SHARE * agent.max_speed.max(0.0));
    Some(HalfPlane::from_point_normal(normal * push, normal))
}

/// Which part of a velocity obstacle's boundary a point lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// The clockwise leg (on the agent's right looking at the obstacle).
    RightLeg,
    /// The counter-clockwise leg.
    LeftLeg,
    /// One of the cut-off end circles.
    Arc,
    /// The cut-off straight side of a capsule.
    Side,
}

/// The boundary point of a velocity obstacle nearest a velocity, with the outward unit
/// normal there.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Boundary {
    point: Vec2,
    normal: Vec2,
    piece: Piece,
}

/// A tangent from the origin to a circle: unit direction and distance to the
/// touching point.
#[derive(Clone, Copy, Debug)]
struct Tangent {
    direction: Vec2,
    length: f32,
}

/// The two tangents from the origin to the circle around `center`, which must lie
/// further than `radius` from the origin: (counter-clockwise, clockwise).
fn tangents_from_origin(center: Vec2, radius: f32) -> (Tangent, Tangent) {
    let distance_squared = center.length_squared();
    let length = (distance_squared - radius * radius).max(0.0).sqrt();
    let along = center * length;
    let across = center.perp() * radius;
    let left = ((along + across) / distance_squared).normalize_or_zero();
    let right = ((along - across) / distance_squared).normalize_or_zero();
    (
        Tangent {
            direction: left,
            length,
        },
        Tangent {
            direction: right,
            length,
        },
    )
}

/// The point of the boundary of the velocity obstacle of a capsule nearest to `v`.
///
/// The capsule is the set of points within `radius` of the segment `a`–`b` (relative
/// to the agent, which sits at the origin, outside the capsule); `a == b` gives a disc.
/// The obstacle is `{v : v·t lies in the capsule for some t in (0, τ]}`, `inv_tau =
/// 1/τ`: the cone from the origin tangent to the capsule, cut off by the capsule scaled
/// by `1/τ`. Its boundary is made of the two legs (rays along the tangents, from the
/// scaled touching points outward) and the part of the scaled capsule that faces the
/// origin: end arcs and, when the agent is more than `radius` from the segment's line,
/// the near straight side. Each piece offers its nearest point (clamped to the piece),
/// and the nearest wins; ties go to the right leg.
fn closest_on_velocity_obstacle(a: Vec2, b: Vec2, radius: f32, inv_tau: f32, v: Vec2) -> Boundary {
    let axis = (b - a).try_normalize();
    let (left_a, right_a) = tangents_from_origin(a, radius);
    let (left_b, right_b) = match axis {
        Some(_) => tangents_from_origin(b, radius),
        None => (left_a, right_a),
    };
    // The capsule's tangents are the outermost of its end circles'.
    let left = if left_a.direction.perp_dot(left_b.direction) > 0.0 {
        left_b
    } else {
        left_a
    };
    let right = if right_a.direction.perp_dot(right_b.direction) < 0.0 {
        right_b
    } else {
        right_a
    };

    let mut best = leg_candidate(right, inv_tau, v, Piece::RightLeg);
    let mut consider = |candidate: (f32, Boundary)| {
        if candidate.0 < best.0 {
            best = candidate;
        }
    };
    consider(leg_candidate(left, inv_tau, v, Piece::LeftLeg));

    let scaled_radius = radius * inv_tau;
    let ends = [(a, b), (b, a)];
    let end_count = if axis.is_some() { 2 } else { 1 };
    for &(end, other) in &ends[..end_count] {
        let center = end * inv_tau;
        let Some(normal) = (v - center).try_normalize() else {
            continue;
        };
        let faces_origin = normal.dot(center) + scaled_radius <= 0.0;
        let on_end_cap = axis.is_none() || normal.dot(other - end) <= 0.0;
        if faces_origin && on_end_cap {
            let distance = (v.distance(center) - scaled_radius).abs();
            consider((
                distance * distance,
                Boundary {
                    point: center + normal * scaled_radius,
                    normal,
                    piece: Piece::Arc,
                },
            ));
        }
    }

    if let Some(axis) = axis {
        // The straight side facing the origin, when it is visible at all.
        let normal = if axis.perp().dot(a) < 0.0 {
            axis.perp()
        } else {
            -axis.perp()
        };
        if normal.dot(a) + radius < 0.0 {
            let start = (a + normal * radius) * inv_tau;
            let end = (b + normal * radius) * inv_tau;
            let point = closest_point_on_segment(v, start, end);
            consider((
                v.distance_squared(point),
                Boundary {
                    point,
                    normal,
                    piece: Piece::Side,
                },
            ));
        }
    }
    best.1
}

/// [`closest_on_velocity_obstacle`] for a disc around `center` (at `distance_squared`
/// from the origin, more than `radius²`), the hot case: RVO2's closed form, one square
/// root and one division. The cut-off arc is nearest when `v` lies beyond it, seen from
/// the origin; otherwise the leg on `v`'s side (the right one on a tie), with `v`
/// projected on it (clamped to the leg's start).
#[inline(always)]
fn closest_on_disc_velocity_obstacle(
    center: Vec2,
    distance_squared: f32,
    radius: f32,
    inv_tau: f32,
    v: Vec2,
) -> Boundary {
    // Written on scalars: this runs once per neighbour of every agent.
    let (cx, cy) = (center.x, center.y);
    let radius_squared = radius * radius;
    let (wx, wy) = (v.x - cx * inv_tau, v.y - cy * inv_tau);
    let along = wx * cx + wy * cy;
    let w_squared = wx * wx + wy * wy;
    if along < 0.0 && along * along > radius_squared * w_squared {
        // `Vec2::try_normalize`, bit for bit: its inverse length is finite and positive
        // exactly when the squared length is.
        if is_positive_finite(w_squared) {
            let inverse = 1.0 / w_squared.sqrt();
            let normal = Vec2::new(wx * inverse, wy * inverse);
            return Boundary {
                point: center * inv_tau + normal * (radius * inv_tau),
                normal,
                piece: Piece::Arc,
            };
        }
    }
    leg_boundary(center, distance_squared, radius, inv_tau, v, (wx, wy))
}

/// [`closest_on_disc_velocity_obstacle`] when `v` lies beside the cut-off arc: the
/// leg on `v`'s side (the right one on a tie), with `v` projected on it (clamped to the
/// leg's start); `(wx, wy)` is `v` less the cut-off centre, as the caller has it. Kept
/// out of line: in crowds moving together, the arc is nearest.
#[inline(never)]
fn leg_boundary(
    center: Vec2,
    distance_squared: f32,
    radius: f32,
    inv_tau: f32,
    v: Vec2,
    (wx, wy): (f32, f32),
) -> Boundary {
    let (cx, cy) = (center.x, center.y);
    let radius_squared = radius * radius;
    let leg = (distance_squared - radius_squared).max(0.0).sqrt();
    // The tangent's direction is the centre rotated by the tangent angle (cosine
    // `leg / distance`, sine `radius / distance`) and scaled by `1 / distance`: a unit
    // vector once divided by `distance²`. Outside the cone lies counter-clockwise of
    // the left leg, clockwise of the right.
    let inv_distance_squared = 1.0 / distance_squared;
    let left = cx * wy - cy * wx > 0.0;
    let signed_radius = if left { radius } else { -radius };
    let dx = (cx * leg - cy * signed_radius) * inv_distance_squared;
    let dy = (cx * signed_radius + cy * leg) * inv_distance_squared;
    // The leg starts at `direction · leg / τ`; `v` is projected on it.
    let start = leg * inv_tau;
    let along = (v.x * dx + v.y * dy - start).max(0.0) + start;
    let (nx, ny) = if left { (-dy, dx) } else { (dy, -dx) };
    Boundary {
        point: Vec2::new(dx * along, dy * along),
        normal: Vec2::new(nx, ny),
        piece: if left {
            Piece::LeftLeg
        } else {
            Piece::RightLeg
        },
    }
}

/// The nearest point to `v` on a leg of the velocity obstacle, with its squared
/// distance.
fn leg_candidate(tangent: Tangent, inv_tau: f32, v: Vec2, piece: Piece) -> (f32, Boundary) {
    let start = tangent.direction * (tangent.length * inv_tau);
    let along = (v - start).dot(tangent.direction).max(0.0);
    let point = start + tangent.direction * along;
    // Outside the cone lies counter-clockwise of the left leg, clockwise of the right.
    let normal = match piece {
        Piece::LeftLeg => tangent.direction.perp(),
        _ => -tangent.direction.perp(),
    };
    (
        v.distance_squared(point),
        Boundary {
            point,
            normal,
            piece,
        },
    )
}

/// The share of the avoidance between `agent` (walking along the unit or zero
/// `heading`) and `neighbor` that the agent takes, by [`OrcaParams::priority`]: `0.5 +
/// 0.5 · priority · ahead`, clamped to [0, 1], where `ahead` is how far the neighbour
/// lies ahead of the agent along both their ways, less how far the agent lies ahead of
/// it. Antisymmetric, so the two shares of a pair add to 1. Obstacles take none;
/// touching discs, and two standing still, share evenly. Someone standing still takes
/// all of it from a passer-by, who takes none: see [`OrcaParams::priority`].
fn priority_share(agent: &SteerAgent, heading: Vec2, neighbor: &Neighbor, priority: f32) -> f32 {
    if neighbor.kind == NeighborKind::Obstacle {
        return 1.0;
    }
    let other = neighbor.preferred_velocity.normalize_or_zero();
    let offset = neighbor.position - agent.position;
    if let Some(share) = standoff_share(agent, heading, neighbor, other, offset) {
        return share;
    }
    let touching = offset.length_squared() <= (agent.radius + neighbor.radius).powi(2);
    if touching {
        return 0.5;
    }
    match (heading == Vec2::ZERO, other == Vec2::ZERO) {
        (true, true) => return 0.5,
        // A passer-by leaves the way to be made to someone standing, who makes it.
        (false, true) => return 0.0,
        (true, false) => return 1.0,
        (false, false) => {}
    }
    let ahead = (heading + other).dot(offset.normalize_or_zero());
    (0.5 + 0.5 * priority * ahead).clamp(0.0, 1.0)
}

/// How far `agent` can walk straight on along the unit `way` (at most `range`,
/// metres) before its disc, grown so that it touches at `band` times the contact
/// distance, touches one of `neighbors` it queues behind ([`queues_behind`]), both
/// along `way` and along the unit `wanted`: the way it wants to walk as its neighbours
/// see it (its preferred velocity, before its vision turned it). Each neighbour is seen
/// walking the way it wants, so in `wanted` the test is antisymmetric and two never
/// wait for each other; tested along `way` alone, someone turned aside by its vision
/// could queue behind a neighbour that queued behind it, and both stood still (four
/// people in the exit of a 2.4 m door, 12 s, until turning aside freed them). Someone
/// stepping out of the band by its velocity within [`CLEARING_TIME`] is passed over.
/// Someone queued behind counts, beyond the touch, the way its neighbour walks on along
/// `way` in `lead` seconds (0 in the open; see [`ANTICIPATION`]), or in `same_lead`
/// seconds for a neighbour walking to the same destination
/// ([`SAME_DESTINATION_LEAD`]).
fn free_distance<'n>(
    agent: SteerAgent,
    neighbors: impl Iterator<Item = &'n Neighbor>,
    (way, wanted): (Vec2, Vec2),
    range: f32,
    (band, lead, same_lead): (f32, f32, f32),
) -> f32 {
    let mut free = range;
    for neighbor in neighbors {
        let offset = neighbor.position - agent.position;
        let along = offset.dot(way);
        let contact = (agent.radius + neighbor.radius) * band;
        let across = offset.perp_dot(way);
        if along <= 0.0 || along - contact >= free || across.abs() >= contact {
            continue;
        }
        // Someone stepping out of its lane (by its own velocity, out of the band
        // within `CLEARING_TIME`) is no one to queue behind.
        let lateral = neighbor.velocity.perp_dot(way);
        if lateral * across >= 0.0 && (across + lateral * CLEARING_TIME).abs() >= contact {
            continue;
        }
        let other = neighbor.preferred_velocity.normalize_or_zero();
        if queues_behind(way, other, offset) && queues_behind(wanted, other, offset) {
            let hit = along - (contact * contact - across * across).max(0.0).sqrt()
                + neighbor.velocity.dot(way).max(0.0)
                    * if neighbor.same_destination {
                        same_lead
                    } else {
                        lead
                    };
            free = free.min(hit.max(0.0));
        }
    }
    free.max(0.0)
}

/// Whether someone at `position` is in front of a short door, or in it, where the zipper
/// holds ([`SHORT_DOOR`]): `opening` is shorter than that and narrower than `passage`,
/// and `position` lies between [`SHORT_DOOR`] before its exit and its exit.
fn before_short_door(opening: Option<Opening>, position: Vec2, passage: f32) -> bool {
    let Some(door) = opening else {
        return false;
    };
    if !(door.length < SHORT_DOOR && door.width < passage) {
        return false;
    }
    let before = door.before_entry(position);
    before <= SHORT_DOOR - door.length && before >= -door.length
}

/// The free width across the unit `way` at `position`: the distance between the
/// nearest of `walls` met on either side along the line through `position` at right
/// angles to `way`, each side counted to at most `limit`. Only walls alongside
/// `position` count (its foot on the wall's line lies between the wall's ends): a
/// passage is walls on either side of the agent. Walking at a slant towards a door in
/// a room's corner, the line across the way runs from the room's wall beside the door
/// into the door, to the far side of its post, and a wedge of open floor before the
/// door counted as a passage a few wide: the zipper held there, where it does not
/// before a door in a wall's middle (a door 1.6 m wide flush with the corner, places
/// in order, seeds 1 to 4, passed 1.26–1.36 persons/(m·s), 1.37–1.51 now; see
/// docs/crowd-behaviour.md).
fn width_across(walls: &[Segment], position: Vec2, way: Vec2, limit: f32) -> f32 {
    let side = way.perp();
    let (mut left, mut right) = (limit, limit);
    for wall in walls {
        let (a, b) = (wall.a - position, wall.b - position);
        let (along_a, along_b) = (a.dot(way), b.dot(way));
        // The wall must cross the line at right angles to the way (an end on it counts).
        if along_a * along_b > 0.0 || along_a == along_b {
            continue;
        }
        // And lie alongside the agent.
        let span = b - a;
        let foot = -a.dot(span);
        if !(0.0..=span.length_squared()).contains(&foot) {
            continue;
        }
        let t = along_a / (along_a - along_b);
        let at = a.lerp(b, t).dot(side);
        if at >= 0.0 {
            left = left.min(at);
        } else {
            right = right.min(-at);
        }
    }
    left + right
}

/// The least cosine between the ways of two people for one to queue behind the other
/// (45°): someone crossing its way more steeply is passing, not leading a queue.
/// Counted up to 90°, people leaving a door for places on either side queued behind
/// each other where their ways met, in the door and just past it: with places dealt
/// out at random a 2.4 m door passed 1.29 to 1.36 persons per metre and second (seeds
/// 1 to 8), 1.62 to 1.78 with this and [`CLEARING_TIME`] (seeds 1 to 16;
/// docs/crowd-behaviour.md, "Places dealt out otherwise").
const SAME_WAY: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// How far to either side of its way, radians, someone held back in a queue looks for
/// a freer way (20°, every [`OVERTAKE_STEPS`]th part of it). Of the ways whose lane
/// is free of those it would queue behind and of walls for at least
/// [`OVERTAKE_LANE`], it takes the one along which it gains most along its own way
/// (its pace there, the free space over the time gap up to its speed, times the
/// angle's cosine) when that beats its pace in the queue by [`OVERTAKE_GAIN`]: people
/// step out of a file into a free lane beside it and walk abreast (the heuristic of
/// Moussaïd, Helbing and Theraulaz 2011, applied to those walking one's way).
///
/// Someone its vision turned to pass a stream crossing its way keeps that way:
/// stepping out of its queue took it back into the stream, and a crossing of 50 × 6 m
/// with 80 a stream cleared within twice alone on 89 of seeds 1 to 96 (96 without
/// stepping out, 94 with this). Kept also when turned around one person crossing
/// alone, it gave 96 of 96, but two runs of 640 doors fell to 1.48 persons/(m·s):
/// in the hall behind a door people fanning out to their places cross one another's
/// ways one at a time.
///
/// Without it, people leaving a door for places on one side (`Places::Transposed`)
/// merged into a single file behind it, and the file held the door: a 2.4 m door
/// passed 1.25–1.51 persons/(m·s) against 1.77–1.93 with places in order, and
/// counterflows with such places cleared within twice alone on 3 of 24 seeds
/// (docs/crowd-behaviour.md, item 2).
const OVERTAKE_ANGLE: f32 = 20.0 * std::f32::consts::PI / 180.0;

/// Into how many steps [`OVERTAKE_ANGLE`] is cut on either side (5° each).
const OVERTAKE_STEPS: usize = 4;

/// How long, metres, a lane beside a queue must be free for someone to step into it
/// ([`OVERTAKE_ANGLE`]). A gap between two people of a packed crowd is no lane: with
/// any freer way taken (within 30°), the doors passed 2.2–2.7 persons/(m·s), far
/// above the experiments.
const OVERTAKE_LANE: f32 = 2.0;

/// How much more, as a factor, a way beside a queue must gain than the queue's pace
/// ([`OVERTAKE_ANGLE`]), so that nobody steps out for nothing.
const OVERTAKE_GAIN: f32 = 1.1;

/// How wide, in the agent's diameters, a passage may be for the time gap to be kept in
/// a zipper ([`OrcaParams::zipper`]): five. Below three (two abreast but not three, as
/// before), doors of 1.6–2.4 m let people who stepped out of a queue
/// ([`OVERTAKE_ANGLE`]) through at up to 2.23 persons/(m·s) (seeds 1 to 16).
const ZIPPER_PASSAGE: f32 = 5.0;

/// How long, metres, the zipper ([`OrcaParams::zipper`]) holds at least before a door's
/// exit. Inside a passage it holds where walls close in on both sides across one's
/// way; a door in a thin wall has almost no inside, so there it holds from this far
/// before the door's exit (over the door's length and, in front of it, as much as the
/// door is shorter than this). Doors this long or longer behave as before, to the bit.
///
/// Measured with `crowd_flow door-shape=WALL,OFFSET` (the 30 m room, 120 people,
/// persons/(m·s); docs/crowd-behaviour.md, "Door shapes"):
/// - Without it, two files passed a thin door abreast. With doors of 1–2.4 m, walls
///   0.2 and 0.5 m thick, seeds 1–4 and the four ways of dealing places, 59 of 160
///   runs were above the band; with it, 7 of 160 are out.
/// - Seeds 1–16, walls 0.2 / 0.3 / 0.5 m: 1 / 7 / 24 of 320 out. At 0.5 m the 1.2 m
///   door sits above the band in 16 of 64 runs, up to 2.28.
/// - 0.7 m instead: the 2.4 m door in a wall 0.5 m thick fell below the band in 7 of
///   32 runs. 0.8 m: the 2.4 m door in a wall 0.2 m thick fell below in 5 of 32.
/// - From 1 m before the entry, whatever the door's length: the 2.4 m door in a thin
///   wall fell to 1.35–1.62.
/// - Only for people in line with the door's width: 10 of 160 out, and near the
///   corner (below) 20 of 48 below the band instead of 23.
/// - What it costs: a thin door 8 or 12 m off the wall's middle (3 or 7 m from the
///   corner, doors of 1 / 1.6 / 2.4 m, seeds 1–8, places in order) has 23 of 48 runs
///   below the band, against 10 below and 2 above without it. The 2.4 m door 3 m
///   from the corner falls from 1.22–1.32 to 1.07–1.18.
const SHORT_DOOR: f32 = 0.6;

/// How far ahead, seconds, an agent sees someone in its lane step out of it: a
/// neighbour whose own velocity takes its centre out of the band within this time is
/// no one to queue behind (someone turning off after a door, or stepping aside).
const CLEARING_TIME: f32 = 1.0;

/// How long, seconds, someone queued behind a neighbour in a passage that goes on
/// ([`ANTICIPATION_REACH`]) counts that neighbour walking on: the free distance ahead
/// grows by the neighbour's own speed along the way over this time. In the open and
/// in the door of a wall up to a metre thick it is 0, as before.
///
/// Inside a long passage a follower kept its time gap behind someone in line walking
/// at full speed, so each lane carried speed / (zipper contact + speed × time gap),
/// about 1.2 persons/s, along the passage's whole length; at a door in a wall a
/// metre thick the one ahead turns off past the door and is passed over
/// ([`CLEARING_TIME`]), so that headway binds for a second only: doors of 1–2.4 m in
/// a wall 4 m thick passed 1.15–1.46 persons/(m·s), against 1.66–2.07 at 1 m (places
/// in order, seeds 1–8). With 1 s, 15 of 64 runs through 2 m walls and 13 of 64
/// through 4 m walls stay below the band of 1.5–2.1 (four ways of dealing places,
/// seeds 1–4; 50 and 64 without); 0.5 s left 19 and 23 below, 1.5 s 13 below in 2 m
/// walls and 6 below and 6 above in 4 m walls (docs/crowd-behaviour.md, "Door
/// shapes").
const ANTICIPATION: f32 = 1.0;

/// How long, seconds, someone queued behind a neighbour in a door (where the zipper
/// holds, [`OrcaParams::zipper`], short of a passage that goes on: [`ANTICIPATION`])
/// counts that neighbour walking on, when it walks to the same destination
/// ([`Neighbor::same_destination`]).
///
/// With places of their own, the one ahead turns off to its place once through the
/// door and is passed over ([`CLEARING_TIME`]). Sent to one point past the door, it
/// walks straight on, and the follower kept its time gap behind it all the way
/// through: the door passed people in one file, 1.33–1.42 persons/(m·s) at 1.0 and
/// 1.2 m with the point 9.5 m past the door (`crowd_flow doors@together`, seeds 1–4),
/// and 5 of 20 scenario files with one point 17 m past doors of 1.0–2.4 m (a probe:
/// docs/crowd-behaviour.md) fell below the band of 1.5–2.1, down to 1.40. Someone
/// walking where one walks oneself does not stop in one's way. With 0.2 s: 1.71–1.75
/// and 1.64–1.84 at 1.0 and 1.2 m, and every one of the 20 files within the band but
/// one at 2.11 (1.59 → 1.76 in the mean); 0.15 s: 1.61–1.64 and 1.57–1.68, all 20 from
/// 1.50 to 2.02; 0.3 s sent the 1.0 and 1.2 m doors to 2.11–2.23. With places of their
/// own nobody shares a destination, and nothing changes.
const SAME_DESTINATION_LEAD: f32 = 0.2;

/// How far ahead, metres, the passage must go on ([`width_across`] there below the
/// zipper's passage) for [`ANTICIPATION`] to hold: beyond the door of a wall a metre
/// thick, so that its flow is as calibrated. With 1.5 m only those deeper inside
/// gained: 45 and 50 of 64 runs through 2 m and 4 m walls stayed below the band (15
/// and 13 with 1 m; the runs of [`ANTICIPATION`]).
const ANTICIPATION_REACH: f32 = 1.0;

/// Whether an agent that would walk along the unit `way` queues behind a neighbour at
/// `offset` that would walk along the unit (or zero) `other`: one walking the same way
/// (within 45°, [`SAME_WAY`]) and ahead of the agent more than the agent is ahead of
/// it, so that two never wait for each other.
fn queues_behind(way: Vec2, other: Vec2, offset: Vec2) -> bool {
    other.dot(way) > SAME_WAY && (way + other).dot(offset) > 0.0
}

/// Below this speed, metres per second, two people face to face stand off
/// ([`standoff_share`]).
const STANDOFF_SPEED: f32 = 0.3;

/// How near, in contact distances between their centres, two people stand off
/// ([`standoff_share`]).
const STANDOFF_REACH: f32 = 2.5;

/// The least sine of the angle between the ways of two people standing off for one of
/// them to yield by the rule of the right ([`standoff_share`]): ways turned from
/// each other by between 90° and about 163°. Nearly head-on (in a lane of a
/// counterflow, say), the head-on turn lets them pass side by side instead; the rule
/// there locked a counterflow with places dealt out at random (3.8 times alone).
const STANDOFF_CROSS: f32 = 0.3;

/// The share of the avoidance `agent` (walking along the unit `heading`) takes from
/// `neighbor` (wanting to walk along the unit or zero `other`, at `offset`) when the
/// two stand off: both slower than [`STANDOFF_SPEED`], their centres less than
/// [`STANDOFF_REACH`] contact distances apart, their ways turned from each other by
/// more than 90° and crossing at more than [`STANDOFF_CROSS`]. The rule of the right
/// decides: the agent yields entirely (1) to someone whose way crosses its own from
/// its right, and takes none (0) from someone whose way crosses from its left, so that
/// one of the two goes first. `None` when they do not stand off. Antisymmetric, as
/// every share.
///
/// Two people pressed against the two posts of a door one person wide, each heading
/// round its post across the door, met in its mouth at the same pace: each took half
/// of the avoidance, neither could pass, and both stood for 7–15 s until turning
/// aside freed them (`world::follow`). A 1 m door passed 1.37–1.43 persons/(m·s) on
/// such seeds, against 1.5–1.7 on the others.
fn standoff_share(
    agent: &SteerAgent,
    heading: Vec2,
    neighbor: &Neighbor,
    other: Vec2,
    offset: Vec2,
) -> Option<f32> {
    let slow = STANDOFF_SPEED * STANDOFF_SPEED;
    let near = STANDOFF_REACH * (agent.radius + neighbor.radius);
    if agent.velocity.length_squared() >= slow
        || neighbor.velocity.length_squared() >= slow
        || heading.dot(other) >= 0.0
        || offset.length_squared() >= near * near
    {
        return None;
    }
    let crossing = heading.perp_dot(other);
    if crossing > STANDOFF_CROSS {
        Some(1.0)
    } else if crossing < -STANDOFF_CROSS {
        Some(0.0)
    } else {
        None
    }
}

#[path = "orca_lanes.rs"]
mod lanes;

#[path = "orca_heading.rs"]
mod heading;

#[cfg(test)]
#[path = "orca_test.rs"]
mod tests;
