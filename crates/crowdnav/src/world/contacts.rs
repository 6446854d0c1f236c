//! Phase *contacts*: collision response among the agents (moved by the integration)
//! and the moving obstacles, and against the walls; candidates from the point grid
//! or, when they cover them, from each agent's nearest neighbours of this step.

use super::agent::{Agent, MovingObstacle};
use super::index::{PointIndex, Walls};
use super::neighbors::NeighborMemory;
use super::params::{Metrics, COLLISION_DEPTH};
use crate::collide::{Body, CollideParams, Collider, CollisionEvent, Resolver};
use rayon::prelude::*;

/// Most passes of collision response per call of [`Contacts::resolve`]: the first
/// nearly always suffices; more follow bodies that depenetration pushed further than
/// the candidates' margin (agents started on top of each other).
const RESOLVE_PASSES: usize = 8;

/// One agent's collision candidates, kept from step to step so that their buffers are
/// reused: the other bodies (higher-indexed agents, then obstacles) and the walls.
#[derive(Clone, Debug, Default)]
pub(super) struct Candidates {
    pub bodies: Vec<u32>,
    walls: Vec<u32>,
}

/// The phase's state and scratch, kept from step to step.
#[derive(Debug)]
pub(super) struct Contacts {
    resolver: Resolver,
    /// The bodies: the agents in agent order, then the moving obstacles (immovable).
    pub bodies: Vec<Body>,
    /// Candidate pairs of bodies, in order.
    pub pairs: Vec<(u32, u32)>,
    /// Candidate pairs of a body and a wall, in order.
    wall_pairs: Vec<(u32, u32)>,
    /// The collision events of the step.
    pub events: Vec<CollisionEvent>,
    /// The step's collisions that count (deeper than [`COLLISION_DEPTH`], with an
    /// impulse): body and what it met.
    pub counted: Vec<(u32, Collider)>,
    /// Per agent, its candidates (the measures may read them, see
    /// [`Resolved::covers_measure`]).
    pub candidates: Vec<Candidates>,
    /// Scratch of [`concat_in_order`].
    concat_offsets: Vec<usize>,
}

/// What the phase reads besides the agents.
pub(super) struct Surroundings<'a> {
    pub obstacles: &'a [MovingObstacle],
    /// The point grid, which holds the agents' positions of the start of the step.
    pub index: &'a PointIndex,
    pub walls: &'a Walls,
    /// The neighbours each agent found when it steered this step.
    pub memory: &'a NeighborMemory,
    /// Entries per agent in `memory.last`.
    pub slots: usize,
    /// The smallest and largest agent radius.
    pub radii: (f32, f32),
    pub collide: CollideParams,
}

/// What a collision response did.
#[derive(Clone, Copy, Debug)]
pub(super) struct Resolved {
    /// How far depenetration moved anyone, metres.
    pub pushed: f32,
    /// Whether the last pass settled every overlap (within the resolver's sweeps).
    pub settled: bool,
    /// Whether the candidates hold, for every agent, every higher-indexed agent that
    /// the measures look at (the last pass moved nobody far enough to bring in
    /// another).
    pub covers_measure: bool,
}

impl Contacts {
    /// No bodies yet; the resolver tuned by `params`.
    pub fn new(params: CollideParams) -> Contacts {
        Contacts {
            resolver: Resolver::new(params),
            bodies: Vec::new(),
            pairs: Vec::new(),
            wall_pairs: Vec::new(),
            events: Vec::new(),
            counted: Vec::new(),
            candidates: Vec::new(),
            concat_offsets: Vec::new(),
        }
    }

    /// Forgets agent `i`, which left the crowd: the step's events with it are dropped
    /// and the later bodies' numbers move down one.
    pub fn remove(&mut self, i: usize) {
        let i = i as u32;
        self.events
            .retain(|e| e.body != i && e.other != Collider::Body(i));
        for e in &mut self.events {
            e.body -= u32::from(e.body > i);
            if let Collider::Body(j) = &mut e.other {
                *j -= u32::from(*j > i);
            }
        }
    }

    /// The phase: collision response, when `collisions` is on, among the agents (made
    /// bodies by the integration) and the moving obstacles. The grid holds the agents'
    /// positions from before they moved, at most `moved` metres away. Clears the
    /// step's events first.
    pub fn collide(
        &mut self,
        agents: &mut [Agent],
        env: &Surroundings<'_>,
        metrics: &mut Metrics,
        moved: f32,
        collisions: bool,
    ) -> Resolved {
        self.events.clear();
        self.counted.clear();
        if !collisions {
            return Resolved {
                pushed: 0.0,
                settled: true,
                covers_measure: false,
            };
        }
        self.bodies.truncate(agents.len());
        self.bodies.extend(
            env.obstacles
                .iter()
                .map(|o| Body::immovable(o.position, o.velocity, o.radius)),
        );
        self.resolve(agents, env, metrics, moved)
    }

