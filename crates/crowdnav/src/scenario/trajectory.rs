//! Trajectories as CSV, the way pedestrian-analysis tools (PedPy) read them.
//!
//! A [`TrajectoryRecorder`] is fed the world after every step (it never runs inside
//! the step) and writes one row per agent for every `every`-th step, starting with
//! the state it first sees (frame 0).

use crate::world::World;
use std::io::{self, Write};
use std::num::NonZeroU64;

/// The first line of a trajectory file.
pub const TRAJECTORY_HEADER: &str = "agent,frame,time,x,y,vx,vy";

/// Writes a world's trajectories as CSV to any [`Write`].
///
/// The columns are [`TRAJECTORY_HEADER`]: `agent` is the agent's index (its place in
/// the scenario's agent list), `frame` counts the recorded frames from 0 (frame `k` is
/// `k · every` steps after the first), `time` is seconds since the world's epoch
/// ([`World::metrics_start_time`]), `x`, `y` the centre (m), `vx`, `vy` the velocity (m/s).
/// Every agent in the world gets a row in every frame, arrived ones too, so a file of
/// a fixed crowd holds `agents × frames` rows; a scenario that spawns and removes
/// agents (a [`Script`](super::Script)) gives each its rows while it is in the world,
/// under its scenario number ([`TrajectoryRecorder::record_numbered`]). Numbers are written in full (the shortest
/// text that reads back to the same `f32` or `f64`), so the file is the same bytes
/// for the same run on any thread count.
///
/// Frames are evenly spaced, `every · dt` seconds apart: PedPy reads the file with
/// `frame_rate = 1 / (every · dt)` (see [`TrajectoryRecorder::frame_rate`]). A run
/// that stops between two recorded steps has no row for its last state.
///
/// ```
/// use crowdnav::scenario::TrajectoryRecorder;
/// use crowdnav::steer::Orca;
/// use crowdnav::world::{AgentParams, World, WorldParams};
/// use glam::Vec2;
/// use std::num::NonZeroU64;
///
/// let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
/// world.add_agent(AgentParams::new(Vec2::ZERO, Vec2::new(5.0, 0.0))).unwrap();
/// let every = NonZeroU64::new(2).unwrap();
/// let mut recorder = TrajectoryRecorder::new(Vec::new(), every).unwrap();
/// recorder.record(&world).unwrap();
/// for _ in 0..4 {
///     world.step(0.1).unwrap();
///     recorder.record(&world).unwrap();
/// }
/// let csv = String::from_utf8(recorder.finish().unwrap()).unwrap();
/// assert_eq!(csv.lines().count(), 1 + 3); // the header, then steps 0, 2 and 4
/// assert!(csv.lines().nth(1).unwrap().starts_with("0,0,0,0,0,"));
/// ```
#[derive(Debug)]
pub struct TrajectoryRecorder<W: Write> {
    out: W,
    every: NonZeroU64,
    /// The world's step count at frame 0, once seen.
    first_step: Option<u64>,
    /// The world's step count at the last frame written.
    last_step: Option<u64>,
    frames: u64,
}

impl<W: Write> TrajectoryRecorder<W> {
    /// Starts a file on `out` recording every `every`-th step; writes the header.
    ///
    /// # Errors
    /// When `out` cannot be written.
    pub fn new(mut out: W, every: NonZeroU64) -> io::Result<TrajectoryRecorder<W>> {
        writeln!(out, "{TRAJECTORY_HEADER}")?;
        Ok(TrajectoryRecorder {
            out,
            every,
            first_step: None,
            last_step: None,
            frames: 0,
        })
    }

    /// Writes the world's agents as a frame if this step is one to record: the first
    /// call always is (frame 0), then every `every`-th step after it. Call it with the
    /// initial state and after every step; a second call for the same step writes
    /// nothing. Returns whether it wrote a frame.
    ///
    /// # Errors
    /// When the output cannot be written.
    pub fn record(&mut self, world: &World) -> io::Result<bool> {
        self.record_numbered(world, |index, _| Some(index))
    }

