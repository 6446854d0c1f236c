//! The nearest point a disc can reach: what an agent should head for when its goal is
//! inside an obstacle, outside the level, too close to a wall, or cut off for its
//! radius.

use super::{Location, NavMesh, TriangleId};
use crate::geom::Segment;
use glam::Vec2;
use std::collections::VecDeque;

impl NavMesh {
    /// The point nearest to `goal` that a disc of `radius` starting at `from` can reach:
    /// a point with clearance `>= radius`, joined to `from` by a path for that radius
    /// ([`NavMesh::find_path`] succeeds from `from` to it).
    ///
    /// Returns `goal` itself when it is reachable. Otherwise the answer is the nearest
    /// of these candidates that is reachable: for every wall, the foot of `goal` on the
    /// line at distance `radius` from it (walkable side), the point at distance
    /// `radius` from each wall end in the direction of `goal`, and the corner where the
    /// offset lines of two walls meeting at a vertex cross; `from` itself is the last
    /// resort. That is the exact nearest point whenever it touches one wall or one
    /// corner, which covers goals inside obstacles, beyond the boundary, in pockets and
    /// against walls; a nearest point pinched between two walls that do not meet is
    /// only approximated by the next candidate. Candidates sit a hair (a few `f32`
    /// ulps) beyond `radius`, so that `find_path` accepts them.
    ///
    /// Returns `None` when the query is invalid (a coordinate or the radius is NaN or
    /// infinite, or the radius is negative) or when `from` itself has no room: it is
    /// outside walkable space or nearer than `radius` to a wall.
    ///
    /// Cost: one path query when `goal` is reachable; otherwise a search over the
    /// triangles a disc can reach from `from`, one point location per candidate near
    /// that region, and usually one more path query.
    ///
    /// # Example
    /// ```
    /// use crowdnav::mesh::{Level, NavMesh};
    /// use glam::Vec2;
    /// let level = Level::from_json(r#"{
    ///     "boundary": [[0,0],[10,0],[10,10],[0,10]],
    ///     "obstacles": [[[4,4],[6,4],[6,6],[4,6]]]
    /// }"#)?;
    /// let mesh = NavMesh::from_level(&level)?;
    /// // The goal is inside the obstacle: stop half a metre short of its left side.
    /// let p = mesh.nearest_reachable(Vec2::new(1.0, 5.0), Vec2::new(4.5, 5.0), 0.5).unwrap();
    /// assert!((p - Vec2::new(3.5, 5.0)).length() < 1e-3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// *See also* [`NavMesh::find_path`], [`NavMesh::clearance`],
    /// [`NavMesh::nearest_point_reachable`] (exact for every nearest point, with typed
    /// errors).
    pub fn nearest_reachable(&self, from: Vec2, goal: Vec2, radius: f32) -> Option<Vec2> {
        if !(from.is_finite() && goal.is_finite() && radius.is_finite() && radius >= 0.0) {
            return None;
        }
        let Location::Walkable(start) = self.locate(from) else {
            return None;
        };
        if self.clearance_within(from, start, f64::from(radius)) < f64::from(radius) {
            return None;
        }
        if self.find_path(from, goal, radius).is_ok() {
            return Some(goal);
        }
        let reached = self.reachable_triangles(start, radius);
        let mut candidates = self.candidates(goal, radius);
        candidates.sort_by(|a, b| {
            a.distance_squared(goal)
                .total_cmp(&b.distance_squared(goal))
        });
        candidates.dedup();
        candidates
            .into_iter()
            .filter(|c| c.is_finite())
            .find(|&c| {
                let Location::Walkable(t) = self.locate(c) else {
                    return false;
                };
                reached[t.index()]
                    && self.clearance_within(c, t, f64::from(radius)) >= f64::from(radius)
                    && self.find_path(from, c, radius).is_ok()
            })
            .or(Some(from))
    }

