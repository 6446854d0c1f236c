//! A uniform grid of a mesh's obstacle corners, for "which corners lie in this box?".
//!
//! Built on first use (a disc query's check beside its channel asks it), kept with the
//! mesh: it depends on the corners only, not on any radius.

use super::NavMesh;
use glam::{DVec2, Vec2};
use std::sync::OnceLock;

/// The grid's cells, about one corner each, row by row; a cell's corners are
/// `items[starts[c]..starts[c + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct CornerGrid {
    origin: DVec2,
    /// Cells per unit of length.
    scale: f64,
    cols: usize,
    rows: usize,
    starts: Vec<u32>,
    /// Each corner's position and vertex id.
    items: Vec<(Vec2, u32)>,
}

/// Most cells along a side of the grid.
const MAX_SIDE: usize = 4096;

impl CornerGrid {
    /// The grid of `mesh`'s obstacle vertices.
    fn new(mesh: &NavMesh) -> CornerGrid {
        let corners: Vec<(Vec2, u32)> = (0..mesh.vertices.len())
            .filter(|&v| mesh.obstacle_vertex[v])
            .map(|v| (mesh.vertices[v], v as u32))
            .collect();
        let Some(&(first, _)) = corners.first() else {
            return CornerGrid::default();
        };
        let (lo, hi) = corners
            .iter()
            .fold((first, first), |(lo, hi), &(p, _)| (lo.min(p), hi.max(p)));
        let (lo, size) = (lo.as_dvec2(), (hi - lo).as_dvec2());
        // Square cells, about one corner per cell, at most `MAX_SIDE` a side.
        let cell = (size.x * size.y / corners.len() as f64)
            .sqrt()
            .max(size.max_element() / (MAX_SIDE - 1) as f64)
            .max(f64::MIN_POSITIVE);
        let side = |extent: f64| ((extent / cell) as usize + 1).min(MAX_SIDE);
        let (cols, rows) = (side(size.x), side(size.y));
        let scale = 1.0 / cell;
        let mut grid = CornerGrid {
            origin: lo,
            scale,
            cols,
            rows,
            starts: vec![0; cols * rows + 1],
            items: vec![(Vec2::ZERO, 0); corners.len()],
        };
        for &(p, _) in &corners {
            let c = grid.cell_of(p.as_dvec2());
            grid.starts[c + 1] += 1;
        }
        for c in 0..cols * rows {
            grid.starts[c + 1] += grid.starts[c];
        }
        let mut fill = grid.starts.clone();
        for &(p, v) in &corners {
            let c = grid.cell_of(p.as_dvec2());
            grid.items[fill[c] as usize] = (p, v);
            fill[c] += 1;
        }
        grid
    }

    /// Column and row of `p`, clamped to the grid (NaN goes to 0).
    fn cell_xy(&self, p: DVec2) -> (usize, usize) {
        let q = (p - self.origin) * self.scale;
        let clamp = |v: f64, n: usize| (v.max(0.0) as usize).min(n - 1);
        (clamp(q.x, self.cols), clamp(q.y, self.rows))
    }

    fn cell_of(&self, p: DVec2) -> usize {
        let (x, y) = self.cell_xy(p);
        y * self.cols + x
    }

    /// The side of a cell.
    pub(crate) fn cell(&self) -> f64 {
        1.0 / self.scale
    }

    /// Calls `f` with every corner (position, vertex id) in the box from `lo` to `hi`
    /// (edges included) until it returns `true`; returns whether one did.
    pub(crate) fn any_in(
        &self,
        lo: DVec2,
        hi: DVec2,
        mut f: impl FnMut(Vec2, u32) -> bool,
    ) -> bool {
        if self.items.is_empty() {
            return false;
        }
        let ((x0, y0), (x1, y1)) = (self.cell_xy(lo), self.cell_xy(hi));
        (y0..=y1).any(|y| {
            let row = y * self.cols;
            let (a, b) = (self.starts[row + x0], self.starts[row + x1 + 1]);
            self.items[a as usize..b as usize].iter().any(|&(p, v)| {
                let q = p.as_dvec2();
                q.cmpge(lo).all() && q.cmple(hi).all() && f(p, v)
            })
        })
    }
}

/// The lazily built [`CornerGrid`] of a mesh.
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyCornerGrid(OnceLock<CornerGrid>);

impl NavMesh {
    /// The grid of this mesh's obstacle corners, built on first use.
    pub(crate) fn corner_grid(&self) -> &CornerGrid {
        self.corner_grid.0.get_or_init(|| CornerGrid::new(self))
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A query box finds exactly the obstacle corners inside it, each once, on random
    /// worlds and boxes.
    #[test]
    fn boxes_find_every_corner_inside() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..4 {
            let mesh =
                crate::mesh::test_worlds::quad_room(&mut rng, 30, 0.0..28.0, 0.2..3.0, |_| 0.0);
            let grid = mesh.corner_grid();
            for _ in 0..200 {
                let mut point = || DVec2::new(rng.gen_range(-2.0..32.0), rng.gen_range(-2.0..32.0));
                let (p, q) = (point(), point());
                let (lo, hi) = (p.min(q), p.max(q));
                let mut found = Vec::new();
                grid.any_in(lo, hi, |_, v| {
                    found.push(v);
                    false
                });
                found.sort_unstable();
                let inside = |v: usize| {
                    let w = mesh.vertices[v].as_dvec2();
                    w.cmpge(lo).all() && w.cmple(hi).all()
                };
                let expected: Vec<u32> = (0..mesh.vertices.len())
                    .filter(|&v| mesh.obstacle_vertex[v] && inside(v))
                    .map(|v| v as u32)
                    .collect();
                assert_eq!(found, expected);
            }
        }
    }
}
