//! Phase *neighbours*: who each agent sees when it steers, found in the point grid,
//! nearest first, with what it remembers of the last step's search.

use super::agent::{Agent, Goal, MovingObstacle};
use super::params::WorldParams;
use crate::grid::{key_distance_squared, key_of, PointGrid};
use crate::steer::{Neighbor, NeighborKind};
use glam::Vec2;

/// What else of an agent its neighbours may need when they steer, beside its
/// [`Neighbor`] record: a compact copy (read for ten neighbours of every agent, so it
/// pays to keep it small and in one array).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    preferred_velocity: Vec2,
    pub radius: f32,
    /// Right of way: 2 for an agent on its way that never arrived, and (in a crowd
    /// steered by a reciprocal method) 2 + k for one carried back for k ×
    /// [`CARRIED_TIME`](super::CARRIED_TIME) (see [`Agent::carried_for`]); 1 for one
    /// that has arrived once (and not been given a new goal since) and walks back, 0
    /// for one resting at its goal, or (in a crowd steered by a reciprocal method) near
    /// its goal while someone else stands on it ([`Agent::place_taken`]). An agent
    /// gives way to every neighbour of higher rank (of its own priority).
    pub rank: u8,
    /// Its priority ([`Agent::priority`]): an agent of a lower priority yields to it
    /// entirely.
    pub priority: u8,
    /// Where it walks to in the end: its goal point (the nearest point it can reach, if
    /// its goal is out of reach); NaN for a chaser, whose goal moves.
    destination: Vec2,
}

impl Seen {
    /// Agent `a`'s record; `reciprocal`: whether the crowd steers by a reciprocal
    /// method ([`Steering::reciprocal`](crate::steer::Steering::reciprocal)), which
    /// gives agents carried back right of way.
    pub fn of(a: &Agent, reciprocal: bool) -> Seen {
        Seen {
            preferred_velocity: a.preferred_velocity,
            radius: a.radius,
            rank: right_of_way(a, reciprocal),
            priority: a.priority,
            destination: destination(a),
        }
    }
}

/// [`Seen::destination`] of agent `a`.
fn destination(a: &Agent) -> Vec2 {
    match a.goal {
        Goal::Point(p) => a.reachable_goal.unwrap_or(p),
        Goal::Agent(_) | Goal::Obstacle(_) => Vec2::NAN,
    }
}

/// Whether two destinations are the same point (NaN, no destination, never is).
fn same_destination(a: Vec2, b: Vec2) -> bool {
    a.distance_squared(b) <= SAME_DESTINATION * SAME_DESTINATION
}

/// How near two agents' destinations lie for them to walk to the same one, metres: the
/// same point, up to rounding (people dealt places of their own walk to different
/// ones).
const SAME_DESTINATION: f32 = 1e-3;

/// [`Seen::rank`] of an agent.
fn right_of_way(a: &Agent, reciprocal: bool) -> u8 {
    if a.is_arrived() || (reciprocal && a.place_taken) {
        0
    } else if a.arrived_at.is_some() {
        1
    } else if reciprocal && a.carried_for >= super::CARRIED_TIME {
        // One more for every further `CARRIED_TIME` carried: of two carried together,
        // the one carried longer goes first.
        let times = (a.carried_for / super::CARRIED_TIME).min(f32::from(u8::MAX - 2));
        2 + times as u8
    } else {
        2
    }
}

/// The whole crowd as the steering phase sees it this step.
#[derive(Clone, Copy)]
pub(super) struct SeenCrowd<'a> {
    /// Every agent's record, in agent order.
    pub all: &'a [Seen],
    /// Every agent as a neighbour with its current velocity, in agent order.
    pub as_neighbors: &'a [Neighbor],
    /// Whether every agent has the same rank (then none is seen with its preferred
    /// velocity).
    pub one_rank: bool,
}

/// What every agent's neighbour search remembers from one step to the next; it only
/// speeds the searches up, never changes their answers.
#[derive(Debug, Default)]
pub(super) struct NeighborMemory {
    /// Per agent, how far its furthest neighbour was at the last step (the next search
    /// starts there).
    pub reach: Vec<f32>,
    /// Per agent, [`NeighborMemory::slots`] entries: the agents that were its nearest
    /// `max_neighbors` when it last steered, or `u32::MAX` first when it had fewer (or
    /// none is known yet). Where they are at the next step bounds how far its nearest
    /// lie then: a tighter hint for that search than `reach` plus how far anyone moved.
    /// Within the step, they may hold its collision candidates
    /// ([`nearest_cover`](super::contacts::nearest_cover)).
    pub last: Vec<u32>,
    /// How far the furthest agent moved in the last step's integration, metres.
    pub moved: f32,
}

impl NeighborMemory {
    /// Entries per agent in [`NeighborMemory::last`]: `max_neighbors`, at least one.
    pub fn slots(params: &WorldParams) -> usize {
        params.max_neighbors.max(1)
    }

    /// Sized for `n` agents (new agents know nothing yet).
    pub fn resize(&mut self, n: usize, slots: usize) {
        self.reach.resize(n, 0.0);
        self.last.resize(n * slots, u32::MAX);
    }

    /// Forgets agent `i`, which left the crowd: the later agents' memories move down
    /// one place, and every memory of which agents were nearest is dropped (their
    /// places changed).
    pub fn remove(&mut self, i: usize, slots: usize) {
        if i < self.reach.len() {
            self.reach.remove(i);
        }
        if (i + 1) * slots <= self.last.len() {
            self.last.drain(i * slots..(i + 1) * slots);
        }
        for near in self.last.chunks_mut(slots) {
            near[0] = u32::MAX;
        }
    }
}

