//! What [`NavMesh::raycast`](crate::mesh::NavMesh::raycast) builds once per disc
//! radius, on first use at that radius, and keeps with the mesh's query index (for
//! [`MAX_RADII`](super::radius::MAX_RADII) radii): a grid whose every cell lists the
//! walls within `r` of it (and a rounding pad more), by index into the grid's one copy
//! of the walls' ends.
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
//! walls' worth wide, so that a list is short and a ray crosses few cells. Its ends are
//! kept once, whatever the number of cells listing it (at r = 1 on aurora, two to
//! three): a listing is 4 bytes instead of 20 with the ends, for the same speed.
//! At radii of a quarter of a cell and more ([`FLAGS_FROM`]), a listing holds above
//! the wall's index four flags, one per side: whether the cell across that side lists
//! the wall too. The walk enters a cell from one of those, where it culled or tested
//! every wall listed, and skips those listed there too, without their exact test (see
//! [`FROM_LEFT`]: a second look at a wall cannot change the answer). The larger the
//! radius, the more of a cell's walls its neighbours list. The flag of the side the
//! walk came by joins the cull's branch rather than taking a branch of its own: which
//! listings a neighbour shares changes from one to the next, and that branch
//! mispredicted more than the culls it spared cost. On aurora the skips save about 5 %
//! of a raycast's time at r = 1.5 and a few per cent at r = 2 and 2.5; at r = 1 and
//! below they saved less than they cost, and the grid keeps no flags there.
//!
//! Before its exact test a listed wall goes through a cull in the ray's frame: its two
//! ends' coordinates along the ray and across it, in four `f32` lanes, against bounds
//! widened past their rounding, and one branch (see `Cull`). It drops only walls the
//! exact test would not find, so the answers are those of the exact test of every
//! listed wall.
//!
//! The walk steps over the cells that list no wall before it sets up the cull (a
//! third of the rays meet none), and calls the exact test with a calling convention
//! whose callee keeps the registers the walk holds (see `touch_time`).
//!
//! On aurora at r = 1: 36 300 cells of 4.7 m, 85 300 listings, 1.33 MB with the
//! walkable sub-cells' marks, built in about 23 ms (the marks two thirds of it). A ray
//! meets about five cells (one of them listing walls), six and a half listings and 1.2
//! exact tests, at about 890 instructions a query (callgrind; Detour's raycast 964);
//! crossing squares of empty cells in one step, and testing a cell's walls four at a
//! time in `f32` lanes, were measured slower (`docs/benchmarks.md`, mesh queries).

use super::radius::PerRadius;
use super::walkable::{self, merge_windows, Lattice};
use super::{capsule_entry, Wall64};
use crate::geom::{closest_point_f64, segments_distance_squared_f64, Segment};
use crate::grid::WallGrid;
use crate::mesh::navmesh::NavMesh;
use glam::{DVec2, Vec4, Vec4Swizzles};

/// Walls per cell of the ray grid, as the query grid counts them (each in the cells it
/// crosses): on aurora at r = 1, from half to four of them cost about the same
/// (instructions per ray within 10 %); one is the least.
pub(crate) const WALLS_PER_CELL: f32 = 1.0;

/// A wall of the ray grid: its ends `a` and `b`, as `(a.x, a.y, b.x, b.y)` in one
/// vector, which the walk's cull reads in one load.
#[derive(Clone, Copy, Debug, Default)]
struct RayWall(Vec4);

impl RayWall {
    fn new(w: &Segment) -> RayWall {
        RayWall(Vec4::new(w.a.x, w.a.y, w.b.x, w.b.y))
    }

    /// The ends in `f64`.
    fn ends(self) -> Wall64 {
        (self.0.xy().as_dvec2(), self.0.zw().as_dvec2())
    }
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
    /// The grid's columns and rows, as integers and (for the raycast's test that its
    /// start lies in the grid) as `f64`.
    cols: i64,
    rows: i64,
    size: DVec2,
    /// Cell `c` (row by row) lists the walls `items[starts[c]..starts[c + 1]]`
    /// (indices into `walls`).
    starts: Vec<u32>,
    /// Per cell: which of its 8 × 8 sub-cells lie wholly in walkable space, so that a
    /// raycast learns that its start is walkable from one read. Bit `8 j + i`:
    /// sub-cell `(i, j)` (from the cell's low corner), as
    /// [`Lattice::mark`] marks cells.
    walkable: Vec<u64>,
    /// The cells' lists, one after the other.
    items: Vec<u32>,
    /// The walls' ends, by index: each stored once, however many cells list it.
    walls: Vec<RayWall>,
    /// The largest magnitude of a coordinate of the walls' ends (for the bound on the
    /// rounding of the walk's cull in `f32`).
    extent: f64,
    /// How far from a wall a cell may lie and list it: the radius and a rounding pad.
    reach: f64,
    /// The pad of the sub-cells' marks (see [`RayGrid::for_mesh`]), when they are kept.
    marks: Option<f64>,
    /// Whether the listings carry the flags of their neighbours (see [`FROM_LEFT`]):
    /// for radii of at least [`FLAGS_FROM`] cells.
    flags: bool,
    /// The lists before the last patch, as buffers for the next.
    spare: Spare,
}

