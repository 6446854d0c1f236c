//! The seed demo's formations: where agents start and where they go.
//!
//! Each formation is a rule from the agents' current positions to their goals, so the
//! demo can chain them (the seed's keys: R circle, B swap places, T three groups, G two
//! blocks, P two lines), and a layout to start from, so a scenario file can run one
//! alone.

use super::floor::{Floor, Placed, Taken, SLOT_GAP};
use crate::mesh::NavMesh;
use glam::Vec2;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::f32::consts::TAU;

/// A formation of the seed demo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormationKind {
    /// R: from anywhere, organise into a circle.
    Circle,
    /// B: on the circle, every agent takes another's place at random.
    Swap,
    /// T: three groups of the circle cross to the opposite side.
    Groups,
    /// G (then B): two block formations exchange sides.
    Blocks,
    /// P (then B): two vertical lines swap sides, each turned upside down.
    Lines,
}

impl FormationKind {
    /// All of them, in the demo's order.
    pub const ALL: [FormationKind; 5] = [
        FormationKind::Circle,
        FormationKind::Swap,
        FormationKind::Groups,
        FormationKind::Blocks,
        FormationKind::Lines,
    ];

    /// Lowercase name, as in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            FormationKind::Circle => "circle",
            FormationKind::Swap => "swap",
            FormationKind::Groups => "groups",
            FormationKind::Blocks => "blocks",
            FormationKind::Lines => "lines",
        }
    }
}

/// Where a formation is laid out: a square area of half-width `size` around `center`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FormationArea {
    /// Centre, metres.
    pub center: Vec2,
    /// Half-width of the area (the circle's radius), metres.
    pub size: f32,
    /// The agents' radius, metres: slots are spaced so agents never start touching.
    pub agent_radius: f32,
}

impl FormationArea {
    /// `n` points evenly on the circle of radius `radius` around `center`, the first at
    /// angle 0.
    fn ring(&self, n: usize, center: Vec2, radius: f32) -> Vec<Vec2> {
        (0..n)
            .map(|i| center + Vec2::from_angle(TAU * i as f32 / n as f32) * radius)
            .collect()
    }

    /// The radii a ring of `n` may take on a level, largest first: `size`, then 5 %
    /// smaller each, down to the radius at which neighbouring slots are [`SLOT_GAP`]
    /// radii apart (or `size` when that is larger).
    fn ring_radii(&self, n: usize) -> Vec<f32> {
        let chord = SLOT_GAP * self.agent_radius;
        let least = if n >= 2 {
            chord / (2.0 * (std::f32::consts::PI / n as f32).sin())
        } else {
            0.0
        };
        let least = least.min(self.size);
        let mut radii = vec![self.size];
        let mut r = self.size;
        while r * 0.95 > least && radii.len() < 32 {
            r *= 0.95;
            radii.push(r);
        }
        if least < r {
            radii.push(least);
        }
        radii
    }

    /// A block of `n` slots in a grid, centred on `c`, spaced 4 radii apart (a late
    /// agent fits between two that already arrived).
    fn block_slots(&self, n: usize, c: Vec2) -> Vec<Vec2> {
        let cols = (n as f32).sqrt().ceil().max(1.0) as usize;
        let rows = n.div_ceil(cols);
        let gap = 4.0 * self.agent_radius;
        let origin = c - Vec2::new(cols as f32 - 1.0, rows as f32 - 1.0) * gap * 0.5;
        (0..n)
            .map(|i| origin + Vec2::new((i % cols) as f32, (i / cols) as f32) * gap)
            .collect()
    }

    /// A vertical line of `n` slots centred on `c`, spaced 2.5 radii apart, bottom to
    /// top.
    fn line_slots(&self, n: usize, c: Vec2) -> Vec<Vec2> {
        let gap = 2.5 * self.agent_radius;
        let y0 = c.y - (n as f32 - 1.0) * gap * 0.5;
        (0..n)
            .map(|i| Vec2::new(c.x, y0 + i as f32 * gap))
            .collect()
    }

    /// Where the two blocks or lines of a formation go: left and right of the centre.
    fn sides(&self) -> (Vec2, Vec2) {
        let offset = Vec2::X * self.size * 0.6;
        (self.center - offset, self.center + offset)
    }
}

/// Where slots may go: anywhere, or on a level's walkable floor.
enum Ground<'m> {
    /// Open ground: every shape is laid out exactly as drawn.
    Open,
    /// A level: shapes are moved (and rings shrunk) to where the agents can stand.
    Floor(Floor<'m>),
}

