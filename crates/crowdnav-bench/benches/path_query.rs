//! Path queries on aurora: crowdnav against the `polyanya` crate, same mesh file.
//!
//! Each iteration of `aurora_r0/{crowdnav_all,polyanya_all}` answers the whole
//! `aurora.scen` query set (2 990 queries) at r = 0 and checks every answer against the
//! other library's, so a fast wrong answer cannot win. `aurora_every_10th/crowdnav_{r0,r1}`
//! answer every tenth query for a point and for a disc of radius 1 (r = 1 on the whole
//! set takes minutes a pass: a few wide-agent queries search most of the map), checked
//! against the first pass's answers and against r = 0 (a wider disc never finds a
//! shorter path).
//!
//! ```text
//! cargo bench -p crowdnav-bench --bench path_query
//! ```
//!
//! Per-query medians and ratios: `cargo run --release -p crowdnav-bench -- paths`.
//! Without the benchmark data (`CROWDNAV_DATA`, default `../shared/data`) it says it
//! skipped and exits 0.

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use crowdnav_bench::data::{data_dir, ScenQuery};
use crowdnav_bench::paths::{agree, PathWorld};
use std::time::Duration;

fn bench_paths(c: &mut Criterion) {
    let dir = match data_dir() {
        Ok(dir) => dir,
        Err(why) => {
            eprintln!("skipped path_query: {why}");
            return;
        }
    };
    let world = PathWorld::load(&dir, "aurora").expect("aurora loads");
    // Reference answers, computed once: the timed loops compare against them.
    let reference: Vec<Option<f64>> = world.queries.iter().map(|q| world.theirs(q)).collect();
    let ours_r0: Vec<Option<f64>> = world.queries.iter().map(|q| world.ours(q, 0.0)).collect();
    for (i, (a, b)) in ours_r0.iter().zip(&reference).enumerate() {
        assert!(
            agree(*a, *b),
            "aurora query {i}: ours {a:?}, polyanya {b:?}"
        );
    }

    let mut group = c.benchmark_group("aurora_r0");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("crowdnav_all", |b| {
        b.iter(|| {
            for (q, want) in world.queries.iter().zip(&reference) {
                let got = world.ours(q, 0.0);
                assert!(agree(got, *want), "{q:?}: ours {got:?}, polyanya {want:?}");
            }
        })
    });
    group.bench_function("polyanya_all", |b| {
        b.iter(|| {
            for (q, want) in world.queries.iter().zip(&ours_r0) {
                let got = world.theirs(q);
                assert!(agree(got, *want), "{q:?}: polyanya {got:?}, ours {want:?}");
            }
        })
    });
    group.finish();

    // r = 1 on every tenth query: checked against the first pass's answers, and no
    // wider path may be shorter than the point's.
    let tenth: Vec<(usize, &ScenQuery)> = world.queries.iter().enumerate().step_by(10).collect();
    let ours_r1: Vec<Option<f64>> = tenth.iter().map(|(_, q)| world.ours(q, 1.0)).collect();
    let mut group = c.benchmark_group("aurora_every_10th");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("crowdnav_r0", |b| {
        b.iter(|| {
            for &(i, q) in &tenth {
                let got = world.ours(q, 0.0);
                assert!(agree(got, reference[i]), "{q:?}: ours {got:?}");
            }
        })
    });
    group.bench_function("crowdnav_r1", |b| {
        b.iter(|| {
            for (&(i, q), want) in tenth.iter().zip(&ours_r1) {
                let r0 = &ours_r0[i];
                let got = world.ours(q, 1.0);
                assert!(agree(got, *want), "{q:?}: r=1 {got:?} then {want:?}");
                if let (Some(got), Some(r0)) = (got, r0) {
                    assert!(got >= r0 * (1.0 - 1e-9), "{q:?}: r=1 {got} < r=0 {r0}");
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_paths);
criterion_main!(benches);
