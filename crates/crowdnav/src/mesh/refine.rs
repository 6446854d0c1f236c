//! Clearance refinement (after Kallmann, "Shortest Paths with Arbitrary Clearance from
//! Navigation Meshes", 2010).
//!
//! A gate width measures the distance from a corner to the nearest wall point in its
//! wedge. When that point lies inside a wall belonging to another triangle, a body
//! can cross the triangles in between through gates whose corners never see that wall
//! (a *disturbance*), and the local "fits through every gate" test would be too
//! generous. Splitting the wall at the nearest point puts a vertex there; the triangles
//! in between then have it as a corner or as an obstacle in their wedges, and their
//! widths account for it. A second kind of disturbance is an obstacle vertex just
//! across one of a gate's edges, nearer the wall opposite the gate's corner than the
//! gate is wide, whose gap to that wall lies in no wedge (`clearance::disturbance`):
//! the wall is split at the vertex's foot.
//!
//! Splitting is local: the wall's two triangles become four, Lawson flips around the
//! new vertex restore the constrained Delaunay property nearby (joining a disturbing
//! vertex to its foot), and only the triangles made or changed are re-measured (walls
//! keep their shape, so every other gate width is unchanged). Rounds repeat until no
//! gate asks for a split.

use super::clearance::{measure, Split};
use super::navmesh::{pack_flags, NavMesh, COVERED, NONE};
use crate::geom::{incircle_value, orient2d};
use glam::Vec2;

/// Upper bound on refinement rounds; real levels settle in two to four.
const MAX_ROUNDS: usize = 16;

