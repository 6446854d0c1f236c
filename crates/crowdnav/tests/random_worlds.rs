//! Seeded random worlds, degenerate ones included: collinear and duplicate vertices,
//! touching and overlapping obstacles, slivers, obstacles crossing the boundary, and
//! world sizes from 1e-3 to 1e6. Invariants:
//!
//! - the mesh's walkable area equals the boundary's area minus the union of the
//!   obstacles (1e-6 relative), computed independently by vertical slabs;
//! - paths keep clearance >= r along segments and arcs, are never shorter than the
//!   straight line, and for r = 0 exist exactly when a brute-force visibility graph
//!   finds one, with the same length.
//!
//! `CROWDNAV_RANDOM_WORLDS=N` runs N worlds per scale instead of the default few.

#[path = "common/brute.rs"]
mod brute;

use brute::{visibility_graph_length, wall_distance};
use crowdnav::mesh::{BuildError, Level, LevelError, Location, NavMesh};
use crowdnav::path::PathError;
use glam::{DVec2, Vec2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0xdec0_de5e;

/// World sizes: the level spans `100 * scale`.
const SCALES: [f32; 5] = [1e-5, 1e-2, 1.0, 1e2, 1e4];

fn worlds_per_scale() -> usize {
    std::env::var("CROWDNAV_RANDOM_WORLDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8)
}

// ---------------------------------------------------------------------------------
// The area oracle: |boundary \ union(obstacles)| by vertical slabs. Every polygon is
// read with the even-odd rule. Slab edges are at every vertex and every crossing of
// two edges, so inside a slab no edges cross and the free length is linear in x:
// the slab's area is its width times the free length at its middle.

fn edges(poly: &[DVec2]) -> impl Iterator<Item = (DVec2, DVec2)> + '_ {
    (0..poly.len()).map(move |i| (poly[i], poly[(i + 1) % poly.len()]))
}

/// Intervals of the vertical line at `x` inside `poly` (even-odd).
fn intervals(poly: &[DVec2], x: f64) -> Vec<(f64, f64)> {
    let mut ys: Vec<f64> = edges(poly)
        .filter(|(a, b)| a.x.min(b.x) < x && x < a.x.max(b.x))
        .map(|(a, b)| a.y + (x - a.x) * (b.y - a.y) / (b.x - a.x))
        .collect();
    ys.sort_by(f64::total_cmp);
    ys.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

fn merge(mut v: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (lo, hi) in v {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

fn free_area(boundary: &[DVec2], obstacles: &[Vec<DVec2>]) -> f64 {
    let all: Vec<&[DVec2]> = std::iter::once(boundary)
        .chain(obstacles.iter().map(Vec::as_slice))
        .collect();
    let segs: Vec<(DVec2, DVec2)> = all.iter().flat_map(|p| edges(p)).collect();
    let mut xs: Vec<f64> = all.iter().flat_map(|p| p.iter().map(|v| v.x)).collect();
    for (i, &(a, b)) in segs.iter().enumerate() {
        for &(c, d) in &segs[i + 1..] {
            let (r, s) = (b - a, d - c);
            let den = r.perp_dot(s);
            if den == 0.0 {
                continue;
            }
            let t = (c - a).perp_dot(s) / den;
            let u = (c - a).perp_dot(r) / den;
            if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
                xs.push(a.x + t * r.x);
            }
        }
    }
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut area = 0.0;
    for w in xs.windows(2) {
        let (x0, x1) = (w[0], w[1]);
        if x1 <= x0 {
            continue;
        }
        let xm = 0.5 * (x0 + x1);
        let blocked = merge(obstacles.iter().flat_map(|o| intervals(o, xm)).collect());
        let mut free = 0.0;
        for (lo, hi) in intervals(boundary, xm) {
            let covered: f64 = blocked
                .iter()
                .map(|&(a, b)| (b.min(hi) - a.max(lo)).max(0.0))
                .sum();
            free += (hi - lo) - covered;
        }
        area += (x1 - x0) * free;
    }
    area
}

#[test]
fn the_area_oracle_agrees_with_hand_computed_areas() {
    let sq = |x: f64, y: f64, w: f64| {
        vec![
            DVec2::new(x, y),
            DVec2::new(x + w, y),
            DVec2::new(x + w, y + w),
            DVec2::new(x, y + w),
        ]
    };
    let b = sq(0.0, 0.0, 10.0);
    assert_eq!(free_area(&b, &[]), 100.0);
    // Two overlapping 4x4 squares (union 28) and one crossing the boundary (half in).
    let obstacles = [sq(1.0, 1.0, 4.0), sq(3.0, 3.0, 4.0), sq(8.0, 4.0, 4.0)];
    assert!((free_area(&b, &obstacles) - (100.0 - 28.0 - 8.0)).abs() < 1e-9);
    // A triangle: area 0.5.
    let tri = vec![DVec2::ZERO, DVec2::X, DVec2::Y];
    assert!((free_area(&tri, &[]) - 0.5).abs() < 1e-12);
}

// ---------------------------------------------------------------------------------
// Random degenerate worlds.

/// A point on a coarse grid half of the time, so that shapes touch and repeat points.
fn coord(rng: &mut ChaCha8Rng, lo: f32, hi: f32) -> f32 {
    if rng.gen_bool(0.5) {
        (rng.gen_range(lo..hi) / 2.0).round() * 2.0
    } else {
        rng.gen_range(lo..hi)
    }
}

/// A polygon with degenerate extras: a repeated vertex and a point in the middle of
/// an edge, sometimes.
fn decorate(rng: &mut ChaCha8Rng, mut poly: Vec<Vec2>) -> Vec<Vec2> {
    if rng.gen_bool(0.3) {
        let i = rng.gen_range(0..poly.len());
        poly.insert(i, poly[i]);
    }
    if rng.gen_bool(0.3) {
        let i = rng.gen_range(0..poly.len());
        let mid = poly[i].lerp(poly[(i + 1) % poly.len()], 0.5);
        poly.insert(i + 1, mid);
    }
    if rng.gen_bool(0.5) {
        poly.reverse();
    }
    poly
}

fn random_obstacle(rng: &mut ChaCha8Rng) -> Vec<Vec2> {
    let (x, y) = (coord(rng, -4.0, 96.0), coord(rng, -4.0, 96.0));
    let (w, h) = (rng.gen_range(1.0..16.0f32), rng.gen_range(1.0..16.0f32));
    match rng.gen_range(0..5) {
        // Rectangle.
        0 | 1 => vec![
            Vec2::new(x, y),
            Vec2::new(x + w, y),
            Vec2::new(x + w, y + h),
            Vec2::new(x, y + h),
        ],
        // Triangle.
        2 => vec![
            Vec2::new(x, y),
            Vec2::new(x + w, y + rng.gen_range(-3.0..3.0)),
            Vec2::new(x + rng.gen_range(0.0..w), y + h),
        ],
        // Sliver: a long, thin parallelogram (aspect up to 1000:1). Not a thin
        // triangle: the brute-force visibility check treats anything within its hair
        // (1e-6 of the world) of a wall as touching it, so it walks through the tip of
        // a triangle thinner than that.
        3 => vec![
            Vec2::new(x, y),
            Vec2::new(x + w * 3.0, y + h * 0.5),
            Vec2::new(x + w * 3.0, y + h * 0.5 + 0.05),
            Vec2::new(x, y + 0.05),
        ],
        // Wall crossing the boundary from outside.
        _ => vec![
            Vec2::new(-10.0, y),
            Vec2::new(x + w, y),
            Vec2::new(x + w, y + 1.0),
            Vec2::new(-10.0, y + 1.0),
        ],
    }
}

fn random_level(rng: &mut ChaCha8Rng, scale: f32) -> Level {
    let boundary = if rng.gen_bool(0.5) {
        vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(100.0, 0.0),
            Vec2::new(100.0, 100.0),
            Vec2::new(0.0, 100.0),
        ]
    } else {
        // A star-shaped polygon around the centre: concave, irregular.
        let n = rng.gen_range(5..12);
        (0..n)
            .map(|k| {
                let a = std::f32::consts::TAU * (k as f32 + rng.gen_range(0.0..0.6)) / n as f32;
                Vec2::new(50.0, 50.0) + Vec2::from_angle(a) * rng.gen_range(25.0..50.0)
            })
            .collect()
    };
    let count = rng.gen_range(0..10);
    let mut obstacles: Vec<Vec<Vec2>> = Vec::new();
    for _ in 0..count {
        let o = random_obstacle(rng);
        // Sometimes a neighbour sharing an edge exactly.
        if rng.gen_bool(0.2) && o.len() == 4 {
            let w = o[1].x - o[0].x;
            obstacles.push(o.iter().map(|p| *p + Vec2::new(w, 0.0)).collect());
        }
        obstacles.push(o);
    }
    let s = |v: Vec<Vec2>| v.into_iter().map(|p| p * scale).collect::<Vec<_>>();
    Level {
        boundary: s(decorate(rng, boundary)),
        obstacles: obstacles.into_iter().map(|o| s(decorate(rng, o))).collect(),
        ..Level::default()
    }
}

fn dv(poly: &[Vec2]) -> Vec<DVec2> {
    poly.iter().map(|p| p.as_dvec2()).collect()
}

/// Builds the mesh and checks its area against the oracle; `None` when the level was
/// rightly refused.
fn build_and_check_area(level: &Level, what: &str) -> Option<NavMesh> {
    let boundary = dv(&level.boundary);
    let expected = free_area(
        &boundary,
        &level.obstacles.iter().map(|o| dv(o)).collect::<Vec<_>>(),
    );
    let total = free_area(&boundary, &[]);
    match NavMesh::from_level(level) {
        Ok(mesh) => {
            mesh.check_invariants();
            let got = mesh.walkable_area();
            assert!(
                (got - expected).abs() <= 1e-6 * total,
                "{what}: walkable area {got}, expected {expected} (boundary {total}); level {level:?}"
            );
            Some(mesh)
        }
        Err(BuildError::NoWalkableSpace) => {
            assert!(
                expected <= 1e-6 * total,
                "{what}: refused but {expected} is free"
            );
            None
        }
        // An obstacle wholly outside is refused by design (see LevelError).
        Err(BuildError::Level(LevelError::ObstacleOutside { .. })) => None,
        Err(e) => panic!("{what}: {e}; level {level:?}"),
    }
}

fn random_point(mesh: &NavMesh, rng: &mut ChaCha8Rng, scale: f32) -> Option<Vec2> {
    (0..200)
        .map(|_| Vec2::new(rng.gen_range(0.0..100.0), rng.gen_range(0.0..100.0)) * scale)
        .find(|&p| matches!(mesh.locate(p), Location::Walkable(_)))
}

#[test]
fn walkable_area_is_boundary_minus_obstacle_union_at_every_scale() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut built = 0;
    for scale in SCALES {
        for world in 0..worlds_per_scale() * 4 {
            let level = random_level(&mut rng, scale);
            if build_and_check_area(&level, &format!("scale {scale} world {world}")).is_some() {
                built += 1;
            }
        }
    }
    // The rest were refused for a reason the level allows (an obstacle wholly
    // outside a star-shaped boundary, or nothing left walkable).
    let tried = SCALES.len() * worlds_per_scale() * 4;
    println!("{built} of {tried} random worlds built and checked");
    assert!(2 * built >= tried, "only {built} of {tried} built");
}

#[test]
fn paths_on_degenerate_worlds_keep_clearance_and_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
    let (mut compared, mut with_radius) = (0, 0);
    for scale in SCALES {
        for world in 0..worlds_per_scale() {
            let what = format!("scale {scale} world {world}");
            let level = random_level(&mut rng, scale);
            let Some(mesh) = build_and_check_area(&level, &what) else {
                continue;
            };
            let walls: Vec<_> = mesh.walls().collect();
            let hair = 1e-4 * scale;
            for q in 0..4 {
                let (Some(s), Some(g)) = (
                    random_point(&mesh, &mut rng, scale),
                    random_point(&mesh, &mut rng, scale),
                ) else {
                    continue;
                };
                let what = format!("{what} query {q} {s} -> {g}");
                // r = 0: existence and length against the visibility graph.
                let brute = visibility_graph_length(&mesh, s, g, hair);
                match (brute, mesh.find_path(s, g, 0.0)) {
                    (Some(b), Ok(p)) => assert!(
                        (p.length() - b).abs() <= 1e-4 * b.max(f64::from(scale)),
                        "{what}: ours {} {:?} vs brute {b}; level {}",
                        p.length(),
                        p.points(),
                        serde_json::to_string(&level).expect("json")
                    ),
                    (None, Err(e)) => assert!(e.is_no_path(), "{what}: {e}"),
                    (b, ours) => panic!(
                        "{what}: ours {ours:?}, brute {b:?}; level {}",
                        serde_json::to_string(&level).expect("json")
                    ),
                }
                compared += 1;
                // r > 0: clearance along the pieces, never shorter than the line.
                for r in [0.5 * scale, 2.0 * scale] {
                    let path = match mesh.find_path(s, g, r) {
                        Ok(p) => p,
                        Err(PathError::NoRoom { .. } | PathError::NoPath(_)) => continue,
                        Err(e) => panic!("{what} r={r}: {e}"),
                    };
                    let straight = f64::from(s.distance(g));
                    assert!(
                        path.length() >= straight * (1.0 - 1e-6),
                        "{what} r={r}: {} shorter than the line {straight}",
                        path.length()
                    );
                    for piece in path.pieces() {
                        for k in 0..=16 {
                            let x = piece.point_at(k as f32 / 16.0);
                            let d = wall_distance(&walls, x);
                            assert!(
                                d >= r - 1e-3 * scale,
                                "{what} r={r}: {piece:?} passes {d} from a wall"
                            );
                        }
                    }
                    with_radius += 1;
                }
            }
        }
    }
    // Coverage floors for both radii. Measured: 104 and 176.
    assert!(compared >= 40, "only {compared} r = 0 comparisons");
    assert!(with_radius >= 40, "only {with_radius} r > 0 paths");
}

