//! Detour's TileCache (`dtTileCache`, through `recastnavigation-sys`'s
//! `detour_tile_cache` feature) as the edit part's third side: temporary obstacles
//! added to and removed from a tiled navmesh, each tile they touch rebuilt from its
//! cached heightfield layer.
//!
//! **Build.** The walkable triangles of crowdnav's mesh of the level, on the plane
//! y = 0 (x → x, y → z), are cut into square tiles of [`TILE_CELLS`] cells of
//! [`CELL`] metres. Per tile, Recast rasterises the triangles that reach the tile and
//! its border (the erosion plus 3 cells, as RecastDemo's *temp obstacles* sample),
//! erodes the walkable area by the agent radius and splits it into heightfield layers
//! (`rcBuildHeightfieldLayers`; one per tile on a flat level), each stored in the tile
//! cache by `dtBuildTileCacheLayer` through a no-op compressor (the layer is copied
//! as it is: a real compressor, such as RecastDemo's FastLZ, only adds time to every
//! rebuild). Then every tile's polygons are built into a `dtNavMesh`
//! (`buildNavMeshTilesAt`); a mesh process callback marks every walkable polygon
//! passable for the default query filter.
//!
//! **An edit.** `addBoxObstacle(center, halfExtents, yRadians)` (an oriented box) or
//! `removeObstacle`, then `update` called until it reports the cache up to date. Each
//! call rebuilds at most one tile: it decompresses the layer, marks the cells of every
//! obstacle touching the tile unwalkable, and rebuilds the tile's regions, contours and
//! polygons. The cells an obstacle marks are **not** eroded by the agent radius (the
//! erosion happened when the layer was cached), so the box is grown by the radius
//! beforehand: an oriented box of half-side `half + radius`, which covers the
//! Minkowski sum of the box and the disc save at its four corners (square where the
//! exact sum is round, at most `(√2 - 1) · radius` further out).

use super::{check, succeeded, Context, NavMesh};
use glam::Vec2;
use recastnavigation_sys as rn;
use std::ffi::c_void;
use std::os::raw::{c_int, c_uchar, c_ushort};
use std::ptr::{null_mut, NonNull};

/// Cell size of the tiled heightfield, metres: half the agent radius of the edit part
/// (0.5 m), so that the erosion is a whole two cells.
pub const CELL: f32 = 0.25;

/// Side of a tile in cells (16 m at [`CELL`]).
pub const TILE_CELLS: i32 = 64;

/// Height of a cell, metres (the level is flat: one cell is enough).
const CELL_HEIGHT: f32 = 0.2;

/// Obstacles the cache holds at most.
const MAX_OBSTACLES: c_int = 256;

/// Layers a tile may hold (one on a flat level).
const MAX_LAYERS: i32 = 4;

owner!(Cache, rn::dtTileCache, rn::dtFreeTileCache);
owner!(Alloc, rn::dtTileCacheAlloc, rn::DeleteTileCacheAlloc);
owner!(
    Compressor,
    rn::dtTileCacheCompressor,
    rn::DeleteTileCacheCompressor
);
owner!(
    MeshProcess,
    rn::dtTileCacheMeshProcess,
    rn::DeleteTileCacheMeshProcess
);
owner!(
    LayerSet,
    rn::rcHeightfieldLayerSet,
    rn::rcFreeHeightfieldLayerSet
);

/// A level in Detour's TileCache: the cache, the tiled navmesh it keeps up to date,
/// and the callbacks it was built with.
pub struct TileCache {
    // Drop order = field order: the cache (which uses the callbacks) first.
    cache: Cache,
    nav: NavMesh,
    _alloc: Alloc,
    _compressor: Compressor,
    _process: MeshProcess,
    /// Agent radius the layers were eroded by, metres.
    radius: f32,
    /// Tiles along x and along z.
    pub tiles: (i32, i32),
}

/// The no-op compressor's bound: the data as it is.
unsafe extern "C" fn max_compressed_size(_: *mut c_void, size: c_int) -> c_int {
    size
}

