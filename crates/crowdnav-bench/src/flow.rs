//! Crowd flow: the layouts of pedestrian experiments (a room emptying through a door,
//! counterflow in a corridor, two streams crossing), run by crowdnav and measured from
//! the agents' positions as people who study crowds measure them.
//!
//! Every side (crowdnav here, JuPedSim in [`crate::jupedsim`]) yields [`Tracks`]: the
//! agents' positions at fixed times. The measures take tracks only, so both sides are
//! measured by the same code:
//!
//! - [`measure_line`]: crossings of a measurement line, with each crossing's time
//!   interpolated within its step, and the flow between the 10th and the 90th
//!   percentile of the crowd ([`LineCrossings::specific_flow`]);
//! - [`overlapping_pairs`]: agent pairs ever deeper into each other than 1 % of the
//!   radius, at the recorded frames;
//! - [`lane_order`]: how well counterflow separates into lanes.
//!
//! The library is gaining a trajectory recorder and measurement lines of its own;
//! [`measure_line`] is the one function to swap for it.

use crowdnav::scenario::layouts::{Layout, PERSON_RADIUS};
use crowdnav::scenario::{GoalSpec, Walker, WorldSpec, LANE_REACH};
use crowdnav::world::Goal;
use glam::Vec2;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

/// Agents' positions (and velocities, where the side reports them) at fixed times.
///
/// Frame `f` holds one entry per agent; an agent that is not in the simulation at that
/// time (JuPedSim removes agents at their exit) has no position there.
#[derive(Clone, Debug, Default)]
pub struct Tracks {
    agents: usize,
    times: Vec<f64>,
    /// `frames × agents`, NaN where absent.
    positions: Vec<Vec2>,
    /// `frames × agents`, NaN where unknown.
    velocities: Vec<Vec2>,
}

impl Tracks {
    /// No frames yet, for `agents` agents.
    pub fn new(agents: usize) -> Tracks {
        Tracks {
            agents,
            ..Tracks::default()
        }
    }

    /// How many agents.
    pub fn agents(&self) -> usize {
        self.agents
    }

    /// How many frames.
    pub fn frames(&self) -> usize {
        self.times.len()
    }

    /// The time of each frame, seconds.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// Appends a frame at `time`: `(position, velocity)` of each agent in order, `None`
    /// for an absent agent (missing trailing entries are absent too, extra ones are
    /// ignored). A non-finite position counts as absent.
    pub fn push(&mut self, time: f64, frame: impl IntoIterator<Item = Option<(Vec2, Vec2)>>) {
        let start = self.positions.len();
        for entry in frame.into_iter().take(self.agents) {
            let (p, v) = match entry {
                Some((p, v)) if p.is_finite() => (p, v),
                _ => (Vec2::NAN, Vec2::NAN),
            };
            self.positions.push(p);
            self.velocities.push(v);
        }
        let end = start + self.agents;
        self.positions.resize(end, Vec2::NAN);
        self.velocities.resize(end, Vec2::NAN);
        self.times.push(time);
    }

    /// Where `agent` is at `frame`, if present.
    pub fn position(&self, frame: usize, agent: usize) -> Option<Vec2> {
        if agent >= self.agents {
            return None;
        }
        self.positions
            .get(frame * self.agents + agent)
            .copied()
            .filter(|p| p.is_finite())
    }

