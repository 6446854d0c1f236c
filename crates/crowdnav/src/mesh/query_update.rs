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
//!   flags with those last taken ([`Seen`]), a run of them at a time: the
//!   walls of unchanged triangles are renumbered, those of changed ones taken again,
//!   in the mesh's order, as [`NavMesh::walls`] lists them. The running sums of the
//!   walkable areas (for the random points) are summed again: a pass over an array of
//!   `f64` (tens of microseconds on aurora's 70 000 triangles), inherently linear as
//!   a prefix sum is.
//! - **Grids.** The wall grid and the built ray grids are patched: the walls kept
//!   renumbered, the new ones added to the cells they reach (one pass over the cells'
//!   lists). The ray grids' walkable sub-cells are marked again in the cells near the
//!   changed triangles (`RayGrid::remark`), the walk's records of the changed
//!   triangles and of their neighbours made again.
//! - **Per-radius boundaries** of the nearest-point queries are kept aside with the
//!   walls' renumbering and the changed triangles' boxes: the next nearest point at a
//!   radius brings its boundary up to date there (see `mesh/query_radius.rs`).

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
}

/// The mesh's triangles and flags as the index last took them: a triangle whose
/// corners and flags are the same has the same walls and area, and the same hull
/// edges (the hull never changes but where the triangles on it do).
#[derive(Clone, Debug, Default)]
pub(crate) struct Seen {
    triangles: Vec<[u32; 3]>,
    flags: Vec<u8>,
    /// The triangles with an edge on the hull, increasing.
    hull: Vec<u32>,
}

impl Seen {
    /// The triangles and flags of `mesh`, the triangles on the hull being `hull`.
    pub(crate) fn of(mesh: &NavMesh, hull: Vec<u32>) -> Seen {
        Seen {
            triangles: mesh.triangles.clone(),
            flags: mesh.flags.clone(),
            hull,
        }
    }
}

/// Triangles compared at a time: a run of them unchanged is copied whole.
const CHUNK: usize = 64;

/// The per-triangle tables of a query index: see [`Tables::take`].
pub(crate) struct Tables {
    pub(crate) first: Vec<u32>,
    pub(crate) walls: Vec<Segment>,
    pub(crate) hull: Vec<(DVec2, DVec2)>,
    pub(crate) hull_triangles: Vec<u32>,
    pub(crate) area_triangles: Vec<u32>,
    pub(crate) areas: Vec<f64>,
    pub(crate) area_sums: Vec<f64>,
    /// Old wall → new wall (`u32::MAX`: gone).
    pub(crate) remap: Vec<u32>,
    /// The new walls' indices, increasing.
    pub(crate) added: Vec<u32>,
    /// The triangles that changed, increasing (those past the old count too); none
    /// for a build.
    pub(crate) changed: Vec<u32>,
    /// The boxes of the changed triangles, as they were and as they are.
    pub(crate) boxes: Vec<(DVec2, DVec2)>,
}

/// The vectors an update replaced, kept for the next one to fill (so that it finds
/// its pages mapped). A clone of the index starts without them.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    first: Vec<u32>,
    walls: Vec<Segment>,
    area_triangles: Vec<u32>,
    areas: Vec<f64>,
    area_sums: Vec<f64>,
    remap: Vec<u32>,
}

impl Clone for Spare {
    fn clone(&self) -> Self {
        Spare::default()
    }
}

/// `v` emptied, with room for `n` items.
fn reuse<T>(v: &mut Vec<T>, n: usize) -> Vec<T> {
    let mut v = std::mem::take(v);
    v.clear();
    v.reserve(n);
    v
}

/// The box of three corners.
fn bounds(p: [Vec2; 3]) -> (DVec2, DVec2) {
    let [a, b, c] = p.map(|v| v.as_dvec2());
    (a.min(b).min(c), a.max(b).max(c))
}

