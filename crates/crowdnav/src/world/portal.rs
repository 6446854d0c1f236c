//! Portal steering: people walk through the whole width of a door, not round its post.
//!
//! An agent's exact shortest path wraps the corner of every opening it passes, so in a
//! crowd everyone steers at the same two points, the posts of a door, and queues in two
//! files there while the middle of a wide door stays empty. People do not: someone in
//! front of a door walks straight through it, where it stands, and turns once through.
//!
//! At planning, every corner of the path that bounds an opening (a wall lies across
//! from it within [`MAX_SPAN`]) becomes a [`Portal`]: the corner, the way across the
//! opening at its narrowest, and the way through. While its next waypoint lies on a
//! portal's corner and it is within [`CHOICE_RANGE`] of it, an agent heads for the
//! point of the opening's free span (a radius clear of both sides) that it can walk to
//! in a straight line clear of both sides and that costs it least: the walk there and
//! on, plus [`QUEUE_COST`] for everyone already on that way and, at a door wide enough,
//! [`CROWD_COST`] for everyone already crowding that point ([`Portal::choose`]). This
//! is "exit choice within the door's width": a crowd spreads over a wide door in files
//! instead of queueing at its posts. When no point of the span is in straight sight
//! (beside the door, wrapping the post), the agent follows its path. Once past the
//! opening, it drops the rest of that corner's waypoints and heads on.
//!
//! The others are read from the point grid of the start of the step, and only counted,
//! so the choice is the same whatever the thread count or the grid's order.

use crate::geom::{closest_point_on_segment, segment_intersection, Segment, SegmentIntersection};
use crate::grid::{PointGrid, WallGrid};
use crate::path::{Path, PathPiece};
use crate::steer::Opening;
use glam::Vec2;

/// The widest opening treated as a portal, metres: wider ones are open ground, where
/// the shortest path is how people walk. Wide enough for the diagonal of a crossing of
/// two corridors 6 m wide (8.5 m): someone carried past its turn there and walking
/// back round the corner spreads over the crossing instead of hugging the corner
/// post, where it met those pressing round it the other way in a knot that stood for
/// up to 50 s (crossing 50 × 6 m, seed 54: 3.99 → 1.85 times alone; 5 m before).
pub(crate) const MAX_SPAN: f32 = 9.0;

/// An opening a path bends through at a corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Portal {
    /// The wall corner the path wraps.
    corner: Vec2,
    /// Unit vector from the corner across the opening, at its narrowest.
    across: Vec2,
    /// Unit vector along the path through the opening (perpendicular to `across`).
    through: Vec2,
    /// Distance from the corner to the wall across, metres.
    span: f32,
    /// How far the passage through the opening runs back from the corner's line
    /// (against `through`) and on from it (along `through`), metres, each measured up
    /// to [`EXTENT_LIMIT`]: for a door in a wall, the wall's thickness in all.
    back: f32,
    ahead: f32,
}

impl Portal {
    /// The opening: from the corner across to the wall it faces (read by the world's
    /// mesh edits, `edits.rs`).
    pub(super) fn opening(&self) -> (Vec2, Vec2) {
        (self.corner, self.corner + self.across * self.span)
    }

    /// The opening as a steering method sees it: the passage from its entry, its width
    /// and its length.
    pub(crate) fn steer_opening(&self) -> Opening {
        Opening {
            entry: self.corner - self.through * self.back,
            across: self.across,
            width: self.span,
            through: self.through,
            length: self.back + self.ahead,
        }
    }
}

/// How far either way from a portal's line its passage is measured, metres: enough
/// to tell a door in a thin wall from one in a wall a metre thick (see
/// `SHORT_DOOR` in `steer/orca.rs`).
const EXTENT_LIMIT: f32 = 1.0;