/// What an agent's neighbour search remembers from the last step: how far its
/// furthest neighbour lay, and which agents its neighbours were (see
/// [`NeighborMemory`]).
pub(super) type Memory<'m> = (&'m mut f32, &'m mut [u32]);

/// A search's scratch, its answer in `sorted`.
#[derive(Debug, Default)]
pub(super) struct NeighborScratch {
    /// The neighbour search's scratch, its answer at the front: the neighbours'
    /// search keys (squared distance and index, see [`PointGrid::nearest_hinted`]),
    /// nearest first.
    keys: Vec<u64>,
    /// The neighbours found, nearest first.
    pub sorted: Vec<Neighbor>,
}

/// The hint for the neighbour search of an agent at `p` (see
/// [`PointGrid::nearest_hinted`]): when `last` names its nearest agents of the last
/// step, how far the furthest of them lies now (a little more, for rounding), within
/// which its nearest certainly lie; else `fallback`. `crowd` holds every agent. Only
/// the time of the search depends on the hint, never its answer.
pub(super) fn neighbor_hint(p: Vec2, fallback: f32, last: &[u32], crowd: &[Neighbor]) -> f32 {
    if last.first().is_none_or(|&j| j == u32::MAX) {
        return fallback;
    }
    // The largest squared distance by its bits (squares are never negative, so their
    // bits order as they do): an integer maximum, without a branch. A NaN comes out on
    // top, and makes a NaN hint, which the search ignores.
    let mut furthest = 0u32;
    for &j in last {
        let Some(b) = crowd.get(j as usize) else {
            return fallback;
        };
        furthest = furthest.max(p.distance_squared(b.position).to_bits());
    }
    f32::from_bits(furthest).sqrt() * (1.0 + 1e-4)
}

/// Fills `s.sorted` with agent `i`'s nearest `max_neighbors` agents within
/// `neighbor_dist`, then every moving obstacle in range, nearest first; the search
/// starts with every agent within `hint` (see [`PointGrid::nearest_hinted`]), and
/// `last` receives the agents found when they are `max_neighbors` (else `u32::MAX`
/// first). Returns how far the furthest of those agents lies (the range when fewer
/// were found).
pub(super) fn gather_neighbors(
    i: usize,
    a: &Agent,
    (hint, last): (f32, &mut [u32]),
    (seen, obstacles, grid): (SeenCrowd<'_>, &[MovingObstacle], &PointGrid),
    params: &WorldParams,
    s: &mut NeighborScratch,
) -> f32 {
    let range = params.neighbor_dist;
    // Keys (squared distance, index) sorted; obstacles are indexed `u32::MAX - j`.
    let k = params.max_neighbors;
    let found = grid.nearest_keys(a.position, range, k, Some(i as u32), hint, &mut s.keys);
    if found.len() == k && last.len() == k {
        for (slot, &key) in last.iter_mut().zip(found) {
            *slot = key as u32;
        }
    } else if let Some(first) = last.first_mut() {
        *first = u32::MAX;
    }
    let reach = match found.last() {
        Some(&key) if found.len() == k => key_distance_squared(key).sqrt(),
        _ => range,
    };
    s.sorted.clear();
    if obstacles.is_empty() && seen.one_rank {
        // Agents only, each seen as it is: whole records copied. (The grid holds
        // exactly the agents, so every index names one.)
        let all = seen.as_neighbors;
        s.sorted
            .extend(found.iter().map(|&key| all[key as u32 as usize]));
        return reach;
    }
    let found = found.len();
    s.keys.truncate(found);
    for (j, o) in obstacles.iter().enumerate() {
        let d2 = a.position.distance_squared(o.position);
        let reach = range + o.radius;
        // (A NaN fails the test; a squared distance is never negative.)
        if d2 <= reach * reach {
            let key = key_of(d2, u32::MAX - j as u32);
            let at = s.keys.partition_point(|e| *e < key);
            s.keys.insert(at, key);
        }
    }
    // An agent resting at its goal yields to one on its way (or on its way back): it
    // sees the passer-by moving as it wants to, not as it is blocked, and makes way;
    // pushed off its goal, it walks back, still yielding to agents on their way.
    // (A passer-by that never arrived has right of way over every agent that has,
    // resting or walking back; one walking back over those resting.)
    // An agent of a higher priority is yielded to entirely: seen as a body that will not
    // cooperate, walking as it wants to.
    let (rank, priority) = (seen.all.get(i).map_or(0, |me| me.rank), a.priority);
    let mine = seen.all.get(i).map_or(Vec2::NAN, |me| me.destination);
    s.sorted.reserve(s.keys.len());
    for &key in &s.keys {
        let j = key as u32;
        let neighbor = match (seen.as_neighbors.get(j as usize), seen.all.get(j as usize)) {
            (Some(&n), Some(b)) if b.priority > priority => Neighbor {
                velocity: b.preferred_velocity,
                kind: NeighborKind::Obstacle,
                ..n
            },
            (Some(&n), Some(b)) => Neighbor {
                velocity: if b.rank > rank && b.priority == priority {
                    b.preferred_velocity
                } else {
                    n.velocity
                },
                same_destination: same_destination(mine, b.destination),
                ..n
            },
            _ => {
                let Some(o) = obstacles.get((u32::MAX - j) as usize) else {
                    continue;
                };
                Neighbor {
                    position: o.position,
                    velocity: o.velocity,
                    radius: o.radius,
                    preferred_velocity: o.velocity,
                    kind: NeighborKind::Obstacle,
                    same_destination: false,
                }
            }
        };
        s.sorted.push(neighbor);
    }
    reach
}