impl<'m> Ground<'m> {
    /// Open ground without a mesh; on a mesh, the floor that agents of `radius` at
    /// `seeds` share (open ground when the mesh has no room for them at all).
    fn new(mesh: Option<&'m NavMesh>, radius: f32, seeds: &[Vec2]) -> Ground<'m> {
        match mesh.and_then(|m| Floor::new(m, radius, seeds)) {
            Some(floor) => Ground::Floor(floor),
            None => Ground::Open,
        }
    }

    /// The shape `make(anchor, scale)` placed on the ground (see [`Floor::place`]);
    /// on open ground at `anchor` and the first scale.
    fn place(
        &self,
        make: &dyn Fn(Vec2, f32) -> Vec<Vec2>,
        anchor: Vec2,
        scales: &[f32],
        taken: &mut Taken,
    ) -> Placed {
        match self {
            Ground::Open => Placed {
                slots: make(anchor, scales.first().copied().unwrap_or(1.0)),
                anchor,
            },
            Ground::Floor(floor) => floor.place(make, anchor, scales, taken),
        }
    }
}

/// Where `n` agents start for a formation run alone: scattered (circle), on the circle
/// (swap, groups), in two blocks (blocks) or two lines (lines), around `area.center`.
///
/// With a `mesh`, every start is on walkable floor with room for the agent, in the
/// region reachable from the spot with room nearest `area.center`, at least
/// [`SLOT_GAP`] radii from the others; shapes move (and the circle shrinks) to where
/// they fit, as for [`formation_goals`].
pub fn formation_starts(
    kind: FormationKind,
    n: usize,
    area: FormationArea,
    seed: u64,
    mesh: Option<&NavMesh>,
) -> Vec<Vec2> {
    let ground = Ground::new(mesh, area.agent_radius, &[area.center]);
    let mut taken = Taken::new(SLOT_GAP * area.agent_radius);
    let (left, right) = halves(n);
    let (west, east) = area.sides();
    match kind {
        FormationKind::Circle => match &ground {
            Ground::Open => scatter(n, area, seed),
            Ground::Floor(floor) => scatter_on(floor, n, area, seed),
        },
        FormationKind::Swap | FormationKind::Groups => {
            let ring = |c: Vec2, r: f32| area.ring(n, c, r);
            ground
                .place(&ring, area.center, &area.ring_radii(n), &mut taken)
                .slots
        }
        FormationKind::Blocks | FormationKind::Lines => {
            let shape = |count: usize| {
                move |c: Vec2, _: f32| {
                    if kind == FormationKind::Blocks {
                        area.block_slots(count, c)
                    } else {
                        area.line_slots(count, c)
                    }
                }
            };
            let mut v = ground.place(&shape(left), west, &[1.0], &mut taken).slots;
            v.extend(ground.place(&shape(right), east, &[1.0], &mut taken).slots);
            v
        }
    }
}

/// The goals of agents now at `positions` under formation `kind`.
///
/// - circle: `n` slots evenly on the circle of radius `area.size` around
///   `area.center`. Agents and slots are both taken in order of their angle about the
///   centre, and the agents' order is turned against the slots' to the rotation with
///   the least total squared travel, so that agents keep their order round the circle
///   and nobody crosses it;
/// - swap: a random permutation of the agents' own positions (seeded), no one keeping
///   its place;
/// - groups: the agents, split into three sectors by angle about their centroid, each
///   packing into a block on the opposite side, 60 % of `area.size` from the centroid,
///   members keeping their order across the direction of travel;
/// - blocks: the left half of the agents (by x) to a block right of `area.center`, the
///   right half to a block on the left;
/// - lines: the left half to a line on the right and back, each line upside down.
///
/// With a `mesh`, every slot lies on walkable floor with room for an agent of
/// `area.agent_radius` ([`NavMesh::clearance`] at least 1.1 radii), in the region that
/// most agents can reach, and slots stay at least [`SLOT_GAP`] radii apart: a shape
/// is moved to the nearest place where it fits whole (a circle may also shrink until
/// its slots would be closer than that), else the slots that do not fit are moved to
/// the nearest spots with room. An agent that still cannot reach its goal (it stands
/// in another region) is sent to the nearest point it can reach
/// ([`NavMesh::nearest_reachable`]).
///
/// *See also* [`formation_starts`].
pub fn formation_goals(
    kind: FormationKind,
    positions: &[Vec2],
    area: FormationArea,
    seed: u64,
    mesh: Option<&NavMesh>,
) -> Vec<Vec2> {
    let n = positions.len();
    let ground = Ground::new(mesh, area.agent_radius, positions);
    let mut taken = Taken::new(SLOT_GAP * area.agent_radius);
    let mut goals = match kind {
        FormationKind::Circle => {
            let ring = |c: Vec2, r: f32| area.ring(n, c, r);
            let placed = ground.place(&ring, area.center, &area.ring_radii(n), &mut taken);
            assign_round(positions, &placed.slots, placed.anchor)
        }
        FormationKind::Swap => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let perm = derangement(n, &mut rng);
            perm.iter().map(|&j| positions[j]).collect()
        }
        FormationKind::Groups => groups(positions, area, &ground, &mut taken),
        FormationKind::Blocks | FormationKind::Lines => {
            sides(kind, positions, area, &ground, &mut taken)
        }
    };
    if let Ground::Floor(floor) = &ground {
        let (mesh, r) = (floor.mesh(), area.agent_radius);
        goals
            .par_iter_mut()
            .zip(positions.par_iter())
            .for_each(|(goal, &from)| {
                if mesh.find_path(from, *goal, r).is_err() {
                    if let Some(q) = mesh.nearest_reachable(from, *goal, r) {
                        *goal = q;
                    }
                }
            });
    }
    goals
}

