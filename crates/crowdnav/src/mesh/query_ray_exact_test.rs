//! The disc raycast's whole answer against the exact reference, to the bit: hit or
//! clear, fraction, point, contact and normal (`raycast` and `raycast_in`), and the
//! wall (the ray grid's walk). The reference is the least `capsule_entry` over every
//! wall of the mesh, ties to the lowest wall index: what the walk of the ray grid
//! (`mesh/query_ray.rs`) answers, and what any faster route must answer too (the
//! point walk over the radius's kept boundary of `docs/benchmarks.md`, mesh queries,
//! with its fallback to the walk near ties and misses).
//!
//! Property tests over seeded random draws (the crate's tests draw from `ChaCha8Rng`;
//! a failure names its world, radius and ray): radii 0.5, 1 and 2.5 and odd ones;
//! starts anywhere, near walls (about `r` from them, a rounding off either way, and
//! inside their reach), near wall ends; rays grazing wall ends (tangent to the end's
//! circle of radius `r`, a rounding off either way), running along walls at `r`, and
//! ending just at their first touch; on random rooms, after random edits (the first
//! raycast after each), and on aurora when the shared data is there.

use super::*;
use crate::mesh::edit_test::{data_dir, quad, random_edit, random_room};
use crate::mesh::test_worlds::quad_room;
use crate::mesh::{EditError, MeshObstacleId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The first touch over every wall of `mesh` (its query index's walls, as the ray
/// grids number them): the wall's index, the time and the hit; `None`: clear. Walls
/// whose boxes lie farther than `r` and a metre from the segment's box cannot be
/// touched, and are passed over.
fn exact(mesh: &NavMesh, s: DVec2, e: DVec2, r: f64) -> Option<(u32, f64, RayHit)> {
    let d = e - s;
    let (lo, hi) = (s.min(e) - (r + 1.0), s.max(e) + (r + 1.0));
    let walls = &mesh.query_index().walls;
    let mut best: Option<(f64, u32)> = None;
    for (k, w) in walls.iter().enumerate() {
        let (a, b) = (w.a.as_dvec2(), w.b.as_dvec2());
        if a.min(b).cmpgt(hi).any() || a.max(b).cmplt(lo).any() {
            continue;
        }
        if let Some(t) = capsule_entry(s, d, a, b, r, 1.0) {
            if best.is_none_or(|(x, _)| t < x) {
                best = Some((t, k as u32));
            }
        }
    }
    let (t, k) = best?;
    let w = walls.get(k as usize)?;
    let hit = ray_hit(s, d, t, (w.a.as_dvec2(), w.b.as_dvec2()), r);
    Some((k, t, hit))
}

/// A hit's every number, as bits.
fn bits(h: RayHit) -> [u32; 7] {
    [
        h.fraction,
        h.point.x,
        h.point.y,
        h.contact.x,
        h.contact.y,
        h.normal.x,
        h.normal.y,
    ]
    .map(f32::to_bits)
}

/// Asserts that the raycasts from `from` to `to` at radius `r` give the reference's
/// answer to the bit: `raycast`, `raycast_in` from the start's triangle, and the ray
/// grid's walk (time and wall). `None` when `from` is not on the mesh (nothing to
/// compare); else whether the ray hits.
fn assert_exact(mesh: &NavMesh, from: Vec2, to: Vec2, r: f32, what: &str) -> Option<bool> {
    let Ok(ours) = mesh.raycast(from, to, r) else {
        return None;
    };
    let (s, e, r64) = (from.as_dvec2(), to.as_dvec2(), f64::from(r));
    let want = exact(mesh, s, e, r64);
    let at = || format!("{what}: {from:?} -> {to:?} r = {r}");
    assert_eq!(
        ours.map(bits),
        want.map(|(_, _, h)| bits(h)),
        "{}: raycast {ours:?}, reference {want:?}",
        at()
    );
    if let Location::Walkable(start) = mesh.locate(from) {
        let theirs = mesh
            .raycast_in(start, from, to, r)
            .expect("a walkable start");
        assert_eq!(theirs.map(bits), ours.map(bits), "{}: raycast_in", at());
    }
    if let Some(found) = mesh.ray_grid(r64).and_then(|g| g.first_touch(s, e - s)) {
        assert_eq!(
            found.map(|(t, k, _)| (t.to_bits(), k)),
            want.map(|(k, t, _)| (t.to_bits(), k)),
            "{}: the walk's time and wall",
            at()
        );
    }
    Some(want.is_some())
}

/// A wall's ends and left unit normal.
fn wall_frame(w: &Segment) -> (Vec2, Vec2, Vec2) {
    (w.a, w.b, (w.b - w.a).perp().normalize_or_zero())
}

/// A distance about `r`: exactly, a rounding off either way, a little off, or
/// anywhere within twice it (inside the walls' reach too).
fn about(rng: &mut ChaCha8Rng, r: f32) -> f32 {
    match rng.gen_range(0..6) {
        0 => r,
        1 => r * (1.0 + 1e-6),
        2 => r * (1.0 - 1e-6),
        3 => r * (1.0 + 1e-3),
        4 => r * (1.0 - 1e-3),
        _ => rng.gen_range(0.0..2.0 * r),
    }
}

/// A random ray at radius `r` on a mesh with walls `walls`, of one of the kinds the
/// module's notes list, from a box `lo..hi` holding the walls; half of them short (a
/// few radii: misses and near misses), half up to 0.6 of the box.
fn hard_ray(rng: &mut ChaCha8Rng, walls: &[Segment], r: f32, lo: Vec2, hi: Vec2) -> (Vec2, Vec2) {
    let anywhere =
        |rng: &mut ChaCha8Rng| Vec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
    let direction = |rng: &mut ChaCha8Rng| Vec2::from_angle(rng.gen_range(0.0..6.3));
    let span = (hi - lo).max_element();
    // Short (ending near the start's walls: near misses) or long.
    let length = |rng: &mut ChaCha8Rng| match rng.gen_bool(0.5) {
        true => rng.gen_range(0.01..4.0) * r.max(0.5),
        false => rng.gen_range(0.01..0.6) * span,
    };
    let Some(w) = (!walls.is_empty()).then(|| walls[rng.gen_range(0..walls.len())]) else {
        let from = anywhere(rng);
        return (from, from + direction(rng) * length(rng));
    };
    let (a, b, n) = wall_frame(&w);
    let side = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
    let end = if rng.gen_bool(0.5) { a } else { b };
    match rng.gen_range(0..6) {
        // Anywhere.
        0 => {
            let from = anywhere(rng);
            (from, from + direction(rng) * length(rng))
        }
        // Near a wall: towards it, away, along it, or anywhere.
        1 => {
            let from = a.lerp(b, rng.gen_range(0.0..=1.0)) + n * side * about(rng, r);
            let d = match rng.gen_range(0..4) {
                0 => -n * side,
                1 => n * side,
                2 => (b - a).normalize_or_zero(),
                _ => direction(rng),
            };
            (from, from + d * length(rng))
        }
        // Near a wall end.
        2 => {
            let from = end + direction(rng) * about(rng, r);
            (from, from + direction(rng) * length(rng))
        }
        // Grazing a wall end: along a tangent to its circle of radius about `r`,
        // ending past the tangent point or just at it.
        3 => {
            let from = anywhere(rng);
            let (to_end, rho) = (end - from, about(rng, r));
            let dist = to_end.length();
            if dist <= rho || dist == 0.0 {
                return (from, from + direction(rng) * length(rng));
            }
            let turn = (rho / dist).asin() * side;
            let along = Vec2::from_angle(turn).rotate(to_end / dist);
            let reach = dist * turn.cos();
            let stretch = match rng.gen_range(0..3) {
                0 => 1.0,
                1 => 1.0 + 1e-6,
                _ => rng.gen_range(1.0..2.5),
            };
            (from, from + along * reach * stretch)
        }
        // Along a wall at about `r` from it, from before its one end to past the other.
        4 => {
            let u = (b - a).normalize_or_zero();
            let off = n * side * about(rng, r);
            let (before, past) = (rng.gen_range(0.0..2.0 * r), rng.gen_range(0.0..2.0 * r));
            (a + off - u * before, b + off + u * past)
        }
        // Through a wall end's corner region, from near the other end.
        _ => {
            let from = if end == a { b } else { a } + n * side * about(rng, r);
            let to = end + direction(rng) * about(rng, r);
            (from, from + (to - from) * rng.gen_range(0.5..1.5))
        }
    }
}

/// The box of `mesh`'s vertices, grown by `grow`.
fn mesh_box(mesh: &NavMesh, grow: f32) -> (Vec2, Vec2) {
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &v in mesh.vertices() {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo - grow, hi + grow)
}

/// The radii of a world: 0.5, 1 and 2.5, and two odd ones (within the ray grids the
/// mesh keeps).
fn radii(rng: &mut ChaCha8Rng) -> [f32; 5] {
    [0.5, 1.0, 2.5, 0.37, rng.gen_range(0.05..3.0)]
}

/// Checks `count` hard rays at each radius of `radii` on `mesh`, drawn in the box
/// `lo..hi` from the walls that meet it, and returns how many were on the mesh and how
/// many of those hit.
fn check_rays(
    rng: &mut ChaCha8Rng,
    mesh: &NavMesh,
    radii: &[f32],
    count: usize,
    (lo, hi): (Vec2, Vec2),
    what: &str,
) -> (usize, usize) {
    let walls: Vec<Segment> = (mesh.query_index().walls.iter())
        .filter(|w| w.a.min(w.b).cmple(hi).all() && w.a.max(w.b).cmpge(lo).all())
        .copied()
        .collect();
    let (mut checked, mut hits) = (0, 0);
    for &r in radii {
        for k in 0..count {
            let (from, to) = hard_ray(rng, &walls, r, lo, hi);
            if from == to {
                continue;
            }
            let what = format!("{what} ray {k}");
            let Some(hit) = assert_exact(mesh, from, to, r, &what) else {
                continue;
            };
            checked += 1;
            hits += usize::from(hit);
            // Again, ending just at its touch (a touch at fraction 1).
            if let Some((_, t, _)) = exact(mesh, from.as_dvec2(), to.as_dvec2(), f64::from(r)) {
                let end = from + (to - from) * t as f32;
                if end != from {
                    assert_exact(mesh, from, end, r, &format!("{what}, cut at its touch"));
                }
            }
        }
    }
    (checked, hits)
}

#[test]
fn raycasts_are_the_first_touch_over_every_wall_to_the_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x21_2a7c);
    let (mut checked, mut hits) = (0, 0);
    for world in 0..6 {
        let count = rng.gen_range(10..40);
        let mesh = quad_room(&mut rng, count, 0.0..28.0, 0.3..4.0, |rng| {
            rng.gen_range(-1.0..1.0f32)
        });
        let radii = radii(&mut rng);
        let area = mesh_box(&mesh, 1.0);
        let (c, h) = check_rays(
            &mut rng,
            &mesh,
            &radii,
            400,
            area,
            &format!("world {world}"),
        );
        checked += c;
        hits += h;
    }
    assert!(
        checked >= 6_000 && hits >= checked / 4 && checked - hits >= checked / 20,
        "{hits} hits of {checked}"
    );
}

