//! The game-loop queries against brute-force references (every wall, every pair of
//! walls, dense sampling) on seeded random worlds, and on arbitrary input.

use super::reference;
use super::*;
use crate::mesh::test_worlds::quad_room;
use crate::mesh::NavMesh;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RADII: [f32; 6] = [0.0, 0.1, 0.3, 0.6, 1.0, 1.7];

/// A 30 x 30 room with squares and slanted quads (overlaps allowed): gaps of every
/// width, pockets and islands.
fn random_mesh(rng: &mut ChaCha8Rng) -> NavMesh {
    let count = rng.gen_range(10..40);
    quad_room(rng, count, 0.0..28.0, 0.3..4.0, |rng| {
        rng.gen_range(-1.0..1.0f32)
    })
}

use crate::mesh::test_worlds::{mesh, room_with_pillar};

fn anywhere(rng: &mut ChaCha8Rng) -> Vec2 {
    Vec2::new(rng.gen_range(-3.0..33.0), rng.gen_range(-3.0..33.0))
}

/// Points to probe a bitmap with: `count` anywhere, 300 of them moved onto the lines
/// of a lattice of side `lines` (both coordinates, or `x` only) when given, every
/// vertex of `mesh`, and a point on each of its `walls`.
fn probe_points(
    rng: &mut ChaCha8Rng,
    mesh: &NavMesh,
    walls: &[Segment],
    count: usize,
    lines: Option<f32>,
) -> Vec<Vec2> {
    let mut points: Vec<Vec2> = (0..count).map(|_| anywhere(rng)).collect();
    if let Some(side) = lines {
        let at = |x: f32| (x / side).round() * side;
        points.extend((0..300).map(|_| {
            let p = anywhere(rng);
            Vec2::new(at(p.x), if rng.gen_bool(0.5) { at(p.y) } else { p.y })
        }));
    }
    points.extend(mesh.vertices().iter().copied());
    points.extend(walls.iter().map(|w| w.a.lerp(w.b, rng.gen_range(0.0..1.0))));
    points
}

/// A random point where a disc of radius `r` fits (by the references), if one is found.
fn free_point(rng: &mut ChaCha8Rng, mesh: &NavMesh, r: f32) -> Option<Vec2> {
    (0..200)
        .map(|_| Vec2::new(rng.gen_range(0.0..30.0), rng.gen_range(0.0..30.0)))
        .find(|&p| reference::fits(mesh, p, f64::from(r)))
}

#[test]
fn nearest_point_is_the_exhaustive_references_on_random_worlds() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9ea2e5);
    let (mut moved, mut none) = (0, 0);
    for _ in 0..6 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..30 {
            let p = anywhere(&mut rng);
            for r in RADII {
                let ours = mesh.nearest_point(p, r).expect("valid query");
                let theirs = reference::nearest_point(&mesh, p, f64::from(r));
                match (ours, theirs) {
                    (Some(o), Some(t)) => {
                        let (d, e) = (f64::from(o.distance), t.distance(p.as_dvec2()));
                        assert!((d - e).abs() < 1e-4, "{p} r = {r}: {o:?} vs {t} ({e})");
                        assert!(reference::fits(&mesh, o.point, f64::from(r)), "{o:?}");
                        assert_eq!(mesh.locate(o.point), Location::Walkable(o.triangle));
                        assert!(mesh.clearance(o.point).expect("walkable") >= r);
                        if d > 0.0 {
                            moved += 1;
                        }
                    }
                    (None, None) => none += 1,
                    (o, t) => panic!("{p} r = {r}: ours {o:?}, reference {t:?}"),
                }
            }
        }
    }
    // Coverage: most queries move the point.
    assert!(moved >= 500, "{moved} moved, {none} without room");
}

#[test]
fn no_sampled_free_point_is_nearer_than_the_nearest_point() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5a391e);
    for _ in 0..3 {
        let mesh = random_mesh(&mut rng);
        let samples: Vec<Vec2> = (0..20_000)
            .map(|_| Vec2::new(rng.gen_range(0.0..30.0), rng.gen_range(0.0..30.0)))
            .collect();
        for r in [0.0f32, 0.4, 1.2] {
            let free: Vec<Vec2> = samples
                .iter()
                .copied()
                .filter(|&s| reference::fits(&mesh, s, f64::from(r)))
                .collect();
            for _ in 0..40 {
                let p = anywhere(&mut rng);
                let ours = mesh.nearest_point(p, r).expect("valid").expect("room");
                let nearest = free
                    .iter()
                    .map(|s| s.distance(p))
                    .fold(f32::INFINITY, f32::min);
                assert!(
                    ours.distance <= nearest + 1e-4,
                    "{p} r = {r}: {ours:?}, sample at {nearest}"
                );
            }
        }
    }
}

