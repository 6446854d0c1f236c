//! Run-time obstacle edits on aurora: `NavMesh::add_obstacle` and `remove_obstacle`
//! of boxes about 10 m across, against a full build of the edited level
//! (`NavMesh::from_walls`) and against polyanya building the edited level.
//!
//! polyanya (and vleue_navigator on top of it) has no local edit: a change is a new
//! [`polyanya::Triangulation`] of the whole level with the obstacle added (or without
//! the one removed), inflated by the agent radius, merged and baked. After a sample of
//! the edits that whole build is timed at r = 0 and r = 0.5 on the level as the edit
//! left it: the level's blocked space ([`BlockedSpace`], derived once, untimed) plus the
//! boxes in place.
//!
//! Detour's TileCache (feature `detour`) gets the same edits at the same places:
//! each box added as an oriented box obstacle grown by the agent radius (0.5 m) and
//! removed with the box it stands for, `update` called until the cache is up to date
//! (see [`crate::detour::tiles`]).

use crate::blocked::{polyanya_area, BlockedSpace};
use crowdnav::mesh::{read_walls, Location, NavMesh};
use crowdnav::{EditError, MeshObstacleId};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::time::Instant;

/// The level the edit part runs on.
pub const EDIT_MAP: (&str, &str) = ("aurora", "polyanya-v2/aurora.mesh");

/// The agent radii polyanya builds the edited level for.
pub const POLYANYA_RADII: [f32; 2] = [0.0, 0.5];

/// Timings of one edit run, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct EditTimes {
    /// Each timed `add_obstacle`.
    pub add_ms: Vec<f64>,
    /// Each timed `remove_obstacle`.
    pub remove_ms: Vec<f64>,
    /// Each full build of the edited walls.
    pub rebuild_ms: Vec<f64>,
    /// After about half of the edits (drawn at random), a path query (r = 0.5) between
    /// two random walkable points near the edit: it brings up to date the search indexes the edit left to
    /// the first query (see `NavMesh::prepare_queries`).
    pub first_query_ms: Vec<f64>,
    /// The same query again, with the indexes up to date.
    pub warm_query_ms: Vec<f64>,
    /// The same at r = 0, after the other edits.
    pub first_query_r0_ms: Vec<f64>,
    /// The same r = 0 query again, with the indexes up to date.
    pub warm_query_r0_ms: Vec<f64>,
    /// After about half of the edits (drawn at random), a raycast (r = 0) from a
    /// random walkable point near the edit, 20 m in a random direction: it brings up to
    /// date the query index the edit left to the first query (walls, grids, the walk).
    pub first_raycast_r0_ms: Vec<f64>,
    /// The same raycast again, with the query index up to date.
    pub warm_raycast_r0_ms: Vec<f64>,
    /// The same at r = 1 after the other edits (bringing the r = 1 ray grid up to date
    /// too).
    pub first_raycast_r1_ms: Vec<f64>,
    /// The same r = 1 raycast again.
    pub warm_raycast_r1_ms: Vec<f64>,
    /// After each edit (and the path query and raycast above, which bring the query
    /// index up to date), `NavMesh::nearest_point` at r = 1 from a random point within
    /// 30 m of it: it brings the nearest-point data of r = 1 (built before the edits)
    /// up to date.
    pub first_nearest_r1_ms: Vec<f64>,
    /// The same nearest point again.
    pub warm_nearest_r1_ms: Vec<f64>,
    /// Triangles of the mesh as built.
    pub triangles: usize,
    /// Boxes refused (reaching outside the mesh near the map's edge).
    pub refused: usize,
    /// polyanya building the level as a sampled edit left it, one list per radius of
    /// [`POLYANYA_RADII`].
    pub polyanya_ms: [Vec<f64>; 2],
    /// Builds polyanya panicked on, per radius of [`POLYANYA_RADII`] (not timed).
    pub polyanya_failed: [usize; 2],
    /// Largest relative difference between polyanya's r = 0 walkable area and ours
    /// over the sampled edits.
    pub polyanya_area_diff: f64,
    /// Detour TileCache: each `addBoxObstacle` with the `update` calls until up to date.
    pub detour_add_ms: Vec<f64>,
    /// Detour TileCache: each `removeObstacle` with the `update` calls until up to date.
    pub detour_remove_ms: Vec<f64>,
    /// Detour TileCache: `update` calls per edit (each rebuilds at most one tile).
    pub detour_updates: Vec<usize>,
    /// Detour TileCache: building the tile cache and its navmesh, once.
    pub detour_build_ms: f64,
    /// Detour TileCache: tiles along x and y.
    pub detour_tiles: (i32, i32),
    /// Detour TileCache: the cell size, metres.
    pub detour_cell: f32,
    /// Detour TileCache: the side of a tile, in cells.
    pub detour_tile_cells: i32,
    /// Why Detour TileCache has no (or incomplete) times, if so.
    pub detour_note: Option<String>,
}