// ---------------------------------------------------------------------------------
// The crossing family: walls crossing each other and the boundary many times, and
// vertices a hair from other vertices, at world sizes from 1e-3 to 1e6.

/// World sizes (the level's span) of the crossing family.
const SIZES: [f32; 6] = [1e-3, 1e-1, 10.0, 1e3, 1e5, 1e6];

/// Hair offsets, relative to the level's span: from far below `f32`'s step to a few
/// steps.
const HAIRS: [f32; 6] = [0.0, 1e-32, 1e-12, 1e-9, 1e-7, 1e-5];

/// A long bar at a random angle: it crosses the boundary and other bars. With
/// `integer`, a parallelogram with integer corners.
fn random_bar(rng: &mut ChaCha8Rng, integer: bool) -> Vec<Vec2> {
    let c = Vec2::new(rng.gen_range(5.0..95.0), rng.gen_range(5.0..95.0));
    let dir = Vec2::from_angle(rng.gen_range(0.0..std::f32::consts::PI));
    let half = dir * rng.gen_range(10.0..80.0);
    let width = [0.5, 4.0, 1e-2][rng.gen_range(0..3)];
    let mut side = dir.perp() * width;
    let (mut a, mut b) = (c - half, c + half);
    if integer {
        (a, b) = (a.round(), b.round());
        side = (dir.perp() * width.max(1.0)).round();
        if (b - a).perp_dot(side) == 0.0 {
            side = Vec2::new(1.0, -1.0);
        }
        if (b - a).perp_dot(side) == 0.0 {
            side = Vec2::new(1.0, 1.0);
        }
    }
    vec![a, b, b + side, a + side]
}

