//! The world's spatial indexes: the point grid over the agents (rebuilt every step)
//! and the wall grid over the mesh's walls (rebuilt with the mesh).

use super::agent::Agent;
use crate::geom::Segment;
use crate::grid::{PointGrid, WallGrid};
use crate::mesh::NavMesh;
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
#[derive(Debug)]
pub(super) struct Walls {
    pub segments: Vec<Segment>,
    pub grid: WallGrid,
}

impl Walls {
    /// The walls of `mesh` (none without a mesh).
    pub fn of(mesh: Option<&NavMesh>) -> Walls {
        let segments: Vec<Segment> = mesh.map(|m| m.walls().collect()).unwrap_or_default();
        let grid = WallGrid::new(&segments, wall_cell_size(&segments));
        Walls { segments, grid }
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