impl EditTimes {
    /// Detour TileCache's edits, adds then removes: [`EditTimes::detour_add_ms`]
    /// followed by [`EditTimes::detour_remove_ms`].
    pub fn detour_edit_ms(&self) -> Vec<f64> {
        self.detour_add_ms
            .iter()
            .chain(&self.detour_remove_ms)
            .copied()
            .collect()
    }
}

/// The agent radius Detour's TileCache is built for (its layers are eroded by it).
pub const DETOUR_RADIUS: f32 = 0.5;

/// Detour's TileCache following the edits, when the `detour` feature is on.
struct TileSide {
    #[cfg(feature = "detour")]
    cache: Option<crate::detour::tiles::TileCache>,
}

impl TileSide {
    /// Builds the tile cache over the walkable triangles of `mesh` (timed, into
    /// `times`).
    #[cfg(feature = "detour")]
    fn new(mesh: &NavMesh, times: &mut EditTimes) -> TileSide {
        let triangles: Vec<[Vec2; 3]> = mesh
            .walkable_triangles()
            .map(|t| mesh.triangle_points(t))
            .collect();
        let start = Instant::now();
        let built = crate::detour::tiles::TileCache::new(&triangles, DETOUR_RADIUS);
        times.detour_build_ms = start.elapsed().as_secs_f64() * 1e3;
        let cache = match built {
            Ok(cache) => {
                times.detour_tiles = cache.tiles;
                times.detour_cell = crate::detour::tiles::CELL;
                times.detour_tile_cells = crate::detour::tiles::TILE_CELLS;
                Some(cache)
            }
            Err(e) => {
                times.detour_note = Some(format!("not run: {e}"));
                None
            }
        };
        TileSide { cache }
    }

    #[cfg(not(feature = "detour"))]
    fn new(_: &NavMesh, times: &mut EditTimes) -> TileSide {
        times.detour_note = Some("not built (feature `detour` off)".into());
        TileSide {}
    }

    /// Adds the box `polygon` (a square from [`random_box`]) as an oriented box
    /// obstacle, timed into `times`; its id, `None` without a cache.
    #[cfg(feature = "detour")]
    fn add(&mut self, polygon: &[Vec2], times: &mut EditTimes) -> Option<u32> {
        let cache = self.cache.as_mut()?;
        let (center, half, angle) = square_of(polygon);
        let start = Instant::now();
        match cache.add_box(center, half, angle) {
            Ok((id, calls)) => {
                times
                    .detour_add_ms
                    .push(start.elapsed().as_secs_f64() * 1e3);
                times.detour_updates.push(calls);
                Some(id)
            }
            Err(e) => {
                times.detour_note = Some(format!(
                    "stopped after {} adds: {e}",
                    times.detour_add_ms.len()
                ));
                self.cache = None;
                None
            }
        }
    }

    #[cfg(not(feature = "detour"))]
    fn add(&mut self, _: &[Vec2], _: &mut EditTimes) -> Option<u32> {
        None
    }

    /// Removes obstacle `id`, timed into `times`.
    #[cfg(feature = "detour")]
    fn remove(&mut self, id: u32, times: &mut EditTimes) {
        let Some(cache) = self.cache.as_mut() else {
            return;
        };
        let start = Instant::now();
        match cache.remove(id) {
            Ok(calls) => {
                times
                    .detour_remove_ms
                    .push(start.elapsed().as_secs_f64() * 1e3);
                times.detour_updates.push(calls);
            }
            Err(e) => {
                times.detour_note = Some(format!(
                    "stopped after {} removes: {e}",
                    times.detour_remove_ms.len()
                ));
                self.cache = None;
            }
        }
    }

    #[cfg(not(feature = "detour"))]
    fn remove(&mut self, _: u32, _: &mut EditTimes) {}
}

/// The centre, half-side and turn (radians) of a square from [`random_box`].
#[cfg_attr(
    not(feature = "detour"),
    expect(dead_code, reason = "for Detour's side only")
)]
fn square_of(polygon: &[Vec2]) -> (Vec2, f32, f32) {
    let n = polygon.len().max(1) as f32;
    let center = polygon.iter().copied().sum::<Vec2>() / n;
    let (a, b) = (polygon[0], polygon[1 % polygon.len()]);
    (center, 0.5 * a.distance(b), (b - a).to_angle())
}

