//! What [`NavMesh::nearest_point`] builds once per disc radius, on first use at that
//! radius, and keeps with the mesh's query index (for [`MAX_RADII`] radii): the
//! boundary of the free space at `r` (where the disc fits). Each wall's offset line and
//! end arcs are split where they cross the capsules of radius `r` of the walls nearby,
//! and the pieces that lie on the boundary are kept (with the crossings that do), binned
//! on a grid. The nearest free point to a point outside the free space is the nearest
//! point of that boundary, so a ring search over the grid finds it.
//!
//! The kept pieces are a superset of the boundary (a piece between two crossings is all
//! on it or all off it; it is kept when its midpoint is on it, to a tolerance, and a
//! crossing is kept alone when it is on it and neither piece beside it is), so the
//! nearest kept point is never farther than the answer; the caller confirms it is free
//! and falls back on the general search when it is not.

use super::walkable::WalkableCells;
use crate::grid::{dense_side, Cells, Layout, MAX_CELLS};
use crate::mesh::clearance::closest_point;
use crate::mesh::navmesh::NavMesh;
use crate::mesh::Location;
use glam::{DVec2, Vec2};
use std::f64::consts::TAU;
use std::sync::OnceLock;

/// Most radii whose data a mesh keeps; queries at other radii take the general path.
pub(crate) const MAX_RADII: usize = 8;

/// Widest radius, in cells of the query grid (about two walls each), whose data is
/// built: wider discs take the general path.
pub(crate) const MAX_CELLS_WIDE: f64 = 2.0;

/// Pieces per cell of the kept boundary's grid: fewer, larger cells make the ring
/// search visit fewer of them (each a few pieces more, rejected by their boxes).
const PIECES_PER_CELL: f32 = 12.0;

/// Walls per cell of the bitmap of cells where the disc fits (as the query grid counts
/// them): on aurora, cells of 0.59 m (290 kB).
const WALLS_PER_FREE_CELL: f32 = 1.0 / 64.0;

/// Data built for one disc radius, kept in [`RadiusSlots`].
pub(crate) trait PerRadius {
    /// The radius the data was built for.
    fn radius(&self) -> f64;
}

/// Slots for the data of up to [`MAX_RADII`] radii, each filled once.
#[derive(Clone, Debug)]
pub(crate) struct RadiusSlots<T>([OnceLock<T>; MAX_RADII]);

impl<T> Default for RadiusSlots<T> {
    fn default() -> Self {
        RadiusSlots(std::array::from_fn(|_| OnceLock::new()))
    }
}

impl<T: PerRadius> RadiusSlots<T> {
    /// The data for radius `r`, built by `build` in the first free slot if no slot holds
    /// it yet; `None` when every slot holds another radius.
    pub(crate) fn get(&self, r: f64, build: impl Fn() -> T) -> Option<&T> {
        for slot in &self.0 {
            // A slot another thread fills with another radius is passed over.
            let data = match slot.get() {
                Some(data) => data,
                None => slot.get_or_init(&build),
            };
            if data.radius().to_bits() == r.to_bits() {
                return Some(data);
            }
        }
        None
    }
}

impl<T> RadiusSlots<T> {
    /// The data of the radii built so far.
    pub(crate) fn built_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.0.iter_mut().filter_map(OnceLock::get_mut)
    }
}

impl PerRadius for RadiusIndex {
    fn radius(&self) -> f64 {
        self.radius
    }
}

/// The per-radius data: see the [module](self)'s notes.
#[derive(Clone, Debug)]
pub(crate) struct RadiusIndex {
    /// The disc radius.
    pub(crate) radius: f64,
    /// The kept pieces of the free space's boundary.
    pieces: Vec<Piece>,
    /// The cells where the disc fits everywhere, so that a query point there needs no
    /// search of the walls around it.
    free: WalkableCells,
    /// The cells the pieces are binned on (by their boxes).
    layout: Layout,
    /// The pieces of cell `c` (row by row) are `binned[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Each cell's pieces with their boxes, so that a ring search reads a cell's list
    /// in one sweep of memory and opens only the pieces whose box could beat its best.
    binned: Vec<Binned>,
}