#[test]
fn raycasts_after_edits_are_the_first_touch_over_every_wall_to_the_bit() {
    // The ray grids built before the edits, then after each add, move or remove the
    // first raycasts (those that bring the grids up to date) and the next.
    let mut rng = ChaCha8Rng::seed_from_u64(0x21_ed17);
    let (mut checked, mut edits) = (0, 0);
    for world in 0..4 {
        let (_, mut mesh) = random_room(&mut rng, 8, world % 2 == 1);
        let radii = radii(&mut rng);
        let area = mesh_box(&mesh, 1.0);
        check_rays(&mut rng, &mesh, &radii, 20, area, &format!("world {world}"));
        let mut live: Vec<MeshObstacleId> = Vec::new();
        for step in 0..20 {
            let op = rng.gen_range(0..4);
            let size = rng.gen_range(0.5..5.0);
            match random_edit(&mut mesh, &mut live, &mut rng, op, |r| quad(r, size)) {
                Ok(()) => edits += 1,
                Err(EditError::Degenerate { .. } | EditError::OutsideMesh { .. }) => continue,
                Err(e) => panic!("world {world} step {step}: {e}"),
            }
            let what = format!("world {world} step {step}");
            checked += check_rays(&mut rng, &mesh, &radii, 40, area, &what).0;
        }
    }
    assert!(
        edits >= 40 && checked >= 8_000,
        "{edits} edits, {checked} rays"
    );
}