/// How far from the line across an opening at `corner` (`span` along the unit
/// `across`) the passage through it runs along the unit `way`, up to [`EXTENT_LIMIT`]
/// (in steps of 5 cm): while the free width across, measured from the middle of the
/// passage between `walls` (indices `near`), stays within one and a half spans.
fn passage_extent(
    (corner, across, span): (Vec2, Vec2, f32),
    way: Vec2,
    walls: &[Segment],
    near: &[u32],
) -> f32 {
    const STEP: f32 = 0.05;
    let middle = corner + across * (0.5 * span);
    let mut extent = 0.0;
    while extent < EXTENT_LIMIT {
        let at = middle + way * (extent + STEP);
        let side = |d: Vec2| ray_distance(at, d, walls, near).unwrap_or(f32::INFINITY);
        if side(across) + side(-across) > 1.5 * span {
            break;
        }
        extent += STEP;
    }
    extent
}

/// The portals of `path` (at most one per arc), in path order, into `out`.
///
/// For every arc, rays from its corner in the directions the arc sweeps (every 5°, both
/// ends included) are cast against `walls` (found through `grid`); the shortest hit
/// within [`MAX_SPAN`] is the opening's width and direction. An arc that turns too
/// little to face the wall across (a door passed diagonally) takes the opening its
/// path's straight pieces pass through instead ([`opening_passed`]).
pub(crate) fn portals_of(path: &Path, walls: &[Segment], grid: &WallGrid, out: &mut Vec<Portal>) {
    out.clear();
    let mut near = Vec::new();
    let pieces = path.pieces();
    for (index, piece) in pieces.iter().enumerate() {
        let PathPiece::Arc {
            center,
            from,
            sweep,
            radius,
            ..
        } = *piece
        else {
            continue;
        };
        if !(sweep.is_finite() && radius > 0.0 && center.is_finite()) {
            continue;
        }
        grid.walls_near(center, MAX_SPAN, &mut near);
        let start = (from - center).to_angle();
        let samples = (sweep.abs() / 5f32.to_radians()).ceil().clamp(1.0, 72.0) as usize;
        let swept =
            (0..=samples).map(|k| Vec2::from_angle(start + sweep * k as f32 / samples as f32));
        // The way the arc turns at that direction: counter-clockwise arcs go along the
        // left perpendicular.
        let turn = if sweep > 0.0 { 1.0 } else { -1.0 };
        let best = shortest_opening(center, swept, walls, &near, |_, across| {
            Some(across.perp() * turn)
        })
        .or_else(|| {
            let lines = [index.checked_sub(1), Some(index + 1)].map(|k| {
                match k.and_then(|k| pieces.get(k)) {
                    Some(&PathPiece::Line { from, to }) => Some((from, to)),
                    _ => None,
                }
            });
            opening_passed(center, radius, lines, walls, &near)
        });
        let Some((span, across, through)) = best else {
            continue;
        };
        if span <= 2.0 * radius {
            continue;
        }
        grid.walls_near(center, span + EXTENT_LIMIT + 1.0, &mut near);
        let line = (center, across, span);
        out.push(Portal {
            corner: center,
            across,
            through,
            span,
            back: passage_extent(line, -through, walls, &near),
            ahead: passage_extent(line, through, walls, &near),
        });
    }
}