/// Goals on `slots` (as many as `positions`) round `center`: agents and slots in
/// order of angle about `center`, the agents' order turned to the rotation with the
/// least total squared distance. Up to 1 024 agents, every rotation is tried; beyond,
/// the 1 024 around the one that lines up the first agent's angle.
fn assign_round(positions: &[Vec2], slots: &[Vec2], center: Vec2) -> Vec<Vec2> {
    let n = positions.len().min(slots.len());
    let agents = sorted_by(&positions[..n], |p| angle_about(p, center));
    let places = sorted_by(&slots[..n], |p| angle_about(p, center));
    let mut goals = positions.to_vec();
    if n == 0 {
        return goals;
    }
    let travel = |k: usize| -> f64 {
        (0..n)
            .map(|i| {
                let s = slots[places[(i + k) % n]];
                f64::from(positions[agents[i]].distance_squared(s))
            })
            .sum()
    };
    const ALL: usize = 1024;
    let rotations: Vec<usize> = if n <= ALL {
        (0..n).collect()
    } else {
        let first = angle_about(positions[agents[0]], center);
        let k0 = places.partition_point(|&j| angle_about(slots[j], center) < first);
        (0..ALL).map(|d| (k0 + n - ALL / 2 + d) % n).collect()
    };
    let mut best = (f64::INFINITY, 0);
    for k in rotations {
        let t = travel(k);
        if t < best.0 {
            best = (t, k);
        }
    }
    for i in 0..n {
        goals[agents[i]] = slots[places[(i + best.1) % n]];
    }
    goals
}

/// T: three sectors by angle about the agents' centroid, each into a block on the
/// opposite side, members keeping their order across the way.
fn groups(
    positions: &[Vec2],
    area: FormationArea,
    ground: &Ground,
    taken: &mut Taken,
) -> Vec<Vec2> {
    let n = positions.len();
    let mut goals = positions.to_vec();
    if n == 0 {
        return goals;
    }
    let center = positions.iter().sum::<Vec2>() / n as f32;
    let order = sorted_by(positions, |p| angle_about(p, center));
    for g in 0..3 {
        let members: Vec<usize> = order
            .iter()
            .enumerate()
            .filter(|(k, _)| k * 3 / n == g)
            .map(|(_, &i)| i)
            .collect();
        if members.is_empty() {
            continue;
        }
        // The group's target: its centroid's direction, reversed, at 60 % of the
        // circle's radius; the group packs into a block around it.
        let centroid = members.iter().map(|&i| positions[i]).sum::<Vec2>() / members.len() as f32;
        let away = (center - centroid).try_normalize().unwrap_or(Vec2::X);
        let target = center + away * area.size * 0.6;
        let block = |c: Vec2, _: f32| area.block_slots(members.len(), c);
        let slots = ground.place(&block, target, &[1.0], taken).slots;
        // Members keep their order across the direction of travel, so the group does
        // not cross itself.
        let across = away.perp();
        let mut by_side = members.clone();
        by_side.sort_by(|&a, &b| {
            positions[a]
                .dot(across)
                .total_cmp(&positions[b].dot(across))
                .then(a.cmp(&b))
        });
        let mut slot_order: Vec<usize> = (0..slots.len()).collect();
        slot_order.sort_by(|&a, &b| {
            slots[a]
                .dot(across)
                .total_cmp(&slots[b].dot(across))
                .then(a.cmp(&b))
        });
        for (&i, &s) in by_side.iter().zip(&slot_order) {
            goals[i] = slots[s];
        }
    }
    goals
}

