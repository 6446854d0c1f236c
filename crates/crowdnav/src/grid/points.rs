//! A uniform grid over points, rebuilt every step: agents and moving obstacles, a
//! mesh's obstacle corners.
//!
//! A counting sort of the points into the cells of a [`Layout`]: flat arrays, reused
//! from step to step, so that rebuilding allocates nothing once the crowd's size is
//! stable (beyond a few thousand points its parallel running sum allocates a few block
//! totals). Beside each index it keeps a copy of its point (unlike [`super::Cells`],
//! which holds indices only), so that a query scans one contiguous array.

use super::Layout;
use glam::Vec2;
use rayon::prelude::*;

/// A uniform grid over points, rebuilt each step.
///
/// A counting sort of the points into cells; beside each item index sorted by cell it
/// keeps a copy of its point, so that a query scans one contiguous array and never
/// touches the caller's (usually much larger) records.
#[derive(Clone, Debug, Default)]
pub struct PointGrid {
    layout: Layout,
    /// The slots of cell `c` are `starts[c]..starts[c + 1]` (cells row by row).
    starts: Vec<u32>,
    /// Per slot: its point and the point's index (within a cell in [`slot_order`]).
    slots: Vec<Slot>,
    /// Scratch of `rebuild`: per point its cell.
    cell_of: Vec<u32>,
    /// Scratch of `rebuild`: per cell how many points it holds. All zero between
    /// rebuilds (a rebuild clears just the cells it counted), so that a rebuild never
    /// clears the whole array.
    counts: Vec<u32>,
}

/// One item of a [`PointGrid`], where a query reads it.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The point (`points[index]`).
    point: Vec2,
    /// Its index.
    index: u32,
}

/// The order of the slots within a cell: by the point's coordinates (their bits: any
/// fixed order of positions would do), then by index (points at the very same place).
fn slot_order(s: &Slot) -> (u32, u32, u32) {
    (s.point.x.to_bits(), s.point.y.to_bits(), s.index)
}

/// Cells a point grid may lay per point (plus [`MIN_POINT_CELLS`]): beyond it cells
/// grow, so that rebuilding costs time in proportion to the points, not to the box
/// they span (agents scattered over a wide level). Generous, as a thin ring of agents
/// around a wide empty centre still wants small cells.
const CELLS_PER_POINT: usize = 32;

/// Cells a point grid may always lay, however few its points.
const MIN_POINT_CELLS: usize = 1 << 12;

/// Points from which a rebuild runs its per-point passes in parallel.
const PARALLEL_POINTS: usize = 4096;

/// Cells per block of the parallel running sum.
const SUM_BLOCK: usize = 1 << 15;

