//! The search: A* over channels of triangles, each node carrying its funnel.

use super::beside::{BesideScratch, Cleared};
use super::funnel::{sweep, Blocked, Funnel, FunnelPoint, Wrap, WrapArena};
use super::{Corner, Endpoint, NoPathReason, Path, PathError, PathPiece};
use crate::geom::{orient2d_value, Circle, Side};
use crate::mesh::{FreeSpan, Location, NavMesh, TriangleId, VertexId};
use glam::{DVec2, Vec2};
use rayon::prelude::*;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One path query, for [`NavMesh::find_paths`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathQuery {
    /// Start point.
    pub start: Vec2,
    /// Goal point.
    pub goal: Vec2,
    /// Agent radius, `>= 0`.
    pub radius: f32,
}

/// A search node: the channel so far ends by entering triangle `links[i].tri` through
/// the edge shared with triangle `from`, with its funnel.
struct Node {
    /// The triangle before (the entry edge is found when the node is expanded: most
    /// nodes never are).
    from: u32,
    /// Taken when the node is expanded (each node is expanded once), unless the node
    /// is `pending`.
    funnel: Option<Funnel>,
    /// The only funnel so far through its last portal (a disc's): kept after
    /// expansion, to be measured if a second one arrives (see [`Span::Pending`]).
    pending: bool,
}

/// A search node's place in the tree of channels, kept apart from the funnels so that
/// channel walks stay in cache.
#[derive(Clone, Copy)]
struct Link {
    tri: u32,
    parent: u32,
    /// Number of ancestors.
    depth: u32,
    /// An ancestor for skew-binary jumps (level ancestor in O(log depth)).
    jump: u32,
    /// The previous node in the same triangle (`NONE_NODE` when none).
    same_tri: u32,
    /// Bloom filter of the triangles of this node's segment of the channel: the
    /// channel is cut into segments of [`SEGMENT`] nodes by depth.
    bloom: u128,
    /// The last node before this node's segment (`NONE_NODE` for the first segment).
    segment_before: u32,
}

/// Nodes of a triangle tested one by one by the loop check before it walks the
/// channel instead.
const MAX_CANDIDATES: usize = 4;

/// Channel segment length for [`Link::bloom`].
const SEGMENT: u32 = 16;

/// The Bloom filter bits of a triangle (two of 128).
fn bloom_bit(tri: u32) -> u128 {
    let h = tri.wrapping_mul(0x9E37_79B1);
    (1u128 << (h >> 25)) | (1u128 << ((h >> 18) & 127))
}

/// Open-list entry, ordered by lower bound (smallest first); on ties complete paths
/// first, then the newest node (depth first among equals: along a straight line to
/// the goal, every node has the same bound).
struct Open {
    f: f64,
    node: u32,
    /// A complete path (an index into `Search::done`, `NONE_NODE` for none): `f` is
    /// its exact length.
    done: u32,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse. Complete paths first on ties.
        other
            .f
            .total_cmp(&self.f)
            .then_with(|| {
                (other.done == NONE_NODE)
                    .cmp(&(self.done == NONE_NODE))
                    .reverse()
            })
            .then_with(|| self.node.cmp(&other.node))
    }
}

const NONE_NODE: u32 = u32::MAX;

/// Which of the search's exact rules are on (all of them for [`NavMesh::find_path`]):
/// tests turn some off to check that they change no answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuning {
    /// Whole-portal dominance.
    pub portal_pruning: bool,
    /// Dominance on the funnel's apex.
    pub apex_pruning: bool,
    /// The corridor index's refusal of queries no corridor joins.
    pub corridor_index: bool,
    /// A disc's search again without dominance when its answer may be wrong (see the
    /// module's documentation).
    pub fallback: bool,
    /// A disc's search going on down a corridor ahead of the open list's best (see
    /// [`CORRIDOR_LEAD`]).
    pub corridor_lead: bool,
    /// The check beside the channel asking the grid of corners before it walks (see
    /// `path::beside`).
    pub beside_grid: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            portal_pruning: true,
            apex_pruning: true,
            corridor_index: true,
            fallback: true,
            corridor_lead: true,
            beside_grid: true,
        }
    }
}

/// How far, in agent radii, a node's bound may exceed the open list's best and the
/// search still go on down its corridor (its only child) instead of switching to the
/// best. A point's bound stays flat along a corridor, so ties keep it going; a disc's
/// rises a little at almost every portal (each portal end shows another point of a
/// corner's circle), so without a lead the search would hop between channels of
/// nearly equal bounds through the open list. Expanding a node before its turn changes
/// no answer: a complete path is still returned only when no open bound is below its
/// length, and every pruning record is a real path whatever the order. The lead trades
/// those hops against expanding nodes a strict order would never reach: 1 radius
/// takes 4 to 6 % off a disc query's instructions on aurora at r = 0.5, 1 and 2; an
/// unbounded one (every corridor followed to its end) adds 21 %.
const CORRIDOR_LEAD: f64 = 1.0;

/// The fallback's search without whole-portal dominance gives up after this many times
/// the nodes of the first search (at least [`KEEP_NODES`]): without that rule a disc's
/// search on a large map can grow until memory runs out.
const RERUN_BUDGET: usize = 16;

/// One run of a search, for [`NavMesh::find_path_with`].
struct Outcome {
    result: Result<Path, PathError>,
    /// Whether the fallback is needed (see the module's documentation).
    suspect: bool,
    /// Nodes made.
    nodes: usize,
    /// Whether it gave up over its budget of nodes (`result` then means nothing).
    over_budget: bool,
}

/// What a search did, for tests and measurements.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SearchStats {
    /// Nodes dropped by whole-portal dominance (over both runs when it re-ran).
    pub portal_pruned: u32,
    /// Whether a complete path was repaired or dropped by the check beside its
    /// channel (in the first run).
    pub repaired: bool,
    /// Whether it ran again without whole-portal dominance.
    pub reran: bool,
    /// Whether that second run gave up over its budget of nodes (the first run's
    /// answer is returned).
    pub over_budget: bool,
    /// Entries taken from the open list (over both runs when it re-ran).
    pub popped: u32,
}

/// Buffers of a search, kept per thread between queries: a query then allocates (and
/// touches fresh pages) only when it outgrows the ones before it.
#[derive(Default)]
struct Scratch {
    nodes: Vec<Node>,
    links: Vec<Link>,
    arena: WrapArena,
    open: BinaryHeap<Open>,
    /// Complete paths waiting in the open list.
    done: Vec<Vec<Wrap>>,
    /// Per complete path (same index as `done`), for a disc: the check it still needs
    /// against corners beside its channel, made when it is popped.
    unchecked: Vec<Option<Check>>,
    /// Best arrivals recorded per corner vertex, for dominance pruning.
    arrivals: Stamped<u32>,
    arrival_lists: ListPool<Arrival>,
    /// Funnels recorded per directed portal (`3 * triangle + exit edge`), for
    /// dominance pruning of whole portals.
    portals: Stamped<u32>,
    portal_lists: ListPool<PortalRecord>,
    /// Per directed portal (same handles as `portal_lists`), for a disc: where its
    /// centre may cross it. Kept with the lists, not in a slot per portal, so that a
    /// node looks up one small slot.
    portal_spans: Vec<Span>,
    /// The newest node per triangle; older ones follow `Node::same_tri`.
    last_in: Stamped<Option<u32>>,
    /// The generation of the search using the buffers, in the stamped slots.
    generation: u32,
    /// The buffers of the check beside the channel, and its channel.
    beside: BesideScratch,
    channel: Vec<u32>,
    /// Crossing segments of portals for the mesh and radius of the last disc search.
    span_memo: SpanMemo,
}

/// The list of id `id` in `lists`, through its handle in `slots` (0: none yet), made
/// on first use in a search. Slots stay small (the per-id arrays are large and touched
/// sparsely); the lists of one search sit together.
fn list_of<'a, X>(
    slots: &mut Stamped<u32>,
    lists: &'a mut ListPool<X>,
    generation: u32,
    id: u32,
) -> &'a mut SmallVec<[X; 2]> {
    let handle = slots.get_mut(generation, id);
    if *handle == 0 {
        *handle = lists.open() as u32 + 1;
    }
    &mut lists[*handle as usize - 1]
}

/// Short lists handed out by handle during one search and kept between searches: a
/// list that outgrew its inline room keeps its heap buffer for the next search that
/// takes it, instead of freeing it and growing a new one.
struct ListPool<X> {
    lists: Vec<SmallVec<[X; 2]>>,
    /// Lists handed out in this search (the first `used`).
    used: usize,
}

impl<X> Default for ListPool<X> {
    fn default() -> Self {
        ListPool {
            lists: Vec::new(),
            used: 0,
        }
    }
}

impl<X> ListPool<X> {
    /// Forgets every list handed out (their buffers stay).
    fn reset(&mut self) {
        self.used = 0;
    }

    /// Hands out an empty list; returns its handle.
    fn open(&mut self) -> usize {
        if let Some(list) = self.lists.get_mut(self.used) {
            list.clear();
        } else {
            self.lists.push(SmallVec::new());
        }
        self.used += 1;
        self.used - 1
    }
}

impl<X> std::ops::Index<usize> for ListPool<X> {
    type Output = SmallVec<[X; 2]>;
    fn index(&self, handle: usize) -> &Self::Output {
        &self.lists[handle]
    }
}

impl<X> std::ops::IndexMut<usize> for ListPool<X> {
    fn index_mut(&mut self, handle: usize) -> &mut Self::Output {
        &mut self.lists[handle]
    }
}