/// The opening beside `corner` that one of `lines` (the straight pieces of a path on
/// either side of its arc round the corner) passes through, when the arc sweeps no
/// direction that meets the wall across: a door in a thick wall passed diagonally,
/// from one post's near corner to the other post's far corner, turns by little at
/// either. Of rays from the corner every 5° all round, the shortest that meets a wall
/// within [`MAX_SPAN`], leaves room for the disc of `radius`, and whose segment a line
/// crosses; its length, its direction, and the way through it (at right angles, along
/// the line). Without these portals, people crossing a door diagonally steered for its
/// corners themselves, and a crowd leaving a 2.4 m door for places on one side passed
/// it in a file along the far post (places dealt out by columns, seeds 1 to 16: 0.89
/// to 1.16 persons per metre and second; 1.25 to 1.51 with these portals and the
/// queue's 45° rule of `steer::orca`).
fn opening_passed(
    corner: Vec2,
    radius: f32,
    lines: [Option<(Vec2, Vec2)>; 2],
    walls: &[Segment],
    near: &[u32],
) -> Option<(f32, Vec2, Vec2)> {
    let all_round = (0..72u8).map(|k| Vec2::from_angle((5.0 * f32::from(k)).to_radians()));
    shortest_opening(corner, all_round, walls, near, |span, direction| {
        if span <= 2.0 * radius {
            return None;
        }
        // From half a radius off the corner: a line ending on the arc touches the
        // corner's circle, not the corner.
        let opening = Segment::new(
            corner + direction * (0.5 * radius),
            corner + direction * span,
        );
        let &(from, to) = lines.iter().flatten().find(|&&(from, to)| {
            matches!(
                segment_intersection(opening, Segment::new(from, to)),
                SegmentIntersection::Point(_)
            )
        })?;
        let side = direction.perp();
        Some(if side.dot(to - from) >= 0.0 {
            side
        } else {
            -side
        })
    })
}

/// Of the rays from `corner` along the unit `directions`, the shortest that meets one of
/// `walls` (indices `near`) within [`MAX_SPAN`] and that `through` gives a way through
/// (from its length and direction): its length, its direction and that way. Of rays as
/// short, the first.
fn shortest_opening(
    corner: Vec2,
    directions: impl Iterator<Item = Vec2>,
    walls: &[Segment],
    near: &[u32],
    mut through: impl FnMut(f32, Vec2) -> Option<Vec2>,
) -> Option<(f32, Vec2, Vec2)> {
    let mut best: Option<(f32, Vec2, Vec2)> = None;
    for direction in directions {
        let Some(span) = ray_distance(corner, direction, walls, near) else {
            continue;
        };
        if span > MAX_SPAN || best.is_some_and(|(b, ..)| span >= b) {
            continue;
        }
        if let Some(way) = through(span, direction) {
            best = Some((span, direction, way));
        }
    }
    best
}

/// How far a ray from `origin` along the unit `direction` travels before it meets one
/// of `walls` (indices `near`), ignoring walls touching the origin; `None` when it
/// meets none.
fn ray_distance(origin: Vec2, direction: Vec2, walls: &[Segment], near: &[u32]) -> Option<f32> {
    let mut best: Option<f32> = None;
    for &w in near {
        let Some(wall) = walls.get(w as usize) else {
            continue;
        };
        let (a, b) = (wall.a - origin, wall.b - origin);
        let edge = b - a;
        let denominator = direction.perp_dot(edge);
        if denominator.abs() <= f32::EPSILON * edge.length() {
            continue;
        }
        // origin + t·direction = a + u·edge
        let t = a.perp_dot(edge) / denominator;
        let u = a.perp_dot(direction) / denominator;
        let slack = 1e-4;
        if t > 1e-3 && (-slack..=1.0 + slack).contains(&u) && best.is_none_or(|b| t < b) {
            best = Some(t);
        }
    }
    best
}

/// The portal whose corner `waypoint` lies on (within `radius` of it, plus a margin),
/// if any.
pub(crate) fn portal_at(portals: &[Portal], waypoint: Vec2, radius: f32) -> Option<&Portal> {
    let reach = radius * 1.01 + 1e-3;
    portals
        .iter()
        .find(|p| p.corner.distance_squared(waypoint) <= reach * reach)
}

/// What an agent at `position` with `radius` does at `portal`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum AtPortal {
    /// Head for this point of the opening.
    Head(Vec2),
    /// Follow the path (beside the opening, or no straight way through it).
    Follow,
    /// Past the opening: drop the rest of the corner's waypoints.
    Passed,
}

