//! The reach boxes of a mesh's triangles on a grid, for an edit's question "which
//! triangles' reach boxes meet the changed box?" (see `NavMesh::reach_box` in
//! `edit.rs`): the answer is exactly the triangles a test of every box would find, but
//! only the boxes filed near the changed box are tested.
//!
//! Each box is filed in one cell: the cell holding its low corner, on the finest level
//! of square cells whose side is at least the box's longer side (levels of sides
//! `s, 2s, 4s, …` over the mesh's bounding box, then one cell for everything larger).
//! A box meeting `[lo, hi]` has its low corner in `[lo - side, hi]`, so on each level
//! the cells over that range (one more on the low side for rounding) hold every box
//! there that can meet it. Boxes that can meet no finite box (those of blocked
//! triangles: empty) are filed nowhere.

use glam::{DVec2, Vec2};

/// A triangle's reach box: low and high corners.
pub(super) type ReachBox = [Vec2; 2];

/// The box of a triangle no edit re-measures (blocked, or not measured yet).
pub(super) const EMPTY_BOX: ReachBox = [Vec2::INFINITY, Vec2::NEG_INFINITY];

/// `cell_of` of a box filed nowhere.
const NOWHERE: u32 = u32::MAX;

/// Average number of boxes a cell of the finest level would hold were they spread
/// evenly over the mesh's bounding box (about half the triangles are blocked, with
/// empty boxes filed nowhere).
const PER_CELL: f64 = 8.0;

/// A level of square cells of side `side` over the frame, `nx` by `ny`, its cells
/// numbered from `first` row by row. The last level has one cell and an infinite side.
#[derive(Clone, Copy, Debug)]
struct Level {
    first: u32,
    nx: u32,
    ny: u32,
    side: f64,
    inv: f64,
}

impl Level {
    /// The column (`axis` 0) or row (1) holding coordinate `x`, clamped into the level.
    fn index(&self, x: f64, origin: f64, axis: usize) -> u32 {
        let count = if axis == 0 { self.nx } else { self.ny };
        let i = ((x - origin) * self.inv).floor();
        // `as` saturates, and takes NaN to 0.
        (i.max(0.0) as u32).min(count - 1)
    }
}

/// Per triangle its reach box, and the boxes filed on levels of grids.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReachIndex {
    boxes: Vec<ReachBox>,
    /// Per triangle, the cell its box is filed in (or [`NOWHERE`]) and its place there.
    cell_of: Vec<(u32, u32)>,
    /// The triangles filed in each cell with their boxes (read in one sweep), in no
    /// particular order.
    cells: Vec<Vec<(ReachBox, u32)>>,
    levels: Vec<Level>,
    origin: DVec2,
}

impl ReachIndex {
    /// The index of `boxes` (one per triangle), its grids over the box `lo..hi` (the
    /// mesh's vertices'; boxes outside are filed in the cells at the edge).
    pub(super) fn new(lo: Vec2, hi: Vec2, boxes: Vec<ReachBox>) -> ReachIndex {
        let (lo64, hi64) = (lo.as_dvec2(), hi.as_dvec2());
        let size = hi64 - lo64;
        let mut levels = Vec::new();
        let mut cells = 0u32;
        if lo64.is_finite() && hi64.is_finite() && size.cmpge(DVec2::ZERO).all() {
            // Cells of about PER_CELL boxes (at least a 1/1024 of the longer side, and
            // far above f64's rounding at these coordinates).
            let extent = size.max_element();
            let mut side = (size.x * size.y * PER_CELL / boxes.len().max(1) as f64)
                .sqrt()
                .max(extent / 1024.0)
                .max(1e-6 * (1.0 + lo64.abs().max(hi64.abs()).max_element()));
            while levels.len() < 40 {
                let nx = (size.x / side).floor() as u32 + 1;
                let ny = (size.y / side).floor() as u32 + 1;
                levels.push(Level {
                    first: cells,
                    nx,
                    ny,
                    side,
                    inv: 1.0 / side,
                });
                cells += nx * ny;
                if nx <= 2 && ny <= 2 {
                    break;
                }
                side *= 2.0;
            }
        }
        levels.push(Level {
            first: cells,
            nx: 1,
            ny: 1,
            side: f64::INFINITY,
            inv: 0.0,
        });
        let mut index = ReachIndex {
            boxes: Vec::new(),
            cell_of: Vec::new(),
            cells: vec![Vec::new(); cells as usize + 1],
            levels,
            origin: lo64,
        };
        index.resize(boxes.len());
        for (t, b) in boxes.into_iter().enumerate() {
            index.set(t as u32, b);
        }
        index
    }

