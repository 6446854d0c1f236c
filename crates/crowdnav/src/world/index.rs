//! The world's spatial indexes: the point grid over the agents (rebuilt every step)
//! and the wall grid over the mesh's walls (built with the mesh, updated where an edit
//! changed them).

use super::agent::Agent;
use crate::geom::Segment;
use crate::grid::{PointGrid, WallGrid};
use crate::mesh::{NavMesh, TriangleId};
use glam::Vec2;
use rayon::prelude::*;

/// The agents' positions and the point grid over them, for neighbour queries,
/// collision candidates, portal steering and measures.
#[derive(Debug, Default)]
pub(super) struct PointIndex {
    pub grid: PointGrid,
    /// Every agent's position when the grid was built, in agent order.
    pub positions: Vec<Vec2>,
    /// Whether the grid holds the agents' current positions: it is rebuilt at the end
    /// of a step for measuring and serves the next step's steering, unless agents were
    /// added, removed or moved by hand since.
    fresh: bool,
}

impl PointIndex {
    /// Rebuilds the grid over `agents`. Cells of about 2.5 of the largest radius
    /// `max_r`: a few agents per cell in a dense crowd, so the nearest-neighbour search
    /// stops after a ring or two (but at least an eighth of `neighbor_dist`).
    pub fn rebuild(&mut self, agents: &[Agent], max_r: f32, neighbor_dist: f32) {
        self.positions.clear();
        self.positions
            .par_extend(agents.par_iter().map(|a| a.position));
        let cell = (2.5 * max_r).max(neighbor_dist / 8.0).max(0.1);
        self.grid.rebuild(&self.positions, cell);
        self.fresh = true;
    }

    /// Whether the grid holds the agents' current positions.
    pub fn is_fresh(&self) -> bool {
        self.fresh
    }

    /// Marks the grid as no longer holding the agents' current positions.
    pub fn invalidate(&mut self) {
        self.fresh = false;
    }
}

/// The mesh's wall segments (walkable on the left) and the grid over them.
///
/// The walls are listed triangle by triangle in the mesh's order, and each
/// triangle's in edge order, as [`NavMesh::walls`] gives them. After a mesh edit,
/// [`Walls::follow`] drops the walls of the triangles the edit changed, takes those of
/// their new content and renumbers the others; in the grid, only the cells those walls
/// pass through change their walls (the others' numbers shift past the changed
/// ones, in one pass over the cells): the list and the grid are to the bit what [`Walls::on_layout`]
/// builds from the edited mesh on the same cells. The cells stay those laid when the
/// mesh was handed to the world (every query of the grid checks its walls' distance,
/// so the cells change the speed of a query, never its answer).
#[derive(Debug)]
pub(super) struct Walls {
    pub segments: Vec<Segment>,
    pub grid: WallGrid,
    /// Per triangle of the mesh: its vertices and which of its edges are walls (bit
    /// `e` for edge `e`; none for a blocked triangle), as the walls were last taken.
    triangles: Vec<([u32; 3], u8)>,
    /// Per triangle, where its walls start in `segments` (one more entry at the end).
    first: Vec<u32>,
}

impl Walls {
    /// The walls of `mesh` (none without a mesh), on cells of about four average wall
    /// lengths.
    pub fn of(mesh: Option<&NavMesh>) -> Walls {
        let mut walls = Walls::without_grid(mesh);
        walls.grid = WallGrid::new(&walls.segments, wall_cell_size(&walls.segments));
        walls
    }

    /// The walls of `mesh` (none without a mesh) on the cells of `layout`: what
    /// [`Walls::follow`] gives after an edit, built whole.
    #[cfg(test)]
    pub fn on_layout(mesh: Option<&NavMesh>, layout: crate::grid::Layout) -> Walls {
        let mut walls = Walls::without_grid(mesh);
        walls.grid = WallGrid::with_layout(&walls.segments, layout);
        walls
    }