    /// Collision response among the bodies as they are now (the grid holds positions
    /// at most `widen` metres from the bodies' now): one pass, and more while
    /// depenetration moved someone further than the candidates' margin covers (half
    /// the smallest radius), since a pair it pushed together may have been no
    /// candidate; at most [`RESOLVE_PASSES`], and none after a pass that could not
    /// settle its overlaps.
    pub fn resolve(
        &mut self,
        agents: &mut [Agent],
        env: &Surroundings<'_>,
        metrics: &mut Metrics,
        mut widen: f32,
    ) -> Resolved {
        let mut total = Resolved {
            pushed: 0.0,
            settled: true,
            covers_measure: false,
        };
        for _ in 0..RESOLVE_PASSES {
            let pass = self.resolve_pass(agents, env, metrics, widen);
            total.pushed += pass.pushed;
            widen += pass.pushed;
            total.settled = pass.settled;
            total.covers_measure = pass.covers_measure;
            // A pass that could not settle its overlaps within the resolver's sweeps
            // (bodies far too big for the room) would not settle them in another one.
            if 2.0 * pass.pushed <= env.radii.0 || !pass.settled {
                break;
            }
        }
        total
    }

    /// One pass of collision response among the bodies as they are now: candidates
    /// (the grid holds positions at most `widen` metres from the bodies' now),
    /// impulses and depenetration, the results copied back to the agents, and the
    /// events appended to `self.events` and counted.
    fn resolve_pass(
        &mut self,
        agents: &mut [Agent],
        env: &Surroundings<'_>,
        metrics: &mut Metrics,
        widen: f32,
    ) -> Resolved {
        let first_event = self.events.len();
        let (min_r, max_r) = env.radii;
        self.find_candidates(agents.len(), env, max_r, widen);
        self.resolver.set_params(env.collide);
        let summary = self.resolver.resolve(
            &mut self.bodies,
            &self.pairs,
            &env.walls.segments,
            &self.wall_pairs,
            &mut self.events,
        );
        // How far depenetration moved anyone: a pair that ends within `radius + max_r`
        // of each other started it within `radius + max_r + 2 pushed`, which the
        // candidates cover while `2 pushed` is within the smaller radius.
        // Agents without a candidate were left as they were: their records are not
        // touched (a pass over every agent's record costs memory bandwidth at scale).
        let resolver = &self.resolver;
        let pushed = agents
            .par_iter_mut()
            .zip(self.bodies.par_iter())
            .enumerate()
            .map(|(i, (a, b))| {
                if !resolver.constrained(i) {
                    return 0.0;
                }
                let d = a.position.distance(b.position);
                a.travelled += f64::from(d);
                a.position = b.position;
                a.velocity = b.velocity;
                d
            })
            .reduce(|| 0.0f32, f32::max);
        for e in &self.events[first_event..] {
            let radius = self.bodies[e.body as usize].radius;
            let smaller = match e.other {
                Collider::Body(j) => radius.min(self.bodies[j as usize].radius),
                Collider::Wall(_) => radius,
            };
            if e.impulse <= 0.0 || e.depth <= COLLISION_DEPTH * smaller {
                continue;
            }
            self.counted.push((e.body, e.other));
            match e.other {
                Collider::Body(j) => {
                    metrics.collisions += 1;
                    agents[e.body as usize].collided = true;
                    if let Some(b) = agents.get_mut(j as usize) {
                        b.collided = true;
                    }
                }
                Collider::Wall(_) => metrics.wall_contacts += 1,
            }
        }
        Resolved {
            pushed,
            settled: summary.converged,
            covers_measure: 2.0 * pushed <= min_r,
        }
    }

