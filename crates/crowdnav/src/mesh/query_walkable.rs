//! A bitmap of the cells that lie wholly in walkable space, so that
//! [`NavMesh::raycast`](crate::mesh::NavMesh::raycast) and
//! [`NavMesh::raycast_in`](crate::mesh::NavMesh::raycast_in) know that their start is
//! walkable with one bit's look-up instead of a point location (a grid look-up and a
//! walk) or a check of the start triangle (two loads from a 2 MB array on aurora): the
//! disc raycast through the ray grid needs no triangle, only that the start is
//! walkable.
//!
//! A cell is marked when no edge that parts walkable space from the rest (a wall, an
//! edge between a walkable and a blocked triangle, an edge of the hull) comes within a
//! pad of rounding of the closed cell, and the cell's centre is walkable: a cell is
//! connected, so then every point of it, and every point a few ulps from it (which
//! rounding may map to it), is walkable too. An unmarked cell says nothing: the caller
//! locates the point as before. Unmarked cells next to each other share their class,
//! so a row scan locates only the first cell of each run.
//!
//! Built with the query index; after an edit, the cells the changed triangles cover
//! are measured again (see [`WalkableCells::update`]), the same as a build would.

use crate::geom::Segment;
use crate::grid::WallGrid;
use crate::mesh::navmesh::{Location, NavMesh, TriangleId};
use glam::DVec2;

/// Most cells the bitmap gets (one bit each: 2 MB).
const MAX_CELLS: f64 = (1u64 << 24) as f64;

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
    /// The cells' side.
    cell: f64,
    /// How near an edge comes to a cell for the cell to be left unmarked.
    pad: f64,
    /// Bit `c`: an edge of the hull comes within the pad of cell `c`.
    hull_near: Vec<u64>,
}

fn set(bits: &mut [u64], c: usize) {
    bits[c / 64] |= 1 << (c % 64);
}

fn get(bits: &[u64], c: usize) -> bool {
    bits[c / 64] >> (c % 64) & 1 != 0
}

impl WalkableCells {
    /// The bitmap of `mesh`, with these walls (as the query index lists them) and hull
    /// edges, whose vertices lie in the box `lo..hi`, on cells of side about `cell`
    /// (wider when the bitmap would pass [`MAX_CELLS`]); empty (every point left to the
    /// caller) for an empty or degenerate box.
    pub(crate) fn new(
        mesh: &NavMesh,
        walls: &[Segment],
        hull: &[(DVec2, DVec2)],
        lo: DVec2,
        hi: DVec2,
        cell: f64,
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
        let n = cols * rows;
        let mut cells = WalkableCells {
            origin: lo - cell,
            inv_cell: 1.0 / cell,
            cols,
            rows,
            bits: vec![0u64; n.div_ceil(64)],
            cell,
            pad: 1e-6 * scale,
            hull_near: vec![0u64; n.div_ceil(64)],
        };
        // The cells within the pad of an edge that parts walkable space from the rest:
        // a wall, or an edge of the hull (the walls as the walkable side gives them).
        let mut near = vec![0u64; n.div_ceil(64)];
        for &(a, b) in hull {
            cells.mark(a, b, |c| set(&mut near, c));
        }
        cells.hull_near.clone_from(&near);
        for w in walls {
            cells.mark(w.a.as_dvec2(), w.b.as_dvec2(), |c| set(&mut near, c));
        }
        // The class of each other cell: its left or lower neighbour's when that is
        // unmarked too, else its centre's.
        let mut hint = TriangleId(0);
        for y in 0..rows {
            for x in 0..cols {
                let c = y * cols + x;
                if get(&near, c) {
                    continue;
                }
                let walkable = if x > 0 && !get(&near, c - 1) {
                    get(&cells.bits, c - 1)
                } else if y > 0 && !get(&near, c - cols) {
                    get(&cells.bits, c - cols)
                } else {
                    cells.centre_walkable(mesh, x, y, &mut hint)
                };
                if walkable {
                    set(&mut cells.bits, c);
                }
            }
        }
        cells
    }

