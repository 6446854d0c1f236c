//! A uniform grid over wall segments, built once per mesh and updated where an edit
//! changed the walls.

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
        if walls.is_empty() {
            return WallGrid::default();
        }
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for w in walls {
            lo = lo.min(w.a).min(w.b);
            hi = hi.max(w.a).max(w.b);
        }
        WallGrid::with_layout(walls, Layout::fit(lo, hi, cell, MAX_CELLS))
    }

    /// Builds the grid over `walls` on the cells of `layout`.
    pub(crate) fn with_layout(walls: &[Segment], layout: Layout) -> WallGrid {
        let mut grid = WallGrid::default();
        // Each wall in every cell its box covers that it passes through.
        let touches = |i: usize, cx: usize, cy: usize| {
            let (lo, hi) = layout.cell_box(cx, cy);
            segment_touches_box(walls[i], lo, hi)
        };
        grid.cells
            .rebuild(layout, walls.len(), |i| span(&layout, walls[i]), touches);
        grid
    }

    /// The cells the grid was built on.
    #[cfg(test)]
    pub(crate) fn layout(&self) -> Layout {
        *self.cells.layout()
    }

    /// Updates the grid after its walls changed, exactly as [`WallGrid::with_layout`]
    /// on the same layout would build it over `walls` (the new list): the old wall
    /// `i` is now `remap[i]` (`u32::MAX` for a wall gone; the walls kept must keep
    /// their order), and `added` (increasing) are the indices in `walls` of the new
    /// ones. Returns `false`, leaving the grid as it was, when a new wall reaches
    /// outside the grid's cells (the grid must then be built again on a wider layout).
    pub(crate) fn update(&mut self, walls: &[Segment], remap: &[u32], added: &[u32]) -> bool {
        let layout = *self.cells.layout();
        if layout.len() == 0 {
            return added.is_empty();
        }
        let (lo, hi) = (
            layout.origin,
            layout.origin + Vec2::new(layout.cols as f32, layout.rows as f32) * layout.cell,
        );
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for &j in added {
            let Some(&w) = walls.get(j as usize) else {
                return false;
            };
            let inside = |p: Vec2| p.is_finite() && p.cmpge(lo).all() && p.cmple(hi).all();
            if !(inside(w.a) && inside(w.b)) {
                return false;
            }
            let ((x0, y0), (x1, y1)) = span(&layout, w);
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    let (clo, chi) = layout.cell_box(cx, cy);
                    if segment_touches_box(w, clo, chi) {
                        pairs.push(((cy * layout.cols + cx) as u32, j));
                    }
                }
            }
        }
        pairs.sort_unstable();
        self.cells.patch(remap, &pairs);
        true
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

/// The first and last column and row of the cells the box of `w` covers.
fn span(layout: &Layout, w: Segment) -> ((usize, usize), (usize, usize)) {
    (layout.coords(w.a.min(w.b)), layout.coords(w.a.max(w.b)))
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
impl WallGrid {
    /// Whether `self` and `other` lie on the same cells (to the bit) and hold the same
    /// walls in each, in the same order.
    pub(crate) fn same_as(&self, other: &WallGrid) -> bool {
        let (a, b) = (self.layout(), other.layout());
        a.origin.to_array().map(f32::to_bits) == b.origin.to_array().map(f32::to_bits)
            && a.cell.to_bits() == b.cell.to_bits()
            && (a.cols, a.rows) == (b.cols, b.rows)
            && self.cells.each_cell().eq(other.cells.each_cell())
    }
}
