//! The cells that lie wholly in walkable space, so that
//! [`NavMesh::raycast`](crate::mesh::NavMesh::raycast) and
//! [`NavMesh::raycast_in`](crate::mesh::NavMesh::raycast_in) know that their start is
//! walkable with one bit's look-up instead of a point location (a grid look-up and a
//! walk) or a check of the start triangle (two loads from a 2 MB array on aurora): the
//! disc raycast through the ray grid needs no triangle, only that the start is
//! walkable. Each ray grid marks the 8 × 8 sub-cells of its cells this way and keeps
//! their bits with the cell's walls (`mesh/query_ray.rs`), so that the start's bit comes
//! with the line of memory the walk reads first.
//!
//! A cell is marked when no edge that parts walkable space from the rest (a wall, an
//! edge between a walkable and a blocked triangle, an edge of the hull) comes within a
//! pad of rounding of the closed cell, and the cell's centre is walkable: a cell is
//! connected, so then every point of it, and every point a few ulps from it (which
//! rounding may map to it), is walkable too. An unmarked cell says nothing: the caller
//! locates the point as before. Unmarked cells next to each other share their class,
//! so a row scan locates only the first cell of each run.
//!
//! Built with each ray grid, dropped with the query index by every edit.

use crate::mesh::navmesh::{Location, NavMesh, TriangleId};
use glam::DVec2;

/// Most cells the bitmap gets (one bit each: 2 MB).
pub(crate) const MAX_CELLS: f64 = (1u64 << 24) as f64;

/// The bitmap: see the [module](self)'s notes.
#[derive(Clone, Debug, Default)]
pub(crate) struct WalkableCells {
    /// The low corner of cell `(0, 0)`.
    origin: DVec2,
    inv_cell: f64,
    cols: usize,
    rows: usize,
    /// Bit `c` (cells row by row): cell `c` lies in walkable space.
    bits: Vec<u64>,
}

impl WalkableCells {
    /// The bitmap of `mesh`, whose vertices lie in the box `lo..hi`, on cells of side
    /// about `cell` (wider when the bitmap would pass [`MAX_CELLS`]); empty (every
    /// point left to the caller) for an empty or degenerate box. (The tests' view of
    /// [`WalkableCells::on_grid`], which the ray grids build their sub-cells with.)
    #[cfg(test)]
    pub(crate) fn new(mesh: &NavMesh, lo: DVec2, hi: DVec2, cell: f64) -> WalkableCells {
        WalkableCells::clear_of(mesh, lo, hi, cell, 0.0)
    }

    /// [`WalkableCells::new`] with every cell that comes within `reach` of a wall (or
    /// of any edge that parts walkable space from the rest) left unmarked: a disc of
    /// radius `reach` fits anywhere in a marked cell.
    pub(crate) fn clear_of(
        mesh: &NavMesh,
        lo: DVec2,
        hi: DVec2,
        cell: f64,
        reach: f64,
    ) -> WalkableCells {
        let size = hi - lo;
        let scale = 1.0 + lo.abs().max_element().max(hi.abs().max_element());
        if !(size.x >= 0.0 && size.y >= 0.0 && scale.is_finite()) || mesh.triangles.is_empty() {
            return WalkableCells::default();
        }
        // Wide enough that a centre rounded to `f32` stays well inside its cell, and
        // that the bitmap stays within its size.
        let fit = ((size.x + 2.0) * (size.y + 2.0) / MAX_CELLS).sqrt();
        let cell = cell.max(1e-3 * scale).max(fit);
        let (cols, rows) = (
            (size.x / cell).ceil() as usize + 3,
            (size.y / cell).ceil() as usize + 3,
        );
        WalkableCells::on_grid(mesh, lo - cell, cell, cols, rows, reach + 1e-6 * scale)
    }

