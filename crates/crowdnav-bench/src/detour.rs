//! DetourCrowd (recastnavigation's crowd, C++, through `recastnavigation-sys`) as the
//! crowd part's third side. Only with the `detour` feature (on by default).
//!
//! **Level.** Recast rasterises the walkable triangles of crowdnav's own mesh of the
//! scenario (for a world without a mesh, such as the open circle, a square around every
//! agent and goal with a margin of 10 m + 4 radii) on the plane y = 0 (x → x, y → z),
//! erodes it by the largest agent radius, partitions it by watershed into polygons of
//! at most 6 vertices and bakes one Detour tile. Cell size: a quarter of the radius,
//! or 1/1024 of the level's extent if that is larger (so the open circles stay a
//! million cells or less); the erosion is then a whole number of cells.
//!
//! **Crowd.** `dtCrowd` with `maxAgents` = the agent count and `maxAgentRadius` = the
//! largest radius. Per agent: the scenario's radius; `maxSpeed` = its *preferred*
//! speed (DetourCrowd walks at `maxSpeed`, the other sides at the preferred speed, so
//! this keeps steps-to-finish comparable); `maxAcceleration` 1 000 m/s² (velocity
//! changes are not limited in practice, like ORCA); `collisionQueryRange` = the world's
//! neighbour distance; `pathOptimizationRange` = 30 radii (RecastDemo's); separation
//! off; anticipate turns, obstacle avoidance, visibility and topology optimisation
//! on; obstacle avoidance with RecastDemo's "High (66)" preset (velocity bias 0.5,
//! 7 divisions, 3 rings, depth 3; DetourCrowd's other defaults, horizon 2.5 s).
//! DetourCrowd keeps at most 6 neighbours per agent (a compile-time constant).
//! Goals go in with `requestMoveTarget` at the nearest point of the navmesh; an agent
//! has arrived once within the world's arrival tolerance of that point.
//!
//! [`tiles`] holds Detour's TileCache (temporary obstacles on a tiled navmesh) for the
//! edit part.
//!
//! Every `unsafe` of the crate is in this module: raw handles are owned by small RAII
//! wrappers that free them with the library's own deallocators.

#![expect(
    unsafe_code,
    reason = "the FFI to recastnavigation (C++); the crate's only unsafe code is here"
)]

use crate::crowd::{build, record_overlaps, Finish};
use crate::stats::Spread;
use crowdnav::bench_support::PointGrid;
use crowdnav::scenario::Scenario;
use crowdnav::world::{Goal, World};
use glam::Vec2;
use recastnavigation_sys as rn;
use std::collections::BTreeSet;
use std::ptr::{null_mut, NonNull};
use std::time::Instant;

/// RecastDemo's obstacle avoidance presets, (name, adaptive divisions, rings, depth);
/// all with velocity bias 0.5. [`PRESET`] is the one used.
const PRESETS: [(&str, u8, u8, u8); 4] = [
    ("Low (11)", 5, 2, 1),
    ("Medium (22)", 5, 2, 2),
    ("Good (45)", 7, 2, 3),
    ("High (66)", 7, 3, 3),
];

/// Index into [`PRESETS`] of the preset the agents use (RecastDemo's default).
pub const PRESET: usize = 3;

/// The obstacle avoidance preset in use, by RecastDemo's name.
pub fn preset_name() -> &'static str {
    PRESETS[PRESET].0
}

/// The most agents DetourCrowd handles: its proximity grid (`dtProximityGrid`) keeps
/// agent ids and the links of its `4 · maxAgents` entries in 16 bits (0xffff ends a
/// chain), so above 16 383 agents its links wrap around and a neighbour query can loop
/// for ever (seen at N = 100 000).
pub const MAX_AGENTS: usize = 0xffff / 4;

/// Why DetourCrowd is not run on `n` agents, if it is not.
pub fn refusal(n: usize) -> Option<String> {
    (n > MAX_AGENTS).then(|| {
        format!("not run: over {MAX_AGENTS} agents (DetourCrowd's proximity grid has 16-bit links)")
    })
}