/// Per-id slots (vertices, triangles, directed edges) that read as empty in each new
/// search without being cleared: each slot carries the generation of the search that
/// last wrote it.
struct Stamped<T> {
    slots: Vec<(u32, T)>,
}

impl<T> Default for Stamped<T> {
    fn default() -> Self {
        Stamped { slots: Vec::new() }
    }
}

impl<T: Default> Stamped<T> {
    /// Makes room for `len` ids; with `fresh`, forgets every slot.
    fn prepare(&mut self, len: usize, fresh: bool) {
        if fresh {
            self.slots.clear();
        }
        if self.slots.len() < len {
            self.slots.resize_with(len, || (0, T::default()));
        }
    }

    /// The slot of `id` in the search of generation `generation`.
    fn get_mut(&mut self, generation: u32, id: u32) -> &mut T {
        let slot = &mut self.slots[id as usize];
        if slot.0 != generation {
            *slot = (generation, T::default());
        }
        &mut slot.1
    }

    /// The slot of `id` if written in this search.
    fn get(&self, generation: u32, id: u32) -> Option<&T> {
        self.slots
            .get(id as usize)
            .filter(|slot| slot.0 == generation)
            .map(|slot| &slot.1)
    }
}

/// Searches with more nodes than this hand their buffers back to the allocator.
const KEEP_NODES: usize = 1 << 16;

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl NavMesh {
    /// The shortest path for a disc of radius `radius` from `start` to `goal`: the
    /// disc's centre keeps at least `radius` from every wall, the path is straight
    /// segments and arcs of that radius around corners, and no shorter such path exists.
    ///
    /// # Errors
    /// [`PathError`]: invalid numbers, an endpoint outside the mesh, in an obstacle or
    /// without room for the disc, or [`PathError::NoPath`] with the reason.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///                                  "obstacles": [[[4,0],[6,0],[6,8],[4,8]]]}"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// let path = mesh.find_path(Vec2::new(2.0, 2.0), Vec2::new(8.0, 2.0), 0.0)?;
    /// // Up and over the wall's end at (4, 8) and (6, 8).
    /// let expected = 2.0 * (2f64 * 2.0 + 6.0 * 6.0).sqrt() + 2.0;
    /// assert!((path.length() - expected).abs() < 1e-4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_path(&self, start: Vec2, goal: Vec2, radius: f32) -> Result<Path, PathError> {
        self.find_path_with(start, goal, radius, Tuning::default())
            .0
    }

    /// [`NavMesh::find_path`], with whole-portal dominance on or off, the corridor
    /// index's refusal on or off, and the number of nodes that dominance dropped.
    #[cfg(test)]
    pub(crate) fn find_path_tuned(
        &self,
        start: Vec2,
        goal: Vec2,
        radius: f32,
        portal_pruning: bool,
        corridor_index: bool,
    ) -> (Result<Path, PathError>, u32) {
        let tuning = Tuning {
            portal_pruning,
            corridor_index,
            ..Tuning::default()
        };
        let (result, stats) = self.find_path_with(start, goal, radius, tuning);
        (result, stats.portal_pruned)
    }

    /// [`NavMesh::find_path`] with the rules of `tuning`, and what the search did.
    pub(crate) fn find_path_with(
        &self,
        start: Vec2,
        goal: Vec2,
        radius: f32,
        tuning: Tuning,
    ) -> (Result<Path, PathError>, SearchStats) {
        let mut stats = SearchStats::default();
        let (ts, tg) = match self.endpoints(start, goal, radius) {
            Ok(ends) => ends,
            Err(e) => return (Err(e), stats),
        };
        // No corridor wide enough: the search would find no channel.
        if tuning.corridor_index && ts != tg && !self.corridor_linked(ts, tg, radius) {
            return (Err(PathError::NoPath(self.no_path_reason(ts, tg))), stats);
        }
        let mut once = |portal_pruning: bool, node_budget: usize| {
            SCRATCH.with(|cell| {
                let mut search = Search::new(self, start, goal, radius, cell.take());
                search.portal_pruning = portal_pruning;
                search.apex_pruning = tuning.apex_pruning;
                search.corridor_lead = tuning.corridor_lead;
                search.beside_grid = tuning.beside_grid;
                search.node_budget = node_budget;
                let result = search.run(ts, tg);
                stats.portal_pruned += search.portal_pruned;
                stats.popped += search.popped;
                let length = result.as_ref().map_or(f64::INFINITY, Path::length);
                let suspect =
                    search.repaired && search.least_pruned < length + 1e-7 * (1.0 + length);
                stats.repaired |= search.repaired;
                let outcome = Outcome {
                    result,
                    suspect,
                    nodes: search.scratch.nodes.len(),
                    over_budget: search.over_budget,
                };
                let scratch = search.into_scratch();
                // Keep the buffers for the next query unless one grew unusually large.
                if scratch.nodes.capacity() <= KEEP_NODES {
                    cell.replace(scratch);
                }
                outcome
            })
        };
        let first = once(tuning.portal_pruning, usize::MAX);
        if first.suspect && tuning.portal_pruning && tuning.fallback {
            // A repair beside the channel may have lengthened a path whose funnel
            // length pruned a shorter one (see the module's documentation): the same
            // search again without whole-portal dominance, within a budget of nodes.
            stats.reran = true;
            let budget = RERUN_BUDGET.saturating_mul(first.nodes).max(KEEP_NODES);
            let second = once(false, budget);
            if second.over_budget {
                stats.over_budget = true;
            } else {
                return (second.result, stats);
            }
        }
        (first.result, stats)
    }

    /// The start's and the goal's triangles, after checking the query's numbers.
    fn endpoints(
        &self,
        start: Vec2,
        goal: Vec2,
        radius: f32,
    ) -> Result<(TriangleId, TriangleId), PathError> {
        if !start.is_finite() || !goal.is_finite() {
            return Err(PathError::InvalidQuery("a coordinate is NaN or infinite"));
        }
        if !radius.is_finite() || radius < 0.0 {
            return Err(PathError::InvalidQuery(
                "the radius must be finite and >= 0",
            ));
        }
        let ts = self.endpoint_triangle(start, radius, Endpoint::Start)?;
        let tg = self.endpoint_triangle(goal, radius, Endpoint::Goal)?;
        Ok((ts, tg))
    }

    /// [`NavMesh::find_path`] for many queries in parallel; results in input order.
    pub fn find_paths(&self, queries: &[PathQuery]) -> Vec<Result<Path, PathError>> {
        queries
            .par_iter()
            .map(|q| self.find_path(q.start, q.goal, q.radius))
            .collect()
    }

    fn endpoint_triangle(
        &self,
        p: Vec2,
        radius: f32,
        endpoint: Endpoint,
    ) -> Result<TriangleId, PathError> {
        let t = match self.locate(p) {
            Location::Walkable(t) => t,
            Location::Blocked(_) => return Err(PathError::InObstacle(endpoint)),
            Location::Outside => return Err(PathError::OutsideMesh(endpoint)),
        };
        let clearance = self.clearance_within(p, t, f64::from(radius));
        if clearance < f64::from(radius) {
            return Err(PathError::NoRoom {
                endpoint,
                clearance: clearance as f32,
                radius,
            });
        }
        Ok(t)
    }

    /// The funnel point of vertex `v` for an agent of radius `radius`.
    pub(super) fn funnel_point(&self, v: u32, radius: f32) -> FunnelPoint {
        let r = if self.obstacle_vertex[v as usize] {
            radius
        } else {
            0.0
        };
        FunnelPoint {
            id: v,
            circle: Circle::new(self.vertices[v as usize], r),
        }
    }

    /// Why no path joins triangles `from` and `to`: they are connected (ignoring the
    /// radius) or not.
    fn no_path_reason(&self, from: TriangleId, to: TriangleId) -> NoPathReason {
        if from == to || self.corridor_linked(from, to, 0.0) {
            NoPathReason::TooNarrow
        } else {
            NoPathReason::Disconnected
        }
    }

    /// Is `goal` reachable from `start` at all, ignoring the radius? (The reference
    /// for [`NavMesh::no_path_reason`].)
    #[cfg(test)]
    pub(crate) fn connected(&self, from: TriangleId, to: TriangleId) -> bool {
        let mut seen = vec![false; self.triangles.len()];
        let mut stack = vec![from];
        seen[from.index()] = true;
        while let Some(t) = stack.pop() {
            if t == to {
                return true;
            }
            for e in 0..3 {
                if self.is_wall(t, e) {
                    continue;
                }
                if let Some(nb) = self.neighbor(t, e) {
                    if !seen[nb.index()] {
                        seen[nb.index()] = true;
                        stack.push(nb);
                    }
                }
            }
        }
        false
    }
}

struct Search<'m> {
    mesh: &'m NavMesh,
    start: Vec2,
    goal: Vec2,
    radius: f32,
    /// The buffers, prepared for this search.
    scratch: Scratch,
    /// Whole-portal dominance on (off to test that it changes no answer, and in the
    /// fallback).
    portal_pruning: bool,
    /// Dominance on the funnel's apex on (off likewise).
    apex_pruning: bool,
    /// The lead down corridors on (see [`CORRIDOR_LEAD`]).
    corridor_lead: bool,
    /// The check beside the channel asks the grid of corners first.
    beside_grid: bool,
    /// Entries taken from the open list.
    popped: u32,
    /// Nodes dropped by whole-portal dominance.
    portal_pruned: u32,
    /// Whether a complete path popped was repaired or dropped by the check beside its
    /// channel.
    repaired: bool,
    /// For a disc, the least lower bound (`f`) of a node dropped by dominance
    /// (infinite when none was).
    least_pruned: f64,
    /// The search stops (`over_budget`) when it has made more nodes than this.
    node_budget: usize,
    /// Whether it stopped over its budget.
    over_budget: bool,
}

