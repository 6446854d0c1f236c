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
//!
//! **After edits** the data of each radius is kept aside ([`RadiusIndexes::edited`],
//! with how the walls were renumbered and the boxes of the triangles that changed) and
//! the first query at that radius brings it up to date ([`RadiusIndex::update`]): the
//! pieces of a wall or of a wall end depend only on the walls within `2r` of it and on
//! the mesh within `r` of it, so only those within reach of the changed triangles are
//! made again (a few hundred pieces for a box 10 m across on aurora), the others copied
//! in runs; the pieces are binned again in one pass over the cells, and the cells where
//! the disc fits marked again under the change. The grids are sized by the query
//! index's frame (the wall count and box kept through edits), so the data brought up
//! to date is to the bit the data built afresh for the edited mesh.

use super::walkable::{merge_windows, Lattice};
use crate::geom::Segment;
use crate::grid::WallGrid;
use crate::grid::{dense_side, Layout, MAX_CELLS};
use crate::mesh::clearance::closest_point;
use crate::mesh::lazy::Refreshed;
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

/// Pieces per wall, about, at `r > 0` (aurora: 1.55 at r = 0.5, 1.38 at 1, 0.74 at 2):
/// what the boundary's grid is sized for, as its cells stay put through edits.
const PIECES_PER_WALL: f32 = 1.4;

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
    #[inline]
    pub(crate) fn get(&self, r: f64, build: impl Fn() -> T) -> Option<&T> {
        // The first slot, built for `r`: the common case, without the loop's calls.
        if let Some(data) = self.0.first().and_then(OnceLock::get) {
            if data.radius().to_bits() == r.to_bits() {
                return Some(data);
            }
        }
        self.find(r, build)
    }

    /// [`RadiusSlots::get`] over every slot.
    #[inline(never)]
    fn find(&self, r: f64, build: impl Fn() -> T) -> Option<&T> {
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

/// What the edits since a [`RadiusIndex`] was built or brought up to date changed, for
/// its update: the wall it knew as `i` is now `remap[i]` (`u32::MAX`: gone), and the
/// boxes of the triangles that changed, as they were and as they are.
#[derive(Clone, Debug)]
pub(crate) struct Edits {
    remap: Vec<u32>,
    boxes: Vec<(DVec2, DVec2)>,
}

/// A radius's data kept aside by an edit, with what changed since.
type Stale = (RadiusIndex, Edits);

/// A slot of [`RadiusIndexes`]: empty, or the data of one radius, up to date or kept
/// aside by edits until the first query at that radius.
#[derive(Clone, Debug, Default)]
struct Slot {
    /// The radius, once an edit kept the data aside (its bits; the data up to date
    /// knows its own).
    radius: Option<u64>,
    data: Refreshed<RadiusIndex, Stale>,
}

/// The per-radius data of up to [`MAX_RADII`] radii, each built on first use and,
/// after edits, brought up to date by the first query at its radius
/// ([`RadiusIndex::update`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct RadiusIndexes([Slot; MAX_RADII]);

impl RadiusIndexes {
    /// The data for radius `r`: as kept, brought up to date by `update` if edits kept
    /// it aside, or built by `build` in the first free slot; `None` when every slot
    /// holds another radius.
    pub(crate) fn get(
        &self,
        r: f64,
        build: impl Fn() -> RadiusIndex,
        update: impl Fn(Stale) -> RadiusIndex,
    ) -> Option<&RadiusIndex> {
        for slot in &self.0 {
            if let Some(bits) = slot.radius {
                if bits == r.to_bits() {
                    return Some(slot.data.get(|stale| match stale {
                        Some(stale) => update(stale),
                        None => build(),
                    }));
                }
                continue;
            }
            // A slot another thread fills with another radius is passed over.
            let data = slot.data.get(|_| build());
            if data.radius.to_bits() == r.to_bits() {
                return Some(data);
            }
        }
        None
    }

    /// Notes an edit: the data of every radius is kept aside with what changed (the
    /// walls renumbered by `remap`, the triangles of `boxes` changed), for the first
    /// query at its radius to bring up to date.
    pub(crate) fn edited(&mut self, remap: &[u32], boxes: &[(DVec2, DVec2)]) {
        for slot in &mut self.0 {
            let mut radius = slot.radius;
            slot.data.edited(|ready, stale| match (ready, stale) {
                (Some(index), _) => {
                    radius = Some(index.radius.to_bits());
                    let edits = Edits {
                        remap: remap.to_vec(),
                        boxes: boxes.to_vec(),
                    };
                    Some((index, edits))
                }
                (None, Some((index, mut edits))) => {
                    for wall in &mut edits.remap {
                        *wall = remap.get(*wall as usize).copied().unwrap_or(u32::MAX);
                    }
                    edits.boxes.extend_from_slice(boxes);
                    Some((index, edits))
                }
                (None, None) => None,
            });
            slot.radius = radius;
        }
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
    /// The scale of the coordinates (of the frame), which sizes the tolerances.
    scale: f64,
    /// The kept pieces of the free space's boundary: those of each wall's offset line,
    /// wall by wall, then those of each wall end's arcs, end by end.
    pieces: Vec<Piece>,
    /// The pieces of wall `i` are `pieces[wall_starts[i]..wall_starts[i + 1]]`.
    wall_starts: Vec<u32>,
    /// The wall ends, in order of coordinates (none at `r = 0`).
    ends: Vec<DVec2>,
    /// The arcs of end `k` are `pieces[end_starts[k]..end_starts[k + 1]]`.
    end_starts: Vec<u32>,
    /// The cells where the disc fits everywhere, so that a query point there needs no
    /// search of the walls around it.
    free: FreeCells,
    /// The cells the pieces are binned on (by their boxes).
    layout: Layout,
    /// The pieces of cell `c` (row by row) are `binned[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Each cell's pieces with their boxes, so that a ring search reads a cell's list
    /// in one sweep of memory and opens only the pieces whose box could beat its best.
    binned: Vec<Binned>,
    /// The points of the piece of each item of `binned` (as [`Piece::pack`] packs them,
    /// its kind in the item), in the same order: what the ring search opens, 48 bytes
    /// a piece against 56 for [`Piece`] (which only builds and updates read), and those
    /// a cell lists side by side.
    hot: Vec<[DVec2; 3]>,
}

/// Most pieces the boundary's grid lists: an item keeps a piece's index in the low 29
/// bits of `Binned::piece` and its kind in the top 3. With more, nothing is binned and
/// queries take the general path.
const MAX_PIECES: usize = 1 << 29;

/// A kept piece as a cell of the boundary's grid lists it: its box, rounded outwards
/// to `f32` (so that no point of the piece lies outside it), and its index (low 29
/// bits) and kind (top 3 bits, [`Piece::kind`]).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Binned {
    lo: Vec2,
    hi: Vec2,
    piece: u32,
}

impl Binned {
    /// The piece's index.
    #[inline]
    fn index(&self) -> usize {
        (self.piece & (MAX_PIECES as u32 - 1)) as usize
    }

    /// The piece's kind.
    #[inline]
    fn kind(&self) -> u32 {
        self.piece >> 29
    }
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
    /// The piece's kind as [`Binned`] keeps it: 0 a segment, 1 a point, 2 an arc of
    /// half a turn or more, 3 a smaller arc, 4 a whole circle.
    fn kind(&self) -> u32 {
        match *self {
            Piece::Segment(..) => 0,
            Piece::Point(_) => 1,
            Piece::Arc { full: true, .. } => 4,
            Piece::Arc { small: true, .. } => 3,
            Piece::Arc { .. } => 2,
        }
    }

    /// The piece's points (unused ones zero), which with [`Piece::kind`] make it again
    /// ([`Piece::unpack`]).
    fn pack(&self) -> [DVec2; 3] {
        match *self {
            Piece::Segment(a, b) => [a, b, DVec2::ZERO],
            Piece::Point(q) => [q, DVec2::ZERO, DVec2::ZERO],
            Piece::Arc {
                center, from, to, ..
            } => [center, from, to],
        }
    }

    /// The piece of kind `kind` with the points `at`, as [`Piece::pack`] packed it.
    #[inline]
    fn unpack(kind: u32, at: &[DVec2; 3]) -> Piece {
        match kind {
            0 => Piece::Segment(at[0], at[1]),
            1 => Piece::Point(at[0]),
            _ => Piece::Arc {
                center: at[0],
                from: at[1],
                to: at[2],
                small: kind == 3,
                full: kind == 4,
            },
        }
    }

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

/// Pieces per wall that the boundary's grid is sized for (its cells stay put through
/// edits, so they are sized by the frame's wall count rather than by the pieces).
fn pieces_per_wall(r: f64) -> f32 {
    if r == 0.0 {
        1.0
    } else {
        PIECES_PER_WALL
    }
}

/// The walls that reach the cells of a grid, for an update: what the walls of
/// `RadiusIndex::update` need.
pub(crate) struct Walls<'a> {
    /// The walls in `f64`.
    pub(crate) walls: &'a [(DVec2, DVec2)],
    /// The same in `f32`.
    pub(crate) segments: &'a [Segment],
    /// The query index's wall grid.
    pub(crate) grid: &'a WallGrid,
}

impl Walls<'_> {
    fn near(&self, x: DVec2, range: f64, out: &mut Vec<u32>) {
        walls_near(self.grid, x, range, out)
    }
}

