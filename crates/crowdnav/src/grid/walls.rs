//! A uniform grid over wall segments, built once per mesh.

use super::{Cells, Layout, MAX_CELLS};
use crate::geom::Segment;
use glam::Vec2;

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
        let layout = Layout::fit(lo, hi, cell, MAX_CELLS);
        // Each wall in every cell its box covers that it passes through.
        let span = |i: usize| {
            let w = walls[i];
            (layout.coords(w.a.min(w.b)), layout.coords(w.a.max(w.b)))
        };
        let touches = |i: usize, cx: usize, cy: usize| {
            let (lo, hi) = layout.cell_box(cx, cy);
            segment_touches_box(walls[i], lo, hi)
        };
        grid.cells.rebuild(layout, walls.len(), span, touches);
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

    /// Calls `f` with the wall indices of the cells overlapping the box `lo..=hi`,
    /// one row of cells at a time (a wall in several cells comes once per cell).
    pub(crate) fn for_each_row_in_box(&self, lo: Vec2, hi: Vec2, mut f: impl FnMut(&[u32])) {
        let layout = self.cells.layout();
        if layout.len() == 0 || !lo.is_finite() || !hi.is_finite() {
            return;
        }
        let ((x0, y0), (x1, y1)) = (layout.coords(lo), layout.coords(hi));
        for cy in y0..=y1 {
            f(self.cells.row(cy, x0, x1));
        }
    }

    /// The side of the grid's cells (0 for an empty grid).
    pub(crate) fn cell_side(&self) -> f32 {
        self.cells.layout().cell
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