    /// How many triangles the index holds.
    pub(super) fn len(&self) -> usize {
        self.boxes.len()
    }

    /// The reach box of triangle `t`.
    pub(super) fn get(&self, t: u32) -> ReachBox {
        self.boxes[t as usize]
    }

    /// The cell box `b` is filed in, or [`NOWHERE`] when it can meet no finite box.
    fn cell(&self, [lo, hi]: ReachBox) -> u32 {
        if !(lo.x < f32::INFINITY
            && lo.y < f32::INFINITY
            && hi.x > f32::NEG_INFINITY
            && hi.y > f32::NEG_INFINITY)
        {
            return NOWHERE;
        }
        let (lo, hi) = (lo.as_dvec2(), hi.as_dvec2());
        let longer = (hi - lo).max_element();
        let level = self
            .levels
            .iter()
            .find(|l| longer <= l.side)
            .or(self.levels.last());
        let Some(level) = level else {
            return NOWHERE;
        };
        let x = level.index(lo.x, self.origin.x, 0);
        let y = level.index(lo.y, self.origin.y, 1);
        level.first + y * level.nx + x
    }

    /// Sets the reach box of triangle `t` (below [`ReachIndex::len`]).
    pub(super) fn set(&mut self, t: u32, b: ReachBox) {
        let bits = |b: ReachBox| b.map(|c| c.to_array().map(f32::to_bits));
        let old = &mut self.boxes[t as usize];
        if bits(*old) == bits(b) {
            return;
        }
        *old = b;
        let ((from, at), to) = (self.cell_of[t as usize], self.cell(b));
        if from == to {
            if to != NOWHERE {
                self.cells[to as usize][at as usize].0 = b;
            }
            return;
        }
        if from != NOWHERE {
            let cell = &mut self.cells[from as usize];
            cell.swap_remove(at as usize);
            if let Some(&(_, u)) = cell.get(at as usize) {
                self.cell_of[u as usize].1 = at;
            }
        }
        let mut place = 0;
        if to != NOWHERE {
            let cell = &mut self.cells[to as usize];
            place = cell.len() as u32;
            cell.push((b, t));
        }
        self.cell_of[t as usize] = (to, place);
    }

    /// Grows the index to `n` triangles (the new ones with empty boxes) or shrinks it,
    /// dropping triangles `n..`.
    pub(super) fn resize(&mut self, n: usize) {
        for t in n..self.boxes.len() {
            self.set(t as u32, EMPTY_BOX);
        }
        self.boxes.resize(n, EMPTY_BOX);
        self.cell_of.resize(n, (NOWHERE, 0));
    }

    /// The triangles whose reach boxes meet `[lo, hi]` (closed), in increasing order.
    pub(super) fn meeting(&self, lo: Vec2, hi: Vec2) -> Vec<u32> {
        let meets = |[blo, bhi]: &ReachBox| blo.cmple(hi).all() && lo.cmple(*bhi).all();
        if !(lo.is_finite() && hi.is_finite()) {
            return self.meeting_every(lo, hi);
        }
        let (lo64, hi64) = (lo.as_dvec2(), hi.as_dvec2());
        let mut found = Vec::new();
        for level in &self.levels {
            let (x0, y0, x1, y1) = if level.side.is_finite() {
                let from = lo64 - level.side;
                (
                    level.index(from.x, self.origin.x, 0).saturating_sub(1),
                    level.index(from.y, self.origin.y, 1).saturating_sub(1),
                    level.index(hi64.x, self.origin.x, 0),
                    level.index(hi64.y, self.origin.y, 1),
                )
            } else {
                (0, 0, 0, 0)
            };
            for y in y0..=y1 {
                let row = level.first + y * level.nx;
                for cell in &self.cells[(row + x0) as usize..=(row + x1) as usize] {
                    found.extend(cell.iter().filter(|(b, _)| meets(b)).map(|&(_, t)| t));
                }
            }
        }
        found.sort_unstable();
        found
    }