/// G and P: the left half (by x) to a block or line on the right, the right half to
/// the left; lines upside down.
fn sides(
    kind: FormationKind,
    positions: &[Vec2],
    area: FormationArea,
    ground: &Ground,
    taken: &mut Taken,
) -> Vec<Vec2> {
    let n = positions.len();
    let order = sorted_by(positions, |p| p.x);
    let (left, right) = halves(n);
    let (west, east) = area.sides();
    let shape = |count: usize| {
        move |c: Vec2, _: f32| {
            if kind == FormationKind::Blocks {
                area.block_slots(count, c)
            } else {
                area.line_slots(count, c)
            }
        }
    };
    let mut to_right = ground.place(&shape(left), east, &[1.0], taken).slots;
    let mut to_left = ground.place(&shape(right), west, &[1.0], taken).slots;
    if kind == FormationKind::Lines {
        // Upside down: the lowest agent of a line goes to the top of the other.
        to_right.reverse();
        to_left.reverse();
    }
    let mut goals = vec![Vec2::ZERO; n];
    // Within each half, agents keep their vertical order (lines invert it via the
    // reversed slots above), so paths cross only between the halves.
    let mut left_ids: Vec<usize> = order[..left].to_vec();
    let mut right_ids: Vec<usize> = order[left..].to_vec();
    left_ids.sort_by(|&a, &b| positions[a].y.total_cmp(&positions[b].y).then(a.cmp(&b)));
    right_ids.sort_by(|&a, &b| positions[a].y.total_cmp(&positions[b].y).then(a.cmp(&b)));
    let by_row = |slots: &[Vec2]| {
        let mut idx: Vec<usize> = (0..slots.len()).collect();
        idx.sort_by(|&a, &b| slots[a].y.total_cmp(&slots[b].y).then(a.cmp(&b)));
        idx
    };
    let right_rows = if kind == FormationKind::Lines {
        (0..to_right.len()).collect()
    } else {
        by_row(&to_right)
    };
    let left_rows = if kind == FormationKind::Lines {
        (0..to_left.len()).collect()
    } else {
        by_row(&to_left)
    };
    for (k, &i) in left_ids.iter().enumerate() {
        goals[i] = to_right[right_rows[k]];
    }
    for (k, &i) in right_ids.iter().enumerate() {
        goals[i] = to_left[left_rows[k]];
    }
    goals
}

fn halves(n: usize) -> (usize, usize) {
    (n / 2 + n % 2, n / 2)
}

fn angle_about(p: Vec2, c: Vec2) -> f32 {
    let a = (p - c).to_angle();
    if a.is_finite() {
        a
    } else {
        0.0
    }
}

/// Indices of `positions` sorted by `key`, ties by index.
fn sorted_by(positions: &[Vec2], key: impl Fn(Vec2) -> f32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by(|&a, &b| {
        key(positions[a])
            .total_cmp(&key(positions[b]))
            .then(a.cmp(&b))
    });
    order
}

/// A random permutation with no fixed point (for n ≥ 2).
fn derangement(n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    if n < 2 {
        return perm;
    }
    loop {
        perm.shuffle(rng);
        if perm.iter().enumerate().all(|(i, &j)| i != j) {
            return perm;
        }
    }
}

/// `n` points scattered in the area, at least 3 radii apart (seeded; falls back to a
/// grid when the area is too crowded for that).
fn scatter(n: usize, area: FormationArea, seed: u64) -> Vec<Vec2> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let min_gap = 3.0 * area.agent_radius;
    let half = area.size.max(min_gap);
    let mut pts: Vec<Vec2> = Vec::with_capacity(n);
    let mut tries = 0;
    while pts.len() < n && tries < 200 * n.max(1) {
        tries += 1;
        let p = area.center + Vec2::new(rng.gen_range(-half..=half), rng.gen_range(-half..=half));
        if pts.iter().all(|q| q.distance(p) >= min_gap) {
            pts.push(p);
        }
    }
    if pts.len() < n {
        return area.block_slots(n, area.center);
    }
    pts
}