thread_local! {
    /// Per triangle, whether a split changed it this round: kept between calls (all
    /// false), so that an edit's few splits do not clear an array the size of the mesh.
    static TOUCHED: std::cell::Cell<Vec<bool>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Measures every gate width and refines the mesh until the widths are exact.
pub(crate) fn measure_and_refine(mesh: &mut NavMesh) {
    let all: Vec<u32> = (0..mesh.triangles.len() as u32).collect();
    mesh.widths.clear();
    remeasure_and_refine(mesh, all);
}

/// Measures the gate widths of the listed triangles (sorted, distinct; the others'
/// widths are kept) and refines the mesh from there until the widths are exact.
/// Returns what changed (see [`Refined`]).
pub(crate) fn remeasure_and_refine(mesh: &mut NavMesh, dirty: Vec<u32>) -> Refined {
    mesh.widths.resize(mesh.triangles.len(), [0.0; 3]);
    let (widths, mut splits) = measure(mesh, &dirty);
    for (&t, w) in dirty.iter().zip(widths) {
        mesh.widths[t as usize] = w;
    }
    let mut measured = dirty;
    let mut reshaped = Vec::new();
    // All false between rounds (the marked entries are cleared), and between calls.
    let mut touched = TOUCHED.with(|t| t.take());
    let mut marked: Vec<u32> = Vec::new();
    for _ in 0..MAX_ROUNDS {
        if splits.is_empty() {
            break;
        }
        for &t in &marked {
            touched[t as usize] = false;
        }
        marked.clear();
        touched.resize(mesh.triangles.len(), false);
        let mut dirty = Vec::new();
        for s in &splits {
            let t = s.triangle as usize;
            let across = mesh.neighbors[t][usize::from(s.edge)];
            let busy = touched[t] || (across != NONE && touched[across as usize]);
            if busy {
                // Another split changed this wall this round: ask again next round.
                dirty.push(s.source);
                continue;
            }
            if let Some(changed) = split_wall(mesh, s) {
                touched.resize(mesh.triangles.len(), false);
                for t in changed {
                    touched[t as usize] = true;
                    marked.push(t);
                    dirty.push(t);
                    reshaped.push(t);
                }
            }
        }
        dirty.sort_unstable();
        dirty.dedup();
        mesh.widths.resize(mesh.triangles.len(), [0.0; 3]);
        let (widths, next) = measure(mesh, &dirty);
        for (&t, w) in dirty.iter().zip(widths) {
            mesh.widths[t as usize] = w;
        }
        measured.extend(dirty);
        splits = next;
    }
    for &t in &marked {
        touched[t as usize] = false;
    }
    TOUCHED.with(|t| t.replace(touched));
    measured.sort_unstable();
    measured.dedup();
    reshaped.sort_unstable();
    reshaped.dedup();
    Refined { measured, reshaped }
}

/// What [`remeasure_and_refine`] changed; no other triangle's widths, walls, corners
/// or neighbours changed.
pub(crate) struct Refined {
    /// Every triangle measured (sorted, distinct): the listed ones and those the
    /// refinement made or changed.
    pub(crate) measured: Vec<u32>,
    /// The triangles the refinement made or changed (sorted, distinct): their corners
    /// or neighbours may differ.
    pub(crate) reshaped: Vec<u32>,
}

/// Splits wall `s.edge` of walkable triangle `s.triangle` at `s.at`: the triangle and
/// the one across the wall (if any) each become two, and edge flips restore the
/// constrained Delaunay property (walls are never flipped). Returns the ids of the
/// changed triangles, or `None` (mesh unchanged) when the rounded split point would
/// make a triangle degenerate.
fn split_wall(mesh: &mut NavMesh, s: &Split) -> Option<Vec<u32>> {
    let t = s.triangle as usize;
    let e = usize::from(s.edge);
    let x = s.at.as_vec2();
    let tv = mesh.triangles[t];
    let (p, q, r) = (tv[e], tv[(e + 1) % 3], tv[(e + 2) % 3]);
    let pos = |v: u32| mesh.vertices[v as usize];
    let ccw = |a: Vec2, b: Vec2, c: Vec2| orient2d(a, b, c).is_ccw();
    if !ccw(pos(p), x, pos(r)) || !ccw(x, pos(q), pos(r)) {
        return None;
    }
    let tn = mesh.neighbors[t];
    let (n_qr, n_rp) = (tn[(e + 1) % 3], tn[(e + 2) % 3]);
    let tw = wall_bits(mesh, t, e);
    let u = tn[e];
    // The triangle across the wall, as (index, vertex s, its neighbours and walls
    // across p→s and s→q), rotated so its edge k runs q→p.
    let across = if u == NONE {
        None
    } else {
        let u = u as usize;
        let k = mesh.edge_toward(u as u32, s.triangle)?;
        let sv = mesh.triangles[u][(k + 2) % 3];
        if !ccw(pos(q), x, pos(sv)) || !ccw(x, pos(p), pos(sv)) {
            return None;
        }
        let un = mesh.neighbors[u];
        Some((u, k, sv, un[(k + 1) % 3], un[(k + 2) % 3]))
    };

    let xi = mesh.vertices.len() as u32;
    mesh.vertices.push(x);
    mesh.obstacle_vertex.push(true);
    let t2 = mesh.triangles.len() as u32;
    let walkable_t = mesh.is_walkable(super::TriangleId(s.triangle));
    // t keeps p x r; t2 is x q r.
    mesh.triangles[t] = [p, xi, r];
    mesh.flags[t] = pack_flags(walkable_t, [true, false, tw[2]]);
    mesh.triangles.push([xi, q, r]);
    mesh.flags
        .push(pack_flags(walkable_t, [true, tw[1], false]));
    mesh.neighbors[t] = [NONE, t2, n_rp];
    mesh.neighbors.push([NONE, n_qr, s.triangle]);
    relink(mesh, n_qr, s.triangle, t2);
    let mut changed = vec![s.triangle, t2];
    // Edges opposite the new vertex, to check for the Delaunay condition.
    let mut suspect = vec![(s.triangle, 2), (t2, 1)];

    if let Some((u, k, sv, n_ps, n_sq)) = across {
        let uw = wall_bits(mesh, u, k);
        let walkable_u = mesh.is_walkable(super::TriangleId(u as u32));
        let covered_u = mesh.flags[u] & COVERED;
        let u2 = mesh.triangles.len() as u32;
        // u keeps q x s; u2 is x p s.
        mesh.triangles[u] = [q, xi, sv];
        mesh.flags[u] = pack_flags(walkable_u, [true, false, uw[2]]) | covered_u;
        mesh.triangles.push([xi, p, sv]);
        mesh.flags
            .push(pack_flags(walkable_u, [true, uw[1], false]) | covered_u);
        mesh.neighbors[u] = [t2, u2, n_sq];
        mesh.neighbors.push([s.triangle, n_ps, u as u32]);
        relink(mesh, n_ps, u as u32, u2);
        mesh.neighbors[t][0] = u2;
        mesh.neighbors[t2 as usize][0] = u as u32;
        changed.extend([u as u32, u2]);
        suspect.extend([(u as u32, 2), (u2, 1)]);
    }
    legalize(mesh, xi, suspect, &mut changed);
    Some(changed)
}

/// Lawson flips around the new vertex `x`: each suspect edge lies opposite `x` in its
/// triangle; when the vertex across it is inside that triangle's circumcircle and the
/// edge is not a wall, the edge is flipped and the two edges now opposite `x` become
/// suspect.
fn legalize(mesh: &mut NavMesh, x: u32, mut suspect: Vec<(u32, usize)>, changed: &mut Vec<u32>) {
    while let Some((t, e)) = suspect.pop() {
        let ti = t as usize;
        let tv = mesh.triangles[ti];
        if tv[(e + 2) % 3] != x || mesh.is_wall(super::TriangleId(t), e) {
            continue;
        }
        let u = mesh.neighbors[ti][e];
        if u == NONE {
            continue;
        }
        let ui = u as usize;
        if (mesh.flags[ti] | mesh.flags[ui]) & COVERED != 0 {
            // Covered triangles keep their edges: an added obstacle's outline must
            // stay an edge (see `super::edit`).
            continue;
        }
        let Some(k) = mesh.edge_toward(ui as u32, t) else {
            continue;
        };
        let (a, b) = (tv[e], tv[(e + 1) % 3]);
        let d = mesh.triangles[ui][(k + 2) % 3];
        let pos = |v: u32| mesh.vertices[v as usize];
        if incircle_value(pos(a), pos(b), pos(x), pos(d)) <= 0.0 {
            continue;
        }
        // Flip a-b to x-d: t = [x, a, d], u = [d, b, x].
        let (n_bc, n_ca) = (
            mesh.neighbors[ti][(e + 1) % 3],
            mesh.neighbors[ti][(e + 2) % 3],
        );
        let (n_ad, n_db) = (
            mesh.neighbors[ui][(k + 1) % 3],
            mesh.neighbors[ui][(k + 2) % 3],
        );
        let tw = wall_bits(mesh, ti, e);
        let uw = wall_bits(mesh, ui, k);
        let (walkable_t, walkable_u) = (
            mesh.is_walkable(super::TriangleId(t)),
            mesh.is_walkable(super::TriangleId(u)),
        );
        mesh.triangles[ti] = [x, a, d];
        mesh.neighbors[ti] = [n_ca, n_ad, u];
        mesh.flags[ti] = pack_flags(walkable_t, [tw[2], uw[1], false]);
        mesh.triangles[ui] = [d, b, x];
        mesh.neighbors[ui] = [n_db, n_bc, t];
        mesh.flags[ui] = pack_flags(walkable_u, [uw[2], tw[1], false]);
        relink(mesh, n_ad, u, t);
        relink(mesh, n_bc, t, u);
        changed.extend([t, u]);
        suspect.extend([(t, 1), (u, 0)]);
    }
}

/// Wall bits of `t`'s edges `e`, `e + 1`, `e + 2`.
fn wall_bits(mesh: &NavMesh, t: usize, e: usize) -> [bool; 3] {
    let id = super::TriangleId(t as u32);
    [0, 1, 2].map(|i| mesh.is_wall(id, (e + i) % 3))
}

/// In triangle `nb` (if any), points the link that went to `from` at `to`.
pub(super) fn relink(mesh: &mut NavMesh, nb: u32, from: u32, to: u32) {
    if nb == NONE {
        return;
    }
    for link in &mut mesh.neighbors[nb as usize] {
        if *link == from {
            *link = to;
        }
    }
}
