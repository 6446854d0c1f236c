//! How the query index follows a mesh's edits: the first query after an edit (or
//! [`NavMesh::prepare_queries`]) brings the index the edit kept aside up to date,
//! changing only what the triangles the edit changed can reach, so that it is to the
//! bit the index [`QueryIndex::new`] builds for the edited mesh.
//!
//! - **Frame.** The grids' cells are sized by the box of the mesh's vertices and its
//!   wall count ([`Frame`]); the first edit after an index was built keeps that
//!   index's frame with the mesh, so that an index built afresh for the edited mesh
//!   lies on the same cells as the one brought up to date. (The cells change the speed
//!   of a query, never its answer.)
//! - **Walls, hull, areas.** One pass over the triangles compares each one's corners,
//!   walkability, walls and hull edges with those last taken ([`TriangleKey`]): the
//!   walls of unchanged triangles are renumbered, those of changed ones taken again,
//!   in the mesh's order, as [`NavMesh::walls`] lists them. The running sums of the
//!   walkable areas (for the random points) are summed again: a pass over an array of
//!   `f64` (tens of microseconds on aurora's 70 000 triangles), inherently linear as
//!   a prefix sum is.
//! - **Grids.** The wall grid and the built ray grids are patched: the walls kept
//!   renumbered, the new ones added to the cells they reach (one pass over the cells'
//!   lists). The bitmap of walkable cells is measured again in the cells the changed
//!   triangles cover, the walk's records of the changed triangles and of their
//!   neighbours made again.
//! - **Per-radius boundaries** of the nearest-point queries are dropped: the next
//!   nearest point at a radius builds its boundary again (see `mesh/query_radius.rs`).

use super::QueryIndex;
use crate::geom::Segment;
use crate::grid::{dense_side, Layout, WallGrid, MAX_CELLS};
use crate::mesh::navmesh::{NavMesh, TriangleId, NONE};
use glam::{DVec2, Vec2};

/// What sizes the query index's grids: the box of the mesh's vertices, its wall count
/// and the wall grid's cells, as measured when the index was first built; kept with the
/// mesh by its edits (see the [module](self)'s notes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// Low corner of the vertices' box.
    pub(crate) lo: DVec2,
    /// High corner of the vertices' box.
    pub(crate) hi: DVec2,
    /// The number of walls.
    pub(crate) walls: usize,
    /// The wall grid's cells.
    pub(crate) grid: Layout,
}

impl Frame {
    /// The frame an index of `mesh` lies in: the one its edits kept, else measured.
    pub(crate) fn of(mesh: &NavMesh) -> Frame {
        mesh.obstacles
            .query_frame
            .unwrap_or_else(|| Frame::measure(mesh))
    }