/// [`scatter`] on a level's floor: random spots with room in the area, at least 3
/// radii apart; the square grows by half when it is too crowded (three times at
/// most), then the spots nearest the centre fill what is missing, closer together if
/// they must (seeded).
fn scatter_on(floor: &Floor, n: usize, area: FormationArea, seed: u64) -> Vec<Vec2> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let min_gap = 3.0 * area.agent_radius;
    let mut taken = Taken::new(min_gap);
    let mut half = area.size.max(min_gap);
    let mut pts: Vec<Vec2> = Vec::with_capacity(n);
    for _ in 0..4 {
        let mut tries = 0;
        while pts.len() < n && tries < 100 * n {
            tries += 1;
            let p =
                area.center + Vec2::new(rng.gen_range(-half..=half), rng.gen_range(-half..=half));
            if floor.has_room(p) && taken.is_free(p) {
                taken.take(p);
                pts.push(p);
            }
        }
        half *= 1.5;
    }
    let reach = 4.0 * half;
    for gap in [SLOT_GAP, 2.0, 0.0] {
        let mut tight = Taken::new(gap * area.agent_radius);
        for &p in &pts {
            tight.take(p);
        }
        while pts.len() < n {
            let Some(p) = floor.nearest_room(area.center, &tight, reach) else {
                break;
            };
            tight.take(p);
            pts.push(p);
        }
    }
    // No room at all (the floor's region is smaller than one agent): the centre.
    pts.resize(n, area.center);
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: FormationArea = FormationArea {
        center: Vec2::new(0.0, 0.0),
        size: 10.0,
        agent_radius: 0.5,
    };

    fn min_gap(points: &[Vec2]) -> f32 {
        let mut best = f32::INFINITY;
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                best = best.min(a.distance(*b));
            }
        }
        best
    }

    #[test]
    fn every_formation_gives_distinct_well_spaced_starts_and_goals() {
        for kind in FormationKind::ALL {
            let starts = formation_starts(kind, 32, AREA, 3, None);
            let goals = formation_goals(kind, &starts, AREA, 3, None);
            assert_eq!(starts.len(), 32);
            assert_eq!(goals.len(), 32);
            assert!(
                min_gap(&starts) >= 2.0 * AREA.agent_radius,
                "{kind:?} starts"
            );
            assert!(min_gap(&goals) >= 2.0 * AREA.agent_radius, "{kind:?} goals");
            let moved = starts
                .iter()
                .zip(&goals)
                .filter(|(s, g)| s.distance(**g) > 1.0);
            // At least half the 32 agents. Measured: 31 or 32.
            assert!(moved.count() >= 16, "{kind:?}: most agents must travel");
        }
    }

    #[test]
    fn swap_is_a_derangement_of_the_current_places() {
        let starts = formation_starts(FormationKind::Swap, 32, AREA, 1, None);
        let goals = formation_goals(FormationKind::Swap, &starts, AREA, 9, None);
        for (s, g) in starts.iter().zip(&goals) {
            assert_ne!(s, g);
            assert!(starts.contains(g));
        }
    }

    #[test]
    fn lines_swap_sides_and_turn_upside_down() {
        let starts = formation_starts(FormationKind::Lines, 8, AREA, 1, None);
        let goals = formation_goals(FormationKind::Lines, &starts, AREA, 1, None);
        for (s, g) in starts.iter().zip(&goals) {
            assert!(s.x * g.x < 0.0, "changes side");
            assert!((s.y + g.y).abs() < 1e-4, "upside down: {s} -> {g}");
        }
    }

    #[test]
    fn groups_cross_to_the_opposite_side_as_three_blocks() {
        let starts = formation_starts(FormationKind::Groups, 30, AREA, 1, None);
        let goals = formation_goals(FormationKind::Groups, &starts, AREA, 1, None);
        let order = sorted_by(&starts, |p| angle_about(p, AREA.center));
        for g in 0..3 {
            let members = &order[g * 10..(g + 1) * 10];
            let mean = |v: &[Vec2]| members.iter().map(|&i| v[i]).sum::<Vec2>() / 10.0;
            let (from, to) = (mean(&starts), mean(&goals));
            assert!(from.dot(to) < 0.0, "group {g} stays on its side");
            for &i in members {
                // A block of ten at 4 radii (2 m): corners 3.6 m from its middle.
                assert!(goals[i].distance(to) < 4.0, "group {g} is not a block");
                assert!(goals[i].length() < AREA.size, "goal outside the circle");
            }
        }
    }
}

#[cfg(test)]
#[path = "formation_test.rs"]
mod floor_test;
