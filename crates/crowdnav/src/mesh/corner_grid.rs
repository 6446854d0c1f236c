//! A grid of a mesh's obstacle corners, for "which corners lie in this box?".
//!
//! Built on first use (a disc query's check beside its channel asks it), kept with the
//! mesh: it depends on the corners only, not on any radius. An edit keeps a built grid
//! aside; its first use after the edit brings it up to date (see
//! [`CornerGrid::update`]): the corners the edit made are listed beside the grid, those
//! it unmade are skipped, and the grid is built afresh once the list grows long.

use super::NavMesh;
use crate::grid::{dense_side, PointGrid};
use glam::{DVec2, Vec2};

/// The obstacle corners of a mesh on a [`PointGrid`] of about one corner per cell.
#[derive(Clone, Debug, Default)]
pub(crate) struct CornerGrid {
    grid: PointGrid,
    /// The vertex id of each of the grid's points.
    ids: Vec<u32>,
    /// Per vertex of the mesh: whether it is an obstacle corner (the grid's points,
    /// and `extra`'s, that are not are skipped).
    live: Vec<bool>,
    /// Corners made since the grid was built (position, vertex id), in the order found.
    extra: Vec<(Vec2, u32)>,
}

impl CornerGrid {
    /// The grid of `mesh`'s obstacle vertices.
    fn new(mesh: &NavMesh) -> CornerGrid {
        let ids: Vec<u32> = (0..mesh.vertices.len() as u32)
            .filter(|&v| mesh.obstacle_vertex[v as usize])
            .collect();
        let points: Vec<Vec2> = ids.iter().map(|&v| mesh.vertices[v as usize]).collect();
        let live = mesh.obstacle_vertex.clone();
        let Some(&first) = points.first() else {
            return CornerGrid {
                live,
                ..CornerGrid::default()
            };
        };
        let (lo, hi) = points
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        // Square cells of about one corner each (the grid grows them if too many).
        let cell = dense_side(lo, hi, points.len(), 1.0);
        let mut grid = PointGrid::default();
        grid.rebuild(&points, cell);
        CornerGrid {
            grid,
            ids,
            live,
            extra: Vec::new(),
        }
    }

    /// Brings the grid, built for an earlier state of `mesh`, up to date: vertices
    /// that stopped being obstacle corners are skipped from now on, new corners listed
    /// beside the grid (one pass over the vertices' flags). Built afresh when that list
    /// passes a quarter of the grid's corners.
    fn update(&mut self, mesh: &NavMesh) {
        let old = self.live.len();
        self.live.resize(mesh.vertices.len(), false);
        // A corner the grid or the list holds: those the grid was built with and those
        // listed since (whether live or not now).
        let held = |grid: &CornerGrid, v: u32| {
            grid.ids.binary_search(&v).is_ok() || grid.extra.iter().any(|&(_, u)| u == v)
        };
        for (v, &now) in mesh.obstacle_vertex.iter().enumerate() {
            if self.live[v] == now {
                continue;
            }
            self.live[v] = now;
            if now && (v >= old || !held(self, v as u32)) {
                self.extra.push((mesh.vertices[v], v as u32));
            }
        }
        if self.extra.len() > 64 + self.ids.len() / 4 {
            *self = CornerGrid::new(mesh);
        }
    }

    /// The side of a cell (infinite without corners).
    pub(crate) fn cell(&self) -> f64 {
        match self.ids.is_empty() {
            true => f64::INFINITY,
            false => f64::from(self.grid.cell()),
        }
    }

    /// Calls `f` with every corner (position, vertex id) in the box from `lo` to `hi`
    /// (edges included) until it returns `true`; returns whether one did. The order of
    /// the calls is unspecified: `f` should be a test whose answer does not depend on it.
    pub(crate) fn any_in(
        &self,
        lo: DVec2,
        hi: DVec2,
        mut f: impl FnMut(Vec2, u32) -> bool,
    ) -> bool {
        let inside = |p: Vec2| {
            let q = p.as_dvec2();
            q.cmpge(lo).all() && q.cmple(hi).all()
        };
        // The box rounded to `f32` keeps every `f32` point of the exact one (rounding is
        // monotone), and the exact test is made again.
        self.grid.any_in_box(lo.as_vec2(), hi.as_vec2(), |i, p| {
            let v = self.ids[i as usize];
            inside(p) && self.live[v as usize] && f(p, v)
        }) || self
            .extra
            .iter()
            .any(|&(p, v)| inside(p) && self.live[v as usize] && f(p, v))
    }

    /// The corners the grid holds, live, by vertex id (for tests).
    #[cfg(test)]
    pub(crate) fn corners(&self) -> Vec<(u32, [u32; 2])> {
        let mut all: Vec<(u32, [u32; 2])> = Vec::new();
        self.any_in(DVec2::splat(-1e30), DVec2::splat(1e30), |p, v| {
            all.push((v, p.to_array().map(f32::to_bits)));
            false
        });
        all.sort_unstable();
        all
    }
}

/// The [`CornerGrid`] of a mesh, built on first use; an edit keeps a built one aside
/// for its first use after the edit to bring up to date.
pub(crate) type LazyCornerGrid = super::lazy::Refreshed<CornerGrid>;

impl NavMesh {
    /// The grid of this mesh's obstacle corners, built on first use.
    pub(crate) fn corner_grid(&self) -> &CornerGrid {
        self.corner_grid.get(|stale| match stale {
            Some(mut grid) => {
                grid.update(self);
                grid
            }
            None => CornerGrid::new(self),
        })
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