    /// The frame of `mesh` as it is.
    fn measure(mesh: &NavMesh) -> Frame {
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for &v in &mesh.vertices {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let (mut wlo, mut whi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        let mut walls = 0;
        for w in mesh.walls() {
            wlo = wlo.min(w.a).min(w.b);
            whi = whi.max(w.a).max(w.b);
            walls += 1;
        }
        let cell = dense_side(lo, hi, walls.max(1), 2.0);
        // The wall grid over the walls' box (over the vertices' without walls).
        let grid = match walls {
            0 => Layout::fit(lo, hi, cell, MAX_CELLS),
            _ => Layout::fit(wlo, whi, cell, MAX_CELLS),
        };
        Frame {
            lo: lo.as_dvec2(),
            hi: hi.as_dvec2(),
            walls,
            grid,
        }
    }

    /// The side of the query grid's cells, as asked for.
    pub(crate) fn grid_cell(&self) -> f32 {
        dense_side(self.lo.as_vec2(), self.hi.as_vec2(), self.walls.max(1), 2.0)
    }

    /// The side asked for the cells of the bitmap of walkable cells.
    pub(crate) fn walkable_cell(&self) -> f64 {
        f64::from(dense_side(
            self.lo.as_vec2(),
            self.hi.as_vec2(),
            self.walls.max(1),
            super::WALLS_PER_WALKABLE_CELL,
        ))
    }
}

/// What a triangle's walls, hull edges and area depend on: its corners, and its
/// walkable bit, wall bits (bits 1 to 3, a walkable triangle's only) and hull bits
/// (bits 4 to 6: no triangle across the edge).
pub(crate) type TriangleKey = ([u32; 3], u8);

/// The key of triangle `t`.
fn key_of(mesh: &NavMesh, t: usize) -> TriangleKey {
    let id = TriangleId(t as u32);
    let walkable = mesh.is_walkable(id);
    let mut bits = u8::from(walkable);
    for e in 0..3 {
        if walkable && mesh.is_wall(id, e) {
            bits |= 2 << e;
        }
        if mesh.neighbors[t][e] == NONE {
            bits |= 16 << e;
        }
    }
    (mesh.triangles[t], bits)
}

/// The corners of a triangle's key.
fn corners(mesh: &NavMesh, key: &TriangleKey) -> [Vec2; 3] {
    key.0.map(|v| mesh.vertices[v as usize])
}

/// The per-triangle tables of a query index: see [`Tables::take`].
pub(crate) struct Tables {
    pub(crate) keys: Vec<TriangleKey>,
    pub(crate) first: Vec<u32>,
    pub(crate) walls: Vec<Segment>,
    pub(crate) hull: Vec<(DVec2, DVec2)>,
    pub(crate) area_triangles: Vec<u32>,
    pub(crate) areas: Vec<f64>,
    pub(crate) area_sums: Vec<f64>,
    /// Old wall → new wall (`u32::MAX`: gone).
    pub(crate) remap: Vec<u32>,
    /// The new walls' indices, increasing.
    pub(crate) added: Vec<u32>,
    /// The triangles whose keys changed, increasing (those past the old count too).
    pub(crate) changed: Vec<u32>,
    /// The boxes of the changed triangles, as they were and as they are.
    pub(crate) boxes: Vec<(DVec2, DVec2)>,
}

impl Tables {
    /// The walls (triangle by triangle, each triangle's in edge order, as
    /// [`NavMesh::walls`]), the hull edges (likewise), the walkable triangles with their
    /// areas and running sums, and per triangle its key and where its walls start:
    /// from `old` (an index of an earlier state of the mesh) where a triangle's key is
    /// unchanged, else taken from the mesh.
    pub(crate) fn take(mesh: &NavMesh, old: Option<&QueryIndex>) -> Tables {
        let n = mesh.triangles.len();
        let empty = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (old_keys, old_first, old_walls, old_area_triangles, old_areas) = match old {
            Some(o) => (&o.keys, &o.first, &o.walls, &o.area_triangles, &o.areas),
            None => (&empty.0, &empty.1, &empty.2, &empty.3, &empty.4),
        };
        let mut tables = Tables {
            keys: Vec::with_capacity(n),
            first: Vec::with_capacity(n + 1),
            walls: Vec::with_capacity(old_walls.len() + 16),
            hull: Vec::new(),
            area_triangles: Vec::with_capacity(old_area_triangles.len() + 16),
            areas: Vec::with_capacity(old_areas.len() + 16),
            area_sums: Vec::new(),
            remap: vec![u32::MAX; old_walls.len()],
            added: Vec::new(),
            changed: Vec::new(),
            boxes: Vec::new(),
        };
        let mut old_area = 0;
        let bounds = |p: [Vec2; 3]| {
            let [a, b, c] = p.map(|v| v.as_dvec2());
            (a.min(b).min(c), a.max(b).max(c))
        };
        for t in 0..n {
            let key = key_of(mesh, t);
            tables.first.push(tables.walls.len() as u32);
            let same = old_keys.get(t) == Some(&key);
            if same {
                let (a, b) = (old_first[t] as usize, old_first[t + 1] as usize);
                for (slot, &wall) in tables.remap[a..b].iter_mut().zip(&old_walls[a..b]) {
                    *slot = tables.walls.len() as u32;
                    tables.walls.push(wall);
                }
            } else {
                if let Some(old) = old_keys.get(t) {
                    tables.boxes.push(bounds(corners(mesh, old)));
                }
                tables.boxes.push(bounds(corners(mesh, &key)));
                tables.changed.push(t as u32);
                for e in 0..3 {
                    if key.1 & (2 << e) != 0 {
                        tables.added.push(tables.walls.len() as u32);
                        tables
                            .walls
                            .push(mesh.edge_segment(TriangleId(t as u32), e));
                    }
                }
            }
            if key.1 & 0x70 != 0 {
                for e in 0..3 {
                    if key.1 & (16 << e) != 0 {
                        let s = mesh.edge_segment(TriangleId(t as u32), e);
                        tables.hull.push((s.a.as_dvec2(), s.b.as_dvec2()));
                    }
                }
            }
            while old_area_triangles
                .get(old_area)
                .is_some_and(|&u| u < t as u32)
            {
                old_area += 1;
            }
            if key.1 & 1 != 0 {
                let area = if same && old_area_triangles.get(old_area) == Some(&(t as u32)) {
                    old_areas[old_area]
                } else {
                    let [a, b, c] = mesh
                        .triangle_points(TriangleId(t as u32))
                        .map(|v| v.as_dvec2());
                    0.5 * (b - a).perp_dot(c - a).abs()
                };
                tables.area_triangles.push(t as u32);
                tables.areas.push(area);
            }
            tables.keys.push(key);
        }
        tables.first.push(tables.walls.len() as u32);
        for t in n..old_keys.len() {
            tables.boxes.push(bounds(corners(mesh, &old_keys[t])));
            tables.changed.push(t as u32);
        }
        let mut sum = 0.0;
        tables.area_sums = tables
            .areas
            .iter()
            .map(|&a| {
                sum += a;
                sum
            })
            .collect();
        tables
    }
}

impl QueryIndex {
    /// Brings this index, built for an earlier state of `mesh`, up to date: see the
    /// [module](self)'s notes.
    pub(crate) fn update(&mut self, mesh: &NavMesh) {
        let tables = Tables::take(mesh, Some(self));
        if tables.changed.is_empty() {
            return;
        }
        let old_count = self.keys.len();
        let hull_changed = tables.hull != self.hull;
        if !self
            .grid
            .update(&tables.walls, &tables.remap, &tables.added)
        {
            self.grid = WallGrid::with_layout(&tables.walls, self.frame.grid);
        }
        for grid in self.ray_grids.built_mut() {
            grid.patch(&tables.walls, &tables.remap, &tables.added);
        }
        self.radii = Default::default();
        self.walls64 = tables
            .walls
            .iter()
            .map(|w| (w.a.as_dvec2(), w.b.as_dvec2()))
            .collect();
        self.walk.update(mesh, &tables.changed, old_count);
        self.walkable.update(
            mesh,
            &self.grid,
            &tables.walls,
            &tables.hull,
            hull_changed,
            &tables.boxes,
        );
        self.keys = tables.keys;
        self.first = tables.first;
        self.walls = tables.walls;
        self.hull = tables.hull;
        self.area_triangles = tables.area_triangles;
        self.areas = tables.areas;
        self.area_sums = tables.area_sums;
    }
}

impl Clone for super::LazyQueryIndex {
    fn clone(&self) -> Self {
        let stale = match self.stale.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        super::LazyQueryIndex {
            ready: self.ready.clone(),
            stale: std::sync::Mutex::new(stale),
        }
    }
}

impl super::LazyQueryIndex {
    /// Notes an edit of the mesh: a built index is kept aside, for its first use to
    /// bring up to date.
    pub(crate) fn edited(&mut self) {
        if let Some(index) = self.ready.take() {
            *self.stale.get_mut().unwrap_or_else(|p| p.into_inner()) = Some(index);
        }
    }

    /// The frame of the index built or kept aside, if any.
    pub(crate) fn frame(&mut self) -> Option<Frame> {
        match self.ready.get() {
            Some(index) => Some(index.frame),
            None => self
                .stale
                .get_mut()
                .unwrap_or_else(|p| p.into_inner())
                .as_ref()
                .map(|index| index.frame),
        }
    }

    /// Whether an edit left the index to be brought up to date by its first use.
    #[cfg(test)]
    pub(crate) fn is_stale(&self) -> bool {
        self.stale.lock().is_ok_and(|stale| stale.is_some())
    }
}

impl NavMesh {
    /// Keeps with the mesh, before its first edit, the frame of its query index if one
    /// is built (so that an index built afresh after edits lies on the same cells as
    /// the one brought up to date), and notes the edit for the index.
    pub(crate) fn query_index_edited(&mut self) {
        if self.obstacles.query_frame.is_none() {
            self.obstacles.query_frame = self.query_index.frame();
        }
        self.query_index.edited();
    }
}

#[cfg(test)]
impl QueryIndex {
    /// The first difference between this index and `other` (one built afresh for the
    /// same mesh), if any: every table, grid and bitmap compared to the bit, the walk's
    /// records by triangle.
    pub(crate) fn difference(&self, other: &QueryIndex) -> Option<String> {
        let bits = |s: &Segment| [s.a.x, s.a.y, s.b.x, s.b.y].map(f32::to_bits);
        let bits64 = |&(a, b): &(DVec2, DVec2)| [a.x, a.y, b.x, b.y].map(f64::to_bits);
        let checks: [(&str, bool); 12] = [
            ("keys", self.keys == other.keys),
            ("first", self.first == other.first),
            (
                "walls",
                self.walls.iter().map(bits).eq(other.walls.iter().map(bits)),
            ),
            (
                "walls64",
                self.walls64
                    .iter()
                    .map(bits64)
                    .eq(other.walls64.iter().map(bits64)),
            ),
            (
                "hull",
                self.hull
                    .iter()
                    .map(bits64)
                    .eq(other.hull.iter().map(bits64)),
            ),
            (
                "area triangles",
                self.area_triangles == other.area_triangles,
            ),
            (
                "areas",
                self.areas
                    .iter()
                    .map(|a| a.to_bits())
                    .eq(other.areas.iter().map(|a| a.to_bits())),
            ),
            (
                "area sums",
                self.area_sums
                    .iter()
                    .map(|a| a.to_bits())
                    .eq(other.area_sums.iter().map(|a| a.to_bits())),
            ),
            ("grid", self.grid.same_as(&other.grid)),
            (
                "grid cell",
                self.grid_cell.to_bits() == other.grid_cell.to_bits(),
            ),
            ("walkable cells", self.walkable.same_as(&other.walkable)),
            ("walk", self.walk.same_as(&other.walk)),
        ];
        checks
            .iter()
            .find(|(_, same)| !same)
            .map(|(what, _)| what.to_string())
    }
}

#[cfg(test)]
#[path = "query_update_test.rs"]
mod test;
