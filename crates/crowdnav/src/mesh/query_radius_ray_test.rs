//! The kept boundary (`mesh/query_radius.rs`) as a disc raycast would walk it, as a
//! point against the kept pieces: the rule of `docs/benchmarks.md` (mesh queries, the
//! entry on prototype B made exact) that says when the first crossing settles the
//! first touch exactly and when the ray must take the walk over every wall instead.
//! Here in `f64` over every piece near the ray; the raycast does not use it yet.
//!
//! The bound. Let `S` be the index's scale (1 + r + the frame's largest coordinate).
//! A kept piece lies within `ε = τ + 2^-23 S + 1e-12 S` of its wall's offset: `τ =
//! 1e-6 S` is the tolerance a piece is kept to (`Boundary::free`), `2^-23 S` covers
//! the pieces rounded to `f32` (as a raycast's listings would keep them) and the
//! crossings' `f64` arithmetic is far below `1e-12 S`. A crossing at angle `θ` to its
//! piece is then off by at most `ε / sin θ` along the ray. With `σ = 4ε` and the
//! margin `m = 2σ / |d|` in time, the answer is the least `capsule_entry` (ties to the
//! lower index) over the walls of the pieces crossed up to the first crossing `t1`
//! (or 1) plus `m`; the walk over every wall instead when the start has less than
//! `r + σ` of clearance, or up to `t1 + 2m` a piece's end (a junction, or a crossing
//! kept alone) lies within `σ` of the ray, a segment piece is crossed with
//! `sin θ < ε / σ`, or the ray passes an arc's centre within `σ` of `r`.

use super::*;
use crate::geom::capsule_entry;
use crate::mesh::edit_test::data_dir;
use crate::mesh::test_worlds::quad_room;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// How the rule answered a ray.
#[derive(Default, Debug)]
struct Counts {
    /// Rays from starts with less than `r + σ` of clearance.
    not_free: usize,
    /// Rays that fall back on the walk over every wall.
    fallback: usize,
    /// Rays the rule settles (each answered as the reference answers it).
    settled: usize,
}

/// The first touch over every wall: time and wall, ties to the lower index.
fn first_touch(
    walls: &[(DVec2, DVec2)],
    ks: impl Iterator<Item = u32>,
    s: DVec2,
    d: DVec2,
    r: f64,
) -> Option<(u64, u32)> {
    let mut best: Option<(f64, u32)> = None;
    for k in ks {
        let Some(&(a, b)) = walls.get(k as usize) else {
            continue;
        };
        if let Some(t) = capsule_entry(s, d, a, b, r, 1.0) {
            if best.is_none_or(|(x, _)| t < x) {
                best = Some((t, k));
            }
        }
    }
    best.map(|(t, k)| (t.to_bits(), k))
}