/// How far from a portal's corner an agent looks for the least crowded way through it,
/// metres; further away it follows its path.
pub(crate) const CHOICE_RANGE: f32 = 6.0;

/// What each person already on the way to a point of the door costs, metres of
/// walking: about the delay of one more person ahead in a file at walking speed.
/// Measured on the generated doors (0.8 to 2.8 m, seeds 1 to 32) with the people's
/// zipper ([`OrcaParams::zipper`](crate::steer::OrcaParams::zipper)): 0.5 m left the
/// middle of wide doors to the few heading straight on while the files at the posts
/// pressed along the wall, 2.4 m passing 1.45 to 1.62 persons per metre and second;
/// 1 m spreads them over the width, 1.49 to 1.73, and changes narrow doors and
/// crossings by no more than their seed-to-seed spread. (Before the zipper, 1 m kept
/// too many in the files at the posts of narrow doors.)
pub(crate) const QUEUE_COST: f32 = 1.0;

/// How near a point of a door someone is counted as crowding it, metres: about two
/// people's widths round the point.
pub(crate) const CROWD_REACH: f32 = 1.0;

/// What each person within [`CROWD_REACH`] of a point of a door costs the point,
/// metres of walking, on top of [`QUEUE_COST`] for those on the way to it: people
/// head for the part of a wide door where there is room, not only for the one with no
/// file in front of it.
///
/// At a door near a room's corner everyone arrives from one side and wraps the same
/// post. The queue count alone cannot tell its points apart (everyone's way to any of
/// them starts along the same file), so the crowd stood in a block under the near post
/// and passed in one file, while the door's far part stayed empty: a 2.4 m door 3 m
/// from the corner passed 1.23–1.35 persons per metre and second with places in
/// order, where JuPedSim's social force model passes 1.66–1.77 (docs/crowd-behaviour.md,
/// "Door shapes"). Counting those already crowding each point sends the next one to
/// the free part. Measured on seeds 1–4 of the four ways of dealing places
/// (`crowd_flow door-shape=1,12,...`, widths 1.0–2.4 m): runs below the band 38 of 64
/// → 11; with 1 m and 1 person costing 1, 1.5 or 2.5 m: 15, 11 and 21; 0.75 m and
/// 1.5 m: 10 and 30; 0.5 m: 15.
pub(crate) const CROWD_COST: f32 = 1.5;

/// The narrowest door whose points [`CROWD_COST`] tells apart, in radii of the agent:
/// three people abreast. In a narrower door every point lies within [`CROWD_REACH`]
/// of the others, and the count only sent people to the post away from whoever was in
/// the door: the 1.2 m door's flow fell from 1.80–2.05 to 1.45–1.57 (seeds 1–8).
pub(crate) const CROWD_DOOR_RADII: f32 = 6.0;

/// The widest opening whose points [`CROWD_COST`] tells apart, metres: a door. Wider
/// portals are the corners of crossings (the diagonal of two corridors 6 m wide is
/// 8.5 m), where the streams walk through one another's points; counted there, a
/// crossing of two streams of 80 in corridors 6 m wide took 2.64 times the time alone
/// on one of seeds 1–48 (1.97 at most without).
pub(crate) const CROWD_DOOR_SPAN: f32 = 5.0;

/// A point of a door's span an agent may head for, and who is there: the people on
/// the straight way to it ([`QUEUE_COST`] each) and those crowding it
/// ([`CROWD_COST`] each). Integer counts, so the order in which the grid hands the
/// others over does not matter.
#[derive(Clone, Copy, Debug, Default)]
struct Lane {
    target: Vec2,
    in_way: u32,
    crowding: u32,
}

/// The others an agent sees on its way to a portal: where they are.
pub(crate) struct Others<'a> {
    /// The point grid over every agent (their positions at the start of the step).
    pub grid: &'a PointGrid,
    /// Every agent's position, as the grid holds them.
    pub positions: &'a [Vec2],
    /// The agent itself, in the grid's numbering.
    pub me: u32,
}