#[test]
fn nearest_point_reachable_stays_in_the_starts_component() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4eac4ab1e);
    let mut checked = 0;
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..20 {
            let r = RADII[rng.gen_range(0..RADII.len())];
            let Some(from) = free_point(&mut rng, &mesh, r) else {
                continue;
            };
            let p = anywhere(&mut rng);
            let ours = mesh
                .nearest_point_reachable(from, p, r)
                .expect("from has room");
            assert!(
                mesh.find_path(from, ours.point, r).is_ok(),
                "{from} -> {ours:?}"
            );
            assert!(reference::fits(&mesh, ours.point, f64::from(r)));
            // Never nearer than the unrestricted nearest point; equal when that is
            // reachable.
            let global = mesh.nearest_point(p, r).expect("valid").expect("room");
            assert!(ours.distance >= global.distance - 1e-4);
            if mesh.find_path(from, global.point, r).is_ok() {
                assert!(
                    (ours.distance - global.distance).abs() < 1e-4,
                    "{ours:?} vs {global:?}"
                );
            }
            // No free sample that the disc reaches is nearer.
            for _ in 0..60 {
                let s = Vec2::new(rng.gen_range(0.0..30.0), rng.gen_range(0.0..30.0));
                if s.distance(p) + 1e-4 < ours.distance && reference::fits(&mesh, s, f64::from(r)) {
                    assert!(
                        mesh.find_path(from, s, r).is_err(),
                        "{s} is nearer and reached"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "{checked}");
}

/// The smallest clearance along the ray's first `fraction`, by dense sampling.
fn sampled_clearance(mesh: &NavMesh, s: Vec2, e: Vec2, fraction: f32) -> f64 {
    (0..=400)
        .map(|k| s.lerp(e, fraction * k as f32 / 400.0).as_dvec2())
        .map(|x| reference::clearance(mesh, x))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn raycast_is_the_first_touch_over_every_wall() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x2a7ca57);
    let (mut hits, mut clear) = (0, 0);
    for _ in 0..6 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..40 {
            let r = RADII[rng.gen_range(0..RADII.len())];
            let Some(from) = free_point(&mut rng, &mesh, r) else {
                continue;
            };
            let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(0.1..25.0);
            let ours = mesh.raycast(from, to, r).expect("valid ray");
            let theirs = reference::raycast(&mesh, from, to, f64::from(r));
            match (ours, theirs) {
                (None, None) => {
                    clear += 1;
                    assert!(sampled_clearance(&mesh, from, to, 1.0) >= f64::from(r) - 1e-4);
                }
                (Some(h), Some(t)) => {
                    hits += 1;
                    assert!((f64::from(h.fraction) - t).abs() < 1e-5, "{h:?} vs {t}");
                    // Free up to the hit, touching at it.
                    let before = sampled_clearance(&mesh, from, to, h.fraction);
                    assert!(
                        before >= f64::from(r) - 1e-4,
                        "{from} -> {to} r = {r}: {before}"
                    );
                    assert!((h.point.distance(h.contact) - r).abs() < 1e-4, "{h:?}");
                    assert!((h.normal.length() - 1.0).abs() < 1e-5);
                    assert!(
                        h.normal.dot(to - from) <= 1e-4,
                        "the disc moves into the wall"
                    );
                    let at = reference::clearance(&mesh, h.point.as_dvec2());
                    assert!((at - f64::from(r)).abs() < 1e-4, "{h:?}: {at}");
                }
                (o, t) => panic!("{from} -> {to} r = {r}: ours {o:?}, reference {t:?}"),
            }
        }
    }
    assert!(hits >= 100 && clear >= 20, "{hits} hits, {clear} clear");
}

#[test]
fn a_disc_resting_on_a_wall_slides_along_it_or_leaves_it() {
    let m = room_with_pillar();
    // Resting on the floor wall y = 0 at r = 0.5.
    let from = Vec2::new(2.0, 0.5);
    assert_eq!(m.raycast(from, Vec2::new(3.5, 0.5), 0.5), Ok(None));
    assert_eq!(m.raycast(from, Vec2::new(2.0, 3.0), 0.5), Ok(None));
    let into = m.raycast(from, Vec2::new(2.0, -1.0), 0.5).expect("valid");
    assert_eq!(into.map(|h| (h.fraction, h.normal)), Some((0.0, Vec2::Y)));
    // Round the pillar's corner (4, 4): the arc of radius 1 is touched.
    let hit = m
        .raycast(Vec2::new(1.0, 3.2), Vec2::new(9.0, 3.2), 1.0)
        .expect("valid")
        .expect("the corner");
    assert_eq!(hit.contact, Vec2::new(4.0, 4.0));
    assert!((hit.point - Vec2::new(3.4, 3.2)).length() < 1e-6, "{hit:?}");
    assert!(
        (hit.normal - Vec2::new(-0.6, -0.8)).length() < 1e-6,
        "{hit:?}"
    );
    // Grazing the pillar's side at exactly the radius is no touch.
    let graze = m.raycast(Vec2::new(1.0, 3.0), Vec2::new(9.0, 3.0), 1.0);
    assert_eq!(
        graze.expect("valid").map(|h| h.contact),
        Some(Vec2::new(10.0, 3.0))
    );
    // At r = 0 the same ray passes below the pillar.
    assert_eq!(
        m.raycast(Vec2::new(1.0, 3.0), Vec2::new(9.0, 3.0), 0.0),
        Ok(None)
    );
}

#[test]
fn move_along_surface_keeps_the_disc_free_and_slides_round_walls() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x511de);
    let (mut slid, mut straight) = (0, 0);
    for _ in 0..5 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..60 {
            let r = RADII[rng.gen_range(0..RADII.len())];
            let Some(from) = free_point(&mut rng, &mesh, r) else {
                continue;
            };
            let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(0.0..8.0);
            let slide = mesh.move_along_surface(from, to, r).expect("valid move");
            assert!(
                reference::fits(&mesh, slide.position, f64::from(r) - 1e-5),
                "{from} -> {to} r = {r}: {slide:?}"
            );
            if slide.hits == 0 {
                assert_eq!(slide.position, to);
                assert!(mesh.raycast(from, to, r).map_or(true, |h| h.is_none()));
                straight += 1;
            } else {
                // Never further from the target than the first touch.
                let first = mesh.raycast(from, to, r).expect("valid").expect("a touch");
                assert!(slide.position.distance(to) <= first.point.distance(to) + 1e-4);
                slid += 1;
            }
        }
    }
    assert!(
        slid >= 50 && straight >= 50,
        "{slid} slid, {straight} straight"
    );
}

