//! Measurement lines: agents counted as their centres cross a segment, and the flow
//! through it, as pedestrian studies measure a door.
//!
//! A [`LineCounter`] is fed the world after every step (it never runs inside the
//! step) and compares each agent's centre before and after: when the motion over
//! the step crosses a line, it records a [`Crossing`] with the time interpolated
//! within the step. [`LineCounter::reports`] sums them up for the run report.

use super::ScenarioError;
use crate::world::{AgentId, World};
use glam::{DVec2, Vec2};
use serde::{Deserialize, Serialize};

/// A named segment that agents are counted across: the scenario key `lines`.
///
/// Its sides are named as seen walking along it from `from` to `to`: the left side is
/// on the left hand. A [`Direction::LeftToRight`] crossing goes from that side to the
/// other; for a line from `(0, -1)` to `(0, 1)` that is towards `+x`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasurementLine {
    /// Its name in the report.
    pub name: String,
    /// One end.
    pub from: Vec2,
    /// The other end.
    pub to: Vec2,
}

/// Which way an agent crossed a [`MeasurementLine`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From the line's left side (seen from `from` looking at `to`) to its right.
    LeftToRight,
    /// From the line's right side to its left.
    RightToLeft,
}

/// One agent's centre crossing one line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// When, seconds since the world's epoch ([`World::metrics_start_time`]), interpolated
    /// linearly within the step.
    pub time: f64,
    /// Who.
    pub agent: AgentId,
    /// Which way.
    pub direction: Direction,
}

impl MeasurementLine {
    /// The line `name` from `from` to `to`.
    pub fn new(name: impl Into<String>, from: Vec2, to: Vec2) -> MeasurementLine {
        MeasurementLine {
            name: name.into(),
            from,
            to,
        }
    }

    /// Its length, metres.
    pub fn length(&self) -> f32 {
        self.from.distance(self.to)
    }

    /// Checks that both ends are finite and distinct; `index` names the line in the
    /// message (`lines[index] "name": …`).
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] saying which.
    pub fn validate(&self, index: usize) -> Result<(), ScenarioError> {
        let problem = if !(self.from.is_finite() && self.to.is_finite()) {
            "a coordinate is NaN or infinite"
        } else if self.length() == 0.0 {
            "it has zero length (from and to are the same point)"
        } else if self.length().is_infinite() {
            "it is too long to measure in f32"
        } else {
            return Ok(());
        };
        Err(ScenarioError::Invalid(format!(
            "lines[{index}] {:?}: {problem}",
            self.name
        )))
    }

    /// Whether a centre moving in a straight line from `p0` to `p1` crosses this line,
    /// and if so at which fraction of the way (in `[0, 1]`) and in which direction.
    ///
    /// A point exactly on the line counts as on its right, so a centre that stops on
    /// the line and goes on is counted once, and one that touches it and turns back is
    /// counted on the way there and the way back, or not at all, but never once. The
    /// ends of the line belong to it. Exact in `f64`; NaN input crosses nothing.
    pub fn crossing(&self, p0: Vec2, p1: Vec2) -> Option<(f64, Direction)> {
        let a = self.from.as_dvec2();
        let d = self.to.as_dvec2() - a;
        let (q0, q1) = (p0.as_dvec2(), p1.as_dvec2());
        let side = |p: DVec2| d.perp_dot(p - a);
        let (s0, s1) = (side(q0), side(q1));
        let (left0, left1) = (s0 > 0.0, s1 > 0.0);
        if left0 == left1 || s0.is_nan() || s1.is_nan() {
            return None;
        }
        // One side is positive and the other not, so the denominator is not zero.
        let fraction = s0 / (s0 - s1);
        let hit = q0 + (q1 - q0) * fraction;
        let along = (hit - a).dot(d) / d.length_squared();
        if !(0.0..=1.0).contains(&along) {
            return None;
        }
        let direction = if left0 {
            Direction::LeftToRight
        } else {
            Direction::RightToLeft
        };
        Some((fraction, direction))
    }
}

/// What the report says about one measurement line. Times are seconds since the run
/// started; every crossing counts, in either direction, and an agent that crosses
/// three times counts three times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineReport {
    /// The line's name.
    pub name: String,
    /// Its length, metres.
    pub length: f32,
    /// Crossings in both directions.
    pub crossings: usize,
    /// Crossings from the line's left side to its right (see [`MeasurementLine`]).
    pub crossings_left_to_right: usize,
    /// Crossings from its right side to its left.
    pub crossings_right_to_left: usize,
    /// Time of the first crossing; `null` when none.
    pub first_crossing: Option<f64>,
    /// Time of the last crossing; `null` when none.
    pub last_crossing: Option<f64>,
    /// Persons per second between the 10th and the 90th percentile crossing (see
    /// [`percentile_flow`]); `null` with fewer than three crossings or when they all
    /// happen at once.
    pub flow: Option<f64>,
    /// `flow` per metre of line, persons per second and metre.
    pub specific_flow: Option<f64>,
}

