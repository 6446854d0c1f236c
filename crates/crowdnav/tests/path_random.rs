//! Always-on path checks on seeded random worlds (no shared data needed):
//!
//! - r = 0: the length equals a brute-force visibility graph over the wall corners;
//! - r > 0: every point of every segment and arc keeps at least r from every wall;
//! - a path for a larger radius is also valid for a smaller one, so lengths never
//!   decrease with the radius, and r = 0 is a lower bound for all.

use crowdnav::geom::orient2d_value;
use crowdnav::mesh::{Level, Location, NavMesh};
use crowdnav::path::PathError;
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0x5eed_9a7f;

fn rect(x: f32, y: f32, w: f32, h: f32) -> Vec<[f32; 2]> {
    vec![[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
}

/// A 60 x 60 room with a dozen random rectangles and parallelograms (overlaps allowed).
fn random_mesh(rng: &mut ChaCha8Rng) -> NavMesh {
    let mut obstacles = Vec::new();
    for _ in 0..12 {
        let (x, y) = (rng.gen_range(2.0..52.0f32), rng.gen_range(2.0..52.0f32));
        let (w, h) = (rng.gen_range(1.0..9.0f32), rng.gen_range(1.0..9.0f32));
        if rng.gen_bool(0.5) {
            obstacles.push(rect(x, y, w, h));
        } else {
            let s = rng.gen_range(-3.0..3.0f32);
            obstacles.push(vec![[x, y], [x + w, y], [x + w + s, y + h], [x + s, y + h]]);
        }
    }
    let level = Level {
        boundary: rect(0.0, 0.0, 60.0, 60.0)
            .into_iter()
            .map(Vec2::from)
            .collect(),
        obstacles: obstacles
            .into_iter()
            .map(|o| o.into_iter().map(Vec2::from).collect())
            .collect(),
    };
    NavMesh::from_level(&level).expect("random world builds")
}

/// Can a point travel straight from `p` to `q`? No wall is crossed properly and the
/// segment stays in walkable space (sampled, to catch runs through an obstacle from
/// corner to corner). Within 1e-4 of a wall counts as touching it: refinement puts
/// wall vertices at `f32`-rounded points, a hair off the original wall's line.
fn visible(mesh: &NavMesh, p: Vec2, q: Vec2) -> bool {
    const HAIR: f32 = 1e-4;
    let walls: Vec<_> = mesh.walls().collect();
    let pq = crowdnav::geom::Segment::new(p, q);
    for w in &walls {
        let (d1, d2) = (orient2d_value(w.a, w.b, p), orient2d_value(w.a, w.b, q));
        let (d3, d4) = (orient2d_value(p, q, w.a), orient2d_value(p, q, w.b));
        let clear_of_ends = [p, q].iter().all(|&x| w.distance(x) > HAIR)
            && [w.a, w.b].iter().all(|&x| pq.distance(x) > HAIR);
        if d1 * d2 < 0.0 && d3 * d4 < 0.0 && clear_of_ends {
            return false;
        }
    }
    (1..32).all(|k| {
        let x = p.lerp(q, k as f32 / 32.0);
        matches!(mesh.locate(x), Location::Walkable(_))
            || walls.iter().any(|w| w.distance(x) <= HAIR)
    })
}

/// Shortest point path by Dijkstra over start, goal and every wall vertex.
fn visibility_graph_length(mesh: &NavMesh, start: Vec2, goal: Vec2) -> Option<f64> {
    let mut nodes = vec![start, goal];
    for w in mesh.walls() {
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
            if !done[v] && visible(mesh, nodes[u], nodes[v]) {
                let d = dist[u] + f64::from(nodes[u].distance(nodes[v]));
                if d < dist[v] {
                    dist[v] = d;
                }
            }
        }
    }
    None
}

fn random_walkable_point(mesh: &NavMesh, rng: &mut ChaCha8Rng) -> Vec2 {
    loop {
        let p = Vec2::new(rng.gen_range(0.5..59.5), rng.gen_range(0.5..59.5));
        if matches!(mesh.locate(p), Location::Walkable(_)) {
            return p;
        }
    }
}

#[test]
fn point_paths_equal_the_visibility_graph() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut compared = 0;
    for world in 0..6 {
        let mesh = random_mesh(&mut rng);
        for q in 0..6 {
            let (s, g) = (
                random_walkable_point(&mesh, &mut rng),
                random_walkable_point(&mesh, &mut rng),
            );
            let brute = visibility_graph_length(&mesh, s, g);
            let ours = mesh.find_path(s, g, 0.0);
            match (brute, &ours) {
                (Some(b), Ok(p)) => assert!(
                    (p.length() - b).abs() <= 1e-4 * b.max(1.0),
                    "world {world} query {q} {s}->{g}: ours {} {:?} (segments visible: {:?}), visibility graph {b}",
                    p.length(),
                    p.points(),
                    p.points().windows(2).map(|w| visible(&mesh, w[0], w[1])).collect::<Vec<_>>()
                ),
                (None, Err(e)) => assert!(e.is_no_path(), "{e}"),
                _ => panic!("world {world} query {q} {s}->{g}: ours {ours:?}, brute {brute:?}"),
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 36);
}

#[test]
fn disc_paths_keep_their_radius_and_grow_with_it() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
    let radii = [0.0f32, 0.3, 0.8, 1.5];
    let mut checked = 0;
    for world in 0..8 {
        let mesh = random_mesh(&mut rng);
        let walls: Vec<_> = mesh.walls().collect();
        for q in 0..8 {
            let (s, g) = (
                random_walkable_point(&mesh, &mut rng),
                random_walkable_point(&mesh, &mut rng),
            );
            let mut previous: Option<f64> = None;
            for &r in &radii {
                let path = match mesh.find_path(s, g, r) {
                    Ok(p) => p,
                    Err(PathError::NoRoom { .. } | PathError::NoPath(_)) => {
                        previous = Some(f64::INFINITY);
                        continue;
                    }
                    Err(e) => panic!("world {world} query {q}: {e}"),
                };
                assert!(
                    previous.is_none_or(|l| path.length() >= l - 1e-6 * l.max(1.0)),
                    "world {world} query {q} r={r}: {} shorter than for a smaller radius {previous:?}",
                    path.length()
                );
                assert!(
                    previous != Some(f64::INFINITY),
                    "world {world} query {q}: found for r={r} but not for a smaller radius"
                );
                previous = Some(path.length());
                // Clearance along every piece, sampled finely.
                for piece in path.pieces() {
                    let n = ((piece.length() * 20.0).ceil() as usize).max(2);
                    for k in 0..=n {
                        let x = piece.point_at(k as f32 / n as f32);
                        let d = walls
                            .iter()
                            .map(|w| w.distance(x))
                            .fold(f32::INFINITY, f32::min);
                        assert!(
                            d >= r - 1e-3,
                            "world {world} query {q} r={r}: {piece:?} passes {d} from a wall"
                        );
                    }
                }
                // The pieces join up and add up to the length.
                let sum: f64 = path.pieces().iter().map(|p| p.length()).sum();
                assert!((sum - path.length()).abs() <= 1e-4 * path.length().max(1.0));
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} paths checked");
}
