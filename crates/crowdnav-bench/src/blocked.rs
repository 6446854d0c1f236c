//! The same level for the `polyanya` crate's own triangulation and agent-radius
//! inflation: the convex hull as the outer ring, blocked space as obstacle rings.
//!
//! polyanya's [`polyanya::Triangulation`] takes an outer ring and solid obstacle
//! rings, and with an agent radius it grows each obstacle ring (and here the outer
//! ring) by the radius before triangulating. Our [`NavMesh`] already knows which
//! triangles of the level's convex hull are blocked: the obstacles are the connected
//! groups of blocked triangles, each traced into its boundary rings.
//!
//! A group with a clockwise boundary ring encloses a walkable island. polyanya's
//! obstacles are solid rings (its inflation keeps only the outer ring of each grown
//! obstacle), so such an island cannot be kept without cutting the group into pieces
//! whose grown outlines coincide, which spade's constraint insertion does not survive
//! (it panics): the group is given as its solid rings and the islands are lost to
//! polyanya. [`BlockedSpace::enclosing_groups`] counts such groups; the r > 0 tables
//! show their effect as queries only crowdnav answers.

use crowdnav::mesh::{NavMesh, TriangleId};
use glam::Vec2;
use glam_polyanya::Vec2 as PVec2;

/// The level as polyanya obstacles.
#[derive(Clone, Debug, Default)]
pub struct BlockedSpace {
    /// The outer ring: the mesh's convex hull, counter-clockwise.
    pub outer: Vec<Vec2>,
    /// Solid obstacle rings (orientation unspecified).
    pub obstacles: Vec<Vec<Vec2>>,
    /// Groups of blocked triangles traced as one ring each.
    pub traced_groups: usize,
    /// Groups that enclose walkable islands: only their outer ring is given, so the
    /// islands are lost to polyanya (its obstacles are solid rings).
    pub enclosing_groups: usize,
}

impl BlockedSpace {
    /// Blocked space of `mesh`.
    pub fn of(mesh: &NavMesh) -> BlockedSpace {
        let n = mesh.triangle_count();
        let blocked = |t: TriangleId| !mesh.is_walkable(t);
        // Union-find over blocked triangles sharing an edge.
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let up = parent[parent[x as usize] as usize];
                parent[x as usize] = up;
                x = up;
            }
            x
        }
        for t in mesh.triangles().filter(|&t| blocked(t)) {
            for e in 0..3 {
                if let Some(nb) = mesh.neighbor(t, e).filter(|&nb| blocked(nb)) {
                    let (a, b) = (find(&mut parent, t.0), find(&mut parent, nb.0));
                    if a != b {
                        parent[a.max(b) as usize] = a.min(b);
                    }
                }
            }
        }
        // Boundary edges of each group, directed with the group on the left.
        let mut groups: std::collections::BTreeMap<u32, Vec<TriangleId>> = Default::default();
        for t in mesh.triangles().filter(|&t| blocked(t)) {
            groups.entry(find(&mut parent, t.0)).or_default().push(t);
        }
        let mut out = BlockedSpace::default();
        for tris in groups.values() {
            let mut edges: Vec<(u32, u32)> = Vec::new();
            for &t in tris {
                let ids = mesh.triangle_vertex_ids(t);
                for e in 0..3 {
                    if mesh.neighbor(t, e).is_none_or(|nb| !blocked(nb)) {
                        edges.push((ids[e].0, ids[(e + 1) % 3].0));
                    }
                }
            }
            let rings = trace_rings(mesh, &edges);
            // Counter-clockwise rings bound solid lobes; clockwise ones bound islands.
            let (solid, holes): (Vec<Vec<Vec2>>, Vec<Vec<Vec2>>) = rings
                .iter()
                .map(|r| points(mesh, r))
                .partition(|r| signed_area(r) > 0.0);
            if holes.is_empty() {
                out.traced_groups += 1;
            } else {
                out.enclosing_groups += 1;
            }
            out.obstacles
                .extend(solid.iter().map(|r| drop_collinear(r)));
        }
        // The convex hull, counter-clockwise, is the outer ring.
        let mut hull: Vec<(u32, u32)> = Vec::new();
        for t in mesh.triangles() {
            let ids = mesh.triangle_vertex_ids(t);
            for e in 0..3 {
                if mesh.neighbor(t, e).is_none() {
                    hull.push((ids[e].0, ids[(e + 1) % 3].0));
                }
            }
        }
        out.outer = trace_rings(mesh, &hull)
            .iter()
            .map(|r| drop_collinear(&points(mesh, r)))
            .max_by(|a, b| signed_area(a).total_cmp(&signed_area(b)))
            .unwrap_or_default();
        out
    }

    /// polyanya's triangulation of this level for an agent of radius `radius` (0: no
    /// inflation), merged and baked as polyanya's documentation recommends.
    /// Points further than `search_delta` outside the mesh are not snapped onto it.
    pub fn polyanya_mesh(&self, radius: f32, search_delta: f32) -> polyanya::Mesh {
        let p = |v: &Vec2| PVec2::new(v.x, v.y);
        let outer: Vec<PVec2> = self.outer.iter().map(p).collect();
        let mut tri = polyanya::Triangulation::from_outer_edges(&outer);
        tri.add_obstacles(
            self.obstacles
                .iter()
                .map(|ring| ring.iter().map(p).collect::<Vec<_>>()),
        );
        if radius > 0.0 {
            tri.set_agent_radius(radius);
            // The hull is a wall too.
            tri.agent_radius_on_outer_edge(true);
        }
        let mut mesh = tri.as_navmesh();
        mesh.merge_polygons();
        mesh.bake();
        mesh.set_search_delta(search_delta);
        mesh
    }
}