impl Tables {
    /// The walls (triangle by triangle, each triangle's in edge order, as
    /// [`NavMesh::walls`]), the hull edges (likewise), the walkable triangles with their
    /// areas and running sums, and per triangle where its walls start: from `old` (an
    /// index of an earlier state of the mesh) where a triangle is unchanged (runs of
    /// [`CHUNK`] unchanged triangles copied whole), else taken from the mesh.
    /// The vectors are those of `spare` (emptied), which a build leaves alone.
    pub(crate) fn take(mesh: &NavMesh, old: Option<&QueryIndex>, spare: &mut Spare) -> Tables {
        let n = mesh.triangles.len();
        let none = QueryIndex::empty_tables();
        let (seen, old_first, old_walls, old_at, old_areas) = match old {
            Some(o) => (&o.seen, &o.first, &o.walls, &o.area_triangles, &o.areas),
            None => (&none.0, &none.1, &none.2, &none.3, &none.4),
        };
        let mut tables = Tables {
            first: reuse(&mut spare.first, n + 1),
            walls: reuse(&mut spare.walls, old_walls.len() + 16),
            hull: Vec::new(),
            hull_triangles: Vec::new(),
            area_triangles: reuse(&mut spare.area_triangles, old_at.len() + 16),
            areas: reuse(&mut spare.areas, old_areas.len() + 16),
            area_sums: reuse(&mut spare.area_sums, old_areas.len() + 16),
            remap: reuse(&mut spare.remap, old_walls.len()),
            added: Vec::new(),
            changed: Vec::new(),
            boxes: Vec::new(),
        };
        tables.remap.resize(old_walls.len(), u32::MAX);
        let seen_count = seen.triangles.len();
        let same = |t: usize| {
            t < seen_count
                && seen.triangles[t] == mesh.triangles[t]
                && seen.flags[t] == mesh.flags[t]
        };
        let mut t = 0;
        while t < n {
            let end = (t + CHUNK).min(n);
            if old.is_some()
                && end <= seen_count
                && mesh.triangles[t..end] == seen.triangles[t..end]
                && mesh.flags[t..end] == seen.flags[t..end]
            {
                // A run unchanged: its walls and areas copied, renumbered.
                let (a, b) = (old_first[t], old_first[end]);
                let start = tables.walls.len() as u32;
                tables
                    .first
                    .extend(old_first[t..end].iter().map(|&f| f - a + start));
                for (i, slot) in tables.remap[a as usize..b as usize].iter_mut().enumerate() {
                    *slot = start + i as u32;
                }
                tables
                    .walls
                    .extend_from_slice(&old_walls[a as usize..b as usize]);
                let (p, q) = (
                    old_at.partition_point(|&u| (u as usize) < t),
                    old_at.partition_point(|&u| (u as usize) < end),
                );
                tables.area_triangles.extend_from_slice(&old_at[p..q]);
                tables.areas.extend_from_slice(&old_areas[p..q]);
                t = end;
                continue;
            }
            for t in t..end {
                tables.first.push(tables.walls.len() as u32);
                let id = TriangleId(t as u32);
                let walkable = mesh.is_walkable(id);
                if same(t) {
                    let (a, b) = (old_first[t] as usize, old_first[t + 1] as usize);
                    for (slot, &wall) in tables.remap[a..b].iter_mut().zip(&old_walls[a..b]) {
                        *slot = tables.walls.len() as u32;
                        tables.walls.push(wall);
                    }
                    if let Ok(k) = old_at.binary_search(&(t as u32)) {
                        tables.area_triangles.push(t as u32);
                        tables.areas.push(old_areas[k]);
                    }
                    continue;
                }
                if old.is_some() {
                    if t < seen_count {
                        tables
                            .boxes
                            .push(bounds(seen.triangles[t].map(|v| mesh.vertices[v as usize])));
                    }
                    tables.boxes.push(bounds(mesh.triangle_points(id)));
                    tables.changed.push(t as u32);
                }
                if !walkable {
                    continue;
                }
                for e in 0..3 {
                    if mesh.is_wall(id, e) {
                        tables.added.push(tables.walls.len() as u32);
                        tables.walls.push(mesh.edge_segment(id, e));
                    }
                }
                let [a, b, c] = mesh.triangle_points(id).map(|v| v.as_dvec2());
                tables.area_triangles.push(t as u32);
                tables.areas.push(0.5 * (b - a).perp_dot(c - a).abs());
            }
            t = end;
        }
        tables.first.push(tables.walls.len() as u32);
        for t in n..seen_count {
            tables
                .boxes
                .push(bounds(seen.triangles[t].map(|v| mesh.vertices[v as usize])));
            tables.changed.push(t as u32);
        }
        // The hull: as it was, unless a changed triangle was or is on it.
        let on_hull = |t: u32| {
            seen.hull.binary_search(&t).is_ok()
                || ((t as usize) < n && mesh.neighbors[t as usize].contains(&NONE))
        };
        match old {
            Some(old) if !tables.changed.iter().any(|&t| on_hull(t)) => {
                tables.hull.clone_from(&old.hull);
                tables.hull_triangles.clone_from(&seen.hull);
            }
            _ => {
                for (t, nbs) in mesh.neighbors.iter().enumerate() {
                    if !nbs.contains(&NONE) {
                        continue;
                    }
                    tables.hull_triangles.push(t as u32);
                    for (e, &nb) in nbs.iter().enumerate() {
                        if nb == NONE {
                            let s = mesh.edge_segment(TriangleId(t as u32), e);
                            tables.hull.push((s.a.as_dvec2(), s.b.as_dvec2()));
                        }
                    }
                }
            }
        }
        // The running sums, summed again from the first area that changed.
        let old_sums = old.map_or(&[][..], |o| &o.area_sums[..]);
        let kept = (0..tables.areas.len().min(old_areas.len()))
            .find(|&k| {
                tables.area_triangles[k] != old_at[k]
                    || tables.areas[k].to_bits() != old_areas[k].to_bits()
            })
            .unwrap_or(tables.areas.len().min(old_areas.len()));
        tables.area_sums.extend_from_slice(&old_sums[..kept]);
        let mut sum = tables.area_sums.last().copied().unwrap_or(0.0);
        for &a in &tables.areas[kept..] {
            sum += a;
            tables.area_sums.push(sum);
        }
        tables
    }
}

