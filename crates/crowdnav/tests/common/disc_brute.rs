//! An independent oracle for disc paths (included with
//! `#[path = "common/disc_brute.rs"] mod disc_brute;`): the shortest path of a disc of
//! radius `r` among wall segments, by Dijkstra over a tangent visibility graph, with
//! none of the library's search, funnel or clearance code.
//!
//! The disc's centre must keep `r` from every wall. Its shortest path is made of
//! straight pieces tangent to circles of radius `r` around wall corners and arcs of
//! those circles (the free space is the plane minus the walls grown by `r`, whose
//! boundary is straight where it runs along a wall and circular around corners; a
//! straight run along a wall is the common tangent of its ends' circles). So the graph
//! holds every common tangent of two corner circles (and from the start, to the goal)
//! that keeps `r` from every wall, and every arc between two tangent points of one
//! circle, walked the way the tangents turn, that keeps `r` too. Every path of the
//! graph is a valid path, and the optimum is one of them.

use crowdnav::geom::Segment;
use glam::DVec2;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::f64::consts::TAU;

/// Corner circles of one world and radius, with their tangents worked out once.
pub struct TangentGraph {
    r: f64,
    /// A piece counts as clear when it keeps `r - tol` from every wall.
    tol: f64,
    walls: Vec<(DVec2, DVec2)>,
    corners: Vec<DVec2>,
    /// Valid tangents between two corners.
    tangents: Vec<Tangent>,
}

/// A directed common tangent from circle `from` (passed on side `from_side`: 0 with
/// the circle on the left, 1 on the right) to circle `to`.
#[derive(Clone, Copy, Debug)]
struct Tangent {
    from: usize,
    from_side: usize,
    a: DVec2,
    to: usize,
    to_side: usize,
    b: DVec2,
}

/// The signed radius of a circle passed on `side`.
fn signed(radius: f64, side: usize) -> f64 {
    if side == 0 {
        radius
    } else {
        -radius
    }
}

fn perp(v: DVec2) -> DVec2 {
    DVec2::new(-v.y, v.x)
}

fn point_segment_distance(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

fn segments_distance(p: DVec2, q: DVec2, a: DVec2, b: DVec2) -> f64 {
    let o = |u: DVec2, v: DVec2, w: DVec2| (v - u).perp_dot(w - u);
    let (o1, o2, o3, o4) = (o(p, q, a), o(p, q, b), o(a, b, p), o(a, b, q));
    if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
        return 0.0;
    }
    point_segment_distance(p, a, b)
        .min(point_segment_distance(q, a, b))
        .min(point_segment_distance(a, p, q))
        .min(point_segment_distance(b, p, q))
}

