use super::*;
use crate::geom::Segment;
use crate::grid::{cell_index, WallGrid};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn point_grid_finds_every_point_within_range() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let points: Vec<Vec2> = (0..500)
        .map(|_| Vec2::new(rng.gen_range(-50.0..50.0), rng.gen_range(-20.0..80.0)))
        .collect();
    let mut grid = PointGrid::default();
    for cell in [0.5, 3.0, 40.0] {
        grid.rebuild(&points, cell);
        for (i, &p) in points.iter().enumerate().step_by(7) {
            let range = 4.0;
            let mut found = Vec::new();
            grid.for_each_near(p, range, |j| found.push(j));
            found.sort_unstable();
            let before = found.len();
            found.dedup();
            assert_eq!(before, found.len(), "an item was reported twice");
            for (j, &q) in points.iter().enumerate() {
                if p.distance(q) <= range {
                    assert!(found.contains(&(j as u32)), "{j} missing near {i}");
                }
            }
        }
    }
}

#[test]
fn nearest_matches_a_brute_force_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // Clusters, a lone far point and duplicates, so rings of every kind are met.
    let mut points: Vec<Vec2> = (0..400)
        .map(|_| Vec2::new(rng.gen_range(-30.0..30.0), rng.gen_range(-5.0..60.0)))
        .collect();
    points.extend((0..100).map(|_| Vec2::new(rng.gen_range(0.0..2.0), rng.gen_range(0.0..2.0))));
    points.push(Vec2::new(500.0, -200.0));
    points.push(points[10]);
    points.push(Vec2::new(1.0, 1.0));
    points.push(Vec2::new(1.0, 1.0));
    let mut grid = PointGrid::default();
    let mut out = Vec::new();
    for cell in [0.3, 2.0, 3.75, 25.0] {
        grid.rebuild(&points, cell);
        for (i, &p) in points.iter().enumerate().step_by(3) {
            for (range, k) in [(15.0, 10), (4.0, 3), (1000.0, 25), (0.0, 4), (7.0, 1)] {
                let mut expected: Vec<(f32, u32)> = points
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(j, q)| (p.distance_squared(*q), j as u32))
                    .filter(|&(d2, _)| d2 <= range * range)
                    .collect();
                expected.sort_by(|x, y| x.partial_cmp(y).expect("finite"));
                expected.truncate(k);
                grid.nearest(p, range, k, Some(i as u32), &mut out);
                assert_eq!(
                    out, expected,
                    "point {i}, range {range}, k {k}, cell {cell}"
                );
                for hint in [0.5, 3.0, 20.0, f32::INFINITY, f32::NAN] {
                    grid.nearest_hinted(p, range, k, Some(i as u32), hint, &mut out);
                    assert_eq!(out, expected, "hint {hint}, point {i}, range {range}");
                }
            }
        }
        // A query point outside the box the points span.
        let p = Vec2::new(-90.0, 300.0);
        grid.nearest(p, 1e4, 5, None, &mut out);
        let mut expected: Vec<(f32, u32)> = points
            .iter()
            .enumerate()
            .map(|(j, q)| (p.distance_squared(*q), j as u32))
            .collect();
        expected.sort_by(|x, y| x.partial_cmp(y).expect("finite"));
        expected.truncate(5);
        assert_eq!(out, expected);
    }
    grid.nearest(Vec2::NAN, 10.0, 3, None, &mut out);
    assert!(out.is_empty());
}

#[test]
fn equally_far_points_are_chosen_by_position_not_by_number() {
    // A lattice: many points equally far from each query, so that the `k`-th
    // nearest is one of several; numbered forwards and backwards.
    let lattice: Vec<Vec2> = (0..64)
        .map(|i| Vec2::new((i % 8) as f32 * 2.5, (i / 8) as f32 * 2.5))
        .collect();
    let reversed: Vec<Vec2> = lattice.iter().rev().copied().collect();
    let n = lattice.len() as u32;
    let (mut forwards, mut backwards) = (PointGrid::default(), PointGrid::default());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for cell in [1.0, 2.5, 4.0, 15.0] {
        forwards.rebuild(&lattice, cell);
        backwards.rebuild(&reversed, cell);
        for (i, &p) in lattice.iter().enumerate() {
            let i = i as u32;
            for k in [1, 3, 4, 10, 11] {
                for hint in [0.0, 3.0, 6.0] {
                    forwards.nearest_hinted(p, 15.0, k, Some(i), hint, &mut a);
                    backwards.nearest_hinted(p, 15.0, k, Some(n - 1 - i), hint, &mut b);
                    let places = |found: &[(f32, u32)], points: &[Vec2]| -> Vec<Vec2> {
                        found.iter().map(|&(_, j)| points[j as usize]).collect()
                    };
                    assert_eq!(
                        places(&a, &lattice),
                        places(&b, &reversed),
                        "point {i}, k {k}, cell {cell}, hint {hint}"
                    );
                    assert!(a.windows(2).all(|w| w[0].0 <= w[1].0));
                }
            }
        }
    }
}