/// Walkable area of a polyanya mesh (sum of its polygons' areas).
pub fn polyanya_area(mesh: &polyanya::Mesh) -> f64 {
    let mut area = 0.0;
    for layer in &mesh.layers {
        for poly in &layer.polygons {
            let v: Vec<_> = poly
                .vertices
                .iter()
                .filter_map(|&i| layer.vertices.get(i as usize))
                .map(|v| v.coords.as_dvec2())
                .collect();
            let mut twice = 0.0;
            for (i, a) in v.iter().enumerate() {
                let b = v[(i + 1) % v.len()];
                twice += a.x * b.y - a.y * b.x;
            }
            area += twice.abs() / 2.0;
        }
    }
    area
}

/// Signed area of a ring: positive when counter-clockwise.
fn signed_area(ring: &[Vec2]) -> f64 {
    let mut twice = 0.0;
    for (i, a) in ring.iter().enumerate() {
        let b = ring[(i + 1) % ring.len()];
        twice += f64::from(a.x) * f64::from(b.y) - f64::from(a.y) * f64::from(b.x);
    }
    twice / 2.0
}

fn points(mesh: &NavMesh, ring: &[u32]) -> Vec<Vec2> {
    ring.iter().map(|&v| mesh.vertices()[v as usize]).collect()
}

/// Joins directed edges (region on the left) into closed rings, each edge used once.
/// Where several edges leave a vertex, the walk takes the first one clockwise from
/// the way it came, which keeps to the region's wedge at the vertex: regions that touch
/// themselves at a vertex come out as separate rings that do not cross.
fn trace_rings(mesh: &NavMesh, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let mut outgoing: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for &(a, b) in edges {
        outgoing.entry(a).or_default().push(b);
    }
    let pos = |v: u32| mesh.vertices()[v as usize];
    let mut rings = Vec::new();
    for &(first_a, first_b) in edges {
        // Start from an edge not used yet.
        let Some(list) = outgoing.get_mut(&first_a) else {
            continue;
        };
        let Some(k) = list.iter().position(|&b| b == first_b) else {
            continue;
        };
        list.swap_remove(k);
        let mut ring = vec![first_a];
        let (mut from, mut at) = (first_a, first_b);
        while at != first_a {
            ring.push(at);
            let back = pos(from) - pos(at);
            let Some(list) = outgoing.get_mut(&at).filter(|l| !l.is_empty()) else {
                break;
            };
            let clockwise = |b: u32| {
                let d = pos(b) - pos(at);
                let angle = (d.x * back.y - d.y * back.x).atan2(back.dot(d));
                if angle <= 0.0 {
                    angle + std::f32::consts::TAU
                } else {
                    angle
                }
            };
            let k = (0..list.len())
                .min_by(|&i, &j| clockwise(list[i]).total_cmp(&clockwise(list[j])))
                .unwrap_or(0);
            let next = list.swap_remove(k);
            (from, at) = (at, next);
        }
        rings.push(ring);
    }
    rings
}

/// A ring without its collinear middle vertices.
fn drop_collinear(ring: &[Vec2]) -> Vec<Vec2> {
    let n = ring.len();
    let keep: Vec<Vec2> = (0..n)
        .filter(|&i| {
            let (a, b, c) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            (b - a).perp_dot(c - b).abs() > 1e-6 * (b - a).length() * (c - b).length()
        })
        .map(|i| ring[i])
        .collect();
    if keep.len() >= 3 {
        keep
    } else {
        ring.to_vec()
    }
}