/// Where a disc's centre may cross a portal, for whole-portal dominance. Worked out
/// when a second funnel reaches the portal (most portals see one): until then the
/// first is kept pending.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Span {
    /// No funnel yet.
    #[default]
    Fresh,
    /// One funnel so far, that of this node.
    Pending(u32),
    /// The free part is not one segment: no whole-portal dominance there.
    Unusable,
    /// The segment from `a` to `b`, taken `slack` inside the free part at each end;
    /// the records are in `Search::portal_lists`.
    Segment { a: Vec2, b: Vec2, slack: f64 },
}

impl Span {
    /// The span of memo entry `ends` (see [`SpanMemo`]), `slack` being its portal's.
    fn from_ends(ends: [f32; 4], slack: f64) -> Span {
        if ends[0].is_nan() {
            Span::Unusable
        } else {
            Span::Segment {
                a: Vec2::new(ends[0], ends[1]),
                b: Vec2::new(ends[2], ends[3]),
                slack,
            }
        }
    }
}

/// A thread's crossing segments (see [`Span`]) of the directed portals of one mesh for
/// one radius, kept between searches: agents come in a few sizes, and a portal's free
/// part depends only on the mesh and the radius. Asking for another mesh or radius
/// forgets every entry at once (each carries the stamp of the pair it was made for).
#[derive(Default)]
struct SpanMemo {
    /// The mesh's id and the radius' bits the entries are for.
    owner: Option<(u64, u32)>,
    /// The stamp of the current owner's entries.
    stamp: u32,
    /// Per directed portal: the stamp it was made for, and its segment's ends (`NaN`
    /// for [`Span::Unusable`]).
    slots: Vec<(u32, [f32; 4])>,
}

impl SpanMemo {
    /// Makes the memo serve mesh `mesh` (with `portals` directed portals) and `radius`.
    fn prepare(&mut self, mesh: u64, portals: usize, radius: f32) {
        let owner = Some((mesh, radius.to_bits()));
        if self.owner != owner {
            self.owner = owner;
            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                // Stamps wrapped: old entries could pass for new ones.
                self.slots.clear();
                self.stamp = 1;
            }
        }
        if self.slots.len() < portals {
            self.slots.resize(portals, (0, [0.0; 4]));
        }
    }

    fn get(&self, key: u32) -> Option<[f32; 4]> {
        self.slots
            .get(key as usize)
            .filter(|slot| slot.0 == self.stamp)
            .map(|slot| slot.1)
    }

    fn put(&mut self, key: u32, span: Span) {
        let ends = match span {
            Span::Segment { a, b, .. } => [a.x, a.y, b.x, b.y],
            _ => [f32::NAN; 4],
        };
        if let Some(slot) = self.slots.get_mut(key as usize) {
            *slot = (self.stamp, ends);
        }
    }
}

/// A funnel that reached a portal: exact path lengths within its channel to the
/// portal's ends, and its apex.
#[derive(Clone, Copy, Debug)]
struct PortalRecord {
    left: f64,
    right: f64,
    apex: DVec2,
    g: f64,
    /// For a disc, the node whose funnel gives `left` and `right` while they are not
    /// measured yet (`NONE_NODE` once they are): most records are never compared
    /// against, so they are measured on first use.
    node: u32,
}

/// The check beside the channel that a disc's complete path still needs (see
/// `path::beside`).
#[derive(Clone, Copy, Debug)]
struct Check {
    /// The node whose channel the path goes through (`NONE_NODE`: the start's
    /// triangle alone).
    node: u32,
    /// For a path found without the channel's last portal: that portal's ends, which
    /// its last leg must still cross between.
    direct: Option<(FunnelPoint, FunnelPoint)>,
}

/// A path prefix reaching corner `side` of a vertex at point `at` with length `g`.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    side: Side,
    at: Vec2,
    g: f64,
}

impl<'m> Search<'m> {
    fn new(mesh: &'m NavMesh, start: Vec2, goal: Vec2, radius: f32, scratch: Scratch) -> Self {
        let mut b = scratch;
        b.generation = b.generation.wrapping_add(1).max(1);
        let fresh = b.generation == 1;
        b.nodes.clear();
        b.links.clear();
        b.arena.clear();
        b.open.clear();
        b.done.clear();
        b.unchecked.clear();
        b.arrivals.prepare(mesh.vertices.len(), fresh);
        b.arrival_lists.reset();
        b.portal_lists.reset();
        b.portals.prepare(3 * mesh.triangles.len(), fresh);
        b.portal_spans.clear();
        b.last_in.prepare(mesh.triangles.len(), fresh);
        if radius > 0.0 {
            b.span_memo
                .prepare(mesh.id, 3 * mesh.triangles.len(), radius);
        }
        Search {
            mesh,
            start,
            goal,
            radius,
            scratch: b,
            portal_pruning: true,
            apex_pruning: true,
            corridor_lead: true,
            beside_grid: true,
            popped: 0,
            portal_pruned: 0,
            repaired: false,
            least_pruned: f64::INFINITY,
            node_budget: usize::MAX,
            over_budget: false,
        }
    }

    fn into_scratch(self) -> Scratch {
        self.scratch
    }

    fn run(&mut self, ts: TriangleId, tg: TriangleId) -> Result<Path, PathError> {
        let funnel = Funnel::new(self.start, &mut self.scratch.arena);
        if ts == tg {
            if let Ok(wraps) = funnel.finish(self.goal, &mut self.scratch.arena) {
                let len = wraps.last().map_or(0.0, |w| w.g);
                let check = Check {
                    node: NONE_NODE,
                    direct: None,
                };
                self.push_done(len, NONE_NODE, wraps, check);
            }
        }
        // Leave the start triangle through every open edge.
        for e in 0..3 {
            if self.mesh.is_wall(ts, e) {
                continue;
            }
            if let Some(child) = self.extend(NONE_NODE, ts, e, &funnel, tg) {
                self.scratch.open.push(child);
            }
        }
        while let Some(open) = self.scratch.open.pop() {
            self.popped += 1;
            if self.scratch.nodes.len() > self.node_budget {
                self.over_budget = true;
                break;
            }
            if open.done != NONE_NODE {
                let wraps = std::mem::take(&mut self.scratch.done[open.done as usize]);
                let Some(check) = self.scratch.unchecked[open.done as usize].take() else {
                    return Ok(self.build_path(&wraps, open.f));
                };
                // A disc's path, at the funnel's length (a lower bound of the checked
                // one): checked now, and back in the open list at its true length
                // (popped at once when the check changed nothing).
                let mut channel = std::mem::take(&mut self.scratch.channel);
                if check.node == NONE_NODE {
                    channel.clear();
                    channel.push(ts.0);
                } else {
                    self.channel(check.node, &mut channel);
                }
                let cleared = self.keep_clear(&channel, check.direct.is_some(), wraps);
                self.scratch.channel = channel;
                let checked = match cleared {
                    Cleared::Clear(wraps) => Some(wraps),
                    Cleared::Repaired(wraps) => {
                        self.repaired = true;
                        // The direct path's last leg was checked before the repair.
                        check
                            .direct
                            .is_none_or(|(l, r)| last_leg_crosses(&wraps, l, r))
                            .then_some(wraps)
                    }
                    Cleared::Dropped => {
                        self.repaired = true;
                        None
                    }
                };
                if let Some(wraps) = checked {
                    let len = wraps.last().map_or(f64::INFINITY, |w| w.g);
                    self.push_open(len, open.node, Some(wraps));
                }
                continue;
            }
            // Along a corridor (one successor that would be popped next anyway, or
            // nearly: see `CORRIDOR_LEAD`), go on expanding without the round trip
            // through the open list.
            let lead = match self.corridor_lead {
                true => CORRIDOR_LEAD * f64::from(self.radius),
                false => 0.0,
            };
            let mut current = Some(open.node);
            while let Some(index) = current.take() {
                let node = &mut self.scratch.nodes[index as usize];
                let from = node.from;
                let Some(funnel) = node.funnel.take() else {
                    continue;
                };
                let t = TriangleId(self.scratch.links[index as usize].tri);
                let Some(entry) = self.mesh.edge_toward(t.0, from) else {
                    continue;
                };
                let mut children: [Option<Open>; 2] = [None, None];
                for exit in 0..3 {
                    if exit != entry && self.mesh.can_cross(t, entry, exit, self.radius) {
                        let child = self.extend(index, t, exit, &funnel, tg);
                        if children[0].is_none() {
                            children[0] = child;
                        } else {
                            children[1] = child;
                        }
                    }
                }
                if self.scratch.nodes[index as usize].pending {
                    // Kept: a portal's first funnel is measured when a second arrives.
                    self.scratch.nodes[index as usize].funnel = Some(funnel);
                }
                match children {
                    [Some(only), None]
                        if self.scratch.open.peek().is_none_or(|top| {
                            only >= *top || (lead > 0.0 && only.f <= top.f + lead)
                        }) =>
                    {
                        current = Some(only.node);
                    }
                    _ => self.scratch.open.extend(children.into_iter().flatten()),
                }
            }
        }
        Err(PathError::NoPath(self.mesh.no_path_reason(ts, tg)))
    }