/// A kept piece as a cell of the boundary's grid lists it: its box, rounded outwards
/// to `f32` (so that no point of the piece lies outside it), and its index.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Binned {
    lo: Vec2,
    hi: Vec2,
    piece: u32,
}

/// A piece of the boundary of the free space.
#[derive(Clone, Copy, Debug)]
enum Piece {
    /// A segment (part of an offset line, or a wall for `r = 0`).
    Segment(DVec2, DVec2),
    /// Part of the circle of radius `r` round `center`, counter-clockwise from `from`
    /// to `to` (`small`: less than half a turn); `full`: the whole circle.
    Arc {
        center: DVec2,
        from: DVec2,
        to: DVec2,
        small: bool,
        full: bool,
    },
    /// A single point (a crossing of two pieces).
    Point(DVec2),
}

impl Piece {
    /// The point of the piece nearest to `p`.
    fn nearest(&self, p: DVec2, r: f64) -> DVec2 {
        match *self {
            Piece::Segment(a, b) => closest_point(p, a, b),
            Piece::Point(q) => q,
            Piece::Arc {
                center,
                from,
                to,
                small,
                full,
            } => {
                let u = p - center;
                let towards = match u.try_normalize() {
                    Some(n) => center + n * r,
                    None => return from,
                };
                let (a, b) = (from - center, to - center);
                let (s0, s1) = (a.perp_dot(u), u.perp_dot(b));
                let inside = full
                    || if small {
                        s0 >= 0.0 && s1 >= 0.0
                    } else {
                        !(s0 < 0.0 && s1 < 0.0)
                    };
                if inside {
                    towards
                } else if from.distance_squared(p) <= to.distance_squared(p) {
                    from
                } else {
                    to
                }
            }
        }
    }

    /// The piece's box (an arc's whole circle).
    fn bounds(&self, r: f64) -> (DVec2, DVec2) {
        match *self {
            Piece::Segment(a, b) => (a.min(b), a.max(b)),
            Piece::Point(q) => (q, q),
            Piece::Arc { center, .. } => (center - r, center + r),
        }
    }
}

/// Items binned by boxes (`f64`, grown by `pad`) on cells of side about `cell` over the
/// box `lo..hi`.
fn bin(lo: DVec2, hi: DVec2, cell: f64, boxes: &[(DVec2, DVec2)], pad: f64) -> Cells {
    let layout = Layout::fit(lo.as_vec2(), hi.as_vec2(), cell as f32, MAX_CELLS);
    let mut cells = Cells::default();
    let span = |i: usize| {
        let (a, b) = boxes[i];
        (
            layout.coords((a - pad).as_vec2()),
            layout.coords((b + pad).as_vec2()),
        )
    };
    cells.rebuild(layout, boxes.len(), span, |_, _, _| true);
    cells
}