/// Dijkstra's queue entry: smallest distance first.
struct Entry(f64, usize);
impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl TangentGraph {
    /// The graph of `walls` for a disc of radius `r` (> 0).
    pub fn new(walls: &[Segment], r: f64) -> TangentGraph {
        let walls: Vec<(DVec2, DVec2)> = walls
            .iter()
            .map(|w| (w.a.as_dvec2(), w.b.as_dvec2()))
            .collect();
        let mut corners: Vec<DVec2> = Vec::new();
        for &(a, b) in &walls {
            for v in [a, b] {
                if !corners.contains(&v) {
                    corners.push(v);
                }
            }
        }
        let scale = corners
            .iter()
            .fold(1.0f64, |m, c| m.max(c.abs().max_element()));
        let mut graph = TangentGraph {
            r,
            tol: 1e-7 * (scale + r),
            walls,
            corners,
            tangents: Vec::new(),
        };
        let n = graph.corners.len();
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    for (si, sj) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        if let Some(t) =
                            graph.tangent_at(i, si, r, j, sj, r, (DVec2::ZERO, DVec2::ZERO))
                        {
                            graph.tangents.push(t);
                        }
                    }
                }
            }
        }
        graph
    }

    /// The centre of circle `i`: a corner, or the start (`n`) and goal (`n + 1`) of
    /// the query in `ends`.
    fn center(&self, i: usize, ends: (DVec2, DVec2)) -> DVec2 {
        let n = self.corners.len();
        if i < n {
            self.corners[i]
        } else if i == n {
            ends.0
        } else {
            ends.1
        }
    }

    /// The tangent from circle `i` (side `si`, radius `ri`) to circle `j` that keeps
    /// clear of every wall; circles `n` and `n + 1` are the start and goal of `ends`,
    /// of radius 0.
    #[expect(clippy::too_many_arguments)]
    fn tangent_at(
        &self,
        i: usize,
        si: usize,
        ri: f64,
        j: usize,
        sj: usize,
        rj: f64,
        ends: (DVec2, DVec2),
    ) -> Option<Tangent> {
        let (ci, cj) = (self.center(i, ends), self.center(j, ends));
        let d = cj - ci;
        let (pi, pj) = (signed(ri, si), signed(rj, sj));
        let delta = pj - pi;
        let len2 = d.length_squared() - delta * delta;
        if len2 <= 0.0 {
            return None;
        }
        // The travel direction `u`: `d = L u + delta perp(u)`; a circle on the left
        // of the travel has its tangent point at `centre - radius perp(u)`.
        let u = (d * len2.sqrt() - perp(d) * delta) / d.length_squared();
        let (a, b) = (ci - perp(u) * pi, cj - perp(u) * pj);
        let clear = self
            .walls
            .iter()
            .all(|&(w0, w1)| segments_distance(a, b, w0, w1) >= self.r - self.tol);
        clear.then_some(Tangent {
            from: i,
            from_side: si,
            a,
            to: j,
            to_side: sj,
            b,
        })
    }

    /// Does the arc of the circle of radius `r` around `center` from angle `alpha`
    /// counter-clockwise over `sweep` keep `r` from every wall? The nearest points of
    /// an arc and a segment are an arc end, or an arc point radial to a segment end,
    /// or where the arc's normal is the segment's, or where they cross.
    fn arc_clear(&self, center: DVec2, alpha: f64, sweep: f64) -> bool {
        let r = self.r;
        let within = |theta: f64| (theta - alpha).rem_euclid(TAU) <= sweep;
        let at = |theta: f64| center + DVec2::new(theta.cos(), theta.sin()) * r;
        let angle = |v: DVec2| v.y.atan2(v.x);
        for &(a, b) in &self.walls {
            if a.min(b).cmpgt(center + 2.0 * r).any() || a.max(b).cmplt(center - 2.0 * r).any() {
                continue;
            }
            let mut candidates = vec![alpha, alpha + sweep];
            for v in [a, b] {
                if v != center {
                    candidates.push(angle(v - center));
                }
            }
            let ab = b - a;
            if ab.length_squared() > 0.0 {
                let n = perp(ab).normalize();
                candidates.push(angle(n));
                candidates.push(angle(-n));
                // Where the segment's line meets the circle.
                let (f, g) = (a - center, ab);
                let (qa, qb, qc) = (g.dot(g), 2.0 * f.dot(g), f.dot(f) - r * r);
                let disc = qb * qb - 4.0 * qa * qc;
                if disc >= 0.0 {
                    for t in [
                        (-qb - disc.sqrt()) / (2.0 * qa),
                        (-qb + disc.sqrt()) / (2.0 * qa),
                    ] {
                        if (0.0..=1.0).contains(&t) {
                            candidates.push(angle(f + g * t));
                        }
                    }
                }
            }
            let blocked = candidates.iter().enumerate().any(|(k, &theta)| {
                (k < 2 || within(theta)) && point_segment_distance(at(theta), a, b) < r - self.tol
            });
            if blocked {
                return false;
            }
        }
        true
    }

    /// The length of the shortest path of the disc from `start` to `goal` (both at
    /// least `r` from every wall), `None` when there is none.
    pub fn shortest(&self, start: DVec2, goal: DVec2) -> Option<f64> {
        let n = self.corners.len();
        let ends = (start, goal);
        let (s, g) = (n, n + 1);
        let mut tangents = self.tangents.clone();
        if let Some(t) = self.tangent_at(s, 0, 0.0, g, 0, 0.0, ends) {
            tangents.push(t);
        }
        for c in 0..n {
            for side in 0..2 {
                if let Some(t) = self.tangent_at(s, 0, 0.0, c, side, self.r, ends) {
                    tangents.push(t);
                }
                if let Some(t) = self.tangent_at(c, side, self.r, g, 0, 0.0, ends) {
                    tangents.push(t);
                }
            }
        }
        // Nodes: 0 the start, 1 the goal, then per tangent its departure (2 + 2k) and
        // arrival (3 + 2k) on a corner circle.
        let node_of = |k: usize, end: usize, circle: usize| -> usize {
            if circle == s {
                0
            } else if circle == g {
                1
            } else {
                2 + 2 * k + end
            }
        };
        // Per corner circle and side, its tangent points by angle: (angle, node).
        let mut ports: HashMap<(usize, usize), Vec<(f64, usize)>> = HashMap::new();
        // Per node: the tangent leaving it (departures) and its circle and side.
        let mut leaves: Vec<Option<usize>> = vec![None; 2 + 2 * tangents.len()];
        let mut place: Vec<Option<(usize, usize, usize)>> = vec![None; 2 + 2 * tangents.len()];
        let mut from_start = Vec::new();
        for (k, t) in tangents.iter().enumerate() {
            let departure = node_of(k, 0, t.from);
            if departure == 0 {
                from_start.push(k);
            } else {
                leaves[departure] = Some(k);
                let v = t.a - self.corners[t.from];
                ports
                    .entry((t.from, t.from_side))
                    .or_default()
                    .push((v.y.atan2(v.x), departure));
            }
            let arrival = node_of(k, 1, t.to);
            if arrival > 1 {
                let v = t.b - self.corners[t.to];
                ports
                    .entry((t.to, t.to_side))
                    .or_default()
                    .push((v.y.atan2(v.x), arrival));
            }
        }
        for (&(c, side), list) in ports.iter_mut() {
            // At one angle, a walk along the circle meets the arrivals first (arrival
            // nodes are odd): on the left side it walks up the list, on the right down.
            let rank = |node: usize| usize::from((node % 2 == 1) != (side == 0));
            list.sort_by(|x, y| {
                x.0.total_cmp(&y.0)
                    .then(rank(x.1).cmp(&rank(y.1)))
                    .then(x.1.cmp(&y.1))
            });
            for (i, &(_, node)) in list.iter().enumerate() {
                place[node] = Some((c, side, i));
            }
        }
        let mut gap_clear: HashMap<(usize, usize, usize), bool> = HashMap::new();
        let mut dist = vec![f64::INFINITY; leaves.len()];
        let mut heap = BinaryHeap::new();
        dist[0] = 0.0;
        heap.push(Entry(0.0, 0));
        while let Some(Entry(d, u)) = heap.pop() {
            if d > dist[u] {
                continue;
            }
            if u == 1 {
                return Some(d);
            }
            let mut relax = |v: usize, nd: f64, heap: &mut BinaryHeap<Entry>| {
                if nd < dist[v] {
                    dist[v] = nd;
                    heap.push(Entry(nd, v));
                }
            };
            let length = |k: usize| tangents[k].a.distance(tangents[k].b);
            if u == 0 {
                for &k in &from_start {
                    relax(node_of(k, 1, tangents[k].to), length(k), &mut heap);
                }
                continue;
            }
            if let Some(k) = leaves[u] {
                relax(node_of(k, 1, tangents[k].to), d + length(k), &mut heap);
            }
            // Along the circle, the way its side turns, to the next tangent point.
            let Some((c, side, i)) = place[u] else {
                continue;
            };
            let list = &ports[&(c, side)];
            let m = list.len();
            if m < 2 {
                continue;
            }
            // The arc between list[j] and list[j + 1], counter-clockwise.
            let (j, next) = if side == 0 {
                (i, (i + 1) % m)
            } else {
                ((i + m - 1) % m, (i + m - 1) % m)
            };
            let (from_angle, to_angle) = (list[j].0, list[(j + 1) % m].0);
            let sweep = (to_angle - from_angle).rem_euclid(TAU);
            let center = self.corners[c];
            let clear = *gap_clear
                .entry((c, side, j))
                .or_insert_with(|| self.arc_clear(center, from_angle, sweep));
            if clear {
                relax(list[next].1, d + self.r * sweep, &mut heap);
            }
        }
        None
    }
}