/// The tables of no index, for a build.
type OldTables = (Seen, Vec<u32>, Vec<Segment>, Vec<u32>, Vec<f64>);

impl QueryIndex {
    fn empty_tables() -> OldTables {
        (Seen::default(), vec![0], Vec::new(), Vec::new(), Vec::new())
    }

    /// Brings this index, built for an earlier state of `mesh`, up to date: see the
    /// [module](self)'s notes.
    pub(crate) fn update(&mut self, mesh: &NavMesh) {
        let mut spare = std::mem::take(&mut self.spare);
        let tables = Tables::take(mesh, Some(self), &mut spare);
        if tables.changed.is_empty() {
            self.spare = spare;
            return;
        }
        let old_count = self.seen.triangles.len();
        if !self
            .grid
            .update(&tables.walls, &tables.remap, &tables.added)
        {
            self.grid = WallGrid::with_layout(&tables.walls, self.frame.grid);
        }
        for grid in self.ray_grids.built_mut() {
            grid.patch(&self.walls, &tables.walls, &tables.remap, &tables.added);
            grid.remark(mesh, &tables.walls, &self.grid, &tables.boxes);
        }
        self.radii.edited(&tables.remap, &tables.boxes);
        self.walls64.clear();
        self.walls64.extend(
            tables
                .walls
                .iter()
                .map(|w| (w.a.as_dvec2(), w.b.as_dvec2())),
        );
        self.walk.update(mesh, &tables.changed, old_count);
        self.seen.triangles.resize(mesh.triangles.len(), [0; 3]);
        self.seen.flags.resize(mesh.triangles.len(), 0);
        for &t in tables
            .changed
            .iter()
            .filter(|&&t| (t as usize) < mesh.triangles.len())
        {
            self.seen.triangles[t as usize] = mesh.triangles[t as usize];
            self.seen.flags[t as usize] = mesh.flags[t as usize];
        }
        self.seen.hull = tables.hull_triangles;
        self.hull = tables.hull;
        spare.first = std::mem::replace(&mut self.first, tables.first);
        spare.walls = std::mem::replace(&mut self.walls, tables.walls);
        spare.area_triangles = std::mem::replace(&mut self.area_triangles, tables.area_triangles);
        spare.areas = std::mem::replace(&mut self.areas, tables.areas);
        spare.area_sums = std::mem::replace(&mut self.area_sums, tables.area_sums);
        spare.remap = tables.remap;
        self.spare = spare;
    }
}

impl super::LazyQueryIndex {
    /// The frame of the index built or kept aside, if any.
    pub(crate) fn frame(&mut self) -> Option<Frame> {
        match self.ready() {
            Some(index) => Some(index.frame),
            None => self.stale_mut().map(|index| index.frame),
        }
    }
}

impl NavMesh {
    /// Brings up to date the query index and the corner grid that edits left to their
    /// first use, if any (see [`NavMesh::prepare_queries`]).
    pub(crate) fn prepare_query_grids(&self) {
        if self.query_index.is_stale() {
            self.query_index();
        }
        if self.corner_grid.is_stale() {
            self.corner_grid();
        }
    }

    /// Keeps with the mesh, before its first edit, the frame of its query index if one
    /// is built (so that an index built afresh after edits lies on the same cells as
    /// the one brought up to date), and notes the edit for the index.
    pub(crate) fn query_index_edited(&mut self) {
        if self.obstacles.query_frame.is_none() {
            self.obstacles.query_frame = self.query_index.frame();
        }
        self.query_index.keep_aside();
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
        let checks: [(&str, bool); 11] = [
            (
                "seen",
                self.seen.triangles == other.seen.triangles
                    && self.seen.flags == other.seen.flags
                    && self.seen.hull == other.seen.hull,
            ),
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