    /// [`TrajectoryRecorder::record`] with each agent's `agent` column given by
    /// `number(index, id)` (its place in [`World::agents`] and its id): a scenario that
    /// spawns and removes agents numbers them by [`Script::scenario_index`]
    /// (`|_, id| script.scenario_index(id)`), so each keeps its number. Agents numbered
    /// `None` are left out.
    ///
    /// [`Script::scenario_index`]: super::Script::scenario_index
    ///
    /// # Errors
    /// When the output cannot be written.
    pub fn record_numbered(
        &mut self,
        world: &World,
        number: impl Fn(usize, crate::world::AgentId) -> Option<usize>,
    ) -> io::Result<bool> {
        let step = world.steps();
        let first = *self.first_step.get_or_insert(step);
        let due = step
            .checked_sub(first)
            .is_some_and(|k| k % self.every.get() == 0);
        if !due || self.last_step == Some(step) {
            return Ok(false);
        }
        let frame = self.frames;
        let time = world.time() - world.metrics_start_time();
        for (index, a) in world.agents().iter().enumerate() {
            let Some(i) = number(index, a.id) else {
                continue;
            };
            writeln!(
                self.out,
                "{i},{frame},{time},{},{},{},{}",
                a.position.x, a.position.y, a.velocity.x, a.velocity.y
            )?;
        }
        self.frames += 1;
        self.last_step = Some(step);
        Ok(true)
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Steps between two frames.
    pub fn every(&self) -> NonZeroU64 {
        self.every
    }

    /// Frames per second for steps of `dt` seconds: `1 / (every · dt)`, PedPy's
    /// `frame_rate`.
    pub fn frame_rate(&self, dt: f32) -> f64 {
        1.0 / (self.every.get() as f64 * f64::from(dt))
    }

    /// Flushes the output and hands it back.
    ///
    /// # Errors
    /// When the output cannot be flushed.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::Orca;
    use crate::world::{AgentParams, WorldParams};
    use glam::Vec2;

    fn two_walkers() -> World {
        let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
        for (from, to) in [((0.0, 0.0), (4.0, 0.0)), ((0.0, 3.0), (0.3, 3.0))] {
            let p = AgentParams::new(Vec2::from(from), Vec2::from(to)).with_speeds(1.0, 1.0);
            world.add_agent(p).expect("valid agent");
        }
        world
    }

    fn record(world: &mut World, every: u64, steps: usize) -> String {
        let every = NonZeroU64::new(every).expect("not zero");
        let mut recorder = TrajectoryRecorder::new(Vec::new(), every).expect("in memory");
        recorder.record(world).expect("in memory");
        for _ in 0..steps {
            world.step(0.1).expect("valid step");
            recorder.record(world).expect("in memory");
            recorder.record(world).expect("in memory");
        }
        String::from_utf8(recorder.finish().expect("in memory")).expect("utf-8")
    }

    #[test]
    fn every_agent_gets_a_row_in_every_frame_arrived_or_not() {
        let mut world = two_walkers();
        let csv = record(&mut world, 1, 20);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], TRAJECTORY_HEADER);
        assert_eq!(lines.len(), 1 + 2 * 21);
        assert!(world.agents()[1].is_arrived(), "the short walk is over");
        let last: Vec<&str> = lines[lines.len() - 1].split(',').collect();
        assert_eq!(&last[..2], ["1", "20"]);
        let x: f32 = last[3].parse().expect("a number");
        assert_eq!(x, world.agents()[1].position.x, "written in full");
        let time: f64 = last[2].parse().expect("a number");
        assert_eq!(time, world.time());
        assert!(lines[1].starts_with("0,0,0,0,0,"), "{}", lines[1]);
    }

    #[test]
    fn every_n_th_step_is_a_frame_counted_from_zero() {
        let mut world = two_walkers();
        let csv = record(&mut world, 3, 10);
        let frames: Vec<(u32, u32)> = csv
            .lines()
            .skip(1)
            .map(|l| {
                let mut f = l.split(',').map(|v| v.parse::<u32>().unwrap_or(u32::MAX));
                (f.next().unwrap_or(99), f.next().unwrap_or(99))
            })
            .collect();
        // Steps 0, 3, 6, 9: four frames of two agents.
        let expected: Vec<(u32, u32)> = (0..4).flat_map(|f| [(0, f), (1, f)]).collect();
        assert_eq!(frames, expected);
        let times: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(2).unwrap_or(""))
            .collect();
        let t3: f64 = times[2].parse().expect("a number");
        // Three steps of the f32 step 0.1.
        assert!((t3 - 3.0 * f64::from(0.1f32)).abs() < 1e-12, "{t3}");
        let every = NonZeroU64::new(3).expect("not zero");
        let recorder = TrajectoryRecorder::new(Vec::new(), every).expect("in memory");
        let expected = 1.0 / (3.0 * f64::from(0.1f32));
        assert!((recorder.frame_rate(0.1) - expected).abs() < 1e-12);
    }

    /// A writer that fails after some bytes, like a full disk.
    struct Full(usize);
    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if buf.len() > self.0 {
                return Err(io::Error::other("disk full"));
            }
            self.0 -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_is_returned_not_swallowed() {
        let world = two_walkers();
        let every = NonZeroU64::MIN;
        let mut recorder = TrajectoryRecorder::new(Full(40), every).expect("header fits");
        assert!(recorder.record(&world).is_err());
        assert!(TrajectoryRecorder::new(Full(3), every).is_err());
    }
}
