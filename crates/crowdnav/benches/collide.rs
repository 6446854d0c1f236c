//! The collision phase on 100 000 discs in a walled square.
//!
//! ```text
//! cargo bench -p crowdnav --bench collide
//! ```

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use crowdnav::collide::{Body, Resolver};
use crowdnav::geom::Segment;
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SIDE: f32 = 400.0;
const MARGIN: f32 = 0.2;

/// 100 000 discs: on a jittered lattice (a crowd in motion, few contacts) or dropped
/// at random (many deep overlaps).
fn bodies(random: bool) -> Vec<Body> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let n = 316;
    let step = SIDE / n as f32;
    (0..n * n)
        .map(|k| {
            let position = if random {
                Vec2::new(rng.gen_range(0.0..SIDE), rng.gen_range(0.0..SIDE))
            } else {
                let cell = Vec2::new((k % n) as f32, (k / n) as f32) + 0.5;
                cell * step + Vec2::new(rng.gen_range(-0.4..0.4), rng.gen_range(-0.4..0.4))
            };
            let velocity = Vec2::new(rng.gen_range(-1.5..1.5), rng.gen_range(-1.5..1.5));
            Body::new(position, velocity, rng.gen_range(0.25..0.35), 70.0)
        })
        .collect()
}

/// Sort-and-sweep broadphase with a margin; sorted `(i, j)`, `i < j`.
fn candidate_pairs(bodies: &[Body]) -> Vec<(u32, u32)> {
    let mut order: Vec<u32> = (0..bodies.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&bodies[a as usize], &bodies[b as usize]);
        a.position.x.total_cmp(&b.position.x)
    });
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let a = &bodies[i as usize];
        for &j in &order[k + 1..] {
            let b = &bodies[j as usize];
            if b.position.x - a.position.x > a.radius + 0.35 + MARGIN {
                break;
            }
            let reach = a.radius + b.radius + MARGIN;
            if a.position.distance_squared(b.position) <= reach * reach {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

fn bench_collide(c: &mut Criterion) {
    let (a, b, cc, d) = (
        Vec2::ZERO,
        Vec2::new(SIDE, 0.0),
        Vec2::splat(SIDE),
        Vec2::new(0.0, SIDE),
    );
    let walls = [
        Segment::new(a, b),
        Segment::new(b, cc),
        Segment::new(cc, d),
        Segment::new(d, a),
    ];
    let mut group = c.benchmark_group("collide");
    group.sample_size(20);
    for (name, random) in [("lattice_100k", false), ("random_100k", true)] {
        let start = bodies(random);
        let pairs = candidate_pairs(&start);
        let wall_candidates: Vec<(u32, u32)> = start
            .iter()
            .enumerate()
            .flat_map(|(i, body)| {
                (0..4u32)
                    .filter(move |&w| {
                        walls[w as usize].distance(body.position) < body.radius + MARGIN
                    })
                    .map(move |w| (i as u32, w))
            })
            .collect();
        let mut resolver = Resolver::default();
        let mut events = Vec::new();
        group.bench_function(name, |bench| {
            bench.iter_batched_ref(
                || start.clone(),
                |work| {
                    events.clear();
                    let summary =
                        resolver.resolve(work, &pairs, &walls, &wall_candidates, &mut events);
                    assert!(summary.converged, "{summary:?}");
                    summary
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_collide);
criterion_main!(benches);