impl RadiusIndex {
    /// Builds the data for radius `r` over `walls`, with the mesh for point location,
    /// on grids sized by the frame (the box `lo..hi` and `frame_walls` walls) so that
    /// they stay put through edits.
    pub(crate) fn new(
        mesh: &NavMesh,
        r: f64,
        walls: &Walls,
        lo: DVec2,
        hi: DVec2,
        frame_walls: usize,
    ) -> RadiusIndex {
        let scale = 1.0 + r + lo.abs().max_element().max(hi.abs().max_element());
        let near = |x: DVec2, range: f64, out: &mut Vec<u32>| walls.near(x, range, out);
        let boundary = Boundary {
            mesh,
            r,
            walls: walls.walls,
            near: &near,
            tol: 1e-6 * scale,
        };
        let mut scratch = Scratch::default();
        let mut pieces = Vec::new();
        let mut wall_starts = Vec::with_capacity(walls.walls.len() + 1);
        for i in 0..walls.walls.len() {
            wall_starts.push(pieces.len() as u32);
            boundary.wall(i, &mut scratch, &mut pieces);
        }
        wall_starts.push(pieces.len() as u32);
        let ends = match r > 0.0 {
            true => wall_ends(walls.walls),
            false => Vec::new(),
        };
        let mut end_starts = Vec::with_capacity(ends.len() + 1);
        for &c in &ends {
            end_starts.push(pieces.len() as u32);
            boundary.end(c, &mut scratch, &mut pieces);
        }
        end_starts.push(pieces.len() as u32);
        let free_side = dense_side(
            lo.as_vec2(),
            hi.as_vec2(),
            frame_walls.max(1),
            WALLS_PER_FREE_CELL,
        );
        let free = FreeCells::new(mesh, walls.segments, lo, hi, f64::from(free_side), r);
        let (glo, ghi) = (lo - (r + 1.0), hi + (r + 1.0));
        let piece_side = dense_side(
            glo.as_vec2(),
            ghi.as_vec2(),
            ((frame_walls.max(1) as f32) * pieces_per_wall(r)) as usize,
            PIECES_PER_CELL,
        );
        let layout = Layout::fit(glo.as_vec2(), ghi.as_vec2(), piece_side, MAX_CELLS);
        let mut index = RadiusIndex {
            radius: r,
            scale,
            pieces,
            wall_starts,
            ends,
            end_starts,
            free,
            layout,
            starts: vec![0; layout.len() + 1],
            binned: Vec::new(),
            hot: Vec::new(),
        };
        let all: Vec<u32> = (0..index.pieces.len() as u32).collect();
        index.rebin(&[], &all);
        index
    }

