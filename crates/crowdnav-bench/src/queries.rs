//! The game-loop mesh queries on aurora: crowdnav's `raycast`, `nearest_point` and
//! `random_point` for a disc of radius `r`, on its one mesh, against Detour's
//! `raycast`, `findNearestPoly` and `findRandomPoint` (feature `detour`) on a navmesh of
//! the same walkable triangles eroded by `r`, the way the crowd part builds DetourCrowd's.
//!
//! **What is timed.** Each side answers the same seeded queries in a batch; the batch
//! is run once to warm up, then `reps` times, and the fastest run kept (the machine may
//! be shared); time per query = batch time / count. For the raycasts (`raycast`, and
//! `raycast_in` against Detour's raycast timed again) the two sides' batches
//! alternate, each side first in every other round, so that both meet the same load.
//! Our first query at the radius,
//! which builds the mesh's query data for it, is timed apart
//! ([`Queries::first_query_ms`]), as Detour's navmesh build is not timed.
//! - raycast: from a random point where the disc fits (and that lies on Detour's
//!   navmesh) to a point 2–40 m away in a random direction. Detour is handed the start
//!   polygon (found beforehand, untimed); ours checks the start itself (`raycast`: one
//!   bit kept with the ray grid's cell, for a start in a sub-cell wholly in walkable
//!   space, else a point location), or is handed its start triangle (`raycast_in`,
//!   found beforehand, untimed: the like of Detour's, though with those bits it mostly
//!   goes unused).
//!   Detour's raycast is a point's on its eroded navmesh at every radius; ours sweeps
//!   the disc. Point location alone on the same starts is a row of its own.
//! - nearest point: a point uniform over the map's box (many inside obstacles). Detour
//!   searches a box of half-width [`NEAREST_REACH`] and may find nothing; ours searches
//!   the whole mesh.
//! - random point: Detour's uses its own `frand`, ours a `RngCore`, both [`SplitMix`].
//!
//! **What differs.** Detour works on polygons with the radius baked in by erosion
//! (here on a grid of 1 m cells, so the free space is rounded to whole cells), its
//! raycast is a point walking those polygons, its nearest point the nearest on a
//! polygon within the box. Ours are exact for the disc on the un-eroded mesh, for any
//! radius without a rebuild. The checks in the loop: each of our answers is verified
//! (the disc fits where we say), and the share of rays both sides call clear or blocked
//! alike is reported.

use crowdnav::mesh::{read_walls, Location, NavMesh, TriangleId};
use glam::Vec2;
use rand::RngCore;
use std::path::Path;

/// The map of the queries part, inside the data directory.
pub const QUERY_MAP: &str = "polyanya-v2/aurora.mesh";

/// Half-width of Detour's search box for the nearest polygon, metres.
pub const NEAREST_REACH: f32 = 8.0;

/// SplitMix64: a small, fast generator, the same for both sides.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// The generator from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }
}

