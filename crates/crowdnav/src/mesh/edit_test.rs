//! Edits against full builds of the edited level: after every sequence of adds, moves
//! and removes the mesh answers as a new build does.

use super::{EditError, Level, MeshObstacleId, NavMesh};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ROOM: f32 = 30.0;

fn room(obstacles: Vec<Vec<Vec2>>) -> Level {
    Level {
        boundary: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(ROOM, 0.0),
            Vec2::new(ROOM, ROOM),
            Vec2::new(0.0, ROOM),
        ],
        obstacles,
    }
}

/// A random quadrilateral (convex or not, never self-intersecting), inside the room.
fn quad(rng: &mut ChaCha8Rng, size: f32) -> Vec<Vec2> {
    let c = Vec2::new(
        rng.gen_range(1.0 + size..ROOM - 1.0 - size),
        rng.gen_range(1.0 + size..ROOM - 1.0 - size),
    );
    // Four corners at increasing angles around the centre: a simple polygon.
    let start: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
    (0..4)
        .map(|k| {
            let a = start + k as f32 * std::f32::consts::FRAC_PI_2 + rng.gen_range(-0.5..0.5);
            let r = rng.gen_range(0.3 * size..size);
            // Whole centimetres often, so that edges meet corners and overlap exactly.
            let p = c + r * Vec2::new(a.cos(), a.sin());
            if rng.gen_bool(0.3) {
                (p * 100.0).round() / 100.0
            } else {
                p
            }
        })
        .collect()
}

/// A random walkable point of `mesh`, or `None` after a few tries.
fn walkable_point(mesh: &NavMesh, rng: &mut ChaCha8Rng) -> Option<Vec2> {
    (0..20)
        .map(|_| Vec2::new(rng.gen_range(0.0..ROOM), rng.gen_range(0.0..ROOM)))
        .find(|&p| matches!(mesh.locate(p), super::Location::Walkable(_)))
}

/// Asserts that `edited` answers as `built`: walkable area, invariants, clearance at
/// random points, and paths (found or not, and length) at r = 0, 0.5 and 2.
fn assert_same(edited: &NavMesh, built: &NavMesh, rng: &mut ChaCha8Rng, what: &str) {
    edited.check_invariants();
    // Every gate width as the brute force measures it (so none is stale).
    for t in edited.walkable_triangles() {
        for k in 0..3 {
            let brute = super::clearance::corner_width_brute_force(edited, t, k) as f32;
            let w = edited.corner_width(t, k);
            assert!(
                w == brute || (w - brute).abs() <= 1e-5 * (1.0 + brute),
                "{what}: width of {t:?} corner {k}: {w}, brute force {brute}"
            );
        }
    }
    // Both round wall crossings to f32, each within AREA_TOLERANCE of the exact area
    // (the build refuses worse); they may round a crossing to neighbouring floats.
    let (a, b) = (edited.walkable_area(), built.walkable_area());
    assert!(
        (a - b).abs() <= 2.0 * crate::geom::AREA_TOLERANCE * f64::from(ROOM * ROOM),
        "{what}: walkable area {a} vs {b}"
    );
    for q in 0..30 {
        let p = Vec2::new(rng.gen_range(0.0..ROOM), rng.gen_range(0.0..ROOM));
        let (ce, cb) = (edited.clearance(p), built.clearance(p));
        match (ce, cb) {
            (Some(x), Some(y)) => assert!(
                (x - y).abs() <= 1e-5 * (1.0 + y),
                "{what} point {q} {p}: clearance {x} vs {y}"
            ),
            (x, y) => assert_eq!(x.is_some(), y.is_some(), "{what} point {q} {p}"),
        }
    }
    for q in 0..12 {
        let (Some(s), Some(g)) = (walkable_point(built, rng), walkable_point(built, rng)) else {
            continue;
        };
        for r in [0.0, 0.5, 2.0] {
            let what = format!("{what} query {q} {s} -> {g} r={r}");
            match (edited.find_path(s, g, r), built.find_path(s, g, r)) {
                (Ok(x), Ok(y)) => assert!(
                    (x.length() - y.length()).abs() <= 1e-6 * y.length().max(1.0),
                    "{what}: length {} vs {}",
                    x.length(),
                    y.length()
                ),
                (Err(x), Err(y)) => assert_eq!(
                    std::mem::discriminant(&x),
                    std::mem::discriminant(&y),
                    "{what}: {x} vs {y}"
                ),
                (x, y) => panic!(
                    "{what}: edited {:?}, built {:?}",
                    x.map(|p| p.length()),
                    y.map(|p| p.length())
                ),
            }
        }
    }
}

/// The level as edited: the base obstacles and the live added ones, in id order.
fn edited_level(base: &[Vec<Vec2>], mesh: &NavMesh) -> Level {
    let mut obstacles = base.to_vec();
    for id in mesh.obstacle_ids() {
        obstacles.push(mesh.obstacle(id).expect("live id").to_vec());
    }
    room(obstacles)
}

