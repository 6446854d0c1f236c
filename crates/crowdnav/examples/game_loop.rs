//! A game's frame loop: waves of agents spawn at an entrance and walk to one of two
//! exits, where they are despawned; a player the game moves by velocity walks through
//! the crowd, which makes way for it; clicks off the mesh are snapped to the nearest
//! place an agent fits, and the nearest agent is sent there; agents whose path cannot
//! be found, or who get stuck, are reported.
//!
//! `cargo run --release -p crowdnav --example game_loop`

use crowdnav::prelude::*;
use crowdnav::AgentState;
use std::collections::BTreeMap;

/// Frames per second, and seconds per frame.
const FPS: u32 = 30;
const DT: f32 = 1.0 / FPS as f32;
/// Agents per wave, and seconds between waves.
const WAVE: usize = 12;
const WAVE_EVERY: f32 = 4.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A hall with two pillars; the entrance on the left, exits at the right corners.
    let level = Level::from_json(
        r#"{
        "boundary": [[0, 0], [40, 0], [40, 16], [0, 16]],
        "obstacles": [
            [[14, 3], [17, 3], [17, 6], [14, 6]],
            [[22, 10], [25, 10], [25, 13], [22, 13]]
        ]
    }"#,
    )?;
    let mesh = NavMesh::from_level(&level)?;
    let mut world = World::new(
        Some(mesh),
        Box::new(Orca::default()),
        WorldParams::default(),
    );
    let exits = [Vec2::new(38.5, 1.5), Vec2::new(38.5, 14.5)];

    // The player: driven by the game, from the bottom right towards the top left.
    let player = world.add_agent(
        AgentParams::new(Vec2::new(36.0, 2.0), Vec2::new(36.0, 2.0)).with_radius(0.35),
    )?;
    world.set_velocity(player, Some(Vec2::new(-1.2, 0.5)))?;

    // Each walker's exit, by id: the game's own bookkeeping next to the world's.
    let mut exit_of: BTreeMap<AgentId, Vec2> = BTreeMap::new();
    let (mut spawned, mut despawned, mut snapped) = (0, 0, 0);
    let mut next_wave = 0.0;
    let mut clicks = [
        Vec2::new(15.5, 4.5),
        Vec2::new(-3.0, 8.0),
        Vec2::new(30.0, 30.0),
    ]
    .into_iter();

    for frame in 0..90 * FPS {
        let time = frame as f32 * DT;

        // A wave at the entrance: a block of agents, alternating exits.
        if time >= next_wave && next_wave < 40.0 {
            for k in 0..WAVE {
                let start = Vec2::new(1.0 + (k % 3) as f32 * 0.8, 5.0 + (k / 3) as f32 * 0.8);
                let exit = exits[(spawned + k) % 2];
                let id = world.add_agent(AgentParams::new(start, exit).with_radius(0.25))?;
                exit_of.insert(id, exit);
            }
            spawned += WAVE;
            next_wave += WAVE_EVERY;
        }

        // The player turns back along the top after 20 s, and stops being driven at
        // 40 s: then it walks to the entrance by itself, avoiding the others.
        if frame == 20 * FPS {
            world.set_velocity(player, Some(Vec2::new(-1.2, 0.0)))?;
        }
        if frame == 40 * FPS {
            world.set_velocity(player, None)?;
            world.set_goal(player, Goal::Point(Vec2::new(2.0, 2.0)))?;
        }

        // A click every 10 s, maybe inside a pillar or off the map: snapped to the
        // nearest place an agent fits, and the nearest walker is sent there.
        if frame % (10 * FPS) == 0 {
            if let Some(click) = clicks.next() {
                let spot = world
                    .mesh()
                    .and_then(|m| m.nearest_point(click, 0.25).ok().flatten());
                let nearest = world
                    .agents()
                    .iter()
                    .filter(|a| a.id != player)
                    .min_by(|a, b| {
                        a.position
                            .distance_squared(click)
                            .total_cmp(&b.position.distance_squared(click))
                    })
                    .map(|a| a.id);
                if let (Some(spot), Some(id)) = (spot, nearest) {
                    world.set_goal(id, Goal::Point(spot.point))?;
                    exit_of.insert(id, spot.point);
                    snapped += 1;
                    println!(
                        "{time:5.1} s  click at ({:.1}, {:.1}) snapped to ({:.2}, {:.2}); agent {id} goes there",
                        click.x, click.y, spot.point.x, spot.point.y
                    );
                }
            }
        }

        world.step(DT)?;

        for event in world.agent_events() {
            if let AgentEvent::NoPath { agent, error } = event {
                println!("{time:5.1} s  agent {agent} has no path: {error}");
            }
        }

        // Despawn the walkers who reached an exit: within a metre and a half of it
        // (many heading for one point never all stand on it).
        let done: Vec<AgentId> = world
            .agents()
            .iter()
            .filter(|a| a.id != player)
            .filter(|a| {
                exit_of
                    .get(&a.id)
                    .is_some_and(|e| exits.contains(e) && a.position.distance(*e) < 1.5)
            })
            .map(|a| a.id)
            .collect();
        for id in done {
            world.remove_agent(id)?;
            exit_of.remove(&id);
            despawned += 1;
        }
    }

    let stuck = world
        .agents()
        .iter()
        .filter(|a| *a.state() == AgentState::Stuck)
        .count();
    let at = world.agent(player).map(|p| p.position).unwrap_or_default();
    println!(
        "spawned {spawned}, despawned {despawned} at the exits, {} still in the hall ({stuck} stuck), \
         {snapped} clicks snapped; the player ended at ({:.1}, {:.1}); overlapping pairs {}",
        world.agents().len() - 1,
        at.x,
        at.y,
        world.metrics().overlapping_pairs.len()
    );
    Ok(())
}