/// A ray grid's lists before its last patch, as buffers for the next (so that it
/// finds its pages mapped). A clone of the grid starts without them.
#[derive(Debug, Default)]
struct Spare(Vec<u32>, Vec<u32>);

impl Clone for Spare {
    fn clone(&self) -> Self {
        Spare::default()
    }
}

/// The ray grid's copy of `walls`.
fn wall_ends(walls: &[Segment]) -> Vec<RayWall> {
    walls.iter().map(RayWall::new).collect()
}

/// The largest magnitude of a coordinate of `walls`' ends (0 for none; infinite or NaN
/// never, as the walls' ends are finite).
fn largest_coordinate(walls: &[RayWall]) -> f64 {
    let most = walls
        .iter()
        .fold(Vec4::ZERO, |m, w| m.max(w.0.abs()))
        .max_element();
    f64::from(most)
}

/// Sub-cells of a ray grid's cell along each side (see `RayGrid::walkable`).
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
        Self::build(r, walls, lo, hi, cell).unwrap_or_else(|| RayGrid::empty(r))
    }

    /// The grid of no cells, which leaves every ray to the caller's search.
    fn empty(r: f64) -> RayGrid {
        RayGrid {
            radius: r,
            origin: DVec2::ZERO,
            cell: 1.0,
            inv_cell: 1.0,
            cols: 0,
            rows: 0,
            size: DVec2::ZERO,
            starts: Vec::new(),
            walkable: Vec::new(),
            items: Vec::new(),
            walls: Vec::new(),
            extent: 0.0,
            reach: r,
            marks: None,
            flags: false,
            spare: Spare::default(),
        }
    }

    /// [`RayGrid::new`] with each cell's walkable sub-cells marked on `mesh` (whose
    /// walls are `walls`): the grid [`NavMesh::raycast`] builds per radius. No sub-cell
    /// is marked when they would pass the walkable bitmap's size
    /// ([`walkable::MAX_CELLS`]).
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
        if cols == 0
            || rows == 0
            || cols.saturating_mul(rows).saturating_mul(SUB * SUB) > walkable::MAX_CELLS as usize
        {
            return grid;
        }
        let scale = 1.0 + lo.abs().max_element().max(hi.abs().max_element());
        grid.marks = Some(1e-6 * scale);
        grid.mark(mesh, walls.iter(), [0, 0, cols, rows]);
        grid
    }

    /// The lattice of the sub-cells, when their marks are kept.
    fn lattice(&self) -> Option<Lattice> {
        self.marks.map(|pad| Lattice {
            origin: self.origin,
            cell: self.cell / SUB as f64,
            cols: self.cols as usize * SUB,
            rows: self.rows as usize * SUB,
            pad,
        })
    }

    /// Marks again the walkable sub-cells of the cells of the window
    /// `[x0, y0, x1, y1)` on `mesh`, as
    /// [`Lattice::mark`] marks a whole bitmap.
    fn mark<'w>(
        &mut self,
        mesh: &NavMesh,
        walls: impl Iterator<Item = &'w Segment>,
        [x0, y0, x1, y1]: [usize; 4],
    ) {
        let Some(lattice) = self.lattice() else {
            return;
        };
        let cols = self.cols as usize;
        for y in y0..y1 {
            for cell in &mut self.walkable[y * cols + x0..y * cols + x1] {
                *cell = 0;
            }
        }
        let cells = &mut self.walkable;
        let window = [x0 * SUB, y0 * SUB, x1 * SUB, y1 * SUB];
        lattice.mark(mesh, walls, window, |x, y| {
            if let Some(cell) = cells.get_mut(y / SUB * cols + x / SUB) {
                *cell |= 1 << (y % SUB * SUB + x % SUB);
            }
        });
    }

    /// After an edit of `mesh` (and [`RayGrid::patch`]), marks again the walkable
    /// sub-cells of the cells near `boxes` (the boxes of the triangles the edit changed,
    /// as they were and as they are): only there can a wall or a triangle's
    /// walkability have changed. Nearby boxes are marked in one window, with the walls
    /// (the mesh's, `walls`) that `grid` (over them) lists near it.
    pub(crate) fn remark(
        &mut self,
        mesh: &NavMesh,
        walls: &[Segment],
        grid: &WallGrid,
        boxes: &[(DVec2, DVec2)],
    ) {
        let Some(lattice) = self.lattice() else {
            return;
        };
        let (cols, rows) = (self.cols as usize, self.rows as usize);
        if cols == 0 || rows == 0 {
            return;
        }
        // A wall marks the sub-cells within the pad and half a sub-cell of it.
        let grow = lattice.pad + 2.0 * lattice.cell;
        let cell_of = |x: f64, n: usize| ((x * self.inv_cell).floor().max(0.0) as usize).min(n - 1);
        let mut windows: Vec<[usize; 4]> = boxes
            .iter()
            .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
            .map(|&(lo, hi)| {
                let (lo, hi) = (lo - grow - self.origin, hi + grow - self.origin);
                [
                    cell_of(lo.x, cols),
                    cell_of(lo.y, rows),
                    cell_of(hi.x, cols) + 1,
                    cell_of(hi.y, rows) + 1,
                ]
            })
            .collect();
        merge_windows(&mut windows);
        windows.sort_unstable();
        let mut near: Vec<u32> = Vec::new();
        for window in windows {
            // The window counts the grid's cells (each holds SUB × SUB sub-cells).
            lattice.walls_near(grid, window, self.cell, &mut near);
            let near_walls = near.iter().filter_map(|&k| walls.get(k as usize));
            self.mark(mesh, near_walls, window);
        }
    }

    fn build(r: f64, walls: &[Segment], lo: DVec2, hi: DVec2, cell: f64) -> Option<RayGrid> {
        let scale = 1.0 + r + lo.abs().max_element().max(hi.abs().max_element());
        // Rounding: a touch computed a few ulps off its true place still finds its wall.
        let pad = 1e-6 * scale;
        let reach = r + pad;
        // No narrower than r, so that a wall lies in a bounded number of cells.
        let cell = cell.max(1e-3 * scale).max(r);
        let flags = r >= FLAGS_FROM * cell;
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
        let mut grid = RayGrid {
            radius: r,
            origin,
            cell,
            inv_cell: 1.0 / cell,
            cols: cols as i64,
            rows: rows as i64,
            size: DVec2::new(cols, rows),
            starts: Vec::new(),
            walkable: Vec::new(),
            items: Vec::new(),
            walls: Vec::new(),
            extent: 0.0,
            reach,
            marks: None,
            flags,
            spare: Spare::default(),
        };
        let mut starts = vec![0u32; (cols * rows) as usize + 1];
        let mut total = 0usize;
        for w in walls {
            grid.cells_of(w, &mut |c| {
                starts[c + 1] += 1;
                total += 1;
            });
        }
        // (Fewer walls than `INDEX` too: a listing keeps the index in those bits, and
        // the walk takes `u32::MAX` for none.)
        if total > u32::MAX as usize || walls.len() >= INDEX as usize {
            return None;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; total];
        let mut cells = Vec::new();
        for (i, w) in walls.iter().enumerate() {
            grid.listings(w, i as u32, &mut cells);
            for &(c, item) in &cells {
                items[fill[c as usize] as usize] = item;
                fill[c as usize] += 1;
            }
        }
        grid.walkable = vec![0; starts.len() - 1];
        grid.starts = starts;
        grid.items = items;
        grid.walls = wall_ends(walls);
        grid.extent = largest_coordinate(&grid.walls);
        Some(grid)
    }

    /// Calls `f` with the cells of wall `w`: those of its box grown by the reach that
    /// lie within the reach of it.
    fn cells_of(&self, w: &Segment, f: &mut dyn FnMut(usize)) {
        let (origin, cell, reach) = (self.origin, self.cell, self.reach);
        let cell_of = |x: f64, n: i64| ((x * self.inv_cell).floor() as i64).clamp(0, n - 1);
        let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
        let (blo, bhi) = (a.min(b) - reach - origin, a.max(b) + reach - origin);
        for y in cell_of(blo.y, self.rows)..=cell_of(bhi.y, self.rows) {
            for x in cell_of(blo.x, self.cols)..=cell_of(bhi.x, self.cols) {
                let clo = origin + DVec2::new(x as f64, y as f64) * cell;
                let chi = clo + DVec2::splat(cell);
                if segment_box_distance_squared(a, b, clo, chi) <= reach * reach {
                    f((y * self.cols + x) as usize);
                }
            }
        }
    }

    /// Sets `out` to the cells of wall `w` (as [`RayGrid::cells_of`] calls them), each
    /// with its listing of `w` as wall `i`: `i`, and the flags of the neighbours that
    /// list `w` too when the grid keeps them (see [`FROM_LEFT`]).
    fn listings(&self, w: &Segment, i: u32, out: &mut Vec<(u32, u32)>) {
        out.clear();
        self.cells_of(w, &mut |c| out.push((c as u32, i)));
        if !self.flags {
            return;
        }
        // (Increasing, as `cells_of` calls them: a binary search finds a neighbour.)
        let cols = self.cols as u32;
        let has = |out: &[(u32, u32)], c: u32| out.binary_search_by_key(&c, |&(c, _)| c).is_ok();
        for n in 0..out.len() {
            let c = out[n].0;
            let (x, y) = (c % cols, c / cols);
            let mut flags = 0;
            if x > 0 && has(out, c - 1) {
                flags |= FROM_LEFT;
            }
            if x + 1 < cols && has(out, c + 1) {
                flags |= FROM_RIGHT;
            }
            if y > 0 && has(out, c - cols) {
                flags |= FROM_BELOW;
            }
            if has(out, c + cols) {
                flags |= FROM_ABOVE;
            }
            out[n].1 |= flags;
        }
    }

    /// Follows a change of the walls, exactly as [`RayGrid::new`] on the same cells
    /// would build the grid's lists over `walls` (the new list): the old wall `i` (of
    /// `old_walls`) is now `remap[i]` (`u32::MAX` for a wall gone; the walls kept keep
    /// their order), and `added` (increasing) are the indices in `walls` of the new
    /// ones. The cells a wall gone or added reaches are made again; the runs of other
    /// cells between them are copied, their walls renumbered. The sub-cells' marks are
    /// kept: [`RayGrid::remark`] brings them up to date.
    pub(crate) fn patch(
        &mut self,
        old_walls: &[Segment],
        walls: &[Segment],
        remap: &[u32],
        added: &[u32],
    ) {
        if self.cols == 0 {
            return;
        }
        if walls.len() >= INDEX as usize {
            // (As `RayGrid::new` builds it: a listing keeps the index in `INDEX`.)
            *self = RayGrid::empty(self.radius);
            return;
        }
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut cells = Vec::new();
        for &j in added {
            if let Some(w) = walls.get(j as usize) {
                self.listings(w, j, &mut cells);
                pairs.extend_from_slice(&cells);
            }
        }
        // (By cell, then by wall: the flags above the index do not order.)
        pairs.sort_unstable_by_key(|&(c, item)| (c, item & INDEX));
        let mut touched: Vec<u32> = pairs.iter().map(|&(c, _)| c).collect();
        for (w, &j) in old_walls.iter().zip(remap) {
            if j == u32::MAX {
                self.cells_of(w, &mut |c| touched.push(c as u32));
            }
        }
        touched.sort_unstable();
        touched.dedup();
        // A listing's flags are its wall's, whose cells a kept wall keeps: only the
        // index changes (`u32::MAX` for a wall gone).
        let renumber = |k: &u32| match remap.get((k & INDEX) as usize) {
            Some(&j) if j != u32::MAX => j | k & !INDEX,
            _ => u32::MAX,
        };
        // Into the buffers of the last patch (no fresh pages to fault in).
        let Spare(mut starts, mut items) = std::mem::take(&mut self.spare);
        starts.clear();
        items.clear();
        starts.reserve(self.starts.len());
        items.reserve(self.items.len() + pairs.len());
        let cells = self.starts.len().saturating_sub(1);
        starts.push(0);
        // Copies the untouched cells `from..to`: their walls all kept, renumbered.
        let copy = |starts: &mut Vec<u32>, items: &mut Vec<u32>, from: usize, to: usize| {
            let Some(run) = self.starts.get(from..=to).filter(|_| from < to) else {
                return;
            };
            let (a, b) = (run[0] as usize, run[run.len() - 1] as usize);
            let shift = items.len() as u32;
            items.extend(self.items[a..b].iter().map(renumber));
            starts.extend(run[1..].iter().map(|&e| e - a as u32 + shift));
        };
        let (mut from, mut next) = (0usize, 0usize);
        for &c in &touched {
            let c = c as usize;
            copy(&mut starts, &mut items, from, c);
            let first = next;
            while pairs.get(next).is_some_and(|&(cell, _)| cell as usize == c) {
                next += 1;
            }
            let mut adds = pairs[first..next].iter().map(|&(_, k)| k).peekable();
            let (a, b) = (self.starts[c] as usize, self.starts[c + 1] as usize);
            for k in self.items[a..b].iter().map(renumber) {
                if k == u32::MAX {
                    continue;
                }
                while let Some(j) = adds.next_if(|&j| j & INDEX < k & INDEX) {
                    items.push(j);
                }
                items.push(k);
            }
            items.extend(adds);
            starts.push(items.len() as u32);
            from = c + 1;
        }
        copy(&mut starts, &mut items, from, cells);
        let starts = std::mem::replace(&mut self.starts, starts);
        let items = std::mem::replace(&mut self.items, items);
        self.spare = Spare(starts, items);
        self.walls.clear();
        self.walls.extend(walls.iter().map(RayWall::new));
        self.extent = largest_coordinate(&self.walls);
    }

    /// Whether `self` and `other` lie on the same cells, list the same walls in each,
    /// in the same order, and mark the same sub-cells walkable.
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &RayGrid) -> bool {
        let item = |w: &RayWall| w.0.to_array().map(f32::to_bits);
        self.radius.to_bits() == other.radius.to_bits()
            && self.origin.to_array().map(f64::to_bits) == other.origin.to_array().map(f64::to_bits)
            && self.cell.to_bits() == other.cell.to_bits()
            && (self.cols, self.rows) == (other.cols, other.rows)
            && self.marks.map(f64::to_bits) == other.marks.map(f64::to_bits)
            && self.flags == other.flags
            && self.starts == other.starts
            && self.walkable == other.walkable
            && self.items == other.items
            && self.walls.iter().map(item).eq(other.walls.iter().map(item))
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
        if !(p.x >= 0.0 && p.y >= 0.0 && p.x < self.size.x && p.y < self.size.y) {
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
        if !(p.x >= 0.0 && p.y >= 0.0 && p.x < self.size.x && p.y < self.size.y) {
            return None;
        }
        // The sub-cell's column and row (`8 p` is exact, and its floor over 8 is `p`'s):
        // the cell's in the high bits, the sub-cell's in it in the low three.
        let (u, v) = (
            (p.x * SUB as f64) as u32 as usize,
            (p.y * SUB as f64) as u32 as usize,
        );
        let (x, y) = (u / SUB, v / SUB);
        let walkable = *self.walkable.get(y * self.cols as usize + x)?;
        if walkable >> (v % SUB * SUB + u % SUB) & 1 == 0 {
            return None;
        }
        Some(self.walk(s, d, x, y))
    }

    /// The walk of [`RayGrid::first_touch`] from cell `(x, y)`, which holds `s`: the
    /// one that reads the listings' flags when the grid keeps them.
    #[inline]
    fn walk(&self, s: DVec2, d: DVec2, x: usize, y: usize) -> Option<(f64, u32, Wall64)> {
        match self.flags {
            true => self.walk_by::<true>(s, d, x, y),
            false => self.walk_by::<false>(s, d, x, y),
        }
    }

    /// [`RayGrid::walk`], skipping the walls listed in the cell it came from when
    /// `FLAGS` (the grid's `flags`).
    ///
    /// Up to the first cell that lists a wall, the walk only steps (about a third of
    /// the rays at r = 1 on aurora meet none): the cull is set up there.
    #[inline(always)]
    fn walk_by<const FLAGS: bool>(
        &self,
        s: DVec2,
        d: DVec2,
        x: usize,
        y: usize,
    ) -> Option<(f64, u32, Wall64)> {
        let r = self.radius;
        let mut dda = Dda::new(self, s, d, x, y);
        let (starts, items, walls) = (&self.starts[..], &self.items[..], &self.walls[..]);
        // The cells with no walls before the first with some: no touch there (`best`
        // stays 1).
        let (mut start, mut end) = loop {
            let &[start, end] = starts.get(dda.c as usize..dda.c as usize + 2)? else {
                return None;
            };
            if start != end {
                break (start as usize, end as usize);
            }
            if !dda.step(1.0) {
                return None;
            }
        };
        let to = s + d;
        // (Every number here is finite: comparisons stand for `min` and `max`, which
        // would also handle NaN, at several instructions each.)
        let at = larger(s.x.abs(), s.y.abs());
        let scale = 1.0 + r + larger(at, larger(to.x.abs(), to.y.abs()));
        let slack = 1e-9 * scale;
        let mut cull = Cull::new(s, d, r + slack, at + self.extent);
        let ray = Ray { s, d, r };
        // The best touch: its time and wall, `u32::MAX` for none yet (no wall has that
        // index: the grid keeps fewer walls).
        let mut best: (f64, u32) = (1.0, u32::MAX);
        loop {
            for &item in items.get(start..end).unwrap_or(&[]) {
                let k = if FLAGS { item & INDEX } else { item };
                let Some(w) = walls.get(k as usize) else {
                    continue;
                };
                // (Listed in the cell the walk came from: culled or tested there. As a
                // pair of the cull's mask bits, so that one branch decides: with the
                // flag tested beside the cull, even by a non-short-circuit `|`, LLVM
                // tests it first, by a branch of its own.)
                let skip = if FLAGS {
                    u32::from(item & dda.from != 0) * 3
                } else {
                    0
                };
                if cull.out_or(*w, skip) {
                    continue;
                }
                let t = touch_time(&ray, w, best.0);
                if t < f64::INFINITY {
                    // At most `best.0`: the earlier, or the lower wall at a tie.
                    if t < best.0 || k < best.1 {
                        best = (t, k);
                        cull.up_to(t);
                    }
                }
            }
            if !dda.step(best.0) {
                break;
            }
            let Some(&[next_start, next_end]) = starts.get(dda.c as usize..dda.c as usize + 2)
            else {
                break;
            };
            (start, end) = (next_start as usize, next_end as usize);
        }
        let (t, k) = best;
        let w = walls.get(k as usize)?;
        Some((t, k, w.ends()))
    }
}

