//! Shortest-path queries: crowdnav against the `polyanya` crate.
//!
//! - r = 0: both sides load the same `.mesh` file and answer the same scenario queries;
//!   every timed answer is checked against the other side's ([`agree`]), so a fast
//!   wrong answer cannot win.
//! - r > 0: crowdnav answers on its one mesh; polyanya answers on a mesh it triangulated
//!   and inflated itself for that radius ([`BlockedSpace::polyanya_mesh`]), whose bake
//!   time is measured apart. The two define length differently (an exact disc path of
//!   segments and arcs against a point path around polygonal inflated obstacles), so
//!   they are compared, not asserted equal; every path of ours is checked inside the
//!   loop instead: never shorter than the point's path, and its tangent points and
//!   piece midpoints keep the radius from every wall.

use crate::blocked::BlockedSpace;
use crate::data::{read_scen, ScenQuery};
use crate::stats::{time_median, time_once};
use crowdnav::mesh::{parse_polyanya_mesh, NavMesh};
use crowdnav::path::Path as OurPath;
use glam::Vec2;
use glam_polyanya::Vec2 as PVec2;
use std::path::Path;

pub use crate::stats::{median, quantile};

/// Relative tolerance within which the two sides' r = 0 lengths must agree (polyanya
/// reports `f32` lengths).
pub const RELATIVE_TOLERANCE: f64 = 1e-3;

/// The maps of the path benchmark: the name used on the command line and in the
/// report, the mesh file and the scenario file inside the data directory.
pub const MAPS: [(&str, &str, &str); 2] = [
    (
        "aurora",
        "polyanya-v2/aurora.mesh",
        "polyanya-v2/aurora.scen",
    ),
    (
        "iron-harvest",
        "polyanya-v3/scene_mp_2p_01.mesh",
        "polyanya-v3/scene_mp_2p_01.mesh.scen",
    ),
];

/// A map loaded for both libraries, with its scenario queries.
pub struct PathWorld {
    /// The map's name.
    pub name: String,
    /// Our navigation mesh.
    pub ours: NavMesh,
    /// Polyanya's mesh, from the same file.
    pub theirs: polyanya::Mesh,
    /// The scenario's queries.
    pub queries: Vec<ScenQuery>,
}

impl PathWorld {
    /// Loads map `name`: one of [`MAPS`], or any `polyanya-v2/{name}.mesh` with its
    /// `polyanya-v2/{name}.scen`.
    ///
    /// # Errors
    /// A missing or malformed file, or a mesh either library refuses.
    pub fn load(data: &Path, name: &str) -> Result<PathWorld, String> {
        let (mesh_file, scen_file) = MAPS
            .iter()
            .find(|m| m.0 == name)
            .map(|m| (m.1.to_owned(), m.2.to_owned()))
            .unwrap_or_else(|| {
                (
                    format!("polyanya-v2/{name}.mesh"),
                    format!("polyanya-v2/{name}.scen"),
                )
            });
        let mesh_path = data.join(mesh_file);
        let text = std::fs::read_to_string(&mesh_path)
            .map_err(|e| format!("{}: {e}", mesh_path.display()))?;
        let walls = parse_polyanya_mesh(&text).map_err(|e| format!("{name}: {e}"))?;
        let ours = NavMesh::from_walls(&walls).map_err(|e| format!("{name}: {e}"))?;
        let file = polyanya::PolyanyaFile::from_bytes(text.as_bytes());
        let theirs = polyanya::Mesh::try_from(file).map_err(|e| format!("{name}: {e:?}"))?;
        let queries = read_scen(&data.join(scen_file))?;
        Ok(PathWorld {
            name: name.to_owned(),
            ours,
            theirs,
            queries,
        })
    }

    /// Our length for query `q` at radius `radius`, `None` when we find no path.
    pub fn ours(&self, q: &ScenQuery, radius: f32) -> Option<f64> {
        self.our_path(q, radius).map(|p| p.length())
    }

    /// Our path for query `q` at radius `radius`, `None` when we find no path.
    pub fn our_path(&self, q: &ScenQuery, radius: f32) -> Option<OurPath> {
        self.ours
            .find_path(Vec2::from(q.start), Vec2::from(q.goal), radius)
            .ok()
    }

    /// Polyanya's length for query `q` on its mesh from the file (a point agent),
    /// `None` when it finds no path.
    pub fn theirs(&self, q: &ScenQuery) -> Option<f64> {
        theirs_on(&self.theirs, q)
    }
}

/// Polyanya's length for query `q` on `mesh`, `None` when it finds no path.
pub fn theirs_on(mesh: &polyanya::Mesh, q: &ScenQuery) -> Option<f64> {
    mesh.path(PVec2::from(q.start), PVec2::from(q.goal))
        .map(|p| f64::from(p.length))
}

