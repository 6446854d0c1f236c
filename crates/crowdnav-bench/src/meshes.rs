//! Mesh building: crowdnav's triangulation (CDT, clearance, refinement) against
//! polyanya's own triangulation of the same level, merged and baked.
//!
//! Both sides start from the same level: ours from its walls, polyanya from the
//! obstacle polygons of [`BlockedSpace`] (derived once from our mesh, untimed). Each
//! build is checked inside the loop: both meshes must cover the same walkable area.

use crate::blocked::{polyanya_area, BlockedSpace};
use crate::stats::{time_median, time_once};
use crowdnav::mesh::{parse_movingai_map, parse_polyanya_mesh, NavMesh, Walls};
use std::path::Path;

/// The maps of the mesh benchmark: name, file inside the data directory.
pub const MESH_MAPS: [(&str, &str); 3] = [
    ("aurora (polyanya v2 mesh)", "polyanya-v2/aurora.mesh"),
    ("Aurora.map (MovingAI 1024x768)", "movingai/sc1/Aurora.map"),
    ("brc202d.map (MovingAI 530x481)", "movingai/dao/brc202d.map"),
];

/// Relative tolerance on the walkable-area agreement.
pub const AREA_TOLERANCE: f64 = 1e-3;

/// One map's build times.
#[derive(Clone, Debug)]
pub struct MeshBuild {
    /// The map.
    pub name: String,
    /// Seconds to parse the file into walls (ours).
    pub parse_s: f64,
    /// Seconds for our `NavMesh::from_walls` (median).
    pub ours_s: f64,
    /// Seconds for polyanya's triangulation + merge + bake (median).
    pub theirs_s: f64,
    /// Our triangle count.
    pub ours_triangles: usize,
    /// polyanya's polygon count after merging.
    pub theirs_polygons: usize,
    /// Walkable area (ours).
    pub area: f64,
}

/// Builds map `file` on both sides, `reps` times each (median kept).
///
/// # Errors
/// A missing or malformed file, a mesh that does not build, or walkable areas that
/// disagree.
pub fn build_both(data: &Path, name: &str, file: &str, reps: usize) -> Result<MeshBuild, String> {
    let path = data.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (parse_s, walls) = time_once(|| -> Result<Walls, String> {
        if file.ends_with(".map") {
            parse_movingai_map(&text).map_err(|e| format!("{name}: {e}"))
        } else {
            parse_polyanya_mesh(&text).map_err(|e| format!("{name}: {e}"))
        }
    });
    let walls = walls?;
    let build = || NavMesh::from_walls(&walls).map_err(|e| format!("{name}: {e}"));
    let ours = build()?;
    let area = ours.walkable_area();
    let (ours_s, again) = time_median(reps, build);
    if again?.walkable_area() != area {
        return Err(format!("{name}: our mesh changed between builds"));
    }
    let blocked = BlockedSpace::of(&ours);
    let (theirs_s, theirs) = time_median(reps, || blocked.polyanya_mesh(0.0, 0.1));
    let their_area = polyanya_area(&theirs);
    if (their_area - area).abs() > AREA_TOLERANCE * area.max(1.0) {
        return Err(format!(
            "{name}: walkable areas differ: crowdnav {area}, polyanya {their_area}"
        ));
    }
    Ok(MeshBuild {
        name: name.to_owned(),
        parse_s,
        ours_s,
        theirs_s,
        ours_triangles: ours.walkable_triangles().count(),
        theirs_polygons: theirs.layers.iter().map(|l| l.polygons.len()).sum(),
        area,
    })
}