/// Random sequences of adds, moves and removes on random rooms.
#[test]
fn random_edit_sequences_answer_as_a_full_build() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let (mut edits, mut refused) = (0, 0);
    for world in 0..12 {
        let base: Vec<Vec<Vec2>> = (0..rng.gen_range(0..8))
            .map(|_| quad(&mut rng, 3.0))
            .collect();
        let Ok(mut mesh) = NavMesh::from_level(&room(base.clone())) else {
            continue;
        };
        let mut live: Vec<MeshObstacleId> = Vec::new();
        for step in 0..16 {
            let what = format!("world {world} step {step}");
            let op = rng.gen_range(0..4);
            let size = rng.gen_range(0.5..5.0);
            eprintln!("{what}: op {op}");
            let result = if op <= 1 || live.is_empty() {
                let poly = quad(&mut rng, size);
                mesh.add_obstacle(&poly).map(|id| live.push(id))
            } else {
                let k = rng.gen_range(0..live.len());
                if op == 2 {
                    mesh.remove_obstacle(live.swap_remove(k))
                } else {
                    mesh.move_obstacle(live[k], &quad(&mut rng, size))
                }
            };
            match result {
                Ok(()) => edits += 1,
                Err(EditError::Degenerate { .. }) => refused += 1,
                Err(e) => panic!("{what}: {e}"),
            }
            let level = edited_level(&base, &mesh);
            if std::env::var("EDIT_DEBUG").is_ok() {
                let mut full = mesh.clone();
                super::refine::measure_and_refine(&mut full);
                full.corner_gap = super::navmesh::corner_gaps(&full);
                full.corridors = super::corridors::Corridors::new(&full);
                full.pockets = crate::path::pockets::Pockets::new(&full);
                full.near_walls = super::clearance::NearWalls::new(&full);
                full.id = super::navmesh::fresh_mesh_id();
                if world == 2 && step == 11 {
                    let (a, b) = (Vec2::new(3.5299158, 27.683887), Vec2::new(8.305782, 5.6620646));
                    let walls = super::Walls { segments: mesh.walls().collect() };
                    let fw = NavMesh::from_walls(&walls).expect("walls");
                    let built = NavMesh::from_level(&level).expect("b");
                    let mut illegal = 0;
                    for t in mesh.triangles() {
                        for e in 0..3 {
                            if let Some(u) = mesh.neighbor(t, e) {
                                if mesh.is_wall(t, e) || mesh.is_walkable(t) != mesh.is_walkable(u) { continue; }
                                let k = mesh.edge_toward(u.0, t.0).unwrap();
                                let d = mesh.triangle_points(u)[(k + 2) % 3];
                                let [p, q, r] = mesh.triangle_points(t);
                                if mesh.is_walkable(t) && crate::geom::incircle_value(p, q, r, d) > 0.0 { illegal += 1; }
                            }
                        }
                    }
                    eprintln!("DEBUG edited {:?} fromwalls {:?} built {:?} illegal {illegal}",
                        mesh.find_path(a, b, 2.0).map(|p| p.points()),
                        fw.find_path(a, b, 2.0).map(|p| p.length()),
                        built.find_path(a, b, 2.0).map(|p| p.length()));
                    eprintln!("LEVEL {}", serde_json::to_string(&level).unwrap());
                }
                if let Ok(built) = NavMesh::from_level(&level) {
                    let mut r2 = rng.clone();
                    assert_same(&full, &built, &mut r2, &format!("FULL {what}"));
                }
            }
            match NavMesh::from_level(&level) {
                Ok(built) => assert_same(&mesh, &built, &mut rng, &what),
                // Everything blocked: the edited mesh has no walkable area either.
                Err(super::BuildError::NoWalkableSpace) => {
                    assert!(mesh.walkable_area() <= 1e-9, "{what}");
                }
                Err(e) => panic!("{what}: the edited level does not build: {e}"),
            }
        }
    }
    assert!(edits >= 150, "only {edits} edits ({refused} refused)");
}

#[test]
fn removing_one_of_two_overlapping_obstacles_keeps_the_other() {
    let mut mesh = NavMesh::from_level(&room(Vec::new())).expect("room");
    let a = [[10.0, 10.0], [20.0, 10.0], [20.0, 20.0], [10.0, 20.0]].map(Vec2::from);
    let b = [[15.0, 15.0], [25.0, 15.0], [25.0, 25.0], [15.0, 25.0]].map(Vec2::from);
    let ia = mesh.add_obstacle(&a).expect("a");
    mesh.add_obstacle(&b).expect("b");
    assert!((mesh.walkable_area() - (900.0 - 175.0)).abs() < 1e-6);
    mesh.remove_obstacle(ia).expect("remove a");
    assert!((mesh.walkable_area() - 800.0).abs() < 1e-6);
    assert!(matches!(
        mesh.locate(Vec2::new(17.0, 17.0)),
        super::Location::Blocked(_)
    ));
    assert!(matches!(
        mesh.locate(Vec2::new(12.0, 12.0)),
        super::Location::Walkable(_)
    ));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let built = NavMesh::from_level(&room(vec![b.to_vec()])).expect("built");
    assert_same(&mesh, &built, &mut rng, "overlap");
}