    /// The padding of the pieces' boxes as binned, and how far their kept boxes are
    /// rounded outwards.
    fn pads(&self) -> (f64, f64) {
        let scale = self.scale;
        (1e-4 * scale.sqrt() + 1e-6 * scale, 1e-6 * scale)
    }

    /// Bins the pieces again after some were dropped and others added, as binning them
    /// all would: the piece binned as `i` is now `remap[i]` (`u32::MAX`: gone; the kept
    /// ones keep their order) and `added` (increasing) are the new pieces. One pass over
    /// the cells; each cell lists its pieces in increasing order.
    fn rebin(&mut self, remap: &[u32], added: &[u32]) {
        let r = self.radius;
        if self.pieces.len() >= MAX_PIECES {
            // (Too many to list: queries take the general path.)
            self.starts = vec![0; self.layout.len() + 1];
            self.binned = Vec::new();
            self.hot = Vec::new();
            return;
        }
        let (pad, out) = self.pads();
        let layout = self.layout;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for &i in added {
            let (lo, hi) = self.pieces[i as usize].bounds(r);
            let ((x0, y0), (x1, y1)) = (
                layout.coords((lo - pad).as_vec2()),
                layout.coords((hi + pad).as_vec2()),
            );
            for y in y0..=y1 {
                for x in x0..=x1 {
                    pairs.push(((y * layout.cols + x) as u32, i));
                }
            }
        }
        pairs.sort_unstable();
        let binned_of = |i: u32| {
            let piece = &self.pieces[i as usize];
            let (lo, hi) = piece.bounds(r);
            let item = Binned {
                lo: (lo - out).as_vec2(),
                hi: (hi + out).as_vec2(),
                piece: i | piece.kind() << 29,
            };
            (item, piece.pack())
        };
        let mut starts = Vec::with_capacity(self.starts.len());
        let mut binned = Vec::with_capacity(self.binned.len() + pairs.len());
        // (A kept item's piece is as it was, so its packed points are copied in order.)
        let mut hot = Vec::with_capacity(self.binned.len() + pairs.len());
        let push = |binned: &mut Vec<Binned>, hot: &mut Vec<_>, (item, at)| {
            binned.push(item);
            hot.push(at);
        };
        let mut next = pairs.iter().peekable();
        starts.push(0);
        for (c, w) in self.starts.windows(2).enumerate() {
            let c = c as u32;
            for pos in w[0] as usize..w[1] as usize {
                let (Some(item), Some(&at)) = (self.binned.get(pos), self.hot.get(pos)) else {
                    continue;
                };
                let j = remap.get(item.index()).copied().unwrap_or(u32::MAX);
                if j == u32::MAX {
                    continue;
                }
                while let Some(&&(_, k)) = next.peek().filter(|&&&(cell, k)| cell == c && k < j) {
                    push(&mut binned, &mut hot, binned_of(k));
                    next.next();
                }
                let item = Binned {
                    piece: j | item.kind() << 29,
                    ..*item
                };
                push(&mut binned, &mut hot, (item, at));
            }
            while let Some(&&(_, k)) = next.peek().filter(|&&&(cell, _)| cell == c) {
                push(&mut binned, &mut hot, binned_of(k));
                next.next();
            }
            starts.push(hot.len() as u32);
        }
        self.hot = hot;
        self.starts = starts;
        self.binned = binned;
    }

