//! Baked meshes on real maps: a mesh saved and loaded back answers every query as the
//! built one does (path lengths to the bit, found / not found and why, clearance,
//! location, walkable area), at r = 0, 0.5 and 2.
//!
//! Reads the Polyanya meshes from the shared data directory (`../shared/data` beside
//! the repository, or `CROWDNAV_DATA`); without it the test says it was skipped, except
//! in CI (`CI=true`), where it fails.

mod common;

use common::{data_dir, files_with_extension};
use crowdnav::mesh::{read_walls, Location, NavMesh};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `count` query pairs on `mesh`: both ends walkable, but one pair in five anywhere in
/// the bounding box (blocked or outside too).
fn query_pairs(mesh: &NavMesh, seed: u64, count: usize) -> Vec<(Vec2, Vec2)> {
    let (lo, hi) = mesh.vertices().iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut point = |anywhere: bool| loop {
        let p = Vec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
        if anywhere || matches!(mesh.locate(p), Location::Walkable(_)) {
            return p;
        }
    };
    (0..count)
        .map(|i| (point(i % 5 == 0), point(i % 5 == 0)))
        .collect()
}

/// What `mesh` answers at `pairs`: location and clearance of the start, and the path's
/// length (as bits) or why there is none, at r = 0, 0.5 and 2.
fn answers(mesh: &NavMesh, pairs: &[(Vec2, Vec2)]) -> Vec<String> {
    let mut out = vec![format!("area {:x}", mesh.walkable_area().to_bits())];
    for &(a, b) in pairs {
        out.push(format!("{a}: {:?} {:?}", mesh.locate(a), mesh.clearance(a)));
        for radius in [0.0, 0.5, 2.0] {
            let answer = mesh.find_path(a, b, radius).map(|p| p.length().to_bits());
            out.push(format!("{a} -> {b} r={radius}: {answer:?}"));
        }
    }
    out
}

#[test]
fn baked_real_maps_answer_as_built() {
    let Some(dir) = data_dir() else {
        return;
    };
    let files = files_with_extension(&dir.join("polyanya-v2"), "mesh", false);
    assert!(
        files.len() >= 4,
        "expected the Polyanya v2 meshes, found {files:?}"
    );
    for path in &files {
        let name = path.display();
        let walls = read_walls(path).unwrap_or_else(|e| panic!("{e}"));
        let built = NavMesh::from_walls(&walls).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = built.to_bytes();
        let loaded = NavMesh::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        loaded.check_invariants();
        assert_eq!(
            loaded.to_bytes(),
            bytes,
            "{name}: saved again, the same bytes"
        );
        let pairs = query_pairs(&built, 7, 100);
        let expected = answers(&built, &pairs);
        let found = expected.iter().filter(|a| a.contains("Ok(")).count();
        let refused = expected.iter().filter(|a| a.contains("Err(")).count();
        assert!(
            found >= 100 && refused >= 30,
            "{name}: {found} found, {refused} not"
        );
        for (e, g) in expected.iter().zip(answers(&loaded, &pairs)) {
            assert_eq!(&g, e, "{name}");
        }
        println!(
            "{name}: {} bytes, {found} paths found, {refused} not",
            bytes.len()
        );
    }
}
