//! The seed demo's formations: where agents start and where they go.
//!
//! Each formation is a rule from the agents' current positions to their goals, so the
//! demo can chain them (the seed's keys: R circle, B swap places, T three groups, G two
//! blocks, P two lines), and a layout to start from, so a scenario file can run one
//! alone.

use glam::Vec2;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
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
    /// Circle slots: `n` points evenly on the circle of radius `size`.
    fn circle_slots(&self, n: usize) -> Vec<Vec2> {
        (0..n)
            .map(|i| self.center + Vec2::from_angle(TAU * i as f32 / n as f32) * self.size)
            .collect()
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

    /// A vertical line of `n` slots at x = `x`, spaced 2.5 radii apart, bottom to top.
    fn line_slots(&self, n: usize, x: f32) -> Vec<Vec2> {
        let gap = 2.5 * self.agent_radius;
        let y0 = self.center.y - (n as f32 - 1.0) * gap * 0.5;
        (0..n).map(|i| Vec2::new(x, y0 + i as f32 * gap)).collect()
    }
}

/// Where `n` agents start for a formation run alone: scattered (circle), on the circle
/// (swap, groups), in two blocks (blocks) or two lines (lines).
pub fn formation_starts(
    kind: FormationKind,
    n: usize,
    area: FormationArea,
    seed: u64,
) -> Vec<Vec2> {
    match kind {
        FormationKind::Circle => scatter(n, area, seed),
        FormationKind::Swap | FormationKind::Groups => area.circle_slots(n),
        FormationKind::Blocks => {
            let (left, right) = halves(n);
            let mut v = area.block_slots(left, area.center - Vec2::X * area.size * 0.6);
            v.extend(area.block_slots(right, area.center + Vec2::X * area.size * 0.6));
            v
        }
        FormationKind::Lines => {
            let (left, right) = halves(n);
            let mut v = area.line_slots(left, area.center.x - area.size * 0.6);
            v.extend(area.line_slots(right, area.center.x + area.size * 0.6));
            v
        }
    }
}

/// The goals of agents now at `positions` under formation `kind`.
///
/// - circle: the circle's slots, assigned in order of the agents' angle about the
///   centre so that nobody crosses the circle to get there;
/// - swap: a random permutation of the agents' own positions (seeded), no one keeping
///   its place;
/// - groups: the agents, split into three sectors by angle, each packing into a block
///   on the opposite side of the circle;
/// - blocks: the left half of the agents (by x) to a block on the right, the right half
///   to a block on the left;
/// - lines: the left half to a line on the right and back, each line upside down.
pub fn formation_goals(
    kind: FormationKind,
    positions: &[Vec2],
    area: FormationArea,
    seed: u64,
) -> Vec<Vec2> {
    let n = positions.len();
    match kind {
        FormationKind::Circle => {
            let order = sorted_by(positions, |p| angle_about(p, area.center));
            let slots = area.circle_slots(n);
            let mut goals = vec![Vec2::ZERO; n];
            for (slot, &i) in order.iter().enumerate() {
                goals[i] = slots[slot];
            }
            goals
        }
        FormationKind::Swap => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let perm = derangement(n, &mut rng);
            perm.iter().map(|&j| positions[j]).collect()
        }
        FormationKind::Groups => {
            let order = sorted_by(positions, |p| angle_about(p, area.center));
            let mut goals = vec![Vec2::ZERO; n];
            for g in 0..3 {
                let members: Vec<usize> = order
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| k * 3 / n.max(1) == g)
                    .map(|(_, &i)| i)
                    .collect();
                if members.is_empty() {
                    continue;
                }
                // The group's target: its centroid's direction, reversed, at 60 % of
                // the circle's radius; the group packs into a block around it.
                let centroid =
                    members.iter().map(|&i| positions[i]).sum::<Vec2>() / members.len() as f32;
                let away = (area.center - centroid).try_normalize().unwrap_or(Vec2::X);
                let target = area.center + away * area.size * 0.6;
                let slots = area.block_slots(members.len(), target);
                // Members keep their order across the direction of travel, so the
                // group does not cross itself.
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
        FormationKind::Blocks | FormationKind::Lines => {
            let order = sorted_by(positions, |p| p.x);
            let (left, right) = halves(n);
            let (to_right, to_left) = if kind == FormationKind::Blocks {
                (
                    area.block_slots(left, area.center + Vec2::X * area.size * 0.6),
                    area.block_slots(right, area.center - Vec2::X * area.size * 0.6),
                )
            } else {
                let mut r = area.line_slots(left, area.center.x + area.size * 0.6);
                let mut l = area.line_slots(right, area.center.x - area.size * 0.6);
                // Upside down: the lowest agent of a line goes to the top of the other.
                r.reverse();
                l.reverse();
                (r, l)
            };
            let mut goals = vec![Vec2::ZERO; n];
            // Within each half, agents keep their vertical order (lines invert it via
            // the reversed slots above), so paths cross only between the halves.
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
    }
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
            let starts = formation_starts(kind, 32, AREA, 3);
            let goals = formation_goals(kind, &starts, AREA, 3);
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
            assert!(moved.count() >= 16, "{kind:?}: most agents must travel");
        }
    }

    #[test]
    fn swap_is_a_derangement_of_the_current_places() {
        let starts = formation_starts(FormationKind::Swap, 32, AREA, 1);
        let goals = formation_goals(FormationKind::Swap, &starts, AREA, 9);
        for (s, g) in starts.iter().zip(&goals) {
            assert_ne!(s, g);
            assert!(starts.contains(g));
        }
    }

    #[test]
    fn lines_swap_sides_and_turn_upside_down() {
        let starts = formation_starts(FormationKind::Lines, 8, AREA, 1);
        let goals = formation_goals(FormationKind::Lines, &starts, AREA, 1);
        for (s, g) in starts.iter().zip(&goals) {
            assert!(s.x * g.x < 0.0, "changes side");
            assert!((s.y + g.y).abs() < 1e-4, "upside down: {s} -> {g}");
        }
    }

    #[test]
    fn groups_cross_to_the_opposite_side_as_three_blocks() {
        let starts = formation_starts(FormationKind::Groups, 30, AREA, 1);
        let goals = formation_goals(FormationKind::Groups, &starts, AREA, 1);
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
