//! Crowds sent to one point: how soon they come to rest around it, and how round the
//! gathering is (docs/crowd-behaviour.md, "People sent to one point").
//!
//! ```text
//! cargo run --release -p crowdnav --example gathering
//! ```
//!
//! Three layouts, people of radius 0.25 m walking at 1.34 m/s with the default crowd
//! model: a block of 100 sent 23–32 m away, 150 scattered all round a point converging
//! on it, and 300 in a block sent through a gap 4 m wide to a point 14 m past it. For
//! each: when everyone first rested at once (for 5 s on end), and how far from the
//! point nine in ten and everyone stand, against the radius of a round gathering on
//! the spots' lattice.

use crowdnav::mesh::{Level, NavMesh};
use crowdnav::world::{AgentParams, World, WorldParams};
use crowdnav::Orca;
use glam::Vec2;

/// Runs `starts` to `goal` on `level` for at most 300 s; prints one line.
fn gather(
    name: &str,
    level: &str,
    starts: &[Vec2],
    goal: Vec2,
) -> Result<(), Box<dyn std::error::Error>> {
    let mesh = NavMesh::from_level(&Level::from_json(level)?)?;
    // Inelastic contacts, as a scenario makes them for ORCA.
    let params = WorldParams {
        collide: WorldParams::default().collide.with_restitution(0.0),
        ..WorldParams::default()
    };
    let mut world = World::new(Some(mesh), Box::new(Orca::default()), params);
    for &start in starts {
        world.add_agent(
            AgentParams::new(start, goal)
                .with_radius(0.25)
                .with_speeds(1.34, 1.34),
        )?;
    }
    let mut since: Option<f64> = None;
    while world.time() < 300.0 {
        world.step(0.05)?;
        if world.agents().iter().all(|a| a.is_arrived()) {
            let start = *since.get_or_insert(world.time());
            if world.time() - start >= 5.0 {
                break;
            }
        } else {
            since = None;
        }
    }
    let agents = world.agents();
    let spacing = 2.0 * 0.25 * 1.15;
    let round =
        (agents.len() as f32 * spacing * spacing * 3f32.sqrt() / 2.0 / std::f32::consts::PI).sqrt();
    let mut off: Vec<f32> = agents.iter().map(|a| a.position.distance(goal)).collect();
    off.sort_by(f32::total_cmp);
    let rest = since.map_or("never".to_string(), |t| format!("{t:.0} s"));
    println!(
        "{name:<34} at rest after {rest:>6}   nine in ten within {:.2} m, everyone within {:.2} m (round: {round:.2} m)   overlapping pairs {}",
        off[off.len() * 9 / 10],
        off[off.len() - 1],
        world.metrics().overlapping_pairs.len()
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let block: Vec<Vec2> = (0..100)
        .map(|k| Vec2::new(3.0 + (k / 10) as f32, 15.0 + (k % 10) as f32))
        .collect();
    gather(
        "100 in a block to one point",
        r#"{"boundary": [[0,0],[45,0],[45,40],[0,40]]}"#,
        &block,
        Vec2::new(35.0, 20.0),
    )?;
    let centre = Vec2::new(20.0, 20.0);
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let ring: Vec<Vec2> = (0..150)
        .map(|k| {
            centre + Vec2::from_angle(k as f32 * golden) * (8.0 + 10.0 * (k as f32 / 150.0).sqrt())
        })
        .collect();
    gather(
        "150 converging from every side",
        r#"{"boundary": [[0,0],[40,0],[40,40],[0,40]]}"#,
        &ring,
        centre,
    )?;
    let big: Vec<Vec2> = (0..300)
        .map(|k| Vec2::new(2.0 + 0.8 * (k / 20) as f32, 5.0 + 0.8 * (k % 20) as f32))
        .collect();
    gather(
        "300 through a 4 m gap to one point",
        r#"{"boundary": [[0,0],[50,0],[50,25],[0,25]],
            "obstacles": [[[25,0],[26,0],[26,10],[25,10]], [[25,14],[26,14],[26,25],[25,25]]]}"#,
        &big,
        Vec2::new(40.0, 12.0),
    )?;
    Ok(())
}