    /// The walls of `mesh` (none without a mesh), the grid left empty.
    fn without_grid(mesh: Option<&NavMesh>) -> Walls {
        let mut walls = Walls {
            segments: Vec::new(),
            grid: WallGrid::default(),
            triangles: Vec::new(),
            first: vec![0],
        };
        let Some(mesh) = mesh else {
            return walls;
        };
        let count = mesh.triangle_count();
        walls.triangles.reserve(count);
        walls.first.clear();
        walls.first.reserve(count + 1);
        for t in 0..count {
            let key = triangle_key(mesh, t);
            walls.first.push(walls.segments.len() as u32);
            push_walls(mesh, t, key, &mut walls.segments);
            walls.triangles.push(key);
        }
        walls.first.push(walls.segments.len() as u32);
        walls
    }

    /// Follows an edit of `mesh` (the mesh these walls were taken from, edited since):
    /// the walls of the triangles whose vertices or walls changed are taken again and
    /// the grid updated where they pass (see [`Walls`]). Where a new wall would fall
    /// outside the grid's cells (not seen: edits only shrink or give back the walkable
    /// space the level had), everything is built again as by [`Walls::of`].
    pub fn follow(&mut self, mesh: &NavMesh) {
        let count = mesh.triangle_count();
        let old = self.triangles.len();
        let mut triangles = Vec::with_capacity(count);
        let mut first = Vec::with_capacity(count + 1);
        let mut segments = Vec::with_capacity(self.segments.len() + 8);
        // Old wall → new wall (`u32::MAX`: gone); the new walls' indices.
        let mut remap = vec![u32::MAX; self.segments.len()];
        let mut added = Vec::new();
        for t in 0..count {
            let key = triangle_key(mesh, t);
            first.push(segments.len() as u32);
            if t < old && self.triangles[t] == key {
                let (a, b) = (self.first[t] as usize, self.first[t + 1] as usize);
                for (slot, &wall) in remap[a..b].iter_mut().zip(&self.segments[a..b]) {
                    *slot = segments.len() as u32;
                    segments.push(wall);
                }
            } else {
                let start = segments.len() as u32;
                push_walls(mesh, t, key, &mut segments);
                added.extend(start..segments.len() as u32);
            }
            triangles.push(key);
        }
        first.push(segments.len() as u32);
        if !self.grid.update(&segments, &remap, &added) {
            *self = Walls::of(Some(mesh));
            return;
        }
        self.segments = segments;
        self.triangles = triangles;
        self.first = first;
    }
}

#[cfg(test)]
impl Walls {
    /// Whether the per-triangle records of `self` and `other` are the same.
    pub fn same_bookkeeping(&self, other: &Walls) -> bool {
        self.triangles == other.triangles && self.first == other.first
    }
}

/// Triangle `t` of `mesh`: its vertices and which of its edges are walls.
fn triangle_key(mesh: &NavMesh, t: usize) -> ([u32; 3], u8) {
    let id = TriangleId(t as u32);
    let vertices = mesh.triangles[t];
    let mut walls = 0u8;
    if mesh.is_walkable(id) {
        for e in 0..3 {
            if mesh.is_wall(id, e) {
                walls |= 1 << e;
            }
        }
    }
    (vertices, walls)
}

/// Appends the walls of triangle `t` (its `key`) to `out`, as [`NavMesh::walls`] does.
fn push_walls(mesh: &NavMesh, t: usize, key: ([u32; 3], u8), out: &mut Vec<Segment>) {
    for e in 0..3 {
        if key.1 & (1 << e) != 0 {
            out.push(mesh.edge_segment(TriangleId(t as u32), e));
        }
    }
}

/// Cell size for the wall grid: about four average wall lengths, at least 1 m.
fn wall_cell_size(walls: &[Segment]) -> f32 {
    if walls.is_empty() {
        return 1.0;
    }
    let mean = walls.iter().map(|w| w.length()).sum::<f32>() / walls.len() as f32;
    (4.0 * mean).max(1.0)
}