impl LineReport {
    /// The report of `line` from its crossings (in any order).
    pub fn new(line: &MeasurementLine, crossings: &[Crossing]) -> LineReport {
        let count = |d: Direction| crossings.iter().filter(|c| c.direction == d).count();
        let times: Vec<f64> = crossings.iter().map(|c| c.time).collect();
        let flow = percentile_flow(&times);
        let length = line.length();
        LineReport {
            name: line.name.clone(),
            length,
            crossings: crossings.len(),
            crossings_left_to_right: count(Direction::LeftToRight),
            crossings_right_to_left: count(Direction::RightToLeft),
            first_crossing: times.iter().copied().reduce(f64::min),
            last_crossing: times.iter().copied().reduce(f64::max),
            flow,
            specific_flow: flow.filter(|_| length > 0.0).map(|f| f / f64::from(length)),
        }
    }
}

/// The flow of a list of crossing times: with the `n` times sorted, `t_1 <= … <= t_n`,
/// and `i = ceil(n / 10)`, `j = ceil(9 n / 10)` the ranks of the 10th and 90th
/// percentile crossings, the flow is `(j - i) / (t_j - t_i)` persons per second.
/// `None` with fewer than three times, or when `t_j == t_i`, or for non-finite times.
///
/// Leaving out the first and last tenth keeps the start-up and the stragglers out of
/// the steady flow, as Seyfried et al. (2009) measure at a bottleneck.
pub fn percentile_flow(times: &[f64]) -> Option<f64> {
    let n = times.len();
    if n < 3 {
        return None;
    }
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let i = n.div_ceil(10).max(1);
    let j = (9 * n).div_ceil(10);
    let span = sorted[j - 1] - sorted[i - 1];
    (j > i && span > 0.0 && span.is_finite()).then(|| (j - i) as f64 / span)
}

/// Counts agents crossing measurement lines: give it the world after every step.
///
/// ```
/// use crowdnav::scenario::{LineCounter, MeasurementLine};
/// use crowdnav::steer::Orca;
/// use crowdnav::world::{AgentParams, World, WorldParams};
/// use glam::Vec2;
///
/// let mut world = World::new(None, Box::new(Orca::default()), WorldParams::default());
/// world.add_agent(AgentParams::new(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0))).unwrap();
/// let door = MeasurementLine::new("door", Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0));
/// let mut counter = LineCounter::new(vec![door], &world).unwrap();
/// for _ in 0..100 {
///     world.step(0.1).unwrap();
///     counter.observe(&world);
/// }
/// assert_eq!(counter.reports()[0].crossings_left_to_right, 1);
/// ```
#[derive(Clone, Debug)]
pub struct LineCounter {
    lines: Vec<MeasurementLine>,
    crossings: Vec<Vec<Crossing>>,
    /// Every agent's centre when last observed.
    previous: Vec<(AgentId, Vec2)>,
    /// Seconds since the epoch when last observed.
    previous_time: f64,
    /// The world's step count when last observed.
    previous_step: u64,
}

