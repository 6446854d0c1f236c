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
//! A cell is marked when no wall (an edge that bounds walkable space, as
//! [`NavMesh::walls`] lists them: against a blocked triangle, the hull or a wall
//! within) comes within a pad of rounding of the closed cell, and the cell's centre is
//! walkable: a cell is
//! connected, so then every point of it, and every point a few ulps from it (which
//! rounding may map to it), is walkable too. An unmarked cell says nothing: the caller
//! locates the point as before. Unmarked cells next to each other share their class,
//! so a row scan locates only the first cell of each run.
//!
//! Built with each ray grid; after an edit, marked again only in the cells near the
//! triangles the edit changed (`Lattice::mark` on a window), to the bit what a build
//! afresh gives.

use crate::geom::Segment;
use crate::mesh::navmesh::{Location, NavMesh, TriangleId};
use glam::DVec2;

/// Most cells the bitmap gets (one bit each: 2 MB).
pub(crate) const MAX_CELLS: f64 = (1u64 << 24) as f64;

/// The bitmap: see the [module](self)'s notes. (Only the tests build it whole now: the
/// ray grids keep their sub-cells' bits, the nearest-point data its own bitmap, both
/// marked by [`Lattice::mark`].)
#[cfg(test)]
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

#[cfg(test)]
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
        match Lattice::over(lo, hi, cell, reach) {
            Some(l) if !mesh.triangles.is_empty() => {
                WalkableCells::on_grid(mesh, l.origin, l.cell, l.cols, l.rows, l.pad)
            }
            _ => WalkableCells::default(),
        }
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
        let mut bits = vec![0u64; n.div_ceil(64)];
        let lattice = Lattice {
            origin,
            cell,
            cols,
            rows,
            pad,
        };
        let walls: Vec<Segment> = mesh.walls().collect();
        lattice.mark(mesh, walls.iter(), [0, 0, cols, rows], |x, y| {
            let c = y * cols + x;
            bits[c / 64] |= 1 << (c % 64);
        });
        WalkableCells {
            origin,
            inv_cell: 1.0 / cell,
            cols,
            rows,
            bits,
        }
    }

    /// `true` when `p` surely lies in walkable space (clear of every wall by the reach
    /// the cells were built with); `false` says nothing.
    #[inline]
    pub(crate) fn surely_walkable(&self, p: DVec2) -> bool {
        bit_at(
            &self.bits,
            (p - self.origin) * self.inv_cell,
            self.cols,
            self.rows,
        )
    }

    /// The share of the bitmap's cells that are marked (for tests).
    #[cfg(test)]
    pub(crate) fn marked_share(&self) -> f64 {
        let marked: u32 = self.bits.iter().map(|w| w.count_ones()).sum();
        f64::from(marked) / (self.cols * self.rows).max(1) as f64
    }
}

/// The bit of cell `q` (a point in cell units from the origin) of a bitmap of `cols`
/// by `rows` cells, row by row, 64 to a word: `false` outside it (or for NaN).
#[cfg(test)]
#[inline]
pub(crate) fn bit_at(bits: &[u64], q: DVec2, cols: usize, rows: usize) -> bool {
    // (Not NaN, inside the bitmap; then truncation is the floor.)
    if !(q.x >= 0.0 && q.y >= 0.0 && q.x < cols as f64 && q.y < rows as f64) {
        return false;
    }
    let c = q.y as usize * cols + q.x as usize;
    bits.get(c / 64)
        .is_some_and(|&word| word >> (c % 64) & 1 != 0)
}

/// Windows of cells (`[x0, y0, x1, y1]`, ends excluded) that overlap or touch become
/// their bounding window, until none does.
pub(crate) fn merge_windows(windows: &mut Vec<[usize; 4]>) {
    let mut merged = true;
    while merged {
        merged = false;
        let mut k = 0;
        while k < windows.len() {
            let w = windows[k];
            if let Some(j) = (k + 1..windows.len()).find(|&j| {
                let v = windows[j];
                w[0] <= v[2] && v[0] <= w[2] && w[1] <= v[3] && v[1] <= w[3]
            }) {
                let v = windows.swap_remove(j);
                windows[k] = [
                    w[0].min(v[0]),
                    w[1].min(v[1]),
                    w[2].max(v[2]),
                    w[3].max(v[3]),
                ];
                merged = true;
            } else {
                k += 1;
            }
        }
    }
}

/// The walls `grid` lists in the box `lo..hi`, each once and in order, into `out`.
pub(crate) fn walls_in_box(grid: &crate::grid::WallGrid, lo: DVec2, hi: DVec2, out: &mut Vec<u32>) {
    out.clear();
    grid.for_each_row_in_box(lo.as_vec2(), hi.as_vec2(), |row| out.extend_from_slice(row));
    out.sort_unstable();
    out.dedup();
}

/// The cells of a bitmap: `cols` × `rows` cells of side `cell` from `origin`, a cell
/// marked only when no parting edge comes within `pad` of it (by [`Lattice::mark`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lattice {
    pub origin: DVec2,
    pub cell: f64,
    pub cols: usize,
    pub rows: usize,
    pub pad: f64,
}

impl Lattice {
    /// The lattice of cells of about `cell` over the box `lo..hi` with a cell and more
    /// to spare around it (wider when the bitmap would pass [`MAX_CELLS`], and wide
    /// enough that a centre rounded to `f32` stays well inside its cell), a cell marked
    /// only when no edge comes within `reach` (and a rounding margin) of it; `None`
    /// when the box is empty or not finite.
    pub(crate) fn over(lo: DVec2, hi: DVec2, cell: f64, reach: f64) -> Option<Lattice> {
        let size = hi - lo;
        let scale = 1.0 + lo.abs().max_element().max(hi.abs().max_element());
        if !(size.x >= 0.0 && size.y >= 0.0 && scale.is_finite()) {
            return None;
        }
        let fit = ((size.x + 2.0) * (size.y + 2.0) / MAX_CELLS).sqrt();
        let cell = cell.max(1e-3 * scale).max(fit);
        let origin = lo - cell;
        (cell > 0.0 && origin.is_finite()).then(|| Lattice {
            origin,
            cell,
            cols: (size.x / cell).ceil() as usize + 3,
            rows: (size.y / cell).ceil() as usize + 3,
            pad: reach + 1e-6 * scale,
        })
    }