impl PointGrid {
    /// Rebuilds the grid over `points` with cells of about `cell` metres (larger when
    /// the points are few for the box they span: at most about 32 cells per point).
    pub fn rebuild(&mut self, points: &[Vec2], cell: f32) {
        let n = points.len();
        let parallel = n >= PARALLEL_POINTS;
        let bounds = |(lo, hi): (Vec2, Vec2), (a, b): (Vec2, Vec2)| (lo.min(a), hi.max(b));
        let empty = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        // (Minimum and maximum are exact: the same box on any thread count.)
        let (lo, hi) = if parallel {
            points.par_iter().map(|&p| (p, p)).reduce(|| empty, bounds)
        } else {
            points.iter().map(|&p| (p, p)).fold(empty, bounds)
        };
        // At most about `CELLS_PER_POINT` cells per point.
        let limit = n
            .saturating_mul(CELLS_PER_POINT)
            .saturating_add(MIN_POINT_CELLS);
        let layout = Layout::fit(lo, hi, cell, limit);
        self.layout = layout;
        let cell_of = |&p: &Vec2| layout.index(p) as u32;
        self.cell_of.clear();
        if parallel {
            self.cell_of.par_extend(points.par_iter().map(cell_of));
        } else {
            self.cell_of.extend(points.iter().map(cell_of));
        }
        // Counts per cell, summed up to each cell's end; then every cell is filled
        // back to front from its end, so that `starts[c]` ends at the cell's start,
        // and the cells of more than one point are sorted by position.
        let cells = layout.cols * layout.rows;
        let counts = &mut self.counts;
        // (All zero: growing adds zeros, shrinking drops zeros.)
        counts.resize(cells, 0);
        for &c in &self.cell_of {
            counts[c as usize] += 1;
        }
        // (Every entry is written below: resizing without clearing spares zeroing it.)
        let starts = &mut self.starts;
        starts.resize(cells + 1, 0);
        starts[cells] = n as u32;
        let ends = &mut starts[..cells];
        if parallel && cells > 2 * SUM_BLOCK {
            // Each block's total, the totals summed in order, each block summed from
            // its offset: integers, so the same on any thread count.
            let mut offsets: Vec<u32> = counts
                .par_chunks(SUM_BLOCK)
                .map(|b| b.iter().sum())
                .collect();
            let mut sum = 0;
            for o in &mut offsets {
                let total = *o;
                *o = sum;
                sum += total;
            }
            ends.par_chunks_mut(SUM_BLOCK)
                .zip(counts.par_chunks(SUM_BLOCK))
                .zip(offsets.par_iter())
                .for_each(|((block, counts), &offset)| running_sum(counts, block, offset));
        } else {
            running_sum(counts, ends, 0);
        }
        // (Every slot is written below: resizing without clearing spares zeroing it.)
        self.slots.resize(n, Slot::default());
        for (i, (&c, &p)) in self.cell_of.iter().zip(points).enumerate().rev() {
            let slot = &mut starts[c as usize];
            *slot -= 1;
            self.slots[*slot as usize] = Slot {
                point: p,
                index: i as u32,
            };
        }
        // Within a cell, by position (coordinates' bits, then index: only points at
        // the very same place stay in index order): a slot's number orders the points
        // as their positions do, whatever order the points were given in, which breaks
        // ties of distance in `nearest` (see `slot_order`). Cells are sorted once
        // each, and their counts cleared on the way.
        for &c in &self.cell_of {
            let c = c as usize;
            if counts[c] > 1 {
                let (a, b) = (starts[c] as usize, starts[c + 1] as usize);
                self.slots[a..b].sort_unstable_by_key(slot_order);
            }
            counts[c] = 0;
        }
    }

    /// The slots `a..b` of the points of row `y` in columns `x0..=x1`.
    fn row_slots(&self, y: usize, x0: usize, x1: usize) -> (usize, usize) {
        let row = y * self.layout.cols;
        (
            self.starts[row + x0] as usize,
            self.starts[row + x1 + 1] as usize,
        )
    }

    /// Calls `f(a, b)` with the slots of the cells overlapping the square of
    /// half-width `range` around `p`, one row at a time, rows in order.
    fn for_each_slots_near(&self, p: Vec2, range: f32, mut f: impl FnMut(usize, usize)) {
        if self.slots.is_empty() {
            return;
        }
        let Some((x0, x1, rows)) = self.layout.rows_near(p, range) else {
            return;
        };
        for y in rows {
            let (a, b) = self.row_slots(y, x0, x1);
            f(a, b);
        }
    }

    /// The side of its cells (0 before the first rebuild).
    pub(crate) fn cell(&self) -> f32 {
        self.layout.cell
    }

    /// Calls `f(i, point)` for every item whose point lies in the box from `lo` to `hi`
    /// (edges included) until it returns `true`; returns whether one did.
    pub(crate) fn any_in_box(
        &self,
        lo: Vec2,
        hi: Vec2,
        mut f: impl FnMut(u32, Vec2) -> bool,
    ) -> bool {
        if self.slots.is_empty() || !lo.is_finite() || !hi.is_finite() {
            return false;
        }
        // (Cells are monotone in each coordinate: a point of the box lies in a cell
        // between the corners' cells.)
        let ((x0, y0), (x1, y1)) = (self.layout.coords(lo), self.layout.coords(hi));
        (y0..=y1).any(|y| {
            let (a, b) = self.row_slots(y, x0, x1);
            self.slots[a..b]
                .iter()
                .any(|s| s.point.cmpge(lo).all() && s.point.cmple(hi).all() && f(s.index, s.point))
        })
    }