/// Do two answers agree: both no path, or lengths within [`RELATIVE_TOLERANCE`]?
pub fn agree(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= RELATIVE_TOLERANCE * a.abs().max(b.abs()).max(1.0),
        _ => false,
    }
}

/// Which queries are timed, and how.
#[derive(Clone, Copy, Debug)]
pub struct Selection {
    /// Runs per query (the median is kept); a query whose runs pass one second in all
    /// stops repeating.
    pub reps: usize,
    /// Every `every`-th query only.
    pub every: usize,
    /// This query only (its index in the scenario).
    pub only: Option<usize>,
}

impl Selection {
    /// The selected queries of `queries`, with their indices.
    pub fn pick<'a>(&self, queries: &'a [ScenQuery]) -> Vec<(usize, &'a ScenQuery)> {
        queries
            .iter()
            .enumerate()
            .step_by(self.every.max(1))
            .filter(|(i, _)| self.only.is_none_or(|only| only == *i))
            .collect()
    }
}

/// One timed query: both sides' median times (seconds) and lengths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timed {
    /// Index of the query in its scenario.
    pub index: usize,
    /// Our time, seconds.
    pub ours_s: f64,
    /// Polyanya's time, seconds.
    pub theirs_s: f64,
    /// Our length (`None`: no path).
    pub ours_len: Option<f64>,
    /// Polyanya's length (`None`: no path).
    pub theirs_len: Option<f64>,
}

/// Times the selected queries of `world` at r = 0, each individually (one warm-up run,
/// then the median of `reps`), checking every answer against the other side's.
///
/// # Errors
/// The first query on which the two sides disagree.
pub fn time_r0(world: &PathWorld, sel: Selection) -> Result<Vec<Timed>, String> {
    let mut out = Vec::new();
    for (i, q) in sel.pick(&world.queries) {
        let (warm_ours, warm_theirs) = (world.ours(q, 0.0), world.theirs(q));
        let (ours_s, ours) = time_median(sel.reps, || world.ours(q, 0.0));
        let (theirs_s, theirs) = time_median(sel.reps, || world.theirs(q));
        if !agree(ours, theirs) || ours != warm_ours || theirs != warm_theirs {
            return Err(format!(
                "{} query {i} {:?} -> {:?}: crowdnav {ours:?}, polyanya {theirs:?}",
                world.name, q.start, q.goal
            ));
        }
        out.push(Timed {
            index: i,
            ours_s,
            theirs_s,
            ours_len: ours,
            theirs_len: theirs,
        });
    }
    Ok(out)
}

/// The cost of our disc queries against our point queries: the selected queries that
/// have a path for the disc, timed at r = 0 and at `radius`, one after the other for
/// each query (one warm-up run of each, then the median of `reps`). Queries without a
/// path for the disc are left out (most are refused in a microsecond by the corridor
/// index, which would say nothing of the search) and counted.
#[derive(Clone, Debug)]
pub struct DiscOverPoint {
    /// The disc's radius.
    pub radius: f32,
    /// Per query with a path for the disc: its index, our time at r = 0 and at
    /// `radius`, seconds.
    pub timed: Vec<(usize, f64, f64)>,
    /// Selected queries without a path for the disc.
    pub no_path: usize,
}

impl DiscOverPoint {
    /// Per-query ratios, disc time over point time.
    pub fn ratios(&self) -> Vec<f64> {
        self.timed
            .iter()
            .filter(|t| t.1 > 0.0)
            .map(|t| t.2 / t.1)
            .collect()
    }

    /// The median disc time over the median point time.
    pub fn ratio_of_medians(&self) -> f64 {
        let mut point: Vec<f64> = self.timed.iter().map(|t| t.1).collect();
        let mut disc: Vec<f64> = self.timed.iter().map(|t| t.2).collect();
        crate::stats::median(&mut disc) / crate::stats::median(&mut point)
    }

    /// The total disc time over the total point time.
    pub fn ratio_of_totals(&self) -> f64 {
        self.timed.iter().map(|t| t.2).sum::<f64>() / self.timed.iter().map(|t| t.1).sum::<f64>()
    }
}

/// Times the selected queries of `world` for a point and for a disc of `radius`, ours
/// alone (see [`DiscOverPoint`]).
pub fn time_disc_over_point(world: &PathWorld, radius: f32, sel: Selection) -> DiscOverPoint {
    let (mut timed, mut no_path) = (Vec::new(), 0);
    for (i, q) in sel.pick(&world.queries) {
        let (point, disc) = (world.ours(q, 0.0), world.ours(q, radius));
        if point.is_none() || disc.is_none() {
            no_path += 1;
            continue;
        }
        let (point_s, _) = time_median(sel.reps, || world.ours(q, 0.0));
        let (disc_s, _) = time_median(sel.reps, || world.ours(q, radius));
        timed.push((i, point_s, disc_s));
    }
    DiscOverPoint {
        radius,
        timed,
        no_path,
    }
}