#[test]
fn a_rebuilt_grid_is_the_grid_built_afresh() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut grid = PointGrid::default();
    // Crowds of every size over boxes of every shape, one after the other, so
    // that the cell array grows and shrinks (past the parallel thresholds too).
    for (n, side, cell) in [
        (300, 40.0, 1.0),
        (5000, 3000.0, 2.0),
        (20, 5.0, 0.5),
        (9000, 50.0, 0.3),
        (0, 1.0, 1.0),
        (700, 900.0, 4.0),
    ] {
        let points: Vec<Vec2> = (0..n)
            .map(|_| Vec2::new(rng.gen_range(0.0..side), rng.gen_range(-side..0.0)))
            .collect();
        grid.rebuild(&points, cell);
        let mut fresh = PointGrid::default();
        fresh.rebuild(&points, cell);
        let slots = |g: &PointGrid| -> Vec<(Vec2, u32)> {
            g.slots.iter().map(|s| (s.point, s.index)).collect()
        };
        assert_eq!(grid.starts, fresh.starts, "{n} points");
        assert_eq!(slots(&grid), slots(&fresh), "{n} points");
        assert!(grid.counts.iter().all(|&c| c == 0), "{n} points");
    }
}

#[test]
fn rank_sort_sorts_distinct_keys_like_a_sort() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for len in [0, 1, 2, 7, 23, 48, 64] {
        let mut keys: Vec<u64> = Vec::new();
        while keys.len() < len {
            // Few distances, so that many keys share one and order by index.
            let key = key_of(rng.gen_range(0..4) as f32 * 0.5, rng.gen_range(0..1000));
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let mut sorted = vec![u64::MAX; 64];
        rank_sort(&keys, &mut sorted);
        keys.sort_unstable();
        assert_eq!(sorted[..len], keys[..], "{len} keys");
    }
}

#[test]
fn for_each_within_filters_for_each_near() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let points: Vec<Vec2> = (0..300)
        .map(|_| Vec2::new(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0)))
        .collect();
    let mut grid = PointGrid::default();
    grid.rebuild(&points, 3.0);
    for &p in points.iter().step_by(11) {
        let mut near = Vec::new();
        grid.for_each_near(p, 5.0, |j| {
            let d2 = p.distance_squared(points[j as usize]);
            if d2 <= 25.0 {
                near.push((j, d2));
            }
        });
        let mut within = Vec::new();
        grid.for_each_within(p, 5.0, |j, d2| within.push((j, d2)));
        assert_eq!(near, within);
    }
}

#[test]
fn sparse_points_over_a_wide_box_get_few_cells() {
    let points: Vec<Vec2> = (0..100)
        .map(|i| Vec2::from_angle(i as f32 * 0.0628) * 5000.0)
        .collect();
    let mut grid = PointGrid::default();
    grid.rebuild(&points, 1.0);
    let cells = grid.layout.cols * grid.layout.rows;
    assert!(
        cells <= CELLS_PER_POINT * 100 + MIN_POINT_CELLS,
        "{cells} cells"
    );
    let mut out = Vec::new();
    grid.nearest(points[0], 1e4, 2, Some(0), &mut out);
    let found: Vec<u32> = out.iter().map(|&(_, j)| j).collect();
    assert_eq!(found, [1, 99]);
}

#[test]
fn wall_grid_finds_every_wall_within_range() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let walls: Vec<Segment> = (0..300)
        .map(|_| {
            let a = Vec2::new(rng.gen_range(0.0..100.0), rng.gen_range(0.0..100.0));
            let d = Vec2::new(rng.gen_range(-15.0..15.0), rng.gen_range(-15.0..15.0));
            Segment::new(a, a + d)
        })
        .collect();
    let grid = WallGrid::new(&walls, 4.0);
    let mut out = Vec::new();
    for _ in 0..200 {
        let p = Vec2::new(rng.gen_range(-10.0..110.0), rng.gen_range(-10.0..110.0));
        let range = rng.gen_range(0.0..8.0);
        grid.walls_near(p, range, &mut out);
        for (i, w) in walls.iter().enumerate() {
            if w.distance(p) <= range {
                assert!(out.binary_search(&(i as u32)).is_ok(), "wall {i} missing");
            }
        }
    }
}

#[test]
fn cell_index_clamps_as_a_usize_conversion_would() {
    for count in [0usize, 1, 7, 1 << 22] {
        for t in [
            f32::NAN,
            f32::NEG_INFINITY,
            -3.5,
            -0.0,
            0.0,
            0.99,
            1.0,
            6.5,
            7.0,
            1e6,
            4.3e9,
            1e20,
            f32::INFINITY,
        ] {
            let expected = (t.max(0.0) as usize).min(count.saturating_sub(1));
            assert_eq!(cell_index(t, count), expected, "t {t}, count {count}");
        }
    }
}

#[test]
fn empty_grids_answer_nothing() {
    let mut grid = PointGrid::default();
    grid.rebuild(&[], 1.0);
    let mut n = 0;
    grid.for_each_near(Vec2::ZERO, 10.0, |_| n += 1);
    assert_eq!(n, 0);
    let walls = WallGrid::new(&[], 1.0);
    let mut out = vec![3];
    walls.walls_near(Vec2::ZERO, 10.0, &mut out);
    assert!(out.is_empty());
}
