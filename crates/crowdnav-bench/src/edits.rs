//! Run-time obstacle edits on aurora: `NavMesh::add_obstacle` and `remove_obstacle`
//! of boxes about 10 m across, against a full build of the edited level
//! (`NavMesh::from_walls`).

use crowdnav::geom::Segment;
use crowdnav::mesh::{read_walls, Location, NavMesh, Walls};
use crowdnav::{EditError, MeshObstacleId};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::time::Instant;

/// The level the edit part runs on.
pub const EDIT_MAP: (&str, &str) = ("aurora", "polyanya-v2/aurora.mesh");

/// Timings of one edit run, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct EditTimes {
    /// Each timed `add_obstacle`.
    pub add_ms: Vec<f64>,
    /// Each timed `remove_obstacle`.
    pub remove_ms: Vec<f64>,
    /// Each full build of the edited walls.
    pub rebuild_ms: Vec<f64>,
    /// Triangles of the mesh as built.
    pub triangles: usize,
    /// Boxes refused (reaching outside the mesh near the map's edge).
    pub refused: usize,
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

/// The walls of `base` with every obstacle of `mesh` added as a clockwise ring.
pub fn edited_walls(base: &Walls, mesh: &NavMesh) -> Walls {
    let mut segments = base.segments.clone();
    for id in mesh.obstacle_ids() {
        let Some(ring) = mesh.obstacle(id) else {
            continue;
        };
        let mut ring = ring.to_vec();
        let twice_area: f32 = (0..ring.len())
            .map(|i| ring[i].perp_dot(ring[(i + 1) % ring.len()]))
            .sum();
        if twice_area > 0.0 {
            ring.reverse();
        }
        for i in 0..ring.len() {
            segments.push(Segment::new(ring[i], ring[(i + 1) % ring.len()]));
        }
    }
    Walls { segments }
}

/// Adds `edits` boxes 10 m across at random walkable points of aurora (keeping at most
/// `live` in place: past that, each add is followed by a timed remove of a random
/// one), then builds the edited level `rebuilds` times.
///
/// # Errors
/// When the level cannot be read or built.
pub fn time_edits(
    data: &Path,
    edits: usize,
    live: usize,
    rebuilds: usize,
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
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let mut placed: Vec<MeshObstacleId> = Vec::new();
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
                placed.push(id);
            }
            Err(EditError::OutsideMesh { .. } | EditError::Degenerate { .. }) => {
                times.refused += 1;
                continue;
            }
            Err(e) => return Err(format!("edit: {e}")),
        }
        if placed.len() > live {
            let id = placed.swap_remove(rng.gen_range(0..placed.len()));
            let start = Instant::now();
            mesh.remove_obstacle(id).map_err(|e| e.to_string())?;
            times.remove_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    let walls = edited_walls(&base, &mesh);
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