/// A 4-vertex box `size` across, rotated, centred at `c`.
fn random_box(rng: &mut ChaCha8Rng, c: Vec2, size: f32) -> Vec<Vec2> {
    let a: f32 = rng.gen_range(0.0..std::f32::consts::FRAC_PI_2);
    let (u, v) = (Vec2::new(a.cos(), a.sin()), Vec2::new(-a.sin(), a.cos()));
    let h = 0.5 * size;
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(x, y)| c + h * (x * u + y * v))
        .collect()
}

/// Times polyanya building `base` with the obstacles of `mesh` added, at each radius of
/// [`POLYANYA_RADII`], into `times`.
fn time_polyanya(base: &BlockedSpace, mesh: &NavMesh, times: &mut EditTimes) {
    let mut level = base.clone();
    level.obstacles.extend(
        mesh.obstacle_ids()
            .filter_map(|id| mesh.obstacle(id).map(<[Vec2]>::to_vec)),
    );
    for (k, &radius) in POLYANYA_RADII.iter().enumerate() {
        let start = Instant::now();
        // A third-party library's panic is counted, not passed on.
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            level.polyanya_mesh(radius, 0.1)
        }));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match built {
            Ok(built) => {
                times.polyanya_ms[k].push(ms);
                if radius == 0.0 {
                    let ours = mesh.walkable_area();
                    let diff = (polyanya_area(&built) - ours).abs() / ours.max(1.0);
                    times.polyanya_area_diff = times.polyanya_area_diff.max(diff);
                }
            }
            Err(_) => times.polyanya_failed[k] += 1,
        }
    }
}

/// Times a path query after an edit near `c` (which brings up to date the indexes the
/// edit left to the first query), then the same query again, into `times`: at r = 0.5
/// or r = 0, drawn at random (so that each first query finds the mesh as the edit left
/// it, after adds and removes alike). Its end points and radius are drawn from
/// `rng`, apart from the one placing the edits, so the edits are the same with or
/// without these queries.
fn time_first_query(rng: &mut ChaCha8Rng, mesh: &NavMesh, c: Vec2, times: &mut EditTimes) {
    let mut near = || loop {
        let p = c + Vec2::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0));
        if matches!(mesh.locate(p), Location::Walkable(_)) {
            return p;
        }
    };
    let (a, b) = (near(), near());
    let (radius, outs) = if rng.gen_bool(0.5) {
        (0.5, [&mut times.first_query_ms, &mut times.warm_query_ms])
    } else {
        (
            0.0,
            [&mut times.first_query_r0_ms, &mut times.warm_query_r0_ms],
        )
    };
    for out in outs {
        let start = Instant::now();
        // Found or not, the query is timed.
        let _ = std::hint::black_box(mesh.find_path(a, b, radius));
        out.push(start.elapsed().as_secs_f64() * 1e3);
    }
}

/// Times a raycast after an edit near `c` (which brings up to date the query index the
/// edit left to the first query), then the same raycast again, into `times`: at r = 0
/// or r = 1, drawn at random, from a random walkable point within 30 m of `c`, 20 m in
/// a random direction. Drawn from `rng`, apart from the others, so the edits and the
/// path queries are the same with or without these.
fn time_first_raycast(rng: &mut ChaCha8Rng, mesh: &NavMesh, c: Vec2, times: &mut EditTimes) {
    let from = loop {
        let p = c + Vec2::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0));
        if matches!(mesh.locate(p), Location::Walkable(_)) {
            break p;
        }
    };
    let angle: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
    let to = from + 20.0 * Vec2::new(angle.cos(), angle.sin());
    let (radius, outs) = if rng.gen_bool(0.5) {
        (
            0.0,
            [
                &mut times.first_raycast_r0_ms,
                &mut times.warm_raycast_r0_ms,
            ],
        )
    } else {
        (
            1.0,
            [
                &mut times.first_raycast_r1_ms,
                &mut times.warm_raycast_r1_ms,
            ],
        )
    };
    for out in outs {
        let start = Instant::now();
        // Hit, clear or refused (no room at r = 1), the raycast is timed.
        let _ = std::hint::black_box(mesh.raycast(from, to, radius));
        out.push(start.elapsed().as_secs_f64() * 1e3);
    }
}