    /// The collision candidates at the bodies' positions: pairs of agents (or of an
    /// agent and a moving obstacle) no further apart than touching plus `max_r`, and
    /// the walls within `max_r` of touching, into `self.pairs` and `self.wall_pairs`.
    /// The grid holds positions at most `widen` metres from the bodies' now.
    ///
    /// An agent whose nearest agents, found when it steered this step, reach further
    /// than any candidate could have been then takes its candidates among them, without
    /// searching the grid (see [`nearest_cover`]).
    pub(super) fn find_candidates(
        &mut self,
        n: usize,
        env: &Surroundings<'_>,
        max_r: f32,
        widen: f32,
    ) {
        let (bodies, obstacles, grid) = (&self.bodies, env.obstacles, &env.index.grid);
        let (walls, wall_grid) = (&env.walls.segments, &env.walls.grid);
        let slots = env.slots;
        let (reaches, nearest) = (&env.memory.reach, &env.memory.last);
        let steered = reaches.len() == n && nearest.len() == n * slots;
        self.candidates.resize_with(n, Candidates::default);
        self.candidates
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, c)| {
                let a = &bodies[i];
                c.bodies.clear();
                let near = match nearest.get(i * slots..(i + 1) * slots) {
                    Some(near) if steered && nearest_cover(a, max_r, widen, reaches[i], near) => {
                        near
                    }
                    _ => &[],
                };
                if !near.is_empty() {
                    for near in near.chunks(COVER_CHUNK) {
                        // Branch-free: every one is written, the kept ones stay.
                        let mut kept = [0u32; COVER_CHUNK];
                        let mut len = 0;
                        for &j in near {
                            let Some(b) = bodies.get(j as usize) else {
                                continue;
                            };
                            let reach = a.radius + b.radius + max_r;
                            kept[len] = j;
                            len += usize::from(
                                (j as usize > i)
                                    & (a.position.distance_squared(b.position) <= reach * reach),
                            );
                        }
                        c.bodies.extend_from_slice(&kept[..len]);
                    }
                } else {
                    grid.for_each_within(a.position, a.radius + 2.0 * max_r + widen, |j, _| {
                        if j as usize <= i {
                            return;
                        }
                        let b = &bodies[j as usize];
                        let reach = a.radius + b.radius + max_r;
                        if a.position.distance_squared(b.position) <= reach * reach {
                            c.bodies.push(j);
                        }
                    });
                }
                for (k, o) in obstacles.iter().enumerate() {
                    let reach = a.radius + o.radius + max_r;
                    if a.position.distance_squared(o.position) <= reach * reach {
                        c.bodies.push((n + k) as u32);
                    }
                }
                c.bodies.sort_unstable();
                c.walls.clear();
                if !walls.is_empty() {
                    let reach = a.radius + max_r;
                    wall_grid.walls_near(a.position, reach, &mut c.walls);
                    c.walls.retain(|&w| {
                        walls[w as usize].distance_squared(a.position) <= reach * reach
                    });
                }
            });
        // Concatenated in agent order, in parallel.
        let candidates = &self.candidates;
        concat_in_order(
            candidates,
            |c| &c.bodies,
            &mut self.concat_offsets,
            &mut self.pairs,
        );
        self.wall_pairs.clear();
        if !walls.is_empty() {
            concat_in_order(
                candidates,
                |c| &c.walls,
                &mut self.concat_offsets,
                &mut self.wall_pairs,
            );
        }
    }
}

/// Fills `out` with `(i, x)` for every `x` of `list(&candidates[i])`, in the order of
/// `i` then of the list, in parallel and without allocating once `out` and `offsets`
/// (scratch) have grown.
fn concat_in_order(
    candidates: &[Candidates],
    list: fn(&Candidates) -> &[u32],
    offsets: &mut Vec<usize>,
    out: &mut Vec<(u32, u32)>,
) {
    /// Lists filled by one task.
    const GRAIN: usize = 2048;
    fn fill(
        candidates: &[Candidates],
        first: usize,
        offsets: &[usize],
        list: fn(&Candidates) -> &[u32],
        out: &mut [(u32, u32)],
    ) {
        if candidates.len() <= GRAIN {
            let items = candidates.iter().enumerate().flat_map(|(k, c)| {
                let i = (first + k) as u32;
                list(c).iter().map(move |&x| (i, x))
            });
            for (slot, item) in out.iter_mut().zip(items) {
                *slot = item;
            }
            return;
        }
        let mid = candidates.len() / 2;
        let (lo, hi) = out.split_at_mut(offsets[first + mid] - offsets[first]);
        let (left, right) = candidates.split_at(mid);
        rayon::join(
            || fill(left, first, offsets, list, lo),
            || fill(right, first + mid, offsets, list, hi),
        );
    }
    offsets.clear();
    offsets.push(0);
    let mut total = 0;
    offsets.extend(candidates.iter().map(|c| {
        total += list(c).len();
        total
    }));
    out.clear();
    out.resize(total, (0, 0));
    fill(candidates, 0, offsets, list, out);
}

/// How many of an agent's nearest agents the candidates' shortcut looks at in one
/// branch-free run (any `max_neighbors` is taken in runs of this many).
const COVER_CHUNK: usize = 16;

/// Whether the nearest agents `near` of body `a` (agent indices, found at the grid's
/// positions when it steered, the furthest `reach` metres away; `u32::MAX` first when
/// unknown) hold every agent that may be its collision candidate now: every one
/// within `a.radius + 2 max_r` of `a` now lay within that plus `2 widen` then (both
/// moved at most `widen`), and lies among them when they reach further (less a margin
/// for rounding). Holds for any number of nearest agents (`max_neighbors`).
pub(super) fn nearest_cover(a: &Body, max_r: f32, widen: f32, reach: f32, near: &[u32]) -> bool {
    if near.first().is_none_or(|&j| j == u32::MAX) {
        return false;
    }
    let within = (a.radius + 2.0 * (max_r + widen)) * (1.0 + 1e-3)
        + 1e-5 * (1.0 + a.position.abs().max_element());
    // (A NaN fails the test.)
    reach > within
}