    /// The bitmap of `mesh` on the `cols` × `rows` cells of side `cell` from `origin`
    /// (which the caller keeps within [`MAX_CELLS`] and wide enough that a centre
    /// rounded to `f32` stays inside its cell), marking a cell only when no parting
    /// edge comes within `pad` of it.
    pub(crate) fn on_grid(
        mesh: &NavMesh,
        origin: DVec2,
        cell: f64,
        cols: usize,
        rows: usize,
        pad: f64,
    ) -> WalkableCells {
        let n = cols * rows;
        if n == 0 || mesh.triangles.is_empty() || !(cell > 0.0 && origin.is_finite()) {
            return WalkableCells::default();
        }
        let inv_cell = 1.0 / cell;
        let cell_of =
            |x: f64, count: usize| ((x * inv_cell).floor().max(0.0) as usize).min(count - 1);
        // The cells within `pad` of an edge that parts walkable space from the rest.
        let mut mixed = vec![false; n];
        for t in mesh.triangles() {
            let walkable = mesh.is_walkable(t);
            for e in 0..3 {
                let parts = match mesh.neighbor(t, e) {
                    None => true,
                    Some(u) => mesh.is_walkable(u) != walkable || mesh.is_wall(t, e),
                };
                if !parts {
                    continue;
                }
                let edge = mesh.edge_segment(t, e);
                let (a, b) = (edge.a.as_dvec2(), edge.b.as_dvec2());
                let (blo, bhi) = (a.min(b) - pad - origin, a.max(b) + pad - origin);
                // The cells of the edge's box (grown by the pad) that meet the band of
                // its line grown by the pad and the half-cell's reach across it: a
                // separating-axis test, which marks every cell within the pad of the
                // edge (and a few more at its ends, which only costs look-ups).
                let n = (b - a).perp();
                let reach = 0.5 * cell * (n.x.abs() + n.y.abs()) + pad * n.length();
                for y in cell_of(blo.y, rows)..=cell_of(bhi.y, rows) {
                    for x in cell_of(blo.x, cols)..=cell_of(bhi.x, cols) {
                        let centre = origin + (DVec2::new(x as f64, y as f64) + 0.5) * cell;
                        if n.dot(centre - a).abs() <= reach {
                            mixed[y * cols + x] = true;
                        }
                    }
                }
            }
        }
        // The class of each other cell: its left or lower neighbour's when that is
        // unmarked too, else its centre's.
        let mut bits = vec![0u64; n.div_ceil(64)];
        let mut walkable = vec![false; n];
        let mut hint = TriangleId(0);
        for y in 0..rows {
            for x in 0..cols {
                let c = y * cols + x;
                if mixed[c] {
                    continue;
                }
                walkable[c] = if x > 0 && !mixed[c - 1] {
                    walkable[c - 1]
                } else if y > 0 && !mixed[c - cols] {
                    walkable[c - cols]
                } else {
                    let centre = origin + (DVec2::new(x as f64, y as f64) + 0.5) * cell;
                    match mesh.locate_from(centre.as_vec2(), hint) {
                        Location::Walkable(t) => {
                            hint = t;
                            true
                        }
                        Location::Blocked(t) => {
                            hint = t;
                            false
                        }
                        Location::Outside => false,
                    }
                };
                if walkable[c] {
                    bits[c / 64] |= 1 << (c % 64);
                }
            }
        }
        WalkableCells {
            origin,
            inv_cell,
            cols,
            rows,
            bits,
        }
    }

    /// `true` when `p` surely lies in walkable space (clear of every wall by the reach
    /// the cells were built with); `false` says nothing.
    #[inline]
    pub(crate) fn surely_walkable(&self, p: DVec2) -> bool {
        let q = (p - self.origin) * self.inv_cell;
        // (Not NaN, inside the bitmap; then truncation is the floor.)
        if !(q.x >= 0.0 && q.y >= 0.0 && q.x < self.cols as f64 && q.y < self.rows as f64) {
            return false;
        }
        let c = q.y as usize * self.cols + q.x as usize;
        self.bits
            .get(c / 64)
            .is_some_and(|&word| word >> (c % 64) & 1 != 0)
    }

    /// Whether cell `(x, y)` is marked (`false` off the bitmap).
    pub(crate) fn marked(&self, x: usize, y: usize) -> bool {
        let c = y * self.cols + x;
        x < self.cols
            && y < self.rows
            && self
                .bits
                .get(c / 64)
                .is_some_and(|&word| word >> (c % 64) & 1 != 0)
    }

    /// The share of the bitmap's cells that are marked (for tests).
    #[cfg(test)]
    pub(crate) fn marked_share(&self) -> f64 {
        let marked: u32 = self.bits.iter().map(|w| w.count_ones()).sum();
        f64::from(marked) / (self.cols * self.rows).max(1) as f64
    }
}
