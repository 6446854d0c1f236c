//! Point location: a coarse grid of hint triangles, then a visibility walk with exact
//! orientation tests.

use super::navmesh::{Location, NavMesh, TriangleId, NONE};
use crate::geom::{orient2d_value, point_in_triangle};
use crate::grid::Layout;
use glam::Vec2;

/// Grid of starting triangles over the mesh's bounding box, laid by the crate's one
/// [`Layout`] with a cell for about every half triangle, each cell's start holding the
/// cell's centre.
#[derive(Clone, Debug, Default)]
pub(crate) struct Locator {
    layout: Layout,
    hints: Vec<u32>,
}

enum Walk {
    Inside(u32),
    Outside,
}

/// Triangles per cell the hints aim for: a walk from the hint crosses about one.
const TRIANGLES_PER_CELL: f32 = 0.5;

/// Most cells the hints get (4 bytes each), as many as the old 1 024 × 1 024 grid.
const MAX_HINT_CELLS: usize = 1 << 20;

impl Locator {
    pub(crate) fn new(mesh: &NavMesh) -> Locator {
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        for &v in &mesh.vertices {
            min = min.min(v);
            max = max.max(v);
        }
        let layout = Layout::dense(
            min,
            max,
            mesh.triangles.len(),
            TRIANGLES_PER_CELL,
            MAX_HINT_CELLS,
        );
        // Each cell's hint: the triangle that holds the cell's centre (or, beyond the
        // hull, the last one a walk towards it visits), found by a walk from the hint
        // of the cell before it (above it, for the first of a row). A walk from the hint
        // to a point of the cell then crosses only triangles that meet the cell.
        let mut hints = vec![NONE; layout.len()];
        if !mesh.triangles.is_empty() {
            for cy in 0..layout.rows {
                for cx in 0..layout.cols {
                    let index = cy * layout.cols + cx;
                    let start = match (cx, cy) {
                        (0, 0) => 0,
                        (0, _) => hints[index - layout.cols],
                        _ => hints[index - 1],
                    };
                    let (lo, hi) = layout.cell_box(cx, cy);
                    hints[index] = walk_from(mesh, start, (lo + hi) * 0.5).1;
                }
            }
        }
        Locator { layout, hints }
    }

    /// Brings the hints up to date after an edit that changed the triangles inside the
    /// box `lo..hi` (and flipped or split a few next to it), and moved triangle `src` to
    /// slot `dst` for each `(src, dst)` of `moved` before dropping the slots from
    /// `mesh`'s triangle count on. The layout stays as built. The cells meeting the box
    /// walk again, as [`Locator::new`] does, from `start` (a triangle in the box), and
    /// a hint to a moved triangle follows it. Every other hint names the triangle it
    /// did, which the edit left in place or changed only next to the box, so a walk
    /// from it is as short as before; but for a cell beyond the hull whose walk ended
    /// in a triangle the edit moved or dropped, whose hint may then name another
    /// triangle or none ([`Locator::hint`] then starts from triangle 0): locating is
    /// exact from any start.
    pub(crate) fn update(
        &mut self,
        mesh: &NavMesh,
        lo: Vec2,
        hi: Vec2,
        moved: &[(u32, u32)],
        start: u32,
    ) {
        if self.hints.is_empty() || mesh.triangles.is_empty() {
            *self = Locator::new(mesh);
            return;
        }
        let n = mesh.triangles.len() as u32;
        let start = if start < n { start } else { 0 };
        let layout = self.layout;
        let centre = |index: usize| {
            let (lo, hi) = layout.cell_box(index % layout.cols, index / layout.cols);
            (lo + hi) * 0.5
        };
        // A hint to a moved triangle names a cell whose centre it holds (or, beyond the
        // hull, the triangle a walk ended in): the cells under its box follow it.
        for &(src, dst) in moved {
            let [a, b, c] = mesh.triangles[dst as usize].map(|v| mesh.vertices[v as usize]);
            let (x0, y0) = layout.coords(a.min(b).min(c));
            let (x1, y1) = layout.coords(a.max(b).max(c));
            for cy in y0..=y1 {
                for hint in &mut self.hints[cy * layout.cols + x0..=cy * layout.cols + x1] {
                    if *hint == src {
                        *hint = dst;
                    }
                }
            }
        }
        let (x0, y0) = layout.coords(lo);
        let (x1, y1) = layout.coords(hi);
        let mut from = start;
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                let index = cy * layout.cols + cx;
                from = walk_from(mesh, from, centre(index)).1;
                self.hints[index] = from;
            }
            from = self.hints[y0.max(cy) * layout.cols + x0];
        }
    }

    /// `true` when the hint of every cell whose centre lies in a triangle of `mesh`
    /// names a triangle; for tests.
    #[cfg(test)]
    pub(crate) fn hints_valid(&self, mesh: &NavMesh) -> bool {
        (0..self.hints.len()).all(|index| {
            let layout = self.layout;
            let (lo, hi) = layout.cell_box(index % layout.cols, index / layout.cols);
            let outside = matches!(mesh.locate((lo + hi) * 0.5), Location::Outside);
            outside || (self.hints[index] as usize) < mesh.triangles.len()
        })
    }

    /// The starting triangle for `p` on a mesh of `triangles` triangles (0 when the
    /// hint names none).
    pub(crate) fn hint(&self, p: Vec2, triangles: usize) -> u32 {
        match self.hints.get(self.layout.index(p)) {
            Some(&h) if (h as usize) < triangles => h,
            _ => 0,
        }
    }
}

