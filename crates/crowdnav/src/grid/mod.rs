//! Uniform grids: every place that bins points or segments into square cells lays them
//! with one [`Layout`] and, when it keeps items per cell, stores them in one [`Cells`].
//!
//! **How cells are sized, once for all users.** A user says how large it would like a
//! cell ([`Layout::fit`]: a side in metres, as the world's neighbour radius gives) or how
//! many items it would like per cell ([`Layout::dense`]: a mesh's corners, a polygon's
//! edges, a path's pieces), and how many cells it can afford at most. The layout lays
//! square cells of that side from the box's low corner, one more line than the box
//! needs along each axis (so that its high edge falls inside), and grows the side when
//! the count would pass the user's limit or [`MAX_CELLS`]. A point is put in a cell by
//! truncation, clamped into the grid (NaN goes to the first cell), which is monotone in
//! each coordinate: the cells of a box's corners bound the cells of every point in the
//! box, whatever the rounding.
//!
//! The users, each keeping its own query where the query is the algorithm:
//!
//! - [`PointGrid`]: agents and moving obstacles, rebuilt every step (k nearest by rings
//!   of cells); a mesh's obstacle corners (`mesh::corner_grid`, boxes of corners);
//! - [`WallGrid`]: wall segments within a distance, built once per mesh and patched
//!   where an edit changed the walls ([`Cells::patch`]);
//! - `mesh::level`'s segment grid: pairs of a polygon's edges sharing a cell;
//! - `path::beside`'s bins: the pieces of a path whose boxes meet a query box;
//! - `mesh::locate`'s hints: a starting triangle per cell for the point-location walk.

mod points;
mod walls;

pub use points::PointGrid;
pub(crate) use points::{key_distance_squared, key_of};
pub use walls::WallGrid;

use glam::Vec2;

/// Largest number of cells a grid gets; beyond it cells grow instead.
pub(crate) const MAX_CELLS: usize = 1 << 22;

/// Most cells along one side that [`Layout::dense`] aims for: a box much longer than
/// wide still gets cells no thinner than its length over this.
const MAX_DENSE_SIDE: f32 = 4096.0;

/// Where a grid's square cells lie: `cols × rows` cells of side `cell` from `origin`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Layout {
    pub(crate) origin: Vec2,
    pub(crate) cell: f32,
    pub(crate) cols: usize,
    pub(crate) rows: usize,
}

impl Layout {
    /// Cells of about `cell` metres over the box `lo..hi`, larger when they would be
    /// more than `limit` (or [`MAX_CELLS`]); a non-finite box or cell size is replaced
    /// by a small one.
    pub(crate) fn fit(lo: Vec2, hi: Vec2, cell: f32, limit: usize) -> Layout {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() {
            (lo, hi)
        } else {
            (Vec2::ZERO, Vec2::ZERO)
        };
        let mut cell = if cell.is_finite() && cell > 0.0 {
            cell
        } else {
            1.0
        };
        let extent = (hi - lo).max(Vec2::splat(1e-3));
        let limit = limit.min(MAX_CELLS);
        let lines = |length: f32, cell: f32| ((length / cell) as usize).saturating_add(1);
        let count = |cell: f32| lines(extent.x, cell).saturating_mul(lines(extent.y, cell));
        if count(cell) > limit {
            // The side that gives about `limit` square cells, grown a little at a time
            // while rounding (or a thin box) leaves too many.
            cell = cell.max((extent.x * extent.y / limit as f32).sqrt());
            while count(cell) > limit {
                cell *= 1.25;
            }
        }
        Layout {
            origin: lo,
            cell,
            cols: lines(extent.x, cell),
            rows: lines(extent.y, cell),
        }
    }

    /// Cells holding about `per_cell` of `n` items spread over the box `lo..hi`
    /// (square cells of that share of the box's area, no thinner than the box's longer
    /// side over [`MAX_DENSE_SIDE`]), at most `limit`: [`Layout::fit`] with that side.
    pub(crate) fn dense(lo: Vec2, hi: Vec2, n: usize, per_cell: f32, limit: usize) -> Layout {
        Layout::fit(lo, hi, dense_side(lo, hi, n, per_cell), limit)
    }

    /// Number of cells.
    pub(crate) fn len(&self) -> usize {
        self.cols * self.rows
    }

    /// The columns `x0..=x1` and the rows of the cells overlapping the square of
    /// half-width `range` around `p` (a negative or non-finite range counts as 0);
    /// `None` for an empty layout or a non-finite `p`.
    pub(crate) fn rows_near(
        &self,
        p: Vec2,
        range: f32,
    ) -> Option<(usize, usize, std::ops::RangeInclusive<usize>)> {
        if self.cols == 0 || self.rows == 0 || !p.is_finite() {
            return None;
        }
        let range = if range.is_finite() {
            range.max(0.0)
        } else {
            0.0
        };
        let (x0, y0) = self.coords(p - Vec2::splat(range));
        let (x1, y1) = self.coords(p + Vec2::splat(range));
        Some((x0, x1, y0..=y1))
    }

    /// The cell of `p` (clamped into the grid; a NaN coordinate gives 0).
    pub(crate) fn coords(&self, p: Vec2) -> (usize, usize) {
        (self.column(p.x), self.row(p.y))
    }

    /// The index of the cell of `p` (cells row by row), as [`Layout::coords`].
    pub(crate) fn index(&self, p: Vec2) -> usize {
        let (x, y) = self.coords(p);
        y * self.cols + x
    }

    fn column(&self, x: f32) -> usize {
        cell_index((x - self.origin.x) / self.cell, self.cols)
    }

    fn row(&self, y: f32) -> usize {
        cell_index((y - self.origin.y) / self.cell, self.rows)
    }

