//! How far people walking against each other have sorted themselves into lanes.
//!
//! The measure is the lane order parameter of Rex and Löwen ("Lane formation in
//! oppositely charged colloids driven by an electric field", PRE 2007), as used for
//! pedestrian counterflow: for each walking agent `j`, count the walking agents in its
//! lane within `reach` metres of it (`j` itself among them): those whose discs would
//! touch `j`'s if both walked on along `j`'s way (the distance across that way less
//! than the sum of their radii). Of those, `same` walk its way (within 60°) and `other`
//! against it (more than 120° off); people crossing at other angles are not counted.
//! Then
//!
//! ```text
//! φ_j = ((same − other) / (same + other))²      Φ = mean of φ_j
//! ```
//!
//! over the agents with someone else in their lane. Φ is 1 when everyone walks in a
//! lane of people going its own way, 0 when each lane holds as many one way as the
//! other, and near `1 / n` when the streams are mixed at random (`n` people in a lane).
//! It only means something while the streams meet, so a moment counts only when two
//! people walking against each other are within `reach` of each other.

use crate::world::World;
use glam::Vec2;

/// How far ahead and behind lane mates are counted by default, metres (the people
/// preset's neighbour range).
pub const LANE_REACH: f32 = 5.0;

/// The cosine above which two agents walk the same way (60°).
const SAME: f32 = 0.5;
/// The cosine below which two agents walk against each other (120°).
const AGAINST: f32 = -0.5;

/// Samples the lane order of a world as it runs (see the module docs); feed it the
/// world after each step with [`LaneMeter::observe`].
///
/// # Example
/// ```
/// use crowdnav::scenario::LaneMeter;
/// use crowdnav::steer::Orca;
/// use crowdnav::world::{AgentParams, World, WorldParams};
/// use glam::Vec2;
/// let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
/// // Two people face to face in one lane: it holds one each way.
/// world.add_agent(AgentParams::new(Vec2::ZERO, Vec2::new(20.0, 0.0)))?;
/// world.add_agent(AgentParams::new(Vec2::new(3.0, 0.0), Vec2::new(-20.0, 0.0)))?;
/// let mut meter = LaneMeter::new(5.0, 0.0);
/// world.step(0.05)?;
/// meter.observe(&world);
/// assert_eq!(meter.lane_order(), Some(0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct LaneMeter {
    reach: f32,
    every: f64,
    next: f64,
    sum: f64,
    samples: u64,
    /// The walking agents (reused between samples).
    walkers: Vec<Walker>,
    /// Walkers by grid cell of side `reach`: (cell, index into `walkers`), sorted.
    cells: Vec<((i64, i64), u32)>,
}

impl Default for LaneMeter {
    /// Lane mates within 5 m ahead and behind (the people preset's neighbour range),
    /// sampled every half second.
    fn default() -> Self {
        LaneMeter::new(LANE_REACH, 0.5)
    }
}

impl LaneMeter {
    /// A meter counting lane mates within `reach` metres (values that are not positive
    /// and finite count as [`LANE_REACH`]), sampling at most once every `every`
    /// seconds of simulated time (0: at every call).
    pub fn new(reach: f32, every: f64) -> LaneMeter {
        LaneMeter {
            reach,
            every: if every.is_finite() {
                every.max(0.0)
            } else {
                0.0
            },
            next: f64::NEG_INFINITY,
            sum: 0.0,
            samples: 0,
            walkers: Vec::new(),
            cells: Vec::new(),
        }
    }

    /// Takes a sample of `world` now, unless the last one was less than `every`
    /// seconds ago.
    pub fn observe(&mut self, world: &World) {
        let now = world.time();
        if now < self.next {
            return;
        }
        self.next = now + self.every;
        if let Some(order) = self.sample(world) {
            self.sum += order;
            self.samples += 1;
        }
    }

