//! Formations on a level: slots moved onto walkable floor that the agents can reach.
//!
//! A formation's shape (a ring, a block, a line) is first tried whole: the anchor is
//! moved to nearby places, nearest first, and a ring may shrink down to the radius at
//! which its slots are still [`SLOT_GAP`] radii apart, until every slot has room for
//! the agent and lies where the agents can walk. When no such place is near, the
//! placement where most slots fit is kept and each slot that does not is moved to the
//! nearest free spot with room.

use crate::mesh::{Location, NavMesh};
use glam::Vec2;
use std::collections::BTreeMap;

/// Least distance between two slots of a formation laid out on a level, in agent
/// radii: a quarter of a radius of play around touching, so that agents can settle
/// into neighbouring slots.
pub const SLOT_GAP: f32 = 2.5;

/// Clearance a slot needs, in agent radii: a tenth more than the agent, so that an
/// agent standing in it is not pressed against a wall.
const SLOT_ROOM: f32 = 1.1;

/// Anchors tried on each side of the ideal one, per axis: a grid of `2 · 24 + 1`
/// squared places around it.
const ANCHOR_STEPS: i32 = 24;

/// Most placements tried whole before settling for the best partial one.
const MAX_TRIES: usize = 8000;

/// Of those, the cheapest ones also scored by how many of their slots fit.
const PARTIAL_TRIES: usize = 256;

/// Slots taken so far, bucketed by cells of the least gap for a quick "is this spot
/// free" test. Ordered map: nothing here depends on hashing.
#[derive(Default)]
pub(crate) struct Taken {
    cell: f32,
    cells: BTreeMap<(i32, i32), Vec<Vec2>>,
}

impl Taken {
    /// No slot taken yet; slots must stay `gap` metres apart.
    pub(crate) fn new(gap: f32) -> Taken {
        Taken {
            cell: gap.max(1e-3),
            cells: BTreeMap::new(),
        }
    }

    fn key(&self, p: Vec2) -> (i32, i32) {
        let c = (p / self.cell).floor();
        // Saturating casts: a far point falls into an edge cell, which only costs time.
        (c.x as i32, c.y as i32)
    }

