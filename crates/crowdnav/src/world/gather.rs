//! Gathering at a shared place: agents sent to one point (a rally point, the far side of
//! an exit) cannot all stand on it. The first to come rests there; everyone after it
//! whose way the ones gathered there block takes a free *spot* near the point, so that
//! the crowd settles in a compact disc around it instead of queueing on towards it in
//! a column that never arrives (a column that, behind a door, grew back into the door
//! and shut it).
//!
//! - Two places are *the same* when bodies resting on both would overlap: closer than
//!   the two radii. Someone *gathered* at a place has arrived there (at the point or at
//!   a spot of it) and rests there or walks back to it.
//! - An agent on its way to its point goal, slower than [`LOOKING_SPEED`] of its
//!   cruising speed, that comes within [`GATHER_REACH`] of someone gathered at the same
//!   place looks for a spot: of the points of a hexagonal lattice around its goal,
//!   [`SPOT_SPACING`] diameters apart (on a mesh not the goal itself, which only the
//!   first to come takes), the one of least cost (its distance from the goal plus
//!   [`NEAR_WEIGHT`] times its distance from the agent) that nobody gathered covers and
//!   that a disc of its radius reaches from the goal in a straight line on the mesh
//!   (never a spot across a wall). A goal where the disc does not fit (inside an
//!   obstacle) gathers round the nearest place where it does. It walks there and rests
//!   there as at its place. Someone gathered on its spot first sends it to
//!   look again.
//! - Before anyone has arrived (people converging on the point from every side meet
//!   around it first), an agent held up within [`GATHER_REACH`] of contact with the
//!   point itself, with someone else heading for the same place as near, rests where
//!   it stands; the others gather around it.
//! - Someone resting at a spot and pushed off it takes the place it was pushed to as
//!   its spot: walking back would only push the next person off theirs.
//!
//! Everything read is the state at the start of the step (positions from the point
//! grid, every agent's place from [`places`]), so the choice is the same on any thread
//! count. Agents with places of their own (goals further apart than their bodies) never
//! take spots.

use super::agent::{Agent, AgentState, Goal};
use crate::grid::PointGrid;
use crate::mesh::NavMesh;
use glam::Vec2;
use rayon::prelude::*;
use std::sync::OnceLock;

/// How near someone gathered at its place an agent must come, past contact, in its own
/// radii, to count its place as crowded: half a body's width.
pub const GATHER_REACH: f32 = 1.0;

/// The distance between neighbouring spots of a gathering, in diameters of the agent
/// looking for one: a little room between people standing together.
pub const SPOT_SPACING: f32 = 1.15;

/// Below this fraction of its cruising speed an agent on its way looks whether a
/// gathering holds it up (one walking on freely is not held up).
pub const LOOKING_SPEED: f32 = 0.5;

/// How much a spot's distance from the agent weighs against its distance from the
/// goal: a spot costs its distance from the goal plus this times its distance from the
/// agent. At 1 every spot between the agent and the goal costs the same, and the
/// gathering stays round (but newcomers walk into it to fill its holes, and the queue
/// behind them waits: 300 people gathering behind a gap took 189 s to settle); at 2
/// they take spots on their own side, and the gathering grows back towards where they
/// come from (to twice the radius of a round one). 1.25: 126 s, a tenth wider than
/// round (measured with a probe while it was built; the sweep is in
/// docs/crowd-behaviour.md, "People sent to one point").
pub const NEAR_WEIGHT: f32 = 1.25;

/// How many spots an agent looks at, nearest first (about 36 rings of the lattice):
/// past a gathering of some four thousand it keeps heading for its goal.
const MOST_SPOTS: usize = 4096;

/// An agent with a point goal at the start of the step: its place (the goal, where its
/// gathering is), its radius, and whether it has come there (it rests at the point or
/// at a spot of its gathering, or walks back to it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Place {
    pub point: Vec2,
    pub radius: f32,
    pub gathered: bool,
}

impl Place {
    /// Whether this place and `point`, for a body of `radius`, are the same: bodies
    /// resting on both would overlap.
    fn same(&self, point: Vec2, radius: f32) -> bool {
        self.point.distance_squared(point) < (self.radius + radius).powi(2)
    }
}

