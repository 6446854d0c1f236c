//! What [`NavMesh::raycast`](crate::mesh::NavMesh::raycast) builds once per disc
//! radius, on first use at that radius, and keeps with the mesh's query index (for
//! [`MAX_RADII`](super::radius::MAX_RADII) radii): a grid whose every cell lists the
//! walls within `r` of it (and a rounding pad more), each with its ends.
//!
//! A disc of radius `r` swept along a ray first touches a wall at some time `t`; its
//! centre then lies in a cell the ray's segment crosses, and the wall within `r` of
//! that centre, so in that cell's list. The raycast therefore walks the cells the
//! segment crosses, in order (a digital differential analyser: no predicate, so no
//! case it cannot tell), tests each listed wall, and stops once the best touch lies no
//! later than the cell being left: every later cell holds later touches only. The
//! answer is the least time over all walls (ties to the lowest wall index), as a test
//! of every wall gives it; the lists hold the Minkowski sum of the walls and the disc,
//! so the walk follows a line, not a band of width `2r`.
//!
//! A wall appears in the lists of every cell within `r` of it: the cells are a few
//! walls' worth wide, so that a list is short and a ray crosses few cells.

use super::radius::PerRadius;
use super::walkable::{self, WalkableCells};
use super::{capsule_entry, Wall64};
use crate::geom::{segments_distance_squared_f64, Segment};
use crate::mesh::navmesh::NavMesh;
use glam::{DVec2, Vec2};

/// Walls per cell of the ray grid, as the query grid counts them (each in the cells it
/// crosses): on aurora at r = 1, from half to four of them cost about the same
/// (instructions per ray within 10 %); one is the least.
pub(crate) const WALLS_PER_CELL: f32 = 1.0;

/// A wall in a cell's list: its ends and its index among the query index's walls.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct RayWall {
    a: Vec2,
    b: Vec2,
    wall: u32,
}

/// The per-radius grid of walls within reach: see the [module](self)'s notes.
#[derive(Clone, Debug)]
pub(crate) struct RayGrid {
    /// The disc radius.
    radius: f64,
    /// The low corner of cell `(0, 0)`.
    origin: DVec2,
    /// The cells' side, and its inverse.
    cell: f64,
    inv_cell: f64,
    cols: i64,
    rows: i64,
    /// The cells, row by row.
    cells: Vec<RayCell>,
    items: Vec<RayWall>,
}

/// A cell of the ray grid: where its walls are in the grid's list, and which of its
/// 8 × 8 sub-cells lie wholly in walkable space, so that a raycast learns that its
/// start is walkable from the line of memory it reads the start cell's walls from.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct RayCell {
    /// Bit `8 j + i`: sub-cell `(i, j)` (from the cell's low corner) lies wholly in
    /// walkable space, as [`WalkableCells`] marks cells.
    walkable: u64,
    /// The cell's walls are `items[start..end]`.
    start: u32,
    end: u32,
}

/// Sub-cells of a ray grid's cell along each side (see [`RayCell`]).
const SUB: usize = 8;

impl PerRadius for RayGrid {
    fn radius(&self) -> f64 {
        self.radius
    }
}

/// The least squared distance between segment `a b` and the closed box `lo..hi`.
fn segment_box_distance_squared(a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> f64 {
    let inside = |p: DVec2| p.cmpge(lo).all() && p.cmple(hi).all();
    if inside(a) || inside(b) {
        return 0.0;
    }
    let corners = [lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)];
    (0..4)
        .map(|k| segments_distance_squared_f64(a, b, corners[k], corners[(k + 1) % 4]))
        .fold(f64::INFINITY, f64::min)
}

impl RayGrid {
    /// The grid for radius `r` over `walls`, whose ends lie in the box `lo..hi`, with
    /// cells of side about `cell` (at least `r`); an empty grid (every ray left to the caller's
    /// search) when the lists would pass `u32` indices or the grid would be too large.
    pub(crate) fn new(r: f64, walls: &[Segment], lo: DVec2, hi: DVec2, cell: f64) -> RayGrid {
        Self::build(r, walls, lo, hi, cell).unwrap_or(RayGrid {
            radius: r,
            origin: DVec2::ZERO,
            cell: 1.0,
            inv_cell: 1.0,
            cols: 0,
            rows: 0,
            cells: Vec::new(),
            items: Vec::new(),
        })
    }

    /// [`RayGrid::new`] with each cell's walkable sub-cells marked on `mesh` (whose
    /// walls are `walls`): the grid [`NavMesh::raycast`] builds per radius. No sub-cell
    /// is marked when they would pass [`WalkableCells`]' size.
    pub(crate) fn for_mesh(
        mesh: &NavMesh,
        r: f64,
        walls: &[Segment],
        lo: DVec2,
        hi: DVec2,
        cell: f64,
    ) -> RayGrid {
        let mut grid = RayGrid::new(r, walls, lo, hi, cell);
        let (cols, rows) = (grid.cols as usize, grid.rows as usize);
        if (cols * rows).saturating_mul(SUB * SUB) > walkable::MAX_CELLS as usize {
            return grid;
        }
        let scale = 1.0 + lo.abs().max_element().max(hi.abs().max_element());
        let sub = WalkableCells::on_grid(
            mesh,
            grid.origin,
            grid.cell / SUB as f64,
            cols * SUB,
            rows * SUB,
            1e-6 * scale,
        );
        for (c, cell) in grid.cells.iter_mut().enumerate() {
            let (x, y) = (c % cols * SUB, c / cols * SUB);
            for k in 0..SUB * SUB {
                if sub.marked(x + k % SUB, y + k / SUB) {
                    cell.walkable |= 1 << k;
                }
            }
        }
        grid
    }