    /// Calls `f(i)` for every item whose cell overlaps the square of half-width `range`
    /// around `p` (a superset of the items within `range`), cell by cell in row order.
    pub fn for_each_near(&self, p: Vec2, range: f32, mut f: impl FnMut(u32)) {
        self.for_each_slots_near(p, range, |a, b| {
            for s in &self.slots[a..b] {
                f(s.index);
            }
        });
    }

    /// Calls `f(i, d²)` for every item `i` within `range` of `p` (`d²` its squared
    /// distance, at most `range²`), cell by cell in row order, reading the grid's own
    /// copy of the points.
    pub fn for_each_within(&self, p: Vec2, range: f32, mut f: impl FnMut(u32, f32)) {
        let range = if range.is_finite() {
            range.max(0.0)
        } else {
            0.0
        };
        let range_squared = range * range;
        self.for_each_slots_near(p, range, |a, b| {
            for s in &self.slots[a..b] {
                let d2 = p.distance_squared(s.point);
                if d2 <= range_squared {
                    f(s.index, d2);
                }
            }
        });
    }

    /// The `k` items nearest `p` within `range` (squared distance at most `range²`),
    /// other than `skip`, into `out` as `(squared distance, index)` in increasing
    /// order of distance. Points equally far are ordered by position (the same fixed
    /// order whatever order the points were given in; only points at the very same
    /// place fall back to their index), so that which of them make the `k` nearest
    /// depends on where the points are, never on how they are numbered.
    ///
    /// The search visits rings of cells around `p`'s cell, nearest first, and stops
    /// once `k` items are known and the next ring lies further than the `k`-th, or the
    /// rings have passed `range`. `skip`: an item to leave out (the query's own point),
    /// or `None`.
    ///
    /// # Example
    /// ```
    /// use crowdnav::bench_support::PointGrid;
    /// use glam::Vec2;
    /// let points: Vec<Vec2> = (0..100).map(|i| Vec2::new(i as f32, 0.0)).collect();
    /// let mut grid = PointGrid::default();
    /// grid.rebuild(&points, 4.0);
    /// let mut out = Vec::new();
    /// grid.nearest(Vec2::new(50.2, 0.0), 10.0, 3, Some(50), &mut out);
    /// let found: Vec<u32> = out.iter().map(|&(_, i)| i).collect();
    /// assert_eq!(found, [51, 49, 52]);
    /// ```
    pub fn nearest(
        &self,
        p: Vec2,
        range: f32,
        k: usize,
        skip: Option<u32>,
        out: &mut Vec<(f32, u32)>,
    ) {
        self.nearest_hinted(p, range, k, skip, 0.0, out);
    }

    /// [`Self::nearest`] told that the `k`-th item probably lies within `hint` metres
    /// (the last answer for a point that moved little): the search first looks at
    /// every cell within `hint` at once, row by row, taking only items within `hint`;
    /// when fewer than `k` are there, it searches again from scratch, ring by ring. The
    /// answer is the same whatever the hint; only the time differs.
    pub fn nearest_hinted(
        &self,
        p: Vec2,
        range: f32,
        k: usize,
        skip: Option<u32>,
        hint: f32,
        out: &mut Vec<(f32, u32)>,
    ) {
        let mut keys = Vec::new();
        let found = self.nearest_keys(p, range, k, skip, hint, &mut keys);
        out.clear();
        out.extend(
            found
                .iter()
                .map(|&key| (key_distance_squared(key), key as u32)),
        );
    }