/// Copies `size` bytes from `from` to `to` (room for `room`) and reports the size.
///
/// # Safety
/// `from` must hold `size` bytes, `to` `room` bytes, and `out` must be writable.
unsafe fn copy(
    from: *const c_uchar,
    size: c_int,
    to: *mut c_uchar,
    room: c_int,
    out: *mut c_int,
) -> rn::dtStatus {
    if size < 0 || size > room || from.is_null() || to.is_null() || out.is_null() {
        return rn::DT_FAILURE | rn::DT_BUFFER_TOO_SMALL;
    }
    // SAFETY: both buffers hold at least `size` bytes (the caller's contract, checked
    // against `room` above) and Detour never hands overlapping buffers.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, size as usize);
        *out = size;
    }
    rn::DT_SUCCESS
}

/// The no-op compressor's `compress`: a copy.
unsafe extern "C" fn compress(
    _: *mut c_void,
    buffer: *const c_uchar,
    size: c_int,
    compressed: *mut c_uchar,
    room: c_int,
    out: *mut c_int,
) -> rn::dtStatus {
    // SAFETY: Detour hands a buffer of `size` bytes and room for `room` (at least
    // `max_compressed_size(size)`) bytes.
    unsafe { copy(buffer, size, compressed, room, out) }
}

/// The no-op compressor's `decompress`: a copy.
unsafe extern "C" fn decompress(
    _: *mut c_void,
    compressed: *const c_uchar,
    size: c_int,
    buffer: *mut c_uchar,
    room: c_int,
    out: *mut c_int,
) -> rn::dtStatus {
    // SAFETY: as in `compress`.
    unsafe { copy(compressed, size, buffer, room, out) }
}

/// The mesh process: every walkable polygon gets flag 1 (passable for the default
/// query filter).
unsafe extern "C" fn process(
    _: *mut c_void,
    params: *mut rn::dtNavMeshCreateParams,
    areas: *mut c_uchar,
    flags: *mut c_ushort,
) {
    if params.is_null() || areas.is_null() || flags.is_null() {
        return;
    }
    // SAFETY: Detour hands the tile's parameters and its `polyCount` areas and flags.
    unsafe {
        let count = (*params).polyCount.max(0) as usize;
        for i in 0..count {
            if *areas.add(i) == rn::DT_TILECACHE_WALKABLE_AREA {
                *flags.add(i) = 1;
            }
        }
    }
}

/// The smallest power of two at least `n` (at least 1).
fn pow2(n: i32) -> i32 {
    (n.max(1) as u32).next_power_of_two() as i32
}