#[test]
fn a_disc_pushed_into_a_corner_stops_in_it() {
    let m = room_with_pillar();
    let slide = m
        .move_along_surface(Vec2::new(8.0, 8.0), Vec2::new(12.0, 11.0), 0.5)
        .expect("valid");
    assert!(
        slide.position.distance(Vec2::new(9.5, 9.5)) < 1e-4,
        "{slide:?}"
    );
    assert!(slide.hits >= 2);
}

#[test]
fn nearest_wall_is_the_nearest_over_every_wall() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xa115);
    for _ in 0..5 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..100 {
            let p = Vec2::new(rng.gen_range(0.0..30.0), rng.gen_range(0.0..30.0));
            let w = mesh.nearest_wall(p).expect("inside the hull");
            let brute = reference::clearance(&mesh, p.as_dvec2());
            assert!(
                (f64::from(w.distance) - brute).abs() < 1e-5,
                "{p}: {w:?} vs {brute}"
            );
            assert!((w.point.distance(p) - w.distance).abs() < 1e-4);
            assert!(
                mesh.walls().any(|s| s.distance(w.point) < 1e-4),
                "{w:?} on a wall"
            );
            assert!((w.normal.length() - 1.0).abs() < 1e-5);
            assert!(w.distance == 0.0 || (p - w.point).normalize().dot(w.normal) > 0.999);
        }
    }
}

#[test]
fn triangles_in_circle_are_every_walkable_triangle_the_circle_meets() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc12c1e);
    let mut out = Vec::new();
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..60 {
            let c = anywhere(&mut rng);
            let big = rng.gen_range(0.0..6.0f32);
            mesh.triangles_in_circle(c, big, &mut out).expect("valid");
            let expected: Vec<TriangleId> = mesh
                .walkable_triangles()
                .filter(|&t| {
                    let [a, b, d] = mesh.triangle_points(t);
                    crate::geom::point_in_triangle(c, a, b, d)
                        || (0..3).any(|e| mesh.edge_segment(t, e).distance(c) <= big)
                })
                .collect();
            assert_eq!(out, expected, "{c} {big}");
        }
    }
}

/// Counts of `points` in a 3 x 3 split of the room, against the free area of each part
/// (estimated on a fine lattice): each within five standard deviations.
fn assert_uniform(mesh: &NavMesh, points: &[Vec2], r: f32, inside: impl Fn(Vec2) -> bool) {
    let part = |p: Vec2| ((p.x / 10.0) as usize).min(2) + 3 * ((p.y / 10.0) as usize).min(2);
    let mut area = [0.0f64; 9];
    let n = 300;
    for i in 0..n {
        for j in 0..n {
            let p = Vec2::new(
                (i as f32 + 0.5) * 30.0 / n as f32,
                (j as f32 + 0.5) * 30.0 / n as f32,
            );
            if inside(p) && reference::fits(mesh, p, f64::from(r)) {
                area[part(p)] += 1.0;
            }
        }
    }
    let total: f64 = area.iter().sum();
    let mut count = [0usize; 9];
    for &p in points {
        count[part(p)] += 1;
    }
    for k in 0..9 {
        let expect = points.len() as f64 * area[k] / total;
        let sd = (expect * (1.0 - area[k] / total)).sqrt().max(1.0);
        assert!(
            (count[k] as f64 - expect).abs() <= 5.0 * sd + 2.0,
            "part {k}: {} samples, {expect:.1} expected",
            count[k]
        );
    }
}

#[test]
fn random_points_are_uniform_over_where_the_disc_fits() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4ad0);
    for r in [0.0f32, 0.7] {
        let mesh = random_mesh(&mut rng);
        let points: Vec<Vec2> = (0..6000)
            .map(|_| {
                mesh.random_point(&mut rng, r)
                    .expect("valid")
                    .expect("room")
            })
            .collect();
        for &p in &points {
            assert!(reference::fits(&mesh, p, f64::from(r)), "{p}");
        }
        assert_uniform(&mesh, &points, r, |_| true);
    }
}

#[test]
fn random_points_in_a_circle_are_uniform_inside_it() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc14c1e);
    let mesh = random_mesh(&mut rng);
    // A wide circle (triangles sampled) and a narrow one (the circle sampled).
    for (c, big) in [
        (Vec2::new(15.0, 15.0), 14.0f32),
        (Vec2::new(12.0, 13.0), 5.0),
    ] {
        let r = 0.4;
        let points: Vec<Vec2> = (0..6000)
            .map(|_| {
                mesh.random_point_in_circle(&mut rng, c, big, r)
                    .expect("valid")
                    .expect("room")
            })
            .collect();
        for &p in &points {
            assert!(
                p.distance(c) <= big && reference::fits(&mesh, p, f64::from(r)),
                "{p}"
            );
        }
        assert_uniform(&mesh, &points, r, |p| p.distance(c) <= big);
    }
}

#[test]
fn random_reachable_points_are_reached_and_cover_the_component() {
    // Two rooms joined by a 1 m door: a disc of radius 0.3 goes through, 0.6 does not.
    let m = mesh(
        r#"{"boundary": [[0,0],[10,0],[10,10],[0,10]],
            "obstacles": [[[5,0],[5.2,0],[5.2,4.5],[5,4.5]],
                          [[5,5.5],[5.2,5.5],[5.2,10],[5,10]]]}"#,
    );
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let from = Vec2::new(2.0, 5.0);
    for (r, beyond) in [(0.3f32, true), (0.6, false)] {
        let mut right = 0;
        for _ in 0..400 {
            let p = m
                .random_point_reachable(&mut rng, from, r)
                .expect("valid")
                .expect("room");
            assert!(m.find_path(from, p, r).is_ok());
            right += usize::from(p.x > 5.2);
        }
        // Half the free area lies beyond the door when it lets the disc through.
        assert_eq!(
            right > 150,
            beyond,
            "r = {r}: {right} of 400 beyond the door"
        );
        assert!(!beyond || right < 250);
    }
}

