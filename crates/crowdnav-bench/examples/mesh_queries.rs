//! One of the queries part's mesh queries on aurora, alone, at one radius: a small
//! binary for profilers (callgrind counts one query kind without the others') and for
//! checking that a change leaves every answer as it was (it prints a digest of all the
//! answers' bits).
//!
//! ```text
//! cargo run --release -p crowdnav-bench [--features detour] --example mesh_queries -- \
//!     KIND[,KIND...] [RADIUS] [COUNT] [BATCHES]
//! ```
//!
//! `KIND`: one or more, comma-separated (their batches taken in turn, so that each
//! sees the same load; times relative to the first's): `raycast`, `raycast_in` (start triangle given), `locate`, `nearest`,
//! `random`, or with `--features detour` Detour's `detour_raycast`, `detour_nearest`,
//! `detour_random`. The queries are the queries part's (`crowdnav_bench::queries`);
//! without the feature the rays' starts are not filtered on Detour's navmesh, so they
//! differ a little from those of a run with it. Without the benchmark data (`CROWDNAV_DATA`,
//! default `../shared/data`) it says it skipped and exits 0.

use crowdnav::mesh::Location;
use crowdnav_bench::data::data_dir;
use crowdnav_bench::queries::{warm_up, Setup, SplitMix};
use glam::Vec2;
use std::time::Instant;

/// FNV-1a over 64-bit words: a digest of the answers.
#[derive(Clone)]
struct Digest(u64);

impl Digest {
    fn add(&mut self, x: u64) {
        for byte in x.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn vec(&mut self, v: Vec2) {
        self.add(u64::from(v.x.to_bits()) << 32 | u64::from(v.y.to_bits()));
    }
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kinds = args.first().map_or("raycast_in", String::as_str).to_owned();
    let number = |i: usize, default: f64| -> Result<f64, String> {
        args.get(i).map_or(Ok(default), |s| {
            s.parse().map_err(|_| format!("cannot read {s:?}"))
        })
    };
    let radius = number(1, 1.0)? as f32;
    let count = (number(2, 20_000.0)? as usize).max(1);
    let batches = (number(3, 5.0)? as usize).max(1);
    let dir = match data_dir() {
        Ok(dir) => dir,
        Err(why) => {
            println!("skipped mesh_queries: {why}");
            return Ok(());
        }
    };
    let setup = Setup::new(&dir, radius, count)?;
    let (mesh, input) = (&setup.mesh, &setup.inputs);
    #[cfg(feature = "detour")]
    let detour = &setup.detour;
    let starts = setup.start_triangles();
    #[cfg(feature = "detour")]
    let polys = setup.start_polygons();
    // The per-radius data, built outside the batches.
    warm_up(mesh, input, radius);
    let kinds: Vec<&str> = kinds.split(',').collect();
    let mut digests = vec![Digest(0xcbf2_9ce4_8422_2325); kinds.len()];
    let mut bests = vec![f64::INFINITY; kinds.len()];
    for batch in 0..batches {
        for (k, &kind) in kinds.iter().enumerate() {
            let first = batch == 0;
            let digest = &mut digests[k];
            let t0 = Instant::now();
            match kind {
                "raycast" | "raycast_in" => {
                    for (&(a, b), &t) in input.rays.iter().zip(&starts) {
                        let hit = if kind == "raycast" {
                            mesh.raycast(a, b, radius)
                        } else {
                            mesh.raycast_in(t, a, b, radius)
                        };
                        let hit = std::hint::black_box(hit).map_err(|e| e.to_string())?;
                        if first {
                            match hit {
                                Some(h) => {
                                    digest.add(u64::from(h.fraction.to_bits()));
                                    digest.vec(h.point);
                                    digest.vec(h.contact);
                                    digest.vec(h.normal);
                                }
                                None => digest.add(u64::MAX),
                            }
                        }
                    }
                }
                "locate" => {
                    for &(a, _) in &input.rays {
                        let at = std::hint::black_box(mesh.locate(a));
                        if first {
                            digest.add(match at {
                                Location::Walkable(t) => u64::from(t.0),
                                Location::Blocked(t) => 1 << 40 | u64::from(t.0),
                                Location::Outside => u64::MAX,
                            });
                        }
                    }
                }
                "nearest" => {
                    for &p in &input.points {
                        let near = std::hint::black_box(mesh.nearest_point(p, radius))
                            .map_err(|e| e.to_string())?;
                        if first {
                            match near {
                                Some(n) => {
                                    digest.vec(n.point);
                                    digest.add(u64::from(n.distance.to_bits()));
                                    digest.add(u64::from(n.triangle.0));
                                }
                                None => digest.add(u64::MAX),
                            }
                        }
                    }
                }
                "random" => {
                    let mut rng = SplitMix::new(7);
                    for _ in 0..count {
                        let p = std::hint::black_box(mesh.random_point(&mut rng, radius))
                            .map_err(|e| e.to_string())?;
                        if first {
                            digest.vec(p.unwrap_or(Vec2::NAN));
                        }
                    }
                }
                #[cfg(feature = "detour")]
                "detour_raycast" => {
                    for (&(a, b), &s) in input.rays.iter().zip(&polys) {
                        let t = std::hint::black_box(detour.raycast(s, a, b));
                        if first {
                            digest.add(t.map_or(u64::MAX, |t| u64::from(t.to_bits())));
                        }
                    }
                }
                #[cfg(feature = "detour")]
                "detour_nearest" => {
                    for &p in &input.points {
                        let n = std::hint::black_box(detour.nearest(p, 8.0));
                        if first {
                            digest.vec(n.map_or(Vec2::NAN, |(_, q)| q));
                        }
                    }
                }
                #[cfg(feature = "detour")]
                "detour_random" => {
                    crowdnav_bench::detour::DetourQueries::seed(7);
                    for _ in 0..count {
                        let p = std::hint::black_box(detour.random_point());
                        if first {
                            digest.vec(p.unwrap_or(Vec2::NAN));
                        }
                    }
                }
                other => return Err(format!("unknown query kind {other:?}")),
            }
            bests[k] = bests[k].min(t0.elapsed().as_secs_f64());
        }
    }
    for (k, kind) in kinds.iter().enumerate() {
        println!(
            "{kind} r = {radius}: {count} queries, fastest of {batches} batches {:.3} µs a query ({:.2} x the first); digest {:016x}",
            1e6 * bests[k] / count as f64,
            bests[k] / bests[0],
            digests[k].0
        );
    }
    Ok(())
}
