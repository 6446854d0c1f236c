//! A grid of a mesh's obstacle corners, for "which corners lie in this box?".
//!
//! Built on first use (a disc query's check beside its channel asks it), kept with the
//! mesh: it depends on the corners only, not on any radius.

use super::NavMesh;
use crate::grid::{dense_side, PointGrid};
use glam::{DVec2, Vec2};
use std::sync::OnceLock;

/// The obstacle corners of a mesh on a [`PointGrid`] of about one corner per cell.
#[derive(Clone, Debug, Default)]
pub(crate) struct CornerGrid {
    grid: PointGrid,
    /// The vertex id of each of the grid's points.
    ids: Vec<u32>,
}

impl CornerGrid {
    /// The grid of `mesh`'s obstacle vertices.
    fn new(mesh: &NavMesh) -> CornerGrid {
        let ids: Vec<u32> = (0..mesh.vertices.len() as u32)
            .filter(|&v| mesh.obstacle_vertex[v as usize])
            .collect();
        let points: Vec<Vec2> = ids.iter().map(|&v| mesh.vertices[v as usize]).collect();
        let Some(&first) = points.first() else {
            return CornerGrid::default();
        };
        let (lo, hi) = points
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        // Square cells of about one corner each (the grid grows them if too many).
        let cell = dense_side(lo, hi, points.len(), 1.0);
        let mut grid = PointGrid::default();
        grid.rebuild(&points, cell);
        CornerGrid { grid, ids }
    }

    /// The side of a cell (infinite without corners).
    pub(crate) fn cell(&self) -> f64 {
        match self.ids.is_empty() {
            true => f64::INFINITY,
            false => f64::from(self.grid.cell()),
        }
    }

    /// Calls `f` with every corner (position, vertex id) in the box from `lo` to `hi`
    /// (edges included) until it returns `true`; returns whether one did.
    pub(crate) fn any_in(
        &self,
        lo: DVec2,
        hi: DVec2,
        mut f: impl FnMut(Vec2, u32) -> bool,
    ) -> bool {
        // The box rounded to `f32` keeps every `f32` point of the exact one (rounding is
        // monotone), and the exact test is made again.
        self.grid.any_in_box(lo.as_vec2(), hi.as_vec2(), |i, p| {
            let q = p.as_dvec2();
            q.cmpge(lo).all() && q.cmple(hi).all() && f(p, self.ids[i as usize])
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
