//! Shortest-path queries: crowdnav against the `polyanya` crate on one Polyanya mesh.
//!
//! Both sides load the same `.mesh` file and answer the same scenario queries. Every
//! timed answer is checked against the other side's ([`agree`]): a fast wrong answer
//! must not win.

use crate::data::{read_scen, ScenQuery};
use crowdnav::mesh::{parse_polyanya_mesh, NavMesh};
use glam::Vec2;
use glam_polyanya::Vec2 as PVec2;
use std::path::Path;
use std::time::Instant;

/// Relative tolerance within which the two sides' lengths must agree (polyanya
/// reports `f32` lengths).
pub const RELATIVE_TOLERANCE: f64 = 1e-3;

/// A map loaded for both libraries, with its scenario queries.
pub struct PathWorld {
    /// The map's name (file stem).
    pub name: String,
    /// Our navigation mesh.
    pub ours: NavMesh,
    /// Polyanya's mesh, from the same file.
    pub theirs: polyanya::Mesh,
    /// The scenario's queries.
    pub queries: Vec<ScenQuery>,
}

impl PathWorld {
    /// Loads `polyanya-v2/{name}.mesh` and `polyanya-v2/{name}.scen` from `data`.
    ///
    /// # Errors
    /// A missing or malformed file, or a mesh either library refuses.
    pub fn load(data: &Path, name: &str) -> Result<PathWorld, String> {
        let mesh_path = data.join(format!("polyanya-v2/{name}.mesh"));
        let text = std::fs::read_to_string(&mesh_path)
            .map_err(|e| format!("{}: {e}", mesh_path.display()))?;
        let walls = parse_polyanya_mesh(&text).map_err(|e| format!("{name}: {e}"))?;
        let ours = NavMesh::from_walls(&walls).map_err(|e| format!("{name}: {e}"))?;
        let file = polyanya::PolyanyaFile::from_file(&mesh_path.to_string_lossy());
        let theirs = polyanya::Mesh::try_from(file).map_err(|e| format!("{name}: {e:?}"))?;
        let queries = read_scen(&data.join(format!("polyanya-v2/{name}.scen")))?;
        Ok(PathWorld {
            name: name.to_owned(),
            ours,
            theirs,
            queries,
        })
    }

    /// Our length for query `q` at radius `radius`, `None` when we find no path.
    pub fn ours(&self, q: &ScenQuery, radius: f32) -> Option<f64> {
        self.ours
            .find_path(Vec2::from(q.start), Vec2::from(q.goal), radius)
            .ok()
            .map(|p| p.length())
    }

    /// Polyanya's length for query `q` (a point agent), `None` when it finds no path.
    pub fn theirs(&self, q: &ScenQuery) -> Option<f64> {
        self.theirs
            .path(PVec2::from(q.start), PVec2::from(q.goal))
            .map(|p| f64::from(p.length))
    }
}

/// Do two answers agree: both no path, or lengths within [`RELATIVE_TOLERANCE`]?
pub fn agree(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= RELATIVE_TOLERANCE * a.abs().max(b.abs()).max(1.0),
        _ => false,
    }
}