/// The radius, in cells, from which a grid's listings carry the flags of their
/// neighbours (see [`FROM_LEFT`]). On aurora (cells of 4.7 m) they pay from r = 1.5
/// (0.32 cells); at r = 1 and below the skips saved less time than the flags' test
/// cost.
const FLAGS_FROM: f64 = 0.25;

/// The bits of a listing that hold its wall's index; above them, four flags (when the
/// grid keeps them).
const INDEX: u32 = (1 << 28) - 1;

/// The flags of a listing of a wall in cell `(x, y)`: the wall is also listed in cell
/// `(x - 1, y)`, `(x + 1, y)`, `(x, y - 1)`, `(x, y + 1)`. The walk enters a cell from
/// one of those four, where it culled or tested every listed wall; such a wall it
/// skips here. A wall culled there lies beyond the bounds still (they only narrow as
/// the best touch comes earlier); one tested there gave a touch at a time no earlier
/// than the best since, or none before it, and tested again would give the same or
/// none (the exact test's time does not depend on its limit, which only rejects it):
/// either way it cannot change the answer.
const FROM_LEFT: u32 = 1 << 28;
const FROM_RIGHT: u32 = 1 << 29;
const FROM_BELOW: u32 = 1 << 30;
const FROM_ABOVE: u32 = 1 << 31;