/// Inserts, after vertex `i`, a point a hair (relative to 100) past it towards the
/// next vertex and a hair to one side: a vertex nearly coincident with another.
fn hair_vertex(poly: &mut Vec<Vec2>, i: usize, hair: f32, out: bool) {
    let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
    let d = (q - p).normalize_or_zero() * 100.0 * hair;
    let side = if out { d.perp() } else { -d.perp() };
    poly.insert(i + 1, p + d + side);
}

/// A level of the crossing family, and whether all its coordinates are integers (before
/// scaling): no hair vertex.
fn crossing_level(rng: &mut ChaCha8Rng, size: f32) -> (Level, bool) {
    let mut integer = rng.gen_bool(0.5);
    let mut boundary = vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(100.0, 0.0),
        Vec2::new(100.0, 100.0),
        Vec2::new(0.0, 100.0),
    ];
    if rng.gen_bool(0.5) {
        let hair = HAIRS[rng.gen_range(0..HAIRS.len())];
        let i = rng.gen_range(0..boundary.len());
        hair_vertex(&mut boundary, i, hair, rng.gen_bool(0.5));
        integer = false;
    }
    let mut obstacles: Vec<Vec<Vec2>> = Vec::new();
    for _ in 0..rng.gen_range(2..12) {
        let mut bar = random_bar(rng, integer);
        if rng.gen_bool(0.3) {
            // Moved so that a corner lies a hair from a boundary corner.
            let hair = HAIRS[rng.gen_range(0..HAIRS.len())];
            let corner = boundary[rng.gen_range(0..boundary.len())];
            let k = rng.gen_range(0..bar.len());
            let to =
                corner + Vec2::from_angle(rng.gen_range(0.0..std::f32::consts::TAU)) * 100.0 * hair;
            let shift = to - bar[k];
            let moved: Vec<Vec2> = bar.iter().map(|&p| p + shift).collect();
            // Turned half a turn about the corner when that brings it inside.
            let turned: Vec<Vec2> = moved.iter().map(|&p| 2.0 * to - p).collect();
            let inside = |poly: &[Vec2]| {
                let c = poly.iter().copied().sum::<Vec2>() / poly.len() as f32;
                c.cmpgt(Vec2::ZERO).all() && c.cmplt(Vec2::splat(100.0)).all()
            };
            if inside(&moved) {
                bar = moved;
            } else if inside(&turned) {
                bar = turned;
            }
            integer = false;
        }
        if rng.gen_bool(0.2) {
            let hair = HAIRS[rng.gen_range(0..HAIRS.len())];
            let i = rng.gen_range(0..bar.len());
            hair_vertex(&mut bar, i, hair, rng.gen_bool(0.5));
            integer = false;
        }
        obstacles.push(bar);
    }
    let s = |v: Vec<Vec2>| {
        v.into_iter()
            .map(|p| p * (size / 100.0))
            .collect::<Vec<_>>()
    };
    let level = Level {
        boundary: s(boundary),
        obstacles: obstacles.into_iter().map(s).collect(),
        ..Level::default()
    };
    (level, integer)
}