    /// Crosses edge `exit` of triangle `t` (the end of `parent`'s channel), pushing the
    /// node for the triangle beyond (pushing the complete path too if it holds the
    /// goal); returns the node's open-list entry for the caller to push.
    fn extend(
        &mut self,
        parent: u32,
        t: TriangleId,
        exit: usize,
        funnel: &Funnel,
        tg: TriangleId,
    ) -> Option<Open> {
        let mesh = self.mesh;
        let next = mesh.neighbor(t, exit)?;
        if mesh.pockets.pointless(t.0, next.0, tg.0) {
            return None;
        }
        // A triangle other than the goal's that this agent cannot leave again (its
        // gates are too narrow) is a dead end too.
        if next != tg {
            let back = mesh.edge_toward(next.0, t.0)?;
            let onward = |k: usize| mesh.can_cross(next, back, k, self.radius);
            if !onward((back + 1) % 3) && !onward((back + 2) % 3) {
                return None;
            }
        }
        let ids = mesh.triangles[t.index()];
        // Walking out of a counter-clockwise triangle, the edge's end is on the left.
        let (right, left) = (ids[exit], ids[(exit + 1) % 3]);
        let lp = mesh.funnel_point(left, self.radius);
        let rp = mesh.funnel_point(right, self.radius);
        // The portal itself must be wide enough between two obstacle corners.
        let width = lp.circle.center.distance(rp.circle.center);
        if width < lp.circle.radius + rp.circle.radius {
            return None;
        }
        // The new node's funnel is built in place in the node list; pruned
        // nodes are popped again.
        let index = self.scratch.nodes.len() as u32;
        self.scratch.nodes.push(Node {
            from: t.0,
            funnel: Some(*funnel),
            pending: false,
        });
        let pushed = self.scratch.nodes[index as usize].funnel.as_mut()?;
        if pushed.push_portal(lp, rp, &mut self.scratch.arena).is_err() {
            self.scratch.nodes.pop();
            return None;
        }
        let apex = *pushed.apex();
        let pruned = if self.radius == 0.0 {
            let ends = pushed.end_lengths(lp, rp, &self.scratch.arena);
            self.pruned(apex, ends, t, exit, lp, rp)
        } else if self.dominated(apex) {
            true
        } else if self.disc_pruned(index, apex, t, exit) {
            // Kept for the fallback's test (see the module's documentation): the least
            // bound, so the full bound only when the straight one is below it.
            let straight = apex.g + apex.arrive.as_dvec2().distance(self.goal.as_dvec2());
            if straight < self.least_pruned {
                let f = apex.g + self.heuristic(&apex, lp, rp);
                self.least_pruned = self.least_pruned.min(f);
            }
            true
        } else {
            false
        };
        if pruned || self.in_channel(parent, next.0) {
            if self.radius > 0.0 && !pruned {
                self.settle_record(3 * t.0 + exit as u32, index);
            }
            // The loop check comes last: it walks the channel, and pruning usually
            // decides first. A record left by a channel that loops is still a real path
            // (the funnel's path through the channel's triangles in order), so it
            // prunes soundly.
            self.scratch.nodes.pop();
            return None;
        }
        let f = apex.g + self.heuristic(&apex, lp, rp);
        let (depth, jump) = self.depth_and_jump(parent);
        let same_tri = self
            .scratch
            .last_in
            .get_mut(self.scratch.generation, next.0)
            .replace(index);
        let (bloom, segment_before) = if parent == NONE_NODE || depth % SEGMENT == 0 {
            (bloom_bit(next.0), parent)
        } else {
            let p = &self.scratch.links[parent as usize];
            (p.bloom | bloom_bit(next.0), p.segment_before)
        };
        self.scratch.links.push(Link {
            tri: next.0,
            parent,
            depth,
            jump,
            same_tri: same_tri.unwrap_or(NONE_NODE),
            bloom,
            segment_before,
        });
        if next == tg {
            let through = self.scratch.nodes[index as usize]
                .funnel
                .and_then(|funnel| funnel.finish(self.goal, &mut self.scratch.arena).ok());
            // For a disc, pushing the last portal may make the funnel wrap a corner
            // because the tangent to the portal's far end passes beyond it, while the
            // goal lies short of that tangent point (the path then sweeps nearly a full
            // turn around the corner). The path found without the last portal is then
            // the shorter one, and it is valid when its last leg crosses the portal
            // clear of both ends.
            let direct = if self.radius > 0.0 {
                funnel
                    .finish(self.goal, &mut self.scratch.arena)
                    .ok()
                    .filter(|wraps| last_leg_crosses(wraps, lp, rp))
            } else {
                None
            };
            // The path without the last portal goes to the open list too when it is
            // shorter (it may fail its check beside the channel, the other not): the
            // shorter is popped first.
            let length = |w: &Option<Vec<Wrap>>| {
                w.as_ref()
                    .and_then(|w| w.last())
                    .map_or(f64::INFINITY, |w| w.g)
            };
            let direct = if length(&direct) < length(&through) {
                direct
            } else {
                None
            };
            for (wraps, direct) in [(through, None), (direct, Some((lp, rp)))] {
                if let Some(wraps) = wraps {
                    let len = wraps.last().map_or(f64::INFINITY, |w| w.g);
                    self.push_done(
                        len,
                        index,
                        wraps,
                        Check {
                            node: index,
                            direct,
                        },
                    );
                }
            }
        }
        Some(Open {
            f,
            node: index,
            done: NONE_NODE,
        })
    }

    /// Puts in `out` the triangles of node `index`'s channel, from the start's to the
    /// node's.
    fn channel(&self, index: u32, out: &mut Vec<u32>) {
        out.clear();
        out.push(self.scratch.links[index as usize].tri);
        let mut n = index;
        while n != NONE_NODE {
            out.push(self.scratch.nodes[n as usize].from);
            n = self.scratch.links[n as usize].parent;
        }
        out.reverse();
    }

    /// A complete path `wraps` through `channel` (its last portal left out when
    /// `skip_last`), kept clear of the corners beside the channel (see
    /// `path::beside`); `None` when it cannot be.
    fn keep_clear(&mut self, channel: &[u32], skip_last: bool, wraps: Vec<Wrap>) -> Cleared {
        let query = super::beside::ChannelQuery {
            grid_first: self.beside_grid,
            mesh: self.mesh,
            channel,
            start: self.start,
            goal: self.goal,
            radius: self.radius,
            skip_last,
        };
        super::beside::keep_clear(
            &query,
            wraps,
            &mut self.scratch.arena,
            &mut self.scratch.beside,
        )
    }

    /// Dominance pruning of a new node whose funnel has apex `apex` and, for a point
    /// agent, path lengths `ends` to the ends of portal `exit` of `t`.
    fn pruned(
        &mut self,
        apex: Wrap,
        ends: Option<(f64, f64)>,
        t: TriangleId,
        exit: usize,
        lp: FunnelPoint,
        rp: FunnelPoint,
    ) -> bool {
        if self.dominated(apex) {
            return true;
        }
        let Some((dl, dr)) = ends else {
            return false;
        };
        if !self.portal_pruning {
            return false;
        }
        let rec = PortalRecord {
            left: dl,
            right: dr,
            apex: apex.point.circle.center.as_dvec2(),
            g: apex.g,
            node: NONE_NODE,
        };
        let (l, r) = (lp.circle.center.as_dvec2(), rp.circle.center.as_dvec2());
        self.portal_dominated(3 * t.0 + exit as u32, rec, l, r)
    }