/// The walk's digital differential analyser: the cell it is in, and the times the
/// segment leaves it across x and across y (stepped by whole cells).
struct Dda {
    x: usize,
    y: usize,
    /// The cell's index, `y cols + x`, in `u32` (the grid has fewer than
    /// `grid::MAX_CELLS` cells, and a step that would leave it is not taken), so that
    /// its list's bounds take one check.
    c: u32,
    /// The flag of the listings of the cell the walk came from (see [`FROM_LEFT`]), 0
    /// in the first cell.
    from: u32,
    tx: f64,
    ty: f64,
    /// Per axis: the step of the column or row (1 or -1 as `usize`), of the cell's
    /// index, and the time a step of one cell takes.
    step_x: usize,
    step_y: usize,
    next_x: u32,
    next_y: u32,
    /// Per axis: the flag `from` takes after a step.
    from_x: u32,
    from_y: u32,
    delta_x: f64,
    delta_y: f64,
    cols: usize,
    rows: usize,
}

impl Dda {
    /// From cell `(x, y)` of `grid`, which holds `s`, along `d`.
    #[inline(always)]
    fn new(grid: &RayGrid, s: DVec2, d: DVec2, x: usize, y: usize) -> Dda {
        let (cols, rows) = (grid.cols as usize, grid.rows as usize);
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
                grid.cell * inv.abs(),
                (origin + side * grid.cell - s) * inv,
            )
        };
        let (step_x, delta_x, tx) = axis(d.x, s.x, grid.origin.x, x);
        let (step_y, delta_y, ty) = axis(d.y, s.y, grid.origin.y, y);
        Dda {
            x,
            y,
            c: (y * cols + x) as u32,
            from: 0,
            tx,
            ty,
            step_x,
            step_y,
            next_x: step_x as u32,
            next_y: (step_y as u32).wrapping_mul(cols as u32),
            from_x: if d.x > 0.0 { FROM_LEFT } else { FROM_RIGHT },
            from_y: if d.y > 0.0 { FROM_BELOW } else { FROM_ABOVE },
            delta_x,
            delta_y,
            cols,
            rows,
        }
    }

    /// Steps to the next cell the segment crosses; false (staying) when the best
    /// touch, at time `best`, lies no later than the cell's exit, or the segment ends
    /// in the cell, or the next cell lies outside the grid. `best` is 1 until a touch
    /// is found, and never above (a NaN exit fails the test, as it fails
    /// `exit >= 1` and `best <= exit`).
    #[inline(always)]
    fn step(&mut self, best: f64) -> bool {
        let exit = if self.tx < self.ty { self.tx } else { self.ty };
        if best <= exit {
            return false;
        }
        if self.tx <= self.ty {
            self.x = self.x.wrapping_add(self.step_x);
            if self.x >= self.cols {
                return false;
            }
            self.c = self.c.wrapping_add(self.next_x);
            self.from = self.from_x;
            self.tx += self.delta_x;
        } else {
            self.y = self.y.wrapping_add(self.step_y);
            if self.y >= self.rows {
                return false;
            }
            self.c = self.c.wrapping_add(self.next_y);
            self.from = self.from_y;
            self.ty += self.delta_y;
        }
        true
    }
}