#[test]
fn crossing_walls_and_hair_vertices_give_the_exact_area_or_a_clean_error() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 2);
    let (mut built, mut refused, mut degenerate, mut tried) = (0, 0, 0, 0);
    for size in SIZES {
        for world in 0..worlds_per_scale() * 6 {
            let what = format!("size {size} world {world}");
            let (level, integer) = crossing_level(&mut rng, size);
            tried += 1;
            match NavMesh::from_level(&level) {
                // A hair vertex may fold a polygon onto itself once rounded to f32,
                // and a bar may end up wholly outside: refusals of the input.
                Err(BuildError::Level(
                    LevelError::SelfIntersecting { .. }
                    | LevelError::ObstacleOutside { .. }
                    | LevelError::TooFewPoints { .. }
                    | LevelError::ZeroArea { .. },
                )) => refused += 1,
                Err(BuildError::Degenerate { x, y }) => {
                    // Crossings of integer walls are representable: a mesh is expected.
                    assert!(
                        !integer,
                        "{what}: integer walls refused as degenerate at ({x}, {y}); level {}",
                        serde_json::to_string(&level).expect("json")
                    );
                    degenerate += 1;
                    eprintln!(
                        "DEGEN {x} {y} {}",
                        serde_json::to_string(&level).expect("j")
                    );
                }
                _ => {
                    let Some(mesh) = build_and_check_area(&level, &what) else {
                        continue;
                    };
                    built += 1;
                    let scale = size / 100.0;
                    for _ in 0..2 {
                        let (Some(s), Some(g)) = (
                            random_point(&mesh, &mut rng, scale),
                            random_point(&mesh, &mut rng, scale),
                        ) else {
                            continue;
                        };
                        if let Ok(path) = mesh.find_path(s, g, 0.0) {
                            let straight = f64::from(s.distance(g));
                            assert!(
                                path.length() >= straight * (1.0 - 1e-6),
                                "{what}: {s} -> {g} shorter than the line"
                            );
                        }
                    }
                }
            }
        }
    }
    println!("{built} built, {refused} refused, {degenerate} degenerate of {tried}");
    assert!(2 * built >= tried, "only {built} of {tried} built");
    assert!(
        20 * degenerate <= tried,
        "{degenerate} of {tried} refused as degenerate"
    );
}

