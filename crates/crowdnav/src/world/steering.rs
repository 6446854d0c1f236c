//! Phase *steer*: every agent's new velocity from the state before the step, in
//! parallel, by the world's [`Steering`] method.

use super::agent::{Agent, MovingObstacle};
use super::index::{PointIndex, Walls};
use super::neighbors::{
    gather_neighbors, neighbor_hint, Memory, NeighborMemory, NeighborScratch, Seen, SeenCrowd,
};
use super::params::WorldParams;
use super::portal;
use crate::geom::Segment;
use crate::steer::{
    clamp_speed, Neighbor, NeighborKind, SteerAgent, SteerContext, SteerDebug, Steering,
};
use glam::Vec2;
use rayon::prelude::*;

/// The phase's output and scratch, kept from step to step.
#[derive(Debug, Default)]
pub(super) struct SteerPhase {
    /// What every agent's neighbours see of it this step, in agent order.
    seen: Vec<Seen>,
    /// Every agent as a [`Neighbor`] with its current velocity, in agent order: what
    /// the phase copies whole for each neighbour (an agent of higher rank then gets its
    /// preferred velocity instead, read from `seen`).
    seen_as_neighbors: Vec<Neighbor>,
    /// Every agent's new velocity, in agent order: the phase's answer.
    pub velocities: Vec<Vec2>,
    /// Whether the steering method records its debug vectors.
    pub record_debug: bool,
    /// The debug vectors of the last step, in agent order, when recorded.
    pub debug: Vec<SteerDebug>,
}

/// What the phase reads besides the agents.
pub(super) struct Surroundings<'a> {
    pub obstacles: &'a [MovingObstacle],
    pub index: &'a PointIndex,
    pub walls: &'a Walls,
    pub steering: &'a dyn Steering,
    pub params: &'a WorldParams,
    /// Whether the game drives some agent.
    pub any_driven: bool,
}

/// Per-thread scratch for the steering phase.
#[derive(Default)]
struct SteerScratch {
    neighbors: NeighborScratch,
    wall_ids: Vec<u32>,
    walls: Vec<Segment>,
}

thread_local! {
    /// The steering phase's scratch of this thread, kept across steps (no allocation
    /// once the crowd's neighbourhoods are stable).
    static STEER_SCRATCH: std::cell::RefCell<SteerScratch> =
        std::cell::RefCell::new(SteerScratch::default());
}

/// Runs `f` with this thread's steering scratch (fresh buffers if it is in use).
fn with_steer_scratch<R>(f: impl FnOnce(&mut SteerScratch) -> R) -> R {
    STEER_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut SteerScratch::default()),
    })
}

impl SteerPhase {
    /// Forgets agent `i`, which left the crowd: its debug vectors go (the step's
    /// records are rebuilt at the next step).
    pub fn remove(&mut self, i: usize) {
        if i < self.debug.len() {
            self.debug.remove(i);
        }
    }

    /// What every agent's neighbours saw of it in the last step, in agent order.
    pub fn seen(&self) -> &[Seen] {
        &self.seen
    }