/// The walk's cull of a listed wall before its exact test, in `f32` lanes: a wall
/// whose ends both lie behind the start, or past the disc at the best touch, or on one
/// side of the ray's line, farther than the radius (and a slack) in the ray's frame, is
/// not touched up to the best touch. One multiply-add per axis puts both ends in the
/// frame (`(u_a, u_b, o_a, o_b)`: along the ray and across it), two comparisons with
/// the bounds, a look-up of their 8-bit mask in a table and one branch decide (with
/// the walk's skip of a wall the cell it came from lists, which sets a pair of the
/// mask's bits).
///
/// Rounding: the frame's axes are unit vectors rounded to `f32`, and a coordinate
/// costs two products and a sum in `f32`: within `4.3 u W` of the exact value, `u` the
/// unit roundoff of `f32` and `W` the largest magnitude of a coordinate of the walls'
/// ends (and a few `f32::MIN_POSITIVE` for products that underflow). The bounds are
/// widened by `1e-6 W` (about `17 u W`) and rounded outward to `f32`, so that a wall
/// culled lies beyond them in exact arithmetic: the cull never drops a wall that the
/// exact test would find, and the answers are those of the test of every listed wall.
struct Cull {
    /// The axes' `x` and `y` components per lane: `(d, d, n, n)`, `d` the ray's unit
    /// direction and `n` its left normal.
    x: Vec4,
    y: Vec4,
    /// The lower bounds, and the upper bound across the ray (lanes 2 and 3).
    lo: Vec4,
    hi: Vec4,
    /// `d · s` plus the reach, and the ray's length: the upper bound along the ray
    /// up to time `t` is `far + t len` (rounded up).
    far: f64,
    len: f64,
}

