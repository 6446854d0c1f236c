use crate::geom::Segment;
use crate::mesh::{Location, NavMesh};
use crate::path::Path;
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A 30 x 30 room crowded with small random squares and slanted quads (overlaps
/// allowed): many channels of nearly equal length around them, so whole-portal
/// dominance has much to drop, and the free parts of portals are cut by walls other
/// than the portals' own corners.
fn crowded_mesh(rng: &mut ChaCha8Rng) -> NavMesh {
    crate::mesh::test_worlds::quad_room(rng, 40, 1.0..27.0, 0.3..2.5, |rng| {
        if rng.gen_bool(0.5) {
            rng.gen_range(-1.0..1.0f32)
        } else {
            0.0
        }
    })
}

fn walkable_point(mesh: &NavMesh, rng: &mut ChaCha8Rng) -> Vec2 {
    loop {
        let p = Vec2::new(rng.gen_range(0.2..29.8), rng.gen_range(0.2..29.8));
        if matches!(mesh.locate(p), Location::Walkable(_)) {
            return p;
        }
    }
}

/// The least distance from a wall to sampled points of `path`.
fn lowest_clearance(walls: &[Segment], path: &Path) -> f32 {
    let mut lowest = f32::INFINITY;
    for piece in path.pieces() {
        for k in 0..=16 {
            let x = piece.point_at(k as f32 / 16.0);
            for w in walls {
                lowest = lowest.min(w.distance(x));
            }
        }
    }
    lowest
}

/// A thread's memo of crossing segments serves only the mesh and radius it was
/// made for: switching meshes of the same size, or radii, forgets it, and every
/// span read through it (first computed, then remembered) is the one computed
/// afresh.
#[test]
fn span_memo_answers_as_computed_for_each_mesh_and_radius() {
    use super::astar::Search;
    use super::disc::{span_of, Span};
    use super::pools::Scratch;
    use super::Tuning;
    use crate::mesh::TriangleId;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let meshes = [crowded_mesh(&mut rng), crowded_mesh(&mut rng)];
    let mut scratch = Scratch::default();
    let mut segments = 0;
    for (m, radius) in [(0, 0.4), (1, 0.4), (0, 0.4), (0, 0.7), (1, 0.7), (1, 0.4)] {
        let mesh = &meshes[m];
        let mut search = Search::new(
            mesh,
            Vec2::ZERO,
            Vec2::ZERO,
            radius,
            Tuning::default(),
            scratch,
        );
        for _ in 0..2 {
            for t in 0..mesh.triangles.len() as u32 {
                for exit in 0..3 {
                    let t = TriangleId(t);
                    let want = span_of(mesh, t, exit, radius);
                    assert_eq!(search.span(t, exit), want, "mesh {m}, r {radius}, {t:?}");
                    segments += usize::from(matches!(want, Span::Segment { .. }));
                }
            }
        }
        scratch = search.into_scratch();
    }
    // A coverage floor, so segment spans are checked, not only points. Measured: 6 356.
    assert!(segments > 1000, "only {segments} segments");
}

/// Asserts that two searches answered alike: both a path, lengths within
/// `tolerance` relative (0: equal), or the same error. Returns whether both found
/// a path.
fn assert_same_answer(
    x: &Result<Path, crate::path::PathError>,
    y: &Result<Path, crate::path::PathError>,
    tolerance: f64,
    query: &str,
) -> bool {
    match (x, y) {
        (Ok(x), Ok(y)) => {
            let (x, y) = (x.length(), y.length());
            assert!(
                (x - y).abs() <= tolerance * (1.0 + y),
                "{query}: {x} against {y}"
            );
            true
        }
        (x, y) => {
            assert_eq!(x.as_ref().err(), y.as_ref().err(), "{query}");
            false
        }
    }
}

/// The world of `random_worlds.rs`'s sliver-corner regression (a corner beside the
/// channel comes within the radius of the funnel's path).
const SLIVER_LEVEL: &str = r#"{"boundary":[[0.0,0.0],[1.0,0.0],[1.0,1.0],[0.0,1.0]],"obstacles":[[[0.45273933,0.7],[0.49631867,0.7],[0.49631867,0.7182072],[0.474529,0.7182072],[0.45273933,0.7182072]],[[0.24,0.19773933],[0.3036496,0.256755],[0.3036496,0.257255],[0.24,0.19823933]],[[0.84,0.64658916],[0.95116293,0.6642494],[0.95116293,0.6637494],[0.8955815,0.65491927],[0.84,0.64608914]],[[-0.099999994,0.69],[0.7099957,0.69],[0.7099957,0.685],[0.7099957,0.68],[-0.099999994,0.68],[-0.099999994,0.68]],[[0.34,0.68],[0.40144628,0.743633],[0.40144628,0.744133],[0.40144628,0.744133],[0.34,0.68050003]],[[0.75029904,0.4199863],[0.75945836,0.25943142],[0.71999997,0.2691922]],[[0.5135651,0.9553918],[0.5529093,0.9606709],[0.4921536,0.94]],[[0.22,0.9655487],[0.27221787,0.9655487],[0.27221787,0.9327743],[0.27221787,0.9],[0.22,0.9]]]}"#;

fn sliver_mesh() -> NavMesh {
    let level = crate::mesh::Level::from_json(SLIVER_LEVEL).expect("valid level");
    NavMesh::from_level(&level).expect("the level builds")
}

/// From (0.2164, 0.1654) to (0.7242, 0.9757) at radius 0.02 the shortest path runs
/// diagonally under the long wall's end and up past its end face, whose three
/// corners (0.71, 0.68), (0.71, 0.685) and (0.71, 0.69) lie on one vertical line:
/// 1.02705, the sum of the paths to a point beside the face and from it to the goal.
///
/// Regression: the funnel dropped the middle and top corners from its left chain
/// as collinear with the next portal's end (0.71, 1.0), then ended at the goal,
/// which lies short of that end and left of the face: the last leg cut the top
/// corner's circle, no repair beside the channel could add a corner the funnel kept
/// dropping, and the path was dropped. Every search answered a detour to the right
/// instead (1.29795 without whole-portal dominance, 1.30702 with it and without the
/// fallback). `Funnel::must_wrap` now keeps a disc's corner that lies exactly on the
/// way to the new end.
#[test]
fn a_goal_short_of_a_collinear_wall_end_still_wraps_the_corner_it_needs() {
    use super::Tuning;
    let mesh = sliver_mesh();
    let (a, b, r) = (
        Vec2::new(0.216_379_76, 0.165_400_74),
        Vec2::new(0.724_172_5, 0.975_693_8),
        0.02,
    );
    let via = Vec2::new(0.729_349_9, 0.674_951_55);
    let split = mesh.find_path(a, via, r).expect("a path").length()
        + mesh.find_path(via, b, r).expect("a path").length();
    assert!((split - 1.027_05).abs() < 1e-5, "{split}");
    let walls: Vec<Segment> = mesh.walls().collect();
    for (portal_pruning, fallback) in [(true, true), (true, false), (false, false)] {
        let tuning = Tuning {
            portal_pruning,
            fallback,
            ..Tuning::default()
        };
        let (path, _) = mesh.find_path_with(a, b, r, tuning);
        let path = path.expect("a path");
        assert!(
            path.length() <= split + 1e-9,
            "{tuning:?}: {} beyond the split path's {split}",
            path.length()
        );
        assert!(lowest_clearance(&walls, &path) >= r - 1e-6, "{tuning:?}");
    }
}

/// The lead down corridors (`CORRIDOR_LEAD`) changes no answer and takes fewer
/// entries from the open list: on crowded random worlds, discs of several radii
/// find the same lengths (and the same failures) with and without it, and pop less
/// in all.
#[test]
fn the_corridor_lead_changes_no_answer_and_pops_less() {
    use super::Tuning;
    let strict = Tuning {
        corridor_lead: false,
        ..Tuning::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let (mut compared, mut popped, mut popped_strict) = (0, 0u64, 0u64);
    for _ in 0..8 {
        let mesh = crowded_mesh(&mut rng);
        for _ in 0..40 {
            let (a, b) = (
                walkable_point(&mesh, &mut rng),
                walkable_point(&mesh, &mut rng),
            );
            for radius in [0.1, 0.25, 0.4] {
                let (lead, stats) = mesh.find_path_with(a, b, radius, Tuning::default());
                let (plain, strict_stats) = mesh.find_path_with(a, b, radius, strict);
                let query = format!("{a} -> {b}, r = {radius}, with the lead and without");
                compared += usize::from(assert_same_answer(&lead, &plain, 1e-9, &query));
                popped += u64::from(stats.popped);
                popped_strict += u64::from(strict_stats.popped);
            }
        }
    }
    // A coverage floor. Measured: 807.
    assert!(compared >= 500, "only {compared} paths compared");
    assert!(
        popped < popped_strict,
        "{popped} entries popped with the lead, {popped_strict} without"
    );
}

/// Asking the grid of corners before walking beside the channel changes no answer
/// (same lengths to the bit, same failures), on the sliver world, where corners
/// beside channels come within the radius often enough that some paths get
/// repaired (5 of 20 000 queries), and on crowded random worlds.
#[test]
fn the_grid_of_corners_changes_no_check_beside_the_channel() {
    use super::Tuning;
    let walk_only = Tuning {
        beside_grid: false,
        ..Tuning::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let (mut compared, mut repaired) = (0, 0);
    let sliver = sliver_mesh();
    for _ in 0..20_000 {
        let a = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
        let b = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
        let r = [0.005f32, 0.01, 0.02, 0.03][rng.gen_range(0..4)];
        let (grid, stats) = sliver.find_path_with(a, b, r, Tuning::default());
        let (walk, _) = sliver.find_path_with(a, b, r, walk_only);
        let query = format!("{a} -> {b}, r = {r}, with the grid and without");
        compared += usize::from(assert_same_answer(&grid, &walk, 0.0, &query));
        repaired += usize::from(stats.repaired);
    }
    for _ in 0..6 {
        let mesh = crowded_mesh(&mut rng);
        for _ in 0..40 {
            let (a, b) = (
                walkable_point(&mesh, &mut rng),
                walkable_point(&mesh, &mut rng),
            );
            for radius in [0.1, 0.25, 0.4, 0.7] {
                let (grid, stats) = mesh.find_path_with(a, b, radius, Tuning::default());
                let (walk, _) = mesh.find_path_with(a, b, radius, walk_only);
                let query = format!("{a} -> {b}, r = {radius}, with the grid and without");
                compared += usize::from(assert_same_answer(&grid, &walk, 0.0, &query));
                repaired += usize::from(stats.repaired);
            }
        }
    }
    // Coverage floors: the rare repair must happen more than once. Measured: 16 070
    // compared, 5 repaired.
    assert!(compared >= 10_000, "only {compared} paths compared");
    assert!(repaired >= 2, "only {repaired} searches repaired a path");
}

/// With the fallback, whole-portal dominance changes no disc's answer on the sliver
/// world, where corners beside channels often come within the radius: random
/// queries find the lengths of the search without it.
#[test]
fn with_the_fallback_portal_dominance_changes_no_answer_among_slivers() {
    use super::Tuning;
    let mesh = sliver_mesh();
    let unpruned = Tuning {
        fallback: false,
        portal_pruning: false,
        ..Tuning::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut compared, mut reran) = (0, 0);
    for _ in 0..20_000 {
        let a = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
        let b = Vec2::new(rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
        let r = [0.005f32, 0.01, 0.02, 0.03][rng.gen_range(0..4)];
        let (fast, stats) = mesh.find_path_with(a, b, r, Tuning::default());
        let (slow, _) = mesh.find_path_with(a, b, r, unpruned);
        let query = format!("{a} -> {b}, r = {r}, with dominance and without");
        compared += u32::from(assert_same_answer(&fast, &slow, 1e-6, &query));
        reran += u32::from(stats.reran);
    }
    // Coverage floors: the rare fallback must run more than once. Measured: 15 401
    // compared, 4 reruns.
    assert!(compared >= 10_000, "only {compared} paths compared");
    assert!(reran >= 2, "the fallback ran only {reran} times");
}

/// Whole-portal dominance drops nodes and never changes an answer: on crowded
/// random worlds, for point agents and discs, the search with it finds the same
/// lengths (and the same failures) as the search without it, and every path keeps
/// the radius from every wall.
///
/// Regression: on the tenth world a disc of radius 0.7 from (27.79, 1.13) to
/// (13.53, 7.71) crosses the portal between corners (17.155, 6.633) and
/// (15.565, 7.863) at a slant. The point funnel's rule moved the apex straight to
/// the far corner, and the path passed 0.647 from the near one
/// (`Funnel::obstructs` now makes the path wrap it first).
#[test]
fn portal_dominance_changes_no_answer() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xd15c_0a7e);
    let (mut compared, mut dropped_for_discs) = (0, 0u64);
    // Fourteen worlds: the disc heuristic from the apex's arrival point leaves
    // fewer nodes to drop per world than the centre's did.
    for _ in 0..14 {
        let mesh = crowded_mesh(&mut rng);
        let walls: Vec<Segment> = mesh.walls().collect();
        for _ in 0..40 {
            let (a, b) = (
                walkable_point(&mesh, &mut rng),
                walkable_point(&mesh, &mut rng),
            );
            for radius in [0.0, 0.1, 0.25, 0.4, 0.7] {
                let (fast, dropped) = mesh.find_path_tuned(a, b, radius, true, true);
                let (slow, _) = mesh.find_path_tuned(a, b, radius, false, true);
                match (&fast, &slow) {
                    (Ok(f), Ok(s)) => {
                        let (cf, cs) = (lowest_clearance(&walls, f), lowest_clearance(&walls, s));
                        assert!(
                            cf >= radius - 1e-4 && cs >= radius - 1e-4,
                            "{a} -> {b}, r = {radius}: the paths come {cf} and {cs} from a wall"
                        );
                        let (f, s) = (f.length(), s.length());
                        assert!(
                            (f - s).abs() <= 1e-6 * (1.0 + s),
                            "{a} -> {b}, r = {radius}: {f} with dominance, {s} without"
                        );
                        compared += 1;
                    }
                    (f, s) => assert_eq!(
                        f.as_ref().err(),
                        s.as_ref().err(),
                        "{a} -> {b}, r = {radius}"
                    ),
                }
                if radius > 0.0 {
                    dropped_for_discs += u64::from(dropped);
                }
            }
        }
    }
    // Coverage floors. Measured: 2 259 compared, 568 disc nodes dropped.
    assert!(compared >= 1500, "only {compared} paths compared");
    assert!(
        dropped_for_discs >= 500,
        "dominance dropped only {dropped_for_discs} disc nodes"
    );
}

mod start_on_a_corner_circle {
    use crate::mesh::{Level, NavMesh};
    use glam::Vec2;

    /// A 20 x 20 room with one block whose corner (10, 10) starts a diagonal wall up
    /// to (11, 11), as a staircase of grid cells ends.
    fn block_mesh() -> NavMesh {
        let level = Level::from_json(
            r#"{"boundary": [[0,0],[20,0],[20,20],[0,20]],
                "obstacles": [[[10,5],[14,5],[14,12],[11,11],[10,10]]]}"#,
        )
        .expect("valid level");
        NavMesh::from_level(&level).expect("the level builds")
    }

    /// A disc of radius 1 starting at (9, 10), exactly its radius left of the corner
    /// (10, 10), leaves upwards along the corner's circle, rolls clockwise around it
    /// and runs straight to (12, 18): √67 + (π - atan2(8, 2) - acos(1/√68)).
    ///
    /// Regression: the funnel took the direction from the start to a corner whose
    /// circle it lies on along the centres' line (1, 0), not along the tangent (0, 1):
    /// it then dropped the corner as inside the boundary towards (11, 11), the path
    /// cut the corner's circle, the check beside the channel added the corner, the
    /// funnel dropped it again, and the channel was dropped. The search answered a
    /// detour round the block (25.867 instead of 8.552; on the aurora map at radius 1,
    /// query 975 answered 431.957 instead of 382.106 and query 1657 672.826 instead of
    /// 632.570).
    #[test]
    fn a_start_on_a_corners_circle_leaves_along_the_circle() {
        let mesh = block_mesh();
        let start = Vec2::new(9.0, 10.0);
        let goal = Vec2::new(12.0, 18.0);
        let expected =
            67f64.sqrt() + (std::f64::consts::PI - 8f64.atan2(2.0) - (1.0 / 68f64.sqrt()).acos());
        let path = mesh.find_path(start, goal, 1.0).expect("a path");
        assert!(
            (path.length() - expected).abs() < 1e-5,
            "{} instead of {expected}",
            path.length()
        );
        // Other goals: the same length as from a start a hair farther from the corner.
        let nudged = Vec2::new(8.999, 10.0);
        for goal in [
            Vec2::new(16.0, 16.0),
            Vec2::new(17.0, 14.0),
            Vec2::new(18.0, 15.5),
            Vec2::new(16.0, 2.5),
            Vec2::new(5.0, 2.0),
        ] {
            let on = mesh.find_path(start, goal, 1.0).expect("a path").length();
            let off = mesh.find_path(nudged, goal, 1.0).expect("a path").length();
            // Moving the start 1 mm changes a shortest length by at most 1 mm (triangle
            // inequality), plus rounding. Measured: at most 0.45 mm.
            assert!(
                (on - off).abs() <= 1.5e-3,
                "to {goal}: {on} from the circle, {off} from beside it"
            );
        }
    }
}

mod list_pool {
    use super::super::pools::ListPool;

    /// A list handed out again after a reset starts empty, whatever the search before
    /// left in it, and keeps the heap buffer it grew.
    #[test]
    fn a_reused_list_starts_empty_and_keeps_its_buffer() {
        let mut pool = ListPool::<u32>::default();
        let first = pool.open();
        pool[first].extend(0..10);
        let grown = pool[first].capacity();
        let second = pool.open();
        pool[second].push(7);
        pool.reset();
        let again = pool.open();
        assert_eq!(again, first);
        assert!(pool[again].is_empty());
        assert_eq!(pool[again].capacity(), grown);
        let next = pool.open();
        assert_eq!(next, second);
        assert!(pool[next].is_empty());
    }
}