    /// Dominance pruning of a new node `index` of a disc (radius > 0) whose funnel
    /// has apex `apex` and last crossed portal `exit` of `t`.
    ///
    /// The apex rule ([`Search::dominated`]) is tested before. The whole-portal rule is the point
    /// agent's ([`Search::portal_dominated`]) on the part of the portal the disc's
    /// centre can cross, when that part is one segment `S` (see [`NavMesh::free_span`]):
    ///
    /// - a channel's funnel gives the shortest path, within the channel, from the start
    ///   to each point of `S`, in the domain `D` = the channel's triangles (glued along
    ///   its portals: a topological disc even when the channel winds) minus the discs of
    ///   the agent's radius around its wall corners. `D` is simply connected (each disc
    ///   removed meets `D`'s boundary), and flat inside, so with its own lengths it is a
    ///   CAT(0) space, where the distance from a point is convex along any geodesic.
    ///   Every point of `S` keeps the radius from every wall, hence from every corner,
    ///   so `S` lies in `D` and is straight: a geodesic. The channel's length to `x` in
    ///   `S` is therefore at most the chord between its values at `S`'s ends, which
    ///   [`Funnel::length_to`] computes (each the length of a real path, as for a goal);
    /// - any path of a new funnel crossing at `x` is at least the apex's length plus
    ///   the straight distance from the apex's arrival point to `x` (every path beyond
    ///   the funnel wraps the apex);
    /// - a disc crosses the portal only at points of `S`'s free part. `S` is that part
    ///   shrunk by `slack` at each end; on the slivers left out both bounds move by at
    ///   most the slivers' length (both are 1-Lipschitz), so a margin of three slacks
    ///   covers them and the rounding of `S`'s ends to `f32`.
    ///
    /// A new funnel whose bound exceeds a recorded chord by the margin on all of `S` is
    /// beaten at every point where a disc can cross: following the recorded channel up
    /// to the crossing and the new one after it is a strictly shorter real path, so no
    /// shortest path goes through the new node. Records that pass are kept.
    fn disc_pruned(&mut self, index: u32, apex: Wrap, t: TriangleId, exit: usize) -> bool {
        if !self.portal_pruning {
            return false;
        }
        let key = 3 * t.0 + exit as u32;
        let handle = self.portal_handle(key);
        let (a, b, slack) = match self.scratch.portal_spans[handle] {
            Span::Fresh => {
                self.scratch.portal_spans[handle] = Span::Pending(index);
                self.scratch.nodes[index as usize].pending = true;
                return false;
            }
            Span::Unusable => return false,
            Span::Segment { a, b, slack } => (a, b, slack),
            Span::Pending(first) => {
                let span = self.span(t, exit);
                self.scratch.portal_spans[handle] = span;
                let Span::Segment { a, b, slack } = span else {
                    if let Some(first) = self.scratch.nodes.get_mut(first as usize) {
                        first.pending = false;
                    }
                    return false;
                };
                // The first funnel stays kept, its record measured when first used.
                let first_apex = self
                    .scratch
                    .nodes
                    .get(first as usize)
                    .and_then(|n| n.funnel.as_ref())
                    .map(|f| *f.apex());
                if let Some(first_apex) = first_apex {
                    self.scratch.portal_lists[handle].push(unmeasured(first, &first_apex));
                }
                (a, b, slack)
            }
        };
        let (a64, b64) = (a.as_dvec2(), b.as_dvec2());
        let new = unmeasured(index, &apex);
        // The margin below without its part that depends on the old record's lengths.
        let least_margin = 1e-7 * (1.0 + apex.g) + 3.0 * slack;
        // The measured records first: pruning by any record is pruning, and one of them
        // may spare measuring the others.
        for old in &self.scratch.portal_lists[handle] {
            if old.node != NONE_NODE {
                continue;
            }
            let margin = 1e-7 * (1.0 + apex.g + old.left.min(old.right)) + 3.0 * slack;
            if min_gap(old, &new, a64, b64) > margin {
                self.portal_pruned += 1;
                return true;
            }
        }
        let mut i = 0;
        while i < self.scratch.portal_lists[handle].len() {
            let old = self.scratch.portal_lists[handle][i];
            if old.node == NONE_NODE {
                i += 1;
                continue;
            }
            // An unmeasured record's lengths to `a` and `b` are at least its apex's
            // length plus the straight distances, so its chord lies above the chord of
            // those: when the new bound exceeds that lower chord by no more than the
            // margin somewhere, it exceeds the record's chord there by no more either,
            // so the record cannot prune the new node, and measuring it can wait.
            let low = PortalRecord {
                left: old.g + old.apex.distance(a64),
                right: old.g + old.apex.distance(b64),
                ..old
            };
            let rounding = 1e-9 * (1.0 + new.g + low.left.max(low.right));
            if min_gap(&low, &new, a64, b64) <= least_margin - rounding {
                i += 1;
                continue;
            }
            let Some(old) = self.measure(old.node, a, b) else {
                // Its funnel cannot reach the segment's ends: no record.
                self.scratch.portal_lists[handle].remove(i);
                continue;
            };
            self.scratch.portal_lists[handle][i] = old;
            let margin = 1e-7 * (1.0 + apex.g + old.left.min(old.right)) + 3.0 * slack;
            if min_gap(&old, &new, a64, b64) > margin {
                self.portal_pruned += 1;
                return true;
            }
            i += 1;
        }
        self.scratch.portal_lists[handle].push(new);
        self.scratch.nodes[index as usize].pending = true;
        false
    }

    /// Measures, before node `index` is dropped, its record still waiting in the list
    /// of directed portal `key` (the list's last), so that the record outlives it.
    fn settle_record(&mut self, key: u32, index: u32) {
        let Some(&handle) = self
            .scratch
            .portals
            .get(self.scratch.generation, key)
            .filter(|&&h| h > 0)
        else {
            return;
        };
        let handle = handle as usize - 1;
        let span = self.scratch.portal_spans[handle];
        if span == Span::Pending(index) {
            self.scratch.portal_spans[handle] = Span::Fresh;
        }
        let Span::Segment { a, b, .. } = span else {
            return;
        };
        if self.scratch.portal_lists[handle]
            .last()
            .is_some_and(|rec| rec.node == index)
        {
            match self.measure(index, a, b) {
                Some(rec) => {
                    if let Some(last) = self.scratch.portal_lists[handle].last_mut() {
                        *last = rec;
                    }
                }
                None => {
                    self.scratch.portal_lists[handle].pop();
                }
            }
        }
    }

    /// The index of directed portal `key`'s records (and, for a disc, span), made on
    /// first use.
    fn portal_handle(&mut self, key: u32) -> usize {
        let handle = self.scratch.portals.get_mut(self.scratch.generation, key);
        if *handle == 0 {
            let opened = self.scratch.portal_lists.open();
            if self.radius > 0.0 {
                // Spans are a disc's only: a point agent's handles have none.
                self.scratch.portal_spans.push(Span::Fresh);
            }
            *handle = opened as u32 + 1;
        }
        *handle as usize - 1
    }

    /// The portal record of node `index` on the crossing segment `a b` of its last
    /// portal: its apex, and its exact lengths to `a` and `b`. The node's funnel need
    /// not be kept for the record after this.
    fn measure(&mut self, index: u32, a: Vec2, b: Vec2) -> Option<PortalRecord> {
        let node = self.scratch.nodes.get_mut(index as usize)?;
        node.pending = false;
        let funnel = node.funnel.as_ref()?;
        let apex = funnel.apex();
        Some(PortalRecord {
            left: funnel.length_to(a, &mut self.scratch.arena).ok()?,
            right: funnel.length_to(b, &mut self.scratch.arena).ok()?,
            apex: apex.arrive.as_dvec2(),
            g: apex.g,
            node: NONE_NODE,
        })
    }

    /// The crossing segment of portal `exit` of `t` ([`span_of`]), from this thread's
    /// memo of the mesh and radius when it holds the portal (see [`SpanMemo`]).
    fn span(&mut self, t: TriangleId, exit: usize) -> Span {
        let key = 3 * t.0 + exit as u32;
        if let Some(ends) = self.scratch.span_memo.get(key) {
            return Span::from_ends(ends, portal_ends(self.mesh, t, exit).2);
        }
        let span = span_of(self.mesh, t, exit, self.radius);
        self.scratch.span_memo.put(key, span);
        span
    }

    fn push_open(&mut self, f: f64, node: u32, done: Option<Vec<Wrap>>) {
        let done = match done {
            Some(wraps) => {
                self.scratch.done.push(wraps);
                self.scratch.unchecked.push(None);
                (self.scratch.done.len() - 1) as u32
            }
            None => NONE_NODE,
        };
        self.scratch.open.push(Open { f, node, done });
    }

    /// Pushes a complete path of length `len`; a disc's with the check it needs.
    fn push_done(&mut self, len: f64, node: u32, wraps: Vec<Wrap>, check: Check) {
        self.push_open(len, node, Some(wraps));
        if self.radius > 0.0 {
            if let Some(slot) = self.scratch.unchecked.last_mut() {
                *slot = Some(check);
            }
        }
    }

    /// Dominance pruning on the funnel's apex (Polyanya's root-level pruning, extended
    /// to discs). Any continuation from a prefix reaching the apex corner can instead
    /// follow a recorded prefix that is shorter: for a point corner directly; for a
    /// disc, rolling around the corner from the recorded arrival to this one, which
    /// stays clear of every wall when the corner is simple, its gap fits the disc, and
    /// the roll is less than half a turn (both arrivals then lie between the two
    /// walls' normals). A prefix on a shortest path is never beaten, so pruning is
    /// exact. Records that pass are kept.
    fn dominated(&mut self, apex: Wrap) -> bool {
        let v = apex.point.id;
        if v == u32::MAX || !self.apex_pruning {
            return false;
        }
        let r = f64::from(apex.point.circle.radius);
        let rolls = r == 0.0 || f64::from(self.mesh.corner_gap[v as usize]) >= 2.0 * r;
        let center = apex.point.circle.center;
        let tolerance = 1e-9 * (1.0 + apex.g);
        let list = list_of(
            &mut self.scratch.arrivals,
            &mut self.scratch.arrival_lists,
            self.scratch.generation,
            v,
        );
        for rec in list.iter() {
            if r == 0.0 {
                if rec.g < apex.g - tolerance {
                    return true;
                }
            } else if rec.side != apex.side || !rolls {
                continue;
            } else if rec.g < apex.g - tolerance
                && rec.g + 0.999_999 * rec.at.as_dvec2().distance(apex.arrive.as_dvec2())
                    < apex.g - tolerance
            {
                // Only a record shorter than the apex by more than the chord between
                // the arrivals (no roll is shorter) can beat it: the roll is measured
                // (an arc tangent) only then. Equal arrivals roll by 0, so the check
                // below sees the same records as when every roll is measured.
                let s = sweep(center, rec.at, apex.arrive, apex.side);
                if s >= std::f64::consts::PI {
                    continue;
                }
                if rec.g + r * s < apex.g - tolerance {
                    return true;
                }
            }
            if rec.side == apex.side && rec.at == apex.arrive && rec.g <= apex.g {
                return false; // Already recorded.
            }
        }
        if r > 0.0 && list.len() == list.capacity() {
            // A disc arrives at a corner at many points: grow by four times, not two.
            list.reserve(3 * list.len());
        }
        list.push(Arrival {
            side: apex.side,
            at: apex.arrive,
            g: apex.g,
        });
        false
    }

    /// Dominance pruning on whole portals, for a point agent. Within one channel the
    /// path length to a point `x` of a portal is a convex function of `x` (geodesic
    /// distance in a simple polygon is convex along segments), so it lies below the
    /// chord between its exact values at the portal's ends; and it is at least the
    /// apex's length plus the straight distance from the apex to `x`. A funnel whose
    /// lower bound exceeds a recorded funnel's chord on the whole portal is beaten at
    /// every point of it: any path through it can be shortened by following the
    /// recorded channel up to the portal, so it is never on a shortest path. Strict
    /// comparison keeps this exact however pruning rules combine. Records that pass are
    /// kept.
    fn portal_dominated(&mut self, key: u32, rec: PortalRecord, l: DVec2, r: DVec2) -> bool {
        let handle = self.portal_handle(key);
        let list = &mut self.scratch.portal_lists[handle];
        let tolerance = 1e-7 * (1.0 + rec.g + rec.left.min(rec.right));
        for old in list.iter() {
            if min_gap(old, &rec, l, r) > tolerance {
                self.portal_pruned += 1;
                return true;
            }
        }
        list.push(rec);
        false
    }