// ---------------------------------------------------------------------------------
// Frozen failures.

/// Found by the `world_json` fuzz target: a quadrilateral crossing the boundary and two
/// overlapping squares. spade's `add_constraint_and_split` on `f32` points rounded a
/// split point and tripped its assertion `!previous_region.is_empty() || from ==
/// final_vertex` (a panic inside `NavMesh::from_level`); the triangulation now runs
/// on `f64` points.
#[test]
fn crossing_quad_over_overlapping_squares_builds_without_panicking() {
    let level = Level::from_json(
        r#"{"boundary": [[1, 0], [40, 0], [40, 20], [0, 20]],
            "obstacles": [[[6, 5], [10, 5], [10, 9], [6, 9]],
                          [[7, 7], [12, 7], [12, 12], [8, 12]],
                          [[28, 4], [33, 6], [30, 11], [-6, 8]]]}"#,
    )
    .expect("valid level");
    build_and_check_area(&level, "fuzz crash 37c3b02b").expect("walkable space left");
}

/// Found by the `mesh_path` fuzz target: a boundary whose last two edges nearly
/// overlap ((-1.9e-9, 0) -> (10, 10) -> (0, 0)) with an obstacle crossing both. The
/// crossing points of the nearly overlapping walls round to the same `f32` point (or
/// to points collinear with a corner); when spade split the walls in `f64` and the mesh
/// rounded its vertices to `f32`, that left a walkable triangle that was not
/// counter-clockwise ((0, 0), (4, 4), (3.9999998, 3.9999998)). The mesh builder now
/// splits crossing walls itself at `f32` points (`mesh/planar.rs`). The boundary is a
/// sliver 1.9e-9 wide where the obstacle crosses it, far below `f32`'s step there
/// (2.4e-7): the crossings cannot be represented within the area tolerance, and the
/// build says so.
#[test]
fn nearly_overlapping_boundary_edges_give_a_valid_mesh_or_a_clean_error() {
    let level = Level {
        boundary: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, -4.0),
            Vec2::new(-1.899_081_6e-9, 0.0),
            Vec2::new(10.0, 10.0),
        ],
        obstacles: vec![vec![
            Vec2::new(0.0, 0.031_25),
            Vec2::new(0.0, 4.031_25),
            Vec2::new(4.0, 4.0),
        ]],
        ..Level::default()
    };
    match NavMesh::from_level(&level) {
        Err(BuildError::Degenerate { x, y }) => {
            assert!(
                Vec2::new(x, y).distance(Vec2::new(4.0, 4.0)) < 1e-3,
                "at ({x}, {y})"
            );
        }
        _ => {
            build_and_check_area(&level, "fuzz crash, near-overlap");
        }
    }
}