/// Median of a non-empty slice (sorted in place); NaN when empty.
pub fn median(values: &mut [f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `q`-quantile (nearest rank) of `values` (sorted in place); NaN when empty.
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// Median wall time in seconds of `reps` runs of `f` (fewer once the runs pass one
/// second in all), and its last result.
pub fn time_median<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(reps.max(1));
    let mut last = None;
    for _ in 0..reps.max(1) {
        let t0 = Instant::now();
        let out = std::hint::black_box(f());
        times.push(t0.elapsed().as_secs_f64());
        last = Some(out);
        if times.iter().sum::<f64>() > 1.0 {
            break;
        }
    }
    let out = last.expect("at least one run");
    (median(&mut times), out)
}

/// Per-query times (seconds, each the median of several runs) for one map.
pub struct PerQuery {
    /// The queries' indices in the scenario.
    pub index: Vec<usize>,
    /// Ours at r = 0.
    pub ours_r0: Vec<f64>,
    /// Polyanya (a point agent).
    pub theirs: Vec<f64>,
    /// Ours at r = 1; `None` for queries without an r = 1 path (no room at an end, or
    /// too narrow), which are left out of the r = 1 / r = 0 ratios.
    pub ours_r1: Vec<Option<f64>>,
}

/// Which queries [`time_each`] runs, and how.
#[derive(Clone, Copy, Debug)]
pub struct Selection {
    /// Runs per query (the median is kept); a query whose runs pass one second in all
    /// stops repeating.
    pub reps: usize,
    /// Every `every`-th query only.
    pub every: usize,
    /// This query only (its index in the scenario).
    pub only: Option<usize>,
    /// Also time r = 1.
    pub with_r1: bool,
}

/// Times the selected queries of `world` individually, checking every answer.
///
/// # Errors
/// The first query on which the two sides disagree at r = 0.
pub fn time_each(world: &PathWorld, sel: Selection) -> Result<PerQuery, String> {
    let mut out = PerQuery {
        index: Vec::new(),
        ours_r0: Vec::new(),
        theirs: Vec::new(),
        ours_r1: Vec::new(),
    };
    let reps = sel.reps;
    for (i, q) in world.queries.iter().enumerate().step_by(sel.every.max(1)) {
        if sel.only.is_some_and(|only| only != i) {
            continue;
        }
        let (t_ours, ours) = time_median(reps, || world.ours(q, 0.0));
        let (t_theirs, theirs) = time_median(reps, || world.theirs(q));
        if !agree(ours, theirs) {
            return Err(format!(
                "{} query {i} {:?} -> {:?}: crowdnav {ours:?}, polyanya {theirs:?}",
                world.name, q.start, q.goal
            ));
        }
        let (t_r1, r1) = if sel.with_r1 {
            time_median(reps, || world.ours(q, 1.0))
        } else {
            (0.0, None)
        };
        if let (Some(r1), Some(r0)) = (r1, ours) {
            // A wider agent never finds a shorter path.
            if r1 < r0 * (1.0 - 1e-9) {
                return Err(format!(
                    "{} query {i}: r = 1 length {r1} below r = 0 length {r0}",
                    world.name
                ));
            }
        }
        out.index.push(i);
        out.ours_r0.push(t_ours);
        out.theirs.push(t_theirs);
        out.ours_r1.push(r1.map(|_| t_r1));
    }
    Ok(out)
}

/// The `n` queries with the longest r = 1 times: index, r = 1 and r = 0 times (ms).
pub fn slowest_r1(t: &PerQuery, n: usize) -> String {
    let mut rows: Vec<(usize, f64, f64)> = t
        .index
        .iter()
        .zip(&t.ours_r1)
        .zip(&t.ours_r0)
        .filter_map(|((&i, r1), &r0)| r1.map(|r1| (i, r1, r0)))
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    rows.iter()
        .take(n)
        .map(|(i, r1, r0)| {
            format!(
                "  query {i:5}: r=1 {:10.3} ms  r=0 {:8.3} ms\n",
                1e3 * r1,
                1e3 * r0
            )
        })
        .collect()
}

/// The report's text: median/p95/max per side, the median of per-query ratios
/// ours/polyanya, and our r = 1 against r = 0.
pub fn summarize(world: &PathWorld, t: &PerQuery) -> String {
    let ms = |v: &[f64]| {
        let mut v = v.to_vec();
        format!(
            "median {:8.4} ms  p95 {:8.4} ms  max {:8.3} ms  total {:8.1} ms",
            1e3 * median(&mut v),
            1e3 * quantile(&mut v, 0.95),
            1e3 * quantile(&mut v, 1.0),
            1e3 * v.iter().sum::<f64>()
        )
    };
    let ratio = |a: &[f64], b: &[f64]| {
        let mut r: Vec<f64> = a.iter().zip(b).map(|(a, b)| a / b).collect();
        (median(&mut r), quantile(&mut r, 0.95))
    };
    let (med, p95) = ratio(&t.ours_r0, &t.theirs);
    let (r1, r0): (Vec<f64>, Vec<f64>) = t
        .ours_r1
        .iter()
        .zip(&t.ours_r0)
        .filter_map(|(r1, r0)| r1.map(|r1| (r1, *r0)))
        .unzip();
    let (med1, p951) = ratio(&r1, &r0);
    let total = |v: &[f64]| v.iter().sum::<f64>();
    let mut s = String::new();
    s += &format!("{}: {} queries\n", world.name, t.ours_r0.len());
    s += &format!("  crowdnav r=0  {}\n", ms(&t.ours_r0));
    s += &format!("  polyanya      {}\n", ms(&t.theirs));
    s += &format!(
        "  crowdnav r=1  {}  ({} queries with an r=1 path)\n",
        ms(&r1),
        r1.len()
    );
    s += &format!(
        "  ours/polyanya r=0: median of per-query ratios {med:.3} (p95 {p95:.3}), ratio of totals {:.3}\n",
        total(&t.ours_r0) / total(&t.theirs)
    );
    s += &format!(
        "  ours r=1/r=0:      median of per-query ratios {med1:.3} (p95 {p951:.3}), ratio of totals {:.3}\n",
        total(&r1) / total(&r0)
    );
    s
}