#[test]
fn bad_input_is_refused_with_its_reason() {
    let m = room_with_pillar();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (p, nan) = (Vec2::new(1.0, 1.0), Vec2::new(f32::NAN, 1.0));
    fn not_finite<T>(argument: &'static str) -> Result<T, MeshQueryError> {
        Err(MeshQueryError::NotFinite { argument })
    }
    assert_eq!(m.nearest_point(nan, 0.5), not_finite("point"));
    assert_eq!(
        m.nearest_point(p, -1.0),
        Err(MeshQueryError::BadRadius {
            argument: "radius",
            value: -1.0
        })
    );
    assert!(matches!(
        m.nearest_point(p, f32::NAN),
        Err(MeshQueryError::BadRadius { .. })
    ));
    assert!(matches!(
        m.nearest_point(p, f32::INFINITY),
        Err(MeshQueryError::BadRadius { .. })
    ));
    assert_eq!(
        m.raycast(p, p, 0.5),
        Err(MeshQueryError::ZeroLengthRay { from: p })
    );
    assert_eq!(m.raycast(p, Vec2::INFINITY, 0.5), not_finite("to"));
    assert_eq!(
        m.raycast(Vec2::new(5.0, 5.0), p, 0.5),
        Err(MeshQueryError::OffMesh {
            point: Vec2::new(5.0, 5.0)
        })
    );
    assert_eq!(
        m.nearest_wall(Vec2::new(50.0, 5.0)),
        Err(MeshQueryError::OffMesh {
            point: Vec2::new(50.0, 5.0)
        })
    );
    assert!(matches!(
        m.nearest_point_reachable(Vec2::new(0.2, 5.0), p, 0.5),
        Err(MeshQueryError::NoRoom { radius: 0.5, .. })
    ));
    assert_eq!(m.move_along_surface(p, p, 0.5).map(|s| s.position), Ok(p));
    assert!(m.random_point(&mut rng, -0.1).is_err());
    assert!(m.random_point_in_circle(&mut rng, nan, 1.0, 0.1).is_err());
    assert!(m
        .random_point_in_circle(&mut rng, p, f32::NAN, 0.1)
        .is_err());
    assert!(m
        .random_point_reachable(&mut rng, Vec2::new(5.0, 5.0), 0.1)
        .is_err());
    let mut out = vec![TriangleId(0)];
    assert!(m.triangles_in_circle(p, -1.0, &mut out).is_err());
    // A disc that fits nowhere: no point, no sample.
    assert_eq!(m.nearest_point(p, 6.0), Ok(None));
    assert_eq!(m.random_point(&mut rng, 6.0), Ok(None));
}

/// An arbitrary `f32`: any bit pattern half the time (NaN, infinities, subnormals,
/// huge), else a value near the room.
fn arbitrary(rng: &mut ChaCha8Rng) -> f32 {
    match rng.gen_range(0..4) {
        0 => f32::from_bits(rng.gen()),
        1 => [0.0, -0.0, f32::MIN_POSITIVE, 1e-30, 1e30, f32::MAX, 10.0][rng.gen_range(0..7)],
        _ => rng.gen_range(-5.0..15.0),
    }
}

#[test]
fn arbitrary_input_never_panics() {
    let m = room_with_pillar();
    let mut rng = ChaCha8Rng::seed_from_u64(0xf022);
    let mut out = Vec::new();
    for _ in 0..3000 {
        let p = Vec2::new(arbitrary(&mut rng), arbitrary(&mut rng));
        let q = Vec2::new(arbitrary(&mut rng), arbitrary(&mut rng));
        let r = arbitrary(&mut rng)
            .abs()
            .min(if rng.gen() { 3.0 } else { f32::MAX });
        let big = arbitrary(&mut rng);
        if let Ok(Some(n)) = m.nearest_point(p, r) {
            assert!(n.point.is_finite() && n.distance.is_finite() || !p.is_finite());
        }
        if let Ok(n) = m.nearest_point_reachable(p, q, r) {
            assert!(n.point.is_finite());
        }
        if let Ok(Some(h)) = m.raycast(p, q, r) {
            assert!(
                h.point.is_finite() && h.normal.is_finite() && (0.0..=1.0).contains(&h.fraction)
            );
        }
        let hint = TriangleId(rng.gen());
        assert_eq!(m.raycast_in(hint, p, q, r), m.raycast(p, q, r));
        if let Ok(s) = m.move_along_surface(p, q, r) {
            assert!(s.position.is_finite());
        }
        if let Ok(w) = m.nearest_wall(p) {
            assert!(w.point.is_finite() && w.normal.is_finite());
        }
        let _ = m.triangles_in_circle(p, big, &mut out);
        if r < 3.0 {
            if let Ok(Some(x)) = m.random_point_in_circle(&mut rng, p, big.min(50.0), r) {
                assert!(x.is_finite());
            }
        }
    }
}