#[test]
fn an_edit_changes_the_identity_and_counts() {
    let mut mesh = NavMesh::from_level(&room(Vec::new())).expect("room");
    let id0 = mesh.id;
    let sq = [[10.0, 10.0], [12.0, 10.0], [12.0, 12.0], [10.0, 12.0]].map(Vec2::from);
    let id = mesh.add_obstacle(&sq).expect("add");
    assert_ne!(mesh.id, id0);
    let id1 = mesh.id;
    mesh.move_obstacle(id, &sq.map(|p| p + Vec2::new(5.0, 0.0)))
        .expect("move");
    assert_ne!(mesh.id, id1);
    assert_eq!(mesh.edit_count(), 2);
    assert_eq!(mesh.obstacle_ids().collect::<Vec<_>>(), vec![id]);
}

/// Part 5: bad edits give an error and leave the mesh exactly as it was.
#[test]
fn bad_edits_leave_the_mesh_unchanged() {
    let mut mesh = super::test_worlds::room_with_pillar();
    let live = mesh
        .add_obstacle(&[[1.0, 1.0], [2.0, 1.0], [2.0, 2.0]].map(Vec2::from))
        .expect("add");
    let gone = mesh
        .add_obstacle(&[[7.0, 7.0], [8.0, 7.0], [8.0, 8.0]].map(Vec2::from))
        .expect("add");
    mesh.remove_obstacle(gone).expect("remove");
    let before = mesh.to_bytes();
    let (id, edits) = (mesh.id, mesh.edit_count());
    let v = |pts: &[[f32; 2]]| pts.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>();
    let cases: Vec<(Vec<Vec2>, EditError)> = vec![
        (
            v(&[[1.0, 1.0], [f32::NAN, 1.0], [2.0, 2.0]]),
            EditError::NonFinite { vertex: 1 },
        ),
        (
            v(&[[1.0, 1.0], [f32::INFINITY, 1.0], [2.0, 2.0]]),
            EditError::NonFinite { vertex: 1 },
        ),
        (
            v(&[[1.0, 1.0], [2.0, 1.0]]),
            EditError::TooFewPoints { corners: 2 },
        ),
        (
            v(&[[1.0, 1.0], [2.0, 1.0], [3.0, 1.0]]),
            EditError::TooFewPoints { corners: 0 },
        ),
        (
            v(&[[1.0, 1.0], [3.0, 3.0], [3.0, 1.0], [1.0, 3.0]]),
            EditError::SelfIntersecting {
                first: 0,
                second: 2,
            },
        ),
        (Vec::new(), EditError::TooFewPoints { corners: 0 }),
    ];
    for (poly, expected) in cases {
        assert_eq!(mesh.add_obstacle(&poly), Err(expected.clone()), "{poly:?}");
        assert_eq!(mesh.move_obstacle(live, &poly), Err(expected), "{poly:?}");
    }
    for outside in [
        v(&[[20.0, 20.0], [21.0, 20.0], [21.0, 21.0]]),
        v(&[[9.0, 9.0], [11.0, 9.0], [11.0, 11.0], [9.0, 11.0]]),
        v(&[[1e9, 1.0], [2.0, 1.0], [2.0, 2.0]]),
    ] {
        assert!(
            matches!(
                mesh.add_obstacle(&outside),
                Err(EditError::OutsideMesh { .. })
            ),
            "{outside:?}"
        );
    }
    // Touching the outer edge of the mesh.
    let touching = v(&[[0.0, 4.0], [1.0, 4.0], [1.0, 5.0], [0.0, 5.0]]);
    assert!(matches!(
        mesh.add_obstacle(&touching),
        Err(EditError::OutsideMesh { .. })
    ));
    for unknown in [gone, MeshObstacleId(99)] {
        assert_eq!(
            mesh.remove_obstacle(unknown),
            Err(EditError::UnknownObstacle(unknown))
        );
        assert_eq!(
            mesh.move_obstacle(unknown, &v(&[[1.0, 1.0], [2.0, 1.0], [2.0, 2.0]])),
            Err(EditError::UnknownObstacle(unknown))
        );
    }
    assert_eq!(mesh.to_bytes(), before, "the mesh changed");
    assert_eq!((mesh.id, mesh.edit_count()), (id, edits));
    mesh.check_invariants();
}