    /// Reads the CSV that the JuPedSim script writes: a header naming at least `agent`,
    /// `frame`, `time`, `x` and `y` (any order, other columns ignored), one row per
    /// present agent per frame. Frames are ordered by their number; agents are indices
    /// below `agents`.
    ///
    /// # Errors
    /// A missing column, an unreadable or non-finite number, an agent index out of
    /// range, or two times for one frame.
    pub fn from_csv(text: &str, agents: usize) -> Result<Tracks, String> {
        let mut lines = text.lines();
        let header: Vec<&str> = lines
            .next()
            .ok_or("empty trajectory file")?
            .split(',')
            .map(str::trim)
            .collect();
        let column = |name: &str| {
            header
                .iter()
                .position(|h| *h == name)
                .ok_or(format!("trajectory file: no column {name:?}"))
        };
        let (ca, cf, ct, cx, cy) = (
            column("agent")?,
            column("frame")?,
            column("time")?,
            column("x")?,
            column("y")?,
        );
        let mut frames: BTreeMap<u64, (f64, Vec<(usize, Vec2)>)> = BTreeMap::new();
        for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let row: Vec<&str> = line.split(',').map(str::trim).collect();
            let bad = || format!("trajectory file, line {}: cannot read {line:?}", n + 2);
            let get = |c: usize| row.get(c).copied().ok_or_else(bad);
            let agent: usize = get(ca)?.parse().map_err(|_| bad())?;
            let frame: u64 = get(cf)?.parse().map_err(|_| bad())?;
            let time: f64 = get(ct)?.parse().map_err(|_| bad())?;
            let x: f32 = get(cx)?.parse().map_err(|_| bad())?;
            let y: f32 = get(cy)?.parse().map_err(|_| bad())?;
            if agent >= agents || !(time.is_finite() && x.is_finite() && y.is_finite()) {
                return Err(bad());
            }
            let entry = frames.entry(frame).or_insert((time, Vec::new()));
            if entry.0 != time {
                return Err(format!(
                    "trajectory file, line {}: frame {frame} at two times",
                    n + 2
                ));
            }
            entry.1.push((agent, Vec2::new(x, y)));
        }
        let mut tracks = Tracks::new(agents);
        let mut row = vec![None; agents];
        for (time, present) in frames.into_values() {
            row.fill(None);
            for (agent, p) in present {
                row[agent] = Some((p, Vec2::NAN));
            }
            tracks.push(time, row.iter().copied());
        }
        Ok(tracks)
    }

    /// Writes every `every`-th frame as CSV `agent,frame,time,x,y,vx,vy` (the
    /// trajectory format PedPy reads; `frame` counts the written frames from 0, so
    /// that their rate is constant), present agents only.
    ///
    /// # Errors
    /// The writer fails.
    pub fn write_csv(&self, out: &mut impl Write, every: usize) -> std::io::Result<()> {
        writeln!(out, "agent,frame,time,x,y,vx,vy")?;
        for (k, f) in (0..self.frames()).step_by(every.max(1)).enumerate() {
            for a in 0..self.agents {
                let i = f * self.agents + a;
                let (p, v) = (self.positions[i], self.velocities[i]);
                if p.is_finite() {
                    let v = if v.is_finite() { v } else { Vec2::ZERO };
                    writeln!(
                        out,
                        "{a},{k},{:.4},{:.5},{:.5},{:.5},{:.5}",
                        self.times[f], p.x, p.y, v.x, v.y
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// The crossings of one measurement line.
///
/// "Forward" is across the line from its left to its right, seen from its first point
/// towards its second: through a door line of [`crowdnav::scenario::layouts`] (from the
/// right jamb to the left one) that is the way out; across a corridor line, west to
/// east.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineCrossings {
    /// The line's length, metres.
    pub length: f64,
    /// Each agent's first forward crossing time, seconds (`None`: never crossed).
    pub forward: Vec<Option<f64>>,
    /// Each agent's first backward crossing time, seconds.
    pub backward: Vec<Option<f64>>,
    /// Every crossing, either way, by any agent (more than the first ones when agents
    /// step back and forth over the line).
    pub crossings: usize,
}

impl LineCrossings {
    /// The first forward crossing times of `agents`, sorted.
    pub fn forward_times(&self, agents: &[usize]) -> Vec<f64> {
        let mut t: Vec<f64> = agents
            .iter()
            .filter_map(|&a| self.forward.get(a).copied().flatten())
            .collect();
        t.sort_by(f64::total_cmp);
        t
    }

    /// Persons per second through the line among `agents` (those meant to cross it
    /// forward), between the 10th and the 90th percentile of them: with `N` agents,
    /// `n10 = ⌈0.1 N⌉` and `n90 = ⌊0.9 N⌋`, the `n90 − n10` crossings after the
    /// `n10`-th over the time between the `n10`-th and the `n90`-th. `None` when fewer
    /// than `n90` of them crossed (the crowd never got through) or the interval is
    /// empty.
    pub fn flow(&self, agents: &[usize]) -> Option<f64> {
        let n = agents.len();
        let n10 = ((0.1 * n as f64).ceil() as usize).max(1);
        let n90 = (0.9 * n as f64).floor() as usize;
        let times = self.forward_times(agents);
        if n90 <= n10 || times.len() < n90 {
            return None;
        }
        let span = times[n90 - 1] - times[n10 - 1];
        (span > 0.0).then(|| (n90 - n10) as f64 / span)
    }

    /// [`LineCrossings::flow`] per metre of line, persons/(m·s).
    pub fn specific_flow(&self, agents: &[usize]) -> Option<f64> {
        self.flow(agents)
            .filter(|_| self.length > 0.0)
            .map(|f| f / self.length)
    }
}

/// The crossings of the segment `line` by every agent of `tracks`, between consecutive
/// frames where the agent is present; each crossing's time is interpolated linearly
/// within its step (where the straight move between the two frames meets the line).
///
/// A point exactly on the line counts as past it (on its right), so that a walk
/// through a point of the line is one crossing, neither none nor two.
pub fn measure_line(tracks: &Tracks, line: (Vec2, Vec2)) -> LineCrossings {
    let (a, b) = (line.0.as_dvec2(), line.1.as_dvec2());
    let d = b - a;
    let len2 = d.length_squared();
    let side = |p: Vec2| d.perp_dot(p.as_dvec2() - a);
    let mut out = LineCrossings {
        length: len2.sqrt(),
        forward: vec![None; tracks.agents()],
        backward: vec![None; tracks.agents()],
        crossings: 0,
    };
    if !(len2 > 0.0 && len2.is_finite()) {
        return out;
    }
    for agent in 0..tracks.agents() {
        let mut prev: Option<(f64, Vec2)> = None;
        for f in 0..tracks.frames() {
            let Some(p1) = tracks.position(f, agent) else {
                prev = None;
                continue;
            };
            let t1 = tracks.times[f];
            if let Some((t0, p0)) = prev {
                let (s0, s1) = (side(p0), side(p1));
                let forward = s0 > 0.0 && s1 <= 0.0;
                let backward = s0 <= 0.0 && s1 > 0.0;
                if forward || backward {
                    let k = s0 / (s0 - s1);
                    let q = p0.as_dvec2() + (p1.as_dvec2() - p0.as_dvec2()) * k;
                    let u = (q - a).dot(d) / len2;
                    if (0.0..=1.0).contains(&u) {
                        let t = t0 + (t1 - t0) * k;
                        out.crossings += 1;
                        let first = if forward {
                            &mut out.forward[agent]
                        } else {
                            &mut out.backward[agent]
                        };
                        first.get_or_insert(t);
                    }
                }
            }
            prev = Some((t1, p1));
        }
    }
    out
}

/// Agent pairs that were, at some frame, deeper into each other than 1 % of `radius`
/// (every agent having that radius), each pair counted once.
pub fn overlapping_pairs(tracks: &Tracks, radius: f32) -> usize {
    let limit = f64::from(2.0 * radius - 0.01 * radius);
    let mut pairs = std::collections::BTreeSet::new();
    let mut present: Vec<(f64, f64, usize)> = Vec::with_capacity(tracks.agents());
    for f in 0..tracks.frames() {
        present.clear();
        present.extend((0..tracks.agents()).filter_map(|a| {
            tracks
                .position(f, a)
                .map(|p| (f64::from(p.x), f64::from(p.y), a))
        }));
        present.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.2.cmp(&q.2)));
        for (i, &(x, y, a)) in present.iter().enumerate() {
            for &(x2, y2, b) in &present[i + 1..] {
                if x2 - x >= limit {
                    break;
                }
                if (x2 - x).hypot(y2 - y) < limit {
                    pairs.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    pairs.len()
}

/// The lane order of counterflow along `x`: the library's lane order parameter
/// ([`crowdnav::scenario::lane_order`], after Rex and Löwen 2007, the report's
/// `lane_order`) of the agents within `x_range` at every `every`-th frame, each a
/// person of [`PERSON_RADIUS`] walking along `x`, averaged over the frames at which the
/// two directions meet. 1: lanes of one way each; 0: each lane holds as many one way
/// as the other.
///
/// `heading[i]` is agent `i`'s walking direction along `x` (its sign counts; 0: not
/// counted). `None` when the directions never met within `x_range`.
pub fn lane_order(
    tracks: &Tracks,
    heading: &[f32],
    x_range: (f32, f32),
    every: usize,
) -> Option<f64> {
    let (mut sum, mut count) = (0.0f64, 0usize);
    let mut inside: Vec<Walker> = Vec::new();
    for f in (0..tracks.frames()).step_by(every.max(1)) {
        inside.clear();
        inside.extend((0..tracks.agents()).filter_map(|a| {
            let h = heading.get(a).copied().unwrap_or(0.0).signum();
            tracks
                .position(f, a)
                .filter(|p| h != 0.0 && p.x >= x_range.0 && p.x <= x_range.1)
                .map(|position| Walker {
                    position,
                    way: Vec2::new(h, 0.0),
                    radius: PERSON_RADIUS,
                })
        }));
        if let Some(order) = crowdnav::scenario::lane_order(&inside, LANE_REACH) {
            sum += order;
            count += 1;
        }
    }
    (count > 0).then(|| sum / count as f64)
}

/// One run of a layout by one side.
#[derive(Clone, Debug)]
pub struct FlowRun {
    /// Where the agents were.
    pub tracks: Tracks,
    /// Simulated time, seconds.
    pub sim_seconds: f64,
    /// Wall-clock seconds spent stepping (measuring and recording apart).
    pub step_wall_s: f64,
    /// When each agent first arrived (crowdnav: at its goal; JuPedSim: removed at its
    /// exit), seconds; `None`: not within the run.
    pub arrivals: Vec<Option<f64>>,
    /// Agent pairs ever deeper into each other than 1 % of the smaller radius
    /// (crowdnav: the world's own count, after every step; JuPedSim: from the tracks).
    pub overlapping_pairs: usize,
}

impl FlowRun {
    /// How many agents arrived.
    pub fn arrived(&self) -> usize {
        self.arrivals.iter().flatten().count()
    }

    /// The time of the last arrival, when every agent arrived.
    pub fn clear_time(&self) -> Option<f64> {
        self.arrivals
            .iter()
            .try_fold(0.0f64, |m, a| a.map(|t| m.max(t)))
    }

    /// Wall-clock milliseconds per simulated second.
    pub fn ms_per_sim_second(&self) -> f64 {
        1e3 * self.step_wall_s / self.sim_seconds
    }
}

/// The agents of `layout` meant to cross its line forward: those whose goal lies across
/// it from their start, from its left to its right (everyone through a door; one
/// direction in a corridor). The agents that [`LineCrossings::flow`] counts.
pub fn forward_agents(layout: &Layout) -> Vec<usize> {
    let (a, b) = layout.line;
    let side = |p: Vec2| (b - a).perp_dot(p - a);
    layout
        .scenario
        .agents
        .iter()
        .enumerate()
        .filter(
            |(_, ag)| matches!(ag.goal, GoalSpec::Point(g) if side(ag.pos) > 0.0 && side(g) <= 0.0),
        )
        .map(|(i, _)| i)
        .collect()
}

/// Runs `layout` with crowdnav as the scenario says (its method and parameters, its
/// `dt`), on one thread (JuPedSim steps on one), until every agent has reached its goal
/// once or the scenario's steps ran out, recording every step.
///
/// # Errors
/// The scenario does not build or a step fails.
pub fn run_crowdnav(layout: &Layout) -> Result<FlowRun, String> {
    let scenario = &layout.scenario;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| {
        let mut world = scenario
            .build(None)
            .map_err(|e| format!("{}: {e}", scenario.name))?;
        let n = world.agents().len();
        let mut tracks = Tracks::new(n);
        let record = |world: &crowdnav::world::World, tracks: &mut Tracks| {
            tracks.push(
                world.time(),
                world
                    .agents()
                    .iter()
                    .map(|a| Some((a.position, a.velocity))),
            );
        };
        record(&world, &mut tracks);
        let mut wall = 0.0;
        for _ in 0..scenario.steps {
            // Done when everyone has reached their goal once (as JuPedSim's run ends
            // when its last agent leaves at its exit).
            if world.agents().iter().all(|a| a.arrival_time().is_some()) {
                break;
            }
            let start = Instant::now();
            world
                .step(scenario.dt)
                .map_err(|e| format!("{}: {e}", scenario.name))?;
            wall += start.elapsed().as_secs_f64();
            record(&world, &mut tracks);
        }
        Ok(FlowRun {
            tracks,
            sim_seconds: world.time(),
            step_wall_s: wall,
            arrivals: world.agents().iter().map(|a| a.arrival_time()).collect(),
            overlapping_pairs: world.metrics().overlapping_pairs.len(),
        })
    })
}

/// Seconds that the slowest agent of `layout` would need alone: its shortest path (for
/// its radius) at its preferred speed.
///
/// # Errors
/// The scenario does not build, or an agent has no path.
pub fn time_alone(layout: &Layout) -> Result<f64, String> {
    let world = layout
        .scenario
        .build(None)
        .map_err(|e| format!("{}: {e}", layout.scenario.name))?;
    let mesh = world.mesh().ok_or("the layout has no level")?;
    let mut slowest = 0.0f64;
    for a in world.agents() {
        let Goal::Point(goal) = a.goal else {
            return Err("the layout's goals must be points".to_owned());
        };
        let path = mesh
            .find_path(a.position, goal, a.radius)
            .map_err(|e| format!("{}: agent {}: {e}", layout.scenario.name, a.id))?;
        slowest = slowest.max(path.length() / f64::from(a.pref_speed.max(1e-3)));
    }
    Ok(slowest)
}

/// The scene of `layout` for another simulator: the floor (`boundary` minus
/// `obstacles`), each agent's start and goal, the people's radius and speed.
///
/// # Errors
/// The layout's level is not inline, or an agent's goal is not a point.
pub fn scene(layout: &Layout) -> Result<serde_json::Value, String> {
    let s = &layout.scenario;
    let Some(WorldSpec::Inline(level)) = &s.world else {
        return Err(format!("{}: the level must be inline", s.name));
    };
    let xy = |p: Vec2| [p.x, p.y];
    let agents = s
        .agents
        .iter()
        .map(|a| match a.goal {
            GoalSpec::Point(g) => Ok(serde_json::json!({"pos": xy(a.pos), "goal": xy(g)})),
            _ => Err(format!("{}: goals must be points", s.name)),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let first = s.agents.first();
    Ok(serde_json::json!({
        "name": s.name,
        "boundary": level.boundary.iter().map(|&p| xy(p)).collect::<Vec<_>>(),
        "obstacles": level
            .obstacles
            .iter()
            .map(|o| o.iter().map(|&p| xy(p)).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        "agents": agents,
        "radius": first.map_or(crowdnav::scenario::layouts::PERSON_RADIUS, |a| a.radius),
        "speed": first.map_or(crowdnav::scenario::layouts::PERSON_SPEED, |a| a.pref_speed.unwrap_or(a.max_speed)),
        "scenario_dt": s.dt,
        "max_seconds": f64::from(s.dt) * s.steps as f64,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(points: &[(f64, Vec2)]) -> Tracks {
        let mut t = Tracks::new(1);
        for &(time, p) in points {
            t.push(time, [Some((p, Vec2::ZERO))]);
        }
        t
    }

    #[test]
    fn a_crossing_is_timed_within_its_step_and_counted_once_per_agent() {
        let line = (Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0));
        // From the line's left (x < 1) to its right, a quarter of the way into the step.
        let t = walk(&[(0.0, Vec2::new(0.5, 0.0)), (1.0, Vec2::new(2.5, 0.0))]);
        let c = measure_line(&t, line);
        assert_eq!(c.forward, vec![Some(0.25)]);
        assert_eq!(c.backward, vec![None]);
        assert_eq!(c.length, 2.0);
        // Back and forth: two forward crossings, one backward; the first of each kept.
        let t = walk(&[
            (0.0, Vec2::new(0.0, 0.0)),
            (1.0, Vec2::new(2.0, 0.0)),
            (2.0, Vec2::new(0.0, 0.0)),
            (3.0, Vec2::new(2.0, 0.0)),
        ]);
        let c = measure_line(&t, line);
        assert_eq!(
            (c.forward.clone(), c.backward.clone()),
            (vec![Some(0.5)], vec![Some(1.5)])
        );
        assert_eq!(c.crossings, 3);
        // Past the segment's end: no crossing; onto the line and back: none either.
        let t = walk(&[(0.0, Vec2::new(0.0, 3.0)), (1.0, Vec2::new(2.0, 3.0))]);
        assert_eq!(measure_line(&t, line).crossings, 0);
        let t = walk(&[
            (0.0, Vec2::new(0.0, 0.0)),
            (1.0, Vec2::new(1.0, 0.0)),
            (2.0, Vec2::new(0.0, 0.0)),
        ]);
        assert_eq!(measure_line(&t, line).forward, vec![Some(1.0)]);
    }

    #[test]
    fn flow_is_taken_between_the_10th_and_90th_percentile() {
        // Agents 0..20 cross every 0.5 s, in reverse order; agents 20..40 never do.
        let c = LineCrossings {
            length: 2.0,
            forward: (0..40)
                .map(|k| (k < 20).then(|| f64::from(19 - k) * 0.5))
                .collect(),
            backward: vec![None; 40],
            crossings: 20,
        };
        let first: Vec<usize> = (0..20).collect();
        // n10 = 2 (t = 0.5), n90 = 18 (t = 8.5): 16 persons in 8 s.
        assert_eq!(c.flow(&first), Some(2.0));
        assert_eq!(c.specific_flow(&first), Some(1.0));
        // All 40 meant to cross but only 20 through: the 36th never crossed.
        let all: Vec<usize> = (0..40).collect();
        assert_eq!(c.flow(&all), None);
        assert_eq!(c.flow(&[]), None);
        assert_eq!(c.forward_times(&[3, 25, 1]), vec![8.0, 9.0]);
    }

    #[test]
    fn csv_round_trips_and_bad_rows_are_refused() {
        let mut t = Tracks::new(2);
        t.push(0.0, [Some((Vec2::new(1.0, 2.0), Vec2::X)), None]);
        t.push(
            0.5,
            [
                Some((Vec2::new(1.5, 2.0), Vec2::X)),
                Some((Vec2::ONE, Vec2::Y)),
            ],
        );
        let mut csv = Vec::new();
        t.write_csv(&mut csv, 1).expect("writes");
        let text = String::from_utf8(csv).expect("utf-8");
        assert!(text.starts_with(
            "agent,frame,time,x,y,vx,vy\n0,0,0.0000,1.00000,2.00000,1.00000,0.00000\n"
        ));
        let back = Tracks::from_csv(&text, 2).expect("reads");
        assert_eq!(back.frames(), 2);
        assert_eq!(back.position(0, 1), None);
        assert_eq!(back.position(1, 1), Some(Vec2::ONE));
        assert!(Tracks::from_csv("agent,frame,time,x\n", 2).is_err());
        assert!(Tracks::from_csv("agent,frame,time,x,y\n5,0,0,1,1\n", 2).is_err());
        assert!(Tracks::from_csv("agent,frame,time,x,y\n0,0,0,NaN,1\n", 2).is_err());
        assert!(Tracks::from_csv("agent,frame,time,x,y\n0,0,0,1,1\n1,0,0.5,1,1\n", 2).is_err());
    }

    #[test]
    fn overlaps_and_lane_order_on_hand_made_frames() {
        let mut t = Tracks::new(3);
        let at = |x: f32, y: f32| Some((Vec2::new(x, y), Vec2::ZERO));
        t.push(0.0, [at(0.0, 0.0), at(0.45, 0.0), at(3.0, 0.0)]);
        t.push(1.0, [at(0.0, 0.0), at(0.6, 0.0), at(0.3, 0.1)]);
        // Pairs (0, 1) at frame 0 and (0, 2), (1, 2) at frame 1 are closer than 0.4975.
        assert_eq!(overlapping_pairs(&t, 0.25), 3);
        // Two files: agents 0 and 1 walk east at y = 0, agent 2 west at y = 1.
        let mut t = Tracks::new(3);
        t.push(0.0, [at(10.0, 0.0), at(11.0, 0.0), at(10.5, 1.0)]);
        assert_eq!(lane_order(&t, &[1.0, 1.0, -1.0], (5.0, 15.0), 1), Some(1.0));
        // One file, head-on: its lane holds one each way.
        let mut t = Tracks::new(2);
        t.push(0.0, [at(10.0, 0.0), at(11.0, 0.0)]);
        assert_eq!(lane_order(&t, &[1.0, -1.0], (5.0, 15.0), 1), Some(0.0));
        // One direction only: no counterflow to measure.
        assert_eq!(lane_order(&t, &[1.0, 1.0], (5.0, 15.0), 1), None);
    }
}