#[test]
fn the_kept_boundary_settles_nearly_every_nearest_point_exactly() {
    // The boundary of the free space kept per radius answers on its own (no general
    // search) for nearly every query, and its answers are the exhaustive reference's.
    let mut rng = ChaCha8Rng::seed_from_u64(0xb0da);
    let (mut settled, mut moved, mut total) = (0, 0, 0);
    for _ in 0..6 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..30 {
            let p = anywhere(&mut rng);
            for r in RADII {
                let theirs = reference::nearest_point(&mesh, p, f64::from(r));
                if theirs.is_none() {
                    continue;
                }
                total += 1;
                let Some(fast) = mesh.nearest_on_boundary(p, f64::from(r)) else {
                    continue;
                };
                settled += 1;
                let (Some(o), Some(t)) = (fast, theirs) else {
                    panic!("{p} r = {r}: ours {fast:?}, reference {theirs:?}");
                };
                let (d, e) = (f64::from(o.distance), t.distance(p.as_dvec2()));
                assert!((d - e).abs() < 1e-4, "{p} r = {r}: {o:?} vs {t} ({e})");
                assert!(reference::fits(&mesh, o.point, f64::from(r)), "{o:?}");
                assert_eq!(mesh.locate(o.point), Location::Walkable(o.triangle));
                if d > 0.0 {
                    moved += 1;
                }
            }
        }
    }
    assert!(
        settled * 100 >= total * 97 && moved >= 400,
        "{settled} of {total} settled, {moved} moved"
    );
}

#[test]
fn radii_beyond_those_the_mesh_keeps_take_the_general_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5107);
    let mesh = random_mesh(&mut rng);
    let radii: Vec<f32> = (0..radius::MAX_RADII + 4)
        .map(|k| 0.05 + 0.1 * k as f32)
        .collect();
    for (k, &r) in radii.iter().enumerate() {
        assert_eq!(
            mesh.radius_index(f64::from(r)).is_some(),
            k < radius::MAX_RADII,
            "r = {r}"
        );
    }
    for _ in 0..40 {
        let p = anywhere(&mut rng);
        for &r in &radii {
            let ours = mesh.nearest_point(p, r).expect("valid query");
            let theirs = reference::nearest_point(&mesh, p, f64::from(r));
            match (ours, theirs) {
                (Some(o), Some(t)) => {
                    let (d, e) = (f64::from(o.distance), t.distance(p.as_dvec2()));
                    assert!((d - e).abs() < 1e-4, "{p} r = {r}: {o:?} vs {t} ({e})");
                }
                (None, None) => {}
                (o, t) => panic!("{p} r = {r}: ours {o:?}, reference {t:?}"),
            }
        }
    }
    // A disc wider than the mesh keeps data for is answered by the general search.
    let wide = 1.0 + radius::MAX_CELLS_WIDE as f32 * mesh.query_index().grid_cell;
    assert!(mesh.radius_index(f64::from(wide)).is_none());
    assert_eq!(mesh.nearest_point(Vec2::new(15.0, 15.0), wide), Ok(None));
}