/// Found by the `world_json` fuzz target, integer coordinates only: obstacles that
/// cross each other and the boundary at many points (one has a repeated vertex, one
/// reaches x = 84). Rounding spade's `f64` crossing points to `f32` left a triangle that
/// was not counter-clockwise.
#[test]
fn many_crossing_obstacles_give_a_valid_mesh() {
    let level = Level::from_json(
        r#"{"boundary": [[0, 0], [20, 0], [40, 20], [0, 20]],
            "obstacles": [[[21, 11], [21, 11], [21, 21], [19, 21]],
                          [[6, 4], [33, 5], [10, 9], [6, 9]],
                          [[84, 7], [12, 7], [12, 11], [8, 24]],
                          [[28, 4], [33, 6], [30, 10], [26, 6], [4, 16.6]]]}"#,
    )
    .expect("valid level");
    build_and_check_area(&level, "fuzz crash, many crossings").expect("walkable space left");
}

/// Found by the `mesh_path` fuzz target: a boundary vertex at x = 1.58e-30, next to
/// another at the origin, with an obstacle crossing the boundary. spade's
/// `add_constraint_and_split` panicked with "Failed to locate position. This is a bug
/// in spade.". Coordinates are now snapped to a grid 2^-40 below the level's extent
/// (the tiny one becomes 0), and spade never splits a constraint.
#[test]
fn a_vertex_a_hair_from_another_builds_without_panicking() {
    let level = Level {
        boundary: vec![
            Vec2::new(f32::from_bits(0x0dff_ffff), 0.0),
            Vec2::new(364.0, 297.156_25),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 0.0),
        ],
        obstacles: vec![vec![
            Vec2::new(8.0, 0.031_25),
            Vec2::new(132.031_25, 0.0),
            Vec2::new(0.0, 296.0),
        ]],
        ..Level::default()
    };
    // The boundary is a sliver (two of its corners 1.6e-30 apart): the obstacle may
    // leave nothing walkable, which is a clean refusal.
    if let Ok(mesh) = NavMesh::from_level(&level) {
        mesh.check_invariants();
    }
}