    /// The box of cell `(cx, cy)`.
    pub(crate) fn cell_box(&self, cx: usize, cy: usize) -> (Vec2, Vec2) {
        let lo = self.origin + Vec2::new(cx as f32, cy as f32) * self.cell;
        (lo, lo + Vec2::splat(self.cell))
    }

    /// How much a query widens its disc so that rounding (of the query, and of the
    /// placing of points in cells) never hides a point inside it: a few units in the
    /// last place of every number involved.
    pub(crate) fn slack(&self, p: Vec2, range: f32) -> f32 {
        self.cell * 1e-4
            + 1e-6 * (range + self.cell + p.abs().max_element() + self.origin.abs().max_element())
    }
}

/// The side of square cells holding about `per_cell` of `n` items spread over the box
/// `lo..hi`, no less than the box's longer side over [`MAX_DENSE_SIDE`].
pub(crate) fn dense_side(lo: Vec2, hi: Vec2, n: usize, per_cell: f32) -> f32 {
    let size = hi - lo;
    (size.x * size.y * per_cell / n.max(1) as f32)
        .sqrt()
        .max(size.max_element() / MAX_DENSE_SIDE)
}

/// The cell at `t` cell sizes from the origin along an axis of `count` cells, clamped
/// into them (a NaN gives 0). (Through `u32`, which converts more cheaply than `usize`
/// and clamps the same: no grid has `u32::MAX` cells along an axis.)
pub(crate) fn cell_index(t: f32, count: usize) -> usize {
    (t.max(0.0) as u32 as usize).min(count.saturating_sub(1))
}

/// Items binned into the cells of a [`Layout`], each item in every cell it covers: a
/// counting sort into one flat array, the items of cell `c` being
/// `items[starts[c]..starts[c + 1]]` (cells row by row, items of a cell in increasing
/// order). Rebuilding allocates nothing once the arrays have grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cells {
    layout: Layout,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Cells {
    /// Bins items `0..n` into the cells of `layout`: item `i` goes into the cells of
    /// the rectangle `span(i)` (its first and last column and row) that `keep(i, cx,
    /// cy)` accepts.
    pub(crate) fn rebuild(
        &mut self,
        layout: Layout,
        n: usize,
        span: impl Fn(usize) -> ((usize, usize), (usize, usize)),
        keep: impl Fn(usize, usize, usize) -> bool,
    ) {
        self.layout = layout;
        let cols = layout.cols;
        // Counts per cell summed up to each cell's end, then every cell filled back to
        // front from its end (so `starts[c]` ends at the cell's start).
        self.starts.clear();
        self.starts.resize(layout.len() + 1, 0);
        for i in 0..n {
            let ((x0, y0), (x1, y1)) = span(i);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    if keep(i, x, y) {
                        self.starts[y * cols + x] += 1;
                    }
                }
            }
        }
        let mut sum = 0;
        for s in &mut self.starts {
            sum += *s;
            *s = sum;
        }
        self.items.clear();
        self.items.resize(sum as usize, 0);
        for i in (0..n).rev() {
            let ((x0, y0), (x1, y1)) = span(i);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    if keep(i, x, y) {
                        let c = y * cols + x;
                        self.starts[c] -= 1;
                        self.items[self.starts[c] as usize] = i as u32;
                    }
                }
            }
        }
    }

    /// Renumbers the binned items after some were dropped and others added, as
    /// [`Cells::rebuild`] on the same layout would bin them: item `i` becomes
    /// `remap[i]` (`u32::MAX` drops it; the kept ones must keep their order), and each
    /// `(cell, item)` of `added` (sorted, new numbers) joins its cell. One pass over the
    /// cells; the items of each cell stay in increasing order.
    pub(crate) fn patch(&mut self, remap: &[u32], added: &[(u32, u32)]) {
        let mut starts = Vec::with_capacity(self.starts.len());
        let mut items = Vec::with_capacity(self.items.len() + added.len());
        let mut next = added.iter().peekable();
        starts.push(0);
        for (c, w) in self.starts.windows(2).enumerate() {
            let c = c as u32;
            for &i in &self.items[w[0] as usize..w[1] as usize] {
                let j = remap.get(i as usize).copied().unwrap_or(u32::MAX);
                if j == u32::MAX {
                    continue;
                }
                while let Some(&&(_, k)) = next.peek().filter(|&&&(cell, k)| cell == c && k < j) {
                    items.push(k);
                    next.next();
                }
                items.push(j);
            }
            while let Some(&&(_, k)) = next.peek().filter(|&&&(cell, _)| cell == c) {
                items.push(k);
                next.next();
            }
            starts.push(items.len() as u32);
        }
        self.starts = starts;
        self.items = items;
    }

    /// The layout the items were binned on.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The items of the cells of row `y` from column `x0` to `x1` (an item in several
    /// of them appears once per cell).
    pub(crate) fn row(&self, y: usize, x0: usize, x1: usize) -> &[u32] {
        let row = y * self.layout.cols;
        match (self.starts.get(row + x0), self.starts.get(row + x1 + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The items of each cell in turn, cells row by row.
    pub(crate) fn each_cell(&self) -> impl Iterator<Item = &[u32]> {
        self.starts
            .windows(2)
            .map(|w| &self.items[w[0] as usize..w[1] as usize])
    }

    /// Calls `f` with the items of the cells overlapping the square of half-width
    /// `range` around `p`, one row of cells at a time, rows in order.
    pub(crate) fn for_each_row_near(&self, p: Vec2, range: f32, mut f: impl FnMut(&[u32])) {
        let Some((x0, x1, rows)) = self.layout.rows_near(p, range) else {
            return;
        };
        for cy in rows {
            f(self.row(cy, x0, x1));
        }
    }
}