/// Visibility walk from triangle `start` towards `p`. Returns the result and the last
/// triangle visited. Falls back to a linear scan if the walk runs too long (a walk can
/// cycle in a non-Delaunay triangulation, though with the rotating start edge it is
/// not seen in practice).
fn walk_from(mesh: &NavMesh, start: u32, p: Vec2) -> (Walk, u32) {
    let mut t = start;
    let limit = 64 + 4 * (mesh.triangles.len() as f64).sqrt() as usize;
    let mut offset = 0usize;
    for _ in 0..limit {
        let v = mesh.triangles[t as usize];
        let mut next = None;
        for k in 0..3 {
            let e = (k + offset) % 3;
            let (a, b) = (
                mesh.vertices[v[e] as usize],
                mesh.vertices[v[(e + 1) % 3] as usize],
            );
            if orient2d_value(a, b, p) < 0.0 {
                next = Some(mesh.neighbors[t as usize][e]);
                break;
            }
        }
        match next {
            None => return (Walk::Inside(t), t),
            Some(NONE) => return (Walk::Outside, t),
            Some(n) => t = n,
        }
        offset = (offset + 1) % 3;
    }
    let found = (0..mesh.triangles.len()).find(|&i| {
        let [a, b, c] = mesh.triangles[i].map(|v| mesh.vertices[v as usize]);
        point_in_triangle(p, a, b, c)
    });
    match found {
        Some(i) => (Walk::Inside(i as u32), i as u32),
        None => (Walk::Outside, t),
    }
}

impl NavMesh {
    /// Where `p` lies: in a walkable triangle, a blocked one, or outside the mesh.
    /// Points on the boundary of walkable space (on a wall or a wall corner) are
    /// walkable; other points on an edge belong to either triangle. NaN is
    /// [`Location::Outside`].
    ///
    /// Expected O(1): a grid gives a nearby starting triangle, then an exact walk.
    pub fn locate(&self, p: Vec2) -> Location {
        if !p.is_finite() {
            return Location::Outside;
        }
        self.locate_from(p, TriangleId(self.locator.hint(p, self.triangles.len())))
    }

    /// Like [`NavMesh::locate`], starting the walk at `hint` (e.g. the triangle an agent
    /// was in last frame). A stale or invalid hint is ignored.
    pub fn locate_from(&self, p: Vec2, hint: TriangleId) -> Location {
        if !p.is_finite() {
            return Location::Outside;
        }
        let start = if hint.index() < self.triangles.len() {
            hint.0
        } else {
            self.locator.hint(p, self.triangles.len())
        };
        match walk_from(self, start, p).0 {
            Walk::Inside(t) if self.is_walkable(TriangleId(t)) => Location::Walkable(TriangleId(t)),
            Walk::Inside(t) => match self.walkable_touching(t, p) {
                Some(w) => Location::Walkable(TriangleId(w)),
                None => Location::Blocked(TriangleId(t)),
            },
            Walk::Outside => Location::Outside,
        }
    }

    /// A walkable triangle that `p`, lying in triangle `t`, touches: across an edge of
    /// `t` that `p` lies on, or around a vertex of `t` that `p` is.
    fn walkable_touching(&self, t: u32, p: Vec2) -> Option<u32> {
        let v = self.triangles[t as usize];
        let pos = |i: usize| self.vertices[v[i % 3] as usize];
        if let Some(k) = (0..3).find(|&k| pos(k) == p) {
            return self.walkable_around(t, v[k]);
        }
        (0..3)
            .filter(|&e| orient2d_value(pos(e), pos(e + 1), p) == 0.0)
            .map(|e| self.neighbors[t as usize][e])
            .find(|&n| n != NONE && self.is_walkable(TriangleId(n)))
    }

    /// A walkable triangle with corner `vertex`, searching the fan around it from `t`.
    fn walkable_around(&self, t: u32, vertex: u32) -> Option<u32> {
        let mut seen = vec![t];
        let mut stack = vec![t];
        while let Some(x) = stack.pop() {
            if self.is_walkable(TriangleId(x)) {
                return Some(x);
            }
            for &n in &self.neighbors[x as usize] {
                if n != NONE && !seen.contains(&n) && self.triangles[n as usize].contains(&vertex) {
                    seen.push(n);
                    stack.push(n);
                }
            }
        }
        None
    }
}
