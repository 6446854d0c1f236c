//! Phase *integrate*: every agent moves with its new velocity.

use super::agent::Agent;
use crate::collide::Body;
use glam::Vec2;
use rayon::prelude::*;

/// Moves every agent with its new velocity (`velocities`, in agent order) for `dt`
/// seconds and, when `bodies` is given, makes the agents its first bodies (for the
/// contacts phase) in the same pass; `bodies` is emptied either way. Returns how far
/// the furthest agent moved, metres (a bound, with a margin for rounding). Agents the
/// game drives (when `any_driven`) are immovable bodies.
pub(super) fn integrate(
    agents: &mut [Agent],
    velocities: &[Vec2],
    dt: f32,
    bodies: &mut Vec<Body>,
    make_bodies: bool,
    any_driven: bool,
) -> f32 {
    // The largest step from the compact velocities: `sqrt` and `· dt` are monotonic,
    // so this is the largest `|v| dt` bit for bit (a maximum is exact: the same on
    // any thread count).
    let fastest = velocities
        .par_iter()
        .map(|v| v.length_squared())
        .reduce(|| 0.0f32, f32::max);
    let moved = fastest.sqrt() * dt;
    let integrate = move |a: &mut Agent, v: Vec2| {
        a.avoidance_velocity = v;
        a.velocity = v;
        a.position += v * dt;
        a.travelled += f64::from(v.length() * dt);
    };
    let agents = agents.par_iter_mut().zip(velocities.par_iter());
    bodies.clear();
    if make_bodies {
        bodies.par_extend(agents.map(|(a, &v)| {
            integrate(a, v);
            // A driven agent yields to nobody: nothing pushes it.
            let mass = if any_driven && a.driven.is_some() {
                f32::INFINITY
            } else {
                a.mass
            };
            Body::new(a.position, a.velocity, a.radius, mass)
        }));
    } else {
        agents.for_each(|(a, &v)| integrate(a, v));
    }
    // `moved` bounds each move up to rounding; a relative margin covers that.
    moved * (1.0 + 1e-4) + 1e-6
}