    fn build(r: f64, walls: &[Segment], lo: DVec2, hi: DVec2, cell: f64) -> Option<RayGrid> {
        let scale = 1.0 + r + lo.abs().max_element().max(hi.abs().max_element());
        // Rounding: a touch computed a few ulps off its true place still finds its wall.
        let pad = 1e-6 * scale;
        let reach = r + pad;
        // No narrower than r, so that a wall lies in a bounded number of cells.
        let cell = cell.max(1e-3 * scale).max(r);
        let origin = lo - (reach + cell);
        let extent = hi + (reach + cell) - origin;
        let (cols, rows) = (
            (extent.x / cell).ceil() + 1.0,
            (extent.y / cell).ceil() + 1.0,
        );
        let count = cols * rows;
        if count.is_nan() || count > crate::grid::MAX_CELLS as f64 {
            return None;
        }
        let (cols, rows) = (cols as i64, rows as i64);
        let inv_cell = 1.0 / cell;
        let cell_of = |x: f64, n: i64| ((x * inv_cell).floor() as i64).clamp(0, n - 1);
        // The cells of each wall: those of its box grown by the reach that lie within
        // the reach of it.
        let cells_of = |w: &Segment, f: &mut dyn FnMut(usize)| {
            let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
            let (blo, bhi) = (a.min(b) - reach - origin, a.max(b) + reach - origin);
            for y in cell_of(blo.y, rows)..=cell_of(bhi.y, rows) {
                for x in cell_of(blo.x, cols)..=cell_of(bhi.x, cols) {
                    let clo = origin + DVec2::new(x as f64, y as f64) * cell;
                    let chi = clo + DVec2::splat(cell);
                    if segment_box_distance_squared(a, b, clo, chi) <= reach * reach {
                        f((y * cols + x) as usize);
                    }
                }
            }
        };
        let mut starts = vec![0u32; (cols * rows) as usize + 1];
        let mut total = 0usize;
        for w in walls {
            cells_of(w, &mut |c| {
                starts[c + 1] += 1;
                total += 1;
            });
        }
        if total > u32::MAX as usize {
            return None;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let mut fill = starts.clone();
        let mut items = vec![
            RayWall {
                a: Vec2::ZERO,
                b: Vec2::ZERO,
                wall: 0
            };
            total
        ];
        for (i, w) in walls.iter().enumerate() {
            cells_of(w, &mut |c| {
                items[fill[c] as usize] = RayWall {
                    a: w.a,
                    b: w.b,
                    wall: i as u32,
                };
                fill[c] += 1;
            });
        }
        let cells = starts
            .windows(2)
            .map(|w| RayCell {
                walkable: 0,
                start: w[0],
                end: w[1],
            })
            .collect();
        Some(RayGrid {
            radius: r,
            origin,
            cell,
            inv_cell,
            cols,
            rows,
            cells,
            items,
        })
    }

    /// The first touch of the disc moving from `s` along `d` (from time 0 to 1): its
    /// time, wall index and wall; ties go to the lowest wall index. `Some(None)` when
    /// the way is clear; `None` when `s` lies outside the grid (the caller searches
    /// otherwise).
    ///
    /// The cells are walked by stepping the exit times by whole cells: their rounding
    /// (a few ulps of the times, a cell at a time) stays far within the pad the lists
    /// are grown by, so a cell the walk steps past by rounding near a corner lies
    /// within the pad of one it visits, whose list holds its walls.
    pub(crate) fn first_touch(&self, s: DVec2, d: DVec2) -> Option<Option<(f64, u32, Wall64)>> {
        let p = (s - self.origin) * self.inv_cell;
        // (Not NaN, inside the grid; then truncation is the floor.)
        if !(p.x >= 0.0 && p.y >= 0.0 && p.x < self.cols as f64 && p.y < self.rows as f64) {
            return None;
        }
        // (Below the grid's size: `u32` holds them, and converts faster than `usize`.)
        Some(self.walk(s, d, p.x as u32 as usize, p.y as u32 as usize))
    }

    /// [`RayGrid::first_touch`] when `s` lies in a sub-cell marked walkable (see
    /// [`RayGrid::for_mesh`]); `None` otherwise (the caller locates `s` and searches).
    #[inline]
    pub(crate) fn first_touch_from_walkable(
        &self,
        s: DVec2,
        d: DVec2,
    ) -> Option<Option<(f64, u32, Wall64)>> {
        let p = (s - self.origin) * self.inv_cell;
        if !(p.x >= 0.0 && p.y >= 0.0 && p.x < self.cols as f64 && p.y < self.rows as f64) {
            return None;
        }
        let (x, y) = (p.x as u32 as usize, p.y as u32 as usize);
        let cell = self.cells.get(y * self.cols as usize + x)?;
        // The sub-cell: `8 p` is exact, so it lies in `8 x .. 8 x + 8`.
        let (i, j) = (
            (p.x * SUB as f64) as u32 as usize - x * SUB,
            (p.y * SUB as f64) as u32 as usize - y * SUB,
        );
        if cell.walkable >> (j * SUB + i) & 1 == 0 {
            return None;
        }
        Some(self.walk(s, d, x, y))
    }

    /// The walk of [`RayGrid::first_touch`] from cell `(x, y)`, which holds `s`.
    #[inline]
    fn walk(&self, s: DVec2, d: DVec2, x: usize, y: usize) -> Option<(f64, u32, Wall64)> {
        let r = self.radius;
        let (cols, rows) = (self.cols as usize, self.rows as usize);
        let (mut x, mut y) = (x, y);
        let to = s + d;
        // (Every number here is finite: comparisons stand for `min` and `max`, which
        // would also handle NaN, at several instructions each.)
        let scale = 1.0 + r + larger(larger(s.x.abs(), s.y.abs()), larger(to.x.abs(), to.y.abs()));
        let slack = 1e-9 * scale;
        // A wall with both ends farther than this from the ray's line, on one side,
        // is not touched (the sides are times |d|).
        let beyond = (r + slack) * d.length();
        // Per axis: the step of the cell index, the time a step of one cell takes, and
        // the time the segment leaves the first cell through the side it heads to.
        let axis = |d: f64, s: f64, origin: f64, at: usize| {
            if d == 0.0 {
                return (0usize, f64::INFINITY, f64::INFINITY);
            }
            let inv = 1.0 / d;
            // (`at` is below the grid's columns or rows, far within `i64`.)
            let side = (at as i64 + i64::from(d > 0.0)) as f64;
            let step = if d > 0.0 { 1 } else { usize::MAX };
            (
                step,
                self.cell * inv.abs(),
                (origin + side * self.cell - s) * inv,
            )
        };
        let (step_x, delta_x, mut tx) = axis(d.x, s.x, self.origin.x, x);
        let (step_y, delta_y, mut ty) = axis(d.y, s.y, self.origin.y, y);
        // The steps of the cell's index.
        let (next_x, next_y) = (step_x, step_y.wrapping_mul(cols));
        let mut c = y * cols + x;
        let grow = r + slack;
        let side0 = d.perp_dot(s);
        let mut best: (f64, Option<(u32, Wall64)>) = (1.0, None);
        // The box of the ray up to the best touch, grown by r.
        let (mut blo, mut bhi) = grown_box(s, to, grow);
        while let Some(cell) = self.cells.get(c) {
            for w in self
                .items
                .get(cell.start as usize..cell.end as usize)
                .unwrap_or(&[])
            {
                let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
                let (oa, ob) = (d.perp_dot(a) - side0, d.perp_dot(b) - side0);
                if (oa > beyond && ob > beyond) || (oa < -beyond && ob < -beyond) {
                    continue;
                }
                if (a.x < blo.x && b.x < blo.x)
                    || (a.y < blo.y && b.y < blo.y)
                    || (a.x > bhi.x && b.x > bhi.x)
                    || (a.y > bhi.y && b.y > bhi.y)
                {
                    continue;
                }
                if let Some(t) = capsule_entry(s, d, a, b, r, best.0) {
                    // At most `best.0`: the earlier, or the lower wall at a tie.
                    if t < best.0 || best.1.is_none_or(|(v, _)| w.wall < v) {
                        best = (t, Some((w.wall, (a, b))));
                        (blo, bhi) = grown_box(s, s + d * t, grow);
                    }
                }
            }
            let exit = if tx < ty { tx } else { ty };
            if exit >= 1.0 || (best.1.is_some() && best.0 <= exit) {
                break;
            }
            if tx <= ty {
                x = x.wrapping_add(step_x);
                if x >= cols {
                    break;
                }
                c = c.wrapping_add(next_x);
                tx += delta_x;
            } else {
                y = y.wrapping_add(step_y);
                if y >= rows {
                    break;
                }
                c = c.wrapping_add(next_y);
                ty += delta_y;
            }
        }
        let (t, found) = best;
        found.map(|(w, wall)| (t, w, wall))
    }
}

/// The larger of two numbers that are not NaN.
#[inline]
fn larger(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// The box of `u` and `v` (not NaN) grown by `grow`.
#[inline]
fn grown_box(u: DVec2, v: DVec2, grow: f64) -> (DVec2, DVec2) {
    let lo = DVec2::new(
        if u.x < v.x { u.x } else { v.x },
        if u.y < v.y { u.y } else { v.y },
    );
    let hi = DVec2::new(larger(u.x, v.x), larger(u.y, v.y));
    (lo - grow, hi + grow)
}