/// Defines an owner of a raw pointer that frees it on drop with `$free`.
macro_rules! owner {
    ($name:ident, $ty:ty, $free:path) => {
        struct $name(NonNull<$ty>);

        impl $name {
            fn new(p: *mut $ty) -> Result<Self, String> {
                NonNull::new(p)
                    .map(Self)
                    .ok_or_else(|| format!("DetourCrowd: could not allocate {}", stringify!($ty)))
            }

            fn ptr(&self) -> *mut $ty {
                self.0.as_ptr()
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: the pointer came from the matching allocator (`new` takes
                // only those, non-null) and is freed exactly once, here.
                unsafe { $free(self.0.as_ptr()) }
            }
        }
    };
}

owner!(Context, rn::rcContext, rn::DeleteContext);
owner!(Heightfield, rn::rcHeightfield, rn::rcFreeHeightField);
owner!(
    Compact,
    rn::rcCompactHeightfield,
    rn::rcFreeCompactHeightfield
);
owner!(Contours, rn::rcContourSet, rn::rcFreeContourSet);
owner!(PolyMesh, rn::rcPolyMesh, rn::rcFreePolyMesh);
owner!(Detail, rn::rcPolyMeshDetail, rn::rcFreePolyMeshDetail);
owner!(NavMesh, rn::dtNavMesh, rn::dtFreeNavMesh);
owner!(Query, rn::dtNavMeshQuery, rn::dtFreeNavMeshQuery);
owner!(Crowd, rn::dtCrowd, rn::dtFreeCrowd);

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("DetourCrowd: {what} failed"))
    }
}

fn succeeded(status: rn::dtStatus) -> bool {
    status & rn::DT_SUCCESS != 0 && status & rn::DT_FAILURE == 0
}

/// A `dtNavMeshQuery` over `nav` (2 048 search nodes). The query must not outlive
/// `nav`: its owners keep both and drop the query first.
fn query_of(nav: &NavMesh) -> Result<Query, String> {
    // SAFETY: the query is initialised right after allocation with the live navmesh.
    unsafe {
        let query = Query::new(rn::dtAllocNavMeshQuery())?;
        check(
            succeeded((*query.ptr()).init(nav.ptr(), 2048)),
            "dtNavMeshQuery::init",
        )?;
        Ok(query)
    }
}

/// Recast's first steps, shared by the solo navmesh and the tile cache
/// ([`tiles`]): the triangles `geometry` (vertices, indices, one area each) rasterised
/// on `size` cells (across, along) of `cell` (size, height) spanning `bounds`, made
/// compact for agents `walkable_height` cells tall and eroded by `erosion` cells.
///
/// # Safety
/// `ctx` must be a live context.
unsafe fn eroded_compact(
    ctx: &Context,
    (size, cell): ((i32, i32), (f32, f32)),
    (bmin, bmax): ([f32; 3], [f32; 3]),
    (verts, tris, areas): (&[f32], &[i32], &[u8]),
    (walkable_height, erosion): (i32, i32),
) -> Result<Compact, String> {
    // SAFETY: every pointer handed over is owned by a wrapper alive for the whole block
    // or a live Rust buffer of the size the call is told; `tris` holds three indices
    // per area.
    unsafe {
        let hf = Heightfield::new(rn::rcAllocHeightfield())?;
        check(
            rn::rcCreateHeightfield(
                ctx.ptr(),
                hf.ptr(),
                size.0,
                size.1,
                bmin.as_ptr(),
                bmax.as_ptr(),
                cell.0,
                cell.1,
            ),
            "rcCreateHeightfield",
        )?;
        check(
            rn::rcRasterizeTriangles(
                ctx.ptr(),
                verts.as_ptr(),
                (verts.len() / 3) as i32,
                tris.as_ptr(),
                areas.as_ptr(),
                areas.len() as i32,
                hf.ptr(),
                1,
            ),
            "rcRasterizeTriangles",
        )?;
        let chf = Compact::new(rn::rcAllocCompactHeightfield())?;
        check(
            rn::rcBuildCompactHeightfield(ctx.ptr(), walkable_height, 1, hf.ptr(), chf.ptr()),
            "rcBuildCompactHeightfield",
        )?;
        drop(hf);
        check(
            rn::rcErodeWalkableArea(ctx.ptr(), erosion, chf.ptr()),
            "rcErodeWalkableArea",
        )?;
        Ok(chf)
    }
}