#[test]
fn on_aurora_raycasts_are_the_first_touch_over_every_wall_to_the_bit() {
    let Some(dir) = data_dir() else {
        return;
    };
    let base = crate::mesh::read_walls(&dir.join("polyanya-v2/aurora.mesh")).expect("aurora");
    let mut mesh = NavMesh::from_walls(&base).expect("aurora builds");
    let mut rng = ChaCha8Rng::seed_from_u64(0x21_a0);
    let radii = [0.5, 1.0, 2.5, 1.37];
    let area = mesh_box(&mesh, 1.0);
    let (checked, hits) = check_rays(&mut rng, &mesh, &radii, 1_500, area, "aurora");
    assert!(
        checked >= 3_000 && hits >= checked / 4 && checked - hits >= checked / 20,
        "{hits} hits of {checked}"
    );
    // After edits: boxes added, moved and removed, the rays cast round each edit's
    // place, the first raycasts after it included.
    let (lo, hi) = mesh_box(&mesh, -50.0);
    let mut live: Vec<MeshObstacleId> = Vec::new();
    let mut after = 0;
    for step in 0..6 {
        let c = Vec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
        let size = rng.gen_range(2.0..8.0);
        let op = rng.gen_range(0..4);
        let polygon = |rng: &mut ChaCha8Rng| crate::mesh::edit_test::corners_around(rng, c, size);
        match random_edit(&mut mesh, &mut live, &mut rng, op, polygon) {
            Ok(()) => {}
            Err(EditError::Degenerate { .. } | EditError::OutsideMesh { .. }) => continue,
            Err(e) => panic!("aurora edit {step}: {e}"),
        }
        let near = (c - 4.0 * size, c + 4.0 * size);
        after += check_rays(
            &mut rng,
            &mesh,
            &radii,
            100,
            near,
            &format!("aurora edit {step}"),
        )
        .0;
    }
    assert!(after >= 400, "{after} rays after edits");
}