impl RadiusIndex {
    /// Builds the data for radius `r` over `walls` (in `f64`), with the mesh for point
    /// location and `near(x, range, out)` listing the walls within `range` of `x`
    /// (and maybe more).
    pub(crate) fn new(
        mesh: &NavMesh,
        r: f64,
        walls: &[(DVec2, DVec2)],
        lo: DVec2,
        hi: DVec2,
        near: &dyn Fn(DVec2, f64, &mut Vec<u32>),
    ) -> RadiusIndex {
        let scale = 1.0 + r + lo.abs().max_element().max(hi.abs().max_element());
        let pad = 1e-4 * scale.sqrt() + 1e-6 * scale;
        let (glo, ghi) = (lo - (r + 1.0), hi + (r + 1.0));
        let pieces = boundary(mesh, r, walls, near, scale);
        let piece_boxes: Vec<(DVec2, DVec2)> = pieces.iter().map(|p| p.bounds(r)).collect();
        let free_side = dense_side(
            lo.as_vec2(),
            hi.as_vec2(),
            walls.len().max(1),
            WALLS_PER_FREE_CELL,
        );
        let free = match r > 0.0 {
            true => WalkableCells::clear_of(mesh, lo, hi, f64::from(free_side), r),
            // (A point fits anywhere walkable: nothing to save.)
            false => WalkableCells::default(),
        };
        let piece_side = f64::from(dense_side(
            glo.as_vec2(),
            ghi.as_vec2(),
            pieces.len().max(1),
            PIECES_PER_CELL,
        ));
        let cells = bin(glo, ghi, piece_side, &piece_boxes, pad);
        // Boxes rounded outwards: a hair wider than rounding to `f32` moves a bound.
        let out = 1e-6 * scale;
        let binned = cells
            .each_cell()
            .flatten()
            .map(|&i| {
                let (lo, hi) = piece_boxes[i as usize];
                Binned {
                    lo: (lo - out).as_vec2(),
                    hi: (hi + out).as_vec2(),
                    piece: i,
                }
            })
            .collect();
        let starts = std::iter::once(0)
            .chain(cells.each_cell().scan(0u32, |end, items| {
                *end += items.len() as u32;
                Some(*end)
            }))
            .collect();
        RadiusIndex {
            radius: r,
            pieces,
            free,
            layout: *cells.layout(),
            starts,
            binned,
        }
    }

    /// `true` when a disc of the radius surely fits at `p` (walkable, no wall nearer
    /// than the radius); `false` says nothing.
    #[inline]
    pub(crate) fn surely_fits(&self, p: DVec2) -> bool {
        self.free.surely_walkable(p)
    }