/// Casts `rays` random rays at radius `r` on `mesh` through the rule.
fn cast(mesh: &NavMesh, r: f64, rays: usize, seed: u64) -> Counts {
    let index = mesh.radius_index(r).expect("the mesh keeps this radius");
    let walls: Vec<(DVec2, DVec2)> = (mesh.query_index().walls.iter())
        .map(|w| (w.a.as_dvec2(), w.b.as_dvec2()))
        .collect();
    let (mut lo, mut hi) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
    for &(a, b) in &walls {
        (lo, hi) = (lo.min(a.min(b)), hi.max(a.max(b)));
    }
    let eps = 1e-6 * index.scale + index.scale / f64::from(1u32 << 23) + 1e-12 * index.scale;
    let sigma = 4.0 * eps;
    // The walls of each piece: a segment's own, or those ending at an arc's centre.
    let mut at_end: HashMap<[u64; 2], Vec<u32>> = HashMap::new();
    for (k, &(a, b)) in walls.iter().enumerate() {
        for c in [a, b] {
            at_end
                .entry(c.to_array().map(f64::to_bits))
                .or_default()
                .push(k as u32);
        }
    }
    let mut owner: Vec<Vec<u32>> = vec![Vec::new(); index.pieces.len()];
    for (k, run) in index.wall_starts.windows(2).enumerate() {
        for walls in &mut owner[run[0] as usize..run[1] as usize] {
            *walls = vec![k as u32];
        }
    }
    for (k, run) in index.end_starts.windows(2).enumerate() {
        let c = index.ends[k].to_array().map(f64::to_bits);
        for walls in &mut owner[run[0] as usize..run[1] as usize] {
            *walls = at_end.get(&c).cloned().unwrap_or_default();
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut counts = Counts::default();
    let mut cast = 0;
    while cast < rays {
        let s = DVec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
        if !matches!(mesh.locate(s.as_vec2()), Location::Walkable(_)) {
            continue;
        }
        cast += 1;
        let length = match rng.gen_bool(0.5) {
            true => rng.gen_range(0.1..4.0) * r,
            false => rng.gen_range(1.0..80.0),
        };
        let d = DVec2::from_angle(rng.gen_range(0.0..6.3)) * length;
        let clearance = (walls.iter())
            .map(|&(a, b)| closest_point(s, a, b).distance(s))
            .fold(f64::INFINITY, f64::min);
        if clearance < r + sigma {
            counts.not_free += 1;
            continue;
        }
        let dl = d.length();
        let m = 2.0 * sigma / dl;
        let e = s + d * (1.0 + m);
        let (blo, bhi) = (s.min(e) - sigma, s.max(e) + sigma);
        let near = |p: DVec2| closest_point(p, s, e).distance(p) <= sigma;
        let time = |p: DVec2| (p - s).dot(d) / (dl * dl);
        // Crossings (time, piece), and the times of what makes the ray fall back.
        let (mut crossings, mut doubts): (Vec<(f64, usize)>, Vec<f64>) = (Vec::new(), Vec::new());
        for (k, piece) in index.pieces.iter().enumerate() {
            let (plo, phi) = piece.bounds(r);
            if plo.cmpgt(bhi).any() || phi.cmplt(blo).any() {
                continue;
            }
            match *piece {
                Piece::Point(q) => doubts.extend(near(q).then(|| time(q))),
                Piece::Segment(a, b) => {
                    doubts.extend([a, b].into_iter().filter(|&p| near(p)).map(time));
                    let u = b - a;
                    let den = d.perp_dot(u);
                    if den == 0.0 {
                        continue;
                    }
                    let (t, v) = ((a - s).perp_dot(u) / den, (a - s).perp_dot(d) / den);
                    if (0.0..=1.0 + m).contains(&t) && (0.0..=1.0).contains(&v) {
                        if den.abs() / (dl * u.length()) < eps / sigma {
                            doubts.push(t);
                        }
                        crossings.push((t, k));
                    }
                }
                Piece::Arc {
                    center,
                    from,
                    to,
                    small,
                    full,
                } => {
                    if !full {
                        doubts.extend([from, to].into_iter().filter(|&p| near(p)).map(time));
                    }
                    let w = s - center;
                    let (qa, qb, qc) = (d.length_squared(), w.dot(d), w.length_squared() - r * r);
                    if (d.perp_dot(w).abs() / dl - r).abs() <= sigma {
                        doubts.push(-qb / qa);
                    }
                    let disc = qb * qb - qa * qc;
                    if disc <= 0.0 {
                        continue;
                    }
                    for t in [(-qb - disc.sqrt()) / qa, (-qb + disc.sqrt()) / qa] {
                        let u = s + d * t - center;
                        let (s0, s1) = ((from - center).perp_dot(u), u.perp_dot(to - center));
                        let on = full
                            || if small {
                                s0 >= 0.0 && s1 >= 0.0
                            } else {
                                !(s0 < 0.0 && s1 < 0.0)
                            };
                        if on && (0.0..=1.0 + m).contains(&t) {
                            crossings.push((t, k));
                        }
                    }
                }
            }
        }
        let t1 = crossings.iter().map(|c| c.0).fold(1.0, f64::min);
        if doubts.iter().any(|&t| t <= t1 + 2.0 * m) {
            counts.fallback += 1;
            continue;
        }
        let mut candidates: Vec<u32> = (crossings.iter())
            .filter(|c| c.0 <= t1 + m)
            .flat_map(|c| owner[c.1].iter().copied())
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let ours = first_touch(&walls, candidates.into_iter(), s, d, r);
        let theirs = first_touch(&walls, 0..walls.len() as u32, s, d, r);
        counts.settled += 1;
        assert_eq!(ours, theirs, "{s} + {d}, r = {r}: the rule's answer");
    }
    counts
}

#[test]
fn the_kept_boundary_settles_the_first_touch_of_a_ray_by_the_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for world in 0..3 {
        let mesh = quad_room(&mut rng, 30, 0.0..28.0, 0.3..4.0, |rng| {
            rng.gen_range(-1.0..1.0f32)
        });
        for r in [0.37, 0.5, 1.0, 2.5] {
            let c = cast(&mesh, r, 2_000, world);
            eprintln!("room {world}, r = {r}: {c:?}");
            let free = c.settled + c.fallback;
            assert!(
                c.settled >= 200 && c.fallback * 20 <= free,
                "room {world}, r = {r}: {c:?}"
            );
        }
    }
    let Some(dir) = data_dir() else {
        return;
    };
    let base = crate::mesh::read_walls(&dir.join("polyanya-v2/aurora.mesh")).expect("aurora");
    let mesh = NavMesh::from_walls(&base).expect("aurora builds");
    for r in [0.5, 1.0, 2.5] {
        let c = cast(&mesh, r, 2_000, 9);
        eprintln!("aurora, r = {r}: {c:?}");
        assert!(
            c.settled >= 1_500 && c.fallback * 50 <= c.settled + c.fallback,
            "aurora, r = {r}: {c:?}"
        );
    }
}
