//! The query index, the ray grids and the corner grid brought up to date after random
//! sequences of edits against those built afresh for the edited mesh: the same to the
//! bit, and every query answering the same, to the bit.

use super::super::QueryIndex;
use crate::mesh::edit_test::{
    corners_around, data_dir, quad, quad_across_the_outline, random_edit, random_room,
};
use crate::mesh::{EditError, Location, MeshObstacleId, NavMesh};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The radii whose ray grids the tests build before the edits.
const GRID_RADII: [f32; 4] = [0.0, 0.5, 1.0, 2.0];

/// The radii the queries are compared at.
const RADII: [f32; 3] = [0.0, 0.5, 2.0];

/// The radii whose nearest-point data the tests build before the edits.
const NEAREST_RADII: [f32; 4] = [0.0, 0.5, 1.0, 2.0];

/// Builds the query index, the ray grids of [`GRID_RADII`], the nearest-point data of
/// [`NEAREST_RADII`] and the corner grid.
fn use_everything(mesh: &NavMesh) {
    for r in GRID_RADII {
        mesh.ray_grid(f64::from(r));
    }
    for r in NEAREST_RADII {
        mesh.radius_index(f64::from(r));
    }
    mesh.corner_grid();
}

/// `mesh` with its query index, ray grids and corner grid built afresh.
fn afresh(mesh: &NavMesh) -> NavMesh {
    let mut copy = mesh.clone();
    copy.query_index = Default::default();
    copy.corner_grid = Default::default();
    use_everything(&copy);
    copy
}

/// Asserts that the indexes of `mesh` (brought up to date) are those of `fresh`.
fn assert_same_indexes(mesh: &NavMesh, fresh: &NavMesh, what: &str) {
    let (ours, theirs): (&QueryIndex, &QueryIndex) = (mesh.query_index(), fresh.query_index());
    if let Some(d) = ours.difference(theirs) {
        panic!("{what}: the query index differs from one built afresh: {d}");
    }
    for r in GRID_RADII {
        let r = f64::from(r);
        match (mesh.ray_grid(r), fresh.ray_grid(r)) {
            (Some(a), Some(b)) => assert!(a.same_as(b), "{what}: ray grid at r = {r}"),
            (None, None) => {}
            _ => panic!("{what}: one ray grid at r = {r}, not the other"),
        }
    }
    for r in NEAREST_RADII {
        let r = f64::from(r);
        match (mesh.radius_index(r), fresh.radius_index(r)) {
            (Some(a), Some(b)) => {
                if let Some(d) = a.difference(b) {
                    panic!("{what}: the nearest-point data at r = {r} differs: {d}");
                }
            }
            (None, None) => {}
            _ => panic!("{what}: nearest-point data at r = {r} in one mesh, not the other"),
        }
    }
    assert_eq!(
        mesh.corner_grid().corners(),
        fresh.corner_grid().corners(),
        "{what}: corner grid"
    );
}

/// Asserts that `count` random queries of every kind answer the same on `a` and `b`,
/// to the bit, at each of [`RADII`], the points drawn in the box `lo..hi`.
fn assert_same_answers(a: &NavMesh, b: &NavMesh, lo: Vec2, hi: Vec2, count: usize, what: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(count as u64);
    let point =
        |rng: &mut ChaCha8Rng| Vec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
    for k in 0..count {
        let (p, q) = (point(&mut rng), point(&mut rng));
        let same = |x: String, y: String, query: &str| {
            assert_eq!(x, y, "{what}: {query} #{k} from {p} to {q}");
        };
        same(
            format!("{:?}", a.nearest_wall(p)),
            format!("{:?}", b.nearest_wall(p)),
            "nearest wall",
        );
        let (mut ta, mut tb) = (Vec::new(), Vec::new());
        let circle = rng.gen_range(0.0..3.0);
        same(
            format!("{:?} {ta:?}", a.triangles_in_circle(p, circle, &mut ta)),
            format!("{:?} {tb:?}", b.triangles_in_circle(p, circle, &mut tb)),
            "triangles in circle",
        );
        for r in RADII {
            let query = |m: &NavMesh| {
                let seed = rng.clone().gen::<u64>();
                let mut sample = ChaCha8Rng::seed_from_u64(seed);
                format!(
                    "{:?} | {:?} | {:?} | {:?} | {:?} | {:?}",
                    m.raycast(p, q, r),
                    m.nearest_point(p, r),
                    m.move_along_surface(p, q, r),
                    m.random_point(&mut sample, r),
                    m.random_point_in_circle(&mut sample, p, 4.0, r),
                    m.find_path(p, q, r).map(|path| path.length().to_bits()),
                )
            };
            same(query(a), query(b), &format!("queries at r = {r}"));
        }
        for r in NEAREST_RADII {
            same(
                format!("{:?}", a.nearest_point(p, r)),
                format!("{:?}", b.nearest_point(p, r)),
                &format!("nearest point at r = {r}"),
            );
        }
        rng.gen::<u64>();
    }
}

