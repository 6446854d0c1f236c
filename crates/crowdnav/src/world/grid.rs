//! Uniform grids: one over points (agents, moving obstacles) rebuilt every step, one
//! over wall segments built once.
//!
//! Both are a counting sort of items into cells ([`Cells`]): two flat arrays, reused
//! from step to step by the point grid, so rebuilding it allocates nothing once the
//! crowd's size is stable.

use crate::geom::Segment;
use glam::Vec2;

/// Largest number of cells a grid gets; beyond it cells grow instead.
const MAX_CELLS: usize = 1 << 22;

/// The layout shared by both grids: square cells over a box, and the items of each
/// cell as one slice of a flat array (`items[starts[c]..starts[c + 1]]`).
#[derive(Clone, Debug, Default)]
struct Cells {
    origin: Vec2,
    cell: f32,
    cols: usize,
    rows: usize,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Cells {
    /// Lays cells of about `cell` metres over the box `lo..hi` (doubling the size past
    /// [`MAX_CELLS`]) and zeroes the counts.
    fn layout(&mut self, lo: Vec2, hi: Vec2, cell: f32) {
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
        while ((extent.x / cell) as usize + 1).saturating_mul((extent.y / cell) as usize + 1)
            > MAX_CELLS
        {
            cell *= 2.0;
        }
        self.origin = lo;
        self.cell = cell;
        self.cols = (extent.x / cell) as usize + 1;
        self.rows = (extent.y / cell) as usize + 1;
        self.starts.clear();
        self.starts.resize(self.cols * self.rows + 1, 0);
    }

    /// Turns per-cell counts stored at `starts[c + 1]` into start offsets.
    fn accumulate(&mut self) {
        for c in 0..self.cols * self.rows {
            self.starts[c + 1] += self.starts[c];
        }
    }

    fn coords(&self, p: Vec2) -> (usize, usize) {
        let q = ((p - self.origin) / self.cell).max(Vec2::ZERO);
        let cx = (q.x as usize).min(self.cols.saturating_sub(1));
        let cy = (q.y as usize).min(self.rows.saturating_sub(1));
        (cx, cy)
    }

    fn index(&self, p: Vec2) -> usize {
        let (cx, cy) = self.coords(p);
        cy * self.cols + cx
    }

    fn cell_box(&self, cx: usize, cy: usize) -> (Vec2, Vec2) {
        let lo = self.origin + Vec2::new(cx as f32, cy as f32) * self.cell;
        (lo, lo + Vec2::splat(self.cell))
    }

    /// Calls `f` with the items of the cells overlapping the square of half-width
    /// `range` around `p`, one row of cells at a time, rows in order.
    fn for_each_row_near(&self, p: Vec2, range: f32, mut f: impl FnMut(&[u32])) {
        if self.cols == 0 || !p.is_finite() {
            return;
        }
        let range = if range.is_finite() {
            range.max(0.0)
        } else {
            0.0
        };
        let (x0, y0) = self.coords(p - Vec2::splat(range));
        let (x1, y1) = self.coords(p + Vec2::splat(range));
        for cy in y0..=y1 {
            let row = cy * self.cols;
            let (a, b) = (
                self.starts[row + x0] as usize,
                self.starts[row + x1 + 1] as usize,
            );
            f(&self.items[a..b]);
        }
    }
}

/// A uniform grid over points, rebuilt each step.
#[derive(Clone, Debug, Default)]
pub struct PointGrid {
    /// Item indices sorted by cell, then by index.
    cells: Cells,
    cell_of: Vec<u32>,
    cursor: Vec<u32>,
}

impl PointGrid {
    /// Rebuilds the grid over `points` with cells of about `cell` metres.
    pub fn rebuild(&mut self, points: &[Vec2], cell: f32) {
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for &p in points {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let cells = &mut self.cells;
        cells.layout(lo, hi, cell);
        self.cell_of.clear();
        for &p in points {
            let c = cells.index(p);
            self.cell_of.push(c as u32);
            cells.starts[c + 1] += 1;
        }
        cells.accumulate();
        cells.items.clear();
        cells.items.resize(points.len(), 0);
        // Fill each cell from its start; items keep increasing index within a cell.
        self.cursor.clear();
        self.cursor
            .extend_from_slice(&cells.starts[..cells.cols * cells.rows]);
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut self.cursor[c as usize];
            cells.items[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    /// Calls `f(i)` for every item whose cell overlaps the square of half-width `range`
    /// around `p` (a superset of the items within `range`), cell by cell in row order.
    pub fn for_each_near(&self, p: Vec2, range: f32, mut f: impl FnMut(u32)) {
        self.cells.for_each_row_near(p, range, |items| {
            for &i in items {
                f(i);
            }
        });
    }
}

/// A uniform grid over wall segments, built once per mesh.
#[derive(Clone, Debug, Default)]
pub struct WallGrid {
    cells: Cells,
}

impl WallGrid {
    /// Builds the grid over `walls` with cells of about `cell` metres.
    pub fn new(walls: &[Segment], cell: f32) -> WallGrid {
        let mut grid = WallGrid::default();
        if walls.is_empty() {
            return grid;
        }
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for w in walls {
            lo = lo.min(w.a).min(w.b);
            hi = hi.max(w.a).max(w.b);
        }
        let cells = &mut grid.cells;
        cells.layout(lo, hi, cell);
        // (cell, wall) for every cell each wall passes through, sorted by cell.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (i, w) in walls.iter().enumerate() {
            let (x0, y0) = cells.coords(w.a.min(w.b));
            let (x1, y1) = cells.coords(w.a.max(w.b));
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    let (lo, hi) = cells.cell_box(cx, cy);
                    if segment_touches_box(*w, lo, hi) {
                        pairs.push(((cy * cells.cols + cx) as u32, i as u32));
                    }
                }
            }
        }
        pairs.sort_unstable();
        for &(c, _) in &pairs {
            cells.starts[c as usize + 1] += 1;
        }
        cells.accumulate();
        cells.items = pairs.into_iter().map(|(_, w)| w).collect();
        grid
    }