/// One radius: polyanya's bake for it and the timed queries.
#[derive(Clone, Debug)]
pub struct Inflated {
    /// The agent radius.
    pub radius: f32,
    /// Seconds polyanya took to triangulate, inflate, merge and bake its mesh.
    pub bake_s: f64,
    /// Obstacle rings handed to polyanya.
    pub obstacles: usize,
    /// The queries.
    pub timed: Vec<Timed>,
    /// Queries left out: ours gave no answer within the time limit.
    pub timed_out: Vec<usize>,
}

/// Times the selected queries at `radius`: ours on our one mesh, polyanya's on the
/// mesh it bakes for that radius from `blocked`, leaving out the queries in `skip`
/// (see [`crate::guard`]). Each path of ours is checked against
/// the point's (r = 0) path and against the walls before it is timed.
///
/// # Errors
/// A path of ours that is shorter than the point's or comes closer than the radius
/// to a wall.
pub fn time_inflated(
    world: &PathWorld,
    blocked: &BlockedSpace,
    radius: f32,
    sel: Selection,
    skip: &[usize],
) -> Result<Inflated, String> {
    // Points further than this outside polyanya's inflated mesh are not snapped on.
    let (bake_s, theirs_mesh) = time_once(|| blocked.polyanya_mesh(radius, 1e-3));
    let mut timed = Vec::new();
    for (i, q) in sel.pick(&world.queries) {
        if skip.contains(&i) {
            continue;
        }
        let path = world.our_path(q, radius);
        if let Some(path) = &path {
            check_disc_path(world, path, radius, world.ours(q, 0.0))
                .map_err(|e| format!("{} query {i} at r = {radius}: {e}", world.name))?;
        }
        let want = path.as_ref().map(OurPath::length);
        let theirs_warm = theirs_on(&theirs_mesh, q);
        let (ours_s, ours) = time_median(sel.reps, || world.ours(q, radius));
        let (theirs_s, theirs) = time_median(sel.reps, || theirs_on(&theirs_mesh, q));
        if ours != want || theirs != theirs_warm {
            return Err(format!(
                "{} query {i} at r = {radius}: answers changed between runs",
                world.name
            ));
        }
        timed.push(Timed {
            index: i,
            ours_s,
            theirs_s,
            ours_len: ours,
            theirs_len: theirs,
        });
    }
    Ok(Inflated {
        radius,
        bake_s,
        obstacles: blocked.obstacles.len(),
        timed,
        timed_out: skip.to_vec(),
    })
}

/// Our disc path is no shorter than the point's (`r0`) and keeps `radius` from every
/// wall at the ends and middle of each piece.
fn check_disc_path(
    world: &PathWorld,
    path: &OurPath,
    radius: f32,
    r0: Option<f64>,
) -> Result<(), String> {
    let Some(r0) = r0 else {
        return Err(format!(
            "a path of length {} where a point has none",
            path.length()
        ));
    };
    if path.length() < r0 * (1.0 - 1e-9) {
        return Err(format!("length {} below the point's {r0}", path.length()));
    }
    let slack = 1e-3 * (1.0 + radius);
    for piece in path.pieces() {
        for t in [0.0, 0.5, 1.0] {
            let p = piece.point_at(t);
            match world.ours.clearance(p) {
                Some(c) if c >= radius - slack => {}
                c => return Err(format!("{p} has clearance {c:?} < radius {radius}")),
            }
        }
    }
    Ok(())
}

/// Counts of who found a path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Both sides.
    pub both: usize,
    /// Ours only.
    pub ours_only: usize,
    /// Polyanya only.
    pub theirs_only: usize,
    /// Neither.
    pub neither: usize,
}

impl Found {
    /// The counts over `timed`.
    pub fn of(timed: &[Timed]) -> Found {
        let mut f = Found::default();
        for t in timed {
            match (t.ours_len.is_some(), t.theirs_len.is_some()) {
                (true, true) => f.both += 1,
                (true, false) => f.ours_only += 1,
                (false, true) => f.theirs_only += 1,
                (false, false) => f.neither += 1,
            }
        }
        f
    }
}

/// Per-query ratios ours/theirs of the times.
pub fn time_ratios(timed: &[Timed]) -> Vec<f64> {
    timed
        .iter()
        .filter(|t| t.theirs_s > 0.0)
        .map(|t| t.ours_s / t.theirs_s)
        .collect()
}

/// Relative length differences (ours − theirs) / theirs, over queries both answered.
pub fn length_differences(timed: &[Timed]) -> Vec<f64> {
    timed
        .iter()
        .filter_map(|t| match (t.ours_len, t.theirs_len) {
            (Some(a), Some(b)) if b > 0.0 => Some((a - b) / b),
            _ => None,
        })
        .collect()
}