impl TileCache {
    /// Detour's tile cache over `triangles` (walkable, 2D), eroded by `radius`, and the
    /// navmesh of all its tiles.
    ///
    /// # Errors
    /// Recast or Detour fails to build or initialise, or the level is empty.
    pub fn new(triangles: &[[Vec2; 3]], radius: f32) -> Result<TileCache, String> {
        let (lo, hi) = super::bounds(triangles).ok_or("Detour TileCache: no walkable triangle")?;
        let tile = TILE_CELLS as f32 * CELL;
        let tiles = (
            ((hi.x - lo.x) / tile).ceil().max(1.0) as i32,
            ((hi.y - lo.y) / tile).ceil().max(1.0) as i32,
        );
        let erosion = (radius / CELL).ceil() as i32;
        let border = erosion + 3;
        let walkable_height = (2.0 / CELL_HEIGHT).ceil() as i32;
        let orig = [lo.x, -1.0, lo.y];
        // Tile and polygon bits share 22 bits of a polygon reference.
        let tile_bits = pow2(tiles.0 * tiles.1 * MAX_LAYERS).trailing_zeros() as i32;
        if tile_bits > 16 {
            return Err(format!(
                "Detour TileCache: {} × {} tiles is too many",
                tiles.0, tiles.1
            ));
        }
        let tc_params = rn::dtTileCacheParams {
            orig,
            cs: CELL,
            ch: CELL_HEIGHT,
            width: TILE_CELLS,
            height: TILE_CELLS,
            walkableHeight: 2.0,
            walkableRadius: radius,
            walkableClimb: CELL_HEIGHT,
            maxSimplificationError: 1.3,
            maxTiles: tiles.0 * tiles.1 * MAX_LAYERS,
            maxObstacles: MAX_OBSTACLES,
        };
        let nav_params = rn::dtNavMeshParams {
            orig,
            tileWidth: tile,
            tileHeight: tile,
            maxTiles: 1 << tile_bits,
            maxPolys: 1 << (22 - tile_bits),
        };
        // The triangles reaching each tile (with its border).
        let pad = border as f32 * CELL;
        let mut per_tile: Vec<Vec<u32>> = vec![Vec::new(); (tiles.0 * tiles.1) as usize];
        for (i, t) in triangles.iter().enumerate() {
            let tlo = t[0].min(t[1]).min(t[2]) - lo - Vec2::splat(pad);
            let thi = t[0].max(t[1]).max(t[2]) - lo + Vec2::splat(pad);
            let clamp = |v: f32, n: i32| ((v / tile).floor() as i32).clamp(0, n - 1);
            for ty in clamp(tlo.y, tiles.1)..=clamp(thi.y, tiles.1) {
                for tx in clamp(tlo.x, tiles.0)..=clamp(thi.x, tiles.0) {
                    per_tile[(ty * tiles.0 + tx) as usize].push(i as u32);
                }
            }
        }
        // SAFETY: every pointer handed over is owned by a wrapper alive for the whole
        // block (the cache's callbacks outlive the cache: `TileCache` drops it first)
        // or a live Rust buffer of the size the call is told; the Recast objects are
        // filled in pipeline order, each from the previous one's result.
        unsafe {
            let alloc = Alloc::new(rn::CreateDefaultTileCacheAlloc())?;
            let compressor = Compressor::new(rn::CreateForwardedTileCacheCompressor(
                null_mut(),
                Some(max_compressed_size),
                Some(compress),
                Some(decompress),
            ))?;
            let process = MeshProcess::new(rn::CreateForwardedTileCacheMeshProcess(
                null_mut(),
                Some(process),
            ))?;
            let cache = Cache::new(rn::dtAllocTileCache())?;
            check(
                succeeded((*cache.ptr()).init(
                    &tc_params,
                    alloc.ptr(),
                    compressor.ptr(),
                    process.ptr(),
                )),
                "dtTileCache::init",
            )?;
            let nav = NavMesh::new(rn::dtAllocNavMesh())?;
            check(
                succeeded((*nav.ptr()).init(&nav_params)),
                "dtNavMesh::init (tiled)",
            )?;
            let ctx = Context::new(rn::CreateContext(false))?;
            let side = TILE_CELLS + 2 * border;
            for ty in 0..tiles.1 {
                for tx in 0..tiles.0 {
                    let list = &per_tile[(ty * tiles.0 + tx) as usize];
                    if list.is_empty() {
                        continue;
                    }
                    let bmin = [
                        orig[0] + tx as f32 * tile - pad,
                        -1.0,
                        orig[2] + ty as f32 * tile - pad,
                    ];
                    let bmax = [
                        bmin[0] + side as f32 * CELL,
                        1.0,
                        bmin[2] + side as f32 * CELL,
                    ];
                    let verts: Vec<f32> = list
                        .iter()
                        .flat_map(|&i| triangles[i as usize])
                        .flat_map(|p| [p.x, 0.0, p.y])
                        .collect();
                    let tris: Vec<i32> = (0..3 * list.len() as i32).collect();
                    let areas = vec![rn::RC_WALKABLE_AREA; list.len()];
                    let layers = layers_of(
                        &ctx,
                        side,
                        (bmin, bmax),
                        (&verts, &tris, &areas),
                        (walkable_height, erosion, border),
                    )?;
                    let set = &*layers.ptr();
                    for l in 0..set.nlayers.clamp(0, MAX_LAYERS) {
                        let layer = &*set.layers.add(l as usize);
                        let mut header: rn::dtTileCacheLayerHeader = std::mem::zeroed();
                        header.magic = rn::DT_TILECACHE_MAGIC;
                        header.version = rn::DT_TILECACHE_VERSION;
                        header.tx = tx;
                        header.ty = ty;
                        header.tlayer = l;
                        header.bmin = layer.bmin;
                        header.bmax = layer.bmax;
                        header.width = layer.width as u8;
                        header.height = layer.height as u8;
                        header.minx = layer.minx as u8;
                        header.maxx = layer.maxx as u8;
                        header.miny = layer.miny as u8;
                        header.maxy = layer.maxy as u8;
                        header.hmin = layer.hmin as u16;
                        header.hmax = layer.hmax as u16;
                        let (mut data, mut size): (*mut u8, c_int) = (null_mut(), 0);
                        check(
                            succeeded(rn::dtBuildTileCacheLayer(
                                compressor.ptr(),
                                &mut header,
                                layer.heights,
                                layer.areas,
                                layer.cons,
                                &mut data,
                                &mut size,
                            )),
                            "dtBuildTileCacheLayer",
                        )?;
                        // With DT_COMPRESSEDTILE_FREE_DATA the cache owns `data` once
                        // the tile is added.
                        let status = (*cache.ptr()).addTile(
                            data,
                            size,
                            rn::dtCompressedTileFlags_DT_COMPRESSEDTILE_FREE_DATA as u8,
                            null_mut(),
                        );
                        if !succeeded(status) {
                            rn::dtFree(data.cast());
                            return Err(format!("Detour TileCache: addTile failed ({status:#x})"));
                        }
                    }
                }
            }
            for ty in 0..tiles.1 {
                for tx in 0..tiles.0 {
                    check(
                        succeeded((*cache.ptr()).buildNavMeshTilesAt(tx, ty, nav.ptr())),
                        "dtTileCache::buildNavMeshTilesAt",
                    )?;
                }
            }
            Ok(TileCache {
                cache,
                nav,
                _alloc: alloc,
                _compressor: compressor,
                _process: process,
                radius,
                tiles,
            })
        }
    }