#[test]
fn raycast_in_is_raycast_from_any_start_triangle() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1a7);
    let mut checked = 0;
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        let triangles = mesh.triangle_count() as u32;
        for _ in 0..40 {
            let r = RADII[rng.gen_range(0..RADII.len())];
            let Some(from) = free_point(&mut rng, &mesh, r) else {
                continue;
            };
            let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(0.1..25.0);
            let plain = mesh.raycast(from, to, r).expect("valid ray");
            let Location::Walkable(start) = mesh.locate(from) else {
                panic!("{from} is free");
            };
            let theirs = reference::raycast(&mesh, from, to, f64::from(r));
            assert_eq!(plain.map(|h| h.fraction).is_some(), theirs.is_some());
            // Its own triangle, any other, one that does not exist: the same answer.
            for hint in [
                start,
                TriangleId(rng.gen_range(0..triangles)),
                TriangleId(u32::MAX),
            ] {
                assert_eq!(mesh.raycast_in(hint, from, to, r), Ok(plain), "{hint:?}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "{checked}");
    let m = room_with_pillar();
    let (inside, p) = (Vec2::new(5.0, 5.0), Vec2::new(1.0, 1.0));
    for hint in [TriangleId(0), TriangleId(u32::MAX)] {
        assert_eq!(
            m.raycast_in(hint, inside, p, 0.5),
            Err(MeshQueryError::OffMesh { point: inside })
        );
        assert_eq!(
            m.raycast_in(hint, p, p, 0.5),
            Err(MeshQueryError::ZeroLengthRay { from: p })
        );
        assert_eq!(
            m.raycast_in(hint, Vec2::NAN, p, 0.5),
            Err(MeshQueryError::NotFinite { argument: "from" })
        );
        assert!(matches!(
            m.raycast_in(hint, p, inside, -1.0),
            Err(MeshQueryError::BadRadius { .. })
        ));
    }
}

/// A ray from a free point for radius `r` in a random direction, if a free point is found.
fn random_ray(rng: &mut ChaCha8Rng, mesh: &NavMesh, r: f32) -> Option<(Vec2, Vec2)> {
    let from = free_point(rng, mesh, r)?;
    let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(0.1..25.0);
    Some((from, to))
}

/// The grid search and the reference on one ray give the same first touch, and for
/// `r = 0` so does the walk through the triangles (which may decline: then `false`).
fn walk_agrees(mesh: &NavMesh, from: Vec2, to: Vec2, r: f32) -> bool {
    let Location::Walkable(start) = mesh.locate(from) else {
        panic!("{from} is not walkable");
    };
    let (s, e) = (from.as_dvec2(), to.as_dvec2());
    let grid = mesh.raycast_by_grid(s, e, f64::from(r));
    let theirs = reference::raycast(mesh, from, to, f64::from(r));
    assert_eq!(
        grid.map(|h| h.fraction),
        theirs.map(|t| t as f32),
        "{from} -> {to} r = {r}: grid"
    );
    if r > 0.0 {
        return false;
    }
    match mesh.raycast_walk(s, e, start.0) {
        Some(walk) => {
            assert_eq!(walk, grid, "{from} -> {to}: walk");
            true
        }
        None => false,
    }
}

#[test]
fn the_triangle_walk_is_the_grid_search_and_the_reference() {
    // The walk of a point (r = 0) through the triangles gives the exact first touch of
    // every wall, wall and all, and declines almost never.
    let mut rng = ChaCha8Rng::seed_from_u64(0x3a1c);
    let (mut walked, mut total, mut hits) = (0, 0, 0);
    for _ in 0..6 {
        let mesh = random_mesh(&mut rng);
        for _ in 0..60 {
            let r = 0.0;
            let Some((from, to)) = random_ray(&mut rng, &mesh, r) else {
                continue;
            };
            total += 1;
            walked += usize::from(walk_agrees(&mesh, from, to, r));
            hits += usize::from(reference::raycast(&mesh, from, to, f64::from(r)).is_some());
        }
    }
    assert!(
        total >= 300 && walked * 100 >= total * 99 && hits >= total / 4,
        "{walked} of {total} walked, {hits} hits"
    );
}

#[test]
fn the_triangle_walk_on_vertices_edges_and_walls() {
    // Rays along walls and edges, through vertices, from vertices and from walls: the
    // walk declines or gives the exact answer.
    let m = room_with_pillar();
    let points: Vec<Vec2> = [
        (0.0, 0.0),
        (4.0, 4.0),
        (6.0, 4.0),
        (2.0, 0.0),
        (1.0, 3.0),
        (3.0, 3.0),
        (5.0, 3.0),
        (9.0, 1.0),
        (2.0, 2.0),
        (8.0, 8.0),
        (10.0, 5.0),
        (4.0, 7.0),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .into();
    let mut walked = 0;
    for &from in &points {
        for &to in &points {
            if from == to || !matches!(m.locate(from), Location::Walkable(_)) {
                continue;
            }
            for to in [to, from + (to - from) * 3.0] {
                walked += usize::from(walk_agrees(&m, from, to, 0.0));
            }
        }
    }
    assert!(walked >= 60, "{walked}");
}

#[test]
fn the_triangle_walk_answers_for_the_mesh_after_an_edit() {
    // The walk reads the mesh as edited: the same answers as the grid search (whose
    // index each edit drops) and the reference.
    let mut rng = ChaCha8Rng::seed_from_u64(0xed17);
    let mut mesh = random_mesh(&mut rng);
    let rays: Vec<(Vec2, Vec2)> = (0..200)
        .map(|_| {
            let from = Vec2::new(rng.gen_range(0.5..29.5), rng.gen_range(0.5..29.5));
            (
                from,
                from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * 20.0,
            )
        })
        .collect();
    let check = |mesh: &NavMesh| {
        let mut checked = 0;
        for &(from, to) in &rays {
            for r in [0.0, 0.5] {
                if reference::fits(mesh, from, f64::from(r)) {
                    let ours = mesh.raycast(from, to, r).expect("valid ray");
                    let theirs = reference::raycast(mesh, from, to, f64::from(r));
                    assert_eq!(ours.map(|h| h.fraction), theirs.map(|t| t as f32));
                    walk_agrees(mesh, from, to, r);
                    checked += 1;
                }
            }
        }
        checked
    };
    assert!(check(&mesh) >= 100);
    let mut added = Vec::new();
    for k in 0..4 {
        let c = Vec2::new(4.0 + 6.0 * k as f32, 15.0);
        let square =
            [(-1.5, -1.5), (1.5, -1.5), (1.5, 1.5), (-1.5, 1.5)].map(|(x, y)| c + Vec2::new(x, y));
        if let Ok(id) = mesh.add_obstacle(&square) {
            added.push(id);
        }
        assert!(check(&mesh) >= 100);
    }
    assert!(!added.is_empty());
    for id in added {
        mesh.remove_obstacle(id).expect("remove");
        assert!(check(&mesh) >= 100);
    }
}

/// The walk's records mirror `mesh`: one per walkable triangle, with its corners, its
/// walls, and per open edge the record of the walkable neighbour across it and the
/// edge's index there.
fn assert_walk_mirrors(mesh: &NavMesh) {
    let walk = &mesh.query_index().walk;
    let walkable: Vec<TriangleId> = mesh.walkable_triangles().collect();
    assert_eq!(walk.records.len(), walkable.len());
    for t in mesh.triangles() {
        let Some(rec) = walk.of(t.0) else {
            assert!(!mesh.is_walkable(t), "{t:?} has no record");
            continue;
        };
        assert!(mesh.is_walkable(t), "{t:?} is blocked");
        assert_eq!(rec.p, mesh.triangle_points(t));
        for e in 0..3 {
            assert_eq!(rec.walls & (1 << e) != 0, mesh.is_wall(t, e), "{t:?} {e}");
            let across = mesh
                .neighbor(t, e)
                .filter(|&n| mesh.is_walkable(n) && !mesh.is_wall(t, e));
            match across {
                None => assert_eq!(rec.next[e], walk::CLOSED, "{t:?} {e}"),
                Some(n) => {
                    let (slot, k) = (rec.next[e] >> 2, (rec.next[e] & 3) as usize);
                    assert_eq!(Some(slot), walk.slot.get(n.index()).copied());
                    let theirs = walk.records[slot as usize];
                    // The same edge, the other way round.
                    assert_eq!(theirs.p[k], rec.p[(e + 1) % 3]);
                    assert_eq!(theirs.p[(k + 1) % 3], rec.p[e]);
                }
            }
        }
    }
}

#[test]
fn the_walk_records_mirror_the_mesh_before_and_after_edits() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x3ec0);
    for _ in 0..4 {
        let mut mesh = random_mesh(&mut rng);
        assert_walk_mirrors(&mesh);
        let mut added = Vec::new();
        for _ in 0..3 {
            let c = Vec2::new(rng.gen_range(3.0..27.0), rng.gen_range(3.0..27.0));
            let square = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(x, y)| c + Vec2::new(x, y));
            if let Ok(id) = mesh.add_obstacle(&square) {
                added.push(id);
                // Dropped by the edit, built again for the edited mesh.
                assert_walk_mirrors(&mesh);
            }
        }
        for id in added {
            mesh.remove_obstacle(id).expect("remove");
            assert_walk_mirrors(&mesh);
        }
    }
}