/// Found by the `world_json` fuzz target after the triangulation moved to `f64`: the
/// same spade assertion as
/// [`crossing_quad_over_overlapping_squares_builds_without_panicking`]
/// (`!previous_region.is_empty() || from == final_vertex` in `add_constraint_and_split`)
/// on other crossing obstacles with integer coordinates. Crossing walls are now split
/// before spade sees them.
#[test]
fn crossing_obstacles_reaching_far_outside_build_a_valid_mesh() {
    let level = Level::from_json(
        r#"{"boundary": [[0, 0], [40, 0], [80, 20], [0, 20]],
            "obstacles": [[[18, -1], [21, -1], [20, 1], [30, 21], [18, 20]],
                          [[6, 5], [93, 5], [10, 9], [6, 9]],
                          [[8, 7], [2, 17], [122, 1], [8, 14]],
                          [[28, 4], [33, 6], [30, 10], [27, 8]],
                          [[30, 15], [32, 13], [36, 17], [32, 18.5]],
                          [[2, 16], [13, 74], [28, 56.6], [4, 16.6]]]}"#,
    )
    .expect("valid level");
    build_and_check_area(&level, "fuzz crash, far outside").expect("walkable space left");
}

/// Found with `CROWDNAV_RANDOM_WORLDS=300` (scale 0.01, world 215): a disc of radius
/// 0.02 heads for the upper corner of a sliver wall 5e-4 long and passes 0.019978
/// from its lower corner, 2.2e-5 short of the radius. The lower corner is not an end
/// of any portal of the channel the search picked (a corner beside the channel, within
/// reach of the disc), so the funnel never saw it. Fixed: a complete path is checked
/// against the wall corners within reach of it, and the funnel runs again wrapping a
/// corner that comes too near (`path::beside`).
#[test]
fn a_disc_keeps_its_radius_from_a_sliver_corner_beside_the_channel() {
    let level = Level::from_json(r#"{"boundary":[[0.0,0.0],[1.0,0.0],[1.0,1.0],[0.0,1.0]],"obstacles":[[[0.45273933,0.7],[0.49631867,0.7],[0.49631867,0.7182072],[0.474529,0.7182072],[0.45273933,0.7182072]],[[0.24,0.19773933],[0.3036496,0.256755],[0.3036496,0.257255],[0.24,0.19823933]],[[0.84,0.64658916],[0.95116293,0.6642494],[0.95116293,0.6637494],[0.8955815,0.65491927],[0.84,0.64608914]],[[-0.099999994,0.69],[0.7099957,0.69],[0.7099957,0.685],[0.7099957,0.68],[-0.099999994,0.68],[-0.099999994,0.68]],[[0.34,0.68],[0.40144628,0.743633],[0.40144628,0.744133],[0.40144628,0.744133],[0.34,0.68050003]],[[0.75029904,0.4199863],[0.75945836,0.25943142],[0.71999997,0.2691922]],[[0.5135651,0.9553918],[0.5529093,0.9606709],[0.4921536,0.94]],[[0.22,0.9655487],[0.27221787,0.9655487],[0.27221787,0.9327743],[0.27221787,0.9],[0.22,0.9]]]}"#).expect("valid level");
    let mesh = NavMesh::from_level(&level).expect("the level builds");
    let walls: Vec<_> = mesh.walls().collect();
    let (s, g, r) = (
        Vec2::new(0.969_346_76, 0.631_93),
        Vec2::new(0.911_873_5, 0.872_289_5),
        0.02,
    );
    let path = mesh.find_path(s, g, r).expect("a path");
    for piece in path.pieces() {
        for k in 0..=64 {
            let x = piece.point_at(k as f32 / 64.0);
            let d = wall_distance(&walls, x);
            assert!(d >= r - 1e-6, "{piece:?} passes {d} from a wall");
        }
    }
}