    /// Adds the square `half` metres in half-side centred at `center` and turned by
    /// `angle` (radians, counter-clockwise in the level's plane), grown by the agent
    /// radius (see the module's docs), and updates the cache until it is up to date.
    /// Returns the obstacle and the number of `update` calls made.
    ///
    /// # Errors
    /// Detour refuses the obstacle (full) or fails to rebuild a tile.
    pub fn add_box(&mut self, center: Vec2, half: f32, angle: f32) -> Result<(u32, usize), String> {
        let c = [center.x, 0.0, center.y];
        let h = [half + self.radius, 1.0, half + self.radius];
        let mut id = 0;
        // Detour turns the box by -yRadians in the (x, z) plane; the level's y is z.
        // SAFETY: the cache is initialised; the arrays are live and of length 3.
        let status =
            unsafe { (*self.cache.ptr()).addBoxObstacle1(c.as_ptr(), h.as_ptr(), -angle, &mut id) };
        check(succeeded(status), "dtTileCache::addBoxObstacle")?;
        Ok((id, self.update()?))
    }

    /// Removes obstacle `id` and updates the cache until it is up to date. Returns the
    /// number of `update` calls made.
    ///
    /// # Errors
    /// Detour does not know the obstacle or fails to rebuild a tile.
    pub fn remove(&mut self, id: u32) -> Result<usize, String> {
        // SAFETY: the cache is initialised.
        let status = unsafe { (*self.cache.ptr()).removeObstacle(id) };
        check(succeeded(status), "dtTileCache::removeObstacle")?;
        self.update()
    }

