//! Phase *keep on mesh*: an agent that left the walkable space is put back on it.

use super::agent::Agent;
use super::contacts::{self, Contacts};
use super::index::Walls;
use super::params::Metrics;
use crate::geom::Segment;
use crate::grid::WallGrid;
use crate::mesh::{Location, NavMesh};
use glam::Vec2;
use rayon::prelude::*;

/// Most rounds of putting agents back on the mesh and resolving the contacts that
/// makes, per step (see [`keep_on_mesh`]); one or two are enough but where agents
/// stand in a gap narrower than their diameter.
const PUT_BACK_ROUNDS: usize = 4;

/// An agent that left the walkable space (it started inside an obstacle, an edit put
/// one on it, or it was pushed through a wall) is put back on it, just inside the
/// nearest wall. That spot may be taken: with `collisions` on, contacts are resolved
/// again around the new positions, and so on for at most [`PUT_BACK_ROUNDS`] rounds, so
/// that nobody is left overlapping another. The grid holds positions at most `widen`
/// metres from the agents' now; the walls are `env`'s. Returns whether it moved
/// anyone.
pub(super) fn keep_on_mesh(
    agents: &mut [Agent],
    mesh: Option<&NavMesh>,
    contacts: &mut Contacts,
    env: &contacts::Surroundings<'_>,
    metrics: &mut Metrics,
    mut widen: f32,
    collisions: bool,
) -> bool {
    let Some(mesh) = mesh else {
        return false;
    };
    let mut put_back = false;
    for round in 0..PUT_BACK_ROUNDS {
        let far = put_back_on_mesh(agents, mesh, env.walls);
        if far == 0.0 {
            break;
        }
        put_back = true;
        if !collisions || round + 1 == PUT_BACK_ROUNDS {
            break;
        }
        // The bodies of the agents put back are where they were before; every
        // other body already matches its agent.
        for (b, a) in contacts.bodies.iter_mut().zip(agents.iter()) {
            b.position = a.position;
            b.velocity = a.velocity;
        }
        widen += far;
        let resolved = contacts.resolve(agents, env, metrics, widen);
        widen += resolved.pushed;
        if !resolved.settled {
            break;
        }
    }
    put_back
}

/// Puts every agent whose centre is off the walkable space just inside the
/// nearest wall; returns how far it moved anyone (0 when nobody was off).
fn put_back_on_mesh(agents: &mut [Agent], mesh: &NavMesh, walls: &Walls) -> f32 {
    let (segments, grid) = (&walls.segments[..], &walls.grid);
    agents
        .par_iter_mut()
        .map_init(Vec::new, |ids, a| {
            if matches!(mesh.locate(a.position), Location::Walkable(_)) {
                return 0.0;
            }
            match nearest_inside(a.position, a.radius, segments, grid, ids) {
                Some(p) => {
                    let d = a.position.distance(p);
                    a.position = p;
                    d
                }
                None => 0.0,
            }
        })
        .reduce(|| 0.0f32, f32::max)
}

/// The point just inside the wall nearest to `p` (one radius in from it), or `None`
/// when no wall is known near `p`.
pub(super) fn nearest_inside(
    p: Vec2,
    radius: f32,
    walls: &[Segment],
    grid: &WallGrid,
    ids: &mut Vec<u32>,
) -> Option<Vec2> {
    let mut range = 1.0f32;
    for _ in 0..24 {
        grid.walls_near(p, range, ids);
        let best = ids
            .iter()
            .map(|&w| walls[w as usize])
            .map(|w| (w.distance_squared(p), w))
            .filter(|(d2, _)| *d2 <= range * range)
            .min_by(|x, y| x.0.total_cmp(&y.0));
        if let Some((_, w)) = best {
            let q = w.closest_point(p);
            let normal = (w.b - w.a).perp().normalize_or_zero();
            return Some(q + normal * radius.max(1e-3));
        }
        range *= 2.0;
    }
    None
}