/// Times `nearest_point` at r = 1 after an edit near `c`, from a random point within
/// 30 m of it (walkable or not), then the same again, into `times`. Drawn from `rng`,
/// apart from the others.
fn time_first_nearest(rng: &mut ChaCha8Rng, mesh: &NavMesh, c: Vec2, times: &mut EditTimes) {
    let p = c + Vec2::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0));
    for out in [
        &mut times.first_nearest_r1_ms,
        &mut times.warm_nearest_r1_ms,
    ] {
        let start = Instant::now();
        let _ = std::hint::black_box(mesh.nearest_point(p, 1.0));
        out.push(start.elapsed().as_secs_f64() * 1e3);
    }
}

/// Adds `edits` boxes 10 m across at random walkable points of aurora (keeping at most
/// `live` in place: past that, each add is followed by a timed remove of a random
/// one), then builds the edited level `rebuilds` times. After about `polyanya_edits`
/// of the edits, spread evenly over the run, polyanya builds the level as that edit
/// left it at each radius of [`POLYANYA_RADII`].
///
/// # Errors
/// When the level cannot be read or built.
pub fn time_edits(
    data: &Path,
    edits: usize,
    live: usize,
    rebuilds: usize,
    polyanya_edits: usize,
) -> Result<EditTimes, String> {
    let path = data.join(EDIT_MAP.1);
    let base = read_walls(&path).map_err(|e| e.to_string())?;
    let mut mesh = NavMesh::from_walls(&base).map_err(|e| e.to_string())?;
    let mut times = EditTimes {
        triangles: mesh.triangle_count(),
        ..EditTimes::default()
    };
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &p in mesh.vertices() {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let blocked = BlockedSpace::of(&mesh);
    let mut detour = TileSide::new(&mesh, &mut times);
    // Adds and removes together: about 2 edits per add once `live` are in place.
    let operations = (2 * edits).saturating_sub(live.min(edits));
    let stride = operations.div_ceil(polyanya_edits.max(1)).max(1);
    let mut operation = 0;
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let mut query_rng = ChaCha8Rng::seed_from_u64(2022);
    let mut ray_rng = ChaCha8Rng::seed_from_u64(2222);
    let mut nearest_rng = ChaCha8Rng::seed_from_u64(2122);
    // The query index and the ray grids of r = 0 and 1 built before the edits, as a
    // game that raycasts has them: the edits keep them up to date.
    for radius in [0.0, 1.0] {
        let _ = mesh.raycast((lo + hi) / 2.0, hi, radius);
    }
    // Likewise the nearest-point data of r = 1.
    let _ = mesh.nearest_point((lo + hi) / 2.0, 1.0);
    // Our obstacles, and Detour's for the same boxes.
    let mut placed: Vec<(MeshObstacleId, Option<u32>)> = Vec::new();
    while times.add_ms.len() < edits {
        let c = Vec2::new(
            rng.gen_range(lo.x + 10.0..hi.x - 10.0),
            rng.gen_range(lo.y + 10.0..hi.y - 10.0),
        );
        if !matches!(mesh.locate(c), Location::Walkable(_)) {
            continue;
        }
        let polygon = random_box(&mut rng, c, 10.0);
        let start = Instant::now();
        let added = mesh.add_obstacle(&polygon);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match added {
            Ok(id) => {
                times.add_ms.push(ms);
                time_first_query(&mut query_rng, &mesh, c, &mut times);
                time_first_raycast(&mut ray_rng, &mesh, c, &mut times);
                time_first_nearest(&mut nearest_rng, &mesh, c, &mut times);
                let theirs = detour.add(&polygon, &mut times);
                placed.push((id, theirs));
                operation += 1;
                if polyanya_edits > 0 && operation % stride == 0 {
                    time_polyanya(&blocked, &mesh, &mut times);
                }
            }
            Err(EditError::OutsideMesh { .. } | EditError::Degenerate { .. }) => {
                times.refused += 1;
                continue;
            }
            Err(e) => return Err(format!("edit: {e}")),
        }
        if placed.len() > live {
            let (id, theirs) = placed.swap_remove(rng.gen_range(0..placed.len()));
            let at = mesh.obstacle(id).map_or(c, |p| p[0]);
            let start = Instant::now();
            mesh.remove_obstacle(id).map_err(|e| e.to_string())?;
            times.remove_ms.push(start.elapsed().as_secs_f64() * 1e3);
            if let Some(theirs) = theirs {
                detour.remove(theirs, &mut times);
            }
            time_first_query(&mut query_rng, &mesh, at, &mut times);
            time_first_raycast(&mut ray_rng, &mesh, at, &mut times);
            time_first_nearest(&mut nearest_rng, &mesh, at, &mut times);
            operation += 1;
            if polyanya_edits > 0 && operation % stride == 0 {
                time_polyanya(&blocked, &mesh, &mut times);
            }
        }
    }
    let walls = mesh.edited_walls(&base);
    for _ in 0..rebuilds {
        let start = Instant::now();
        let built = NavMesh::from_walls(&walls).map_err(|e| e.to_string())?;
        times.rebuild_ms.push(start.elapsed().as_secs_f64() * 1e3);
        if (built.walkable_area() - mesh.walkable_area()).abs() > 1e-5 * built.walkable_area() {
            return Err(format!(
                "edit: the edited mesh's walkable area {} is not the rebuilt one's {}",
                mesh.walkable_area(),
                built.walkable_area()
            ));
        }
    }
    Ok(times)
}

/// Timings of mesh edits made through a running [`World`], in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct WorldEditTimes {
    /// Agents in the world.
    pub agents: usize,
    /// Each `World::add_mesh_obstacle` and `World::remove_mesh_obstacle`: the mesh
    /// edit, the world's walls, who re-plans and who is moved.
    pub edit_ms: Vec<f64>,
    /// The step after each edit (the flagged agents re-plan in it, those a removal
    /// may give a short cut at most `IMPROVE_PER_STEP` a step, and the first of their
    /// queries builds the indexes the edit dropped).
    pub step_ms: Vec<f64>,
    /// Agents marked to re-plan (at once, or over the next steps for a short cut),
    /// over the adds and over the removes.
    pub replanning: [usize; 2],
    /// Agents moved out of a new box, over all edits.
    pub moved: usize,
}