/// Random sequences of adds, moves and removes (some reaching outside the room, some
/// in an L-shaped room whose hull holds blocked space) on random rooms, one to three
/// between uses: every index brought up to date is the one built afresh, and every
/// query answers as on a mesh whose indexes were built afresh.
#[test]
fn indexes_follow_random_edits_as_built_afresh() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x22_0e1d);
    let (mut edits, mut updates) = (0, 0);
    for world in 0..16 {
        let l_shape = world % 3 == 2;
        let (_, mut mesh) = random_room(&mut rng, 8, l_shape);
        use_everything(&mesh);
        let mut live: Vec<MeshObstacleId> = Vec::new();
        for step in 0..20 {
            let what = format!("world {world} step {step}");
            for _ in 0..rng.gen_range(1..=3) {
                let op = rng.gen_range(0..4);
                let size = rng.gen_range(0.5..5.0);
                let outside = rng.gen_bool(0.2);
                let result = random_edit(&mut mesh, &mut live, &mut rng, op, |r| match outside {
                    true => quad_across_the_outline(r, size),
                    false => quad(r, size),
                });
                match result {
                    Ok(()) => edits += 1,
                    Err(EditError::Degenerate { .. } | EditError::OutsideMesh { .. }) => {}
                    Err(e) => panic!("{what}: {e}"),
                }
            }
            mesh.check_invariants();
            updates += usize::from(mesh.query_index.is_stale());
            let fresh = afresh(&mesh);
            assert_same_indexes(&mesh, &fresh, &what);
            let (lo, hi) = (Vec2::splat(-2.0), Vec2::splat(32.0));
            assert_same_answers(&mesh, &fresh, lo, hi, 12, &what);
        }
    }
    eprintln!("{edits} edits, {updates} updates");
    assert!(
        edits >= 500 && updates >= 250,
        "{edits} edits, {updates} updates"
    );
}

/// An index never built stays unbuilt through edits, and the first one built after
/// them lies in the frame of the mesh as edited then (no frame kept).
#[test]
fn an_index_never_built_stays_lazy_through_edits() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (_, mut mesh) = random_room(&mut rng, 6, false);
    let mut live = Vec::new();
    for _ in 0..10 {
        let op = rng.gen_range(0..4);
        let _ = random_edit(&mut mesh, &mut live, &mut rng, op, |r| quad(r, 2.0));
    }
    assert!(mesh.query_index.ready().is_none() && !mesh.query_index.is_stale());
    assert!(mesh.obstacles.query_frame.is_none());
    let fresh = afresh(&mesh);
    use_everything(&mesh);
    assert_same_indexes(&mesh, &fresh, "after edits");
}

/// On aurora (from `../shared/data`), adds, moves and removes of boxes 4 to 16 m
/// across, one to three between uses: the indexes brought up to date are those built
/// afresh, and random queries answer the same to the bit.
#[test]
fn on_aurora_the_query_index_follows_edits_as_built_afresh() {
    let Some(dir) = data_dir() else {
        return;
    };
    let base = crate::mesh::read_walls(&dir.join("polyanya-v2/aurora.mesh")).expect("aurora");
    let mut mesh = NavMesh::from_walls(&base).expect("aurora builds");
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &p in mesh.vertices() {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    use_everything(&mesh);
    for r in NEAREST_RADII {
        if let Some(kept) = mesh.radius_index(f64::from(r)) {
            let (pieces, walls) = kept.counts();
            eprintln!("aurora r = {r}: {pieces} pieces, {walls} walls");
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0xa0_22);
    let mut live: Vec<MeshObstacleId> = Vec::new();
    let mut edits = 0;
    for round in 0..12 {
        let mut at = Vec2::ZERO;
        for _ in 0..rng.gen_range(1..=3) {
            at = loop {
                let p = Vec2::new(
                    rng.gen_range(lo.x + 20.0..hi.x - 20.0),
                    rng.gen_range(lo.y + 20.0..hi.y - 20.0),
                );
                if matches!(mesh.locate(p), Location::Walkable(_)) {
                    break p;
                }
            };
            let size = rng.gen_range(4.0..16.0);
            let op = rng.gen_range(0..4);
            let result = random_edit(&mut mesh, &mut live, &mut rng, op, |r| {
                corners_around(r, at, size)
            });
            edits += usize::from(result.is_ok());
        }
        let what = format!("aurora round {round}");
        let fresh = afresh(&mesh);
        assert_same_indexes(&mesh, &fresh, &what);
        // Near the last edit, and anywhere.
        assert_same_answers(&mesh, &fresh, at - 40.0, at + 40.0, 60, &what);
        assert_same_answers(&mesh, &fresh, lo, hi, 20, &what);
    }
    eprintln!("{edits} edits on aurora");
    assert!(edits >= 15, "{edits} edits");
}

/// `prepare_queries` brings the query index and the corner grid up to date after
/// edits, and builds neither when it was not built.
#[test]
fn prepare_queries_brings_the_grids_up_to_date_and_builds_none() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (_, mut mesh) = random_room(&mut rng, 6, false);
    let mut live = Vec::new();
    let _ = random_edit(&mut mesh, &mut live, &mut rng, 0, |r| quad(r, 2.0));
    mesh.prepare_queries();
    assert!(mesh.query_index.ready().is_none() && !mesh.query_index.is_stale());
    assert!(mesh.corner_grid.ready().is_none() && !mesh.corner_grid.is_stale());
    use_everything(&mesh);
    for _ in 0..3 {
        let _ = random_edit(&mut mesh, &mut live, &mut rng, 1, |r| quad(r, 2.0));
    }
    assert!(mesh.query_index.is_stale() && mesh.corner_grid.is_stale());
    mesh.prepare_queries();
    assert!(!mesh.query_index.is_stale() && !mesh.corner_grid.is_stale());
    assert_same_indexes(&mesh, &afresh(&mesh), "prepared");
}