    /// Does the channel ending at `node` already pass through triangle `tri`? Checks
    /// whether any node in `tri` is an ancestor of `node`: the nodes per triangle are
    /// few (pruning keeps them so), and each test is a level-ancestor jump.
    fn in_channel(&self, node: u32, tri: u32) -> bool {
        if node == NONE_NODE {
            return false;
        }
        let mut m = self
            .scratch
            .last_in
            .get(self.scratch.generation, tri)
            .copied()
            .flatten()
            .unwrap_or(NONE_NODE);
        // Few nodes in the triangle: test each for being an ancestor. Many (wide
        // agents can reach a triangle through many funnels): walk the channel by
        // segments instead, looking into those whose filter may hold the triangle.
        for _ in 0..MAX_CANDIDATES {
            if m == NONE_NODE {
                return false;
            }
            let candidate = &self.scratch.links[m as usize];
            if self.ancestor_at(node, candidate.depth) == m {
                return true;
            }
            m = candidate.same_tri;
        }
        if m == NONE_NODE {
            return false;
        }
        let bit = bloom_bit(tri);
        let mut segment = node;
        while segment != NONE_NODE {
            let link = &self.scratch.links[segment as usize];
            if link.bloom & bit == bit {
                let mut n = segment;
                while n != link.segment_before {
                    let l = &self.scratch.links[n as usize];
                    if l.tri == tri {
                        return true;
                    }
                    n = l.parent;
                }
            }
            segment = link.segment_before;
        }
        false
    }

    /// Depth and jump pointer of a new child of `parent`.
    fn depth_and_jump(&self, parent: u32) -> (u32, u32) {
        if parent == NONE_NODE {
            return (0, NONE_NODE);
        }
        let p = &self.scratch.links[parent as usize];
        let jump = if p.jump != NONE_NODE {
            let j = &self.scratch.links[p.jump as usize];
            if j.jump != NONE_NODE
                && p.depth - j.depth == j.depth - self.scratch.links[j.jump as usize].depth
            {
                j.jump
            } else {
                parent
            }
        } else {
            parent
        };
        (p.depth + 1, jump)
    }

    /// The ancestor-or-self of `node` at depth `depth`, `NONE_NODE` when deeper than it.
    fn ancestor_at(&self, mut node: u32, depth: u32) -> u32 {
        loop {
            let n = &self.scratch.links[node as usize];
            if n.depth == depth {
                return node;
            }
            if n.depth < depth {
                return NONE_NODE;
            }
            node = if n.jump != NONE_NODE && self.scratch.links[n.jump as usize].depth >= depth {
                n.jump
            } else {
                n.parent
            };
        }
    }

    /// Admissible estimate of the rest: from the apex's arrival point (on its circle)
    /// through the last portal (shrunk by the corners' radii) to the goal.
    fn heuristic(&self, apex: &Wrap, left: FunnelPoint, right: FunnelPoint) -> f64 {
        let (l, r) = (
            left.circle.center.as_dvec2(),
            right.circle.center.as_dvec2(),
        );
        let len = l.distance(r);
        let (a, b) = if len > 0.0 {
            let u = (r - l) / len;
            let (sl, sr) = (
                f64::from(left.circle.radius),
                f64::from(right.circle.radius),
            );
            (l + u * sl.min(len), r - u * sr.min(len))
        } else {
            (l, r)
        };
        // Every continuation leaves from the arrival point (where the apex's length
        // ends; a point agent's is the corner itself). A disc's lies at the radius from
        // the centre: measured from there, the bound is at least the centre's less the
        // radius, often more.
        via_segment(apex.arrive.as_dvec2(), a, b, self.goal.as_dvec2()).max(0.0)
    }

    fn build_path(&self, wraps: &[Wrap], length: f64) -> Path {
        let mut pieces = Vec::new();
        let mut corners = Vec::new();
        for pair in wraps.windows(2) {
            let (w, next) = (pair[0], pair[1]);
            let leave =
                crate::geom::tangent_between(w.point.circle, w.side, next.point.circle, next.side)
                    .map_or(w.arrive, |t| t.a);
            let r = w.point.circle.radius;
            if r > 0.0 {
                let s = sweep(w.point.circle.center, w.arrive, leave, w.side) as f32;
                if s > 0.0 {
                    pieces.push(PathPiece::Arc {
                        center: w.point.circle.center,
                        radius: r,
                        from: w.arrive,
                        to: leave,
                        sweep: if w.side == Side::Left { s } else { -s },
                    });
                }
            }
            if leave != next.arrive {
                pieces.push(PathPiece::Line {
                    from: leave,
                    to: next.arrive,
                });
            }
            if next.point.id != u32::MAX {
                corners.push(Corner {
                    vertex: VertexId(next.point.id),
                    position: next.point.circle.center,
                    side: next.side,
                });
            }
        }
        Path {
            start: self.start,
            goal: self.goal,
            pieces,
            corners,
            length,
            radius: self.radius,
        }
    }
}

/// The rounding slack of portal `exit` of `t` (a few `f32` ulps of its coordinates),
/// and its ends.
fn portal_ends(mesh: &NavMesh, t: TriangleId, exit: usize) -> (DVec2, DVec2, f64) {
    let ids = mesh.triangles[t.index()];
    let p = mesh.vertices[ids[exit] as usize].as_dvec2();
    let q = mesh.vertices[ids[(exit + 1) % 3] as usize].as_dvec2();
    let slack = 1e-6 * (1.0 + p.abs().max_element().max(q.abs().max_element()));
    (p, q, slack)
}

/// The crossing segment of portal `exit` of `t` for a disc of radius `radius`:
/// [`Span::Segment`] or [`Span::Unusable`].
fn span_of(mesh: &NavMesh, t: TriangleId, exit: usize, radius: f32) -> Span {
    let (p, q, slack) = portal_ends(mesh, t, exit);
    match mesh.free_span(t, exit, f64::from(radius)) {
        FreeSpan::One { lo, hi } if hi - lo > 4.0 * slack => {
            let u = (q - p).normalize_or_zero();
            Span::Segment {
                a: (p + u * (lo + slack)).as_vec2(),
                b: (p + u * (hi - slack)).as_vec2(),
                slack,
            }
        }
        FreeSpan::One { .. } | FreeSpan::Empty | FreeSpan::Several => Span::Unusable,
    }
}

/// The record of node `node`, whose funnel has apex `apex`, before its lengths are
/// measured.
fn unmeasured(node: u32, apex: &Wrap) -> PortalRecord {
    PortalRecord {
        left: f64::NAN,
        right: f64::NAN,
        apex: apex.arrive.as_dvec2(),
        g: apex.g,
        node,
    }
}

/// The least, over points `x = l + t (r - l)` of a portal, of `new`'s lower bound
/// (`g + |apex - x|`) minus `old`'s chord (`old.left + t (old.right - old.left)`).
fn min_gap(old: &PortalRecord, new: &PortalRecord, l: DVec2, r: DVec2) -> f64 {
    let d = r - l;
    let len = d.length();
    let gap =
        |t: f64| new.g + new.apex.distance(l + d * t) - (old.left + t * (old.right - old.left));
    let mut best = gap(0.0).min(gap(1.0));
    if len > 0.0 {
        // The gap is convex in t: its minimum is where the distance's slope equals the
        // chord's, clamped to the portal.
        let slope = (old.right - old.left) / len;
        if slope.abs() < 1.0 {
            let u = d / len;
            let t0 = (new.apex - l).dot(u) / len;
            let h = (new.apex - l).perp_dot(u).abs();
            let t = t0 + h * slope / (1.0 - slope * slope).sqrt() / len;
            best = best.min(gap(t.clamp(0.0, 1.0)));
        }
    }
    best
}

/// Does the last leg of a path (the tangent from its last corner to the goal) cross
/// the portal from `right` to `left` (as seen walking through it) between them,
/// keeping both ends' radii?
fn last_leg_crosses(wraps: &[Wrap], left: FunnelPoint, right: FunnelPoint) -> bool {
    let [.., corner, goal] = wraps else {
        return false;
    };
    let Some(leg) = crate::geom::tangent_between(
        corner.point.circle,
        corner.side,
        goal.point.circle,
        goal.side,
    ) else {
        return false;
    };
    let (p, q) = (leg.a.as_dvec2(), leg.b.as_dvec2());
    let (l, r) = (
        left.circle.center.as_dvec2(),
        right.circle.center.as_dvec2(),
    );
    let clear = |c: FunnelPoint| {
        let d = crate::mesh::distance_to_segment(c.circle.center.as_dvec2(), p, q);
        d >= f64::from(c.circle.radius) * (1.0 - 1e-6)
    };
    // The leg starts on the portal's near side (left of `r -> l`) and ends on its far
    // side or on it, meeting the portal between its ends.
    let side = |x: DVec2| (l - r).perp_dot(x - r);
    let (sp, sq) = (side(p), side(q));
    if sp < 0.0 || sq > 0.0 {
        return false;
    }
    let denom = sp - sq;
    let x = if denom > 0.0 {
        p + (q - p) * (sp / denom)
    } else {
        p
    };
    let t = (x - r).dot(l - r) / (l - r).length_squared().max(f64::MIN_POSITIVE);
    (0.0..=1.0).contains(&t) && clear(left) && clear(right)
}

