//! Brute-force path checks shared by the random path tests (included with
//! `#[path = "common/brute.rs"] mod brute;`): straight-line visibility and the
//! shortest point path over a visibility graph of the wall corners.

use crowdnav::geom::Segment;
use crowdnav::mesh::{Location, NavMesh};
use glam::Vec2;

/// Twice the signed area of the triangle `a b c`, in `f64`: positive when it turns
/// counter-clockwise. (The library's own exact predicate is internal; a reference
/// needs only the sign and the value for crossing points, and `f64` is exact enough
/// for `f32` inputs of the sizes these worlds have.)
fn orient2d_value(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    let (ax, ay) = (
        f64::from(b.x) - f64::from(a.x),
        f64::from(b.y) - f64::from(a.y),
    );
    let (bx, by) = (
        f64::from(c.x) - f64::from(a.x),
        f64::from(c.y) - f64::from(a.y),
    );
    ax * by - ay * bx
}

/// Can a point travel straight from `p` to `q`? No wall is crossed properly and the
/// segment stays in walkable space: checked at 32 samples and between every two
/// consecutive places where the segment meets a wall or passes a wall end (so a run
/// along a wall through a thin obstacle, or from corner to corner through one, is
/// caught). Within `hair` of a wall counts as touching it: refinement puts wall
/// vertices at `f32`-rounded points, a hair off the original wall's line.
pub fn visible(mesh: &NavMesh, walls: &[Segment], p: Vec2, q: Vec2, hair: f32) -> bool {
    let pq = Segment::new(p, q);
    let d = q - p;
    let along = |x: Vec2| {
        if d.length_squared() > 0.0 {
            ((x - p).dot(d) / d.length_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let mut ts: Vec<f32> = (0..=32).map(|k| k as f32 / 32.0).collect();
    for w in walls {
        let (d1, d2) = (orient2d_value(w.a, w.b, p), orient2d_value(w.a, w.b, q));
        let (d3, d4) = (orient2d_value(p, q, w.a), orient2d_value(p, q, w.b));
        let clear_of_ends = [p, q].iter().all(|&x| w.distance(x) > hair)
            && [w.a, w.b].iter().all(|&x| pq.distance(x) > hair);
        if d1 * d2 < 0.0 && d3 * d4 < 0.0 && clear_of_ends {
            return false;
        }
        for v in [w.a, w.b] {
            if pq.distance(v) <= hair {
                ts.push(along(v));
            }
        }
        if d1 * d2 <= 0.0 && d3 * d4 <= 0.0 && d1 != d2 {
            ts.push((d1 / (d1 - d2)).clamp(0.0, 1.0) as f32);
        }
    }
    ts.sort_by(f32::total_cmp);
    ts.dedup();
    let ok = |x: Vec2| {
        matches!(mesh.locate(x), Location::Walkable(_))
            || walls.iter().any(|w| w.distance(x) <= hair)
    };
    ts.windows(2).all(|w| {
        let (a, b) = (p.lerp(q, w[0]), p.lerp(q, w[1]));
        (w[0] <= 0.0 || ok(a)) && ok(a.lerp(b, 0.5))
    })
}

/// Shortest point path by Dijkstra over start, goal and every wall vertex, or `None`
/// when the goal cannot be reached; `hair` as in [`visible`].
pub fn visibility_graph_length(mesh: &NavMesh, start: Vec2, goal: Vec2, hair: f32) -> Option<f64> {
    let walls: Vec<Segment> = mesh.walls().collect();
    let mut nodes = vec![start, goal];
    for w in &walls {
        for v in [w.a, w.b] {
            if !nodes.contains(&v) {
                nodes.push(v);
            }
        }
    }
    let n = nodes.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n)
            .filter(|&i| !done[i] && dist[i].is_finite())
            .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
        else {
            break;
        };
        done[u] = true;
        if u == 1 {
            return Some(dist[1]);
        }
        for v in 0..n {
            if !done[v] && visible(mesh, &walls, nodes[u], nodes[v], hair) {
                let d = dist[u] + f64::from(nodes[u].distance(nodes[v]));
                if d < dist[v] {
                    dist[v] = d;
                }
            }
        }
    }
    None
}

/// Distance from `x` to the nearest of `walls`.
pub fn wall_distance(walls: &[Segment], x: Vec2) -> f32 {
    walls
        .iter()
        .map(|w| w.distance(x))
        .fold(f32::INFINITY, f32::min)
}