impl Cull {
    /// The cull of a disc reaching `reach` (its radius and slack) moving from `s`
    /// along `d` (not zero) up to time 1, over walls whose coordinates and `s`'s have
    /// magnitudes summing to at most `extent`.
    #[inline]
    fn new(s: DVec2, d: DVec2, reach: f64, extent: f64) -> Cull {
        let len = d.length();
        let inv = 1.0 / len;
        let (u, n) = (d * inv, d.perp() * inv);
        let reach = reach + 1e-6 * extent + 1e-30;
        let at = DVec2::new(u.dot(s), n.dot(s));
        let (lo, hi) = (outward(at - reach, -1.0), outward(at + reach, 1.0));
        let far = at.x + reach;
        let u_hi = outward(DVec2::splat(far + len), 1.0).x;
        Cull {
            x: Vec4::new(u.x as f32, u.x as f32, n.x as f32, n.x as f32),
            y: Vec4::new(u.y as f32, u.y as f32, n.y as f32, n.y as f32),
            lo: Vec4::new(lo.x, lo.x, lo.y, lo.y),
            hi: Vec4::new(u_hi, u_hi, hi.y, hi.y),
            far,
            len,
        }
    }

    /// Brings the upper bound along the ray to time `t`.
    #[inline]
    fn up_to(&mut self, t: f64) {
        let u_hi = outward(DVec2::splat(self.far + t * self.len), 1.0).x;
        self.hi = Vec4::new(u_hi, u_hi, self.hi.z, self.hi.w);
    }