    /// The cell of coordinate `x` along an axis of `count` cells (clamped).
    fn cell_of(&self, x: f64, count: usize) -> usize {
        ((x * self.inv_cell).floor().max(0.0) as usize).min(count - 1)
    }

    /// The centre of cell `(x, y)`.
    fn centre(&self, x: usize, y: usize) -> DVec2 {
        self.origin + (DVec2::new(x as f64, y as f64) + 0.5) * self.cell
    }

    /// Whether the centre of cell `(x, y)` is walkable, located from `hint`.
    fn centre_walkable(&self, mesh: &NavMesh, x: usize, y: usize, hint: &mut TriangleId) -> bool {
        match mesh.locate_from(self.centre(x, y).as_vec2(), *hint) {
            Location::Walkable(t) => {
                *hint = t;
                true
            }
            Location::Blocked(t) => {
                *hint = t;
                false
            }
            Location::Outside => false,
        }
    }

    /// Calls `f` with every cell that edge `a b` comes within the pad of: the cells of
    /// the edge's box (grown by the pad) that meet the band of its line grown by the
    /// pad and the half-cell's reach across it, a separating-axis test (which marks
    /// every cell within the pad of the edge, and a few more at its ends, which only
    /// costs look-ups). Only the cells of columns `xs` and rows `ys` are tested.
    fn mark_in(
        &self,
        a: DVec2,
        b: DVec2,
        xs: (usize, usize),
        ys: (usize, usize),
        mut f: impl FnMut(usize),
    ) {
        let (blo, bhi) = (
            a.min(b) - self.pad - self.origin,
            a.max(b) + self.pad - self.origin,
        );
        let n = (b - a).perp();
        let reach = 0.5 * self.cell * (n.x.abs() + n.y.abs()) + self.pad * n.length();
        let (x0, x1) = (
            self.cell_of(blo.x, self.cols),
            self.cell_of(bhi.x, self.cols),
        );
        let (y0, y1) = (
            self.cell_of(blo.y, self.rows),
            self.cell_of(bhi.y, self.rows),
        );
        for y in y0.max(ys.0)..=y1.min(ys.1) {
            for x in x0.max(xs.0)..=x1.min(xs.1) {
                if n.dot(self.centre(x, y) - a).abs() <= reach {
                    f(y * self.cols + x);
                }
            }
        }
    }

    /// [`WalkableCells::mark_in`] over every cell.
    fn mark(&self, a: DVec2, b: DVec2, f: impl FnMut(usize)) {
        self.mark_in(a, b, (0, self.cols - 1), (0, self.rows - 1), f);
    }