    /// The mean lane order Φ over the samples taken while two streams met; `None`
    /// before any.
    pub fn lane_order(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sum / self.samples as f64)
    }

    /// How many samples the mean is over.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Φ of `world` now (see [`lane_order`]).
    fn sample(&mut self, world: &World) -> Option<f64> {
        self.walkers.clear();
        for a in world.agents() {
            if let Some(way) = a.preferred_velocity.try_normalize() {
                self.walkers.push(Walker {
                    position: a.position,
                    way,
                    radius: a.radius,
                });
            }
        }
        order_of(&self.walkers, self.reach, &mut self.cells)
    }
}

/// One walking agent, for [`lane_order`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walker {
    /// Its centre, metres.
    pub position: Vec2,
    /// The unit direction it wants to walk in.
    pub way: Vec2,
    /// Its radius, metres.
    pub radius: f32,
}

/// The lane order Φ of one moment (see the module docs), of `walkers` counting lane
/// mates within `reach` metres ahead and behind; `None` when no two walk against each
/// other within `reach` of each other (the streams do not meet). Walkers with a
/// position or way that is not finite are left out. [`LaneMeter`] averages it over a
/// run; it serves trajectories from elsewhere too.
pub fn lane_order(walkers: &[Walker], reach: f32) -> Option<f64> {
    order_of(walkers, reach, &mut Vec::new())
}