    /// Whether wall `w` cannot be touched within the bounds, or `skip` (3 or 0: a pair
    /// of the mask's bits, or none) says to pass it over.
    #[inline]
    fn out_or(&self, w: RayWall, skip: u32) -> bool {
        let v = w.0;
        // (u_a, u_b, o_a, o_b)
        let frame = v.xzxz() * self.x + v.ywyw() * self.y;
        let m = frame.cmplt(self.lo).bitmask() | frame.cmpgt(self.hi).bitmask() << 4 | skip;
        // Both ends below (or above) one bound: lanes 0 and 1, or 2 and 3.
        PAIRED[(m & 0xff) as usize]
    }
}

/// For each 8-bit mask `m` (lanes 0 to 3 below the lower bounds, 4 to 7 above the
/// upper ones): whether some pair of lanes, 0 and 1, 2 and 3, 4 and 5 or 6 and 7, is
/// set (one load and test instead of a shift, an and and a test).
static PAIRED: [bool; 256] = {
    let mut table = [false; 256];
    let mut m = 0;
    while m < 256 {
        table[m] = m & (m >> 1) & 0x55 != 0;
        m += 1;
    }
    table
};

/// `v` rounded to `f32` away from it towards `sign` (-1 or 1): at most `v` for -1, at
/// least for 1, by a relative `2^-22` (twice `f32`'s rounding) and `1e-37` (more than
/// a subnormal `f32`'s); infinite beyond `f32`'s range, which culls nothing.
#[inline]
fn outward(v: DVec2, sign: f64) -> glam::Vec2 {
    (v + (v.abs() * (1.0 / 4_194_304.0) + 1e-37) * sign).as_vec2()
}

/// The ray of a walk, as its exact tests read it.
struct Ray {
    s: DVec2,
    d: DVec2,
    r: f64,
}

/// Defines `touch_time` with the calling convention `$abi`.
macro_rules! touch_time {
    ($abi:literal) => {
        /// The time the disc of `ray` first touches wall `w`, up to `limit` (at most 1):
        /// [`capsule_entry_by_selects`] (at r = 0 [`capsule_entry`]), infinite for
        /// none.
        ///
        /// On x86-64 it takes Windows' calling convention, whose callee keeps `xmm6`
        /// to `xmm15` (the System V one keeps none): the walk holds its cull, its
        /// cells' exit times and the best touch in those registers across the call,
        /// and this function saves only those it uses, instead of the walk saving
        /// and reloading all of them around each call. The ray is read from memory,
        /// the wall from the grid's copy, the result in `xmm0` (an `Option<f64>`
        /// would be returned through memory).
        #[inline(never)]
        extern $abi fn touch_time(ray: &Ray, w: &RayWall, limit: f64) -> f64 {
            let (a, b) = w.ends();
            // (At r = 0 there are no end discs, and the branches cost less.)
            let touch = match ray.r > 0.0 {
                true => capsule_entry_by_selects(ray.s, ray.d, a, b, ray.r, limit),
                false => capsule_entry(ray.s, ray.d, a, b, ray.r, limit),
            };
            touch.unwrap_or(f64::INFINITY)
        }
    };
}

#[cfg(target_arch = "x86_64")]
touch_time!("win64");
#[cfg(not(target_arch = "x86_64"))]
touch_time!("Rust");