    /// Appends to `out` (sorted, without duplicates) the index of every wall that passes
    /// through a cell overlapping the square of half-width `range` around `p`.
    pub fn walls_near(&self, p: Vec2, range: f32, out: &mut Vec<u32>) {
        out.clear();
        self.cells
            .for_each_row_near(p, range, |items| out.extend_from_slice(items));
        out.sort_unstable();
        out.dedup();
    }
}

/// Whether segment `s` meets the closed box `[lo, hi]` (slab test, slightly padded).
fn segment_touches_box(s: Segment, lo: Vec2, hi: Vec2) -> bool {
    let pad = Vec2::splat(1e-4 * (hi - lo).max_element());
    let (lo, hi) = (lo - pad, hi + pad);
    let d = s.b - s.a;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for axis in 0..2 {
        let (a, dv, l, h) = (s.a[axis], d[axis], lo[axis], hi[axis]);
        if dv.abs() < 1e-12 {
            if a < l || a > h {
                return false;
            }
        } else {
            let (mut ta, mut tb) = ((l - a) / dv, (h - a) / dv);
            if ta > tb {
                std::mem::swap(&mut ta, &mut tb);
            }
            t0 = t0.max(ta);
            t1 = t1.min(tb);
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn point_grid_finds_every_point_within_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let points: Vec<Vec2> = (0..500)
            .map(|_| Vec2::new(rng.gen_range(-50.0..50.0), rng.gen_range(-20.0..80.0)))
            .collect();
        let mut grid = PointGrid::default();
        for cell in [0.5, 3.0, 40.0] {
            grid.rebuild(&points, cell);
            for (i, &p) in points.iter().enumerate().step_by(7) {
                let range = 4.0;
                let mut found = Vec::new();
                grid.for_each_near(p, range, |j| found.push(j));
                found.sort_unstable();
                let before = found.len();
                found.dedup();
                assert_eq!(before, found.len(), "an item was reported twice");
                for (j, &q) in points.iter().enumerate() {
                    if p.distance(q) <= range {
                        assert!(found.contains(&(j as u32)), "{j} missing near {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn wall_grid_finds_every_wall_within_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let walls: Vec<Segment> = (0..300)
            .map(|_| {
                let a = Vec2::new(rng.gen_range(0.0..100.0), rng.gen_range(0.0..100.0));
                let d = Vec2::new(rng.gen_range(-15.0..15.0), rng.gen_range(-15.0..15.0));
                Segment::new(a, a + d)
            })
            .collect();
        let grid = WallGrid::new(&walls, 4.0);
        let mut out = Vec::new();
        for _ in 0..200 {
            let p = Vec2::new(rng.gen_range(-10.0..110.0), rng.gen_range(-10.0..110.0));
            let range = rng.gen_range(0.0..8.0);
            grid.walls_near(p, range, &mut out);
            for (i, w) in walls.iter().enumerate() {
                if w.distance(p) <= range {
                    assert!(out.binary_search(&(i as u32)).is_ok(), "wall {i} missing");
                }
            }
        }
    }

    #[test]
    fn empty_grids_answer_nothing() {
        let mut grid = PointGrid::default();
        grid.rebuild(&[], 1.0);
        let mut n = 0;
        grid.for_each_near(Vec2::ZERO, 10.0, |_| n += 1);
        assert_eq!(n, 0);
        let walls = WallGrid::new(&[], 1.0);
        let mut out = vec![3];
        walls.walls_near(Vec2::ZERO, 10.0, &mut out);
        assert!(out.is_empty());
    }
}