/// A world of `agents` agents (radius 0.5) walking between random walkable points of
/// aurora, stepped once to plan, then `edits` mesh edits through the world, alternately
/// adding a box 10 m across at a random walkable point and removing the last one, each
/// followed by one step (0.1 s).
///
/// # Errors
/// When the level cannot be read or built, or the world refuses a step.
pub fn time_world_edits(
    data: &Path,
    edits: usize,
    agents: usize,
) -> Result<WorldEditTimes, String> {
    use crowdnav::world::{AgentParams, World, WorldParams};
    let path = data.join(EDIT_MAP.1);
    let base = read_walls(&path).map_err(|e| e.to_string())?;
    let mesh = NavMesh::from_walls(&base).map_err(|e| e.to_string())?;
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for &p in mesh.vertices() {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let walkable = |mesh: &NavMesh, rng: &mut ChaCha8Rng, room: f32| loop {
        let p = Vec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
        if mesh.clearance(p).is_some_and(|c| c >= room) {
            return p;
        }
    };
    let pairs: Vec<(Vec2, Vec2)> = (0..agents)
        .map(|_| {
            (
                walkable(&mesh, &mut rng, 0.6),
                walkable(&mesh, &mut rng, 0.6),
            )
        })
        .collect();
    let mut world = World::new(
        Some(mesh),
        Box::new(crowdnav::Orca::default()),
        WorldParams::default(),
    );
    for (from, to) in pairs {
        world
            .add_agent(AgentParams::new(from, to))
            .map_err(|e| e.to_string())?;
    }
    let step = |world: &mut World| world.step(0.1).map_err(|e| e.to_string());
    step(&mut world)?;
    let mut times = WorldEditTimes {
        agents,
        ..WorldEditTimes::default()
    };
    let mut placed: Option<MeshObstacleId> = None;
    for _ in 0..edits {
        let removing = placed.is_some();
        let (start, edit) = match placed.take() {
            Some(id) => (Instant::now(), world.remove_mesh_obstacle(id)),
            None => {
                let mesh = world.mesh().ok_or("edit: the world has no mesh")?;
                let c = walkable(mesh, &mut rng, 0.0);
                let polygon = random_box(&mut rng, c, 10.0);
                let start = Instant::now();
                let edit = world.add_mesh_obstacle(&polygon);
                placed = edit.as_ref().ok().map(|e| e.obstacle);
                (start, edit)
            }
        };
        times.edit_ms.push(start.elapsed().as_secs_f64() * 1e3);
        let edit = edit.map_err(|e| format!("edit: {e}"))?;
        times.moved += edit.moved.len();
        times.replanning[usize::from(removing)] += edit.replanning.len() + edit.improving.len();
        let start = Instant::now();
        step(&mut world)?;
        times.step_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(times)
}