/// Shortest distance from `c` to `g` through a point of segment `a b`.
fn via_segment(c: DVec2, a: DVec2, b: DVec2, g: DVec2) -> f64 {
    let ab = b - a;
    if ab.length_squared() == 0.0 {
        return c.distance(a) + a.distance(g);
    }
    // Reflect the goal when it is on the same side as `c`.
    let side = |p: DVec2| ab.perp_dot(p - a);
    let (sc, sg) = (side(c), side(g));
    let g2 = if sc * sg > 0.0 {
        let n = ab.perp().normalize();
        g - n * (2.0 * (g - a).dot(n))
    } else {
        g
    };
    // Where the line c → g2 crosses the line a b.
    let d = g2 - c;
    let denom = ab.perp_dot(d);
    if denom != 0.0 {
        let t = (c - a).perp_dot(d) / denom;
        if (0.0..=1.0).contains(&t) {
            return c.distance(g2);
        }
    } else if orient2d_value(a.as_vec2(), b.as_vec2(), c.as_vec2()) == 0.0 {
        // Degenerate: everything on one line.
        return (c.distance(a) + a.distance(g)).min(c.distance(b) + b.distance(g));
    }
    (c.distance(a) + a.distance(g)).min(c.distance(b) + b.distance(g))
}

impl From<Blocked> for PathError {
    fn from(_: Blocked) -> Self {
        PathError::NoPath(NoPathReason::TooNarrow)
    }
}

#[cfg(test)]
mod tests {
    use crate::geom::Segment;
    use crate::mesh::{Location, NavMesh};
    use crate::path::Path;
    use glam::Vec2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A 30 x 30 room crowded with small random squares and slanted quads (overlaps
    /// allowed): many channels of nearly equal length around them, so whole-portal
    /// dominance has much to drop, and the free parts of portals are cut by walls other
    /// than the portals' own corners.
    fn crowded_mesh(rng: &mut ChaCha8Rng) -> NavMesh {
        crate::mesh::test_worlds::quad_room(rng, 40, 1.0..27.0, 0.3..2.5, |rng| {
            if rng.gen_bool(0.5) {
                rng.gen_range(-1.0..1.0f32)
            } else {
                0.0
            }
        })
    }

    fn walkable_point(mesh: &NavMesh, rng: &mut ChaCha8Rng) -> Vec2 {
        loop {
            let p = Vec2::new(rng.gen_range(0.2..29.8), rng.gen_range(0.2..29.8));
            if matches!(mesh.locate(p), Location::Walkable(_)) {
                return p;
            }
        }
    }

    /// The least distance from a wall to sampled points of `path`.
    fn lowest_clearance(walls: &[Segment], path: &Path) -> f32 {
        let mut lowest = f32::INFINITY;
        for piece in path.pieces() {
            for k in 0..=16 {
                let x = piece.point_at(k as f32 / 16.0);
                for w in walls {
                    lowest = lowest.min(w.distance(x));
                }
            }
        }
        lowest
    }

    /// A thread's memo of crossing segments serves only the mesh and radius it was
    /// made for: switching meshes of the same size, or radii, forgets it, and every
    /// span read through it (first computed, then remembered) is the one computed
    /// afresh.
    #[test]
    fn span_memo_answers_as_computed_for_each_mesh_and_radius() {
        use super::{span_of, Scratch, Search};
        use crate::mesh::TriangleId;
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let meshes = [crowded_mesh(&mut rng), crowded_mesh(&mut rng)];
        let mut scratch = Scratch::default();
        let mut segments = 0;
        for (m, radius) in [(0, 0.4), (1, 0.4), (0, 0.4), (0, 0.7), (1, 0.7), (1, 0.4)] {
            let mesh = &meshes[m];
            let mut search = Search::new(mesh, Vec2::ZERO, Vec2::ZERO, radius, scratch);
            for _ in 0..2 {
                for t in 0..mesh.triangles.len() as u32 {
                    for exit in 0..3 {
                        let t = TriangleId(t);
                        let want = span_of(mesh, t, exit, radius);
                        assert_eq!(search.span(t, exit), want, "mesh {m}, r {radius}, {t:?}");
                        segments += usize::from(matches!(want, super::Span::Segment { .. }));
                    }
                }
            }
            scratch = search.into_scratch();
        }
        assert!(segments > 1000, "only {segments} segments");
    }

    /// Asserts that two searches answered alike: both a path, lengths within
    /// `tolerance` relative (0: equal), or the same error. Returns whether both found
    /// a path.
    fn assert_same_answer(
        x: &Result<Path, crate::path::PathError>,
        y: &Result<Path, crate::path::PathError>,
        tolerance: f64,
        query: &str,
    ) -> bool {
        match (x, y) {
            (Ok(x), Ok(y)) => {
                let (x, y) = (x.length(), y.length());
                assert!(
                    (x - y).abs() <= tolerance * (1.0 + y),
                    "{query}: {x} against {y}"
                );
                true
            }
            (x, y) => {
                assert_eq!(x.as_ref().err(), y.as_ref().err(), "{query}");
                false
            }
        }
    }

    /// The world of `random_worlds.rs`'s sliver-corner regression (a corner beside the
    /// channel comes within the radius of the funnel's path).
    const SLIVER_LEVEL: &str = r#"{"boundary":[[0.0,0.0],[1.0,0.0],[1.0,1.0],[0.0,1.0]],"obstacles":[[[0.45273933,0.7],[0.49631867,0.7],[0.49631867,0.7182072],[0.474529,0.7182072],[0.45273933,0.7182072]],[[0.24,0.19773933],[0.3036496,0.256755],[0.3036496,0.257255],[0.24,0.19823933]],[[0.84,0.64658916],[0.95116293,0.6642494],[0.95116293,0.6637494],[0.8955815,0.65491927],[0.84,0.64608914]],[[-0.099999994,0.69],[0.7099957,0.69],[0.7099957,0.685],[0.7099957,0.68],[-0.099999994,0.68],[-0.099999994,0.68]],[[0.34,0.68],[0.40144628,0.743633],[0.40144628,0.744133],[0.40144628,0.744133],[0.34,0.68050003]],[[0.75029904,0.4199863],[0.75945836,0.25943142],[0.71999997,0.2691922]],[[0.5135651,0.9553918],[0.5529093,0.9606709],[0.4921536,0.94]],[[0.22,0.9655487],[0.27221787,0.9655487],[0.27221787,0.9327743],[0.27221787,0.9],[0.22,0.9]]]}"#;

    fn sliver_mesh() -> NavMesh {
        let level = crate::mesh::Level::from_json(SLIVER_LEVEL).expect("valid level");
        NavMesh::from_level(&level).expect("the level builds")
    }

    /// From (0.2164, 0.1654) to (0.7242, 0.9757) at radius 0.02 the shortest path runs
    /// diagonally under the long wall's end and up past its end face, whose three
    /// corners (0.71, 0.68), (0.71, 0.685) and (0.71, 0.69) lie on one vertical line:
    /// 1.02705, the sum of the paths to a point beside the face and from it to the goal.
    ///
    /// Regression: the funnel dropped the middle and top corners from its left chain
    /// as collinear with the next portal's end (0.71, 1.0), then ended at the goal,
    /// which lies short of that end and left of the face: the last leg cut the top
    /// corner's circle, no repair beside the channel could add a corner the funnel kept
    /// dropping, and the path was dropped. Every search answered a detour to the right
    /// instead (1.29795 without whole-portal dominance, 1.30702 with it and without the
    /// fallback). `Funnel::must_wrap` now keeps a disc's corner that lies exactly on the
    /// way to the new end.
    #[test]
    fn a_goal_short_of_a_collinear_wall_end_still_wraps_the_corner_it_needs() {
        use super::Tuning;
        let mesh = sliver_mesh();
        let (a, b, r) = (
            Vec2::new(0.216_379_76, 0.165_400_74),
            Vec2::new(0.724_172_5, 0.975_693_8),
            0.02,
        );
        let via = Vec2::new(0.729_349_9, 0.674_951_55);
        let split = mesh.find_path(a, via, r).expect("a path").length()
            + mesh.find_path(via, b, r).expect("a path").length();
        assert!((split - 1.027_05).abs() < 1e-5, "{split}");
        let walls: Vec<Segment> = mesh.walls().collect();
        for (portal_pruning, fallback) in [(true, true), (true, false), (false, false)] {
            let tuning = Tuning {
                portal_pruning,
                fallback,
                ..Tuning::default()
            };
            let (path, _) = mesh.find_path_with(a, b, r, tuning);
            let path = path.expect("a path");
            assert!(
                path.length() <= split + 1e-9,
                "{tuning:?}: {} beyond the split path's {split}",
                path.length()
            );
            assert!(lowest_clearance(&walls, &path) >= r - 1e-6, "{tuning:?}");
        }
    }

    /// The lead down corridors (`CORRIDOR_LEAD`) changes no answer and takes fewer
    /// entries from the open list: on crowded random worlds, discs of several radii
    /// find the same lengths (and the same failures) with and without it, and pop less
    /// in all.
    #[test]
    fn the_corridor_lead_changes_no_answer_and_pops_less() {
        use super::Tuning;
        let strict = Tuning {
            corridor_lead: false,
            ..Tuning::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let (mut compared, mut popped, mut popped_strict) = (0, 0u64, 0u64);
        for _ in 0..8 {
            let mesh = crowded_mesh(&mut rng);
            for _ in 0..40 {
                let (a, b) = (
                    walkable_point(&mesh, &mut rng),
                    walkable_point(&mesh, &mut rng),
                );
                for radius in [0.1, 0.25, 0.4] {
                    let (lead, stats) = mesh.find_path_with(a, b, radius, Tuning::default());
                    let (plain, strict_stats) = mesh.find_path_with(a, b, radius, strict);
                    let query = format!("{a} -> {b}, r = {radius}, with the lead and without");
                    compared += usize::from(assert_same_answer(&lead, &plain, 1e-9, &query));
                    popped += u64::from(stats.popped);
                    popped_strict += u64::from(strict_stats.popped);
                }
            }
        }
        assert!(compared >= 500, "only {compared} paths compared");
        assert!(
            popped < popped_strict,
            "{popped} entries popped with the lead, {popped_strict} without"
        );
    }

    /// Asking the grid of corners before walking beside the channel changes no answer
    /// (same lengths to the bit, same failures), on the sliver world, where corners
    /// beside channels come within the radius often enough that some paths get
    /// repaired (5 of 20 000 queries), and on crowded random worlds.
    #[test]
    fn the_grid_of_corners_changes_no_check_beside_the_channel() {
        use super::Tuning;
        let walk_only = Tuning {
            beside_grid: false,
            ..Tuning::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        let (mut compared, mut repaired) = (0, 0);
        let sliver = sliver_mesh();
        for _ in 0..20_000 {
            let a = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
            let b = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
            let r = [0.005f32, 0.01, 0.02, 0.03][rng.gen_range(0..4)];
            let (grid, stats) = sliver.find_path_with(a, b, r, Tuning::default());
            let (walk, _) = sliver.find_path_with(a, b, r, walk_only);
            let query = format!("{a} -> {b}, r = {r}, with the grid and without");
            compared += usize::from(assert_same_answer(&grid, &walk, 0.0, &query));
            repaired += usize::from(stats.repaired);
        }
        for _ in 0..6 {
            let mesh = crowded_mesh(&mut rng);
            for _ in 0..40 {
                let (a, b) = (
                    walkable_point(&mesh, &mut rng),
                    walkable_point(&mesh, &mut rng),
                );
                for radius in [0.1, 0.25, 0.4, 0.7] {
                    let (grid, stats) = mesh.find_path_with(a, b, radius, Tuning::default());
                    let (walk, _) = mesh.find_path_with(a, b, radius, walk_only);
                    let query = format!("{a} -> {b}, r = {radius}, with the grid and without");
                    compared += usize::from(assert_same_answer(&grid, &walk, 0.0, &query));
                    repaired += usize::from(stats.repaired);
                }
            }
        }
        assert!(compared >= 10_000, "only {compared} paths compared");
        assert!(repaired >= 2, "only {repaired} searches repaired a path");
    }

    /// With the fallback, whole-portal dominance changes no disc's answer on the sliver
    /// world, where corners beside channels often come within the radius: random
    /// queries find the lengths of the search without it.
    #[test]
    fn with_the_fallback_portal_dominance_changes_no_answer_among_slivers() {
        use super::Tuning;
        let mesh = sliver_mesh();
        let unpruned = Tuning {
            fallback: false,
            portal_pruning: false,
            ..Tuning::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut compared, mut reran) = (0, 0);
        for _ in 0..20_000 {
            let a = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
            let b = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
            let r = [0.005f32, 0.01, 0.02, 0.03][rng.gen_range(0..4)];
            let (fast, stats) = mesh.find_path_with(a, b, r, Tuning::default());
            let (slow, _) = mesh.find_path_with(a, b, r, unpruned);
            let query = format!("{a} -> {b}, r = {r}, with dominance and without");
            compared += u32::from(assert_same_answer(&fast, &slow, 1e-6, &query));
            reran += u32::from(stats.reran);
        }
        assert!(compared >= 10_000, "only {compared} paths compared");
        assert!(reran >= 2, "the fallback ran only {reran} times");
    }

    /// Whole-portal dominance drops nodes and never changes an answer: on crowded
    /// random worlds, for point agents and discs, the search with it finds the same
    /// lengths (and the same failures) as the search without it, and every path keeps
    /// the radius from every wall.
    ///
    /// Regression: on the tenth world a disc of radius 0.7 from (27.79, 1.13) to
    /// (13.53, 7.71) crosses the portal between corners (17.155, 6.633) and
    /// (15.565, 7.863) at a slant. The point funnel's rule moved the apex straight to
    /// the far corner, and the path passed 0.647 from the near one
    /// (`Funnel::obstructs` now makes the path wrap it first).
    #[test]
    fn portal_dominance_changes_no_answer() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xd15c_0a7e);
        let (mut compared, mut dropped_for_discs) = (0, 0u64);
        // Fourteen worlds: the disc heuristic from the apex's arrival point leaves
        // fewer nodes to drop per world than the centre's did.
        for _ in 0..14 {
            let mesh = crowded_mesh(&mut rng);
            let walls: Vec<Segment> = mesh.walls().collect();
            for _ in 0..40 {
                let (a, b) = (
                    walkable_point(&mesh, &mut rng),
                    walkable_point(&mesh, &mut rng),
                );
                for radius in [0.0, 0.1, 0.25, 0.4, 0.7] {
                    let (fast, dropped) = mesh.find_path_tuned(a, b, radius, true, true);
                    let (slow, _) = mesh.find_path_tuned(a, b, radius, false, true);
                    match (&fast, &slow) {
                        (Ok(f), Ok(s)) => {
                            let (cf, cs) =
                                (lowest_clearance(&walls, f), lowest_clearance(&walls, s));
                            assert!(
                                cf >= radius - 1e-4 && cs >= radius - 1e-4,
                                "{a} -> {b}, r = {radius}: the paths come {cf} and {cs} from a wall"
                            );
                            let (f, s) = (f.length(), s.length());
                            assert!(
                                (f - s).abs() <= 1e-6 * (1.0 + s),
                                "{a} -> {b}, r = {radius}: {f} with dominance, {s} without"
                            );
                            compared += 1;
                        }
                        (f, s) => assert_eq!(
                            f.as_ref().err(),
                            s.as_ref().err(),
                            "{a} -> {b}, r = {radius}"
                        ),
                    }
                    if radius > 0.0 {
                        dropped_for_discs += u64::from(dropped);
                    }
                }
            }
        }
        assert!(compared >= 1500, "only {compared} paths compared");
        assert!(
            dropped_for_discs >= 500,
            "dominance dropped only {dropped_for_discs} disc nodes"
        );
    }
}

#[cfg(test)]
mod start_on_a_corner_circle {
    use crate::mesh::{Level, NavMesh};
    use glam::Vec2;