    /// Calls `update` until the cache is up to date; returns how many calls it took.
    fn update(&mut self) -> Result<usize, String> {
        let mut calls = 0;
        loop {
            let mut done = false;
            calls += 1;
            // SAFETY: the cache and the navmesh it builds into are initialised.
            let status = unsafe { (*self.cache.ptr()).update(0.0, self.nav.ptr(), &mut done) };
            check(succeeded(status), "dtTileCache::update")?;
            if done {
                return Ok(calls);
            }
            if calls > 100_000 {
                return Err("Detour TileCache: update never finished".into());
            }
        }
    }

    /// Whether `p` lies on the navmesh: a polygon within 1 cm of it.
    pub fn on_navmesh(&self, p: Vec2) -> Result<bool, String> {
        let query = super::query_of(&self.nav)?;
        // SAFETY: Detour's own constructor makes the filter.
        let filter = unsafe { rn::dtQueryFilter::new() };
        let (poly, near) = super::find_nearest(&query, &filter, p, 0.01);
        Ok(poly != 0 && Vec2::new(near[0], near[2]).distance(p) < 1e-3)
    }
}

/// The heightfield layers of one tile: the triangles `geometry` (vertices, indices,
/// areas) rasterised on `side × side` cells spanning `bounds`, filtered, eroded by
/// `erosion` cells and split into layers (`params`: walkable height, erosion and
/// border, in cells).
///
/// # Safety
/// `ctx` must be a live context.
unsafe fn layers_of(
    ctx: &Context,
    side: i32,
    bounds: ([f32; 3], [f32; 3]),
    geometry: (&[f32], &[i32], &[u8]),
    params: (i32, i32, i32),
) -> Result<LayerSet, String> {
    let (bmin, bmax) = bounds;
    let (verts, tris, areas) = geometry;
    let (walkable_height, erosion, border) = params;
    // SAFETY: every pointer handed over is owned by a wrapper alive for the whole block
    // or a live Rust buffer of the size the call is told.
    unsafe {
        let chf = super::eroded_compact(
            ctx,
            ((side, side), (CELL, CELL_HEIGHT)),
            (bmin, bmax),
            (verts, tris, areas),
            (walkable_height, erosion),
        )?;
        let set = LayerSet::new(rn::rcAllocHeightfieldLayerSet())?;
        check(
            rn::rcBuildHeightfieldLayers(ctx.ptr(), chf.ptr(), border, walkable_height, set.ptr()),
            "rcBuildHeightfieldLayers",
        )?;
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 48 × 32 m room as two triangles.
    fn room() -> Vec<[Vec2; 3]> {
        let [a, b, c, d] = [(0.0, 0.0), (48.0, 0.0), (48.0, 32.0), (0.0, 32.0)].map(Vec2::from);
        vec![[a, b, c], [a, c, d]]
    }

    #[test]
    fn a_box_obstacle_cuts_the_navmesh_and_its_removal_gives_the_floor_back() {
        let mut cache = TileCache::new(&room(), 0.5).expect("the tile cache builds");
        assert_eq!(cache.tiles, (3, 2));
        let (centre, beside) = (Vec2::new(16.0, 16.0), Vec2::new(16.0, 23.5));
        assert!(cache.on_navmesh(centre).expect("query"));
        // A 10 m square turned by 30°, across the corner of four tiles.
        let (id, calls) = cache
            .add_box(centre, 5.0, 30f32.to_radians())
            .expect("added");
        assert!(calls >= 4, "{calls} updates for a box over four tiles");
        assert!(!cache.on_navmesh(centre).expect("query"));
        // Turned the right way: 7 m out towards a corner of the grown box (at 75°, 7.8
        // m out), inside it; the box turned the other way ends 5.7 m out that way.
        let corner = centre + 7.0 * Vec2::from_angle(75f32.to_radians());
        assert!(!cache.on_navmesh(corner).expect("query"));
        // 7.5 m above the centre: outside the box grown by the radius (5.5 m half-side
        // turned by 30°: at most 5.5 / cos 30° = 6.35 m up), on the floor.
        assert!(cache.on_navmesh(beside).expect("query"));
        cache.remove(id).expect("removed");
        assert!(cache.on_navmesh(centre).expect("query"));
    }
}