    /// Brings the data, built for an earlier state of the mesh, up to date after edits:
    /// to the bit what [`RadiusIndex::new`] builds for the mesh as it is (on the same
    /// frame). The pieces of the walls and ends within reach of the changed triangles
    /// (`edits.boxes`, as they were and as they are) are made again, the others kept
    /// (the wall the index knew as `i` is now `edits.remap[i]`); the pieces binned
    /// again, and the cells where the disc fits marked again under the change.
    pub(crate) fn update(mut self, mesh: &NavMesh, walls: &Walls, edits: Edits) -> RadiusIndex {
        let r = self.radius;
        let near = |x: DVec2, range: f64, out: &mut Vec<u32>| walls.near(x, range, out);
        let boundary = Boundary {
            mesh,
            r,
            walls: walls.walls,
            near: &near,
            tol: 1e-6 * self.scale,
        };
        // What the edits changed, within reach: a wall's pieces depend on the walls
        // within `2r` of it (the tolerance aside: farther ones cross none of its
        // pieces, nor come within `r` of a point of them) and on where the points within
        // `r` of it lie, an end's arcs likewise. So the pieces of the walls and ends out
        // of reach of the changed triangles' boxes (grown by `2r`, the tolerance and a
        // margin for rounding) are as they were. The boxes are merged where they meet.
        let grow = 2.0 * r + boundary.tol + 1e-2 + 1e-5 * self.scale;
        let mut reach: Vec<(DVec2, DVec2)> = Vec::new();
        for &(lo, hi) in &edits.boxes {
            let (mut lo, mut hi) = (lo - grow, hi + grow);
            if !(lo.is_finite() && hi.is_finite()) {
                // (No box is unbounded: reach everywhere.)
                (lo, hi) = (DVec2::splat(f64::NEG_INFINITY), DVec2::splat(f64::INFINITY));
            }
            // Merged with every box it meets, until it meets none.
            while let Some(k) = reach
                .iter()
                .position(|&(l, h)| l.cmple(hi).all() && lo.cmple(h).all())
            {
                let (l, h) = reach.swap_remove(k);
                (lo, hi) = (lo.min(l), hi.max(h));
            }
            reach.push((lo, hi));
        }
        let within = |p: DVec2| {
            reach
                .iter()
                .any(|&(l, h)| p.cmpge(l).all() && p.cmple(h).all())
        };
        let meets = |a: DVec2, b: DVec2| {
            let (lo, hi) = (a.min(b), a.max(b));
            reach
                .iter()
                .any(|&(l, h)| l.cmple(hi).all() && lo.cmple(h).all())
        };
        // The walls within reach: those the wall grid lists in the boxes' cells, and
        // the new ones (which lie in the boxes).
        let mut near_walls: Vec<u32> = Vec::new();
        for &(lo, hi) in &reach {
            let (lo, hi) = (
                lo.max(DVec2::splat(-f64::from(f32::MAX))).as_vec2(),
                hi.min(DVec2::splat(f64::from(f32::MAX))).as_vec2(),
            );
            walls
                .grid
                .for_each_row_in_box(lo, hi, |row| near_walls.extend_from_slice(row));
        }
        let mut old_of = vec![u32::MAX; walls.walls.len()];
        for (old, &new) in edits.remap.iter().enumerate() {
            if let Some(slot) = old_of.get_mut(new as usize) {
                *slot = old as u32;
            }
        }
        near_walls.extend(
            old_of
                .iter()
                .enumerate()
                .filter(|(_, &old)| old == u32::MAX)
                .map(|(k, _)| k as u32),
        );
        near_walls.sort_unstable();
        near_walls.dedup();
        near_walls.retain(|&k| {
            let (a, b) = walls.walls[k as usize];
            old_of[k as usize] == u32::MAX || meets(a, b)
        });
        let old_pieces = std::mem::take(&mut self.pieces);
        let mut remap = vec![u32::MAX; old_pieces.len()];
        let mut added = Vec::new();
        let mut pieces = Vec::with_capacity(old_pieces.len() + 64);
        let mut scratch = Scratch::default();
        // Old pieces `from..to` copied as they were.
        let mut keep = |from: usize, to: usize, pieces: &mut Vec<Piece>| {
            for (slot, i) in remap[from..to].iter_mut().zip(pieces.len()..) {
                *slot = i as u32;
            }
            pieces.extend_from_slice(&old_pieces[from..to]);
        };
        let mut wall_starts = Vec::with_capacity(walls.walls.len() + 1);
        let mut next = near_walls.iter().copied().peekable();
        // The old pieces of the run of walls kept, to copy at once.
        let mut run = 0..0;
        for k in 0..walls.walls.len() {
            if next.next_if_eq(&(k as u32)).is_some() {
                keep(run.start, run.end, &mut pieces);
                run = 0..0;
                wall_starts.push(pieces.len() as u32);
                boundary.wall(k, &mut scratch, &mut pieces);
                added.extend(wall_starts[k]..pieces.len() as u32);
                continue;
            }
            // (A wall out of reach was there before.)
            let old = old_of[k] as usize;
            let (from, to) = match (self.wall_starts.get(old), self.wall_starts.get(old + 1)) {
                (Some(&from), Some(&to)) => (from as usize, to as usize),
                _ => (0, 0),
            };
            if from != run.end || run.is_empty() {
                keep(run.start, run.end, &mut pieces);
                run = from..from;
            }
            wall_starts.push((pieces.len() + (run.end - run.start)) as u32);
            run.end = to;
        }
        keep(run.start, run.end, &mut pieces);
        wall_starts.push(pieces.len() as u32);
        // The ends: those out of reach kept, those within it taken from the walls near.
        let mut ends = Vec::with_capacity(self.ends.len() + 16);
        let mut end_starts = Vec::with_capacity(self.ends.len() + 17);
        if r > 0.0 {
            let mut fresh: Vec<DVec2> = near_walls
                .iter()
                .flat_map(|&k| {
                    let (a, b) = walls.walls[k as usize];
                    [a, b]
                })
                .filter(|&c| within(c))
                .collect();
            sort_ends(&mut fresh);
            // The old ends within reach, in order.
            let mut gone: Vec<usize> = Vec::new();
            for &(lo, hi) in &reach {
                let from = self.ends.partition_point(|e| e.x < lo.x);
                for (k, e) in self.ends[from..].iter().enumerate() {
                    if e.x > hi.x {
                        break;
                    }
                    if e.y >= lo.y && e.y <= hi.y {
                        gone.push(from + k);
                    }
                }
            }
            gone.sort_unstable();
            gone.dedup();
            let mut gone = gone.into_iter().peekable();
            let mut fresh = fresh.into_iter().peekable();
            let mut k = 0;
            let count = self.ends.len();
            while k < count || fresh.peek().is_some() {
                // The run of old ends kept up to the next one gone or the next new one.
                let stop = gone.peek().copied().unwrap_or(count);
                let stop = match fresh.peek() {
                    Some(&f) => k + self.ends[k..stop].partition_point(|&e| order(e, f).is_lt()),
                    None => stop,
                };
                let base = pieces.len() as i64 - i64::from(self.end_starts[k]);
                for j in k..stop {
                    ends.push(self.ends[j]);
                    end_starts.push((i64::from(self.end_starts[j]) + base) as u32);
                }
                keep(
                    self.end_starts[k] as usize,
                    self.end_starts[stop] as usize,
                    &mut pieces,
                );
                k = stop;
                if gone.next_if_eq(&k).is_some() {
                    k += 1;
                    continue;
                }
                if let Some(e) = fresh.next() {
                    ends.push(e);
                    end_starts.push(pieces.len() as u32);
                    let from = pieces.len() as u32;
                    boundary.end(e, &mut scratch, &mut pieces);
                    added.extend(from..pieces.len() as u32);
                }
            }
        }
        end_starts.push(pieces.len() as u32);
        self.pieces = pieces;
        self.wall_starts = wall_starts;
        self.ends = ends;
        self.end_starts = end_starts;
        self.rebin(&remap, &added);
        self.free.remark(mesh, walls, &edits.boxes);
        self
    }