/// Every agent's [`Place`] (`None` for those chasing a body). Returns the largest
/// radius of those gathered (0 when nobody is).
pub(super) fn places(agents: &[Agent], out: &mut Vec<Option<Place>>) -> f32 {
    out.clear();
    out.par_extend(agents.par_iter().map(|a| match a.goal {
        Goal::Point(point) => Some(Place {
            point,
            radius: a.radius,
            gathered: a.arrival_time().is_some(),
        }),
        _ => None,
    }));
    out.iter()
        .flatten()
        .filter(|p| p.gathered)
        .map(|p| p.radius)
        .fold(0.0, f32::max)
}

/// What an agent looking for a spot reads of the others.
pub(super) struct Crowd<'a> {
    /// The point grid over every agent (positions at the start of the step).
    pub grid: &'a PointGrid,
    /// Every agent's place ([`places`]), by the same numbering.
    pub places: &'a [Option<Place>],
    /// The largest radius of those gathered ([`places`]' answer; 0 when nobody is,
    /// and then nobody looks whether a gathering holds it up).
    pub widest: f32,
    /// The mesh that spots must be reached on (none: anywhere).
    pub mesh: Option<&'a NavMesh>,
}

impl Crowd<'_> {
    /// Whether someone other than `me` within `range` of `p` has a place for which
    /// `test(place, squared distance from p)` holds.
    fn any_near(&self, me: usize, p: Vec2, range: f32, test: impl Fn(&Place, f32) -> bool) -> bool {
        let mut found = false;
        self.grid.for_each_within(p, range, |j, d2| {
            let j = j as usize;
            found = found
                || (j != me && matches!(self.places.get(j), Some(Some(place)) if test(place, d2)));
        });
        found
    }

    /// Whether agent `me` (at `position`, of `radius`, heading for `goal`) comes within
    /// [`GATHER_REACH`] of someone gathered at the same place.
    fn crowds(&self, me: usize, position: Vec2, radius: f32, goal: Vec2) -> bool {
        if self.widest <= 0.0 {
            return false;
        }
        let reach = radius * (2.0 + GATHER_REACH) + self.widest;
        self.any_near(me, position, reach, |other, d2| {
            let near = radius + other.radius + GATHER_REACH * radius;
            other.gathered && d2 < near * near && other.same(goal, radius)
        })
    }

    /// Whether agent `me` (at `position`, of `radius`) is within [`GATHER_REACH`] of
    /// contact with its `goal` point, and so is someone else heading for the same
    /// place.
    fn contested(&self, me: usize, position: Vec2, radius: f32, goal: Vec2) -> bool {
        let reach = radius * (1.0 + GATHER_REACH);
        position.distance_squared(goal) < reach * reach
            && self.any_near(me, goal, reach, |other, _| other.same(goal, radius))
    }

    /// Whether someone other than `me`, gathered there, covers `spot` for a body of
    /// `radius`.
    fn covers(&self, me: usize, spot: Vec2, radius: f32) -> bool {
        self.any_near(me, spot, radius + self.widest, |other, d2| {
            other.gathered && d2 < (radius + other.radius).powi(2)
        })
    }

    /// Agent `a`'s new spot this step (`me` its number; on its way to the point `goal`),
    /// when it must look for one: someone gathered now covers its spot, or it has none and
    /// the ones gathered at its place hold it up (or, before anyone has come, others heading
    /// there with it at the point itself). `None` when it keeps what it has (its spot, or
    /// its goal); with no free spot it keeps that too.
    pub(super) fn new_spot(&self, a: &Agent, me: usize, goal: Vec2) -> Option<Vec2> {
        // Someone walking on freely is not held up by a gathering.
        if a.velocity.length_squared() >= (LOOKING_SPEED * a.pref_speed).powi(2) {
            return None;
        }
        match a.spot {
            Some(spot) if self.covers(me, spot, a.radius) => self.free_spot(a, me, goal),
            Some(_) => None,
            None if self.crowds(me, a.position, a.radius, goal) => self.free_spot(a, me, goal),
            // Held up right at its goal by others heading there too, before anyone
            // rests there (people converging on a point from all sides): it rests where
            // it stands, and the others gather around it.
            None if self.contested(me, a.position, a.radius, goal) => Some(a.position),
            None => None,
        }
    }

    /// The free spot of `goal`'s gathering for agent `a` (see the module's docs).
    fn free_spot(&self, a: &Agent, me: usize, goal: Vec2) -> Option<Vec2> {
        // A goal where the disc does not fit (inside an obstacle, off the mesh) gathers
        // round the nearest place where it does, the same for everyone of its radius.
        let goal = match self.mesh {
            Some(mesh) if !matches!(mesh.clearance(goal), Some(c) if c >= a.radius) => {
                mesh.nearest_point(goal, a.radius).ok().flatten()?.point
            }
            _ => goal,
        };
        let spacing = 2.0 * a.radius * SPOT_SPACING;
        let mut best: Option<(f32, Vec2)> = None;
        for &unit in lattice() {
            let from_goal = unit.length() * spacing;
            if best.is_some_and(|(cost, _)| from_goal > cost) {
                break;
            }
            let spot = goal + unit * spacing;
            let cost = from_goal + NEAR_WEIGHT * spot.distance(a.position);
            if best.is_some_and(|(c, _)| cost >= c) {
                continue;
            }
            if self.covers(me, spot, a.radius) || !reachable(self.mesh, goal, spot, a.radius) {
                continue;
            }
            best = Some((cost, spot));
        }
        best.map(|(_, spot)| spot)
    }
}

