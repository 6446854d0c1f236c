//! Run-time obstacle edits on aurora (StarCraft, 1024 × 768, from `../shared/data`):
//! after sequences of adds, moves and removes of boxes about 10 m across, the edited
//! mesh answers as a full build of the edited walls does.
//!
//! The data is not part of the repository; without it the test prints a note and
//! passes, except in CI (`CI=true`), where it fails.

mod common;
use common::{data_dir, files_with_extension};
use crowdnav::mesh::{read_walls, Location, NavMesh, Walls};
use crowdnav::{EditError, MeshObstacleId, Path, PathError};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A box about `size` across, slightly rotated and skewed, centred at `c`.
fn random_box(rng: &mut ChaCha8Rng, c: Vec2, size: f32) -> Vec<Vec2> {
    let a: f32 = rng.gen_range(0.0..std::f32::consts::FRAC_PI_2);
    let (u, v) = (Vec2::new(a.cos(), a.sin()), Vec2::new(-a.sin(), a.cos()));
    let h = 0.5 * size;
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(x, y)| c + h * (x * u + y * v) * rng.gen_range(0.8..1.2))
        .collect()
}

fn walkable_point(mesh: &NavMesh, rng: &mut ChaCha8Rng, lo: Vec2, hi: Vec2) -> Vec2 {
    loop {
        let p = Vec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
        if matches!(mesh.locate(p), Location::Walkable(_)) {
            return p;
        }
    }
}

fn same(x: &Result<Path, PathError>, y: &Result<Path, PathError>) -> bool {
    match (x, y) {
        (Ok(x), Ok(y)) => (x.length() - y.length()).abs() <= 1e-6 * y.length().max(1.0),
        (Err(x), Err(y)) => std::mem::discriminant(x) == std::mem::discriminant(y),
        _ => false,
    }
}

#[test]
fn aurora_edit_sequences_answer_as_a_full_build() {
    let Some(dir) = data_dir() else {
        return;
    };
    let aurora = files_with_extension(&dir.join("polyanya-v2"), "mesh", false)
        .into_iter()
        .find(|p| p.ends_with("aurora.mesh"))
        .expect("polyanya-v2/aurora.mesh in the data");
    let base = read_walls(&aurora).expect("aurora");
    let mut mesh = NavMesh::from_walls(&base).expect("aurora builds");
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &p in mesh.vertices() {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let mut live: Vec<MeshObstacleId> = Vec::new();
    let mut seconded = 0;
    let (mut edits, mut refused) = (0, 0);
    for round in 0..3 {
        for _ in 0..40 {
            let op = rng.gen_range(0..4);
            let c = walkable_point(&mesh, &mut rng, lo + 20.0, hi - 20.0);
            let size = rng.gen_range(4.0..16.0);
            let result = if op <= 1 || live.is_empty() {
                mesh.add_obstacle(&random_box(&mut rng, c, size))
                    .map(|id| live.push(id))
            } else if op == 2 {
                let k = rng.gen_range(0..live.len());
                mesh.remove_obstacle(live.swap_remove(k))
            } else {
                let k = rng.gen_range(0..live.len());
                mesh.move_obstacle(live[k], &random_box(&mut rng, c, size))
            };
            match result {
                Ok(()) => edits += 1,
                // Aurora's hull is not its bounding box: boxes near the map's
                // edge may reach past it.
                Err(EditError::Degenerate { .. } | EditError::OutsideMesh { .. }) => refused += 1,
                Err(e) => panic!("round {round}: {e}"),
            }
        }
        mesh.check_invariants();
        let built = NavMesh::from_walls(&mesh.edited_walls(&base)).expect("edited walls build");
        let (a, b) = (mesh.walkable_area(), built.walkable_area());
        assert!(
            (a - b).abs() <= 2e-6 * b,
            "round {round}: walkable area {a} vs {b}"
        );
        let mut own: Option<NavMesh> = None;
        for q in 0..60 {
            let s = walkable_point(&built, &mut rng, lo, hi);
            let g = walkable_point(&built, &mut rng, lo, hi);
            for r in [0.0, 0.5, 2.0] {
                let (x, y) = (mesh.find_path(s, g, r), built.find_path(s, g, r));
                if same(&x, &y) {
                    continue;
                }
                // Same walls, split at a few more points: the search may answer
                // differently on the two triangulations (see the mesh unit tests).
                let own = own.get_or_insert_with(|| {
                    let walls = Walls {
                        segments: mesh.walls().collect(),
                    };
                    NavMesh::from_walls(&walls).expect("the edited walls build")
                });
                let z = own.find_path(s, g, r);
                assert!(
                    same(&x, &z),
                    "round {round} query {q} {s} -> {g} r={r}: edited {:?}, built {:?}, \
                     built from the edited walls {:?}",
                    x.map(|p| p.length()),
                    y.map(|p| p.length()),
                    z.map(|p| p.length())
                );
                seconded += 1;
            }
        }
    }
    eprintln!("{edits} edits on aurora, {refused} refused, {seconded} path answers seconded");
    assert!(edits >= 100, "only {edits} edits");
    assert!(
        seconded <= 10,
        "{seconded} answers differ from the full build"
    );
}

/// A running world on aurora (no agents) through adds, moves and removes of 10 m boxes:
/// after every edit the world's wall list, which follows the edit locally, is to the
/// bit and in order the edited mesh's own (`NavMesh::walls`, a whole build of it).
#[test]
fn aurora_world_walls_follow_edits_as_a_whole_build() {
    use crowdnav::world::{World, WorldParams};
    let Some(dir) = data_dir() else { return };
    let walls = read_walls(&dir.join("polyanya-v2/aurora.mesh")).expect("aurora reads");
    let mesh = NavMesh::from_walls(&walls).expect("aurora builds");
    let (lo, hi) = (Vec2::splat(10.0), Vec2::new(1014.0, 754.0));
    let mut world = World::new(
        Some(mesh),
        Box::new(crowdnav::Orca::default()),
        WorldParams::default(),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(2205);
    let mut live: Vec<MeshObstacleId> = Vec::new();
    let bits = |walls: &[crowdnav::geom::Segment]| -> Vec<[u32; 4]> {
        walls
            .iter()
            .map(|w| [w.a.x, w.a.y, w.b.x, w.b.y].map(f32::to_bits))
            .collect()
    };
    let mut edits = 0;
    for step in 0..100 {
        let Some(mesh) = world.mesh() else {
            panic!("the world keeps its mesh");
        };
        let c = walkable_point(mesh, &mut rng, lo, hi);
        let polygon = random_box(&mut rng, c, 10.0);
        let done = if live.len() >= 8 && rng.gen_bool(0.6) {
            let k = rng.gen_range(0..live.len());
            if rng.gen_bool(0.5) {
                world.remove_mesh_obstacle(live.swap_remove(k)).map(|_| ())
            } else {
                world.move_mesh_obstacle(live[k], &polygon).map(|_| ())
            }
        } else {
            world
                .add_mesh_obstacle(&polygon)
                .map(|e| live.push(e.obstacle))
        };
        edits += usize::from(done.is_ok());
        let whole: Vec<crowdnav::geom::Segment> = world
            .mesh()
            .map(|m| m.walls().collect())
            .unwrap_or_default();
        assert!(
            bits(world.walls()) == bits(&whole),
            "step {step}: the world's walls are not the mesh's"
        );
    }
    assert!(edits >= 90, "only {edits} edits");
}
