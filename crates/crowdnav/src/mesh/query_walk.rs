//! The walkable triangles as [`NavMesh::raycast`]'s walk reads them: a record per
//! triangle with its corners and, per edge, the walkable neighbour across it and the
//! edge's index there, so that a step of the walk costs one memory access instead of
//! the five of the mesh's own arrays (corner ids, three positions, neighbours, flags).
//! The records hold walkable triangles only, in the order of a Z curve over their
//! centroids, so that the walk's working set is about half the mesh's and neighbours
//! lie near each other in memory: the walk is bound by memory latency.
//!
//! The walk itself is [`NavMesh::raycast_walk`]'s (in `mesh/query.rs`): this module
//! owns its data, built with the query index and brought up to date with it after an
//! edit ([`Walk::update`]).

use crate::mesh::navmesh::{NavMesh, TriangleId, NONE};
use glam::{DVec2, Vec2};

/// Across an edge, in [`WalkTriangle::next`]: a wall, or no walkable triangle; in
/// [`Walk::slot`]: a blocked triangle.
pub(crate) const CLOSED: u32 = u32::MAX;

/// Most records the walk can name (the edge index takes two bits).
const MAX_RECORDS: usize = (u32::MAX >> 2) as usize;

/// One walkable triangle of the walk: see the [module](self)'s notes.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(16))]
pub(crate) struct WalkTriangle {
    /// Corners, counter-clockwise, as the mesh's.
    pub(crate) p: [Vec2; 3],
    /// Per edge (edge `i` runs from corner `i` to `i + 1`): `s << 2 | k` for the
    /// walkable neighbour across it, in slot `s`, whose edge `k` it is; [`CLOSED`] for
    /// a wall, the hull, or a blocked neighbour.
    pub(crate) next: [u32; 3],
    /// The triangle's id in the mesh.
    pub(crate) triangle: u32,
    /// Bit `i` set: edge `i` is a wall.
    pub(crate) walls: u8,
}

impl WalkTriangle {
    /// Corner `i` in `f64`.
    #[inline]
    pub(crate) fn at(&self, i: usize) -> DVec2 {
        self.p[i].as_dvec2()
    }
}

/// The walk's records: see the [module](self)'s notes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    /// The records, by slot.
    pub(crate) records: Vec<WalkTriangle>,
    /// Per triangle of the mesh, its slot ([`CLOSED`] for a blocked triangle).
    pub(crate) slot: Vec<u32>,
}

/// The record of walkable triangle `t` of `mesh`, the triangles' slots being `slot`.
fn record(mesh: &NavMesh, t: u32, slot: &[u32]) -> WalkTriangle {
    let tid = TriangleId(t);
    let ids = mesh.triangles[t as usize];
    let next = std::array::from_fn(|e| {
        let nb = mesh.neighbors[t as usize][e];
        if mesh.is_wall(tid, e) || nb == NONE || slot[nb as usize] == CLOSED {
            return CLOSED;
        }
        // The shared edge runs from corner e + 1 to corner e in the neighbour.
        match (0..3).find(|&k| mesh.triangles[nb as usize][k] == ids[(e + 1) % 3]) {
            Some(k) => slot[nb as usize] << 2 | k as u32,
            None => CLOSED,
        }
    });
    let walls = (0..3)
        .filter(|&e| mesh.is_wall(tid, e))
        .fold(0, |m, e| m | 1 << e);
    WalkTriangle {
        p: ids.map(|v| mesh.vertices[v as usize]),
        next,
        triangle: t,
        walls,
    }
}

impl Walk {
    /// The records of `mesh`'s walkable triangles, ordered by the Z curve over the box
    /// `lo..hi` (that of the vertices); none for a mesh of more than [`MAX_RECORDS`]
    /// of them (the raycasts then search the grid).
    pub(crate) fn new(mesh: &NavMesh, lo: DVec2, hi: DVec2) -> Walk {
        let mut triangle: Vec<u32> = mesh.walkable_triangles().map(|t| t.0).collect();
        if triangle.len() > MAX_RECORDS {
            return Walk::default();
        }
        let (lo, hi) = (lo.as_vec2(), hi.as_vec2());
        let scale = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
        // The Z-curve key of a triangle's centroid on a 2^16 x 2^16 grid over the box.
        let key = |t: u32| {
            let [a, b, c] = mesh.triangle_points(TriangleId(t));
            let u = (((a + b + c) / 3.0 - lo) / scale).clamp(Vec2::ZERO, Vec2::ONE) * 65535.0;
            spread(u.x as u32) | spread(u.y as u32) << 1
        };
        triangle.sort_by_cached_key(|&t| (key(t), t));
        let mut slot = vec![CLOSED; mesh.triangles.len()];
        for (s, &t) in triangle.iter().enumerate() {
            slot[t as usize] = s as u32;
        }
        let records = triangle.iter().map(|&t| record(mesh, t, &slot)).collect();
        Walk { records, slot }
    }