    /// [`Self::nearest_hinted`] as search keys ([`key_of`] of the squared distance and
    /// the index, sorted by distance, ties in the grid's order of positions): the
    /// answer is the returned front of `keys`, which is also the search's scratch.
    /// Reused from call to call (and left longer than the answer), it spares the
    /// conversion, and allocates and clears nothing once grown.
    pub(crate) fn nearest_keys<'k>(
        &self,
        p: Vec2,
        range: f32,
        k: usize,
        skip: Option<u32>,
        hint: f32,
        keys: &'k mut Vec<u64>,
    ) -> &'k [u64] {
        // No item has index `u32::MAX` (indices are below the count, a `u32`): the
        // searches below take it for "none".
        let skip = skip.unwrap_or(u32::MAX);
        if k == 0 || self.slots.is_empty() || !p.is_finite() || range.is_nan() || range < 0.0 {
            return &[];
        }
        if hint > 0.0 && hint < range {
            if keys.len() < SEED_ROOM {
                keys.resize(SEED_ROOM, 0);
            }
            if let Ok(room) = <&mut [u64; SEED_ROOM]>::try_from(&mut keys[..SEED_ROOM]) {
                if let Some(n) = self.seeded(p, range, k, skip, hint, room) {
                    return self.slots_to_indices(&mut keys[..n]);
                }
            }
        }
        let n = self.search(p, range, k, skip, keys);
        self.slots_to_indices(&mut keys[..n])
    }

    /// Turns the searches' keys, [`key_of`] a squared distance and a slot (which
    /// orders ties by position), into keys of the distance and the slot's index.
    fn slots_to_indices<'k>(&self, keys: &'k mut [u64]) -> &'k [u64] {
        for key in keys.iter_mut() {
            let index = self
                .slots
                .get(*key as u32 as usize)
                .map_or(u32::MAX, |s| s.index);
            *key = (*key & !u64::from(u32::MAX)) | u64::from(index);
        }
        keys
    }

    /// The search with a seed (a radius `h`, `k` at least 1): only the cells
    /// overlapping the square within `h`, and the items within `h`; when that finds
    /// the answer, returns how many keys it is, at the front of `room` (the rest of
    /// which is scratch, as all of it is otherwise). Keys are [`key_of`] the squared
    /// distance and the slot (not the index: slots order ties by position).
    fn seeded(
        &self,
        p: Vec2,
        range: f32,
        k: usize,
        skip: u32,
        h: f32,
        room: &mut [u64; SEED_ROOM],
    ) -> Option<usize> {
        let layout = &self.layout;
        // Every cell overlapping the square within `h`, row by row; items beyond
        // the seed were turned away: only `k` within it, and nearer than anything
        // unseen, make the answer.
        // The items within it are gathered unsorted into the second half of `room`,
        // then sorted into its first half ([`rank_sort`]); more than `SEED_KEYS` of
        // them give up (the search from scratch answers).
        let (x0, y0) = layout.coords(p - Vec2::splat(h));
        let (x1, y1) = layout.coords(p + Vec2::splat(h));
        let h2 = h * h;
        // Every slot's key is written at `found[len]`, and `len` grows only for an item
        // within the seed: no branch depends on a slot's distance. (`len` stays below
        // `HALF`, a power of two, so the mask changes nothing; it only spares a bounds
        // check.)
        const HALF: usize = SEED_ROOM / 2;
        let (sorted, found) = room.split_at_mut(HALF);
        let mut len = 0;
        for y in y0..=y1 {
            let (a, b) = self.row_slots(y, x0, x1);
            let row = &self.slots[a..b];
            // (A NaN fails the test.)
            let within = |s: &Slot, d2: f32| usize::from((d2 <= h2) & (s.index != skip));
            if row.len() < HALF - len {
                // Room for the whole row: check once it is done.
                for (slot, s) in (a as u32..).zip(row) {
                    let d2 = p.distance_squared(s.point);
                    found[len & (HALF - 1)] = key_of(d2, slot);
                    len += within(s, d2);
                }
            } else {
                for (slot, s) in (a as u32..).zip(row) {
                    let d2 = p.distance_squared(s.point);
                    found[len & (HALF - 1)] = key_of(d2, slot);
                    len += within(s, d2);
                    if len > SEED_KEYS {
                        return None;
                    }
                }
            }
            if len > SEED_KEYS {
                return None;
            }
        }
        if len < k {
            return None;
        }
        rank_sort(&found[..len], sorted);
        let reach = self.reach_outside(p, layout.slack(p, range), (x0, x1), (y0, y1));
        let last = key_distance_squared(sorted[k - 1]);
        if !(reach > 0.0 && last < reach * reach) {
            return None;
        }
        Some(k)
    }

    /// How far every point outside the cells `x0..=x1 × y0..=y1` lies from `p`, at
    /// least (less `slack`).
    fn reach_outside(
        &self,
        p: Vec2,
        slack: f32,
        (x0, x1): (usize, usize),
        (y0, y1): (usize, usize),
    ) -> f32 {
        let layout = &self.layout;
        let lo = layout.origin + Vec2::new(x0 as f32, y0 as f32) * layout.cell;
        let hi = layout.origin + Vec2::new((x1 + 1) as f32, (y1 + 1) as f32) * layout.cell;
        let mut reach = f32::INFINITY;
        if x0 > 0 {
            reach = reach.min(p.x - lo.x);
        }
        if y0 > 0 {
            reach = reach.min(p.y - lo.y);
        }
        if x1 + 1 < layout.cols {
            reach = reach.min(hi.x - p.x);
        }
        if y1 + 1 < layout.rows {
            reach = reach.min(hi.y - p.y);
        }
        reach - slack
    }

    /// The search behind [`Self::nearest_hinted`] (its arguments checked): ring by
    /// ring from `p`'s cell.
    /// Returns how many keys the answer is, at the front of `out` (which grows to hold
    /// them, and is otherwise left as it was beyond them): keys of squared distance
    /// and slot, as [`Self::seeded`]'s.
    fn search(&self, p: Vec2, range: f32, k: usize, skip: u32, out: &mut Vec<u64>) -> usize {
        // The best so far as keys `(d² bits) << 32 | slot`, sorted: squared distances
        // are never negative, so their bits order as they do, and a key orders as the
        // pair `(d², slot)`.
        let mut on_stack = [0u64; KEYS_ON_STACK];
        let mut on_heap = Vec::new();
        let keys: &mut [u64] = if k <= KEYS_ON_STACK {
            &mut on_stack[..k]
        } else {
            on_heap.resize(k, 0);
            &mut on_heap
        };
        let mut best = Best {
            keys,
            len: 0,
            // Until `k` are known, anything within the range enters.
            bound: key_of(range * range, u32::MAX),
        };
        self.search_keys(p, range, skip, &mut best);
        let n = best.len;
        if out.len() < n {
            out.resize(n, 0);
        }
        out[..n].copy_from_slice(&best.keys[..n]);
        n
    }

    /// [`Self::search`] into `best`.
    fn search_keys(&self, p: Vec2, range: f32, skip: u32, best: &mut Best<'_>) {
        let layout = &self.layout;
        let (cx, cy) = layout.coords(p);
        let (cols, rows) = (layout.cols, layout.rows);
        // The cell layout's own rounding may put a point on the far side of a cell
        // boundary by an ulp: a ring counts as reaching only this much less than its
        // exact distance.
        let slack = layout.slack(p, range);
        let consider = |a: usize, b: usize, best: &mut Best<'_>| {
            let mut bound_d2 = best.bound_d2();
            for (slot, s) in (a as u32..).zip(&self.slots[a..b]) {
                let d2 = p.distance_squared(s.point);
                // (A NaN fails the test.)
                if d2 <= bound_d2 {
                    let key = key_of(d2, slot);
                    if key <= best.bound && s.index != skip {
                        best.insert(key);
                        bound_d2 = best.bound_d2();
                    }
                }
            }
        };
        let reach_outside = |xs, ys| self.reach_outside(p, slack, xs, ys);
        let last_ring = cx.max(cols - 1 - cx).max(cy).max(rows - 1 - cy);
        for r in 0..=last_ring {
            let (x0, x1) = (cx.saturating_sub(r), (cx + r).min(cols - 1));
            let (y0, y1) = (cy.saturating_sub(r), (cy + r).min(rows - 1));
            if r == 0 {
                let c = cy * cols + cx;
                consider(self.starts[c] as usize, self.starts[c + 1] as usize, best);
            } else {
                // Rows at the ring's top and bottom in full, the sides' two cells between.
                for y in [cy.checked_sub(r), Some(cy + r)]
                    .into_iter()
                    .flatten()
                    .filter(|&y| y < rows)
                {
                    let (a, b) = self.row_slots(y, x0, x1);
                    consider(a, b, best);
                }
                for y in (cy.saturating_sub(r - 1))..=((cy + r - 1).min(rows - 1)) {
                    for x in [cx.checked_sub(r), Some(cx + r).filter(|&x| x < cols)]
                        .into_iter()
                        .flatten()
                    {
                        let (a, b) = self.row_slots(y, x, x);
                        consider(a, b, best);
                    }
                }
            }
            let reach = reach_outside((x0, x1), (y0, y1));
            if reach > range {
                break;
            }
            if best.is_full() && reach > 0.0 {
                if let Some(d2) = best.last() {
                    if d2 < reach * reach {
                        break;
                    }
                }
            }
        }
    }
}