    /// Triangles a disc of `radius` can enter from `start`: breadth-first over
    /// (triangle, entry edge), leaving `start` through any open edge (not a wall, and
    /// wide enough when both its ends touch walls) and crossing later triangles only
    /// where [`NavMesh::can_cross`] allows. A superset of where paths go, used to
    /// discard candidates cheaply; each survivor is confirmed by a path query.
    pub(crate) fn reachable_triangles(&self, start: TriangleId, radius: f32) -> Vec<bool> {
        let mut reached = vec![false; self.triangle_count()];
        let mut seen = vec![[false; 3]; self.triangle_count()];
        let mut queue = VecDeque::new();
        reached[start.index()] = true;
        let enter = |t: TriangleId,
                     e: usize,
                     queue: &mut VecDeque<(TriangleId, usize)>,
                     seen: &mut Vec<[bool; 3]>| {
            if let Some(nb) = self.neighbor(t, e) {
                if let Some(back) = (0..3).find(|&k| self.neighbor(nb, k) == Some(t)) {
                    if !seen[nb.index()][back] {
                        seen[nb.index()][back] = true;
                        queue.push_back((nb, back));
                    }
                }
            }
        };
        for e in 0..3 {
            let ids = self.triangle_vertex_ids(start);
            let pinched = self.is_obstacle_vertex(ids[e])
                && self.is_obstacle_vertex(ids[(e + 1) % 3])
                && self.edge_segment(start, e).length() < 2.0 * radius;
            if !self.is_wall(start, e) && !pinched {
                enter(start, e, &mut queue, &mut seen);
            }
        }
        while let Some((t, from)) = queue.pop_front() {
            reached[t.index()] = true;
            for to in 0..3 {
                if to != from && self.can_cross(t, from, to, radius) {
                    enter(t, to, &mut queue, &mut seen);
                }
            }
        }
        reached
    }

    /// Points just beyond `radius` from the walls, nearest to `goal` along each wall,
    /// around each wall end, and at each corner of two offset walls.
    fn candidates(&self, goal: Vec2, radius: f32) -> Vec<Vec2> {
        let walls: Vec<Segment> = self.walls().collect();
        let mut out = Vec::with_capacity(walls.len() * 4);
        let offset = |p: Vec2| radius + hair(p, radius);
        for w in &walls {
            let Some(n) = (w.b - w.a).perp().try_normalize() else {
                continue;
            };
            let d = w.b - w.a;
            let t = (goal - w.a).dot(d) / d.length_squared();
            if t > 0.0 && t < 1.0 {
                let foot = w.a + d * t;
                out.push(foot + n * offset(foot));
            }
            for v in [w.a, w.b] {
                let dir = (goal - v).try_normalize().unwrap_or(n);
                out.push(v + dir * offset(v));
                out.push(v + n * offset(v));
            }
        }
        // Corners of the offset region: where the offset lines of a wall ending at v
        // and a wall starting at v cross.
        let mut by_start: Vec<(u64, Vec2)> = walls
            .iter()
            .filter_map(|w| Some((key(w.a), (w.b - w.a).perp().try_normalize()?)))
            .collect();
        by_start.sort_by_key(|&(k, _)| k);
        for w in &walls {
            let Some(n1) = (w.b - w.a).perp().try_normalize() else {
                continue;
            };
            let k = key(w.b);
            let first = by_start.partition_point(|&(s, _)| s < k);
            for &(_, n2) in by_start[first..].iter().take_while(|&&(s, _)| s == k) {
                // p = v + x with x·n1 = x·n2 = h: x = h (n1 + n2) / (1 + n1·n2).
                let denom = 1.0 + n1.dot(n2);
                if denom > 1e-4 {
                    let h = offset(w.b);
                    out.push(w.b + (n1 + n2) * (h / denom));
                }
            }
        }
        out
    }
}

/// A hair beyond a distance: enough ulps of the point's coordinates and of the radius
/// that rounding the candidate to `f32` keeps it at least `radius` from the wall.
fn hair(p: Vec2, radius: f32) -> f32 {
    let scale = p.abs().max_element().max(radius).max(1.0);
    scale * 8.0 * f32::EPSILON
}