    /// A 20 x 20 room with one block whose corner (10, 10) starts a diagonal wall up
    /// to (11, 11), as a staircase of grid cells ends.
    fn block_mesh() -> NavMesh {
        let level = Level::from_json(
            r#"{"boundary": [[0,0],[20,0],[20,20],[0,20]],
                "obstacles": [[[10,5],[14,5],[14,12],[11,11],[10,10]]]}"#,
        )
        .expect("valid level");
        NavMesh::from_level(&level).expect("the level builds")
    }

    /// A disc of radius 1 starting at (9, 10), exactly its radius left of the corner
    /// (10, 10), leaves upwards along the corner's circle, rolls clockwise around it
    /// and runs straight to (12, 18): √67 + (π - atan2(8, 2) - acos(1/√68)).
    ///
    /// Regression: the funnel took the direction from the start to a corner whose
    /// circle it lies on along the centres' line (1, 0), not along the tangent (0, 1):
    /// it then dropped the corner as inside the boundary towards (11, 11), the path
    /// cut the corner's circle, the check beside the channel added the corner, the
    /// funnel dropped it again, and the channel was dropped. The search answered a
    /// detour round the block (25.867 instead of 8.552; on the aurora map at radius 1,
    /// query 975 answered 431.957 instead of 382.106 and query 1657 672.826 instead of
    /// 632.570).
    #[test]
    fn a_start_on_a_corners_circle_leaves_along_the_circle() {
        let mesh = block_mesh();
        let start = Vec2::new(9.0, 10.0);
        let goal = Vec2::new(12.0, 18.0);
        let expected =
            67f64.sqrt() + (std::f64::consts::PI - 8f64.atan2(2.0) - (1.0 / 68f64.sqrt()).acos());
        let path = mesh.find_path(start, goal, 1.0).expect("a path");
        assert!(
            (path.length() - expected).abs() < 1e-5,
            "{} instead of {expected}",
            path.length()
        );
        // Other goals: the same length as from a start a hair farther from the corner.
        let nudged = Vec2::new(8.999, 10.0);
        for goal in [
            Vec2::new(16.0, 16.0),
            Vec2::new(17.0, 14.0),
            Vec2::new(18.0, 15.5),
            Vec2::new(16.0, 2.5),
            Vec2::new(5.0, 2.0),
        ] {
            let on = mesh.find_path(start, goal, 1.0).expect("a path").length();
            let off = mesh.find_path(nudged, goal, 1.0).expect("a path").length();
            assert!(
                (on - off).abs() <= 1.5e-3,
                "to {goal}: {on} from the circle, {off} from beside it"
            );
        }
    }
}

#[cfg(test)]
mod list_pool {
    use super::ListPool;

    /// A list handed out again after a reset starts empty, whatever the search before
    /// left in it, and keeps the heap buffer it grew.
    #[test]
    fn a_reused_list_starts_empty_and_keeps_its_buffer() {
        let mut pool = ListPool::<u32>::default();
        let first = pool.open();
        pool[first].extend(0..10);
        let grown = pool[first].capacity();
        let second = pool.open();
        pool[second].push(7);
        pool.reset();
        let again = pool.open();
        assert_eq!(again, first);
        assert!(pool[again].is_empty());
        assert_eq!(pool[again].capacity(), grown);
        let next = pool.open();
        assert_eq!(next, second);
        assert!(pool[next].is_empty());
    }
}