impl RngCore for SplitMix {
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// The fastest of `reps` runs of `f`, in seconds, and its last result: on a shared
/// machine the fastest batch is the one least disturbed by other work.
fn fastest<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = std::hint::black_box(f());
    for _ in 0..reps.max(1) {
        let t0 = std::time::Instant::now();
        out = std::hint::black_box(f());
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (best, out)
}

/// [`fastest`] of two batches, `f` and `g`, timed alternately (each once to warm up,
/// then `reps` rounds, `f` first in even rounds and `g` first in odd ones), so that
/// both meet the same load of a shared machine and neither is always the first after
/// the other: the fastest run of each, and the last results.
#[cfg(feature = "detour")]
fn fastest_alternating<T, U>(
    reps: usize,
    mut f: impl FnMut() -> T,
    mut g: impl FnMut() -> U,
) -> ((f64, T), (f64, U)) {
    let (mut best_f, mut best_g) = (f64::INFINITY, f64::INFINITY);
    let mut out_f = std::hint::black_box(f());
    let mut out_g = std::hint::black_box(g());
    for k in 0..reps.max(1) {
        for first in [k % 2 == 0, k % 2 != 0] {
            let t0 = std::time::Instant::now();
            if first {
                out_f = std::hint::black_box(f());
                best_f = best_f.min(t0.elapsed().as_secs_f64());
            } else {
                out_g = std::hint::black_box(g());
                best_g = best_g.min(t0.elapsed().as_secs_f64());
            }
        }
    }
    ((best_f, out_f), (best_g, out_g))
}

/// One query kind's figures.
#[derive(Clone, Debug)]
pub struct QueryTimes {
    /// Queries in the batch.
    pub count: usize,
    /// Our time per query, microseconds.
    pub ours_us: f64,
    /// Detour's time per query, microseconds (`Err`: why it did not run).
    pub detour_us: Result<f64, String>,
    /// A note on the answers (agreement, how many Detour found).
    pub note: String,
}

/// The part's figures: raycast, nearest point, random point.
#[derive(Clone, Debug, Default)]
pub struct Queries {
    /// The disc radius.
    pub radius: f32,
    /// Our triangles.
    pub triangles: usize,
    /// Our first query at this radius, which builds the mesh's query data (the
    /// per-radius part included), milliseconds; not in the rows.
    pub first_query_ms: f64,
    /// (name, figures) in order.
    pub rows: Vec<(&'static str, QueryTimes)>,
}

/// The queries of one run, built once and answered by both sides.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The rays: from a point where the disc fits, 2–40 m in a random direction.
    pub rays: Vec<(Vec2, Vec2)>,
    /// The nearest-point queries: uniform over the map's box.
    pub points: Vec<Vec2>,
}

/// What the part's queries run on: aurora's mesh, Detour's navmesh of it (feature
/// `detour`), and the queries both sides answer.
pub struct Setup {
    /// Our mesh of the map.
    pub mesh: NavMesh,
    /// Detour's navmesh of our walkable triangles, eroded by the radius.
    #[cfg(feature = "detour")]
    pub detour: crate::detour::DetourQueries,
    /// The queries.
    pub inputs: Inputs,
}

impl Setup {
    /// Builds both sides on aurora (from `data`) and `count` queries of each kind at
    /// radius `radius` (see [`inputs`]; with Detour, the rays start where its navmesh
    /// is too).
    ///
    /// # Errors
    /// The map does not load or build, Detour does not build, or too few points fit.
    pub fn new(data: &Path, radius: f32, count: usize) -> Result<Setup, String> {
        let path = data.join(QUERY_MAP);
        let walls = read_walls(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mesh = NavMesh::from_walls(&walls).map_err(|e| format!("{}: {e}", path.display()))?;
        #[cfg(feature = "detour")]
        let detour = {
            let triangles: Vec<[Vec2; 3]> = mesh
                .walkable_triangles()
                .map(|t| mesh.triangle_points(t))
                .collect();
            crate::detour::DetourQueries::new(&triangles, radius)?
        };
        let inputs = inputs(&mesh, radius, count, &|p| {
            #[cfg(feature = "detour")]
            {
                detour
                    .nearest(p, 0.05)
                    .is_some_and(|(_, q)| q.distance(p) < 1e-3)
            }
            #[cfg(not(feature = "detour"))]
            {
                let _ = p;
                true
            }
        })?;
        Ok(Setup {
            mesh,
            #[cfg(feature = "detour")]
            detour,
            inputs,
        })
    }

    /// Each ray's start triangle on our mesh (triangle 0 for a start off it), as a
    /// caller of `raycast_in` would know it beforehand.
    pub fn start_triangles(&self) -> Vec<TriangleId> {
        self.inputs
            .rays
            .iter()
            .map(|&(a, _)| match self.mesh.locate(a) {
                Location::Walkable(t) | Location::Blocked(t) => t,
                Location::Outside => TriangleId(0),
            })
            .collect()
    }

    /// Each ray's start polygon on Detour's navmesh (0 for none), as Detour's
    /// `raycast` is handed it.
    #[cfg(feature = "detour")]
    pub fn start_polygons(&self) -> Vec<recastnavigation_sys::dtPolyRef> {
        self.inputs
            .rays
            .iter()
            .map(|&(a, _)| self.detour.nearest(a, 0.05).map_or(0, |(poly, _)| poly))
            .collect()
    }
}

/// Builds `mesh`'s query data for `radius`, as the first queries do: a raycast, then
/// nearest points up to the first that moves (that one builds the free space's
/// boundary at the radius).
pub fn warm_up(mesh: &NavMesh, inputs: &Inputs, radius: f32) {
    if let Some(&(a, b)) = inputs.rays.first() {
        std::hint::black_box(mesh.raycast(a, b, radius).ok());
    }
    for &p in &inputs.points {
        if mesh
            .nearest_point(p, radius)
            .ok()
            .flatten()
            .is_some_and(|n| n.distance > 0.0)
        {
            break;
        }
    }
}

/// Runs the part on aurora: `count` queries of each kind at radius `radius`, `reps`
/// timed batches per side. Rows: `raycast`, `raycast from its triangle`, `point
/// location` (ours alone), `nearest point`, `random point`.
///
/// # Errors
/// The map does not load or build, Detour does not build (feature `detour`), or one of
/// our answers fails its check.
pub fn run_queries(data: &Path, radius: f32, count: usize, reps: usize) -> Result<Queries, String> {
    let setup = Setup::new(data, radius, count)?;
    let (mesh, inputs) = (&setup.mesh, &setup.inputs);
    #[cfg(feature = "detour")]
    let detour = &setup.detour;
    // The first query builds the mesh's query data for this radius: timed apart.
    let t0 = std::time::Instant::now();
    warm_up(mesh, inputs, radius);
    let mut out = Queries {
        radius,
        triangles: mesh.triangle_count(),
        first_query_ms: 1e3 * t0.elapsed().as_secs_f64(),
        rows: Vec::new(),
    };

    // Raycasts; with Detour, its batches alternate with ours (see
    // `fastest_alternating`), and again with `raycast_in`'s.
    let ours = || {
        inputs
            .rays
            .iter()
            .map(|&(a, b)| {
                mesh.raycast(a, b, radius)
                    .ok()
                    .flatten()
                    .map(|h| h.fraction)
            })
            .collect::<Vec<_>>()
    };
    #[cfg(feature = "detour")]
    let polygons = setup.start_polygons();
    #[cfg(feature = "detour")]
    let theirs = || {
        inputs
            .rays
            .iter()
            .zip(&polygons)
            .map(|(&(a, b), &s)| detour.raycast(s, a, b))
            .collect::<Vec<_>>()
    };
    #[cfg(feature = "detour")]
    let ((ours_s, hits), (theirs_s, theirs_hits)) = fastest_alternating(reps, ours, theirs);
    #[cfg(not(feature = "detour"))]
    let (ours_s, hits) = fastest(reps, ours);
    for (&(a, b), h) in inputs.rays.iter().zip(&hits) {
        // Just short of the touch (for r = 0 the touch itself is on the wall, and may
        // round to its far side).
        let end = h.map_or(b, |t| a.lerp(b, (t - 1e-4).max(0.0)));
        if mesh.clearance(end).is_none_or(|c| c < radius - 1e-3) {
            return Err(format!(
                "queries: raycast {a} -> {b} ends where the disc does not fit"
            ));
        }
    }
    let ray = QueryTimes {
        count: inputs.rays.len(),
        ours_us: 1e6 * ours_s / inputs.rays.len() as f64,
        detour_us: Err("not built (feature `detour` off)".into()),
        note: format!("{} of ours hit", hits.iter().flatten().count()),
    };
    #[cfg(feature = "detour")]
    let ray = {
        let mut ray = ray;
        let agree = hits
            .iter()
            .zip(&theirs_hits)
            .filter(|(o, t)| o.is_some() == t.is_some())
            .count();
        ray.detour_us = Ok(1e6 * theirs_s / inputs.rays.len() as f64);
        ray.note = format!(
            "{} of ours hit, {} of Detour's; {:.0}% agree on hit or clear",
            hits.iter().flatten().count(),
            theirs_hits.iter().flatten().count(),
            100.0 * agree as f64 / hits.len().max(1) as f64
        );
        ray
    };
    out.rows.push(("raycast", ray));

    // Raycasts from a known triangle, as Detour's from its start polygon: the start
    // triangles found beforehand, untimed, as Detour's start polygons are.
    let starts = setup.start_triangles();
    let ours_in = || {
        inputs
            .rays
            .iter()
            .zip(&starts)
            .map(|(&(a, b), &t)| {
                mesh.raycast_in(t, a, b, radius)
                    .ok()
                    .flatten()
                    .map(|h| h.fraction)
            })
            .collect::<Vec<_>>()
    };
    #[cfg(feature = "detour")]
    let ((ours_s, hits_in), (theirs_s, _)) = fastest_alternating(reps, ours_in, theirs);
    #[cfg(not(feature = "detour"))]
    let (ours_s, hits_in) = fastest(reps, ours_in);
    if hits_in != hits {
        return Err("queries: raycast_in and raycast disagree".into());
    }
    let ray_in = QueryTimes {
        count: inputs.rays.len(),
        ours_us: 1e6 * ours_s / inputs.rays.len() as f64,
        detour_us: Err("not built (feature `detour` off)".into()),
        note: "the same answers as `raycast`".into(),
    };
    #[cfg(feature = "detour")]
    let ray_in = QueryTimes {
        detour_us: Ok(1e6 * theirs_s / inputs.rays.len() as f64),
        note: "the same answers as `raycast`; Detour's timed again, alternating".into(),
        ..ray_in
    };
    out.rows.push(("raycast from its triangle", ray_in));

    // Point location alone, on the rays' starts: what `raycast` adds to `raycast_in`.
    let (ours_s, located) = fastest(reps, || {
        inputs
            .rays
            .iter()
            .map(|&(a, _)| mesh.locate(a))
            .collect::<Vec<_>>()
    });
    out.rows.push((
        "point location",
        QueryTimes {
            count: located.len(),
            ours_us: 1e6 * ours_s / located.len().max(1) as f64,
            detour_us: Err("no counterpart".into()),
            note: "`locate` on the rays' starts".into(),
        },
    ));

    // Nearest points.
    let (ours_s, near) = fastest(reps, || {
        inputs
            .points
            .iter()
            .map(|&p| mesh.nearest_point(p, radius).ok().flatten())
            .collect::<Vec<_>>()
    });
    for (p, n) in inputs.points.iter().zip(&near) {
        let n = n.ok_or_else(|| format!("queries: no nearest point to {p}"))?;
        if mesh.clearance(n.point).is_none_or(|c| c < radius) {
            return Err(format!(
                "queries: the nearest point to {p} has no room: {n:?}"
            ));
        }
    }
    let moved = near.iter().flatten().filter(|n| n.distance > 0.0).count();
    let nearest = QueryTimes {
        count: inputs.points.len(),
        ours_us: 1e6 * ours_s / inputs.points.len() as f64,
        detour_us: Err("not built (feature `detour` off)".into()),
        note: format!("{moved} of ours moved the point"),
    };
    #[cfg(feature = "detour")]
    let nearest = {
        let mut nearest = nearest;
        let (theirs_s, theirs) = fastest(reps, || {
            inputs
                .points
                .iter()
                .map(|&p| detour.nearest(p, NEAREST_REACH))
                .collect::<Vec<_>>()
        });
        nearest.detour_us = Ok(1e6 * theirs_s / inputs.points.len() as f64);
        nearest.note = format!(
            "{moved} of ours moved the point; Detour found a polygon for {} within {NEAREST_REACH} m",
            theirs.iter().flatten().count()
        );
        nearest
    };
    out.rows.push(("nearest point", nearest));

    // Random points.
    let (ours_s, samples) = fastest(reps, || {
        let mut rng = SplitMix::new(7);
        (0..count)
            .map(|_| mesh.random_point(&mut rng, radius).ok().flatten())
            .collect::<Vec<_>>()
    });
    for s in &samples {
        let s = s.ok_or("queries: no random point")?;
        if !matches!(mesh.locate(s), Location::Walkable(_))
            || mesh.clearance(s).is_none_or(|c| c < radius)
        {
            return Err(format!("queries: random point {s} has no room"));
        }
    }
    let random = QueryTimes {
        count,
        ours_us: 1e6 * ours_s / count as f64,
        detour_us: Err("not built (feature `detour` off)".into()),
        note: String::new(),
    };
    #[cfg(feature = "detour")]
    let random = {
        let mut random = random;
        let (theirs_s, theirs) = fastest(reps, || {
            crate::detour::DetourQueries::seed(7);
            (0..count)
                .map(|_| detour.random_point())
                .collect::<Vec<_>>()
        });
        random.detour_us = Ok(1e6 * theirs_s / count as f64);
        random.note = format!(
            "Detour answered {} of {count}",
            theirs.iter().flatten().count()
        );
        random
    };
    out.rows.push(("random point", random));
    Ok(out)
}

/// Seeded rays from free points (that `on_detour` also accepts) and points over the
/// map's box: `count` of each, the same on every run.
///
/// # Errors
/// Too few points where the disc fits (and `on_detour` holds) for the rays.
pub fn inputs(
    mesh: &NavMesh,
    radius: f32,
    count: usize,
    on_detour: &dyn Fn(Vec2) -> bool,
) -> Result<Inputs, String> {
    let mut rng = SplitMix::new(21);
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &v in mesh.vertices() {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let anywhere = |rng: &mut SplitMix| lo + (hi - lo) * Vec2::new(rng.unit_f32(), rng.unit_f32());
    let points: Vec<Vec2> = (0..count).map(|_| anywhere(&mut rng)).collect();
    let mut rays = Vec::with_capacity(count);
    let mut tries = 0usize;
    while rays.len() < count {
        tries += 1;
        if tries > 1000 * count.max(1) {
            return Err("queries: too few free points for the rays".into());
        }
        let a = anywhere(&mut rng);
        if mesh.clearance(a).is_none_or(|c| c < radius + 1e-3) || !on_detour(a) {
            continue;
        }
        let dir = Vec2::from_angle(std::f32::consts::TAU * rng.unit_f32());
        let b = a + dir * (2.0 + 38.0 * rng.unit_f32());
        rays.push((a, b));
    }
    Ok(Inputs { rays, points })
}