    /// The pieces listed in cell `(x, y)` (which must be on the grid).
    fn cell(&self, x: usize, y: usize) -> &[Binned] {
        let c = y * self.layout.cols + x;
        match (self.starts.get(c), self.starts.get(c + 1)) {
            (Some(&a), Some(&b)) => self.binned.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The point of the kept boundary nearest to `p` (ties broken by coordinates), or
    /// `None` when nothing is kept.
    pub(crate) fn nearest_boundary(&self, p: DVec2) -> Option<DVec2> {
        let layout = self.layout;
        if self.pieces.is_empty() || layout.len() == 0 || !p.is_finite() {
            return None;
        }
        let r = self.radius;
        let (cx, cy) = layout.coords(p.as_vec2());
        let (cols, rows) = (layout.cols as i64, layout.rows as i64);
        let (cx, cy) = (cx as i64, cy as i64);
        let cell = f64::from(layout.cell);
        let origin = layout.origin.as_dvec2();
        let margin = 1e-4 * cell + 1e-6 * (1.0 + p.abs().max_element());
        let mut best: Option<(f64, DVec2)> = None;
        let visit = |x: i64, y: i64, best: &mut Option<(f64, DVec2)>| {
            if x < 0 || y < 0 || x >= cols || y >= rows {
                return;
            }
            // A piece nearer than the best has a point nearer, in a cell nearer (less
            // the rounding of the binning) that lists it too: a farther cell is passed.
            if let Some((e, _)) = *best {
                let lo = origin + DVec2::new(x as f64, y as f64) * cell;
                let gap = (lo - p).max(p - (lo + cell)).max(DVec2::ZERO).length();
                if gap > margin && (gap - margin) * (gap - margin) > e {
                    return;
                }
            }
            for item in self.cell(x as usize, y as usize) {
                let (lo, hi) = (item.lo.as_dvec2(), item.hi.as_dvec2());
                let gap = (lo - p).max(p - hi).max(DVec2::ZERO).length_squared();
                if best.is_some_and(|(e, _)| gap > e) {
                    continue;
                }
                let q = self.pieces[item.piece as usize].nearest(p, r);
                let d = q.distance_squared(p);
                let better = match *best {
                    None => true,
                    Some((e, b)) => d
                        .total_cmp(&e)
                        .then(q.x.total_cmp(&b.x))
                        .then(q.y.total_cmp(&b.y))
                        .is_lt(),
                };
                if better && q.is_finite() {
                    *best = Some((d, q));
                }
            }
        };
        for k in 0..=(cols + rows) {
            for x in cx - k..=cx + k {
                visit(x, cy - k, &mut best);
                if k > 0 {
                    visit(x, cy + k, &mut best);
                }
            }
            for y in cy - k + 1..cy + k {
                visit(cx - k, y, &mut best);
                if k > 0 {
                    visit(cx + k, y, &mut best);
                }
            }
            // Nothing outside the square of cells searched is nearer than its border
            // (a side on the grid's edge has nothing beyond it).
            let side = |lo_cell: i64, hi_cell: i64, o: f64, v: f64, n: i64| {
                let below = if lo_cell <= 0 {
                    f64::INFINITY
                } else {
                    v - (o + lo_cell as f64 * cell)
                };
                let above = if hi_cell >= n - 1 {
                    f64::INFINITY
                } else {
                    o + (hi_cell + 1) as f64 * cell - v
                };
                below.min(above)
            };
            let bound = side(cx - k, cx + k, origin.x, p.x, cols).min(side(
                cy - k,
                cy + k,
                origin.y,
                p.y,
                rows,
            ));
            if let Some((d, q)) = best {
                if bound.is_infinite() || d.sqrt() <= bound - margin {
                    return Some(q);
                }
            } else if bound.is_infinite() {
                return None;
            }
        }
        best.map(|(_, q)| q)
    }
}

/// The kept pieces of the boundary of the free space at `r`: see the [module](self).
fn boundary(
    mesh: &NavMesh,
    r: f64,
    walls: &[(DVec2, DVec2)],
    near: &dyn Fn(DVec2, f64, &mut Vec<u32>),
    scale: f64,
) -> Vec<Piece> {
    if r == 0.0 {
        // Every wall bounds walkable space.
        return walls.iter().map(|&(a, b)| Piece::Segment(a, b)).collect();
    }
    let tol = 1e-6 * scale;
    let mut found = Vec::new();
    // Whether the disc fits at `x`, to the tolerance (so that no piece of the
    // boundary is lost to rounding).
    let free = |x: DVec2, found: &mut Vec<u32>| {
        near(x, r + tol, found);
        let clear = found.iter().all(|&j| {
            let (a, b) = walls[j as usize];
            closest_point(x, a, b).distance_squared(x) >= (r - tol).max(0.0).powi(2)
        });
        clear
            && (r <= 64.0 * super::hair(x, r)
                || matches!(mesh.locate(x.as_vec2()), Location::Walkable(_)))
    };
    let normal = |(a, b): (DVec2, DVec2)| (b - a).perp().normalize_or_zero();
    let mut out = Vec::new();
    let mut ts = Vec::new();
    let mut points = Vec::new();
    // Offset lines.
    for (i, &(a, b)) in walls.iter().enumerate() {
        let n = normal((a, b));
        if n == DVec2::ZERO {
            continue;
        }
        let (oa, ob) = (a + n * r, b + n * r);
        ts.clear();
        ts.extend([0.0, 1.0]);
        near(
            (a + b) * 0.5,
            0.5 * a.distance(b) + 2.0 * r + tol,
            &mut found,
        );
        for &j in &found {
            if j as usize == i {
                continue;
            }
            let (c, d) = walls[j as usize];
            let m = normal((c, d));
            ts.extend(super::segment_crossing_at(oa, ob, c + m * r, d + m * r));
            ts.extend(super::segment_crossing_at(oa, ob, c - m * r, d - m * r));
            ts.extend(super::segment_circle_at(oa, ob, c, r));
            ts.extend(super::segment_circle_at(oa, ob, d, r));
        }
        ts.sort_unstable_by(f64::total_cmp);
        ts.dedup();
        let at = |t: f64| match t {
            0.0 => oa,
            1.0 => ob,
            _ => oa + (ob - oa) * t,
        };
        // A crossing is kept alone only when neither piece beside it is (a kept
        // piece's ends are its own).
        let mut kept_before = false;
        for k in 0..ts.len() {
            let x = at(ts[k]);
            let kept_after = ts
                .get(k + 1)
                .is_some_and(|&t1| free(at(0.5 * (ts[k] + t1)), &mut found));
            if !kept_before && !kept_after && free(x, &mut found) {
                out.push(Piece::Point(x));
            }
            if kept_after {
                out.push(Piece::Segment(x, at(ts[k + 1])));
            }
            kept_before = kept_after;
        }
    }
    // End arcs, once per wall end.
    let mut ends: Vec<DVec2> = walls.iter().flat_map(|&(a, b)| [a, b]).collect();
    ends.sort_unstable_by(|p, q| p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)));
    ends.dedup();
    for &c in &ends {
        points.clear();
        near(c, 2.0 * r + tol, &mut found);
        let mut crossings = Vec::new();
        for &j in &found {
            let (a, b) = walls[j as usize];
            let m = normal((a, b));
            // The wall's own capsule is tangent to the circle where its offset lines
            // start: split there whatever the rounding.
            if a == c || b == c {
                crossings.extend([c + m * r, c - m * r]);
            }
            super::segment_circle(a + m * r, b + m * r, c, r, &mut crossings);
            super::segment_circle(a - m * r, b - m * r, c, r, &mut crossings);
            for e in [a, b] {
                super::circle_circle(c, e, r, &mut crossings);
            }
        }
        points.extend(crossings.iter().map(|&x| {
            let u = x - c;
            (u.y.atan2(u.x), x)
        }));
        points.sort_unstable_by(|p, q| {
            p.0.total_cmp(&q.0)
                .then(p.1.x.total_cmp(&q.1.x))
                .then(p.1.y.total_cmp(&q.1.y))
        });
        points.dedup_by(|p, q| p.1 == q.1);
        let on = |angle: f64| c + DVec2::new(angle.cos(), angle.sin()) * r;
        if points.is_empty() {
            if free(on(0.0), &mut found) {
                out.push(Piece::Arc {
                    center: c,
                    from: on(0.0),
                    to: on(0.0),
                    small: false,
                    full: true,
                });
            }
            continue;
        }
        // Whether the arc from each crossing to the next is kept.
        let kept: Vec<bool> = (0..points.len())
            .map(|k| {
                let angle = points[k].0;
                let next = points.get(k + 1).map_or(points[0].0 + TAU, |x| x.0);
                let span = next - angle;
                span > 0.0 && free(on(angle + 0.5 * span), &mut found)
            })
            .collect();
        for k in 0..points.len() {
            let (angle, x) = points[k];
            let before = kept[(k + points.len() - 1) % points.len()];
            if !before && !kept[k] && free(x, &mut found) {
                out.push(Piece::Point(x));
            }
            if kept[k] {
                let (next, y) = points
                    .get(k + 1)
                    .copied()
                    .unwrap_or((points[0].0 + TAU, points[0].1));
                out.push(Piece::Arc {
                    center: c,
                    from: x,
                    to: y,
                    small: next - angle <= std::f64::consts::PI,
                    full: false,
                });
            }
        }
    }
    out
}

/// The walls of `index`'s grid near `x` as `near` for [`RadiusIndex::new`].
pub(crate) fn walls_near(grid: &crate::grid::WallGrid, x: DVec2, range: f64, out: &mut Vec<u32>) {
    out.clear();
    let half = Vec2::splat((range * (1.0 + 1e-6)) as f32 + 1e-3);
    let p = x.as_vec2();
    grid.for_each_row_in_box(p - half, p + half, |items| out.extend_from_slice(items));
    out.sort_unstable();
    out.dedup();
}