/// The bounding box (lower and upper corner) of the triangles' corners; `None` when
/// there is no triangle or a corner is not finite.
fn bounds(triangles: &[[Vec2; 3]]) -> Option<(Vec2, Vec2)> {
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for p in triangles.iter().flatten() {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// A Detour navmesh of one tile over `triangles` (walkable, 2D), eroded by `radius`.
fn navmesh(triangles: &[[Vec2; 3]], radius: f32) -> Result<NavMesh, String> {
    let (lo, hi) = bounds(triangles).ok_or("DetourCrowd: no walkable triangle")?;
    let extent = (hi - lo).max_element();
    let cs = (radius / 4.0).max(extent / 1024.0).max(1e-3);
    let ch = 0.2f32;
    let (lo, hi) = (lo - Vec2::splat(cs), hi + Vec2::splat(cs));
    let width = ((hi.x - lo.x) / cs).ceil() as i32;
    let height = ((hi.y - lo.y) / cs).ceil() as i32;
    let bmin = [lo.x, -1.0, lo.y];
    let bmax = [hi.x, 1.0, hi.y];
    let verts: Vec<f32> = triangles
        .iter()
        .flatten()
        .flat_map(|p| [p.x, 0.0, p.y])
        .collect();
    let tris: Vec<i32> = (0..3 * triangles.len() as i32).collect();
    let areas = vec![rn::RC_WALKABLE_AREA; triangles.len()];
    let walkable_height = (2.0 / ch).ceil() as i32;
    let erosion = (radius / cs).ceil() as i32;
    let nvp = 6;
    // SAFETY: every pointer handed over is either owned by a wrapper alive for the
    // whole block or a live Rust buffer of the size the call is told; the Recast
    // objects are filled in pipeline order, each from the previous one's result.
    unsafe {
        let ctx = Context::new(rn::CreateContext(false))?;
        let chf = eroded_compact(
            &ctx,
            ((width, height), (cs, ch)),
            (bmin, bmax),
            (&verts, &tris, &areas),
            (walkable_height, erosion),
        )?;
        check(
            rn::rcBuildDistanceField(ctx.ptr(), chf.ptr()),
            "rcBuildDistanceField",
        )?;
        check(
            rn::rcBuildRegions(ctx.ptr(), chf.ptr(), 0, 64, 400),
            "rcBuildRegions",
        )?;
        let cset = Contours::new(rn::rcAllocContourSet())?;
        check(
            rn::rcBuildContours(
                ctx.ptr(),
                chf.ptr(),
                1.3,
                0,
                cset.ptr(),
                rn::rcBuildContoursFlags_RC_CONTOUR_TESS_WALL_EDGES as i32,
            ),
            "rcBuildContours",
        )?;
        let pmesh = PolyMesh::new(rn::rcAllocPolyMesh())?;
        check(
            rn::rcBuildPolyMesh(ctx.ptr(), cset.ptr(), nvp, pmesh.ptr()),
            "rcBuildPolyMesh",
        )?;
        let dmesh = Detail::new(rn::rcAllocPolyMeshDetail())?;
        check(
            rn::rcBuildPolyMeshDetail(ctx.ptr(), pmesh.ptr(), chf.ptr(), cs * 6.0, ch, dmesh.ptr()),
            "rcBuildPolyMeshDetail",
        )?;
        let pm = &*pmesh.ptr();
        let dm = &*dmesh.ptr();
        if pm.npolys < 1 {
            return Err("DetourCrowd: Recast made no polygon".into());
        }
        // Every polygon walkable for the default query filter (flags & 0xffff != 0).
        for i in 0..pm.npolys as usize {
            *pm.flags.add(i) = 1;
        }
        // SAFETY: all-zero is a valid value of this plain struct (null pointers, zero
        // counts); the fields used are set below.
        let mut params: rn::dtNavMeshCreateParams = std::mem::zeroed();
        params.verts = pm.verts;
        params.vertCount = pm.nverts;
        params.polys = pm.polys;
        params.polyAreas = pm.areas;
        params.polyFlags = pm.flags;
        params.polyCount = pm.npolys;
        params.nvp = pm.nvp;
        params.detailMeshes = dm.meshes;
        params.detailVerts = dm.verts;
        params.detailVertsCount = dm.nverts;
        params.detailTris = dm.tris;
        params.detailTriCount = dm.ntris;
        params.walkableHeight = 2.0;
        params.walkableRadius = radius;
        params.walkableClimb = ch;
        params.bmin = pm.bmin;
        params.bmax = pm.bmax;
        params.cs = pm.cs;
        params.ch = pm.ch;
        params.buildBvTree = true;
        let mut data: *mut u8 = null_mut();
        let mut size = 0i32;
        check(
            rn::dtCreateNavMeshData(&mut params, &mut data, &mut size),
            "dtCreateNavMeshData",
        )?;
        let nav = match NavMesh::new(rn::dtAllocNavMesh()) {
            Ok(nav) => nav,
            Err(e) => {
                rn::dtFree(data.cast());
                return Err(e);
            }
        };
        // With DT_TILE_FREE_DATA the navmesh owns `data` once init succeeds.
        let status = (*nav.ptr()).init1(data, size, rn::dtTileFlags_DT_TILE_FREE_DATA as i32);
        if !succeeded(status) {
            rn::dtFree(data.cast());
            return Err(format!("DetourCrowd: dtNavMesh::init failed ({status:#x})"));
        }
        Ok(nav)
    }
}

/// The triangles DetourCrowd walks on for `world`: its mesh's walkable triangles, or
/// for an open world a square around all agents and goals.
fn level(world: &World, goals: &[Vec2]) -> Result<Vec<[Vec2; 3]>, String> {
    if let Some(mesh) = world.mesh() {
        return Ok(mesh
            .walkable_triangles()
            .map(|t| mesh.triangle_points(t))
            .collect());
    }
    if !world.walls().is_empty() {
        return Err("DetourCrowd: walls without a mesh are not supported".into());
    }
    let r = world
        .agents()
        .iter()
        .map(|a| a.radius)
        .fold(0.0f32, f32::max);
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    for p in world
        .agents()
        .iter()
        .map(|a| a.position)
        .chain(goals.iter().copied())
    {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let margin = 10.0 + 4.0 * r;
    let (a, c) = (lo - Vec2::splat(margin), hi + Vec2::splat(margin));
    let (b, d) = (Vec2::new(c.x, a.y), Vec2::new(a.x, c.y));
    Ok(vec![[a, b, c], [a, c, d]])
}

/// DetourCrowd's side of the comparison.
pub struct Detour {
    // Drop order = field order: the crowd and the query before the navmesh they use.
    crowd: Crowd,
    query: Query,
    _nav: NavMesh,
    filter: rn::dtQueryFilter,
    /// Positions, read back after every step.
    pub position: Vec<Vec2>,
    radius: Vec<f32>,
    /// Each agent's goal as given to DetourCrowd (the nearest point of its navmesh).
    pub target: Vec<Vec2>,
    /// Whether each agent has come within the arrival tolerance of its goal.
    pub arrived: Vec<bool>,
    arrival_tolerance: f32,
    grid: PointGrid,
    /// Agent pairs ever left overlapping by more than 1 % of the smaller radius.
    pub overlapping_pairs: BTreeSet<(u32, u32)>,
}

impl Detour {
    /// DetourCrowd's copy of `world` now (positions, velocities, goals).
    ///
    /// # Errors
    /// The navmesh does not build, or an agent or a goal is not on it.
    pub fn from_world(world: &World) -> Result<Detour, String> {
        let agents = world.agents();
        if agents.is_empty() {
            return Err("DetourCrowd: no agents".into());
        }
        if let Some(why) = refusal(agents.len()) {
            return Err(format!("DetourCrowd: {why}"));
        }
        let params = world.params();
        let goals: Vec<Vec2> = agents
            .iter()
            .map(|a| match a.goal {
                Goal::Point(g) => g,
                _ => a.position,
            })
            .collect();
        let max_radius = agents.iter().map(|a| a.radius).fold(0.0f32, f32::max);
        let nav = navmesh(&level(world, &goals)?, max_radius)?;
        // SAFETY: the query, the crowd and the filter are initialised right after
        // allocation with the live navmesh, which `Detour` keeps (and drops last);
        // agent indices come from `addAgent` and stay below the agent count.
        unsafe {
            let query = query_of(&nav)?;
            let crowd = Crowd::new(rn::dtAllocCrowd())?;
            let n = i32::try_from(agents.len()).map_err(|e| e.to_string())?;
            check(
                (*crowd.ptr()).init(n, max_radius, nav.ptr()),
                "dtCrowd::init",
            )?;
            let mut avoid = *(*crowd.ptr()).getObstacleAvoidanceParams(0);
            let (_, divs, rings, depth) = PRESETS[PRESET];
            avoid.velBias = 0.5;
            avoid.adaptiveDivs = divs;
            avoid.adaptiveRings = rings;
            avoid.adaptiveDepth = depth;
            (*crowd.ptr()).setObstacleAvoidanceParams(PRESET as i32, &avoid);
            let mut detour = Detour {
                crowd,
                query,
                _nav: nav,
                filter: rn::dtQueryFilter::new(),
                position: agents.iter().map(|a| a.position).collect(),
                radius: agents.iter().map(|a| a.radius).collect(),
                target: Vec::with_capacity(agents.len()),
                arrived: vec![false; agents.len()],
                arrival_tolerance: params.arrival_tolerance,
                grid: PointGrid::default(),
                overlapping_pairs: BTreeSet::new(),
            };
            let flags = rn::UpdateFlags_DT_CROWD_ANTICIPATE_TURNS
                | rn::UpdateFlags_DT_CROWD_OBSTACLE_AVOIDANCE
                | rn::UpdateFlags_DT_CROWD_OPTIMIZE_VIS
                | rn::UpdateFlags_DT_CROWD_OPTIMIZE_TOPO;
            for (i, (a, &goal)) in agents.iter().zip(&goals).enumerate() {
                let ap = rn::dtCrowdAgentParams {
                    radius: a.radius,
                    height: 2.0,
                    maxAcceleration: 1000.0,
                    maxSpeed: a.pref_speed,
                    collisionQueryRange: params.neighbor_dist.max(a.radius),
                    pathOptimizationRange: 30.0 * a.radius,
                    separationWeight: 0.0,
                    updateFlags: flags as u8,
                    obstacleAvoidanceType: PRESET as u8,
                    queryFilterType: 0,
                    userData: null_mut(),
                };
                let pos = [a.position.x, 0.0, a.position.y];
                let idx = (*detour.crowd.ptr()).addAgent(pos.as_ptr(), &ap);
                if usize::try_from(idx).ok() != Some(i) {
                    return Err(format!("DetourCrowd: agent {i} could not be added"));
                }
                let (poly, near) = detour.nearest(goal, 2.0 * a.radius + 1.0);
                if poly == 0 {
                    return Err(format!(
                        "DetourCrowd: the goal of agent {i} is off its navmesh"
                    ));
                }
                check(
                    (*detour.crowd.ptr()).requestMoveTarget(idx, poly, near.as_ptr()),
                    "dtCrowd::requestMoveTarget",
                )?;
                detour.target.push(Vec2::new(near[0], near[2]));
                let ag = (*detour.crowd.ptr()).getEditableAgent(idx);
                if ag.is_null() {
                    return Err(format!("DetourCrowd: agent {i} is missing"));
                }
                (*ag).vel = [a.velocity.x, 0.0, a.velocity.y];
                (*ag).nvel = (*ag).vel;
            }
            detour.read_back()?;
            Ok(detour)
        }
    }

    /// The nearest navmesh polygon to `p` within `reach` (0 if none) and the nearest
    /// point on it.
    fn nearest(&self, p: Vec2, reach: f32) -> (rn::dtPolyRef, [f32; 3]) {
        find_nearest(&self.query, &self.filter, p, reach)
    }

    /// Copies every agent's position out of the crowd; fails if an agent is gone or
    /// no longer walking on the navmesh.
    fn read_back(&mut self) -> Result<(), String> {
        // SAFETY: the crowd is initialised; indices are below its agent count.
        unsafe {
            let crowd = self.crowd.ptr();
            if usize::try_from((*crowd).getAgentCount()).ok() != Some(self.position.len()) {
                return Err("DetourCrowd: the agent count changed".into());
            }
            for (i, p) in self.position.iter_mut().enumerate() {
                let ag = (*crowd).getAgent(i as i32);
                if ag.is_null() || !(*ag).active {
                    return Err(format!("DetourCrowd: agent {i} is gone"));
                }
                if u32::from((*ag).state) != rn::CrowdAgentState_DT_CROWDAGENT_STATE_WALKING {
                    return Err(format!("DetourCrowd: agent {i} is off the navmesh"));
                }
                *p = Vec2::new((*ag).npos[0], (*ag).npos[2]);
            }
        }
        Ok(())
    }

    /// Whether every agent has arrived.
    pub fn all_arrived(&self) -> bool {
        self.arrived.iter().all(|&a| a)
    }

    /// Advances by `dt` seconds (`dtCrowd::update`); with `measure`, records
    /// overlapping pairs afterwards.
    ///
    /// # Errors
    /// An agent is gone or off the navmesh.
    pub fn step(&mut self, dt: f32, measure: bool) -> Result<(), String> {
        // SAFETY: the crowd is initialised; a null debug pointer is allowed.
        unsafe { (*self.crowd.ptr()).update(dt, null_mut()) };
        self.read_back()?;
        for ((p, t), a) in self
            .position
            .iter()
            .zip(&self.target)
            .zip(&mut self.arrived)
        {
            if p.distance(*t) <= self.arrival_tolerance {
                *a = true;
            }
        }
        if measure {
            record_overlaps(
                &mut self.grid,
                &self.position,
                &self.radius,
                &mut self.overlapping_pairs,
            );
        }
        Ok(())
    }

    /// Checks that every position is finite and on the navmesh (within 1 cm of the
    /// nearest point of a polygon).
    ///
    /// # Errors
    /// Names the first agent that is not.
    pub fn check_positions(&self) -> Result<(), String> {
        for (i, (&p, &r)) in self.position.iter().zip(&self.radius).enumerate() {
            if !p.is_finite() {
                return Err(format!("DetourCrowd: agent {i}'s position is not finite"));
            }
            let (poly, near) = self.nearest(p, r.max(0.5));
            if poly == 0 || Vec2::new(near[0], near[2]).distance(p) > 0.01 {
                return Err(format!("DetourCrowd: agent {i} at {p} is off the navmesh"));
            }
        }
        Ok(())
    }
}

/// Runs `warmup` steps of our world, copies it to DetourCrowd, then times `steps` of
/// DetourCrowd's steps (single-threaded: DetourCrowd has no parallel update), checking
/// every position after each.
///
/// # Errors
/// The world or DetourCrowd's navmesh does not build, or a check fails.
pub fn time_steps(scenario: &Scenario, warmup: usize, steps: usize) -> Result<Spread, String> {
    let dt = scenario.dt;
    let mut world = build(scenario)?;
    for _ in 0..warmup {
        world.step(dt).map_err(|e| e.to_string())?;
    }
    let mut detour = Detour::from_world(&world)?;
    detour.step(dt, false)?; // warm-up: the first paths
    let mut ms = Vec::new();
    for _ in 0..steps.max(1) {
        let t0 = Instant::now();
        detour.step(dt, false)?;
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
        detour
            .check_positions()
            .map_err(|e| format!("{}: {e}", scenario.name))?;
    }
    Ok(Spread::of(&ms))
}

/// Runs `scenario` from its start on DetourCrowd until every agent arrives or `cap`
/// steps pass.
///
/// # Errors
/// The world or DetourCrowd's navmesh does not build, or a check fails.
pub fn run_to_finish(scenario: &Scenario, cap: u64) -> Result<Finish, String> {
    let world = build(scenario)?;
    let mut detour = Detour::from_world(&world)?;
    let t0 = Instant::now();
    let mut steps = 0;
    while steps < cap && !detour.all_arrived() {
        detour.step(scenario.dt, true)?;
        steps += 1;
    }
    let seconds = t0.elapsed().as_secs_f64();
    detour
        .check_positions()
        .map_err(|e| format!("{}: {e}", scenario.name))?;
    Ok(Finish {
        steps,
        finished: detour.all_arrived(),
        arrived: detour.arrived.iter().filter(|&&a| a).count(),
        overlapping_pairs: detour.overlapping_pairs.len(),
        seconds,
    })
}

/// Detour's `dtNavMeshQuery` over a navmesh of walkable triangles eroded by an agent
/// radius, for the queries part: `raycast`, `findNearestPoly`, `findRandomPoint`.
pub struct DetourQueries {
    // Drop order = field order: the query before the navmesh it uses.
    query: Query,
    _nav: NavMesh,
    filter: rn::dtQueryFilter,
}

thread_local! {
    /// The generator behind [`frand`], Detour's random source.
    static FRAND: std::cell::RefCell<crate::queries::SplitMix> =
        std::cell::RefCell::new(crate::queries::SplitMix::new(0));
}

/// Detour's `frand`: uniform in `[0, 1)` from this thread's [`FRAND`].
extern "C" fn frand() -> f32 {
    FRAND.with(|g| g.borrow_mut().unit_f32())
}

impl DetourQueries {
    /// Detour's navmesh of `triangles` (walkable, 2D), eroded by `radius` as the crowd
    /// part builds it, and a query object on it.
    ///
    /// # Errors
    /// Recast or Detour fails to build or initialise.
    pub fn new(triangles: &[[Vec2; 3]], radius: f32) -> Result<DetourQueries, String> {
        let nav = navmesh(triangles, radius)?;
        // SAFETY: Detour's own constructor makes the filter; the query uses the
        // navmesh, which `DetourQueries` keeps (and drops last).
        unsafe {
            let query = query_of(&nav)?;
            Ok(DetourQueries {
                query,
                _nav: nav,
                filter: rn::dtQueryFilter::new(),
            })
        }
    }

    /// `findNearestPoly` in the box of half-width `reach` around `p`: the polygon and
    /// the nearest point on it, if any.
    pub fn nearest(&self, p: Vec2, reach: f32) -> Option<(rn::dtPolyRef, Vec2)> {
        let (poly, near) = find_nearest(&self.query, &self.filter, p, reach);
        (poly != 0).then(|| (poly, Vec2::new(near[0], near[2])))
    }

    /// `raycast` from `from` (in polygon `start`) towards `to`: the hit fraction, or
    /// `None` when the ray reaches `to`.
    pub fn raycast(&self, start: rn::dtPolyRef, from: Vec2, to: Vec2) -> Option<f32> {
        let (a, b) = ([from.x, 0.0, from.y], [to.x, 0.0, to.y]);
        // SAFETY: the query is initialised; the points are live arrays of 3; `hit`
        // asks for no visited-polygon list (null path, zero capacity).
        unsafe {
            let mut hit: rn::dtRaycastHit = std::mem::zeroed();
            let status = (*self.query.ptr()).raycast1(
                start,
                a.as_ptr(),
                b.as_ptr(),
                &self.filter,
                0,
                &mut hit,
                0,
            );
            (succeeded(status) && hit.t <= 1.0).then_some(hit.t)
        }
    }

    /// Seeds the random source of [`DetourQueries::random_point`] on this thread.
    pub fn seed(seed: u64) {
        FRAND.with(|g| *g.borrow_mut() = crate::queries::SplitMix::new(seed));
    }

    /// `findRandomPoint`: a point uniform by area over the navmesh.
    pub fn random_point(&self) -> Option<Vec2> {
        let (mut poly, mut p) = (0, [0.0f32; 3]);
        // SAFETY: the query is initialised; `frand` is a plain function; the output
        // point is a live array of 3.
        let status = unsafe {
            (*self.query.ptr()).findRandomPoint(
                &self.filter,
                Some(frand),
                &mut poly,
                p.as_mut_ptr(),
            )
        };
        (succeeded(status) && poly != 0).then(|| Vec2::new(p[0], p[2]))
    }
}

/// `findNearestPoly` in the box of half-width `reach` around `p`: the polygon (0 if
/// none) and the nearest point on it.
fn find_nearest(
    query: &Query,
    filter: &rn::dtQueryFilter,
    p: Vec2,
    reach: f32,
) -> (rn::dtPolyRef, [f32; 3]) {
    let (mut poly, mut near) = (0, [p.x, 0.0, p.y]);
    let center = [p.x, 0.0, p.y];
    let half = [reach, 1.0, reach];
    // SAFETY: the query is initialised; the arrays are live and of length 3.
    let status = unsafe {
        (*query.ptr()).findNearestPoly(
            center.as_ptr(),
            half.as_ptr(),
            filter,
            &mut poly,
            near.as_mut_ptr(),
        )
    };
    if succeeded(status) {
        (poly, near)
    } else {
        (0, near)
    }
}

/// Detour's TileCache, the edit part's third side (`detour_tiles.rs`).
#[path = "detour_tiles.rs"]
pub mod tiles;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_circle_walks_on_the_navmesh_and_arrives() {
        let scenario = crate::crowd::circle(20).expect("the circle");
        let finish = run_to_finish(&scenario, 3_000).expect("DetourCrowd runs");
        assert!(finish.finished, "{finish:?}");
        assert_eq!(finish.arrived, 20);
    }

    #[test]
    fn too_many_agents_are_refused_not_run() {
        assert!(refusal(MAX_AGENTS).is_none());
        assert!(refusal(MAX_AGENTS + 1).is_some());
        let scenario = crate::crowd::circle(MAX_AGENTS + 1).expect("the circle");
        let world = build(&scenario).expect("the world");
        assert!(Detour::from_world(&world).is_err());
    }

    #[test]
    fn the_bottleneck_navmesh_keeps_agents_out_of_the_walls() {
        let scenario = crate::crowd::bottleneck().expect("the bottleneck");
        let world = build(&scenario).expect("the world");
        let detour = Detour::from_world(&world).expect("DetourCrowd builds");
        // A point inside the wall between the room and the hall is off the navmesh;
        // one in the door and one in the room are on it.
        let (poly, near) = detour.nearest(Vec2::new(30.5, 8.0), 0.2);
        // No polygon within the 0.2 m reach, or its nearest point clearly apart (half
        // the reach), not the point itself.
        assert!(poly == 0 || Vec2::new(near[0], near[2]).distance(Vec2::new(30.5, 8.0)) > 0.1);
        assert_ne!(detour.nearest(Vec2::new(30.5, 15.0), 0.1).0, 0);
        assert_ne!(detour.nearest(Vec2::new(10.0, 10.0), 0.1).0, 0);
    }
}