#[test]
fn the_walks_point_location_is_the_meshs_or_declines() {
    // Located on the records from the locator's hint or any other triangle: the
    // triangle `locate` finds, or no answer (about on an edge, or no walkable way).
    let mut rng = ChaCha8Rng::seed_from_u64(0x10ca7e);
    let (mut found, mut walkable) = (0, 0);
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        let walk = &mesh.query_index().walk;
        let triangles = mesh.triangle_count() as u32;
        for _ in 0..400 {
            let p = anywhere(&mut rng);
            let located = mesh.locate(p);
            walkable += usize::from(matches!(located, Location::Walkable(_)));
            let own = mesh.locator.hint(p, mesh.triangle_count());
            for hint in [own, rng.gen_range(0..triangles), u32::MAX] {
                if let Some(t) = walk.locate_strictly(p.as_dvec2(), hint) {
                    assert_eq!(
                        located,
                        Location::Walkable(TriangleId(t)),
                        "{p} from {hint}"
                    );
                    found += usize::from(hint == own);
                }
            }
        }
    }
    // From the locator's hint it answers for most walkable points.
    assert!(found * 10 >= walkable * 8, "{found} of {walkable}");
}

/// Rays that test a grid of cells of side `cell` from `origin` hardest: along the
/// cells' lines, through their corners, diagonal and axis-aligned, from anywhere.
fn grid_rays(rng: &mut ChaCha8Rng, cell: f32) -> Vec<(Vec2, Vec2)> {
    let mut rays = Vec::new();
    for _ in 0..150 {
        let from = anywhere(rng);
        let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(0.1..40.0);
        rays.push((from, to));
    }
    for k in 0..30 {
        // On a multiple of the cell side (a cell line, if the origin is on one too).
        let at = |x: f32| (x / cell).round() * cell;
        let (x, y) = (at(rng.gen_range(0.0..30.0)), at(rng.gen_range(0.0..30.0)));
        let len = rng.gen_range(1.0..30.0);
        let to = match k % 4 {
            0 => Vec2::new(x + len, y),
            1 => Vec2::new(x, y - len),
            2 => Vec2::new(x + len, y + len),
            _ => Vec2::new(x - len, y + len),
        };
        rays.push((Vec2::new(x, y), to));
    }
    rays
}

#[test]
fn the_ray_grid_is_the_grid_search_and_the_reference_from_any_start() {
    // Built for every radius (0 included) and cells from tiny to wide, the walk of the
    // cells along the ray gives the wall search's answer to the bit, from free starts
    // and from starts inside walls' reach or obstacles, along cell lines and through
    // cell corners.
    let mut rng = ChaCha8Rng::seed_from_u64(0x7a49);
    let (mut hits, mut total) = (0, 0);
    for _ in 0..3 {
        let mesh = random_mesh(&mut rng);
        let index = mesh.query_index();
        for &r in &RADII {
            let r = f64::from(r);
            for cell in [0.05, 0.5, 1.0, 2.5, 40.0] {
                let grid = ray::RayGrid::new(r, &index.walls, index.lo, index.hi, cell);
                for (from, to) in grid_rays(&mut rng, cell as f32) {
                    let (s, e) = (from.as_dvec2(), to.as_dvec2());
                    let Some(found) = grid.first_touch(s, e - s) else {
                        // Only a start outside the walls' box grown by the reach.
                        assert!(
                            s.cmplt(index.lo - r).any() || s.cmpgt(index.hi + r).any(),
                            "{from} -> {to} r = {r} cell {cell}: declined"
                        );
                        continue;
                    };
                    let ours = found.map(|(t, _, wall)| ray_hit(s, e - s, t, wall, r));
                    let search = mesh.raycast_by_grid(s, e, r);
                    assert_eq!(ours, search, "{from} -> {to} r = {r} cell {cell}");
                    let theirs = reference::raycast(&mesh, from, to, r);
                    assert_eq!(ours.map(|h| h.fraction), theirs.map(|t| t as f32));
                    total += 1;
                    hits += usize::from(ours.is_some());
                }
            }
        }
    }
    assert!(
        total >= 10_000 && hits >= total / 4,
        "{hits} hits of {total}"
    );
}

