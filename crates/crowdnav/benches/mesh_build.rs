//! Mesh build, baked-mesh save and load, and point location on real maps.
//!
//! Reads the Polyanya meshes from the shared data directory (`CROWDNAV_DATA`, default
//! `../shared/data` beside the repository); skips with a message when absent.
//!
//! ```text
//! cargo bench -p crowdnav --bench mesh_build
//! ```

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use crowdnav::mesh::{parse_polyanya_mesh, Location, NavMesh};
use glam::Vec2;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    std::env::var_os("CROWDNAV_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"))
        })
}

fn bench_mesh(c: &mut Criterion) {
    for name in ["arena", "aurora"] {
        let path = data_dir().join(format!("polyanya-v2/{name}.mesh"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!(
                "skipped {name}: {} not found (set CROWDNAV_DATA)",
                path.display()
            );
            continue;
        };
        let walls = parse_polyanya_mesh(&text).expect("the benchmark mesh imports");
        let mut group = c.benchmark_group(format!("mesh/{name}"));
        group.sample_size(20);
        // Build on one core: the figure the issue's goal is stated for.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("pool");
        group.bench_function("build_1_thread", |b| {
            b.iter(|| one.install(|| NavMesh::from_walls(&walls).expect("builds")))
        });
        group.bench_function("build", |b| {
            b.iter(|| NavMesh::from_walls(&walls).expect("builds"))
        });
        let mesh = NavMesh::from_walls(&walls).expect("builds");
        // A baked mesh: saving, and loading back (to compare with "build").
        let bytes = mesh.to_bytes();
        group.bench_function("to_bytes", |b| b.iter(|| mesh.to_bytes()));
        group.bench_function("from_bytes", |b| {
            b.iter(|| NavMesh::from_bytes(&bytes).expect("loads"))
        });
        let (lo, hi) = mesh.vertices().iter().fold(
            (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
            |(lo, hi), &v| (lo.min(v), hi.max(v)),
        );
        // A fixed low-discrepancy set of query points (no RNG needed).
        let points: Vec<Vec2> = (0..10_000)
            .map(|i| {
                let f = Vec2::new(
                    (i as f32 * 0.618_034).fract(),
                    (i as f32 * 0.754_878).fract(),
                );
                lo + (hi - lo) * f
            })
            .collect();
        let walkable = points
            .iter()
            .filter(|&&p| matches!(mesh.locate(p), Location::Walkable(_)))
            .count();
        assert!(walkable > 0, "some query points must be walkable");
        group.bench_function("locate_10k", |b| {
            b.iter(|| {
                points
                    .iter()
                    .filter(|&&p| matches!(mesh.locate(p), Location::Walkable(_)))
                    .count()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_mesh);
criterion_main!(benches);