    /// The walls of `grid` that can mark a cell of `window`, counted in cells of side
    /// `cell` from the lattice's origin (its own, or coarser ones holding a whole
    /// number of its cells): those within the pad and a cell of it (grown a cell more
    /// against rounding), into `near`.
    pub(crate) fn walls_near(
        &self,
        grid: &crate::grid::WallGrid,
        [x0, y0, x1, y1]: [usize; 4],
        cell: f64,
        near: &mut Vec<u32>,
    ) {
        let margin = self.pad + 2.0 * cell;
        let lo = self.origin + DVec2::new(x0 as f64, y0 as f64) * cell - margin;
        let hi = self.origin + DVec2::new(x1 as f64, y1 as f64) * cell + margin;
        walls_in_box(grid, lo, hi, near);
    }

    /// Calls `marked(x, y)` for each cell of the window `[x0, y0, x1, y1)` that lies
    /// wholly in walkable space, row by row, given the mesh's `walls` (those near the
    /// window at least: the edges that bound walkable space, as [`NavMesh::walls`]
    /// lists them): the same cells, by the same arithmetic, as the whole bitmap marks
    /// there (so a window brings a part of a bitmap up to date after an edit, to the
    /// bit). A cell is marked when no wall comes within the pad of it and its centre is
    /// walkable.
    pub(crate) fn mark<'w>(
        &self,
        mesh: &NavMesh,
        walls: impl Iterator<Item = &'w Segment>,
        window: [usize; 4],
        mut marked: impl FnMut(usize, usize),
    ) {
        self.mark_classes(mesh, walls, window, |x, y, walkable| {
            if walkable {
                marked(x, y);
            }
        });
    }

    /// [`Lattice::mark`], also calling `classed(x, y, false)` for each cell of the window
    /// that lies wholly outside walkable space (no wall within the pad of it, its
    /// centre blocked or off the mesh), and `classed(x, y, true)` for each it marks.
    pub(crate) fn mark_classes<'w>(
        &self,
        mesh: &NavMesh,
        walls: impl Iterator<Item = &'w Segment>,
        [x0, y0, x1, y1]: [usize; 4],
        mut classed: impl FnMut(usize, usize, bool),
    ) {
        let (x1, y1) = (x1.min(self.cols), y1.min(self.rows));
        if x0 >= x1 || y0 >= y1 || mesh.triangles.is_empty() {
            return;
        }
        let (origin, cell, pad) = (self.origin, self.cell, self.pad);
        let (w, h) = (x1 - x0, y1 - y0);
        let inv_cell = 1.0 / cell;
        let cell_of =
            |x: f64, count: usize| ((x * inv_cell).floor().max(0.0) as usize).min(count - 1);
        // The cells within `pad` of a wall.
        let mut mixed = vec![false; w * h];
        let (wlo, whi) = (
            origin + DVec2::new(x0 as f64, y0 as f64) * cell - pad - cell,
            origin + DVec2::new(x1 as f64, y1 as f64) * cell + pad + cell,
        );
        for wall in walls {
            let (a, b) = (wall.a.as_dvec2(), wall.b.as_dvec2());
            if a.x.max(b.x) < wlo.x
                || a.y.max(b.y) < wlo.y
                || a.x.min(b.x) > whi.x
                || a.y.min(b.y) > whi.y
            {
                continue;
            }
            let (blo, bhi) = (a.min(b) - pad - origin, a.max(b) + pad - origin);
            // The cells of the edge's box (grown by the pad) that meet the band of
            // its line grown by the pad and the half-cell's reach across it: a
            // separating-axis test, which marks every cell within the pad of the
            // edge (and a few more at its ends, which only costs look-ups).
            let n = (b - a).perp();
            let reach = 0.5 * cell * (n.x.abs() + n.y.abs()) + pad * n.length();
            let (ya, yb) = (cell_of(blo.y, self.rows).max(y0), cell_of(bhi.y, self.rows));
            let (xa, xb) = (cell_of(blo.x, self.cols).max(x0), cell_of(bhi.x, self.cols));
            for y in ya..=yb.min(y1 - 1) {
                for x in xa..=xb.min(x1 - 1) {
                    let centre = origin + (DVec2::new(x as f64, y as f64) + 0.5) * cell;
                    if n.dot(centre - a).abs() <= reach {
                        mixed[(y - y0) * w + (x - x0)] = true;
                    }
                }
            }
        }
        // The class of each other cell: its left or lower neighbour's when that is
        // unmarked too (and in the window), else its centre's. Unmixed neighbours
        // share their class, so this is the class of every cell's centre.
        let mut walkable = vec![false; w * h];
        let mut hint = TriangleId(0);
        for y in 0..h {
            for x in 0..w {
                let c = y * w + x;
                if mixed[c] {
                    continue;
                }
                walkable[c] = if x > 0 && !mixed[c - 1] {
                    walkable[c - 1]
                } else if y > 0 && !mixed[c - w] {
                    walkable[c - w]
                } else {
                    let centre =
                        origin + (DVec2::new((x + x0) as f64, (y + y0) as f64) + 0.5) * cell;
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
                classed(x + x0, y + y0, walkable[c]);
            }
        }
    }
}