#[test]
fn raycasts_at_more_radii_than_the_mesh_keeps_are_exact() {
    // Past the radii whose ray grids the mesh keeps, and past the widest it builds one
    // for, the raycasts search the wall grid: the same answers.
    let mut rng = ChaCha8Rng::seed_from_u64(0x005e_ed0a);
    let mesh = random_mesh(&mut rng);
    let radii: Vec<f32> = (1..=radius::MAX_RADII as u32 + 4)
        .map(|k| 0.13 * k as f32)
        .chain([9.0])
        .collect();
    let mut checked = 0;
    for _ in 0..3 {
        for &r in &radii {
            let Some((from, to)) = random_ray(&mut rng, &mesh, r) else {
                continue;
            };
            let ours = mesh.raycast(from, to, r).expect("valid ray");
            let theirs = reference::raycast(&mesh, from, to, f64::from(r));
            assert_eq!(
                ours.map(|h| h.fraction),
                theirs.map(|t| t as f32),
                "r = {r}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn the_walkable_cells_vouch_only_for_walkable_points() {
    // On cells from tiny to wider than the room: every point of a marked cell is
    // walkable (points anywhere, at cell corners and sides, at vertices and on walls),
    // and most walkable points far from walls lie in marked cells.
    let mut rng = ChaCha8Rng::seed_from_u64(0x3a1_ce11);
    let (mut vouched, mut walkable) = (0, 0);
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        let index = mesh.query_index();
        for cell in [0.02, 0.3, 1.0, 4.0, 50.0] {
            let cells = walkable::WalkableCells::new(&mesh, index.lo, index.hi, cell);
            let points = probe_points(&mut rng, &mesh, &index.walls, 1500, Some(cell as f32));
            for p in points {
                let located = mesh.locate(p);
                if cells.surely_walkable(p.as_dvec2()) {
                    assert!(
                        matches!(located, Location::Walkable(_)),
                        "{p} cell {cell}: {located:?}"
                    );
                }
                // (Cells are at least a thousandth of the map's scale wide: 0.034 here.)
                if (0.3..=1.0).contains(&cell)
                    && mesh.clearance(p).is_some_and(|c| c > 1.5 * cell as f32)
                {
                    walkable += 1;
                    vouched += usize::from(cells.surely_walkable(p.as_dvec2()));
                }
            }
            assert!(cells.marked_share() > 0.0 || cell > 30.0, "cell {cell}");
        }
    }
    // A point farther from every wall than a cell's diagonal lies in a marked cell.
    assert!(
        walkable >= 1000 && vouched == walkable,
        "{vouched} of {walkable}"
    );
}

#[test]
fn the_ray_grids_walkable_sub_cells_vouch_only_for_walkable_starts() {
    // Each ray grid's cells keep a bit per sub-cell wholly in walkable space: a start
    // the bits vouch for is walkable (points anywhere, on sub-cell lines, on vertices
    // and walls), gets the grid's answer, and most starts far from walls are vouched
    // for (on cells from tiny to wider than the room).
    let mut rng = ChaCha8Rng::seed_from_u64(0x5ab_ce11);
    let (mut vouched, mut far) = (0, 0);
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        let index = mesh.query_index();
        for cell in [0.05, 0.5, 2.5, 40.0] {
            let grid = ray::RayGrid::for_mesh(&mesh, 0.3, &index.walls, index.lo, index.hi, cell);
            let sub = (cell / 8.0) as f32;
            let points = probe_points(&mut rng, &mesh, &index.walls, 1500, Some(sub));
            for p in points {
                let d = DVec2::new(3.0, 1.0);
                let s = p.as_dvec2();
                let found = grid.first_touch_from_walkable(s, d);
                if found.is_some() {
                    assert!(
                        matches!(mesh.locate(p), Location::Walkable(_)),
                        "{p} cell {cell}"
                    );
                    assert_eq!(found, grid.first_touch(s, d), "{p} cell {cell}");
                }
                if (0.5..=2.5).contains(&cell) && mesh.clearance(p).is_some_and(|c| c > 1.5 * sub) {
                    far += 1;
                    vouched += usize::from(found.is_some());
                }
            }
        }
    }
    // A point farther from every wall than a sub-cell's diagonal is vouched for.
    assert!(far >= 1000 && vouched == far, "{vouched} of {far}");
}

#[test]
fn the_kept_cells_where_a_disc_fits_vouch_only_for_points_where_it_does() {
    // The per-radius cells clear of every wall by the radius: a point they vouch for is
    // walkable and at least the radius from every wall (points anywhere, at vertices and
    // on walls), and they vouch for some points at every radius the room has space for;
    // a point they call blocked is not walkable, and they call some so.
    let mut rng = ChaCha8Rng::seed_from_u64(0xf4ee);
    let mut blocked = 0;
    for _ in 0..4 {
        let mesh = random_mesh(&mut rng);
        let index = mesh.query_index();
        for r in RADII.into_iter().filter(|&r| r > 0.0) {
            let Some(kept) = mesh.radius_index(f64::from(r)) else {
                continue;
            };
            let points = probe_points(&mut rng, &mesh, &index.walls, 3000, None);
            let mut vouched = 0;
            for p in points {
                match kept.cell_class(p.as_dvec2()) {
                    radius::CellClass::Fits => {
                        vouched += 1;
                        assert!(reference::fits(&mesh, p, f64::from(r)), "{p} r = {r}");
                    }
                    radius::CellClass::Blocked => {
                        blocked += 1;
                        assert!(
                            !matches!(mesh.locate(p), Location::Walkable(_)),
                            "{p} r = {r}"
                        );
                    }
                    radius::CellClass::Unknown => {}
                }
            }
            assert!(vouched > 0 || r > 1.0, "r = {r}");
        }
    }
    assert!(blocked > 0);
}

#[test]
fn an_empty_ray_grid_keeps_no_marks_and_is_marked_again_without_harm() {
    // A frame too large for the grid's cells leaves it empty (every ray left to the
    // search): it keeps no sub-cells, and an edit's marking passes it by.
    let mut rng = ChaCha8Rng::seed_from_u64(0xe_e11);
    let mesh = random_mesh(&mut rng);
    let index = mesh.query_index();
    let (lo, hi) = (DVec2::splat(-1e9), DVec2::splat(1e9));
    let mut grid = ray::RayGrid::for_mesh(&mesh, 0.3, &index.walls, lo, hi, 1.0);
    let s = DVec2::new(1.0, 1.0);
    assert_eq!(grid.first_touch_from_walkable(s, DVec2::X), None);
    grid.remark(&mesh, &index.walls, &index.grid, &[(lo, hi), (s, s)]);
    assert_eq!(grid.first_touch_from_walkable(s, DVec2::X), None);
}