    /// The same as [`ReachIndex::meeting`], by a test of every box.
    pub(super) fn meeting_every(&self, lo: Vec2, hi: Vec2) -> Vec<u32> {
        self.boxes
            .iter()
            .enumerate()
            .filter(|(_, [blo, bhi])| blo.cmple(hi).all() && lo.cmple(*bhi).all())
            .map(|(t, _)| t as u32)
            .collect()
    }

    /// Panics unless every box is filed where [`ReachIndex::set`] files it, once.
    #[cfg(test)]
    pub(super) fn check(&self) {
        assert_eq!(self.boxes.len(), self.cell_of.len());
        let mut filed = vec![NOWHERE; self.boxes.len()];
        for (c, cell) in self.cells.iter().enumerate() {
            for (i, &(b, t)) in cell.iter().enumerate() {
                assert_eq!(filed[t as usize], NOWHERE, "triangle {t} filed twice");
                assert_eq!(
                    self.cell_of[t as usize],
                    (c as u32, i as u32),
                    "triangle {t}"
                );
                assert_eq!(b, self.boxes[t as usize], "triangle {t}'s box");
                filed[t as usize] = c as u32;
            }
        }
        for (t, &b) in self.boxes.iter().enumerate() {
            assert_eq!(filed[t], self.cell(b), "triangle {t}: box {b:?}");
            if filed[t] == NOWHERE {
                assert_eq!(self.cell_of[t].0, NOWHERE, "triangle {t}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random box: mostly small ones near the frame, some large, some outside the
    /// frame, some empty or with infinite or NaN sides.
    fn random_box(rng: &mut ChaCha8Rng) -> ReachBox {
        let c = Vec2::new(rng.gen_range(-20.0..120.0), rng.gen_range(-20.0..80.0));
        let r = match rng.gen_range(0..10) {
            0 => return EMPTY_BOX,
            1 => rng.gen_range(20.0..200.0),
            2 => match rng.gen_range(0..3) {
                0 => f32::INFINITY,
                1 => f32::NAN,
                _ => -1.0,
            },
            _ => rng.gen_range(0.0..4.0),
        };
        let s = Vec2::new(r, r * rng.gen_range(0.2..1.0));
        [c - s, c + s]
    }

    /// Over random sets, moves and resizes, the grid finds exactly the boxes a test of
    /// every box finds, for random query boxes (finite or not).
    #[test]
    fn the_grid_finds_exactly_what_a_test_of_every_box_finds() {
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        for round in 0..20 {
            let n = rng.gen_range(0..400);
            let boxes = (0..n).map(|_| random_box(&mut rng)).collect();
            let (lo, hi) = if round == 0 {
                (Vec2::ZERO, Vec2::ZERO)
            } else {
                (Vec2::ZERO, Vec2::new(100.0, 60.0))
            };
            let mut index = ReachIndex::new(lo, hi, boxes);
            for _ in 0..200 {
                match rng.gen_range(0..6) {
                    0 => index.resize(rng.gen_range(0..500)),
                    1 if index.len() > 1 => {
                        let (a, b) = (rng.gen_range(0..index.len()), rng.gen_range(0..index.len()));
                        index.set(b as u32, index.get(a as u32));
                    }
                    _ if index.len() > 0 => {
                        let t = rng.gen_range(0..index.len()) as u32;
                        index.set(t, random_box(&mut rng));
                    }
                    _ => {}
                }
                index.check();
                let q = random_box(&mut rng);
                assert_eq!(index.meeting(q[0], q[1]), index.meeting_every(q[0], q[1]));
                let c = Vec2::new(rng.gen_range(-30.0..130.0), rng.gen_range(-30.0..90.0));
                let s = Vec2::splat(rng.gen_range(0.0..30.0));
                assert_eq!(
                    index.meeting(c - s, c + s),
                    index.meeting_every(c - s, c + s)
                );
            }
        }
    }
}