/// [`capsule_entry`](crate::geom::capsule_entry), the same to the bit, with its three
/// candidates (entering the strip along the wall, or the disc round either end)
/// computed whole and picked by selects rather than branches: which of them holds is
/// what a branch predictor cannot foresee over many rays (a raycast at r = 1 on aurora
/// tests about one wall this way). The walls a raycast passes to it pass the walk's
/// cull, so the sums are rarely wasted. The walk calls it through `touch_time`, a
/// call of its own (inlined into the walk, the raycast measured 1.13–1.15 × Detour
/// against 1.18–1.21 ×).
#[inline(always)]
fn capsule_entry_by_selects(
    s: DVec2,
    d: DVec2,
    a: DVec2,
    b: DVec2,
    r: f64,
    limit: f64,
) -> Option<f64> {
    let c0 = closest_point_f64(s, a, b);
    let off = s - c0;
    if off.length_squared() < r * r {
        // Inside: a hit now if moving closer (the distance is convex along the ray).
        return (d.dot(off) < 0.0).then_some(0.0);
    }
    let mut best = f64::INFINITY;
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq > 0.0 {
        // As `capsule_entry`: along the normal `ab.perp()` of length `|ab|`, the
        // strip's half-width `r |ab|` (a square root and a product before the time's
        // division, no division).
        let p = ab.perp();
        let (h0, dn, rl) = (p.dot(s - a), p.dot(d), r * len_sq.sqrt());
        // Entering the strip through the side the ray starts on: `rl - h0` or
        // `-rl - h0` over `dn`, as `capsule_entry` divides.
        let (above, below) = ((h0 >= rl) & (dn < 0.0), (h0 <= -rl) & (dn > 0.0));
        let t = (if above { rl } else { -rl } - h0) / dn;
        // `capsule_entry` tests `0 <= x / len_sq <= 1`, for `x` the product below and
        // `len_sq > 0`; here without the division the touch's time would wait on.
        // `x / len_sq <= 1` is `x <= len_sq`: for `x` above, the exact quotient lies
        // above `1 + 2^-53` and rounds above 1. `x / len_sq >= 0` holds for `x >= 0`
        // and for a negative `x` whose quotient rounds to -0, that is
        // `-x 2^1075 <= len_sq` (by two exact scalings, or one to infinity, where the
        // quotient is not -0); for `x >= 0` that product is at most 0.
        let x = (s + d * t - a).dot(ab);
        let inside = (x <= len_sq) & (-x * TWO_1000 * TWO_75 <= len_sq);
        let hit = (above | below) & (t >= 0.0) & (t <= limit) & inside;
        best = if hit { t } else { best };
    }
    if r > 0.0 {
        for c in [a, b] {
            // |s + t d - c|² = r²: the smaller root, when the ray truly enters.
            let m = s - c;
            let (qa, qb, qc) = (d.length_squared(), m.dot(d), m.length_squared() - r * r);
            let disc = qb * qb - qa * qc;
            let t = (-qb - disc.sqrt()) / qa;
            let hit = (qa > 0.0) & (disc > 0.0) & (qb < 0.0) & (t >= 0.0) & (t <= limit);
            best = if hit & (t < best) { t } else { best };
        }
    }
    (best <= limit).then_some(best)
}

/// `2^1000` and `2^75`: their product scales a quotient's numerator to the least
/// magnitude it rounds from to a nonzero `f64` (`2^-1074` over two).
const TWO_1000: f64 = 1.0715086071862673e301;
const TWO_75: f64 = 3.777893186295716e22;

/// The larger of two numbers that are not NaN.
#[inline]
fn larger(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The selects' version is `capsule_entry` to the bit, on random walls, rays,
    /// radii and limits, with degenerate walls, starts inside and rays along walls.
    #[test]
    fn capsule_entry_by_selects_is_capsule_entry() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let point = |rng: &mut ChaCha8Rng| {
            // Small integers often (alignments, ties), else anything in a box.
            if rng.gen_bool(0.3) {
                DVec2::new(
                    f64::from(rng.gen_range(-4..5)),
                    f64::from(rng.gen_range(-4..5)),
                )
            } else {
                DVec2::new(rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0))
            }
        };
        let mut hits = 0;
        for k in 0..200_000 {
            let (s, a) = (point(&mut rng), point(&mut rng));
            let b = if k % 50 == 0 { a } else { point(&mut rng) };
            let d = if k % 7 == 0 {
                (b - a) * rng.gen_range(-2.0..2.0)
            } else {
                point(&mut rng) - s
            };
            let r = [0.0, 0.5, 1.0, rng.gen_range(0.0..3.0)][k % 4];
            let limit = if k % 3 == 0 {
                rng.gen_range(0.0..1.0)
            } else {
                1.0
            };
            let want = capsule_entry(s, d, a, b, r, limit);
            let got = capsule_entry_by_selects(s, d, a, b, r, limit);
            assert_eq!(
                want.map(f64::to_bits),
                got.map(f64::to_bits),
                "s {s} d {d} a {a} b {b} r {r} limit {limit}"
            );
            hits += usize::from(want.is_some());
        }
        assert!(hits > 20_000, "{hits} hits: the cases should touch often");
    }

    /// The strip's test by comparisons where `capsule_entry`'s quotient is a -0 or
    /// just above 1: the touch at the wall's end, from both sides of it.
    #[test]
    fn capsule_entry_by_selects_at_the_strips_ends() {
        let tiny = f64::from_bits(1);
        let (a, b) = (DVec2::ZERO, DVec2::new(1e5, 0.0));
        for x in [
            -tiny,
            -1e-300,
            -0.0,
            0.0,
            tiny,
            1e5,
            1e5 + 1.5e-11,
            1e5 - 1.5e-11,
        ] {
            for (d, limit) in [(DVec2::new(0.0, -1.0), 1.0), (DVec2::new(0.0, -2.0), 0.5)] {
                let s = DVec2::new(x, 2.0);
                let want = capsule_entry(s, d, a, b, 1.0, limit);
                let got = capsule_entry_by_selects(s, d, a, b, 1.0, limit);
                assert_eq!(want.map(f64::to_bits), got.map(f64::to_bits), "x {x}");
                let (a, b) = (DVec2::new(-1e5, 3e-310), DVec2::new(tiny, 0.0));
                let want = capsule_entry(s, d, a, b, 1.0, limit);
                let got = capsule_entry_by_selects(s, d, a, b, 1.0, limit);
                assert_eq!(want.map(f64::to_bits), got.map(f64::to_bits), "x {x}");
            }
        }
    }
}
