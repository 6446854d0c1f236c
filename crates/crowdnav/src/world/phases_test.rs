//! The phases' shortcuts, checked against brute force through the step's halves.

use super::World;
use crate::collide::Body;
use crate::steer::{Neighbor, NeighborKind, Orca};
use crate::world::contacts::{self, nearest_cover};
use crate::world::neighbors::{neighbor_hint, NeighborMemory};
use crate::world::{AgentParams, WorldParams};
use glam::Vec2;

#[test]
fn nearest_agents_cover_the_candidates_only_when_they_reach_past_them() {
    let a = Body::new(Vec2::new(3.0, -4.0), Vec2::ZERO, 0.5, 1.0);
    let near: Vec<u32> = (1..=10).collect();
    // Candidates lie within 0.5 + 2 (0.5 + 0.1) = 1.7 m, plus the margin.
    assert!(nearest_cover(&a, 0.5, 0.1, 1.8, &near));
    assert!(!nearest_cover(&a, 0.5, 0.1, 1.7, &near));
    assert!(!nearest_cover(&a, 0.5, 0.1, f32::NAN, &near));
    // Any number of nearest agents covers them when they reach that far (the
    // shortcut once held only for exactly ten).
    assert!(nearest_cover(&a, 0.5, 0.1, 1.8, &near[..9]));
    let sixteen: Vec<u32> = (1..=16).collect();
    assert!(nearest_cover(&a, 0.5, 0.1, 1.8, &sixteen));
    let unknown = [u32::MAX; 10];
    assert!(!nearest_cover(&a, 0.5, 0.1, 1.8, &unknown));
}

#[test]
fn the_hint_is_how_far_the_last_nearest_lie_now() {
    let at = |x: f32, y: f32| Neighbor {
        position: Vec2::new(x, y),
        velocity: Vec2::ZERO,
        radius: 0.5,
        preferred_velocity: Vec2::ZERO,
        kind: NeighborKind::Agent,
        same_destination: false,
    };
    let crowd = [at(0.0, 0.0), at(3.0, 4.0), at(1.0, 0.0), at(0.0, -2.0)];
    let hint = neighbor_hint(Vec2::ZERO, 9.0, &[2, 1, 3], &crowd);
    assert!((5.0..5.001).contains(&hint), "{hint}");
    // Unknown or stale: the fallback.
    assert_eq!(neighbor_hint(Vec2::ZERO, 9.0, &[u32::MAX, 1], &crowd), 9.0);
    assert_eq!(neighbor_hint(Vec2::ZERO, 9.0, &[1, 4], &crowd), 9.0);
    assert_eq!(neighbor_hint(Vec2::ZERO, 9.0, &[], &crowd), 9.0);
    // A NaN position makes a NaN hint, which the search ignores.
    let lost = [at(1.0, 0.0), at(f32::NAN, 0.0)];
    assert!(neighbor_hint(Vec2::ZERO, 9.0, &[0, 1], &lost).is_nan());
}

/// Every pair of bodies no further apart than touching plus the largest radius, in
/// order, by brute force.
fn close_pairs(bodies: &[Body], max_r: f32) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for (i, a) in bodies.iter().enumerate() {
        for (j, b) in bodies.iter().enumerate().skip(i + 1) {
            let reach = a.radius + b.radius + max_r;
            if a.position.distance_squared(b.position) <= reach * reach {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

/// Two facing blocks of 12 × 12 agents 1.1 m apart, radius 0.5 (0.3 for every
/// third), walking through each other; and, when `big`, a far agent of that radius.
fn facing_blocks(big: Option<f32>) -> World {
    facing_blocks_seeing(big, WorldParams::default().max_neighbors)
}

/// [`facing_blocks`], each agent seeing its `max_neighbors` nearest.
fn facing_blocks_seeing(big: Option<f32>, max_neighbors: usize) -> World {
    let params = WorldParams {
        max_neighbors,
        ..WorldParams::default()
    };
    let mut world = World::new(None, Box::new(Orca::default()), params);
    for side in [-1.0f32, 1.0] {
        for k in 0..144 {
            let (x, y) = ((k % 12) as f32 * 1.1, (k / 12) as f32 * 1.1);
            let start = Vec2::new(side * (x + 1.0), y);
            let radius = if k % 3 == 0 { 0.3 } else { 0.5 };
            world
                .add_agent(
                    AgentParams::new(start, start - Vec2::new(side * 30.0, 0.0))
                        .with_radius(radius),
                )
                .expect("agent");
        }
    }
    if let Some(radius) = big {
        let far = Vec2::new(0.0, 100.0);
        world
            .add_agent(AgentParams::new(far, far).with_radius(radius))
            .expect("agent");
    }
    world
}

/// Steps `world` `steps` times, checking at each step that the collision
/// candidates are every close pair; returns how many times an agent took them from
/// its nearest agents.
fn check_candidates(world: &mut World, steps: usize) -> usize {
    let dt = 0.1;
    let mut covered = 0;
    for _ in 0..steps {
        // `World::step`'s halves, the candidates checked between them.
        let moved = world.move_agents(dt);
        covered += world.check_candidates_now(moved);
        world.settle(dt, moved);
    }
    covered
}

impl World {
    /// Finds the collision candidates as the contacts phase does after the agents
    /// moved up to `moved`, checks they are every close pair, and returns how many
    /// agents took them from their nearest agents.
    fn check_candidates_now(&mut self, moved: f32) -> usize {
        let n = self.crowd.agents.len();
        let slots = NeighborMemory::slots(&self.params);
        let max_r = self.crowd.radii.1;
        let covered = (0..n)
            .filter(|&i| {
                let near = &self.phases.neighbors.last[i * slots..(i + 1) * slots];
                let reach = self.phases.neighbors.reach[i];
                nearest_cover(&self.phases.contacts.bodies[i], max_r, moved, reach, near)
            })
            .count();
        let env = contacts::Surroundings {
            obstacles: &self.obstacles,
            index: &self.index,
            walls: &self.walls,
            memory: &self.phases.neighbors,
            slots,
            radii: self.crowd.radii,
            collide: self.params.collide,
        };
        self.phases.contacts.find_candidates(n, &env, max_r, moved);
        assert_eq!(
            self.phases.contacts.pairs,
            close_pairs(&self.phases.contacts.bodies[..n], max_r)
        );
        covered
    }
}

#[test]
fn collision_candidates_taken_from_the_nearest_agents_are_every_close_pair() {
    let covered = check_candidates(&mut facing_blocks(None), 60);
    // Most of the 60 × 288 agent-steps took their candidates from their nearest
    // agents: a coverage floor, so the check above tests the shortcut. Measured: 16 561.
    assert!(covered > 60 * 288 / 2, "{covered}");
}

#[test]
fn collision_candidates_come_from_the_nearest_agents_for_any_max_neighbors() {
    // The seed methods' sixteen neighbours (and a count of three, which rarely reaches
    // far enough) take the shortcut too, and it still finds every close pair.
    let covered = check_candidates(&mut facing_blocks_seeing(None, 16), 60);
    assert!(covered > 60 * 288 / 2, "{covered}");
    check_candidates(&mut facing_blocks_seeing(None, 3), 20);
}

#[test]
fn collision_candidates_beyond_the_nearest_agents_come_from_the_grid() {
    // A large radius somewhere widens every agent's candidates past its nearest ten.
    let covered = check_candidates(&mut facing_blocks(Some(2.5)), 60);
    // So no agent-step took the nearest agents' shortcut: all came from the grid.
    assert_eq!(covered, 0);
}