/// A total-order key for a point, for grouping walls by shared end.
fn key(p: Vec2) -> u64 {
    (u64::from(p.x.to_bits()) << 32) | u64::from(p.y.to_bits())
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::mesh::test_worlds::{mesh, room_with_pillar};

    fn close(a: Vec2, b: Vec2) -> bool {
        a.distance(b) < 1e-3
    }

    #[test]
    fn a_reachable_goal_is_its_own_answer() {
        let m = room_with_pillar();
        let g = Vec2::new(8.0, 8.0);
        assert_eq!(m.nearest_reachable(Vec2::new(1.0, 1.0), g, 0.5), Some(g));
    }

    #[test]
    fn a_goal_inside_an_obstacle_gives_the_point_radius_off_its_side() {
        let m = room_with_pillar();
        let p = m
            .nearest_reachable(Vec2::new(1.0, 1.0), Vec2::new(5.0, 5.8), 0.5)
            .expect("from has room");
        assert!(close(p, Vec2::new(5.0, 6.5)), "{p}");
        assert!(m.find_path(Vec2::new(1.0, 1.0), p, 0.5).is_ok());
    }

    #[test]
    fn a_goal_beyond_the_boundary_corner_gives_the_offset_corner() {
        let m = room_with_pillar();
        let p = m
            .nearest_reachable(Vec2::new(2.0, 2.0), Vec2::new(-3.0, -1.0), 0.5)
            .expect("from has room");
        assert!(close(p, Vec2::new(0.5, 0.5)), "{p}");
    }

    #[test]
    fn a_goal_round_an_obstacle_corner_lies_on_the_arc() {
        let m = room_with_pillar();
        // Off the pillar's corner (6, 6), nearer than the radius.
        let p = m
            .nearest_reachable(Vec2::new(9.0, 9.0), Vec2::new(6.3, 6.4), 1.0)
            .expect("from has room");
        let want = Vec2::new(6.0, 6.0) + Vec2::new(0.3, 0.4) / 0.5;
        assert!(close(p, want), "{p} vs {want}");
    }

    #[test]
    fn a_goal_behind_a_narrow_gap_stops_before_the_gap() {
        // Two rooms joined by a 1 m door in the wall x = 5 (from y = 4.5 to 5.5).
        let m = mesh(
            r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
                "obstacles": [[[5,0],[5.2,0],[5.2,4.5],[5,4.5]],
                              [[5,5.5],[5.2,5.5],[5.2,10],[5,10]]]}"#,
        );
        let from = Vec2::new(2.0, 5.0);
        let goal = Vec2::new(8.0, 5.0);
        // A small disc goes through.
        assert_eq!(m.nearest_reachable(from, goal, 0.3), Some(goal));
        // A big one stops on its own side, facing the door.
        let p = m.nearest_reachable(from, goal, 0.8).expect("from has room");
        // Pressed against the wall x = 5 at its radius 0.8, to 1 mm either way (the
        // lower side was a loose 3.5). Measured: 4.199995.
        assert!(p.x <= 5.0 - 0.8 + 1e-3, "{p}");
        assert!(
            p.x >= 5.0 - 0.8 - 1e-3,
            "{p}: should press against the doorway"
        );
        assert!(m.find_path(from, p, 0.8).is_ok());
    }

    #[test]
    fn a_goal_on_a_separate_island_gives_a_point_on_our_side() {
        // The wall x in [4, 6] spans the room: two islands.
        let m = mesh(
            r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
                "obstacles": [[[4,-1],[6,-1],[6,11],[4,11]]]}"#,
        );
        let p = m
            .nearest_reachable(Vec2::new(1.0, 5.0), Vec2::new(9.0, 7.0), 0.5)
            .expect("from has room");
        assert!(close(p, Vec2::new(3.5, 7.0)), "{p}");
    }

    #[test]
    fn a_goal_too_close_to_a_wall_moves_out_to_the_radius() {
        let m = room_with_pillar();
        let p = m
            .nearest_reachable(Vec2::new(5.0, 2.0), Vec2::new(5.0, 0.1), 0.5)
            .expect("from has room");
        assert!(close(p, Vec2::new(5.0, 0.5)), "{p}");
        // Room for the 0.5 m radius.
        assert!(m.clearance(p).expect("walkable") >= 0.5);
    }

    #[test]
    fn bad_queries_and_a_start_without_room_have_no_answer() {
        let m = room_with_pillar();
        let g = Vec2::new(8.0, 8.0);
        assert_eq!(m.nearest_reachable(Vec2::new(f32::NAN, 1.0), g, 0.5), None);
        assert_eq!(m.nearest_reachable(Vec2::ONE, Vec2::INFINITY, 0.5), None);
        assert_eq!(m.nearest_reachable(Vec2::ONE, g, -1.0), None);
        assert_eq!(m.nearest_reachable(Vec2::ONE, g, f32::NAN), None);
        assert_eq!(m.nearest_reachable(Vec2::new(5.0, 5.0), g, 0.5), None);
        assert_eq!(m.nearest_reachable(Vec2::new(0.2, 5.0), g, 0.5), None);
        assert_eq!(m.nearest_reachable(Vec2::new(-5.0, 5.0), g, 0.5), None);
    }

    #[test]
    fn a_radius_too_big_to_move_anywhere_keeps_the_start() {
        let m = mesh(r#"{"boundary": [[0,0],[2,0],[2,2],[0,2]]}"#);
        let from = Vec2::new(1.0, 1.0);
        assert_eq!(
            m.nearest_reachable(from, Vec2::new(5.0, 1.0), 1.0),
            Some(from)
        );
    }
}