    /// Measures again the cells that the triangles of `boxes` (each changed by an
    /// edit, as it was or as it is) cover, the walls now on `grid` and `walls`, the
    /// hull's edges `hull` (`hull_changed`: since the bitmap was built or updated),
    /// so that the bitmap is the one [`WalkableCells::new`] builds for `mesh`: a cell
    /// is marked when no wall or hull edge comes within the pad of it and its centre
    /// is walkable (which the build's row scan finds too).
    pub(crate) fn update(
        &mut self,
        mesh: &NavMesh,
        grid: &WallGrid,
        walls: &[Segment],
        hull: &[(DVec2, DVec2)],
        hull_changed: bool,
        boxes: &[(DVec2, DVec2)],
    ) {
        if self.bits.is_empty() {
            return;
        }
        if hull_changed {
            let mut near = vec![0u64; self.hull_near.len()];
            for &(a, b) in hull {
                self.mark(a, b, |c| set(&mut near, c));
            }
            self.hull_near = near;
        }
        // The boxes' cells, grown by a cell (an edge marks only cells its box grown
        // by the pad meets): boxes that meet merged, so that a cell is measured once.
        let mut ranges: Vec<[usize; 4]> = boxes
            .iter()
            .map(|&(lo, hi)| {
                let (lo, hi) = (lo - self.pad - self.origin, hi + self.pad - self.origin);
                [
                    self.cell_of(lo.x, self.cols).saturating_sub(1),
                    self.cell_of(lo.y, self.rows).saturating_sub(1),
                    (self.cell_of(hi.x, self.cols) + 1).min(self.cols - 1),
                    (self.cell_of(hi.y, self.rows) + 1).min(self.rows - 1),
                ]
            })
            .collect();
        merge_ranges(&mut ranges);
        let mut near = Vec::new();
        let mut found = Vec::new();
        let mut hint = TriangleId(0);
        for [x0, y0, x1, y1] in ranges {
            let cols = x1 - x0 + 1;
            near.clear();
            near.resize(cols * (y1 - y0 + 1), false);
            // The walls that can mark these cells: an edge marks a cell only when the
            // cell meets its box grown by the pad and its line, so the edge passes
            // within the cell's diagonal of it.
            let lo = self.origin + DVec2::new(x0 as f64, y0 as f64) * self.cell;
            let hi = self.origin + DVec2::new((x1 + 1) as f64, (y1 + 1) as f64) * self.cell;
            let grow = 2.0 * self.cell + 2.0 * self.pad;
            found.clear();
            grid.for_each_row_in_box((lo - grow).as_vec2(), (hi + grow).as_vec2(), |items| {
                found.extend_from_slice(items)
            });
            found.sort_unstable();
            found.dedup();
            for &w in &found {
                let w = walls[w as usize];
                self.mark_in(w.a.as_dvec2(), w.b.as_dvec2(), (x0, x1), (y0, y1), |c| {
                    let (x, y) = (c % self.cols, c / self.cols);
                    near[(y - y0) * cols + (x - x0)] = true;
                });
            }
            for (y, x) in (y0..=y1).flat_map(|y| (x0..=x1).map(move |x| (y, x))) {
                let c = y * self.cols + x;
                near[(y - y0) * cols + (x - x0)] |= get(&self.hull_near, c);
            }
            // As the build's row scan: an unmarked cell's class is its left or lower
            // neighbour's when that is unmarked too (in the window), else its centre's.
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = y * self.cols + x;
                    let i = (y - y0) * cols + (x - x0);
                    let walkable = if near[i] {
                        false
                    } else if x > x0 && !near[i - 1] {
                        get(&self.bits, c - 1)
                    } else if y > y0 && !near[i - cols] {
                        get(&self.bits, c - self.cols)
                    } else {
                        self.centre_walkable(mesh, x, y, &mut hint)
                    };
                    let word = &mut self.bits[c / 64];
                    *word = (*word & !(1 << (c % 64))) | u64::from(walkable) << (c % 64);
                }
            }
        }
    }

    /// Whether `self` and `other` lie on the same cells and mark the same ones.
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &WalkableCells) -> bool {
        self.origin.to_array().map(f64::to_bits) == other.origin.to_array().map(f64::to_bits)
            && self.cell.to_bits() == other.cell.to_bits()
            && (self.cols, self.rows) == (other.cols, other.rows)
            && self.bits == other.bits
            && self.hull_near == other.hull_near
    }

    /// `true` when `p` surely lies in walkable space; `false` says nothing.
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

    /// The share of the bitmap's cells that are marked (for tests).
    #[cfg(test)]
    pub(crate) fn marked_share(&self) -> f64 {
        let marked: u32 = self.bits.iter().map(|w| w.count_ones()).sum();
        f64::from(marked) / (self.cols * self.rows).max(1) as f64
    }
}

/// Merges the cell ranges (`[x0, y0, x1, y1]`, inclusive) that meet into their
/// bounding range, until none meet.
fn merge_ranges(ranges: &mut Vec<[usize; 4]>) {
    let meets = |a: &[usize; 4], b: &[usize; 4]| {
        a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
    };
    let mut merged = true;
    while merged {
        merged = false;
        let mut out: Vec<[usize; 4]> = Vec::with_capacity(ranges.len());
        for r in ranges.drain(..) {
            match out.iter_mut().find(|o| meets(o, &r)) {
                Some(o) => {
                    *o = [
                        o[0].min(r[0]),
                        o[1].min(r[1]),
                        o[2].max(r[2]),
                        o[3].max(r[3]),
                    ];
                    merged = true;
                }
                None => out.push(r),
            }
        }
        *ranges = out;
    }
}