impl LineCounter {
    /// Starts counting across `lines` from the state of `world` now.
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] for a line of zero length or with a coordinate that
    /// is NaN or infinite.
    pub fn new(lines: Vec<MeasurementLine>, world: &World) -> Result<LineCounter, ScenarioError> {
        for (i, line) in lines.iter().enumerate() {
            line.validate(i)?;
        }
        Ok(LineCounter {
            crossings: vec![Vec::new(); lines.len()],
            lines,
            previous: world.agents().iter().map(|a| (a.id, a.position)).collect(),
            previous_time: world.time() - world.metrics_start_time(),
            previous_step: world.steps(),
        })
    }

    /// Records the crossings of every agent since the last call (or since
    /// [`LineCounter::new`]). Calling it twice without a step in between records
    /// nothing; agents added since are counted from now on. Without lines it returns
    /// at once.
    pub fn observe(&mut self, world: &World) {
        if self.lines.is_empty() || world.steps() == self.previous_step {
            return;
        }
        let now = world.time() - world.metrics_start_time();
        let span = now - self.previous_time;
        let agents = world.agents();
        // Agents keep their order in the world; removed ones leave it and new ones
        // join at the end, so one walk pairs each agent with where it was.
        let mut before = self.previous.iter().peekable();
        for a in agents {
            while before.next_if(|(id, _)| *id != a.id).is_some() {}
            let Some(&(_, p0)) = before.next() else {
                // New since the last step: it has crossed nothing yet.
                continue;
            };
            for (line, found) in self.lines.iter().zip(&mut self.crossings) {
                if let Some((fraction, direction)) = line.crossing(p0, a.position) {
                    found.push(Crossing {
                        time: self.previous_time + fraction * span,
                        agent: a.id,
                        direction,
                    });
                }
            }
        }
        self.previous.clear();
        self.previous
            .extend(agents.iter().map(|a| (a.id, a.position)));
        self.previous_time = now;
        self.previous_step = world.steps();
    }

    /// The lines, in the order given.
    pub fn lines(&self) -> &[MeasurementLine] {
        &self.lines
    }

    /// The crossings of line `index` so far, in step order, agents in index order
    /// within a step. Empty for an index out of range.
    pub fn crossings(&self, index: usize) -> &[Crossing] {
        self.crossings.get(index).map_or(&[], Vec::as_slice)
    }

    /// One report per line, in the order given.
    pub fn reports(&self) -> Vec<LineReport> {
        self.lines
            .iter()
            .zip(&self.crossings)
            .map(|(line, crossings)| LineReport::new(line, crossings))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steer::Orca;
    use crate::world::{AgentParams, WorldParams};

    fn door() -> MeasurementLine {
        MeasurementLine::new("door", Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0))
    }

    fn open_world() -> World {
        World::new(None, Box::new(Orca::default()), WorldParams::default())
    }

    #[test]
    fn a_crossing_towards_the_right_hand_side_is_left_to_right() {
        let line = door();
        let there = line.crossing(Vec2::new(-0.5, 0.0), Vec2::new(1.5, 0.0));
        assert_eq!(there, Some((0.25, Direction::LeftToRight)));
        let back = line.crossing(Vec2::new(1.5, 0.5), Vec2::new(-0.5, 0.5));
        assert_eq!(back, Some((0.75, Direction::RightToLeft)));
    }

    #[test]
    fn motion_beside_along_or_short_of_the_line_crosses_nothing() {
        let line = door();
        // Past the end of the segment.
        assert_eq!(
            line.crossing(Vec2::new(-1.0, 2.0), Vec2::new(1.0, 2.0)),
            None
        );
        // Along it, and short of it.
        assert_eq!(
            line.crossing(Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5)),
            None
        );
        assert_eq!(
            line.crossing(Vec2::new(-1.0, 0.0), Vec2::new(-0.1, 0.0)),
            None
        );
        // NaN crosses nothing.
        assert_eq!(line.crossing(Vec2::NAN, Vec2::new(1.0, 0.0)), None);
        // The ends belong to the line.
        assert!(line
            .crossing(Vec2::new(-1.0, 1.0), Vec2::new(1.0, 1.0))
            .is_some());
    }

    #[test]
    fn stopping_on_the_line_and_going_on_counts_once() {
        let line = door();
        let (a, on, b) = (Vec2::new(-1.0, 0.0), Vec2::ZERO, Vec2::new(1.0, 0.0));
        let count = |path: &[Vec2]| {
            path.windows(2)
                .filter(|w| line.crossing(w[0], w[1]).is_some())
                .count()
        };
        assert_eq!(count(&[a, on, on, b]), 1);
        assert_eq!(count(&[b, on, on, a]), 1);
        // Touching and turning back: twice from the left, never from the right.
        assert_eq!(count(&[a, on, a]), 2);
        assert_eq!(count(&[b, on, b]), 0);
    }

    #[test]
    fn zero_length_and_non_finite_lines_are_refused_by_name() {
        let p = Vec2::new(3.0, 4.0);
        let error = LineCounter::new(
            vec![door(), MeasurementLine::new("gate", p, p)],
            &open_world(),
        )
        .expect_err("zero length");
        assert!(error.to_string().contains("lines[1] \"gate\""), "{error}");
        assert!(error.to_string().contains("zero length"), "{error}");
        let far = MeasurementLine::new("far", p, Vec2::new(f32::INFINITY, 0.0));
        assert!(far
            .validate(0)
            .expect_err("infinite")
            .to_string()
            .contains("NaN or infinite"));
        let nan = MeasurementLine::new("nan", Vec2::NAN, p);
        assert!(nan.validate(0).is_err());
    }

    #[test]
    fn percentile_flow_spans_the_tenth_to_the_ninetieth_crossing() {
        // 20 crossings one second apart, shuffled: i = 2, j = 18, t = 1 .. 17.
        let mut times: Vec<f64> = (0..20).map(f64::from).collect();
        times.reverse();
        times.swap(3, 11);
        assert_eq!(percentile_flow(&times), Some(16.0 / 16.0));
        // 10 crossings, 0.5 s apart but the last one late: ranks 1 and 9.
        let mut times: Vec<f64> = (0..9).map(|k| f64::from(k) * 0.5).collect();
        times.push(100.0);
        assert_eq!(percentile_flow(&times), Some(8.0 / 4.0));
        // Three crossings: ranks 1 and 3.
        assert_eq!(percentile_flow(&[1.0, 2.0, 5.0]), Some(0.5));
        assert_eq!(percentile_flow(&[1.0, 2.0]), None);
        assert_eq!(percentile_flow(&[]), None);
        assert_eq!(percentile_flow(&[4.0, 4.0, 4.0]), None);
    }

    #[test]
    fn the_report_counts_each_direction_and_divides_by_the_length() {
        let line = MeasurementLine::new("wide", Vec2::ZERO, Vec2::new(0.0, 4.0));
        let crossing = |time, direction| Crossing {
            time,
            agent: AgentId::new(0, 0),
            direction,
        };
        let crossings = [
            crossing(2.0, Direction::LeftToRight),
            crossing(1.0, Direction::RightToLeft),
            crossing(3.0, Direction::LeftToRight),
            crossing(5.0, Direction::LeftToRight),
        ];
        let r = LineReport::new(&line, &crossings);
        assert_eq!(r.crossings, 4);
        assert_eq!(r.crossings_left_to_right, 3);
        assert_eq!(r.crossings_right_to_left, 1);
        assert_eq!(r.first_crossing, Some(1.0));
        assert_eq!(r.last_crossing, Some(5.0));
        // i = 1, j = 4: 3 crossings in 4 s, over 4 m.
        assert_eq!(r.flow, Some(0.75));
        assert_eq!(r.specific_flow, Some(0.75 / 4.0));
        let empty = LineReport::new(&line, &[]);
        assert_eq!(
            (empty.crossings, empty.first_crossing, empty.flow),
            (0, None, None)
        );
    }

    /// Two agents walk through a door line in opposite directions, a third walks
    /// beside it; the counter sees one crossing each way, at the time the centre is on
    /// the line to within a step's interpolation.
    #[test]
    fn agents_walking_through_are_counted_each_way_at_the_interpolated_time() {
        let mut world = open_world();
        for (from, to) in [
            ((-3.0, 0.0), (3.0, 0.0)),
            ((3.0, 0.5), (-3.0, 0.5)),
            ((-3.0, 5.0), (3.0, 5.0)),
        ] {
            let p = AgentParams::new(Vec2::from(from), Vec2::from(to))
                .with_radius(0.2)
                .with_speeds(1.0, 1.0);
            world.add_agent(p).expect("valid agent");
        }
        let line = MeasurementLine::new("door", Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0));
        let never = MeasurementLine::new("aside", Vec2::new(10.0, -1.0), Vec2::new(10.0, 1.0));
        let mut counter = LineCounter::new(vec![line, never], &world).expect("valid lines");
        let mut when_left_on_line = None;
        for _ in 0..200 {
            let before = world.agents()[0].position;
            let t0 = world.time();
            world.step(0.1).expect("valid step");
            let after = world.agents()[0].position;
            if before.x < 0.0 && after.x >= 0.0 {
                let f = f64::from(-before.x / (after.x - before.x));
                when_left_on_line = Some(t0 + f * (world.time() - t0));
            }
            counter.observe(&world);
            counter.observe(&world);
        }
        let found = counter.crossings(0);
        assert_eq!(found.len(), 2, "{found:?}");
        let by = |id| {
            found
                .iter()
                .find(|c| c.agent == AgentId::new(id, 0))
                .expect("crossed")
        };
        assert_eq!(by(0).direction, Direction::LeftToRight);
        assert_eq!(by(1).direction, Direction::RightToLeft);
        let expected = when_left_on_line.expect("agent 0 reached the line");
        assert!(
            (by(0).time - expected).abs() < 1e-6,
            "{} vs {expected}",
            by(0).time
        );
        // About 3 s at 1 m/s.
        assert!(by(0).time > 2.5 && by(0).time < 4.0, "{}", by(0).time);
        let reports = counter.reports();
        assert_eq!(reports[0].crossings_left_to_right, 1);
        assert_eq!(reports[0].crossings_right_to_left, 1);
        assert_eq!(reports[0].flow, None, "two crossings are too few");
        assert_eq!(reports[1].name, "aside");
        assert_eq!(reports[1].crossings, 0);
        assert_eq!(
            (reports[1].first_crossing, reports[1].last_crossing),
            (None, None)
        );
        assert!(counter.crossings(2).is_empty());
    }
}