/// [`lane_order`] with `cells` as scratch.
fn order_of(walkers: &[Walker], reach: f32, cells: &mut Vec<((i64, i64), u32)>) -> Option<f64> {
    let reach = if reach.is_finite() && reach > 0.0 {
        reach
    } else {
        LANE_REACH
    };
    let cell = |p: Vec2| ((p.x / reach).floor() as i64, (p.y / reach).floor() as i64);
    let finite = |w: &Walker| w.position.is_finite() && w.way.is_finite();
    cells.clear();
    cells.extend(
        walkers
            .iter()
            .enumerate()
            .filter(|(_, w)| finite(w))
            .map(|(i, w)| (cell(w.position), i as u32)),
    );
    cells.sort_unstable();
    let (mut sum, mut counted, mut met) = (0.0f64, 0u64, false);
    for w in walkers.iter().filter(|w| finite(w)) {
        let (cx, cy) = cell(w.position);
        // Itself among those walking its way.
        let (mut same, mut other) = (1u32, 0u32);
        for x in cx - 1..=cx + 1 {
            let start = cells.partition_point(|e| e.0 < (x, cy - 1));
            for &((ex, ey), i) in &cells[start..] {
                if ex != x || ey > cy + 1 {
                    break;
                }
                let them = walkers[i as usize];
                let offset = them.position - w.position;
                if offset == Vec2::ZERO || offset.length_squared() > reach * reach {
                    continue;
                }
                let agree = them.way.dot(w.way);
                met |= agree < AGAINST;
                if offset.perp_dot(w.way).abs() >= w.radius + them.radius {
                    continue;
                }
                if agree > SAME {
                    same += 1;
                } else if agree < AGAINST {
                    other += 1;
                }
            }
        }
        let lane = same + other;
        if lane > 1 {
            let phi = (f64::from(same) - f64::from(other)) / f64::from(lane);
            sum += phi * phi;
            counted += 1;
        }
    }
    (met && counted > 0).then(|| sum / counted as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::Orca;
    use crate::world::{AgentParams, WorldParams};

    fn world_of(walkers: &[(Vec2, Vec2)]) -> World {
        let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
        for &(from, to) in walkers {
            let person = AgentParams {
                radius: 0.25,
                ..AgentParams::new(from, to)
            };
            world.add_agent(person).expect("valid agent");
        }
        // One short step sets the preferred velocities.
        world.step(1e-4).expect("steps");
        world
    }

    #[test]
    fn mixed_files_score_low_and_separate_lanes_score_one_and_streams_apart_not_at_all() {
        // One file, alternating ways: everyone's lane holds both.
        let mixed: Vec<(Vec2, Vec2)> = (0..8)
            .map(|k| {
                let p = Vec2::new(k as f32 * 0.6, 0.0);
                let goal = if k % 2 == 0 { 30.0 } else { -30.0 };
                (p, Vec2::new(goal, 0.0))
            })
            .collect();
        let mut meter = LaneMeter::new(5.0, 0.0);
        meter.observe(&world_of(&mixed));
        let order = meter.lane_order().expect("the streams meet");
        assert!(order < 0.1, "mixed: {order}");
        // Two files side by side, one each way, 1 m apart: lanes of their own.
        let lanes: Vec<(Vec2, Vec2)> = (0..8)
            .map(|k| {
                let y = if k % 2 == 0 { 0.0 } else { 1.0 };
                let goal = if k % 2 == 0 { 30.0 } else { -30.0 };
                let p = Vec2::new((k / 2) as f32 * 0.6, y);
                (p, Vec2::new(goal, y))
            })
            .collect();
        let mut meter = LaneMeter::new(5.0, 0.0);
        meter.observe(&world_of(&lanes));
        // The streams meet, each in a lane of its own.
        assert_eq!(meter.lane_order(), Some(1.0));
        assert_eq!(meter.samples(), 1);
        // Far apart, they do not meet: no sample.
        let apart = [
            (Vec2::ZERO, Vec2::new(30.0, 0.0)),
            (Vec2::new(0.0, 8.0), Vec2::new(-30.0, 8.0)),
        ];
        let mut meter = LaneMeter::new(5.0, 0.0);
        meter.observe(&world_of(&apart));
        assert_eq!((meter.lane_order(), meter.samples()), (None, 0));
    }

    #[test]
    fn people_crossing_at_right_angles_are_not_counted_and_standing_people_neither() {
        let walkers = [
            (Vec2::ZERO, Vec2::new(30.0, 0.0)),
            (Vec2::new(2.0, 0.0), Vec2::new(-30.0, 0.0)),
            (Vec2::new(1.0, 0.1), Vec2::new(1.0, 30.0)),
        ];
        let mut meter = LaneMeter::new(5.0, 0.0);
        meter.observe(&world_of(&walkers));
        // The two head-on share a lane, one each way: φ = 0 for both; the one crossing
        // has nobody in its lane and is left out.
        assert_eq!(meter.lane_order(), Some(0.0));
    }

    #[test]
    fn bad_numbers_are_left_out_and_any_reach_works() {
        let w = |x: f32, way: f32| Walker {
            position: Vec2::new(x, 0.0),
            way: Vec2::new(way, 0.0),
            radius: 0.25,
        };
        let walkers = [w(0.0, 1.0), w(1.0, 1.0), w(2.0, -1.0), w(f32::NAN, -1.0)];
        // Lane of three: two one way, one the other: φ = 1/9 for each.
        let order = lane_order(&walkers, 5.0).expect("they meet");
        assert!((order - 1.0 / 9.0).abs() < 1e-12, "{order}");
        for reach in [f32::NAN, -1.0, f32::INFINITY] {
            assert_eq!(lane_order(&walkers, reach), Some(order));
        }
        assert_eq!(lane_order(&[], 5.0), None);
    }

    #[test]
    fn samples_are_taken_at_most_every_given_time() {
        let walkers = [
            (Vec2::ZERO, Vec2::new(30.0, 0.0)),
            (Vec2::new(2.0, 0.0), Vec2::new(-30.0, 0.0)),
        ];
        let mut world = world_of(&walkers);
        let mut meter = LaneMeter::new(f32::NAN, 0.5);
        for _ in 0..10 {
            world.step(0.1).expect("steps");
            meter.observe(&world);
        }
        assert_eq!(meter.samples(), 2, "at 0.1 s and 0.6 s");
    }
}