impl Portal {
    /// Where an agent at `position`, of `radius`, heads at this portal: of the points
    /// of the opening's free span that it can walk to in a straight line clear of both
    /// sides, the one for which the walk there, on to `beyond` (the path's next
    /// waypoint past the portal), and [`QUEUE_COST`] for each of `others` already in
    /// the way, and at a door three or more abreast [`CROWD_COST`] for each crowding the
    /// point, costs least (candidates every half radius across the span). The choice
    /// is made afresh every step: no memory, so it follows the crowd as it shifts.
    pub(crate) fn choose(
        &self,
        position: Vec2,
        radius: f32,
        beyond: Vec2,
        others: &Others<'_>,
    ) -> AtPortal {
        let offset = position - self.corner;
        if offset.dot(self.through) > 0.0 {
            return AtPortal::Passed;
        }
        if offset.length_squared() > CHOICE_RANGE * CHOICE_RANGE {
            return AtPortal::Follow;
        }
        let (low, high) = (radius, self.span - radius);
        if high <= low {
            return AtPortal::Follow;
        }
        let far = self.corner + self.across * self.span;
        let clear = |target: Vec2, side: Vec2| {
            closest_point_on_segment(side, position, target).distance_squared(side)
                >= radius * radius
        };
        // Candidates every half radius across the span, both ends included.
        let count = ((high - low) / (0.5 * radius)).ceil().clamp(1.0, 32.0) as usize;
        let mut lanes = [Lane::default(); 33];
        let mut n = 0;
        for k in 0..=count {
            let s = low + (high - low) * k as f32 / count as f32;
            let target = self.corner + self.across * s;
            if clear(target, self.corner) && clear(target, far) {
                lanes[n] = Lane {
                    target,
                    ..Lane::default()
                };
                n += 1;
            }
        }
        let lanes = &mut lanes[..n];
        if lanes.is_empty() {
            return AtPortal::Follow;
        }
        // Who is in the way: anyone whose centre lies within a diameter of the straight
        // way to a candidate, ahead of the agent; and, at a door wide enough for its
        // points to differ, who crowds a candidate: anyone within `CROWD_REACH` of it.
        let middle = self.corner + self.across * (self.span * 0.5);
        let crowd_cost = if (CROWD_DOOR_RADII * radius..=CROWD_DOOR_SPAN).contains(&self.span) {
            CROWD_COST
        } else {
            0.0
        };
        let near = if crowd_cost > 0.0 { CROWD_REACH } else { 0.0 };
        let reach = position.distance(middle) + self.span * 0.5 + (2.0 * radius).max(near);
        let band = 2.0 * radius;
        others.grid.for_each_within(position, reach, |j, _| {
            if j == others.me {
                return;
            }
            let Some(&q) = others.positions.get(j as usize) else {
                return;
            };
            for lane in lanes.iter_mut() {
                if q.distance_squared(lane.target) < near * near {
                    lane.crowding += 1;
                }
                let way = lane.target - position;
                if (q - position).dot(way) <= 0.0 {
                    continue;
                }
                if closest_point_on_segment(q, position, lane.target).distance_squared(q)
                    < band * band
                {
                    lane.in_way += 1;
                }
            }
        });
        let cost = |lane: &Lane| {
            position.distance(lane.target)
                + lane.target.distance(beyond)
                + QUEUE_COST * lane.in_way as f32
                + crowd_cost * lane.crowding as f32
        };
        let mut best = lanes[0];
        let mut best_cost = cost(&best);
        for lane in lanes.iter().skip(1) {
            let c = cost(lane);
            if c < best_cost {
                best = *lane;
                best_cost = c;
            }
        }
        AtPortal::Head(best.target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Level, NavMesh};

    /// A room `[0, 10]²` with a wall 1 m thick at `x` in `[10, 11]` and a door of
    /// `width` centred at `y = 5`, a hall behind; the mesh, its walls and their grid.
    fn door(width: f32) -> (NavMesh, Vec<Segment>, WallGrid) {
        door_in(10.0, width)
    }

    /// [`door`] in a room `height` metres high, the door centred at `height / 2`.
    fn door_in(height: f32, width: f32) -> (NavMesh, Vec<Segment>, WallGrid) {
        door_through(height, width, 1.0)
    }

    /// [`door_in`] through a wall `thickness` metres thick (from `x = 10`).
    fn door_through(height: f32, width: f32, thickness: f32) -> (NavMesh, Vec<Segment>, WallGrid) {
        let (low, high) = (height / 2.0 - width / 2.0, height / 2.0 + width / 2.0);
        let x = 10.0 + thickness;
        let json = format!(
            r#"{{"boundary": [[0,0],[21,0],[21,{height}],[0,{height}]],
                "obstacles": [[[10,0],[{x},0],[{x},{low}],[10,{low}]],
                              [[10,{high}],[{x},{high}],[{x},{height}],[10,{height}]]]}}"#
        );
        mesh_and_walls(&json)
    }

    fn mesh_and_walls(json: &str) -> (NavMesh, Vec<Segment>, WallGrid) {
        let level = Level::from_json(json).expect("level");
        let mesh = NavMesh::from_level(&level).expect("mesh");
        let walls: Vec<Segment> = mesh.walls().collect();
        let grid = WallGrid::new(&walls, 2.0);
        (mesh, walls, grid)
    }

    fn portals(width: f32, start: Vec2, goal: Vec2) -> Vec<Portal> {
        portals_on(door(width), start, goal)
    }

    fn portals_on(
        (mesh, walls, grid): (NavMesh, Vec<Segment>, WallGrid),
        start: Vec2,
        goal: Vec2,
    ) -> Vec<Portal> {
        let path = mesh.find_path(start, goal, 0.25).expect("a path");
        let mut out = Vec::new();
        portals_of(&path, &walls, &grid, &mut out);
        out
    }

    #[test]
    fn a_path_through_a_door_finds_both_posts_and_the_door_width() {
        let found = portals(2.0, Vec2::new(2.0, 1.0), Vec2::new(19.0, 1.0));
        assert_eq!(found.len(), 2, "{found:?}");
        for (p, corner) in found
            .iter()
            .zip([Vec2::new(10.0, 4.0), Vec2::new(11.0, 4.0)])
        {
            assert!(p.corner.distance(corner) < 1e-4, "{p:?}");
            assert!((p.span - 2.0).abs() < 1e-3, "{p:?}");
            assert!(p.across.distance(Vec2::Y) < 1e-3, "{p:?}");
            assert!(p.through.distance(Vec2::X) < 1e-3, "{p:?}");
        }
        // A door 6 m wide is still a door; openings wider than MAX_SPAN are open ground.
        let six = portals(6.0, Vec2::new(2.0, 1.0), Vec2::new(19.0, 1.0));
        assert_eq!(six.len(), 2, "{six:?}");
        assert!(six.iter().all(|p| (p.span - 6.0).abs() < 1e-3), "{six:?}");
        let wide = door_in(24.0, MAX_SPAN + 1.0);
        assert!(portals_on(wide, Vec2::new(2.0, 3.0), Vec2::new(19.0, 3.0)).is_empty());
    }

    /// A door's portals tell steering where its passage begins and how long it is:
    /// the wall's thickness, from either post the path wraps (to 5 cm, the steps it
    /// is measured in).
    #[test]
    fn a_door_s_opening_runs_from_its_entry_through_the_wall() {
        for thickness in [1.0f32, 0.2] {
            let found = portals_on(
                door_through(10.0, 2.0, thickness),
                Vec2::new(2.0, 1.0),
                Vec2::new(19.0, 1.0),
            );
            assert!(!found.is_empty(), "{found:?}");
            for p in &found {
                let door = p.steer_opening();
                assert!(door.entry.distance(Vec2::new(10.0, 4.0)) < 0.06, "{door:?}");
                assert!((door.length - thickness).abs() < 0.06, "{door:?}");
                assert!((door.width - 2.0).abs() < 1e-3, "{door:?}");
                assert!(door.through.distance(Vec2::X) < 1e-3, "{door:?}");
                // The far post, across the entry.
                let far = door.entry + door.across * door.width;
                assert!(far.distance(Vec2::new(10.0, 6.0)) < 0.06, "{door:?}");
            }
        }
    }

    #[test]
    fn the_corner_of_a_crossing_of_corridors_6_m_wide_is_a_portal_across_its_diagonal() {
        // Corridors 6 m wide crossing in [22, 28]²; from the north arm round the
        // north-east corner into the east arm, as someone carried past its turn.
        let json = r#"{"boundary": [[22,0],[28,0],[28,22],[50,22],[50,28],[28,28],
                                    [28,50],[22,50],[22,28],[0,28],[0,22],[22,22]]}"#;
        let found = portals_on(
            mesh_and_walls(json),
            Vec2::new(27.0, 32.0),
            Vec2::new(32.0, 27.0),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        let p = found[0];
        assert!(p.corner.distance(Vec2::splat(28.0)) < 1e-4, "{p:?}");
        assert!((p.span - 6.0 * 2f32.sqrt()).abs() < 1e-2, "{p:?}");
    }

    #[test]
    fn a_door_crossed_diagonally_is_a_portal_at_both_posts() {
        // From beside the door's lower post to a place high in the hall: the path wraps
        // the lower post's near corner and the upper post's far corner, turning by
        // little at each, so no direction the arcs sweep meets the wall across.
        let found = portals(2.0, Vec2::new(9.5, 1.0), Vec2::new(12.0, 9.5));
        assert_eq!(found.len(), 2, "{found:?}");
        for (p, (corner, across)) in found.iter().zip([
            (Vec2::new(10.0, 4.0), Vec2::Y),
            (Vec2::new(11.0, 6.0), -Vec2::Y),
        ]) {
            assert!(p.corner.distance(corner) < 1e-4, "{p:?}");
            assert!((p.span - 2.0).abs() < 1e-3, "{p:?}");
            assert!(p.across.distance(across) < 1e-3, "{p:?}");
            assert!(p.through.distance(Vec2::X) < 1e-3, "{p:?}");
        }
        // Beside the door at the lower post, the agent heads into the door's width.
        let positions = [Vec2::new(9.2, 3.0)];
        let grid = crowd(&positions);
        let others = first_of(&grid, &positions);
        let AtPortal::Head(target) = found[0].choose(positions[0], 0.25, found[1].corner, &others)
        else {
            panic!("heads through the door");
        };
        assert!(
            (target.x - 10.0).abs() < 1e-4 && target.y > 4.25,
            "{target}"
        );
    }

    /// The others as the first of `positions` (held in `grid`) sees them.
    fn first_of<'a>(grid: &'a PointGrid, positions: &'a [Vec2]) -> Others<'a> {
        Others {
            grid,
            positions,
            me: 0,
        }
    }

    fn crowd(points: &[Vec2]) -> PointGrid {
        let mut grid = PointGrid::default();
        grid.rebuild(points, 0.6);
        grid
    }

    #[test]
    fn alone_in_front_of_the_door_an_agent_walks_straight_through_it() {
        let found = portals(2.0, Vec2::new(2.0, 1.0), Vec2::new(19.0, 1.0));
        let post = found[0];
        let positions = [Vec2::new(8.0, 5.0)];
        let grid = crowd(&positions);
        let others = first_of(&grid, &positions);
        let beyond = Vec2::new(11.0, 4.25);
        // In front of the door's middle: into the door on the shortest way through a
        // point of its width, not round the post (4.25, a radius off it).
        let AtPortal::Head(target) = post.choose(positions[0], 0.25, beyond, &others) else {
            panic!("heads through the door");
        };
        assert!(
            (target.x - 10.0).abs() < 1e-4 && target.y >= 4.5 - 1e-4,
            "{target}"
        );
        // Beside the door, against the wall: no straight way into the door but past
        // the post, so it follows its path.
        assert_eq!(
            post.choose(Vec2::new(9.7, 3.0), 0.25, beyond, &others),
            AtPortal::Follow
        );
        // Through the door: past it.
        assert_eq!(
            post.choose(Vec2::new(10.2, 5.0), 0.25, beyond, &others),
            AtPortal::Passed
        );
        // Far away: follows its path.
        assert_eq!(
            post.choose(Vec2::new(2.0, 1.0), 0.25, beyond, &others),
            AtPortal::Follow
        );
    }

    #[test]
    fn a_queue_in_one_part_of_the_door_sends_the_next_one_to_another() {
        let post = portals(2.0, Vec2::new(2.0, 1.0), Vec2::new(19.0, 1.0))[0];
        let me = Vec2::new(8.0, 4.25);
        let beyond = Vec2::new(11.0, 4.25);
        let free = heads_for(&post, beyond, &[me]);
        assert!(free.y < 4.5, "alone, it keeps near the post: {free}");
        // Three queue in front of it along the post.
        let queued = [
            me,
            Vec2::new(8.6, 4.25),
            Vec2::new(9.2, 4.25),
            Vec2::new(9.8, 4.3),
        ];
        let spread = heads_for(&post, beyond, &queued);
        assert!(
            spread.y > 4.75,
            "it takes a free part of the door: {spread}"
        );
    }

    /// Where the first of `positions` (of radius 0.25) heads at `post`, the others
    /// being the rest.
    fn heads_for(post: &Portal, beyond: Vec2, positions: &[Vec2]) -> Vec2 {
        let grid = crowd(positions);
        match post.choose(positions[0], 0.25, beyond, &first_of(&grid, positions)) {
            AtPortal::Head(target) => target,
            other => panic!("heads through the door, not {other:?}"),
        }
    }

    /// Others crowding one part of a wide door, in its passage past the points an
    /// agent can head for (so on the straight way to none of them), send it to the
    /// part left free; in a door too narrow for three abreast they do not count.
    #[test]
    fn a_crowd_in_one_part_of_a_wide_door_sends_the_next_one_to_the_free_part() {
        let post = portals(2.4, Vec2::new(2.0, 1.0), Vec2::new(19.0, 1.0))[0];
        let me = Vec2::new(8.0, 3.9);
        let beyond = Vec2::new(11.0, 3.8);
        let free = heads_for(&post, beyond, &[me]);
        assert!(free.y < 4.3, "alone, it keeps near the post: {free}");
        let crowded = [
            me,
            Vec2::new(10.6, 4.0),
            Vec2::new(10.6, 4.5),
            Vec2::new(10.7, 4.25),
        ];
        let spread = heads_for(&post, beyond, &crowded);
        assert!(
            spread.y > 5.0,
            "it takes the free part of the door: {spread}"
        );

        // A door 1.2 m wide, the same crowd in its lower part: the same choice as alone.
        let post = portals(1.2, Vec2::new(2.0, 1.0), Vec2::new(19.0, 1.0))[0];
        let (me, beyond) = (Vec2::new(8.0, 4.5), Vec2::new(11.0, 4.4));
        let crowded = [
            me,
            Vec2::new(10.6, 4.6),
            Vec2::new(10.6, 5.1),
            Vec2::new(10.7, 4.85),
        ];
        assert_eq!(
            heads_for(&post, beyond, &crowded),
            heads_for(&post, beyond, &[me])
        );
    }
}