    /// Follows an edit of the mesh: the triangles of `changed` (increasing; those
    /// past the mesh's count are gone) changed their corners, walkability or walls
    /// since the records were made for the mesh's `old_count` triangles. Their records
    /// are made again (in the slots freed, or new ones), and those of their walkable
    /// neighbours, whose links to them changed; then the last records fill the slots
    /// left free, so that there is one record per walkable triangle. The other records
    /// keep their slots: the order of the Z curve is kept only where nothing changed,
    /// which changes the speed of a walk, never its answer.
    pub(crate) fn update(&mut self, mesh: &NavMesh, changed: &[u32], old_count: usize) {
        // (No slots: the mesh has too many triangles for the walk.)
        if self.slot.is_empty() && old_count > 0 {
            return;
        }
        let n = mesh.triangles.len();
        let mut free = Vec::new();
        for &t in changed {
            if let Some(s) = self.slot.get_mut(t as usize) {
                if *s != CLOSED {
                    free.push(*s);
                    *s = CLOSED;
                }
            }
        }
        self.slot.resize(n, CLOSED);
        // The lowest free slots first.
        free.sort_unstable_by(|a, b| b.cmp(a));
        let mut touched: Vec<u32> = Vec::with_capacity(4 * changed.len());
        for &t in changed.iter().filter(|&&t| (t as usize) < n) {
            touched.extend(mesh.neighbors[t as usize].iter().filter(|&&u| u != NONE));
            if !mesh.is_walkable(TriangleId(t)) {
                continue;
            }
            let s = match free.pop() {
                Some(s) => s,
                None => {
                    self.records.push(WalkTriangle::default());
                    (self.records.len() - 1) as u32
                }
            };
            self.slot[t as usize] = s;
            touched.push(t);
        }
        touched.sort_unstable();
        touched.dedup();
        for t in touched {
            let s = self.slot[t as usize];
            if s != CLOSED {
                self.records[s as usize] = record(mesh, t, &self.slot);
            }
        }
        // The last records into the free slots (lowest first), links to them moved.
        free.sort_unstable();
        let (mut i, mut j) = (0, free.len());
        while i < j {
            let last = (self.records.len() - 1) as u32;
            if free[j - 1] == last {
                self.records.pop();
                j -= 1;
                continue;
            }
            let (dst, rec) = (free[i], self.records[last as usize]);
            i += 1;
            self.records[dst as usize] = rec;
            self.records.pop();
            self.slot[rec.triangle as usize] = dst;
            for (e, &x) in rec.next.iter().enumerate() {
                if x != CLOSED {
                    self.records[(x >> 2) as usize].next[(x & 3) as usize] = dst << 2 | e as u32;
                }
            }
        }
    }

    /// Whether `self` and `other` hold the same records for the same triangles (their
    /// slots may differ: the links are compared by the triangles they name).
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &Walk) -> bool {
        let named = |w: &Walk, t: usize| {
            w.of(t as u32).map(|r| {
                let next = r.next.map(|x| match x {
                    CLOSED => (CLOSED, 0),
                    _ => (w.records[(x >> 2) as usize].triangle, x & 3),
                });
                (
                    r.p.map(|p| p.to_array().map(f32::to_bits)),
                    next,
                    r.triangle,
                    r.walls,
                )
            })
        };
        self.slot.len() == other.slot.len()
            && (0..self.slot.len()).all(|t| named(self, t) == named(other, t))
    }

    /// The record of triangle `t`, if it is walkable.
    #[inline]
    pub(crate) fn of(&self, t: u32) -> Option<&WalkTriangle> {
        self.records.get(*self.slot.get(t as usize)? as usize)
    }
}

impl Walk {
    /// The walkable triangle that holds `p` clear of its edges by more than rounding
    /// (then [`NavMesh::locate`] finds it too), by a visibility walk over the records
    /// from triangle `hint`; `None` when the walk cannot tell (`p` about on an edge,
    /// a blocked `hint`, a way out of walkable space, or a long walk): the caller
    /// locates `p` otherwise.
    pub(crate) fn locate_strictly(&self, p: DVec2, hint: u32) -> Option<u32> {
        let mut slot = *self.slot.get(hint as usize)?;
        for step in 0..64 {
            let rec = self.records.get(slot as usize)?;
            let mut out = None;
            // The start edge rotates, so that the walk cannot cycle.
            for i in 0..3 {
                let e = (i + step) % 3;
                let a = rec.at(e);
                let (ab, w) = (rec.at((e + 1) % 3) - a, p - a);
                let o = ab.perp_dot(w);
                let margin = 1e-12 * (ab.x.abs() + ab.y.abs()) * (w.x.abs() + w.y.abs());
                if o > margin {
                    continue;
                }
                if o < -margin {
                    out = Some(e);
                    break;
                }
                return None;
            }
            let Some(e) = out else {
                return Some(rec.triangle);
            };
            let n = rec.next[e];
            if n == CLOSED {
                return None;
            }
            slot = n >> 2;
        }
        None
    }
}

/// The bits of `x` (16 of them) spread to the even bits of the result.
fn spread(x: u32) -> u64 {
    let mut x = u64::from(x & 0xffff);
    x = (x | x << 8) & 0x00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333;
    (x | x << 1) & 0x5555_5555
}