/// Most items within the seed that [`PointGrid::seeded`] gathers before it gives up on
/// the seed.
const SEED_KEYS: usize = 48;

/// Keys a seeded search has room for: twice a power of two (the mask that keeps its
/// writes in bounds then changes nothing) above [`SEED_KEYS`], half for the items
/// gathered, half for them sorted.
const SEED_ROOM: usize = 128;

/// Running sums of `counts` from `offset` into `sums`: `sums[i]` becomes `offset +
/// counts[0] + … + counts[i]`.
fn running_sum(counts: &[u32], sums: &mut [u32], offset: u32) {
    let mut sum = offset;
    for (s, &c) in sums.iter_mut().zip(counts) {
        sum += c;
        *s = sum;
    }
}

/// Neighbour counts up to which [`PointGrid::search`] keeps its keys on the
/// stack.
const KEYS_ON_STACK: usize = 32;

/// The search key of item `i` at squared distance `d2` (not negative): orders as
/// `(d2, i)`.
pub(crate) fn key_of(d2: f32, i: u32) -> u64 {
    (u64::from(d2.to_bits()) << 32) | u64::from(i)
}

/// The squared distance of a search key ([`key_of`]); its item is `key as u32`.
pub(crate) fn key_distance_squared(key: u64) -> f32 {
    f32::from_bits((key >> 32) as u32)
}