    /// What is sure at `p` by the cells alone: that a disc of the radius fits there
    /// (walkable, no wall nearer than the radius), that `p` is not walkable (inside an
    /// obstacle or off the mesh, farther than the radius from any wall), or nothing.
    #[inline]
    pub(crate) fn cell_class(&self, p: DVec2) -> CellClass {
        self.free.class(p)
    }

    /// The pieces listed in cell `(x, y)` (which must be on the grid), with their
    /// points.
    fn cell(&self, x: usize, y: usize) -> (&[Binned], &[[DVec2; 3]]) {
        let c = y * self.layout.cols + x;
        match (self.starts.get(c), self.starts.get(c + 1)) {
            (Some(&a), Some(&b)) => {
                let range = a as usize..b as usize;
                match (self.binned.get(range.clone()), self.hot.get(range)) {
                    (Some(items), Some(points)) => (items, points),
                    _ => (&[], &[]),
                }
            }
            _ => (&[], &[]),
        }
    }

    /// The point of the kept boundary nearest to `p` (ties broken by coordinates), or
    /// `None` when nothing is kept.
    pub(crate) fn nearest_boundary(&self, p: DVec2) -> Option<DVec2> {
        let layout = self.layout;
        if self.binned.is_empty() || layout.len() == 0 || !p.is_finite() {
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
            let (items, points) = self.cell(x as usize, y as usize);
            for (item, at) in items.iter().zip(points) {
                let (lo, hi) = (item.lo.as_dvec2(), item.hi.as_dvec2());
                let gap = (lo - p).max(p - hi).max(DVec2::ZERO).length_squared();
                if best.is_some_and(|(e, _)| gap > e) {
                    continue;
                }
                let q = Piece::unpack(item.kind(), at).nearest(p, r);
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
            // Ring `k`, nearest cells first: those `j` from the middle of a side, for
            // `j` from 0 to `k` (the best so far then passes over more of the rest; the
            // answer is the least candidate whatever the order).
            for j in 0..=k {
                visit(cx + k, cy + j, &mut best);
                if j > 0 {
                    visit(cx + k, cy - j, &mut best);
                }
                if k > 0 {
                    visit(cx - k, cy + j, &mut best);
                    if j > 0 {
                        visit(cx - k, cy - j, &mut best);
                    }
                }
                if j < k {
                    visit(cx + j, cy + k, &mut best);
                    visit(cx + j, cy - k, &mut best);
                    if j > 0 {
                        visit(cx - j, cy + k, &mut best);
                        visit(cx - j, cy - k, &mut best);
                    }
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

/// What the pieces of one wall's offset line or one wall end's arc are made from: the
/// mesh (for point location), the radius, the walls (in `f64`) and `near(x, range,
/// out)` listing the walls within `range` of `x` (and maybe more), as a grid lists
/// them. The pieces of a wall or an end are a function of the walls `near` lists
/// within about `2r` of it and of the mesh there, so an update recomputes them only
/// near what changed.
struct Boundary<'a> {
    mesh: &'a NavMesh,
    r: f64,
    walls: &'a [(DVec2, DVec2)],
    near: &'a dyn Fn(DVec2, f64, &mut Vec<u32>),
    /// The tolerance of the free-space tests.
    tol: f64,
}

/// Buffers [`Boundary`] reuses.
#[derive(Default)]
struct Scratch {
    found: Vec<u32>,
    ts: Vec<f64>,
    points: Vec<(f64, DVec2)>,
    crossings: Vec<DVec2>,
}

fn normal((a, b): (DVec2, DVec2)) -> DVec2 {
    (b - a).perp().normalize_or_zero()
}

impl Boundary<'_> {
    /// Whether the disc fits at `x`, to the tolerance (so that no piece of the
    /// boundary is lost to rounding).
    fn free(&self, x: DVec2, found: &mut Vec<u32>) -> bool {
        let (r, tol, walls) = (self.r, self.tol, self.walls);
        (self.near)(x, r + tol, found);
        let clear = found.iter().all(|&j| {
            let (a, b) = walls[j as usize];
            closest_point(x, a, b).distance_squared(x) >= (r - tol).max(0.0).powi(2)
        });
        clear
            && (r <= 64.0 * super::hair(x, r)
                || matches!(self.mesh.locate(x.as_vec2()), Location::Walkable(_)))
    }

    /// The range of `near` that gathers the walls a wall's pieces depend on, round the
    /// wall's midpoint.
    fn wall_range(&self, (a, b): (DVec2, DVec2)) -> f64 {
        0.5 * a.distance(b) + 2.0 * self.r + self.tol
    }

    /// The range of `near` that gathers the walls an end's arcs depend on, round it.
    fn end_range(&self) -> f64 {
        2.0 * self.r + self.tol
    }

    /// Appends the kept pieces of wall `i`'s offset line (at `r = 0`, the wall).
    fn wall(&self, i: usize, s: &mut Scratch, out: &mut Vec<Piece>) {
        let (r, walls) = (self.r, self.walls);
        let (a, b) = walls[i];
        if r == 0.0 {
            // Every wall bounds walkable space.
            out.push(Piece::Segment(a, b));
            return;
        }
        let n = normal((a, b));
        if n == DVec2::ZERO {
            return;
        }
        let (oa, ob) = (a + n * r, b + n * r);
        let Scratch { found, ts, .. } = s;
        ts.clear();
        ts.extend([0.0, 1.0]);
        (self.near)((a + b) * 0.5, self.wall_range((a, b)), found);
        for &j in found.iter() {
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
                .is_some_and(|&t1| self.free(at(0.5 * (ts[k] + t1)), found));
            if !kept_before && !kept_after && self.free(x, found) {
                out.push(Piece::Point(x));
            }
            if kept_after {
                out.push(Piece::Segment(x, at(ts[k + 1])));
            }
            kept_before = kept_after;
        }
    }

    /// Appends the kept arcs round the wall end `c` (for `r > 0`).
    fn end(&self, c: DVec2, s: &mut Scratch, out: &mut Vec<Piece>) {
        let (r, walls) = (self.r, self.walls);
        let Scratch {
            found,
            points,
            crossings,
            ..
        } = s;
        points.clear();
        (self.near)(c, self.end_range(), found);
        crossings.clear();
        for &j in found.iter() {
            let (a, b) = walls[j as usize];
            let m = normal((a, b));
            // The wall's own capsule is tangent to the circle where its offset lines
            // start: split there whatever the rounding.
            if a == c || b == c {
                crossings.extend([c + m * r, c - m * r]);
            }
            super::segment_circle(a + m * r, b + m * r, c, r, crossings);
            super::segment_circle(a - m * r, b - m * r, c, r, crossings);
            for e in [a, b] {
                super::circle_circle(c, e, r, crossings);
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
            if self.free(on(0.0), found) {
                out.push(Piece::Arc {
                    center: c,
                    from: on(0.0),
                    to: on(0.0),
                    small: false,
                    full: true,
                });
            }
            return;
        }
        // Whether the arc from each crossing to the next is kept.
        let kept: Vec<bool> = (0..points.len())
            .map(|k| {
                let angle = points[k].0;
                let next = points.get(k + 1).map_or(points[0].0 + TAU, |x| x.0);
                let span = next - angle;
                span > 0.0 && self.free(on(angle + 0.5 * span), found)
            })
            .collect();
        for k in 0..points.len() {
            let (angle, x) = points[k];
            let before = kept[(k + points.len() - 1) % points.len()];
            if !before && !kept[k] && self.free(x, found) {
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
}

/// The wall ends of `walls`, in order of coordinates, once each (none at `r = 0`).
fn wall_ends(walls: &[(DVec2, DVec2)]) -> Vec<DVec2> {
    let mut ends: Vec<DVec2> = walls.iter().flat_map(|&(a, b)| [a, b]).collect();
    sort_ends(&mut ends);
    ends
}

/// Sorts wall ends by coordinates, once each.
fn sort_ends(ends: &mut Vec<DVec2>) {
    ends.sort_unstable_by(|p, q| order(*p, *q));
    ends.dedup();
}

/// The order of wall ends.
fn order(p: DVec2, q: DVec2) -> std::cmp::Ordering {
    p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y))
}

/// The cells where a disc of the radius fits everywhere: the bitmap
/// `WalkableCells::clear_of` makes (by the same arithmetic), which an update marks
/// again under the changed triangles.
#[derive(Clone, Debug, Default)]
struct FreeCells {
    /// The cells and the pad they are marked with (`None`: no cell marked).
    lattice: Option<Lattice>,
    inv_cell: f64,
    /// Two bits a cell (cells row by row, 32 to a word), so that one look-up answers
    /// both: bit `2c`, the disc fits anywhere in cell `c`; bit `2c + 1`, no point of
    /// cell `c` is walkable.
    bits: Vec<u64>,
}

/// What [`FreeCells`] knows of a point's cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CellClass {
    /// Nothing: the caller locates the point and searches the walls round it.
    Unknown,
    /// The disc fits anywhere in the cell.
    Fits,
    /// No point of the cell is walkable (inside an obstacle or off the mesh).
    Blocked,
}

impl FreeCells {
    /// The cells of side about `cell` over `lo..hi` (the box of the mesh's vertices)
    /// clear of the walls by `reach` and walkable; none at `reach = 0` (a point fits
    /// anywhere walkable: nothing to save).
    fn new(mesh: &NavMesh, walls: &[Segment], lo: DVec2, hi: DVec2, cell: f64, reach: f64) -> Self {
        if reach <= 0.0 || mesh.triangles.is_empty() {
            return FreeCells::default();
        }
        let Some(lattice) = Lattice::over(lo, hi, cell, reach) else {
            return FreeCells::default();
        };
        let (cols, rows) = (lattice.cols, lattice.rows);
        let mut free = FreeCells {
            lattice: Some(lattice),
            inv_cell: 1.0 / lattice.cell,
            bits: vec![0u64; (cols * rows).div_ceil(32)],
        };
        free.mark(mesh, walls.iter(), [0, 0, cols, rows]);
        free
    }

    /// Marks the cells of the window `[x0, y0, x1, y1)` where the disc fits, given
    /// the walls near it, after clearing them.
    fn mark<'w>(
        &mut self,
        mesh: &NavMesh,
        walls: impl Iterator<Item = &'w Segment>,
        window: [usize; 4],
    ) {
        let Some(lattice) = self.lattice else {
            return;
        };
        let cols = lattice.cols;
        let bits = &mut self.bits;
        for y in window[1]..window[3].min(lattice.rows) {
            for x in window[0]..window[2].min(cols) {
                let c = y * cols + x;
                bits[c / 32] &= !(3 << (c % 32 * 2));
            }
        }
        lattice.mark_classes(mesh, walls, window, |x, y, walkable| {
            let c = y * cols + x;
            bits[c / 32] |= (if walkable { 1 } else { 2 }) << (c % 32 * 2);
        });
    }

    /// Marks again the cells a wall or a location could change in after the
    /// triangles of `boxes` changed (as they were and as they are).
    fn remark(&mut self, mesh: &NavMesh, walls: &Walls, boxes: &[(DVec2, DVec2)]) {
        let Some(lattice) = self.lattice else {
            return;
        };
        let (cols, rows) = (lattice.cols, lattice.rows);
        if cols == 0 || rows == 0 {
            return;
        }
        // A wall marks the cells within the pad and half a cell of it.
        let grow = lattice.pad + 2.0 * lattice.cell;
        let cell_of = |x: f64, n: usize| ((x * self.inv_cell).floor().max(0.0) as usize).min(n - 1);
        let mut windows: Vec<[usize; 4]> = Vec::new();
        for &(lo, hi) in boxes {
            if !(lo.is_finite() && hi.is_finite()) {
                windows = vec![[0, 0, cols, rows]];
                break;
            }
            let (lo, hi) = (lo - grow - lattice.origin, hi + grow - lattice.origin);
            windows.push([
                cell_of(lo.x, cols),
                cell_of(lo.y, rows),
                cell_of(hi.x, cols) + 1,
                cell_of(hi.y, rows) + 1,
            ]);
        }
        merge_windows(&mut windows);
        let mut near: Vec<u32> = Vec::new();
        for window in windows {
            lattice.walls_near(walls.grid, window, lattice.cell, &mut near);
            let near_walls = near.iter().filter_map(|&k| walls.segments.get(k as usize));
            self.mark(mesh, near_walls, window);
        }
    }

    /// What the cells know of `p`.
    #[inline]
    fn class(&self, p: DVec2) -> CellClass {
        let Some(lattice) = &self.lattice else {
            return CellClass::Unknown;
        };
        let q = (p - lattice.origin) * self.inv_cell;
        // (Not NaN, inside the lattice; then truncation is the floor.)
        if !(q.x >= 0.0 && q.y >= 0.0 && q.x < lattice.cols as f64 && q.y < lattice.rows as f64) {
            return CellClass::Unknown;
        }
        let c = q.y as usize * lattice.cols + q.x as usize;
        match self.bits.get(c / 32).map(|&w| w >> (c % 32 * 2) & 3) {
            Some(1) => CellClass::Fits,
            Some(2) => CellClass::Blocked,
            _ => CellClass::Unknown,
        }
    }
}

#[cfg(test)]
impl RadiusIndex {
    /// The first difference between this data and `other` (built afresh for the same
    /// mesh on the same frame), if any: every piece, list, grid and bit compared to the
    /// bit.
    pub(crate) fn difference(&self, other: &RadiusIndex) -> Option<String> {
        let v = |p: DVec2| [p.x.to_bits(), p.y.to_bits()];
        let piece = |p: &Piece| match *p {
            Piece::Segment(a, b) => vec![0, v(a)[0], v(a)[1], v(b)[0], v(b)[1]],
            Piece::Point(a) => vec![1, v(a)[0], v(a)[1]],
            Piece::Arc {
                center,
                from,
                to,
                small,
                full,
            } => [v(center), v(from), v(to)]
                .concat()
                .into_iter()
                .chain([2, u64::from(small), u64::from(full)])
                .collect(),
        };
        let binned = |b: &Binned| {
            (
                b.lo.to_array().map(f32::to_bits),
                b.hi.to_array().map(f32::to_bits),
                b.piece,
            )
        };
        let free = |f: &FreeCells| {
            (
                format!("{:?}", f.lattice),
                f.inv_cell.to_bits(),
                f.bits.clone(),
            )
        };
        let packed = |at: &[DVec2; 3]| at.map(v);
        let checks: [(&str, bool); 11] = [
            ("radius", self.radius.to_bits() == other.radius.to_bits()),
            ("scale", self.scale.to_bits() == other.scale.to_bits()),
            (
                "pieces",
                self.pieces
                    .iter()
                    .map(piece)
                    .eq(other.pieces.iter().map(piece)),
            ),
            ("wall starts", self.wall_starts == other.wall_starts),
            (
                "ends",
                self.ends
                    .iter()
                    .map(|&p| v(p))
                    .eq(other.ends.iter().map(|&p| v(p))),
            ),
            ("end starts", self.end_starts == other.end_starts),
            ("free cells", free(&self.free) == free(&other.free)),
            (
                "layout",
                format!("{:?}", self.layout) == format!("{:?}", other.layout),
            ),
            ("starts", self.starts == other.starts),
            (
                "binned",
                self.binned
                    .iter()
                    .map(binned)
                    .eq(other.binned.iter().map(binned)),
            ),
            (
                "packed pieces",
                self.hot.iter().map(packed).eq(other.hot.iter().map(packed)),
            ),
        ];
        checks
            .iter()
            .find(|(_, same)| !same)
            .map(|(what, _)| what.to_string())
    }

    /// The number of pieces kept and of walls they were made from (for tests).
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.pieces.len(), self.wall_starts.len() - 1)
    }
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

#[cfg(test)]
#[path = "query_radius_ray_test.rs"]
mod ray_test;