    /// Whether `p` is at least the gap from every taken slot.
    pub(crate) fn is_free(&self, p: Vec2) -> bool {
        let (cx, cy) = self.key(p);
        let gap2 = self.cell * self.cell;
        for x in cx.saturating_sub(1)..=cx.saturating_add(1) {
            for y in cy.saturating_sub(1)..=cy.saturating_add(1) {
                if let Some(v) = self.cells.get(&(x, y)) {
                    if v.iter().any(|q| q.distance_squared(p) < gap2) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Takes the slot at `p`.
    pub(crate) fn take(&mut self, p: Vec2) {
        let key = self.key(p);
        self.cells.entry(key).or_default().push(p);
    }
}

/// Where a shape was placed: its slots, and the anchor and scale chosen.
pub(crate) struct Placed {
    /// The slots, in the shape's order.
    pub(crate) slots: Vec<Vec2>,
    /// The anchor the shape was laid out around.
    pub(crate) anchor: Vec2,
}

/// The walkable floor of a mesh that one region of agents can reach, for agents of
/// one radius.
pub(crate) struct Floor<'m> {
    mesh: &'m NavMesh,
    radius: f32,
    /// Per triangle: whether a disc of `radius` can enter it from the region's seed.
    region: Vec<bool>,
}

impl<'m> Floor<'m> {
    /// The floor that agents of `radius` standing at `seeds` share: the region a disc
    /// can reach from the seed that the most seeds can reach (the first such on ties).
    /// When no seed stands on walkable floor, the region of the spot with room
    /// nearest the first seed. `None` when the mesh has no spot with room at all.
    pub(crate) fn new(mesh: &'m NavMesh, radius: f32, seeds: &[Vec2]) -> Option<Floor<'m>> {
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            0.0
        };
        let mut best: Option<(usize, Vec<bool>)> = None;
        let mut covered = vec![false; mesh.triangle_count()];
        let triangles: Vec<Option<usize>> = seeds
            .iter()
            .map(|&p| match mesh.locate(p) {
                Location::Walkable(t) => Some(t.index()),
                _ => None,
            })
            .collect();
        for &t in triangles.iter().flatten() {
            if covered[t] {
                continue;
            }
            let region = mesh.reachable_triangles(crate::mesh::TriangleId(t as u32), radius);
            let count = triangles.iter().flatten().filter(|&&u| region[u]).count();
            for (c, &r) in covered.iter_mut().zip(&region) {
                *c |= r;
            }
            if best.as_ref().is_none_or(|(n, _)| count > *n) {
                best = Some((count, region));
            }
        }
        if let Some((_, region)) = best {
            return Some(Floor {
                mesh,
                radius,
                region,
            });
        }
        // Nobody on the floor: the region around the nearest spot with room.
        let anywhere = Floor {
            mesh,
            radius,
            region: vec![true; mesh.triangle_count()],
        };
        let from = seeds.first().copied().filter(|p| p.is_finite())?;
        let spot = anywhere.nearest_room(from, &Taken::new(0.0), search_reach(mesh))?;
        let Location::Walkable(t) = mesh.locate(spot) else {
            return None;
        };
        Some(Floor {
            mesh,
            radius,
            region: mesh.reachable_triangles(t, radius),
        })
    }

    /// The mesh.
    pub(crate) fn mesh(&self) -> &'m NavMesh {
        self.mesh
    }

    /// Whether an agent can stand at `p`: on walkable floor of the region, with
    /// [`SLOT_ROOM`] radii of clearance.
    pub(crate) fn has_room(&self, p: Vec2) -> bool {
        let Location::Walkable(t) = self.mesh.locate(p) else {
            return false;
        };
        let room = f64::from(SLOT_ROOM * self.radius);
        self.region[t.index()] && self.mesh.clearance_within(p, t, room) >= room
    }

    /// A spot near `p` that has room and is free, searched on rings around `p` out to
    /// `reach` metres: rings a quarter radius apart, their points a quarter radius
    /// apart, until the rings are ten times further out than that; beyond, both
    /// spacings grow as a tenth of the distance (so a far search stays cheap, and the
    /// spot found is the nearest to within a tenth of its distance).
    pub(crate) fn nearest_room(&self, p: Vec2, taken: &Taken, reach: f32) -> Option<Vec2> {
        if self.has_room(p) && taken.is_free(p) {
            return Some(p);
        }
        let fine = (0.25 * self.radius).max(1e-3);
        let mut rho = fine;
        while rho <= reach {
            let spacing = fine.max(0.1 * rho);
            let m = ((std::f32::consts::TAU * rho / spacing).ceil() as usize).max(6);
            for j in 0..m {
                let q = p + Vec2::from_angle(std::f32::consts::TAU * j as f32 / m as f32) * rho;
                if self.has_room(q) && taken.is_free(q) {
                    return Some(q);
                }
            }
            rho += spacing;
        }
        None
    }

    /// Places the shape `make(anchor, scale)` on the floor, its slots free of `taken`
    /// (and then taken): the cheapest placement where every slot has room, the cost
    /// being how far the anchor moved from `anchor` plus twice how much the scale
    /// shrank from `scales[0]`; anchors are tried on a grid around `anchor` twice the
    /// shape's extent wide. Without a whole fit, the placement where the most slots
    /// fit, the others moved to the nearest free spot with room.
    pub(crate) fn place(
        &self,
        make: &dyn Fn(Vec2, f32) -> Vec<Vec2>,
        anchor: Vec2,
        scales: &[f32],
        taken: &mut Taken,
    ) -> Placed {
        let first_scale = scales.first().copied().unwrap_or(1.0);
        let ideal = make(anchor, first_scale);
        let extent = ideal
            .iter()
            .map(|p| p.distance(anchor))
            .fold(0.0f32, f32::max);
        let window = 2.0 * extent + 4.0 * self.radius;
        let step = (window / ANCHOR_STEPS as f32)
            .max(0.5 * self.radius)
            .max(1e-3);
        let mut tries: Vec<(f32, Vec2, f32)> = Vec::new();
        for i in -ANCHOR_STEPS..=ANCHOR_STEPS {
            for j in -ANCHOR_STEPS..=ANCHOR_STEPS {
                let offset = Vec2::new(i as f32, j as f32) * step;
                for &s in scales {
                    let cost = offset.length() + 2.0 * (first_scale - s);
                    tries.push((cost, anchor + offset, s));
                }
            }
        }
        // A stable sort: ties keep the grid's order, so the answer is reproducible.
        tries.sort_by(|a, b| a.0.total_cmp(&b.0));
        let fits = |p: Vec2, taken: &Taken| self.has_room(p) && taken.is_free(p);
        let whole = tries.iter().take(MAX_TRIES).find_map(|&(_, at, s)| {
            let slots = make(at, s);
            slots.iter().all(|&p| fits(p, taken)).then_some((slots, at))
        });
        let (slots, at) = whole.unwrap_or_else(|| {
            let mut best: Option<(usize, Vec<Vec2>, Vec2)> = None;
            for &(_, at, s) in tries.iter().take(PARTIAL_TRIES) {
                let slots = make(at, s);
                let count = slots.iter().filter(|&&p| fits(p, taken)).count();
                if best.as_ref().is_none_or(|b| count > b.0) {
                    best = Some((count, slots, at));
                }
            }
            best.map_or_else(|| (ideal.clone(), anchor), |(_, slots, at)| (slots, at))
        });
        // Slots that fit are taken first, so that moving the others cannot crowd them.
        let mut out = slots.clone();
        let mut homeless = Vec::new();
        for (k, &p) in slots.iter().enumerate() {
            if fits(p, taken) {
                taken.take(p);
            } else {
                homeless.push(k);
            }
        }
        let reach = search_reach(self.mesh);
        for k in homeless {
            if let Some(q) = self.nearest_room(slots[k], taken, reach) {
                out[k] = q;
            }
            taken.take(out[k]);
        }
        Placed {
            slots: out,
            anchor: at,
        }
    }
}

/// How far from a slot its nearest spot with room is searched: the mesh's extent.
fn search_reach(mesh: &NavMesh) -> f32 {
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    for &v in mesh.vertices() {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let d = (hi - lo).length();
    if d.is_finite() {
        d
    } else {
        0.0
    }
}