/// Writes `keys` (distinct, at most `sorted.len()` of them) in increasing order into
/// the front of `sorted`, each straight to its rank (how many keys are smaller).
///
/// Quadratic, but the dozens of keys of a seeded search are ranked without a single
/// branch that depends on them: cheaper in time than a general sort, whose branches
/// the processor mispredicts about once per key (more instructions, though).
fn rank_sort(keys: &[u64], sorted: &mut [u64]) {
    debug_assert!(keys.len() <= sorted.len());
    for &key in keys {
        let rank: usize = keys.iter().map(|&other| usize::from(other < key)).sum();
        if let Some(slot) = sorted.get_mut(rank) {
            *slot = key;
        }
    }
}

/// The `keys.len()` smallest keys seen so far, sorted, in `keys[..len]`.
struct Best<'k> {
    keys: &'k mut [u64],
    len: usize,
    /// The largest key that may still enter.
    bound: u64,
}

impl Best<'_> {
    fn is_full(&self) -> bool {
        self.len == self.keys.len()
    }

    /// The squared distance of the furthest kept item.
    fn last(&self) -> Option<f32> {
        let key = *self.keys[..self.len].last()?;
        Some(f32::from_bits((key >> 32) as u32))
    }

    /// The largest squared distance that may still enter.
    fn bound_d2(&self) -> f32 {
        f32::from_bits((self.bound >> 32) as u32)
    }

    /// Inserts `key` (at most `bound`, not kept yet), dropping the largest when full.
    fn insert(&mut self, key: u64) {
        let k = self.keys.len();
        let mut at = if self.len == k { k - 1 } else { self.len };
        while at > 0 && self.keys[at - 1] > key {
            self.keys[at] = self.keys[at - 1];
            at -= 1;
        }
        self.keys[at] = key;
        if self.len < k {
            self.len += 1;
        }
        if self.len == k {
            // Keys are distinct (one per item): the next must be smaller than the last.
            self.bound = self.keys[k - 1].saturating_sub(1);
        }
    }
}

#[cfg(test)]
#[path = "points_test.rs"]
mod test;