    /// Every agent's new velocity into [`SteerPhase::velocities`], from the agents'
    /// state before the step; `memory` speeds the neighbour searches up and receives
    /// this step's.
    pub fn run(
        &mut self,
        agents: &[Agent],
        memory: &mut NeighborMemory,
        env: &Surroundings<'_>,
        dt: f32,
    ) {
        let reciprocal = env.steering.reciprocal();
        agents
            .par_iter()
            .map(|a| {
                // A driven agent is seen going as it is driven, a body that will not
                // cooperate.
                let neighbor = match env.any_driven.then_some(a.driven).flatten() {
                    None => Neighbor {
                        position: a.position,
                        velocity: a.velocity,
                        radius: a.radius,
                        preferred_velocity: a.preferred_velocity,
                        kind: NeighborKind::Agent,
                        same_destination: false,
                    },
                    Some(v) => Neighbor {
                        position: a.position,
                        velocity: v,
                        radius: a.radius,
                        preferred_velocity: v,
                        kind: NeighborKind::Obstacle,
                        same_destination: false,
                    },
                };
                (Seen::of(a, reciprocal), neighbor)
            })
            .unzip_into_vecs(&mut self.seen, &mut self.seen_as_neighbors);
        // (A minimum and a maximum are exact: the same on any thread count.)
        let (low, high) = self
            .seen
            .par_iter()
            .map(|b| {
                let key = u16::from(b.priority) << 8 | u16::from(b.rank);
                (key, key)
            })
            .reduce(|| (u16::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
        // When every agent has the same right of way and priority, none sees another
        // with its preferred velocity.
        let one_rank = low >= high;
        let slots = NeighborMemory::slots(env.params);
        memory.resize(agents.len(), slots);
        // Neighbours move towards each other at most twice as far as the fastest.
        let margin = 2.0 * memory.moved;
        let seen = SeenCrowd {
            all: &self.seen,
            as_neighbors: &self.seen_as_neighbors,
            one_rank,
        };
        let obstacles = env.obstacles;
        let grid = &env.index.grid;
        let walls = &env.walls.segments;
        let wall_grid = &env.walls.grid;
        let steering = env.steering;
        let params = *env.params;
        let any_driven = env.any_driven;
        self.velocities.clear();
        self.velocities.resize(agents.len(), Vec2::ZERO);
        if self.record_debug {
            self.debug.resize_with(agents.len(), SteerDebug::default);
        } else {
            self.debug.clear();
        }
        let steer_with_scratch =
            |s: &mut SteerScratch, i: usize, memory: Memory<'_>, debug: Option<&mut SteerDebug>| {
                let a = &agents[i];
                let (reach, last) = memory;
                if let Some(v) = any_driven.then_some(a.driven).flatten() {
                    // Not steered: it goes exactly as it is driven (and knows no
                    // neighbours this step).
                    *reach = 0.0;
                    if let Some(first) = last.first_mut() {
                        *first = u32::MAX;
                    }
                    return v;
                }
                let hint = neighbor_hint(a.position, *reach + margin, last, seen.as_neighbors);
                *reach = gather_neighbors(
                    i,
                    a,
                    (hint, last),
                    (seen, obstacles, grid),
                    &params,
                    &mut s.neighbors,
                );
                let reach = params.wall_dist + a.radius;
                s.walls.clear();
                if !walls.is_empty() {
                    wall_grid.walls_near(a.position, reach, &mut s.wall_ids);
                    s.walls.extend(
                        s.wall_ids
                            .iter()
                            .map(|&w| walls[w as usize])
                            .filter(|w| w.distance_squared(a.position) <= reach * reach),
                    );
                }
                let ctx = SteerContext {
                    agent: SteerAgent {
                        position: a.position,
                        velocity: a.velocity,
                        radius: a.radius,
                        max_speed: a.max_speed,
                        preferred_velocity: a.preferred_velocity,
                        target: a.next_waypoint().unwrap_or(a.position),
                    },
                    neighbors: &s.neighbors.sorted,
                    walls: &s.walls,
                    dt,
                    // The door the agent walks up to or through, if its next waypoint
                    // lies on a portal's corner.
                    opening: a
                        .next_waypoint()
                        .and_then(|w| portal::portal_at(&a.portals, w, a.radius))
                        .map(portal::Portal::steer_opening),
                };
                clamp_speed(steering.steer(&ctx, debug), a.max_speed)
            };
        let steer_one = |i: usize, memory: Memory<'_>, debug: Option<&mut SteerDebug>| {
            with_steer_scratch(|s| steer_with_scratch(s, i, memory, debug))
        };
        let memories = memory
            .reach
            .par_iter_mut()
            .zip(memory.last.par_chunks_mut(slots));
        if self.record_debug {
            self.velocities
                .par_iter_mut()
                .zip(memories)
                .zip(self.debug.par_iter_mut())
                .enumerate()
                .for_each(|(i, ((out, memory), debug))| {
                    debug.vectors.clear();
                    *out = steer_one(i, memory, Some(debug));
                });
        } else {
            self.velocities
                .par_iter_mut()
                .zip(memories)
                .enumerate()
                .for_each(|(i, (out, memory))| {
                    *out = steer_one(i, memory, None);
                });
        }
    }
}
