//! The game-loop mesh queries on a real map, Polyanya's aurora (`polyanya-v2/aurora.mesh`,
//! StarCraft's Aurora: about 35 000 triangles), each against a brute-force reference
//! over every wall and triangle of the map, or against dense sampling. Skipped, saying
//! so, without the shared data; a failure with `CI=true`.

mod common;

use common::{data_dir, files_with_extension};
use crowdnav::geom::Segment;
use crowdnav::mesh::{read_walls, Location, NavMesh, TriangleId};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn aurora() -> Option<NavMesh> {
    let dir = data_dir()?;
    let path = files_with_extension(&dir.join("polyanya-v2"), "mesh", false)
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "aurora.mesh"))
        .expect("polyanya-v2/aurora.mesh in the shared data (see its MANIFEST)");
    let walls = read_walls(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(NavMesh::from_walls(&walls).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Everything the tests need from the map: the mesh, its walls and its box.
struct Map {
    mesh: NavMesh,
    walls: Vec<Segment>,
    lo: Vec2,
    hi: Vec2,
}

fn map() -> Option<Map> {
    let mesh = aurora()?;
    let walls: Vec<Segment> = mesh.walls().collect();
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &v in mesh.vertices() {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    Some(Map {
        mesh,
        walls,
        lo,
        hi,
    })
}

impl Map {
    fn anywhere(&self, rng: &mut ChaCha8Rng) -> Vec2 {
        Vec2::new(
            rng.gen_range(self.lo.x..self.hi.x),
            rng.gen_range(self.lo.y..self.hi.y),
        )
    }

    /// Distance to the nearest wall, over every wall, in `f64`.
    fn clearance(&self, p: Vec2) -> f64 {
        let x = p.as_dvec2();
        self.walls
            .iter()
            .map(|w| {
                let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
                let t = ((x - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                x.distance(a + (b - a) * t)
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn fits(&self, p: Vec2, r: f32) -> bool {
        matches!(self.mesh.locate(p), Location::Walkable(_)) && self.clearance(p) >= f64::from(r)
    }

    /// A random point where a disc of radius `r` fits with a millimetre to spare.
    fn free_point(&self, rng: &mut ChaCha8Rng, r: f32) -> Vec2 {
        loop {
            let p = self.anywhere(rng);
            if matches!(self.mesh.locate(p), Location::Walkable(_))
                && self.mesh.clearance(p).is_some_and(|c| c >= r + 1e-3)
            {
                return p;
            }
        }
    }
}

const RADII: [f32; 4] = [0.0, 0.5, 1.0, 2.0];

#[test]
fn aurora_nearest_wall_is_the_nearest_of_every_wall() {
    let Some(m) = map() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut checked = 0;
    for _ in 0..300 {
        let p = m.anywhere(&mut rng);
        let Ok(w) = m.mesh.nearest_wall(p) else {
            continue;
        };
        let brute = m.clearance(p);
        assert!(
            (f64::from(w.distance) - brute).abs() < 1e-4,
            "{p}: {w:?} vs {brute}"
        );
        assert!((w.point.distance(p) - w.distance).abs() < 1e-3);
        checked += 1;
    }
    assert!(checked >= 250, "{checked}");
}

/// The first `t` in `[0, 1]` where a disc of radius `r` swept from `s` to `e` comes
/// within `r` of wall `w`: the distance is convex along the ray, so a ternary search
/// finds its least value and a bisection before it the crossing.
fn sweep_touch(w: Segment, s: Vec2, e: Vec2, r: f32) -> Option<f64> {
    let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
    let (s, e) = (s.as_dvec2(), e.as_dvec2());
    let dist = |t: f64| {
        let x = s + (e - s) * t;
        let u = ((x - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        x.distance(a + (b - a) * u)
    };
    let r = f64::from(r);
    if r == 0.0 {
        // The ray's crossing of the wall, if any.
        let (d, f) = (e - s, b - a);
        let den = d.perp_dot(f);
        if den == 0.0 {
            return None;
        }
        let (t, u) = ((a - s).perp_dot(f) / den, (a - s).perp_dot(d) / den);
        return ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then_some(t);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if dist(m1) <= dist(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let least = 0.5 * (lo + hi);
    if dist(least) >= r {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, least);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if dist(mid) < r {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[test]
fn aurora_raycasts_stop_at_the_first_touch_of_every_wall() {
    let Some(m) = map() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let (mut hits, mut clear) = (0, 0);
    for k in 0..400 {
        let r = RADII[k % RADII.len()];
        let from = m.free_point(&mut rng, r);
        let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(1.0..80.0);
        let ours = m.mesh.raycast(from, to, r).expect("a valid ray");
        // Walls whose boxes are out of the swept box's reach cannot be touched.
        let (lo, hi) = (
            from.min(to) - Vec2::splat(r + 1.0),
            from.max(to) + Vec2::splat(r + 1.0),
        );
        let brute = m
            .walls
            .iter()
            .filter(|w| w.a.min(w.b).cmple(hi).all() && w.a.max(w.b).cmpge(lo).all())
            .filter_map(|&w| sweep_touch(w, from, to, r))
            .reduce(f64::min);
        match (ours, brute) {
            (None, None) => clear += 1,
            (Some(h), Some(t)) => {
                assert!(
                    (f64::from(h.fraction) - t).abs() < 1e-5,
                    "{from} -> {to}, r = {r}: {h:?} vs {t}"
                );
                hits += 1;
            }
            (o, b) => panic!("{from} -> {to}, r = {r}: ours {o:?}, brute force {b:?}"),
        }
    }
    assert!(hits >= 100 && clear >= 50, "{hits} hits, {clear} clear");
}

#[test]
fn aurora_nearest_points_fit_and_no_sample_nearer_does() {
    let Some(m) = map() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut moved = 0;
    for k in 0..120 {
        let r = RADII[k % RADII.len()];
        let p = m.anywhere(&mut rng);
        let near = m
            .mesh
            .nearest_point(p, r)
            .expect("a valid query")
            .expect("aurora has room for every radius tried");
        assert!(m.fits(near.point, r), "{p}, r = {r}: {near:?}");
        assert!(m.mesh.clearance(near.point).expect("walkable") >= r);
        if near.distance == 0.0 {
            continue;
        }
        moved += 1;
        // Dense samples of the disc around p out to the answer: none fits nearer.
        for _ in 0..400 {
            let s = p + Vec2::from_angle(rng.gen_range(0.0..6.3))
                * near.distance
                * rng.gen_range(0.0f32..1.0).sqrt();
            if s.distance(p) < near.distance - 1e-3 {
                assert!(
                    !m.fits(s, r + 1e-4),
                    "{p}, r = {r}: {s} fits nearer than {near:?}"
                );
            }
        }
    }
    assert!(moved >= 40, "{moved}");
}

#[test]
fn aurora_slides_and_random_points_keep_the_disc_free() {
    let Some(m) = map() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    for k in 0..200 {
        let r = RADII[k % RADII.len()];
        let from = m.free_point(&mut rng, r);
        let to = from + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(0.0..30.0);
        let slide = m
            .mesh
            .move_along_surface(from, to, r)
            .expect("a valid move");
        assert!(
            m.fits(slide.position, r - 1e-4),
            "{from} -> {to}, r = {r}: {slide:?}"
        );
        let p = m
            .mesh
            .random_point(&mut rng, r)
            .expect("a valid radius")
            .expect("room");
        assert!(m.fits(p, r), "r = {r}: {p}");
        let c = m.anywhere(&mut rng);
        if let Some(q) = m
            .mesh
            .random_point_in_circle(&mut rng, c, 40.0, r)
            .expect("valid")
        {
            assert!(q.distance(c) <= 40.0 && m.fits(q, r), "{c}, r = {r}: {q}");
        }
    }
}

#[test]
fn aurora_triangles_in_a_circle_are_every_one_it_meets() {
    let Some(m) = map() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    let mut out = Vec::new();
    for _ in 0..40 {
        let c = m.anywhere(&mut rng);
        let big = rng.gen_range(0.0..30.0f32);
        m.mesh.triangles_in_circle(c, big, &mut out).expect("valid");
        let meets = |t: TriangleId| {
            let [a, b, d] = m.mesh.triangle_points(t);
            crowdnav::geom::point_in_triangle(c, a, b, d)
                || (0..3).any(|e| m.mesh.edge_segment(t, e).distance(c) <= big)
        };
        let brute: Vec<TriangleId> = m.mesh.walkable_triangles().filter(|&t| meets(t)).collect();
        assert_eq!(out, brute, "{c}, {big}");
    }
}

#[test]
fn aurora_raycast_in_from_the_nearest_points_triangle_is_raycast() {
    // The game loop's pairing, as Detour's findNearestPoly then raycast: the triangle of
    // a snapped point starts the ray; any other start gives the same answer too.
    let Some(m) = map() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    let triangles = m.mesh.triangle_count() as u32;
    let mut hits = 0;
    for k in 0..300 {
        let r = RADII[k % RADII.len()];
        let p = m.anywhere(&mut rng);
        let near = m
            .mesh
            .nearest_point(p, r)
            .expect("a valid query")
            .expect("aurora has room for every radius tried");
        let to = near.point + Vec2::from_angle(rng.gen_range(0.0..6.3)) * rng.gen_range(1.0..60.0);
        let plain = m.mesh.raycast(near.point, to, r).expect("a valid ray");
        hits += usize::from(plain.is_some());
        for start in [near.triangle, TriangleId(rng.gen_range(0..triangles))] {
            assert_eq!(
                m.mesh.raycast_in(start, near.point, to, r),
                Ok(plain),
                "{p}, r = {r}: from {near:?} to {to}"
            );
        }
    }
    assert!(hits >= 50, "{hits}");
}