/// The unit hexagonal lattice's first [`MOST_SPOTS`] points, nearest the origin first:
/// the origin (the goal itself; see [`reachable`]), then ring by ring, points equally near in order of
/// angle.
fn lattice() -> &'static [Vec2] {
    static LATTICE: OnceLock<Vec<Vec2>> = OnceLock::new();
    LATTICE.get_or_init(|| {
        let rings = 40i32;
        let (a, b) = (Vec2::X, Vec2::new(0.5, 3f32.sqrt() / 2.0));
        let mut points: Vec<(i64, f32, Vec2)> = Vec::new();
        for i in -rings..=rings {
            for j in -rings..=rings {
                // The squared length in lattice units, exactly: i² + ij + j².
                let (i64_, j64) = (i64::from(i), i64::from(j));
                let norm = i64_ * i64_ + i64_ * j64 + j64 * j64;
                let p = a * i as f32 + b * j as f32;
                points.push((norm, p.y.atan2(p.x), p));
            }
        }
        points.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
        points.truncate(MOST_SPOTS);
        points.into_iter().map(|(_, _, p)| p).collect()
    })
}

/// Whether a disc of `radius` at `goal` moves in a straight line to `spot` on `mesh`
/// without touching a wall (anything goes without a mesh).
///
/// On a mesh the goal itself is never a spot: the raycast refuses a ray of no length.
/// Only the first to come rests on the goal (by arriving there). Letting the goal be a
/// spot again once it is free was measured and not kept yet: the gathering example gave
/// 58, 76 and 110 s to rest against 65, 50 and 98 s, nine in ten within 1.23, 1.08 and
/// 1.04 round radii against 1.11, 1.08 and 1.20.
fn reachable(mesh: Option<&NavMesh>, goal: Vec2, spot: Vec2, radius: f32) -> bool {
    let Some(mesh) = mesh else {
        return true;
    };
    matches!(mesh.clearance(spot), Some(c) if c >= radius)
        && matches!(mesh.raycast(goal, spot, radius), Ok(None))
}

/// Agent `a`, resting at a spot of a gathering (`a.spot`), pushed further than
/// `tolerance` off it, takes the place it was pushed to as its spot: in a gathering,
/// walking back to the old spot only pushes the next person off theirs.
pub(super) fn settle_where_pushed(a: &mut Agent, tolerance: f32) {
    if let Some(spot) = a.spot {
        if matches!(a.state, AgentState::Arrived | AgentState::Idle)
            && spot.distance_squared(a.position) > tolerance * tolerance
        {
            a.spot = Some(a.position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spots' lattice runs outwards ring by ring: the goal, then six at one
    /// spacing, six at √3, six at 2, never nearer than the one before.
    #[test]
    fn the_lattice_runs_outwards_from_the_goal() {
        let points = lattice();
        assert_eq!(points.len(), MOST_SPOTS);
        assert_eq!(points[0], Vec2::ZERO);
        let ring = |range: std::ops::Range<usize>, length: f32| {
            for p in &points[range] {
                assert!((p.length() - length).abs() < 1e-5, "{p} not at {length}");
            }
        };
        ring(1..7, 1.0);
        ring(7..13, 3f32.sqrt());
        ring(13..19, 2.0);
        for pair in points.windows(2) {
            assert!(pair[1].length() >= pair[0].length() - 1e-5);
        }
        // Neighbours one spacing apart, never nearer.
        for (i, p) in points[..19].iter().enumerate() {
            for q in &points[i + 1..19] {
                assert!(p.distance(*q) > 1.0 - 1e-5);
            }
        }
    }
}
